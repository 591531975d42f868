"""Floors, placement of switches into cabinets, clustering and cabinet mapping."""

from .floor import Floor
from .placement import Layout, place, PLACEMENTS, default_floor, default_layout

__all__ = ["Floor", "Layout", "place", "PLACEMENTS", "default_floor", "default_layout"]
