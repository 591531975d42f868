"""Up*/down* routing (Schroeder et al., Autonet) with shortest legal paths.

A breadth-first spanning tree from a root gives every switch a level (its hop distance
from the root).  Every link is oriented: the **up** end of link ``u - v`` is the switch
with the smaller ``(level, id)``.  A legal route takes zero or more *up* links, then zero
or more *down* links, never a down link followed by an up link; the orientation is
acyclic, so the channel dependency graph of all legal routes is acyclic with one VC.

Among the legal routes we take a **shortest** one (fewest hops), with the lowest next-hop
id on ties.  A legal shortest route is not a function of ``(switch, destination)`` alone,
so the table has two phases (:mod:`.base`): phase 0 (no down link taken yet) may go up or
down; phase 1 (after a down link) only goes down.  A switch knows the phase from the
input port, as in hardware up*/down* tables.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from .._validate import check_float, check_int
from ..errors import ParameterError
from ..topology import Topology
from .base import TableRouting, csr_view
from .paths import _require, bitbfs, fr_weights, hop_eccentricities

__all__ = ["updown", "updown_orientation", "choose_root", "updown_distances"]


def choose_root(topology: Topology) -> int:
    """The switch of minimum hop eccentricity (lowest id on ties)."""
    ecc = hop_eccentricities(topology)
    return int(np.argmin(ecc))


def updown_orientation(topology: Topology, root: int) -> tuple[np.ndarray, np.ndarray]:
    """BFS levels from ``root`` and, per CSR entry ``u -> v``, whether it goes **down**.

    ``u -> v`` goes up iff ``(level[v], v) < (level[u], u)``.
    """
    view = csr_view(topology)
    order, pred = breadth_first_order(topology.csr(), root, directed=False,
                                      return_predecessors=True)
    level = np.zeros(view.n, dtype=np.int64)
    for v in order[1:]:
        level[v] = level[pred[v]] + 1
    u, v = view.row, view.indices
    up = (level[v] < level[u]) | ((level[v] == level[u]) & (v < u))
    return level, ~up


def updown(topology: Topology, root: int | None = None, *, layout=None, metric: str = "hops",
           switch_delay: float = 60.0, block: int = 4096) -> TableRouting:
    """Up*/down* routing: shortest legal paths, one VC.

    Parameters
    ----------
    topology : Topology
        A connected topology.
    root : int, optional
        Root of the BFS spanning tree; default: the switch of minimum eccentricity
        (lowest id on ties), which keeps the tree shallow.
    layout : Layout, optional
        Recorded on the routing; needed for ``metric="latency"``.
    metric : {"hops", "latency"}
        Shortest legal paths by hop count, or by latency with the FR hop weight
        ``switch_delay + link_delay`` (Skywalk IV-A: the routing restrictions of [2] "are
        imposed when applying Dijkstra's path search").
    switch_delay : float
        Switch delay in ns for ``metric="latency"``.
    block : int
        Destinations per search block.

    Returns
    -------
    TableRouting
        ``algorithm="updown"``, two phases, VC rule ``"const"`` (VC 0), ``num_vcs=1``;
        ``params`` hold ``root`` and ``levels`` is available as ``routing.params["root"]``.

    Raises
    ------
    TopologyError
        If the topology is disconnected.
    ParameterError
        If ``root`` is not a switch.

    Notes
    -----
    Computed as a reverse breadth-first search on the 2N states ``(phase, switch)``:
    ``(0, v) -> (0, w)`` for an up link, ``(0, v) -> (1, w)`` and ``(1, v) -> (1, w)`` for a
    down link; both ``(0, dst)`` and ``(1, dst)`` are targets.  Tie rule: lowest next-hop id.
    The search toward a block of destinations stops once every phase-0 state is reached:
    phase-1 entries farther than the longest shortest legal route can never be on a
    route that starts in phase 0, so they are left empty (no entry).
    Skywalk Sec. IV-A uses up*/down* as the escape routing of Silla and Duato's adaptive
    routing (see :func:`topogen.routing.escape.escape`).

    References
    ----------
    .. [1] M. D. Schroeder et al., "Autonet: a High-speed, Self-configuring Local Area
       Network Using Point-to-point Links", IEEE JSAC 9(8), 1991.
    .. [2] F. Silla, J. Duato, "High-Performance Routing in Networks of Workstations with
       Irregular Topology", IEEE TPDS 11(7), 2000.
    """
    _require(topology, "up*/down* routing")
    if metric not in ("hops", "latency"):
        raise ParameterError(f"metric must be 'hops' or 'latency', got {metric!r}")
    if metric == "latency" and layout is None:
        raise ParameterError("up*/down* with metric='latency' needs a layout (link delays)")
    n = topology.num_switches
    root = choose_root(topology) if root is None else check_int("root", root, 0, n - 1)
    check_int("block", block, 64)
    view = csr_view(topology)
    level, is_down = updown_orientation(topology, root)
    s = 2 * n
    cand = _state_moves(view, is_down)
    ranks = np.empty((2, n, n), dtype=view.rank_dtype)
    params = {"root": int(root), "tie_rule": "lowest next-hop id", "metric": metric,
              "max_level": int(level.max())}
    if metric == "latency":
        switch_delay = check_float("switch_delay", switch_delay, 0.0)
        _latency_tables(view, cand, fr_weights(layout, switch_delay), ranks, min(block, 256))
        params.update(switch_delay=switch_delay, weight_unit="ps")
        return TableRouting(topology, ranks, layout=layout, algorithm="updown", params=params,
                            num_vcs=1, entry_phase=is_down.astype(np.int8))
    for d0 in range(0, n, block):
        d1 = min(n, d0 + block)
        ds = np.arange(d0, d1, dtype=np.int64)
        r, _, _, _ = bitbfs(cand, s, np.stack([ds, ds + n], axis=1),
                            rank_dtype=view.rank_dtype, sentinel=view.sentinel, stop_rows=n)
        ranks[0, :, d0:d1] = r[:n]
        ranks[1, :, d0:d1] = r[n:]
    return TableRouting(topology, ranks, layout=layout, algorithm="updown", params=params,
                        num_vcs=1, entry_phase=is_down.astype(np.int8))


def _state_moves(view, is_down) -> np.ndarray:
    """Legal moves of the 2N states ``(phase, switch)`` (state ``phase * N + v``):
    ``cand[state, rank]`` is the state reached over ``v``'s link of that rank, ``2N`` where
    the move is illegal (phase 1 never takes an up link) or the rank is padding."""
    n = view.n
    s = 2 * n
    down_pad = np.zeros(view.nbr_pad.shape, dtype=bool)
    down_pad[view.row, view.local_rank] = is_down
    cand = np.full((s, view.nbr_pad.shape[1]), s, dtype=np.int64)
    valid = view.valid_pad
    # phase 0: up link -> (0, w); down link -> (1, w)
    cand[:n] = np.where(valid, view.nbr_pad + np.where(down_pad, n, 0), s)
    # phase 1: only down links -> (1, w)
    cand[n:] = np.where(valid & down_pad, view.nbr_pad + n, s)
    return cand


#: distance of a state that cannot reach the destination (:func:`updown_distances`)
UNREACHABLE = np.iinfo(np.int64).max // 4


def updown_distances(topology: Topology, root: int, weights=None, *,
                     block: int = 256) -> np.ndarray:
    """Length of the shortest up*/down*-legal route from every state to every switch.

    Parameters
    ----------
    topology : Topology
        A connected topology.
    root : int
        Root of the up*/down* orientation (:func:`updown_orientation`).
    weights : array_like of int, optional
        Integer weight of each CSR entry (e.g. :func:`topogen.routing.paths.fr_weights`,
        picoseconds); default 1 per link (hops).
    block : int
        Destinations per Dijkstra block.

    Returns
    -------
    ndarray of int64, shape (N, 2N)
        ``dist[dst, phase * N + v]``: the shortest legal route from switch ``v`` in
        ``phase`` (0: no down link taken yet, 1: after a down link) to ``dst``;
        :data:`UNREACHABLE` where no legal route exists (phase 1 below no common
        subtree).  A move ``v -> w`` over CSR entry ``e`` lies on a shortest legal route
        iff it is legal in the phase and ``dist[dst, p' * N + w] + weights[e] ==
        dist[dst, p * N + v]`` with ``p' = max(p, is_down[e])``.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    from .._validate import check_memory

    n = topology.num_switches
    root = check_int("root", root, 0, n - 1)
    view = csr_view(topology)
    _, is_down = updown_orientation(topology, root)
    m = len(view.indices)
    w = np.ones(m, dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    if w.shape != (m,) or (m and w.min() < 1):
        raise ParameterError(f"weights must be {m} positive integers (one per CSR entry)")
    check_memory("up*/down* legal distances", 2 * n * n * 8)
    s = 2 * n
    cand = _state_moves(view, is_down)
    r_count = cand.shape[1]
    wpad = np.zeros((n, r_count), dtype=np.int64)
    wpad[view.row, view.local_rank] = w
    wstate = np.concatenate([wpad, wpad])
    ok = cand < s
    frm = np.repeat(np.arange(s), r_count)[ok.ravel()]
    to = cand.ravel()[ok.ravel()]
    rev = sp.csr_matrix((wstate.ravel()[ok.ravel()].astype(float), (to, frm)), shape=(s, s))
    out = np.empty((n, s), dtype=np.int64)
    for d0 in range(0, n, block):
        ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
        b = len(ds)
        dist = dijkstra(rev, directed=True, indices=np.concatenate([ds, ds + n]))
        dist = np.minimum(dist[:b], dist[b:])  # to (0, d) or (1, d)
        out[d0:d0 + b] = np.where(np.isfinite(dist), np.rint(np.where(np.isfinite(dist), dist, 0)),
                                  UNREACHABLE).astype(np.int64)
    return out


def _latency_tables(view, cand, weights, ranks, block):
    """Latency-shortest legal tables: Dijkstra on the reversed 2N-state graph."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    n = view.n
    s = 2 * n
    r_count = cand.shape[1]
    wpad = np.full((n, r_count), np.inf)
    wpad[view.row, view.local_rank] = weights
    wstate = np.concatenate([wpad, wpad])  # weight of move r from state (p, v)
    ok = cand < s
    frm = np.repeat(np.arange(s), r_count)[ok.ravel()]
    to = cand.ravel()[ok.ravel()]
    w = wstate.ravel()[ok.ravel()]
    rev = sp.csr_matrix((w, (to, frm)), shape=(s, s))  # reversed: target -> source
    for d0 in range(0, n, block):
        ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
        b = len(ds)
        dist = dijkstra(rev, directed=True, indices=np.concatenate([ds, ds + n]))
        dist = np.minimum(dist[:b], dist[b:])  # (B, 2N): to (0, d) or (1, d)
        dt = np.empty((s + 1, b))
        dt[:s] = dist.T
        dt[s] = np.inf
        target = dt[:s]
        out = np.full((s, b), view.sentinel, dtype=view.rank_dtype)
        todo = np.isfinite(target)
        todo[ds, np.arange(b)] = False
        todo[ds + n, np.arange(b)] = False
        c = np.empty((s, b))
        hit = np.empty((s, b), dtype=bool)
        for r in range(r_count):
            np.take(dt, cand[:, r], axis=0, out=c)
            c += wstate[:, r:r + 1]
            np.equal(c, target, out=hit)
            hit &= todo
            np.copyto(out, view.rank_dtype(r), where=hit)
            todo ^= hit
        ranks[0, :, d0:d0 + b] = out[:n]
        ranks[1, :, d0:d0 + b] = out[n:]
