"""Wormhole flow control at flit level for the reference simulator
(``SimConfig(flow_control="wormhole")``): BookSim2's IQ router as topogen's BookSim setups
configure it, one flit at a time.

The packet-level engine (:class:`topogen.sim.model.Engine`) moves a packet when its output
VC has credits for all of it (virtual cut-through) and returns its credits with the tail.
BookSim (``routers/iq_router.cpp``, ``buffer_state.cpp``, ``trafficmanager.cpp``) differs
in these rules, which this engine follows:

* a flit crosses the switch when its output VC is not full (one credit), so a packet can
  stand in several routers' VCs at once;
* one credit per flit, back at the upstream router ``lat + 1 + credit_delay`` cycles after
  the flit left the buffer (``lat`` at a host: BookSim's traffic manager reads credits
  before it injects);
* switch allocation is per flit; with ``hold_switch_for_packet = 1`` (the ``vct33``
  setup) a packet that won the switch keeps its input and output while its next flit is
  already buffered and its output VC has a credit; when its buffer runs empty, or the
  output VC is full, the connection is released and the packet competes again (flits of
  packets on different VCs then interleave on a channel);
* an output VC is owned from VC allocation until the tail crosses the switch (as in the
  packet-level engine's ``vc_alloc = "booksim"``); the injection VC of a host is the first
  one after the last packet's that is not full, and a host sends one flit per cycle.

Timing (cycles, ``D = router_delay``, ``G = rearm_cycles``): a flit that crosses the
switch at ``s`` onto a port of latency ``lat`` is in the downstream buffer at
``s + lat + D - G`` and a body flit may cross again from then on; a head at the front of
its VC asks for an output VC ``G - 1`` cycles after it got there (its arrival, or the
cycle after the previous tail left) and for the switch from the next cycle: a lone packet
has exactly the packet-level engine's latency (``Network.zero_load_latency``).  Table
routings, and BookSim dragonflynew's ``ugal`` (``ugal-booksim``: the route is chosen when
the head first asks for an output VC at the source router, from the used credits of the
two first-hop ports, :mod:`topogen.sim._ugal`); the knot analysis is not done (a
deadlock is found by the stall detector).
"""

from __future__ import annotations

import heapq
import math
from collections import deque

from ..errors import ParameterError
from ._allocator import nearest_free_vc
from .model import Engine

__all__ = ["WormholeEngine"]


class WormholeEngine(Engine):
    """Cycle-driven flit-level engine with BookSim's wormhole IQ router (see the module
    docstring); the same interface as :class:`~topogen.sim.model.Engine`.

    Parameters
    ----------
    network : Network
        Its config has ``flow_control = "wormhole"``.
    rng : numpy.random.Generator
    """

    engine_name = "python"
    #: cycles a router's credit takes beyond the channel latency (BookSim: the credit is
    #: written to the channel in the cycle its flit leaves the buffer and read the cycle
    #: after it arrives); 0 replays the packet-level engine's credit timing
    router_credit_extra = 1

    def __init__(self, network, rng):
        if network.adaptive or (network.ugal and network.routing.variant != "booksim"):
            raise ParameterError("flow_control='wormhole' takes table routings and ugal-booksim (not escape "
                                 "or UGAL-L/G, which read packet-level queues); use flow_control='vct'")
        if getattr(network.routing, "vc_ranges", False):
            raise ParameterError("flow_control='wormhole' takes one VC class per hop, not vc_ranges; "
                                 "use flow_control='vct' or a routing without vc_ranges")
        super().__init__(network, rng)
        V = self.V
        nb = network.num_ports * V
        self.qs: dict[int, deque] = {}  # input buffer -> flits (avail, packet, index, hop)
        self.ovc_b = [-1] * nb  # output VC (buffer id) held by the front packet of a buffer
        self.va_at = [0] * nb  # cycle the front head of a buffer asks for an output VC
        self.sa_from = [0] * nb  # first cycle it may ask for the switch
        self.tail_free = [0] * nb  # the cycle after the last tail left a buffer
        self.hold_in: dict[int, int] = {}  # input port -> buffer holding the switch
        self.hold_out: dict[int, int] = {}  # output port -> input port holding it
        self.credit_ev: list = []  # (cycle, buffer): one credit back to the upstream end
        self.cur: dict[int, list] = {}  # host -> [packet, next flit, injection buffer]
        self.hosts_on: set = set()  # hosts with a packet to send
        ind = network.indices.tolist()
        self.in_switch = ind + [-1] * network.num_hosts + network.host_switch.tolist()
        self.sw_bufs = [set() for _ in range(network.num_switches)]
        self.sw_on: set = set()
        self.flit_hop = self.D - self.G  # a flit's cycles from crossing to the next buffer
        self._t = 0  # next cycle to simulate
        if network.min_adapt:  # BookSim's min_adapt_torus: offers chosen per hop (_adaptive.py)
            self._setup_min_adapt(network)

    # ------------------------------------------------------------ sources
    def _enqueue_at_source(self, src: int, p, t: int) -> None:
        q = self.srcq.get(src)
        if q is None:
            self.srcq[src] = deque((p,))
        else:
            q.append(p)
        self.hosts_on.add(src)
        self.in_source += 1
        self.srcq_ctime += t

    def _host_step(self, h: int, t: int) -> None:
        """Host ``h`` sends at most one flit at ``t`` (BookSim's traffic manager)."""
        credits = self.credits
        V = self.V
        cur = self.cur.get(h)
        if cur is None:
            q = self.srcq.get(h)
            if not q:
                self.hosts_on.discard(h)
                return
            pkt = q[0]
            if t < pkt.ctime + self.ovh:
                return
            o = self.inj_base + h
            base = o * V
            last = self.inj_last[h]
            for i in range(1, V + 1):
                x = base + (0 if last < 0 else (last + i) % V)
                if credits[x] > 0:
                    break
            else:
                return
            self.inj_last[h] = x - base
            q.popleft()
            if not q:
                del self.srcq[h]
            self._leave_source(pkt, t)
            k = 0
        else:
            pkt, k, x = cur
            if credits[x] <= 0:
                return
            o = x // V
        credits[x] -= 1
        self.port_flits[o] += 1
        self._arrive(x, (t + self.lat[o] + self.flit_hop, pkt, k, 1))
        if k + 1 < self.S:
            self.cur[h] = [pkt, k + 1, x]
        elif cur is not None:
            del self.cur[h]

    # ------------------------------------------------------------ buffers
    def _arrive(self, x: int, flit) -> None:
        """Queue ``flit`` in input buffer ``x`` (it is there from ``flit[0]`` on)."""
        dq = self.qs.get(x)
        if dq is None:
            self.qs[x] = deque((flit,))
            sw = self.in_switch[x // self.V]
            self.sw_bufs[sw].add(x)
            self.sw_on.add(sw)
            if flit[2] == 0:
                a, tf = flit[0], self.tail_free[x]
                self.va_at[x] = (a if a > tf else tf) + self.G - 1
        else:
            dq.append(flit)

    def _send_flit(self, b: int, x: int, o: int, t: int) -> None:
        """The front flit of input buffer ``b`` crosses the switch at ``t`` onto port ``o``
        (into output VC ``x``)."""
        V = self.V
        dq = self.qs[b]
        avail, pkt, k, h = dq.popleft()
        self.port_flits[o] += 1
        self.last_move = t
        ip = b // V
        if ip >= self.inj_base:
            ct = t + self.lat[ip]
        else:
            ct = t + self.lat[ip] + self.cdelay + self.router_credit_extra
        heapq.heappush(self.credit_ev, (ct, b))
        tail = k == self.S - 1
        if o < self.ej_base:
            self.credits[x] -= 1
            self._arrive(x, (t + self.lat[o] + self.flit_hop, pkt, k, h + 1))
        elif tail:
            self._deliver(pkt, t + self.lat[o])
        hold_in, hold_out = self.hold_in, self.hold_out
        if tail:
            self.owner[x] = None
            self.ovc_b[b] = -1
            self.tail_free[b] = t + 1
            if hold_in.get(ip) == b:
                del hold_in[ip]
                del hold_out[o]
            if dq:
                a = dq[0][0]
                self.va_at[b] = (a if a > t + 1 else t + 1) + self.G - 1
        elif dq and dq[0][0] <= t:  # the next flit is buffered: keep the connection
            hold_in[ip] = b
            hold_out[o] = ip
        elif hold_in.get(ip) == b:
            del hold_in[ip]
            del hold_out[o]
        if not dq:
            del self.qs[b]
            self.sw_bufs[self.in_switch[ip]].discard(b)

    # ------------------------------------------------------------ one switch, one cycle
    def _switch_step(self, sw: int, t: int) -> None:
        bufs = self.sw_bufs[sw]
        if not bufs:
            self.sw_on.discard(sw)
            return
        V = self.V
        qs = self.qs
        ovc_b = self.ovc_b
        va = [b for b in bufs if ovc_b[b] < 0 and self.va_at[b] <= t]
        if va:
            self._wvc_allocate(sw, sorted(va), t)
        credits = self.credits
        ej0 = self.ej_base
        hold_in, hold_out = self.hold_in, self.hold_out
        held_send, held_drop = [], []
        per_in: dict = {}  # input port -> {output: buffer}
        vptr = self.vc_ptr
        sa_from = self.sa_from
        for b in sorted(bufs):
            x = ovc_b[b]
            if x < 0:
                continue
            ip = b // V
            hb = hold_in.get(ip)
            o = x // V
            if hb is not None:
                if hb == b:  # a held connection: its next flit is buffered
                    if o >= ej0 or credits[x] > 0:
                        held_send.append((b, x, o))
                    else:
                        held_drop.append((ip, o))
                continue
            if sa_from[b] > t or qs[b][0][0] > t or o in hold_out:
                continue
            if o < ej0 and credits[x] <= 0:
                continue
            reqs = per_in.get(ip)
            if reqs is None:
                per_in[ip] = {o: b}
            else:
                old = reqs.get(o)
                if old is None or (b - vptr[ip]) % V < (old - vptr[ip]) % V:
                    reqs[o] = b
        for b, x, o in held_send:
            self._send_flit(b, x, o, t)
        if per_in:
            olocal, ilocal = self.out_local, self.in_local
            n = self.sw_ports[sw]
            iptr, optr = self.in_ptr, self.out_ptr
            chosen: dict = {}  # output -> [(input, buffer)]
            for ip, reqs in per_in.items():
                if len(reqs) > 1:
                    p0 = iptr[ip]
                    o = min(reqs, key=lambda y: (olocal[y] - p0) % n)
                else:
                    o = next(iter(reqs))
                chosen.setdefault(o, []).append((ip, reqs[o]))
            for o in sorted(chosen):
                cands = chosen[o]
                if len(cands) > 1:
                    p0 = optr[o]
                    ip, b = min(cands, key=lambda c: (ilocal[c[0]] - p0) % n)
                else:
                    ip, b = cands[0]
                optr[o] = (ilocal[ip] + 1) % n
                iptr[ip] = (olocal[o] + 1) % n
                vptr[ip] = (b % V + 1) % V
                self._send_flit(b, ovc_b[b], o, t)
        for ip, o in held_drop:  # released after this cycle's allocation (BookSim's order)
            if hold_in.get(ip) is not None:
                del hold_in[ip]
                del hold_out[o]

    def _wvc_allocate(self, sw: int, reqs: list, t: int) -> None:
        """BookSim's separable input-first VC allocation (as ``_vc_allocate`` of the
        packet-level engine) for the heads at the front of buffers ``reqs``."""
        owner = self.owner
        V = self.V
        olocal, ilocal = self.out_local, self.in_local
        nv = self.sw_ports[sw] * V
        iptr, optr = self.va_iptr, self.va_optr
        chosen: dict = {}
        for b in reqs:
            _, pkt, _, h = self.qs[b][0]
            if pkt.links < 0:  # ugal-booksim: the route is chosen at the source router (_ugal.py)
                self._choose_ugal(pkt)
            if self.min_adapt:
                best = self._min_adapt_pick(b, pkt, h, iptr[b], nv)
            else:
                o = pkt.ports[h]
                if o >= self.ej_base:
                    lo, hi = o * V, o * V + V
                else:
                    lo = o * V + pkt.vlo[h]
                    hi = lo + self.kcls
                ol = olocal[o] * V - o * V
                best = nearest_free_vc(owner, lo, hi, ol, iptr[b], nv)
            if best >= 0:
                chosen.setdefault(best, []).append(b)
        for x in sorted(chosen):
            cands = chosen[x]
            p0 = optr[x]
            b = min(cands, key=lambda c: (ilocal[c // V] * V + c % V - p0) % nv)
            owner[x] = b
            self.ovc_b[b] = x
            if self.min_adapt:
                self._min_adapt_granted(b, x)
            self.sa_from[b] = t + 1
            iptr[b] = (olocal[x // V] * V + x % V + 1) % nv
            optr[x] = (ilocal[b // V] * V + b % V + 1) % nv

    # ------------------------------------------------------------ the loop
    def run(self, until, stop_when_idle: bool = False) -> None:
        """Simulate cycles ``< until`` (cycle by cycle while anything is in flight; idle
        stretches are skipped); stops early on a deadlock (no flit moved for
        ``deadlock_cycles`` cycles with packets in the network)."""
        heap, gen = self.heap, self.gen
        ce = self.credit_ev
        credits = self.credits
        create = self._create_ugal if self.ugal else self._create
        dl = self.deadlock_cycles
        t = self._t
        inf = math.inf
        while t < until:
            if not self.in_network and not self.hosts_on:
                nt = min(heap[0][0] if heap else inf, gen[0][0] if gen else inf)
                if nt == inf or nt >= until:
                    if not stop_when_idle and until != inf:
                        t = until
                    break
                if nt > t:
                    t = nt
            self.now = t
            while heap and heap[0][0] <= t:
                _, _, _, cb = heapq.heappop(heap)  # traffic blocks (Engine.schedule)
                cb(t)
            while gen and gen[0][0] <= t:
                _, s, d = gen.popleft()
                create(t, s, d)
            while ce and ce[0][0] <= t:
                credits[heapq.heappop(ce)[1]] += 1
            for h in sorted(self.hosts_on):
                self._host_step(h, t)
            for sw in sorted(self.sw_on):
                self._switch_step(sw, t)
            t += 1
            if self.in_network and t - 1 - self.last_move > dl:
                self.deadlocked = True
                self._t = t
                return
        self._t = t
        if not stop_when_idle and until != inf:
            self.now = max(self.now, until - 1)

    # ------------------------------------------------------------ analysis
    def deadlocked_buffers(self) -> list[int]:
        """Not done at flit level: a deadlock is found by the stall detector."""
        return []

    def credits_restored(self) -> bool:
        """True when every buffer has all its credits back, counting those on their way."""
        full = self.net.config.vc_buf_size
        got = list(self.credits)
        for _, x in self.credit_ev:
            got[x] += 1
        return not self.qs and all(c == full for c in got)
