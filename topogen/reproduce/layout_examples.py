"""``topogen reproduce layout-examples``: the two worked examples of the layout-conscious
random topologies paper (Koibuchi et al., HPCA 2013), Fig. 2 (III-A) and Fig. 11 (IV-A).

Fig. 2: "Example 18-switch 3-cabinet baseline non-random topology and permuted topology".
The text names neither the baseline nor the permutation method of the drawing; we take a
6 x 3 torus (TORUS-4 of Table 1 in small: its first dimension, a ring of 6, fills a
cabinet, the second joins the 3 cabinets) placed sequentially, 6 switches per cabinet,
and permute it both ways of III-A (``P-``: the two-step partially random method, ``PF-``:
the fully random one).  What the figure shows and III-A states, checked on every seed
with counts made here from the link lists (not the generator's own bookkeeping):

* 18 switches in 3 cabinets of 6; the baseline's links, degrees, links inside each
  cabinet and between each pair of cabinets;
* a permuted topology has the same number of links inside each cabinet and between
  every two cabinets, hence the same cable length and the same cabinet-aligned bisection,
  and every switch keeps its degree (a swap ``a-b, c-d -> a-d, c-b`` keeps the degrees);
* ``P-`` also keeps, per switch, its number of links to each cabinet (its swaps stay
  among the links of one cabinet or of one cabinet pair); ``PF-`` mixes intra- and
  inter-cabinet links and need not;
* the permuted topology is simple, connected and not the baseline.

Fig. 11: constrained shortcutting "for a topolog[y] with N = 64 vertices": a ring whose
random shortcuts "are constrained to not bypass more than 0.35 x N vertices (note that
there are no cross-cutting shortcuts)", clustered into "six clusters" (step 2), each
cluster mapped to a cabinet (step 3), the thickness of a cluster-graph edge its number
of links.  This is IV-B's Nbr(p)-n with N p / 2 = 0.35 N, i.e. p = 0.7; the degree is
not given (default 4: two shortcut rounds) and the cabinet holds 16 switches, as in the
rest of the paper.  Checked over ``seeds`` instances: the longest shortcut (ring hops;
it bypasses one switch fewer) against 0.35 N, no shortcut across the ring's centre
(N / 2 hops), the number of clusters the size-capped Walktrap
(:func:`topogen.layout.clustering.walktrap_clusters`, walk length 4, leftovers not
packed) forms with 16-switch cabinets (the spread over the seeds), every cluster within a
cabinet, the cluster graph's edge weights against a count of the links, and the annealed
mapping's cable against the serpentine one.  The drawn instance is the first seed whose
clustering has six clusters, as the paper's does (it draws one random instance).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from .._rng import child_seeds
from .._validate import check_int
from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult

#: Fig. 2: switches per cabinet, cabinets (the 6 x 3 torus)
FIG2_Z, FIG2_CABINETS = 6, 3
#: Fig. 11: switches, the shortcut bound (fraction of N), the paper's cluster count, the cabinet
FIG11_N, FIG11_BOUND, FIG11_CLUSTERS, FIG11_Z = 64, 0.35, 6, 16
#: Walktrap walk length (the paper gives none; Pons and Latapy recommend 3 to 5)
WALK_STEPS = 4


# --------------------------------------------------------------------------- Fig. 2
def fig2_layouts(seed: int):
    """The baseline 6 x 3 torus on 3 cabinets of 6 (sequential) and its P- and PF-
    permutations from ``seed``: ``{"baseline": Layout, "P": Layout, "PF": Layout}``."""
    from ..generators.classic import torus
    from ..generators.permute import permute
    from ..layout import Floor, place

    floor = Floor(FIG2_CABINETS, FIG2_Z)
    base = place(torus((FIG2_Z, FIG2_CABINETS)), floor, "sequential")
    return {"baseline": base,
            "P": permute(base, "partial", seed=seed, name="P-TORUS (6 x 3)"),
            "PF": permute(base, "full", seed=seed, name="PF-TORUS (6 x 3)")}


def link_counts(edges, cabinet) -> Counter:
    """Links per cabinet pair ``(a, b)``, ``a <= b`` (``(a, a)``: inside cabinet a), counted
    link by link."""
    out: Counter = Counter()
    for u, v in np.asarray(edges).tolist():
        a, b = int(cabinet[u]), int(cabinet[v])
        out[min(a, b), max(a, b)] += 1
    return out


def links_to_cabinets(edges, cabinet, n: int) -> Counter:
    """Per switch and cabinet, the switch's links into that cabinet, counted link by link."""
    out: Counter = Counter()
    for u, v in np.asarray(edges).tolist():
        out[u, int(cabinet[v])] += 1
        out[v, int(cabinet[u])] += 1
    return out


def _connected(n: int, edges) -> bool:
    adj = [[] for _ in range(n)]
    for u, v in np.asarray(edges).tolist():
        adj[u].append(v)
        adj[v].append(u)
    seen, stack = {0}, [0]
    while stack:
        for w in adj[stack.pop()]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return len(seen) == n


def fig2_row(seed: int) -> list[dict]:
    """One row per topology of :func:`fig2_layouts` (``seed``): its counts and the checks."""
    from ..metrics import distance_stats

    lays = fig2_layouts(seed)
    base = lays["baseline"]
    cab = base.cabinet
    n = base.topology.num_switches
    b_edges = base.topology.edges
    b_counts = link_counts(b_edges, cab)
    b_deg = np.bincount(b_edges.ravel(), minlength=n)
    b_to = links_to_cabinets(b_edges, cab, n)
    b_set = {tuple(sorted(e)) for e in b_edges.tolist()}
    rows = []
    for kind, lay in lays.items():
        e = lay.topology.edges
        counts = link_counts(e, lay.cabinet)
        deg = np.bincount(e.ravel(), minlength=n)
        pairs = {tuple(sorted(x)) for x in e.tolist()}
        d = distance_stats(lay.topology)
        rows.append({
            "seed": seed, "topology": kind, "switches": n,
            "cabinets": int(len(np.unique(lay.cabinet))),
            "per_cabinet": ",".join(str(x) for x in np.bincount(lay.cabinet)),
            "links": len(e),
            "intra": sum(v for (a, b), v in counts.items() if a == b),
            "inter": sum(v for (a, b), v in counts.items() if a != b),
            "pair_counts_kept": counts == b_counts,
            "cable_m": round(lay.total_cable_length, 3),
            "cable_kept": math.isclose(lay.total_cable_length, base.total_cable_length, rel_tol=1e-12),
            "degrees_kept": bool(np.array_equal(deg, b_deg)),
            "cabinet_degrees_kept": links_to_cabinets(e, lay.cabinet, n) == b_to,
            "simple": len(pairs) == len(e) and all(u != v for u, v in e.tolist()),
            "connected": _connected(n, e),
            "links_changed": len(pairs - b_set),
            "diameter": int(d.diameter), "aspl": round(float(d.aspl), 4),
        })
    return rows


def fig2_claims(t: pd.DataFrame) -> list[dict]:
    """The structural facts of Fig. 2 / III-A over the seeds of ``t`` (:func:`fig2_row` rows)."""
    base = t[t.topology == "baseline"]
    perm = t[t.topology != "baseline"]
    k = t.seed.nunique()
    out = []

    def add(claim, paper, ours, ok, tol="exact"):
        out.append({"figure": "Fig. 2", "claim": claim, "paper": paper, "topogen": ours, "tolerance": tol,
                    "verdict": "holds" if ok else "differs"})

    b = base.iloc[0]
    add("18 switches in 3 cabinets", "18, 3 x 6", f"{b.switches}, {b.cabinets} x {b.per_cabinet}",
        b.switches == 18 and b.cabinets == 3 and b.per_cabinet == "6,6,6")
    for kind in ("P", "PF"):
        g = perm[perm.topology == kind]
        add(f"{kind}-: links inside each cabinet and between every two cabinets as the baseline's "
            "(bisection and cable length conserved)", "identical",
            f"{int(g.pair_counts_kept.sum())} of {k} seeds; cable {g.cable_m.min():g}-{g.cable_m.max():g} m "
            f"(baseline {b.cable_m:g})", bool(g.pair_counts_kept.all() and g.cable_kept.all()))
        add(f"{kind}-: every switch keeps its degree; simple and connected", "degree 4",
            f"{int((g.degrees_kept & g.simple & g.connected).sum())} of {k} seeds",
            bool((g.degrees_kept & g.simple & g.connected).all()))
        add(f"{kind}-: a permuted topology (links differ from the baseline)", "permuted",
            f"{g.links_changed.min()}-{g.links_changed.max()} of {b.links} links new "
            f"(mean {g.links_changed.mean():.1f})", bool((g.links_changed > 0).all()))
    gp, gf = perm[perm.topology == "P"], perm[perm.topology == "PF"]
    add("P- (two steps) keeps each switch's links to each cabinet; PF- ('more random') need not",
        "P keeps, PF mixes", f"P keeps on {int(gp.cabinet_degrees_kept.sum())} of {k} seeds, PF on "
        f"{int(gf.cabinet_degrees_kept.sum())} of {k}",
        bool(gp.cabinet_degrees_kept.all() and not gf.cabinet_degrees_kept.all()))
    return out


# --------------------------------------------------------------------------- Fig. 11
def ring_distance(n: int, u, v) -> np.ndarray:
    """Hops along the ring ``0 - 1 - ... - n-1 - 0`` between ``u`` and ``v``."""
    d = np.abs(np.asarray(u, dtype=np.int64) - np.asarray(v, dtype=np.int64))
    return np.minimum(d, n - d)


def fig11_instance(seed: int, degree: int):
    """Step 1 and 2 of Fig. 11 for one seed: the Nbr(0.7)-``degree`` topology of 64
    switches and its size-capped Walktrap clusters (16-switch cabinets, not packed)."""
    from ..generators.shortcut import nbr
    from ..layout.clustering import walktrap_clusters

    t = nbr(FIG11_N, degree, p=2 * FIG11_BOUND, strict=True, seed=seed)
    return t, walktrap_clusters(t, FIG11_Z, steps=WALK_STEPS, pack=False)


def fig11_row(seed: int, degree: int, iterations: int) -> dict:
    """One Fig. 11 instance: shortcut lengths, clusters, cluster-graph check, mapping."""
    from ..layout import Floor
    from ..layout.clustering import cluster_graph
    from ..layout.mapping import map_clusters

    t, lab = fig11_instance(seed, degree)
    e = t.edges
    hops = ring_distance(FIG11_N, e[:, 0], e[:, 1])
    sc = hops[hops > 1]
    k = int(lab.max()) + 1
    sizes = np.bincount(lab, minlength=k)
    w = cluster_graph(t, lab).toarray()
    count: Counter = Counter()
    for u, v in e.tolist():
        a, b = int(lab[u]), int(lab[v])
        count[min(a, b), max(a, b)] += 1
    weights_ok = all(int(w[a, b]) == c for (a, b), c in count.items()) and \
        int(np.triu(w).sum()) == len(e)
    floor = Floor(k, FIG11_Z)
    serp = map_clusters(t, lab, floor, "serpentine")
    ann = map_clusters(t, lab, floor, "anneal", iterations=iterations, seed=seed)
    return {"seed": seed, "links": len(e), "shortcuts": len(sc), "max_hops": int(sc.max()),
            "max_bypassed": int(sc.max()) - 1, "mean_hops": round(float(sc.mean()), 2),
            "bound": FIG11_BOUND * FIG11_N, "cross_cutting": int((sc >= FIG11_N / 2).sum()),
            "clusters": k, "largest_cluster": int(sizes.max()), "smallest_cluster": int(sizes.min()),
            "inter_cluster_links": int(np.count_nonzero(lab[e[:, 0]] != lab[e[:, 1]])),
            "weights_ok": bool(weights_ok), "cable_serpentine_m": round(serp.total_cable_length, 2),
            "cable_anneal_m": round(ann.total_cable_length, 2)}


def fig11_claims(t: pd.DataFrame, degree: int) -> list[dict]:
    k = len(t)
    out = []

    def add(claim, paper, ours, ok, tol):
        out.append({"figure": "Fig. 11", "claim": claim, "paper": paper, "topogen": ours, "tolerance": tol,
                    "verdict": "holds" if ok else "differs"})

    bound = FIG11_BOUND * FIG11_N
    add(f"shortcuts bypass at most 0.35 N switches (N = 64, Nbr(0.7)-{degree})", f"<= {bound:g}",
        f"longest shortcut {t.max_hops.min()}-{t.max_hops.max()} hops (bypassing {t.max_bypassed.max()} "
        f"switches at most), mean {t.mean_hops.mean():.1f} hops, over {k} seeds", bool((t.max_bypassed <= bound).all()),
        "every seed")
    add("no cross-cutting shortcuts (none spans half the ring)", "none",
        f"{int(t.cross_cutting.sum())} over {k} seeds", bool((t.cross_cutting == 0).all()), "every seed")
    dist = t.clusters.value_counts().sort_index()
    six = int((t.clusters == FIG11_CLUSTERS).sum())
    add("step 2: the clustering forms six clusters", "6",
        f"{t.clusters.min()}-{t.clusters.max()} (" + ", ".join(f"{c}: {n}" for c, n in dist.items())
        + f" of {k} seeds); largest cluster {t.largest_cluster.max()}",
        bool(t.clusters.min() <= FIG11_CLUSTERS <= t.clusters.max() and (t.largest_cluster <= FIG11_Z).all()),
        "within the seeds' range (one random instance drawn)")
    add("step 2: edge thickness = links between the two clusters", "links", f"{int(t.weights_ok.sum())} of {k} seeds",
        bool(t.weights_ok.all()), "exact")
    add("step 3: clusters mapped to cabinets, the annealed mapping no longer than the serpentine",
        "mapped", f"{t.cable_anneal_m.mean():.1f} vs {t.cable_serpentine_m.mean():.1f} m (mean); six clusters "
        f"on {six} of {k} seeds", bool((t.cable_anneal_m <= t.cable_serpentine_m + 1e-9).all()), "every seed")
    return out


# --------------------------------------------------------------------------- drawing
_MARKERS = "osD^vP*Xph<>"


def _draw_cabinets(ax, lay, title):
    """Fig. 2's style: each cabinet a column of its switches, links as lines (inside a
    cabinet as arcs)."""
    from matplotlib.patches import Arc, Rectangle

    cab = lay.cabinet
    n = lay.topology.num_switches
    slot = np.zeros(n, dtype=int)
    for c in np.unique(cab):
        members = np.flatnonzero(cab == c)
        slot[members] = np.arange(len(members))
    x, y = cab * 3.0, -slot.astype(float)
    for c in np.unique(cab):
        ax.add_patch(Rectangle((c * 3.0 - 0.6, -FIG2_Z + 0.4), 1.2, FIG2_Z + 0.2, fill=False, lw=1, color="0.5"))
        ax.text(c * 3.0, 0.9, f"cabinet {c}", ha="center", fontsize=8)
    for u, v in lay.topology.edges.tolist():
        if cab[u] == cab[v]:
            lo, hi = sorted((y[u], y[v]))
            ax.add_patch(Arc((x[u] - 0.25, (lo + hi) / 2), 1.0 + 0.15 * (hi - lo), hi - lo, theta1=90, theta2=270,
                             color="tab:blue", lw=1))
        elif abs(int(cab[u]) - int(cab[v])) == 1:
            ax.plot([x[u], x[v]], [y[u], y[v]], color="tab:orange", lw=0.9, alpha=0.8)
        else:  # past the cabinet between: bowed so it does not run through its switches
            s = np.linspace(0.0, 1.0, 30)
            ax.plot(x[u] + (x[v] - x[u]) * s, y[u] + (y[v] - y[u]) * s + 0.45 * np.sin(np.pi * s),
                    color="tab:orange", lw=0.9, alpha=0.8)
    ax.scatter(x, y, s=60, color="white", edgecolor="k", zorder=3)
    for i in range(n):
        ax.text(x[i], y[i], str(i), ha="center", va="center", fontsize=6, zorder=4)
    ax.set_xlim(-1.8, 3.0 * (FIG2_CABINETS - 1) + 1.2)
    ax.set_ylim(-FIG2_Z + 0.1, 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=9)


def draw_fig2(lays: dict, seed: int, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._figs_common import save_figure

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.6))
    names = {"baseline": "(a) baseline: 6 x 3 torus", "P": "(b) partially random permutation (P-)",
             "PF": "(c) fully random permutation (PF-)"}
    for ax, (k, lay) in zip(axes, lays.items()):
        _draw_cabinets(ax, lay, f"{names[k]}\n{lay.total_cable_length:.1f} m of cable")
    fig.suptitle(f"Koibuchi et al. Fig. 2: 18 switches, 3 cabinets (permutation seed {seed}); "
                 "blue: inside a cabinet, orange: between cabinets", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def draw_fig11(t, lab, lay, seed: int, degree: int, path: Path) -> Path:
    """The three steps: the ring with its shortcuts (cluster symbols), the weighted cluster
    graph, the clusters in their cabinets on the floor."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..layout.clustering import cluster_graph
    from ._figs_common import save_figure

    n = t.num_switches
    k = int(lab.max()) + 1
    colors = plt.get_cmap("tab10")
    fig, axes = plt.subplots(1, 3, figsize=(15, 5))
    ang = 2 * np.pi * np.arange(n) / n
    px, py = np.cos(ang), np.sin(ang)
    ax = axes[0]
    for u, v in t.edges.tolist():
        ring = ring_distance(n, u, v) == 1
        ax.plot([px[u], px[v]], [py[u], py[v]], color="0.2" if ring else "tab:gray", lw=1.2 if ring else 0.7,
                alpha=1 if ring else 0.7)
    for c in range(k):
        m = lab == c
        ax.scatter(px[m], py[m], marker=_MARKERS[c % len(_MARKERS)], s=45, color=colors(c % 10), zorder=3,
                   edgecolor="k", linewidth=0.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Step 1: Nbr(0.7)-{degree}, N = {n} (shortcuts <= 0.35 N hops)", fontsize=9)
    ax = axes[1]
    w = cluster_graph(t, lab).toarray()
    ca = 2 * np.pi * np.arange(k) / k
    cx, cy = np.cos(ca), np.sin(ca)
    for a in range(k):
        for b in range(a + 1, k):
            if w[a, b] > 0:
                ax.plot([cx[a], cx[b]], [cy[a], cy[b]], color="tab:gray", lw=1.2 * w[a, b], alpha=0.7)
                ax.text((cx[a] + cx[b]) / 2, (cy[a] + cy[b]) / 2, f"{int(w[a, b])}", fontsize=7, ha="center")
    sizes = np.bincount(lab, minlength=k)
    for c in range(k):
        ax.scatter([cx[c]], [cy[c]], marker=_MARKERS[c % len(_MARKERS)], s=300, color=colors(c % 10),
                   edgecolor="k", zorder=3)
        ax.text(cx[c] * 1.22, cy[c] * 1.22, f"{sizes[c]} sw.", fontsize=7, ha="center", va="center")
    ax.set_aspect("equal")
    ax.set_xlim(-1.5, 1.5)
    ax.set_ylim(-1.5, 1.5)
    ax.axis("off")
    ax.set_title(f"Step 2: {k} clusters (size-capped Walktrap, <= {FIG11_Z}); width = links", fontsize=9)
    ax = axes[2]
    fl = lay.floor
    cab_of = {int(c): int(lay.cabinet[np.flatnonzero(lab == c)[0]]) for c in range(k)}
    rows, cols = fl.position(np.arange(fl.cabinets))
    for c in range(k):
        cb = cab_of[c]
        ax.add_patch(plt.Rectangle((cols[cb] - 0.35, rows[cb] - 0.35), 0.7, 0.7, fill=False, color="0.4"))
        ax.scatter([cols[cb]], [rows[cb]], marker=_MARKERS[c % len(_MARKERS)], s=300, color=colors(c % 10),
                   edgecolor="k", zorder=3)
    for a in range(k):
        for b in range(a + 1, k):
            if w[a, b] > 0:
                ra, rb = cab_of[a], cab_of[b]
                ax.plot([cols[ra], cols[rb]], [rows[ra], rows[rb]], color="tab:gray", lw=1.2 * w[a, b], alpha=0.5)
    ax.set_xlim(-0.7, fl.columns - 0.3)
    ax.set_ylim(fl.rows - 0.3, -0.7)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Step 3: clusters in cabinets ({fl.rows} x {fl.columns} floor, annealed), "
                 f"{lay.total_cable_length:.0f} m", fontsize=9)
    fig.suptitle(f"Koibuchi et al. Fig. 11: constrained shortcutting on an example (seed {seed})", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


# --------------------------------------------------------------------------- the reproduction
@register_experiment("layout-examples", paper="Koibuchi et al. HPCA 2013, Figs. 2 and 11")
def reproduce_layout_examples(*, seeds: int = 20, seed: int = 1, degree: int = 4,
                              anneal_iterations: int = 20000, out: str = "") -> ExperimentResult:
    """Figs. 2 and 11: the permutation example and the constrained-shortcutting example.

    Parameters
    ----------
    seeds : int
        Random instances checked (permutations of Fig. 2, Nbr topologies of Fig. 11), in
        [1, 200].
    seed : int
        Seed the instances' seeds derive from.
    degree : int
        Degree of Fig. 11's Nbr(0.7) topology, in [3, 8] (not given by the paper; 4: two
        shortcut rounds).
    anneal_iterations : int
        Annealing moves of Fig. 11's step 3, in [0, 10**7].
    out : str
        Folder for the drawings: ``fig2.png`` and ``fig2-floor-{baseline,P,PF}.png``
        (topogen's floor drawing), ``fig11.png`` and ``fig11-floor.png``; empty: none.
    """
    k = check_int("seeds", seeds, 1, 200)
    d = check_int("degree", degree, 3, 8)
    iters = check_int("anneal_iterations", anneal_iterations, 0, 10**7)
    folder = Path(out) if out else None
    if folder is not None and folder.exists() and not folder.is_dir():
        raise ParameterError(f"--out {folder} exists and is not a folder; name a folder for the drawings")
    sl = child_seeds(seed, k)
    f2 = pd.DataFrame([r for s in sl for r in fig2_row(s)])
    f11 = pd.DataFrame([fig11_row(s, d, iters) for s in sl])
    claims = pd.DataFrame(fig2_claims(f2) + fig11_claims(f11, d))
    notes = [
        "Fig. 2: the baseline is not named by the paper; ours is a 6 x 3 torus (a ring of 6 in each cabinet, "
        "rings of 3 across the cabinets), placed sequentially, permuted by III-A's two methods "
        f"({k} seeds, child seeds of {seed}). Counts are made link by link, apart from the generator.",
        f"Fig. 11: Nbr(0.7)-{d} on 64 switches (N p / 2 = 0.35 N; degree not given by the paper), size-capped "
        f"Walktrap (t = {WALK_STEPS}) with 16-switch cabinets, leftover clusters not packed (the paper draws six "
        "clusters for 64 switches, more than the four cabinets 16-switch packing would give), each cluster on "
        f"its own cabinet, annealed ({iters:,} moves).",
    ]
    if folder is not None:
        from ..plots.floor import draw_floor

        folder.mkdir(parents=True, exist_ok=True)
        lays = fig2_layouts(sl[0])
        draw_fig2(lays, sl[0], folder / "fig2.png")
        for name, lay in lays.items():
            draw_floor(lay, folder / f"fig2-floor-{name}.png", title=f"Fig. 2 {name}: {lay.topology.name}")
        six = [s for s, c in zip(sl, f11.clusters) if c == FIG11_CLUSTERS]
        s11 = six[0] if six else sl[0]
        from ..layout import Floor
        from ..layout.mapping import map_clusters

        t, lab = fig11_instance(s11, d)
        lay = map_clusters(t, lab, Floor(int(lab.max()) + 1, FIG11_Z), "anneal", iterations=iters, seed=s11)
        draw_fig11(t, lab, lay, s11, d, folder / "fig11.png")
        draw_floor(lay, folder / "fig11-floor.png", title=f"Fig. 11 step 3: Nbr(0.7)-{d}, seed {s11}")
        notes.append(f"drawings in {folder}: fig2.png (seed {sl[0]}), fig2-floor-*.png, fig11.png and "
                     f"fig11-floor.png (seed {s11}, " + ("the first with six clusters)" if six else
                                                         "no seed gave six clusters)"))
    summary = f2.groupby("topology", sort=False).agg(
        links=("links", "first"), intra=("intra", "first"), inter=("inter", "first"),
        cable_m=("cable_m", "mean"), diameter=("diameter", "mean"), aspl=("aspl", "mean"),
        links_changed=("links_changed", "mean")).round(3).reset_index()
    return ExperimentResult("Koibuchi et al. Figs. 2 and 11: the permutation and constrained-shortcutting "
                            "examples", claims, notes, {"fig2": summary, "fig11": f11})
