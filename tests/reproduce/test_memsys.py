"""``topogen reproduce memsys-table``: measured values agree with the (corrected) formulas."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.memsys import memsys_table


@pytest.fixture(scope="module")
def result():
    return memsys_table(max_nodes=2000, max_torus_dimension=6, bisection_runs=1, seed=3)


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
    eff = t["bisection_links"] / (t["ports"] * t["avg_hops"]) / t["nodes"]
    assert np.allclose(t["efficiency"], eff)
    eff_paper = t["bisection_paper"] / (t["ports"] * t["avg_hops"]) / t["nodes"]
    assert np.allclose(t["efficiency_paper"], eff_paper)


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


def test_measured_bisection(result):
    t = result.table
    assert "cut_links_half" not in t.columns
    assert (t["bisection_lower_bound"] <= t["bisection_links"]).all()
    assert (t["bisection_exact"] == (t["bisection_lower_bound"] == t["bisection_links"])).all()
    # even-sided flattened butterflies: the paper's n^(D-1) (n/2)^2 is exact, and the
    # spectral bound proves it
    even_fb = t[t["family"].str.startswith("flattened-butterfly") & t["size"].isin(["n=2", "n=4", "n=6", "n=8"])]
    assert len(even_fb) > 3
    assert (even_fb["bisection_links"] == even_fb["bisection_formula"]).all()
    assert even_fb["bisection_exact"].all()
    # Flying Fish: balanced cuts well below the paper's n^5 exist (the paper overcounts)
    ff = t[t["family"] == "flying-fish"]
    assert len(ff) >= 3
    assert (ff["bisection_links"] < 0.7 * ff["bisection_formula"]).all()
    rows = t.set_index(["family", "size"])
    # Petersen: bisection width 5 (the paper's (p-2)N/4 bullet gives 2.5), enumerated
    pet = rows.loc[("moore-2", "petersen")]
    assert (pet["bisection_links"], pet["bisection_exact"], pet["bisection_paper"]) == (5, True, 2.5)
    assert pet["bisection_method"] == "exhaustive"
    # Angelfish on Petersen: paper prints p((p^2+1)^2/4) = 75, the pair count is 90.75
    ang = rows.loc[("angelfish", "petersen")]
    assert (ang["bisection_paper"], ang["bisection_formula"]) == (75.0, 90.75)
    assert ang["bisection_lower_bound"] <= ang["bisection_links"] <= 90


def test_seed_reproducible():
    a = memsys_table(max_nodes=120, max_torus_dimension=3, bisection_runs=1, seed=5).table
    b = memsys_table(max_nodes=120, max_torus_dimension=3, bisection_runs=1, seed=5).table
    assert a.equals(b)


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
    with pytest.raises(ParameterError, match="bisection_runs"):
        memsys_table(bisection_runs=0)


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
