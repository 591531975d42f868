"""Layout-conscious Figs. 1, 3, 4, 9-10 and Section V's cost readings, and Skywalk's
II-E path-computation timing: numbers against independent computations (networkx,
hand arithmetic)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from topogen.reproduce import layout_graphs as lg


def _nx_diameter_aspl(topo):
    g = topo.to_networkx()
    return nx.diameter(g), nx.average_shortest_path_length(g)


def test_fig1a_rows_match_networkx():
    t = lg.fig1a_table(6, (2, 3), [1]).set_index("topology")
    from topogen.generators.classic import folded_hypercube, torus
    from topogen.generators.twisted import twisted_hypercube

    for label, topo in (("2-D torus 8x8", torus((8, 8))), ("folded hypercube", folded_hypercube(6)),
                        ("twisted hypercube (twisted cube)", twisted_hypercube(6))):
        d, a = _nx_diameter_aspl(topo)
        assert t.loc[label].diameter == d and t.loc[label].aspl == pytest.approx(a)
        assert t.loc[label].degree == max(dict(topo.to_networkx().degree()).values())
    assert t.loc["RING-2"].diameter == 32  # the plain ring of 64
    assert "4-D torus 4x4x2x2" not in t.index  # sides of 2 are not tori: left out


def test_fig1a_claims_compare_same_degree():
    t = pd.DataFrame([
        dict(topology="T", family="torus", degree=4, diameter=10, aspl=5.0),
        dict(topology="H", family="hypercube", degree=6, diameter=6, aspl=3.0),
        dict(topology="RING-2", family="ring+shortcuts", degree=2, diameter=100, aspl=50.0),
        dict(topology="RING-3", family="ring+shortcuts", degree=3, diameter=8, aspl=4.0),
        dict(topology="RING-4", family="ring+shortcuts", degree=4, diameter=7, aspl=4.0),
        dict(topology="RING-6", family="ring+shortcuts", degree=6, diameter=6, aspl=2.9)])
    c = pd.DataFrame(lg.fig1a_claims(t))
    assert c.verdict.tolist() == ["mixed", "agrees", "agrees"]  # H ties RING-6 on diameter
    assert "H: 6 vs RING-6 6" in c.ours[0]


def test_fig1b_cable_against_hand_layout():
    # hypercube of 64 on 16-switch cabinets, sequential: dimensions 0-3 inside a cabinet
    # (2 m), dimensions 4 and 5 between cabinets 1 and 2 apart in the row-major 2x2 grid
    from topogen.layout import Floor

    t = lg.fig1b_table([6], [1]).set_index("topology")
    f = Floor.for_switches(64, 16)
    assert t.loc["hypercube"].links == 6 * 32
    inter = t.loc["hypercube"].inter_cable_avg_m
    cab = np.arange(64) // 16
    lengths = []
    for u in range(64):
        for b in (4, 5):
            v = u ^ (1 << b)
            if u < v:
                (r1, c1), (r2, c2) = divmod(int(cab[u]), f.columns), divmod(int(cab[v]), f.columns)
                lengths.append(abs(r1 - r2) * 2.1 + abs(c1 - c2) * 0.6 + 4.0)
    assert inter == pytest.approx(np.mean(lengths))
    assert t.loc["hypercube"].cable_avg_m == pytest.approx((4 * 32 * 2.0 + sum(lengths)) / (6 * 32))


def test_fig1b_claim_verdicts():
    t = pd.DataFrame([dict(N=64, topology="hypercube", cable_avg_m=2.0), dict(N=64, topology="RING", cable_avg_m=6.2),
                      dict(N=128, topology="hypercube", cable_avg_m=2.0), dict(N=128, topology="RING", cable_avg_m=4.0)])
    c = pd.DataFrame(lg.fig1b_claims(t))
    assert c.verdict.tolist() == ["mixed"] and "N=64: 3.10x" in c.ours[0]


def test_curves_match_networkx_and_claims():
    t = lg.curves_table(4, [5], [1])
    from topogen.generators.classic import folded_hypercube

    d, a = _nx_diameter_aspl(folded_hypercube(5))
    row = t[t.topology == "FHYPERCUBE"].iloc[0]
    assert row.diameter == d and row.aspl == pytest.approx(a) and row.aspl_n2 == pytest.approx(a * 31 / 32)
    assert set(t.topology) == {"FHYPERCUBE", "P-FHYPERCUBE", "PF-FHYPERCUBE", "RING-(n+1)"}
    assert t[t.topology == "RING-(n+1)"].iloc[0].n == 5


def test_fig4_diameter_exception_reading():
    rows = []
    for n, base, rnd in ((6, 3, 4), (7, 4, 4), (8, 4, 3)):
        rows.append(dict(n=n, topology="FHYPERCUBE", seed=None, diameter=base, aspl_n2=3.0, aspl=3.0))
        for r in ("P-FHYPERCUBE", "PF-FHYPERCUBE", "RING-(n+1)"):
            rows.append(dict(n=n, topology=r, seed=1, diameter=rnd, aspl_n2=2.5, aspl=2.5))
    c = pd.DataFrame(lg.curves_claims(4, pd.DataFrame(rows)))
    row = c[c.claim.str.startswith("no random topology")].iloc[0]
    assert row.verdict == "agrees" and "[6]" in row.ours
    up = c[c.claim.str.contains("by up to")].iloc[0]
    assert up.ours.startswith("1.00") and up.verdict == "differs"


def test_cost_readings_arithmetic():
    # a: two 2 m intra cables; b: one 2 m intra and one 12 m inter cable
    a_len, a_intra = np.array([2.0, 2.0]), np.array([True, True])
    b_len, b_intra = np.array([2.0, 12.0]), np.array([True, False])
    r = lg.cost_readings(a_len, a_intra, b_len, b_intra, grid=2).set_index("reading")
    assert r.loc["flat price per cable"].reduction_max_pct == 0.0
    # intra/inter and copper/optical: a = 2 (50 + i), b = (50 + i) + (c + i); max at c = 200, i = 10
    best = 100 * (1 - 2 * 60 / (60 + 210))
    for k in ("intra-cabinet $50, inter-cabinet c", "copper $50 up to 10 m, optical c beyond",
              "linear in length, $50 (shortest) .. c (longest)"):
        assert r.loc[k].reduction_max_pct == pytest.approx(best, abs=0.01)
    # per metre: c L / 12 + i; at c = 200, i = 10: a = 2 (33.33 + 10), b = (33.33 + 10) + (200 + 10)
    pm = 100 * (1 - 2 * (200 * 2 / 12 + 10) / ((200 * 2 / 12 + 10) + 210))
    assert r.loc["per metre, c for the longest cable"].reduction_max_pct == pytest.approx(pm, abs=0.01)


def test_layout_cost_small_end_to_end(tmp_path):
    out = tmp_path / "cost.png"
    res = lg.reproduce_layout_cost(exponent=6, seeds=1, iterations=0, plot=str(out))
    assert out.exists() and out.stat().st_size > 0
    cab = res.extra_tables["cables"]
    assert (cab.p_hypercube_links == 6 * 32).all() and np.allclose(cab.p_hypercube_intra_share, 4 / 6)
    assert set(res.table.ring_layout) == {"sequential", "walktrap+SA"}
    assert res.extra_tables["claims"].verdict.iloc[0] in ("agrees", "differs")


def test_cli_layout_fig3_writes_plot(tmp_path, capsys):
    import topogen.cli as cli

    out = tmp_path / "f3.svg"
    code = cli.main(["reproduce", "layout-fig3", "--min-exponent", "5", "--max-exponent", "6", "--seeds", "1",
                     "--plot", str(out)])
    assert code == 0 and out.exists()
    assert "every random topology improves the diameter" in capsys.readouterr().out


def test_cli_bad_exponent(capsys):
    import topogen.cli as cli

    code = cli.main(["reproduce", "layout-fig1", "--exponent", "3"])
    err = capsys.readouterr().err
    assert code not in (0, 70) and "exponent" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- Skywalk
def test_paths_timing_engines_agree():
    from topogen.reproduce.skywalk import paths_timing

    t = paths_timing(seed=1, cabinets=64)
    assert list(t.engine) == ["auto", "scipy"] and (t.switches == 512).all() and (t.degree <= 16).all()
    assert t.fr_max_ns.nunique() == 1 and np.allclose(t.fr_avg_ns, t.fr_avg_ns.iloc[0])
    assert (t.cpu_s >= 0).all() and t.cpu.iloc[0]


def test_fig3_readings_gap_matches_direct_measurement():
    from topogen import registry
    from topogen.generators.skywalk import skywalk_bounds
    from topogen.layout import Floor, place
    from topogen.metrics import latency_stats
    from topogen.reproduce import skywalk_figs as sf

    c = 16
    rd = sf.fig3_readings([7], instances=1, cabinets=(c,), delays=(40.0,), routings=("nr",),
                          constructions=("rounds",))
    b = skywalk_bounds(8, c)
    d_o = min(b["straight_max"], b["diagonal_max"])
    avg = []
    for dd in (0, 1):
        topo = registry.get("skywalk").func(switches_per_cabinet=8, cabinets=c, intra_degree=7,
                                            straight_degree=d_o - dd, diagonal_degree=dd, seed=7, instances=1,
                                            construction="rounds")
        avg.append(latency_stats(place(topo, Floor.skywalk(c, 8)), switch_delay=40.0, routing="nr").avg)
    assert rd.iloc[0][f"gap_c{c}_pct"] == pytest.approx(100 * (avg[0] / avg[1] - 1), abs=0.001)
    assert list(rd.columns[:3]) == ["construction", "routing", "switch_delay"]


def test_fig9_10_cable_claims_and_unmeasured_simulation():
    from topogen.generators.classic import hypercube
    from topogen.layout import Floor, place

    res = lg.reproduce_layout_fig9_10(seeds=1, iterations=0)
    t = res.table.set_index("topology")
    # permutation keeps every cable: P-HYPERCUBE's cable is the hypercube's sequential one
    lay = place(hypercube(8), Floor.for_switches(256, 16), "sequential")
    assert t.loc["P-HYPERCUBE"].cable_avg == pytest.approx(lay.cable_length.mean(), abs=1e-3)
    c = res.extra_tables["claims"]
    cable = c[c.claim.str.contains("cable length")]
    assert len(cable) == 4 and set(cable.verdict) <= {"agrees", "differs"}
    v = 100 * (t.loc["RING-8"].cable_avg / t.loc["P-HYPERCUBE"].cable_avg - 1)
    assert f"{v:+.1f} %" in cable[cable.claim.str.startswith("RING-8") & cable.claim.str.contains("all cables")].ours.iloc[0]
    sim = c[c.claim.str.contains("simulated")]
    assert len(sim) == 4 and (sim.verdict == "not measured").all() and sim.ours.str.contains("layout-sim").all()
