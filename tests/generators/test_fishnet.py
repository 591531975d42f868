"""Fishnet: Angelfish, Angelfish Lite, Flying Fish, Flying Fish Lite (MEMSYS '16 Sec. 1.1,
Figures 7-9).  Paper facts, formulas derived from the construction, and independent
constructions / distance computations (networkx, bitset BFS)."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from topogen import Topology, registry
from topogen.errors import ParameterError
from topogen.generators import fishnet as fn
from topogen.generators.classic import hyperx
from topogen.generators.moore import hoffman_singleton, petersen


# ----------------------------------------------------------------------------- independent tools
def bitset_diameter(topology: Topology) -> tuple[int, float]:
    """Exact diameter and mean distance by all-sources BFS on packed bitsets.

    ``reach[v]`` holds (as bits) the switches within k hops of v; one step ORs the rows of
    v's neighbours.  Independent of topogen.metrics.
    """
    n = topology.num_switches
    m = topology.csr()
    reach = np.packbits(np.eye(n, dtype=bool), axis=1, bitorder="little")
    deg = np.diff(m.indptr)
    starts = m.indptr[:-1][deg > 0]
    total = 0
    k = 0
    while True:
        count = int(np.bitwise_count(reach).sum())
        if count == n * n:
            return k, total / (n * (n - 1))
        total += n * n - count
        k += 1
        assert k <= n, "disconnected"
        gathered = np.bitwise_or.reduceat(reach[m.indices], starts, axis=0)
        nxt = reach.copy()
        nxt[deg > 0] |= gathered
        reach = nxt


def subnet_of(topology: Topology, size: int) -> np.ndarray:
    return np.arange(topology.num_switches) // size


def edge_set(topology: Topology) -> set[tuple[int, int]]:
    return set(map(tuple, topology.edges.tolist()))


def paper_fishnet_nx(sub: nx.Graph, lite: bool) -> set[tuple[int, int]]:
    """Fishnet straight from the paper's wording, with networkx and explicit labels.

    Subnet j holds labels {0..n} minus j on its vertices in increasing order.  Lite: node
    i of subnet j -- node j of subnet i.  Full: the neighbours of node i in subnet j are
    matched (in increasing order) with the neighbours of node j in subnet i.
    """
    n = sub.number_of_nodes()
    verts = sorted(sub.nodes())

    def gid(j, label):  # global id of the node labelled ``label`` in subnet j
        labels = [x for x in range(n + 1) if x != j]
        return j * n + labels.index(label)

    def vert(j, label):
        labels = [x for x in range(n + 1) if x != j]
        return verts[labels.index(label)]

    def lab(j, v):
        labels = [x for x in range(n + 1) if x != j]
        return labels[verts.index(v)]

    g = nx.Graph()
    for j in range(n + 1):
        for a, b in sub.edges():
            g.add_edge(gid(j, lab(j, a)), gid(j, lab(j, b)))
    for j in range(n + 1):
        for i in range(n + 1):
            if i >= j:
                continue
            if lite:
                g.add_edge(gid(j, i), gid(i, j))
            else:
                nj = sorted(lab(j, w) for w in sub.neighbors(vert(j, i)))
                ni = sorted(lab(i, w) for w in sub.neighbors(vert(i, j)))
                assert len(nj) == len(ni)
                for x, y in zip(nj, ni):
                    g.add_edge(gid(j, x), gid(i, y))
    return {tuple(sorted(e)) for e in g.edges()}


# ----------------------------------------------------------------------------- Figure 7 (Petersen)
@pytest.mark.parametrize("lite, ports, diameter, inter", [(True, 4, 5, 55), (False, 6, 4, 165)])
def test_figure7_petersen_examples(lite, ports, diameter, inter):
    # "given a 2-hop subnet of n nodes, each node having p ports (... 10 nodes, 3 ports),
    # one can construct a system of n + 1 subnets ... the first uses p + 1 ports per node
    # and has a maximum latency of five hops ...; the second uses 2p ports ... four hops."
    t = fn.angelfish_lite("petersen") if lite else fn.angelfish("petersen")
    assert t.num_switches == 10 * 11 == (3**2 + 1) * (3**2 + 2)
    assert set(t.degrees.tolist()) == {ports}
    assert t.link_counts() == {"intra": 11 * 15, "inter": inter}
    g = t.to_networkx()
    assert nx.diameter(g) == diameter
    assert bitset_diameter(t)[0] == diameter
    # every subnet is a Petersen graph
    for k in range(11):
        block = g.subgraph(range(10 * k, 10 * k + 10))
        assert nx.is_isomorphic(block, nx.petersen_graph())
    # inter links: one (Lite) or p = 3 (full) between every two subnets, none inside one
    sub = subnet_of(t, 10)
    kinds = t.kind_of_links()
    e = t.edges[kinds == "inter"]
    a, b = sub[e[:, 0]], sub[e[:, 1]]
    assert np.all(a != b)
    pair_counts = np.bincount(np.minimum(a, b) * 11 + np.maximum(a, b), minlength=121)
    i, j = np.triu_indices(11, 1)
    assert set(pair_counts[i * 11 + j].tolist()) == {1 if lite else 3}


@pytest.mark.parametrize("lite", [True, False])
def test_matches_paper_wording_construction(lite):
    """Edge-for-edge equality with a literal networkx reading of Figure 7's labelling."""
    base = petersen()
    expected = paper_fishnet_nx(base.to_networkx(), lite)
    assert edge_set(fn.fishnet(base, lite=lite)) == expected
    # and on a different diameter-2 subnet, the 3 x 3 flattened butterfly
    sq = hyperx((3, 3))
    assert edge_set(fn.fishnet(sq, lite=lite)) == paper_fishnet_nx(sq.to_networkx(), lite)


def test_fishnet_on_networkx_subnet():
    # Petersen from networkx (another labelling): same invariants, and the Lite variant is
    # checked edge for edge against the literal construction on that labelling.
    sub = Topology.from_networkx(nx.petersen_graph())
    lite = fn.fishnet(sub, lite=True)
    full = fn.angelfish(sub)
    assert (lite.num_switches, lite.degree, full.degree) == (110, 4, 6)
    assert nx.diameter(full.to_networkx()) == 4
    assert edge_set(lite) == paper_fishnet_nx(nx.petersen_graph(), lite=True)
    assert full.params["subnet"] == sub.describe()


def test_hoffman_singleton_angelfish():
    t = fn.angelfish("hoffman-singleton")
    assert t.num_switches == (7**2 + 1) * (7**2 + 2) == 2550
    assert set(t.degrees.tolist()) == {14}
    assert bitset_diameter(t)[0] == 4
    tl = fn.angelfish_lite("hoffman-singleton")
    assert (tl.num_switches, tl.degree) == (2550, 8)
    assert bitset_diameter(tl)[0] == 5


@pytest.mark.parametrize("q", [3, 4])
def test_angelfish_on_mms(q):
    import topogen.generators.slimfly  # noqa: F401  (registers slimfly)
    from topogen.generators.slimfly import slimfly

    sub = slimfly(q)
    n, p = sub.num_switches, sub.degree
    assert n == 2 * q * q
    for lite in (False, True):
        t = fn.angelfish_lite("mms", q=q) if lite else fn.angelfish("mms", q=q)
        f = (fn.angelfish_lite_formulas if lite else fn.angelfish_formulas)(n, p)
        assert t.num_switches == f.nodes == n * (n + 1)
        assert set(t.degrees.tolist()) == {f.ports}
        assert bitset_diameter(t)[0] == f.diameter
        assert t.params == {"subnet": "mms", "q": q, "hosts_per_switch": 1}


def test_section_3_2_angelfish_sizes():
    # "scales to 100,000 nodes at 38 ports, to 500,000 nodes at 58 ports, and to 1.1
    # million nodes at 70 ports": MMS q = 13, 19, 23 (delta = 1, -1, -1).
    for q, delta, ports, approx in [(13, 1, 38, 1e5), (19, -1, 58, 5e5), (23, -1, 70, 1.1e6)]:
        n, p = 2 * q * q, (3 * q - delta) // 2
        f = fn.angelfish_formulas(n, p)
        assert f.ports == ports
        assert 0.95 < f.nodes / approx < 1.2


def test_moore_bound_form_of_the_angelfish_bullets():
    for p in (3, 7):
        f, fl = fn.angelfish_formulas(p * p + 1, p), fn.angelfish_lite_formulas(p * p + 1, p)
        assert f.nodes == fl.nodes == (p * p + 1) * (p * p + 2)
        assert (f.ports, fl.ports, f.diameter, fl.diameter) == (2 * p, p + 1, 4, 5)


def test_angelfish_bisection_estimate_vs_balanced_cut():
    # p links between each pair of subnets: splitting 11 subnets 5 / 6 cuts 30 pairs
    t = fn.angelfish("petersen")
    sub = subnet_of(t, 10)
    e = t.edges
    cut = np.count_nonzero((sub[e[:, 0]] < 5) != (sub[e[:, 1]] < 5))
    assert cut == 3 * 5 * 6
    assert abs(fn.angelfish_formulas(10, 3).bisection_links - cut) / cut < 0.02


# ----------------------------------------------------------------------------- Flying Fish
def test_figure8_flying_fish_lite_7x7():
    t = fn.flying_fish_lite(7)
    assert t.num_switches == 2450 == 50 * 49
    assert set(t.degrees.tolist()) == {13}
    assert bitset_diameter(t)[0] == 5
    assert t.link_counts() == {"intra": 50 * 49 * 12 // 2, "inter": 50 * 49 // 2}


def test_figure9_flying_fish_7x7():
    t = fn.flying_fish(7)
    assert t.num_switches == 4802 == 98 * 49
    assert t.degree == 26
    # a subnet has no link to itself: the 7 routers of the row (H) / column (V) of its own
    # number have 25 ports
    assert np.bincount(t.degrees).tolist()[25:] == [98 * 7, 4802 - 98 * 7]
    assert bitset_diameter(t)[0] == 4
    assert t.link_counts() == {"intra": 98 * 49 * 12 // 2, "inter": 7 * 98 * 97 // 2}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_flying_fish_derived_formulas(n):
    t = fn.flying_fish(n)
    f = fn.flying_fish_formulas(n)
    assert t.num_switches == f.nodes == 2 * n**4
    assert t.degree == f.ports == 4 * n - 2
    assert int(t.degrees.min()) == 4 * n - 3
    assert bitset_diameter(t)[0] == f.diameter == 4
    assert t.link_counts()["inter"] == n * math.comb(2 * n * n, 2)
    assert f.bisection_links == n**5


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_flying_fish_lite_derived_formulas(n):
    t = fn.flying_fish_lite(n)
    f = fn.flying_fish_lite_formulas(n)
    assert t.num_switches == f.nodes == n * n * (n * n + 1)
    assert set(t.degrees.tolist()) == {f.ports} == {2 * n - 1}
    assert bitset_diameter(t)[0] == f.diameter == 5


def test_flying_fish_matches_paper_wording():
    """Figure 9 read literally: subnets mH / mV; towards an H subnet use the row of its
    number, towards a V subnet its column; the two groups matched in position order."""
    n = 3
    size = n * n
    names = [("H", m) for m in range(size)] + [("V", m) for m in range(size)]

    def group(target):
        kind, m = target
        x, y = m % n, m // n
        return [y * n + t for t in range(n)] if kind == "H" else [x + n * t for t in range(n)]

    g = nx.Graph()
    fb = nx.cartesian_product(nx.complete_graph(n), nx.complete_graph(n))
    for k in range(len(names)):
        for (x1, y1), (x2, y2) in fb.edges():
            g.add_edge(k * size + x1 + n * y1, k * size + x2 + n * y2)
    for a, b in itertools.combinations(range(len(names)), 2):
        for u, w in zip(group(names[b]), group(names[a])):
            g.add_edge(a * size + u, b * size + w)
    expected = {tuple(sorted(e)) for e in g.edges()}
    assert edge_set(fn.flying_fish(n)) == expected


def test_flying_fish_kinds_and_subnets():
    t = fn.flying_fish(3)
    sub = subnet_of(t, 9)
    kinds = t.kind_of_links()
    e = t.edges
    same = sub[e[:, 0]] == sub[e[:, 1]]
    assert np.all(same == (kinds == "intra"))
    # n = 3 links between every two of the 18 subnets
    a, b = sub[e[~same, 0]], sub[e[~same, 1]]
    counts = np.bincount(a * 18 + b, minlength=18 * 18).reshape(18, 18)
    i, j = np.triu_indices(18, 1)
    assert set(counts[i, j].tolist()) == {3}


def test_registry_and_params():
    t = registry.generate("flying-fish", n="3")
    assert t.name == "flying-fish" and t.params == {"n": 3, "hosts_per_switch": 1}
    t = registry.generate("flying-fish-lite", n=2, hosts_per_switch=2)
    assert t.num_hosts == 2 * 20
    t = registry.generate("angelfish", subnet="hoffman-singleton")
    assert t.name == "angelfish" and t.params["subnet"] == "hoffman-singleton"
    t = registry.generate("angelfish-lite")
    assert t.num_switches == 110 and t.degree == 4
    assert registry.get("angelfish").param("subnet").type_name == "{petersen,hoffman-singleton,mms}"


# ----------------------------------------------------------------------------- irregular / errors
def test_irregular_subnet_keeps_diameter_bounds():
    # the wheel W_6 (hub + 6-cycle) has diameter 2 and degrees 3 and 6
    sub = Topology.from_networkx(nx.wheel_graph(7))
    for lite, bound in ((False, 4), (True, 5)):
        t = fn.fishnet(sub, lite=lite)
        assert t.num_switches == 7 * 8
        assert nx.diameter(t.to_networkx()) <= bound


@pytest.mark.parametrize(
    "graph, words",
    [
        (nx.cycle_graph(7), "diameter 3"),
        (nx.path_graph(6), "diameter 5"),
        (nx.complete_graph(5), "complete"),
        (nx.disjoint_union(nx.petersen_graph(), nx.petersen_graph()), "disconnected"),
    ],
)
def test_subnet_must_have_diameter_two(graph, words):
    sub = Topology.from_networkx(graph)
    with pytest.raises(ParameterError, match=words):
        fn.fishnet(sub)
    with pytest.raises(ParameterError, match="diameter-2"):
        fn.angelfish(sub)


def test_bad_parameters():
    for bad in (1, 0, -3):
        with pytest.raises(ParameterError, match=r"n .*>= 2.*nearest valid value: 2"):
            fn.flying_fish(bad)
        with pytest.raises(ParameterError, match="nearest valid value: 2"):
            fn.flying_fish_lite(bad)
    with pytest.raises(ParameterError, match="n must be an integer"):
        fn.flying_fish(2.5)
    with pytest.raises(ParameterError, match="needs q"):
        fn.angelfish("mms")
    with pytest.raises(ParameterError, match="q applies"):
        fn.angelfish("petersen", q=5)
    with pytest.raises(ParameterError, match="subnet must be one of"):
        fn.angelfish("dodecahedron")
    with pytest.raises(ParameterError, match="Topology"):
        fn.fishnet(nx.petersen_graph())
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        fn.flying_fish(3, hosts_per_switch=-1)
    with pytest.raises(ParameterError, match="subnet_switches"):
        fn.angelfish_formulas(2, 2)


def test_subnet_diameter_helper():
    assert fn.subnet_diameter(petersen()) == 2
    assert fn.subnet_diameter(hoffman_singleton()) == 2
    assert fn.subnet_diameter(Topology.from_networkx(nx.complete_graph(4))) == 1
    assert fn.subnet_diameter(Topology.from_networkx(nx.cycle_graph(6))) is None
