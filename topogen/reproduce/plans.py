"""The plans of the simulation reproductions, counted without simulating, and their
estimate line (:func:`estimate_text`), printed before a reproduction starts.

``skywalk-sim``, ``dsnf-sim`` and ``layout-sim`` run one load sweep per network and
traffic (:func:`topogen.load_points.knee_sweep`, bisection only); how many simulations a
sweep takes depends on where its network saturates, so the plan gives the fewest and most
(:func:`topogen._estimate.sweep_simulations`) and, for the settings a run was measured
with (:data:`RECORDED`), the measured count and CPU time.  A test keeps the count that
README.md and docs/reproductions.md state for the main job equal to :data:`RECORDED` and
inside the plan's range.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from .._estimate import Rate, plan_text, sweep_simulations

__all__ = ["Plan", "plan", "estimate_text", "RECORDED"]

#: measured runs: reproduction -> (the settings that differ from its defaults, the cost)
RECORDED: dict[str, tuple[dict, Rate]] = {
    "skywalk-sim": ({}, Rate(70, 54.0, "measured 2026-11-30 on an idle 2-core machine from a fresh clone, "
                                         "compiled escape routing, numba compilation included")),
}


@dataclass(frozen=True)
class Plan:
    """What a reproduction will run: ``points`` sweeps of ``least`` to ``most`` simulations
    in all; ``expected`` and ``rate`` when a run of the same settings was measured."""

    points: int
    least: int
    most: int
    expected: int | None = None
    rate: Rate | None = None


def _settings(func, kwargs: dict) -> dict:
    params = inspect.signature(func).parameters
    out = {k: p.default for k, p in params.items() if p.default is not inspect.Parameter.empty}
    out.update(kwargs)
    return out


def _sweeps(name: str, s: dict) -> tuple[int, float, float, float] | None:
    """(sweeps, low, high, tolerance) of a reproduction's settings; None when it is not one
    of the sweep reproductions (or its settings are refused: the reproduction says why)."""
    if name == "skywalk-sim":
        from .skywalk_sim import NETWORKS, TRAFFICS, _choose

        keys, traffics = _choose(s["topologies"], NETWORKS, "topologies"), _choose(s["traffic"], TRAFFICS, "traffic")
    elif name == "dsnf-sim":
        from .dsnf_sim import NETWORKS, TRAFFICS
        from .skywalk_sim import _choose

        keys, traffics = _choose(s["topologies"], NETWORKS, "topologies"), _choose(s["traffic"], TRAFFICS, "traffic")
    elif name == "layout-sim":
        from .layout_sim import FIG13, FIG16, NETWORKS, TRAFFICS
        from .skywalk_sim import _choose

        which = s["topologies"].strip()
        keys = ([k for k in NETWORKS if k not in FIG13 and k != "nbr05-4"] if which == "default" else
                ["ring8", *FIG13] if which == "fig13" else list(FIG16) if which == "fig16" else
                _choose(s["topologies"], NETWORKS, "topologies"))
        traffics = _choose(s["traffic"], TRAFFICS, "traffic")
    else:
        return None
    return len(keys) * len(traffics), float(s["low"]), float(s["high"]), float(s["tolerance"])


def plan(name: str, kwargs: dict | None = None) -> Plan | None:
    """The plan of reproduction ``name`` with parameters ``kwargs`` (the rest at their
    defaults), or None when it has no simulation plan here.

    Raises
    ------
    ParameterError
        A parameter the reproduction refuses (the same message).
    """
    from .. import registry

    kwargs = dict(kwargs or {})
    spec = registry.experiment(name)
    s = _settings(spec.func, kwargs)
    got = _sweeps(name, s)
    if got is None:
        return None
    sweeps, low, high, tol = got
    lo, hi = sweep_simulations(low, high, tol, 0)  # the scale of a shared host port cancels out
    expected = rate = None
    if name in RECORDED:
        changed, measured = RECORDED[name]
        rate = measured
        if _settings(spec.func, changed) == s:
            expected = measured.simulations
    return Plan(sweeps, sweeps * lo, sweeps * hi, expected, rate)


def estimate_text(name: str, kwargs: dict | None = None) -> str | None:
    """The line a reproduction prints before it starts: ``"N sweeps, M simulations, about X
    CPU minutes (rate from ...)"``; None when ``name`` has no plan here."""
    p = plan(name, kwargs)
    if p is None:
        return None
    count = p.expected if p.expected is not None else p.most
    seconds = None if p.rate is None else p.rate.per_simulation * count
    text = plan_text(p.points, (p.least, p.most), expected=p.expected, seconds=seconds,
                     rate=None if p.rate is None else p.rate.text(), what="sweeps")
    if p.rate is None:
        return text.split(";")[0] + "; no measured rate for this reproduction"
    if p.expected is None:
        text = text.replace(", about ", ", at most about ", 1)
    return text
