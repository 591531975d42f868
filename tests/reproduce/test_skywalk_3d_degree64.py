"""Skywalk III-D: "Skywalk with degree 64 leads to maximum latency, resp. average latency,
at most 1.0% larger, resp. 2.3% larger, than either [Dragonfly or HyperX]" at 8,192
switches, measured under every reading (``skywalk-sweeps --figure 7 --readings true``).

The 8,192-switch run takes minutes (its numbers are in docs/reproductions.md); here the
same code runs at 256 and 512 switches, and its numbers are checked against an
independent all-pairs computation (scipy's Dijkstra on the layout's cable delays)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from topogen import registry
from topogen._rng import child_seeds
from topogen.layout import Floor, place
from topogen.reproduce import skywalk_figs as sf

Z, C, DEGREE = 4, 64, 12


@pytest.fixture(scope="module")
def readings():
    seeds = child_seeds(1, 2)
    table, base = sf.fig7_readings(seeds, instances=3, z=Z, c=C, degree=DEGREE, scan=3)
    return seeds, table, base


def _fr_latency(topology, z, c, switch_delay=60.0, injection=300.0):
    """Maximum and average FR latency over ordered pairs of distinct switches, computed
    without topogen's latency code: a path of h hops pays the injection, h + 1 switch
    delays and 5 ns per metre of cable."""
    layout = place(topology, Floor.skywalk(c, z))
    u, v = np.asarray(topology.edges).T
    w = switch_delay + 5.0 * np.asarray(layout.cable_length, float)
    n = topology.num_switches
    g = coo_matrix((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(n, n)).tocsr()
    d = dijkstra(g) + injection + switch_delay
    off = ~np.eye(n, dtype=bool)
    return float(d[off].max()), float(d[off].mean())


def test_every_reading_is_measured(readings):
    _, table, _ = readings
    names = list(table.reading)
    assert any("d_i = 3, d_o = 9" in r and r.endswith("saturate, FR") for r in names)
    assert any("d_i = 1, d_o = 11" in r for r in names)
    assert any("construction=rounds" in r for r in names)
    assert any("diagonal links only" in r for r in names)
    assert any(r.endswith("NR") for r in names)
    assert any("lowest maximum of 3 single instances" in r for r in names)
    assert (table.built == table.seeds).all()


def test_baselines_and_skywalk_match_an_independent_computation(readings):
    seeds, table, base = readings
    for label, name in (("Dragonfly", "cabinet-dragonfly"), ("HyperX", "cabinet-hyperx")):
        topo = registry.get(name).func(switches_per_cabinet=Z, cabinets=C)
        mx, av = _fr_latency(topo, Z, C)
        assert base[label][0] == pytest.approx(mx)
        assert base[label][1] == pytest.approx(av)
    row = table[table.reading == f"d_i = 3, d_o = 9, straight first, saturate, FR"].iloc[0]
    per_seed = []
    for s in seeds:
        topo = registry.get("skywalk").func(switches_per_cabinet=Z, cabinets=C, intra_degree=3,
                                            inter_degree=9, seed=s, instances=3)
        per_seed.append(_fr_latency(topo, Z, C))
    maxima = [m for m, _ in per_seed]
    assert row.max_ns == pytest.approx(np.mean(maxima), abs=0.01)
    assert row.max_ns_min == pytest.approx(min(maxima))
    assert row.avg_ns == pytest.approx(np.mean([a for _, a in per_seed]), abs=0.01)
    # the gaps are the printed percentages of those numbers
    assert row.best_max_vs_df_pct == pytest.approx(100 * (min(maxima) / base["Dragonfly"][0] - 1), abs=0.01)
    assert row.avg_vs_hx_pct == pytest.approx(100 * (row.avg_ns / base["HyperX"][1] - 1), abs=0.01)


def test_the_scan_keeps_the_lowest_maximum(readings):
    seeds, table, _ = readings
    row = table[table.reading.str.contains("single instances")].iloc[0]
    maxima = []
    for s in child_seeds(seeds[0], 3):
        topo = registry.get("skywalk").func(switches_per_cabinet=Z, cabinets=C, intra_degree=3,
                                            inter_degree=9, seed=s, instances=1)
        maxima.append(_fr_latency(topo, Z, C)[0])
    assert row.max_ns == pytest.approx(min(maxima))


def _table(max_df, avg_df):
    return pd.DataFrame([dict(reading="r", seeds=1, built=1, max_ns=1.0, max_ns_min=1.0,
                              best_max_vs_df_pct=max_df, best_max_vs_hx_pct=max_df - 1,
                              avg_vs_df_pct=avg_df, avg_vs_hx_pct=avg_df - 1,
                              meets_both=max_df <= 1.5 and avg_df <= 2.8)])


def test_the_claim_says_whether_a_reading_meets_the_bounds():
    base = {"Dragonfly": (998.5, 706.0), "HyperX": (1008.5, 720.2)}
    ok = sf.fig7_readings_claim(_table(1.2, 2.0), base, 8192, 64)
    assert ok["verdict"] == "agrees" and "1 of 1 readings" in ok["ours"]
    bad = sf.fig7_readings_claim(_table(3.8, 2.2), base, 8192, 64)
    assert bad["verdict"] == "differs"
    assert "+3.80% vs Dragonfly" in bad["ours"] and "998.5 ns" in bad["ours"]


def test_meets_both_uses_the_printed_bounds(readings):
    _, table, _ = readings
    for _, r in table.iterrows():
        worst_max = max(r.best_max_vs_df_pct, r.best_max_vs_hx_pct)
        worst_avg = max(r.avg_vs_df_pct, r.avg_vs_hx_pct)
        assert r.meets_both == (worst_max <= 1.5 and worst_avg <= 2.8)


def test_figure_7_readings_from_the_command(monkeypatch):
    """``--figure 7 --readings true`` adds the table and the claim (run here at 512
    switches instead of 8,192)."""
    monkeypatch.setattr(sf, "SIZES", (128,))
    monkeypatch.setattr(sf, "FIG7_READINGS_CABINETS", 64)
    monkeypatch.setattr(sf, "FIG7_READINGS_DEGREE", 12)
    result = registry.experiment("skywalk-sweeps").func(figure=7, seeds=1, instances=2, readings=True)
    rd = result.extra_tables["readings"]
    assert len(rd) >= 5 and "meets_both" in rd
    claim = result.extra_tables["claims"].iloc[-1]
    assert claim["claim"].startswith("some reading puts degree 12 at 512")
    assert claim["verdict"] in ("agrees", "differs")
    assert any("HyperX" in n and "Table readings" in n for n in result.notes)
