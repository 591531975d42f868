"""``load = "sweep"``: a point sweeps its load to saturation, stores one row per load,
and a sweep interrupted mid-way resumes from the loads it already simulated."""

import math

import pytest

from topogen.errors import ParameterError, SimulatorFailed
from topogen.experiments import simulators as _crossval_sim
from topogen.experiments import runner
from topogen.load_points import knee_sweep
from topogen.experiments.runner import run_point, run_points
from topogen.experiments.spec import load_experiment
from topogen.experiments.store import Store, collect

from .conftest import SMALL, write_spec

SWEEP = SMALL.replace("load = [0.05, 0.3]", 'load = [0.05, "sweep"]').replace(
    '{ generator = "hypercube", params = { dimension = 3 } }', "").replace(", ]", "]").replace(
    "seed = [1, 2]", "seed = [1]").replace('traffic = ["uniform", "tornado"]', 'traffic = ["tornado"]') + \
    "\n[sweep]\nlow = 0.05\ntolerance = 0.1\npoints = 3\n"
# tornado saturates the 3x3 torus near 0.6 flits/host/cycle, well inside the sweep whatever
# the random stream (uniform traffic accepts about 90 % at the top load 1.0, the threshold
# itself, so its short runs fall on either side)


ORIGINAL = _crossval_sim.build_adapters


class Counting:
    """Wraps build_adapters: counts the loads simulated and can fail after some."""

    def __init__(self, monkeypatch, fail_after=None):
        self.loads = []
        self.fail_after = fail_after
        real = ORIGINAL

        def build(*a, **kw):
            adapters, skipped = real(*a, **kw)
            inner = adapters[0].run

            def run(load, *rest, **kws):
                if self.fail_after is not None and len(self.loads) >= self.fail_after:
                    raise SimulatorFailed("reference crash: killed for the test")
                self.loads.append(load)
                return inner(load, *rest, **kws)

            adapters[0].run = run
            return adapters, skipped

        monkeypatch.setattr(_crossval_sim, "build_adapters", build)


def _sweep_point(tmp_path, store_name="st"):
    exp = load_experiment(write_spec(tmp_path, SWEEP), store=tmp_path / store_name)
    [p] = [p for p in exp.points if p.content["load"] == "sweep"]
    return exp, p


def test_sweep_point_stores_one_row_per_load_up_to_saturation(tmp_path, monkeypatch):
    exp, p = _sweep_point(tmp_path)
    assert len(exp.points) == 2
    assert p.content["sweep"] == {"low": 0.05, "high": 1.0, "tolerance": 0.1, "points": 3}
    count = Counting(monkeypatch)
    store = Store.open(exp.store, exp.name, create=True)
    summary = run_points(exp.points, store, progress=False)
    assert not summary.failed and summary.statuses[("reference", "swept")] == 1
    rows = store.record(p.id)["rows"]
    loads = [r["offered_load"] for r in rows]
    assert loads == sorted(loads) and len(set(loads)) == len(loads) == len(count.loads) - 1
    assert loads[0] == pytest.approx(0.05) and rows[0]["status"] == "completed"
    assert any(r["status"] != "completed" for r in rows)  # it went past saturation
    sustained = max(r["offered_load"] for r in rows if r["status"] == "completed")
    upper = min(r["offered_load"] for r in rows if r["status"] != "completed")
    assert 0 < upper - sustained <= 0.1 and sustained < upper
    out, n, missing, failed = collect(exp, store)
    assert n == len(rows) + 1 and not missing and not failed
    again = collect(exp, store)[1]  # collecting twice replaces, never duplicates
    import pandas as pd

    assert again == n and len(pd.read_csv(out)) == n


def test_interrupted_sweep_resumes_from_its_stored_loads(tmp_path, monkeypatch):
    exp, p = _sweep_point(tmp_path, "whole")
    whole = Counting(monkeypatch)
    store = Store.open(exp.store, exp.name, create=True)
    assert run_point(p, store.root)[1] == "done"
    reference = store.record(p.id)["rows"]

    runner._NETWORKS.clear()
    exp2, p2 = _sweep_point(tmp_path, "cut")
    cut = Counting(monkeypatch, fail_after=3)
    store2 = Store.open(exp2.store, exp2.name, create=True)
    pid, outcome, status, _ = run_point(p2, store2.root)
    assert outcome == "failed" and "killed for the test" in status
    assert len(store2.sweep_rows(p2.id)) == 3 and p2.id in store2.failed_ids()

    resumed = Counting(monkeypatch)
    assert run_point(p2, store2.root)[1] == "done"
    assert len(resumed.loads) == len(whole.loads) - 3  # the 3 stored loads were not simulated again
    assert not set(resumed.loads) & set(cut.loads)
    rows = store2.record(p2.id)["rows"]
    keys = ["offered_load", "status", "latency_avg", "accepted_flit_rate", "packets", "sim_seed"]
    assert [[r[k] for k in keys] for r in rows] == [[r[k] for k in keys] for r in reference]


def test_knee_sweep_brackets_a_known_saturation():
    asked = []

    def point(load):
        asked.append(load)
        return {"status": "completed" if load <= 0.37 else "saturated", "latency_avg": 10.0 + load}

    zero, lo, hi = knee_sweep(point, low=0.01, high=1.0, tolerance=0.01, points=4)
    assert zero == pytest.approx(10.01) and lo <= 0.37 < hi and hi - lo <= 0.01
    assert len(asked) == len(set(asked))
    below = [x for x in asked if x < lo]
    assert len(below) >= 3  # the knee is filled below saturation
    asked.clear()
    zero, lo, hi = knee_sweep(lambda x: {"status": "saturated"}, low=0.01, high=1.0, tolerance=0.01)
    assert math.isnan(zero) and math.isnan(lo) and hi == 0.01


@pytest.mark.parametrize("change, needle", [
    (('load = [0.05, "sweep"]', 'load = [0.05, "swep"]'), 'the one word it takes is "sweep"'),
    (("low = 0.05", "low = 0.5\nhigh = 0.4"), "0 < low < high <= 1"),
    (("points = 3", "points = 1"), "points in \\[sweep\\]"),
    (("tolerance = 0.1", "tolerence = 0.1"), "did you mean 'tolerance'"),
    (('load = [0.05, "sweep"]', "load = [0.05]"), 'applies to load = "sweep"'),
])
def test_bad_sweep_settings_are_one_clear_error(tmp_path, change, needle):
    with pytest.raises(ParameterError, match=needle):
        load_experiment(write_spec(tmp_path, SWEEP.replace(*change)))


def test_numeric_points_keep_their_ids_beside_sweeps(tmp_path):
    plain = load_experiment(write_spec(tmp_path, SWEEP.replace('load = [0.05, "sweep"]', "load = [0.05]")
                                       .split("[sweep]")[0], "a.toml"))
    both = load_experiment(write_spec(tmp_path, SWEEP, "b.toml"))
    assert {p.id for p in plain.points} < {p.id for p in both.points}
