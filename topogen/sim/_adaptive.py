"""Adaptive routing with an escape channel (:func:`topogen.routing.escape`) in the
reference simulator's :class:`~topogen.sim.model.Engine` (a mixin: the engine's state lives
on the engine): the route is chosen hop by hop at run time."""

from __future__ import annotations

from ._events import _Packet


class EscapeRouting:
    """The engine's hop-by-hop choices for an escape routing."""

    def _create_adaptive(self, t: int, src: int, dst: int) -> None:
        """:meth:`_create` for an escape routing: the route is chosen hop by hop."""
        measured = self.measure_from <= t < self.measure_to
        if measured:
            self.measured_created += 1
        self.ctime_sum += t
        hs = self.host_switch
        p = _Packet(self.next_pid, src, dst, t, (self.inj_base + src,), (0,), 0, measured)
        p.at = hs[src]
        p.dsw = hs[dst]
        p.esc = -1
        p.opts_a = ()
        p.opt_e = None
        p.wports = ()
        self.next_pid += 1
        self._enqueue_at_source(src, p, t)

    def _ready_adaptive(self, pkt: _Packet, now: int) -> None:
        """The head of ``pkt`` is ready to leave switch ``pkt.at`` (escape routing).

        Options: every minimal next hop on every adaptive VC (unless the packet is on the
        escape channel and escape_return is off), and the up*/down* escape next hop on the
        escape VC(s), in the packet's up*/down* phase.  :meth:`_choose` picks one; if none
        is possible now, the packet waits on every port of its options.
        """
        v, d = pkt.at, pkt.dsw
        waiting = self.waiting
        if v == d:
            o = self.ej_base + pkt.dst
            wl = waiting.get(o)
            if wl is None:
                waiting[o] = [pkt]
            else:
                wl.append(pkt)
            self._serve(o, now)
            return
        net = self.net
        esc = pkt.esc
        if esc < 0:
            pkt.opts_a = net.adaptive_options(v, d)
            pkt.opt_e = net.escape_option(0, v, d)
        else:
            pkt.opts_a = net.adaptive_options(v, d) if self.escape_return else ()
            pkt.opt_e = net.escape_option(esc, v, d)
        ch = self._choose(pkt, now)
        if ch is not None:
            self._send_adaptive(pkt, ch[0], ch[1], now)
            return
        ports = []
        for o, _, _ in pkt.opts_a:
            ports.append(o)
        o = pkt.opt_e[0]
        if o not in ports:
            ports.append(o)
        busy = self.busy
        for o in ports:
            wl = waiting.get(o)
            if wl is None:
                waiting[o] = [pkt]
            else:
                wl.append(pkt)
            if busy[o] > now:
                self._wake_when_free(o)
        pkt.wports = ports

    def _choose(self, pkt: _Packet, now: int):
        """``(port, buffer)`` ``pkt`` takes now, or None (Duato's selection).

        An adaptive VC with credits for the whole packet on a free port comes first (the
        one with most credits; ties: lowest buffer id, i.e. lowest neighbour id, then
        lowest VC).  If an adaptive VC has credits but its port is still sending, the
        packet waits for it.  Only when no adaptive VC has credits does it take the
        escape VC (most credits, lowest id) if its port is free.
        """
        credits = self.credits
        busy = self.busy
        S = self.S
        best, bc, bport = -1, S - 1, -1
        later = False
        for o, b0, b1 in pkt.opts_a:
            free = busy[o] <= now
            for b in range(b0, b1):
                cb = credits[b]
                if cb > bc:
                    if free:
                        best, bc, bport = b, cb, o
                    else:
                        later = True
                elif cb >= S and not free:
                    later = True
        if best >= 0:
            return bport, best
        if later:
            return None
        o, b0, b1 = pkt.opt_e
        if busy[o] > now:
            return None
        bc = S - 1
        for b in range(b0, b1):
            cb = credits[b]
            if cb > bc:
                best, bc = b, cb
        return (o, best) if best >= 0 else None

    def _send_adaptive(self, pkt: _Packet, o: int, b: int, now: int) -> None:
        """Send ``pkt`` on network port ``o`` into buffer ``b``; update its state."""
        for w in pkt.wports:
            wl = self.waiting[w]
            wl.remove(pkt)
            if not wl:
                del self.waiting[w]
        pkt.wports = ()
        e0, e1 = pkt.opt_e[1], pkt.opt_e[2]
        if e0 <= b < e1:  # escape VC: follow the up*/down* phase
            ph = self.esc_phase[o]
            esc = pkt.esc
            pkt.esc = ph if ph > esc else (esc if esc > 0 else 0)  # max(esc, ph, 0)
        else:
            pkt.esc = -1
        pkt.at = self.indices_l[o]
        pkt.links += 1
        self._send(pkt, o, b, now)
        if o in self.waiting:
            self._wake_when_free(o)

    def _serve_adaptive(self, o: int, now: int) -> None:
        """:meth:`_serve` for an escape routing: waiting packets choose among all their
        options (the port they are served from may not be the one they take)."""
        if o >= self.num_links:  # injection and ejection ports: as deterministic routings
            self._serve(o, now)
            return
        busy = self.busy
        waiting = self.waiting
        if busy[o] > now:
            self._wake_when_free(o)
            return
        choose = self._choose
        wl = waiting[o]
        while True:
            for pkt in wl:
                ch = choose(pkt, now)
                if ch is not None:
                    break
            else:
                return
            self._send_adaptive(pkt, ch[0], ch[1], now)
            if ch[0] == o:
                return
            wl = waiting.get(o)
            if wl is None:
                return
