"""NR and FR next-hop tables one source switch at a time, in memory ``O(N + E)`` per thread.

Row ``ranks[0, v, :]`` (switch ``v``'s own forwarding table) comes from one shortest-path
search *from* ``v``: Dial's algorithm (as :func:`topogen._sssp._dial`) on integer weights
(1 per hop for NR; FR's picoseconds divided by their greatest common divisor) which, as
each switch ``x`` settles, also gives it the set of ``v``'s links that start a shortest
path to ``x``, as a 64-bit mask::

    mask[x] = OR of mask[p] over the neighbours p of x with dist[p] + w(p, x) == dist[x]

(its tied predecessors ``p`` have settled before it; the links of ``v`` itself seed the
masks), in the same pass over ``x``'s links that relaxes the others.  Links are symmetric, so a link ``v -> w``
starts a shortest path to ``x`` exactly when ``w(v, w) + dist(w, x) == dist(v, x)``: the
set of tied next hops the other algorithms of :mod:`.paths` read off their distance
tables.  The tie rules then pick from the mask: the lowest set bit (``"lowest"``), or
the set bit of index ``(tie_hash(seed, v, x) * k) >> 32`` among the ``k`` set bits
(``"spread"``), so the tables are byte-identical to theirs.

Rows are contiguous in ``ranks.npy`` (shape ``(1, N, N)``), so blocks of sources are
written to the file as they finish (:func:`compute`), in source order, while threads
(the kernel releases the GIL) work on the next blocks: the table never needs to be in
memory.  Usable for degrees up to 64 with numba installed (:func:`usable`).  NR tables
(unit weights) come from :mod:`._bitrows` instead (:func:`per_source`'s ``table``): the
same table, for blocks of destinations, every switch at once, a hop per pass (less CPU).

:func:`compute_columns` builds the same table one search per *destination* ``d``
(:func:`fastest`'s in-memory tables): when ``x`` settles, its links to settled neighbours
``y`` with ``dist(y) + w(x, y) == dist(x)`` are its tied next hops toward ``d`` (links are
symmetric), the tie rule picks one at once, and ``x``'s depth in ``d``'s in-tree is its
pick's plus one, so the table's longest route (the VC count of hop-indexed, Valiant and
UGAL routings) comes with it.  Columns of 64 destinations are written as tiles.  The
weighted search there is :func:`_wide_column` where its window fits
(:func:`wide_buckets`): buckets as wide as the lightest link (a power of two at most its
weight) hold only final distances when reached, so each is read through in order like a
breadth-first queue, its distances and depths in 16 bits where they fit
(:func:`wide_dist_dtype`), each link's tie test one compare in 64 bits, and the columns
written into the rows by 8 x 8 byte transposes in words (the FR table of the laid-out
32x32x16 torus: 5.3 s of CPU on two threads, against 8.9 s with Dial's one-unit
buckets).  (Dijkstra with one FIFO queue per distinct weight,
the next switch the least queue head, was measured too: it costs more than Dial's buckets
there, since which queue holds the least head is unpredictable.)
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .. import _sssp
from ..errors import ParameterError, RoutingError
from ._npyfile import STREAM_COLUMNS, _npy_header, column_writer, to_file  # noqa: F401 (re-exported)

#: numba keys the cache of this file's kernels by this file alone, but they inline the
#: bucket-queue helpers of ``topogen/_sssp.py``: its SHA-256 (first 16 hex digits).  A test
#: fails until it is updated after editing it, and the update changes this file, so no
#: cached kernel outlives its helpers (``tests/sim/test_compiled_sort.py``).
INLINED_HELPERS_SHA256 = "5662f8d6a9441441"

__all__ = ["usable", "compute", "compute_columns", "plan", "per_source", "to_file", "column_writer"]

#: Sources per block (one task of a thread; ``block x N`` bytes of output).
BLOCK = 256

if _sssp.AVAILABLE:
    from numba.cpython.unsafe.numbers import trailing_zeros

    _jit = _sssp._jit
    _M32 = np.uint64(0xFFFFFFFF)

    @_jit
    def _splitmix(x):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))

    @_jit
    def _mix32(hv, hd):
        """The 32-bit finaliser of :func:`topogen.routing.paths.tie_hash`."""
        m = np.uint64(0xFFFFFFFF)
        x = (hv ^ hd) & m
        x ^= x >> np.uint64(16)
        x = (x * np.uint64(0x7FEB352D)) & m
        x ^= x >> np.uint64(15)
        x = (x * np.uint64(0x846CA68B)) & m
        x ^= x >> np.uint64(16)
        return x

    from numba import types as _types
    from numba.extending import intrinsic as _intrinsic

    @_intrinsic
    def _popcount(typingctx, x):
        """Set bits of a ``uint64`` (LLVM's ``ctpop``: one instruction where the CPU has it)."""
        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return _types.uint64(_types.uint64), codegen

    @_jit
    def _select_bit(m, k):
        """Index of the ``k``-th (from 0) set bit of ``m``: a branch-free binary search on
        the bit counts of halves (tied next hops are unpredictable; branches on them cost
        more than these few instructions)."""
        pos = np.uint64(0)
        for w in (np.uint64(32), np.uint64(16), np.uint64(8), np.uint64(4), np.uint64(2),
                  np.uint64(1)):
            c = _popcount(m & ((np.uint64(1) << w) - np.uint64(1)))
            go = np.uint64(k >= c)
            k -= c * go
            sh = w * go
            m >>= sh
            pos += sh
        return pos

    @_jit
    def _masks(indptr, adj, vbits, one, s, dist, stamp, tag, head, pool_node, pool_next,
               mask, seed_bit):
        """Dial's algorithm from ``s`` (as :func:`topogen._sssp._dial`, plain weights)
        that also sets ``mask[x]``, the links of ``s`` starting a shortest path to ``x``,
        when ``x`` settles: its tied predecessors are settled by then, so one pass over
        its links both reads their masks and relaxes the others."""
        n = indptr.shape[0] - 1
        vmask = (one << vbits) - one
        cmask = head.shape[0] - 1
        top, pending, b = _sssp.dial_reset(dist, head, pool_node, pool_next, s)
        mask[s] = 0
        settled = 0
        j0 = indptr[s]
        for j in range(j0, indptr[s + np.uint32(1)]):
            seed_bit[np.uint32(adj[j] & vmask)] = np.uint64(1) << np.uint64(j - j0)
        while settled < n and pending > 0:
            e, nxt, b = _sssp.dial_take(head, pool_next, b, cmask)
            if e < 0:
                continue
            pending -= 1
            u = pool_node[e]
            if stamp[u] == tag:
                continue
            if nxt >= 0:
                _sssp.prefetch(adj, indptr[pool_node[nxt]])
            stamp[u] = tag
            settled += 1
            du = dist[u]
            m = np.uint64(0)
            for j in range(indptr[u], indptr[u + np.uint32(1)]):
                a = adj[j]
                y = np.uint32(a & vmask)
                inc = a >> vbits
                dy = dist[y]
                nd = du + inc
                # a tied predecessor (settled: dist below du), or'd in without a branch
                tied = np.uint64(0) - np.uint64(dy + inc == du)
                m |= (seed_bit[u] if y == s else mask[y]) & tied
                if nd < dy:
                    dist[y] = nd
                    top = _sssp.dial_push(head, pool_node, pool_next, top,
                                          np.int64(nd) & cmask, y)
                    pending += 1
            mask[u] = m
        return settled

    @_jit
    def _bfs_masks(indptr, adj, vbits, one, s, dist, queue, mask):
        """:func:`_masks` for unit weights (NR): a breadth-first search with a plain queue,
        branch-free on the outcome of each link (discovered, tied predecessor or neither,
        which the CPU cannot predict).  Returns the switches reached."""
        vmask = (one << vbits) - one
        dist[:] = -1
        dist[s] = 0
        mask[s] = 0
        tail = 0
        j0 = indptr[s]
        for j in range(j0, indptr[s + np.uint32(1)]):
            y = np.int64(adj[j] & vmask)
            if dist[y] < 0:
                dist[y] = 1
                queue[tail] = y
                tail += 1
            mask[y] = np.uint64(1) << np.uint64(j - j0)  # the source's links seed the masks
        h = 0
        while h < tail:
            u = queue[h]
            h += 1
            du = dist[u]
            if du == 1:
                for j in range(indptr[u], indptr[u + np.uint32(1)]):
                    y = np.int64(adj[j] & vmask)
                    new = dist[y] < 0
                    queue[tail] = y
                    tail += new
                    dist[y] = 2 if new else dist[y]
                continue
            m = np.uint64(0)
            for j in range(indptr[u], indptr[u + np.uint32(1)]):
                y = np.int64(adj[j] & vmask)
                dy = dist[y]
                new = dy < 0
                queue[tail] = y
                tail += new
                dist[y] = du + 1 if new else dy
                m |= mask[y] & (np.uint64(0) - np.uint64(dy == du - 1))
            mask[u] = m
        return tail + 1

    @_jit
    def _rows_block(indptr, adj, vbits, one, buckets, sources, spread, sd, hd, out, sentinel,
                    unit, seltab, small):
        """Rows of ``sources`` into ``out`` (uint8, ``len(sources) x N``); returns -1, or
        the index of a source from which a switch is unreachable or has no next hop
        (internal error).  ``unit``: all weights are 1 (:func:`_bfs_masks`).  ``small``:
        every degree is at most 8, so the spread rule's select is a look-up in
        ``seltab`` (:data:`SELECT8`) instead of :func:`_select_bit`."""
        n = indptr.shape[0] - 1
        dist = np.empty(n, adj.dtype)
        idist = np.empty(n, np.int32)
        queue = np.empty(n + 1, np.int64)
        stamp = np.full(n, np.uint32(0xFFFFFFFF), np.uint32)
        head = np.empty(buckets, np.int32)
        cap = adj.shape[0] + 1
        pool_node = np.empty(cap, np.uint32)
        pool_next = np.empty(cap, np.int32)
        mask = np.empty(n, np.uint64)
        seed_bit = np.zeros(n, np.uint64)
        for i in range(sources.shape[0]):
            v = sources[i]
            if unit:
                reached = _bfs_masks(indptr, adj, vbits, one, v, idist, queue, mask)
            else:
                reached = _masks(indptr, adj, vbits, one, v, dist, stamp, np.uint32(i), head,
                                 pool_node, pool_next, mask, seed_bit)
            if reached < n:
                return i
            hv = _splitmix(np.uint64(v) ^ sd) & _M32
            row = out[i]
            zeros = 0  # the source's own mask is 0
            for x in range(n):
                m = mask[x]
                zeros += m == 0
                if spread:  # the tied link of index (hash * k) >> 32 among the k set bits
                    k = (_mix32(hv, hd[x]) * _popcount(m)) >> np.uint64(32)
                    row[x] = seltab[m, k] if small else _select_bit(m, k)
                else:
                    row[x] = trailing_zeros(m)
            row[v] = sentinel
            if zeros > 1:
                return i
        return -1


    @_jit
    def _pick(m, spread, hx, hdd, seltab, small):
        """The tie rule's link rank among the set bits of ``m``: the set bit of index
        ``(hash * k) >> 32`` among the ``k`` set bits (``"spread"``; a look-up in
        ``seltab`` when ``small``, every degree at most 8), or the lowest."""
        if spread:
            k = (_mix32(hx, hdd) * _popcount(m)) >> np.uint64(32)
            return np.uint64(seltab[m, k]) if small else _select_bit(m, k)
        return trailing_zeros(m)

    @_jit
    def _bfs_column(indptr, adj, vbits, one, d, dist, queue, col, spread, hv, hdd, seltab,
                    small):
        """Column ``d`` of an NR table (every switch's link rank toward ``d``) from one
        breadth-first search *from* ``d``: links are symmetric, so the links of ``x`` that
        start a shortest path to ``d`` are those to the neighbours one level nearer ``d``,
        known when ``x`` is taken from the queue.  Returns ``(reached, longest)`` (the
        longest route is the eccentricity of ``d``), or ``reached = -1`` when a switch has
        no next hop (internal error)."""
        vmask = (one << vbits) - one
        dist[:] = -1
        dist[d] = 0
        queue[0] = d
        tail = 1
        h = 0
        while h < tail:
            x = queue[h]
            h += 1
            dx = dist[x]
            lo = indptr[x]
            m = np.uint64(0)
            for j in range(lo, indptr[x + np.uint32(1)]):
                y = np.int64(adj[j] & vmask)
                dy = dist[y]
                new = dy < 0
                queue[tail] = y
                tail += new
                dist[y] = dx + 1 if new else dy
                m |= np.uint64(dy == dx - 1) << np.uint64(j - lo)
            if h > 1:  # not d itself (whose "m" holds the undiscovered neighbours)
                if m == 0:
                    return -1, 0
                col[x] = _pick(m, spread, hv[x], hdd, seltab, small)
        return tail, dist[queue[tail - 1]]

    @_jit
    def _dial_column(indptr, adj, vbits, one, d, dist, depth, stamp, tag, head, pool_node,
                     pool_next, col, spread, sd, hdd, seltab, small):
        """Column ``d`` of a weighted (FR) table from one Dial search *from* ``d``: when
        ``x`` settles, its neighbours ``y`` with ``dist(y) + w(x, y) == dist(x)`` (settled
        before it) are the starts of its shortest paths to ``d``; the tie rule picks one,
        and the depth of ``x`` in ``d``'s in-tree is its pick's plus one.  Returns
        ``(settled, longest route in hops)``, or ``settled = -1`` when a switch has no next
        hop (internal error)."""
        n = indptr.shape[0] - 1
        vmask = (one << vbits) - one
        cmask = head.shape[0] - 1
        top, pending, b = _sssp.dial_reset(dist, head, pool_node, pool_next, d)
        depth[d] = 0
        settled = 0
        longest = 0
        while settled < n and pending > 0:
            e, nxt, b = _sssp.dial_take(head, pool_next, b, cmask)
            if e < 0:
                continue
            pending -= 1
            u = pool_node[e]
            if stamp[u] == tag:
                continue
            if nxt >= 0:
                _sssp.prefetch(adj, indptr[pool_node[nxt]])
            stamp[u] = tag
            settled += 1
            du = dist[u]
            lo = indptr[u]
            m = np.uint64(0)
            for j in range(lo, indptr[u + np.uint32(1)]):
                a = adj[j]
                y = np.uint32(a & vmask)
                inc = a >> vbits
                dy = dist[y]
                # a settled neighbour on a shortest path (an unreached one holds the
                # maximum, which must not wrap around onto du)
                m |= np.uint64((dy < du) & (dy + inc == du)) << np.uint64(j - lo)
                nd = du + inc
                if nd < dy:
                    dist[y] = nd
                    top = _sssp.dial_push(head, pool_node, pool_next, top,
                                          np.int64(nd) & cmask, y)
                    pending += 1
            if settled > 1:
                if m == 0:
                    return -1, 0
                r = _pick(m, spread, _splitmix(np.uint64(u) ^ sd) & _M32, hdd, seltab, small)
                col[u] = r
                h = depth[np.uint32(adj[lo + r] & vmask)] + 1
                depth[u] = h
                longest = max(longest, h)
        return settled, longest

    @_jit
    def _transpose8(a0, a1, a2, a3, a4, a5, a6, a7):
        """The 8 x 8 bytes of eight words (byte ``c`` of word ``r``) transposed (byte ``r``
        of word ``c``): three rounds swapping 1-, 2- and 4-byte blocks between word pairs."""
        m1 = np.uint64(0x00FF00FF00FF00FF)
        m2 = np.uint64(0x0000FFFF0000FFFF)
        m4 = np.uint64(0x00000000FFFFFFFF)
        s1 = np.uint64(8)
        s2 = np.uint64(16)
        s4 = np.uint64(32)
        t = ((a0 >> s1) ^ a1) & m1; a1 ^= t; a0 ^= t << s1  # noqa: E702
        t = ((a2 >> s1) ^ a3) & m1; a3 ^= t; a2 ^= t << s1  # noqa: E702
        t = ((a4 >> s1) ^ a5) & m1; a5 ^= t; a4 ^= t << s1  # noqa: E702
        t = ((a6 >> s1) ^ a7) & m1; a7 ^= t; a6 ^= t << s1  # noqa: E702
        t = ((a0 >> s2) ^ a2) & m2; a2 ^= t; a0 ^= t << s2  # noqa: E702
        t = ((a1 >> s2) ^ a3) & m2; a3 ^= t; a1 ^= t << s2  # noqa: E702
        t = ((a4 >> s2) ^ a6) & m2; a6 ^= t; a4 ^= t << s2  # noqa: E702
        t = ((a5 >> s2) ^ a7) & m2; a7 ^= t; a5 ^= t << s2  # noqa: E702
        t = ((a0 >> s4) ^ a4) & m4; a4 ^= t; a0 ^= t << s4  # noqa: E702
        t = ((a1 >> s4) ^ a5) & m4; a5 ^= t; a1 ^= t << s4  # noqa: E702
        t = ((a2 >> s4) ^ a6) & m4; a6 ^= t; a2 ^= t << s4  # noqa: E702
        t = ((a3 >> s4) ^ a7) & m4; a7 ^= t; a3 ^= t << s4  # noqa: E702
        return a0, a1, a2, a3, a4, a5, a6, a7

    @_jit
    def _write_tiles(buf, ranks2d, d0):
        """Columns ``d0 ..`` of ``ranks2d`` from the rows of ``buf`` (one per column).
        Where ``buf``'s shape and ``d0`` are multiples of 8 (every block of a table of a
        multiple of 8 switches), by 8 x 8 blocks of bytes transposed in eight 64-bit
        words (:func:`_transpose8`): each switch's row takes whole words, and the 64
        columns of a block fill one 64-byte line of it at a time (a fifth of the time of
        the byte-wise tiles).  Otherwise through a 64 x 64 tile transposed byte by byte
        in the first cache level."""
        b, n = buf.shape
        if ((b | n | d0) & 7) == 0 and ranks2d.shape[1] % 8 == 0:
            src = buf.view(np.uint64)
            dst = ranks2d.view(np.uint64)
            c0 = d0 >> 3
            for xw in range(n >> 3):
                x0 = xw << 3
                for iw in range(b >> 3):
                    i0 = iw << 3
                    a0, a1, a2, a3, a4, a5, a6, a7 = _transpose8(
                        src[i0, xw], src[i0 + 1, xw], src[i0 + 2, xw], src[i0 + 3, xw],
                        src[i0 + 4, xw], src[i0 + 5, xw], src[i0 + 6, xw], src[i0 + 7, xw])
                    c = c0 + iw
                    dst[x0, c] = a0
                    dst[x0 + 1, c] = a1
                    dst[x0 + 2, c] = a2
                    dst[x0 + 3, c] = a3
                    dst[x0 + 4, c] = a4
                    dst[x0 + 5, c] = a5
                    dst[x0 + 6, c] = a6
                    dst[x0 + 7, c] = a7
            return
        tile = np.empty((64, 64), np.uint8)
        for x0 in range(0, n, 64):
            x1 = min(n, x0 + 64)
            for i0 in range(0, b, 64):
                i1 = min(b, i0 + 64)
                for i in range(i0, i1):
                    for x in range(x0, x1):
                        tile[x - x0, i - i0] = buf[i, x]
                for x in range(x0, x1):
                    row = ranks2d[x]
                    for i in range(i0, i1):
                        row[d0 + i] = tile[x - x0, i - i0]

    @_jit
    def _cols_block(indptr, adj, vbits, one, buckets, d0, d1, spread, sd, hv, hd, ranks2d,
                    sentinel, unit, seltab, small):
        """Columns ``d0 .. d1-1`` of the table into ``ranks2d`` (``N x N`` uint8), one
        search from each destination (:func:`_bfs_column`, :func:`_dial_column`) into a
        ``(d1 - d0) x N`` buffer, then written in tiles of 64 switches.  Returns
        ``(bad, longest)``: ``bad`` is -1, or the destination some switch does not reach
        or has no next hop toward (internal error)."""
        n = indptr.shape[0] - 1
        b = d1 - d0
        buf = np.empty((b, n), np.uint8)
        dist = np.empty(n, adj.dtype)
        idist = np.empty(n, np.int32)
        depth = np.empty(n, np.int32)
        queue = np.empty(n + 1, np.int64)
        stamp = np.full(n, np.uint32(0xFFFFFFFF), np.uint32)
        head = np.empty(buckets, np.int32)
        cap = adj.shape[0] + 1
        pool_node = np.empty(cap, np.uint32)
        pool_next = np.empty(cap, np.int32)
        longest = 0
        for i in range(b):
            d = d0 + i
            col = buf[i]
            if unit:
                reached, lg = _bfs_column(indptr, adj, vbits, one, d, idist, queue, col,
                                          spread, hv, hd[d], seltab, small)
            else:
                reached, lg = _dial_column(indptr, adj, vbits, one, d, dist, depth, stamp,
                                           np.uint32(i), head, pool_node, pool_next, col,
                                           spread, sd, hd[d], seltab, small)
            if reached < n:
                return d, 0
            col[d] = sentinel
            longest = max(longest, lg)
        _write_tiles(buf, ranks2d, d0)
        return -1, longest


    @_jit
    def _wide_column(info, adj, vbits, one, wsh, d, dist, depth, store, cnt, col, spread,
                     hdd, seltab, small):
        """:func:`_dial_column` with buckets ``2**wsh`` distance units wide, no wider than
        the lightest link, each an array (``store[slot, :cnt[slot]]``, a circular window of
        ``store.shape[0]`` buckets).  A link from a switch of the current bucket lands in a
        later one, so when a bucket is reached its switches' distances are final: it is
        read through in order, as a breadth-first search reads its queue (no search for
        the next switch, whose links can then be loaded ahead).  A switch is queued when
        a relaxation moves it to another bucket (at most once per bucket: distances only
        fall), so a bucket holds at most ``N`` switches and an entry is stale when the
        switch's distance lies in another bucket.  Tied neighbours are at least one
        lightest link nearer ``d``, in earlier buckets, so the column and depths are
        those of :func:`_dial_column`.  ``info[x]`` (``N + 1`` entries): the CSR row
        start of ``x`` in the low 32 bits, its tie hash (``hv``) above them, one load for
        both.  Returns ``(settled, longest route in hops)``, or ``settled = -1`` when a
        switch has no next hop (internal error)."""
        n = info.shape[0] - 1
        vmask = (one << vbits) - one
        cmask = store.shape[0] - 1
        m32 = np.uint64(0xFFFFFFFF)
        # distances are compared in 64 bits, where "unreached" plus a link cannot wrap
        # around (the plan keeps distances far below 2**62)
        inf = min(np.uint64(np.iinfo(dist.dtype).max), np.uint64(1) << np.uint64(62))
        dist[:] = inf
        cnt[:] = 0
        dist[d] = 0
        depth[d] = 0
        store[0, 0] = d
        cnt[0] = 1
        pending = 1
        settled = 0
        longest = 0
        b = np.uint64(0)
        one64 = np.uint64(1)
        while settled < n and pending > 0:
            sl = np.int64(b) & cmask
            row = store[sl]
            k = cnt[sl]
            cnt[sl] = 0
            pending -= k
            for i in range(k):
                u = row[i]
                du = np.uint64(dist[u])
                if (du >> wsh) != b:
                    continue  # moved to an earlier bucket and settled there
                if i + 1 < k:
                    _sssp.prefetch(adj, info[row[i + 1]] & m32)
                settled += 1
                iu = info[u]
                lo = iu & m32
                m = np.uint64(0)
                bit = one64  # the bit of link j - lo, shifted along (no shift by a count)
                for j in range(lo, info[u + np.uint32(1)] & m32):
                    a = adj[j]
                    y = np.uint32(a & vmask)
                    inc = np.uint64(a >> vbits)
                    dy = np.uint64(dist[y])
                    # a settled neighbour on a shortest path: one compare in 64 bits (an
                    # unreached one holds inf, whose sum with a link stays above du)
                    m |= bit & (np.uint64(0) - np.uint64(dy + inc == du))
                    bit <<= one64
                    nd = du + inc
                    if nd < dy:
                        dist[y] = nd
                        t = nd >> wsh
                        if (dy == inf) or (t != (dy >> wsh)):
                            ts = np.int64(t) & cmask
                            store[ts, cnt[ts]] = y
                            cnt[ts] += 1
                            pending += 1
                if settled > 1:
                    if m == 0:
                        return -1, 0
                    r = _pick(m, spread, iu >> np.uint64(32), hdd, seltab, small)
                    col[u] = r
                    h = depth[np.uint32(adj[lo + r] & vmask)] + 1
                    depth[u] = h
                    longest = max(longest, h)
            b += np.uint64(1)
        return settled, longest

    @_jit
    def _wide_cols_block(info, adj, vbits, one, wsh, nbuckets, d0, d1, spread, hd,
                         ranks2d, sentinel, seltab, small, dist, depth):
        """:func:`_cols_block` by :func:`_wide_column` (``nbuckets`` buckets of
        ``2**wsh`` units); ``info``: each switch's CSR row start and tie hash
        (:func:`_wide_column`); ``dist``: the distances' array (``N``), of a type that holds
        every distance plus a link below its maximum (:func:`wide_dist_dtype`);
        ``depth``: the depths' array (``N``, ``uint16`` up to 65,536 switches)."""
        n = info.shape[0] - 1
        b = d1 - d0
        buf = np.empty((b, n), np.uint8)
        store = np.empty((nbuckets, n), np.uint32)
        cnt = np.zeros(nbuckets, np.int64)
        longest = 0
        for i in range(b):
            d = d0 + i
            col = buf[i]
            reached, lg = _wide_column(info, adj, vbits, one, wsh, d, dist, depth, store,
                                       cnt, col, spread, hd[d], seltab, small)
            if reached < n:
                return d, 0
            col[d] = sentinel
            longest = max(longest, lg)
        _write_tiles(buf, ranks2d, d0)
        return -1, longest


def _select8() -> np.ndarray:
    """``SELECT8[m, k]``: the index of the ``k``-th (from 0) set bit of the byte ``m``
    (0 where ``m`` has at most ``k`` set bits)."""
    out = np.zeros((256, 8), dtype=np.uint8)
    for m in range(256):
        ones = [b for b in range(8) if m >> b & 1]
        out[m, :len(ones)] = ones
    return out


#: The spread rule's select for degrees up to 8 (:func:`_rows_block`): one look-up.
SELECT8 = _select8()


def usable(view) -> bool:
    """True when :func:`compute` can build this topology's tables (numba, degree <= 64)."""
    return _sssp.AVAILABLE and 0 < view.max_degree <= 64 and view.n < (1 << 31)


def _hop_bound(topology) -> int:
    """Twice the hop eccentricity of switch 0 plus one: bounds the hop diameter."""
    from scipy.sparse.csgraph import breadth_first_order

    n = topology.num_switches
    order, pred = breadth_first_order(topology.csr(), 0, directed=False,
                                      return_predecessors=True)
    level = np.zeros(n, dtype=np.int64)
    for v in order[1:]:
        level[v] = level[pred[v]] + 1
    return min(n - 1, 2 * int(level.max()) + 1)


def plan(topology, view, weights):
    """The :class:`topogen._sssp.BucketPlan` of positive integer ``weights`` per CSR entry,
    or None when their range is too wide for buckets (the caller then uses
    :mod:`.paths`' own algorithms)."""
    w = np.asarray(weights, dtype=np.int64)
    if not usable(view) or w.size == 0 or w.min() < 1:
        return None
    g = int(np.gcd.reduce(w))
    inc = w // g
    top = int(inc.max())
    span = _hop_bound(topology) * top
    limit = _sssp._BUCKET_SPAN_PER_ELEMENT * (view.n + w.size) + _sssp._MAX_BUCKETS
    if top >= _sssp._MAX_BUCKETS or span > limit:
        return None
    return _sssp.make_plan(view.indptr, view.indices, inc, g, 1 << top.bit_length(), 0,
                           span + top + 2)


def _workers(workers) -> int:
    if workers is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - non-Linux
            return os.cpu_count() or 1
    return max(1, int(workers))


def compute(bplan, n: int, tseed: int | None, *, workers=None, path=None, block: int = BLOCK,
            progress=None):
    """The ``(1, N, N)`` uint8 rank table of ``bplan``'s graph.

    Parameters
    ----------
    bplan : BucketPlan
        From :func:`plan`.
    n : int
        Switches.
    tseed : int or None
        Seed of the ``"spread"`` tie rule; None = lowest next-hop id.
    workers : int, optional
        Threads (default: the CPUs this process may use).
    path : path-like, optional
        Stream the table into this ``.npy`` file (written under a temporary name and
        renamed when complete) and return it memory-mapped read-only; memory then stays
        ``O(N + E)`` per thread plus a few blocks of rows.  Otherwise an array is returned.
    block : int
        Sources per task.
    progress : callable, optional
        ``progress(rows_done, N)`` after each block.
    """
    from .ties import tie_halves

    spread = tseed is not None
    sd, _, hd = tie_halves(0 if tseed is None else tseed, n)
    t = bplan.dtype.type
    unit = bool(np.all((bplan.adj >> bplan.dtype.type(bplan.vbits)) == 1))
    small = int(np.diff(bplan.indptr.astype(np.int64)).max(initial=0)) <= 8
    starts = list(range(0, n, block))

    def job(d0):
        src = np.arange(d0, min(n, d0 + block), dtype=np.uint32)
        out = np.empty((len(src), n), dtype=np.uint8)
        bad = _rows_block(bplan.indptr, bplan.adj, t(bplan.vbits), t(1), np.int64(bplan.buckets),
                          src, spread, np.uint64(sd), hd, out, np.uint8(255), unit, SELECT8,
                          small)
        if bad >= 0:
            raise RoutingError(f"switch {int(src[bad])}: a switch has no next hop on a shortest "
                               "path (internal error)")
        return d0, out

    nw = min(_workers(workers), len(starts))
    ranks = None if path is not None else np.empty((1, n, n), dtype=np.uint8)

    def run(sink):
        if nw == 1:
            for d0 in starts:
                sink(*job(d0))
            return
        with ThreadPoolExecutor(nw) as ex:
            window = []
            it = iter(starts)
            for d0 in it:
                window.append(ex.submit(job, d0))
                if len(window) >= 2 * nw:
                    break
            while window:
                sink(*window.pop(0).result())
                nxt = next(it, None)
                if nxt is not None:
                    window.append(ex.submit(job, nxt))

    done = [0]

    def tick(rows):
        done[0] += rows
        if progress is not None:
            progress(done[0], n)

    if path is None:
        def into_array(d0, out):
            ranks[0, d0:d0 + len(out)] = out
            tick(len(out))

        run(into_array)
        return ranks
    from ..output import atomic_open

    path = Path(path)
    with atomic_open(path, "wb", encoding=None) as f:
        f.write(_npy_header((1, n, n), np.uint8))

        def into_file(d0, out):
            f.write(out.tobytes())
            tick(len(out))

        run(into_file)
    return np.load(path, mmap_mode="r")


#: Destinations per task of :func:`compute_columns` (one 64-byte line of each switch's row).
COLUMN_BLOCK = 64


#: Entries (4 bytes each, per thread) the wide buckets of :func:`_wide_column` and
#: :func:`._booksim_rows._wide_rows` may take: ``buckets x N``; above it the columns or rows
#: come from Dial's search (:func:`_dial_column`, :func:`._booksim_rows._tree_rows`).
WIDE_MAX_ENTRIES = 1 << 22

#: The searches of :func:`compute_columns` (``"auto"``: ``"wide"`` where it applies, else
#: ``"dial"``).
COLUMN_SEARCHES = ("auto", "dial", "wide")


def wide_buckets(bplan, n: int):
    """:func:`wide_window` of ``bplan``'s weights (:func:`_wide_column`)."""
    if bplan.adj.size == 0:
        return None
    inc = bplan.adj >> bplan.dtype.type(bplan.vbits)
    return wide_window(int(inc.min()), int(inc.max()), n)


def wide_window(lightest: int, heaviest: int, n: int):
    """``(wsh, buckets)`` of a wide-bucket search (:func:`_wide_column`,
    :func:`._booksim_rows._wide_rows`) over ``n`` switches whose link weights lie in
    ``lightest .. heaviest``: buckets of ``2**wsh`` units, the largest power of two no
    heavier than the lightest link, in a power-of-two window wide enough for the heaviest
    (a relaxation goes at most ``(heaviest >> wsh) + 1`` buckets ahead); None for a weight
    below 1 or when the window would take more than :data:`WIDE_MAX_ENTRIES` entries."""
    if lightest < 1:
        return None
    wsh = lightest.bit_length() - 1
    buckets = 1 << ((heaviest >> wsh) + 1).bit_length()
    return (wsh, buckets) if buckets * n <= WIDE_MAX_ENTRIES else None


def wide_dist_dtype(bplan, n: int):
    """``uint16`` when every distance of ``bplan``'s graph plus its heaviest link stays
    below ``2**16 - 1`` (the wide search's "unreached"), else the plan's type: half the
    bytes of the array every link reads, which then mostly stays in the first cache
    level (16,384 switches: 32 kB).  The bound is twice the weighted eccentricity of
    switch 0 (one Dijkstra search by SciPy): ``dist(x, y) <= dist(x, 0) + dist(0, y)``."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    t = bplan.dtype.type
    inc = (bplan.adj >> t(bplan.vbits)).astype(np.int64)
    top = int(inc.max(initial=0))
    if n < 2 or 2 * top * (n - 1) + top < (1 << 16) - 1:
        return np.dtype(np.uint16)
    heads = (bplan.adj & t((1 << bplan.vbits) - 1)).astype(np.int64)
    g = csr_matrix((inc.astype(np.float64), heads, bplan.indptr.astype(np.int64)), shape=(n, n))
    ecc = dijkstra(g, indices=0).max()
    if np.isfinite(ecc) and 2 * int(ecc) + top < (1 << 16) - 1:
        return np.dtype(np.uint16)
    return bplan.dtype


def compute_columns(bplan, n: int, tseed: int | None, *, workers=None,
                    block: int = COLUMN_BLOCK, search: str = "auto"):
    """The ``(1, N, N)`` uint8 rank table of ``bplan``'s graph (symmetric weights), one
    search from each *destination* (:func:`_cols_block`), and the longest route of the
    table in hops: the same table as :func:`compute`, whose searches from each source
    must also carry every switch's set of tied first links; here each switch's tied
    links are read off its own neighbours' distances, and the depth of each
    destination's in-tree comes along.  ``search`` (:data:`COLUMN_SEARCHES`): the
    weighted search, :func:`_wide_column` (``"auto"`` where its buckets fit),
    or :func:`_dial_column`; both give the same table.

    Returns
    -------
    (ranks, longest)
    """
    from .ties import tie_halves

    spread = tseed is not None
    sd, hv, hd = tie_halves(0 if tseed is None else tseed, n)
    t = bplan.dtype.type
    unit = bool(np.all((bplan.adj >> bplan.dtype.type(bplan.vbits)) == 1))
    small = int(np.diff(bplan.indptr.astype(np.int64)).max(initial=0)) <= 8
    if search not in COLUMN_SEARCHES:
        raise ParameterError(f"search must be one of {', '.join(COLUMN_SEARCHES)}, got {search!r}")
    wide = wide_buckets(bplan, n) if search in ("auto", "wide") and not unit else None
    if search == "wide" and wide is None:
        raise ParameterError("search='wide' needs non-unit weights whose wide buckets fit "
                             f"{WIDE_MAX_ENTRIES} entries; use search='auto'")
    dist_t = wide_dist_dtype(bplan, n) if wide is not None else None
    if wide is not None:  # row starts (below 2**32: the wide buckets fit) and tie hashes
        info = (bplan.indptr.astype(np.uint64)
                | (np.append(hv, np.uint64(0)) << np.uint64(32)))
    ranks = np.empty((1, n, n), dtype=np.uint8)
    r2 = ranks[0]
    starts = list(range(0, n, block))

    def job(d0):
        d1 = np.int64(min(n, d0 + block))
        if wide is not None:
            bad, longest = _wide_cols_block(
                info, bplan.adj, t(bplan.vbits), t(1), np.uint64(wide[0]),
                np.int64(wide[1]), np.int64(d0), d1, spread, hd, r2,
                np.uint8(255), SELECT8, small, np.empty(n, dist_t),
                np.empty(n, np.uint16 if n <= 1 << 16 else np.int32))
        else:
            bad, longest = _cols_block(bplan.indptr, bplan.adj, t(bplan.vbits), t(1),
                                       np.int64(bplan.buckets), np.int64(d0), d1, spread,
                                       np.uint64(sd), hv, hd, r2, np.uint8(255), unit,
                                       SELECT8, small)
        if bad >= 0:
            raise RoutingError(f"switch {int(bad)}: a switch has no next hop on a shortest "
                               "path toward it (internal error)")
        return int(longest)

    nw = min(_workers(workers), len(starts))
    if nw == 1:
        longest = max(job(d0) for d0 in starts)
    else:
        with ThreadPoolExecutor(nw) as ex:
            longest = max(ex.map(job, starts))
    return ranks, (longest if n > 1 else 0)


def per_source(topology, view, weights, ties, tseed, method, all_next_hops, workers,
               ranks_file, columns=False, table=None):
    """``(ranks, longest)``: the rank table by :func:`compute` (in memory or streamed to
    ``ranks_file``) for :func:`.paths.nearest` and :func:`.paths.fastest`, or None when
    their block algorithms must run instead.  With ``columns`` (and no ``ranks_file``) the
    table comes from :func:`compute_columns` and ``longest`` is its longest route in hops,
    else None.  ``table``: a function called as :func:`compute` is, in its place (such as
    :func:`._bitrows.from_plan`)."""
    if method not in ("auto", "per-source"):
        return None
    if all_next_hops:
        if method == "per-source":
            raise ParameterError("method='per-source' keeps no distance table: drop "
                                 "all_next_hops (or ties='random'), or use method='auto'")
        return None
    bplan = plan(topology, view, weights)
    if bplan is None:
        if method == "per-source":
            raise ParameterError("method='per-source' needs numba, a degree of at most 64 and "
                                 "link weights in a modest range; use method='auto'")
        return None
    tseed = tseed if ties == "spread" else None
    if columns and ranks_file is None:
        return compute_columns(bplan, view.n, tseed, workers=workers)
    return (table or compute)(bplan, view.n, tseed, workers=workers, path=ranks_file), None
