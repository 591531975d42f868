"""crossval --native torus --routing dim_order_bal: BookSim's dim_order_bal_torus against
topogen's dor-bal on the reference simulator (romm refused with the reason); (-m
booksim) two loads below saturation on the real BookSim, 3 seeds."""

import shutil

import pytest

from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import crossval_native, native_family

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")


def test_dim_order_bal_maps_to_dor_bal_and_romm_says_why_not():
    fam = native_family("torus", 4, 2, "dim_order_bal")
    assert fam.routing == "dor-bal" and fam.booksim["routing_function"] == "dim_order_bal"
    assert fam.link_latency == 2 and fam.flow_control == "vct"  # as dim_order's row
    assert native_family("torus", 4, 2).routing == "dor-random"
    with pytest.raises(ParameterError, match="romm_mesh"):
        native_family("torus", 4, 2, "romm")


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_dim_order_bal_agrees(tmp_path):
    """4x4 torus (2-cycle channels), 3 seeds: zero load within 2 %, 0.45 (about half the
    native saturation) within 5 % or 2 standard errors."""
    res = crossval_native("torus", tmp_path / "out", k=4, n=2, routing="dim_order_bal", loads=(0.01, 0.45),
                          repeats=3, binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.structure["isomorphic"] and res.structure["identity"]
    for x in res.lines:
        if x["column"] == "reference":
            assert x["verdict"].startswith("pass"), x
