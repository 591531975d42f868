"""BookSim anynet's ``min`` routing rows by one compiled search per source (the kernels
of :func:`.booksim_min.booksim_min`, imported with numba only when they run): with
buckets as wide as the shortest link latency (:func:`_wide_rows`, where its window fits)
or Dial's one-cycle buckets (:func:`_tree_rows`); the same rows.  The wide rows pick each
router's predecessor as the greatest (latency, reversed link rank) key over its tight
in-links, by selects the code generator must keep branch-free (:func:`_cmov`): the
BookSim table of the laid-out 32x32x16 torus takes 5.0 s of CPU on two threads."""

from __future__ import annotations

import numpy as np

from .. import _sssp

#: numba keys the cache of this file's kernels by this file alone, but they inline the
#: bucket-queue helpers of ``topogen/_sssp.py``: its SHA-256 (first 16 hex digits).  A test
#: fails until it is updated after editing it, and the update changes this file, so no
#: cached kernel outlives its helpers (``tests/sim/test_compiled_sort.py``).
INLINED_HELPERS_SHA256 = "5662f8d6a9441441"

__all__ = ["_tree_rows", "_wide_rows"]

if _sssp.AVAILABLE:
    @_sssp._jit
    def _tree_rows(indptr, adj, vbits, w_in, sym, rev_rank, sources, buckets, out, sentinel,
                   dist):
        """BookSim anynet's first-hop rows of ``sources`` into ``out`` (one row each): one
        Dial search per source over the directed links.  ``adj[j]`` packs CSR entry ``j``
        (``v -> u``): ``u`` in its low ``vbits`` bits, the latency of ``v -> u`` above them;
        ``w_in[j]`` is the latency of ``u -> v`` (read from ``adj`` when ``sym``).  When
        ``v`` settles, its predecessor is its tight in-neighbour ``u`` of least
        ``(dist(u), u)`` (all settled: latencies are >= 1; CSR rows are sorted, so the first
        of least distance has the least id) and ``v``'s first hop is ``u``'s, or ``v``
        itself (its rank at the source, ``rev_rank[j]``) when ``u`` is the source; the same
        scan relaxes ``v``'s out-links.  Small types (``dist`` may be ``uint16``, ``adj``
        ``uint32``) keep a 16,384-router search in the first cache levels.  Returns -1, or
        the index of a source from which a router is unreachable."""
        n = indptr.shape[0] - 1
        vb = adj.dtype.type(vbits)
        vmask = (adj.dtype.type(1) << vb) - adj.dtype.type(1)
        cmask = buckets - 1
        head = np.empty(buckets, np.int32)
        cap = adj.shape[0] + 1
        pool_node = np.empty(cap, np.int32)
        pool_next = np.empty(cap, np.int32)
        stamp = np.full(n, np.uint16(0xFFFF), np.uint16)
        inf = np.iinfo(dist.dtype).max
        for i in range(sources.shape[0]):
            s = sources[i]
            row = out[i]
            tag = np.uint16(i & 0x7FFF)
            top, pending, b = _sssp.dial_reset(dist, head, pool_node, pool_next, s)
            settled = 0
            while settled < n and pending > 0:
                e, nxt, b = _sssp.dial_take(head, pool_next, b, cmask)
                if e < 0:
                    continue
                pending -= 1
                v = pool_node[e]
                if stamp[v] == tag:
                    continue
                stamp[v] = tag
                settled += 1
                dv = np.int64(dist[v])
                best_d = np.int64(inf)
                pick = 0
                for j in range(indptr[v], indptr[v + 1]):
                    a = adj[j]
                    u = np.int64(a & vmask)
                    lat = np.int64(a >> vb)
                    du = np.int64(dist[u])
                    lin = lat if sym else np.int64(w_in[j])
                    # selects, not branches: whether a link is tight is unpredictable
                    take = (du + lin == dv) & (du < best_d)
                    best_d = du if take else best_d
                    pick = j if take else pick
                    nd = dv + lat
                    if nd < du:
                        dist[u] = nd
                        top = _sssp.dial_push(head, pool_node, pool_next, top, nd & cmask, u)
                        pending += 1
                if v == s:
                    row[v] = sentinel
                else:
                    p = np.int64(adj[pick] & vmask)
                    row[v] = rev_rank[pick] if p == s else row[p]
            if settled < n:
                return i
        return -1

    from numba import types as _types
    from numba.extending import intrinsic as _intrinsic

    @_intrinsic
    def _cmov(typingctx, c, a, b):
        """``a if c else b`` as a select marked unpredictable (LLVM's ``!unpredictable``),
        which the code generator keeps branch-free: left to itself it turns the select of
        the tight test into a branch, which the CPU then mispredicts on a fair share of
        links."""
        def codegen(context, builder, signature, args):
            cond = context.cast(builder, args[0], signature.args[0], _types.boolean)
            r = builder.select(cond, args[1], args[2])
            r.set_metadata("unpredictable", builder.module.add_metadata([]))
            return r

        return a(_types.boolean, a, a), codegen

    @_sssp._jit
    def _wide_rows(indptr, adj, vbits, w_in, sym, rev_rank, sources, wsh, nbuckets, out,
                   sentinel, dist, rbits):
        """:func:`_tree_rows` with buckets ``2**wsh`` cycles wide, no wider than the
        shortest link latency, each an array (``store[slot, :cnt[slot]]``, a circular
        window of ``nbuckets``).  A link from a router of the current bucket lands in a
        later one, so a reached bucket holds final distances and is read through in order
        (no search for the next router); a router is queued when a relaxation moves it to
        another bucket (at most once per bucket: distances only fall), and an entry is
        stale when its router's distance lies in another bucket.  A tight in-neighbour is
        at least one shortest latency nearer the source, in an earlier bucket, so every
        predecessor and first hop is the one :func:`_tree_rows` finds.

        The predecessor, the tight in-neighbour ``u`` of least ``(dist(u), u)``, is the
        one over the longest tight in-link (``dist(u) = dist(v) - lat(u -> v)``), the
        first in the CSR row (least id) among equals: the greatest key ``lat << rbits |
        (2**rbits - 1 - link rank)`` over the tight links (``rbits`` bits hold every link
        rank), two branch-free selects per link.  Indices are unsigned (no wrap-around
        fix-up of negative ones).  Returns -1, or the index of a source from which a
        router is unreachable."""
        n = indptr.shape[0] - 1
        vb = adj.dtype.type(vbits)
        vmask = (adj.dtype.type(1) << vb) - adj.dtype.type(1)
        cmask = nbuckets - 1
        store = np.empty((nbuckets, n), np.int32)
        cnt = np.zeros(nbuckets, np.int64)
        inf = np.int64(np.iinfo(dist.dtype).max)
        one = np.uint64(1)
        rtop = np.int64((1 << rbits) - 1)
        for i in range(sources.shape[0]):
            s = np.uint64(sources[i])
            row = out[i]
            dist[:] = inf
            cnt[:] = 0
            dist[s] = 0
            store[0, 0] = s
            cnt[0] = 1
            pending = 1
            settled = 0
            b = np.int64(0)
            while settled < n and pending > 0:
                sl = b & cmask
                bucket = store[sl]
                k = cnt[sl]
                cnt[sl] = 0
                pending -= k
                for x in range(k):
                    v = np.uint64(bucket[x])
                    dv = np.int64(dist[v])
                    if (dv >> wsh) != b:
                        continue  # moved to an earlier bucket and settled there
                    if x + 1 < k:
                        _sssp.prefetch(adj, indptr[bucket[x + 1]])
                    settled += 1
                    lo = np.uint64(indptr[v])
                    best = np.int64(0)
                    for j in range(lo, np.uint64(indptr[v + one])):
                        a = adj[j]
                        u = np.uint64(a & vmask)
                        lat = np.int64(a >> vb)
                        du = np.int64(dist[u])
                        lin = lat if sym else np.int64(w_in[j])
                        key = (lin << rbits) | (rtop - np.int64(j - lo))
                        # two unpredictable selects: the key if tight, then the maximum
                        kt = _cmov(du + lin == dv, key, np.int64(0))
                        best = _cmov(kt > best, kt, best)
                        nd = dv + lat
                        if nd < du:
                            dist[u] = nd
                            t = nd >> wsh
                            if (du == inf) or (t != (du >> wsh)):
                                ts = t & cmask
                                store[ts, cnt[ts]] = u
                                cnt[ts] += 1
                                pending += 1
                    if v == s:
                        row[v] = sentinel
                    else:
                        pick = lo + np.uint64(rtop - (best & rtop))
                        p = np.uint64(adj[pick] & vmask)
                        row[v] = rev_rank[pick] if p == s else row[p]
                b += 1
            if settled < n:
                return i
        return -1
