"""Exports: topology file formats (edge list, JSON bundle, GraphML) and, in sibling
modules, simulator inputs (BookSim2, SST).

The format functions are re-exported here::

    from topogen.export import save, load
    save("torus.json", topology, layout)
    topology, layout = load("torus.json")
"""

from .formats import (
    EXTENSIONS,
    FORMATS,
    atomic_open,
    atomic_write,
    format_of,
    load,
    read_bundle,
    read_edgelist,
    read_edgelist_with_layout,
    read_graphml,
    save,
    write_bundle,
    write_edgelist,
    write_graphml,
)

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "atomic_open",
    "atomic_write",
    "format_of",
    "load",
    "read_bundle",
    "read_edgelist",
    "read_edgelist_with_layout",
    "read_graphml",
    "save",
    "write_bundle",
    "write_edgelist",
    "write_graphml",
]
