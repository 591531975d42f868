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
