"""BookSim anynet's ``min`` routing rows by one compiled Dial search per source (the
kernel of :func:`.booksim_min.booksim_min`, imported with numba only when it runs)."""

from __future__ import annotations

import numpy as np

from .. import _sssp

#: numba keys the cache of this file's kernels by this file alone, but they inline the
#: bucket-queue helpers of ``topogen/_sssp.py``: its SHA-256 (first 16 hex digits).  A test
#: fails until it is updated after editing it, and the update changes this file, so no
#: cached kernel outlives its helpers (``tests/sim/test_compiled_sort.py``).
INLINED_HELPERS_SHA256 = "5662f8d6a9441441"

__all__ = ["_tree_rows"]

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
