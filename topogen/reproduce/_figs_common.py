"""Shared parts of the figure reproductions (``skywalk-sweeps``, ``memsys-figs``):
seed aggregation, claim verdicts and the ``--plot`` output check.

A claim row has the columns ``figure, claim, paper, ours, verdict``.  Verdicts:

``agrees``
    the measured value is within the stated tolerance of the paper's value (or, for a
    statement, it holds for every seed);
``within noise``
    the paper's value lies inside the spread of our seeds (min..max) although the mean
    is off by more than the tolerance;
``mixed``
    a statement holds for some seeds only;
``differs``
    none of the above;
``needs --full``
    the paper's point is only reached with ``--full``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["aggregate", "pct", "claim_value", "claim_holds", "claim_row", "check_plot", "save_figure"]


def check_plot(plot) -> Path | None:
    """Check a ``--plot`` output before any work (suffix, folder writable, not a folder)."""
    if plot is None or plot == "":
        return None
    from ..output import check_file_output

    path = Path(plot)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"--plot must name a .png, .svg or .pdf file, got {plot}")
    return check_file_output(path)


def save_figure(fig, output: Path) -> Path:
    """Write a matplotlib figure atomically and reproducibly, and close it
    (:func:`topogen.output.save_figure`)."""
    from ..output import save_figure as _save

    return _save(fig, output)


def aggregate(runs: pd.DataFrame, keys: list[str], values: list[str]) -> pd.DataFrame:
    """Mean over seeds of each ``values`` column, with its spread ``<col>_range``
    (max - min over seeds) and the number of seeds, per group of ``keys``.

    Rows whose value is NaN (an instance that could not be built) are left out of the
    mean; ``built`` counts the seeds that were built."""
    out = []
    for key, grp in runs.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key))
        ok = grp.dropna(subset=[values[0]])
        row["seeds"] = len(grp)
        row["built"] = len(ok)
        for v in values:
            col = ok[v].astype(float)
            row[v] = float(col.mean()) if len(col) else math.nan
            row[f"{v}_range"] = float(col.max() - col.min()) if len(col) else math.nan
        out.append(row)
    return pd.DataFrame(out)


def pct(a, b):
    """``100 (a / b - 1)`` element-wise (positive: a is that many % above b)."""
    return 100.0 * (np.asarray(a, float) / np.asarray(b, float) - 1.0)


def claim_value(figure: str, claim: str, paper: float, values, *, tol: float = 1.0,
                unit: str = "%", bound: str | None = None) -> dict:
    """A numeric claim checked on per-seed ``values``.

    ``bound="upper"`` reads the paper's number as "at most" (agrees when every seed is at or
    below it plus ``tol``); otherwise agreement is ``|mean - paper| <= tol``, and "within
    noise" when the paper lies inside the seeds' min..max.
    """
    vals = np.atleast_1d(np.asarray(values, float))
    vals = vals[np.isfinite(vals)]
    if not len(vals):
        return claim_row(figure, claim, f"{paper:g}{unit}", "not built", "differs")
    mean, lo, hi = float(vals.mean()), float(vals.min()), float(vals.max())
    ours = f"{mean:.2f}{unit}" + (f" ({lo:.2f}..{hi:.2f})" if len(vals) > 1 and hi > lo else "")
    if bound == "upper":
        verdict = "agrees" if hi <= paper + tol else ("mixed" if lo <= paper + tol else "differs")
        return claim_row(figure, claim, f"<= {paper:g}{unit}", ours, verdict)
    if abs(mean - paper) <= tol:
        verdict = "agrees"
    elif lo <= paper <= hi:
        verdict = "within noise"
    else:
        verdict = "differs"
    return claim_row(figure, claim, f"{paper:g}{unit}", ours, verdict)


def claim_holds(figure: str, claim: str, paper: str, held, detail: str = "", unit: str = "seeds") -> dict:
    """A statement checked once per seed (or per ``unit``): ``held`` is a bool or a
    sequence of bools."""
    held = [bool(h) for h in np.atleast_1d(held)]
    k, n = sum(held), len(held)
    verdict = "agrees" if k == n else ("differs" if k == 0 else "mixed")
    ours = ("holds" if k == n else "fails" if k == 0 else "holds") + (f" ({k}/{n} {unit})" if n > 1 else "")
    if detail:
        ours += f"; {detail}"
    return claim_row(figure, claim, paper, ours, verdict)


def claim_row(figure: str, claim: str, paper, ours, verdict: str) -> dict:
    return {"figure": figure, "claim": claim, "paper": str(paper), "ours": str(ours), "verdict": verdict}
