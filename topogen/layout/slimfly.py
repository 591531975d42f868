"""The Slim Fly machine room: racks of routers (Besta & Hoefler, Sections VI-A, VI-B).

Geometry and cable model (Section VI-B, "Cost Model"):

* routers and their endpoints stand in racks of 1 x 1 x 2 m (1 m x 1 m footprint,
  2 m tall), routers on top of the racks; racks stand side by side, so neighbouring
  racks are 1 m apart in both floor directions;
* intra-rack cables are 1 m long on average ("the maximum Manhattan distance between
  two routers in a rack is ~2 m and the minimum is 5-10 cm, thus on average intra-rack
  cables are 1 m long");
* an inter-rack (global) cable is the Manhattan distance between the racks plus 2 m of
  overhead per global link ("following [40], we add 2 meters of cable overhead for each
  global link") -- 2 m per link in total, not per end;
* racks form a square or a rectangle close to a square, with the remainder on one side
  (Section VI-A): with ``x = floor(sqrt(R))``, ``y = floor(R / x)`` and
  ``z = R - x y``, the floor is x full rows of y racks plus one row of z racks.
  E.g. q = 19: 4 x 4 + 3.

Partitioning (Section VI-A): rack r holds the subgroup (0, r, ·) and the subgroup
(1, r, ·): q racks of 2q routers.  Every rack then has the same intra-rack cabling
(2 q |X| / 2 + q links: both subgroups' Eq. (1)/(2) links and q Eq. (3) links between
them) and every pair of racks is joined by 2q global cables.  The paper's alternative,
one subgroup per rack (2q racks of q routers), is ``racks="subgroup"``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..errors import ParameterError
from ..topology import Topology
from .floor import Floor, rack_grid, slimfly_floor  # noqa: F401 (public here too)
from .placement import Layout

__all__ = ["slimfly_floor", "slimfly_layout", "rack_grid"]


def slimfly_layout(
    topology: Topology,
    floor: Floor | None = None,
    *,
    racks: Literal["paired", "subgroup"] = "paired",
) -> Layout:
    """Place a Slim Fly on its rack floor (Section VI-A).

    Parameters
    ----------
    topology : Topology
        A topology made by :func:`topogen.generators.slimfly.slimfly` (its ``q``
        parameter and router numbering ``s*q*q + x*q + y`` are used).
    floor : Floor, optional
        Default ``slimfly_floor(q, racks=racks)``.
    racks : {"paired", "subgroup"}
        ``"paired"``: router (0, x, y) goes to rack x and (1, m, c) to rack m.
        ``"subgroup"``: router (s, x, y) goes to rack ``2x + s``, so the two subgroups
        with the same index stand side by side (subgroups of the same s share no links,
        so alternating them shortens global cables, Fig. 10 step 2).

    Returns
    -------
    Layout
        ``placement`` is ``"slimfly-paired"`` or ``"slimfly-subgroup"``.

    Raises
    ------
    ParameterError
        If ``topology`` is not a Slim Fly, or the floor is too small.
    """
    q = topology.params.get("q") if topology.name == "slimfly" else None
    if q is None or topology.num_switches != 2 * int(q) ** 2:
        raise ParameterError(
            f"slimfly_layout needs a topology made by slimfly(q), got {topology.describe()}; "
            "use topogen.place for other topologies"
        )
    q = int(q)
    if racks not in ("paired", "subgroup"):
        raise ParameterError(f"racks must be 'paired' or 'subgroup', got {racks!r}")
    if floor is None:
        floor = slimfly_floor(q, racks=racks)
    v = np.arange(topology.num_switches, dtype=np.int64)
    s, x = v // (q * q), (v // q) % q
    cabinet = x if racks == "paired" else 2 * x + s
    if int(cabinet.max()) >= floor.cabinets:
        raise ParameterError(
            f"the {racks} Slim Fly layout of q={q} needs {int(cabinet.max()) + 1} racks, "
            f"the floor has cabinets={floor.cabinets}"
        )
    return Layout(topology, floor, cabinet, f"slimfly-{racks}")
