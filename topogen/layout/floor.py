"""The machine-room floor: a grid of cabinets and the cable model.

Defaults follow Skywalk (Fujiwara et al.) Section III-A, which the layout-conscious
random topologies paper (Koibuchi et al., Section III-D) shares:

* cabinets are 0.6 m wide and 2.1 m deep (aisle included);
* ``c`` cabinets stand in ``x = ceil(sqrt(c))`` rows by ``y = ceil(c / x)`` columns;
  cabinet ``k`` stands in row ``k // y``, column ``k % y`` (row-major, cabinets of a
  row side by side, so neighbours in a row are 0.6 m apart and rows are 2.1 m apart);
* a cable inside a cabinet is 2 m long;
* a cable between cabinets is the Manhattan distance between them plus 4 m
  (2 m of overhead at each end);
* signals travel at 5 ns/m.

With these constants the total cable lengths of Skywalk Fig. 5 (Torus 31 km,
Hypercube 80 km, Dragonfly 615 km, HyperX 372 km at 2,048 switches in 256 cabinets)
come out exactly; ``tests/layout/test_floor.py`` checks them.

Every constant is a field, so other papers' floors are one constructor away
(:meth:`Floor.skywalk`, :meth:`Floor.dsn` for 16 switches per cabinet; the Slim Fly
rack floor is :meth:`Floor.slimfly`, :func:`slimfly_floor`; its placement is in
:mod:`topogen.layout.slimfly`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, asdict
from typing import Literal

import numpy as np

from ..errors import ParameterError
from ..gf import check_slimfly_q
from ..topology import MAX_IDS


#: Most cabinets (and rows or columns of cabinets) a floor may have.  Machine rooms hold
#: hundreds to a few thousand; per-cabinet arrays (loads, positions) are built from this
#: number, so a floor read from a file with ``cabinets = 1e12`` is refused before them.
MAX_CABINETS = 10**7


def _positive_int(name, value, minimum=1, maximum=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ParameterError(f"{name} must be an integer in [{minimum}, {maximum:,}], got {int(value):,}; "
                             "a machine room holds far fewer cabinets")
    return int(value)


def _nonneg_float(name, value):
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a non-negative number, got {value!r}") from None
    if not math.isfinite(f) or f < 0:
        raise ParameterError(f"{name} must be a non-negative finite number, got {value!r}")
    return f


@dataclass(frozen=True)
class Floor:
    """A grid of cabinets on a machine-room floor and its cable model.

    Parameters
    ----------
    cabinets : int
        Number of cabinets c.
    switches_per_cabinet : int
        Capacity z of a cabinet, in switches.
    rows, columns : int, optional
        Grid shape; by default ``rows = ceil(sqrt(c))`` and ``columns = ceil(c / rows)``
        (Skywalk III-A).
    cabinet_width : float
        Spacing of neighbouring cabinets within a row, in metres (0.6).
    cabinet_depth : float
        Spacing of neighbouring rows, in metres, aisle included (2.1).
    intra_cable : float
        Length of a cable between two switches of one cabinet, in metres (2).
    inter_overhead : float
        Length added to the Manhattan distance of a cable between cabinets, both ends
        together, in metres (4 = 2 m at each end).
    ns_per_meter : float
        Propagation delay of a cable (5 ns/m).
    name : str
        Label recorded in exports.
    """

    cabinets: int
    switches_per_cabinet: int
    rows: int | None = None
    columns: int | None = None
    cabinet_width: float = 0.6
    cabinet_depth: float = 2.1
    intra_cable: float = 2.0
    inter_overhead: float = 4.0
    ns_per_meter: float = 5.0
    name: str = "grid"

    def __post_init__(self):
        c = _positive_int("cabinets", self.cabinets, maximum=MAX_CABINETS)
        _positive_int("switches_per_cabinet", self.switches_per_cabinet, maximum=MAX_IDS)
        rows = self.rows if self.rows is not None else math.isqrt(c - 1) + 1 if c > 1 else 1
        rows = _positive_int("rows", rows, maximum=MAX_CABINETS)
        cols = self.columns if self.columns is not None else -(-c // rows)
        cols = _positive_int("columns", cols, maximum=MAX_CABINETS)
        if rows * cols < c:
            raise ParameterError(
                f"a {rows} x {cols} grid holds {rows * cols} cabinets, fewer than cabinets={c}; "
                "enlarge rows or columns"
            )
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "columns", cols)
        for name in ("cabinet_width", "cabinet_depth", "intra_cable", "inter_overhead", "ns_per_meter"):
            object.__setattr__(self, name, _nonneg_float(name, getattr(self, name)))

    # -------------------------------------------------------------- constructors
    @classmethod
    def skywalk(cls, cabinets: int, switches_per_cabinet: int, **kw) -> "Floor":
        """The floor of Skywalk III-A (and of the layout-conscious paper III-D)."""
        return cls(cabinets, switches_per_cabinet, name=kw.pop("name", "skywalk"), **kw)

    @classmethod
    def for_switches(cls, num_switches: int, switches_per_cabinet: int, **kw) -> "Floor":
        """The smallest Skywalk-style floor that holds ``num_switches`` switches."""
        n = _positive_int("num_switches", num_switches)
        z = _positive_int("switches_per_cabinet", switches_per_cabinet)
        return cls(-(-n // z), z, **kw)

    @classmethod
    def dsn(cls, num_switches: int, switches_per_cabinet: int = 16, **kw) -> "Floor":
        """DSN-F's floor (Truong et al. IV-C): 16 switches per cabinet, Skywalk cable model."""
        return cls.for_switches(num_switches, switches_per_cabinet, name=kw.pop("name", "dsn"), **kw)

    @classmethod
    def slimfly(cls, q: int, **kw) -> "Floor":
        """The Slim Fly rack floor (Besta & Hoefler VI-A/VI-B); see
        :func:`slimfly_floor`."""
        return slimfly_floor(q, **kw)

    # -------------------------------------------------------------- geometry
    @property
    def capacity(self) -> int:
        """Switches the floor holds."""
        return self.cabinets * self.switches_per_cabinet

    def position(self, cabinet) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of each cabinet index (row-major numbering)."""
        k = np.asarray(cabinet, dtype=np.int64)
        return k // self.columns, k % self.columns

    def distance(self, cab_a, cab_b) -> np.ndarray:
        """Manhattan distance in metres between cabinets (0 for the same cabinet)."""
        ra, ca = self.position(cab_a)
        rb, cb = self.position(cab_b)
        return np.abs(ra - rb) * self.cabinet_depth + np.abs(ca - cb) * self.cabinet_width

    def cable_length(self, cab_a, cab_b) -> np.ndarray:
        """Cable length in metres between switches in cabinets ``cab_a`` and ``cab_b``."""
        same = np.asarray(cab_a) == np.asarray(cab_b)
        return np.where(same, self.intra_cable, self.distance(cab_a, cab_b) + self.inter_overhead)

    @property
    def max_distance(self) -> float:
        """``l_max`` of Skywalk III-G: the Manhattan diagonal of the floor, corner cabinet
        to corner cabinet, overhead excluded."""
        return (self.rows - 1) * self.cabinet_depth + (self.columns - 1) * self.cabinet_width

    def distance_matrix(self) -> np.ndarray:
        """c x c matrix of inter-cabinet cable lengths (intra cable on the diagonal)."""
        k = np.arange(self.cabinets)
        return self.cable_length(k[:, None], k[None, :])

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Floor":
        """The floor of :meth:`to_dict`'s dict (e.g. read from a file); the counts are
        checked (``cabinets`` at most :data:`MAX_CABINETS`) before anything is built."""
        if not isinstance(d, dict):
            raise ParameterError(f"a floor is an object of its fields, got {type(d).__name__}")
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in known})


# ---------------------------------------------------------------- the Slim Fly rack floor

def rack_grid(num_racks: int) -> tuple[int, int, int]:
    """``(x, y, z)``: x full rows of y racks plus z racks on one side (Slim Fly VI-A).

    ``x = floor(sqrt(R))``, ``y = floor(R / x)``, ``z = R - x y`` (so ``0 <= z < x <= y``).
    """
    if isinstance(num_racks, bool) or not isinstance(num_racks, (int, np.integer)) or num_racks < 1:
        raise ParameterError(f"num_racks must be an integer >= 1, got {num_racks!r}")
    r = int(num_racks)
    x = math.isqrt(r)
    y = r // x
    return x, y, r - x * y


def slimfly_floor(
    q: int,
    *,
    racks: Literal["paired", "subgroup"] = "paired",
    rows: int | None = None,
    columns: int | None = None,
    ns_per_meter: float = 5.0,
) -> Floor:
    """The Slim Fly rack floor for the MMS graph of field order q.

    Parameters
    ----------
    q : int
        Field order (validated as for :func:`topogen.generators.slimfly.slimfly`).
    racks : {"paired", "subgroup"}
        ``"paired"`` (the paper's layout): q racks of 2q routers, rack r holding the
        subgroups (0, r, ·) and (1, r, ·).  ``"subgroup"``: 2q racks of q routers, one
        subgroup each (the alternative the paper mentions for q = 19).
    rows, columns : int, optional
        Override the near-square grid of :func:`rack_grid`.
    ns_per_meter : float
        Propagation delay (not given by the Slim Fly paper; the project's 5 ns/m).

    Returns
    -------
    Floor
        ``cabinet_width = cabinet_depth = 1`` m, ``intra_cable = 1`` m,
        ``inter_overhead = 2`` m, named ``"slimfly"``.

    Raises
    ------
    ParameterError
        Invalid q, unknown ``racks``, or a grid too small.

    Notes
    -----
    Besta & Hoefler Section VI-A (partitioning, near-square arrangement) and VI-B
    (1 x 1 x 2 m racks, 1 m average intra-rack cable, Manhattan distance + 2 m overhead
    per global link).

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly", SC'14 (arXiv version), Sections VI-A, VI-B.
    """
    q = check_slimfly_q(q)
    if racks not in ("paired", "subgroup"):
        raise ParameterError(f"racks must be 'paired' or 'subgroup', got {racks!r}")
    count, size = (q, 2 * q) if racks == "paired" else (2 * q, q)
    if rows is None and columns is None:
        x, y, z = rack_grid(count)
        rows, columns = x + (z > 0), y
    return Floor(
        count, size, rows=rows, columns=columns, cabinet_width=1.0, cabinet_depth=1.0,
        intra_cable=1.0, inter_overhead=2.0, ns_per_meter=ns_per_meter, name="slimfly",
    )
