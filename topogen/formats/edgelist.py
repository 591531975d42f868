"""The edge-list format: a ``# key: value`` header (provenance, counts, layout) and one
``u v`` (or ``u v kind``) line per link; also reads plain edge lists without header.

Re-exported by :mod:`topogen.formats`, whose :func:`~topogen.formats.save`
and :func:`~topogen.formats.load` pick it for ``.edges``, ``.edgelist`` and
``.txt``.  See ``docs/formats.md``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import numpy as np

from .._input import check_seed, check_sparse_ids, input_limit, parse_json, read_text_file
from .._safe_text import first_unsafe, is_unsafe
from .._version import __version__
from ..errors import FormatError, ParameterError
from ..layout import Layout
from ..output import atomic_open
from ..topology import MAX_IDS, Topology
from ._common import (FORMAT_VERSION, _check_layout, _int_array, _layout_dict, _layout_from, _reader,
                             decode_params, encode_params)

EDGELIST_MAGIC = "# topogen edge list"
#: Peak bytes per byte of edge-list text while it is split into tokens and converted
_TEXT_BYTES_PER_BYTE = 24


_STR_KEYS = ("generator", "topogen_version", "written_by")
#: header keys the reader interprets (others, e.g. ``columns``, are comments)
_JSON_KEYS = ("format_version", "params", "tuple_params", "seed", "num_switches", "num_links",
              "num_hosts", "hosts_per_switch", "kind_names", "labelled_links", "cabinet", "layout",
              "layout_cabinet")
_KEY_RE = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s?(.*)$")


def _header_str(s: str) -> str:
    """A string header value: as is when plain, else JSON (ASCII, so no control, line-break
    or separator character such as U+2028 reaches the file; the reader decodes it)."""
    safe = s == s.strip() and s and first_unsafe(s) is None and not s.startswith('"')
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
        if not name or any(ch.isspace() or is_unsafe(ch) for ch in name) or name.startswith("#"):
            raise ParameterError(
                f"link kind {name!r} cannot be written to an edge list (it must be one word "
                "without control characters, not starting with '#'); save as .json instead"
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
    text = read_text_file(path, limit_bytes=input_limit(), what="topology file", override=True,
                          memory_factor=_TEXT_BYTES_PER_BYTE, encoding="utf-8-sig")
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
    big = (u > MAX_IDS - 1) | (v > MAX_IDS - 1)
    if big.any():
        i = int(np.argmax(big))
        raise FormatError(f"switch id {int(max(u[i], v[i]))} is beyond topogen's 32-bit switch ids "
                          f"(0..{MAX_IDS - 1}); renumber the switches 0..N-1", path=path,
                          line=int(lines_arr[i]))
    if n > MAX_IDS:
        raise FormatError(f"num_switches {n:,} is beyond topogen's 32-bit switch ids (at most "
                          f"{MAX_IDS:,})", path=path, line=line_of("num_switches"))
    # ids with gaps are switches without a link: a few are fine, a 1e9 id among ten links is not
    check_sparse_ids(n, 2 * len(u), what=(f"num_switches {n:,}" if "num_switches" in values
                                          else f"switch id {n - 1:,}"),
                     path=path, line=line_of("num_switches"))

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
    seed = check_seed(values.get("seed"), what="seed", path=path, line=line_of("seed"))
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
    return parse_json(text, path=path, what=f"header {key!r}", line=line)
