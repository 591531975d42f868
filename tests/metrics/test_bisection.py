"""Bisection width: partitioners, enumeration and the spectral bound against brute force."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import Topology
from topogen.errors import ParameterError
from topogen.generators.classic import hypercube, torus
from topogen.generators.moore import petersen
from topogen.generators.slimfly import slimfly
from topogen.metrics import bisection as bis_mod
from topogen.metrics.bisection import bisection, cut_size, exact_bisection, spectral_lower_bound


def _brute_force(g: nx.Graph) -> int:
    """Minimum balanced cut by itertools (independent of the bit-mask enumeration)."""
    nodes = list(g.nodes)
    n = len(nodes)
    best = None
    for size in {n // 2, (n + 1) // 2}:  # node 0 on the larger or the smaller side
        for half in itertools.combinations(nodes[1:], size):
            c = nx.cut_size(g, half)
            best = c if best is None else min(best, c)
    return best


def _random_graphs():
    for n, d, seed in ((10, 3, 1), (12, 3, 2), (11, 4, 3), (14, 4, 4), (9, 4, 5)):
        if n * d % 2:
            continue
        g = nx.random_regular_graph(d, n, seed=seed)
        if nx.is_connected(g):
            yield g
    for seed in (6, 7):
        g = nx.gnm_random_graph(13, 30, seed=seed)
        if nx.is_connected(g):
            yield g


def test_petersen_is_five():
    r = bisection(petersen())
    assert (r.width, r.lower_bound, r.exact, r.method) == (5, 5, True, "exhaustive")
    assert cut_size(petersen(), r.side) == 5
    assert int(r.side.sum()) == 5
    # the spectral bound alone: lambda_2 = 2, 2 * 10 / 4 = 5 (tight on Petersen)
    assert spectral_lower_bound(petersen()) == (5, pytest.approx(2.0))


@pytest.mark.parametrize("g", list(_random_graphs()), ids=lambda g: f"n{g.number_of_nodes()}m{g.number_of_edges()}")
def test_enumeration_matches_brute_force(g):
    topo = Topology.from_networkx(g)
    want = _brute_force(nx.convert_node_labels_to_integers(g))
    width, side = exact_bisection(topo)
    assert width == want
    assert cut_size(topo, side) == want
    assert int(side.sum()) == topo.num_switches // 2
    lb, _ = spectral_lower_bound(topo)
    assert lb <= want
    for method in ("metis", "kahip"):
        r = bisection(topo, method=method, runs=2, seed=1)
        assert r.width >= want and r.lower_bound <= want
        assert int(r.side.sum()) == topo.num_switches // 2
        assert cut_size(topo, r.side) == r.width


def test_cut_size_matches_networkx():
    topo = torus((4, 5))
    rng = np.random.default_rng(0)
    side = np.zeros(20, dtype=np.int8)
    side[rng.choice(20, 9, replace=False)] = 1
    assert cut_size(topo, side) == nx.cut_size(topo.to_networkx(), set(np.flatnonzero(side).tolist()))


def test_hypercube_exact_by_spectral_bound():
    # Q_d has bisection width 2^(d-1) and lambda_2 = 2: the bound proves the cut optimal
    r = bisection(hypercube(8), runs=2, seed=0)
    assert (r.width, r.lower_bound, r.exact) == (128, 128, True)
    assert r.gap == 0.0


def test_slimfly_exact_and_heuristics_agree():
    # MMS q=5 (Hoffman-Singleton-like, 50 routers): cut and bound bracket the width
    topo = slimfly(7)
    r = bisection(topo, runs=3, seed=2)
    assert set(r.cuts) == {"metis", "kahip"}
    assert r.width == min(r.cuts.values())
    assert r.lower_bound <= r.width
    assert r.lower_bound >= 0.85 * r.width  # expanders: the spectral bound is tight
    # sparse Lanczos path agrees with the dense one
    lam_dense = spectral_lower_bound(topo)[1]
    lam_sparse, margin = bis_mod._lambda2_sparse(bis_mod._laplacian(topo))
    assert abs(lam_dense - lam_sparse) < 1e-6 and margin < 1e-5


def test_torus_bounds_and_odd_sizes():
    r = bisection(torus((6, 6)), runs=2, seed=0)
    assert r.width == 12  # two rings of 6 cut twice
    r = bisection(torus((3, 5)), method="exact")
    assert int(r.side.sum()) == 7 and r.exact
    assert r.width == _brute_force(torus((3, 5)).to_networkx())


def test_seeded_runs_are_reproducible():
    topo = torus((8, 9))
    a = bisection(topo, runs=2, seed=11)
    b = bisection(topo, runs=2, seed=11)
    assert a.width == b.width and np.array_equal(a.side, b.side) and a.seed == 11
    assert bisection(topo, runs=1).seed is not None  # drawn and recorded


def test_as_row():
    row = bisection(petersen()).as_row()
    assert row == {"bisection_links": 5, "bisection_lower_bound": 5, "bisection_exact": True,
                   "bisection_method": "exhaustive"}


def test_bad_input():
    two = Topology.from_networkx(nx.Graph([(0, 1), (2, 3)]))
    with pytest.raises(ParameterError, match="connected"):
        bisection(two)
    with pytest.raises(ParameterError, match="at least 2 switches"):
        bisection(Topology(1, np.zeros((0, 2), dtype=np.int32)))
    with pytest.raises(ParameterError, match="non-empty sides"):
        cut_size(petersen(), np.zeros(10, dtype=int))
    with pytest.raises(ParameterError, match="one 0/1 value per switch"):
        cut_size(petersen(), [0, 1])
    with pytest.raises(ParameterError, match="only 0 and 1"):
        cut_size(petersen(), [2] * 10)
    with pytest.raises(ParameterError, match="method"):
        bisection(petersen(), method="spectral")
    with pytest.raises(ParameterError, match="runs"):
        bisection(torus((8, 8)), runs=0)
    with pytest.raises(ParameterError, match="N <= 20"):
        exact_bisection(torus((5, 5)), limit=20)


def test_missing_partitioner_names_pip(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name in ("pymetis", "kahip"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ParameterError, match="pip install pymetis"):
        bisection(torus((8, 8)), method="metis")
    with pytest.raises(ParameterError, match="pip install pymetis kahip"):
        bisection(torus((8, 8)))


def test_popcount_fallback_matches_numpy(monkeypatch):
    x = np.random.default_rng(0).integers(0, 2**62, 1000, dtype=np.uint64)
    want = np.array([bin(int(v)).count("1") for v in x])
    assert np.array_equal(bis_mod._popcount(x), want)
    monkeypatch.delattr(np, "bitwise_count", raising=False)  # numpy < 2.0
    assert np.array_equal(bis_mod._popcount(x), want)


def test_sparse_lambda2_deflated_matches_dense():
    # the all-ones vector is deflated: lambda_2 is the smallest eigenvalue left, also when
    # it is multiple (torus) and when degrees differ (a path glued to a cycle)
    from scipy.linalg import eigvalsh

    irregular = Topology(30, [(i, i + 1) for i in range(29)] + [(0, 5), (3, 9), (12, 20)])
    for topo in (torus((6, 6)), irregular, slimfly(5)):
        lap = bis_mod._laplacian(topo)
        dense = eigvalsh(lap.toarray())
        lam, margin = bis_mod._lambda2_sparse(lap)
        assert abs(lam - dense[1]) < 1e-8 and margin < 1e-5
