"""``topogen reproduce dsnf`` (Truong et al. IV): structure and independent checks."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import registry
from topogen.experiments.dsn import TOPOLOGIES, build, reproduce_dsnf


@pytest.fixture(scope="module")
def result():
    # p = 4 for 80..160 nodes: the Fig. 4 sweep ends at the transformation point 160
    return reproduce_dsnf(min_exponent=7, max_exponent=8, base=80, step=20)


def test_registered():
    assert registry.experiment("dsnf").func is reproduce_dsnf


def test_main_table(result):
    t = result.table
    assert sorted(t.switches.unique()) == [128, 256]
    assert set(t.topology) == set(TOPOLOGIES)
    f = t[t.topology == "DSN-F"]
    assert (f.routing_diameter <= f.routing_bound).all()
    assert (f.routing_diameter >= f.diameter).all()
    assert (t.max_degree <= 5).all()
    tor = t[t.topology == "2-D torus"].set_index("switches")
    assert tor.loc[128, "diameter"] == 8 + 4 and tor.loc[256, "diameter"] == 16  # 16x8, 16x16


def test_torus_cable_length_by_hand(result):
    """16 x 8 torus, 8 cabinets of 16 on a 3 x 3 grid: dimension-0 rings inside a cabinet,
    dimension-1 links between cabinets r and r +/- 1 (mod 8)."""
    rows, cols = 3, 3
    total = 128 * 2.0
    for r in range(8):
        a, b = r, (r + 1) % 8
        dist = 0.6 * abs(a % cols - b % cols) + 2.1 * abs(a // cols - b // cols)
        total += 16 * (dist + 4.0)
    row = result.table.set_index(["switches", "topology"]).loc[(128, "2-D torus")]
    assert row.avg_cable_m == pytest.approx(total / 256, abs=1e-4)


def test_dsnf_layout_is_super_node_grouped():
    t, layout = build("DSN-F", 256)
    assert layout.floor.switches_per_cabinet == 16 and layout.floor.cabinets == 16
    assert np.bincount(layout.cabinet).max() <= 16
    assert layout.placement == "native"


def test_fig4(result):
    f = result.extra_tables["fig4"]
    exp = f[f.stage == "expanded"]
    assert exp.added.tolist() == [0, 20, 40, 60, 80]
    assert (exp.p == 4).all()
    tr = f[f.stage == "transformed"]
    assert len(tr) == 1 and int(tr.p.iloc[0]) == 5 and int(tr.switches.iloc[0]) == 160
    for key in ("seq", "bal"):
        assert (f[f"routing_diameter_{key}"] <= f.routing_bound).all()
        assert (f[f"routing_diameter_{key}"] >= f[f"diameter_{key}"]).all()
        assert (f[f"max_degree_{key}"] <= 5).all()
    # ASPL grows as nodes are added without changing p
    assert np.all(np.diff(exp.aspl_seq.to_numpy()) > 0)


def test_transformation_and_claims(result):
    tr = result.extra_tables["transformation"]
    assert (tr.step_added_per_super_node == tr.p + 7).all()
    assert (tr.new_cables_per_super_node == tr.p + 6).all()
    assert tr.after_equals_dsnf.all() and (tr.after_avg_degree == 4.0).all()
    claims = result.extra_tables["claims"].set_index("claim")
    assert claims.loc["Theorem 1b: routing diameter <= 2 (p + K - 1)", "holds"]
    assert claims.loc["transformed network is a DSN-F with p + 1", "holds"]
