"""ANCA, the adaptive nearest-common-ancestor routing of a k-ary n-tree
(:func:`topogen.routing.anca`), in the reference simulator's
:class:`~topogen.sim.model.Engine` (a mixin: the engine's state lives on the engine).

A packet is created with only its injection port.  Each time its head is routed at a
switch (when it is ready to leave, or with BookSim's VC allocation stage when it asks for
an output VC) the engine extends its route by one port:

* at a switch that is not an ancestor of the destination leaf, one of the ``k`` up links:
  ``select="queue"``: the one with the shortest output queue, in flits: the credits in use
  on it (summed over the VCs the packet may use there: flits held or reserved downstream)
  plus ``packet_size`` for every packet at this switch already routed to it and not yet
  sent (waiting for the link or for an output VC); ties drawn uniformly from the
  simulation's generator.  Counting the routed packets keeps the packets routed in one
  burst from all taking the same link, which the credits alone (taken only when a packet
  is sent) cannot do: on a 4-ary 2-tree under uniform traffic with 1-flit packets the
  credits alone accept 0.65 flits/node/cycle, the queue 0.73;
  ``select="booksim"``: BookSim2's ``anca_fattree``: two up links drawn uniformly, the one
  with fewer used credits (ties to the first draw);
* at an ancestor, the rest of the route: the one path down and the ejection port.

The packet then waits for that port like a packet of a table routing (the port is fixed
once chosen, as BookSim fixes it at its routing stage).  Every hop uses routing VC 0.
"""

from __future__ import annotations

from ._events import _Packet

#: uniform draws fetched from the generator at a time
_DRAWS = 4096


class AncaChoice:
    """The engine's per-hop ANCA choice."""

    def _setup_anca(self, net) -> None:
        r = net.routing
        sh = r.shape
        self.anca_k = sh.k
        self.anca_per_level = sh.per_level
        self.anca_leaf0 = sh.leaf0
        self.anca_span = sh.span.tolist()
        self.anca_weight = sh.weight.tolist()
        self.anca_booksim = r.select == "booksim"
        self.anca_draws: list[float] = []
        self.anca_indptr = net.indptr.tolist()
        self.anca_indices = net.indices.tolist()
        self.anca_vlo = (0,) * (2 * sh.n + 1)  # routing VC 0 on every hop

    def _create_anca(self, t: int, src: int, dst: int) -> None:
        """:meth:`_create` for ANCA: the route grows hop by hop (:meth:`_choose_anca`)."""
        measured = self.measure_from <= t < self.measure_to
        if measured:
            self.measured_created += 1
        self.ctime_sum += t
        hs = self.host_switch
        if hs[src] == hs[dst]:
            p = _Packet(self.next_pid, src, dst, t, (self.inj_base + src, self.ej_base + dst),
                        (0,), 0, measured)
        else:
            p = _Packet(self.next_pid, src, dst, t, (self.inj_base + src,), self.anca_vlo, -1,
                        measured)
            p.at = hs[src]
            p.dsw = hs[dst]
        self.next_pid += 1
        self._enqueue_at_source(src, p, t)

    def _draw(self) -> float:
        draws = self.anca_draws
        if not draws:
            draws.extend(self.rng.random(_DRAWS).tolist())
        return draws.pop()

    def _choose_anca(self, pkt: _Packet) -> None:
        """Extend ``pkt``'s route at its current switch (module docs)."""
        v, d = pkt.at, pkt.dsw
        P = self.anca_per_level
        level = v // P
        sp = self.anca_span[level]
        dpos = d - self.anca_leaf0
        lo = self.anca_indptr[v]
        k = self.anca_k
        if (v % P) // sp == dpos // sp:  # an ancestor: the path down, then eject
            ents = []
            indices = self.anca_indices
            indptr = self.anca_indptr
            weight = self.anca_weight
            n1 = len(self.anca_span) - 1
            while level < n1:
                e = lo + (k if level else 0) + (dpos // weight[level]) % k
                ents.append(e)
                v = indices[e]
                level += 1
                lo = indptr[v]
            pkt.ports = pkt.ports + tuple(ents) + (self.ej_base + pkt.dst,)
            pkt.links = len(pkt.ports) - 2
            pkt.at = v
            return
        credits = self.credits
        V = self.V
        kc = self.kcls  # VCs of routing class 0
        if self.anca_booksim:
            r1 = lo + int(self._draw() * k)
            r2 = lo + int(self._draw() * k)
            f1 = sum(credits[r1 * V:r1 * V + kc])
            f2 = sum(credits[r2 * V:r2 * V + kc])
            o = r2 if f1 < f2 else r1  # fewer used credits = more free ones
        # the shortest queue: most free credits minus the packets routed to the link
        else:
            S = self.S
            waiting = self.waiting
            pend = self.va_pend[v] if self.vca else ()
            best, ties = None, []
            for e in range(lo, lo + k):
                f = sum(credits[e * V:e * V + kc])
                wl = waiting.get(e)
                if wl:
                    f -= S * len(wl)
                for p in pend:
                    if p.ports[p.hop] == e:
                        f -= S
                if best is None or f > best:
                    best, ties = f, [e]
                elif f == best:
                    ties.append(e)
            o = ties[0] if len(ties) == 1 else ties[int(self._draw() * len(ties))]
        pkt.ports = pkt.ports + (o,)
        pkt.at = self.anca_indices[o]
