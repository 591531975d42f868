"""Resilience to random link failures (Besta & Hoefler, Slim Fly, Section III-D).

Each *trial* draws one random order of the links (seeded) and fails them in that order,
so the failed set grows with the failure fraction f (the links failed at f are those
failed at every smaller f).  At each fraction of a grid (5 % increments, as in the paper)
the trial records three properties of the surviving network:

* **connected** (III-D1, Table III);
* **diameter** at most ``diameter_increase`` hops above the intact one (III-D2: "an
  increase of up to two in diameter can be tolerated");
* **average path length** at most ``aspl_increase`` hops above the intact one (III-D3:
  "an increase of one hop in the average distance ... can be tolerated"), or at most
  ``aspl_factor`` times it when that is given.

A property's *resilience* is the largest grid fraction at which it holds in at least
``level`` of the trials (default one half: the median trial).  The mean over trials of
each trial's own largest fraction and its 95 % confidence half-width are given as well
(the paper sampled "enough to guarantee a 95 % confidence interval of width 2", in
percent).

Connectivity is incremental: a union-find adds the links of a trial in reverse failure
order, and the moment it joins the last two components says how many links the trial
could lose while staying connected -- one pass over the links per trial, not one
connectivity test per removal (compiled with numba; a SciPy binary search over the
failure count is the fallback and the reference the tests compare with).  Diameter and
average path length only grow as links fail, so each trial finds its largest fraction
by binary search over the grid (bit-parallel BFS of :mod:`topogen.metrics.hops`).

Above ~15,000 switches the exact all-pairs BFS of every failure state takes hours;
``sample=K`` estimates each state from ``K`` sampled sources instead (the sampler and
standard error of :func:`topogen.metrics.hops.distance_stats`): the average path length
is an unbiased estimate with a stated standard error, the diameter a lower bound (see
:func:`resilience`).  Connectivity stays exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._rng import child_seeds, make_rng, resolve_seed
from .._validate import check_float, check_int
from ..errors import ParameterError
from ..topology import Topology, as_topology

__all__ = [
    "ResilienceResult",
    "resilience",
    "removable_links",
    "failure_grid",
    "PROPERTIES",
]

#: Properties :func:`resilience` can track.
PROPERTIES = ("connectivity", "diameter", "aspl")

#: ``engine="auto"`` uses the compiled union-find from this many links x failure orders
#: on; below it SciPy's binary search takes well under a second, less than importing numba
#: and compiling the kernel on a fresh machine.
UNIONFIND_MIN_WORK = 2 * 10**5


def _numba_installed() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


@dataclass(frozen=True)
class ResilienceResult:
    """The outcome of :func:`resilience`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per grid fraction: ``fraction``, ``links_failed``, and for each tracked
        property the share of trials in which it holds (``connected``,
        ``diameter_ok``, ``aspl_ok``).
    disconnection : float
        Largest fraction at which the network stays connected in at least ``level`` of
        the trials (Table III).
    diameter : float or None
        Same for the diameter bound (None when not tracked).
    aspl : float or None
        Same for the average-path-length bound (None when not tracked).
    per_trial : dict
        For each tracked property, each trial's largest grid fraction (array).
    removable : numpy.ndarray
        Links each trial can lose (in its order) while staying connected.
    base_diameter, base_aspl : int, float
        Of the intact network.
    trials, seed, level : int, int, float
    criteria : dict
        The tolerances used (``diameter_increase``, ``aspl_increase``, ``aspl_factor``).
    sample : int or None
        Sampled sources per failure state, ``min(K, N)`` for ``resilience(...,
        sample=K)`` (None without ``sample`` or when only connectivity is tracked).
    aspl_stderr : float
        Largest standard error of the sampled aspl estimates over the failure states
        measured (0 when exact).
    sampled : bool
        True when the sample left switches out (``sample < N``): the diameter and aspl
        are estimates and the diameter resilience is an upper bound.
    """

    table: pd.DataFrame
    disconnection: float
    diameter: float | None
    aspl: float | None
    per_trial: dict
    removable: np.ndarray = field(repr=False)
    base_diameter: int = 0
    base_aspl: float = 0.0
    trials: int = 0
    seed: int = 0
    level: float = 0.5
    criteria: dict = field(default_factory=dict)
    sample: int | None = None
    aspl_stderr: float = 0.0
    sampled: bool = False

    def mean_ci(self, prop: str = "connectivity") -> tuple[float, float]:
        """Mean of the trials' largest fractions for ``prop`` and its 95 % half-width."""
        x = np.asarray(self.per_trial[prop], dtype=float)
        half = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.nan
        return float(x.mean()), float(half)

    def as_row(self) -> dict:
        """Flat columns for :func:`topogen.metrics.analyze`."""
        row = {"resilience_disconnection": self.disconnection}
        if self.diameter is not None:
            row["resilience_diameter"] = self.diameter
        if self.aspl is not None:
            row["resilience_aspl"] = self.aspl
        row["resilience_trials"] = self.trials
        if self.sample is not None:
            row["resilience_sample"] = self.sample
            if self.aspl is not None:
                row["resilience_aspl_stderr"] = self.aspl_stderr
            if self.diameter is not None:
                # a lower bound of each diameter: the criterion can only hold longer
                row["resilience_diameter_upper_bound"] = bool(self.sampled)
        return row


# ----------------------------------------------------------------------------- inputs
def failure_grid(step: float = 0.05, fractions=None) -> np.ndarray:
    """The failure fractions: ``0, step, 2 step, ..., 1`` or the given ``fractions``.

    Raises
    ------
    ParameterError
        If ``step`` is not in (0, 1] or a fraction is outside [0, 1].
    """
    if fractions is None:
        step = check_float("step", step, 0.0, 1.0, min_open=True)
        count = int(math.floor(1.0 / step + 1e-9))
        grid = np.round(np.arange(count + 1) * step, 12)
        return grid if grid[-1] == 1.0 else np.append(grid, 1.0)
    try:
        grid = np.asarray(fractions, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ParameterError(f"fractions must be numbers in [0, 1], got {fractions!r}") from None
    if not len(grid):
        raise ParameterError("fractions must list at least one failure fraction in [0, 1]")
    bad = grid[~np.isfinite(grid) | (grid < 0) | (grid > 1)]
    if len(bad):
        raise ParameterError(
            f"failure fractions must lie in [0, 1] (0.3 = 30 % of the links fail), got {bad[0]:g}"
        )
    return np.unique(grid)


def _checked(obj) -> Topology:
    topology = as_topology(obj)
    if topology.num_switches < 2 or topology.num_links < 1:
        raise ParameterError(
            f"resilience needs at least 2 switches and 1 link, {topology.name} has "
            f"{topology.num_switches} and {topology.num_links}"
        )
    if not topology.is_connected():
        from scipy.sparse.csgraph import connected_components

        ncomp, _ = connected_components(topology.csr(), directed=False)
        raise ParameterError(
            f"resilience needs a connected network (it measures how many failures it takes "
            f"to disconnect it), {topology.name} already has {ncomp} components"
        )
    return topology


# ----------------------------------------------------------------------------- connectivity
def _connected(n: int, edges: np.ndarray) -> bool:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    if len(edges) < n - 1:
        return False
    a = sp.coo_matrix((np.ones(len(edges), dtype=np.int8), (edges[:, 0], edges[:, 1])), shape=(n, n))
    return connected_components(a, directed=False)[0] == 1


def _removable_scipy(n: int, edges: np.ndarray, order: np.ndarray) -> int:
    """Reference: binary search for the most links (in ``order``) that can fail."""
    lo, hi = 0, len(order)  # invariant: failing lo keeps it connected, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _connected(n, edges[order[mid:]]):
            lo = mid
        else:
            hi = mid
    return lo


def removable_links(topology, orders, *, engine: str = "auto") -> np.ndarray:
    """Links each failure order can remove while the network stays connected.

    Parameters
    ----------
    topology : Topology or Layout
        Connected.
    orders : array_like of int, shape (trials, E) or (E,)
        Permutations of the link ids (``topology.edges`` rows), in failure order.
    engine : {"auto", "unionfind", "scipy"}
        ``"unionfind"``: incremental union-find (numba); ``"scipy"``: binary search
        with connected components (reference); ``"auto"`` picks the first available.

    Returns
    -------
    numpy.ndarray
        int64 count per order: failing the first r links keeps the network connected,
        failing r + 1 does not.
    """
    topology = _checked(topology)
    orders = np.atleast_2d(np.asarray(orders, dtype=np.int64))
    m = topology.num_links
    if orders.shape[1] != m:
        raise ParameterError(f"each failure order must list all {m} links, got {orders.shape[1]}")
    if engine not in ("auto", "unionfind", "scipy"):
        raise ParameterError(f"engine must be auto, unionfind or scipy; got {engine!r}")
    if engine == "unionfind" and not _numba_installed():
        raise ParameterError("engine='unionfind' needs numba: run `pip install numba`")
    count = _counter(topology, engine, trials=len(np.atleast_2d(orders)))
    return np.array([count(order) for order in orders], dtype=np.int64)


def _counter(topology: Topology, engine: str = "auto", trials: int = 1):
    """A function: failure order -> links it can lose while staying connected.  ``auto``
    takes SciPy below :data:`UNIONFIND_MIN_WORK` (``trials`` orders of the links)."""
    n = topology.num_switches
    e = topology.edges
    small = engine == "auto" and len(e) * max(1, trials) < UNIONFIND_MIN_WORK
    if engine == "scipy" or small or not _numba_installed():
        return lambda order: _removable_scipy(n, e, order)
    from ._unionfind import connect_point as _connect_point

    u = np.ascontiguousarray(e[:, 0], dtype=np.int64)
    v = np.ascontiguousarray(e[:, 1], dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    return lambda order: int(_connect_point(n, u, v, np.ascontiguousarray(order, dtype=np.int64), parent))


# ----------------------------------------------------------------------------- main
def resilience(
    topology,
    *,
    trials: int = 100,
    step: float = 0.05,
    fractions=None,
    properties=("connectivity", "diameter", "aspl"),
    level: float = 0.5,
    diameter_increase: int = 2,
    aspl_increase: float = 1.0,
    aspl_factor: float | None = None,
    sample: int | None = None,
    seed=None,
) -> ResilienceResult:
    """Random-link-failure resilience of a network (Slim Fly Section III-D).

    Parameters
    ----------
    topology : Topology or Layout
        A connected network with at least one link.
    trials : int
        Seeded random failure orders, in [1, 100000].
    step : float
        Grid increment in (0, 1] (the paper: 0.05).
    fractions : array_like of float, optional
        Explicit failure fractions in [0, 1] instead of the grid.
    properties : sequence of {"connectivity", "diameter", "aspl"}
        What to track; connectivity is always computed (the other two need it).
    level : float
        Share of trials in (0, 1] in which a property must hold at a fraction for the
        fraction to count (0.5: the median trial).
    diameter_increase : int
        Tolerated diameter growth in hops (the paper: 2).
    aspl_increase : float
        Tolerated growth of the average path length in hops (the paper: 1).
    aspl_factor : float, optional
        Instead of ``aspl_increase``: tolerate an average path length up to this factor
        (>= 1) times the intact one.
    sample : int, optional
        Estimate the diameter and average path length of each failure state from this
        many sources (at least 1) instead of all switches; ``sample >= N`` is the exact
        computation.  See Notes.
    seed : int, optional
        Seed of the failure orders (drawn and recorded when None); trial i uses the
        i-th child seed, so a trial's order does not depend on ``trials``.

    Returns
    -------
    ResilienceResult

    Raises
    ------
    ParameterError
        For a disconnected or linkless network, fractions outside [0, 1], or another
        parameter out of range.

    Notes
    -----
    At fraction f a trial has failed the first ``floor(f E + 1e-9)`` links of its order.
    The diameter and average path length are those of the surviving network in
    switch-to-switch hops, over ordered pairs of distinct switches; a disconnected
    network fails both bounds.

    With ``sample=K`` (``K < N``) trial i draws ``K`` sources without replacement from
    the first child seed of its own seed (:func:`topogen.metrics.hops.sample_sources`)
    and measures every failure state of the trial, the intact network included, from
    these same sources, so the binary search compares like with like (distances from
    fixed sources only grow as links fail).  Connectivity stays exact.

    * The average path length of a state is the sampled estimate of
      :func:`~topogen.metrics.hops.distance_stats` (unbiased, with a finite-population
      standard error); the aspl criterion compares it with the same sources' estimate
      on the intact network.  ``aspl_stderr`` is the largest standard error over the
      states measured; ``base_aspl`` is the mean of the trials' intact estimates.
    * The diameter of a state is estimated by the largest eccentricity over the ``K``
      sources, over up to 64 switches farthest from the first 64 sources, and over up to
      64 switches farthest from those (a double sweep).  This is a **lower bound** of
      the diameter (exact on nearly every state measured, docs/metrics.md), so the
      diameter criterion can only hold longer than it should: the diameter resilience
      is an **upper bound** of the exact one, provided the intact diameter is found
      (``base_diameter`` is the largest intact estimate over the trials).
    
    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network
       Topology", SC14, Section III-D, Table III.
    """
    from .hops import distance_stats

    topology = _checked(topology)
    trials = check_int("trials", trials, 1, 100_000)
    level = check_float("level", level, 0.0, 1.0, min_open=True)
    diameter_increase = check_int("diameter_increase", diameter_increase, 0)
    aspl_increase = check_float("aspl_increase", aspl_increase, 0.0)
    if aspl_factor is not None:
        aspl_factor = check_float("aspl_factor", aspl_factor, 1.0)
    if sample is not None:
        sample = check_int("sample", sample, 1,
                           hint=" (sources per failure state, e.g. sample=1000; None for exact)")
    props = [properties] if isinstance(properties, str) else list(properties)
    for p in props:
        if p not in PROPERTIES:
            raise ParameterError(f"properties must be drawn from {', '.join(PROPERTIES)}; got {p!r}")
    grid = failure_grid(step, fractions)
    seed = resolve_seed(seed)
    m = topology.num_links
    n = topology.num_switches
    failed = np.floor(grid * m + 1e-9).astype(np.int64)
    seeds = child_seeds(seed, trials)
    sampled = sample is not None and sample < n  # sample >= N: the exact computation

    def order(i):  # re-drawn when needed: no trials x links matrix is kept
        return make_rng(seeds[i]).permutation(m)

    count = _counter(topology, trials=trials)
    removable = np.array([count(order(i)) for i in range(trials)], dtype=np.int64)
    # connected at grid point g iff failed[g] <= removable
    ok_conn = failed[None, :] <= removable[:, None]
    per_trial = {"connectivity": _last_true(ok_conn, grid)}
    table = {"fraction": grid, "links_failed": failed, "connected": ok_conn.mean(axis=0)}

    distances = bool({"diameter", "aspl"} & set(props))
    cache: dict = {}
    worst = [0.0]  # largest standard error of a sampled aspl

    def measure(sub, i):
        if not sampled:
            st = distance_stats(sub)
            return st.diameter, st.aspl
        st = distance_stats(sub, sample=sample, seed=source_seeds[i])
        worst[0] = max(worst[0], st.stderr)
        return max(st.diameter, _swept_diameter(sub, sources[i])), st.aspl

    def stats(i, g):
        key = (i, g)
        if key not in cache:
            if cache.get("trial") != i:
                cache["trial"], cache["order"] = i, order(i)
            sub = Topology(n, topology.edges[np.sort(cache["order"][failed[g]:])])
            cache[key] = measure(sub, i)
        return cache[key]

    if distances and sampled:
        from .hops import sample_sources

        source_seeds = [child_seeds(s, 1)[0] for s in seeds]
        sources = [sample_sources(n, sample, s) for s in source_seeds]
        intact = [measure(topology, i) for i in range(trials)]
        for i in range(trials):  # the grid's fractions with no failed link are the intact state
            cache.update({(i, int(g)): intact[i] for g in np.flatnonzero(failed == 0)})
        base_diameter = max(d for d, _ in intact)
        base_aspls = np.array([a for _, a in intact])
        base_aspl = float(base_aspls.mean())
    elif distances:
        base = distance_stats(topology)
        base_diameter, base_aspl = int(base.diameter), float(base.aspl)
        base_aspls = np.full(trials, base.aspl)
    else:
        base_diameter, base_aspl = -1, math.nan

    limits = {}
    if "diameter" in props:
        limits["diameter"] = (0, np.full(trials, base_diameter + diameter_increase))
    if "aspl" in props:
        bound = base_aspls * aspl_factor if aspl_factor is not None else base_aspls + aspl_increase
        limits["aspl"] = (1, bound + 1e-12)
    for prop, (idx, bound) in limits.items():
        ok = np.zeros_like(ok_conn)
        for i in range(trials):
            conn = np.flatnonzero(ok_conn[i])
            lo, hi = -1, len(conn)  # conn[:lo+1] hold the bound, conn[hi:] do not
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if stats(i, int(conn[mid]))[idx] <= bound[i]:
                    lo = mid
                else:
                    hi = mid
            ok[i, conn[: lo + 1]] = True
        per_trial[prop] = _last_true(ok, grid)
        table[f"{prop}_ok"] = ok.mean(axis=0)

    def summary(prop):
        if prop not in per_trial:
            return None
        share = table["connected" if prop == "connectivity" else f"{prop}_ok"]
        hold = np.flatnonzero(share >= level - 1e-12)
        return float(grid[hold[-1]]) if len(hold) else math.nan

    return ResilienceResult(
        table=pd.DataFrame(table),
        disconnection=summary("connectivity"),
        diameter=summary("diameter"),
        aspl=summary("aspl"),
        per_trial=per_trial,
        removable=removable,
        base_diameter=int(base_diameter),
        base_aspl=float(base_aspl),
        trials=trials,
        seed=seed,
        level=level,
        criteria={"diameter_increase": diameter_increase, "aspl_increase": aspl_increase,
                  "aspl_factor": aspl_factor},
        sample=min(sample, n) if distances and sample is not None else None,
        aspl_stderr=float(worst[0]),
        sampled=bool(distances and sampled),
    )


#: Switches per sweep of the diameter estimate (one 64-bit word of the bit-parallel BFS).
_SWEEP = 64

#: BFS sources :func:`_swept_diameter` adds to each sampled failure state: three sweeps
#: (the first from the sample's first word, whose farthest switches ``distance_stats``
#: does not return), counted by :func:`topogen.metrics.effort.resilience_state_sources`.
SWEEP_SOURCES = 3 * _SWEEP


def _sweep(topology: Topology, sources: np.ndarray) -> tuple[int, np.ndarray]:
    """Largest eccentricity of ``sources`` (at most one word of them) and the switches
    at that distance from one of them."""
    from .hops import _bfs_block, _CSRPlan

    last: list = [None]

    def record(level, new):
        last[0] = new.copy()

    counts, _, _ = _bfs_block(_CSRPlan(topology), np.asarray(sources, dtype=np.intp), record=record)
    if last[0] is None:  # pragma: no cover - a connected network of >= 2 switches
        return 0, np.asarray(sources, dtype=np.intp)
    return len(counts), np.flatnonzero(np.bitwise_or.reduce(last[0], axis=0))


def _swept_diameter(topology: Topology, sources: np.ndarray) -> int:
    """Double sweep: the eccentricity of the switches farthest from the first sources,
    then of those farthest from them (a lower bound of the diameter)."""
    _, far = _sweep(topology, sources[:_SWEEP])
    first, far = _sweep(topology, far[:_SWEEP])
    second, _ = _sweep(topology, far[:_SWEEP])
    return max(first, second)


def _last_true(ok: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Per row, the grid value of the last True of its leading run (NaN if none)."""
    lead = np.cumprod(ok, axis=1).sum(axis=1)
    out = np.full(len(ok), math.nan)
    has = lead > 0
    out[has] = grid[lead[has] - 1]
    return out
