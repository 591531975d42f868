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
* it leaves on the output port when the port is free and a VC of its class has credits
  for the whole packet (virtual cut-through); credits for its ``S`` flits come back to the
  upstream port ``S - 1 + lat[in] + credit_delay`` cycles after it started
  (``credit_delay`` only when the upstream end is a switch);
* with ``internal_speedup = s > 1`` the router delay is ``ceil(pipeline / s)`` and the
  input buffer is free (and the credits counted from) ``ceil(S / s)`` cycles after the
  packet started, but not before its tail has arrived;
* it is delivered when its tail reaches the host: ``t_ej + lat[ej] + S - 1``.

Routes come from the routing: precomputed per switch pair for deterministic routings
(:meth:`Network.route`), chosen hop by hop at run time for an escape routing
(:func:`topogen.routing.escape`): at each switch any minimal next hop on any adaptive VC
with credits for the whole packet, else the up*/down* escape next hop on the escape VC
(:meth:`Engine._choose`; ``docs/sim.md`` gives the rule).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import asdict, dataclass, field

import numpy as np

from .. import sim_defaults as _d
from ..errors import ParameterError, RoutingError

__all__ = ["SimConfig", "Network", "Engine"]

# event kinds
_BLOCK, _READY, _CREDIT, _FREE = 0, 2, 3, 4


@dataclass(frozen=True)
class SimConfig:
    """Parameters of the reference simulator (all times in cycles).

    A cycle is the time one flit takes on a link; ``clock_ns`` converts the layout's link
    delays (ns) to cycles.  Defaults are topogen's shared simulator defaults
    (:mod:`topogen.sim_defaults`: 33-flit packets of 256 bits at 96 Gbit/s, 4 VCs of 66
    flits, BookSim's one-cycle pipeline stages), the same as the BookSim and SST exports.
    ``credit_delay`` delays the processing of credits a router gets back (BookSim's
    ``credit_delay``); ``internal_speedup`` is the number of router-internal steps per
    cycle (BookSim's ``internal_speedup``): the pipeline takes
    ``ceil(pipeline / internal_speedup)`` cycles and a buffered packet crosses the
    switch at ``internal_speedup`` flits per cycle.
    """

    num_vcs: int = _d.NUM_VCS
    vc_buf_size: int = _d.VC_BUF_SIZE
    packet_size: int = _d.PACKET_SIZE
    routing_delay: int = _d.ROUTING_DELAY
    vc_alloc_delay: int = _d.VC_ALLOC_DELAY
    sw_alloc_delay: int = _d.SW_ALLOC_DELAY
    st_delay: int = _d.ST_DELAY
    link_latency: int | None = None
    clock_ns: float | None = None
    flit_bits: int = _d.FLIT_BITS
    link_gbps: float = _d.LINK_GBPS
    injection_latency: int = _d.INJECTION_LATENCY
    ejection_latency: int = _d.EJECTION_LATENCY
    injection_overhead: int = 1
    credit_delay: int = _d.CREDIT_DELAY
    internal_speedup: float = _d.INTERNAL_SPEEDUP
    deadlock_cycles: int = 2000
    warmup_periods: int = _d.WARMUP_PERIODS
    sample_period: int = _d.SAMPLE_PERIOD
    min_period_packets: int = 100
    max_samples: int = _d.MAX_SAMPLES
    converge_samples: int = 3
    latency_thres: float = _d.LATENCY_THRES
    stopping_thres: float = _d.STOPPING_THRES
    acc_stopping_thres: float = _d.ACC_STOPPING_THRES
    drain_cycles: int | None = None
    max_queue_packets: int = 1000

    def __post_init__(self):
        ints = dict(num_vcs=(1, 1 << 12), vc_buf_size=(1, 1 << 30), packet_size=(1, 1 << 20),
                    routing_delay=(0, 1 << 20), vc_alloc_delay=(0, 1 << 20),
                    sw_alloc_delay=(0, 1 << 20), st_delay=(0, 1 << 20),
                    injection_latency=(1, 1 << 30), ejection_latency=(1, 1 << 30),
                    injection_overhead=(0, 1 << 30), credit_delay=(0, 1 << 30),
                    deadlock_cycles=(1, 1 << 40), warmup_periods=(0, 1 << 20),
                    sample_period=(1, 1 << 40), max_samples=(1, 1 << 20),
                    converge_samples=(1, 1 << 20), flit_bits=(1, 1 << 30),
                    max_queue_packets=(1, 1 << 40), min_period_packets=(0, 1 << 30))
        for name, (lo, hi) in ints.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ParameterError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}")
        if self.link_latency is not None and (isinstance(self.link_latency, bool) or not isinstance(
                self.link_latency, (int, np.integer)) or self.link_latency < 1):
            raise ParameterError(f"link_latency must be an integer >= 1 (cycles), got {self.link_latency!r}")
        sp = self.internal_speedup
        if isinstance(sp, bool) or not isinstance(sp, (int, float)) or not (1 <= sp <= 1024):
            raise ParameterError(f"internal_speedup must be a number in [1, 1024] (router steps "
                                 f"per cycle), got {sp!r}")
        for name in ("link_gbps", "latency_thres", "stopping_thres", "acc_stopping_thres"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not v > 0 or not math.isfinite(v):
                raise ParameterError(f"{name} must be a positive number, got {v!r}")
        if self.clock_ns is not None and not (isinstance(self.clock_ns, (int, float)) and self.clock_ns > 0):
            raise ParameterError(f"clock_ns must be a positive number of ns, got {self.clock_ns!r}")
        if self.vc_buf_size < self.packet_size:
            raise ParameterError(
                f"virtual cut-through needs vc_buf_size >= packet_size: a buffer must hold a whole "
                f"packet (vc_buf_size={self.vc_buf_size}, packet_size={self.packet_size})")
        if self.max_samples <= self.warmup_periods:
            raise ParameterError(f"max_samples (all sample periods, warm-up included) must exceed "
                                 f"warmup_periods={self.warmup_periods}, got {self.max_samples}")

    @property
    def pipeline_delay(self) -> int:
        """Router pipeline stages in cycles at speedup 1 (routing + VC and switch
        allocation + switch traversal)."""
        return self.routing_delay + self.vc_alloc_delay + self.sw_alloc_delay + self.st_delay

    @property
    def router_delay(self) -> int:
        """Cycles from a head reaching the front of its input VC to leaving the switch:
        ``ceil(pipeline_delay / internal_speedup)``."""
        return _d.router_cycles(self.pipeline_delay, self.internal_speedup)

    @property
    def crossbar_cycles(self) -> int:
        """Cycles a whole buffered packet takes through the switch:
        ``ceil(packet_size / internal_speedup)``."""
        return _d.router_cycles(self.packet_size, self.internal_speedup)

    @property
    def cycle_ns(self) -> float:
        """Length of a cycle in ns (``clock_ns``, else one flit time ``flit_bits / link_gbps``)."""
        return float(self.clock_ns) if self.clock_ns is not None else self.flit_bits / self.link_gbps

    def to_dict(self) -> dict:
        return asdict(self)


class Network:
    """The static part of a simulation: ports, latencies and routes.

    Parameters
    ----------
    routing : topogen.routing.Routing
        Routes and the VC of each hop.  The simulator's ``num_vcs`` VCs are split into
        ``routing.num_vcs`` classes of ``k = num_vcs // routing.num_vcs`` VCs; a hop on
        routing VC ``c`` may use any VC of class ``c`` (``c*k .. c*k+k-1``).  Replicating
        every channel of an acyclic channel dependency graph keeps it acyclic, so a
        deadlock-free routing stays deadlock-free.  An escape routing (one with
        ``minimal`` and ``escape_routing`` tables) is routed adaptively by the
        :class:`Engine`: class 0 is its escape channel, classes 1.. its adaptive VCs
        (:meth:`adaptive_options`, :meth:`escape_option`); :meth:`route` then gives its
        deterministic minimal path (the empty network's choice).
    config : SimConfig
    layout : Layout, optional
        Link delays (ns) converted to cycles with ``config.cycle_ns`` (rounded up, at
        least 1) when ``config.link_latency`` is None; default ``routing.layout``.
        Without either, links take 1 cycle.
    """

    def __init__(self, routing, config: SimConfig, layout=None):
        topo = routing.topology
        self.routing = routing
        self.topology = topo
        self.config = config
        n = topo.num_switches
        view = routing.view
        self.indptr = view.indptr
        self.indices = view.indices
        m = len(self.indices)
        hosts = np.asarray(topo.hosts, dtype=np.int64)
        num_hosts = int(hosts.sum())
        if num_hosts < 1:
            raise ParameterError("the topology has no hosts to simulate (hosts_per_switch = 0)")
        if routing.num_vcs > config.num_vcs:
            raise ParameterError(
                f"the {routing.algorithm} routing needs {routing.num_vcs} VCs, the simulator has "
                f"num_vcs={config.num_vcs}; raise num_vcs to at least {routing.num_vcs}")
        self.num_switches = n
        self.num_hosts = num_hosts
        self.num_links = m
        self.host_offset = np.concatenate([[0], np.cumsum(hosts)[:-1]]).astype(np.int64)
        self.host_switch = np.repeat(np.arange(n, dtype=np.int64), hosts)
        self.vcs_per_class = config.num_vcs // routing.num_vcs
        layout = layout if layout is not None else routing.layout
        if config.link_latency is not None:
            lat_links = np.full(m, int(config.link_latency), dtype=np.int64)
            self.latency_source = f"link_latency={config.link_latency} cycles"
        elif layout is not None:
            delay = np.asarray(layout.link_delay, dtype=float)[np.asarray(topo.directed_edge_ids)]
            lat_links = np.maximum(1, np.ceil(delay / config.cycle_ns - 1e-9)).astype(np.int64)
            self.latency_source = f"layout link delays / {config.cycle_ns:g} ns per cycle"
        else:
            lat_links = np.ones(m, dtype=np.int64)
            self.latency_source = "1 cycle per link (no layout)"
        self.link_cycles = lat_links
        self.latency = np.concatenate([
            lat_links, np.full(num_hosts, config.ejection_latency, dtype=np.int64),
            np.full(num_hosts, config.injection_latency, dtype=np.int64)])
        self.ej_base = m
        self.inj_base = m + num_hosts
        self.num_ports = m + 2 * num_hosts
        self._table = hasattr(routing, "route_matrix") and routing.deterministic
        self._cache: dict[int, tuple[tuple, tuple]] = {}
        # Adaptive routing with an escape channel (topogen.routing.escape): routed hop by
        # hop at run time (Engine), not from route().
        self.adaptive = (getattr(routing, "escape_routing", None) is not None
                         and getattr(routing, "minimal", None) is not None)
        if self.adaptive:
            self._setup_adaptive(routing)

    # ------------------------------------------------------------ adaptive (escape) routing
    def _setup_adaptive(self, routing) -> None:
        """Tables of the escape routing's run-time choices (see :meth:`adaptive_options`)."""
        k = self.vcs_per_class
        v = self.config.num_vcs
        esc = routing.escape_routing
        self.escape_vcs = (0, k)  # simulator VCs of routing VC 0
        self.adaptive_vcs = (k, routing.num_vcs * k)  # routing VCs 1 .. num_vcs-1
        self.escape_return = bool(routing.params.get("escape_return", False))
        self._esc_ranks = esc.ranks
        self._esc_sentinel = esc.sentinel
        self._esc_phase = esc.entry_phase.astype(np.int64).tolist()
        self._indices_l = self.indices.tolist()
        mn = routing.minimal
        self._min_dist = mn.distances
        self._min_weight = mn.entry_weight
        self._aopt: dict[int, tuple] = {}
        self._eopt: dict[int, tuple] = {}
        self._vstride = v

    def adaptive_options(self, s: int, d: int) -> tuple:
        """The adaptive choices at switch ``s`` toward switch ``d``: one
        ``(port, first buffer, end buffer)`` per minimal next hop (increasing neighbour
        id), the buffers being the adaptive VCs of that port."""
        n = self.num_switches
        key = s * n + d
        r = self._aopt.get(key)
        if r is not None:
            return r
        lo, hi = int(self.indptr[s]), int(self.indptr[s + 1])
        if self._min_dist is not None and self._min_weight is not None:
            dist = self._min_dist[d]
            ok = (dist[self.indices[lo:hi]].astype(np.int64) + self._min_weight[lo:hi]
                  == int(dist[s]))
            ents = (np.flatnonzero(ok) + lo).tolist()
        else:  # tables with one next hop per pair: the deterministic minimal next hop
            w = int(self.routing.minimal.next_hop(d)[s])
            ents = [int(self.routing.view.entry(s, w))]
        if not ents:
            raise RoutingError(f"{self.routing.algorithm} routing has no minimal next hop at "
                               f"switch {s} toward {d}")
        V = self._vstride
        a0, a1 = self.adaptive_vcs
        r = tuple((e, e * V + a0, e * V + a1) for e in ents)
        self._aopt[key] = r
        return r

    def escape_option(self, phase: int, s: int, d: int) -> tuple:
        """The escape choice ``(port, first buffer, end buffer)`` at switch ``s`` toward
        ``d`` in up*/down* ``phase`` (0: no down link taken yet on the escape channel)."""
        n = self.num_switches
        key = (phase * n + s) * n + d
        r = self._eopt.get(key)
        if r is not None:
            return r
        rank = int(self._esc_ranks[phase, s, d])
        if rank == self._esc_sentinel:
            raise RoutingError(f"up*/down* escape table has no entry at switch {s} toward {d} "
                               f"(phase {phase})")
        e = int(self.indptr[s]) + rank
        V = self._vstride
        e0, e1 = self.escape_vcs
        r = (e, e * V + e0, e * V + e1)
        self._eopt[key] = r
        return r

    # ------------------------------------------------------------ routes
    def prefetch(self, src_sw: np.ndarray, dst_sw: np.ndarray) -> None:
        """Compute (vectorised) and cache the routes of these switch pairs."""
        if not self._table or not len(src_sw):
            return
        n = self.num_switches
        keys = np.unique(np.asarray(src_sw, dtype=np.int64) * n + np.asarray(dst_sw, dtype=np.int64))
        cache = self._cache
        new = np.fromiter((k for k in keys.tolist() if k not in cache), dtype=np.int64)
        if not len(new):
            return
        s, d = new // n, new % n
        ent, vcs = self.routing.route_matrix(s, d)
        k = self.vcs_per_class
        ent_l = ent.T.tolist()
        vc_l = (vcs.T.astype(np.int64) * k).tolist()
        for j, key in enumerate(new.tolist()):
            row = ent_l[j]
            h = row.index(-1) if -1 in row else len(row)
            cache[key] = (tuple(row[:h]), tuple(vc_l[j][:h]))

    def route(self, s: int, d: int, rng) -> tuple[tuple, tuple]:
        """(CSR entries, first VC of the class of each hop) from switch ``s`` to ``d``."""
        key = s * self.num_switches + d
        r = self._cache.get(key)
        if r is not None:
            return r
        if s == d:
            r = ((), ())
        else:
            sw, vcs = self.routing.path(s, d, rng)
            ent = self.routing.view.entry(sw[:-1], sw[1:])
            if np.any(ent < 0):
                raise RoutingError(f"{self.routing.algorithm} route {s}->{d} uses a missing link")
            r = (tuple(int(e) for e in ent), tuple(int(v) * self.vcs_per_class for v in vcs))
        if self.routing.deterministic:
            self._cache[key] = r
        return r

    def zero_load_latency(self, src_host: int, dst_host: int) -> int:
        """Analytic latency of a packet alone in the network (see the module docs)."""
        c = self.config
        s, d = int(self.host_switch[src_host]), int(self.host_switch[dst_host])
        ent, _ = self.route(s, d, None)
        return (c.injection_overhead + c.injection_latency + (len(ent) + 1) * c.router_delay
                + int(sum(int(self.link_cycles[e]) for e in ent)) + c.ejection_latency
                + c.packet_size - 1)


class _Packet:
    __slots__ = ("pid", "src", "dst", "ctime", "ports", "vlo", "hop", "buf", "arr", "sent",
                 "measured", "links",
                 # adaptive (escape) routing only: current switch, destination switch,
                 # escape phase (-1: on adaptive VCs), options at the current switch,
                 # ports whose waiting lists hold the packet
                 "at", "dsw", "esc", "opts_a", "opt_e", "wports")

    def __init__(self, pid, src, dst, ctime, ports, vlo, links, measured):
        self.pid = pid
        self.src = src
        self.dst = dst
        self.ctime = ctime
        self.ports = ports
        self.vlo = vlo
        self.links = links
        self.hop = 0
        self.buf = -1
        self.arr = ctime
        self.sent = -1
        self.measured = measured


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


class Engine:
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

    def __init__(self, network: Network, rng: np.random.Generator):
        self.net = network
        self.rng = rng
        c = network.config
        v = c.num_vcs
        self.V = v
        self.S = c.packet_size
        self.D = c.router_delay
        self.ovh = c.injection_overhead
        self.cdelay = c.credit_delay
        self.Sx = c.crossbar_cycles  # a buffered packet's time through the switch
        self.speedup = self.Sx != self.S
        self.inj_buf0 = network.inj_base * v  # first injection buffer (credits go to a host)
        self.lat = network.latency.tolist()
        self.host_switch = network.host_switch.tolist()
        self.ej_base = network.ej_base
        self.inj_base = network.inj_base
        self.kcls = network.vcs_per_class
        self.now = 0
        self.heap: list = []
        self.gen: deque = deque()
        self.seq = 0
        nb = network.num_ports * v
        self.credits = [c.vc_buf_size] * nb
        self.fifo: dict[int, deque] = {}
        self.front_free = {}
        self.busy = [0] * network.num_ports
        self.waiting: dict[int, list] = {}
        self.wake = set()
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
        # adaptive routing with an escape channel (see _ready_adaptive)
        self.adaptive = network.adaptive
        if self.adaptive:
            self.num_links = network.num_links
            self.indices_l = network._indices_l
            self.esc_phase = network._esc_phase
            self.escape_return = network.escape_return

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
        serve = self._serve_adaptive if adaptive else self._serve
        create = self._create_adaptive if adaptive else self._create
        ready_a = self._ready_adaptive
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
            if kind == _READY:
                if adaptive and a.hop:
                    ready_a(a, t)
                else:
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

    def _serve(self, o: int, now: int) -> None:
        """Let the first waiting packet that can go leave on output port ``o``."""
        busy = self.busy
        wl = self.waiting[o]
        if busy[o] > now:
            if o not in self.wake:
                self.wake.add(o)
                self.seq += 1
                heapq.heappush(self.heap, (busy[o], self.seq, _FREE, o))
            return
        if self.ej_base <= o < self.inj_base:  # ejection: hosts always accept
            self._send(wl.pop(0), o, -1, now)
        else:
            S = self.S
            credits = self.credits
            base = o * self.V
            k = self.V if o >= self.inj_base else self.kcls
            for i, pkt in enumerate(wl):
                lo = base + pkt.vlo[pkt.hop]
                if k == 1:
                    best = lo if credits[lo] >= S else -1
                else:
                    best, bc = -1, S - 1
                    for b in range(lo, lo + k):
                        cb = credits[b]
                        if cb > bc:
                            best, bc = b, cb
                if best >= 0:
                    del wl[i]
                    self._send(pkt, o, best, now)
                    break
            else:
                return
        if not wl:
            del self.waiting[o]
        elif o not in self.wake:
            self.wake.add(o)
            self.seq += 1
            heapq.heappush(self.heap, (busy[o], self.seq, _FREE, o))

    def _send(self, pkt: _Packet, o: int, b: int, now: int) -> None:
        """``pkt`` starts on output port ``o`` (into buffer ``b``) at ``now``."""
        S = self.S
        end = now + S
        self.busy[o] = end
        old = pkt.buf
        oarr = pkt.arr
        arr = now + self.lat[o]
        heap = self.heap
        push = heapq.heappush
        if b >= 0:
            self.credits[b] -= S
            q = self.fifo.get(b)
            pkt.buf = b
            pkt.arr = arr
            if q is None:
                self.fifo[b] = deque((pkt,))
                ff = self.front_free.get(b, 0)
                self.seq += 1
                push(heap, ((arr if arr > ff else ff) + self.D, self.seq, _READY, pkt))
            else:
                q.append(pkt)
        pkt.hop += 1
        if old < 0:  # left the source queue (injection)
            src = pkt.src
            q = self.srcq[src]
            q.popleft()
            self.in_source -= 1
            if not self.in_network:
                self.last_move = now
            self.in_network += 1
            pkt.sent = now
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
            q = self.fifo[old]
            q.popleft()
            iend = end
            if self.speedup:  # the tail leaves the input buffer early ...
                iend = now + self.Sx
                if oarr + S > iend:  # ... but not before it has arrived
                    iend = oarr + S
            self.front_free[old] = iend
            cd = self.cdelay
            if cd and old >= self.inj_buf0:  # the upstream end is a host: no credit delay
                cd = 0
            self.seq += 1
            push(heap, (iend - 1 + self.lat[old // self.V] + cd, self.seq, _CREDIT, old))
            if q:
                nxt = q[0]
                self.seq += 1
                push(heap, ((nxt.arr if nxt.arr > iend else iend) + self.D, self.seq, _READY, nxt))
            else:
                del self.fifo[old]
        if b < 0:  # ejected
            self.in_network -= 1
            self.delivered_count += 1
            self.ctime_sum -= pkt.ctime
            tail = arr + S - 1
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

    # ------------------------------------------------------------ adaptive (escape) routing
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
        wake = self.wake
        for o in ports:
            wl = waiting.get(o)
            if wl is None:
                waiting[o] = [pkt]
            else:
                wl.append(pkt)
            if busy[o] > now and o not in wake:
                wake.add(o)
                self.seq += 1
                heapq.heappush(self.heap, (busy[o], self.seq, _FREE, o))
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
        if o in self.waiting and o not in self.wake:
            self.wake.add(o)
            self.seq += 1
            heapq.heappush(self.heap, (self.busy[o], self.seq, _FREE, o))

    def _serve_adaptive(self, o: int, now: int) -> None:
        """:meth:`_serve` for an escape routing: waiting packets choose among all their
        options (the port they are served from may not be the one they take)."""
        if o >= self.num_links:  # injection and ejection ports: as deterministic routings
            self._serve(o, now)
            return
        busy = self.busy
        waiting = self.waiting
        if busy[o] > now:
            if o not in self.wake:
                self.wake.add(o)
                self.seq += 1
                heapq.heappush(self.heap, (busy[o], self.seq, _FREE, o))
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
        for b, q in self.fifo.items():
            f = q[0]
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
                k = V if o >= self.inj_base else self.kcls
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
