"""Pictures of a network: the floor plan with its cables (:func:`draw_floor`) and the
expected load of every channel under a routing and a traffic pattern
(:func:`channel_loads`), drawn on the floor plan and as a histogram.

Drawing is an output step: it reads a :class:`~topogen.layout.Layout` (and a routing)
and never changes them.  The latency-load curves of results tables are
:mod:`topogen.sim.plot`.
"""

from .._lazy import lazy_exports

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import the routing code.
_EXPORTS = {
    **dict.fromkeys(("ChannelLoads", "channel_loads"), ".channel_load"),
    **dict.fromkeys(("draw_floor", "cable_classes"), ".floor"),
}

__all__ = ["draw_floor", "cable_classes", "channel_loads", "ChannelLoads"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
