"""``topogen reproduce slimfly-curves``: Slim Fly Fig. 5c and Figs. 11-13 against N."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from topogen import registry
from topogen.errors import OutputError, ParameterError
from topogen.reproduce.slimfly_cost import PAPER_TABLE_IV, slimfly_cost
from topogen.reproduce.slimfly_curves import (
    CABLES,
    bisection_row,
    cable_params,
    family_points,
    slimfly_curves,
    table_iv_points,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("curves") / "out"
    start = time.process_time()
    result = slimfly_curves(quick=True, out=str(out))
    return result, out, time.process_time() - start


def _point(family, config):
    return next(p for p in family_points(family, 100000) if p["config"] == config)


def test_registered():
    assert "slimfly-curves" in registry.experiments()


def test_quick_runs_in_seconds_and_writes_the_figures(quick):
    result, out, cpu = quick
    assert cpu < 30, cpu
    for name in ("fig5c", "fig11", "fig12", "fig13"):
        png, pdf = out / f"{name}.png", out / f"{name}.pdf"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert pdf.read_bytes()[:5] == b"%PDF-", name
        assert png.stat().st_size > 10000
    for name in ("cost.csv", "bisection.csv", "claims.csv"):
        assert (out / name).stat().st_size > 100
    assert set(result.table.family) == {"T3D", "T5D", "HC", "LH-HC", "FT-3", "DF", "FBF-3", "DLN", "SF"}
    assert result.table.endpoints.max() <= 2500


def test_table_iv_sizes_are_slimfly_cost_numbers():
    """One model: Table IV's columns under Fig. 11's cables are slimfly-cost's rows."""
    params, _ = cable_params("fdr10")
    ours = table_iv_points({"fdr10": params}, 0)
    ref = slimfly_cost(seed=0).table.drop_duplicates(["topology", "group"])
    assert len(ours) == len(PAPER_TABLE_IV) == len(ref)
    for (_, a), (_, b) in zip(ours.iterrows(), ref.iterrows()):
        assert (a.topology, a.group, a.config) == (b.topology, b.group, b.config)
        for col in ("endpoints", "routers", "radix", "electric", "fiber", "cost_per_node", "power_per_node"):
            assert a[col] == b[col], (a.topology, a.group, col)


def test_sweep_point_equals_table_iv_column(quick):
    """The sweep's SF q = 19 and DF a = 14 are Table IV's networks: the same prices."""
    result = slimfly_curves(max_endpoints=11000, cables="fdr10", out="", table_iv=True, runs=1,
                            check_routers=0)
    t, iv = result.table, result.extra_tables["table_iv"]
    sf = t[(t.family == "SF") & (t.endpoints == 10830)].iloc[0]
    df = t[(t.family == "DF") & (t.endpoints == 9702)].iloc[0]
    assert sf.cost_per_node == iv[iv.topology == "SF"].iloc[0].cost_per_node
    assert df.cost_per_node == iv[(iv.topology == "DF") & (iv.group == "N ~ 10K")].iloc[0].cost_per_node


def test_independent_recomputation_of_a_torus_and_the_fat_tree(quick):
    result = quick[0]
    t = result.table
    # T3D 8x8x8 folded: 512 routers of 7 ports, 3 x 512 electric 1 m cables at 40 Gb/s
    r = t[(t.family == "T3D") & (t.endpoints == 512) & (t.cable == "fdr10")].iloc[0]
    expect = (512 * (350.4 * 7 - 892.3) + 3 * 512 * (0.4079 + 0.5771) * 40) / 512
    assert r.cost_per_node == pytest.approx(expect, abs=0.05)
    assert r.power_per_node == pytest.approx(7 * 4 * 0.7)
    # the same under Ethernet 10 Gb/s: cables a quarter of the price (stand-in constants)
    e = t[(t.family == "T3D") & (t.endpoints == 512) & (t.cable == "eth10")].iloc[0]
    assert e.cost_per_node == pytest.approx((350.4 * 7 - 892.3) + 3 * 0.985 * 10, abs=0.05)
    # FT-3, VI-B: 5p^2 routers of 2p ports, 4p^3 optical and 2p^3 electric cables of 1 m
    p = 8
    f = t[(t.family == "FT-3") & (t.endpoints == 2 * p**3) & (t.cable == "fdr10")].iloc[0]
    cost = 5 * p**2 * (350.4 * 2 * p - 892.3) + 4 * p**3 * 40 * (0.0919 + 2.7452) + 2 * p**3 * 40 * 0.985
    assert f.cost_per_node == pytest.approx(cost / (2 * p**3), abs=0.05)
    assert f.power_per_node == pytest.approx(5 * p**2 * 2 * p * 2.8 / (2 * p**3), abs=0.01)  # 14 W at any p
    # power panels are the same for every cable
    for fam, g in t.groupby(["family", "config"]):
        assert g.power_per_node.nunique() == 1, fam


def test_bisection_values_recomputed():
    from topogen.generators.classic import hyperx
    from topogen.generators.dragonfly import dragonfly
    from topogen.generators.slimfly import slimfly

    # FBF-3 4x4x4: halving one dimension cuts 2 x 2 links in each of the 16 lines
    pt = _point("FBF-3", "4x4x4, p=4")
    row = bisection_row(pt, hyperx((4, 4, 4), hosts_per_switch=4), runs=1, seed=1, check_routers=100)
    assert row["bisection_links"] == 16 * 4 and row["exact"] and row["lower_bound"] == 64
    assert row["paper_links"] == (256 + 2 * 16 - 1) // 4
    # DF a=6, p=3, h=3: any balanced cut, recounted on the edges, is at least the group halving
    pt = _point("DF", "a=6, p=3, h=3, g=19")
    topo = dragonfly(6, 3, 3)
    row = bisection_row(pt, topo, runs=2, seed=1, check_routers=0)
    assert 9 * 10 <= row["bisection_links"] <= 9 * 10 + 9  # 9 x 10 group pairs, + a split group
    # SF q=5: the METIS cut is a real balanced cut of the graph, above the spectral bound
    from topogen.metrics.bisection import bisection

    sf = slimfly(5)
    b = bisection(sf, method="metis", runs=2, seed=1)
    side = np.asarray(b.side)
    e = np.asarray(sf.edges)
    assert int(np.sum(side[e[:, 0]] != side[e[:, 1]])) == b.width
    assert abs(int(side.sum()) - 25) == 0 and b.lower_bound <= b.width


def test_claims_have_tolerances_and_causes(quick):
    claims = quick[0].extra_tables["claims"]
    assert set(claims.verdict) <= {"holds", "differs", "not reproducible", "not measured"}
    assert (claims.tolerance.str.len() > 0).all()
    bad = claims[claims.verdict.isin(["differs", "not reproducible"]) & (claims.cause.str.len() == 0)]
    assert bad.empty, bad.claim.tolist()
    got = dict(zip(claims.claim, claims.verdict))
    assert got["HC bisection = N/2 links"] == "holds"
    assert got["LH-HC bisection = 3N/2 links"] == "holds"
    assert got["LH-HC more expensive than HC"] == "holds"
    # the stand-in cables of Figs. 12 and 13 never give a verdict
    assert all(v == "not reproducible" for c, v in got.items() if "similar cost pattern" in c)


def test_given_cable_constants_replace_the_stand_in():
    params, src = cable_params("eth10", {"electric": (1.0, 2.0), "optical": None})
    assert (params["electric_dollars_per_m"], params["electric_dollars_base"], params["link_gbps"]) == (1.0, 2.0, 10.0)
    assert "given" in src and "stand-in" in src
    p11, src11 = cable_params("fdr10")
    assert (p11["optical_dollars_per_m"], p11["optical_dollars_base"]) == CABLES["fdr10"]["optical"]
    assert "stand-in" not in src11


@pytest.mark.parametrize("kwargs, what", [
    (dict(cables="fdr10,cat5"), "unknown cable"),
    (dict(cables=""), "cables must name"),
    (dict(max_endpoints=100), "max_endpoints"),
    (dict(eth10_electric="1"), "per_metre,base"),
    (dict(qdr56_optical="-1,2"), "negative"),
])
def test_bad_parameters(kwargs, what):
    with pytest.raises(ParameterError, match=what):
        slimfly_curves(out="", **kwargs)


def test_non_empty_output_folder_refused_before_work(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    start = time.process_time()
    with pytest.raises(OutputError, match="not empty"):
        slimfly_curves(out=str(tmp_path), quick=True)
    assert time.process_time() - start < 2
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_cli_quick(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TOPOGEN_QUIET="1")
    out = tmp_path / "o"
    r = subprocess.run([sys.executable, "-m", "topogen", "reproduce", "slimfly-curves", "--quick", "true",
                        "--cables", "fdr10", "--out", str(out)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "claims" in r.stdout and (out / "fig11.pdf").exists() and not (out / "fig12.pdf").exists()
    bad = subprocess.run([sys.executable, "-m", "topogen", "reproduce", "slimfly-curves", "--cables", "x"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "unknown cable" in bad.stderr and "Traceback" not in bad.stderr
