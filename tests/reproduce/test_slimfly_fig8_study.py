"""``topogen reproduce slimfly-fig8 --quick/--full``: Fig. 8 as experiment specs (one per
buffer size and knee resolution), the paper's networks at q = 19, the plan before the run,
and the claims of V-D and V-E judged only on curves that all ran, with knees resolved to
0.02 or finer."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from topogen.errors import ParameterError
from topogen.registry import generate
from topogen.reproduce import slimfly_fig8 as f8
from topogen.reproduce import study as st


def _run(tmp_path, **over):
    kw = dict(out=str(tmp_path / "run"), workers=1)
    kw.update(over)
    return f8.reproduce_slimfly_fig8(**kw)


# ------------------------------------------------------------------------------- the specs
@pytest.fixture(scope="module")
def full_all(tmp_path_factory):
    folder = tmp_path_factory.mktemp("all")
    return f8._expanded({"full": True, "panels": "all", "out": str(folder / "f")})


def test_full_is_8b_and_8d_at_the_papers_size(tmp_path):
    pairs = f8._expanded({"full": True, "out": str(tmp_path / "f")})
    assert len(pairs) == 1  # no Fig. 8a: one spec, 64 flits per port
    study, exp = pairs[0]
    hosts = {}
    for pt in exp.points:
        c = study.curve_of(pt.content)
        t = generate("slimfly", **study.networks[c.network].params)
        hosts[c.label] = (t.num_switches, t.degree, int(t.hosts[0]), t.num_hosts)
        assert (c.routing, c.traffic) == ("hop", "uniform")
    # V-E: k' = 29 (q = 19), 722 routers; p = 15 is 10,830 endpoints, 16 11,552, 18 12,996
    assert hosts == {"SF-MIN p=15": (722, 29, 15, 10830), "SF-MIN p=16": (722, 29, 16, 11552),
                     "SF-MIN p=18": (722, 29, 18, 12996)}
    panels = {c.label: (c.panel, *c.also) for c in study.curves}
    assert panels == {"SF-MIN p=15": ("8b", "8d"), "SF-MIN p=16": ("8b",), "SF-MIN p=18": ("8d",)}


def test_the_setup_of_section_v_and_knees_to_002(full_all):
    for study, exp in full_all:
        for pt in exp.points:
            m, ref, sw = pt.content["measure"], pt.content["reference"], pt.content["sweep"]
            assert (m["packet_size"], m["credit_delay"], m["link_latency"]) == (1, 2, 1)
            assert ref["internal_speedup"] == 2.0 and ref["routing_base"] == "nr"
            assert sw["tolerance"] <= st.KNEE_RESOLUTION and sw["points"] >= 8 and pt.content["load"] == "sweep"
            assert ref["port_buffer"] == int(re.search(r"-b(\d+)", study.name).group(1))


def test_all_panels_add_8a_the_worst_case_and_p21(full_all):
    curves = {(c.label, p): (s.reference["port_buffer"], c.routing, c.traffic)
              for s, _ in full_all for c in s.curves for p in (c.panel, *c.also)}
    # 8a: every buffer size of V-D, VAL under worst-case traffic at p = 15, each in its own spec
    assert {k[0]: v for k, v in curves.items() if k[1] == "8a"} == {
        f"SF-VAL {b} flits/port": (b, "valiant", "worstcase") for b in f8.BUFFERS}
    # one spec per buffer size, and the worst-case MIN curves of 8c/8e/8g in one of their own
    # (their knees bisected finer: the law's ratio of knees near zero load)
    assert sorted(s.reference["port_buffer"] for s, _ in full_all) == sorted(f8.BUFFERS + (64,))
    # 8b-8g: p = 16, 18, 21 beside the full-bandwidth p = 15, uniform and worst case
    for panel, p, traffic in (("8b", 16, "uniform"), ("8c", 16, "worstcase"), ("8d", 18, "uniform"),
                              ("8e", 18, "worstcase"), ("8f", 21, "uniform"), ("8g", 21, "worstcase")):
        assert curves[f"SF-MIN p={p}", panel] == (64, "hop", traffic)
        assert curves["SF-MIN p=15", panel] == (64, "hop", traffic)
    p21 = next(s for s, _ in full_all if s.reference["port_buffer"] == 64).networks["SF-p21"]
    assert generate("slimfly", **p21.params).num_hosts == 15162  # the paper's largest
    assert sum(len(e.points) for _, e in full_all) == 14


def test_quick_is_todays_q3_reproduction(tmp_path):
    pairs = f8._expanded({"quick": True, "out": str(tmp_path / "q")})
    labels = {(c.label, p) for s, _ in pairs for c in s.curves for p in (c.panel, *c.also)}
    assert {lab for lab, p in labels if p != "8a"} == {"SF-MIN p=3", "SF-MIN p=4", "SF-MIN p=6"}
    assert {p for _, p in labels} == {"8a", "8b", "8c", "8d", "8e"}
    assert all(s.networks[c.network].params["q"] == 3 for s, _ in pairs for c in s.curves)


def test_a_routing_in_8a_and_8c_is_one_simulation(tmp_path):
    pairs = f8._expanded({"quick": True, "panels": "8a,8c", "routings": "VAL", "buffers": "8,64",
                          "out": str(tmp_path / "v")})
    b64 = next(s for s, _ in pairs if s.reference["port_buffer"] == 64)
    same = [c for c in b64.curves if (c.network, c.routing, c.traffic) == ("SF-p3", "valiant", "worstcase")]
    assert len(same) == 1 and set((same[0].panel, *same[0].also)) == {"8a", "8c"}


@pytest.mark.parametrize("kw, match", [
    (dict(quick=True, full=True), "exactly one of --quick"),
    (dict(plan=True), "exactly one of --quick"),
    (dict(full=True, panels="8h"), "panels must be all or"),
    (dict(full=True, panels="8a", buffers="6"), "multiples of 4"),
    (dict(full=True, buffer_routing="ANCA", panels="8a"), "buffer_routing must be one of"),
    (dict(full=True, plan=True, submit=True), "--plan prints"),
    (dict(full=True, submit=True, collect=True), "give one"),
    (dict(full=True, simulator="booksim"), "reference simulator"),
    (dict(full=True, plot="fig.jpg"), r"plot must end in \.png"),
])
def test_bad_settings_are_refused(tmp_path, kw, match):
    with pytest.raises(ParameterError, match=match):
        _run(tmp_path, **kw)
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------- the plan
def test_the_plan_runs_nothing_and_prices_every_curve(tmp_path):
    res = _run(tmp_path, full=True, plan=True)
    assert res.title.endswith(": plan") and len(res.table) == 3
    assert res.notes[0].startswith("slimfly-fig8: 3 curves in 1 spec(s)")
    minutes = float(res.notes[0].rsplit("estimate ", 1)[1].split(" ")[0].replace(",", ""))
    assert 10 <= minutes <= 40  # about 13 loads each of three ~10K-endpoint curves
    allp = _run(tmp_path, full=True, plan=True, panels="all", out=str(tmp_path / "all"))
    assert allp.notes[0].startswith("slimfly-fig8: 14 curves in 7 spec(s)") and "b256" in allp.notes[2]
    assert not list((tmp_path / "run").glob("*.store/points/*"))


def test_the_plan_is_printed_before_a_run(tmp_path):
    text = f8._announce(full=True, out=str(tmp_path / "a"))
    assert text.startswith("slimfly-fig8: 3 curves") and "the paper's knees" in text
    assert f8._announce(full=True, plan=True, out=str(tmp_path / "b")) == ""
    assert f8._announce(q=3) is None  # the fixed-grid run has no plan line


def test_the_knees_the_plan_assumes_are_the_papers():
    assert f8.paper_knee("hop", "uniform", 16, 15) == 0.80
    assert f8.paper_knee("hop", "uniform", 21, 15) == pytest.approx(0.875 * 15 / 21)
    assert f8.paper_knee("hop", "worstcase", 15, 15) == pytest.approx(1 / 16)
    assert f8.paper_knee("valiant", "worstcase", 15, 15) == 0.4


def test_the_plan_of_the_measured_curves_is_near_their_measured_cpu(tmp_path):
    # the curves run for real at the paper's size, planned at the knees they found: the
    # plan prices a packet-hop at slimfly-sim's recorded 1.63 us (this run paid 1.35 us,
    # start-up and compilation included), so it says 1.19 of the measurement; not far off
    m = f8.MEASURED_FULL
    study, exp = f8._expanded({"full": True, "out": str(tmp_path / "m")})[0]
    assert {c.label for c in study.curves} == set(m["knees"])
    study.knees.update({(c.label, c.panel): m["knees"][c.label] for c in study.curves})
    pl = st.plan(study, exp, seconds_per_hop=f8.CPU_SECONDS_PER_PACKET_HOP)
    assert abs(pl["simulations"] - m["simulations"]) <= 3
    assert 0.7 <= pl["cpu_minutes"] * 60 / m["cpu_s"] <= 1.3


# ------------------------------------------------------------------------------- the claims
def _curve(c, knee, *, width=0.015, latency=10.0):
    rows = [{"offered_load": x, "status": "completed", "accepted_flit_rate": x, "latency_avg": latency + 20 * x}
            for x in (0.01, knee / 2, knee)]
    rows.append({"offered_load": knee + width, "status": "saturated", "accepted_flit_rate": knee,
                 "latency_avg": math.nan})
    return st.CurveResult(c, rows, "done")


def _results(studies, knees, **kw):
    out = {}
    for s in studies:
        for c in s.curves:
            for p in (c.panel, *c.also):
                cc = dataclasses.replace(c, panel=p, also=())
                out[c.label, p] = _curve(cc, knees[c.label], **kw.get(c.label, {}))
    return out


def _verdicts(studies, res, q=19):
    t = st.judge(f8.study_claims(studies, q), res)
    return dict(zip(t.claim, t.verdict)), t


def test_the_printed_fractions_and_the_law_on_made_up_curves():
    studies = f8.studies_of("full")
    # the paper's own numbers: 87.5 / 80 / 75 %
    v, t = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.875, "SF-MIN p=16": 0.80, "SF-MIN p=18": 0.75}))
    assert v["V-E: the full-bandwidth SF accepts up to 87.5% of uniform traffic (MIN)"] == "holds"
    assert v["V-E: SF with p=16 accepts up to 80.0% of uniform traffic (MIN)"] == "holds"
    assert v["V-E: SF with p=18 accepts up to 75.0% of uniform traffic (MIN)"] == "holds"
    law = "V-E: p={} accepts p_full/p of the full-bandwidth SF's uniform load (SF-MIN)"
    assert v[law.format(16)] == v[law.format(18)] == "holds"
    assert (t.verdict != "differs").all()
    # the head-of-line limited router: every level differs, the law still holds
    v, t = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.63, "SF-MIN p=16": 0.59, "SF-MIN p=18": 0.525}))
    assert v["V-E: the full-bandwidth SF accepts up to 87.5% of uniform traffic (MIN)"] == "differs"
    assert v["V-E: SF with p=18 accepts up to 75.0% of uniform traffic (MIN)"] == "differs"
    assert v[law.format(16)] == v[law.format(18)] == "holds"
    reason = t.set_index("claim").loc["V-E: the full-bandwidth SF accepts up to 87.5% of uniform traffic (MIN)"]
    assert reason.reason == "0.63 is -0.245 from 0.875" and reason.tolerance == "+-0.05"
    # no oversubscription effect at all: the law differs where 1/p is large enough to see
    v, _ = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.63, "SF-MIN p=16": 0.63, "SF-MIN p=18": 0.63}))
    assert v[law.format(18)] == "differs" and v[law.format(16)] == "differs"


def test_a_missing_or_unresolved_curve_is_not_judged():
    studies = f8.studies_of("full")
    res = _results(studies, {"SF-MIN p=15": 0.875, "SF-MIN p=16": 0.80, "SF-MIN p=18": 0.75})
    del res["SF-MIN p=15", "8d"], res["SF-MIN p=15", "8b"]
    v, t = _verdicts(studies, res)
    law = "V-E: p={} accepts p_full/p of the full-bandwidth SF's uniform load (SF-MIN)"
    assert v[law.format(16)] == v[law.format(18)] == "not run"
    assert v["V-E: the full-bandwidth SF accepts up to 87.5% of uniform traffic (MIN)"] == "not run"
    assert v["V-E: SF with p=16 accepts up to 80.0% of uniform traffic (MIN)"] == "holds"
    assert "SF-MIN p=15 (8b)" in t.set_index("claim").loc[law.format(16)].reason
    # a failed curve counts as not run; a knee bracket wider than 0.02 leaves it unresolved
    failed = st.CurveResult(res["SF-MIN p=16", "8b"].curve, [], "failed", "boom")
    wide = _results(studies, {"SF-MIN p=15": 0.875, "SF-MIN p=16": 0.80, "SF-MIN p=18": 0.75},
                    **{"SF-MIN p=18": {"width": 0.05}})
    wide["SF-MIN p=16", "8b"] = failed
    v, _ = _verdicts(studies, wide)
    assert v["V-E: SF with p=16 accepts up to 80.0% of uniform traffic (MIN)"] == "not run"
    assert v["V-E: SF with p=18 accepts up to 75.0% of uniform traffic (MIN)"] == "unresolved"
    assert v[law.format(18)] == "unresolved"


def test_the_buffer_claims_on_made_up_curves():
    studies = f8.studies_of("full", ["8a"], buffers=(8, 64, 256))
    labels = [f"SF-VAL {b} flits/port" for b in (8, 64, 256)]
    res = _results(studies, dict(zip(labels, (0.30, 0.36, 0.40))),
                   **{lab: {"latency": x} for lab, x in zip(labels, (10.0, 12.0, 15.0))})
    v, t = _verdicts(studies, res)
    assert v["V-D: bigger buffers enable higher bandwidth (worst case)"] == "holds"
    assert v["V-D: smaller buffers give lower latency (stiffer backpressure)"] == "holds"
    assert t.set_index("claim").loc["V-D: bigger buffers enable higher bandwidth (worst case)"].topogen == \
        "8: 0.3, 64: 0.36, 256: 0.4"
    # equal within the knees' resolution is no higher bandwidth; a small buffer slower
    res = _results(studies, dict(zip(labels, (0.30, 0.31, 0.31))),
                   **{lab: {"latency": x} for lab, x in zip(labels, (30.0, 12.0, 15.0))})
    v, _ = _verdicts(studies, res)
    assert v["V-D: bigger buffers enable higher bandwidth (worst case)"] == "differs"
    assert v["V-D: smaller buffers give lower latency (stiffer backpressure)"] == "differs"
    del res[labels[0], "8a"]
    v, _ = _verdicts(studies, res)
    assert v["V-D: bigger buffers enable higher bandwidth (worst case)"] == "not run"


def test_the_law_tolerance_is_never_finer_than_the_knees():
    assert f8.law_tolerance(0.6, 0.02) == f8.LAW_TOLERANCE
    assert f8.law_tolerance(0.1, 0.02) == pytest.approx(0.02 / 0.1)
    assert f8.law_tolerance(0.03, 0.001) == f8.LAW_TOLERANCE


def test_the_printed_fractions_are_only_claimed_at_the_papers_network():
    studies = f8.studies_of("quick")
    texts = [c.text for c in f8.study_claims(studies, 3)]
    assert not any("87.5" in t or "80.0%" in t for t in texts)
    assert "V-E: p=6 accepts p_full/p of the full-bandwidth SF's uniform load (SF-MIN)" in texts


# ------------------------------------------------------------------------------- a tiny run
def test_a_tiny_quick_run_writes_rows_claims_and_figure(tmp_path, monkeypatch):
    real = f8.studies_of

    def coarse(*a, **k):  # the quick setup with a coarse sweep and a short measurement
        return [dataclasses.replace(s, sweep={"low": 0.05, "high": 1.0, "tolerance": 0.5, "points": 2},
                                    measure=dict(s.measure, sample_period=200, max_samples=3))
                for s in real(*a, **k)]

    monkeypatch.setattr(f8, "studies_of", coarse)
    res = _run(tmp_path, quick=True, panels="8b")
    t = res.table
    assert set(zip(t.panel, t.curve)) == {("8b", "SF-MIN p=3"), ("8b", "SF-MIN p=4")}
    assert (t.status == "done").all() and (t.loads_below_saturation >= 1).all()
    cl = res.extra_tables["claims"]
    # the sweep's knee is far coarser than 0.02: the law is not judged
    assert list(cl.verdict) == ["unresolved"]
    assert (tmp_path / "run" / "fig8.png").stat().st_size > 1000
    assert (tmp_path / "run" / "claims.csv").exists() and (tmp_path / "run" / "curves.csv").exists()
    # collect reads the same store back; nothing runs again
    again = _run(tmp_path, quick=True, panels="8b", collect=True)
    assert again.table.equals(t)


def test_submit_sends_every_spec_and_runs_nothing_here(tmp_path, monkeypatch):
    sent = []

    def fake(exp, **options):
        sent.append(exp.name)
        return {"points": len(exp.points), "job": "7", "tasks": len(exp.points), "collect_job": "8"}

    monkeypatch.setattr(st, "submit", fake)
    monkeypatch.setattr(st, "run_local", lambda *a, **k: pytest.fail("ran locally"))
    res = _run(tmp_path, quick=True, panels="8a,8b", buffers="8,64", submit=True)
    assert sent == ["slimfly-fig8-quick-b64", "slimfly-fig8-quick-b8"]
    assert res.title.endswith(": submitted") and any("--collect" in n for n in res.notes)
