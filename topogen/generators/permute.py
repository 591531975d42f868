"""Topology permutation (Koibuchi et al., Section III-A): P- and PF- topologies.

Permutation takes a topology *already laid out on cabinets* and swaps endpoints between
pairs of links that join the same pair of cabinets, so that the cable of every link keeps
its length: "Because all endpoint permutations are for links between the same pair of
cabinets, bisection bandwidth and cable length are conserved."

**Partially random permutation** (P-topo), two steps:

1. for each cabinet ``i``, the set ``E_i`` of its intra-cabinet links: pick two links at
   random, ``a-b`` and ``c-d``; "if all four switches a, b, c, and d are distinct, then
   replace a-b by a-d and c-d by c-b, otherwise do nothing.  Remove both links from
   consideration, and repeat until all links in E_i have been considered";
2. for each pair of cabinets ``(i, j)``, the same on ``E_{i,j}``, the links between them.

**Fully random permutation** (PF-topo): for each pair of cabinets ``(i, j)``, ``i != j``,
the pool ``E'_{i,j} = E_{i,j} U E_i U E_j``; two links are swapped "if all switches a, b,
c, and d are distinct and if the two links are not both intra-link cabinets in different
cabinets".

How the paper's steps are read here (each choice is an option where it is cheap):

* *Picking two links at random and removing them* is a uniformly random pairing of the
  pool: the pool is shuffled and read two by two (an odd link out is left alone).
* *Which end is a.*  An inter-cabinet link ``a-b`` of the pair ``(i, j)`` is oriented with
  ``a`` in cabinet ``i`` (the lower index) and ``c-d`` likewise, so both new links still
  join ``i`` and ``j`` (the other orientation would create two intra-cabinet links and
  break the paper's statement that per-pair link counts are conserved).  An intra-cabinet
  link is oriented at random, so both rewirings ``{a-d, c-b}`` and ``{a-c, d-b}`` are
  equally likely.
* *Self-loops* cannot arise: a swap happens only when the four switches are distinct.
* *Duplicate links.*  The paper: "the generation procedure may lead to multiple edges
  between the same pair of switches, but only the first such edge is actually added and
  all other redundant edges are ignored".  Dropping the redundant link would lose a link
  and its cable, contradicting the conservation the paper states, so by default
  (``duplicates="skip"``) a swap that would create a link already present is treated
  like a swap of non-distinct switches: *do nothing*.  ``duplicates="drop"`` is the
  literal reading: the swap is made and the redundant new link is discarded (link count
  and cable length then shrink by the discarded links).  ``duplicates="end"`` reads
  "the generation procedure may lead to multiple edges ... only the first such edge is
  actually added" as a rule for the *finished* multigraph: every swap of four distinct
  switches is made, a doubled link stays (and may be swapped again), and once all swaps
  are done the redundant copies are removed, the lowest-numbered copy kept.  It is the
  reading closest to Table 1's PF-TORUS-6 ASPL (8.70): 8.678 +- 0.008 over 20 seeds,
  against 8.637 +- 0.003 skipping and 8.653 dropping (``docs/topologies/permute.md``).
* *Which cabinet pairs, in which order* (fully random): every pair ``i < j`` of cabinets,
  as the paper writes ("for each pair of cabinets i and j, i != j"), in a random order
  (``cabinet_pairs="all"``); intra-cabinet links therefore take part once per pair of
  their cabinet.  ``cabinet_pairs="linked"`` visits only pairs joined by at least one
  link.  The partially random method visits cabinets, then linked pairs, in index order.
* *Disconnected results*: "this happens with very low probability, making it possible
  to simply regenerate the topology until a non-partitioned network is obtained";
  attempts use ``child_seeds(seed, max_attempts)`` and a
  :class:`~topogen.errors.TopologyError` reports failure after ``max_attempts``.

Implementation: the pools and their random pairings are built with NumPy for all
cabinets (pairs) at once; the swaps are then carried out in order by a tight loop over
the proposals (each swap's outcome depends on the links made by the earlier ones through
the duplicate check).  Every link keeps its cabinet pair for good (of the two new links,
the one with the old link's cabinet pair takes its place), so the pools never change.

Every permutation checks (and raises ``AssertionError`` otherwise) that each link keeps
its pair of cabinets, hence the number of links per cabinet pair and the total cable
length are exactly those of the base layout (``duplicates="skip"``), or those of the
base minus the discarded links (``duplicates="drop"``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .._rng import iter_child_seeds, make_rng, resolve_seed
from .._validate import check_int
from ..errors import ParameterError, TopologyError
from ..layout.floor import Floor
from ..layout.placement import Layout, place
from ..registry import register
from ..topology import Topology
from .classic import folded_hypercube, hypercube, torus
from .fattree import myrinet_clos

__all__ = [
    "permute",
    "permute_edges",
    "cabinet_pair_counts",
    "p_torus",
    "pf_torus",
    "p_hypercube",
    "pf_hypercube",
    "p_fhypercube",
    "pf_fhypercube",
    "p_myrinet_clos",
    "pf_myrinet_clos",
]

METHODS = ("partial", "full")
DUPLICATES = ("skip", "drop", "end")
CABINET_PAIRS = ("all", "linked")


# --------------------------------------------------------------------------- schedule
def _grouped(keys: np.ndarray, ids: np.ndarray):
    """Ids and keys, sorted by key (stable)."""
    order = np.argsort(keys, kind="stable")
    return ids[order], keys[order]


def _expand(members: np.ndarray, starts: np.ndarray, counts: np.ndarray, which: np.ndarray):
    """Concatenate ``members[starts[w] : starts[w] + counts[w]]`` for every ``w`` in
    ``which``; returns (ids, index of the pool in ``which``)."""
    cnt = counts[which]
    pool = np.repeat(np.arange(len(which), dtype=np.int64), cnt)
    total = int(cnt.sum())
    offs = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    return members[np.repeat(starts[which], cnt) + offs], pool


def _pairs_of_pools(ids: np.ndarray, pool: np.ndarray, rng: np.random.Generator):
    """Random pairing inside every pool: pools in increasing index, links shuffled inside
    each pool and read two by two.  Returns the two link ids of each proposed swap."""
    # pool index + a uniform fraction: one float sort groups the pools and shuffles each
    order = np.argsort(pool + rng.random(len(ids)))
    ids, pool = ids[order], pool[order]
    if len(ids) == 0:
        return ids, ids
    first = np.r_[True, pool[1:] != pool[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(ids)), 0))
    rank = np.arange(len(ids)) - start
    size = np.bincount(pool, minlength=int(pool.max()) + 1)[pool]
    take = (rank % 2 == 0) & (rank + 1 < size)
    idx = np.flatnonzero(take)
    return ids[idx], ids[idx + 1]


def _schedule(cab_lo, cab_hi, method, cabinet_pairs, num_cabinets, rng):
    """The swap proposals (link id pairs) in processing order."""
    m = len(cab_lo)
    ids = np.arange(m, dtype=np.int64)
    intra = cab_lo == cab_hi
    pair_key = cab_lo * num_cabinets + cab_hi
    if method == "partial":
        a1, b1 = _pairs_of_pools(ids[intra], cab_lo[intra], rng)
        _, inter_pool = np.unique(pair_key[~intra], return_inverse=True)
        a2, b2 = _pairs_of_pools(ids[~intra], inter_pool.reshape(-1), rng)
        return np.concatenate([a1, a2]), np.concatenate([b1, b2])
    # fully random: pools E'_{ij} = E_ij U E_i U E_j over cabinet pairs i < j
    used = np.unique(np.concatenate([cab_lo, cab_hi]))
    if cabinet_pairs == "all":
        ci, cj = np.triu_indices(num_cabinets, 1)
        keep = np.isin(ci, used) & np.isin(cj, used)  # cabinets without switches add nothing
        ci, cj = ci[keep].astype(np.int64), cj[keep].astype(np.int64)
    else:
        pk = np.unique(pair_key[~intra])
        ci, cj = pk // num_cabinets, pk % num_cabinets
    order = rng.permutation(len(ci))
    ci, cj = ci[order], cj[order]
    # intra links by cabinet
    intra_ids, intra_cab = _grouped(cab_lo[intra], ids[intra])
    icount = np.bincount(intra_cab, minlength=num_cabinets)
    istart = np.cumsum(icount) - icount
    # inter links by pair key
    inter_ids, inter_key = _grouped(pair_key[~intra], ids[~intra])
    ukeys, ustart, ucount = np.unique(inter_key, return_index=True, return_counts=True)
    pk = ci * num_cabinets + cj
    pos = np.searchsorted(ukeys, pk)
    pos_c = np.minimum(pos, max(len(ukeys) - 1, 0))
    has = (pos < len(ukeys)) & (ukeys[pos_c] == pk) if len(ukeys) else np.zeros(len(pk), bool)
    pcount = np.where(has, ucount[pos_c] if len(ukeys) else 0, 0)
    pstart = np.where(has, ustart[pos_c] if len(ukeys) else 0, 0)
    w = np.arange(len(pk), dtype=np.int64)
    e_i, p_i = _expand(intra_ids, istart, icount, ci)
    e_j, p_j = _expand(intra_ids, istart, icount, cj)
    e_ij, p_ij = _expand(inter_ids, pstart, pcount, w)
    all_ids = np.concatenate([e_i, e_j, e_ij])
    all_pool = np.concatenate([p_i, p_j, p_ij])
    a, b = _pairs_of_pools(all_ids, all_pool, rng)
    # two intra links of different cabinets are never swapped (static: a link keeps its
    # cabinet pair for ever, see _apply), so drop those proposals now
    bad = intra[a] & intra[b] & (cab_lo[a] != cab_lo[b])
    return a[~bad], b[~bad]


def _apply(edges, cab, first, second, flip, duplicates):
    """Carry out the proposals in order (the paper's sequential procedure).

    ``edges`` is modified in place.  Link ``e`` always keeps the cabinet pair it had: of
    the two new links the one with ``e``'s cabinet pair is written into ``e``.
    Inter-cabinet links are stored with the endpoint of the lower cabinet first.
    Returns the mask of links kept (all, unless ``duplicates == "drop"``).
    """
    n_links = len(edges)
    U = edges[:, 0].tolist()
    V = edges[:, 1].tolist()
    C = cab.tolist()
    alive = [True] * n_links
    n = int(max(max(U, default=0), max(V, default=0))) + 1
    present = {min(u, v) * n + max(u, v) for u, v in zip(U, V)}
    drop = duplicates == "drop"
    if duplicates == "end":
        return _apply_multigraph(edges, cab, first, second, flip, U, V, C)
    for e1, e2, f1, f2 in zip(first.tolist(), second.tolist(), flip[first].tolist(), flip[second].tolist()):
        if not (alive[e1] and alive[e2]):
            continue
        a, b = (V[e1], U[e1]) if f1 else (U[e1], V[e1])
        c, d = (V[e2], U[e2]) if f2 else (U[e2], V[e2])
        if a == c or a == d or b == c or b == d:
            continue  # not four distinct switches (a != b, c != d always)
        k1 = a * n + d if a < d else d * n + a
        k2 = c * n + b if c < b else b * n + c
        dup1 = k1 in present
        dup2 = k2 in present
        if (dup1 or dup2) and not drop:
            continue  # would duplicate a link: do nothing
        # which new link inherits e1's cabinet pair
        ca, cd = C[a], C[d]
        lo1, hi1 = (ca, cd) if ca <= cd else (cd, ca)
        o1 = C[U[e1]]
        p1 = C[V[e1]]
        lo0, hi0 = (o1, p1) if o1 <= p1 else (p1, o1)
        present.discard(U[e1] * n + V[e1] if U[e1] < V[e1] else V[e1] * n + U[e1])
        present.discard(U[e2] * n + V[e2] if U[e2] < V[e2] else V[e2] * n + U[e2])
        if (lo1, hi1) == (lo0, hi0):
            new1, new2, d1, d2 = (a, d), (c, b), dup1, dup2
        else:
            new1, new2, d1, d2 = (c, b), (a, d), dup2, dup1
        for e, (x, y), dup in ((e1, new1, d1), (e2, new2, d2)):
            if C[x] > C[y]:
                x, y = y, x
            U[e], V[e] = x, y
            if dup:
                alive[e] = False  # "only the first such edge is actually added"
            else:
                present.add(x * n + y if x < y else y * n + x)
    edges[:, 0] = U
    edges[:, 1] = V
    return np.asarray(alive, dtype=bool)


def _apply_multigraph(edges, cab, first, second, flip, U, V, C):
    """``duplicates="end"``: the swaps run on a multigraph (a swap is refused only when the
    four switches are not distinct), and the redundant copies of a link are removed once
    every swap is done, the first copy (lowest link index) kept."""
    for e1, e2, f1, f2 in zip(first.tolist(), second.tolist(), flip[first].tolist(), flip[second].tolist()):
        a, b = (V[e1], U[e1]) if f1 else (U[e1], V[e1])
        c, d = (V[e2], U[e2]) if f2 else (U[e2], V[e2])
        if a == c or a == d or b == c or b == d:
            continue
        ca, cd = C[a], C[d]
        lo1, hi1 = (ca, cd) if ca <= cd else (cd, ca)
        o1, p1 = C[U[e1]], C[V[e1]]
        lo0, hi0 = (o1, p1) if o1 <= p1 else (p1, o1)
        if (lo1, hi1) == (lo0, hi0):
            new1, new2 = (a, d), (c, b)
        else:
            new1, new2 = (c, b), (a, d)
        for e, (x, y) in ((e1, new1), (e2, new2)):
            if C[x] > C[y]:
                x, y = y, x
            U[e], V[e] = x, y
    edges[:, 0] = U
    edges[:, 1] = V
    lo = np.minimum(edges[:, 0], edges[:, 1])
    hi = np.maximum(edges[:, 0], edges[:, 1])
    _, first_copy = np.unique(lo * (int(hi.max(initial=0)) + 1) + hi, return_index=True)
    alive = np.zeros(len(edges), dtype=bool)
    alive[first_copy] = True
    return alive


def cabinet_pair_counts(edges, cabinet, num_cabinets: int) -> np.ndarray:
    """Number of links between every pair of cabinets (``num_cabinets`` squared matrix,
    symmetric; the diagonal counts intra-cabinet links)."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    cab = np.asarray(cabinet, dtype=np.int64)
    a, b = cab[e[:, 0]], cab[e[:, 1]]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    m = np.bincount(lo * num_cabinets + hi, minlength=num_cabinets * num_cabinets)
    m = m.reshape(num_cabinets, num_cabinets)
    return m + np.triu(m, 1).T


def permute_edges(edges, cabinet, method: str = "partial", *, rng, duplicates: str = "skip",
                  cabinet_pairs: str = "all") -> tuple[np.ndarray, np.ndarray]:
    """One permutation of a link list on given cabinets (Section III-A); no retry.

    Parameters
    ----------
    edges : array_like of int, shape (E, 2)
        Links of the base topology.
    cabinet : array_like of int, shape (N,)
        Cabinet of each switch.
    method : {"partial", "full"}
        Partially (two-step) or fully random permutation.
    rng : int or numpy.random.Generator
        Source of randomness.
    duplicates : {"skip", "drop", "end"}
        What a swap that would duplicate an existing link does (module docstring).
    cabinet_pairs : {"all", "linked"}
        Cabinet pairs visited by the fully random method.

    Returns
    -------
    edges : ndarray of int64, shape (E, 2)
        The permuted links, link ``e`` joining the same cabinet pair as base link ``e``.
    kept : ndarray of bool, shape (E,)
        False for links discarded as duplicates (``duplicates="drop"`` or ``"end"``).
    """
    gen = make_rng(rng)
    e = np.array(edges, dtype=np.int64).reshape(-1, 2)
    cab = np.asarray(cabinet, dtype=np.int64)
    ca, cb = cab[e[:, 0]], cab[e[:, 1]]
    swap = ca > cb
    e[swap] = e[swap][:, ::-1]  # lower cabinet first
    lo, hi = np.minimum(ca, cb), np.maximum(ca, cb)
    num_cab = int(cab.max()) + 1 if len(cab) else 1
    first, second = _schedule(lo, hi, method, cabinet_pairs, num_cab, gen)
    flip = (gen.random(len(e)) < 0.5) & (lo == hi)  # random orientation of intra links
    kept = _apply(e, cab, first, second, flip, duplicates)
    # conservation: every link keeps its cabinet pair (hence its cable length)
    na, nb = cab[e[:, 0]], cab[e[:, 1]]
    if not (np.array_equal(np.minimum(na, nb), lo) and np.array_equal(np.maximum(na, nb), hi)):
        raise AssertionError("permutation changed the cabinet pair of a link (bug)")
    return e, kept


# --------------------------------------------------------------------------- public API
def _as_layout(obj) -> Layout:
    if isinstance(obj, Layout):
        return obj
    if isinstance(obj, Topology):
        if obj.cabinet is None:
            raise ParameterError(
                f"permutation (Koibuchi et al. III-A) needs a laid-out topology, but {obj.name} has "
                "no cabinet placement; pass a Layout, e.g. permute(place(topology, floor, "
                "'sequential'))"
            )
        return place(obj, _native_floor(obj), "native")
    raise ParameterError(
        f"permute needs a Layout (a topology placed on a floor), got {type(obj).__name__}"
    )


def _native_floor(topology: Topology) -> Floor:
    from ..layout.placement import default_floor

    return default_floor(topology)


def permute(layout, method: Literal["partial", "full"] = "partial", *, seed=None,
            duplicates: Literal["skip", "drop", "end"] = "skip",
            cabinet_pairs: Literal["all", "linked"] = "all",
            max_attempts: int = 100, name: str | None = None) -> Layout:
    """Randomly permute the link endpoints of a laid-out topology (Koibuchi et al. III-A).

    Parameters
    ----------
    layout : Layout
        The base topology on its cabinets (a :class:`~topogen.topology.Topology` with a
        native ``cabinet`` placement is accepted and placed on its default floor).
    method : {"partial", "full"}
        ``"partial"``: the two-step partially random permutation (P-topo);
        ``"full"``: the fully random permutation (PF-topo).
    seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.
    duplicates : {"skip", "drop", "end"}
        ``"skip"`` (default): a swap that would create a link already present is not
        made, so every link and its cable survive.  ``"drop"``: the paper's literal
        "only the first such edge is actually added" (the redundant link is discarded).
        ``"end"``: the swaps run on a multigraph and the redundant copies are removed
        when all swaps are done (the reading closest to the paper's Table 1).
    cabinet_pairs : {"all", "linked"}
        Fully random method only: visit every pair of cabinets (the paper's wording,
        default) or only the pairs joined by a link.
    max_attempts : int
        Permutations tried (from ``child_seeds(seed, max_attempts)``) until one is
        connected.
    name : str, optional
        Name of the result (default ``"p-<base>"`` or ``"pf-<base>"``).

    Returns
    -------
    Layout
        The permuted topology on the same floor and cabinets.  Its topology records
        ``method``, ``base`` (the base topology's name and parameters), ``attempt`` and
        ``seed``, and carries the cabinets as its native placement; link kinds are
        ``"intra"`` and ``"inter"``.

    Raises
    ------
    ParameterError
        For a topology without a layout or an unknown option.
    TopologyError
        If no attempt gives a connected topology (or the base is disconnected).

    Notes
    -----
    Section III-A; the module docstring states how each step is read.  The number of
    links between every pair of cabinets (intra-cabinet links included) and the total
    cable length are those of ``layout``; this is checked on every result.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Section III-A.
    """
    lay = _as_layout(layout)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if duplicates not in DUPLICATES:
        raise ParameterError(f"duplicates must be one of {', '.join(DUPLICATES)}, got {duplicates!r}")
    if cabinet_pairs not in CABINET_PAIRS:
        raise ParameterError(
            f"cabinet_pairs must be one of {', '.join(CABINET_PAIRS)}, got {cabinet_pairs!r}"
        )
    attempts = check_int("max_attempts", max_attempts, 1)
    seed = resolve_seed(seed)
    base = lay.topology
    if not base.is_connected():
        raise TopologyError(f"the base topology {base.name} is disconnected; permute a connected one")
    cab = lay.cabinet
    c = lay.floor.cabinets
    before = cabinet_pair_counts(base.edges, cab, c)
    prefix = "p" if method == "partial" else "pf"
    label = name or f"{prefix}-{base.name}"
    for attempt, s in enumerate(iter_child_seeds(seed, attempts)):
        edges, kept = permute_edges(base.edges, cab, method, rng=s, duplicates=duplicates,
                                    cabinet_pairs=cabinet_pairs)
        edges = edges[kept]
        kinds = (cab[edges[:, 0]] != cab[edges[:, 1]]).astype(np.int8)
        topo = Topology(
            base.num_switches, edges, base.hosts_per_switch, name=label,
            params={"method": method, "base": base.name, "base_params": dict(base.params),
                    "duplicates": duplicates, "cabinet_pairs": cabinet_pairs,
                    "max_attempts": attempts, "attempt": attempt, "seed": seed},
            seed=seed, cabinet=cab, link_kind=kinds, kind_names=("intra", "inter"),
        )
        if not topo.is_connected():
            continue
        out = Layout(topo, lay.floor, cab, "permuted", seed)
        after = cabinet_pair_counts(topo.edges, cab, c)
        if kept.all():
            if not np.array_equal(before, after):
                raise AssertionError("permutation changed per-cabinet-pair link counts (bug)")
            if not np.isclose(out.total_cable_length, lay.total_cable_length, rtol=1e-12, atol=1e-9):
                raise AssertionError("permutation changed the total cable length (bug)")
        elif (after > before).any():
            raise AssertionError("permutation added links to a cabinet pair (bug)")
        return out
    raise TopologyError(
        f"none of {attempts} {method} permutations of {base.name} (seed {seed}) is connected; "
        "raise max_attempts or use another seed"
    )


# --------------------------------------------------------------------------- generators
def _generated(base: Topology, floor: Floor, placement: str, method: str, name: str,
               params: dict, seed, max_attempts: int, **options) -> Topology:
    lay = place(base, floor, placement)
    out = permute(lay, method, seed=seed, max_attempts=max_attempts, name=name, **options)
    t = out.topology
    # every parameter of the generator, so that generate(name, **params) rebuilds it
    # (the attempt that succeeded follows from the seed)
    return t.replace(params={**params, "max_attempts": max_attempts, **options, "seed": t.seed})


def _duplicates(duplicates) -> dict:
    """The ``duplicates`` option of a generator, recorded in its parameters only when it is
    not the default (so the default's outputs stay those of earlier versions)."""
    if duplicates not in DUPLICATES:
        raise ParameterError(f"duplicates must be one of {', '.join(DUPLICATES)}, got {duplicates!r}")
    return {} if duplicates == "skip" else {"duplicates": duplicates}


def _torus_base(degree: int, switches_per_cabinet: int, hosts: int):
    n2 = check_int("degree", degree, 2, hint=" (an even degree n of an n/2-dimensional torus)")
    if n2 % 2:
        raise ParameterError(f"degree must be even (TORUS-n is an n/2-dimensional torus), got {n2}")
    z = check_int("switches_per_cabinet", switches_per_cabinet, 3,
                  hint=" (the torus side; degree n needs sides >= 3)")
    dims = (z,) * (n2 // 2)
    n = z ** (n2 // 2)
    if n > 1 << 24:
        raise ParameterError(f"TORUS-{n2} with side {z} has {n} switches; at most 2**24 are supported")
    return torus(dims, hosts_per_switch=hosts), Floor.for_switches(n, z)


_TORUS_DOC = """{title} (Koibuchi et al. III-A, III-B).

    Parameters
    ----------
    degree : int
        The paper's n (even, >= 2): TORUS-n is an n/2-dimensional torus of side
        ``switches_per_cabinet`` (256 switches for n = 4 and 4,096 for n = 6 at the paper's
        16 switches per cabinet).
    switches_per_cabinet : int
        Cabinet size ``2**p`` (16 in the paper) and side of every torus dimension (>= 3).
    hosts_per_switch : int
        Compute nodes per switch.
    max_attempts : int
        Permutations tried until one is connected.
    {extra}duplicates : {{skip, drop, end}}
        What a swap that would double a link does: not made (default), made with the
        redundant link discarded, or made with doubled links removed at the end (the
        reading closest to Table 1; see :func:`permute`).
    seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        The permuted torus; native placement ``cabinet[v] = v // switches_per_cabinet``
        (the first dimension inside a cabinet); link kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        Odd degree or a side below 3.
    TopologyError
        If no permutation is connected within ``max_attempts``.

    Notes
    -----
    Section III-B: TORUS-n maps to cabinets by taking "vertices in the canonical
    topological order" sequentially, valid "when the total number of vertices is
    N = 2**(p n / 2)"; {method_note}  See :func:`permute`.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Sections III-A, III-B, Table 1.
    """

_CUBE_DOC = """{title} (Koibuchi et al. III-A, III-B).

    Parameters
    ----------
    dimension : int
        The paper's n: ``N = 2**n`` switches.
    switches_per_cabinet : int
        Cabinet size (16 in the paper); switch ``v`` goes to cabinet ``v // size``.
    hosts_per_switch : int
        Compute nodes per switch.
    max_attempts : int
        Permutations tried until one is connected.
    {extra}seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        The permuted {base}; native placement ``cabinet[v] = v // switches_per_cabinet``;
        link kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        For a dimension or cabinet size out of range.
    TopologyError
        If no permutation is connected within ``max_attempts``.

    Notes
    -----
    Section III-B: the base maps to cabinets by assigning "vertices taken in the canonical
    topological order to cabinets sequentially"; {method_note}  See :func:`permute`.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Sections III-A, III-B (Fig. 3, 4).
    """

_CLOS_DOC = """{title} (Koibuchi et al. III-A, III-C2).

    Parameters
    ----------
    hosts : int
        Compute nodes (256 and 512 give the paper's 80- and 160-switch networks).
    radix : int
        Ports per switch (16).
    switches_per_cabinet : int
        Capacity of the switch-only cabinets.
    hosts_per_cabinet : int
        Compute nodes per leaf cabinet (128 in the paper).
    max_attempts : int
        Permutations tried until one is connected.
    {extra}seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        The permuted :func:`~topogen.generators.fattree.myrinet_clos` on its native
        cabinets; link kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        For a host count that gives no Clos.
    TopologyError
        If no permutation is connected within ``max_attempts``.

    Notes
    -----
    Section III-C2: "The permuted Clos topology is computed using our fully randomness
    method"; {method_note}  See :func:`permute`.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Sections III-A, III-C2.
    """

_PARTIAL = "partially random permutation: intra-cabinet links, then inter-cabinet links per cabinet pair."
_FULL = ("fully random permutation: per cabinet pair, its intra- and inter-cabinet links "
         "together.")
_PAIRS_DOC = """cabinet_pairs : {all, linked}
        Cabinet pairs visited: all pairs (the paper's wording) or only linked ones.
    """


def _doc(template, **kw):
    def deco(func):
        func.__doc__ = template.format(**kw)
        return func

    return deco


@register("p-torus", family="permute")
@_doc(_TORUS_DOC, title="P-TORUS-n: a partially randomly permuted torus", extra="",
      method_note=_PARTIAL)
def p_torus(degree: int, *, switches_per_cabinet: int = 16, hosts_per_switch: int = 1,
            max_attempts: int = 100, duplicates: Literal["skip", "drop", "end"] = "skip",
            seed: int | None = None) -> Topology:
    base, floor = _torus_base(degree, switches_per_cabinet, hosts_per_switch)
    return _generated(base, floor, "sequential", "partial", "p-torus",
                      dict(degree=int(degree), switches_per_cabinet=int(switches_per_cabinet),
                           hosts_per_switch=int(hosts_per_switch)), seed, max_attempts,
                      **_duplicates(duplicates))


@register("pf-torus", family="permute")
@_doc(_TORUS_DOC, title="PF-TORUS-n: a fully randomly permuted torus", extra=_PAIRS_DOC,
      method_note=_FULL)
def pf_torus(degree: int, *, switches_per_cabinet: int = 16, hosts_per_switch: int = 1,
             max_attempts: int = 100, cabinet_pairs: Literal["all", "linked"] = "all",
             duplicates: Literal["skip", "drop", "end"] = "skip",
             seed: int | None = None) -> Topology:
    base, floor = _torus_base(degree, switches_per_cabinet, hosts_per_switch)
    return _generated(base, floor, "sequential", "full", "pf-torus",
                      dict(degree=int(degree), switches_per_cabinet=int(switches_per_cabinet),
                           hosts_per_switch=int(hosts_per_switch)), seed, max_attempts,
                      cabinet_pairs=cabinet_pairs, **_duplicates(duplicates))


def _cube_base(folded: bool, dimension, switches_per_cabinet, hosts):
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    d = check_int("dimension", dimension, 2 if folded else 1, 24,
                  hint="; the (folded) hypercube has 2**dimension switches")
    base = (folded_hypercube if folded else hypercube)(d, hosts_per_switch=hosts)
    return base, Floor.for_switches(base.num_switches, z)


def _cube(folded, method, name, dimension, switches_per_cabinet, hosts_per_switch, max_attempts,
          seed, **options):
    base, floor = _cube_base(folded, dimension, switches_per_cabinet, hosts_per_switch)
    return _generated(base, floor, "sequential", method, name,
                      dict(dimension=int(dimension), switches_per_cabinet=int(switches_per_cabinet),
                           hosts_per_switch=int(hosts_per_switch)), seed, max_attempts, **options)


@register("p-hypercube", family="permute")
@_doc(_CUBE_DOC, title="P-HYPERCUBE: a partially randomly permuted hypercube", extra="",
      base="hypercube", method_note=_PARTIAL)
def p_hypercube(dimension: int, *, switches_per_cabinet: int = 16, hosts_per_switch: int = 1,
                max_attempts: int = 100, seed: int | None = None) -> Topology:
    return _cube(False, "partial", "p-hypercube", dimension, switches_per_cabinet,
                 hosts_per_switch, max_attempts, seed)


@register("pf-hypercube", family="permute")
@_doc(_CUBE_DOC, title="PF-HYPERCUBE: a fully randomly permuted hypercube", extra=_PAIRS_DOC,
      base="hypercube", method_note=_FULL)
def pf_hypercube(dimension: int, *, switches_per_cabinet: int = 16, hosts_per_switch: int = 1,
                 max_attempts: int = 100, cabinet_pairs: Literal["all", "linked"] = "all",
                 seed: int | None = None) -> Topology:
    return _cube(False, "full", "pf-hypercube", dimension, switches_per_cabinet,
                 hosts_per_switch, max_attempts, seed, cabinet_pairs=cabinet_pairs)


@register("p-fhypercube", family="permute")
@_doc(_CUBE_DOC, title="P-FHYPERCUBE: a partially randomly permuted folded hypercube", extra="",
      base="folded hypercube", method_note=_PARTIAL)
def p_fhypercube(dimension: int, *, switches_per_cabinet: int = 16, hosts_per_switch: int = 1,
                 max_attempts: int = 100, seed: int | None = None) -> Topology:
    return _cube(True, "partial", "p-fhypercube", dimension, switches_per_cabinet,
                 hosts_per_switch, max_attempts, seed)


@register("pf-fhypercube", family="permute")
@_doc(_CUBE_DOC, title="PF-FHYPERCUBE: a fully randomly permuted folded hypercube",
      extra=_PAIRS_DOC, base="folded hypercube", method_note=_FULL)
def pf_fhypercube(dimension: int, *, switches_per_cabinet: int = 16, hosts_per_switch: int = 1,
                  max_attempts: int = 100, cabinet_pairs: Literal["all", "linked"] = "all",
                  seed: int | None = None) -> Topology:
    return _cube(True, "full", "pf-fhypercube", dimension, switches_per_cabinet,
                 hosts_per_switch, max_attempts, seed, cabinet_pairs=cabinet_pairs)


def _clos(method, name, hosts, radix, switches_per_cabinet, hosts_per_cabinet, max_attempts, seed,
          **options):
    base = myrinet_clos(hosts, radix=radix, switches_per_cabinet=switches_per_cabinet,
                        hosts_per_cabinet=hosts_per_cabinet)
    floor = Floor.skywalk(int(base.cabinet.max()) + 1, int(switches_per_cabinet))
    return _generated(base, floor, "native", method, name, dict(base.params), seed, max_attempts,
                      **options)


@register("p-myrinet-clos", family="permute")
@_doc(_CLOS_DOC, title="P-Myrinet-Clos: a partially randomly permuted Myrinet-Clos", extra="",
      method_note=_PARTIAL + " (the paper uses the fully random method for Clos)")
def p_myrinet_clos(hosts: int, *, radix: int = 16, switches_per_cabinet: int = 16,
                   hosts_per_cabinet: int = 128, max_attempts: int = 100,
                   seed: int | None = None) -> Topology:
    return _clos("partial", "p-myrinet-clos", hosts, radix, switches_per_cabinet,
                 hosts_per_cabinet, max_attempts, seed)


@register("pf-myrinet-clos", family="permute")
@_doc(_CLOS_DOC, title="PF-Myrinet-Clos: a fully randomly permuted Myrinet-Clos", extra=_PAIRS_DOC,
      method_note=_FULL)
def pf_myrinet_clos(hosts: int, *, radix: int = 16, switches_per_cabinet: int = 16,
                    hosts_per_cabinet: int = 128, max_attempts: int = 100,
                    cabinet_pairs: Literal["all", "linked"] = "all",
                    seed: int | None = None) -> Topology:
    return _clos("full", "pf-myrinet-clos", hosts, radix, switches_per_cabinet,
                 hosts_per_cabinet, max_attempts, seed, cabinet_pairs=cabinet_pairs)
