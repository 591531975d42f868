import networkx as nx
import numpy as np
import pytest

from topogen import Floor, Topology, place
from topogen.errors import ParameterError, TopologyError
from topogen.generators.classic import torus
from topogen.routing import fastest, nearest
from topogen.routing.paths import fr_weights, hop_eccentricities

from .conftest import rrg


def _lowest_next_hop(g, dist, s, d, weight=None):
    best = None
    for w in sorted(g[s]):
        c = dist[w][d] + (1 if weight is None else weight[(s, w)])
        if c == dist[s][d]:
            return w
    return best


@pytest.mark.parametrize("n,d,seed", [(60, 5, 3), (31, 4, 1), (70, 3, 5)])
def test_nearest_matches_networkx(n, d, seed):
    topo = rrg(n, d, seed)
    g = topo.to_networkx()
    dist = dict(nx.all_pairs_shortest_path_length(g))
    r = nearest(topo, all_next_hops=True, ties="lowest")
    spread = nearest(topo, ties_seed=seed)
    assert spread.params["tie_rule"] == "spread" and spread.params["ties_seed"] == seed
    for s in range(n):
        nh = r.next_hop(s)
        assert nh[s] == -1
        for t in range(n):
            sw, vcs = r.path(s, t)
            assert sw[0] == s and sw[-1] == t
            assert len(sw) - 1 == dist[s][t]
            assert np.all(vcs == 0)
            if s != t:
                assert sw[1] == _lowest_next_hop(g, dist, s, t)
                exp = sorted(w for w in g[s] if dist[w][t] == dist[s][t] - 1)
                assert r.next_hops(s, t).tolist() == exp
                assert spread.next_hop(t)[s] in exp
    # next_hop(dst) rows agree with path()
    for t in range(n):
        row = r.next_hop(t)
        for s in range(n):
            if s != t:
                assert row[s] == r.path(s, t)[0][1]


def test_nearest_block_boundaries():
    topo = rrg(150, 4, 9)  # blocks of 64 destinations: partial last block, several words
    a = nearest(topo, block=64)
    b = nearest(topo)
    assert np.array_equal(a.ranks, b.ranks)


def test_fastest_matches_networkx_dijkstra():
    topo = rrg(48, 4, 7)
    floor = Floor(cabinets=12, switches_per_cabinet=4)
    layout = place(topo, floor, "random", seed=3)
    r = fastest(layout, 60.0, all_next_hops=True, ties="lowest")
    spread = fastest(layout, 60.0)
    w = fr_weights(layout, 60.0)
    g = nx.Graph()
    wt = {}
    for (u, v), delay in zip(topo.edges, layout.link_delay):
        x = int(round((60.0 + delay) * 1000))
        g.add_edge(int(u), int(v), weight=x)
        wt[(int(u), int(v))] = wt[(int(v), int(u))] = x
    dist = dict(nx.all_pairs_dijkstra_path_length(g))
    for s in range(48):
        for t in range(48):
            sw, _ = r.path(s, t)
            lat = sum(wt[(int(a), int(b))] for a, b in zip(sw[:-1], sw[1:]))
            assert lat == dist[s][t]
            if s != t:
                assert sw[1] == _lowest_next_hop(g, dist, s, t, wt)
                exp = sorted(x for x in g[s] if dist[x][t] + wt[(s, x)] == dist[s][t])
                assert r.next_hops(s, t).tolist() == exp
                assert spread.next_hop(t)[s] in exp
    assert r.params["switch_delay"] == 60.0
    assert len(w) == 2 * topo.num_links


def test_fastest_avoids_long_cables():
    # NR: 0-4-3 (2 hops, two ~240 m cables); FR: 0-1-2-3 (3 hops of short cables)
    from topogen.layout import Layout

    topo = Topology(5, [(0, 1), (1, 2), (2, 3), (0, 4), (4, 3)])
    floor = Floor(cabinets=400, switches_per_cabinet=1, rows=1, columns=400)
    layout = Layout(topo, floor, np.array([0, 1, 2, 3, 399]))
    assert nearest(topo).path(0, 3)[0].tolist() == [0, 4, 3]
    assert fastest(layout, switch_delay=1.0).path(0, 3)[0].tolist() == [0, 1, 2, 3]
    # with a huge switch delay, hops dominate again
    assert fastest(layout, switch_delay=1e6).path(0, 3)[0].tolist() == [0, 4, 3]


def test_torus_fr_equals_nr_hops_with_equal_cables():
    t = torus((4, 4))
    floor = Floor(cabinets=1, switches_per_cabinet=16)
    lay = place(t, floor)
    fr = fastest(lay)
    nr = nearest(t)
    # all cables intra-cabinet and equal: same weights per hop -> same tie rule, same tables
    assert np.array_equal(fr.ranks, nr.ranks)


def test_disconnected_raises():
    topo = Topology(4, [(0, 1), (2, 3)])
    with pytest.raises(TopologyError):
        nearest(topo)
    floor = Floor(cabinets=1, switches_per_cabinet=4)
    with pytest.raises(TopologyError):
        fastest(place(topo, floor))


def test_bad_arguments():
    with pytest.raises(ParameterError):
        fastest(rrg(10, 3, 1))
    with pytest.raises(ParameterError):
        nearest(rrg(10, 3, 1)).path(0, 10)


def test_eccentricities():
    topo = rrg(50, 3, 4)
    g = topo.to_networkx()
    ecc = nx.eccentricity(g)
    assert hop_eccentricities(topo, block=64).tolist() == [ecc[v] for v in range(50)]


def test_paths_for_matches_path():
    topo = rrg(30, 4, 2)
    r = nearest(topo)
    pairs = [(0, 5), (7, 7), (29, 1)]
    out = r.paths_for(pairs)
    for (s, d), (sw, vcs) in zip(pairs, out):
        sw2, vcs2 = r.path(s, d)
        assert np.array_equal(sw, sw2) and np.array_equal(vcs, vcs2)
    assert out[1][0].tolist() == [7] and len(out[1][1]) == 0


def test_high_degree_uses_uint16_ranks():
    g = nx.complete_graph(257)
    g.remove_edge(0, 1)
    topo = Topology.from_networkx(g)
    r = nearest(topo, ties="lowest")
    assert r.ranks.dtype == np.uint16 and r.ranks[0, 3, 3] == 65535
    assert r.path(0, 1)[0].tolist() == [0, 2, 1]  # lowest-id detour
    assert r.path(200, 100)[0].tolist() == [200, 100]


@pytest.mark.parametrize("make", [lambda: rrg(90, 5, 4), lambda: rrg(40, 3, 2),
                                  lambda: torus((6, 5)),
                                  lambda: Topology.from_networkx(nx.cycle_graph(30))])
def test_fastest_methods_give_identical_tables(make):
    """Bellman–Ford blocks, Dijkstra blocks and the auto choice: same ranks, distances."""
    topo = make()
    for layout in (place(topo, Floor(cabinets=topo.num_switches, switches_per_cabinet=1),
                         "random", seed=6),
                   place(topo, Floor(cabinets=1, switches_per_cabinet=topo.num_switches))):
        a = fastest(layout, 60.0, method="dijkstra", all_next_hops=True)
        b = fastest(layout, 60.0, method="bellman-ford", all_next_hops=True, block=16)
        c = fastest(layout, 60.0, all_next_hops=True, block=32)
        for r in (b, c):
            assert np.array_equal(a.ranks, r.ranks)
            assert np.array_equal(a.distances, r.distances)
    with pytest.raises(ParameterError):
        fastest(layout, method="magic")


def test_bellman_ford_budget_falls_back():
    from topogen.routing.base import csr_view
    from topogen.routing._fr_blocks import _bf_block, _bf_budget

    ring = Topology.from_networkx(nx.cycle_graph(40))
    assert _bf_budget(ring, csr_view(ring)) == 0  # hop diameter 20: Dijkstra
    topo = rrg(200, 6, 1)
    assert _bf_budget(topo, csr_view(topo)) == 16
    view = csr_view(ring)
    wpad = np.where(view.valid_pad, 1000, -1).astype(np.int64)
    assert _bf_block(view.nbr_pad, wpad, np.arange(4), 5, np.uint8, 255) is None
    out, dist = _bf_block(view.nbr_pad, wpad, np.arange(4), 25, np.uint8, 255)
    assert dist[0, 20] == 20 * 1000 and out[1, 0] == 0 and out[0, 0] == 255


def test_fastest_workers_share_memory_and_agree():
    topo = rrg(120, 4, 8)
    layout = place(topo, Floor(cabinets=30, switches_per_cabinet=4), "random", seed=2)
    a = fastest(layout, all_next_hops=True)
    b = fastest(layout, all_next_hops=True, workers=2, block=16)
    assert np.array_equal(a.ranks, b.ranks) and np.array_equal(a.distances, b.distances)
    c = fastest(layout, workers=2, block=16, method="dijkstra")
    assert np.array_equal(a.ranks, c.ranks) and c.distances is None


def test_random_ties_keep_shortest_routes_and_spread_the_load():
    """ties="random": every route still has the shortest length (NR hops, FR latency),
    the draw is reproducible from its seed, and on a hypercube (all ties) the busiest
    link carries far less than with the lowest-id rule."""
    import topogen
    from topogen.layout import default_layout
    from topogen.metrics import distance_stats, latency_stats
    from topogen.routing import fastest, nearest

    cube = topogen.generate("hypercube", dimension=6)
    low, rnd = nearest(cube, ties="lowest"), nearest(cube, ties="random", seed=3)
    again = nearest(cube, ties="random", seed=3)
    assert np.array_equal(rnd.ranks, again.ranks) and not np.array_equal(rnd.ranks, low.ranks)
    assert rnd.params["tie_rule"] == "random" and rnd.params["ties_seed"] == 3

    def link_loads(r):
        n = cube.num_switches
        load = {}
        lengths = []
        for s in range(n):
            for t in range(n):
                if s != t:
                    p = r.path(s, t)[0]
                    lengths.append(len(p) - 1)
                    for a, b in zip(p[:-1], p[1:]):
                        load[(a, b)] = load.get((a, b), 0) + 1
        return np.array(list(load.values())), np.array(lengths)

    loads_low, len_low = link_loads(low)
    loads_rnd, len_rnd = link_loads(rnd)
    assert len_rnd.mean() == len_low.mean() == distance_stats(cube).aspl
    assert loads_rnd.max() < 0.6 * loads_low.max()

    lay = default_layout(topogen.generate("torus", dims=(6, 6)))
    fr = fastest(lay, ties="random", seed=1)
    exact = latency_stats(lay, routing="fr")
    from topogen.metrics.latency import path_latency
    lat = [path_latency(lay, fr.path(s, t)[0]) for s in range(36) for t in range(36) if s != t]
    assert np.mean(lat) == pytest.approx(exact.avg) and max(lat) == pytest.approx(exact.max)
