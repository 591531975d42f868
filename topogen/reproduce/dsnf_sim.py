"""``topogen reproduce dsnf-sim``: DSN-F (Truong et al.) Section V, Figs. 8 and 9, on
topogen's reference simulator (:mod:`topogen.sim`).

The paper simulates 128-switch DSN-F, DSN, 2-D torus and DLN (all of average degree 4)
under uniform and matrix-transpose traffic and plots latency against accepted traffic.
It prints only plots, so this reproduction measures per network and traffic the
**zero-load latency** (ns, simulated at ``low``) and the **saturation throughput**
(flits/host/cycle, by bisection with :func:`topogen.sim.sweep.sweep`) and checks the two
statements of V-B:

* "all the latency results match the observations in the graph analysis on diameter
  and average shortest path length": the zero-load latencies are in the order of the
  networks' average shortest path lengths (III-C, Fig. 6: DLN lowest, 2-D torus
  highest, DSN-F close to DSN);
* "all the topologies have similar throughput ... since they have almost the same
  number of links": every saturation throughput within ``similar`` (default 25 %) of
  the highest.

What the paper states (V-A) and how it maps onto the simulator
--------------------------------------------------------------
* Virtual cut-through, 33-flit packets of 256-bit flits, 96 Gbit/s links: one cycle is
  one flit time, 2.667 ns.
* "A header flit transfer requires over 100ns including the routing, virtual-channel
  allocation, switch allocation, and flit transfer": the per-switch ``router_delay``;
  we take **100 ns = 37.5 cycles, rounded up to 38** (``routing_delay = 35`` plus three
  one-cycle stages; only the sum matters in the model).
* "the topology-agnostic adaptive routing scheme with the escape paths described in
  [10]": :func:`topogen.routing.escape` (minimal adaptive next hops on VCs 1-3, an
  up*/down* escape VC 0), as ``skywalk-sim``; its minimal routes are fastest routes with
  the 100 ns switch delay.
* Cables of the IV-C floor (:meth:`topogen.layout.Floor.dsn`, 16 switches per cabinet;
  DSN-F on its native cabinets, the others sequentially, as ``reproduce dsnf``), 5 ns/m,
  rounded up to cycles.

Where the paper is silent (our choices)
---------------------------------------
* **Hosts**: one per switch (the paper does not say), loads in flits/host/cycle.
* **Transpose**: "each endpoint ... communicates with the endpoint with the binary
  address that is shifted by n/2 bits"; 128 hosts have 7 address bits, so we read the
  shift as a rotation by floor(7/2) = 3 bits (traffic ``rotate``: a permutation of all
  128 hosts, equal to the matrix transpose for an even number of bits).
  ``transpose="halves"`` uses Slim Fly's transpose instead, on the first 64 hosts.
* **Buffers**: 4 VCs of 66 flits (two packets), as ``skywalk-sim``.
* **"Similar" throughput**: within 25 % of the best (``similar``).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import pandas as pd

from .._progress import Progress
from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult
from .dsn import build
from .skywalk_sim import _choose, sweep_columns

N = 128
SWITCH_NS = 100.0
TRAFFICS = ("uniform", "transpose")
#: key -> label of :func:`topogen.reproduce.dsn.build`
NETWORKS = {"dsnf": "DSN-F", "dsn": "DSN", "torus": "2-D torus", "dln": "DLN-4"}
#: V-A plus our choices (module docs)
SIM_CONFIG = dict(num_vcs=4, vc_buf_size=66, packet_size=33, flit_bits=256, link_gbps=96.0,
                  routing_delay=35, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1,
                  latency_thres=2000.0)


def _claims(table: pd.DataFrame, similar: float) -> pd.DataFrame:
    """The paper's statements about its four networks, judged (``ours`` True/False) only when
    all four ran with finite numbers; otherwise ``ours`` is None and ``numbers`` says which
    are missing (a statement about four networks cannot hold on two)."""
    rows = []
    for traffic, g in table.groupby("traffic", sort=False):
        g = g.set_index("key")
        missing = [NETWORKS[k] for k in NETWORKS if k not in g.index
                   or not all(math.isfinite(float(g.loc[k, c])) for c in ("aspl", "zero_load_ns", "sat_load"))]
        if missing:
            for claim in ("zero-load latency in the order of the average shortest path length (Fig. 6)",
                          "DLN lowest and 2-D torus highest latency (III-C order)",
                          f"similar throughput (all within {similar:.0%} of the best)"):
                rows.append({"claim": claim, "traffic": traffic, "ours": None,
                             "numbers": "not measured: missing " + ", ".join(missing)})
            continue
        by_aspl = list(g["aspl"].sort_values(kind="stable").index)
        by_lat = list(g["zero_load_ns"].sort_values(kind="stable").index)
        rows.append({
            "claim": "zero-load latency in the order of the average shortest path length (Fig. 6)",
            "traffic": traffic, "ours": by_aspl == by_lat,
            "numbers": "ASPL: " + " < ".join(f"{g.loc[k, 'topology']} {g.loc[k, 'aspl']:.2f}" for k in by_aspl)
                       + "; latency: " + " < ".join(f"{g.loc[k, 'topology']} {g.loc[k, 'zero_load_ns']:.0f} ns"
                                                    for k in by_lat)})
        lat = g["zero_load_ns"]
        rows.append({"claim": "DLN lowest and 2-D torus highest latency (III-C order)",
                     "traffic": traffic, "ours": lat.idxmin() == "dln" and lat.idxmax() == "torus",
                     "numbers": f"lowest {g.loc[lat.idxmin(), 'topology']}, highest "
                                f"{g.loc[lat.idxmax(), 'topology']}"})
        sat = g["sat_load"]
        lo, hi = float(sat.min()), float(sat.max())
        rows.append({"claim": f"similar throughput (all within {similar:.0%} of the best)",
                     "traffic": traffic, "ours": lo >= (1 - similar) * hi,
                     "numbers": ", ".join(f"{g.loc[k, 'topology']} {sat[k]:.3g}" for k in g.index)
                                + f" flits/host/cycle (lowest/highest {lo / hi:.2f})"})
    return pd.DataFrame(rows, columns=["claim", "traffic", "ours", "numbers"])


@register_experiment("dsnf-sim", paper="DSN-F (Truong et al.) V, Figs. 8-9")
def reproduce_dsnf_sim(*, traffic: str = "all", topologies: str = "all", seed: int = 1,
                       sim_seed: int = 1, tolerance: float = 0.02, low: float = 0.01,
                       high: float = 1.0, similar: float = 0.25, results: str = "",
                       max_samples: int = 10, transpose: str = "rotate", routing: str = "escape",
                       simulator: str = "reference", quick: bool = False, full: bool = False,
                       submit: bool = False, collect: bool = False, plan: bool = False, out: str = "",
                       workers: int = 2, plot: str = "") -> ExperimentResult:
    """DSN-F V (Figs. 8-9) on the reference simulator: zero-load latency and saturation.

    Parameters
    ----------
    traffic : str
        ``uniform``, ``transpose``, a comma-separated list, or ``all`` (default).
    topologies : str
        ``all`` or a comma-separated list of dsnf, dsn, torus, dln.
    seed : int
        Seed of DLN-4's random shortcuts.
    sim_seed : int
        Seed of the simulations (one for every point).
    tolerance : float
        Bisection stops when the saturation bracket is narrower (flits/host/cycle).
    low, high : float
        Load of the zero-load point and the bisection's lower end; highest load tried.
    similar : float
        "Similar throughput": every network within this fraction of the best.
    results : str
        Results file keeping every simulated point (a rerun reuses them); default a
        temporary file.
    max_samples : int
        Sample periods per point at most (warm-up included).
    transpose : str
        ``rotate`` (default): the address rotated by 3 of its 7 bits, all 128 hosts;
        ``halves``: Slim Fly's transpose (swap 3-bit halves) on hosts 0..63.
    routing : str
        ``escape`` (default, the paper's): adaptive minimal routing with an up*/down* escape
        VC; ``min``: its minimal fastest-route tables alone, every hop free to use the 4 VCs
        (not deadlock-free; a deadlock counts as saturation), the routing BookSim
        (``min_anynet``) and SST can run.
    simulator : str
        ``reference`` (default), ``booksim`` or ``sst`` (``--routing min``); see
        :mod:`topogen.reproduce._backend`.  Raw output goes beside ``results``.
    quick : bool
        Run Figs. 8-9 as an experiment (:func:`study_of`): one content-keyed sweep point
        per network and traffic, each a latency-accepted traffic curve with its knee
        resolved to 0.02 flits/host/cycle, a short measurement (what the tests run).
        Without --quick or --full the bisection above runs.
    full : bool
        As --quick with the full measurement (3 warm-up periods, at most 10 of 1,000
        cycles) and 10 loads below saturation.
    submit : bool
        With --quick or --full: send the points the store lacks to SLURM as a job array
        (and a collect job); run again with --collect when it has ended.
    collect : bool
        With --quick or --full: run nothing, judge and draw what the store holds.
    plan : bool
        With --quick or --full: print what the run would do and stop.
    out : str
        With --quick or --full: the study's folder (default ``dsnf-sim-quick`` or
        ``dsnf-sim-full``).  A rerun resumes.
    workers : int
        With --quick or --full: curves simulated in parallel (processes).
    plot : str
        With --quick or --full: the figure's file (default ``fig8-9.png`` in the folder).
    """
    if quick or full or submit or collect or plan or out:
        return _study_run(quick=quick, full=full, submit=submit, collect=collect, plan=plan, out=out,
                          traffic=traffic, topologies=topologies, seed=sim_seed, workers=workers, plot=plot,
                          simulator=simulator, similar=similar)
    from ..metrics.hops import distance_stats
    from ..routing import escape, route
    from ._backend import check, raw_dir_for
    from ._backend import notes as backend_notes
    from ._backend import sweep as backend_sweep

    keys = _choose(topologies, NETWORKS, "topologies")
    traffics = _choose(traffic, TRAFFICS, "traffic")
    if not (0 < low < high <= 1) or not tolerance > 0 or not 0 < similar < 1:
        raise ParameterError(f"need 0 < low < high <= 1, tolerance > 0 and 0 < similar < 1; got "
                             f"low={low}, high={high}, tolerance={tolerance}, similar={similar}")
    if transpose not in ("rotate", "halves"):
        raise ParameterError(f"transpose must be 'rotate' or 'halves', got {transpose!r}")
    pattern = {"uniform": "uniform", "transpose": "rotate" if transpose == "rotate" else "transpose"}
    if routing not in ("escape", "min"):
        raise ParameterError(f"routing must be 'escape' or 'min', got {routing!r}")
    check(simulator, "dsnf-sim", routings=["escape" if routing == "escape" else "fr"],
          traffics=[pattern[t] for t in traffics], hosts=N,
          alternative="--routing min (the minimal tables alone) or --simulator reference")
    config = dict(SIM_CONFIG, max_samples=max_samples)
    wall0 = time.perf_counter()
    rows = []
    simulated = reused = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(results) if results else Path(tmp) / "dsnf_sim.csv"
        with Progress(total=len(keys) * len(traffics), desc="dsnf-sim", log_steps=True) as bar:
            for key in keys:
                label = NETWORKS[key]
                topology, layout = build(label, N, seed=seed)
                stats = distance_stats(topology)
                rt = escape(topology, layout, num_vcs=4, base="fr", switch_delay=SWITCH_NS) \
                    if routing == "escape" else route(topology, layout, "fr", switch_delay=SWITCH_NS)
                for tr in traffics:
                    bar.status(f"{label} {tr}")
                    t0 = time.perf_counter()
                    res = backend_sweep(simulator, rt, out, low=low, high=high, tolerance=tolerance,
                                        seed=sim_seed, traffic=pattern[tr], load_unit="flits",
                                        self_packets=False, raw_dir=raw_dir_for(results, tmp), **config)
                    simulated += res.simulated
                    reused += res.reused
                    rows.append({
                        "key": key, "topology": label, "traffic": tr,
                        "switches": topology.num_switches, "links": topology.num_links,
                        "diameter": int(stats.diameter), "aspl": float(stats.aspl),
                        "cable_avg_m": layout.total_cable_length / topology.num_links,
                        **sweep_columns(res, sat="sat_load", upper="sat_upper"),
                        "seconds": round(time.perf_counter() - t0, 1),
                    })
                    bar.update()
    table = pd.DataFrame(rows)
    claims = _claims(table, similar)
    wall = time.perf_counter() - wall0
    n_true = int((claims["ours"] == True).sum())  # noqa: E712
    notes = [
        f"Ran {len(keys)} networks x {len(traffics)} traffic(s): {simulated} simulations "
        f"({reused} reused) in {wall:.0f} s; bisection between {low:g} and {high:g} "
        f"flits/host/cycle to {tolerance:g}; DLN seed {seed}, simulation seed {sim_seed}.",
        "Model (V-A + our choices): 128 switches, one host each, 16 switches per cabinet "
        "(Floor.dsn), " + ("Silla-Duato adaptive routing with an up*/down* escape VC" if routing == "escape"
                           else "minimal fastest-route tables (--routing min)") + " (4 VCs x 66 "
        "flits), virtual cut-through, 33-flit packets of 256 bits, 96 Gbit/s links = 2.667 ns "
        "cycles, switch delay 100 ns -> 38 cycles, cables 5 ns/m rounded up to cycles.",
        "zero_load_ns: mean latency simulated at the low load (creation to tail delivery); "
        "sat_load: highest sustained load found (bracket up to sat_upper); aspl, diameter: "
        "hop counts of the graph (III-C).",
        f"Claims of V-B: {n_true} of {int(claims['ours'].notna().sum())} judged hold in ours"
        + (f"; {int(claims['ours'].isna().sum())} not measured (they speak of all four networks)."
           if claims["ours"].isna().any() else "."),
    ] + backend_notes(simulator)
    if routing == "min":
        notes.append("Routing 'min': the minimal fastest-route tables alone, every hop free to use "
                     "the 4 VCs (no escape VC; a deadlock counts as saturation, `limit` says which).")
    if "transpose" in traffics:
        notes.append("transpose: 128 hosts have 7 address bits; " + (
            "each address rotated left by 3 bits (all 128 hosts)." if transpose == "rotate" else
            "Slim Fly's transpose on hosts 0..63 (6 bits); rates are per active host."))
    return ExperimentResult(
        title=f"DSN-F V (Figs. 8-9): 128-switch networks of degree 4, 100 ns switches, {simulator} "
              "simulator",
        table=table.drop(columns=["key"]),
        notes=notes,
        extra_tables={"claims": claims},
    )


# =============================================================================== Figs. 8-9 as a study
#: the figures' panels by traffic
PANELS = {"uniform": "8", "transpose": "9"}
PANEL_TITLES = {"8": "Fig. 8: uniform", "9": "Fig. 9: matrix transpose (rotate by 3 of 7 bits)"}
#: key -> (generator, parameters, placement on the IV-C floor of 16 switches per cabinet):
#: DSN-F on its native cabinets, the others sequentially (:func:`topogen.reproduce.dsn.build`)
STUDY_NETWORKS = {
    "dsnf": ("dsnf", {"num_switches": N, "switches_per_cabinet": 16}, "native"),
    "dsn": ("dsn", {"num_switches": N}, "sequential"),
    "torus": ("torus", {"dims": [16, 8]}, "sequential"),
    "dln": ("dln", {"num_switches": N, "x": 4}, "sequential"),
}
#: V-A as an experiment (the bisection mode's model, module docs): cable delays of the
#: layout, 38-cycle switches, fastest routes with the 100 ns switch delay
FULL_MEASURE = {"packet_size": 33, "num_vcs": 4, "vc_buf_size": 66, "flit_bits": 256, "clock_ns": 256 / 96,
                "link_latency": "layout", "credit_delay": 0, "latency_thres": 2000.0,
                "warmup_periods": 3, "sample_period": 1000, "max_samples": 10}
QUICK_MEASURE = dict(FULL_MEASURE, warmup_periods=1, sample_period=500, max_samples=4)
STUDY_REFERENCE = {"internal_speedup": 1.0, "routing_base": "fr", "router_delay": 38,
                   "switch_delay_ns": SWITCH_NS, "self_packets": False}
#: loads below saturation per curve (:func:`~topogen.reproduce.study.knee_sweep`): full, quick
SWEEP_POINTS = {"full": 10, "quick": 8}
#: CPU seconds per packet-hop of the escape routing on this setup, for the estimate
#: printed before a run: the plan's packet-hops of one full-size point, DSN-F under
#: uniform traffic (16 loads), over its measured 16.8 s of CPU (2026-11-29)
CPU_SECONDS_PER_PACKET_HOP = {"*": 1.0e-5, "escape": 1.0e-5}


def study_of(mode: str, traffics=tuple(TRAFFICS), keys=tuple(NETWORKS), seed: int = 1):
    """Figs. 8-9 as a :class:`~topogen.reproduce.study.Study`: the 128-switch networks
    ``keys`` of :data:`NETWORKS` on the floor of IV-C, the paper's escape routing, one
    curve per network and traffic (Fig. 8 uniform, Fig. 9 the transpose as ``rotate``).
    ``full``: 3 warm-up and at most 10 sample periods of 1,000 cycles, 10 loads below
    saturation; ``quick``: 1 warm-up and at most 4 periods of 500 cycles, 8 loads.  Knees
    resolved to 0.02 flits/host/cycle."""
    from .study import Curve, Network, Study, knee_sweep

    if mode not in ("full", "quick"):
        raise ParameterError(f"mode must be full or quick, got {mode!r}")
    nets = {}
    for k in keys:
        gen, params, placement = STUDY_NETWORKS[k]
        nets[k] = Network(k, gen, dict(params), NETWORKS[k],
                          {"switches_per_cabinet": 16, "cabinets": N // 16, "placement": placement})
    pattern = {"uniform": "uniform", "transpose": "rotate"}
    curves = [Curve(NETWORKS[k], k, "escape", pattern[t], PANELS[t]) for t in traffics for k in keys]
    return Study(name=f"dsnf-fig8-9-{mode}", networks=nets, curves=curves,
                 measure=dict(FULL_MEASURE if mode == "full" else QUICK_MEASURE),
                 reference=dict(STUDY_REFERENCE), sweep=knee_sweep(SWEEP_POINTS["full" if mode == "full" else "quick"]),
                 seed=seed, description=f"DSN-F (Truong et al.) Figs. 8-9, {mode}")


def study_claims(study, similar: float = 0.25):
    """The two statements of V-B as :class:`~topogen.reproduce.study.Claim` objects per
    panel (each about all four networks): the latencies at the lowest load in the order of
    the average shortest path lengths (DLN lowest, 2-D torus highest), and every
    saturation within ``similar`` of the highest (resolved knees)."""
    from ..metrics.hops import distance_stats
    from ..registry import generate
    from .study import Claim

    keys = [k for k in NETWORKS if k in study.networks]
    if len(keys) < len(NETWORKS):
        return []
    aspl = {}
    for k in keys:
        net = study.networks[k]
        aspl[k] = float(distance_stats(generate(net.generator, **net.params, **(
            {"seed": study.seed} if net.generator == "dln" else {}))).aspl)
    claims = []
    for t, panel in PANELS.items():
        ck = tuple((NETWORKS[k], panel) for k in keys)
        if not all(any((c.label, c.panel) == x for c in study.curves) for x in ck):
            continue

        def order(res, panel=panel):
            lat = {k: res[NETWORKS[k], panel].latency_at_lowest() * 256 / 96 for k in keys}
            by_aspl = sorted(keys, key=lambda k: aspl[k])
            by_lat = sorted(keys, key=lambda k: lat[k])
            ok = by_aspl == by_lat
            return ("ASPL " + " < ".join(f"{NETWORKS[k]} {aspl[k]:.2f}" for k in by_aspl) + "; latency "
                    + " < ".join(f"{NETWORKS[k]} {lat[k]:.0f} ns" for k in by_lat), ok,
                    "" if ok else "the latency order is not the ASPL order")
        claims.append(Claim("zero-load latency in the order of the average shortest path length (Fig. 6)", panel,
                            "ASPL order", "none", ck, order, False))

        def extremes(res, panel=panel):
            lat = {k: res[NETWORKS[k], panel].latency_at_lowest() for k in keys}
            lo, hi = min(lat, key=lat.get), max(lat, key=lat.get)
            ok = lo == "dln" and hi == "torus"
            return f"lowest {NETWORKS[lo]}, highest {NETWORKS[hi]}", ok, "" if ok else "not DLN lowest, torus highest"
        claims.append(Claim("DLN lowest and 2-D torus highest latency (III-C order)", panel, "DLN < ... < torus",
                            "none", ck, extremes, False))

        def similar_sat(res, panel=panel):
            v = {k: res[NETWORKS[k], panel].sustained for k in keys}
            lo, hi = min(v.values()), max(v.values())
            ok = lo >= (1 - similar) * hi
            return ", ".join(f"{NETWORKS[k]} {x:.3g}" for k, x in v.items()) + f" (lowest/highest {lo / hi:.2f})", \
                ok, "" if ok else f"the lowest is below {1 - similar:.0%} of the highest"
        claims.append(Claim(f"similar throughput (all within {similar:.0%} of the best)", panel, "similar",
                            f"within {similar:.0%}", ck, similar_sat, True, capped=True))
    return claims


def _expanded(kwargs):
    from .study import expand

    quick, full = kwargs.get("quick", False), kwargs.get("full", False)
    if quick == full:
        raise ParameterError("give exactly one of --quick (a short measurement) and --full (the full measurement); "
                             "both run the paper's 128-switch networks")
    mode = "full" if full else "quick"
    trs = _choose(kwargs.get("traffic") or "all", TRAFFICS, "traffic")
    keys = _choose(kwargs.get("topologies") or "all", NETWORKS, "topologies")
    study = study_of(mode, trs, keys, seed=int(kwargs.get("seed", 1)))
    return study, expand(study, kwargs.get("out") or f"dsnf-sim-{mode}")


def _announce(**kwargs) -> str | None:
    """What a run will do, printed before it starts (:func:`topogen.reproduce.study.announce`)."""
    from .study import announce

    return announce(kwargs, _expanded, CPU_SECONDS_PER_PACKET_HOP)


def _study_run(**kwargs):
    """Figs. 8-9 as an experiment (``--quick``/``--full``; see :func:`study_of`)."""
    from .study import reference_study_run

    return reference_study_run(
        kwargs, _expanded, lambda study: study_claims(study, kwargs.get("similar", 0.25)),
        title="DSN-F V (Figs. 8-9) as experiment {name}", figure="fig8-9.png",
        refusal="--quick/--full run on the reference simulator (the escape routing runs nowhere else); the "
                "BookSim/SST comparison is the bisection mode's --routing min --simulator ...",
        seconds_per_hop=CPU_SECONDS_PER_PACKET_HOP,
        draw=dict(titles=PANEL_TITLES, x_label="accepted traffic (flits/host/cycle)", y_scale=256 / 96,
                  y_label="latency (ns)", y_max=4000.0, dashed=lambda label: label.startswith("DLN"),
                  suptitle="DSN-F Figs. 8-9: latency vs accepted traffic, 128 switches"),
        notes=["Setup (V-A): 128 switches, one host each, 16 switches per cabinet (DSN-F native, the others "
               "sequential), escape routing on fastest routes with 100 ns switches (38 cycles), 4 VCs x 66 flits, "
               "33-flit packets of 256 bits, cables 5 ns/m rounded up to 2.667 ns cycles."])


reproduce_dsnf_sim.announce = _announce
