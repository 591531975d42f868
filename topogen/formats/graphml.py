"""GraphML through networkx: the topology's metadata as graph attributes, hosts and
cabinets as node attributes, link kinds as edge attributes; also reads foreign GraphML.

Re-exported by :mod:`topogen.formats`, whose :func:`~topogen.formats.save`
and :func:`~topogen.formats.load` pick it for ``.graphml``.  See
``docs/formats.md``.
"""

from __future__ import annotations

import json

import numpy as np

from .._input import check_seed, check_sparse_ids, input_limit, parse_json, read_bytes_file
from .._safe_text import first_unsafe
from .._version import __version__
from ..errors import FormatError, ParameterError
from ..layout import Layout
from ..output import atomic_open
from ..topology import MAX_IDS, Topology
from ._common import FORMAT_VERSION, _check_layout, _layout_dict, _layout_from, _reader, decode_params, encode_params

GRAPHML_FORMAT = "topogen-graphml"
#: Peak bytes per byte of GraphML while networkx parses it (an element tree, then a graph)
_GRAPHML_BYTES_PER_BYTE = 64


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
    for what, text in (("topology name", topology.name), ("topology version", topology.version),
                       *(("link kind", k) for k in topology.kind_names)):
        bad = first_unsafe(str(text))
        if bad is not None:
            raise ParameterError(f"{what} {str(text)[:60]!r} holds the control character {bad!r}, which GraphML "
                                 "cannot carry unchanged; save as .json instead")
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

    data = read_bytes_file(path, limit_bytes=input_limit(), what="topology file", override=True,
                           memory_factor=_GRAPHML_BYTES_PER_BYTE)
    try:
        g = nx.parse_graphml(data)
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
    if n > len(nodes):  # integer ids with gaps: switches without a node, checked before allocating
        check_sparse_ids(n, len(nodes), what=f"node id {n - 1:,}", path=path)
    if ours:
        claim = meta.get("num_switches", n)
        try:
            claim = int(claim)
        except (TypeError, ValueError, OverflowError):
            raise FormatError(f"graph attribute num_switches must be an integer, got {claim!r}", path=path) from None
        if claim != n:
            raise FormatError(f"graph attribute num_switches is {claim:,}, but the graph has "
                              f"{len(nodes):,} nodes (ids 0..{n - 1}); the file was edited or damaged",
                              path=path)
        n = claim
    if n < 1:
        raise FormatError("the graph has no nodes", path=path)
    if n > MAX_IDS:
        raise FormatError(f"{n:,} switches exceed topogen's 32-bit switch ids (at most {MAX_IDS:,})", path=path)
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
        if not isinstance(meta[key], str):
            raise FormatError(f"graph attribute {key!r} is not valid JSON", path=path)
        return parse_json(meta[key], path=path, what=f"graph attribute {key!r}")

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
    seed = check_seed(jget("seed", None), what="seed", path=path)
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
