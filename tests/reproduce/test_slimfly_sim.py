"""reproduce slimfly-sim: claims checked on given curves, parameter errors, a tiny run."""

import math

import pandas as pd
import pytest

from topogen.errors import ParameterError
from topogen.reproduce.slimfly_sim import (_traffic_for, claims, comparison_network,
                                             reproduce_slimfly_sim, saturation)


def _table(sat):
    """Curves that complete up to sat[(traffic, routing)] and saturate one step above."""
    rows = []
    for (tr, rt), s in sat.items():
        for i in range(1, 10):
            load = i / 10
            ok = load <= s + 1e-9
            lat = 10 + 5 * i + (8 if rt == "VAL" else 0) + (2 * i if rt == "UGAL-L" else 0)
            rows.append({"traffic": tr, "routing": rt, "offered": load,
                         "status": "completed" if ok else "saturated",
                         "accepted": load if ok else math.nan,
                         "latency_cycles": lat if ok else math.nan, "hops_avg": 3.0, "seconds": 0})
            if not ok:
                break
    return pd.DataFrame(rows)


PAPERLIKE = {("uniform", "MIN"): 0.8, ("uniform", "VAL"): 0.4, ("uniform", "UGAL-L"): 0.8,
             ("uniform", "UGAL-G"): 0.8, ("worstcase", "MIN"): 0.2, ("worstcase", "VAL"): 0.4,
             ("worstcase", "UGAL-L"): 0.5, ("worstcase", "UGAL-G"): 0.5}


def test_claims_hold_on_paper_like_curves_and_fail_otherwise():
    t = _table(PAPERLIKE)
    assert saturation(t)[("worstcase", "UGAL-L")] == 0.5
    c = claims(t, hosts_per_router=3, step=0.1)
    assert len(c) == 11 and (c.verdict == "holds").all(), c
    # MIN sustaining the adversarial pattern, VAL beating everything: the claims say so
    bad = dict(PAPERLIKE)
    bad["worstcase", "MIN"] = 0.6
    bad["uniform", "VAL"] = 0.9
    bad["uniform", "MIN"] = 0.5
    c = claims(_table(bad), hosts_per_router=3, step=0.1).set_index("claim")
    assert c.loc["MIN is limited to 1/(p+1) throughput", "verdict"] == "differs"
    assert c.loc["VAL saturates at less than 50% of the injection rate", "verdict"] == "differs"
    assert c.loc["UGAL-G and MIN achieve the best performance", "verdict"] == "differs"


def test_parameter_errors():
    with pytest.raises(ParameterError, match="loads"):
        reproduce_slimfly_sim(loads="0.2,1.5")
    with pytest.raises(ParameterError, match="routings"):
        reproduce_slimfly_sim(routings="MIN,UGAL")
    with pytest.raises(ParameterError, match="traffic"):
        reproduce_slimfly_sim(traffic="bitrev,transpose")
    with pytest.raises(ParameterError, match="compare"):
        reproduce_slimfly_sim(compare="DF-MIN")
    with pytest.raises(ParameterError, match="nothing to simulate"):
        reproduce_slimfly_sim(routings="none", compare="none")
    with pytest.raises(ParameterError, match="q"):
        reproduce_slimfly_sim(q=6)
    with pytest.raises(ParameterError, match="plot"):
        reproduce_slimfly_sim(plot="fig.gif")


def test_tiny_run_in_process(tmp_path):
    res = reproduce_slimfly_sim(loads="0.1,0.5,0.9", traffic="worstcase", routings="MIN",
                                max_samples=4, workers=1, plot=str(tmp_path / "fig.svg"))
    assert "<svg" in (tmp_path / "fig.svg").read_text()
    t = res.table
    assert set(t.routing) == {"MIN"} and len(t) == 2  # the curve stops at its first failure
    sat = saturation(t)
    assert sat["worstcase", "MIN"] <= 0.1  # the adversarial pattern stops MIN early
    c = res.extra_tables["claims"]
    row = c.set_index("claim").loc["MIN is limited to 1/(p+1) throughput"]
    assert "busiest MIN link carries 6 flows" in row["ours"]  # 2p: both directions of a pair's link


def test_cli_bad_input_is_one_line(capsys):
    from topogen.cli import main

    assert main(["reproduce", "slimfly-sim", "--max-samples", "2"]) not in (0, 70)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "max_samples" in lines[0]


@pytest.mark.parametrize("q", [3, 5, 7])
def test_comparison_networks_have_about_slim_flys_host_count(q):
    from topogen.generators.slimfly import slimfly

    n = slimfly(q).num_hosts
    df, ft = comparison_network("DF", q), comparison_network("FT", q)
    assert df.params["a"] == 2 * df.params["p"] == 2 * df.params["h"]  # balanced (Kim et al.)
    assert abs(df.num_hosts - n) <= 0.1 * n
    # FT-3 is a k-ary 3-tree: the one whose k**3 hosts are nearest SF's (q = 19: k = 22)
    k = ft.params["k"]
    assert ft.name == "kary-ntree" and ft.params["n"] == 3
    assert abs(k ** 3 - n) <= min(abs((k - 1) ** 3 - n), abs((k + 1) ** 3 - n))
    assert df.is_connected() and ft.is_connected()
    with pytest.raises(ParameterError, match="DF or FT"):
        comparison_network("torus", q)


def test_worst_case_pattern_per_network():
    ft = comparison_network("FT", 3)
    assert _traffic_for("SF", "worstcase", None) == "worstcase"
    assert _traffic_for("DF", "worstcase", None) == "groupshift"
    assert _traffic_for("FT", "worstcase", ft) == f"shift:{ft.num_hosts // 2}"
    assert _traffic_for("DF", "bitrev", None) == "bitrev"


def _verdicts(sat):
    c = claims(_table(sat), hosts_per_router=3, step=0.1)
    return dict(zip(zip(c.claim, c.traffic), c.verdict))


def test_comparison_claims_follow_the_curves():
    paper = dict(PAPERLIKE)
    paper.update({("uniform", "DF-UGAL-L"): 0.6, ("uniform", "FT-ANCA"): 0.9,
                  ("worstcase", "DF-UGAL-L"): 0.3, ("worstcase", "FT-ANCA"): 0.7})
    for r, v in {"MIN": 0.5, "VAL": 0.3, "UGAL-L": 0.5, "UGAL-G": 0.6, "DF-UGAL-L": 0.4,
                 "FT-ANCA": 0.7}.items():
        paper["shift", r] = v
    v = _verdicts(paper)
    assert v["DF offers lower bandwidth than SF", "uniform"] == "holds"
    assert v["FT-3's bandwidth is slightly higher than SF's", "uniform"] == "holds"
    assert v["FT-3 (full bandwidth) achieves higher bandwidth than both DF and SF", "worstcase"] == "holds"
    assert v["VAL and UGAL-L provide slightly higher bandwidth than DF", "worstcase"] == "holds"
    assert v["FT-3's bandwidth is higher than UGAL-L's and only slightly better than UGAL-G's",
             "shift"] == "holds"
    # the _table latencies rise with the load index only, so equal at the lowest load:
    # SF is not lower than DF there
    assert v["SF offers slightly higher bandwidth and lower latency than DF", "shift"] == "differs"
    worse = dict(paper)
    worse.update({("uniform", "DF-UGAL-L"): 0.9, ("worstcase", "FT-ANCA"): 0.3,
                  ("worstcase", "DF-UGAL-L"): 0.6, ("shift", "FT-ANCA"): 0.4})
    v = _verdicts(worse)
    assert v["DF offers lower bandwidth than SF", "uniform"] == "differs"
    assert v["FT-3 (full bandwidth) achieves higher bandwidth than both DF and SF", "worstcase"] == "differs"
    assert v["VAL and UGAL-L provide slightly higher bandwidth than DF", "worstcase"] == "differs"
    assert v["FT-3's bandwidth is higher than UGAL-L's and only slightly better than UGAL-G's",
             "shift"] == "differs"


def test_tiny_run_with_a_comparison_curve():
    res = reproduce_slimfly_sim(loads="0.2", traffic="shift,worstcase", routings="MIN",
                                compare="FT-ANCA", max_samples=4, workers=1)
    t = res.table
    assert set(t.routing) == {"MIN", "FT-ANCA"} and set(t.traffic) == {"shift", "worstcase"}
    assert set(t[t.routing == "FT-ANCA"].network) == {"FT"}
    ft = t[(t.routing == "FT-ANCA") & (t.traffic == "worstcase")].iloc[0]
    assert ft.status == "completed" and ft.hops_avg == pytest.approx(5.0)  # all through the core
    assert any("FT-ANCA: 48 routers" in n for n in res.notes)  # the 4-ary 3-tree


def test_a_curve_that_sustains_the_whole_injection_rate_is_judged_at_it():
    """Fig. 6's axis ends at the injection rate: a curve that completes at load 1 counts
    there (6d: FT-3 above DF and SF), a knee left open below 1 stays unresolved."""
    import math

    from topogen.reproduce import slimfly_sim as sfs
    from topogen.reproduce import study as st

    study = sfs.study_of("quick", traffics=("worstcase",))
    claims = [c for c in sfs.study_claims(study, p=3) if c.text.startswith("FT-3 (full bandwidth)")]
    assert len(claims) == 1

    def rows(ok, bad):
        return ([{"offered_load": x, "status": "completed", "accepted_flit_rate": x, "latency_avg": 20.0} for x in ok]
                + [{"offered_load": x, "status": "saturated", "accepted_flit_rate": 0.3, "latency_avg": math.nan}
                   for x in bad])

    res = {}
    for c in study.curves:
        knee = 0.30 if c.label.startswith(("SF", "DF")) else None
        res[c.label, c.panel] = st.CurveResult(
            c, rows([0.1, 0.5, 1.0], []) if knee is None else rows([0.1, knee], [knee + 0.015]), "done")
    assert list(st.judge(claims, res).verdict) == ["holds"]
    ft = next(k for k in res if k[0].startswith("FT"))
    res[ft] = st.CurveResult(res[ft].curve, rows([0.1, 0.5], [1.0]), "done")  # knee between 0.5 and 1
    assert list(st.judge(claims, res).verdict) == ["unresolved"]
