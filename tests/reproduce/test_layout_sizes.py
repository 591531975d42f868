"""``topogen reproduce layout-sim --full --figures ... --sizes ...``: one figure or one size
of the layout-conscious paper's simulation study, and the plan's estimate of it.

Nothing is simulated: the specs are written and planned only."""

from __future__ import annotations

import pytest

from topogen.errors import ParameterError
from topogen.registry import generate
from topogen.reproduce import layout_sim as ls
from topogen.reproduce import study as st


def _study(tmp_path, **kw):
    kw.setdefault("traffic", "all")
    return ls._expanded({"full": True, "out": str(tmp_path / "s"), **kw})


def _switches(study, key):
    n = study.networks[key]
    return generate(n.generator, **n.params).num_switches


def test_figures_5_and_8_are_the_64_switch_networks_and_both_clos(tmp_path):
    study, exp = _study(tmp_path, figures="5,8")
    sizes = {_switches(study, k) for k in study.networks}
    assert sizes == {64, 80, 160}
    panels = {c.panel for c in study.curves}
    assert panels == {"5a", "5b", "5c", "8a", "8b"}
    # Fig. 5: four networks x three patterns; Fig. 8: four Clos x uniform and transpose
    assert len(exp.points) == len(study.curves) == 4 * 3 + 4 * 2
    # Fig. 5's permuted hypercubes have 8 switches per cabinet (III-C1), the others 16
    for k, n in study.networks.items():
        if n.generator in ("p-hypercube", "pf-hypercube"):
            assert n.params["switches_per_cabinet"] == 8


def test_sizes_select_by_switch_count_and_combine_with_figures(tmp_path):
    study, _ = _study(tmp_path, sizes="160")
    assert {_switches(study, k) for k in study.networks} == {160}
    assert {study.networks[k].generator for k in study.networks} == {"myrinet-clos", "pf-myrinet-clos"}
    study, _ = _study(tmp_path, sizes="256", figures="13", traffic="uniform")
    assert {c.panel for c in study.curves} == {"13a"}
    assert all(_switches(study, k) == 256 for k in study.networks)
    study, _ = _study(tmp_path, sizes="512")
    assert {c.panel[0] for c in study.curves} == {"7"} and len(study.curves) == 12


def test_the_selection_is_the_network_table_read_independently():
    nets = ls.study_networks("full")
    for key, net in nets.items():
        assert ls.network_switches(key, net) == generate(net[1], **net[2]).num_switches
    assert ls.select_networks("full") is None  # nothing narrowed: the whole mode
    assert set(ls.select_networks("full", figures="5")) == {k for k, v in nets.items() if v[3] == "5"}


@pytest.mark.parametrize("kw, match", [
    (dict(figures="9"), "--figures takes"),
    (dict(sizes="100"), "--sizes takes"),
    (dict(figures="5", sizes="512"), "no network"),
    (dict(figures="5", topologies="clos-256"), "no network"),
])
def test_bad_selections_name_the_choices(tmp_path, kw, match):
    with pytest.raises(ParameterError, match=match):
        _study(tmp_path, **kw)


def test_quick_says_where_the_other_figures_are(tmp_path):
    with pytest.raises(ParameterError, match="--full's"):
        ls._expanded({"quick": True, "figures": "5", "out": str(tmp_path / "q")})


def test_the_bisection_mode_refuses_figures():
    with pytest.raises(ParameterError, match="--quick or --full"):
        ls.reproduce_layout_sim(figures="5")


def test_plan_prices_the_measured_curves_at_their_measured_cost(tmp_path):
    """The recorded rate is the measured CPU of full-size curves over the plan's
    packet-hops of the same curves (module notes): the plan of the measured curves
    together is within 25 % of their CPU time, each within a factor of three (a 64-switch
    curve's short simulations carry fixed costs the packet-hop model lacks)."""
    planned = measured = 0.0
    for key, traffic, cpu in ls.MEASURED_CURVES:
        study, exp = ls._expanded({"full": True, "traffic": traffic, "topologies": key,
                                   "out": str(tmp_path / f"{key}-{traffic}")})
        pl = st.plan(study, exp, seconds_per_hop=ls.CPU_SECONDS_PER_PACKET_HOP)
        assert pl["points"] == 1
        sec = pl["cpu_minutes"] * 60
        assert cpu / 3 <= sec <= cpu * 3, (key, traffic, sec, cpu)
        planned += sec
        measured += cpu
    assert abs(planned / measured - 1) <= 0.25, (planned, measured)
    nets = ls.study_networks("full")
    assert {ls.network_switches(k, nets[k]) for k, _, _ in ls.MEASURED_CURVES} == {64, 160, 512}


def test_plan_of_figures_5_and_8_fits_the_hour(tmp_path):
    study, exp = _study(tmp_path, figures="5,8")
    pl = st.plan(study, exp, seconds_per_hop=ls.CPU_SECONDS_PER_PACKET_HOP)
    assert pl["pending"] == 20 and 0 < pl["cpu_minutes"] < 60
    # a wider selection costs more
    study2, exp2 = _study(tmp_path / "b", figures="5,7,8")
    assert st.plan(study2, exp2, seconds_per_hop=ls.CPU_SECONDS_PER_PACKET_HOP)["cpu_minutes"] > pl["cpu_minutes"]


def _curve_result(curve, latency, sustained=0.5):
    rows = [{"offered_load": 0.01, "status": "completed", "latency_avg": latency, "accepted_flit_rate": 0.01},
            {"offered_load": sustained, "status": "completed", "latency_avg": 2 * latency,
             "accepted_flit_rate": sustained},
            {"offered_load": sustained + 0.01, "status": "saturated", "latency_avg": float("nan"),
             "accepted_flit_rate": sustained}]
    return st.CurveResult(curve, rows, "done")


def test_the_growth_with_size_is_judged_on_each_panels_own_traffic():
    """'The advantage ... increases with the size' is judged per traffic: uniform on the
    uniform curves of Figs. 5-7, bit reversal on the bit-reversal ones."""
    keys = [f"{k}-{n}" for n in (64, 256, 512) for k in ("hypercube", "p-hypercube")] + \
        ["ring6-64", "ring8-256", "ring9-512"]
    study = ls.study_of("full", ("uniform", "bitrev"), keys)
    # uniform: RING-n 10, 20, 30 % below HYPERCUBE (grows); bit reversal: 30, 20, 10 % (shrinks)
    share = {("uniform", 64): 0.9, ("uniform", 256): 0.8, ("uniform", 512): 0.7,
             ("bitrev", 64): 0.7, ("bitrev", 256): 0.8, ("bitrev", 512): 0.9}
    results = {}
    for c in study.curves:
        n = int(c.network.rsplit("-", 1)[1])
        lat = 300.0 if c.network.startswith("hypercube") else 300.0 * share[c.traffic, n]
        results[c.label, c.panel] = _curve_result(c, lat)
    table = st.judge(ls.study_claims(study), results).set_index(["claim", "panel"])
    claim = "the advantage of RING-n over HYPERCUBE (latency) increases with the size (64, 256, 512)"
    assert table.loc[(claim, "5-7a"), "verdict"] == "holds"
    assert table.loc[(claim, "5-7a"), "topogen"] == "10.0 % < 20.0 % < 30.0 %"
    assert table.loc[(claim, "5-7c"), "verdict"] == "differs"


def test_host_ports_simulate_every_host_with_host_id_patterns(tmp_path):
    shared, _ = _study(tmp_path / "a", figures="5,8")
    study, exp = _study(tmp_path / "b", figures="5,8", host_port="separate")
    assert study.name == "layout-figs-full-hosts" != shared.name
    assert {c.panel for c in study.curves} == {c.panel for c in shared.curves}
    for c in study.curves:
        net = study.networks[c.network]
        hosts = generate(net.generator, **net.params).num_hosts
        if net.generator.endswith("myrinet-clos"):  # the Clos simulates its own hosts either way
            assert net.params == shared.networks[c.network].params and c.traffic in ("uniform", "transpose")
            assert hosts in (256, 512)
        else:  # 8 hosts per switch, each its own port; transpose on host ids is the rotation
            assert net.params["hosts_per_switch"] == 8 and hosts == 8 * 64
            assert c.traffic == {"a": "uniform", "b": "rotate", "c": "bitrev"}[c.panel[-1]]
    # the same 0.24 Gbit/s/host resolution: 0.02 of a shared 12 Gbit/s/host port, 0.0025 of 96
    assert study.sweep["tolerance"] * 96 == pytest.approx(shared.sweep["tolerance"] * 12)
    assert study.sweep["low"] * 96 == pytest.approx(shared.sweep["low"] * 12)
    assert all(p.content["sweep"]["tolerance"] == ls.HOST_TOLERANCE for p in exp.points)
    claims = ls.study_claims(study)
    assert any(c.tolerance == f"{ls.HOST_TOLERANCE:g} load" for c in claims)


def test_a_bad_host_port_is_refused(tmp_path):
    with pytest.raises(ParameterError, match="host_port"):
        _study(tmp_path, figures="5", host_port="both")


def test_draw_curves_ends_the_axis_where_asked(tmp_path, monkeypatch):
    from topogen.reproduce import _figs_common

    seen = {}
    monkeypatch.setattr(_figs_common, "save_figure", lambda fig, path: seen.setdefault("fig", fig))
    study = ls.study_of("full", ("uniform",), ["hypercube-64", "clos-256"])
    results = {(c.label, c.panel): _curve_result(c, 200.0, 0.1) for c in study.curves}
    st.draw_curves(results, tmp_path / "f.png", panels=["5a", "8a"], x_scale=96.0, x_max={"5a": 16.0})
    axes = seen["fig"].axes
    assert axes[0].get_xlim() == (0.0, 16.0) and axes[1].get_xlim() == (0.0, 96.0)


@pytest.mark.parametrize("pf, verdict", [(0.13, "holds"), (0.09, "differs")])
def test_host_port_throughput_counts_at_most_the_papers_12_gbits(pf, verdict):
    """With a port per host a direct network may accept more than the paper's 12 Gbit/s per
    host (0.125 of the 96 Gbit/s port); the claims count it at 12, the Clos at its own."""
    keys = ["hypercube-64", "p-hypercube-64", "pf-hypercube-64", "ring6-64", "clos-256", "pf-clos-256"]
    study = ls.study_of("full", ("uniform",), keys, host_port="separate")
    knee = {"hypercube-64": 0.30, "p-hypercube-64": 0.20, "pf-hypercube-64": pf, "ring6-64": 0.25,
            "clos-256": 0.9, "pf-clos-256": 0.5}
    results = {(c.label, c.panel): _curve_result(c, 200.0, knee[c.network]) for c in study.curves}
    table = st.judge(ls.study_claims(study), results).set_index("claim")
    row = table.loc["hypercube versions and RING-6 achieve similar throughput (64 switches)"]
    assert row.verdict == verdict
    assert row.topogen.startswith("0.125, 0.125, ")
    assert table.loc["permuted Myrinet-Clos (80 switches): sensibly the same throughput", "verdict"] == "differs"
    shared = ls.study_of("full", ("uniform",), keys)  # the shared port: no cap (its load 1 is 12 Gbit/s)
    res2 = {(c.label, c.panel): _curve_result(c, 200.0, knee[c.network]) for c in shared.curves}
    t2 = st.judge(ls.study_claims(shared), res2).set_index("claim")
    assert t2.loc["hypercube versions and RING-6 achieve similar throughput (64 switches)", "verdict"] == "differs"
