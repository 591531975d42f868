"""The output-buffered router (SimConfig(router="output-buffered"), topogen/sim/_obuf.py):
zero-load latencies equal to the input-queued router's, contention and back-pressure
computed by hand from the model's rules, conservation, bad parameters."""

import numpy as np
import pytest

import topogen
from topogen import Topology
from topogen.errors import ParameterError
from topogen.layout import default_layout
from topogen.routing import nearest, route
from topogen.sim import SimConfig, run_trace, simulate

OB = "output-buffered"


def _random_net(seed=1):
    t = topogen.generate("random", num_switches=16, degree=4, hosts_per_switch=2, seed=seed)
    return t, default_layout(t)


@pytest.mark.parametrize("size,clock", [(1, 1.0), (33, 256 / 96), (5, 4.0)])
def test_lone_packets_take_the_input_queued_latency(size, clock):
    t, layout = _random_net()
    r = nearest(t, layout)
    rng = np.random.default_rng(3)
    n = t.num_hosts
    pk = np.c_[np.arange(60) * 1000, rng.integers(0, n, 60), rng.integers(0, n, 60)]
    kw = dict(packet_size=size, vc_buf_size=max(size, 8), clock_ns=clock, num_vcs=2)
    iq = run_trace(r, pk, config=SimConfig(**kw))
    ob = run_trace(r, pk, config=SimConfig(router=OB, **kw))
    assert ob.engine.engine_name == "python" and "output-buffered" in ob.engine.fallback
    assert len(ob.pid) == 60 and not ob.deadlocked
    a, b = np.argsort(iq.pid), np.argsort(ob.pid)
    assert np.array_equal(iq.latency[a], ob.latency[b])
    assert np.array_equal(iq.links[a], ob.links[b])


def _two_switches(hosts=2):
    """Switches 0 - 1, ``hosts`` hosts each (hosts 0..hosts-1 on switch 0)."""
    t = Topology(2, np.array([[0, 1]]), hosts_per_switch=hosts, name="pair")
    return route(t, None, "nr")


def test_two_packets_into_one_output_by_hand():
    # hosts 0 and 1 (switch 0) each send one packet at cycle 0 to host 2 (switch 1).
    # S = 4, router_delay 4 (crossbar 3 cycles after the head is in the input buffer,
    # send one cycle later), every channel 1 cycle, injection overhead 1:
    #   both injected at 1, in switch 0's input buffers at 2, crossbar tick at 5:
    #   the first (host 0: lower anytopo port) moves and is sent at 6, reaches switch 1
    #   at 7, crosses at 10, leaves at 11, head at host 2 at 12, tail at 12 + S - 1 = 15;
    #   the second may cross only when the output port's crossbar input frees, 5 + S = 9,
    #   and the port sends it when it is done with the first, 6 + S = 10; it reaches
    #   switch 1 at 11, crosses at 14 (the ejection crossbar port freed at 10 + S),
    #   the ejection port sends it at 11 + S = 15 (it finished the first then): head at
    #   16, tail 19.
    S = 4
    r = _two_switches()
    cfg = SimConfig(router=OB, packet_size=S, vc_buf_size=2 * S, link_latency=1)
    tr = run_trace(r, [(0, 0, 2), (0, 1, 2)], config=cfg)
    lat = dict(zip(tr.src.tolist(), tr.latency.tolist()))
    assert lat == {0: 12 + S - 1, 1: 12 + S + S - 1}
    assert tr.engine.credits_restored() and tr.engine.idle()


def test_full_input_buffer_holds_the_output_port_back():
    # The same two packets with input buffers of one packet (vc_buf_size = S): the
    # second sits in switch 0's output buffer until the first has left switch 1's input
    # buffer (crossbar at 10); its credits reach switch 0 at 10 + 1 (link) + 3 = 14,
    # the waiting port sends one cycle later, 15 (not at 10 as with room downstream):
    # switch 1 at 16, crossbar 19, ejection port (idle since 15) sends at 20, head at
    # host 2 at 21, tail 21 + S - 1 = 24.
    S = 4
    r = _two_switches()
    cfg = SimConfig(router=OB, packet_size=S, vc_buf_size=S, link_latency=1)
    tr = run_trace(r, [(0, 0, 2), (0, 1, 2)], config=cfg)
    assert sorted(tr.latency.tolist()) == [15, 24]
    # the input-queued router with its 4 VCs per port has room for both: no wait
    iq = run_trace(r, [(0, 0, 2), (0, 1, 2)], config=SimConfig(packet_size=S, vc_buf_size=S, link_latency=1))
    assert sorted(iq.latency.tolist()) == [15, 15 + S]


def test_small_output_buffer_delays_the_crossbar():
    # Host 0 sends to hosts 2 and 3 one after the other, host 1 to host 2: with output
    # buffers of one packet the crossbar cannot move a packet into an output buffer that
    # still holds one, so latencies can only grow (never shrink) against roomy buffers.
    S = 4
    r = _two_switches()
    pk = [(0, 0, 2), (0, 1, 2), (0, 0, 3), (1, 1, 3), (2, 0, 2)]
    roomy = run_trace(r, pk, config=SimConfig(router=OB, packet_size=S, vc_buf_size=8 * S, link_latency=1))
    tight = run_trace(r, pk, config=SimConfig(router=OB, packet_size=S, vc_buf_size=8 * S,
                                              output_buf_size=S, link_latency=1))
    a, b = np.argsort(roomy.pid), np.argsort(tight.pid)
    assert len(b) == len(pk)
    assert np.all(tight.latency[b] >= roomy.latency[a])
    assert tight.engine.credits_restored()


def test_loaded_network_delivers_everything_and_restores_credits():
    t = topogen.generate("torus", dims=(4, 4))
    r = route(t, None, "booksim-min")
    rng = np.random.default_rng(5)
    n = t.num_hosts
    times = np.sort(rng.integers(0, 3000, 900))
    pk = np.c_[times, rng.integers(0, n, 900), rng.integers(0, n, 900)]
    tr = run_trace(r, pk, config=SimConfig(router=OB, packet_size=8, vc_buf_size=16, link_latency=1))
    assert len(tr.pid) == 900 and not tr.deadlocked
    assert tr.engine.credits_restored() and tr.engine.idle()
    # every packet takes at least its zero-load latency less one cycle per switch (an
    # output port that finishes a packet in the cycle the crossbar moves the next sends
    # it at once, SST's clock running before its events), and contention made some wait
    zero = np.array([tr.network.zero_load_latency(s, d) for s, d in zip(tr.src.tolist(), tr.dst.tolist())])
    assert np.all(tr.latency >= zero - tr.links - 1) and np.any(tr.latency > zero)
    assert np.mean(tr.latency < zero) < 0.1


def test_simulate_records_the_router():
    t = topogen.generate("torus", dims=(4, 4))
    r = route(t, None, "booksim-min")
    cfg = SimConfig(router=OB, output_buf_size=99, injection="periodic", latency_at="head",
                    sample_period=300, link_latency=1)
    row = simulate(r, traffic="uniform", load=0.1, config=cfg, seed=2, self_packets=False)
    assert row["status"] == "completed"
    import json

    params = json.loads(row["params"]) if isinstance(row["params"], str) else row["params"]
    assert params["config"]["router"] == OB and params["config"]["output_buf_size"] == 99
    # the input-queued router's rows keep their old keys
    assert "router" not in SimConfig().to_dict() and "output_buf_size" not in SimConfig().to_dict()
    assert SimConfig(router=OB).to_dict()["output_buf_size"] == SimConfig().vc_buf_size


@pytest.mark.parametrize("kw,match", [
    (dict(router="oq"), "router must be one of"),
    (dict(router=OB, output_buf_size=10, packet_size=33, vc_buf_size=66), "output_buf_size"),
    (dict(router=OB, output_buf_size=True), "output_buf_size"),
    (dict(output_buf_size=66), "output-buffered"),
])
def test_bad_router_parameters(kw, match):
    with pytest.raises(ParameterError, match=match):
        SimConfig(**kw)


def test_unsupported_combinations_are_refused():
    t = topogen.generate("torus", dims=(4, 4))
    r = route(t, None, "booksim-min")
    with pytest.raises(ParameterError, match="internal_speedup"):
        run_trace(r, [(0, 0, 5)], config=SimConfig(router=OB, internal_speedup=2.0))
    with pytest.raises(ParameterError, match="credit"):
        run_trace(r, [(0, 0, 5)], config=SimConfig(router=OB, credit_delay=2))
    esc = route(t, None, "escape")
    with pytest.raises(ParameterError, match="table routings"):
        run_trace(esc, [(0, 0, 5)], config=SimConfig(router=OB, num_vcs=4))
