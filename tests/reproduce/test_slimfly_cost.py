"""``topogen reproduce slimfly-cost``: Table IV derived beside the paper."""

from __future__ import annotations

import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.slimfly_cost import PAPER_TABLE_IV, slimfly_cost


@pytest.fixture(scope="module")
def result():
    return slimfly_cost()


def test_table_iv_columns(result):
    t = result.table
    assert len(t) == len(PAPER_TABLE_IV) + 2 + 4  # two extra Slim Fly variants, three FT-3 rows each
    assert not (t["config"] == "not built").any()
    assert list(t["paper_cost_per_node"].head(3)) == [1682, 3176, 4631]


def test_derived_values_near_paper(result):
    built = result.table[result.table["config"] != "not built"]
    # power follows the paper's rule exactly wherever the radix agrees
    same_k = built[built["radix"] == built["paper_radix"]]
    assert len(same_k) >= 7
    assert ((same_k["power_per_node"] - same_k["paper_power_per_node"]).abs() <= 0.06).all()
    # cost within a few percent for tori, hypercube, Dragonfly and the Slim Fly at k = 43
    for topo in ("T3D", "T5D", "HC", "DF"):
        rows = built[built["topology"] == topo]
        assert ((rows["cost_per_node"] / rows["paper_cost_per_node"] - 1).abs() < 0.05).all(), topo
    sf43 = built[built["config"].str.contains("k=43")].iloc[0]
    assert abs(sf43["cost_per_node"] - 1033) < 10 and abs(sf43["power_per_node"] - 8.02) < 0.02
    # Slim Fly is the cheapest per endpoint of everything built
    assert built["cost_per_node"].idxmin() in built[built["topology"] == "SF"].index
    df = built[(built["topology"] == "DF") & (built["group"] == "N ~ 10K")].iloc[0]
    assert (df["electric"], df["paper_electric"]) == (9009, 9009)


def test_notes_explain_the_cable_counts(result):
    notes = " ".join(result.notes)
    assert "10,469" in notes and "13,538" in notes and "3,971" in notes
    assert "k = 43" in notes


def test_parameters():
    a = slimfly_cost(link_gbps=10.0).table
    b = slimfly_cost().table
    built = a["config"] != "not built"
    assert (a.loc[built, "cost_per_node"] < b.loc[built, "cost_per_node"]).all()
    with pytest.raises(ParameterError, match="negative"):
        slimfly_cost(router_dollars_offset=-1.0)
    assert registry.experiment("slimfly-cost").paper.startswith("Slim Fly")


def test_cli_bad_constant(capsys):
    from topogen.cli import main

    code = main(["reproduce", "slimfly-cost", "--optical_dollars_per_m", "-0.5"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "optical_dollars_per_m" in err
