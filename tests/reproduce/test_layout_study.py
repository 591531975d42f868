"""``topogen reproduce layout-sim --quick/--full``: the layout-conscious paper's Figs. 5-8
and 13 as an experiment.

The spec of ``--full`` is checked without running anything (64, 256 and 512 switches,
the 80- and 160-switch Myrinet-Clos, the constrained shortcuts, III-C1's setup); a study
point's simulation is the bisection mode's model; the claims follow the strict rules;
and a tiny study runs end to end."""

from __future__ import annotations

import dataclasses
import math

import pytest

from topogen import registry
from topogen.registry import generate
from topogen.reproduce import layout_sim as ls
from topogen.reproduce import study as st


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    return ls._expanded({"full": True, "traffic": "all", "out": str(folder / "full")})


def test_full_spec_has_every_figure(full):
    study, exp = full
    panels: dict = {}
    for p in exp.points:
        c = study.curve_of(p.content)
        panels.setdefault(c.panel, set()).add(c.label)
        m, r = p.content["measure"], p.content["reference"]
        # III-C1: 33-flit packets of 256 bits, 4 VCs, 96 Gbit/s; 100 ns switches = 38 cycles of
        # 2.667 ns (37.5 rounded up); flit injection and link delay together 20 ns = 8 cycles
        assert (m["packet_size"], m["num_vcs"], m["flit_bits"], m["link_latency"]) == (33, 4, 256, 8)
        assert r["router_delay"] == math.ceil(100 / (256 / 96)) == 38 and r["routing_base"] == "nr"
        # Duato's protocol: DOR escape paths on the hypercubes and tori, up*/down* on the others
        dor_escape = p.content["topology"]["generator"] in ("hypercube", "torus")
        assert p.content["routing"] == ("escape-dor" if dor_escape else "escape")
        assert p.content["sweep"]["tolerance"] == st.KNEE_RESOLUTION
    cubes = {"HYPERCUBE", "P-HYPERCUBE", "PF-HYPERCUBE"}
    for letter in "abc":  # Figs. 5-7: uniform, transpose, bit reversal
        assert panels[f"5{letter}"] == cubes | {"RING-6"}
        assert panels[f"6{letter}"] == cubes | {"RING-8", "TORUS-4", "P-TORUS-4", "PF-TORUS-4", "RING-4"}
        assert panels[f"7{letter}"] == cubes | {"RING-9"}
    for letter in "ab":  # Figs. 8 and 13: uniform and transpose (bit reversal omitted in the paper)
        assert panels[f"8{letter}"] == {"Myrinet-Clos 80", "PF-Myrinet-Clos 80", "Myrinet-Clos 160",
                                        "PF-Myrinet-Clos 160"}
        assert panels[f"13{letter}"] == {"Nbr(0.4)-8", "Nbr(0.5)-8", "Gau(0.7)-8", "Gau(1.0)-8"}
    assert "8c" not in panels and "13c" not in panels
    # RING-8's curves are drawn in Fig. 13 too, without a second simulation
    ring = [c for c in study.curves if c.network == "ring8-256"]
    assert {c.also for c in ring} == {("13a",), ("13b",), ()}
    assert len(exp.points) == len(study.curves) == 4 * 3 + 8 * 3 + 4 * 3 + 4 * 2 + 4 * 2 == 64


def test_full_networks_have_the_paper_sizes(full):
    study, _ = full
    want = {"5": (64, 6), "6": (256, None), "7": (512, 9), "13": (256, 8)}
    figs = {c.network: c.panel.rstrip("abc") for c in study.curves}
    for key, net in study.networks.items():
        seeded = "seed" in [p.name for p in registry.get(net.generator).params]
        t = generate(net.generator, **net.params, **({"seed": 1} if seeded else {}))
        fig = figs[key]
        if fig == "8":  # Myrinet-Clos: 80 switches for 256 hosts, 160 for 512 (Fig. 8)
            assert (t.num_switches, t.num_hosts) in ((80, 256), (160, 512))
            continue
        n, degree = want[fig]
        assert t.num_switches == n and t.num_hosts == n  # one shared host port per switch
        if degree is not None:
            assert t.degree == degree, key


def test_a_study_point_is_the_bisection_model(tmp_path):
    from topogen.experiments import runner
    from topogen.sim import SimConfig, simulate

    study = ls.study_of("quick", ("transpose",), ("p-hypercube-256",))
    exp = st.expand(study, tmp_path / "s")
    p = exp.points[0]
    spec = runner.crossval_spec(p)
    _, layout, rt = runner._network(p, spec)
    got = runner._reference_run(p, spec, rt, layout)(0.2)
    _, rt2 = ls.build("p-hypercube", 1)
    cfg = SimConfig(**dict(ls.SIM_CONFIG, warmup_periods=1, sample_period=500, max_samples=4))
    want = simulate(rt2, traffic="transpose", load=0.2 * 96, load_unit="gbps", config=cfg, seed=1, self_packets=False)
    for k in ("latency_avg", "accepted_flit_rate", "hops_avg", "status", "sim_cycles"):
        assert got[k] == want[k], k


def _res(study, label, panel, sustained, saturated, lat):
    c = next(c for c in study.curves if c.label == label and panel in (c.panel, *c.also))
    rows = [{"offered_load": x, "status": "completed", "accepted_flit_rate": x, "latency_avg": lat}
            for x in (0.01, sustained)]
    if saturated is not None:
        rows.append({"offered_load": saturated, "status": "saturated", "accepted_flit_rate": saturated,
                     "latency_avg": math.nan})
    return st.CurveResult(dataclasses.replace(c, panel=panel, also=()), rows, "done")


def test_the_saturation_order_claim_needs_all_four_resolved():
    study = ls.study_of("quick", ("uniform",))
    claims = ls.study_claims(study)
    text = "saturation reached first by TORUS-4, then PF-TORUS-4, P-TORUS-4, RING-4"
    lab = {c.network: c.label for c in study.curves}
    sats = {"torus4-256": 0.3, "pf-torus4-256": 0.4, "p-torus4-256": 0.5, "ring4-256": 0.6}
    res = {}
    for c in study.curves:
        s = sats.get(c.network, 0.5)
        res[c.label, c.panel] = _res(study, c.label, c.panel, s, s + 0.01, 100.0)
    t = st.judge(claims, res)
    row = t[t.claim == text].iloc[0]
    assert row.verdict == "holds" and row.panel == "6a"
    res[lab["pf-torus4-256"], "6a"] = _res(study, lab["pf-torus4-256"], "6a", 0.55, 0.56, 100.0)
    t = st.judge(claims, res)
    assert t[t.claim == text].iloc[0].verdict == "differs"
    res[lab["pf-torus4-256"], "6a"] = _res(study, lab["pf-torus4-256"], "6a", 0.35, 0.45, 100.0)  # knee 0.1 wide
    t = st.judge(claims, res)
    assert t[t.claim == text].iloc[0].verdict == "unresolved"


def test_a_tiny_quick_study_runs(tmp_path):
    study = ls.study_of("quick", ("uniform",), ("clos-256", "pf-clos-256"))
    study = dataclasses.replace(study, sweep={"low": 0.05, "high": 1.0, "tolerance": 0.5, "points": 2},
                                measure=dict(study.measure, sample_period=300, max_samples=3))
    exp = st.expand(study, tmp_path / "tiny")
    res = st.run_study(study, exp, ls.study_claims(study), title="tiny", workers=1,
                       draw={"x_scale": {"8a": ls.GBPS_OWN}})
    assert (tmp_path / "tiny" / "fig.png").stat().st_size > 1000
    assert (res.table.status == "done").all() and len(res.table) == 2
    claims = res.extra_tables["claims"].set_index("claim")
    lat = claims.loc["permuted Myrinet-Clos (80 switches): latency lower (up to 23.4 %)"]
    assert lat.verdict in ("holds", "differs")  # a latency claim is judged on any sweep
    assert claims.loc["permuted Myrinet-Clos (80 switches): sensibly the same throughput"].verdict in (
        "unresolved", "holds", "differs")
    # the 160-switch Clos is not in this study: no claim about it
    assert not any("160" in c for c in claims.index)
