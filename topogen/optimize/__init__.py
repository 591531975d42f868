"""Topology optimization by degree-preserving edge swaps (Graph Golf and floor latency).

:func:`optimize` is the entry point; ``topogen optimize`` its command line.  See
``docs/optimize.md``.
"""

from .._lazy import lazy_exports

#: Public name -> the submodule that defines it.  Loaded on first use (PEP 562), so that
#: ``topogen`` sub-commands that only build their parsers do not import the search and pandas.
_EXPORTS = {
    **dict.fromkeys(("OBJECTIVES", "CableModel", "get_objective"), ".objectives"),
    **dict.fromkeys(("GRAPH_GOLF_RECORDS", "OptimizeResult", "optimize", "plot_history", "summarize"), ".run"),
}

__all__ = ["optimize", "OptimizeResult", "plot_history", "summarize", "OBJECTIVES", "get_objective",
           "CableModel", "GRAPH_GOLF_RECORDS"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
