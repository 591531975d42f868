import networkx as nx
import numpy as np
import pytest

from topogen import Floor, place
from topogen.errors import ParameterError, RoutingError, TopologyError
from topogen import Topology
from topogen.generators.classic import torus
from topogen.routing import check, escape, fastest, updown

from .conftest import petersen, python_cdg, rrg


def _slimfly():
    from topogen.generators.slimfly import slimfly

    return slimfly(5)


@pytest.mark.parametrize("make", [lambda: rrg(40, 4, 2), petersen, lambda: torus((4, 4)), _slimfly])
def test_escape_nr(make):
    topo = make()
    r = escape(topo, num_vcs=4, base="nr")
    assert r.num_vcs == 4 and r.adaptive_vcs == (1, 2, 3)
    g = topo.to_networkx()
    dist = dict(nx.all_pairs_shortest_path_length(g))
    ud = updown(topo)
    n = topo.num_switches
    escape_routes = []
    for s in range(n):
        for d in range(n):
            sw, vcs = r.path(s, d)
            assert len(sw) - 1 == dist[s][d] and np.all(vcs == 1)
            esw, evcs = r.escape_path(s, d)
            assert np.array_equal(esw, ud.path(s, d)[0]) and np.all(evcs == 0)
            if s != d:
                exp = sorted(w for w in g[s] if dist[w][d] == dist[s][d] - 1)
                assert r.next_hops(s, d).tolist() == exp
                escape_routes.append((esw, evcs))
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == 1 and rep.vcs_declared == 4
    assert "escape" in rep.checked and "VCs used: 1 (the routing declares 4)" in rep.summary()
    cdg = python_cdg(escape_routes, 4)
    assert nx.is_directed_acyclic_graph(cdg)
    assert rep.num_dependencies == cdg.number_of_edges()


def test_escape_fr_uses_latency():
    topo = rrg(32, 4, 3)
    layout = place(topo, Floor(cabinets=8, switches_per_cabinet=4), "random", seed=2)
    r = escape(topo, layout, num_vcs=3, base="fr")
    fr = fastest(layout, ties="lowest")  # escape keeps the lowest-id minimal table
    ud = updown(topo, layout=layout, metric="latency")
    for s in range(0, 32, 5):
        for d in range(32):
            assert np.array_equal(r.path(s, d)[0], fr.path(s, d)[0])
            assert np.array_equal(r.escape_path(s, d)[0], ud.path(s, d)[0])
    assert check(r).acyclic


def test_escape_errors():
    with pytest.raises(RoutingError, match="at least 2 VCs"):
        escape(petersen(), num_vcs=1, base="nr")
    with pytest.raises(ParameterError):
        escape(petersen(), base="dor")
    with pytest.raises(TopologyError):
        escape(Topology(4, [(0, 1), (2, 3)]), base="nr")
