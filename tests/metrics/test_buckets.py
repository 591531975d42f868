"""Dial's bucket-queue kernel of topogen._sssp: exact against scipy's Dijkstra and the
binary heap on random graphs, for FR and both NR tie rules."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from topogen import Floor, ParameterError, Topology, place
from topogen import _sssp
from topogen.metrics import latency_stats
from topogen.metrics.latency import _prepare

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")


def random_layout(n, m, seed, floor):
    rng = np.random.default_rng(seed)
    edges = {(int(rng.integers(0, i)), i) for i in range(1, n)}  # a random spanning tree
    while len(edges) < m:
        u, v = sorted(int(x) for x in rng.integers(0, n, 2))
        if u != v:
            edges.add((u, v))
    return place(Topology(n, sorted(edges)), floor, "random", seed=seed)


FLOORS = {
    # Skywalk floor: 0.6 m x 2.1 m cabinets, 5 ns/m -> delays on a half-nanosecond grid
    "skywalk": lambda n: Floor.for_switches(n, 4),
    # odd cabinet sizes: delays share only a fine power-of-two unit (heap or wide buckets)
    "odd": lambda n: Floor.for_switches(n, 3).__class__(
        cabinets=-(-n // 3), switches_per_cabinet=3, cabinet_width=0.613, cabinet_depth=1.77),
}


def _figures(s):
    return s.max, s.max_hops, s.avg_hops


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("floor", sorted(FLOORS))
def test_buckets_heap_and_scipy_agree_exactly(seed, floor):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(20, 90))
    lay = random_layout(n, int(n * rng.uniform(1.2, 3.0)), seed, FLOORS[floor](n))
    delay = float(rng.choice([0.0, 20.0, 60.0]))
    for routing, tie in (("fr", "best"), ("nr", "best"), ("nr", "worst")):
        kw = dict(switch_delay=delay, routing=routing, nr_tie=tie)
        ref = latency_stats(lay, engine="scipy", **kw)
        heap = latency_stats(lay, engine="heap", **kw)
        auto = latency_stats(lay, engine="auto", workers=2, block=5, **kw)
        assert _figures(heap) == _figures(ref) == _figures(auto), (routing, tie)
        assert heap.avg == auto.avg and auto.avg == pytest.approx(ref.avg, rel=1e-12)
        if floor == "skywalk":  # always bucketable there
            b = latency_stats(lay, engine="buckets", **kw)
            assert _figures(b) == _figures(ref) and b.avg == heap.avg


@pytest.mark.parametrize("seed", range(3))
def test_buckets_against_plain_float_dijkstra(seed):
    """FR max/avg latency and NR hop counts from scipy on the unencoded weights."""
    n = 150
    lay = random_layout(n, 400, seed, Floor.for_switches(n, 4))
    t = lay.topology
    w = 60.0 + lay.link_delay
    e = t.edges
    g = csr_matrix((np.r_[w, w], (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(n, n))
    d = dijkstra(g, directed=True)
    off = ~np.eye(n, dtype=bool)
    s = latency_stats(lay, engine="buckets")
    assert s.max == pytest.approx(d.max() + 360, abs=1e-6)
    assert s.avg == pytest.approx(d[off].mean() + 360, abs=1e-6)
    hops = dijkstra(g, directed=True, unweighted=True)
    nr = latency_stats(lay, routing="nr", engine="buckets")
    assert nr.max_hops == hops.max() and nr.avg_hops == pytest.approx(hops[off].mean())


def test_skywalk_floor_buckets_are_half_nanoseconds():
    lay = random_layout(64, 150, 1, Floor.for_switches(64, 4))
    _, _, _, _, _, enc = _prepare(lay, 60.0, 300.0, "fr", "best")
    m = lay.topology.csr()
    plan = _sssp.bucket_plan(m.indptr, m.indices, enc.weights.astype(np.int64), enc.shift,
                             _sssp.FR, enc.hop_bound)
    assert plan is not None and plan.scale * enc.q == 0.5
    assert plan.buckets > int((60.0 + lay.link_delay.max()) / 0.5)
    assert plan.dtype == np.uint32


def test_zero_latency_links_fall_back_to_the_heap():
    # switch delay 0 and a zero-length floor: every link has latency 0 -> no buckets
    t = Topology(4, [(0, 1), (1, 2), (2, 3), (0, 3)])
    floor = Floor(1, 4, intra_cable=0.0)
    lay = place(t, floor, "sequential")
    s = latency_stats(lay, switch_delay=0.0)
    assert s.max == 300.0 and s.max_hops == 2
    with pytest.raises(ParameterError, match="buckets"):
        latency_stats(lay, switch_delay=0.0, engine="buckets")
