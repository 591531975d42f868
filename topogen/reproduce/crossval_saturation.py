"""Saturation of one simulator in :func:`topogen.reproduce.crossval.crossval`: the bracket
of its saturation load from the statuses of the loads it ran, the bisection that narrows
it, and how repeated runs (seeds) of one load make that load's status.

``docs/booksim.md`` ("Agreement with the reference simulator") explains the rule chosen
for repeated runs and what it changes on networks whose routing can deadlock.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..errors import ParameterError

__all__ = ["SATURATION_RULES", "saturation_bracket", "point_status", "onset_spread"]


def saturation_bracket(points: Mapping[float, str]) -> tuple[float, float]:
    """(highest sustained load, lowest load not sustained) from ``{load: status}``.

    The bracket's lower end is the highest ``completed`` load below every other outcome
    (``nan`` if the lowest load already failed); the upper end is the lowest load that
    did not complete (``inf`` if every load completed).
    """
    bad = [x for x, st in points.items() if st != "completed"]
    hi = min(bad) if bad else math.inf
    good = [x for x, st in points.items() if st == "completed" and x < hi]
    return (max(good) if good else math.nan), hi


#: how a load's repeated runs make its status (:func:`point_status`)
from .names import SATURATION_RULES  # noqa: E402 (the one list, light for the command line)


def point_status(statuses, rule: str = "majority") -> str:
    """One load's status from the statuses of its repeated runs (seeds ``seed, seed+1, ...``).

    Parameters
    ----------
    statuses : sequence of str
        The runs' statuses (``completed``, ``saturated``, ``deadlock`` ...).
    rule : {"majority", "any"}
        ``majority``: the load is not sustained when at least half its runs failed;
        ``any``: when one run failed (the rule before 26 November 2026).

    Returns
    -------
    str
        ``completed``, or the most common failing status (the first of equals).

    Notes
    -----
    Why ``majority`` is the default: where the routing's channel dependency graph is
    cyclic (BookSim's ``min_anynet`` on tori, Random, Skywalk, Slim Fly, Dragonfly) the
    onset is a deadlock that strikes at random, and one seed may deadlock at a load and
    complete a higher one.  With ``any``, the bisection follows the unluckiest seed at
    every probe, so the estimate is close to the *earliest* onset of the seeds and moves
    with every added seed.  With ``majority`` it brackets the load at which half the
    runs fail -- the median onset, which more seeds estimate better instead of pushing
    down.  Where completion is monotone in the load and the same for every seed (the
    acyclic networks, away from the knee's noise) both rules give the same bracket, and
    with one run per load they are the same rule, so one rule serves both kinds of
    network.  Both simulators of a comparison are judged by the same rule.
    """
    if rule not in SATURATION_RULES:
        raise ParameterError(f"saturation rule must be one of {', '.join(SATURATION_RULES)}, got {rule!r}")
    bad = [st for st in statuses if st != "completed"]
    failed = bool(bad) if rule == "any" else 2 * len(bad) >= len(statuses) and bool(bad)
    if not failed:
        return "completed"
    return max(dict.fromkeys(bad), key=bad.count)


def onset_spread(lines) -> tuple[float, float]:
    """(first_fail, last_pass) of one simulator's points: the lowest load at which any run
    failed (``inf`` if none) and the highest load at which any run completed (``nan`` if
    none).

    ``lines`` are the crossval table's lines of that simulator (``load``, ``runs``,
    ``failed_runs``; a line without ``failed_runs`` counts its ``status``).  With one run
    per load and a monotone onset, ``last_pass`` and ``first_fail`` are the saturation
    bracket; with repeats, ``first_fail < last_pass`` says the runs' onsets overlap
    (seed-dependent or non-monotone, as with a deadlocking cyclic routing), and the
    interval ``[min(first_fail, sat_low), max(last_pass, sat_high)]`` is where the seeds'
    onsets lie, over the loads run.
    """
    fails, passes = [], []
    for ln in lines:
        runs = int(ln.get("runs", 1) or 0)
        failed = ln.get("failed_runs")
        if failed is None or failed != failed:
            failed = 0 if ln.get("status") == "completed" else runs
        failed = int(failed)
        if failed:
            fails.append(float(ln["load"]))
        if runs - failed > 0:
            passes.append(float(ln["load"]))
    return (min(fails) if fails else math.inf), (max(passes) if passes else math.nan)


def _bisect(run_point, points: dict, rel_tol: float, ceiling: float = 1.0, max_steps: int = 12) -> None:
    """Narrow a simulator's saturation bracket by bisection until it is within ``rel_tol``
    of its lower end, adding the loads it runs to ``points``; an unbounded bracket is first
    closed by doubling the highest sustained load (up to ``ceiling``)."""
    lo, hi = saturation_bracket(points)
    if math.isnan(lo):
        return
    while math.isinf(hi):  # no load failed yet: double the load up to the ceiling
        probe = min(ceiling, float(f"{2 * lo:.6g}"))
        if probe in points or probe <= lo:
            return
        run_point(probe)
        lo, hi = saturation_bracket(points)
    for _ in range(max_steps):
        if hi - lo <= rel_tol * lo:
            return
        mid = float(f"{(lo + hi) / 2:.6g}")
        if not lo < mid < hi:
            return
        run_point(mid)
        lo, hi = saturation_bracket(points)


def _saturation_value(lo: float, hi: float) -> float:
    """The saturation load of a bracket: its lower end, the highest sustained load (``nan``
    when unbounded) -- the number ``run booksim --sweep`` and ``simulate --sweep`` report
    and the one the latency plot marks and gives in its legend (``sat.``), so that table
    and plot show the same value."""
    if math.isnan(lo) or math.isinf(hi):
        return math.nan
    return lo
