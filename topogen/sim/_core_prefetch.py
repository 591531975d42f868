"""Memory-order helpers of the compiled simulator's event loop (:func:`topogen.sim._core.run`):
the rows an event reads first, and those they lead to, asked for a block of events ahead;
each cycle's switch allocations put in switch order (split from :mod:`topogen.sim._core` to
keep that module small; imported by it once its constants are defined).

Switch order
------------
The switch allocations of a cycle (the late list: one event per switch that has requests,
run after every other event of the cycle) are run in switch order rather than in the order
the switches asked, so that they read the switches' port, output-VC, request and pending
rows in memory order (:func:`_sort_late`; ~11% less CPU at 4,096 switches with 1-flit
packets).  The results are the same (:class:`~topogen.sim._compiled.CompiledEngine` turns
it on only where they are: ``_sort_ok``):

* an allocation decides by round-robin pointers and VC ids, never by the order in which the
  events of its cycle made the requests;
* two allocations of one cycle touch disjoint state (their own switch's ports, input and
  output VCs, requests; shared counters are sums): a packet sent into a buffer whose front
  leaves it in the same cycle leaves the buffer in the same state and schedules the same
  event, in either order;
* no allocation schedules an event at another switch in its own cycle: with the separable
  allocator every link latency plus the router delay exceeds the VC allocation lead;
  events that follow the new order (one allocation's sends before another's) keep it only
  among events of different switches, whose order does not matter in turn.

What changes is the order of one cycle's deliveries: the engine keeps the asked order when
it records them (``record``, :func:`~topogen.sim.run_trace`) or gives them one by one.
"""

from __future__ import annotations

from ._core import (EV0, EV_HEAD, EV_HPOS, EV_TAIL, EV_TPOS, EVB, K_ALLOC, K_BLOCK, K_CREDIT, K_READY,
                    K_VFREE, K_VREQ, LATE_SORTED, NODE_NEXT, OUT_SWITCH, P_BUF, P_HOP, SW_H0, SW_L0,
                    VA_N, _inline, prefetch, prefetch_row)


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


@_inline
def _sort_late(sc, t, ev, nd, idx, cnt, nsw):
    """Put the switch allocations of cycle ``t`` (late list ``idx``; a switch may have more
    than one when a head that reached the front of its buffer asks again) in switch order,
    in place (``cnt``: zeros, one per switch), when they are at least one switch in 8 (the
    33-flit runs at 16,384 switches, with fewer, were 3-12% slower in switch order)."""
    sc[LATE_SORTED] = t
    b = ev[idx, EV_HEAD]
    p = ev[idx, EV_HPOS]
    tl = ev[idx, EV_TAIL]
    tp = ev[idx, EV_TPOS]
    m = tp - p  # the allocations of the cycle
    while b != tl:
        m += EVB
        b = nd[b, NODE_NEXT]
    if m * 8 < nsw:  # a few switches: their rows are far apart in any order
        return
    b = ev[idx, EV_HEAD]
    while not (b == tl and p == tp):
        if p == EVB:
            b = nd[b, NODE_NEXT]
            p = 0
            continue
        cnt[nd[b, EV0 + 2 * p + 1]] += 1
        p += 1
    b = ev[idx, EV_HEAD]
    p = ev[idx, EV_HPOS]
    for s_ in range(nsw):  # the switches in order, each as often as it was asked for
        while cnt[s_]:
            if p == EVB:
                b = nd[b, NODE_NEXT]
                p = 0
            nd[b, EV0 + 2 * p + 1] = s_
            p += 1
            cnt[s_] -= 1
