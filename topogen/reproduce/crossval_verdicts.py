"""The verdicts of :func:`topogen.reproduce.crossval.crossval`: each point and each
saturation estimate of one simulator against BookSim's and SST's, with the spec's
tolerances and, for points of several runs, their standard errors."""

from __future__ import annotations

import math

from ..experiments.simulators import COMPARED_WITH, CrossvalSpec

#: standard errors a latency ratio may lie beyond the tolerance and still be read as noise
NOISE_Z = 2.0


def ratio_sem(ratio: float, x: dict, b: dict) -> float:
    """Standard error of ``ratio = x / b`` from the two points' ``latency_sem`` (first order;
    a point without one, a single run, counts as exact; NaN when neither has one)."""
    parts = [(p["latency_sem"] / p["latency_cycles"]) ** 2 for p in (x, b)
             if p.get("latency_sem") == p.get("latency_sem") and p.get("latency_sem") is not None]
    return abs(ratio) * math.sqrt(sum(parts)) if parts else math.nan


def _latency_verdict(ratio: float, x: dict, b: dict, tolerance: float) -> str:
    """``pass`` within the tolerance; beyond it ``FAIL``, or ``inconclusive`` when the miss
    is within :data:`NOISE_Z` standard errors of the ratio (``--repeats`` gives them)."""
    miss = abs(ratio - 1)
    if miss <= tolerance:
        return "pass"
    se = ratio_sem(ratio, x, b)
    return "inconclusive" if se == se and miss - NOISE_Z * se <= tolerance else "FAIL"


def verdicts(table, saturation, spec: CrossvalSpec, *, deadlock_free: bool | None = None):
    """Add ``ratio_<base>`` and ``verdict_<base>`` columns (base: booksim, sst) to the tidy
    table and ``ratio_<base>``/``verdict_<base>`` to the saturation table.

    A point (load, simulator X) against base B is ``pass`` when both completed and
    ``|lat_X / lat_B - 1| <= latency_tolerance``, ``FAIL`` when not (or when one of them
    did not complete), ``inconclusive`` when the miss lies within :data:`NOISE_Z` standard
    errors of the ratio (points of several runs, ``spec.repeats``: their ``latency_sem``),
    and ``n/a`` above ``up_to`` times the middle of B's saturation bracket
    (every load counts when B did not saturate) or where B has
    no point.  Saturation: ``pass`` when the estimates (bracket midpoints) are within
    ``saturation_tolerance`` of B's, ``FAIL`` when not, ``undetermined`` when a bracket
    is unbounded or wider than the tolerance (``spec.saturation`` bisects it).

    With ``deadlock_free=False`` (the routing's channel dependency graph is cyclic,
    :func:`topogen.routing.deadlock.check`) a failure that involves a ``deadlock`` point of
    either simulator reads ``FAIL (cyclic routing: deadlock)``: the routing can deadlock on
    every simulator (BookSim's ``min_anynet`` too), so such a point says when a deadlock
    struck, not that the simulators disagree.  It still counts as a failure.
    """
    import pandas as pd

    dl_label = "FAIL (cyclic routing: deadlock)"
    deadlocked = set(table.loc[table["status"] == "deadlock", "simulator"]) if deadlock_free is False else set()

    table = table.copy()
    saturation = saturation.copy()
    sims = list(saturation["simulator"])
    sat = {r["simulator"]: r for r in saturation.to_dict("records")}
    for base in ("booksim", "sst"):
        rcol, vcol = f"ratio_{base}", f"verdict_{base}"
        table[rcol] = math.nan
        table[vcol] = "-"
        saturation[rcol] = math.nan
        saturation[vcol] = "-"
        saturation[f"capacity_{rcol}"] = math.nan
        saturation[f"capacity_{vcol}"] = "-"
        if base not in sims:
            continue
        b = sat[base]
        # up_to of the middle of B's bracket (its saturation load when bisected to the tolerance)
        mid = (b["sat_low"] + b["sat_high"]) / 2 if not math.isnan(b["sat_low"]) else b["sat_high"]
        limit = spec.up_to * mid if not math.isinf(b["sat_high"]) else math.inf
        base_rows = table[table["simulator"] == base].set_index("load")
        judged = COMPARED_WITH[base]
        for i, r in table.iterrows():
            if r["simulator"] == base or r["load"] not in base_rows.index:
                continue
            br = base_rows.loc[r["load"]]
            if r["status"] == "completed" and br["status"] == "completed":
                ratio = r["latency_cycles"] / br["latency_cycles"]
                table.at[i, rcol] = ratio
            else:
                ratio = math.nan
            if r["simulator"] not in judged:
                continue  # another injection process or latency definition: ratio only
            if r["load"] > limit * (1 + 1e-9):
                table.at[i, vcol] = "n/a"
            elif r["status"] == "skipped" or br["status"] == "skipped":
                table.at[i, vcol] = "n/a"
            elif math.isnan(ratio):
                dl = deadlock_free is False and "deadlock" in (r["status"], br["status"])
                table.at[i, vcol] = dl_label if dl else "FAIL"
            else:
                table.at[i, vcol] = _latency_verdict(ratio, r, br, spec.latency_tolerance)
        for j, s in saturation.iterrows():
            if s["simulator"] == base:
                continue
            cx, cy = s.get("capacity", math.nan), b.get("capacity", math.nan)
            judge = s["simulator"] in judged
            if cx == cx and cy == cy and cy > 0:
                saturation.at[j, f"capacity_{rcol}"] = cx / cy
                if judge:
                    saturation.at[j, f"capacity_{vcol}"] = (
                        "pass" if abs(cx / cy - 1) <= spec.saturation_tolerance else "FAIL")
            x, y = s["saturation"], b["saturation"]
            if not judge:
                if not (math.isnan(x) or math.isnan(y)):
                    saturation.at[j, rcol] = x / y
                continue
            if math.isnan(x) or math.isnan(y):
                both_unbounded = math.isinf(s["sat_high"]) and math.isinf(b["sat_high"])
                saturation.at[j, vcol] = "undetermined" if not both_unbounded else "n/a"
                continue
            ratio = x / y
            saturation.at[j, rcol] = ratio
            tol = spec.saturation_tolerance
            wide = [r["simulator"] for r in (s, b) if r["sat_high"] - r["sat_low"] > tol * r["sat_low"]]
            if wide:
                saturation.at[j, vcol] = "undetermined"  # a bracket wider than the tolerance
            elif abs(ratio - 1) <= tol:
                saturation.at[j, vcol] = "pass"
            elif _onsets_overlap(s, b, tol):
                saturation.at[j, vcol] = "inconclusive"  # the seeds' onsets reach within the tolerance
            else:
                dl = deadlocked & {s["simulator"], base}
                saturation.at[j, vcol] = dl_label if dl else "FAIL"
    saturation["deadlock_free"] = deadlock_free
    return table, pd.DataFrame(saturation)


def _onset_range(r) -> tuple[float, float] | None:
    """Where the seeds' onsets of one simulator lie, ``[min(first_fail, sat_low),
    max(last_pass, sat_high)]``, or None when its runs agree (no spread beyond the
    bracket, or no repeats)."""
    ff, lp = r.get("first_fail", math.nan), r.get("last_pass", math.nan)
    lo, hi = r["sat_low"], r["sat_high"]
    if ff != ff or lp != lp or math.isinf(hi) or lo != lo:
        return None
    a, b = min(ff, lo), max(lp, hi)
    return (a, b) if (a < lo or b > hi) else None


def _onsets_overlap(x, b, tol: float) -> bool:
    """Whether the saturation miss of ``x`` against ``b`` lies within their runs' spread:
    one of them has seeds whose onsets differ beyond the bracket, and some onset of ``x``
    lies within ``tol`` of some onset of ``b``."""
    rx, rb = _onset_range(x), _onset_range(b)
    if rx is None and rb is None:
        return False
    (x0, x1), (b0, b1) = rx or (x["sat_low"], x["sat_high"]), rb or (b["sat_low"], b["sat_high"])
    return x0 <= b1 * (1 + tol) and b0 <= x1 * (1 + tol)


def noise_note(spec: CrossvalSpec, table) -> str | None:
    """A note for a table of single runs with a latency ``FAIL``: it may be noise (None
    otherwise)."""
    vcols = [c for c in table.columns if c.startswith("verdict_")]
    if spec.max_repeats != 1 or not any((table[c] == "FAIL").any() for c in vcols):
        return None
    return ("one run per point (--repeats 1 --max-repeats 1): a run's mean latency scatters between "
            "seeds (33-flit packets: 3-8 % standard deviation at 50-75 % of saturation, docs/sim.md), "
            "so a latency FAIL near the tolerance may be noise; the default runs 3 per point (up to 8 "
            f"where a miss is within the noise) and a miss within {NOISE_Z:g} standard errors reads "
            "'inconclusive'")
