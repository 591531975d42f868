"""Latency versus offered load curves from results tables (any simulator)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import ParameterError

__all__ = ["plot_latency", "curve_label"]


def curve_label(row) -> str:
    """Legend text of a row's curve: topology (parameters), routing, traffic, simulator."""
    try:
        tp = json.loads(row["topology_params"]) if isinstance(row["topology_params"], str) else {}
    except json.JSONDecodeError:
        tp = {}
    short = ",".join(f"{k}={v}" for k, v in sorted(tp.items())
                     if k not in ("seed", "instances", "instance") and not isinstance(v, dict))
    parts = [f"{row['topology']}({short})" if short else str(row["topology"])]
    for col in ("routing", "traffic", "simulator"):
        v = row.get(col)
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            parts.append(str(v))
    return " ".join(parts)


def plot_latency(frames, output, *, title: str | None = None, log_y: bool = False) -> Path:
    """Draw mean packet latency against offered load, one curve per topology/routing/traffic.

    Parameters
    ----------
    frames : iterable of DataFrame
        Results tables (:mod:`topogen.results`); completed rows are drawn, the lowest
        saturated load of each curve is marked with a cross on the top axis.
    output : path
        ``.png`` or ``.svg`` (or any format matplotlib knows), written atomically.
    """
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from ..results import atomic_write_bytes

    output = Path(output)
    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise ParameterError(f"plot output must end in .png, .svg or .pdf, got {output}")
    frame = pd.concat(list(frames), ignore_index=True) if frames else None
    if frame is None or not len(frame):
        raise ParameterError("no results rows to plot")
    frame = frame.copy()
    frame["_label"] = [curve_label(r) for r in frame.to_dict("records")]
    units = sorted({str(u) for u in frame["load_unit"].dropna()})
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    drawn = 0
    for label, group in frame.groupby("_label", sort=True):
        ok = group[group["status"] == "completed"].sort_values("offered_load")
        ok = ok[ok["latency_avg"].notna()]
        if len(ok):
            line, = ax.plot(ok["offered_load"], ok["latency_avg"], marker="o", ms=3, label=label)
            drawn += 1
            sat = group[group["status"] == "saturated"]["offered_load"]
            if len(sat):
                ax.axvline(float(sat.min()), color=line.get_color(), ls=":", lw=1)
    if not drawn:
        raise ParameterError("no completed rows with a latency to plot")
    ax.set_xlabel("offered load" + (f" ({units[0]})" if len(units) == 1 else ""))
    lat_units = sorted({str(u) for u in frame["latency_unit"].dropna()})
    ax.set_ylabel("mean packet latency" + (f" ({lat_units[0]})" if len(lat_units) == 1 else ""))
    if log_y:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    buf = io.BytesIO()
    meta = {"Creator": "topogen"} if fmt in ("png", "svg", "pdf") else None
    if fmt == "svg":
        meta = {"Creator": "topogen", "Date": None}
    fig.savefig(buf, format=fmt, metadata=meta)
    plt.close(fig)
    return atomic_write_bytes(output, buf.getvalue())
