"""The reference simulator's network model: an event-driven, packet-level model of
input-buffered virtual-channel switches with credit-based flow control and virtual
cut-through switching.  See ``docs/sim.md`` for the model and its timing.

Ports
-----
Every channel is an *output port* of its upstream end:

* ``0 .. M-1``: the directed network links, numbered by CSR entry (``indptr[v] + rank``);
* ``M + h``: the ejection channel of host ``h`` (switch -> host);
* ``M + H + h``: the injection channel of host ``h`` (host -> switch).

Network and injection ports have ``num_vcs`` input buffers (of ``vc_buf_size`` flits) at
their downstream switch; buffer id = ``port * num_vcs + vc``.  Hosts sink every packet.

Timing of one packet (``S = packet_size`` cycles of serialisation, one flit per cycle):

* created at ``c``; the head of the source queue may start on the injection channel at
  ``c + injection_overhead`` (later if the queue or the channel is busy);
* a packet that starts on port ``p`` at ``t`` occupies ``p`` until ``t + S``; its head
  reaches the downstream buffer at ``t + lat[p]``;
* at a switch the head is ready to leave ``router_delay`` cycles after it reached the
  front of its input VC (routing + VC allocation + switch allocation + crossbar);
* with ``vc_alloc = "booksim"`` (the separable allocator's default) its head asks for an
  output VC one cycle before that and owns the VC it is granted until its tail has
  crossed the switch (BookSim's VC allocation stage, :mod:`topogen.sim._allocator`);
* it leaves on the output port when the port is free and its VC (``vc_alloc =
  "credits"``: a VC of its class) has credits for the whole packet (virtual
  cut-through); credits for its ``S`` flits come back to the
  upstream port ``S - 1 + lat[in] + credit_delay`` cycles after it started
  (``credit_delay`` only when the upstream end is a switch);
* with ``internal_speedup = s > 1`` the router delay is ``ceil(pipeline / s)``; with
  ``speedup_model = "rounds"`` (the default, BookSim's ``Router::Evaluate``) a switch runs
  ``s`` allocation rounds per cycle (:meth:`_send_rounds`): a packet granted in a round
  occupies its input and the crossbar's output ``S`` rounds, joins its output port's
  queue and starts on the channel when the port has sent what was queued before it; the
  input buffer is free when the tail has crossed (not before it has arrived) and the
  input's credits go back one flit per cycle.  With ``speedup_model = "pipeline"`` the
  input buffer is free (and the credits counted from) ``ceil(S / s)`` cycles after the
  packet started, but not before its tail has arrived;
* it is delivered when its tail reaches the host: ``t_ej + lat[ej] + S - 1``.

Routes come from the routing: precomputed per switch pair for deterministic routings
(:meth:`Network.route`), chosen hop by hop at run time for an escape routing
(:func:`topogen.routing.escape`): at each switch any minimal next hop on any adaptive VC
with credits for the whole packet, else the up*/down* escape next hop on the escape VC
(:meth:`Engine._choose`; ``docs/sim.md`` gives the rule), or per packet at the source
switch for UGAL-L / UGAL-G (:mod:`topogen.sim._ugal`: MIN vs ``k`` random Valiant paths),
or one up port per hop from the credits for ANCA on a fat tree (:mod:`topogen.sim._anca`).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ._adaptive import EscapeRouting, MinAdaptChoice
from ._anca import AncaChoice
from ._flatfly_choice import FlatflyChoice
from ._allocator import _VFREE, _VREQ, SeparableAllocator, round_offsets, roomiest_vc
from ._events import _ALLOC, _BLOCK, _CREDIT, _FREE, _IWAKE, _READY, _Packet
from ._ugal import UgalChoice, range_widths
from .config import ALLOCATORS, STOP_RULES, SimConfig
from .network import Network

__all__ = ["SimConfig", "Network", "Engine", "ALLOCATORS", "STOP_RULES"]


@dataclass
class Delivery:
    """Records of delivered packets (filled when ``Engine.record`` is True)."""

    pid: list = field(default_factory=list)
    src: list = field(default_factory=list)
    dst: list = field(default_factory=list)
    ctime: list = field(default_factory=list)
    injected: list = field(default_factory=list)
    delivered: list = field(default_factory=list)
    hops: list = field(default_factory=list)


class Engine(SeparableAllocator, EscapeRouting, FlatflyChoice, UgalChoice, AncaChoice, MinAdaptChoice):
    """The event loop and the mutable state of one simulation.

    Parameters
    ----------
    network : Network
    rng : numpy.random.Generator
        For random routings (Valiant) and the traffic generator.

    Notes
    -----
    Events are ``(cycle, sequence number, kind, argument)`` tuples in a binary heap, so
    events of the same cycle run in the order they were scheduled (deterministic).
    Packet creations live in their own queue (they are scheduled in time order) and run
    before the heap's events of the same cycle.
    """

    engine_name = "python"
    fallback = None  # why the compiled engine was not used (topogen.sim._compiled.engine_for)
    on_deliver_arrays = None  # the compiled engine's batch callback (unused here)

    def __init__(self, network: Network, rng: np.random.Generator):
        self.net = network
        self.rng = rng
        c = network.config
        v = c.num_vcs
        self.V = v
        self.S = c.packet_size
        self.D = c.router_delay
        self.G = c.rearm_cycles
        self.ovh = c.injection_overhead
        self.cdelay = c.credit_delay
        self.Sx = c.crossbar_cycles  # a buffered packet's time through the switch
        # internal_speedup > 1, speedup_model "rounds": allocation rounds per cycle
        self.rounds = c.speedup_rounds
        self.speedup = self.Sx != self.S and not self.rounds
        self.inj_buf0 = network.inj_base * v  # first injection buffer (credits go to a host)
        self.lat = network.latency.tolist()
        self.host_switch = network.host_switch.tolist()
        self.ej_base = network.ej_base
        self.inj_base = network.inj_base
        self.kcls = network.vcs_per_class
        # Valiant / UGAL with vc_ranges: VCs a packet may take per path length and port
        # (topogen.sim._ugal.range_widths; None: kcls, the VCs of one class)
        vr = range_widths(network)
        self.vr_first, self.vr_w = vr if vr is not None else (None, None)
        self.now = 0
        self.heap: list = []
        self.gen: deque = deque()
        self.seq = 0
        nb = network.num_ports * v
        self.credits = [c.vc_buf_size] * nb
        self.fifo: dict[int, deque] = {}
        self.front_free = {}
        self.busy = [0] * network.num_ports
        self.port_flits = [0] * network.num_ports  # flits sent on each port so far
        self.waiting: dict[int, list] = {}
        self.wake = set()
        self.iwake: dict[int, int] = {}
        # cycle from which each input port (the channel feeding a switch) can send the
        # next packet through the switch
        self.in_busy = [0] * network.num_ports
        self.srcq: dict[int, deque] = {}
        self.src_free = {}
        self.next_pid = 0
        self.in_network = 0
        self.in_source = 0
        self.last_move = 0
        self.deadlocked = False
        # a live network moves a packet at least every S + D + longest latency cycles
        slack = self.S + self.D + int(network.latency.max()) + c.credit_delay
        self.deadlock_cycles = max(int(c.deadlock_cycles), 4 * slack)
        # delivery bookkeeping
        self.record = False
        self.log = Delivery()
        self.on_deliver = None  # callable(pkt, t_tail)
        self.delivered_count = 0
        self.measure_from = 0
        self.measure_to = math.inf
        self.measured_created = 0
        self.ctime_sum = 0  # sum of creation times of the packets not yet delivered
        self.srcq_ctime = 0  # ... of those still in a source queue
        if self.rounds:
            self._setup_rounds(network)
        # adaptive routing with an escape channel (see _ready_adaptive)
        self.adaptive = network.adaptive
        self.separable = c.allocator == "separable" and not self.adaptive
        # BookSim's VC allocation stage (_allocator.py): a head asks for an output VC one
        # cycle before it may ask for the switch
        # (UGAL chooses its path when the packet is ready: no separate VC stage at packet
        # level; the flit-level engine allocates VCs itself and needs the stage's state)
        self.vca = (self.separable and (not network.ugal or c.flow_control == "wormhole")
                    and c.vc_alloc == "booksim" and c.router == "input-queued")
        self.ready_kind, self.ready_lead = (_VREQ, 1) if self.vca else (_READY, 0)
        if self.separable:
            self._setup_allocator(network)
        if self.adaptive:
            self.num_links = network.num_links
            self.indices_l = network._indices_l
            self.esc_phase = network._esc_phase
            self.escape_return = network.escape_return
        # UGAL-L / UGAL-G: the path is chosen at the source switch (_ugal.py)
        self.ugal = network.ugal
        if self.ugal:
            self._setup_ugal(network)
        # BookSim's adaptive flatfly routings: chosen at the source router (_flatfly_choice.py)
        if network.ffly:
            self._setup_ffly(network)
        # ANCA: the route grows hop by hop, up ports chosen from the credits (_anca.py)
        self.anca = network.anca
        if self.anca:
            self._setup_anca(network)

    # ------------------------------------------------------------ events
    def schedule(self, t: int, callback) -> None:
        """Call ``callback(t)`` at cycle ``t`` (used for traffic generation blocks)."""
        self.push(t, _BLOCK, callback)

    def push(self, t: int, kind: int, a) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, a))

    def inject(self, t: int, src: int, dst: int) -> None:
        """Schedule the creation of one packet at cycle ``t``.

        Creations must be scheduled in non-decreasing time order, at or after ``now``.
        """
        gen = self.gen
        if (gen and t < gen[-1][0]) or t < self.now:
            raise ParameterError(f"packets must be injected in time order (cycle {t} after "
                                 f"{gen[-1][0] if gen else self.now})")
        gen.append((t, src, dst))

    def inject_many(self, times, src, dst) -> None:
        """:meth:`inject` for arrays of packets (routes of table routings computed at once)."""
        hs = self.net.host_switch
        self.net.prefetch(hs[np.asarray(src, dtype=np.int64)], hs[np.asarray(dst, dtype=np.int64)])
        inject = self.inject
        for t, s, d in zip(np.asarray(times).tolist(), np.asarray(src).tolist(), np.asarray(dst).tolist()):
            inject(t, s, d)

    def source_heads(self) -> tuple[int, int]:
        """(number of non-empty source queues, sum of the creation times of their heads)."""
        heads = [q[0].ctime for q in self.srcq.values()]
        return len(heads), sum(heads)

    def _create(self, t: int, src: int, dst: int) -> None:
        net = self.net
        measured = self.measure_from <= t < self.measure_to
        if measured:
            self.measured_created += 1
        self.ctime_sum += t
        hs = self.host_switch
        ent, vlo = net.route(hs[src], hs[dst], self.rng)
        p = _Packet(self.next_pid, src, dst, t, (self.inj_base + src,) + ent + (self.ej_base + dst,),
                    (0,) + vlo, len(ent), measured)
        self.next_pid += 1
        self._enqueue_at_source(src, p, t)

    def _enqueue_at_source(self, src: int, p: _Packet, t: int) -> None:
        """Queue a new packet at host ``src``; an idle source schedules its head."""
        q = self.srcq.get(src)
        if q is None:
            self.srcq[src] = deque((p,))
            r = t + self.ovh
            ff = self.src_free.get(src, 0)
            self.seq += 1
            heapq.heappush(self.heap, (r if r > ff else ff, self.seq, _READY, p))
        else:
            q.append(p)
        self.in_source += 1
        self.srcq_ctime += t

    def run(self, until: int, stop_when_idle: bool = False) -> None:
        """Process events with time < ``until``; stops early on a deadlock.

        Deadlock: no packet advanced over a network link or into a host for
        ``deadlock_cycles`` cycles while packets are in the network (or no event is left
        while packets are in the network).
        """
        heap = self.heap
        gen = self.gen
        pop = heapq.heappop
        dl = self.deadlock_cycles
        V = self.V
        S = self.S
        credits = self.credits
        waiting = self.waiting
        adaptive = self.adaptive
        serve = (self._serve_adaptive if adaptive else
                 self._serve_switch if self.separable else self._serve)
        self._serve_any = serve
        ugal = self.ugal
        anca = self.anca
        create = (self._create_adaptive if adaptive else
                  self._create_ugal if ugal else self._create_anca if anca else self._create)
        ready_a = self._ready_adaptive
        allocate, vc_request, vc_free = self._allocate, self._vc_request, self._vc_free
        inf = math.inf
        while True:
            ht = heap[0][0] if heap else inf
            if gen and gen[0][0] <= ht:
                t = gen[0][0]
                if t >= until:
                    break
                self.now = t
                while gen and gen[0][0] == t:
                    _, s, d = gen.popleft()
                    create(t, s, d)
                continue
            if ht >= until:
                break
            t, _, kind, a = pop(heap)
            self.now = t
            if kind == _ALLOC:  # the most frequent kind first
                allocate(a, t)
            elif kind == _READY:
                if adaptive and a.hop:
                    ready_a(a, t)
                else:
                    if ugal and a.links < 0 and a.hop:
                        self._choose_ugal(a)
                    elif anca and a.hop == len(a.ports):
                        self._choose_anca(a)
                    o = a.ports[a.hop]
                    wl = waiting.get(o)
                    if wl is None:
                        waiting[o] = [a]
                    else:
                        wl.append(a)
                    serve(o, t)
            elif kind == _CREDIT:
                credits[a] += S
                o = a // V
                if o in waiting:
                    serve(o, t)
            elif kind == _FREE:
                self.wake.discard(a)
                if a in waiting:
                    serve(a, t)
            elif kind == _VREQ:
                if anca and a.hop == len(a.ports):
                    self._choose_anca(a)
                elif ugal and a.links < 0 and a.hop:  # adaptive flatfly (VC stage kept)
                    self._choose_ugal(a)
                vc_request(a, t)
            elif kind == _VFREE:
                vc_free(a, t)
            elif kind == _IWAKE:
                if self.iwake.get(a) == t:
                    del self.iwake[a]
                if a in waiting:
                    serve(a, t)
            else:  # _BLOCK
                a(t)
            if self.in_network and t - self.last_move > dl:
                self.deadlocked = True
                return
        if not heap and not gen and self.in_network:
            self.deadlocked = True
            return
        if not stop_when_idle and until != inf:
            self.now = max(self.now, until - 1)

    def _wake_when_free(self, o: int) -> None:
        """Serve output port ``o`` again when it frees (once: no second wake-up while one
        is pending); not before the next cycle (with allocation rounds a port may free in
        a later round of this cycle, which this cycle's allocation has seen)."""
        if o not in self.wake:
            self.wake.add(o)
            self.seq += 1
            t = self.busy[o]
            if t <= self.now:
                t = self.now + 1
            heapq.heappush(self.heap, (t, self.seq, _FREE, o))

    # ------------------------------------------------------------ allocation rounds
    def _setup_rounds(self, network: Network) -> None:
        """State of ``internal_speedup`` allocation rounds (``speedup_model="rounds"``).

        Round ``g = t * num // den + j`` is round ``j`` of cycle ``t`` (``internal_speedup =
        num / den``).  A port's ``busy`` / ``in_busy`` cycle comes with the round of that
        cycle from which it is free (``busy_j`` / ``in_j``); ``chan`` is the cycle from which
        an output channel is free (its queue drained), ``cred_free`` the cycle from which
        an input's credit channel is.  ``r_off[j]``: cycles after the allocation cycle a
        packet granted in round ``j`` may start on an idle channel.
        """
        c = network.config
        P = network.num_ports
        self.r_num, self.r_den = c.speedup_fraction
        self.busy_j = [0] * P
        self.in_j = [0] * P
        self.chan = [0] * P
        self.cred_free = [0] * P
        self.r_off = round_offsets(c)
        self.rdelay = c.routing_delay
        # a host takes up to num_vcs x vc_buf_size flits ahead of its ejection channel
        self.ej_room = c.num_vcs * c.vc_buf_size

    def _serve(self, o: int, now: int) -> None:
        """Let the first waiting packet that can go leave on output port ``o`` (first
        ready, first served: the ``fifo`` allocator, injection ports, escape routings).

        A packet can go when ``o`` is free and a VC of its class has credits for the
        whole packet.
        """
        busy = self.busy
        wl = self.waiting[o]
        if busy[o] > now:
            self._wake_when_free(o)
            return
        if self.ej_base <= o < self.inj_base:  # ejection: hosts always accept
            self._send(wl.pop(0), o, -1, now)
        else:
            S = self.S
            credits = self.credits
            base = o * self.V
            if self.vca and o >= self.inj_base:  # BookSim's hosts: round robin from the last VC
                V = self.V
                last = self.inj_last[o - self.inj_base]
                for i in range(1, V + 1):
                    x = base + (0 if last < 0 else (last + i) % V)
                    if credits[x] >= S:
                        self.inj_last[o - self.inj_base] = x - base
                        self._send(wl.pop(0), o, x, now)
                        break
                else:
                    return
            else:
                k = self.V if o >= self.inj_base else self.kcls
                vr_w = self.vr_w if o < self.inj_base else None
                for i, pkt in enumerate(wl):
                    lo = base + pkt.vlo[pkt.hop]
                    if vr_w is not None:
                        k = vr_w[pkt.links][pkt.hop]
                    if k == 1:
                        best = lo if credits[lo] >= S else -1
                    else:
                        best = roomiest_vc(credits, lo, lo + k, S)
                    if best >= 0:
                        del wl[i]
                        self._send(pkt, o, best, now)
                        break
                else:
                    return
        if not wl:
            del self.waiting[o]
        else:
            self._wake_when_free(o)

    def _send(self, pkt: _Packet, o: int, b: int, now: int) -> None:
        """``pkt`` starts on output port ``o`` (into buffer ``b``) at ``now``."""
        if self.rounds and o < self.inj_base:
            self._send_rounds(pkt, o, b, now, -1)
            return
        S = self.S
        end = now + S
        self.busy[o] = end
        self.port_flits[o] += S
        old = pkt.buf
        oarr = pkt.arr
        arr = now + self.lat[o]
        heap = self.heap
        push = heapq.heappush
        if b >= 0:
            self._enter_buffer(pkt, b, arr)
        pkt.hop += 1
        if old < 0:  # left the source queue (injection)
            src = pkt.src
            q = self.srcq[src]
            q.popleft()
            self._leave_source(pkt, now)
            self.src_free[src] = end
            if q:
                nxt = q[0]
                r = nxt.ctime + self.ovh
                self.seq += 1
                push(heap, (r if r > end else end, self.seq, _READY, nxt))
            else:
                del self.srcq[src]
        else:
            self.last_move = now
            if self.vca:  # the output VC is free for VC allocation once the tail has crossed
                self.seq += 1
                push(heap, (now + self.Sx, self.seq, _VFREE, self.ovc.pop(pkt.pid)))
            q = self.fifo[old]
            q.popleft()
            iend = end
            if self.speedup:  # the tail leaves the input buffer early ...
                iend = now + self.Sx
                if oarr + S > iend:  # ... but not before it has arrived
                    iend = oarr + S
            self.front_free[old] = iend
            self.in_busy[old // self.V] = iend
            cd = self.cdelay
            if cd and old >= self.inj_buf0:  # the upstream end is a host: no credit delay
                cd = 0
            self.seq += 1
            push(heap, (iend - 1 + self.lat[old // self.V] + cd, self.seq, _CREDIT, old))
            if q:
                nxt = q[0]
                self.seq += 1
                r = iend + self.G
                a = nxt.arr + self.D
                push(heap, ((a if a > r else r) - self.ready_lead, self.seq, self.ready_kind, nxt))
            else:
                del self.fifo[old]
        if b < 0:  # ejected
            self._deliver(pkt, arr + S - 1)

    def _enter_buffer(self, pkt, b: int, arr: int) -> None:
        """``pkt`` takes ``S`` credits of downstream input buffer ``b``, its head arriving
        at ``arr``; at the front of an empty buffer it is ready ``D`` cycles after that
        (not before the buffer's front is free again)."""
        self.credits[b] -= self.S
        q = self.fifo.get(b)
        pkt.buf = b
        pkt.arr = arr
        if q is None:
            self.fifo[b] = deque((pkt,))
            ff = self.front_free.get(b, 0)
            self.seq += 1
            r = ff + self.G
            a = arr + self.D
            heapq.heappush(self.heap, ((a if a > r else r) - self.ready_lead, self.seq, self.ready_kind, pkt))
        else:
            q.append(pkt)

    def _send_rounds(self, pkt: _Packet, o: int, b: int, now: int, j: int) -> None:
        """``pkt`` crosses the switch to output port ``o`` (into buffer ``b``, -1: its host)
        in allocation round ``j`` of cycle ``now`` (-1: the first round ``o`` is free in).

        Its ``S`` flits take the input and the crossbar's output for ``S`` rounds; it joins
        ``o``'s queue and starts on the channel at ``now + r_off[j]`` or when the channel
        has sent what was queued before it.  The input buffer frees the cycle after the
        tail crossed (not before the tail arrived); the input's credit channel returns one
        flit's credit per cycle, so the packet's credits leave when the last of them does.
        """
        S = self.S
        num, den = self.r_num, self.r_den
        busy = self.busy
        if j < 0:
            j = self.busy_j[o] if busy[o] == now else 0
        g = now * num // den + j
        start = now + self.r_off[j]
        ch = self.chan[o]
        if ch > start:
            start = ch
        self.chan[o] = start + S
        ge = g + S  # the crossbar's output is free from round ge
        c = ((ge + 1) * den + num - 1) // num - 1
        cj = ge - c * num // den
        if b < 0:  # a host: no more than ej_room flits queued for its channel
            cr = start + S + S - self.ej_room
            if cr > c:
                c, cj = cr, 0
        busy[o] = c
        self.busy_j[o] = cj
        self.port_flits[o] += S
        old = pkt.buf
        oarr = pkt.arr
        arr = start + self.lat[o]
        heap = self.heap
        push = heapq.heappush
        if b >= 0:
            self._enter_buffer(pkt, b, arr)
        pkt.hop += 1
        self.last_move = now
        V = self.V
        ip = old // V
        tr = g + S - 1  # the tail's round: not before the cycle it arrives in
        ta = (oarr + S - 1) * num // den
        if ta > tr:
            tr = ta
        ct = ((tr + 1) * den + num - 1) // num - 1
        iend = ct + 1
        tr += 1
        c1 = ((tr + 1) * den + num - 1) // num - 1
        self.in_busy[ip] = c1
        self.in_j[ip] = tr - c1 * num // den
        if self.vca:  # the output VC is free for VC allocation once the tail has crossed
            x = self.ovc.pop(pkt.pid)
            self.vfree_g[x] = tr
            if c1 > now:  # (a later round of this cycle: this allocation sees it)
                self.seq += 1
                push(heap, (c1, self.seq, _VFREE, x))
        q = self.fifo[old]
        q.popleft()
        self.front_free[old] = iend
        cs = now + S - 1  # the last credit's cycle on the input's credit channel
        x = self.cred_free[ip] + S - 1
        if x > cs:
            cs = x
        if ct > cs:
            cs = ct
        self.cred_free[ip] = cs + 1
        cd = self.cdelay
        if cd and old >= self.inj_buf0:  # the upstream end is a host: no credit delay
            cd = 0
        self.seq += 1
        push(heap, (cs + self.lat[ip] + cd, self.seq, _CREDIT, old))
        if q:
            nxt = q[0]
            self.seq += 1
            if self.vca:  # its VC allocation round: routing_delay rounds after it became
                # the front (round tr), not before its arrival's pipeline allows
                fv = tr + self.rdelay
                x = (nxt.arr + self.D) * num // den - 1
                if x > fv:
                    fv = x
                nxt.vr = fv
                push(heap, (((fv + 1) * den + num - 1) // num - 1, self.seq, _VREQ, nxt))
            else:
                r = iend + self.G
                a = nxt.arr + self.D
                push(heap, (a if a > r else r, self.seq, _READY, nxt))
        else:
            del self.fifo[old]
        if b < 0:  # ejected
            self._deliver(pkt, arr + S - 1)

    def _leave_source(self, pkt: _Packet, t: int) -> None:
        """Count a packet whose head leaves its host's source queue for the network at ``t``."""
        self.in_source -= 1
        self.srcq_ctime -= pkt.ctime
        if not self.in_network:
            self.last_move = t
        self.in_network += 1
        pkt.sent = t

    def _deliver(self, pkt: _Packet, tail: int) -> None:
        """Count a packet whose tail reaches its host at ``tail`` (and log it if recording)."""
        self.in_network -= 1
        self.delivered_count += 1
        self.ctime_sum -= pkt.ctime
        if self.record:
            lg = self.log
            lg.pid.append(pkt.pid)
            lg.src.append(pkt.src)
            lg.dst.append(pkt.dst)
            lg.ctime.append(pkt.ctime)
            lg.injected.append(pkt.sent)
            lg.delivered.append(tail)
            lg.hops.append(pkt.links)
        if self.on_deliver is not None:
            self.on_deliver(pkt, tail)

    # ------------------------------------------------------------ deadlock analysis
    def deadlocked_buffers(self) -> list[int]:
        """Input buffers whose packets can never move again (a knot of waiting packets).

        The front packet of a buffer is *blocked* when it waits for an output port whose
        VCs of its class all lack credits for it, counting credits still on their way
        back.  It will move eventually if one of those VC buffers will drain (is not
        blocked itself, or depends on a buffer that will drain ...).  What is left after
        propagating this is deadlocked: a partial deadlock is found while the rest of the
        network still moves.  Ejection ports and free credits always drain.
        """
        V, S = self.V, self.S
        pending: dict[int, int] = {}
        for t, _, kind, a in self.heap:
            if kind == _CREDIT:
                pending[a] = pending.get(a, 0) + S
        waiting_ids = {id(p) for wl in self.waiting.values() for p in wl}
        credits = self.credits
        deps: dict[int, list[int]] = {}
        vca = self.vca
        va_ids = {id(p) for pend in self.va_pend for p in pend} if vca else ()
        for b, q in self.fifo.items():
            f = q[0]
            if id(f) in va_ids:  # waits for an output VC: blocked while its owners are
                lo, hi = self._vc_range(f)
                owners = [self.owner[x] for x in range(lo, hi)]
                if any(w is None or self.ovc.get(w.pid) != x for x, w in zip(range(lo, hi), owners)):
                    continue  # a VC is free or will be (its owner has left)
                deps[b] = [w.buf for w in owners]
                continue
            if id(f) not in waiting_ids:
                continue  # its pipeline is still running: it will request a port
            if self.adaptive and f.hop:
                if f.at == f.dsw:
                    continue  # waits for its ejection port
                targets = [x for _, b0, b1 in f.opts_a for x in range(b0, b1)]
                targets.extend(range(f.opt_e[1], f.opt_e[2]))
            else:
                o = f.ports[f.hop]
                if self.ej_base <= o < self.inj_base:
                    continue
                if vca:
                    targets = [self.ovc[f.pid]]
                else:
                    k = V if o >= self.inj_base else self.kcls
                    if self.vr_w is not None and o < self.inj_base:
                        k = self.vr_w[f.links][f.hop]
                    lo = o * V + f.vlo[f.hop]
                    targets = list(range(lo, lo + k))
            if any(credits[x] + pending.get(x, 0) >= S for x in targets):
                continue
            deps[b] = targets
        dead = set(deps)
        changed = True
        while changed:
            changed = False
            for b in list(dead):
                if any(x not in dead for x in deps[b]):
                    dead.discard(b)
                    changed = True
        return sorted(dead)

    # ------------------------------------------------------------ invariants
    def idle(self) -> bool:
        """True when no packet is anywhere in the network or a source queue."""
        return not self.in_network and not self.in_source

    def credits_restored(self) -> bool:
        """True when every buffer has all its credits back (no flit held anywhere)."""
        full = self.net.config.vc_buf_size
        return all(c == full for c in self.credits) and not self.fifo
