"""Reproductions as experiments (topogen.reproduce.study): a figure's curves become
content-keyed sweep points of a TOML spec, run on the local pool or through a SLURM
submission into the same store, and claims are judged by rules that cannot pass by
accident (every curve ran; saturation only on a knee resolved to 0.02)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from topogen._input import parse_toml
from topogen.errors import ParameterError
from topogen.experiments.spec import parse_experiment
from topogen.reproduce import study as st

ROOT = Path(__file__).resolve().parents[2]
TINY_MEASURE = {"packet_size": 1, "num_vcs": 3, "vc_buf_size": 16, "link_latency": 1, "credit_delay": 2,
                "warmup_periods": 1, "sample_period": 200, "max_samples": 3, "latency_thres": 500.0}
REFERENCE = {"internal_speedup": 2.0, "routing_base": "nr", "port_buffer": 64, "candidates": 4}


def _study(curves, sweep=None, name="tiny-study"):
    nets = {"SF": st.Network("SF", "slimfly", {"q": 3}),
            "T": st.Network("T", "torus", {"dims": [3, 3], "hosts_per_switch": 2})}
    return st.Study(name=name, networks=nets, curves=curves, measure=dict(TINY_MEASURE),
                    reference=dict(REFERENCE),
                    sweep=sweep or {"low": 0.01, "high": 1.0, "tolerance": 0.02, "points": 8})


CURVES = [st.Curve("SF-MIN", "SF", "hop", "uniform", "a"), st.Curve("SF-VAL", "SF", "valiant", "uniform", "a"),
          st.Curve("SF-MIN", "SF", "hop", "worstcase", "d"), st.Curve("T-DOR", "T", "dor", "shift:9", "d")]


def test_the_spec_has_one_point_per_curve_and_nothing_else(tmp_path):
    study = _study(CURVES)
    exp = st.expand(study, tmp_path / "s")
    got = sorted((study.curve_of(p.content).label, study.curve_of(p.content).panel) for p in exp.points)
    assert got == sorted((c.label, c.panel) for c in CURVES)
    # the crossed axes would give 2 x 3 x 3 = 18 combinations: [[exclude]] drops the others
    doc = parse_toml((tmp_path / "s" / "tiny-study.toml").read_text(), what="spec")
    assert len(doc["axes"]["topology"]) * len(doc["axes"]["routing"]) * len(doc["axes"]["traffic"]) == 18
    assert all(p.content["load"] == "sweep" and p.content["reference"] == REFERENCE for p in exp.points)


def test_the_written_spec_reads_back_as_written():
    doc = _study(CURVES).document()
    assert parse_toml(st.toml_text(doc, header="a\nb"), what="spec") == json.loads(json.dumps(doc))


def test_point_ids_are_content_keys(tmp_path):
    a = st.expand(_study(CURVES), tmp_path / "a")
    b = st.expand(_study(list(reversed(CURVES))), tmp_path / "b")
    assert {p.id for p in a.points} == {p.id for p in b.points}
    c = st.expand(_study(CURVES, sweep={"low": 0.01, "high": 1.0, "tolerance": 0.05, "points": 8}), tmp_path / "c")
    assert not {p.id for p in a.points} & {p.id for p in c.points}


def test_a_study_refuses_a_curve_twice():
    with pytest.raises(ParameterError, match="same network, routing and traffic"):
        _study([CURVES[0], st.Curve("again", "SF", "hop", "uniform", "b")])


def test_reference_table_is_for_the_reference_simulator_alone():
    doc = _study(CURVES[:1]).document()
    doc["axes"]["simulator"] = ["booksim"]
    with pytest.raises(ParameterError, match="reference simulator alone"):
        parse_experiment(doc)
    doc = _study(CURVES[:1]).document()
    doc["axes"]["traffic"] = ["nonsense"]
    with pytest.raises(ParameterError, match="not a reference-simulator pattern"):
        parse_experiment(doc)
    doc = _study(CURVES[:1]).document()
    del doc["reference"]
    doc["axes"]["traffic"] = ["worstcase"]
    with pytest.raises(ParameterError, match="traffic 'worstcase'"):
        parse_experiment(doc)  # shared specs keep the patterns every simulator has


# ------------------------------------------------------------------------------ verdict rules
def _row(load, ok, lat=20.0):
    return {"offered_load": load, "status": "completed" if ok else "saturated",
            "accepted_flit_rate": load if ok else 0.5, "latency_avg": lat if ok else math.nan}


def _result(curve, loads_ok, loads_bad, status="done"):
    rows = [_row(x, True) for x in loads_ok] + [_row(x, False) for x in loads_bad]
    return st.CurveResult(curve, sorted(rows, key=lambda r: r["offered_load"]), status)


A, B = st.Curve("A", "SF", "hop", "uniform", "p"), st.Curve("B", "SF", "valiant", "uniform", "p")


def _claim(saturation=True):
    def check(res):
        a, b = res["A", "p"].sustained, res["B", "p"].sustained
        return f"{a:g} vs {b:g}", a > b, "" if a > b else "A is not above B"
    return st.Claim("A saturates above B", "p", "A > B", "none", (("A", "p"), ("B", "p")), check, saturation)


def test_a_claim_about_two_curves_is_not_run_when_one_did_not_run():
    res = {("A", "p"): _result(A, [0.1, 0.5], [0.51]), ("B", "p"): st.CurveResult(B, [], "missing")}
    t = st.judge([_claim()], res)
    assert list(t.verdict) == ["not run"] and "B (p)" in t.reason[0]
    res["B", "p"] = _result(B, [], [0.01], "done")  # ran, but sustained nothing
    assert list(st.judge([_claim()], res).verdict) == ["not run"]
    res["B", "p"] = _result(B, [0.1], [0.2], "failed")
    assert list(st.judge([_claim()], res).verdict) == ["not run"]


def test_a_saturation_claim_needs_resolved_knees():
    res = {("A", "p"): _result(A, [0.1, 0.5], [0.51]), ("B", "p"): _result(B, [0.1, 0.3], [0.4])}
    t = st.judge([_claim()], res)
    assert list(t.verdict) == ["unresolved"] and "B (p): knee between 0.3 and 0.4" in t.reason[0]
    res["B", "p"] = _result(B, [0.1, 0.3, 0.39], [0.4])
    assert list(st.judge([_claim()], res).verdict) == ["holds"]
    res["A", "p"] = _result(A, [0.1, 0.2], [0.21])
    t = st.judge([_claim()], res)
    assert list(t.verdict) == ["differs"] and t.reason[0] == "A is not above B"
    # a curve that sustained its highest load has no knee: unresolved, not "holds"
    res["A", "p"] = _result(A, [0.1, 1.0], [])
    assert list(st.judge([_claim()], res).verdict) == ["unresolved"]


def test_a_latency_claim_does_not_need_the_knee():
    res = {("A", "p"): _result(A, [0.1, 0.5], [0.9]), ("B", "p"): _result(B, [0.1, 0.3], [0.4])}
    assert list(st.judge([_claim(saturation=False)], res).verdict) == ["holds"]


# ------------------------------------------------------------------------------ running
def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOPOGEN_QUIET="1")
    return subprocess.run([sys.executable, "-m", "topogen", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_local_pool_and_slurm_task_give_identical_rows_and_resume(tmp_path):
    # shift traffic: with the router's speedup 2 the 3x3 torus sustains all of uniform traffic
    study = _study([st.Curve("T-DOR", "T", "dor", "shift:9", "a")])
    exp = st.expand(study, tmp_path / "local")
    summary = st.run_local(exp, jobs=1, progress=False)
    assert summary.ran == 1 and not summary.failed
    res = st.gather(study, exp)[("T-DOR", "a")]
    assert res.ran and res.resolved and res.below_saturation >= 8
    assert res.knee_width <= st.KNEE_RESOLUTION + 1e-9
    assert st.run_local(exp, jobs=1, progress=False).ran == 0  # resumed: nothing run again
    from topogen.experiments.store import Store

    rates = st._measured_rates(exp, Store.open(exp.store, exp.name))
    assert set(rates) == {"dor"} and 0 < rates["dor"] < 1  # seconds per packet-hop, for the plan
    # the same points through a SLURM submission (dry run: the job script's task command)
    exp2 = st.expand(study, tmp_path / "slurm")
    info = st.submit(exp2, dry_run=True)
    assert info["points"] == 1 and info["tasks"] == 1
    out = _cli("experiment", "task", Path(info["folder"]) / "points.json", "--index", "0", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    res2 = st.gather(study, exp2)[("T-DOR", "a")]
    keep = ("offered_load", "status", "latency_avg", "accepted_flit_rate")
    assert [{k: r[k] for k in keep} for r in res2.rows] == [{k: r[k] for k in keep} for r in res.rows]


def test_plan_counts_points_and_simulations(tmp_path):
    study = _study(CURVES)
    exp = st.expand(study, tmp_path / "p")
    pl = st.plan(study, exp, seconds_per_hop={"*": 1e-6})
    from topogen.load_points import sweep_size

    assert pl["points"] == pl["pending"] == 4
    assert 4 * 8 < pl["simulations"] <= 4 * sweep_size(0.01, 1.0, 0.02, 8)  # the loads the sweeps ask for
    assert pl["cpu_minutes"] > 0 and "4 to run" in pl["text"]
    more = st.plan(study, exp, seconds_per_hop={"*": 2e-6})
    assert more["cpu_minutes"] == pytest.approx(2 * pl["cpu_minutes"])


def test_measured_rates_use_cpu_time_and_count_saturated_rows():
    from types import SimpleNamespace as NS

    content = {"routing": "min", "measure": {"packet_size": 1}}
    ok = {"sim_cycles": 1000, "num_hosts": 10, "injected_flit_rate": 0.5, "hops_avg": 3.0}
    sat = {"sim_cycles": 1000, "num_hosts": 10, "injected_flit_rate": 1.0, "hops_avg": math.nan}
    records = {"b": {"rows": [ok], "seconds": 0.03}}  # an older record: wall time only
    store = NS(done_ids=lambda: set(records), record=records.__getitem__)
    exp = NS(points=[NS(id="a", content=content), NS(id="b", content=content)])
    assert st._measured_rates(exp, store)["min"] == pytest.approx(0.03 / 15_000)
    # a CPU-timed record replaces the wall-timed ones; its saturated row counts at the
    # mean hops of its curve's sustained rows: 15,000 + 30,000 packet-hops
    records["a"] = {"rows": [ok, sat], "seconds": 100.0, "cpu_seconds": 0.09}
    assert st._measured_rates(exp, store)["min"] == pytest.approx(0.09 / 45_000)
    records["b"]["cpu_seconds"] = 0.03
    assert st._measured_rates(exp, store)["min"] == pytest.approx(0.12 / 60_000)
