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

This module picks the format (:func:`format_of`, :func:`save`, :func:`load`); each format
lives in its own module and is re-exported here: :mod:`topogen.formats.edgelist`,
:mod:`topogen.formats.bundle`, :mod:`topogen.formats.graphml`, and what they share in
:mod:`topogen.formats._common`.
"""

from __future__ import annotations

from pathlib import Path

from .._validate import check_memory
from ..errors import ParameterError
from ..layout import Layout
from ..topology import Topology
from ._common import FORMAT_VERSION, decode_params, encode_params
from .bundle import BUNDLE_FORMAT, bundle_dict, from_bundle_dict, read_bundle, write_bundle
from .edgelist import EDGELIST_MAGIC, edgelist_text, read_edgelist, read_edgelist_with_layout, write_edgelist
from .graphml import GRAPHML_FORMAT, read_graphml, write_graphml

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
    "EDGELIST_MAGIC",
    "BUNDLE_FORMAT",
    "GRAPHML_FORMAT",
    "FORMAT_VERSION",
]

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


#: Peak bytes per link (and per switch) of each writer (tracemalloc: JSON ~270, edge list
#: ~190, GraphML through networkx ~3000).
_WRITE_BYTES_PER_LINK = {"json": 300, "edgelist": 200, "graphml": 3200}


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
    check_memory(f"writing {topology.num_links:,} links as {fmt}",
                 _WRITE_BYTES_PER_LINK[fmt] * float(topology.num_links + topology.num_switches),
                 "; write an edge list (.edges), the leanest format, or a smaller topology")
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

