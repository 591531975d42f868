"""Nearest Routing (NR) and Fastest Routing (FR) next-hop tables (Skywalk Sec. II-E).

NR follows shortest-hop paths; FR follows lowest-latency paths, found with Dijkstra's
algorithm on link weights ``switch_delay + link_delay`` (Skywalk II-E: "defining
distances in a way that accounts for cable delays and switch delays").

Tie rule (both): among the neighbours ``w`` of ``v`` on a shortest path to ``dst``
(``dist(w, dst) + weight(v, w) == dist(v, dst)``), ``v`` takes the one with the
**lowest switch id** (= lowest link rank).  Each switch's choice only depends on
``(v, dst)``, so the routes form one in-tree per destination and are loop-free.
FR weights are rounded to whole picoseconds so that ties are exact (integer sums).

Algorithms: NR uses a bit-parallel breadth-first search (64 destinations per machine
word, all destinations of a block at once); FR uses SciPy's Dijkstra per block of
destinations and reads the next hops off the distance rows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from .._validate import check_float, check_int
from ..errors import ParameterError, RoutingError, TopologyError
from ..topology import Topology
from .base import TableRouting, csr_view

__all__ = ["nearest", "fastest", "fr_weights"]


# ---------------------------------------------------------------------------- bit-parallel BFS


def _bits_to_bytes(words: np.ndarray, width: int) -> np.ndarray:
    """(S, W) uint64 words -> (S, width) uint8 of bits (bit j of word k = column 64k+j)."""
    b = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1, bitorder="little")
    return b[:, :width]


def bitbfs(cand: np.ndarray, num_states: int, targets: np.ndarray, *, want_ranks=True,
           want_levels=False, rank_dtype=np.uint8, sentinel=255, stop_rows: int | None = None):
    """Reverse breadth-first search from many targets at once, 64 per machine word.

    State ``s`` reaches the targets through its candidate moves ``cand[s, r]`` (state
    index; ``num_states`` = no move), tried in increasing ``r``.  For each target column
    ``j`` the search assigns to every state its distance ``L`` and the **lowest** ``r``
    whose candidate is at distance ``L - 1``.

    Parameters
    ----------
    cand : ndarray (S, R) of int64
    num_states : int
        S.
    targets : ndarray (B, T) of int64
        Target states of each column (a column may have several target states).
    stop_rows : int, optional
        Stop as soon as the states ``0 .. stop_rows-1`` are all reached (the others keep
        ``sentinel`` where they are not reached by then).

    Returns
    -------
    ranks : ndarray (S, B) or None
        Lowest-rank move toward each column; ``sentinel`` at targets and unreached states.
    levels : ndarray (S, B) of int32 or None
        Distance (``-1`` unreached).
    reached : ndarray (S, B) of bool
    ecc : ndarray (B,) of int64
        Largest distance of any state for each column.
    """
    s_count, r_count = cand.shape
    b = targets.shape[0]
    w = (b + 63) // 64
    col = np.arange(b)
    bitmask = (np.uint64(1) << (col % 64).astype(np.uint64))
    word = col // 64
    f = np.zeros((s_count + 1, w), dtype=np.uint64)  # last row = padding (always 0)
    for t in range(targets.shape[1]):
        np.bitwise_or.at(f, (targets[:, t], word), bitmask)
    f[s_count] = 0
    start = f[:s_count].copy()
    notvis = ~start
    nbits = max(1, int(r_count - 1).bit_length())
    planes = [np.zeros((s_count, w), dtype=np.uint64) for _ in range(nbits)] if want_ranks else None
    levels = np.full((s_count, b), -1, dtype=np.int32) if want_levels else None
    if want_levels:
        levels[_bits_to_bytes(start, b).view(bool)] = 0
    ecc = np.zeros(b, dtype=np.int64)
    level = 0
    g = np.empty((s_count, w), dtype=np.uint64)
    while True:
        level += 1
        new = np.zeros((s_count, w), dtype=np.uint64)
        for r in range(r_count):
            np.take(f, cand[:, r], axis=0, out=g)
            np.bitwise_and(g, notvis, out=g)
            if not g.any():
                continue
            notvis ^= g
            new |= g
            if want_ranks:
                for k in range(nbits):
                    if (r >> k) & 1:
                        planes[k] |= g
        if not new.any():
            break
        anycol = np.bitwise_or.reduce(new, axis=0)
        hit = _bits_to_bytes(anycol[None, :], b)[0].view(bool)
        ecc[hit] = level
        if want_levels:
            levels[_bits_to_bytes(new, b).view(bool)] = level
        f[:s_count] = new
        if stop_rows is not None and not notvis[:stop_rows].any():
            break
    reached = ~_bits_to_bytes(notvis, b).view(bool)
    ranks = None
    if want_ranks:
        if rank_dtype == np.uint8 and sentinel == 255:
            ranks = np.zeros((s_count, b), dtype=np.uint8)
            for k in range(nbits):
                bits = _bits_to_bytes(planes[k], b)
                np.left_shift(bits, k, out=bits)
                ranks |= bits
            bad = _bits_to_bytes(notvis | start, b)
            np.multiply(bad, 255, out=bad)
            ranks |= bad
        else:
            ranks = np.zeros((s_count, b), dtype=rank_dtype)
            for k in range(nbits):
                ranks |= (_bits_to_bytes(planes[k], b).astype(rank_dtype) << rank_dtype(k))
            ranks[_bits_to_bytes(notvis | start, b).view(bool)] = sentinel
    return ranks, levels, reached, ecc


def hop_eccentricities(topology: Topology, block: int = 4096) -> np.ndarray:
    """Hop eccentricity of every switch (bit-parallel BFS, no tables kept)."""
    view = csr_view(topology)
    n = view.n
    out = np.zeros(n, dtype=np.int64)
    for d0 in range(0, n, block):
        ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
        _, _, _, ecc = bitbfs(view.nbr_pad, n, ds[:, None], want_ranks=False)
        out[ds] = ecc
    return out


def _require(topology: Topology, what: str) -> None:
    if not isinstance(topology, Topology):
        raise ParameterError(f"{what} needs a Topology, got {type(topology).__name__}")
    topology.require_connected(what)


def nearest(topology: Topology, layout=None, *, all_next_hops: bool = False,
            block: int = 4096) -> TableRouting:
    """Nearest Routing: shortest-hop next-hop tables, one next hop per pair.

    Parameters
    ----------
    topology : Topology
        A connected topology.
    layout : Layout, optional
        Recorded on the routing (for latency metrics and exports); NR ignores it.
    all_next_hops : bool
        Also keep the hop-distance table (``uint8``/``uint16``, N x N) so that
        :meth:`TableRouting.next_hops` lists every equal-cost next hop.
    block : int
        Destinations per bit-parallel BFS block (memory ~ ``N * block / 8`` bytes per
        bit matrix).

    Returns
    -------
    TableRouting
        ``algorithm="nr"``, one phase, VC rule ``"const"`` (VC 0), ``num_vcs=1``.

    Raises
    ------
    TopologyError
        If the topology is disconnected.

    Notes
    -----
    Skywalk Sec. II-E calls shortest-hop routing "Nearest Routing".  Tie rule: the
    lowest-id neighbour on a shortest path (see the module docs).

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology for
       HPC Networks with Low-delay Switches", IPDPS 2014, Sec. II-E.
    """
    _require(topology, "nearest routing")
    check_int("block", block, 64)
    view = csr_view(topology)
    n = view.n
    ranks = np.empty((1, n, n), dtype=view.rank_dtype)
    dist = np.empty((n, n), dtype=np.uint16) if all_next_hops else None
    for d0 in range(0, n, block):
        d1 = min(n, d0 + block)
        ds = np.arange(d0, d1, dtype=np.int64)
        r, lev, _, ecc = bitbfs(view.nbr_pad, n, ds[:, None], want_levels=all_next_hops,
                                rank_dtype=view.rank_dtype, sentinel=view.sentinel)
        ranks[0, :, d0:d1] = r
        if all_next_hops:
            dist[:, d0:d1] = lev
    ew = np.ones(len(view.indices), dtype=np.int64) if all_next_hops else None
    return TableRouting(topology, ranks, layout=layout, algorithm="nr",
                        params={"tie_rule": "lowest next-hop id", "metric": "hops"},
                        num_vcs=1, distances=dist, entry_weight=ew)


def fr_weights(layout, switch_delay: float = 60.0) -> np.ndarray:
    """FR weight of each CSR entry in integer picoseconds: ``switch_delay + link_delay``."""
    topology = layout.topology
    view = csr_view(topology)
    delay = np.asarray(layout.link_delay, dtype=float)[topology.directed_edge_ids]
    w = np.rint((switch_delay + delay) * 1000.0).astype(np.int64)
    if len(w) and w.min() < 1:
        raise ParameterError("fastest routing needs positive link weights: switch_delay + "
                             "link delay must be at least 0.001 ns on every link")
    return w


def _fr_block(args):
    indptr, indices, weights, n, nbr_pad, ds, rank_dtype, sentinel, keep = args
    a = sp.csr_matrix((weights.astype(float), indices, indptr), shape=(n, n))
    dist = dijkstra(a, directed=True, indices=ds)  # symmetric weights: dist[d, v] = v -> d
    if not np.all(np.isfinite(dist)):
        raise TopologyError("fastest routing needs a connected topology")
    r_count = nbr_pad.shape[1]
    row = np.repeat(np.arange(n), np.diff(indptr))
    rank = np.arange(len(indices)) - indptr[row]
    wpad = np.full((n, r_count), np.inf)
    wpad[row, rank] = weights
    b = len(ds)
    dt = np.empty((n + 1, b))  # (v, dst) orientation, last row = padding
    dt[:n] = dist.T
    dt[n] = np.inf
    target = dt[:n]
    out = np.full((n, b), sentinel, dtype=rank_dtype)  # (v, dst)
    todo = np.ones((n, b), dtype=bool)
    todo[ds, np.arange(b)] = False
    cand = np.empty((n, b))
    hit = np.empty((n, b), dtype=bool)
    for r in range(r_count):
        np.take(dt, nbr_pad[:, r], axis=0, out=cand)
        cand += wpad[:, r:r + 1]
        np.equal(cand, target, out=hit)
        hit &= todo
        np.copyto(out, rank_dtype(r), where=hit)
        todo ^= hit
    if todo.any():
        raise RoutingError("fastest routing: a distance row is inconsistent (internal error)")
    return out, (dist.astype(np.int64) if keep else None)


def fastest(layout, switch_delay: float = 60.0, *, all_next_hops: bool = False,
            block: int = 256, workers: int = 1) -> TableRouting:
    """Fastest Routing: minimum-latency next-hop tables (Skywalk Sec. II-E).

    Parameters
    ----------
    layout : Layout
        The placed topology; link delays come from its cable lengths.
    switch_delay : float
        Delay of one switch in ns (Skywalk uses 60 ns).  A hop's weight is
        ``switch_delay + link_delay`` (the path latency up to the constant delay of the
        last switch).
    all_next_hops : bool
        Keep the latency table (``int64`` ps, N x N) for :meth:`TableRouting.next_hops`.
    block : int
        Destinations per Dijkstra call.
    workers : int
        Processes to use (blocks are independent); 1 = in this process.

    Returns
    -------
    TableRouting
        ``algorithm="fr"``, VC rule ``"const"`` (VC 0), ``num_vcs=1``; ``params`` hold
        ``switch_delay`` and the ``weight_unit`` (``"ps"``).

    Raises
    ------
    TopologyError
        If the topology is disconnected.
    ParameterError
        For a negative switch delay or non-positive hop weights.

    Notes
    -----
    Weights are rounded to whole picoseconds; the tie rule is the lowest next-hop id
    among equal-latency next hops.

    References
    ----------
    .. [1] Skywalk, Sec. II-E ("Fastest Routing").
    """
    from ..layout import Layout

    if not isinstance(layout, Layout):
        raise ParameterError(f"fastest routing needs a Layout (see topogen.place), got "
                             f"{type(layout).__name__}")
    switch_delay = check_float("switch_delay", switch_delay, 0.0)
    check_int("block", block, 1)
    check_int("workers", workers, 1)
    topology = layout.topology
    _require(topology, "fastest routing")
    view = csr_view(topology)
    n = view.n
    w = fr_weights(layout, switch_delay)
    ranks = np.empty((1, n, n), dtype=view.rank_dtype)
    dist = np.empty((n, n), dtype=np.int64) if all_next_hops else None
    jobs = []
    for d0 in range(0, n, block):
        ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
        jobs.append((view.indptr, view.indices, w, n, view.nbr_pad, ds, view.rank_dtype,
                     view.sentinel, all_next_hops))
    if workers > 1 and len(jobs) > 1:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as ex:
            results = ex.map(_fr_block, jobs)
            for job, (r, dd) in zip(jobs, results):
                ranks[0, :, job[5][0]:job[5][-1] + 1] = r
                if all_next_hops:
                    dist[:, job[5][0]:job[5][-1] + 1] = dd.T
    else:
        for job in jobs:
            r, dd = _fr_block(job)
            ranks[0, :, job[5][0]:job[5][-1] + 1] = r
            if all_next_hops:
                dist[:, job[5][0]:job[5][-1] + 1] = dd.T
    return TableRouting(topology, ranks, layout=layout, algorithm="fr",
                        params={"switch_delay": switch_delay, "weight_unit": "ps",
                                "tie_rule": "lowest next-hop id", "metric": "latency"},
                        num_vcs=1, distances=dist, entry_weight=w if all_next_hops else None)
