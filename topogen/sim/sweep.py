"""Load sweeps of the reference simulator: zero-load latency and saturation throughput.

:func:`sweep` simulates the lowest load (the zero-load latency) and bisects the offered load
between ``low`` and ``high`` on the outcome (``completed`` = sustained, anything else =
saturated) until the bracket is narrower than ``tolerance``, then fills the curve below
saturation with evenly spaced loads (:func:`topogen.load_points.fill_loads`, ``points``
of them up to 95 % of the saturation load, leaving out those a point already simulated
stands in for), so the curve shows its knee.  After every point its row is
added to the results file under a lock (:func:`topogen.results.append_rows`), so an
interrupted sweep leaves a valid file and concurrent sweeps into one file keep every row.

Resume is keyed by content: a point's key (:func:`point_key`) is every column that changes
its numbers -- topology, the routing's content digest (topology, layout, tables; recorded as
``network_digest`` in ``params``), routing, traffic, load, simulator configuration, clock
and ``sim_seed``.  Without a seed the seed is derived from that key (:func:`derive_seed`),
so a sweep killed and run again finds its points instead of simulating them under a new seed.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from .._digest import routing_digest, seed_from
from .._rng import resolve_seed
from ..errors import ParameterError
from ..results import append_rows, make_row, read_rows
from ..load_points import check_points, knee_sweep
from .measure import describe, simulate

__all__ = ["sweep", "SweepOutcome", "point_key", "derive_seed", "with_digest"]

_KEY_COLUMNS = ("simulator", "topology", "topology_params", "num_switches", "routing", "traffic",
                "load_unit", "params", "sim_seed")


@dataclass
class SweepOutcome:
    """Result of :func:`sweep`.

    ``saturation_load`` is the highest sustained load found and ``saturation_upper`` the
    lowest saturated one (``inf`` when even ``high`` was sustained).
    """

    rows: list
    zero_load_latency: float
    saturation_load: float
    saturation_upper: float
    simulated: int
    reused: int


def with_digest(row: dict, routing) -> dict:
    """``row`` with the routing's content digest recorded as ``network_digest`` in ``params``."""
    params = json.loads(row["params"]) if row.get("params") else {}
    params["network_digest"] = routing_digest(routing)
    out = dict(row)
    out["params"] = make_row(params=params)["params"]
    return out


def point_key(row) -> tuple | None:
    """The resume key of a reference-simulator row (``None`` for other simulators' rows)."""
    if row.get("simulator") != "reference":
        return None
    pd = sys.modules.get("pandas")  # a row read by pandas has its missing value; not imported to ask

    def text(v):
        missing = v is None or (pd is not None and v is pd.NA) or (isinstance(v, float) and math.isnan(v))
        return "None" if missing else str(v)

    def key_text(c):
        v = row.get(c)
        if c == "params" and isinstance(v, str) and ('"engine"' in v or '"routing_default"' in v):
            # neither the engine nor a note that the routing was the family default changes
            # the numbers: not part of the key
            d = json.loads(v)
            d.pop("engine", None)
            d.pop("routing_default", None)
            v = make_row(params=d)["params"]
        return text(v)

    return tuple(key_text(c) for c in _KEY_COLUMNS) + (f"{float(row.get('offered_load')):.12g}",)


def derive_seed(routing, **kwargs) -> int:
    """The seed of a point simulated without one: derived from everything in its key but
    the load and the seed (so one sweep shares one seed, and a single ``simulate`` at a
    load gets the seed of the sweep's point at that load).

    Parameters
    ----------
    routing : Routing
    **kwargs
        The arguments of :func:`topogen.sim.simulate` (traffic, load, load_unit, config
        fields ...); ``seed`` is ignored.
    """
    kwargs = {k: v for k, v in kwargs.items() if k != "seed"}
    row = with_digest(describe(routing, seed=0, **kwargs), routing)
    params = json.loads(row["params"])
    params.pop("packet_rate", None)  # the only load-dependent parameter
    params.pop("engine", None)  # does not change the numbers
    parts = [str(row.get(c)) for c in _KEY_COLUMNS if c not in ("params", "sim_seed")]
    return seed_from("topogen-reference-sim", parts, params)


def _core_index_files() -> bool:
    """Whether the folder numba's cache locators would use for :mod:`._core` holds an
    index file of its event loop (``_core.run-<line>.<python>.nbi``), found without importing
    numba.  A folder named by ``TOPOGEN_NUMBA_CACHE`` or ``NUMBA_CACHE_DIR`` is the only
    one numba reads when set (with numba's per-source subfolder ``<folder name>_<sha1 of
    its absolute path>``); otherwise the package's ``__pycache__``, the user's numba cache
    folder and topogen's private temporary one (:mod:`topogen._sssp`)."""
    import glob
    import hashlib
    import os
    import tempfile

    src = os.path.dirname(os.path.abspath(__file__))
    sub = os.path.basename(src) + "_" + hashlib.sha1(src.encode()).hexdigest()
    named = [r for r in (os.environ.get("TOPOGEN_NUMBA_CACHE"), os.environ.get("NUMBA_CACHE_DIR"))
             if r]
    if named:
        folders = [os.path.join(r, sub) for r in named]
    else:
        uid = os.getuid() if hasattr(os, "getuid") else "user"
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folders = [os.path.join(src, "__pycache__"), os.path.join(xdg, "numba", sub),
                   os.path.join(tempfile.gettempdir(), f"topogen-numba-cache-{uid}", sub)]
    return any(glob.glob(os.path.join(glob.escape(f), "_core.run-*.nbi")) for f in folders)


def _core_cached() -> bool:
    """Whether numba's cache holds compiled code of the simulator's event core (False
    when unknown or numba is missing).  Without an index file of the core in any of
    numba's cache folders (:func:`_core_index_files`) numba is not even imported."""
    if not _core_index_files():
        return False
    try:
        from numba.core.dispatcher import Dispatcher

        from . import _core
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    run = getattr(_core, "run", None)  # the event loop, cached last (its helpers are cached as it compiles)
    if not isinstance(run, Dispatcher):
        return False
    try:
        return bool(run._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - not cached, another numba version
        return False


def _sweep_engine(kwargs: dict) -> dict:
    """``kwargs`` with ``engine="auto"`` made ``compiled`` for the whole sweep when the
    event core is already in the cache of compiled code: a sweep runs a dozen points or
    more, and the cached core loads in a fraction of a second (a 4x4 torus sweep of 14
    points: 2.4 s of CPU compiled, 3.6 s on the Python engine); with an empty cache each
    point chooses (:meth:`~topogen.sim.config.SimConfig.for_run`), so a small network is
    swept without compiling.  The rows are the same either way."""
    from .config import SimConfig

    config = kwargs.get("config")
    engine = kwargs.get("engine", config.engine if isinstance(config, SimConfig) else SimConfig().engine)
    if engine == "auto" and _core_cached():
        return dict(kwargs, engine="compiled")
    return kwargs


def sweep(routing, output, *, low: float = 0.01, high: float = 1.0, tolerance: float = 0.01,
          resume: bool = True, seed=None, progress=None, points: int = 0, starting=None,
          **kwargs) -> SweepOutcome:
    """Find the zero-load latency and the saturation load by bisection, then fill the
    curve below saturation with evenly spaced loads.

    Parameters
    ----------
    routing : Routing
    output : path
        Results file (``.csv``/``.json``/``.parquet``); rows of other sweeps in it are kept,
        and rows are added under a lock, so concurrent sweeps may share it.
    low, high : float
        Lowest and highest offered load (in ``kwargs["load_unit"]``, default flits/host/cycle).
    tolerance : float
        Stop when the bracket ``[sustained, saturated]`` is narrower than this.
    resume : bool
        Reuse points already in ``output``.
    seed : int, optional
        One seed for every point (derived from the points' content when None, see
        :func:`derive_seed`).
    progress : callable(load, row), optional
        Called after each point.
    starting : callable(load), optional
        Called just before a load is simulated (not for a point reused from ``output``).
    points : int
        Evenly spaced loads from ``low`` to 95 % of the saturation load on the curve (0, the
        default here: bisection only, for callers that need only the saturation load;
        ``topogen simulate --sweep`` asks for :data:`~topogen.load_points.DEFAULT_POINTS`);
        loads a bisection point already stands close to are not simulated.
    **kwargs
        Passed to :func:`topogen.sim.simulate` (traffic, load_unit, config fields ...).
    """
    if not (0 < low < high) or not math.isfinite(high):
        raise ParameterError(f"sweep needs 0 < low < high, got low={low}, high={high}")
    if not tolerance > 0:
        raise ParameterError(f"tolerance must be positive, got {tolerance}")
    check_points(points)
    kwargs = _sweep_engine(kwargs)
    seed = derive_seed(routing, load=low, **kwargs) if seed is None else resolve_seed(seed)
    output = Path(output)
    index: dict = {}
    if output.exists():
        for r in read_rows(output):
            k = point_key(r)
            if k is not None:
                index[k] = dict(r)
    done_rows: list[dict] = []
    counts = {"simulated": 0, "reused": 0}

    def point(load: float) -> dict:
        k = point_key(with_digest(describe(routing, load=load, seed=seed, **kwargs), routing))
        if k in index and resume:
            counts["reused"] += 1
            row = index[k]
        else:
            if starting is not None:
                starting(load)
            row = with_digest(simulate(routing, load=load, seed=seed, **kwargs), routing)
            counts["simulated"] += 1
            index[k] = row
            append_rows(output, [row], replace_key=point_key)
        done_rows.append(row)
        if progress is not None:
            progress(load, row)
        return row

    zero, lo, hi = knee_sweep(point, low=low, high=high, tolerance=tolerance, points=points)
    done_rows.sort(key=lambda r: float(r["offered_load"]))
    return SweepOutcome(done_rows, zero, lo, hi, counts["simulated"], counts["reused"])
