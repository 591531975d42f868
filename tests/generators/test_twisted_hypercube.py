"""Twisted hypercubes against their published definitions, built independently."""

from __future__ import annotations

import networkx as nx
import pytest

from topogen.errors import ParameterError
from topogen.generators.twisted import twisted_hypercube


def _tq(n):
    """TQ_n (odd n) by the recursive four-copies definition, as networkx edges of bit strings."""
    if n == 1:
        return nx.Graph([("0", "1")])
    sub = _tq(n - 2)
    g = nx.Graph()
    for top in ("00", "01", "10", "11"):
        g.add_edges_from((top + a, top + b) for a, b in sub.edges)
    for low in sub.nodes:
        even = low.count("1") % 2 == 0
        # even parity: the 4-cycle 00-01-11-10 (hypercube); odd: 00-01-10-11 (twisted)
        cycle = ("00", "01", "11", "10") if even else ("00", "01", "10", "11")
        for i in range(4):
            g.add_edge(cycle[i] + low, cycle[(i + 1) % 4] + low)
    return g


def _as_graph(topo):
    n = topo.params["dimension"]
    return nx.Graph((format(int(a), f"0{n}b"), format(int(b), f"0{n}b")) for a, b in topo.edges)


@pytest.mark.parametrize("n", [3, 5, 7])
def test_twisted_cube_equals_recursive_definition(n):
    topo = twisted_hypercube(n)
    assert nx.utils.edges_equal(sorted(map(sorted, _as_graph(topo).edges)), sorted(map(sorted, _tq(n).edges)))
    assert topo.num_switches == 2**n and topo.num_links == n * 2 ** (n - 1)
    assert set(d for _, d in topo.to_networkx().degree()) == {n}


@pytest.mark.parametrize("n,diameter", [(3, 2), (5, 3), (7, 4), (9, 5), (4, 3), (6, 4), (10, 6)])
def test_twisted_cube_diameter(n, diameter):
    # Hilbers et al.: (n + 1) / 2 for odd n; even n = TQ_{n-1} x K_2: one more
    assert nx.diameter(twisted_hypercube(n).to_networkx()) == diameter


def test_even_twisted_cube_is_product_with_k2():
    g = _as_graph(twisted_hypercube(6))
    ref = nx.cartesian_product(nx.Graph([("0", "1")]), _tq(5))
    ref = nx.relabel_nodes(ref, {(a, b): a + b for a, b in ref.nodes})
    assert nx.is_isomorphic(g, ref) and sorted(map(sorted, g.edges)) == sorted(map(sorted, ref.edges))


@pytest.mark.parametrize("n", [3, 4, 5, 6, 8])
def test_twisted_n_cube(n):
    topo = twisted_hypercube(n, variant="twisted-n-cube")
    g = topo.to_networkx()
    cube = nx.hypercube_graph(n)
    assert topo.num_links == cube.number_of_edges() and set(d for _, d in g.degree()) == {n}
    assert nx.diameter(g) == n - 1  # Esfahanian et al.: one less than the n-cube
    assert g.has_edge(0, 3) and g.has_edge(1, 2) and not g.has_edge(0, 1) and not g.has_edge(2, 3)


def test_bad_parameters():
    with pytest.raises(ParameterError, match="variant"):
        twisted_hypercube(5, variant="crossed")
    with pytest.raises(ParameterError, match="dimension"):
        twisted_hypercube(2, variant="twisted-n-cube")
    with pytest.raises(ParameterError, match="dimension"):
        twisted_hypercube(1)
