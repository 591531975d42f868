"""The saturation rule of SST's runs, and of the reference simulator run as SST's.

One function (:func:`saturation_reasons`) judges a measurement period of a real SST run
(:mod:`topogen.drivers.sst`) and of ``reference-sst`` (:mod:`topogen.experiments.reference_sst`):
accepted against offered load, network latency growth between sample windows, and endpoints
behind their injection schedule at the sample-window ends (:func:`endpoint_backlog`).  See
``docs/sst.md``, "One saturation rule".
"""

from __future__ import annotations

import math

from .sst_output import StatWindows

__all__ = ["ACCEPTED_TOLERANCE", "LATENCY_GROWTH", "GROWTH_PACKETS", "BEHIND_REASON", "BEHIND_FRACTION",
           "endpoint_backlog", "saturation_reasons"]

#: accepted load may fall short of the offered load by this fraction
ACCEPTED_TOLERANCE = 0.05

#: the network latency of the last third of the sample windows may exceed the first
#: third's by this fraction
LATENCY_GROWTH = 0.25

#: the latency growth is judged only when the first and the last third of the sample
#: windows each delivered at least this many packets.  Below it the two means differ by the
#: spread of path lengths alone: at zero load a packet's network latency is set by its hops
#: (on a 2-level fat tree of 4 hosts 6 cycles for 2 hops, 19 for 4), a spread of about half
#: the mean, so the means of n packets each differ by about 0.5 x sqrt(2 / n) of the mean,
#: and 25 % growth is three such spreads only from about 70 packets on (a 4-host network at
#: 1 % load delivers 12 packets in 10,000 cycles).  A saturated run delivers fewer packets
#: than offered, which the accepted-load test and the backlog test see at any count.
GROWTH_PACKETS = 70


#: the reason given when ``merlin.offered_load`` marks a load ``*``
BEHIND_REASON = "merlin.offered_load fell behind its injection schedule ('*')"


#: the fraction of the collect time's sample-window ends at which some endpoint must be
#: behind its schedule for the load to be saturated (:func:`saturation_reasons`)
BEHIND_FRACTION = 0.5


def endpoint_backlog(win: StatWindows, indices, *, start_ps: float, interval_ps: float,
                     packet_bits: float) -> list[int]:
    """The largest backlog of one endpoint at each of the output times ``indices``.

    ``merlin.offered_load`` creates an endpoint's packets every ``interval_ps`` from
    ``start_ps`` on (all endpoints in step) and hands one to the NIC only when its output
    buffer has room; ``send_bit_count`` counts the packets put on the wire.  The backlog
    of an endpoint at time ``t`` is the packets due before ``t`` (its NIC's buffered ones
    included) less those on the wire by ``t``.

    Parameters
    ----------
    win : StatWindows
        With ``sent_bits_by_nic``.
    indices : sequence of int
        Output times (indices into ``win.times_ps``).
    start_ps, interval_ps : float
        The load's start (its generation's, not the warm-up's end) and send interval.
    packet_bits : float

    Returns
    -------
    list of int
        Empty when the statistics have no per-NIC ``send_bit_count``.
    """
    nics = list(win.sent_bits_by_nic.values())
    if not nics or not interval_ps > 0:
        return []
    i0 = win.at(start_ps) if start_ps > 0 else None
    if start_ps > 0 and i0 is None:
        return []
    out = []
    for i in indices:
        due = max(0, math.ceil((win.times_ps[i] - start_ps) / interval_ps - 1e-9))
        out.append(max(due - round((bits[i] - (bits[i0] if i0 is not None else 0)) / packet_bits)
                       for bits in nics))
    return out


def saturation_reasons(load: float, accepted: float, windows, *,
                       accepted_tolerance: float = ACCEPTED_TOLERANCE,
                       latency_growth: float = LATENCY_GROWTH, unit: str = "ns",
                       slack: float = 0.0, backlog=None, nic_packets: int = 1) -> list[str]:
    """The saturation rule of an SST run's measurement period; ``reference-sst`` is judged
    by the same function (:mod:`topogen.experiments.reference_sst`).

    Parameters
    ----------
    load, accepted : float
        Offered and accepted load (fractions of the link bandwidth).
    windows : sequence of (float, int)
        Mean network latency and packet count of each sample window, in order.
    accepted_tolerance, latency_growth : float
    unit : str
        Latency unit in the messages.
    slack : float
        One packet per endpoint over the measurement period, as a load: what the accepted
        load may fall short of the offered load by sampling alone (``offered_load``'s
        endpoints send in step, so a period holds a whole number of packets per endpoint).
    backlog : sequence of int, optional
        At the end of each sample window of the measurement period, the largest number of
        packets one endpoint had due and not yet on the wire (:func:`endpoint_backlog`).
    nic_packets : int
        Packets the NIC's output buffer holds.

    Returns
    -------
    list of str
        Empty when not saturated: the accepted load is at least ``1 - accepted_tolerance``
        of the offered load less ``slack``; the packet-weighted mean network latency of the
        last third of the windows is at most ``1 + latency_growth`` times that of the first
        third (judged when each third delivered :data:`GROWTH_PACKETS` packets or more); and some endpoint is *behind* (more than ``nic_packets`` packets due and not
        on the wire: the NIC is full and ``offered_load`` has a packet it cannot hand over,
        its ``*``) at fewer than :data:`BEHIND_FRACTION` of the window ends.

    Notes
    -----
    ``offered_load``'s own ``*`` is that test at one instant, the end of the collect time.
    Near the knee the backlog of the busiest endpoints comes and goes in bursts, and one
    instant is a noisy sample of it: on a real SST (random 64/4, 33-flit packets) ``*``
    came and went with the load (0.469 and 0.4875 marked, 0.506 not, 0.525 marked).  The
    driver uses ``*`` only when the run has no per-NIC statistics.
    """
    reasons = []
    if backlog is not None and len(backlog):
        n = sum(1 for b in backlog if b > nic_packets)
        if n >= BEHIND_FRACTION * len(backlog):
            reasons.append(f"generators behind their injection schedule at {n} of {len(backlog)} sample "
                           f"window ends (an endpoint with more than {nic_packets} packets due and not sent)")
    if accepted < (1.0 - accepted_tolerance) * load - slack:
        reasons.append(f"accepted {accepted:.3g} of {load:g} offered after warm-up")
    lat = list(windows)
    k = max(1, len(lat) // 3)
    first, last = lat[:k], lat[-k:]
    n_first, n_last = sum(n for _, n in first), sum(n for _, n in last)
    if len(lat) >= 2 and n_first >= GROWTH_PACKETS and n_last >= GROWTH_PACKETS:
        a = sum(x * n for x, n in first if n) / n_first
        b = sum(x * n for x, n in last if n) / n_last
        if b > (1.0 + latency_growth) * a:
            reasons.append(f"network latency grew from {a:.0f} to {b:.0f} {unit} between sample windows")
    elif len(lat) >= 2 and n_first >= GROWTH_PACKETS and not n_last:
        reasons.append("no packet delivered in the last sample windows")
    return reasons
