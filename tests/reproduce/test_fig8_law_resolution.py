"""The capacity law of Slim Fly V-E on knees near zero load: where the knees' resolution
(0.02 of load) allows the ratio no tolerance within twice the claim's, the claim is
``unresolved`` with the reason, not ``holds`` on a tolerance wider than the ratio."""

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
    v, t = _verdicts(studies, _results(studies, _knees(0.0255, 0.01)))
    for p in (16, 18, 21):
        assert v[LAW.format(p)] == "unresolved"
    reason = t.set_index("claim").loc[LAW.format(21)].reason
    assert "fix the ratio only to +-0.78" in reason and "[sweep] tolerance" in reason


def test_knees_that_resolve_the_ratio_are_judged():
    studies = f8.studies_of("full", ["8b", "8d", "8f"])
    # 0.02 / 0.4 = 0.05: the claim's own tolerance
    v, _ = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.4, "SF-MIN p=16": 0.375, "SF-MIN p=18": 0.333,
                                                 "SF-MIN p=21": 0.4}))
    assert v[UNIFORM.format(16)] == v[UNIFORM.format(18)] == "holds"
    assert v[UNIFORM.format(21)] == "differs"  # 1.0 against the law's 0.714
    # at a knee of 0.2 the tolerance is 0.1, twice the claim's: still judged; below, not
    assert f8.law_tolerance(0.2) <= f8.RESOLVABLE * f8.LAW_TOLERANCE + 1e-12
    v, _ = _verdicts(studies, _results(studies, {"SF-MIN p=15": 0.19, "SF-MIN p=16": 0.19, "SF-MIN p=18": 0.19,
                                                 "SF-MIN p=21": 0.19}))
    assert v[UNIFORM.format(16)] == v[UNIFORM.format(21)] == "unresolved"


def test_a_check_without_a_decision_is_unresolved():
    c = st.Claim("x", "8b", "1", "+-0", (), lambda res: ("?", None, "cannot tell"), saturation=False)
    t = st.judge([c], {})
    assert list(t.verdict) == ["unresolved"] and list(t.reason) == ["cannot tell"]
