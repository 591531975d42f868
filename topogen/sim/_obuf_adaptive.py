"""SST merlin's randomised and adaptive routings on the output-buffered router
(:class:`MerlinChoiceEngine`): merlin.dragonfly's ``valiant``, ``ugal``, ``adaptive-local`` and
``min-a``, merlin.hyperx's ``valiant``, ``DOAL`` and ``MIN-A``, merlin.fattree's ``adaptive``
(:mod:`topogen.routing.merlin_adaptive`).

merlin draws a packet's intermediate in ``process_input``, when the packet enters the
network at its source router, from that router's generator; it routes a packet when the
packet becomes the head of its input VC buffer (``PortControl``: on arrival into an empty
buffer, or when the packet ahead leaves), reading ``output_queue_lengths``: the flits in
the output buffer of each (port, VC) of the router, raised when the crossbar moves a
packet in and lowered when the output port starts sending it (hr_router's default: no
``oql_track_port`` / ``oql_track_remote`` on network ports).  Here:

* a packet's draws are made when it enters the network (its head leaves the source
  queue; merlin's ``process_input`` runs when it reaches the router, one link later, in
  the same order), from its source router's generator:
  with the routing's ``draws="seed"`` one stream of 32-bit numbers from the simulation's
  generator (its one seed), with ``draws="merlin"`` one SST ``XORShiftRNG`` per router
  seeded with the router id + 1, as merlin seeds them
  (:class:`topogen.routing.merlin_adaptive.XorShift`), fresh for every engine;
* a randomised routing (``valiant``) gets its whole route then
  (:meth:`~topogen.routing.merlin_adaptive.MerlinRouting.draw_path`);
* a routing with ``run_time_choices`` gets its per-packet state then
  (:meth:`~topogen.routing.merlin_adaptive.MerlinRouting.start`); the crossbar
  (:meth:`OutputBufferedEngine._crossbar`) calls :meth:`MerlinChoiceEngine._adapt` for a
  head whose route is not complete (``links < 0``) the first time it looks at it at a
  router: the routing's ``choose`` gets ``queue(link, vc) = output_buf_size - free
  space`` of that router's output buffers (merlin's count) and the VC the packet came in
  on, and ``space(link, vc)``, the free flits (merlin's ``output_credits``, ``space.size``
  the buffer's size); the hops it returns are appended to the route with their VCs (one
  output buffer per VC class, ``obuf_vcs="routing"``), and the ejection port when they
  reach the destination, with the routing's ejection VC (``eject_vc``);
* a routing with ``host_routes`` (the fat tree's: its route depends on the destination
  host) gets host ids in ``draw_path`` and ``start`` instead of switch ids.

The choice is made when the crossbar first looks at the head with its input port free,
half a cycle or more after SST's event handler routes it (:mod:`topogen.sim._obuf`'s
timing notes): the queues it reads are those of that crossbar cycle.
"""

from __future__ import annotations

from ..errors import ParameterError
from ._events import _Packet
from ._obuf import _VCS, OutputBufferedEngine

__all__ = ["MerlinChoiceEngine"]

#: 32-bit numbers fetched from the simulation's generator at a time (draws="seed")
_DRAWS = 4096


class _ChoicePacket(_Packet):
    __slots__ = ("state",)


class MerlinChoiceEngine(OutputBufferedEngine):
    """:class:`OutputBufferedEngine` with a merlin routing's draws and run-time choices
    (module docs); :func:`topogen.sim._compiled.engine_for` takes it for a routing with
    ``merlin_engine``.

    Raises
    ------
    ParameterError
        ``obuf_vcs`` other than ``"routing"`` for a routing with run-time choices (they
        read the queues of merlin's own VCs).
    """

    def __init__(self, network, rng):
        if network.config.obuf_vcs != "routing" and network.routing.run_time_choices:
            raise ParameterError(
                f"{network.routing.algorithm} chooses its hops from the queues of merlin's own VCs: use the "
                "output-buffered router with obuf_vcs='routing'")
        super().__init__(network, rng)
        r = network.routing
        self.mroute = r
        self.choosing = bool(r.run_time_choices)
        self.oflits = network.config.output_buffer_flits
        self.entry_of = r.entry_of
        self.u32: dict = {}  # router -> its generator (draws="merlin")
        self.pool: list = []  # 32-bit numbers from the simulation's generator (draws="seed")

        def space(e, vc):
            return self._space(e, vc)

        space.size = self.oflits  # the output buffer's flits (merlin's initial output_credits)
        self.space = space

    def _gen(self, sw: int):
        """Router ``sw``'s source of 32-bit numbers."""
        if self.mroute.draws == "merlin":
            g = self.u32.get(sw)
            if g is None:
                from ..routing.merlin_adaptive import XorShift

                g = self.u32[sw] = XorShift(sw + 1)
            return g
        return self._pooled

    def _pooled(self) -> int:
        pool = self.pool
        if not pool:
            pool.extend(self.rng.integers(0, 1 << 32, size=_DRAWS, dtype="uint64").tolist())
        return pool.pop()

    def _queue(self, e: int, vc: int) -> int:
        """Flits in the output buffer of link ``e``'s VC ``vc`` (merlin's output_queue_lengths)."""
        return self.oflits - self.ospace[e * _VCS + vc]

    def _space(self, e: int, vc: int) -> int:
        """Free flits in the output buffer of link ``e``'s VC ``vc`` (merlin's output_credits)."""
        return self.ospace[e * _VCS + vc]

    def _create(self, t: int, src: int, dst: int) -> None:
        measured = self.measure_from <= t < self.measure_to
        if measured:
            self.measured_created += 1
        self.ctime_sum += t
        hs = self.host_switch
        s, d = hs[src], hs[dst]
        r = self.mroute
        inj, ej = self.inj_base + src, self.ej_base + dst
        if s == d and not r.routes_self:
            p = _ChoicePacket(self.next_pid, src, dst, t, (inj, ej), (0,), 0, measured)
        else:  # links = -1: drawn when it enters the network (_leave_source), chosen as it goes (_adapt)
            p = _ChoicePacket(self.next_pid, src, dst, t, (inj,), (0,), -1, measured)
        p.state = None
        self.next_pid += 1
        self._enqueue_at_source(src, p, t)

    def _leave_source(self, pkt, t: int) -> None:
        """merlin's ``process_input``: the draws of a packet entering the network at its
        source router, in the order packets enter it."""
        super()._leave_source(pkt, t)
        if pkt.links >= 0 or pkt.state is not None:
            return
        r = self.mroute
        hs = self.host_switch
        s, d = hs[pkt.src], hs[pkt.dst]
        a, b = (pkt.src, pkt.dst) if r.host_routes else (s, d)  # host-dependent routes take hosts
        if self.choosing:
            pkt.state = r.start(a, b, self._gen(s))
            return
        sw, vcs = r.draw_path(a, b, self._gen(s))
        ent = self.entry_of
        ports = tuple(ent[u, w] for u, w in zip(sw[:-1], sw[1:]))
        pkt.ports = pkt.ports + ports + (self.ej_base + pkt.dst,)
        k = self.kcls
        pkt.vlo = (0,) + tuple(v * k for v in vcs) + (r.eject_vc(sw, vcs) * k,)
        pkt.links = len(ports)

    def _adapt(self, pkt, sw: int) -> None:
        """The routing's choice for the head ``pkt`` at switch ``sw`` (once per router)."""
        if len(pkt.ports) > pkt.hop:
            return
        k = self.kcls
        nxt, vcs, done = self.mroute.choose(pkt.state, sw, pkt.vlo[-1] // k, self._queue, self._gen(sw),
                                            self.space)
        ent = self.entry_of
        prev = sw
        ports = []
        for w in nxt:
            ports.append(ent[prev, w])
            prev = w
        pkt.ports = pkt.ports + tuple(ports)
        pkt.vlo = pkt.vlo + tuple(v * k for v in vcs)
        if done:
            pkt.ports = pkt.ports + (self.ej_base + pkt.dst,)
            pkt.links = len(pkt.ports) - 2
            last = nxt[-2] if len(nxt) > 1 else sw
            pkt.vlo = pkt.vlo + (self.mroute.eject_vc([last, nxt[-1]], [pkt.vlo[-1] // k]) * k,)
