"""BookSim2's credit-adaptive routings of its flattened butterfly (``flatfly_onchip.cpp``):
``adaptive_xyyx_flatfly`` (:func:`flatfly_adaptive_xyyx`), ``ugal_flatfly_onchip``
(:func:`flatfly_ugal`) and ``ugal_xyyx_flatfly_onchip`` (:func:`flatfly_ugal_xyyx`), on
topogen's ``flattened-butterfly`` (or any HyperX with trunking 1).

All three choose once per packet, at the source router (BookSim's routing function sees
the head on an injection input, ``in_channel < gC``), from ``GetUsedCredit(port)`` of
candidate output ports of that router: ``IQRouter::GetUsedCredit`` (``iq_router.cpp``) is
``_next_buf[port]->Occupancy()``, the flits sent on the port over all its VCs and not yet
credited back.  Later routers never revisit the choice: they read it back from the
packet's VC (the order) or its phase field.  Each hop corrects one dimension straight to
the target coordinate (``flatfly_outport``: the lowest differing dimension first, "X
first"; ``flatfly_outport_yx``: the highest first, "Y first").  The ejection takes every
VC; every network hop takes the VC block of its class.

* ``flatfly-adaptive-xyyx`` (``adaptive_xyyx_flatfly``, lines 331-406 of
  ``flatfly_onchip.cpp``): ``credit_xy`` and ``credit_yx`` are the used credits of the
  X-first and the Y-first first-hop ports; ``credit_xy > credit_yx`` takes Y first,
  ``credit_xy < credit_yx`` X first, a tie draws ``RandomInt(1) > 0`` (X first on 1).
  A packet whose source and destination differ in one dimension sees one port twice (a
  tie) and still draws.  X first runs on the lower half of the VCs (class 0), Y first on
  the upper half (class 1), as ``xyyx_flatfly``.
* ``flatfly-ugal`` (``ugal_flatfly_onchip``, lines 824-994): one random intermediate
  node (``find_ran_intm``, lines 1232-1266: a random node offset ``RandomInt(gC - 1)``,
  and in each dimension where source and destination routers differ a uniform
  coordinate ``RandomInt(gK - 1)``, elsewhere the source's coordinate; so the
  intermediate router may be the source's or the destination's).  ``min_hop`` and
  ``nonmin_hop`` are the differing dimensions (``find_distance``) of source ->
  destination and of source -> intermediate -> destination; ``q_min`` the used credits
  of the X-first port toward the destination, ``q_nonmin`` of the X-first port toward
  the intermediate (``INT_MAX`` when the intermediate is on the source router: the
  packet then goes minimal whichever way BookSim's overflowing product compares).  The
  packet goes minimal when ``min_hop * q_min <= nonmin_hop * q_nonmin + 2`` (the
  threshold ``2``, line 861), else through the intermediate: phase 1 X first to its
  router, phase 2 from there X first to the destination (a phase-1 path does not stop at
  the destination router on its way, unlike ``valiant_flatfly``).  VCs (lines 957-967):
  phase 1 the lower half (class 0), phase 2 -- a minimal packet's whole path included --
  the upper half (class 1).
* ``flatfly-ugal-xyyx`` (``ugal_xyyx_flatfly_onchip``, lines 625-820): as ``ugal``, but
  the order of both segments is drawn first (``RandomInt(1) > 0``: X first), the two
  ports compared are those of that order, and the VCs are halved twice (lines 771-795):
  the order's half, then the phase's half of it: X first phase 1, X first phase 2, Y
  first phase 1, Y first phase 2 are classes 0, 1, 2, 3 (4 routing VCs; BookSim needs 4
  VCs or more).

The reference simulator makes the choices at run time (:mod:`topogen.sim._flatfly_choice`,
Python engine); :meth:`FlatflyAdaptiveRouting.path` gives the choice on an empty network
(every used credit 0: ``adaptive_xyyx`` draws the order, ``ugal`` goes minimal).  The
decision rules themselves are :func:`choose_order`, :func:`ugal_minimal` and
:func:`ugal_intermediate`, shared by the engine and :meth:`path`.

The channel dependency graph (:func:`topogen.routing.check`) is a superset of every
choice's dependencies: ``adaptive_xyyx`` every X-first route on VC 0 and every Y-first
route on VC 1 (as ``flatfly-xyyx``); ``ugal`` every X-first route on VC 0 and on VC 1 and
every junction from a VC-0 route ending at a router to a VC-1 route leaving it (as
``flatfly-valiant``); ``ugal_xyyx`` the same per order, on its two classes.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .base import _check_switch
from .flatfly_booksim import FlatflyRouting

__all__ = ["FlatflyAdaptiveRouting", "flatfly_adaptive_xyyx", "flatfly_ugal", "flatfly_ugal_xyyx",
           "choose_order", "ugal_minimal", "ugal_intermediate", "router_distance", "KINDS", "THRESHOLD"]

#: topogen name -> BookSim routing function (``routing_function`` + ``_flatfly``)
KINDS = {"flatfly-adaptive-xyyx": "adaptive_xyyx_flatfly", "flatfly-ugal": "ugal_flatfly_onchip",
         "flatfly-ugal-xyyx": "ugal_xyyx_flatfly_onchip"}
#: routing VC classes of each kind
_CLASSES = {"flatfly-adaptive-xyyx": 2, "flatfly-ugal": 2, "flatfly-ugal-xyyx": 4}
#: ``threshold`` of ``ugal_flatfly_onchip`` / ``ugal_xyyx_flatfly_onchip`` (flits)
THRESHOLD = 2


def choose_order(used_xy: int, used_yx: int, coin: int) -> str:
    """``adaptive_xyyx_flatfly``'s order: ``"yx"`` when the X-first port has more used
    credits, ``"xy"`` when it has fewer, else the draw (``coin`` = ``RandomInt(1)``:
    ``"xy"`` on 1)."""
    if used_xy > used_yx:
        return "yx"
    if used_xy < used_yx:
        return "xy"
    return "xy" if coin > 0 else "yx"


def ugal_minimal(min_hop: int, used_min: int, nonmin_hop: int, used_nonmin, threshold: int = THRESHOLD) -> bool:
    """``ugal_flatfly_onchip``'s test: minimal when ``min_hop * used_min <= nonmin_hop *
    used_nonmin + threshold``; ``used_nonmin`` None (the intermediate on the source router,
    BookSim's ``INT_MAX``) is minimal."""
    if used_nonmin is None:
        return True
    return min_hop * used_min <= nonmin_hop * used_nonmin + threshold


def router_distance(dims, a: int, b: int) -> int:
    """Dimensions in which routers ``a`` and ``b`` differ (BookSim's ``find_distance``)."""
    dist, st = 0, 1
    for k in dims:
        if (a // st) % k != (b // st) % k:
            dist += 1
        st *= k
    return dist


def ugal_intermediate(dims, s: int, d: int, draw) -> int:
    """``find_ran_intm``'s router: in each dimension where routers ``s`` and ``d`` differ
    ``draw(k)`` (a uniform coordinate ``0 .. k - 1``, BookSim's ``RandomInt(gK - 1)``),
    elsewhere ``s``'s coordinate."""
    m, st = 0, 1
    for k in dims:
        cs, cd = (s // st) % k, (d // st) % k
        m += (cs if cs == cd else int(draw(k))) * st
        st *= k
    return m


class FlatflyAdaptiveRouting(FlatflyRouting):
    """``flatfly-adaptive-xyyx``, ``flatfly-ugal`` or ``flatfly-ugal-xyyx`` (module docs).
    The simulator's engine makes the choice from the router's credits
    (``engine_choice = "flatfly"``); :meth:`path` makes it on an empty network."""

    deterministic = False
    #: the reference simulator's engine chooses the route at the source router
    engine_choice = "flatfly"

    kinds = KINDS
    vc_classes = _CLASSES
    vc_rules = {"flatfly-adaptive-xyyx": "order: VC 0 X first, VC 1 Y first",
                "flatfly-ugal": "phase: VC 0 to the intermediate, VC 1 minimal or from it on",
                "flatfly-ugal-xyyx": "order and phase: VC 0 / 1 X first phase 1 / 2, VC 2 / 3 Y first phase 1 / 2"}

    def _kind_params(self, kind: str) -> dict:
        """The UGAL threshold (None for ``adaptive_xyyx``)."""
        return {"threshold": THRESHOLD if kind != "flatfly-adaptive-xyyx" else None}

    # ------------------------------------------------------------ routes
    def route_of(self, s: int, d: int, order: str, mid: int | None = None):
        """``(switches, classes)`` of the chosen route: ``order`` ``"xy"`` / ``"yx"``,
        through router ``mid`` (``None``: minimal).  Classes per hop as the module docs."""
        yx = 1 if order == "yx" else 0
        if self.kind == "flatfly-adaptive-xyyx":
            sw = self.segment(s, d, order)
            return sw.copy(), np.full(len(sw) - 1, yx, np.int16)
        base = 2 * yx if self.kind == "flatfly-ugal-xyyx" else 0
        if mid is None or mid == s:
            sw = self.segment(s, d, order)
            return sw.copy(), np.full(len(sw) - 1, base + 1, np.int16)
        a, b = self.segment(s, mid, order), self.segment(mid, d, order)
        vcs = np.concatenate([np.full(len(a) - 1, base, np.int16), np.full(len(b) - 1, base + 1, np.int16)])
        return np.concatenate([a, b[1:]]).astype(np.int32), vcs

    def path(self, src: int, dst: int, rng=None):
        """The route chosen on an empty network (every used credit 0): ``adaptive_xyyx``
        draws the order (a tie), ``ugal`` / ``ugal_xyyx`` go minimal (``0 <= 0 + 2``;
        ``ugal_xyyx`` draws the order)."""
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        rng = self._rng if rng is None else rng
        if self.kind == "flatfly-ugal":
            return self.route_of(src, dst, "xy")
        order = choose_order(0, 0, int(rng.integers(2)))
        return self.route_of(src, dst, order)

    # ------------------------------------------------------------ deadlock check
    def describe_check(self) -> str:
        if self.kind == "flatfly-adaptive-xyyx":
            return "every X-first route on VC 0 and every Y-first route on VC 1"
        per = " per order (VCs 0-1 X first, 2-3 Y first)" if self.kind == "flatfly-ugal-xyyx" else ""
        return ("superset of the two-phase dependencies" + per + ": every route on the phase-1 and the phase-2 "
                "VC, and every junction from a phase-1 route ending at a router to a phase-2 route leaving it")

    def _cdg_plan(self) -> tuple:
        if self.kind == "flatfly-adaptive-xyyx":
            return (((0, "xy"), None), ((1, "yx"), None))
        if self.kind == "flatfly-ugal":
            return (((0, "xy"), (1, "xy")),)
        return (((0, "xy"), (1, "xy")), ((2, "yx"), (3, "yx")))

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "flatfly-adaptive"
        return md


def _make(kind: str, topology, seed, num_vcs):
    need = _CLASSES[kind]
    if num_vcs not in (None, need):
        what = {"flatfly-adaptive-xyyx": "one per order", "flatfly-ugal": "one per phase",
                "flatfly-ugal-xyyx": "one per order and phase"}[kind]
        raise ParameterError(f"{kind} has {need} VC classes ({what}): {need} routing VCs (the simulator shares "
                             f"a port's VCs out over them, as BookSim halves them), got vcs={num_vcs}")
    return FlatflyAdaptiveRouting(topology, kind, seed=seed)


def flatfly_adaptive_xyyx(topology, *, seed=None, num_vcs: int | None = None) -> FlatflyAdaptiveRouting:
    """BookSim2's ``adaptive_xyyx_flatfly``: X first (VC 0) or Y first (VC 1), the order
    whose first-hop port has fewer used credits, ties drawn (module docs).

    Raises
    ------
    ParameterError
        Not a flattened butterfly / HyperX, or ``num_vcs`` other than 2.
    """
    return _make("flatfly-adaptive-xyyx", topology, seed, num_vcs)


def flatfly_ugal(topology, *, seed=None, num_vcs: int | None = None) -> FlatflyAdaptiveRouting:
    """BookSim2's ``ugal_flatfly_onchip``: minimal or through a random intermediate from
    ``hops x used credits`` with a threshold of 2, X first, VC 0 / VC 1 by phase (module
    docs).

    Raises
    ------
    ParameterError
        Not a flattened butterfly / HyperX, or ``num_vcs`` other than 2.
    """
    return _make("flatfly-ugal", topology, seed, num_vcs)


def flatfly_ugal_xyyx(topology, *, seed=None, num_vcs: int | None = None) -> FlatflyAdaptiveRouting:
    """BookSim2's ``ugal_xyyx_flatfly_onchip``: ``flatfly-ugal`` with the order of both
    segments drawn per packet, 4 VC classes (order x phase, module docs).

    Raises
    ------
    ParameterError
        Not a flattened butterfly / HyperX, or ``num_vcs`` other than 4.
    """
    return _make("flatfly-ugal-xyyx", topology, seed, num_vcs)
