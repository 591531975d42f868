"""``topogen reproduce slimfly-resilience``: Table III beside the paper."""

from __future__ import annotations

import pandas as pd
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.slimfly_resilience import PAPER_TABLE_III, SIZES, slimfly_resilience


@pytest.fixture(scope="module")
def result():
    return slimfly_resilience(trials=30, path_trials=0, seed=1)


def test_paper_values_printed(result):
    t = result.table
    assert len(t) == len(PAPER_TABLE_III) * len(SIZES)
    sf = t[t["family"] == "SF"].set_index("approx_N")
    printed = [None if pd.isna(sf.loc[n, "paper"]) else int(sf.loc[n, "paper"]) for n in SIZES]
    assert printed == [45, 60, None, 65, 70, 75]
    assert sf.loc[8192, "config"].startswith("q=17")
    wide = result.extra_tables["table_iii"]
    assert list(wide.columns) == ["~N", *PAPER_TABLE_III]


def test_high_radix_families_near_paper(result):
    t = result.table
    both = t[t["ours"].notna() & t["paper"].notna() & t["family"].isin(["SF", "DLN", "DF", "FBF-3", "HC", "T5D"])]
    assert len(both) >= 20
    assert ((both["ours"] - both["paper"]).abs() <= 10).all()
    # the ranking of the paper: SF and DLN above DF at ~8,192
    at = t[t["approx_N"] == 8192].set_index("family")["ours"]
    assert at["SF"] >= at["DF"] and at["DLN"] >= at["DF"] and at["SF"] > at["T3D"]


def test_not_built_families_say_why(result):
    t = result.table
    assert (t[t["family"] == "FT-3"]["config"] != "not built").all()
    assert (t[t["family"] == "LH-HC"]["config"] != "not built").all()
    notes = " ".join(result.notes)
    assert "fat tree" in notes and "T3D" in notes


def test_paths_table_and_registration():
    r = slimfly_resilience(trials=2, path_trials=2, seed=1)
    p = r.extra_tables["paths_8192"].set_index("family")
    assert p.loc["SF", "diameter"] == 2 and p.loc["DF", "diameter"] == 3
    assert p.loc["SF", "paper_diameter"] == 40
    assert registry.experiment("slimfly-resilience").paper.startswith("Slim Fly")
    with pytest.raises(ParameterError, match="trials"):
        slimfly_resilience(trials=1)
    with pytest.raises(ParameterError, match="level"):
        slimfly_resilience(level=1.5)


def test_cli(capsys):
    from topogen.cli import main

    assert main(["reproduce", "slimfly-resilience", "--trials", "5", "--path_trials", "0"]) == 0
    out = capsys.readouterr().out
    assert "Table III" in out and "(75%)" in out
    assert main(["reproduce", "slimfly-resilience", "--trials", "0"]) != 0
    assert "trials" in capsys.readouterr().err
