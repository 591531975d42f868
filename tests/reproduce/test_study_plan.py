"""The plan of a study counts what the run will do: the loads its sweeps ask for on curves
that saturate where the paper says, and the cycles BookSim's measurement runs them
(warm-up and sample periods until the convergence test stops, a drain), not the maximum.
``slimfly-sim --full`` is Fig. 6a; the other panels are ``--panels``."""

from __future__ import annotations

import math

import pytest

from topogen._estimate import measured_cycles, sweep_loads, sweep_simulations
from topogen.errors import ParameterError
from topogen.reproduce import slimfly_sim as sfs
from topogen.reproduce import study as st


@pytest.mark.parametrize("knee", [0.03, 0.2, 0.45, 0.5, 0.8, 0.875, 0.99])
def test_sweep_loads_follow_the_bisection_to_the_knee(knee):
    loads = sweep_loads(0.01, 1.0, 0.02, 8, knee)
    ok = [x for x, sustained in loads if sustained]
    bad = [x for x, sustained in loads if not sustained]
    assert all(x <= knee for x in ok) and all(x > knee for x in bad)
    assert min(bad) - max(ok) <= 0.02  # the knee bracket the claims need
    assert len(ok) >= 8  # at least 8 loads below saturation
    assert len(set(loads)) == len(loads)
    assert len(loads) <= sweep_simulations(0.01, 1.0, 0.02, 8)[1]


def test_a_curve_that_never_saturates_asks_for_both_ends_and_the_grid():
    loads = sweep_loads(0.01, 1.0, 0.02, 8, 2.0)
    assert all(ok for _, ok in loads) and [x for x, _ in loads][:2] == [0.01, 1.0]


def test_measured_cycles_count_the_convergence_not_the_maximum():
    # BookSim's latency measurement: 3 warm-up periods, then the first sample and three
    # that agree (converge_samples), a drain of about one period; saturated: all of them
    assert measured_cycles(3, 100, 10) == (3 + 4 + 1) * 100
    assert measured_cycles(3, 100, 10, sustained=False) == 10 * 100
    assert measured_cycles(3, 1000, 5) == (5 + 1) * 1000  # max_samples caps the periods


def test_the_simulator_runs_the_cycles_the_plan_counts():
    # a sustained load on a network big enough that a 100-cycle period holds plenty of
    # packets: the convergence test stops it after the warm-up and four samples
    from topogen.generators.slimfly import slimfly
    from topogen.routing import route
    from topogen.sim import SimConfig, simulate

    rt = route(slimfly(5), None, "hop", base="nr")
    cfg = SimConfig(num_vcs=4, vc_buf_size=16, packet_size=1, warmup_periods=3, sample_period=100, max_samples=10)
    row = simulate(rt, traffic="uniform", load=0.3, load_unit="flits", config=cfg, seed=1)
    assert row["status"] == "completed" and row["samples"] == 4
    assert (3 + 4) * 100 < row["sim_cycles"] <= measured_cycles(3, 100, 10)


def test_rates_by_network_then_routing_then_default():
    rates = {"*": 3.0, "ugal-l": 2.0, "dragonfly:ugal-l": 1.0}
    assert st.rate_for(rates, "dragonfly", "ugal-l") == 1.0
    assert st.rate_for(rates, "slimfly", "ugal-l") == 2.0
    assert st.rate_for(rates, "slimfly", "hop") == 3.0
    assert st.rate_for({}, "slimfly", "hop") == 1e-6


@pytest.fixture(scope="module")
def full6a(tmp_path_factory):
    folder = tmp_path_factory.mktemp("f")
    return sfs._expanded({"full": True, "out": str(folder / "fig6")})


def test_full_is_fig_6a(full6a):
    study, exp = full6a
    assert {c.panel for c in study.curves} == {"6a"} and len(exp.points) == 6
    assert {c.label for c in study.curves} == {"SF-MIN", "SF-VAL", "SF-UGAL-L", "SF-UGAL-G", "DF-UGAL-L", "FT-ANCA"}


@pytest.mark.parametrize("panels,count", [("all", 24), ("6a,6b,6c,6d", 24), ("6a,6d", 12), ("6d", 6)])
def test_the_other_panels_are_one_flag_away(tmp_path, panels, count):
    study, exp = sfs._expanded({"full": True, "panels": panels, "out": str(tmp_path / "f")})
    assert len(exp.points) == count == len(study.curves)


def test_panels_are_checked(tmp_path):
    with pytest.raises(ParameterError, match="panels must be all or"):
        sfs._expanded({"full": True, "panels": "6e", "out": str(tmp_path / "a")})
    with pytest.raises(ParameterError, match="give one"):
        sfs._expanded({"full": True, "panels": "6a", "traffic": "uniform", "out": str(tmp_path / "b")})


def test_the_6a_estimate_prices_every_load(full6a):
    study, exp = full6a
    pl = st.plan(study, exp, seconds_per_hop=sfs.CPU_SECONDS_PER_PACKET_HOP)
    assert pl["pending"] == 6 and 6 * 8 < pl["simulations"] <= 6 * 14
    # more loads, more minutes
    more = dict(study.sweep, points=16)
    study2 = st.Study(study.name, study.networks, study.curves, study.measure, study.reference, more,
                      knees=study.knees)
    assert st.plan(study2, exp, seconds_per_hop=sfs.CPU_SECONDS_PER_PACKET_HOP)["cpu_minutes"] > pl["cpu_minutes"]
    assert "the paper's knees" in pl["text"] and "until the convergence test stops it" in pl["text"]


def test_the_plan_of_the_measured_curve_is_near_its_measured_cpu(tmp_path):
    # the curve run for real at the paper's size, planned at the knee it found: the plan
    # leaves out start-up and compilation, so it may be lower, not far off
    m = sfs.MEASURED_CURVE
    study, exp = sfs._expanded({"full": True, "routings": m["label"][3:], "compare": "none",
                                "out": str(tmp_path / "m")})
    study.knees[m["label"], m["panel"]] = m["knee"]
    pl = st.plan(study, exp, seconds_per_hop=sfs.CPU_SECONDS_PER_PACKET_HOP)
    assert abs(pl["simulations"] - m["simulations"]) <= 1
    assert 0.7 <= pl["cpu_minutes"] * 60 / m["cpu_s"] <= 1.1


def test_the_plan_line_says_the_other_panels_are_one_flag_away(full6a):
    _, exp = full6a
    text = sfs._study_announce(full=True, out=str(exp.path.parent))
    assert "6 to run" in text and "--panels all" in text
    text = sfs._study_announce(full=True, panels="all", out=str(exp.path.parent / "all"))
    assert "24 to run" in text and "--panels all" not in text


def test_every_curve_of_6a_has_a_measured_rate(full6a):
    # no curve of the figure is priced at the catch-all rate
    study, _ = full6a
    rates = sfs.CPU_SECONDS_PER_PACKET_HOP
    for c in study.curves:
        gen = study.networks[c.network].generator
        assert f"{gen}:{c.routing}" in rates or c.routing in rates, c.label


def test_the_curves_table_shows_a_sustained_load_past_the_throughput():
    # a short measurement may complete a load the network cannot carry: its accepted
    # traffic stays below the offered, and the table says how far
    c = st.Curve("X", "n", "hop", "uniform", "6a")
    rows = [{"offered_load": 0.5, "status": "completed", "accepted_flit_rate": 0.5, "latency_avg": 10.0},
            {"offered_load": 0.9, "status": "completed", "accepted_flit_rate": 0.81, "latency_avg": 60.0},
            {"offered_load": 0.92, "status": "saturated", "accepted_flit_rate": 0.81}]
    r = st.CurveResult(c, rows, "done")
    assert r.sustained == 0.9 and r.accepted_at_knee == pytest.approx(0.9)
    table = st.curves_table({("X", "6a"): r})
    assert table.accepted_at_knee.iloc[0] == pytest.approx(0.9)
    assert math.isnan(st.CurveResult(c, [], "missing").accepted_at_knee)


def test_a_sustained_load_near_the_knee_counts_the_whole_schedule_and_a_drain():
    assert measured_cycles(3, 100, 10, near_knee=True) == 2 * 10 * 100
