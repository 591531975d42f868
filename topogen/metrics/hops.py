"""Hop distances: diameter, average shortest path length and the distance histogram.

All-pairs hop distances are computed with a *bit-parallel* breadth-first search: the
search from 64 sources is carried in the bits of one ``uint64`` word per switch, so a
BFS level for a block of ``64 * W`` sources is one gather of the frontier words through
the CSR adjacency followed by an OR-reduction per switch
(``np.bitwise_or.reduceat(frontier[:, indices], indptr[:-1], axis=1)``).  The number of
switches reached at each level is a population count of the new words.  Blocks of
sources are independent and run on a small thread pool (NumPy releases the GIL in
``take`` and ``reduceat``); memory is bounded by ``W`` words per switch and one chunk of
gathered words, never by the number of pairs.

Conventions:

* distances are hop counts between *switches* (host links are not counted);
* the average shortest path length ``aspl`` is the mean over the ``N(N-1)`` ordered pairs
  of distinct switches, the pairs over which Skywalk (Fujiwara et al., III-A) averages
  latency; ``aspl_n2`` divides the same sum by ``N^2`` instead, counting the ``N``
  zero-length pairs ``(v, v)``.  The layout-conscious random topologies paper (Koibuchi
  et al.) reports the ``N^2`` figure: its Table 1 gives ASPL 8.00 for TORUS-4 at 256
  switches (a 16 x 16 torus), which is ``aspl_n2``; ``aspl`` is 8.03 there;
* the diameter is the largest eccentricity.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError
from ..topology import Topology, as_topology

__all__ = ["HopStats", "distance_stats", "hop_matrix", "sample_sources"]

_WORD = 64
#: Gathered words per chunk of the level step (bounds the temporary buffer to ~16 MB).
_CHUNK_ENTRIES = 1 << 21


# --------------------------------------------------------------------------- popcount
if hasattr(np, "bitwise_count"):  # numpy >= 2.0

    def _popcount_total(words: np.ndarray) -> int:
        return int(np.bitwise_count(words).sum(dtype=np.int64))

else:  # pragma: no cover - exercised only on numpy < 2
    _BYTE_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def _popcount_total(words: np.ndarray) -> int:
        return int(_BYTE_POP[np.ascontiguousarray(words).view(np.uint8)].sum(dtype=np.int64))


def _bit_counts(words: np.ndarray) -> np.ndarray:
    """Number of set bits at each bit position: ``(W, N)`` words -> ``(W * 64,)`` counts
    (entry ``64 * w + j`` counts bit ``j`` of word row ``w``)."""
    w = words.shape[0]
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(w, -1, 8)
    bits = np.unpackbits(as_bytes, axis=2, bitorder="little")  # (W, N, 64)
    return bits.sum(axis=1, dtype=np.int64).reshape(-1)


def _unpack_rows(words: np.ndarray, count: int) -> np.ndarray:
    """``(W, N)`` words -> ``(count, N)`` booleans, row ``i`` = bit ``i % 64`` of word ``i // 64``."""
    w, n = words.shape
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(w, n, 8)
    bits = np.unpackbits(as_bytes, axis=2, bitorder="little")  # (W, N, 64)
    return bits.transpose(0, 2, 1).reshape(w * _WORD, n)[:count].astype(bool)


# --------------------------------------------------------------------------- BFS core
class _CSRPlan:
    """The CSR arrays arranged for the level step: row chunks of bounded size, rows of
    degree 0 left out of the reduction (``reduceat`` mishandles empty segments)."""

    def __init__(self, topology: Topology):
        m = topology.csr()
        self.n = topology.num_switches
        indptr = m.indptr.astype(np.intp)
        self.indices = m.indices.astype(np.intp)
        deg = np.diff(indptr)
        self.rows_all = bool((deg > 0).all())
        self.chunks = []  # (row0, row1, entry0, entry1, local starts of non-empty rows, their rows)
        row0 = 0
        while row0 < self.n:
            # largest row1 with entries(row0, row1) <= _CHUNK_ENTRIES (at least one row)
            row1 = int(np.searchsorted(indptr, indptr[row0] + _CHUNK_ENTRIES, side="right")) - 1
            row1 = min(max(row1, row0 + 1), self.n)
            e0, e1 = int(indptr[row0]), int(indptr[row1])
            rows = np.arange(row0, row1)
            rows = rows[deg[row0:row1] > 0]
            starts = (indptr[rows] - e0).astype(np.intp)
            self.chunks.append((row0, row1, e0, e1, starts, rows))
            row0 = row1

    def step(self, frontier: np.ndarray, out: np.ndarray, buf: np.ndarray) -> None:
        """``out[:, v] = OR of frontier[:, u] over neighbours u of v``."""
        for row0, row1, e0, e1, starts, rows in self.chunks:
            if e1 == e0:
                out[:, row0:row1] = 0
                continue
            g = buf[:, : e1 - e0]
            np.take(frontier, self.indices[e0:e1], axis=1, out=g)
            if len(rows) == row1 - row0:
                np.bitwise_or.reduceat(g, starts, axis=1, out=out[:, row0:row1])
            else:
                out[:, row0:row1] = 0
                out[:, rows] = np.bitwise_or.reduceat(g, starts, axis=1)

    def buffer(self, words: int) -> np.ndarray:
        biggest = max((e1 - e0 for _, _, e0, e1, _, _ in self.chunks), default=0)
        return np.empty((words, max(biggest, 1)), dtype=np.uint64)


def _seed_words(sources: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Initial frontier of a block of sources and the word of each source's bit."""
    b = len(sources)
    words = -(-b // _WORD)
    frontier = np.zeros((words, n), dtype=np.uint64)
    idx = np.arange(b)
    bits = np.left_shift(np.uint64(1), (idx % _WORD).astype(np.uint64))
    np.bitwise_or.at(frontier, (idx // _WORD, sources), bits)
    full = np.full(words, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    last = b - _WORD * (words - 1)
    if last < _WORD:
        full[-1] = np.uint64((1 << last) - 1)
    return frontier, full


def _bfs_block(plan: _CSRPlan, sources: np.ndarray, *, per_source: bool = False,
               record=None) -> tuple[list[int], np.ndarray | None, bool]:
    """Bit-parallel BFS from a block of sources.

    Returns the number of (source, switch) pairs first reached at each level
    (level 0 excluded), the sum of distances of each source (if ``per_source``) and
    whether every source reached every switch.  ``record(level, new_words)`` is called
    on each level's newly reached words (used by :func:`hop_matrix`).
    """
    n = plan.n
    frontier, full = _seed_words(sources, n)
    visited = frontier.copy()
    nxt = np.empty_like(frontier)
    buf = plan.buffer(frontier.shape[0])
    counts: list[int] = []
    sums = np.zeros(len(sources), dtype=np.int64) if per_source else None
    level = 0
    complete = bool((visited == full[:, None]).all())
    while not complete:
        plan.step(frontier, nxt, buf)
        np.bitwise_and(nxt, np.invert(visited), out=nxt)
        c = _popcount_total(nxt)
        if c == 0:
            break
        level += 1
        counts.append(c)
        if sums is not None:
            sums += level * _bit_counts(nxt)[: len(sources)]
        if record is not None:
            record(level, nxt)
        np.bitwise_or(visited, nxt, out=visited)
        frontier, nxt = nxt, frontier
        complete = bool((visited == full[:, None]).all())
    return counts, sums, complete


def _workers(workers: int | None, jobs: int) -> int:
    if workers is None:
        try:
            workers = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - non-Linux
            workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ParameterError(f"workers must be a positive integer or None, got {workers!r}")
    return max(1, min(int(workers), jobs))


def _choose_sources(n: int, sources, sample, seed) -> tuple[np.ndarray, bool, str, int | None]:
    """(sources, all_sources, how, seed) for the sources/sample arguments."""
    if sources is not None and sample is not None:
        raise ParameterError("give either sources or sample, not both")
    if sample is not None:
        if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1:
            raise ParameterError(f"sample must be a positive number of sources, got {sample!r}")
        seed = resolve_seed(seed)
        if sample >= n:
            return np.arange(n, dtype=np.intp), True, "sample", seed
        picked = make_rng(seed).choice(n, size=int(sample), replace=False)
        return np.sort(picked).astype(np.intp), False, "sample", seed
    if sources is None:
        return np.arange(n, dtype=np.intp), True, "all", None
    src = np.asarray(sources)
    if src.ndim == 0:
        src = src.reshape(1)
    if src.ndim != 1 or len(src) == 0 or not np.issubdtype(src.dtype, np.integer):
        raise ParameterError("sources must be a non-empty 1-D list of switch ids")
    if src.min() < 0 or src.max() >= n:
        raise ParameterError(f"sources must be switch ids in [0, {n - 1}]")
    src = np.unique(src).astype(np.intp)
    return src, len(src) == n, "given", None


def sample_sources(n: int, sample: int, seed) -> np.ndarray:
    """The sources :func:`distance_stats` uses for ``sample=sample, seed=seed`` on ``n``
    switches (sorted switch ids; every switch when ``sample >= n``).

    Raises
    ------
    ParameterError
        If ``sample`` is not a positive integer or ``seed`` is not a valid seed.
    """
    return _choose_sources(int(n), None, sample, seed)[0]


def _sample_stderr(per_source_mean: np.ndarray, population: int) -> float:
    """Standard error of the mean of a simple random sample drawn without replacement,
    with the finite-population correction (0 when the whole population is sampled)."""
    k = len(per_source_mean)
    if k < 2 or k >= population:
        return 0.0 if k >= population else math.nan
    sd = float(np.std(per_source_mean, ddof=1))
    return sd / math.sqrt(k) * math.sqrt((population - k) / (population - 1))


# --------------------------------------------------------------------------- public API
@dataclass(frozen=True)
class HopStats:
    """Hop-distance statistics of a topology (see :func:`distance_stats`).

    Attributes
    ----------
    diameter : int
        Largest eccentricity over the sources used.  When ``exact`` is False this is a
        **lower bound** on the true diameter (see :attr:`diameter_is_lower_bound`).
    aspl : float
        Mean hop distance over ordered pairs ``(s, t)``, ``s`` a source used, ``t != s``:
        the sum divided by ``k (N - 1)`` for ``k`` sources (``N (N - 1)`` when exact).
    aspl_n2 : float
        The same sum divided by ``k N`` (``N^2`` when exact): the convention that counts
        the zero-length pairs ``(v, v)``.
    pairs : int
        Number of ordered pairs of distinct switches counted, ``k (N - 1)``.
    exact : bool
        True when every switch was a source (all ``N (N - 1)`` pairs).
    stderr : float
        Standard error of ``aspl`` as an estimate of the all-pairs value when the sources
        are a random sample (finite-population corrected); 0 when exact, NaN for a
        hand-picked ``sources`` list (no sampling model) or a sample of one.
    histogram : ndarray of int64
        ``histogram[d]`` = number of counted pairs at distance ``d`` (so
        ``histogram[0] == 0``); length ``diameter + 1``.
    sources : int
        Number of sources ``k`` used.
    seed : int or None
        Seed of the random sample (None when not sampled).
    """

    diameter: int
    aspl: float
    aspl_n2: float
    pairs: int
    exact: bool
    stderr: float
    histogram: np.ndarray = field(repr=False)
    sources: int = 0
    seed: int | None = None

    @property
    def diameter_is_lower_bound(self) -> bool:
        """True when not all switches were sources: the true diameter may be larger."""
        return not self.exact

    def to_dict(self) -> dict:
        return {
            "diameter": self.diameter,
            "aspl": self.aspl,
            "aspl_n2": self.aspl_n2,
            "pairs": self.pairs,
            "exact": self.exact,
            "stderr": self.stderr,
            "histogram": [int(x) for x in self.histogram],
            "sources": self.sources,
            "seed": self.seed,
        }


def distance_stats(topology, *, sources=None, sample: int | None = None, seed=None,
                   workers: int | None = None, words: int = 1) -> HopStats:
    """Diameter, average shortest path length and distance histogram in hops.

    Parameters
    ----------
    topology : Topology or Layout
        A connected topology (a Layout's topology is used).
    sources : array_like of int, optional
        Measure only from these switches (pairs ``(s, t)``, ``s`` in ``sources``).
    sample : int, optional
        Measure from ``sample`` switches drawn uniformly at random without replacement
        (seeded by ``seed``); ``aspl`` is then an unbiased estimate with standard error
        ``stderr`` and ``diameter`` a lower bound.  ``sample >= N`` gives the exact answer.
    seed : int, optional
        Seed of the sample (drawn and recorded in the result when None).
    workers : int, optional
        Threads running blocks of sources (default: the CPUs available to the process).
        The result does not depend on it.
    words : int
        Words of 64 sources per block (memory ``~ 3 * words * N * 8`` bytes per thread
        plus one gather chunk of at most ``words * 2**21 * 8`` bytes).

    Returns
    -------
    HopStats

    Raises
    ------
    TopologyError
        If the topology is disconnected (distances would be infinite).
    ParameterError
        For invalid ``sources``, ``sample``, ``workers`` or ``words``.

    Notes
    -----
    Distances are switch-to-switch hop counts as in Skywalk (Fujiwara et al.) Section
    III and the layout-conscious random topologies paper (Koibuchi et al.) Section III.
    ``aspl`` averages over the ``N(N-1)`` ordered pairs of distinct switches (Skywalk's
    pairs); ``aspl_n2`` over ``N^2`` pairs, which is what Koibuchi et al. Table 1 reports
    (16 x 16 torus: 8.00 = ``aspl_n2``, while ``aspl`` = 8.03).
    The search is a bit-parallel BFS (64 sources per machine word), exact in integers.
    A single switch has diameter 0 and, having no pairs, ``aspl = aspl_n2 = 0``.
    """
    topology = as_topology(topology)
    n = topology.num_switches
    if isinstance(words, bool) or not isinstance(words, (int, np.integer)) or words < 1:
        raise ParameterError(f"words must be a positive integer, got {words!r}")
    src, all_sources, how, seed = _choose_sources(n, sources, sample, seed)
    topology.require_connected("distance_stats")
    k = len(src)
    per_source = how == "sample" and not all_sources
    if n == 1:
        return HopStats(0, 0.0, 0.0, 0, True, 0.0, np.zeros(1, dtype=np.int64), k, seed)
    plan = _CSRPlan(topology)
    block = _WORD * int(words)
    blocks = [src[i : i + block] for i in range(0, k, block)]

    def run(b):
        return _bfs_block(plan, b, per_source=per_source)

    nworkers = _workers(workers, len(blocks))
    if nworkers == 1:
        results = [run(b) for b in blocks]
    else:
        with ThreadPoolExecutor(nworkers) as ex:
            results = list(ex.map(run, blocks))
    depth = max(len(c) for c, _, _ in results)
    hist = np.zeros(depth + 1, dtype=np.int64)
    for counts, _, _ in results:
        hist[1 : len(counts) + 1] += np.asarray(counts, dtype=np.int64)
    pairs = k * (n - 1)
    total = int((hist * np.arange(depth + 1)).sum())
    aspl = total / pairs
    aspl_n2 = total / (k * n)
    if all_sources:
        stderr = 0.0
    elif per_source:
        sums = np.concatenate([s for _, s, _ in results])
        stderr = _sample_stderr(sums / (n - 1), n)
    else:
        stderr = math.nan
    return HopStats(int(depth), float(aspl), float(aspl_n2), int(pairs), bool(all_sources),
                    float(stderr), hist, k, seed)


def hop_matrix(topology, sources) -> np.ndarray:
    """Hop distances from a block of sources to every switch.

    Parameters
    ----------
    topology : Topology or Layout
    sources : array_like of int
        Source switches (any order, repeats allowed); keep the block small, the result
        has ``len(sources) * N`` entries.

    Returns
    -------
    ndarray of shape (len(sources), N)
        ``int16`` when ``N < 32768``, else ``int32``; ``-1`` marks switches a source
        cannot reach (this function, unlike :func:`distance_stats`, accepts disconnected
        topologies).

    Raises
    ------
    ParameterError
        If a source is not a switch id.
    """
    topology = as_topology(topology)
    n = topology.num_switches
    src = np.asarray(sources)
    if src.ndim == 0:
        src = src.reshape(1)
    if src.ndim != 1 or (len(src) and not np.issubdtype(src.dtype, np.integer)):
        raise ParameterError("sources must be a 1-D list of switch ids")
    if len(src) and (src.min() < 0 or src.max() >= n):
        raise ParameterError(f"sources must be switch ids in [0, {n - 1}]")
    dtype = np.int16 if n < 32768 else np.int32
    out = np.full((len(src), n), -1, dtype=dtype)
    if len(src) == 0:
        return out
    plan = _CSRPlan(topology)
    block = _WORD * 4
    for i in range(0, len(src), block):
        b = src[i : i + block].astype(np.intp)
        rows = out[i : i + len(b)]
        rows[np.arange(len(b)), b] = 0

        def record(level, new, rows=rows, count=len(b)):
            rows[_unpack_rows(new, count)] = level

        _bfs_block(plan, b, record=record)
    return out
