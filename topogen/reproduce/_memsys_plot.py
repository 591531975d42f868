"""Figures of ``topogen reproduce memsys-figs --plot FILE`` (MEMSYS '16 Figs. 11-14):
log-log axes as in the paper, one curve per family (per dimension, diameter or s);
measured points filled, closed-form and bound points hollow."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ._figs_common import save_figure

_PANELS = {
    11: (("ports", "ports per router"),),
    12: (("avg_hops", "average latency (hops)"),),
    13: (("bisection", "bisection (links)"), ("bisection_per_node", "bisection / system size")),
    14: (("efficiency", "bisection / (ports x avg hops) / size"),),
}


_STYLE = {"moore": "--", "memsys-dragonfly": ":", "angelfish": "-.", "angelfish-lite": "-.",
          "flying-fish": "-.", "flying-fish-lite": "-.", "flattened-butterfly": "-", "torus": "-"}


def _curve(row) -> str:
    if row.group == "memsys-dragonfly":
        s = row["size"].split("s=")[1]
        p = int(row["size"].split(",")[0][2:])
        return "dragonfly limit" if int(s) == p + 1 else f"dragonfly s={s}"
    return row.family


def plot_memsys(figure: int, table: pd.DataFrame, output: Path) -> Path:
    """Draw MEMSYS '16 Fig. ``figure`` from the rows of :func:`memsys_figs.build_rows`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if figure == 11:
        table = table[table.group != "torus"]
    elif figure == 12:
        table = table[table.group == "torus"]
    table = table.assign(curve=[_curve(r) for _, r in table.iterrows()])
    panels = _PANELS[figure]
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 5.2), dpi=100, squeeze=False)
        cmap = plt.get_cmap("tab20")
        for j, (col, label) in enumerate(panels):
            ax = axes[0][j]
            for i, (name, grp) in enumerate(table.dropna(subset=[col]).groupby("curve", sort=True)):
                grp = grp.sort_values("nodes")
                colour = cmap(i % 20)
                ls = _STYLE.get(grp.group.iloc[0], "-")
                ax.plot(grp.nodes, grp[col], ls=ls, lw=1.1, color=colour, label=name)
                meas = grp[grp.source == "measured"]
                rest = grp[grp.source != "measured"]
                ax.plot(meas.nodes, meas[col], "o", ms=3.5, color=colour)
                ax.plot(rest.nodes, rest[col], "o", ms=3.5, mfc="none", color=colour)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("system size (nodes)")
            ax.set_ylabel(label)
            ax.grid(True, alpha=0.3, which="both")
        axes[0][-1].legend(fontsize=6, ncol=2, framealpha=0.85)
        fig.suptitle(f"MEMSYS '16 Fig. {figure} (topogen reproduction; filled = measured, "
                     "hollow = formula / bound)", fontsize=10)
        fig.tight_layout()
        return save_figure(fig, output)
