"""Swaps aimed at the pairs that attain the maximum latency.

A random swap of two of the ``E`` links rarely touches the few pairs at the maximum (at
Skywalk's floor: 132 of 4.2 million ordered pairs, between opposite corner cabinets), so
the lexicographic ``latency`` objective (maximum, then the pairs at it, then the sum)
seldom lowers its first key.  A *targeted* swap picks one pair ``(s, t)`` at the maximum,
a switch ``a`` among the nearest ones to ``s`` and one of its links ``(a, b)``, and a link
``(c, d)`` whose rewiring into ``(a, c), (b, d)`` gives ``s`` a shorter route to ``t``
through the new link:

    D[s, a] + w(a, c) + D[c, t] < D[s, t]

(computed on the current distance matrix ``D``; the exact evaluation decides afterwards)
and keeps the total cable within the budget and every cable within the longest allowed.
The switches ``c`` that qualify are found at once over all switches (NumPy), their links
``(c, d)`` checked against the bounds, and one candidate drawn at random from the search's
one random generator.
"""

from __future__ import annotations

import numpy as np

__all__ = ["targeted_swap", "NEAREST"]

#: the switch ``a`` that gets the new link is drawn among this many switches nearest to ``s``
NEAREST = 16


def targeted_swap(graph, ev, cable, cable_total: int, rng: np.random.Generator):
    """A swap ``(i, j, variant)`` aimed at a pair at the maximum, or None.

    Parameters
    ----------
    graph : SwapGraph
    ev : LatencyEvaluator
        Its ``dist`` (quanta), ``rowmax`` and ``peak`` pick the pair.
    cable : CableModel
        Placement and bounds.
    cable_total : int
        Current total cable, micrometres.
    rng : numpy.random.Generator

    Returns
    -------
    tuple of int or None
        Link indices ``i``, ``j`` and the variant for :meth:`SwapGraph.swap_links`, such
        that the swap adds ``(a, c)``; None when no swap qualifies.
    """
    dist = ev.dist
    rows = np.flatnonzero(ev.rowmax == ev.peak)
    s = int(rows[rng.integers(len(rows))])
    ts = np.flatnonzero(dist[s] == ev.peak)
    t = int(ts[rng.integers(len(ts))])
    near = np.argpartition(dist[s], min(NEAREST, len(dist) - 1))[:NEAREST]
    a = int(near[rng.integers(len(near))])
    edges = graph.edges
    cab = ev._cab
    mine = np.flatnonzero((edges[:, 0] == a) | (edges[:, 1] == a))
    if len(mine) == 0:
        return None
    i = int(mine[rng.integers(len(mine))])
    b = int(edges[i, 1] if edges[i, 0] == a else edges[i, 0])
    # switches c whose new link (a, c) would shorten s -> t, then their links (c, d)
    gain = dist[s, a] + ev._sw + ev._cabw[cab[a], cab] + dist[:, t] < dist[s, t]
    gain[[a, b]] = False
    gain[graph.adj[a, : graph.deg[a]]] = False  # (a, c) exists already
    cs = np.flatnonzero(gain)
    if len(cs) == 0:
        return None
    deg = graph.deg[cs]
    c = np.repeat(cs, deg)
    d = graph.adj[cs][np.arange(graph.adj.shape[1])[None, :] < deg[:, None]]
    ok = (d != a) & (d != b) & ~np.isin(d, graph.adj[b, : graph.deg[b]])  # (b, d) must be new too
    if cable is not None and cable.bounded:
        u = cable._units
        cabc = cable.cabinet
        add_ac = u[cabc[a], cabc[c]]
        add_bd = u[cabc[b], cabc[d]]
        if cable._max_units is not None:
            ok &= (add_ac <= cable._max_units) & (add_bd <= cable._max_units)
        if cable._budget_units is not None:
            new_total = cable_total - u[cabc[a], cabc[b]] - u[cabc[c], cabc[d]] + add_ac + add_bd
            ok &= new_total <= cable._budget_units
    cand = np.flatnonzero(ok)
    if len(cand) == 0:
        return None
    k = int(cand[rng.integers(len(cand))])
    cc, dd = int(c[k]), int(d[k])
    lo, hi = min(cc, dd), max(cc, dd)
    j = int(np.flatnonzero((edges[:, 0] == lo) & (edges[:, 1] == hi))[0])
    e_i0 = int(edges[i, 0])
    if a == e_i0:
        variant = 0 if cc == int(edges[j, 0]) else 1
    else:
        variant = 0 if cc == int(edges[j, 1]) else 1
    return i, j, variant
