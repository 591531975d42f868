"""Wormhole flow control at flit level (``SimConfig(flow_control="wormhole")``,
``topogen/sim/_wormhole.py``): hand-timed cases where it must differ from the packet-level
virtual cut-through model, cases where the two must agree, and its option checks."""

import json

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.routing import nearest, route
from topogen.sim import SimConfig, run_trace, simulate
from topogen.sim._compiled import engine_for
from topogen.sim._wormhole import WormholeEngine
from topogen.sim.network import Network
from topogen._rng import make_rng


def _trace(packets, *, flow_control, buf, size=33, num_vcs=1, hosts=1, dims=(8,)):
    t = torus(dims, hosts_per_switch=hosts)
    tr = run_trace(nearest(t), packets, packet_size=size, vc_buf_size=buf, num_vcs=num_vcs,
                   link_latency=1, flow_control=flow_control, engine="python")
    assert not tr.deadlocked and len(tr.pid) == len(packets)
    return dict(zip(tr.pid.tolist(), tr.latency.tolist())), tr


def test_lone_packets_have_the_analytic_latency():
    # with buffers covering the credit round trip a lone packet never stalls: 5 R + 2 + S - 1
    t = torus((4, 4), hosts_per_switch=2)
    pkts = [(0, 0, 1), (100, 0, 2), (200, 0, 10), (300, 0, 21)]  # 1, 2, 3, 5 routers
    for size, buf in ((1, 8), (33, 66), (33, 8), (4, 5)):
        tr = run_trace(nearest(t), pkts, packet_size=size, vc_buf_size=buf, link_latency=1,
                       flow_control="wormhole")
        routers = np.array([1, 2, 3, 5])
        assert tr.latency.tolist() == (5 * routers + 2 + size - 1).tolist(), (size, buf)
        assert tr.engine.credits_restored()


def test_credit_round_trip_limits_a_small_buffer():
    # host 0 -> host 1 on the same switch, 2-flit injection VC: the host gets a flit's
    # credit 1 cycle after it crossed the switch, the flit it then sends is there 3 cycles
    # later: two flits per 4 cycles.  Flits 2j, 2j+1 cross at 6 + 4j, 7 + 4j; the tail
    # (flit 32) at 70 and it is ejected at 71.  With 4 flits the stream never stalls.
    lat, _ = _trace([(0, 0, 1)], flow_control="wormhole", buf=2, hosts=2, dims=(4,))
    assert lat[0] == 71
    lat, _ = _trace([(0, 0, 1)], flow_control="wormhole", buf=4, hosts=2, dims=(4,))
    assert lat[0] == 5 + 2 + 32


def test_a_blocked_packet_stands_in_several_routers():
    # ring of 8, one VC: packet A (host 2 -> 3) owns the VC of link 2->3 from cycle 5 until
    # its tail crosses switch 2 at 38; packet B (host 0 -> 3, switches 0..3) reaches switch
    # 2 at cycle 14 and waits for that VC.  With 5-flit buffers (the credit round trip
    # between switches: no stall for a lone packet) B's 33 flits stand in the buffers of
    # switches 0..2 (5 flits each) while its head waits; virtual cut-through
    # refuses buffers smaller than a packet.
    pkts = [(0, 2, 3), (0, 0, 3)]
    with pytest.raises(ParameterError, match="vc_buf_size >= packet_size"):
        SimConfig(packet_size=33, vc_buf_size=5)
    cfg = SimConfig(packet_size=33, vc_buf_size=5, num_vcs=1, link_latency=1, flow_control="wormhole",
                    engine="python")
    net = Network(nearest(torus((8,))), cfg)
    eng = engine_for(net, make_rng(0))
    assert isinstance(eng, WormholeEngine)
    eng.record = True
    arr = np.array(pkts)
    eng.inject_many(arr[:, 0], arr[:, 1], arr[:, 2])
    eng.run(30)
    held = {}
    for b, q in eng.qs.items():
        for _, pkt, k, _ in q:
            if pkt.src == 0:
                held.setdefault(int(eng.in_switch[b // cfg.num_vcs]), []).append(k)
    assert sorted(held) == [0, 1, 2]
    assert all(len(v) == 5 for v in held.values())
    assert held[2] == [0, 1, 2, 3, 4]  # the head waits at switch 2
    eng.run(1 << 20, stop_when_idle=True)
    lat = dict(zip(eng.log.pid, np.subtract(eng.log.delivered, eng.log.ctime).tolist()))
    assert lat[0] == 5 * 2 + 2 + 32  # A alone
    vct, _ = _trace(pkts, flow_control="vct", buf=66)
    worm66, _ = _trace(pkts, flow_control="wormhole", buf=66)
    assert worm66 == vct  # whole packets fit: the same timing
    assert lat[1] > vct[1]  # B's flits refill the emptied pipe after the wait


def _engine(pkts, cfg, topology):
    eng = engine_for(Network(nearest(topology), cfg), make_rng(0))
    eng.record = True
    arr = np.array(pkts)
    eng.inject_many(arr[:, 0], arr[:, 1], arr[:, 2])
    return eng


@pytest.mark.parametrize("buf, order", [(66, [0] * 8 + [1] * 8), (2, [0, 0, 1, 1] * 4)])
def test_held_switch_is_released_when_a_packet_stalls(buf, order, monkeypatch):
    # hosts 0 and 1 (switch 0) send 8-flit packets to hosts 2 and 3 (switch 1); both heads
    # get a VC of link 0->1 at cycle 5 and packet 0 wins the switch at 6.  With room for
    # the packet it holds the switch until its tail: the link carries one packet, then
    # the other.  With 2-flit buffers packet 0 sends 2 flits (6, 7), then its input VC is
    # empty (the host gets its first credit back at 7) and its output VC has no credit
    # until 13 (5-cycle round trip between switches): the held connection is released and
    # packet 1 sends its 2 flits at 8, 9; the packets alternate on the link two flits at a
    # time (BookSim's hold_switch_for_packet; virtual cut-through never splits a packet).
    cfg = SimConfig(packet_size=8, vc_buf_size=buf, num_vcs=2, link_latency=1, flow_control="wormhole",
                    engine="python")
    topo = torus((8,), hosts_per_switch=2)
    eng = _engine([(0, 0, 2), (0, 1, 3)], cfg, topo)
    link = int(topo.csr().indptr[0])  # port of link 0 -> 1 (CSR entry of the lowest neighbour)
    on_link = []
    send = eng._send_flit

    def spy(b, x, o, t):
        if o == link:
            on_link.append(eng.qs[b][0][1].pid)
        send(b, x, o, t)

    monkeypatch.setattr(eng, "_send_flit", spy)
    eng.run(1 << 20, stop_when_idle=True)
    assert len(eng.log.pid) == 2 and len(on_link) == 16
    assert on_link == order
    assert eng.credits_restored()


def test_same_rows_as_vct_at_low_load_and_a_recorded_option():
    r = route(torus((4, 4)), None, "nr")
    kw = dict(traffic="uniform", load=0.05, seed=3, link_latency=1, max_samples=5, warmup_periods=1)
    vct = simulate(r, **kw)
    worm = simulate(r, flow_control="wormhole", **kw)
    assert worm["status"] == vct["status"] == "completed"
    assert worm["latency_avg"] == pytest.approx(vct["latency_avg"], rel=0.03)
    pv, pw = json.loads(vct["params"]), json.loads(worm["params"])
    assert "flow_control" not in pv["config"]  # default rows and keys unchanged
    assert pw["config"]["flow_control"] == "wormhole"
    assert pw["engine"].startswith("python (compiled engine: wormhole")


def test_conservation_under_load_with_small_buffers():
    rng = np.random.default_rng(5)
    n = 300
    pk = np.column_stack([np.sort(rng.integers(0, 1500, n)), rng.integers(0, 32, n), rng.integers(0, 32, n)])
    t = torus((4, 4), hosts_per_switch=2)
    tr = run_trace(route(t, None, "dor"), pk, packet_size=8, vc_buf_size=3, num_vcs=2,
                   link_latency=2, flow_control="wormhole")
    assert not tr.deadlocked and len(tr.pid) == n
    assert sorted(tr.pid.tolist()) == list(range(n))
    assert (tr.latency >= 5 * 1 + 2 + 7).all()
    assert tr.engine.credits_restored() and tr.engine.idle()


@pytest.mark.parametrize("bad, match", [
    (dict(router="output-buffered"), "router"), (dict(allocator="fifo"), "allocator"),
    (dict(vc_alloc="credits"), "vc_alloc"), (dict(internal_speedup=2.0), "internal_speedup"),
    (dict(latency_at="head"), "latency_at"), (dict(flow_control="cut-through"), "flow_control must be")])
def test_option_errors(bad, match):
    with pytest.raises(ParameterError, match=match):
        SimConfig(**{"flow_control": "wormhole", **bad})


def test_adaptive_routings_are_refused():
    t = torus((4, 4))
    with pytest.raises(ParameterError, match="table routings"):
        simulate(route(t, None, "escape"), load=0.05, flow_control="wormhole", link_latency=1)
