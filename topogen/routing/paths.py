"""Nearest Routing (NR) and Fastest Routing (FR) next-hop tables (Skywalk Sec. II-E).

NR follows shortest-hop paths; FR follows lowest-latency paths, found with Dijkstra's
algorithm on link weights ``switch_delay + link_delay`` (Skywalk II-E: "defining
distances in a way that accounts for cable delays and switch delays").

Tie rules (both): among the neighbours ``w`` of ``v`` on a shortest path to ``dst``
(``dist(w, dst) + weight(v, w) == dist(v, dst)``), ``v`` takes

* ``ties="spread"`` (default): the one of index ``floor(u * k)`` among the ``k`` tied
  neighbours (in increasing id), where ``u`` in ``[0, 1)`` is a hash of
  ``(ties_seed, v, dst)`` (SplitMix64): an independent, uniform choice per switch and
  destination that spreads uniform traffic over the equal paths, is the same for every
  block size and worker count, and needs no distance table.  ``ties_seed=None`` means 0, so
  default tables are a function of the topology alone (every simulator that takes tables
  gets the same routes);
* ``ties="lowest"``: the **lowest switch id** (= lowest link rank), topogen's former default;
  it sends every tied route through the same neighbour, which piles uniform traffic
  onto a few links (6-cube: the busiest link is full at 0.26 flits per host per cycle,
  0.78-1.16 with ``"spread"`` over tie seeds 0..19);
* ``ties="random"``: one drawn from ``numpy`` random numbers of ``seed``
  (:func:`spread_ties`, needs the N x N distance table; kept for results recorded with it).

Each switch's choice only depends on ``(v, dst)``, so the routes form one in-tree per
destination and are loop-free.  FR weights are rounded to whole picoseconds so that ties
are exact (integer sums).

Algorithms: FR (and NR on request) by default builds each switch's row from one search
from it (:mod:`._rows`: Dial's bucket queue with 64-bit masks of the tied first links,
memory ``O(N + E)`` per thread, rows streamed to ``ranks_file`` when given).  NR uses a
bit-parallel breadth-first search (64 destinations per machine word, all destinations of
a block at once).  FR works per block of destinations, either
with a vectorised Bellman–Ford whose converging round also yields the lowest-id next
hops (low-diameter networks; the rows of switches whose own block is finished come from
a symmetric distance cache instead of being iterated), or with SciPy's Dijkstra followed
by one vectorised pass that reads the next hops off the distance rows; all give
identical tables.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from .._validate import check_float, check_int
from ..errors import ParameterError, RoutingError, TopologyError
from ..topology import Topology
from . import _rows
from .base import TableRouting, csr_view

__all__ = ["nearest", "fastest", "fr_weights", "spread_ties", "TIES"]

#: Tie rules of :func:`nearest` and :func:`fastest` (the first is the default).
TIES = ("spread", "lowest", "random")

_U64 = np.uint64


def _splitmix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x + _U64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> _U64(27))) * _U64(0x94D049BB133111EB)
        return x ^ (x >> _U64(31))


def tie_hash(seed: int, v, dst) -> np.ndarray:
    """32-bit hash (``uint32``) of ``(seed, switch, destination)``; broadcasts ``v``
    against ``dst``.

    SplitMix64 of ``(seed, v)`` and of ``(seed, dst)`` (one per switch), combined by XOR
    and mixed by a 32-bit multiply-xorshift finaliser (``lowbias32``).
    """
    sd = _splitmix(np.asarray(seed, dtype=np.uint64))
    hv = _splitmix(np.asarray(v, dtype=np.uint64) ^ sd).astype(np.uint32)
    hd = _splitmix(np.asarray(dst, dtype=np.uint64) + (sd << _U64(1))).astype(np.uint32)
    with np.errstate(over="ignore"):
        x = hv ^ hd
        x ^= x >> np.uint32(16)
        x *= np.uint32(0x7FEB352D)
        x ^= x >> np.uint32(15)
        x *= np.uint32(0x846CA68B)
        x ^= x >> np.uint32(16)
    return x


def _spread_tight_ranks(dt, nbr_pad, wpad, ds, seed, rank_dtype, sentinel, chunk=1024):
    """Next hops of the ``"spread"`` tie rule toward a block of destinations.

    ``dt[v, j]`` (shape ``(N + 1, B)``, row ``N`` = padding holding a huge value) is the
    integer distance from switch ``v`` to ``ds[j]``; ``wpad[v, r]`` the integer weight of
    ``v``'s link of rank ``r`` (``-1`` = none).  Among the ``k`` ranks on a shortest path
    the one of index ``(tie_hash * k) >> 32`` is taken (two passes over the ranks per
    chunk of destinations).
    """
    n, r_count = nbr_pad.shape
    b = len(ds)
    out = np.empty((n, b), dtype=rank_dtype)
    vs = np.arange(n, dtype=np.uint64)[:, None]
    cdt = np.uint8 if r_count < 255 else np.uint16
    w = np.where(wpad >= 0, wpad, 0).astype(dt.dtype)
    for c0 in range(0, b, chunk):
        c1 = min(b, c0 + chunk)
        sub = dt[:, c0:c1]
        here = sub[:n]
        g = np.empty(here.shape, dtype=dt.dtype)
        count = np.zeros(here.shape, dtype=cdt)
        tights = []
        for r in range(r_count):
            np.take(sub, nbr_pad[:, r], axis=0, out=g)
            np.add(g, w[:, r:r + 1], out=g)
            t = np.equal(g, here)
            np.logical_and(t, (nbr_pad[:, r] < n)[:, None], out=t)
            count += t
            tights.append(t)
        target = tie_hash(seed, vs, ds[None, c0:c1]).astype(np.uint64)
        target *= count
        target >>= _U64(32)
        target = target.astype(cdt)
        seen = np.zeros(here.shape, dtype=cdt)
        o = np.full(here.shape, sentinel, dtype=rank_dtype)
        hit = np.empty(here.shape, dtype=bool)
        for r, t in enumerate(tights):
            np.equal(seen, target, out=hit)
            hit &= t
            np.copyto(o, rank_dtype(r), where=hit)
            seen += t
        cols = np.arange(c0, c1)
        o[ds[cols], cols - c0] = sentinel
        if np.any(count[np.arange(n)[:, None] != ds[None, c0:c1]] == 0):
            raise RoutingError("spread ties: a switch has no next hop on a shortest path "
                               "(internal error)")
        out[:, c0:c1] = o
    return out


def _dist_dtype(top: int):
    """Smallest signed dtype holding distances up to ``top`` plus a padding value."""
    for dt in (np.int16, np.int32):
        if top < np.iinfo(dt).max // 8:
            return dt
    return np.int64


def _padded(dist_vb: np.ndarray, dtype=np.int64) -> np.ndarray:
    """``(N, B)`` distances with a padding row ``N`` that is never on a shortest path."""
    n, b = dist_vb.shape
    dt = np.empty((n + 1, b), dtype=dtype)
    dt[:n] = dist_vb
    dt[n] = np.iinfo(dtype).max // 4
    return dt


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
            block: int = 4096, ties: str = "spread", seed=None, ties_seed=None,
            method: str = "auto", workers: int | None = None,
            ranks_file=None) -> TableRouting:
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
    ties : {"spread", "lowest", "random"}
        Which of several shortest-path next hops a table names (see the module docs):
        a uniform choice per (switch, destination) from a hash of ``ties_seed``
        (default), the lowest neighbour id, or one drawn from ``seed``'s random numbers
        (:func:`spread_ties`; keeps the distance table).
    seed : int, optional
        Seed of ``ties="random"`` (drawn and recorded when None).
    ties_seed : int, optional
        Seed of ``ties="spread"`` (None = 0: the same tables on every run).
    method : {"auto", "bit-parallel", "per-source"}
        ``"bit-parallel"``: the reverse bit-parallel search per block of destinations
        (``N x block`` work arrays; the fastest for ``ties="lowest"``); ``"per-source"``:
        one breadth-first search per source switch gives its whole row (:mod:`._rows`;
        numba, degree <= 64, memory ``O(N + E)`` per thread; less CPU and memory than
        the other for ``ties="spread"``).  ``"auto"``: per-source for ``"spread"`` when
        it applies (not with ``all_next_hops``), else bit-parallel.  Same tables.
    workers : int, optional
        Threads of the per-source method (default: the CPUs this process may use).
    ranks_file : path-like, optional
        Write the table to this ``.npy`` file as it is computed (columns of each block of
        destinations, at most :data:`._rows.STREAM_COLUMNS` at a time; rows of each block
        of sources with ``"per-source"``) and return a routing whose ``ranks`` is the
        file, memory-mapped read-only: the ``N x N`` table is never held in memory.

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
    Skywalk Sec. II-E calls shortest-hop routing "Nearest Routing".  Tie rules: see the
    module docs.

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology for
       HPC Networks with Low-delay Switches", IPDPS 2014, Sec. II-E.
    """
    _require(topology, "nearest routing")
    check_int("block", block, 64)
    _check_ties(ties)
    _check_method(method, ("auto", "per-source", "bit-parallel"))
    if ties == "random":
        return _rows.to_file(spread_ties(nearest(topology, layout, all_next_hops=True,
                                                 block=block, ties="lowest", method=method),
                                         seed), ranks_file)
    tseed = _ties_seed(ties_seed)
    view = csr_view(topology)
    n = view.n
    params = dict(_tie_params(ties, tseed), metric="hops")
    if method == "per-source" or (method == "auto" and ties == "spread"):
        # the spread rule's pass over the bit-parallel levels costs more CPU and memory
        # than a search per source; "lowest" is cheapest bit-parallel
        ranks = _rows.per_source(topology, view, np.ones(len(view.indices), dtype=np.int64),
                                 ties, tseed, method, all_next_hops, workers, ranks_file)
        if ranks is not None:
            return TableRouting(topology, ranks, layout=layout, algorithm="nr", params=params,
                                num_vcs=1)
    spread = ties == "spread"
    stream = ranks_file is not None and not all_next_hops
    if stream:  # columns go straight to the file: a smaller block bounds the work arrays
        block = min(block, _rows.STREAM_COLUMNS)
    ranks = None if stream else np.empty((1, n, n), dtype=view.rank_dtype)
    dist = np.empty((n, n), dtype=np.uint16) if all_next_hops else None
    wpad = np.where(view.valid_pad, 1, -1)
    with _rows.column_writer(ranks_file if stream else None, n, view.rank_dtype) as write:
        for d0 in range(0, n, block):
            d1 = min(n, d0 + block)
            ds = np.arange(d0, d1, dtype=np.int64)
            r, lev, _, ecc = bitbfs(view.nbr_pad, n, ds[:, None],
                                    want_levels=all_next_hops or spread, want_ranks=not spread,
                                    rank_dtype=view.rank_dtype, sentinel=view.sentinel)
            if spread:
                r = _spread_tight_ranks(_padded(lev, _dist_dtype(int(lev.max()))), view.nbr_pad,
                                        wpad, ds, tseed, view.rank_dtype, view.sentinel)
            if stream:
                write(d0, r)
            else:
                ranks[0, :, d0:d1] = r
            if all_next_hops:
                dist[:, d0:d1] = lev
    if stream:
        ranks = np.load(ranks_file, mmap_mode="r")
    ew = np.ones(len(view.indices), dtype=np.int64) if all_next_hops else None
    routing = TableRouting(topology, ranks, layout=layout, algorithm="nr", params=params,
                           num_vcs=1, distances=dist, entry_weight=ew)
    return routing if stream else _rows.to_file(routing, ranks_file)


def fr_weights(layout, switch_delay: float = 60.0) -> np.ndarray:
    """FR weight of each CSR entry in integer picoseconds: ``switch_delay + link_delay``."""
    topology = layout.topology
    delay = np.asarray(layout.link_delay, dtype=float)[topology.directed_edge_ids]
    w = np.rint((switch_delay + delay) * 1000.0).astype(np.int64)
    if len(w) and w.min() < 1:
        raise ParameterError("fastest routing needs positive link weights: switch_delay + "
                             "link delay must be at least 0.001 ns on every link")
    return w


def _lowest_tight_ranks(dist, nbr_pad, wpad, ds, rank_dtype, sentinel):
    """Lowest-rank next hop of every switch toward each destination of a block.

    ``dist[j, v]`` is the (integer-valued) distance from switch ``v`` to ``ds[j]``,
    ``wpad[v, r]`` the integer weight of ``v``'s link of rank ``r`` (``nbr_pad`` row
    ``n`` = padding).  For every ``(v, j)`` the chosen rank minimises the key
    ``(weight + dist of the neighbour) * 2**shift + rank``: minimum distance first,
    then the lowest rank (= lowest next-hop id).  Three array passes per rank
    (gather, add, minimum) on int32 keys when they fit, else int64.
    """
    n, r_count = nbr_pad.shape
    b = len(ds)
    shift = max(1, int(r_count - 1).bit_length())
    finite_w = wpad[wpad >= 0]
    top = (int(dist.max()) + int(finite_w.max() if finite_w.size else 0) + 1) << shift
    dtype = np.int32 if top + r_count < (1 << 30) else np.int64
    inf = np.iinfo(dtype).max // 2
    dt = np.empty((n + 1, b), dtype=dtype)  # (v, dst) orientation, last row = padding
    np.left_shift(dist.T.astype(dtype), shift, out=dt[:n])
    dt[n] = inf
    rank_bits = np.arange(r_count, dtype=dtype)[None, :]
    wkey = np.where(wpad >= 0, wpad.astype(dtype) << shift, 0) | rank_bits  # (n, R)
    best = np.full((n, b), inf, dtype=dtype)
    g = np.empty((n, b), dtype=dtype)
    for r in range(r_count):
        np.take(dt, nbr_pad[:, r], axis=0, out=g)
        g += wkey[:, r:r + 1]
        np.minimum(best, g, out=best)
    mask = (1 << shift) - 1
    ok = (best >> shift) == (dt[:n] >> shift)
    ok[ds, np.arange(b)] = True
    if not ok.all():
        raise RoutingError("fastest routing: a distance row is inconsistent (internal error)")
    out = (best & mask).astype(rank_dtype)
    out[ds, np.arange(b)] = sentinel
    return out


def _bf_block(nbr_pad, wpad, ds, max_rounds, rank_dtype, sentinel, known=None):
    """Vectorised Bellman–Ford toward a block of destinations, with the next hops.

    State ``key[v, j] = (dist(v, ds[j]) << shift) | rank``; each round relaxes every
    switch over all its links at once (three array passes per rank: gather, add,
    minimum), so after round ``k`` the distances of all routes of at most ``k`` hops are
    exact.  The round that changes nothing has also computed, for every switch, the
    lowest-rank neighbour on a shortest path (the same key rule as
    :func:`_lowest_tight_ranks`).  Returns ``(ranks, dist)`` with ``dist`` of shape
    ``(B, N)``, or ``None`` when ``max_rounds`` rounds were not enough.

    ``known`` (``(lo, B)`` exact distances of switches ``0 .. lo-1``, from earlier blocks
    by symmetry) fixes those rows: the rounds then relax only switches ``lo ..`` and one
    last pass gives the known switches their next hops.
    """
    n, r_count = nbr_pad.shape
    b = len(ds)
    shift = max(1, int(r_count - 1).bit_length())
    mask = (1 << shift) - 1
    w_max = int(wpad.max()) if wpad.size else 0
    top = ((max_rounds + 1) * w_max + 1) << shift
    dtype = np.int32 if top + r_count < (1 << 30) else np.int64
    inf = np.iinfo(dtype).max // 2
    wkey = (np.where(wpad >= 0, wpad, 0).astype(dtype) << shift) | \
        np.arange(r_count, dtype=dtype)[None, :]
    cols = np.arange(b)
    key = np.full((n + 1, b), inf, dtype=dtype)  # row n = padding
    # round 1 done directly: each destination's neighbours at the link's weight
    # (weights are symmetric: v's link to d weighs what d's link to v does)
    valid = nbr_pad[ds] < n
    jj = np.broadcast_to(cols[:, None], valid.shape)[valid]
    key[nbr_pad[ds][valid], jj] = wpad[ds][valid].astype(dtype) << shift
    key[ds, cols] = 0
    lo = 0
    if known is not None and len(known):
        lo = len(known)
        if lo > int(ds.min()):
            raise RoutingError("fastest routing: known rows overlap the block (internal error)")
        key[:lo] = np.asarray(known).astype(dtype) << shift
    m = n - lo
    nbr_u, wkey_u = nbr_pad[lo:], wkey[lo:]
    dsu = ds - lo
    best = np.empty((m, b), dtype=dtype)
    g = np.empty((m, b), dtype=dtype)

    def relax(rows_nbr, rows_wkey, out, tmp):
        out.fill(inf)
        for r in range(r_count):
            np.take(key, rows_nbr[:, r], axis=0, out=tmp)
            tmp += rows_wkey[:, r:r + 1]
            np.minimum(out, tmp, out=out)

    for _ in range(max_rounds):
        relax(nbr_u, wkey_u, best, g)
        best[dsu, cols] = 0
        # distances only decrease; none changed = converged (rank bits dropped for the
        # next round: they must not be added to the neighbours' keys)
        np.bitwise_and(best, dtype(~mask), out=g)
        if np.array_equal(g, key[lo:n]):
            out = np.empty((n, b), dtype=rank_dtype)
            out[lo:] = best & mask
            if lo:
                kb = np.empty((lo, b), dtype=dtype)
                relax(nbr_pad[:lo], wkey[:lo], kb, np.empty((lo, b), dtype=dtype))
                out[:lo] = kb & mask
            out[ds, cols] = sentinel
            return out, (key[:n] >> shift).T.astype(np.int64)
        key[lo:n] = g
    return None


#: Bellman–Ford rounds worth one Dijkstra per destination, per unit of ``2E / (R N)``
#: (measured: a round over all links costs ~1/14 of a SciPy Dijkstra plus next-hop pass).
_BF_BREAK_EVEN = 16


def _fr_block(args, cache=None):
    """Ranks (and distances if kept) toward the destinations ``ds`` of one block.

    ``cache = (dist, done, block)``: ``dist[d, v]`` rows written by finished blocks
    (``done[k]`` set), which by symmetry are the exact distances of switches ``0 .. lo-1``
    toward this block when blocks ``0 .. lo/block - 1`` are done; this block's rows are
    written there in turn.
    """
    indptr, indices, weights, n, nbr_pad, ds, rank_dtype, sentinel, keep, bf_rounds, tseed = args
    r_count = nbr_pad.shape[1]
    row = np.repeat(np.arange(n), np.diff(indptr))
    rank = np.arange(len(indices)) - indptr[row]
    wpad = np.full((n, r_count), -1, dtype=np.int64)
    wpad[row, rank] = weights
    res = None
    if bf_rounds:
        known = None
        if cache is not None:
            cdist, done, block = cache
            k = 0
            while k < len(done) and done[k] and (k + 1) * block <= int(ds[0]):
                k += 1
            known = cdist[:k * block, int(ds[0]):int(ds[-1]) + 1] if k else None
        res = _bf_block(nbr_pad, wpad, ds, bf_rounds, rank_dtype, sentinel, known)
    if res is not None:
        out, dist = res
    else:
        a = sp.csr_matrix((weights.astype(float), indices, indptr), shape=(n, n))
        dist = dijkstra(a, directed=True, indices=ds)  # symmetric: dist[d, v] = v -> d
        if not np.all(np.isfinite(dist)):
            raise TopologyError("fastest routing needs a connected topology")
        if tseed is None:
            out = _lowest_tight_ranks(dist, nbr_pad, wpad, ds, rank_dtype, sentinel)
        dist = dist.astype(np.int64)
    if tseed is not None:
        top = int(dist.max()) + int(weights.max() if len(weights) else 0)
        out = _spread_tight_ranks(_padded(dist.T, _dist_dtype(top)), nbr_pad, wpad, ds, tseed,
                                  rank_dtype, sentinel)
    if cache is not None:
        cdist, done, block = cache
        if dist.max() <= np.iinfo(cdist.dtype).max:
            cdist[int(ds[0]):int(ds[-1]) + 1] = dist
            done[int(ds[0]) // block] = 1
    return out, (dist if keep else None)


#: Largest distance cache (bytes) kept to reuse finished blocks by symmetry.
_CACHE_BYTES = 1 << 31


def _bf_budget(topology, view) -> int:
    """Bellman–Ford round budget (0 = use Dijkstra), from the cost model above.

    The rounds needed are the most hops of any FR route plus one; a breadth-first search
    from switch 0 bounds the hop diameter by twice its eccentricity (a hint only: FR
    routes may take more hops, and a block that needs more rounds falls back to
    Dijkstra).
    """
    from scipy.sparse.csgraph import breadth_first_order

    n = view.n
    if n < 2:
        return 0
    budget = int(_BF_BREAK_EVEN * len(view.indices) / (view.nbr_pad.shape[1] * n))
    order, pred = breadth_first_order(topology.csr(), 0, directed=False,
                                      return_predecessors=True)
    level = np.zeros(n, dtype=np.int64)
    for v in order[1:]:
        level[v] = level[pred[v]] + 1
    return budget if 2 * int(level.max()) + 1 <= budget else 0


#: State of the parallel FR computation, inherited by forked workers (not pickled).
_FR_STATE: dict = {}


def _fr_worker(d0: int) -> int:
    st = _FR_STATE
    ds = np.arange(d0, min(st["n"], d0 + st["block"]), dtype=np.int64)
    r, dd = _fr_block(st["common"] + (ds,) + st["tail"], st["cache"])
    st["ranks"][0, :, d0:d0 + len(ds)] = r
    if st["dist"] is not None:
        st["dist"][:, d0:d0 + len(ds)] = dd.T
    return d0


def _shared_array(shape, dtype) -> np.ndarray:
    """An array in anonymous shared memory: forked workers write into the parent's copy."""
    import mmap

    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = mmap.mmap(-1, max(size, 1))
    return np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape))).reshape(shape)


def _fr_parallel(common, tail, n, block, starts, workers, rank_dtype, keep):
    """FR blocks on ``workers`` forked processes; the tables are written in place into
    shared memory (no pickling of arrays, in or out)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    ranks = _shared_array((1, n, n), rank_dtype)
    dist = _shared_array((n, n), np.int64) if keep else None
    cache = None
    if tail[-1] and n * n * 4 <= _CACHE_BYTES:
        cache = (_shared_array((n, n), np.int32), _shared_array((len(starts),), np.uint8),
                 block)
    _FR_STATE.update(common=common, tail=tail, n=n, block=block, ranks=ranks, dist=dist,
                     cache=cache)
    try:
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as ex:
            for _ in ex.map(_fr_worker, starts):
                pass
    finally:
        _FR_STATE.clear()
    return ranks, dist


def fastest(layout, switch_delay: float = 60.0, *, all_next_hops: bool = False,
            block: int = 256, workers: int | None = None, method: str = "auto",
            ties: str = "spread", seed=None, ties_seed=None, ranks_file=None) -> TableRouting:
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
        Destinations per block (one Dijkstra call or one Bellman–Ford sweep).
    workers : int, optional
        Threads of the per-source method (default: the CPUs this process may use), or
        processes of the others (default 1 = in this process); blocks are independent.
    method : {"auto", "per-source", "dijkstra", "bellman-ford"}
        How distances are found (the tables are identical): ``"per-source"``, Dial's
        bucket queue from each source switch on the picoseconds divided by their common
        divisor, giving the switch's whole row (:mod:`._rows`; numba, degree <= 64,
        memory ``O(N + E)`` per thread besides the table); SciPy's Dijkstra; or a
        vectorised Bellman–Ford over a block of destinations that also yields the next
        hops (fast on low-diameter networks: random, Skywalk, Slim Fly...).  ``"auto"``
        takes ``"per-source"`` when it applies (not with ``all_next_hops`` or
        ``ties="random"``), else Bellman–Ford when a cost model says it pays (few hops,
        see :func:`_bf_budget`), falling back to Dijkstra for a block that needs too
        many rounds; ``"bellman-ford"`` always iterates to convergence.
    ties : {"spread", "lowest", "random"}
        Which of several minimum-latency next hops a table names (see the module docs):
        a uniform choice per (switch, destination) from a hash of ``ties_seed``
        (default), the lowest neighbour id, or one drawn from ``seed``'s random numbers
        (:func:`spread_ties`; keeps the N x N latency table).
    seed : int, optional
        Seed of ``ties="random"`` (drawn and recorded when None).
    ties_seed : int, optional
        Seed of ``ties="spread"`` (None = 0: the same tables on every run).
    ranks_file : path-like, optional
        As in :func:`nearest`: stream the table into this ``.npy`` file and return it
        memory-mapped.

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
    Weights are rounded to whole picoseconds, so equal-latency routes tie exactly; tie
    rules: see the module docs.

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
    if workers is not None:
        check_int("workers", workers, 1)
    _check_method(method, ("auto", "per-source", "dijkstra", "bellman-ford"))
    _check_ties(ties)
    if ties == "random":
        return _rows.to_file(spread_ties(fastest(layout, switch_delay, all_next_hops=True,
                                                 block=block, workers=workers, method=method,
                                                 ties="lowest"), seed), ranks_file)
    tseed = _ties_seed(ties_seed)
    topology = layout.topology
    _require(topology, "fastest routing")
    view = csr_view(topology)
    n = view.n
    w = fr_weights(layout, switch_delay)
    params = dict(_tie_params(ties, tseed), switch_delay=switch_delay, weight_unit="ps",
                  metric="latency")
    ranks = _rows.per_source(topology, view, w, ties, tseed, method, all_next_hops, workers,
                             ranks_file)
    if ranks is not None:
        return TableRouting(topology, ranks, layout=layout, algorithm="fr", params=params,
                            num_vcs=1)
    workers = 1 if workers is None else workers
    bf_rounds = {"dijkstra": 0, "bellman-ford": n + 1}.get(method)
    if bf_rounds is None:
        bf_rounds = _bf_budget(topology, view)
    starts = list(range(0, n, block))
    common = (view.indptr, view.indices, w, n, view.nbr_pad)
    tail = (view.rank_dtype, view.sentinel, all_next_hops, bf_rounds,
            tseed if ties == "spread" else None)
    if workers > 1 and len(starts) > 1:
        ranks, dist = _fr_parallel(common, tail, n, block, starts, workers, view.rank_dtype,
                                   all_next_hops)
    else:
        ranks = np.empty((1, n, n), dtype=view.rank_dtype)
        dist = np.empty((n, n), dtype=np.int64) if all_next_hops else None
        cache = None
        if bf_rounds and n * n * 4 <= _CACHE_BYTES and len(starts) > 1:
            cache = (np.empty((n, n), dtype=np.int32), np.zeros(len(starts), np.uint8), block)
        for d0 in starts:
            ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
            r, dd = _fr_block(common + (ds,) + tail, cache)
            ranks[0, :, d0:d0 + len(ds)] = r
            if all_next_hops:
                dist[:, d0:d0 + len(ds)] = dd.T
    return _rows.to_file(TableRouting(topology, ranks, layout=layout, algorithm="fr",
                                      params=params, num_vcs=1, distances=dist,
                                      entry_weight=w if all_next_hops else None), ranks_file)


def _check_method(method: str, allowed: tuple) -> None:
    if method not in allowed:
        raise ParameterError(f"method must be one of {', '.join(allowed)}, got {method!r}")


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise ParameterError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")


def _ties_seed(ties_seed) -> int:
    if ties_seed is None:
        return 0
    return check_int("ties_seed", ties_seed, 0, (1 << 63) - 1)


def _tie_params(ties: str, tseed: int) -> dict:
    if ties == "spread":
        return {"tie_rule": "spread", "ties_seed": tseed}
    return {"tie_rule": "lowest next-hop id"}


def spread_ties(routing: TableRouting, seed=None) -> TableRouting:
    """The same routing with its ties broken at random: at every switch and for every
    destination, the next hop is drawn uniformly (seeded) among the neighbours on a
    shortest path (equal hops for NR, equal latency for FR).

    The lowest-id rule sends every tied route through the same neighbour, which piles
    traffic onto a few links of regular networks (measured on Skywalk IV-B's 256-switch
    networks: the busiest link carries 17x the mean load on Hypercube, 6x on HyperX;
    1.7x and 2.6x with random ties).  Distances and route lengths are unchanged.

    Parameters
    ----------
    routing : TableRouting
        A single-phase routing computed with ``all_next_hops=True`` (``nearest`` or
        ``fastest``), so that its distance table is known.
    seed : int, optional
        Seed of the draw (drawn and recorded in ``params["ties_seed"]`` when None).

    Returns
    -------
    TableRouting
        ``params`` gain ``tie_rule="random"`` and ``ties_seed``.

    Raises
    ------
    ParameterError
        If the routing has no distance table.
    """
    from .._rng import make_rng, resolve_seed

    if getattr(routing, "distances", None) is None or getattr(routing, "entry_weight", None) is None:
        raise ParameterError("spread_ties needs a routing computed with all_next_hops=True "
                             "(its distance table)")
    seed = resolve_seed(seed)
    rng = make_rng(seed)
    view = csr_view(routing.topology)
    ip, idx = view.indptr, view.indices
    dist = np.asarray(routing.distances)
    w = np.asarray(routing.entry_weight, dtype=np.int64)
    ranks = np.array(routing.ranks, copy=True)
    for v in range(view.n):
        lo, hi = int(ip[v]), int(ip[v + 1])
        # dist[u, t]: distance from u to t; a neighbour u is on a shortest path to t
        tight = dist[idx[lo:hi], :].astype(np.int64) + w[lo:hi, None] == dist[v, :].astype(np.int64)
        pick = np.where(tight, rng.random(tight.shape), -1.0).argmax(axis=0)
        has = tight.any(axis=0)
        has[v] = False
        ranks[0, v, has] = pick[has]
    return TableRouting(routing.topology, ranks, layout=routing.layout,
                        algorithm=routing.algorithm,
                        params=dict(routing.params, tie_rule="random", ties_seed=int(seed)),
                        num_vcs=routing.num_vcs, distances=routing.distances,
                        entry_weight=routing.entry_weight)
