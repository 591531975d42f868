"""k-ary n-tree (Petrini and Vanneschi) and the Slim Fly paper's FT-3 (Section V): counts,
degrees, diameter, full bisection, and the exact switch numbering of BookSim2's
``fattree`` rebuilt from its channel-numbering rule."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.fattree import fat_tree, kary_ntree, ntree_levels
from topogen.registry import generate

SIZES = [(2, 1), (2, 2), (2, 3), (3, 3), (4, 2), (4, 3), (2, 4), (3, 4)]


@pytest.mark.parametrize("k,n", SIZES)
def test_counts_and_degrees(k, n):
    t = kary_ntree(k, n)
    assert t.num_switches == n * k ** (n - 1)
    assert t.num_hosts == k ** n
    assert t.num_links == (n - 1) * k ** n
    level = ntree_levels(k, n)
    hosts = np.asarray(t.hosts)
    assert np.array_equal(hosts, np.where(level == n - 1, k, 0))  # hosts on leaves only
    up = np.zeros(t.num_switches, dtype=int)
    down = np.zeros(t.num_switches, dtype=int)
    for u, v in t.edges.tolist():
        assert level[v] == level[u] + 1  # links only between consecutive levels
        down[u] += 1
        up[v] += 1
    assert np.array_equal(up, np.where(level > 0, k, 0))
    assert np.array_equal(down, np.where(level < n - 1, k, 0))
    if n > 1:  # one label per pair of levels, k**n links each
        assert t.link_counts() == {f"level{l}-{l + 1}": k ** n for l in range(n - 1)}


@pytest.mark.parametrize("k,n", [(2, 2), (3, 3), (4, 3), (2, 4)])
def test_leaf_diameter_is_2n_minus_2(k, n):
    t = kary_ntree(k, n)
    g = t.to_networkx()
    leaves = range((n - 1) * k ** (n - 1), t.num_switches)
    d = dict(nx.all_pairs_shortest_path_length(g))
    assert max(d[a][b] for a in leaves for b in leaves) == 2 * n - 2
    # leaves whose words first differ at digit l are 2(n-1-l) apart
    per = k ** (n - 1)
    for a, b in itertools.combinations(leaves, 2):
        wa = np.base_repr(a - (n - 1) * per, k).zfill(n - 1)
        wb = np.base_repr(b - (n - 1) * per, k).zfill(n - 1)
        lcp = next(i for i in range(n - 1) if wa[i] != wb[i])
        assert d[a][b] == 2 * (n - 1 - lcp)


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 2), (2, 4)])
def test_full_bisection(k, n):
    """Any half of the hosts can send N/2 units to the other half (max flow over unit
    links): the natural split and random splits of the leaves (Slim Fly III-C: N/2)."""
    t = kary_ntree(k, n)
    g = nx.DiGraph()
    for u, v in t.edges.tolist():
        g.add_edge(u, v, capacity=1)
        g.add_edge(v, u, capacity=1)
    leaves = np.arange((n - 1) * k ** (n - 1), t.num_switches)
    rng = np.random.default_rng(7)
    splits = [leaves[: len(leaves) // 2]] + [rng.permutation(leaves)[: len(leaves) // 2] for _ in range(3)]
    for half in splits:
        h = g.copy()
        for leaf in leaves:
            if leaf in half:
                h.add_edge("s", int(leaf), capacity=k)
            else:
                h.add_edge(int(leaf), "t", capacity=k)
        assert nx.maximum_flow_value(h, "s", "t") == k * len(half)  # all N/2 (odd k: the smaller half)


def _booksim_fattree_edges(k: int, n: int) -> set[tuple[int, int]]:
    """Router links of BookSim2's ``fattree`` (src/networks/fattree.cpp), rebuilt from its
    channel numbering: a channel joins the router whose output it is with the router whose
    input it is; router id = level * k**(n-1) + pos, level 0 at the top."""
    P = k ** (n - 1)
    cpd = k * P  # channels per direction
    cpl = 2 * cpd  # channels per level
    out_of, into = {}, {}
    for level in range(n - 1):  # down outputs
        for pos in range(P):
            for port in range(k):
                out_of[level * cpl + pos * k + port] = level * P + pos
    for level in range(1, n):  # up outputs
        for pos in range(P):
            for port in range(k):
                out_of[level * cpl - cpd + pos * k + port] = level * P + pos

    def interleaved(base, level_hood, level_branch, pos, port):
        rpn = k ** (n - 1 - level_hood)
        rpb = k ** (n - 1 - level_branch)
        hood, hpos = divmod(pos, rpn)
        return base + hood * rpn * k + port * rpb * k + (hpos % rpb) * k + hpos // rpb

    for level in range(n - 1):  # down inputs (from the children's up outputs)
        for pos in range(P):
            for port in range(k):
                into[interleaved((level + 1) * cpl - cpd, level, level + 1, pos, port)] = level * P + pos
    for level in range(1, n):  # up inputs (from the parents' down outputs)
        for pos in range(P):
            for port in range(k):
                into[interleaved((level - 1) * cpl, level - 1, level, pos, port)] = level * P + pos
    assert set(out_of) == set(into) and len(out_of) == 2 * (n - 1) * k ** n
    return {(min(out_of[c], into[c]), max(out_of[c], into[c])) for c in out_of}


@pytest.mark.parametrize("k,n", [(2, 2), (2, 3), (3, 3), (4, 3), (2, 4), (3, 4)])
def test_same_numbering_as_booksim_fattree(k, n):
    t = kary_ntree(k, n)
    ref = _booksim_fattree_edges(k, n)
    assert set(map(tuple, t.edges.tolist())) == ref
    # each link appears once per direction in BookSim's numbering (a simple graph)
    assert len(ref) == t.num_links


def _petrini_vanneschi(k: int, n: int) -> nx.Graph:
    """The definition: switches <w, l>, w in {0..k-1}^(n-1); <w, l> ~ <w', l+1> iff w and
    w' agree on every digit but digit l; processing nodes on level n-1."""
    g = nx.Graph()
    words = list(itertools.product(range(k), repeat=n - 1))
    for lv in range(n):
        for w in words:
            g.add_node((w, lv), hosts=k if lv == n - 1 else 0)
    for lv in range(n - 1):
        for w in words:
            for c in range(k):
                w2 = w[:lv] + (c,) + w[lv + 1:]
                g.add_edge((w, lv), (w2, lv + 1))
    return g


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 2), (2, 4)])
def test_isomorphic_to_the_definition(k, n):
    t = kary_ntree(k, n)
    ours = t.to_networkx()
    nx.set_node_attributes(ours, dict(enumerate(np.asarray(t.hosts).tolist())), "hosts")
    ref = _petrini_vanneschi(k, n)
    assert nx.is_isomorphic(ours, ref, node_match=lambda a, b: a["hosts"] == b["hosts"])


def test_slim_fly_ft3():
    """Section V: "FT-3 has k=44, p=22, N_r=1,452, N=10,648"."""
    t = fat_tree()  # defaults: 44-port routers, three levels
    assert (t.num_switches, t.num_hosts) == (1452, 10648)
    ports = t.degrees + np.asarray(t.hosts)
    level = ntree_levels(22, 3)
    assert np.all(ports[level > 0] == 44) and np.all(ports[level == 0] == 22)  # roots: half used
    assert np.all(np.asarray(t.hosts)[level == 2] == 22)  # p = 22 endpoints per leaf
    assert t.name == "fat-tree" and t.params == {"radix": 44, "levels": 3}
    assert np.array_equal(t.edges, kary_ntree(22, 3).edges)
    assert t.num_links == 2 * 10648  # router-to-router cables: k**n per pair of levels


def test_registry_and_cli_names():
    t = generate("kary-ntree", k=3, n=2)
    assert (t.num_switches, t.num_hosts, t.name) == (6, 9, "kary-ntree")
    assert generate("fat-tree", radix=8, levels=2).num_hosts == 16


@pytest.mark.parametrize("kwargs,match", [
    (dict(k=1, n=3), "k must be an integer >= 2"),
    (dict(k=4, n=0), "n must be an integer >= 1"),
    (dict(k=2.5, n=2), "k must be an integer"),
    (dict(k=2, n=40), "32-bit"),
    (dict(k=1000, n=5), "32-bit"),
])
def test_refusals(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        kary_ntree(**kwargs)


def test_fat_tree_refusals():
    with pytest.raises(ParameterError, match="radix must be even"):
        fat_tree(43)
    with pytest.raises(ParameterError, match="radix must be an integer >= 4"):
        fat_tree(2)
    with pytest.raises(ParameterError, match="levels must be an integer >= 1"):
        fat_tree(8, 0)


def test_slimfly_sim_compares_with_the_papers_ft3():
    """``reproduce slimfly-sim``'s FT curve at the paper's size: SF q = 19 (10,830 hosts)
    against the 22-ary 3-tree (10,648 hosts, 1,452 routers), routed with ANCA."""
    from topogen.reproduce.slimfly_sim import COMPARISONS, comparison_network

    t = comparison_network("FT", 19)
    assert (t.params, t.num_switches, t.num_hosts) == ({"k": 22, "n": 3}, 1452, 10648)
    assert COMPARISONS["FT-ANCA"] == ("FT", "anca")
