"""One set of simulator defaults, shared by every simulator topogen drives.

``topogen simulate`` (the reference simulator, :class:`topogen.sim.SimConfig`),
``topogen run booksim`` (the BookSim2 export and its ``vct33`` setup,
:mod:`topogen.export.booksim`) and ``topogen run sst`` (the SST bundle,
:mod:`topogen.export.sst`) all take their defaults from here, so that the same topology
at the same load gives the same numbers whichever simulator runs it (``docs/sim.md``,
"One set of defaults").  This module sits at the bottom of the pipeline: it imports
nothing from topogen.

The defaults are the papers' setup (Skywalk IV, layout-conscious random topologies IV-C,
DSN V-A): virtual cut-through, 33-flit packets of 256 bits on 96 Gbit/s links, 4 VCs of
two packets each, BookSim's one-cycle router pipeline stages, BookSim's measurement
(3 warm-up periods of 1,000 cycles, at most 10 periods, 5 % convergence, 500-cycle
latency abort) and BookSim's and SST's ``uniform`` traffic, which includes the source.

One cycle is the time a flit takes on a link, ``FLIT_BITS / LINK_GBPS`` = 2.667 ns; layout
link delays (ns) become ``ceil(delay / CYCLE_NS)`` cycles on every simulator.  BookSim
reports cycles, the reference simulator cycles, SST ns: multiply cycles by
:data:`CYCLE_NS` to compare, or divide SST's ns by :data:`SST_CYCLE_NS`, the cycle SST runs
(:func:`sst_clock_ns`: SST keeps time in whole picoseconds, so its cycle is the nearest
even number of ps, 2,666 ps, and every SST time of the export is a whole number of its
half cycles).

>>> from topogen import sim_defaults as d
>>> round(d.CYCLE_NS, 4), d.PACKET_SIZE, d.NUM_VCS, d.VC_BUF_SIZE
(2.6667, 33, 4, 66)
>>> d.SST_CYCLE_NS, d.sst_router_params()["input_latency"], d.sst_router_params()["output_latency"]
(2.666, '1333ps', '5332ps')
>>> d.booksim_options()["vc_buf_size"], d.sst_router_params()["link_bw"]
(66, '12.0030007501875GB/s')
"""

from __future__ import annotations

import math

from .errors import ParameterError

__all__ = [
    "link_latency_cycles",
    "FLIT_BITS", "LINK_GBPS", "CYCLE_NS", "PACKET_SIZE", "NUM_VCS", "VC_BUF_SIZE",
    "ROUTING_DELAY", "VC_ALLOC_DELAY", "SW_ALLOC_DELAY", "ST_DELAY", "CREDIT_DELAY",
    "INTERNAL_SPEEDUP", "INJECTION_LATENCY", "EJECTION_LATENCY", "TRAFFIC", "SELF_PACKETS",
    "LOAD", "LOAD_UNIT", "ROUTING", "routing_for", "WARMUP_PERIODS", "SAMPLE_PERIOD",
    "MAX_SAMPLES", "LATENCY_THRES", "STOPPING_THRES", "ACC_STOPPING_THRES",
    "RESULTS_REVISION", "SST_CYCLE_NS", "cycle_ns", "router_cycles", "as_dict", "booksim_options",
    "sst_clock_ns", "sst_cycle_ps", "sst_link_bw", "sst_router_latencies", "sst_router_params",
    "sst_nic_params", "sst_message_size",
]

# ---------------------------------------------------------------- links and cycle
#: Bits per flit (the papers' 256-bit flits).
FLIT_BITS = 256
#: Link rate in Gbit/s: a link carries one flit per cycle.
LINK_GBPS = 96.0
#: Cycle length in ns: one flit time, ``FLIT_BITS / LINK_GBPS`` (2.667 ns).
CYCLE_NS = FLIT_BITS / LINK_GBPS

# ---------------------------------------------------------------- flow control
#: Flits per packet (33: one header flit and 32 data flits).
PACKET_SIZE = 33
#: Virtual channels per port.
NUM_VCS = 4
#: Flits per VC buffer: two whole packets (virtual cut-through needs at least one).
VC_BUF_SIZE = 2 * PACKET_SIZE

# ---------------------------------------------------------------- router (BookSim's iq router)
#: Pipeline stages in cycles: routing, VC allocation, switch allocation, switch traversal.
ROUTING_DELAY = 1
VC_ALLOC_DELAY = 1
SW_ALLOC_DELAY = 1
ST_DELAY = 1
#: Extra cycles before a router processes a returned credit (BookSim ``credit_delay``).
CREDIT_DELAY = 0
#: Router internal steps per cycle (BookSim ``internal_speedup``; SST: ``xbar_bw / link_bw``).
INTERNAL_SPEEDUP = 1.0
#: Host channels in cycles (BookSim's anynet node channels have latency 1).
INJECTION_LATENCY = 1
EJECTION_LATENCY = 1

# ---------------------------------------------------------------- traffic
#: Traffic pattern.
TRAFFIC = "uniform"
#: ``uniform`` includes the source among the destinations, as BookSim's does (SST's
#: merlin.offered_load draws again when it hits the source).
SELF_PACKETS = True
#: Offered load and its unit (flits per host per cycle).
LOAD = 0.1
LOAD_UNIT = "flits"

# ---------------------------------------------------------------- routing
#: BookSim anynet's own route choice (least total link latency, its tie order), the one
#: routing BookSim, SST (through tables) and the reference simulator can all run: the
#: routing of ``topogen run booksim`` and ``topogen crossval``, where BookSim's anynet is
#: matched.  ``topogen simulate``, ``topogen run sst`` and the reproductions route a
#: topology without ``--routing`` as its paper does (:func:`routing_for`).
ROUTING = "booksim-min"


def routing_for(generator: str, available=None) -> tuple[str, str | None, str]:
    """The routing a topology's paper simulates: ``(algorithm, base, source)``.

    ``generator`` is the topology's generator name (``Topology.name``: ``"slimfly"``,
    ``"torus"`` ...); the record is the registry's, beside each generator
    (:data:`topogen.registry.ROUTING_RECORDS`: Slim Fly ``hop`` on fewest-hop routes,
    Dragonfly ``ugal-l``, tori/meshes/hypercubes/HyperX ``dor``, Skywalk/Random/DSN
    ``escape`` on fastest routes, the layout-conscious families ``escape`` on fewest-hop
    routes, fat trees ``anca`` where topogen has it, else ``updown``); a topology of no
    known generator gets ``escape`` on fewest-hop routes.  ``available`` (default
    :data:`topogen.routing.names.ALGORITHMS`, passed by the caller) picks the first
    preferred algorithm topogen has.  ``base`` is the ``base`` of
    :func:`topogen.routing.route` (None: the algorithm's own).

    >>> routing_for("slimfly", ("hop", "dor"))[:2]
    ('hop', 'nr')
    >>> routing_for("torus", ("hop", "dor"))[:2]
    ('dor', None)
    """
    from .registry import routing_record

    record = routing_record(str(generator))
    if available is None:
        available = record.algorithms
    return record.choose(tuple(available)), record.base, record.source

# ---------------------------------------------------------------- measurement (BookSim's)
WARMUP_PERIODS = 3
SAMPLE_PERIOD = 1000
MAX_SAMPLES = 10
LATENCY_THRES = 500.0
STOPPING_THRES = 0.05
ACC_STOPPING_THRES = 0.05

# ---------------------------------------------------------------- resume keys
#: Revision of the numbers a simulation gives for the same inputs.  A change that alters
#: them (the reference simulator's model or random stream, what an export or a driver
#: hands BookSim or SST) bumps it; experiment point ids (:func:`topogen.experiments.spec.point_id`)
#: and the ``--simulator`` back end's point keys include it, so a resumed run never reuses
#: a row of another revision as finished.  1: up to 26 Nov 2026; 2: BookSim's VC
#: allocation stage in the reference router, Bernoulli arrivals drawn as geometric gaps
#: (traffic stream 2), SST on a whole even-picosecond cycle in crossval and ``--simulator sst``;
#: 3: every SST bundle on that cycle (``run sst`` too), its cable latencies whole cycles
#: (``ceil(delay / cycle)``, as BookSim's and the reference simulator's); 4: ``run sst``
#: runs topogen's own endpoint ``topogen.bernoulli_nic`` by default (Bernoulli arrivals,
#: the source included, latency to the tail in cycles, as BookSim and ``simulate``: 63.3
#: cycles instead of 44.2 at the defaults); merlin.offered_load (crossval, ``--simulator
#: sst``) gives the numbers of revision 3; 5: ``internal_speedup`` other than 1 as BookSim's
#: allocation rounds per cycle (``speedup_model="rounds"``), and a measurement whose backlog
#: grows over its sample periods is saturated (:mod:`topogen.sim.measure`).
RESULTS_REVISION = 5


def cycle_ns(flit_bits: int = FLIT_BITS, link_gbps: float = LINK_GBPS,
             clock_ns: float | None = None) -> float:
    """Cycle length in ns: ``clock_ns`` when given, else one flit time ``flit_bits / link_gbps``."""
    return float(clock_ns) if clock_ns is not None else flit_bits / link_gbps


def sst_clock_ns(clock_ns: float = CYCLE_NS) -> float:
    """The cycle SST runs for a cycle of ``clock_ns``: the nearest even number of ps.

    SST keeps time in whole picoseconds: the shared 2.667 ns cycle (256 bit / 96 Gb/s)
    would become a 2,667 ps crossbar clock beside 1,333 ps input and 5,333 ps output
    latencies and 2,666.67 ps flit times, and packets would meet the crossbar clock at
    phases drifting through the run (1-flit tornado on the 4x4 torus: up to 4.9 % below the
    reference simulator at 0.2 load; ``docs/sst.md``, "SST's picosecond clock").  On an
    even number of ps every SST time of the export (link bandwidth, router, link and host
    latencies, the half-cycle input latency included) is a whole number of ps.  Every SST
    bundle (:mod:`topogen.export.sst`: ``topogen run sst``, ``topogen crossval``, the
    ``--simulator sst`` back end) runs this cycle and records it (``cycle_ps``).

    Parameters
    ----------
    clock_ns : float
        The cycle of the other simulators (default :data:`CYCLE_NS`).

    Returns
    -------
    float
        ns per SST cycle (2.666 for the default; 2.5 stays 2.5).

    >>> sst_clock_ns(), sst_clock_ns(2.5), sst_clock_ns(1.0)
    (2.666, 2.5, 1.0)
    """
    return sst_cycle_ps(clock_ns) / 1000.0


def sst_cycle_ps(clock_ns: float = CYCLE_NS) -> int:
    """:func:`sst_clock_ns` in whole ps (2666 for the default)."""
    return 2 * max(1, round(float(clock_ns) * 500))


#: The cycle SST runs with the shared defaults: 2.666 ns (:func:`sst_clock_ns`).
SST_CYCLE_NS = sst_clock_ns(CYCLE_NS)


def sst_link_bw(clock_ns: float = CYCLE_NS, flit_bits: int = FLIT_BITS) -> str:
    """SST bandwidth of one flit per SST cycle (:func:`sst_clock_ns` of ``clock_ns``):
    ``"12.0030007501875GB/s"`` for the defaults, a flit time of exactly 2,666 ps."""
    return f"{flit_bits / 8 / sst_clock_ns(clock_ns):.15g}GB/s"


def router_cycles(pipeline_cycles: int, internal_speedup: float = INTERNAL_SPEEDUP) -> int:
    """Cycles a head spends in a router's pipeline: ``ceil(pipeline / internal_speedup)``.

    BookSim's router runs ``internal_speedup`` internal steps per cycle (a fractional
    speedup accumulates), and a one-cycle stage takes one step, so four stages take
    ``ceil(4 / s)`` cycles (measured on BookSim2: 4, 3, 2, 2 cycles for s = 1, 1.5, 2, 3).
    """
    s = float(internal_speedup)
    return int(math.ceil(pipeline_cycles / s - 1e-9)) if pipeline_cycles else 0


def as_dict() -> dict:
    """Every default by lower-case name (recorded in docs and tests)."""
    return {k.lower(): v for k, v in globals().items() if k.isupper() and k in __all__}


def booksim_options() -> dict:
    """The BookSim options of the shared defaults (the ``vct33`` setup's values).

    Load is in flits (``injection_rate_uses_flits = 1``); link latencies come from the
    netlist, exported with :data:`CYCLE_NS` per cycle.
    """
    return {
        "num_vcs": NUM_VCS, "vc_buf_size": VC_BUF_SIZE, "packet_size": PACKET_SIZE,
        "routing_delay": ROUTING_DELAY, "vc_alloc_delay": VC_ALLOC_DELAY,
        "sw_alloc_delay": SW_ALLOC_DELAY, "st_final_delay": ST_DELAY,
        "credit_delay": CREDIT_DELAY, "internal_speedup": float(INTERNAL_SPEEDUP),
        "traffic": TRAFFIC, "injection_rate": float(LOAD),
        "injection_rate_uses_flits": 1 if LOAD_UNIT == "flits" else 0,
        "warmup_periods": WARMUP_PERIODS, "sample_period": SAMPLE_PERIOD,
        "max_samples": MAX_SAMPLES, "latency_thres": float(LATENCY_THRES),
        "stopping_thres": float(STOPPING_THRES), "acc_stopping_thres": float(ACC_STOPPING_THRES),
    }


def _bytes(bits: float) -> str:
    return f"{bits / 8:g}B"


def sst_router_latencies(router_delay: int, cycle: float = SST_CYCLE_NS) -> tuple[str, str]:
    """``merlin.hr_router`` ``input_latency`` and ``output_latency`` of a router that
    takes ``router_delay`` cycles of ``cycle`` ns per hop, as BookSim's and the reference
    simulator's pipeline.

    hr_router adds two steps of its own to the two latencies: the packet waits for the
    next crossbar clock edge, and the output port sends it one flit cycle after the
    crossbar moved it.  An input latency of half a cycle puts arrivals between clock edges
    (the edge then comes exactly one cycle after the arrival), so ``input = cycle / 2``,
    ``output = (router_delay - 2) cycles`` gives ``router_delay`` cycles per router.
    Measured on SST-Core + merlin master (ring of 8 switches, ``shift:k`` traffic, 1- and
    33-flit packets, 1 to 3 links): the same latencies as the reference simulator with
    SST's injection process to 0.05 % (``docs/sst.md``).  A router faster than 2 cycles
    cannot be expressed (output latency 0: 2 cycles).  ``cycle`` is SST's cycle (default
    :data:`SST_CYCLE_NS`; an even number of ps keeps ``cycle / 2`` whole).
    """
    out_cycles = max(int(router_delay) - 2, 0)
    return f"{round(cycle * 500)}ps", f"{round(out_cycles * cycle * 1000)}ps"


def sst_router_params(clock_ns: float = CYCLE_NS) -> dict:
    """``merlin.hr_router`` parameters of the shared defaults.

    Link rate one flit of :data:`FLIT_BITS` per SST cycle (:func:`sst_link_bw`: the cycle
    ``clock_ns`` on SST's even-picosecond grid, :func:`sst_clock_ns`), crossbar at
    ``INTERNAL_SPEEDUP`` times the link rate, the router pipeline as input and output
    latency (:func:`sst_router_latencies` on the same cycle), and input/output buffers of
    :data:`VC_BUF_SIZE` flits.

    Parameters
    ----------
    clock_ns : float
        The other simulators' cycle (default :data:`CYCLE_NS`).
    """
    cycle = sst_clock_ns(clock_ns)
    lat_in, lat_out = sst_router_latencies(
        router_cycles(ROUTING_DELAY + VC_ALLOC_DELAY + SW_ALLOC_DELAY + ST_DELAY, INTERNAL_SPEEDUP), cycle)
    return {
        "link_bw": sst_link_bw(clock_ns),
        "xbar_bw": f"{FLIT_BITS / 8 * INTERNAL_SPEEDUP / cycle:.15g}GB/s",
        "flit_size": _bytes(FLIT_BITS),
        "input_latency": lat_in,
        "output_latency": lat_out,
        "input_buf_size": _bytes(VC_BUF_SIZE * FLIT_BITS),
        "output_buf_size": _bytes(VC_BUF_SIZE * FLIT_BITS),
        "xbar_arb": "merlin.xbar_arb_lru",
        "num_vns": 1,
    }


def sst_nic_params(clock_ns: float = CYCLE_NS) -> dict:
    """``merlin.linkcontrol`` parameters of every endpoint (link rate of
    :func:`sst_link_bw`, buffers of :data:`VC_BUF_SIZE` flits so that a whole packet fits)."""
    return {
        "link_bw": sst_link_bw(clock_ns),
        "input_buf_size": _bytes(VC_BUF_SIZE * FLIT_BITS),
        "output_buf_size": _bytes(VC_BUF_SIZE * FLIT_BITS),
    }


def sst_message_size() -> str:
    """SST message (packet) size of :data:`PACKET_SIZE` flits: ``"1056B"``."""
    return _bytes(PACKET_SIZE * FLIT_BITS)


def link_latency_cycles(layout, clock_period_ns: float = CYCLE_NS):
    """Per-link latency in router clock cycles: ``ceil(link delay / clock period)``, at least 1.

    Parameters
    ----------
    layout : Layout
        Supplies ``link_delay`` (ns) in ``topology.edges`` order.
    clock_period_ns : float
        Router clock period in ns (> 0); default the shared cycle
        :data:`topogen.sim_defaults.CYCLE_NS` (one 256-bit flit at 96 Gbit/s).

    Returns
    -------
    ndarray of int64, shape (E,)
    """
    import numpy as np

    period = float(clock_period_ns)
    if not math.isfinite(period) or period <= 0:
        raise ParameterError(f"clock_period_ns must be a positive number of ns, got {clock_period_ns!r}")
    delay = np.asarray(layout.link_delay, dtype=float)
    # a tiny tolerance keeps exact multiples (10 ns / 0.5 ns) from rounding up
    cycles = np.ceil(delay / period - 1e-9).astype(np.int64)
    return np.maximum(cycles, 1)
