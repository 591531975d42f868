import networkx as nx
import numpy as np
import pytest

from topogen.generators.classic import hypercube, torus
from topogen.routing import check, hop_indexed, nearest, updown
from topogen.routing.deadlock import find_cycle

from .conftest import all_paths, petersen, python_cdg, ring, rrg


def _assert_real_cycle(routing, cycle):
    """Each consecutive pair of the reported cycle is a dependency of some route."""
    g = python_cdg(all_paths(routing).values(), routing.num_vcs)
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        assert g.has_edge(tuple(a), tuple(b)), (a, b)


@pytest.mark.parametrize("n", [5, 8, 9])
def test_ring_min_routing_one_vc_is_cyclic(n):
    r = nearest(ring(n))
    rep = check(r)
    assert not rep.acyclic
    assert rep.vcs_used == 1
    assert rep.cycle is not None and len(rep.cycle) >= 3
    _assert_real_cycle(r, rep.cycle)
    # a cycle goes once around the ring in one direction
    hops = {(u, v) for u, v, _ in rep.cycle}
    assert len(hops) == len(rep.cycle)


@pytest.mark.parametrize("make", [lambda: rrg(40, 4, 2), lambda: rrg(30, 5, 7), petersen,
                                  lambda: torus((4, 4)), lambda: hypercube(4)])
def test_checker_agrees_with_networkx(make):
    topo = make()
    for r in (nearest(topo), hop_indexed(nearest(topo)), updown(topo)):
        rep = check(r)
        g = python_cdg(all_paths(r).values(), r.num_vcs)
        assert rep.acyclic == nx.is_directed_acyclic_graph(g)
        assert rep.num_channels == g.number_of_nodes()
        assert rep.num_dependencies == g.number_of_edges()
        if not rep.acyclic:
            _assert_real_cycle(r, rep.cycle)


def test_check_on_selected_pairs():
    r = nearest(ring(8))
    rep = check(r, pairs=[(0, 2), (1, 3)])
    assert rep.acyclic and rep.num_channels == 3 and rep.num_dependencies == 2
    assert "2 given pairs" in rep.checked
    # routes 0->2, 2->4, 4->6, 6->0 do not overlap: no dependency joins them
    assert check(r, pairs=[(0, 2), (2, 4), (4, 6), (6, 0)]).acyclic
    # routes 0->3, 2->5, 4->7, 6->1 overlap by one channel each: a cycle of all 8 channels
    rep = check(r, pairs=[(0, 3), (2, 5), (4, 7), (6, 1)])
    assert not rep.acyclic and len(rep.cycle) == 8
    assert {(u, v) for u, v, _ in rep.cycle} == {(i, (i + 1) % 8) for i in range(8)}


def test_find_cycle_small_graphs():
    assert find_cycle(4, np.array([0, 1, 2]), np.array([1, 2, 3])) is None
    cyc = find_cycle(4, np.array([0, 1, 2, 3]), np.array([1, 2, 0, 0]))
    assert sorted(cyc) == [0, 1, 2]
    assert find_cycle(3, np.array([1]), np.array([1])) == [1]


def test_summary_mentions_cycle():
    rep = check(nearest(ring(6)))
    text = rep.summary()
    assert "CYCLIC" in text and "cycle:" in text


def test_project_generators():
    """Random (Skywalk III-A), Slim Fly and hypercube from the project's generators."""
    import topogen
    from topogen.generators.slimfly import slimfly
    from topogen.routing import escape

    topos = [topogen.generate("random", num_switches=64, degree=6, seed=1), slimfly(5),
             hypercube(5)]
    for topo in topos:
        for r in (updown(topo), hop_indexed(nearest(topo)), escape(topo, base="nr")):
            rep = check(r)
            assert rep.acyclic, (topo.name, r.algorithm)
        # the checker agrees with an independent CDG for plain NR
        r = nearest(topo)
        g = python_cdg(all_paths(r).values(), 1)
        assert check(r).acyclic == nx.is_directed_acyclic_graph(g)
