"""Long Hop on a hypercube (LH-HC): a binary hypercube plus "long hop" links chosen from an
error-correcting code (Tomic; the Slim Fly paper's LH-HC, Besta & Hoefler Section III).

A Long Hop network is a Cayley graph of the group Z_2^d: switch ``x`` (a d-bit number) is
linked to ``x XOR g`` for every generator ``g`` of a generator set ``S``.  With the d unit
vectors ``e_0 .. e_{d-1}`` alone this is the hypercube Q_d; LH-HC adds ``L`` further
generators, the *long hops*.  Write the generators as the columns of the ``d x (d + L)``
matrix ``H = [I_d | A]``.  Two facts make the choice of ``A`` a coding problem:

* the cut ``{x : u.x = 0}`` versus ``{x : u.x = 1}`` (``u`` a non-zero d-bit vector) is
  crossed by the links of exactly the generators with ``u.g = 1``, i.e. by
  ``wt(u H) * 2^d / 2`` links: the smallest such cut is ``w * N / 2`` where ``w`` is the
  minimum distance of the ``[d + L, d]`` code spanned by the rows of ``H``;
* the distance from ``0`` to ``x`` is the smallest number of generators summing to ``x``,
  so the diameter is the covering radius of the code ``ker H``.

The hypercube (``A`` empty) has ``w = 1`` and bisection ``N / 2``.  The Slim Fly paper
(III-C) gives LH-HC "the bandwidth of 3N/2": minimum distance 3, which holds exactly when
the rows of ``A`` are distinct vectors of Z_2^L of weight at least 2 (a shortened Hamming
code), possible iff ``d <= 2^L - L - 1``.

Construction here: row ``i`` of ``A`` is the ``i``-th vector of Z_2^L of weight >= 2 in the
order *heaviest first, then by value*; long hop ``j`` is column ``j`` of ``A`` read as a
d-bit number (bit ``i`` = ``A[i, j]``).  Among the row choices this order reaches the
smallest diameter a seeded search over 60 random distinct row sets finds for
``L = 5, d = 8..13`` (diameters 4, 4, 5, 5, 6, 6).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int, check_topology_memory
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = ["long_hop", "long_hop_generators", "min_long_hops"]

_MAX_DIMENSION = 26


def min_long_hops(dimension: int) -> int:
    """Smallest ``L`` with ``dimension <= 2^L - L - 1``: the fewest long hops that give the
    row code minimum distance 3 (bisection 3N/2)."""
    d = check_int("dimension", dimension, 1)
    L = 1
    while (1 << L) - L - 1 < d:
        L += 1
    return L


def _rows(dimension: int, long_hops: int) -> list[int]:
    vecs = [v for v in range(1 << long_hops) if bin(v).count("1") >= 2]
    vecs.sort(key=lambda v: (-bin(v).count("1"), v))
    return vecs[:dimension]


def _columns(dimension: int, long_hops: int) -> list[int]:
    rows = _rows(dimension, long_hops)
    return [sum(((rows[i] >> j) & 1) << i for i in range(dimension)) for j in range(long_hops)]


def _valid(dimension: int, long_hops: int) -> bool:
    if (1 << long_hops) - long_hops - 1 < dimension:
        return False
    cols = _columns(dimension, long_hops)
    gens = [1 << i for i in range(dimension)] + cols
    return 0 not in cols and len(set(gens)) == len(gens)


def _valid_range(dimension: int) -> list[int]:
    lo = min_long_hops(dimension)
    return [L for L in range(lo, lo + dimension + 2) if _valid(dimension, L)]


def long_hop_generators(dimension: int, long_hops: int | None = None) -> list[int]:
    """The ``dimension + long_hops`` generators of :func:`long_hop` as d-bit numbers: the
    unit vectors ``1 << i`` first, then the long hops.

    Raises
    ------
    ParameterError
        As :func:`long_hop`.
    """
    d = check_int("dimension", dimension, 3, _MAX_DIMENSION,
                  hint="; LH-HC has 2**dimension switches (dimensions 1 and 2 have no long hop "
                       "distinct from the cube links)")
    if long_hops is None:
        L = min_long_hops(d)
    else:
        L = check_int("long_hops", long_hops, 1, 2 * d + 2)
        if not _valid(d, L):
            ok = _valid_range(d)
            raise ParameterError(
                f"long_hops={L} gives no distance-3 code of {L} long hops distinct from the cube "
                f"links for dimension={d}; use long_hops in {ok[0]}..{ok[-1]} "
                f"(smallest: {min_long_hops(d)}, the default)" if ok else
                f"dimension={d} admits no long hops of this construction")
    return [1 << i for i in range(d)] + _columns(d, L)


@register("long-hop", family="longhop")
def long_hop(dimension: int, long_hops: int | None = None, *, hosts_per_switch: int = 1) -> Topology:
    """Long Hop on a hypercube (LH-HC): Q_d plus long hops from a distance-3 code.

    Parameters
    ----------
    dimension : int
        d, in [3, 26]: 2**d switches.
    long_hops : int or None
        L, the extra links per switch.  None: the smallest L with ``d <= 2^L - L - 1``
        (:func:`min_long_hops`: 4 for d = 5..11, 5 for d = 12..26).  Larger values are
        accepted while the construction's long hops stay distinct from each other and from
        the cube links.  The Slim Fly paper's LH-HC at N = 2^13 has router radix 19 =
        13 + L + 1, i.e. L = 5.
    hosts_per_switch : int
        Endpoints per switch (>= 0); the Slim Fly paper uses p = 1 (Section III).

    Returns
    -------
    Topology
        2**d switches numbered as :func:`topogen.generators.classic.hypercube` (bit k is
        coordinate k), degree d + L, ``(d + L) * 2**(d-1)`` links; link kinds ``"dim0"`` ..
        ``"dim<d-1>"`` and ``"hop0"`` .. ``"hop<L-1>"``; ``params["generators"]`` lists
        the long hops as integers.

    Raises
    ------
    ParameterError
        If ``dimension`` is outside [3, 26] or ``long_hops`` gives no valid code (the
        message gives the valid range).

    Notes
    -----
    Besta & Hoefler, Slim Fly, Section III: "Long Hops are networks constructed from Cayley
    graphs using optimal error correcting codes [56]. We utilize a variant of Long Hops that
    augments hypercubes (introduced in Section E-S-3 of [56])"; III-C: "LH-HC has the
    bandwidth of 3N/2"; Table II: diameter 4-6 for 2^8 .. 2^13 endpoints; Table IV: radix 19
    at N = 8,192.  The long hops are the columns of ``A`` in ``H = [I_d | A]`` whose rows
    are distinct vectors of weight >= 2 (heaviest first), so every cut ``u.x`` is crossed by
    at least ``3 N / 2`` links; see the module docstring.  The diameter is the covering
    radius of ``ker H``: with L = 5 it is 4, 4, 5, 5, 6, 6 for d = 8 .. 13 (Table II's
    4-6); with the smallest L (4 for d <= 11) it is 4, 5, 6, 7 for d = 8 .. 11.

    References
    ----------
    .. [1] R. V. Tomic, "Network Throughput Optimization via Error Correcting Codes",
       arXiv:1301.4177, 2013.
    .. [2] M. Besta, T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network
       Topology", SC'14 (arXiv version), Sections III, VI-B3.
    """
    gens = long_hop_generators(dimension, long_hops)
    d = int(dimension)
    L = len(gens) - d
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    n = 1 << d
    check_topology_memory(n, (d + L) * n // 2)
    v = np.arange(n, dtype=np.int64)
    parts, kinds = [], []
    for k, g in enumerate(gens):
        u = v[v < (v ^ g)]  # one end of each link of generator g
        parts.append(np.stack([u, u ^ g], axis=1))
        kinds.append(np.full(len(u), k, dtype=np.int16))
    names = tuple(f"dim{k}" for k in range(d)) + tuple(f"hop{j}" for j in range(L))
    return Topology(
        n, np.concatenate(parts), hosts, name="long-hop",
        params={"dimension": d, "long_hops": L, "hosts_per_switch": hosts,
                "generators": [int(g) for g in gens[d:]]},
        link_kind=np.concatenate(kinds), kind_names=names,
    )
