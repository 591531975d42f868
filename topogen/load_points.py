"""Offered loads of a latency-load curve below saturation.

A saturation search (bisection) simulates almost every point at or just below the
saturation load, so its points alone draw no knee.  :func:`fill_loads` gives the evenly
spaced loads from the lowest load up to a fraction (95 %) of the saturation load that
a sweep simulates afterwards, leaving out every target that a point already simulated
stands close enough to, so no simulation is repeated or wasted::

    >>> fill_loads(0.01, 0.4, points=4, done=[0.01, 0.25])
    [0.133333, 0.38]

The loads are rounded to 6 significant digits, like the bisection's, so a resumed sweep
asks for exactly the same loads and finds its points by their content key.

:func:`knee_sweep` is the whole sweep to saturation over any simulator: the lowest load,
the highest, a bisection on sustained (``completed``) or not, then :func:`fill_loads`.
It only decides the loads; the caller's ``point(load)`` simulates one (or finds it
stored) and returns its row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .errors import ParameterError

__all__ = ["fill_loads", "knee_sweep", "DEFAULT_POINTS", "FILL_FRACTION", "SWEEP_DEFAULTS", "DEFAULT_LOW", "check_points", "MAX_POINTS"]

#: evenly spaced loads below saturation on a swept curve (``--points``)
DEFAULT_POINTS = 8
#: the highest filled load as a fraction of the saturation load
FILL_FRACTION = 0.95
#: the lowest load of a sweep to saturation (``--low``; its latency is the zero-load
#: latency), the one default of ``simulate --sweep``, ``run booksim --sweep`` and ``[sweep]``
DEFAULT_LOW = 0.01
#: settings of a sweep to saturation (those of ``topogen simulate --sweep``)
SWEEP_DEFAULTS = {"low": DEFAULT_LOW, "high": 1.0, "tolerance": 0.01, "points": DEFAULT_POINTS}


#: most evenly spaced loads a swept curve may ask for (each is a simulation)
MAX_POINTS = 1000


def check_points(points) -> int:
    """``points`` as an int, refused with a one-line message unless it is 0 (no filling) or
    in ``[2, MAX_POINTS]`` (every sweep checks it here before simulating anything:
    ``simulate --sweep``, ``run booksim --sweep``, ``run sst --sweep`` and ``[sweep]`` of a
    spec).

    Raises
    ------
    ParameterError
    """
    if isinstance(points, bool) or not isinstance(points, int) or points < 0 or points == 1:
        raise ParameterError(f"--points must be 0 (bisection only) or an integer in [2, {MAX_POINTS}], "
                             f"got {points!r}")
    if points > MAX_POINTS:
        raise ParameterError(f"--points {points:,} asks for more loads than the limit of {MAX_POINTS:,} "
                             f"per sweep (each is a simulation); use at most {MAX_POINTS}")
    return points


def fill_loads(low: float, saturation: float, *, points: int = DEFAULT_POINTS,
               done: Iterable[float] = (), fraction: float = FILL_FRACTION) -> list[float]:
    """Loads to simulate so the curve has ``points`` evenly spaced loads below saturation.

    Parameters
    ----------
    low : float
        Lowest load of the sweep (its zero-load point, the first of the grid).
    saturation : float
        Highest sustained load found by the search.
    points : int
        Loads on the grid ``low, ..., fraction * saturation`` (both ends included); 0
        asks for none.
    done : iterable of float
        Loads already simulated (sustained or not); a grid load within a third of the
        grid step of one of them is left out.
    fraction : float
        Top of the grid as a fraction of ``saturation``.

    Returns
    -------
    list of float
        Increasing loads, rounded to 6 significant digits; empty when ``points`` is 0 or
        the grid's top is not above ``low`` or not finite.
    """
    points = check_points(points)
    top = fraction * saturation
    if points == 0 or not (math.isfinite(top) and math.isfinite(low)) or top <= low:
        return []
    step = (top - low) / (points - 1)
    done = sorted(float(d) for d in done if d is not None and math.isfinite(float(d)))
    out = []
    for i in range(points):
        target = float(f"{low + i * step:.6g}")
        if any(abs(d - target) <= step / 3 for d in done):
            continue
        out.append(target)
    return out


def knee_sweep(point, *, low: float, high: float, tolerance: float, points: int = DEFAULT_POINTS):
    """Sweep the offered load to saturation: ``low``, ``high``, bisection, then the knee.

    Parameters
    ----------
    point : callable(load) -> mapping
        Simulates (or finds) one load and returns its row; ``row["status"] ==
        "completed"`` means the load was sustained.
    low, high : float
        Lowest and highest offered load.
    tolerance : float
        The bisection stops when the bracket ``[sustained, saturated]`` is narrower.
    points : int
        Evenly spaced loads below saturation afterwards (:func:`fill_loads`; loads
        already asked for stand in for close ones).

    Returns
    -------
    (float, float, float)
        The zero-load row's ``latency_avg`` (``nan`` when ``low`` saturates), the highest
        sustained load (``nan`` then) and the lowest saturated one (``inf`` when ``high``
        was sustained).
    """
    if not (0 < low < high) or not math.isfinite(high):
        raise ParameterError(f"sweep needs 0 < low < high, got low={low}, high={high}")
    if not tolerance > 0:
        raise ParameterError(f"tolerance must be positive, got {tolerance}")
    check_points(points)
    asked = [low]
    first = point(low)
    if first["status"] != "completed":
        return math.nan, math.nan, low
    zero = float(first["latency_avg"])
    lo, hi = low, high
    asked.append(high)
    if point(high)["status"] == "completed":
        lo, hi = high, math.inf
    while math.isfinite(hi) and hi - lo > tolerance:
        mid = float(f"{(lo + hi) / 2:.6g}")
        if not lo < mid < hi:
            break
        asked.append(mid)
        if point(mid)["status"] == "completed":
            lo = mid
        else:
            hi = mid
    for load in fill_loads(low, lo, points=points, done=asked):
        point(load)
    return zero, lo, hi


def sweep_size(low: float, high: float, tolerance: float, points: int) -> int:
    """About how many loads :func:`knee_sweep` simulates (for estimates): the two ends,
    the bisection steps and the filled loads."""
    steps = max(0, math.ceil(math.log2(max((high - low) / tolerance, 1.0))))
    return 2 + steps + max(0, points - 2)
