"""Adaptive routing with an escape channel (:func:`topogen.routing.escape`) in the
reference simulator's :class:`~topogen.sim.model.Engine` (a mixin: the engine's state lives
on the engine): the route is chosen hop by hop at run time.

A packet's ``esc`` holds where it is: ``esc >= 0`` on the escape channel in up*/down*
phase ``esc``; ``esc < 0`` on the adaptive VCs in up*/down* phase ``-1 - esc`` (0: no down
link taken yet, 1: after one).  The adaptive phase only matters for the routing's
``adaptive="updown"`` reading, whose legal next hops depend on it (a packet that has taken
a down link never takes an up link on an adaptive VC); with ``"minimal"`` it stays 0.
"""

from __future__ import annotations

from ._allocator import roomiest_vc
from ._events import _Packet


class EscapeRouting:
    """The engine's hop-by-hop choices for an escape routing."""

    #: adaptive options of the ``updown`` reading by ``(phase, switch, destination)``;
    #: set on first use (:meth:`_updown_setup`), ``False`` for the ``minimal`` reading
    _ud_opts = None

    def _updown_setup(self):
        """``False`` for the minimal reading, else the (empty) options cache."""
        self._ud_opts = (getattr(self.net.routing, "adaptive", "minimal") == "updown") and {}
        return self._ud_opts

    def _updown_options(self, phase: int, v: int, d: int) -> tuple:
        """The adaptive choices of the ``updown`` reading at switch ``v`` toward ``d`` in
        up*/down* ``phase``: ``(port, first buffer, end buffer)`` per legal next hop on a
        shortest legal route (increasing neighbour id), the buffers being the adaptive VCs."""
        net = self.net
        n = net.num_switches
        key = (phase * n + v) * n + d
        r = self._ud_opts.get(key)
        if r is None:
            V = net._vstride
            a0, a1 = net.adaptive_vcs
            r = tuple((e, e * V + a0, e * V + a1)
                      for e in net.routing.adaptive_entries(v, d, phase).tolist())
            self._ud_opts[key] = r
        return r

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
        ud = self._ud_opts
        if ud is None:
            ud = self._updown_setup()
        if esc < 0:
            pkt.opts_a = self._updown_options(-1 - esc, v, d) if ud is not False else \
                net.adaptive_options(v, d)
            pkt.opt_e = net.escape_option(0, v, d)
        else:
            if not self.escape_return:
                pkt.opts_a = ()
            else:  # back to the adaptive VCs in the escape's phase
                pkt.opts_a = self._updown_options(esc, v, d) if ud is not False else \
                    net.adaptive_options(v, d)
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
        best = roomiest_vc(credits, b0, b1, S)
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
        esc = pkt.esc
        if e0 <= b < e1:  # escape VC: follow the up*/down* phase (entered in phase 0)
            ph = self.esc_phase[o]
            pkt.esc = ph if ph > esc else (esc if esc > 0 else 0)  # max(esc, ph, 0)
        elif self._ud_opts is False:
            pkt.esc = -1  # minimal reading: no phase on the adaptive VCs
        else:  # updown reading: adaptive phase max(phase, phase of link o)
            ph = -1 - esc if esc < 0 else esc
            if self.esc_phase[o] > ph:
                ph = 1
            pkt.esc = -1 - ph
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
