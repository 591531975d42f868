"""Topology optimization by degree-preserving edge swaps (Graph Golf and floor latency).

:func:`optimize` is the entry point; ``topogen optimize`` its command line.  See
``docs/optimize.md``.
"""

from .objectives import OBJECTIVES, CableModel, get_objective
from .run import GRAPH_GOLF_RECORDS, OptimizeResult, optimize, plot_history, summarize

__all__ = ["optimize", "OptimizeResult", "plot_history", "summarize", "OBJECTIVES", "get_objective",
           "CableModel", "GRAPH_GOLF_RECORDS"]
