"""Slim Fly: the diameter-2 McKay–Miller–Širáň (MMS) graphs (Besta & Hoefler, II-B).

Routers are the triples ``(s, x, y)`` in ``{0, 1} x F_q x F_q`` for a prime power
``q = 4w + δ`` (δ in {-1, 0, 1}); router ``(s, x, y)`` is switch ``s*q*q + x*q + y``
(:func:`router_index`, :func:`router_coordinates`).  Links (Slim Fly Eq. (1)-(3)):

* ``(0, x, y) ~ (0, x, y')``  iff ``y - y'`` in X   (kind ``"intra0"``)
* ``(1, m, c) ~ (1, m, c')``  iff ``c - c'`` in X'  (kind ``"intra1"``)
* ``(0, x, y) ~ (1, m, c)``   iff ``y = m*x + c``   (kind ``"inter"``)

with all arithmetic in GF(q) (:mod:`topogen.gf`) and the generator sets X, X' of
:func:`mms_generator_sets` (Hafner 2004).  Every router has network radix
``k' = (3q - δ)/2``; there are ``2 q^2`` routers; the diameter is 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..gf import GF, check_slimfly_q  # noqa: F401 (the q check lives with the field)
from ..registry import register
from ..topology import Topology

__all__ = [
    "slimfly",
    "mms_generator_sets",
    "slimfly_parameters",
    "SlimFlyParameters",
    "router_index",
    "router_coordinates",
    "check_slimfly_q",
]

KIND_NAMES = ("intra0", "intra1", "inter")


def _delta_of(q: int) -> int:
    return {1: 1, 0: 0, 3: -1}[q % 4]


def mms_generator_sets(q: int) -> tuple[np.ndarray, np.ndarray]:
    """The MMS generator sets X and X' for the prime power ``q = 4w + δ``.

    Parameters
    ----------
    q : int
        A prime power other than 2.

    Returns
    -------
    X, X_prime : ndarray of int64
        Sorted field elements (integers in the polynomial basis of :class:`topogen.gf.GF`),
        each of size ``(q - δ)/2`` and closed under negation.

    Raises
    ------
    ParameterError
        If q is not a prime power of the form 4w + δ.

    Notes
    -----
    With ξ the primitive element of GF(q) (:attr:`topogen.gf.GF.primitive`):

    * δ = 1:  X = {1, ξ^2, ..., ξ^(q-3)},  X' = {ξ, ξ^3, ..., ξ^(q-2)}
      (Slim Fly II-B1, Step 2, as printed);
    * δ = -1: X = {1, ξ^2, ..., ξ^(2w-2)} ∪ {ξ^(2w-1), ξ^(2w+1), ..., ξ^(4w-3)},
      X' = {ξ, ξ^3, ..., ξ^(2w-1)} ∪ {ξ^(2w), ξ^(2w+2), ..., ξ^(4w-2)};
    * δ = 0 (q = 4w = 2^m): X = {1, ξ^2, ..., ξ^(q-2)},  X' = {ξ, ξ^3, ..., ξ^(q-1)}.

    The paper prints only the δ = 1 sets and refers to Hafner [2] ("consult [35] for
    other formulae"); the δ = -1 and δ = 0 sets are Hafner's.  In every case X' = ξ X.
    For δ = -1 the two halves of X are swapped by negation (-1 = ξ^(2w-1)); for δ = 0
    negation is the identity (characteristic 2).  The tests check, for many q, that
    the resulting graph has degree (3q - δ)/2 and diameter 2.

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network
       Topology", SC'14 (arXiv version), Section II-B1.
    .. [2] P. R. Hafner, "Geometric realisation of the graphs of McKay-Miller-Širáň",
       J. Combin. Theory Ser. B 90 (2004) 223-232.
    """
    q = check_slimfly_q(q)
    field = GF(q)
    delta = _delta_of(q)
    w = (q - delta) // 4
    if delta == 1:
        ex, exp_ = np.arange(0, q - 2, 2), np.arange(1, q - 1, 2)
    elif delta == -1:
        ex = np.concatenate([np.arange(0, 2 * w - 1, 2), np.arange(2 * w - 1, 4 * w - 2, 2)])
        exp_ = np.concatenate([np.arange(1, 2 * w, 2), np.arange(2 * w, 4 * w - 1, 2)])
    else:
        ex, exp_ = np.arange(0, q - 1, 2), np.arange(1, q, 2)
    X = np.sort(np.asarray(field.power_of_primitive(ex), dtype=np.int64))
    Xp = np.sort(np.asarray(field.power_of_primitive(exp_), dtype=np.int64))
    return X, Xp


@dataclass(frozen=True)
class SlimFlyParameters:
    """The sizes of the Slim Fly MMS network for one q (Slim Fly Table I symbols).

    Attributes
    ----------
    q, delta, w : int
        ``q = 4w + δ``.
    routers : int
        N_r = 2 q^2.
    network_radix : int
        k' = (3q - δ)/2.
    balanced_hosts_per_switch : int
        p = ceil(k'/2) (II-B2).
    endpoints : int
        N = p N_r.
    router_radix : int
        k = k' + p.
    moore_bound : int
        1 + k'^2, the Moore bound for degree k' and diameter 2 (II-A).
    exact_balance : float
        k' N_r / (2 N_r - k' - 2), the unrounded balance point of II-B2.
    """

    q: int
    delta: int
    w: int
    routers: int
    network_radix: int
    balanced_hosts_per_switch: int
    endpoints: int
    router_radix: int
    moore_bound: int
    exact_balance: float


def slimfly_parameters(q: int) -> SlimFlyParameters:
    """Sizes of the Slim Fly of field order ``q`` without building it (see
    :class:`SlimFlyParameters`); ParameterError for an invalid q."""
    q = check_slimfly_q(q)
    delta = _delta_of(q)
    k = (3 * q - delta) // 2
    nr = 2 * q * q
    p = math.ceil(k / 2)
    return SlimFlyParameters(
        q=q, delta=delta, w=(q - delta) // 4, routers=nr, network_radix=k,
        balanced_hosts_per_switch=p, endpoints=p * nr, router_radix=k + p,
        moore_bound=1 + k * k, exact_balance=k * nr / (2 * nr - k - 2),
    )


def router_index(s, x, y, q: int):
    """Switch id of router ``(s, x, y)``: ``s*q*q + x*q + y`` (vectorised)."""
    return np.asarray(s) * q * q + np.asarray(x) * q + np.asarray(y)


def router_coordinates(v, q: int):
    """``(s, x, y)`` of switch id(s) ``v`` (inverse of :func:`router_index`)."""
    v = np.asarray(v)
    return v // (q * q), (v // q) % q, v % q


@register("slimfly", family="slimfly")
def slimfly(q: int, *, hosts_per_switch: int | None = None, delta: int | None = None) -> Topology:
    """Slim Fly (SF MMS): the McKay–Miller–Širáň diameter-2 graph on 2q^2 routers.

    Parameters
    ----------
    q : int
        Field order: a prime power q = 4w + δ with δ in {-1, 0, 1} (3, 4, 5, 7, 8, 9,
        11, 13, 16, 17, 19, ...; only q = 2 is excluded among prime powers).
    hosts_per_switch : int, optional
        Endpoints per router p.  Default: the balanced p = ceil(k'/2) of Section II-B2
        (full global bandwidth).  A larger value gives an oversubscribed network
        (Section V, Fig. 8 uses p = 16..21 with q = 19), a smaller one an
        undersubscribed one.
    delta : int, optional
        δ = q - 4w, derived from q (q mod 4 = 1, 0, 3 gives δ = 1, 0, -1).  If given it
        must match q; it is recorded in ``params``.

    Returns
    -------
    Topology
        ``2 q^2`` switches, each of network radix ``k' = (3q - δ)/2``, diameter 2.
        Switch ``s*q*q + x*q + y`` is router (s, x, y).  Links carry the kinds
        ``"intra0"`` (Eq. 1), ``"intra1"`` (Eq. 2) and ``"inter"`` (Eq. 3).
        ``cabinet`` is the native rack of Section VI-A: router (0, x, y) and (1, m, c)
        stand in rack x and rack m, so rack r holds subgroups (0, r, ·) and (1, r, ·)
        (q racks of 2q routers; see :func:`topogen.layout.slimfly.slimfly_floor`).
        ``params`` records ``q``, ``hosts_per_switch`` and ``delta``.

    Raises
    ------
    ParameterError
        If q is not a prime power of the form 4w + δ (the message names the nearest
        valid values), if ``delta`` does not match q, or ``hosts_per_switch < 0``.

    Notes
    -----
    Besta & Hoefler, Section II-B1: routers {0,1} x F_q x F_q, joined by
    Eq. (1) (0,x,y) ~ (0,x,y') iff y - y' in X; Eq. (2) (1,m,c) ~ (1,m,c') iff
    c - c' in X'; Eq. (3) (0,x,y) ~ (1,m,c) iff y = m x + c.  X and X' are given by
    :func:`mms_generator_sets`.  The paper's Step 1 builds "the commutative ring Z_q
    with modulo addition and multiplication"; that is a field only for prime q, so for
    q = 4, 8, 9, 16, 25, 27, 32, ... the construction is carried out in GF(q)
    (:mod:`topogen.gf`), as in the MMS/Hafner papers the construction is taken from.
    For q = 5 this is the Hoffman–Singleton graph (paper's example, ξ = 2,
    X = {1, 4}, X' = {2, 3}).

    Endpoints (II-B2): the network is balanced when
    p = k' N_r / (2 N_r - k' - 2) ≈ ceil(k'/2); the paper's example q = 19 gives
    722 routers, k' = 29, p = 15 and 10,830 endpoints.

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network
       Topology", SC'14 (arXiv version), Sections II-B1, II-B2, VI-A.
    .. [2] B. D. McKay, M. Miller, J. Širáň, "A note on large graphs of diameter two
       and given maximum degree", J. Combin. Theory Ser. B 74 (1998).
    .. [3] P. R. Hafner, "Geometric realisation of the graphs of McKay-Miller-Širáň",
       J. Combin. Theory Ser. B 90 (2004).
    """
    info = slimfly_parameters(q)
    q = info.q
    if delta is not None:
        delta = check_int("delta", delta, -1, 1)
        if delta != info.delta:
            raise ParameterError(
                f"delta={delta} does not match q={q}: q = 4*{info.w} {'+-'[info.delta < 0]} {abs(info.delta)}, "
                f"so delta must be "
                f"{info.delta} (or omitted)"
            )
    if hosts_per_switch is None:
        hosts_per_switch = info.balanced_hosts_per_switch
    hosts_per_switch = check_int("hosts_per_switch", hosts_per_switch, 0)

    field = GF(q)
    X, Xp = mms_generator_sets(q)
    e = np.arange(q, dtype=np.int64)
    qq = q * q

    def intra(gens, offset):
        # (s, x, y) ~ (s, x, y - t) for t in the generator set; keep each link once.
        x, y, t = (a.ravel() for a in np.meshgrid(e, e, gens, indexing="ij"))
        y2 = np.asarray(field.sub(y, t))
        u, v = offset + x * q + y, offset + x * q + y2
        keep = u < v
        return np.stack([u[keep], v[keep]], axis=1)

    e0 = intra(X, 0)
    e1 = intra(Xp, qq)
    x, m, c = (a.ravel() for a in np.meshgrid(e, e, e, indexing="ij"))
    y = np.asarray(field.add(field.mul(m, x), c))
    e2 = np.stack([x * q + y, qq + m * q + c], axis=1)
    edges = np.concatenate([e0, e1, e2])
    kinds = np.repeat(np.arange(3, dtype=np.int8), [len(e0), len(e1), len(e2)])
    rack = np.concatenate([np.repeat(e, q), np.repeat(e, q)])
    return Topology(
        2 * qq,
        edges,
        hosts_per_switch=hosts_per_switch,
        name="slimfly",
        params={"q": q, "hosts_per_switch": hosts_per_switch, "delta": info.delta},
        cabinet=rack,
        link_kind=kinds,
        kind_names=KIND_NAMES,
    )
