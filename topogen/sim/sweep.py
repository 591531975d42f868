"""Load sweeps of the reference simulator: zero-load latency and saturation throughput.

:func:`sweep` simulates the lowest load (the zero-load latency) and bisects the offered load
between ``low`` and ``high`` on the outcome (``completed`` = sustained, anything else =
saturated) until the bracket is narrower than ``tolerance``.  After every point the whole
results table is rewritten atomically, so an interrupted sweep leaves a valid file; run
again with the same arguments it reuses the points already in the file (same topology,
routing, traffic, load and simulator parameters) instead of simulating them again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .._rng import resolve_seed
from ..errors import ParameterError
from ..results import read_results, write_results
from .measure import describe, simulate

__all__ = ["sweep", "SweepOutcome"]

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


def _key(row, load) -> tuple:
    return tuple(str(row.get(c)) for c in _KEY_COLUMNS) + (f"{float(load):.12g}",)


def sweep(routing, output, *, low: float = 0.01, high: float = 1.0, tolerance: float = 0.01,
          resume: bool = True, seed=None, progress=None, **kwargs) -> SweepOutcome:
    """Find the zero-load latency and the saturation load by bisection.

    Parameters
    ----------
    routing : Routing
    output : path
        Results file (``.csv``/``.json``/``.parquet``); rows of other sweeps in it are kept.
    low, high : float
        Lowest and highest offered load (in ``kwargs["load_unit"]``, default flits/host/cycle).
    tolerance : float
        Stop when the bracket ``[sustained, saturated]`` is narrower than this.
    resume : bool
        Reuse points already in ``output``.
    seed : int, optional
        One seed for every point (drawn once and recorded when None).
    progress : callable(load, row), optional
    **kwargs
        Passed to :func:`topogen.sim.simulate` (traffic, load_unit, config fields ...).
    """
    if not (0 < low < high) or not math.isfinite(high):
        raise ParameterError(f"sweep needs 0 < low < high, got low={low}, high={high}")
    if not tolerance > 0:
        raise ParameterError(f"tolerance must be positive, got {tolerance}")
    seed = resolve_seed(seed)
    output = Path(output)
    table: list[dict] = []
    if output.exists():
        table = [dict(r) for r in read_results(output).to_dict("records")]
    index = {}
    for i, r in enumerate(table):
        if r.get("simulator") == "reference":
            index[_key(r, r["offered_load"])] = i
    done_rows: list[dict] = []
    counts = {"simulated": 0, "reused": 0}

    def point(load: float) -> dict:
        k = _key(describe(routing, load=load, seed=seed, **kwargs), load)
        if k in index and resume:
            counts["reused"] += 1
            row = table[index[k]]
        else:
            row = simulate(routing, load=load, seed=seed, **kwargs)
            counts["simulated"] += 1
            if k in index:
                table[index[k]] = row
            else:
                index[k] = len(table)
                table.append(row)
            write_results(output, table)
        done_rows.append(row)
        if progress is not None:
            progress(load, row)
        return row

    first = point(low)
    zero = float(first["latency_avg"]) if first["status"] == "completed" else math.nan
    if first["status"] != "completed":
        return SweepOutcome(done_rows, zero, math.nan, low, counts["simulated"], counts["reused"])
    lo, hi = low, high
    top = point(high)
    if top["status"] == "completed":
        return SweepOutcome(done_rows, zero, high, math.inf, counts["simulated"], counts["reused"])
    while hi - lo > tolerance:
        mid = float(f"{(lo + hi) / 2:.6g}")
        if not lo < mid < hi:
            break
        if point(mid)["status"] == "completed":
            lo = mid
        else:
            hi = mid
    return SweepOutcome(done_rows, zero, lo, hi, counts["simulated"], counts["reused"])
