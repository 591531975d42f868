"""The capacity law of Slim Fly V-E on knees near zero load: where the knees' brackets
allow the ratio no tolerance within twice the claim's, the claim is ``unresolved`` with the
reason, not ``holds`` on a tolerance wider than the ratio; the curves whose knees the paper
puts near zero load (MIN under the worst case) are bisected finer, in a spec of their own."""

from topogen.reproduce import slimfly_fig8 as f8
from topogen.reproduce import study as st

from .test_slimfly_fig8_study import _results, _verdicts

LAW = "V-E: p={} the worst-case bandwidth behaves similarly: p_full/p of the full SF's (SF-MIN)"
UNIFORM = "V-E: p={} accepts p_full/p of the full-bandwidth SF's uniform load (SF-MIN)"


def _knees(worst: float, p21: float | None = None) -> dict:
    return {"SF-MIN p=15": worst, "SF-MIN p=16": worst, "SF-MIN p=18": worst, "SF-MIN p=21": worst if p21 is None
            else p21}


def test_worst_case_knees_near_zero_load_leave_the_law_unresolved():
    studies = f8.studies_of("full", ["8c", "8e", "8g"])
    # q = 19 under the worst case: every knee between 0.0255 and 0.041, p = 21's at 0.01
    # knees resolved to 0.02 of load (the plain study's bisection)
    coarse = {f"SF-MIN p={p}": {"width": 0.02} for p in (15, 16, 18, 21)}
    v, t = _verdicts(studies, _results(studies, _knees(0.0255, 0.01), **coarse))
    for p in (16, 18, 21):
        assert v[LAW.format(p)] == "unresolved"
    reason = t.set_index("claim").loc[LAW.format(21)].reason
    assert "fix the ratio only to +-0.78" in reason and "[sweep] tolerance" in reason


def test_the_same_knees_bisected_to_0001_are_judged():
    studies = f8.studies_of("full", ["8c", "8e", "8g"])
    fine = {f"SF-MIN p={p}": {"width": 0.001} for p in (15, 16, 18, 21)}
    # on the law (15/16, 15/18, 15/21 of 0.032) within 0.05; then p = 21 as high as p = 15
    v, t = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.032, "SF-MIN p=16": 0.030,
                                                 "SF-MIN p=18": 0.0267, "SF-MIN p=21": 0.0229}, **fine))
    assert [v[LAW.format(p)] for p in (16, 18, 21)] == ["holds"] * 3
    v, t = _verdicts(studies, _results(studies, _knees(0.032), **fine))
    assert v[LAW.format(21)] == "differs" and v[LAW.format(16)] == "differs"
    assert "from the law 0.714 (tolerance 0.050)" in t.set_index("claim").loc[LAW.format(21)].reason


def test_worst_case_min_curves_get_their_own_finer_spec():
    studies = f8.studies_of("full", ["8b", "8c", "8e", "8g"])
    by_name = {s.name: s for s in studies}
    assert set(by_name) == {"slimfly-fig8-full-b64", "slimfly-fig8-full-b64-knee0.001"}
    fine = by_name["slimfly-fig8-full-b64-knee0.001"]
    assert {(c.label, c.traffic) for c in fine.curves} == {(f"SF-MIN p={p}", "worstcase") for p in (15, 16, 18, 21)}
    assert fine.sweep["tolerance"] == 0.001 and fine.sweep["low"] == 0.001 and fine.sweep["points"] >= 8
    assert set(fine.networks) == {"SF-p15", "SF-p16", "SF-p18", "SF-p21"}
    plain = by_name["slimfly-fig8-full-b64"]  # the uniform curves keep their sweep (and stored points)
    assert {c.traffic for c in plain.curves} == {"uniform"} and plain.sweep == st.knee_sweep(8)
    assert set(plain.networks) == {"SF-p15", "SF-p16"}
    # the step: half the law's tolerance at the knee the paper expects (1/16 for MIN)
    assert f8.law_sweep_tolerance(1 / 16) == 0.001
    assert f8.law_sweep_tolerance(0.875) == 0.02 and f8.law_sweep_tolerance(0.25) == 0.005
    assert f8.law_sweep_tolerance(1e-4) == f8.KNEE_STEPS[-1]


def test_a_study_knee_tolerance_coarser_than_the_claims_is_refused():
    import pytest

    from topogen.errors import ParameterError

    with pytest.raises(ParameterError, match="knee tolerance"):
        st.knee_sweep(8, 0.05)


def test_knees_that_resolve_the_ratio_are_judged():
    studies = f8.studies_of("full", ["8b", "8d", "8f"])
    # 0.02 / 0.4 = 0.05: the claim's own tolerance
    v, _ = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.4, "SF-MIN p=16": 0.375, "SF-MIN p=18": 0.333,
                                                 "SF-MIN p=21": 0.4}))
    assert v[UNIFORM.format(16)] == v[UNIFORM.format(18)] == "holds"
    assert v[UNIFORM.format(21)] == "differs"  # 1.0 against the law's 0.714
    # knees bracketed to 0.02: at a knee of 0.2 the tolerance is 0.1, twice the claim's: still
    # judged; below, not
    assert f8.law_tolerance(0.2, 0.02) <= f8.RESOLVABLE * f8.LAW_TOLERANCE + 1e-12
    v, _ = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.19, "SF-MIN p=16": 0.19, "SF-MIN p=18": 0.19,
                                                 "SF-MIN p=21": 0.19},
                                       **{f"SF-MIN p={p}": {"width": 0.02} for p in (15, 16, 18, 21)}))
    assert v[UNIFORM.format(16)] == v[UNIFORM.format(21)] == "unresolved"


def test_a_check_without_a_decision_is_unresolved():
    c = st.Claim("x", "8b", "1", "+-0", (), lambda res: ("?", None, "cannot tell"), saturation=False)
    t = st.judge([c], {})
    assert list(t.verdict) == ["unresolved"] and list(t.reason) == ["cannot tell"]


def test_panels_of_knees_near_zero_load_get_a_traffic_axis_of_their_own():
    studies = f8.studies_of("full", ["8b", "8c"])
    res = _results(studies, {"SF-MIN p=15": 0.032, "SF-MIN p=16": 0.030})
    # 8b holds the same made-up knees here: both panels zoom; a uniform knee at 0.86 does not
    assert f8._zoomed_axes(res, ["8b", "8c"]) == {"8b": 0.04, "8c": 0.04}  # 0.032 x 1.25 = 0.04
    res = _results(studies, {"SF-MIN p=15": 0.86, "SF-MIN p=16": 0.80})
    assert f8._zoomed_axes(res, ["8b", "8c"]) == {}
