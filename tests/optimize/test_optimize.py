"""topogen.optimize end to end: results, reproducibility, bounds, checkpoints, bad input."""

import json

import numpy as np
import pytest

from topogen import Topology
from topogen.errors import ParameterError, TopogenError
from topogen import formats
from topogen.layout import Floor, Layout
from topogen.metrics import distance_stats
from topogen.optimize import CableModel, get_objective, optimize
from topogen.optimize.search import random_regular_edges
from topogen._rng import make_rng


def test_golf_improves_and_reports_exact_figures():
    start = optimize(num_switches=64, degree=4, seed=5, moves=1)
    res = optimize(num_switches=64, degree=4, seed=5, moves=4000)
    s = res.summary
    assert np.all(res.topology.degrees == 4)
    full = distance_stats(res.topology)
    assert s["aspl"] == full.aspl and s["diameter"] == full.diameter
    assert s["aspl"] < start.summary["aspl"]
    assert s["aspl"] >= s["aspl_bound"] and s["diameter"] >= s["diameter_bound"]
    assert s["aspl_gap_pct"] == pytest.approx(100 * (s["aspl"] / s["aspl_bound"] - 1))
    # the history's last best is the result
    assert res.history["best_aspl"].iloc[-1] == pytest.approx(full.aspl)
    p = res.topology.params
    assert p["objective"] == "golf" and p["moves"] == 4000 and res.topology.seed == 5


@pytest.mark.parametrize("degree,symmetry", [(3, None), (4, 1), (4, 6)])
def test_same_seed_same_bytes(tmp_path, degree, symmetry):
    outs = []
    for k in range(2):
        res = optimize(num_switches=48, degree=degree, seed=9, moves=1500, symmetry=symmetry)
        path = tmp_path / f"r{k}.json"
        formats.save(path, res.topology, res.layout)
        outs.append(path.read_bytes())
    assert outs[0] == outs[1]
    other = optimize(num_switches=48, degree=degree, seed=10, moves=1500, symmetry=symmetry)
    assert not np.array_equal(other.topology.edges, optimize(num_switches=48, degree=degree, seed=9,
                                                             moves=1500, symmetry=symmetry).topology.edges)


@pytest.mark.parametrize("symmetry,restarts", [(1, 1), (5, 1), (5, 3)])
def test_interrupted_run_resumes_to_the_same_topology(tmp_path, monkeypatch, symmetry, restarts):
    from topogen.optimize import search

    full = optimize(num_switches=40, degree=4, seed=3, moves=6000, symmetry=symmetry, restarts=restarts)
    monkeypatch.setattr(search, "CHECKPOINT_EVERY", 0.0)  # a checkpoint after every batch
    ck = tmp_path / "run.ckpt"
    calls = []

    def stop_after_some(frac, text):
        calls.append(frac)
        if len(calls) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        optimize(num_switches=40, degree=4, seed=3, moves=6000, checkpoint=ck, progress=stop_after_some,
                 symmetry=symmetry, restarts=restarts)
    assert ck.exists()
    resumed = optimize(resume=ck)
    assert resumed.topology.params["moves"] == 6000
    np.testing.assert_array_equal(resumed.topology.edges, full.topology.edges)
    assert resumed.summary["aspl"] == full.summary["aspl"]


def test_latency_objective_with_cable_budget():
    n, z = 64, 4
    floor = Floor.for_switches(n, z)
    cab = np.arange(n) // z
    topo = Topology(n, random_regular_edges(n, 4, make_rng(1)), name="start")
    lay = Layout(topo, floor, cab)
    budget = float(lay.total_cable_length) * 0.8
    res = optimize(topo, layout=lay, objective="latency", seed=2, moves=300, cable_budget=budget)
    s = res.summary
    assert s["cable_m"] <= budget + 1e-6
    assert np.array_equal(res.topology.degrees, topo.degrees)
    assert np.array_equal(res.layout.cabinet, cab)
    assert s["fr_max_ns"] > 0 and s["fr_avg_ns"] > 0


def test_max_cable_is_respected():
    res = optimize(num_switches=64, degree=4, seed=4, moves=400, switches_per_cabinet=4, max_cable=8.0)
    assert res.summary["max_cable_m"] <= 8.0


@pytest.mark.parametrize("kwargs,needle", [
    (dict(num_switches=9, degree=3), "odd"),
    (dict(num_switches=8, degree=8), "needs more than"),
    (dict(num_switches=16, degree=4, objective="fastest"), "unknown objective"),
    (dict(num_switches=64, degree=4, max_cable=2.5, switches_per_cabinet=4), "max_cable"),
    (dict(num_switches=64, degree=4, cable_budget=10.0), "cable_budget"),
    (dict(num_switches=64, degree=4, max_cable=6.0, switches_per_cabinet=4), "splits the floor"),
    (dict(num_switches=16, degree=4, moves=None), "time limit"),
    (dict(num_switches=30, degree=4, symmetry=7), "divide"),
    (dict(num_switches=30, degree=3, symmetry=5), "even degree"),
    (dict(num_switches=32, degree=4, symmetry=4, max_cable=30.0), "without cable bounds"),
    (dict(num_switches=32, degree=4, symmetry=1, restarts=3), "restarts apply"),
])
def test_bad_input_is_one_clear_error(kwargs, needle):
    kwargs.setdefault("moves", 10)
    if kwargs["moves"] is None:
        del kwargs["moves"]
    with pytest.raises(ParameterError, match=needle):
        optimize(seed=1, **kwargs)


def test_cable_model_feasibility_bound_is_a_true_lower_bound():
    floor = Floor.for_switches(32, 4)
    cab = np.arange(32) // 4
    model = CableModel(cab, floor)
    edges = random_regular_edges(32, 3, make_rng(2))
    total = model.total_m(edges)
    CableModel(cab, floor, cable_budget=total).check_feasible(np.full(32, 3))  # a graph meets it


def test_objectives_listed():
    assert get_objective("GOLF").lexicographic
    with pytest.raises(ParameterError):
        get_objective("nope")


def test_cli_optimize(tmp_path, capsys):
    from topogen.cli import main

    out = tmp_path / "o.edges"
    plot = tmp_path / "c.png"
    rc = main(["optimize", "--num-switches", "32", "--degree", "3", "--seed", "1", "--moves", "500",
               "-o", str(out), "--plot", str(plot), "--format", "json"])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["num_switches"] == 32 and plot.stat().st_size > 0
    topo, _ = formats.load(out)
    assert topo.num_links == 48
    rc = main(["optimize", "--num-switches", "9", "--degree", "3", "--moves", "5", "-o", str(tmp_path / "x.json")])
    err = capsys.readouterr().err
    assert rc != 0 and rc != 70 and err.strip().count("\n") == 0 and "odd" in err
    assert not (tmp_path / "x.json").exists()
    rc = main(["optimize", "--num-switches", "16", "--degree", "4", "--objective", "fastest", "--moves", "5",
               "-o", str(tmp_path / "y.json")])
    err = capsys.readouterr().err
    assert rc not in (0, 70) and "unknown objective" in err and err.strip().count("\n") == 0


def test_symmetric_result_is_invariant_and_regular():
    n, g = 60, 6
    res = optimize(num_switches=n, degree=6, seed=2, moves=3000, symmetry=g)
    e = res.topology.edges
    assert np.all(res.topology.degrees == 6)
    links = {tuple(x) for x in e.tolist()}
    shift = n // g
    rotated = {tuple(sorted(((u + shift) % n, (v + shift) % n))) for u, v in links}
    assert rotated == links
    assert res.topology.params["symmetry"] == g
    assert res.summary["aspl"] == distance_stats(res.topology).aspl


def test_symmetric_evaluation_equals_full_bfs():
    """The annealer's incremental figures (history) match the exact ones of its result."""
    res = optimize(num_switches=64, degree=4, seed=8, moves=2000, symmetry=8)
    last = res.history.iloc[-1]
    assert last["best_aspl"] == pytest.approx(res.summary["aspl"])
    assert last["best_diameter"] == res.summary["diameter"]
