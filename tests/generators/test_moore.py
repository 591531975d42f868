"""Moore graphs: Petersen and Hoffman-Singleton, built from their constructions."""

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.generators.moore import hoffman_singleton, petersen
from topogen.generators.slimfly import slimfly
from topogen.metrics.bounds import aspl_lower_bound, moore_bound


def test_petersen_is_the_petersen_graph():
    t = petersen()
    g = t.to_networkx()
    assert nx.is_isomorphic(g, nx.petersen_graph())
    assert t.num_switches == moore_bound(3, 2) == 10 and t.num_links == 15
    assert set(t.degrees) == {3}
    assert nx.diameter(g) == 2 and nx.girth(g) == 5
    # Kneser K(5, 2): switch i is the i-th 2-subset in lexicographic order
    subsets = [set(s) for s in itertools.combinations(range(5), 2)]
    for u, v in t.edges:
        assert not subsets[u] & subsets[v]


def test_hoffman_singleton_is_the_hoffman_singleton_graph():
    t = hoffman_singleton()
    g = t.to_networkx()
    assert nx.is_isomorphic(g, nx.hoffman_singleton_graph())
    assert t.num_switches == moore_bound(7, 2) == 50 and t.num_links == 175
    assert set(t.degrees) == {7}
    assert nx.diameter(g) == 2 and nx.girth(g) == 5
    assert t.link_counts() == {"pentagon": 25, "pentagram": 25, "join": 125}


def test_hoffman_singleton_contains_five_disjoint_petersen_boards():
    # MEMSYS '16 Section 1.1 (Moore Graphs): "contains within it five disjoint copies of the Petersen graph"
    g = hoffman_singleton().to_networkx()
    for h in range(5):
        assert nx.is_isomorphic(g.subgraph(range(10 * h, 10 * h + 10)), nx.petersen_graph())


def test_moore_graphs_attain_the_distance_bound():
    for t, d in ((petersen(), 3), (hoffman_singleton(), 7)):
        aspl = nx.average_shortest_path_length(t.to_networkx())
        assert aspl == pytest.approx(aspl_lower_bound(t.num_switches, d))


def test_mms5_is_hoffman_singleton():
    assert nx.is_isomorphic(slimfly(5).to_networkx(), hoffman_singleton().to_networkx())


def test_registry_and_hosts():
    t = registry.generate("hoffman-singleton", hosts_per_switch="4")
    assert t.num_hosts == 200 and t.params == {"hosts_per_switch": 4}
    assert registry.generate("petersen").name == "petersen"
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        petersen(hosts_per_switch=-1)
    assert np.array_equal(petersen().edges, petersen().edges)
