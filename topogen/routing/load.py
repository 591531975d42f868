"""Expected channel loads of a routing under uniform traffic.

For a deterministic routing the load of each directed link under uniform random traffic
follows from the routes alone: every host injects ``1`` flit per cycle (the unit rate),
each flit to a destination host drawn uniformly, so the switch pair ``(s, d)`` sends
``hosts[s] * hosts[d] / H`` flits per cycle (``H`` = all hosts, BookSim's ``uniform``,
which includes the source itself) or ``/ (H - 1)`` without self traffic, along its route.
The busiest link bounds the accepted rate: at ``1 / max_load`` flits per host per cycle
it is full (:func:`load_ceiling`), whatever the router does.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .base import TableRouting

__all__ = ["uniform_channel_load", "load_ceiling"]


def uniform_channel_load(routing: TableRouting, *, self_traffic: bool = True) -> np.ndarray:
    """Flits per cycle on each directed link (CSR entry) at one flit per host per cycle.

    Parameters
    ----------
    routing : TableRouting
        A deterministic table routing.
    self_traffic : bool
        Destinations drawn among all hosts, the source included (BookSim's ``uniform``;
        default), or among the other hosts only.

    Returns
    -------
    ndarray of float64, one value per CSR entry (``routing.topology.csr()`` order)

    Raises
    ------
    ParameterError
        If the routing is not a table routing or the topology has fewer than two hosts.
    """
    if not isinstance(routing, TableRouting):
        raise ParameterError(f"channel loads need a table routing, got {type(routing).__name__}")
    hosts = np.asarray(routing.topology.hosts, dtype=float)
    total = float(hosts.sum())
    if total < 2:
        raise ParameterError("channel loads need at least two hosts")
    denom = total if self_traffic else total - 1.0
    load = np.zeros(len(routing.view.indices), dtype=float)
    for s, d in routing._pair_blocks():
        rate = hosts[s] * hosts[d] / denom
        ent, _ = routing.route_matrix(s, d)
        if ent.size == 0:
            continue
        used = ent >= 0
        load += np.bincount(ent[used], weights=np.broadcast_to(rate, ent.shape)[used],
                            minlength=len(load))
    return load


def load_ceiling(routing: TableRouting, *, self_traffic: bool = True) -> float:
    """Offered load (flits per host per cycle) at which the busiest link is full,
    ``1 / max(uniform_channel_load)`` (``inf`` when no link carries traffic)."""
    load = uniform_channel_load(routing, self_traffic=self_traffic)
    peak = float(load.max()) if load.size else 0.0
    return float("inf") if peak <= 0 else 1.0 / peak
