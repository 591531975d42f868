"""What a long command will do, and about how long it takes, said before it starts.

Every long command (``run booksim --sweep``, ``simulate --sweep``, ``experiment run``,
``crossval``, the simulation reproductions) prints one line before its first simulation::

    10 sweeps, 10 to 70 simulations (70 when measured), about 54 CPU seconds (rate from 70
    simulations in 54 s of CPU, measured 2026-11-30 on an idle 2-core machine ...)

The counts come from the plan alone (nothing is simulated to make them).  A load sweep's
count is a range: the lowest load, the highest, the bisection steps and the filled loads
below saturation, of which only the outcomes decide how many run.  A recorded rate (a
measured run of the same work, named in the line) gives CPU time, since on a shared
machine wall time says more about the neighbours than about the work.  Without one, a
sweep tells its pace once two points have run (the first carries the start-up), in wall
time: how long this machine, as busy as it is now, takes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

__all__ = ["sweep_simulations", "minutes_text", "plan_text", "Rate", "FirstPoint", "SweepReport", "sweep_loads",
           "measured_cycles"]


def sweep_simulations(low: float, high: float, tolerance: float, points: int = 0) -> tuple[int, int]:
    """Fewest and most simulations of one sweep to saturation
    (:func:`topogen.load_points.knee_sweep`): at least the lowest load (when it already
    saturates), at most the lowest and highest load, every bisection step (the bracket
    halves each step whatever the outcome, so their number is fixed by ``high - low`` and
    ``tolerance``) and ``points - 1`` filled loads (the lowest is one of the grid's)."""
    steps = 0
    lo, hi = float(low), float(high)
    while hi - lo > tolerance:  # the bisection's own arithmetic, rounded as it rounds
        mid = float(f"{(lo + hi) / 2:.6g}")
        if not lo < mid < hi:
            break
        steps += 1
        hi = mid  # either half has the same width
    return 1, 2 + steps + max(0, int(points) - 1)


def minutes_text(seconds: float, cpu: bool = True) -> str:
    """``"about 4.2 CPU minutes"`` / ``"about 40 CPU seconds"`` of ``seconds`` of CPU
    (``cpu=False``: ``"about 4.2 minutes"`` of wall time)."""
    kind = "CPU " if cpu else ""
    if not math.isfinite(seconds):
        return f"an unknown {kind}time"
    if seconds < 90:
        return f"about {max(seconds, 1):.0f} {kind}seconds"
    if seconds < 5400:
        return f"about {seconds / 60:.2g} {kind}minutes"
    return f"about {seconds / 3600:.2g} {kind}hours"


def _count_text(simulations) -> str:
    if isinstance(simulations, tuple):
        lo, hi = simulations
        return f"{lo:,} simulations" if lo == hi else f"{lo:,} to {hi:,} simulations"
    return f"{simulations:,} simulations"


@dataclass(frozen=True)
class Rate:
    """A recorded cost: ``simulations`` took ``cpu_s`` seconds of CPU, measured as ``source``
    says (when, where)."""

    simulations: int
    cpu_s: float
    source: str

    @property
    def per_simulation(self) -> float:
        return self.cpu_s / self.simulations

    def text(self) -> str:
        return f"rate from {self.simulations:,} simulations in {self.cpu_s:,.0f} s of CPU, {self.source}"


def plan_text(points: int, simulations, *, expected: int | None = None, seconds: float | None = None,
              rate: str | None = None, what: str = "points") -> str:
    """The estimate line: ``"N points, M simulations, about X CPU minutes (rate from ...)"``.

    Parameters
    ----------
    points : int
        Points of the plan (sweeps, experiment points, loads x simulators ...).
    simulations : int or (int, int)
        Simulations the plan runs, or the fewest and most.
    expected : int, optional
        The count a measured run of the same plan had (shown beside a range).
    seconds : float, optional
        Expected CPU seconds; None when no rate is known yet.
    rate : str, optional
        Where the rate comes from.
    what : str
        Name of the points.
    """
    text = f"{points:,} {what}, {_count_text(simulations)}"
    if expected is not None and isinstance(simulations, tuple) and simulations[0] != simulations[1]:
        text += f" ({expected:,} when measured)"
    if seconds is None:
        return text + "; the time is estimated once two have run"
    text += f", {minutes_text(seconds)}"
    if rate:
        text += f" ({rate})"
    return text


class FirstPoint:
    """The time estimate of a sweep from its own simulations: the first simulated point
    carries the start-up (imports, compiling the reference simulator's engine on first
    use, loading BookSim), so the pace is the second simulated point's.  Told each point
    (:meth:`began` before a simulation, :meth:`after` after every point), it returns one
    line after the second simulated point (``None`` otherwise).  The pace is wall time
    (a simulator may run in a process not yet waited for, whose CPU time is not known
    until it ends), so the line says how long this machine, as busy as it is now, takes."""

    def __init__(self, most: int):
        self.most = int(most)
        self.done = 0
        self.simulated = 0
        self.told = False
        self._t0 = time.monotonic()

    def began(self) -> None:
        """A simulation starts now."""
        self._t0 = time.monotonic()

    def after(self, simulated: bool = True) -> str | None:
        """Count a point (``simulated=False``: found stored); the estimate line once."""
        self.done += 1
        if not simulated:
            return None
        self.simulated += 1
        if self.told or self.simulated < 2:
            return None
        self.told = True
        spent = time.monotonic() - self._t0
        left = max(self.most - self.done, 0)
        return (f"estimate: the last simulation took {spent:.1f} s; at most {left} more, "
                f"{minutes_text(spent * left, cpu=False)} at that pace (higher loads take longer, "
                "saturated ones stop early)")


class SweepReport:
    """What a load-sweep command shows: the plan before the first point (:attr:`plan`),
    then a progress line per point (a bar on a terminal, a plain log line otherwise, and
    one at least every :func:`topogen._progress.log_interval` seconds while a point runs)
    and, after the second simulated point, the time estimate at its rate.

    Pass :meth:`starting` and :meth:`progress` as the sweep's ``starting`` and
    ``progress`` callbacks, inside ``with report:``.
    """

    def __init__(self, desc: str, low: float, high: float, tolerance: float, points: int = 0):
        from ._progress import Progress

        least, most = sweep_simulations(low, high, tolerance, points)
        self.plan = plan_text(1, (least, most), what="sweep")
        self._first = FirstPoint(most)
        self._bar = Progress(desc=desc, log_steps=True)
        self._simulating = False

    def __enter__(self) -> "SweepReport":
        self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.close()

    def starting(self, load: float) -> None:
        self._first.began()
        self._simulating = True
        self._bar.status(f"simulating load {load:g}")

    def progress(self, load: float, row) -> None:
        line = self._first.after(simulated=self._simulating)
        self._simulating = False
        self._bar.update(status=f"load {load:g}: {row['status']}")
        if line:
            self._bar.log(line)


def sweep_loads(low: float, high: float, tolerance: float, points: int, knee: float) -> list[tuple[float, bool]]:
    """The loads a sweep to saturation (:func:`topogen.load_points.knee_sweep`) simulates
    on a curve that sustains every load up to ``knee`` and no load above it, in the order
    it asks for them: ``(load, sustained)`` each.  What a plan counts when it assumes
    where a curve saturates."""
    from .load_points import knee_sweep

    asked: list[tuple[float, bool]] = []

    def point(load):
        ok = load <= knee + 1e-12
        asked.append((float(load), ok))
        return {"status": "completed" if ok else "saturated", "latency_avg": 0.0}

    knee_sweep(point, low=low, high=high, tolerance=tolerance, points=points)
    return asked


def measured_cycles(warmup_periods: int, sample_period: int, max_samples: int, *, converge_samples: int = 3,
                    sustained: bool = True, near_knee: bool = False) -> int:
    """Cycles one load runs under BookSim's ``sim_type = latency`` measurement (that of
    :func:`topogen.sim.simulate`), as a plan counts them: a sustained load ``warmup_periods``
    periods of warm-up, then sample periods until the convergence test stops it at its
    first chance (the first period sets the means, ``converge_samples`` more agree), and a
    drain of about one more period; a saturated load every one of ``max_samples`` periods
    (the most it runs: saturation found earlier stops it sooner).  A sustained load
    ``near_knee`` rarely converges (its queues still grow): all ``max_samples`` periods
    and a drain about as long."""
    if sustained and near_knee:
        return 2 * int(max_samples) * int(sample_period)
    if not sustained:
        return int(max_samples) * int(sample_period)
    periods = min(int(warmup_periods) + int(converge_samples) + 1, int(max_samples))
    return (periods + 1) * int(sample_period)
