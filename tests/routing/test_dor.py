import itertools

import pytest

from topogen import Topology
from topogen.errors import RoutingError
from topogen.generators.classic import hypercube, hyperx, mesh, torus
from topogen.routing import check, dor

from .conftest import python_cdg, ring


def _coords(v, dims):
    out = []
    for side in dims:
        out.append(v % side)
        v //= side
    return out


def _index(c, dims):
    v, mul = 0, 1
    for x, side in zip(c, dims):
        v += x * mul
        mul *= side
    return v


def _dor_path(s, d, dims, kind):
    """Independent per-pair DOR with the dateline VC rule (pure Python)."""
    cur = _coords(s, dims)
    tgt = _coords(d, dims)
    path, vcs = [s], []
    for k, side in enumerate(dims):
        vc = 0
        while cur[k] != tgt[k]:
            if kind == "torus":
                fwd = (tgt[k] - cur[k]) % side
                step = 1 if 2 * fwd <= side else -1
                nxt = (cur[k] + step) % side
                wrap = side >= 3 and abs(nxt - cur[k]) == side - 1
                if wrap:
                    vc = 1
            elif kind == "hyperx":
                nxt = tgt[k]
            else:
                nxt = cur[k] + (1 if tgt[k] > cur[k] else -1)
            cur[k] = nxt
            path.append(_index(cur, dims))
            vcs.append(vc if kind == "torus" else 0)
    return path, vcs


@pytest.mark.parametrize("topo,kind,dims", [
    (torus((4, 4)), "torus", (4, 4)),
    (torus((5, 3, 2)), "torus", (5, 3, 2)),
    (torus((6,)), "torus", (6,)),
    (mesh((4, 3)), "mesh", (4, 3)),
    (hypercube(4), "hypercube", (2, 2, 2, 2)),
    (hyperx((3, 4)), "hyperx", (3, 4)),
])
def test_dor_matches_independent_implementation(topo, kind, dims):
    r = dor(topo)
    n = topo.num_switches
    for s, d in itertools.product(range(n), range(n)):
        sw, vcs = r.path(s, d)
        p, v = _dor_path(s, d, dims, kind)
        assert sw.tolist() == p, (s, d)
        assert vcs.tolist() == v, (s, d)
    assert r.num_vcs == (2 if kind == "torus" else 1)


@pytest.mark.parametrize("topo", [torus((4, 4)), torus((5, 3)), torus((8,)), torus((3, 3, 3)),
                                  mesh((4, 3)), hypercube(4), hyperx((3, 4))])
def test_dor_is_deadlock_free(topo):
    r = dor(topo)
    rep = check(r)
    assert rep.acyclic and rep.cycle is None
    import networkx as nx

    routes = [r.path(s, d) for s in range(topo.num_switches) for d in range(topo.num_switches) if s != d]
    assert nx.is_directed_acyclic_graph(python_cdg(routes, r.num_vcs))


def test_dor_on_torus_with_one_vc_would_deadlock():
    # the same routes all on VC 0: the ring's channels form a cycle
    r = dor(torus((8,)))
    one = r.with_vcs(algorithm="dor-1vc", vc_rule="const", num_vcs=1)
    rep = check(one)
    assert not rep.acyclic
    assert len(rep.cycle) >= 3


def test_dor_vc_errors():
    with pytest.raises(RoutingError, match="needs at least 2 VCs, got 1"):
        dor(torus((4, 4)), num_vcs=1)
    assert dor(torus((4, 4)), num_vcs=3).num_vcs == 3
    with pytest.raises(RoutingError, match="no dimensions"):
        dor(ring(6))
    line = Topology(6, [(i, i + 1) for i in range(5)])
    with pytest.raises(RoutingError, match="does not match"):
        dor(line, kind="torus", dims=(6,))
    assert dor(line, kind="mesh", dims=(6,)).path(0, 5)[0].tolist() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(RoutingError):
        dor(torus((4, 4)), dims=(4, 3))
    # the ring on 6 switches is a torus of side 6 when declared so
    r = dor(ring(6), kind="torus", dims=(6,))
    assert r.path(0, 5)[0].tolist() == [0, 5]


def test_dor_tie_goes_plus():
    r = dor(torus((4,)))
    assert r.path(0, 2)[0].tolist() == [0, 1, 2]
    assert r.path(2, 0)[0].tolist() == [2, 3, 0]
    assert r.path(2, 0)[1].tolist() == [0, 1]  # the wrap hop 3->0 switches to VC 1


@pytest.mark.parametrize("name,kw,kind,dims", [
    ("cabinet-torus", dict(switches_per_cabinet=4, cabinets=9, degree=6), "torus", [4, 3, 3]),
    ("cabinet-hypercube", dict(switches_per_cabinet=4, cabinets=8), "hypercube", [2] * 5),
    ("cabinet-hyperx", dict(switches_per_cabinet=3, cabinets=6), "hyperx", [3, 2, 3]),
    ("flattened-butterfly", dict(k=3, n=3), "hyperx", [3, 3]),
])
def test_dor_on_skywalk_baselines(name, kw, kind, dims):
    """Skywalk's Torus/Hypercube/HyperX(z, c, d) and the flattened butterfly get DOR too."""
    import topogen

    topo = topogen.generate(name, **kw)
    r = dor(topo)
    assert r.params["kind"] == kind and r.params["dims"] == dims
    n = topo.num_switches
    for s, d in itertools.product(range(n), range(n)):
        sw, vcs = r.path(s, d)
        p, v = _dor_path(s, d, dims, kind)
        assert sw.tolist() == p and vcs.tolist() == v
    assert check(r).acyclic
