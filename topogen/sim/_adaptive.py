"""Adaptive routing with an escape channel (:func:`topogen.routing.escape`) in the
reference simulator's :class:`~topogen.sim.model.Engine` (a mixin: the engine's state lives
on the engine): the route is chosen hop by hop at run time.

A packet's ``esc`` holds where it is: ``esc >= 0`` on the escape channel in escape state
``esc`` (up*/down* escape paths: the up*/down* phase; dimension-order ones: the dateline
class reached in the dimension being corrected; :meth:`topogen.routing.escape.EscapeRouting.escape_table`
gives each escape hop's VC and the state after it); ``esc < 0`` on the adaptive VCs in up*/down* phase ``-1 - esc`` (0: no down
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
        escape channel and escape_return is off), and the escape next hop on the VC(s) of
        its escape VC, in the packet's escape state.  :meth:`_choose` picks one; if none
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
            pkt.opt_e = net.escape_hop(0, v, d)
        else:
            if not self.escape_return:
                pkt.opts_a = ()
            else:  # back to the adaptive VCs in the escape's phase
                pkt.opts_a = self._updown_options(esc, v, d) if ud is not False else \
                    net.adaptive_options(v, d)
            pkt.opt_e = net.escape_hop(esc, v, d)
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
        o, b0, b1, _ = pkt.opt_e
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
        if e0 <= b < e1:  # escape VC: the escape state after the hop (entered in state 0)
            pkt.esc = pkt.opt_e[3]
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


class MinAdaptChoice:
    """The flit-level engine's run-time choice for BookSim's ``min_adapt_torus``
    (:mod:`topogen.routing.torus_min_adapt`).

    When a head first asks for an output VC at a router, the routing function is
    evaluated once (BookSim's routing stage): :meth:`TorusMinAdapt.offers` from the
    router, the destination, the input port (BookSim's number; the injection channel
    counts as ``2n``) and VC the head came in on, and the packet's ring partition.  In
    each VC allocation the head's input arbiter then takes, among the offered output VCs
    no packet holds, the one of highest priority (VC 3 of a productive port before the
    escape VC), ties by its round-robin pointer (``roundrobin_arb.hpp`` ``Supersedes``:
    the pointer's nearest at or after it); the output arbiters are the engine's.  The
    packet's state: ``at`` the hop whose offers ``opts_a`` holds (``(buffer, priority)``
    pairs), ``esc`` the partition (BookSim's ``f->ph``).
    """

    min_adapt = False

    def _setup_min_adapt(self, net) -> None:
        r = net.routing
        self.min_adapt = True
        self.ma_routing = r
        self.ma_out = r.out_entry.tolist()
        self.ma_in_port = r.in_port.tolist()
        self.ma_inject = 2 * r.n
        self.ma_sw = net.host_switch.tolist()
        self.ma_tie = lambda: int(self.rng.integers(2))

    def _min_adapt_pick(self, b: int, pkt, h: int, p0: int, nv: int) -> int:
        """The output VC (buffer id) the head at the front of input buffer ``b`` (hop
        ``h``) requests in this VC allocation, or -1 when every offered VC is held."""
        V = self.V
        if getattr(pkt, "at", -1) != h:  # the routing stage: once per router
            ip = b // V
            sw = self.in_switch[ip]
            d = self.ma_sw[pkt.dst]
            if sw == d:  # ejection on every VC
                o = self.ej_base + pkt.dst
                opts = [(o * V + x, 0) for x in range(V)]
            else:
                if ip >= self.inj_base:
                    in_port, in_vc = self.ma_inject, V - 1
                else:
                    in_port, in_vc = self.ma_in_port[ip], b % V
                offers, ph = self.ma_routing.offers(sw, d, in_port, in_vc, getattr(pkt, "esc", 0), self.ma_tie)
                pkt.esc = ph
                out = self.ma_out[sw]
                opts = [(out[port] * V + vc, pri) for port, vc, pri in offers]
            pkt.opts_a = opts
            pkt.at = h
        owner = self.owner
        olocal = self.out_local
        best, bp, bd = -1, -1, nv
        for x, pri in pkt.opts_a:
            if owner[x] is None:
                dd = (olocal[x // V] * V + x % V - p0) % nv
                if pri > bp or (pri == bp and dd < bd):
                    best, bp, bd = x, pri, dd
        return best

    def _min_adapt_granted(self, b: int, x: int) -> None:
        """Record the hop the head of buffer ``b`` was granted (output VC ``x``)."""
        pkt = self.qs[b][0][1]
        o = x // self.V
        if o < self.ej_base:
            pkt.ports = pkt.ports[:pkt.at] + (o,)
            pkt.vlo = pkt.vlo[:pkt.at] + (x % self.V,)
