"""The compiled union-find of :func:`topogen.metrics.resilience.removable_links` (numba).

A module of its own so that importing :mod:`topogen.metrics.resilience` neither imports
numba nor compiles anything: small analyses run on SciPy (see ``_counter`` there).
"""

from __future__ import annotations

from .._sssp import _jit

__all__ = ["connect_point"]


@_jit
def connect_point(n, u, v, order, parent):
    """Index j in ``order`` such that links order[j:] connect the n switches and
    order[j+1:] do not (-1 if even all links leave the network disconnected)."""
    for i in range(n):
        parent[i] = i
    comps = n
    for j in range(len(order) - 1, -1, -1):
        a = u[order[j]]
        b = v[order[j]]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            if a < b:
                parent[b] = a
            else:
                parent[a] = b
            comps -= 1
            if comps == 1:
                return j
    return -1
