"""Floors, placement of switches into cabinets, clustering and cabinet mapping."""

from .._lazy import lazy_exports

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import SciPy.
_EXPORTS = {
    "Floor": ".floor",
    **dict.fromkeys(("Layout", "place", "PLACEMENTS", "default_floor", "default_layout"), ".placement"),
    # Clustering and cabinet mapping (Koibuchi et al., Sections IV-C and IV-D).
    **dict.fromkeys(("cluster_graph", "inter_cabinet_links", "sequential_clusters", "walktrap_clusters"),
                    ".clustering"),
    **dict.fromkeys(("AnnealResult", "anneal", "map_clusters", "mapping_cost", "serpentine"), ".mapping"),
}

__all__ = ["Floor", "Layout", "place", "PLACEMENTS", "default_floor", "default_layout"]

__all__ += [
    "walktrap_clusters",
    "sequential_clusters",
    "inter_cabinet_links",
    "cluster_graph",
    "anneal",
    "AnnealResult",
    "map_clusters",
    "mapping_cost",
    "serpentine",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
