"""BookSim2's two-phase routings of a mesh: ``romm`` (:func:`romm`, ``romm_mesh``) and
``valiant`` (:func:`valiant_booksim`, ``valiant_mesh``), read from ``src/routefunc.cpp``.

Both pick an intermediate router once per packet, at the source router (when the packet
comes in on the injection port), and route dimension order (``dor_next_mesh``: the
lowest dimension that differs first) to the intermediate (phase 0), then dimension order
to the destination (phase 1).  The phase turns to 1 at the router that *is* the
intermediate, so the hop leaving it is phase 1; an intermediate equal to the source makes
the whole path phase 1, one equal to the destination the whole path phase 0.  A packet
whose destination is on its own router is routed the same way: BookSim's uniform traffic
sends a node packets to itself, and ``valiant`` takes them out to the intermediate and back.

* ``romm``: the intermediate lies in the minimal quadrant of source and destination
  (``rand_min_intr_mesh``): in every dimension a coordinate drawn uniformly from the closed
  range between the source's and the destination's (``RandomInt(dist)`` is inclusive).
  Every ROMM path is minimal.
* ``valiant``: the intermediate is uniform over all routers (``RandomInt(gNodes - 1)``,
  source and destination included).

VCs, as both functions give them: the lower half of a port's VCs in phase 0, the upper
half in phase 1 (``available_vcs = num_vcs / 2``); at the destination router (the
ejection) every VC.  topogen's routing has 2 VCs, one per phase; the simulator shares a
port's VCs out over them, which is the same split.  The channel dependency graph
(:func:`topogen.routing.check`) is a superset of every choice's dependencies: every
dimension-order route on VC 0 and on VC 1, and every junction from a VC-0 route ending at
a router to a VC-1 route leaving it.  Dimension order alone is acyclic on a mesh and every
junction goes from VC 0 to VC 1, so the graph is acyclic; with one VC for both phases it
is not (a Y-then-X turn of one phase meets an X hop of the next).

BookSim's ``valiant_torus`` is not offered: its ring partition is left unset on a hop that
continues in the same dimension (a local variable read before it is written), and the
BookSim2 build here stops on its own assertion (``ring_part == 1``) at the first such hop.
``romm`` has no torus version in BookSim.
"""

from __future__ import annotations

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError, RoutingError
from .base import Routing, _check_switch

__all__ = ["PhaseRouting", "romm", "valiant_booksim", "mesh_dims", "dor_mesh_path", "KINDS"]

#: topogen name -> (BookSim routing function, intermediate choice)
KINDS = {"romm": ("romm_mesh", "minimal quadrant"), "valiant-booksim": ("valiant_mesh", "any router")}


def mesh_dims(topology) -> tuple[int, ...]:
    """The side lengths of a ``mesh`` topology (switch ``i`` at coordinates ``(i / K_d) %
    k_d``, dimension 0 fastest, as BookSim's ``kncube.cpp`` numbers its routers)."""
    md = topology.metadata()
    if md.get("generator") != "mesh":
        raise ParameterError(f"romm and valiant-booksim route BookSim's mesh (topogen's mesh generator), got a "
                             f"{md.get('generator') or 'topology without a generator'}; use dor or valiant "
                             "on other networks")
    dims = tuple(int(k) for k in md["params"]["dims"])
    if int(np.prod(dims)) != topology.num_switches:
        raise ParameterError(f"mesh dims {dims} do not give the topology's {topology.num_switches} switches")
    return dims


def dor_mesh_path(dims, src: int, dst: int) -> list[int]:
    """Switches of BookSim's ``dor_next_mesh`` route from ``src`` to ``dst``: the lowest
    dimension that differs first, one step at a time toward the destination."""
    path = [int(src)]
    cur = int(src)
    stride = 1
    for k in dims:
        c, d = (cur // stride) % k, (int(dst) // stride) % k
        step = stride if d > c else -stride
        for _ in range(abs(d - c)):
            cur += step
            path.append(cur)
        stride *= k
    return path


class PhaseRouting(Routing):
    """``romm`` or ``valiant-booksim`` on a mesh (module docs).  ``path(src, dst, rng)``
    draws the intermediate with ``rng`` (a :class:`numpy.random.Generator`), or with the
    routing's own generator (seeded from ``seed``) when ``rng`` is None."""

    deterministic = False
    #: a packet between hosts of one router is routed too (through the intermediate), not
    #: delivered on the spot: the simulator asks :meth:`path` for it
    routes_self = True

    def __init__(self, topology, kind: str, seed=None):
        if kind not in KINDS:
            raise ParameterError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        self.dims = mesh_dims(topology)
        seed = resolve_seed(seed)
        func, choice = KINDS[kind]
        super().__init__(topology, algorithm=kind,
                         params={"seed": seed, "as": f"BookSim {func}", "intermediate": choice,
                                 "vc_rule": "phase: VC 0 to the intermediate, VC 1 from it on"},
                         num_vcs=2)
        self.kind = kind
        self.seed = seed
        self._rng = make_rng(seed)
        self._seg: dict[tuple[int, int], np.ndarray] = {}

    # ------------------------------------------------------------ routes
    def draw_intermediate(self, src: int, dst: int, rng=None) -> int:
        """The intermediate router of a packet from ``src`` to ``dst`` (module docs)."""
        rng = self._rng if rng is None else rng
        if self.kind == "valiant-booksim":
            return int(rng.integers(self.num_switches))
        mid, stride = 0, 1
        for k in self.dims:
            a, b = (src // stride) % k, (dst // stride) % k
            lo, hi = (a, b) if a <= b else (b, a)
            mid += stride * (lo + int(rng.integers(hi - lo + 1)))
            stride *= k
        return mid

    def segment(self, src: int, dst: int) -> np.ndarray:
        """Switches of the dimension-order route ``src .. dst`` (checked against the
        topology's links; cached)."""
        key = (src, dst)
        sw = self._seg.get(key)
        if sw is None:
            sw = np.asarray(dor_mesh_path(self.dims, src, dst), dtype=np.int32)
            if len(sw) > 1 and np.any(self.view.entry(sw[:-1], sw[1:]) < 0):
                raise RoutingError(f"the mesh has no link on the dimension-order route {src}->{dst}: the topology "
                                   f"is not a full {'x'.join(map(str, self.dims))} mesh")
            self._seg[key] = sw
        return sw

    def path_via(self, src: int, mid: int, dst: int):
        """Switches and VCs of the path through ``mid``: VC 0 up to ``mid``, VC 1 after."""
        a, b = self.segment(src, mid), self.segment(mid, dst)
        vcs = np.concatenate([np.zeros(len(a) - 1, np.int16), np.ones(len(b) - 1, np.int16)])
        return np.concatenate([a, b[1:]]).astype(np.int32), vcs

    def path(self, src: int, dst: int, rng=None):
        """The path of one packet (a draw).  A packet to its own router goes through the
        intermediate too, as BookSim routes it (``routes_self``): a ``valiant-booksim`` loop
        out and back, a ``romm`` packet's quadrant is its router."""
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        return self.path_via(src, self.draw_intermediate(src, dst, rng), dst)

    # ------------------------------------------------------------ deadlock check
    def describe_check(self) -> str:
        return ("superset of the two-phase dependencies: every dimension-order route on VC 0 and on VC 1, "
                "and every junction from a VC-0 route ending at a router to a VC-1 route leaving it")

    def dependency_chunks(self, pairs=None):
        """The superset of the module docs; ``pairs`` is ignored."""
        n, v = self.num_switches, self.num_vcs
        a_list, b_list = [], []
        ends: dict[int, set] = {}
        starts: dict[int, set] = {}
        for s in range(n):
            for d in range(n):
                if s == d:
                    continue
                sw = self.segment(s, d)
                e = np.asarray(self.view.entry(sw[:-1], sw[1:]), dtype=np.int64)
                for vc in (0, 1):
                    ch = e * v + vc
                    a_list.append(ch[:-1])
                    b_list.append(ch[1:])
                ends.setdefault(d, set()).add(int(e[-1]) * v)
                starts.setdefault(s, set()).add(int(e[0]) * v + 1)
        yield phase_joined(a_list, b_list, ends, starts)

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "phase"
        return md


def romm(topology, *, seed=None, num_vcs: int | None = None) -> PhaseRouting:
    """BookSim2's ``romm`` (``romm_mesh``) on topogen's ``mesh``: a random intermediate in
    the minimal quadrant, dimension order to it and on to the destination, VC 0 / VC 1 by
    phase (module docs).

    Raises
    ------
    ParameterError
        Not a mesh, or ``num_vcs`` other than 2.
    """
    two_vcs("romm", num_vcs)
    return PhaseRouting(topology, "romm", seed=seed)


def valiant_booksim(topology, *, seed=None, num_vcs: int | None = None) -> PhaseRouting:
    """BookSim2's ``valiant`` on a mesh (``valiant_mesh``): a random intermediate router
    (any, source and destination included), dimension order to it and on, VC 0 / VC 1 by
    phase (module docs).  topogen's ``valiant`` differs: its intermediate is neither source
    nor destination and its VCs are hop-indexed.

    Raises
    ------
    ParameterError
        Not a mesh, or ``num_vcs`` other than 2.
    """
    two_vcs("valiant-booksim", num_vcs)
    return PhaseRouting(topology, "valiant-booksim", seed=seed)


def phase_joined(a_list: list, b_list: list, ends: dict, starts: dict):
    """The channel dependencies of two-phase routes: the hops within each phase (``a_list``
    -> ``b_list``) and, at every router ``m`` where a phase ends, each last channel of a
    first phase ending there (``ends[m]``) -> each first channel of a second phase starting
    there (``starts[m]``).  Returns ``(channels, a, b)`` as the dependency graph takes them."""
    for m, last in ends.items():
        first = np.fromiter(starts.get(m, ()), dtype=np.int64)
        for x in last:
            a_list.append(np.full(len(first), x, dtype=np.int64))
            b_list.append(first)
    a = np.concatenate(a_list) if a_list else np.zeros(0, np.int64)
    b = np.concatenate(b_list) if b_list else np.zeros(0, np.int64)
    return np.unique(np.concatenate([a, b])), a, b


def two_vcs(name: str, num_vcs, unit: str = "phase") -> None:
    """Refuse a VC count other than the two classes (one per ``unit``) of a two-class routing."""
    if num_vcs not in (None, 2):
        raise ParameterError(f"{name} has one VC class per {unit}: 2 routing VCs (the simulator shares a "
                             f"port's VCs out over them, as BookSim halves them), got vcs={num_vcs}")
