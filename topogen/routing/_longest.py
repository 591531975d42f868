"""The longest route of a one-phase table routing, from each destination's in-tree
(:func:`longest_route`, used by :meth:`.base.TableRouting.max_route_length`)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import _sssp

__all__ = ["longest_route"]

if _sssp.AVAILABLE:
    _jit = _sssp._jit

    @_jit
    def _longest_block(ranks2d, indptr, indices, d0, d1, sentinel, nh, depth, stack):
        """Longest route (hops) toward the destinations ``d0 .. d1-1`` when every switch
        ``v`` forwards by ``ranks2d[v, d]``: the depth of each destination's in-tree, each
        switch's depth found once (a walk up to a switch of known depth, then back).
        Returns ``(longest, problem)``; ``problem`` is 0, or 1 when a table entry is
        missing or out of range or a route loops (the caller then walks the routes to
        say where)."""
        n = indptr.shape[0] - 1
        m = indices.shape[0]
        b = d1 - d0
        for v in range(n):
            base = indptr[v]
            row = ranks2d[v]
            for j in range(b):
                r = np.int64(row[d0 + j])
                if r == sentinel or base + r >= m:
                    nh[j, v] = -1
                else:
                    nh[j, v] = indices[base + r]
        best = 0
        for j in range(b):
            dst = d0 + j
            col = nh[j]
            depth[:] = -1
            depth[dst] = 0
            for v in range(n):
                if depth[v] >= 0:
                    continue
                top = 0
                u = v
                while depth[u] == -1:
                    w = col[u]
                    if w < 0:
                        return best, 1
                    depth[u] = -2  # on the current walk
                    stack[top] = u
                    top += 1
                    u = w
                if depth[u] == -2:
                    return best, 1
                h = depth[u]
                while top > 0:
                    top -= 1
                    h += 1
                    depth[stack[top]] = h
                if h > best:
                    best = h
        return best, 0


def _threads(workers) -> int:
    if workers is not None:
        return max(1, int(workers))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


#: Destinations per block of :func:`longest_route` (a cache line of ``uint8`` ranks per switch).
LONGEST_BLOCK = 64


def longest_route(routing, *, workers=None):
    """Longest route (hops) of a one-phase table routing over all ordered switch pairs,
    from one pass over each destination's in-tree (``O(N)`` per destination, ``N^2`` in
    all, no route walked hop by hop); None without numba, or when a table entry is
    missing or a route loops (:meth:`TableRouting.max_route_length` then walks the routes
    and names the pair)."""
    if not _sssp.AVAILABLE or routing.num_phases != 1:
        return None
    view = routing.view
    n = view.n
    if n < 2:
        return 0
    ranks2d = np.asarray(routing.ranks)[0]
    indptr = view.indptr
    indices = view.indices.astype(np.int32)
    starts = list(range(0, n, LONGEST_BLOCK))
    sentinel = np.int64(routing.sentinel)

    def job(chunk):
        b = LONGEST_BLOCK
        nh = np.empty((b, n), dtype=np.int32)
        depth = np.empty(n, dtype=np.int32)
        stack = np.empty(n + 1, dtype=np.int32)
        best = 0
        for d0 in chunk:
            got, bad = _longest_block(ranks2d, indptr, indices, np.int64(d0),
                                      np.int64(min(n, d0 + b)), sentinel, nh, depth, stack)
            if bad:
                return None
            best = max(best, int(got))
        return best

    nw = min(_threads(workers), len(starts))
    if nw == 1:
        return job(starts)
    with ThreadPoolExecutor(nw) as ex:
        got = list(ex.map(job, [starts[i::nw] for i in range(nw)]))
    return None if any(g is None for g in got) else max(got)

