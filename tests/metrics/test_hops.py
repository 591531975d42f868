"""Hop distances against networkx / scipy.sparse.csgraph and hand-computed cases."""

import math

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from topogen import Floor, ParameterError, Topology, TopologyError, place
from topogen.metrics import HopStats, distance_stats
from topogen.metrics import hops as hops_module
from topogen.metrics.hops import hop_matrix


def connected_random(n, m, seed):
    """A connected random graph with about ``m`` links (a random recursive tree plus
    random chords), as a Topology and a networkx graph."""
    rng = np.random.default_rng(seed)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((i, int(rng.integers(0, i))) for i in range(1, n))
    while g.number_of_edges() < min(m, n * (n - 1) // 2):
        u, v = (int(x) for x in rng.integers(0, n, 2))
        if u != v:
            g.add_edge(u, v)
    return Topology.from_networkx(g), g


def scipy_distances(topology):
    return shortest_path(topology.csr(), method="D", unweighted=True, directed=False)


@pytest.mark.parametrize("n,m,seed", [(2, 1, 0), (30, 45, 1), (97, 200, 2), (150, 400, 3), (200, 260, 4)])
def test_stats_match_scipy(n, m, seed):
    t, _ = connected_random(n, m, seed)
    d = scipy_distances(t)
    s = distance_stats(t)
    off = ~np.eye(n, dtype=bool)
    assert s.diameter == int(d.max())
    assert s.aspl == pytest.approx(d[off].mean(), rel=1e-12)
    assert s.aspl_n2 == pytest.approx(d.sum() / n**2, rel=1e-12)
    assert s.pairs == n * (n - 1)
    assert s.exact and s.stderr == 0.0 and not s.diameter_is_lower_bound
    expected_hist = np.bincount(d[off].astype(int), minlength=s.diameter + 1)
    np.testing.assert_array_equal(s.histogram, expected_hist)
    assert s.histogram[0] == 0 and len(s.histogram) == s.diameter + 1


def test_against_networkx():
    t, g = connected_random(120, 300, 7)
    s = distance_stats(t)
    assert s.diameter == nx.diameter(g)
    assert s.aspl == pytest.approx(nx.average_shortest_path_length(g), rel=1e-12)


@pytest.mark.parametrize("n,m,seed", [(70, 120, 5), (150, 300, 6)])
def test_hop_matrix_matches_networkx(n, m, seed):
    t, g = connected_random(n, m, seed)
    sources = np.array([5, 0, 69, 5, 33])
    h = hop_matrix(t, sources)
    assert h.shape == (len(sources), n) and h.dtype == np.int16
    for row, s in zip(h, sources):
        lengths = nx.single_source_shortest_path_length(g, int(s))
        np.testing.assert_array_equal(row, [lengths[v] for v in range(n)])


def test_hop_matrix_all_sources_more_than_one_block():
    t, _ = connected_random(300, 700, 8)  # 300 sources > one 256-source block
    np.testing.assert_array_equal(hop_matrix(t, np.arange(300)), scipy_distances(t).astype(int))


def test_hop_matrix_disconnected_marks_unreachable():
    # two components and an isolated switch (degree 0)
    t = Topology(6, [(0, 1), (1, 2), (3, 4)])
    h = hop_matrix(t, [0, 3, 5])
    np.testing.assert_array_equal(
        h, [[0, 1, 2, -1, -1, -1], [-1, -1, -1, 0, 1, -1], [-1, -1, -1, -1, -1, 0]]
    )


def test_path_graph_by_hand():
    # path 0-1-2-3: distances 1,2,3,1,2,1 per unordered pair -> ordered sum 20
    t = Topology(4, [(0, 1), (1, 2), (2, 3)])
    s = distance_stats(t)
    assert s.diameter == 3
    assert s.aspl == pytest.approx(20 / 12)
    assert s.aspl_n2 == pytest.approx(20 / 16)
    np.testing.assert_array_equal(s.histogram, [0, 6, 4, 2])


def test_torus_denominators_by_hand():
    # 16 x 16 torus: in one 16-ring the distance sum from a switch is
    # 2 * (1 + ... + 7) + 8 = 64, so the sum over all 256 * 256 pairs is 256 * 256 * 2 * 4.
    # Koibuchi et al. Table 1 reports 8.00 for this TORUS-4: the N^2 convention.
    idx = np.arange(256).reshape(16, 16)
    edges = np.concatenate([
        np.stack([idx.ravel(), np.roll(idx, -1, axis=0).ravel()], 1),
        np.stack([idx.ravel(), np.roll(idx, -1, axis=1).ravel()], 1),
    ])
    s = distance_stats(Topology(256, edges))
    assert s.diameter == 16
    assert s.aspl_n2 == 8.0
    assert s.aspl == pytest.approx(8.0 * 256 / 255)
    assert round(s.aspl, 2) == 8.03


def test_single_switch():
    s = distance_stats(Topology(1, np.zeros((0, 2))))
    assert (s.diameter, s.aspl, s.aspl_n2, s.pairs, s.exact) == (0, 0.0, 0.0, 0, True)


def test_words_workers_and_chunks_do_not_change_result(monkeypatch):
    t, _ = connected_random(260, 600, 9)
    ref = distance_stats(t, words=1, workers=1)
    for words, workers in [(2, 1), (3, 2), (1, 3)]:
        s = distance_stats(t, words=words, workers=workers)
        assert (s.diameter, s.aspl, s.pairs) == (ref.diameter, ref.aspl, ref.pairs)
        np.testing.assert_array_equal(s.histogram, ref.histogram)
    # force many row chunks in the level step
    monkeypatch.setattr(hops_module, "_CHUNK_ENTRIES", 37)
    s = distance_stats(t)
    np.testing.assert_array_equal(s.histogram, ref.histogram)
    np.testing.assert_array_equal(hop_matrix(t, [3, 200]), scipy_distances(t)[[3, 200]].astype(int))


def test_explicit_sources():
    t, _ = connected_random(90, 200, 10)
    d = scipy_distances(t)
    src = [4, 17, 60]
    s = distance_stats(t, sources=src)
    rows = d[src]
    assert s.pairs == 3 * 89 and not s.exact and s.diameter_is_lower_bound
    assert s.aspl == pytest.approx(rows.sum() / (3 * 89))
    assert s.aspl_n2 == pytest.approx(rows.sum() / (3 * 90))
    assert s.diameter == int(rows.max())
    assert math.isnan(s.stderr)
    assert distance_stats(t, sources=np.arange(90)).exact


def test_sample_all_sources_is_exact():
    t, _ = connected_random(80, 160, 11)
    full = distance_stats(t)
    s = distance_stats(t, sample=80, seed=3)
    assert s.exact and s.stderr == 0.0 and s.aspl == full.aspl and s.diameter == full.diameter
    assert distance_stats(t, sample=10_000, seed=3).exact


def test_sample_is_reproducible_and_states_its_error():
    t, _ = connected_random(200, 300, 12)
    d = scipy_distances(t)
    true_aspl = d[~np.eye(200, dtype=bool)].mean()
    true_diameter = int(d.max())
    a = distance_stats(t, sample=20, seed=5)
    b = distance_stats(t, sample=20, seed=5)
    assert a.aspl == b.aspl and a.seed == 5 and a.pairs == 20 * 199
    assert not a.exact and a.stderr > 0 and a.diameter <= true_diameter
    # the stated standard error matches the spread of the estimate over seeds, and
    # ~95% of the 2-stderr intervals cover the true value
    est, err = [], []
    for seed in range(150):
        s = distance_stats(t, sample=20, seed=seed)
        est.append(s.aspl)
        err.append(s.stderr)
    est, err = np.array(est), np.array(err)
    assert abs(est.mean() - true_aspl) < 3 * est.std() / math.sqrt(len(est))
    assert 0.7 < err.mean() / est.std() < 1.4
    coverage = np.mean(np.abs(est - true_aspl) < 2 * err)
    assert 0.85 < coverage <= 1.0


def test_unseeded_sample_records_its_seed():
    t, _ = connected_random(50, 100, 13)
    s = distance_stats(t, sample=10)
    assert isinstance(s.seed, int)
    assert distance_stats(t, sample=10, seed=s.seed).aspl == s.aspl


def test_accepts_layout():
    t, _ = connected_random(40, 80, 14)
    layout = place(t, Floor(5, 8))
    assert distance_stats(layout).aspl == distance_stats(t).aspl


def test_disconnected_raises():
    with pytest.raises(TopologyError, match="components"):
        distance_stats(Topology(5, [(0, 1), (2, 3), (3, 4)]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sample": 0},
        {"sample": 2.5},
        {"sample": 3, "sources": [1]},
        {"sources": [0, 10]},
        {"sources": [-1]},
        {"sources": []},
        {"words": 0},
        {"workers": 0},
    ],
)
def test_bad_parameters(kwargs):
    t = Topology(10, [(i, i + 1) for i in range(9)])
    with pytest.raises(ParameterError):
        distance_stats(t, **kwargs)


def test_bad_inputs():
    with pytest.raises(ParameterError):
        distance_stats("not a topology")
    with pytest.raises(ParameterError):
        hop_matrix(Topology(3, [(0, 1), (1, 2)]), [3])


def test_result_type():
    s = distance_stats(Topology(3, [(0, 1), (1, 2)]))
    assert isinstance(s, HopStats)
    with pytest.raises(AttributeError):
        s.aspl = 1.0  # frozen
    d = s.to_dict()
    assert d["histogram"] == [0, 4, 2] and d["diameter"] == 2
