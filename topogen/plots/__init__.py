"""Pictures of a network: the floor plan with its cables (:func:`draw_floor`) and the
expected load of every channel under a routing and a traffic pattern
(:func:`channel_loads`), drawn on the floor plan and as a histogram.

Drawing is an output step: it reads a :class:`~topogen.layout.Layout` (and a routing)
and never changes them.  The latency-load curves of results tables are
:mod:`topogen.sim.plot`.
"""

import importlib

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import the routing code.
_EXPORTS = {
    **dict.fromkeys(("ChannelLoads", "channel_loads"), ".channel_load"),
    **dict.fromkeys(("draw_floor", "cable_classes"), ".floor"),
}

__all__ = ["draw_floor", "cable_classes", "channel_loads", "ChannelLoads"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
