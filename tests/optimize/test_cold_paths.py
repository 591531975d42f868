"""The optimizer's plain-Python path: the same topology as the compiled kernels for a seed
and a move budget, chosen by ``engine="auto"`` for small searches, and compiling nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from topogen import ParameterError
from topogen.optimize import optimize
from topogen.optimize import _kernels, run
from topogen.optimize.evaluate import _UNREACHED, SwapGraph, _bit_bfs_bounded
from topogen.optimize.search import random_regular_edges



@pytest.mark.parametrize("kw", [
    dict(num_switches=32, degree=4, moves=300),  # symmetric search (rotation of order 4)
    dict(num_switches=30, degree=3, moves=300, objective="aspl", symmetry=1),
    dict(num_switches=24, degree=4, moves=200, objective="golf", symmetry=1, max_cable=40.0),
    dict(num_switches=16, degree=3, moves=60, objective="latency"),
    dict(num_switches=16, degree=4, moves=60, objective="latency-avg"),
])
def test_plain_and_compiled_give_the_same_topology(kw):
    a = optimize(seed=7, engine="python", **kw)
    b = optimize(seed=7, engine="compiled", **kw)
    assert a.summary["engine"] == "python" and b.summary["engine"] == "compiled"
    assert np.array_equal(a.topology.edges, b.topology.edges)
    assert a.topology.params == b.topology.params
    assert a.history.drop(columns="seconds").equals(b.history.drop(columns="seconds"))


def _random_graph(n, d, seed):
    return SwapGraph(n, random_regular_edges(n, d, np.random.default_rng(seed)))


@pytest.mark.parametrize("n,d,k", [(20, 3, 5), (70, 4, 70), (130, 5, 130), (40, 1, 3)])
def test_numpy_bfs_equals_the_kernel(n, d, k):
    """The NumPy BFS of the plain path against the compiled kernel: figures, early stops
    and recorded rows (a disconnected graph too: d = 1)."""
    rng = np.random.default_rng(n)
    if d == 1:  # a perfect matching: disconnected
        g = SwapGraph(n, np.arange(n, dtype=np.int32).reshape(-1, 2))
    else:
        g = _random_graph(n, d, n)
    src = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int32)
    full = _bit_bfs_bounded(g.adj, g.deg, src, False, np.zeros((1, 1), np.uint8), np.int64(-1), np.int64(-1),
                            np.int64(0))
    bounds = [(-1, -1, 0), (-1, 2, 0), (int(full[0]) - 1, -1, 0), (int(full[0]) - 1, -1, 2), (int(full[0]), 3, 1)]
    for max_total, max_level, total_from in bounds:
        outs = []
        for fn in (_bit_bfs_bounded, _kernels._bit_bfs_bounded):
            out = np.full((k, n), _UNREACHED, np.uint8)
            res = fn(g.adj, g.deg, src, True, out, np.int64(max_total), np.int64(max_level), np.int64(total_from))
            outs.append(([int(x) for x in res], out))
        assert outs[0][0] == outs[1][0], (max_total, max_level, total_from)
        assert np.array_equal(outs[0][1], outs[1][1])


def test_plain_path_is_scoped():
    assert not _kernels.on_plain_path()
    with _kernels.plain_path():
        assert _kernels.on_plain_path()
        assert _kernels.kernel(_bit_bfs_bounded) is _kernels._bit_bfs_bounded
    assert not _kernels.on_plain_path()
    assert _kernels.kernel(_bit_bfs_bounded) is _bit_bfs_bounded


def test_auto_choice(monkeypatch):
    small = dict(topology=None, num_switches=32, degree=4, objective="golf")
    assert run.plain_search(**small, moves=200, time_limit=None)
    assert not run.plain_search(**small, moves=100_000, time_limit=None)
    assert not run.plain_search(**small, moves=200, time_limit=None, resume="x.npz")
    assert not run.plain_search(**dict(small, objective="latency"), moves=1000, time_limit=None)
    # a short time limit alone: plain Python while the search kernel is not cached
    monkeypatch.setattr(run, "_cached", lambda dispatcher: False)
    assert run.plain_search(**small, moves=None, time_limit=5)
    assert not run.plain_search(**small, moves=None, time_limit=60)
    assert not run.plain_search(**dict(small, num_switches=1024, degree=8), moves=None, time_limit=5)
    monkeypatch.setattr(run, "_cached", lambda dispatcher: True)
    assert not run.plain_search(**small, moves=None, time_limit=5)
    # what optimize would refuse answers no here (optimize says what is wrong)
    assert not run.plain_search(**dict(small, objective="nope"), moves=10, time_limit=None)
    with pytest.raises(ParameterError, match="engine must be one of"):
        optimize(num_switches=16, degree=4, moves=5, engine="fortran")


def test_auto_takes_plain_python_for_a_small_budget():
    res = optimize(num_switches=16, degree=4, seed=1, moves=50)
    assert res.summary["engine"] == "python"


def test_a_small_optimize_compiles_nothing(cold_probe):
    probe = cold_probe("-q", "optimize", "--num-switches", "32", "--degree", "4", "--moves", "200",
                       "--seed", "1", "-o", "o.json", "--format", "json")
    summary = json.loads(probe["out"])
    assert probe["code"] == 0 and summary["engine"] == "python" and summary["moves"] == 200
    assert probe["compiled"] == []
