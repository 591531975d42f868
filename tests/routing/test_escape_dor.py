"""Duato's protocol with dimension-order escape paths (``escape(..., escape_paths="dor")``):
the escape routes are DOR's, pair by pair; their VCs follow the dateline rule; the engines'
per-(state, switch, destination) escape table walks the same routes with the same VCs; the
deadlock check sees the escape VC classes (acyclic with two dateline VCs on a torus, cyclic
when the same routes share one VC)."""

import itertools

import numpy as np
import pytest

import topogen
from topogen.errors import ParameterError, RoutingError
from topogen.routing import dor, escape, route
from topogen.routing.deadlock import check
from topogen.routing.escape import EscapeRouting

from .test_dor import _coords, _dor_path


def _nets():
    return {
        "torus4x4": topogen.generate("torus", dims=(4, 4)),
        "torus5x3": topogen.generate("torus", dims=(5, 3)),
        "torus6x4x3": topogen.generate("torus", dims=(6, 4, 3)),
        "hypercube5": topogen.generate("hypercube", dimension=5),
        "mesh4x3": topogen.generate("mesh", dims=(4, 3)),
    }


NETS = _nets()


def _walk_table(r, s, d):
    """The escape route as the engines take it: state 0 at ``s``, then the table's next
    hop, VC and state at each switch."""
    ranks, vc, state = r.escape_table()
    v, st, sw, vcs = s, 0, [s], []
    indptr, indices = r.view.indptr, r.view.indices
    while v != d:
        assert len(sw) <= r.num_switches
        e = int(indptr[v]) + int(ranks[st, v, d])
        vcs.append(int(vc[st, v, d]))
        st = int(state[st, v, d])
        v = int(indices[e])
        sw.append(v)
    return sw, vcs


@pytest.mark.parametrize("name", sorted(NETS))
def test_escape_routes_are_dor_pair_by_pair(name):
    t = NETS[name]
    r = escape(t, num_vcs=4, base="nr", escape_paths="dor")
    ref = dor(t)
    kind = t.name
    dims = (2,) * t.params["dimension"] if kind == "hypercube" else tuple(t.params["dims"])
    n = t.num_switches
    for s, d in itertools.product(range(n), repeat=2):
        sw, vcs = r.escape_path(s, d)
        rsw, rvcs = ref.path(s, d)
        assert sw.tolist() == rsw.tolist() and vcs.tolist() == rvcs.tolist()
        esw, evcs = _dor_path(s, d, dims, kind)
        assert sw.tolist() == esw and vcs.tolist() == evcs, (s, d)
        assert _walk_table(r, s, d) == (esw, evcs), (s, d)


def test_vc_classes_follow_the_dateline_rule():
    """On a torus both escape VCs are used (VC 1 exactly from the wrap hop to the end of
    its dimension); on the hypercube and mesh only VC 0."""
    t = NETS["torus6x4x3"]
    r = escape(t, num_vcs=4, base="nr", escape_paths="dor")
    assert r.escape_classes == 2 and r.adaptive_vcs == (2, 3)
    used = set()
    for s in range(t.num_switches):
        for d in range(t.num_switches):
            sw, vcs = r.escape_path(s, d)
            used.update(vcs.tolist())
            for i, vc in enumerate(vcs.tolist()):
                a, b = _coords(int(sw[i]), (6, 4, 3)), _coords(int(sw[i + 1]), (6, 4, 3))
                k = next(j for j in range(3) if a[j] != b[j])
                # crossed the wrap of dimension k on this hop or before it in this dimension
                crossed = False
                for j in range(i, -1, -1):
                    x, y = _coords(int(sw[j]), (6, 4, 3)), _coords(int(sw[j + 1]), (6, 4, 3))
                    if x[k] == y[k]:
                        break
                    if abs(x[k] - y[k]) == (6, 4, 3)[k] - 1:
                        crossed = True
                assert vc == int(crossed), (s, d, i)
    assert used == {0, 1}
    for name in ("hypercube5", "mesh4x3"):
        h = escape(NETS[name], num_vcs=4, base="nr", escape_paths="dor")
        assert h.escape_classes == 1 and h.adaptive_vcs == (1, 2, 3)
        _, vc, state = h.escape_table()
        assert not vc.any() and not state.any()


def test_cdg_acyclic_with_two_escape_vcs_and_cyclic_with_one():
    for name in ("torus4x4", "torus5x3", "torus6x4x3", "hypercube5", "mesh4x3"):
        rep = check(escape(NETS[name], num_vcs=4, base="nr", escape_paths="dor"))
        assert rep.acyclic, name
        assert "dimension-order" in rep.checked
    t = NETS["torus5x3"]
    r = escape(t, num_vcs=4, base="nr", escape_paths="dor")
    rep = check(r)
    assert rep.vcs_used == 2
    # the same DOR escape routes, all on one VC: the rings close cycles
    one = r.escape_routing.with_vcs(algorithm="dor", vc_rule="const", num_vcs=1, vc_const=0)
    bad = EscapeRouting(r.minimal, one, num_vcs=4, params=dict(r.params, escape_vcs=[0], adaptive_vcs=[1, 2, 3]))
    assert bad.escape_classes == 1
    rep1 = check(bad)
    assert not rep1.acyclic and rep1.cycle is not None and rep1.vcs_used == 1


def test_default_is_unchanged_updown():
    t = NETS["torus4x4"]
    a = escape(t, num_vcs=4, base="nr")
    assert a.escape_paths == "updown" and a.escape_classes == 1 and "escape_paths" not in a.params
    assert a.params == escape(t, num_vcs=4, base="nr", escape_paths="updown").params
    sw, vcs = a.escape_path(0, 10)
    assert not vcs.any()
    assert route(t, None, "escape", base="nr").params == a.params
    b = route(t, None, "escape-dor", base="nr")
    assert b.escape_paths == "dor" and b.params["escape_vcs"] == [0, 1]
    assert b.path(0, 10)[1].tolist() == [2] * (len(b.path(0, 10)[0]) - 1)  # first adaptive VC


def test_refusals():
    t = NETS["torus4x4"]
    with pytest.raises(RoutingError, match="at least 3 VCs"):
        escape(t, num_vcs=2, base="nr", escape_paths="dor")
    escape(NETS["hypercube5"], num_vcs=2, base="nr", escape_paths="dor")  # 1 escape + 1 adaptive
    with pytest.raises(ParameterError, match="escape_paths='updown'"):
        escape(t, num_vcs=4, base="nr", escape_paths="dor", adaptive="updown")
    with pytest.raises(ParameterError, match="escape_paths must be"):
        escape(t, num_vcs=4, base="nr", escape_paths="dateline")
    rnd = topogen.generate("random", num_switches=12, degree=4, seed=1)
    with pytest.raises(RoutingError, match="dimension-order"):
        escape(rnd, num_vcs=4, base="nr", escape_paths="dor")


def test_saved_and_loaded(tmp_path):
    from topogen.routing import load_routing

    t = NETS["torus5x3"]
    r = escape(t, num_vcs=4, base="nr", escape_paths="dor")
    r.save(tmp_path / "r")
    back = load_routing(tmp_path / "r", topology=t)
    assert back.escape_paths == "dor" and back.escape_classes == 2
    for a, b in zip(r.escape_table(), back.escape_table()):
        np.testing.assert_array_equal(a, b)
