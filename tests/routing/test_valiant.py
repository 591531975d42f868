import networkx as nx
import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.routing import check, nearest, ugal_candidates, ugal_select, valiant
from topogen import Topology

from .conftest import petersen, python_cdg


def _slimfly():
    from topogen.generators.slimfly import slimfly

    return slimfly(5)


def test_valiant_paths_and_vcs():
    topo = _slimfly()
    base = nearest(topo)
    v = valiant(base, seed=7)
    assert v.num_vcs == 4  # Slim Fly IV-D: four VCs for VAL
    rng = np.random.default_rng(1)
    for _ in range(300):
        s, d = (int(x) for x in rng.integers(0, topo.num_switches, 2))
        sw, vcs = v.path(s, d, rng)
        if s == d:
            assert sw.tolist() == [s]
            continue
        assert sw[0] == s and sw[-1] == d
        assert vcs.tolist() == list(range(len(vcs)))
        # it is the concatenation of two minimal paths through some mid != s, d
        ok = False
        for k in range(1, len(sw) - 1):
            m = int(sw[k])
            if m in (s, d):
                continue
            if (np.array_equal(sw[:k + 1], base.path(s, m)[0])
                    and np.array_equal(sw[k:], base.path(m, d)[0])):
                ok = True
                break
        assert ok
        assert 2 <= len(vcs) <= 4


def test_valiant_reproducible():
    base = nearest(petersen())
    a = valiant(base, seed=3)
    b = valiant(base, seed=3)
    pa = [a.path(0, 5)[0].tolist() for _ in range(20)]
    pb = [b.path(0, 5)[0].tolist() for _ in range(20)]
    assert pa == pb
    r1 = [a.path(1, 2, np.random.default_rng(9))[0].tolist() for _ in range(3)]
    assert r1[0] == r1[1] == r1[2]
    mids = {a.draw_intermediate(0, 5, np.random.default_rng(i)) for i in range(200)}
    assert mids == set(range(10)) - {0, 5}


@pytest.mark.parametrize("make", [petersen, lambda: torus((3, 3)), _slimfly])
def test_valiant_deadlock_free_superset(make):
    topo = make()
    v = valiant(nearest(topo), seed=1)
    rep = check(v)
    assert rep.acyclic
    # every actual Valiant route's dependencies are inside the checked superset
    n = topo.num_switches
    routes = [v.path_via(s, m, d) for s in range(n) for d in range(n) for m in range(n)
              if len({s, m, d}) == 3]
    g = python_cdg(routes, v.num_vcs)
    assert nx.is_directed_acyclic_graph(g)
    assert g.number_of_edges() <= rep.num_dependencies


def test_ugal_candidates_and_select():
    topo = _slimfly()
    base = nearest(topo)
    c = ugal_candidates(base, 0, 17, k=4, seed=5)
    assert len(c.paths) == 5 and c.intermediates[0] == -1
    assert np.array_equal(c.paths[0][0], base.path(0, 17)[0])
    assert c.hops.tolist() == [len(p[0]) - 1 for p in c.paths]
    c2 = ugal_candidates(base, 0, 17, k=4, seed=5)
    assert [p[0].tolist() for p in c.paths] == [p[0].tolist() for p in c2.paths]
    m = len(base.view.indices)
    q = np.zeros(m)
    assert ugal_select(c, q, "local") == 0  # all idle: MIN (lowest index on ties)
    assert ugal_select(c, q, "global", routing=base) == 0
    # congest MIN's first link: UGAL-L moves to a VAL candidate leaving on another link
    q[c.first_entries[0]] = 100.0
    pick = ugal_select(c, q, "local")
    others = [i for i in range(1, 5) if c.first_entries[i] != c.first_entries[0]]
    if others:
        assert pick in others
    # UGAL-G sums queues along the path
    q2 = np.zeros(m)
    e = base.view.entry(c.paths[0][0][:-1], c.paths[0][0][1:])
    q2[e] = 50.0
    g_pick = ugal_select(c, q2, "global", routing=base)
    cost = [q2[base.view.entry(p[0][:-1], p[0][1:])].sum() for p in c.paths]
    assert g_pick == int(np.argmin(cost))
    with pytest.raises(ParameterError):
        ugal_select(c, q, "other")


def test_valiant_needs_three_switches():
    with pytest.raises(ParameterError, match="at least 3"):
        valiant(nearest(Topology(2, [(0, 1)])))


def test_valiant_num_vcs_and_candidates_as_data():
    import json

    from topogen.errors import RoutingError

    base = nearest(_slimfly())
    with pytest.raises(RoutingError, match="needs at least 4 VCs .*got 3"):
        valiant(base, seed=1, num_vcs=3)
    v = valiant(base, seed=1, num_vcs=6)
    assert v.num_vcs == 6 and check(v).acyclic
    c = ugal_candidates(base, 3, 40, k=4, seed=2)
    d = json.loads(json.dumps(c.as_dict()))
    assert d["paths"][0] == base.path(3, 40)[0].tolist() and d["intermediates"][0] == -1
    assert [len(p) - 1 for p in d["paths"]] == d["hops"] == [len(x) for x in d["vcs"]]
    for p, m in zip(d["paths"][1:], d["intermediates"][1:]):
        assert m in p and p[0] == 3 and p[-1] == 40
