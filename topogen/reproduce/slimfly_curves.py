"""``topogen reproduce slimfly-curves``: Slim Fly (Besta & Hoefler) Fig. 5c (bisection
bandwidth of every family against N) and Figs. 11-13 (the cost and power model and the
total cost and power of every family against N, for three cable types), with the paper's
statements about them checked (``claims`` table: paper, ours, tolerance, verdict, cause).

What the paper gives and what is computed
-----------------------------------------
* **Fig. 5c** (III-C), 10 Gb/s per link: "For SF and DLN we approximate the bisection
  bandwidth using the METIS partitioner"; the others by closed forms: N/2 (HC, FT-3),
  2N/k' (tori), (N + 2p^2 - 1)/4 ~ N/4 (DF, FBF-3), 3N/2 (LH-HC).  Ours, per network
  (``bisection`` table, column ``method``):

  - HC, LH-HC, tori with an even longest side, FBF-3 with even side: the balanced cut the
    closed form counts, evaluated on the built graph (``cut_size``), with the certified
    spectral lower bound beside it; ``exact`` when the two meet;
  - SF, DLN, DF (odd number of groups: the group halving is not balanced): the best of
    ``--runs`` seeded METIS runs (:func:`topogen.metrics.bisection.bisection`, the paper's
    partitioner), an upper bound, with the spectral lower bound;
  - FT-3: the fewest links a halving of the endpoints needs (max flow over the natural and
    random leaf halvings, as ``slimfly-hops``) on Section VI-B's tree;
  - direct networks up to ``--check_routers`` routers also get a METIS cut
    (``partitioner_links``), an independent check that no smaller balanced cut exists.

* **Figs. 11-13** (VI-B, VI-C): four panels each: (a) cable cost against length,
  (b) router cost against radix, (c) total cost and (d) total power of every family
  against N.  The model is ``slimfly-cost``'s (one model: :func:`price_layout`,
  :func:`ft3_price`, the same rack floors); only the cable constants change:

  ========  ====================================  ==========================================
  figure    cables (routers: Mellanox IB FDR10)    constants
  ========  ====================================  ==========================================
  11        Mellanox IB FDR10 40 Gb/s QSFP        VI-B1 text: electric 0.4079 x + 0.5771,
                                                  optical 0.0919 x + 2.7452 $/Gb/s
  12        Elpeus Ethernet 10 Gb/s SFP+          only Fig. 12a shows them (not in the text)
  13        Mellanox IB QDR56 56 Gb/s QSFP        only Fig. 13a shows them (not in the text)
  ========  ====================================  ==========================================

  Routers ``350.4 k - 892.3`` $ (VI-B2 text); power 4 lanes x 0.7 W per port (VI-C text),
  the same in all three figures (same routers; the model has no cable power).  For
  Figs. 12 and 13 the per-metre and base prices can be given (``--eth10_electric a,b``
  ...); without them the curves use a stated stand-in, FDR10's $/Gb/s fit at the cable's
  own rate (10 and 56 Gb/s), and every row says so.

Networks are the paper's balanced variants (Section III), built up to ``--max_endpoints``
(all in seconds); FT-3 is priced by Section VI-B's formula (5p^2 routers of radix 2p, 2p^3
endpoints, 4p^3 router cables, 1 m) with the counts checked on the built tree.  Comparisons
"at comparable N" pair each Slim Fly with the other family's network nearest in log N.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .._digest import seed_from
from .._rng import resolve_seed
from .._validate import check_int
from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult

__all__ = ["slimfly_curves", "FAMILIES", "CABLES", "BISECTION_FORMULAS", "family_points",
           "bisection_row", "cost_rows", "cable_params", "table_iv_points"]

#: Families of Figs. 5c and 11-13 (Table II's), in the paper's order.
FAMILIES = ("T3D", "T5D", "HC", "LH-HC", "FT-3", "DF", "FBF-3", "DLN", "SF")
#: Link rate of Fig. 5c (its caption: "we assume 10 Gb/s/link").
FIG5C_GBPS = 10.0
#: Long hops of every LH-HC (Table IV's radix 19 at 2^13; slimfly-resilience's choice).
LH_LONG_HOPS = 5
#: Cable types of Figs. 11-13: figure, name, Gb/s, (electric $/Gb/s per m, base),
#: (optical per m, base) or None where the text gives no constant, and the source.
CABLES = {
    "fdr10": dict(figure="11", name="Mellanox IB FDR10 40 Gb/s QSFP", gbps=40.0,
                  electric=(0.4079, 0.5771), optical=(0.0919, 2.7452),
                  source="VI-B1 text (linear fits, $/Gb/s against metres)"),
    "eth10": dict(figure="12", name="Elpeus Ethernet 10 Gb/s SFP+", gbps=10.0, electric=None, optical=None,
                  source="only Fig. 12a shows the fit; the text gives no constant"),
    "qdr56": dict(figure="13", name="Mellanox IB QDR56 56 Gb/s QSFP", gbps=56.0, electric=None, optical=None,
                  source="only Fig. 13a shows the fit; the text gives no constant"),
}
#: Section III-C's closed forms (links; N endpoints, p endpoints per router, side the torus
#: side); SF and DLN have none ("approximated using METIS").
BISECTION_FORMULAS = {
    "HC": ("N/2", lambda n, p, side: n // 2),
    "FT-3": ("N/2", lambda n, p, side: n // 2),
    "T3D": ("2N/k'", lambda n, p, side: 2 * n // side),
    "T5D": ("2N/k'", lambda n, p, side: 2 * n // side),
    "DF": ("(N+2p^2-1)/4", lambda n, p, side: (n + 2 * p * p - 1) // 4),
    "FBF-3": ("(N+2p^2-1)/4", lambda n, p, side: (n + 2 * p * p - 1) // 4),
    "LH-HC": ("3N/2", lambda n, p, side: 3 * n // 2),
}
#: Largest network (routers) whose spectral lower bound is computed.
SPECTRAL_LIMIT = 70000
_COLORS = {"T3D": "tab:brown", "T5D": "tab:pink", "HC": "tab:gray", "LH-HC": "tab:olive",
           "FT-3": "tab:purple", "DF": "tab:red", "FBF-3": "tab:orange", "DLN": "tab:green",
           "SF": "tab:blue"}


# ----------------------------------------------------------------------------- networks
def family_points(family: str, max_endpoints: int, min_endpoints: int = 200) -> list[dict]:
    """The balanced variants of ``family`` with ``min_endpoints <= N <= max_endpoints``:
    dicts with ``config, endpoints, p, side`` (torus side of the formula) and ``build``
    (a function giving the Topology; None for FT-3, which is priced by formula)."""
    from ..generators.classic import hypercube, hyperx, torus
    from ..generators.dragonfly import dragonfly
    from ..generators.random import ring
    from ..generators.slimfly import slimfly, slimfly_parameters

    pts = []

    def add(config, endpoints, p, build, side=None, **extra):
        if min_endpoints <= endpoints <= max_endpoints:
            pts.append(dict(family=family, config=config, endpoints=int(endpoints), p=p, side=side,
                            build=build, **extra))

    if family == "T3D":  # cubes of even side (a balanced halving along one dimension)
        for s in (6, 8, 10, 12, 16, 22, 26, 32, 40, 46):
            add(f"{s}x{s}x{s}, p=1", s**3, 1, lambda s=s: torus((s, s, s)), side=s, per_rack=s)
    elif family == "T5D":
        for dims in ((4, 4, 4, 4, 4), (4, 4, 4, 4, 8), (4, 4, 4, 8, 8), (6, 6, 6, 6, 6), (4, 4, 8, 8, 8),
                     (6, 6, 6, 6, 8), (4, 8, 8, 8, 8), (8, 8, 8, 8, 8), (8, 8, 8, 8, 16)):
            add("x".join(map(str, dims)) + ", p=1", int(np.prod(dims)), 1, lambda d=dims: torus(d),
                side=max(dims), per_rack=48)
    elif family == "HC":
        for d in range(8, 17):
            add(f"d={d}, p=1", 2**d, 1, lambda d=d: hypercube(d), per_rack=256)
    elif family == "LH-HC":
        from ..generators.longhop import long_hop

        for d in range(8, 17):
            add(f"d={d}, L={LH_LONG_HOPS}, p=1", 2**d, 1, lambda d=d: long_hop(d, LH_LONG_HOPS), per_rack=256)
    elif family == "FT-3":  # Section VI-B: 5p^2 routers of radix 2p, 2p^3 endpoints
        for p in (4, 5, 6, 8, 10, 12, 14, 16, 18, 22, 26, 30, 36):
            add(f"VI-B tree p={p}, radix {2 * p}", 2 * p**3, p, None, routers=5 * p * p, radix=2 * p,
                router_links=4 * p**3)
    elif family in ("DF", "DLN"):  # balanced a = 2p = 2h; DLN: same groups, random cables (VI-B3)
        for p in range(2, 13):
            a, h = 2 * p, p
            g = a * h + 1
            if family == "DF":
                add(f"a={a}, p={p}, h={h}, g={g}", a * p * g, p, lambda a=a, p=p, h=h: dragonfly(a, p, h),
                    per_rack=a, groups=g)
            else:
                routers, degree = a * g, a - 1 + h
                add(f"RING {routers} routers, degree {degree}, p={p}", routers * p, p,
                    lambda r=routers, k=degree, p=p: ring(r, k, hosts_per_switch=p,
                                                          seed=seed_from("slimfly-curves", "DLN", r, k)),
                    per_rack=a)
    elif family == "FBF-3":
        for c in (4, 6, 8, 10, 12, 14, 16):
            add(f"{c}x{c}x{c}, p={c}", c**4, c, lambda c=c: hyperx((c, c, c), hosts_per_switch=c),
                side=c, per_rack=c)
    elif family == "SF":  # prime q: the paired-rack layout of VI-A
        for q in (5, 7, 11, 13, 17, 19, 23, 29, 37):
            info = slimfly_parameters(q)
            p = info.balanced_hosts_per_switch
            add(f"q={q}, k'={info.network_radix}, p={p}", 2 * q * q * p, p, lambda q=q: slimfly(q), q=q)
    else:
        raise ParameterError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    return pts


def _layout(point: dict, topo):
    """The VI-B rack floor of ``slimfly-cost`` for a sweep network, and its cable rule."""
    from ..layout.slimfly import slimfly_layout
    from .slimfly_cost import rack_layout

    fam = point["family"]
    if fam == "SF":
        return slimfly_layout(topo, racks="paired"), "rack"
    return rack_layout(topo, point["per_rack"]), ("folded" if fam in ("T3D", "T5D") else "rack")


def _ft3_tree(p: int):
    from .slimfly_resilience import _ft3_cost_tree

    return _ft3_cost_tree(p)


# ----------------------------------------------------------------------------- Fig. 5c
def _dimension_side(dims, axis: int) -> np.ndarray:
    """Side (0/1) of each router of a torus/HyperX (dimension 0 varying fastest) in the
    halving along ``axis``."""
    n = int(np.prod(dims))
    stride = int(np.prod(dims[:axis])) if axis else 1
    coord = (np.arange(n, dtype=np.int64) // stride) % dims[axis]
    return (coord >= dims[axis] // 2).astype(np.int8)


def bisection_row(point: dict, topo, *, runs: int, seed: int, check_routers: int) -> dict:
    """Fig. 5c's value of one network: links across the bisection, how it was found, its
    certified lower bound, the paper's closed form, and (small direct networks) an
    independent METIS cut."""
    from ..metrics.bisection import bisection, cut_size, spectral_lower_bound

    fam, n = point["family"], point["endpoints"]
    formula, f = BISECTION_FORMULAS.get(fam, ("METIS (no closed form)", None))
    out = dict(family=fam, config=point["config"], endpoints=n, bisection_formula=formula,
               paper_links=f(n, point["p"], point["side"]) if f else None)
    bseed = seed_from("slimfly-curves", seed, fam, point["config"])
    if fam == "FT-3":
        from .slimfly_hops import _fat_tree_halving

        links = _fat_tree_halving(topo, bseed)
        out.update(bisection_links=links, lower_bound=None, exact=False, partitioner_links=None,
                   method="max flow between endpoint halves (natural + 3 random leaf halvings; upper bound)")
        return out
    lower = None
    if fam == "LH-HC":
        from .slimfly_hops import _bisection

        b = _bisection("LH-HC", topo, n, bseed)
        links, lower = int(b["bisection_ours"]), int(b["bisection_lower"])
        method = "cut u.x = 0/1 of the best code word u on the built graph"
    elif fam == "HC":
        d = int(topo.params["dimension"])
        side = ((np.arange(topo.num_switches) >> (d - 1)) & 1).astype(np.int8)
        links, method = cut_size(topo, side), "dimension halving on the built graph"
    elif fam in ("T3D", "T5D", "FBF-3"):
        dims = tuple(topo.params["dims"])
        axis = int(np.argmax(dims))
        links = cut_size(topo, _dimension_side(dims, axis))
        method = f"halving along a side of {dims[axis]} on the built graph"
    else:  # SF, DLN, DF: the partitioners
        b = bisection(topo, method="metis", runs=runs, seed=bseed,
                      lower_bound=topo.num_switches <= SPECTRAL_LIMIT)
        links, lower = int(b.width), (int(b.lower_bound) if topo.num_switches <= SPECTRAL_LIMIT else None)
        method = f"best balanced METIS cut of {runs} seeded runs (upper bound)"
    if lower is None and fam not in ("SF", "DLN", "DF") and topo.num_switches <= SPECTRAL_LIMIT:
        lower = int(spectral_lower_bound(topo)[0])
    partitioner = None
    if fam not in ("SF", "DLN", "DF") and topo.num_switches <= check_routers:
        partitioner = int(bisection(topo, method="metis", runs=runs, seed=bseed, lower_bound=False).width)
    out.update(bisection_links=links, lower_bound=lower, exact=bool(lower is not None and lower == links),
               partitioner_links=partitioner, method=method)
    return out


# ----------------------------------------------------------------------------- Figs. 11-13
def _model_defaults() -> dict:
    """The paper's router and power constants (VI-B2, VI-C), as :class:`CostModel` holds them."""
    from ..metrics.cost import CostModel

    m = CostModel()
    return dict(router_dollars_per_port=m.router_dollars_per_port, router_dollars_offset=m.router_dollars_offset,
                lanes_per_port=m.lanes_per_port, watts_per_lane=m.watts_per_lane, endpoint_cables=False)


def _pair(text: str, name: str) -> tuple[float, float] | None:
    if text is None or str(text).strip() == "":
        return None
    parts = str(text).split(",")
    try:
        a, b = (float(x) for x in parts)
    except ValueError:
        raise ParameterError(f"{name} must be 'per_metre,base' in $/Gb/s (two numbers, e.g. 0.41,0.58), "
                             f"got {text!r}") from None
    if a < 0 or b < 0 or not (math.isfinite(a) and math.isfinite(b)):
        raise ParameterError(f"{name}: cable prices cannot be negative or infinite, got {text!r}")
    return a, b


def cable_params(cable: str, given: dict | None = None) -> tuple[dict, str]:
    """The cost-model keyword arguments (those of ``slimfly_cost``) of one cable type and
    where its cable constants come from.  ``given``: ``{"electric": (a, b), "optical":
    (a, b)}`` read off the figure by the user; missing ones fall back to the stand-in
    (FDR10's $/Gb/s fit at this cable's rate)."""
    if cable not in CABLES:
        raise ParameterError(f"cable must be one of {', '.join(CABLES)}, got {cable!r}")
    spec, given = CABLES[cable], dict(given or {})
    base = CABLES["fdr10"]
    src = []
    consts = {}
    for kind in ("electric", "optical"):
        if given.get(kind) is not None:
            consts[kind], what = given[kind], "given"
        elif spec[kind] is not None:
            consts[kind], what = spec[kind], spec["source"]
        else:
            consts[kind], what = base[kind], "stand-in: FDR10's $/Gb/s fit (the paper's constant is only in the figure)"
        src.append(f"{kind} {consts[kind][0]:g} x + {consts[kind][1]:g} $/Gb/s ({what})")
    params = dict(_model_defaults(), electric_dollars_per_m=consts["electric"][0],
                  electric_dollars_base=consts["electric"][1], optical_dollars_per_m=consts["optical"][0],
                  optical_dollars_base=consts["optical"][1], link_gbps=spec["gbps"])
    return params, f"{spec['gbps']:g} Gb/s; " + "; ".join(src)


def cost_rows(point: dict, topo, layouts: dict, cables: dict) -> list[dict]:
    """Cost and power of one network under every cable type of ``cables`` (name: params)."""
    from .slimfly_cost import ft3_price, price_layout

    out = []
    for cable, params in cables.items():
        if point["family"] == "FT-3":
            r, k, n, links = point["routers"], point["radix"], point["endpoints"], point["router_links"]
            price = ft3_price(r, k, n, links, params)
            row = dict(endpoints=n, routers=r, radix=k, electric=n, fiber=links, avg_fiber_m=1.0, **price)
            source = "VI-B formula (1 m cables)" + ("; counts equal the built tree's" if topo is not None else "")
        else:
            if "layout" not in layouts:
                layouts["layout"], layouts["rule"] = _layout(point, topo)
            row = price_layout(layouts["layout"], layouts["rule"], params)
            source = "built, on the VI-B rack floor"
        out.append(dict(family=point["family"], config=point["config"], cable=cable,
                        figure=CABLES[cable]["figure"], **row,
                        total_cost=row["cost_per_node"] * row["endpoints"],
                        total_power_w=row["power_per_node"] * row["endpoints"], source=source))
    return out


def table_iv_points(cables: dict, seed: int) -> pd.DataFrame:
    """Table IV's columns priced by ``slimfly-cost``'s own code under each cable type
    (first reading of each column: the built network, or VI-B's formula for FT-3)."""
    from .slimfly_cost import PAPER_TABLE_IV, column_rows

    rows = []
    for cable, params in cables.items():
        for topology, group, *_ in PAPER_TABLE_IV:
            col, _ = column_rows(topology, group, params, seed)
            rows.append(dict(col[0], cable=cable, figure=CABLES[cable]["figure"]))
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- claims
def _nearest_pairs(t: pd.DataFrame, fam: str, value: str) -> list[tuple]:
    """(SF N, other N, SF value, other value) for each Slim Fly: ``fam``'s value at the
    Slim Fly's N, interpolated linearly in log N between ``fam``'s two networks around it
    ("other N" is then the nearer of the two); outside ``fam``'s range, its nearest
    network if within a factor 2, else the Slim Fly is left out."""
    sf = t[t.family == "SF"].sort_values("endpoints")
    other = t[t.family == fam].sort_values("endpoints")
    out = []
    if not len(other):
        return out
    xs = np.log(other.endpoints.astype(float).to_numpy())
    ys = other[value].astype(float).to_numpy()
    for _, s in sf.iterrows():
        x = math.log(s.endpoints)
        j = int(np.argmin(np.abs(xs - x)))
        near = int(other.endpoints.iloc[j])
        if xs[0] <= x <= xs[-1]:
            v = float(np.interp(x, xs, ys))
        elif 0.5 <= near / s.endpoints <= 2.0:
            v = float(ys[j])
        else:
            continue
        out.append((int(s.endpoints), near, float(s[value]), v))
    return out


def _span(pairs, f) -> tuple[float, float, str]:
    vals = [f(a, b) for _, _, a, b in pairs]
    at = ", ".join(f"{n:,}: {100 * v:.0f} %" for (n, *_), v in zip(pairs, vals))
    return min(vals), max(vals), at


def _claim(fig, claim, paper, ours, tol, verdict, cause=""):
    return dict(figure=fig, claim=claim, paper=paper, ours=ours, tolerance=tol, verdict=verdict, cause=cause)


def _bisection_claims(b: pd.DataFrame) -> list[dict]:
    rows = []
    b = b.dropna(subset=["bisection_links"]).copy()
    b["per_endpoint"] = b.bisection_links.astype(float) / b.endpoints
    for fam in ("DF", "FBF-3", "T3D", "T5D"):
        pairs = _nearest_pairs(b, fam, "per_endpoint")
        if not pairs:
            rows.append(_claim("5c", f"SF offers higher bandwidth than {fam}", "SF above", "not built in range",
                               "strict order at comparable N", "not measured", "no network of both in range"))
            continue
        ok = all(a > o for _, _, a, o in pairs)
        txt = "; ".join(f"N {s:,} vs {n:,}: {a:.3f} vs {o:.3f}" for s, n, a, o in pairs)
        worst = min(pairs, key=lambda x: x[2] - x[3])
        bad = [x for x in pairs if x[2] <= x[3]]
        cause = f"at N = {worst[0]:,} SF {worst[2]:.3f} against {worst[3]:.3f} per endpoint"
        if fam in ("T3D", "T5D") and bad:
            cause = (f"SF is not above at N = {', '.join(f'{x[0]:,}' for x in bad)}: a torus of side k' has 2/k' "
                     f"bisection links per endpoint ({fam} near there: "
                     + ", ".join(f"{r.config.split(',')[0]} {r.bisection_links / r.endpoints:.3f}"
                                 for _, r in b[b.family == fam].iterrows()
                                 if 0.5 <= r.endpoints / bad[0][0] <= 2 * bad[-1][0] / bad[0][0])
                     + f"), SF about 0.3 at every N: small tori (side <= {int(2 / min(x[2] for x in bad))}) "
                     "are above SF, larger ones below")
        rows.append(_claim("5c", f"SF offers higher bandwidth than {fam} (III-C)",
                           "SF above at every N", "bisection links per endpoint, SF vs " + fam + ": " + txt,
                           "strict order, per endpoint, at SF's N (log-interpolated)", "holds" if ok else "differs",
                           "" if ok else cause))
    pairs = _nearest_pairs(b, "FT-3", "per_endpoint")
    if pairs:
        ratios = [o / a for _, _, a, o in pairs]
        ok = all(1.0 < r <= 1.25 for r in ratios)
        sf = b[b.family == "SF"]
        gaps = [(r.bisection_links - r.lower_bound) / r.bisection_links for _, r in sf.iterrows()
                if pd.notna(r.lower_bound)]
        rows.append(_claim(
            "5c / V-A", "FT-3's bandwidth slightly higher than SF's", "FT-3 slightly above SF",
            f"FT-3 / SF per endpoint {min(ratios):.2f}..{max(ratios):.2f} (SF {min(a for *_, a, _ in pairs):.3f}.."
            f"{max(a for *_, a, _ in pairs):.3f} links per endpoint, FT-3 0.5)",
            "FT-3 / SF in (1, 1.25]", "holds" if ok else "differs",
            "" if ok else ("SF's measured cut is within " + (f"{100 * max(gaps):.1f} %" if gaps else "?")
                           + " of its certified spectral lower bound, so its bisection is about 0.3 N against "
                             "FT-3's N/2: FT-3 is ~1.5x higher, not slightly; the paper's SF curve is not "
                             "given as numbers")))
    for fam in ("HC", "LH-HC", "FT-3", "T3D", "T5D", "DF", "FBF-3"):
        g = b[b.family == fam]
        if not len(g):
            continue
        paper = g.paper_links.astype(float)
        ours = g.bisection_links.astype(float)
        rel = (ours / paper - 1).abs()
        tol = 0.0 if fam in ("HC", "LH-HC", "FT-3", "T3D", "T5D") else 0.05
        ok = bool((rel <= tol + 1e-12).all())
        part = g.dropna(subset=["partitioner_links"])
        below = part[part.partitioner_links.astype(float) < part.bisection_links.astype(float)]
        exact = int(g.exact.sum())
        formula = g.bisection_formula.iloc[0]
        ours_txt = (f"{'/'.join(f'{int(v):,}' for v in ours)} (paper's formula {'/'.join(f'{int(v):,}' for v in paper)})"
                    f" at N = {'/'.join(f'{int(v):,}' for v in g.endpoints)}; {exact} of {len(g)} exact"
                    " (cut = spectral bound)"
                    + ("" if fam == "DF" else
                       f"; METIS found no smaller cut in {len(part) - len(below)} of {len(part)}"))
        if fam == "FBF-3" and not ok:
            cause = ("our cut is c^4/4 = N/4 exactly (it meets the certified spectral bound at every size); "
                     "(N + 2p^2 - 1)/4 exceeds it by (2p^2 - 1)/4 links, "
                     f"{100 * rel.min():.1f}..{100 * rel.max():.1f} % here, falling as N grows: the paper's "
                     "'~ N/4' holds, the exact form is the Dragonfly's")
        elif fam == "DF" and not ok:
            cause = ("the (N + 2p^2 - 1)/4 reading counts the group halving; with an odd number of groups "
                     "(g = 2p^2 + 1) a balanced cut also splits one group, adding about a^2/4 local links")
        elif not ok:
            cause = f"relative differences {100 * rel.min():.1f}..{100 * rel.max():.1f} %"
        else:
            cause = ""
        if len(below):
            cause += ("; " if cause else "") + f"METIS found smaller balanced cuts at N = {list(below.endpoints)}"
            ok = False
        if fam == "FT-3":
            ours_txt = (f"{'/'.join(f'{int(v):,}' for v in ours)} at N = {'/'.join(f'{int(v):,}' for v in g.endpoints)}"
                        " (least max flow over 4 endpoint halvings of VI-B's tree)")
        rows.append(_claim("5c (III-C)", f"{fam} bisection = {formula} links", formula, ours_txt,
                           ("exact" if fam != "FT-3" else "equal (an upper bound: 4 halvings tried)")
                           if tol == 0 else ("5 % of the formula (a METIS cut: an upper bound)" if fam == "DF"
                                             else "5 % of the formula"), "holds" if ok else "differs", cause))
    return rows


def _cost_claims(c: pd.DataFrame) -> list[dict]:
    rows = []
    f = c[c.cable == "fdr10"]
    saving = lambda a, b: 1 - a / b
    for fam, target, text in (("DF", 0.25, "~25 %"), ("FBF-3", 0.30, "almost 30 %"), ("DLN", 0.40, "almost 40 %"),
                              ("FT-3", 0.50, "almost 50 %")):
        pairs = _nearest_pairs(f, fam, "cost_per_node")
        if not pairs:
            continue
        lo, hi, at = _span(pairs, saving)
        ok = lo >= target - 0.05 and hi <= target + 0.05
        rows.append(_claim("11c (VI-B4)", f"SF {text} less expensive per endpoint than {fam}, in all cases",
                           text, f"{100 * lo:.0f}..{100 * hi:.0f} % (SF N: saving) {at}",
                           "5 points, at SF's N (log-interpolated)",
                           "holds" if ok else "differs",
                           "" if ok else _cost_cause(f, fam, pairs, target)))
    low = []
    for fam in ("T3D", "T5D", "HC", "LH-HC"):
        pairs = _nearest_pairs(f, fam, "cost_per_node")
        if pairs:
            low.append((fam, _span(pairs, saving)))
    if low:
        ok = all(lo > 0 for _, (lo, _, _) in low)
        rows.append(_claim("11c (VI-B4)", "SF significantly more cost-effective than T3D, T5D, HC, LH-HC",
                           "SF cheaper", "; ".join(f"{fam} {100 * lo:.0f}..{100 * hi:.0f} %" for fam, (lo, hi, _) in low),
                           "cheaper at every comparable N", "holds" if ok else "differs",
                           "" if ok else "SF not cheaper at some N (see the cost table)"))
    hc = f[f.family == "HC"].set_index("endpoints").cost_per_node
    lh = f[f.family == "LH-HC"].set_index("endpoints").cost_per_node
    both = sorted(set(hc.index) & set(lh.index))
    if both:
        ok = all(lh[n] > hc[n] for n in both)
        rows.append(_claim("11c (VI-B4)", "LH-HC more expensive than HC", "LH-HC above",
                           ", ".join(f"{n:,}: ${lh[n]:,.0f} vs ${hc[n]:,.0f}" for n in both),
                           "strict order at equal N", "holds" if ok else "differs",
                           "" if ok else "LH-HC not above HC at some N"))
    for fam in ("DF", "FBF-3", "DLN"):
        pairs = _nearest_pairs(f, fam, "power_per_node")
        if not pairs:
            continue
        lo, hi, at = _span(pairs, saving)
        ok = lo >= 0.245
        rows.append(_claim("11d (VI-C)", f"SF over 25 % more energy-efficient than {fam}", "> 25 %",
                           f"{100 * lo:.1f}..{100 * hi:.1f} % {at}", ">= 25 % (whole percent)",
                           "holds" if ok else "differs", "" if ok else _power_cause(f, fam, pairs)))
    pairs = _nearest_pairs(f, "DF", "power_per_node")
    if pairs:
        lo, hi, at = _span(pairs, saving)
        ok = abs(lo - 0.25) <= 0.05 and abs(hi - 0.25) <= 0.05
        rows.append(_claim("11c-d (VIII)", "25 % power benefit over Dragonfly", "25 %",
                           f"{100 * lo:.0f}..{100 * hi:.0f} %", "5 points", "holds" if ok else "differs",
                           "" if ok else _power_cause(f, "DF", pairs)))
    # Figs. 12 and 13: other cables
    for cable in ("eth10", "qdr56"):
        g = c[c.cable == cable]
        if not len(g) or not len(f):
            continue
        moves, worst = [], 0.0
        for fam in ("DF", "FBF-3", "DLN", "FT-3", "T3D", "HC"):
            p0, p1 = _nearest_pairs(f, fam, "cost_per_node"), _nearest_pairs(g, fam, "cost_per_node")
            if p0 and p1:
                d = [100 * (saving(a1, b1) - saving(a0, b0)) for (_, _, a0, b0), (_, _, a1, b1) in zip(p0, p1)]
                moves.append(f"{fam} {min(d):+.1f}..{max(d):+.1f}")
                worst = max(worst, max(abs(x) for x in d))
        stand_in = "stand-in" in str(g.cable_source.iloc[0])
        verdict = "not reproducible" if stand_in else ("holds" if worst <= 2.0 else "differs")
        if stand_in:
            cause = ("the cable fit is printed only in Fig. " + CABLES[cable]["figure"] + "a, not in the text; "
                     f"ours uses FDR10's $/Gb/s fit at {CABLES[cable]['gbps']:g} Gb/s as a stand-in (give "
                     f"--{cable}_electric / --{cable}_optical read off the figure)")
        else:
            cause = "" if verdict == "holds" else f"the saving moves by up to {worst:.1f} points"
        rows.append(_claim(
            CABLES[cable]["figure"] + "c (VI-B1)",
            f"{CABLES[cable]['name']}: similar cost pattern, relative differences vary by ~1-2 %",
            "1-2 points", "SF's saving moves by " + "; ".join(moves) + " points (vs Fig. 11)",
            "2 points", verdict, cause))
    rows.append(_claim("11-13b (VI-B2)", "Mellanox Ethernet 10/40 Gb routers: ~1 % difference between SF and DF",
                       "~1 %", "not computed", "1 point", "not reproducible",
                       "the Ethernet router fit is given neither in the text nor in a figure (Figs. 11-13b "
                       "all show the IB FDR10 router)"))
    return rows


#: why a family's ports per endpoint bound SF's saving (balanced variants, Section III)
_PORTS_WHY = {
    "DF": "DF a = 2p = 2h has (4p - 1)/p ports per endpoint, tending to 4",
    "DLN": "DLN has the Dragonfly's routers and radix, (4p - 1)/p ports per endpoint, tending to 4",
    "FBF-3": "FBF-3 c^3 with p = c has (4c - 3)/c ports per endpoint, tending to 4",
    "FT-3": "FT-3 (VI-B) has 5p^2 routers of 2p ports for 2p^3 endpoints: 5 ports per endpoint",
}


def _ports(r) -> float:
    return r.routers * r.radix / r.endpoints


def _cost_cause(f: pd.DataFrame, fam: str, pairs, target: float) -> str:
    """Where and why SF's saving against ``fam`` leaves the band: ports per endpoint."""
    from ..metrics.cost import CostModel

    model = CostModel()
    worst = max(pairs, key=lambda x: abs((1 - x[2] / x[3]) - target))
    s = f[(f.family == "SF") & (f.endpoints == worst[0])].iloc[0]
    o = f[(f.family == fam) & (f.endpoints == worst[1])].iloc[0]
    share = s.routers * float(model.router_cost(s.radix)) / s.endpoints / s.cost_per_node
    extra = {"FBF-3": "; Table IV's FBF-3 prices are reached from its own counts only with 54-93 m fibers "
                      "(slimfly-cost)",
             "DLN": "; Table IV's DLN prices are reached from its own counts only with 60-65 m fibers "
                    "(slimfly-cost)",
             "DF": "; Table IV's 24 % prices SF at k = 43, one port below VI-A's k' + p = 44"}.get(fam, "")
    return (f"routers are {100 * share:.0f} % of SF's cost, so the saving follows the ports per endpoint: SF "
            f"(k' + p)/p = {_ports(s):.2f} at N = {worst[0]:,} (tending to 3), {_PORTS_WHY.get(fam, fam)} "
            f"({_ports(o):.2f} at N = {worst[1]:,}); worst at N = {worst[0]:,}: "
            f"${s.cost_per_node:,.0f} against ${o.cost_per_node:,.0f}{extra}")


def _power_cause(f: pd.DataFrame, fam: str, pairs) -> str:
    worst = min(pairs, key=lambda x: 1 - x[2] / x[3])
    s = f[(f.family == "SF") & (f.endpoints == worst[0])].iloc[0]
    o = f[(f.family == fam) & (f.endpoints == worst[1])].iloc[0]
    return (f"power is ports per endpoint x 2.8 W: SF (k' + p)/p = {_ports(s):.2f} at N = {worst[0]:,} "
            f"({s.power_per_node} W; tends to 3 from below), {_PORTS_WHY.get(fam, fam)} ({_ports(o):.2f}, "
            f"{o.power_per_node} W at N = {worst[1]:,}): the saving tends to 1 - 3/4 = 25 % from below; "
            "Table IV's 8.02 W prices SF at k = 43, one port below VI-A's k' + p = 44")


# ----------------------------------------------------------------------------- figures
def _draw_5c(b: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._figs_common import save_figure

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for fam in FAMILIES:
        g = b[(b.family == fam)].dropna(subset=["bisection_links"]).sort_values("endpoints")
        if len(g):
            ax.plot(g.endpoints, g.bisection_links.astype(float) * FIG5C_GBPS / 1000.0, marker="o", ms=3,
                    color=_COLORS[fam], label=fam)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Number of endpoints N")
    ax.set_ylabel("Bisection bandwidth [Tb/s] (10 Gb/s per link)")
    ax.set_title("Slim Fly Fig. 5c: bisection bandwidth")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    for suffix in (".png", ".pdf"):
        save_figure(fig if suffix == ".pdf" else _copy(fig), path.with_suffix(suffix))


def _copy(fig):
    """The same figure again (save_figure closes what it saves)."""
    import pickle

    return pickle.loads(pickle.dumps(fig))


def _draw_cost(c: pd.DataFrame, cable: str, params: dict, source: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..metrics.cost import CostModel
    from ._figs_common import save_figure

    model = CostModel(**params)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5))
    ax = axes[0, 0]
    x = np.linspace(0, 30, 61)
    ax.plot(x, model.cable_cost(x, False), label="electric")
    ax.plot(x, model.cable_cost(x, True), label="optical")
    ax.set_xlabel("Cable length [m]")
    ax.set_ylabel("Cost per cable [$]")
    ax.set_title(f"(a) Cable cost model: {CABLES[cable]['name']}", fontsize=9)
    ax.legend(fontsize=8)
    ax = axes[0, 1]
    k = np.arange(8, 109)
    ax.plot(k, model.router_cost(k))
    ax.set_xlabel("Router radix k")
    ax.set_ylabel("Cost per router [$]")
    ax.set_title("(b) Router cost model: Mellanox IB FDR10", fontsize=9)
    g = c[c.cable == cable]
    for fam in FAMILIES:
        h = g[g.family == fam].sort_values("endpoints")
        if len(h):
            axes[1, 0].plot(h.endpoints, h.total_cost / 1e6, marker="o", ms=3, color=_COLORS[fam], label=fam)
            axes[1, 1].plot(h.endpoints, h.total_power_w / 1e3, marker="o", ms=3, color=_COLORS[fam], label=fam)
    for ax, what, title in ((axes[1, 0], "Total cost [M$]", "(c) Total cost of the network"),
                            (axes[1, 1], "Total power [kW]", "(d) Total power consumed by the network")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Number of endpoints N")
        ax.set_ylabel(what)
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle(f"Slim Fly Fig. {CABLES[cable]['figure']}: " + source.replace("$", r"\$"), fontsize=7)
    fig.tight_layout()
    for suffix in (".png", ".pdf"):
        save_figure(fig if suffix == ".pdf" else _copy(fig), path.with_suffix(suffix))


# ----------------------------------------------------------------------------- command
@register_experiment("slimfly-curves", paper="Slim Fly (Besta & Hoefler) III-C, VI-B, VI-C, Figs. 5c, 11-13")
def slimfly_curves(*, max_endpoints: int = 100000, cables: str = "fdr10,eth10,qdr56",
                   eth10_electric: str = "", eth10_optical: str = "", qdr56_electric: str = "",
                   qdr56_optical: str = "", runs: int = 2, check_routers: int = 1100, quick: bool = False,
                   table_iv: bool = True, out: str = "slimfly-curves", force: bool = False,
                   seed: int = 0) -> ExperimentResult:
    """Slim Fly Fig. 5c (bisection bandwidth against N) and Figs. 11-13 (cost and power).

    Parameters
    ----------
    max_endpoints : int
        Largest network of every family, in endpoints, in [200, 100000].
    cables : str
        Cable types (figures) to price, comma-separated: ``fdr10`` (Fig. 11), ``eth10``
        (Fig. 12), ``qdr56`` (Fig. 13).
    eth10_electric, eth10_optical, qdr56_electric, qdr56_optical : str
        ``per_metre,base`` in $/Gb/s of that cable, as read off Fig. 12a / 13a (the text
        does not print them); default: FDR10's fit as a stated stand-in.
    runs : int
        Seeded METIS runs per bisection, in [1, 20].
    check_routers : int
        Direct networks up to this many routers also get an independent METIS cut.
    quick : bool
        Networks up to 2,500 endpoints and no Table IV points: seconds.
    table_iv : bool
        Also price Table IV's columns with ``slimfly-cost``'s code (marked in the table).
    out : str
        Folder for the figures (``fig5c``, ``fig11``..``fig13``, PNG and PDF) and the tables
        as CSV; must be new or empty (or ``--force``); empty string: no files.
    force : bool
        Replace a non-empty ``out``.
    seed : int
        Seed of the random networks (DLN) and the partitioners.

    Returns
    -------
    ExperimentResult
        ``table``: cost and power per network and cable (``family, config, cable, figure,
        endpoints, routers, radix, electric, fiber, avg_fiber_m, cost_per_node,
        power_per_node, total_cost, total_power_w, source, cable_source``).
        ``extra_tables["bisection"]``: Fig. 5c per network (``bisection_links``,
        ``bandwidth_gbps``, ``lower_bound``, ``exact``, ``method``, the paper's formula and
        value, ``partitioner_links``).  ``extra_tables["claims"]``: each statement with
        paper, ours, tolerance, verdict (holds / differs / not reproducible) and cause.
        ``extra_tables["table_iv"]``: Table IV's columns under each cable.

    Raises
    ------
    ParameterError
        For a parameter out of range, an unknown cable, or a malformed price pair.
    OutputError
        If ``out`` is not empty and ``force`` is not given.
    """
    from ..output import check_dir_output, output_dir

    max_endpoints = check_int("max_endpoints", max_endpoints, 200, 100000)
    runs = check_int("runs", runs, 1, 20)
    check_routers = check_int("check_routers", check_routers, 0, 100000)
    names = [x.strip() for x in str(cables).split(",") if x.strip()]
    if not names:
        raise ParameterError(f"cables must name at least one of {', '.join(CABLES)}")
    for name in names:
        if name not in CABLES:
            raise ParameterError(f"unknown cable {name!r}; cables are {', '.join(CABLES)}")
    given = {"eth10": {"electric": _pair(eth10_electric, "eth10_electric"),
                       "optical": _pair(eth10_optical, "eth10_optical")},
             "qdr56": {"electric": _pair(qdr56_electric, "qdr56_electric"),
                       "optical": _pair(qdr56_optical, "qdr56_optical")}}
    models = {name: cable_params(name, given.get(name)) for name in dict.fromkeys(names)}
    if quick:
        max_endpoints, table_iv = min(max_endpoints, 2500), False
    if out:
        check_dir_output(out, force=force)
    seed = resolve_seed(seed)
    params = {name: m[0] for name, m in models.items()}
    brows, crows = [], []
    for fam in FAMILIES:
        for point in family_points(fam, max_endpoints):
            topo = point["build"]() if point["build"] is not None else None
            if fam == "FT-3":
                p = point["p"]
                if 5 * p * p <= 20000:
                    topo = _ft3_tree(p)
                    counts = (topo.num_switches, topo.num_links, int(np.sum(topo.hosts)))
                    if counts != (point["routers"], point["router_links"], point["endpoints"]):
                        raise ParameterError(f"the VI-B tree p={p} has {counts}, not the formula's counts")
            if topo is not None:
                brows.append(bisection_row(point, topo, runs=runs, seed=seed, check_routers=check_routers))
            else:
                brows.append(dict(family=fam, config=point["config"], endpoints=point["endpoints"],
                                  bisection_formula=BISECTION_FORMULAS[fam][0], paper_links=point["endpoints"] // 2,
                                  bisection_links=None, lower_bound=None, exact=False, partitioner_links=None,
                                  method="not built"))
            crows += cost_rows(point, topo, {}, params)
    bis = pd.DataFrame(brows)
    bis["bandwidth_gbps"] = bis.bisection_links.astype(float) * FIG5C_GBPS
    bis = bis[["family", "config", "endpoints", "bisection_links", "bandwidth_gbps", "lower_bound", "exact",
               "method", "bisection_formula", "paper_links", "partitioner_links"]]
    for col in ("bisection_links", "lower_bound", "paper_links", "partitioner_links"):
        bis[col] = bis[col].astype("Int64")
    cost = pd.DataFrame(crows)
    cost["cable_source"] = cost.cable.map({k: v[1] for k, v in models.items()})
    claims = pd.DataFrame(_bisection_claims(bis) + _cost_claims(cost))
    extra = {"bisection": bis, "claims": claims}
    if table_iv:
        extra["table_iv"] = table_iv_points(params, seed)
    notes = [
        f"Figs. 11-13 constants: routers 350.4 k - 892.3 $ (VI-B2 text), 4 lanes x 0.7 W per port (VI-C "
        f"text), the same for every cable (the captions name the IB FDR10 router in all three).  Cables: "
        + " | ".join(f"Fig. {CABLES[k]['figure']} {CABLES[k]['name']}: {v[1]}" for k, v in models.items()),
        "Power depends on the routers only, so panels (d) of Figs. 11-13 are one curve set.",
        "The text cites 'Figure 13a/13b/13c/13d' for the FDR10 model and the cost results while the captions "
        "put FDR10 in Fig. 11 and QDR56 in Fig. 13; ours follows the captions.",
        "The text copy has no plotted values: the sizes are the paper's balanced variants (Section III) "
        f"from 200 to {max_endpoints:,} endpoints, all built (FT-3 priced by VI-B's formula, its counts "
        "checked on the built tree); comparisons pair each Slim Fly with the other family's network "
        "nearest in log N (within a factor 2).",
        "DLN is VI-B3's: the Dragonfly's groups (a routers per rack, same routers, p and network radix "
        "a - 1 + h) with random cables (RING).",
    ]
    if quick:
        notes.append("--quick: networks up to 2,500 endpoints, no Table IV points.")
    if out:
        with output_dir(out, force=force) as tmp:
            _draw_5c(bis, tmp / "fig5c")
            for name, (prm, src) in models.items():
                _draw_cost(cost, name, prm, src, tmp / f"fig{CABLES[name]['figure']}")
            for label, frame in (("cost", cost), ("bisection", bis), ("claims", claims)):
                (tmp / f"{label}.csv").write_text(frame.to_csv(index=False))
        notes.append(f"Figures and tables: {out}/ (fig5c, " + ", ".join(
            f"fig{CABLES[n]['figure']}" for n in models) + " as .png and .pdf; cost.csv, bisection.csv, claims.csv)")
    return ExperimentResult(
        title="Slim Fly Fig. 5c (bisection bandwidth) and Figs. 11-13 (cost and power) against N",
        table=cost, notes=notes, extra_tables=extra)
