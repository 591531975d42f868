"""PolarFly: the Erdős–Rényi polarity graph ER_q as a diameter-2 network.

The switches are the ``q^2 + q + 1`` points of the projective plane PG(2, q), i.e. the
1-dimensional subspaces of GF(q)^3, each written with normalised homogeneous
coordinates (first non-zero coordinate 1).  Two distinct points u, v are linked iff
``u . v = 0`` over GF(q) (v lies on the polar line of u under the orthogonal polarity).

The ``q + 1`` *absolute* (self-orthogonal, ``u . u = 0``) points would be adjacent to
themselves; the self-loop is dropped, so they have degree q and all other points degree
q + 1.  The graph has ``q (q + 1)^2 / 2`` links and diameter 2: two distinct points span a
line, whose pole is a common neighbour (or one of the two points itself).
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_int
from ..gf import GF, check_prime_power
from ..registry import register
from ..topology import Topology

__all__ = ["polarfly", "polarfly_points", "point_index"]


def polarfly_points(q: int) -> np.ndarray:
    """The normalised points of PG(2, q) in switch order, shape ``(q^2 + q + 1, 3)``.

    Order: ``(0, 0, 1)``; then ``(0, 1, z)`` for z = 0..q-1; then ``(1, y, z)`` for
    y, z = 0..q-1 (lexicographic).  Coordinates are GF(q) elements
    (integers, polynomial basis of :class:`topogen.gf.GF`).
    """
    check_prime_power("q", q)
    e = np.arange(q, dtype=np.int64)
    y, z = (a.ravel() for a in np.meshgrid(e, e, indexing="ij"))
    return np.concatenate(
        [
            np.array([[0, 0, 1]], dtype=np.int64),
            np.stack([np.zeros(q, np.int64), np.ones(q, np.int64), e], axis=1),
            np.stack([np.ones(q * q, np.int64), y, z], axis=1),
        ]
    )


def point_index(point, q: int):
    """Switch id of normalised point(s) ``(a, b, c)`` (inverse of :func:`polarfly_points`)."""
    p = np.asarray(point, dtype=np.int64)
    a, b, c = p[..., 0], p[..., 1], p[..., 2]
    return np.where(a == 1, 1 + q + b * q + c, np.where(b == 1, 1 + c, 0))


@register("polarfly", family="polarfly")
def polarfly(q: int, *, hosts_per_switch: int | None = None) -> Topology:
    """PolarFly: the Erdős–Rényi polarity graph ER_q on the points of PG(2, q).

    Parameters
    ----------
    q : int
        Field order, any prime power >= 2.
    hosts_per_switch : int, optional
        Endpoints per router.  Default ceil((q + 1)/2): the balance rule
        p ≈ ceil(k'/2) of Slim Fly Section II-B2 applied to the network radix
        k' = q + 1 (the derivation only uses diameter 2 and N_r ≈ k'^2).

    Returns
    -------
    Topology
        ``q^2 + q + 1`` switches (see :func:`polarfly_points` for the numbering),
        ``q (q + 1)^2 / 2`` links, diameter 2; the ``q + 1`` absolute points have degree
        q, the others q + 1.  ``params`` records ``q`` and ``hosts_per_switch``.

    Raises
    ------
    ParameterError
        If q is not a prime power (the message names the nearest ones) or
        ``hosts_per_switch < 0``.

    Notes
    -----
    u ~ v iff u != v and ``u_0 v_0 + u_1 v_1 + u_2 v_2 = 0`` in GF(q).  Built in O(q^3)
    by solving the linear equation for the third coordinate instead of testing all
    pairs.  ER_q attains ``q^2 + q + 1`` of the Moore bound ``(q+1)^2 + 1`` for degree
    q + 1 and diameter 2, i.e. asymptotically all of it.  The polarity graph is the
    graph ``P_u`` of Slim Fly Section II-C1 (BDF construction) with u = q.

    References
    ----------
    .. [1] K. Lakhotia et al., "PolarFly: A Cost-Effective and Flexible Low-Diameter
       Topology", SC'22.
    .. [2] P. Erdős, A. Rényi, V. T. Sós, "On a problem of graph theory", Studia Sci.
       Math. Hungar. 1 (1966); W. G. Brown, "On graphs that do not contain a Thomsen
       graph", Canad. Math. Bull. 9 (1966).
    .. [3] M. Besta, T. Hoefler, "Slim Fly", SC'14, Sections II-B2 and II-C1.
    """
    check_prime_power("q", q)
    q = int(q)
    if hosts_per_switch is None:
        hosts_per_switch = math.ceil((q + 1) / 2)
    hosts_per_switch = check_int("hosts_per_switch", hosts_per_switch, 0)
    F = GF(q)
    pts = polarfly_points(q)
    n = len(pts)
    a, b, c = pts[:, 0], pts[:, 1], pts[:, 2]
    e = np.arange(q, dtype=np.int64)
    src, dst = [], []

    # Case c != 0: (1, y, z) with z = -(a + b y)/c for every y, and (0, 1, -b/c).
    k = np.nonzero(c != 0)[0]
    if len(k):
        inv_c = np.asarray(F.inv(c[k]))
        yy = np.broadcast_to(e[None, :], (len(k), q))
        rhs = F.add(a[k][:, None], F.mul(b[k][:, None], yy))
        zz = np.asarray(F.mul(F.neg(rhs), inv_c[:, None]))
        src.append(np.repeat(k, q))
        dst.append((1 + q + yy * q + zz).ravel())
        src.append(k)
        dst.append(1 + np.asarray(F.mul(F.neg(b[k]), inv_c)))
    # Case c == 0, b != 0: (1, -a/b, z) for every z, and (0, 0, 1).
    k = np.nonzero((c == 0) & (b != 0))[0]
    if len(k):
        y0 = np.asarray(F.mul(F.neg(a[k]), F.inv(b[k])))
        src.append(np.repeat(k, q))
        dst.append((1 + q + y0[:, None] * q + e[None, :]).ravel())
        src.append(k)
        dst.append(np.zeros(len(k), np.int64))
    # Case c == b == 0, i.e. (1, 0, 0): (0, 1, z) for every z, and (0, 0, 1).
    k = np.nonzero((c == 0) & (b == 0))[0]
    src.append(np.repeat(k, q + 1))
    dst.append(np.concatenate([1 + e, [0]]) if len(k) else np.zeros(0, np.int64))

    u = np.concatenate(src)
    v = np.concatenate(dst)
    keep = u < v  # drops the self-loops of absolute points and the reverse copies
    return Topology(
        n,
        np.stack([u[keep], v[keep]], axis=1),
        hosts_per_switch=hosts_per_switch,
        name="polarfly",
        params={"q": q, "hosts_per_switch": hosts_per_switch},
    )
