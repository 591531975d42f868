"""``topogen reproduce slimfly-sim --full`` expands to the paper's Fig. 6 (Slim Fly V) without
running anything: the networks at the paper's sizes, the curves of the four panels, the
simulator setup of V and sweeps resolved to 0.02 near the knee."""

from __future__ import annotations

import numpy as np
import pytest

from topogen.registry import generate
from topogen.reproduce import slimfly_sim as sfs
from topogen.reproduce import study as st
from topogen.sim.traffic import Traffic


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    folder = tmp_path_factory.mktemp("full")
    study, exp = sfs._expanded({"full": True, "panels": "all", "out": str(folder / "fig6")})
    nets = {k: generate(n.generator, **n.params) for k, n in study.networks.items()}
    return study, exp, nets


def test_the_paper_networks_at_the_paper_sizes(full):
    study, _, nets = full
    sf, df, ft = nets["SF"], nets["DF"], nets["FT"]
    # SF: q = 19, N_r = 2 q^2 = 722, k' = (3q - delta)/2 = 29, p = 15, N = 10,830 (V)
    assert (sf.num_switches, sf.degree, int(sf.hosts[0]), sf.num_hosts) == (722, 29, 15, 10830)
    # balanced Dragonfly k = 27, p = 7: a = 14 routers per group, h = 7, a*h + 1 = 99 groups
    assert (df.num_switches, df.num_hosts, int(df.hosts[0])) == (1386, 9702, 7)
    assert df.degree + int(df.hosts[0]) == 27  # router radix k = a - 1 + h + p
    # FT: comparison_network's fat tree, within 10 % of SF's endpoints as V requires
    assert abs(ft.num_hosts - sf.num_hosts) <= 0.1 * sf.num_hosts
    assert study.networks["FT"].generator == sfs.comparison_network("FT", 19).name


def test_the_curves_of_the_four_panels(full):
    study, exp, nets = full
    assert len(exp.points) == 4 * (len(sfs.ROUTINGS) + len(sfs.COMPARISONS)) == len(study.curves)
    by_panel = {}
    for p in exp.points:
        c = study.curve_of(p.content)
        by_panel.setdefault(c.panel, set()).add((c.label, p.content["routing"], p.content["traffic"]))
    half = nets["FT"].num_hosts // 2
    ft_routing = sfs.COMPARISONS["FT-ANCA"][1]
    sf = {("SF-MIN", "hop"), ("SF-VAL", "valiant"), ("SF-UGAL-L", "ugal-l"), ("SF-UGAL-G", "ugal-g")}
    for panel, traffic in (("6a", "uniform"), ("6b", "bitrev"), ("6c", "shift")):
        assert by_panel[panel] == {(a, r, traffic) for a, r in sf} | {("DF-UGAL-L", "ugal-l", traffic),
                                                                       ("FT-ANCA", ft_routing, traffic)}
    assert by_panel["6d"] == {(a, r, "worstcase") for a, r in sf} | {("DF-UGAL-L", "ugal-l", "groupshift"),
                                                                      ("FT-ANCA", ft_routing, f"shift:{half}")}


def test_the_setup_of_section_v(full):
    _, exp, _ = full
    for p in exp.points:
        m, ref, sw = p.content["measure"], p.content["reference"], p.content["sweep"]
        assert (m["packet_size"], m["credit_delay"], m["link_latency"]) == (1, 2, 1)
        assert m["num_vcs"] >= 3 and ref["port_buffer"] == 64
        assert ref["internal_speedup"] == 2.0 and ref["candidates"] == 4 and ref["routing_base"] == "nr"
        assert (m["warmup_periods"], m["max_samples"]) == (3, 10)
        # a sample period holds over 10,000 packets of SF q=19's 10,830 endpoints at the lowest load
        assert m["sample_period"] * 10830 * sw["low"] / m["packet_size"] >= 10_000
        assert p.content["load"] == "sweep" and sw["tolerance"] <= st.KNEE_RESOLUTION and sw["points"] >= 8
        assert p.content["simulator"] == "reference"


def test_bit_permutations_run_on_8192_active_endpoints(full):
    _, _, nets = full
    rng = np.random.default_rng(1)
    for t in nets.values():
        for pattern in ("bitrev", "shift"):
            assert len(Traffic(pattern, t.num_hosts, rng).active) == 8192


def test_quick_is_todays_small_size_with_the_same_setup(tmp_path):
    study, exp = sfs._expanded({"quick": True, "out": str(tmp_path / "q")})
    assert study.networks["SF"].params == {"q": 3}
    assert len(exp.points) == len(study.curves) == 24
    assert exp.points[0].content["reference"] == sfs.STUDY_REFERENCE
    full_ids = {p.id for p in sfs._expanded({"full": True, "out": str(tmp_path / "f")})[1].points}
    assert not full_ids & {p.id for p in exp.points}


def test_the_vcs_share_64_flits_per_port(tmp_path):
    # the resolved simulator setup of a point: at least 3 VCs, a multiple of the routing's
    # hop-indexed count, 64 flits per port (quick networks: the same rule at any size)
    from topogen.experiments.runner import crossval_spec, point_routing, reference_config

    study, exp = sfs._expanded({"quick": True, "out": str(tmp_path / "q"), "traffic": "uniform"})
    seen = {}
    for p in exp.points:
        spec = crossval_spec(p)
        from topogen.experiments.simulators import build_network

        topo, layout = build_network(spec, spec.seed)
        rt = point_routing(p, spec, topo, None)
        cfg = reference_config(p, spec, rt)
        label = study.curve_of(p.content).label
        seen[label] = (cfg.num_vcs, cfg.vc_buf_size)
        assert cfg.num_vcs >= 3 and cfg.num_vcs % rt.num_vcs == 0
        assert cfg.num_vcs * cfg.vc_buf_size <= 64 < (cfg.num_vcs + 1) * cfg.vc_buf_size + cfg.num_vcs
        assert cfg.internal_speedup == 2.0 and cfg.credit_delay == 2 and cfg.packet_size == 1
    assert seen["SF-MIN"] == seen["SF-VAL"] == (4, 16) and seen["DF-UGAL-L"] == (6, 10)


def test_plan_estimates_before_the_run(full):
    study, exp, _ = full
    pl = st.plan(study, exp, seconds_per_hop=sfs.CPU_SECONDS_PER_PACKET_HOP)
    assert pl["pending"] == 24 and pl["simulations"] >= 24 * 10
    assert pl["cpu_minutes"] > 60  # the paper's sizes: hours of CPU on the reference simulator
    text = sfs._study_announce(full=True, panels="all", out=str(exp.path.parent))
    assert "24 to run" in text and "CPU minutes" in text
