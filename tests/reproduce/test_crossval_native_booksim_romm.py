"""crossval --native mesh with BookSim's two-phase routings on the real BookSim (-m booksim):
romm (romm_mesh) and valiant (valiant_mesh) against topogen's romm and valiant-booksim on
the reference simulator, 2 loads below saturation, 3 seeds."""

import shutil

import pytest

from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import crossval_native, native_family

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")


def test_mesh_routings_map_to_topogens_and_the_torus_says_why_not():
    assert native_family("mesh", 4, 2, "romm").routing == "romm"
    assert native_family("mesh", 4, 2, "valiant").routing == "valiant-booksim"
    assert native_family("mesh", 4, 2, "valiant").booksim["routing_function"] == "valiant"
    # two VCs per phase: the reference runs BookSim's flit-level router (docs/crossval.md)
    assert native_family("mesh", 4, 2, "romm").flow_control == "wormhole"
    assert native_family("mesh", 4, 2, "dim_order").flow_control == "vct"
    with pytest.raises(ParameterError, match="ring_part"):
        native_family("torus", 4, 2, "valiant")
    with pytest.raises(ParameterError, match="romm_mesh"):
        native_family("torus", 4, 2, "romm")


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
@pytest.mark.parametrize("routing,loads", [("romm", (0.01, 0.3)), ("valiant", (0.01, 0.15))])
def test_mesh_two_phase_routing_agrees(tmp_path, routing, loads):
    """4x4 mesh, 3 seeds: zero load within 2 %, the loaded point (romm: 0.3, about 45 % of
    its saturation; valiant: 0.15, about half of its) within 5 % or 2 standard errors."""
    res = crossval_native("mesh", tmp_path / "out", k=4, n=2, routing=routing, loads=loads, repeats=3,
                          binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.structure["isomorphic"] and res.structure["identity"]
    for x in res.lines:
        if x["column"] == "reference":
            assert x["verdict"].startswith("pass"), x
