"""``topogen reproduce memsys-figs``: the closed-form and bound points against graphs
measured independently (networkx), and the command end to end."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import topogen.cli as cli
from topogen.reproduce import memsys_figs as mf
from topogen.generators.classic import hyperx, torus


def _nx_row(topology):
    g = topology.to_networkx()
    return max(d for _, d in g.degree()), nx.average_shortest_path_length(g)


def test_formula_rows_match_built_graphs():
    rows = pd.DataFrame(mf._formula_rows(1, 400)).set_index(["family", "size"])
    for fam, side, d, build in (("torus", 3, 3, torus), ("torus", 4, 2, torus), ("torus", 2, 5, torus),
                                ("flattened-butterfly", 4, 3, hyperx), ("flattened-butterfly", 5, 2, hyperx)):
        r = rows.loc[(f"{fam}-{d}d", f"n={side}")]
        topo = build((side,) * d)
        ports, aspl = _nx_row(topo)
        assert r.nodes == topo.num_switches and r.ports == ports
        assert r.avg_hops == pytest.approx(aspl, rel=1e-12)
        assert r.diameter == nx.diameter(topo.to_networkx())


def test_dragonfly_formula_rows_match_built_graphs():
    from topogen.generators.memsys import memsys_dragonfly

    rows = pd.DataFrame(mf._formula_rows(1, 200)).set_index(["family", "size"])
    for p, s in ((3, 1), (3, 4), (7, 8)):
        r = rows.loc[("memsys-dragonfly", f"p={p},s={s}")]
        ports, aspl = _nx_row(memsys_dragonfly(p, s))
        assert r.ports == ports and r.avg_hops == pytest.approx(aspl, rel=1e-12)


def test_moore_bound_rows():
    rows = pd.DataFrame(mf._moore_rows(3000)).set_index(["family", "size"])
    # the Petersen and Hoffman-Singleton graphs meet the diameter-2 bound
    for p, g in ((3, nx.petersen_graph()), (7, None)):
        r = rows.loc[("moore-2", f"p={p}")]
        assert r.nodes == p * p + 1
        if g is not None:
            assert r.avg_hops == pytest.approx(nx.average_shortest_path_length(g))
    assert rows.loc[("moore-3", "p=3")].nodes == 22 and rows.loc[("moore-4", "p=3")].nodes == 46


def test_mms_orders_are_prime_powers():
    assert mf._mms_orders(10**7)[:8] == [3, 4, 5, 7, 8, 9, 11, 13]


def test_slope_classifies():
    t = pd.DataFrame({"nodes": [10, 100, 1000], "x": [1.0, 10.0, 100.0]})
    assert mf._slope(t, "x") == pytest.approx(1.0)
    t["x"] = [2.0, 2.0, 2.0]
    assert abs(mf._slope(t, "x")) < 1e-12


def test_build_rows_exclusions_and_metric():
    table, dropped = mf.build_rows(60, 20000, 1, 0)
    assert dropped > 0
    assert (table.ports <= 300).all() and not (table.avg_hops > 35).any()
    meas = table[table.source == "measured"]
    assert len(meas) and set(table.source) == {"measured", "formula", "bound"}
    eff = meas.bisection / (meas.ports * meas.avg_hops) / meas.nodes
    assert np.allclose(eff, meas.efficiency)
    # no point is both measured and formula
    assert not table.duplicated(["family", "size"]).any()


def _run_cli(capsys, *args):
    code = cli.main(["reproduce", "memsys-figs", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("figure", [11, 12, 13, 14])
def test_cli_runs_prints_and_plots(capsys, tmp_path, figure):
    png = tmp_path / f"f{figure}.png"
    code, out, err = _run_cli(capsys, "--figure", figure, "--max-nodes", 30, "--formula-max-nodes", 20000,
                              "--bisection-runs", 1, "--plot", png, "-q")
    assert code == 0, err
    assert f"Fig. {figure}" in out and "verdict" in out
    assert png.stat().st_size > 1000


def test_cli_bad_input(capsys, tmp_path):
    code, out, err = _run_cli(capsys, "--figure", 10)
    assert code not in (0, 70) and "figure" in err
    code, out, err = _run_cli(capsys, "--figure", 12, "--plot", tmp_path / "a.csv")
    assert code not in (0, 70) and ".png" in err


@pytest.mark.parametrize("side,dims", [(2, 3), (3, 3), (2, 4)])
def test_fishnet_lite_over_flattened_butterflies_matches_formulas(side, dims):
    topo = mf.lite_fb_topology(side, dims)
    f = mf.lite_fb_formulas(side, dims)
    g = topo.to_networkx()
    m = side**dims
    assert topo.num_switches == f["nodes"] == m * (m + 1)
    assert max(d for _, d in g.degree()) == f["ports"] == dims * (side - 1) + 1
    assert nx.diameter(g) == f["diameter"] == 2 * dims + 1
    # one link between every two subnets: the subnet-balanced cut the formula counts
    sub_of = np.arange(topo.num_switches) // m
    inter = sub_of[topo.edges[:, 0]] != sub_of[topo.edges[:, 1]]
    assert inter.sum() == m * (m + 1) // 2
    assert (np.bincount(topo.edges[inter].ravel(), minlength=topo.num_switches) == 1).all()


def test_fig11_fishnet_claim_with_lite_dims():
    table, _ = mf.build_rows(80, 1_200_000, 1, 0, (3,))
    claims = pd.DataFrame(mf._claims11(table))
    defined = claims[claims.claim.str.startswith("Fishnet designs reach")].iloc[0]
    assert defined.verdict == "differs" and "34 ports" in defined.ours
    lite = claims[claims.claim.str.contains("Fishnet Lite over D-D")].iloc[0]
    assert lite.verdict == "agrees" and "28 ports" in lite.ours and "1,001,000" in lite.ours
    meas = table[(table.group == "fishnet-lite-fb") & (table.source == "measured")]
    assert len(meas) == 1 and (meas.ports == meas["size"].str[2:].astype(int) * 3 - 2).all()
    plain, _ = mf.build_rows(30, 1_200_000, 1, 0)
    assert not pd.DataFrame(mf._claims11(plain)).claim.str.contains("Fishnet Lite over").any()


def test_cli_bad_lite_dims(capsys):
    code, out, err = _run_cli(capsys, "--figure", 11, "--fishnet-lite-dims", 2)
    assert code not in (0, 70) and "fishnet_lite_dims" in err
