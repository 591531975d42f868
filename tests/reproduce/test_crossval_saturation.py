"""Saturation of crossval with repeated runs: how a load's seeds make its status
(``majority`` or ``any``), the onset spread, and both applied alike to every simulator.

The crossval runs here use fake adapters whose runs fail above a per-seed onset load, the
situation of a routing whose channel dependency graph is cyclic (the deadlock onset
differs from seed to seed), so the expected brackets follow from the onsets alone.
"""

from __future__ import annotations

import math

import pytest

from topogen.cli import main
from topogen.errors import ParameterError
from topogen.reproduce import crossval as cv
from topogen.experiments.simulators import Adapter
from topogen.results import make_row, read_results

TINY = dict(topology="torus", params={"dims": (3, 3)}, warmup_periods=1, max_samples=4, sample_period=300,
            simulators=("reference", "booksim"))


# ---------------------------------------------------------------- point_status
@pytest.mark.parametrize("statuses, majority, any_", [
    (["completed"], "completed", "completed"),
    (["deadlock"], "deadlock", "deadlock"),
    (["completed", "completed", "completed"], "completed", "completed"),
    (["completed", "deadlock", "completed"], "completed", "deadlock"),
    (["deadlock", "completed", "saturated"], "deadlock", "deadlock"),
    (["saturated", "deadlock", "deadlock"], "deadlock", "deadlock"),
    (["completed", "saturated"], "saturated", "saturated"),  # half the runs: not sustained
    (["completed", "completed", "saturated", "completed"], "completed", "saturated"),
])
def test_point_status_by_rule(statuses, majority, any_):
    assert cv.point_status(statuses, "majority") == majority
    assert cv.point_status(statuses) == majority  # the default
    assert cv.point_status(statuses, "any") == any_


def test_point_status_refuses_an_unknown_rule():
    with pytest.raises(ParameterError, match="majority, any"):
        cv.point_status(["completed"], "median")


def test_onset_spread():
    lines = [dict(load=0.1, runs=3, failed_runs=0), dict(load=0.3, runs=3, failed_runs=1),
             dict(load=0.4, runs=3, failed_runs=2), dict(load=0.5, runs=3, failed_runs=3)]
    assert cv.onset_spread(lines) == (0.3, 0.4)
    # one run per load, monotone: the saturation bracket
    lines = [dict(load=0.1, runs=1, failed_runs=0), dict(load=0.2, runs=1, failed_runs=0),
             dict(load=0.3, runs=1, failed_runs=1)]
    assert cv.onset_spread(lines) == (0.3, 0.2)
    # lines without failed_runs count their status
    assert cv.onset_spread([dict(load=0.2, runs=2, status="completed"),
                            dict(load=0.3, runs=2, status="saturated")]) == (0.3, 0.2)
    first, last = cv.onset_spread([dict(load=0.2, runs=1, failed_runs=0)])
    assert math.isinf(first) and last == 0.2
    first, last = cv.onset_spread([])
    assert math.isinf(first) and math.isnan(last)


# ---------------------------------------------------------------- crossval with fake adapters
def fake_adapters(onsets: dict, calls: list):
    """build_adapters stand-in: simulator -> {seed: onset}; a run deadlocks at or above
    its seed's onset, else completes with latency 50 + seed + 100 * load cycles."""
    def build(spec, seed, topology, layout, routing, out_dir, *, binaries=None):
        ads = []
        for sim, by_seed in onsets.items():
            def run(load, run_seed=seed, capacity=False, sim=sim, by_seed=by_seed):
                calls.append((sim, load, run_seed))
                failed = load >= by_seed[run_seed]
                return make_row(simulator=sim, topology="torus", routing="booksim-min", traffic="uniform",
                                offered_load=load, load_unit="flits/node/cycle",
                                status="deadlock" if failed else "completed",
                                latency_avg=999.0 if failed else 50 + run_seed + 100 * load,
                                latency_unit="cycles", accepted_flit_rate=load, sim_seed=run_seed)
            ads.append(Adapter(sim, run, routing="booksim-min"))
        return ads, {}
    return build


def run_fake(tmp_path, monkeypatch, onsets, name, **kw):
    calls = []
    monkeypatch.setattr(cv, "build_adapters", fake_adapters(onsets, calls))
    spec = dict(TINY, loads=(0.1, 0.3, 0.4, 0.6), repeats=3, saturation=True)
    res = cv.crossval(spec, tmp_path / name, **kw)
    return res, calls


#: the reference's three seeds deadlock from 0.25, 0.35, 0.45; BookSim's from 0.34, 0.36, 0.36:
#: median onsets 0.35 and 0.36 (3 % apart), earliest onsets 0.25 and 0.34 (26 % apart)
ONSETS = {"reference": {1: 0.25, 2: 0.35, 3: 0.45}, "booksim": {1: 0.36, 2: 0.34, 3: 0.36}}


def test_majority_brackets_the_median_onset_of_the_seeds(tmp_path, monkeypatch):
    res, calls = run_fake(tmp_path, monkeypatch, ONSETS, "maj")
    sat = res.saturation.set_index("simulator")
    for sim, by_seed in ONSETS.items():
        median = sorted(by_seed.values())[1]
        lo, hi = sat.loc[sim, "sat_low"], sat.loc[sim, "sat_high"]
        assert lo < median <= hi and hi - lo <= 0.025 * lo, sim
        # the spread: some run failed below the bracket, some completed above it
        assert sat.loc[sim, "first_fail"] < lo or sat.loc[sim, "last_pass"] >= hi
        assert sat.loc[sim, "first_fail"] >= min(by_seed.values())
        assert sat.loc[sim, "last_pass"] < max(by_seed.values())
    assert sat.loc["reference", "verdict_booksim"] == "pass"
    # every load ran all three seeds, on both simulators
    for sim in ONSETS:
        loads = [c[1] for c in calls if c[0] == sim]
        assert all(loads.count(x) == 3 for x in loads)
        assert sorted({c[2] for c in calls if c[0] == sim}) == [1, 2, 3]
    # at 0.3 one reference seed (onset 0.25) deadlocked: the load is sustained, its latency
    # the mean of the two completed runs, and the table says one run failed
    t = res.table.set_index(["load", "simulator"])
    ref = t.loc[(0.3, "reference")]
    assert ref["status"] == "completed" and ref["runs"] == 3 and ref["failed_runs"] == 1
    assert ref["latency_cycles"] == pytest.approx(50 + 2.5 + 30)
    assert t.loc[(0.1, "reference"), "failed_runs"] == 0
    # every run's row is kept, the failed ones too
    rows = read_results(res.files["results"])
    assert (rows["status"] == "deadlock").sum() == sum(
        1 for sim, load, s in calls if load >= ONSETS[sim][s])
    assert len(rows) == len(calls)


def test_any_follows_the_earliest_onset(tmp_path, monkeypatch):
    res, _ = run_fake(tmp_path, monkeypatch, ONSETS, "any", saturation_rule="any")
    sat = res.saturation.set_index("simulator")
    for sim, by_seed in ONSETS.items():
        earliest = min(by_seed.values())
        lo, hi = sat.loc[sim, "sat_low"], sat.loc[sim, "sat_high"]
        assert lo < earliest <= hi and hi - lo <= 0.025 * lo, sim
        assert sat.loc[sim, "first_fail"] == hi  # under 'any' a failed run ends the bracket
    # one unlucky reference seed decides it: 26 % apart
    assert sat.loc["reference", "verdict_booksim"] == "FAIL"


def test_the_rules_agree_when_every_seed_has_the_same_onset(tmp_path, monkeypatch):
    same = {"reference": {1: 0.37, 2: 0.37, 3: 0.37}, "booksim": {1: 0.38, 2: 0.38, 3: 0.38}}
    a, _ = run_fake(tmp_path, monkeypatch, same, "a", saturation_rule="any")
    m, _ = run_fake(tmp_path, monkeypatch, same, "m", saturation_rule="majority")
    cols = ["simulator", "sat_low", "sat_high", "first_fail", "last_pass", "verdict_booksim"]
    assert a.saturation[cols].equals(m.saturation[cols])
    sat = m.saturation.set_index("simulator")
    # no overlap of onsets: the spread is the bracket
    assert (sat["first_fail"] == sat["sat_high"]).all() and (sat["last_pass"] == sat["sat_low"]).all()


def test_an_unknown_rule_is_refused_before_any_run(tmp_path, monkeypatch):
    with pytest.raises(ParameterError, match="saturation_rule"):
        run_fake(tmp_path, monkeypatch, ONSETS, "bad", saturation_rule="median")
    assert not (tmp_path / "bad").exists()


def test_cli_saturation_rule(tmp_path, capsys):
    argv = ["crossval", "torus", "--param", "dims=3,3", "--simulators", "reference", "--loads", "0.05",
            "--max-samples", "4", "--warmup-periods", "1", "--sample-period", "300", "--repeats", "2", "-q"]
    assert main(argv + ["--saturation-rule", "any", "--out-dir", str(tmp_path / "o")]) == 0
    text = capsys.readouterr().out
    assert "onsets" in text and "runs ok" in text
    rc = main(argv + ["--saturation-rule", "median", "--out-dir", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc not in (0, 70) and "median" in err and "Traceback" not in err


def test_reproduce_crossval_refuses_an_unknown_rule(tmp_path):
    from topogen import registry

    with pytest.raises(ParameterError, match="saturation_rule"):
        registry.experiment("crossval").func(topologies="torus4", quick=True, saturation_rule="median",
                                             out_dir=str(tmp_path / "m"))
    assert not (tmp_path / "m").exists()


def test_reproduce_crossval_reports_the_rule_and_the_spread(tmp_path, monkeypatch):
    from topogen import registry

    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("TOPOGEN_SST", str(tmp_path / "no-sst"))
    res = registry.experiment("crossval").func(topologies="torus4", traffic="uniform", packet_sizes="1",
                                               loads="0.05", quick=True, repeats=2)
    row = res.table.iloc[0]
    assert row["first_fail"] == math.inf and row["last_pass"] == 0.05
    assert any("2 runs per load (seeds 1..2; a load is not sustained when at least half its runs failed)"
               in n for n in res.notes)
