"""Moore bounds: the most switches a degree/diameter allows, and the least average
distance a size/degree allows.

* :func:`moore_bound` -- ``1 + d * sum_{i<D} (d-1)^i`` vertices for degree d and
  diameter D (Slim Fly II-A; MEMSYS '16 Section 1.1 "Moore Graphs" and Table 1).
* :func:`moore_diameter_bound` -- the smallest diameter any graph with N vertices and
  maximum degree d can have.
* :func:`aspl_lower_bound` -- the Cerf et al. lower bound on the average shortest path
  length of a graph with N vertices and maximum degree d (the "Moore bound on the
  average distance"): BFS levels filled greedily, ``d (d-1)^(i-1)`` vertices at
  distance i, until all ``N - 1`` other vertices are placed.
* :func:`moore_bound_table` -- MEMSYS '16 Table 1 (bounds vs largest known graphs),
  recomputed beside the printed values.
* :func:`bdf_size`, :func:`delorme_size` -- degree and order of the diameter-3
  Bermond-Delorme-Farhi and Delorme graphs of Slim Fly Section II-C (sizes only: the
  graphs themselves are not built, see ``docs/topologies/moore.md``).

All counts are exact Python integers (they overflow int64 quickly).
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from .._validate import check_int
from ..errors import ParameterError

__all__ = [
    "moore_bound",
    "moore_diameter_bound",
    "aspl_lower_bound",
    "moore_bound_table",
    "MEMSYS16_TABLE1",
    "bdf_size",
    "delorme_size",
]


def moore_bound(degree: int, diameter: int) -> int:
    """The Moore bound: the most vertices a graph of maximum degree d and diameter D has.

    Parameters
    ----------
    degree : int
        Maximum degree d (network radix k' in Slim Fly), >= 1.
    diameter : int
        Diameter D, >= 0.

    Returns
    -------
    int
        ``1 + d * sum_{i=0}^{D-1} (d-1)^i`` (exact); ``2D + 1`` for d = 2; 2 for d = 1,
        D >= 1; 1 for D = 0.

    Raises
    ------
    ParameterError
        If degree < 1 or diameter < 0.

    Notes
    -----
    Slim Fly (Besta & Hoefler) Section II-A: ``N_r = 1 + k' sum_{i=0}^{D-1} (k'-1)^i``;
    for D = 2 this is ``1 + k'^2``.  MEMSYS '16 Section 1.1 and Table 1 ("Max").

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly", SC'14, Section II-A.
    .. [2] S. Li et al., MEMSYS '16, Section 1.1, Table 1.
    .. [3] M. Miller, J. Širáň, "Moore graphs and beyond: A survey of the
       degree/diameter problem", Electron. J. Combin. DS14 (2013).
    """
    d = check_int("degree", degree, 1)
    D = check_int("diameter", diameter, 0)
    return 1 + d * sum((d - 1) ** i for i in range(D))


def moore_diameter_bound(num_vertices: int, degree: int) -> int:
    """The least diameter a connected graph with N vertices and maximum degree d can
    have: the smallest D with ``moore_bound(d, D) >= N``.

    Parameters
    ----------
    num_vertices : int
        N >= 1.
    degree : int
        d >= 1 (d = 1 allows N <= 2 only).

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        If N < 1, d < 1, or d = 1 with N > 2 (no connected graph exists).
    """
    n = check_int("num_vertices", num_vertices, 1)
    d = check_int("degree", degree, 1)
    if d == 1 and n > 2:
        raise ParameterError(
            f"no connected graph of degree 1 has num_vertices={n} > 2; use degree >= 2 or num_vertices <= 2"
        )
    D = 0
    while moore_bound(d, D) < n:
        D += 1
    return D


def aspl_lower_bound(num_vertices: int, degree: int, *, exact: bool = False):
    """The Cerf et al. lower bound on the average shortest path length.

    Parameters
    ----------
    num_vertices : int
        N >= 1.
    degree : int
        Maximum degree d >= 1 (d = 1 allows N <= 2 only).
    exact : bool
        Return a :class:`fractions.Fraction` instead of a float.

    Returns
    -------
    float or Fraction
        The mean, over ordered pairs of distinct vertices, of the distance in a graph
        whose BFS tree from every vertex is as full as the Moore bound allows: at most
        ``d (d-1)^(i-1)`` vertices at distance i, levels filled greedily.
        0 for N = 1.

    Raises
    ------
    ParameterError
        If N < 1, d < 1, or d = 1 with N > 2.

    Notes
    -----
    From any vertex at most ``d (d-1)^(i-1)`` vertices lie at distance i, so the sum of
    distances from it is at least the sum obtained by filling distance 1, 2, ... to
    capacity until N - 1 vertices are placed.  A Moore graph attains the bound (e.g.
    Petersen: (3 * 1 + 6 * 2)/9 = 5/3).  Used as the reference for average hops of
    low-diameter topologies (Slim Fly III-B, Fig. 1; MEMSYS '16 Section 3).

    References
    ----------
    .. [1] V. G. Cerf, D. D. Cowan, R. C. Mullin, R. G. Stanton, "A lower bound on the
       average shortest path length in regular graphs", Networks 4(4), 1974.
    """
    n = check_int("num_vertices", num_vertices, 1)
    d = check_int("degree", degree, 1)
    if n == 1:
        return Fraction(0) if exact else 0.0
    if d == 1 and n > 2:
        raise ParameterError(
            f"no connected graph of degree 1 has num_vertices={n} > 2; use degree >= 2 or num_vertices <= 2"
        )
    remaining, total, level, cap = n - 1, 0, 1, d
    while remaining:
        take = min(cap, remaining)
        total += level * take
        remaining -= take
        level += 1
        cap *= d - 1
    value = Fraction(total, n - 1)
    return value if exact else float(value)


# MEMSYS '16 Table 1 as printed: ports -> ((Max, Real, Diff) for diameter 2, 3, 4).
# "Real" is the largest known graph (degree-diameter table, MEMSYS ref [20]); paper data.
MEMSYS16_TABLE1 = {
    3: ((10, 10, "="), (22, 20, "1.1"), (46, 38, "1.2")),
    4: ((17, 15, "1.1"), (53, 41, "1.3"), (161, 96, "1.7")),
    5: ((26, 24, "1.1"), (106, 72, "1.5"), (426, 210, "2.0")),
    6: ((37, 32, "1.2"), (187, 110, "1.7"), (937, 390, "2.4")),
    7: ((50, 50, "="), (302, 168, "1.8"), (1814, 672, "2.7")),
    8: ((65, 57, "1.1"), (457, 253, "1.8"), (3201, 1100, "2.9")),
    9: ((82, 74, "1.1"), (658, 585, "1.1"), (5266, 1550, "3.4")),
    10: ((101, 91, "1.1"), (911, 650, "1.4"), (8201, 2286, "3.6")),
    11: ((122, 104, "1.2"), (1222, 715, "1.7"), (12222, 3200, "3.8")),
    12: ((145, 133, "1.1"), (1597, 786, "2.0"), (17569, 4680, "3.8")),
    13: ((170, 162, "1.0"), (2042, 851, "2.4"), (24506, 6560, "3.7")),
    14: ((197, 183, "1.1"), (2563, 916, "2.8"), (33321, 8200, "4.1")),
    15: ((226, 186, "1.2"), (3166, 1215, "2.6"), (4432, 11712, "3.8")),
    16: ((257, 198, "1.3"), (3857, 1600, "2.4"), (57857, 14640, "4.0")),
}


def _diff(bound: int, known: int) -> str:
    return "=" if bound == known else f"{bound / known:.1f}"


def moore_bound_table() -> pd.DataFrame:
    """MEMSYS '16 Table 1 ("Moore Graphs: Bounds vs. Largest Known"), recomputed.

    Returns
    -------
    DataFrame
        One row per (ports, diameter) for ports 3..16 and diameters 2, 3, 4, with
        columns ``ports``, ``diameter``, ``moore_bound`` (computed, :func:`moore_bound`),
        ``paper_max`` (printed "Max"), ``largest_known`` (printed "Real": the largest
        known graph, paper data), ``computed_diff`` (computed ``moore_bound / largest_known`` to
        one decimal, "=" when equal, as the paper prints it), ``paper_diff`` (printed
        "Diff") and ``agrees`` (computed Max and Diff equal the printed ones).

    Notes
    -----
    Every printed "Max" equals the computed Moore bound except ports 15, diameter 4:
    the paper prints 4432, the bound is 44,326 (a digit lost in typesetting: the
    printed Diff 3.8 = 44,326 / 11,712, whereas 4,432 would be below the 11,712-vertex
    known graph, which is impossible).  That row has ``agrees = False``.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Table 1.
    """
    rows = []
    for ports, cells in MEMSYS16_TABLE1.items():
        for diameter, (pmax, known, pdiff) in zip((2, 3, 4), cells):
            bound = moore_bound(ports, diameter)
            diff = _diff(bound, known)
            rows.append(
                dict(
                    ports=ports, diameter=diameter, moore_bound=bound, paper_max=pmax,
                    largest_known=known, computed_diff=diff, paper_diff=pdiff,
                    agrees=(bound == pmax and diff == pdiff),
                )
            )
    return pd.DataFrame(rows)


def bdf_size(u: int) -> tuple[int, int]:
    """Degree and order of the Bermond–Delorme–Farhi diameter-3 graph ``P_u * G``.

    Parameters
    ----------
    u : int
        An odd prime power.

    Returns
    -------
    tuple of (int, int)
        ``(k', N_r)`` with ``k' = 3(u + 1)/2`` and
        ``N_r = (8/27) k'^3 - (4/9) k'^2 + (2/3) k' = (u + 1)(u^2 + u + 1)``.

    Raises
    ------
    ParameterError
        If u is not an odd prime power (the message names the nearest ones).

    Notes
    -----
    Slim Fly (Besta & Hoefler) Section II-C.  The closed form ``(u+1)(u^2+u+1)`` is
    the paper's cubic with ``k' = 3(u+1)/2`` substituted: the polarity graph P_u has
    ``u^2 + u + 1`` vertices, so the second factor has ``u + 1``.  The paper's "BDF
    graphs achieve 30% of the Moore bound" is the ratio ``N_r / moore_bound(k', 3)``,
    0.28 (u = 3) rising to 0.295 (u = 61, k' = 93) towards 8/27.

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly", SC'14, Section II-C, Fig. 5b.
    .. [2] J. Bermond, C. Delorme, G. Farhi, "Large graphs with given degree and
       diameter III", Annals of Discrete Mathematics 13 (1982).
    """
    from ..gf import check_prime_power

    check_prime_power("u", u, predicate=lambda n: n % 2 == 1, minimum=3, what="an odd prime power")
    u = int(u)
    k = 3 * (u + 1) // 2
    n = Fraction(8, 27) * k**3 - Fraction(4, 9) * k**2 + Fraction(2, 3) * k
    assert n == (u + 1) * (u * u + u + 1)
    return k, int(n)


def delorme_size(v: int) -> tuple[int, int]:
    """Degree and order of Delorme's diameter-3 graph for the prime power v.

    Parameters
    ----------
    v : int
        A prime power.

    Returns
    -------
    tuple of (int, int)
        ``(k', N_r) = ((v + 1)^2, (v + 1)^2 (v^2 + 1)^2)``.

    Raises
    ------
    ParameterError
        If v is not a prime power (the message names the nearest ones).

    Notes
    -----
    Slim Fly Section II-C ("Delorme (DEL) graphs [24] characterized by
    N_r = (v+1)^2 (v^2+1)^2 and k' = (v+1)^2").  The paper's "68% of the Moore bound"
    is v = 9 (k' = 100): 672,400 / 990,101 = 0.679; the ratio grows with v towards 1.

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly", SC'14, Section II-C, Fig. 5b.
    .. [2] C. Delorme, "Grands graphes de degré et diamètre donnés", European J.
       Combin. 6 (1985).
    """
    from ..gf import check_prime_power

    check_prime_power("v", v)
    v = int(v)
    return (v + 1) ** 2, (v + 1) ** 2 * (v * v + 1) ** 2
