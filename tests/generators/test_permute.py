"""Topology permutation (Koibuchi et al. III-A): conservation, randomness, P vs PF,
duplicates, retries, bad input, and Table 1's 256-switch numbers."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np
import pytest

import topogen.generators.permute as permute_mod
from topogen import registry
from topogen.errors import ParameterError, TopologyError
from topogen.generators.classic import folded_hypercube, hypercube, torus
from topogen.generators.fattree import myrinet_clos
from topogen.generators.permute import (
    cabinet_pair_counts,
    p_torus,
    permute,
    permute_edges,
    pf_torus,
)
from topogen.layout import Floor, place
from topogen.metrics import distance_stats
from topogen.topology import Topology


def _layout(base, z):
    return place(base, Floor.for_switches(base.num_switches, z), "sequential")


BASES = [
    ("torus8x8", lambda: _layout(torus((8, 8)), 8)),
    ("hypercube7", lambda: _layout(hypercube(7), 16)),
    ("fhypercube7", lambda: _layout(folded_hypercube(7), 16)),
    ("clos256", lambda: place(myrinet_clos(256), Floor(5, 16), "native")),
]


def _pair_multiset(edges, cab):
    """Independent count of links per cabinet pair, in plain Python."""
    return Counter(tuple(sorted((int(cab[u]), int(cab[v])))) for u, v in edges)


def _per_switch_cabinet_links(edges, cab):
    """(switch, other cabinet) -> number of links, in plain Python."""
    out = Counter()
    for u, v in edges:
        out[(int(u), int(cab[v]))] += 1
        out[(int(v), int(cab[u]))] += 1
    return out


@pytest.mark.parametrize("method", ["partial", "full"])
@pytest.mark.parametrize("name,make", BASES, ids=[b[0] for b in BASES])
def test_conserves_cables_pairs_and_degrees(name, make, method):
    lay = make()
    out = permute(lay, method, seed=5)
    t, base = out.topology, lay.topology
    assert t.num_links == base.num_links
    assert _pair_multiset(t.edges, lay.cabinet) == _pair_multiset(base.edges, lay.cabinet)
    assert out.total_cable_length == pytest.approx(lay.total_cable_length, rel=1e-12)
    assert sorted(out.cable_length) == pytest.approx(sorted(lay.cable_length))
    assert np.array_equal(t.degrees, base.degrees)  # a swap keeps every switch's degree
    g = t.to_networkx()
    assert nx.is_connected(g) and nx.number_of_selfloops(g) == 0
    assert np.array_equal(out.cabinet, lay.cabinet)
    assert out.floor == lay.floor


@pytest.mark.parametrize("name,make", BASES[:3], ids=[b[0] for b in BASES[:3]])
def test_permutation_really_rewires(name, make):
    lay = make()
    base = {tuple(e) for e in lay.topology.edges.tolist()}
    for method in ("partial", "full"):
        new = {tuple(e) for e in permute(lay, method, seed=1).topology.edges.tolist()}
        assert len(new - base) > 0.3 * len(base)


def test_partial_keeps_links_per_switch_and_cabinet_full_does_not():
    lay = _layout(torus((16, 16)), 16)
    base = _per_switch_cabinet_links(lay.topology.edges, lay.cabinet)
    p = permute(lay, "partial", seed=2).topology
    assert _per_switch_cabinet_links(p.edges, lay.cabinet) == base
    # fully random: a switch may trade an intra-cabinet link for an inter-cabinet one
    f = permute(lay, "full", seed=2).topology
    assert _per_switch_cabinet_links(f.edges, lay.cabinet) != base


def test_full_never_swaps_two_intra_links_of_different_cabinets():
    # two cabinets, each a 4-cycle, joined by a single link: only pool E'_01 exists;
    # intra-0/intra-1 swaps would create inter links, which must never happen
    e = [(0, 1), (1, 2), (2, 3), (0, 3), (4, 5), (5, 6), (6, 7), (4, 7), (3, 4)]
    base = Topology(8, e, cabinet=np.arange(8) // 4)
    lay = place(base, Floor(2, 4), "native")
    for s in range(20):
        t = permute(lay, "full", seed=s, max_attempts=50).topology
        cnt = cabinet_pair_counts(t.edges, lay.cabinet, 2)
        assert cnt.tolist() == [[4, 1], [1, 4]]


def test_same_seed_same_result_and_seeds_differ():
    lay = _layout(hypercube(8), 16)
    a = permute(lay, "full", seed=11).topology
    b = permute(lay, "full", seed=11).topology
    c = permute(lay, "full", seed=12).topology
    assert np.array_equal(a.edges, b.edges)
    assert not np.array_equal(a.edges, c.edges)
    assert a.seed == 11 and a.params["method"] == "full"


def test_permute_edges_each_link_keeps_its_cabinet_pair():
    lay = _layout(torus((16, 16)), 16)
    cab = lay.cabinet
    e0 = lay.topology.edges.astype(np.int64)
    e1, kept = permute_edges(e0, cab, "full", rng=3)
    assert kept.all()
    a0, b0 = np.sort(cab[e0], axis=1).T
    a1, b1 = np.sort(cab[e1], axis=1).T
    assert np.array_equal(a0, a1) and np.array_equal(b0, b1)


def test_duplicates_drop_is_the_literal_reading():
    lay = _layout(torus((16, 16)), 16)
    skip = permute(lay, "full", seed=4, duplicates="skip").topology
    drop = permute(lay, "full", seed=4, duplicates="drop").topology
    assert skip.num_links == lay.topology.num_links
    assert drop.num_links < lay.topology.num_links  # redundant links were discarded
    before = cabinet_pair_counts(lay.topology.edges, lay.cabinet, lay.floor.cabinets)
    after = cabinet_pair_counts(drop.edges, lay.cabinet, lay.floor.cabinets)
    assert (after <= before).all()


def test_regenerates_until_connected_and_gives_up(monkeypatch):
    lay = _layout(torus((8, 8)), 8)
    calls = []
    real = permute_mod.permute_edges

    def flaky(edges, cabinet, method, **kw):
        calls.append(1)
        e, kept = real(edges, cabinet, method, **kw)
        if len(calls) < 3:  # first two attempts: cut switch 0 off
            e = e.copy()
            e[(e == 0).any(axis=1)] = e[~(e == 0).any(axis=1)][0]
            e = np.unique(np.sort(e, axis=1), axis=0)
            return e, np.ones(len(e), bool)
        return e, kept

    monkeypatch.setattr(permute_mod, "permute_edges", flaky)
    out = permute(lay, seed=1)
    assert out.topology.params["attempt"] == 2 and out.topology.is_connected()

    def never(edges, cabinet, method, **kw):
        return np.array([[0, 1], [2, 3]]), np.ones(2, bool)

    monkeypatch.setattr(permute_mod, "permute_edges", never)
    with pytest.raises(TopologyError, match="none of 7"):
        permute(lay, seed=1, max_attempts=7)


def test_bad_input():
    with pytest.raises(ParameterError, match="needs a laid-out topology"):
        permute(torus((4, 4)))
    with pytest.raises(ParameterError, match="needs a Layout"):
        permute([(0, 1)])
    lay = _layout(torus((4, 4)), 4)
    with pytest.raises(ParameterError, match="partial, full"):
        permute(lay, "both")
    with pytest.raises(ParameterError, match="skip, drop"):
        permute(lay, duplicates="keep")
    with pytest.raises(ParameterError, match="max_attempts"):
        permute(lay, max_attempts=0)
    with pytest.raises(ParameterError, match="even"):
        p_torus(5)
    disconnected = Topology(4, [(0, 1), (2, 3)], cabinet=[0, 0, 1, 1])
    with pytest.raises(TopologyError, match="disconnected"):
        permute(disconnected)


def test_topology_with_native_placement_is_accepted():
    out = permute(myrinet_clos(256), "full", seed=1)
    assert out.floor.switches_per_cabinet == 16 and out.topology.is_connected()


def test_registered_generators_rebuild_from_params():
    names = ["p-torus", "pf-torus", "p-hypercube", "pf-hypercube", "p-fhypercube",
             "pf-fhypercube", "p-myrinet-clos", "pf-myrinet-clos"]
    assert set(names) <= set(registry.names())
    t = registry.generate("pf-hypercube", dimension=6, switches_per_cabinet=8, seed=9)
    again = registry.generate("pf-hypercube", **t.params)
    assert np.array_equal(t.edges, again.edges)
    assert t.cabinet is not None and t.degree == 6


def test_table1_256_switch_numbers():
    # Table 1 (N = 256, 16 switches per cabinet): TORUS-4 16 / 8.00, P-TORUS-4 10 / 5.59,
    # PF-TORUS-4 11 / 5.96 (ASPL over N^2 pairs).  Ours, 4 seeds each:
    p = [distance_stats(p_torus(4, seed=s)) for s in range(4)]
    f = [distance_stats(pf_torus(4, seed=s)) for s in range(4)]
    assert [s.diameter for s in p] == [10] * 4
    assert all(11 <= s.diameter <= 12 for s in f)
    assert 5.52 < np.mean([s.aspl_n2 for s in p]) < 5.62
    assert 5.88 < np.mean([s.aspl_n2 for s in f]) < 6.03
    # the paper's conclusion: the two-step method is the better one
    assert np.mean([s.aspl_n2 for s in p]) < np.mean([s.aspl_n2 for s in f])
    base = distance_stats(torus((16, 16)))
    assert (base.diameter, base.aspl_n2) == (16, 8.0)
