"""Topology-agnostic adaptive routing with an up*/down* escape VC (Silla and Duato).

Skywalk Sec. IV-A simulates "the adaptive deadlock-free routing scheme described in
[15] with four virtual channels", [15] being Silla and Duato (TPDS 2000): minimal
adaptive routing on most VCs, deadlock freedom from an up*/down* *escape* sub-network.

The representation here:

* VC 0 is the escape channel.  Its routes are the up*/down* routes of
  :func:`topogen.routing.updown.updown` (shortest legal routes, lowest next-hop id):
  by latency for ``base="fr"`` (Skywalk IV-A: "the routing restrictions stated in [15]
  are imposed when applying Dijkstra's path search"), by hops for ``base="nr"``.
* VCs ``1 .. num_vcs-1`` are adaptive.  Which next hops they may take is a reading of
  the paper (``adaptive``):

  ``"minimal"`` (default)
      any minimal next hop (``routing.next_hops(v, dst)``: shortest by hops for
      ``base="nr"``, by latency for ``base="fr"``), as Silla and Duato's minimal adaptive
      routing.
  ``"updown"``
      only next hops on a *shortest up*/down*-legal* route (Skywalk IV-A: "the routing
      restrictions stated in [15] are imposed when applying Dijkstra's path search"):
      Dijkstra by the same metric on the legal routes of the escape's up*/down*
      orientation (same root).  The legal next hops depend on the packet's up*/down*
      phase (has it taken a down link on the adaptive VCs?), exactly as in the
      two-phase tables of :func:`topogen.routing.updown.updown`:
      ``routing.next_hops(v, dst, phase)``.  Every adaptive route is then itself an
      up*/down* route (so the adaptive channels alone would be deadlock-free too), and the
      packet may pick any of the equally short legal ones at run time.

  At every switch the packet may also enter the escape channel and follow
  ``routing.escape_path(v, dst)`` to the end.
* A packet that has entered the escape channel stays in it (the conservative form of
  Duato's protocol).  Then the escape channels only ever wait on escape channels, and the
  routing is deadlock-free when the escape sub-network is connected (up*/down* reaches
  every pair) and its channel dependency graph is acyclic.  :func:`topogen.routing.deadlock.check`
  verifies exactly this: it builds the CDG of the up*/down* routes on VC 0 from every
  switch to every destination and tests it for cycles; adaptive channels are not part of
  the check.

Deterministic use: :meth:`EscapeRouting.path` gives the adaptive route of the empty network
(lowest next-hop id: the minimal table's route, or for ``adaptive="updown"`` the up*/down*
table's) on VC 1; :meth:`EscapeRouting.escape_path` the escape route on VC 0.

The up*/down* root (the paper does not name one): by default the switch of minimum hop
eccentricity, lowest id on ties (:func:`topogen.routing.updown.choose_root`), which keeps
the spanning tree shallow; ``escape(..., root=k)`` takes another (it is recorded in
``params["root"]``).  The same root orients the escape VC and, for ``adaptive="updown"``,
the adaptive VCs.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..errors import ParameterError, RoutingError
from ..topology import Topology
from .base import Routing, TableRouting
from .paths import fastest, fr_weights, nearest
from .updown import UNREACHABLE, updown, updown_distances

__all__ = ["EscapeRouting", "escape", "ADAPTIVE_READINGS"]

#: which next hops the adaptive VCs may take (module docs)
ADAPTIVE_READINGS = ("minimal", "updown")


class EscapeRouting(Routing):
    """Minimal adaptive routing on VCs 1.. with the up*/down* escape on VC 0.

    Attributes
    ----------
    minimal : TableRouting
        The minimal (NR or FR) tables, with all equal-cost next hops.
    escape_routing : TableRouting
        The up*/down* tables (VC 0).
    adaptive : str
        ``"minimal"`` or ``"updown"`` (``params["adaptive"]``; absent = ``"minimal"``):
        the next hops the adaptive VCs may take (module docs).
    """

    def __init__(self, minimal: TableRouting, escape_routing: TableRouting, *, num_vcs: int,
                 params=None):
        p = dict(params or {})
        super().__init__(minimal.topology, layout=minimal.layout, algorithm="escape",
                         params=p, num_vcs=num_vcs)
        self.minimal = minimal
        self.escape_routing = escape_routing
        self.adaptive_vcs = tuple(range(1, num_vcs))
        self.adaptive = _check_reading(p.get("adaptive", "minimal"))
        self._legal_dist = None  # updown reading: legal distances, weights (on first use)
        self._lw = None

    def path(self, src: int, dst: int, rng=None):
        """The adaptive route of the empty network (lowest next-hop id) on VC 1: the
        minimal table's, or for ``adaptive="updown"`` the up*/down* table's."""
        t = self.escape_routing if self.adaptive == "updown" else self.minimal
        sw, vcs = t.path(src, dst)
        return sw, np.ones_like(vcs)

    def escape_path(self, src: int, dst: int):
        """The up*/down* escape route from ``src`` to ``dst`` on VC 0."""
        sw, vcs = self.escape_routing.path(src, dst)
        return sw, np.zeros_like(vcs)

    def next_hops(self, v: int, dst: int, phase: int = 0) -> np.ndarray:
        """The adaptive choices of ``v`` toward ``dst`` (sorted switch ids): all minimal
        next hops, or for ``adaptive="updown"`` the next hops on a shortest up*/down*-legal
        route from ``v`` in up*/down* ``phase`` (0: no down link taken yet, 1: after one)."""
        if self.adaptive == "minimal":
            return self.minimal.next_hops(v, dst)
        ents = self.adaptive_entries(v, dst, phase)
        return self.view.indices[ents].astype(np.int32)

    def adaptive_entries(self, v: int, dst: int, phase: int = 0) -> np.ndarray:
        """CSR entries (directed links) of :meth:`next_hops`, increasing."""
        n = self.num_switches
        v, dst = int(v), int(dst)
        if not (0 <= v < n and 0 <= dst < n):
            raise ParameterError(f"switch ids must be in 0..{n - 1}, got {v} and {dst}")
        lo, hi = int(self.view.indptr[v]), int(self.view.indptr[v + 1])
        if v == dst:
            return np.zeros(0, dtype=np.int64)
        if self.adaptive == "minimal":
            nbrs = self.view.indices[lo:hi]
            return np.flatnonzero(np.isin(nbrs, self.minimal.next_hops(v, dst))) + lo
        if phase not in (0, 1):
            raise ParameterError(f"up*/down* phase must be 0 or 1, got {phase!r}")
        dist = self.legal_distances()[dst]
        here = int(dist[phase * n + v])
        if here >= UNREACHABLE:
            return np.zeros(0, dtype=np.int64)
        down = self.escape_routing.entry_phase[lo:hi].astype(bool)
        nbrs = self.view.indices[lo:hi].astype(np.int64)
        legal = down | (phase == 0)  # after a down link only down links
        nxt = np.where(down | (phase == 1), n, 0) + nbrs  # state reached
        ok = legal & (dist[nxt] + self._legal_weights()[lo:hi] == here)
        return np.flatnonzero(ok) + lo

    def legal_distances(self) -> np.ndarray:
        """``dist[dst, phase * N + v]`` of the shortest up*/down*-legal routes, in the
        unit of the escape tables (integer ps for ``base="fr"``, hops for ``"nr"``);
        computed on first use (:func:`topogen.routing.updown.updown_distances`)."""
        if self._legal_dist is None:
            root = int(self.escape_routing.params["root"])
            self._legal_dist = updown_distances(self.topology, root, self._legal_weights())
        return self._legal_dist

    def _legal_weights(self) -> np.ndarray:
        w = self._lw
        if w is None:
            ep = self.escape_routing.params
            if ep.get("metric") == "latency":
                w = fr_weights(self.escape_routing.layout, float(ep["switch_delay"]))
            else:
                w = np.ones(len(self.view.indices), dtype=np.int64)
            self._lw = w
        return w

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


def _check_reading(adaptive) -> str:
    if adaptive not in ADAPTIVE_READINGS:
        raise ParameterError(f"adaptive must be 'minimal' (any minimal next hop) or 'updown' "
                             f"(next hops on shortest up*/down*-legal routes), got {adaptive!r}")
    return adaptive


def escape(topology: Topology, layout=None, num_vcs: int = 4, base: str = "fr", *,
           switch_delay: float = 60.0, root: int | None = None,
           adaptive: str = "minimal") -> EscapeRouting:
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
        Root of the up*/down* tree (default: minimum hop eccentricity, lowest id on ties);
        it orients the escape VC and, for ``adaptive="updown"``, the adaptive VCs.
    adaptive : {"minimal", "updown"}
        Next hops of the adaptive VCs: any minimal one (default), or only those on a
        shortest up*/down*-legal route, by the packet's up*/down* phase (module docs).

    Returns
    -------
    EscapeRouting

    Raises
    ------
    RoutingError
        If ``num_vcs < 2`` ("escape routing needs at least 2 VCs (1 escape + 1 adaptive),
        got 1").
    ParameterError
        If ``base`` or ``adaptive`` is not one of the names above.
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
    _check_reading(adaptive)
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
    params = {"base": base, "escape_vc": 0, "adaptive_vcs": list(range(1, num_vcs)),
              "root": esc.params["root"], "switch_delay": switch_delay if base == "fr" else None}
    if adaptive != "minimal":  # absent = "minimal" (keeps the default's digest and seeds)
        params["adaptive"] = adaptive
    return EscapeRouting(minimal, esc, num_vcs=num_vcs, params=params)
