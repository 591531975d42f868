"""FT-3 and LH-HC in the Slim Fly tables: Table III's FT-3 column (k-ary 3-tree, with the
VI-B tree and the other readings beside it), Table IV's FT-3 rows (VI-B formula, the tree
built, the k-ary 3-tree), Table II's LH-HC and FT-3 rows, and IV-D at q >= 11."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from topogen.generators.fattree import kary_ntree
from topogen.reproduce.slimfly_cost import PAPER_TABLE_IV, _ft3_rows, ft3_price
from topogen.reproduce.slimfly_hops import slimfly_hops
from topogen.reproduce.slimfly_resilience import (
    PAPER_TABLE_III, SIZES, _config, _endpoint_removable, _ft3_claims, _ft3_cost_tree,
    _ft3_readings, slimfly_resilience)

PARAMS = dict(router_dollars_per_port=350.4, router_dollars_offset=892.3,
              electric_dollars_per_m=0.4079, electric_dollars_base=0.5771,
              optical_dollars_per_m=0.0919, optical_dollars_base=2.7452, link_gbps=40.0,
              lanes_per_port=4.0, watts_per_lane=0.7, endpoint_cables=False)


# ----------------------------------------------------------------------------- Table III
@pytest.fixture(scope="module")
def readings():
    return _ft3_readings(12, 0.5, 3)


def test_ft3_is_the_nearest_kary_3tree():
    for target in SIZES:
        label, endpoints, build = _config("FT-3", target)
        best = min(range(2, 41), key=lambda k: abs(math.log(k**3 / target)))
        assert endpoints == best**3 and label.startswith(f"k={best},")
    assert [_config("FT-3", n)[1] for n in SIZES] == [216, 512, 1000, 2197, 4096, 8000]
    t = kary_ntree(8, 3)
    assert (t.num_switches, t.num_links, int(np.sum(t.hosts))) == (3 * 64, 2 * 512, 512)


def test_dash_pattern_identifies_the_kary_tree(readings):
    k = readings[readings["reading"] == "k-ary 3-tree"].set_index("approx_N")
    c = readings[readings["reading"] != "k-ary 3-tree"].set_index("approx_N")
    dashes = [n for n, v in zip(SIZES, PAPER_TABLE_III["FT-3"]) if v is None]
    assert [n for n in SIZES if not k.loc[n, "fits"]] == dashes == [256]
    assert [n for n in SIZES if not c.loc[n, "fits"]] == [512]
    assert c.loc[256, "endpoints"] == 250 and c.loc[8192, "endpoints"] == 8192
    # the VI-B tree: 5p^2 routers, 4p^3 links, 2p^3 endpoints
    tree = _ft3_cost_tree(6)
    assert (tree.num_switches, tree.num_links, int(np.sum(tree.hosts))) == (180, 864, 432)
    assert sorted(set(tree.degrees.tolist())) == [6, 12]  # leaves: 6 up-links and 6 endpoints


def test_readings_are_ordered(readings):
    # failing the same links, "every trial" can only be lower than the median, and
    # requiring only the endpoints to stay connected only higher
    assert (readings["every_trial"] <= readings["median"]).all()
    assert (readings["endpoints_median"] >= readings["median"]).all()
    k = readings[readings["reading"] == "k-ary 3-tree"]
    assert k["median"].iloc[-1] > k["median"].iloc[1]  # grows with k


def test_endpoint_connectivity_against_networkx():
    topo = kary_ntree(3, 3)
    rng = np.random.default_rng(5)
    orders = [rng.permutation(topo.num_links) for _ in range(4)]
    got = _endpoint_removable(topo, orders)
    leaves = [int(v) for v in np.flatnonzero(np.asarray(topo.hosts) > 0)]
    for order, r in zip(orders, got):
        def ok(failed):
            g = nx.Graph()
            g.add_nodes_from(range(topo.num_switches))
            g.add_edges_from(map(tuple, topo.edges[order[failed:]]))
            comp = nx.node_connected_component(g, leaves[0])
            return all(v in comp for v in leaves)
        assert ok(r) and not ok(r + 1)


def test_table_iii_ft3_rows_and_claims(readings):
    r = slimfly_resilience(trials=12, path_trials=0, seed=3)
    t = r.table[r.table["family"] == "FT-3"]
    assert (t["config"] != "not built").all() and t["ours"].notna().all()
    # the main table's cell and the readings' k-ary median use the same failure orders
    k = readings[readings["reading"] == "k-ary 3-tree"]
    assert list(t["ours"]) == list(k["median"])
    claims = r.extra_tables["claims"].set_index("claim")
    dash = claims.loc["FT-3 has a balanced variant at every ~N but 256 (the dashes)"]
    assert dash["verdict"] == "holds" and dash["reason"].startswith("reading: the k-ary 3-tree")
    row = [c for c in claims.index if c.startswith("FT-3 at ~N")]
    assert len(row) == 1 and claims.loc[row[0], "paper"] == "35/40/40/55/60"
    assert claims.loc[row[0], "verdict"] != "holds"  # the median reading is far above
    assert "every trial" in claims.loc[row[0], "ours"]


def test_ft3_claims_verdict_follows_the_numbers(readings):
    import pandas as pd

    fake = readings.copy()
    both = fake["paper"].notna()
    fake.loc[both & (fake["reading"] == "k-ary 3-tree"), "median"] = fake.loc[both, "paper"]
    table = pd.DataFrame(dict(family=["FT-3"] * 5, paper=[35, 40, 40, 55, 60],
                              connected_at_paper=[0.5] * 5, approx_N=SIZES[1:]))
    rows = {r["claim"]: r for r in _ft3_claims(table, fake)}
    assert rows["FT-3 at ~N = 512/1024/2048/4096/8192"]["verdict"] == "holds"


# ----------------------------------------------------------------------------- Table IV
def _paper(group):
    row = next(r for r in PAPER_TABLE_IV if r[0] == "FT-3" and r[1] == group)
    _, _, n, nr, k, el, fi, cost, power = row
    return k, dict(paper_endpoints=n, paper_routers=nr, paper_radix=k, paper_electric=el,
                   paper_fiber=fi, paper_cost_per_node=cost, paper_power_per_node=power)


def _by_hand(routers, radix, endpoints, links):
    router = routers * (350.4 * radix - 892.3)
    cables = links * (0.0919 * 1 + 2.7452) * 40 + endpoints * (0.4079 * 1 + 0.5771) * 40
    return (router + cables) / endpoints, routers * radix * 4 * 0.7 / endpoints


@pytest.mark.parametrize("group", ["k = 43", "N ~ 10K"])
def test_table_iv_ft3_rows(group):
    k, paper = _paper(group)
    rows = _ft3_rows(group, k, paper, PARAMS)
    formula, tree, kary = rows
    p = k / 2
    # the formula reproduces the printed counts (to rounding) and the power
    assert abs(formula["endpoints"] - paper["paper_endpoints"]) <= 1
    assert abs(formula["routers"] - paper["paper_routers"]) <= 1
    assert abs(formula["electric"] + formula["fiber"] - paper["paper_electric"] - paper["paper_fiber"]) <= 2
    assert formula["power_per_node"] == pytest.approx(paper["paper_power_per_node"], abs=0.01)
    cost, power = _by_hand(5 * p**2, k, 2 * p**3, 4 * p**3)
    assert formula["cost_per_node"] == pytest.approx(cost, abs=0.1)
    assert formula["cost_per_node"] < 0.85 * paper["paper_cost_per_node"]
    # the tree built at the next even radix: 5p^2 routers, 2p^3 endpoints
    pb = (k + 1) // 2
    assert (tree["routers"], tree["endpoints"], tree["radix"]) == (5 * pb**2, 2 * pb**3, 2 * pb)
    assert tree["power_per_node"] == pytest.approx(14.0, abs=0.01)
    # the k-ary 3-tree of Section V: 3k^2 routers, k^3 endpoints, 16.8 W per endpoint
    assert (kary["routers"], kary["endpoints"], kary["radix"]) == (3 * 22**2, 22**3, 44)
    cost_k, power_k = _by_hand(3 * 22**2, 44, 22**3, 2 * 22**3)
    assert kary["cost_per_node"] == pytest.approx(cost_k, abs=0.1)
    assert kary["power_per_node"] == pytest.approx(power_k, abs=0.01) == 16.8


def test_ft3_price_rejects_nothing_silently():
    got = ft3_price(10, 8, 20, 40, PARAMS)
    cost, power = _by_hand(10, 8, 20, 40)
    assert got["cost_per_node"] == pytest.approx(cost, abs=0.1)
    assert got["power_per_node"] == pytest.approx(power, abs=0.01)


def test_table_iv_ft3_claims():
    from topogen.reproduce.slimfly_cost import slimfly_cost

    r = slimfly_cost()
    t = r.table[r.table["topology"] == "FT-3"]
    assert len(t) == 6 and (t["config"] != "not built").all()
    c = r.extra_tables["claims"].set_index("claim")
    assert c.loc["FT-3 (k = 43) counts: N, N_r, cables", "verdict"].startswith("holds")
    assert set(r.extra_tables["claims"]["verdict"]) <= {"holds", "DIFFERENT"}
    cost = c.loc["FT-3 (k = 43) cost per endpoint"]
    assert cost["verdict"] == "DIFFERENT" and "m long on average" in cost["reason"]
    assert c.loc["FT-3 (N ~ 10K) power per endpoint", "verdict"] == "holds"
    split = c.loc["FT-3 electric / fiber split"]
    assert "461.5" in split["reason"] and "3,368.5" in split["reason"]
    sf = c.loc["SF 'almost 50 % less expensive' than FT-3 (same k = 43)"]
    assert sf["ours"].startswith("46 %")


# ----------------------------------------------------------------------------- Table II
@pytest.fixture(scope="module")
def hops():
    return slimfly_hops(max_endpoints=1024, seed=1)


def test_table_ii_lhhc_and_ft3(hops):
    t = hops.table.set_index(["family", "approx_N"])
    assert [int(t.loc[("LH-HC", n), "diameter"]) for n in (256, 512, 1024)] == [4, 4, 5]
    for n in (256, 512, 1024):
        assert t.loc[("LH-HC", n), "bisection_ours"] == t.loc[("LH-HC", n), "bisection_lower"] == 3 * n // 2
        assert t.loc[("FT-3", n), "diameter"] == 4
    assert [int(t.loc[("FT-3", n), "bisection_ours"]) for n in (256, 512, 1024)] == [108, 256, 500]
    checks = hops.extra_tables["table_ii_checks"]
    assert (checks["verdict"] == "holds").all()
    assert set(checks["family"]) == {"LH-HC", "FT-3"}


def test_ft3_average_hops_against_networkx(hops):
    t = hops.table.set_index(["family", "approx_N"])
    topo = kary_ntree(6, 3)
    g = topo.to_networkx()
    leaves = [int(v) for v in np.flatnonzero(np.asarray(topo.hosts) > 0)]
    dist = dict(nx.all_pairs_shortest_path_length(g))
    pair_sum = sum(dist[a][b] for a in leaves for b in leaves)
    n = 6 ** 3
    assert t.loc[("FT-3", 256), "avg_hops"] == pytest.approx(pair_sum * 36 / (n * (n - 1)), abs=1e-4)
    assert t.loc[("FT-3", 256), "avg_hops_routers"] == pytest.approx(
        pair_sum / (len(leaves) * (len(leaves) - 1)), abs=1e-4)


def test_lhhc_average_hops_against_networkx(hops):
    from topogen.generators.longhop import long_hop

    t = hops.table.set_index(["family", "approx_N"])
    assert t.loc[("LH-HC", 256), "avg_hops"] == pytest.approx(
        nx.average_shortest_path_length(long_hop(8, 5).to_networkx()), abs=1e-4)


# ----------------------------------------------------------------------------- IV-D
def test_iv_d_layered_vcs_at_q11():
    from topogen.reproduce.slimfly import slimfly_structure

    r = slimfly_structure(qmax=5, check_diameter=False, check_vcs=True, vcs_qmax=11)
    row = r.extra_tables["claims"].set_index("section").loc["IV-D"]
    assert row["ours"] == "q=5: 2, q=7: 2, q=11: 2"
    assert row["verdict"] == "DIFFERENT" and "16,509" in row["reason"]
