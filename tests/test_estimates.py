"""Estimates printed before long work: the counts come from the plan alone and agree with
what the code runs, and the numbers README.md and docs/reproductions.md state for the main
job are the recorded ones."""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from topogen._estimate import minutes_text, plan_text, sweep_simulations
from topogen.load_points import knee_sweep
from topogen.reproduce import plans

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ one sweep
def _run_sweep(onset, low, high, tolerance, points):
    """Loads knee_sweep asks for when every load below ``onset`` is sustained."""
    asked = []

    def point(load):
        asked.append(load)
        return {"status": "completed" if load < onset else "saturated", "latency_avg": 10.0}

    knee_sweep(point, low=low, high=high, tolerance=tolerance, points=points)
    return asked


@pytest.mark.parametrize("low,high,tolerance,points", [
    (0.01, 1.0, 0.01, 8), (0.01, 1.0, 0.01, 0), (0.1, 12.0, 0.5, 0), (0.05, 0.4, 0.2, 0), (0.01, 1.0, 0.1, 3),
    (0.8, 96.0, 4.0, 0)])
def test_a_sweep_runs_within_its_planned_range(low, high, tolerance, points):
    least, most = sweep_simulations(low, high, tolerance, points)
    counts = {}
    for k in range(1, 400):
        onset = low + (high - low) * k / 400
        counts[onset] = len(_run_sweep(onset, low, high, tolerance, points))
    assert all(least <= n <= most for n in counts.values())
    assert len(_run_sweep(low / 2, low, high, tolerance, points)) == least == 1  # the lowest load saturates
    if points == 0:  # the bracket halves whatever the outcome: every inside onset takes them all
        assert set(counts.values()) == {most}
        assert len(_run_sweep(2 * high, low, high, tolerance, points)) == 2  # high sustained
    else:  # the ends, every bisection step and the filled loads but the lowest (a bound)
        assert most == 2 + math.ceil(math.log2((high - low) / tolerance)) + points - 1


def test_estimate_lines():
    assert plan_text(10, (10, 70), expected=40, seconds=251, rate="rate from x") == \
        "10 sweeps, 10 to 70 simulations (40 when measured), about 4.2 CPU minutes (rate from x)".replace(
            "sweeps", "points")
    assert plan_text(3, 3, what="points to run").endswith("the time is estimated once two have run")
    assert minutes_text(40) == "about 40 CPU seconds" and minutes_text(40, cpu=False) == "about 40 seconds"
    assert minutes_text(7200) == "about 2 CPU hours"


# ------------------------------------------------------------------ the main job
def _numbers(pattern: str, text: str) -> list[int]:
    return [int(m.replace(",", "")) for m in re.findall(pattern, text)]


def test_main_job_counts_in_the_docs_are_the_recorded_ones_and_in_the_plan():
    from topogen.reproduce import skywalk_sim

    recorded = plans.RECORDED["skywalk-sim"][1]
    p = plans.plan("skywalk-sim")
    # 10 networks x 1 traffic (uniform): a sweep each, counted independently of the planner
    assert p.points == len(skywalk_sim.NETWORKS) * 1 == 10
    # bisection from 0.1 to 12 Gbit/s/host to 0.5: 11.9 halves 5 times before it is below 0.5
    steps = math.ceil(math.log2((12.0 - 0.1) / 0.5))
    assert (p.least, p.most) == (10, 10 * (2 + steps))
    assert p.expected == recorded.simulations and p.least <= recorded.simulations <= p.most

    readme = (ROOT / "README.md").read_text()
    head = readme.split("```")[0]  # the main job's paragraph, before its command
    assert _numbers(r"([\d,]+) simulations", head) == [recorded.simulations]
    docs = (ROOT / "docs" / "reproductions.md").read_text()
    row = next(ln for ln in docs.splitlines() if ln.startswith("| `skywalk-sim` |"))
    assert _numbers(r"uniform, ([\d,]+) simulations", row) == [recorded.simulations]
    time_par = docs[docs.index("Time (one process): the default run"):][:400]
    assert _numbers(r"runs ([\d,]+) simulations", time_par) == [recorded.simulations]
    assert _numbers(r"([\d,]+) s of CPU", time_par)[0] == round(recorded.cpu_s)
    # the README's minutes are the recorded CPU time's
    assert f"{round(recorded.cpu_s)} s of CPU" in " ".join(head.split())


def test_reproduction_estimate_lines():
    line = plans.estimate_text("skywalk-sim")
    recorded = plans.RECORDED["skywalk-sim"][1]
    assert line.startswith(f"10 sweeps, 10 to 70 simulations ({recorded.simulations} when measured), about ")
    assert f"rate from {recorded.simulations} simulations in" in line
    other = plans.estimate_text("skywalk-sim", {"traffic": "all"})
    assert other.startswith("30 sweeps, 30 to 210 simulations, at most about ")
    assert plans.estimate_text("dsnf-sim").startswith("8 sweeps, 8 to 64 simulations; no measured rate")
    assert plans.estimate_text("skywalk") is None  # no simulations


@pytest.mark.slow
def test_main_job_runs_the_recorded_number_of_simulations():
    from topogen.reproduce.skywalk_sim import reproduce_skywalk_sim

    res = reproduce_skywalk_sim()
    ran = _numbers(r": ([\d,]+) simulations \(0 reused\)", res.notes[0])
    assert ran == [plans.RECORDED["skywalk-sim"][1].simulations]


# ------------------------------------------------------------------ crossval and experiments
def test_crossval_runs_within_its_plan(tmp_path, monkeypatch):
    from topogen.reproduce import crossval as cv
    from tests.reproduce.test_crossval_defaults import _noisy_adapters

    announced = []
    for name, offset, extra in [("agree", {"reference": 0.0, "booksim": 0.0}, {}),
                                ("noisy", {"reference": 0.04, "booksim": 0.0}, {"max_repeats": 5}),
                                ("sat", {"reference": 0.0, "booksim": 0.0}, {"saturation": True})]:
        calls = []
        monkeypatch.setattr(cv, "build_adapters", _noisy_adapters(offset, calls, onset=0.5625))
        spec = dict(topology="torus", params={"dims": (3, 3)}, loads=(0.1, 0.3),
                    simulators=tuple(offset), **extra)
        cv.crossval(spec, tmp_path / name, announce=announced.append)
        least, most, text = announced[-1]
        assert f": {least} to {most} simulations" in text
        assert least <= len(calls) <= most, (name, len(calls), text)


def test_crossval_plan_counts():
    from topogen.experiments.simulators import CrossvalSpec
    from topogen.reproduce.crossval import plan_runs

    ads = [SimpleNamespace(simulator="reference", seeded=True), SimpleNamespace(simulator="sst", seeded=False)]
    spec = CrossvalSpec("torus", loads=(0.1, 0.2, 0.4), repeats=3, max_repeats=3)
    least, most, text = plan_runs(spec, ads)
    assert (least, most) == (3 + 1, 9 + 3)  # first load only (the rest above saturation) .. every load
    assert text.startswith("3 loads on 2 simulators (reference 3 loads x 3 runs; sst 3 loads x 1 run): 4 to 12")


def test_experiment_estimate_counts_sweep_points(tmp_path, monkeypatch):
    from topogen.experiments import cli as ecli
    from topogen.experiments.spec import load_experiment
    from topogen.experiments.store import Store

    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "s.toml"
    spec.write_text("""
[experiment]
name = "est"
seconds_per_point = 2

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] } }]
routing = ["booksim-min"]
traffic = ["uniform"]
load = [0.1, "sweep"]
simulator = ["reference"]
seed = [1, 2]

[sweep]
low = 0.05
high = 0.4
tolerance = 0.2
points = 0
""")
    exp = load_experiment(spec)
    store = Store.open(exp.store, exp.name, create=True)
    text = ecli._estimate(exp, store, store.pending(exp.points))
    lo, hi = sweep_simulations(0.05, 0.4, 0.2, 0)
    assert text.startswith(f"4 points to run, {2 + 2 * lo} to {2 + 2 * hi} simulations, ")
