"""Routing exports: per-switch tables (CSV/JSON), BookSim tables, SST source routes.

Per-switch tables (:func:`write_table` / :func:`read_table`)
    One row per (switch, destination, phase) that has an entry; columns
    ``switch,destination,phase,next_hop,rank,vc_rule``.  ``rank`` is the link rank of
    ``next_hop`` at ``switch`` (position in ``topology.neighbors(switch)``).  ``vc_rule``
    says which VC the hop uses: a VC number (``"0"``), ``"hop"`` (VC = hop index),
    ``"dateline"`` (torus dateline rule), ``"layer"`` (the route's layer, see the
    ``layers`` entry of the JSON form or ``layer.npy`` of a saved routing) or
    ``"adaptive:1-3"`` (the minimal next hop of an escape routing, any adaptive VC).
    Escape routings add their up*/down* escape rows with ``vc_rule="0"`` (phases 0 and
    1).  CSV files start with ``#`` comment lines holding the JSON metadata; the JSON form
    is ``{"metadata": ..., "num_switches": N, "rows": {column: [...]}}``.

BookSim table (:func:`write_booksim_table` / :func:`read_booksim_table`)
    The Slim Fly authors' BookSim fork (``anynet`` with ``routing_table_file`` /
    ``load_routing_file``, whose table is ``routing_table[router][dest_node] = port``)
    loads precomputed tables; we could not retrieve the exact on-disk syntax of that fork,
    so the format here is our own plain-text rendering of that same table: one line
    ``router dest_node output_port`` per router and destination node, single spaces, no
    comments, routers and nodes numbered as in the anynet file.  Ports follow BookSim's
    anynet numbering: a router's nodes first (increasing node id), then its neighbours
    (increasing router id), i.e. ``hosts[router] + rank``.  Only destination-based
    (single-phase) routings can be written this way.

SST merlin anytopo (:func:`sst_entry_string` / :func:`parse_sst_entry_string`)
    The ``routing_entry_string`` of the ``merlin.sourceRoutingPlugin`` (pymerlin's
    ``serialize_routing_entry``): ``"dst:w,hop1,...,dst;w,hop1,...|dst2:..."`` with the
    hops excluding the source and including the destination (router ids), weights printed
    with ``%.5f`` summing to 1 per destination, several paths separated by ``;``.  Note that
    anytopo assigns VC = hop index itself (``vcs_per_vn`` must exceed the longest route).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from ..errors import FormatError, ParameterError, RoutingError
from .base import Routing, TableRouting, _check_switch

__all__ = ["table_rows", "write_table", "read_table", "write_booksim_table",
           "read_booksim_table", "sst_entry_string", "sst_entry_strings",
           "parse_sst_entry_string", "paths_from"]

_COLUMNS = ("switch", "destination", "phase", "next_hop", "rank", "vc_rule")


def _vc_label(t: TableRouting) -> str:
    return str(t.vc_const) if t.vc_rule == "const" else t.vc_rule


def _rows_of(t: TableRouting, vc_label: str) -> dict[str, np.ndarray]:
    n = t.num_switches
    view = t.view
    cols = {c: [] for c in _COLUMNS}
    v = np.arange(n, dtype=np.int64)
    for p in range(t.num_phases):
        r = t.ranks[p]  # (v, dst)
        v_idx, d_idx = np.nonzero(r != t.sentinel)
        rk = r[v_idx, d_idx].astype(np.int64)
        nh = view.indices[view.indptr[v_idx] + rk]
        order = np.lexsort((d_idx, v_idx))
        cols["switch"].append(v_idx[order])
        cols["destination"].append(d_idx[order])
        cols["phase"].append(np.full(len(order), p, dtype=np.int64))
        cols["next_hop"].append(nh[order])
        cols["rank"].append(rk[order])
        cols["vc_rule"].append(np.full(len(order), vc_label, dtype=object))
    return {c: np.concatenate(x) for c, x in cols.items()}


def table_rows(routing: Routing) -> dict[str, np.ndarray]:
    """The per-switch table rows of ``routing`` as columns (see the module docs)."""
    from .escape import EscapeRouting

    if isinstance(routing, EscapeRouting):
        vcs = routing.adaptive_vcs
        label = f"adaptive:{vcs[0]}-{vcs[-1]}"
        a = _rows_of(routing.minimal, label)
        b = _rows_of(routing.escape_routing, "0")
        return {c: np.concatenate([a[c], b[c]]) for c in _COLUMNS}
    if not isinstance(routing, TableRouting):
        raise RoutingError(f"{routing.algorithm} routing is randomised and has no per-switch "
                           "table; export its base routing, or SST source routes")
    return _rows_of(routing, _vc_label(routing))


def write_table(routing: Routing, path, format: str | None = None) -> None:
    """Write the per-switch table of ``routing`` as CSV or JSON (by extension or ``format``).

    Written atomically; the metadata (algorithm, parameters, VCs, topology provenance)
    goes into ``#`` comment lines (CSV) or the ``metadata`` key (JSON).
    """
    from ..export.formats import atomic_write

    path = Path(path)
    fmt = format or path.suffix.lstrip(".").lower()
    if fmt not in ("csv", "json"):
        raise ParameterError(f"table format must be csv or json, got {fmt!r}")
    rows = table_rows(routing)
    md = routing.metadata()
    if getattr(routing, "layer", None) is not None and fmt == "json":
        md["layers"] = routing.layer.tolist()
    if fmt == "json":
        obj = {"metadata": md, "num_switches": routing.num_switches,
               "columns": list(_COLUMNS),
               "rows": {c: [str(x) for x in rows[c]] if c == "vc_rule" else rows[c].tolist()
                        for c in _COLUMNS}}
        atomic_write(path, json.dumps(obj) + "\n")
        return
    buf = io.StringIO()
    for line in json.dumps(md, sort_keys=True, indent=1).splitlines():
        buf.write("# " + line + "\n")
    buf.write(",".join(_COLUMNS) + "\n")
    num = np.stack([rows[c] for c in _COLUMNS[:5]], axis=1)
    labels = rows["vc_rule"]
    lines = (",".join(map(str, r)) + "," + str(l) for r, l in zip(num.tolist(), labels))
    buf.write("\n".join(lines))
    buf.write("\n")
    atomic_write(path, buf.getvalue())


def read_table(path) -> dict:
    """Read a table written by :func:`write_table`.

    Returns
    -------
    dict
        ``metadata`` (dict), ``num_switches`` (int or None for CSV) and one ``int64``
        array per column (``vc_rule`` as an array of str).

    Raises
    ------
    FormatError
        On a malformed file (names the line).
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            obj = json.loads(text)
            rows = obj["rows"]
            out = {"metadata": obj["metadata"], "num_switches": obj.get("num_switches")}
            for c in _COLUMNS:
                out[c] = (np.asarray(rows[c], dtype=str) if c == "vc_rule"
                          else np.asarray(rows[c], dtype=np.int64))
            return out
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"not a topogen routing table: {exc}", path=path) from None
    meta_lines, body = [], []
    header_seen = False
    cols = {c: [] for c in _COLUMNS}
    for i, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            meta_lines.append(line[2:] if line.startswith("# ") else line[1:])
            continue
        if not line.strip():
            continue
        if not header_seen:
            if tuple(line.strip().split(",")) != _COLUMNS:
                raise FormatError(f"expected the header {','.join(_COLUMNS)}", path=path, line=i)
            header_seen = True
            continue
        parts = line.strip().split(",")
        if len(parts) != 6:
            raise FormatError(f"expected 6 fields, got {len(parts)}", path=path, line=i)
        try:
            for c, x in zip(_COLUMNS[:5], parts[:5]):
                cols[c].append(int(x))
        except ValueError:
            raise FormatError(f"non-integer field in {line!r}", path=path, line=i) from None
        cols["vc_rule"].append(parts[5])
    try:
        md = json.loads("\n".join(meta_lines)) if meta_lines else {}
    except json.JSONDecodeError as exc:
        raise FormatError(f"bad metadata header: {exc}", path=path) from None
    out = {"metadata": md, "num_switches": md.get("topology", {}).get("num_switches")}
    for c in _COLUMNS:
        out[c] = (np.asarray(cols[c], dtype=str) if c == "vc_rule"
                  else np.asarray(cols[c], dtype=np.int64))
    return out


# ---------------------------------------------------------------------------- BookSim


def write_booksim_table(routing: Routing, path) -> None:
    """Write ``router dest_node port`` lines (see the module docs)."""
    from ..export.formats import atomic_write
    from .escape import EscapeRouting

    t = routing.minimal if isinstance(routing, EscapeRouting) else routing
    if not isinstance(t, TableRouting) or t.num_phases != 1:
        raise RoutingError(
            f"a BookSim routing table is destination-based (router, destination node -> port); "
            f"{routing.algorithm} routing needs per-packet state (phase or random choice) — "
            "export SST source routes instead")
    topo = t.topology
    hosts = topo.hosts
    n = topo.num_switches
    offset = np.concatenate([[0], np.cumsum(hosts)[:-1]]).astype(np.int64)
    node_router = np.repeat(np.arange(n), hosts)
    node_local = np.arange(int(hosts.sum())) - offset[node_router]
    lines = []
    for r in range(n):
        rk = t.ranks[0, r, node_router].astype(np.int64)  # per destination node
        port = np.where(node_router == r, node_local, hosts[r] + rk)
        lines.append("\n".join(f"{r} {m} {p}" for m, p in enumerate(port.tolist())))
    atomic_write(path, "\n".join(x for x in lines if x) + "\n")


def read_booksim_table(path) -> np.ndarray:
    """Read ``router dest_node port`` lines into an (M, 3) int64 array."""
    out = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 3:
            raise FormatError(f"expected 'router dest_node port', got {line!r}", path=path, line=i)
        try:
            out.append([int(x) for x in parts])
        except ValueError:
            raise FormatError(f"non-integer field in {line!r}", path=path, line=i) from None
    return np.asarray(out, dtype=np.int64).reshape(-1, 3)


# ---------------------------------------------------------------------------- SST


def paths_from(routing: Routing, src: int) -> dict[int, list[list[int]]]:
    """Every path ``routing`` may use from ``src``: ``{dst: [[hop1, ..., dst], ...]}``.

    Deterministic routings give one path per destination (escape routings: the minimal
    one); Valiant gives one path per intermediate switch, in increasing intermediate id
    (its exact distribution: uniform over the ``N - 2`` intermediates).
    """
    from .escape import EscapeRouting
    from .valiant import ValiantRouting

    n = routing.num_switches
    src = _check_switch("src", src, n)
    dsts = np.asarray([d for d in range(n) if d != src], dtype=np.int64)
    if isinstance(routing, ValiantRouting):
        out = {}
        for d in dsts.tolist():
            out[d] = [routing.path_via(src, m, d)[0][1:].tolist()
                      for m in range(n) if m not in (src, d)]
        return out
    t = routing.minimal if isinstance(routing, EscapeRouting) else routing
    if not isinstance(t, TableRouting):
        raise RoutingError(f"cannot list paths of a {type(routing).__name__}")
    ent, _ = t.route_matrix(np.full(len(dsts), src), dsts)
    nxt = np.where(ent >= 0, t.view.indices[np.maximum(ent, 0)], -1)
    return {int(d): [[int(x) for x in nxt[:, j] if x >= 0]] for j, d in enumerate(dsts)}


def _format_weights(w) -> list[str]:
    w = np.asarray(w, dtype=float)
    if w.ndim != 1 or len(w) == 0 or np.any(w < 0) or not np.isfinite(w).all() or w.sum() <= 0:
        raise ParameterError("path weights must be non-negative, finite and not all zero")
    units = np.floor(w / w.sum() * 100000 + 0.5).astype(np.int64)
    units[-1] = 0
    units[-1] = 100000 - units.sum()
    while units[-1] < 0:  # rounding pushed the sum over 1: take from the largest
        k = int(np.argmax(units[:-1]))
        units[k] -= 1
        units[-1] += 1
    return [f"{u // 100000}.{u % 100000:05d}" for u in units.tolist()]


def sst_entry_string(routing: Routing, src: int, weights=None) -> str:
    """The SST anytopo ``routing_entry_string`` of switch ``src`` (all destinations).

    Parameters
    ----------
    routing : Routing
    src : int
    weights : callable or mapping, optional
        Weights of the paths of each destination (in the order of :func:`paths_from`):
        ``weights(dst, paths) -> sequence`` or ``weights[dst] -> sequence``; default equal
        weights.  They are normalised to sum to 1 and printed with ``%.5f`` (the last
        weight absorbs rounding so the printed weights sum to exactly 1.00000).

    Returns
    -------
    str
        ``"dst:w,hop1,...,dst;w,...|dst2:..."`` in increasing destination order.
    """
    paths = paths_from(routing, src)
    parts = []
    for d, plist in paths.items():
        if weights is None:
            w = np.ones(len(plist))
        elif callable(weights):
            w = weights(d, plist)
        else:
            w = weights[d]
        if len(w) != len(plist):
            raise ParameterError(f"destination {d} has {len(plist)} paths but {len(w)} weights")
        ws = _format_weights(w)
        parts.append(f"{d}:" + ";".join(f"{wi}," + ",".join(map(str, p)) for wi, p in zip(ws, plist)))
    return "|".join(parts)


def sst_entry_strings(routing: Routing, weights=None) -> list[str]:
    """:func:`sst_entry_string` of every switch (index = router id)."""
    return [sst_entry_string(routing, s, weights) for s in range(routing.num_switches)]


def parse_sst_entry_string(s: str) -> dict[int, list[tuple[float, list[int]]]]:
    """Parse a ``routing_entry_string``: ``{dst: [(weight, [hop1, ..., dst]), ...]}``.

    Raises
    ------
    FormatError
        On a malformed string.
    """
    out: dict[int, list[tuple[float, list[int]]]] = {}
    if not s.strip():
        return out
    for k, entry in enumerate(s.split("|"), start=1):
        try:
            head, rest = entry.split(":", 1)
            d = int(head)
            plist = []
            for alt in rest.split(";"):
                fields = alt.split(",")
                plist.append((float(fields[0]), [int(x) for x in fields[1:]]))
        except ValueError:
            raise FormatError(f"entry {k} is not 'dst:w,hop,...': {entry[:60]!r}") from None
        for _, hops in plist:
            if not hops or hops[-1] != d:
                raise FormatError(f"entry {k}: a path to {d} must end at {d}")
        out[d] = plist
    return out
