"""Incremental evaluation of degree-preserving edge swaps.

A *move* removes two links ``(a, b), (c, d)`` and adds ``(a, c), (b, d)`` (or
``(a, d), (b, c)``): every switch keeps its degree.  After a move only the distance rows
of some sources can change, and which ones is decided exactly from the current distance
matrix ``D`` (symmetric, so row ``x`` holds the distances *to* ``x`` as well):

* an added link ``(x, y)`` of weight ``w`` changes the row of source ``s`` only if
  ``|D[s, x] - D[s, y]| > w`` (it is a shortcut for ``s``);
* a removed link ``(a, b)`` with ``D[s, b] = D[s, a] + w`` changes the row of ``s`` only
  if ``b`` keeps no other *tight* parent ``u`` (``D[s, u] + w(u, b) = D[s, b]``) among
  its neighbours once the removed links are gone.  If every such ``b`` keeps one, every
  old distance is still realised (induction on the distance), and removal cannot shorten
  a path, so the row is unchanged.

Only the affected sources are searched again.  For hop distances (every weight 1) the
search is a *bit-parallel* BFS: 64 sources travel in the bits of one ``uint64`` word per
switch, a level is an OR of the neighbours' frontier words -- the scheme of
:mod:`topogen.metrics.hops`, here compiled (numba, GIL released) over a fixed-width
adjacency array that a move edits in place, so that a candidate costs no CSR rebuild.
The totals of a candidate come from population counts; the distance rows are written
only when a move is accepted.  For latencies (Skywalk's model, integer quanta of
``2**-6`` ns) each affected source's row is updated in place by a dynamic
shortest-path search that visits only the switches whose distance changes (the binary
heap of :mod:`topogen._sssp`); a full compiled Dijkstra builds the first matrix.

Both evaluators keep the matrix ``D`` (``N^2`` bytes for hops, ``4 N^2`` for latency),
the sum and maximum of each row, and the totals; tests compare them with a full
recomputation (:func:`topogen.metrics.distance_stats`, :func:`topogen.metrics.latency_stats`)
after random move sequences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _sssp
from .._validate import check_memory
from ..errors import TopologyError
from ._kernels import kernel

__all__ = ["SwapGraph", "HopEvaluator", "LatencyEvaluator", "Candidate", "LATENCY_QUANTUM_NS"]

#: Resolution of the latency evaluator (ns): Skywalk's floor delays are multiples of 0.5 ns.
LATENCY_QUANTUM_NS = 2.0**-6
_UNREACHED = 255  # hop distance of a pair not (yet) reached
_FULL_BLOCK = 64 * 16  # sources per block of the full hop recomputation

if _sssp.AVAILABLE:
    _jit = _sssp._jit
    _push, _pop = _sssp._push, _sssp._pop
else:  # pragma: no cover - numba is a dependency; plain Python keeps the results
    def _jit(func):
        return func

    def _push(keys, nodes, size, key, node):
        i = size
        keys[i] = key
        nodes[i] = node
        while i > 0:
            parent = (i - 1) >> 1
            if keys[parent] <= key:
                break
            keys[i], nodes[i] = keys[parent], nodes[parent]
            i = parent
        keys[i], nodes[i] = key, node
        return size + 1

    def _pop(keys, nodes, size):
        size -= 1
        key, node = keys[size], nodes[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and keys[child + 1] < keys[child]:
                child += 1
            if keys[child] >= key:
                break
            keys[i], nodes[i] = keys[child], nodes[child]
            i = child
        if size > 0:
            keys[i], nodes[i] = key, node
        return size


# --------------------------------------------------------------------------- kernels
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DB_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DB_TABLE[((1 << _i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _i


@_jit
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@_jit
def _bit_bfs(adj, deg, sources, record, out):
    """Bit-parallel BFS from ``sources`` over the adjacency array.

    Returns ``(total, levels, complete)``: the sum of the distances of the sources to
    every switch, the largest distance (eccentricity), and whether every source reached
    every switch.  With ``record`` the distance of source ``i`` to ``v`` goes to
    ``out[i, v]`` (``out`` pre-filled with the unreached mark).
    """
    total, levels, status = _bit_bfs_bounded(adj, deg, sources, record, out, np.int64(-1), np.int64(-1),
                                             np.int64(0))
    return total, levels, status == 0


@_jit
def _bit_bfs_bounded(adj, deg, sources, record, out, max_total, max_level, total_from):
    """:func:`_bit_bfs` that gives up early: status 0 = complete, 1 = some switch is
    unreachable, 2 = stopped because a distance must exceed ``max_level`` (when >= 0),
    or because the sum of distances must exceed ``max_total`` (when >= 0; checked from
    level ``total_from`` on)."""
    n = adj.shape[0]
    k = sources.shape[0]
    words = (k + 63) // 64
    frontier = np.zeros((n, words), np.uint64)
    visited = np.zeros((n, words), np.uint64)
    nxt = np.zeros((n, words), np.uint64)
    one = np.uint64(1)
    for i in range(k):
        frontier[sources[i], i // 64] |= one << np.uint64(i % 64)
        visited[sources[i], i // 64] |= one << np.uint64(i % 64)
        if record:
            out[i, sources[i]] = 0
    target = np.int64(k) * n
    reached = np.int64(k)
    total = np.int64(0)
    level = 0
    acc = np.zeros(words, np.uint64)
    while reached < target:
        level += 1
        found = np.int64(0)
        for v in range(n):
            for w in range(words):
                acc[w] = 0
            for j in range(deg[v]):
                u = adj[v, j]
                for w in range(words):
                    acc[w] |= frontier[u, w]
            for w in range(words):
                x = acc[w] & ~visited[v, w]
                nxt[v, w] = x
                if x != 0:
                    found += _popcount(x)
                    if record:
                        base = w * 64
                        while x != 0:
                            low = x & (~x + one)
                            out[base + _DB_TABLE[np.int64((low * _DEBRUIJN) >> np.uint64(58))], v] = level
                            x ^= low
        if found == 0:
            return total, level - 1, 1
        reached += found
        total += found * level
        if reached < target:
            if max_level >= 0 and level >= max_level:
                return total, level, 2
            if max_total >= 0 and level >= total_from and total + (target - reached) * (level + 1) > max_total:
                return total, level, 2
        for v in range(n):
            for w in range(words):
                visited[v, w] |= nxt[v, w]
        frontier, nxt = nxt, frontier
    return total, level, 0


@_jit
def _is_added(u, w, add):
    for i in range(add.shape[0]):
        if (add[i, 0] == u and add[i, 1] == w) or (add[i, 0] == w and add[i, 1] == u):
            return True
    return False


@_jit
def _affected(dist, adj, deg, rem, add, wrem, wadd, cab, cabw, sw, flags):
    """Flag the sources whose distance rows a move may change (see the module notes).

    ``adj`` is the adjacency *after* the move; ``wrem``/``wadd`` the weights of the
    removed/added links; the weight of any other link ``(u, w)`` is
    ``sw + cabw[cab[u], cab[w]]`` (all ones with ``sw = 1`` and ``cabw`` zero).
    """
    n = dist.shape[0]
    count = 0
    for s in range(n):
        flags[s] = False
    for e in range(add.shape[0]):
        x, y, w = add[e, 0], add[e, 1], wadd[e]
        for s in range(n):
            if not flags[s]:
                diff = np.int64(dist[x, s]) - np.int64(dist[y, s])
                if diff > w or -diff > w:
                    flags[s] = True
                    count += 1
    for e in range(rem.shape[0]):
        a, b, w = rem[e, 0], rem[e, 1], wrem[e]
        for s in range(n):
            if flags[s]:
                continue
            da = np.int64(dist[a, s])
            db = np.int64(dist[b, s])
            if db == da + w:
                child, dc = b, db
            elif da == db + w:
                child, dc = a, da
            else:
                continue
            kept = False
            for j in range(deg[child]):
                u = adj[child, j]
                if _is_added(child, u, add):
                    continue
                if np.int64(dist[u, s]) + sw + cabw[cab[u], cab[child]] == dc:
                    kept = True
                    break
            if not kept:
                flags[s] = True
                count += 1
    return count


@_jit
def _dijkstra_rows(adj, deg, cab, cabw, sw, sources, out):
    """Latency rows (quanta) of ``sources`` into ``out``; returns whether all were reached."""
    n = adj.shape[0]
    inf = np.iinfo(np.int64).max
    dist = np.empty(n, np.int64)
    cap = adj.shape[0] * adj.shape[1] + 1
    keys = np.empty(cap, np.int64)
    nodes = np.empty(cap, np.int32)
    for i in range(sources.shape[0]):
        s = sources[i]
        dist[:] = inf
        dist[s] = 0
        size = _push(keys, nodes, 0, np.int64(0), np.int32(s))
        while size > 0:
            key = keys[0]
            u = nodes[0]
            size = _pop(keys, nodes, size)
            if key != dist[u]:
                continue
            cu = cab[u]
            for j in range(deg[u]):
                v = adj[u, j]
                nd = key + sw + cabw[cu, cab[v]]
                if nd < dist[v]:
                    dist[v] = nd
                    size = _push(keys, nodes, size, nd, np.int32(v))
        for v in range(n):
            if dist[v] == inf:
                return False
            out[i, v] = dist[v]
    return True


@_jit
def _link_ns(cab, cabw, sw, u, v):
    return sw + cabw[cab[u], cab[v]]


@_jit
def _dynamic_rows(dist, adj, deg, cab, cabw, sw, sources, rem, add, out):
    """New latency rows of ``sources`` after a move, updated from their old rows.

    Per source: (1) the switches whose distance grows when the removed links go -- those
    all of whose tight parents are removed or themselves grow, found in increasing order
    of the old distance -- get their distance again from their unaffected neighbours and
    a Dijkstra among themselves; (2) the added links then lower distances by a Dijkstra
    from their ends.  Only the changed region is searched (dynamic shortest paths).
    Returns False if some switch becomes unreachable.
    """
    n = adj.shape[0]
    inf = np.int64(1) << np.int64(62)
    cap = adj.shape[0] * adj.shape[1] + 2 * n + 8
    keys = np.empty(cap, np.int64)
    nodes = np.empty(cap, np.int32)
    state = np.zeros(n, np.int8)  # 0 untouched, 1 queued, 2 grows, 3 keeps its distance
    touched = np.empty(n, np.int32)
    for i in range(sources.shape[0]):
        s = sources[i]
        row = out[i]
        for v in range(n):
            row[v] = dist[s, v]
        nt = 0
        size = 0
        for e in range(rem.shape[0]):
            a, b = rem[e, 0], rem[e, 1]
            w = _link_ns(cab, cabw, sw, a, b)
            if row[b] == row[a] + w:
                c = b
            elif row[a] == row[b] + w:
                c = a
            else:
                continue
            if state[c] == 0:
                state[c] = 1
                touched[nt] = c
                nt += 1
                size = _push(keys, nodes, size, row[c], np.int32(c))
        grown = 0
        while size > 0:
            v = nodes[0]
            size = _pop(keys, nodes, size)
            kept = False
            for j in range(deg[v]):
                u = adj[v, j]
                if state[u] != 2 and not _is_added(v, u, add) and \
                        row[u] + _link_ns(cab, cabw, sw, u, v) == row[v]:
                    kept = True
                    break
            if kept:
                state[v] = 3
                continue
            state[v] = 2
            grown += 1
            for j in range(deg[v]):
                c = adj[v, j]
                if state[c] == 0 and not _is_added(v, c, add) and \
                        row[v] + _link_ns(cab, cabw, sw, v, c) == row[c]:
                    state[c] = 1
                    touched[nt] = c
                    nt += 1
                    size = _push(keys, nodes, size, row[c], np.int32(c))
        if grown:
            size = 0
            for t in range(nt):
                v = touched[t]
                if state[v] != 2:
                    continue
                best = inf
                for j in range(deg[v]):
                    u = adj[v, j]
                    if state[u] != 2 and not _is_added(v, u, add):
                        x = row[u] + _link_ns(cab, cabw, sw, u, v)
                        if x < best:
                            best = x
                row[v] = best
                if best < inf:
                    size = _push(keys, nodes, size, best, np.int32(v))
            while size > 0:
                key = keys[0]
                v = nodes[0]
                size = _pop(keys, nodes, size)
                if key != row[v]:
                    continue
                for j in range(deg[v]):
                    c = adj[v, j]
                    if state[c] == 2 and not _is_added(v, c, add):
                        x = key + _link_ns(cab, cabw, sw, v, c)
                        if x < row[c]:
                            row[c] = x
                            size = _push(keys, nodes, size, x, np.int32(c))
        for t in range(nt):
            state[touched[t]] = 0
        size = 0
        for e in range(add.shape[0]):
            x, y = add[e, 0], add[e, 1]
            w = _link_ns(cab, cabw, sw, x, y)
            if row[x] + w < row[y]:
                row[y] = row[x] + w
                size = _push(keys, nodes, size, row[y], np.int32(y))
            elif row[y] + w < row[x]:
                row[x] = row[y] + w
                size = _push(keys, nodes, size, row[x], np.int32(x))
        while size > 0:
            key = keys[0]
            v = nodes[0]
            size = _pop(keys, nodes, size)
            if key != row[v]:
                continue
            for j in range(deg[v]):
                c = adj[v, j]
                x = key + _link_ns(cab, cabw, sw, v, c)
                if x < row[c]:
                    row[c] = x
                    size = _push(keys, nodes, size, x, np.int32(c))
        for v in range(n):
            if row[v] >= inf:
                return False
    return True


@_jit
def _row_stats(rows, peak, sums, maxs, cnts):
    """Sum, maximum and pairs at ``peak`` of each row, in one pass."""
    for i in range(rows.shape[0]):
        total = np.int64(0)
        best = np.int64(0)
        cnt = np.int64(0)
        for v in range(rows.shape[1]):
            x = rows[i, v]
            total += x
            if x > best:
                best = x
            if x == peak:
                cnt += 1
        sums[i] = total
        maxs[i] = best
        cnts[i] = cnt


@_jit
def _write_rows(dist, src, rows):
    """``dist[s, :] = dist[:, s] = row`` for each source ``s`` and its new row."""
    for i in range(src.shape[0]):
        s = src[i]
        for v in range(rows.shape[1]):
            dist[s, v] = rows[i, v]
    for v in range(rows.shape[1]):  # columns row by row: each row of dist is touched once
        for i in range(src.shape[0]):
            dist[v, src[i]] = rows[i, v]


@_jit
def _max_except(rowmax, flags):
    best = 0
    for s in range(rowmax.shape[0]):
        if not flags[s] and rowmax[s] > best:
            best = rowmax[s]
    return best


# --------------------------------------------------------------------------- graph
class SwapGraph:
    """A graph as a fixed-width adjacency array that degree-preserving swaps edit in place.

    Parameters
    ----------
    num_switches : int
    edges : ndarray of shape (E, 2)
        Simple graph (no loops, no parallel links).
    """

    def __init__(self, num_switches: int, edges: np.ndarray):
        n = int(num_switches)
        edges = np.asarray(edges, dtype=np.int32).reshape(-1, 2)
        deg = np.bincount(edges.ravel(), minlength=n).astype(np.int32)
        width = max(1, int(deg.max()) if len(deg) else 1)
        adj = np.full((n, width), -1, dtype=np.int32)
        fill = np.zeros(n, dtype=np.int32)
        for u, v in edges:
            adj[u, fill[u]] = v
            fill[u] += 1
            adj[v, fill[v]] = u
            fill[v] += 1
        self.n = n
        self.adj = adj
        self.deg = deg
        self.edges = edges.copy()

    def has_edge(self, u: int, v: int) -> bool:
        row = self.adj[u, : self.deg[u]]
        return bool((row == v).any())

    def _replace(self, u: int, old: int, new: int) -> None:
        row = self.adj[u]
        j = int(np.flatnonzero(row[: self.deg[u]] == old)[0])
        row[j] = new

    def swap_links(self, i: int, j: int, variant: int):
        """The links a swap of links ``i`` and ``j`` removes and adds, or None when the
        swap is not allowed (shared end, or a link it would add exists already)."""
        a, b = (int(x) for x in self.edges[i])
        c, d = (int(x) for x in self.edges[j])
        if a == c or a == d or b == c or b == d:
            return None
        if variant:
            c, d = d, c
        if self.has_edge(a, c) or self.has_edge(b, d):
            return None
        rem = np.array([[a, b], [c, d]], dtype=np.int32)
        add = np.array([[a, c], [b, d]], dtype=np.int32)
        return rem, add

    def apply(self, i: int, j: int, rem: np.ndarray, add: np.ndarray) -> None:
        """Replace links ``i, j`` (``rem``) by ``add`` (from :meth:`swap_links`)."""
        (a, b), (c, d) = rem.tolist()
        self._replace(a, b, c)
        self._replace(b, a, d)
        self._replace(c, d, a)
        self._replace(d, c, b)
        self.edges[i] = sorted((a, c))
        self.edges[j] = sorted((b, d))

    def undo(self, i: int, j: int, rem: np.ndarray, add: np.ndarray) -> None:
        """Revert :meth:`apply`."""
        (a, b), (c, d) = rem.tolist()
        self._replace(a, c, b)
        self._replace(b, d, a)
        self._replace(c, a, d)
        self._replace(d, b, c)
        self.edges[i] = sorted((a, b))
        self.edges[j] = sorted((c, d))

    @staticmethod
    def edges_of(adj: np.ndarray, deg: np.ndarray) -> np.ndarray:
        """The links ``(u, v)``, ``u < v``, of an adjacency array, sorted."""
        n = adj.shape[0]
        u = np.repeat(np.arange(n, dtype=np.int32), deg)
        v = adj[np.arange(adj.shape[1])[None, :] < deg[:, None]].astype(np.int32)
        keep = u < v
        e = np.stack([u[keep], v[keep]], axis=1)
        return e[np.lexsort((e[:, 1], e[:, 0]))]

    def sync_edges(self) -> None:
        """Rebuild the link list from the adjacency array (after compiled edits of ``adj``)."""
        self.edges = self.edges_of(self.adj, self.deg)

    def sorted_edges(self) -> np.ndarray:
        e = np.sort(self.edges, axis=1)
        return e[np.lexsort((e[:, 1], e[:, 0]))]

    def is_connected(self) -> bool:
        total, _, complete = kernel(_bit_bfs)(self.adj, self.deg, np.zeros(1, dtype=np.int32), False,
                                      np.zeros((1, 1), np.uint8))
        return bool(complete)


@dataclass
class Candidate:
    """The figures of a graph after a move (not yet accepted)."""

    connected: bool
    peak: int  # hop diameter, or maximum latency in quanta
    total: int  # sum over ordered pairs
    sources: np.ndarray  # affected sources
    rows: np.ndarray | None = None  # their new rows (latency only)
    count: int = 0  # ordered pairs at the maximum (latency only)
    stats: tuple | None = None  # per new row: sum, maximum, pairs at the old maximum (latency only)


# --------------------------------------------------------------------------- evaluators
class _Evaluator:
    """Shared state: the distance matrix, per-row sums and maxima, and the totals."""

    def __init__(self, graph: SwapGraph):
        self.g = graph
        self.flags = np.zeros(graph.n, dtype=np.bool_)
        self._cab = np.zeros(graph.n, dtype=np.int32)
        self._cabw = np.zeros((1, 1), dtype=np.int64)
        self._sw = 1

    def _weights(self, links: np.ndarray) -> np.ndarray:
        return (self._sw + self._cabw[self._cab[links[:, 0]], self._cab[links[:, 1]]]).astype(np.int64)

    def affected(self, rem: np.ndarray, add: np.ndarray) -> np.ndarray:
        """Sources whose rows the applied move may change (adjacency already edited)."""
        kernel(_affected)(self.dist, self.g.adj, self.g.deg, rem, add, self._weights(rem),
                  self._weights(add), self._cab, self._cabw, np.int64(self._sw), self.flags)
        return np.flatnonzero(self.flags).astype(np.int32)

    def _finish(self, sources, rows_sum, rows_max):
        self.rowsum[sources] = rows_sum
        self.rowmax[sources] = rows_max
        self.total = int(self.rowsum.sum())
        self.peak = int(self.rowmax.max())


class HopEvaluator(_Evaluator):
    """Hop diameter (``peak``) and the sum of hop distances over ordered pairs (``total``).

    Raises
    ------
    TopologyError
        If the graph is disconnected.
    """

    def __init__(self, graph: SwapGraph):
        super().__init__(graph)
        n = graph.n
        check_memory("the hop distance matrix of the optimizer", float(n) * n * 2)
        self.dist = np.full((n, n), _UNREACHED, dtype=np.uint8)
        for s0 in range(0, n, _FULL_BLOCK):
            src = np.arange(s0, min(n, s0 + _FULL_BLOCK), dtype=np.int32)
            _, _, complete = kernel(_bit_bfs)(graph.adj, graph.deg, src, True, self.dist[s0:s0 + len(src)])
            if not complete:
                raise TopologyError("the topology to optimize is disconnected; start from a connected one")
        if self.dist.max() >= _UNREACHED:
            raise TopologyError(f"hop distances reach {_UNREACHED}; the optimizer keeps them in one byte")
        self.rowsum = self.dist.sum(axis=1, dtype=np.int64)
        self.rowmax = self.dist.max(axis=1).astype(np.int64)
        self.total = int(self.rowsum.sum())
        self.peak = int(self.rowmax.max())

    def evaluate(self, rem: np.ndarray, add: np.ndarray) -> Candidate:
        """Figures of the graph with the (already applied) move ``rem -> add``."""
        src = self.affected(rem, add)
        if len(src) == 0:
            return Candidate(True, self.peak, self.total, src)
        total, levels, complete = kernel(_bit_bfs)(self.g.adj, self.g.deg, src, False, self.dist[:1])
        if not complete:
            return Candidate(False, -1, -1, src)
        new_total = self.total - int(self.rowsum[src].sum()) + int(total)
        peak = max(int(levels), int(kernel(_max_except)(self.rowmax, self.flags)))
        return Candidate(True, peak, new_total, src)

    def commit(self, cand: Candidate) -> None:
        """Make the evaluated (and applied) move the current state."""
        src = cand.sources
        if len(src) == 0:
            return
        rows = np.full((len(src), self.g.n), _UNREACHED, dtype=np.uint8)
        kernel(_bit_bfs)(self.g.adj, self.g.deg, src, True, rows)
        self.dist[src, :] = rows
        self.dist[:, src] = rows.T
        self._finish(src, rows.sum(axis=1, dtype=np.int64), rows.max(axis=1).astype(np.int64))


class LatencyEvaluator(_Evaluator):
    """Fastest-routing latency under Skywalk's model, in quanta of
    :data:`LATENCY_QUANTUM_NS`: a path of ``h`` links costs ``h * switch_delay`` plus its
    cable delays (``peak`` = maximum over ordered pairs, ``total`` = their sum).  The
    end-to-end latency adds ``switch_delay + injection_delay`` to every pair.

    Parameters
    ----------
    graph : SwapGraph
    cabinet : ndarray of int
        Cabinet of each switch (fixed: moves rewire, they do not move switches).
    cable_ns : ndarray of shape (C, C)
        Cable delay between (switches in) two cabinets, ns.
    switch_delay : float
        ns per switch traversed.
    """

    def __init__(self, graph: SwapGraph, cabinet: np.ndarray, cable_ns: np.ndarray, switch_delay: float):
        super().__init__(graph)
        n = graph.n
        q = LATENCY_QUANTUM_NS
        self._cab = np.asarray(cabinet, dtype=np.int32)
        self._cabw = np.rint(np.asarray(cable_ns, dtype=np.float64) / q).astype(np.int64)
        self._sw = int(round(switch_delay / q))
        # 4-byte distances when no path can exceed them (half the memory traffic of a commit)
        longest = (n - 1) * (self._sw + int(self._cabw.max(initial=0)))
        dtype = np.int32 if longest < 2**31 - 1 else np.int64
        check_memory("the latency matrix of the optimizer", float(n) * n * np.dtype(dtype).itemsize)
        self.dist = np.zeros((n, n), dtype=dtype)
        src = np.arange(n, dtype=np.int32)
        if not kernel(_dijkstra_rows)(graph.adj, graph.deg, self._cab, self._cabw, np.int64(self._sw), src, self.dist):
            raise TopologyError("the topology to optimize is disconnected; start from a connected one")
        self.rowsum = self.dist.sum(axis=1, dtype=np.int64)
        self.rowmax = self.dist.max(axis=1).astype(np.int64)
        self.total = int(self.rowsum.sum())
        self.peak = int(self.rowmax.max())
        self._count_rows()

    def _count_rows(self):
        """Pairs of each row at the maximum (a finer ranking of equal maxima)."""
        self.rowcnt = (self.dist == self.peak).sum(axis=1)
        self.count = int(self.rowcnt.sum())

    def evaluate(self, rem: np.ndarray, add: np.ndarray) -> Candidate:
        src = self.affected(rem, add)
        if len(src) == 0:
            return Candidate(True, self.peak, self.total, src, count=self.count)
        rows = np.empty((len(src), self.g.n), dtype=np.int64)
        if not kernel(_dynamic_rows)(self.dist, self.g.adj, self.g.deg, self._cab, self._cabw, np.int64(self._sw),
                             src, rem, add, rows):
            return Candidate(False, -1, -1, src)
        k = len(src)
        sums, maxs, cnts = np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64)
        kernel(_row_stats)(rows, np.int64(self.peak), sums, maxs, cnts)
        new_total = self.total - int(self.rowsum[src].sum()) + int(sums.sum())
        peak = max(int(maxs.max()), int(kernel(_max_except)(self.rowmax, self.flags)))
        count = self.count - int(self.rowcnt[src].sum()) + int(cnts.sum())
        return Candidate(True, peak, new_total, src, rows, count if peak == self.peak else -1,
                         (sums, maxs, cnts))

    def commit(self, cand: Candidate) -> None:
        src = cand.sources
        if len(src) == 0:
            return
        rows = cand.rows
        kernel(_write_rows)(self.dist, src, rows)
        old_peak = self.peak
        sums, maxs, cnts = cand.stats
        self._finish(src, sums, maxs)
        if self.peak != old_peak:
            self._count_rows()
        else:
            self.rowcnt[src] = cnts
            self.count = cand.count
