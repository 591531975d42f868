"""Clustering switches into cabinets (Koibuchi et al., Section IV-C).

"Grouping switches together in a cabinet is equivalent to contracting the vertices ...
One can use clustering methods to group densely-connected vertices together in the same
cabinet so that the number of inter-cabinet cables is minimized."  Two methods:

**Walktrap, size-capped** (:func:`walktrap_clusters`).  Pons and Latapy's Walktrap
"starts from a state in which each vertex is contained in a one-vertex cluster and
recursively merges the two clusters that minimize the increase in the variance of the
distance between each vertex and the cluster center", with the random-walk distance

    d_ij = sqrt( sum_k (P^t_ik - P^t_jk)^2 / deg(k) ),

``P^t_i.`` the distribution after a ``t``-step random walk from ``i``.  A cluster ``C`` is
represented by ``P^t_C. = mean_{i in C} P^t_i.`` and merging ``C1`` and ``C2`` increases
the variance by ``Δσ = (1/N) |C1||C2| / (|C1| + |C2|) · d(C1, C2)^2`` (Ward's criterion
in this metric).  As in Walktrap, only *adjacent* clusters (joined by a link) are merge
candidates.  The paper's modification: "force it to generate clusters whose size does
not exceed a specified cabinet size" -- a pair is a candidate only if the merged cluster
fits in a cabinet.

Implementation (vectorised, no loop over vertex pairs):

* ``M = P^t D^{-1/2}`` is built by ``t`` sparse-times-dense products (``float32``), so
  ``d(C1, C2)`` is the Euclidean distance between rows of the cluster matrix;
  ``dims=k`` replaces the ``N`` columns by a ``k``-column Gaussian random projection
  (Johnson-Lindenstrauss; approximate distances, memory ``N k`` instead of ``N^2``).
  By default (``dims="auto"``) distances are exact up to 4,096 switches and projected
  on 256 dimensions above: at 8,192 switches the exact run takes ~30 s and ~0.5 GB,
  the projected one ~2 s, for inter-cabinet link counts within 0.1% of each other on
  Nbr(0.5)-13.
* Merges happen in rounds of *reciprocal nearest neighbours*: every cluster finds the
  candidate with the smallest ``Δσ`` (ties to the lower index), and all mutually-nearest
  pairs merge at once.  The globally best pair is always mutual, so every round merges;
  for Ward's criterion without constraints (reducibility) this gives the same merges as
  one-at-a-time greedy, and with the adjacency and size constraints it is the standard
  parallel approximation.  Dot products of unchanged cluster pairs are cached.
* Walktrap stops when no adjacent pair fits a cabinet; the paper does not say what
  happens to clusters that then outnumber the cabinets.  :func:`walktrap_clusters`
  packs them (``pack=True``): clusters are placed largest first into the bin (cabinet)
  with room that has the most links to them, and the vertices of a cluster that fits
  in no bin are placed one by one the same way.  The result never has more clusters
  than ``cabinets`` (by default ``ceil(N / cabinet_size)``).

Measured against the paper (``topogen reproduce layout-fig14``/``layout-fig15``,
docs/reproductions.md): on Nbr(0.5)-n this Walktrap cuts 1-3 % fewer links than the
sequential (ring-order) clusters from 128 switches on, but at 64 switches (four
cabinets) its packing loses to them (78.6 vs 75.2 links, five seeds), and its clusters
scatter runs of the ring over several cabinets, so after annealing their cables are
longer than those of ring-order clusters (16.4 vs 14.6 m at 8,192 switches).  The
paper, which names neither ``t`` nor the handling of leftovers, reports Walktrap better
than sequential for Nbr(0.5)-n; we have not found the variant that does both.

**Sequential** (:func:`sequential_clusters`): "groups every 2^p or 2^p - 1 vertices (so
that the grouping is as even as possible) in order of generation, where 2^p denotes the
cabinet size": ``c = ceil(N / size)`` groups of consecutive vertices whose sizes differ
by at most one (all equal to the cabinet size when it divides N, as in the paper).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._rng import make_rng, resolve_seed
from .._validate import check_int
from ..errors import ParameterError
from ..topology import Topology

#: Largest topology clustered with exact walk distances when ``dims="auto"``.
EXACT_LIMIT = 4096
#: Projected dimensions used above :data:`EXACT_LIMIT` when ``dims="auto"``.
AUTO_DIMS = 256

__all__ = [
    "walktrap_clusters",
    "sequential_clusters",
    "inter_cabinet_links",
    "cluster_graph",
    "random_walk_embedding",
]


def _topology_of(obj) -> Topology:
    return getattr(obj, "topology", obj)


def _check_size(cabinet_size) -> int:
    return check_int("cabinet_size", cabinet_size, 1,
                     hint=" (switches a cabinet holds; 16 in the paper)")


def sequential_clusters(num_switches: int, cabinet_size: int) -> np.ndarray:
    """The paper's sequential baseline (IV-C): consecutive switches, evenly grouped.

    Parameters
    ----------
    num_switches : int
        N (>= 1).
    cabinet_size : int
        Switches per cabinet (>= 1).

    Returns
    -------
    ndarray of int64, shape (N,)
        Cluster of each switch; ``ceil(N / cabinet_size)`` clusters of consecutive
        switches with sizes ``floor`` or ``ceil`` of ``N / clusters``.

    Raises
    ------
    ParameterError
        If ``cabinet_size < 1``.
    """
    n = check_int("num_switches", num_switches, 1)
    z = _check_size(cabinet_size)
    c = -(-n // z)
    return (np.arange(n, dtype=np.int64) * c) // n


def inter_cabinet_links(topology, clusters) -> int:
    """Number of links whose switches lie in different clusters (cabinets)."""
    t = _topology_of(topology)
    lab = np.asarray(clusters, dtype=np.int64)
    if lab.shape != (t.num_switches,):
        raise ParameterError(f"clusters must give one cluster per switch ({t.num_switches})")
    e = t.edges
    return int(np.count_nonzero(lab[e[:, 0]] != lab[e[:, 1]]))


def cluster_graph(topology, clusters) -> sp.csr_matrix:
    """The contracted graph (IV-C): ``W[a, b]`` = links between clusters ``a`` and ``b``
    (symmetric, float64), ``W[a, a]`` = links inside ``a``."""
    t = _topology_of(topology)
    lab = np.asarray(clusters, dtype=np.int64)
    k = int(lab.max()) + 1 if lab.size else 0
    a, b = lab[t.edges[:, 0]], lab[t.edges[:, 1]]
    w = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(k, k)).tocsr()
    w = w + w.T
    w.setdiag(w.diagonal() / 2)
    w.eliminate_zeros()
    return w.tocsr()


def random_walk_embedding(topology, steps: int = 4, *, dims: int | None = None, seed=None,
                          dtype=np.float32) -> np.ndarray:
    """Rows ``P^t_i. D^{-1/2}`` (IV-C's Walktrap metric) for every switch.

    Parameters
    ----------
    topology : Topology or Layout
    steps : int
        Random-walk length t (>= 1).
    dims : int, optional
        Project the ``N`` columns onto ``dims`` Gaussian random directions (scaled by
        ``1/sqrt(dims)``), so that Euclidean distances are preserved in expectation.
    seed : int, optional
        Seed of the projection.
    dtype : numpy dtype
        ``float32`` by default (``N^2`` of them when ``dims`` is None).

    Returns
    -------
    ndarray, shape (N, N) or (N, dims)
        Row ``i`` is ``P^t_i. D^{-1/2}`` (possibly projected): the Walktrap distance
        ``d_ij`` is the Euclidean distance of rows ``i`` and ``j``.
    """
    t = _topology_of(topology)
    steps = check_int("steps", steps, 1, hint=" (length t of the random walks)")
    n = t.num_switches
    adj = t.csr().astype(np.float64)
    deg = np.asarray(adj.sum(axis=1)).ravel()
    if (deg == 0).any():
        raise ParameterError("Walktrap needs every switch to have a link (isolated switch found)")
    P = sp.diags(1.0 / deg) @ adj
    P = P.astype(dtype).tocsr()
    scale = (1.0 / np.sqrt(deg)).astype(dtype)
    if dims is None:
        X = np.diag(scale)
    else:
        k = check_int("dims", dims, 1)
        rng = make_rng(resolve_seed(seed))
        # drawn in blocks of rows (the same stream as one (n, k) draw): no float64
        # (n, k) temporaries, ~5x less peak memory at 100,000 switches
        X = np.empty((n, k), dtype=dtype)
        rows = max(1, (1 << 20) // k)
        for r in range(0, n, rows):
            block = rng.standard_normal((min(rows, n - r), k))
            X[r : r + rows] = (block / np.sqrt(k)).astype(dtype) * scale[r : r + rows, None]
    for _ in range(steps):
        X = P @ X
    return np.ascontiguousarray(X, dtype=dtype)


def _rowdots(X, a, b, chunk=1024):
    out = np.empty(len(a), dtype=np.float64)
    for s in range(0, len(a), chunk):
        xa = X[a[s : s + chunk]]
        xb = X[b[s : s + chunk]]
        out[s : s + chunk] = np.einsum("ij,ij->i", xa, xb, dtype=np.float64)
    return out


def walktrap_clusters(topology, cabinet_size: int, *, steps: int = 4, cabinets: int | None = None,
                      pack: bool = True, dims: int | str | None = "auto",
                      seed=None) -> np.ndarray:
    """Size-capped Walktrap clustering (Koibuchi et al. IV-C).

    Parameters
    ----------
    topology : Topology or Layout
        A topology without isolated switches.
    cabinet_size : int
        Largest cluster (switches per cabinet, >= 1).
    steps : int
        Random-walk length t of the Walktrap distance (Pons and Latapy recommend 3 to
        5; the paper does not give its t).  Default 4.
    cabinets : int, optional
        Number of cabinets the clusters must fit in (default ``ceil(N / cabinet_size)``).
    pack : bool
        Pack the clusters left by Walktrap into ``cabinets`` bins (module docstring).
        With ``pack=False`` the raw size-capped Walktrap clusters are returned (there
        may be more than ``cabinets`` of them).
    dims : int, "auto" or None
        Random-projection dimension for the walk distances; ``None``: exact
        (``N x N`` float32 matrix); ``"auto"`` (default): exact up to
        :data:`EXACT_LIMIT` switches, :data:`AUTO_DIMS` projected dimensions above.
    seed : int, optional
        Seed of the projection (a projection is random; ``None`` uses seed 0 so that
        the clustering of a topology is reproducible).

    Returns
    -------
    ndarray of int64, shape (N,)
        Cluster of each switch, numbered ``0 .. K-1`` by smallest member; every cluster
        has at most ``cabinet_size`` switches, and ``K <= cabinets`` when ``pack``.

    Raises
    ------
    ParameterError
        If ``cabinet_size < 1``, or ``cabinets * cabinet_size < N`` (the switches do not
        fit), or a switch has no link.

    Notes
    -----
    Section IV-C; the module docstring gives the algorithm, the batched (reciprocal
    nearest neighbour) merging and the packing of leftover clusters, which the paper
    leaves open.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Section IV-C.
    .. [2] P. Pons, M. Latapy, "Computing communities in large networks using random
       walks", J. Graph Algorithms Appl. 10(2), 2006.
    """
    t = _topology_of(topology)
    z = _check_size(cabinet_size)
    n = t.num_switches
    c = -(-n // z) if cabinets is None else check_int("cabinets", cabinets, 1)
    if c * z < n:
        raise ParameterError(
            f"{n} switches do not fit in cabinets={c} of cabinet_size={z}; "
            f"use at least {-(-n // z)} cabinets"
        )
    if isinstance(dims, str):
        if dims != "auto":
            raise ParameterError(f"dims must be an integer >= 1, 'auto' or None, got {dims!r}")
        dims = None if n <= EXACT_LIMIT else AUTO_DIMS
    labels = _walktrap_capped(t, z, steps, dims, 0 if seed is None else seed)
    if pack:
        labels = _pack(t, labels, z, c)
    return _renumber(labels)


def _renumber(labels: np.ndarray) -> np.ndarray:
    """Clusters numbered 0..K-1 in order of their smallest member."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inv.reshape(-1)]


def _walktrap_capped(t: Topology, z: int, steps: int, dims, seed) -> np.ndarray:
    n = t.num_switches
    rep = np.arange(n, dtype=np.int64)  # cluster id of each switch (= id of a member)
    if z == 1 or t.num_links == 0:
        return rep
    X = random_walk_embedding(t, steps, dims=dims, seed=seed)
    size = np.ones(n, dtype=np.int64)
    sq = np.einsum("ij,ij->i", X, X, dtype=np.float64)
    e = t.edges.astype(np.int64)
    cache_keys = np.zeros(0, dtype=np.int64)
    cache_dots = np.zeros(0, dtype=np.float64)
    changed = np.ones(n, dtype=bool)
    while True:
        a, b = rep[e[:, 0]], rep[e[:, 1]]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keys = np.unique(lo[lo != hi] * n + hi[lo != hi])
        pa, pb = keys // n, keys % n
        fit = size[pa] + size[pb] <= z
        pa, pb, keys = pa[fit], pb[fit], keys[fit]
        if len(keys) == 0:
            break
        # dot products: cached for pairs of unchanged clusters
        dots = np.empty(len(keys), dtype=np.float64)
        need = changed[pa] | changed[pb]
        if len(cache_keys):
            pos = np.searchsorted(cache_keys, keys)
            pos_c = np.minimum(pos, len(cache_keys) - 1)
            hit = ~need & (cache_keys[pos_c] == keys)
            dots[hit] = cache_dots[pos_c[hit]]
            need = ~hit
        idx = np.flatnonzero(need)
        dots[idx] = _rowdots(X, pa[idx], pb[idx])
        cache_keys, cache_dots = keys, dots
        d2 = np.maximum(sq[pa] + sq[pb] - 2.0 * dots, 0.0)
        sa, sb = size[pa], size[pb]
        delta = sa * sb / (sa + sb) * d2  # Δσ times N
        # nearest candidate of every cluster (ties: lower partner id)
        ends = np.concatenate([pa, pb])
        other = np.concatenate([pb, pa])
        dd = np.concatenate([delta, delta])
        order = np.lexsort((other, dd, ends))
        first = np.r_[True, ends[order][1:] != ends[order][:-1]]
        best = np.full(n, -1, dtype=np.int64)
        best[ends[order][first]] = other[order][first]
        mutual = best[pb] == pa
        mutual &= best[pa] == pb
        ma, mb = pa[mutual], pb[mutual]
        # merge mb into ma (ma < mb): centroid rows, sizes, squared norms
        wa = (size[ma] / (size[ma] + size[mb])).astype(X.dtype)[:, None]
        X[ma] = wa * X[ma] + (1 - wa) * X[mb]
        size[ma] += size[mb]
        size[mb] = 0
        sq[ma] = np.einsum("ij,ij->i", X[ma], X[ma], dtype=np.float64)
        remap = np.arange(n, dtype=np.int64)
        remap[mb] = ma
        rep = remap[rep]
        changed[:] = False
        changed[ma] = True
    return rep


def _pack(t: Topology, labels: np.ndarray, z: int, c: int) -> np.ndarray:
    """Pack clusters into ``c`` bins of capacity ``z`` (largest first, into the bin with
    room that has most links to the cluster; clusters that fit nowhere are split and
    their switches placed one at a time the same way)."""
    lab = _renumber(labels)
    k = int(lab.max()) + 1
    if k <= c:
        return lab
    sizes = np.bincount(lab, minlength=k)
    W = _cluster_links(t, lab, k)  # k x k links between clusters (csr)
    bin_of_cluster = np.full(k, -1, dtype=np.int64)
    load = np.zeros(c, dtype=np.int64)
    # links from a cluster to each bin: summed from its row of W over its placed
    # neighbours when it is placed (no k x c table: 1.3 GB at 100,000 switches)
    no_links = np.zeros(c, dtype=np.float64)
    leftovers = []
    nb = 0  # bins opened so far (bins are filled in order; empty bins are equal)
    for cl in np.argsort(-sizes, kind="stable"):
        s = sizes[cl]
        room = load + s <= z
        room[nb + 1 :] = False  # among empty bins only the first one is a distinct choice
        if not room.any():
            leftovers.append(cl)
            continue
        lo, hi = W.indptr[cl], W.indptr[cl + 1]
        bins = bin_of_cluster[W.indices[lo:hi]]
        placed = bins >= 0
        links = (np.bincount(bins[placed], weights=W.data[lo:hi][placed], minlength=c)
                 if placed.any() else no_links)
        score = np.where(room, links, -np.inf)
        bmax = int(np.argmax(score))
        bin_of_cluster[cl] = bmax
        load[bmax] += s
        nb = max(nb, bmax + 1)
    out = np.where(bin_of_cluster[lab] >= 0, bin_of_cluster[lab], -1)
    if leftovers:
        adj = t.csr()
        verts = np.flatnonzero(np.isin(lab, leftovers))
        for v in verts:  # few switches: those of clusters that fit in no bin
            nbrs = adj.indices[adj.indptr[v] : adj.indptr[v + 1]]
            placed = out[nbrs]
            links = np.bincount(placed[placed >= 0], minlength=c).astype(float)
            room = load < z
            room[nb + 1 :] = False
            score = np.where(room, links + load * 1e-9, -np.inf)
            b = int(np.argmax(score))
            out[v] = b
            load[b] += 1
            nb = max(nb, b + 1)
    return out


def _cluster_links(t: Topology, lab: np.ndarray, k: int) -> sp.csr_matrix:
    a, b = lab[t.edges[:, 0]], lab[t.edges[:, 1]]
    keep = a != b
    w = sp.coo_matrix((np.ones(int(keep.sum())), (a[keep], b[keep])), shape=(k, k)).tocsr()
    return (w + w.T).tocsr()
