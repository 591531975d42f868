"""Metrics of topologies and layouts: hop distances, Skywalk latency, summaries.

* :func:`distance_stats` -- diameter, average shortest path length (both denominators),
  distance histogram; exact by bit-parallel BFS or sampled with a stated error.
* :func:`latency_stats` -- maximum and average end-to-end latency under Fastest or
  Nearest Routing (Skywalk II-E, III-A).
* :mod:`.bisection` -- measured bisection width with a certified lower bound.
* :mod:`.resilience` -- random link failure resilience (Slim Fly III-D).
* :mod:`.cost` -- cost and power of a laid-out network (Slim Fly VI-B, VI-C).

(The functions ``bisection`` and ``resilience`` are imported from their modules,
``from topogen.metrics.bisection import bisection``, so that the module names are not
shadowed.)
* :func:`analyze` -- one flat dictionary of everything, for tables and the CLI.
* :func:`estimate_effort` -- the source searches of an analysis and their time, measured
  on a few sources before a long exact run (:mod:`.effort`).
"""

from .hops import HopStats, distance_stats, hop_matrix
from .latency import LatencyStats, latency_matrix, latency_stats, path_latency
from .cost import CostBreakdown, CostModel, network_cost
from .summary import analyze, cable_stats, degree_stats
from .effort import AnalysisEffort, estimate_effort

__all__ = [
    "analyze",
    "estimate_effort",
    "AnalysisEffort",
    "distance_stats",
    "latency_stats",
    "HopStats",
    "LatencyStats",
    "hop_matrix",
    "latency_matrix",
    "path_latency",
    "degree_stats",
    "cable_stats",
    "network_cost",
    "CostModel",
    "CostBreakdown",
]
