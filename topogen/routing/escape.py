"""Topology-agnostic adaptive routing with an up*/down* escape VC (Silla and Duato).

Skywalk Sec. IV-A simulates "the adaptive deadlock-free routing scheme described in
[15] with four virtual channels", [15] being Silla and Duato (TPDS 2000): minimal
adaptive routing on most VCs, deadlock freedom from an up*/down* *escape* sub-network.

The representation here:

* VC 0 is the escape channel.  Its routes are the up*/down* routes of
  :func:`topogen.routing.updown.updown` (shortest legal routes, lowest next-hop id):
  by latency for ``base="fr"`` (Skywalk IV-A: "the routing restrictions stated in [15]
  are imposed when applying Dijkstra's path search"), by hops for ``base="nr"``.
* VCs ``1 .. num_vcs-1`` are adaptive.  At a switch ``v`` a packet for ``dst`` may take
  any minimal next hop (``routing.next_hops(v, dst)``: shortest by hops for
  ``base="nr"``, by latency for ``base="fr"``) on any adaptive VC, or enter the escape
  channel and follow ``routing.escape_path(v, dst)`` to the end.
* A packet that has entered the escape channel stays in it (the conservative form of
  Duato's protocol).  Then the escape channels only ever wait on escape channels, and the
  routing is deadlock-free when the escape sub-network is connected (up*/down* reaches
  every pair) and its channel dependency graph is acyclic.  :func:`topogen.routing.deadlock.check`
  verifies exactly this: it builds the CDG of the up*/down* routes on VC 0 from every
  switch to every destination and tests it for cycles; adaptive channels are not part of
  the check.

Deterministic use: :meth:`EscapeRouting.path` gives the minimal route of the base table
(lowest next-hop id) on VC 1; :meth:`EscapeRouting.escape_path` the escape route on VC 0.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..errors import ParameterError, RoutingError
from ..topology import Topology
from .base import Routing, TableRouting
from .paths import fastest, nearest
from .updown import updown

__all__ = ["EscapeRouting", "escape"]


class EscapeRouting(Routing):
    """Minimal adaptive routing on VCs 1.. with the up*/down* escape on VC 0.

    Attributes
    ----------
    minimal : TableRouting
        The minimal (NR or FR) tables, with all equal-cost next hops.
    escape_routing : TableRouting
        The up*/down* tables (VC 0).
    """

    def __init__(self, minimal: TableRouting, escape_routing: TableRouting, *, num_vcs: int,
                 params=None):
        p = dict(params or {})
        super().__init__(minimal.topology, layout=minimal.layout, algorithm="escape",
                         params=p, num_vcs=num_vcs)
        self.minimal = minimal
        self.escape_routing = escape_routing
        self.adaptive_vcs = tuple(range(1, num_vcs))

    def path(self, src: int, dst: int, rng=None):
        """The minimal route (lowest next-hop id) on adaptive VC 1."""
        sw, vcs = self.minimal.path(src, dst)
        return sw, np.ones_like(vcs)

    def escape_path(self, src: int, dst: int):
        """The up*/down* escape route from ``src`` to ``dst`` on VC 0."""
        sw, vcs = self.escape_routing.path(src, dst)
        return sw, np.zeros_like(vcs)

    def next_hops(self, v: int, dst: int) -> np.ndarray:
        """All minimal next hops (the adaptive choices) of ``v`` toward ``dst``."""
        return self.minimal.next_hops(v, dst)

    def next_hop(self, dst: int, phase: int = 0) -> np.ndarray:
        """Deterministic minimal next hop of every switch toward ``dst``."""
        return self.minimal.next_hop(dst, phase)

    def dependency_chunks(self, pairs=None):
        # the escape sub-network: up*/down* routes from every switch, VC 0
        v = self.num_vcs
        for ch, a, b in self.escape_routing.dependency_chunks(pairs):
            # escape_routing has num_vcs=1: channel = entry; re-encode with our num_vcs
            yield ch * v, a * v, b * v

    def describe_check(self) -> str:
        return ("escape sub-network (VC 0): up*/down* routes from every switch to every "
                "destination (Duato's condition; adaptive VCs 1.. not included)")

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "escape"
        return md

    def _subroutings(self):
        return {"minimal": self.minimal, "escape": self.escape_routing}


def escape(topology: Topology, layout=None, num_vcs: int = 4, base: str = "fr", *,
           switch_delay: float = 60.0, root: int | None = None) -> EscapeRouting:
    """Silla–Duato style adaptive routing with an up*/down* escape VC (Skywalk IV-A).

    Parameters
    ----------
    topology : Topology
        A connected topology.
    layout : Layout, optional
        Needed for ``base="fr"``; default :func:`topogen.layout.default_layout`.
    num_vcs : int
        Total VCs (Skywalk uses 4): VC 0 escape, VCs 1.. adaptive; at least 2.
    base : {"fr", "nr"}
        Minimal routes (and the shortest legal escape routes) by latency (FR, Skywalk II-E)
        or by hops (NR).
    switch_delay : float
        Switch delay in ns for FR.
    root : int, optional
        Root of the up*/down* tree (default: minimum eccentricity).

    Returns
    -------
    EscapeRouting

    Raises
    ------
    RoutingError
        If ``num_vcs < 2`` ("escape routing needs at least 2 VCs (1 escape + 1 adaptive),
        got 1").
    TopologyError
        If the topology is disconnected.

    References
    ----------
    .. [1] F. Silla, J. Duato, "High-Performance Routing in Networks of Workstations with
       Irregular Topology", IEEE TPDS 11(7), 2000.
    .. [2] J. Duato, "A New Theory of Deadlock-Free Adaptive Routing in Wormhole
       Networks", IEEE TPDS 4(12), 1993.
    .. [3] Skywalk, Sec. II-E and IV-A.
    """
    num_vcs = check_int("num_vcs", num_vcs, 1)
    if num_vcs < 2:
        raise RoutingError(f"escape routing needs at least 2 VCs (1 escape + 1 adaptive), got {num_vcs}")
    if base not in ("fr", "nr"):
        raise ParameterError(f"base must be 'fr' or 'nr', got {base!r}")
    topology.require_connected("escape routing")
    if base == "fr":
        if layout is None:
            from ..layout import default_layout

            layout = default_layout(topology)
        minimal = fastest(layout, switch_delay, all_next_hops=True, ties="lowest")
    else:
        minimal = nearest(topology, layout, all_next_hops=True, ties="lowest")
    esc = updown(topology, root, layout=layout, metric="latency" if base == "fr" else "hops",
                 switch_delay=switch_delay)
    return EscapeRouting(minimal, esc, num_vcs=num_vcs,
                         params={"base": base, "escape_vc": 0,
                                 "adaptive_vcs": list(range(1, num_vcs)),
                                 "root": esc.params["root"],
                                 "switch_delay": switch_delay if base == "fr" else None})
