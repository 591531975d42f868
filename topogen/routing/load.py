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

__all__ = ["uniform_channel_load", "load_ceiling", "pair_channel_load"]


def uniform_channel_load(routing: TableRouting, *, self_traffic: bool = True, progress=None) -> np.ndarray:
    """Flits per cycle on each directed link (CSR entry) at one flit per host per cycle.

    Parameters
    ----------
    routing : TableRouting
        A deterministic table routing.
    self_traffic : bool
        Destinations drawn among all hosts, the source included (BookSim's ``uniform``;
        default), or among the other hosts only.
    progress : callable, optional
        Called as ``progress(done_pairs, total_pairs)`` after each block of switch pairs.

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
    n = routing.num_switches
    done = 0
    for s, d in routing._pair_blocks():
        done += len(s)
        if progress is not None:
            progress(done, n * (n - 1))
        rate = hosts[s] * hosts[d] / denom
        ent, _ = routing.route_matrix(s, d, with_vcs=False)
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


def pair_channel_load(routing: TableRouting, src, dst, rate) -> np.ndarray:
    """Flits per cycle on each directed link (CSR entry) when switch ``src[i]`` sends
    ``rate[i]`` flits per cycle to switch ``dst[i]`` along its route.

    Parameters
    ----------
    routing : TableRouting
    src, dst : array_like of int
        Switch pairs (pairs with ``src == dst`` use no link).
    rate : array_like of float
        Flits per cycle of each pair (broadcast to the pairs' shape).

    Returns
    -------
    ndarray of float64, one value per CSR entry (``routing.topology.csr()`` order)

    Raises
    ------
    ParameterError
        If the routing is not a table routing.
    """
    if not isinstance(routing, TableRouting):
        raise ParameterError(f"channel loads need a table routing, got {type(routing).__name__}")
    src = np.asarray(src, dtype=np.int64).ravel()
    dst = np.asarray(dst, dtype=np.int64).ravel()
    rate = np.broadcast_to(np.asarray(rate, dtype=float), src.shape)
    load = np.zeros(len(routing.view.indices), dtype=float)
    keep = src != dst
    src, dst, rate = src[keep], dst[keep], rate[keep]
    block = 1 << 18
    for i in range(0, len(src), block):
        ent, _ = routing.route_matrix(src[i:i + block], dst[i:i + block], with_vcs=False)
        if ent.size == 0:
            continue
        used = ent >= 0
        load += np.bincount(ent[used], weights=np.broadcast_to(rate[i:i + block], ent.shape)[used],
                            minlength=len(load))
    return load
