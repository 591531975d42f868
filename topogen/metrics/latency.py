"""End-to-end latency of a laid-out topology under the Skywalk model.

The model (Skywalk, Fujiwara et al., Sections II-E and III-A):

* a packet from switch ``s`` to switch ``t`` along a path of ``h`` links spends the switch
  delay in each of the ``h + 1`` switches it traverses (60 ns in the paper from III-B on);
* each link adds its cable delay, 5 ns/m times the cable length of the :class:`Layout`
  (2 m inside a cabinet, Manhattan distance + 4 m between cabinets);
* injection and reception add 300 ns in all (150 ns at each end);

so ``latency = (h + 1) * switch_delay + sum(cable delays) + injection_delay``.  The
statistics are the maximum and the average over the ``N (N - 1)`` ordered pairs of
distinct switches (host links are not counted, as in Skywalk Fig. 1).

Routings (II-E):

``"fr"`` -- Fastest Routing
    the minimum-latency path (Dijkstra with edge weight ``switch_delay + link delay``).
    Among minimum-latency paths the one with the fewest hops is the one whose hops are
    reported.
``"nr"`` -- Nearest Routing
    a minimum-hop path.  The paper does not say which minimum-hop path; by default
    (``nr_tie="best"``) it is the one of lowest latency, the natural choice of a router
    that knows the cable lengths.  ``nr_tie="worst"`` takes the highest-latency
    minimum-hop path (an upper bound on any minimum-hop routing).

Exactness.  Both routings are lexicographic shortest paths, computed exactly with one
Dijkstra per source on an integer encoding of the two criteria.  Link delays are first
rounded to multiples of a power-of-two resolution ``q`` (reported as
``resolution_ns``: ``2**-24`` ns, the finest used, for networks of the papers' sizes --
checked on a 16,384-switch Skywalk -- and coarser only for enormous path spans), so every
path value is an integer below ``2**53`` and the float64 arithmetic of
:func:`scipy.sparse.csgraph.dijkstra` is exact.  FR uses ``latency_q * K + hops`` with
``K`` a power of two above any FR path's hop count; NR uses ``hops * M + latency_q``
(or ``hops * M - latency_q`` for ``"worst"``) with ``M`` above any minimum-hop path's
latency.  Reported latencies are therefore within ``hops * q / 2`` of the unrounded
sums (floor models whose delays are multiples of ``q``, such as Skywalk's 0.5 ns grid,
are reproduced exactly), and ties are true ties, never artefacts of rounding order.

Sources are processed in blocks.  The shortest paths run compiled (:mod:`topogen._sssp`,
numba, GIL released) on threads for large networks, each block folded into its maximum
and sums so that memory stays ``O(N + E)`` per thread.  The keys' primary field is a small
integer in the unit of the links' greatest common divisor (half-nanoseconds on the
Skywalk floor; hops for NR), so Dial's algorithm -- a circular array of buckets, one per
value -- replaces the heap (4-5x faster at 16,384 switches); a binary heap on the same
keys serves floors whose delays share no useful unit;
without numba, :func:`scipy.sparse.csgraph.dijkstra` runs on ``block x N`` float64 rows in
worker processes.  Small analyses (below :data:`COMPILED_MIN_WORK` relaxations, a few
hundred switches) also run on SciPy: loading numba and compiling or loading the kernels
costs seconds on a fresh machine, more than SciPy needs there.  Results depend neither on
the engine nor on the number of workers.
"""

from __future__ import annotations

import math
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from .._validate import check_float
from ..errors import ParameterError
from ..topology import Topology
from .hops import _bfs_block, _choose_sources, _CSRPlan, _sample_stderr, _workers

__all__ = ["LatencyStats", "latency_stats", "latency_matrix", "path_latency", "ROUTINGS", "NR_TIES"]

ROUTINGS = ("fr", "nr")
NR_TIES = ("best", "worst")
_EXACT = 2**53
_MAX_RESOLUTION_BITS = 24
#: Default block: about 2**22 float64 distances (32 MB) per block.
_BLOCK_ENTRIES = 1 << 22
_ENGINES = ("auto", "compiled", "buckets", "heap", "scipy")
#: Below this many relaxations (sources x directed links) one process is used.
_POOL_THRESHOLD = 2 * 10**8
#: ``engine="auto"`` runs the compiled kernels from this much work on (sources x (switches
#: + directed links)); below it SciPy's Dijkstra needs at most ~0.3 s of CPU, less than
#: importing numba and compiling (seconds, on a fresh machine) or loading the kernels.
COMPILED_MIN_WORK = 10**7
#: Decoding modes of the compiled kernels (the values of ``topogen._sssp.FR`` ...).
_FR, _NR_BEST, _NR_WORST = 0, 1, 2


def _numba_installed() -> bool:
    """Whether numba can be imported, without importing it (0.3 s of CPU)."""
    import importlib.util

    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


def _compiled():
    """The compiled kernels (:mod:`topogen._sssp`), imported on first use; None without
    numba."""
    if not _numba_installed():
        return None
    try:
        from .. import _sssp
    except ImportError:  # pragma: no cover - numba found but not importable
        return None
    return _sssp if _sssp.AVAILABLE else None


@dataclass(frozen=True)
class LatencyStats:
    """Latency statistics of a layout under one routing (see :func:`latency_stats`).

    Attributes
    ----------
    max : float
        Maximum latency in ns over the counted pairs (a lower bound when not ``exact``).
    avg : float
        Average latency in ns over the counted ordered pairs of distinct switches.
    max_hops : int
        Largest hop count of the chosen paths.
    avg_hops : float
        Average hop count of the chosen paths.
    routing : str
        ``"fr"`` or ``"nr"``.
    switch_delay : float
        Switch delay in ns.
    pairs : int
        Ordered pairs counted, ``k (N - 1)`` for ``k`` sources.
    exact : bool
        True when all switches were sources.
    stderr : float
        Standard error of ``avg`` when the sources are a random sample (finite-population
        corrected), 0 when exact, NaN for hand-picked sources.
    injection_delay : float
        Injection + reception delay in ns.
    nr_tie : str or None
        Tie rule among minimum-hop paths (NR only).
    resolution_ns : float
        The delay rounding quantum ``q`` of the exact integer encoding.
    sources : int
        Number of sources ``k``.
    seed : int or None
        Seed of the random sample.
    """

    max: float
    avg: float
    max_hops: int
    avg_hops: float
    routing: str
    switch_delay: float
    pairs: int
    exact: bool
    stderr: float
    injection_delay: float = 300.0
    nr_tie: str | None = None
    resolution_ns: float = 0.0
    sources: int = 0
    seed: int | None = None

    @property
    def max_is_lower_bound(self) -> bool:
        """True when not all switches were sources: the true maximum may be larger."""
        return not self.exact

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


# --------------------------------------------------------------------------- encoding
@dataclass(frozen=True)
class _Encoding:
    routing: str
    nr_tie: str | None
    shift: int  # log2 of K (fr) or M (nr)
    q: float  # resolution in ns
    weights: np.ndarray  # float64 per directed CSR entry (integers)
    hop_bound: int = 0  # bound on the hop diameter used for the encoding


def _layout_parts(layout):
    topology = getattr(layout, "topology", None)
    if isinstance(layout, Topology) or not isinstance(topology, Topology):
        raise ParameterError(
            "latency needs a Layout (cable lengths); place the topology first, e.g. "
            "topogen.layout.default_layout(topology)"
        )
    return topology


def _check_routing(routing: str, nr_tie: str) -> tuple[str, str | None]:
    r = str(routing).lower()
    if r not in ROUTINGS:
        raise ParameterError(f"routing must be one of {', '.join(ROUTINGS)}, got {routing!r}")
    t = str(nr_tie).lower()
    if t not in NR_TIES:
        raise ParameterError(f"nr_tie must be one of {', '.join(NR_TIES)}, got {nr_tie!r}")
    return r, (t if r == "nr" else None)


def _pow2_above(x: int) -> int:
    """Exponent of the smallest power of two strictly greater than ``x >= 0``."""
    return int(x).bit_length()


def _encode(topology: Topology, link_ns: np.ndarray, routing: str, nr_tie: str | None) -> _Encoding:
    """Choose the resolution and build the integer-valued directed weights."""
    n = topology.num_switches
    # Hop diameter bound: D <= 2 * ecc(0) (and <= N - 1).
    levels, _, _ = _bfs_block(_CSRPlan(topology), np.zeros(1, dtype=np.intp))
    hop_bound = max(1, min(n - 1, 2 * len(levels)))
    w_max, w_min = float(link_ns.max()), float(link_ns.min())
    chosen = None
    for bits in range(_MAX_RESOLUTION_BITS, -64, -1):
        scale = math.ldexp(1.0, bits)
        wq_max = int(math.ceil(w_max * scale))
        wq_min = int(round(w_min * scale))
        if routing == "fr":
            lat_bound = hop_bound * wq_max  # min latency <= latency of a min-hop path
            h = n - 1 if wq_min == 0 else min(n - 1, lat_bound // wq_min)
            shift = _pow2_above(h)
            top = (lat_bound + wq_max + 1) * (1 << shift) + (1 << shift)
        else:
            span = (hop_bound + 1) * wq_max if nr_tie == "worst" else hop_bound * wq_max
            shift = _pow2_above(span)
            top = (hop_bound + 3) * (1 << shift)
        if top < _EXACT:
            chosen = (bits, shift)
            break
    if chosen is None:  # pragma: no cover - needs astronomically long paths
        raise ParameterError("latencies span too wide a range for exact integer arithmetic")
    bits, shift = chosen
    wq = np.rint(link_ns * math.ldexp(1.0, bits))
    big = float(1 << shift)
    if routing == "fr":
        w = wq * big + 1.0
    elif nr_tie == "best":
        w = big + wq
    else:
        w = big - wq
    directed = w[topology.directed_edge_ids]
    return _Encoding(routing, nr_tie, shift, math.ldexp(1.0, -bits), directed, hop_bound)


def _decode(values: np.ndarray, enc: _Encoding) -> tuple[np.ndarray, np.ndarray]:
    """Dijkstra distances -> (latency in units of q, hops), both int64."""
    v = values.astype(np.int64)
    mask = (1 << enc.shift) - 1
    if enc.routing == "fr":
        return v >> enc.shift, v & mask
    if enc.nr_tie == "best":
        return v & mask, v >> enc.shift
    hops = (v + mask) >> enc.shift
    return (hops << enc.shift) - v, hops


# --------------------------------------------------------------------------- block work
class _Job:
    def __init__(self, n, indices, indptr, enc: _Encoding, engine: str = "scipy"):
        self.graph = sp.csr_matrix((enc.weights, indices, indptr), shape=(n, n))
        self.enc = enc
        self.mode = _FR if enc.routing == "fr" else (_NR_BEST if enc.nr_tie == "best" else _NR_WORST)
        self.int_weights = enc.weights.astype(np.int64)
        self.plan = None
        if engine in ("auto", "compiled", "buckets"):
            from .. import _sssp

            self.plan = _sssp.bucket_plan(indptr, indices, self.int_weights, enc.shift,
                                          self.mode, enc.hop_bound)
            if self.plan is None and engine == "buckets":
                raise ParameterError(
                    "engine='buckets' needs link latencies that are positive multiples of a "
                    "common unit spanning a modest range; use engine='auto'")

    def compiled_block(self, sources: np.ndarray):
        """:meth:`block` by the compiled kernels of :mod:`topogen._sssp` (no GIL): Dial's
        buckets when :attr:`plan` is set, else the binary-heap Dijkstra."""
        from .. import _sssp

        g = self.graph
        return _sssp.block_stats(g.indptr, g.indices, self.int_weights,
                                 np.asarray(sources, dtype=np.int32), self.enc.shift, self.mode,
                                 self.plan)

    def distances(self, sources: np.ndarray) -> np.ndarray:
        d = dijkstra(self.graph, directed=True, indices=sources)
        return np.atleast_2d(d)

    def block(self, sources: np.ndarray):
        lat_q, hops = _decode(self.distances(sources), self.enc)
        return (
            int(lat_q.max()),
            lat_q.sum(axis=1, dtype=np.float64),
            int(hops.max()),
            int(hops.sum(dtype=np.int64)),
        )


_WORKER_JOB: _Job | None = None


def _init_worker(n, indices, indptr, enc):
    global _WORKER_JOB
    _WORKER_JOB = _Job(n, indices, indptr, enc)


def _run_block(sources):
    return _WORKER_JOB.block(sources)


def _mp_context():
    """``fork`` on Linux: works from unguarded scripts and notebooks, and the workers
    inherit the graph without pickling.  ``spawn`` elsewhere (callers must then guard
    their main module with ``if __name__ == "__main__":``)."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")  # pragma: no cover


def _prepare(layout, switch_delay, injection_delay, routing, nr_tie):
    topology = _layout_parts(layout)
    switch_delay = check_float("switch_delay", switch_delay, 0.0)
    injection_delay = check_float("injection_delay", injection_delay, 0.0)
    routing, nr_tie = _check_routing(routing, nr_tie)
    topology.require_connected("latency_stats")
    if topology.num_links == 0:
        return topology, switch_delay, injection_delay, routing, nr_tie, None
    link_ns = switch_delay + np.asarray(layout.link_delay, dtype=np.float64)
    if not np.all(np.isfinite(link_ns)) or (link_ns < 0).any():
        raise ParameterError("link delays must be finite and non-negative")
    enc = _encode(topology, link_ns, routing, nr_tie)
    return topology, switch_delay, injection_delay, routing, nr_tie, enc


# --------------------------------------------------------------------------- public API
def latency_stats(layout, *, switch_delay: float = 60.0, routing: str = "fr",
                  injection_delay: float = 300.0, sample: int | None = None, seed=None,
                  block: int | None = None, nr_tie: str = "best", sources=None,
                  workers: int | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  engine: str = "auto") -> LatencyStats:
    """Maximum and average end-to-end latency under Fastest or Nearest Routing.

    Parameters
    ----------
    layout : Layout
        A connected topology placed on a floor (cable lengths and delays).
    switch_delay : float
        Delay of one switch in ns, paid at each of the ``hops + 1`` switches of a path
        (Skywalk uses 60 ns).
    routing : {"fr", "nr"}
        Fastest Routing (minimum latency; hops of the fewest-hop minimum-latency path)
        or Nearest Routing (minimum hops; see ``nr_tie``).
    injection_delay : float
        Injection + reception delay in ns (300 = 150 ns at each end).
    sample : int, optional
        Use this many source switches drawn uniformly without replacement (seeded);
        ``avg`` is then an estimate with standard error ``stderr`` and ``max`` a lower
        bound.  ``sample >= N`` is exact.
    seed : int, optional
        Seed of the sample (drawn and recorded when None).
    block : int, optional
        Sources per Dijkstra call (default: about ``2**22 / N``); bounds memory to a few
        ``block x N`` arrays per worker.
    nr_tie : {"best", "worst"}
        NR only: among minimum-hop paths take the lowest-latency (default) or the
        highest-latency one.
    sources : array_like of int, optional
        Hand-picked source switches (instead of all or a sample).
    workers : int, optional
        Worker processes; default: 1 for small networks (fewer than ``2e8`` source x
        link relaxations) or off Linux, otherwise the CPUs available (``fork`` start
        method).  The result does not depend on it.
    progress : callable, optional
        Called as ``progress(done_sources, total_sources)`` after each block.
    engine : {"auto", "compiled", "buckets", "heap", "scipy"}
        ``"auto"``: ``"compiled"`` when numba is importable and the analysis needs at
        least :data:`COMPILED_MIN_WORK` relaxations (sources x (switches + directed
        links)), else ``"scipy"``.  ``"compiled"``: the compiled kernels of
        :mod:`topogen._sssp` on threads -- Dial's algorithm (a bucket per latency value
        in the unit of the links' common divisor, half-nanoseconds on the Skywalk floor;
        one per hop for NR) when the latencies allow it, else a binary-heap Dijkstra;
        ``"buckets"`` and ``"heap"`` force one of them.  Without numba,
        :func:`scipy.sparse.csgraph.dijkstra` in processes; ``"scipy"`` forces it.  All
        are exact and give the same result.

    Returns
    -------
    LatencyStats

    Raises
    ------
    ParameterError
        For a Topology without layout, a negative delay, an unknown routing or tie
        rule, or invalid ``sample``/``sources``/``block``/``workers``.
    TopologyError
        If the topology is disconnected.

    Notes
    -----
    Skywalk (Fujiwara et al.) II-E defines NR and FR; III-A gives the latency model
    (5 ns/m cables, 300 ns injection/reception).  See the module docstring for the
    exact integer encoding and its resolution.
    """
    if engine not in _ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(_ENGINES)}, got {engine!r}")
    if engine in ("compiled", "buckets", "heap") and _compiled() is None:
        raise ParameterError(f"engine={engine!r} needs numba (pip install numba)")
    topology, switch_delay, injection_delay, routing, nr_tie, enc = _prepare(
        layout, switch_delay, injection_delay, routing, nr_tie)
    n = topology.num_switches
    src, all_sources, how, seed = _choose_sources(n, sources, sample, seed)
    k = len(src)
    if block is None:
        block = max(1, min(k, _BLOCK_ENTRIES // n))
    elif isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ParameterError(f"block must be a positive number of sources, got {block!r}")
    const = switch_delay + injection_delay
    if enc is None:  # a single switch: no pairs
        return LatencyStats(0.0, 0.0, 0, 0.0, routing, switch_delay, 0, True, 0.0,
                            injection_delay, nr_tie, 0.0, k, seed)
    blocks = [src[i : i + int(block)] for i in range(0, k, int(block))]
    m = topology.csr()
    indices, indptr = m.indices.astype(np.int32), m.indptr.astype(np.int32)
    if workers is None:
        work = k * len(indices)
        big = work >= _POOL_THRESHOLD and sys.platform.startswith("linux")
        workers = _workers(None, len(blocks)) if big else 1
    nworkers = _workers(workers, len(blocks))
    results = []
    done = 0
    if engine == "auto":
        small = k * (n + len(indices)) < COMPILED_MIN_WORK
        engine = "scipy" if small or _compiled() is None else "auto"
        if small:
            nworkers = 1  # a pool would cost more than the work
    if engine != "scipy":
        # compiled kernels: threads share the graph (the kernels release the GIL)
        job = _Job(n, indices, indptr, enc, engine)
        if nworkers == 1:
            mapped = map(job.compiled_block, blocks)
        else:
            pool = ThreadPoolExecutor(nworkers)
            mapped = pool.map(job.compiled_block, blocks)
        try:
            for b, r in zip(blocks, mapped):
                results.append(r)
                done += len(b)
                if progress is not None:
                    progress(done, k)
        finally:
            if nworkers > 1:
                pool.shutdown()
    elif nworkers == 1:
        job = _Job(n, indices, indptr, enc)
        for b in blocks:
            results.append(job.block(b))
            done += len(b)
            if progress is not None:
                progress(done, k)
    else:
        with ProcessPoolExecutor(nworkers, mp_context=_mp_context(), initializer=_init_worker,
                                 initargs=(n, indices, indptr, enc)) as ex:
            for b, r in zip(blocks, ex.map(_run_block, blocks)):
                results.append(r)
                done += len(b)
                if progress is not None:
                    progress(done, k)
    pairs = k * (n - 1)
    max_q = max(r[0] for r in results)
    per_source = np.concatenate([r[1] for r in results])
    total_q = float(per_source.sum())
    max_hops = max(r[2] for r in results)
    total_hops = sum(r[3] for r in results)
    q = enc.q
    avg = total_q * q / pairs + const
    if all_sources:
        stderr = 0.0
    elif how == "sample":
        stderr = _sample_stderr(per_source * q / (n - 1), n)
    else:
        stderr = math.nan
    return LatencyStats(
        max=float(max_q * q + const), avg=float(avg), max_hops=int(max_hops),
        avg_hops=float(total_hops / pairs), routing=routing, switch_delay=switch_delay,
        pairs=int(pairs), exact=bool(all_sources), stderr=float(stderr),
        injection_delay=injection_delay, nr_tie=nr_tie, resolution_ns=q, sources=k, seed=seed,
    )


def _timed_sources(layout, routing: str, switch_delay: float, warm, timed) -> float:
    """Seconds per source of :func:`latency_stats`'s default engine on one thread: the
    ``warm`` sources first (compilation, caches), then the ``timed`` ones
    (:mod:`topogen.metrics.effort`)."""
    import time

    topology, _, _, _, _, enc = _prepare(layout, switch_delay, 300.0, routing, "best")
    if enc is None or len(timed) == 0:
        return 0.0
    m = topology.csr()
    compiled = _compiled() is not None
    job = _Job(topology.num_switches, m.indices.astype(np.int32), m.indptr.astype(np.int32), enc,
               "auto" if compiled else "scipy")
    run = job.compiled_block if compiled else job.block
    run(np.asarray(warm, dtype=np.int32))
    start = time.perf_counter()
    run(np.asarray(timed, dtype=np.int32))
    return (time.perf_counter() - start) / len(timed)


def latency_matrix(layout, sources, *, switch_delay: float = 60.0, routing: str = "fr",
                   injection_delay: float = 300.0,
                   nr_tie: str = "best") -> tuple[np.ndarray, np.ndarray]:
    """Latency and hop count of the chosen path from each source to every switch.

    Parameters
    ----------
    layout : Layout
    sources : array_like of int
        A small block of source switches.
    switch_delay, routing, injection_delay, nr_tie
        As in :func:`latency_stats`.

    Returns
    -------
    latency : ndarray of float64, shape (len(sources), N)
        End-to-end latency in ns; 0 for the pair ``(s, s)``.
    hops : ndarray of int64, shape (len(sources), N)
        Hop count of the chosen path.
    """
    topology, switch_delay, injection_delay, routing, nr_tie, enc = _prepare(
        layout, switch_delay, injection_delay, routing, nr_tie)
    n = topology.num_switches
    src = np.atleast_1d(np.asarray(sources))
    if src.ndim != 1 or not np.issubdtype(src.dtype, np.integer) or (
            len(src) and (src.min() < 0 or src.max() >= n)):
        raise ParameterError(f"sources must be a 1-D list of switch ids in [0, {n - 1}]")
    if enc is None or len(src) == 0:
        return np.zeros((len(src), n)), np.zeros((len(src), n), dtype=np.int64)
    m = topology.csr()
    job = _Job(n, m.indices.astype(np.int32), m.indptr.astype(np.int32), enc)
    lat_q, hops = _decode(job.distances(src.astype(np.int32)), enc)
    lat = lat_q * enc.q + (switch_delay + injection_delay)
    lat[hops == 0] = 0.0
    return lat, hops


def path_latency(layout, path: Sequence[int], switch_delay: float = 60.0,
                 injection_delay: float = 300.0) -> float:
    """Latency in ns of one switch path under the Skywalk model (III-A).

    ``(len(path)) * switch_delay + sum of the cable delays of its links + injection_delay``,
    i.e. the switch delay is paid at each of the ``hops + 1`` switches.

    Parameters
    ----------
    layout : Layout
    path : sequence of int
        Switches visited, source first; consecutive switches must be linked.
    switch_delay, injection_delay : float
        As in :func:`latency_stats`.

    Raises
    ------
    ParameterError
        If the path is empty, names an unknown switch or uses a missing link.
    """
    topology = _layout_parts(layout)
    switch_delay = check_float("switch_delay", switch_delay, 0.0)
    injection_delay = check_float("injection_delay", injection_delay, 0.0)
    p = np.asarray(path)
    n = topology.num_switches
    if p.ndim != 1 or len(p) == 0 or not np.issubdtype(p.dtype, np.integer):
        raise ParameterError("path must be a non-empty list of switch ids")
    if p.min() < 0 or p.max() >= n:
        raise ParameterError(f"path switches must lie in [0, {n - 1}]")
    u = np.minimum(p[:-1], p[1:]).astype(np.int64)
    v = np.maximum(p[:-1], p[1:]).astype(np.int64)
    e = topology.edges
    keys = e[:, 0].astype(np.int64) * n + e[:, 1]
    want = u * n + v
    pos = np.searchsorted(keys, want)
    found = (pos < len(keys)) & (keys[np.minimum(pos, len(keys) - 1)] == want) if len(keys) else \
        np.zeros(len(want), dtype=bool)
    if not found.all():
        i = int(np.argmin(found))
        raise ParameterError(f"no link between switches {int(p[i])} and {int(p[i + 1])} on the path")
    cable = float(np.asarray(layout.link_delay, dtype=np.float64)[pos].sum())
    return len(p) * switch_delay + cable + injection_delay
