"""How the compiled event core is cut into compiled functions (its cold compile time).

The event loop (``_core.run``) and the allocation rounds (``_core._alloc_rounds``) call
their large or shared helpers as functions compiled once each (``_core._unit``), not as
numba-IR copies at every call site; the hot ones are inlined by LLVM (the callers'
machine code as with numba's inlining), the routing helpers that do much work per call are
called.  Timing is not checked here (docs/performance.md, "Cold start"); the results of
both structures are the Python engine's (tests/sim/test_compiled*.py).
"""

import inspect
import re

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import types  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402

from topogen.sim import _core as C  # noqa: E402

#: helpers compiled once and inlined by LLVM into their callers (hot: every event or
#: allocation runs them)
INLINED = {"_push", "_best_vc", "_vr_k", "_prefetch_block", "_vc_alloc", "_sw_alloc", "_alloc_end",
           "_wake_next", "_vc_request"}
#: helpers compiled once and called (escape, ANCA and UGAL routing, the switch order)
CALLED = {"_sort_late", "_ugal_choose", "_esc_options", "_esc_choose", "_esc_unwait",
          "_esc_next_state", "_anca_draws", "_anca_choose"}


def _decorators():
    """Each top-level function of _core and the name of its decorator."""
    src = inspect.getsource(C)
    return dict((f, d) for d, f in re.findall(r"^@(\w+)\ndef (\w+)\(", src, re.M))


def _called_names(func):
    """Names of module functions called in ``func``'s source."""
    src = inspect.getsource(func.py_func).split(":", 1)[1]  # (after its signature)
    return {n for n in re.findall(r"\b(_\w+)\(", src) if n in vars(C)} - {func.__name__}


def test_helpers_are_compiled_units():
    for name in INLINED | CALLED:
        f = getattr(C, name)
        assert isinstance(f, CPUDispatcher), name
        opts = f.targetoptions
        assert opts.get("forceinline") is (name in INLINED), name
        assert opts.get("_nrt") is False, name  # borrows its callers' arrays
        assert opts.get("no_cpython_wrapper") is True, name  # compiled callers only


def test_numba_inlines_only_helpers_of_one_unit():
    # a helper numba inlines is copied at each call site: only helpers called from one
    # unit remain so, and neither the event loop nor the allocation rounds inline any
    deco = _decorators()
    inlined = {f for f, d in deco.items() if d == "_inline"}
    assert inlined  # (the parse found them)
    for name in ("run", "_alloc_rounds"):
        assert not (_called_names(getattr(C, name)) & inlined), name
    hosts = {}
    for f in deco:
        for callee in _called_names(getattr(C, f)) & inlined:
            hosts.setdefault(callee, set()).add(f)
    for callee in inlined:
        reach = hosts.get(callee, set())
        # the units that contain it, directly or through another inlined helper
        units, seen = set(), set()
        todo = list(reach)
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            if h in inlined:
                todo.extend(hosts.get(h, ()))
            else:
                units.add(h)
        assert len(units) == 1, (callee, units)


def test_units_and_their_callers_are_decorated_as_listed():
    deco = _decorators()
    assert {f for f, d in deco.items() if d == "_unit"} == INLINED
    assert {f for f, d in deco.items() if d == "_unit_called"} == CALLED
    assert deco["run"] == deco["_alloc_rounds"] == "_jit_borrowed"
    # run is called from Python; the allocation rounds only by run
    assert not C.run.targetoptions.get("no_cpython_wrapper")
    assert C._alloc_rounds.targetoptions.get("no_cpython_wrapper") is True
    # the allocation helpers are shared by the event loop and the allocation rounds
    for name in ("_vc_alloc", "_sw_alloc", "_alloc_end"):
        assert name in _called_names(C.run) and name in _called_names(C._alloc_rounds)


def _push_types():
    """The argument types of ``_push`` as the event loop has them."""
    i64 = types.int64
    sc = types.Array(i64, 1, "C")
    ev = types.Array(i64, 2, "C")
    nd = types.Array(types.int32, 2, "C")
    return sc, ev, nd, types.Array(i64, 1, "C"), i64, i64


def test_constants_at_call_sites_add_no_specializations():
    # the event loop passes event kinds as constants, cycles and ids as int64 or int32
    # (table entries): the unit is compiled for plain int64 arguments, once
    sc, ev, nd, free, mask, w = _push_types()
    before = set(C._push.signatures)
    calls = [
        (types.IntegerLiteral(3), types.int64, types.BooleanLiteral(False)),
        (types.IntegerLiteral(9), types.int32, types.BooleanLiteral(True)),
        (types.int64, types.int64, types.boolean),
    ]
    for kind, t, late in calls:
        C._push.get_call_template((sc, ev, nd, free, mask, w, t, kind, t, late), {})
    new = set(C._push.signatures) - before
    want = (sc, ev, nd, free, mask, w, types.int64, types.int64, types.int64, types.boolean)
    assert set(C._push.signatures) - before <= {want}
    assert want in C._push.signatures
    for sig in C._push.signatures:
        assert not any(isinstance(a, types.Literal) for a in sig), sig
    assert len(new) <= 1


def test_a_unit_runs_as_its_callers_did():
    # _push through a compiled caller: the events of one bucket in a chain of blocks
    from numba import njit

    @njit(_nrt=False)
    def fill(sc, ev, nd, free, mask, w, n):
        for i in range(n):
            C._push(sc, ev, nd, free, mask, w, 5, C.K_READY, i, i % 2 == 1)

    W = 8
    sc = np.zeros(C.NUM_SC, np.int64)
    ev = np.full((2 * W, 4), -1, np.int64)
    nd = np.zeros((16, C.EV0 + 2 * C.EVB), np.int32)
    free = np.arange(16, dtype=np.int64)[::-1].copy()
    sc[C.NFREE_NODES] = 16
    n = 3 * C.EVB
    fill(sc, ev, nd, free, W - 1, W, n)
    assert sc[C.EV_COUNT] == n
    for late, first in ((False, 0), (True, 1)):
        idx = (5 & (W - 1)) + (W if late else 0)
        blk, got = ev[idx, C.EV_HEAD], []
        while blk >= 0:
            last = blk == ev[idx, C.EV_TAIL]
            for j in range(ev[idx, C.EV_TPOS] if last else C.EVB):
                assert nd[blk, C.EV0 + 2 * j] == C.K_READY
                got.append(int(nd[blk, C.EV0 + 2 * j + 1]))
            blk = -1 if last else nd[blk, C.NODE_NEXT]
        assert got == list(range(first, n, 2))
