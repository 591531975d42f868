"""SST/merlin driver: check a bundle, run ``sst`` (optionally under ``mpirun -np K``) on
topogen's model, keep the raw output, and judge and measure every offered load.

:func:`run_sst` runs topogen's own endpoint by default (``generator="bernoulli"``, as
``topogen run sst``), with BookSim's traffic process and measurement
(:mod:`topogen.drivers.sst_nic`); ``generator="offered_load"`` runs merlin's periodic
generator, which the rest of this page is about.

How a run is measured (the same definitions as BookSim and the reference simulator):

* **latency** (``latency_avg``): from the time ``merlin.offered_load`` scheduled the packet
  (its generation, so source queueing counts) to its delivery, over the packets delivered
  after the load's warm-up, as ``offered_load`` prints it (endpoint 0's table, in ns);
* **network latency** (``network_latency_avg``): ``linkcontrol``'s ``packet_latency``
  (injection onto the wire to delivery), over the packets delivered in the load's
  measurement period (warm-up excluded);
* **accepted / injected load**: packets delivered / put on the wire during the measurement
  period, as fractions of the endpoint link bandwidth (the unit of ``offered_load``).

The model outputs the NIC statistics every *sample window* (a tenth of the collect time by
default), so each load's measurement period is cut into windows.  A load is
``saturated`` when the generators fall behind their schedule at half the window ends or
more (:func:`saturation_reasons`; merlin's ``*`` when there are no windows), when
the accepted load is below ``1 - accepted_tolerance`` of the offered load, or when the
network latency grows between sample windows (last third of the windows above
``1 + latency_growth`` times the first third).  A run that otherwise completed but whose
packets in flight at the end of the measurement exceed what Little's law allows (injection
rate x twice the largest network latency, plus one per endpoint) lost packets: it is
``incomplete``, an error, not a result.

Process outcomes: ``rejected`` (Python/configuration error before simulation), ``crash``
(``FATAL``, with merlin's explanation printed after it, a signal, or a non-zero exit status
after ``Simulation is complete``), ``hang`` (timeout), ``incomplete`` (no ``Simulation is
complete``), ``garbage`` (a malformed result line, or more output than any run writes:
the process is killed past the log cap's runaway limit), ``truncated`` (the offered-load
table has fewer lines than loads) and ``implausible`` (a NaN, infinite or negative
latency or rate); these rows carry no latencies and are never results.  Saturated
rows keep the accepted and injected loads but, as BookSim's and the reference simulator's,
no latency (it only measures how long the run lasted).
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..export.sst import model_path, read_bundle
from ..results import make_row
from .. import sim_defaults
from .base import FAILURE_STATUSES, fresh_path, row_problem, run_process, simulator_failed
from .sst_rule import (ACCEPTED_TOLERANCE, BEHIND_FRACTION, BEHIND_REASON, LATENCY_GROWTH, endpoint_backlog,
                       saturation_reasons)
from .sst_process import (ENV_VAR, SST_ENV, LAUNCHERS, MPIRUN_ENV_VAR, PARTITIONERS, bundle_settings,  # noqa: F401
                          check_ranks, classify, default_ranks, find_mpirun, find_sst, judge_process, offered_loads, parallel_run,
                          rank_columns, write_partition)
from .sst_table import topology_args
from .sst_output import (
    LatencyStats,
    SSTOutput,
    StatWindows,
    bits,
    parse_statistics,
    parse_stdout,
    parse_windows,
    time_to_ns,
)

__all__ = [
    "ENV_VAR",
    "MPIRUN_ENV_VAR",
    "DEFAULTS",
    "find_sst",
    "find_mpirun",
    "SSTOutput",
    "parse_stdout",
    "LatencyStats",
    "parse_statistics",
    "StatWindows",
    "parse_windows",
    "classify",
    "measure_load",
    "saturation_reasons",
    "BEHIND_REASON",
    "BEHIND_FRACTION",
    "endpoint_backlog",
    "run_sst",
    "sst_command",
    "grid_times",
    "rows_from_output",
    "bundle_cycle_ps",
    "bits",
    "time_to_ns",
]

#: Defaults of :func:`run_sst` and ``topogen run sst``.  The warm-up and collect times are
#: long enough for loads above saturation to show it (falling accepted load, growing latency).
DEFAULTS: dict[str, Any] = {
    "message_size": sim_defaults.sst_message_size(),  # the shared 33-flit packet
    "warmup": "10us",
    "collect": "40us",
    "drain": "20us",
    "windows": 10,
    "accepted_tolerance": ACCEPTED_TOLERANCE,
    "latency_growth": LATENCY_GROWTH,
}


#: The load of the phase a run on several ranks adds after its last load (fraction of link
#: bandwidth; few packets, so the network drains).
TAIL_LOAD = 0.001

def trust_rows(rows: list[dict]) -> list[dict]:
    """Mark ``implausible`` every result row (``completed``, ``saturated``, ``deadlock``)
    with a negative or infinite number, or a completed one without a finite latency
    (:func:`topogen.drivers.base.row_problem`); its figures are cleared.  In place; returns
    ``rows``."""
    for row in rows:
        if row.get("status") in FAILURE_STATUSES:
            continue
        problem = row_problem(row)
        if problem is not None:
            row["status"] = "implausible"
            row["message"] = problem[1]
            for col in _NO_LATENCY:
                if col in row and col != "packets":
                    row[col] = math.nan
    return rows


def _ps(text: str, what: str, *, positive: bool = True) -> int:
    try:
        ns = time_to_ns(text)
    except Exception:
        raise ParameterError(f"{what} must be an SST time such as 10us or 500ns, got {text!r}") from None
    ps = int(round(ns * 1000))
    if ps < 0 or (positive and ps == 0) or not math.isfinite(ns):
        raise ParameterError(f"{what} must be {'positive' if positive else '>= 0'}, got {text!r}")
    return ps


def sample_window_ps(warmup_ps: int, collect_ps: int, drain_ps: int, windows: int = 10) -> int:
    """Length of a statistics sample window (ps): about ``collect / windows``, chosen so that
    warm-up, collect and drain times are whole numbers of windows when that is possible."""
    if windows < 2:
        raise ParameterError(f"windows must be >= 2 (sample windows per collect period), got {windows}")
    target = collect_ps / windows
    g = math.gcd(math.gcd(warmup_ps, collect_ps), drain_ps)
    m = max(1, math.ceil(g / target))
    for k in range(m, m + 1000):
        if g % k == 0 and g // k >= target / 2:
            return g // k
    return max(1, int(round(target)))


def grid_times(warmup_ps: int, collect_ps: int, drain_ps: int, windows: int, cycle_ps) -> tuple[int, int, int, int]:
    """Warm-up, collect, drain and sample-window times (ps) on SST's cycle grid.

    ``merlin.offered_load`` starts load ``g`` of a run at ``g * (warmup + collect + drain)``
    and its hosts send every ``message time / load`` from there; hr_router's crossbar
    clock ticks at whole multiples of the cycle.  A load that starts between two ticks
    meets the clock at another phase than the first load: measured on the 4x4 torus (1-flit
    tornado, ``run sst`` defaults), 0.1 after 0.01 in one run read 36.06 cycles, 0.1 alone
    35.62 (the reference simulator: 35.62).  So every time becomes a whole number of cycles:
    the sample window of :func:`sample_window_ps` is rounded to whole cycles and the times,
    whole numbers of windows, keep their number of windows (10 us, 40 us, 20 us with 2.5 us
    windows become 4, 16 and 8 windows of 938 cycles of 2,666 ps: 0.03 % longer); times no
    window divides are each rounded to whole cycles.

    Parameters
    ----------
    warmup_ps, collect_ps, drain_ps : int
    windows : int
        Sample windows per collect time.
    cycle_ps : int or None
        The bundle's ``cycle_ps``; None (a bundle that records none) keeps the times.

    Returns
    -------
    (warmup, collect, drain, window) : tuple of int, ps
    """
    win = sample_window_ps(warmup_ps, collect_ps, drain_ps, windows)
    if not cycle_ps:
        return warmup_ps, collect_ps, drain_ps, win
    cyc = int(cycle_ps)
    k = max(1, round(win / cyc))
    times = (warmup_ps, collect_ps, drain_ps)
    if all(t % win == 0 for t in times):
        w, c, d = (t // win * k * cyc for t in times)
    else:
        w, c, d = (round(t / cyc) * cyc for t in times)
    return w, max(c, cyc), d, k * cyc


def sst_command(
    bundle,
    *,
    load: float | Sequence[float] = sim_defaults.LOAD,
    traffic: str = "uniform",
    message_size: str = DEFAULTS["message_size"],
    warmup: str = DEFAULTS["warmup"],
    collect: str = DEFAULTS["collect"],
    drain: str = DEFAULTS["drain"],
    window: str | None = None,
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
        SST quantities (``64B``, ``10us`` ...).
    window : str, optional
        Statistics sample window (``4us``); default from :func:`sample_window_ps`.
    stats : path-like, optional
        Statistics CSV (default ``<bundle stem>.stats.csv``).
    histogram : (float, int), optional
        Also record network latency as a histogram with this bin width (ns) and bin count.
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
    loads = offered_loads(load, "(fraction of link bandwidth)")
    w, c, d = _ps(warmup, "warmup", positive=False), _ps(collect, "collect"), _ps(drain, "drain", positive=False)
    bits(message_size)
    if window is None:
        window = f"{sample_window_ps(w, c, d)}ps"
    else:
        _ps(window, "window")
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
             "--window", window,
             "--stats", str(stats)]
    if histogram is not None:
        argv += ["--histogram", f"{histogram[0]:g},{int(histogram[1])}"]
    if ranks and int(ranks) > 1:
        argv = [find_mpirun(mpirun), "-np", str(int(ranks)), *argv]
    return argv


def run_sst(
    bundle,
    *,
    load: float | Sequence[float] = sim_defaults.LOAD,
    traffic: str = "uniform",
    message_size: str = DEFAULTS["message_size"],
    warmup: str = DEFAULTS["warmup"],
    collect: str = DEFAULTS["collect"],
    drain: str = DEFAULTS["drain"],
    windows: int = DEFAULTS["windows"],
    accepted_tolerance: float = DEFAULTS["accepted_tolerance"],
    latency_growth: float = DEFAULTS["latency_growth"],
    out_dir=None,
    histogram: tuple[float, int] | None = None,
    ranks: int | None = None,
    threads: int = 1,
    timeout: float | None = 3600.0,
    binary=None,
    mpirun=None,
    raise_on_failure: bool = True,
    validate: bool = True,
    generator: str = "bernoulli",
    seed=None,
    self_packets: bool = sim_defaults.SELF_PACKETS,
    sst_topology: str = "anytopo",
    num_vcs: int | None = None,
    progress: bool = False,
    partitioner: str | None = None,
    launcher: str | None = None,
    **fields,
) -> list[dict]:
    """Check a bundle, run SST on it and return results rows (one per offered load).

    The default ``generator="bernoulli"`` (as ``topogen run sst``) runs topogen's own
    endpoint (:func:`topogen.drivers.sst_nic.run_bernoulli`: Bernoulli arrivals from
    ``seed``, ``self_packets``, latency to the tail in cycles, one SST run per load);
    ``generator="offered_load"`` runs merlin's periodic ``merlin.offered_load`` (latency
    to the head in ns, one SST run for all loads), which ``topogen crossval`` and the
    ``--simulator sst`` back end use.  ``windows``, ``accepted_tolerance``,
    ``latency_growth`` and ``histogram`` are offered_load's; ``seed`` and
    ``self_packets`` bernoulli's.

    The bundle is validated first (:func:`topogen.export.sst.validate_bundle`): an
    inconsistent one raises before SST starts.  The raw stdout/stderr is kept as
    ``<out_dir>/<bundle stem>.<traffic>.<loads>.log`` and the statistics as ``... .stats.csv``
    beside it (``.1.log``, ``.2.log`` ... when an earlier run left files of that name: raw
    output is never overwritten; bernoulli keeps one ``<bundle stem>.bernoulli.<traffic>.
    <load>.s<seed>.log`` per load, no statistics); each row's ``raw_output`` names the log.

    Parameters
    ----------
    bundle : path-like
        From :func:`topogen.export.sst.write_bundle`.
    load, traffic, message_size, warmup, collect, drain, histogram, ranks, threads
        See :func:`sst_command` (bernoulli: :func:`~topogen.drivers.sst_nic.run_bernoulli`,
        which takes more traffic patterns); defaults in :data:`DEFAULTS`.  With a bundle that records
        its cycle (``cycle_ps``) the warm-up, collect and drain times are put on that cycle's
        grid first (:func:`grid_times`); the rows' ``params`` give the times run.
    windows : int
        Sample windows per collect period (statistics output interval = collect / windows,
        adjusted to divide the warm-up, collect and drain times).
    accepted_tolerance, latency_growth : float
        Saturation thresholds (see the module documentation).
    out_dir : path-like, optional
        Default: the bundle's folder.
    timeout : float or None
    binary, mpirun : path-like, optional
        ``sst`` (default ``$TOPOGEN_SST`` or PATH) and ``mpirun`` (``$TOPOGEN_MPIRUN``/PATH).
    raise_on_failure : bool
        Raise :class:`~topogen.errors.SimulatorFailed` for rejected/crash/hang/incomplete.
    validate : bool
        Check the bundle before SST starts (default).  ``False`` only serves to see what
        SST itself does with a broken bundle.
    generator : {"bernoulli", "offered_load"}
        The endpoints: topogen's ``topogen.bernoulli_nic`` (default; latencies in cycles,
        loads in flits per host per cycle) or merlin's ``merlin.offered_load`` (latencies
        in ns, loads as fractions of link bandwidth).
    seed : int, optional
        bernoulli: run seed, recorded as ``sim_seed`` (None: derived from the run's
        content); ``offered_load`` takes none.
    self_packets : bool
        bernoulli, ``uniform``: the source is a destination too (the shared default).
    sst_topology : {"anytopo", "table"}
        The routers' merlin topology: ``merlin.anytopo`` (source routes, VC = hop number)
        or ``topogen.table_topo`` (next-hop tables, any of ``num_vcs`` VCs per hop, the one
        with most credits; refuses routings it cannot follow):
        :mod:`topogen.drivers.sst_table`.  Recorded with ``num_vcs`` in the rows' params.
    num_vcs : int, optional
        ``table``: VCs per virtual network (default :data:`topogen.sim_defaults.NUM_VCS`).
    ranks : int, optional
        MPI ranks of the one SST run (default ``$TOPOGEN_SST_RANKS``, else 1; an array task
        of ``experiment submit`` with ``tasks_per_point = K`` exports K).  Every router and
        endpoint still runs as on one rank: the same seed gives the same numbers.
    partitioner : str, optional
        With ``ranks > 1``: how SST's components are split over the ranks: ``topogen``
        (the default: :func:`topogen.metrics.partition.partition_routers`, every router with
        its endpoints, few links cut; SST runs with ``--partitioner=sst.self``) or SST's own
        ``linear``, ``roundrobin``, ``simple``.  The rows record ``ranks``, ``partitioner``,
        ``cut_links``, ``peak_rss_mb`` (the largest rank's) and ``total_rss_mb``.
    launcher : {"mpirun", "srun"}, optional
        How the ranks start (default ``$TOPOGEN_SST_LAUNCHER``, else ``mpirun``): ``mpirun -np K`` (with ``--oversubscribe`` past this machine's
        CPUs; as root with Open MPI's ``OMPI_ALLOW_RUN_AS_ROOT*`` set) or ``srun --ntasks K``
        inside a SLURM allocation.
    progress : bool
        Show the run's progress on
        stderr (:class:`~topogen.drivers.sst_nic.SSTMonitor`: elapsed and simulated time;
        a status line on a terminal, a plain line every minute otherwise; nothing when
        quiet).
    **fields
        Extra results columns.

    Returns
    -------
    list of dict

    Raises
    ------
    ParameterError
        An unknown ``generator`` or a bad setting.
    FormatError
        An inconsistent bundle (one line naming the router and port).
    SimulatorFailed
        With ``raise_on_failure``, for a failed run (its rows are attached as ``.row``).
    """
    ranks, launcher = default_ranks(ranks, launcher)
    if generator == "bernoulli":
        from .sst_nic import run_bernoulli

        rows = trust_rows(run_bernoulli(
            bundle, load=load, traffic=traffic, seed=seed, self_packets=self_packets,
            message_size=message_size, warmup=warmup, collect=collect, drain=drain,
            out_dir=out_dir, ranks=ranks, threads=threads, timeout=timeout, binary=binary,
            mpirun=mpirun, raise_on_failure=False, validate=validate,
            sst_topology=sst_topology, num_vcs=num_vcs, progress=progress, partitioner=partitioner,
            launcher=launcher, **fields))
        failed = [r for r in rows if r["status"] in FAILURE_STATUSES]
        if raise_on_failure and failed:
            raise simulator_failed("sst", failed[0]["status"], failed[0]["message"], failed[0]["raw_output"],
                                   failed[0])
        return rows
    if generator != "offered_load":
        raise ParameterError(f"SST generator must be bernoulli or offered_load, got {generator!r}")
    if seed is not None:
        raise ParameterError("seed applies to generator='bernoulli': merlin.offered_load takes no seed")
    bundle = Path(bundle).resolve()
    doc = read_bundle(bundle, validate=validate)
    topo_argv, topo_params = topology_args(sst_topology, num_vcs, doc, bundle)
    out_dir = Path(out_dir).resolve() if out_dir is not None else bundle.parent
    ranks, partitioner = check_ranks(ranks, partitioner, launcher)
    loads = [load] if isinstance(load, (int, float)) else list(load)
    # the traffic text names files: only [A-Za-z0-9_.,-] of it, so "../x" stays in out_dir
    tag = f"{bundle.stem}.{re.sub(r'[^A-Za-z0-9_.,-]', '_', str(traffic))[:40]}." + \
        "_".join(f"{float(x):g}" for x in loads)
    cycle_ps = doc.get("cycle_ps")
    cycle_ps = cycle_ps if isinstance(cycle_ps, int) and not isinstance(cycle_ps, bool) and cycle_ps > 0 else None
    w, c, d, win = grid_times(_ps(warmup, "warmup", positive=False), _ps(collect, "collect"),
                              _ps(drain, "drain", positive=False), int(windows), cycle_ps)
    timing = {"warmup_ps": w, "collect_ps": c, "drain_ps": d, "window_ps": win}
    if cycle_ps:  # the times SST runs, on its cycle grid
        warmup, collect, drain = f"{w}ps", f"{c}ps", f"{d}ps"
    # On several ranks a run must not end with the last measurement: SST's ranks stop at a
    # synchronisation, and events at and past the end time were counted on some splits and
    # not on others (measured on a Slim Fly q=5: 220 of 6,400 statistics at the final time
    # differed, injected load 0.1033 against 0.1).  A tail load of TAIL_LOAD after the
    # last keeps the network running through a drain; its line and windows are not read.
    run_loads = loads + [TAIL_LOAD] if ranks > 1 else loads
    argv = sst_command(bundle, load=run_loads, traffic=traffic, message_size=message_size, warmup=warmup,
                       collect=collect, drain=drain, window=f"{timing['window_ps']}ps", stats=None,
                       histogram=histogram, ranks=1, threads=threads, binary=binary)
    argv[1:1] = ["--timing-info=1"]
    argv += topo_argv
    log = fresh_path(out_dir / f"{tag}.log")  # never overwrite an earlier run's raw output
    stats = log.with_suffix(".stats.csv")
    argv[argv.index("--stats") + 1] = str(stats)
    parts = part_file = sst_part = None
    if partitioner == "topogen":
        part_file, parts = write_partition(doc, ranks, out_dir / f"{bundle.stem}.partition{ranks}.json")
    elif ranks > 1:
        sst_part = log.with_suffix(".partition.txt")
    argv, env = parallel_run(argv, ranks=ranks, partitioner=partitioner, launcher=launcher, mpirun=mpirun,
                             partition_file=part_file, sst_partition_file=sst_part)
    env = {**(env or {}), **SST_ENV}  # whole lines from every rank
    if stats.exists():  # a stray CSV of no kept log (the log name was free); never read stale data
        stats.unlink()
    monitor = None
    if progress:
        from .sst_nic import SSTMonitor

        planned_ps = len(run_loads) * (w + c) + max(len(run_loads) - 1, 0) * d
        monitor = SSTMonitor(planned_ns=planned_ps / 1000.0,
                             point="load " + ",".join(f"{float(x):g}" for x in loads))
    proc = run_process(argv, log, timeout=timeout, cwd=out_dir, monitor=monitor, env=env)
    out, status, message = judge_process(proc, ranks=ranks)  # several ranks: lines interleaved
    split = rank_columns(doc, ranks=ranks, partitioner=partitioner, parts=parts, sst_partition_file=sst_part,
                         log=proc.log_path)
    if ranks > 1 and not stats.exists():
        merge_rank_statistics(stats, ranks)
    windows_data = parse_windows(stats) if stats.is_file() and status not in FAILURE_STATUSES else None
    params = {"message_size": message_size, "warmup": warmup, "collect": collect, "drain": drain,
              "window_ps": timing["window_ps"], "accepted_tolerance": accepted_tolerance,
              "latency_growth": latency_growth, "ranks": ranks, "threads": threads,
              **({"tail_load": TAIL_LOAD} if ranks > 1 else {}),
              "stats": str(stats), "command": shlex.join(argv), **topo_params}
    rows = rows_from_output(doc, out, windows_data, status=status, message=message, raw_output=proc.log_path,
                            wall_time_s=proc.wall_time_s, loads=loads, traffic=traffic, params=params,
                            message_size=message_size, accepted_tolerance=accepted_tolerance,
                            latency_growth=latency_growth, **timing, **{**split, **fields})
    trust_rows(rows)
    failed = [r for r in rows if r["status"] in FAILURE_STATUSES]
    if raise_on_failure and failed:
        raise simulator_failed("sst", failed[0]["status"], failed[0]["message"], proc.log_path, failed[0])
    return rows


def merge_rank_statistics(stats: Path, ranks: int) -> Path | None:
    """Join the statistics files of a run on ``ranks`` ranks into ``stats``.

    ``sst.statOutputCSV`` writes one file per rank, ``<stem>_<rank>.csv`` beside the
    ``filepath`` it was given, each with the components of that rank; the records (one
    header, the files' rows in rank order) go into ``stats`` under a temporary name then
    renamed, the per-rank files stay.  None when a rank's file is missing (the run is then
    measured without windows, as a run without statistics).
    """
    from ..output import atomic_write_text

    parts = [stats.with_name(f"{stats.stem}_{r}{stats.suffix}") for r in range(ranks)]
    if not all(p.is_file() for p in parts):
        return None
    header, body = None, []
    for p in parts:
        with open(p, errors="replace") as fh:
            lines = fh.read().splitlines()
        if not lines:
            continue
        if header is None:
            header = lines[0]
        elif lines[0] != header:
            return None  # files of different columns: not one run's statistics
        body.extend(lines[1:])
    if header is None:
        return None
    atomic_write_text(stats, "\n".join([header, *body]) + "\n")
    return stats


def measure_load(win: StatWindows, index: int, *, load: float, endpoints: int, link_bw_bits: float,
                 packet_bits: float, warmup_ps: int, collect_ps: int, drain_ps: int,
                 accepted_tolerance: float = DEFAULTS["accepted_tolerance"],
                 latency_growth: float = DEFAULTS["latency_growth"], nic_packets: int = 1) -> dict:
    """Measure load number ``index`` of a run from its periodic NIC statistics.

    ``merlin.offered_load`` runs load ``g`` from ``g * (warmup + collect + drain)`` and
    measures it from ``warmup`` later for ``collect``.

    Returns
    -------
    dict
        ``accepted_load``, ``injected_load``, ``network_latency_avg``, ``packets``
        (delivered in the measurement period), ``window_latencies`` (ns, per sample window),
        ``in_flight`` (packets sent but not delivered at the end of the measurement),
        ``in_flight_bound``, ``saturation`` (list of reasons), ``lost`` (message or None),
        ``measured`` (False when the statistics do not cover the measurement period).
    """
    start = index * (warmup_ps + collect_ps + drain_ps) + warmup_ps
    end = start + collect_ps
    res: dict[str, Any] = {"accepted_load": math.nan, "injected_load": math.nan, "network_latency_avg": math.nan,
                           "packets": None, "window_latencies": [], "in_flight": None, "in_flight_bound": None,
                           "saturation": [], "lost": None, "measured": False}
    inside = [i for i, t in enumerate(win.times_ps) if start - 1000 <= t <= end + 1000]
    if len(inside) < 2:
        return res
    i0, i1 = inside[0], inside[-1]
    span_ns = (win.times_ps[i1] - win.times_ps[i0]) / 1000.0
    if span_ns <= 0.5 * collect_ps / 1000.0:
        return res
    res["measured"] = True
    capacity = endpoints * link_bw_bits * span_ns * 1e-9
    got = win.delivered[i1] - win.delivered[i0]
    res["packets"] = got
    res["accepted_load"] = got * packet_bits / capacity
    res["injected_load"] = (win.sent_bits[i1] - win.sent_bits[i0]) / capacity
    if got:
        res["network_latency_avg"] = (win.latency_sum[i1] - win.latency_sum[i0]) / got
    lat = []
    for a, b in zip(inside, inside[1:]):
        n = win.delivered[b] - win.delivered[a]
        lat.append(((win.latency_sum[b] - win.latency_sum[a]) / n, n) if n else (math.nan, 0))
    res["window_latencies"] = [x for x, _ in lat]
    # lost packets: more in flight than Little's law allows
    in_flight = win.sent_bits[i1] / packet_bits - win.delivered[i1]
    inj_rate = (win.sent_bits[i1] - win.sent_bits[i0]) / packet_bits / span_ns  # packets per ns
    # the largest latency up to this measurement's end: a later saturated load of the same
    # run must not loosen the bound of an earlier one (measured: 0.1 before a saturated 0.4
    # on a 4x4 torus with 4 hosts per switch, bound 10123 packets against 80 in flight)
    upto = win.latency_max_upto[i1] if len(win.latency_max_upto) > i1 else win.latency_max
    lat_max = upto if math.isfinite(upto) else win.latency_max
    lat_ref = max(lat_max if math.isfinite(lat_max) else 0.0,
                  4 * res["network_latency_avg"] if math.isfinite(res["network_latency_avg"]) else 0.0)
    bound = 2.0 * inj_rate * lat_ref + endpoints
    res["in_flight"], res["in_flight_bound"] = int(round(in_flight)), int(math.ceil(bound))
    if in_flight > bound:
        sent = int(round(win.sent_bits[i1] / packet_bits))
        res["lost"] = (f"{int(round(in_flight))} of {sent} packets sent were not delivered at "
                       f"{win.times_ps[i1] / 1e6:g} us, more than the {int(bound)} in flight that the "
                       f"injection rate and the largest latency ({lat_ref:.0f} ns) allow: packets were "
                       "lost or stuck (check the bundle's ports and routes)")
    backlog = endpoint_backlog(win, inside[1:], start_ps=start - warmup_ps, packet_bits=packet_bits,
                               interval_ps=round(packet_bits / link_bw_bits * 1e12 / load) if load > 0 else 0)
    res["behind_measured"] = bool(backlog)
    res["saturation"] = saturation_reasons(load, res["accepted_load"], lat, accepted_tolerance=accepted_tolerance,
                                           latency_growth=latency_growth, unit="ns",
                                           slack=packet_bits / (link_bw_bits * span_ns * 1e-9),
                                           backlog=backlog or None, nic_packets=nic_packets)
    return res


_NO_LATENCY = ("latency_avg", "latency_min", "latency_max", "latency_p50", "latency_p90", "latency_p99",
               "network_latency_avg", "network_latency_min", "network_latency_max", "accepted_load",
               "injected_load", "packets")


def bundle_cycle_ps(bundle: Mapping[str, Any] | None) -> float:
    """The cycle (ps) an SST bundle runs: its ``cycle_ps`` (every bundle since November
    2026: :func:`topogen.sim_defaults.sst_clock_ns`), else one flit time of its routers
    (``flit_size / link_bw``); NaN when neither is readable.

    ``latency_avg`` (ns) / (cycle / 1000) is the latency in cycles, comparable with BookSim's
    and the reference simulator's.
    """
    bundle = bundle or {}
    c = bundle.get("cycle_ps")
    if isinstance(c, (int, float)) and not isinstance(c, bool) and c > 0:
        return float(c)
    rp = bundle.get("router_params") or {}
    try:
        return bits(rp.get("flit_size", ""), rate=False) / bits(rp.get("link_bw", ""), rate=True) * 1e12
    except (ParameterError, ZeroDivisionError):
        return math.nan


def rows_from_output(bundle: Mapping[str, Any] | None, out: SSTOutput, windows: StatWindows | None, *,
                     status: str, message: str | None, raw_output=None, wall_time_s=None,
                     loads=None, traffic: str = "uniform", params=None,
                     message_size: str = DEFAULTS["message_size"],
                     warmup_ps: int | None = None, collect_ps: int | None = None, drain_ps: int | None = None,
                     window_ps: int | None = None,
                     accepted_tolerance: float = DEFAULTS["accepted_tolerance"],
                     latency_growth: float = DEFAULTS["latency_growth"], **fields) -> list[dict]:
    """Results rows (one per offered load) from a parsed SST run.

    ``latency_avg`` is ``offered_load``'s own average (generation to delivery, after
    warm-up) for every load; the other measurements and the saturation and loss judgements
    come from :func:`measure_load` when ``windows`` covers the load's measurement period
    (otherwise they stay empty and the message says so).  Rows of a failed run (``status``
    in ``rejected``, ``crash``, ``hang``, ``incomplete``) carry no latency or load figures.

    Parameters
    ----------
    bundle : mapping or None
        The bundle (for topology metadata, endpoint count and link bandwidth).
    out : SSTOutput
    windows : StatWindows or None
    status, message : str
        From :func:`classify`.
    raw_output : path-like, optional
    wall_time_s : float, optional
    loads : list of float, optional
        Offered loads requested (rows follow this order; stdout lines are matched by order).
    traffic : str
    params : mapping, optional
    message_size : str
    warmup_ps, collect_ps, drain_ps, window_ps : int, optional
        The run's timing (ps); needed to measure from ``windows``.
    accepted_tolerance, latency_growth : float
    **fields
        Extra/overriding columns.

    Returns
    -------
    list of dict
    """
    bundle = bundle or {}
    meta = bundle.get("metadata", {})
    loads = list(loads) if loads else [x for x, _, _ in out.loads] or [math.nan]
    endpoints = bundle.get("num_endpoints")
    try:
        link_bw = bits((bundle.get("nic_params") or {}).get("link_bw", ""), rate=True)
        packet_bits = bits(message_size)
    except ParameterError:
        link_bw = packet_bits = math.nan
    timing_known = None not in (warmup_ps, collect_ps, drain_ps)
    params = dict(params or {})
    for k, v in bundle_settings(bundle).items():
        params.setdefault(k, v)
    cycle_ps = bundle_cycle_ps(bundle)
    if math.isfinite(cycle_ps):  # SST's ns read back as cycles with it (topogen plot, crossval)
        params.setdefault("cycle_ps", round(cycle_ps, 6))
        params.setdefault("cycle_ns", round(cycle_ps / 1000.0, 9))
    rows = []
    for g, load in enumerate(loads):
        line = out.loads[g] if g < len(out.loads) else None
        row = dict(
            simulator="sst", topology=meta.get("generator"), topology_params=meta.get("params"),
            num_switches=bundle.get("num_routers"), num_hosts=endpoints, seed=meta.get("seed"),
            routing="source:" + str(meta.get("routing", "unknown")), traffic=traffic,
            offered_load=float(load), load_unit="fraction of link bandwidth", params=params,
            status=status, message=message, latency_unit="ns", sim_time_ns=out.sim_time_ns,
            wall_time_s=wall_time_s, raw_output=None if raw_output is None else os.fspath(raw_output),
        )
        if status not in FAILURE_STATUSES:
            row.update(_judge(load, line, windows, g, endpoints, link_bw, packet_bits, timing_known,
                              warmup_ps, collect_ps, drain_ps, accepted_tolerance, latency_growth,
                              nic_packets=_nic_packets(bundle, packet_bits)))
        else:
            row.update({c: math.nan for c in _NO_LATENCY if c != "packets"})
        row.update(fields)
        rows.append(make_row(**row))
    return rows


def _nic_packets(bundle, packet_bits) -> int:
    """Packets the NIC's output buffer holds (1 when the bundle does not say)."""
    try:
        return max(1, int(bits((bundle.get("nic_params") or {}).get("output_buf_size", "")) // packet_bits))
    except (ParameterError, ValueError, ZeroDivisionError):
        return 1


def _judge(load, line, windows, g, endpoints, link_bw, packet_bits, timing_known, warmup_ps, collect_ps,
           drain_ps, accepted_tolerance, latency_growth, nic_packets=1) -> dict:
    """Status, message and measurements of load ``g`` of a run that completed."""
    upd: dict[str, Any] = {"latency_avg": line[1] if line else math.nan}
    reasons, notes = [], []
    if line is None:
        return {"status": "truncated", "message": f"offered_load printed no result for load {load:g}: its "
                                                  "table ends early",
                **{c: math.nan for c in _NO_LATENCY if c != "packets"}}
    if not (math.isfinite(line[1]) and line[1] >= 0):
        return {"status": "implausible", "message": f"offered_load printed latency {line[1]:g} ns for load {load:g}",
                **{c: math.nan for c in _NO_LATENCY if c != "packets"}}
    if abs(line[0] - round(float(load), 2)) > 0.006:
        notes.append(f"offered_load's line {g + 1} is for load {line[0]:g}")
    m = None
    if windows is not None and timing_known and endpoints and math.isfinite(link_bw) and math.isfinite(packet_bits):
        m = measure_load(windows, g, load=float(load), endpoints=int(endpoints), link_bw_bits=link_bw,
                         packet_bits=packet_bits, warmup_ps=warmup_ps, collect_ps=collect_ps, drain_ps=drain_ps,
                         accepted_tolerance=accepted_tolerance, latency_growth=latency_growth,
                         nic_packets=nic_packets)
    if line[2] and not (m and m["measured"] and m.get("behind_measured")):
        reasons.append(BEHIND_REASON)  # offered_load's '*': the backlog at one instant
    if m is None or not m["measured"]:
        notes.append("no periodic NIC statistics for the measurement period: accepted load and "
                     "saturation by windows not measured")
    else:
        upd.update(accepted_load=m["accepted_load"], injected_load=m["injected_load"],
                   network_latency_avg=m["network_latency_avg"], packets=m["packets"])
        if m["lost"]:
            return {**{c: math.nan for c in _NO_LATENCY if c != "packets"}, "status": "incomplete",
                    "message": m["lost"], "packets": m["packets"]}
        reasons.extend(m["saturation"])
    upd["status"] = "saturated" if reasons else "completed"
    upd["message"] = "; ".join(reasons + notes) or None
    if reasons:  # as BookSim and the reference simulator: an unstable run has rates, no latency
        upd["latency_avg"] = upd["network_latency_avg"] = math.nan
    return upd
