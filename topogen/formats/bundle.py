"""The topogen JSON bundle: one JSON object with the topology, its provenance and,
optionally, its layout.

Re-exported by :mod:`topogen.formats`, whose :func:`~topogen.formats.save`
and :func:`~topogen.formats.load` pick it for ``.json``.  See ``docs/formats.md``.
"""

from __future__ import annotations

import json

import numpy as np

from .._input import check_count, check_seed, check_sparse_ids, input_limit, parse_json, read_text_file
from ..errors import FormatError, ParameterError
from ..layout import Layout
from ..output import atomic_write
from ..topology import MAX_IDS, Topology
from ._common import (FORMAT_VERSION, _check_layout, _int_array, _layout_dict, _layout_from, _metadata,
                             _reader, decode_params, encode_params)

BUNDLE_FORMAT = "topogen-bundle"
#: Peak bytes of parsed JSON per byte of bundle text (lists of small ints: ~10x, measured)
_JSON_BYTES_PER_BYTE = 16


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
    text = read_text_file(path, limit_bytes=input_limit(), what="topology file", override=True,
                          memory_factor=_JSON_BYTES_PER_BYTE)
    return from_bundle_dict(parse_json(text, path=path, what="topology file"), path=path)


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
    n = check_count("topology.num_switches", _need(t, "num_switches", int, "topology", path),
                    minimum=1, maximum=MAX_IDS, path=path, hint="; topogen's switch ids are 32-bit")
    name = _need(t, "name", str, "topology", path)
    edge_list = _need(t, "edges", list, "topology", path)
    # the counts the file announces, against each other before any array is built
    check_sparse_ids(n, 2 * len(edge_list), what=f"topology.num_switches = {n:,}", path=path)
    _check_claims(t, n, path)
    edges = _int_array(edge_list, "topology.edges", path=path, ndim=2)
    hosts = t.get("hosts_per_switch", 1)
    if isinstance(hosts, list):
        hosts = _int_array(hosts, "topology.hosts_per_switch", path=path)
    elif isinstance(hosts, bool) or not isinstance(hosts, int):
        raise FormatError(f"topology.hosts_per_switch must be an integer or a list, got {hosts!r}", path=path)
    params = decode_params(t.get("params", {}), t.get("tuple_params"), path=path)
    seed = check_seed(t.get("seed"), what="topology.seed", path=path)
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


def _check_claims(t: dict, n: int, path) -> None:
    """FormatError if the per-switch lists do not have ``n`` entries or the hosts exceed
    topogen's host ids (checked before the arrays are built)."""
    hosts = t.get("hosts_per_switch", 1)
    if isinstance(hosts, list) and len(hosts) != n:
        raise FormatError(f"topology.hosts_per_switch lists {len(hosts):,} switches, but "
                          f"num_switches is {n:,}", path=path)
    if isinstance(hosts, int) and not isinstance(hosts, bool):
        check_count("topology.hosts_per_switch", hosts, maximum=MAX_IDS // n, path=path,
                    hint=f" (at most {MAX_IDS:,} hosts in all, over {n:,} switches)")
    cab = t.get("cabinet")
    if isinstance(cab, list) and len(cab) != n:
        raise FormatError(f"topology.cabinet lists {len(cab):,} switches, but num_switches is {n:,}",
                          path=path)
