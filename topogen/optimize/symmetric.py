"""Annealing restricted to graphs with a rotational symmetry (Graph Golf objectives).

The switches ``0 .. N-1`` are rotated by ``v -> v + N/g (mod N)``; the search keeps the
graph invariant under that rotation (a cyclic group of order ``g``): a move swaps two
*orbits* of links, ``g`` double-edge swaps at once, so every degree is kept.  Every
switch's distance row is then a rotated copy of the row of one of the ``N/g`` orbit
representatives ``0 .. N/g - 1``, so a move's exact diameter and ASPL come from one
bit-parallel BFS from those representatives alone (a single 64-bit word per switch for
``N/g <= 64``): the evaluation of a move costs ``g`` times less than the full all-pairs
one and needs no ``N x N`` matrix.  The restriction also shrinks the search space by a
factor ``g``; Graph Golf's best order/degree solutions are found this way in practice.

Used when ``symmetry > 1`` (the default for the hop objectives from a random start with
an even degree; see :func:`auto_symmetry`).  The start is the circulant graph (invariant
under every rotation) randomised by ``10 E / g`` orbit swaps.
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import ParameterError
from . import _fast
from ._kernels import kernel
from .evaluate import SwapGraph, _bit_bfs

__all__ = ["auto_symmetry", "auto_restarts", "check_symmetry", "symmetric_start", "randomize_symmetric",
           "anneal_symmetric"]

BATCH = 2048


def auto_symmetry(num_switches: int, degree: int) -> int:
    """The group order ``g`` used by default: ``N/g`` is the smallest divisor of ``N``
    at least ``max(8, N/64)`` (so ``g <= 64``); 1 (no symmetry) for an odd degree or
    when no such divisor leaves ``g >= 2``."""
    n, d = int(num_switches), int(degree)
    if d % 2 or n < 16:
        return 1
    low = max(8, -(-n // 64))
    for shift in range(low, n // 2 + 1):
        if n % shift == 0:
            return n // shift
    return 1


def check_symmetry(num_switches: int, degree: int, symmetry: int) -> int:
    """Validate a group order: ``g`` divides ``N``, ``N/g >= 2``; an even degree."""
    n, g = int(num_switches), int(symmetry)
    if g < 1 or isinstance(symmetry, bool):
        raise ParameterError(f"symmetry must be a positive integer, got {symmetry!r}")
    if g == 1:
        return 1
    if n % g or n // g < 2:
        raise ParameterError(f"symmetry {g} must divide num_switches={n} and leave at least 2 orbit "
                             "representatives; choose a divisor of N, or 1")
    if degree % 2:
        raise ParameterError(f"symmetry > 1 needs an even degree (degree {degree} would need links "
                             "fixed by the rotation); use symmetry 1")
    return g


def _circulant(n: int, d: int) -> SwapGraph:
    v = np.arange(n)
    edges = np.concatenate([np.stack([v, (v + k) % n], axis=1) for k in range(1, d // 2 + 1)])
    return SwapGraph(n, np.sort(edges, axis=1).astype(np.int32))


def symmetric_start(num_switches: int, degree: int, g: int, rng: np.random.Generator) -> np.ndarray:
    """A connected random ``degree``-regular graph invariant under ``v -> v + N/g``:
    the circulant with offsets ``1 .. d/2`` randomised by ``10 E / g`` orbit swaps."""
    graph = _circulant(int(num_switches), int(degree))
    randomize_symmetric(graph, g, rng, 10 * len(graph.edges) // g)
    return graph.sorted_edges()


def auto_restarts(num_switches: int, moves: int | None, time_limit: float | None) -> int:
    """Independent annealing runs the symmetric search splits its budget into by default:
    one per ``max(20, 0.06 N)`` seconds of ``time_limit`` (else per ``1000 N`` moves), at
    least 1.  The restricted search converges in about that long (N = 256: within 30 s;
    N = 1024: about a minute, on a shared core), and independent starts then beat a longer
    schedule: at N = 256, d = 8, one 570 s run reached ASPL 2.758, no better than single
    30-60 s runs (2.748-2.761)."""
    n = int(num_switches)
    if time_limit is not None:
        return max(1, int(time_limit // max(20.0, 0.06 * n)))
    return max(1, int(moves // (1000 * n)))


def _full(graph: SwapGraph, shift: int, g: int):
    tot, lev, ok = kernel(_bit_bfs)(graph.adj, graph.deg, np.arange(shift, dtype=np.int32), False,
                            np.zeros((1, 1), np.uint8))
    return int(tot) * g, int(lev), bool(ok)


def _draw(rng, n):
    return (rng.integers(n, size=BATCH).astype(np.int32), rng.integers(1 << 30, size=BATCH).astype(np.int32),
            rng.integers(n, size=BATCH).astype(np.int32), rng.integers(1 << 30, size=BATCH).astype(np.int32),
            rng.integers(2, size=BATCH).astype(np.int8), rng.random(BATCH))


def randomize_symmetric(graph: SwapGraph, g: int, rng: np.random.Generator, swaps: int) -> None:
    """Take ``swaps`` random orbit swaps that keep the graph connected."""
    n = graph.n
    shift = n // g
    total, peak, ok = _full(graph, shift, g)
    if not ok:
        raise ParameterError("the symmetric start is disconnected")
    st = np.array([peak, total, 0, 0, 0, peak, total, 0], dtype=np.int64)
    best = graph.adj.copy()
    hist = np.zeros((1, 4), dtype=np.int64)
    for _ in range(1000):
        if st[_fast.ACCEPTED] >= swaps:
            break
        kernel(_fast.anneal_sym_batch)(graph.adj, graph.deg, shift, st, *_draw(rng, n), 1e300, False,
                               np.int64(0), best, hist)
    graph.sync_edges()


def _calibrate(graph, shift, g, rng, total) -> float:
    n = graph.n
    worse = []
    for _ in range(200):
        ra, rb, rc, rd, rv, _ = _draw(rng, n)
        for t in range(BATCH):
            # int32 switches, as in anneal_sym_batch: the helpers' compiled versions serve
            # both (other argument types would compile them again, seconds on a fresh machine)
            a = ra[t]; b = graph.adj[a, rb[t] % graph.deg[a]]
            c = rc[t]; d = graph.adj[c, rd[t] % graph.deg[c]]
            if rv[t]:
                c, d = d, c
            if len({int(a), int(b), int(c), int(d)}) < 4 or not kernel(_fast._orbit_ok)(a, b, c, d, n, shift):
                continue
            if not kernel(_fast._sym_apply)(graph.adj, graph.deg, a, b, c, d, n, shift, g):
                continue
            new, _, ok = _full(graph, shift, g)
            kernel(_fast._sym_undo)(graph.adj, graph.deg, a, b, c, d, n, shift, g)
            if ok and new > total:
                worse.append(new - total)
            if len(worse) >= 64:
                return float(np.median(worse))
    return float(np.median(worse)) if worse else 1.0


def anneal_symmetric(graph: SwapGraph, settings, *, g: int, state=None, checkpoint=None, progress=None,
                     checkpoint_every: float = 60.0, history_every: int = 500, deadline=None, why=None):
    """:func:`topogen.optimize.search.anneal` for a graph invariant under the rotation of
    order ``g`` (hop objectives only)."""
    from .state import SearchState, _key, _unkey, within_deadline

    obj = settings.objective
    from .._rng import make_rng

    rng = make_rng(settings.seed)
    n = graph.n
    shift = n // g
    total, peak, ok = _full(graph, shift, g)
    if not ok:
        raise ParameterError("the topology to optimize is disconnected")
    if state is None:
        unit = _calibrate(graph, shift, g, rng, total)
        state = SearchState(graph.edges.copy(), graph.edges.copy(), _key(obj, peak, total), unit=unit)
        state.history.append((0, 0.0, peak, total, peak, total))
        best_adj = graph.adj.copy()
    else:
        rng.bit_generator.state = state.rng_state
        best_adj = np.asarray(state.best_adj, dtype=np.int32).copy()
    t0, t1 = settings.t_start * state.unit, settings.t_end * state.unit
    best = state.best
    st = np.array([peak, total, 0, state.moves, state.accepted, *_unkey(obj, best), 0], dtype=np.int64)
    hist = np.zeros((BATCH, 4), dtype=np.int64)
    # an empty batch: compiles (or loads) the loop before the clock starts
    empty = np.zeros(0, np.int32)
    kernel(_fast.anneal_sym_batch)(graph.adj, graph.deg, shift, st, empty, empty, empty, empty, np.zeros(0, np.int8),
                           np.zeros(0), 0.0, obj.lexicographic, np.int64(settings.moves or 0), best_adj, hist)
    settings = within_deadline(settings, deadline, state.seconds, why() if why is not None else "")
    start_clock = time.monotonic() - state.seconds
    last_ckpt = time.monotonic()

    restarts = max(1, int(getattr(settings, "restarts", 1)))

    def fraction(now):
        f = 0.0
        if settings.moves:
            f = max(f, int(st[_fast.MOVES]) / settings.moves)
        if settings.time_limit:
            f = max(f, (now - start_clock) / settings.time_limit)
        return f

    def restart():
        """A fresh random symmetric start for the next independent run."""
        fresh = _circulant(n, int(graph.deg.max()))
        randomize_symmetric(fresh, g, rng, 10 * len(fresh.edges) // g)
        graph.adj[:] = fresh.adj
        tot, pk, _ = _full(graph, shift, g)
        st[_fast.PEAK], st[_fast.TOTAL] = pk, tot

    def snapshot(now):
        graph.sync_edges()
        state.edges = graph.edges.copy()
        state.adj = graph.adj.copy()
        state.best_adj = best_adj.copy()
        state.best_edges = SwapGraph.edges_of(best_adj, graph.deg)
        state.best = best
        state.moves, state.accepted = int(st[_fast.MOVES]), int(st[_fast.ACCEPTED])
        state.seconds = now - start_clock
        state.rng_state = rng.bit_generator.state
        return state

    frac = fraction(time.monotonic())
    while frac < 1.0:
        seg = frac * restarts - state.segment
        if seg >= 1.0 and state.segment < restarts - 1:
            state.segment = min(restarts - 1, int(frac * restarts))
            restart()
            seg = frac * restarts - state.segment
        temp = t0 * (t1 / t0) ** min(seg, 1.0) if t0 > 0 else 0.0
        st[_fast.NHIST] = 0
        before = int(st[_fast.MOVES])
        kernel(_fast.anneal_sym_batch)(graph.adj, graph.deg, shift, st, *_draw(rng, n), float(temp), obj.lexicographic,
                               np.int64(settings.moves or 0), best_adj, hist)
        now = time.monotonic()
        sec = round(now - start_clock, 3)
        for h in range(int(st[_fast.NHIST])):
            mv, pk, tot = (int(x) for x in hist[h, :3])
            state.history.append((mv, sec, pk, tot, pk, tot))
        if st[_fast.NHIST]:
            best = _key(obj, int(st[_fast.BEST_PEAK]), int(st[_fast.BEST_TOTAL]))
        moves = int(st[_fast.MOVES])
        if moves // history_every > before // history_every:
            state.history.append((moves, sec, int(st[_fast.PEAK]), int(st[_fast.TOTAL]), *_unkey(obj, best)))
        frac = fraction(now)
        if progress is not None:
            progress(min(frac, 1.0), f"{moves} moves, {int(st[_fast.ACCEPTED])} taken, best {_unkey(obj, best)}")
        if checkpoint is not None and now - last_ckpt >= checkpoint_every and frac < 1.0:
            checkpoint(snapshot(now))
            last_ckpt = now
        if settings.moves and moves >= settings.moves:
            break
    state = snapshot(time.monotonic())
    if checkpoint is not None:
        checkpoint(state)
    return state
