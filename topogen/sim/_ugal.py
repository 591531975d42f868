"""UGAL-L and UGAL-G (Slim Fly Sec. IV-C, :class:`topogen.routing.ugal.UgalRouting`) in
the reference simulator's :class:`~topogen.sim.model.Engine` (a mixin: the engine's state
lives on the engine).

A UGAL packet is created with only its injection port; when its head is ready at the
source switch (after injection and the router delay) the engine draws ``k`` random
intermediate switches (uniform over the switches other than source and destination, from
the simulation's generator) and compares the MIN path with the ``k`` Valiant paths:

* UGAL-L: cost = hops x ``queue(first port)``;
* UGAL-G: cost = the sum of ``queue(port)`` over the path's ports;

lowest cost wins, ties to MIN, then to the earlier Valiant candidate (the rule of
:func:`topogen.routing.ugal_select`).  ``queue(port)`` is the output queue of a directed
link in flits: the flits held or reserved in its downstream input buffers (``num_vcs x
vc_buf_size`` minus the credits of the port, so credits on their way back count as held)
plus ``packet_size`` per packet waiting at the switch for that port.  Hop ``h`` of the
chosen path uses routing VC ``h`` (the first VC of its class), as Valiant routing does,
so all candidates share one acyclic VC order.  From then on the packet follows its path
like a packet of a table routing.

With the routing's ``vc_ranges`` (:func:`topogen.routing.valiant.vc_ranges`, default off)
hop ``h`` of an ``n``-hop path may take any VC of the classes ``floor(h C / n) ..
floor((h + 1) C / n) - 1`` (``C`` the routing's classes): ``vlo`` is the first VC of the
block and :func:`range_widths` gives the engines the block's VC count per ``(n, port
index)``; Valiant routing (a table routing drawn per packet) takes the same blocks.

The routing's optional readings (:class:`topogen.routing.ugal.UgalRouting`, default off):
``count_packet`` adds ``packet_size`` to every queue read (UGAL-L: hops x ``(queue +
S)``; UGAL-G: the sum of ``queue + S``), and ``threshold`` ``T`` makes a Valiant candidate
win only when its cost ``+ T`` is lower than the best so far.

BookSim dragonflynew's ``ugal`` (:mod:`topogen.routing.ugal_booksim`, variant
``"booksim"``) takes its own rule here (:meth:`UgalChoice._choose_ugal_booksim`): one
random intermediate terminal, BookSim's used-credit comparison, VC = phase.
"""

from __future__ import annotations

from ._events import _Packet

#: uniform draws fetched from the generator at a time
_DRAWS = 4096


def range_widths(network):
    """With a ``vc_ranges`` Valiant / UGAL routing: ``(first, width)`` lists indexed by the
    path's link count ``n``: ``first[n]`` the first VC of each hop's block (as ``vlo``: 0
    for the injection port, then hop by hop), ``width[n][i]`` the VCs the packet may take
    at its port ``i`` (1 .. n: the hops; 0 and n + 1: every VC); None without the option."""
    from ..routing.valiant import vc_ranges

    r = network.routing
    if not getattr(r, "vc_ranges", False):
        return None
    k, V, C = network.vcs_per_class, network.config.num_vcs, r.num_vcs
    first, width = [()], [()]
    for n in range(1, C + 1):
        f, c = vc_ranges(n, C)
        first.append((0,) + tuple(x * k for x in f))
        width.append((V,) + tuple(x * k for x in c) + (V,))
    return first, width


class UgalChoice:
    """The engine's per-packet UGAL choice at the source switch."""

    def _setup_ugal(self, net) -> None:
        r = net.routing
        self.ugal_global = r.variant == "global"
        self.ugal_k = r.k
        self.ugal_base = r.base
        self.ugal_routes: dict[int, tuple] = {}
        self.ugal_draws: list[float] = []
        self.ugal_full = self.V * net.config.vc_buf_size  # flits of an empty port's buffers
        n = net.num_switches
        self.ugal_n = n
        # first VC of each port of a path: injection, then hop h on routing VC h
        self.ugal_vlo = (0,) + tuple(h * self.kcls for h in range(2 * max(1, r.longest) + 1))
        # vc_ranges: the first VC of each hop's block by path length (range_widths)
        vr = range_widths(net)
        self.ugal_rfirst = vr[0] if vr is not None else None
        self.ugal_choices = [0] * (r.k + 1)  # packets that took MIN, VAL 1, ... (diagnostics)
        # optional readings of the rule: the packet's own flits in each queue, the bias T
        self.ugal_own = self.S if r.count_packet else 0
        self.ugal_thr = r.threshold
        # BookSim dragonflynew's ugal (topogen.routing.ugal_booksim): its own rule and VCs
        self.ugal_booksim = r.variant == "booksim"
        if self.ugal_booksim:
            self.ugal_glob = r.is_global.tolist()
            self.ugal_group = r.group_of.tolist()
            self.ugal_bias = (2, r.threshold)

    def _ugal_route(self, s: int, d: int) -> tuple:
        """CSR entries of the base (MIN) route from switch ``s`` to ``d`` (cached)."""
        key = s * self.ugal_n + d
        r = self.ugal_routes.get(key)
        if r is None:
            if s == d:
                r = ()
            else:
                sw, _ = self.ugal_base.path(s, d)
                r = tuple(int(e) for e in self.ugal_base.view.entry(sw[:-1], sw[1:]))
            self.ugal_routes[key] = r
        return r

    def _create_ugal(self, t: int, src: int, dst: int) -> None:
        """:meth:`_create` for UGAL: the route is chosen at the source switch."""
        measured = self.measure_from <= t < self.measure_to
        if measured:
            self.measured_created += 1
        self.ctime_sum += t
        hs = self.host_switch
        if hs[src] == hs[dst]:
            p = _Packet(self.next_pid, src, dst, t, (self.inj_base + src, self.ej_base + dst),
                        (0,), 0, measured)
        else:  # links = -1: route still to choose (_choose_ugal)
            p = _Packet(self.next_pid, src, dst, t, (self.inj_base + src,), (0,), -1, measured)
        self.next_pid += 1
        self._enqueue_at_source(src, p, t)

    def _queue(self, o: int) -> int:
        """Output queue of network port ``o`` in flits (module docs)."""
        V = self.V
        c = self.credits
        b = o * V
        q = self.ugal_full - sum(c[b:b + V])
        wl = self.waiting.get(o)
        if wl:
            q += self.S * len(wl)
        return q

    def _choose_ugal(self, pkt: _Packet) -> None:
        """Give ``pkt`` (ready at its source switch) the UGAL path (module docs)."""
        if self.ugal_booksim:
            return self._choose_ugal_booksim(pkt)
        hs = self.host_switch
        s, d = hs[pkt.src], hs[pkt.dst]
        route = self._ugal_route
        best = route(s, d)
        queue = self._queue
        own, thr = self.ugal_own, self.ugal_thr

        if self.ugal_global:  # UGAL-G: the queues along the path
            def cost(path):
                return sum(queue(e) for e in path) + own * len(path)
        else:  # UGAL-L: hops x the queue of the first link
            def cost(path):
                return len(path) * (queue(path[0]) + own)

        bc = cost(best)
        n = self.ugal_n
        lo, hi = (s, d) if s < d else (d, s)
        draws = self.ugal_draws
        bi = 0
        for i in range(1, self.ugal_k + 1):
            if not draws:
                draws.extend(self.rng.random(_DRAWS).tolist())
            m = int(draws.pop() * (n - 2))
            if m >= lo:
                m += 1
            if m >= hi:
                m += 1
            c = route(s, m) + route(m, d)
            cc = cost(c) + thr
            if cc < bc:
                best, bc, bi = c, cc, i
        self.ugal_choices[bi] += 1
        pkt.ports = pkt.ports + best + (self.ej_base + pkt.dst,)
        pkt.vlo = (self.ugal_vlo[:len(best) + 1] if self.ugal_rfirst is None
                   else self.ugal_rfirst[len(best)])
        pkt.links = len(best)

    def _choose_ugal_booksim(self, pkt: _Packet) -> None:
        """BookSim ``ugal_dragonflynew``'s choice (:mod:`topogen.routing.ugal_booksim`): one
        random intermediate terminal; minimal when it is in the source group or
        ``q_min <= 2 q_nonmin + threshold`` with ``q`` the used credits (all VCs) of the
        first-hop ports; VC = phase (0 to the intermediate, 1 minimal, 2 from the
        minimal path's global hop on, or inside the source group)."""
        hs = self.host_switch
        s, d = hs[pkt.src], hs[pkt.dst]
        route = self._ugal_route
        grp, glob = self.ugal_group, self.ugal_glob
        first = ()
        if grp[s] == grp[d]:
            ph = 2
        else:
            draws = self.ugal_draws
            if not draws:
                draws.extend(self.rng.random(_DRAWS).tolist())
            m = hs[int(draws.pop() * len(hs))]
            ph = 1
            if grp[m] != grp[s]:
                mn, nm = route(s, d), route(s, m)
                V, c, full = self.V, self.credits, self.ugal_full
                q_min = full - sum(c[mn[0] * V:mn[0] * V + V])
                q_non = full - sum(c[nm[0] * V:nm[0] * V + V])
                factor, bias = self.ugal_bias
                if q_min > factor * q_non + bias:
                    first = nm
                    s = m
        self.ugal_choices[0 if not first else 1] += 1
        rest = route(s, d)
        kc = self.kcls
        vlo = [0] + [0] * len(first)
        for e in rest:
            if ph == 1 and glob[e]:
                ph = 2
            vlo.append(ph * kc)
        path = first + rest
        pkt.ports = pkt.ports + path + (self.ej_base + pkt.dst,)
        pkt.vlo = tuple(vlo)
        pkt.links = len(path)
