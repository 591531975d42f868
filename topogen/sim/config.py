"""Parameters of the reference simulator: :class:`SimConfig` (see ``docs/sim.md``)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from .. import sim_defaults as _d
from ..errors import ParameterError

__all__ = ["SimConfig", "estimated_work", "mean_route_links", "AUTO_PYTHON_MAX_WORK", "ALLOCATORS", "VC_ALLOCS", "STOP_RULES", "INJECTIONS", "LATENCY_POINTS", "ENGINES",
           "ROUTERS", "FLOW_CONTROLS", "SPEEDUP_MODELS"]

#: switch allocators: BookSim's separable input-first (round-robin, one iteration), or
#: first ready, first served with no input-port limit (the model before 0.2)
ALLOCATORS = ("separable", "fifo")
#: output VC choice of the input-queued router with the ``separable`` allocator:
#: ``booksim`` (BookSim's VC allocation stage: a head is granted one unowned VC of its
#: class by a separable input-first VC allocator the cycle before its switch allocation
#: and owns it until its tail has crossed the switch; hosts pick their injection VC round
#: robin) or ``credits`` (no VC allocation stage: the VC of its class with the most free
#: credits when the packet wins the switch, the model before 26 November 2026)
VC_ALLOCS = ("booksim", "credits")
#: when a run that did not converge is saturated: ``booksim`` (only through
#: latency_thres, as BookSim's sim_type = latency) or ``strict`` (also when it accepted
#: under 90 % of the offered packets or left a backlog at the sources); with either, a run
#: whose backlog grew over the measurement is saturated too
#: (:func:`topogen.sim.measure.falls_behind`).  ``latency-only``: BookSim's rule alone
#: (latency_thres, no check of the accepted packets), for matching BookSim's verdicts
STOP_RULES = ("booksim", "strict", "latency-only")
#: packet generation: ``bernoulli`` (every cycle each host creates a packet with
#: probability p: BookSim's injection process) or ``periodic`` (every host creates one
#: packet every 1/p cycles, all hosts in step from cycle 0: SST merlin.offered_load's)
INJECTIONS = ("bernoulli", "periodic")
#: when a packet counts as delivered: ``tail`` (its last flit ejected: BookSim's
#: latency) or ``head`` (its first flit: SST merlin, which moves a packet as one event
#: and stamps it on arrival of that event)
LATENCY_POINTS = ("tail", "head")
#: event loops: ``auto`` (the default: the pure-Python reference for a run whose estimated
#: work is under :data:`AUTO_PYTHON_MAX_WORK`, the compiled core otherwise; see
#: :meth:`SimConfig.for_run`), the compiled core (numba; table routings, both allocators) or
#: the pure-Python reference; the same results for the same seed (``engine`` is not part of
#: :meth:`SimConfig.to_dict`, the key of a results row), so the choice changes only the speed
ENGINES = ("auto", "compiled", "python")

#: ``engine="auto"`` runs :func:`topogen.sim.simulate` on the pure-Python engine when the
#: run's estimated work -- packets x routers each crosses, :func:`estimated_work` -- is
#: under this: the Python engine takes about 15-25 us per router a packet crosses, so
#: such a run costs it at most about a second of CPU, while the compiled core costs tens
#: of seconds of CPU to compile on a machine whose cache of compiled code is empty (and
#: about half a second to load from a warm cache)
AUTO_PYTHON_MAX_WORK = 50_000
#: router models: ``input-queued`` (BookSim's IQ router: a packet stays in its input VC
#: until it leaves on the output channel) or ``output-buffered`` (SST merlin's hr_router:
#: the crossbar moves a whole packet into an output buffer of ``output_buf_size`` flits,
#: hop ``h`` on VC ``h`` as merlin.anytopo does; :mod:`topogen.sim._obuf`, Python engine)
ROUTERS = ("input-queued", "output-buffered")
#: VCs of the output-buffered router: ``hop`` (hop ``h`` on VC ``h``, merlin.anytopo's
#: rule, the default) or ``routing`` (one VC per VC class of the routing, its class per
#: hop: what SST merlin's own topologies do, e.g. merlin.hyperx's DOR on one VC)
OBUF_VCS = ("hop", "routing")
#: flow control of the input-queued router: ``vct`` (packet-level virtual cut-through: a
#: packet moves when its output VC has credits for the whole packet, the default) or
#: ``wormhole`` (BookSim's flit-level IQ router: a flit moves with one credit, a packet may
#: stand in several routers' VCs at once, the switch is held per packet while flits and
#: credits last; :mod:`topogen.sim._wormhole`, Python engine)
FLOW_CONTROLS = ("vct", "wormhole")
#: what ``internal_speedup = s > 1`` does in the input-queued router: ``rounds`` (the
#: default, BookSim's ``Router::Evaluate``: ``s`` allocation rounds per cycle, each granting
#: at most one packet per input and per output port, into a queue per output port that the
#: channel drains one flit per cycle; a fractional ``s`` accumulates) or ``pipeline`` (the
#: older reading: a shorter pipeline and a faster crossbar for multi-flit packets, at most
#: one packet per input and output port per cycle).  Both shorten the pipeline to
#: ``ceil(stages / s)`` cycles.  See ``docs/sim.md``
SPEEDUP_MODELS = ("rounds", "pipeline")


#: most cycles one run may measure (``sample_period * max_samples``): a run of the
#: reference simulator takes about a second per 10^5 to 10^6 cycles on a small network
MAX_RUN_CYCLES = 10 ** 9
#: longest link in cycles (a 1 km cable at 5 ns/m is 10^4 cycles of 0.5 ns)
MAX_LINK_LATENCY = 1 << 20


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
    switch at ``internal_speedup`` flits per cycle.  ``injection`` and ``latency_at``
    choose the packet generation process and the delivery time stamp: BookSim's
    (``bernoulli``, ``tail``, the defaults) or SST merlin.offered_load's (``periodic``,
    ``head``; see :data:`INJECTIONS`, :data:`LATENCY_POINTS` and ``docs/sst.md``).
    ``vc_alloc`` chooses how the input-queued router picks a packet's output VC
    (:data:`VC_ALLOCS`: BookSim's VC allocation stage by default).
    ``router`` chooses the router model (:data:`ROUTERS`); ``output_buf_size`` is the
    flits of each output VC buffer of the ``output-buffered`` router (None: ``vc_buf_size``),
    ``obuf_vcs`` its VC rule (:data:`OBUF_VCS`).
    ``flow_control`` chooses the input-queued router's flow control (:data:`FLOW_CONTROLS`):
    packet-level virtual cut-through (default) or BookSim's flit-level wormhole router
    (:mod:`topogen.sim._wormhole`, Python engine; ``vc_buf_size`` may then be smaller than
    ``packet_size``).
    ``speedup_model`` says what ``internal_speedup > 1`` does (:data:`SPEEDUP_MODELS`):
    BookSim's ``internal_speedup`` allocation rounds per cycle (default) or the older
    shorter-pipeline reading.
    ``port_order`` numbers each switch's ports for the separable allocator's round-robin
    arbiters (:data:`topogen.sim._ports.PORT_ORDERS`): BookSim anynet's ``hosts-first``
    (default, what topogen's BookSim export gives), or ``booksim-native``, the order of
    BookSim's own network of the topology's family (``kncube.cpp`` for mesh and torus).
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
    allocator: str = "separable"
    vc_alloc: str = "booksim"
    stop_rule: str = "booksim"
    injection: str = "bernoulli"
    latency_at: str = "tail"
    engine: str = "auto"
    router: str = "input-queued"
    output_buf_size: int | None = None
    obuf_vcs: str = "hop"
    flow_control: str = "vct"
    port_order: str = "hosts-first"
    speedup_model: str = "rounds"

    def __post_init__(self):
        ints = dict(num_vcs=(1, 1 << 12), packet_size=(1, 1 << 20), vc_buf_size=(1, 1 << 30),
                    routing_delay=(0, 1 << 20), vc_alloc_delay=(0, 1 << 20),
                    sw_alloc_delay=(0, 1 << 20), st_delay=(0, 1 << 20),
                    injection_latency=(1, 1 << 30), ejection_latency=(1, 1 << 30),
                    injection_overhead=(0, 1 << 30), credit_delay=(0, 1 << 30),
                    deadlock_cycles=(1, 1 << 40), warmup_periods=(0, 1 << 20),
                    sample_period=(1, MAX_RUN_CYCLES), max_samples=(1, 1 << 20),
                    converge_samples=(1, 1 << 20), flit_bits=(1, 1 << 30),
                    max_queue_packets=(1, 1 << 40), min_period_packets=(0, 1 << 30))
        for name, (lo, hi) in ints.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ParameterError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}")
        if self.link_latency is not None and (isinstance(self.link_latency, bool) or not isinstance(
                self.link_latency, (int, np.integer)) or not 1 <= self.link_latency <= MAX_LINK_LATENCY):
            raise ParameterError(f"link_latency must be an integer number of cycles in [1, {MAX_LINK_LATENCY}], "
                                 f"got {self.link_latency!r}")
        cycles = int(self.sample_period) * int(self.max_samples)
        if cycles > MAX_RUN_CYCLES:
            raise ParameterError(f"sample_period x max_samples = {self.sample_period} x {self.max_samples} = "
                                 f"{cycles:,} cycles, more than the limit of {MAX_RUN_CYCLES:,} cycles a run may "
                                 "measure; lower sample_period or max_samples")
        if self.stop_rule not in STOP_RULES:
            raise ParameterError(f"stop_rule must be one of {', '.join(STOP_RULES)}, got {self.stop_rule!r}")
        if self.injection not in INJECTIONS:
            raise ParameterError(f"injection must be one of {', '.join(INJECTIONS)}, got {self.injection!r}")
        if self.latency_at not in LATENCY_POINTS:
            raise ParameterError(f"latency_at must be one of {', '.join(LATENCY_POINTS)}, "
                                 f"got {self.latency_at!r}")
        if self.engine not in ENGINES:
            raise ParameterError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.router not in ROUTERS:
            raise ParameterError(f"router must be one of {', '.join(ROUTERS)}, got {self.router!r}")
        ob = self.output_buf_size
        if ob is not None and (isinstance(ob, bool) or not isinstance(ob, (int, np.integer))
                               or not self.packet_size <= ob <= (1 << 30)):
            raise ParameterError(
                f"output_buf_size must be an integer number of flits in [packet_size={self.packet_size}, "
                f"{1 << 30}] (the crossbar moves a whole packet into the output buffer), got {ob!r}")
        if ob is not None and self.router != "output-buffered":
            raise ParameterError("output_buf_size applies to router='output-buffered' only; "
                                 "drop it or set router='output-buffered'")
        if self.obuf_vcs not in OBUF_VCS:
            raise ParameterError(f"obuf_vcs must be one of {', '.join(OBUF_VCS)}, got {self.obuf_vcs!r}")
        if self.obuf_vcs != "hop" and self.router != "output-buffered":
            raise ParameterError("obuf_vcs applies to router='output-buffered' only; drop it or set "
                                 "router='output-buffered'")
        if self.vc_alloc not in VC_ALLOCS:
            raise ParameterError(f"vc_alloc must be one of {', '.join(VC_ALLOCS)}, got {self.vc_alloc!r}")
        if self.allocator not in ALLOCATORS:
            raise ParameterError(f"allocator must be one of {', '.join(ALLOCATORS)}, got {self.allocator!r}")
        sp = self.internal_speedup
        if isinstance(sp, bool) or not isinstance(sp, (int, float)) or not (1 <= sp <= 1024):
            raise ParameterError(f"internal_speedup must be a number in [1, 1024] (router steps "
                                 f"per cycle), got {sp!r}")
        for name in ("link_gbps", "latency_thres", "stopping_thres", "acc_stopping_thres"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not v > 0 or not math.isfinite(v):
                raise ParameterError(f"{name} must be a positive number, got {v!r}")
        if self.clock_ns is not None and not (isinstance(self.clock_ns, (int, float)) and self.clock_ns > 0
                                              and math.isfinite(self.clock_ns)):
            raise ParameterError(f"clock_ns must be a positive number of ns, got {self.clock_ns!r}")
        from ._ports import PORT_ORDERS

        if self.port_order not in PORT_ORDERS:
            raise ParameterError(f"port_order must be one of {', '.join(PORT_ORDERS)}, got {self.port_order!r}")
        if self.speedup_model not in SPEEDUP_MODELS:
            raise ParameterError(f"speedup_model must be one of {', '.join(SPEEDUP_MODELS)}, "
                                 f"got {self.speedup_model!r}")
        if self.flow_control not in FLOW_CONTROLS:
            raise ParameterError(f"flow_control must be one of {', '.join(FLOW_CONTROLS)}, "
                                 f"got {self.flow_control!r}")
        if self.flow_control == "wormhole":
            self._check_wormhole()
        elif self.vc_buf_size < self.packet_size:
            raise ParameterError(
                f"virtual cut-through needs vc_buf_size >= packet_size: a buffer must hold a whole "
                f"packet (vc_buf_size={self.vc_buf_size}, packet_size={self.packet_size}); raise "
                f"vc_buf_size or use flow_control='wormhole'")
        if self.max_samples <= self.warmup_periods:
            raise ParameterError(f"max_samples (all sample periods, warm-up included) must exceed "
                                 f"warmup_periods={self.warmup_periods}, got {self.max_samples}")

    def _check_wormhole(self) -> None:
        """``flow_control="wormhole"`` models BookSim's IQ router: refuse what it does not
        cover."""
        bad = [(self.router != "input-queued", f"router={self.router!r}", "router='input-queued'"),
               (self.allocator != "separable", f"allocator={self.allocator!r}", "allocator='separable'"),
               (self.vc_alloc != "booksim", f"vc_alloc={self.vc_alloc!r}", "vc_alloc='booksim'"),
               (self.internal_speedup != 1, f"internal_speedup={self.internal_speedup!r}",
                "internal_speedup=1"),
               (self.latency_at != "tail", f"latency_at={self.latency_at!r}", "latency_at='tail'")]
        for is_bad, what, fix in bad:
            if is_bad:
                raise ParameterError(f"flow_control='wormhole' (BookSim's flit-level IQ router) does not "
                                     f"model {what}; use {fix} or flow_control='vct'")

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
    def rearm_cycles(self) -> int:
        """Cycles from the end of a packet's tail leaving an input VC (the cycle after it
        started) to the earliest start of the next packet of that VC.

        BookSim's IQ router frees the VC when the tail wins switch allocation, then runs
        the next head through routing, VC and switch allocation (``routing_delay +
        vc_alloc_delay + sw_alloc_delay`` steps) while the tail crosses the switch: the
        next head leaves ``pipeline - st_delay`` cycles after the tail, i.e.
        ``ceil((pipeline - st_delay) / internal_speedup) - 1`` cycles after the tail's
        slot ends.  A head that arrives later takes the full ``router_delay``.
        """
        return max(0, _d.router_cycles(self.pipeline_delay - self.st_delay, self.internal_speedup) - 1)

    @property
    def crossbar_cycles(self) -> int:
        """Cycles a whole buffered packet takes through the switch:
        ``ceil(packet_size / internal_speedup)``."""
        return _d.router_cycles(self.packet_size, self.internal_speedup)

    @property
    def speedup_rounds(self) -> bool:
        """True when the input-queued router runs ``internal_speedup`` allocation rounds per
        cycle (``speedup_model="rounds"`` and ``internal_speedup > 1``)."""
        return (self.speedup_model == "rounds" and self.internal_speedup > 1
                and self.router == "input-queued")

    @property
    def speedup_fraction(self) -> tuple[int, int]:
        """``internal_speedup`` as a fraction ``(num, den)`` (denominator at most 1024):
        cycle ``t`` runs ``(t + 1) * num // den - t * num // den`` allocation rounds, as
        BookSim's ``_partial_internal_cycles`` accumulates a fractional speedup."""
        from fractions import Fraction

        f = Fraction(float(self.internal_speedup)).limit_denominator(1024)
        return f.numerator, f.denominator

    @property
    def stamp_offset(self) -> int:
        """Cycles between the delivery time stamp and the tail's arrival: ``packet_size - 1``
        with ``latency_at="head"``, else 0 (the engines report tail arrivals)."""
        return self.packet_size - 1 if self.latency_at == "head" else 0

    @property
    def cycle_ns(self) -> float:
        """Length of a cycle in ns (``clock_ns``, else one flit time ``flit_bits / link_gbps``)."""
        return float(self.clock_ns) if self.clock_ns is not None else self.flit_bits / self.link_gbps

    @property
    def output_buffer_flits(self) -> int:
        """Flits of each output VC buffer of the ``output-buffered`` router."""
        return int(self.output_buf_size) if self.output_buf_size is not None else self.vc_buf_size

    def for_run(self, routing, rate: float) -> "SimConfig":
        """This configuration with ``engine="auto"`` made concrete for a :func:`~topogen.sim.
        simulate` run of ``routing`` at ``rate`` packets per host per cycle (any other
        engine: unchanged).

        ``python`` when :func:`estimated_work` is under :data:`AUTO_PYTHON_MAX_WORK`, else
        ``compiled`` (which runs on the Python engine, with the reason recorded, where the
        compiled core does not cover the routing).  The output-buffered router and wormhole
        flow control run on the Python engine whatever the size: they get ``compiled`` too,
        so that the row records why, as it always has.
        """
        if self.engine != "auto":
            return self
        from dataclasses import replace

        python_only = (self.router != "input-queued" or self.flow_control == "wormhole"
                       or self.speedup_rounds)
        small = not python_only and estimated_work(routing, rate, self) < AUTO_PYTHON_MAX_WORK
        return replace(self, engine="python" if small else "compiled")

    def to_dict(self) -> dict:
        """The fields that change results (all but ``engine``; ``router`` and
        ``output_buf_size`` only for the ``output-buffered`` router, so that rows and
        resume keys of the input-queued router stay as they were; ``vc_alloc`` only for
        the input-queued router; ``flow_control`` only when it is ``wormhole``)."""
        d = asdict(self)
        d.pop("engine")
        if self.internal_speedup == 1:
            d.pop("speedup_model")  # no speedup: rows and resume keys stay as they were
        if self.flow_control == "vct":
            d.pop("flow_control")  # rows and resume keys of the default model stay as they were
        if self.obuf_vcs == "hop":
            d.pop("obuf_vcs")  # rows and resume keys of the anytopo model stay as they were
        if self.router == "input-queued":
            d.pop("router")
            d.pop("output_buf_size")
        else:
            d.pop("vc_alloc")  # the output-buffered router has no VC allocation stage
            d["output_buf_size"] = self.output_buffer_flits
        return d


#: switches whose routes to a sample of destinations give the mean route length of
#: :func:`mean_route_links`
_HOP_SAMPLE = 32


def _spaced(n: int, k: int) -> np.ndarray:
    """``min(n, k)`` switch numbers spread evenly over ``0 .. n - 1`` (no random draw)."""
    return np.unique(np.linspace(0, n - 1, num=min(n, k)).round().astype(np.int64))


def mean_route_links(routing) -> float:
    """Estimated mean number of switch-to-switch links of a packet's route under
    ``routing``: the mean route length between evenly spread sample switches for a table
    routing, else twice the mean shortest hop count from them (routings that choose paths
    as packets go -- Valiant, UGAL, adaptive -- take at most about twice the minimal)."""
    topo = routing.topology
    n = topo.num_switches
    src = _spaced(n, _HOP_SAMPLE)
    dst = _spaced(n, 4 * _HOP_SAMPLE)
    lengths = getattr(routing, "route_lengths", None)
    if lengths is not None:
        from ..errors import TopogenError

        s, d = np.meshgrid(src, dst, indexing="ij")
        try:
            return float(np.mean(lengths(s.ravel(), d.ravel())))
        except TopogenError:  # a table the simulation will refuse with its own message
            pass
    from scipy.sparse.csgraph import shortest_path

    dist = shortest_path(topo.csr(), unweighted=True, indices=src)[:, dst]
    dist = dist[np.isfinite(dist)]
    return 2.0 * float(dist.mean()) if dist.size else 0.0


def estimated_work(routing, rate: float, config: SimConfig) -> float:
    """Estimated work of a :func:`~topogen.sim.simulate` run: packets created x routers
    each crosses (links + 1).

    Packets: hosts x ``rate`` x the longest run without saturation, ``max_samples``
    sample periods (each ``sample_period`` cycles, or longer at low loads as
    :func:`~topogen.sim.simulate` makes them: about ``min_period_packets`` packets);
    the route length is :func:`mean_route_links`, computed only when the packets alone
    do not already reach :data:`AUTO_PYTHON_MAX_WORK`.
    """
    hosts = routing.topology.num_hosts
    period = config.sample_period
    if config.min_period_packets and rate * hosts > 0:
        period = max(period, math.ceil(config.min_period_packets / (rate * hosts)))
    packets = hosts * rate * period * config.max_samples
    if packets >= AUTO_PYTHON_MAX_WORK:
        return packets
    return packets * (mean_route_links(routing) + 1.0)
