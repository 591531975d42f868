"""Reference simulator: exact zero-load latencies, conservation, deadlock, determinism."""

import math

import numpy as np
import pytest

import topogen
from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.layout import default_layout
from topogen.routing import check, dor, nearest, updown
from topogen.sim import SimConfig, run_trace, simulate


def _random_net(seed=1):
    t = topogen.generate("random", num_switches=16, degree=4, hosts_per_switch=2, seed=seed)
    return t, default_layout(t)


def _expected(routing, layout, src_host, dst_host, *, clock_ns, size, rd, inj=1, ej=1, ovh=1):
    """Analytic latency of a lone packet, computed from the route and the layout."""
    topo = routing.topology
    hosts = np.asarray(topo.hosts)
    sw_of = np.repeat(np.arange(topo.num_switches), hosts)
    s, d = int(sw_of[src_host]), int(sw_of[dst_host])
    switches, _ = routing.path(s, d)
    edge_index = {tuple(e): i for i, e in enumerate(topo.edges.tolist())}
    links = 0
    for u, v in zip(switches[:-1].tolist(), switches[1:].tolist()):
        delay = layout.link_delay[edge_index[(min(u, v), max(u, v))]]
        links += max(1, math.ceil(delay / clock_ns - 1e-9))
    return ovh + inj + rd * len(switches) + links + ej + size - 1, len(switches) - 1


@pytest.mark.parametrize("size,delays,clock,ovh", [
    (1, (1, 1, 1, 1), 1.0, 1),
    (33, (1, 1, 1, 1), 256 / 96, 1),
    (5, (2, 0, 3, 1), 4.0, 0),
])
def test_lone_packets_have_the_analytic_latency(size, delays, clock, ovh):
    t, layout = _random_net()
    r = nearest(t, layout)
    rng = np.random.default_rng(7)
    n = t.num_hosts
    src = rng.integers(0, n, 60)
    dst = rng.integers(0, n, 60)  # includes src == dst (packets to the own switch)
    times = np.arange(60) * 1000  # far apart: every packet is alone in the network
    cfg = SimConfig(packet_size=size, vc_buf_size=max(size, 8), routing_delay=delays[0],
                    vc_alloc_delay=delays[1], sw_alloc_delay=delays[2], st_delay=delays[3],
                    clock_ns=clock, num_vcs=2, injection_overhead=ovh)
    tr = run_trace(r, np.c_[times, src, dst], config=cfg)
    assert not tr.deadlocked and len(tr.pid) == 60
    rd = sum(delays)
    for pid, lat, links in zip(tr.pid, tr.latency, tr.links):
        exp, hops = _expected(r, layout, src[pid], dst[pid], clock_ns=clock, size=size, rd=rd, ovh=ovh)
        assert lat == exp
        assert links == hops


def test_booksim_default_pipeline_gives_5r_plus_2():
    # BookSim anynet, 1-flit packets, latency-1 links: 7 + 5 (routers - 1) (docs/sim.md)
    t = torus((4, 4), hosts_per_switch=2)
    r = nearest(t)
    pkts = [(0, 0, 1), (100, 0, 2), (200, 0, 10), (300, 0, 21)]  # 1, 2, 3, 5 routers
    tr = run_trace(r, pkts, packet_size=1, vc_buf_size=8, link_latency=1)
    routers = tr.links + 1
    assert sorted(tr.latency.tolist()) == sorted((5 * routers + 2).tolist())
    assert sorted(routers.tolist()) == [1, 2, 3, 5]


def test_serialisation_on_the_injection_link():
    t = torus((4, 4), hosts_per_switch=2)
    r = nearest(t)
    size = 12
    tr = run_trace(r, [(0, 0, 9), (0, 0, 9), (0, 0, 9)], packet_size=size, vc_buf_size=64,
                   link_latency=1)
    lat = np.sort(tr.latency)
    # same route: each packet waits for the previous one's size cycles on every link
    assert lat[1] - lat[0] == size and lat[2] - lat[1] == size


def test_credits_limit_a_vc_to_its_buffer():
    # one VC, buffer = one packet: the second packet may enter the first switch's buffer
    # only after the first packet's credits came back.
    t = torus((4, 4), hosts_per_switch=1)
    r = nearest(t)
    size, lat_link = 4, 1
    tr = run_trace(r, [(0, 0, 2), (0, 0, 2)], packet_size=size, vc_buf_size=size, num_vcs=1,
                   link_latency=lat_link)
    l0, l1 = np.sort(tr.latency)
    # packet 2 leaves the host when the credit of packet 1's tail is back: packet 1 left
    # the injection buffer at 1 + 1 + 4 = 6 (ovh + inj + router delay), its credits are
    # back at 6 + size - 1 + inj latency = 10; packet 1 started at 1 => 9 cycles later.
    assert l1 - l0 == 9


def test_conservation_under_load():
    t = torus((4, 4), hosts_per_switch=2)
    r = dor(t)
    rng = np.random.default_rng(11)
    k = 4000
    src = rng.integers(0, 32, k)
    dst = rng.integers(0, 32, k)
    times = np.sort(rng.integers(0, 3000, k))
    tr = run_trace(r, np.c_[times, src, dst], packet_size=4, vc_buf_size=8, num_vcs=4)
    assert not tr.deadlocked
    assert sorted(tr.pid.tolist()) == list(range(k))  # each delivered exactly once
    np.testing.assert_array_equal(src[tr.pid], tr.src)  # pid = row of the input
    np.testing.assert_array_equal(dst[tr.pid], tr.dst)
    np.testing.assert_array_equal(times[tr.pid], tr.created)
    assert tr.engine.credits_restored() and tr.engine.idle()  # no flit held anywhere
    # nobody beats the empty network
    net = tr.network
    zl = np.array([net.zero_load_latency(s, d) for s, d in zip(tr.src, tr.dst)])
    assert np.all(tr.latency >= zl) and np.any(tr.latency > zl)


def test_simulate_drains_every_measured_packet():
    t = torus((4, 4), hosts_per_switch=2)
    row = simulate(nearest(t), load=0.2, seed=4, packet_size=4, vc_buf_size=8)
    assert row["status"] == "completed"
    assert row["packets"] > 1000
    assert row["simulator"] == "reference"
    assert row["accepted_flit_rate"] == pytest.approx(row["accepted_load"] * 4)
    assert row["injected_flit_rate"] == pytest.approx(0.2, rel=0.1)
    assert row["accepted_flit_rate"] == pytest.approx(0.2, rel=0.1)


def _ring(n=8):
    return torus((n,), hosts_per_switch=1)


def test_min_ring_with_one_vc_deadlocks():
    r = nearest(_ring(), ties="lowest")  # the lowest-id ring routes of this scenario
    assert r.num_vcs == 1 and not check(r).acyclic
    # the stall detector's case, with periods far longer than deadlock_cycles: the engine's
    # own detector (no packet moved) fires before the end-of-period check of the buffers,
    # whatever the random stream (with the VC allocation stage this seed locks up later and
    # the knot analysis reports it: test_vc_alloc.py, hence vc_alloc="credits" here)
    row = simulate(r, load=0.3, seed=3, packet_size=8, vc_buf_size=8, num_vcs=1,
                   deadlock_cycles=500, self_packets=False, sample_period=20000, vc_alloc="credits")
    assert row["status"] == "deadlock"
    assert "no packet moved" in row["message"]


@pytest.mark.parametrize("make", [dor, updown])
def test_deadlock_free_ring_routings_never_deadlock(make):
    r = make(_ring())
    assert check(r).acyclic
    for load in (0.3, 0.9):
        row = simulate(r, load=load, seed=3, packet_size=8, vc_buf_size=8, num_vcs=r.num_vcs,
                       deadlock_cycles=500)
        assert row["status"] in ("completed", "saturated")
    # a heavy burst drains completely
    rng = np.random.default_rng(5)
    k = 3000
    src = rng.integers(0, 8, k)
    dst = (src + rng.integers(1, 8, k)) % 8
    tr = run_trace(r, np.c_[np.sort(rng.integers(0, 1500, k)), src, dst], packet_size=8,
                   vc_buf_size=8, num_vcs=r.num_vcs, deadlock_cycles=500)
    assert not tr.deadlocked and len(tr.pid) == k


def test_same_seed_same_result(tmp_path):
    from topogen.results import write_results

    t = torus((4, 4), hosts_per_switch=2)
    r = nearest(t)
    kw = dict(load=0.3, packet_size=2, vc_buf_size=8, sample_period=300)
    rows = [simulate(r, seed=9, **kw), simulate(r, seed=9, **kw), simulate(r, seed=10, **kw)]
    files = []
    for i, row in enumerate(rows):
        row["wall_time_s"] = None  # the only non-reproducible column
        files.append(write_results(tmp_path / f"{i}.csv", [row]).read_bytes())
    assert files[0] == files[1]
    assert files[0] != files[2] and rows[0]["latency_avg"] != rows[2]["latency_avg"]


def test_valiant_draws_from_the_simulation_seed():
    from topogen.routing import valiant

    t = torus((4, 4), hosts_per_switch=1)
    kw = dict(load=0.1, packet_size=2, vc_buf_size=4, sample_period=200, link_latency=1, num_vcs=8)
    a = simulate(valiant(nearest(t), seed=1), seed=3, **kw)
    b = simulate(valiant(nearest(t), seed=1), seed=3, **kw)
    assert a["status"] == "completed" and a["latency_avg"] == b["latency_avg"]
    m = simulate(nearest(t), seed=3, **kw)
    assert a["hops_avg"] > m["hops_avg"]  # detours through a random intermediate switch


def test_gbps_load_is_the_same_simulation_as_flits():
    t = torus((4, 4), hosts_per_switch=1)
    kw = dict(packet_size=4, vc_buf_size=8, sample_period=200, seed=2, link_gbps=100.0)
    a = simulate(nearest(t), load=0.2, load_unit="flits", **kw)
    b = simulate(nearest(t), load=20.0, load_unit="gbps", **kw)
    assert b["load_unit"] == "Gbit/s/node" and b["offered_load"] == 20.0
    assert a["latency_avg"] == b["latency_avg"] and a["packets"] == b["packets"]


def test_parameter_errors():
    t = torus((4, 4))
    with pytest.raises(ParameterError, match="vc_buf_size"):
        SimConfig(packet_size=33, vc_buf_size=8)
    with pytest.raises(ParameterError, match="num_vcs"):
        simulate(dor(t), num_vcs=1, packet_size=1, vc_buf_size=2)
    with pytest.raises(ParameterError, match="at most 1"):
        simulate(nearest(t), load=2.0, load_unit="packets")
    with pytest.raises(ParameterError, match="traffic"):
        simulate(nearest(t), traffic="nonsense")


def test_knot_analysis_finds_the_ring_deadlock_without_the_timeout():
    r = nearest(_ring())
    row = simulate(r, load=0.3, seed=3, packet_size=8, vc_buf_size=8, num_vcs=1,
                   deadlock_cycles=10**9)
    assert row["status"] == "deadlock" and "wait on each other" in row["message"]


def test_partial_deadlock_on_a_random_graph():
    t = topogen.generate("random", num_switches=32, degree=4, hosts_per_switch=2, seed=2)
    kw = dict(load=0.6, seed=1, packet_size=4, vc_buf_size=4, num_vcs=1, link_latency=1,
              sample_period=500)
    assert not check(nearest(t)).acyclic and check(updown(t)).acyclic
    assert simulate(nearest(t), **kw)["status"] == "deadlock"
    assert simulate(updown(t), **kw)["status"] in ("completed", "saturated")
