"""topogen reproduce native: the BookSim native matrix as a reproduction (rows, files,
verdicts), the small --quick run on the real BookSim (-m booksim)."""

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import NATIVE_FAMILIES, NATIVE_ROUTINGS
from topogen.reproduce.native_matrix import MATRIX, NOT_COMPARED, QUICK_MATRIX, matrix_rows

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")
ROOT = Path(__file__).resolve().parents[2]


def test_the_matrix_covers_every_native_family_and_routing():
    rows = {(f, r) for f, r, _ in MATRIX}
    for fam in NATIVE_FAMILIES:
        for routing in NATIVE_ROUTINGS[fam]:
            assert (fam, routing) in rows
    assert set(NOT_COMPARED) <= rows
    assert [(f, r) for f, r, _ in QUICK_MATRIX] == [(f, r) for f, r, _ in MATRIX]


def test_rows_selection():
    assert matrix_rows("mesh:romm, torus:dim_order", quick=True) == [QUICK_MATRIX[1], QUICK_MATRIX[3]]
    assert matrix_rows("all") == list(MATRIX)
    with pytest.raises(ParameterError, match="family:routing"):
        matrix_rows("mesh:xy")


def test_registered():
    spec = registry.experiment("native")
    assert {p.name for p in spec.params} >= {"quick", "rows", "repeats", "out"}


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_quick_run_writes_csv_and_markdown(tmp_path):
    """`topogen reproduce native --quick` on two compared rows and two that are not: the
    points table, the summary with verdicts and causes, and the files."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = tmp_path / "m"
    proc = subprocess.run([sys.executable, "-m", "topogen", "reproduce", "native", "--quick", "true", "--rows",
                           "mesh:dim_order,mesh:valiant,torus:romm,torus:valiant", "--repeats", "2", "--out",
                           str(out), "--booksim", BOOKSIM], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    with open(out / "native.csv") as fh:
        points = list(csv.DictReader(fh))
    assert {(p["family"], p["routing"], p["point"]) for p in points} == {
        ("mesh", "dim_order", "zero load"), ("mesh", "dim_order", "load"),
        ("mesh", "valiant", "zero load"), ("mesh", "valiant", "load")}
    for p in points:
        assert float(p["native"]) > 0 and float(p["reference"]) > 0
        assert p["reference_verdict"].startswith("pass"), p
    with open(out / "native_summary.csv") as fh:
        summary = {(s["family"], s["routing"]): s for s in csv.DictReader(fh)}
    assert summary["mesh", "dim_order"]["isomorphic"] == "True"
    assert summary["torus", "romm"]["verdict"] == "not compared"
    assert summary["torus", "romm"]["native_status"] == "not run"
    # a 3x3 torus has no hop that continues in a dimension: BookSim's valiant_torus runs there
    assert summary["torus", "valiant"]["native_status"] == "completed"
    md = (out / "native.md").read_text()
    assert "| mesh | valiant | k=3 n=2 | valiant-booksim | True |" in md
    assert "romm_mesh" in md


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_booksims_valiant_torus_stops_on_its_assertion_from_k_4(tmp_path):
    """Why torus valiant is not compared: on a 4-ring a hop continues in its dimension,
    where valiant_torus reads its unset ring partition and fails its own assertion."""
    from topogen.reproduce.native_matrix import _try_native

    status = _try_native("torus", "valiant", {"k": 4, "n": 2}, tmp_path, BOOKSIM, 600)
    assert status.startswith("crash") and "ring_part == 1" in status
    assert _try_native("torus", "dim_order", {"k": 4, "n": 2}, tmp_path / "b", BOOKSIM, 600) == "completed"


def test_row_verdicts_and_causes(monkeypatch, tmp_path):
    """The summary of a row from crossval_native's lines: pass / FAIL per column, the row's
    verdict, and a cause for each column that differs (no BookSim: a stand-in result)."""
    import math

    import topogen.reproduce.crossval_native as cn
    from topogen.reproduce.native_matrix import _run_row, markdown_table

    def fake(family, out_dir, **kw):
        fam = cn.native_family(family, routing=kw["routing"], k=kw["k"], n=kw["n"])
        lines = []
        for load, verdicts in ((0.01, ("pass", "pass")), (0.2, ("pass (noise)", "FAIL"))):
            lines.append({"column": "native", "load": load, "latency_cycles": 50.0, "latency_sem": 0.5,
                          "status": "completed"})
            for col, v in zip(("reference", "export"), verdicts):
                lines.append({"column": col, "load": load, "latency_cycles": 51.0, "latency_sem": 0.5,
                              "status": "completed", "ratio": 1.02, "verdict": v})
        sat = {"native": {"low": 0.4, "high": 0.41, "saturation": 0.405},
               "reference": {"low": 0.39, "high": 0.4, "saturation": 0.395, "ratio": 0.975, "verdict": "pass"},
               "export": {"low": 0.5, "high": 0.51, "saturation": 0.505, "ratio": 1.25, "verdict": "FAIL"}}
        return cn.NativeResult(fam, 1, lines, {"isomorphic": True, "identity": True}, [], sat)

    monkeypatch.setattr(cn, "crossval_native", fake)
    points, summary = _run_row("mesh", "valiant", {"k": 4, "n": 2}, tmp_path, quick=False, repeats=2, seed=1,
                               binary=None, timeout=1.0)
    assert [p["point"] for p in points] == ["zero load", "load", "saturation"]
    assert math.isclose(points[2]["native"], 0.405) and points[2]["export_verdict"] == "FAIL"
    assert summary["reference"] == "pass" and summary["export"] == "FAIL"
    assert summary["verdict"] == "reference agrees"
    assert "Valiant" in summary["cause"] and "reference:" not in summary["cause"]
    md = markdown_table(points, [summary])
    assert "| mesh | valiant | saturation | - | 0.405 | 0.395 (0.975, pass) | 0.505 (1.25, FAIL) |" in md
