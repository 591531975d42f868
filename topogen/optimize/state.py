"""The state of a graph search: what a resumed run needs (:class:`SearchState`) and the
order in which two results compare under an objective (:func:`_key`, :func:`_unkey`),
shared by the plain and the symmetric annealing of :mod:`topogen.optimize.search` and
:mod:`topogen.optimize.symmetric`."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from .objectives import Objective

__all__ = ["SearchState", "within_deadline"]


@dataclass
class SearchState:
    """Everything a resumed run needs: the graph, the best graph, the counters and the
    random generator's state."""

    edges: np.ndarray
    best_edges: np.ndarray
    best: tuple
    moves: int = 0
    accepted: int = 0
    seconds: float = 0.0
    unit: float = 0.0
    rng_state: dict | None = None
    history: list = field(default_factory=list)
    adj: np.ndarray | None = None  # symmetric search: the adjacency (slot order matters)
    best_adj: np.ndarray | None = None
    segment: int = 0  # symmetric search: index of the current independent run

    def to_json(self) -> str:
        return json.dumps({"best": list(self.best), "moves": self.moves, "accepted": self.accepted,
                           "seconds": self.seconds, "unit": self.unit, "rng_state": self.rng_state,
                           "history": self.history, "segment": self.segment})

    @classmethod
    def from_parts(cls, edges, best_edges, text: str) -> "SearchState":
        d = json.loads(text)
        return cls(np.asarray(edges, dtype=np.int32), np.asarray(best_edges, dtype=np.int32),
                   tuple(d["best"]), int(d["moves"]), int(d["accepted"]), float(d["seconds"]),
                   float(d["unit"]), d["rng_state"], [tuple(h) for h in d["history"]],
                   segment=int(d.get("segment", 0)))


def _key(objective: Objective, peak: int, total: int) -> tuple:
    return (peak, total) if objective.lexicographic else (total, peak)


def _unkey(obj: Objective, key: tuple) -> tuple:
    """(peak, total) of a best key."""
    return tuple(key) if obj.lexicographic else (key[1], key[0])


def within_deadline(settings, deadline: float | None, done_seconds: float, what: str = ""):
    """``settings`` (:class:`topogen.optimize.search.Settings`) with the search's time
    limit cut so that it ends by ``deadline`` (a :func:`time.monotonic` stamp; None:
    unchanged), called when the search starts.
    ``done_seconds`` of it ran before (a resumed run).

    Raises
    ------
    ParameterError
        If nothing is left of the limit: compiling the kernels and the setup took it all.
    """
    if deadline is None or settings.time_limit is None:
        return settings
    left = deadline - time.monotonic()
    if left <= 0.0:
        raise ParameterError(
            f"the time limit ({settings.time_limit:g} s) was used up before the search could start"
            f"{what}; give a longer time limit (compiled code is cached: a later run starts faster, "
            "see docs/performance.md, \"Cold start\")")
    return dataclasses.replace(settings, time_limit=min(settings.time_limit, done_seconds + left))
