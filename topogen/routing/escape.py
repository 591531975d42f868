"""Adaptive routing with an escape sub-network (Duato): up*/down* escape paths on any
topology (Silla and Duato), or dimension-order escape paths on tori, meshes and hypercubes.

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

Dimension-order escape paths (``escape_paths="dor"``): Duato's protocol as the
layout-conscious random topologies paper uses it on hypercubes and tori ("dimension-order
routing for the escape paths", Sec. III-C).  The escape routes are those of
:func:`topogen.routing.dor.dor` (``tie="+"``), entered at any switch as if the packet were
injected there:

* torus (a ring of side >= 3): the dateline rule on **two** escape VCs, VC 0 until the
  packet crosses the wrap link of the dimension it is correcting, VC 1 from that hop to the
  end of the dimension, VC 0 again in the next dimension; the adaptive VCs are
  ``2 .. num_vcs-1``;
* hypercube, mesh (and a torus of rings of side 2): one escape VC (VC 0), adaptive VCs
  ``1 .. num_vcs-1``.

The escape VC of a hop is a function of the packet's *escape state* (the dateline class
already reached in the dimension being corrected: 0 or 1; reset to 0 when the dimension is
done), the switch and the destination: :meth:`EscapeRouting.escape_table` gives, per
``(state, switch, destination)``, the escape next hop, its VC and the state after it (the
simulator's engines route from it).  For up*/down* paths the state is the up*/down* phase
and the VC always 0.  The deadlock check builds the CDG of the DOR routes from every
switch to every destination with their VC classes (acyclic with two VCs on a torus; with
one VC the rings close cycles).

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

__all__ = ["EscapeRouting", "escape", "ADAPTIVE_READINGS", "ESCAPE_PATHS"]

#: which next hops the adaptive VCs may take (module docs)
ADAPTIVE_READINGS = ("minimal", "updown")
#: the routes of the escape sub-network (module docs)
ESCAPE_PATHS = ("updown", "dor")


class EscapeRouting(Routing):
    """Minimal adaptive routing with an escape sub-network on the lowest VCs.

    Attributes
    ----------
    minimal : TableRouting
        The minimal (NR or FR) tables, with all equal-cost next hops.
    escape_routing : TableRouting
        The escape tables: up*/down* (VC 0), or dimension order (VC 0, or VCs 0 and 1 by the
        dateline rule on a torus).
    escape_paths : str
        ``"updown"`` or ``"dor"`` (``params["escape_paths"]``; absent = ``"updown"``).
    escape_classes : int
        Escape VCs (``escape_routing.num_vcs``): VCs ``0 .. escape_classes-1``; the
        adaptive VCs are the others.
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
        self.escape_paths = p.get("escape_paths", "updown")
        if self.escape_paths not in ESCAPE_PATHS:
            raise ParameterError(f"escape_paths must be 'updown' or 'dor', got {self.escape_paths!r}")
        self.escape_classes = int(escape_routing.num_vcs) if self.escape_paths == "dor" else 1
        if num_vcs <= self.escape_classes:
            raise RoutingError(f"escape routing with {self.escape_paths} escape paths needs at least "
                               f"{self.escape_classes + 1} VCs ({self.escape_classes} escape + 1 "
                               f"adaptive), got {num_vcs}")
        self.adaptive_vcs = tuple(range(self.escape_classes, num_vcs))
        self.adaptive = _check_reading(p.get("adaptive", "minimal"))
        if self.adaptive == "updown" and self.escape_paths != "updown":
            raise ParameterError("adaptive='updown' restricts the adaptive VCs to the up*/down* escape's "
                                 "legal routes: use it with escape_paths='updown', or adaptive='minimal'")
        self._legal_dist = None  # updown reading: legal distances, weights (on first use)
        self._lw = None
        self._etable = None

    def path(self, src: int, dst: int, rng=None):
        """The adaptive route of the empty network (lowest next-hop id) on the first
        adaptive VC: the minimal table's, or for ``adaptive="updown"`` the up*/down*
        table's."""
        t = self.escape_routing if self.adaptive == "updown" else self.minimal
        sw, vcs = t.path(src, dst)
        return sw, np.full_like(vcs, self.adaptive_vcs[0])

    def escape_path(self, src: int, dst: int):
        """The escape route from ``src`` to ``dst`` (entered at ``src``) with its VCs: the
        up*/down* route on VC 0, or the DOR route on its dateline VCs."""
        sw, vcs = self.escape_routing.path(src, dst)
        if self.escape_paths == "updown":
            return sw, np.zeros_like(vcs)
        return sw, vcs

    def escape_table(self):
        """The escape sub-network as the engines route it: ``(ranks, vc, state)``, arrays
        of shape ``(2, N, N)`` indexed ``[escape state, switch, destination]``: the escape
        next hop's rank among the switch's links (the escape tables' sentinel at the
        destination), its escape VC and the packet's escape state after the hop.  A packet
        enters the escape in state 0.  Up*/down*: the state is the up*/down* phase, the VC
        0.  DOR: the state is the dateline class reached in the dimension being corrected
        (0 when that dimension is done), the VC the dateline rule's (module docs)."""
        if self._etable is not None:
            return self._etable
        esc = self.escape_routing
        n = self.num_switches
        indptr = esc.view.indptr.astype(np.int64)
        indices = esc.view.indices.astype(np.int64)
        sent = esc.sentinel
        v = np.arange(n, dtype=np.int64)[:, None]
        if self.escape_paths == "updown":
            ranks = np.asarray(esc.ranks)
            vc = np.zeros(ranks.shape, dtype=np.int8)
            state = np.zeros(ranks.shape, dtype=np.int8)
            for ph in range(ranks.shape[0]):
                r = ranks[ph].astype(np.int64)
                e = np.where(r == sent, 0, indptr[v] + r)
                state[ph] = np.maximum(ph, esc.entry_phase[e])
        else:
            r0 = np.asarray(esc.ranks[0])
            ranks = np.stack([r0, r0])
            r = r0.astype(np.int64)
            here = r == sent
            e = np.where(here, 0, indptr[v] + r)
            wrap = esc.entry_wrap[e] & ~here
            dim = esc.entry_dim[e].astype(np.int64)
            dims = np.asarray(esc.params["dims"], dtype=np.int64)
            strides = np.concatenate([[1], np.cumprod(dims[:-1])]).astype(np.int64)
            coord = lambda x: (x // strides[dim]) % dims[dim]  # noqa: E731
            done = coord(indices[e]) == coord(np.arange(n, dtype=np.int64)[None, :])
            vc = np.zeros((2, n, n), dtype=np.int8)
            state = np.zeros((2, n, n), dtype=np.int8)
            if esc.vc_rule == "dateline":
                for s in (0, 1):
                    c = np.where(wrap, 1, s) & ~here
                    vc[s] = c
                    state[s] = np.where(done, 0, c)
        self._etable = (ranks, vc, state)
        return self._etable

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
        # the escape sub-network: its routes from every switch with their VCs
        v = self.num_vcs
        ve = self.escape_routing.num_vcs
        for ch, a, b in self.escape_routing.dependency_chunks(pairs):
            # channel = entry * ve + vc in the escape tables; re-encode with our num_vcs
            yield ch // ve * v + ch % ve, a // ve * v + a % ve, b // ve * v + b % ve

    def describe_check(self) -> str:
        a = self.adaptive_vcs
        if self.escape_paths == "dor":
            vcs = "VCs 0 and 1, dateline rule" if self.escape_classes == 2 else "VC 0"
            return (f"escape sub-network ({vcs}): dimension-order routes from every switch to every "
                    f"destination (Duato's condition; adaptive VCs {a[0]}.. not included)")
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
           adaptive: str = "minimal", escape_paths: str = "updown") -> EscapeRouting:
    """Duato's protocol: minimal adaptive routing with an escape sub-network, up*/down*
    (Silla–Duato, Skywalk IV-A) or dimension order (tori, meshes, hypercubes).

    Parameters
    ----------
    topology : Topology
        A connected topology.
    layout : Layout, optional
        Needed for ``base="fr"``; default :func:`topogen.layout.default_layout`.
    num_vcs : int
        Total VCs (Skywalk uses 4): the escape VCs (VC 0; VCs 0 and 1 for DOR on a torus),
        the others adaptive; at least one adaptive VC.
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
    escape_paths : {"updown", "dor"}
        The escape sub-network: up*/down* routes (any topology; the default), or
        dimension-order routes (:func:`topogen.routing.dor.dor`, a torus, mesh or hypercube;
        two escape VCs by the dateline rule on a torus).  ``root`` is not used with
        ``"dor"``, and ``adaptive="updown"`` needs ``"updown"``.

    Returns
    -------
    EscapeRouting

    Raises
    ------
    RoutingError
        If ``num_vcs < 2`` ("escape routing needs at least 2 VCs (1 escape + 1 adaptive),
        got 1"), below 3 for DOR escape paths on a torus, or ``escape_paths="dor"`` on a
        network without dimensions.
    ParameterError
        If ``base``, ``adaptive`` or ``escape_paths`` is not one of the names above, or
        ``adaptive="updown"`` is combined with ``escape_paths="dor"``.
    TopologyError
        If the topology is disconnected.

    References
    ----------
    .. [1] F. Silla, J. Duato, "High-Performance Routing in Networks of Workstations with
       Irregular Topology", IEEE TPDS 11(7), 2000.
    .. [2] J. Duato, "A New Theory of Deadlock-Free Adaptive Routing in Wormhole
       Networks", IEEE TPDS 4(12), 1993.
    .. [3] Skywalk, Sec. II-E and IV-A.
    .. [4] Koibuchi et al., "Layout-conscious Random Topologies", Sec. III-C (DOR escape
       paths on hypercubes and tori).
    """
    num_vcs = check_int("num_vcs", num_vcs, 1)
    if num_vcs < 2:
        raise RoutingError(f"escape routing needs at least 2 VCs (1 escape + 1 adaptive), got {num_vcs}")
    if base not in ("fr", "nr"):
        raise ParameterError(f"base must be 'fr' or 'nr', got {base!r}")
    _check_reading(adaptive)
    if escape_paths not in ESCAPE_PATHS:
        raise ParameterError(f"escape_paths must be 'updown' (up*/down* escape routes, any topology) or "
                             f"'dor' (dimension-order escape routes on a torus, mesh or hypercube), "
                             f"got {escape_paths!r}")
    if adaptive == "updown" and escape_paths != "updown":
        raise ParameterError("adaptive='updown' restricts the adaptive VCs to the up*/down* escape's "
                             "legal routes: use it with escape_paths='updown', or adaptive='minimal'")
    topology.require_connected("escape routing")
    if base == "fr":
        if layout is None:
            from ..layout import default_layout

            layout = default_layout(topology)
        minimal = fastest(layout, switch_delay, all_next_hops=True, ties="lowest")
    else:
        minimal = nearest(topology, layout, all_next_hops=True, ties="lowest")
    if escape_paths == "dor":
        from .dor import _shape, dor

        kind, dims = _shape(topology, None, None)
        esc = dor(topology, kind=kind, dims=dims, layout=layout)
        ne = esc.num_vcs
        if num_vcs <= ne:
            raise RoutingError(f"escape routing with dimension-order escape paths on a {kind} needs at least "
                               f"{ne + 1} VCs ({ne} escape + 1 adaptive), got {num_vcs}")
        params = {"base": base, "escape_paths": "dor", "escape_vcs": list(range(ne)),
                  "adaptive_vcs": list(range(ne, num_vcs)), "kind": kind, "dims": list(dims),
                  "switch_delay": switch_delay if base == "fr" else None}
        return EscapeRouting(minimal, esc, num_vcs=num_vcs, params=params)
    esc = updown(topology, root, layout=layout, metric="latency" if base == "fr" else "hops",
                 switch_delay=switch_delay)
    params = {"base": base, "escape_vc": 0, "adaptive_vcs": list(range(1, num_vcs)),
              "root": esc.params["root"], "switch_delay": switch_delay if base == "fr" else None}
    if adaptive != "minimal":  # absent = "minimal" (keeps the default's digest and seeds)
        params["adaptive"] = adaptive
    return EscapeRouting(minimal, esc, num_vcs=num_vcs, params=params)
