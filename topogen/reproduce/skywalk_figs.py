"""``topogen reproduce skywalk-sweeps --figure N``: the graph-analysis figures of Skywalk
(Fujiwara, Koibuchi, Matsutani, Casanova, IPDPS 2014), Figs. 1, 3, 5, 6, 7, 9 and 10.

Every point is the maximum and the average end-to-end latency over all ordered pairs of
distinct switches on the paper's floor (III-A: x = ceil(sqrt c) rows of cabinets 0.6 m
wide and 2.1 m deep, 2 m intra-cabinet cables, Manhattan distance + 4 m between cabinets,
5 ns/m, 300 ns injection + reception, the switch delay paid at each of the hops + 1
switches), computed exactly by :func:`topogen.metrics.latency_stats`.  Fig. 1 uses
Nearest Routing (fewest hops, the lowest-latency one among them), all others Fastest
Routing.  Random and Skywalk are built as the paper does (best of 10 instances, II-C)
from ``seeds`` independent seeds; the tables give the mean over the seeds and the spread
(``*_range`` = max - min over seeds), and a claim is only called a difference when the
paper's value lies outside that spread.

What the figures plot (read from the text, the figures themselves print no numbers):

=====  ===============================================================================
Fig.   content
=====  ===============================================================================
1      NR max latency vs switch delay; Hypercube(2048, 11), Torus(8, 256, 6) and two
       Random(2048, d) (the text does not give d: ``random_degrees``, default 6 and 11,
       the torus' and the hypercube's degrees).
3      FR max/avg latency vs total cable, Skywalk(8, c, 7, d_o), c in {64, 256, 1024},
       d_o = min(d_smax, d_dmax), (d_s, d_d) from (d_o, 0) to (0, d_o).  d_i = 7 is our
       reading ("8 switches per cabinet"; the paper does not print d_i), and so is the
       60 ns switch delay (``switch_delay``; Fig. 3 precedes III-B's 60 ns).  (d_o, 0)
       cannot fill its ports: x + y - 2 straight partners for z * d_smax ports, 14 for
       16 at c = 64, 62 for 64 at c = 1,024, so (d_o - 1, 1) has 14 % / 3 % more
       inter-cabinet links (``inter_links``); the average gap grows with the switch delay.
5      FR max/avg latency vs switch delay for the six 2,048-switch networks of III-B.
6      FR latency vs degree at 60 ns: Skywalk d_i in {1, 4, 7} x d_o in {1, 2, 4, 6, 8,
       12, 16, 20, 24, 28}, Random d in {4, ..., 39}, and the four fixed-degree networks.
7      FR latency vs N (z = 8, N = 128 .. 8,192): Torus (degree 6, where c is a square),
       Hypercube, Dragonfly, HyperX (where c fills the grid) and Skywalk of degree 8, 16,
       32, 64, 128 (d_i = 7, d_o = degree - 7, as in III-D's degree-16 network).
9      FR latency vs z at N = 2,048 for Skywalk of degree 8, 16 and 32.  The paper does
       not say how the degree is split; we put half inside, d_i = min(z - 1, ceil(d / 2)),
       the rest outside as far as the grid allows, and leftovers inside (d_o = 0 with a
       single cabinet).
10     FR latency vs total cable, Skywalk(8, 256, 7, d_o), d_o in {4, 6, 8, 12, 16, 20,
       24, 28}, cable bound r in {0.4, 0.5, 0.6, 0.7, 1.0}.
=====  ===============================================================================

Sizes: every figure runs at the paper's sizes except Fig. 3 (c = 1,024 needs ``--full``),
Fig. 7 (N = 4,096 and 8,192 need ``--full``) and Fig. 9 (z = 1,024 and 2,048, two cabinets
and one, whose 2,048-switch intra-cabinet Uniform Random takes 4-7 s per instance, need
``--full``); the claims that need those points say so.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd

from .. import registry
from .._rng import child_seeds, resolve_seed
from .._validate import check_float, check_int
from ..errors import ParameterError, TopologyError
from ..layout import Floor, place
from ..registry import register_experiment
from . import _figs_common as fc
from ._base import ExperimentResult

FIGURES = (1, 3, 5, 6, 7, 9, 10)
DELAYS = (10.0, 20.0, 40.0, 60.0, 80.0, 100.0, 150.0, 200.0, 300.0, 400.0, 500.0)
Z, C = 8, 256
VALUES = ["max_ns", "avg_ns", "avg_hops", "max_hops", "cable_km", "degree", "inter_links"]

# (label, registry name, parameters) of the fixed networks of III-A at z = 8, c = 256
FIXED = {
    "torus": ("Torus(8,256,6)", "cabinet-torus", dict(degree=6)),
    "hypercube": ("Hypercube(2048,11)", "cabinet-hypercube", {}),
    "dragonfly": ("Dragonfly(8,256,39)", "cabinet-dragonfly", {}),
    "hyperx": ("HyperX(8,256,37)", "cabinet-hyperx", {}),
}


# ----------------------------------------------------------------------------- measuring
def _build(name: str, params: dict, seed, build: dict):
    """Build one network; ``build``: ``instances`` (random families) and Skywalk's
    ``construction``."""
    spec = registry.get(name)
    kwargs = dict(params)
    if spec.random:
        kwargs["seed"] = seed
        kwargs["instances"] = build.get("instances", 10)
    if name == "skywalk" and "construction" in build:
        kwargs["construction"] = build["construction"]
    return spec.func(**kwargs)


def _measure(net: dict, seeds: list[int], delays, routing: str, build: dict,
             nr_tie: str = "best") -> list[dict]:
    """Per-seed rows of one network (``net``: label, name, params, z, c and extra columns)
    at each switch delay.  An instance that cannot be built gives NaN rows (``error``)."""
    from ..metrics import latency_stats

    spec = registry.get(net["name"])
    rows = []
    for s in (seeds if spec.random else [None]):
        extra = {k: v for k, v in net.items() if k not in ("name", "params")}
        try:
            topology = _build(net["name"], net["params"], s, build)
        except (TopologyError, ParameterError) as exc:
            rows += [dict(extra, seed=s, switch_delay=d, error=str(exc).split(";")[0]) for d in delays]
            continue
        layout = place(topology, Floor.skywalk(net["c"], net["z"]))
        for d in delays:
            st = latency_stats(layout, switch_delay=d, routing=routing, nr_tie=nr_tie)
            rows.append(dict(extra, seed=s, switch_delay=d, max_ns=st.max, avg_ns=st.avg,
                             avg_hops=st.avg_hops, max_hops=st.max_hops,
                             cable_km=layout.total_cable_length / 1000.0,
                             degree=topology.degree, inter_links=int(np.count_nonzero(~layout.is_intra)),
                             error=""))
    return rows


def _run(nets, seeds, delays=(60.0,), routing="fr", build=None, nr_tie="best") -> pd.DataFrame:
    rows = []
    for net in nets:
        rows += _measure(net, seeds, delays, routing, build or {}, nr_tie)
    runs = pd.DataFrame(rows)
    for v in VALUES:
        if v not in runs:
            runs[v] = np.nan
    return runs


def _table(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean and spread over seeds per ``keys``, in the column order of the figures."""
    table = fc.aggregate(runs, keys, VALUES)
    order = keys + ["degree", "cable_km", "max_ns", "max_ns_range", "avg_ns", "avg_ns_range",
                    "avg_hops", "max_hops", "seeds", "built"]
    table = table[order]
    floats = ["cable_km", "max_ns", "max_ns_range", "avg_ns", "avg_ns_range", "avg_hops", "max_hops"]
    table[floats] = table[floats].round(3)
    return table


def _vals(runs: pd.DataFrame, col: str, **where) -> np.ndarray:
    """Per-seed values of ``col`` for the rows matching ``where`` (seed order)."""
    sel = runs
    for k, v in where.items():
        sel = sel[np.isclose(sel[k], v)] if isinstance(v, float) else sel[sel[k] == v]
    return sel[col].to_numpy(float)


def _sky(z, c, d_i, d_o=None, **kw) -> dict:
    params = dict(switches_per_cabinet=z, cabinets=c, intra_degree=d_i, **kw)
    if d_o is not None:
        params["inter_degree"] = d_o
    return params


def _fixed(key: str, z: int = Z, c: int = C, short: bool = False) -> dict:
    label, name, params = FIXED[key]
    if short:
        label = label.split("(")[0]
    return dict(label=label, family=key, name=name, z=z, c=c,
                params=dict(switches_per_cabinet=z, cabinets=c, **params))


def _random(d: int, n: int = Z * C, z: int = Z, c: int = C) -> dict:
    return dict(label=f"Random({n},{d})", family="random", name="random", z=z, c=c,
                params=dict(num_switches=n, degree=d))


# ----------------------------------------------------------------------------- figures
def fig1(seeds, build, delays=DELAYS, random_degrees=(6, 11), nr_tie="best"):
    """Fig. 1: NR maximum latency vs switch delay (2,048 switches, 256 cabinets)."""
    nets = [_fixed("hypercube"), _fixed("torus")] + [_random(d) for d in random_degrees]
    runs = _run(nets, seeds, delays, routing="nr", build=build, nr_tie=nr_tie)
    table = _table(runs, ["label", "switch_delay"])
    claims = []
    hc = _vals(runs, "max_ns", label="Hypercube(2048,11)")
    tor = _vals(runs, "max_ns", label="Torus(8,256,6)")
    for d in random_degrees:
        lab = f"Random(2048,{d})"
        ra = _vals(runs, "max_ns", label=lab).reshape(len(seeds), len(delays))
        low = [i for i, x in enumerate(delays) if x < 60]
        cross = [_crossing(delays, r - hc) for r in ra]
        claims.append(fc.claim_holds(
            "1", f"{lab} NR max latency above Hypercube's below 60 ns", "yes",
            [all(r[i] > hc[i] for i in low) for r in ra],
            detail="they cross at " + _fmt_ns(cross)))
        i20 = list(delays).index(20.0) if 20.0 in delays else None
        if i20 is not None:
            claims.append(fc.claim_holds(
                "1", f"{lab} NR max latency above Torus' at 20 ns", "yes",
                [r[i20] > tor[i20] for r in ra],
                detail=f"{np.mean(ra[:, i20]):.0f} vs {tor[i20]:.0f} ns"))
    notes = ["Fig. 1 does not name the two Random degrees; random_degrees (default 6, 11) "
             f"chooses them.  NR = fewest hops, ties broken by the {nr_tie} latency (nr_tie); "
             "the diameter of the legend is max_hops.  The two statements pull the degree "
             "apart: Random crosses the Hypercube near 60 ns at degree 11 but near 100 ns at "
             "degree 6, and lies above the Torus at 20 ns at degree 6 but not at 11 (docs/"
             "reproductions.md)."]
    return table, claims, notes


def _crossing(xs, diff) -> float:
    """First x where ``diff`` (a - b per x) turns from > 0 to <= 0, linearly
    interpolated; NaN if it never does, -inf if it is never positive."""
    diff = np.asarray(diff, float)
    if diff[0] <= 0:
        return -math.inf
    for i in range(1, len(xs)):
        if diff[i] <= 0:
            x0, x1, d0, d1 = xs[i - 1], xs[i], diff[i - 1], diff[i]
            return x0 + (x1 - x0) * d0 / (d0 - d1)
    return math.nan


def _fmt_ns(xs) -> str:
    xs = [x for x in xs]
    if all(math.isnan(x) for x in xs):
        return "no crossing in the sweep"
    return "/".join("never" if math.isnan(x) else "below sweep" if x == -math.inf else f"{x:.0f}"
                    for x in xs) + " ns"


def fig5(seeds, build, delays=DELAYS):
    """Fig. 5: FR maximum and average latency vs switch delay for the six networks."""
    sky = dict(label="Skywalk(8,256,7,4)", family="skywalk", name="skywalk", z=Z, c=C,
               params=_sky(Z, C, 7, 4))
    nets = [sky, _fixed("dragonfly"), _fixed("hyperx"), _fixed("hypercube"), _fixed("torus"),
            _random(11)]
    runs = _run(nets, seeds, delays, build=build)
    table = _table(runs, ["label", "switch_delay"])
    k = len(delays)

    def per_seed(label, col):
        v = _vals(runs, col, label=label)
        return v.reshape(-1, k)

    sk_max, sk_avg = per_seed(sky["label"], "max_ns"), per_seed(sky["label"], "avg_ns")
    claims = []
    below500 = [i for i, d in enumerate(delays) if d < 500]
    for lab in ("Torus(8,256,6)", "Hypercube(2048,11)", "Random(2048,11)"):
        other = per_seed(lab, "max_ns")
        held = [np.all(s[below500] < o[below500]) for s in sk_max for o in other[:1]] \
            if len(other) == 1 else [np.all(s[below500] < o[below500]) for s, o in zip(sk_max, other)]
        claims.append(fc.claim_holds("5", f"Skywalk max latency below {lab.split('(')[0]} (< 500 ns)",
                                     "yes", held))
    for lab in ("Torus(8,256,6)", "Hypercube(2048,11)"):
        other = per_seed(lab, "avg_ns")
        claims.append(fc.claim_holds("5", f"Skywalk avg latency below {lab.split('(')[0]} (all delays)",
                                     "yes", [np.all(s < other[0]) for s in sk_avg]))
    rnd = per_seed("Random(2048,11)", "avg_ns")
    cross = [_crossing(delays, r - s) for s, r in zip(sk_avg, rnd)]
    if all(math.isfinite(x) for x in cross):
        claims.append(fc.claim_value("5", "Skywalk avg below Random's up to this switch delay",
                                     200.0, cross, tol=25.0, unit=" ns"))
    else:
        claims.append(fc.claim_row("5", "Skywalk avg below Random's up to this switch delay", "200 ns",
                                   _fmt_ns(cross), "differs"))
    i60 = list(delays).index(60.0)
    # III-B: "only 19% larger than that of Dragonfly/HyperX" (max) and "only 17% larger"
    # (avg); III-E prints the HyperX max ratio separately as 17.7%, and 17% fits only
    # the Dragonfly average (HyperX: 15%), so each is checked against the network it fits.
    for lab, metric, paper in (("Dragonfly(8,256,39)", "max_ns", 19.0), ("HyperX(8,256,37)", "max_ns", 17.7),
                               ("Dragonfly(8,256,39)", "avg_ns", 17.0)):
        other = per_seed(lab, metric)[0, i60]
        mine = per_seed(sky["label"], metric)[:, i60]
        claims.append(fc.claim_value("5", f"Skywalk {metric[:3]} latency vs {lab.split('(')[0]} at 60 ns",
                                     paper, fc.pct(mine, other)))
    for lab in ("Dragonfly(8,256,39)", "HyperX(8,256,37)"):
        claims.append(fc.claim_holds("5", f"{lab.split('(')[0]} max latency below Skywalk's (all delays)",
                                     "yes", [np.all(per_seed(lab, "max_ns")[0] < s) for s in sk_max]))
    cab = {lab: _vals(runs, "cable_km", label=lab, switch_delay=delays[0]) for lab in table.label.unique()}
    for lab, paper in (("Torus(8,256,6)", 31), ("Hypercube(2048,11)", 80), ("Dragonfly(8,256,39)", 615),
                       ("HyperX(8,256,37)", 372), ("Random(2048,11)", 207), (sky["label"], 59)):
        claims.append(fc.claim_value("5", f"{lab} total cable", paper, cab[lab], tol=0.5 + 0.01 * paper,
                                     unit=" km"))
    claims.append(fc.claim_holds("5", "Random cable > 3x Skywalk's", "yes",
                                 cab["Random(2048,11)"] > 3 * cab[sky["label"]].mean(),
                                 detail=f"{cab['Random(2048,11)'].mean() / cab[sky['label']].mean():.2f}x"))
    for lab, factor in (("Dragonfly(8,256,39)", 10), ("HyperX(8,256,37)", 6)):
        ratio = cab[lab][0] / cab[sky["label"]]
        claims.append(fc.claim_holds("5", f"{lab.split('(')[0]} cable > {factor}x Skywalk's", "yes",
                                     ratio > factor, detail=f"{ratio.mean():.2f}x"))
    return table, claims, []


def fig3(seeds, build, full=False, switch_delay=60.0):
    """Fig. 3: straight/diagonal mix, Skywalk(8, c, 7, d_o), d_o = min(d_smax, d_dmax)."""
    from ..generators.skywalk import skywalk_bounds

    cabinets = (64, 256, 1024) if full else (64, 256)
    nets = []
    for c in cabinets:
        b = skywalk_bounds(Z, c)
        d_o = min(b["straight_max"], b["diagonal_max"])
        for d_d in range(d_o + 1):
            d_s = d_o - d_d
            nets.append(dict(label=f"Skywalk(8,{c},7,{d_o}) ds={d_s} dd={d_d}", family="skywalk",
                             name="skywalk", z=Z, c=c, cabinets=c, d_s=d_s, d_d=d_d,
                             params=_sky(Z, c, 7, straight_degree=d_s, diagonal_degree=d_d)))
    runs = _run(nets, seeds, delays=(float(switch_delay),), build=build)
    table = _table(runs, ["cabinets", "d_s", "d_d"])
    inter = fc.aggregate(runs, ["cabinets", "d_s", "d_d"], ["inter_links"])
    table.insert(3, "inter_links", inter["inter_links"].round(1).to_numpy())
    claims, gaps = [], {}
    for c in cabinets:
        sub = runs[runs.cabinets == c]
        d_o = int(sub.d_s.max())
        mx = {dd: _vals(sub, "max_ns", d_d=dd) for dd in range(d_o + 1)}
        av = {dd: _vals(sub, "avg_ns", d_d=dd) for dd in range(d_o + 1)}
        cab = {dd: _vals(sub, "cable_km", d_d=dd) for dd in range(d_o + 1)}
        best = [all(mx[0][i] <= mx[dd][i] for dd in mx) for i in range(len(seeds))]
        means = ", ".join(f"{np.mean(mx[dd]):.0f}" for dd in mx)
        claims.append(fc.claim_holds("3", f"c={c}: max latency lowest with only straight links",
                                     "yes", best, detail=f"mean max by d_d=0..{d_o}: {means} ns"))
        rises = [dd for dd in range(1, d_o) if np.mean(mx[dd + 1]) < np.mean(mx[dd])]
        if d_o >= 3:  # "does not increase monotonically": needs four points or more
            claims.append(fc.claim_holds("3", f"c={c}: max latency not monotonic in d_d", "yes",
                                         bool(rises), detail=f"falls after d_d = {rises}" if rises else ""))
        claims.append(fc.claim_holds("3", f"c={c}: cable grows with d_d", "yes",
                                     [all(cab[dd][i] < cab[dd + 1][i] for dd in range(d_o))
                                      for i in range(len(seeds))]))
        paper = {64: 0.50, 1024: 0.38}.get(c)
        gaps[c] = fc.pct(av[0], av[1])
        i0, i1 = (float(np.mean(_vals(sub, "inter_links", d_d=dd))) for dd in (0, 1))
        fl = Floor.skywalk(c, Z)  # a cabinet has x + y - 2 straight partners
        claims.append(fc.claim_row(
            "3", f"c={c}: (d_o,0) and (d_o-1,1) have the same number of inter-cabinet links", "(implied)",
            f"{i0:.0f} vs {i1:.0f} ({fc.pct(i1, i0):+.1f}%): {fl.rows + fl.columns - 2} straight "
            f"partners per cabinet for {Z * d_o} ports", "differs" if i1 > i0 else "agrees"))
        if paper is not None:
            claims.append(fc.claim_value("3", f"c={c}: avg latency (d_o,0) vs (d_o-1,1)", paper,
                                         gaps[c], tol=0.1))
    if not full:
        claims.append(fc.claim_row("3", "c=1024: avg latency (d_o,0) vs (d_o-1,1)", "0.38%", "-",
                                   "needs --full"))
    else:
        claims.append(fc.claim_holds("3", "that gap shrinks as the scale grows (c = 64 -> 1,024)", "yes",
                                     gaps[1024] < gaps[64],
                                     detail=f"{np.mean(gaps[64]):.2f}% -> {np.mean(gaps[1024]):.2f}%"))
    notes = [f"Fig. 3 at {switch_delay:g} ns: d_i = 7 (= z - 1) and the switch delay are our reading; "
             "the paper gives neither for Fig. 3.  (d_o,0) has fewer inter-cabinet links than "
             "(d_o-1,1) (column inter_links; straight partners run out), so the average gap measures "
             "extra links as much as diagonal ones and grows with the switch delay: at c = 64 "
             "+0.05 / +0.69 / +1.27 / +2.16% at 20 / 40 / 60 / 100 ns, at c = 1,024 -0.05 / +0.04 / "
             "+0.24% at 40 / 60 / 100 ns; no one delay gives the paper's 0.50% and 0.38% together "
             "(docs/reproductions.md)."]
    return table, claims, notes


#: Fig. 3's average-latency gaps of (d_o, 0) over (d_o - 1, 1), as printed (%)
FIG3_GAPS = {64: 0.50, 1024: 0.38}
FIG3_TOL = 0.1


def fig3_readings(seeds, instances: int = 10, cabinets=(64, 1024), delays=(20.0, 40.0, 60.0, 100.0, 150.0),
                  routings=("fr", "nr"), constructions=("saturate", "rounds")) -> pd.DataFrame:
    """Fig. 3's two gaps under every setting the paper leaves open (switch delay, routing,
    Skywalk construction): one row per setting with the gap at each c (mean over seeds)
    and whether both are within FIG3_TOL of the paper's 0.50 / 0.38 %."""
    from ..generators.skywalk import skywalk_bounds

    rows = []
    for construction in constructions:
        build = {"instances": instances, "construction": construction}
        gaps = {}
        for c in cabinets:
            b = skywalk_bounds(Z, c)
            d_o = min(b["straight_max"], b["diagonal_max"])
            nets = [dict(label=f"dd={dd}", family="skywalk", name="skywalk", z=Z, c=c, d_d=dd,
                         params=_sky(Z, c, 7, straight_degree=d_o - dd, diagonal_degree=dd)) for dd in (0, 1)]
            for routing in routings:
                runs = _run(nets, seeds, delays=delays, routing=routing, build=build)
                for d in delays:
                    a0 = _vals(runs, "avg_ns", d_d=0, switch_delay=float(d))
                    a1 = _vals(runs, "avg_ns", d_d=1, switch_delay=float(d))
                    gaps[(routing, float(d), c)] = float(np.mean(fc.pct(a0, a1)))
        for routing in routings:
            for d in delays:
                row = dict(construction=construction, routing=routing, switch_delay=float(d))
                ok = True
                for c in cabinets:
                    g = gaps[(routing, float(d), c)]
                    row[f"gap_c{c}_pct"] = round(g, 3)
                    if c in FIG3_GAPS:
                        ok = ok and abs(g - FIG3_GAPS[c]) <= FIG3_TOL
                row["both_within_0.1"] = ok
                rows.append(row)
    return pd.DataFrame(rows)


SKY_DO = (1, 2, 4, 6, 8, 12, 16, 20, 24, 28)
RANDOM_D = (4, 5, 6, 7, 9, 11, 15, 19, 23, 27, 31, 35, 39)


def fig6(seeds, build):
    """Fig. 6: FR latency vs degree at 60 ns (2,048 switches, 256 cabinets)."""
    nets = []
    for d_i in (1, 4, 7):
        for d_o in SKY_DO:
            nets.append(dict(label=f"Skywalk(8,256,{d_i},{d_o})", family=f"skywalk d_i={d_i}",
                             name="skywalk", z=Z, c=C, params=_sky(Z, C, d_i, d_o)))
    nets += [dict(_random(d), family="random") for d in RANDOM_D]
    nets += [_fixed(k) for k in ("torus", "hypercube", "dragonfly", "hyperx")]
    runs = _run(nets, seeds, build=build)
    table = _table(runs, ["family", "label"])
    claims = []

    def v(label, col="max_ns"):
        return _vals(runs, col, label=label)

    claims.append(fc.claim_value("6", "Skywalk(7,4) max latency vs Hypercube", -34.0,
                                 fc.pct(v("Skywalk(8,256,7,4)"), v("Hypercube(2048,11)"))))
    for lab, paper in (("Dragonfly(8,256,39)", 5.98), ("HyperX(8,256,37)", 4.27)):
        claims.append(fc.claim_value("6", f"Skywalk(7,12) avg latency vs {lab.split('(')[0]}", paper,
                                     fc.pct(v("Skywalk(8,256,7,12)", "avg_ns"), v(lab, "avg_ns"))))
    # Skywalk vs Random of the same degree: the Random curve (mean over seeds) read at the
    # Skywalk's degree, linearly between its degrees; "within noise" when the gap is below
    # the larger seed spread of the neighbouring points.
    rnd = table[table.family == "random"].sort_values("degree")
    sky = table[table.family.str.startswith("skywalk")].dropna(subset=["max_ns"])
    for col in ("max_ns", "avg_ns"):
        lower, noise, higher = 0, 0, []
        for _, r in sky.iterrows():
            if not rnd.degree.min() <= r.degree <= rnd.degree.max():
                continue
            ref = np.interp(r.degree, rnd.degree, rnd[col])
            spread = max(r[f"{col}_range"], np.interp(r.degree, rnd.degree, rnd[f"{col}_range"]))
            if abs(r[col] - ref) <= spread:
                noise += 1
            elif r[col] < ref:
                lower += 1
            else:
                higher.append(r.label.replace("Skywalk(8,256,", "(").replace(")", ")"))
        low_do = all(int(x.split(",")[-1].rstrip(")")) <= 2 for x in higher)
        claims.append(fc.claim_row(
            "6", f"Skywalk {col[:3]} latency below Random of the same degree, exceptions at low d_o",
            "almost always", f"{lower} lower, {noise} within seed spread, {len(higher)} higher: "
            + (", ".join(higher) or "none"), "agrees" if low_do and lower > len(higher) else "differs"))
    srt = sky.sort_values("degree")
    inv = [(a.label, b.label) for (_, a), (_, b) in zip(srt.iloc[:-1].iterrows(), srt.iloc[1:].iterrows())
           if b.degree > a.degree and b.max_ns > a.max_ns + max(a.max_ns_range, b.max_ns_range)]
    claims.append(fc.claim_holds("6", "Skywalk latency non-monotonic in degree (curves cross)", "yes",
                                 bool(inv), detail=f"{len(inv)} rises between successive degrees"))
    dfl = table.set_index("label")
    lowest = dfl.max_ns.idxmin()
    claims.append(fc.claim_holds("6", "Dragonfly has the lowest max latency", "yes",
                                 lowest == "Dragonfly(8,256,39)", detail=f"lowest: {lowest}"))
    claims.append(fc.claim_holds("6", "Dragonfly(39) max latency below Random(2048,39)'s", "yes",
                                 v("Dragonfly(8,256,39)")[0] < v("Random(2048,39)")))
    claims.append(fc.claim_holds("6", "HyperX max latency marginally above Dragonfly's", "yes",
                                 v("HyperX(8,256,37)")[0] >= v("Dragonfly(8,256,39)")[0],
                                 detail=f"{fc.pct(v('HyperX(8,256,37)'), v('Dragonfly(8,256,39)'))[0]:+.1f}%"))
    return table, claims, []


SIZES = (128, 256, 512, 1024, 2048, 4096, 8192)
SKY_DEGREES = (8, 16, 32, 64, 128)


def fig7(seeds, build, full=False):
    """Fig. 7: FR latency vs N at z = 8 (N = 128 .. 2,048; 8,192 with ``full``)."""
    from ..generators.classic import _torus_degrees
    from ..generators.skywalk import skywalk_bounds

    sizes = SIZES if full else tuple(n for n in SIZES if n <= 2048)
    nets, skipped = [], []
    for n in sizes:
        c = n // Z
        b = skywalk_bounds(Z, c)
        if 6 in _torus_degrees(c):
            nets.append(dict(_fixed("torus", Z, c, short=True), switches=n))
        else:
            skipped.append(f"Torus N={n} (c={c} is not a square)")
        nets.append(dict(_fixed("hypercube", Z, c, short=True), switches=n))
        nets.append(dict(_fixed("dragonfly", Z, c, short=True), switches=n))
        if b["rows"] * b["columns"] == c:
            nets.append(dict(_fixed("hyperx", Z, c, short=True), switches=n))
        else:
            skipped.append(f"HyperX N={n} (c={c} does not fill the {b['rows']}x{b['columns']} grid)")
        for deg in SKY_DEGREES:
            d_o = deg - 7
            if d_o > b["straight_max"] + b["diagonal_max"]:
                skipped.append(f"Skywalk degree {deg} N={n} (d_o <= {b['straight_max'] + b['diagonal_max']})")
                continue
            nets.append(dict(label=f"Skywalk deg {deg}", family="skywalk", name="skywalk", z=Z, c=c,
                             switches=n, params=_sky(Z, c, 7, d_o)))
    runs = _run(nets, seeds, build=build)
    table = _table(runs, ["label", "switches"])
    claims = []

    def v(label, n, col="max_ns"):
        return _vals(runs, col, label=label, switches=n)

    if 8192 in sizes:
        for col, paper in (("max_ns", 31.0), ("avg_ns", 18.0)):
            claims.append(fc.claim_value("7", f"degree 16: {col[:3]} latency growth 2,048 -> 8,192",
                                         paper, fc.pct(v("Skywalk deg 16", 8192, col), v("Skywalk deg 16", 2048, col))))
        claims.append(fc.claim_value("7", "degree 16 at 8,192: max latency", 1149.0,
                                     v("Skywalk deg 16", 8192), tol=15.0, unit=" ns"))
        claims.append(fc.claim_value("7", "degree 16 at 8,192: avg latency", 811.0,
                                     v("Skywalk deg 16", 8192, "avg_ns"), tol=10.0, unit=" ns"))
    else:
        for text in ("degree 16: max/avg growth 2,048 -> 8,192 (31% / 18%)",
                     "degree 16 at 8,192: 1,149 ns max, 811 ns avg",
                     "degree 64 at 8,192: <= 1.0% max, <= 2.3% avg above DF/HX"):
            claims.append(fc.claim_row("7", text, "see claim", "-", "needs --full"))
    for deg, n, pmax, pavg in ((32, 2048, 5.4, 1.3), (64, 8192, 1.0, 2.3)):
        if n not in sizes:
            continue
        # "at most x% larger than either topology": checked against each of them
        for col, paper in (("max_ns", pmax), ("avg_ns", pavg)):
            for other in ("Dragonfly", "HyperX"):
                claims.append(fc.claim_value(
                    "7", f"degree {deg} at {n:,}: {col[:3]} latency above {other}", paper,
                    fc.pct(v(f"Skywalk deg {deg}", n, col), v(other, n, col)[0]), bound="upper", tol=0.5))
    grows = []
    for lab in table.label.unique():
        t = table[table.label == lab].dropna(subset=["max_ns"]).sort_values("switches")
        grows.append(bool(np.all(np.diff(t.max_ns) >= -t.max_ns_range.iloc[1:].to_numpy())))
    claims.append(fc.claim_holds("7", "latency grows with N for every topology (max)", "yes",
                                 all(grows), detail=f"{sum(grows)}/{len(grows)} curves"))
    notes = ["Fig. 7 skipped (no such network): " + "; ".join(skipped)] if skipped else []
    return table, claims, notes


#: III-D's printed bounds for Skywalk of degree 64 at 8,192 switches: maximum, average
#: latency at most this many % above Dragonfly and HyperX
#: III-D's comparison at 8,192 switches: z = 8 cabinets of the Fig. 7 sweep, Skywalk degree
FIG7_READINGS_CABINETS = 1024
FIG7_READINGS_DEGREE = 64
FIG7_BOUNDS = {"max_ns": 1.0, "avg_ns": 2.3}
#: how far above a printed bound a value may lie and still count as meeting it (points)
FIG7_TOL = 0.5


def _fig7_reading_nets(z: int, c: int, degree: int) -> list[tuple[str, dict, str, dict]]:
    """The readings of III-D's degree-``degree`` Skywalk: (name, Skywalk parameters,
    routing, build overrides).  The first is the reproduction's own (d_i = z - 1 as in the
    III-D degree-16 network, straight links first, saturated sub-topologies, FR)."""
    from ..generators.skywalk import skywalk_bounds

    b = skywalk_bounds(z, c)
    out = []
    for d_i in sorted({z - 1, min(z - 1, 4), 1}, reverse=True):
        d_o = degree - d_i
        if d_o > b["straight_max"] + b["diagonal_max"] or d_o < 1:
            continue
        name = "d_i = %d, d_o = %d, straight first, saturate, FR" % (d_i, d_o)
        out.append((name, _sky(z, c, d_i, d_o), "fr", {}))
    d_i = z - 1
    d_o = degree - d_i
    out.append((f"d_i = {d_i}, d_o = {d_o}, construction=rounds (II-C's fixed rounds), FR",
                _sky(z, c, d_i, d_o), "fr", {"construction": "rounds"}))
    if d_o <= b["diagonal_max"]:
        out.append((f"d_i = {d_i}, d_o = {d_o}, diagonal links only (d_s = 0), saturate, FR",
                    _sky(z, c, d_i, straight_degree=0, diagonal_degree=d_o), "fr", {}))
    out.append((f"d_i = {d_i}, d_o = {d_o}, straight first, saturate, NR",
                _sky(z, c, d_i, d_o), "nr", {}))
    return out


def fig7_readings(seeds, instances: int = 10, z: int = Z, c: int = 1024, degree: int = 64,
                  scan: int = 10, switch_delay: float = 60.0) -> tuple[pd.DataFrame, dict]:
    """III-D's "Skywalk with degree 64 ... at most 1.0 % / 2.3 % larger" (maximum /
    average latency at 8,192 switches) under every reading the paper leaves open.

    One row per reading: the Skywalk's maximum and average FR (or NR) latency, mean and
    range over ``seeds`` (each the best of ``instances`` by links, II-C), and its gaps
    to Dragonfly and HyperX of the same size (deterministic networks, measured once).
    The readings: how the degree is split (d_i = z - 1, 4, 1), II-C's construction
    (saturate, rounds), the straight/diagonal split (straight first, diagonal only), the
    routing (FR, NR), and the selection of the instance (``scan`` single instances, the
    one with the lowest maximum latency kept: the most favourable instance there is).

    Returns
    -------
    (DataFrame, dict)
        The readings table and the baselines ``{"Dragonfly": (max, avg), "HyperX": ...}``.
    """
    runs = []
    base = {}
    for key in ("dragonfly", "hyperx"):
        net = dict(_fixed(key, z, c, short=True))
        rows = _measure(net, [None], (switch_delay,), "fr", {})
        base[net["label"]] = (rows[0]["max_ns"], rows[0]["avg_ns"])
    for name, params, routing, over in _fig7_reading_nets(z, c, degree):
        build = {"instances": instances, "construction": "saturate", **over}
        net = dict(label=name, name="skywalk", z=z, c=c, params=params)
        for r in _measure(net, list(seeds), (switch_delay,), routing, build):
            runs.append(dict(r, reading=name))
    # the most favourable selection: single instances, the lowest maximum kept
    d_i = z - 1
    name = (f"d_i = {d_i}, d_o = {degree - d_i}, straight first, saturate, FR, "
            f"lowest maximum of {scan} single instances")
    net = dict(label=name, name="skywalk", z=z, c=c, params=_sky(z, c, d_i, degree - d_i))
    single = _measure(net, child_seeds(resolve_seed(seeds[0]), scan), (switch_delay,), "fr",
                      {"instances": 1, "construction": "saturate"})
    best = min((r for r in single if r.get("error") == ""), key=lambda r: r["max_ns"], default=None)
    if best is not None:
        runs.append(dict(best, reading=name))
    runs = pd.DataFrame(runs)
    rows = []
    (df_max, df_avg), (hx_max, hx_avg) = base["Dragonfly"], base["HyperX"]
    for name, grp in runs.groupby("reading", sort=False):
        ok = grp[grp["error"] == ""]
        mx, av = ok.max_ns.to_numpy(float), ok.avg_ns.to_numpy(float)
        row = dict(reading=name, seeds=len(grp), built=len(ok))
        if len(ok):
            row.update(max_ns=round(float(mx.mean()), 2), max_ns_min=float(mx.min()), max_ns_max=float(mx.max()),
                       avg_ns=round(float(av.mean()), 2),
                       max_vs_df_pct=round(float(fc.pct(mx.mean(), df_max)), 2),
                       max_vs_hx_pct=round(float(fc.pct(mx.mean(), hx_max)), 2),
                       best_max_vs_df_pct=round(float(fc.pct(mx.min(), df_max)), 2),
                       best_max_vs_hx_pct=round(float(fc.pct(mx.min(), hx_max)), 2),
                       avg_vs_df_pct=round(float(fc.pct(av.mean(), df_avg)), 2),
                       avg_vs_hx_pct=round(float(fc.pct(av.mean(), hx_avg)), 2))
            worst_max = max(row["best_max_vs_df_pct"], row["best_max_vs_hx_pct"])
            worst_avg = max(row["avg_vs_df_pct"], row["avg_vs_hx_pct"])
            row["meets_both"] = bool(worst_max <= FIG7_BOUNDS["max_ns"] + FIG7_TOL
                                     and worst_avg <= FIG7_BOUNDS["avg_ns"] + FIG7_TOL)
        rows.append(row)
    return pd.DataFrame(rows), base


def fig7_readings_claim(table: pd.DataFrame, base: dict, n: int, degree: int) -> dict:
    """The claim row: does any reading put the degree-``degree`` Skywalk within III-D's
    bounds of both Dragonfly and HyperX (the best seed's maximum, the mean average)?"""
    hits = table[table.get("meets_both", pd.Series(False, index=table.index)).fillna(False).astype(bool)]
    (df_max, _), (hx_max, _) = base["Dragonfly"], base["HyperX"]
    built = table.dropna(subset=["max_ns"]) if "max_ns" in table else table.iloc[0:0]
    if len(hits):
        ours = f"{len(hits)} of {len(table)} readings: " + "; ".join(hits.reading)
    elif len(built):
        low = built.loc[built.max_ns_min.idxmin()]
        ours = (f"none of {len(table)}; lowest maximum {low.max_ns_min:g} ns ({low.reading}): "
                f"{low.best_max_vs_df_pct:+.2f}% vs Dragonfly ({df_max:g} ns), "
                f"{low.best_max_vs_hx_pct:+.2f}% vs HyperX ({hx_max:g} ns) (table readings)")
    else:
        ours = "no reading built"
    return fc.claim_row("7", f"some reading puts degree {degree} at {n:,} within "
                        f"{FIG7_BOUNDS['max_ns']}% (max) and {FIG7_BOUNDS['avg_ns']}% (avg) of DF and HX "
                        f"(+{FIG7_TOL} points)", f"<= {FIG7_BOUNDS['max_ns']}% / <= {FIG7_BOUNDS['avg_ns']}%",
                        ours, "agrees" if len(hits) else "differs")


CAB_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)


def _split(z: int, c: int, degree: int) -> tuple[int, int]:
    """Fig. 9's degree split (our reading, the paper prints none): half the links inside
    the cabinet, ``d_i = min(z - 1, ceil(d / 2))``; the rest outside, as many as the
    grid allows (``d_o <= d_smax + d_dmax``); ports left over go back inside.  One cabinet
    has no inter-cabinet links.  (-1, -1) when the degree cannot be reached."""
    from ..generators.skywalk import skywalk_bounds

    if c == 1:
        return (degree, 0) if degree <= z - 1 else (-1, -1)
    b = skywalk_bounds(z, c)
    d_i = min(z - 1, (degree + 1) // 2)
    d_o = min(degree - d_i, b["straight_max"] + b["diagonal_max"])
    d_i = min(z - 1, degree - d_o)
    if d_i + d_o != degree:
        return -1, -1
    return d_i, d_o


def fig9(seeds, build, full=False, degrees=(8, 16, 32)):
    """Fig. 9: FR latency vs switches per cabinet at N = 2,048 (z <= 512; 1,024 and
    2,048, where Skywalk is two cabinets or one and slow to build, with ``full``)."""
    nets, skipped = [], []
    n = Z * C
    for deg in degrees:
        for z in (CAB_SIZES if full else tuple(x for x in CAB_SIZES if x <= 512)):
            c = n // z
            d_i, d_o = _split(z, c, deg)
            if d_i < 0:
                skipped.append(f"degree {deg} z={z}")  # d_i + d_o cannot reach the degree
                continue
            nets.append(dict(label=f"Skywalk deg {deg}", family="skywalk", name="skywalk", z=z, c=c,
                             switches_per_cabinet=z, d_i=d_i, d_o=d_o,
                             params=dict(_sky(z, c, d_i, d_o))))
    runs = _run(nets, seeds, build=build)
    table = _table(runs, ["label", "switches_per_cabinet", "d_i", "d_o"])
    claims = []
    for deg in degrees:
        t = table[table.label == f"Skywalk deg {deg}"].dropna(subset=["max_ns"])
        for col in ("max_ns", "avg_ns"):
            per_seed = runs[(runs.label == f"Skywalk deg {deg}")].pivot_table(
                index="seed", columns="switches_per_cabinet", values=col)
            argmins = [int(per_seed.columns[np.nanargmin(r)]) for r in per_seed.to_numpy()]
            best = int(t.loc[t[col].idxmin(), "switches_per_cabinet"])
            claims.append(fc.claim_holds("9", f"degree {deg}: {col[:3]} latency lowest at z = 32", "yes",
                                         [a == 32 for a in argmins],
                                         detail=f"mean lowest at z = {best}; per seed "
                                                + "/".join(map(str, argmins))))
    notes = ["Fig. 9: the paper does not print how the degree is split; ours is half inside "
             "(d_i = min(z - 1, ceil(d/2))), the rest outside as far as the grid allows, leftovers "
             "inside.  Filling the cabinet first (d_i = min(z - 1, d - 1)) moves the minimum to "
             "z = d/2 (docs/reproductions.md)."]
    if skipped:
        notes.append("Fig. 9 skipped (the degree does not fit z - 1 + d_smax + d_dmax): " + ", ".join(skipped))
    return table, claims, notes


FIG10_DO = (4, 6, 8, 12, 16, 20, 24, 28)
FIG10_R = (0.4, 0.5, 0.6, 0.7, 1.0)


def fig10(seeds, build):
    """Fig. 10: cable bound r, Skywalk(8, 256, 7, d_o)."""
    nets = [dict(label=f"Skywalk(8,256,7,{d_o})", family="skywalk", name="skywalk", z=Z, c=C, d_o=d_o,
                 r=r, params=_sky(Z, C, 7, d_o, cable_bound=r)) for d_o in FIG10_DO for r in FIG10_R]
    runs = _run(nets, seeds, build=build)
    table = _table(runs, ["d_o", "r"])
    claims = [fc.claim_holds("10", "every (d_o, r >= 0.4) can be built", "yes",
                             bool(runs.error.eq("").all()),
                             detail=f"{int(runs.error.ne('').sum())} failed instances")]
    cable_mono, lat_rises, avg_rises = [], 0, 0
    for d_o in FIG10_DO:
        t = table[table.d_o == d_o].sort_values("r")
        cable_mono.append(bool(np.all(np.diff(t.cable_km) > 0)))
        lat_rises += int(np.sum(np.diff(t.max_ns) > t.max_ns_range.to_numpy()[1:] + 1e-9))
        avg_rises += int(np.sum(np.diff(t.avg_ns) > 0))
    claims.append(fc.claim_holds("10", "cable grows monotonically with r", "yes", all(cable_mono),
                                 detail=f"{sum(cable_mono)}/{len(cable_mono)} curves"))
    claims.append(fc.claim_row("10", "max latency decreases almost monotonically as r grows",
                               "almost monotonic",
                               f"{lat_rises} rises beyond the seed spread in {len(FIG10_DO) * 4} steps",
                               "agrees" if lat_rises <= 3 else "differs"))
    claims.append(fc.claim_row("10", "avg latency: in a few cases it rises slightly with r", "a few",
                               f"{avg_rises} rises in {len(FIG10_DO) * 4} steps", "agrees"))
    for d_o in (4, 28):
        t = table[table.d_o == d_o].set_index("r")
        save = -fc.pct(t.cable_km[0.4], t.cable_km[1.0])
        rise = fc.pct(t.max_ns[0.4], t.max_ns[1.0])
        claims.append(fc.claim_row("10", f"d_o={d_o}: r=0.4 vs 1.0 cable saving / max latency rise",
                                   "low degree: small saving, large rise" if d_o == 4
                                   else "high degree: a trade-off",
                                   f"-{save:.1f}% cable, +{rise:.1f}% max latency", "see plot"))
    return table, claims, []


# ----------------------------------------------------------------------------- reproduction
@register_experiment("skywalk-sweeps", paper="Skywalk (Fujiwara et al.) Figs. 1, 3, 5, 6, 7, 9, 10")
def skywalk_sweeps(*, figure: int, seeds: int = 3, seed: int = 1, instances: int = 10,
                   full: bool = False, random_degrees: tuple[int, ...] = (6, 11),
                   nr_tie: Literal["best", "worst"] = "best",
                   construction: Literal["saturate", "rounds"] = "saturate",
                   switch_delay: float = 60.0, readings: bool = False,
                   plot: str | None = None) -> ExperimentResult:
    """Skywalk's latency sweeps (Figs. 1, 3, 5, 6, 7, 9, 10): the table behind the figure
    and the paper's statements checked.

    Parameters
    ----------
    figure : int
        The figure: 1, 3, 5, 6, 7, 9 or 10.
    seeds : int
        Independent seeds of the random networks (Random, Skywalk), in [1, 50]; the
        tables give the mean and the spread (max - min) over them.
    seed : int
        Master seed; the per-network seeds derive from it.
    instances : int
        Instances per seed, the connected one with the most links is kept (10 in the
        paper, II-C), in [1, 100].
    full : bool
        The paper's largest sizes too: Fig. 3 with c = 1,024, Fig. 7 up to N = 8,192 and
        Fig. 9 with z = 1,024 and 2,048 (several minutes more).
    random_degrees : tuple of int
        Fig. 1 only: the degrees of its two Random(2048, d) networks (the paper does not
        print them), each in [2, 2047].
    nr_tie : {"best", "worst"}
        Fig. 1 only: among the fewest-hop paths take the lowest-latency (default) or the
        highest-latency one.
    construction : {"saturate", "rounds"}
        How Skywalk's Uniform Random sub-topologies are built (see
        :func:`topogen.generators.skywalk.skywalk`; "saturate" gives the paper's 59 km).
    switch_delay : float
        Fig. 3 only: the switch delay in ns, in (0, 10000] (default 60; the paper does not
        state it for Fig. 3, and its average-latency gaps depend on it).
    readings : bool
        Fig. 3: also the table ``readings``, the two printed gaps (0.50 % at c = 64,
        0.38 % at c = 1,024) under every switch delay (20-150 ns), routing (FR, NR) and
        construction, and a claim row saying whether any one setting gives both (c =
        1,024 is built: minutes).  Fig. 7: the table ``readings`` of III-D's degree-64
        Skywalk at 8,192 switches (degree split, construction, straight/diagonal split,
        routing, instance selection) against Dragonfly and HyperX, and a claim row saying
        whether any reading meets the printed 1.0 % / 2.3 % (6.3 min of CPU with
        ``seeds=2``, about 8 with the default 3).
    plot : str, optional
        Draw the figure to this .png, .svg or .pdf file.

    Returns
    -------
    ExperimentResult
        ``table``: the numbers behind the figure (means over seeds with ``*_range``
        spreads); ``extra_tables["claims"]``: the paper's statements with ``paper``,
        ``ours`` and ``verdict``.

    Raises
    ------
    ParameterError
        On an unknown figure or an out-of-range parameter.
    """
    figure = check_int("figure", figure, 1, 10)
    if figure not in FIGURES:
        raise ParameterError(f"figure must be one of {', '.join(map(str, FIGURES))}, got {figure}")
    k = check_int("seeds", seeds, 1, 50)
    instances = check_int("instances", instances, 1, 100)
    if construction not in ("saturate", "rounds"):
        raise ParameterError(f"construction must be saturate or rounds, got {construction!r}")
    build = {"instances": instances, "construction": construction}
    switch_delay = check_float("switch_delay", switch_delay, 0.0, 10_000.0, min_open=True)
    out = fc.check_plot(plot)
    seed_list = child_seeds(resolve_seed(seed), k)
    extra = {}
    if figure == 1:
        degs = tuple(check_int("random_degrees", d, 2, Z * C - 1) for d in random_degrees)
        if nr_tie not in ("best", "worst"):
            raise ParameterError(f"nr_tie must be best or worst, got {nr_tie!r}")
        table, claims, notes = fig1(seed_list, build, random_degrees=degs, nr_tie=nr_tie)
    elif figure == 3:
        table, claims, notes = fig3(seed_list, build, full, switch_delay)
        if readings:
            rd = fig3_readings(seed_list, instances)
            extra["readings"] = rd
            hits = rd[rd["both_within_0.1"]]
            near = rd.assign(err=(rd.gap_c64_pct - 0.50).abs() + (rd.gap_c1024_pct - 0.38).abs()).nsmallest(1, "err")
            best = near.iloc[0]
            claims.append(fc.claim_row(
                "3", "one setting (delay, routing, construction) gives both 0.50 % (c = 64) and 0.38 % (c = 1,024)"
                f" within {FIG3_TOL} points", "0.50 / 0.38 %",
                (f"{len(hits)} of {len(rd)} settings: " + "; ".join(
                    f"{r.construction}/{r.routing}/{r.switch_delay:g} ns" for _, r in hits.iterrows())) if len(hits)
                else f"none of {len(rd)}; closest {best.construction}/{best.routing}/{best.switch_delay:g} ns: "
                     f"{best.gap_c64_pct:.2f} / {best.gap_c1024_pct:.2f} % (table readings)",
                "agrees" if len(hits) else "differs"))
    elif figure == 5:
        table, claims, notes = fig5(seed_list, build)
    elif figure == 6:
        table, claims, notes = fig6(seed_list, build)
    elif figure == 7:
        table, claims, notes = fig7(seed_list, build, full)
        if readings:
            rd, base = fig7_readings(seed_list, instances, z=Z, c=FIG7_READINGS_CABINETS,
                                     degree=FIG7_READINGS_DEGREE)
            extra["readings"] = rd
            claims.append(fig7_readings_claim(rd, base, Z * FIG7_READINGS_CABINETS, FIG7_READINGS_DEGREE))
            notes.append(f"Table readings: III-D's degree-{FIG7_READINGS_DEGREE} Skywalk at "
                         f"{Z * FIG7_READINGS_CABINETS:,} switches under each reading; Dragonfly "
                         f"{base['Dragonfly'][0]:g} / {base['Dragonfly'][1]:.1f} ns, HyperX "
                         f"{base['HyperX'][0]:g} / {base['HyperX'][1]:.1f} ns (max / avg).  The maxima "
                         "are set by one worst pair: one more 60 ns switch on it is 6% of Dragonfly's "
                         "maximum, the paper's bound is 1.0%.")
    elif figure == 9:
        table, claims, notes = fig9(seed_list, build, full)
    else:
        table, claims, notes = fig10(seed_list, build)
    notes = [NOTES[figure]] + notes + [
        f"Random and Skywalk: {k} seed(s) from seed {seed}, each the best of {instances} instances "
        f"(Skywalk construction={construction}); "
        "*_range = max - min over the seeds; a claim is 'within noise' when the paper's value "
        "lies inside our seeds' spread."]
    if out is not None:
        from ._skywalk_plot import plot_skywalk

        plot_skywalk(figure, table, out)
    return ExperimentResult(title=TITLES[figure], table=table, notes=notes,
                            extra_tables={"claims": pd.DataFrame(claims), **extra})


TITLES = {
    1: "Skywalk Fig. 1: NR maximum latency vs switch delay, 2,048 switches in 256 cabinets",
    3: "Skywalk Fig. 3: latency vs total cable for straight/diagonal mixes, z = 8",
    5: "Skywalk Fig. 5: FR latency vs switch delay, 2,048 switches in 256 cabinets",
    6: "Skywalk Fig. 6: FR latency vs degree at 60 ns, 2,048 switches in 256 cabinets",
    7: "Skywalk Fig. 7: FR latency vs number of switches at 60 ns, z = 8",
    9: "Skywalk Fig. 9: FR latency vs switches per cabinet at 60 ns, 2,048 switches",
    10: "Skywalk Fig. 10: FR latency vs total cable under cable bound r, Skywalk(8,256,7,d_o), 60 ns",
}

NOTES = {
    1: "Nearest Routing; the paper's legend gives degree and diameter (our degree, max_hops).",
    3: "Fastest Routing; one row per (c, d_s, d_d); inter_links = links between cabinets.",
    5: "Fastest Routing; the paper prints the degree and cable of each network in the legend.",
    6: "Fastest Routing at 60 ns; Skywalk and Random instances that are not connected are "
       "left out (built < seeds).",
    7: "Fastest Routing at 60 ns; Skywalk degree d has d_i = 7 and d_o = d - 7.  The maxima "
       "against Dragonfly come out a few % above the paper's bounds (degree 32 at 2,048: +6.6%, "
       "degree 64 at 8,192: +3.8%); one 60 ns hop is 7% of them (docs/reproductions.md).",
    9: "Fastest Routing at 60 ns.",
    10: "Fastest Routing at 60 ns; r bounds the Manhattan distance between linked cabinets "
        "to r * l_max (III-G).",
}
