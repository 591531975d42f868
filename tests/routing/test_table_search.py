"""Tables built one search per destination (topogen.routing._rows.compute_columns): the same
bytes as the searches per source and as a plain reference search, and the longest route
they find along the way equals the one walked route by route, so hop-indexed VCs on an
FR table need no pass over the table."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

import topogen
from topogen import Floor, Topology, place
from topogen import _sssp
from topogen.layout import default_layout
from topogen.routing import _longest, _rows, fastest, hop_indexed
from topogen.routing import base as routing_base
from topogen.routing.base import csr_view
from topogen.routing.paths import fr_weights, tie_hash

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")


def _random_graph(n, m, seed):
    rng = np.random.default_rng(seed)
    edges = {(int(rng.integers(0, i)), i) for i in range(1, n)}  # a spanning tree: connected
    while len(edges) < m:
        u, v = sorted(int(x) for x in rng.integers(0, n, 2))
        if u != v:
            edges.add((u, v))
    return Topology(n, sorted(edges))


def _small_weights(topology, top, seed):
    """Symmetric integer weights in 1..top per CSR entry (few values: many exact ties)."""
    rng = np.random.default_rng(seed)
    per_link = rng.integers(1, top + 1, topology.num_links)
    return per_link[np.asarray(topology.directed_edge_ids)].astype(np.int64)


def _reference(topology, weights, tseed):
    """The table by definition: all-pairs distances (SciPy's Dijkstra), then at every
    switch ``v`` toward ``d`` the ranks ``r`` of the links ``v -> w`` with ``w(v, w) +
    dist(w, d) == dist(v, d)``, of which the lowest (``tseed`` None) or the one of index
    ``(tie_hash(tseed, v, d) * k) >> 32`` among the ``k`` is taken."""
    view = csr_view(topology)
    n = view.n
    a = sp.csr_matrix((weights.astype(float), view.indices, view.indptr), shape=(n, n))
    dist = dijkstra(a, directed=True)
    out = np.full((n, n), 255, dtype=np.uint8)
    for v in range(n):
        lo, hi = int(view.indptr[v]), int(view.indptr[v + 1])
        nbr = view.indices[lo:hi]
        for d in range(n):
            if d == v:
                continue
            tied = np.flatnonzero(weights[lo:hi] + dist[nbr, d] == dist[v, d])
            assert len(tied)
            if tseed is None:
                out[v, d] = tied[0]
            else:
                h = int(tie_hash(tseed, v, d))
                out[v, d] = tied[(h * len(tied)) >> 32]
    return out


def _walked_longest(topology, ranks):
    """The longest route, every route followed hop by hop."""
    view = csr_view(topology)
    n = view.n
    best = 0
    for s in range(n):
        for d in range(n):
            v, hops = s, 0
            while v != d:
                v = int(view.indices[view.indptr[v] + ranks[v, d]])
                hops += 1
                assert hops < n
            best = max(best, hops)
    return best


GRAPHS = [(n, m, seed) for n, m, seed in [(12, 14, 0), (40, 70, 1), (57, 140, 2), (90, 130, 3)]]


@pytest.mark.parametrize("tseed", [None, 0, 7])
@pytest.mark.parametrize("hub", [6, 20])
def test_selects_above_and_below_eight_links(tseed, hub):
    """Degrees up to 8 pick by a look-up table (_rows.SELECT8), higher ones by the
    branch-free select: a hub of ``hub`` links on a ring exercises one or the other."""
    n = 30
    edges = {(i, i + 1) for i in range(n - 1)} | {(0, n - 1)}
    edges |= {(0, 2 + k * (26 // (hub - 2))) for k in range(hub - 2)}
    t = Topology(n, sorted(edges))
    for w in (np.ones(2 * t.num_links, np.int64), _small_weights(t, 3, hub)):
        plan = _rows.plan(t, csr_view(t), w)
        ref = _reference(t, w, tseed)
        assert np.array_equal(_rows.compute(plan, n, tseed, workers=1)[0], ref)
        assert np.array_equal(_rows.compute_columns(plan, n, tseed, workers=1)[0][0], ref)


def test_select8_is_the_kth_set_bit():
    for m in range(256):
        ones = [b for b in range(8) if m >> b & 1]
        assert list(_rows.SELECT8[m, :len(ones)]) == ones


@pytest.mark.parametrize("n,m,seed", GRAPHS)
@pytest.mark.parametrize("top", [1, 3, 40])
@pytest.mark.parametrize("tseed", [None, 0, 7])
def test_columns_equal_reference_search_and_rows(n, m, seed, top, tseed):
    t = _random_graph(n, m, seed)
    w = _small_weights(t, top, seed + 100) if top > 1 else np.ones(2 * t.num_links, np.int64)
    plan = _rows.plan(t, csr_view(t), w)
    got, longest = _rows.compute_columns(plan, n, tseed, workers=2, block=5)
    ref = _reference(t, w, tseed)
    assert np.array_equal(got[0], ref)
    assert np.array_equal(got, _rows.compute(plan, n, tseed, workers=1))
    assert longest == _walked_longest(t, ref)


def test_block_size_and_threads_do_not_change_the_columns():
    t = _random_graph(70, 150, 5)
    w = _small_weights(t, 6, 1)
    plan = _rows.plan(t, csr_view(t), w)
    a, la = _rows.compute_columns(plan, 70, 3, workers=1, block=64)
    b, lb = _rows.compute_columns(plan, 70, 3, workers=3, block=7)
    assert np.array_equal(a, b) and la == lb


@pytest.mark.parametrize("ties,ties_seed", [("spread", None), ("lowest", None), ("spread", 9)])
def test_fastest_per_source_knows_its_longest_route(ties, ties_seed, monkeypatch):
    lay = default_layout(topogen.generate("torus", dims=(6, 5, 4)))
    a = fastest(lay, method="dijkstra", ties=ties, ties_seed=ties_seed)
    b = fastest(lay, method="per-source", ties=ties, ties_seed=ties_seed, workers=2)
    assert np.array_equal(a.ranks, b.ranks) and a.params == b.params
    walked = _walked_longest(lay.topology, np.asarray(a.ranks)[0])

    def no_pass(*args, **kwargs):
        raise AssertionError("the longest route was read off the table again")

    monkeypatch.setattr(routing_base, "LONGEST_COMPILED_MIN_PAIRS", 0)  # would read it off
    monkeypatch.setattr(_longest, "longest_route", no_pass)
    assert b.max_route_length() == walked
    hop = hop_indexed(b)
    assert hop.num_vcs == walked and hop.max_route_length() == walked
    monkeypatch.undo()
    assert a.max_route_length() == walked  # the block algorithms' table: walked or read off


def test_fr_weights_of_a_placed_network_give_the_reference_table():
    t = _random_graph(48, 90, 4)
    lay = place(t, Floor.for_switches(48, 4), "random", seed=2)
    w = fr_weights(lay)
    got = fastest(lay, method="per-source", workers=2)
    assert np.array_equal(np.asarray(got.ranks)[0], _reference(t, w, 0))
