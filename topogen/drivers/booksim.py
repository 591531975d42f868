"""BookSim2 driver: find the binary, run a configuration, parse and classify its output,
and sweep the injection rate to find zero-load latency and the saturation point.

The outcome is judged from the output and from how the process ended (a signal, the
timeout), never from the exit status alone: BookSim exits 255 after a *successful* run,
0 after "Simulation unstable", 255 on configuration errors, 134 on assertions and 139
on segfaults.  Classification (:func:`classify`):

``completed``  the ``Overall Traffic Statistics`` block was printed whole (every line of
               class 0, then ``Total run time``), every number in it is finite and not
               negative, and the process ended by itself with one of BookSim's own exit
               statuses (255 after a run, 0), not by a signal or the timeout (warnings go
               to the message);
``rejected``   a parse/configuration/netlist error was printed (``Parse error ...``,
               ``Error ...``, ``Anynet:...``, ``Unknown router type ...``), also when a
               signal followed it (the message says so);
``hang``       topogen's timeout expired (after the ``Routing table`` header with no
               sample printed this almost always means a disconnected netlist);
``deadlock``   "Simulation unstable" after ``WARNING: Possible network deadlock.``, or a
               network that deadlocked while BookSim emptied it after the measurement (its
               ``Remaining flits`` count unchanged for :data:`STUCK_REPORTS` reports among
               deadlock warnings: BookSim would wait forever, topogen stops it);
``saturated``  "Simulation unstable" without deadlock warnings (latency above
               ``latency_thres`` or no convergence within ``max_samples``);
``crash``      killed by a signal / assertion without a rejection message, even after
               the statistics (a half-written block cannot be told from a whole one), or
               an exit status BookSim never gives (1, 2 ...);
``truncated``  the statistics block began but the output stops before its end;
``implausible`` whole statistics with a NaN, infinite or negative number (BookSim prints
               ``-nan`` when nothing was measured, e.g. ``sample_period = 0``);
``garbage``    a statistics value that is not a number, or more output than any run makes
               (the process is killed past :data:`~topogen.drivers.base.RUNAWAY_FACTOR`
               times the log cap);
``incomplete`` the output just stops.

Only ``completed``, ``saturated`` and ``deadlock`` are results
(:data:`~topogen.drivers.base.RESULT_STATUSES`); every other status is a failure whose
row keeps the raw log's path and never counts as a finished point.

Failure messages end with BookSim's last output line when nothing better explains them.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FormatError, ParameterError
from ..export.booksim import format_option
from ..results import make_row
from .base import (
    FAILURE_STATUSES,
    LOG_CUT_MARK,
    RUNAWAY_FACTOR,
    ProcessResult,
    RunMonitor,
    find_binary,
    fresh_path,
    run_process,
    signal_name,
    simulator_failed,
)

__all__ = [
    "BookSimOutput",
    "find_booksim",
    "parse_output",
    "classify",
    "output_to_row",
    "run_booksim",
    "ENV_VAR",
    "check_options",
    "output_problem",
    "BookSimMonitor",
]

ENV_VAR = "TOPOGEN_BOOKSIM"

_KV = re.compile(r"^(?P<key>[A-Za-z][A-Za-z \-]*?)\s*=\s*(?P<val>\S+)(?:\s+\((?P<n>\d+) samples\))?")
_MINMAX = re.compile(r"^\s+(?P<key>minimum|maximum)\s*=\s*(?P<val>\S+)(?:\s+\((?:(?P<n>\d+) samples|at node \d+)\))?")
# BookSim's own complaints about its input; some are followed by a SIGSEGV (an unknown
# router type returns a null router), so they must be kept whatever happens next
_REJECT = re.compile(
    r"^(Parse error|Error in |Error:|No network file name provided|Anynet:|Unknown |"
    r"Invalid |Could not open configuration file|Usage: )"
)
# printed for a whitespace-only netlist line; BookSim ignores the line and carries on
_WARNING_TEXT = re.compile(r"^Anynet:Incomplete parse of the line")
_CRASH_TEXT = re.compile(r"(Assertion .* failed|Segmentation fault|terminate called|Aborted)")
_OVERALL_CLASS = re.compile(r"^====== Traffic class (\d+) ======")
_SAMPLE_CLASS = re.compile(r"^Class (\d+):\s*$")


def _number(text: str, path, lineno: int) -> float:
    t = text.strip().rstrip(",;")
    try:
        return float(t)  # accepts nan, -nan, inf, exponents
    except ValueError:
        raise FormatError(f"malformed number {text!r} in BookSim output", path=path, line=lineno) from None


@dataclass
class BookSimOutput:
    """What :func:`parse_output` read from one BookSim log.

    Attributes
    ----------
    overall : dict
        Class -> metrics of the ``Overall Traffic Statistics`` block (keys such as
        ``packet_latency_average``, ``packet_latency_minimum``, ``hops_average``,
        ``accepted_packet_rate_average``; ``samples`` is the "(N samples)" count).
    last_sample : dict
        Class -> metrics of the last per-sample-period block.
    sample_blocks : int
        Number of per-sample-period blocks.
    config : dict
        Options echoed from the configuration file, updated by ``OVERRIDE`` lines (raw text).
    metadata : dict
        The topogen ``// metadata: {...}`` header of the configuration, if present.
    cycles : int or None
        Sum of ``Time taken is N cycles``.
    run_time_s : float or None
        ``Total run time`` (seconds spent in the simulation loop).
    deadlock_warnings : int
    unstable : bool
        "Simulation unstable" was printed.
    errors : list of str
        Rejection messages (parse/config/netlist errors).
    crash_text : list of str
        Assertion/abort lines.
    warnings : list of str
        Non-fatal messages (``Anynet:Incomplete parse of the line``).
    routing_table_seen : bool
        The ``Routing table`` header was printed (routing built or being built).
    csv_results : list of list of str
        ``results:`` lines of ``print_csv_results = 1``.
    unstable_reason : str or None
        Why BookSim gave up ("Average latency for class ..." / "Too many sample periods").
    last_line : str or None
        The last non-blank line of the output (cut to 200 characters): the simulator's
        own last word when it dies without a recognised message.
    overall_started : bool
        The ``====== Overall Traffic Statistics`` header was printed.
    finished : bool
        ``Total run time`` was printed after it (BookSim's last line of a run).
    log_cut : str or None
        topogen's note where a capped log dropped output (see
        :func:`topogen.drivers.base.run_process`).
    """

    overall: dict[int, dict[str, float]] = field(default_factory=dict)
    last_sample: dict[int, dict[str, float]] = field(default_factory=dict)
    sample_blocks: int = 0
    config: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    cycles: int | None = None
    run_time_s: float | None = None
    deadlock_warnings: int = 0
    unstable: bool = False
    errors: list[str] = field(default_factory=list)
    crash_text: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    routing_table_seen: bool = False
    csv_results: list[list[str]] = field(default_factory=list)
    unstable_reason: str | None = None
    last_line: str | None = None
    overall_started: bool = False
    finished: bool = False
    log_cut: str | None = None


def _lines_of(source):
    """(path, iterable of lines) of a path, a text, or an iterable of lines."""
    if isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and "\n" in source):
        path = Path(source)
        return path, None
    if isinstance(source, str):
        return None, source.splitlines()
    return None, source


def parse_output(source) -> BookSimOutput:
    """Parse BookSim's stdout, streaming line by line.

    Parameters
    ----------
    source : path-like, str or iterable of str
        A log file, the text itself (must contain a newline), or lines.

    Returns
    -------
    BookSimOutput

    Raises
    ------
    FormatError
        A statistics line whose value is not a number (with the line number).
    """
    path, lines = _lines_of(source)
    if lines is None:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return _parse_lines(fh, path)
    return _parse_lines(lines, None)


def _parse_lines(lines: Iterable[str], path) -> BookSimOutput:
    out = BookSimOutput()
    in_config = False
    block: dict[str, float] | None = None  # current stats block
    block_kind = None
    last_key = None
    cycles = 0
    saw_cycles = False
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if line.strip():
            out.last_line = line.strip()[:200]
        if line.startswith(LOG_CUT_MARK):
            out.log_cut = line.strip()
            in_config = False
            block = None
            continue
        if in_config:
            if line.startswith("END Configuration File:"):
                in_config = False
                continue
            _config_line(line, out.config, out.metadata)
            continue
        if line.startswith("BEGIN Configuration File:"):
            in_config = True
            continue
        if line.startswith("OVERRIDE Parameter:"):
            kv = line[len("OVERRIDE Parameter:"):].strip()
            if "=" in kv:
                k, v = kv.split("=", 1)
                out.config[k.strip()] = v.strip().rstrip(";")
            continue
        if line.startswith("WARNING: Possible network deadlock"):
            out.deadlock_warnings += 1
            continue
        if line.startswith("========================== Routing table"):
            out.routing_table_seen = True
            continue
        m = _SAMPLE_CLASS.match(line)
        if m:
            block = {}
            block_kind = "sample"
            out.last_sample[int(m.group(1))] = block
            out.sample_blocks += 1
            last_key = None
            continue
        m = _OVERALL_CLASS.match(line)
        if m:
            block = {}
            block_kind = "overall"
            out.overall[int(m.group(1))] = block
            last_key = None
            continue
        if line.startswith("====== Overall Traffic Statistics"):
            out.overall_started = True
            out.finished = False
            block = None
            continue
        if line.startswith("Time taken is"):
            m = re.match(r"Time taken is (\S+) cycles", line)
            if m:
                cycles += int(_number(m.group(1), path, lineno))
                saw_cycles = True
            block = None
            continue
        if line.startswith("Total run time"):
            out.run_time_s = _number(line.split()[-1], path, lineno)
            out.finished = out.overall_started
            block = None
            continue
        if line.startswith("Simulation unstable"):
            out.unstable = True
            block = None
            continue
        if line.startswith("Average latency for class") or line.startswith("Too many sample periods"):
            out.unstable_reason = (out.unstable_reason + "; " if out.unstable_reason else "") + line.strip()
            block = None
            continue
        if line.startswith("results:"):
            out.csv_results.append(line[len("results:"):].split(","))
            continue
        if _WARNING_TEXT.match(line):
            out.warnings.append(line.strip())
            continue
        if _REJECT.match(line):
            out.errors.append(line.strip())
            block = None
            continue
        if _CRASH_TEXT.search(line):
            out.crash_text.append(line.strip())
            continue
        if block is None:
            continue
        m = _MINMAX.match(line)
        if m and last_key is not None:
            block[f"{last_key}_{m.group('key')}"] = _number(m.group("val"), path, lineno)
            continue
        m = _KV.match(line)
        if m:
            key = re.sub(r"[ \-]+", "_", m.group("key").strip().lower())
            value = _number(m.group("val"), path, lineno)
            if key.endswith("_average"):
                last_key = key[: -len("_average")]
            else:
                last_key = None
            block[key] = value
            if m.group("n") and block_kind == "overall":
                block["samples"] = float(m.group("n"))
            if key == "throughput_change" and block_kind == "sample":
                block = None
            continue
        if line.strip() == "":
            continue
        # any other text inside a statistics block is unexpected
        if block_kind == "overall" and block is not None and "=" in line:
            raise FormatError(f"unexpected line in BookSim statistics: {line.strip()!r}", path=path, line=lineno)
    out.cycles = cycles if saw_cycles else None
    return out


#: Lines of class 0 of the ``Overall Traffic Statistics`` block (parsed keys) that a whole
#: block has; a block missing one was cut short.
OVERALL_KEYS = tuple(
    f"{name}_{stat}"
    for name in ("packet_latency", "network_latency", "flit_latency", "fragmentation",
                 "injected_packet_rate", "accepted_packet_rate", "injected_flit_rate", "accepted_flit_rate")
    for stat in ("average", "minimum", "maximum")
) + ("injected_packet_size_average", "accepted_packet_size_average", "hops_average")

#: Exit statuses BookSim gives by itself: 255 after a run (``main`` returns -1), 0 after
#: "Simulation unstable" (and after a run in builds that fixed ``main``).
CLEAN_EXITS = (0, 255)


def output_problem(parsed: BookSimOutput) -> tuple[str, str] | None:
    """Why printed statistics are not a trustworthy result, or None when they are whole
    and plausible.

    Returns
    -------
    (status, message) or None
        ``truncated`` (the block lacks a line of class 0, or ``Total run time`` never
        followed it) or ``implausible`` (a NaN, infinite or negative number in class 0).
    """
    block = parsed.overall.get(0)
    if block is None:
        return "truncated", "the Overall Traffic Statistics block has no 'Traffic class 0' section"
    missing = [k for k in OVERALL_KEYS if k not in block]
    if missing:
        return "truncated", (f"the Overall Traffic Statistics block is cut short: {len(missing)} of its "
                             f"{len(OVERALL_KEYS)} lines are missing (first: {missing[0]})")
    if not parsed.finished:
        return "truncated", ("the output ends after the Overall Traffic Statistics without BookSim's "
                             "closing 'Total run time' line")
    bad = [(k, v) for k, v in block.items() if not (math.isfinite(v) and v >= 0)]
    if bad:
        k, v = bad[0]
        more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        hint = " (nothing was measured: check sample_period, max_samples and the load)" if math.isnan(v) else ""
        return "implausible", f"{k} = {v:g} in the Overall Traffic Statistics{more}{hint}"
    return None


def classify(parsed: BookSimOutput, process: ProcessResult | None = None) -> tuple[str, str | None]:
    """Judge a BookSim run from its parsed output (and how the process ended).

    Parameters
    ----------
    parsed : BookSimOutput
    process : ProcessResult, optional
        Gives the timeout, signal, exit status and output size; without it only the text
        is used.

    Returns
    -------
    (status, message)
        ``status`` is one of ``completed``, ``saturated``, ``deadlock``, ``rejected``,
        ``crash``, ``hang``, ``incomplete``, ``truncated``, ``implausible``, ``garbage``;
        ``message`` explains it.

    Notes
    -----
    BookSim's own complaint (``Unknown router type: foo``, ``Error: ...``) is the
    message of a rejection even when a signal follows it (an unknown router type
    segfaults right after the message).  A process killed by a signal, or by topogen's
    timeout, is never ``completed``, even after the ``Overall Traffic Statistics``
    block: a half-written or unflushed block cannot be told from a finished one.  Nor is
    one whose statistics are cut short or hold NaN or negative numbers
    (:func:`output_problem`), or whose exit status is not one of BookSim's own.
    """
    sig = process.signal if process is not None else None
    timed_out = process is not None and process.timed_out
    rc = process.returncode if process is not None else None
    odd_exit = process is not None and sig is None and not timed_out and rc not in CLEAN_EXITS
    if process is not None and process.runaway:
        return "garbage", (f"BookSim wrote {process.output_bytes} bytes, more than {RUNAWAY_FACTOR} times the "
                           "log cap: no run prints that much; topogen killed it (the log keeps its first "
                           "and last part)")
    if process is not None and process.stopped:
        return "deadlock", process.stopped
    if parsed.overall and not timed_out and sig is None:
        problem = output_problem(parsed)
        if problem is not None:
            return problem[0], _with_last_line(problem[1], parsed) if problem[0] == "truncated" else problem[1]
        if odd_exit:
            return "crash", (f"exit status {rc} after printing its statistics (BookSim ends a run with 255 "
                             "or 0); the run is not trusted")
        return "completed", _completed_message(parsed)
    if parsed.errors:
        msg = "; ".join(parsed.errors[:3])
        if timed_out:
            msg += f"; then no exit within the {process.wall_time_s:.0f} s timeout"
        elif sig is not None:
            msg += f"; then killed by {signal_name(sig)}"
        return "rejected", msg
    if timed_out:
        if parsed.overall:
            msg = (f"statistics were printed but BookSim did not exit within the "
                   f"{process.wall_time_s:.0f} s timeout; the run is not trusted")
        elif parsed.routing_table_seen and parsed.sample_blocks == 0:
            msg = ("no progress after the 'Routing table' header: BookSim hangs like this on a "
                   "disconnected netlist (or a very large one still building routes)")
        else:
            msg = f"killed after the {process.wall_time_s:.0f} s timeout"
        return "hang", _with_last_line(msg, parsed)
    if parsed.unstable and sig is None:
        if odd_exit:
            return "crash", (f"exit status {rc} after 'Simulation unstable' (BookSim exits 0 there); "
                             "the run is not trusted")
        if parsed.deadlock_warnings:
            return "deadlock", (f"{parsed.deadlock_warnings} 'Possible network deadlock' warning(s), "
                                "then Simulation unstable")
        return "saturated", parsed.unstable_reason or "Simulation unstable"
    if sig is not None or parsed.crash_text:
        parts = []
        if sig is not None:
            parts.append(f"killed by {signal_name(sig)}"
                         + (" after printing its statistics; the run is not trusted" if parsed.overall else ""))
        parts.extend(parsed.crash_text[:2])
        msg = "; ".join(parts)
        if not parsed.crash_text:
            msg = _with_last_line(msg, parsed)
        return "crash", msg
    if parsed.overall_started:
        return "truncated", _with_last_line(
            f"the output stops right after the Overall Traffic Statistics header (exit status {rc})", parsed)
    return "incomplete", _with_last_line(f"output ended without statistics (exit status {rc})", parsed)


def _completed_message(parsed: BookSimOutput) -> str | None:
    notes = []
    if parsed.deadlock_warnings:
        notes.append(f"completed with {parsed.deadlock_warnings} 'Possible network deadlock' warning(s)")
    notes.extend(parsed.errors[:2])  # whatever BookSim complained about but survived
    notes.extend(parsed.warnings[:1])
    if parsed.log_cut:
        notes.append("the raw log is capped: " + parsed.log_cut.strip("[]").removeprefix("topogen: "))
    return "; ".join(notes) or None


def _with_last_line(message: str, parsed: BookSimOutput) -> str:
    if parsed.last_line:
        return f"{message}; last output: {parsed.last_line!r}"
    return f"{message}; no output"


def _metric(block: Mapping[str, float] | None, key: str):
    if not block:
        return None
    v = block.get(key)
    return v


def output_to_row(parsed: BookSimOutput, *, status: str, message: str | None = None,
                  raw_output=None, wall_time_s: float | None = None, **fields) -> dict:
    """A results row (see :mod:`topogen.results`) from a parsed BookSim log.

    Latencies come from class 0 of the Overall block (cycles).  For unstable runs
    (``saturated``/``deadlock``) latencies are left empty and the rates come from the
    last sample period.  As in every simulator's rows, ``accepted_load`` and
    ``injected_load`` are packets/node/cycle and ``accepted_flit_rate``/
    ``injected_flit_rate`` flits/node/cycle, whatever the ``load_unit`` of
    ``offered_load`` (flits/node/cycle when the configuration sets
    ``injection_rate_uses_flits = 1``, as the ``vct33`` setup does).  Topology, parameters, seed, traffic and offered load are taken
    from the config echo (including topogen's ``// metadata:`` header) unless given in
    ``fields``.

    Parameters
    ----------
    parsed : BookSimOutput
    status, message : str
    raw_output : path-like, optional
    wall_time_s : float, optional
    **fields
        Any other schema column, overriding what the log says.

    Returns
    -------
    dict
    """
    cfg = parsed.config
    meta = parsed.metadata
    overall = parsed.overall.get(0)
    sample = parsed.last_sample.get(0)
    uses_flits = cfg.get("injection_rate_uses_flits", "0").strip() == "1"
    rate = cfg.get("injection_rate")
    try:
        rate = float(rate) if rate is not None else None
    except ValueError:
        rate = None
    sim_params = {k: v for k, v in sorted(cfg.items())
                  if k not in ("network_file", "injection_rate", "topology", "routing_function", "traffic")}
    if meta.get("clock_period_ns") is not None:  # it set the netlist's link latencies
        sim_params["clock_period_ns"] = meta["clock_period_ns"]
    row = dict(
        simulator="booksim",
        topology=meta.get("generator"),
        topology_params=meta.get("params"),
        num_switches=meta.get("num_routers"),
        num_hosts=meta.get("num_nodes"),
        seed=meta.get("seed"),
        sim_seed=_int_or_none(cfg.get("seed")),
        routing="min_anynet",
        traffic=cfg.get("traffic", "uniform"),
        offered_load=rate,
        load_unit="flits/node/cycle" if uses_flits else "packets/node/cycle",
        params=sim_params,
        status=status,
        message=message,
        latency_unit="cycles",
        deadlock_warnings=parsed.deadlock_warnings,
        sim_cycles=parsed.cycles,
        wall_time_s=wall_time_s if wall_time_s is not None else parsed.run_time_s,
        raw_output=None if raw_output is None else os.fspath(raw_output),
    )
    if overall is not None and status == "completed":
        row.update(
            latency_avg=_metric(overall, "packet_latency_average"),
            latency_min=_metric(overall, "packet_latency_minimum"),
            latency_max=_metric(overall, "packet_latency_maximum"),
            network_latency_avg=_metric(overall, "network_latency_average"),
            network_latency_min=_metric(overall, "network_latency_minimum"),
            network_latency_max=_metric(overall, "network_latency_maximum"),
            flit_latency_avg=_metric(overall, "flit_latency_average"),
            accepted_load=_metric(overall, "accepted_packet_rate_average"),
            accepted_flit_rate=_metric(overall, "accepted_flit_rate_average"),
            injected_load=_metric(overall, "injected_packet_rate_average"),
            injected_flit_rate=_metric(overall, "injected_flit_rate_average"),
            hops_avg=_metric(overall, "hops_average"),
            samples=_int_or_none(overall.get("samples")),
        )
    elif sample is not None:
        row.update(
            accepted_load=_metric(sample, "accepted_packet_rate_average"),
            accepted_flit_rate=_metric(sample, "accepted_flit_rate_average"),
            injected_load=_metric(sample, "injected_packet_rate_average"),
            injected_flit_rate=_metric(sample, "injected_flit_rate_average"),
        )
    row.update({k: v for k, v in fields.items()})
    return make_row(**row)


def _int_or_none(v):
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return int(f) if math.isfinite(f) and f.is_integer() else None


def read_config_file(path) -> tuple[dict[str, str], dict[str, Any]]:
    """Options (raw text) and topogen ``// metadata:`` header of a BookSim configuration.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    (options, metadata)
    """
    options: dict[str, str] = {}
    metadata: dict[str, Any] = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            _config_line(raw, options, metadata)
    return options, metadata


_OPTION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*;")


def _config_line(line: str, options: dict, metadata: dict) -> None:
    """One line of a BookSim configuration (a file, or its echo in the output): a
    ``key = value;`` option into ``options``, topogen's ``// metadata:`` JSON header
    into ``metadata`` (an unreadable header is ignored); comments are dropped."""
    s = line.strip()
    if s.startswith("// metadata:"):
        try:
            metadata.update(json.loads(s[len("// metadata:"):]))
        except (json.JSONDecodeError, TypeError, ValueError):
            pass
        return
    m = _OPTION.match(s.split("//", 1)[0].strip())
    if m:
        options[m.group(1)] = m.group(2)


def _fill_from_config(parsed: BookSimOutput, config: Path, overrides) -> None:
    """Complete what the log did not echo (a crash before the echo, a binary that prints
    no echo) from the configuration file; the command-line overrides always apply."""
    try:
        options, metadata = read_config_file(config)
    except OSError:
        options, metadata = {}, {}
    for k, v in options.items():
        parsed.config.setdefault(k, v)
    # the command line is applied after the file, as BookSim's OVERRIDE lines say
    for k, v in (overrides or {}).items():
        parsed.config[k] = format_option(k, v)
    if not parsed.metadata:
        parsed.metadata = metadata


#: reports of an unchanged ``Remaining flits`` count (1000 cycles apart) while BookSim
#: empties the network after the measurement that mean a deadlock (:class:`BookSimMonitor`)
STUCK_REPORTS = 10


class BookSimMonitor(RunMonitor):
    """Progress of a BookSim run from its own output: the phase (reading the netlist,
    building routes, warming up, measuring, draining), the sample periods printed so far
    (a ``Class 0:`` block each, ``sample_period`` cycles long) and the last sample's
    packet latency.

    Parameters
    ----------
    sample_period : int, optional
        Cycles per sample period (the configuration's ``sample_period``), to show
        simulated cycles.
    **kwargs
        As :class:`~topogen.drivers.base.RunMonitor` (``point``, ``stream``,
        ``interval``, ``quiet``).
    """

    _PHASES = (
        ("BEGIN Configuration File", "reading the configuration"),
        ("========================Network File Parsed", "building routes"),
        ("========================== Routing table", "warming up"),
        ("Warmed up", "measuring"),
        ("Draining", "draining"),
        ("====== Overall Traffic Statistics", "writing statistics"),
        ("Simulation unstable", "unstable, stopping"),
    )

    def __init__(self, *, sample_period: int | None = None, **kwargs):
        super().__init__("booksim", **kwargs)
        self.sample_period = sample_period
        self.phase = "starting"
        self.samples = 0
        self.latency: float | None = None
        self.cycles_done = 0  # "Time taken" of finished simulations (sim_count > 1)
        self._emptying = False  # in "Draining remaining packets" (after the measurement)
        self._stuck: tuple[int, int] | None = None  # (remaining flits, reports in a row with that count)
        self._deadlock_seen = False

    def feed(self, line: str) -> None:
        if self._emptying:
            self._watch_emptying(line)
        if line.startswith("Class 0:"):
            self.samples += 1
            return
        if line.startswith("Packet latency average") and "=" in line:
            try:
                self.latency = float(line.split("=", 1)[1].split()[0])
            except (ValueError, IndexError):
                pass
            return
        if line.startswith("Time taken is"):
            m = re.match(r"Time taken is (\d+) cycles", line)
            if m:
                self.cycles_done += int(m.group(1))
            return
        if line.startswith("Draining remaining packets"):
            self._emptying, self._stuck, self._deadlock_seen = True, None, False
        for prefix, phase in self._PHASES:
            if line.startswith(prefix):
                self.phase = phase
                return

    def _watch_emptying(self, line: str) -> None:
        """After the measurement BookSim empties the network of every packet left and
        prints ``Remaining flits: ... (N flits)`` every 1000 cycles; no packet is injected
        then, so N only falls.  When it has not fallen for :data:`STUCK_REPORTS` reports in
        a row while BookSim warns of a deadlock, the network is deadlocked and BookSim would
        wait for those flits forever: :attr:`stop_reason` says so."""
        if line.startswith("WARNING: Possible network deadlock"):
            self._deadlock_seen = True
            return
        if line.startswith("Time taken is"):
            self._emptying = False
            return
        m = re.match(r"Remaining flits:.*\((\d+) flits\)", line)
        if not m:
            return
        n = int(m.group(1))
        reports = self._stuck[1] + 1 if self._stuck is not None and self._stuck[0] == n else 1
        self._stuck = (n, reports)
        if reports > STUCK_REPORTS and self._deadlock_seen and self.stop_reason is None:
            self.stop_reason = (f"network deadlock after the measurement: emptying the network, {n} flits did not "
                                f"move for {STUCK_REPORTS * 1000} cycles with 'Possible network deadlock' warnings, "
                                "and BookSim waits for them forever; topogen stopped it (the load is not sustained)")

    def state(self) -> str:
        parts = [self.phase]
        if self.samples:
            text = f"sample period {self.samples}"
            if self.sample_period:
                text += f" ({self.samples * self.sample_period:,} cycles)"
            parts.append(text)
        if self.latency is not None and math.isfinite(self.latency):
            parts.append(f"latency {self.latency:.4g} cycles")
        return ", ".join(parts)


def find_booksim(binary=None) -> str:
    """Path of the BookSim2 executable: ``binary``, else ``$TOPOGEN_BOOKSIM``, else ``booksim`` on PATH.

    Raises
    ------
    SimulatorNotFound
    """
    return find_binary("booksim", ENV_VAR, binary)


#: Ranges topogen checks before BookSim runs: (lowest, lowest is allowed, highest, why).
#: A value outside them makes BookSim assert, print NaN statistics or stall every packet
#: (which would look like a network deadlock), so it is refused up front.
OPTION_RANGES: dict[str, tuple[float, bool, float, str]] = {
    "num_vcs": (1, True, math.inf, "virtual channels per port; 0 stalls every packet"),
    "vc_buf_size": (1, True, math.inf, "flits per virtual channel buffer"),
    "sample_period": (1, True, math.inf, "cycles per statistics sample; 0 measures nothing (NaN latency)"),
    "max_samples": (1, True, math.inf, "sample periods before giving up; 0 runs no sample"),
    "warmup_periods": (0, True, math.inf, "warm-up sample periods"),
    "sim_count": (1, True, math.inf, "back-to-back simulations"),
    "packet_size": (1, True, math.inf, "flits per packet"),
    "vc_alloc_delay": (1, True, math.inf, "cycles; BookSim asserts on 0"),
    "sw_alloc_delay": (1, True, math.inf, "cycles; BookSim asserts on 0"),
    "routing_delay": (0, True, math.inf, "cycles"),
    "latency_thres": (0, False, math.inf, "cycles of mean latency before a run is declared unstable"),
    "injection_rate": (0, False, 1.0, "flits or packets per node per cycle"),
}


def check_options(options: Mapping[str, Any], where: str = "BookSim option") -> None:
    """Refuse BookSim options whose values BookSim cannot run sensibly (see
    :data:`OPTION_RANGES`); values that are not plain numbers (vectors such as
    ``{1,2}``) are left to BookSim.

    Parameters
    ----------
    options : mapping
        Option name -> value (a number, or the text of a configuration file).
    where : str
        How the message names the option's origin (``--set``, the configuration file).

    Raises
    ------
    ParameterError
        Naming the option, its value and its valid range.
    """
    for key, (low, low_ok, high, why) in OPTION_RANGES.items():
        if key not in options:
            continue
        value = options[key]
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, str):
            try:
                value = float(value.strip().rstrip(";"))
            except ValueError:
                continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            continue
        ok = math.isfinite(value) and (value >= low if low_ok else value > low) and value <= high
        if not ok:
            bound = f"{'>=' if low_ok else '>'} {low:g}" + (f" and <= {high:g}" if math.isfinite(high) else "")
            raise ParameterError(f"{where} {key} = {options[key]} is out of range: BookSim needs {key} {bound} "
                                 f"({why}); fix the value")


def _override_args(overrides: Mapping[str, Any] | None) -> list[str]:
    args = []
    for k in sorted(overrides or {}):
        if k in ("topology", "routing_function", "network_file"):
            raise ParameterError(f"option {k} is fixed by the exported configuration")
        args.append(f"{k}={format_option(k, overrides[k])}")
    return args


def run_booksim(
    config,
    *,
    overrides: Mapping[str, Any] | None = None,
    log_path=None,
    timeout: float | None = 3600.0,
    binary=None,
    raise_on_failure: bool = True,
    progress: bool | RunMonitor = False,
    **fields,
) -> dict:
    """Run BookSim on a configuration and return one results row.

    Parameters
    ----------
    config : path-like
        Configuration file (e.g. from :func:`topogen.export.booksim.export_booksim`).
        BookSim runs in its folder.
    overrides : mapping, optional
        Options passed on the command line as ``key=value`` (typed like the config, e.g.
        ``{"injection_rate": 0.05}``); BookSim echoes them as ``OVERRIDE Parameter``.
    log_path : path-like, optional
        Raw output file; default ``<config stem>.log`` beside the config, or
        ``<config stem>.1.log``, ``.2.log`` ... so that an earlier log is never overwritten.
    timeout : float or None
        Seconds before the run is declared hung.
    binary : path-like, optional
        BookSim executable (default: ``$TOPOGEN_BOOKSIM``, else ``booksim`` on PATH).
    raise_on_failure : bool
        Raise :class:`~topogen.errors.SimulatorFailed` for every failure status
        (:data:`~topogen.drivers.base.FAILURE_STATUSES`: ``rejected``, ``crash``,
        ``hang``, ``incomplete``, ``truncated``, ``garbage``, ``implausible``; the row is
        attached as ``err.row``).  ``saturated`` and ``deadlock`` are results, never errors.
    progress : bool or RunMonitor
        True to show the run's progress on stderr (:class:`BookSimMonitor`): the phase,
        sample periods and latency from BookSim's output with the elapsed time (a status
        line on a terminal, a plain line every minute otherwise; nothing when quiet).  A
        monitor of one's own may be given instead.
    **fields
        Extra results columns (``topology``, ``routing`` ...) overriding the log's.

    Returns
    -------
    dict
        A row of :data:`topogen.results.COLUMNS`.

    Raises
    ------
    ParameterError
        An option of the configuration or of ``overrides`` out of its range
        (:func:`check_options`), before BookSim starts.
    SimulatorNotFound, SimulatorFailed
    """
    exe = find_booksim(binary)
    config = Path(config).resolve()
    if not config.is_file():
        raise ParameterError(f"BookSim configuration {config} does not exist")
    if log_path is None:
        log_path = fresh_path(config.with_suffix(".log"), claim=True)
    argv = [exe, str(config), *_override_args(overrides)]
    try:
        file_options, _ = read_config_file(config)
    except OSError as exc:
        raise ParameterError(f"cannot read BookSim configuration {config}: {exc.strerror}") from None
    overrides_given = dict(overrides or {})
    check_options({k: v for k, v in file_options.items() if k not in overrides_given}, f"{config.name}:")
    check_options(overrides_given, "option")
    if isinstance(progress, RunMonitor):
        monitor = progress
    else:  # shown with progress; always watching for a deadlock BookSim never leaves
        merged = {**file_options, **{k: format_option(k, v) for k, v in overrides_given.items()}}
        rate = merged.get("injection_rate")
        monitor = BookSimMonitor(sample_period=_int_or_none(merged.get("sample_period", "1000")),
                                 point=f"load {rate}" if rate is not None else "", quiet=None if progress else True)
    proc = run_process(argv, log_path, timeout=timeout, cwd=config.parent, monitor=monitor)
    try:
        parsed = parse_output(proc.log_path)
        garbage = None
    except FormatError as exc:  # not BookSim's output: a failure with the raw log, not a crash of topogen
        parsed = BookSimOutput()
        garbage = str(exc)
    _fill_from_config(parsed, config, overrides)
    if garbage is not None and not (proc.runaway or proc.timed_out or proc.signal is not None):
        status, message = "garbage", garbage
    else:
        status, message = classify(parsed, proc)
    row = output_to_row(parsed, status=status, message=message, raw_output=proc.log_path,
                        wall_time_s=proc.wall_time_s, **fields)
    if raise_on_failure and status in FAILURE_STATUSES:
        raise simulator_failed("booksim", status, message, proc.log_path, row)
    return row

