"""crossval --native torus --routing min_adapt: BookSim's min_adapt_torus against
topogen's min-adapt on the reference simulator's flit-level router; (-m booksim) two loads
below saturation on the real BookSim with 3 seeds, and the quick matrix row compared."""

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from topogen.reproduce.crossval_native import NATIVE_ROUTINGS, crossval_native, native_family
from topogen.reproduce.native_matrix import _EXPORT_WHAT, _NATIVE_TRY, MATRIX, NOT_COMPARED, QUICK_MATRIX

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")
ROOT = Path(__file__).resolve().parents[2]


def test_min_adapt_maps_to_min_adapt_on_the_flit_level_router():
    fam = native_family("torus", 4, 2, "min_adapt")
    assert fam.routing == "min-adapt" and fam.booksim["routing_function"] == "min_adapt"
    assert fam.link_latency == 2 and fam.num_vcs == 4 and fam.flow_control == "wormhole"
    assert "min_adapt" in NATIVE_ROUTINGS["torus"]


def test_the_matrix_row_is_compared():
    key = ("torus", "min_adapt")
    assert key in {(f, r) for f, r, _ in MATRIX} and key in {(f, r) for f, r, _ in QUICK_MATRIX}
    assert key not in NOT_COMPARED and key not in _NATIVE_TRY
    assert "escape" in _EXPORT_WHAT[key]  # why anynet's min is not this routing


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_min_adapt_agrees(tmp_path):
    """4x4 torus (2-cycle channels), 3 seeds: zero load within 2 %, 0.42 (about half the
    native saturation, 0.85) within 5 % or 2 standard errors."""
    res = crossval_native("torus", tmp_path / "out", k=4, n=2, routing="min_adapt", loads=(0.01, 0.42),
                          repeats=3, binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.structure["isomorphic"] and res.structure["identity"]
    ref = [x for x in res.lines if x["column"] == "reference"]
    assert len(ref) == 2
    for x in ref:
        assert x["verdict"].startswith("pass"), x


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_quick_matrix_row_is_compared(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = tmp_path / "m"
    proc = subprocess.run([sys.executable, "-m", "topogen", "reproduce", "native", "--quick", "true", "--rows",
                           "torus:min_adapt", "--repeats", "2", "--out", str(out), "--booksim", BOOKSIM],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    with open(out / "native_summary.csv") as fh:
        summary = {(s["family"], s["routing"]): s for s in csv.DictReader(fh)}
    row = summary["torus", "min_adapt"]
    assert row["topogen_routing"] == "min-adapt" and row["isomorphic"] == "True"
    assert row["reference"] == "pass", row
    assert row["verdict"] in ("agrees", "reference agrees"), row
    with open(out / "native.csv") as fh:
        points = [p for p in csv.DictReader(fh) if p["routing"] == "min_adapt"]
    assert {p["point"] for p in points} == {"zero load", "load"}
    for p in points:
        assert float(p["native"]) > 0 and float(p["reference"]) > 0
