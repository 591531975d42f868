"""The compiled channel-dependency closure (topogen.routing._cdg) against the NumPy one
of TableRouting.dependency_chunks, for every VC rule and phased (up*/down*) tables."""

import numpy as np
import pytest

import topogen
from topogen import _sssp
from topogen.layout import default_layout
from topogen.routing import _cdg, check, route
from topogen.routing.deadlock import cdg

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")


def numpy_cdg(r):
    c_total = len(r.view.indices) * r.num_vcs
    used, keys = [], []
    for ch, a, b in r.dependency_chunks(None):
        used.append(ch)
        if len(a):
            keys.append(np.unique(a * c_total + b))
    return np.unique(np.concatenate(used)), np.unique(np.concatenate(keys)), c_total


CASES = [
    ("random", "nr", {}), ("random", "fr", {}), ("random", "updown", {}),
    ("random", "hop", {"base": "nr"}), ("random", "layered", {"base": "nr", "vcs": 16}),
    ("torus", "dor", {}), ("torus", "nr", {}), ("torus", "updown", {}),
    ("torus", "layered", {"base": "fr", "vcs": 8}),
]


@pytest.mark.parametrize("kind,alg,kw", CASES)
def test_compiled_closure_equals_numpy(kind, alg, kw):
    t = (topogen.generate("random", num_switches=150, degree=5, seed=4) if kind == "random"
         else topogen.generate("torus", dims=(5, 4, 3)))
    r = route(t, default_layout(t), alg, **kw)
    assert _cdg.usable(r)
    a = numpy_cdg(r)
    b = _cdg.cdg(r)
    assert b is not None
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]
    assert np.array_equal(cdg(r)[1], a[1])


def test_verdicts_and_cycles():
    t = topogen.generate("torus", dims=(4, 4))
    nr = route(t, None, "nr")
    rep = check(nr)
    assert not rep.acyclic and len(rep.cycle) >= 2  # NR on a torus has cyclic dependencies
    for (u, v, _), (u2, _, _) in zip(rep.cycle, rep.cycle[1:] + rep.cycle[:1]):
        assert v == u2  # consecutive channels
    assert check(route(t, None, "updown")).acyclic


def test_hop_rule_beyond_its_vcs_falls_back():
    t = topogen.generate("random", num_switches=60, degree=4, seed=2)
    r = route(t, None, "hop", base="nr")
    short = r.with_vcs(algorithm="hop", vc_rule="hop", num_vcs=1)
    assert _cdg.cdg(short) is None  # VC of hop 2 does not exist: the NumPy closure decides
    assert cdg(short)[2] == len(short.view.indices)
