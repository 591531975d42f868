"""The routing tables reproduce the shortest distances of :mod:`topogen.metrics`.

NR (and DOR on tori, meshes, hypercubes, HyperX) route lengths equal the hop distances
of ``topogen.metrics.hops.hop_matrix``; FR route latencies equal the FR latencies of
``topogen.metrics.latency.latency_matrix`` (an independent Dijkstra on another integer
encoding).  Each comparison is also run on a corrupted table, to show it can fail.
"""

import numpy as np
import pytest

import topogen
from topogen import Floor, place
from topogen.generators.classic import hypercube, hyperx, mesh, torus
from topogen.layout import default_layout
from topogen.metrics.hops import hop_matrix
from topogen.metrics.latency import latency_matrix
from topogen.routing import dor, fastest, nearest
from topogen.routing.base import TableRouting

SWITCH_DELAY = 60.0
INJECTION = 300.0


def _all_pairs(n):
    s = np.repeat(np.arange(n), n)
    d = np.tile(np.arange(n), n)
    return s, d


def _route_hops(routing):
    n = routing.num_switches
    s, d = _all_pairs(n)
    return routing.route_lengths(s, d).reshape(n, n)


def _route_latency(routing, layout):
    """Skywalk-model latency of every route: (hops + 1) switch delays + cables + injection."""
    n = routing.num_switches
    s, d = _all_pairs(n)
    ent, _ = routing.route_matrix(s, d)
    delay = np.asarray(layout.link_delay)[layout.topology.directed_edge_ids]
    cables = np.where(ent >= 0, delay[np.maximum(ent, 0)], 0.0).sum(axis=0)
    hops = (ent >= 0).sum(axis=0)
    lat = (hops + 1) * SWITCH_DELAY + cables + INJECTION
    lat[hops == 0] = 0.0
    return lat.reshape(n, n)


def _corrupt(routing, cost):
    """A copy where one switch sends one destination to its worst neighbour.

    ``cost[v, d]`` is the routing's own route cost; the pair is the first one with a
    multi-hop route, and the new next hop is the neighbour of highest cost toward ``d``
    (strictly worse than the best one, so the route gets strictly costlier or loops).
    """
    ranks = routing.ranks.copy()
    hops = _route_hops(routing)
    s, d = map(int, np.argwhere(hops >= 2)[0])
    nbrs = routing.topology.neighbors(s)
    worst = int(np.argmax(cost[nbrs, d]))
    assert cost[nbrs[worst], d] > cost[int(routing.path(s, d)[0][1]), d]
    ranks[0, s, d] = worst
    return TableRouting(routing.topology, ranks, layout=routing.layout, algorithm="corrupt")


def _topologies():
    return [
        ("random", lambda: topogen.generate("random", num_switches=64, degree=5, seed=3)),
        ("slimfly", lambda: topogen.generate("slimfly", q=5)),
        ("torus", lambda: torus((5, 4))),
        ("hypercube", lambda: hypercube(5)),
    ]


@pytest.mark.parametrize("name,make", _topologies())
def test_nr_lengths_equal_metric_hop_distances(name, make):
    topo = make()
    r = nearest(topo)
    ref = hop_matrix(topo, np.arange(topo.num_switches)).astype(np.int64)
    assert np.array_equal(_route_hops(r), ref), name


def test_nr_comparison_can_fail():
    topo = topogen.generate("random", num_switches=64, degree=5, seed=3)
    ref = hop_matrix(topo, np.arange(64)).astype(np.int64)
    r = nearest(topo)
    bad = _corrupt(r, _route_hops(r))
    try:
        got = _route_hops(bad)
    except topogen.errors.RoutingError:
        return  # the corrupted table loops: also a detected difference
    assert not np.array_equal(got, ref)


@pytest.mark.parametrize("topo", [torus((5, 4)), torus((4, 3, 2)), mesh((4, 3)), hypercube(4),
                                  hyperx((3, 4))])
def test_dor_lengths_equal_metric_hop_distances(topo):
    ref = hop_matrix(topo, np.arange(topo.num_switches)).astype(np.int64)
    assert np.array_equal(_route_hops(dor(topo)), ref)


@pytest.mark.parametrize("name,make", _topologies())
@pytest.mark.parametrize("placement", ["auto", "random"])
def test_fr_latency_equals_metric_latency(name, make, placement):
    topo = make()
    if placement == "auto":
        layout = default_layout(topo)
    else:
        floor = Floor(cabinets=-(-topo.num_switches // 4) + 2, switches_per_cabinet=4)
        layout = place(topo, floor, "random", seed=11)
    r = fastest(layout, SWITCH_DELAY)
    ref, _ = latency_matrix(layout, np.arange(topo.num_switches), switch_delay=SWITCH_DELAY,
                            routing="fr", injection_delay=INJECTION)
    np.testing.assert_allclose(_route_latency(r, layout), ref, rtol=0, atol=1e-6)


def test_fr_comparison_can_fail():
    topo = topogen.generate("random", num_switches=64, degree=5, seed=3)
    floor = Floor(cabinets=16, switches_per_cabinet=4)
    layout = place(topo, floor, "random", seed=11)
    ref, _ = latency_matrix(layout, np.arange(64), switch_delay=SWITCH_DELAY, routing="fr",
                            injection_delay=INJECTION)
    r = fastest(layout, SWITCH_DELAY)
    bad = _corrupt(r, _route_latency(r, layout))
    try:
        got = _route_latency(bad, layout)
    except topogen.errors.RoutingError:
        return
    assert not np.allclose(got, ref, rtol=0, atol=1e-6)
