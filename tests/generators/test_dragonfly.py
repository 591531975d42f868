"""Kim et al.'s Dragonfly(a, p, h) and Skywalk's fully-connected Dragonfly(z, c, d).

The arrangements are checked against a loop-by-loop construction written from their
definitions (module docstring of topogen.generators.dragonfly), the paper's structural
facts (one global link per group pair, router degree a - 1 + h, diameter 3, Skywalk's
degree formula and 615 km of cable) and networkx.
"""

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.generators.dragonfly import (
    ARRANGEMENTS,
    GLOBAL_PORT_ORDERS,
    cabinet_dragonfly,
    cabinet_dragonfly_degree,
    dragonfly,
)
from topogen.layout import Floor, place


def edge_set(topo):
    return {tuple(map(int, e)) for e in topo.edges}


def reference_dragonfly(a, h, g, arrangement, port_order):
    """Loop construction from the definitions: port q of group i leads to group target(i, q)."""

    def target(i, q):
        if arrangement == "consecutive":
            return (i + q + 1) % g
        if arrangement == "palmtree":
            return (i - q - 1) % g
        others = [j for j in range(g) if j != i]
        return others[q]

    def router(q):
        return q // h if port_order == "router" else q % a

    edges = set()
    for i in range(g):
        for r1, r2 in itertools.combinations(range(a), 2):
            edges.add((i * a + r1, i * a + r2))
    for i in range(g):
        for q in range(g - 1):
            t = target(i, q)
            # the port of group t whose link comes back to group i
            back = [qq for qq in range(g - 1) if target(t, qq) == i]
            assert len(back) == 1  # the arrangement pairs the ports of two groups
            u, v = i * a + router(q), t * a + router(back[0])
            edges.add((min(u, v), max(u, v)))
    return edges


def group_pairs(topo, a):
    glob = topo.edges[topo.kind_of_links() == "global"]
    return glob // a


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
@pytest.mark.parametrize("port_order", GLOBAL_PORT_ORDERS)
@pytest.mark.parametrize("a,h,g", [(4, 2, 9), (4, 2, 6), (3, 3, 10), (2, 1, 3), (1, 3, 4), (6, 1, 5)])
def test_dragonfly_matches_reference_construction(a, h, g, arrangement, port_order):
    t = dragonfly(a, 1, h, groups=g, arrangement=arrangement, global_port_order=port_order)
    assert edge_set(t) == reference_dragonfly(a, h, g, arrangement, port_order)


@pytest.mark.parametrize("a,p,h", [(4, 2, 2), (2, 1, 1), (6, 3, 3), (3, 2, 4), (8, 4, 4)])
@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_dragonfly_structure_kim(a, p, h, arrangement):
    t = dragonfly(a, p, h, arrangement=arrangement)
    g = a * h + 1
    assert t.params["groups"] == g
    assert t.num_switches == a * g
    assert t.num_hosts == a * p * (a * h + 1)  # Kim et al.: N = ap(ah + 1)
    assert t.link_counts() == {"local": g * a * (a - 1) // 2, "global": g * (g - 1) // 2}
    # every pair of groups joined by exactly one global link
    pairs = group_pairs(t, a)
    assert np.all(pairs[:, 0] != pairs[:, 1])
    assert len({tuple(sorted(x)) for x in pairs.tolist()}) == g * (g - 1) // 2
    # maximum size: every router has a - 1 local and h global links
    assert np.all(t.degrees == a - 1 + h)
    assert np.array_equal(t.cabinet, np.arange(a * g) // a)
    assert t.params["balanced"] == (a == 2 * p == 2 * h)


def test_balanced_flag():
    assert dragonfly(4, 2, 2).params["balanced"] is True
    assert dragonfly(4, 2, 1).params["balanced"] is False


@pytest.mark.parametrize("a,h,g", [(4, 2, 9), (2, 2, 5), (3, 1, 4), (4, 2, 3), (2, 1, 2), (5, 2, 11)])
@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_dragonfly_diameter_three(a, h, g, arrangement):
    # minimal routes are local-global-local (Kim et al. Sec. 3)
    t = dragonfly(a, 1, h, groups=g, arrangement=arrangement)
    assert nx.diameter(t.to_networkx()) == 3


def test_dragonfly_single_router_groups_is_complete_graph():
    t = dragonfly(1, 2, 5)
    assert nx.is_isomorphic(t.to_networkx(), nx.complete_graph(6))
    assert nx.diameter(t.to_networkx()) == 1


def test_dragonfly_single_group_is_clique():
    t = dragonfly(5, 1, 2, groups=1)
    assert t.num_links == 10 and t.link_counts()["global"] == 0


def test_palmtree_pairs_mirror_routers():
    # Garcia's palm tree (maximum size): router r meets router a-1-r of the other group
    a, h = 4, 2
    t = dragonfly(a, 2, h, arrangement="palmtree")
    glob = t.edges[t.kind_of_links() == "global"]
    assert np.all(glob[:, 0] % a + glob[:, 1] % a == a - 1)


def test_consecutive_router_reaches_next_groups():
    # router r of group i reaches groups i + r*h + 1 .. i + r*h + h (mod g)
    a, h = 4, 2
    g = a * h + 1
    t = dragonfly(a, 2, h)
    for i in range(g):
        for r in range(a):
            v = i * a + r
            reached = {int(w) // a for w in t.neighbors(v) if int(w) // a != i}
            assert reached == {(i + r * h + k + 1) % g for k in range(h)}


@pytest.mark.parametrize("a,h,g", [(4, 2, 6), (8, 4, 20), (3, 5, 7)])
def test_partial_dragonfly_port_orders(a, h, g):
    glob_router = dragonfly(a, 1, h, groups=g)
    glob_rr = dragonfly(a, 1, h, groups=g, global_port_order="round-robin")
    for t in (glob_router, glob_rr):
        per_router = t.degrees - (a - 1)
        assert per_router.max() <= h
        assert per_router.reshape(g, a).sum(axis=1).tolist() == [g - 1] * g
    # router order fills routers in turn; round robin spreads the g - 1 ports evenly
    rr = glob_rr.degrees - (a - 1)
    assert set(rr.tolist()) <= {(g - 1) // a, -(-(g - 1) // a)}
    ro = (glob_router.degrees - (a - 1)).reshape(g, a)
    expected = [min(h, max(0, g - 1 - r * h)) for r in range(a)]
    assert all(row == expected for row in ro.tolist())


# ----------------------------------------------------------------------------- Skywalk
@pytest.mark.parametrize("z,c", [(8, 256), (4, 10), (4, 13), (3, 2), (1, 6), (5, 1), (8, 64), (2, 9)])
@pytest.mark.parametrize("port_order", GLOBAL_PORT_ORDERS)
def test_cabinet_dragonfly_degree_formula(z, c, port_order):
    t = cabinet_dragonfly(z, c, global_port_order=port_order)
    d = z - 1 + math.ceil((c - 1) / z)  # Skywalk III-A
    assert t.degree == d == cabinet_dragonfly_degree(z, c)
    assert t.num_switches == z * c
    assert np.array_equal(t.cabinet, np.arange(z * c) // z)
    assert t.link_counts() == {"intra": c * z * (z - 1) // 2, "global": c * (c - 1) // 2}
    # intra links stay in a cabinet, global links join every pair of cabinets once
    cab = t.cabinet[t.edges]
    kinds = t.kind_of_links()
    assert np.array_equal(cab[:, 0] == cab[:, 1], kinds == "intra")
    pairs = {tuple(x) for x in cab[kinds == "global"].tolist()}
    assert pairs == set(itertools.combinations(range(c), 2))
    if z * c <= 120:
        diam = nx.diameter(t.to_networkx())
        assert diam <= 3
        if z >= 2 and c >= 2:
            assert diam == 3
        if z == 1:
            assert diam == (1 if c > 1 else 0)


def test_cabinet_dragonfly_is_kims_dragonfly():
    for z, c in [(8, 256), (4, 10), (3, 7)]:
        h = math.ceil((c - 1) / z)
        for arrangement in ARRANGEMENTS:
            sky = cabinet_dragonfly(z, c, arrangement=arrangement)
            kim = dragonfly(z, 1, h, groups=c, arrangement=arrangement)
            assert edge_set(sky) == edge_set(kim)


def test_cabinet_dragonfly_total_cable():
    """Skywalk III-B / Fig. 5: Dragonfly(8, 256, 39) has 615 km of cable."""
    floor = Floor.skywalk(256, 8)
    t = cabinet_dragonfly(8, 256)
    assert t.degree == 39
    # hand derivation: 256 cabinets x 28 intra cables of 2 m, plus one cable per cabinet pair
    # of Manhattan length + 4 m; over all pairs, sum |row diff| = sum |col diff| = 680 * 256
    k = np.arange(256)
    r, col = k // 16, k % 16
    iu = np.triu_indices(256, 1)
    manhattan = (np.abs(r[:, None] - r[None, :]) * 2.1 + np.abs(col[:, None] - col[None, :]) * 0.6)[iu]
    hand = 256 * 28 * 2.0 + manhattan.sum() + 4.0 * len(manhattan)
    assert hand == pytest.approx(256 * 28 * 2 + 680 * 256 * (2.1 + 0.6) + 4 * 32640)
    for arrangement in ARRANGEMENTS:
        for port_order in GLOBAL_PORT_ORDERS:
            layout = place(
                cabinet_dragonfly(8, 256, arrangement=arrangement, global_port_order=port_order), floor
            )
            assert layout.placement == "native"
            assert layout.total_cable_length == pytest.approx(614912, abs=1e-6)
            assert round(layout.total_cable_length / 1000) == 615
    assert hand == pytest.approx(614912, abs=1e-6)


# ----------------------------------------------------------------------------- errors, registry
@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: dragonfly(0, 1, 1), r"a must be an integer >= 1"),
        (lambda: dragonfly(4, -1, 2), r"p must be an integer >= 0"),
        (lambda: dragonfly(4, 2, 0), r"h must be an integer >= 1"),
        (lambda: dragonfly(4, 2, 2, groups=10), r"groups must be an integer in \[1, 9\].*a\*h \+ 1 = 9"),
        (lambda: dragonfly(4, 2, 2, groups=0), r"groups must be an integer in \[1, 9\]"),
        (lambda: dragonfly(4, 2, 2, arrangement="random"), "arrangement must be one of"),
        (lambda: dragonfly(4, 2, 2, global_port_order="x"), "global_port_order must be one of"),
        (lambda: cabinet_dragonfly(0, 4), "switches_per_cabinet must be an integer >= 1"),
        (lambda: cabinet_dragonfly(8, -2), "cabinets must be an integer >= 1"),
        (lambda: cabinet_dragonfly(8, 4, hosts_per_switch=-1), "hosts_per_switch must be an integer >= 0"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_registry():
    t = registry.generate("cabinet-dragonfly", switches_per_cabinet="4", cabinets="10", arrangement="palmtree")
    assert t.name == "cabinet-dragonfly" and t.seed is None
    assert edge_set(registry.generate("cabinet-dragonfly", **t.params)) == edge_set(t)
    k = registry.generate("dragonfly", a="4", p="2", h="2")
    params = {key: v for key, v in k.params.items() if key != "balanced"}  # balanced is derived
    assert edge_set(registry.generate("dragonfly", **params)) == edge_set(k)
    assert not registry.get("dragonfly").random


# ----------------------------------------------------------------------------- Slim Fly paper
@pytest.mark.parametrize(
    "a,p,h,groups,routers,endpoints,radix,electric,fiber",
    [
        # Slim Fly Sec. V and Table IV ("comparable N"): balanced DF, k = 27, p = 7
        (14, 7, 7, None, 1386, 9702, 27, 9009, 4900),
        # Table IV ("fixed radix k = 43"): balanced DF a = 22, p = h = 11
        (22, 11, 11, None, 5346, 58806, 43, 56133, 29524),
        # Table IV ("comparable N and k = 43"): a = 22, p = h = 11, only g = 45 groups
        (22, 11, 11, 45, 990, 10890, 43, 6885, 1012),
    ],
)
def test_slimfly_paper_dragonflies(a, p, h, groups, routers, endpoints, radix, electric, fiber):
    """Besta & Hoefler, Sec. V ("DF: k=27, p=7, N_r=1,386, N=9,702") and Table IV.

    Routers, endpoints and radix k = p + (a - 1) + h agree.  The cable rows do not all
    follow from the construction (documented in docs/topologies/dragonfly.md): the paper's
    own text (VI-B) gives g(g-1)/2 fiber cables, but Table IV prints floor(g^2/2); and
    6,885 electric cables for the 990-router DF is 45 * C(18, 2), not 45 * C(22, 2).
    """
    t = dragonfly(a, p, h, groups=groups)
    g = t.params["groups"]
    assert (t.num_switches, t.num_hosts, p + t.degree) == (routers, endpoints, radix)
    assert a >= 2 * h and p >= h  # Table IV's search condition (full global utilisation)
    counts = t.link_counts()
    assert counts["global"] == g * (g - 1) // 2  # VI-B: "g(g-1)/2 fiber cables"
    assert fiber == g * g // 2 != counts["global"]  # printed: floor(g^2 / 2)
    if groups is None:
        assert t.params["balanced"] and counts["local"] == electric == g * a * (a - 1) // 2
    else:
        assert counts["local"] == g * a * (a - 1) // 2 == 10395 != electric
        assert electric == g * 18 * 17 // 2
