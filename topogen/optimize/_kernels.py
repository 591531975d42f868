"""Which code runs the optimizer's kernels: compiled by numba, or the same functions as
plain Python.

Compiling the search kernels costs 4-6 s of CPU on a machine whose cache of compiled code
is empty; a small search (a few dozen switches, a short budget) takes far less than that
in plain Python.  :func:`plain_path` runs a block of code with every kernel replaced by
its *twin*: a plain-Python function built from the kernel's own code (``py_func``), with
the kernels it calls replaced by their twins too, ``np.log`` / ``np.exp`` by
:func:`math.log` / :func:`math.exp` (the C library's, as the compiled code calls) and
integer overflow warnings silenced (the bit-parallel BFS wraps ``uint64`` products, as the
compiled code does).  The steps, the random numbers and the arithmetic are the same, so a
seed and a move budget give the same topology on both paths (tests compare them); only
the speed differs.  Call sites take a kernel through :func:`kernel`.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import types

import numpy as np

__all__ = ["kernel", "plain_path", "on_plain_path"]

_PLAIN = contextvars.ContextVar("topogen_optimize_plain", default=False)
#: py_func -> its plain twin
_TWINS: dict = {}


def _numpy_libm() -> types.ModuleType:
    """``numpy`` with the scalar ``log`` and ``exp`` of the C library (numba's; NumPy's
    own vectorised ones may differ in the last bit)."""
    mod = types.ModuleType("numpy")
    mod.__dict__.update(np.__dict__)
    mod.log, mod.exp = math.log, math.exp
    return mod


_NP = _numpy_libm()


def _popcount(x):
    """Set bits of a ``uint64`` (the compiled kernel's SWAR count, Python's builtin here)."""
    return np.int64(int(x).bit_count())


def _bit_bfs_bounded(adj, deg, sources, record, out, max_total, max_level, total_from):
    """The bit-parallel BFS of :func:`topogen.optimize.evaluate._bit_bfs_bounded` level by
    level in NumPy (a level: an OR over each switch's neighbours' frontier words); the
    same figures, early stops and recorded distances."""
    n, width = adj.shape
    k = sources.shape[0]
    words = (k + 63) // 64
    frontier = np.zeros((n + 1, words), np.uint64)  # row n: the empty neighbour of padding
    idx = np.arange(k)
    np.bitwise_or.at(frontier, (sources, idx // 64), np.left_shift(np.uint64(1), (idx % 64).astype(np.uint64)))
    visited = frontier[:n].copy()
    if record:
        out[idx, sources] = 0
    nbr = np.where(np.arange(width)[None, :] < deg[:, None], adj, n)
    target = np.int64(k) * n
    reached = np.int64(k)
    total = np.int64(0)
    level = 0
    while reached < target:
        level += 1
        nxt = np.bitwise_or.reduce(frontier[nbr], axis=1) & ~visited
        bits = np.unpackbits(nxt.astype("<u8").view(np.uint8), axis=1, bitorder="little")[:, :k]
        found = np.int64(bits.sum())
        if record and found:
            v, i = np.nonzero(bits)
            out[i, v] = level
        if found == 0:
            return total, level - 1, 1
        reached += found
        total += found * level
        if reached < target:
            if max_level >= 0 and level >= max_level:
                return total, level, 2
            if max_total >= 0 and level >= total_from and total + (target - reached) * (level + 1) > max_total:
                return total, level, 2
        visited |= nxt
        frontier[:n] = nxt
    return total, level, 0


#: kernels whose twin is a faster plain function with the same results (by name)
_FASTER = {"_popcount": _popcount, "_bit_bfs_bounded": _bit_bfs_bounded}


def on_plain_path() -> bool:
    """Whether the current code runs inside :func:`plain_path`."""
    return _PLAIN.get()


@contextlib.contextmanager
def plain_path(active: bool = True):
    """Run the block with the kernels as plain Python (``active``), else unchanged."""
    token = _PLAIN.set(bool(active))
    try:
        if active:
            with np.errstate(over="ignore"):
                yield
        else:
            yield
    finally:
        _PLAIN.reset(token)


def kernel(func):
    """``func`` (a compiled kernel), or its plain-Python twin inside :func:`plain_path`."""
    if not _PLAIN.get():
        return func
    return _twin(func)


def _twin(func):
    py = getattr(func, "py_func", None)
    if py is None:  # not compiled (numba absent): already plain
        return func
    if py not in _TWINS:
        _build(py.__globals__)
    return _TWINS[py]


def _build(namespace: dict) -> None:
    """Twins of every kernel defined in the module of ``namespace``, sharing one copy of
    that namespace in which kernels (its own and imported ones) are twins."""
    ns = dict(namespace)
    ns["np"] = _NP
    for obj in namespace.values():
        py = getattr(obj, "py_func", None)
        if isinstance(py, types.FunctionType) and py.__globals__ is namespace and py not in _TWINS:
            _TWINS[py] = _FASTER.get(py.__name__) or types.FunctionType(
                py.__code__, ns, py.__name__, py.__defaults__, py.__closure__)
    for name, obj in namespace.items():
        if isinstance(getattr(obj, "py_func", None), types.FunctionType):
            ns[name] = _twin(obj)
