"""Topology optimization by degree-preserving edge swaps (Graph Golf and floor latency).

:func:`optimize` is the entry point; ``topogen optimize`` its command line.  See
``docs/optimize.md``.
"""

import importlib

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import the search and pandas.
_EXPORTS = {
    **dict.fromkeys(("OBJECTIVES", "CableModel", "get_objective"), ".objectives"),
    **dict.fromkeys(("GRAPH_GOLF_RECORDS", "OptimizeResult", "optimize", "plot_history", "summarize"), ".run"),
}

__all__ = ["optimize", "OptimizeResult", "plot_history", "summarize", "OBJECTIVES", "get_objective",
           "CableModel", "GRAPH_GOLF_RECORDS"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
