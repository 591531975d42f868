"""NR next-hop tables by level-synchronous bit-parallel propagation: 64 destinations per
machine word, every switch at once, one hop per pass.

For unit link weights let ``R_k[s]`` be the set of destinations within ``k`` hops of ``s``
and ``F_k[s] = R_k[s] - R_{k-1}[s]`` those exactly ``k`` hops away (``F_0[s] = {s}``).  Then

    F_{k+1}[s] = (OR of F_k[y] over the neighbours y of s) - R_k[s]

and, links being symmetric, a link ``s -> y`` starts a shortest path to a destination
``d`` of ``F_{k+1}[s]`` exactly when ``d`` is in ``F_k[y]`` (it is not in ``R_{k-1}[y]``,
or it would be within ``k`` hops of ``s``).  So the pass that finds the new destinations
of each switch also has, in its neighbours' frontier words, the set of tied first links
of each: bit ``i`` of the mask is bit ``d`` of ``F_k[i-th neighbour]``, link ranks in CSR
order as in :mod:`._rows`.  The tie rules pick from it exactly as there (the same hash,
:data:`._rows.SELECT8` / :func:`._rows._select_bit`, lowest set bit), so the tables are
byte-identical to :func:`._rows.compute`'s.

Destinations are taken :data:`WORDS` words (``64 * WORDS`` columns) at a time: the three
``N x WORDS`` bit arrays (reached, frontier, next frontier) stay near the core while
every level sweeps all switches; the sweep skips switches that have reached the whole
block (their stale frontier words hold destinations their neighbours have reached, so
they need no clearing).  Picking per destination as it is found costs a branch the CPU
cannot predict; so for degrees up to 8 (:func:`_block8`) the levels only OR each
neighbour's frontier word, restricted to the new destinations, into ``N x 8 x WORDS``
lane words, and one pass per block transposes them into a mask byte per destination
and applies the tie rule row by row; larger degrees (:func:`_block`) buffer the masks and
pick them in a tight loop (:func:`_flush`).  Blocks are independent, so threads take
blocks (the kernels release the GIL) and write their columns of the table, in memory or
in tiles streamed to a ``.npy`` file.  Work memory: about 700 bytes per switch per
thread (plus the streamed tile).  Usable for unit weights, degrees up to 64, with numba
(:func:`._rows.usable`).

32x32x16 torus (16,384 switches), spread rule, CPU: about 2.4-2.9 s against 5.1-5.7 s
for one search per source; the lowest rule about 1.8 s.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import _sssp
from ..errors import RoutingError
from . import _rows
from ._npyfile import STREAM_COLUMNS, column_writer
from .ties import tie_halves

#: The kernels below inline the tie-rule helpers of ``topogen/routing/_rows.py`` (numba
#: keys a cached kernel by its own file alone): that file's SHA-256 (first 16 hex digits).
#: A test fails until it is updated after editing ``_rows.py``, and the update changes
#: this file, so no cached kernel outlives its helpers.
INLINED_ROWS_SHA256 = "ab55031d564e0d20"

#: Words of 64 destinations per block (a task of one thread).
WORDS = 8

#: Entries of the spread rule buffered before they are picked (:func:`_flush`).
BUFFER = 4096

__all__ = ["compute", "from_plan", "WORDS"]

if _sssp.AVAILABLE:
    from numba.cpython.unsafe.numbers import trailing_zeros

    from ._rows import _mix32, _popcount, _select_bit

    _jit = _sssp._jit

    @_jit
    def _flush(cnt, bm, bx, bp, tile, seltab, small):
        """The spread rule on the ``cnt`` buffered entries: mask ``bm``, hash input ``bx``
        (source hash xor destination hash), tile offset ``bp`` (one tight loop of
        independent entries: no branch on the data)."""
        for e in range(cnt):
            m = bm[e]
            k = (_mix32(bx[e], np.uint64(0)) * _popcount(m)) >> np.uint64(32)
            tile[bp[e]] = seltab[m, k] if small else _select_bit(m, k)

    @_jit
    def _start(reach, front, done, full, n, d0, d1):
        """Level 0 of the block of destinations ``d0 .. d1 - 1`` in ``W = len(full)``
        words per switch: every switch's reach and frontier words cleared, no switch done,
        each destination of the block in its own reach and frontier, and ``full[w]`` the
        bits of word ``w`` that hold a destination of the block."""
        one = np.uint64(1)
        zero = np.uint64(0)
        nw = full.shape[0]
        cols = d1 - d0
        for w in range(nw):
            left = cols - 64 * w
            full[w] = ~zero if left >= 64 else zero if left <= 0 else (
                (one << np.uint64(left)) - one)
        for s in range(n):
            done[s] = 0
            for w in range(nw):
                reach[s, w] = 0
                front[s, w] = 0
        for d in range(d0, d1):
            i = d - d0
            bit = one << np.uint64(i & 63)
            reach[d, i >> 6] = bit
            front[d, i >> 6] = bit

    @_jit
    def _block(indptr, nbr, d0, d1, spread, hv, hd, seltab, spread8, small, out, oc, reach,
               front, nxt, acc, cbuf, done, tile, bm, bx, bp):
        """Columns ``d0 .. d1-1`` of the table into ``out[:, oc + (d - d0)]``.

        ``reach``, ``front``, ``nxt``: ``N x W`` uint64 work arrays (``W >= (d1 - d0) / 64``),
        ``acc``: ``W`` words, ``cbuf``: the largest degree, ``done``: ``N`` bytes; ``tile``:
        ``N * C`` bytes, ``C > d1 - d0`` not a large power of two (rows of the table, ``N``
        bytes apart, would share few cache sets), where the levels write, copied to
        ``out`` at the end; ``bm``, ``bx``, ``bp``: a buffer of at least 64 entries of the
        spread rule (:func:`_flush`).  Returns ``(bad, longest)``: ``bad`` is -1, or the
        lowest switch that does not reach some destination of the block; ``longest`` is the
        largest distance to the block."""
        n = indptr.shape[0] - 1
        cols = d1 - d0
        stride = tile.shape[0] // n
        nw = (cols + 63) >> 6
        cap = bm.shape[0] - 64
        one = np.uint64(1)
        zero = np.uint64(0)
        byte = np.uint64(0xFF)
        full = np.empty(nw, np.uint64)
        _start(reach, front, done, full, n, d0, d1)
        for d in range(d0, d1):
            tile[d * stride + d - d0] = 255
        cnt = 0
        level = 0
        while True:
            level += 1
            anynew = zero
            for s in range(n):
                if done[s]:  # its stale frontier words are all within its neighbours' reach
                    continue
                lo = indptr[s]
                hi = indptr[s + 1]
                deg = hi - lo
                for w in range(nw):
                    acc[w] = 0
                for j in range(lo, hi):
                    y = nbr[j]
                    for w in range(nw):
                        acc[w] |= front[y, w]
                left = zero
                h = hv[s]
                for w in range(nw):
                    r = reach[s, w]
                    new = acc[w] & ~r
                    nxt[s, w] = new
                    r |= new
                    reach[s, w] = r
                    left |= full[w] & ~r
                    if new == zero:
                        continue
                    anynew |= new
                    base = s * stride + 64 * w
                    if not spread:  # lowest rank: each link takes what lower ones left
                        rest = new
                        for j in range(lo, hi):
                            got = front[nbr[j], w] & rest
                            rest &= ~got
                            while got:
                                b = trailing_zeros(got)
                                got &= got - one
                                tile[base + b] = j - lo
                            if rest == zero:
                                break
                        continue
                    for j in range(lo, hi):
                        cbuf[j - lo] = front[nbr[j], w] & new
                    if cnt > cap:
                        _flush(cnt, bm, bx, bp, tile, seltab, small)
                        cnt = 0
                    dbase = d0 + 64 * w
                    if small:  # the masks of 8 destinations at once, one byte each
                        while new:
                            c = trailing_zeros(new) & ~7
                            cc = np.uint64(c)
                            chunk = (new >> cc) & byte
                            new &= ~(byte << cc)
                            lanes = zero
                            for i in range(deg):
                                lanes |= spread8[(cbuf[i] >> cc) & byte] << np.uint64(i)
                            while chunk:
                                b = trailing_zeros(chunk)
                                chunk &= chunk - one
                                bm[cnt] = (lanes >> np.uint64(8 * b)) & byte
                                bx[cnt] = h ^ hd[dbase + c + b]
                                bp[cnt] = base + c + b
                                cnt += 1
                        continue
                    while new:
                        b = trailing_zeros(new)
                        new &= new - one
                        bb = np.uint64(b)
                        m = zero
                        for i in range(deg):
                            m |= ((cbuf[i] >> bb) & one) << np.uint64(i)
                        bm[cnt] = m
                        bx[cnt] = h ^ hd[dbase + b]
                        bp[cnt] = base + b
                        cnt += 1
                if left == zero:
                    done[s] = 1
            if anynew == zero:
                break
            front, nxt = nxt, front
        _flush(cnt, bm, bx, bp, tile, seltab, small)
        for s in range(n):
            t0 = s * stride
            for i in range(cols):
                out[s, oc + i] = tile[t0 + i]
        for s in range(n):
            if not done[s]:
                return s, level - 1
        return -1, level - 1


    @_jit
    def _block8(indptr, nbr, d0, d1, spread, hv, hd, seltab, spread8, out, oc, reach, front,
                nxt, acc, done, lanes):
        """:func:`_block` for degrees up to 8, with no branch on single destinations: the
        levels only or each neighbour's frontier word, restricted to the new destinations,
        into ``lanes[s, w, i]`` (bit ``d`` of it: link ``i`` of ``s`` starts a shortest path
        to ``d``); a last pass over the block transposes those ``deg`` words into one mask
        byte per destination and applies the tie rule to every entry, row by row, straight
        into ``out``.  ``lanes``: ``N x 8 x W`` uint64, ``W`` = :data:`WORDS` (here a
        constant, as the other work arrays' width)."""
        n = indptr.shape[0] - 1
        cols = d1 - d0
        nw = WORDS  # a constant: the loops over words unroll; words past the block stay 0
        one = np.uint64(1)
        zero = np.uint64(0)
        byte = np.uint64(0xFF)
        full = np.empty(nw, np.uint64)
        _start(reach, front, done, full, n, d0, d1)
        lanes[:n] = 0
        level = 0
        while True:
            level += 1
            anynew = zero
            for s in range(n):
                if done[s]:  # its stale frontier words are all within its neighbours' reach
                    continue
                lo = indptr[s]
                hi = indptr[s + 1]
                for w in range(nw):
                    acc[w] = 0
                for j in range(lo, hi):
                    y = nbr[j]
                    for w in range(nw):
                        acc[w] |= front[y, w]
                left = zero
                some = zero
                for w in range(nw):
                    r = reach[s, w]
                    new = acc[w] & ~r
                    nxt[s, w] = new
                    acc[w] = new
                    some |= new
                    r |= new
                    reach[s, w] = r
                    left |= full[w] & ~r
                if some != zero:
                    anynew |= some
                    for j in range(lo, hi):
                        y = nbr[j]
                        i = j - lo
                        for w in range(nw):
                            lanes[s, i, w] |= front[y, w] & acc[w]
                if left == zero:
                    done[s] = 1
            if anynew == zero:
                break
            front, nxt = nxt, front
        for s in range(n):
            h = hv[s]
            deg = indptr[s + 1] - indptr[s]
            for w in range(nw):
                for c in range(8):
                    c0 = 64 * w + 8 * c
                    if c0 >= cols:
                        break
                    cc = np.uint64(8 * c)
                    t = zero
                    for i in range(deg):
                        t |= spread8[(lanes[s, i, w] >> cc) & byte] << np.uint64(i)
                    for b in range(min(8, cols - c0)):
                        m = (t >> np.uint64(8 * b)) & byte
                        if spread:
                            k = (_mix32(h, hd[d0 + c0 + b]) * _popcount(m)) >> np.uint64(32)
                            r = seltab[m, k]
                        else:
                            r = np.uint8(trailing_zeros(m) & 63)
                        out[s, oc + c0 + b] = np.uint8(255) if m == zero else r
        for s in range(n):
            if not done[s]:
                return s, level - 1
        return -1, level - 1


def _spread8() -> np.ndarray:
    """``SPREAD8[x]``: the bits of the byte ``x`` one per byte (byte ``j`` = bit ``j``)."""
    x = np.arange(256, dtype=np.uint64)
    out = np.zeros(256, dtype=np.uint64)
    for j in range(8):
        out |= ((x >> np.uint64(j)) & np.uint64(1)) << np.uint64(8 * j)
    return out


#: Byte lanes of a byte's bits (:func:`_block` transposes up to 8 neighbours' words).
SPREAD8 = _spread8()


def compute(indptr, indices, n: int, tseed, *, workers=None, path=None, progress=None):
    """The ``(1, N, N)`` uint8 NR rank table of the graph ``indptr``/``indices`` (CSR,
    symmetric, unit weights, degree <= 64): the same table as :func:`._rows.compute`.

    Parameters
    ----------
    tseed : int or None
        Seed of the ``"spread"`` tie rule; None = lowest next-hop rank.
    workers : int, optional
        Threads (default: the CPUs this process may use).
    path : path-like, optional
        Stream the table into this ``.npy`` file (columns of at most
        :data:`._npyfile.STREAM_COLUMNS` destinations at a time; temporary name, renamed
        when complete) and return it memory-mapped read-only.
    progress : callable, optional
        ``progress(columns_done, N)`` after each block.

    Raises
    ------
    RoutingError
        If a switch does not reach every other (a disconnected graph).
    """
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    nbr = np.ascontiguousarray(indices, dtype=np.int32)
    deg = np.diff(indptr)
    maxdeg = int(deg.max(initial=0))
    spread = tseed is not None
    small = maxdeg <= 8
    _, hv, hd = tie_halves(0 if tseed is None else tseed, n)
    words = WORDS
    width = 64 * words
    nwork = min(_rows._workers(workers), max(1, -(-n // width)))
    bad = [n]
    done_cols = [0]

    local = threading.local()

    def job(out, d0, d1, oc):
        work = getattr(local, "work", None)
        if work is None:  # one set of work arrays per thread
            common = (*(np.empty((n, words), np.uint64) for _ in range(3)),
                      np.empty(words, np.uint64))
            if small:
                work = (*common, np.empty(n, np.uint8), np.empty((n, 8, words), np.uint64))
            else:
                work = (*common, np.empty(max(1, maxdeg), np.uint64), np.empty(n, np.uint8),
                        np.empty(n * (width + 64), np.uint8), np.empty(BUFFER, np.uint64),
                        np.empty(BUFFER, np.uint64), np.empty(BUFFER, np.int64))
            local.work = work
        if small:
            b, _ = _block8(indptr, nbr, np.int64(d0), np.int64(d1), spread, hv, hd,
                           _rows.SELECT8, SPREAD8, out, np.int64(oc), *work)
        else:
            b, _ = _block(indptr, nbr, np.int64(d0), np.int64(d1), spread, hv, hd,
                          _rows.SELECT8, SPREAD8, small, out, np.int64(oc), *work)
        return int(b), d1 - d0

    def run(out, g0, g1):
        spans = [(d, min(g1, d + width)) for d in range(g0, g1, width)]
        if nwork == 1:
            results = (job(out, a, b, a - g0) for a, b in spans)
        else:
            ex = pool[0]
            results = ex.map(lambda ab: job(out, ab[0], ab[1], ab[0] - g0), spans)
        for b, cols in results:
            if b >= 0:
                bad[0] = min(bad[0], b)
            done_cols[0] += cols
            if progress is not None:
                progress(done_cols[0], n)

    def check():
        if bad[0] < n:
            raise RoutingError(f"switch {bad[0]}: a switch has no next hop on a shortest "
                               "path (internal error)")

    pool = [ThreadPoolExecutor(nwork) if nwork > 1 else None]
    try:
        if path is None:
            ranks = np.empty((1, n, n), dtype=np.uint8)
            run(ranks[0], 0, n)
            check()
            return ranks
        group = max(width, STREAM_COLUMNS // width * width)
        with column_writer(path, n, np.uint8) as write:
            for g0 in range(0, n, group):
                g1 = min(n, g0 + group)
                tile = np.empty((n, g1 - g0), dtype=np.uint8)
                run(tile, g0, g1)
                check()
                write(g0, tile)
    finally:
        if pool[0] is not None:
            pool[0].shutdown()
    return np.load(path, mmap_mode="r")


def from_plan(bplan, n: int, tseed, *, workers=None, path=None, progress=None):
    """:func:`._rows.compute`'s table of a :func:`._rows.plan`: by :func:`compute` when all
    weights are 1 (NR), else by :func:`._rows.compute`."""
    t = bplan.dtype.type
    if not np.all((bplan.adj >> t(bplan.vbits)) == 1):
        return _rows.compute(bplan, n, tseed, workers=workers, path=path, progress=progress)
    nbr = (bplan.adj & t((1 << bplan.vbits) - 1)).astype(np.int32)
    return compute(bplan.indptr, nbr, n, tseed, workers=workers, path=path, progress=progress)
