"""Small networks check deadlock on the NumPy closure (nothing compiled) with the compiled
closure's channels and dependencies."""

import numpy as np
import pytest

import topogen
from topogen import _sssp
from topogen.layout import default_layout
from topogen.routing import _cdg, check, deadlock, route


@pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")
@pytest.mark.parametrize("alg", ["dor", "nr", "updown"])
def test_small_network_takes_the_numpy_closure_with_the_same_graph(alg, monkeypatch):
    t = topogen.generate("torus", dims=(4, 4))
    r = route(t, default_layout(t), alg)
    assert len(r.view.indices) * r.view.n * r.num_vcs < deadlock.COMPILED_MIN_WORK
    calls = []
    real = _cdg.cdg
    monkeypatch.setattr(_cdg, "cdg", lambda routing: calls.append(1) or real(routing))
    small = deadlock.cdg(r)
    assert calls == []  # the NumPy closure ran
    compiled = real(r)
    for a, b in zip(small, compiled):
        assert np.array_equal(a, b)
    monkeypatch.setattr(deadlock, "COMPILED_MIN_WORK", 0)
    assert all(np.array_equal(a, b) for a, b in zip(deadlock.cdg(r), compiled))
    assert calls == [1]  # above the threshold: the compiled closure
    assert check(r).acyclic == (alg != "nr")


def test_check_deadlock_of_a_small_network_compiles_nothing(tmp_path, cold_probe):
    assert cold_probe("generate", "torus", "--dims", "4,4", "-o", "t.json")["code"] == 0
    assert cold_probe("route", "t.json", "-a", "dor", "-o", "r")["code"] == 0
    out = cold_probe("check-deadlock", "r")
    assert out["code"] == 0
    assert out["compiled"] == []
