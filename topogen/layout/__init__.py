"""Floors, placement of switches into cabinets, clustering and cabinet mapping."""

from .floor import Floor
from .placement import Layout, place, PLACEMENTS, default_floor, default_layout

__all__ = ["Floor", "Layout", "place", "PLACEMENTS", "default_floor", "default_layout"]

# Clustering and cabinet mapping (Koibuchi et al., Sections IV-C and IV-D).
from .clustering import (
    cluster_graph,
    inter_cabinet_links,
    sequential_clusters,
    walktrap_clusters,
)
from .mapping import AnnealResult, anneal, map_clusters, mapping_cost, serpentine

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
