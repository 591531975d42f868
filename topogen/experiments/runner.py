"""Running experiment points: one point in-process (:func:`run_point`), a list of points
locally over a process pool (:func:`run_points`).

A point is run inside the worker process -- no process per point -- by the simulator
adapters of :mod:`topogen.reproduce.crossval` (the same settings matching as
``topogen crossval``): the reference simulator is called directly, BookSim and SST through
their drivers.  Each worker keeps the networks and routings it built (keyed by their
content), so points that differ only in load, traffic or simulator share them.  The worker
writes the point's row into the store itself, so whatever kills the parent, every point a
worker finished is kept.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

from ..errors import ParameterError, TopogenError
from ..results import canonical_json
from .store import Store

__all__ = ["run_point", "run_points", "RunSummary", "check_simulators", "point_routing", "reference_config"]

_NETWORKS: dict = {}  # per process: network key -> (topology, layout, routing)
_NETWORK_CACHE_SIZE = 64
_STORES: dict = {}


def crossval_spec(point):
    """The :class:`~topogen.reproduce.crossval.CrossvalSpec` of one point."""
    from .simulators import CrossvalSpec

    c = point.content
    t = c["topology"]
    m = c["measure"]
    load = c["sweep"]["low"] if c["load"] == "sweep" else c["load"]
    # a [reference] point may run any reference pattern: run_point hands it to the simulator
    traffic = "uniform" if c.get("reference") is not None else c["traffic"]
    return CrossvalSpec(topology=point.topology_file or t["generator"], params=t.get("params", {}),
                        seed=c["sim_seed"], routing=c["routing"], traffic=traffic, loads=(load,),
                        simulators=(c["simulator"],), **m)


def point_routing(point, spec, topology, layout):
    """The routing of a point: :func:`~topogen.experiments.simulators.build_routing`'s, or
    for a ``[reference]`` point the routing built on its ``routing_base`` with its UGAL
    ``candidates``."""
    from .simulators import build_routing

    native = point.content["topology"].get("booksim")
    if native:  # BookSim's own network: topogen's copy of its routing function
        from .native import native_routing

        return native_routing(native, spec.routing, topology, spec.seed, spec.num_vcs)
    ref = point.content.get("reference")
    if ref is None:
        return build_routing(spec, topology, layout, spec.seed)[0]
    from ..routing import route

    extra = {"base": ref["routing_base"]} if "routing_base" in ref else {}
    if "switch_delay_ns" in ref:
        extra["switch_delay"] = ref["switch_delay_ns"]
    from ..routing.names import ROUTING_OPTIONS

    for key, routings in ROUTING_OPTIONS.items():  # the options of some routings only
        if key in ref and spec.routing in routings:
            extra[key] = ref[key]
    return route(topology, layout if spec.link_latency is None else None, spec.routing, seed=spec.seed,
                 candidates=ref["candidates"], **extra)


def reference_config(point, spec, routing):
    """The :class:`~topogen.sim.SimConfig` of a ``[reference]`` point: the crossval
    reference setup with its ``internal_speedup`` and, with ``port_buffer``, the smallest
    multiple of the routing's VC count that is at least ``num_vcs``, sharing
    ``port_buffer`` flits per port."""
    from dataclasses import replace

    from .simulators import _reference_config

    ref = point.content["reference"]
    cfg = replace(_reference_config(spec), internal_speedup=ref["internal_speedup"])
    if "port_buffer" in ref:
        k = max(1, int(routing.num_vcs))
        vcs = k * -(-spec.num_vcs // k)
        buf = ref["port_buffer"] // vcs
        if buf < spec.packet_size:
            raise ParameterError(f"port_buffer {ref['port_buffer']} shared by {vcs} VCs gives {buf} flits per VC, "
                                 f"less than a packet of {spec.packet_size}; raise port_buffer")
        cfg = replace(cfg, num_vcs=vcs, vc_buf_size=buf)
    if "router_delay" in ref:  # routing takes what the three one-cycle stages leave
        cfg = replace(cfg, routing_delay=ref["router_delay"] - 3, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1)
    return cfg


def _network(point, spec):
    from .simulators import build_network

    c = point.content
    key = canonical_json([c["topology"], c.get("layout"), c["routing"], c["sim_seed"], spec.link_latency,
                          spec.clock_ns, c.get("reference")])
    got = _NETWORKS.get(key)
    if got is None:
        topology, layout = build_network(spec, spec.seed)
        if c.get("layout"):
            from .layouts import build_layout

            layout = build_layout(topology, c["layout"], spec.seed)
        routing = point_routing(point, spec, topology, layout)
        if len(_NETWORKS) >= _NETWORK_CACHE_SIZE:
            _NETWORKS.pop(next(iter(_NETWORKS)))
        got = _NETWORKS[key] = (topology, layout, routing)
    return got


def check_simulators(simulators) -> None:
    """Raise :class:`~topogen.errors.SimulatorNotFound` for the first simulator in
    ``simulators`` that is not found here (found the way ``topogen run`` finds it:
    ``$TOPOGEN_BOOKSIM`` / ``$TOPOGEN_SST``, then PATH)."""
    if "booksim" in simulators:
        from ..drivers.booksim import find_booksim

        find_booksim()
    if "sst" in simulators:
        from ..drivers.sst import find_sst

        find_sst()


def _store(root) -> Store:
    s = _STORES.get(str(root))
    if s is None:
        s = _STORES[str(root)] = Store(root)
    return s


def run_point(point, store_root) -> tuple[str, str, str | None, float]:
    """Run one point and record it in the store at ``store_root``.

    Returns
    -------
    (id, outcome, status or error text, seconds)
        ``outcome`` is ``"done"`` or ``"failed"``.
    """
    from .simulators import build_adapters
    from ..sim.sweep import with_digest

    t0 = time.perf_counter()
    c0 = os.times()
    store = _store(store_root)
    row = error = rows = kind = None
    sweeping = point.content["load"] == "sweep"
    try:
        spec = crossval_spec(point)
        topology, layout, routing = _network(point, spec)
        if point.content.get("reference") is not None:
            run = _reference_run(point, spec, routing, layout)
        elif point.content["topology"].get("booksim"):
            from .native import native_adapters

            run = native_adapters(point, spec, topology, routing, store.raw_dir(point.id))
        else:
            out = store.raw_dir(point.id) if point.content["simulator"] != "reference" else store.root / "raw"
            adapters, _ = build_adapters(spec, spec.seed, topology, layout, routing, out)
            run = adapters[0].run

        def simulate(load):
            r = dict(run(load))
            if r.get("simulator") == "reference":  # keyed as `topogen simulate` keys its rows
                r = with_digest(r, routing)
            params = json.loads(r["params"]) if r.get("params") else {}
            params["experiment_point"] = point.id
            if point.content.get("layout"):  # which floor, in tables (the digest says it exactly)
                params["experiment_layout"] = point.content["layout"]["label"]
            if sweeping:
                params["experiment_sweep"] = True
            r["params"] = canonical_json(params)
            return r

        if sweeping:
            rows = _sweep_point(point, store, simulate)
        else:
            row = simulate(point.content["load"])
    except TopogenError as exc:
        error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        kind = getattr(exc, "status", None)  # a simulator's failure kind (crash, truncated ...)
    except Exception as exc:  # noqa: BLE001 - a bug must not stop the other points; recorded
        error = f"internal error {type(exc).__name__}: {' '.join(str(exc).split())}"
    seconds = time.perf_counter() - t0
    c1 = os.times()  # CPU of this process and of the simulators it ran and waited for
    cpu = sum(b - a for a, b in zip(c0[:4], c1[:4]))
    outcome = store.write(point, row, error=error, seconds=seconds, rows=rows, kind=kind, cpu_seconds=cpu)
    if error:
        status = error
    elif sweeping:
        status = "swept" if outcome == "done" else "failed"
    else:
        status = row["status"]
    return point.id, outcome, status, seconds


def _reference_run(point, spec, routing, layout):
    """``run(load) -> row`` of a ``[reference]`` point on the reference simulator (any
    pattern of :mod:`topogen.sim.traffic`, the point's :func:`reference_config`)."""
    from ..sim import simulate

    cfg = reference_config(point, spec, routing)
    traffic = point.content["traffic"]
    extra = {"self_packets": point.content["reference"]["self_packets"]} \
        if "self_packets" in point.content["reference"] else {}

    def run(load: float) -> dict:
        return simulate(routing, traffic=traffic, load=load, load_unit="flits", config=cfg, seed=spec.seed,
                        layout=layout if spec.link_latency is None else None, **extra)

    return run


def _sweep_point(point, store: Store, simulate) -> list:
    """Run a ``load = "sweep"`` point: :func:`~topogen.load_points.knee_sweep` over its
    ``[sweep]`` settings, each load kept in the store as soon as it is simulated (a rerun
    after a kill finds it), one row per load returned in load order.

    Raises
    ------
    SimulatorFailed
        A load's row is not a finished result (:func:`~topogen.drivers.base.row_problem`:
        crash, hang, incomplete, truncated, garbage, implausible ...); the loads done so far
        stay stored and the point is retried from there.
    """
    from ..drivers.base import simulator_failed
    from ..load_points import knee_sweep
    from ..drivers.base import row_problem

    cfg = point.content["sweep"]
    done = store.sweep_rows(point.id)
    rows: dict = {}

    def one(load: float) -> dict:
        text = f"{load:.6g}"
        r = done.get(text)
        if r is None:
            r = simulate(load)
            problem = row_problem(r)
            if problem is not None:
                raise simulator_failed(point.content["simulator"], problem[0], problem[1] or "",
                                       r.get("raw_output") or "", r)
            store.write_sweep_row(point.id, text, r)
        rows[text] = r
        return r

    knee_sweep(one, low=cfg["low"], high=cfg["high"], tolerance=cfg["tolerance"], points=cfg["points"])
    return sorted(rows.values(), key=lambda r: float(r["offered_load"]))


def _stop_point(signum, frame):
    """A pool worker's SIGTERM (the parent stops the running points on Ctrl-C): raised as
    KeyboardInterrupt, so a running simulator is stopped by its driver and the point stays
    unrecorded (pending, run again on resume; a sweep keeps its finished loads)."""
    raise KeyboardInterrupt


def _worker_init() -> None:
    """Pool worker set-up: die with the parent (Linux), no progress bars, Ctrl-C left to the
    parent, which stops the running points (SIGTERM: :func:`_stop_point`) and exits."""
    import signal

    os.environ["TOPOGEN_QUIET"] = "1"
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, _stop_point)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: an orphan finishes its point and exits
        pass


@dataclass
class RunSummary:
    """What a run did: points already done before it, points run, outcomes."""

    total: int
    already_done: int
    ran: int = 0
    statuses: dict = field(default_factory=dict)  # (simulator, status or "failed") -> count
    failed: list = field(default_factory=list)  # (id, error)
    seconds: float = 0.0
    point_seconds: float = 0.0

    def add(self, point, outcome, status, seconds) -> None:
        self.ran += 1
        self.point_seconds += seconds
        key = (point.content["simulator"], "failed" if outcome == "failed" else status)
        self.statuses[key] = self.statuses.get(key, 0) + 1
        if outcome == "failed":
            self.failed.append((point.id, status))

    def table(self) -> str:
        """The end-of-run summary table (text)."""
        lines = [f"{'simulator':<10} {'status':<12} {'points':>7}"]
        for (sim, st), n in sorted(self.statuses.items()):
            lines.append(f"{sim:<10} {st:<12} {n:>7}")
        rate = f", {self.seconds / self.ran:.3f} s/point wall" if self.ran else ""
        lines.append(f"{self.ran} run, {self.already_done} done before, {len(self.failed)} failed, "
                     f"{self.total - self.already_done - self.ran + len(self.failed)} left of {self.total} "
                     f"in {self.seconds:.1f} s{rate}")
        for pid, err in self.failed[:5]:
            lines.append(f"failed {pid}: {err}")
        if len(self.failed) > 5:
            lines.append(f"... {len(self.failed) - 5} more failures (topogen experiment status)")
        return "\n".join(lines)


def run_points(points, store: Store, *, jobs: int = 1, total: int | None = None, already_done: int = 0,
               progress: bool = True) -> RunSummary:
    """Run ``points`` into ``store`` with ``jobs`` worker processes (in this process when 1).

    Parameters
    ----------
    points : list of Point
        The points to run (usually ``store.pending(experiment.points)``).
    store : Store
        An opened (created) store.
    jobs : int
        Worker processes.
    total, already_done : int
        For the summary: points of the experiment and those done before.
    progress : bool
        Show progress: a bar on a terminal; otherwise (a batch or SLURM task log) a plain
        line per finished point and one at least every ``$TOPOGEN_PROGRESS_INTERVAL``
        seconds (default 60) while points run (:mod:`topogen._progress`).

    Returns
    -------
    RunSummary
    """
    from .._progress import Progress

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError(f"-j must be a positive number of worker processes, got {jobs!r}")
    points = list(points)
    summary = RunSummary(total=total if total is not None else len(points), already_done=already_done)
    t0 = time.perf_counter()
    bar = Progress(total=len(points), desc="experiment", quiet=not progress, log_steps=True)
    by_id = {p.id: p for p in points}

    def done(result, running):
        pid, outcome, status, seconds = result
        summary.add(by_id[pid], outcome, status, seconds)
        bar.update(status=f"{by_id[pid].label}: {' '.join(str(status).split())[:120]} in {seconds:.1f} s; "
                          f"{len(summary.failed)} failed, {running} running")

    try:
        if jobs == 1 or len(points) <= 1:
            for p in points:
                done(run_point(p, store.root), 1)
        else:
            _pool(points, store.root, jobs, done)
    finally:
        bar.close()
        summary.seconds = time.perf_counter() - t0
    return summary


def _pool(points, root, jobs, done) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ctx = multiprocessing.get_context("fork")
    window = 2 * jobs
    it = iter(points)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init) as pool:
        running = set()
        try:
            for p in it:
                running.add(pool.submit(run_point, p, str(root)))
                if len(running) >= window:
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    for f in finished:
                        done(f.result(), min(len(running), jobs))
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for f in finished:
                    done(f.result(), min(len(running), jobs))
        except BaseException:
            workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
            pool.shutdown(wait=False, cancel_futures=True)
            _stop_workers(workers)
            raise


#: seconds a pool worker has to stop its point after SIGTERM before it is killed (its
#: engine checks for signals between chunks of simulated cycles)
STOP_GRACE = 5.0


def _stop_workers(workers) -> None:
    """Stop a pool's ``workers`` (its processes) at once (Ctrl-C, or an error in the parent): SIGTERM, which a
    worker turns into KeyboardInterrupt (its simulator stopped, its point not recorded),
    then SIGKILL after :data:`STOP_GRACE` seconds.  Without this the pool's shutdown waits
    for every running point to finish, which for a paper-size sweep is many minutes."""
    import time

    procs = [p for p in workers if p.is_alive()]
    for p in procs:
        p.terminate()
    end = time.monotonic() + STOP_GRACE
    for p in procs:
        p.join(max(0.0, end - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)

