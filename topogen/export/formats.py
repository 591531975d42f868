"""Topology file formats: edge list, JSON bundle and GraphML.

Three formats hold a :class:`~topogen.Topology` and, optionally, a
:class:`~topogen.Layout`, each with its provenance (generator, parameters, seed,
topogen version):

=========================  ======================  ==========================================
extension                  format                  functions
=========================  ======================  ==========================================
``.json``                  topogen JSON bundle     :func:`write_bundle`, :func:`read_bundle`
``.edges``, ``.edgelist``, edge list with header   :func:`write_edgelist`, :func:`read_edgelist`
``.txt``
``.graphml``               GraphML (networkx)      :func:`write_graphml`, :func:`read_graphml`
=========================  ======================  ==========================================

:func:`save` and :func:`load` pick the format from the extension.  All three formats
round-trip losslessly: edges, hosts (one int or one per switch), link kinds, native
cabinets, parameters (tuples stay tuples), seed, version and the layout (floor,
cabinet of each switch, placement method and seed).  The edge-list reader also takes
a plain two- or three-column edge list without header (e.g. from
``networkx.write_edgelist(g, path, data=False)``).

Every file is written atomically (a temporary file in the same folder, then
:func:`os.replace`), so a crash or an error never leaves a half-written file behind.
Malformed input raises :class:`~topogen.errors.FormatError` naming the file and, where
the format allows, the 1-based line.  See ``docs/formats.md`` for examples.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from .._version import __version__
from ..errors import FormatError, ParameterError, TopogenError
from ..layout import Floor, Layout
from ..topology import Topology

__all__ = [
    "FORMATS",
    "EXTENSIONS",
    "save",
    "load",
    "format_of",
    "write_edgelist",
    "read_edgelist",
    "read_edgelist_with_layout",
    "edgelist_text",
    "encode_params",
    "decode_params",
    "write_bundle",
    "read_bundle",
    "bundle_dict",
    "from_bundle_dict",
    "write_graphml",
    "read_graphml",
    "atomic_open",
    "atomic_write",
]

EDGELIST_MAGIC = "# topogen edge list"
BUNDLE_FORMAT = "topogen-bundle"
GRAPHML_FORMAT = "topogen-graphml"
FORMAT_VERSION = 1

#: format name -> extensions it is saved under (the first is the canonical one)
FORMATS: dict[str, tuple[str, ...]] = {
    "json": (".json",),
    "edgelist": (".edges", ".edgelist", ".txt"),
    "graphml": (".graphml",),
}
#: extension -> format name
EXTENSIONS: dict[str, str] = {ext: fmt for fmt, exts in FORMATS.items() for ext in exts}


# ============================================================================ atomic writes
# one output policy for every command: the helpers live in topogen.output (re-exported here)
from ..output import atomic_open, atomic_write  # noqa: E402


def _reader(func):
    """Turn decoding failures of a reader into FormatError naming the file."""

    @functools.wraps(func)
    def wrapper(path, *args, **kwargs):
        try:
            return func(path, *args, **kwargs)
        except UnicodeDecodeError as exc:
            raise FormatError(f"not a text file ({exc.reason} at byte {exc.start})", path=path) from None
        except TopogenError:
            raise
        except (ValueError, TypeError, OverflowError) as exc:  # e.g. ints beyond int64
            raise FormatError(f"cannot read: {exc}", path=path) from None

    return wrapper


# ============================================================================ parameters
def _encode(obj, path: list, tuples: list) -> Any:
    """JSON-friendly copy of ``obj``; the key path of every tuple is appended to ``tuples``."""
    if isinstance(obj, Mapping):
        return {str(k): _encode(v, path + [str(k)], tuples) for k, v in obj.items()}
    if isinstance(obj, tuple):
        tuples.append(list(path))
    if isinstance(obj, (list, tuple)):
        return [_encode(v, path + [i], tuples) for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return _encode(obj.tolist(), path, tuples)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


def encode_params(params: Mapping[str, Any]) -> tuple[dict, list]:
    """Parameters as JSON plus the key paths of the values that were tuples.

    Parameters
    ----------
    params : mapping
        A topology's parameters.

    Returns
    -------
    (dict, list of list)
        JSON-friendly parameters (tuples and arrays become lists, numpy scalars Python
        numbers, other objects their ``str``) and the paths (lists of keys and indices)
        of the tuples, so :func:`decode_params` can restore them.
    """
    tuples: list = []
    return _encode(dict(params), [], tuples), tuples


def decode_params(params, tuple_paths, *, path=None, line=None) -> dict:
    """Inverse of :func:`encode_params`: turn the lists at ``tuple_paths`` back into tuples."""
    if not isinstance(params, dict):
        raise FormatError(f"params must be a JSON object, got {type(params).__name__}", path=path, line=line)
    if tuple_paths is None:
        return params
    if not isinstance(tuple_paths, list):
        raise FormatError("tuple_params must be a list of key paths", path=path, line=line)

    def convert(node, keys):
        if not keys:
            if not isinstance(node, (list, tuple)):
                raise KeyError
            return tuple(node)
        key, rest = keys[0], keys[1:]
        if isinstance(node, dict) and isinstance(key, str) and key in node:
            node[key] = convert(node[key], rest)
            return node
        if isinstance(node, (list, tuple)) and isinstance(key, int) and 0 <= key < len(node):
            node = list(node) if isinstance(node, tuple) else node
            node[key] = convert(node[key], rest)
            return node
        raise KeyError

    # deepest paths first, so an inner tuple is converted before its parent is
    for keys in sorted(tuple_paths, key=lambda k: -len(k) if isinstance(k, list) else 0):
        if not isinstance(keys, list) or not keys:
            raise FormatError(f"bad tuple_params entry {keys!r}: expected a non-empty key path",
                              path=path, line=line)
        try:
            convert(params, keys)
        except KeyError:
            raise FormatError(f"tuple_params entry {keys!r} names no list in params",
                              path=path, line=line) from None
    return params


def _metadata(topology: Topology, layout: Layout | None) -> dict:
    meta = topology.metadata()
    meta["params"] = encode_params(topology.params)[0]
    meta["num_hosts"] = topology.num_hosts
    meta["written_by"] = f"topogen {__version__}"
    if layout is not None:
        meta["floor"] = layout.floor.name
        meta["cabinets"] = layout.floor.cabinets
        meta["placement"] = layout.placement
    return meta


def _check_layout(topology: Topology, layout: Layout | None) -> None:
    if layout is not None and layout.topology is not topology:
        t = layout.topology
        same = (t.num_switches == topology.num_switches and t.num_links == topology.num_links
                and np.array_equal(t.edges, topology.edges))
        if not same:
            raise ParameterError("the layout places a different topology than the one being saved")


def _layout_dict(layout: Layout) -> dict:
    return {
        "floor": layout.floor.to_dict(),
        "cabinet": layout.cabinet,
        "placement": layout.placement,
        "seed": layout.seed,
    }


def _int_array(value, what: str, *, path, line=None, ndim: int = 1) -> np.ndarray:
    """A JSON list as an int64 array, FormatError if it is not a list of integers."""
    if not isinstance(value, list):
        raise FormatError(f"{what} must be a list, got {type(value).__name__}", path=path, line=line)
    if not value:
        return np.zeros((0,) * ndim if ndim == 1 else (0, 2), dtype=np.int64)
    shape = "a list of [u, v] pairs" if ndim == 2 else "a flat list of integers"
    try:
        arr = np.array(value)
    except (ValueError, OverflowError):
        arr = None
    if arr is not None and (arr.ndim != ndim or (ndim == 2 and arr.shape[1] != 2)):
        raise FormatError(f"{what} must be {shape}", path=path, line=line)
    if arr is not None and arr.dtype.kind == "i":
        # fast path; numpy also turns true/false among ints into 1/0, so check the types
        flat = itertools.chain.from_iterable(value) if ndim == 2 else value
        if set(map(type, flat)) <= {int}:
            return arr.astype(np.int64, copy=False)
    # slow path: find the offending entry
    rows = value if ndim == 2 else [[x] for x in value]
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != (2 if ndim == 2 else 1):
            raise FormatError(f"{what} must be {shape}", path=path, line=line)
        for x in row:
            if isinstance(x, bool) or not isinstance(x, int):
                raise FormatError(f"{what}[{i}] must be an integer, got {x!r}", path=path, line=line)
            if not -(2**63) <= x < 2**63:
                raise FormatError(f"{what}[{i}] = {x} is out of range", path=path, line=line)
    raise FormatError(f"{what} must be {shape}", path=path, line=line)  # pragma: no cover


def _layout_from(d, topology: Topology, *, path, line=None, cabinet=None) -> Layout:
    if not isinstance(d, dict):
        raise FormatError(f"layout must be an object or null, got {type(d).__name__}", path=path, line=line)
    for key in ("floor", "placement") + (("cabinet",) if cabinet is None else ()):
        if key not in d:
            raise FormatError(f"layout is missing key {key!r}", path=path, line=line)
    if not isinstance(d["floor"], dict):
        raise FormatError("layout.floor must be an object", path=path, line=line)
    if not isinstance(d["placement"], str):
        raise FormatError("layout.placement must be a string", path=path, line=line)
    seed = d.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FormatError(f"layout.seed must be an integer or null, got {seed!r}", path=path, line=line)
    cab = cabinet if cabinet is not None else _int_array(d["cabinet"], "layout.cabinet", path=path, line=line)
    try:
        floor = Floor.from_dict(d["floor"])
        return Layout(topology, floor, cab, d["placement"], seed)
    except (ParameterError, TypeError) as exc:
        raise FormatError(f"invalid layout: {exc}", path=path, line=line) from None


# ============================================================================ edge list
_STR_KEYS = ("generator", "topogen_version", "written_by")
#: header keys the reader interprets (others, e.g. ``columns``, are comments)
_JSON_KEYS = ("format_version", "params", "tuple_params", "seed", "num_switches", "num_links",
              "num_hosts", "hosts_per_switch", "kind_names", "labelled_links", "cabinet", "layout",
              "layout_cabinet")
_KEY_RE = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s?(.*)$")


def _header_str(s: str) -> str:
    safe = s == s.strip() and s and "\n" not in s and "\r" not in s and not s.startswith('"')
    return s if safe else json.dumps(s)


def _json_line(obj) -> str:
    if isinstance(obj, np.ndarray):
        return "[" + ", ".join(map(str, obj.tolist())) + "]"
    return json.dumps(obj, separators=(", ", ": "))


def edgelist_text(topology: Topology, layout: Layout | None = None) -> Iterator[str]:
    """The lines (with newlines) of :func:`write_edgelist`'s file, for streaming.

    Parameters
    ----------
    topology : Topology
        What to write.
    layout : Layout, optional
        Recorded in ``# layout`` header lines when given.

    Yields
    ------
    str
        One line at a time.
    """
    _check_layout(topology, layout)
    labelled = topology.link_kind is not None
    for name in topology.kind_names:
        if not name or any(ch.isspace() for ch in name) or name.startswith("#"):
            raise ParameterError(
                f"link kind {name!r} cannot be written to an edge list (it must be one word, "
                "not starting with '#'); save as .json instead"
            )
    params, tuples = encode_params(topology.params)
    yield EDGELIST_MAGIC + "\n"
    yield f"# format_version: {FORMAT_VERSION}\n"
    yield f"# generator: {_header_str(topology.name)}\n"
    yield f"# params: {_json_line(params)}\n"
    if tuples:
        yield f"# tuple_params: {_json_line(tuples)}\n"
    yield f"# seed: {_json_line(topology.seed)}\n"
    yield f"# topogen_version: {_header_str(topology.version)}\n"
    yield f"# written_by: topogen {__version__}\n"
    yield f"# num_switches: {topology.num_switches}\n"
    yield f"# num_links: {topology.num_links}\n"
    yield f"# num_hosts: {topology.num_hosts}\n"
    hps = topology.hosts_per_switch
    yield f"# hosts_per_switch: {_json_line(hps if np.ndim(hps) == 0 else np.asarray(hps))}\n"
    if labelled or topology.kind_names:
        yield f"# kind_names: {_json_line(list(topology.kind_names))}\n"
        yield f"# labelled_links: {_json_line(labelled)}\n"
    if topology.cabinet is not None:
        yield f"# cabinet: {_json_line(topology.cabinet)}\n"
    if layout is not None:
        d = _layout_dict(layout)
        del d["cabinet"]
        yield f"# layout: {_json_line(d)}\n"
        yield f"# layout_cabinet: {_json_line(layout.cabinet)}\n"
    yield "# columns: u v" + (" kind" if labelled else "") + "\n"
    edges = topology.edges.tolist()
    chunk = 65536  # yield blocks of lines: fast to write, still streamable
    if labelled:
        names = topology.kind_names
        kinds = topology.link_kind.tolist()
        for i in range(0, len(edges), chunk):
            yield "".join([f"{u} {v} {names[k]}\n" for (u, v), k in zip(edges[i:i + chunk], kinds[i:i + chunk])])
    else:
        for i in range(0, len(edges), chunk):
            yield "".join([f"{u} {v}\n" for u, v in edges[i:i + chunk]])


def write_edgelist(topology: Topology, path, layout: Layout | None = None) -> None:
    """Write ``topology`` as an edge list with a ``# key: value`` header.

    The header records the generator, parameters (JSON), seed, topogen version,
    switch/link/host counts, hosts per switch, link kind names, the native cabinets
    and, if given, the layout; then one ``u v`` (or ``u v kind``) line per link.

    Parameters
    ----------
    topology : Topology
        What to write.
    path : str or os.PathLike
        Destination; written atomically.
    layout : Layout, optional
        A placement of ``topology`` to record as well.

    Raises
    ------
    ParameterError
        If a link kind name contains whitespace (use the JSON bundle instead).
    OSError
        If the file cannot be written.
    """
    lines = edgelist_text(topology, layout)
    first = next(lines)  # validates before the file is created
    with atomic_open(path, "w") as f:
        f.write(first)
        f.writelines(lines)


@_reader
def read_edgelist(path) -> Topology:
    """Read an edge list written by :func:`write_edgelist`, or a plain one.

    A plain edge list has one ``u v`` or ``u v kind`` line per link and optional ``#``
    comments; switches are ``0 .. max id`` and the topology is named ``"edgelist"``.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    Topology
        The topology only; :func:`read_edgelist_with_layout` also returns the layout
        recorded in the header, if any.

    Raises
    ------
    FormatError
        Non-integer switch id, wrong number of columns, id out of range, self-loop,
        duplicate link, unknown link kind or a bad header value; the message gives the
        1-based line.
    """
    return _read_edgelist(path)[0]


@_reader
def read_edgelist_with_layout(path) -> tuple[Topology, Layout | None]:
    """Like :func:`read_edgelist`, but also return the recorded layout (or None)."""
    return _read_edgelist(path)


def _read_edgelist(path) -> tuple[Topology, Layout | None]:
    header: dict[str, tuple[Any, int]] = {}
    with open(path, "r", encoding="utf-8-sig") as f:
        text = f.read()
    lines = text.split("\n")
    topogen_file = bool(lines) and lines[0].strip() == EDGELIST_MAGIC
    data_lines: list[str] = []
    data_no: list[int] = []
    for lineno, raw in enumerate(lines, 1):
        stripped = raw.lstrip()
        if not stripped:
            continue
        if stripped[0] == "#":
            if topogen_file and lineno > 1:
                m = _KEY_RE.match(stripped.rstrip())
                if m and (m.group(1) in _STR_KEYS or m.group(1) in _JSON_KEYS):
                    header[m.group(1)] = (m.group(2).strip(), lineno)
            continue
        data_lines.append(raw)
        data_no.append(lineno)

    # --- the links, vectorised; slow paths only to name the first bad line
    ncols = None
    first_edge_line = data_no[0] if data_no else 0
    u = v = np.zeros(0, dtype=np.int64)
    kinds = None
    if data_lines:
        # per-line token counts without keeping a list per line (which would wake the GC)
        counts = np.fromiter(map(len, map(str.split, data_lines)), dtype=np.int64, count=len(data_lines))
        ncols = int(counts[0])
        if ncols not in (2, 3):
            raise FormatError(f"expected 'u v' or 'u v kind', found {ncols} columns",
                              path=path, line=first_edge_line)
        odd = np.flatnonzero(counts != ncols)
        if len(odd):
            i = int(odd[0])
            raise FormatError(f"expected {ncols} columns like line {first_edge_line}, found {int(counts[i])}",
                              path=path, line=data_no[i])
        table = np.array(" ".join(data_lines).split(), dtype=str).reshape(len(data_lines), ncols)
        try:
            u = table[:, 0].astype(np.int64)
            v = table[:, 1].astype(np.int64)
        except (ValueError, OverflowError):
            for i, line in enumerate(data_lines):
                for tok in line.split()[:2]:
                    if not _is_int(tok):
                        raise FormatError(f"switch id {tok!r} is not an integer", path=path,
                                          line=data_no[i]) from None
                    if not -(2**63) <= int(tok) < 2**63:
                        raise FormatError(f"switch id {tok} is out of range", path=path,
                                          line=data_no[i]) from None
            raise  # pragma: no cover - numpy and int() disagree
        if ncols == 3:
            kinds = table[:, 2]
    lines_arr = np.asarray(data_no, dtype=np.int64)

    values = {key: _header_value(key, text, line, path) for key, (text, line) in header.items()}

    def line_of(key):
        return header[key][1] if key in header else None

    version = values.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise FormatError(
            f"edge list format_version {version!r} is not supported (this topogen reads "
            f"{FORMAT_VERSION}); upgrade topogen", path=path, line=line_of("format_version"))

    if "num_switches" in values:
        n = values["num_switches"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise FormatError(f"num_switches must be a positive integer, got {n!r}",
                              path=path, line=line_of("num_switches"))
    elif len(u):
        n = int(max(u.max(), v.max())) + 1
    else:
        raise FormatError("no links and no num_switches header: nothing to read", path=path)

    bad = (u < 0) | (v < 0) | (u >= n) | (v >= n)
    if bad.any():
        i = int(np.argmax(bad))
        x = int(u[i]) if (u[i] < 0 or u[i] >= n) else int(v[i])
        raise FormatError(f"switch id {x} is out of range 0..{n - 1}", path=path, line=int(lines_arr[i]))
    loop = u == v
    if loop.any():
        i = int(np.argmax(loop))
        raise FormatError(f"self-loop at switch {int(u[i])}: a link must join two distinct switches",
                          path=path, line=int(lines_arr[i]))
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    if len(lo) > 1:
        order = np.lexsort((lines_arr, hi, lo))  # by link, then by line
        slo, shi = lo[order], hi[order]
        dup = np.flatnonzero((slo[1:] == slo[:-1]) & (shi[1:] == shi[:-1])) + 1
        if len(dup):
            later = order[dup]
            first = order[dup - 1]
            j = int(np.argmin(lines_arr[later]))
            i_later, i_first = int(later[j]), int(first[j])
            raise FormatError(
                f"duplicate link {int(lo[i_later])}-{int(hi[i_later])} (already on line "
                f"{int(lines_arr[i_first])}); topologies are simple graphs",
                path=path, line=int(lines_arr[i_later]))

    if "num_links" in values and values["num_links"] != len(u):
        raise FormatError(
            f"the header announces {values['num_links']} links but the file has {len(u)}; "
            "it may be truncated", path=path, line=line_of("num_links"))

    # link kinds
    kind_names = values.get("kind_names")
    labelled = values.get("labelled_links")
    if kind_names is not None:
        if not isinstance(kind_names, list) or not all(isinstance(k, str) for k in kind_names):
            raise FormatError("kind_names must be a JSON list of strings", path=path, line=line_of("kind_names"))
    if labelled is None:
        labelled = ncols == 3
    if labelled and ncols == 2:
        raise FormatError("the header says links are labelled, but this line has no kind column",
                          path=path, line=first_edge_line)
    if not labelled and ncols == 3:
        raise FormatError("the header says links are not labelled, but this line has a kind column",
                          path=path, line=first_edge_line)
    link_kind = None
    if labelled:
        if len(u):
            uniq, first_idx, inverse = np.unique(kinds, return_index=True, return_inverse=True)
            if kind_names is None:
                order = np.argsort(first_idx, kind="stable")
                kind_names = [str(k) for k in uniq[order]]
            code = {name: i for i, name in enumerate(kind_names)}
            unknown = [j for j, k in enumerate(uniq) if str(k) not in code]
            if unknown:
                j = min(unknown, key=lambda j: first_idx[j])
                raise FormatError(
                    f"link kind {str(uniq[j])!r} is not one of the header's kind_names "
                    f"({', '.join(kind_names)})", path=path, line=int(lines_arr[first_idx[j]]))
            lookup = np.array([code[str(k)] for k in uniq], dtype=np.int8)
            link_kind = lookup[inverse.ravel()]
        else:
            link_kind = np.zeros(0, dtype=np.int8)
    kind_names = tuple(kind_names or ())

    # provenance
    name = values.get("generator", "edgelist" if not topogen_file else "custom")
    seed = values.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FormatError(f"seed must be an integer or null, got {seed!r}", path=path, line=line_of("seed"))
    params = decode_params(values.get("params", {}), values.get("tuple_params"),
                           path=path, line=line_of("params"))
    hosts = values.get("hosts_per_switch", 1)
    if isinstance(hosts, list):
        hosts = _int_array(hosts, "hosts_per_switch", path=path, line=line_of("hosts_per_switch"))
    elif isinstance(hosts, bool) or not isinstance(hosts, int):
        raise FormatError(f"hosts_per_switch must be an integer or a list, got {hosts!r}",
                          path=path, line=line_of("hosts_per_switch"))
    cabinet = None
    if "cabinet" in values:
        cabinet = _int_array(values["cabinet"], "cabinet", path=path, line=line_of("cabinet"))

    kw = dict(num_switches=n, edges=np.stack([lo, hi], axis=1) if len(lo) else np.zeros((0, 2), np.int64),
              hosts_per_switch=hosts, name=str(name), params=params, seed=seed, cabinet=cabinet,
              link_kind=link_kind, kind_names=kind_names)
    if "topogen_version" in values:
        kw["version"] = str(values["topogen_version"])
    try:
        topology = Topology(**kw)
    except ParameterError as exc:
        raise FormatError(str(exc), path=path) from None

    layout = None
    if "layout" in values:
        if "layout_cabinet" not in values:
            raise FormatError("a '# layout' line needs a '# layout_cabinet' line", path=path,
                              line=line_of("layout"))
        cab = _int_array(values["layout_cabinet"], "layout_cabinet", path=path, line=line_of("layout_cabinet"))
        layout = _layout_from(values["layout"], topology, path=path, line=line_of("layout"), cabinet=cab)
    return topology, layout


def _is_int(tok: str) -> bool:
    try:
        int(tok)
        return True
    except ValueError:
        return False


def _header_value(key: str, text: str, line: int, path):
    if key in _STR_KEYS and not text.startswith('"'):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"header {key!r}: invalid JSON ({exc.msg})", path=path, line=line) from None


# ============================================================================ JSON bundle
def bundle_dict(topology: Topology, layout: Layout | None = None) -> dict:
    """The JSON bundle of ``topology`` (and ``layout``) as a dict (arrays as numpy).

    Parameters
    ----------
    topology : Topology
    layout : Layout, optional

    Returns
    -------
    dict
        ``{"format", "format_version", "metadata", "topology", "layout"}``; see
        ``docs/formats.md``.
    """
    _check_layout(topology, layout)
    params, tuples = encode_params(topology.params)
    hps = topology.hosts_per_switch
    topo = {
        "name": topology.name,
        "num_switches": topology.num_switches,
        "hosts_per_switch": hps if np.ndim(hps) == 0 else np.asarray(hps),
        "params": params,
        "tuple_params": tuples,
        "seed": topology.seed,
        "version": topology.version,
        "kind_names": list(topology.kind_names),
        "edges": topology.edges,
        "link_kind": topology.link_kind,
        "cabinet": topology.cabinet,
    }
    return {
        "format": BUNDLE_FORMAT,
        "format_version": FORMAT_VERSION,
        "metadata": _metadata(topology, layout),
        "topology": topo,
        "layout": None if layout is None else _layout_dict(layout),
    }


def _pretty(obj, indent: int = 0) -> str:
    """JSON text: objects indented, flat lists on one line, lists of lists one item a line."""
    pad, pad1 = " " * indent, " " * (indent + 1)
    if isinstance(obj, np.ndarray):
        if obj.ndim == 1:
            return "[" + ", ".join(map(str, obj.tolist())) + "]"
        rows = obj.tolist()
        if not rows:
            return "[]"
        if obj.shape[1] == 2:
            body = ",\n".join([f"{pad1}[{a}, {b}]" for a, b in rows])
        else:
            body = ",\n".join(pad1 + "[" + ", ".join(map(str, r)) + "]" for r in rows)
        return "[\n" + body + "\n" + pad + "]"
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad1}{json.dumps(str(k))}: {_pretty(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, (list, tuple)):
        if not obj:
            return "[]"
        if all(not isinstance(x, (dict, list, tuple, np.ndarray)) for x in obj):
            return json.dumps(list(obj), separators=(", ", ": "))
        return "[\n" + ",\n".join(pad1 + _pretty(x, indent + 1) for x in obj) + "\n" + pad + "]"
    if isinstance(obj, np.generic):
        obj = obj.item()
    return json.dumps(obj)


def write_bundle(path, topology: Topology, layout: Layout | None = None) -> None:
    """Write the JSON bundle of ``topology`` and, optionally, its ``layout``.

    Parameters
    ----------
    path : str or os.PathLike
        Destination (``.json``); written atomically.
    topology : Topology
        What to write.
    layout : Layout, optional
        A placement of ``topology`` (floor, cabinet of each switch, method, seed).

    Raises
    ------
    ParameterError
        If ``layout`` places another topology.
    OSError
        If the file cannot be written.
    """
    atomic_write(path, _pretty(bundle_dict(topology, layout)) + "\n")


@_reader
def read_bundle(path) -> tuple[Topology, Layout | None]:
    """Read a JSON bundle written by :func:`write_bundle`.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    (Topology, Layout or None)

    Raises
    ------
    FormatError
        Invalid JSON (with the decoder's line), not a topogen bundle, an unsupported
        ``format_version``, a missing key or a value of the wrong type.
    """
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno) from None
    return from_bundle_dict(doc, path=path)


def _need(d: dict, key: str, types, where: str, path):
    if key not in d:
        raise FormatError(f"{where} is missing key {key!r}", path=path)
    value = d[key]
    if types is not None:
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in _as_tuple(types))
        if not ok:
            names = " or ".join("null" if t is type(None) else t.__name__ for t in _as_tuple(types))
            raise FormatError(f"{where}.{key} must be {names}, got {type(value).__name__}", path=path)
    return value


def _as_tuple(types):
    return types if isinstance(types, tuple) else (types,)


def from_bundle_dict(doc, *, path=None) -> tuple[Topology, Layout | None]:
    """Build the topology and layout from a parsed JSON bundle (see :func:`read_bundle`)."""
    if not isinstance(doc, dict):
        raise FormatError(f"a topogen bundle is a JSON object, got {type(doc).__name__}", path=path)
    fmt = doc.get("format")
    if fmt != BUNDLE_FORMAT:
        raise FormatError(f"not a topogen bundle (format is {fmt!r}, expected {BUNDLE_FORMAT!r})", path=path)
    version = _need(doc, "format_version", int, "bundle", path)
    if version != FORMAT_VERSION:
        raise FormatError(f"bundle format_version {version} is not supported (this topogen reads "
                          f"{FORMAT_VERSION}); upgrade topogen", path=path)
    t = _need(doc, "topology", dict, "bundle", path)
    n = _need(t, "num_switches", int, "topology", path)
    name = _need(t, "name", str, "topology", path)
    edges = _int_array(_need(t, "edges", list, "topology", path), "topology.edges", path=path, ndim=2)
    hosts = t.get("hosts_per_switch", 1)
    if isinstance(hosts, list):
        hosts = _int_array(hosts, "topology.hosts_per_switch", path=path)
    elif isinstance(hosts, bool) or not isinstance(hosts, int):
        raise FormatError(f"topology.hosts_per_switch must be an integer or a list, got {hosts!r}", path=path)
    params = decode_params(t.get("params", {}), t.get("tuple_params"), path=path)
    seed = t.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FormatError(f"topology.seed must be an integer or null, got {seed!r}", path=path)
    kind_names = t.get("kind_names", [])
    if not isinstance(kind_names, list) or not all(isinstance(k, str) for k in kind_names):
        raise FormatError("topology.kind_names must be a list of strings", path=path)
    link_kind = t.get("link_kind")
    if link_kind is not None:
        link_kind = _int_array(link_kind, "topology.link_kind", path=path)
    cabinet = t.get("cabinet")
    if cabinet is not None:
        cabinet = _int_array(cabinet, "topology.cabinet", path=path)
    kw = dict(num_switches=n, edges=edges, hosts_per_switch=hosts, name=name, params=params, seed=seed,
              cabinet=cabinet, link_kind=link_kind, kind_names=tuple(kind_names))
    if "version" in t:
        kw["version"] = str(_need(t, "version", str, "topology", path))
    try:
        topology = Topology(**kw)
    except ParameterError as exc:
        raise FormatError(f"invalid topology: {exc}", path=path) from None
    lay = doc.get("layout")
    layout = None if lay is None else _layout_from(lay, topology, path=path)
    return topology, layout


# ============================================================================ GraphML
def write_graphml(path, topology: Topology, layout: Layout | None = None) -> None:
    """Write ``topology`` as GraphML (via networkx), metadata as graph attributes.

    Nodes carry ``hosts`` (and ``cabinet`` for a native placement, ``layout_cabinet``
    when a layout is given); edges carry ``kind`` when the links are labelled; the
    graph carries ``generator``, ``params`` (JSON), ``seed`` (JSON), ``topogen_version``
    and the other fields needed for a lossless round trip.

    Parameters
    ----------
    path : str or os.PathLike
        Destination (``.graphml``); written atomically.
    topology : Topology
    layout : Layout, optional

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    import networkx as nx

    _check_layout(topology, layout)
    params, tuples = encode_params(topology.params)
    g = nx.Graph()
    g.graph.update({
        "format": GRAPHML_FORMAT,
        "format_version": FORMAT_VERSION,
        "generator": topology.name,
        "params": json.dumps(params),
        "tuple_params": json.dumps(tuples),
        "seed": json.dumps(topology.seed),
        "topogen_version": topology.version,
        "written_by": f"topogen {__version__}",
        "num_switches": topology.num_switches,
        "num_links": topology.num_links,
        "kind_names": json.dumps(list(topology.kind_names)),
        "labelled_links": topology.link_kind is not None,
        "has_cabinet": topology.cabinet is not None,
    })
    if layout is not None:
        d = _layout_dict(layout)
        del d["cabinet"]
        g.graph["layout"] = json.dumps(d)
    hosts = topology.hosts.tolist()
    cab = None if topology.cabinet is None else topology.cabinet.tolist()
    lcab = None if layout is None else layout.cabinet.tolist()
    for v in range(topology.num_switches):
        attrs = {"hosts": hosts[v]}
        if cab is not None:
            attrs["cabinet"] = cab[v]
        if lcab is not None:
            attrs["layout_cabinet"] = lcab[v]
        g.add_node(v, **attrs)
    if topology.link_kind is not None:
        names = topology.kind_names
        g.add_edges_from((u, v, {"kind": names[k]})
                         for (u, v), k in zip(topology.edges.tolist(), topology.link_kind.tolist()))
    else:
        g.add_edges_from(topology.edges.tolist())
    with atomic_open(path, "wb") as f:
        nx.write_graphml(g, f)


@_reader
def read_graphml(path) -> tuple[Topology, Layout | None]:
    """Read GraphML written by :func:`write_graphml` or by another tool.

    Foreign GraphML: nodes with integer ids keep them (N = max id + 1), other ids are
    numbered in file order; a ``hosts`` node attribute and a ``kind`` edge attribute
    are used when present.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    (Topology, Layout or None)

    Raises
    ------
    FormatError
        Malformed XML (with its line), self-loops or parallel links, bad metadata.
    """
    import xml.etree.ElementTree as ET

    import networkx as nx

    try:
        g = nx.read_graphml(path)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise FormatError(f"invalid XML: {exc}", path=path, line=line) from None
    except (nx.NetworkXError, ValueError, KeyError) as exc:
        raise FormatError(f"invalid GraphML: {exc}", path=path) from None
    meta = g.graph
    ours = meta.get("format") == GRAPHML_FORMAT
    if ours and int(meta.get("format_version", FORMAT_VERSION)) != FORMAT_VERSION:
        raise FormatError(f"GraphML format_version {meta.get('format_version')} is not supported; "
                          "upgrade topogen", path=path)
    if g.is_directed():
        g = g.to_undirected()
    nodes = list(g.nodes())
    try:
        ids = [int(x) for x in nodes]
        if ids and min(ids) < 0:
            raise ValueError
        index = dict(zip(nodes, ids))
        n = max(ids) + 1 if ids else 0
    except (TypeError, ValueError):
        index = {x: i for i, x in enumerate(nodes)}
        n = len(nodes)
    if ours:
        n = int(meta.get("num_switches", n))
    if n < 1:
        raise FormatError("the graph has no nodes", path=path)
    edge_rows = []
    kinds = []
    for u, v, data in g.edges(data=True):
        edge_rows.append((index[u], index[v]))
        kinds.append(data.get("kind"))
    if g.is_multigraph():
        seen = set()
        for a, b in edge_rows:
            key = (min(a, b), max(a, b))
            if key in seen:
                raise FormatError(f"parallel link between switches {key[0]} and {key[1]}: "
                                  "topologies are simple graphs", path=path)
            seen.add(key)

    def jget(key, default):
        if key not in meta:
            return default
        try:
            return json.loads(meta[key])
        except (TypeError, json.JSONDecodeError):
            raise FormatError(f"graph attribute {key!r} is not valid JSON", path=path) from None

    labelled = bool(meta["labelled_links"]) if "labelled_links" in meta else (
        bool(kinds) and all(k is not None for k in kinds))
    kind_names = jget("kind_names", None)
    link_kind = None
    if labelled:
        if any(k is None for k in kinds):
            raise FormatError("some edges have no 'kind' attribute although links are labelled", path=path)
        if kind_names is None:
            kind_names = list(dict.fromkeys(str(k) for k in kinds))
        code = {k: i for i, k in enumerate(kind_names)}
        try:
            link_kind = np.array([code[str(k)] for k in kinds], dtype=np.int8)
        except KeyError as exc:
            raise FormatError(f"edge kind {exc.args[0]!r} is not in kind_names", path=path) from None
    hosts = np.ones(n, dtype=np.int64)
    cabinet = np.zeros(n, dtype=np.int64) if meta.get("has_cabinet") else None
    lcab = np.zeros(n, dtype=np.int64) if "layout" in meta else None
    for x, data in g.nodes(data=True):
        i = index[x]
        try:
            hosts[i] = int(data.get("hosts", 1))
            if cabinet is not None:
                cabinet[i] = int(data["cabinet"])
            if lcab is not None:
                lcab[i] = int(data["layout_cabinet"])
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"node {x!r}: missing or non-integer attribute {exc}", path=path) from None
    seed = jget("seed", None)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FormatError(f"seed must be an integer or null, got {seed!r}", path=path)
    params = decode_params(jget("params", {}), jget("tuple_params", None), path=path)
    kw = dict(num_switches=n, edges=np.array(edge_rows, dtype=np.int64).reshape(-1, 2), hosts_per_switch=hosts,
              name=str(meta.get("generator", "graphml")), params=params, seed=seed, cabinet=cabinet,
              link_kind=link_kind, kind_names=tuple(kind_names or ()))
    if "topogen_version" in meta:
        kw["version"] = str(meta["topogen_version"])
    try:
        topology = Topology(**kw)
    except ParameterError as exc:
        raise FormatError(f"invalid topology: {exc}", path=path) from None
    layout = None
    if lcab is not None:
        layout = _layout_from(jget("layout", None), topology, path=path, cabinet=lcab)
    return topology, layout


# ============================================================================ dispatch
def format_of(path, format: str | None = None) -> str:
    """The format name (``"json"``, ``"edgelist"``, ``"graphml"``) for ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        File name; its extension decides.
    format : str, optional
        Explicit format name, overriding the extension.

    Raises
    ------
    ParameterError
        Unknown extension or format name; the message lists the supported ones.
    """
    supported = ", ".join(EXTENSIONS)
    if format is not None:
        if format not in FORMATS:
            raise ParameterError(f"unknown format {format!r}; supported: {', '.join(FORMATS)}")
        return format
    ext = Path(str(path)).suffix.lower()
    if ext not in EXTENSIONS:
        raise ParameterError(
            f"cannot tell the format of {str(path)!r} from its extension {ext or '(none)'}; "
            f"supported extensions: {supported}")
    return EXTENSIONS[ext]


def save(path, topology: Topology, layout: Layout | None = None, *, format: str | None = None) -> None:
    """Write ``topology`` (and ``layout``) in the format of ``path``'s extension.

    Parameters
    ----------
    path : str or os.PathLike
        ``.json`` (bundle), ``.edges``/``.edgelist``/``.txt`` (edge list) or ``.graphml``.
    topology : Topology
    layout : Layout, optional
        Recorded in all three formats.
    format : {"json", "edgelist", "graphml"}, optional
        Overrides the extension.

    Raises
    ------
    ParameterError
        Unknown extension (the message lists the supported ones).
    OSError
        If the file cannot be written (nothing is left behind).
    """
    fmt = format_of(path, format)
    if not isinstance(topology, Topology):
        raise ParameterError(f"save() needs a Topology, got {type(topology).__name__}")
    if fmt == "json":
        write_bundle(path, topology, layout)
    elif fmt == "edgelist":
        write_edgelist(topology, path, layout)
    else:
        write_graphml(path, topology, layout)


def load(path, *, format: str | None = None) -> tuple[Topology, Layout | None]:
    """Read a topology (and its layout, if the file has one) by ``path``'s extension.

    Parameters
    ----------
    path : str or os.PathLike
    format : {"json", "edgelist", "graphml"}, optional
        Overrides the extension.

    Returns
    -------
    (Topology, Layout or None)

    Raises
    ------
    ParameterError
        Unknown extension.
    FormatError
        Malformed file.
    OSError
        If the file cannot be read.
    """
    fmt = format_of(path, format)
    if fmt == "json":
        return read_bundle(path)
    if fmt == "edgelist":
        return read_edgelist_with_layout(path)
    return read_graphml(path)

