"""``topogen reproduce dsnf``: the graph and layout analysis of DSN-F (Truong et al. IV).

Tables (the paper's Figures 4-7 are plots; numbers it prints in the text are put beside
ours in the ``claims`` table):

* main table (Fig. 5, 6, 7): diameter, average shortest path length (ASPL) and average
  cable length of 2-D torus, DLN-4, DSN and DSN-F for 2**7 .. 2**12 switches, on the
  floor of IV-C (``Floor.dsn``: 16 switches per cabinet, 0.6 m x 2.1 m cabinets on a
  ceil(sqrt(c))-row grid, 2 m intra-cabinet cables, Manhattan distance + 2 m per end);
* ``fig4``: diameter and ASPL of a 1,024-node DSN-F (p = 7) as 0..1,024 nodes are added
  by the expansion method of III-D, for both readings of the node order (``fill``), with
  the routing diameter of Fig. 2 and the bound 2 (p + K - 1) of Theorem 1b;
* ``transformation``: cables added / removed / kept by the p -> p+1 transformation
  (III-D) against the paper's p + 7 per super-node (III-E);
* ``dsn_x``: DSN-x for every x in [1, p - 1] at each size (average degree, diameter,
  ASPL with both denominators) and how much lower DSN-F is, the evidence for the
  IV-B discrepancy discussed below;
* ``claims``: the statements of III-C, IV-A, IV-B, IV-C and III-E, paper vs ours.

IV-B's "at most 16.7 % and 4.6 % lower" (Fig. 5, 6): the diameter figure is reproduced
exactly (16.67 %, 2,048 switches, 10 vs 12 hops) with DSN = DSN-x, x = p - 1,
p = ceil(log2 n) (II-A as written).  The ASPL figure is not reached by any reading
(measured in docs/topologies/dsn.md): x = p - 1 gives DSN its most shortcuts and its
lowest ASPL (every smaller x lowers the degree and lengthens paths, so "same degree"
cannot mean another x; no x reaches degree 4, and III-C itself says DSN-F's average
degree is "a bit higher" than DSN's); at 4,096 switches DSN-F has two complete layers
(both fills coincide) and is 6.76 % below DSN; the N(N-1) and N**2 denominators give the
same relative gap.  Only a smaller p than II-A's ceil(log2 n) brings DSN's ASPL within
4.6 %, and then the 16.7 % diameter gap disappears.

IV-C's cable reductions (17.72 % at 2**7, 24.82 % at 2**12) are read against DSN (the
only baseline within ~1 point at both sizes).  They depend on the placement: the paper
uses the clustering + simulated-annealing method of its ref. [5] (stochastic, schedule
not given); ``cabinet_order`` offers the deterministic row-major order and [5]'s
serpentine baseline, which bracket the paper's 2**12 figure (25.98 / 24.01 %).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validate import check_int
from ..errors import ParameterError
from ..generators.classic import torus
from ..generators.dsn import dln, dsn, dsnf, dsnf_size_range, labels_of, transform
from ..layout import Floor, Layout, place
from ..metrics import distance_stats
from ..registry import register_experiment
from ..routing.dsnf import dsnf_route_lengths, routing_diameter_bound
from ._base import ExperimentResult

TOPOLOGIES = ("2-D torus", "DLN-4", "DSN", "DSN-F")
CABINET_ORDERS = ("row-major", "serpentine")


def _cabinet_locations(floor: Floor, order: str) -> np.ndarray:
    """Floor cabinet of the k-th cabinet of a placement: row-major (``Floor``'s own
    numbering) or serpentine (left to right along row 0, right to left along row 1, ...,
    the baseline mapping of the layout-conscious paper, ref. [5] of DSN-F)."""
    if order == "row-major":
        return np.arange(floor.cabinets, dtype=np.int64)
    if order != "serpentine":
        raise ParameterError(f"cabinet_order must be one of {', '.join(CABINET_ORDERS)}, "
                             f"got {order!r}")
    grid = np.arange(floor.rows * floor.columns, dtype=np.int64).reshape(floor.rows,
                                                                         floor.columns)
    grid[1::2] = grid[1::2, ::-1]
    cells = grid.ravel()
    return cells[cells < floor.cabinets]


def _torus_dims(n: int) -> tuple[int, int]:
    """Sides of the 2-D torus of n = 2**m switches: (2**ceil(m/2), 2**floor(m/2))."""
    m = n.bit_length() - 1
    return 2 ** ((m + 1) // 2), 2 ** (m // 2)


def build(label: str, n: int, *, seed: int = 1, switches_per_cabinet: int = 16,
          cabinet_order: str = "row-major"):
    """Topology and layout of one network of Fig. 5-7 (placement documented in notes).

    Switches are grouped into cabinets of ``switches_per_cabinet`` (DSN-F: its native
    grouping by super-node, layer, level; the others: consecutive ids) and the k-th
    group goes to the k-th cabinet of ``cabinet_order`` ("row-major" or "serpentine").
    """
    floor = Floor.dsn(n, switches_per_cabinet)
    loc = _cabinet_locations(floor, cabinet_order)
    if label == "2-D torus":
        t = torus(_torus_dims(n))
    elif label == "DLN-4":
        t = dln(n, 4, seed=seed)
    elif label == "DSN":
        t = dsn(n)
    elif label == "DSN-F":
        t = dsnf(n, switches_per_cabinet=switches_per_cabinet)
        if cabinet_order == "row-major":
            return t, place(t, floor, "native")
        return t, Layout(t, floor, loc[t.cabinet], f"native/{cabinet_order}")
    else:
        raise KeyError(label)
    if cabinet_order == "row-major":
        return t, place(t, floor, "sequential")
    return t, Layout(t, floor, loc[np.arange(n) // switches_per_cabinet],
                     f"sequential/{cabinet_order}")


def _routing_stats(t) -> tuple[int, float]:
    lengths = dsnf_route_lengths(t).astype(np.int64)
    n = t.num_switches
    return int(lengths.max()), float(lengths.sum() / (n * (n - 1)))


def _pct_lower(a: float, b: float) -> float:
    """How much lower a is than b, in % of b."""
    return round(100.0 * (1.0 - a / b), 2)


@register_experiment("dsnf", paper="DSN-F (Truong et al.) III-C, III-D, IV-A..IV-C; Fig. 4-7")
def reproduce_dsnf(*, min_exponent: int = 7, max_exponent: int = 12, base: int = 1024,
                   step: int = 64, switches_per_cabinet: int = 16,
                   seed: int = 1, cabinet_order: str = "row-major") -> ExperimentResult:
    """DSN-F vs 2-D torus, DLN-4 and DSN: diameter, ASPL, cable length, expansion.

    Parameters
    ----------
    min_exponent, max_exponent : int
        Network sizes 2**min_exponent .. 2**max_exponent of Fig. 5-7 (7..12 in the paper).
    base : int
        Size of the DSN-F expanded in Fig. 4 (1,024 in the paper); nodes are added up to
        twice that size.
    step : int
        Nodes added between two rows of the Fig. 4 table.
    switches_per_cabinet : int
        Cabinet capacity of the floor (16 in IV-C).
    seed : int
        Seed of the DLN-4 shortcuts.
    cabinet_order : {"row-major", "serpentine"}
        Order in which the cabinets of each placement fill the floor: the floor's
        row-major numbering (default) or the serpentine baseline of ref. [5] (the paper
        uses [5]'s simulated-annealing mapping, not reproduced; see the module notes).
    """
    lo = check_int("min_exponent", min_exponent, 5, 14)
    hi = check_int("max_exponent", max_exponent, lo, 14)
    base = check_int("base", base, 24, 1 << 14)
    step = check_int("step", step, 1, base)
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    if cabinet_order not in CABINET_ORDERS:
        raise ParameterError(f"cabinet_order must be one of {', '.join(CABINET_ORDERS)}, "
                             f"got {cabinet_order!r}")

    # ---------------------------------------------------------------- Fig. 5, 6, 7
    rows = []
    for e in range(lo, hi + 1):
        n = 2 ** e
        for label in TOPOLOGIES:
            t, layout = build(label, n, seed=seed, switches_per_cabinet=z,
                              cabinet_order=cabinet_order)
            st = distance_stats(t)
            row = {"switches": n, "topology": label, "links": t.num_links,
                   "avg_degree": round(float(t.degrees.mean()), 4), "max_degree": t.degree,
                   "diameter": st.diameter, "aspl": round(st.aspl, 4),
                   "avg_cable_m": round(layout.total_cable_length / t.num_links, 4),
                   "cabinets": layout.floor.cabinets, "params": _short_params(t)}
            if label == "DSN-F":
                rd, ra = _routing_stats(t)
                row.update(routing_diameter=rd, routing_aspl=round(ra, 4),
                           routing_bound=routing_diameter_bound(t))
            rows.append(row)
    table = pd.DataFrame(rows)

    # ---------------------------------------------------------------- IV-B: every DSN-x
    dsn_x = []
    for e in range(lo, hi + 1):
        n = 2 ** e
        ref = {fill: distance_stats(dsnf(n, fill=fill)) for fill in ("sequential", "balanced")}
        for x in range(1, dsn(n).params["p"]):
            t = dsn(n, x)
            st = distance_stats(t)
            dsn_x.append({"switches": n, "p": t.params["p"], "x": x,
                          "avg_degree": round(float(t.degrees.mean()), 4), "max_degree": t.degree,
                          "diameter": st.diameter, "aspl": round(st.aspl, 4),
                          "aspl_n2": round(st.aspl_n2, 4),
                          "dsnf_diameter_lower_pct_seq": _pct_lower(ref["sequential"].diameter,
                                                                    st.diameter),
                          "dsnf_diameter_lower_pct_bal": _pct_lower(ref["balanced"].diameter,
                                                                    st.diameter),
                          "dsnf_aspl_lower_pct_seq": _pct_lower(ref["sequential"].aspl, st.aspl),
                          "dsnf_aspl_lower_pct_bal": _pct_lower(ref["balanced"].aspl, st.aspl)})
    dsn_x = pd.DataFrame(dsn_x)

    # ---------------------------------------------------------------- Fig. 4
    p0 = dsnf(base).params["p"]
    top = min(2 * base, dsnf_size_range(p0)[1])
    fig4 = []
    points = list(range(0, top - base + 1, step))
    if (top - base) % step:
        points.append(top - base)
    for added in points:
        n = base + added
        fig4.append(_fig4_row(added, n, "expanded",
                              {fill: dsnf(n, p=p0, fill=fill) for fill in ("sequential", "balanced")}))
    if top == dsnf_size_range(p0)[1]:
        # every super-node holds 2p + 2 nodes: III-D transforms to p + 1
        after = transform(dsnf(top, p=p0, fill="balanced")).topology
        fig4.append(_fig4_row(top - base, top, "transformed",
                              {"sequential": after, "balanced": after}))
    fig4 = pd.DataFrame(fig4)

    # ---------------------------------------------------------------- III-D transformation
    trans = []
    for p in range(3, 8):
        full = dsnf(dsnf_size_range(p)[1], p=p, fill="balanced")
        ex = transform(full)
        m = 2 ** p
        after = ex.topology
        trans.append({"p": p, "switches": full.num_switches, "super_nodes_before": m,
                      "step_added_per_super_node": ex.steps["added"] / m,
                      "paper_p_plus_7": p + 7,
                      "step_removed_per_super_node": ex.steps["removed"] / m,
                      "new_cables_per_super_node": len(ex.added) / m,
                      "cables_out_per_super_node": len(ex.removed) / m,
                      "kept_per_super_node": len(ex.kept) / m,
                      "relabelled_per_super_node": len(ex.relabelled) / m,
                      "links_per_super_node": full.num_links / m, "paper_4p_plus_4": 4 * p + 4,
                      "step_share": round(ex.steps["added"] / full.num_links, 4),
                      "new_cable_share": round(len(ex.added) / full.num_links, 4),
                      "paper_share": round((p + 7) / (4 * p + 4), 4),
                      "after_p": after.params["p"],
                      "after_avg_degree": float(after.degrees.mean()),
                      "after_max_degree": after.degree,
                      "after_equals_dsnf": bool(np.array_equal(after.edges,
                                                               dsnf(full.num_switches).edges))})
    trans = pd.DataFrame(trans)

    claims = _claims(table, fig4, trans, lo, hi, dsn_x)
    notes = [
        "Floor (IV-C): Floor.dsn(n, 16): ceil(n/16) cabinets on a ceil(sqrt(c))-row grid, "
        "0.6 m x 2.1 m, Manhattan distance + 2 m per end between cabinets, 2 m inside one.",
        "Placement: DSN-F native (switches sorted by super-node, layer, level, 16 per "
        "cabinet: IV-C's 'one super-node per cabinet' when it holds 16 nodes); torus, "
        "DLN-4 and DSN sequential by id (ring order; torus rows of 2**ceil(m/2)); cabinets "
        f"filled in {cabinet_order} order. The paper uses the clustering + simulated-"
        "annealing mapping of its ref. [5] (stochastic, schedule not given), not reproduced "
        "here, so cable figures are for these simple placements: against DSN, row-major "
        "gives 18.72 / 25.98 % at 2^7 / 2^12 and serpentine 18.13 / 24.01 % (paper 17.72 / "
        "24.82 %); the exact optimum of the 2^7 cabinet mapping (8! orders) gives 17.96 %.",
        "DSN = DSN-x with x = p - 1, p = ceil(log2 n) (II-A); DSN-F p from "
        "p 2**p <= n < (p+1) 2**(p+1) (III-B-1); DLN-4 = ring + 2 random shortcuts per node "
        f"(seed {seed}).",
        "ASPL over the n(n-1) ordered pairs of distinct switches; exact BFS (an n^2 "
        "denominator scales both topologies of a size alike: same % gaps).",
        "IV-B (table dsn_x): DSN-F's diameter is at most 16.67 % below DSN's (2048: 10 vs "
        "12), the paper's 16.7 %. Its ASPL is up to 11.8 % below (256 switches), and 6.76 % "
        "at 4096 where DSN-F is unambiguous (two complete layers): no x in [1, p-1] and no "
        "fill reaches the paper's 4.6 % (x = p - 1 has the most shortcuts and the lowest "
        "ASPL; III-C says DSN-F's average degree is 'a bit higher' than DSN's, so DSN is "
        "not degree 4). See docs/topologies/dsn.md for the readings measured.",
        f"Fig. 4: p = {p0} while nodes are added (stage 'expanded'); at {top} switches every "
        "super-node of the balanced fill holds 2p + 2 nodes and III-D transforms it to "
        f"p = {p0 + 1} (stage 'transformed', = dsnf({top})). Only the transformed network "
        "makes the diameter at x = 1024 lower than at x = 768, as IV-A states, so the paper's "
        "last point is read as the transformed one. 'seq' = the labeling of III-B-1 verbatim "
        "(layer 1 fills super-node 0 first), 'bal' = added nodes dealt to the super-nodes in "
        "turn (each original super-node doubles, as IV-A says). Routing columns: the Fig. 2 "
        "algorithm (corrected, see docs/topologies/dsn.md); routing_bound = 2 (p + K - 1).",
        "The paper prints no table; its plotted values cannot be read off the text, so the "
        "claims table compares the statements the text makes.",
    ]
    return ExperimentResult(
        title=f"DSN-F (Truong et al.) IV: 2^{lo}..2^{hi} switches, {z} switches per cabinet",
        table=table, notes=notes,
        extra_tables={"fig4": fig4, "transformation": trans, "dsn_x": dsn_x,
                      "aspl_gap_readings": aspl_gap_readings(dsn_x, table), "claims": claims})


PAPER_ASPL_GAP = 4.6


def aspl_gap_readings(dsn_x: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """IV-B's "ASPL of DSN-F at most 4.6 % lower than DSN", every reading of the sentence
    computed from the DSN-x sweep (``dsn_x``: DSN-F of both fills against every DSN-x).

    One row per reading: the value it gives, and whether it reaches 4.6 (within the 0.05
    of the paper's one decimal).  The last row is the arithmetic at the largest size,
    where DSN-F is unambiguous (complete layers: both fills coincide): the DSN ASPL the
    paper's figure needs against the lowest any DSN-x has."""
    if not len(dsn_x):
        return pd.DataFrame()
    full = dsn_x[dsn_x.x == dsn_x.p - 1]
    rows = []

    def add(reading, values, how):
        v = float(values)
        rows.append({"reading": reading, "value_pct": round(v, 2), "how": how,
                     "reaches_4_6": abs(v - PAPER_ASPL_GAP) <= 0.05})

    for fill in ("seq", "bal"):
        gaps = full[f"dsnf_aspl_lower_pct_{fill}"]
        at = int(full.loc[gaps.idxmax(), "switches"])
        add(f"max over sizes of 100 (1 - DSN-F / DSN), x = p - 1, {fill} fill", gaps.max(), f"at {at} switches")
        add(f"mean over sizes, {fill} fill", gaps.mean(), f"{len(gaps)} sizes")
        pos = gaps[gaps > 0.05]
        add(f"smallest positive gap over sizes, {fill} fill", pos.min(),
            f"at {int(full.loc[pos.idxmin(), 'switches'])} switches")
        # the gap measured against DSN-F's ASPL instead of DSN's: 100 (DSN / DSN-F - 1)
        rel = 100.0 * (1.0 / (1.0 - gaps / 100.0) - 1.0)
        add(f"max of 100 (DSN / DSN-F - 1) (against DSN-F), {fill} fill", rel.max(), "")
        dgap = full[f"dsnf_diameter_lower_pct_{fill}"]
        n16 = int(full.loc[dgap.idxmax(), "switches"])
        add(f"at the size of the largest diameter gap ({n16}), {fill} fill",
            gaps[full.switches == n16].iloc[0], f"diameter gap {dgap.max():.2f} %")
    best = [min(g.dsnf_aspl_lower_pct_seq.min(), g.dsnf_aspl_lower_pct_bal.min()) for _, g in dsn_x.groupby("switches")]
    add("max over sizes of the smallest gap over every x in [1, p - 1] and both fills", max(best),
        "the least 'at most' any DSN-x gives")
    top = full[full.switches == full.switches.max()].iloc[0]
    n_top = int(top.switches)
    dsnf_aspl = float(table[(table.switches == n_top) & (table.topology == "DSN-F")].aspl.iloc[0])
    need = dsnf_aspl / (1.0 - (PAPER_ASPL_GAP + 0.05) / 100.0)
    lowest = dsn_x[dsn_x.switches == top.switches].aspl.min()
    add(f"largest size only ({n_top}: DSN-F ASPL {dsnf_aspl:.4f}, both fills)", top.dsnf_aspl_lower_pct_seq,
        f"4.6 % needs a DSN ASPL <= {need:.4f}; the lowest DSN-x has {lowest:.4f}")
    return pd.DataFrame(rows)


def _fig4_row(added: int, n: int, stage: str, nets: dict) -> dict:
    row = {"added": added, "switches": n, "stage": stage}
    for fill, t in nets.items():
        st = distance_stats(t)
        rd, ra = _routing_stats(t)
        key = "seq" if fill == "sequential" else "bal"
        row.update({f"diameter_{key}": st.diameter, f"aspl_{key}": round(st.aspl, 4),
                    f"routing_diameter_{key}": rd, f"routing_aspl_{key}": round(ra, 4),
                    f"avg_degree_{key}": round(float(t.degrees.mean()), 4),
                    f"max_degree_{key}": t.degree})
    t = nets["balanced"]
    row["p"] = t.params["p"]
    row["layers_K"] = labels_of(t).num_layers
    row["routing_bound"] = routing_diameter_bound(t)
    return row


def _short_params(t) -> str:
    keys = {"dsnf": ("p",), "dsn": ("p", "x"), "dln": ("x", "seed"), "torus": ("dims",)}
    return ", ".join(f"{k}={t.params[k]}" for k in keys.get(t.name, ()) if k in t.params)


def _claims(table: pd.DataFrame, fig4: pd.DataFrame, trans: pd.DataFrame, lo: int,
            hi: int, dsn_x: pd.DataFrame | None = None) -> pd.DataFrame:
    by = table.set_index(["switches", "topology"])
    sizes = sorted(table["switches"].unique())
    out = []

    def add(section, claim, paper, ours, holds):
        out.append({"section": section, "claim": claim, "paper": paper, "ours": ours,
                    "holds": bool(holds) if holds is not None else None})

    d_red = [float(_pct_lower(by.loc[(n, "DSN-F"), "diameter"], by.loc[(n, "DSN"), "diameter"]))
             for n in sizes]
    a_red = [float(_pct_lower(by.loc[(n, "DSN-F"), "aspl"], by.loc[(n, "DSN"), "aspl"]))
             for n in sizes]
    add("IV-B", "DSN-F diameter at most x% lower than DSN", "16.7",
        f"max {max(d_red)} (per size: {d_red})", round(max(d_red), 1) == 16.7)
    add("IV-B", "DSN-F ASPL at most x% lower than DSN", "4.6",
        f"max {max(a_red)} (per size: {a_red})", round(max(a_red), 1) == 4.6)
    if dsn_x is not None and len(dsn_x):
        # the DSN-x (any x) and DSN-F fill closest to the paper at each size
        best = [float(min(g.dsnf_aspl_lower_pct_seq.min(), g.dsnf_aspl_lower_pct_bal.min()))
                for _, g in dsn_x.groupby("switches")]
        add("IV-B", "DSN-F ASPL at most x% lower than DSN, any x in [1, p-1] and either fill",
            "4.6", f"smallest gap per size over x and fill: {best}; the largest of these, "
            f"{max(best)}, is the least 'at most' any reading can give", max(best) <= 4.65)
    for metric in ("diameter", "aspl"):
        lowest = all(by.loc[(n, "DLN-4"), metric] == table[table.switches == n][metric].min()
                     for n in sizes)
        highest = all(by.loc[(n, "2-D torus"), metric] == table[table.switches == n][metric].max()
                      for n in sizes)
        add("IV-B", f"DLN lowest and 2-D torus highest {metric} at every size",
            "yes", f"DLN lowest: {lowest}, torus highest: {highest}", lowest and highest)
    for n, paper in ((2 ** 7, "17.72"), (2 ** 12, "24.82")):
        if n not in by.index.get_level_values(0):
            continue
        vs_dsn = _pct_lower(by.loc[(n, "DSN-F"), "avg_cable_m"], by.loc[(n, "DSN"), "avg_cable_m"])
        vs_tor = _pct_lower(by.loc[(n, "DSN-F"), "avg_cable_m"],
                            by.loc[(n, "2-D torus"), "avg_cable_m"])
        vs_dln = _pct_lower(by.loc[(n, "DSN-F"), "avg_cable_m"], by.loc[(n, "DLN-4"), "avg_cable_m"])
        add("IV-C", f"DSN-F reduces the average cable length by x% at {n} switches "
            "(the paper does not say against what)", paper,
            f"vs DSN {vs_dsn}, vs 2-D torus {vs_tor}, vs DLN-4 {vs_dln}", None)
    exp = fig4[fig4.stage == "expanded"].set_index("added")
    tr = fig4[fig4.stage == "transformed"].set_index("added")
    if 768 in exp.index and 1024 in exp.index:
        for key, name in (("seq", "sequential"), ("bal", "balanced")):
            a, b = int(exp.loc[1024, f"diameter_{key}"]), int(exp.loc[768, f"diameter_{key}"])
            add("IV-A", f"diameter at x = 1024 slightly lower than at x = 768 (p = 7 kept, "
                f"{name} fill)", "lower", f"{a} vs {b}", a < b)
        if 1024 in tr.index:
            a, b = int(tr.loc[1024, "diameter_bal"]), int(exp.loc[768, "diameter_bal"])
            add("IV-A", "diameter at x = 1024 slightly lower than at x = 768 (x = 1024 "
                "transformed to p = 8)", "lower", f"{a} vs {b}", a < b)
    worse = [int(n) for n in sizes
             if by.loc[(n, "DSN-F"), "avg_cable_m"] > max(by.loc[(n, "DSN"), "avg_cable_m"],
                                                          by.loc[(n, "2-D torus"), "avg_cable_m"])]
    add("IV-C", "DSN-F cable similar to DSN and 2-D torus except at 2^10 and 2^11 switches",
        "exceptions 1024, 2048", f"DSN-F longer than both at: {worse}", None)
    ok = all(fig4[f"routing_diameter_{k}"].le(fig4["routing_bound"]).all() for k in ("seq", "bal"))
    dsnf_rows = table[table.topology == "DSN-F"]
    ok = ok and bool((dsnf_rows["routing_diameter"] <= dsnf_rows["routing_bound"]).all())
    add("III-C", "Theorem 1b: routing diameter <= 2 (p + K - 1)", "always",
        "holds at every size of both tables" if ok else "VIOLATED", ok)
    full = dsnf_rows[dsnf_rows.switches.isin(
        [n for n in sizes if n % (int(dsnf(n).params['p']) * 2 ** int(dsnf(n).params['p'])) == 0])]
    add("III-C", "Theorem 1a: average degree 4, maximum 5", "4 / 5",
        f"complete layers ({', '.join(map(str, full.switches))}): "
        f"{sorted(set(full.avg_degree))} / {sorted(set(full.max_degree))}; "
        f"max over all: {int(dsnf_rows.max_degree.max())}",
        (full.avg_degree == 4).all() and dsnf_rows.max_degree.max() <= 5)
    add("III-E", "transformation rewires p + 7 cables per super-node", "p + 7",
        f"step list adds {list(trans.step_added_per_super_node)} for p = {list(trans.p)}; "
        f"as cables {list(trans.new_cables_per_super_node)} new (one Layer_Link per "
        "super-node becomes the S_A -> S_B Succ link in place)",
        (trans.step_added_per_super_node == trans.paper_p_plus_7).all())
    add("III-E", "rewired share (p + 7) / (4p + 4)", str(list(trans.paper_share)),
        f"steps {list(trans.step_share)}, new cables {list(trans.new_cable_share)} (links "
        f"per super-node {list(trans.links_per_super_node)}: layer 2's two-node ring is one "
        "cable here)", None)
    add("III-D", "transformed network is a DSN-F with p + 1", "yes",
        str(bool(trans.after_equals_dsnf.all())), trans.after_equals_dsnf.all())
    return pd.DataFrame(out)
