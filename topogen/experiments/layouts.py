"""The ``layout`` axis of an experiment spec: floor and placement of each point's topology.

A value of the axis is a table of the floor (:class:`topogen.layout.Floor` fields) and the
placement (:func:`topogen.layout.place`, or size-capped Walktrap clusters mapped onto the
cabinets, :mod:`topogen.layout.clustering` and :mod:`topogen.layout.mapping`)::

    layout = [
      {},                                                # the topology's default layout
      {switches_per_cabinet = 4, placement = "random"},
      {switches_per_cabinet = 16, placement = "clustered", mapping = "anneal", iterations = 20000},
      {cabinets = 64, rows = 4, columns = 16, cabinet_depth = 2.4, label = "long-room"},
    ]

Keys:

``switches_per_cabinet``, ``cabinets``, ``rows``, ``columns`` (int)
    The floor grid (defaults: :func:`topogen.layout.default_floor`: the generator's own
    cabinets, else 8 switches per cabinet and as many cabinets as needed).
``cabinet_width``, ``cabinet_depth``, ``intra_cable``, ``inter_overhead``, ``ns_per_meter``
    The cable model (Skywalk III-A defaults).
``placement``
    ``auto`` (default), ``sequential``, ``native``, ``random`` (from the point's seed) or
    ``clustered`` (Walktrap clusters of at most a cabinet's size, then ``mapping``).
``mapping``
    With ``clustered``: ``anneal`` (default; simulated annealing of the cabinet
    assignment from the serpentine order, ``iterations`` moves, default 100000) or
    ``serpentine``.
``label``
    Name of the layout in tables (default: the non-default keys, e.g. ``z=4,random``).

Only the keys given (other than ``label``) enter a point's content and so its id, and the
empty table ``{}`` (the default layout) enters nothing: a spec without a ``layout`` axis
and one with ``layout = [{}, ...]`` give the default-layout points the same ids, so adding
a layout adds points and never renames old ones.
"""

from __future__ import annotations

from ..errors import ParameterError

__all__ = ["parse_layout", "build_layout", "check_keys", "LAYOUT_KEYS", "LAYOUT_PLACEMENTS"]

_FLOOR_INTS = ("switches_per_cabinet", "cabinets", "rows", "columns")
_FLOOR_FLOATS = ("cabinet_width", "cabinet_depth", "intra_cable", "inter_overhead", "ns_per_meter")
#: keys of a ``layout`` axis value
LAYOUT_KEYS = _FLOOR_INTS + _FLOOR_FLOATS + ("placement", "mapping", "iterations", "label")
#: placements of the axis: those of :func:`topogen.layout.place` and ``clustered``
LAYOUT_PLACEMENTS = ("auto", "sequential", "native", "random", "clustered")
_SHORT = {"switches_per_cabinet": "z", "cabinets": "c"}


def check_keys(doc, known, where: str) -> None:
    """Refuse a key of ``doc`` that is not in ``known``, naming the nearest valid one
    (``where``: where the table stands, for the message)."""
    import difflib

    for key in doc:
        if key not in known:
            near = difflib.get_close_matches(key, list(known), n=1, cutoff=0.5)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ParameterError(f"unknown key {key!r} in {where}{hint} "
                                 f"(valid keys: {', '.join(known)})")


def parse_layout(entry, where: str) -> dict:
    """The canonical content of one ``layout`` axis value (its non-default keys and a label).

    Parameters
    ----------
    entry : dict
        The TOML table.
    where : str
        Where it stands (for messages).

    Raises
    ------
    ParameterError
        Not a table, an unknown key (the nearest valid one named), a value of the wrong
        type or range, ``mapping``/``iterations`` without ``placement = "clustered"``.
    """
    import difflib

    if not isinstance(entry, dict):
        raise ParameterError(f"axis layout in {where} takes tables such as "
                             f'{{switches_per_cabinet = 4, placement = "random"}}, got {entry!r}')
    check_keys(entry, LAYOUT_KEYS, f"a layout of {where}")
    out: dict = {}
    for key in _FLOOR_INTS + ("iterations",):
        if key in entry:
            v = entry[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ParameterError(f"layout {key} in {where} must be a positive integer, got {v!r}")
            out[key] = v
    for key in _FLOOR_FLOATS:
        if key in entry:
            v = entry[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or v == float("inf"):
                raise ParameterError(f"layout {key} in {where} must be a length or delay >= 0, got {v!r}")
            out[key] = float(v)
    for key in ("placement", "mapping", "label"):
        if key in entry and not isinstance(entry[key], str):
            raise ParameterError(f"layout {key} in {where} must be a string, got {entry[key]!r}")
    placement = entry.get("placement", "auto")
    if placement not in LAYOUT_PLACEMENTS:
        near = difflib.get_close_matches(placement, list(LAYOUT_PLACEMENTS), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise ParameterError(f"layout placement {placement!r} in {where} is not one of "
                             f"{', '.join(LAYOUT_PLACEMENTS)}{hint}")
    if placement != "auto":
        out["placement"] = placement
    if placement == "clustered":
        from ..layout.mapping import MAPPINGS

        mapping = entry.get("mapping", "anneal")
        if mapping not in MAPPINGS:
            raise ParameterError(f"layout mapping {mapping!r} in {where} is not one of {', '.join(MAPPINGS)}")
        out["mapping"] = mapping
        if mapping == "anneal":
            out["iterations"] = out.get("iterations", 100_000)
        elif "iterations" in out:
            raise ParameterError(f"layout iterations in {where} apply to mapping = \"anneal\" only")
    elif "mapping" in entry or "iterations" in entry:
        raise ParameterError(f"layout mapping and iterations in {where} need placement = \"clustered\"")
    if not out:
        return {}
    out = {k: out[k] for k in LAYOUT_KEYS if k in out}
    order = [k for k in LAYOUT_KEYS if k in out]
    label = entry.get("label") or ",".join(
        (f"{_SHORT.get(k, k)}={out[k]:g}" if not isinstance(out[k], str) else out[k]) for k in order)
    return {**out, "label": label}


def build_layout(topology, content: dict, seed: int):
    """The :class:`~topogen.layout.Layout` of ``topology`` that a layout content asks for.

    Parameters
    ----------
    topology : Topology
    content : dict
        From :func:`parse_layout` (empty: the default layout, built by the caller).
    seed : int
        Seed of a random placement, of the clustering's projection and of the mapping.

    Raises
    ------
    ParameterError
        A floor too small for the topology, ``native`` on a topology without one, ...
    """
    from ..layout import default_floor, place

    import dataclasses

    base = default_floor(topology, switches_per_cabinet=content.get("switches_per_cabinet"),
                         cabinets=content.get("cabinets"))
    change = {k: content[k] for k in _FLOOR_FLOATS if k in content}
    if any(k in content for k in _FLOOR_INTS):  # a new grid: rows and columns from the content
        change.update(rows=content.get("rows"), columns=content.get("columns"))
    floor = dataclasses.replace(base, **change) if change else base
    placement = content.get("placement", "auto")
    if placement != "clustered":
        return place(topology, floor, placement, seed=seed)
    from ..layout import map_clusters, walktrap_clusters

    if topology.num_switches > floor.capacity:
        place(topology, floor, "sequential")  # the one-line "does not fit" message
    clusters = walktrap_clusters(topology, floor.switches_per_cabinet, cabinets=floor.cabinets, seed=seed)
    return map_clusters(topology, clusters, floor, content["mapping"],
                        iterations=content.get("iterations", 100_000), seed=seed)
