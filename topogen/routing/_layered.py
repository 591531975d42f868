"""Compiled cycle breaking of one layer of :func:`topogen.routing.vc.layered`.

The reference loop (:func:`topogen.routing.vc._break_layer_reference`) rebuilds the
layer's channel dependency graph (CDG), its strongly connected components (SCCs) and one
breadth-first search per cyclic SCC in every round: ``O(E)`` per round, and the rounds
grow with the CDG (2,512 at Slim Fly q = 7, tens of thousands beyond).  This module makes
the same choices incrementally, on CSR arrays, compiled by numba:

* the CDG is built once per layer; a round only lowers the route counts of the
  dependencies of the routes it moves, and a dependency whose count reaches 0 is dead;
* SCCs only split as dependencies die.  A cyclic SCC ``C`` that lost the dependencies
  ``u -> v`` is still strongly connected iff every such ``u`` still reaches its ``v``
  inside ``C`` (a bidirectional search that stops when the two frontiers meet); only
  when one does not is ``C`` split again (Tarjan's algorithm on ``C`` alone).  The SCCs
  are therefore exactly those the reference recomputes every round;
* the cycle of ``C`` is the reference's: a breadth-first search from the smallest channel
  of ``C`` over ``C``'s dependencies in increasing channel order, closed by the first
  channel reached that leads back to the start (the in-neighbour with the smallest BFS
  position), and stopped there;
* the dependency broken is the cycle's least-used one, ties to the smallest key.

Same layers, same round count as the reference (tests compare the layer matrices).
"""

from __future__ import annotations

import numpy as np

from .. import _sssp

__all__ = ["AVAILABLE", "break_layer"]

AVAILABLE = _sssp.AVAILABLE

if AVAILABLE:
    _jit = _sssp._jit

    @_jit
    def _tarjan(seg, a, b, comp_of, c, out_ptr, edst, alive, index, low, onstk, stk, cstk_v,
                cstk_e, tag, next_id, new_ids, sizes):
        """SCCs of the nodes ``seg[a:b]`` (all with ``comp_of == c``) over alive edges
        inside them.  Rewrites ``seg[a:b]`` grouped by SCC, sets ``comp_of`` to fresh ids
        from ``next_id``; returns (number of SCCs, next_id); ``new_ids``/``sizes`` hold
        them in order."""
        counter = 0
        sp = 0
        nscc = 0
        for i in range(a, b):
            index[seg[i]] = -1
        for i in range(a, b):
            root = seg[i]
            if index[root] != -1:
                continue
            # iterative DFS
            index[root] = counter
            low[root] = counter
            counter += 1
            stk[sp] = root
            sp += 1
            onstk[root] = tag
            top = 0
            cstk_v[0] = root
            cstk_e[0] = out_ptr[root]
            while top >= 0:
                x = cstk_v[top]
                e = cstk_e[top]
                pushed = False
                while e < out_ptr[x + 1]:
                    y = edst[e]
                    e += 1
                    if not alive[e - 1] or comp_of[y] != c:
                        continue
                    if index[y] == -1:
                        cstk_e[top] = e
                        index[y] = counter
                        low[y] = counter
                        counter += 1
                        stk[sp] = y
                        sp += 1
                        onstk[y] = tag
                        top += 1
                        cstk_v[top] = y
                        cstk_e[top] = out_ptr[y]
                        pushed = True
                        break
                    elif onstk[y] == tag:
                        if index[y] < low[x]:
                            low[x] = index[y]
                if pushed:
                    continue
                cstk_e[top] = e
                if low[x] == index[x]:
                    size = 0
                    while True:
                        sp -= 1
                        w = stk[sp]
                        onstk[w] = -1
                        index[w] = -2 - nscc  # remember the SCC number
                        size += 1
                        if w == x:
                            break
                    sizes[nscc] = size
                    nscc += 1
                top -= 1
                if top >= 0:
                    p = cstk_v[top]
                    if low[x] < low[p]:
                        low[p] = low[x]
        # group seg[a:b] by SCC number (counting sort), fresh ids
        start = a
        for k in range(nscc):
            new_ids[k] = next_id + k
            s = sizes[k]
            sizes[k] = start  # now the segment start
            start += s
        pos = np.empty(nscc, np.int64)
        for k in range(nscc):
            pos[k] = sizes[k]
        tmp = seg[a:b].copy()
        for i in range(len(tmp)):
            w = tmp[i]
            k = -2 - index[w]
            seg[pos[k]] = w
            pos[k] += 1
            comp_of[w] = next_id + k
        return nscc, next_id + nscc

    @_jit
    def _reaches(u, v, c, comp_of, out_ptr, edst, in_ptr, in_edge, esrc, alive, fmark, bmark, tag,
                 fq, bq):
        """True iff ``u`` reaches ``v`` over alive edges inside comp ``c``."""
        if u == v:
            return True
        fmark[u] = tag
        bmark[v] = tag
        fh, ft, bh, bt = 0, 1, 0, 1
        fq[0] = u
        bq[0] = v
        while fh < ft and bh < bt:
            if ft - fh <= bt - bh:  # expand the smaller frontier by one level
                end = ft
                while fh < end:
                    x = fq[fh]
                    fh += 1
                    for e in range(out_ptr[x], out_ptr[x + 1]):
                        if not alive[e]:
                            continue
                        y = edst[e]
                        if comp_of[y] != c or fmark[y] == tag:
                            continue
                        if bmark[y] == tag:
                            return True
                        fmark[y] = tag
                        fq[ft] = y
                        ft += 1
            else:
                end = bt
                while bh < end:
                    x = bq[bh]
                    bh += 1
                    for j in range(in_ptr[x], in_ptr[x + 1]):
                        e = in_edge[j]
                        if not alive[e]:
                            continue
                        y = esrc[e]
                        if comp_of[y] != c or bmark[y] == tag:
                            continue
                        if fmark[y] == tag:
                            return True
                        bmark[y] = tag
                        bq[bt] = y
                        bt += 1
        return False

    @_jit
    def _cycle_edge(s, c, comp_of, out_ptr, edst, in_ptr, in_edge, esrc, alive, count, key, inmark,
                    inedge, seen, pred_e, queue, tag):
        """The dependency to break in comp ``c``: the least-used (then smallest key) edge of
        the BFS cycle through its smallest node ``s``."""
        for j in range(in_ptr[s], in_ptr[s + 1]):
            e = in_edge[j]
            if alive[e] and comp_of[esrc[e]] == c:
                inmark[esrc[e]] = tag
                inedge[esrc[e]] = e
        seen[s] = tag
        head, tail = 0, 1
        queue[0] = s
        last = -1
        while head < tail and last < 0:
            x = queue[head]
            head += 1
            for e in range(out_ptr[x], out_ptr[x + 1]):
                if not alive[e]:
                    continue
                y = edst[e]
                if comp_of[y] != c or seen[y] == tag:
                    continue
                seen[y] = tag
                pred_e[y] = e
                queue[tail] = y
                tail += 1
                if inmark[y] == tag:
                    last = y
                    break
        best = inedge[last]
        x = last
        while x != s:
            e = pred_e[x]
            if count[e] < count[best] or (count[e] == count[best] and key[e] < key[best]):
                best = e
            x = esrc[e]
        return best

    @_jit
    def _register(nscc, a, b, new_ids, starts, seg, cstart, cend, cmin, out, nout):
        """Record the SCCs a :func:`_tarjan` call made in ``seg[a:b]``; append the cyclic
        ones (more than one node) to ``out``; returns the new length of ``out``."""
        for k in range(nscc):
            cid = new_ids[k]
            lo = starts[k]
            hi = starts[k + 1] if k + 1 < nscc else b
            cstart[cid] = lo
            cend[cid] = hi
            if hi - lo > 1:
                mn = seg[lo]
                for t in range(lo, hi):
                    if seg[t] < mn:
                        mn = seg[t]
                cmin[cid] = mn
                out[nout] = cid
                nout += 1
        return nout

    @_jit
    def _run(nn, out_ptr, esrc, edst, key, count, in_ptr, in_edge, eo_ptr, eo_pair, po_ptr, po_edge,
             moved):
        """Break every cycle of one layer; marks ``moved`` pairs, returns the rounds."""
        ne = len(esrc)
        alive = np.ones(ne, np.bool_)
        cap = 2 * nn + 2
        comp_of = np.zeros(nn, np.int64)
        seg = np.arange(nn, dtype=np.int64)
        cstart = np.zeros(cap, np.int64)
        cend = np.zeros(cap, np.int64)
        cmin = np.zeros(cap, np.int64)
        index = np.empty(nn, np.int64)
        low = np.empty(nn, np.int64)
        onstk = np.full(nn, -1, np.int64)
        stk = np.empty(nn, np.int64)
        cstk_v = np.empty(nn, np.int64)
        cstk_e = np.empty(nn, np.int64)
        new_ids = np.empty(nn, np.int64)
        sizes = np.empty(nn, np.int64)
        m1 = np.full(nn, -1, np.int64)
        m2 = np.full(nn, -1, np.int64)
        m3 = np.full(nn, -1, np.int64)
        inedge = np.zeros(nn, np.int64)
        pred_e = np.zeros(nn, np.int64)
        q1 = np.empty(nn, np.int64)
        q2 = np.empty(nn, np.int64)
        active = np.empty(nn, np.int64)
        nact = 0
        tag = 0
        next_id = 1
        # deleted edges of a round, a linked list per comp
        dels = np.empty(ne, np.int64)
        nxt = np.empty(ne, np.int64)
        dhead = np.full(cap, -1, np.int64)
        broken = np.empty(nn, np.int64)
        newact = np.empty(nn, np.int64)

        # initial SCCs: comp 0 holds every node
        tag += 1
        nscc, next_id = _tarjan(seg, 0, nn, comp_of, 0, out_ptr, edst, alive, index, low, onstk,
                                stk, cstk_v, cstk_e, tag, next_id, new_ids, sizes)
        nact = _register(nscc, 0, nn, new_ids, sizes, seg, cstart, cend, cmin, active, 0)
        rounds = 0
        while nact > 0:
            rounds += 1
            for i in range(nact):
                c = active[i]
                tag += 1
                broken[i] = _cycle_edge(cmin[c], c, comp_of, out_ptr, edst, in_ptr, in_edge, esrc,
                                        alive, count, key, m1, inedge, m2, pred_e, q1, tag)
            nd = 0
            for i in range(nact):
                e = broken[i]
                for j in range(eo_ptr[e], eo_ptr[e + 1]):
                    p = eo_pair[j]
                    if moved[p]:
                        continue
                    moved[p] = True
                    for jj in range(po_ptr[p], po_ptr[p + 1]):
                        e2 = po_edge[jj]
                        count[e2] -= 1
                        if count[e2] == 0:
                            alive[e2] = False
                            cu = comp_of[esrc[e2]]
                            if cu == comp_of[edst[e2]] and cend[cu] - cstart[cu] > 1:
                                dels[nd] = e2
                                nxt[nd] = dhead[cu]
                                dhead[cu] = nd
                                nd += 1
            # every active comp lost its broken edge; check each one's deleted edges
            nnew = 0
            for i in range(nact):
                c = active[i]
                intact = True
                j = dhead[c]
                while j >= 0:
                    e = dels[j]
                    j = nxt[j]
                    tag += 1
                    if not _reaches(esrc[e], edst[e], c, comp_of, out_ptr, edst, in_ptr, in_edge,
                                    esrc, alive, m1, m2, tag, q1, q2):
                        intact = False
                        break
                dhead[c] = -1
                if intact:
                    newact[nnew] = c
                    nnew += 1
                    continue
                a = cstart[c]
                b = cend[c]
                tag += 1
                nscc, next_id = _tarjan(seg, a, b, comp_of, c, out_ptr, edst, alive, index, low,
                                        onstk, stk, cstk_v, cstk_e, tag, next_id, new_ids, sizes)
                nnew = _register(nscc, a, b, new_ids, sizes, seg, cstart, cend, cmin, newact, nnew)
            for i in range(nnew):
                active[i] = newact[i]
            nact = nnew
        return rounds


def break_layer(pair_local: np.ndarray, keys: np.ndarray, num_pairs: int,
                c_total: int) -> tuple[np.ndarray, int]:
    """Break every cycle of one layer's CDG exactly as the reference loop does.

    Parameters
    ----------
    pair_local : int64 array
        Route (local id ``0 .. num_pairs-1``) of each dependency occurrence.
    keys : int64 array
        The occurrence's dependency key ``from * c_total + to``.
    num_pairs : int
        Routes in the layer.
    c_total : int
        Channels (the key base).

    Returns
    -------
    (moved, rounds)
        ``moved[p]``: route ``p`` goes to the next layer; ``rounds``: cycle-breaking
        rounds (0 when the layer's CDG is acyclic).
    """
    moved = np.zeros(num_pairs, dtype=np.bool_)
    if len(keys) == 0:
        return moved, 0
    uk, inv = np.unique(keys, return_inverse=True)
    inv = inv.astype(np.int64).ravel()
    count = np.bincount(inv, minlength=len(uk)).astype(np.int64)
    src_ch, dst_ch = uk // c_total, uk % c_total
    if np.any(src_ch == dst_ch):
        from ..errors import RoutingError

        raise RoutingError("a route takes the same channel twice in a row; layered routing "
                           "runs such routes with the reference loop (vc._layers_reference)")
    # nodes: the channels that occur, ranked (keeps the channel order); uk is sorted by
    # (from, to), so the edges are already in CSR order with increasing heads
    nodes, comp = np.unique(np.concatenate([src_ch, dst_ch]), return_inverse=True)
    comp = comp.astype(np.int64).ravel()
    nn = len(nodes)
    esrc = np.ascontiguousarray(comp[:len(uk)])
    edst = np.ascontiguousarray(comp[len(uk):])
    out_ptr = np.zeros(nn + 1, dtype=np.int64)
    np.cumsum(np.bincount(esrc, minlength=nn), out=out_ptr[1:])
    in_edge = np.lexsort((esrc, edst)).astype(np.int64)
    in_ptr = np.zeros(nn + 1, dtype=np.int64)
    np.cumsum(np.bincount(edst, minlength=nn), out=in_ptr[1:])
    eo_ptr = np.zeros(len(uk) + 1, dtype=np.int64)
    np.cumsum(count, out=eo_ptr[1:])
    eo_pair = np.ascontiguousarray(pair_local[np.argsort(inv, kind="stable")], dtype=np.int64)
    po_ptr = np.zeros(num_pairs + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_local, minlength=num_pairs), out=po_ptr[1:])
    po_edge = np.ascontiguousarray(inv[np.argsort(pair_local, kind="stable")], dtype=np.int64)
    rounds = _run(nn, out_ptr, esrc, edst, uk.astype(np.int64), count, in_ptr, in_edge,
                  eo_ptr, eo_pair, po_ptr, po_edge, moved)
    return moved, int(rounds)
