"""Knot analysis of the compiled engine's state (:func:`deadlocked_buffers`): the
input buffers whose packets wait on each other in a cycle, as
:meth:`topogen.sim.model.Engine.deadlocked_buffers` finds them (split from
:mod:`topogen.sim._core` to keep that module small)."""

from __future__ import annotations

import numpy as np

from ._core import (BUF_HEAD, C_EA0, C_EA1, C_EJ, C_ESC, C_INJ, C_KCLS, C_S, C_V, C_VCA, C_VRC,
                    CREDITS, EV_HEAD, K_CCREDIT, K_CREDIT, EV0, EV_HPOS, EV_TAIL, EV_TPOS, EVB, NODE_NEXT,
                    NOW, OWNER, PC_LINKS, P_EO, P_HOP, P_NA, P_OVC, P_RDY, P_VAQ, P_WAIT, _jit)

#: numba freezes the constants above into this module's cached code and keys the cache by
#: this file alone: the SHA-256 (first 16 hex digits) of ``_core``'s integer constants.  A
#: test fails until it is updated after they change, and the update changes this file, so
#: no cached function here keeps old constants (``tests/sim/test_compiled_sort.py``).
CORE_CONSTANTS_SHA256 = "34452a69e6db9548"


@_jit
def pending_credits(st, out):
    """Add to ``out[b]`` the credits of buffer ``b`` still on their way back (in the
    ordinary and the cycle lists)."""
    S = st.cf[C_S]
    ev, nd = st.ev, st.nd
    for idx in range(ev.shape[0]):
        blk = ev[idx, EV_HEAD]
        if blk < 0:
            continue
        pos = ev[idx, EV_HPOS]
        while not (blk == ev[idx, EV_TAIL] and pos == ev[idx, EV_TPOS]):
            if pos == EVB:
                blk = nd[blk, NODE_NEXT]
                pos = 0
                continue
            k = nd[blk, EV0 + 2 * pos]
            if k == K_CREDIT or k == K_CCREDIT:
                out[nd[blk, EV0 + 2 * pos + 1]] += S
            pos += 1


@_jit
def _range_k(st, f):
    """The VCs of packet ``f``'s class at its next network port (with VC ranges, its
    hop's block: :func:`topogen.sim._core._vr_k`)."""
    k = np.int64(st.cf[C_KCLS])
    c = np.int64(st.cf[C_VRC])
    if c == 0:
        return k
    i = np.int64(st.pk[f, P_HOP])
    n = np.int64(st.pc[f, PC_LINKS])
    return (i * c // n - (i - 1) * c // n) * k


@_jit
def _va_range(st, f, o):
    """The output VCs ``lo .. hi - 1`` packet ``f`` may take at port ``o``
    (:meth:`topogen.sim._allocator.SeparableAllocator._vc_range`)."""
    V = st.cf[C_V]
    if o >= st.cf[C_EJ]:
        return o * V, o * V + V
    lo = np.int64(st.p_route[f, st.pk[f, P_HOP]])
    return lo, lo + _range_k(st, f)


@_jit
def _wait_range(st, f, o, vca):
    """The output VCs ``lo .. lo + k - 1`` whose credits packet ``f`` (holding or not
    needing a VC allocation) waits for at port ``o``: its granted VC with the VC
    allocation stage, else every VC of its class (all ``V`` at an injection port)."""
    if vca:
        return np.int64(st.pk[f, P_OVC]), np.int64(1)
    V = np.int64(st.cf[C_V])
    k = V if o >= st.cf[C_INJ] else _range_k(st, f)
    return np.int64(st.p_route[f, st.pk[f, P_HOP]]), k


@_jit
def _esc_targets(st, f, out):
    """Escape routing: the buffers packet ``f`` (waiting at a switch) may take: the
    adaptive VCs of its options and the escape VCs of its escape port, in ``out``;
    returns how many."""
    cf = st.cf
    V = np.int64(cf[C_V])
    a0, a1 = cf[C_EA0], cf[C_EA1]
    n = 0
    for j in range(st.pk[f, P_NA]):
        o = np.int64(st.ao[f, j])
        for x in range(o * V + a0, o * V + a1):
            out[n] = x
            n += 1
    eo = np.int64(st.pk[f, P_EO])  # 4 * port + escape VC + 2 * next state
    o = eo >> 2
    lo = o * V + (eo & 1) * cf[C_KCLS]
    for x in range(lo, lo + cf[C_KCLS]):
        out[n] = x
        n += 1
    return n


@_jit
def deadlocked_buffers(st, pending, dead):
    """Mark in ``dead`` the input buffers whose packets can never move again (see
    :meth:`topogen.sim.model.Engine.deadlocked_buffers`); returns how many."""
    cf = st.cf
    S = cf[C_S]
    vca = cf[C_VCA]
    bf, ob, pk = st.bf, st.ob, st.pk
    nb = bf.shape[0]
    pending_credits(st, pending)
    nd = 0
    esc = cf[C_ESC]
    tg = np.zeros((st.ao.shape[1] + 1) * cf[C_V] if esc else 1, np.int64)
    for b in range(nb):
        f = bf[b, BUF_HEAD]
        if f < 0:
            continue
        if esc:  # waiting at a switch on its options' ports (or for its ejection port)
            o = np.int64(pk[f, P_WAIT])
            if o < 0 or cf[C_EJ] <= o < cf[C_INJ]:
                continue
            free = False
            for i in range(_esc_targets(st, f, tg)):
                x = tg[i]
                if ob[x, CREDITS] + pending[x] >= S:
                    free = True
                    break
            if not free:
                dead[b] = 1
                nd += 1
            continue
        o = np.int64(st.p_route[f, pk[f, P_HOP]]) // cf[C_V]
        if vca and pk[f, P_VAQ]:  # waits for an output VC: blocked while its owners are
            lo, hi = _va_range(st, f, o)
            free = False
            for x in range(lo, hi):
                w = ob[x, OWNER]
                if w < 0 or bf[w, BUF_HEAD] < 0 or pk[bf[w, BUF_HEAD], P_OVC] != x:
                    free = True  # free, or will be (its owner has left)
                    break
            if not free:
                dead[b] = 1
                nd += 1
            continue
        if pk[f, P_WAIT] < 0 or pk[f, P_RDY] > st.sc[NOW]:
            continue  # (a granted head joins its output's waiting list at P_RDY)
        if cf[C_EJ] <= o < cf[C_INJ]:
            continue
        lo, k = _wait_range(st, f, o, vca)
        free = False
        for x in range(lo, lo + k):
            if ob[x, CREDITS] + pending[x] >= S:
                free = True
                break
        if not free:
            dead[b] = 1
            nd += 1
    changed = True
    while changed and nd:
        changed = False
        for b in range(nb):
            if dead[b] == 0:
                continue
            f = bf[b, BUF_HEAD]
            if esc:
                for i in range(_esc_targets(st, f, tg)):
                    if dead[tg[i]] == 0:
                        dead[b] = 0
                        nd -= 1
                        changed = True
                        break
                continue
            o = np.int64(st.p_route[f, pk[f, P_HOP]]) // cf[C_V]
            if vca and pk[f, P_VAQ]:
                lo, hi = _va_range(st, f, o)
                for x in range(lo, hi):
                    if dead[ob[x, OWNER]] == 0:
                        dead[b] = 0
                        nd -= 1
                        changed = True
                        break
                continue
            lo, k = _wait_range(st, f, o, vca)
            for x in range(lo, lo + k):
                if dead[x] == 0:
                    dead[b] = 0
                    nd -= 1
                    changed = True
                    break
    return nd
