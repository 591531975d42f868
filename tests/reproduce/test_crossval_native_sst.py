"""SST merlin's own torus and mesh (``merlin.torus`` / ``merlin.mesh``: cabling from
pymerlin-topo-mesh.py, the torus routing from torus.cc) against topogen's generators and
``dor``: structure, routes and the VC rule, as read from the sources."""

import itertools

import networkx as nx
import pytest

from topogen import registry
from topogen.reproduce.crossval_native import merlin_torus_route, merlin_torus_wiring
from topogen.routing import route


def _graph(wiring, hosts, n):
    g = nx.Graph()
    g.add_nodes_from(range(n), hosts=hosts)
    g.add_edges_from((a, b) for (a, _), (b, _) in wiring.items())
    return g


def _topogen(topology):
    g = nx.Graph()
    g.add_nodes_from((i, {"hosts": int(h)}) for i, h in enumerate(topology.hosts))
    g.add_edges_from(map(tuple, topology.edges.tolist()))
    return g


@pytest.mark.parametrize("dims,local", [((4, 4), 1), ((5, 3), 2), ((4, 3, 2), 1), ((3, 3, 3), 4)])
@pytest.mark.parametrize("mesh", [False, True])
def test_merlin_wiring_is_topogens(dims, local, mesh):
    w = merlin_torus_wiring(dims, local, mesh=mesh)
    n = 1
    for k in dims:
        n *= k
    # every port used once, the link's other end names it back
    assert all(w[w[e]] == e for e in w)
    assert all(p < 2 * len(dims) for _, p in w)
    ours = registry.generate("mesh" if mesh else "torus", dims=dims, hosts_per_switch=local)
    a, b = _graph(w, local, n), _topogen(ours)
    # identical, numbering included (router i = switch i, endpoints local * i + j on it)
    assert set(map(frozenset, a.edges)) == set(map(frozenset, b.edges))
    assert all(b.nodes[i]["hosts"] == local for i in b.nodes)


@pytest.mark.parametrize("dims", [(4, 4), (5, 3), (4, 3, 2), (6,)])
def test_merlin_routes_are_dor(dims):
    """torus.cc's route_packet visits the routers of topogen's dor (ties at k/2 to the +
    direction: ``dist_pos <= dist_neg``), pair by pair."""
    t = registry.generate("torus", dims=dims)
    r = route(t, None, "dor")
    n = t.num_switches
    for s, d in itertools.permutations(range(n), 2):
        hops = merlin_torus_route(dims, s, d)
        sw, _ = r.path(s, d)
        w = merlin_torus_wiring(dims)
        assert [h[0] for h in hops] + [d] == list(sw)
        assert all(w[h[0], h[1]][0] == nxt for h, nxt in zip(hops, list(sw)[1:]))


def test_merlin_vc_rule_and_its_difference():
    """merlin toggles the VC at a router whose coordinate in the routing dimension is 0
    when the packet came from a network port; topogen's dateline moves to the upper VC on
    the wrap hop.  Both are acyclic; they differ on the + wrap hop (merlin: still VC 0,
    the toggle comes at coordinate 0 after it) and on a turn into a dimension at
    coordinate 0 (merlin: VC 1 without a wrap)."""
    dims = (4, 4)
    t = registry.generate("torus", dims=dims)
    r = route(t, None, "dor", vcs=2)
    # + wrap in x from (3,0) to (1,0): 3 -> 0 on VC 0, then 0 -> 1 on VC 1
    assert [h[2] for h in merlin_torus_route(dims, 3, 1)] == [0, 1]
    assert list(r.path(3, 1)[1]) == [1, 1]
    # - wrap in y after x: (3,0) -> (0,0) -> (0,3): the turn at y = 0 toggles first
    assert merlin_torus_route(dims, 3, 12) == [(3, 0, 0), (0, 3, 1)]
    # a turn into y at y = 0 without a wrap: (1,0) -> (0,0) -> (0,1) runs y on VC 1
    assert [h[2] for h in merlin_torus_route(dims, 1, 4)] == [0, 1]
    assert list(r.path(1, 4)[1]) == [0, 0]
    # merlin's channel dependency graph over all pairs is acyclic
    w = merlin_torus_wiring(dims)
    g = nx.DiGraph()
    for s, d in itertools.permutations(range(16), 2):
        ch = [(h[0], h[1], h[2]) for h in merlin_torus_route(dims, s, d)]
        g.add_edges_from(zip(ch, ch[1:]))
    assert nx.is_directed_acyclic_graph(g)
