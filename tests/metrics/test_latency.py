"""Skywalk latency (II-E, III-A): hand-computed layouts, brute force over all simple
paths, and scipy's float Dijkstra as independent references."""

import math

import networkx as nx
import numpy as np
import pytest

import topogen
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from topogen import Floor, Layout, ParameterError, Topology, TopologyError, place
from topogen.metrics import LatencyStats, latency_stats
from topogen.metrics.latency import latency_matrix, path_latency

# One row of 10 cabinets, 3 m apart, 4 m overhead: cabinet k at column k.
ROW = dict(cabinets=10, switches_per_cabinet=4, rows=1, columns=10, cabinet_width=3.0)


def five_cycle():
    """A(0) B(1) in cabinet 0, C(2) D(3) in cabinet 1, X(4) in cabinet 9.

    Links and delays: A-B 2 m = 10 ns, B-C 3+4 = 7 m = 35 ns, C-D 10 ns,
    D-X 24+4 = 28 m = 140 ns, X-A 27+4 = 31 m = 155 ns.
    A -> D: NR takes A-X-D (2 hops, 295 ns of cable), FR takes A-B-C-D (3 hops, 55 ns).
    """
    t = Topology(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)])
    return Layout(t, Floor(**ROW), [0, 0, 1, 1, 9])


def four_cycle():
    """A(0) cab 0, D(1) cab 1, Y(2) cab 0, X(3) cab 9; cycle A-Y-D-X-A.
    A -> D has two 2-hop paths: via Y (10 + 35 ns) and via X (155 + 140 ns)."""
    t = Topology(4, [(0, 2), (2, 1), (1, 3), (3, 0)])
    return Layout(t, Floor(**ROW), [0, 1, 0, 9])


def test_layout_delays_are_as_described():
    # links in sorted order: A-B, A-X, B-C, C-D, D-X
    np.testing.assert_allclose(five_cycle().link_delay, [10, 155, 35, 10, 140])


def test_path_latency_by_hand():
    lay = five_cycle()
    # (hops + 1) switch delays + cable + 300 ns injection/reception
    assert path_latency(lay, [0, 1, 2, 3]) == pytest.approx(4 * 60 + 55 + 300)
    assert path_latency(lay, [0, 4, 3]) == pytest.approx(3 * 60 + 295 + 300)
    assert path_latency(lay, [0, 4, 3], switch_delay=20, injection_delay=0) == pytest.approx(60 + 295)
    assert path_latency(lay, [2]) == pytest.approx(360)
    with pytest.raises(ParameterError, match="no link between switches 0 and 2"):
        path_latency(lay, [0, 2])
    with pytest.raises(ParameterError):
        path_latency(lay, [])
    with pytest.raises(ParameterError):
        path_latency(lay, [0, 9])


def test_fr_and_nr_differ_by_hand():
    lay = five_cycle()
    lat, hops = latency_matrix(lay, [0], routing="fr")
    assert lat[0, 3] == pytest.approx(595) and hops[0, 3] == 3
    lat, hops = latency_matrix(lay, [0], routing="nr")
    assert lat[0, 3] == pytest.approx(775) and hops[0, 3] == 2
    # All ten unordered pairs of the cycle, by hand (ns): FR picks the faster direction.
    fr = latency_stats(lay, routing="fr")
    assert fr.max == pytest.approx(645)  # B -> X via A: 3*60 + 165 + 300
    assert fr.avg == pytest.approx(5370 / 10)
    assert fr.max_hops == 3 and fr.avg_hops == pytest.approx(16 / 10)
    nr = latency_stats(lay, routing="nr")
    assert nr.max == pytest.approx(775)
    assert nr.avg == pytest.approx(5550 / 10)
    assert nr.max_hops == 2 and nr.avg_hops == pytest.approx(15 / 10)
    assert fr.pairs == nr.pairs == 20 and fr.exact and nr.exact
    assert fr.routing == "fr" and nr.routing == "nr" and nr.nr_tie == "best" and fr.nr_tie is None


def test_nr_tie_rule_by_hand():
    lay = four_cycle()
    best = latency_stats(lay, routing="nr")
    worst = latency_stats(lay, routing="nr", nr_tie="worst")
    # adjacent pairs 430, 455, 575, 560; A-D 525 or 775; Y-X 645 (via A) or 655 (via D)
    assert best.max == pytest.approx(645) and best.avg == pytest.approx(3190 / 6)
    assert worst.max == pytest.approx(775) and worst.avg == pytest.approx(3450 / 6)
    assert best.avg_hops == worst.avg_hops == pytest.approx(8 / 6)
    lat, _ = latency_matrix(lay, [0, 2], routing="nr", nr_tie="worst")
    assert lat[0, 1] == pytest.approx(775) and lat[1, 3] == pytest.approx(655)
    fr = latency_stats(lay, routing="fr")
    assert fr.avg == pytest.approx(best.avg) and fr.max == pytest.approx(best.max)


def test_fr_hop_tie_takes_fewest_hops():
    # no overhead and no switch delay: 0-2 direct (1.2 m) ties with 0-1-2 (0.6 + 0.6 m)
    floor = Floor(3, 1, rows=1, columns=3, cabinet_width=0.6, inter_overhead=0.0)
    lay = Layout(Topology(3, [(0, 1), (1, 2), (0, 2)]), floor, [0, 1, 2])
    s = latency_stats(lay, switch_delay=0.0)
    assert s.max == pytest.approx(306) and s.avg == pytest.approx((303 + 303 + 306) / 3)
    assert s.max_hops == 1 and s.avg_hops == 1.0


def test_switch_delay_and_injection_are_added_per_model():
    lay = five_cycle()
    a = latency_stats(lay, switch_delay=0.0, injection_delay=0.0, routing="nr")
    b = latency_stats(lay, switch_delay=100.0, injection_delay=300.0, routing="nr")
    # NR paths do not depend on the switch delay: latency grows by 100 (hops + 1) + 300
    assert b.avg == pytest.approx(a.avg + 100 * (a.avg_hops + 1) + 300)


def random_layout(n, m, seed, floor=None):
    rng = np.random.default_rng(seed)
    g = nx.Graph()
    g.add_edges_from((i, int(rng.integers(0, i))) for i in range(1, n))
    while g.number_of_edges() < m:
        u, v = (int(x) for x in rng.integers(0, n, 2))
        if u != v:
            g.add_edge(u, v)
    t = Topology.from_networkx(g)
    floor = floor or Floor.for_switches(n, 2)
    return place(t, floor, "random", seed=seed)


def brute_force(lay, switch_delay, rule):
    """(max, avg, max_hops, avg_hops) by enumerating every simple path."""
    t = lay.topology
    delay = {}
    for (u, v), d in zip(t.edges.tolist(), lay.link_delay):
        delay[u, v] = delay[v, u] = d
    g = nx.Graph(t.edges.tolist())
    lats, hops = [], []
    for s in range(t.num_switches):
        for d in range(t.num_switches):
            if s == d:
                continue
            options = []
            for p in nx.all_simple_paths(g, s, d):
                lat = len(p) * switch_delay + sum(delay[a, b] for a, b in zip(p, p[1:])) + 300.0
                options.append((round(lat, 9), len(p) - 1))
            if rule == "fr":
                lat, h = min(options)
            elif rule == "best":
                h, lat = min((h, lat) for lat, h in options)
            else:
                h, neg = min((h, -lat) for lat, h in options)
                lat = -neg
            lats.append(lat)
            hops.append(h)
    return max(lats), float(np.mean(lats)), max(hops), float(np.mean(hops))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("switch_delay", [0.0, 20.0, 60.0])
def test_against_brute_force(seed, switch_delay):
    lay = random_layout(9, 13, seed, Floor(9, 1, cabinet_width=2.0, cabinet_depth=5.0))
    for routing, rule in [("fr", "fr"), ("nr", "best"), ("nr", "worst")]:
        s = latency_stats(lay, switch_delay=switch_delay, routing=routing, nr_tie=rule if routing == "nr" else "best")
        mx, avg, mh, ah = brute_force(lay, switch_delay, rule)
        assert s.max == pytest.approx(mx, abs=1e-6), routing
        assert s.avg == pytest.approx(avg, abs=1e-6), routing
        assert (s.max_hops, s.avg_hops) == (mh, pytest.approx(ah)), (routing, rule)


def test_fr_against_scipy_float_dijkstra():
    lay = random_layout(300, 700, 3)
    t = lay.topology
    w = 60.0 + lay.link_delay
    e = t.edges
    g = csr_matrix((np.r_[w, w], (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(300, 300))
    d = dijkstra(g, directed=True)
    off = ~np.eye(300, dtype=bool)
    s = latency_stats(lay)
    assert s.max == pytest.approx(d.max() + 360, abs=1e-6)
    assert s.avg == pytest.approx(d[off].mean() + 360, abs=1e-6)
    lat, hops = latency_matrix(lay, [0, 7, 299])
    np.testing.assert_allclose(lat[:, 1:][:, :1], d[[0, 7, 299]][:, 1:2] + 360)
    # NR: minimum hop counts equal BFS distances
    nr = latency_stats(lay, routing="nr")
    bfs = dijkstra(g, directed=True, unweighted=True)
    assert nr.max_hops == bfs.max() and nr.avg_hops == pytest.approx(bfs[off].mean())
    assert nr.avg >= s.avg - 1e-9 and nr.max >= s.max - 1e-9


def test_blocks_and_workers_do_not_change_the_result():
    lay = random_layout(120, 300, 4)
    ref = latency_stats(lay, workers=1)
    for kw in [dict(block=1), dict(block=7), dict(block=7, workers=2)]:
        s = latency_stats(lay, **kw)
        assert (s.max, s.avg, s.max_hops, s.avg_hops) == (ref.max, ref.avg, ref.max_hops, ref.avg_hops)


def test_sampling():
    lay = random_layout(150, 350, 5)
    full = latency_stats(lay)
    all_sampled = latency_stats(lay, sample=150, seed=1)
    assert all_sampled.exact and all_sampled.avg == full.avg and all_sampled.stderr == 0.0
    a = latency_stats(lay, sample=30, seed=2)
    b = latency_stats(lay, sample=30, seed=2)
    assert a == b and not a.exact and a.max_is_lower_bound
    assert a.stderr > 0 and a.pairs == 30 * 149 and a.max <= full.max
    assert abs(a.avg - full.avg) < 5 * a.stderr
    # explicit sources: the mean over exactly those rows
    lat, _ = latency_matrix(lay, [3, 50, 99])
    s = latency_stats(lay, sources=[3, 50, 99])
    assert s.avg == pytest.approx(lat.sum() / (3 * 149)) and s.max == pytest.approx(lat.max())
    assert math.isnan(s.stderr)


def test_progress_callback():
    calls = []
    latency_stats(random_layout(40, 80, 6), block=16, progress=lambda d, k: calls.append((d, k)))
    assert calls == [(16, 40), (32, 40), (40, 40)]


def test_single_switch():
    lay = Layout(Topology(1, np.zeros((0, 2))), Floor(1, 1), [0])
    s = latency_stats(lay)
    assert s.pairs == 0 and s.max == 0.0 and s.exact


def test_errors():
    lay = five_cycle()
    with pytest.raises(ParameterError, match="Layout"):
        latency_stats(lay.topology)
    with pytest.raises(ParameterError, match="routing"):
        latency_stats(lay, routing="ugal")
    with pytest.raises(ParameterError, match="nr_tie"):
        latency_stats(lay, routing="nr", nr_tie="random")
    with pytest.raises(ParameterError, match="switch_delay"):
        latency_stats(lay, switch_delay=-1)
    with pytest.raises(ParameterError, match="injection_delay"):
        latency_stats(lay, injection_delay=float("nan"))
    with pytest.raises(ParameterError):
        latency_stats(lay, block=0)
    with pytest.raises(ParameterError):
        latency_stats(lay, sample=0)
    split = Layout(Topology(4, [(0, 1), (2, 3)]), Floor(1, 4), [0, 0, 0, 0])
    with pytest.raises(TopologyError):
        latency_stats(split)


def test_result_type():
    s = latency_stats(five_cycle())
    assert isinstance(s, LatencyStats)
    assert s.switch_delay == 60.0 and s.injection_delay == 300.0
    assert 0 < s.resolution_ns <= 2**-10
    assert s.to_dict()["max"] == s.max


@pytest.mark.parametrize("routing,tie", [("fr", "best"), ("nr", "best"), ("nr", "worst")])
def test_compiled_and_scipy_engines_agree_exactly(routing, tie):
    """The compiled Dijkstra (topogen._sssp) and scipy's give the same exact figures,
    with any number of threads and any block size."""
    from topogen import _sssp
    from topogen.layout import default_layout

    if not _sssp.AVAILABLE:
        pytest.skip("numba not installed")
    for t in (topogen.generate("skywalk", switches_per_cabinet=8, cabinets=36, intra_degree=4,
                               inter_degree=3, seed=5),
              topogen.generate("random", num_switches=150, degree=4, seed=2)):
        lay = default_layout(t)
        a = latency_stats(lay, routing=routing, nr_tie=tie, engine="scipy")
        b = latency_stats(lay, routing=routing, nr_tie=tie, engine="compiled")
        c = latency_stats(lay, routing=routing, nr_tie=tie, engine="compiled", workers=2, block=7)
        assert a.max == b.max == c.max
        assert a.max_hops == b.max_hops == c.max_hops
        assert a.avg_hops == b.avg_hops == c.avg_hops
        assert b.avg == c.avg and b.avg == pytest.approx(a.avg, rel=1e-12)


def test_unknown_engine_is_a_parameter_error():
    from topogen.layout import default_layout

    lay = default_layout(topogen.generate("torus", dims=(3, 3)))
    with pytest.raises(ParameterError, match="engine must be"):
        latency_stats(lay, engine="gpu")
