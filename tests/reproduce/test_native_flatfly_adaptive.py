"""crossval --native flatfly with BookSim's credit-adaptive routings: adaptive_xyyx
(adaptive_xyyx_flatfly), ugal (ugal_flatfly_onchip) and ugal_xyyx against topogen's
flatfly-adaptive-xyyx, flatfly-ugal and flatfly-ugal-xyyx on the reference simulator;
(-m booksim) two loads below saturation on the real BookSim, and the quick matrix rows."""

import csv
import shutil

import pytest

from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import NATIVE_ROUTINGS, crossval_native, native_family
from topogen.reproduce.native_matrix import _EXPORT_WHAT, MATRIX, NOT_COMPARED, QUICK_MATRIX, reproduce_native

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")
ADAPTIVE = {"adaptive_xyyx": "flatfly-adaptive-xyyx", "ugal": "flatfly-ugal", "ugal_xyyx": "flatfly-ugal-xyyx"}


def test_adaptive_routings_map_to_topogens():
    for routing, mine in ADAPTIVE.items():
        assert routing in NATIVE_ROUTINGS["flatfly"]
        fam = native_family("flatfly", 4, 2, routing, c=4)
        assert fam.routing == mine and fam.booksim["routing_function"] == routing  # BookSim appends _flatfly
        assert fam.flow_control == "wormhole"  # halves of the VCs: BookSim's flit-level router
    with pytest.raises(ParameterError, match="hash of the destination"):
        native_family("flatfly", 4, 2, "ugal_pni", c=4)


def test_matrix_compares_the_rows_and_says_what_the_export_runs():
    for matrix in (MATRIX, QUICK_MATRIX):
        rows = {(f, r) for f, r, _ in matrix}
        for key in (("flatfly", "adaptive_xyyx"), ("flatfly", "ugal"), ("flatfly", "ugal_xyyx")):
            assert key in rows and key not in NOT_COMPARED
    assert "used credits" in _EXPORT_WHAT["flatfly", "adaptive_xyyx"]
    assert "intermediate" in _EXPORT_WHAT["flatfly", "ugal"] and "drawn" in _EXPORT_WHAT["flatfly", "ugal_xyyx"]


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
@pytest.mark.parametrize("routing,loads", [("adaptive_xyyx", (0.01, 0.6)), ("ugal", (0.01, 0.6))])
def test_flatfly_adaptive_routing_agrees(tmp_path, routing, loads):
    """4 x 4 routers, 1 node each, 3 seeds (BookSim saturates at 0.906 - 0.922 with
    adaptive_xyyx, 0.859 - 0.875 with ugal): zero load within 2 %, the loaded point
    (about 70 % of saturation) within 5 % or 2 standard errors."""
    res = crossval_native("flatfly", tmp_path / "out", k=4, n=2, c=1, routing=routing, loads=loads, repeats=3,
                          binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.structure == {"isomorphic": True, "identity": True}
    by = {(x["load"], x["column"]): x for x in res.lines}
    for load in loads:
        assert by[(load, "native")]["status"] == "completed"
        assert by[(load, "reference")]["verdict"].startswith("pass"), by[(load, "reference")]


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_quick_matrix_rows_are_compared(tmp_path):
    reproduce_native(quick=True, rows="flatfly:adaptive_xyyx,flatfly:ugal,flatfly:ugal_xyyx", repeats=2,
                     out=str(tmp_path / "nm"),
                     booksim=BOOKSIM, simulators="booksim")
    summ = {r["routing"]: r for r in csv.DictReader(open(tmp_path / "nm" / "native_summary.csv"))}
    assert set(summ) == set(ADAPTIVE)
    for routing, row in summ.items():
        assert row["topogen_routing"] == ADAPTIVE[routing]
        assert row["native_status"] == "completed"
        assert row["reference"] == "pass", row
