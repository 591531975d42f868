"""Cross-validation of the simulators: one experiment spec run on every simulator found.

:func:`crossval` takes one :class:`CrossvalSpec` (a topology -- generator name and
parameters, or a topology file --, a routing, a traffic pattern, a packet size and a list
of offered loads) and runs it on

* topogen's reference simulator (:func:`topogen.sim.simulate`), always;
* BookSim2 (anynet export + :func:`topogen.drivers.booksim.run_booksim`) when its binary
  is found (``$TOPOGEN_BOOKSIM`` or ``booksim`` on PATH);
* SST/merlin (bundle + :func:`topogen.drivers.sst.run_sst`) when ``sst`` is found
  (``$TOPOGEN_SST`` or PATH).

Each simulator has a thin *adapter* (``_reference_adapter``, ``_booksim_adapter``,
``_sst_adapter``): one function that maps the spec onto that simulator's call and
returns a results row of the shared schema (:mod:`topogen.results`); :func:`common_units`
reads any row back into common units: latency in cycles of the shared clock
(``spec.clock_ns``) and in ns, offered and accepted load in flits/node/cycle (one flit
per cycle on a link is the unit of all three).

The outcome is one tidy table (one line per load and simulator, with the ratio of each
latency to BookSim's and to SST's at that load), a saturation table (the bracket of
each simulator's saturation load, bisected when ``spec.saturation`` is set) and a
verdict per point against stated tolerances: latency within ``latency_tolerance``
(default 3 %) at every load up to ``up_to`` (80 %) of the other simulator's saturation,
saturation within ``saturation_tolerance`` (5 %), the acceptance criteria of issue 12.

How the settings are matched (as ``tests/sim/test_booksim_agreement.py`` does):

* BookSim's anynet routing is always its own ``min``; the reference simulator and SST use
  topogen's routing named by ``spec.routing`` (``booksim-min``, BookSim's exact route
  choice, once topogen has it; until then ``nr`` with a note in the results);
* uniform traffic includes the source itself on every simulator (BookSim's and SST's
  definition: ``self_packets=True`` in the reference simulator); ``tornado`` is BookSim's
  ``tornado({N,1,1})``, the reference simulator's ``tornado`` and SST's ``shift:ceil(N/2)-1``;
* loads in flits/node/cycle (BookSim ``injection_rate_uses_flits = 1``; SST: fraction of
  the endpoint link bandwidth, which carries one flit per cycle);
* one-cycle pipeline stages (routing, VC allocation, switch allocation, switch
  traversal), one-cycle host channels, links of ``link_latency`` cycles (or the layout's
  cable delays over ``clock_ns``), ``num_vcs`` VCs of ``vc_buf_size`` flits, virtual
  cut-through for multi-flit packets (``hold_switch_for_packet = 1``);
* SST: ``link_bw`` = one flit (``flit_bits``) per ``clock_ns``, ``input_latency`` the
  routing + allocation stages and ``output_latency`` the switch traversal, buffers of
  ``vc_buf_size`` flits; merlin's anytopo uses one VC per hop, so SST's VC count follows
  the longest route, not ``num_vcs``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .._rng import resolve_seed
from ..errors import ParameterError, SimulatorNotFound, TopogenError

__all__ = ["CrossvalSpec", "CrossvalResult", "Adapter", "crossval", "load_spec", "build_adapters",
           "common_units", "verdicts", "saturation_bracket", "SIMULATOR_ORDER", "TRAFFICS"]

#: the simulators in table order
SIMULATOR_ORDER = ("reference", "booksim", "sst")
#: traffic names crossval knows on all three simulators
TRAFFICS = ("uniform", "tornado")
_FALLBACK_ROUTING = "nr"


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
        Flits per packet.
    loads : tuple of float
        Offered loads, flits/node/cycle.
    num_vcs, vc_buf_size : int
        VCs per port and flits per VC buffer (default ``max(8, 2 * packet_size)``).
    clock_ns : float
        The shared clock: ns per cycle (one flit per cycle on a link).
    flit_bits : int
        Bits per flit (SST's ``flit_size`` and bandwidths).
    link_latency : int or None
        Cycles of every router-router link; None: the topology's layout cable delays
        over ``clock_ns``, rounded up.
    warmup_periods, sample_period, max_samples : int
        Measurement (BookSim's ``sim_type = latency`` and the reference simulator's);
        SST warms up ``warmup_periods * sample_period`` cycles and collects
        ``(max_samples - warmup_periods) * sample_period``.
    latency_thres : float
        Mean latency (cycles) above which BookSim and the reference simulator call a run
        saturated.
    simulators : tuple of str
        Simulators to run; empty: the reference simulator and every one found.
    saturation : bool
        Bisect each simulator's saturation load (else only the loads given bracket it).
    latency_tolerance, saturation_tolerance, up_to : float
        Verdict tolerances (relative) and the fraction of the other simulator's
        saturation up to which latencies are compared.
    timeout : float
        Seconds per BookSim/SST run before it is declared hung.
    """

    topology: str
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = 1
    routing: str = "booksim-min"
    traffic: str = "uniform"
    packet_size: int = 1
    loads: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4)
    num_vcs: int = 4
    vc_buf_size: int | None = None
    clock_ns: float = 1.0
    flit_bits: int = 256
    link_latency: int | None = 1
    warmup_periods: int = 3
    sample_period: int = 1000
    max_samples: int = 10
    latency_thres: float = 1000.0
    simulators: tuple[str, ...] = ()
    saturation: bool = False
    latency_tolerance: float = 0.03
    saturation_tolerance: float = 0.05
    up_to: float = 0.8
    timeout: float = 3600.0

    def __post_init__(self):
        def fix(name, value):
            object.__setattr__(self, name, value)

        fix("params", dict(self.params or {}))
        loads = (self.loads,) if isinstance(self.loads, (int, float)) else tuple(self.loads)
        if not loads or any(isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x <= 1
                            for x in loads):
            raise ParameterError(f"loads must be offered loads in (0, 1] flits/node/cycle, got {self.loads!r}")
        fix("loads", tuple(sorted(set(float(x) for x in loads))))
        sims = (self.simulators,) if isinstance(self.simulators, str) else tuple(self.simulators)
        bad = [s for s in sims if s not in SIMULATOR_ORDER]
        if bad:
            raise ParameterError(f"simulators must be among {', '.join(SIMULATOR_ORDER)}, got {', '.join(bad)}")
        fix("simulators", tuple(s for s in SIMULATOR_ORDER if s in sims))
        if self.traffic not in TRAFFICS:
            raise ParameterError(f"traffic must be one of {', '.join(TRAFFICS)} (patterns all three "
                                 f"simulators share), got {self.traffic!r}")
        for name in ("packet_size", "num_vcs", "flit_bits", "warmup_periods", "sample_period", "max_samples"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "warmup_periods" else 1):
                raise ParameterError(f"{name} must be a positive integer, got {v!r}")
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
    import tomllib

    from ..errors import FormatError

    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(f"not a TOML crossval spec: {exc}", path=path) from None
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
    from ..export.formats import EXTENSIONS

    return os.path.exists(name) or Path(name).suffix.lower() in EXTENSIONS or "/" in name


def build_network(spec: CrossvalSpec, seed: int):
    """(topology, layout) of the spec: a generated topology on its default layout, or a
    file's topology and layout (its default layout when the file has none)."""
    from .. import registry
    from ..layout import default_layout

    if _is_file(spec.topology):
        from ..export import formats

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
    """(routing, note): topogen's routing named ``spec.routing``; ``booksim-min`` falls back
    to ``nr`` (with the reason in ``note``) while topogen does not have it."""
    from .. import routing as rt

    name, note = spec.routing, None
    algorithms = getattr(rt, "ALGORITHMS", ())
    if name not in algorithms:
        if name == "booksim-min":
            note = (f"routing booksim-min (BookSim anynet's exact route choice) is not in this "
                    f"topogen yet (topogen.routing.ALGORITHMS: {', '.join(algorithms)}); the reference "
                    f"simulator and SST use {_FALLBACK_ROUTING} instead, so their routes may differ "
                    f"from BookSim's min where shortest paths tie")
            name = _FALLBACK_ROUTING
        else:
            raise ParameterError(f"routing must be booksim-min or one of {', '.join(algorithms)}, "
                                 f"got {spec.routing!r}")
    use_layout = layout if spec.link_latency is None else None
    return rt.route(topology, use_layout, name, seed=seed), note


def _traffic_for(simulator: str, traffic: str, num_hosts: int) -> str:
    """The spec's traffic in each simulator's spelling."""
    if traffic == "uniform":
        return "uniform"
    # tornado: d = (s + ceil(N/2) - 1) mod N on every simulator
    if simulator == "booksim":
        return f"tornado({{{num_hosts},1,1}})"
    if simulator == "sst":
        return f"shift:{(num_hosts + 1) // 2 - 1}"
    return "tornado"


def _reference_config(spec: CrossvalSpec):
    from ..sim import SimConfig

    return SimConfig(num_vcs=spec.num_vcs, vc_buf_size=spec.vc_buf_size, packet_size=spec.packet_size,
                     routing_delay=1, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1,
                     link_latency=spec.link_latency, clock_ns=spec.clock_ns, flit_bits=spec.flit_bits,
                     link_gbps=spec.flit_bits / spec.clock_ns, injection_latency=1, ejection_latency=1,
                     injection_overhead=1, warmup_periods=spec.warmup_periods,
                     sample_period=spec.sample_period, max_samples=spec.max_samples,
                     latency_thres=float(spec.latency_thres))


def booksim_options(spec: CrossvalSpec, traffic: str, seed: int) -> dict:
    """The BookSim options of the spec (on top of the ``vct33`` setup)."""
    return {"num_vcs": spec.num_vcs, "vc_buf_size": spec.vc_buf_size, "packet_size": spec.packet_size,
            "hold_switch_for_packet": 1, "wait_for_tail_credit": 0,
            "routing_delay": 1, "vc_alloc_delay": 1, "sw_alloc_delay": 1, "st_final_delay": 1,
            "traffic": traffic, "injection_rate_uses_flits": 1, "injection_rate": spec.loads[0],
            "warmup_periods": spec.warmup_periods, "sample_period": spec.sample_period,
            "max_samples": spec.max_samples, "latency_thres": float(spec.latency_thres),
            "seed": seed % (2 ** 31)}


def sst_parameters(spec: CrossvalSpec) -> dict:
    """SST router/NIC parameters and run times of the spec (see the module notes)."""
    flit_bytes = spec.flit_bits // 8
    bw = f"{flit_bytes / spec.clock_ns:g}GB/s"
    buf = f"{spec.vc_buf_size * flit_bytes}B"
    c = spec.clock_ns
    return {
        "router_params": {"link_bw": bw, "xbar_bw": bw, "flit_size": f"{flit_bytes}B",
                          "input_latency": f"{3 * c:g}ns", "output_latency": f"{c:g}ns",
                          "input_buf_size": buf, "output_buf_size": buf},
        "nic_params": {"link_bw": bw, "input_buf_size": buf, "output_buf_size": buf},
        "host_latency_ns": c,
        "link_latency_ns": (spec.link_latency or 1) * c,
        "message_size": f"{spec.packet_size * flit_bytes}B",
        "warmup": f"{spec.warmup_periods * spec.sample_period * c:g}ns",
        "collect": f"{(spec.max_samples - spec.warmup_periods) * spec.sample_period * c:g}ns",
        "drain": f"{2 * (spec.max_samples - spec.warmup_periods) * spec.sample_period * c:g}ns",
    }


# --------------------------------------------------------------------------- adapters
@dataclass
class Adapter:
    """How one simulator runs the spec: ``run(load)`` returns one results row of the
    shared schema; ``routing`` says which routes it used."""

    simulator: str
    run: Callable[[float], dict]
    routing: str
    note: str | None = None


def _reference_adapter(spec, seed, topology, layout, routing, out_dir) -> Adapter:
    from ..sim import simulate

    cfg = _reference_config(spec)
    traffic = _traffic_for("reference", spec.traffic, int(topology.num_hosts))

    def run(load: float) -> dict:
        return simulate(routing, traffic=traffic, load=load, load_unit="flits", config=cfg, seed=seed,
                        layout=layout if spec.link_latency is None else None, self_packets=True)

    return Adapter("reference", run, routing.algorithm)


def _booksim_adapter(spec, seed, topology, layout, routing, out_dir, binary=None) -> Adapter:
    import numpy as np

    from ..drivers.base import fresh_path
    from ..drivers.booksim import find_booksim, run_booksim
    from ..export.booksim import export_booksim

    exe = find_booksim(binary)
    folder = fresh_path(Path(out_dir) / "booksim")
    latency = None if spec.link_latency is None else np.full(topology.num_links, spec.link_latency)
    exp = export_booksim(folder, topology, layout if spec.link_latency is None else None,
                         stem="net", setup="vct33", clock_period_ns=spec.clock_ns, latency=latency,
                         options=booksim_options(spec, _traffic_for("booksim", spec.traffic,
                                                                    int(topology.num_hosts)), seed))

    def run(load: float) -> dict:
        log = fresh_path(folder / f"load{load:g}.log")
        return run_booksim(exp.config_file, overrides={"injection_rate": float(load)}, log_path=log,
                           timeout=spec.timeout, binary=exe, raise_on_failure=False)

    return Adapter("booksim", run, "min_anynet")


def _sst_adapter(spec, seed, topology, layout, routing, out_dir, binary=None) -> Adapter:
    from ..drivers.base import fresh_path
    from ..drivers.sst import find_sst, run_sst
    from ..export.sst import write_bundle

    exe = find_sst(binary)
    folder = fresh_path(Path(out_dir) / "sst")
    folder.mkdir(parents=True)
    p = sst_parameters(spec)
    bundle = write_bundle(folder / "net.json", topology, layout if spec.link_latency is None else None,
                          routing, link_latency_ns=p["link_latency_ns"], host_latency_ns=p["host_latency_ns"],
                          router_params=p["router_params"], nic_params=p["nic_params"])
    traffic = _traffic_for("sst", spec.traffic, int(topology.num_hosts))

    def run(load: float) -> dict:
        rows = run_sst(bundle, load=float(load), traffic=traffic, message_size=p["message_size"],
                       warmup=p["warmup"], collect=p["collect"], drain=p["drain"], out_dir=folder,
                       timeout=spec.timeout, binary=exe, raise_on_failure=False)
        return rows[0]

    return Adapter("sst", run, "source:" + routing.algorithm,
                   note="SST anytopo uses one VC per hop (vcs_per_vn = longest route + 1), not num_vcs")


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
            if sim == "reference":
                adapters.append(_reference_adapter(spec, seed, topology, layout, routing, out_dir))
            else:
                adapters.append(_ADAPTERS[sim](spec, seed, topology, layout, routing, out_dir,
                                               binary=binaries.get(sim)))
        except SimulatorNotFound as exc:
            if spec.simulators:
                raise
            skipped[sim] = str(exc)
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


# --------------------------------------------------------------------------- saturation
def saturation_bracket(points: Mapping[float, str]) -> tuple[float, float]:
    """(highest sustained load, lowest load not sustained) from ``{load: status}``.

    The bracket's lower end is the highest ``completed`` load below every other outcome
    (``nan`` if the lowest load already failed); the upper end is the lowest load that
    did not complete (``inf`` if every load completed).
    """
    bad = [x for x, st in points.items() if st != "completed"]
    hi = min(bad) if bad else math.inf
    good = [x for x, st in points.items() if st == "completed" and x < hi]
    return (max(good) if good else math.nan), hi


def _bisect(run_point, points: dict, rel_tol: float, ceiling: float = 1.0, max_steps: int = 12) -> None:
    """Narrow a simulator's saturation bracket by bisection until it is within ``rel_tol``
    of its lower end, adding the loads it runs to ``points``."""
    lo, hi = saturation_bracket(points)
    if math.isnan(lo):
        return
    if math.isinf(hi):
        if ceiling in points or ceiling <= lo:
            return
        run_point(ceiling)
        lo, hi = saturation_bracket(points)
        if math.isinf(hi):
            return
    for _ in range(max_steps):
        if hi - lo <= rel_tol * lo:
            return
        mid = float(f"{(lo + hi) / 2:.6g}")
        if not lo < mid < hi:
            return
        run_point(mid)
        lo, hi = saturation_bracket(points)


def _saturation_value(lo: float, hi: float) -> float:
    """The saturation estimate of a bracket: its midpoint (``nan`` when unbounded)."""
    if math.isnan(lo) or math.isinf(hi):
        return math.nan
    return (lo + hi) / 2


# --------------------------------------------------------------------------- verdicts
def verdicts(table, saturation, spec: CrossvalSpec):
    """Add ``ratio_<base>`` and ``verdict_<base>`` columns (base: booksim, sst) to the tidy
    table and ``ratio_<base>``/``verdict_<base>`` to the saturation table.

    A point (load, simulator X) against base B is ``pass`` when both completed and
    ``|lat_X / lat_B - 1| <= latency_tolerance``, ``FAIL`` when not (or when one of them
    did not complete), and ``n/a`` above ``up_to`` times B's saturation estimate
    (midpoint of its bracket; every load counts when B did not saturate) or where B has
    no point.  Saturation: ``pass`` when the estimates (bracket midpoints) are within
    ``saturation_tolerance`` of B's, ``FAIL`` when not, ``undetermined`` when a bracket
    is unbounded or wider than the tolerance (``spec.saturation`` bisects it).
    """
    import pandas as pd

    table = table.copy()
    saturation = saturation.copy()
    sims = list(saturation["simulator"])
    sat = {r["simulator"]: r for r in saturation.to_dict("records")}
    for base in ("booksim", "sst"):
        rcol, vcol = f"ratio_{base}", f"verdict_{base}"
        table[rcol] = math.nan
        table[vcol] = "-"
        saturation[rcol] = math.nan
        saturation[vcol] = "-"
        if base not in sims:
            continue
        b = sat[base]
        limit = spec.up_to * b["saturation"] if not math.isnan(b["saturation"]) else (
            spec.up_to * b["sat_low"] if not math.isinf(b["sat_high"]) else math.inf)
        base_rows = table[table["simulator"] == base].set_index("load")
        for i, r in table.iterrows():
            if r["simulator"] == base or r["load"] not in base_rows.index:
                continue
            br = base_rows.loc[r["load"]]
            if r["status"] == "completed" and br["status"] == "completed":
                ratio = r["latency_cycles"] / br["latency_cycles"]
                table.at[i, rcol] = ratio
            else:
                ratio = math.nan
            if r["load"] > limit * (1 + 1e-9):
                table.at[i, vcol] = "n/a"
            elif r["status"] == "skipped" or br["status"] == "skipped":
                table.at[i, vcol] = "n/a"
            elif math.isnan(ratio):
                table.at[i, vcol] = "FAIL"
            else:
                table.at[i, vcol] = "pass" if abs(ratio - 1) <= spec.latency_tolerance else "FAIL"
        for j, s in saturation.iterrows():
            if s["simulator"] == base:
                continue
            x, y = s["saturation"], b["saturation"]
            if math.isnan(x) or math.isnan(y):
                both_unbounded = math.isinf(s["sat_high"]) and math.isinf(b["sat_high"])
                saturation.at[j, vcol] = "undetermined" if not both_unbounded else "n/a"
                continue
            ratio = x / y
            saturation.at[j, rcol] = ratio
            tol = spec.saturation_tolerance
            wide = [r["simulator"] for r in (s, b) if r["sat_high"] - r["sat_low"] > tol * r["sat_low"]]
            if wide:
                saturation.at[j, vcol] = "undetermined"  # a bracket wider than the tolerance
            else:
                saturation.at[j, vcol] = "pass" if abs(ratio - 1) <= tol else "FAIL"
    return table, pd.DataFrame(saturation)


# --------------------------------------------------------------------------- run
@dataclass
class CrossvalResult:
    """What :func:`crossval` returns.

    ``table``: one line per (load, simulator) in common units with ratios and verdicts;
    ``saturation``: one line per simulator; ``rows``: the results rows of the shared
    schema; ``skipped``: simulators not run and why; ``notes``: how settings were matched.
    """

    spec: CrossvalSpec
    seed: int
    table: Any
    saturation: Any
    rows: list
    skipped: dict
    notes: list
    files: dict

    def summary(self) -> list[str]:
        """One line per compared pair: points passed, saturation verdict."""
        lines = []
        for base in ("booksim", "sst"):
            col = f"verdict_{base}"
            for sim in SIMULATOR_ORDER:
                if sim == base:
                    continue
                t = self.table[(self.table["simulator"] == sim) & (self.table[col] != "-")]
                if not len(t):
                    continue
                judged = t[t[col].isin(("pass", "FAIL"))]
                s = self.saturation[self.saturation["simulator"] == sim][col]
                lines.append(f"{sim} vs {base}: latency {int((judged[col] == 'pass').sum())}/{len(judged)} "
                             f"points within {self.spec.latency_tolerance:.0%} (up to "
                             f"{self.spec.up_to:.0%} of {base}'s saturation); saturation "
                             f"{s.iloc[0] if len(s) else '-'}")
        return lines

    @property
    def passed(self) -> bool:
        """No ``FAIL`` in any verdict column."""
        cols = [c for c in self.table.columns if c.startswith("verdict_")]
        scols = [c for c in self.saturation.columns if c.startswith("verdict_")]
        return not any((self.table[c] == "FAIL").any() for c in cols) and \
            not any((self.saturation[c] == "FAIL").any() for c in scols)


def check_out_dir(out_dir, force: bool) -> Path:
    """The output folder, checked before any work: created if missing; a non-empty one is
    refused without ``force`` (with it, nothing in it is replaced: new files get fresh
    names and results are added to ``results.csv``)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"--out-dir {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ParameterError(f"output folder {out} is not empty; choose another --out-dir or add "
                             "--force to add this run beside what is there (nothing is replaced)")
    out.mkdir(parents=True, exist_ok=True)
    if not os.access(out, os.W_OK):
        raise ParameterError(f"output folder {out} is not writable")
    return out.resolve()


def crossval(spec, out_dir, *, force: bool = False, plot=None, binaries=None,
             progress: Callable[[str, float, dict], None] | None = None) -> CrossvalResult:
    """Run one experiment spec on every simulator found and compare them.

    Parameters
    ----------
    spec : CrossvalSpec, mapping or path
        The experiment (a mapping of :class:`CrossvalSpec` fields, or a TOML file).
    out_dir : path-like
        Raw outputs (BookSim exports and logs under ``booksim/``, SST bundle and logs under
        ``sst/``), ``results.csv`` (rows of the shared schema), ``crossval.csv`` (the
        tidy table) and ``saturation.csv``.  Refused if not empty unless ``force``.
    force : bool
        Use a non-empty ``out_dir`` (new files get fresh names; results are added).
    plot : path-like, optional
        Latency-vs-load chart (.png/.svg/.pdf), one curve per simulator.
    binaries : mapping, optional
        ``{"booksim": path, "sst": path}`` overriding ``$TOPOGEN_BOOKSIM``/``$TOPOGEN_SST``/PATH.
    progress : callable(simulator, load, row), optional
        Called after every point.

    Returns
    -------
    CrossvalResult

    Raises
    ------
    ParameterError
        Invalid spec or output location.
    SimulatorNotFound
        A simulator named in ``spec.simulators`` is not installed.
    """
    import pandas as pd

    from ..results import atomic_write_text, read_results, write_results

    if isinstance(spec, (str, os.PathLike)):
        spec = load_spec(spec)
    elif isinstance(spec, Mapping):
        spec = CrossvalSpec(**spec)
    if not isinstance(spec, CrossvalSpec):
        raise ParameterError("spec must be a CrossvalSpec, a mapping of its fields or a TOML file")
    if plot is not None:
        plot = Path(plot)
        if plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise ParameterError(f"plot output must end in .png, .svg or .pdf, got {plot}")
        if plot.exists() and not force:
            raise ParameterError(f"plot file {plot} exists; choose another name or add --force")
        if not plot.resolve().parent.is_dir():
            raise ParameterError(f"cannot write {plot}: folder {plot.resolve().parent} does not exist")
    seed = resolve_seed(spec.seed)
    spec = replace(spec, seed=seed)
    out = check_out_dir(out_dir, force)
    topology, layout = build_network(spec, seed)
    routing, routing_note = build_routing(spec, topology, layout, seed)
    adapters, skipped = build_adapters(spec, seed, topology, layout, routing, out, binaries=binaries)

    rows: list[dict] = []
    lines: list[dict] = []
    sat_lines: list[dict] = []
    extra = {"crossval_routing": spec.routing, "crossval_traffic": spec.traffic}
    for ad in adapters:
        points: dict[float, str] = {}

        def run_point(load, ad=ad, points=points):
            row = ad.run(load)
            rows.append(row)
            points[load] = row["status"]
            conv = common_units(row, spec.clock_ns)
            lines.append({"load": load, "simulator": ad.simulator, "status": row["status"],
                          **conv, "routing": row.get("routing"), "message": row.get("message"),
                          "raw_output": row.get("raw_output")})
            if progress is not None:
                progress(ad.simulator, load, row)
            return row

        for load in spec.loads:
            lo, hi = saturation_bracket(points)
            if load > hi:  # above this simulator's saturation: not run
                lines.append({"load": load, "simulator": ad.simulator, "status": "skipped",
                              "latency_cycles": math.nan, "latency_ns": math.nan,
                              "accepted_flits": math.nan, "routing": ad.routing,
                              "message": f"above the saturated load {hi:g}", "raw_output": None})
                continue
            run_point(load)
        if spec.saturation:
            _bisect(run_point, points, spec.saturation_tolerance / 2)
        lo, hi = saturation_bracket(points)
        sat_lines.append({"simulator": ad.simulator, "sat_low": lo, "sat_high": hi,
                          "saturation": _saturation_value(lo, hi), "routing": ad.routing,
                          "points": len(points)})
    table = pd.DataFrame(lines)
    order = {s: i for i, s in enumerate(SIMULATOR_ORDER)}
    table = table.sort_values(["load", "simulator"], key=lambda c: c.map(order) if c.name == "simulator" else c,
                              kind="stable").reset_index(drop=True)
    saturation = pd.DataFrame(sat_lines)
    table, saturation = verdicts(table, saturation, spec)

    notes = [f"seed {seed}; loads in flits/node/cycle; latency in cycles of the shared "
             f"{spec.clock_ns:g} ns clock and in ns; tolerances: latency {spec.latency_tolerance:.0%} "
             f"up to {spec.up_to:.0%} of the other simulator's saturation, saturation "
             f"{spec.saturation_tolerance:.0%}"]
    if routing_note:
        notes.append(routing_note)
    if any(a.simulator == "booksim" for a in adapters):
        notes.append("BookSim routes with anynet's min (its own tables); the reference simulator"
                     + (" and SST use" if any(a.simulator == "sst" for a in adapters) else " uses")
                     + f" topogen's {routing.algorithm} tables")
    notes.extend(a.note for a in adapters if a.note)
    notes.extend(f"{sim} skipped: {why}" for sim, why in skipped.items())

    # outputs: results rows (added to an existing results.csv), tidy tables, plot
    for r in rows:
        params = r.get("params")
        if isinstance(params, str):
            import json

            try:
                p = json.loads(params)
            except json.JSONDecodeError:
                p = {"text": params}
            if isinstance(p, dict):
                p.update(extra)
                r["params"] = p
    results_path = out / "results.csv"
    old = read_results(results_path).to_dict("records") if results_path.exists() else []
    write_results(results_path, old + rows)
    files = {"results": results_path}
    for name, frame in (("crossval", table), ("saturation", saturation)):
        from ..drivers.base import fresh_path

        path = fresh_path(out / f"{name}.csv")
        header = f"# topogen crossval: {spec.topology} {spec.routing} {spec.traffic} " \
                 f"packet_size={spec.packet_size} seed={seed}\n"
        atomic_write_text(path, header + frame.to_csv(index=False, lineterminator="\n"))
        files[name] = path
    if plot is not None:
        files["plot"] = plot_crossval(table, spec, plot)
    return CrossvalResult(spec, seed, table, saturation, rows, skipped, notes, files)


def plot_crossval(table, spec: CrossvalSpec, output) -> Path:
    """Latency (cycles) against offered load (flits/node/cycle), one curve per simulator,
    through :func:`topogen.sim.plot.plot_latency`."""
    import pandas as pd

    from ..results import make_row, to_frame
    from ..sim.plot import plot_latency

    recs = []
    for r in table.to_dict("records"):
        if r["status"] == "skipped":
            continue
        recs.append(make_row(simulator=r["simulator"], topology=spec.topology, routing=r["routing"],
                             traffic=spec.traffic, offered_load=r["load"], load_unit="flits/node/cycle",
                             status=r["status"], latency_avg=r["latency_cycles"], latency_unit="cycles"))
    frame = to_frame(recs) if recs else pd.DataFrame()
    title = (f"crossval: {spec.topology} {_short_params(spec.params)} {spec.traffic}, "
             f"{spec.packet_size}-flit packets")
    return plot_latency([frame], output, title=title)


def _short_params(params: Mapping) -> str:
    text = ",".join(f"{k}={'x'.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
                    for k, v in sorted(params.items()))
    return f"({text})" if text else ""
