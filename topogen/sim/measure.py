"""Running the reference simulator: BookSim-style measurement (:func:`simulate`) and
explicit packet traces (:func:`run_trace`).

:func:`simulate` follows BookSim's ``sim_type = latency``: ``warmup_periods`` sample
periods of warm-up, then sample periods until the mean latency and the accepted rate
change by less than ``stopping_thres`` / ``acc_stopping_thres`` for ``converge_samples``
periods in a row (at most ``max_samples`` periods in all), then injection goes on while
the measured packets (those created during the measurement periods) drain.  A sample
period lasts ``sample_period`` cycles (1000, as BookSim) or longer at low loads: long
enough for about ``min_period_packets`` packets.  The run is ``saturated`` when the mean
latency (delivered packets of the period and the ages of the packets still in flight or
queued) exceeds ``latency_thres``, when the source queues hold more than
``max_queue_packets`` per host, when its backlog grew over the measurement periods
(:func:`falls_behind`: accepted under 90 % of the packets created, or under 98 % beyond
three standard errors of the period-to-period spread; not with ``stop_rule =
"latency-only"``, BookSim's own rule), when it does not converge *and* falls behind
(``stop_rule = "strict"``: accepts under 90 % of the offered packets, or keeps a backlog at
the sources), or when the drain does not finish within ``drain_cycles``; a run that does not converge but keeps up
completes with a message saying so; it is ``deadlock`` when no packet moved for
``deadlock_cycles`` cycles while packets were in the network.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .. import sim_defaults as _d
from .._rng import make_rng, resolve_seed
from .._version import __version__
from ..errors import ParameterError
from ..results import make_row
from .model import Engine, Network, SimConfig
from .traffic import TRAFFIC_STREAM, BernoulliArrivals, Traffic

__all__ = ["simulate", "run_fixed", "describe", "run_trace", "TraceResult", "LOAD_UNITS", "packet_rate",
           "start_traffic", "fixed_run", "FixedRun", "falls_behind",
           "ACCEPT_FLOOR", "ACCEPT_Z"]

#: load unit name -> results ``load_unit`` text
LOAD_UNITS = {"flits": "flits/node/cycle", "packets": "packets/node/cycle", "gbps": "Gbit/s/node"}

_BLOCK_CYCLES = 256


def packet_rate(load: float, unit: str, config: SimConfig) -> float:
    """Packets per host per cycle of an offered ``load`` in ``unit`` (see :data:`LOAD_UNITS`)."""
    if unit not in LOAD_UNITS:
        raise ParameterError(f"load unit must be one of {', '.join(LOAD_UNITS)}, got {unit!r}")
    if isinstance(load, bool) or not isinstance(load, (int, float, np.number)) or not (
            math.isfinite(load) and load > 0):
        raise ParameterError(f"offered load must be a positive number, got {load!r}")
    if unit == "packets":
        p = float(load)
    elif unit == "flits":
        p = float(load) / config.packet_size
    else:
        p = float(load) / config.link_gbps / config.packet_size
    if p > 1.0:
        raise ParameterError(
            f"offered load {load} {LOAD_UNITS[unit]} is more than one packet per host per cycle "
            f"(packet_size={config.packet_size}); Bernoulli injection needs at most 1")
    return p


def _config(config, overrides) -> SimConfig:
    if config is None:
        config = SimConfig(**overrides)
    elif overrides:
        from dataclasses import replace

        config = replace(config, **overrides)
    if not isinstance(config, SimConfig):
        raise ParameterError("config must be a topogen.sim.SimConfig")
    return config


def simulate(routing, *, traffic: str = _d.TRAFFIC, load: float = _d.LOAD, load_unit: str = _d.LOAD_UNIT,
             config: SimConfig | None = None, seed=None, layout=None,
             self_packets: bool = _d.SELF_PACKETS, return_channel_flits: bool = False,
             **overrides):
    """Simulate ``routing`` under Bernoulli traffic at one offered load.

    Parameters
    ----------
    routing : topogen.routing.Routing
    traffic : str
        A pattern of :mod:`topogen.sim.traffic`.
    load : float
        Offered load per active host, in ``load_unit``.
    load_unit : {"flits", "packets", "gbps"}
        Flits or packets per host per cycle, or Gbit/s per host (a link carries
        ``config.link_gbps``, one flit per cycle).
    config : SimConfig, optional
        Model and measurement parameters; keyword ``overrides`` replace fields.
    seed : int, optional
        Seed of every random choice (drawn and recorded when None).
    layout : Layout, optional
        Link delays (default ``routing.layout``).
    self_packets : bool
        ``uniform``: a host may send to itself (BookSim's and SST's definition, the
        shared default :data:`topogen.sim_defaults.SELF_PACKETS`).
    return_channel_flits : bool
        Also return the measured load of every directed link: flits per cycle over the
        measurement periods, one value per CSR entry of ``routing.topology.csr()``
        (NaN when no measurement period ran).

    Returns
    -------
    dict, or (dict, ndarray) with ``return_channel_flits``
        One row of :mod:`topogen.results` with ``simulator = "reference"``.
    """
    cfg = _config(config, overrides)
    p = packet_rate(load, load_unit, cfg)
    cfg = cfg.for_run(routing, p)  # engine="auto": the Python engine for a small run
    seed = resolve_seed(seed)
    rng = make_rng(seed)
    wall0 = time.perf_counter()
    net = Network(routing, cfg, layout)
    tr = Traffic(traffic, net.num_hosts, rng, routing=routing, self_packets=self_packets)
    eng = _engine(net, rng)
    n_active = len(tr.active)
    # A period long enough to hold about min_period_packets packets at the offered load,
    # so that low loads converge on means of real samples (BookSim keeps 1000 cycles).
    P = cfg.sample_period
    if cfg.min_period_packets and p * n_active > 0:
        P = max(P, math.ceil(cfg.min_period_packets / (p * n_active)))
    eng.measure_from = cfg.warmup_periods * P
    tally = _Tally(P, cfg.packet_size, cfg.stamp_offset, cfg.injection_overhead)
    eng.on_deliver = tally.on_deliver
    eng.on_deliver_arrays = tally.on_deliver_arrays
    stop_at = start_traffic(eng, net, tr, p, rng, tally.created, P, cfg.injection)
    M = net.num_links
    run = _sample_periods(eng, cfg, tally, P, p, n_active, M if return_channel_flits else None)
    if run.status == "completed" and cfg.stop_rule != "latency-only":
        verdict = falls_behind(tally.created, tally.acc, cfg.warmup_periods, run.samples)
        if verdict:
            run.status, run.message = "saturated", verdict
    flits_to = eng.port_flits[:M] if return_channel_flits else None
    if run.status == "completed":
        _drain(eng, cfg, tally, run, P)
    stop_at[0] = eng.now
    channel = np.full(M, np.nan)
    if return_channel_flits and run.samples:
        base = np.zeros(M) if run.flits_from is None else np.asarray(run.flits_from, dtype=float)
        # flits sent up to the end of the measurement (or of the last period run)
        channel = (np.asarray(flits_to, dtype=float) - base) / (run.samples * P)
    row = _result_row(tally, run, cfg, eng, P, n_active, wall=time.perf_counter() - wall0, seed=seed)
    row.update(_provenance(routing, traffic=tr, cfg=cfg, load=load, load_unit=load_unit,
                           net=net, p=p, eng=eng))
    if return_channel_flits:
        return make_row(**row), channel
    return make_row(**row)


#: the backlog rule: a run is saturated when, over its measurement periods, the accepted
#: packets stay below ``ACCEPT_FLOOR`` of the created ones by more than ``ACCEPT_Z``
#: standard errors of the period-to-period spread (:func:`falls_behind`)
ACCEPT_FLOOR = 0.98
ACCEPT_Z = 3.0
#: fewest measurement periods whose spread the backlog rule trusts
ACCEPT_MIN_PERIODS = 3


def falls_behind(created: dict, accepted: dict, first: int, samples: int, *,
                 floor: float = ACCEPT_FLOOR, z: float = ACCEPT_Z) -> str | None:
    """Why a run that kept its latency under ``latency_thres`` is nevertheless saturated,
    or None: the reference simulator's rule on top of BookSim's.

    ``created`` and ``accepted`` count packets per sample period (by creation and by
    delivery cycle); the measurement is the ``samples`` periods from ``first``.  Per period
    ``i`` the deficit ``d_i = created_i - accepted_i`` is exactly the growth of the backlog
    (packets queued at the sources or in flight) during that period, so their sum ``D`` is
    the backlog's growth over the measurement.  A load the network sustains keeps a
    stationary backlog: ``D`` is the difference of two samples of it.  A load above the
    network's throughput ``c`` grows it by ``(offered - c)`` per host and cycle, linearly.
    The run is saturated when

    * ``D`` exceeds 10 % of the packets created (the point estimate alone: a run that
      delivers under 90 % of its packets), or
    * ``D - z * s * sqrt(m) > (1 - floor) * C`` with ``m >= 3`` periods, ``s`` the sample
      standard deviation of the ``d_i`` and ``C`` the packets created: accepted over
      offered is below ``floor`` (98 %) even at the upper end of a ``z`` (3) standard-error
      band.  For a stationary backlog ``s * sqrt(m)`` bounds the spread of ``D`` from above
      (the ``d_i`` are differences of consecutive backlog samples, so their sum telescopes),
      and the floor keeps a sustained load whose backlog is still settling after the
      warm-up (by under 2 % of its packets) from counting as saturated.  The rule resolves
      saturation to about 2 % of the offered load whatever the network's size, where the
      90 % rule alone needs 10 %.
    """
    c = np.array([created.get(i, 0) for i in range(first, first + samples)], dtype=np.float64)
    a = np.array([accepted.get(i, 0) for i in range(first, first + samples)], dtype=np.float64)
    made = float(c.sum())
    if not made:
        return None
    deficit = made - float(a.sum())
    if deficit > 0.1 * made:
        return (f"delivered {int(a.sum())} of the {int(made)} packets created in the measurement "
                f"periods (under 90 %)")
    if samples < ACCEPT_MIN_PERIODS:
        return None
    noise = z * float(np.std(c - a, ddof=1)) * math.sqrt(samples)
    if deficit - noise > (1.0 - floor) * made:
        return (f"backlog grew by {int(deficit)} packets over the {samples} measurement periods: accepted "
                f"{a.sum() / made:.3f} of the offered packets (at most {(a.sum() + noise) / made:.3f} at "
                f"{z:g} standard errors of the per-period spread, under {floor:g})")
    return None


class _Tally:
    """What a measurement counts as packets arrive: per sample period the packets created,
    delivered and their latency sum; over the measurement periods each measured packet's
    latency, network latency and hops."""

    def __init__(self, period: int, packet_size: int, head: int, overhead: int):
        self.P, self.S, self.head, self.overhead = period, packet_size, head, overhead
        self.created: dict = {}  # period -> packets created (filled by start_traffic)
        self.acc: dict = {}  # period -> packets delivered
        self.lat_sum: dict = {}  # period -> latency sum of delivered packets
        # measured packets: lists (per packet, Python engine) and int32 arrays (batches,
        # compiled engine: no Python int per packet)
        self.m_lat: list[int] = []
        self.m_net: list[int] = []
        self.m_hops: list[int] = []
        self.m_chunks: list[tuple] = []  # (latency, network latency, links) arrays
        self.m_n = 0
        self.m_sum = 0

    def on_deliver(self, pkt, tail):
        k = tail // self.P
        self.acc[k] = self.acc.get(k, 0) + 1
        lat = tail - pkt.ctime - self.head
        self.lat_sum[k] = self.lat_sum.get(k, 0) + lat
        if pkt.measured:
            self.m_lat.append(lat)
            self.m_n += 1
            self.m_sum += lat
            self.m_net.append(tail - self.head - pkt.sent + self.overhead)
            self.m_hops.append(pkt.links)

    def on_deliver_arrays(self, ctime, sent, tail, links, measured):
        """:meth:`on_deliver` for a batch of packets in delivery order (compiled engine)."""
        lat = tail - ctime - self.head
        if not len(tail):
            return
        per = tail // self.P  # the sample periods (a few per batch: counted, not sorted)
        k0 = int(per.min())
        cnt = np.bincount(per - k0)
        sums = np.bincount(per - k0, weights=lat)
        for kk in np.flatnonzero(cnt).tolist():
            self.acc[k0 + kk] = self.acc.get(k0 + kk, 0) + int(cnt[kk])
            self.lat_sum[k0 + kk] = self.lat_sum.get(k0 + kk, 0) + int(sums[kk])
        ml = lat[measured]
        if len(ml):
            self.m_chunks.append((ml.astype(np.int32),
                                  (tail - self.head - sent + self.overhead)[measured].astype(np.int32),
                                  links[measured].astype(np.int32)))
            self.m_n += len(ml)
            self.m_sum += int(ml.sum())

    def measured(self, i: int) -> np.ndarray:
        """Field ``i`` (0 latency, 1 network latency, 2 links) of every measured packet."""
        lists = (self.m_lat, self.m_net, self.m_hops)
        parts = [np.asarray(lists[i], dtype=np.int64)] + [c[i] for c in self.m_chunks]
        return np.concatenate(parts).astype(np.int64)

    def mean_latency(self, eng, first: int, last: int, running: bool) -> float:
        """BookSim's check against ``latency_thres``: the packets delivered since the
        statistics were last cleared (periods ``first .. last-1``; once measuring, only
        the measured packets) and every flit BookSim has created and not yet delivered,
        counted at its age (a packet weighs ``S``, one per flit).  BookSim creates a
        source's next packet only when the previous one is injected (its creation time
        stays the Bernoulli time), so of a source queue only the head packet counts."""
        if running:
            lsum, n = self.m_sum, self.m_n
        else:
            lsum = sum(self.lat_sum.get(i, 0) for i in range(first, last))
            n = sum(self.acc.get(i, 0) for i in range(first, last))
        n_heads, sum_heads = eng.source_heads()
        inflight = eng.in_network + n_heads
        ages = eng.now * inflight - (eng.ctime_sum - eng.srcq_ctime) - sum_heads
        return (lsum + self.S * ages) / max(n + self.S * inflight, 1)

    @staticmethod
    def window(counts: dict, first: int, samples: int) -> int:
        """Sum of per-period ``counts`` over the ``samples`` measurement periods from ``first``."""
        return sum(counts.get(i, 0) for i in range(first, first + samples))


@dataclass
class _Run:
    """How the sample periods ended: the outcome so far, the measurement periods run, the
    packets delivered in them, the cycle the measurement ended (completed runs) and the
    links' flit counts when it began (channel loads)."""

    status: str = "completed"
    message: str | None = None
    samples: int = 0
    delivered: int = 0
    end_measure: int | None = None
    flits_from: np.ndarray | None = None


def _sample_periods(eng, cfg: SimConfig, tally: _Tally, P: int, p: float, n_active: int,
                    links: int | None) -> _Run:
    """Warm-up and measurement periods until the means converge (BookSim's
    ``sim_type = latency``), a deadlock, saturation or ``max_samples``."""
    run = _Run()
    prev = None
    conv = 0
    cum_lat = 0
    strict = cfg.stop_rule == "strict"
    for k in range(1, cfg.max_samples + 1):
        eng.run(k * P)
        if links is not None and k == cfg.warmup_periods:
            run.flits_from = eng.port_flits[:links]
        if eng.deadlocked:
            run.status, run.message = "deadlock", (f"no packet moved for {eng.deadlock_cycles} cycles with "
                                                   f"{eng.in_network} packets in the network (cycle {eng.now})")
            return run
        dead = eng.deadlocked_buffers()
        if dead:
            run.status, run.message = "deadlock", (f"{len(dead)} VC buffers hold packets that wait on each "
                                                   f"other in a cycle (cycle {eng.now})")
            return run
        warming = k <= cfg.warmup_periods
        # BookSim clears its statistics before warm-up periods 0, 2, 4 ... and when the
        # measurement starts
        first = (k - 1) - (k - 1) % 2 if warming else cfg.warmup_periods
        lat_now = tally.mean_latency(eng, first, k, not warming)
        if lat_now > cfg.latency_thres:
            run.status, run.message = "saturated", (f"mean latency {lat_now:.1f} cycles exceeded "
                                                    f"latency_thres={cfg.latency_thres:g} at cycle {k * P}")
            return run
        if eng.in_source > cfg.max_queue_packets * n_active:
            run.status, run.message = "saturated", (f"source queues hold {eng.in_source} packets "
                                                    f"(> {cfg.max_queue_packets} per host) at cycle {k * P}")
            return run
        if warming:
            continue
        run.samples += 1
        cum_lat += tally.lat_sum.get(k - 1, 0)
        run.delivered += tally.acc.get(k - 1, 0)
        cum_n = run.delivered
        lat_k = cum_lat / cum_n if cum_n else math.inf
        acc_k = cum_n / run.samples
        if prev is not None and cum_n:
            dl = abs(lat_k - prev[0]) / lat_k
            da = abs(acc_k - prev[1]) / acc_k
            conv = conv + 1 if dl < cfg.stopping_thres and da < cfg.acc_stopping_thres else 0
        prev = (lat_k, acc_k)
        if conv >= cfg.converge_samples:
            run.end_measure = k * P
            return run
    # Not converged to stopping_thres.  BookSim measures on (it drains and reports the
    # figures); the strict rule calls the run saturated when it falls behind: fewer
    # packets accepted than offered (by 10 %) or a backlog at the sources.
    cum_n = run.delivered
    offered = p * n_active * run.samples * P
    behind = cum_n < 0.9 * offered or eng.in_source > n_active
    if not cum_n or (strict and behind):
        run.status, run.message = "saturated", (f"latency did not converge within max_samples="
                                                f"{cfg.max_samples} sample periods (accepted "
                                                f"{cum_n} of about {offered:.0f} offered packets)")
    else:
        run.end_measure = cfg.max_samples * P
        run.message = (f"latency had not converged to stopping_thres={cfg.stopping_thres:g} "
                       f"after max_samples={cfg.max_samples} periods of {P} cycles; accepted "
                       f"{cum_n} of about {offered:.0f} offered packets")
    return run


def _drain(eng, cfg: SimConfig, tally: _Tally, run: _Run, P: int) -> None:
    """Run on, injection going, until every measured packet is delivered (or
    ``drain_cycles``); a deadlock or ``latency_thres`` on the way ends it (``run``'s
    status)."""
    end_measure = run.end_measure
    eng.measure_to = end_measure
    drain = cfg.drain_cycles if cfg.drain_cycles is not None else cfg.max_samples * P
    t = end_measure
    step = min(P, 64)
    check = 1000  # BookSim checks latency_thres every 1000 cycles of the drain
    while tally.m_n < eng.measured_created and t < end_measure + drain:
        t = min(t + step, end_measure + drain)
        eng.run(t)
        if eng.deadlocked:
            run.status, run.message = "deadlock", (f"no packet moved for {eng.deadlock_cycles} cycles "
                                                   f"during the drain (cycle {eng.now})")
            return
        if t % P == 0 and eng.deadlocked_buffers():
            run.status, run.message = "deadlock", (f"VC buffers hold packets that wait on each other "
                                                   f"in a cycle (cycle {eng.now}, drain)")
            return
        if t - end_measure >= check:
            check += 1000
            lat_now = tally.mean_latency(eng, 0, 0, True)
            if lat_now > cfg.latency_thres:
                run.status, run.message = "saturated", (
                    f"mean latency {lat_now:.1f} cycles exceeded latency_thres="
                    f"{cfg.latency_thres:g} while draining the measured packets (cycle {t})")
                return
    if tally.m_n < eng.measured_created:
        run.status, run.message = "saturated", (f"{eng.measured_created - tally.m_n} measured "
                                                f"packets not delivered within drain_cycles={drain}")


def _result_row(tally: _Tally, run: _Run, cfg: SimConfig, eng, P: int, n_active: int, *,
                wall: float, seed) -> dict:
    """The figures of a finished run as the fields of a results row (before provenance)."""
    S = cfg.packet_size
    row = dict(simulator="reference", status=run.status, message=run.message,
               latency_unit="cycles", sim_cycles=int(eng.now) + 1, wall_time_s=wall,
               sim_seed=seed, samples=run.samples)
    if run.status in ("completed", "saturated") and run.samples:
        # the rates of the measurement periods (for a saturated run, those run so far: the
        # saturation throughput when the offered load is above it, as BookSim prints)
        span = run.samples * P
        acc_n = tally.window(tally.acc, cfg.warmup_periods, run.samples)
        cre_n = tally.window(tally.created, cfg.warmup_periods, run.samples)
        row.update(accepted_load=acc_n / (n_active * span), accepted_flit_rate=acc_n * S / (n_active * span),
                   injected_load=cre_n / (n_active * span), injected_flit_rate=cre_n * S / (n_active * span))
    if run.status == "completed":
        lat = tally.measured(0).astype(np.float64)
        netl = tally.measured(1).astype(np.float64)
        row.update(
            latency_avg=lat.mean(), latency_min=lat.min(), latency_max=lat.max(),
            latency_p50=np.percentile(lat, 50), latency_p90=np.percentile(lat, 90),
            latency_p99=np.percentile(lat, 99),
            network_latency_avg=netl.mean(), network_latency_min=netl.min(),
            network_latency_max=netl.max(), flit_latency_avg=lat.mean() - (S - 1) / 2,
            hops_avg=float(np.mean(tally.measured(2))) + 1.0, packets=len(lat))
    return row


def describe(routing, *, traffic: str = _d.TRAFFIC, load: float = _d.LOAD, load_unit: str = _d.LOAD_UNIT,
             config: SimConfig | None = None, seed=None, layout=None,
             self_packets: bool = _d.SELF_PACKETS, **overrides) -> dict:
    """The provenance columns :func:`simulate` would write for these arguments (no
    simulation): topology, routing, traffic, load, parameters and ``sim_seed``."""
    cfg = _config(config, overrides)
    p = packet_rate(load, load_unit, cfg)
    seed = resolve_seed(seed)
    net = Network(routing, cfg, layout)
    tr = Traffic(traffic, net.num_hosts, make_rng(seed), routing=routing, self_packets=self_packets)
    row = _provenance(routing, traffic=tr, cfg=cfg, load=load, load_unit=load_unit, net=net, p=p)
    row["sim_seed"] = seed
    row["simulator"] = "reference"
    return make_row(**row)


def start_traffic(eng, net, tr, p, rng, created, period, injection="bernoulli"):
    """Schedule packet generation (blocks of 256 cycles) on ``eng``.

    ``bernoulli``: every cycle each active host creates a packet with probability ``p``
    (drawn as geometric gaps per host: :class:`~topogen.sim.traffic.BernoulliArrivals`).
    ``periodic``: every active host creates its ``k``-th packet at cycle
    ``floor(k / p)``, ``k = 0, 1, ...``, all hosts in step (SST merlin.offered_load: a
    fixed send interval from time 0 on every endpoint).

    Parameters
    ----------
    eng : Engine or CompiledEngine
        The engine that receives the packets (``eng.inject_many`` per block).
    net : Network
        The simulated network.
    tr : Traffic
        The pattern: its active hosts and their destinations.
    p : float
        Packets per active host and cycle.
    rng : numpy.random.Generator
        The run's random stream (arrivals and destinations).
    created : dict
        Packets created per sample period (updated in place).
    period : int
        Cycles of one sample period (the key of ``created``).
    injection : {"bernoulli", "periodic"}
        The injection process.

    Returns
    -------
    list
        One element: set it to a cycle to stop generating from there on.
    """
    active = tr.active
    n_active = len(active)
    stop_at = [math.inf]
    arrivals = BernoulliArrivals(n_active, p, rng) if injection != "periodic" else None

    def block(t0):
        if t0 >= stop_at[0]:
            return
        if injection == "periodic":
            # every k whose cycle floor(k / p) falls in this block, exactly once
            ks = np.arange(max(math.floor(t0 * p) - 1, 0), math.ceil((t0 + _BLOCK_CYCLES) * p) + 2,
                           dtype=np.int64)
            tk = np.floor(ks / p + 1e-9).astype(np.int64) - t0
            tk = tk[(tk >= 0) & (tk < _BLOCK_CYCLES)]
            times = np.repeat(tk + t0, n_active)
            hi = np.tile(np.arange(n_active), len(tk))
        else:
            times, hi = arrivals.take(t0, t0 + _BLOCK_CYCLES)
        src = active[hi]
        dst = tr.destinations(src, rng)
        keep = dst >= 0
        if not keep.all():
            times, src, dst = times[keep], src[keep], dst[keep]
        if len(times):
            k = times // period  # non-decreasing
            k0 = int(k[0])
            for i, c in enumerate(np.bincount(k - k0).tolist()):
                if c:
                    created[k0 + i] = created.get(k0 + i, 0) + c
        eng.inject_many(times, src, dst)
        eng.schedule(t0 + _BLOCK_CYCLES, block)

    eng.schedule(0, block)
    return stop_at


@dataclass
class FixedRun:
    """What :func:`fixed_run` simulated: the engine (its ``log``, ``srcq``, ``deadlocked``
    ...), the network, the traffic pattern and the packets created (``{0: count}``)."""

    engine: Engine
    network: Network
    traffic: Traffic
    created: dict


def fixed_run(routing, config: SimConfig, cycles: int, *, traffic: str, rate: float, seed,
              layout=None, self_packets: bool = _d.SELF_PACKETS, stops=(), on_stop=None,
              **engine_attrs) -> FixedRun:
    """Run the reference simulator for exactly ``cycles`` cycles: no warm-up, no drain.

    The one set-up of a fixed run (one random stream from ``seed`` for the traffic's
    destinations and arrivals, the network, the engine, the traffic from cycle 0 on),
    shared by :func:`run_fixed` and ``reference-sst``'s run on SST's timeline
    (:func:`topogen.experiments.reference_sst.run_like_sst`).

    Parameters
    ----------
    routing : Routing
    config : SimConfig
    cycles : int
        Events before this cycle are simulated.
    traffic : str
        Traffic pattern name.
    rate : float
        Packets per active host and cycle (:func:`packet_rate`).
    seed : int or None
        None draws one (:func:`topogen._rng.resolve_seed`).
    layout : Layout, optional
        Link latencies from cable lengths.
    self_packets : bool
        Whether uniform traffic may pick the source itself.
    stops : iterable of int
        Cycles (increasing, below ``cycles``) at which to pause and call ``on_stop(cycle,
        engine)``; the run itself is the same with or without them.
    on_stop : callable, optional
    **engine_attrs
        Engine attributes set before the traffic starts (``record=True``, ``on_deliver`` ...).

    Returns
    -------
    FixedRun
    """
    rng = make_rng(resolve_seed(seed))
    net = Network(routing, config, layout)
    tr = Traffic(traffic, net.num_hosts, rng, routing=routing, self_packets=self_packets)
    eng = engine_for(net, rng)
    for name, value in engine_attrs.items():
        setattr(eng, name, value)
    created: dict = {}
    start_traffic(eng, net, tr, rate, rng, created, max(1, int(cycles)), config.injection)
    for t in stops:
        if t < cycles:
            eng.run(t)
            on_stop(t, eng)
    eng.run(cycles)
    return FixedRun(eng, net, tr, created)


def run_fixed(routing, cycles: int, *, traffic: str = _d.TRAFFIC, load: float = _d.LOAD,
              load_unit: str = _d.LOAD_UNIT, config: SimConfig | None = None, seed=None, layout=None,
              self_packets: bool = _d.SELF_PACKETS, **overrides) -> dict:
    """Simulate exactly ``cycles`` cycles of Bernoulli traffic (no warm-up, no drain).

    For benchmarks and quick looks; :func:`simulate` is the measurement.  Returns a dict:
    ``created``, ``delivered``, ``in_flight`` packets, ``latency_avg`` (delivered packets),
    ``deadlocked``, ``cycles``, ``wall_time_s``, ``router_cycles_per_s``.
    """
    cfg = _config(config, overrides)
    p = packet_rate(load, load_unit, cfg)
    seed = resolve_seed(seed)
    wall0 = time.perf_counter()
    lat = [0, 0]
    head = cfg.stamp_offset

    def on_deliver(pkt, tail):
        if tail < cycles:
            lat[0] += tail - pkt.ctime - head
            lat[1] += 1

    def on_deliver_arrays(ctime, sent, tail, links, measured):
        ok = tail < cycles
        lat[0] += int((tail - ctime - head)[ok].sum())
        lat[1] += int(ok.sum())

    run = fixed_run(routing, cfg, cycles, traffic=traffic, rate=p, seed=seed, layout=layout,
                    self_packets=self_packets, on_deliver=on_deliver, on_deliver_arrays=on_deliver_arrays)
    eng, net, created = run.engine, run.network, run.created
    wall = time.perf_counter() - wall0
    return {"created": created.get(0, 0), "delivered": lat[1],
            "in_flight": eng.in_network + eng.in_source,
            "latency_avg": lat[0] / lat[1] if lat[1] else math.nan,
            "deadlocked": eng.deadlocked, "cycles": int(cycles), "wall_time_s": wall,
            "engine": eng.engine_name,
            "router_cycles_per_s": net.num_switches * cycles / wall}


def _engine(net, rng):
    """The engine of a run: the Python engine of the input-queued router straight from
    :mod:`.model` when the configuration asks for it (a small run: the compiled engine's
    module, and numba with it, stay unloaded), else
    :func:`topogen.sim._compiled.engine_for`."""
    c = net.config
    if c.engine == "python" and c.router == "input-queued" and c.flow_control != "wormhole":
        return Engine(net, rng)
    from ._compiled import engine_for

    return engine_for(net, rng)


def engine_for(net, rng):
    """:func:`topogen.sim._compiled.engine_for` (loaded on first use)."""
    from ._compiled import engine_for as pick

    return pick(net, rng)


def _engine_note(cfg, eng=None, net=None) -> str:
    """The engine that runs (``python (compiled does not cover ...)`` for a fallback)."""
    if eng is None:
        why = None
        if cfg.engine == "compiled":
            from ._compiled import compiled_covers

            why = compiled_covers(net)
        name = "python" if why or cfg.engine == "python" else "compiled"
    else:
        name, why = eng.engine_name, eng.fallback
    return f"{name} (compiled engine: {why})" if why else name


def _provenance(routing, *, traffic, cfg, load, load_unit, net, p, eng=None) -> dict:
    topo = routing.topology
    params = {"config": cfg.to_dict(), "traffic": traffic.describe(), "load_unit": load_unit,
              "packet_rate": p, "cycle_ns": cfg.cycle_ns, "link_latency": net.latency_source,
              "routing_vcs": routing.num_vcs, "vcs_per_class": net.vcs_per_class,
              "routing_params": routing.params, "engine": _engine_note(cfg, eng, net),
              "traffic_stream": TRAFFIC_STREAM}
    return dict(topology=topo.name, topology_params=topo.params, num_switches=topo.num_switches,
                num_hosts=net.num_hosts, seed=topo.seed, routing=routing.algorithm,
                traffic=traffic.name, offered_load=float(load), load_unit=LOAD_UNITS[load_unit],
                params=params, topogen_version=__version__)


@dataclass
class TraceResult:
    """Outcome of :func:`run_trace`: one entry per delivered packet, in delivery order.

    ``latency = delivered - created`` (tail reaches the destination host, whatever the
    config's ``latency_at``: subtract ``config.stamp_offset`` for the head); ``links`` is the
    number of switch-to-switch links of the route.  ``engine`` is kept for inspection.
    """

    pid: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    created: np.ndarray
    injected: np.ndarray
    delivered: np.ndarray
    links: np.ndarray
    deadlocked: bool
    cycles: int
    engine: Engine
    network: Network

    @property
    def latency(self) -> np.ndarray:
        return self.delivered - self.created


def run_trace(routing, packets, *, config: SimConfig | None = None, seed=0, layout=None,
              max_cycles: int | None = None, **overrides) -> TraceResult:
    """Simulate explicit packets ``(creation cycle, source host, destination host)``.

    Runs until every packet is delivered, a deadlock is detected, or ``max_cycles``.
    Packet ids are the row indices of ``packets`` sorted by creation time (stable).
    """
    cfg = _config(config, overrides)
    arr = np.asarray(packets, dtype=np.int64).reshape(-1, 3)
    net = Network(routing, cfg, layout)
    if len(arr) and (arr[:, 0].min() < 0 or arr[:, 1:].min() < 0 or arr[:, 1:].max() >= net.num_hosts):
        raise ParameterError(f"packets need times >= 0 and hosts in [0, {net.num_hosts - 1}]")
    order = np.argsort(arr[:, 0], kind="stable")
    arr = arr[order]
    eng = engine_for(net, make_rng(seed))
    eng.record = True
    eng.inject_many(arr[:, 0], arr[:, 1], arr[:, 2])
    limit = max_cycles if max_cycles is not None else 1 << 62
    eng.run(limit, stop_when_idle=True)
    lg = eng.log
    a = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return TraceResult(pid=order[a(lg.pid)] if len(lg.pid) else a([]), src=a(lg.src),
                       dst=a(lg.dst), created=a(lg.ctime), injected=a(lg.injected),
                       delivered=a(lg.delivered), links=a(lg.hops), deadlocked=eng.deadlocked,
                       cycles=int(eng.now), engine=eng, network=net)
