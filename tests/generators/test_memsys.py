"""MEMSYS '16 Section 1.1 families: the Dragonfly with p intra- and s inter-subnet ports,
and the torus / flattened butterfly / Moore formulas, checked against built graphs with
networkx and brute-force bisections."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import Topology, registry
from topogen.errors import ParameterError
from topogen.generators import memsys as ms
from topogen.generators.classic import hyperx, torus
from topogen.generators.moore import hoffman_singleton, petersen


def min_bisection(topology) -> int:
    """Brute-force minimum balanced cut (N even, small N): fix switch 0 on one side."""
    n = topology.num_switches
    e = topology.edges
    best = None
    for rest in itertools.combinations(range(1, n), n // 2 - 1):
        side = np.zeros(n, dtype=bool)
        side[0] = True
        side[list(rest)] = True
        cut = int(np.count_nonzero(side[e[:, 0]] != side[e[:, 1]]))
        best = cut if best is None else min(best, cut)
    return best


# ----------------------------------------------------------------------------- Dragonfly
@pytest.mark.parametrize("p", [1, 2, 3, 4, 5])
def test_dragonfly_formulas_against_built_graphs(p):
    for s in range(1, (p + 1) ** 2 + 1):
        t = ms.memsys_dragonfly(p, s)
        f = ms.dragonfly_formulas(p, s)
        g = t.to_networkx()
        assert t.num_switches == f.nodes == (p + 1) * (p + 2)
        assert set(t.degrees.tolist()) == {f.ports} == {p + s}
        assert nx.diameter(g) == f.diameter
        if f.avg_hops is not None:
            assert nx.average_shortest_path_length(g) == pytest.approx(f.avg_hops, rel=1e-12)
        assert f.avg_hops is not None or 1 < s < p + 1 or s > p + 1


@pytest.mark.parametrize("p", [2, 3, 7])
def test_dragonfly_limit(p):
    # "when the number of inter-subnet links is equal to one more than the intra-subnet
    # links, the entire network has a diameter of 2, not 3"
    assert nx.diameter(ms.memsys_dragonfly(p, p).to_networkx()) == 3
    assert nx.diameter(ms.memsys_dragonfly(p, p + 1).to_networkx()) == 2
    assert ms.dragonfly_formulas(p, p).diameter == 3
    assert ms.dragonfly_formulas(p, p + 1).diameter == 2


@pytest.mark.parametrize("p, s", [(3, 1), (3, 2), (4, 5), (3, 11), (5, 36)])
def test_dragonfly_structure(p, s):
    t = ms.memsys_dragonfly(p, s)
    m = p + 1
    sub = np.arange(t.num_switches) // m
    e = t.edges
    kinds = t.kind_of_links()
    same = sub[e[:, 0]] == sub[e[:, 1]]
    assert np.all(same == (kinds == "intra"))
    # subnets are complete graphs K_{p+1}
    assert t.link_counts()["intra"] == (p + 2) * m * p // 2
    # "a fully connected graph of fully connected graphs": s links between every two subnets
    a, b = sub[e[~same, 0]], sub[e[~same, 1]]
    counts = np.bincount(a * (p + 2) + b, minlength=(p + 2) ** 2).reshape(p + 2, p + 2)
    i, j = np.triu_indices(p + 2, 1)
    assert set(counts[i, j].tolist()) == {s}


def test_dragonfly_bisection_formula_exact_for_even_subnet_count():
    # p + 2 even: cutting the subnets in half cuts s ((p+2)/2)^2 inter links plus no intra
    for p, s in [(2, 1), (2, 3), (4, 2)]:
        t = ms.memsys_dragonfly(p, s)
        m = p + 1
        sub = np.arange(t.num_switches) // m
        e = t.edges
        cut = np.count_nonzero((sub[e[:, 0]] < (p + 2) // 2) != (sub[e[:, 1]] < (p + 2) // 2))
        assert cut == ms.dragonfly_formulas(p, s).bisection_links
    # and it is the true minimum bisection of the smallest case (12 routers)
    assert min_bisection(ms.memsys_dragonfly(2, 1)) == ms.dragonfly_formulas(2, 1).bisection_links


def test_dragonfly_registry_and_errors():
    t = registry.generate("memsys-dragonfly", p="3", s="4")
    assert t.name == "memsys-dragonfly" and t.params == {"p": 3, "s": 4, "hosts_per_switch": 1}
    assert t.kind_names == ("intra", "inter")
    with pytest.raises(ParameterError, match=r"p must be an integer >= 1"):
        ms.memsys_dragonfly(0, 1)
    with pytest.raises(ParameterError, match=r"s .*\[1, 16\].*nearest valid: 16"):
        ms.memsys_dragonfly(3, 17)
    with pytest.raises(ParameterError, match=r"nearest valid: 1"):
        ms.memsys_dragonfly(3, 0)
    with pytest.raises(ParameterError, match="s "):
        ms.dragonfly_formulas(3, 2.5)


# ----------------------------------------------------------------------------- tori
@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_torus_formulas_against_classic_torus(n, d):
    t = torus((n,) * d)
    f = ms.torus_formulas(n, d)
    g = t.to_networkx()
    assert t.num_switches == f.nodes
    assert t.degree == f.ports
    assert nx.diameter(g) == f.diameter
    assert nx.average_shortest_path_length(g) == pytest.approx(f.avg_hops, rel=1e-12)


def test_torus_ports_up_to_10d():
    # "We scale the dimensionality of the tori from 2D to 10D"; n = 2 halves the ports
    for d in range(2, 11):
        if d <= 8:
            t = torus((3,) * d)
            assert (t.num_switches, t.degree) == (3**d, 2 * d)
            f = ms.torus_formulas(3, d)
            assert (f.nodes, f.ports) == (t.num_switches, t.degree)
        h = torus((2,) * d)
        assert h.degree == ms.torus_formulas(2, d).ports == d
        assert h.num_switches == ms.torus_formulas(2, d).nodes
    with pytest.raises(ParameterError, match=r"dimension .*\[1, 10\]"):
        ms.torus_formulas(2, 11)
    with pytest.raises(ParameterError, match="n must be an integer >= 2"):
        ms.torus_formulas(1, 3)


@pytest.mark.parametrize("n, d", [(4, 2), (2, 4), (2, 3), (6, 1)])
def test_torus_bisection_formula(n, d):
    # "Bisection Links: 2n^(D-1) (except for n = 2, which is n^(D-1))", exact for even n
    assert min_bisection(torus((n,) * d)) == ms.torus_formulas(n, d).bisection_links


def test_torus_paper_diameter_is_an_overestimate():
    # the paper's "~Dn"; exact D * floor(n/2)
    for n, d in [(4, 3), (5, 2), (8, 4)]:
        f = ms.torus_formulas(n, d)
        assert f.diameter == d * (n // 2) < d * n


# ----------------------------------------------------------------------------- flattened butterfly
@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_flattened_butterfly_formulas(n, d):
    t = hyperx((n,) * d)
    f = ms.flattened_butterfly_formulas(n, d)
    g = t.to_networkx()
    assert (t.num_switches, t.degree, nx.diameter(g)) == (f.nodes, f.ports, f.diameter)
    assert nx.average_shortest_path_length(g) == pytest.approx(f.avg_hops, rel=1e-12)


@pytest.mark.parametrize("n, d", [(4, 2), (2, 3), (4, 1), (6, 1)])
def test_flattened_butterfly_bisection_even_sides(n, d):
    assert min_bisection(hyperx((n,) * d)) == ms.flattened_butterfly_formulas(n, d).bisection_links


def test_section_3_2_three_d_butterfly_sizes():
    # "a diameter-3 Butterfly can be built with 100,000 nodes, requiring 140 ports, and ...
    # half a million nodes, requiring 240 ports": sides 47 and 80
    assert ms.flattened_butterfly_formulas(47, 3).nodes > 100_000 > ms.flattened_butterfly_formulas(46, 3).nodes
    assert abs(ms.flattened_butterfly_formulas(47, 3).ports - 140) <= 2
    assert ms.flattened_butterfly_formulas(80, 3).nodes == 512_000
    assert abs(ms.flattened_butterfly_formulas(80, 3).ports - 240) <= 3


# ----------------------------------------------------------------------------- Moore, efficiency
@pytest.mark.parametrize("p, build", [(3, petersen), (7, hoffman_singleton)])
def test_moore2_formulas(p, build):
    t = build()
    f = ms.moore2_formulas(p)
    g = t.to_networkx()
    assert (t.num_switches, t.degree, nx.diameter(g)) == (f.nodes, f.ports, f.diameter)
    assert nx.average_shortest_path_length(g) == pytest.approx(f.avg_hops, rel=1e-12)


def test_moore_bisection_bullet_is_a_trend_not_a_count():
    # documented discrepancy: (p-2) N/4 = 2.5 for Petersen; its true bisection width is 5
    assert ms.moore2_formulas(3).bisection_links == 2.5
    assert min_bisection(petersen()) == 5


def test_efficiency_metric_section_3_2():
    base = ms.efficiency(100, 10, 4.0, 1000)
    assert base == pytest.approx(100 / (10 * 4.0) / 1000)
    # "twice the number of ports ... but half the latency, the two would be considered equal"
    assert ms.efficiency(100, 20, 2.0, 1000) == pytest.approx(base)
    # "half the bisection bandwidth ... but also half the average latency" -> equal
    assert ms.efficiency(50, 10, 2.0, 1000) == pytest.approx(base)
    # "twice the average latency ... but only half the ports" -> equal
    assert ms.efficiency(100, 5, 8.0, 1000) == pytest.approx(base)
    for bad in [dict(bisection_links=0), dict(ports=-1), dict(avg_hops=float("nan")), dict(nodes=0)]:
        args = dict(bisection_links=100, ports=10, avg_hops=4.0, nodes=1000) | bad
        with pytest.raises(ParameterError, match=next(iter(bad))):
            ms.efficiency(**args)


# ----------------------------------------------------------------------------- Section 2
def _nx_reroute(g, s, f, t):
    h = g.copy()
    h.remove_node(f)
    paths = list(nx.all_shortest_paths(h, s, t))
    return nx.shortest_path_length(g, s, t), len(paths[0]) - 1, len(paths)


@pytest.mark.parametrize("dim", [2, 3, 4])
def test_section2_torus_reroute(dim):
    # "nD Torus: additional cost 2 hops, 2(n - 1) alternative routes"
    t = torus((8,) * dim)
    r = ms.reroute_around(t, 0, 1, 2)
    assert (r.hops_before, r.extra_hops, r.alternative_routes) == (2, 2, 2 * (dim - 1))
    if dim <= 3:
        assert _nx_reroute(t.to_networkx(), 0, 1, 2) == (2, 4, 2 * (dim - 1))


def test_section2_moore_and_butterfly_reroute():
    # 5-node Moore graph: 1 extra hop, 1 route; Petersen: 1 extra hop, 2 routes, for every
    # 2-hop route through a failed middle router; flattened butterfly: no extra hop
    pent = Topology.from_networkx(nx.cycle_graph(5))
    r = ms.reroute_around(pent, 0, 1, 2)
    assert (r.extra_hops, r.alternative_routes) == (1, 1)
    p = petersen()
    g = p.to_networkx()
    for v in range(10):
        for u, w in itertools.combinations(p.neighbors(v).tolist(), 2):
            r = ms.reroute_around(p, u, v, w)
            assert (r.extra_hops, r.alternative_routes) == (1, 2)
            assert _nx_reroute(g, u, v, w) == (2, 3, 2)
    fb = hyperx((5, 5))
    assert ms.reroute_around(fb, 0, 1, 6).extra_hops == 0


def test_reroute_errors():
    p = petersen()
    with pytest.raises(ParameterError, match="three distinct"):
        ms.reroute_around(p, 0, 0, 1)
    with pytest.raises(ParameterError, match="failed must be an integer"):
        ms.reroute_around(p, 0, 10, 1)
    u, v = 0, int(p.neighbors(0)[0])
    other = int(p.neighbors(0)[1])
    with pytest.raises(ParameterError, match="not on a shortest route"):
        ms.reroute_around(p, u, other, v)
    from topogen.errors import TopologyError

    path = Topology.from_networkx(nx.path_graph(4))
    with pytest.raises(TopologyError, match="disconnects"):
        ms.reroute_around(path, 0, 1, 2)
