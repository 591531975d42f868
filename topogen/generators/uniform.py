"""The Uniform Random construction of Skywalk (Fujiwara et al., Section II-C).

This module is the engine shared by :func:`topogen.generators.random.random_topology`
(Random(N, d), Skywalk III-A), :func:`topogen.generators.random.ring` (RING-n of
Koibuchi et al., Section III-B) and :func:`topogen.generators.skywalk.skywalk`
(its intra-cabinet, straight and diagonal sub-topologies), and is meant to be reused
by the constrained shortcut topologies Nbr(p)-n and Gau(alpha)-n (Koibuchi et al.,
Section IV-B).  It is not a generator itself.

The algorithm (Skywalk II-C), for a vertex set ``V`` and a degree ``d_k``::

    repeat d_k times:                       # one *round*
        W = copy of V
        while W is not empty:
            pick v1 uniformly in W
            pick v2 uniformly among the vertices of W that are not v1, not already
                connected to v1, and satisfy the constraint
            if such a v2 exists: link v1 and v2
            remove v1 (and v2 if found) from W

:func:`uniform_random_links` runs exactly this.  Implementation, and why the result
has exactly the paper's distribution:

* ``W`` is a list with a position index, so removing a vertex is an O(1) swap with
  the last entry.  The order of ``W`` never matters: every draw is a uniform index.
* ``v2`` is first drawn by *rejection sampling*: a uniform candidate (from ``W``, or
  from the vertex's ``partners`` when the constraint is given as partner lists) is
  accepted if it is valid, otherwise another is drawn.  An accepted candidate is
  uniform among the valid ones.  After ``max_rejections`` failures the engine falls
  back to an exact scan (all valid candidates listed, one drawn uniformly), which
  is also uniform among the valid ones; the mixture therefore is exactly the
  paper's choice, including the case that no valid ``v2`` exists.
* Uniform integers are drawn as ``floor(u * m)`` from blocks of 53-bit uniform
  floats of the one ``numpy.random.Generator``; this carries a relative bias below
  ``m * 2**-53`` (about 1e-12 for a million vertices), far below anything
  measurable.

Constraints
-----------
A constraint restricts which pairs may be linked.  Give it in the form that is
cheapest for its density (both can be combined; a pair must then pass both):

``allowed(u, v)``
    A symmetric predicate written with NumPy broadcasting: ``u`` is a vertex (int),
    ``v`` an int or an ``int64`` array; it returns a bool or a bool array.  Suited
    to *dense* constraints (most pairs allowed), e.g. a cable bound or Nbr(p)'s ring
    distance for large p::

        ring_hops = lambda u, v: np.minimum((u - v) % n, (v - u) % n) < n * p / 2

``partners``
    For each vertex, the array of vertices it may be linked to (a symmetric
    relation; see :func:`partners_from_mask`).  Candidates are then drawn from
    ``partners[v1]`` instead of from ``W``, which is the same distribution but
    fast when the constraint is *sparse* (Skywalk's straight links join a cabinet
    to only ``x + y - 2`` of ``c`` cabinets).

``weight(u, v)``
    Optional, for non-uniform choices such as Gau(alpha)-n: ``v2`` is then drawn
    among the valid candidates with probability proportional to ``weight(v1, v)``
    (non-negative, broadcasting like ``allowed``); this always uses the exact scan.
    Without ``weight`` the choice is uniform, as in the paper.

Links that exist before the first round (``existing``, e.g. the ring of RING-n)
count as "already connected".  Vertices outside ``vertices`` never take part.

Best of instances
-----------------
Skywalk II-C builds 10 instances with different seeds and keeps the connected one
with the most links; :func:`best_of_instances` does this for any builder.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Callable, Sequence

import numpy as np

from .._rng import child_seeds, make_rng, resolve_seed
from .._validate import check_int, check_memory
from ..errors import ParameterError, TopologyError
from ..topology import Topology

__all__ = [
    "uniform_random_links",
    "grouped_uniform_random_links",
    "partners_from_mask",
    "best_of_instances",
    "DEFAULT_INSTANCES",
]

#: Number of instances Skywalk II-C builds and selects from.
DEFAULT_INSTANCES = 10

_BLOCK = 1 << 15  # uniform floats drawn at a time


class _Uniforms:
    """Blocks of uniform floats in [0, 1) from one Generator (kept in a Python list)."""

    __slots__ = ("rng", "buf", "k")

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.buf: list[float] = []
        self.k = 0

    def refill(self) -> None:
        self.buf = self.rng.random(_BLOCK).tolist()
        self.k = 0


def partners_from_mask(mask) -> list[np.ndarray]:
    """Partner lists of a symmetric boolean constraint matrix.

    Parameters
    ----------
    mask : array_like of bool, shape (n, n), or scipy sparse matrix
        ``mask[u, v]`` is True when ``u`` and ``v`` may be linked.  The diagonal is
        ignored.

    Returns
    -------
    list of ndarray
        ``partners[u]``: the sorted vertices ``v != u`` with ``mask[u, v]``.

    Raises
    ------
    ParameterError
        If the matrix is not square or not symmetric.
    """
    import scipy.sparse as sp

    if sp.issparse(mask):
        m = sp.csr_matrix(mask, dtype=bool)
        if m.shape[0] != m.shape[1]:
            raise ParameterError(f"constraint mask must be square, got shape {m.shape}")
        if (m != m.T).nnz:
            raise ParameterError("constraint mask must be symmetric (mask[u, v] == mask[v, u])")
        m.sort_indices()
        out = []
        for u in range(m.shape[0]):
            row = m.indices[m.indptr[u] : m.indptr[u + 1]]
            out.append(row[row != u].astype(np.int64))
        return out
    arr = np.asarray(mask, dtype=bool)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ParameterError(f"constraint mask must be a square matrix, got shape {arr.shape}")
    if not np.array_equal(arr, arr.T):
        raise ParameterError("constraint mask must be symmetric (mask[u, v] == mask[v, u])")
    arr = arr.copy()
    np.fill_diagonal(arr, False)
    return [np.flatnonzero(row).astype(np.int64) for row in arr]


def uniform_random_links(
    num_vertices: int,
    rounds: int | None,
    *,
    rng,
    capacity=None,
    vertices=None,
    allowed: Callable | None = None,
    partners: Sequence | None = None,
    weight: Callable | None = None,
    existing=None,
    max_rejections: int = 16,
) -> np.ndarray:
    """Links of one Uniform Random (sub-)topology, Skywalk II-C.

    Parameters
    ----------
    num_vertices : int
        Vertices are ``0 .. num_vertices - 1`` (switches, or cabinets for Skywalk's
        inter-cabinet sub-topologies).
    rounds : int or None
        Number of rounds ``d_k`` (step 7 of the algorithm: "repeat d_k times").
        Every round adds at most one link at each vertex.  ``None`` repeats rounds
        until one adds no link (needs ``capacity``): the *saturating* variant, not
        the paper's algorithm, offered to study the effect of unpaired vertices.
    rng : int or numpy.random.Generator
        The source of randomness (see :mod:`topogen._rng`).
    capacity : int or array_like of int, optional
        Ports of each vertex for this sub-topology: a vertex that has ``capacity``
        links made by this call no longer enters ``W``.  Default: no limit besides
        the rounds.
    vertices : array_like of int, optional
        The vertex set ``V`` (default: all vertices).
    allowed : callable, optional
        Dense constraint ``allowed(u, v) -> bool`` with NumPy broadcasting (``u`` an
        int, ``v`` an int or int array); must be symmetric.  See the module notes.
    partners : sequence of array_like, optional
        Sparse constraint: ``partners[u]`` lists the vertices ``u`` may be linked
        to (symmetric relation).  Candidates are drawn from it.
    weight : callable, optional
        Non-uniform choice of ``v2``: probability proportional to ``weight(v1, v)``
        among the valid candidates.  Not part of Skywalk; for Gau(alpha)-n.
    existing : array_like of shape (E, 2), optional
        Links present before the first round; they count as "already connected"
        and are not returned.
    max_rejections : int
        Rejection-sampling attempts before the exact scan (a speed knob only; the
        distribution does not depend on it).

    Returns
    -------
    ndarray of int64, shape (L, 2)
        The new links ``(v1, v2)`` in the order they were created (the order matters
        to Skywalk's cyclic choice of endpoint switches).

    Raises
    ------
    ParameterError
        For out-of-range arguments.

    Notes
    -----
    Skywalk II-C, steps 1-7; see the module docstring for why rejection sampling with
    an exact fallback reproduces the paper's distribution exactly.  The vertices of
    ``W`` in round ``k`` have no link from round ``k`` yet, so "not already
    connected" only involves earlier rounds and ``existing``.

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology
       for HPC Networks with Low-delay Switches", IPDPS 2014, Section II-C.
    """
    n = check_int("num_vertices", num_vertices, 1)
    cap = _capacity(capacity, n)
    if rounds is None:
        if cap is None:
            raise ParameterError("rounds=None (repeat until no link is added) needs a capacity")
    else:
        rounds = check_int("rounds", rounds, 0)
    max_rejections = check_int("max_rejections", max_rejections, 0)
    gen = make_rng(rng)
    if vertices is None:
        members = list(range(n))
    else:
        varr = np.unique(np.asarray(vertices, dtype=np.int64))
        if varr.size and (varr[0] < 0 or varr[-1] >= n):
            raise ParameterError(f"vertices must lie in [0, {n - 1}]")
        members = varr.tolist()
    if partners is not None:
        if len(partners) != n:
            raise ParameterError(
                f"partners must list the partners of each of the {n} vertices, got {len(partners)}"
            )
        # psort: sorted partner lists (membership by bisection); plist: working copies
        # from which links already made are pruned lazily (a linked pair stays invalid)
        psort = [sorted(p) if isinstance(p, list) else np.sort(np.asarray(p, dtype=np.int64)).tolist()
                 for p in partners]
        plist = [list(p) for p in psort]
    else:
        plist = psort = None

    ex = np.zeros((0, 2), dtype=np.int64)
    if existing is not None:
        ex = np.asarray(existing, dtype=np.int64).reshape(-1, 2)
        if ex.size and (ex.min() < 0 or ex.max() >= n):
            raise ParameterError(f"existing links must join vertices in [0, {n - 1}]")
    if allowed is None and partners is None and weight is None:
        return _batch_rounds(n, members, ex, rounds, cap, gen)

    adj: list[set] = [set() for _ in range(n)]
    for a, b in ex.tolist():
        adj[a].add(b)
        adj[b].add(a)

    uni = _Uniforms(gen)
    out_u: list[int] = []
    out_v: list[int] = []
    pos = [-1] * n
    cnt = [0] * n
    capl = None if cap is None else cap.tolist()
    done = 0
    while rounds is None or done < rounds:
        if capl is not None:
            members = [v for v in members if cnt[v] < capl[v]]
        start = len(out_u)
        _one_round(members, adj, pos, uni, allowed, plist, psort, weight, max_rejections,
                   out_u, out_v)
        done += 1
        for v in out_u[start:]:
            cnt[v] += 1
        for v in out_v[start:]:
            cnt[v] += 1
        if rounds is None and len(out_u) == start:
            break
    if not out_u:
        return np.zeros((0, 2), dtype=np.int64)
    return np.stack([np.asarray(out_u, dtype=np.int64), np.asarray(out_v, dtype=np.int64)], axis=1)


def _one_round(members, adj, pos, uni, allowed, plist, psort, weight, max_rej, out_u, out_v):
    """One round (steps 1-6): ``W`` from ``members``, until ``W`` is empty."""
    W = list(members)
    for i, v in enumerate(W):
        pos[v] = i
    size = len(W)
    buf, k = uni.buf, uni.k
    nbuf = len(buf)
    rej = max_rej if weight is None else 0
    while size:
        # step 2: v1 uniform in W; remove it (swap with the last entry)
        if k >= nbuf:
            uni.refill()
            buf, k, nbuf = uni.buf, 0, len(uni.buf)
        i = int(buf[k] * size)
        k += 1
        v1 = W[i]
        size -= 1
        last = W[size]
        W[i] = last
        pos[last] = i
        pos[v1] = -1
        if not size:
            break
        # step 3: v2 uniform among the valid vertices of W
        A = adj[v1]
        v2 = -1
        if plist is not None and size < len(plist[v1]):
            # few vertices left in W: draw from W, test partnership by bisection
            S = psort[v1]
            ls = len(S)
            found = False
            for _ in range(rej):
                if k >= nbuf:
                    uni.refill()
                    buf, k, nbuf = uni.buf, 0, len(uni.buf)
                c = W[int(buf[k] * size)]
                k += 1
                if c not in A:
                    j = bisect_left(S, c)
                    if j < ls and S[j] == c and (allowed is None or allowed(v1, c)):
                        v2 = c
                        found = True
                        break
            if not found:
                cand = []
                for c in W[:size]:
                    if c not in A:
                        j = bisect_left(S, c)
                        if j < ls and S[j] == c:
                            cand.append(c)
                uni.k = k
                v2 = _pick(v1, cand, allowed, weight, uni)
                buf, k, nbuf = uni.buf, uni.k, len(uni.buf)
        elif plist is not None:
            # draw from v1's partners, pruning those already linked to v1
            P = plist[v1]
            lp = len(P)
            found = False
            tries = 0
            while tries < rej and lp:
                tries += 1
                if k >= nbuf:
                    uni.refill()
                    buf, k, nbuf = uni.buf, 0, len(uni.buf)
                j = int(buf[k] * lp)
                k += 1
                c = P[j]
                if c in A:
                    P[j] = P[lp - 1]
                    P.pop()
                    lp -= 1
                    continue
                if pos[c] >= 0 and (allowed is None or allowed(v1, c)):
                    v2 = c
                    found = True
                    break
            if not found and lp:
                cand = [c for c in P if pos[c] >= 0 and c not in A]
                uni.k = k
                v2 = _pick(v1, cand, allowed, weight, uni)
                buf, k, nbuf = uni.buf, uni.k, len(uni.buf)
        else:
            for _ in range(rej):
                if k >= nbuf:
                    uni.refill()
                    buf, k, nbuf = uni.buf, 0, len(uni.buf)
                c = W[int(buf[k] * size)]
                k += 1
                if c not in A and (allowed is None or allowed(v1, c)):
                    v2 = c
                    break
            else:
                cand = [c for c in W[:size] if c not in A]
                uni.k = k
                v2 = _pick(v1, cand, allowed, weight, uni)
                buf, k, nbuf = uni.buf, uni.k, len(uni.buf)
        # steps 4-5: link and remove v2
        if v2 >= 0:
            j = pos[v2]
            size -= 1
            last = W[size]
            W[j] = last
            pos[last] = j
            pos[v2] = -1
            A.add(v2)
            adj[v2].add(v1)
            out_u.append(v1)
            out_v.append(v2)
    uni.k = k
    for v in W:  # all removed already; keep pos clean for the next round
        pos[v] = -1


def grouped_uniform_random_links(groups, rounds: int | None, *, rng, capacity: int | None = None) -> np.ndarray:
    """Uniform Random sub-topologies on many small disjoint vertex groups at once.

    The same as calling :func:`uniform_random_links` with ``vertices`` = each group
    in turn (Skywalk's intra-cabinet sub-topology: one Uniform Random topology per
    cabinet), vectorised over the groups: in each step every group whose ``W`` is not
    empty draws its ``v1`` uniformly in its ``W`` and its ``v2`` uniformly among the
    valid vertices of its ``W`` (an exact scan of the group).  Groups never interact,
    so running them side by side gives each group exactly the paper's distribution.

    Parameters
    ----------
    groups : array_like of int, shape (G, S)
        Row g lists the vertices of group g, padded at the end with -1 when the
        groups have different sizes.  A vertex may appear in one group only.
    rounds : int or None
        Rounds ``d_k``; ``None`` repeats rounds until one adds no link (needs
        ``capacity``), as in :func:`uniform_random_links`.
    rng : int or numpy.random.Generator
        Source of randomness.
    capacity : int, optional
        Ports of every vertex (see :func:`uniform_random_links`).

    Returns
    -------
    ndarray of int64, shape (L, 2)
        The links, in the order they were created.

    Raises
    ------
    ParameterError
        If ``groups`` is not a 2-D array of vertices padded with -1, or a vertex
        repeats.
    """
    grp = np.asarray(groups, dtype=np.int64)
    if grp.ndim != 2:
        raise ParameterError(f"groups must be a 2-D array (groups x group size), got shape {grp.shape}")
    if rounds is None:
        if capacity is None:
            raise ParameterError("rounds=None (repeat until no link is added) needs a capacity")
    else:
        rounds = check_int("rounds", rounds, 0)
    cap = None if capacity is None else check_int("capacity", capacity, 0)
    gen = make_rng(rng)
    G, S = grp.shape
    real = grp >= 0
    n_g = real.sum(axis=1)
    if (grp < -1).any() or not np.array_equal(real, np.arange(S)[None, :] < n_g[:, None]):
        raise ParameterError("groups must list vertices (>= 0) first in each row, padded with -1")
    flat = grp[real]
    if np.unique(flat).size != flat.size:
        raise ParameterError("groups must be disjoint: a vertex appears twice")
    if G == 0 or S < 2 or rounds == 0 or cap == 0:
        return np.zeros((0, 2), dtype=np.int64)
    adj = np.zeros((G, S, S), dtype=bool)  # local adjacency
    cols = np.arange(S)
    out: list[np.ndarray] = []
    done = 0
    while rounds is None or done < rounds:
        done += 1
        before = len(out)
        if cap is None:
            W = np.broadcast_to(cols, (G, S)).copy()  # local indices; order irrelevant
            size = n_g.copy()
        else:  # vertices with free ports first
            free = (cols[None, :] < n_g[:, None]) & (adj.sum(axis=2) < cap)
            W = np.argsort(~free, axis=1, kind="stable")
            size = free.sum(axis=1)
        while True:
            act = np.flatnonzero(size > 0)
            if act.size == 0:
                break
            sz = size[act]
            i = (gen.random(act.size) * sz).astype(np.int64)
            v1 = W[act, i]
            W[act, i] = W[act, sz - 1]
            sz = sz - 1
            Wa = W[act]
            valid = (cols[None, :] < sz[:, None]) & ~adj[act[:, None], v1[:, None], Wa]
            cnt = valid.sum(axis=1)
            t = (gen.random(act.size) * cnt).astype(np.int64)
            p = np.argmax(valid.cumsum(axis=1) > t[:, None], axis=1)
            has = cnt > 0
            g, v1h, ph, szh = act[has], v1[has], p[has], sz[has]
            v2 = W[g, ph]
            W[g, ph] = W[g, szh - 1]
            sz[has] -= 1
            size[act] = sz
            adj[g, v1h, v2] = True
            adj[g, v2, v1h] = True
            if g.size:
                out.append(np.stack([grp[g, v1h], grp[g, v2]], axis=1))
        if rounds is None and len(out) == before:
            break
    if not out:
        return np.zeros((0, 2), dtype=np.int64)
    return np.concatenate(out)


def _capacity(capacity, n):
    if capacity is None:
        return None
    arr = np.asarray(capacity)
    if arr.ndim == 0:
        return np.full(n, check_int("capacity", capacity, 0), dtype=np.int64)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer) or (arr < 0).any():
        raise ParameterError(f"capacity must be one non-negative integer or one per vertex ({n})")
    return arr.astype(np.int64)


def _batch_rounds(n, members, existing, rounds, cap, gen) -> np.ndarray:
    """Unconstrained rounds, vectorised; exactly the distribution of :func:`_one_round`.

    A round draws a uniform random order ``perm`` of ``V`` and reads it two by two:
    ``v1 = perm[s]`` is uniform in ``W = perm[s:]``, and ``perm[s + 1]`` is uniform in
    ``W - {v1}``.  While that candidate is valid (not yet connected to ``v1``) the pair
    is exactly the paper's draw and ``perm[s + 2:]`` is still a uniform order of the
    rest, so whole runs of valid pairs are accepted at once.  At an invalid pair the
    candidate ``x = perm[s + 1]`` is rejected and ``v2`` is drawn uniformly among all
    valid vertices of ``perm[s + 2:]`` (an exact scan, which looks at the rest as a
    set and so reveals nothing about its order); ``x`` then takes ``v2``'s place, a
    uniform position, so the order of the new ``W`` is uniform again.  If no valid
    ``v2`` exists every remaining vertex is invalid for ``v1``, which again says
    nothing about the order, and only ``v1`` is removed.
    """
    if existing.size:
        # existing links, deduplicated, as rows of a neighbour table
        lo = np.minimum(existing[:, 0], existing[:, 1])
        hi = np.maximum(existing[:, 0], existing[:, 1])
        pairs = np.unique(np.stack([lo, hi], axis=1)[lo != hi], axis=0)
        ends = np.concatenate([pairs, pairs[:, ::-1]])
        ends = ends[np.argsort(ends[:, 0], kind="stable")]
        deg = np.bincount(ends[:, 0], minlength=n).astype(np.int64)
    else:
        ends = np.zeros((0, 2), dtype=np.int64)
        deg = np.zeros(n, dtype=np.int64)
    width = (rounds if cap is None else int(cap.max(initial=0))) + int(deg.max(initial=0))
    deg0 = deg.copy()
    nbr = np.full((n, max(width, 1)), -1, dtype=np.int64)
    if ends.size:
        start = np.concatenate([[0], np.cumsum(deg)[:-1]])
        nbr[ends[:, 0], np.arange(len(ends)) - start[ends[:, 0]]] = ends[:, 1]
    base = np.asarray(members, dtype=np.int64)
    chunks: list[np.ndarray] = []
    done = 0
    while rounds is None or done < rounds:
        done += 1
        before = len(chunks)
        if cap is not None:
            base = base[deg[base] - deg0[base] < cap[base]]
        perm = base[gen.permutation(base.size)]
        m = perm.size
        s = 0
        step = 1024
        while m - s >= 2:
            t = min((m - s) // 2, step)
            a = perm[s : s + 2 * t : 2]
            b = perm[s + 1 : s + 2 * t : 2]
            bad = np.flatnonzero((nbr[a] == b[:, None]).any(axis=1))
            k = int(bad[0]) if bad.size else t
            if k:
                aa, bb = a[:k], b[:k]
                nbr[aa, deg[aa]] = bb
                deg[aa] += 1
                nbr[bb, deg[bb]] = aa
                deg[bb] += 1
                chunks.append(np.stack([aa, bb], axis=1))
                s += 2 * k
            if k == t:
                step = min(step * 2, 1 << 16)
                continue
            step = max(64, 4 * k)
            v1 = int(perm[s])
            rest = perm[s + 2 :]
            ok = ~np.isin(rest, nbr[v1, : deg[v1]])
            cand = np.flatnonzero(ok)
            if cand.size:
                p = s + 2 + int(cand[int(gen.integers(cand.size))])
                v2 = int(perm[p])
                perm[p] = perm[s + 1]
                nbr[v1, deg[v1]] = v2
                deg[v1] += 1
                nbr[v2, deg[v2]] = v1
                deg[v2] += 1
                chunks.append(np.array([[v1, v2]], dtype=np.int64))
                s += 2
            else:
                s += 1
        if rounds is None and len(chunks) == before:
            break
    if not chunks:
        return np.zeros((0, 2), dtype=np.int64)
    return np.concatenate(chunks)


def _pick(v1, cand, allowed, weight, uni) -> int:
    """Exact choice among the candidates that pass ``allowed`` (uniform, or by weight)."""
    if not cand:
        return -1
    if allowed is not None or weight is not None:
        arr = np.asarray(cand, dtype=np.int64)
        if allowed is not None:
            arr = arr[np.asarray(np.broadcast_to(allowed(v1, arr), arr.shape), dtype=bool)]
        if arr.size == 0:
            return -1
        if weight is not None:
            w = np.asarray(np.broadcast_to(weight(v1, arr), arr.shape), dtype=float)
            if (w < 0).any() or not np.isfinite(w).all():
                raise ParameterError("weight must return finite non-negative numbers")
            cum = np.cumsum(w)
            total = cum[-1]
            if total <= 0:
                return -1
            u = _uniform(uni) * total
            return int(arr[min(int(np.searchsorted(cum, u, side="right")), arr.size - 1)])
        cand = arr.tolist()
    return cand[int(_uniform(uni) * len(cand))]


def _uniform(uni) -> float:
    if uni.k >= len(uni.buf):
        uni.refill()
    u = uni.buf[uni.k]
    uni.k += 1
    return u


def best_of_instances(
    build: Callable[[int], Topology],
    seed,
    instances: int = DEFAULT_INSTANCES,
    *,
    instance: int | None = None,
    what: str = "topology",
) -> tuple[Topology, int, list[int]]:
    """Build instances from child seeds and keep the best one (Skywalk II-C).

    Parameters
    ----------
    build : callable
        ``build(instance_seed) -> Topology`` builds one instance.
    seed : int or None
        The generator's seed; ``None`` draws one (see :func:`topogen._rng.resolve_seed`).
    instances : int
        Number of instances (10 in the paper), built from
        ``child_seeds(seed, instances)``.
    instance : int, optional
        Build only instance ``instance`` (``0 <= instance < instances``), as recorded
        in the parameters of an earlier result: it reproduces that result without
        building the others.
    what : str
        Name used in error messages.

    Returns
    -------
    topology : Topology
        The connected instance with the most links; ties go to the lowest index.
    index : int
        Its index.
    links : list of int
        Number of links of every instance built.

    Raises
    ------
    ParameterError
        If ``instances`` or ``instance`` is out of range.
    TopologyError
        If no instance is connected.
    """
    instances = check_int("instances", instances, 1, hint="; the paper uses 10")
    # one seed per instance (~200 B each) before anything is built; the registry has
    # checked the instances themselves (all are kept to pick the best)
    check_memory(f"{instances:,} instances", 200.0 * instances, "; the paper uses 10 instances")
    seeds = child_seeds(resolve_seed(seed), instances)
    if instance is not None:
        instance = check_int(
            "instance", instance, 0, instances - 1,
            hint=f" (an index among the {instances} instances); leave it unset to pick the best",
        )
        topo = build(seeds[instance])
        if not _connected(topo):
            raise TopologyError(
                f"instance {instance} of {what} is disconnected; leave instance unset to pick the "
                "best connected instance, or raise the degree"
            )
        return topo, instance, [topo.num_links]
    built = [build(s) for s in seeds]
    links = [t.num_links for t in built]
    for idx in sorted(range(instances), key=lambda i: (-links[i], i)):
        if _connected(built[idx]):
            return built[idx], idx, links
    raise TopologyError(
        f"none of the {instances} instances of {what} is connected "
        f"(links per instance: {min(links)}..{max(links)}); raise the degree "
        "(or the number of instances)"
    )


def _connected(topo: Topology) -> bool:
    if topo.num_switches == 1:
        return True
    from scipy.sparse.csgraph import connected_components  # here: `topogen list` stays light

    ncomp, _ = connected_components(topo.csr(), directed=False)
    return ncomp == 1
