"""The floor plan of a layout: cabinets on their grid, their switches, and the cables.

Geometry is the floor's own (:class:`~topogen.layout.Floor`): cabinet ``k`` stands in
row ``k // columns`` and column ``k % columns``, neighbours in a row ``cabinet_width``
apart and rows ``cabinet_depth`` apart (aisle included).  The longer side of the floor
is drawn horizontally.  A cable between cabinets is drawn as a Manhattan route: from its
cabinet into the aisle beside its row, along the aisle to the other cabinet's column,
then across the rows -- the route the cable model measures (Manhattan distance plus
the overhead at both ends).  Parallel cables are spread a little so they stay apart.

Small networks draw every cable from switch to switch (cables inside a cabinet as small
arcs); large ones (``bundle="auto"``: more than :data:`MAX_CABLES` inter-cabinet cables or
:data:`MAX_SWITCH_DOTS` switches) draw one bundle per cabinet pair, as wide as the
square root of its cable count, and colour each cabinet by its switch count instead of
drawing the switches.  Cables are coloured by kind (the topology's link labels, else
their floor class: ``intra``, ``straight`` -- same row or column -- or ``diagonal``), by
length, or by channel load (:mod:`topogen.plots.channel_load`).  The legend gives the
count and total length of each kind and the total cable.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..errors import ParameterError

__all__ = ["draw_floor", "cable_classes", "parse_size", "COLOR_BY", "MAX_CABLES", "MAX_SWITCH_DOTS", "DEFAULT_DPI"]

COLOR_BY = ("kind", "floor", "length", "load")
#: above this many inter-cabinet cables, ``bundle="auto"`` bundles them per cabinet pair
MAX_CABLES = 1500
#: above this many switches, cabinets are shaded by their switch count instead of dots
MAX_SWITCH_DOTS = 1024
#: resolution of PNG drawings (``dpi=None``)
DEFAULT_DPI = 150
#: the default drawing grows with the network: 9 inches wide up to 64 switches, times
#: sqrt(switches / 64) beyond, up to this factor (a 256-switch floor: 18 inches, 2,700 px)
MAX_SCALE = 4.0
#: largest figure side (inches) and resolution accepted
MAX_INCHES = 200.0
MAX_DPI = 1200
MAX_PIXELS = 40_000 * 40_000


def parse_size(text: str) -> tuple[float, float]:
    """``"WxH"`` (inches, e.g. ``"24x10"``) -> ``(width, height)``.

    Raises
    ------
    ParameterError
        Not two positive numbers of at most :data:`MAX_INCHES` joined by ``x``.
    """
    parts = str(text).lower().replace(" ", "").split("x")
    try:
        w, h = (float(p) for p in parts) if len(parts) == 2 else (math.nan, math.nan)
    except ValueError:
        w = h = math.nan
    if not (0 < w <= MAX_INCHES and 0 < h <= MAX_INCHES):
        raise ParameterError(f"--size is WIDTHxHEIGHT in inches, each in (0, {MAX_INCHES:g}], e.g. 24x10; "
                             f"got {text!r}")
    return w, h


def _scale(num_switches: int) -> float:
    return min(max(math.sqrt(max(num_switches, 1) / 64.0), 1.0), MAX_SCALE)


def cable_classes(layout) -> np.ndarray:
    """Floor class of each link: ``intra`` (one cabinet), ``straight`` (cabinets in one
    row or one column) or ``diagonal`` (both differ)."""
    edges = layout.topology.edges
    ca, cb = layout.cabinet[edges[:, 0]], layout.cabinet[edges[:, 1]]
    ra, col_a = layout.floor.position(ca)
    rb, col_b = layout.floor.position(cb)
    out = np.full(len(edges), "diagonal", dtype=object)
    out[(ra == rb) | (col_a == col_b)] = "straight"
    out[ca == cb] = "intra"
    return out


def _kinds(layout, color_by: str) -> np.ndarray:
    topo = layout.topology
    if color_by == "kind" and topo.link_kind is not None:
        return topo.kind_of_links()
    return cable_classes(layout)


def _jitter(i: np.ndarray, amplitude: float) -> np.ndarray:
    """Deterministic spread in [-amplitude, amplitude] (golden-ratio sequence)."""
    return ((np.asarray(i, dtype=float) * 0.6180339887498949) % 1.0 - 0.5) * 2 * amplitude


def _routes(u_a, v_a, u_b, v_b, row_a, row_b, depth, width, idx):
    """Manhattan routes (K, 5, 2) in floor coordinates (u across rows, v along a row)."""
    side = np.where(row_b > row_a, 1.0, np.where(row_b < row_a, -1.0, 1.0))
    aisle = u_a + side * (0.36 * depth + _jitter(idx, 0.1 * depth))
    v_turn = v_b + _jitter(idx * 7 + 3, 0.3 * width)
    pts = np.stack([
        np.stack([u_a, v_a], axis=-1),
        np.stack([aisle, v_a], axis=-1),
        np.stack([aisle, v_turn], axis=-1),
        np.stack([u_b, v_turn], axis=-1),
        np.stack([u_b, v_b], axis=-1),
    ], axis=1)
    return pts


def _ranges(starts, stops):
    """(owner, value): every integer of ``[starts[i], stops[i])`` with its ``i``."""
    lens = np.maximum(stops - starts, 0)
    owner = np.repeat(np.arange(len(lens)), lens)
    offsets = np.cumsum(lens) - lens
    return owner, starts[owner] + np.arange(int(lens.sum())) - offsets[owner]


def _tray_segments(row_a, col_a, row_b, col_b, rows, columns, value=None):
    """Tray segments used by Manhattan routes and the cables (or max ``value``) on each.

    A cable leaves its cabinet into the aisle on the side of the other cabinet's row
    (aisle ``k`` runs between rows ``k`` and ``k + 1``; ``-1`` and ``rows - 1`` are the
    outer ones), runs along it to the other column, then across the rows.  Positions are
    in rows (u) and columns (v).  Returns segments ``(K, 4)`` as ``u0, v0, u1, v1`` and
    the amount on each.
    """
    side = np.where(row_b < row_a, -1, 1)
    aisle = row_a + np.where(side < 0, -1, 0)  # aisle index
    # along the aisle: column intervals [c, c + 1)
    lo, hi = np.minimum(col_a, col_b), np.maximum(col_a, col_b)
    own_a, c = _ranges(lo, hi)
    key_a = (aisle[own_a] + 1) * columns + c
    # across rows, on a lattice of half rows: stub at col_a from the row to its aisle,
    # then at col_b from the aisle to the other row (lattice point 2r = row r, 2k+1 = aisle k)
    pa, pb = 2 * row_a, 2 * aisle + 1
    own_s, j_s = _ranges(np.minimum(pa, pb), np.maximum(pa, pb))
    q = 2 * row_b
    own_c, j_c = _ranges(np.minimum(pb, q), np.maximum(pb, q))
    n_lat = 2 * rows + 2
    key_s = col_a[own_s] * n_lat + (j_s + 1)
    key_c = col_b[own_c] * n_lat + (j_c + 1)
    size_a, size_x = (rows + 1) * columns, columns * n_lat
    if value is None:
        amount_a = np.bincount(key_a, minlength=size_a).astype(float)
        amount_x = np.bincount(np.concatenate([key_s, key_c]), minlength=size_x).astype(float)
    else:
        amount_a = np.zeros(size_a)
        np.maximum.at(amount_a, key_a, value[own_a])
        amount_x = np.zeros(size_x)
        np.maximum.at(amount_x, np.concatenate([key_s, key_c]), np.concatenate([value[own_s], value[own_c]]))
    ka = np.flatnonzero(amount_a)
    kx = np.flatnonzero(amount_x)
    a_u = (ka // columns - 1) + 0.5
    a_c = ka % columns
    x_c = kx // n_lat
    x_j = kx % n_lat - 1
    seg_a = np.column_stack([a_u, a_c, a_u, a_c + 1])
    seg_x = np.column_stack([x_j / 2.0, x_c, (x_j + 1) / 2.0, x_c])
    return np.vstack([seg_a, seg_x]), np.concatenate([amount_a[ka], amount_x[kx]])


def _fmt_m(metres: float) -> str:
    return f"{metres / 1000:.3g} km" if metres >= 10000 else f"{metres:.4g} m"


def draw_floor(layout, output, *, color_by: str = "kind", bundle: str = "auto", loads=None,
               title: str | None = None, histogram: bool = True, size: tuple[float, float] | None = None,
               dpi: float | None = None) -> Path:
    """Draw the floor plan of ``layout`` to ``output`` (``.png``, ``.svg`` or ``.pdf``).

    Parameters
    ----------
    layout : Layout
    output : path
        Written atomically (temp name + rename).
    color_by : {"kind", "floor", "length", "load"}
        Cable colour: the topology's link kinds (floor classes when it has none), the
        floor classes, the cable length, or the channel load (needs ``loads``).
    bundle : {"auto", "yes", "no"}
        One bundle per cabinet pair instead of one line per cable (``auto``: for more
        than :data:`MAX_CABLES` inter-cabinet cables or :data:`MAX_SWITCH_DOTS` switches).
    loads : ChannelLoads, optional
        Channel loads to draw (``color_by="load"`` is implied); the busiest channel is
        named and a histogram of all channel loads drawn beside the floor.
    title : str, optional
        Default: the topology, its size and the floor.
    histogram : bool
        With ``loads``: add the histogram panel.
    size : (float, float), optional
        Figure width and height in inches.  Default: grows with the network (9 inches wide
        up to 64 switches, times ``sqrt(switches / 64)`` beyond, at most :data:`MAX_SCALE`
        times), the height following the floor's aspect.
    dpi : float, optional
        Pixels per inch of a PNG (default :data:`DEFAULT_DPI`).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        On an unknown option or output format.
    """
    import matplotlib

    matplotlib.use("Agg")

    from ..output import save_figure

    output = Path(output)
    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise ParameterError(f"drawing output must end in .png, .svg or .pdf, got {output}")
    if loads is not None:
        color_by = "load"
    if color_by not in COLOR_BY:
        raise ParameterError(f"--color must be one of {', '.join(COLOR_BY)}, got {color_by!r}")
    if color_by == "load" and loads is None:
        raise ParameterError("colouring by load needs channel loads (--load with a routing)")
    if bundle not in ("auto", "yes", "no"):
        raise ParameterError(f"--bundle must be auto, yes or no, got {bundle!r}")
    dpi = DEFAULT_DPI if dpi is None else dpi
    if isinstance(dpi, bool) or not (isinstance(dpi, (int, float)) and 10 <= dpi <= MAX_DPI):
        raise ParameterError(f"--dpi must be a number in [10, {MAX_DPI}], got {dpi!r}")
    if size is not None:
        size = parse_size(f"{size[0]}x{size[1]}")
        if size[0] * size[1] * dpi * dpi > MAX_PIXELS:
            raise ParameterError(f"a {size[0]:g}x{size[1]:g} inch drawing at {dpi:g} dpi would have "
                                 f"{size[0] * size[1] * dpi * dpi:,.0f} pixels, more than {MAX_PIXELS:,}; "
                                 "choose a smaller --size or --dpi")

    with matplotlib.rc_context({"svg.fonttype": "none"}):  # SVG text stays text (searchable)
        fig = _figure(layout, color_by, bundle, loads, title, histogram, size)
    return save_figure(fig, output, bbox_inches="tight", pad_inches=0.1, dpi=dpi)


def _figure(layout, color_by, bundle, loads, title, histogram, size=None):
    """The matplotlib figure of :func:`draw_floor`."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    topo, floor = layout.topology, layout.floor
    n, edges = topo.num_switches, topo.edges
    cab = np.asarray(layout.cabinet, dtype=np.int64)
    width, depth = floor.cabinet_width, floor.cabinet_depth
    rows_of, cols_of = floor.position(np.arange(floor.cabinets))
    # u across rows (row * depth), v along a row (column * width); longer side horizontal
    span_u, span_v = (floor.rows - 1) * depth + depth, (floor.columns - 1) * width + width
    transpose = span_u > span_v

    def xy(u, v):
        return (u, -v) if transpose else (v, -u)

    lengths = np.asarray(layout.cable_length, dtype=float)
    kinds = _kinds(layout, color_by)
    kind_names = list(dict.fromkeys(list(topo.kind_names) if color_by == "kind" and topo.link_kind is not None
                                    else ["intra", "straight", "diagonal"]))
    ca, cb = cab[edges[:, 0]], cab[edges[:, 1]]
    inter = ca != cb
    n_inter = int(inter.sum())
    bundled = bundle == "yes" or (bundle == "auto" and (n_inter > MAX_CABLES or n > MAX_SWITCH_DOTS))
    dots = n <= MAX_SWITCH_DOTS and not bundled

    # switch positions: stacked along the cabinet's depth
    order = np.argsort(cab, kind="stable")
    slot = np.empty(n, dtype=np.int64)
    starts = np.searchsorted(cab[order], cab[order])
    slot[order] = np.arange(n) - starts
    per_cab = np.bincount(cab, minlength=floor.cabinets)
    z = max(int(per_cab.max()) if n else 1, 1)
    cab_depth = 0.42 * depth
    su = rows_of[cab] * depth - cab_depth / 2 + (slot + 0.5) * cab_depth / z
    sv = cols_of[cab] * width

    link_load = loads.per_link() if loads is not None else None
    if link_load is not None and len(link_load) < len(edges):
        link_load = np.pad(link_load, (0, len(edges) - len(link_load)))

    cmap = None
    if color_by in ("length", "load"):
        values = lengths if color_by == "length" else link_load
        cmap = plt.get_cmap("viridis" if color_by == "length" else "plasma")
        vmax = float(values.max()) if len(values) and values.max() > 0 else 1.0
        vmin = float(values[inter].min()) if color_by == "length" and n_inter else 0.0
        norm = matplotlib.colors.Normalize(vmin=vmin, vmax=vmax)
    palette = plt.get_cmap("tab10")
    kind_colour = {k: palette(i % 10) for i, k in enumerate(kind_names)}

    with_hist = loads is not None and histogram
    aspect = (max(span_u, span_v) + 0.6 * depth) / (min(span_u, span_v) + width)
    scale = _scale(n)
    fw = 9.0 * scale
    fh = min(max(fw / aspect, 2.5 * scale), 8.0 * scale) + 1.4
    full = fw + 4.2 if with_hist else fw  # the histogram panel: 4.2 inches beside the floor
    if size is not None:  # the whole figure, histogram included, keeping the panels' ratio
        fw, full, fh = fw * size[0] / full, size[0], size[1]
    if with_hist:
        fig, (ax, hx) = plt.subplots(1, 2, figsize=(full, fh), dpi=100,
                                     gridspec_kw={"width_ratios": [fw, full - fw]})
    else:
        fig, ax = plt.subplots(figsize=(full, fh), dpi=100)

    # cabinets
    rects = []
    for k in range(floor.cabinets):
        u0, v0 = rows_of[k] * depth - cab_depth / 2, cols_of[k] * width - 0.45 * width
        x0, y0 = xy(u0, v0)
        if transpose:
            rects.append(Rectangle((x0, y0 - 0.9 * width), cab_depth, 0.9 * width))
        else:
            rects.append(Rectangle((x0, y0 - cab_depth), 0.9 * width, cab_depth))
    fill = per_cab / max(floor.switches_per_cabinet, 1)
    if dots:
        pc = PatchCollection(rects, facecolor="0.93", edgecolor="0.55", lw=0.6, zorder=1)
    else:
        pc = PatchCollection(rects, cmap="Greys", edgecolor="0.6", lw=0.3, zorder=1)
        pc.set_array(0.15 + 0.35 * fill)
        pc.set_clim(0, 1)
    ax.add_collection(pc)

    def colours(idx):
        if color_by in ("length", "load"):
            vals = lengths[idx] if color_by == "length" else link_load[idx]
            return cmap(norm(vals))
        return [kind_colour.get(k, (0.3, 0.3, 0.3, 1)) for k in kinds[idx]]

    if bundled:
        # cables merged into the tray segments they run in: cables (or the busiest
        # channel's load) per segment of the aisles and of the runs across the rows
        idx = np.flatnonzero(inter)
        value = link_load[idx] if color_by == "load" else None
        segs, amount = _tray_segments(rows_of[ca[idx]], cols_of[ca[idx]], rows_of[cb[idx]], cols_of[cb[idx]],
                                      floor.rows, floor.columns, value)
        counts_max = float(amount.max()) if len(amount) else 1.0
        tray_cmap = cmap if color_by == "load" else plt.get_cmap("viridis")
        tray_norm = norm if color_by == "load" else matplotlib.colors.Normalize(0, counts_max)
        order_draw = np.argsort(amount)
        lines = [np.column_stack(xy(np.array([g[0], g[2]]) * depth, np.array([g[1], g[3]]) * width))
                 for g in segs[order_draw]]
        lw = 0.6 + 3.0 * np.sqrt(amount[order_draw] / max(counts_max, 1e-12))
        ax.add_collection(LineCollection(lines, colors=tray_cmap(tray_norm(amount[order_draw])),
                                         linewidths=lw, zorder=2, capstyle="butt"))
        if color_by != "load":
            cmap, norm = tray_cmap, tray_norm
    else:
        idx = np.flatnonzero(inter)
        if len(idx):
            u_a, v_a, u_b, v_b = su[edges[idx, 0]], sv[edges[idx, 0]], su[edges[idx, 1]], sv[edges[idx, 1]]
            pts = _routes(u_a, v_a, u_b, v_b, rows_of[ca[idx]], rows_of[cb[idx]], depth, width, idx)
            segs = [np.column_stack(xy(p[:, 0], p[:, 1])) for p in pts]
            lw = 1.2 if len(idx) < 200 else 0.7
            alpha = 0.85 if len(idx) < 300 else max(0.25, 0.85 * math.sqrt(300 / len(idx)))
            if color_by in ("load", "length"):  # busy channels, long cables on top
                srt = np.argsort((link_load if color_by == "load" else lengths)[idx], kind="stable")
                segs = [segs[i] for i in srt]
                idx = idx[srt]
            ax.add_collection(LineCollection(segs, colors=colours(idx), linewidths=lw, alpha=alpha,
                                             zorder=2))
        intra = np.flatnonzero(~inter)
        if len(intra) and dots:  # arcs beside the cabinet between its switches
            u_a, u_b = su[edges[intra, 0]], su[edges[intra, 1]]
            v0 = sv[edges[intra, 0]]
            bend = 0.06 * width + 0.34 * width * np.abs(u_b - u_a) / cab_depth
            t = np.linspace(0, 1, 9)
            uu = u_a[:, None] + (u_b - u_a)[:, None] * t[None, :]
            vv = v0[:, None] + bend[:, None] * np.sin(np.pi * t)[None, :]
            segs = [np.column_stack(xy(uu[i], vv[i])) for i in range(len(intra))]
            ax.add_collection(LineCollection(segs, colors=colours(intra), linewidths=0.6, alpha=0.7,
                                             zorder=2))
    if dots:
        x, y = xy(su, sv)
        dot = max(2.0, min(14.0, 2400.0 / max(n, 1))) * (fw / 9.0) ** 2  # grows with the picture
        ax.scatter(x, y, s=min(dot, 60.0), c="0.15", zorder=3, linewidths=0)

    # the busiest channel
    if loads is not None and loads.load.size:
        e = loads.busiest
        s, d = int(loads.src[e]), int(loads.dst[e])
        p = _routes(su[[s]], sv[[s]], su[[d]], sv[[d]], rows_of[cab[[s]]], rows_of[cab[[d]]], depth, width,
                    np.array([0]))[0]
        if cab[s] == cab[d]:
            p = np.array([[su[s], sv[s]], [su[d], sv[d]]])
        x, y = xy(p[:, 0], p[:, 1])
        ax.plot(x, y, color="red", lw=2.5, zorder=4, solid_capstyle="round")
        sx, sy = xy(np.array([su[s], su[d]]), np.array([sv[s], sv[d]]))
        ax.scatter(sx, sy, s=30, c="red", zorder=5)

    # legend: cable per kind and the total
    classes = _kinds(layout, "kind" if color_by == "kind" else "floor")
    names = kind_names if color_by == "kind" else ["intra", "straight", "diagonal"]
    handles, labels = [], []
    for k in names:
        m = classes == k
        if not m.any():
            continue
        colour = kind_colour[k] if color_by in ("kind", "floor") and not bundled else "0.4"
        handles.append(Line2D([], [], color=colour, lw=2))
        labels.append(f"{k}: {int(m.sum()):,} cables, {_fmt_m(float(lengths[m].sum()))}")
    handles.append(Line2D([], [], color="none"))
    labels.append(f"total: {len(edges):,} cables, {_fmt_m(float(lengths.sum()))}")
    if bundled:
        handles.append(Line2D([], [], color="0.4", lw=2))
        labels.append(f"{n_inter:,} inter-cabinet cables merged into aisle trays")
    if loads is not None:
        handles.append(Line2D([], [], color="red", lw=2.5))
        labels.append(f"busiest channel {int(loads.src[loads.busiest])}->{int(loads.dst[loads.busiest])}: "
                      f"{loads.max_load:.3g}")
    ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.02),
              ncol=min(3, len(labels)), frameon=False)
    if cmap is not None:
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
        cax = ax.inset_axes([1.015, 0.1, 0.018, 0.8])
        cbar = fig.colorbar(sm, cax=cax)
        cbar.set_label(f"busiest channel in the tray\n(flits/cycle per flit/host/cycle, {loads.traffic})"
                       if bundled and color_by == "load" else
                       f"channel load (flits/cycle\nper flit/host/cycle, {loads.traffic})" if color_by == "load" else
                       "cables per tray segment" if bundled else "cable length (m)", fontsize=8)
        cbar.ax.tick_params(labelsize=7)

    ax.set_aspect("equal")
    ax.autoscale_view()
    lim_u = np.array([-0.6 * depth, (floor.rows - 1) * depth + 0.6 * depth])
    lim_v = np.array([-0.7 * width, (floor.columns - 1) * width + 0.7 * width])
    xs, ys = xy(lim_u, lim_v)
    ax.set_xlim(xs.min(), xs.max())
    ax.set_ylim(ys.min(), ys.max())
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    from ..sim.plot import short_params

    head = title or (f"{topo.name}({short_params(topo.params, name=topo.name)}): {n:,} switches in {floor.cabinets:,} cabinets "
                     f"({floor.rows} rows x {floor.columns}, {floor.switches_per_cabinet}/cabinet)")
    ax.set_title(head, fontsize=9)

    if with_hist:
        load = loads.load
        hx.hist(load, bins=min(60, max(10, int(math.sqrt(len(load))))), color="0.45")
        hx.axvline(loads.max_load, color="red", lw=1.5)
        hx.set_yscale("log")  # the few hot channels stay visible
        hx.set_xlabel("channel load (flits/cycle at 1 flit/host/cycle)", fontsize=8)
        hx.set_ylabel("directed channels", fontsize=8)
        hx.tick_params(labelsize=7)
        hx.set_title(f"{loads.traffic}: max {loads.max_load:.3g} (switch {int(loads.src[loads.busiest])}"
                     f"->{int(loads.dst[loads.busiest])}),\nsaturation <= {loads.ceiling:.3g} flits/host/cycle",
                     fontsize=8)
        hx.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
