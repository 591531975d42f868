"""crossval --native on the real BookSim for the families beyond the k-ary n-cube
(-m booksim): BookSim's dragonflynew with min routing against topogen's dragonfly."""

import shutil

import pytest

from topogen.reproduce.crossval_native import crossval_native

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_dragonflynew_min_zero_load(tmp_path):
    """72 terminals (k=2), local channels of 10 cycles and global ones of 100
    (dragonfly.cpp's DRAGON_LATENCY), 2 VCs: zero-load latency within 2 % on the
    reference simulator and on topogen's export, 2 seeds each."""
    res = crossval_native("dragonfly", tmp_path / "out", k=2, n=1, loads=(0.01,), repeats=2, binary=BOOKSIM,
                          saturation=False)
    assert res.structure == {"isomorphic": True, "identity": True}
    by = {x["column"]: x for x in res.lines}
    assert by["native"]["status"] == "completed"
    # the 110-cycle minimum of a local-global-local path shows: this is not a 1-cycle network
    assert by["native"]["latency_cycles"] > 120
    for col in ("reference", "export"):
        assert by[col]["verdict"] == "pass", by[col]


@pytest.mark.booksim
@pytest.mark.slow  # a loaded point on BookSim and the flit-level model: in the slow run
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_dragonflynew_min_under_load_on_the_wormhole_router(tmp_path):
    """At 0.2 flits/node/cycle (75 % of BookSim's saturation) the 100-cycle global
    channels make the flow control show: BookSim's router moves a flit with one credit,
    the packet-level model waits for credits for all 33 flits (measured 1.24 of native
    with 3 seeds).  The native mode's reference column runs the flit-level router and
    agrees, 3 seeds."""
    from topogen.reproduce.crossval_native import native_family

    assert native_family("dragonfly", 2, 1).flow_control == "wormhole"
    res = crossval_native("dragonfly", tmp_path / "out", k=2, n=1, loads=(0.2,), repeats=3, binary=BOOKSIM,
                          saturation=False, columns=("native", "reference"))
    by = {x["column"]: x for x in res.lines}
    assert by["native"]["status"] == "completed"
    assert by["reference"]["verdict"].startswith("pass"), by["reference"]


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_dragonflynew_ugal_zero_load(tmp_path):
    """BookSim's ugal (3 VCs) against topogen's ugal-booksim at zero load: an empty
    network routes minimally in both, within 2 %, 2 seeds."""
    res = crossval_native("dragonfly", tmp_path / "out", k=2, n=1, routing="ugal", loads=(0.01,), repeats=2,
                          binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.family.routing == "ugal-booksim" and res.family.num_vcs == 3
    by = {x["column"]: x for x in res.lines}
    assert by["native"]["status"] == "completed"
    assert by["reference"]["verdict"] == "pass", by["reference"]
