"""``topogen reproduce slimfly-hops``: Table II diameters and Fig. 1 average hops."""

from __future__ import annotations

import networkx as nx
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.slimfly_hops import slimfly_hops
from topogen.generators.dragonfly import dragonfly
from topogen.generators.slimfly import slimfly


@pytest.fixture(scope="module")
def result():
    return slimfly_hops(max_endpoints=1024, seed=2)


def test_table_ii_diameters(result):
    t = result.table.set_index(["family", "approx_N"])
    assert (result.table[result.table["family"] == "SF"]["diameter"] == 2).all()
    assert (result.table[result.table["family"].isin(["DF", "FBF-3"])]["diameter"] == 3).all()
    assert t.loc[("HC", 1024), "diameter"] == t.loc[("HC", 1024), "diameter_table_ii"] == 10
    assert t.loc[("T3D", 512), "diameter"] == t.loc[("T3D", 512), "diameter_table_ii"] == 12  # 8x8x8
    assert set(result.table["approx_N"]) == {256, 512, 1024}


def test_fig1_claims(result):
    c = result.extra_tables["claims"]
    assert c["sf_lowest_diameter"].all() and c["sf_lowest_avg_hops"].all()


def _endpoint_average(topo, p):
    d = nx.floyd_warshall_numpy(topo.to_networkx())
    n = topo.num_switches
    total = d.sum() * p * p  # same-router endpoint pairs are at distance 0
    return total / (n * p * (n * p - 1))


def test_average_hops_against_networkx(result):
    t = result.table.set_index(["family", "approx_N"])
    sf = slimfly(5)
    assert t.loc[("SF", 256), "avg_hops_routers"] == pytest.approx(
        nx.average_shortest_path_length(sf.to_networkx()), abs=1e-4)
    assert t.loc[("SF", 256), "avg_hops"] == pytest.approx(_endpoint_average(sf, 4), abs=1e-4)
    df = dragonfly(6, 3, 3)
    assert t.loc[("DF", 256), "avg_hops"] == pytest.approx(_endpoint_average(df, 3), abs=1e-4)


def test_registered_and_bad_parameter():
    assert registry.experiment("slimfly-hops").paper.startswith("Slim Fly")
    with pytest.raises(ParameterError, match="max_endpoints"):
        slimfly_hops(max_endpoints=100)
