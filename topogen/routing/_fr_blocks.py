"""Fastest Routing's block algorithms (:func:`topogen.routing.paths.fastest`): next hops
toward a block of destinations from SciPy's Dijkstra (:func:`_lowest_tight_ranks`) or a
vectorised Bellman–Ford (:func:`_bf_block`), the cost model that picks one
(:func:`_bf_budget`), and the forked workers that run blocks in parallel into shared memory
(:func:`_fr_parallel`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import RoutingError, TopologyError
from .ties import _dist_dtype, _padded, _spread_tight_ranks


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
        from scipy.sparse.csgraph import dijkstra  # on use: csgraph loads scipy.linalg

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
