"""Targeted swaps (topogen.optimize.targeted): they add a link that shortens a pair at the
maximum latency, keep the cable bounds, and the latency objective with them lowers the
maximum where random swaps alone seldom do."""

import numpy as np
import pytest

from topogen import Topology
from topogen._rng import make_rng
from topogen.errors import ParameterError
from topogen.layout import Floor, Layout
from topogen.metrics import latency_stats
from topogen.optimize import optimize
from topogen.optimize.evaluate import LatencyEvaluator, SwapGraph
from topogen.optimize.objectives import CableModel
from topogen.optimize.search import random_regular_edges
from topogen.optimize.targeted import NEAREST, targeted_swap


def _floor_case(n=96, z=4, degree=4, seed=1):
    floor = Floor.for_switches(n, z)
    cab = np.arange(n) // z
    topo = Topology(n, random_regular_edges(n, degree, make_rng(seed)), name="start")
    return topo, Layout(topo, floor, cab), floor, cab


def test_targeted_swap_adds_a_shortcut_for_a_pair_at_the_maximum_within_the_budget():
    topo, lay, floor, cab = _floor_case()
    total = float(lay.total_cable_length)
    cable = CableModel(cab, floor, max_cable=30.0, cable_budget=total)
    g = SwapGraph(topo.num_switches, topo.edges)
    ev = LatencyEvaluator(g, cab, cable.cable_ns(), 60.0)
    units = int(cable.units(g.edges).sum())
    rng = make_rng(7)
    found = 0
    for _ in range(200):
        pick = targeted_swap(g, ev, cable, units, rng)
        if pick is None:
            continue
        found += 1
        i, j, variant = pick
        rem, add = g.swap_links(i, j, variant)
        # the added link (a, c) starts near a source of a pair at the maximum and, by the
        # current distances, shortens that pair
        sources = np.flatnonzero(ev.rowmax == ev.peak)
        near = {int(v) for s in sources for v in np.argsort(ev.dist[s])[:NEAREST]}
        ends = set(add.ravel().tolist())
        assert ends & near
        add_u = cable.units(add)
        new_total = units - int(cable.units(rem).sum()) + int(add_u.sum())
        assert cable.allows(add_u, new_total)
    assert found > 20


def test_targeted_moves_lower_the_maximum_and_stay_exact():
    topo, lay, floor, cab = _floor_case(seed=3)
    budget = float(lay.total_cable_length)
    before = latency_stats(lay, switch_delay=60.0, routing="fr")
    res = optimize(topo, layout=lay, objective="latency", seed=4, moves=600, cable_budget=budget)
    s = res.summary
    assert s["fr_max_ns"] < before.max and s["cable_m"] <= budget + 1e-6
    full = latency_stats(res.layout, switch_delay=60.0, routing="fr")
    assert s["fr_max_ns"] == full.max and s["fr_avg_ns"] == pytest.approx(full.avg)
    assert res.topology.params["targeted"] == 0.5
    assert np.array_equal(res.topology.degrees, topo.degrees)


def test_targeted_latency_run_resumes_to_the_same_topology(tmp_path, monkeypatch):
    from topogen.optimize import search

    topo, lay, floor, cab = _floor_case(n=64, seed=5)
    budget = float(lay.total_cable_length)
    kw = dict(layout=lay, objective="latency", seed=6, moves=400, cable_budget=budget)
    full = optimize(topo, **kw)
    monkeypatch.setattr(search, "CHECKPOINT_EVERY", 0.0)
    calls = []

    def stop(frac, text):
        calls.append(frac)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        optimize(topo, checkpoint=tmp_path / "c.ckpt", progress=stop, **kw)
    resumed = optimize(resume=tmp_path / "c.ckpt")
    np.testing.assert_array_equal(resumed.topology.edges, full.topology.edges)


@pytest.mark.parametrize("kwargs, needle", [
    (dict(objective="golf", targeted=0.5), "latency"),
    (dict(objective="latency", targeted=1.5), r"\[0, 1\]"),
    (dict(objective="latency-avg", targeted=0.2), "latency"),
])
def test_targeted_bad_input(kwargs, needle):
    topo, lay, floor, cab = _floor_case(n=32)
    with pytest.raises(ParameterError, match=needle):
        optimize(topo, layout=lay, seed=1, moves=5, **kwargs)


def test_cli_targeted(tmp_path, capsys):
    import json

    from topogen.cli import main

    base = ["optimize", "--num-switches", "32", "--degree", "4", "--seed", "1", "--moves", "60",
            "--objective", "latency", "--switches-per-cabinet", "4", "--format", "json"]
    assert main(base + ["--targeted", "0", "-o", str(tmp_path / "a.json")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["fr_max_ns"] > 0
    rc = main(base + ["--targeted", "2", "-o", str(tmp_path / "b.json")])
    err = capsys.readouterr().err
    assert rc not in (0, 70) and "targeted" in err and err.strip().count("\n") == 0
    assert not (tmp_path / "b.json").exists()
