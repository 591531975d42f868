"""topogen reproduce native with SST merlin's own networks: the SST rows, the simulator
column, the not-run line and refusal when a simulator is missing, and two --quick SST rows
on the real SST (-m sst)."""

import csv
import math
import os
import shutil
from pathlib import Path

import pytest

from topogen.errors import ParameterError, SimulatorNotFound
from topogen.reproduce.crossval_native_sst import SST_DEFAULT_SIZES, SST_ROUTINGS, merlin_network
from topogen.reproduce.native_matrix import (MATRIX, SST_MATRIX, SST_QUICK_MATRIX, markdown_table,
                                             reproduce_native, selected_rows)

SST_BIN = "/opt/sst/bin"
HAS_SST = os.path.exists(os.path.join(SST_BIN, "sst")) or shutil.which("sst") is not None


def test_sst_rows_are_every_merlin_family_and_routing_compared():
    want = [(f, r) for f, rs in SST_ROUTINGS.items() for r in rs]
    assert [(f, r) for f, r, _ in SST_MATRIX] == want
    assert [(f, r) for f, r, _ in SST_QUICK_MATRIX] == want
    for f, _, sizes in SST_MATRIX:
        assert (sizes["k"], sizes["n"]) == SST_DEFAULT_SIZES[f]
    for f, r, sizes in SST_QUICK_MATRIX:
        full = dict(next(s for ff, rr, s in SST_MATRIX if (ff, rr) == (f, r)))
        assert merlin_network(f, routing=r, **sizes).graph().number_of_nodes() <= \
            merlin_network(f, routing=r, **full).graph().number_of_nodes()
    assert ("hyperx", "VDAL") in want and ("dragonfly", "adaptive-local") in want


def test_row_selection_by_simulator():
    both = selected_rows("all", quick=True)
    assert [x[0] for x in both] == ["booksim"] * len(MATRIX) + ["sst"] * len(SST_MATRIX)
    assert selected_rows("all", quick=False, simulators=("sst",)) == [("sst",) + r for r in SST_MATRIX]
    # dragonfly ugal exists in both: unprefixed takes both, prefixed one
    assert [x[0] for x in selected_rows("dragonfly:ugal", True)] == ["booksim", "sst"]
    assert selected_rows("sst:dragonfly:ugal,dragonfly:ugal", True, ("sst",)) == \
        [("sst", "dragonfly", "ugal", {"k": 1, "n": 1})]
    with pytest.raises(ParameterError, match="sst:hyperx:DOAL"):
        selected_rows("hyperx:doal", True)
    with pytest.raises(ParameterError, match="simulators must be among"):
        selected_rows("all", True, ("gem5",))


def _fake_sst_result(family, routing, export):
    import topogen.reproduce.crossval_native as cn

    lines = []
    for load, lat in ((0.01, 40.0), (0.2, 48.0)):
        lines.append({"column": "native", "load": load, "latency_cycles": lat, "status": "completed"})
        lines.append({"column": "reference", "load": load, "latency_cycles": lat * 1.01, "status": "completed",
                      "ratio": 1.01, "verdict": "pass"})
        if export:
            lines.append({"column": "export", "load": load, "latency_cycles": lat * 1.2, "status": "completed",
                          "ratio": 1.2, "verdict": "FAIL"})
    fam = cn.NativeFamily(family, 1, 1, {}, "g", {}, "r", 1)
    notes = ["native: ...", "reference: ...",
             "export: topogen's SST export ..." if export else "export: not run: it chooses at run time"]
    return cn.NativeResult(fam, 1, lines, {"isomorphic": True, "identity": True}, notes, {})


def test_sst_rows_take_the_matrix_verdicts_and_column(monkeypatch, tmp_path):
    """SST rows through the same summary as BookSim's: an export that fails makes the row
    'reference agrees' with its cause; an export not run is listed with crossval_native_sst's
    reason, never as a pass."""
    import topogen.reproduce.crossval_native_sst as cns
    from topogen.reproduce.native_matrix import _run_sst_row

    monkeypatch.setattr(cns, "crossval_native_sst",
                        lambda out, family, routing, **kw: _fake_sst_result(family, routing, routing == "valiant"))
    pts, s = _run_sst_row("hyperx", "valiant", {"k": 3, "n": 2}, tmp_path, quick=True, repeats=1, seed=1,
                          binary=None, timeout=1.0)
    assert [p["simulator"] for p in pts] == ["sst", "sst"] and s["simulator"] == "sst"
    assert (s["reference"], s["export"], s["verdict"]) == ("pass", "FAIL", "reference agrees")
    assert s["topogen_routing"] == "merlin-hyperx-valiant" and "merlin.anytopo" in s["cause"]
    pts2, s2 = _run_sst_row("hyperx", "DOAL", {"k": 3, "n": 2}, tmp_path, quick=True, repeats=1, seed=1,
                            binary=None, timeout=1.0)
    assert (s2["export"], s2["verdict"]) == ("not run", "reference agrees")
    assert s2["cause"] == "export not run: it chooses at run time"
    assert all(math.isnan(p["export"]) for p in pts2)
    md = markdown_table(pts + pts2, [s, s2])
    assert "| sst | hyperx | valiant | zero load | 0.01 | 40 | 40.4 (1.01, pass) | 48 (1.2, FAIL) |" in md
    assert "| sst | hyperx | DOAL | k=3 n=2 | merlin-hyperx-doal | True | pass | not run | reference agrees |" in md


def test_a_missing_simulator_is_listed_as_not_run(monkeypatch, tmp_path):
    """Default simulators: both; SST missing -> its rows 'not run' with the driver's message,
    BookSim's rows still run (a stand-in here); nothing to run -> SimulatorNotFound."""
    import topogen.reproduce.native_matrix as nm

    monkeypatch.setenv("TOPOGEN_SST", str(tmp_path / "no-sst"))
    monkeypatch.setenv("PATH", str(tmp_path))
    ran = []

    def fake_row(family, routing, sizes, out_dir, **kw):
        ran.append((family, routing))
        return [], {"simulator": "booksim", "family": family, "routing": routing, "size": "", "topogen_routing": "x",
                    "isomorphic": True, "native_status": "completed", "reference": "pass", "export": "pass",
                    "verdict": "agrees", "cause": "-", "cpu_s": 0.0}

    monkeypatch.setattr(nm, "_run_row", fake_row)
    (tmp_path / "booksim").write_text("#!/bin/sh\n")
    (tmp_path / "booksim").chmod(0o755)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "booksim"))
    res = reproduce_native(quick=True, rows="mesh:romm,hyperx:DOR", repeats=1, out=str(tmp_path / "nm"))
    assert ran == [("mesh", "romm")]
    summ = list(csv.DictReader(open(tmp_path / "nm" / "native_summary.csv")))
    assert [(r["simulator"], r["family"], r["verdict"]) for r in summ] == [("booksim", "mesh", "agrees"),
                                                                            ("sst", "hyperx", "not run")]
    assert "sst" in summ[1]["cause"] and str(tmp_path / "no-sst") in summ[1]["cause"]
    assert any(n.startswith("sst: not run: ") for n in res.notes)
    assert open(tmp_path / "nm" / "native.csv").readline().startswith("simulator,family,")
    with pytest.raises(SimulatorNotFound, match="no simulator to run"):
        reproduce_native(quick=True, simulators="sst", out=str(tmp_path / "nm2"))
    with pytest.raises(ParameterError, match="simulators must be"):
        reproduce_native(quick=True, simulators="booksim,gem5", out=str(tmp_path / "nm3"))


@pytest.mark.sst
@pytest.mark.skipif(not HAS_SST, reason="SST not installed")
def test_two_quick_sst_rows_on_sst(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", SST_BIN + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
    monkeypatch.setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    reproduce_native(quick=True, simulators="sst", rows="torus:dor,dragonfly:ugal", repeats=1,
                     out=str(tmp_path / "nm"), timeout=300)
    summ = list(csv.DictReader(open(tmp_path / "nm" / "native_summary.csv")))
    assert [(r["simulator"], r["family"], r["routing"]) for r in summ] == [("sst", "torus", "dor"),
                                                                           ("sst", "dragonfly", "ugal")]
    assert all(r["isomorphic"] == "True" and r["reference"] == "pass" for r in summ)
    assert summ[0]["export"] == "pass" and summ[1]["export"] == "not run"
    points = list(csv.DictReader(open(tmp_path / "nm" / "native.csv")))
    assert len(points) == 4 and all(p["simulator"] == "sst" and float(p["native"]) > 0 for p in points)
    assert Path(tmp_path / "nm" / "native.md").read_text().count("| sst |") == 6
