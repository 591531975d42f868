"""Split a network's routers into K parts that cut few links: the ranks of a parallel
simulation.

A parallel discrete-event simulator (SST on MPI ranks) pays for every link whose two ends
sit on different ranks: each event crossing it is a message, and the ranks synchronise
every *lookahead* (the smallest latency of a cut link).  :func:`partition_routers` puts
each router and its hosts on one part, balances the parts by weight (a router counts
``1 + hosts``: its endpoints run beside it) and cuts few router-router links: METIS's
K-way partitioner (``pymetis``), seeded, then a greedy pass that moves single routers
until no part is heavier than ``ceil(total / K)`` plus the heaviest router.
:func:`cut_links` counts the links a given assignment cuts.

>>> edges = [(0, 1), (1, 2), (2, 3), (3, 0)]   # a ring of 4 routers
>>> parts = partition_routers(4, edges, 2, seed=1)
>>> sorted(parts.count(p) for p in (0, 1)), cut_links(edges, parts)
([2, 2], 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from .._rng import resolve_seed
from ..errors import ParameterError

__all__ = ["partition_routers", "cut_links", "part_weights"]


def _check(n: int, edges, k: int, weights):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"the number of parts (ranks) must be an integer >= 1, got {k!r}")
    if n < 1:
        raise ParameterError("a partition needs at least one router")
    w = [1] * n if weights is None else [int(x) for x in weights]
    if len(w) != n or any(x < 1 for x in w):
        raise ParameterError(f"router weights must be {n} integers >= 1")
    pairs = []
    for u, v in edges:
        u, v = int(u), int(v)
        if not (0 <= u < n and 0 <= v < n):
            raise ParameterError(f"link {u}-{v} names a router outside 0..{n - 1}")
        if u != v:
            pairs.append((u, v))
    return int(k), w, pairs


def cut_links(edges: Iterable[tuple[int, int]], parts: Sequence[int]) -> int:
    """Links whose two routers are in different parts (each link counted once per entry
    of ``edges``, so parallel links count each)."""
    return sum(1 for u, v in edges if parts[int(u)] != parts[int(v)])


def part_weights(parts: Sequence[int], k: int, weights: Sequence[int] | None = None) -> list[int]:
    """Total weight of each of the ``k`` parts."""
    out = [0] * k
    for i, p in enumerate(parts):
        out[p] += 1 if weights is None else int(weights[i])
    return out


def partition_routers(n: int, edges: Iterable[tuple[int, int]], k: int, *, weights: Sequence[int] | None = None,
                      seed=None) -> list[int]:
    """Part (0..k-1) of each of the ``n`` routers.

    Parameters
    ----------
    n : int
        Routers, numbered 0..n-1.
    edges : iterable of (int, int)
        Router-router links (parallel links may repeat: they weigh more).
    k : int
        Parts; ``k >= n`` puts router ``i`` on part ``i`` (parts beyond ``n`` stay empty).
    weights : sequence of int, optional
        Work of each router (default 1; ``1 + hosts`` for a router with its endpoints).
    seed : int, optional
        METIS's seed (the same seed gives the same parts).

    Returns
    -------
    list of int

    Raises
    ------
    ParameterError
        ``k < 1``, a link outside the routers, or weights that are not positive integers.
    """
    k, w, pairs = _check(n, edges, k, weights)
    if k == 1:
        return [0] * n
    if k >= n:
        return list(range(n))
    import pymetis

    mult: dict[tuple[int, int], int] = {}
    for u, v in pairs:
        a, b = (u, v) if u < v else (v, u)
        mult[a, b] = mult.get((a, b), 0) + 1
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for (a, b), m in sorted(mult.items()):
        adj[a].append((b, m))
        adj[b].append((a, m))
    xadj, adjncy, ew = [0], [], []
    for row in adj:
        for v, m in row:
            adjncy.append(v)
            ew.append(m)
        xadj.append(len(adjncy))
    opts = pymetis.Options(seed=int(resolve_seed(seed) % (2**31 - 1)), ufactor=10)
    if adjncy:
        adjacency = pymetis.CSRAdjacency(np.asarray(xadj, dtype=np.int32), np.asarray(adjncy, dtype=np.int32))
        _, parts = pymetis.part_graph(k, adjacency, vweights=w, eweights=ew, options=opts)
        parts = [int(p) for p in parts]
    else:  # no links at all: fill the parts in router order
        parts = [min(k - 1, i * k // n) for i in range(n)]
    return _balance(parts, k, w, adj)


def _balance(parts: list[int], k: int, w: list[int], adj) -> list[int]:
    """Move routers out of parts heavier than ``ceil(total / k) + max(w)`` (METIS may
    leave one, and may leave a part empty), each time the router of the heaviest part
    whose move to the lightest part adds the fewest cut links."""
    total = sum(w)
    limit = math.ceil(total / k) + max(w)
    load = part_weights(parts, k, w)
    for _ in range(len(parts) * k):
        heavy = max(range(k), key=lambda p: (load[p], -p))
        light = min(range(k), key=lambda p: (load[p], p))
        empty = load[light] == 0 and sum(1 for p in parts if p == heavy) > 1
        if load[heavy] <= limit and not empty:
            break
        best = None
        for i, p in enumerate(parts):
            if p != heavy:
                continue
            gain = sum(m for v, m in adj[i] if parts[v] == light) - sum(m for v, m in adj[i] if parts[v] == heavy)
            if best is None or gain > best[0]:
                best = (gain, i)
        if best is None:
            break
        i = best[1]
        parts[i] = light
        load[heavy] -= w[i]
        load[light] += w[i]
    return parts
