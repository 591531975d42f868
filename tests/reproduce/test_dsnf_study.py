"""``topogen reproduce dsnf-sim --quick/--full``: DSN-F Figs. 8-9 as an experiment.

The spec of ``--full`` is checked without running anything (the four 128-switch networks
on the IV-C floor, V-A's setup); a study point's simulation is the bisection mode's
model; V-B's claims speak of all four networks; and a tiny study runs end to end."""

from __future__ import annotations

import dataclasses
import math

import pytest


from topogen.reproduce import dsnf_sim as ds
from topogen.reproduce import study as st


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dsnf")
    return ds._expanded({"full": True, "out": str(folder / "full")})


def test_full_spec(full):
    study, exp = full
    assert len(exp.points) == 8
    seen = set()
    for p in exp.points:
        c = study.curve_of(p.content)
        seen.add((c.label, c.panel, p.content["traffic"]))
        m, r, lay = p.content["measure"], p.content["reference"], p.content["layout"]
        assert (m["packet_size"], m["num_vcs"], m["vc_buf_size"], m["flit_bits"]) == (33, 4, 66, 256)
        assert m["link_latency"] is None and m["clock_ns"] == pytest.approx(256 / 96)
        # "over 100ns" per header: 38 cycles; fastest routes weigh 100 ns per switch
        assert r["router_delay"] == math.ceil(100 / (256 / 96)) == 38 and r["switch_delay_ns"] == 100.0
        # IV-C: 16 switches per cabinet; DSN-F on its own cabinets, the others in id order
        assert (lay["switches_per_cabinet"], lay["cabinets"]) == (16, 8)
        assert lay["placement"] == ("native" if c.network == "dsnf" else "sequential")
    assert seen == {(lab, p, t) for lab in ds.NETWORKS.values() for p, t in (("8", "uniform"), ("9", "rotate"))}


def test_study_networks_are_the_papers_and_the_bisection_models(tmp_path):
    """Each network of the study is :func:`topogen.reproduce.dsn.build`'s (same links and
    cable length on the same floor), and a point's simulation is the bisection's."""
    from topogen.experiments import runner
    from topogen.reproduce.dsn import build
    from topogen.routing import escape
    from topogen.sim import SimConfig, simulate

    study = ds.study_of("quick", ("transpose",))
    exp = st.expand(study, tmp_path / "s")
    for p in exp.points:
        spec = runner.crossval_spec(p)
        topo, layout, rt = runner._network(p, spec)
        label = study.curve_of(p.content).label
        t2, lay2 = build(label, 128, seed=1)
        assert topo.num_switches == 128 and sorted(map(tuple, topo.edges.tolist())) == sorted(
            map(tuple, t2.edges.tolist()))
        assert layout.total_cable_length == pytest.approx(lay2.total_cable_length)
        if label == "DLN-4":
            got = runner._reference_run(p, spec, rt, layout)(0.2)
            rt2 = escape(t2, lay2, num_vcs=4, base="fr", switch_delay=100.0)
            cfg = SimConfig(**dict(ds.SIM_CONFIG, warmup_periods=1, sample_period=500, max_samples=4))
            want = simulate(rt2, traffic="rotate", load=0.2, load_unit="flits", config=cfg, seed=1,
                            self_packets=False, layout=lay2)
            for k in ("latency_avg", "accepted_flit_rate", "status"):
                assert got[k] == want[k], k


def test_claims_need_all_four_networks():
    study = ds.study_of("full", ("uniform",))
    claims = ds.study_claims(study)
    assert [c.text for c in claims][:2] == [
        "zero-load latency in the order of the average shortest path length (Fig. 6)",
        "DLN lowest and 2-D torus highest latency (III-C order)"]
    lat = {"DSN-F": 300.0, "DSN": 290.0, "2-D torus": 400.0, "DLN-4": 250.0}
    res = {}
    for c in study.curves:
        rows = [{"offered_load": x, "status": "completed", "accepted_flit_rate": x, "latency_avg": lat[c.label]}
                for x in (0.01, 0.3)] + [{"offered_load": 0.31, "status": "saturated", "accepted_flit_rate": 0.3,
                                          "latency_avg": math.nan}]
        res[c.label, c.panel] = st.CurveResult(c, rows, "done")
    t = st.judge(claims, res).set_index("claim")
    assert t.loc["DLN lowest and 2-D torus highest latency (III-C order)"].verdict == "holds"
    assert t.loc["similar throughput (all within 25% of the best)"].verdict == "holds"
    res["DSN", "8"] = st.CurveResult(res["DSN", "8"].curve, [], "failed", "boom")
    t = st.judge(claims, res).set_index("claim")
    assert (t.verdict == "not run").all()
    # a study of fewer networks has none of these claims (they speak of all four)
    assert ds.study_claims(ds.study_of("full", ("uniform",), ("dsnf", "dln"))) == []


def test_a_tiny_quick_study_runs(tmp_path):
    study = ds.study_of("quick", ("uniform",), ("dsnf", "torus"))
    study = dataclasses.replace(study, sweep={"low": 0.05, "high": 1.0, "tolerance": 0.5, "points": 2},
                                measure=dict(study.measure, sample_period=300, max_samples=3))
    exp = st.expand(study, tmp_path / "tiny")
    res = st.run_study(study, exp, ds.study_claims(study), title="tiny", workers=1)
    assert (tmp_path / "tiny" / "fig.png").stat().st_size > 1000
    assert (res.table.status == "done").all() and set(res.table.curve) == {"DSN-F", "2-D torus"}
    assert res.extra_tables["claims"].empty
    text = ds._announce(quick=True, out=str(tmp_path / "q"))
    assert text.startswith("study dsnf-fig8-9-quick: 8 curves as experiment points")
