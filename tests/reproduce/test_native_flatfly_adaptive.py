"""crossval --native flatfly with BookSim's credit-adaptive routings: adaptive_xyyx
(adaptive_xyyx_flatfly), ugal (ugal_flatfly_onchip) and ugal_xyyx against topogen's
flatfly-adaptive-xyyx, flatfly-ugal and flatfly-ugal-xyyx on the reference simulator;
(-m booksim) the quick matrix rows on the real BookSim (two loads below saturation per
routing: test_native_flatfly_routings)."""

import csv
import shutil

import pytest

from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import NATIVE_ROUTINGS, native_family
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
