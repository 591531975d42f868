"""Tests of the Uniform Random engine (Skywalk II-C), Random(N, d) and RING-n."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path
from scipy.stats import chi2

from topogen import registry
from topogen._rng import child_seeds
from topogen.errors import ParameterError, TopologyError
from topogen.generators.random import random_topology, ring
from topogen.generators.uniform import (
    best_of_instances,
    grouped_uniform_random_links,
    partners_from_mask,
    uniform_random_links,
)
from topogen.layout import Floor, place
from topogen.topology import Topology


# --------------------------------------------------------------------------- oracle
def exact_distribution(vertices, rounds, allowed=lambda u, v: True, existing=()):
    """Exact outcome distribution of the paper's algorithm (II-C), by enumeration.

    Written independently of the engine, straight from the listing: each round copies
    V into W, picks v1 uniformly in W, v2 uniformly among the valid vertices of W,
    links them, removes them.  Outcomes are frozensets of new links.
    """
    existing = frozenset(frozenset(e) for e in existing)
    dist: dict = {frozenset(): Fraction(1)}
    for _ in range(rounds):
        new: dict = {}
        for links, p in dist.items():
            for out, q in _round(frozenset(vertices), links, existing, allowed).items():
                new[out] = new.get(out, 0) + p * q
        dist = new
    return dist


def _round(W, links, existing, allowed):
    if not W:
        return {links: Fraction(1)}
    out: dict = {}
    pw = Fraction(1, len(W))
    for v1 in W:
        rest = W - {v1}
        valid = [c for c in rest
                 if frozenset((v1, c)) not in links and frozenset((v1, c)) not in existing
                 and allowed(v1, c)]
        if not valid:
            for o, q in _round(rest, links, existing, allowed).items():
                out[o] = out.get(o, 0) + pw * q
            continue
        pv = pw / len(valid)
        for v2 in valid:
            for o, q in _round(rest - {v2}, links | {frozenset((v1, v2))}, existing, allowed).items():
                out[o] = out.get(o, 0) + pv * q
    return out


def chi2_pvalue(samples, dist):
    """p-value of a chi-square goodness-of-fit test of the sampled outcomes."""
    counts = Counter(samples)
    assert set(counts) <= set(dist), "engine produced an outcome the algorithm cannot produce"
    n = len(samples)
    keys = list(dist)
    obs = np.array([counts.get(k, 0) for k in keys], float)
    exp = np.array([float(dist[k]) * n for k in keys])
    stat = ((obs - exp) ** 2 / exp).sum()
    return chi2.sf(stat, len(keys) - 1)


def as_outcome(edges):
    return frozenset(frozenset(map(int, e)) for e in edges)


# 2,000 samples per case (smallest expected count about 24) and a 1e-3 significance
# level; the seeds are fixed, so these tests are deterministic.  They have power: an
# engine taking the first valid candidate instead of a uniform one gets p = 0.0
# (test_oracle_rejects_a_biased_engine).
SAMPLES = 2000


def test_engine_unconstrained_matches_exact_distribution():
    dist = exact_distribution(range(5), 2)
    rng = np.random.default_rng(11)
    samples = [as_outcome(uniform_random_links(5, 2, rng=rng)) for _ in range(SAMPLES)]
    assert chi2_pvalue(samples, dist) > 1e-3


def test_engine_partner_lists_match_exact_distribution():
    # sparse-constraint path (partner lists + rejection + scan), with existing links
    allowed = lambda u, v: (u + v) % 3 != 0  # noqa: E731
    mask = np.array([[allowed(u, v) for v in range(6)] for u in range(6)])
    existing = [(0, 1), (2, 4)]
    dist = exact_distribution(range(6), 2, allowed, existing)
    rng = np.random.default_rng(12)
    parts = partners_from_mask(mask)
    samples = [as_outcome(uniform_random_links(6, 2, rng=rng, partners=parts, existing=existing))
               for _ in range(SAMPLES)]
    assert chi2_pvalue(samples, dist) > 1e-3


def test_engine_predicate_matches_exact_distribution():
    allowed = lambda u, v: np.abs(np.asarray(u) - np.asarray(v)) <= 2  # noqa: E731
    dist = exact_distribution(range(6), 2, lambda u, v: bool(allowed(u, v)))
    rng = np.random.default_rng(13)
    samples = [as_outcome(uniform_random_links(6, 2, rng=rng, allowed=allowed, max_rejections=1))
               for _ in range(SAMPLES)]
    assert chi2_pvalue(samples, dist) > 1e-3


def test_engine_existing_links_batch_path_matches_exact_distribution():
    ring5 = [(i, (i + 1) % 5) for i in range(5)]
    dist = exact_distribution(range(5), 1, existing=ring5)
    rng = np.random.default_rng(14)
    samples = [as_outcome(uniform_random_links(5, 1, rng=rng, existing=ring5)) for _ in range(SAMPLES)]
    assert chi2_pvalue(samples, dist) > 1e-3


def test_grouped_engine_matches_per_group_exact_distribution():
    # groups of sizes 4 and 3 (padded); outcome distribution = product of per-group ones
    d1 = exact_distribution(range(4), 2)
    d2 = exact_distribution(range(4, 7), 2)
    dist = {a | b: p * q for a, p in d1.items() for b, q in d2.items()}
    rng = np.random.default_rng(15)
    groups = [[0, 1, 2, 3], [4, 5, 6, -1]]
    samples = [as_outcome(grouped_uniform_random_links(groups, 2, rng=rng)) for _ in range(SAMPLES)]
    assert chi2_pvalue(samples, dist) > 1e-3


def test_oracle_rejects_a_biased_engine():
    # the test above can fail: a "first valid candidate" engine is rejected
    dist = exact_distribution(range(5), 2)
    rng = np.random.default_rng(16)
    samples = []
    for _ in range(SAMPLES):
        links = set()
        for _r in range(2):
            W = list(rng.permutation(5))
            while W:
                v1 = W.pop(int(rng.integers(len(W))))
                valid = [c for c in sorted(W) if frozenset((v1, c)) not in links]
                if valid:
                    W.remove(valid[0])
                    links.add(frozenset((v1, valid[0])))
        samples.append(frozenset(links))
    assert chi2_pvalue(samples, dist) < 1e-6


def test_engine_round_structure_and_weight_option():
    e = uniform_random_links(40, 5, rng=3)
    assert np.bincount(e.ravel(), minlength=40).max() <= 5
    assert len({frozenset(x) for x in e.tolist()}) == len(e)
    # weight 0 for far vertices forbids them
    w = lambda u, v: (np.abs(np.asarray(u) - np.asarray(v)) == 1).astype(float)  # noqa: E731
    e = uniform_random_links(10, 3, rng=4, weight=w)
    assert len(e) and np.all(np.abs(e[:, 0] - e[:, 1]) == 1)
    # restricted vertex set
    e = uniform_random_links(10, 3, rng=5, vertices=[2, 3, 7, 8])
    assert set(e.ravel()) <= {2, 3, 7, 8}


def test_engine_saturating_variant_fills_ports():
    e = uniform_random_links(8, None, rng=1, capacity=7)
    assert len(e) == 28  # K8: with rounds until idle every port is used
    g = grouped_uniform_random_links(np.arange(24).reshape(3, 8), None, rng=1, capacity=7)
    assert len(g) == 3 * 28
    with pytest.raises(ParameterError, match="capacity"):
        uniform_random_links(8, None, rng=1)


def test_engine_bad_arguments():
    with pytest.raises(ParameterError, match="rounds"):
        uniform_random_links(5, -1, rng=1)
    with pytest.raises(ParameterError, match="partners"):
        uniform_random_links(5, 1, rng=1, partners=[[1]])
    with pytest.raises(ParameterError, match="symmetric"):
        partners_from_mask(np.triu(np.ones((3, 3), bool)))
    with pytest.raises(ParameterError, match="groups"):
        grouped_uniform_random_links([[0, -1, 2]], 1, rng=1)


# --------------------------------------------------------------------------- best of
def test_best_of_instances_picks_connected_with_most_links_lowest_index():
    seeds = child_seeds(7, 4)
    path = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    cycle = path + [(0, 5)]
    triangles = [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)]
    plan = {seeds[0]: path, seeds[1]: triangles, seeds[2]: cycle, seeds[3]: cycle}
    topo, idx, links = best_of_instances(lambda s: Topology(6, plan[s]), 7, 4)
    assert links == [5, 6, 6, 6]
    assert idx == 2  # most links and connected; 1 is disconnected, 3 loses the tie
    assert topo.num_links == 6
    with pytest.raises(TopologyError, match="instance 1"):
        best_of_instances(lambda s: Topology(6, plan[s]), 7, 4, instance=1)


def test_best_of_instances_raises_when_none_connected():
    with pytest.raises(TopologyError, match="raise the degree"):
        random_topology(100, 1, seed=1)


# --------------------------------------------------------------------------- Random
def test_random_structure_and_provenance():
    t = random_topology(500, 6, seed=42)
    assert t.num_switches == 500 and t.is_connected()
    assert t.degree <= 6 and t.num_links <= 500 * 6 // 2
    # a round leaves at most a handful of switches unpaired
    assert t.num_links >= 0.98 * 500 * 6 / 2
    assert t.params["seed"] == 42 and t.seed == 42
    assert 0 <= t.params["instance"] < 10
    # the recorded instance rebuilds the same graph directly (and via the registry)
    again = random_topology(500, 6, seed=42, instance=t.params["instance"])
    assert np.array_equal(again.edges, t.edges)
    p = dict(t.params)
    via = registry.generate("random", **{k: v for k, v in p.items()})
    assert np.array_equal(via.edges, t.edges)


def test_random_best_of_ten_is_the_largest_connected_instance():
    t = random_topology(60, 3, seed=9)
    seeds = child_seeds(9, 10)
    counts = []
    for s in seeds:
        e = uniform_random_links(60, 3, rng=s)
        inst = Topology(60, e)
        counts.append(inst.num_links if inst.is_connected() else -1)
    assert t.num_links == max(counts)
    assert t.params["instance"] == counts.index(max(counts))


def test_random_determinism_and_seed_dependence():
    a = random_topology(300, 5, seed=1)
    b = random_topology(300, 5, seed=1)
    c = random_topology(300, 5, seed=2)
    assert np.array_equal(a.edges, b.edges)
    assert not np.array_equal(a.edges, c.edges)


def test_random_seed_none_is_recorded_and_reproducible():
    a = random_topology(100, 4)
    assert isinstance(a.seed, int)
    assert np.array_equal(random_topology(100, 4, seed=a.seed).edges, a.edges)


def test_random_2048_11_cable_length_matches_paper():
    """Skywalk Fig. 5: Random(2048, 11) has 207 km of cable in 256 cabinets.

    Measured over 20 seeds (best of 10 each): 11,264 links every time, 206.67 km
    mean, sd 0.76 km, range 205.4-208.0 km.  The paper's rounded 207 km is therefore
    checked within 2 km (about 2.5 sd); the mean length per link is also compared with
    the exact expectation for a uniformly random pair of distinct switches.
    """
    t = random_topology(2048, 11, seed=5)
    assert t.degree == 11
    lay = place(t, Floor.skywalk(256, 8))
    km = lay.total_cable_length / 1000
    assert abs(km - 207) < 2.0
    # independent expectation: mean cable over all pairs of distinct switches
    D = Floor.skywalk(256, 8).distance_matrix()
    pair_sum = 64 * D.sum() - 256 * 8 * D[0, 0]  # 8 x 8 switch pairs per cabinet pair
    mean_pair = pair_sum / (2048 * 2047)
    assert mean_pair == pytest.approx(18.34, abs=0.01)
    assert lay.cable_length.mean() == pytest.approx(mean_pair, rel=0.02)


def test_random_bad_parameters():
    with pytest.raises(ParameterError, match=r"degree must be an integer in \[1, 9\]"):
        random_topology(10, 10, seed=1)
    with pytest.raises(ParameterError, match="degree"):
        random_topology(10, 0, seed=1)
    with pytest.raises(ParameterError, match="num_switches"):
        random_topology(1, 1, seed=1)
    with pytest.raises(ParameterError, match="instances"):
        random_topology(10, 3, instances=0, seed=1)
    with pytest.raises(ParameterError, match="instance"):
        random_topology(10, 3, instance=10, seed=1)
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        random_topology(10, 3, hosts_per_switch=-1, seed=1)
    with pytest.raises(ParameterError, match="seed"):
        random_topology(10, 3, seed=-5)


# --------------------------------------------------------------------------- RING-n
def test_ring_structure():
    t = ring(128, 5, seed=3)
    n = 128
    kinds = t.kind_of_links()
    ring_edges = {frozenset((i, (i + 1) % n)) for i in range(n)}
    got_ring = {frozenset(map(int, e)) for e, k in zip(t.edges, kinds) if k == "ring"}
    assert got_ring == ring_edges
    assert t.link_counts()["shortcut"] <= n * 3 // 2
    assert t.degree <= 5 and t.is_connected()
    # every switch has its 2 ring links plus at most n - 2 = 3 shortcuts
    sc = np.bincount(t.edges[kinds == "shortcut"].ravel(), minlength=n)
    assert sc.max() <= 3
    assert np.array_equal(ring(128, 5, seed=3).edges, t.edges)
    assert not np.array_equal(ring(128, 5, seed=4).edges, t.edges)
    assert ring(10, 2, seed=1).num_links == 10


def test_ring_4_256_matches_paper_table_1():
    """Koibuchi et al. Table 1: RING-4 with N = 256 has diameter 7 and ASPL 4.38.

    Measured over 100 seeds: ASPL mean 4.400, sd 0.018 (range 4.368-4.465), diameter 7
    every time.  The paper reports one instance; 4.38 lies 1.1 sd from our mean, so
    each instance is checked within 0.09 (5 sd) of 4.38, and the mean of 10 seeds
    within 0.03 (about 5 standard errors).
    """
    aspl = []
    for s in range(10):
        t = ring(256, 4, seed=s)
        d = shortest_path(t.csr(), unweighted=True, directed=False)
        assert d.max() == 7
        aspl.append(d.sum() / (256 * 255))
        assert abs(aspl[-1] - 4.38) < 0.09
    assert abs(np.mean(aspl) - 4.38) < 0.03


def test_ring_bad_parameters():
    with pytest.raises(ParameterError, match="degree"):
        ring(10, 1, seed=1)
    with pytest.raises(ParameterError, match=r"degree must be an integer in \[2, 9\]"):
        ring(10, 10, seed=1)
    with pytest.raises(ParameterError, match="num_switches"):
        ring(2, 2, seed=1)
