"""Parsers of what an SST/merlin run leaves behind: its stdout/stderr log and the
statistics CSV of ``sst.statOutputCSV``.  :mod:`topogen.drivers.sst` judges the run from
them.

* :func:`parse_stdout` reads the table ``merlin.offered_load`` prints (endpoint 0, one line
  per offered load: ``0.30      172.602 ns``, ``*`` when the generators fell behind their
  injection schedule), SST's ``Simulation is complete, simulated time: 12 us``, Python
  errors of the model, and ``FATAL`` messages *with the lines that follow them* (a
  component's ``fatal`` prints ``FATAL: Rank: 0,0, time: ... - called in file: ...``, then
  ``Element name: ...``, then merlin's own explanation, then a backtrace).
* :func:`parse_statistics` totals ``packet_latency`` and ``send_bit_count`` over the NICs
  at the end of the run; :func:`parse_windows` gives the same totals at every periodic
  output time (the model outputs the NIC statistics every sample window, cumulatively), so
  the driver can measure each load after its warm-up and compare sample windows.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, ParameterError

__all__ = [
    "SSTOutput",
    "parse_stdout",
    "LatencyStats",
    "parse_statistics",
    "StatWindows",
    "parse_windows",
    "time_to_ns",
    "bits",
]

_UNITS_NS = {"fs": 1e-6, "ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_TIME = re.compile(r"^\s*(?P<v>[-+0-9.eE]+|nan|inf)\s*(?P<u>fs|ps|ns|us|ms|s)\s*$")
_LOAD_LINE = re.compile(r"^\s*(?P<load>[-+0-9.eE]+)\s+(?P<lat>[-+0-9.eE]+|nan|-?inf)\s*(?P<u>fs|ps|ns|us|ms|s)\s*"
                        r"(?P<star>\*)?\s*$")
# how a result line of the table starts (a load printed with %9.2f, then more): inside the
# table of several ranks' interleaved output, such a line must be a whole result line
_LOAD_START = re.compile(r"^\s*[-+]?[0-9]*\.[0-9]+(?:[eE][-+]?[0-9]+)?\s+\S")
_REJECT = re.compile(r"(Traceback \(most recent call last\)|Error loading|SyntaxError|"
                     r"ModuleNotFoundError|ImportError|Error parsing option|topogen_sst\.py: )")
# end of a FATAL message: SST's backtrace header or one of its frames, or an MPI abort
_FATAL_END = re.compile(r"^(SST Fatal Backtrace Information|Backtrace not available|\s*\d+\s+: |"
                        r"\*\*\*|-{5,}|MPI_ABORT|\[.*\] \*\*\*|Simulation is complete)")
_FATAL_HEAD = re.compile(r"^FATAL:\s*Rank:\s*(?P<rank>[^,]+),(?P<thread>[^,]*),\s*time:\s*(?P<time>\S+)\s*-\s*"
                         r"called in file:\s*(?P<file>\S+),\s*line:\s*(?P<line>\d+),\s*function:\s*(?P<func>.*)$")
_ELEMENT = re.compile(r"^Element name:\s*(?P<name>\S+?),\s*type:\s*(?P<type>\S+)\s*"
                      r"(?:\(full type tree:\s*(?P<tree>[^)]*)\))?")


def time_to_ns(text: str, *, path=None, line=None) -> float:
    """``"12 us"`` -> 12000.0 (ns).

    Raises
    ------
    FormatError
    """
    m = _TIME.match(str(text))
    if not m:
        raise FormatError(f"malformed SST time {text!r}", path=path, line=line)
    return float(m.group("v")) * _UNITS_NS[m.group("u")]


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
        One line per ``FATAL`` message, with the explanation printed after it.
    errors : list of str
        Python/configuration errors.
    """

    loads: list[tuple[float, float, bool]] = field(default_factory=list)
    sim_time_ns: float | None = None
    complete: bool = False
    fatal: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_stdout(source, *, ranks: int = 1) -> SSTOutput:
    """Parse SST's stdout (offered_load table, completion line, errors), line by line.

    On several ranks the log holds every rank's output as ``mpirun``/``srun`` forward it:
    each rank's lines in their order, whole when the ranks write a line at a time
    (:data:`topogen.drivers.sst_process.SST_ENV` sees to it), but the ranks' lines interleaved.
    The table comes from the rank of endpoint 0, the completion line and SST's summary from
    rank 0 (topogen's partition puts endpoint 0 on rank 0; SST's partitioners may not), so
    the table's lines may come after the completion line with other lines between them
    (seen on a busy machine: the header, then ``Simulation is complete`` and the summary,
    then the rest of the table).  With ``ranks > 1`` the
    table's lines are therefore read wherever they come after its header: neither a blank
    line nor the completion line ends it, lines of other text are other ranks' and skipped,
    and a line that starts like a result line (a load with a decimal point, then more)
    must be one.

    Parameters
    ----------
    source : path-like or str
        A log file, or the text itself (containing a newline).
    ranks : int
        The ranks (processes) whose output the log holds.

    Returns
    -------
    SSTOutput

    Raises
    ------
    FormatError
        A malformed line inside the offered-load table or completion line.
    """
    interleaved = int(ranks) > 1
    if isinstance(source, str) and "\n" in source:
        return _parse_stdout_lines(iter(source.splitlines()), None, interleaved)
    path = Path(source)
    with open(path, encoding="utf-8", errors="replace") as fh:  # streamed: a log may be large
        return _parse_stdout_lines(fh, path, interleaved)


def fatal_message(lines: list[str]) -> str:
    """One line from a ``FATAL`` message and the lines SST printed after it.

    ``["FATAL: Rank: 0,0, time: 5000 - called in file: anytopo.cc, line: 374, function:
    route_packet", "Element name: rtr_3:topology,  type: anytopo (full type tree:
    merlin.hr_router.merlin.anytopo)", "ERROR: Number of hops exceeded ..."]`` becomes
    ``"FATAL in rtr_3:topology (merlin.hr_router.merlin.anytopo): ERROR: Number of hops
    exceeded ... [anytopo.cc:374, sim time 5000]"``; a message without that layout is
    joined as printed.
    """
    head = lines[0].strip()
    rest = [s.strip() for s in lines[1:] if s.strip()]
    m = _FATAL_HEAD.match(head)
    if not m:
        return " ".join([head, *rest])
    element = None
    text = []
    for s in rest:
        e = _ELEMENT.match(s)
        if e and element is None:
            element = f"{e.group('name')} ({e.group('tree') or e.group('type')})"
        else:
            text.append(s)
    where = f"[{m.group('file')}:{m.group('line')}, sim time {m.group('time')}]"
    return f"FATAL in {element or 'SST'}: {' '.join(text) or m.group('func')} {where}"


def _parse_stdout_lines(lines, path, interleaved: bool = False) -> SSTOutput:
    """Parse an iterable of lines, holding only a FATAL message and the three lines before
    the current one in memory; ``interleaved``: several ranks' lines (:func:`parse_stdout`)."""
    import collections

    out = SSTOutput()
    in_table = False
    lines = iter(lines)
    recent: collections.deque[str] = collections.deque(maxlen=3)
    pending = None  # a line read ahead while collecting a FATAL message
    lineno = 0
    while True:
        if pending is not None:
            line, pending = pending, None
        else:
            try:
                line = next(lines)
            except StopIteration:
                break
            lineno += 1
        line = line.rstrip("\r\n")
        s = line.strip()
        if "FATAL" in line:
            block = [s[s.index("FATAL"):]]
            for nxt_raw in lines:
                lineno += 1
                nxt = nxt_raw.strip()
                if not nxt or "FATAL" in nxt or _FATAL_END.match(nxt) or len(block) >= 12:
                    pending = nxt_raw
                    break
                block.append(nxt)
            msg = fatal_message(block)
            # SST core prints some causes just before its FATAL ("Error: unable to find ...")
            before = [p.strip() for p in recent if p.strip().startswith("Error:")]
            out.fatal.append(" ".join(before + [msg]))
            recent.clear()
            continue
        recent.append(line)
        if _REJECT.search(line):
            out.errors.append(s)
            continue
        if s.startswith("Offered") and "Average" in s:
            in_table = True
            continue
        if in_table and s.startswith("Load") and "Latency" in s:
            continue
        if s.startswith("Simulation is complete"):
            in_table = in_table and interleaved
            out.complete = True
            _, _, t = s.partition("simulated time:")
            if t.strip():
                out.sim_time_ns = time_to_ns(t.strip(), path=path, line=lineno)
            continue
        if in_table:
            if s == "":
                in_table = interleaved
                continue
            m = _LOAD_LINE.match(line)
            if not m and interleaved and not _LOAD_START.match(line):
                continue  # another rank's line
            if not m:
                raise FormatError(f"malformed offered_load result line {s!r}", path=path, line=lineno)
            lat = float(m.group("lat")) * _UNITS_NS[m.group("u")]
            out.loads.append((float(m.group("load")), lat, bool(m.group("star"))))
    return out


@dataclass
class LatencyStats:
    """Packet latency over all endpoints at the end of the run, from the statistics CSV (ns).

    This is merlin's *network* latency (``linkcontrol`` ``packet_latency``: from the packet's
    injection onto the wire to its arrival, whole ns), over the whole run.

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
        Last ``SimTime`` (core time base, ps).
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


def _records(path):
    """``(lineno, record dict)`` of every data row of an SST statistics CSV."""
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
                continue
            if len(rec) != len(header):
                raise FormatError(f"{len(rec)} fields, header has {len(header)}", path=path, line=lineno)
            yield lineno, header, [c.strip() for c in rec]


def _column(header, rec, prefix, path, lineno):
    for i, c in enumerate(header):
        if c == prefix or c.startswith(prefix + "."):
            return _num(rec[i], path, lineno, c)
    raise FormatError(f"statistics CSV lacks column {prefix}", path=path, line=lineno)


def _final_records(path):
    """The last record of each (component, statistic, sub-id): periodic outputs are cumulative."""
    last = {}
    for lineno, header, rec in _records(path):
        idx = {c: i for i, c in enumerate(header)}
        key = (rec[idx["ComponentName"]], rec[idx["StatisticName"]], rec[idx.get("StatisticSubId", 0)]
               if "StatisticSubId" in idx else "")
        t = _num(rec[idx["SimTime"]], path, lineno, "SimTime") if "SimTime" in idx and rec[idx["SimTime"]] else 0
        if key not in last or t >= last[key][0]:
            last[key] = (t, lineno, header, rec)
    return sorted(last.values(), key=lambda x: x[1])


def parse_statistics(path) -> LatencyStats:
    """Aggregate ``packet_latency`` (and ``send_bit_count``) over all NICs of an SST CSV.

    Accepts both Accumulator rows (``Sum.u64, SumSQ.u64, Count.u64, Min.u64, Max.u64``)
    and Histogram rows (``BinsMinValue``, ``BinWidth``, ``NumItemsCollected``,
    ``Bin<i>:<lo>-<hi>`` columns).  Component names are keyed by statistic name only, as
    NIC nesting varies (``ol_0``, ``ol_0:networkIF:networkIF``).  When a statistic was
    output periodically, only its last (cumulative) record counts.

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
    bins: dict[int, int] = {}
    bin_lo = bin_w = None
    lo, hi = math.inf, -math.inf
    for t, lineno, header, rec in _final_records(path):
        idx = {c: i for i, c in enumerate(header)}
        name, kind = rec[idx["StatisticName"]], rec[idx["StatisticType"]]
        if "SimTime" in idx and rec[idx["SimTime"]]:
            stats.sim_time_ps = max(stats.sim_time_ps or 0, int(t))

        def col(prefix):
            return _column(header, rec, prefix, path, lineno)

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
            stats.count += int(col("NumItemsCollected"))
            total += float(col("Sum"))
            bin_lo, bin_w = float(col("BinsMinValue")), float(col("BinWidth"))
            for c, i in idx.items():
                m = re.match(r"Bin(\d+):", c)
                if m:
                    k = int(m.group(1))
                    bins[k] = bins.get(k, 0) + int(_num(rec[i], path, lineno, c))
            bins[-1] = bins.get(-1, 0) + int(col("NumOutOfBounds-MinValue"))
            bins[10**9] = bins.get(10**9, 0) + int(col("NumOutOfBounds-MaxValue"))
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
    total = sum(bins.values())
    if total == 0:
        return math.nan
    target = q * total
    seen = 0
    for k in sorted(bins):
        n = bins[k]
        if n and seen + n >= target:
            if k < 0 or k >= 10**9:
                return math.nan
            return lo + width * (k + (target - seen) / n)
        seen += n
    return math.nan


@dataclass
class StatWindows:
    """NIC statistics totalled over all endpoints at every output time (cumulative).

    Attributes
    ----------
    times_ps : list of int
        Output times (ps), increasing.
    delivered : list of int
        Packets received by all NICs up to each time (``packet_latency`` count).
    latency_sum : list of float
        Sum of their network latencies (ns).
    sent_bits : list of int
        Bits the NICs put on the wire up to each time (``send_bit_count``).
    latency_max : float
        Largest network latency of the whole run (ns; NaN for histograms or no packets).
    latency_max_upto : list of float
        Largest network latency delivered up to each time (ns; NaN as above).
    components : int
        NICs with a ``packet_latency`` record.
    sent_bits_by_nic : dict
        ``send_bit_count`` of each NIC (component name) up to each time (the generators'
        backlog per endpoint, :func:`topogen.drivers.sst.endpoint_backlog`).
    """

    times_ps: list[int] = field(default_factory=list)
    delivered: list[int] = field(default_factory=list)
    latency_sum: list[float] = field(default_factory=list)
    sent_bits: list[int] = field(default_factory=list)
    latency_max: float = math.nan
    latency_max_upto: list[float] = field(default_factory=list)
    components: int = 0
    sent_bits_by_nic: dict = field(default_factory=dict)

    def at(self, t_ps: float) -> int | None:
        """Index of the output time closest to ``t_ps`` (within 1 ns), else None."""
        best = None
        for i, t in enumerate(self.times_ps):
            if abs(t - t_ps) <= 1000 and (best is None or abs(t - t_ps) < abs(self.times_ps[best] - t_ps)):
                best = i
        return best


def parse_windows(path) -> StatWindows:
    """Totals of ``packet_latency`` and ``send_bit_count`` at every output time of an SST CSV.

    The model outputs the NIC statistics periodically without resetting them, so each
    record holds the totals from the start of the run up to its ``SimTime``; a NIC with no
    record at some time keeps its previous totals.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    StatWindows

    Raises
    ------
    FormatError
        As :func:`parse_statistics`, or a file without a ``SimTime`` column.
    """
    path = Path(path)
    series: dict[tuple[str, str], dict[int, tuple]] = {}
    result = StatWindows()
    for lineno, header, rec in _records(path):
        idx = {c: i for i, c in enumerate(header)}
        if "SimTime" not in idx:
            raise FormatError("statistics CSV has no SimTime column", path=path, line=lineno)
        name, kind = rec[idx["StatisticName"]], rec[idx["StatisticType"]]
        if name not in ("packet_latency", "send_bit_count"):
            continue
        t = int(_num(rec[idx["SimTime"]], path, lineno, "SimTime"))
        comp = rec[idx["ComponentName"]]
        if name == "send_bit_count":
            value = (int(_column(header, rec, "Sum", path, lineno)),)
        elif kind == "Accumulator":
            n = int(_column(header, rec, "Count", path, lineno))
            mx = float(_column(header, rec, "Max", path, lineno)) if n else math.nan
            value = (n, float(_column(header, rec, "Sum", path, lineno)), mx)
        elif kind == "Histogram":
            value = (int(_column(header, rec, "NumItemsCollected", path, lineno)),
                     float(_column(header, rec, "Sum", path, lineno)), math.nan)
        else:
            raise FormatError(f"unsupported statistic type {kind!r} for packet_latency", path=path, line=lineno)
        series.setdefault((name, comp), {})[t] = value
    times = sorted({t for s in series.values() for t in s})
    result.times_ps = times
    result.components = sum(1 for (name, _) in series if name == "packet_latency")
    delivered = [0] * len(times)
    lat_sum = [0.0] * len(times)
    sent = [0] * len(times)
    upto = [math.nan] * len(times)
    maxima = []
    for (name, comp), s in series.items():
        last = None
        nic = result.sent_bits_by_nic.setdefault(comp, [0] * len(times)) if name == "send_bit_count" else None
        for i, t in enumerate(times):
            last = s.get(t, last)
            if last is None:
                continue
            if name == "send_bit_count":
                sent[i] += last[0]
                nic[i] = last[0]
            else:
                delivered[i] += last[0]
                lat_sum[i] += last[1]
                if not math.isnan(last[2]) and not last[2] <= upto[i]:
                    upto[i] = last[2]
        if name == "packet_latency" and last is not None and not math.isnan(last[2]):
            maxima.append(last[2])
    result.delivered, result.latency_sum, result.sent_bits = delivered, lat_sum, sent
    result.latency_max = max(maxima) if maxima else math.nan
    result.latency_max_upto = upto
    return result
