"""Compiled channel dependency graph of a table routing (all routes), for :mod:`.deadlock`.

The closure of :meth:`TableRouting.dependency_chunks` (the channel a packet takes next
depends only on its current channel and its destination ``d``), run by numba one
destination at a time on a transposed block of the table's columns, so that the table is
read with unit stride.  The dependencies out of channel ``c = e * V + vc`` (CSR entry
``e``, VC ``vc``) all leave from the head switch of ``e``: they are kept as a bit mask
over ``(rank, vc)`` of that switch's links (``rank * V + vc``), so memory is
``C x ceil(R V / 64)`` words whatever the number of routes, and the sorted dependency
keys come out of the masks in order.  Same channels and dependencies as the NumPy closure
(tests compare them).
"""

from __future__ import annotations

import numpy as np

from .. import _sssp

__all__ = ["usable", "cdg"]

#: Destinations per transposed block of the table.
BLOCK = 64
_RULES = {"const": 0, "hop": 1, "layer": 2, "dateline": 3}

if _sssp.AVAILABLE:
    from numba.cpython.unsafe.numbers import trailing_zeros

    _jit = _sssp._jit

    @_jit
    def _closure(indptr, indices, cols, d0, entry_phase, rule, vc_const, nvc, layer,
                 entry_dim, entry_wrap, sentinel, used, dep, stamp, stack_e, stack_v, tag0):
        """Add the channels and dependencies of all routes toward ``d0 .. d0 + B - 1``.

        ``cols[p, j, v]`` = ``ranks[p, v, d0 + j]``.  Returns -1, or ``(v, d)`` packed as
        ``v * N + d`` of a missing table entry, or ``-2`` for a VC beyond ``nvc``.
        """
        n = indptr.shape[0] - 1
        for j in range(cols.shape[1]):
            d = d0 + j
            tag = tag0 + j
            top = 0
            for s in range(n):
                if s == d:
                    continue
                r = cols[0, j, s]
                if r == sentinel:
                    return s * n + d
                e = indptr[s] + r
                if rule == 0:
                    vc = vc_const
                elif rule == 1:
                    vc = 0
                elif rule == 2:
                    vc = layer[s, d]
                else:
                    vc = 1 if entry_wrap[e] else 0
                if vc >= nvc:
                    return -2
                c = e * nvc + vc
                if stamp[c] != tag:
                    stamp[c] = tag
                    used[c] = True
                    stack_e[top] = e
                    stack_v[top] = vc
                    top += 1
            while top > 0:
                top -= 1
                e = stack_e[top]
                vc = stack_v[top]
                head = indices[e]
                if head == d:
                    continue
                r = cols[entry_phase[e], j, head]
                if r == sentinel:
                    return head * n + d
                e2 = indptr[head] + r
                if rule == 0:
                    vc2 = vc_const
                elif rule == 1:
                    vc2 = vc + 1
                elif rule == 2:
                    vc2 = vc
                elif entry_wrap[e2]:
                    vc2 = 1
                elif entry_dim[e2] == entry_dim[e]:
                    vc2 = vc
                else:
                    vc2 = 0
                if vc2 >= nvc:
                    return -2
                bit = r * nvc + vc2
                c = e * nvc + vc
                dep[c, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
                c2 = e2 * nvc + vc2
                if stamp[c2] != tag:
                    stamp[c2] = tag
                    used[c2] = True
                    stack_e[top] = e2
                    stack_v[top] = vc2
                    top += 1
        return -1

    @_jit
    def _keys(indptr, indices, nvc, dep):
        """Sorted dependency keys ``from * C + to`` out of the masks."""
        c_total = dep.shape[0]
        count = 0
        for c in range(c_total):
            for w in range(dep.shape[1]):
                m = dep[c, w]
                while m != 0:
                    m &= m - np.uint64(1)
                    count += 1
        out = np.empty(count, np.int64)
        k = 0
        for c in range(c_total):
            base = indptr[indices[c // nvc]] * nvc
            for w in range(dep.shape[1]):
                m = dep[c, w]
                while m != 0:
                    out[k] = c * c_total + base + w * 64 + np.int64(trailing_zeros(m))
                    k += 1
                    m &= m - np.uint64(1)
        return out


def usable(routing) -> bool:
    """True for table routings whose closure this module runs (numba installed)."""
    from .base import TableRouting

    return (_sssp.AVAILABLE and isinstance(routing, TableRouting)
            and type(routing).dependency_chunks is TableRouting.dependency_chunks
            and routing.vc_rule in _RULES)


def cdg(routing):
    """``(used channels, sorted unique dependency keys, C)`` as :func:`.deadlock.cdg`, or
    None when the compiled closure does not apply (a VC beyond ``num_vcs``)."""
    from ..errors import RoutingError

    view = routing.view
    n = view.n
    nvc = routing.num_vcs
    c_total = len(view.indices) * nvc
    r_count = max(view.max_degree, 1)
    words = max(1, (r_count * nvc + 63) // 64)
    used = np.zeros(c_total, dtype=bool)
    dep = np.zeros((c_total, words), dtype=np.uint64)
    stamp = np.full(c_total, -1, dtype=np.int64)
    stack_e = np.empty(c_total + n, dtype=np.int64)
    stack_v = np.empty(c_total + n, dtype=np.int64)
    m = len(view.indices)
    layer = routing.layer if routing.layer is not None else np.zeros((1, 1), np.uint8)
    dim = routing.entry_dim if routing.entry_dim is not None else np.zeros(m, np.int8)
    wrap = routing.entry_wrap if routing.entry_wrap is not None else np.zeros(m, bool)
    phase = np.asarray(routing.entry_phase, dtype=np.int64)
    for d0 in range(0, n, BLOCK):
        d1 = min(n, d0 + BLOCK)
        cols = np.ascontiguousarray(np.asarray(routing.ranks[:, :, d0:d1]).transpose(0, 2, 1))
        bad = _closure(view.indptr, view.indices, cols, d0, phase, _RULES[routing.vc_rule],
                       int(routing.vc_const), nvc, layer, dim, wrap, routing.sentinel, used,
                       dep, stamp, stack_e, stack_v, d0)
        if bad == -2:
            return None
        if bad >= 0:
            raise RoutingError(f"{routing.algorithm} table has no entry at switch {bad // n} "
                               f"toward {bad % n}")
    keys = _keys(view.indptr, view.indices, nvc, dep)
    return np.flatnonzero(used).astype(np.int64), keys, c_total
