"""Simulated annealing over degree-preserving double-edge swaps.

Each step draws two links and one of the two ways to rewire them
(:meth:`SwapGraph.swap_links`), skips swaps that break the cable bounds, applies the swap,
and evaluates it incrementally (:mod:`topogen.optimize.evaluate`).  With a lexicographic
objective a swap that raises the maximum (diameter or maximum latency) is refused and one
that lowers it is taken; otherwise the change ``delta`` of the sum over ordered pairs
decides: taken if ``delta <= 0``, else with probability ``exp(-delta / T)``.

The temperature falls geometrically from ``t_start`` to ``t_end`` times the *unit*, the
median worsening of a sample of 64 random swaps of the start graph, so the same settings
suit every size and both distance kinds.  The fraction of the schedule done is the larger
of ``moves done / moves`` and ``seconds / time_limit``: with a move budget (and no time
limit reached) a seed gives the same topology byte for byte; a time limit alone gives
whatever that machine reaches in that time.  The best graph seen is the result.

For the hop objectives the step runs compiled (:mod:`topogen.optimize._fast`); with
``Settings.symmetry > 1`` the search is the rotation-symmetric one of
:mod:`topogen.optimize.symmetric` (orbit swaps, independent restarts).  A lexicographic
latency objective ranks equal maxima by the number of pairs at the maximum.

Start: a given topology, or a random ``d``-regular graph -- the circulant with offsets
``1 .. d/2`` (and ``N/2`` for odd ``d``), randomised by ``10 E`` valid swaps.  When cable
bounds are set and the start breaks them, a first phase takes every swap that does not
increase the excess length (and keeps the graph connected) until none is left.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError, TopologyError
from . import _fast
from ._kernels import kernel
from .evaluate import HopEvaluator, LatencyEvaluator, SwapGraph, LATENCY_QUANTUM_NS
from .objectives import CableModel, Objective
from .state import SearchState, _key, _unkey, within_deadline  # noqa: F401 (SearchState is public here too)
from .targeted import targeted_swap

__all__ = ["Settings", "SearchState", "anneal", "random_regular_edges", "feasible_start", "CALIBRATION_MOVES"]

#: swaps sampled (and undone) to set the temperature unit
CALIBRATION_MOVES = 64
#: seconds between checkpoints
CHECKPOINT_EVERY = 60.0
#: a current-state point of the history every this many evaluated moves
HISTORY_EVERY = 500
#: random draws per compiled batch (hop objectives)
BATCH = 512
#: targeted swaps (:mod:`topogen.optimize.targeted`) are drawn in this first part of the
#: schedule; the rest, with random swaps only, lowers the average under the lowered maximum
TARGETED_PHASE = 0.5


def random_regular_edges(num_switches: int, degree: int, rng: np.random.Generator) -> np.ndarray:
    """A connected random ``degree``-regular graph (circulant randomised by swaps).

    Raises
    ------
    ParameterError
        If ``N * d`` is odd or ``d >= N`` (no simple ``d``-regular graph), or ``d < 1``.
    """
    n, d = int(num_switches), int(degree)
    if d < 1 or n < 2:
        raise ParameterError(f"need num_switches >= 2 and degree >= 1, got {n} and {d}")
    if d >= n:
        raise ParameterError(f"degree {d} needs more than {n} switches (a switch links to at most "
                             f"N - 1 = {n - 1} others); lower the degree or add switches")
    if (n * d) % 2:
        raise ParameterError(f"no {d}-regular graph has {n} switches: N * d = {n * d} is odd; "
                             "make the number of switches or the degree even")
    v = np.arange(n)
    parts = [np.stack([v, (v + k) % n], axis=1) for k in range(1, d // 2 + 1)]
    if d % 2:
        parts.append(np.stack([v[: n // 2], v[: n // 2] + n // 2], axis=1))
    edges = np.sort(np.concatenate(parts), axis=1).astype(np.int32)
    g = SwapGraph(n, edges)
    m = len(edges)
    done = 0
    for _ in range(40 * m):
        if done >= 10 * m:
            break
        i, j = rng.integers(m, size=2)
        mv = g.swap_links(int(i), int(j), int(rng.integers(2))) if i != j else None
        if mv is not None:
            g.apply(int(i), int(j), *mv)
            done += 1
    while not g.is_connected():  # rare for d >= 3; swap on until connected
        i, j = rng.integers(m, size=2)
        mv = g.swap_links(int(i), int(j), int(rng.integers(2))) if i != j else None
        if mv is not None:
            g.apply(int(i), int(j), *mv)
    return g.sorted_edges()


def feasible_start(graph: SwapGraph, cable: CableModel, rng: np.random.Generator,
                   max_idle: int | None = None) -> int:
    """Rewire ``graph`` until it meets the cable bounds; returns the swaps taken.

    Raises
    ------
    ParameterError
        If ``max_idle`` swaps in a row bring no improvement before the bounds are met.
    """
    m = len(graph.edges)
    excess = cable.violation(graph.edges)
    max_idle = 200 * m if max_idle is None else max_idle
    idle = taken = 0
    while excess > 0:
        if idle >= max_idle:
            raise ParameterError(
                f"could not rewire the start to meet the cable bounds (still {excess / cable.SCALE:.1f} m over "
                f"after {taken} swaps); relax max_cable / cable_budget")
        i, j = (int(x) for x in rng.integers(m, size=2))
        mv = graph.swap_links(i, j, int(rng.integers(2))) if i != j else None
        idle += 1
        if mv is None:
            continue
        rem, add = mv
        graph.apply(i, j, rem, add)
        new = cable.violation(graph.edges)
        if new <= excess and graph.is_connected():
            if new < excess:
                idle = 0
            excess = new
            taken += 1
        else:
            graph.undo(i, j, rem, add)
    return taken


@dataclass
class Settings:
    """What a run is asked to do (recorded in checkpoints and provenance)."""

    objective: Objective
    seed: int
    moves: int | None = None
    time_limit: float | None = None
    t_start: float = 0.3
    t_end: float = 0.003
    switch_delay: float = 60.0
    symmetry: int = 1
    restarts: int = 1
    targeted: float = 0.0  # lexicographic latency: share of swaps aimed at the pairs at the maximum


def make_evaluator(objective: Objective, graph: SwapGraph, cable: CableModel | None, switch_delay: float):
    if objective.kind == "hops":
        return HopEvaluator(graph)
    return LatencyEvaluator(graph, cable.cabinet, cable.cable_ns(), switch_delay)


def _calibrate(graph, ev, cable, rng, cable_total) -> float:
    """Median worsening of the total over a sample of random swaps (all undone)."""
    m = len(graph.edges)
    worse = []
    for _ in range(50 * CALIBRATION_MOVES):
        if len(worse) >= CALIBRATION_MOVES:
            break
        i, j = (int(x) for x in rng.integers(m, size=2))
        mv = graph.swap_links(i, j, int(rng.integers(2))) if i != j else None
        if mv is None:
            continue
        rem, add = mv
        if cable is not None and cable.bounded:
            add_u = cable.units(add)
            if not cable.allows(add_u, cable_total - int(cable.units(rem).sum()) + int(add_u.sum())):
                continue
        graph.apply(i, j, rem, add)
        cand = ev.evaluate(rem, add)
        graph.undo(i, j, rem, add)
        if cand.connected and cand.total > ev.total:
            worse.append(cand.total - ev.total)
    return float(np.median(worse)) if worse else 1.0


def anneal(graph: SwapGraph, settings: Settings, *, cable: CableModel | None = None,
           state: SearchState | None = None, checkpoint=None, progress=None,
           deadline: float | None = None, why=None) -> SearchState:
    """Run the annealing on ``graph`` (edited in place) and return the final state.

    Parameters
    ----------
    graph : SwapGraph
        The start (or, with ``state``, rebuilt from ``state.edges``).
    settings : Settings
    cable : CableModel, optional
        Placement and bounds (needed by latency objectives).
    state : SearchState, optional
        A checkpointed state to continue from.
    checkpoint : callable, optional
        ``checkpoint(state)``, called every :data:`CHECKPOINT_EVERY` seconds and at the end.
    progress : callable, optional
        ``progress(fraction, text)`` after each batch of moves.
    deadline : float, optional
        A :func:`time.monotonic` stamp the search must end by (with a time limit): the
        kernels are compiled and the start evaluated first, and the schedule then gets
        what is left (:func:`within_deadline`).
    why : callable, optional
        ``why()`` -> text explaining where the time went, for the error raised when
        nothing is left.

    Returns
    -------
    SearchState
    """
    obj = settings.objective
    if settings.moves is None and settings.time_limit is None:
        raise ParameterError("give a move budget (moves) or a time limit (time_limit), or both")
    if settings.symmetry > 1:
        from .symmetric import anneal_symmetric

        if obj.kind != "hops" or (cable is not None and cable.bounded):
            raise ParameterError("symmetry applies to the hop objectives without cable bounds")
        if state is not None and state.adj is not None:
            graph.adj[:] = state.adj
            graph.sync_edges()
        return anneal_symmetric(graph, settings, g=settings.symmetry, state=state, checkpoint=checkpoint,
                                progress=progress, checkpoint_every=CHECKPOINT_EVERY,
                                history_every=HISTORY_EVERY, deadline=deadline, why=why)
    rng = make_rng(settings.seed)
    ev = make_evaluator(obj, graph, cable, settings.switch_delay)
    bounded = cable is not None and cable.bounded
    cable_total = int(cable.units(graph.edges).sum()) if cable is not None else 0
    if state is None:
        unit = _calibrate(graph, ev, cable if bounded else None, rng, cable_total)
        state = SearchState(graph.edges.copy(), graph.edges.copy(), _key(obj, ev.peak, ev.total), unit=unit)
        state.history.append((0, 0.0, ev.peak, ev.total, ev.peak, ev.total))
    else:
        rng.bit_generator.state = state.rng_state
    unit = state.unit
    t0, t1 = settings.t_start * unit, settings.t_end * unit
    m = len(graph.edges)
    if obj.kind == "hops":
        # the compiled loop (topogen.optimize._fast): same steps, no Python per move
        st = np.array([ev.peak, ev.total, cable_total, state.moves, state.accepted, *_unkey(obj, state.best), 0],
                      dtype=np.int64)
        best_arr = np.array(state.best_edges, dtype=np.int32, copy=True)
        if bounded:
            cab, units = cable.cabinet.astype(np.int32), cable._units
            max_u = -1 if cable._max_units is None else cable._max_units
            budget_u = -1 if cable._budget_units is None else cable._budget_units
        else:
            cab, units, max_u, budget_u = np.zeros(graph.n, np.int32), np.zeros((1, 1), np.int64), -1, -1
        hist = np.zeros((BATCH, 4), dtype=np.int64)

        def batch(ri, rj, rv, ru, temp):
            kernel(_fast.anneal_batch)(graph.adj, graph.deg, graph.edges, ev.dist, ev.rowsum, ev.rowmax, st,
                               ri, rj, rv, ru, float(temp), obj.lexicographic, cab, units,
                               np.int64(max_u), np.int64(budget_u), np.int64(settings.moves or 0),
                               best_arr, hist)

        # an empty batch: compiles (or loads) the loop before the clock starts
        batch(np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int8), np.zeros(0), 0.0)
    settings = within_deadline(settings, deadline, state.seconds, why() if why is not None else "")
    start_clock = time.monotonic() - state.seconds
    last_ckpt = time.monotonic()
    best = state.best
    best_edges = state.best_edges
    moves, accepted = state.moves, state.accepted

    def fraction(now):
        f = 0.0
        if settings.moves:
            f = max(f, moves / settings.moves)
        if settings.time_limit:
            f = max(f, (now - start_clock) / settings.time_limit)
        return f

    def snapshot(now):
        state.edges = graph.edges.copy()
        state.best_edges = best_edges
        state.best = best
        state.moves, state.accepted = moves, accepted
        state.seconds = now - start_clock
        state.rng_state = rng.bit_generator.state
        return state

    def report(now):
        if progress is not None:
            progress(min(fraction(now), 1.0), f"{moves} moves, {accepted} taken, best {_unkey(obj, best)}")

    def temperature(frac):
        return t0 * (t1 / t0) ** min(frac, 1.0) if t0 > 0 else 0.0

    now = time.monotonic()
    frac = fraction(now)
    if obj.kind == "hops":
        while frac < 1.0:
            ri = rng.integers(m, size=BATCH).astype(np.int32)
            rj = rng.integers(m, size=BATCH).astype(np.int32)
            rv = rng.integers(2, size=BATCH).astype(np.int8)
            ru = rng.random(BATCH)
            st[_fast.NHIST] = 0
            before = moves
            batch(ri, rj, rv, ru, temperature(frac))
            moves, accepted = int(st[_fast.MOVES]), int(st[_fast.ACCEPTED])
            ev.peak, ev.total = int(st[_fast.PEAK]), int(st[_fast.TOTAL])
            now = time.monotonic()
            sec = round(now - start_clock, 3)
            for h in range(int(st[_fast.NHIST])):
                mv_, pk, tot = (int(x) for x in hist[h, :3])
                state.history.append((mv_, sec, pk, tot, pk, tot))
            if st[_fast.NHIST]:
                best = _key(obj, int(st[_fast.BEST_PEAK]), int(st[_fast.BEST_TOTAL]))
                best_edges = best_arr.copy()
            if moves // HISTORY_EVERY > before // HISTORY_EVERY:
                state.history.append((moves, sec, ev.peak, ev.total, *_unkey(obj, best)))
            frac = fraction(now)
            report(now)
            if checkpoint is not None and now - last_ckpt >= CHECKPOINT_EVERY and frac < 1.0:
                checkpoint(snapshot(now))
                last_ckpt = now
            if settings.moves and moves >= settings.moves:
                break
    aim = obj.kind == "latency" and obj.lexicographic and settings.targeted > 0
    while obj.kind != "hops" and frac < 1.0:
        for _ in range(64):  # clock and bookkeeping once per batch
            if aim and frac < TARGETED_PHASE and rng.random() < settings.targeted:
                pick = targeted_swap(graph, ev, cable, cable_total, rng)
                if pick is None:
                    continue
                i, j, variant = pick
            else:
                i, j = (int(x) for x in rng.integers(m, size=2))
                variant = int(rng.integers(2))
            if i == j:
                continue
            mv = graph.swap_links(i, j, variant)
            if mv is None:
                continue
            rem, add = mv
            if bounded:
                add_u = cable.units(add)
                new_cable = cable_total - int(cable.units(rem).sum()) + int(add_u.sum())
                if not cable.allows(add_u, new_cable):
                    continue
            graph.apply(i, j, rem, add)
            cand = ev.evaluate(rem, add)
            moves += 1
            take = False
            if cand.connected:
                if obj.lexicographic and cand.peak != ev.peak:
                    take = cand.peak < ev.peak
                elif obj.lexicographic and obj.kind == "latency" and cand.count != ev.count:
                    take = cand.count < ev.count  # fewer pairs at the maximum first
                else:
                    delta = cand.total - ev.total
                    if delta <= 0:
                        take = True
                    else:
                        temp = temperature(frac)
                        take = temp > 0 and rng.random() < math.exp(-delta / temp)
            if take:
                ev.commit(cand)
                accepted += 1
                if bounded:
                    cable_total = new_cable
                key = _key(obj, ev.peak, ev.total)
                if key < best:
                    best = key
                    best_edges = graph.edges.copy()
                    state.history.append((moves, round(time.monotonic() - start_clock, 3),
                                          ev.peak, ev.total, *_unkey(obj, best)))
            else:
                graph.undo(i, j, rem, add)
            if moves % HISTORY_EVERY == 0:
                state.history.append((moves, round(time.monotonic() - start_clock, 3),
                                      ev.peak, ev.total, *_unkey(obj, best)))
            if settings.moves and moves >= settings.moves:
                break
        now = time.monotonic()
        frac = fraction(now)
        report(now)
        if checkpoint is not None and now - last_ckpt >= CHECKPOINT_EVERY and frac < 1.0:
            checkpoint(snapshot(now))
            last_ckpt = now
    state = snapshot(time.monotonic())
    if checkpoint is not None:
        checkpoint(state)
    return state


def history_frame(state: SearchState, objective: Objective, num_switches: int) -> pd.DataFrame:
    """The convergence history as a table: the current and best maximum and average."""
    h = pd.DataFrame(state.history, columns=["moves", "seconds", "peak", "total", "best_peak", "best_total"])
    pairs = num_switches * (num_switches - 1)
    scale = 1.0 if objective.kind == "hops" else LATENCY_QUANTUM_NS
    out = pd.DataFrame({"moves": h.moves, "seconds": h.seconds})
    if objective.kind == "hops":
        out["diameter"], out["aspl"] = h.peak, h.total / pairs
        out["best_diameter"], out["best_aspl"] = h.best_peak, h.best_total / pairs
    else:  # path part only (switch and injection delays of the end points excluded)
        out["max_path_ns"], out["avg_path_ns"] = h.peak * scale, h.total * scale / pairs
        out["best_max_path_ns"], out["best_avg_path_ns"] = h.best_peak * scale, h.best_total * scale / pairs
    return out


def check_start(graph: SwapGraph) -> None:
    """Refuse a start the search cannot work on (disconnected, or too few links to swap)."""
    if len(graph.edges) < 2:
        raise ParameterError("the start topology needs at least 2 links to swap")
    if not graph.is_connected():
        raise TopologyError("the start topology is disconnected; start from a connected one")
