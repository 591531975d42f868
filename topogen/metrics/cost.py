"""Cost and power of a laid-out network (Besta & Hoefler, Slim Fly, Sections VI-B, VI-C).

The model, with the paper's printed constants as defaults (all parameters of
:class:`CostModel`):

* **router** of radix k (network ports plus endpoint ports):
  ``f(k) = 350.4 k - 892.3`` dollars (VI-B2, a linear fit to Mellanox IB FDR10 routers);
* **cable** of length x metres: electric ``0.4079 x + 0.5771`` and optical
  ``0.0919 x + 2.7452`` dollars per Gb/s (VI-B1, Mellanox IB FDR10 40 Gb/s QSFP), times
  the link rate (40 Gb/s);
* which cables are electric (VI-B): intra-rack cables are electric and inter-rack ones
  optical (``cables="rack"``, Slim Fly, Dragonfly, hypercube); or every cable up to
  ``electric_max_m`` is electric (``"length"``, the fat tree's "links shorter than 20
  meters are electrical"); or every cable is an intra-rack-length electric cable
  (``"folded"``, tori: "folded design that do not require optical links");
* cable lengths come from the :class:`~topogen.layout.Layout` (the Slim Fly rack floor:
  1 m average intra-rack cable, Manhattan distance plus 2 m between racks);
* **power** (VI-C): every router port has 4 lanes with one SerDes of 0.7 W per lane.

Endpoint (host) cables are left out by default, as in the paper's Table IV, whose
Dragonfly counts are exactly the router-to-router cables; ``endpoint_cables=True``
adds one electric intra-rack cable per endpoint.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

import numpy as np

from .._validate import check_float
from ..errors import ParameterError
from ..topology import Topology

__all__ = ["CostModel", "CostBreakdown", "network_cost", "CABLE_RULES"]

#: How cables are classified as electric or optical.
CABLE_RULES = ("rack", "length", "folded")


@dataclass(frozen=True)
class CostModel:
    """Constants of the cost and power model (defaults: Slim Fly VI-B, VI-C).

    Parameters
    ----------
    router_dollars_per_port : float
        Slope of the router cost (350.4 $ per port).
    router_dollars_offset : float
        Subtracted from the slope times the radix (892.3 $): ``f(k) = 350.4 k - 892.3``.
    electric_dollars_per_m, electric_dollars_base : float
        Electric cable cost per Gb/s: ``0.4079 x + 0.5771``.
    optical_dollars_per_m, optical_dollars_base : float
        Optical cable cost per Gb/s: ``0.0919 x + 2.7452``.
    link_gbps : float
        Data rate of a cable (40 Gb/s, FDR10).
    lanes_per_port : float
        SerDes lanes per router port (4).
    watts_per_lane : float
        Power of one SerDes (0.7 W).
    cables : {"rack", "length", "folded"}
        Which cables are electric (module notes).
    electric_max_m : float
        Longest electric cable under ``cables="length"`` (20 m).
    endpoint_cables : bool
        Count one electric intra-rack cable per endpoint (False, as Table IV).

    Raises
    ------
    ParameterError
        If a constant is negative (or the link rate zero) or ``cables`` is unknown.
    """

    router_dollars_per_port: float = 350.4
    router_dollars_offset: float = 892.3
    electric_dollars_per_m: float = 0.4079
    electric_dollars_base: float = 0.5771
    optical_dollars_per_m: float = 0.0919
    optical_dollars_base: float = 2.7452
    link_gbps: float = 40.0
    lanes_per_port: float = 4.0
    watts_per_lane: float = 0.7
    cables: Literal["rack", "length", "folded"] = "rack"
    electric_max_m: float = 20.0
    endpoint_cables: bool = False

    def __post_init__(self):
        for f in fields(self):
            if f.name in ("cables", "endpoint_cables"):
                continue
            value = getattr(self, f.name)
            check_float(f.name, value, 0.0, min_open=f.name == "link_gbps",
                        hint="; cost and power constants cannot be negative")
            object.__setattr__(self, f.name, float(value))
        if self.cables not in CABLE_RULES:
            raise ParameterError(f"cables must be one of {', '.join(CABLE_RULES)}, got {self.cables!r}")
        if not isinstance(self.endpoint_cables, (bool, np.bool_)):
            raise ParameterError(f"endpoint_cables must be true or false, got {self.endpoint_cables!r}")

    def router_cost(self, radix) -> np.ndarray:
        """Dollars per router of the given radix (array or scalar).

        Raises
        ------
        ParameterError
            If the model gives a negative price for a radix (a radix below
            ``offset / slope``, 2.5 ports with the paper's fit).
        """
        k = np.asarray(radix, dtype=np.float64)
        cost = self.router_dollars_per_port * k - self.router_dollars_offset
        if np.any(cost < 0):
            low = float(k[cost < 0].min()) if k.ndim else float(k)
            raise ParameterError(
                f"the router cost model {self.router_dollars_per_port} k - "
                f"{self.router_dollars_offset} is negative for radix {low:g}; the linear fit "
                "only holds for larger routers (lower router_dollars_offset)"
            )
        return cost

    def cable_cost(self, length_m, optical) -> np.ndarray:
        """Dollars per cable: (per-metre x length + base) x link rate."""
        x = np.asarray(length_m, dtype=np.float64)
        opt = np.asarray(optical, dtype=bool)
        per_gbps = np.where(
            opt,
            self.optical_dollars_per_m * x + self.optical_dollars_base,
            self.electric_dollars_per_m * x + self.electric_dollars_base,
        )
        return per_gbps * self.link_gbps

    def port_watts(self) -> float:
        """Watts per router port (lanes x SerDes power)."""
        return self.lanes_per_port * self.watts_per_lane

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CostBreakdown:
    """Cost and power of one network (:func:`network_cost`); money in dollars, power in W."""

    routers: int
    endpoints: int
    radix: int
    electric_cables: int
    optical_cables: int
    electric_m: float
    optical_m: float
    router_cost: float
    electric_cost: float
    optical_cost: float
    power_w: float

    @property
    def cable_cost(self) -> float:
        return self.electric_cost + self.optical_cost

    @property
    def total_cost(self) -> float:
        return self.router_cost + self.cable_cost

    @property
    def cost_per_endpoint(self) -> float:
        return self.total_cost / self.endpoints if self.endpoints else math.nan

    @property
    def power_per_endpoint(self) -> float:
        return self.power_w / self.endpoints if self.endpoints else math.nan

    def as_row(self) -> dict[str, Any]:
        """Flat columns (also what :func:`topogen.metrics.analyze` adds)."""
        return {
            "routers": self.routers,
            "endpoints": self.endpoints,
            "radix": self.radix,
            "electric_cables": self.electric_cables,
            "optical_cables": self.optical_cables,
            "electric_m": round(self.electric_m, 3),
            "optical_m": round(self.optical_m, 3),
            "router_cost": self.router_cost,
            "cable_cost": self.cable_cost,
            "total_cost": self.total_cost,
            "cost_per_endpoint": self.cost_per_endpoint,
            "power_w": self.power_w,
            "power_per_endpoint": self.power_per_endpoint,
        }


def network_cost(layout, model: CostModel | None = None, *, radix: int | None = None) -> CostBreakdown:
    """Router, cable and power cost of a laid-out network (Slim Fly VI-B, VI-C).

    Parameters
    ----------
    layout : Layout or Topology
        A Topology is placed with :func:`topogen.layout.default_layout` (the Slim Fly
        rack floor for Slim Flies).
    model : CostModel, optional
        Constants and cable rule; default the paper's.
    radix : int, optional
        Router radix to price and power every router at, whatever its ports (e.g. the
        paper's k = 43 for the q = 19 Slim Fly, whose routers use 29 + 15 = 44 ports).
        Default: identical routers, each with the ports of the busiest router (network
        degree plus endpoints), unused ports included -- they are bought and powered.

    Returns
    -------
    CostBreakdown

    Raises
    ------
    ParameterError
        For a negative constant, a radix the router model prices below zero, or a
        network without endpoints asked per endpoint (NaN is returned then).

    Notes
    -----
    Cable lengths are ``layout.cable_length`` (intra-cabinet length inside a rack,
    Manhattan distance plus the floor's overhead between racks).  Electric/optical:
    ``model.cables`` (module notes).
    """
    from ..layout import Layout, default_layout

    model = CostModel() if model is None else model
    if not isinstance(model, CostModel):
        raise ParameterError(f"model must be a CostModel, got {type(model).__name__}")
    if isinstance(layout, Topology):
        layout = default_layout(layout)
    if not isinstance(layout, Layout):
        raise ParameterError(f"network_cost needs a Layout or Topology, got {type(layout).__name__}")
    topo = layout.topology
    hosts = np.asarray(topo.hosts, dtype=np.int64)
    used = topo.degrees.astype(np.int64) + hosts
    # identical routers: every one has the ports of the busiest (its radix)
    ports = np.full(topo.num_switches, int(used.max(initial=0)), dtype=np.int64)
    if radix is not None:
        if isinstance(radix, bool) or not isinstance(radix, (int, np.integer)) or radix < 1:
            raise ParameterError(f"radix must be a positive integer (ports per router), got {radix!r}")
        ports = np.full(topo.num_switches, int(radix), dtype=np.int64)
    length = np.asarray(layout.cable_length, dtype=np.float64)
    intra = np.asarray(layout.is_intra, dtype=bool)
    if model.cables == "rack":
        optical = ~intra
    elif model.cables == "length":
        optical = length > model.electric_max_m
    else:  # folded: every cable electric and as short as an intra-rack cable
        optical = np.zeros(len(length), dtype=bool)
        length = np.full(len(length), float(layout.floor.intra_cable))
    if model.endpoint_cables:
        n_end = int(hosts.sum())
        length = np.concatenate([length, np.full(n_end, float(layout.floor.intra_cable))])
        optical = np.concatenate([optical, np.zeros(n_end, dtype=bool)])
    cost = model.cable_cost(length, optical)
    return CostBreakdown(
        routers=topo.num_switches,
        endpoints=int(hosts.sum()),
        radix=int(ports.max(initial=0)),
        electric_cables=int((~optical).sum()),
        optical_cables=int(optical.sum()),
        electric_m=float(length[~optical].sum()),
        optical_m=float(length[optical].sum()),
        router_cost=float(model.router_cost(ports).sum()),
        electric_cost=float(cost[~optical].sum()),
        optical_cost=float(cost[optical].sum()),
        power_w=float(ports.sum() * model.port_watts()),
    )
