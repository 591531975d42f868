"""Credit delay and internal speedup of the reference simulator's routers (BookSim's
``credit_delay`` and ``internal_speedup``)."""

import numpy as np
import pytest

from topogen import Topology
from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.routing import nearest
from topogen.sim import SimConfig, run_trace


def _pair(hosts=8):
    """Two switches, one link, ``hosts`` hosts on each."""
    return nearest(Topology(2, np.array([[0, 1]]), hosts_per_switch=hosts, name="pair"))


def _stream(routing, n, *, src=0, dst=None, **cfg):
    """``n`` packets created at cycle 0 from host ``src`` to host ``dst`` (default: the
    first host of switch 1); their delivery times, sorted."""
    if dst is None:
        dst = int(routing.topology.hosts[0])
    tr = run_trace(routing, [(0, src, dst)] * n, **cfg)
    assert not tr.deadlocked and len(tr.pid) == n
    return np.sort(tr.delivered)


@pytest.mark.parametrize("size,link", [(1, 1), (4, 3), (33, 2)])
def test_credit_delay_adds_to_the_round_trip(size, link):
    # One VC whose buffer holds one packet: the next packet may cross the link only when
    # the previous one's credits are back, so the packet interval is the credit round trip
    # 2 * link + router delay + size - 1 (+ credit_delay).
    r = _pair(hosts=1)
    gaps = {}
    for cd in (0, 1, 2, 7):
        t = _stream(r, 12, packet_size=size, vc_buf_size=size, num_vcs=1, link_latency=link,
                    credit_delay=cd)
        gaps[cd] = set(np.diff(t[4:]).tolist())  # steady state
    base = 2 * link + SimConfig().router_delay + size - 1
    for cd, g in gaps.items():
        assert g == {base + cd}, (cd, g)


def test_credit_delay_leaves_a_lone_packet_alone():
    r = nearest(torus((4, 4), hosts_per_switch=2))
    pkts = [(0, 0, 1), (500, 0, 21), (1000, 3, 30)]
    base = run_trace(r, pkts, packet_size=4, vc_buf_size=8, link_latency=2).latency
    slow = run_trace(r, pkts, packet_size=4, vc_buf_size=8, link_latency=2, credit_delay=9).latency
    assert base.tolist() == slow.tolist()


def test_credits_of_the_injection_channel_go_to_the_host_without_credit_delay():
    # the host is not a router: BookSim's credit_delay does not apply to its credits
    r = _pair(hosts=2)
    cfg = dict(packet_size=4, vc_buf_size=4, num_vcs=1, link_latency=1)
    a = run_trace(r, [(0, 0, 1)] * 4, **cfg).delivered  # stays on switch 0: no network link
    b = run_trace(r, [(0, 0, 1)] * 4, credit_delay=5, **cfg).delivered
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize("speedup,pipeline", [(1.0, 4), (1.5, 3), (2.0, 2), (3.0, 2), (4.0, 1)])
def test_speedup_shortens_the_pipeline_like_booksim(speedup, pipeline):
    # BookSim2 (slimfly1 router, 1-flit packets, latency-1 links) measured 7, 6, 5, 5 cycles
    # through one router for speedups 1, 1.5, 2, 3: injection 2 + pipeline + ejection 1.
    cfg = SimConfig(packet_size=1, vc_buf_size=8, link_latency=1, internal_speedup=speedup)
    assert cfg.router_delay == pipeline
    r = nearest(torus((4, 4), hosts_per_switch=2))
    tr = run_trace(r, [(0, 0, 1), (100, 0, 2), (200, 0, 10), (300, 0, 21)], config=cfg)
    routers = tr.links + 1
    assert sorted(tr.latency.tolist()) == sorted(((pipeline + 1) * routers + 2).tolist())


def test_speedup_raises_saturation_throughput_on_a_contended_input():
    # Eight hosts of switch 0 flood one host of switch 1 over the single link, whose
    # input buffer at switch 1 has one VC.  BookSim frees the VC when a tail wins switch
    # allocation and runs the next head through routing, VC and switch allocation (3
    # steps), so the VC serves one 1-flit packet per 3 cycles: measured on BookSim2
    # (hotspot traffic on this two-router anynet, 1 VC): 0.30-0.31 packets/cycle over the
    # link beside the hotspot's own 0.05-0.1 self traffic, i.e. the 1/3 ceiling.  With
    # speedup 2 the 3 steps take 1.5 cycles (BookSim: about 0.62); the integer-cycle model
    # rounds them up to 2, a packet per 2 cycles.
    r = _pair(hosts=8)
    pkts = [(0, h, 8) for h in range(8) for _ in range(25)]
    rate = {}
    for s in (1.0, 2.0):
        tr = run_trace(r, pkts, packet_size=1, vc_buf_size=64, num_vcs=1, link_latency=1,
                       internal_speedup=s, speedup_model="pipeline")
        t = np.sort(tr.delivered)
        rate[s] = (len(t) - 1) / (t[-1] - t[0])
    assert rate[1.0] == pytest.approx(1 / 3, rel=0.02)
    assert rate[2.0] == pytest.approx(1 / 2, rel=0.02)


def test_speedup_empties_a_buffered_packet_faster():
    # Switch 1's link buffer (one VC) holds A (host 0 -> host 2), which waits for host 2's
    # ejection port (busy with C, host 3 -> host 2), and B (host 1 -> host 3) behind it.
    # 16-flit packets, links of 1 cycle.  Speedup 2: pipeline 2 cycles; A arrives at 5,
    # leaves at 20 when C is out; a buffered packet crosses the switch at 2 flits per cycle
    # but not before its tail has arrived (5 + 16), so the VC is free at
    # max(20 + 8, 21) = 28 (not 20 + 16 = 36).  B, already buffered, went through routing,
    # VC and switch allocation behind A's tail (BookSim's IQ router), so it leaves
    # ceil(3 / 2) - 1 = 1 cycle after the VC frees, at 29, and is delivered at 45 (53
    # without the crossbar speedup).  (Output VCs: C holds host 2's ejection VC until
    # 4 + 8 = 12, A the link's VC until 12; both wait for busy ports beyond that anyway.)
    # Speedup 1, with the VC allocation stage (vc_alloc="booksim"): C is ejected at 6 and
    # owns host 2's one ejection VC until its tail has crossed, 6 + 16 = 22; A gets it in
    # VC allocation at 22 and leaves one cycle later, at 23 (delivered 23 + 1 + 15 = 39;
    # without the stage it left at 22, when the port freed). A's input buffer frees at
    # 23 + 16 = 39, B (behind it) leaves at 39 + 2 = 41, delivered at 41 + 16 = 57.
    r = _pair(hosts=2)
    pkts = [(0, 3, 2), (0, 0, 2), (0, 1, 3)]  # C, A, B
    want = {1.0: [22, 39, 57], 2.0: [20, 36, 45]}
    for s, delivered in want.items():
        tr = run_trace(r, pkts, packet_size=16, vc_buf_size=64, num_vcs=1, link_latency=1,
                       internal_speedup=s, speedup_model="pipeline")
        assert [t for _, t in sorted(zip(tr.pid.tolist(), tr.delivered.tolist()))] == delivered


@pytest.mark.parametrize("bad", [0.5, 0, -1, True, "2", float("nan")])
def test_bad_speedup_is_refused(bad):
    with pytest.raises(ParameterError, match="internal_speedup"):
        SimConfig(internal_speedup=bad)
