"""Routing exports: per-switch tables (CSV/JSON), BookSim tables, SST source routes.

Per-switch tables (:func:`write_table` / :func:`read_table`)
    One row per (switch, destination, phase, alternative) that has an entry; columns
    ``switch,destination,phase,alt,next_hop,rank,booksim_port,sst_port,vc_rule``.
    ``alt`` is 0 for the routing's own (deterministic) next hop and 1, 2, ... for the
    other equal-cost next hops (escape routings always, NR/FR computed with
    ``all_next_hops=True`` on request).  ``rank`` is the link rank of ``next_hop`` at
    ``switch`` (position in ``topology.neighbors(switch)``); ``booksim_port`` =
    ``hosts[switch] + rank`` (anynet numbering) and ``sst_port`` = ``rank`` (anytopo
    numbering) are the output ports of the exported netlists.  ``vc_rule`` says which VC
    the hop uses: a VC number (``"0"``), ``"hop"`` (VC = hop index), ``"dateline"`` (torus
    dateline rule), ``"layer"`` (the route's layer, see the ``layers`` entry of the JSON
    form or ``layer.npy`` of a saved routing) or ``"adaptive:1-3"`` (a minimal next hop of
    an escape routing, any adaptive VC).  Escape routings add their up*/down* escape rows
    with ``vc_rule="0"`` (phases 0 and 1).  ANCA routings: the NCA table's next hop
    (``alt`` 0) and, where the packet goes up, the other up links (``alt`` 1 ..
    ``k - 1``), ``vc_rule`` ``"adaptive:0-0"``.  CSV files start with ``#`` comment lines
    holding the JSON metadata; the JSON form is ``{"metadata": ..., "num_switches": N,
    "rows": {column: [...]}}``.

BookSim table (:func:`write_booksim_table` / :func:`read_booksim_table`)
    The file named by ``routing_table_file`` in the Slim Fly authors' BookSim fork (its
    ``anynet`` keeps ``routing_table[router][dest_node] = port``; with
    ``load_routing_file = yes`` it reads the table instead of computing one).  Checked
    against that fork's ``AnyNet::saveRoutingTable`` / ``loadRoutingTable``: one line
    ``router dest_node output_port`` per router and destination node, fields separated by
    one space, every line ending in a newline, no header or comments (the loader would read
    them as entries).  Routers and nodes are numbered as in the anynet file; ports follow
    anynet's numbering, a router's nodes first (increasing node id), then its neighbours
    (increasing router id), i.e. ``hosts[router] + rank``; a router's own nodes get their
    local ports.  The provenance (routing and topology metadata) goes to a side file
    ``<path>.json``.  The table has ports only: VCs are the simulator's business.  Only
    destination-based (single-phase) routings can be written this way.

SST merlin anytopo (:func:`sst_entry_string` / :func:`parse_sst_entry_string`)
    The ``routing_entry_string`` of the ``merlin.sourceRoutingPlugin`` (pymerlin's
    ``serialize_routing_entry``): ``"dst:w,hop1,...,dst;w,hop1,...|dst2:..."`` with the
    hops excluding the source and including the destination (router ids), weights printed
    with ``%.5f`` summing to 1 per destination, several paths separated by ``;``.  Checked
    against merlin's ``SourceRoutingPlugin::parseRoutingEntryFromString`` (splits on
    ``|``, then ``:``, ``;`` and ``,``; first field the weight, then router ids) and
    ``topo_any::route_packet_SR`` (pops the next router id off the front; the path is done
    when it is empty or ends at the current router).  anytopo sets the VC itself: the
    packet is injected on the VN's first VC and hop ``k`` (from 0) leaves on VC ``k + 1``,
    so ``vcs_per_vn`` must be at least the longest route's hops + 1.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np

from .._input import input_limit, parse_json, read_text_file
from ..errors import FormatError, ParameterError, RoutingError
from .base import Routing, TableRouting, _check_switch

__all__ = ["table_rows", "write_table", "read_table", "write_booksim_table",
           "read_booksim_table", "sst_entry_string", "sst_entry_strings",
           "parse_sst_entry_string", "paths_from", "write_sst_routes", "read_sst_routes"]

_COLUMNS = ("switch", "destination", "phase", "alt", "next_hop", "rank", "booksim_port",
            "sst_port", "vc_rule")
_INT_COLUMNS = _COLUMNS[:-1]


def _vc_label(t: TableRouting) -> str:
    return str(t.vc_const) if t.vc_rule == "const" else t.vc_rule


def _alternatives(t: TableRouting, block: int = 512):
    """(v, dst, rank, alt) of every equal-cost next hop other than the table's own.

    Needs the routing's distances (``all_next_hops=True``); ``alt`` numbers the
    alternatives of a pair 1, 2, ... in increasing rank (= next-hop id).  Works on blocks
    of destinations (memory ~ ``block * N`` values).
    """
    view = t.view
    n = t.num_switches
    w = np.full(view.nbr_pad.shape, np.inf)
    w[view.row, view.local_rank] = t.entry_weight
    out = []
    for d0 in range(0, n, block):
        d1 = min(n, d0 + block)
        dist = np.asarray(t.distances[d0:d1], dtype=np.float64)  # (dst, v), symmetric
        ext = np.concatenate([dist, np.full((d1 - d0, 1), np.inf)], axis=1)
        own = t.ranks[0, :, d0:d1].T.astype(np.int64)  # (dst, v)
        count = np.zeros((d1 - d0, n), dtype=np.int64)
        for r in range(view.nbr_pad.shape[1]):
            tight = (ext[:, view.nbr_pad[:, r]] + w[:, r][None, :]) == dist
            tight &= own != r
            tight[np.arange(d1 - d0), np.arange(d0, d1)] = False
            d_idx, v_idx = np.nonzero(tight)
            count[d_idx, v_idx] += 1
            out.append(np.stack([v_idx, d_idx + d0, np.full(len(v_idx), r),
                                 count[d_idx, v_idx]], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 4), dtype=np.int64)


def _rows_of(t: TableRouting, vc_label: str, all_next_hops: bool = False) -> dict[str, np.ndarray]:
    view = t.view
    hosts = t.topology.hosts.astype(np.int64)
    parts = []
    for p in range(t.num_phases):
        r = t.ranks[p]  # (v, dst)
        v_idx, d_idx = np.nonzero(r != t.sentinel)
        rk = r[v_idx, d_idx].astype(np.int64)
        parts.append(np.stack([v_idx, d_idx, np.full(len(rk), p), np.zeros(len(rk), np.int64),
                               rk], axis=1))
    if all_next_hops and t.distances is not None and t.entry_weight is not None \
            and t.num_phases == 1:
        alt = _alternatives(t)
        parts.append(np.stack([alt[:, 0], alt[:, 1], np.zeros(len(alt), np.int64), alt[:, 3],
                               alt[:, 2]], axis=1))
    a = np.concatenate(parts).astype(np.int64)
    a = a[np.lexsort((a[:, 3], a[:, 2], a[:, 1], a[:, 0]))]
    v_idx, rk = a[:, 0], a[:, 4]
    return {"switch": v_idx, "destination": a[:, 1], "phase": a[:, 2], "alt": a[:, 3],
            "next_hop": view.indices[view.indptr[v_idx] + rk], "rank": rk,
            "booksim_port": hosts[v_idx] + rk, "sst_port": rk,
            "vc_rule": np.full(len(a), vc_label, dtype=object)}


def _deterministic(routing: Routing) -> Routing:
    """The table of ``routing``'s deterministic route (:meth:`EscapeRouting.path`): an
    escape routing's minimal table, or for ``adaptive="updown"`` its up*/down* table."""
    from .escape import EscapeRouting

    if isinstance(routing, EscapeRouting):
        return routing.escape_routing if routing.adaptive == "updown" else routing.minimal
    return routing


def table_rows(routing: Routing, all_next_hops: bool | None = None) -> dict[str, np.ndarray]:
    """The per-switch table rows of ``routing`` as columns (see the module docs).

    ``all_next_hops``: also list every other equal-cost next hop (rows with ``alt`` 1,
    2, ...), for routings computed with ``all_next_hops=True``.  Default: only for escape
    routings, whose minimal next hops are the adaptive choices.
    """
    from .escape import EscapeRouting

    if isinstance(routing, EscapeRouting):
        if routing.adaptive != "minimal":
            raise RoutingError(
                f"escape routing with adaptive={routing.adaptive!r} picks its adaptive next hops by "
                "the packet's phase (up or down), which a per-switch table cannot hold; export the "
                "routing built with adaptive='minimal', or simulate this one with `topogen simulate`")
        vcs = routing.adaptive_vcs
        label = f"adaptive:{vcs[0]}-{vcs[-1]}"
        a = _rows_of(routing.minimal, label, all_next_hops is not False)
        b = _rows_of(routing.escape_routing, "0" if routing.escape_paths == "updown" else
                     _vc_label(routing.escape_routing))  # DOR escape paths: "dateline" (VCs 0, 1)
        return {c: np.concatenate([a[c], b[c]]) for c in _COLUMNS}
    own = getattr(routing, "table_rows", None)  # a routing that lays out its own rows (ANCA)
    if callable(own):
        return own()
    if not isinstance(routing, TableRouting):
        raise RoutingError(f"{routing.algorithm} routing is randomised and has no per-switch "
                           "table; export its base routing, or SST source routes")
    return _rows_of(routing, _vc_label(routing), bool(all_next_hops))


def write_table(routing: Routing, path, format: str | None = None, *,
                all_next_hops: bool | None = None) -> None:
    """Write the per-switch table of ``routing`` as CSV or JSON (by extension or ``format``).

    Written atomically; the metadata (algorithm, parameters, VCs, topology provenance)
    goes into ``#`` comment lines (CSV) or the ``metadata`` key (JSON).
    ``all_next_hops`` as in :func:`table_rows`.
    """
    from ..output import atomic_write

    path = Path(path)
    fmt = format or path.suffix.lstrip(".").lower()
    if fmt not in ("csv", "json"):
        raise ParameterError(f"table format must be csv or json, got {fmt!r}")
    rows = table_rows(routing, all_next_hops)
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
    _csv_rows(buf, rows)
    atomic_write(path, buf.getvalue())


#: Tables of up to this many rows are formatted in Python; larger ones by pandas' C
#: writer (~1.6x the speed of formatting rows in Python, but importing pandas costs about
#: half a second of CPU, more than formatting a small table).
PLAIN_CSV_ROWS = 1 << 18
_PLAIN_LABEL = re.compile(r"[A-Za-z0-9:_.+-]+\Z")


def _csv_rows(buf, rows) -> None:
    """The CSV body of :func:`write_table` (no header): integers, then the ``vc_rule``
    label; byte-identical whichever writer runs (labels needing CSV quoting go to pandas)."""
    labels = [str(x) for x in rows["vc_rule"]]
    plain = all(_PLAIN_LABEL.match(x) for x in set(labels))
    if plain and len(labels) <= PLAIN_CSV_ROWS:
        fmt = ",".join(["%d"] * len(_INT_COLUMNS)) + ",%s\n"
        cols = [rows[c].tolist() for c in _INT_COLUMNS]
        buf.write("".join([fmt % r for r in zip(*cols, labels)]))
        return
    import pandas as pd  # its C writer: ~1.6x the speed of joining rows in Python

    frame = pd.DataFrame({c: rows[c] for c in _INT_COLUMNS})
    frame["vc_rule"] = np.asarray(rows["vc_rule"], dtype=str)
    frame.to_csv(buf, index=False, header=False, lineterminator="\n")


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
    text = _read_table_text(path)
    if path.suffix.lower() == ".json":
        obj = parse_json(text, path=path, what="routing table")
        try:
            rows = obj["rows"]
            out = {"metadata": obj["metadata"], "num_switches": obj.get("num_switches")}
            for c in _COLUMNS:
                out[c] = (np.asarray(rows[c], dtype=str) if c == "vc_rule"
                          else np.asarray(rows[c], dtype=np.int64))
            return out
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"not a topogen routing table: {exc}", path=path) from None
    meta_lines = []
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
        if len(parts) != len(_COLUMNS):
            raise FormatError(f"expected {len(_COLUMNS)} fields, got {len(parts)}", path=path,
                              line=i)
        try:
            vals = [int(x) for x in parts[:-1]]
        except ValueError:
            raise FormatError(f"non-integer field in {line!r}", path=path, line=i) from None
        for c, x in zip(_INT_COLUMNS, vals):
            cols[c].append(x)
        cols["vc_rule"].append(parts[-1])
    md = parse_json("\n".join(meta_lines), path=path, what="metadata header") if meta_lines else {}
    if not isinstance(md, dict):
        raise FormatError("the metadata header must be a JSON object", path=path)
    out = {"metadata": md, "num_switches": md.get("topology", {}).get("num_switches")}
    for c in _COLUMNS:
        out[c] = (np.asarray(cols[c], dtype=str) if c == "vc_rule"
                  else np.asarray(cols[c], dtype=np.int64))
    return out


# ---------------------------------------------------------------------------- BookSim


def write_booksim_table(routing: Routing, path, *, metadata: bool = True) -> None:
    """Write ``router dest_node port`` lines (see the module docs).

    With ``metadata`` (default) the routing's provenance is written to ``<path>.json``
    (the table itself cannot hold a header).
    """
    from ..output import atomic_write

    t = _deterministic(routing)
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
    if metadata:
        md = routing.metadata()
        md["file"] = {"format": "booksim-routing-table", "table": Path(path).name,
                      "line": "router dest_node output_port",
                      "ports": "anynet: the router's nodes first, then neighbours by router id",
                      "written_from": "minimal tables" if t is not routing else "tables"}
        atomic_write(str(path) + ".json", json.dumps(md, indent=1, sort_keys=True) + "\n")


def read_booksim_table(path) -> np.ndarray:
    """Read ``router dest_node port`` lines into an (M, 3) int64 array."""
    out = []
    for i, line in enumerate(_read_table_text(Path(path)).splitlines(), start=1):
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
    (its exact distribution: uniform over the ``N - 2`` intermediates).  UGAL gives its
    MIN paths: the table SST anytopo's ``source_routing_algo = UGAL`` starts from (it draws
    the Valiant candidates itself, from the same table).
    """
    from .ugal import UgalRouting
    from .valiant import ValiantRouting

    if isinstance(routing, UgalRouting):
        routing = routing.base
    own = getattr(routing, "all_paths", None)  # a routing that lists its equally likely paths (merlin's)
    if own is not None:
        return own(src)
    n = routing.num_switches
    src = _check_switch("src", src, n)
    dsts = np.asarray([d for d in range(n) if d != src], dtype=np.int64)
    if isinstance(routing, ValiantRouting):
        out = {}
        for d in dsts.tolist():
            out[d] = [routing.path_via(src, m, d)[0][1:].tolist()
                      for m in range(n) if m not in (src, d)]
        return out
    t = _deterministic(routing)
    if not isinstance(t, TableRouting):
        raise RoutingError(f"cannot list paths of a {type(routing).__name__}")
    ent, _ = t.route_matrix(np.full(len(dsts), src), dsts, with_vcs=False)
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


def write_sst_routes(routing: Routing, path, weights=None) -> None:
    """Write the ``routing_entry_string`` of every router to a text file.

    ``#`` lines hold the routing's JSON metadata (provenance); then line ``i`` is
    ``router_id<TAB>entry_string`` of router ``i``, ready for
    ``sourceRoutingPlugin``'s ``routing_entry_string`` or anytopo's
    ``simple_routing_entry_string``.  Read back with :func:`read_sst_routes`.
    """
    from ..output import atomic_write

    buf = io.StringIO()
    for line in json.dumps(routing.metadata(), sort_keys=True, indent=1).splitlines():
        buf.write("# " + line + "\n")
    for i, entry in enumerate(sst_entry_strings(routing, weights)):
        buf.write(f"{i}\t{entry}\n")
    atomic_write(path, buf.getvalue())


def read_sst_routes(path) -> tuple[dict, list[dict[int, list[tuple[float, list[int]]]]]]:
    """Read a file of :func:`write_sst_routes`: ``(metadata, [parsed entry of router i])``.

    Raises
    ------
    FormatError
        On a malformed file (names the line).
    """
    path = Path(path)
    meta, tables = [], []
    for i, line in enumerate(_read_table_text(path).splitlines(), start=1):
        if line.startswith("#"):
            meta.append(line[2:] if line.startswith("# ") else line[1:])
            continue
        if not line.strip():
            continue
        head, _, entry = line.partition("\t")
        if not head.strip().isdigit() or int(head) != len(tables):
            raise FormatError(f"expected router {len(tables)} then a tab, got {line[:40]!r}",
                              path=path, line=i)
        try:
            tables.append(parse_sst_entry_string(entry))
        except FormatError as exc:
            raise FormatError(str(exc), path=path, line=i) from None
    md = parse_json("\n".join(meta), path=path, what="metadata header") if meta else {}
    return md, tables


def _read_table_text(path: Path) -> str:
    """The text of a routing table file, through the input checks of :mod:`topogen._input`
    (regular file, size limit, UTF-8)."""
    return read_text_file(path, limit_bytes=input_limit(), what="routing table", override=True,
                          memory_factor=16)


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
