"""BookSim's separable input-first VC and switch allocators for the reference
simulator's :class:`~topogen.sim.model.Engine` (a mixin: the engine's state lives on the
engine)."""

from __future__ import annotations

import heapq
import math
from bisect import insort

import numpy as np

from ._events import _ALLOC, _IWAKE, _LATE, _READY

# event kinds of the VC allocation stage: a head asks for an output VC; an output VC is
# released (its owner's tail has crossed the switch)
_VREQ, _VFREE = 7, 8
#: "not released" (vfree_g of an owned output VC)
_NEVER = 1 << 62


def roomiest_vc(credits, lo: int, hi: int, S: int) -> int:
    """The buffer in ``[lo, hi)`` with the most credits, at least ``S`` (room for the whole
    packet); ties to the lowest id; -1 when none has room.  The VC choice of the
    ``credits`` allocation (and of the escape VC), shared by the engine's output
    arbitration, the separable allocator and the escape routing."""
    best, bc = -1, S - 1
    for x in range(lo, hi):
        cx = credits[x]
        if cx > bc:
            best, bc = x, cx
    return best


def round_offsets(config) -> list[int]:
    """Cycles after its allocation cycle a packet granted in allocation round ``j`` may
    start on an idle output channel, for each round ``j`` of a cycle
    (``speedup_model="rounds"``).

    BookSim's switch traversal takes the internal step after the switch allocation and
    the channel sends at the end of the cycle, so a packet allocated in a cycle's last
    step leaves a cycle later than one allocated earlier.  Rounds are counted from the one
    a head that just finished its pipeline first bids in (step ``pipeline - 2`` after it
    arrived); with integer ``s``, round ``j`` leaves ``(r0 + j + 1) // s - (r0 + 1) // s``
    cycles after round 0, ``r0 = (pipeline - 2) mod s``.  A fractional speedup gives 0.
    """
    num, den = config.speedup_fraction
    n = -(-num // den)
    if den != 1:
        return [0] * n
    r0 = (config.pipeline_delay - 2) % num
    return [(r0 + j + 1) // num - (r0 + 1) // num for j in range(num)]


def nearest_free_vc(owner, lo: int, hi: int, ol: int, p0: int, nv: int) -> int:
    """An input VC's pick in BookSim's separable input-first VC allocation.

    The VC of ``lo <= x < hi`` that no packet owns (``owner[x] is None``) nearest at or
    after the input's round-robin pointer ``p0``, counting the switch's ``nv`` output VCs
    by local index (``ol + x``) around the ring; -1 when every VC of the range is owned.
    Used by the packet-level engine and the wormhole engine alike.
    """
    best, bd = -1, nv
    for x in range(lo, hi):
        if owner[x] is None:
            d = (ol + x - p0) % nv
            if d < bd:
                best, bd = x, d
    return best


class SeparableAllocator:
    """Switch allocation per switch and cycle, as BookSim's IQ router does it."""

    def _setup_allocator(self, net) -> None:
        """Port numbering of every switch for :meth:`_allocate` (``config.port_order``;
        by default BookSim anynet's: the switch's hosts first, then its neighbours by
        increasing id)."""
        n, H = net.num_switches, net.num_hosts
        indptr = np.asarray(net.indptr, dtype=np.int64)
        hosts = np.diff(np.append(net.host_offset, H))
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        out_local, in_local = net.local_ports()
        self.out_local = out_local.tolist()
        self.in_local = in_local.tolist()
        self.out_switch = np.concatenate([src, net.host_switch, np.full(H, -1)]).tolist()
        self.sw_ports = (hosts + np.diff(indptr)).tolist()
        P = net.num_ports
        self.in_ptr = [0] * P
        self.out_ptr = [0] * P
        self.vc_ptr = [0] * P
        self.alloc_at = [-1] * n
        # outputs of each switch to look at in its next allocation (those whose state
        # changed: a packet became ready, the port or an input freed, credits came back,
        # or a request lost last cycle)
        self.sw_pend = [set() for _ in range(n)]
        if self.vca:
            nb = P * self.V
            self.owner = [None] * nb  # output VC (downstream buffer id) -> packet holding it
            self.ovc: dict = {}  # packet id -> the output VC it holds at its current switch
            self.va_pend = [[] for _ in range(n)]  # heads waiting for an output VC, per switch
            # round-robin pointers of BookSim's VC allocator: of each input VC over the
            # switch's output VCs, of each output VC over its input VCs (local indices
            # port * num_vcs + vc, ports numbered as by the switch allocator)
            self.va_iptr = [0] * nb
            self.va_optr = [0] * nb
            self.inj_last = [-1] * H  # the VC each host injected its last packet on
            if self.rounds:  # the round from which a released output VC is free
                self.vfree_g = [0] * nb

    # ------------------------------------------------------------ VC allocation
    def _want_alloc(self, sw: int, t: int) -> None:
        """Run the allocation of switch ``sw`` at the end of cycle ``t`` (once)."""
        if self.alloc_at[sw] != t:
            self.alloc_at[sw] = t
            self.seq += 1
            heapq.heappush(self.heap, (t, self.seq + _LATE, _ALLOC, sw))

    def _vc_range(self, pkt) -> tuple[int, int]:
        """The output VCs (buffer ids ``lo .. hi - 1``) ``pkt`` may take at its next port:
        those of its class on a network port, every VC of an ejection port (BookSim's
        ``min_anynet`` gives every VC)."""
        o = pkt.ports[pkt.hop]
        V = self.V
        if o >= self.ej_base:
            return o * V, o * V + V
        lo = o * V + pkt.vlo[pkt.hop]
        return lo, lo + (self.kcls if self.vr_w is None else self.vr_w[pkt.links][pkt.hop])

    def _vc_request(self, pkt, now: int) -> None:
        """``pkt``'s head, routed, asks for an output VC (it may ask for the switch one
        cycle later, when it gets one)."""
        sw = self.out_switch[pkt.ports[pkt.hop]]
        if self.rounds and pkt.vr < 0:  # (else set by _send_rounds) the cycle's last round
            pkt.vr = (now + 1) * self.r_num // self.r_den - 1
        self.va_pend[sw].append(pkt)
        self._want_alloc(sw, now)

    def _vc_free(self, x: int, now: int) -> None:
        """Output VC ``x`` can be allocated again (with allocation rounds: from round
        ``vfree_g[x]``, which :meth:`_vc_allocate_round` reads; this only wakes the
        switch)."""
        if not self.rounds:
            self.owner[x] = None
        sw = self.out_switch[x // self.V]
        if self.va_pend[sw]:
            self._want_alloc(sw, now)

    def _vc_allocate(self, sw: int, now: int) -> None:
        """BookSim's separable input-first VC allocation at switch ``sw``, one round.

        Every head waiting for an output VC requests each VC of its range that no packet
        owns, full or not (``vc_busy_when_full = 0``, ``vc_prioritize_empty = 0``); its
        input VC's round-robin arbiter picks the one nearest its pointer, each output VC's
        arbiter grants one of the input VCs that picked it; pointers move past a winner
        only.  A winner owns the VC until its tail has crossed the switch
        (``wait_for_tail_credit = 0``) and requests the switch from the next cycle on.
        Losers try again next cycle; a head that found every VC owned waits for one to be
        released.
        """
        pend = self.va_pend[sw]
        owner = self.owner
        V = self.V
        olocal, ilocal = self.out_local, self.in_local
        nv = self.sw_ports[sw] * V
        iptr, optr = self.va_iptr, self.va_optr
        chosen: dict = {}
        for pkt in pend:
            lo, hi = self._vc_range(pkt)
            o = lo // V
            ol = olocal[o] * V - o * V  # local index of VC x: ol + x
            best = nearest_free_vc(owner, lo, hi, ol, iptr[pkt.buf], nv)
            if best >= 0:
                c = chosen.get(best)
                if c is None:
                    chosen[best] = [pkt]
                else:
                    c.append(pkt)
        if not chosen:
            return
        lost = False
        heap = self.heap
        for x in sorted(chosen):  # in VC order (the compiled engine's order)
            cands = chosen[x]
            if len(cands) > 1:
                lost = True
                p0 = optr[x]
                pk = min(cands, key=lambda p: (ilocal[p.buf // V] * V + p.buf % V - p0) % nv)
            else:
                pk = cands[0]
            owner[x] = pk
            self.ovc[pk.pid] = x
            iptr[pk.buf] = (olocal[x // V] * V + x % V + 1) % nv
            optr[x] = (ilocal[pk.buf // V] * V + pk.buf % V + 1) % nv
            pend.remove(pk)
            self.seq += 1
            heapq.heappush(heap, (now + 1, self.seq, _READY, pk))
        if lost:
            self._want_alloc(sw, now + 1)

    def _vc_allocate_round(self, sw: int, now: int, j: int, nr: int) -> list:
        """:meth:`_vc_allocate` in allocation round ``j`` of ``nr`` of cycle ``now``
        (``speedup_model="rounds"``); returns the winners in VC order (the caller lets
        them bid for the switch from the next round on).

        A head bids from round ``pkt.vr`` on: a head that reached the front of its buffer
        by arriving asks in the last round of the cycle before its pipeline ends (BookSim's
        VC allocation step comes right before the switch allocation step, the first
        round of the next cycle); one that became the front when the packet ahead of it
        crossed, ``routing_delay`` rounds after that (:meth:`_send_rounds`).  An output VC
        released by a tail is free from the round after the tail crossed (``vfree_g``).
        """
        pend = self.va_pend[sw]
        owner = self.owner
        vfree = self.vfree_g
        g = now * self.r_num // self.r_den + j
        V = self.V
        olocal, ilocal = self.out_local, self.in_local
        nv = self.sw_ports[sw] * V
        iptr, optr = self.va_iptr, self.va_optr
        chosen: dict = {}
        for pkt in pend:
            if pkt.vr > g:  # its pipeline has not reached VC allocation yet
                continue
            lo, hi = self._vc_range(pkt)
            ol = olocal[lo // V] * V - (lo // V) * V  # local index of VC x: ol + x
            p0 = iptr[pkt.buf]
            best, bd = -1, nv
            for x in range(lo, hi):
                if owner[x] is None or vfree[x] <= g:
                    d = (ol + x - p0) % nv
                    if d < bd:
                        best, bd = x, d
            if best >= 0:
                c = chosen.get(best)
                if c is None:
                    chosen[best] = [pkt]
                else:
                    c.append(pkt)
        if not chosen:
            return []
        lost = False
        won = []
        for x in sorted(chosen):  # in VC order (the compiled engine's order)
            cands = chosen[x]
            if len(cands) > 1:
                lost = True
                p0 = optr[x]
                pk = min(cands, key=lambda p: (ilocal[p.buf // V] * V + p.buf % V - p0) % nv)
            else:
                pk = cands[0]
            owner[x] = pk
            vfree[x] = _NEVER
            self.ovc[pk.pid] = x
            iptr[pk.buf] = (olocal[x // V] * V + x % V + 1) % nv
            optr[x] = (ilocal[pk.buf // V] * V + pk.buf % V + 1) % nv
            pend.remove(pk)
            pk.vr = -1
            won.append(pk)
        if lost:
            self._want_alloc(sw, now + 1)
        return won

    def _serve_switch(self, o: int, now: int) -> None:
        """The ``separable`` allocator: a packet waits for output ``o`` of a switch; run
        that switch's allocation at the end of this cycle (:meth:`_allocate`)."""
        if o >= self.inj_base:
            self._serve(o, now)
            return
        busy = self.busy
        if busy[o] > now:
            self._wake_when_free(o)
            return
        sw = self.out_switch[o]
        self.sw_pend[sw].add(o)
        if self.alloc_at[sw] != now:
            self.alloc_at[sw] = now
            self.seq += 1
            heapq.heappush(self.heap, (now, self.seq + _LATE, _ALLOC, sw))

    def _request(self, per_in: dict, pkt, o: int, ip: int) -> None:
        """``pkt`` (at input port ``ip``) asks for output ``o`` with the downstream buffer it
        would take: the VC it was granted (``vc_alloc="booksim"``) or the roomiest VC of its
        class, either with credits for the whole packet (none: no request); an ejection
        channel needs none.  An input keeps one request per output: the packet whose VC is
        next in the input's round-robin order."""
        S = self.S
        credits = self.credits
        if o >= self.ej_base:
            best = -1
        elif self.vca:  # the VC it was granted, with room for the whole packet
            best = self.ovc[pkt.pid]
            if credits[best] < S:
                return
        else:
            lo = o * self.V + pkt.vlo[pkt.hop]
            k = self.kcls if self.vr_w is None else self.vr_w[pkt.links][pkt.hop]
            if k == 1:
                if credits[lo] < S:
                    return
                best = lo
            else:
                best = roomiest_vc(credits, lo, lo + k, S)
                if best < 0:
                    return
        reqs = per_in.get(ip)
        if reqs is None:
            per_in[ip] = {o: (pkt, best)}
        else:
            old = reqs.get(o)
            V, vp = self.V, self.vc_ptr[ip]
            if old is None or (pkt.buf - vp) % V < (old[0].buf - vp) % V:
                reqs[o] = (pkt, best)

    def _allocate(self, sw: int, now: int) -> None:
        """BookSim's separable input-first switch allocation at switch ``sw``, one round.

        Requests: the packets waiting for a free output of ``sw`` whose input port is not
        sending and which have a VC of their class with credits for the whole packet (an
        ejection port always accepts).  Per input port and output, the VC nearest the
        input's VC round-robin pointer requests; each input's round-robin arbiter over
        output ports picks one request, each output's round-robin arbiter over input
        ports grants one; pointers move past a winner only (BookSim's
        ``separable_input_first`` with round-robin arbiters, ``alloc_iters = 1``, ports
        numbered hosts first, then neighbours by id).  Losers try again next cycle.
        """
        if self.rounds:
            self._allocate_rounds(sw, now)
            return
        if self.vca and self.va_pend[sw]:
            self._vc_allocate(sw, now)
        pending = self.sw_pend[sw]
        if not pending:  # a VC allocation only (about half the calls)
            return
        waiting = self.waiting
        busy = self.busy
        inb = self.in_busy
        V = self.V
        olocal, ilocal = self.out_local, self.in_local
        n = self.sw_ports[sw]
        vptr = self.vc_ptr
        per_in: dict = {}  # input port -> {output: (pkt, buffer)}
        held = []
        outs = sorted(pending)  # port order (the compiled engine's order)
        self.sw_pend[sw] = set()
        for o in outs:
            wl = waiting.get(o)
            if wl is None or busy[o] > now:
                continue
            for pkt in wl:
                ip = pkt.buf // V
                if inb[ip] > now:
                    held.append(o)
                    continue
                self._request(per_in, pkt, o, ip)
        if per_in:
            iptr, optr = self.in_ptr, self.out_ptr
            chosen: dict = {}  # output -> [(input, pkt, buffer)]
            lost = False
            for ip, reqs in per_in.items():
                if len(reqs) > 1:
                    lost = True
                    p0 = iptr[ip]
                    o = min(reqs, key=lambda x: (olocal[x] - p0) % n)
                else:
                    o = next(iter(reqs))
                pk, b = reqs[o]
                c = chosen.get(o)
                if c is None:
                    chosen[o] = [(ip, pk, b)]
                else:
                    c.append((ip, pk, b))
            for o, cands in chosen.items():
                if len(cands) > 1:
                    lost = True
                    p0 = optr[o]
                    ip, pk, b = min(cands, key=lambda c: (ilocal[c[0]] - p0) % n)
                else:
                    ip, pk, b = cands[0]
                optr[o] = (ilocal[ip] + 1) % n
                iptr[ip] = (olocal[o] + 1) % n
                vptr[ip] = (pk.buf % V + 1) % V
                wl = waiting[o]
                wl.remove(pk)
                self._send(pk, o, b, now)
                if not wl:
                    del waiting[o]
                else:
                    self._wake_when_free(o)
            if lost:
                pend = self.sw_pend[sw]
                for o in outs:  # the losers try again next cycle
                    if o in waiting and busy[o] <= now:
                        pend.add(o)
                self._want_alloc(sw, now + 1)
        for o in held:
            wl = waiting.get(o)
            if wl is not None and busy[o] <= now:
                self._input_wake(o, wl, now)

    def _allocate_rounds(self, sw: int, now: int) -> None:
        """:meth:`_allocate` with ``internal_speedup`` rounds (``speedup_model="rounds"``):
        the separable input-first allocation of switch ``sw`` runs once per round of cycle
        ``now`` (BookSim's ``_InternalStep`` per internal step), each round granting at
        most one packet per input and per output port among the inputs and crossbar
        outputs free in that round (:meth:`_send_rounds`); credits, pointers and waiting
        lists carry over from round to round.  Losers, and packets held by a busy input,
        try again in the next round and as :meth:`_allocate`'s do after the last."""
        waiting = self.waiting
        busy, bj = self.busy, self.busy_j
        inb, ij = self.in_busy, self.in_j
        V = self.V
        olocal, ilocal = self.out_local, self.in_local
        n = self.sw_ports[sw]
        vptr = self.vc_ptr
        vca = self.vca
        iptr, optr = self.in_ptr, self.out_ptr
        num, den = self.r_num, self.r_den
        nr = (now + 1) * num // den - now * num // den
        held = []
        lost = False
        outs = sorted(self.sw_pend[sw])  # port order (the compiled engine's order)
        self.sw_pend[sw] = set()
        va = self.va_pend[sw] if vca else None
        for j in range(nr):
            won = self._vc_allocate_round(sw, now, j, nr) if va else ()
            per_in: dict = {}  # input port -> {output: (pkt, buffer)}
            for o in outs:
                wl = waiting.get(o)
                if wl is None:
                    continue
                x = busy[o]
                if x > now or (x == now and bj[o] > j):
                    continue
                for pkt in wl:
                    ip = pkt.buf // V
                    x = inb[ip]
                    if x > now or (x == now and ij[ip] > j):
                        held.append(o)
                        continue
                    self._request(per_in, pkt, o, ip)
            if per_in:
                chosen: dict = {}  # output -> [(input, pkt, buffer)]
                for ip, reqs in per_in.items():
                    if len(reqs) > 1:
                        lost = True
                        p0 = iptr[ip]
                        o = min(reqs, key=lambda x: (olocal[x] - p0) % n)
                    else:
                        o = next(iter(reqs))
                    pk, b = reqs[o]
                    c = chosen.get(o)
                    if c is None:
                        chosen[o] = [(ip, pk, b)]
                    else:
                        c.append((ip, pk, b))
                for o, cands in chosen.items():
                    if len(cands) > 1:
                        lost = True
                        p0 = optr[o]
                        ip, pk, b = min(cands, key=lambda c: (ilocal[c[0]] - p0) % n)
                    else:
                        ip, pk, b = cands[0]
                    optr[o] = (ilocal[ip] + 1) % n
                    iptr[ip] = (olocal[o] + 1) % n
                    vptr[ip] = (pk.buf % V + 1) % V
                    wl = waiting[o]
                    wl.remove(pk)
                    self._send_rounds(pk, o, b, now, j)
                    if not wl:
                        del waiting[o]
                    else:
                        self._wake_when_free(o)
            for pk in won:  # heads granted an output VC bid from the next round on
                if j + 1 < nr:
                    o = pk.ports[pk.hop]
                    wl = waiting.get(o)
                    if wl is None:
                        waiting[o] = [pk]
                    else:
                        wl.append(pk)
                    if o not in outs:
                        insort(outs, o)
                    if busy[o] > now:
                        self._wake_when_free(o)
                else:
                    self.seq += 1
                    heapq.heappush(self.heap, (now + 1, self.seq, _READY, pk))
        if lost:
            pend = self.sw_pend[sw]
            for o in outs:  # the losers try again next cycle
                if o in waiting and busy[o] <= now:
                    pend.add(o)
            self._want_alloc(sw, now + 1)
        for o in held:
            wl = waiting.get(o)
            if wl is not None and busy[o] <= now:
                self._input_wake(o, wl, now)

    def _input_wake(self, o: int, wl: list, now: int) -> None:
        """Serve ``o`` again when the first input port holding back a packet of ``wl``
        frees (unless a wake-up of ``o`` that early is pending)."""
        inb = self.in_busy
        V = self.V
        t = min((inb[p.buf // V] for p in wl if inb[p.buf // V] > now), default=0)
        if t and self.iwake.get(o, math.inf) > t:
            self.iwake[o] = t
            self.seq += 1
            heapq.heappush(self.heap, (t, self.seq, _IWAKE, o))
