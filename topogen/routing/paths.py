"""Nearest Routing (NR) and Fastest Routing (FR) next-hop tables (Skywalk Sec. II-E).

NR follows shortest-hop paths; FR follows lowest-latency paths, found with Dijkstra's
algorithm on link weights ``switch_delay + link_delay`` (Skywalk II-E: "defining
distances in a way that accounts for cable delays and switch delays").

Tie rules (both): among the neighbours ``w`` of ``v`` on a shortest path to ``dst``
(``dist(w, dst) + weight(v, w) == dist(v, dst)``), ``v`` takes

* ``ties="spread"`` (default): the one of index ``floor(u * k)`` among the ``k`` tied
  neighbours (in increasing id), where ``u`` in ``[0, 1)`` is a hash of
  ``(ties_seed, v, dst)`` (SplitMix64): an independent, uniform choice per switch and
  destination that spreads uniform traffic over the equal paths, is the same for every
  block size and worker count, and needs no distance table.  ``ties_seed=None`` means 0, so
  default tables are a function of the topology alone (every simulator that takes tables
  gets the same routes);
* ``ties="lowest"``: the **lowest switch id** (= lowest link rank), topogen's former default;
  it sends every tied route through the same neighbour, which piles uniform traffic
  onto a few links (6-cube: the busiest link is full at 0.26 flits per host per cycle,
  0.78-1.16 with ``"spread"`` over tie seeds 0..19);
* ``ties="random"``: one drawn from ``numpy`` random numbers of ``seed``
  (:func:`spread_ties`, needs the N x N distance table; kept for results recorded with it).

Each switch's choice only depends on ``(v, dst)``, so the routes form one in-tree per
destination and are loop-free.  FR weights are rounded to whole picoseconds so that ties
are exact (integer sums).

Algorithms: FR and NR by default build the table with compiled kernels (FR one search
per switch, :mod:`._rows`; FR in memory: one Dial search from each destination, which reads each
switch's tied links off its neighbours' distances and also finds the longest route, the
VC count of hop-indexed, Valiant and UGAL routings on the table; FR streamed to
``ranks_file``: one search from each source with 64-bit masks of the tied first links,
memory ``O(N + E)`` per thread, rows streamed to ``ranks_file`` when given; NR: a
level-synchronous bit-parallel propagation over blocks of 512 destinations, every switch
at once, which finds each destination's tied first links as it reaches it,
:mod:`._bitrows`, about 700 bytes per switch per thread); from
:data:`PER_SOURCE_MIN_WORK` on, below which the block algorithms need less than loading
numba and the kernels on a fresh machine).  Below it (or on request) NR uses a
bit-parallel breadth-first search in NumPy (64 destinations per machine word, all destinations of
a block at once).  FR works per block of destinations, either
with a vectorised Bellman–Ford whose converging round also yields the lowest-id next
hops (low-diameter networks; the rows of switches whose own block is finished come from
a symmetric distance cache instead of being iterated), or with SciPy's Dijkstra followed
by one vectorised pass that reads the next hops off the distance rows; all give
identical tables.

This module holds :func:`nearest`, :func:`fastest` and :func:`fr_weights`; the tie rules are
in :mod:`.ties` (:func:`spread_ties`, :func:`tie_hash`), the bit-parallel search in
:mod:`.bitparallel` (:func:`bitbfs`, :func:`hop_eccentricities`) and FR's block algorithms
in :mod:`._fr_blocks`; their public names are re-exported here.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_float, check_int
from ..errors import ParameterError
from ..topology import Topology
from ._fr_blocks import _CACHE_BYTES, _bf_budget, _fr_block, _fr_parallel
from ._npyfile import STREAM_COLUMNS, column_writer, to_file
from .base import TableRouting, csr_view
from .bitparallel import bitbfs, hop_eccentricities
from .ties import (TIES, _check_ties, _dist_dtype, _padded, _spread_tight_ranks, _tie_params, _ties_seed,
                   spread_ties, tie_hash)

__all__ = ["nearest", "fastest", "fr_weights", "spread_ties", "TIES", "tie_hash", "bitbfs",
           "hop_eccentricities"]


def _require(topology: Topology, what: str) -> None:
    if not isinstance(topology, Topology):
        raise ParameterError(f"{what} needs a Topology, got {type(topology).__name__}")
    topology.require_connected(what)


def nearest(topology: Topology, layout=None, *, all_next_hops: bool = False,
            block: int = 4096, ties: str = "spread", seed=None, ties_seed=None,
            method: str = "auto", workers: int | None = None,
            ranks_file=None) -> TableRouting:
    """Nearest Routing: shortest-hop next-hop tables, one next hop per pair.

    Parameters
    ----------
    topology : Topology
        A connected topology.
    layout : Layout, optional
        Recorded on the routing (for latency metrics and exports); NR ignores it.
    all_next_hops : bool
        Also keep the hop-distance table (``uint8``/``uint16``, N x N) so that
        :meth:`TableRouting.next_hops` lists every equal-cost next hop.
    block : int
        Destinations per bit-parallel BFS block (memory ~ ``N * block / 8`` bytes per
        bit matrix).
    ties : {"spread", "lowest", "random"}
        Which of several shortest-path next hops a table names (see the module docs):
        a uniform choice per (switch, destination) from a hash of ``ties_seed``
        (default), the lowest neighbour id, or one drawn from ``seed``'s random numbers
        (:func:`spread_ties`; keeps the distance table).
    seed : int, optional
        Seed of ``ties="random"`` (drawn and recorded when None).
    ties_seed : int, optional
        Seed of ``ties="spread"`` (None = 0: the same tables on every run).
    method : {"auto", "bit-parallel", "per-source"}
        ``"bit-parallel"``: the reverse bit-parallel search per block of destinations
        (``N x block`` work arrays); ``"per-source"``: the compiled kernel, a
        level-synchronous bit-parallel propagation over blocks of 512 destinations that
        also finds each destination's tied first links (:mod:`._bitrows`; numba, degree
        <= 64, about 700 bytes per switch per thread; less CPU and memory than the other
        for either tie rule).  ``"auto"``: per-source when
        it applies (not with ``all_next_hops``) and the network has at least
        :data:`PER_SOURCE_MIN_WORK` switches x (switches + directed links), else
        bit-parallel (no numba needed).  Same tables.
    workers : int, optional
        Threads of the per-source method (default: the CPUs this process may use).
    ranks_file : path-like, optional
        Write the table to this ``.npy`` file as it is computed (columns of each block of
        destinations, at most :data:`._rows.STREAM_COLUMNS` at a time; rows of each block
        of sources with ``"per-source"``) and return a routing whose ``ranks`` is the
        file, memory-mapped read-only: the ``N x N`` table is never held in memory.

    Returns
    -------
    TableRouting
        ``algorithm="nr"``, one phase, VC rule ``"const"`` (VC 0), ``num_vcs=1``.

    Raises
    ------
    TopologyError
        If the topology is disconnected.

    Notes
    -----
    Skywalk Sec. II-E calls shortest-hop routing "Nearest Routing".  Tie rules: see the
    module docs.

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology for
       HPC Networks with Low-delay Switches", IPDPS 2014, Sec. II-E.
    """
    _require(topology, "nearest routing")
    check_int("block", block, 64)
    _check_ties(ties)
    _check_method(method, ("auto", "per-source", "bit-parallel"))
    if ties == "random":
        return to_file(spread_ties(nearest(topology, layout, all_next_hops=True,
                                                 block=block, ties="lowest", method=method),
                                         seed), ranks_file)
    tseed = _ties_seed(ties_seed)
    view = csr_view(topology)
    n = view.n
    params = dict(_tie_params(ties, tseed), metric="hops")
    if method in ("per-source", "auto"):
        # the compiled kernel takes less CPU than the NumPy levels for both tie rules
        # (at 16,384 switches "lowest" 1.8 s against 5.8 s)
        got = _per_source(topology, view, np.ones(len(view.indices), dtype=np.int64),
                          ties, tseed, method, all_next_hops, workers, ranks_file, nr=True)
        if got is not None:
            return TableRouting(topology, got[0], layout=layout, algorithm="nr", params=params,
                                num_vcs=1)
    spread = ties == "spread"
    stream = ranks_file is not None and not all_next_hops
    if stream:  # columns go straight to the file: a smaller block bounds the work arrays
        block = min(block, STREAM_COLUMNS)
    ranks = None if stream else np.empty((1, n, n), dtype=view.rank_dtype)
    dist = np.empty((n, n), dtype=np.uint16) if all_next_hops else None
    wpad = np.where(view.valid_pad, 1, -1)
    with column_writer(ranks_file if stream else None, n, view.rank_dtype) as write:
        for d0 in range(0, n, block):
            d1 = min(n, d0 + block)
            ds = np.arange(d0, d1, dtype=np.int64)
            r, lev, _, ecc = bitbfs(view.nbr_pad, n, ds[:, None],
                                    want_levels=all_next_hops or spread, want_ranks=not spread,
                                    rank_dtype=view.rank_dtype, sentinel=view.sentinel)
            if spread:
                r = _spread_tight_ranks(_padded(lev, _dist_dtype(int(lev.max()))), view.nbr_pad,
                                        wpad, ds, tseed, view.rank_dtype, view.sentinel)
            if stream:
                write(d0, r)
            else:
                ranks[0, :, d0:d1] = r
            if all_next_hops:
                dist[:, d0:d1] = lev
    if stream:
        ranks = np.load(ranks_file, mmap_mode="r")
    ew = np.ones(len(view.indices), dtype=np.int64) if all_next_hops else None
    routing = TableRouting(topology, ranks, layout=layout, algorithm="nr", params=params,
                           num_vcs=1, distances=dist, entry_weight=ew)
    return routing if stream else to_file(routing, ranks_file)


def fr_weights(layout, switch_delay: float = 60.0) -> np.ndarray:
    """FR weight of each CSR entry in integer picoseconds: ``switch_delay + link_delay``."""
    topology = layout.topology
    delay = np.asarray(layout.link_delay, dtype=float)[topology.directed_edge_ids]
    w = np.rint((switch_delay + delay) * 1000.0).astype(np.int64)
    if len(w) and w.min() < 1:
        raise ParameterError("fastest routing needs positive link weights: switch_delay + "
                             "link delay must be at least 0.001 ns on every link")
    return w


def fastest(layout, switch_delay: float = 60.0, *, all_next_hops: bool = False,
            block: int = 256, workers: int | None = None, method: str = "auto",
            ties: str = "spread", seed=None, ties_seed=None, ranks_file=None) -> TableRouting:
    """Fastest Routing: minimum-latency next-hop tables (Skywalk Sec. II-E).

    Parameters
    ----------
    layout : Layout
        The placed topology; link delays come from its cable lengths.
    switch_delay : float
        Delay of one switch in ns (Skywalk uses 60 ns).  A hop's weight is
        ``switch_delay + link_delay`` (the path latency up to the constant delay of the
        last switch).
    all_next_hops : bool
        Keep the latency table (``int64`` ps, N x N) for :meth:`TableRouting.next_hops`.
    block : int
        Destinations per block (one Dijkstra call or one Bellman–Ford sweep).
    workers : int, optional
        Threads of the per-source method (default: the CPUs this process may use), or
        processes of the others (default 1 = in this process); blocks are independent.
    method : {"auto", "per-source", "dijkstra", "bellman-ford"}
        How distances are found (the tables are identical): ``"per-source"``, Dial's
        bucket queue from each source switch on the picoseconds divided by their common
        divisor, giving the switch's whole row (:mod:`._rows`; numba, degree <= 64,
        memory ``O(N + E)`` per thread besides the table); SciPy's Dijkstra; or a
        vectorised Bellman–Ford over a block of destinations that also yields the next
        hops (fast on low-diameter networks: random, Skywalk, Slim Fly...).  ``"auto"``
        takes ``"per-source"`` when it applies (not with ``all_next_hops`` or
        ``ties="random"``) from :data:`PER_SOURCE_MIN_WORK` on, else Bellman–Ford when a cost model says it pays (few hops,
        see :func:`_bf_budget`), falling back to Dijkstra for a block that needs too
        many rounds; ``"bellman-ford"`` always iterates to convergence.
    ties : {"spread", "lowest", "random"}
        Which of several minimum-latency next hops a table names (see the module docs):
        a uniform choice per (switch, destination) from a hash of ``ties_seed``
        (default), the lowest neighbour id, or one drawn from ``seed``'s random numbers
        (:func:`spread_ties`; keeps the N x N latency table).
    seed : int, optional
        Seed of ``ties="random"`` (drawn and recorded when None).
    ties_seed : int, optional
        Seed of ``ties="spread"`` (None = 0: the same tables on every run).
    ranks_file : path-like, optional
        As in :func:`nearest`: stream the table into this ``.npy`` file and return it
        memory-mapped.

    Returns
    -------
    TableRouting
        ``algorithm="fr"``, VC rule ``"const"`` (VC 0), ``num_vcs=1``; ``params`` hold
        ``switch_delay`` and the ``weight_unit`` (``"ps"``).

    Raises
    ------
    TopologyError
        If the topology is disconnected.
    ParameterError
        For a negative switch delay or non-positive hop weights.

    Notes
    -----
    Weights are rounded to whole picoseconds, so equal-latency routes tie exactly; tie
    rules: see the module docs.

    References
    ----------
    .. [1] Skywalk, Sec. II-E ("Fastest Routing").
    """
    from ..layout import Layout

    if not isinstance(layout, Layout):
        raise ParameterError(f"fastest routing needs a Layout (see topogen.place), got "
                             f"{type(layout).__name__}")
    switch_delay = check_float("switch_delay", switch_delay, 0.0)
    check_int("block", block, 1)
    if workers is not None:
        check_int("workers", workers, 1)
    _check_method(method, ("auto", "per-source", "dijkstra", "bellman-ford"))
    _check_ties(ties)
    if ties == "random":
        return to_file(spread_ties(fastest(layout, switch_delay, all_next_hops=True,
                                                 block=block, workers=workers, method=method,
                                                 ties="lowest"), seed), ranks_file)
    tseed = _ties_seed(ties_seed)
    topology = layout.topology
    _require(topology, "fastest routing")
    view = csr_view(topology)
    n = view.n
    w = fr_weights(layout, switch_delay)
    params = dict(_tie_params(ties, tseed), switch_delay=switch_delay, weight_unit="ps",
                  metric="latency")
    # one search per destination: its in-tree's depth comes along, so the longest route
    # (the VC count of hop-indexed, Valiant and UGAL routings on this table) needs no
    # pass of its own
    got = _per_source(topology, view, w, ties, tseed, method, all_next_hops, workers,
                      ranks_file, columns=True)
    if got is not None:
        return TableRouting(topology, got[0], layout=layout, algorithm="fr", params=params,
                            num_vcs=1, longest_route=got[1])
    workers = 1 if workers is None else workers
    bf_rounds = {"dijkstra": 0, "bellman-ford": n + 1}.get(method)
    if bf_rounds is None:
        bf_rounds = _bf_budget(topology, view)
    starts = list(range(0, n, block))
    common = (view.indptr, view.indices, w, n, view.nbr_pad)
    tail = (view.rank_dtype, view.sentinel, all_next_hops, bf_rounds,
            tseed if ties == "spread" else None)
    if workers > 1 and len(starts) > 1:
        ranks, dist = _fr_parallel(common, tail, n, block, starts, workers, view.rank_dtype,
                                   all_next_hops)
    else:
        ranks = np.empty((1, n, n), dtype=view.rank_dtype)
        dist = np.empty((n, n), dtype=np.int64) if all_next_hops else None
        cache = None
        if bf_rounds and n * n * 4 <= _CACHE_BYTES and len(starts) > 1:
            cache = (np.empty((n, n), dtype=np.int32), np.zeros(len(starts), np.uint8), block)
        for d0 in starts:
            ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
            r, dd = _fr_block(common + (ds,) + tail, cache)
            ranks[0, :, d0:d0 + len(ds)] = r
            if all_next_hops:
                dist[:, d0:d0 + len(ds)] = dd.T
    return to_file(TableRouting(topology, ranks, layout=layout, algorithm="fr",
                                      params=params, num_vcs=1, distances=dist,
                                      entry_weight=w if all_next_hops else None), ranks_file)


#: ``method="auto"`` builds the tables one source at a time (compiled, :mod:`._rows`) from
#: this much work on (switches x (switches + directed links)); below it the NumPy/SciPy
#: block algorithms need well under a second, less than importing numba and compiling or
#: loading the per-source kernels on a fresh machine (seconds).  The tables are the same.
PER_SOURCE_MIN_WORK = 4 * 10**6


def _per_source(topology, view, weights, ties, tseed, method, all_next_hops, workers,
                ranks_file, columns=False, nr=False):
    """:func:`._rows.per_source`, or None (the block algorithms) when ``method="auto"`` and
    the network is below :data:`PER_SOURCE_MIN_WORK`: then neither numba nor the
    compiled kernels are loaded.  ``nr``: unit weights, whose table comes from the
    bit-parallel kernel of :mod:`._bitrows` (the same table, less CPU)."""
    if method == "auto" and view.n * (view.n + len(view.indices)) < PER_SOURCE_MIN_WORK:
        return None
    if method not in ("auto", "per-source"):
        return None
    from . import _rows

    table = None
    if nr:
        from . import _bitrows

        table = _bitrows.from_plan
    return _rows.per_source(topology, view, weights, ties, tseed, method, all_next_hops,
                            workers, ranks_file, columns, table=table)


def _check_method(method: str, allowed: tuple) -> None:
    if method not in allowed:
        raise ParameterError(f"method must be one of {', '.join(allowed)}, got {method!r}")
