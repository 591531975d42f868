"""Pictures of a network: the floor plan with its cables (:func:`draw_floor`) and the
expected load of every channel under a routing and a traffic pattern
(:func:`channel_loads`), drawn on the floor plan and as a histogram.

Drawing is an output step: it reads a :class:`~topogen.layout.Layout` (and a routing)
and never changes them.  The latency-load curves of results tables are
:mod:`topogen.sim.plot`.
"""

from .channel_load import ChannelLoads, channel_loads
from .floor import draw_floor, cable_classes

__all__ = ["draw_floor", "cable_classes", "channel_loads", "ChannelLoads"]
