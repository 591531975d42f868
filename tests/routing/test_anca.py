"""NCA and ANCA routing of k-ary n-trees: routes minimal and up*/down*, the choices ANCA
has, the NCA table's balance, acyclic channel dependencies (checked against a brute-force
enumeration of every ANCA route), saving and loading."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen.errors import ParameterError, RoutingError
from topogen.generators.classic import torus
from topogen.generators.fattree import fat_tree, kary_ntree, ntree_levels
from topogen.routing import (ALGORITHMS, AncaRouting, NcaRouting, TableRouting, anca, check,
                             load_routing, nca, route)
from topogen.routing.deadlock import cdg


def _leaves(k, n):
    return range((n - 1) * k ** (n - 1), n * k ** (n - 1))


def _is_up_down(levels, sw) -> bool:
    """Levels strictly decrease (toward the roots), then strictly increase."""
    lv = [int(levels[v]) for v in sw]
    i = int(np.argmin(lv))
    return (all(a - b == 1 for a, b in zip(lv[:i], lv[1:i + 1]))
            and all(b - a == 1 for a, b in zip(lv[i:], lv[i + 1:])))


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 2), (2, 4)])
def test_nca_routes_are_minimal_up_down(k, n):
    t = kary_ntree(k, n)
    r = route(t, algorithm="nca")
    assert isinstance(r, NcaRouting) and r.num_vcs == 1
    dist = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    levels = ntree_levels(k, n)
    for s, d in itertools.permutations(_leaves(k, n), 2):
        sw, vcs = r.path(s, d)
        assert len(sw) - 1 == dist[s][d]
        assert _is_up_down(levels, sw) and set(vcs.tolist()) == {0}


def test_nca_table_routes_every_switch_pair():
    """Routes toward switches without hosts exist too (shortest paths), so tools that walk
    every pair of a table work."""
    t = kary_ntree(3, 3)
    r = nca(t)
    n = t.num_switches
    s, d = np.nonzero(~np.eye(n, dtype=bool))
    lengths = r.route_lengths(s, d)
    dist = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    assert lengths.tolist() == [dist[a][b] for a, b in zip(s.tolist(), d.tolist())]


@pytest.mark.parametrize("k,n", [(3, 2), (4, 3), (3, 4)])
def test_nca_spreads_each_leafs_links(k, n):
    """A leaf sends to the other leaves over its k up links evenly (counts differ by at
    most one: the leaf itself is not a destination), and every leaf is entered through
    its k parents evenly over all sources."""
    t = kary_ntree(k, n)
    r = nca(t)
    leaves = list(_leaves(k, n))
    out = {s: np.zeros(k, int) for s in leaves}
    into = {d: {} for d in leaves}
    for s, d in itertools.permutations(leaves, 2):
        sw, _ = r.path(s, d)
        out[s][r.view.entry(sw[0], sw[1]) - r.view.indptr[sw[0]]] += 1
        into[d][int(sw[-2])] = into[d].get(int(sw[-2]), 0) + 1
    for s in leaves:
        assert out[s].max() - out[s].min() <= 1
    for d in leaves:
        c = np.array(list(into[d].values()))
        assert len(c) == min(k, len(leaves) - 1) and c.max() - c.min() <= 1


def _all_anca_routes(r: AncaRouting, s: int, d: int):
    """Every route ANCA may take from leaf ``s`` to leaf ``d`` (all up choices)."""
    routes = [[s]]
    done = []
    while routes:
        nxt = []
        for p in routes:
            v = p[-1]
            if v == d:
                done.append(p)
                continue
            up, ents = r.options(v, d)
            for e in ents.tolist():
                nxt.append(p + [int(r.view.indices[e])])
        routes = nxt
    return done


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (2, 4)])
def test_anca_choices(k, n):
    t = kary_ntree(k, n)
    r = anca(t)
    levels = ntree_levels(k, n)
    dist = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    per = k ** (n - 1)
    for s, d in itertools.permutations(_leaves(k, n), 2):
        routes = _all_anca_routes(r, s, d)
        # the NCA level: the digits s and d share from the first one
        ws = np.base_repr(s - (n - 1) * per, k).zfill(n - 1)
        wd = np.base_repr(d - (n - 1) * per, k).zfill(n - 1)
        lcp = next(i for i in range(n - 1) if ws[i] != wd[i])
        assert len(routes) == len({tuple(p) for p in routes}) == k ** (n - 1 - lcp)
        # ... which is every shortest path of the tree
        assert len(routes) == len(list(nx.all_shortest_paths(t.to_networkx(), s, d)))
        for p in routes:
            assert len(p) - 1 == dist[s][d] and _is_up_down(levels, p)
        assert list(r.path(s, d)[0]) in routes  # the representative route is one of them


def test_anca_options_at_a_leaf_and_an_ancestor():
    t = kary_ntree(4, 3)
    r = anca(t)
    leaf, dst = 32, 47  # different pods
    up, ents = r.options(leaf, dst)
    assert up and sorted(r.view.indices[ents].tolist()) == sorted(t.neighbors(leaf).tolist())
    root = 0  # every root is an ancestor of every leaf: one way down
    up, ents = r.options(root, dst)
    assert not up and len(ents) == 1
    with pytest.raises(RoutingError, match="not a leaf"):
        r.options(leaf, 5)


def _brute_force_cdg(r: AncaRouting, k, n):
    deps, chans = set(), set()
    for s, d in itertools.permutations(_leaves(k, n), 2):
        for p in _all_anca_routes(r, s, d):
            ents = r.view.entry(p[:-1], p[1:]).tolist()
            chans.update(ents)
            deps.update(zip(ents[:-1], ents[1:]))
    return chans, deps


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (2, 4)])
def test_anca_dependencies_are_exactly_those_of_its_routes(k, n):
    r = anca(kary_ntree(k, n))
    used, keys, c_total = cdg(r)
    chans, deps = _brute_force_cdg(r, k, n)
    assert set(used.tolist()) == chans
    assert {(int(x // c_total), int(x % c_total)) for x in keys} == deps


@pytest.mark.parametrize("algorithm", ["nca", "anca"])
@pytest.mark.parametrize("k,n", [(2, 3), (4, 3), (3, 4)])
def test_deadlock_free_with_one_vc(algorithm, k, n):
    rep = check(route(kary_ntree(k, n), algorithm=algorithm))
    assert rep.acyclic and rep.vcs_used == 1
    assert "leaf" in rep.checked


def test_the_check_would_find_a_cycle():
    """The check is not vacuous: on the same 2-ary 3-tree a table whose routes turn down
    and up again (leaf 8 - switch 4 - leaf 9 - switch 5 - leaf 8) has a cyclic CDG."""
    t = kary_ntree(2, 3)
    r = nca(t)
    view = r.view
    ranks = np.array(r.ranks, copy=True)
    ring = [8, 4, 9, 5]  # a 4-cycle of links: leaves 8, 9 and their parents 4, 5
    pairs = []
    for i in range(4):
        u, v, w = ring[i], ring[(i + 1) % 4], ring[(i + 2) % 4]
        ranks[0, u, w] = view.entry(u, v) - view.indptr[u]  # u -> w by way of v
        ranks[0, v, w] = view.entry(v, w) - view.indptr[v]
        pairs.append((u, w))
    rep = check(TableRouting(t, ranks, algorithm="nr", num_vcs=1), pairs)
    assert not rep.acyclic and len(rep.cycle) == 4


def test_save_and_load(tmp_path):
    t = kary_ntree(3, 3)
    for r in (anca(t, select="booksim"), nca(t)):
        d = tmp_path / r.algorithm
        r.save(d)
        back = load_routing(d)
        assert type(back) is type(r)
        if isinstance(r, AncaRouting):
            assert back.select == "booksim" and isinstance(back.base, NcaRouting)
            assert np.array_equal(back.base.ranks, r.base.ranks)
        else:
            assert np.array_equal(back.ranks, r.ranks)
        assert check(back).acyclic


def test_names_and_refusals():
    assert "anca" in ALGORITHMS and "nca" in ALGORITHMS
    with pytest.raises(ParameterError, match="not a k-ary n-tree"):
        route(torus((4, 4)), algorithm="anca")
    t = kary_ntree(3, 2)
    # same size, other numbering: not the tree the routing knows
    perm = np.array([3, 1, 2, 0, 4, 5])  # a root and a leaf swapped
    relabelled = type(t)(6, perm[t.edges], t.hosts, name="custom")
    with pytest.raises(ParameterError, match="not its links or hosts"):
        nca(relabelled)
    with pytest.raises(ParameterError, match="select must be"):
        anca(t, select="random")
    with pytest.raises(ParameterError, match="uses 1 VC"):
        route(t, algorithm="anca", vcs=2)


def test_ft3_routing_builds():
    """The paper's FT-3 (1,452 switches): the NCA table and ANCA build, the leaf routes
    are at most 4 hops (Table II's diameter)."""
    t = fat_tree()
    r = anca(t)
    assert r.k == 22 and r.n == 3
    leaves = np.arange(2 * 484, 3 * 484)
    rng = np.random.default_rng(3)
    s, d = rng.choice(leaves, 2000), rng.choice(leaves, 2000)
    lengths = r.base.route_lengths(s, d)
    assert lengths.max() == 4 and set(np.unique(lengths).tolist()) <= {0, 2, 4}


def test_table_rows_list_every_up_choice(tmp_path):
    from topogen.routing.export import read_table, table_rows, write_table

    t = kary_ntree(3, 3)
    r = anca(t)
    rows = table_rows(r)
    key = list(zip(rows["switch"].tolist(), rows["destination"].tolist()))
    for (v, d) in [(18, 26), (9, 26), (0, 26), (18, 19)]:
        hops = {int(h) for (vv, dd), h in zip(key, rows["next_hop"].tolist()) if (vv, dd) == (v, d)}
        up, ents = r.options(v, d)
        assert hops == set(r.view.indices[ents].tolist())
    write_table(r, tmp_path / "t.csv")
    back = read_table(tmp_path / "t.csv")
    assert np.array_equal(back["next_hop"], rows["next_hop"])
