"""Compiled single-source shortest paths on CSR arrays with exact int64 keys.

The latency metrics (:mod:`topogen.metrics.latency`) encode two criteria (latency and
hops) in one non-negative integer weight per directed link, so one Dijkstra per source
gives exact lexicographic shortest paths.  :func:`block_stats` runs those Dijkstras with
a binary heap (lazy deletion) over int64 keys, compiled by numba and releasing the GIL,
and folds each source's distances into the four figures the metrics need, so no
``sources x N`` distance matrix is ever built.  Threads run blocks side by side.

When numba is not importable (:data:`AVAILABLE` is False) the metrics fall back to
:func:`scipy.sparse.csgraph.dijkstra`; both give identical results (tests compare them).
"""

from __future__ import annotations

import numpy as np

try:  # numba is a dependency; stay importable where no wheel exists
    from numba import njit
    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only without numba
    AVAILABLE = False

__all__ = ["AVAILABLE", "block_stats", "FR", "NR_BEST", "NR_WORST"]

#: Decoding modes of a packed distance ``d`` (see ``topogen.metrics.latency``):
#: FR ``d = lat << shift | hops``; NR best ``d = hops << shift | lat``;
#: NR worst ``d = (hops << shift) - lat``.
FR, NR_BEST, NR_WORST = 0, 1, 2


def _temp_cache_dir() -> str | None:
    """A private per-user folder under the temporary directory for numba's cache."""
    import os
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else "user"
    folder = os.path.join(tempfile.gettempdir(), f"topogen-numba-cache-{uid}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    import stat

    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return folder if stat.S_ISDIR(st.st_mode) and mine and os.access(folder, os.W_OK) else None


def _jit(func):
    """``njit(cache=True, nogil=True)``, caching in a temporary folder when numba finds no
    writable cache location (neither the package's ``__pycache__`` nor the home folder's
    ``.cache``), and compiling without a cache when even that fails."""
    try:
        return njit(cache=True, nogil=True)(func)
    except RuntimeError as exc:  # "cannot cache function ...: no locator available ..."
        if "no locator" not in str(exc):
            raise
    from numba.core import config

    folder = _temp_cache_dir()
    if folder is not None:
        config.CACHE_DIR = folder
        try:
            return njit(cache=True, nogil=True)(func)
        except RuntimeError:
            pass
    return njit(nogil=True)(func)


if AVAILABLE:

    @_jit
    def _push(keys, nodes, size, key, node):
        i = size
        keys[i] = key
        nodes[i] = node
        while i > 0:
            parent = (i - 1) >> 1
            if keys[parent] <= key:
                break
            keys[i] = keys[parent]
            nodes[i] = nodes[parent]
            i = parent
        keys[i] = key
        nodes[i] = node
        return size + 1

    @_jit
    def _pop(keys, nodes, size):
        """Remove the root; the caller has read it.  Returns the new size."""
        size -= 1
        key = keys[size]
        node = nodes[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and keys[child + 1] < keys[child]:
                child += 1
            if keys[child] >= key:
                break
            keys[i] = keys[child]
            nodes[i] = nodes[child]
            i = child
        if size > 0:
            keys[i] = key
            nodes[i] = node
        return size

    @_jit
    def _block_stats(indptr, indices, weights, sources, shift, mode):
        n = indptr.shape[0] - 1
        inf = np.iinfo(np.int64).max
        dist = np.empty(n, np.int64)
        cap = indices.shape[0] + 1
        keys = np.empty(cap, np.int64)
        nodes = np.empty(cap, np.int32)
        mask = (np.int64(1) << shift) - 1
        k = sources.shape[0]
        lat_sum = np.zeros(k, np.float64)
        lat_max = np.int64(0)
        hop_max = np.int64(0)
        hop_sum = np.int64(0)
        for i in range(k):
            s = sources[i]
            dist[:] = inf
            dist[s] = 0
            size = _push(keys, nodes, 0, np.int64(0), s)
            while size > 0:
                key = keys[0]
                u = nodes[0]
                size = _pop(keys, nodes, size)
                if key != dist[u]:
                    continue
                for e in range(indptr[u], indptr[u + 1]):
                    v = indices[e]
                    nd = key + weights[e]
                    if nd < dist[v]:
                        dist[v] = nd
                        size = _push(keys, nodes, size, nd, v)
            acc = 0.0  # float64 like the scipy path: no int64 overflow on huge floors
            for t in range(n):
                if t == s:
                    continue
                d = dist[t]
                if mode == 0:
                    lat = d >> shift
                    hops = d & mask
                elif mode == 1:
                    lat = d & mask
                    hops = d >> shift
                else:
                    hops = (d + mask) >> shift
                    lat = (hops << shift) - d
                acc += lat
                if lat > lat_max:
                    lat_max = lat
                if hops > hop_max:
                    hop_max = hops
                hop_sum += hops
            lat_sum[i] = acc
        return lat_max, lat_sum, hop_max, hop_sum


def block_stats(indptr, indices, weights, sources, shift: int, mode: int):
    """Exact lexicographic shortest paths from ``sources``, folded per block.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR adjacency (int64 / int32); the graph must be connected.
    weights : ndarray of int64
        Packed non-negative weight of each CSR entry.
    sources : ndarray of int32
    shift : int
        Bits of the low field of the packing.
    mode : int
        :data:`FR`, :data:`NR_BEST` or :data:`NR_WORST`.

    Returns
    -------
    (int, ndarray of float64, int, int)
        Maximum latency (quanta), each source's latency sum (quanta) over the other
        switches, maximum hops and total hops.
    """
    lat_max, lat_sum, hop_max, hop_sum = _block_stats(
        indptr, indices, weights, sources, np.int64(shift), np.int64(mode))
    return int(lat_max), lat_sum, int(hop_max), int(hop_sum)
