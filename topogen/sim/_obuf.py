"""The output-buffered router of the reference simulator (``SimConfig(router=
"output-buffered")``): SST merlin's ``hr_router`` with ``merlin.anytopo``'s VCs, on the
pure-Python engine.  See ``docs/sst.md`` ("The output-buffered router") for the merlin
source facts this model follows.

Model (all times in cycles of one flit; ``S`` = packet size, ``L`` = latency of the
channel, ``Do = max(router_delay - 2, 0)`` = hr_router's ``output_latency`` as topogen's
SST export sets it, :func:`topogen.sim_defaults.sst_router_latencies`):

* **VCs.** A packet's ``h``-th router-router hop uses VC ``h`` (the injection buffer and
  the first switch's output buffers VC 0 ... as anytopo's ``setVC(num_hops)``); the
  ejection output buffer keeps the VC of the last hop (or takes the route's own
  ejection VC, an entry of ``vlo`` after the last hop's, as merlin.dragonfly sets one).  ``num_vcs`` is not used: every
  VC a route needs exists (anytopo's ``vcs_per_vn`` = longest route + 1).  Hop-number
  VCs make any route deadlock-free.  With ``obuf_vcs="routing"`` a hop uses instead the
  VC of its class in the routing (one VC per class, class 0 .. ``routing.num_vcs - 1``),
  as merlin's own topologies declare theirs (``merlin.hyperx`` DOR: one VC;
  ``merlin.torus``: two), so the routing's VC rule must be deadlock-free.
* **Input side.** A packet sent on a channel at ``t`` is in the downstream input VC
  buffer at ``t + L``; once it is the head of that buffer it may cross the crossbar
  from cycle ``t + L + Do + 1`` (SST: its event arrives half a cycle after
  ``t + L + Do`` and the crossbar clock ticks half a cycle later).
* **Crossbar.** Each cycle, per switch, the (input port, VC) pairs are visited in
  least-recently-granted order (``merlin.xbar_arb_lru``: pairs granted in a cycle go to
  the end, the first granted last; pairs never granted keep the order of the router's
  port numbers: ``merlin.anytopo``'s, neighbours by id then the hosts, or with
  ``port_order="booksim-native"`` ``merlin.torus``'s and ``merlin.mesh``'s, +/- neighbour
  of each dimension then the hosts); a head is moved, *as a whole packet*, when its input
  port and its output port have not moved a packet in the last ``S`` cycles and the
  output buffer of its VC has room for ``S`` flits (``output_buf_size``).  The move
  frees the input buffer: the ``S`` credits reach the upstream port ``L + Do + 1``
  cycles later (SST: half a cycle earlier, so a port waiting for them sends one cycle
  after that, as below).
* **Output port.** An idle port sends one cycle after a packet enters its output buffer
  or a credit arrives; a port that sent at ``f`` looks again at ``f + S`` (crossbar
  moves of that same cycle count, SST's clock runs before its events).  It picks the
  next VC round-robin (``merlin.arb.output.basic``) whose head has credits for the
  whole packet downstream (ejection always); sending frees the output buffer space, seen
  by the crossbar from the next cycle.
* **Hosts.** A source sends its queue in order on its injection channel into VC 0 of its
  switch's input port when the channel is free and that VC has credits for the packet;
  a packet is delivered when its tail reaches the host, ``S - 1`` cycles after its head
  (``latency_at="head"`` stamps the head, as SST does).

SST's half-cycle offsets are rounded up to the next cycle; at zero load the model gives
the input-queued model's latencies exactly (``router_delay`` per switch).
"""

from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np

from ..errors import ParameterError
from ._events import _CREDIT, _READY
from .model import Engine

__all__ = ["OutputBufferedEngine"]

# event kinds of this engine (beside _BLOCK, _READY, _CREDIT of model.Engine)
_ARB, _POLL = 20, 21
#: added to sequence numbers: crossbar arbitrations run after every other event of
#: their cycle (credits, arrivals, creations), output ports after the crossbar
_ARB_LATE, _POLL_LATE = 1 << 58, 1 << 59
#: VC stride of the buffer ids (``port * _VCS + vc``): routes up to ``_VCS - 1`` links
_VCS = 64


class OutputBufferedEngine(Engine):
    """:class:`~topogen.sim.model.Engine` with SST merlin's output-buffered router.

    Parameters
    ----------
    network : Network
        Deterministic or random table routings (not escape or UGAL routings).
    rng : numpy.random.Generator

    Raises
    ------
    ParameterError
        An adaptive routing, ``internal_speedup`` other than 1 or a ``credit_delay``
        (hr_router has neither in topogen's SST export).
    """

    def __init__(self, network, rng):
        if getattr(network.routing, "vc_ranges", False):
            raise ParameterError("the output-buffered router takes one VC class per hop, not vc_ranges: "
                                 "use router='input-queued' or a routing without vc_ranges")
        if network.adaptive or network.ugal:
            raise ParameterError(
                f"the output-buffered router runs table routings only, not {network.routing.algorithm} "
                f"(adaptive choices are made by the input-queued router): use router='input-queued'")
        c = network.config
        if c.internal_speedup != 1 or c.credit_delay:
            raise ParameterError(
                "the output-buffered router models SST's hr_router with xbar_bw = link_bw and no "
                f"credit delay: set internal_speedup=1 and credit_delay=0 (got {c.internal_speedup}, "
                f"{c.credit_delay})")
        super().__init__(network, rng)
        self.separable = False
        self.by_class = c.obuf_vcs == "routing"
        W = _VCS
        P = network.num_ports
        self.Dx = max(c.router_delay - 2, 0) + 1  # head in the input buffer -> first crossbar tick
        self.credits = [c.vc_buf_size] * (P * W)
        self.ospace = [c.output_buffer_flits] * (P * W)
        self.oq: dict[int, deque] = {}  # output buffer (port * W + vc) -> packets
        self.oqn = [0] * P  # packets in the output buffers of each port
        self.owait = [True] * P  # the port sends one cycle after something arrives
        self.optr = [-1] * P  # round-robin VC pointer of each output port
        self.xin = [0] * P  # cycle from which each input port may move a packet again
        self.xout = [0] * P  # ... each output port may receive one
        self.head_at: dict[int, int] = {}  # input buffer -> cycle its head may cross
        n = network.num_switches
        self.active = [set() for _ in range(n)]  # non-empty input buffers of each switch
        self.arb_set: set = set()  # (switch, cycle) arbitrations scheduled
        self.blocked: dict[int, object] = {}  # injection port -> source head without credits
        indptr = np.asarray(network.indptr, dtype=np.int64)
        indices = np.asarray(network.indices, dtype=np.int64)
        H = network.num_hosts
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        # the switch an input port (channel) feeds and the one an output port leaves
        self.in_switch = np.concatenate([indices, np.full(H, -1), network.host_switch]).tolist()
        self.out_switch_o = np.concatenate([src, network.host_switch, np.full(H, -1)]).tolist()
        if c.port_order == "booksim-native":
            # merlin.torus / merlin.mesh's numbering (pymerlin-topo-mesh.py: port 2d to and
            # from the + neighbour of dimension d, 2d + 1 the - neighbour, the endpoints
            # last), which is BookSim kncube's (topogen.sim._ports)
            local = np.asarray(network.local_ports()[1], dtype=np.int64)
        else:
            # merlin.anytopo port numbers at the downstream switch: neighbours by rank first
            # (the rank of u among w's neighbours for the channel u -> w), then the hosts
            rev = np.asarray(network.routing.view.entry(indices, src), dtype=np.int64)
            local_in = rev - indptr[indices]
            deg = int(np.diff(indptr).max()) if n else 0
            h_local = np.arange(H, dtype=np.int64) - network.host_offset[network.host_switch]
            local = np.concatenate([local_in, np.zeros(H, np.int64), deg + h_local])
        # least-recently-granted order: initial rank by (port, vc), grants get growing ranks
        self.rank = (np.repeat(local * W - (1 << 40), W) + np.tile(np.arange(W), P)).tolist()
        self.rank_next = 0

    # ------------------------------------------------------------ event loop
    def _arb(self, sw: int, t: int) -> None:
        key = (sw, t)
        if key not in self.arb_set:
            self.arb_set.add(key)
            self.seq += 1
            heapq.heappush(self.heap, (t, self.seq + _ARB_LATE, _ARB, sw))

    def _poll(self, o: int, t: int) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq + _POLL_LATE, _POLL, o))

    def run(self, until: int, stop_when_idle: bool = False) -> None:
        """Process events with time < ``until``; stops early on a deadlock (see
        :meth:`topogen.sim.model.Engine.run`)."""
        heap, gen = self.heap, self.gen
        pop = heapq.heappop
        dl = self.deadlock_cycles
        create = self._create
        inf = math.inf
        S, W = self.S, _VCS
        credits = self.credits
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
            if kind == _ARB:
                self.arb_set.discard((a, t))
                self._crossbar(a, t)
            elif kind == _POLL:
                self._send_out(a, t)
            elif kind == _READY:
                self._inject(a, t)
            elif kind == _CREDIT:
                credits[a] += S
                o = a // W
                if o >= self.inj_base:
                    pkt = self.blocked.pop(o, None)
                    if pkt is not None:
                        self._inject(pkt, t)
                elif self.owait[o] and self.oqn[o]:
                    self.owait[o] = False
                    self._poll(o, t + 1)
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

    # ------------------------------------------------------------ hosts
    def _inject(self, pkt, t: int) -> None:
        """The source head ``pkt`` starts on its injection channel at ``t`` if the channel
        is free and VC 0 of the switch's input port has room (else when it has)."""
        o = pkt.ports[0]
        if pkt.links >= _VCS:
            raise ParameterError(f"the output-buffered router puts hop h on VC h and has {_VCS} VCs; "
                                 f"a route of {pkt.links} links is too long")
        if self.busy[o] > t:
            self.seq += 1
            heapq.heappush(self.heap, (self.busy[o], self.seq, _READY, pkt))
            return
        b = o * _VCS
        if self.credits[b] < self.S:
            self.blocked[o] = pkt
            return
        S = self.S
        end = t + S
        self.busy[o] = end
        self.port_flits[o] += S
        src = pkt.src
        q = self.srcq[src]
        q.popleft()
        self._leave_source(pkt, t)
        self.src_free[src] = end
        if q:
            nxt = q[0]
            r = nxt.ctime + self.ovh
            self.seq += 1
            heapq.heappush(self.heap, (r if r > end else end, self.seq, _READY, nxt))
        else:
            del self.srcq[src]
        self._arrive(pkt, o, b, t)

    def _arrive(self, pkt, o: int, b: int, t: int) -> None:
        """``pkt`` starts on channel ``o`` at ``t`` into input buffer ``b`` downstream."""
        self.credits[b] -= self.S
        arr = t + self.lat[o]
        pkt.buf = b
        pkt.arr = arr
        pkt.hop += 1
        q = self.fifo.get(b)
        if q is None:
            self.fifo[b] = deque((pkt,))
            sw = self.in_switch[o]
            when = arr + self.Dx
            self.head_at[b] = when
            self.active[sw].add(b)
            self._arb(sw, when)
        else:
            q.append(pkt)

    # ------------------------------------------------------------ crossbar
    def _crossbar(self, sw: int, t: int) -> None:
        """merlin.xbar_arb_lru at switch ``sw`` in cycle ``t`` (see the module notes)."""
        W, S = _VCS, self.S
        by_class, kcls = self.by_class, self.kcls
        head_at, rank = self.head_at, self.rank
        cands = sorted((b for b in self.active[sw] if head_at[b] <= t), key=rank.__getitem__)
        if not cands:
            return
        xin, xout, ospace = self.xin, self.xout, self.ospace
        granted = []
        retry = math.inf
        for b in cands:
            ip = b // W
            if xin[ip] > t:
                retry = min(retry, xin[ip])
                continue
            q = self.fifo[b]
            pkt = q[0]
            if pkt.links < 0:  # a route chosen as the packet goes (_obuf_adaptive)
                self._adapt(pkt, sw)
            o = pkt.ports[pkt.hop]
            if by_class:  # the routing's VC class of this hop (ejection: its own entry, else the last hop's)
                vlo = pkt.vlo
                vc = vlo[pkt.hop if pkt.hop < len(vlo) else -1] // kcls
            else:
                vc = pkt.hop if pkt.hop < pkt.links else pkt.links
            ob = o * W + vc
            if xout[o] > t:
                retry = min(retry, xout[o])
                continue
            if ospace[ob] < S:
                continue  # the output port frees space when it sends (_send_out)
            granted.append(b)
            xin[ip] = xout[o] = t + S
            ospace[ob] -= S
            q.popleft()
            # the input buffer is free: its credits go back to the upstream port
            self.seq += 1
            heapq.heappush(self.heap, (t + self.lat[ip] + self.Dx, self.seq, _CREDIT, b))
            if q:
                nxt = q[0]
                r = nxt.arr + self.Dx
                head_at[b] = r if r > t + 1 else t + 1
                retry = min(retry, max(head_at[b], t + S))
            else:
                del self.fifo[b]
                del head_at[b]
                self.active[sw].discard(b)
            oq = self.oq.get(ob)
            if oq is None:
                self.oq[ob] = deque((pkt,))
            else:
                oq.append(pkt)
            self.oqn[o] += 1
            if self.owait[o]:
                self.owait[o] = False
                self._poll(o, t + 1)
        if granted:  # granted pairs go to the end, the first granted last
            r0 = self.rank_next
            for i, b in enumerate(reversed(granted)):
                rank[b] = r0 + i
            self.rank_next = r0 + len(granted)
        if retry < math.inf:
            self._arb(sw, retry)

    # ------------------------------------------------------------ output ports
    def _send_out(self, o: int, t: int) -> None:
        """Output port ``o`` looks at its output buffers in cycle ``t``."""
        W, S = _VCS, self.S
        if not self.oqn[o]:
            self.owait[o] = True
            return
        eject = self.ej_base <= o < self.inj_base
        credits = self.credits
        base = o * W
        p0 = self.optr[o]
        pick = -1
        for i in range(1, W + 1):
            vc = (p0 + i) % W
            oq = self.oq.get(base + vc)
            if oq and (eject or credits[base + vc] >= S):
                pick = vc
                break
        if pick < 0:
            self.owait[o] = True  # a credit wakes the port
            return
        self.optr[o] = pick
        ob = base + pick
        oq = self.oq[ob]
        pkt = oq.popleft()
        if not oq:
            del self.oq[ob]
        self.oqn[o] -= 1
        self.ospace[ob] += S
        sw = self.out_switch_o[o]
        if self.active[sw]:
            self._arb(sw, t + 1)  # the crossbar sees the space from the next cycle
        self.busy[o] = t + S
        self.port_flits[o] += S
        self.last_move = t
        self._poll(o, t + S)
        if eject:
            self._deliver(pkt, t + self.lat[o] + S - 1)
        else:
            self._arrive(pkt, o, ob, t)

    # ------------------------------------------------------------ invariants
    def deadlocked_buffers(self) -> list[int]:
        """Always empty: hop-number VCs make every route's channel dependencies acyclic."""
        return []

    def credits_restored(self) -> bool:
        """True when every input and output buffer is empty with all its space back."""
        c = self.net.config
        return (all(x == c.vc_buf_size for x in self.credits)
                and all(x == c.output_buffer_flits for x in self.ospace)
                and not self.fifo and not self.oq)
