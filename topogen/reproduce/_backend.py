"""The simulator behind a simulation reproduction: ``--simulator reference|booksim|sst``.

The simulation reproductions (``memsys-sim``, ``slimfly-sim``, ``dsnf-sim``, ``layout-sim``,
``skywalk-sim``) run every point through this module, so one study runs on topogen's
reference simulator or, where one is installed, on BookSim2 or SST/merlin with the same
network, traffic, loads and router model:

* :func:`check` is called before any run: an unknown simulator, a missing binary (the
  drivers' :class:`~topogen.errors.SimulatorNotFound` message), or a routing or traffic the
  simulator lacks is one :class:`~topogen.errors.ParameterError` line naming what is missing
  and the alternative;
* :class:`PointRunner` runs one load of one network (``runner(load) -> row``);
* :func:`sweep` is :func:`topogen.sim.sweep.sweep` on any simulator (zero-load latency and
  saturation by bisection, :func:`topogen.load_points.knee_sweep`).

BookSim and SST are driven exactly as ``topogen crossval`` drives them: the BookSim options
are :func:`~topogen.experiments.simulators.booksim_options` of a
:class:`~topogen.experiments.simulators.CrossvalSpec` holding the study's settings (plus
the study's router pipeline, which crossval fixes at one cycle per stage), the SST
parameters :func:`~topogen.experiments.simulators.sst_parameters` (router latencies from
the study's pipeline), both run through :mod:`topogen.drivers`.  Raw output (the exported
network, configuration and every log) is kept in ``raw_dir`` (the reproductions put it
beside ``--results``, ``<results>.raw/``).  The rows a runner returns are the drivers' rows
with ``offered_load`` in the caller's unit and ``latency_avg`` in cycles of the study's
clock (``simulator_load``/``simulator_latency`` keep the simulator's own numbers); the rows
written to the results file are the drivers' rows as they are, with ``simulator`` set --
except that a BookSim run that completes while accepting under :data:`MIN_ACCEPTED` (95 %) of
the offered load, beyond the sampling noise of its packet count, is marked ``saturated`` (BookSim's latency-only stopping rule lets a run above
saturation end after ``max_samples`` before its latency passes ``latency_thres``: measured on
the 256-switch hypercube of ``skywalk-sim`` at 12 Gbit/s/host, 0.918 of 1.0 flits accepted
and "completed").

What each simulator can run
---------------------------
* **Routing.**  BookSim's anynet routes only with its own minimal tables (``min_anynet``,
  Dijkstra on link latencies, every VC usable): the deterministic minimal routings
  (:data:`MINIMAL`) run as ``min_anynet`` and the row says so; adaptive and non-minimal
  routings (escape, Valiant, UGAL) are refused.  SST runs topogen's own tables as source
  routes (the deterministic routings of :data:`TABLES`); adaptive ones are refused.
* **Traffic.**  BookSim: ``uniform`` (its uniform includes the source itself),
  ``tornado`` (as ``tornado({N,1,1})``), and ``bitrev``, ``bitcomp``, ``shuffle`` and
  ``transpose`` when the host count is a power of two (even for transpose), where its
  definitions are topogen's; topogen's ``rotate`` runs as BookSim's ``transpose`` (the
  same permutation on an even number of address bits).  SST: ``uniform`` and ``tornado`` (as ``shift:K``).  Other
  patterns are refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path

from ..drivers.base import FAILURE_STATUSES as _FAILED  # every failure kind of a simulator row
from ..errors import ParameterError

__all__ = ["SIMULATORS", "MINIMAL", "TABLES", "MIN_ACCEPTED", "check", "check_routing", "check_traffic", "PointRunner",
           "sweep", "run_point", "finished_points", "raw_dir_for", "notes"]

SIMULATORS = ("reference", "booksim", "sst")
#: deterministic minimal routings: BookSim runs them as its own ``min_anynet``.  Not ``nca``:
#: on a fat tree ``min_anynet``'s Dijkstra tables send a router's traffic through one fixed
#: up port and saturate at about a tenth of ``nca``'s load (docs/crossval.md, "Fat tree"),
#: so running it in ``nca``'s place would not be the same network; not ``anca`` (adaptive)
MINIMAL = ("nr", "fr", "booksim-min", "dor", "hop")
#: deterministic table routings SST runs as source routes (those crossval and memsys-sim run
#: on the real SST): the minimal ones and the fat tree's ``nca`` table (``anca`` chooses
#: its up ports at run time: refused)
TABLES = MINIMAL + ("nca",)
#: traffic patterns with the same definition on BookSim (name there) / SST
_BOOKSIM_BITS = ("bitrev", "bitcomp", "shuffle", "transpose")
#: a BookSim run that completes while accepting under this fraction of the offered load (and
#: beyond its sampling noise, :meth:`PointRunner._short`) is saturated: BookSim's latency-only
#: rule lets a run above saturation end after ``max_samples`` before its latency reaches
#: ``latency_thres``
MIN_ACCEPTED = 0.95


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def check_simulator(simulator: str) -> None:
    """Raise for an unknown simulator name, or :class:`~topogen.errors.SimulatorNotFound`
    (the drivers' message) when BookSim/SST is not found."""
    if simulator not in SIMULATORS:
        raise ParameterError(f"simulator must be one of {', '.join(SIMULATORS)}, got {simulator!r}")
    if simulator == "booksim":
        from ..drivers.booksim import find_booksim

        find_booksim()
    elif simulator == "sst":
        from ..drivers.sst import find_sst

        find_sst()


def check_routing(simulator: str, routing: str, study: str, *, alternative: str = "") -> None:
    """Raise a one-line :class:`ParameterError` when ``simulator`` cannot run the routing
    named ``routing`` (a :func:`topogen.routing.route` algorithm name)."""
    if simulator == "reference":
        return
    alt = alternative or "--simulator reference"
    if simulator == "booksim" and routing not in MINIMAL:
        raise ParameterError(f"{study}: BookSim's anynet has only its own minimal table routing (min_anynet), "
                             f"not {routing!r} routing; use {alt}")
    if simulator == "sst" and routing not in TABLES:
        raise ParameterError(f"{study}: SST runs topogen's deterministic tables as source routes "
                             f"({', '.join(TABLES)}), not {routing!r} routing; use {alt}")


def check_traffic(simulator: str, traffic: str, study: str, *, hosts: int | None = None,
                  alternative: str = "") -> None:
    """Raise a one-line :class:`ParameterError` when ``simulator`` has no pattern equal to
    topogen's ``traffic`` (for ``hosts`` simulated hosts, when known)."""
    if simulator == "reference":
        return
    alt = alternative or "--simulator reference"
    if traffic in ("uniform", "tornado"):
        return
    if simulator == "booksim" and (traffic in _BOOKSIM_BITS or traffic == "rotate"):
        if hosts is None:
            return
        b = int(hosts).bit_length() - 1
        if hosts >= 2 and 1 << b == hosts and (traffic not in ("transpose", "rotate") or b % 2 == 0):
            return
        need = "an even power of two" if traffic in ("transpose", "rotate") else "a power of two"
        name = "transpose" if traffic == "rotate" else traffic
        raise ParameterError(f"{study}: BookSim's {name} traffic needs {need} hosts ({hosts} simulated; "
                             f"topogen uses the first hosts only); use {alt}")
    have = "uniform, tornado, bitrev, bitcomp, shuffle, transpose" if simulator == "booksim" else \
        "uniform, tornado"
    raise ParameterError(f"{study}: {'BookSim' if simulator == 'booksim' else 'SST merlin'} has no "
                         f"{traffic!r} traffic pattern (it has {have}); use {alt}")


def check(simulator: str, study: str, *, routings: Iterable[str] = (), traffics: Iterable[str] = (),
          hosts: int | None = None, alternative: str = "") -> None:
    """Everything :func:`check_simulator`, :func:`check_routing` and :func:`check_traffic`
    check, before any run."""
    if simulator not in SIMULATORS:
        raise ParameterError(f"simulator must be one of {', '.join(SIMULATORS)}, got {simulator!r}")
    for r in routings:
        check_routing(simulator, r, study, alternative=alternative)
    for t in traffics:
        check_traffic(simulator, t, study, hosts=hosts, alternative=alternative)
    check_simulator(simulator)


def notes(simulator: str) -> list[str]:
    """The reproduction's note on the simulator it ran on (none for the reference simulator)."""
    if simulator == "booksim":
        return ["Simulator: BookSim2 (results rows: simulator = booksim), routed by its own minimal "
                "tables (min_anynet, every VC usable); its uniform traffic includes the source. Raw "
                "output (network, config, logs) beside --results as <results>.raw/."]
    if simulator == "sst":
        return ["Simulator: SST merlin (results rows: simulator = sst), topogen's tables as source "
                "routes, one VC per hop, periodic injection, latency to the packet's head. Raw "
                "output beside --results as <results>.raw/."]
    return []


def raw_dir_for(results, tmp) -> Path:
    """Where a reproduction keeps the raw simulator output: ``<results>.raw`` beside a
    named results file, else a folder in ``tmp`` (discarded with it)."""
    if results:
        p = Path(results)
        return p.with_name(p.name + ".raw")
    return Path(tmp) / "raw"


def _to_flits(load: float, load_unit: str, cfg) -> float:
    if load_unit == "flits":
        return float(load)
    if load_unit == "packets":
        return float(load) * cfg.packet_size
    if load_unit == "gbps":
        return float(load) / cfg.link_gbps
    raise ParameterError(f"load_unit must be flits, packets or gbps, got {load_unit!r}")


class PointRunner:
    """One network, traffic and configuration on one simulator: ``runner(load)`` runs one
    offered load and returns its results row (see the module notes for the units).

    Parameters
    ----------
    simulator : {"reference", "booksim", "sst"}
    routing : Routing
        topogen's routing (the reference simulator and SST run it; BookSim routes with
        ``min_anynet`` on the same topology and link latencies).
    traffic : str
        A pattern of :mod:`topogen.sim.traffic` (checked with :func:`check_traffic`).
    load_unit : {"flits", "packets", "gbps"}, optional
        Default the shared default (:data:`topogen.sim_defaults.LOAD_UNIT`).
    seed : int
        Seed of every run.
    raw_dir : path-like
        Folder of the raw output of BookSim/SST (created when first needed).
    layout : Layout, optional
        Link delays (default ``routing.layout``; used when ``link_latency`` is None).
    self_packets : bool, optional
        Reference simulator: uniform traffic may pick the source itself (default the shared
        default, :data:`topogen.sim_defaults.SELF_PACKETS`; BookSim's and SST's uniform
        always may).
    timeout : float
        Seconds per BookSim/SST run.
    min_accepted : float
        BookSim: a run that completes while accepting under this fraction of the offered
        load counts as ``saturated`` (default :data:`MIN_ACCEPTED`; 0: BookSim's own
        latency-only rule).
    **config
        :class:`topogen.sim.SimConfig` fields of the study.
    """

    def __init__(self, simulator, routing, *, traffic: str, load_unit: str | None = None, seed: int = 1,
                 raw_dir=None, layout=None, self_packets: bool | None = None, timeout: float = 3600.0,
                 min_accepted: float = MIN_ACCEPTED, **config):
        from .. import sim_defaults
        from ..sim import SimConfig

        check_routing(simulator, routing.algorithm, "simulation")
        self.simulator = simulator
        self.routing = routing
        self.traffic = traffic
        self.load_unit = load_unit or sim_defaults.LOAD_UNIT
        self.seed = int(seed)
        self.raw_dir = Path(raw_dir) if raw_dir is not None else None
        self.layout = layout if layout is not None else getattr(routing, "layout", None)
        self.self_packets = sim_defaults.SELF_PACKETS if self_packets is None else bool(self_packets)
        self.timeout = timeout
        self.min_accepted = float(min_accepted)
        self.config = dict(config)
        self.cfg = SimConfig(**self.config)
        self.cycle_ns = float(self.cfg.cycle_ns)
        self._run = None
        self._clock_ns = None  # the cycle of the simulator's rows when not cycle_ns (SST)
        if simulator != "reference":
            check_traffic(simulator, traffic, "simulation", hosts=int(routing.topology.num_hosts))
            if self.raw_dir is None:
                raise ParameterError("BookSim/SST runs need a folder for their raw output (raw_dir)")

    # ------------------------------------------------------------------ the simulators
    def _spec(self):
        from ..experiments.simulators import CrossvalSpec

        c = self.cfg
        return CrossvalSpec(topology=self.routing.topology.name or "network", seed=self.seed,
                            packet_size=c.packet_size, num_vcs=c.num_vcs, vc_buf_size=c.vc_buf_size,
                            clock_ns=self.cycle_ns, flit_bits=c.flit_bits, link_latency=c.link_latency,
                            warmup_periods=c.warmup_periods, sample_period=c.sample_period,
                            max_samples=c.max_samples, latency_thres=float(c.latency_thres),
                            credit_delay=c.credit_delay, simulators=(self.simulator,), timeout=self.timeout)

    def _booksim(self):
        from ..experiments.simulators import _booksim_adapter

        c, topo = self.cfg, self.routing.topology
        pipeline = dict(routing_delay=c.routing_delay, vc_alloc_delay=c.vc_alloc_delay,
                        sw_alloc_delay=c.sw_alloc_delay, st_final_delay=c.st_delay,
                        internal_speedup=float(c.internal_speedup))
        return _booksim_adapter(self._spec(), self.seed, topo, self.layout, self.routing, self.raw_dir,
                                traffic=self.traffic, options=pipeline,
                                folder=f"booksim-{_slug(topo)}-{_slug_text(self.traffic)}").run

    def _sst(self):
        from ..sim_defaults import sst_router_latencies
        from ..experiments.simulators import _sst_adapter, sst_clock_ns

        topo = self.routing.topology
        # SST runs crossval's whole even-picosecond cycle (sst_clock_ns); the router
        # latencies and, in normalise, the rows are on that cycle
        self._clock_ns = sst_clock_ns(self.cycle_ns)
        lat_in, lat_out = sst_router_latencies(self.cfg.router_delay, self._clock_ns)
        ad = _sst_adapter(self._spec(), self.seed, topo, self.layout, self.routing, self.raw_dir,
                          traffic=self.traffic, router_params=dict(input_latency=lat_in, output_latency=lat_out),
                          folder=f"sst-{_slug(topo)}-{_slug_text(self.traffic)}")
        self._clock_ns = ad.clock_ns or self._clock_ns
        return ad.run

    # ------------------------------------------------------------------ one load
    def raw_row(self, load: float) -> dict:
        """The simulator's own row for ``load`` (in the caller's unit)."""
        if self.simulator == "reference":
            from ..sim import simulate

            return simulate(self.routing, traffic=self.traffic, load=load, load_unit=self.load_unit,
                            seed=self.seed, layout=self.layout, self_packets=self.self_packets, **self.config)
        if self._run is None:
            self._run = self._booksim() if self.simulator == "booksim" else self._sst()
        flits = _to_flits(load, self.load_unit, self.cfg)
        row = dict(self._run(flits))
        row["simulator"] = self.simulator
        accepted = _number(row.get("accepted_flit_rate"))
        if self.simulator == "booksim" and row.get("status") == "completed" and self._short(row, flits):
            row["status"] = "saturated"
            row["message"] = (f"accepted {accepted:.4g} of {flits:.4g} offered flits/node/cycle, under "
                              f"{self.min_accepted:.0%} and beyond the sampling noise: saturated although "
                              "the latency stayed under latency_thres")
        if row.get("status") in _FAILED:
            from ..drivers.base import simulator_failed

            raise simulator_failed(self.simulator, row["status"], row.get("message") or "",
                                   row.get("raw_output") or "", row)
        return row

    def _short(self, row: dict, flits: float) -> bool:
        """Whether a completed BookSim run accepted under ``min_accepted`` of the offered
        load by more than 4 standard errors of its packet count (a low load's few packets
        are noisy: 128 hosts at 0.01 flits of 33-flit packets accept 0.0088 and are not
        saturated)."""
        accepted = _number(row.get("accepted_flit_rate"))
        if not accepted < self.min_accepted * flits:
            return False
        c = self.cfg
        measured = _number(row.get("sim_cycles")) - c.warmup_periods * c.sample_period
        packets = flits * int(self.routing.topology.num_hosts) * measured / c.packet_size
        return packets > 0 and accepted < flits * (1 - 4 / math.sqrt(packets))

    def normalise(self, row: dict, load: float) -> dict:
        """``row`` with ``offered_load`` = ``load`` (the caller's unit) and ``latency_avg``
        in cycles of the study's clock."""
        if self.simulator == "reference":
            return row
        from ..experiments.simulators import common_units

        out = dict(row)
        units = common_units(row, self._clock_ns or self.cycle_ns)
        out["simulator_load"] = row.get("offered_load")
        out["simulator_latency"] = row.get("latency_avg")
        out["offered_load"] = float(load)
        out["latency_avg"] = units["latency_cycles"]
        out["accepted_flit_rate"] = units["accepted_flits"]
        return out

    def __call__(self, load: float) -> dict:
        return self.normalise(self.raw_row(load), load)

    def point_key(self, load: float) -> str:
        """The content key of one BookSim/SST point: everything that changes its numbers
        (simulator, the routing's content digest, traffic, load and its unit, seed,
        self-packet rule, the study's configuration, the saturation rule and
        :data:`~topogen.sim_defaults.RESULTS_REVISION`), recorded as
        ``point_key`` in the row's ``params`` so :func:`sweep` resumes from its results file."""
        import hashlib
        import json

        from .._digest import routing_digest
        from ..sim_defaults import RESULTS_REVISION

        key = {"revision": RESULTS_REVISION, "simulator": self.simulator, "network": routing_digest(self.routing),
               "traffic": self.traffic, "load": repr(float(load)), "load_unit": self.load_unit,
               "seed": self.seed, "self_packets": self.self_packets, "min_accepted": self.min_accepted,
               "config": {k: repr(v) for k, v in sorted(self.config.items())}}
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


def load_curve(run: PointRunner, loads, fields: dict, *, hops: bool = False) -> list[dict]:
    """One latency-vs-load curve: ``run`` at each of ``loads`` from low to high, stopping
    after the first point that does not complete.  Each row is ``fields`` followed by
    ``offered``, ``status``, ``accepted``, ``latency_cycles`` (``hops_avg`` with ``hops``)
    and the point's wall ``seconds``."""
    import time

    rows = []
    for load in loads:
        t0 = time.perf_counter()
        r = run(load)
        row = {**fields, "offered": load, "status": r["status"],
               "accepted": r.get("accepted_flit_rate", math.nan),
               "latency_cycles": r.get("latency_avg", math.nan)}
        if hops:
            row["hops_avg"] = r.get("hops_avg", math.nan)
        row["seconds"] = round(time.perf_counter() - t0, 1)
        rows.append(row)
        if r["status"] != "completed":
            break
    return rows


def _slug(topology) -> str:
    return _slug_text(f"{topology.name}-{topology.num_switches}")


def _slug_text(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text))[:60] or "x"


def sweep(simulator, routing, output, *, low: float, high: float, tolerance: float, seed: int,
          traffic: str, load_unit: str = "flits", self_packets: bool = False, raw_dir=None,
          points: int = 0, timeout: float = 3600.0, min_accepted: float = MIN_ACCEPTED, **config):
    """:func:`topogen.sim.sweep.sweep` on ``simulator``: zero-load latency and saturation
    load by bisection (the same :func:`~topogen.load_points.knee_sweep` on every simulator).

    On the reference simulator this is :func:`topogen.sim.sweep.sweep` itself (points
    resumed from ``output``).  On BookSim/SST each load's row is appended to ``output`` as
    soon as it is run, keyed by :meth:`PointRunner.point_key`; a point whose key is already
    in ``output`` (a sweep run again after a crash or a kill) is read back, not run again.
    The outcome's rows are normalised (:meth:`PointRunner.normalise`).

    Returns
    -------
    topogen.sim.sweep.SweepOutcome
    """
    from ..sim.sweep import SweepOutcome
    from ..sim.sweep import sweep as reference_sweep
    from ..load_points import knee_sweep

    if simulator == "reference":
        return reference_sweep(routing, output, low=low, high=high, tolerance=tolerance, seed=seed,
                               traffic=traffic, load_unit=load_unit, self_packets=self_packets,
                               points=points, **config)
    runner = PointRunner(simulator, routing, traffic=traffic, load_unit=load_unit, seed=seed,
                         raw_dir=raw_dir, self_packets=self_packets, timeout=timeout,
                         min_accepted=min_accepted, **config)
    rows: list[dict] = []
    done = finished_points(output, simulator)
    reused = 0

    def point(load: float) -> dict:
        nonlocal reused
        raw, was_done = run_point(runner, load, output, done)
        reused += was_done
        row = runner.normalise(raw, load)
        rows.append(row)
        return row

    zero, lo, hi = knee_sweep(point, low=low, high=high, tolerance=tolerance, points=points)
    rows.sort(key=lambda r: float(r["offered_load"]))
    return SweepOutcome(rows, zero, lo, hi, len(rows) - reused, reused)


def finished_points(output, simulator: str) -> dict[str, dict]:
    """The rows of ``output`` (a results file; {} when missing) that carry a
    :meth:`PointRunner.point_key` for ``simulator``, by key."""
    from ..results import read_results

    done: dict[str, dict] = {}
    if output and Path(output).exists():
        for rec in read_results(output).to_dict("records"):
            key = _params(rec).get("point_key")
            if key and rec.get("simulator") == simulator:
                done[key] = rec
    return done


def run_point(runner: PointRunner, load: float, output=None, done: dict | None = None) -> tuple[dict, bool]:
    """The raw row of one point and whether it was read back: from ``done``
    (:func:`finished_points`) when its key is there, else run and, with ``output``, its
    row (key in ``params``) appended to that results file at once, under its lock."""
    from ..results import append_rows

    key = runner.point_key(load)
    if done and key in done:
        return done[key], True
    raw = runner.raw_row(load)
    params = _params(raw)
    params["point_key"] = key
    raw = dict(raw, params=json.dumps(params, sort_keys=True))
    if output:
        append_rows(output, [raw])
    return raw, False


def _params(row) -> dict:
    """The ``params`` JSON of a results row as a dict ({} when absent or empty)."""
    text = row.get("params")
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
