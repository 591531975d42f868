"""``topogen reproduce skywalk-sweeps``: the figure computations against independent
ones (networkx Dijkstra / BFS on tiny floors) and the command end to end."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import topogen.cli as cli
from topogen import registry
from topogen.reproduce import _figs_common as fc
from topogen.reproduce import skywalk_figs as sf
from topogen.layout import Floor, place


def _nx_latency(topology, floor, switch_delay, routing):
    """Max and average latency by networkx: FR = Dijkstra on switch + cable delay,
    NR = fewest hops, lowest cable delay among them (lexicographic weights)."""
    layout = place(topology, floor)
    g = nx.Graph()
    for (u, v), ns in zip(topology.edges, layout.link_delay):
        if routing == "fr":
            g.add_edge(int(u), int(v), w=switch_delay + float(ns))
        else:
            g.add_edge(int(u), int(v), w=1e6 + float(ns))
    lat = []
    for s, dist in nx.all_pairs_dijkstra_path_length(g, weight="w"):
        for t, d in dist.items():
            if s == t:
                continue
            if routing == "nr":
                hops, cable = divmod(d, 1e6)
                hops = round(hops)
                cable = d - hops * 1e6
                d = hops * switch_delay + cable
            lat.append(d + switch_delay + 300.0)
    return max(lat), float(np.mean(lat))


@pytest.mark.parametrize("routing", ["fr", "nr"])
def test_measure_matches_networkx(routing):
    net = dict(label="sky", family="skywalk", name="skywalk", z=4, c=9,
               params=dict(switches_per_cabinet=4, cabinets=9, intra_degree=2, inter_degree=2))
    seeds = [5, 6]
    runs = sf._run([net], seeds, delays=(20.0, 60.0), routing=routing, build={"instances": 2})
    assert len(runs) == 4 and (runs.error == "").all()
    for s in seeds:
        topo = registry.get("skywalk").func(**net["params"], seed=s, instances=2)
        for d in (20.0, 60.0):
            mx, avg = _nx_latency(topo, Floor.skywalk(9, 4), d, routing)
            row = runs[(runs.seed == s) & (runs.switch_delay == d)].iloc[0]
            assert row.max_ns == pytest.approx(mx, abs=1e-6)
            assert row.avg_ns == pytest.approx(avg, rel=1e-9)
            assert row.degree == topo.degree


def test_measure_records_unbuildable_instances():
    # d_i = 0, d_o = 1 on 2 x 2 cabinets of 3 switches cannot be connected
    net = dict(label="sky", family="skywalk", name="skywalk", z=3, c=4,
               params=dict(switches_per_cabinet=3, cabinets=4, intra_degree=0, inter_degree=1))
    runs = sf._run([net], [1], build={"instances": 1})
    assert runs.error.iloc[0] and math.isnan(runs.max_ns.iloc[0])
    table = sf._table(runs, ["label"])
    assert table.built.iloc[0] == 0 and table.seeds.iloc[0] == 1


def test_table_mean_and_range_over_seeds():
    runs = pd.DataFrame({"label": ["a"] * 3 + ["b"], "max_ns": [1.0, 4.0, 2.0, 7.0],
                         "avg_ns": [1.0, 1.0, 1.0, 2.0]})
    t = fc.aggregate(runs, ["label"], ["max_ns", "avg_ns"]).set_index("label")
    assert t.loc["a", "max_ns"] == pytest.approx(7 / 3)
    assert t.loc["a", "max_ns_range"] == 3.0
    assert t.loc["b", "max_ns_range"] == 0.0 and t.loc["a", "seeds"] == 3


def test_claim_verdicts():
    assert fc.claim_value("x", "c", 10.0, [10.4])["verdict"] == "agrees"
    assert fc.claim_value("x", "c", 10.0, [6.0, 11.0])["verdict"] == "within noise"
    assert fc.claim_value("x", "c", 10.0, [14.0, 15.0])["verdict"] == "differs"
    assert fc.claim_value("x", "c", 5.0, [4.0, 5.2], bound="upper", tol=0.5)["verdict"] == "agrees"
    assert fc.claim_value("x", "c", 5.0, [4.0, 6.0], bound="upper", tol=0.5)["verdict"] == "mixed"
    assert fc.claim_holds("x", "c", "yes", [True, False])["verdict"] == "mixed"
    assert fc.claim_holds("x", "c", "yes", [False])["verdict"] == "differs"


def test_crossing_interpolates():
    assert sf._crossing([0, 10, 20], [4, 2, -2]) == pytest.approx(15.0)
    assert math.isnan(sf._crossing([0, 10], [1, 1]))
    assert sf._crossing([0, 10], [-1, 1]) == -math.inf


def test_fig9_split():
    from topogen.generators.skywalk import skywalk_bounds

    assert sf._split(8, 256, 8) == (4, 4)
    assert sf._split(1, 2048, 16) == (0, 16)
    assert sf._split(2048, 1, 8) == (8, 0)
    assert sf._split(4, 512, 32) == (3, 29)
    # at z = 32 the 8 x 8 grid allows d_o <= 1 + 2: the rest goes inside
    b = skywalk_bounds(32, 64)
    assert sf._split(32, 64, 8) == (8 - b["straight_max"] - b["diagonal_max"], 3)
    assert sf._split(16, 128, 32) == (-1, -1)
    for z in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
        d_i, d_o = sf._split(z, 2048 // z, 16)
        assert d_i + d_o == 16 and d_i <= z - 1


def _run_cli(capsys, *args):
    code = cli.main(["reproduce", "skywalk-sweeps", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_fig3_runs_prints_and_plots(capsys, tmp_path):
    png = tmp_path / "fig3.png"
    code, out, err = _run_cli(capsys, "--figure", 3, "--seeds", 1, "--instances", 1, "--plot", png, "-q")
    assert code == 0, err
    assert "Skywalk Fig. 3" in out and "claims" in out and "verdict" in out
    assert "c=1024" in out and "needs --full" in out
    assert png.stat().st_size > 1000
    # (2, 0) at c = 64 is the complete row/column graph of the 8 x 8 cabinets: 64 * 14 / 2
    # inter-cabinet links, fewer than the 16 ports per cabinet of (1, 1) take
    assert "448 vs 5" in out and "14 straight partners per cabinet for 16 ports" in out
    assert "inter_links" in out and "Fig. 3 at 60 ns" in out


def test_fig3_switch_delay_is_used():
    nets = [dict(label="sky", family="skywalk", name="skywalk", z=4, c=9,
                 params=dict(switches_per_cabinet=4, cabinets=9, intra_degree=3, straight_degree=1,
                             diagonal_degree=1))]
    runs = sf._run(nets, [1], delays=(20.0, 100.0), build={"instances": 1})
    assert runs.avg_ns.iloc[1] > runs.avg_ns.iloc[0]
    t = registry.get("skywalk").func(**nets[0]["params"], seed=1, instances=1)
    layout = place(t, Floor.skywalk(9, 4))
    assert (runs.inter_links == np.count_nonzero(~layout.is_intra)).all()
    assert runs.inter_links.iloc[0] == t.link_counts()["straight"] + t.link_counts()["diagonal"]


def test_cli_bad_input(capsys, tmp_path):
    code, out, err = _run_cli(capsys, "--figure", 2)
    assert code != 0 and code != 70 and "figure must be one of" in err and len(err.strip().splitlines()) == 1
    code, out, err = _run_cli(capsys, "--figure", 5, "--plot", tmp_path / "x.txt")
    assert code not in (0, 70) and ".png" in err
    code, out, err = _run_cli(capsys, "--figure", 5, "--plot", tmp_path / "missing" / "x.png")
    assert code not in (0, 70) and "does not exist" in err
    code, out, err = _run_cli(capsys, "--figure", 5, "--seeds", 0)
    assert code not in (0, 70) and "seeds" in err
    code, out, err = _run_cli(capsys, "--figure", 3, "--switch-delay", 0)
    assert code not in (0, 70) and "switch_delay" in err


@pytest.mark.slow
@pytest.mark.parametrize("figure", [1, 5, 6, 7, 9, 10])
def test_cli_every_figure(capsys, tmp_path, figure):
    png = tmp_path / f"fig{figure}.svg"
    code, out, err = _run_cli(capsys, "--figure", figure, "--seeds", 1, "--instances", 1, "--plot", png, "-q")
    assert code == 0, err
    assert f"Skywalk Fig. {figure}" in out and "verdict" in out
    assert png.read_text().startswith("<?xml")
