"""Prefetch helpers of the compiled simulator's event loop (:func:`topogen.sim._core.run`):
the rows an event reads first, and those they lead to, asked for a block of events ahead
(split from :mod:`topogen.sim._core` to keep that module small; imported by it once its
constants are defined)."""

from __future__ import annotations

from ._core import (EV0, K_ALLOC, K_BLOCK, K_CREDIT, K_READY, K_VFREE, K_VREQ, OUT_SWITCH, P_BUF,
                    P_HOP, SW_H0, SW_L0, VA_N, _inline, prefetch, prefetch_row)


@_inline
def _prefetch_event(kind, a, pk, p_route, pt, ob, sw, V):
    """Ask for the rows an event of ``kind`` on ``a`` reads first."""
    if kind == K_READY or kind == K_VREQ:
        prefetch_row(pk, a)
        prefetch_row(p_route, a)
    elif kind == K_CREDIT or kind == K_VFREE:
        prefetch_row(ob, a)
        prefetch_row(pt, a // V)
    elif kind == K_ALLOC:
        prefetch_row(sw, a)
    elif kind != K_BLOCK:
        prefetch_row(pt, a)


@_inline
def _prefetch_next(kind, a, pk, p_route, pt, sw, pend, bf, vq, V):
    """Ask for the rows an event of ``kind`` on ``a`` reads next (reading the rows
    :func:`_prefetch_event` asked for)."""
    if kind == K_READY or kind == K_VREQ:
        r = p_route[a, pk[a, P_HOP]]
        if r >= 0:
            prefetch_row(pt, r // V)
            prefetch(pend, r // V)
        if kind == K_VREQ:
            b = pk[a, P_BUF]
            prefetch_row(bf, b)
            prefetch_row(pt, b // V)
    elif kind == K_ALLOC:
        nsw = sw.shape[0]
        for i in range(min(sw[a, VA_N], 4)):
            prefetch_row(vq, i * nsw + a)
        prefetch(pend, sw[a, SW_L0])
        prefetch(pend, sw[a, SW_H0])
    elif kind != K_BLOCK:
        s_ = pt[a // V if kind == K_CREDIT or kind == K_VFREE else a, OUT_SWITCH]
        if s_ >= 0:
            prefetch_row(sw, s_)


@_inline
def _prefetch_block(nd, blk, j0, lim, deep, pk, p_route, pt, ob, sw, pend, bf, vq, V):
    """:func:`_prefetch_event` (or with ``deep`` :func:`_prefetch_next`) for the events
    ``j0 .. lim - 1`` of block ``blk``."""
    for j in range(j0, lim):
        kind, a = nd[blk, EV0 + 2 * j], nd[blk, EV0 + 2 * j + 1]
        if deep:
            _prefetch_next(kind, a, pk, p_route, pt, sw, pend, bf, vq, V)
        else:
            _prefetch_event(kind, a, pk, p_route, pt, ob, sw, V)
