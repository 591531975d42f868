"""Reference simulator: adaptive routing with an up*/down* escape VC (Silla-Duato,
``topogen.routing.escape``) simulated hop by hop."""

import json

import numpy as np
import pytest

import topogen
from topogen.generators.classic import torus
from topogen.layout import default_layout
from topogen.routing import check, escape, load_routing, nearest
from topogen.routing.escape import EscapeRouting
from topogen.sim import SimConfig, run_trace, simulate
from topogen.sim import model as sim_model


def _ring(n=8):
    return torus((n,), hosts_per_switch=1)


def _random(num_switches=32, seed=2):
    return topogen.generate("random", num_switches=num_switches, degree=4, hosts_per_switch=2,
                            seed=seed)


def _burst(n_hosts, k, span, seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n_hosts, k)
    dst = (src + rng.integers(1, n_hosts, k)) % n_hosts
    return np.sort(rng.integers(0, span, k)), src, dst


def _record_hops(monkeypatch):
    """Record every network hop (pid, switch, next switch, buffer) the Python engine takes
    (its runs here pass engine="python"; the compiled engine makes the same choices,
    tests/sim/test_compiled_escape.py)."""
    hops = []
    orig = sim_model.Engine._send_adaptive

    def rec(self, pkt, o, b, now):
        hops.append((pkt.pid, pkt.at, self.indices_l[o], b % self.V))
        orig(self, pkt, o, b, now)

    monkeypatch.setattr(sim_model.Engine, "_send_adaptive", rec)
    return hops


# ---------------------------------------------------------------- (1) no deadlock where min does
def test_ring_escape_runs_where_one_vc_min_routing_deadlocks():
    ring = _ring()
    kw = dict(seed=3, packet_size=8, vc_buf_size=8, deadlock_cycles=500)
    assert simulate(nearest(ring), load=0.3, num_vcs=1, **kw)["status"] == "deadlock"
    r = escape(ring, num_vcs=2, base="nr")
    assert check(r).acyclic
    assert simulate(r, load=0.3, num_vcs=2, **kw)["status"] == "completed"
    row = simulate(r, load=0.9, num_vcs=2, **kw)
    assert row["status"] == "saturated", row["message"]
    # a heavy burst drains completely (no knot, no stall)
    times, src, dst = _burst(8, 3000, 1500, 5)
    tr = run_trace(r, np.c_[times, src, dst], packet_size=8, vc_buf_size=8, num_vcs=2,
                   deadlock_cycles=500)
    assert not tr.deadlocked and len(tr.pid) == 3000


def test_random_graph_escape_runs_where_one_vc_min_routing_deadlocks():
    t = _random()
    kw = dict(seed=1, packet_size=4, vc_buf_size=4, link_latency=1, sample_period=500)
    assert simulate(nearest(t), load=0.6, num_vcs=1, **kw)["status"] == "deadlock"
    r = escape(t, num_vcs=2, base="nr")
    assert check(r).acyclic
    assert simulate(r, load=0.2, num_vcs=2, **kw)["status"] == "completed"
    for load in (0.6, 1.0):
        row = simulate(r, load=load, num_vcs=2, **kw)
        assert row["status"] == "saturated", row["message"]


def test_knot_analysis_sees_adaptive_packets():
    """With a cyclic 'escape' (minimal ring routes on VC 0) the adaptive routing is not
    deadlock-free: the knot analysis finds the deadlock among adaptive packets."""
    ring = _ring()
    bad = EscapeRouting(nearest(ring, all_next_hops=True), nearest(ring), num_vcs=2)
    assert not check(bad).acyclic
    row = simulate(bad, load=0.9, seed=3, packet_size=8, vc_buf_size=8, num_vcs=2,
                   deadlock_cycles=10**9)
    assert row["status"] == "deadlock" and "wait on each other" in row["message"]


# ---------------------------------------------------------------- (2) zero load = minimal routes
@pytest.mark.parametrize("base", ["nr", "fr"])
def test_lone_packets_take_minimal_routes_with_analytic_latency(base):
    t = topogen.generate("random", num_switches=16, degree=4, hosts_per_switch=2, seed=1)
    layout = default_layout(t)
    r = escape(t, layout, num_vcs=4, base=base)
    rng = np.random.default_rng(7)
    n = t.num_hosts
    src, dst = rng.integers(0, n, 60), rng.integers(0, n, 60)
    times = np.arange(60) * 2000  # far apart: every packet alone in the network
    cfg = SimConfig(packet_size=33, vc_buf_size=66, num_vcs=4, clock_ns=256 / 96)
    tr = run_trace(r, np.c_[times, src, dst], config=cfg)
    assert not tr.deadlocked and len(tr.pid) == 60
    net = tr.network
    hops = nearest(t, all_next_hops=True).distances if base == "nr" else None
    for pid, lat, links in zip(tr.pid, tr.latency, tr.links):
        s, d = int(src[pid]), int(dst[pid])
        assert lat == net.zero_load_latency(s, d)
        sw_s, sw_d = int(net.host_switch[s]), int(net.host_switch[d])
        assert links == len(r.minimal.path(sw_s, sw_d)[0]) - 1
        if hops is not None:
            assert links == int(hops[sw_d, sw_s])


def test_empty_network_uses_adaptive_vcs_only(monkeypatch):
    hops = _record_hops(monkeypatch)
    t = _random(16, 1)
    r = escape(t, num_vcs=4, base="nr")
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, t.num_hosts, 40), rng.integers(0, t.num_hosts, 40)
    run_trace(r, np.c_[np.arange(40) * 500, src, dst], packet_size=4, vc_buf_size=8,
              num_vcs=4, link_latency=1, engine="python")
    assert hops and all(vc == 1 for *_, vc in hops)  # most credits, ties: lowest VC


# ---------------------------------------------------------------- escape channel semantics
@pytest.mark.parametrize("num_vcs", [2, 4])
def test_escape_hops_follow_the_updown_route_to_the_end(monkeypatch, num_vcs):
    """Conservative Duato (as escape.py and the deadlock check define it): once on the
    escape VC a packet stays on it and follows the up*/down* route from the switch where
    it entered; its adaptive hops are minimal."""
    hops = _record_hops(monkeypatch)
    t = _random()
    r = escape(t, num_vcs=num_vcs, base="nr")
    times, src, dst = _burst(t.num_hosts, 6000, 1500, 2)
    tr = run_trace(r, np.c_[times, src, dst], packet_size=4, vc_buf_size=4, num_vcs=num_vcs,
                   link_latency=1, engine="python")
    assert not tr.deadlocked and len(tr.pid) == 6000
    dist = nearest(t, all_next_hops=True).distances
    sw = tr.network.host_switch
    order = np.argsort(times, kind="stable")  # engine pid -> input row
    per = {}
    for pid, u, w, vc in hops:
        per.setdefault(pid, []).append((u, w, vc))
    escaped = 0
    for pid, hs in per.items():
        d = int(sw[dst[order[pid]]])
        k = next((i for i, h in enumerate(hs) if h[2] == 0), len(hs))
        assert all(vc >= 1 and dist[d, w] == dist[d, u] - 1 for u, w, vc in hs[:k])
        if k < len(hs):
            escaped += 1
            path, _ = r.escape_path(hs[k][0], d)
            assert [u for u, _, _ in hs[k:]] + [hs[-1][1]] == path.tolist()
            assert all(vc == 0 for *_, vc in hs[k:])
    assert escaped > 0  # the burst does push packets onto the escape channel


def test_escape_return_option_drains():
    """``routing.params["escape_return"] = True``: a packet on the escape VC may go back
    to adaptive VCs at the next switch (Duato's full rule under virtual cut-through)."""
    t = _random()
    r = escape(t, num_vcs=2, base="nr")
    r.params["escape_return"] = True
    times, src, dst = _burst(t.num_hosts, 6000, 1500, 4)
    tr = run_trace(r, np.c_[times, src, dst], packet_size=4, vc_buf_size=4, num_vcs=2,
                   link_latency=1, deadlock_cycles=500)
    assert not tr.deadlocked and len(tr.pid) == 6000
    row = simulate(r, load=1.0, seed=1, packet_size=4, vc_buf_size=4, num_vcs=2, link_latency=1,
                   sample_period=500)
    assert row["status"] == "saturated"
    params = row["params"] if isinstance(row["params"], dict) else json.loads(row["params"])
    assert params["routing_params"]["escape_return"] is True


# ---------------------------------------------------------------- (3) conservation
def test_conservation_under_load():
    t = _random()
    r = escape(t, num_vcs=4, base="fr")
    times, src, dst = _burst(t.num_hosts, 5000, 3000, 11)
    tr = run_trace(r, np.c_[times, src, dst], packet_size=4, vc_buf_size=8, num_vcs=4,
                   engine="python")
    assert not tr.deadlocked
    assert sorted(tr.pid.tolist()) == list(range(5000))  # each delivered exactly once
    np.testing.assert_array_equal(src[tr.pid], tr.src)
    np.testing.assert_array_equal(dst[tr.pid], tr.dst)
    np.testing.assert_array_equal(times[tr.pid], tr.created)
    assert tr.engine.credits_restored() and tr.engine.idle() and not tr.engine.waiting
    net = tr.network
    zl = np.array([net.zero_load_latency(s, d) for s, d in zip(tr.src, tr.dst)])
    assert np.all(tr.latency >= zl) and np.any(tr.latency > zl)


def test_simulate_drains_every_measured_packet():
    t = _random()
    row = simulate(escape(t, num_vcs=4, base="nr"), load=0.3, seed=4, packet_size=4,
                   vc_buf_size=8, num_vcs=4, link_latency=1)
    assert row["status"] == "completed" and row["routing"] == "escape"
    assert row["packets"] > 1000
    assert row["accepted_flit_rate"] == pytest.approx(0.3, rel=0.1)


# ---------------------------------------------------------------- (4) determinism
def test_same_seed_same_result(tmp_path):
    from topogen.results import write_results

    t = _random()
    r = escape(t, num_vcs=4, base="fr")
    kw = dict(load=0.3, packet_size=4, vc_buf_size=8, num_vcs=4, sample_period=300)
    rows = [simulate(r, seed=9, **kw), simulate(escape(t, num_vcs=4, base="fr"), seed=9, **kw),
            simulate(r, seed=10, **kw)]
    files = []
    for i, row in enumerate(rows):
        row["wall_time_s"] = None
        files.append(write_results(tmp_path / f"{i}.csv", [row]).read_bytes())
    assert rows[0]["status"] == "completed"
    assert files[0] == files[1]
    assert files[0] != files[2] and rows[0]["latency_avg"] != rows[2]["latency_avg"]
    # a saved and reloaded escape routing simulates identically
    r.save(tmp_path / "rt")
    again = simulate(load_routing(tmp_path / "rt"), seed=9, **kw)
    assert again["latency_avg"] == rows[0]["latency_avg"]


# ---------------------------------------------------------------- (5) Skywalk(4,64,3,4)
@pytest.fixture(scope="module")
def skywalk_escape():
    topo = topogen.generate("skywalk", switches_per_cabinet=4, cabinets=64, intra_degree=3,
                            inter_degree=4, hosts_per_switch=8, seed=1)
    r = escape(topo, num_vcs=4)  # FR, default layout
    assert check(r).acyclic
    return r


_SKY = dict(traffic="uniform", load_unit="gbps", seed=1, num_vcs=4, vc_buf_size=66,
            packet_size=33)


def test_skywalk_escape_uniform_below_and_above_saturation(skywalk_escape):
    """8 Gbit/s/host (where the 1-VC minimal path deadlocked) completes; 24 saturates."""
    assert simulate(skywalk_escape, load=8, **_SKY)["status"] == "completed"
    row = simulate(skywalk_escape, load=24, **_SKY)
    assert row["status"] == "saturated", row["message"]


@pytest.mark.slow
@pytest.mark.parametrize("load", [4, 12, 16, 20, 32, 48, 96])
def test_skywalk_escape_uniform_never_deadlocks(skywalk_escape, load):
    row = simulate(skywalk_escape, load=load, **_SKY)
    assert row["status"] in ("completed", "saturated"), row["message"]


@pytest.mark.slow
def test_skywalk_escape_long_overload_never_deadlocks(skywalk_escape):
    """Twice the saturation load for 10 sample periods (no early stop on latency): the
    knot analysis runs at every period boundary and the stall detector all along."""
    row = simulate(skywalk_escape, load=48, latency_thres=1e9, max_queue_packets=10**9,
                   **_SKY)
    assert row["status"] == "saturated" and "did not converge" in row["message"]
    assert row["sim_cycles"] >= 10_000


@pytest.mark.parametrize("base", ["nr", "fr"])
def test_first_adaptive_option_is_the_deterministic_next_hop(base):
    """On a torus (many equal-cost next hops) the empty-network choice, the lowest-id
    minimal next hop, is the next hop of ``routing.path()``."""
    from topogen.sim import Network

    t = torus((4, 4, 4), hosts_per_switch=1)
    r = escape(t, num_vcs=4, base=base)
    net = Network(r, SimConfig(num_vcs=4, vc_buf_size=64))
    n = t.num_switches
    ties = 0
    for d in range(0, n, 3):
        for v in range(n):
            if v != d:
                opts = net.adaptive_options(v, d)
                ties += len(opts) > 1
                assert opts[0][0] == net.indptr[v] + int(r.minimal.ranks[0, v, d])
                assert all(o[2] - o[1] == 3 for o in opts)  # adaptive VCs 1..3
                e, b0, b1, _ = net.escape_hop(0, v, d)
                assert (b0, b1) == (e * 4, e * 4 + 1)  # escape VC 0
    assert ties > 0
