"""Placing a topology on a floor: the :class:`Layout` and the placement methods.

Placement methods (Skywalk III-A):

``sequential``
    Switch ``v`` goes to cabinet ``v // z``: switches in the topology's canonical order,
    as in production deployments of Torus and Hypercube.
``native``
    The cabinets the generator assigned (Skywalk, Dragonfly, HyperX are defined on the
    cabinet layout); requires ``topology.cabinet``.
``random``
    A uniformly random assignment of switches to cabinet slots (seeded); the paper's
    "arbitrary" assignment for Random.  Sequential placement of a random graph is also
    arbitrary, and is what ``auto`` picks, so that the layout depends on one seed only.
``auto``
    ``native`` when the topology has a native placement, otherwise ``sequential``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .._rng import make_rng, resolve_seed
from .._validate import check_int
from ..errors import ParameterError
from ..topology import Topology
from .floor import Floor

from .names import PLACEMENTS  # noqa: E402 (the one list, light for the command line)


@dataclass(frozen=True, eq=False)
class Layout:
    """A topology placed on a floor.

    Attributes
    ----------
    topology : Topology
    floor : Floor
    cabinet : ndarray of int64, shape (N,)
        Cabinet of each switch.
    placement : str
        How the cabinets were chosen.
    seed : int or None
        Seed of a random placement.
    """

    topology: Topology
    floor: Floor
    cabinet: np.ndarray
    placement: str = "custom"
    seed: int | None = None

    def __post_init__(self):
        cab = np.asarray(self.cabinet, dtype=np.int64)
        n = self.topology.num_switches
        if cab.shape != (n,):
            raise ParameterError(f"cabinet must list one cabinet per switch ({n}), got shape {cab.shape}")
        if n and (cab.min() < 0 or cab.max() >= self.floor.cabinets):
            raise ParameterError(
                f"cabinet indices must lie in [0, {self.floor.cabinets - 1}] for this floor, "
                f"found {int(cab.min())}..{int(cab.max())}"
            )
        load = np.bincount(cab, minlength=self.floor.cabinets)
        if load.max(initial=0) > self.floor.switches_per_cabinet:
            k = int(np.argmax(load))
            raise ParameterError(
                f"cabinet {k} holds {int(load[k])} switches but the floor allows "
                f"switches_per_cabinet={self.floor.switches_per_cabinet}"
            )
        cab.setflags(write=False)
        object.__setattr__(self, "cabinet", cab)

    @functools.cached_property
    def cable_length(self) -> np.ndarray:
        """Length of each link's cable in metres, in ``topology.edges`` order."""
        e = self.topology.edges
        return self.floor.cable_length(self.cabinet[e[:, 0]], self.cabinet[e[:, 1]]).astype(float)

    @property
    def link_delay(self) -> np.ndarray:
        """Propagation delay of each link in ns."""
        return self.cable_length * self.floor.ns_per_meter

    @functools.cached_property
    def is_intra(self) -> np.ndarray:
        """True for links whose two switches share a cabinet."""
        e = self.topology.edges
        return self.cabinet[e[:, 0]] == self.cabinet[e[:, 1]]

    @property
    def total_cable_length(self) -> float:
        """Sum of all cable lengths in metres."""
        return float(self.cable_length.sum())

    def cabinet_position(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of each switch's cabinet."""
        return self.floor.position(self.cabinet)

    def metadata(self) -> dict:
        return {
            **self.topology.metadata(),
            "floor": self.floor.to_dict(),
            "placement": self.placement,
            "placement_seed": self.seed,
        }


def place(topology: Topology, floor: Floor, method: str = "auto", *, seed=None) -> Layout:
    """Place ``topology`` on ``floor``.

    Parameters
    ----------
    topology : Topology
    floor : Floor
        Must hold at least ``topology.num_switches`` switches.
    method : {"auto", "sequential", "native", "random"}
        See the module docstring.
    seed : int, optional
        Seed of the ``random`` method.

    Raises
    ------
    ParameterError
        Unknown method, a floor too small, or ``native`` on a topology without one.
    """
    n = topology.num_switches
    if method not in PLACEMENTS:
        raise ParameterError(f"placement must be one of {', '.join(PLACEMENTS)}, got {method!r}")
    if n > floor.capacity:
        raise ParameterError(
            f"{n} switches do not fit on a floor of {floor.cabinets} cabinets x "
            f"{floor.switches_per_cabinet} switches = {floor.capacity}; "
            f"use at least {-(-n // floor.switches_per_cabinet)} cabinets"
        )
    if method == "auto":
        method = "native" if topology.cabinet is not None else "sequential"
    if method == "native":
        if topology.cabinet is None:
            raise ParameterError(
                f"{topology.name} has no native placement; use placement 'sequential' or 'random'"
            )
        return Layout(topology, floor, topology.cabinet, "native")
    if method == "sequential":
        return Layout(topology, floor, np.arange(n) // floor.switches_per_cabinet, "sequential")
    seed = resolve_seed(seed)
    rng = make_rng(seed)
    slots = rng.permutation(floor.capacity)[:n]
    return Layout(topology, floor, slots // floor.switches_per_cabinet, "random", seed)


def _slimfly_floor(topology: Topology) -> Floor:
    return Floor.slimfly(int(topology.params["q"]))


#: Families whose paper defines their own machine room: generator name -> floor of a
#: topology.  Used by :func:`default_floor` when no cabinet sizes are given.
NATIVE_FLOORS = {"slimfly": _slimfly_floor}


def default_floor(topology: Topology, *, switches_per_cabinet: int | None = None,
                  cabinets: int | None = None) -> Floor:
    """The floor a topology is laid out on when none is given.

    A family whose paper defines its own machine room (:data:`NATIVE_FLOORS`: Slim Fly's
    racks, Besta & Hoefler VI-A) gets that floor unless ``switches_per_cabinet`` or
    ``cabinets`` is given.  Otherwise the Skywalk floor (III-A) with, in order:
    explicit ``switches_per_cabinet``/``cabinets``; the generator's own
    ``switches_per_cabinet``/``cabinets`` parameters (Skywalk, Dragonfly, HyperX and
    Torus on cabinets record them); the largest native cabinet index; otherwise
    ``switches_per_cabinet = 8`` (the Skywalk paper's z) and as many cabinets as needed.
    """
    native = NATIVE_FLOORS.get(topology.name)
    if native is not None and switches_per_cabinet is None and cabinets is None:
        return native(topology)
    p = topology.params
    if switches_per_cabinet is not None:
        switches_per_cabinet = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    if cabinets is not None:
        cabinets = check_int("cabinets", cabinets, 1)
    z = switches_per_cabinet if switches_per_cabinet is not None else p.get("switches_per_cabinet")
    c = cabinets if cabinets is not None else p.get("cabinets")
    if z is None and topology.cabinet is not None:
        z = int(np.bincount(topology.cabinet).max())
    if z is None:
        z = 8
    if c is None:
        c = int(topology.cabinet.max()) + 1 if topology.cabinet is not None else -(-topology.num_switches // z)
    return Floor.skywalk(int(c), int(z))


def default_layout(topology: Topology, *, switches_per_cabinet: int | None = None,
                   cabinets: int | None = None, placement: str = "auto", seed=None) -> Layout:
    """:func:`place` on :func:`default_floor`."""
    floor = default_floor(topology, switches_per_cabinet=switches_per_cabinet, cabinets=cabinets)
    return place(topology, floor, placement, seed=seed)
