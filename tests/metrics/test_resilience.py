"""Resilience to random link failures against a naive networkx recomputation."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from topogen import Topology
from topogen._rng import child_seeds, make_rng
from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.generators.moore import petersen
from topogen.generators.slimfly import slimfly
from topogen.metrics.resilience import failure_grid, removable_links, resilience


def _orders(m, trials, seed):
    """The failure orders resilience documents: trial i permutes with child seed i."""
    return np.array([make_rng(s).permutation(m) for s in child_seeds(seed, trials)])


def _naive(topology, orders, grid, dinc, ainc):
    """Per-fraction shares recomputed from scratch with networkx at every grid point."""
    m = topology.num_links
    base = topology.to_networkx()
    d0, a0 = nx.diameter(base), nx.average_shortest_path_length(base)
    conn, dia, asp = [], [], []
    for f in grid:
        k = int(math.floor(f * m + 1e-9))
        c = d = a = 0
        for order in orders:
            g = nx.Graph()
            g.add_nodes_from(range(topology.num_switches))
            g.add_edges_from(map(tuple, topology.edges[order[k:]]))
            if nx.is_connected(g):
                c += 1
                d += nx.diameter(g) <= d0 + dinc
                a += nx.average_shortest_path_length(g) <= a0 + ainc + 1e-12
        conn.append(c / len(orders))
        dia.append(d / len(orders))
        asp.append(a / len(orders))
    return np.array(conn), np.array(dia), np.array(asp)


@pytest.mark.parametrize("topo", [petersen(), slimfly(3), torus((4, 5))], ids=["petersen", "sf3", "torus4x5"])
def test_matches_naive_recomputation(topo):
    r = resilience(topo, trials=6, step=0.1, seed=7)
    grid = failure_grid(0.1)
    conn, dia, asp = _naive(topo, _orders(topo.num_links, 6, 7), grid, 2, 1.0)
    assert np.allclose(r.table["fraction"], grid)
    assert np.allclose(r.table["connected"], conn)
    assert np.allclose(r.table["diameter_ok"], dia)
    assert np.allclose(r.table["aspl_ok"], asp)
    # the summaries are the last grid fraction held by at least half of the trials
    for col, value in (("connected", r.disconnection), ("diameter_ok", r.diameter), ("aspl_ok", r.aspl)):
        held = grid[np.asarray(r.table[col]) >= 0.5]
        assert value == held.max()


def test_unionfind_equals_scipy_reference():
    topo = slimfly(5)
    orders = _orders(topo.num_links, 8, 3)
    a = removable_links(topo, orders, engine="unionfind")
    b = removable_links(topo, orders, engine="scipy")
    assert np.array_equal(a, b)
    # the definition: failing r links keeps it connected, r + 1 does not
    g_ok = nx.Graph(list(map(tuple, topo.edges[orders[0][a[0]:]])))
    g_bad = nx.Graph(list(map(tuple, topo.edges[orders[0][a[0] + 1:]])))
    assert g_ok.number_of_nodes() == topo.num_switches and nx.is_connected(g_ok)
    assert g_bad.number_of_nodes() < topo.num_switches or not nx.is_connected(g_bad)


def test_trees_and_rings():
    path = Topology.from_networkx(nx.path_graph(41))  # 40 links: any failure disconnects
    r = resilience(path, trials=5, seed=1, properties=("connectivity",))
    assert r.disconnection == 0.0 and (r.removable == 0).all()
    ring = Topology.from_networkx(nx.cycle_graph(40))  # one failure is fine, two are not
    r = resilience(ring, trials=5, seed=1, fractions=[0, 0.025, 0.05])
    assert (r.removable == 1).all()
    assert list(r.table["connected"]) == [1.0, 1.0, 0.0]
    assert r.disconnection == 0.025


def test_slimfly_q19_near_paper():
    # Table III: SF (N ~ 10K) 75 %; III-D2: the diameter 2 -> 4 bound holds to ~40-55 %
    r = resilience(slimfly(19), trials=20, seed=2, properties=("connectivity",))
    assert r.disconnection in (0.7, 0.75, 0.8)
    mean, half = r.mean_ci()
    assert 0.65 < mean < 0.85 and 0 < half < 0.05


def test_seed_and_aspl_factor():
    topo = torus((5, 6))
    a = resilience(topo, trials=4, seed=9)
    b = resilience(topo, trials=4, seed=9)
    assert a.table.equals(b.table) and a.seed == 9
    loose = resilience(topo, trials=4, seed=9, aspl_factor=2.0)
    assert loose.aspl >= a.aspl
    assert loose.criteria["aspl_factor"] == 2.0
    assert set(a.as_row()) == {"resilience_disconnection", "resilience_diameter",
                               "resilience_aspl", "resilience_trials"}


def test_bad_input():
    two = Topology.from_networkx(nx.Graph([(0, 1), (2, 3)]))
    with pytest.raises(ParameterError, match="connected"):
        resilience(two)
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        resilience(petersen(), fractions=[0.2, 1.5])
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        resilience(petersen(), fractions=[-0.1])
    with pytest.raises(ParameterError, match="step"):
        resilience(petersen(), step=0)
    with pytest.raises(ParameterError, match="trials"):
        resilience(petersen(), trials=0)
    with pytest.raises(ParameterError, match="level"):
        resilience(petersen(), level=0)
    with pytest.raises(ParameterError, match="aspl_factor"):
        resilience(petersen(), aspl_factor=0.5)
    with pytest.raises(ParameterError, match="properties"):
        resilience(petersen(), properties=("bisection",))
    with pytest.raises(ParameterError, match="1 link"):
        resilience(Topology(1, np.zeros((0, 2), dtype=np.int32)))


# ----------------------------------------------------------------------------- sampled mode
def test_sample_of_every_switch_is_the_exact_result():
    topo = slimfly(5)  # 50 switches
    exact = resilience(topo, trials=5, seed=3)
    for k in (50, 1000):
        r = resilience(topo, trials=5, seed=3, sample=k)
        assert r.table.equals(exact.table)
        assert (r.disconnection, r.diameter, r.aspl) == (exact.disconnection, exact.diameter, exact.aspl)
        assert (r.base_diameter, r.base_aspl) == (exact.base_diameter, exact.base_aspl)
        assert all(np.array_equal(r.per_trial[p], exact.per_trial[p], equal_nan=True) for p in r.per_trial)
        assert not r.sampled and r.aspl_stderr == 0.0
        row = r.as_row()
        assert row["resilience_sample"] == 50 and row["resilience_aspl_stderr"] == 0.0  # sources used
        assert row["resilience_diameter_upper_bound"] is False
    # the exact row is unchanged: no sampling columns
    assert list(exact.as_row()) == ["resilience_disconnection", "resilience_diameter",
                                    "resilience_aspl", "resilience_trials"]


def test_sampled_same_seed_same_result():
    topo = torus((6, 7))
    a = resilience(topo, trials=4, seed=5, sample=9)
    b = resilience(topo, trials=4, seed=5, sample=9)
    assert a.table.equals(b.table) and a.as_row() == b.as_row() and a.sampled
    assert a.as_row()["resilience_sample"] == 9 and a.as_row()["resilience_diameter_upper_bound"] is True


def test_sampled_sources_are_the_trials_and_the_same_at_every_fraction(monkeypatch):
    from topogen.metrics import hops

    seen = []
    real = hops.distance_stats

    def spy(sub, **kw):
        seen.append((sub.num_links, kw.get("sample"), kw.get("seed")))
        return real(sub, **kw)

    monkeypatch.setattr(hops, "distance_stats", spy)
    resilience(slimfly(5), trials=3, seed=11, sample=10, properties=("aspl",))
    trial_seeds = [child_seeds(s, 1)[0] for s in child_seeds(11, 3)]
    assert {k for _, k, _ in seen} == {10}
    assert {s for _, _, s in seen} == set(trial_seeds)  # one source seed per trial
    # the intact network is measured once per trial, from that trial's sources
    assert [s for m, _, s in seen if m == slimfly(5).num_links] == trial_seeds


def test_sampled_diameter_is_a_lower_bound_so_its_resilience_an_upper_bound():
    from topogen.metrics.hops import distance_stats, sample_sources
    from topogen.metrics.resilience import _swept_diameter

    topo = slimfly(11)  # 242 switches
    order = make_rng(4).permutation(topo.num_links)
    for failed in (0, 400, 800, 1200):
        sub = Topology(topo.num_switches, topo.edges[np.sort(order[failed:])])
        if sub.is_connected():
            assert _swept_diameter(sub, sample_sources(242, 8, 1)) <= distance_stats(sub).diameter
    for seed in range(3):
        exact = resilience(topo, trials=6, seed=seed, properties=("diameter",))
        r = resilience(topo, trials=6, seed=seed, sample=16, properties=("diameter",))
        assert r.base_diameter == exact.base_diameter  # the sweep finds the intact diameter
        assert (r.per_trial["diameter"] >= exact.per_trial["diameter"]).all()
        assert r.diameter >= exact.diameter


def test_sampled_aspl_within_standard_errors():
    # one trial, grid {0}: base_aspl is that trial's estimate from 32 sources and
    # aspl_stderr its standard error.  Measured over seeds 0..199: (estimate - exact) /
    # stderr has mean -0.07, sd 1.02, largest |.| 3.7 (1.7 over seeds 0..9).
    from topogen.metrics.hops import distance_stats

    topo = Topology.from_networkx(nx.random_regular_graph(6, 600, seed=1))
    exact = distance_stats(topo).aspl
    z = []
    for seed in range(50):
        r = resilience(topo, trials=1, seed=seed, sample=32, properties=("aspl",), fractions=[0])
        assert r.sampled and 0 < r.aspl_stderr < 0.05
        z.append((r.base_aspl - exact) / r.aspl_stderr)
    z = np.array(z)
    assert np.abs(z[:10]).max() < 3 and np.abs(z).max() < 4.5
    assert 0.6 < z.std() < 1.5  # the stated error is the size of the real one


def test_bad_sample():
    for bad in (0, -3, 2.5, True, "ten"):
        with pytest.raises(ParameterError, match=r"sample must be an integer >= 1.*sample=1000"):
            resilience(petersen(), trials=2, sample=bad)


def test_cli_row_records_the_sampling(capsys):
    import json

    from topogen.cli import main

    assert main(["analyze", "slimfly", "--q", "5", "--resilience", "3", "--sample", "8", "--seed", "2",
                 "--routing", "fr", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["resilience_sample"] == 8 and row["resilience_diameter_upper_bound"] is True
    assert row["resilience_aspl_stderr"] > 0 and row["sampled"] is True
    assert main(["analyze", "slimfly", "--q", "5", "--resilience", "3", "--seed", "2",
                 "--routing", "fr", "--format", "json"]) == 0
    exact = json.loads(capsys.readouterr().out)[0]
    assert not any(k.startswith("resilience_") and k not in ("resilience_disconnection", "resilience_diameter",
                   "resilience_aspl", "resilience_trials") for k in exact)
    assert exact["resilience_disconnection"] == row["resilience_disconnection"]  # connectivity is exact
