"""Structured baselines: tori, meshes, hypercubes, HyperX / flattened butterflies, and the
cabinet-laid-out Torus, Hypercube and HyperX of Skywalk Section III-A.

Numbering convention (shared by every generator here)
------------------------------------------------------
A switch is a coordinate vector ``(i0, i1, ..., i_{n-1})`` with ``0 <= i_k < d_k`` and
number ``v = i0 + d0 * (i1 + d1 * (i2 + ...))``: the **first dimension varies fastest**.
Sequential placement (switch ``v`` -> cabinet ``v // z``) therefore puts dimension 0 inside
a cabinet when ``d0 = z``, as Skywalk III-A requires ("we set the size of the first dimension
to z").  A hypercube is the torus/HyperX of shape ``(2,) * d``: bit ``k`` of ``v`` is
coordinate ``k``.

Construction is vectorised NumPy: one array operation per dimension (and per pair of
positions along a dimension for HyperX), so 10^5-switch instances build in well under a
second.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from .._validate import check_int, check_shape, check_topology_memory
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = [
    "torus",
    "mesh",
    "hypercube",
    "folded_hypercube",
    "hyperx",
    "flattened_butterfly",
    "cabinet_torus",
    "cabinet_hypercube",
    "cabinet_hyperx",
    "cabinet_grid",
]

#: Largest number of switches a generator here builds (switch ids are stored as int32).
MAX_SWITCHES = 2**31 - 1


# ----------------------------------------------------------------------------- helpers
def _check_dims(dims, what: str = "dims") -> tuple[int, ...]:
    dims = check_shape(what, dims, minimum_side=1, min_dims=1)
    n = math.prod(dims)
    if n > MAX_SWITCHES:
        raise ParameterError(
            f"{what}={'x'.join(map(str, dims))} gives {n} switches; at most {MAX_SWITCHES} "
            "are supported (int32 switch ids): use smaller side lengths"
        )
    return dims


def _strides(dims: tuple[int, ...]) -> np.ndarray:
    """Stride of each dimension in the canonical numbering (dimension 0 fastest)."""
    return np.concatenate([[1], np.cumprod(dims[:-1], dtype=np.int64)]).astype(np.int64)


def _grid_edges(dims: tuple[int, ...], wrap: bool):
    """Links of an n-D mesh (``wrap=False``) or torus (``wrap=True``) and their dimension.

    Each switch links to its successor ``+1`` along every dimension (and, for a torus, the
    last to the first).  A side of 2 gives one link (the wrap link coincides with the mesh
    link); a side of 1 gives none.
    """
    n = math.prod(dims)
    check_topology_memory(n, sum(n if wrap and s > 2 else n // s * (s - 1) for s in dims))
    v = np.arange(n, dtype=np.int64)
    parts, kinds = [], []
    for k, (side, stride) in enumerate(zip(dims, _strides(dims))):
        if side == 1:
            continue
        coord = (v // stride) % side
        if wrap and side > 2:
            u = v
            w = np.where(coord == side - 1, v - stride * (side - 1), v + stride)
        else:
            u = v[coord < side - 1]
            w = u + stride
        parts.append(np.stack([u, w], axis=1))
        kinds.append(np.full(len(u), k, dtype=np.int8))
    return _concat(parts, kinds)


def _hyperx_edges(dims: tuple[int, ...]):
    """Links of a HyperX: switches that differ in exactly one coordinate are linked."""
    n = math.prod(dims)
    check_topology_memory(n, sum(n // s * (s * (s - 1) // 2) for s in dims))
    v = np.arange(n, dtype=np.int64)
    parts, kinds = [], []
    for k, (side, stride) in enumerate(zip(dims, _strides(dims))):
        if side == 1:
            continue
        base = v[(v // stride) % side == 0]  # the switches with coordinate k = 0
        a, b = np.triu_indices(side, 1)  # all pairs of positions along dimension k
        u = (base[:, None] + a[None, :] * stride).ravel()
        w = (base[:, None] + b[None, :] * stride).ravel()
        parts.append(np.stack([u, w], axis=1))
        kinds.append(np.full(len(u), k, dtype=np.int8))
    return _concat(parts, kinds)


def _concat(parts, kinds):
    if not parts:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int8)
    return np.concatenate(parts), np.concatenate(kinds)


def _dim_names(n: int) -> tuple[str, ...]:
    return tuple(f"dim{k}" for k in range(n))


def _hosts(hosts_per_switch) -> int:
    return check_int("hosts_per_switch", hosts_per_switch, 0)


def cabinet_grid(cabinets: int) -> tuple[int, int]:
    """Rows x and columns y of Skywalk's cabinet grid: ``x = ceil(sqrt(c))``, ``y = ceil(c / x)``.

    Parameters
    ----------
    cabinets : int
        Number of cabinets c >= 1.

    Returns
    -------
    (int, int)
        ``(x, y)``; the same shape :class:`topogen.layout.Floor` uses by default.
    """
    c = check_int("cabinets", cabinets, 1)
    x = math.isqrt(c - 1) + 1 if c > 1 else 1
    return x, -(-c // x)


# ----------------------------------------------------------------------------- tori, meshes
@register("torus", family="classic")
def torus(dims: tuple[int, ...], *, hosts_per_switch: int = 1) -> Topology:
    """n-dimensional torus (k-ary n-cube) of arbitrary side lengths.

    Parameters
    ----------
    dims : tuple of int
        Side length of each dimension, e.g. ``(8, 16, 16)``; every side >= 1.
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        ``prod(dims)`` switches numbered with dimension 0 varying fastest
        (``v = i0 + d0*(i1 + d1*(i2 + ...))``); link kinds ``"dim0"``, ``"dim1"``, ...

    Raises
    ------
    ParameterError
        If a side is < 1 or the torus has more than 2**31 - 1 switches.

    Notes
    -----
    Switch ``(.., i_k, ..)`` links to ``(.., (i_k +/- 1) mod d_k, ..)`` in every dimension.
    A dimension of side 2 contributes **one** link per pair (the wrap-around link coincides
    with the mesh link; topologies are simple graphs), so the degree is
    ``sum(2 if d_k > 2 else d_k - 1)`` and ``2n`` only when every side is >= 3.  A side of 1
    contributes no link.  The diameter is ``sum(floor(d_k / 2))``.

    This is Skywalk's Torus baseline (Sec. III-A) and the layout-conscious paper's TORUS-n
    (Sec. III-A); see :func:`cabinet_torus` for the paper's Torus(z, c, d) on cabinets.

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology for HPC
       Networks with Low-delay Switches", IPDPS 2014, Sec. III-A.
    .. [2] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Sec. III-A.
    """
    dims = _check_dims(dims)
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _grid_edges(dims, wrap=True)
    return Topology(
        math.prod(dims), edges, hosts, name="torus",
        params={"dims": dims, "hosts_per_switch": hosts},
        link_kind=kinds, kind_names=_dim_names(len(dims)),
    )


@register("mesh", family="classic")
def mesh(dims: tuple[int, ...], *, hosts_per_switch: int = 1) -> Topology:
    """n-dimensional mesh (a torus without wrap-around links).

    Parameters
    ----------
    dims : tuple of int
        Side length of each dimension; every side >= 1.
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        ``prod(dims)`` switches numbered as in :func:`torus` (dimension 0 fastest); link
        kinds ``"dim0"``, ``"dim1"``, ...

    Raises
    ------
    ParameterError
        If a side is < 1 or the mesh has more than 2**31 - 1 switches.

    Notes
    -----
    Switch ``(.., i_k, ..)`` links to ``(.., i_k + 1, ..)`` when ``i_k + 1 < d_k``.
    ``sum(prod(dims) * (d_k - 1) / d_k)`` links; diameter ``sum(d_k - 1)``.

    References
    ----------
    .. [1] W. J. Dally, B. Towles, *Principles and Practices of Interconnection Networks*,
       Morgan Kaufmann, 2004, Ch. 5 (k-ary n-meshes).
    """
    dims = _check_dims(dims)
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _grid_edges(dims, wrap=False)
    return Topology(
        math.prod(dims), edges, hosts, name="mesh",
        params={"dims": dims, "hosts_per_switch": hosts},
        link_kind=kinds, kind_names=_dim_names(len(dims)),
    )


# ----------------------------------------------------------------------------- hypercubes
def _hypercube_edges(d: int):
    n = 1 << d
    check_topology_memory(n, d * n // 2)
    v = np.arange(n, dtype=np.int64)
    parts, kinds = [], []
    for k in range(d):
        u = v[(v >> k) & 1 == 0]
        parts.append(np.stack([u, u | (1 << k)], axis=1))
        kinds.append(np.full(len(u), k, dtype=np.int8))
    return _concat(parts, kinds)


@register("hypercube", family="classic")
def hypercube(dimension: int, *, hosts_per_switch: int = 1) -> Topology:
    """d-dimensional binary hypercube: 2**d switches, switches differing in one bit linked.

    Parameters
    ----------
    dimension : int
        d, in [0, 30].  Skywalk's Hypercube(N, d) has ``d = ceil(log2 N)``.
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        2**d switches; bit ``k`` of a switch id is its coordinate in dimension ``k`` (the
        numbering of :func:`torus` with ``dims = (2,) * d``); link kind ``"dim<k>"``.

    Raises
    ------
    ParameterError
        If ``dimension`` is outside [0, 30].

    Notes
    -----
    Degree d, ``d * 2**(d-1)`` links, diameter d.  Skywalk Sec. III-A: "Hypercube(N, d): a
    d-dimensional hypercube of degree d = ceil(log2 N)", placed sequentially on cabinets
    (see :func:`cabinet_hypercube`).

    References
    ----------
    .. [1] Fujiwara et al., "Skywalk", IPDPS 2014, Sec. III-A.
    .. [2] Koibuchi et al., "Layout-conscious Random Topologies", HPCA 2013, Sec. III-A
       (HYPERCUBE).
    """
    d = check_int("dimension", dimension, 0, 30, hint="; the hypercube has 2**dimension switches")
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _hypercube_edges(d)
    return Topology(
        1 << d, edges, hosts, name="hypercube",
        params={"dimension": d, "hosts_per_switch": hosts},
        link_kind=kinds, kind_names=_dim_names(d),
    )


@register("folded-hypercube", family="classic")
def folded_hypercube(dimension: int, *, hosts_per_switch: int = 1) -> Topology:
    """Folded hypercube: a d-cube plus a link from every switch to its bitwise complement.

    Parameters
    ----------
    dimension : int
        d, in [2, 30] (for d = 1 the complement link would duplicate the cube link).
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        2**d switches numbered as in :func:`hypercube`; link kinds ``"dim0"`` ..
        ``"dim<d-1>"`` and ``"complement"``.

    Raises
    ------
    ParameterError
        If ``dimension`` is outside [2, 30].

    Notes
    -----
    The layout-conscious paper (Sec. III-A, FHYPERCUBE) defines it as "a folded hypercube of
    degree n + 1 for N = 2**n vertices, in which an edge is added between each vertex and its
    most distant multi-hop neighbor", i.e. its complement ``v XOR (2**d - 1)``.  Degree
    d + 1, ``(d + 1) * 2**(d-1)`` links, diameter ``ceil(d / 2)``.  For d = 2 it is the
    complete graph K4.

    References
    ----------
    .. [1] Koibuchi et al., "Layout-conscious Random Topologies for HPC Off-chip
       Interconnects", HPCA 2013, Sec. III-A.
    .. [2] A. El-Amawy, S. Latifi, "Properties and performance of folded hypercubes", IEEE
       TPDS 2(1), 1991.
    """
    d = check_int("dimension", dimension, 2, 30, hint="; the folded hypercube has 2**dimension switches")
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _hypercube_edges(d)
    u = np.arange(1 << (d - 1), dtype=np.int64)  # top bit 0: one end of each complement link
    comp = np.stack([u, u ^ ((1 << d) - 1)], axis=1)
    edges = np.concatenate([edges, comp])
    kinds = np.concatenate([kinds, np.full(len(u), d, dtype=np.int8)])
    return Topology(
        1 << d, edges, hosts, name="folded-hypercube",
        params={"dimension": d, "hosts_per_switch": hosts},
        link_kind=kinds, kind_names=_dim_names(d) + ("complement",),
    )


# ----------------------------------------------------------------------------- HyperX
@register("hyperx", family="classic")
def hyperx(dims: tuple[int, ...], *, hosts_per_switch: int = 1) -> Topology:
    """HyperX (n-D flattened butterfly) of any shape: fully connected along every dimension.

    Parameters
    ----------
    dims : tuple of int
        Side length S_k of each dimension, e.g. ``(7, 7)``; every side >= 1.
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0), the HyperX's T.

    Returns
    -------
    Topology
        ``prod(dims)`` switches numbered as in :func:`torus` (dimension 0 fastest); link
        kinds ``"dim0"``, ``"dim1"``, ...

    Raises
    ------
    ParameterError
        If a side is < 1 or there are more than 2**31 - 1 switches.

    Notes
    -----
    Two switches are linked iff their coordinates differ in exactly one dimension (a
    Hamming graph; the links of one dimension form ``N / S_k`` disjoint cliques K_{S_k}).
    Degree ``sum(S_k - 1)``, ``N * sum(S_k - 1) / 2`` links, diameter = number of
    dimensions with ``S_k > 1``.  This is the "regular HyperX" of Ahn et al. (all trunking
    factors 1) and the n-D flattened butterfly of Li et al. Sec. 2 ("combining nodes in
    both horizontal and vertical dimensions into fully connected graphs");
    :func:`flattened_butterfly` is the equal-sided special case.  Skywalk's
    HyperX(z, c, d) on cabinets is :func:`cabinet_hyperx`.

    References
    ----------
    .. [1] J. H. Ahn, N. Binkert, A. Davis, M. McLaren, R. S. Schreiber, "HyperX: topology,
       routing, and packaging of efficient large-scale networks", SC 2009.
    .. [2] S. Li et al., "Low Latency, High Bisection-Bandwidth Networks for Exascale Memory
       Systems", MEMSYS 2016, Sec. 2.
    .. [3] Fujiwara et al., "Skywalk", IPDPS 2014, Sec. III-A.
    """
    dims = _check_dims(dims)
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _hyperx_edges(dims)
    return Topology(
        math.prod(dims), edges, hosts, name="hyperx",
        params={"dims": dims, "hosts_per_switch": hosts},
        link_kind=kinds, kind_names=_dim_names(len(dims)),
    )


@register("flattened-butterfly", family="classic")
def flattened_butterfly(
    k: int,
    n: int,
    *,
    convention: Literal["n-flat", "n-dim"] = "n-flat",
    hosts_per_switch: int | None = None,
) -> Topology:
    """Flattened butterfly with equal sides: Kim's k-ary n-flat, or Li et al.'s n-D version.

    Parameters
    ----------
    k : int
        Switches along each dimension (the butterfly's arity), >= 2.
    n : int
        With ``convention="n-flat"`` the k-ary n-fly's number of stages, >= 2 (the result
        has ``n - 1`` dimensions); with ``convention="n-dim"`` the number of dimensions, >= 1.
    convention : {"n-flat", "n-dim"}
        ``"n-flat"`` (default): Kim, Dally, Abts' k-ary n-flat, the flattening of a k-ary
        n-fly: ``k**(n-1)`` switches in ``n - 1`` dimensions of side k, k hosts per switch.
        ``"n-dim"``: the n-D flattened butterfly of Li et al. (MEMSYS '16, Sec. 2):
        ``k**n`` switches in n dimensions of side k, one host per switch.
    hosts_per_switch : int, optional
        Hosts per switch (>= 0); default k for ``"n-flat"`` (the n-fly's concentration),
        1 for ``"n-dim"``.

    Returns
    -------
    Topology
        ``hyperx((k,) * dimensions)`` renamed ``"flattened-butterfly"``.

    Raises
    ------
    ParameterError
        If k < 2, n is below its minimum, or the network is too large.

    Notes
    -----
    The flattened butterfly is the HyperX with equal sides and trunking 1 (Skywalk
    Sec. III-A: "the popular Flattened Butterfly topology is subsumed by the HyperX
    topology").  The two papers count n differently: Kim et al.'s k-ary n-flat keeps the
    parameters of the butterfly it flattens (n stages -> n - 1 dimensions, router radix
    ``n(k - 1) + 1`` with k terminals), while Li et al. call the network with n fully
    connected dimensions "nD".  Both are offered; switch-to-switch degree is
    ``dimensions * (k - 1)`` and the diameter is the number of dimensions.

    References
    ----------
    .. [1] J. Kim, W. J. Dally, D. Abts, "Flattened Butterfly: a Cost-Efficient Topology for
       High-Radix Networks", ISCA 2007.
    .. [2] S. Li et al., MEMSYS 2016, Sec. 2 and Fig. 3.
    .. [3] Fujiwara et al., "Skywalk", IPDPS 2014, Sec. III-A.
    """
    k = check_int("k", k, 2)
    if convention == "n-flat":
        n = check_int("n", n, 2, hint=" (a k-ary n-flat has n - 1 dimensions; use n >= 2)")
        ndim = n - 1
        default_hosts = k
    elif convention == "n-dim":
        n = check_int("n", n, 1)
        ndim = n
        default_hosts = 1
    else:
        raise ParameterError(f"convention must be 'n-flat' or 'n-dim', got {convention!r}")
    hosts = default_hosts if hosts_per_switch is None else _hosts(hosts_per_switch)
    if ndim * math.log2(k) > 31:
        raise ParameterError(
            f"k={k}, n={n} ({convention}) gives {k}**{ndim} switches, more than 2**31 - 1; "
            "use a smaller k or n"
        )
    base = hyperx((k,) * ndim, hosts_per_switch=hosts)
    return base.replace(
        name="flattened-butterfly",
        params={"k": k, "n": n, "convention": convention, "hosts_per_switch": hosts},
    )


# ----------------------------------------------------------------------------- Skywalk III-A
def _cabinet_params(switches_per_cabinet, cabinets, min_z=1, min_c=1):
    z = check_int("switches_per_cabinet", switches_per_cabinet, min_z)
    c = check_int("cabinets", cabinets, min_c)
    if z * c > MAX_SWITCHES:
        raise ParameterError(
            f"switches_per_cabinet * cabinets = {z * c} switches; at most {MAX_SWITCHES} are supported"
        )
    return z, c


def _int_root(value: int, m: int) -> int | None:
    """The integer r with r**m == value, or None."""
    r = int(round(value ** (1.0 / m)))
    for cand in (r - 1, r, r + 1):
        if cand >= 1 and cand**m == value:
            return cand
    return None


def _torus_degrees(cabinets: int) -> list[int]:
    """Degrees d = 2n for which Torus(z, c, d) exists with all sides >= 3."""
    out = []
    m = 1
    while 3**m <= cabinets:
        r = _int_root(cabinets, m)
        if r is not None and r >= 3:
            out.append(2 * (m + 1))
        m += 1
    return out


@register("cabinet-torus", family="classic")
def cabinet_torus(
    switches_per_cabinet: int, cabinets: int, degree: int, *, hosts_per_switch: int = 1
) -> Topology:
    """Skywalk's Torus(z, c, d): an n = d/2 dimensional torus, first dimension inside a cabinet.

    Parameters
    ----------
    switches_per_cabinet : int
        z, the size of the first dimension (>= 3).
    cabinets : int
        c; each of the remaining n - 1 dimensions has size ``c**(1/(n-1))``, which must be
        an integer >= 3.
    degree : int
        d = 2n, an even number >= 4.
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        The torus of shape ``(z, r, ..., r)`` (``r = c**(1/(n-1))``) numbered as in
        :func:`torus`, with native placement ``cabinet[v] = v // z`` (the paper's sequential
        assignment: each cabinet holds one ring of dimension 0).

    Raises
    ------
    ParameterError
        If d is odd or < 4, if ``c**(1/(n-1))`` is not an integer >= 3 (the message lists the
        valid degrees for this c), or if z < 3.

    Notes
    -----
    Skywalk Sec. III-A: "Torus(z, c, d): an n-dimensional Torus topology of degree d = 2n.
    We set the size of first dimension to z and the remaining n - 1 dimensions to
    c**(1/(n-1)). For instance, a 3-D Torus with 2,048 switches, 256 cabinets, with 8 switches
    per cabinet, is generated as a 8 x 16 x 16 torus."  Switches are assigned to cabinets
    "sequentially ... by increasing order of the canonical numbering".

    Sides of 1 or 2 would give a degree below 2n, so they are rejected here; build such
    tori with :func:`torus` and place them sequentially.  On Skywalk's floor with
    ``c = r**2`` (3-D torus) dimension 1 runs along a cabinet row and dimension 2 across the
    rows; Torus(8, 256, 6) has 30,848 m of cable (the paper's 31 km, Sec. III-B).

    References
    ----------
    .. [1] Fujiwara et al., "Skywalk: a Topology for HPC Networks with Low-delay Switches",
       IPDPS 2014, Sec. III-A, III-B (Fig. 5).
    """
    z, c = _cabinet_params(switches_per_cabinet, cabinets)
    d = check_int("degree", degree, 4, hint=" (an even degree d = 2n of an n-D torus, n >= 2)")
    valid = _torus_degrees(c)
    valid_txt = ", ".join(map(str, valid)) if valid else "none (cabinets must be >= 3)"
    if d % 2:
        raise ParameterError(
            f"degree must be even (d = 2n for an n-D torus), got {d}; valid degrees for "
            f"cabinets={c}: {valid_txt}"
        )
    m = d // 2 - 1
    r = _int_root(c, m)
    if r is None or r < 3:
        raise ParameterError(
            f"degree={d} needs cabinets**(1/{m}) to be an integer >= 3, but cabinets={c} "
            f"is not such a power; valid degrees for cabinets={c}: {valid_txt}"
        )
    if z < 3:
        raise ParameterError(
            f"switches_per_cabinet must be an integer >= 3 (the first torus dimension has "
            f"size z and degree 2n needs every side >= 3), got {z}; use torus(dims=...) for "
            "smaller sides"
        )
    hosts = _hosts(hosts_per_switch)
    dims = (z,) + (r,) * m
    edges, kinds = _grid_edges(dims, wrap=True)
    n = z * c
    return Topology(
        n, edges, hosts, name="cabinet-torus",
        params={"switches_per_cabinet": z, "cabinets": c, "degree": d, "hosts_per_switch": hosts},
        cabinet=np.arange(n, dtype=np.int64) // z,
        link_kind=kinds, kind_names=_dim_names(len(dims)),
    )


@register("cabinet-hypercube", family="classic")
def cabinet_hypercube(switches_per_cabinet: int, cabinets: int, *, hosts_per_switch: int = 1) -> Topology:
    """Skywalk's Hypercube(N, d) with N = z*c switches placed sequentially on c cabinets.

    Parameters
    ----------
    switches_per_cabinet : int
        z (>= 1).
    cabinets : int
        c (>= 1); ``N = z * c`` must be a power of two.
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        :func:`hypercube` of dimension ``d = log2(z c)`` with native placement
        ``cabinet[v] = v // z``.

    Raises
    ------
    ParameterError
        If ``z * c`` is not a power of two (the message names the nearest ones).

    Notes
    -----
    Skywalk Sec. III-A: "Hypercube(N, d): a d-dimensional hypercube of degree
    d = ceil(log2 N)", switches assigned to cabinets "sequentially considering switches in
    the topological order".  The paper only uses N = 2**d, so a non-power of two is
    rejected rather than truncated.  With z = 8 the low 3 bits stay inside a cabinet;
    Hypercube(2048, 11) on Skywalk's 256-cabinet floor has 80,384 m of cable (80 km,
    Sec. III-B).

    References
    ----------
    .. [1] Fujiwara et al., "Skywalk", IPDPS 2014, Sec. III-A, III-B.
    """
    z, c = _cabinet_params(switches_per_cabinet, cabinets)
    n = z * c
    if n & (n - 1):
        if z & (z - 1):
            fix = f"switches_per_cabinet={z} is not a power of two, so no cabinet count works; use 1, 2, 4, 8, 16, ... switches per cabinet"
        else:
            lo = 1 << (c.bit_length() - 1)
            fix = f"nearest valid cabinets: {lo} or {2 * lo}"
        raise ParameterError(
            f"switches_per_cabinet * cabinets = {z} * {c} = {n} must be a power of two for a "
            f"hypercube; {fix}"
        )
    d = n.bit_length() - 1
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _hypercube_edges(d)
    return Topology(
        n, edges, hosts, name="cabinet-hypercube",
        params={"switches_per_cabinet": z, "cabinets": c, "hosts_per_switch": hosts},
        cabinet=np.arange(n, dtype=np.int64) // z,
        link_kind=kinds, kind_names=_dim_names(d),
    )


def _is_full_grid(c: int) -> bool:
    x, y = cabinet_grid(c)
    return x * y == c


@register("cabinet-hyperx", family="classic")
def cabinet_hyperx(switches_per_cabinet: int, cabinets: int, *, hosts_per_switch: int = 1) -> Topology:
    """Skywalk's HyperX(z, c, d): a 3-D HyperX z x y x x mapped onto the cabinet grid.

    Parameters
    ----------
    switches_per_cabinet : int
        z, the HyperX dimension inside a cabinet (>= 1).
    cabinets : int
        c; must fill Skywalk's ``x x y`` grid exactly (``c = x * y`` with
        ``x = ceil(sqrt(c))``, ``y = ceil(c / x)``).
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        Switch ``v = p + z * k`` is position p of cabinet k (cabinet k at row ``k // y``,
        column ``k % y``); native placement ``cabinet[v] = v // z``.  Link kinds
        ``"intra"`` (within a cabinet), ``"row"`` (between cabinets of one grid row) and
        ``"column"`` (between cabinets of one grid column).  The graph is
        ``hyperx((z, y, x))``.

    Raises
    ------
    ParameterError
        If c is not x*y (the message names the nearest valid cabinet counts).

    Notes
    -----
    Skywalk Sec. III-A: "HyperX(z, c, d): a HyperX topology of degree d = x + y + z - 3
    tailored to map onto the physical layout of cabinets".  Each switch links to every
    other switch of its cabinet (z - 1 links), to the switch at the same position in every
    other cabinet of its grid row (y - 1) and of its grid column (x - 1): the packaging of
    Ahn et al. with one dimension per cabinet and one per floor axis.  Diameter = number
    of sides > 1 (3 for the paper's instances).  HyperX(8, 256, 37) on the 16 x 16 floor
    has 372,224 m of cable (372 km, Sec. III-B).  A partially filled last row would break
    the HyperX symmetry and the degree formula, so c must fill the grid.

    References
    ----------
    .. [1] Fujiwara et al., "Skywalk", IPDPS 2014, Sec. III-A, III-B.
    .. [2] J. H. Ahn et al., "HyperX: topology, routing, and packaging of efficient
       large-scale networks", SC 2009.
    """
    z, c = _cabinet_params(switches_per_cabinet, cabinets)
    x, y = cabinet_grid(c)
    if x * y != c:
        lo = next(k for k in range(c - 1, 0, -1) if _is_full_grid(k))
        hi = next(k for k in range(c + 1, 2 * c + 2) if _is_full_grid(k))
        raise ParameterError(
            f"cabinets must fill Skywalk's grid exactly (c = x*y with x = ceil(sqrt(c)), "
            f"y = ceil(c/x)); cabinets={c} gives a {x} x {y} grid of {x * y}. "
            f"Nearest valid cabinets: {lo} or {hi}"
        )
    hosts = _hosts(hosts_per_switch)
    edges, kinds = _hyperx_edges((z, y, x))
    n = z * c
    return Topology(
        n, edges, hosts, name="cabinet-hyperx",
        params={"switches_per_cabinet": z, "cabinets": c, "hosts_per_switch": hosts},
        cabinet=np.arange(n, dtype=np.int64) // z,
        link_kind=kinds, kind_names=("intra", "row", "column"),
    )
