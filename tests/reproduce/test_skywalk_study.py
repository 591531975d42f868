"""``topogen reproduce skywalk-sim --quick/--full``: Skywalk Fig. 11 as an experiment.

The spec of ``--full`` is checked without running anything (the ten networks of IV-B at
256 switches on the 64-cabinet floor, the three panels, IV-A's setup); a study point's
simulation is the bisection mode's model (the same row at the same load); the claims of
IV-B follow the strict rules on synthetic curves; and a tiny study runs end to end."""

from __future__ import annotations

import dataclasses
import math

import pytest

from topogen.registry import generate
from topogen.reproduce import skywalk_sim as sw
from topogen.reproduce import study as st


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fig11")
    return sw._expanded({"full": True, "traffic": "all", "out": str(folder / "full")})


def test_full_spec_is_the_paper_comparison(full):
    study, exp = full
    assert len(exp.points) == len(sw.NETWORKS) * 3 == 30
    seen = set()
    for p in exp.points:
        c = p.content
        curve = study.curve_of(c)
        assert curve is not None and curve.routing == c["routing"] == "escape"
        seen.add((curve.network, curve.panel, c["traffic"]))
        # IV-A: 33-flit packets of 256 bits, 96 Gbit/s links (one flit per 256/96 ns), 4 VCs
        m = c["measure"]
        assert (m["packet_size"], m["num_vcs"], m["vc_buf_size"], m["flit_bits"]) == (33, 4, 66, 256)
        assert m["clock_ns"] == pytest.approx(256 / 96) and m["link_latency"] is None  # cables of the layout
        assert (m["warmup_periods"], m["sample_period"], m["max_samples"]) == (3, 1000, 10)
        # 60 ns switches: 23 cycles of 2.667 ns (22.5 rounded up); FR routes weigh 60 ns per switch
        r = c["reference"]
        assert r["router_delay"] == math.ceil(60 / (256 / 96)) == 23
        assert (r["routing_base"], r["switch_delay_ns"], r["self_packets"]) == ("fr", 60.0, False)
        # the III-A floor: 64 cabinets of 4 switches
        assert (c["layout"]["switches_per_cabinet"], c["layout"]["cabinets"]) == (4, 64)
        assert c["sweep"] == {"low": 0.01, "high": 1.0, "tolerance": st.KNEE_RESOLUTION, "points": 10}
        assert c["topology"]["params"]["hosts_per_switch"] == 1  # one shared 96 Gbit/s port per switch
    want = {(k, p, sw.PATTERNS[t]) for k in sw.NETWORKS for t, p in sw.PANELS.items()}
    assert seen == want
    assert sw.PATTERNS["transpose"] == "rotate"


def test_full_networks_have_the_paper_sizes_and_degrees(full):
    study, _ = full
    for key, net in study.networks.items():
        t = generate(net.generator, **net.params, **({"seed": 1} if net.generator in ("random", "skywalk") else {}))
        assert t.num_switches == 256 and t.num_hosts == 256
        assert t.degree == sw.NETWORKS[key][3], key  # the degree IV-B states


def test_a_study_point_is_the_bisection_model(tmp_path):
    """The point's simulation at a load is the bisection mode's at the same load per host."""
    from topogen.experiments import runner
    from topogen.sim import SimConfig, simulate

    study = sw.study_of("quick", ("transpose",), ("torus",))
    exp = st.expand(study, tmp_path / "s")
    p = exp.points[0]
    spec = runner.crossval_spec(p)
    _, layout, rt = runner._network(p, spec)
    got = runner._reference_run(p, spec, rt, layout)(0.2)
    _, lay2 = sw.build("torus", 1, 1)
    rt2 = sw.make_routing(lay2, "escape")
    cfg = SimConfig(**dict(sw.SIM_CONFIG, warmup_periods=1, sample_period=500, max_samples=4))
    want = simulate(rt2, traffic="rotate", load=0.2 * sw.GBPS_PER_LOAD * sw.HOSTS, load_unit="gbps", config=cfg,
                    seed=1, self_packets=False, layout=lay2)
    for k in ("latency_avg", "accepted_flit_rate", "hops_avg", "status", "sim_cycles"):
        assert got[k] == want[k], k


def _res(study, label, panel, sustained, saturated, lat=100.0):
    c = next(c for c in study.curves if (c.label, c.panel) == (label, panel))
    rows = [{"offered_load": x, "status": "completed", "accepted_flit_rate": x, "latency_avg": lat}
            for x in (0.01, sustained)]
    if saturated is not None:
        rows.append({"offered_load": saturated, "status": "saturated", "accepted_flit_rate": saturated * 0.9,
                     "latency_avg": math.nan})
    return st.CurveResult(c, rows, "done")


def _results(study, sat: dict, lat: dict, panel="11c", width=0.01):
    out = {}
    for k, (label, *_rest) in sw.NETWORKS.items():
        s = sat[k]
        out[label, panel] = _res(study, label, panel, s, None if s >= 1.0 else s + width, lat[k])
    return out


def _verdict(table, text, panel="11c"):
    rows = table[(table.claim == text) & (table.panel == panel)]
    assert len(rows) == 1, text
    return rows.iloc[0]


def test_claims_follow_the_strict_rules():
    study = sw.study_of("full", ("transpose",))
    claims = sw.study_claims(study)
    lat = {k: 500.0 - i for i, k in enumerate(sw.NETWORKS)}  # torus slowest ... hyperx fastest
    sat = {k: 0.5 for k in sw.NETWORKS}
    sat.update(torus=0.3, hyperx=1.0, skywalk7=0.45)  # HyperX sustains the whole port: 12 Gbit/s/host
    t = st.judge(claims, _results(study, sat, lat))
    assert _verdict(t, "Torus has the worst throughput").verdict == "holds"
    assert _verdict(t, "HyperX achieves the best throughput overall").verdict == "holds"  # capped curve counts
    # Skywalk 7 below Random 7 by more than the knee resolution (0.05 of the port = 0.6 Gbit/s/host)
    r = _verdict(t, "Skywalk throughput similar to or better than Random at degree 7")
    assert r.verdict == "differs" and "Random sustains more" in r.reason
    assert _verdict(t, "Skywalk throughput similar to or better than Random at degree 9").verdict == "holds"
    # a knee wider than 0.02 makes every saturation claim on that curve unresolved
    res = _results(study, sat, lat)
    res["Torus(4,64,6)", "11c"] = _res(study, "Torus(4,64,6)", "11c", 0.3, 0.35, lat["torus"])
    t2 = st.judge(claims, res)
    assert _verdict(t2, "Torus has the worst throughput").verdict == "unresolved"
    assert _verdict(t2, "Torus and Hypercube lead to the highest latency").verdict == "holds"  # latency: no knee
    # a network that did not run makes every claim about it "not run"
    res["Dragonfly(4,64,19)", "11c"] = st.CurveResult(res["Dragonfly(4,64,19)", "11c"].curve, [], "missing")
    t3 = st.judge(claims, res)
    assert _verdict(t3, "HyperX achieves the best throughput overall").verdict == "not run"
    assert _verdict(t3, "Skywalk latency lower than Random at degree 7").verdict == "holds"  # not about DF


def test_plan_is_announced_and_the_bisection_mode_is_unchanged(tmp_path):
    text = sw._announce(full=True, traffic="all", out=str(tmp_path / "f"))
    assert text.startswith("study skywalk-fig11-full: 30 curves as experiment points, 30 to run")
    assert "CPU minutes" in text
    # without --quick/--full the CLI prints the bisection's recorded estimate (README's main job)
    from topogen.reproduce.plans import estimate_text

    assert sw._announce() is None and sw._announce(traffic="all") is None
    assert estimate_text("skywalk-sim").startswith("10 sweeps, 10 to 70 simulations")
    assert sw._announce(full=True, plan=True) == ""  # --plan runs nothing: no plan line
    from topogen.errors import ParameterError

    with pytest.raises(ParameterError, match="exactly one of --quick"):
        sw._expanded({"quick": True, "full": True})


def test_a_tiny_quick_study_runs_and_judges(tmp_path):
    """Two networks, one panel, a coarse sweep: the spec runs, the curves are drawn, the
    claims table names why a claim about all ten networks cannot be judged."""
    study = sw.study_of("quick", ("uniform",), ("torus", "hyperx"))
    study = dataclasses.replace(study, sweep={"low": 0.05, "high": 1.0, "tolerance": 0.5, "points": 2},
                                measure=dict(study.measure, sample_period=300, max_samples=3))
    exp = st.expand(study, tmp_path / "tiny")
    res = st.run_study(study, exp, sw.study_claims(study), title="tiny", workers=1,
                       draw={"x_scale": sw.GBPS_PER_LOAD, "y_scale": sw.CYCLE_NS})
    assert (tmp_path / "tiny" / "fig.png").stat().st_size > 1000
    curves = res.table.set_index("curve")
    assert set(curves.index) == {"Torus(4,64,6)", "HyperX(4,64,17)"}
    assert (curves.status == "done").all() and (curves.loads >= 3).all()
    claims = res.extra_tables["claims"]
    # knees at 0.5 resolution: the throughput claims cannot be judged
    torus = _verdict(claims, "Torus has the worst throughput", "11a")
    assert torus.verdict in ("unresolved", "holds")
    if torus.verdict == "holds":  # only when both sustained the whole port (capped)
        assert (curves.sustained >= 1.0).all()
    rows = (tmp_path / "tiny" / "curves.csv").read_text().splitlines()
    assert rows[0] == "panel,curve,offered,accepted,latency_cycles,hops_avg,status" and len(rows) > 6


def test_reference_keys_of_the_paper_setup_are_checked(tmp_path):
    from topogen.errors import ParameterError

    study = sw.study_of("quick", ("uniform",), ("torus",))
    for bad, match in (({"router_delay": 3}, "at least 4"), ({"switch_delay_ns": -1.0}, "delay >= 0"),
                       ({"self_packets": 1}, "true/false")):
        broken = dataclasses.replace(study, reference=dict(study.reference, **bad))
        with pytest.raises(ParameterError, match=match):
            st.expand(broken, tmp_path / str(len(bad)) / next(iter(bad)))
    # each key enters the point's id only when given
    a = st.expand(study, tmp_path / "a").points[0]
    plain = dataclasses.replace(study, reference={k: v for k, v in study.reference.items()
                                                  if k not in ("router_delay", "switch_delay_ns", "self_packets")})
    b = st.expand(plain, tmp_path / "b").points[0]
    assert a.id != b.id and "router_delay" not in b.content["reference"]
