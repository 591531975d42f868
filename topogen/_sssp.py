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


#: Environment variable naming the folder of topogen's compiled-code cache (one a
#: cluster's nodes share, e.g. on the project file system); it overrides
#: ``NUMBA_CACHE_DIR`` for topogen's kernels only.  See docs/performance.md, "Cold start".
CACHE_ENV = "TOPOGEN_NUMBA_CACHE"


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


def _writable_folder(folder: str) -> bool:
    """Whether ``folder`` exists or can be made, and takes a file."""
    import os
    import tempfile

    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _cached_jit(func, folder):
    """``njit(cache=True, nogil=True)`` with numba's cache folder set to ``folder`` (None:
    numba's own choice) while the cache locator is chosen, which happens here."""
    from numba.core import config

    saved = config.CACHE_DIR
    if folder is not None:
        config.CACHE_DIR = folder
    try:
        return njit(cache=True, nogil=True)(func)
    finally:
        config.CACHE_DIR = saved


def _jit(func):
    """``njit(cache=True, nogil=True)``.  The cache goes to the first writable of: the
    folder named by ``TOPOGEN_NUMBA_CACHE``, ``NUMBA_CACHE_DIR``, the package's
    ``__pycache__``, the user's cache folder (``~/.cache/numba``) -- numba's own order,
    which skips folders it cannot write -- then a private folder under the temporary
    directory; without any, it compiles without a cache."""
    import os

    chosen = os.environ.get(CACHE_ENV) or None
    if chosen is not None and not _writable_folder(chosen):
        chosen = None  # numba's own order then
    try:
        return _cached_jit(func, chosen)
    except RuntimeError as exc:  # "cannot cache function ...: no locator available ..."
        if "no locator" not in str(exc):
            raise
    folder = _temp_cache_dir()
    if folder is not None:
        try:
            return _cached_jit(func, folder)
        except RuntimeError:
            pass
    return njit(nogil=True)(func)


def _make_prefetch(row: bool = False):
    """``prefetch(array, index)``: a hint to load the cache line of ``array[index]``
    (LLVM's ``llvm.prefetch``; Dial's loop asks for the next node's links while it
    relaxes the current one's, ~20% at 16,384 switches); with ``row``,
    ``prefetch_row(array2d, i)`` for the line of ``array2d[i, 0]`` (the compiled
    simulator's table rows, :mod:`topogen.sim._core`).  A no-op where it cannot be built."""
    try:
        from llvmlite import binding, ir
        from numba import types
        from numba.core import cgutils
        from numba.extending import intrinsic

        name = "llvm.prefetch.p0" if binding.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"

        @intrinsic
        def prefetch(typingctx, arr, idx):
            def codegen(context, builder, signature, args):
                aryty = signature.args[0]
                ary = context.make_array(aryty)(context, builder, args[0])
                i = context.cast(builder, args[1], signature.args[1], types.intp)
                at = [i, context.get_constant(types.intp, 0)] if row else [i]
                ptr = cgutils.get_item_pointer(context, builder, aryty, ary, at, wraparound=False)
                i8p = ir.IntType(8).as_pointer()
                i32 = ir.IntType(32)
                fn = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), name)
                # read, high locality, data cache
                builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                                  ir.Constant(i32, 3), ir.Constant(i32, 1)])
                return context.get_dummy_value()

            return types.void(arr, idx), codegen

        return prefetch
    except Exception:  # pragma: no cover - depends on the numba/llvmlite build
        @njit(inline="always")
        def prefetch(arr, idx):
            pass

        return prefetch


if AVAILABLE:
    prefetch = _make_prefetch()
    prefetch_row = _make_prefetch(row=True)

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
    def _fold(dist, s, shift, mode, lat_max, hop_max, hop_sum):
        """Fold one source's packed distances: (latency sum, max latency, max hops, hop sum)."""
        n = dist.shape[0]
        mask = (np.int64(1) << shift) - 1
        acc = 0.0  # float64 like the scipy path: no int64 overflow on huge floors
        for t in range(n):
            if t == s:
                continue
            d = np.int64(dist[t])
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
        return acc, lat_max, hop_max, hop_sum

    @_jit
    def _block_stats(indptr, indices, weights, sources, shift, mode):
        n = indptr.shape[0] - 1
        inf = np.iinfo(np.int64).max
        dist = np.empty(n, np.int64)
        cap = indices.shape[0] + 1
        keys = np.empty(cap, np.int64)
        nodes = np.empty(cap, np.int32)
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
            acc, lat_max, hop_max, hop_sum = _fold(dist, s, shift, mode, lat_max, hop_max,
                                                   hop_sum)
            lat_sum[i] = acc
        return lat_max, lat_sum, hop_max, hop_sum


    # Dial's bucket queue, shared by the searches here and in :mod:`topogen.routing._rows`
    # and :mod:`topogen.routing._booksim_rows`: a circular array ``head`` of buckets (a
    # power of two), each a linked list of entries ``(pool_node[e], pool_next[e])`` taken
    # from a pool (one entry per relaxation, so the pool needs ``E + 1``); a node settles
    # when it is first popped (``stamp[u] == tag`` marks it), later entries are stale.

    @njit(inline="always")
    def dial_reset(dist, head, pool_node, pool_next, s):
        """Empty the queue and hold only ``s`` (distance 0, bucket 0); every other
        distance is the type's maximum.  Returns the queue's state ``(top, pending, b)``:
        the next free entry, the entries queued and the current bucket."""
        dist[:] = np.iinfo(dist.dtype).max
        head[:] = -1
        dist[s] = 0
        pool_node[0] = s
        pool_next[0] = -1
        head[0] = 0
        return np.int64(1), np.int64(1), np.int64(0)

    @njit(inline="always")
    def dial_pop(head, pool_node, pool_next, stamp, tag, adj, indptr, b, cmask, pending,
                 ahead):
        """The next node to settle: pops the lowest non-empty bucket from ``b`` on,
        skipping stale entries, and stamps the node settled.  Returns ``(ok, u, b,
        pending)``; ``ok`` is false when the queue ran empty.  ``ahead``: prefetch the
        links of the bucket's next node while the caller scans ``u``'s."""
        while pending > 0:
            slot = b & cmask
            e = head[slot]
            if e < 0:
                b += 1
                continue
            nxt = pool_next[e]
            head[slot] = nxt
            pending -= 1
            u = pool_node[e]
            if stamp[u] == tag:
                continue
            if ahead and nxt >= 0:
                prefetch(adj, indptr[pool_node[nxt]])
            stamp[u] = tag
            return True, u, b, pending
        return False, pool_node[0], b, pending

    @njit(inline="always")
    def dial_take(head, pool_next, b, cmask):
        """One step of the scan for the lowest non-empty bucket from ``b``: returns
        ``(e, nxt, b)``, the entry unlinked from bucket ``b`` and the entry after it
        (-1: none), or ``e = -1`` and ``b + 1`` when bucket ``b`` is empty (the caller's
        loop comes back; one loop for both keeps the compiled search as fast as a
        hand-written one)."""
        slot = b & cmask
        e = head[slot]
        if e < 0:
            return e, e, b + 1
        nxt = pool_next[e]
        head[slot] = nxt
        return e, nxt, b

    @njit(inline="always")
    def dial_push(head, pool_node, pool_next, top, slot, v):
        """Queue ``v`` in bucket ``slot`` as pool entry ``top``; returns the next free
        entry (the caller counts ``pending``)."""
        pool_node[top] = v
        pool_next[top] = head[slot]
        head[slot] = top
        return top + 1

    @_jit
    def _dial(indptr, adj, vbits, shift, mode, base, one, s, dist, stamp, tag, head,
              pool_node, pool_next, order):
        """One source by Dial's algorithm (see :func:`bucket_plan`); returns the number of
        nodes settled, in settling order in ``order``.

        ``adj[j]`` packs the head ``adj & (2**vbits - 1)`` and the increment
        ``inc = adj >> vbits`` of CSR entry ``j``; its key weight is ``inc << shift | 1``
        (FR), ``base + inc`` (NR best) or ``base - inc`` (NR worst).  ``adj``, ``dist``,
        ``vbits``, ``shift``, ``base`` and ``one`` share one unsigned type (mixing
        unsigned and signed 64-bit integers would make numba compute in floats).  A circular array of
        ``head.size`` buckets holds the primary field of the keys (latency for FR, hops for
        NR); every link raises it by at least one and by less than ``head.size``, so a
        bucket's keys are final when it is reached and its nodes settle in any order.
        Unsigned indices throughout: numba then skips its negative-index checks (1.5x).
        """
        n = indptr.shape[0] - 1
        vmask = (one << vbits) - one
        cmask = head.shape[0] - 1
        ishift = np.int64(shift)
        low = (np.int64(1) << ishift) - 1
        top, pending, b = dial_reset(dist, head, pool_node, pool_next, s)
        settled = 0
        while settled < n and pending > 0:
            e, nxt, b = dial_take(head, pool_next, b, cmask)
            if e < 0:
                continue
            pending -= 1
            u = pool_node[e]
            if stamp[u] == tag:
                continue
            if nxt >= 0:
                prefetch(adj, indptr[pool_node[nxt]])
            stamp[u] = tag
            order[settled] = u
            settled += 1
            du = dist[u]
            for j in range(indptr[u], indptr[u + np.uint32(1)]):
                a = adj[j]
                v = np.uint32(a & vmask)
                inc = a >> vbits
                if mode == 0:
                    nd = du + ((inc << shift) | one)
                elif mode == 1:
                    nd = du + base + inc
                else:
                    nd = du + base - inc
                if nd < dist[v]:
                    dist[v] = nd
                    if mode == 2:
                        slot_v = ((np.int64(nd) + low) >> ishift) & cmask
                    else:
                        slot_v = (np.int64(nd) >> ishift) & cmask
                    top = dial_push(head, pool_node, pool_next, top, slot_v, v)
                    pending += 1
        return settled

    @_jit
    def _dial_block_stats(indptr, adj, vbits, shift, mode, base, one, sources, buckets, dist):
        n = indptr.shape[0] - 1
        stamp = np.full(n, np.uint32(0xFFFFFFFF), np.uint32)
        order = np.empty(n, np.uint32)
        head = np.empty(buckets, np.int32)
        cap = adj.shape[0] + 1
        pool_node = np.empty(cap, np.uint32)
        pool_next = np.empty(cap, np.int32)
        k = sources.shape[0]
        lat_sum = np.zeros(k, np.float64)
        lat_max = np.int64(0)
        hop_max = np.int64(0)
        hop_sum = np.int64(0)
        for i in range(k):
            s = sources[i]
            _dial(indptr, adj, vbits, shift, mode, base, one, s, dist, stamp, np.uint32(i),
                  head, pool_node, pool_next, order)
            acc, lat_max, hop_max, hop_sum = _fold(dist, s, np.int64(shift), mode, lat_max, hop_max,
                                                   hop_sum)
            lat_sum[i] = acc
        return lat_max, lat_sum, hop_max, hop_sum


#: Dial's buckets are used when the longest possible path spans at most this many buckets
#: per node and link of the graph, plus :data:`_MAX_BUCKETS` (beyond it, scanning empty
#: buckets would cost more than the binary heap saves).
_BUCKET_SPAN_PER_ELEMENT = 8
#: Most buckets of the circular array (4 bytes each).
_MAX_BUCKETS = 1 << 20


class BucketPlan:
    """How to run Dial's algorithm on a graph (see :func:`bucket_plan`).

    Attributes
    ----------
    indptr : ndarray of uint32 or uint64
    adj : ndarray of uint32 or uint64
        Head of each CSR entry in the low ``vbits`` bits, its increment above them.
    vbits : int
    base : int
        NR: the hop unit ``2**shift`` of the key; FR: 0.
    scale : int
        Latency quanta per unit of the increments (their greatest common divisor).
    buckets : int
        Size of the circular bucket array (a power of two above the largest step of the
        primary field).
    dtype : numpy dtype
        ``uint32`` when every key and packed entry fits (half the memory traffic), else
        ``uint64``: the type of ``adj`` and of the distances.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)


def bucket_plan(indptr, indices, weights, shift: int, mode: int, hop_bound: int):
    """A :class:`BucketPlan` for Dial's algorithm, or None when the binary heap is better.

    FR keys are ``latency << shift | hops``: latencies are small integers in the unit of
    their greatest common divisor (half-nanoseconds on the Skywalk floor), and a bucket
    per latency value holds only final keys when it is reached (every link adds at least
    one unit).  NR keys put hops first: one bucket per hop count.  None when a link has
    zero latency (FR) or when the latency range is too wide for buckets.
    """
    w = np.asarray(weights, dtype=np.int64)
    n = len(indptr) - 1
    if w.size == 0 or n >= 1 << 31:
        return None
    unit = np.int64(1) << shift
    if mode == FR:
        lat = w >> shift
    elif mode == NR_BEST:
        lat = w - unit
    else:
        lat = unit - w
    if mode == FR and lat.min() < 1:
        return None
    g = max(1, int(np.gcd.reduce(lat)))
    inc = lat // g
    top = int(inc.max())
    if mode == FR:
        span = int(hop_bound) * top
        if top >= _MAX_BUCKETS or span > _BUCKET_SPAN_PER_ELEMENT * (n + w.size) + _MAX_BUCKETS:
            return None
        buckets = 1 << top.bit_length()
        key_top = (span + top + 2) << shift
    else:
        buckets = 2
        key_top = (int(hop_bound) + 3) << shift
    return make_plan(indptr, indices, inc, g, buckets, 0 if mode == FR else int(unit), key_top)


def make_plan(indptr, indices, inc, scale: int, buckets: int, base: int, key_top: int):
    """Pack a graph for :func:`_dial`: each CSR entry's head and increment ``inc`` in one
    unsigned word (``uint32`` when they and every key below ``key_top`` fit)."""
    n = len(indptr) - 1
    inc = np.asarray(inc, dtype=np.int64)
    top = int(inc.max()) if inc.size else 0
    vbits = max(1, int(n - 1).bit_length())
    small = vbits + top.bit_length() <= 32 and key_top < 1 << 31
    dtype = np.dtype(np.uint32 if small else np.uint64)
    adj = np.asarray(indices).astype(np.uint64) | (inc.astype(np.uint64) << np.uint64(vbits))
    return BucketPlan(indptr=np.asarray(indptr).astype(np.uint32 if inc.size < 1 << 32 else np.uint64),
                      adj=adj.astype(dtype), vbits=vbits, base=int(base), scale=int(scale),
                      buckets=int(buckets), dtype=dtype)


def block_stats(indptr, indices, weights, sources, shift: int, mode: int, plan=None):
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
    plan : BucketPlan, optional
        Run Dial's algorithm (:func:`bucket_plan`) instead of the binary heap; the
        results are the same.

    Returns
    -------
    (int, ndarray of float64, int, int)
        Maximum latency (quanta), each source's latency sum (quanta) over the other
        switches, maximum hops and total hops.
    """
    if plan is None:
        lat_max, lat_sum, hop_max, hop_sum = _block_stats(
            indptr, indices, weights, sources, np.int64(shift), np.int64(mode))
        return int(lat_max), lat_sum, int(hop_max), int(hop_sum)
    t = plan.dtype.type
    lat_max, lat_sum, hop_max, hop_sum = _dial_block_stats(
        plan.indptr, plan.adj, t(plan.vbits), t(shift), np.int64(mode), t(plan.base), t(1),
        np.asarray(sources, dtype=np.uint32), np.int64(plan.buckets),
        np.empty(len(plan.indptr) - 1, plan.dtype))
    g = plan.scale
    # exact: integer sums below 2**53 (the encoding's bound) times an integer
    return int(lat_max) * g, lat_sum * g, int(hop_max), int(hop_sum)
