"""BookSim2 anynet's ``min`` routing, reproduced: :func:`booksim_min`.

BookSim2's ``anynet`` network (``src/networks/anynet.cpp``, ``AnyNet::route``) builds its
routing table once, at construction: for every source router ``s`` it runs a Dijkstra
search over the *directed* router-to-router channels weighted by their **latency in
cycles** (router delays play no part), and the table entry of ``s`` toward a destination
router ``d`` is the first hop of the path to ``d`` in the shortest-path tree of ``s``.  A
packet then follows, at each router ``v`` it reaches, ``v``'s own entry toward ``d``
(``min_anynet`` in the same file).

Which of several equal-latency paths the tree holds follows from how the search runs
(facts read from the source and checked on a real BookSim build, see
``tests/routing/test_booksim_min.py``):

* the unsettled routers are kept in a ``std::set<int>`` scanned in increasing id, and
  the scan keeps a router only if its distance is *strictly* smaller: among the routers
  at the least distance, the lowest id is settled first;
* a settled router relaxes its outgoing channels (a ``std::map`` keyed by neighbour id)
  with a strict ``<``: a router's predecessor is the first settled router that reached
  it at its final distance.

With positive latencies every router of distance ``L`` already holds ``L`` when the first
of them is settled, so routers are settled in increasing ``(distance, id)`` and the
predecessor of ``w`` in the tree of ``s`` is, among its in-neighbours ``u`` on a shortest
path (``dist(s, u) + lat(u -> w) == dist(s, w)``), the one of **smallest**
``(dist(s, u), u)``.  That rule does not depend on the order of the netlist's lines or
tokens (both containers are ordered maps/sets), only on router ids and latencies.

:func:`booksim_min` runs one compiled Dial search per source (the predecessor and first
hop of each router found as it settles, ``O(E)`` per source); :func:`booksim_first_hops`
(and ``booksim_min`` without numba or on small networks) computes all trees of a block of sources at once:
SciPy's Dijkstra or a vectorised Bellman–Ford for the distances, one vectorised pass over
the in-links for the predecessors and pointer jumping (``log2`` of the tree depth passes)
for the first hops.

:func:`parse_watch_trace` reads the per-hop trace that BookSim writes for watched packets
(``watch_file`` / ``watch_packets`` with ``watch_out``): the routers each packet visited.
"""

from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from .. import sim_defaults
from .._validate import check_float, check_int
from ..errors import FormatError, ParameterError, TopologyError
from ..topology import Topology
from .base import TableRouting, csr_view

__all__ = ["booksim_min", "anynet_entry_latency", "booksim_first_hops", "parse_watch_trace",
           "observed_next_hops"]

#: Router clock period (ns) of topogen's BookSim export and ``topogen run booksim``
#: (``--clock-period``): link latency in cycles = ``ceil(link delay / period)``.
#: the shared clock of ``simulate``, ``run booksim`` and the BookSim export (2.667 ns)
DEFAULT_CLOCK_PERIOD_NS = sim_defaults.CYCLE_NS


def anynet_entry_latency(topology: Topology, layout=None, *, clock_period_ns: float | None = None,
                         latency=None) -> np.ndarray:
    """Latency in cycles of every directed link (CSR entry) as topogen's anynet export
    writes it.

    Parameters
    ----------
    topology : Topology
    layout : Layout, optional
        Link delays; the latency is ``ceil(delay / clock_period_ns)`` cycles, at least 1
        (:func:`topogen.sim_defaults.link_latency_cycles`).
    clock_period_ns : float, optional
        Router clock period (default :data:`DEFAULT_CLOCK_PERIOD_NS`).
    latency : array_like of int, optional
        Explicit latencies: one per link in ``topology.edges`` order (both directions) or
        shape ``(E, 2)`` for (u -> v, v -> u) with ``u < v``; overrides ``layout``.  With
        neither, every link takes 1 cycle (the export's default).

    Returns
    -------
    ndarray of int64, one value per CSR entry (``topology.csr()`` order)
    """
    e = topology.num_links
    if latency is None and layout is not None:
        from ..sim_defaults import link_latency_cycles

        latency = link_latency_cycles(
            layout, DEFAULT_CLOCK_PERIOD_NS if clock_period_ns is None else clock_period_ns)
    if latency is None:
        lat = np.ones((e, 2), dtype=np.int64)
    else:
        lat = np.asarray(latency)
        if lat.ndim == 1:
            lat = np.stack([lat, lat], axis=1)
        if lat.shape != (e, 2):
            raise ParameterError(f"latency must give one value per link ({e}) or per direction "
                                 f"({e}, 2), got shape {lat.shape}")
        f = lat.astype(float)
        if not np.all(np.isfinite(f)) or np.any(f != np.round(f)) or (f.size and f.min() < 1):
            raise ParameterError("BookSim link latencies must be whole numbers of cycles >= 1")
        lat = lat.astype(np.int64)
    view = csr_view(topology)
    eid = np.asarray(topology.directed_edge_ids, dtype=np.int64)
    forward = view.row < view.indices  # entry u -> w with u < w is edges[e] = (u, w)
    return np.where(forward, lat[eid, 0], lat[eid, 1])


#: ``method="auto"`` runs the compiled searches (:mod:`._booksim_rows`) from this much work
#: on (routers x (routers + directed links)); below it the vectorised block searches need
#: well under a second, less than importing numba and compiling or loading the kernel on
#: a fresh machine.  The tables are the same.
COMPILED_MIN_WORK = 4 * 10**6


def _compiled_pays(topology) -> bool:
    """Whether ``method="auto"`` takes the compiled searches (numba installed, work at
    least :data:`COMPILED_MIN_WORK`)."""
    n = topology.num_switches
    if n * (n + 2 * topology.num_links) < COMPILED_MIN_WORK:
        return False
    from .. import _sssp

    return _sssp.AVAILABLE


def _compiled_table(links, n: int, workers=None, block: int = 256, search: str = "auto"):
    """The ``(1, N, N)`` table by :func:`._booksim_rows._wide_rows` (``search`` "auto" where
    its window fits, or "wide") or :func:`._booksim_rows._tree_rows` ("dial"), threads over
    blocks of sources; the same table."""
    from concurrent.futures import ThreadPoolExecutor

    from ._booksim_rows import _tree_rows, _wide_rows
    from . import _rows
    from ._rows import _hop_bound, _workers

    view = links.view
    w = links.w
    rev = view.entry(view.indices, view.row)
    w_max = int(w.max())
    # distances stay below (hop diameter bound + 1) * w_max
    top = (_hop_bound(links.topology) + 2) * (w_max + 1)
    dtype = np.uint16 if top < (1 << 16) - 1 else np.uint32 if top < (1 << 31) else np.uint64
    vbits = max(1, int(n - 1).bit_length())
    adj_t = np.uint32 if vbits + w_max.bit_length() <= 32 else np.uint64
    adj = (view.indices.astype(np.uint64) | (w.astype(np.uint64) << np.uint64(vbits))).astype(adj_t)
    w_in = w[rev].astype(np.int64)
    sym = bool(np.array_equal(w, w[rev]))
    rev_rank = view.local_rank[rev].astype(view.rank_dtype)
    indptr = view.indptr
    buckets = 1 << w_max.bit_length()
    # bits of a link rank in the wide search's predecessor keys (latency << rbits | rank)
    rbits = max(1, int(np.diff(indptr).max(initial=1) - 1).bit_length())
    ranks = np.empty((1, n, n), dtype=view.rank_dtype)
    sent = view.rank_dtype(view.sentinel)
    block = min(block, 1 << 15)  # stamps are uint16 per source of a block
    if search not in ("auto", "dial", "wide"):
        raise ParameterError(f"search must be auto, dial or wide, got {search!r}")
    # (keys of latency << rbits | rank stay within 62 bits, else Dial's search)
    wide = (None if search == "dial" or w_max.bit_length() + rbits > 62
            else _rows.wide_window(int(w.min()), w_max, n))
    if search == "wide" and wide is None:
        raise ParameterError(f"search='wide' needs a window of at most {_rows.WIDE_MAX_ENTRIES} "
                             "entries; use search='auto'")

    def job(s0):
        src = np.arange(s0, min(n, s0 + block), dtype=np.int64)
        dist = np.empty(n, dtype=dtype)
        if wide is not None:
            bad = _wide_rows(indptr, adj, np.int64(vbits), w_in, sym, rev_rank, src,
                             np.int64(wide[0]), np.int64(wide[1]),
                             ranks[0, s0:s0 + len(src)], sent, dist, np.int64(rbits))
        else:
            bad = _tree_rows(indptr, adj, np.int64(vbits), w_in, sym, rev_rank, src,
                             np.int64(buckets), ranks[0, s0:s0 + len(src)], sent, dist)
        if bad >= 0:
            raise TopologyError("BookSim anynet routing needs a connected topology (BookSim "
                                "itself hangs on a disconnected one)")

    starts = list(range(0, n, block))
    nw = min(_workers(workers), len(starts))
    if nw == 1:
        for s0 in starts:
            job(s0)
    else:
        with ThreadPoolExecutor(nw) as ex:
            list(ex.map(job, starts))
    return ranks


#: Bellman–Ford rounds worth one Dijkstra search per source, per unit of ``E / (R N)``
#: (directed links over padded table size); measured on random and torus networks.
_BF_BREAK_EVEN = 24


def _bf_distances(nbr_pad, lat_in, src, max_rounds, dtype, known=None):
    """Distances from a block of sources by vectorised Bellman–Ford, shape ``(N, B)``.

    Each round relaxes every router over all its in-links at once (gather, add, minimum
    per link rank); ``None`` if ``max_rounds`` rounds did not converge.  ``known``
    (``(lo, B)``) are the exact distances of routers ``0 .. lo-1``, which are then not
    relaxed.
    """
    n, r_count = nbr_pad.shape
    b = len(src)
    lo = 0 if known is None else len(known)
    inf = np.iinfo(dtype).max // 4
    d = np.full((n + 1, b), inf, dtype=dtype)  # row n = padding
    d[src, np.arange(b)] = 0
    if lo:
        d[:lo] = known
    m = n - lo
    best = np.empty((m, b), dtype=dtype)
    g = np.empty((m, b), dtype=dtype)
    lat = lat_in[lo:].astype(dtype)
    nbr = nbr_pad[lo:]
    for _ in range(max_rounds):
        best[:] = d[lo:n]
        for r in range(r_count):
            np.take(d, nbr[:, r], axis=0, out=g)
            g += lat[:, r:r + 1]
            np.minimum(best, g, out=best)
        if np.array_equal(best, d[lo:n]):
            return d[:n].copy()
        d[lo:n] = best
    return None


class _Links:
    """In-link arrays of a topology with BookSim latencies, shared by all source blocks."""

    def __init__(self, topology: Topology, entry_latency, cache: bool = True):
        view = csr_view(topology)
        self.view = view
        self.topology = topology
        n = self.n = view.n
        w = np.asarray(entry_latency, dtype=np.int64)
        if w.shape != view.indices.shape:
            raise ParameterError(f"entry_latency must give one value per directed link "
                                 f"({len(view.indices)}), got shape {w.shape}")
        self.w = w
        # in-links of v: its neighbours u (sorted ids, = nbr_pad[v]) with lat(u -> v), the
        # weight of the reverse entry of v's link to u; rev_rank = rank of v at u
        rev = view.entry(view.indices, view.row)
        r_count = self.r_count = view.nbr_pad.shape[1]
        self.lat_in = np.zeros((n, r_count), dtype=np.int64)
        self.lat_in[view.row, view.local_rank] = w[rev]
        self.rev_rank = np.zeros((n, r_count), dtype=np.int64)
        self.rev_rank[view.row, view.local_rank] = view.local_rank[rev]
        self.shift = max(1, int(r_count - 1).bit_length())
        # the longest shortest path is below n * w_max; keys are dist << shift | rank
        top = (n + 1) * (int(w.max()) + 1 if len(w) else 2) << (self.shift + 2)
        self.dtype = np.int32 if top < (1 << 31) else np.int64
        # symmetric latencies: dist(s, v) = dist(v, s), so rows of finished source blocks
        # are known distances for later blocks (an N x N cache, when it is not too big)
        self.symmetric = bool(np.array_equal(w, w[rev]))
        self.cache = None
        if cache and self.symmetric and n * n * np.dtype(self.dtype).itemsize <= _CACHE_BYTES:
            self.cache = np.empty((n, n), dtype=self.dtype)
        self.done = 0  # sources 0 .. done-1 have their rows in the cache

    def first_hops(self, src: np.ndarray, method: str, ranks: bool) -> np.ndarray:
        view, n, dtype, shift = self.view, self.n, self.dtype, self.shift
        b = len(src)
        cols = np.arange(b)
        dist = None
        if method != "dijkstra":
            budget = n + 1 if method == "bellman-ford" else max(
                4, int(_BF_BREAK_EVEN * len(self.w) / (max(self.r_count, 1) * max(n, 1))))
            known = None
            s0 = int(src[0]) if b else 0
            if (self.cache is not None and self.done and b and s0 <= self.done
                    and np.array_equal(src, np.arange(s0, s0 + b))):
                known = self.cache[:s0, s0:s0 + b]
            dist = _bf_distances(view.nbr_pad, self.lat_in, src, budget, dtype, known)
        if dist is None:
            a = sp.csr_matrix((self.w.astype(float), view.indices, view.indptr), shape=(n, n))
            dd = dijkstra(a, directed=True, indices=src)
            if not np.all(np.isfinite(dd)):
                raise TopologyError("BookSim anynet routing needs a connected topology "
                                    "(BookSim itself hangs on a disconnected one)")
            dist = np.ascontiguousarray(dd.T).astype(dtype)
        inf = np.iinfo(dtype).max // 4
        if np.any(dist >= inf):
            raise TopologyError("BookSim anynet routing needs a connected topology (BookSim "
                                "itself hangs on a disconnected one)")
        if self.cache is not None and b and int(src[0]) == self.done and \
                np.array_equal(src, np.arange(self.done, self.done + b)):
            self.cache[self.done:self.done + b] = dist.T
            self.done += b
        # predecessor of v: the in-neighbour u on a shortest path of least
        # (dist(s, u), u); ranks are in increasing neighbour id, so the key
        # dist(s, u) << shift | rank orders the same way
        dpad = np.empty((n + 1, b), dtype=dtype)
        dpad[:n] = dist
        dpad[n] = inf >> shift
        best = np.full((n, b), np.iinfo(dtype).max, dtype=dtype)
        du = np.empty((n, b), dtype=dtype)
        g = np.empty((n, b), dtype=dtype)
        tight = np.empty((n, b), dtype=bool)
        lat = self.lat_in.astype(dtype)
        for r in range(self.r_count):
            np.take(dpad, view.nbr_pad[:, r], axis=0, out=du)
            np.add(du, lat[:, r:r + 1], out=g)
            np.equal(g, dist, out=tight)
            np.left_shift(du, shift, out=du)
            du |= r
            np.minimum(best, du, out=g)
            np.copyto(best, g, where=tight)
        best[src, cols] = 0
        r_best = best & ((1 << shift) - 1)
        vv = np.arange(n)[:, None]
        parent = view.nbr_pad[vv, r_best].astype(dtype)
        parent[src, cols] = src
        # pointer jumping: a router whose parent is the source is its own first hop
        child = parent == src[None, :]
        hop = np.where(child, vv.astype(dtype), parent)
        while True:
            nxt = np.take_along_axis(hop, hop, axis=0)
            if np.array_equal(nxt, hop):
                break
            hop = nxt
        if ranks:
            first_rank = np.where(child, self.rev_rank[vv, r_best].astype(dtype), -1)
            hop = np.take_along_axis(first_rank, hop, axis=0)
        hop = hop.astype(np.int64)
        hop[src, cols] = -1
        return hop


_METHODS = ("auto", "dijkstra", "bellman-ford")

#: Largest distance cache (bytes) kept to reuse finished source blocks by symmetry.
_CACHE_BYTES = 1 << 30


def booksim_first_hops(topology: Topology, entry_latency, sources, *, method: str = "auto",
                       ranks: bool = False) -> np.ndarray:
    """First hop from each source toward every router in BookSim anynet's trees.

    Parameters
    ----------
    topology : Topology
        Connected.
    entry_latency : ndarray of int64
        Latency of every CSR entry (directed link), see :func:`anynet_entry_latency`.
    sources : array_like of int
        Source routers (a block).
    method : {"auto", "dijkstra", "bellman-ford"}
        How distances are found (the result is the same): SciPy's Dijkstra, or a
        vectorised Bellman–Ford (fast when shortest paths have few hops); ``"auto"``
        tries Bellman–Ford within a round budget and falls back to Dijkstra.
    ranks : bool
        Return link ranks at the source instead of router ids.

    Returns
    -------
    ndarray (N, B) of int64
        ``hops[d, b]``: the neighbour of ``sources[b]`` (or its link rank) on its path
        toward ``d``; ``-1`` at ``d == sources[b]``.
    """
    if method not in _METHODS:
        raise ParameterError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    src = np.asarray(sources, dtype=np.int64).ravel()
    return _Links(topology, entry_latency).first_hops(src, method, ranks)


def booksim_min(topology: Topology, layout=None, *, clock_period_ns: float | None = None,
                latency=None, block: int = 256, method: str = "auto") -> TableRouting:
    """BookSim2 anynet's ``min`` routing as a topogen table routing.

    Parameters
    ----------
    topology : Topology
        A connected topology (switches = BookSim routers, same ids).
    layout : Layout, optional
        Link delays, converted to cycles as topogen's BookSim export does
        (``ceil(delay / clock_period_ns)``, at least 1).  Without a layout and without
        ``latency`` every link takes 1 cycle, as in an export without a layout.
    clock_period_ns : float, optional
        Router clock period of the export (default :data:`topogen.sim_defaults.CYCLE_NS`,
        the default of ``topogen run booksim --clock-period`` and of
        :func:`topogen.export.booksim.export_booksim`).
    latency : array_like of int, optional
        Explicit link latencies in cycles, per link or ``(E, 2)`` per direction.
    block : int
        Source routers per vectorised block (memory about ``8 * block * N * 6`` bytes).
    method : {"auto", "dijkstra", "bellman-ford"}
        ``"auto"``: one compiled search per source router (:mod:`._booksim_rows`, numba;
        ``O(E)`` time and ``O(N + E)`` memory per source, rows written straight into the
        table) from :data:`COMPILED_MIN_WORK` on, else as :func:`booksim_first_hops` by
        blocks of sources; ``"dijkstra"`` /
        ``"bellman-ford"``: :func:`booksim_first_hops`.  The tables are identical.

    Returns
    -------
    TableRouting
        ``algorithm="booksim-min"``, one phase, VC rule ``"const"`` (VC 0), ``num_vcs=1``;
        ``entry_weight`` holds the latency of each directed link in cycles.

    Raises
    ------
    TopologyError
        If the topology is disconnected.
    ParameterError
        For latencies that are not whole numbers of cycles >= 1.

    Notes
    -----
    The route of every (router, destination) pair is the one BookSim2's ``AnyNet`` table
    gives (see the module docs for the rule and how it was checked): least total link
    latency, router delays ignored, and among equal paths the predecessor settled first by
    its Dijkstra search (lowest distance from the source, then lowest router id).  Routes
    are followed hop by hop from each router's own table, so they are loop-free; like
    BookSim's they are not deadlock-free on their own.

    References
    ----------
    .. [1] N. Jiang et al., "A detailed and flexible cycle-accurate network-on-chip
       simulator", ISPASS 2013 (BookSim 2.0); source ``src/networks/anynet.cpp``.
    """
    if not isinstance(topology, Topology):
        raise ParameterError(f"booksim-min routing needs a Topology, got {type(topology).__name__}")
    topology.require_connected("booksim-min routing")
    check_int("block", block, 1)
    clock = (DEFAULT_CLOCK_PERIOD_NS if clock_period_ns is None
             else check_float("clock_period_ns", clock_period_ns, 0.0, min_open=True))
    w = anynet_entry_latency(topology, layout, clock_period_ns=clock, latency=latency)
    if method not in _METHODS:
        raise ParameterError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    compiled = method == "auto" and _compiled_pays(topology)
    links = _Links(topology, w, cache=not compiled)
    view = links.view
    n = view.n
    if compiled:
        ranks = _compiled_table(links, n, block=block)
    else:
        ranks = np.empty((1, n, n), dtype=view.rank_dtype)
        for s0 in range(0, n, block):
            src = np.arange(s0, min(n, s0 + block), dtype=np.int64)
            r = links.first_hops(src, method, True)
            ranks[0, s0:s0 + len(src)] = np.where(r >= 0, r, view.sentinel).T.astype(view.rank_dtype)
    source = "explicit" if latency is not None else ("layout" if layout is not None else "unit")
    params = {"metric": "link latency (cycles)", "latency_source": source,
              "tie_rule": "BookSim anynet: earliest settled predecessor (distance, router id)"}
    if source == "layout":
        params["clock_period_ns"] = clock
    return TableRouting(topology, ranks, layout=layout, algorithm="booksim-min", params=params,
                        num_vcs=1, entry_weight=w)


# ---------------------------------------------------------------------------- BookSim traces

_RECEIVED = re.compile(r"^\d+ \| \S*?router_(\d+) \| Received flit (\d+) from channel")
_RETIRED = re.compile(r"^\d+ \| node(\d+) \| Retiring flit (\d+) \(packet (\d+), src = (\d+), "
                      r"dest = (\d+),")


def parse_watch_trace(lines) -> list[tuple[int, int, list[int]]]:
    """Routes of the watched packets in a BookSim watch trace.

    BookSim writes, for every flit it watches (``watch_file``, ``watch_packets`` or
    ``watch_flits``, with ``watch_out`` naming the file or ``-``), a line
    ``T | network_0/router_R | Received flit F from channel at input I.`` at every router
    the flit enters and ``T | nodeD | Retiring flit F (packet P, src = S, dest = D, ...``
    when it leaves the network.

    Parameters
    ----------
    lines : iterable of str

    Returns
    -------
    list of (src_node, dest_node, routers)
        One entry per retired head-or-single flit seen entering at least one router, in
        retirement order; ``routers`` lists the routers visited in order.

    Raises
    ------
    FormatError
        If a retired flit's destination node differs from the node it left at.
    """
    seen: dict[int, list[int]] = {}
    out = []
    for line in lines:
        if "| Received flit" in line:
            m = _RECEIVED.match(line)
            if m:
                seen.setdefault(int(m.group(2)), []).append(int(m.group(1)))
        elif "| Retiring flit" in line:
            m = _RETIRED.match(line)
            if m:
                node, fid, src, dst = (int(m.group(i)) for i in (1, 2, 4, 5))
                if node != dst:
                    raise FormatError(f"flit {fid} retired at node {node}, not its destination {dst}")
                path = seen.pop(fid, None)
                if path:
                    out.append((src, dst, path))
    return out


def observed_next_hops(routes, num_switches: int, node_router) -> np.ndarray:
    """The next-hop table that routes read back from a simulator reveal.

    Parameters
    ----------
    routes : iterable of (src_node, dest_node, routers)
        From :func:`parse_watch_trace`.
    num_switches : int
    node_router : array_like of int
        Router of each node.

    Returns
    -------
    ndarray (N, N) of int64
        ``table[v, d]``: the router after ``v`` on routes toward router ``d``; ``-1`` where
        no route passed (and on the diagonal).

    Raises
    ------
    FormatError
        If two routes disagree (the routing would not be destination-based) or a route
        does not start at its source's router or end at its destination's router.
    """
    n = int(num_switches)
    node_router = np.asarray(node_router, dtype=np.int64)
    table = np.full((n, n), -1, dtype=np.int64)
    for src, dst, path in routes:
        s, d = int(node_router[src]), int(node_router[dst])
        if path[0] != s or path[-1] != d:
            raise FormatError(f"route {path} of node {src} -> {dst} does not join routers {s} and {d}")
        for v, nxt in zip(path[:-1], path[1:]):
            if table[v, d] not in (-1, nxt):
                raise FormatError(f"router {v} sent packets toward router {d} to both "
                                  f"{int(table[v, d])} and {nxt}")
            table[v, d] = nxt
    return table
