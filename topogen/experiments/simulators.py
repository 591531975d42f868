"""The simulators of :mod:`topogen.reproduce.crossval`: the experiment spec, the
network and routing it names, and one thin adapter per simulator mapping the spec onto
that simulator's call and reading its results row back into common units.  See
the module notes of :mod:`topogen.reproduce.crossval` for how settings are matched."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..errors import ParameterError, SimulatorNotFound
from ..sim_defaults import sst_clock_ns, sst_link_bw, sst_router_latencies

__all__ = ["CrossvalSpec", "Adapter", "load_spec", "build_network", "build_routing", "build_adapters",
           "common_units", "booksim_options", "sst_parameters", "sst_clock_ns", "output_buf_flits",
           "shared_defaults", "DEFAULT_REPEATS", "DEFAULT_MAX_REPEATS",
           "SIMULATOR_ORDER",
           "COMPARED_WITH",
           "TRAFFICS"]

#: the simulators in table order; ``reference-sst`` is the reference simulator with
#: SST merlin.offered_load's traffic (every host sends every 1/p cycles, all in step, no
#: packets to itself) and SST's delivery stamp (the head), the run SST is compared with
SIMULATOR_ORDER = ("reference", "reference-sst", "booksim", "sst")
#: which simulator's rows get a verdict against which: the like-for-like pairs (the
#: same injection process and latency definition); other ratios are printed, not judged
COMPARED_WITH = {"booksim": ("reference",), "sst": ("reference-sst",)}
#: traffic names crossval knows on all three simulators
from .names import TRAFFICS  # noqa: E402 (the one list, light for the command line)

#: runs per load and simulator of a crossval point (``--repeats``): a single run's mean
#: latency scatters by 3-8 % between seeds near half the saturation load, more than the
#: 3 % tolerance, so one run cannot tell noise from disagreement
DEFAULT_REPEATS = 3
#: most runs per load when a point stays ``inconclusive`` (``--max-repeats``)
DEFAULT_MAX_REPEATS = 8


@dataclass(frozen=True)
class CrossvalSpec:
    """One cross-validation experiment.

    Parameters
    ----------
    topology : str
        A generator name (``topogen list``) or a topology file (.json/.edges/.graphml).
    params : mapping
        Generator parameters (``{"dims": [4, 4]}``); empty for a file.
    seed : int, optional
        The one seed of the experiment: random topologies, routing ties and every
        simulator's RNG (drawn and recorded when None).
    routing : str
        topogen routing of the reference simulator and SST (``booksim-min``, ``nr``, ``fr``,
        ``dor`` ...; see :func:`topogen.routing.route`).  BookSim always routes with its
        anynet ``min``.
    traffic : str
        ``uniform`` or ``tornado`` (:data:`TRAFFICS`).
    packet_size : int
        Flits per packet.  This and every other field marked *shared* default to the
        simulator defaults shared by ``simulate``, ``run booksim`` and ``run sst``
        (:func:`shared_defaults`).
    loads : tuple of float
        Offered loads, flits/node/cycle.
    num_vcs, vc_buf_size : int
        VCs per port (*shared*) and flits per VC buffer (default ``max(8, 2 * packet_size)``).
    clock_ns : float
        The shared clock: ns per cycle (one flit per cycle on a link; *shared*).
    flit_bits : int
        Bits per flit (SST's ``flit_size`` and bandwidths; *shared*).
    link_latency : int or None
        Cycles of every router-router link; None (*shared*, the default): the topology's
        layout cable delays over ``clock_ns``, rounded up, as ``run booksim`` and
        ``simulate`` use them.  ``1`` gives every link one cycle (crossval's default
        before it shared the defaults).
    warmup_periods, sample_period, max_samples : int
        Measurement (BookSim's ``sim_type = latency`` and the reference simulator's; *shared*);
        SST warms up ``warmup_periods * sample_period`` cycles and collects
        ``(max_samples - warmup_periods) * sample_period``.
    latency_thres : float
        Mean latency (cycles) above which BookSim and the reference simulator call a run
        saturated (*shared*).
    credit_delay : int
        Cycles before a returned credit is used (BookSim ``credit_delay``; *shared*).
    internal_speedup : float or None
        Router steps per cycle on BookSim and the reference simulator (its allocation
        rounds); None: 1.  SST's hr_router has none.
    simulators : tuple of str
        Simulators to run; empty: the reference simulator and every one found.
    saturation : bool
        Bisect each simulator's saturation load (else only the loads given bracket it).
    latency_tolerance, saturation_tolerance, up_to : float
        Verdict tolerances (relative) and the fraction of the other simulator's
        saturation up to which latencies are compared.
    timeout : float
        Seconds per BookSim/SST run before it is declared hung.
    capacity_load : float or None
        If set, each simulator also runs once at this offered load (flits/node/cycle, above
        saturation) with ``latency_thres`` out of the way, and its accepted rate there, the
        saturation throughput, is compared (``capacity`` in the saturation table, same
        tolerance as saturation).  The stopping rule's saturation load is a noisy event near
        the knee (BookSim's own differs by up to 5 % between seeds); the throughput is not.
    repeats : int
        Runs per load and simulator (default :data:`DEFAULT_REPEATS`), with seeds ``seed,
        seed + 1, ...`` (the topology and routing keep ``seed``); the table shows their mean
        latency and its standard error (``latency_sem``), so a verdict at 3 % can be told
        from sampling noise.
    max_repeats : int or None
        A compared point whose miss is still within the noise (``inconclusive``) gets more
        runs on both simulators, up to this many per load (default
        :data:`DEFAULT_MAX_REPEATS`; None: ``repeats``, no extra runs); a point still
        unresolved then reads ``inconclusive``.  SST's
        traffic takes no seed: for uniform traffic run ``i`` relabels the bundle's endpoint
        ids by a permutation drawn from its seed (the first runs the bundle as exported);
        a deterministic pattern (tornado) runs once per load, its repeats being identical.
    """

    topology: str
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = 1
    routing: str = "booksim-min"
    traffic: str = "uniform"
    packet_size: int | None = None
    loads: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4)
    num_vcs: int | None = None
    vc_buf_size: int | None = None
    clock_ns: float | None = None
    flit_bits: int | None = None
    link_latency: int | None = None
    warmup_periods: int | None = None
    sample_period: int | None = None
    max_samples: int | None = None
    latency_thres: float | None = None
    credit_delay: int | None = None
    internal_speedup: float | None = None
    simulators: tuple[str, ...] = ()
    saturation: bool = False
    latency_tolerance: float = 0.03
    saturation_tolerance: float = 0.05
    up_to: float = 0.8
    timeout: float = 3600.0
    repeats: int = DEFAULT_REPEATS
    capacity_load: float | None = None
    max_repeats: int | None = DEFAULT_MAX_REPEATS

    def __post_init__(self):
        def fix(name, value):
            object.__setattr__(self, name, value)

        fix("params", dict(self.params or {}))
        for name, value in shared_defaults().items():
            if name in _DEFAULTED and getattr(self, name) is None:
                fix(name, value)
        loads = (self.loads,) if isinstance(self.loads, (int, float)) else tuple(self.loads)
        if not loads or any(isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x <= 1
                            for x in loads):
            raise ParameterError(f"loads must be offered loads in (0, 1] flits/node/cycle, got {self.loads!r}")
        fix("loads", tuple(sorted(set(float(x) for x in loads))))
        sims = (self.simulators,) if isinstance(self.simulators, str) else tuple(self.simulators)
        bad = [s for s in sims if s not in SIMULATOR_ORDER]
        if bad:
            raise ParameterError(f"simulators must be among {', '.join(SIMULATOR_ORDER)}, got {', '.join(bad)}")
        if "reference" in sims and "sst" in sims:  # SST is compared with reference-sst
            sims = sims + ("reference-sst",)
        fix("simulators", tuple(s for s in SIMULATOR_ORDER if s in sims))
        if self.traffic not in TRAFFICS:
            raise ParameterError(f"traffic must be one of {', '.join(TRAFFICS)} (patterns all three "
                                 f"simulators share), got {self.traffic!r}")
        for name in ("packet_size", "num_vcs", "flit_bits", "warmup_periods", "sample_period", "max_samples",
                     "credit_delay", "repeats"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name in ("warmup_periods",
                                                                                    "credit_delay") else 1):
                raise ParameterError(f"{name} must be a positive integer, got {v!r}")
        if self.max_repeats is None:
            fix("max_repeats", self.repeats)
        m = self.max_repeats
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ParameterError(f"max_repeats must be a positive integer (runs per load at most), got {m!r}")
        fix("max_repeats", max(m, self.repeats))
        if self.vc_buf_size is None:
            fix("vc_buf_size", max(8, 2 * self.packet_size))
        if isinstance(self.vc_buf_size, bool) or not isinstance(self.vc_buf_size, int) \
                or self.vc_buf_size < self.packet_size:
            raise ParameterError(f"vc_buf_size must be an integer >= packet_size={self.packet_size} "
                                 f"(virtual cut-through), got {self.vc_buf_size!r}")
        if self.link_latency is not None and (isinstance(self.link_latency, bool) or
                                              not isinstance(self.link_latency, int) or self.link_latency < 1):
            raise ParameterError(f"link_latency must be an integer >= 1 cycle (or None for the "
                                 f"layout's cable delays), got {self.link_latency!r}")
        if self.flit_bits % 8:
            raise ParameterError(f"flit_bits must be a multiple of 8 (SST sizes are bytes), got {self.flit_bits}")
        if self.max_samples <= self.warmup_periods:
            raise ParameterError(f"max_samples must exceed warmup_periods={self.warmup_periods}, "
                                 f"got {self.max_samples}")
        for name in ("clock_ns", "latency_thres", "latency_tolerance", "saturation_tolerance", "up_to",
                     "timeout"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (v > 0 and math.isfinite(v)):
                raise ParameterError(f"{name} must be a positive number, got {v!r}")
        s = self.internal_speedup
        if s is not None and (isinstance(s, bool) or not isinstance(s, (int, float)) or not (math.isfinite(s)
                                                                                          and s >= 1)):
            raise ParameterError(f"internal_speedup must be a number >= 1 (router steps per cycle), got {s!r}")
        c = self.capacity_load
        if c is not None and (isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c <= 1):
            raise ParameterError(f"capacity_load must be an offered load in (0, 1] flits/node/cycle, got {c!r}")
        if self.up_to > 1:
            raise ParameterError(f"up_to is a fraction of the saturation load in (0, 1], got {self.up_to}")
        if not isinstance(self.routing, str) or not self.routing:
            raise ParameterError(f"routing must be a routing name such as booksim-min or nr, got {self.routing!r}")

    def to_dict(self) -> dict:
        """The spec as plain data (TOML/JSON-able apart from None values)."""
        d = asdict(self)
        d["loads"] = list(self.loads)
        d["simulators"] = list(self.simulators)
        return d


_SPEC_FIELDS = {f.name for f in fields(CrossvalSpec)}

#: spec fields that default to the shared simulator defaults
_DEFAULTED = ("packet_size", "num_vcs", "clock_ns", "flit_bits", "warmup_periods", "sample_period",
              "max_samples", "latency_thres", "credit_delay")
def shared_defaults() -> dict:
    """The simulator defaults a spec starts from: those of :mod:`topogen.sim_defaults` (the
    one set shared by ``simulate``, ``run booksim`` and ``run sst``).

    Returns
    -------
    dict
        ``packet_size``, ``num_vcs``, ``clock_ns``, ``flit_bits``, ``warmup_periods``,
        ``sample_period``, ``max_samples``, ``latency_thres``, ``credit_delay``,
        ``stopping_thres``, ``acc_stopping_thres``, and ``link_latency`` None: the
        layout's cable delays over the clock, ``ceil(delay / clock_ns)`` cycles per link
        (:func:`topogen.sim_defaults.link_latency_cycles`), as ``run booksim`` exports and
        ``simulate`` runs a topology file.
    """
    from .. import sim_defaults as d

    return {"link_latency": None, "packet_size": d.PACKET_SIZE, "num_vcs": d.NUM_VCS, "clock_ns": d.CYCLE_NS,
            "flit_bits": d.FLIT_BITS, "warmup_periods": d.WARMUP_PERIODS,
            "sample_period": d.SAMPLE_PERIOD, "max_samples": d.MAX_SAMPLES,
            "latency_thres": d.LATENCY_THRES, "credit_delay": d.CREDIT_DELAY,
            "stopping_thres": d.STOPPING_THRES, "acc_stopping_thres": d.ACC_STOPPING_THRES}


def load_spec(path, **overrides) -> CrossvalSpec:
    """Read a :class:`CrossvalSpec` from a TOML file.

    Top-level keys are the spec's fields; generator parameters go in a ``[params]`` table,
    tolerances may also go in a ``[tolerances]`` table (``latency``, ``saturation``,
    ``up_to``).  ``overrides`` (non-None values) replace the file's.

    Raises
    ------
    FormatError
        Not TOML.
    ParameterError
        An unknown key or an invalid value.
    """
    from .._input import load_toml

    path = Path(path)
    try:
        doc = load_toml(path, what="crossval spec")
    except OSError as exc:
        raise ParameterError(f"cannot read crossval spec {path}: {exc.strerror or exc}") from None
    tol = doc.pop("tolerances", {}) or {}
    for key, name in (("latency", "latency_tolerance"), ("saturation", "saturation_tolerance"),
                      ("up_to", "up_to")):
        if key in tol:
            doc[name] = tol.pop(key)
    if tol:
        raise ParameterError(f"{path}: unknown [tolerances] key(s) {', '.join(sorted(tol))}; "
                             "known: latency, saturation, up_to")
    unknown = sorted(set(doc) - _SPEC_FIELDS)
    if unknown:
        raise ParameterError(f"{path}: unknown crossval spec key(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(_SPEC_FIELDS))}")
    doc.update({k: v for k, v in overrides.items() if v is not None})
    if "link_latency" in doc and doc["link_latency"] in ("layout", 0):
        doc["link_latency"] = None
    for key in ("loads", "simulators"):
        if isinstance(doc.get(key), list):
            doc[key] = tuple(doc[key])
    return CrossvalSpec(**doc)


# --------------------------------------------------------------------------- building
def _is_file(name: str) -> bool:
    from ..formats import EXTENSIONS

    return os.path.exists(name) or Path(name).suffix.lower() in EXTENSIONS or "/" in name


def build_network(spec: CrossvalSpec, seed: int):
    """(topology, layout) of the spec: a generated topology on its default layout, or a
    file's topology and layout (its default layout when the file has none)."""
    from .. import registry
    from ..layout import default_layout

    if _is_file(spec.topology):
        from .. import formats

        if spec.params:
            raise ParameterError("generator parameters need a generator name; a topology file "
                                 "carries its own parameters")
        if not os.path.isfile(spec.topology):
            raise ParameterError(f"topology file {spec.topology} does not exist")
        topology, layout = formats.load(spec.topology)
    else:
        gen = registry.get(spec.topology)
        kwargs = dict(spec.params)
        if gen.random and "seed" not in kwargs:
            kwargs["seed"] = seed
        topology = registry.generate(spec.topology, **kwargs)
        layout = None
    topology.require_connected("cross-validation")
    if int(topology.num_hosts) < 2:
        raise ParameterError(f"{topology.describe()} has {int(topology.num_hosts)} host(s); "
                             "traffic needs at least 2 (set hosts_per_switch)")
    if layout is None:
        layout = default_layout(topology, seed=seed)
    return topology, layout


def build_routing(spec: CrossvalSpec, topology, layout, seed: int):
    """(routing, note): topogen's routing named ``spec.routing`` (``note`` is always None).

    ``booksim-min`` is built with the same link latencies as the BookSim export (``link_latency``
    cycles per link, or the layout's delays over ``clock_ns``), so that its routes are
    BookSim's.
    """
    from .. import routing as rt

    if spec.routing == "booksim-min":
        import numpy as np

        if spec.link_latency is None:
            return rt.booksim_min(topology, layout, clock_period_ns=spec.clock_ns), None
        return rt.booksim_min(topology, latency=np.full(topology.num_links, spec.link_latency)), None
    if spec.routing not in rt.ALGORITHMS:
        raise ParameterError(f"routing must be one of {', '.join(rt.ALGORITHMS)}, got {spec.routing!r}")
    use_layout = layout if spec.link_latency is None else None
    return rt.route(topology, use_layout, spec.routing, seed=seed), None


def _traffic_for(simulator: str, traffic: str, num_hosts: int) -> str:
    """A topogen traffic pattern in each simulator's spelling (other patterns pass as they
    are: the reproductions' back end checks first which a simulator has)."""
    if traffic == "tornado":
        # d = (s + ceil(N/2) - 1) mod N on every simulator
        if simulator == "booksim":
            return f"tornado({{{num_hosts},1,1}})"
        if simulator == "sst":
            return f"shift:{(num_hosts + 1) // 2 - 1}"
    if traffic == "rotate" and simulator == "booksim":
        # topogen's rotate (by floor(b/2) bits) is BookSim's transpose when b is even
        # (experiments._backend.check_traffic refuses the odd case)
        return "transpose"
    return traffic


_CONVERGENCE = {k: shared_defaults()[k] for k in ("stopping_thres", "acc_stopping_thres")}


def _reference_config(spec: CrossvalSpec):
    from ..sim import SimConfig

    return SimConfig(num_vcs=spec.num_vcs, vc_buf_size=spec.vc_buf_size, packet_size=spec.packet_size,
                     routing_delay=1, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1,
                     link_latency=spec.link_latency, clock_ns=spec.clock_ns, flit_bits=spec.flit_bits,
                     link_gbps=spec.flit_bits / spec.clock_ns, injection_latency=1, ejection_latency=1,
                     injection_overhead=1, warmup_periods=spec.warmup_periods,
                     sample_period=spec.sample_period, max_samples=spec.max_samples,
                     latency_thres=float(spec.latency_thres), credit_delay=spec.credit_delay,
                     stopping_thres=_CONVERGENCE["stopping_thres"],
                     acc_stopping_thres=_CONVERGENCE["acc_stopping_thres"],
                     internal_speedup=float(spec.internal_speedup or 1.0))


def booksim_options(spec: CrossvalSpec, traffic: str, seed: int) -> dict:
    """The BookSim options of the spec (on top of the ``vct33`` setup)."""
    return {"num_vcs": spec.num_vcs, "vc_buf_size": spec.vc_buf_size, "packet_size": spec.packet_size,
            "hold_switch_for_packet": 1, "wait_for_tail_credit": 0,
            "routing_delay": 1, "vc_alloc_delay": 1, "sw_alloc_delay": 1, "st_final_delay": 1,
            "traffic": traffic, "injection_rate_uses_flits": 1, "injection_rate": spec.loads[0],
            "warmup_periods": spec.warmup_periods, "sample_period": spec.sample_period,
            "max_samples": spec.max_samples, "latency_thres": float(spec.latency_thres),
            "stopping_thres": float(_CONVERGENCE["stopping_thres"]),
            "acc_stopping_thres": float(_CONVERGENCE["acc_stopping_thres"]),
            "credit_delay": spec.credit_delay, "internal_speedup": float(spec.internal_speedup or 1.0),
            "seed": seed % (2 ** 31)}


def output_buf_flits(spec: CrossvalSpec) -> int:
    """Flits of each output VC buffer of SST's hr_router and of reference-sst's
    output-buffered router (one value for both): the spec's ``vc_buf_size``."""
    return int(spec.vc_buf_size)


def _ps(ns: float) -> str:
    return f"{max(1, round(ns * 1000))}ps"


def sst_parameters(spec: CrossvalSpec) -> dict:
    """SST router/NIC parameters and run times of the spec (see the module notes), on
    the cycle SST runs for the spec's clock (:func:`topogen.sim_defaults.sst_clock_ns`,
    the one every SST bundle uses; ``clock_ns`` in the result)."""
    flit_bytes = spec.flit_bits // 8
    c = sst_clock_ns(spec.clock_ns)
    bw = sst_link_bw(spec.clock_ns, spec.flit_bits)
    buf = f"{spec.vc_buf_size * flit_bytes}B"
    obuf = f"{output_buf_flits(spec) * flit_bytes}B"
    # the pipeline of the reference simulator's and BookSim's routers
    lat_in, lat_out = sst_router_latencies(_reference_config(spec).router_delay, c)
    return {
        "router_params": {"link_bw": bw, "xbar_bw": bw, "flit_size": f"{flit_bytes}B",
                          "input_latency": lat_in, "output_latency": lat_out,
                          "input_buf_size": buf, "output_buf_size": obuf},
        "nic_params": {"link_bw": bw, "input_buf_size": buf, "output_buf_size": buf},
        "host_latency_ns": c,
        "link_latency_ns": (spec.link_latency or 1) * c,
        "message_size": f"{spec.packet_size * flit_bytes}B",
        "warmup": _ps(spec.warmup_periods * spec.sample_period * c),
        "collect": _ps((spec.max_samples - spec.warmup_periods) * spec.sample_period * c),
        "drain": _ps(2 * (spec.max_samples - spec.warmup_periods) * spec.sample_period * c),
        "clock_ns": c,
    }


# --------------------------------------------------------------------------- adapters
def fresh_dir(path) -> Path:
    """Create and return ``path``, or ``path.1``, ``path.2`` ... if taken (atomically:
    two runs adding to one output folder never share a sub-folder)."""
    path = Path(path).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    k = 0
    while True:
        candidate = path if k == 0 else path.with_name(f"{path.name}.{k}")
        k += 1
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate


@dataclass
class Adapter:
    """How one simulator runs the spec: ``run(load)`` returns one results row of the
    shared schema; ``routing`` says which routes it used."""

    simulator: str
    run: Callable[..., dict]  # run(load, seed, capacity=False)
    routing: str
    note: str | None = None
    seeded: bool = True  # run(load, seed) varies with the seed (repeats make sense)
    router: str | None = None  # the router model it simulates
    clock_ns: float | None = None  # ns per cycle of its rows when not the spec's (SST: sst_clock_ns)


def _reference_adapter(spec, seed, topology, layout, routing, out_dir, *, like: str = "booksim") -> Adapter:
    """The reference simulator as BookSim runs (``like="booksim"``: Bernoulli injection,
    latency to the tail, uniform traffic includes the source) or as SST's
    merlin.offered_load does (``"sst"``: periodic injection in step, latency to the head,
    no packets to the source itself)."""
    from dataclasses import replace as _replace

    from ..sim import simulate

    cfg = _reference_config(spec)
    if like == "sst":
        # SST's hr_router: output buffers of output_buf_size flits, hop h on VC h
        cfg = _replace(cfg, injection="periodic", latency_at="head", router="output-buffered",
                       output_buf_size=output_buf_flits(spec))
    traffic = _traffic_for("reference", spec.traffic, int(topology.num_hosts))
    cap_cfg = _replace(cfg, latency_thres=1e12, max_queue_packets=1 << 40)

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        return simulate(routing, traffic=traffic, load=load, load_unit="flits",
                        config=cap_cfg if capacity else cfg, seed=run_seed,
                        layout=layout if spec.link_latency is None else None,
                        self_packets=like != "sst")

    if like == "sst":
        from .reference_sst import run_like_sst

        times = sst_parameters(spec)

        def run_sst_like(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
            # SST's timeline, measurement and saturation rule (a capacity run is the same run)
            return run_like_sst(routing, cfg, traffic=traffic, load=load, seed=run_seed, sst_times=times,
                                clock_ns=times["clock_ns"], layout=layout if spec.link_latency is None else None)

        return Adapter("reference-sst", run_sst_like, routing.algorithm,
                       note="reference simulator with SST's traffic and router: periodic injection, "
                            "all hosts in step, no self packets; latency to the packet's head; "
                            f"output-buffered router (SST hr_router, {output_buf_flits(spec)}-flit "
                            "output buffers, hop h on VC h); one run of SST's warm-up + collect "
                            "time, measured and judged saturated by the SST driver's rule "
                            "(generators behind at half the window ends, accepted < 95 % of offered, network "
                            "latency growing between sample windows)", router="output-buffered")
    return Adapter("reference", run, routing.algorithm, router="input-queued")


def _booksim_adapter(spec, seed, topology, layout, routing, out_dir, binary=None, *,
                     traffic: str | None = None, options: Mapping | None = None,
                     folder: str = "booksim") -> Adapter:
    """BookSim on the spec (``traffic``: a topogen pattern instead of the spec's;
    ``options``: BookSim options on top of :func:`booksim_options`; ``folder``: the raw
    output's folder name under ``out_dir``)."""
    import numpy as np

    from ..drivers.base import fresh_path
    from ..drivers.booksim import find_booksim, run_booksim
    from ..export.booksim import export_booksim

    exe = find_booksim(binary)
    folder = fresh_dir(Path(out_dir) / folder)
    latency = None if spec.link_latency is None else np.full(topology.num_links, spec.link_latency)
    opts = booksim_options(spec, _traffic_for("booksim", traffic or spec.traffic, int(topology.num_hosts)), seed)
    opts.update(options or {})
    exp = export_booksim(folder, topology, layout if spec.link_latency is None else None,
                         stem="net", setup="vct33", clock_period_ns=spec.clock_ns, latency=latency,
                         options=opts)

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        log = fresh_path(folder / (f"capacity{load:g}.log" if capacity else f"load{load:g}.log"), claim=True)
        over = {"injection_rate": float(load), "seed": run_seed % (2 ** 31)}
        if capacity:
            over["latency_thres"] = 1e12
        return run_booksim(exp.config_file, overrides=over, log_path=log,
                           timeout=spec.timeout, binary=exe, raise_on_failure=False)

    return Adapter("booksim", run, "min_anynet", router="input-queued (BookSim iq)")


def _sst_adapter(spec, seed, topology, layout, routing, out_dir, binary=None, *,
                 traffic: str | None = None, router_params: Mapping | None = None,
                 folder: str = "sst") -> Adapter:
    """SST on the spec (``traffic``: a topogen pattern instead of the spec's;
    ``router_params``: hr_router parameters on top of :func:`sst_parameters`'; ``folder``:
    the raw output's folder name under ``out_dir``).

    SST's traffic takes no seed (``merlin.targetgen.uniform`` seeds each endpoint with its
    id), so for random traffic (:data:`topogen.export.sst_relabel.RANDOM_TRAFFIC`) a run
    with ``run_seed`` other than ``seed`` runs the bundle with its endpoint ids relabelled
    by the permutation of ``run_seed`` (:func:`_stream_bundles`); ``run_seed == seed`` runs
    the bundle as exported.  Deterministic patterns have one stream: the adapter is not
    ``seeded`` and crossval runs it once per load."""
    from ..drivers.sst import find_sst, run_sst
    from ..export.sst import write_bundle
    from ..export.sst_relabel import RANDOM_TRAFFIC

    exe = find_sst(binary)
    folder = fresh_dir(Path(out_dir) / folder)
    p = sst_parameters(spec)
    p["router_params"].update(router_params or {})
    bundle = write_bundle(folder / "net.json", topology, layout if spec.link_latency is None else None,
                          routing, clock_ns=spec.clock_ns, link_latency_ns=p["link_latency_ns"],
                          host_latency_ns=p["host_latency_ns"],
                          router_params=p["router_params"], nic_params=p["nic_params"])
    traffic = _traffic_for("sst", traffic or spec.traffic, int(topology.num_hosts))
    random_traffic = traffic in RANDOM_TRAFFIC
    stream = _stream_bundles(bundle, seed) if random_traffic else (lambda run_seed: (bundle, None))

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        path, relabel = stream(run_seed)
        rows = run_sst(path, load=float(load), traffic=traffic, message_size=p["message_size"],
                       warmup=p["warmup"], collect=p["collect"], drain=p["drain"], out_dir=folder,
                       timeout=spec.timeout, binary=exe, raise_on_failure=False, generator="offered_load")
        return _with_relabel(rows[0], relabel)

    streams = ("SST's random traffic takes no seed: run r of a load runs the bundle with its endpoint "
               "ids relabelled by a permutation drawn from seed r (params.endpoint_relabel_seed; the "
               "spec's own seed runs the bundle as exported), which gives every NIC another "
               "destination stream on the same network and routes" if random_traffic else
               f"SST's {traffic} traffic is deterministic (no seed, and relabelling the endpoints "
               "would change the pattern): repeats of it are identical, so SST runs once per load")
    return Adapter("sst", run, "source:" + routing.algorithm,
                   note="SST anytopo uses one VC per hop (vcs_per_vn = longest route + 1), not num_vcs; "
                        f"SST runs a {p['clock_ns'] * 1000:.0f} ps cycle (whole even ps; its latencies "
                        f"are converted to cycles with it); {streams}",
                   seeded=random_traffic, router="output-buffered (merlin hr_router)", clock_ns=p["clock_ns"])


def _stream_bundles(bundle: Path, seed: int) -> Callable[[int], tuple[Path, int | None]]:
    """``stream(run_seed) -> (bundle path, relabelling seed or None)``: the exported bundle
    for ``run_seed == seed``, else that bundle with its endpoints relabelled by the
    permutation of ``run_seed``, written once per seed beside it
    (``net.relabel<seed>.json``, a fresh name: nothing is overwritten)."""
    from ..drivers.base import fresh_path
    from ..export.sst_relabel import write_relabelled_bundle

    made: dict[int, Path] = {}

    def stream(run_seed: int) -> tuple[Path, int | None]:
        if run_seed is None or int(run_seed) == seed:
            return bundle, None
        run_seed = int(run_seed)
        if run_seed not in made:
            path = fresh_path(bundle.with_name(f"{bundle.stem}.relabel{run_seed}{bundle.suffix}"), claim=True)
            made[run_seed] = write_relabelled_bundle(bundle, path, run_seed)
        return made[run_seed], run_seed

    return stream


def _with_relabel(row: dict, relabel: int | None) -> dict:
    """``row`` with ``endpoint_relabel_seed`` in its ``params`` (unchanged for the exported
    bundle), so that resume keys and readers tell the streams apart."""
    if relabel is None:
        return row
    import json

    from ..results import make_row

    params = row.get("params")
    p = json.loads(params) if isinstance(params, str) and params else dict(params or {})
    p["endpoint_relabel_seed"] = int(relabel)
    return dict(row, params=make_row(params=p)["params"])


_ADAPTERS = {"reference": _reference_adapter, "booksim": _booksim_adapter, "sst": _sst_adapter}


def build_adapters(spec, seed, topology, layout, routing, out_dir, *, binaries=None):
    """(adapters, skipped): one :class:`Adapter` per simulator to run and ``{simulator:
    reason}`` of those not found.  A simulator named in ``spec.simulators`` that is not
    found raises :class:`~topogen.errors.SimulatorNotFound`."""
    binaries = dict(binaries or {})
    wanted = spec.simulators or SIMULATOR_ORDER
    adapters, skipped = [], {}
    for sim in wanted:
        try:
            if sim in ("reference", "reference-sst"):
                like = "sst" if sim == "reference-sst" else "booksim"
                adapters.append(_reference_adapter(spec, seed, topology, layout, routing, out_dir, like=like))
            else:
                adapters.append(_ADAPTERS[sim](spec, seed, topology, layout, routing, out_dir,
                                               binary=binaries.get(sim)))
        except SimulatorNotFound as exc:
            if spec.simulators:
                raise
            skipped[sim] = str(exc)
    if "sst" in skipped:  # reference-sst has nothing to be compared with
        adapters = [a for a in adapters if a.simulator != "reference-sst"]
    return adapters, skipped


def common_units(row: Mapping[str, Any], clock_ns: float) -> dict:
    """Latency (cycles of the shared clock and ns) and accepted load (flits/node/cycle) of
    a results row of any simulator."""
    def num(key):
        v = row.get(key)
        try:
            return float(v)
        except (TypeError, ValueError):
            return math.nan

    lat = num("latency_avg")
    unit = row.get("latency_unit")
    if unit == "ns":
        cycles, ns = lat / clock_ns, lat
    else:
        cycles, ns = lat, lat * clock_ns
    acc = num("accepted_flit_rate")
    if math.isnan(acc) and row.get("load_unit") == "fraction of link bandwidth":
        acc = num("accepted_load")
    return {"latency_cycles": cycles, "latency_ns": ns, "accepted_flits": acc}
