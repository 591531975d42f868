"""``topogen reproduce dsnf`` (Truong et al. IV): structure and independent checks."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import registry
from topogen.reproduce.dsn import TOPOLOGIES, build, reproduce_dsnf


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
    cols = 3  # 3 x 3 grid of cabinets
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


def test_dsn_x_table(result):
    d = result.extra_tables["dsn_x"]
    for n, g in d.groupby("switches"):
        g = g.sort_values("x")
        assert g.x.tolist() == list(range(1, int(g.p.iloc[0])))
        assert (g.avg_degree < 4).all() and np.all(np.diff(g.aspl.to_numpy()) < 0)
    # x = p - 1 is the DSN of the main table
    main = result.table[result.table.topology == "DSN"].set_index("switches")
    top = d[d.x == d.p - 1].set_index("switches")
    assert (top.aspl == main.aspl).all() and (top.diameter == main.diameter).all()
    claims = result.extra_tables["claims"].set_index("claim")
    assert claims.loc["DSN-F diameter at most x% lower than DSN", "holds"] is not None


def _cable_gaps(n, order):
    out = {}
    for label in ("DSN", "DSN-F", "2-D torus"):
        t, lay = build(label, n, cabinet_order=order)
        out[label] = lay.total_cable_length / t.num_links
    return 100 * (1 - out["DSN-F"] / out["DSN"]), 100 * (1 - out["DSN-F"] / out["2-D torus"])


def test_cable_claims_iv_c():
    """IV-C prints 17.72% (2^7) and 24.82% (2^12) to two decimals; the paper's placement
    (ref. [5]: clustering + simulated annealing) is not reproduced.  Against DSN our simple
    placements come within ~1 point at both sizes (against the torus they do not), and at
    2^12 row-major and serpentine cabinet orders bracket the paper's figure."""
    dsn_rm, tor_rm = _cable_gaps(128, "row-major")
    dsn_sp, _ = _cable_gaps(128, "serpentine")
    assert dsn_rm == pytest.approx(18.72, abs=0.005) and dsn_sp == pytest.approx(18.13, abs=0.005)
    assert 0 < dsn_sp - 17.72 < dsn_rm - 17.72 < 1.01      # not reproduced to 0.005
    big_rm, big_tor = _cable_gaps(4096, "row-major")
    big_sp, big_tor_sp = _cable_gaps(4096, "serpentine")
    assert big_rm == pytest.approx(25.98, abs=0.005) and big_sp == pytest.approx(24.01, abs=0.005)
    assert big_sp < 24.82 < big_rm
    assert abs(big_tor - 24.82) > 3 and abs(big_tor_sp - 24.82) > 3


def test_cable_optimal_mapping_2_7():
    """At 2^7 (8 cabinets) the cabinet mapping can be solved exactly: the best of all 8!
    orders of the same cabinets gives DSN-F 17.96% below DSN (paper 17.72%)."""
    import itertools

    from topogen.layout import Floor

    n = 128
    floor = Floor.dsn(n)
    D = floor.distance_matrix()               # cable lengths between cabinets
    perms = np.array(list(itertools.permutations(range(floor.cabinets))))
    best = {}
    for label in ("DSN", "DSN-F"):
        t, lay = build(label, n)
        cab = lay.cabinet[t.edges]
        inter = cab[:, 0] != cab[:, 1]
        a, b = cab[inter].T
        cost = np.zeros(len(perms))
        for u, v in zip(a, b):
            cost += D[perms[:, u], perms[:, v]]
        best[label] = (cost.min() + 2.0 * (~inter).sum()) / t.num_links
    assert 100 * (1 - best["DSN-F"] / best["DSN"]) == pytest.approx(17.96, abs=0.005)
