"""Cabinet mapping (Koibuchi et al. IV-D): serpentine baseline and simulated annealing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from topogen.errors import ParameterError
from topogen.generators.shortcut import nbr
from topogen.layout import Floor
from topogen.layout.clustering import cluster_graph, sequential_clusters
from topogen.layout.mapping import (
    _DenseEval,
    _GridEval,
    anneal,
    map_clusters,
    mapping_cost,
    serpentine,
)


def random_weights(k, density=0.4, seed=0):
    rng = np.random.default_rng(seed)
    w = np.triu((rng.random((k, k)) < density) * rng.integers(1, 4, (k, k)), 1)
    return (w + w.T).astype(float)


def brute_cost(w, d, pi):
    k = len(pi)
    return sum(w[a, b] * d[pi[a], pi[b]] for a in range(k) for b in range(a + 1, k))


def test_serpentine_order():
    f = Floor(12, 4, rows=3, columns=4)
    assert serpentine(f).tolist() == [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11]
    # partial last row: 10 cabinets on a 4 x 3 grid; missing positions are skipped
    g = Floor(10, 4)
    assert (g.rows, g.columns) == (4, 3)
    assert serpentine(g).tolist() == [0, 1, 2, 5, 4, 3, 6, 7, 8, 9]
    assert serpentine(g, 4).tolist() == [0, 1, 2, 5]
    with pytest.raises(ParameterError, match="at least 11 cabinets"):
        serpentine(g, 11)


def test_mapping_cost_matches_brute_force():
    w = random_weights(9, seed=1)
    d = Floor(12, 4).distance_matrix()
    pi = np.random.default_rng(2).permutation(12)[:9]
    assert mapping_cost(w, d, pi) == pytest.approx(brute_cost(w, d, pi))


def test_evaluators_give_exact_swap_deltas():
    rng = np.random.default_rng(3)
    floor = Floor(30, 4)
    L = 30
    w = np.zeros((L, L))
    w[:25, :25] = random_weights(25, seed=4)
    d = floor.distance_matrix()
    pi = rng.permutation(L)
    grid, dense = _GridEval(w, floor, pi), _DenseEval(w.astype(np.float32), d, pi)
    r, s = rng.permutation(L)[:10], rng.permutation(L)[10:20]
    truth = []
    for a, b in zip(r, s):
        q = pi.copy()
        q[a], q[b] = q[b], q[a]
        truth.append(brute_cost(w, d, q) - brute_cost(w, d, pi))
    assert np.allclose(grid.deltas(pi, r, s), truth, atol=1e-9)
    assert np.allclose(dense.deltas(pi, r, s), truth, atol=1e-2)


@pytest.mark.parametrize("chain", ["sequential", "batched"])
@pytest.mark.parametrize("use_floor", [True, False])
def test_anneal_finds_the_optimum_of_a_small_qap(chain, use_floor):
    floor = Floor(6, 4, rows=2, columns=3)
    d = floor.distance_matrix()
    w = random_weights(6, density=0.7, seed=5)
    best = min(brute_cost(w, d, p) for p in itertools.permutations(range(6)))
    res = anneal(w, floor if use_floor else d, iterations=20_000, seed=1, chain=chain)
    assert res.cost == pytest.approx(best)
    assert res.cost == pytest.approx(mapping_cost(w, d, res.assignment))
    assert sorted(res.assignment.tolist()) == list(range(6))


def test_anneal_never_worse_than_its_start():
    floor = Floor(16, 4)
    d = floor.distance_matrix()
    for seed in range(6):
        w = random_weights(12, seed=seed)
        start = np.random.default_rng(seed).permutation(16)[:12]
        for kw in (dict(iterations=50), dict(iterations=3000, t_start=1e6, t_end=1e5)):
            res = anneal(w, floor, initial=start, seed=seed, **kw)
            assert res.cost <= res.initial_cost == pytest.approx(mapping_cost(w, d, start))
    # started at the optimum it stays there
    w = random_weights(6, seed=9)
    f6 = Floor(6, 4, rows=2, columns=3)
    opt = min(itertools.permutations(range(6)),
              key=lambda p: brute_cost(w, f6.distance_matrix(), p))
    res = anneal(w, f6, initial=np.array(opt), iterations=5000, t_start=50.0, seed=2)
    assert res.cost == pytest.approx(res.initial_cost)


def test_tracked_cost_is_exact_and_reproducible():
    w = random_weights(40, density=0.3, seed=7)
    floor = Floor(48, 4)
    a = anneal(w, floor, iterations=30_000, restarts=3, seed=4)
    b = anneal(w, floor, iterations=30_000, restarts=3, seed=4)
    assert np.array_equal(a.assignment, b.assignment) and a.cost == b.cost
    assert len(a.trial_costs) == 3 and min(a.trial_costs) == pytest.approx(a.cost, rel=1e-9)
    assert a.moves == 90_000 and a.cost < a.initial_cost
    # free cabinets are used: 40 clusters on 48 locations
    assert len(set(a.assignment.tolist())) == 40 and a.assignment.max() < 48


def test_map_clusters_layout():
    t = nbr(256, 6, 0.5, seed=1)
    floor = Floor(16, 16)
    lab = sequential_clusters(256, 16)
    base = map_clusters(t, lab, floor, "serpentine")
    sa = map_clusters(t, lab, floor, "anneal", iterations=20_000, seed=3)
    assert sa.total_cable_length <= base.total_cable_length
    w = cluster_graph(t, lab)
    loc = np.array([sa.cabinet[lab == k][0] for k in range(16)])
    intra = int(np.trace(w.toarray()))
    assert sa.total_cable_length == pytest.approx(
        mapping_cost(w, floor.distance_matrix(), loc) + 2.0 * intra)
    assert sa.placement == "anneal" and sa.seed == 3


def test_bad_input():
    t = nbr(64, 6, 0.5, seed=1)
    lab = sequential_clusters(64, 8)
    with pytest.raises(ParameterError, match="at least 8 cabinets"):
        map_clusters(t, lab, Floor(7, 8))
    with pytest.raises(ParameterError, match="switches_per_cabinet=4"):
        map_clusters(t, lab, Floor(16, 4))
    with pytest.raises(ParameterError, match="anneal, serpentine"):
        map_clusters(t, lab, Floor(8, 8), "greedy")
    with pytest.raises(ParameterError, match="at least 5 cabinets"):
        anneal(random_weights(5), Floor(4, 2))
    with pytest.raises(ParameterError, match="distinct locations"):
        anneal(random_weights(3), Floor(4, 2), initial=[0, 0, 1])
    with pytest.raises(ParameterError, match="symmetric"):
        anneal(np.triu(np.ones((3, 3)), 1), Floor(4, 2))
    with pytest.raises(ParameterError, match="chain"):
        anneal(random_weights(3), Floor(4, 2), chain="parallel")


def test_grid_anneal_keeps_no_cabinet_by_cabinet_matrix():
    # 1,600 cabinets, a ring of clusters plus a few chords: the floor evaluator keeps W
    # sparse and computes distances, so no L x L array exists (4 GB at 12,500 cabinets)
    floor = Floor(1600, 8)
    k = 1500
    rows = np.r_[np.arange(k), np.arange(0, k, 7)]
    cols = np.r_[(np.arange(k) + 1) % k, (np.arange(0, k, 7) * 13 + 5) % k]
    keep = rows != cols
    w = sp.coo_matrix((np.ones(keep.sum()), (rows[keep], cols[keep])), shape=(k, k)).tocsr()
    w = (w + w.T).tocsr()
    pi = np.random.default_rng(1).permutation(floor.cabinets)
    ev = _GridEval(sp.vstack([sp.hstack([w, sp.csr_matrix((k, 100))]), sp.csr_matrix((100, 1600))]),
                   floor, pi)
    big = [name for name, v in vars(ev).items() if getattr(v, "size", 0) >= floor.cabinets ** 2 // 4]
    assert big == []
    # its swap deltas are exact against the full distance matrix
    d = floor.distance_matrix()
    dense = np.zeros((1600, 1600))
    dense[:k, :k] = w.toarray()
    r, s = np.array([3, 10, 700, 1499, 1550]), np.array([4, 900, 701, 0, 1599])
    full = [mapping_cost(dense, d, _swap(pi, a, b)) - mapping_cost(dense, d, pi) for a, b in zip(r, s)]
    assert np.allclose(ev.deltas(pi, r, s), full, atol=1e-6)
    res = anneal(w, floor, iterations=20000, seed=3)
    assert res.cost == pytest.approx(mapping_cost(w, d, res.assignment)) and res.cost <= res.initial_cost


def _swap(pi, a, b):
    q = pi.copy()
    q[a], q[b] = q[b], q[a]
    return q
