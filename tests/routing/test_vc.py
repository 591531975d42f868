import networkx as nx
import numpy as np
import pytest

from topogen.errors import ParameterError, RoutingError
from topogen.generators.classic import torus
from topogen.routing import check, hop_indexed, layered, nearest, updown, valiant

from .conftest import all_paths, petersen, python_cdg, ring, rrg


def _slimfly():
    from topogen.generators.slimfly import slimfly

    return slimfly(5)


@pytest.mark.parametrize("make", [lambda: ring(9), lambda: torus((4, 4)), lambda: rrg(40, 4, 2),
                                  petersen, _slimfly])
def test_hop_indexed(make):
    topo = make()
    base = nearest(topo)
    r = hop_indexed(base)
    diameter = nx.diameter(topo.to_networkx())
    assert r.num_vcs == diameter == r.params["longest_route"]
    for (s, d), (sw, vcs) in all_paths(r).items():
        assert vcs.tolist() == list(range(len(vcs)))
        assert np.array_equal(sw, base.path(s, d)[0])
    assert check(r).acyclic
    with pytest.raises(RoutingError, match=f"at least {diameter} VCs"):
        hop_indexed(base, num_vcs=diameter - 1)


def test_slimfly_min_needs_two_vcs():
    r = hop_indexed(nearest(_slimfly()))
    assert r.num_vcs == 2  # Slim Fly IV-D: VC0 and VC1 for minimal routing


@pytest.mark.parametrize("make", [lambda: ring(8), lambda: torus((4, 4)), lambda: rrg(40, 4, 2),
                                  petersen])
def test_layered_is_deadlock_free(make):
    topo = make()
    base = nearest(topo)
    r = layered(base)
    assert r.num_vcs == r.params["layers_needed"] >= 1
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == r.num_vcs
    # independent: every layer's CDG (pure python) is acyclic; routes are unchanged
    paths = all_paths(r)
    g = python_cdg(paths.values(), r.num_vcs)
    assert nx.is_directed_acyclic_graph(g)
    for (s, d), (sw, vcs) in paths.items():
        assert np.array_equal(sw, base.path(s, d)[0])
        assert len(set(vcs.tolist())) == 1


def test_layered_ring_needs_two_layers_and_max_vcs():
    r = layered(nearest(ring(8)))
    assert r.num_vcs == 2
    with pytest.raises(RoutingError, match="needs at least 2 VCs .* got max_vcs=1"):
        layered(nearest(ring(8)), max_vcs=1)
    assert layered(nearest(ring(8)), max_vcs=2).num_vcs == 2
    # an acyclic base needs one layer
    assert layered(updown(rrg(20, 3, 1))).num_vcs == 1


def test_bad_base():
    with pytest.raises(ParameterError):
        hop_indexed(valiant(nearest(petersen()), seed=1))
