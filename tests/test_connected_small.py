"""``Topology.is_connected`` on a small network searches with NumPy (SciPy's graph routines
import ``scipy.linalg``, ~0.1 s of a small command's start); both paths agree."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import topogen
from topogen import formats, topology
from topogen.errors import TopologyError
from topogen.topology import Topology


def _graphs():
    for seed in range(120):
        n = 2 + seed % 40
        g = nx.gnp_random_graph(n, 0.02 + 0.2 * (seed % 7) / 7, seed=seed)
        yield n, np.array(sorted(g.edges()), dtype=np.int64).reshape(-1, 2), nx.is_connected(g)


@pytest.mark.parametrize("small", [True, False])
def test_both_searches_agree_with_networkx(monkeypatch, small):
    monkeypatch.setattr(topology, "SMALL_CONNECTED", 10**9 if small else 1)
    seen = set()
    for n, edges, expected in _graphs():
        t = Topology(num_switches=n, edges=edges, name="g")
        assert t.is_connected() == expected, (n, edges.tolist())
        seen.add(expected)
    assert seen == {True, False}


def test_disconnected_torus_pair_is_refused():
    a = topogen.generate("torus", dims=[4, 4])
    edges = np.concatenate([a.edges, a.edges + 16])
    t = Topology(num_switches=32, edges=edges, name="two tori")
    assert not t.is_connected()
    with pytest.raises(TopologyError):
        t.require_connected("dimension-order routing")


def test_small_simulate_does_not_import_scipy_graph_routines(cold_probe, tmp_path):
    formats.save(tmp_path / "t.json", topogen.generate("torus", dims=[4, 4]))
    out = cold_probe("simulate", "t.json", "--load", "0.1", "-o", "s.csv")
    assert out["code"] == 0
    assert not out["csgraph"], "a small simulate should not import scipy.sparse.csgraph"
