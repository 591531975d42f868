"""``topogen.optimize.optimize``: start, constraints, search, checkpoints, result.

The result is a :class:`~topogen.Topology` named ``optimized`` whose ``params`` record the
provenance (objective, seed, start, budgets, moves evaluated and taken, bounds) -- but
no wall-clock time, so that a seed and a move budget give byte-identical files -- and a
summary with figures recomputed from scratch by :mod:`topogen.metrics` (never the
incremental ones) and the gaps to the Moore / Cerf lower bounds.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._rng import child_seeds, make_rng, resolve_seed
from .._validate import check_float, check_int
from ..errors import FormatError, ParameterError
from ..topology import Topology
from ._kernels import plain_path
from .evaluate import SwapGraph
from .objectives import CableModel, get_objective
from .search import SearchState, Settings, anneal, check_start, feasible_start, history_frame, random_regular_edges
from .symmetric import auto_restarts, auto_symmetry, check_symmetry, symmetric_start

__all__ = ["OptimizeResult", "optimize", "plain_search", "ENGINES", "plot_history", "GRAPH_GOLF_RECORDS"]

#: Best published Graph Golf order/degree solutions (2016 table): (N, d) -> (diameter, ASPL)
GRAPH_GOLF_RECORDS = {(256, 8): (4, 2.736), (1024, 8): (5, 3.505), (1024, 3): (11, 7.679),
                      (10000, 7): (7, 5.060)}
_CHECKPOINT_VERSION = 1
#: name of the random regular start graph
_RANDOM_START = "random-regular"
#: share of swaps aimed at the pairs at the maximum latency (objective latency)
DEFAULT_TARGETED = 0.5


@dataclass
class OptimizeResult:
    """What :func:`optimize` returns.

    Attributes
    ----------
    topology : Topology
        The best graph found (``name="optimized"``, provenance in ``params``).
    layout : Layout or None
        Its placement (same cabinets as the start) when a floor was used.
    history : pandas.DataFrame
        Convergence: moves, seconds, current and best figures.
    summary : dict
        Exact figures of the result, the bounds and the gaps, moves and time.
    """

    topology: Topology
    layout: object
    history: pd.DataFrame
    summary: dict


def _check_budget(moves, time_limit):
    if moves is not None:
        moves = check_int("moves", moves, 1)
    if time_limit is not None:
        time_limit = check_float("time_limit", time_limit, 0.0)
        if time_limit <= 0:
            raise ParameterError("time_limit must be positive seconds")
    if moves is None and time_limit is None:
        raise ParameterError("give a move budget (--moves) or a time limit (--time-limit), or both")
    return moves, time_limit


def _floor_for(topology: Topology, layout, switches_per_cabinet: int | None):
    """(cabinet of each switch, floor) of the start."""
    from ..layout import Floor, default_layout

    if layout is not None:
        return np.asarray(layout.cabinet, dtype=np.int64), layout.floor, layout.placement
    if topology.name == _RANDOM_START:  # a random start: sequential cabinets
        z = check_int("switches_per_cabinet", switches_per_cabinet or 8, 1)
        floor = Floor.for_switches(topology.num_switches, z)
        return np.arange(topology.num_switches) // z, floor, "sequential"
    lay = default_layout(topology, switches_per_cabinet=switches_per_cabinet)
    return np.asarray(lay.cabinet, dtype=np.int64), lay.floor, lay.placement


def _save_checkpoint(path, meta: dict, state: SearchState) -> None:
    from ..output import atomic_open

    buf = io.BytesIO()
    extra = {} if state.adj is None else {"adj": state.adj, "best_adj": state.best_adj}
    np.savez(buf, edges=state.edges, best_edges=state.best_edges,
             meta=np.array(json.dumps(meta)), state=np.array(state.to_json()), **extra)
    with atomic_open(path, "wb") as fh:
        fh.write(buf.getvalue())


def _load_checkpoint(path):
    from .._input import check_npz, parse_json

    try:
        check_npz(path, what="optimize checkpoint")  # sizes and dtypes, before np.load
        with np.load(path, allow_pickle=False) as z:
            meta = parse_json(str(z["meta"]), path=str(path), what="checkpoint metadata")
            parse_json(str(z["state"]), path=str(path), what="checkpoint state")
            state = SearchState.from_parts(z["edges"], z["best_edges"], str(z["state"]))
            if "adj" in z.files:
                state.adj, state.best_adj = z["adj"], z["best_adj"]
    except FileNotFoundError:
        raise ParameterError(f"checkpoint {path} does not exist") from None
    except FormatError:
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise FormatError(f"{path} is not a topogen optimize checkpoint ({exc})", path=str(path)) from None
    if not isinstance(meta, dict) or meta.get("version") != _CHECKPOINT_VERSION:
        found = meta.get("version") if isinstance(meta, dict) else None
        raise FormatError(f"{path}: checkpoint version {found!r} is not {_CHECKPOINT_VERSION}",
                          path=str(path))
    return meta, state


def optimize(topology: Topology | None = None, *, num_switches: int | None = None, degree: int | None = None,
             objective: str = "golf", seed=None, moves: int | None = None, time_limit: float | None = None,
             layout=None, switches_per_cabinet: int | None = None, max_cable: float | None = None,
             cable_budget: float | None = None, switch_delay: float = 60.0, injection_delay: float = 300.0,
             t_start: float = 0.3, t_end: float = 0.003, symmetry: int | None = None,
             restarts: int | None = None, targeted: float | None = None, checkpoint=None, resume=None,
             progress=None, started: float | None = None, reserve: float = 0.0,
             engine: str = "auto") -> OptimizeResult:
    """Search for a topology minimising ``objective`` by degree-preserving edge swaps.

    Parameters
    ----------
    topology : Topology, optional
        The start (its degrees are kept).  Default: a random ``degree``-regular graph on
        ``num_switches`` switches drawn from ``seed``.
    num_switches, degree : int, optional
        Size of the random start (both needed without ``topology``).
    objective : str
        ``golf`` (diameter, then ASPL), ``aspl``, ``latency`` (max FR latency, then
        average) or ``latency-avg`` (see :mod:`topogen.optimize.objectives`).
    seed : int, optional
        The one seed (start, calibration, moves); drawn and recorded when None.
    moves : int, optional
        Evaluated moves to make (the schedule's length).
    time_limit : float, optional
        Seconds to run (the schedule then follows the clock).  At least one of ``moves``
        and ``time_limit`` is needed; with both, whichever ends first.
    layout : Layout, optional
        The start's placement (cabinets stay fixed).  Default: the start's default layout
        (sequential cabinets of ``switches_per_cabinet`` switches for a random start).
    switches_per_cabinet : int, optional
        Of the default floor (8 for a random start).
    max_cable, cable_budget : float, optional
        Longest cable and total cable allowed, m.
    switch_delay, injection_delay : float
        Skywalk's latency model, ns (latency objectives and reports).
    t_start, t_end : float
        Start and end temperatures in units of the median worsening of a random swap.
    symmetry : int, optional
        Keep the graph invariant under the rotation ``v -> v + N/g`` of order ``g``
        (:mod:`topogen.optimize.symmetric`; hop objectives, random start, even degree,
        no cable bound).  Default: :func:`~topogen.optimize.symmetric.auto_symmetry`
        where allowed, else 1 (no symmetry).
    restarts : int, optional
        Independent annealing runs (fresh random symmetric starts) the budget is split
        into, best kept; symmetric search only.  Default:
        :func:`~topogen.optimize.symmetric.auto_restarts` (one per ``max(20, 0.06 N)`` s of time limit).
    targeted : float, optional
        Share of the swaps aimed at the pairs at the maximum latency
        (:mod:`topogen.optimize.targeted`; objective ``latency`` only).  Default: 0.5 for
        ``latency``, else 0.
    checkpoint : path-like, optional
        File rewritten atomically every minute and at the end; ``resume`` it later.
    resume : path-like, optional
        Continue a checkpointed run (its start, objective, seed, bounds and schedule;
        ``moves``/``time_limit`` given here replace its budget).
    progress : callable, optional
        ``progress(fraction, text)``.
    started : float, optional
        A :func:`time.monotonic` stamp from which ``time_limit`` bounds *everything* up to
        the return: compiling (or loading) the kernels, the start, the calibration, the
        search and the final check, measured before the search and subtracted from its
        time (``topogen optimize`` passes its process start, so the whole command keeps
        to ``--time-limit``).  Default: ``time_limit`` bounds the search alone.
    reserve : float
        With ``started``: seconds to keep free for the caller's work after the return
        (writing files, a plot).
    engine : {"auto", "compiled", "python"}
        Who runs the search kernels: numba-compiled code, or the same functions as plain
        Python (:mod:`topogen.optimize._kernels`: the same steps and the same result for
        a seed and a move budget, no compilation, slower per move).  ``auto`` (default)
        takes plain Python for a small search (:func:`plain_search`) and the compiled
        code otherwise; ``summary["engine"]`` says which ran.

    Returns
    -------
    OptimizeResult

    Raises
    ------
    ParameterError
        For degrees no simple graph has (``N d`` odd, ``d >= N``), cable bounds no graph
        with these degrees can meet, an unknown objective, or a missing budget; with
        ``started``, when the time limit is used up before the search can start (the
        message says by what).
    TopologyError
        If the start is disconnected.
    """
    if engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    plain = engine == "python" or (engine == "auto" and plain_search(
        topology, num_switches, degree, objective, moves, time_limit, symmetry, max_cable, cable_budget, resume))
    timer = _CompileTimer()
    try:
        with plain_path(plain):
            result = _optimize(topology, num_switches, degree, objective, seed, moves, time_limit, layout,
                               switches_per_cabinet, max_cable, cable_budget, switch_delay, injection_delay,
                               t_start, t_end, symmetry, restarts, targeted, checkpoint, resume, progress,
                               started, reserve, timer)
    finally:
        timer.close()
    result.summary["engine"] = "python" if plain else "compiled"
    return result


#: search engines of :func:`optimize`
ENGINES = ("auto", "compiled", "python")
#: ``engine="auto"`` searches in plain Python with a move budget of at most this many
#: switch-links x moves (``N d moves``), by objective kind: plain Python takes about
#: 1-3 us per unit for the hop objectives (NumPy bit-parallel BFS; 256 switches of degree
#: 8, 1,000 moves: 1.7 s) and about 40 us for the latency ones, while compiling the
#: kernels on a machine whose cache of compiled code is empty takes 4-6 s of CPU
PLAIN_MAX_WORK = {"hops": 250_000, "latency": 20_000}
#: ``engine="auto"`` with a time limit alone searches in plain Python when the network
#: has at most this many switch-links (``N d``, by objective kind), the limit is at most
#: :data:`PLAIN_MAX_SECONDS` and the search kernel is not in the cache of compiled code
#: (compiling it would take most of such a limit; a cached kernel loads in a fraction of
#: a second and makes some 20x more moves per second: 256 switches of degree 8, 3 s:
#: 1,800 moves in plain Python, 33,000 compiled)
PLAIN_MAX_SIZE = {"hops": 2048, "latency": 256}
PLAIN_MAX_SECONDS = 10.0


def plain_search(topology, num_switches, degree, objective, moves, time_limit, symmetry=None,
                 max_cable=None, cable_budget=None, resume=None) -> bool:
    """Whether ``engine="auto"`` runs this search's kernels as plain Python.

    Yes for a small move budget (``N d moves <= PLAIN_MAX_WORK``), and for a short time
    limit alone on a small network (``N d <= PLAIN_MAX_SIZE``, at most
    ``PLAIN_MAX_SECONDS``) while the search kernel it would run is not in the cache of
    compiled code; no for a resumed run.  Arguments as :func:`optimize`'s (unchecked
    here: anything it would refuse answers no, and :func:`optimize` says what is wrong).
    """
    if resume is not None:
        return False
    try:
        kind = get_objective(objective).kind
        if topology is not None:
            n, d = int(topology.num_switches), int(topology.degrees.max())
        else:
            n, d = int(num_switches), int(degree)
        size = n * d
        if moves is not None and size * int(moves) <= PLAIN_MAX_WORK[kind]:
            return True
        if moves is not None or time_limit is None or size > PLAIN_MAX_SIZE[kind] or \
                not float(time_limit) <= PLAIN_MAX_SECONDS:
            return False
        sym = topology is None and max_cable is None and cable_budget is None and kind == "hops" and (
            auto_symmetry(n, d) if symmetry is None else int(symmetry)) > 1
    except (TypeError, ValueError, AttributeError, KeyError, ParameterError):
        return False
    from . import _fast
    from .evaluate import _dynamic_rows

    search = _dynamic_rows if kind == "latency" else _fast.anneal_sym_batch if sym else _fast.anneal_batch
    return not _cached(search)


def _cached(dispatcher) -> bool:
    """Whether numba's cache holds compiled code of ``dispatcher`` (False when unknown)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - not a cached numba dispatcher, another numba version
        return False


class _CompileTimer:
    """Seconds numba spends compiling or loading compiled code while it is open."""

    def __init__(self):
        self._listener = None
        try:
            from numba.core import event
        except ImportError:  # pragma: no cover - numba is a dependency
            return
        self._listener = event.TimingListener()
        event.register("numba:compile", self._listener)

    @property
    def seconds(self) -> float:
        return self._listener.duration if self._listener is not None and self._listener.done else 0.0

    def close(self) -> None:
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)


def _optimize(topology, num_switches, degree, objective, seed, moves, time_limit, layout, switches_per_cabinet,
              max_cable, cable_budget, switch_delay, injection_delay, t_start, t_end, symmetry, restarts,
              targeted, checkpoint, resume, progress, started, reserve, timer) -> OptimizeResult:
    import time

    from ..layout import Layout

    if resume is not None:
        meta, state = _load_checkpoint(resume)
        obj = get_objective(meta["objective"])
        seed = int(meta["seed"])
        moves = meta["moves"] if moves is None and time_limit is None else moves
        time_limit = meta["time_limit"] if moves is None and time_limit is None else time_limit
        moves, time_limit = _check_budget(moves, time_limit)
        n = int(meta["num_switches"])
        start = Topology(n, np.asarray(meta["start_edges"], dtype=np.int32),
                         hosts_per_switch=np.asarray(meta["hosts"]), name=meta["start_name"])
        from ..layout import Floor

        floor = Floor.from_dict(meta["floor"])
        cabinet = np.asarray(meta["cabinet"], dtype=np.int64)
        placement = meta["placement"]
        max_cable, cable_budget = meta["max_cable"], meta["cable_budget"]
        switch_delay, injection_delay = meta["switch_delay"], meta["injection_delay"]
        t_start, t_end = meta["t_start"], meta["t_end"]
        start_desc = meta["start"]
        symmetry = int(meta["symmetry"])
        restarts = int(meta["restarts"])
        targeted = float(meta.get("targeted", 0.0))
    else:
        state = None
        obj = get_objective(objective)
        seed = resolve_seed(seed)
        moves, time_limit = _check_budget(moves, time_limit)
        switch_delay = check_float("switch_delay", switch_delay, 0.0)
        injection_delay = check_float("injection_delay", injection_delay, 0.0)
        t_start = check_float("t_start", t_start, 0.0)
        t_end = check_float("t_end", t_end, 0.0)
        if t_end > t_start:
            raise ParameterError(f"t_end ({t_end:g}) must not exceed t_start ({t_start:g})")
        start_seed = child_seeds(seed, 2)[0]
        free = obj.kind == "hops" and max_cable is None and cable_budget is None
        if topology is None:
            if num_switches is None or degree is None:
                raise ParameterError("give a start topology, or num_switches and degree for a random start")
            n = check_int("num_switches", num_switches, 2)
            d = check_int("degree", degree, 1)
            if symmetry is None:
                symmetry = auto_symmetry(n, d) if free else 1
            elif int(symmetry) > 1 and not free:
                raise ParameterError("symmetry applies to the hop objectives (golf, aspl) without cable bounds")
            edges = random_regular_edges(n, d, make_rng(start_seed))  # validates N and d first
            symmetry = check_symmetry(n, d, symmetry)
            if symmetry > 1:
                edges = symmetric_start(n, d, symmetry, make_rng(start_seed))
            start = Topology(n, edges, name=_RANDOM_START)
            sym = f", invariant under a rotation of order {symmetry}" if symmetry > 1 else ""
            start_desc = f"random {d}-regular graph on {n} switches{sym} (seed {start_seed})"
        else:
            if symmetry not in (None, 1):
                raise ParameterError("symmetry applies to the random start only (a given topology is not "
                                     "known to be symmetric); leave it out or use 1")
            symmetry = 1
            if not isinstance(topology, Topology):
                raise ParameterError(f"topology must be a Topology, got {type(topology).__name__}")
            start = topology
            start_desc = f"{topology.describe()} (seed {topology.seed})"
            if layout is not None and layout.topology is not topology and \
                    layout.topology.num_switches != topology.num_switches:
                raise ParameterError("layout must be the start topology's layout")
        if restarts is None:
            restarts = auto_restarts(start.num_switches, moves, time_limit) if symmetry > 1 else 1
        restarts = check_int("restarts", restarts, 1)
        if restarts > 1 and symmetry == 1:
            raise ParameterError("restarts apply to the symmetric search (a random start with symmetry > 1)")
        aims = obj.kind == "latency" and obj.lexicographic
        targeted = (DEFAULT_TARGETED if aims else 0.0) if targeted is None else check_float("targeted", targeted, 0.0)
        if targeted > 1.0 or (targeted > 0 and not aims):
            raise ParameterError(f"targeted must be a share in [0, 1] and applies to the objective 'latency' only, "
                                 f"got {targeted:g} with {obj.name!r}")
        n = start.num_switches
        cabinet, floor, placement = _floor_for(start, layout, switches_per_cabinet)
    cable = CableModel(cabinet, floor, max_cable, cable_budget)
    degrees = start.degrees
    cable.check_feasible(degrees)
    settings = Settings(obj, seed, moves, time_limit, float(t_start), float(t_end), float(switch_delay),
                        int(symmetry), int(restarts), float(targeted))
    meta = {"version": _CHECKPOINT_VERSION, "objective": obj.name, "seed": seed, "moves": moves,
            "time_limit": time_limit, "num_switches": n, "start_edges": start.edges.tolist(),
            "hosts": start.hosts.tolist(), "start_name": start.name, "start": start_desc,
            "floor": floor.to_dict(), "cabinet": cabinet.tolist(), "placement": placement,
            "max_cable": max_cable, "cable_budget": cable_budget, "switch_delay": switch_delay,
            "injection_delay": injection_delay, "t_start": t_start, "t_end": t_end, "symmetry": symmetry,
            "restarts": restarts, "targeted": targeted}
    if checkpoint is not None:
        from ..output import check_file_output

        check_file_output(checkpoint, inputs=[resume] if resume and Path(resume) != Path(checkpoint) else [])

    graph = SwapGraph(n, state.edges if state is not None else start.edges)
    check_start(graph)
    if state is None and cable.bounded:
        feasible_start(graph, cable, make_rng(child_seeds(seed, 2)[1]))
    writer = None if checkpoint is None else (lambda st: _save_checkpoint(checkpoint, meta, st))

    def finish(best, state):
        """The result topology, its layout and its exact summary."""
        dmax = int(degrees.max())
        params = {"objective": obj.name, "start": start_desc, "num_switches": n, "degree": dmax,
                  "moves_budget": moves, "time_limit": time_limit, "moves": state.moves,
                  "accepted": state.accepted, "t_start": t_start, "t_end": t_end, "symmetry": symmetry,
                  "restarts": restarts, "max_cable": max_cable, "cable_budget": cable_budget}
        if targeted:
            params["targeted"] = targeted
        if obj.kind == "latency":
            params.update(switch_delay=switch_delay, injection_delay=injection_delay)
        result = Topology(n, best, hosts_per_switch=start.hosts, name="optimized", params=params, seed=seed)
        lay = None
        if obj.kind == "latency" or cable.bounded or layout is not None or start.name != _RANDOM_START:
            lay = Layout(result, floor, cabinet, placement=placement, seed=None)
        return result, lay, summarize(result, lay, obj.name, switch_delay=switch_delay,
                                      injection_delay=injection_delay)

    deadline = None
    why = None
    if started is not None and time_limit is not None:
        # the final check costs what it costs on the start (same size): timed here, kept free
        t = time.monotonic()
        finish(np.asarray(graph.edges, dtype=np.int32), SearchState(graph.edges, graph.edges, (0, 0)))
        keep = time.monotonic() - t + max(0.0, float(reserve))
        deadline = started + time_limit - keep

        def _why():
            return (f": {time.monotonic() - started:.1f} s went before it (compiling or loading the search "
                    f"kernels {timer.seconds:.1f} s), and {keep:.1f} s are kept for the final check")

        why = _why

    state = anneal(graph, settings, cable=cable, state=state, checkpoint=writer, progress=progress,
                   deadline=deadline, why=why)
    result, lay, summary = finish(np.asarray(state.best_edges, dtype=np.int32), state)
    summary.update(symmetry=symmetry, restarts=restarts, temperature_unit=state.unit, moves=state.moves, accepted=state.accepted, seconds=round(state.seconds, 1),
                   moves_per_minute=round(60.0 * state.moves / state.seconds) if state.seconds > 0 else None,
                   seed=seed, start=start_desc, compile_seconds=round(timer.seconds, 1))
    return OptimizeResult(result, lay, history_frame(state, obj, n), summary)


def summarize(topology: Topology, layout, objective: str, *, switch_delay: float = 60.0,
              injection_delay: float = 300.0) -> dict:
    """Exact figures of ``topology`` (recomputed by :mod:`topogen.metrics`), the Moore
    diameter bound, the Cerf ASPL bound, the gaps, and the Graph Golf record if known."""
    from ..metrics import distance_stats
    from ..metrics.bounds import aspl_lower_bound, moore_diameter_bound

    n, d = topology.num_switches, topology.degree
    hs = distance_stats(topology)
    bound = aspl_lower_bound(n, d)
    out = {"objective": objective, "num_switches": n, "degree": d, "diameter": hs.diameter,
           "aspl": hs.aspl, "diameter_bound": moore_diameter_bound(n, d), "aspl_bound": bound,
           "aspl_gap_pct": 100.0 * (hs.aspl / bound - 1.0) if bound else math.nan}
    record = GRAPH_GOLF_RECORDS.get((n, d))
    if record is not None:
        out.update(record_diameter=record[0], record_aspl=record[1],
                   record_gap_pct=100.0 * (hs.aspl / record[1] - 1.0))
    if layout is not None:
        out["cable_m"] = float(layout.total_cable_length)
        out["max_cable_m"] = float(np.max(layout.cable_length)) if topology.num_links else 0.0
        if get_objective(objective).kind == "latency":
            from ..metrics import latency_stats

            fr = latency_stats(layout, switch_delay=switch_delay, injection_delay=injection_delay, routing="fr")
            out.update(fr_max_ns=fr.max, fr_avg_ns=fr.avg)
    return out


def plot_history(history: pd.DataFrame, path, *, title: str = "") -> Path:
    """Write the convergence plot (best and current average against moves).

    The format follows the extension (``.png``, ``.svg``, ``.pdf``); written atomically.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..output import save_figure

    path = Path(path)
    hops = "aspl" in history.columns
    cur, best = ("aspl", "best_aspl") if hops else ("avg_path_ns", "best_avg_path_ns")
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot(history["moves"], history[cur], lw=0.8, alpha=0.6, label="current")
    ax.plot(history["moves"], history[best], lw=1.5, label="best")
    ax.set_xlabel("evaluated moves")
    ax.set_ylabel("ASPL (hops)" if hops else "average path latency (ns, endpoints excluded)")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)
    return path

