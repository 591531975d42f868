"""``topogen reproduce layout-sim``: the layout-conscious random topologies paper (Koibuchi
et al.) Section III-C, Figs. 6 and 8, and Section IV-B3, Fig. 13, on topogen's reference
simulator.

The paper simulates the direct topologies at 64, 256 and 512 switches (Figs. 5-7) and
Myrinet-Clos at 80 and 160 switches (Fig. 8) and states its findings as percentages in
III-C2; this reproduction runs the **256-switch** study of Fig. 6 (HYPERCUBE, P- and
PF-HYPERCUBE, RING-8; TORUS-4, P- and PF-TORUS-4, RING-4) and the **80-switch
Myrinet-Clos** of Fig. 8 (original and fully permuted), and with ``--topologies fig13``
the constrained shortcuts of Fig. 13 (RING-8, Nbr(0.4)-8, Nbr(0.5)-8, Gau(0.7)-8,
Gau(1.0)-8 at 256 switches, one seeded instance each), measures the zero-load latency
(ns) and the saturation throughput (Gbit/s/host) per network and traffic, and checks
every number III-C2 prints (``claims``: paper, ours, verdict).

What the paper states (III-C1) and how it maps onto the simulator
-----------------------------------------------------------------
* Virtual cut-through, 4 VCs, 33-flit packets of 256-bit flits, 96 Gbit/s links: one
  cycle is one flit time, 2.667 ns.
* "A header flit transfer requires over 100ns ...": per-switch ``router_delay`` of
  100 ns = 37.5 cycles, rounded up to **38** (``routing_delay = 35`` + three one-cycle
  stages).
* "The flit injection delay and link delay together are set to 20ns": every link
  ``ceil(20 / 2.667) = 8`` cycles, whatever its length (the paper's cable lengths enter
  only Figs. 9-10, not the simulated delays); host channels of one cycle.
* Routing: Duato's protocol with dimension-order escape paths on hypercubes and tori,
  the topology-agnostic adaptive routing with up*/down* escape paths on the random
  (permuted, RING) topologies, up*/down* on Myrinet-Clos.
* 8 hosts per switch on the direct topologies (2,048 hosts at 256 switches; "the
  maximum accepted traffic per host can be 12 Gbps", as in Skywalk), the generator's
  hosts on Myrinet-Clos (256 on 80 switches).

Our choices
-----------
* **Escape paths**: as the paper, HYPERCUBE and TORUS-4 use Duato's protocol with
  dimension-order escape paths (:func:`topogen.routing.escape` with
  ``escape_paths="dor"``, the ``escape-dor`` routing: minimal adaptive next hops on the
  adaptive VCs, the DOR escape with the dateline rule on VCs 0 and 1 of the torus, on VC 0
  of the hypercube; adaptive VCs 2-3 on the torus, 1-3 on the hypercube).  The permuted
  and RING networks use the up*/down* escape (``escape``: adaptive VCs 1-3, up*/down*
  escape on VC 0, minimal = fewest hops as the links are equal), Myrinet-Clos too: the
  deterministic :func:`topogen.routing.updown` sends every tied route through the
  lowest-id spine (measured: 1.6 Gbit/s/host on the original Clos against 3.1 on the
  permuted one), where Myrinet spreads routes over the spines.  Zero-load latencies do
  not depend on the escape paths; saturation can.  Measured (uniform, seed 1, 2026-11-29):
  the DOR escape takes two of the torus's four VCs, so its adaptive traffic has two VCs
  where the up*/down* escape leaves three, and more packets fall onto the escape (15.1 %
  of the hops at 5 Gbit/s/host against 0.6 %): TORUS-4 saturates at 5.31-5.40
  Gbit/s/host (bisection to 0.1) against 5.68-5.77 with the up*/down* escape, and on the
  ``--quick`` curves at 3.46-3.65 against 4.57-4.76.  HYPERCUBE keeps three adaptive VCs
  and the same knee, 11.44-11.54 with either escape.  The Fig. 6 torus order still
  differs: TORUS-4 stays above PF-TORUS-4 (1.96 Gbit/s/host: its routes, not the torus's
  escape, set it), docs/reproductions.md.
* **Host ports**: as ``skywalk-sim``'s default: the 8 hosts of a switch share one
  96 Gbit/s port, simulated as one host per switch at 8 x the per-host load (patterns on
  the 256 switch ids).  Myrinet-Clos simulates its real hosts.  ``host_port="separate"``
  simulates the 2,048 hosts (8 per switch, a 96 Gbit/s channel each) and puts the
  patterns on host ids; its ``transpose`` is the authors' matrix transpose of the same
  simulator as defined in the DSN paper (V-A: "each endpoint ... communicates with the
  endpoint with the binary address that is shifted by n/2 bits"), the ``rotate`` pattern
  of :mod:`topogen.sim.traffic` (11 address bits, shifted by 5: every host takes part),
  where the shared port's 8-bit transpose on switch ids sends the 8 hosts of a switch to
  one switch (120 switch pairs, 16 switches idle).  On Fig. 13 this matters: the
  switch-level transpose decides saturation by a few hot links, so instances scatter
  (RING-8 7.9..9.8 Gbit/s/host over seeds 1-3), the host-level one spreads the flows
  (docs/reproductions.md).
* **Percentages**: a printed "x % lower" holds in ours when our figure is within
  ``points`` (default 5) percentage points of it; "similar throughput" = within 25 %.
* Permuted topologies are one seeded instance (``seed``).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import pandas as pd

from .. import registry
from .._progress import Progress
from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult
from .skywalk_sim import _choose, sweep_columns

HOSTS = 8
TRAFFICS = ("uniform", "transpose", "bitrev")
#: key -> (label, generator, parameters, hosts): ``shared``: the 8 hosts of a switch share
#: one simulated port (direct networks); ``own``: the generator's hosts (Myrinet-Clos)
NETWORKS = {
    "hypercube": ("HYPERCUBE", "hypercube", dict(dimension=8), "shared"),
    "p-hypercube": ("P-HYPERCUBE", "p-hypercube", dict(dimension=8), "shared"),
    "pf-hypercube": ("PF-HYPERCUBE", "pf-hypercube", dict(dimension=8), "shared"),
    "ring8": ("RING-8", "ring", dict(num_switches=256, degree=8), "shared"),
    "torus4": ("TORUS-4", "torus", dict(dims=(16, 16)), "shared"),
    "p-torus4": ("P-TORUS-4", "p-torus", dict(degree=4), "shared"),
    "pf-torus4": ("PF-TORUS-4", "pf-torus", dict(degree=4), "shared"),
    "ring4": ("RING-4", "ring", dict(num_switches=256, degree=4), "shared"),
    "nbr04": ("Nbr(0.4)-8", "nbr", dict(num_switches=256, degree=8, p=0.4), "shared"),
    "nbr05": ("Nbr(0.5)-8", "nbr", dict(num_switches=256, degree=8, p=0.5), "shared"),
    "nbr05-4": ("Nbr(0.5)-4", "nbr", dict(num_switches=256, degree=4, p=0.5), "shared"),
    "gau07": ("Gau(0.7)-8", "gau", dict(num_switches=256, degree=8, alpha=0.7), "shared"),
    "gau10": ("Gau(1.0)-8", "gau", dict(num_switches=256, degree=8, alpha=1.0), "shared"),
    "clos": ("Myrinet-Clos", "myrinet-clos", dict(hosts=256), "own"),
    "pf-clos": ("PF-Myrinet-Clos", "pf-myrinet-clos", dict(hosts=256), "own"),
}
#: Fig. 13 (IV-B3): constrained shortcutting at 256 switches, degree 8 (with RING-8)
FIG13 = ("nbr04", "nbr05", "gau07", "gau10")
#: Fig. 16 (V): latency and throughput against the average cable length, degrees 4 and 8
FIG16 = ("p-torus4", "nbr05-4", "ring4", "p-hypercube", "nbr05", "ring8")
#: III-C1 plus our choices (module docs)
SIM_CONFIG = dict(num_vcs=4, vc_buf_size=66, packet_size=33, flit_bits=256, link_gbps=96.0,
                  routing_delay=35, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1,
                  link_latency=8, latency_thres=2000.0)
#: III-C2's percentages: (claim, traffic, faster key, slower key, paper %)
LOWER_BY = [
    ("RING-8 latency lower than HYPERCUBE", "uniform", "ring8", "hypercube", 19.4),
    ("RING-8 latency lower than HYPERCUBE", "transpose", "ring8", "hypercube", 20.1),
    ("RING-8 latency lower than HYPERCUBE", "bitrev", "ring8", "hypercube", 15.6),
    ("P-HYPERCUBE latency lower than HYPERCUBE", "uniform", "p-hypercube", "hypercube", 16.5),
    ("P-HYPERCUBE latency lower than HYPERCUBE", "transpose", "p-hypercube", "hypercube", 17.2),
    ("P-HYPERCUBE latency lower than HYPERCUBE", "bitrev", "p-hypercube", "hypercube", 12.0),
    ("P-TORUS-4 latency lower than PF-TORUS-4", None, "p-torus4", "pf-torus4", 5.0),
    ("RING-4 latency lower than PF-TORUS-4", None, "ring4", "pf-torus4", 21.0),
]


#: the regular networks the paper routes with dimension-order escape paths (III-C): their
#: escape routing is ``escape-dor``, the others' ``escape`` (up*/down* escape paths)
DOR_ESCAPE_GENERATORS = ("hypercube", "torus")


def escape_routing_of(generator: str) -> str:
    """The paper's escape routing of a network by its generator: ``escape-dor`` on the
    hypercube and torus, ``escape`` (up*/down* escape paths) on every other."""
    return "escape-dor" if generator in DOR_ESCAPE_GENERATORS else "escape"


def build(key: str, seed: int, host_port: str = "shared", routing: str = "escape"):
    """Topology and routing of one network (by key), with its simulated hosts: one per
    switch on the direct topologies (the shared host port; ``host_port="separate"``:
    8), the generator's on Clos.  ``routing="escape"``: the paper's Duato routing,
    dimension-order escape paths on HYPERCUBE and TORUS-4 and up*/down* ones on the
    others (:func:`escape_routing_of`); ``routing="min"``: the escape routing's minimal
    NR tables alone (all 4 VCs per hop)."""
    from ..routing import escape, route

    _, name, params, hosts = NETWORKS[key]
    spec = registry.get(name)
    kwargs = dict(params)
    if hosts == "shared":
        kwargs["hosts_per_switch"] = 1 if host_port == "shared" else HOSTS
    if "seed" in [p.name for p in spec.params]:
        kwargs["seed"] = seed
    t = spec.func(**kwargs)
    if routing == "min":
        return t, route(t, None, "nr")
    return t, escape(t, None, num_vcs=4, base="nr",
                     escape_paths="dor" if name in DOR_ESCAPE_GENERATORS else "updown")


def shortcut_hops(topology) -> float:
    """Mean ring length (hops along the ring ``0 - 1 - ... - N-1 - 0``) of the shortcuts of
    a RING-n, Nbr or Gau topology: the links that are not ring links."""
    from ..generators.shortcut import ring_hops

    e = topology.edges
    h = ring_hops(topology.num_switches, e[:, 0], e[:, 1])
    h = h[h > 1]
    return float(h.mean()) if len(h) else math.nan


def _claims(table: pd.DataFrame, points: float, similar: float) -> pd.DataFrame:
    rows = []

    def add(claim, traffic, paper, ours, ok):
        rows.append({"claim": claim, "traffic": traffic, "paper": paper, "ours": ours,
                     "verdict": "-" if ok is None else ("holds" if ok else "differs")})

    def unmeasured(claim, traffic, paper, keys, g, *cols):
        """A claim about the networks ``keys`` is judged only when every one of them ran
        and has a finite value in every column ``cols``; else a ``not measured`` row names
        what is missing (and ``True`` is returned)."""
        missing = [k for k in keys if k not in g.index
                   or any(not math.isfinite(float(g.loc[k, c])) for c in cols)]
        if missing and len(missing) < len(keys):
            rows.append({"claim": claim, "traffic": traffic, "paper": paper,
                         "ours": "missing " + ", ".join(NETWORKS[k][0] for k in missing),
                         "verdict": "not measured"})
        return bool(missing)

    for traffic, g in table.groupby("traffic", sort=False):
        g = g.set_index("key")
        lat, sat = g["zero_load_ns"], g["sat_gbps"]
        for claim, tr, a, b, pct in LOWER_BY:
            if (tr is None or tr == traffic) and a in g.index and b in g.index:
                ours = 100.0 * (1.0 - lat[a] / lat[b])
                add(claim, traffic, f"{pct:.1f} %", f"{ours:.1f} %", abs(ours - pct) <= points)
        if {"pf-hypercube", "p-hypercube"} <= set(g.index):
            add("PF-HYPERCUBE inferior to P-HYPERCUBE (latency)", traffic, "higher",
                f"{lat['pf-hypercube']:.0f} vs {lat['p-hypercube']:.0f} ns",
                lat["pf-hypercube"] > lat["p-hypercube"])
        cubes = ["hypercube", "p-hypercube", "pf-hypercube", "ring8"]
        if not unmeasured("hypercube versions and RING-8 achieve similar throughput", traffic,
                          "similar", cubes, g, "sat_gbps"):
            lo, hi = float(sat[cubes].min()), float(sat[cubes].max())
            add("hypercube versions and RING-8 achieve similar throughput", traffic,
                "similar", ", ".join(f"{g.loc[k, 'topology']} {sat[k]:.2f}" for k in cubes),
                lo >= (1 - similar) * hi)
        order = ["torus4", "pf-torus4", "p-torus4", "ring4"]
        if not unmeasured("saturation reached first by TORUS-4, then PF-TORUS-4, P-TORUS-4, RING-4",
                          traffic, "increasing", order, g, "sat_gbps"):
            vals = [float(sat[k]) for k in order]
            add("saturation reached first by TORUS-4, then PF-TORUS-4, P-TORUS-4, RING-4", traffic,
                "increasing", ", ".join(f"{g.loc[k, 'topology']} {sat[k]:.2f}" for k in order),
                all(x <= y for x, y in zip(vals, vals[1:])))
        rand = ["p-torus4", "pf-torus4", "ring4"]
        if not unmeasured("TORUS-4 widely outperformed by same-degree random topologies (latency)",
                          traffic, "higher", ["torus4"] + rand, g, "zero_load_ns"):
            add("TORUS-4 widely outperformed by same-degree random topologies (latency)", traffic,
                "higher", f"TORUS-4 {lat['torus4']:.0f} ns vs "
                + ", ".join(f"{g.loc[k, 'topology']} {lat[k]:.0f}" for k in rand),
                all(lat["torus4"] > lat[k] for k in rand))
        f13 = ["ring8", *FIG13]
        if traffic == "uniform" and not unmeasured(
                "Fig. 13, uniform: RING-8, Nbr and Gau lead to sensibly the same results", traffic,
                "same", f13, g, "zero_load_ns", "sat_gbps"):
            lo, hi = float(sat[f13].min()), float(sat[f13].max())
            llo, lhi = float(lat[f13].min()), float(lat[f13].max())
            add("Fig. 13, uniform: RING-8, Nbr and Gau lead to sensibly the same results", traffic,
                "same", f"latency {llo:.0f}-{lhi:.0f} ns, saturation {lo:.2f}-{hi:.2f} Gbit/s/host",
                lo >= (1 - similar) * hi and llo >= (1 - similar) * lhi)
        if traffic == "transpose" and not unmeasured(
                "Fig. 13, transpose: throughput decreases significantly for Nbr(0.4)-8 and Gau(0.7)-8",
                traffic, "lower", f13, g, "sat_gbps"):
            weak = ["nbr04", "gau07"]
            strong = [k for k in f13 if k not in weak]
            ok = max(float(sat[k]) for k in weak) < (1 - similar) * min(float(sat[k]) for k in strong)
            add("Fig. 13, transpose: throughput decreases significantly for Nbr(0.4)-8 and "
                "Gau(0.7)-8", traffic, "lower",
                ", ".join(f"{g.loc[k, 'topology']} {sat[k]:.2f}" for k in f13), ok)
            for k in weak:  # each half of the statement on its own
                add(f"Fig. 13, transpose: {g.loc[k, 'topology']} significantly lower than "
                    "RING-8, Nbr(0.5)-8, Gau(1.0)-8", traffic, "lower",
                    f"{sat[k]:.2f} vs {min(float(sat[j]) for j in strong):.2f} (lowest of the others)",
                    float(sat[k]) < (1 - similar) * min(float(sat[j]) for j in strong))
        if "cable_avg_m" in g.columns and not unmeasured(
                "Fig. 16: P-TORUS, Nbr(0.5) and RING (degree 4), P-HYPERCUBE, Nbr(0.5) and RING (degree 8)",
                traffic, "cable and performance trade-off", list(FIG16), g,
                "zero_load_ns", "sat_gbps", "cable_avg_m"):
            cab = g["cable_avg_m"]
            d4 = ["p-torus4", "nbr05-4", "ring4"]
            add("Fig. 16, degree 4: P-TORUS most economical, Nbr(0.5) between, RING most cable", traffic,
                "P-TORUS < Nbr < RING", " < ".join(f"{cab[k]:.2f}" for k in d4) + " m",
                cab[d4[0]] < cab[d4[1]] < cab[d4[2]])
            add("Fig. 16, degree 4: RING-n highest performance, Nbr(0.5) a compromise", traffic,
                "RING < Nbr < P-TORUS (latency), reverse (throughput)",
                "latency " + " / ".join(f"{lat[k]:.0f}" for k in d4) + " ns, saturation "
                + " / ".join(f"{sat[k]:.2f}" for k in d4),
                lat["ring4"] < lat["nbr05-4"] < lat["p-torus4"]
                and sat["ring4"] >= sat["nbr05-4"] - 0.5 and sat["nbr05-4"] >= sat["p-torus4"] - 0.5)
            d8 = ["p-hypercube", "nbr05", "ring8"]
            add("Fig. 16, degree 8: P-HYPERCUBE best, the others similar or worse at more cable", traffic,
                "P-HYPERCUBE", "latency " + ", ".join(f"{g.loc[k, 'topology']} {lat[k]:.0f} ns" for k in d8)
                + "; cable " + ", ".join(f"{cab[k]:.2f}" for k in d8) + " m",
                all(cab["p-hypercube"] <= cab[k] for k in d8)
                and all(lat["p-hypercube"] <= (1 + points / 100) * lat[k] for k in d8)
                and all(sat["p-hypercube"] >= (1 - similar) * sat[k] for k in d8))
        if {"clos", "pf-clos"} <= set(g.index):
            ours = 100.0 * (1.0 - lat["pf-clos"] / lat["clos"])
            add("permuted Myrinet-Clos: latency lower (the best traffic: up to 23.4 %)", traffic,
                "> 0 (<= 23.4 %)", f"{ours:.1f} %", 0 < ours <= 23.4 + points)
            r = sat["pf-clos"] / sat["clos"]
            add("permuted Myrinet-Clos: sensibly the same throughput", traffic, "same",
                f"{sat['pf-clos']:.2f} vs {sat['clos']:.2f} Gbit/s/host", abs(r - 1) <= similar)
    if "shortcut_hops" in table.columns:
        hops = table.drop_duplicates("key").set_index("key")["shortcut_hops"]
        if {"nbr04", "nbr05", "gau07"} <= set(hops.index):
            # IV-B: Gau(0.7)-8 loses transpose throughput with Nbr(0.4)-8, Gau(1.0) "leads to
            # results similar to those obtained with Nbr(0.5)-n" (IV-C), and Fig. 12 finds Gau
            # as good "at lower average shortcut hop counts": the paper's Gau(0.7) shortcuts
            # are about as short as Nbr(0.4)'s
            add("IV-B: Gau(0.7)-8's shortcuts about as short as Nbr(0.4/0.5)-8's (mean ring hops)", "-",
                "<= Nbr(0.5)", ", ".join(f"{NETWORKS[k][0]} {hops[k]:.1f}" for k in ("ring8",) + FIG13
                                         if k in hops.index),
                hops["gau07"] <= hops["nbr05"])
    return pd.DataFrame(rows, columns=["claim", "traffic", "paper", "ours", "verdict"])


@register_experiment("layout-sim", paper="Koibuchi et al. III-C, IV-B3; Figs. 5-8 and 13")
def reproduce_layout_sim(*, traffic: str = "uniform", topologies: str = "default", seed: int = 1,
                         sim_seed: int = 1, tolerance: float = 0.5, low: float = 0.1,
                         high: float = 12.0, points: float = 5.0, similar: float = 0.25,
                         results: str = "", max_samples: int = 10,
                         anneal_iterations: int = 10**5, host_port: str = "shared",
                         routing: str = "escape", simulator: str = "reference", quick: bool = False,
                         full: bool = False, submit: bool = False, collect: bool = False, plan: bool = False,
                         out: str = "", workers: int = 2, plot: str = "", figures: str = "",
                         sizes: str = "") -> ExperimentResult:
    """Koibuchi et al. III-C (Figs. 6 and 8) on the reference simulator.

    Parameters
    ----------
    traffic : str
        ``uniform`` (default), ``transpose``, ``bitrev``, a comma-separated list, or ``all``.
    topologies : str
        ``default`` (Figs. 6 and 8), ``fig13`` (RING-8 and the constrained shortcuts of
        Fig. 13), ``fig16`` (P-TORUS-4, Nbr(0.5)-4, RING-4, P-HYPERCUBE, Nbr(0.5)-8,
        RING-8 with their average cable length from ``reproduce layout-fig16``'s layouts),
        ``all``, or a comma-separated list of hypercube, p-hypercube, pf-hypercube, ring8,
        torus4, p-torus4, pf-torus4, ring4, nbr04, nbr05, nbr05-4, gau07, gau10, clos,
        pf-clos.
    seed : int
        Seed of the permuted and RING topologies.
    sim_seed : int
        Seed of the simulations.
    tolerance : float
        Bisection stops when the saturation bracket is narrower (Gbit/s/host).
    low, high : float
        Load of the zero-load point and the bisection's lower end; highest load tried
        (Gbit/s/host; 12 = the 96 Gbit/s port shared by 8 hosts).
    points : float
        A printed percentage holds when ours is within this many percentage points.
    similar : float
        "Similar"/"the same" throughput: within this fraction.
    results : str
        Results file keeping every simulated point (a rerun reuses them).
    max_samples : int
        Sample periods per point at most (warm-up included).
    anneal_iterations : int
        Fig. 16: annealing moves of the Walktrap cabinet mapping of Nbr and RING.
    host_port : str
        ``shared`` (default): the 8 hosts of a switch share one simulated 96 Gbit/s port,
        patterns on the 256 switch ids; ``separate``: the 8 hosts of a switch simulated
        with a port each, patterns on the 2,048 host ids, ``transpose`` as the 11-bit
        shift by 5 (``rotate``; module docstring).  With --quick or --full the same for
        every direct network of the study (:func:`study_of`; the study
        ``layout-figs-MODE-hosts``).
    routing : str
        ``escape`` (default): adaptive minimal routing with an up*/down* escape VC; ``min``:
        its minimal NR tables alone, every hop free to use the 4 VCs (not deadlock-free; a
        deadlock counts as saturation), the routing BookSim (``min_anynet``) and SST can run.
    simulator : str
        ``reference`` (default), ``booksim`` or ``sst`` (``--routing min``); see
        :mod:`topogen.reproduce._backend`.  Raw output goes beside ``results``.
    quick : bool
        Run the figures as an experiment (:func:`study_of`): one content-keyed sweep point
        per network and traffic of ``--traffic`` (``all``: every pattern its figure has),
        each a latency-accepted traffic curve with its knee resolved to 0.02 of the port;
        Fig. 6 (256 switches) and the 80-switch Myrinet-Clos of Fig. 8 with a short
        measurement (what the tests run).  Without --quick or --full the bisection above
        runs.  ``--topologies`` is ``default`` (every network of the mode) or a list of
        the study's keys (``hypercube-256``, ``clos-512`` ...: ``--plan`` lists them).
    full : bool
        The paper's Figs. 5-8 and 13: 64, 256 and 512 switches, the 80- and 160-switch
        Myrinet-Clos, the constrained shortcuts; the full measurement.
    submit : bool
        With --quick or --full: send the points the store lacks to SLURM as a job array
        (and a collect job); run again with --collect when it has ended.
    collect : bool
        With --quick or --full: run nothing, judge and draw what the store holds.
    plan : bool
        With --quick or --full: print what the run would do and stop.
    out : str
        With --quick or --full: the study's folder (default ``layout-sim-quick`` or
        ``layout-sim-full``).  A rerun resumes.
    workers : int
        With --quick or --full: curves simulated in parallel (processes).
    plot : str
        With --quick or --full: the figure's file (default ``figs.png`` in the folder).
    figures : str
        With --quick or --full: only the networks of these figures, a comma-separated list
        of 5, 6, 7, 8, 13 (``--full --figures 5,8``: the 64-switch networks and the 80- and
        160-switch Myrinet-Clos).
    sizes : str
        With --quick or --full: only the networks of these switch counts, a comma-separated
        list of 64, 80, 160, 256, 512 (with ``--figures``: both must match).
    """
    if quick or full or submit or collect or plan or out:
        return _study_run(quick=quick, full=full, submit=submit, collect=collect, plan=plan, out=out,
                          traffic=traffic, topologies=topologies, seed=sim_seed, workers=workers, plot=plot,
                          simulator=simulator, points=points, similar=similar, figures=figures, sizes=sizes,
                          host_port=host_port)
    if figures or sizes:
        raise ParameterError("--figures and --sizes choose the networks of --quick or --full; the bisection mode "
                             "takes --topologies")
    from ._backend import check, raw_dir_for
    from ._backend import notes as backend_notes
    from ._backend import sweep as backend_sweep

    if topologies.strip() == "default":
        keys = [k for k in NETWORKS if k not in FIG13 and k != "nbr05-4"]
    elif topologies.strip() == "fig13":
        keys = ["ring8"] + list(FIG13)
    elif topologies.strip() == "fig16":
        keys = list(FIG16)
    else:
        keys = _choose(topologies, NETWORKS, "topologies")
    traffics = _choose(traffic, TRAFFICS, "traffic")
    if host_port not in ("shared", "separate"):
        raise ParameterError(f"host_port must be 'shared' or 'separate', got {host_port!r}")
    if routing not in ("escape", "min"):
        raise ParameterError(f"routing must be 'escape' or 'min', got {routing!r}")
    shared = any(NETWORKS[k][3] == "shared" for k in keys)
    esc = sorted({escape_routing_of(NETWORKS[k][1]) for k in keys})
    check(simulator, "layout-sim", routings=esc if routing == "escape" else ["nr"],
          traffics=["rotate" if t == "transpose" and shared and host_port == "separate" else t for t in traffics],
          hosts=(256 if host_port == "shared" else 256 * HOSTS) if shared else None,
          alternative="--routing min (the minimal tables alone) or --simulator reference")
    if not (0 < low < high) or not tolerance > 0 or not points >= 0 or not 0 < similar < 1:
        raise ParameterError(f"need 0 < low < high, tolerance > 0, points >= 0 and 0 < similar < 1; got "
                             f"low={low}, high={high}, tolerance={tolerance}, points={points}, "
                             f"similar={similar}")
    wall0 = time.perf_counter()
    rows = []
    simulated = reused = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(results) if results else Path(tmp) / "layout_sim.csv"
        with Progress(total=len(keys) * len(traffics), desc="layout-sim", log_steps=True) as bar:
            for key in keys:
                label, _, _, hosts = NETWORKS[key]
                topology, rt = build(key, seed, host_port, routing)
                scale = HOSTS if hosts == "shared" and host_port == "shared" else 1
                config = dict(SIM_CONFIG, max_samples=max_samples)
                for tr in traffics:
                    bar.status(f"{label} {tr}")
                    t0 = time.perf_counter()
                    pattern = "rotate" if tr == "transpose" and hosts == "shared" and host_port == "separate" else tr
                    res = backend_sweep(simulator, rt, out, low=low * scale, high=high * scale,
                                        tolerance=tolerance * scale, seed=sim_seed, traffic=pattern,
                                        load_unit="gbps", self_packets=False, raw_dir=raw_dir_for(results, tmp),
                                        **config)
                    simulated += res.simulated
                    reused += res.reused
                    rows.append({
                        "key": key, "topology": label, "traffic": tr, "pattern": pattern,
                        "switches": topology.num_switches, "hosts": int(topology.num_hosts) * scale,
                        "links": topology.num_links,
                        "routing": "escape-dor" if getattr(rt, "escape_paths", "") == "dor" else rt.algorithm,
                        "shortcut_hops": (round(shortcut_hops(topology), 1)
                                          if NETWORKS[key][1] in ("ring", "nbr", "gau") else math.nan),
                        **sweep_columns(res, scale),
                        "seconds": round(time.perf_counter() - t0, 1),
                    })
                    bar.update()
    table = pd.DataFrame(rows)
    if (table["pattern"] == table["traffic"]).all():
        table = table.drop(columns=["pattern"])
    if not any(NETWORKS[k][1] in ("nbr", "gau") for k in keys):  # Figs. 13 and 16 only
        table = table.drop(columns=["shortcut_hops"])
    if set(FIG16) <= set(keys):
        from .layout_figs import fig16_table

        cab = fig16_table((seed,), int(anneal_iterations))
        cab = cab[cab["layout"] != "sequential+SA"].set_index("topology")["cable_avg"]
        table["cable_avg_m"] = [float(cab[t]) if t in cab.index else math.nan for t in table["topology"]]
    claims = _claims(table, points, similar)
    wall = time.perf_counter() - wall0
    held = int((claims["verdict"] == "holds").sum())
    judged = int(claims["verdict"].isin(("holds", "differs")).sum())
    unmeasured_n = int((claims["verdict"] == "not measured").sum())
    notes = [
        f"Ran {len(keys)} networks x {len(traffics)} traffic(s): {simulated} simulations ({reused} "
        f"reused) in {wall:.0f} s; bisection between {low:g} and {high:g} Gbit/s/host to "
        f"{tolerance:g}; topology seed {seed}, simulation seed {sim_seed}.",
        "Model (III-C1 + our choices): 100 ns switches -> 38 cycles, 20 ns links -> 8 cycles, "
        "virtual cut-through, 4 VCs x 66 flits, 33-flit packets of 256 bits, 96 Gbit/s; direct "
        + ("networks: 8 hosts per switch sharing one 96 Gbit/s port (patterns on switch ids), "
           if host_port == "shared" else
           "networks: 8 hosts per switch with a 96 Gbit/s port each (patterns on the 2,048 host ids; "
           "transpose = shift by 5 of 11 bits), ")
        + ("Duato's protocol as the paper: minimal adaptive routing with dimension-order escape paths on "
           "HYPERCUBE and TORUS-4 (two dateline escape VCs on the torus, one on the hypercube), an up*/down* "
           "escape VC on the others" if routing == "escape" else "minimal NR tables alone (--routing min)")
        + "; Myrinet-Clos: its 256 hosts, the same routing (the paper: up*/down*).",
        f"Claims of the paper: {held} of {judged} hold (a percentage within {points:g} points)"
        + (f"; {unmeasured_n} not measured (a claim about several networks is judged only when "
           "all of them ran)." if unmeasured_n else "."),
    ] + backend_notes(simulator)
    if routing == "min":
        notes.append("Routing 'min': the minimal NR tables alone, every hop free to use the 4 VCs "
                     "(no escape VC; a deadlock counts as saturation, `limit` says which).")
    return ExperimentResult(
        title="Koibuchi et al. III-C, IV-B3, V (Figs. 6, 8, 13, 16): 256-switch direct topologies, "
              f"80-switch Myrinet-Clos, {simulator} simulator",
        table=table.drop(columns=["key"]),
        notes=notes,
        extra_tables={"claims": claims},
    )


# =============================================================================== Figs. 5-8 and 13 as a study
#: the figures' panels by traffic (Figs. 5-7: three patterns; Figs. 8 and 13: uniform and
#: matrix transpose, bit reversal "omitted": similar / "virtually identical" to uniform)
STUDY_TRAFFICS = {"5": TRAFFICS, "6": TRAFFICS, "7": TRAFFICS, "8": ("uniform", "transpose"),
                  "13": ("uniform", "transpose")}
_LETTER = {"uniform": "a", "transpose": "b", "bitrev": "c"}
#: Gbit/s per host of one flit per simulated host: the direct networks' shared 96 Gbit/s
#: port of 8 hosts; Myrinet-Clos simulates its hosts, each with a 96 Gbit/s channel
GBPS_SHARED, GBPS_OWN = 96.0 / HOSTS, 96.0
#: III-C1 as an experiment (the bisection mode's model, module docs)
FULL_MEASURE = {"packet_size": 33, "num_vcs": 4, "vc_buf_size": 66, "flit_bits": 256, "clock_ns": 256 / 96,
                "link_latency": 8, "credit_delay": 0, "latency_thres": 2000.0,
                "warmup_periods": 3, "sample_period": 1000, "max_samples": 10}
QUICK_MEASURE = dict(FULL_MEASURE, warmup_periods=1, sample_period=500, max_samples=4)
STUDY_REFERENCE = {"internal_speedup": 1.0, "routing_base": "nr", "router_delay": 38, "self_packets": False}
#: loads below saturation per curve (:func:`~topogen.reproduce.study.knee_sweep`): full, quick
SWEEP_POINTS = {"full": 10, "quick": 8}
#: full-size curves measured on their own (``--full --topologies KEY --traffic T --workers
#: 1``, 2026-11-29, the shared 2-core machine): key, traffic, CPU seconds of the
#: simulations (the process's CPU time less the 1.8 s of a ``--collect`` of the same curve:
#: start-up, claims and figure)
MEASURED_CURVES = (("hypercube-64", "transpose", 1.31), ("clos-512", "uniform", 5.34),
                   ("hypercube-512", "uniform", 3.29), ("p-hypercube-512", "uniform", 3.15),
                   ("pf-hypercube-512", "uniform", 6.51), ("ring9-512", "uniform", 2.90))
#: CPU seconds per packet-hop of the escape routing on this setup, for the estimate
#: printed before a run: the measured CPU of :data:`MEASURED_CURVES` over the plan's
#: packet-hops of the same curves (22.4 s over 18.1 million: 1.24e-6; per curve 0.75e-6
#: on the 512-switch HYPERCUBE to 3.3e-6 on the 64-switch one, whose simulations are
#: short enough for their fixed costs to count).  The first run on a machine also
#: compiles the simulator's engine (about 50 s of CPU, once).
CPU_SECONDS_PER_PACKET_HOP = {"*": 1.3e-6, "escape": 1.3e-6, "escape-dor": 1.3e-6}


def study_networks(mode: str) -> dict:
    """The networks of the study: key -> (label, generator, parameters, figure, hosts).
    ``quick``: Fig. 6 (256 switches) and the 80-switch Myrinet-Clos of Fig. 8 (what the
    bisection mode runs); ``full``: also Figs. 5 (64 switches, 8 per cabinet) and 7 (512),
    the 160-switch Myrinet-Clos and the constrained shortcuts of Fig. 13."""
    nets = {}
    fig6 = ["hypercube", "p-hypercube", "pf-hypercube", "ring8", "torus4", "p-torus4", "pf-torus4", "ring4"]
    for k in fig6:
        label, gen, params, _ = NETWORKS[k]
        nets[f"{k}-256"] = (label, gen, dict(params, hosts_per_switch=1), "6", "shared")
    for k, n in (("clos", 256), ("pf-clos", 256)) + ((("clos", 512), ("pf-clos", 512)) if mode == "full" else ()):
        label, gen, _, _ = NETWORKS[k]
        nets[f"{k}-{n}"] = (f"{label} {n // 256 * 80}", gen, {"hosts": n}, "8", "own")
    if mode == "full":
        for n, dim, z in ((64, 6, 8), (512, 9, 16)):
            fig = "5" if n == 64 else "7"
            nets[f"hypercube-{n}"] = ("HYPERCUBE", "hypercube", {"dimension": dim, "hosts_per_switch": 1}, fig,
                                      "shared")
            for k, gen in (("p-hypercube", "p-hypercube"), ("pf-hypercube", "pf-hypercube")):
                nets[f"{k}-{n}"] = (NETWORKS[k][0], gen, {"dimension": dim, "switches_per_cabinet": z,
                                                          "hosts_per_switch": 1}, fig, "shared")
            nets[f"ring{dim}-{n}"] = (f"RING-{dim}", "ring", {"num_switches": n, "degree": dim,
                                                              "hosts_per_switch": 1}, fig, "shared")
        for k in FIG13:
            label, gen, params, _ = NETWORKS[k]
            nets[f"{k}-256"] = (label, gen, dict(params, hosts_per_switch=1), "13", "shared")
    return nets


#: ``host_port="separate"`` in the study: the knee bisected to this fraction of a host's own
#: 96 Gbit/s port (0.24 Gbit/s/host, the shared port's 0.02 of 12), from this lowest load
#: (0.12 Gbit/s/host, as the shared port's 0.01)
HOST_TOLERANCE, HOST_LOW = 0.0025, 0.00125
#: a port per host: the paper's 12 Gbit/s per host as a fraction of the host's 96 Gbit/s port,
#: the throughput at which the claims cap a direct network (:func:`study_claims`)
HOST_CAP = GBPS_SHARED / GBPS_OWN
#: where a plan assumes a direct network's curve saturates with a port per host (about the
#: shared port's 12 Gbit/s/host), for the estimate only
HOST_KNEE = 0.15


def study_of(mode: str, traffics=tuple(TRAFFICS), keys=None, seed: int = 1, host_port: str = "shared"):
    """Figs. 5-8 and 13 as a :class:`~topogen.reproduce.study.Study` (networks of
    :func:`study_networks`, or those of ``keys``): one curve per network and traffic of
    ``traffics`` that its figure has, the paper's escape routing (minimal adaptive with
    dimension-order escape paths on the hypercubes and tori, ``escape-dor``, an up*/down*
    escape VC on the others, ``escape``: :func:`escape_routing_of`), 38-cycle switches,
    8-cycle links; RING-8's curves are drawn in
    Fig. 13's panels too.  ``full``: 3 warm-up and at most 10 sample periods of 1,000
    cycles, 10 loads below saturation; ``quick``: 1 warm-up and at most 4 periods of 500
    cycles, 8 loads.  Knees resolved to 0.02 (0.24 Gbit/s/host on the direct networks).

    ``host_port="separate"``: the direct networks simulate their 8 hosts per switch, each
    with its own 96 Gbit/s port, and the patterns run on host ids (matrix transpose as
    ``rotate``, the bisection mode's ``--host_port separate``); a load of 1 is then
    96 Gbit/s per host, so the sweep starts at :data:`HOST_LOW` and bisects the knee to
    :data:`HOST_TOLERANCE` (the same 0.24 Gbit/s/host).  The study is named
    ``layout-figs-MODE-hosts``."""
    from .study import Curve, Network, Study, knee_sweep

    if mode not in ("full", "quick"):
        raise ParameterError(f"mode must be full or quick, got {mode!r}")
    if host_port not in ("shared", "separate"):
        raise ParameterError(f"host_port must be 'shared' or 'separate', got {host_port!r}")
    separate = host_port == "separate"
    allnets = study_networks(mode)
    keys = list(allnets) if keys is None else list(keys)
    for k in keys:
        if k not in allnets:
            raise ParameterError(f"layout-sim --{mode} has no network {k!r}; its networks are "
                                 + ", ".join(allnets))

    def params(k):
        own = allnets[k][4] == "own"
        return dict(allnets[k][2]) if own or not separate else dict(allnets[k][2], hosts_per_switch=HOSTS)

    nets = {k: Network(k, allnets[k][1], params(k), allnets[k][0]) for k in keys}
    curves, knees = [], {}
    for k in keys:
        label, _, _, fig, hosts = allnets[k]
        for t in traffics:
            if t not in STUDY_TRAFFICS[fig]:
                continue
            also = (f"13{_LETTER[t]}",) if (k == "ring8-256" and mode == "full" and t in STUDY_TRAFFICS["13"]
                                            and any(allnets[j][3] == "13" for j in keys)) else ()
            pattern = "rotate" if separate and hosts == "shared" and t == "transpose" else t
            curves.append(Curve(label, k, escape_routing_of(allnets[k][1]), pattern, f"{fig}{_LETTER[t]}",
                                also))
            if separate and hosts == "shared":
                knees[label, f"{fig}{_LETTER[t]}"] = HOST_KNEE
    if not curves:
        raise ParameterError("no curve: the figures of these networks have none of these traffics")
    sweep = knee_sweep(SWEEP_POINTS["full" if mode == "full" else "quick"])
    if separate:
        sweep.update(low=HOST_LOW, tolerance=HOST_TOLERANCE)
    return Study(name=f"layout-figs-{mode}" + ("-hosts" if separate else ""), networks=nets, curves=curves,
                 measure=dict(FULL_MEASURE if mode == "full" else QUICK_MEASURE),
                 reference=dict(STUDY_REFERENCE), sweep=sweep, seed=seed, knees=knees,
                 description=f"layout-conscious random topologies (Koibuchi et al.) Figs. 5-8, 13, {mode}"
                 + (", a port per host, patterns on host ids" if separate else ""))


def study_claims(study, points: float = 5.0, similar: float = 0.25):
    """The statements of III-C2 and IV-B3 as :class:`~topogen.reproduce.study.Claim`
    objects over the curves ``study`` has: latencies at the lowest load (a printed
    percentage holds within ``points`` percentage points), throughputs on resolved
    knees (a network that sustains the whole port counts at it; "similar" / "the same"
    = within ``similar``).  With a port per host (``host_port="separate"``) a direct
    network's throughput counts at most :data:`HOST_CAP` (12 Gbit/s per host, the paper's
    injection limit; the sweep itself goes on to the host port's 96 Gbit/s)."""
    from .study import KNEE_RESOLUTION
    from .study import Claim

    EPS = min(KNEE_RESOLUTION, float(study.sweep.get("tolerance", KNEE_RESOLUTION)))  # the knee's resolution

    have = {}
    for c in study.curves:
        for p in (c.panel, *c.also):
            have[c.network, p] = (c.label, p)
    claims = []

    def add(text, panel, paper, tolerance, keys, check, saturation):
        ck = [have.get((k, p)) for k, p in keys]
        if all(ck):
            claims.append(Claim(text, panel, paper, tolerance, tuple(ck), check, saturation, capped=True))

    def lat(res, k, p):
        return res[have[k, p]].latency_at_lowest() * 256 / 96

    # a port per host (``-hosts``): the paper's hosts inject at most 12 Gbit/s each ("the maximum
    # accepted traffic per host can be 12 Gbps"), the shared port's whole bandwidth; a direct
    # network that sustains more counts at that cap, as a curve sustaining the shared port does
    cap = HOST_CAP if study.name.endswith("-hosts") else math.inf

    def sat(res, k, p):
        x = res[have[k, p]].sustained
        return x if k.startswith(("clos-", "pf-clos-")) else min(x, cap)

    def pct(res, a, b, p):
        return 100.0 * (1.0 - lat(res, a, p) / lat(res, b, p))

    for t, letter in _LETTER.items():
        # ---- Figs. 5-7: hypercube versions and RING-n at 64, 256, 512 switches
        for fig, n, dim in (("5", 64, 6), ("6", 256, 8), ("7", 512, 9)):
            p = f"{fig}{letter}"
            hc, ph, pf, ring = (f"hypercube-{n}", f"p-hypercube-{n}", f"pf-hypercube-{n}", f"ring{dim}-{n}")
            cubes = [hc, ph, pf]

            def ring_best(res, p=p, cubes=cubes, ring=ring):
                lr, sr = lat(res, ring, p), sat(res, ring, p)
                ok = all(lr < lat(res, k, p) for k in cubes) and all(sr >= sat(res, k, p) - EPS for k in cubes)
                return (f"RING latency {lr:.0f} ns vs " + ", ".join(f"{lat(res, k, p):.0f}" for k in cubes)
                        + f"; saturation {sr:.3g} vs " + ", ".join(f"{sat(res, k, p):.3g}" for k in cubes), ok,
                        "" if ok else "a hypercube version has lower latency or higher throughput")
            add(f"RING-{dim} better than all HYPERCUBE versions in latency and throughput ({n} switches)", p,
                "RING lower latency, >= throughput", f"{EPS:g} load", [(k, p) for k in cubes + [ring]],
                ring_best, True)

            def pf_worse(res, p=p, pf=pf, ph=ph):
                a, b = lat(res, pf, p), lat(res, ph, p)
                return f"{a:.0f} vs {b:.0f} ns", a > b, "" if a > b else "PF-HYPERCUBE is not slower"
            add(f"PF-HYPERCUBE inferior to P-HYPERCUBE (latency, {n} switches)", p, "higher", "none",
                [(pf, p), (ph, p)], pf_worse, False)

            def similar_sat(res, p=p, ks=cubes + [ring]):
                v = [sat(res, k, p) for k in ks]
                ok = min(v) >= (1 - similar) * max(v)
                return ", ".join(f"{x:.3g}" for x in v), ok, "" if ok else f"lowest below {1 - similar:.0%} of highest"
            add(f"hypercube versions and RING-{dim} achieve similar throughput ({n} switches)", p, "similar",
                f"within {similar:.0%}", [(k, p) for k in cubes + [ring]], similar_sat, True)
        p = f"6{letter}"
        for claim, tr, a, b, paper in LOWER_BY:
            if tr is not None and tr != t:
                continue

            def lower(res, a=f"{a}-256", b=f"{b}-256", p=p, paper=paper):
                v = pct(res, a, b, p)
                ok = abs(v - paper) <= points
                return f"{v:.1f} %", ok, "" if ok else f"{v - paper:+.1f} points from {paper:.1f} %"
            add(claim + " (256 switches)", p, f"{paper:.1f} %", f"+-{points:g} points",
                [(f"{a}-256", p), (f"{b}-256", p)], lower, False)
        order = ["torus4-256", "pf-torus4-256", "p-torus4-256", "ring4-256"]

        def sat_order(res, p=p):
            v = [sat(res, k, p) for k in order]
            ok = all(x <= y + EPS for x, y in zip(v, v[1:]))
            return " <= ".join(f"{x:.3g}" for x in v), ok, "" if ok else "not in increasing order"
        add("saturation reached first by TORUS-4, then PF-TORUS-4, P-TORUS-4, RING-4", p, "increasing",
            f"{EPS:g} load", [(k, p) for k in order], sat_order, True)

        def torus_out(res, p=p):
            lt = lat(res, "torus4-256", p)
            ok = all(lt > lat(res, k, p) for k in order[1:])
            return f"TORUS-4 {lt:.0f} ns vs " + ", ".join(f"{lat(res, k, p):.0f}" for k in order[1:]), ok, \
                "" if ok else "a random topology is slower"
        add("TORUS-4 widely outperformed by same-degree random topologies (latency)", p, "higher", "none",
            [(k, p) for k in order], torus_out, False)
        # ---- the advantage of randomness grows with the size (Figs. 5, 6, 7)
        sizes = (("5", 64, 6), ("6", 256, 8), ("7", 512, 9))
        for what in ("ring", "p-hypercube"):
            def grows(res, what=what, letter=letter):
                v = [pct(res, f"ring{d}-{n}" if what == "ring" else f"p-hypercube-{n}", f"hypercube-{n}",
                         f"{f}{letter}") for f, n, d in sizes]
                ok = v[0] < v[1] < v[2]
                return " < ".join(f"{x:.1f} %" for x in v), ok, "" if ok else "does not grow with the size"
            keys = [(f"ring{d}-{n}" if what == "ring" else f"p-hypercube-{n}", f"{f}{letter}") for f, n, d in sizes] \
                + [(f"hypercube-{n}", f"{f}{letter}") for f, n, _ in sizes]
            add(f"the advantage of {'RING-n' if what == 'ring' else 'P-HYPERCUBE'} over HYPERCUBE (latency) "
                "increases with the size (64, 256, 512)", f"5-7{letter}", "increasing", "none", keys, grows, False)
        # ---- Fig. 8: Myrinet-Clos, original and permuted
        p = f"8{letter}"
        for n in (256, 512):
            a, b = f"pf-clos-{n}", f"clos-{n}"

            def clos_lat(res, a=a, b=b, p=p):
                v = pct(res, a, b, p)
                ok = 0 < v <= 23.4 + points
                return f"{v:.1f} %", ok, "" if ok else "not lower by 0-23.4 %"
            add(f"permuted Myrinet-Clos ({n // 256 * 80} switches): latency lower (up to 23.4 %)", p,
                "> 0, <= 23.4 %", f"+{points:g} points", [(a, p), (b, p)], clos_lat, False)

            def clos_sat(res, a=a, b=b, p=p):
                x, y = sat(res, a, p), sat(res, b, p)
                ok = abs(x / y - 1) <= similar
                return f"{x:.3g} vs {y:.3g}", ok, "" if ok else f"more than {similar:.0%} apart"
            add(f"permuted Myrinet-Clos ({n // 256 * 80} switches): sensibly the same throughput", p, "same",
                f"within {similar:.0%}", [(a, p), (b, p)], clos_sat, True)
        # ---- Fig. 13: constrained shortcuts
        p = f"13{letter}"
        f13 = ["ring8-256"] + [f"{k}-256" for k in FIG13]
        if t == "uniform":
            def same(res, p=p):
                s_ = [sat(res, k, p) for k in f13]
                l_ = [lat(res, k, p) for k in f13]
                ok = min(s_) >= (1 - similar) * max(s_) and min(l_) >= (1 - similar) * max(l_)
                return (f"latency {min(l_):.0f}-{max(l_):.0f} ns, saturation {min(s_):.3g}-{max(s_):.3g}", ok,
                        "" if ok else f"not within {similar:.0%}")
            add("Fig. 13, uniform: RING-8, Nbr and Gau lead to sensibly the same results", p, "same",
                f"within {similar:.0%}", [(k, p) for k in f13], same, True)
        if t == "transpose":
            weak = ["nbr04-256", "gau07-256"]

            def drops(res, p=p, weak=weak):
                strong = [k for k in f13 if k not in weak]
                w = max(sat(res, k, p) for k in weak)
                s_ = min(sat(res, k, p) for k in strong)
                ok = w < (1 - similar) * s_
                return ", ".join(f"{k[:-4]} {sat(res, k, p):.3g}" for k in f13), ok, \
                    "" if ok else f"Nbr(0.4)/Gau(0.7) not {similar:.0%} below the others"
            add("Fig. 13, transpose: throughput decreases significantly for Nbr(0.4)-8 and Gau(0.7)-8", p,
                "lower", f"{similar:.0%}", [(k, p) for k in f13], drops, True)
    return claims


#: the study's figures (``--figures``) and the switch counts of their networks (``--sizes``)
STUDY_FIGURES = ("5", "6", "7", "8", "13")


def network_switches(key: str, net: tuple) -> int:
    """Switches of a study network (``study_networks`` entry): the direct networks' size is
    their key's suffix; a Myrinet-Clos of H hosts has 80 switches per 256 hosts."""
    if net[4] == "own":
        return int(net[2]["hosts"]) // 256 * 80
    return int(key.rsplit("-", 1)[1])


def _numbers(text, what: str, allowed) -> list:
    """A comma-separated list of ``allowed`` values (as text); empty: none chosen."""
    items = [x.strip() for x in str(text or "").split(",") if x.strip()]
    bad = [x for x in items if x not in allowed]
    if bad:
        raise ParameterError(f"--{what} takes a comma-separated list of {', '.join(allowed)}; got "
                             + ", ".join(repr(x) for x in bad))
    return items


def select_networks(mode: str, topologies: str = "default", figures: str = "", sizes: str = "") -> list | None:
    """The study networks a run takes: ``topologies`` (``default``: every network of the
    mode, or a list of keys), narrowed to the figures ``figures`` (``5,8``: Fig. 5's
    64-switch networks and Fig. 8's Myrinet-Clos) and the switch counts ``sizes`` (``64``,
    ``80``, ``160``, ``256``, ``512``).  None: the whole mode (nothing narrowed)."""
    nets = study_networks(mode)
    figs = _numbers(figures, "figures", STUDY_FIGURES)
    all_sizes = sorted({network_switches(k, v) for k, v in study_networks("full").items()})
    sz = [int(x) for x in _numbers(sizes, "sizes", [str(n) for n in all_sizes])]
    which = (topologies or "default").strip()
    if which == "default" and not figs and not sz:
        return None
    keys = list(nets) if which == "default" else [k.strip() for k in which.split(",") if k.strip()]
    for k in keys:
        if k not in nets:
            raise ParameterError(f"layout-sim --{mode} has no network {k!r}; its networks are " + ", ".join(nets))
    if figs:
        keys = [k for k in keys if nets[k][3] in figs]
    if sz:
        keys = [k for k in keys if network_switches(k, nets[k]) in sz]
    if not keys:
        full = study_networks("full")
        hint = (" (Figs. 5, 7, 13 and the 160-switch Clos are --full's)" if mode == "quick" and any(
            (not figs or v[3] in figs) and (not sz or network_switches(k, v) in sz) for k, v in full.items()) else "")
        raise ParameterError(f"layout-sim --{mode}: no network of --topologies {which}"
                             + (f", --figures {figures}" if figs else "") + (f", --sizes {sizes}" if sz else "")
                             + hint + "; --plan lists the networks")
    return keys


def _expanded(kwargs):
    from .study import expand

    quick, full = kwargs.get("quick", False), kwargs.get("full", False)
    if quick == full:
        raise ParameterError("give exactly one of --quick (Fig. 6 and the 80-switch Myrinet-Clos, a short "
                             "measurement) and --full (Figs. 5-8 and 13 at 64, 256 and 512 switches, the 80- and "
                             "160-switch Clos, the full measurement)")
    mode = "full" if full else "quick"
    trs = _choose(kwargs.get("traffic") or "uniform", TRAFFICS, "traffic")
    keys = select_networks(mode, kwargs.get("topologies") or "default", kwargs.get("figures") or "",
                           kwargs.get("sizes") or "")
    study = study_of(mode, trs, keys, seed=int(kwargs.get("seed", 1)), host_port=kwargs.get("host_port") or "shared")
    return study, expand(study, kwargs.get("out") or f"layout-sim-{mode}")


def _announce(**kwargs) -> str | None:
    """What a run will do, printed before it starts (:func:`topogen.reproduce.study.announce`)."""
    from .study import announce

    return announce(kwargs, _expanded, CPU_SECONDS_PER_PACKET_HOP)


def _study_run(**kwargs):
    """Figs. 5-8 and 13 as an experiment (``--quick``/``--full``; see :func:`study_of`)."""
    from .study import reference_study_run

    def draw(study):
        separate = study.name.endswith("-hosts")  # a port per host: load 1 = 96 Gbit/s per host
        panels = sorted(dict.fromkeys(p for c in study.curves for p in (c.panel, *c.also)),
                        key=lambda p: (int(p.rstrip("abc")), p))  # in the paper's order
        return dict(panels=panels, titles={p: f"Fig. {p}" for p in panels},
                    dashed=lambda label: label.startswith(("P-", "PF-", "RING", "Nbr", "Gau")),
                    x_scale={p: GBPS_OWN if p.startswith("8") or separate else GBPS_SHARED for p in panels},
                    x_max={p: 32.0 for p in panels if separate and not p.startswith("8")},
                    x_label="accepted traffic (Gbit/s/host)", y_scale=256 / 96, y_label="latency (ns)", y_max=3000.0,
                    suptitle="Koibuchi et al.: latency vs accepted traffic")

    return reference_study_run(
        kwargs, _expanded, lambda study: study_claims(study, kwargs.get("points", 5.0), kwargs.get("similar", 0.25)),
        title="Koibuchi et al. Figs. 5-8, 13 as experiment {name}", figure="figs.png",
        refusal="--quick/--full run on the reference simulator (the escape routing runs nowhere else); the "
                "BookSim/SST comparison is the bisection mode's --routing min --simulator ...",
        seconds_per_hop=CPU_SECONDS_PER_PACKET_HOP, draw=draw,
        notes=lambda study: [
            "Setup (III-C1): 100 ns switches -> 38 cycles, 20 ns links -> 8 cycles, virtual cut-through, 4 VCs x "
            "66 flits, 33-flit packets of 256 bits; Duato's protocol as the paper: minimal adaptive routing with "
            "dimension-order escape paths on the hypercubes and tori (escape-dor), an up*/down* escape VC on the "
            "permuted, RING and Myrinet-Clos networks (escape; the paper: up*/down* on Myrinet-Clos); direct networks: "
            + ("8 hosts per switch, each with its own 96 Gbit/s port (load 1 = 96 Gbit/s/host), patterns on host "
               "ids (transpose as rotate); the claims count a throughput above 12 Gbit/s/host (the paper's "
               "injection limit) as 12; " if study.name.endswith("-hosts") else
               "8 hosts per switch sharing one simulated 96 Gbit/s port (load 1 = 12 Gbit/s/host), patterns on "
               "switch ids; ")
            + "Myrinet-Clos: its hosts, a 96 Gbit/s channel each."])


reproduce_layout_sim.announce = _announce
