"""Deadlock check: the channel dependency graph (CDG) of a routing.

A **channel** is a (directed link, VC) pair; channel id ``entry * num_vcs + vc`` where
``entry`` is the CSR entry of the directed link.  A route ``c_0, c_1, ..., c_{h-1}``
(its channels in order) creates the **dependencies** ``c_i -> c_{i+1}``.  By Dally and
Seitz's theorem, a deterministic routing is deadlock-free iff its CDG is acyclic.

What :func:`check` builds, per routing kind:

* table routings (NR, FR, DOR, up*/down*, hop-indexed, layered): the routes of every
  ordered pair of switches (or of ``pairs``);
* escape routing (:mod:`.escape`): the **escape sub-network** only, i.e. the up*/down*
  routes on VC 0 from every switch to every destination (a packet may enter the escape
  channels at any switch and never leaves them, so these are all escape routes).  Duato's
  condition for the adaptive routing is that this sub-network is connected (true by
  construction) and its CDG acyclic; the adaptive VCs are not part of the check;
* Valiant: a superset of its dependencies: both segments' hop-indexed dependencies at
  every offset ``0 .. D`` plus every junction dependency (last hop into the intermediate,
  first hop out of it); an acyclic superset implies an acyclic CDG.

Cycle detection uses the strongly connected components of the sparse CDG
(:func:`scipy.sparse.csgraph.connected_components`); when the CDG is cyclic one concrete
cycle is extracted with a breadth-first search inside a non-trivial component.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

__all__ = ["DeadlockReport", "check", "find_cycle", "cdg"]


@dataclass
class DeadlockReport:
    """Result of :func:`check`.

    Attributes
    ----------
    acyclic : bool
        True when the CDG has no cycle (deadlock-free).
    cycle : list of (switch_u, switch_v, vc) or None
        A concrete cycle of channels (each follows the previous one on some route; the
        last one leads back to the first).
    num_channels : int
        Channels used by at least one route.
    num_dependencies : int
        Distinct dependencies.
    vcs_used : int
        Number of distinct VCs used by the checked routes.
    checked : str
        What was checked (see the module docs).
    vcs_declared : int
        VCs the routing declares per link (``routing.num_vcs``).
    """

    acyclic: bool
    cycle: list | None
    num_channels: int
    num_dependencies: int
    vcs_used: int
    checked: str = ""
    vcs_declared: int = 0

    def summary(self) -> str:
        verdict = "deadlock-free (acyclic CDG)" if self.acyclic else "CYCLIC CDG (may deadlock)"
        out = [f"verdict: {verdict}", f"checked: {self.checked}",
               f"channels: {self.num_channels}, dependencies: {self.num_dependencies}, "
               f"VCs used: {self.vcs_used}"
               + (f" (the routing declares {self.vcs_declared})"
                  if self.vcs_declared and self.vcs_declared != self.vcs_used else "")]
        if self.cycle:
            out.append("cycle: " + " -> ".join(f"({u}->{v}, vc {c})" for u, v, c in self.cycle))
        return "\n".join(out)


#: Destinations x channels (``switches x directed links x VCs``) from which :func:`cdg`
#: takes the compiled closure; below it the NumPy one (0.15 s or less, against 1-2 s of
#: CPU to compile the closure on an empty cache), with the same channels and dependencies.
COMPILED_MIN_WORK = 4 * 10**6


def cdg(routing, pairs=None):
    """The CDG as (channels used, unique dependency keys ``from * C + to``, C): all routes
    by the compiled closure from :data:`COMPILED_MIN_WORK` on, else (or for ``pairs``)
    by :meth:`TableRouting.dependency_chunks`."""
    view = routing.view
    small = view.n * len(view.indices) * routing.num_vcs < COMPILED_MIN_WORK
    if pairs is None and not small:
        from . import _cdg

        if _cdg.usable(routing):  # compiled closure over all routes
            out = _cdg.cdg(routing)
            if out is not None:
                return out
    c_total = len(view.indices) * routing.num_vcs
    used, keys = [], []
    for ch, a, b in routing.dependency_chunks(pairs):
        used.append(ch)
        if len(a):
            keys.append(np.unique(a * c_total + b))
    used = np.unique(np.concatenate(used)) if used else np.zeros(0, dtype=np.int64)
    keys = np.unique(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)
    return used, keys, c_total


def find_cycle(num_nodes: int, src: np.ndarray, dst: np.ndarray) -> list[int] | None:
    """One cycle (list of node ids, first not repeated) of a directed graph, or None."""
    if len(src) == 0:
        return None
    g = sp.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(num_nodes, num_nodes))
    selfloop = src == dst
    if selfloop.any():
        return [int(src[np.argmax(selfloop)])]
    ncomp, label = connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(label, minlength=ncomp)
    big = np.flatnonzero(sizes > 1)
    if len(big) == 0:
        return None
    comp = big[0]
    nodes = np.flatnonzero(label == comp)
    start = int(nodes[0])
    keep = (label[src] == comp) & (label[dst] == comp)
    sub = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (src[keep], dst[keep])),
                        shape=(num_nodes, num_nodes))
    order, pred = breadth_first_order(sub, start, directed=True, return_predecessors=True)
    pos = np.full(num_nodes, -1, dtype=np.int64)
    pos[order] = np.arange(len(order))
    into_start = src[keep][dst[keep] == start]
    into_start = into_start[pos[into_start] >= 0]
    last = int(into_start[np.argmin(pos[into_start])])
    path = [last]
    while path[-1] != start:
        path.append(int(pred[path[-1]]))
    return path[::-1]


def check(routing, pairs=None) -> DeadlockReport:
    """Build the channel dependency graph of ``routing`` and test it for cycles.

    Parameters
    ----------
    routing : Routing
        A table routing, an escape routing or a Valiant routing.
    pairs : array_like (M, 2), optional
        Check only the routes of these ``(src, dst)`` pairs (table routings); default
        all ordered pairs.

    Returns
    -------
    DeadlockReport

    Notes
    -----
    See the module docs for what is checked for each routing kind.
    """
    used, keys, c_total = cdg(routing, pairs)
    v = routing.num_vcs
    vcs_used = int(len(np.unique(used % v))) if len(used) else 0
    cyc = find_cycle(c_total, keys // c_total, keys % c_total)
    cycle = None
    if cyc is not None:
        view = routing.view
        cycle = [(int(view.row[c // v]), int(view.indices[c // v]), int(c % v)) for c in cyc]
    what = routing.describe_check()
    if pairs is not None:
        what = f"routes of {len(np.asarray(pairs).reshape(-1, 2))} given pairs; " + what
    return DeadlockReport(acyclic=cyc is None, cycle=cycle, num_channels=int(len(used)),
                          num_dependencies=int(len(keys)), vcs_used=vcs_used, checked=what,
                          vcs_declared=int(v))
