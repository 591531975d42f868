"""What the optimizer minimises, and the cable bounds it must respect.

Objectives (``topogen optimize --objective``):

``golf``
    Graph Golf's order/degree ranking: the hop diameter first, then the average shortest
    path length (ASPL, over ordered pairs of distinct switches).
``aspl``
    The ASPL alone (the diameter may grow).
``latency``
    Skywalk's end-to-end latency under Fastest Routing on the floor layout (cable delay
    plus a switch delay per switch traversed plus injection/reception): its maximum over
    ordered pairs first, then its average.
``latency-avg``
    The average FR latency alone.

Cable bounds (both optional, on the floor layout; switches never change cabinet):
``max_cable`` (m), the longest cable allowed (Skywalk's bound ``r``, Graph Golf's grid
category); ``cable_budget`` (m), the total cable allowed.  :class:`CableModel` refuses
bounds no graph with the given degrees can meet (each switch needs ``deg`` partners
within ``max_cable``; the budget must cover every switch's ``deg`` shortest cables).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

__all__ = ["Objective", "OBJECTIVES", "get_objective", "CableModel"]


@dataclass(frozen=True)
class Objective:
    """One objective: which distances (``hops`` or ``latency``) and whether their maximum
    (diameter / max latency) ranks before their sum (``lexicographic``)."""

    name: str
    kind: str
    lexicographic: bool
    description: str


OBJECTIVES = {
    o.name: o
    for o in (
        Objective("golf", "hops", True, "hop diameter, then average shortest path length (Graph Golf)"),
        Objective("aspl", "hops", False, "average shortest path length"),
        Objective("latency", "latency", True, "maximum FR latency on the floor, then average"),
        Objective("latency-avg", "latency", False, "average FR latency on the floor"),
    )
}


def get_objective(name: str) -> Objective:
    """The :class:`Objective` called ``name``.

    Raises
    ------
    ParameterError
        If no objective has that name (the message lists them).
    """
    key = str(name).strip().lower()
    if key not in OBJECTIVES:
        raise ParameterError(f"unknown objective {name!r}; choose one of {', '.join(OBJECTIVES)}")
    return OBJECTIVES[key]


class CableModel:
    """Cable lengths of a fixed placement and the bounds a rewiring must respect.

    Parameters
    ----------
    cabinet : ndarray of int
        Cabinet of each switch.
    floor : Floor
    max_cable : float, optional
        Longest cable allowed, m.
    cable_budget : float, optional
        Total cable allowed, m.
    """

    #: lengths are compared in integer micrometres (exact sums, no float drift)
    SCALE = 1_000_000

    def __init__(self, cabinet, floor, max_cable: float | None = None, cable_budget: float | None = None):
        self.cabinet = np.asarray(cabinet, dtype=np.int64)
        self.floor = floor
        self.length_m = np.asarray(floor.distance_matrix(), dtype=np.float64)
        self._units = np.rint(self.length_m * self.SCALE).astype(np.int64)
        for name, v in (("max_cable", max_cable), ("cable_budget", cable_budget)):
            if v is not None and not (np.isfinite(v) and v > 0):
                raise ParameterError(f"{name} must be a positive length in metres, got {v!r}")
        self.max_cable = None if max_cable is None else float(max_cable)
        self.cable_budget = None if cable_budget is None else float(cable_budget)
        self._max_units = None if max_cable is None else int(np.floor(max_cable * self.SCALE + 1e-6))
        self._budget_units = None if cable_budget is None else int(np.floor(cable_budget * self.SCALE + 1e-6))

    @property
    def bounded(self) -> bool:
        return self.max_cable is not None or self.cable_budget is not None

    def units(self, links: np.ndarray) -> np.ndarray:
        """Length of each link ``(u, v)`` in micrometres."""
        links = np.asarray(links).reshape(-1, 2)
        return self._units[self.cabinet[links[:, 0]], self.cabinet[links[:, 1]]]

    def total_m(self, links: np.ndarray) -> float:
        return int(self.units(links).sum()) / self.SCALE

    def cable_ns(self) -> np.ndarray:
        """Cable delay between cabinets, ns (the floor's ns per metre)."""
        return self.length_m * self.floor.ns_per_meter

    def violation(self, links: np.ndarray) -> int:
        """How far ``links`` are from the bounds (0 when they meet them), micrometres."""
        u = self.units(links)
        excess = 0
        if self._max_units is not None:
            excess += int(np.clip(u - self._max_units, 0, None).sum())
        if self._budget_units is not None:
            excess += max(0, int(u.sum()) - self._budget_units)
        return excess

    def allows(self, add_units: np.ndarray, new_total: int) -> bool:
        """Whether links of these lengths and this new total meet the bounds."""
        if self._max_units is not None and int(add_units.max()) > self._max_units:
            return False
        if self._budget_units is not None and new_total > self._budget_units:
            return False
        return True

    def check_feasible(self, degrees: np.ndarray) -> None:
        """Refuse bounds that no graph with these degrees can meet on this placement.

        Raises
        ------
        ParameterError
            When some switch has fewer than its degree of partners within ``max_cable``,
            or when the budget is below half the sum over switches of their ``deg``
            shortest possible cables (a lower bound on any graph's total).
        """
        if not self.bounded:
            return
        n = len(self.cabinet)
        cabs, per_cab = np.unique(self.cabinet, return_counts=True)
        count = np.zeros(self.length_m.shape[0], dtype=np.int64)
        count[cabs] = per_cab
        degrees = np.asarray(degrees, dtype=np.int64)
        need = 0
        for c in cabs:
            lengths = self._units[c]
            order = np.argsort(lengths, kind="stable")
            avail = count[order].copy()
            avail[np.flatnonzero(order == c)] -= 1  # a switch does not link to itself
            dmax = int(degrees[self.cabinet == c].max())
            cum = np.cumsum(avail)
            if cum[-1] < dmax:
                raise ParameterError(f"degree {dmax} needs more than the {n} switches of this floor")
            if self._max_units is not None:
                within = int(avail[lengths[order] <= self._max_units].sum())
                if within < dmax:
                    reach = int(lengths[order][np.searchsorted(cum, dmax)]) / self.SCALE
                    raise ParameterError(
                        f"max_cable={self.max_cable:g} m leaves a switch of cabinet {c} only {within} "
                        f"possible partners for degree {dmax}; allow at least {reach:g} m")
            for dv in degrees[self.cabinet == c]:
                k = int(np.searchsorted(cum, dv))  # the dv-th partner lies in bucket k
                part = int((avail[:k] * lengths[order][:k]).sum())
                part += (int(dv) - int(cum[k - 1] if k else 0)) * int(lengths[order][k])
                need += part
        if self._max_units is not None and len(cabs) > 1:
            from scipy.sparse import csr_matrix
            from scipy.sparse.csgraph import connected_components

            near = self._units[np.ix_(cabs, cabs)] <= self._max_units
            parts, _ = connected_components(csr_matrix(near), directed=False)
            if parts > 1:
                from scipy.sparse.csgraph import minimum_spanning_tree

                tree = minimum_spanning_tree(csr_matrix(self._units[np.ix_(cabs, cabs)].astype(np.float64)))
                need_m = float(tree.data.max()) / self.SCALE
                raise ParameterError(
                    f"max_cable={self.max_cable:g} m splits the floor into {parts} groups of cabinets "
                    f"that no cable may join, so no connected topology meets it; allow at least {need_m:g} m")
        if self._budget_units is not None and need / 2 > self._budget_units:
            raise ParameterError(
                f"cable_budget={self.cable_budget:g} m is below {need / 2 / self.SCALE:.1f} m, the least "
                "cable any graph with these degrees needs on this floor; raise the budget")
