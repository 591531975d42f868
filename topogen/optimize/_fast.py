"""The annealing loop of the hop objectives, compiled.

At a few hundred switches an incremental evaluation costs tens of microseconds, less than
the Python bookkeeping around it, so for hop distances the whole step (draw, checks,
swap, evaluation, acceptance, commit) runs in one compiled function over a batch of
random numbers drawn beforehand from the run's :class:`numpy.random.Generator` -- the
same steps, in the same order, as the Python loop of :func:`topogen.optimize.search.anneal`
runs for the latency objectives.  Batches are whole: a checkpoint falls between batches,
so a resumed run draws the same numbers as an uninterrupted one.
"""

from __future__ import annotations

import numpy as np

from .evaluate import _UNREACHED, _affected, _bit_bfs, _bit_bfs_bounded, _jit

# slots of the integer state vector
PEAK, TOTAL, CABLE, MOVES, ACCEPTED, BEST_PEAK, BEST_TOTAL, NHIST = range(8)


@_jit
def _has_edge(adj, deg, u, v):
    for j in range(deg[u]):
        if adj[u, j] == v:
            return True
    return False


@_jit
def _replace(adj, deg, u, old, new):
    for j in range(deg[u]):
        if adj[u, j] == old:
            adj[u, j] = new
            return


@_jit
def _swap(adj, deg, a, b, c, d):
    """Links (a, b), (c, d) -> (a, c), (b, d)."""
    _replace(adj, deg, a, b, c)
    _replace(adj, deg, b, a, d)
    _replace(adj, deg, c, d, a)
    _replace(adj, deg, d, c, b)


@_jit
def _better(lex, peak, total, best_peak, best_total):
    if lex:
        return peak < best_peak or (peak == best_peak and total < best_total)
    return total < best_total or (total == best_total and peak < best_peak)


@_jit
def anneal_batch(adj, deg, edges, dist, rowsum, rowmax, st, ri, rj, rv, ru, temp, lex,
                 cabinet, units, max_units, budget_units, max_moves, best_edges, hist):
    """Run the steps of one batch; ``st`` (int64 state vector) and the arrays are updated.

    ``hist`` (K, 4) receives ``(moves, peak, total, 0)`` at each new best while room is left.
    """
    n = adj.shape[0]
    flags = np.zeros(n, np.bool_)
    rem = np.empty((2, 2), np.int32)
    add = np.empty((2, 2), np.int32)
    ones = np.ones(2, np.int64)
    zcab = np.zeros(n, np.int32)
    zw = np.zeros((1, 1), np.int64)
    src = np.empty(n, np.int32)
    dummy = np.empty((1, 1), np.uint8)
    for t in range(ri.shape[0]):
        if max_moves > 0 and st[MOVES] >= max_moves:
            break
        i = ri[t]
        j = rj[t]
        if i == j:
            continue
        a, b = edges[i, 0], edges[i, 1]
        c, d = edges[j, 0], edges[j, 1]
        if a == c or a == d or b == c or b == d:
            continue
        if rv[t]:
            c, d = d, c
        if _has_edge(adj, deg, a, c) or _has_edge(adj, deg, b, d):
            continue
        new_cable = st[CABLE]
        if max_units >= 0 or budget_units >= 0:
            l1 = units[cabinet[a], cabinet[c]]
            l2 = units[cabinet[b], cabinet[d]]
            if max_units >= 0 and (l1 > max_units or l2 > max_units):
                continue
            new_cable = new_cable - units[cabinet[a], cabinet[b]] - units[cabinet[c], cabinet[d]] + l1 + l2
            if budget_units >= 0 and new_cable > budget_units:
                continue
        rem[0, 0], rem[0, 1], rem[1, 0], rem[1, 1] = a, b, c, d
        add[0, 0], add[0, 1], add[1, 0], add[1, 1] = a, c, b, d
        _swap(adj, deg, a, b, c, d)
        k = _affected(dist, adj, deg, rem, add, ones, ones, zcab, zw, np.int64(1), flags)
        st[MOVES] += 1
        connected = True
        peak = st[PEAK]
        total = st[TOTAL]
        if k > 0:
            p = 0
            old = np.int64(0)
            rest = 0
            for s in range(n):
                if flags[s]:
                    src[p] = s
                    p += 1
                    old += rowsum[s]
                elif rowmax[s] > rest:
                    rest = rowmax[s]
            # exact early rejection: the largest total (and level) this move may reach
            # and still be taken; beyond it the BFS stops
            max_level = np.int64(-1)
            max_total = np.int64(-1)
            total_from = np.int64(0)
            if lex:
                max_level = st[PEAK]
                if rest < st[PEAK]:  # the diameter may drop: the total decides only if it does not
                    total_from = st[PEAK] - 1
            if temp > 0.0:
                if ru[t] > 0.0:
                    slack = -temp * np.log(ru[t])
                    if slack < 1e15:
                        max_total = old + np.int64(np.floor(slack))
            else:
                max_total = old
            tot, levels, status = _bit_bfs_bounded(adj, deg, src[:k], False, dummy, max_total, max_level,
                                                   total_from)
            connected = status != 1
            total = st[TOTAL] - old + tot
            peak = max(np.int64(levels), np.int64(rest))
            if status == 2:  # pruned: would be refused below anyway
                _swap(adj, deg, a, c, b, d)
                continue
        take = False
        if connected:
            if lex and peak != st[PEAK]:
                take = peak < st[PEAK]
            else:
                delta = total - st[TOTAL]
                if delta <= 0:
                    take = True
                elif temp > 0.0:
                    take = ru[t] < np.exp(-delta / temp)
        if not take:
            _swap(adj, deg, a, c, b, d)  # (a, c), (b, d) -> (a, b), (c, d)
            continue
        edges[i, 0], edges[i, 1] = min(a, c), max(a, c)
        edges[j, 0], edges[j, 1] = min(b, d), max(b, d)
        st[ACCEPTED] += 1
        st[CABLE] = new_cable
        if k > 0:
            rows = np.full((k, n), _UNREACHED, np.uint8)
            _bit_bfs(adj, deg, src[:k], True, rows)
            for r in range(k):
                s = src[r]
                acc = np.int64(0)
                mx = np.int64(0)
                for v in range(n):
                    x = rows[r, v]
                    dist[s, v] = x
                    dist[v, s] = x
                    acc += x
                    if x > mx:
                        mx = x
                rowsum[s] = acc
                rowmax[s] = mx
        st[PEAK] = peak
        st[TOTAL] = total
        if _better(lex, peak, total, st[BEST_PEAK], st[BEST_TOTAL]):
            st[BEST_PEAK] = peak
            st[BEST_TOTAL] = total
            for e in range(edges.shape[0]):  # (no broadcasting assignment: its shape
                best_edges[e, 0] = edges[e, 0]  # check's message costs seconds to compile)
                best_edges[e, 1] = edges[e, 1]
            h = st[NHIST]
            if h < hist.shape[0]:
                hist[h, 0] = st[MOVES]
                hist[h, 1] = peak
                hist[h, 2] = total
                st[NHIST] = h + 1


# --------------------------------------------------------------------------- symmetric search
@_jit
def _orbit_ok(a, b, c, d, n, shift):
    """Whether links (a, b), (c, d) lie in two different full orbits of the rotation
    ``v -> v + shift (mod n)``."""
    half = n // 2
    if (b - a) % n == half or (d - c) % n == half:
        return False  # a link to the opposite switch: its orbit is half as long
    if (c - a) % shift == 0 and (d - b) % n == (c - a) % n:
        return False
    if (c - b) % shift == 0 and (d - a) % n == (c - b) % n:
        return False
    return True


@_jit
def _sym_apply(adj, deg, a, b, c, d, n, shift, g):
    """Swap (a, b), (c, d) -> (a, c), (b, d) in each of the ``g`` rotations; on a clash
    (a link that exists, a shared switch) undo and return False."""
    done = 0
    ok = True
    for t in range(g):
        o = t * shift
        a1, b1, c1, d1 = (a + o) % n, (b + o) % n, (c + o) % n, (d + o) % n
        if a1 == c1 or b1 == d1 or a1 == d1 or b1 == c1:
            ok = False
            break
        if not (_has_edge(adj, deg, a1, b1) and _has_edge(adj, deg, c1, d1)):
            ok = False
            break
        if _has_edge(adj, deg, a1, c1) or _has_edge(adj, deg, b1, d1):
            ok = False
            break
        _swap(adj, deg, a1, b1, c1, d1)
        done += 1
    if not ok:
        _sym_undo(adj, deg, a, b, c, d, n, shift, done)
    return ok


@_jit
def _sym_undo(adj, deg, a, b, c, d, n, shift, count):
    for t in range(count - 1, -1, -1):
        o = t * shift
        _swap(adj, deg, (a + o) % n, (c + o) % n, (b + o) % n, (d + o) % n)


@_jit
def anneal_sym_batch(adj, deg, shift, st, ra, rb, rc, rd, rv, ru, temp, lex, max_moves, best_adj, hist):
    """Steps of the annealing restricted to graphs invariant under ``v -> v + shift``.

    A move swaps two link orbits (``g = N / shift`` swaps at once), and the evaluation
    is a full bit-parallel BFS from the ``shift`` orbit representatives ``0 .. shift-1``
    (every switch's row is one of theirs, rotated): the totals are ``g`` times theirs.
    """
    n = adj.shape[0]
    g = n // shift
    src = np.arange(shift).astype(np.int32)
    dummy = np.empty((1, 1), np.uint8)
    for t in range(ra.shape[0]):
        if max_moves > 0 and st[MOVES] >= max_moves:
            break
        a = ra[t]
        if deg[a] == 0:
            continue
        b = adj[a, rb[t] % deg[a]]
        c = rc[t]
        if deg[c] == 0:
            continue
        d = adj[c, rd[t] % deg[c]]
        if rv[t]:
            c, d = d, c
        if a == c or a == d or b == c or b == d or not _orbit_ok(a, b, c, d, n, shift):
            continue
        if not _sym_apply(adj, deg, a, b, c, d, n, shift, g):
            continue
        st[MOVES] += 1
        max_level = st[PEAK] if lex else np.int64(-1)
        max_total = np.int64(-1)
        if temp > 0.0:
            if ru[t] > 0.0:
                slack = -temp * np.log(ru[t])
                if slack < 1e15:
                    max_total = (st[TOTAL] + np.int64(np.floor(slack))) // g
        else:
            max_total = st[TOTAL] // g
        # under lex the total decides only if the diameter does not drop: a BFS still
        # incomplete at level peak - 1 proves that
        total_from = st[PEAK] - 1 if lex else np.int64(0)
        tot, levels, status = _bit_bfs_bounded(adj, deg, src, False, dummy, max_total, max_level, total_from)
        take = False
        if status == 0:
            total = tot * g
            peak = np.int64(levels)
            if lex and peak != st[PEAK]:
                take = peak < st[PEAK]
            else:
                delta = total - st[TOTAL]
                if delta <= 0:
                    take = True
                elif temp > 0.0:
                    take = ru[t] < np.exp(-delta / temp)
        if not take:
            _sym_undo(adj, deg, a, b, c, d, n, shift, g)
            continue
        st[ACCEPTED] += 1
        st[PEAK] = peak
        st[TOTAL] = total
        if _better(lex, peak, total, st[BEST_PEAK], st[BEST_TOTAL]):
            st[BEST_PEAK] = peak
            st[BEST_TOTAL] = total
            for v in range(n):  # (element by element: see anneal_batch)
                for j in range(adj.shape[1]):
                    best_adj[v, j] = adj[v, j]
            h = st[NHIST]
            if h < hist.shape[0]:
                hist[h, 0] = st[MOVES]
                hist[h, 1] = peak
                hist[h, 2] = total
                st[NHIST] = h + 1
