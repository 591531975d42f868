"""``reference-sst`` measured the way SST is: one fixed run, SST's measurement window and
SST's saturation rule.

:func:`topogen.sim.simulate` measures BookSim's way (warm-up periods, sample periods until
the means converge, a drain; ``saturated`` past ``latency_thres``).  SST's
``merlin.offered_load`` does something else, and the SST driver judges its runs by its own
rule (:func:`topogen.drivers.sst.measure_load`).  Judging the two simulators of one pair by
two rules made their saturation loads differ by up to 17 % where their saturation
throughputs agreed within 2.5 % (``docs/sst.md``).  :func:`run_like_sst` runs the
reference simulator with SST's traffic and router (periodic injection in step, no self
packets, latency to the head, the output-buffered router) on SST's timeline and measures
it exactly as the SST driver measures an SST run:

* the run lasts ``warmup + collect`` (no drain: ``offered_load`` ends the simulation at the
  end of the collect time); ``latency_avg`` is generation to delivery (the head) over the
  packets *delivered* from the end of the warm-up on, as ``offered_load`` prints it;
* the accepted load counts the packets whose heads arrive in the measurement period
  (linkControl's ``packet_latency`` count, read by the driver from its sample windows);
* the network latency of each sample window (SST's windows,
  :func:`topogen.drivers.sst.sample_window_ps`) runs from the packet's start on the wire
  (linkControl's ``handle_output`` stamps the injection time there, over the stamp of
  ``send()``) to its head's arrival;
* the backlog at the end of each sample window of the collect time is the largest number
  of packets one host created before that instant and has not yet put on the wire (SST:
  :func:`topogen.drivers.sst.endpoint_backlog` from each NIC's ``send_bit_count``); a
  host holding more than ``m`` (the NIC's packets) is *behind*: ``offered_load`` has a
  packet due that the full NIC buffer did not take, its ``*`` at that instant;
* the status comes from :func:`topogen.drivers.sst.saturation_reasons`, the function that
  judges SST's runs: ``saturated`` when some host is behind at half the window ends or
  more, when the accepted load is below ``1 - accepted_tolerance`` of the offered load
  (less one packet per host over the collect time: in-step sending makes a period's count
  a whole number of packets per host), or when the network latency of the last third of
  the windows exceeds ``1 + latency_growth`` times the first third's.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np

__all__ = ["run_like_sst", "nic_packets"]


def nic_packets(vc_buf_size: int, packet_size: int) -> int:
    """Packets the NIC's output buffer holds (merlin linkControl, ``output_buf_size`` =
    ``vc_buf_size`` flits in topogen's export)."""
    return max(1, int(vc_buf_size) // int(packet_size))


def run_like_sst(routing, config, *, traffic: str, load: float, seed: int, sst_times: dict,
                 clock_ns: float, layout=None, accepted_tolerance: float | None = None,
                 latency_growth: float | None = None, windows: int | None = None) -> dict:
    """One reference-simulator run on SST's timeline, measured and judged as SST's.

    Parameters
    ----------
    routing : Routing
    config : SimConfig
        ``injection="periodic"``, ``latency_at="head"``, ``router="output-buffered"`` (the
        adapter's); its ``vc_buf_size`` is also the NIC buffer.
    traffic : str
    load : float
        Flits/node/cycle (a fraction of the link bandwidth, as SST's ``offered_load``).
    seed : int
    sst_times : mapping
        ``warmup``, ``collect``, ``drain``: the SST run's times (``"8000000ps"`` ...).
    clock_ns : float
        ns per cycle.
    layout : Layout, optional
    accepted_tolerance, latency_growth : float, optional
        The SST driver's thresholds (default :data:`topogen.drivers.sst.DEFAULTS`).
    windows : int, optional
        Sample windows per collect time (default the driver's).

    Returns
    -------
    dict
        A results row (``simulator = "reference"``; latency in cycles).
    """
    from ..drivers.sst import DEFAULTS, sample_window_ps, saturation_reasons
    from ..drivers.sst_output import time_to_ns
    from ..results import make_row
    from ..sim.measure import describe, fixed_run, packet_rate

    tol = DEFAULTS["accepted_tolerance"] if accepted_tolerance is None else accepted_tolerance
    growth = DEFAULTS["latency_growth"] if latency_growth is None else latency_growth
    nwin = DEFAULTS["windows"] if windows is None else windows
    w_ps, c_ps, d_ps = (round(time_to_ns(sst_times[k]) * 1000) for k in ("warmup", "collect", "drain"))
    win_ps = sample_window_ps(w_ps, c_ps, d_ps, nwin)
    cyc_ps = clock_ns * 1000.0
    start, end = w_ps / cyc_ps, (w_ps + c_ps) / cyc_ps  # cycles (may be fractional)
    end_cycle = math.ceil(end - 1e-9)

    wall0 = time.perf_counter()
    row = describe(routing, traffic=traffic, load=load, load_unit="flits", config=config, seed=seed,
                   layout=layout, self_packets=False)
    cfg = config
    bounds = start + np.arange(0, round(c_ps / win_ps) + 1) * (win_ps / cyc_ps)
    backlog = []  # the largest backlog of a host at each window end of the collect time

    def at_window_end(t, eng):
        # packets created before the window's end instant, not yet on the wire
        t_end = ends[len(backlog)]
        backlog.append(max((sum(1 for pk in q if pk.ctime < t_end) for q in eng.srcq.values()), default=0))

    ends = [float(b) for b in bounds[1:]]
    run = fixed_run(routing, cfg, max(1, end_cycle), traffic=traffic, rate=packet_rate(load, "flits", cfg),
                    seed=seed, layout=layout, self_packets=False, record=True,
                    stops=[math.ceil(b - 1e-9) for b in ends], on_stop=at_window_end)
    eng, tr = run.engine, run.traffic
    if len(backlog) < len(ends):  # the last window ends at the end of the run
        at_window_end(end_cycle, eng)
    S, m = cfg.packet_size, nic_packets(cfg.vc_buf_size, cfg.packet_size)
    n_active = len(tr.active)
    lg = eng.log
    a = lambda x: np.asarray(x, dtype=np.float64)  # noqa: E731
    ctime, sent, tail = a(lg.ctime), a(lg.injected), a(lg.delivered)
    head = tail - (S - 1)  # SST records a packet when its head arrives
    lat = head - ctime
    in_run = head < end
    measured = in_run & (head >= start)
    netlat = head - sent
    win = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sel = in_run & (head >= lo) & (head < hi)
        n = int(sel.sum())
        win.append((float(netlat[sel].mean()) if n else math.nan, n))
    got = int(measured.sum())
    accepted = got * S / (n_active * (end - start)) if n_active else math.nan
    reasons = saturation_reasons(load, accepted, win, accepted_tolerance=tol, latency_growth=growth,
                                 unit="cycles", slack=S / (end - start), backlog=backlog, nic_packets=m)
    status = "deadlock" if eng.deadlocked else ("saturated" if reasons else "completed")
    msg = (f"no packet moved for {eng.deadlock_cycles} cycles (cycle {eng.now})" if eng.deadlocked
           else "; ".join(reasons) or None)
    params = json.loads(row["params"]) if isinstance(row["params"], str) else dict(row["params"] or {})
    params["measurement"] = {"rule": "sst", "warmup_ps": w_ps, "collect_ps": c_ps, "window_ps": win_ps,
                             "clock_ns": clock_ns, "nic_packets": m, "accepted_tolerance": tol,
                             "latency_growth": growth}
    row.update(params=params, status=status, message=msg, latency_unit="cycles", sim_cycles=end_cycle,
               wall_time_s=time.perf_counter() - wall0, samples=len(win),
               accepted_load=accepted / S, accepted_flit_rate=accepted,
               injected_load=load / S, injected_flit_rate=float(load),
               network_latency_avg=float(netlat[measured].mean()) if got else math.nan,
               packets=got)
    if status == "completed" and got:
        lm = lat[measured]
        row.update(latency_avg=float(lm.mean()), latency_min=float(lm.min()), latency_max=float(lm.max()),
                   latency_p50=float(np.percentile(lm, 50)), latency_p90=float(np.percentile(lm, 90)),
                   latency_p99=float(np.percentile(lm, 99)), hops_avg=float(a(lg.hops)[measured].mean()) + 1.0)
    return make_row(**row)
