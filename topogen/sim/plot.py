"""Latency versus offered load curves from results tables (any simulator).

One curve per topology (with its key parameters), routing, traffic and simulator.  Curves
of one network share a colour and each simulator has its own line style and marker, so
the rows of a cross-validation (reference, BookSim, SST: the same results schema) draw
as one figure.  Parts every curve shares (the topology, the traffic ...) go into the
title, the legend names what differs and each curve's saturation load, which is also
marked by a dotted line.  Latencies in ns (SST) are drawn in cycles of the shared clock
and SST's fraction of link bandwidth as flits/node/cycle (one flit per cycle per link),
as :func:`topogen.experiments.simulators.common_units` reads them.

>>> import pandas as pd
>>> from topogen.results import make_row
>>> rows = [make_row(simulator="reference", topology="torus", topology_params={"dims": [4, 4]},
...                  routing="dor", traffic="uniform", offered_load=x, load_unit="flits/node/cycle",
...                  status=s, latency_avg=l, latency_unit="cycles")
...         for x, s, l in ((0.1, "completed", 20.0), (0.5, "completed", 40.0), (0.6, "saturated", None))]
>>> curves(pd.DataFrame(rows))[0]["saturation"]
0.5
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import ParameterError

__all__ = ["plot_latency", "curve_label", "curves", "short_params"]

#: line style and marker of each simulator's curves
SIMULATOR_STYLE = {"reference": ("-", "o"), "booksim": ("--", "s"), "sst": (":", "^")}
_HIDDEN_PARAMS = ("seed", "instances", "instance", "hosts_per_switch")


def _text(v) -> str | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    try:
        import pandas as pd

        if v is pd.NA:
            return None
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    return str(v)


def _generator_order(name, params: dict) -> dict:
    """``params`` in the generator's signature order, without those left at their default."""
    try:
        from .. import registry

        spec = registry.get(name)
    except Exception:  # noqa: BLE001 - not a registered generator: keep what was recorded
        return params
    out = {}
    for p in spec.params:
        if p.name in params and (p.required or params[p.name] != p.default):
            out[p.name] = params[p.name]
    out.update({k: v for k, v in params.items() if k not in {p.name for p in spec.params}})
    return out


def short_params(params, limit: int = 4, name: str | None = None) -> str:
    """Key parameters of a topology as short text: ``dims=4x4,k=3`` (lists joined by ``x``;
    seeds, host counts and nested values left out; at most ``limit`` parameters).  With
    the generator's ``name``, parameters follow its signature and those at their default
    are left out."""
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except json.JSONDecodeError:
            return ""
    if not isinstance(params, dict):
        return ""
    if name:
        params = _generator_order(name, params)
    parts = []
    for k, v in params.items():
        if k in _HIDDEN_PARAMS or isinstance(v, dict) or v is None:
            continue
        if isinstance(v, (list, tuple)):
            v = "x".join(map(str, v))
        parts.append(f"{k}={v}")
    if len(parts) > limit:
        parts = parts[:limit] + ["..."]
    return ",".join(parts)


def _parts(row) -> dict:
    name = _text(row.get("topology")) or "?"
    short = short_params(row.get("topology_params"), name=name)
    return {"network": f"{name}({short})" if short else name,
            "routing": _text(row.get("routing")), "traffic": _text(row.get("traffic")),
            "simulator": _text(row.get("simulator"))}


def curve_label(row) -> str:
    """Legend text of a row's curve: topology (parameters), routing, traffic, simulator."""
    return ", ".join(v for v in _parts(row).values() if v)


def _clock_of(row, clock_ns):
    if clock_ns is not None:
        return clock_ns
    try:
        params = json.loads(row.get("params") or "{}")
    except (TypeError, json.JSONDecodeError):
        params = {}
    for key in ("cycle_ns", "clock_ns"):
        v = params.get(key) if isinstance(params, dict) else None
        if isinstance(v, (int, float)) and v > 0:
            return float(v)
    from ..sim_defaults import CYCLE_NS

    return CYCLE_NS


def _num(v) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return math.nan
    return f


def curves(frame, *, clock_ns: float | None = None) -> list[dict]:
    """The curves of a results table in common units.

    Returns
    -------
    list of dict
        One per (network, routing, traffic, simulator, file), sorted: ``parts`` (the label
        parts), ``load``, ``latency`` (completed points with a latency), ``offered`` and
        ``accepted`` (every point with an accepted rate), ``saturation`` (highest completed
        load below the lowest unstable one, ``nan`` if no point was unstable),
        ``latency_unit``, ``load_unit`` and ``file``.
    """
    from ..results import accepted_in_offered_unit

    recs = frame.to_dict("records")
    any_cycles = any(_text(r.get("latency_unit")) != "ns" for r in recs)
    groups: dict = {}
    for r in recs:
        parts = _parts(r)
        key = (tuple(parts.values()), r.get("_file", 0))
        g = groups.setdefault(key, {"parts": parts, "file": r.get("_file", 0), "points": []})
        unit = _text(r.get("load_unit")) or "load"
        if unit == "fraction of link bandwidth":
            unit = "flits/node/cycle"
        lat = _num(r.get("latency_avg"))
        if _text(r.get("latency_unit")) == "ns" and any_cycles:
            lat = lat / _clock_of(r, clock_ns)
        acc = accepted_in_offered_unit(r)  # the throughput panel draws both in the load's unit
        g["points"].append((_num(r.get("offered_load")), _text(r.get("status")), lat, acc, unit))
    out = []
    for key in sorted(groups, key=lambda k: (str(k[1]), tuple(str(x) for x in k[0]))):
        g = groups[key]
        pts = sorted(p for p in g["points"] if not math.isnan(p[0]))
        ok = [p for p in pts if p[1] == "completed" and not math.isnan(p[2])]
        bad = [p[0] for p in pts if p[1] not in ("completed", "skipped", "rejected", "crash", "incomplete")]
        first_bad = min(bad) if bad else math.inf
        below = [p[0] for p in ok if p[0] < first_bad]
        sat = max(below) if below and bad else math.nan
        units = sorted({p[4] for p in pts})
        out.append({"parts": g["parts"], "file": g["file"],
                    "load": [p[0] for p in ok], "latency": [p[2] for p in ok],
                    "offered": [p[0] for p in pts if not math.isnan(p[3])],
                    "accepted": [p[3] for p in pts if not math.isnan(p[3])],
                    "saturation": sat, "load_unit": units[0] if len(units) == 1 else ", ".join(units),
                    "latency_unit": "cycles" if any_cycles else "ns"})
    return out


def plot_latency(frames, output, *, title: str | None = None, log_y: bool = False,
                 throughput: bool = False, per_file: bool = False, names=None,
                 clock_ns: float | None = None) -> Path:
    """Draw mean packet latency against offered load, one curve per network, routing,
    traffic and simulator.

    Parameters
    ----------
    frames : iterable of DataFrame
        Results tables (:mod:`topogen.results`); completed rows draw the latency curve,
        the saturation load (highest completed load below the lowest unstable one) is
        marked with a dotted line and given in the legend.
    output : path
        ``.png``, ``.svg`` or ``.pdf``, written atomically.
    title : str, optional
        Title (default: what every curve shares).
    log_y : bool
        Logarithmic latency axis.
    throughput : bool
        Add a panel of accepted against offered load (every point, saturated ones too).
    per_file : bool
        One panel per table (``names`` their titles), all with the same axes.
    names : list of str, optional
    clock_ns : float, optional
        Cycle length used to draw ns latencies (SST) in cycles (default: each row's
        recorded cycle length, else the shared default clock).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        On an unknown output format or when there is nothing to draw.
    """
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from ..output import save_figure

    output = Path(output)
    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise ParameterError(f"plot output must end in .png, .svg or .pdf, got {output}")
    if clock_ns is not None and not (clock_ns > 0 and math.isfinite(clock_ns)):
        raise ParameterError(f"--clock-ns must be a positive number of ns, got {clock_ns}")
    frames = [f.assign(_file=i if per_file else 0) for i, f in enumerate(frames) if f is not None and len(f)]
    if not frames:
        raise ParameterError("no results rows to plot")
    frame = pd.concat(frames, ignore_index=True)
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # SVG text stays text (searchable)
        fig = _figure(curves(frame, clock_ns=clock_ns), title, log_y, throughput, per_file, names, len(frames))
    return save_figure(fig, output)


def _figure(cs, title, log_y, throughput, per_file, names, n_frames):
    """The matplotlib figure of :func:`plot_latency`."""
    import matplotlib.pyplot as plt

    if not any(c["load"] for c in cs):
        raise ParameterError("no completed rows with a latency to plot")
    names = list(names) if names is not None else [f"table {i + 1}" for i in range(n_frames)]
    files = sorted({c["file"] for c in cs}) if per_file else [None]
    # what every curve shares goes to the title; the legend names what differs
    keys = ("network", "routing", "traffic", "simulator")
    shared = {k for k in keys if len({c["parts"][k] for c in cs}) == 1}
    if len(cs) == 1:
        shared.discard("simulator")
    networks = sorted({c["parts"]["network"] for c in cs})
    rest = sorted({(c["parts"]["routing"], c["parts"]["traffic"]) for c in cs}, key=str)
    palette = plt.get_cmap("tab10")

    def colour(c):
        if len(networks) > 1:
            i = networks.index(c["parts"]["network"]) * len(rest) + rest.index(
                (c["parts"]["routing"], c["parts"]["traffic"]))
        else:
            i = rest.index((c["parts"]["routing"], c["parts"]["traffic"]))
        return palette(i % 10)

    rows = 2 if throughput else 1
    fig, axes = plt.subplots(rows, len(files), figsize=(6.4 * len(files) + 0.6, 4.2 * rows), dpi=100,
                             sharex=True, sharey="row", squeeze=False)
    for j, f in enumerate(files):
        ax = axes[0][j]
        for c in (c for c in cs if f is None or c["file"] == f):
            ls, marker = SIMULATOR_STYLE.get(c["parts"]["simulator"], ("-.", "d"))
            label = ", ".join(c["parts"][k] for k in ("simulator", "network", "routing", "traffic")
                              if k not in shared and c["parts"][k]) or "curve"
            if not math.isnan(c["saturation"]):
                label += f"  (sat. {c['saturation']:.3g})"
            if c["load"]:
                ax.plot(c["load"], c["latency"], ls=ls, marker=marker, ms=4, lw=1.5, color=colour(c),
                        label=label)
            if not math.isnan(c["saturation"]):
                ax.axvline(c["saturation"], color=colour(c), ls=":", lw=1)
            if throughput and c["offered"]:
                axes[1][j].plot(c["offered"], c["accepted"], ls=ls, marker=marker, ms=4, lw=1.5,
                                color=colour(c))
        if f is not None:
            ax.set_title(names[f], fontsize=9)
        ax.grid(True, alpha=0.3)
        if log_y:
            ax.set_yscale("log")
        ax.legend(fontsize=7, loc="upper left", framealpha=0.85)
    lat_unit = cs[0]["latency_unit"]
    load_units = sorted({c["load_unit"] for c in cs})
    xlabel = "offered load" + (f" ({load_units[0]})" if len(load_units) == 1 else "")
    axes[0][0].set_ylabel(f"mean packet latency ({lat_unit})")
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    if throughput:
        axes[1][0].set_ylabel("accepted load" + (f" ({load_units[0]})" if len(load_units) == 1 else ""))
        for ax in axes[1]:
            top = max((max(c["offered"]) for c in cs if c["offered"]), default=1.0)
            ax.plot([0, top], [0, top], color="0.6", lw=0.8, ls="--", zorder=0)
            ax.grid(True, alpha=0.3)
    head = title if title else ", ".join(cs[0]["parts"][k] for k in keys if k in shared and cs[0]["parts"][k])
    if head:
        fig.suptitle(head, fontsize=10)
    fig.tight_layout()
    return fig
