"""The crossval matrix (``topogen reproduce crossval``): a row whose first_fail lies below
its last_pass says non-monotone, and its saturation is the number ``topogen crossval``'s
compact table (and so its plot legend) gives."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from topogen.experiments.simulators import CrossvalSpec
from topogen.reproduce import crossval as cv
from topogen.reproduce import crossval_matrix as cm


def _result(onsets):
    """A crossval result of the reference simulator and BookSim (verdicts computed by
    crossval itself) whose seeds' onsets are ``onsets[sim] = (first_fail, last_pass)``."""
    lines, srows = [], []
    for sim in ("reference", "booksim"):
        for load in (0.1, 0.3):
            lines.append({"load": load, "simulator": sim, "status": "completed", "latency_cycles": 100.0,
                          "latency_ns": 266.7, "accepted_flits": load, "latency_sem": 0.5, "runs": 3,
                          "failed_runs": 0})
        ff, lp = onsets[sim]
        srows.append({"simulator": sim, "sat_low": 0.55, "sat_high": 0.5625,
                      "saturation": 0.55, "first_fail": ff, "last_pass": lp,
                      "onsets": "non-monotone" if ff < lp else "monotone"})
    spec = CrossvalSpec("torus", simulators=("reference", "booksim"))
    table, sat = cv.verdicts(pd.DataFrame(lines), pd.DataFrame(srows), spec)
    return SimpleNamespace(table=table, saturation=sat)


def test_first_fail_below_last_pass_reads_non_monotone():
    res = _result({"reference": (0.5625, 0.55), "booksim": (0.55, 0.6)})
    rows = {r["simulator"]: r for r in cm._summary_rows("Torus 4x4", "uniform", 33, res)}
    b, r = rows["booksim"], rows["reference"]
    assert b["first_fail"] < b["last_pass"]
    assert b["onsets"] == "non-monotone (fail 0.55 < pass 0.6)"
    assert r["onsets"] == "monotone" and not r["first_fail"] < r["last_pass"]
    # printed as the reproduction prints its table (pandas may leave middle columns out): a
    # row that shows first_fail and last_pass says non-monotone too
    frame = pd.DataFrame(list(rows.values()))
    full = frame.to_string(index=False, max_cols=0)
    for text in (frame.to_string(index=False), full):
        head, *body = text.splitlines()
        line = next(ln for ln in body if "booksim" in ln)
        if "first_fail" in head or "last_pass" in head:
            assert "non-monotone (fail 0.55 < pass 0.6)" in line
    assert "first_fail" in full and "last_pass" in full


def test_matrix_saturation_is_the_compact_tables_and_the_legends():
    res = _result({"reference": (0.5625, 0.55), "booksim": (0.5625, 0.55)})
    rows = {r["simulator"]: r for r in cm._summary_rows("Torus 4x4", "uniform", 33, res)}
    _, text = cv.compact_tables(res.table, res.saturation)
    shown = {ln.split()[0]: ln.split()[1] for ln in text.splitlines()[1:]
             if ln.startswith(("reference", "booksim"))}
    assert shown and {sim: f"{rows[sim]['saturation']:.3g}" for sim in shown} == shown
    # the highest sustained load, not the bracket's midpoint
    assert rows["booksim"]["saturation"] == rows["booksim"]["sat_low"] == 0.55


def test_a_saturation_table_without_the_column_gets_the_same_rule():
    s = pd.DataFrame([{"simulator": "booksim", "sat_low": 0.4, "sat_high": 0.45}]).set_index("simulator")
    assert cm._saturation(s, "booksim") == 0.4
    s = pd.DataFrame([{"simulator": "booksim", "sat_low": 0.4, "sat_high": float("inf")}]).set_index("simulator")
    assert cm._saturation(s, "booksim") != cm._saturation(s, "booksim")  # unbounded: nan
    assert cm._onsets(s, "booksim") == "monotone"
