"""``topogen reproduce memsys-table``: measured values agree with the (corrected) formulas."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.experiments.memsys import memsys_table


@pytest.fixture(scope="module")
def result():
    return memsys_table(max_nodes=2000, max_torus_dimension=6)


def test_families_present(result):
    fams = set(result.table["family"])
    for f in ("torus-2d", "torus-6d", "flattened-butterfly-3d", "moore-2", "memsys-dragonfly",
              "angelfish", "angelfish-lite", "flying-fish", "flying-fish-lite"):
        assert f in fams
    assert result.table["nodes"].max() <= 2000
    assert "torus-7d" not in fams


def test_measured_equals_formulas(result):
    t = result.table
    assert (t["nodes"] == t["nodes_formula"]).all()
    assert (t["ports"] == t["ports_formula"]).all()
    assert (t["diameter"] == t["diameter_formula"]).all()
    has = t["avg_hops_formula"].notna()
    assert has.sum() > 20
    assert np.allclose(t.loc[has, "avg_hops"], t.loc[has, "avg_hops_formula"], rtol=1e-12)
    eff = t["bisection_formula"] / (t["ports"] * t["avg_hops"]) / t["nodes"]
    assert np.allclose(t["efficiency"], eff)


def test_paper_figures_in_table(result):
    t = result.table.set_index(["family", "size"])
    # Figure 7: Petersen Angelfish 110 nodes / 6 ports / 4 hops, Lite 4 ports / 5 hops
    assert tuple(t.loc[("angelfish", "petersen"), ["nodes", "ports", "diameter"]]) == (110, 6, 4)
    assert tuple(t.loc[("angelfish-lite", "petersen"), ["nodes", "ports", "diameter"]]) == (110, 4, 5)
    # Dragonfly Limit: s = p + 1 has diameter 2, s = p diameter 3 (p = 7)
    assert t.loc[("memsys-dragonfly", "p=7,s=8"), "diameter"] == 2
    assert t.loc[("memsys-dragonfly", "p=7,s=4"), "diameter"] == 3
    # torus: the paper's ~Dn beside the exact D floor(n/2)
    row = t.loc[("torus-3d", "n=4")]
    assert (row["diameter_paper"], row["diameter"]) == (12, 6)


def test_cut_is_an_upper_bound_matching_even_estimates(result):
    t = result.table
    even_fb = t[t["family"].str.startswith("flattened-butterfly") & t["size"].isin(["n=2", "n=4", "n=6", "n=8"])]
    assert len(even_fb) > 3
    assert (even_fb["cut_links_half"] == even_fb["bisection_formula"]).all()
    ff = t[t["family"] == "flying-fish"]
    assert (ff["cut_links_half"] == ff["bisection_formula"]).all()  # n^5 exactly


def test_paper_quotes_and_notes(result):
    q = result.extra_tables["paper_quotes"]
    ang = q[q["family"] == "angelfish"]
    assert (ang["ports_formula"] == ang["paper_ports"]).all()
    assert list(ang["nodes_formula"]) == [114582, 522006, 1120422]
    notes = " ".join(result.notes)
    assert "4n - 2" in notes and "2n - 1" in notes and "D*floor(n/2)" in notes


def test_registered_and_parameter_checks():
    spec = registry.experiment("memsys-table")
    assert "MEMSYS" in spec.paper
    with pytest.raises(ParameterError, match="max_nodes"):
        memsys_table(max_nodes=5)
    with pytest.raises(ParameterError, match="max_torus_dimension"):
        memsys_table(max_torus_dimension=11)


def test_cli_reproduce(tmp_path, capsys):
    from topogen.cli import main

    out = tmp_path / "memsys.csv"
    code = main(["reproduce", "memsys-table", "--max_nodes", "120", "--max_torus_dimension", "3",
                 "--csv", str(out)])
    assert code == 0
    text = out.read_text()
    assert "flying-fish" in text and "angelfish" in text


def test_reroute_table_matches_section2(result):
    t = result.extra_tables["reroute_section2"]
    assert len(t) == 6
    assert (t["extra_hops"] == t["paper_extra_hops"]).all()
    counted = t[t["paper_alternative_routes"] != "n/a"]
    assert (counted["alternative_routes"] == counted["paper_alternative_routes"].astype(int)).all()
