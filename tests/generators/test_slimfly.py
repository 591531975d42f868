"""Slim Fly / MMS graphs (Besta & Hoefler II-B) and the slimfly-structure reproduction."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from topogen import registry
from topogen.errors import ParameterError
from topogen.gf import GF
from topogen.generators.slimfly import (
    mms_generator_sets,
    router_coordinates,
    router_index,
    slimfly,
    slimfly_parameters,
)

QS = [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 25, 27, 32]
DELTA = {1: 1, 0: 0, 3: -1}


def _diameter_two(t):
    """Independent check: (A^2 + A + I) has no zero entry."""
    a = t.csr().astype(np.int64)
    r = a @ a + a + sp.identity(t.num_switches, dtype=np.int64, format="csr")
    return r.nnz == t.num_switches**2


@pytest.mark.parametrize("q", QS)
def test_size_degree_diameter(q):
    t = slimfly(q)
    delta = DELTA[q % 4]
    k = (3 * q - delta) // 2
    assert t.num_switches == 2 * q * q
    assert t.degrees.min() == t.degrees.max() == k
    assert t.num_links == q * q * k
    assert t.hosts_per_switch == -(-k // 2)
    assert _diameter_two(t)
    assert t.params == {"q": q, "hosts_per_switch": -(-k // 2), "delta": delta}


@pytest.mark.parametrize("q", [3, 4, 5, 7])
def test_diameter_with_networkx(q):
    assert nx.diameter(slimfly(q).to_networkx()) == 2


def test_q5_is_hoffman_singleton_and_paper_example():
    assert nx.is_isomorphic(slimfly(5).to_networkx(), nx.hoffman_singleton_graph())
    X, Xp = mms_generator_sets(5)  # paper: ξ = 2, X = {1, 4}, X' = {2, 3}
    assert GF(5).primitive == 2
    assert list(X) == [1, 4] and list(Xp) == [2, 3]


@pytest.mark.parametrize("q", QS)
def test_generator_sets(q):
    F = GF(q)
    X, Xp = mms_generator_sets(q)
    delta = DELTA[q % 4]
    assert len(X) == len(Xp) == (q - delta) // 2
    assert len(set(X)) == len(X) and 0 not in X and 0 not in Xp
    assert set(F.neg(X)) == set(X) and set(F.neg(Xp)) == set(Xp)
    assert set(F.mul(F.primitive, X)) == set(Xp)
    if delta == 1:  # the paper's formula: even powers / odd powers of ξ
        assert set(X) == set(F.exp[0 : q - 1 : 2]) and set(Xp) == set(F.exp[1 : q - 1 : 2])


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9])
def test_links_are_exactly_the_equations(q):
    """Brute force over all router pairs with scalar field arithmetic (Eq. 1-3)."""
    F = GF(q)
    X, Xp = (set(map(int, s)) for s in mms_generator_sets(q))
    routers = [(s, x, y) for s in (0, 1) for x in range(q) for y in range(q)]

    def linked(a, b):
        if a[0] == b[0] == 0:
            return a[1] == b[1] and F.sub(a[2], b[2]) in X
        if a[0] == b[0] == 1:
            return a[1] == b[1] and F.sub(a[2], b[2]) in Xp
        (_, x, y), (_, m, c) = (a, b) if a[0] == 0 else (b, a)
        return y == F.add(F.mul(m, x), c)

    expected = {(i, j) for i, a in enumerate(routers) for j, b in enumerate(routers) if i < j and linked(a, b)}
    assert {tuple(map(int, e)) for e in slimfly(q).edges} == expected
    assert [router_index(*r, q) for r in routers] == list(range(2 * q * q))


def test_link_kinds_and_racks():
    q = 7
    t = slimfly(q)
    s, x, _ = router_coordinates(t.edges, q)
    kinds = t.kind_of_links()
    assert ((kinds == "intra0") == ((s[:, 0] == 0) & (s[:, 1] == 0))).all()
    assert ((kinds == "intra1") == ((s[:, 0] == 1) & (s[:, 1] == 1))).all()
    assert ((kinds == "intra0") | (kinds == "intra1") <= (x[:, 0] == x[:, 1])).all()
    assert t.link_counts() == {"intra0": q * q * 4 // 2, "intra1": q * q * 4 // 2, "inter": q**3}
    assert np.array_equal(t.cabinet, router_coordinates(np.arange(2 * q * q), q)[1])


def test_paper_q19_example():
    # II-B2 / VI-A: q = 19, 722 routers, k' = 29, p = 15, 10,830 endpoints, k = 44
    t = slimfly(19)
    info = slimfly_parameters(19)
    assert (t.num_switches, t.degree, t.hosts_per_switch, t.num_hosts) == (722, 29, 15, 10830)
    assert info.delta == -1 and info.router_radix == 44 and round(info.exact_balance, 2) == 14.82
    # Section V: oversubscribed p = 16..21 connect 11,552 .. 15,162 endpoints
    assert slimfly(19, hosts_per_switch=16).num_hosts == 11552
    assert slimfly(19, hosts_per_switch=21).num_hosts == 15162


def test_paper_k96_example():
    # II-B3: k' = 96 -> 8,192 routers, Moore bound 9,217 (q = 64 = 4*16, δ = 0)
    t = slimfly(64)
    info = slimfly_parameters(64)
    assert (t.num_switches, t.degree, info.delta, info.moore_bound) == (8192, 96, 0, 9217)
    assert t.degrees.min() == 96


@pytest.mark.parametrize(
    "bad,near",
    [(2, "3"), (6, "5, 7"), (10, "9, 11"), (12, "11, 13"), (1, "3"), (-4, "3"), (15, "13, 16"), (33, "32, 37")],
)
def test_bad_q(bad, near):
    with pytest.raises(ParameterError, match=rf"^q={bad} .*nearest valid: {near}$"):
        slimfly(bad)


def test_bad_other_parameters():
    with pytest.raises(ParameterError, match="delta must be -1"):
        slimfly(7, delta=1)
    assert slimfly(7, delta=-1).params["delta"] == -1
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        slimfly(5, hosts_per_switch=-1)
    with pytest.raises(ParameterError, match="q must be an integer"):
        slimfly(5.5)


def test_registry():
    t = registry.generate("slimfly", q="9", hosts_per_switch="2")
    assert t.num_switches == 162 and t.num_hosts == 324
    spec = registry.get("slimfly")
    assert [p.name for p in spec.params] == ["q", "hosts_per_switch", "delta"]


def test_reproduction_small():
    res = registry.experiment("slimfly-structure").func(qmax=19)
    tab = res.table
    assert list(tab.q) == [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19]
    assert (tab.diameter == 2).all()
    assert (tab.degree_min == tab.network_radix).all() and (tab.degree_max == tab.network_radix).all()
    row = tab[tab.q == 19].iloc[0]
    for col in ("routers", "network_radix", "hosts_per_switch", "endpoints", "router_radix"):
        assert row[col] == row["paper_" + col]
    assert (tab.moore_bound == 1 + tab.network_radix**2).all()
    lay = res.extra_tables["layout_q19"].set_index("quantity")
    for qty in ("racks", "routers per rack", "endpoints per rack",
                "global channels between two racks (min)", "global channels between two racks (max)"):
        assert lay.loc[qty, "ours"] == lay.loc[qty, "paper"]
    with pytest.raises(ParameterError, match="qmax"):
        registry.experiment("slimfly-structure").func(qmax=2)


def test_params_roundtrip_through_registry():
    t = slimfly(8, hosts_per_switch=7)
    again = registry.generate(t.name, **t.params)
    assert np.array_equal(again.edges, t.edges) and again.params == t.params
