"""Clustering into cabinets (Koibuchi et al. IV-C): size-capped Walktrap and the
sequential baseline."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import hypercube
from topogen.generators.shortcut import nbr
from topogen.layout.clustering import (
    cluster_graph,
    inter_cabinet_links,
    random_walk_embedding,
    sequential_clusters,
    walktrap_clusters,
)
from topogen.topology import Topology


def planted(groups=8, size=8, seed=0):
    """``groups`` cliques of ``size`` switches joined in a ring by one link each, with
    the switches numbered at random (so that sequential grouping cannot see them)."""
    rng = np.random.default_rng(seed)
    edges = []
    for g in range(groups):
        base = g * size
        a, b = np.triu_indices(size, 1)
        edges += list(zip(base + a, base + b))
        edges.append((base, ((g + 1) % groups) * size + 1))
    perm = rng.permutation(groups * size)  # old id -> new id
    e = perm[np.array(edges)]
    group_of = np.empty(groups * size, dtype=int)
    group_of[perm] = np.arange(groups * size) // size
    return Topology(groups * size, e), group_of


def test_sequential_is_even_and_consecutive():
    assert np.bincount(sequential_clusters(256, 16)).tolist() == [16] * 16
    lab = sequential_clusters(100, 16)  # 7 cabinets, sizes 14 or 15
    assert lab.max() == 6 and set(np.bincount(lab)) <= {14, 15}
    assert (np.diff(lab) >= 0).all()
    with pytest.raises(ParameterError, match="cabinet_size"):
        sequential_clusters(10, 0)


def test_walk_distance_matches_the_formula():
    # d_ij = sqrt(sum_k (P^t_ik - P^t_jk)^2 / deg(k)), computed directly with dense powers
    t = nbr(40, 5, 0.5, seed=3)
    A = t.csr().toarray().astype(float)
    deg = A.sum(axis=1)
    Pt = np.linalg.matrix_power(A / deg[:, None], 3)
    direct = np.sqrt((((Pt[:, None, :] - Pt[None, :, :]) ** 2) / deg).sum(axis=2))
    X = random_walk_embedding(t, 3).astype(float)
    ours = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    assert np.allclose(ours, direct, atol=1e-5)
    # a random projection keeps distances roughly (Johnson-Lindenstrauss)
    Y = random_walk_embedding(t, 3, dims=400, seed=1).astype(float)
    proj = np.sqrt(((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2))
    iu = np.triu_indices(40, 1)
    assert np.corrcoef(proj[iu], direct[iu])[0, 1] > 0.9


def test_walktrap_recovers_planted_cabinets():
    t, truth = planted()
    lab = walktrap_clusters(t, 8)
    # same partition as the planted one (up to numbering)
    pairs = {(int(a), int(b)) for a, b in zip(lab, truth)}
    assert len(pairs) == 8 and lab.max() == 7
    assert inter_cabinet_links(t, lab) == 8
    assert inter_cabinet_links(t, sequential_clusters(64, 8)) > 8


def test_size_cap_and_cabinet_count():
    t = nbr(1000, 8, 0.3, seed=2)
    raw = walktrap_clusters(t, 12, pack=False)
    assert np.bincount(raw).max() <= 12
    lab = walktrap_clusters(t, 12)
    assert np.bincount(lab).max() <= 12 and lab.max() + 1 <= -(-1000 // 12)
    more = walktrap_clusters(t, 12, cabinets=100)
    assert more.max() + 1 <= 100 and np.bincount(more).max() <= 12
    # clusters are numbered by smallest member
    first = [np.flatnonzero(lab == k)[0] for k in range(lab.max() + 1)]
    assert first == sorted(first)


def test_paper_claims_on_small_instances():
    # IV-C2: Walktrap beats sequential on Nbr(0.5)-n; sequential beats it on HYPERCUBE
    t = nbr(512, 9, 0.5, seed=1)
    assert inter_cabinet_links(t, walktrap_clusters(t, 16)) < \
        inter_cabinet_links(t, sequential_clusters(512, 16))
    h = hypercube(9)
    assert inter_cabinet_links(h, sequential_clusters(512, 16)) < \
        inter_cabinet_links(h, walktrap_clusters(h, 16))
    assert inter_cabinet_links(h, sequential_clusters(512, 16)) == 512 * 9 // 2 - 32 * 32


def test_cluster_graph_and_counts():
    t, truth = planted(4, 5)
    w = cluster_graph(t, truth).toarray()
    assert np.array_equal(w, w.T)
    assert np.diag(w).tolist() == [10] * 4  # K5 inside each cluster
    assert w.sum() - np.trace(w) == 2 * inter_cabinet_links(t, truth) == 8


def test_bad_input():
    t = nbr(64, 6, 0.5, seed=1)
    with pytest.raises(ParameterError, match="cabinet_size"):
        walktrap_clusters(t, 0)
    with pytest.raises(ParameterError, match="at least 8 cabinets"):
        walktrap_clusters(t, 8, cabinets=7)
    with pytest.raises(ParameterError, match="dims"):
        walktrap_clusters(t, 8, dims="exact")
    with pytest.raises(ParameterError, match="isolated"):
        walktrap_clusters(Topology(3, [(0, 1)]), 2)


def test_projection_is_reproducible():
    t = nbr(300, 6, 0.5, seed=1)
    a = walktrap_clusters(t, 10, dims=32, seed=4)
    b = walktrap_clusters(t, 10, dims=32, seed=4)
    assert np.array_equal(a, b)


def _naive_greedy(t, z, steps=4):
    """One merge at a time: the adjacent pair of smallest Δσ that fits (Walktrap with the
    paper's size cap), written independently with dense rows."""
    n = t.num_switches
    X = random_walk_embedding(t, steps).astype(float)
    size, rep = np.ones(n), np.arange(n)
    e = t.edges.astype(np.int64)
    while True:
        a, b = rep[e[:, 0]], rep[e[:, 1]]
        pairs = {(min(x, y), max(x, y)) for x, y in zip(a.tolist(), b.tolist()) if x != y}
        pairs = [(x, y) for x, y in pairs if size[x] + size[y] <= z]
        if not pairs:
            return rep
        x, y = min(pairs, key=lambda p: (size[p[0]] * size[p[1]] / (size[p[0]] + size[p[1]])
                                         * ((X[p[0]] - X[p[1]]) ** 2).sum(), p))
        X[x] = (size[x] * X[x] + size[y] * X[y]) / (size[x] + size[y])
        size[x] += size[y]
        size[y] = 0
        rep[rep == y] = x


def test_batched_merging_matches_one_at_a_time_greedy():
    # reciprocal-nearest-neighbour rounds versus the textbook one-merge-at-a-time loop
    for t in (nbr(128, 7, 0.5, seed=1), planted(6, 6, seed=2)[0]):
        ours = walktrap_clusters(t, 8, pack=False)
        ref = _naive_greedy(t, 8)
        a, b = inter_cabinet_links(t, ours), inter_cabinet_links(t, ref)
        assert abs(a - b) <= 0.05 * b
        assert np.bincount(ours).max() <= 8


def test_projected_embedding_drawn_in_blocks_is_one_draw():
    # the projection is drawn in blocks of rows (no float64 N x dims temporaries): the
    # same numbers as one (N, dims) draw of the seeded generator
    from topogen._rng import make_rng
    from topogen.generators.classic import torus
    from topogen.layout.clustering import random_walk_embedding

    t = torus((30, 40))  # 1,200 switches; 2,048 dims -> blocks of 512 rows
    got = random_walk_embedding(t, 2, dims=2048, seed=5)
    adj = t.csr().astype(np.float64)
    deg = np.asarray(adj.sum(axis=1)).ravel()
    P = (sp.diags(1.0 / deg) @ adj).astype(np.float32).tocsr()
    scale = (1.0 / np.sqrt(deg)).astype(np.float32)
    X = (make_rng(5).standard_normal((1200, 2048)) / np.sqrt(2048)).astype(np.float32) * scale[:, None]
    for _ in range(2):
        X = P @ X
    assert np.array_equal(got, X)


def _pack_dense_reference(t, labels, z, c):
    """The packing with the dense cluster x bin table it used to keep (reference)."""
    from topogen.layout.clustering import _cluster_links, _renumber

    lab = _renumber(labels)
    k = int(lab.max()) + 1
    sizes = np.bincount(lab, minlength=k)
    W = _cluster_links(t, lab, k)
    bin_of = np.full(k, -1)
    load = np.zeros(c, dtype=np.int64)
    to_bin = np.zeros((k, c))
    nb = 0
    for cl in np.argsort(-sizes, kind="stable"):
        room = load + sizes[cl] <= z
        room[nb + 1 :] = False
        if not room.any():
            continue
        b = int(np.argmax(np.where(room, to_bin[cl], -np.inf)))
        bin_of[cl], nb = b, max(nb, b + 1)
        load[b] += sizes[cl]
        row = W.getrow(cl)
        to_bin[row.indices, b] += row.data
    return np.where(bin_of[lab] >= 0, bin_of[lab], -1)


def test_pack_without_dense_table_matches_reference():
    from topogen.layout.clustering import _pack

    t = nbr(600, 4, 0.5, seed=3)
    rng = np.random.default_rng(2)
    labels = np.r_[rng.permutation(480) // 2, 480 + rng.permutation(120) // 3]  # 240 pairs, 40 triples
    got = _pack(t, labels, 4, 160)  # 280 clusters into 160 bins of 4
    ref = _pack_dense_reference(t, labels, 4, 160)
    placed = ref >= 0
    assert placed.sum() > 0.7 * t.num_switches
    assert np.array_equal(got[placed], ref[placed])
