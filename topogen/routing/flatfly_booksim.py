"""BookSim2's randomised routings of its flattened butterfly (``flatfly_onchip.cpp``):
``xyyx_flatfly`` (:func:`flatfly_xyyx`) and ``valiant_flatfly`` (:func:`flatfly_valiant`),
on topogen's ``flattened-butterfly`` (or any HyperX with trunking 1: every dimension
fully connected, switch ``i`` at coordinates ``(i / k^d) % k``).

Both draw once per packet, at the source router (the routing function sees the packet on
an injection input, ``in_channel < c``), and correct one dimension per hop, straight to
the target coordinate (``flatfly_outport``: the lowest dimension that differs first;
``flatfly_outport_yx``: the highest first).

* ``xyyx`` (``xyyx_flatfly``): the order is drawn, ``RandomInt(1) > 0``: X first (every
  dimension ascending) on the lower half of the port's VCs, or Y first (descending) on the
  upper half.  Later routers read the order back from the packet's VC.  A packet whose
  source and destination differ in one dimension still draws, so it still takes one of
  the two halves at random.
* ``valiant`` (``valiant_flatfly``): the intermediate is any node of the network
  (``RandomInt(k^n c - 1)``), so its router is uniform over all routers, the source's and
  the destination's included.  Phase 0 routes X first to the intermediate router, phase 1
  X first to the destination.  The phase turns to 1 at any router that is the
  intermediate's *or the destination's*: a phase-0 path that passes the destination router
  ends there, and an intermediate on the source router makes the whole path phase 1.
  VCs: the lower half in phase 0, the upper half in phase 1, every VC on the ejection.
  BookSim's uniform traffic sends a node packets to itself; ``valiant_flatfly`` finds the
  destination on the source router and ejects them at once (unlike ``valiant_mesh``, which
  takes them out to the intermediate and back), so they are not routed here either.

topogen's routings have 2 VCs, one per order or phase; the simulator shares a port's VCs
out over them, which is BookSim's split into halves.  The channel dependency graph
(:func:`topogen.routing.check`) is a superset of every choice's dependencies:

* ``xyyx``: every X-first route on VC 0 and every Y-first route on VC 1 (exactly the
  routes it takes); each order alone is acyclic and the classes never meet;
* ``valiant``: every X-first route on VC 0 and on VC 1 (a truncated phase-0 path is
  itself an X-first route), and every junction from a VC-0 route ending at a router to a
  VC-1 route leaving it.

BookSim's ``adaptive_xyyx_flatfly``, ``ugal_flatfly_onchip`` and
``ugal_xyyx_flatfly_onchip`` choose from the router's credits at the source: they are
:mod:`topogen.routing.flatfly_adaptive`, whose choice the simulator's engine makes.
"""

from __future__ import annotations

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError, RoutingError
from .base import Routing, _check_switch
from .romm import phase_joined, two_vcs

__all__ = ["FlatflyRouting", "flatfly_xyyx", "flatfly_valiant", "flatfly_dims", "flatfly_path", "KINDS"]

#: topogen name -> BookSim routing function (``routing_function`` + ``_flatfly``)
KINDS = {"flatfly-xyyx": "xyyx_flatfly", "flatfly-valiant": "valiant_flatfly"}
#: how each kind uses its VC classes (the routing's ``vc_rule`` parameter)
_VC_RULES = {"flatfly-xyyx": "order: VC 0 X first, VC 1 Y first",
             "flatfly-valiant": "phase: VC 0 to the intermediate, VC 1 from it on"}


def flatfly_dims(topology) -> tuple[int, ...]:
    """The sides of a flattened butterfly / HyperX topology (its generator's parameters,
    as :func:`topogen.routing.dor` reads them)."""
    from .dor import dims_if

    dims = dims_if(topology, "hyperx")
    if dims is None:
        raise ParameterError(f"the flatfly-* routings route BookSim's flattened butterfly (topogen's "
                             f"flattened-butterfly or hyperx), got a {topology.name or 'topology'}; use dor or "
                             "valiant on other networks")
    return dims


def flatfly_path(dims, src: int, dst: int, order: str = "xy") -> list[int]:
    """Switches of the route ``src .. dst`` that corrects one dimension per hop, straight
    to the target coordinate: ascending dimensions (``order="xy"``, BookSim's
    ``flatfly_outport``) or descending (``"yx"``, ``flatfly_outport_yx``)."""
    if order not in ("xy", "yx"):
        raise ParameterError(f"order must be 'xy' or 'yx', got {order!r}")
    strides = [1]
    for k in dims[:-1]:
        strides.append(strides[-1] * k)
    path, cur = [int(src)], int(src)
    dims_order = range(len(dims)) if order == "xy" else range(len(dims) - 1, -1, -1)
    for d in dims_order:
        k, st = dims[d], strides[d]
        c, t = (cur // st) % k, (int(dst) // st) % k
        if c != t:
            cur += (t - c) * st
            path.append(cur)
    return path


class FlatflyRouting(Routing):
    """``flatfly-xyyx`` or ``flatfly-valiant`` (module docs).  ``path(src, dst, rng)``
    draws with ``rng`` (a :class:`numpy.random.Generator`), or with the routing's own
    generator (seeded from ``seed``) when ``rng`` is None."""

    deterministic = False
    #: the kinds this class routes (topogen name -> BookSim routing function), the VC
    #: classes of each and how it uses them; a subclass routes its own
    kinds = KINDS
    vc_classes = dict.fromkeys(KINDS, 2)
    vc_rules = _VC_RULES

    def __init__(self, topology, kind: str, seed=None):
        if kind not in self.kinds:
            raise ParameterError(f"kind must be one of {', '.join(self.kinds)}, got {kind!r}")
        self.dims = flatfly_dims(topology)
        seed = resolve_seed(seed)
        super().__init__(topology, algorithm=kind,
                         params={"seed": seed, "as": f"BookSim {self.kinds[kind]}", "vc_rule": self.vc_rules[kind],
                                 **self._kind_params(kind)},
                         num_vcs=self.vc_classes[kind])
        self.kind = kind
        self.seed = seed
        self._rng = make_rng(seed)
        self._seg: dict[tuple[int, int, str], np.ndarray] = {}

    def _kind_params(self, kind: str) -> dict:
        """The parameters of ``kind`` beyond the seed, BookSim's name and the VC rule."""
        return {}

    # ------------------------------------------------------------ routes
    def segment(self, src: int, dst: int, order: str = "xy") -> np.ndarray:
        """Switches of the route ``src .. dst`` in ``order`` (checked against the
        topology's links; cached)."""
        key = (src, dst, order)
        sw = self._seg.get(key)
        if sw is None:
            sw = np.asarray(flatfly_path(self.dims, src, dst, order), dtype=np.int32)
            if len(sw) > 1 and np.any(self.view.entry(sw[:-1], sw[1:]) < 0):
                raise RoutingError(f"the network has no link on the route {src}->{dst}: it is not a full "
                                   f"{'x'.join(map(str, self.dims))} flattened butterfly")
            self._seg[key] = sw
        return sw

    def path_order(self, src: int, dst: int, order: str):
        """``xyyx``: the path in ``order`` and its VC (0 for ``xy``, 1 for ``yx``)."""
        sw = self.segment(src, dst, order)
        return sw.copy(), np.full(len(sw) - 1, 0 if order == "xy" else 1, np.int16)

    def path_via(self, src: int, mid: int, dst: int):
        """``valiant``: switches and VCs of the path through ``mid`` (VC 0 up to ``mid``,
        VC 1 after), ending early where the phase-0 part reaches ``dst``."""
        a = self.segment(src, mid)
        hit = np.flatnonzero(a == dst)
        if len(hit):
            a = a[:int(hit[0]) + 1]
            return a.copy(), np.zeros(len(a) - 1, np.int16)
        b = self.segment(mid, dst)
        vcs = np.concatenate([np.zeros(len(a) - 1, np.int16), np.ones(len(b) - 1, np.int16)])
        return np.concatenate([a, b[1:]]).astype(np.int32), vcs

    def draw(self, src: int, dst: int, rng=None):
        """One packet's draw: the order (``xyyx``) or the intermediate router."""
        rng = self._rng if rng is None else rng
        if self.kind == "flatfly-xyyx":
            return "xy" if int(rng.integers(2)) else "yx"
        return int(rng.integers(self.num_switches))

    def path(self, src: int, dst: int, rng=None):
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        pick = self.draw(src, dst, rng)
        if self.kind == "flatfly-xyyx":
            return self.path_order(src, dst, pick)
        return self.path_via(src, pick, dst)

    # ------------------------------------------------------------ deadlock check
    def describe_check(self) -> str:
        if self.kind == "flatfly-xyyx":
            return "every X-first route on VC 0 and every Y-first route on VC 1"
        return ("superset of the two-phase dependencies: every X-first route on VC 0 and on VC 1, and every "
                "junction from a VC-0 route ending at a router to a VC-1 route leaving it")

    def _cdg_plan(self) -> tuple:
        """The route sets of the dependency superset: per class pair ``(first, second)``,
        ``(VC, order)`` of the routes of the first class and of the second (None: a class
        without a second phase), junctions joining a first-class route ending at a router
        to a second-class route leaving it."""
        if self.kind == "flatfly-xyyx":
            return (((0, "xy"), None), ((1, "yx"), None))
        return (((0, "xy"), (1, "xy")),)

    def dependency_chunks(self, pairs=None):
        """The dependencies of the module docs (:meth:`_cdg_plan`); ``pairs`` is ignored."""
        n, v = self.num_switches, self.num_vcs
        a_list, b_list = [], []
        junctions = []  # per class pair: (ends, starts)
        for first, second in self._cdg_plan():
            ends: dict[int, set] = {}
            starts: dict[int, set] = {}
            for role, cls in (("end", first), ("start", second)):
                if cls is None:
                    continue
                vc, order = cls
                for s in range(n):
                    for d in range(n):
                        if s == d:
                            continue
                        sw = self.segment(s, d, order)
                        ch = np.asarray(self.view.entry(sw[:-1], sw[1:]), dtype=np.int64) * v + vc
                        a_list.append(ch[:-1])
                        b_list.append(ch[1:])
                        if second is None:
                            continue
                        if role == "end":
                            ends.setdefault(d, set()).add(int(ch[-1]))
                        else:
                            starts.setdefault(s, set()).add(int(ch[0]))
            junctions.append((ends, starts))
        for ends, starts in junctions[:-1]:  # phase_joined adds the last pair's
            for m, last in ends.items():
                first = np.fromiter(starts.get(m, ()), dtype=np.int64)
                for x in last:
                    a_list.append(np.full(len(first), x, dtype=np.int64))
                    b_list.append(first)
        ends, starts = junctions[-1]
        yield phase_joined(a_list, b_list, ends, starts)

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "flatfly"
        return md


def flatfly_xyyx(topology, *, seed=None, num_vcs: int | None = None) -> FlatflyRouting:
    """BookSim2's ``xyyx_flatfly`` on topogen's flattened butterfly: X first on VC 0 or Y
    first on VC 1, drawn per packet (module docs).

    Raises
    ------
    ParameterError
        Not a flattened butterfly / HyperX, or ``num_vcs`` other than 2.
    """
    two_vcs("flatfly-xyyx", num_vcs, "order")
    return FlatflyRouting(topology, "flatfly-xyyx", seed=seed)


def flatfly_valiant(topology, *, seed=None, num_vcs: int | None = None) -> FlatflyRouting:
    """BookSim2's ``valiant_flatfly`` on topogen's flattened butterfly: a random
    intermediate router (any), X first to it and on, VC 0 / VC 1 by phase, the phase-0
    path ending where it reaches the destination router (module docs).  topogen's
    ``valiant`` differs: its intermediate is neither source nor destination and its VCs
    are hop-indexed; ``valiant-booksim`` is BookSim's mesh version.

    Raises
    ------
    ParameterError
        Not a flattened butterfly / HyperX, or ``num_vcs`` other than 2.
    """
    two_vcs("flatfly-valiant", num_vcs)
    return FlatflyRouting(topology, "flatfly-valiant", seed=seed)
