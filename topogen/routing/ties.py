"""The tie rules of :func:`~topogen.routing.paths.nearest` and
:func:`~topogen.routing.paths.fastest` (``"spread"``, ``"lowest"``, ``"random"``; described
in :mod:`topogen.routing.paths`): the SplitMix64 hash of ``(ties_seed, switch,
destination)``, the spread rule's pass over a block of distance rows, the checks and
recorded parameters of a tie rule, and :func:`spread_ties` (random ties on a routing with
its distance table).

Re-exported by :mod:`topogen.routing.paths`.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..errors import ParameterError, RoutingError
from .base import TableRouting, csr_view

#: Tie rules of :func:`nearest` and :func:`fastest` (the first is the default).
TIES = ("spread", "lowest", "random")

_U64 = np.uint64


def _splitmix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x + _U64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> _U64(27))) * _U64(0x94D049BB133111EB)
        return x ^ (x >> _U64(31))


def tie_halves(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inputs of :func:`tie_hash` for switches ``0 .. n-1``, as the compiled table
    kernels take them: ``(sd, hv, hd)``, the SplitMix64 of ``seed`` and each switch's
    32-bit half as a source (``hv``) and as a destination (``hd``), in ``uint64``."""
    sd = _splitmix(np.asarray(seed, dtype=np.uint64))
    ids = np.arange(n, dtype=np.uint64)
    m32 = _U64(0xFFFFFFFF)
    return sd, _splitmix(ids ^ sd) & m32, _splitmix(ids + (sd << _U64(1))) & m32


def tie_hash(seed: int, v, dst) -> np.ndarray:
    """32-bit hash (``uint32``) of ``(seed, switch, destination)``; broadcasts ``v``
    against ``dst``.

    SplitMix64 of ``(seed, v)`` and of ``(seed, dst)`` (one per switch), combined by XOR
    and mixed by a 32-bit multiply-xorshift finaliser (``lowbias32``).
    """
    sd = _splitmix(np.asarray(seed, dtype=np.uint64))
    hv = _splitmix(np.asarray(v, dtype=np.uint64) ^ sd).astype(np.uint32)
    hd = _splitmix(np.asarray(dst, dtype=np.uint64) + (sd << _U64(1))).astype(np.uint32)
    with np.errstate(over="ignore"):
        x = hv ^ hd
        x ^= x >> np.uint32(16)
        x *= np.uint32(0x7FEB352D)
        x ^= x >> np.uint32(15)
        x *= np.uint32(0x846CA68B)
        x ^= x >> np.uint32(16)
    return x


def _spread_tight_ranks(dt, nbr_pad, wpad, ds, seed, rank_dtype, sentinel, chunk=1024):
    """Next hops of the ``"spread"`` tie rule toward a block of destinations.

    ``dt[v, j]`` (shape ``(N + 1, B)``, row ``N`` = padding holding a huge value) is the
    integer distance from switch ``v`` to ``ds[j]``; ``wpad[v, r]`` the integer weight of
    ``v``'s link of rank ``r`` (``-1`` = none).  Among the ``k`` ranks on a shortest path
    the one of index ``(tie_hash * k) >> 32`` is taken (two passes over the ranks per
    chunk of destinations).
    """
    n, r_count = nbr_pad.shape
    b = len(ds)
    out = np.empty((n, b), dtype=rank_dtype)
    vs = np.arange(n, dtype=np.uint64)[:, None]
    cdt = np.uint8 if r_count < 255 else np.uint16
    w = np.where(wpad >= 0, wpad, 0).astype(dt.dtype)
    for c0 in range(0, b, chunk):
        c1 = min(b, c0 + chunk)
        sub = dt[:, c0:c1]
        here = sub[:n]
        g = np.empty(here.shape, dtype=dt.dtype)
        count = np.zeros(here.shape, dtype=cdt)
        tights = []
        for r in range(r_count):
            np.take(sub, nbr_pad[:, r], axis=0, out=g)
            np.add(g, w[:, r:r + 1], out=g)
            t = np.equal(g, here)
            np.logical_and(t, (nbr_pad[:, r] < n)[:, None], out=t)
            count += t
            tights.append(t)
        target = tie_hash(seed, vs, ds[None, c0:c1]).astype(np.uint64)
        target *= count
        target >>= _U64(32)
        target = target.astype(cdt)
        seen = np.zeros(here.shape, dtype=cdt)
        o = np.full(here.shape, sentinel, dtype=rank_dtype)
        hit = np.empty(here.shape, dtype=bool)
        for r, t in enumerate(tights):
            np.equal(seen, target, out=hit)
            hit &= t
            np.copyto(o, rank_dtype(r), where=hit)
            seen += t
        cols = np.arange(c0, c1)
        o[ds[cols], cols - c0] = sentinel
        if np.any(count[np.arange(n)[:, None] != ds[None, c0:c1]] == 0):
            raise RoutingError("spread ties: a switch has no next hop on a shortest path "
                               "(internal error)")
        out[:, c0:c1] = o
    return out


def _dist_dtype(top: int):
    """Smallest signed dtype holding distances up to ``top`` plus a padding value."""
    for dt in (np.int16, np.int32):
        if top < np.iinfo(dt).max // 8:
            return dt
    return np.int64


def _padded(dist_vb: np.ndarray, dtype=np.int64) -> np.ndarray:
    """``(N, B)`` distances with a padding row ``N`` that is never on a shortest path."""
    n, b = dist_vb.shape
    dt = np.empty((n + 1, b), dtype=dtype)
    dt[:n] = dist_vb
    dt[n] = np.iinfo(dtype).max // 4
    return dt


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise ParameterError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")


def _ties_seed(ties_seed) -> int:
    if ties_seed is None:
        return 0
    return check_int("ties_seed", ties_seed, 0, (1 << 63) - 1)


def _tie_params(ties: str, tseed: int) -> dict:
    if ties == "spread":
        return {"tie_rule": "spread", "ties_seed": tseed}
    return {"tie_rule": "lowest next-hop id"}


def spread_ties(routing: TableRouting, seed=None) -> TableRouting:
    """The same routing with its ties broken at random: at every switch and for every
    destination, the next hop is drawn uniformly (seeded) among the neighbours on a
    shortest path (equal hops for NR, equal latency for FR).

    The lowest-id rule sends every tied route through the same neighbour, which piles
    traffic onto a few links of regular networks (measured on Skywalk IV-B's 256-switch
    networks: the busiest link carries 17x the mean load on Hypercube, 6x on HyperX;
    1.7x and 2.6x with random ties).  Distances and route lengths are unchanged.

    Parameters
    ----------
    routing : TableRouting
        A single-phase routing computed with ``all_next_hops=True`` (``nearest`` or
        ``fastest``), so that its distance table is known.
    seed : int, optional
        Seed of the draw (drawn and recorded in ``params["ties_seed"]`` when None).

    Returns
    -------
    TableRouting
        ``params`` gain ``tie_rule="random"`` and ``ties_seed``.

    Raises
    ------
    ParameterError
        If the routing has no distance table.
    """
    from .._rng import make_rng, resolve_seed

    if getattr(routing, "distances", None) is None or getattr(routing, "entry_weight", None) is None:
        raise ParameterError("spread_ties needs a routing computed with all_next_hops=True "
                             "(its distance table)")
    seed = resolve_seed(seed)
    rng = make_rng(seed)
    view = csr_view(routing.topology)
    ip, idx = view.indptr, view.indices
    dist = np.asarray(routing.distances)
    w = np.asarray(routing.entry_weight, dtype=np.int64)
    ranks = np.array(routing.ranks, copy=True)
    for v in range(view.n):
        lo, hi = int(ip[v]), int(ip[v + 1])
        # dist[u, t]: distance from u to t; a neighbour u is on a shortest path to t
        tight = dist[idx[lo:hi], :].astype(np.int64) + w[lo:hi, None] == dist[v, :].astype(np.int64)
        pick = np.where(tight, rng.random(tight.shape), -1.0).argmax(axis=0)
        has = tight.any(axis=0)
        has[v] = False
        ranks[0, v, has] = pick[has]
    return TableRouting(routing.topology, ranks, layout=routing.layout,
                        algorithm=routing.algorithm,
                        params=dict(routing.params, tie_rule="random", ties_seed=int(seed)),
                        num_vcs=routing.num_vcs, distances=routing.distances,
                        entry_weight=routing.entry_weight)
