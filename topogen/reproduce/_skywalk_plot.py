"""Figures of ``topogen reproduce skywalk-sweeps --plot FILE``: the paper's panels
(maximum latency left, average right) drawn from the reproduction's table, error bars
spanning the seeds' min..max (half of ``*_range`` each side of the mean)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ._figs_common import save_figure

# figure -> (x column, curve column, x label, log2 x, panels)
_LAYOUT = {
    1: ("switch_delay", "label", "switch delay (ns)", False, ("max_ns",)),
    3: ("cable_km", "cabinets", "total cable length (km)", True, ("max_ns", "avg_ns")),
    5: ("switch_delay", "label", "switch delay (ns)", False, ("max_ns", "avg_ns")),
    6: ("degree", "family", "degree", False, ("max_ns", "avg_ns")),
    7: ("switches", "label", "number of switches N", True, ("max_ns", "avg_ns")),
    9: ("switches_per_cabinet", "label", "switches per cabinet z", True, ("max_ns", "avg_ns")),
    10: ("cable_km", "d_o", "total cable length (km)", False, ("max_ns", "avg_ns")),
}
_PANEL = {"max_ns": "maximum latency (ns)", "avg_ns": "average latency (ns)"}


def _curve_name(figure: int, key, grp: pd.DataFrame) -> str:
    if figure == 3:
        return f"c = {key}"
    if figure == 10:
        return f"Skywalk(8,256,7,{key})"
    if figure == 1:
        hops = grp["max_hops"].max()
        return f"{key} (diameter {hops:.0f})"
    if figure == 5:
        return f"{key}: d={grp['degree'].iloc[0]:.0f}, {grp['cable_km'].iloc[0]:.0f} km"
    return str(key)


def plot_skywalk(figure: int, table: pd.DataFrame, output: Path) -> Path:
    """Draw Skywalk Fig. ``figure`` from the table of :func:`skywalk_sweeps`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x, curve, xlabel, logx, panels = _LAYOUT[figure]
    table = table.dropna(subset=["max_ns"])
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.4), dpi=100, squeeze=False)
        markers = "osD^v<>phX*"
        for j, col in enumerate(panels):
            ax = axes[0][j]
            for i, (key, grp) in enumerate(table.groupby(curve, sort=False)):
                grp = grp.sort_values(x)
                err = grp[f"{col}_range"].to_numpy(float) / 2.0
                ls = "-" if len(grp) > 1 else "none"
                ax.errorbar(grp[x], grp[col], yerr=np.where(err > 0, err, np.nan), marker=markers[i % 11],
                            ms=4, lw=1.2, ls=ls, capsize=2, label=_curve_name(figure, key, grp))
                if figure in (3, 10):
                    for _, r in grp.iterrows():
                        tag = f"({r.d_s:.0f},{r.d_d:.0f})" if figure == 3 else f"{r.r:g}"
                        ax.annotate(tag, (r[x], r[col]), fontsize=6, xytext=(2, 2), textcoords="offset points")
            if logx:
                ax.set_xscale("log", base=2)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(_PANEL[col])
            ax.grid(True, alpha=0.3)
        axes[0][-1].legend(fontsize=7, framealpha=0.85)
        fig.suptitle(f"Skywalk Fig. {figure} (topogen reproduction)", fontsize=10)
        fig.tight_layout()
        return save_figure(fig, output)
