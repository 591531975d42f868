"""``reproduce layout-sim`` (Koibuchi et al. III-C, Figs. 6 and 8)."""

import math

import pandas as pd
import pytest

from topogen.errors import ParameterError
from topogen.reproduce import layout_sim as ls


def _table(traffic, lat, sat):
    return pd.DataFrame([{"key": k, "topology": ls.NETWORKS[k][0], "traffic": traffic,
                          "zero_load_ns": lat[k], "sat_gbps": sat[k]} for k in lat])


def test_printed_percentages_are_checked_within_the_points():
    lat = {"hypercube": 1000.0, "p-hypercube": 830.0, "pf-hypercube": 850.0, "ring8": 700.0,
           "torus4": 1500.0, "p-torus4": 950.0, "pf-torus4": 1000.0, "ring4": 790.0}
    sat = {"hypercube": 10.0, "p-hypercube": 10.5, "pf-hypercube": 10.2, "ring8": 11.0,
           "torus4": 3.0, "pf-torus4": 4.0, "p-torus4": 5.0, "ring4": 6.0}
    c = ls._claims(_table("uniform", lat, sat), points=5.0, similar=0.25).set_index("claim")
    assert c.loc["P-HYPERCUBE latency lower than HYPERCUBE", "ours"] == "17.0 %"
    assert c.loc["P-HYPERCUBE latency lower than HYPERCUBE", "verdict"] == "holds"  # paper 16.5
    assert c.loc["RING-8 latency lower than HYPERCUBE", "verdict"] == "differs"  # 30 % vs 19.4
    assert c.loc["P-TORUS-4 latency lower than PF-TORUS-4", "verdict"] == "holds"  # 5 %
    assert c.loc["RING-4 latency lower than PF-TORUS-4", "verdict"] == "holds"  # 21 %
    assert c.loc["PF-HYPERCUBE inferior to P-HYPERCUBE (latency)", "verdict"] == "holds"
    order = "saturation reached first by TORUS-4, then PF-TORUS-4, P-TORUS-4, RING-4"
    assert c.loc[order, "verdict"] == "holds"
    sat["p-torus4"] = 3.5  # P-TORUS-4 now saturates before PF-TORUS-4
    c = ls._claims(_table("uniform", lat, sat), points=5.0, similar=0.25).set_index("claim")
    assert c.loc[order, "verdict"] == "differs"


def test_the_networks_are_the_papers_sizes():
    for key, n, links in (("ring8", 256, 1023), ("pf-torus4", 256, 512), ("pf-clos", 80, 512)):
        t, r = ls.build(key, 1)
        assert (t.num_switches, t.num_links) == (n, links)
        assert r.algorithm == "escape" and r.num_vcs == 4
    t, _ = ls.build("clos", 1)
    assert t.num_hosts == 256  # Myrinet-Clos keeps its hosts; direct networks get one port each
    assert ls.build("hypercube", 1)[0].num_hosts == 256


def test_bad_arguments_are_one_line_errors():
    with pytest.raises(ParameterError, match="topologies must be 'all' or a comma-separated list"):
        ls.reproduce_layout_sim(topologies="dragonfly")
    with pytest.raises(ParameterError, match="traffic must be 'all'"):
        ls.reproduce_layout_sim(traffic="tornado")
    with pytest.raises(ParameterError, match="need 0 < low < high"):
        ls.reproduce_layout_sim(low=5, high=1)


def test_fig13_claims():
    lat = {"ring8": 560.0, "nbr04": 600.0, "nbr05": 580.0, "gau07": 590.0, "gau10": 570.0}
    sat = {"ring8": 12.0, "nbr04": 6.0, "nbr05": 11.0, "gau07": 7.0, "gau10": 11.5}
    c = ls._claims(_table("transpose", lat, sat), points=5.0, similar=0.25).set_index("claim")
    key = "Fig. 13, transpose: throughput decreases significantly for Nbr(0.4)-8 and Gau(0.7)-8"
    assert c.loc[key, "verdict"] == "holds"
    assert c.loc["Fig. 13, transpose: Gau(0.7)-8 significantly lower than RING-8, Nbr(0.5)-8, Gau(1.0)-8",
                 "verdict"] == "holds"
    sat["nbr04"] = 10.0
    c = ls._claims(_table("transpose", lat, sat), points=5.0, similar=0.25).set_index("claim")
    assert c.loc[key, "verdict"] == "differs"
    assert c.loc["Fig. 13, transpose: Nbr(0.4)-8 significantly lower than RING-8, Nbr(0.5)-8, Gau(1.0)-8",
                 "verdict"] == "differs"
    assert c.loc["Fig. 13, transpose: Gau(0.7)-8 significantly lower than RING-8, Nbr(0.5)-8, Gau(1.0)-8",
                 "verdict"] == "holds"
    c = ls._claims(_table("uniform", lat, dict(sat, nbr04=11.0, gau07=11.2)), points=5.0,
                   similar=0.25).set_index("claim")
    assert c.loc["Fig. 13, uniform: RING-8, Nbr and Gau lead to sensibly the same results",
                 "verdict"] == "holds"
    t, _ = ls.build("nbr05", 1)
    assert (t.num_switches, t.degree) == (256, 8)


def test_fig16_claims_use_the_cable_axis():
    lat = {"p-torus4": 860.0, "nbr05-4": 800.0, "ring4": 745.0, "p-hypercube": 571.0,
           "nbr05": 575.0, "ring8": 557.0}
    sat = {"p-torus4": 4.2, "nbr05-4": 5.5, "ring4": 6.8, "p-hypercube": 11.6, "nbr05": 11.8,
           "ring8": 12.0}
    cab = {"p-torus4": 3.0, "nbr05-4": 4.0, "ring4": 5.0, "p-hypercube": 3.5, "nbr05": 4.5,
           "ring8": 6.0}
    t = _table("uniform", lat, sat)
    t["cable_avg_m"] = [cab[k] for k in t["key"]]
    c = ls._claims(t, points=5.0, similar=0.25).set_index("claim")
    for claim in ("Fig. 16, degree 4: P-TORUS most economical, Nbr(0.5) between, RING most cable",
                  "Fig. 16, degree 4: RING-n highest performance, Nbr(0.5) a compromise",
                  "Fig. 16, degree 8: P-HYPERCUBE best, the others similar or worse at more cable"):
        assert c.loc[claim, "verdict"] == "holds", claim
    t.loc[t.key == "p-hypercube", "cable_avg_m"] = 7.0  # no longer the cheapest
    c = ls._claims(t, points=5.0, similar=0.25).set_index("claim")
    assert c.loc["Fig. 16, degree 8: P-HYPERCUBE best, the others similar or worse at more cable",
                 "verdict"] == "differs"


def test_shortcut_hops_and_the_gau_length_claim():
    from topogen.generators.shortcut import gau, nbr

    t = nbr(256, 8, 0.4, seed=3)
    u, v = t.edges[:, 0].astype(int), t.edges[:, 1].astype(int)
    ring_len = [min((b - a) % 256, (a - b) % 256) for a, b in zip(u, v)]
    short = [h for h in ring_len if h > 1]
    assert len(short) == t.num_links - 256
    assert ls.shortcut_hops(t) == pytest.approx(sum(short) / len(short))
    assert max(short) <= 256 * 0.4 / 2
    # the printed Gau(0.7) (sigma = N * 0.7 / 2 = 89.6 hops, truncated to +-128) is nearly
    # uniform: its shortcuts are far longer than Nbr(0.5)'s (at most 64 hops)
    assert ls.shortcut_hops(gau(256, 8, 0.7, seed=3)) > ls.shortcut_hops(nbr(256, 8, 0.5, seed=3)) + 10
    lat = {"ring8": 560.0, "nbr04": 600.0, "nbr05": 580.0, "gau07": 590.0, "gau10": 570.0}
    sat = {k: 9.0 for k in lat}
    table = _table("transpose", lat, sat)
    key = "IV-B: Gau(0.7)-8's shortcuts about as short as Nbr(0.4/0.5)-8's (mean ring hops)"
    assert key not in set(ls._claims(table, points=5.0, similar=0.25).claim)
    table["shortcut_hops"] = [64.0, 26.0, 33.0, 54.0, 59.0]
    c = ls._claims(table, points=5.0, similar=0.25).set_index("claim")
    assert c.loc[key, "verdict"] == "differs" and "Gau(0.7)-8 54.0" in c.loc[key, "ours"]
    table["shortcut_hops"] = [64.0, 26.0, 33.0, 25.0, 32.0]
    assert ls._claims(table, points=5.0, similar=0.25).set_index("claim").loc[key, "verdict"] == "holds"


def test_separate_host_ports_put_transpose_on_the_2048_hosts(monkeypatch):
    from types import SimpleNamespace

    import topogen.sim.sweep as sw

    t, _ = ls.build("gau07", 1, "separate")
    assert t.num_hosts == 2048 and ls.build("clos", 1, "separate")[0].num_hosts == 256
    calls = []

    def fake(rt, out, **kw):
        calls.append((rt.topology.num_hosts, kw["traffic"], kw["high"]))
        row = {"status": "completed", "offered_load": kw["high"], "hops_avg": 3.0}
        return SimpleNamespace(zero_load_latency=200.0, rows=[row], saturation_load=kw["high"],
                               saturation_upper=math.inf, simulated=1, reused=0)

    monkeypatch.setattr(sw, "sweep", fake)
    res = ls.reproduce_layout_sim(topologies="nbr04", traffic="uniform,transpose", host_port="separate")
    assert calls == [(2048, "uniform", 12.0), (2048, "rotate", 12.0)]
    assert list(res.table["pattern"]) == ["uniform", "rotate"]
    assert list(res.table["hosts"]) == [2048, 2048]
    calls.clear()
    res = ls.reproduce_layout_sim(topologies="nbr04", traffic="transpose")
    assert calls == [(256, "transpose", 96.0)] and "pattern" not in res.table
    assert res.table["shortcut_hops"].iloc[0] > 1
    res = ls.reproduce_layout_sim(topologies="ring8", traffic="uniform")
    assert "shortcut_hops" not in res.table
    assert res.table["sat_gbps"].iloc[0] == 12.0
    with pytest.raises(ParameterError, match="host_port must be"):
        ls.reproduce_layout_sim(host_port="own")
