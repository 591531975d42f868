"""SST/merlin driver: run ``sst`` (optionally under ``mpirun -np K``) on topogen's model
and a bundle, keep the raw output, and parse it into results rows.

Two outputs are read:

* stdout of ``merlin.offered_load`` (endpoint 0 prints one line per offered load:
  ``0.30      172.602 ns``, with a trailing ``*`` when the generators fell behind their
  injection schedule, i.e. the network saturated) and SST's final
  ``Simulation is complete, simulated time: 12 us``;
* the statistics CSV of ``sst.statOutputCSV`` (``packet_latency`` per NIC, as an
  Accumulator with Sum/Count/Min/Max or as a Histogram, from which percentiles are
  estimated).  Latencies are in ns.

Status: ``completed`` (statistics printed), ``saturated`` (``*`` marker), ``rejected``
(Python/configuration error before simulation), ``crash`` (``FATAL`` or a signal),
``hang`` (timeout), ``incomplete`` (none of these).
"""

from __future__ import annotations

import csv
import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FormatError, ParameterError
from ..export.sst import model_path, read_bundle
from ..results import make_row
from .base import (
    FAILURE_STATUSES,
    ProcessResult,
    find_binary,
    fresh_path,
    run_process,
    signal_name,
    simulator_failed,
)

__all__ = [
    "ENV_VAR",
    "MPIRUN_ENV_VAR",
    "find_sst",
    "find_mpirun",
    "SSTOutput",
    "parse_stdout",
    "LatencyStats",
    "parse_statistics",
    "classify",
    "run_sst",
    "sst_command",
]

ENV_VAR = "TOPOGEN_SST"
MPIRUN_ENV_VAR = "TOPOGEN_MPIRUN"

_UNITS_NS = {"fs": 1e-6, "ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_TIME = re.compile(r"^\s*(?P<v>[-+0-9.eE]+|nan|inf)\s*(?P<u>fs|ps|ns|us|ms|s)\s*$")
_LOAD_LINE = re.compile(r"^\s*(?P<load>[-+0-9.eE]+)\s+(?P<lat>[-+0-9.eE]+|nan|-?inf)\s*(?P<u>fs|ps|ns|us|ms|s)\s*(?P<star>\*)?\s*$")
_REJECT = re.compile(r"(Traceback \(most recent call last\)|Error loading|SyntaxError|"
                     r"ModuleNotFoundError|ImportError|Error parsing option|topogen_sst\.py: )")


def find_sst(binary=None) -> str:
    """Path of ``sst``: ``binary``, else ``$TOPOGEN_SST``, else ``sst`` on PATH.

    Raises
    ------
    SimulatorNotFound
    """
    return find_binary("sst", ENV_VAR, binary)


def find_mpirun(binary=None) -> str:
    """Path of ``mpirun``: ``binary``, else ``$TOPOGEN_MPIRUN``, else ``mpirun`` on PATH."""
    return find_binary("mpirun", MPIRUN_ENV_VAR, binary)


def time_to_ns(text: str, *, path=None, line=None) -> float:
    """``"12 us"`` -> 12000.0 (ns).

    Raises
    ------
    FormatError
    """
    m = _TIME.match(text)
    if not m:
        raise FormatError(f"malformed SST time {text!r}", path=path, line=line)
    return float(m.group("v")) * _UNITS_NS[m.group("u")]


@dataclass
class SSTOutput:
    """What :func:`parse_stdout` read.

    Attributes
    ----------
    loads : list of (float, float, bool)
        (offered load, average latency in ns, saturated marker) per offered-load line.
    sim_time_ns : float or None
        From ``Simulation is complete, simulated time: ...``.
    complete : bool
    fatal : list of str
        ``FATAL`` lines.
    errors : list of str
        Python/configuration errors.
    """

    loads: list[tuple[float, float, bool]] = field(default_factory=list)
    sim_time_ns: float | None = None
    complete: bool = False
    fatal: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_stdout(source) -> SSTOutput:
    """Parse SST's stdout (offered_load table, completion line, errors), line by line.

    Parameters
    ----------
    source : path-like or str
        A log file, or the text itself (containing a newline).

    Returns
    -------
    SSTOutput

    Raises
    ------
    FormatError
        A malformed line inside the offered-load table or completion line.
    """
    if isinstance(source, str) and "\n" in source:
        return _parse_stdout_lines(source.splitlines(), None)
    path = Path(source)
    with open(path, encoding="utf-8", errors="replace") as fh:
        return _parse_stdout_lines(fh, path)


def _parse_stdout_lines(lines, path) -> SSTOutput:
    out = SSTOutput()
    in_table = False
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        s = line.strip()
        if "FATAL" in line:
            out.fatal.append(s)
            continue
        if _REJECT.search(line):
            out.errors.append(s)
            continue
        if s.startswith("Offered") and "Average" in s:
            in_table = True
            continue
        if in_table and s.startswith("Load") and "Latency" in s:
            continue
        if s.startswith("Simulation is complete"):
            in_table = False
            out.complete = True
            _, _, t = s.partition("simulated time:")
            if t.strip():
                out.sim_time_ns = time_to_ns(t.strip(), path=path, line=lineno)
            continue
        if in_table:
            if s == "":
                in_table = False
                continue
            m = _LOAD_LINE.match(line)
            if not m:
                raise FormatError(f"malformed offered_load result line {s!r}", path=path, line=lineno)
            lat = float(m.group("lat")) * _UNITS_NS[m.group("u")]
            out.loads.append((float(m.group("load")), lat, bool(m.group("star"))))
    return out


@dataclass
class LatencyStats:
    """Packet latency over all endpoints, from the statistics CSV (ns).

    Attributes
    ----------
    count : int
    avg, min, max : float
        ``min``/``max`` are NaN for histograms.
    p50, p90, p99 : float
        Histogram estimates (linear within a bin); NaN for accumulators.
    send_bits : int
        Sum of ``send_bit_count`` (bits injected by the NICs), 0 if absent.
    sim_time_ps : int or None
        ``SimTime`` column (core time base, ps).
    components : int
        Number of components with a ``packet_latency`` record.
    """

    count: int = 0
    avg: float = math.nan
    min: float = math.nan
    max: float = math.nan
    p50: float = math.nan
    p90: float = math.nan
    p99: float = math.nan
    send_bits: int = 0
    sim_time_ps: int | None = None
    components: int = 0


def _num(text, path, lineno, column):
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        try:
            return float(t)
        except ValueError:
            raise FormatError(f"column {column}: {text!r} is not a number", path=path, line=lineno) from None


def parse_statistics(path) -> LatencyStats:
    """Aggregate ``packet_latency`` (and ``send_bit_count``) over all NICs of an SST CSV.

    Accepts both Accumulator rows (``Sum.u64, SumSQ.u64, Count.u64, Min.u64, Max.u64``)
    and Histogram rows (``BinsMinValue``, ``BinWidth``, ``NumItemsCollected``,
    ``Bin<i>:<lo>-<hi>`` columns).  Component names are keyed by statistic name only, as
    NIC nesting varies (``ol_0``, ``ol_0:networkIF:networkIF``).

    Parameters
    ----------
    path : path-like
        CSV written by ``sst.statOutputCSV`` (separator ``,`` or ``, ``).

    Returns
    -------
    LatencyStats

    Raises
    ------
    FormatError
        A missing header column or a non-numeric value, with the line number.
    """
    path = Path(path)
    stats = LatencyStats()
    total = 0.0
    bins: dict[int, list] = {}
    bin_lo = None
    bin_w = None
    lo = math.inf
    hi = -math.inf
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh, skipinitialspace=True)
        header = None
        for lineno, rec in enumerate(reader, 1):
            if not rec or all(not c.strip() for c in rec):
                continue
            if header is None:
                header = [c.strip() for c in rec]
                for need in ("ComponentName", "StatisticName", "StatisticType"):
                    if need not in header:
                        raise FormatError(f"statistics CSV header lacks {need}", path=path, line=lineno)
                idx = {c: i for i, c in enumerate(header)}
                continue
            if len(rec) != len(header):
                raise FormatError(f"{len(rec)} fields, header has {len(header)}", path=path, line=lineno)
            rec = [c.strip() for c in rec]
            name = rec[idx["StatisticName"]]
            kind = rec[idx["StatisticType"]]
            if "SimTime" in idx and rec[idx["SimTime"]]:
                stats.sim_time_ps = int(_num(rec[idx["SimTime"]], path, lineno, "SimTime"))

            def col(prefix):
                for c, i in idx.items():
                    if c == prefix or c.startswith(prefix + "."):
                        return _num(rec[i], path, lineno, c)
                raise FormatError(f"statistics CSV lacks column {prefix}", path=path, line=lineno)

            if name == "send_bit_count" and kind == "Accumulator":
                stats.send_bits += int(col("Sum"))
                continue
            if name != "packet_latency":
                continue
            stats.components += 1
            if kind == "Accumulator":
                n = int(col("Count"))
                stats.count += n
                total += float(col("Sum"))
                if n:
                    lo = min(lo, float(col("Min")))
                    hi = max(hi, float(col("Max")))
            elif kind == "Histogram":
                n = int(col("NumItemsCollected"))
                stats.count += n
                total += float(col("Sum"))
                bin_lo = float(col("BinsMinValue"))
                bin_w = float(col("BinWidth"))
                for c, i in idx.items():
                    m = re.match(r"Bin(\d+):", c)
                    if m:
                        k = int(m.group(1))
                        bins.setdefault(k, [0])[0] += int(_num(rec[i], path, lineno, c))
                below = int(col("NumOutOfBounds-MinValue"))
                above = int(col("NumOutOfBounds-MaxValue"))
                bins.setdefault(-1, [0])[0] += below
                bins.setdefault(10**9, [0])[0] += above
            else:
                raise FormatError(f"unsupported statistic type {kind!r} for packet_latency", path=path, line=lineno)
    if stats.count:
        stats.avg = total / stats.count
        if math.isfinite(lo):
            stats.min, stats.max = lo, hi
    if bins and bin_w:
        stats.p50, stats.p90, stats.p99 = (_percentile(bins, bin_lo, bin_w, q) for q in (0.5, 0.9, 0.99))
    return stats


def _percentile(bins, lo, width, q) -> float:
    """Linear interpolation within histogram bins; NaN if the quantile is out of range."""
    total = sum(v[0] for v in bins.values())
    if total == 0:
        return math.nan
    target = q * total
    seen = 0
    for k in sorted(bins):
        n = bins[k][0]
        if n and seen + n >= target:
            if k < 0 or k >= 10**9:
                return math.nan
            frac = (target - seen) / n
            return lo + width * (k + frac)
        seen += n
    return math.nan


def classify(out: SSTOutput, process: ProcessResult | None = None) -> tuple[str, str | None]:
    """Judge an SST run from its stdout (and how the process ended).

    Returns
    -------
    (status, message)
    """
    if process is not None and process.timed_out:
        return "hang", f"killed after the {process.wall_time_s:.0f} s timeout"
    if out.errors and not out.complete:
        return "rejected", "; ".join(out.errors[:3])
    if out.fatal:
        return "crash", "; ".join(out.fatal[:2])
    sig = process.signal if process is not None else None
    if sig is not None:
        return "crash", f"killed by {signal_name(sig)}"
    if out.complete:
        if any(star for _, _, star in out.loads):
            return "saturated", "offered_load fell behind its injection schedule (marked '*')"
        return "completed", None
    rc = process.returncode if process is not None else None
    return "incomplete", f"output ended before 'Simulation is complete' (exit status {rc})"


def sst_command(
    bundle,
    *,
    load: float | Sequence[float] = 0.5,
    traffic: str = "uniform",
    message_size: str = "64B",
    warmup: str = "2us",
    collect: str = "10us",
    drain: str = "20us",
    stats=None,
    histogram: tuple[float, int] | None = None,
    ranks: int = 1,
    threads: int = 1,
    binary=None,
    mpirun=None,
) -> list[str]:
    """The command line that runs topogen's SST model on ``bundle``.

    Parameters
    ----------
    bundle : path-like
    load : float or sequence of float
        Offered load(s) as fractions of link bandwidth.
    traffic : str
        ``uniform``, ``bit_complement`` or ``shift:K``.
    message_size, warmup, collect, drain : str
        SST quantities (``64B``, ``2us`` ...).
    stats : path-like, optional
        Statistics CSV (default ``<bundle stem>.stats.csv``).
    histogram : (float, int), optional
        Record ``packet_latency`` as a histogram with this bin width (ns) and bin count.
    ranks : int
        MPI ranks; > 1 runs under ``mpirun -np ranks``.
    threads : int
        SST threads per rank (``-n``).
    binary, mpirun : path-like, optional

    Returns
    -------
    list of str
    """
    exe = find_sst(binary)
    bundle = Path(bundle).resolve()
    loads = [load] if isinstance(load, (int, float)) else list(load)
    for x in loads:
        if not (isinstance(x, (int, float)) and 0 < float(x) <= 1.0):
            raise ParameterError(f"SST offered load must be in (0, 1] (fraction of link bandwidth), got {x!r}")
    stats = Path(stats).resolve() if stats is not None else bundle.with_suffix(".stats.csv")
    argv = [exe]
    if threads and int(threads) > 1:
        argv += ["-n", str(int(threads))]
    argv += [str(model_path()), "--",
             "--bundle", str(bundle),
             "--load", ",".join(repr(float(x)) for x in loads),
             "--traffic", traffic,
             "--message-size", message_size,
             "--warmup", warmup, "--collect", collect, "--drain", drain,
             "--stats", str(stats)]
    if histogram is not None:
        argv += ["--histogram", f"{histogram[0]:g},{int(histogram[1])}"]
    if ranks and int(ranks) > 1:
        argv = [find_mpirun(mpirun), "-np", str(int(ranks)), *argv]
    return argv


def run_sst(
    bundle,
    *,
    load: float | Sequence[float] = 0.5,
    traffic: str = "uniform",
    message_size: str = "64B",
    warmup: str = "2us",
    collect: str = "10us",
    drain: str = "20us",
    out_dir=None,
    histogram: tuple[float, int] | None = None,
    ranks: int = 1,
    threads: int = 1,
    timeout: float | None = 3600.0,
    binary=None,
    mpirun=None,
    raise_on_failure: bool = True,
    **fields,
) -> list[dict]:
    """Run SST on a bundle and return results rows (one per offered load).

    The raw stdout/stderr is kept as ``<out_dir>/<bundle stem>.<traffic>.<loads>.log`` and
    the statistics as ``... .stats.csv`` beside it (``.1.log``, ``.2.log`` ... when an
    earlier run left files of that name: raw output is never overwritten); each row's
    ``raw_output`` names the log.

    Parameters
    ----------
    bundle : path-like
        From :func:`topogen.export.sst.write_bundle`.
    load, traffic, message_size, warmup, collect, drain, histogram, ranks, threads
        See :func:`sst_command`.
    out_dir : path-like, optional
        Default: the bundle's folder.
    timeout : float or None
    binary, mpirun : path-like, optional
        ``sst`` (default ``$TOPOGEN_SST`` or PATH) and ``mpirun`` (``$TOPOGEN_MPIRUN``/PATH).
    raise_on_failure : bool
        Raise :class:`~topogen.errors.SimulatorFailed` for rejected/crash/hang/incomplete.
    **fields
        Extra results columns.

    Returns
    -------
    list of dict
    """
    bundle = Path(bundle).resolve()
    doc = read_bundle(bundle)
    out_dir = Path(out_dir).resolve() if out_dir is not None else bundle.parent
    tag = f"{bundle.stem}.{traffic.replace(':', '_')}"
    loads = [load] if isinstance(load, (int, float)) else list(load)
    tag += "." + "_".join(f"{float(x):g}" for x in loads)
    log = fresh_path(out_dir / f"{tag}.log")  # never overwrite an earlier run's raw output
    stats = log.with_suffix(".stats.csv")
    argv = sst_command(bundle, load=loads, traffic=traffic, message_size=message_size, warmup=warmup,
                       collect=collect, drain=drain, stats=stats, histogram=histogram, ranks=ranks,
                       threads=threads, binary=binary, mpirun=mpirun)
    if stats.exists():
        stats.unlink()
    proc = run_process(argv, log, timeout=timeout, cwd=out_dir)
    out = parse_stdout(proc.log_path)
    status, message = classify(out, proc)
    lat = parse_statistics(stats) if stats.is_file() else None
    rows = rows_from_output(doc, out, lat, status=status, message=message, raw_output=proc.log_path,
                            wall_time_s=proc.wall_time_s, loads=loads, traffic=traffic,
                            message_size=message_size,
                            params={"message_size": message_size, "warmup": warmup, "collect": collect,
                                    "drain": drain, "ranks": ranks, "threads": threads,
                                    "stats": str(stats), "command": shlex.join(argv)},
                            **fields)
    if raise_on_failure and status in FAILURE_STATUSES:
        raise simulator_failed("sst", status, message, proc.log_path, rows[0] if rows else None)
    return rows


_SI = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
       "ki": 2.0**10, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
_QUANTITY = re.compile(r"^\s*(?P<v>[0-9.]+(?:[eE][-+]?[0-9]+)?)\s*(?P<p>[kKMGT]i?|)(?P<u>B|b)(?P<rate>/s)?\s*$")


def bits(text: str, *, rate: bool = False) -> float:
    """An SST size or bandwidth in bits (per second): ``"64B"`` -> 512, ``"4GB/s"`` -> 3.2e10.

    Raises
    ------
    ParameterError
        Not a size (``rate=False``) or bandwidth (``rate=True``) SST would accept.
    """
    m = _QUANTITY.match(str(text))
    if not m or bool(m.group("rate")) != rate:
        what = "bandwidth such as 4GB/s" if rate else "size such as 64B"
        raise ParameterError(f"expected an SST {what}, got {text!r}")
    value = float(m.group("v")) * _SI[m.group("p")]
    return value * (8 if m.group("u") == "B" else 1)


def _load_fraction(total_bits, endpoints, link_bw, sim_time_ns) -> float:
    """Bits moved as a fraction of what ``endpoints`` links carry in ``sim_time_ns``."""
    try:
        capacity = float(endpoints) * bits(link_bw, rate=True) * float(sim_time_ns) * 1e-9
    except (ParameterError, TypeError, ValueError):
        return math.nan
    return total_bits / capacity if capacity > 0 else math.nan


def rows_from_output(bundle: Mapping[str, Any] | None, out: SSTOutput, lat: LatencyStats | None, *,
                     status: str, message: str | None, raw_output=None, wall_time_s=None,
                     loads=None, traffic: str = "uniform", params=None, message_size: str | None = None,
                     **fields) -> list[dict]:
    """Results rows from a parsed SST run.

    With one offered load the row's latencies come from the statistics CSV (avg, min,
    max, percentiles) when available, else from the stdout table.  With several loads the
    CSV mixes them, so each row takes only its stdout average.

    With one load, ``accepted_load`` (and ``injected_load``) are estimated as the bits
    delivered (``packet_latency`` count x message size; injected: ``send_bit_count``)
    divided by what the endpoint links could carry over the whole simulated time
    (``num_endpoints x link_bw x sim_time``), i.e. in the same unit as ``offered_load``
    (fraction of link bandwidth).  The statistics cover the whole run, warm-up included,
    so it is an average over the run rather than a steady-state measurement.

    Parameters
    ----------
    bundle : mapping or None
        The bundle (for topology metadata and sizes).
    out : SSTOutput
    lat : LatencyStats or None
    status, message : str
    raw_output : path-like, optional
    wall_time_s : float, optional
    loads : list of float, optional
        Offered loads requested (used when the stdout table is missing).
    traffic : str
    params : mapping, optional
    message_size : str, optional
        Message size of the run (``"64B"``), for the accepted-load estimate.
    **fields
        Extra/overriding columns.

    Returns
    -------
    list of dict
    """
    meta = (bundle or {}).get("metadata", {})
    table = out.loads or [(float(x), math.nan, False) for x in (loads or [math.nan])]
    rows = []
    for load, avg, star in table:
        row_status, row_message = status, message
        if status in ("completed", "saturated"):  # judged per load by its '*' marker
            row_status = "saturated" if star else "completed"
            row_message = message if star else None
        row = dict(
            simulator="sst",
            topology=meta.get("generator"),
            topology_params=meta.get("params"),
            num_switches=(bundle or {}).get("num_routers"),
            num_hosts=(bundle or {}).get("num_endpoints"),
            seed=meta.get("seed"),
            routing="source:" + str(meta.get("routing", "unknown")),
            traffic=traffic,
            offered_load=load,
            load_unit="fraction of link bandwidth",
            params=params or {},
            status=row_status,
            message=row_message,
            latency_avg=avg,
            latency_unit="ns",
            sim_time_ns=out.sim_time_ns,
            wall_time_s=wall_time_s,
            raw_output=None if raw_output is None else os.fspath(raw_output),
        )
        if lat is not None and len(table) == 1 and lat.count:
            row.update(latency_avg=lat.avg, latency_min=lat.min, latency_max=lat.max,
                       latency_p50=lat.p50, latency_p90=lat.p90, latency_p99=lat.p99,
                       packets=lat.count)
            link_bw = ((bundle or {}).get("nic_params") or {}).get("link_bw")
            endpoints = (bundle or {}).get("num_endpoints")
            if link_bw and endpoints and out.sim_time_ns and message_size:
                try:
                    msg_bits = bits(message_size)
                except ParameterError:
                    msg_bits = math.nan
                row.update(
                    accepted_load=_load_fraction(lat.count * msg_bits, endpoints, link_bw, out.sim_time_ns),
                    injected_load=_load_fraction(lat.send_bits, endpoints, link_bw, out.sim_time_ns)
                    if lat.send_bits else math.nan,
                )
        row.update(fields)
        rows.append(make_row(**row))
    return rows
