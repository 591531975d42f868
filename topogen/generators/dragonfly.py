"""Dragonfly topologies: Kim et al.'s Dragonfly(a, p, h) and Skywalk's fully-connected
Dragonfly(z, c, d) on cabinets.

Both are built by one routine: ``g`` groups of ``a`` routers, the routers of a group fully
connected by local links, and one global link between every pair of groups.  Router ``r`` of
group ``i`` is switch ``i * a + r``.

Global ports
------------
Each group has ``g - 1`` used global ports, numbered ``q = 0 .. g - 2`` (a group of a
balanced, maximum-size Dragonfly uses all its ``a * h`` ports).  Two choices fix the links:

*which group a port leads to* (``arrangement``), for group ``i`` and port ``q``:

``"consecutive"``
    group ``(i + q + 1) mod g``: the ports in order reach groups i+1, i+2, ... wrapping
    around and so skipping group i itself.  The link to group ``t`` uses port
    ``(t - i - 1) mod g`` at ``i``.
``"palmtree"``
    group ``(i - q - 1) mod g``: the palm-tree arrangement of M. Garcia (used by Camarero
    et al. 2014); in a maximum-size Dragonfly port ``q`` of group i meets port
    ``a*h - 1 - q`` of the other group, i.e. router r meets router a - 1 - r.
``"absolute"``
    the q-th other group in increasing id order (0, 1, ..., skipping i): group ``q`` if
    ``q < i`` else ``q + 1``.

*which router holds a port* (``global_port_order``):

``"router"`` (default)
    port q is on router ``q // h`` (router r holds ports ``r*h .. r*h + h - 1``, the port
    numbering of Kim et al. Fig. 2).  With fewer groups than ``a*h + 1`` the last routers
    hold fewer (or no) global links.
``"round-robin"``
    port q is on router ``q mod a``: the global links of a group spread as evenly as
    possible over its routers (every router has ``floor`` or ``ceil((g-1)/a)`` of them).

All arrangements give exactly one link between every pair of groups and at most ``h``
global links per router; they differ in which routers the links join, which matters for
routing and throughput, not for hop counts of the paper's diameter-3 argument.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = ["dragonfly", "cabinet_dragonfly", "cabinet_dragonfly_degree", "ARRANGEMENTS", "GLOBAL_PORT_ORDERS"]

ARRANGEMENTS = ("consecutive", "palmtree", "absolute")
GLOBAL_PORT_ORDERS = ("router", "round-robin")

_MAX_SWITCHES = 2**31 - 1


def _port_to(arrangement: str, i: np.ndarray, t: np.ndarray, g: int) -> np.ndarray:
    """Global port of group ``i`` whose link leads to group ``t`` (the arrangements of the
    module documentation, inverted: e.g. "consecutive" sends port q of group i to group
    (i + q + 1) mod g, so the port towards t is (t - i - 1) mod g)."""
    if arrangement == "consecutive":
        return (t - i - 1) % g
    if arrangement == "palmtree":
        return (i - t - 1) % g
    return t - (t > i)  # absolute


def _check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ParameterError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _dragonfly_edges(a: int, h: int, g: int, arrangement: str, port_order: str):
    """Links (E, 2) and kind codes (0 local, 1 global) of a g-group Dragonfly."""
    # local: a clique on the a routers of each group
    r1, r2 = np.triu_indices(a, 1)
    base = (np.arange(g, dtype=np.int64) * a)[:, None]
    local = np.stack([(base + r1).ravel(), (base + r2).ravel()], axis=1)
    # global: one link per pair of groups i < t, on port q at i and port q_back at t
    i, t = (x.astype(np.int64) for x in np.triu_indices(g, 1))
    q = _port_to(arrangement, i, t, g)
    q_back = _port_to(arrangement, t, i, g)
    if port_order == "router":
        ri, rt = q // h, q_back // h
    else:
        ri, rt = q % a, q_back % a
    glob = np.stack([i * a + ri, t * a + rt], axis=1)
    edges = np.concatenate([local, glob])
    kinds = np.concatenate([np.zeros(len(local), np.int8), np.ones(len(glob), np.int8)])
    return edges, kinds


@register("dragonfly", family="dragonfly")
def dragonfly(
    a: int,
    p: int,
    h: int,
    *,
    groups: int | None = None,
    arrangement: Literal["consecutive", "palmtree", "absolute"] = "consecutive",
    global_port_order: Literal["router", "round-robin"] = "router",
) -> Topology:
    """Kim et al.'s Dragonfly(a, p, h): fully connected groups, one global link per group pair.

    Parameters
    ----------
    a : int
        Routers per group (>= 1); the routers of a group are fully connected.
    p : int
        Hosts (terminals) per router (>= 0); plays the role of ``hosts_per_switch``.
    h : int
        Global links per router (>= 1).
    groups : int, optional
        Number of groups g, in [1, a*h + 1]; default ``a*h + 1``, the largest Dragonfly
        in which every pair of groups is joined by exactly one global link.
    arrangement : {"consecutive", "palmtree", "absolute"}
        Which group each global port reaches (see the module documentation);
        ``"consecutive"``: port q of group i reaches group ``(i + q + 1) mod g``.
    global_port_order : {"router", "round-robin"}
        Which router holds global port q: ``q // h`` (default) or ``q mod a``.

    Returns
    -------
    Topology
        ``a * g`` switches, router r of group i being switch ``i*a + r``; native placement
        ``cabinet = group`` (one group per cabinet, as Skywalk maps groups to cabinets);
        link kinds ``"local"`` and ``"global"``.  ``params`` also records
        ``balanced = (a == 2p == 2h)``, Kim et al.'s load-balanced configuration.

    Raises
    ------
    ParameterError
        If a parameter is out of range, in particular ``groups > a*h + 1``.

    Notes
    -----
    Kim, Dally, Scott, Abts (ISCA 2008) Sec. 3: each router has p terminal ports, a - 1
    local ports and h global ports (radix k = p + a + h - 1); a group acts as a virtual
    router of radix a(p + h) and up to ``g = a*h + 1`` groups can be fully connected with
    one global link per pair, for ``N = a*p*(a*h + 1)`` terminals.  The paper recommends
    ``a = 2p = 2h`` to balance channel load.  Router degree (links to other routers) is at
    most ``a - 1 + h`` (reached by every router when ``g = a*h + 1``).  Minimal routes are
    local-global-local, so the diameter is at most 3 (exactly 3 for the usual
    configurations with a >= 2 and g >= 2); with a = 1 the groups are single routers and
    the network is the complete graph K_g (diameter 1).

    The global arrangement is not fixed by Kim et al.; three well-known ones are offered.
    Skywalk's Dragonfly(z, c, d) is ``dragonfly(a=z, p, h=ceil((c-1)/z), groups=c)``
    (see :func:`cabinet_dragonfly`).

    References
    ----------
    .. [1] J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-Driven, Highly-Scalable
       Dragonfly Topology", ISCA 2008, Sec. 3.
    .. [2] C. Camarero, E. Vallejo, R. Beivide, "Topological Characterization of Hamming and
       Dragonfly Networks and Its Implications on Routing", ACM TACO 11(4), 2014
       (palm-tree arrangement).
    """
    a = check_int("a", a, 1, hint=" (routers per group)")
    p = check_int("p", p, 0, hint=" (hosts per router)")
    h = check_int("h", h, 1, hint=" (global links per router)")
    gmax = a * h + 1
    g = gmax if groups is None else check_int(
        "groups", groups, 1, gmax,
        hint=f" (one global link per pair of groups needs g <= a*h + 1 = {gmax}; raise h or a)",
    )
    _check_choice("arrangement", arrangement, ARRANGEMENTS)
    _check_choice("global_port_order", global_port_order, GLOBAL_PORT_ORDERS)
    n = a * g
    if n > _MAX_SWITCHES:
        raise ParameterError(f"a * groups = {n} switches; at most {_MAX_SWITCHES} are supported")
    edges, kinds = _dragonfly_edges(a, h, g, arrangement, global_port_order)
    return Topology(
        n, edges, p, name="dragonfly",
        params={
            "a": a, "p": p, "h": h, "groups": g, "arrangement": arrangement,
            "global_port_order": global_port_order, "balanced": a == 2 * p == 2 * h,
        },
        cabinet=np.arange(n, dtype=np.int64) // a,
        link_kind=kinds, kind_names=("local", "global"),
    )


@register("cabinet-dragonfly", family="dragonfly")
def cabinet_dragonfly(
    switches_per_cabinet: int,
    cabinets: int,
    *,
    arrangement: Literal["consecutive", "palmtree", "absolute"] = "consecutive",
    global_port_order: Literal["router", "round-robin"] = "router",
    hosts_per_switch: int = 1,
) -> Topology:
    """Skywalk's fully-connected Dragonfly(z, c, d): a cabinet is a group, all groups linked.

    Parameters
    ----------
    switches_per_cabinet : int
        z, the routers of a group/cabinet (>= 1), fully connected.
    cabinets : int
        c, the number of groups (>= 1); every pair of cabinets is joined by one global link.
    arrangement : {"consecutive", "palmtree", "absolute"}
        Which cabinet each global port reaches (module documentation); default
        ``"consecutive"``: port q of cabinet i reaches cabinet ``(i + q + 1) mod c``.
    global_port_order : {"router", "round-robin"}
        Which switch of a cabinet holds global port q: ``q // h`` with
        ``h = ceil((c-1)/z)`` (default), or ``q mod z`` (spread evenly).
    hosts_per_switch : int
        Compute nodes attached to each switch (>= 0).

    Returns
    -------
    Topology
        ``z * c`` switches, switch ``v`` in cabinet ``v // z`` (native placement); link
        kinds ``"intra"`` and ``"global"``.

    Raises
    ------
    ParameterError
        If z or c is < 1 or ``z * c`` exceeds 2**31 - 1.

    Notes
    -----
    Skywalk Sec. III-A: "Dragonfly(z, c, d): a fully-connected Dragonfly topology of degree
    d = z - 1 + ceil((c-1)/z) ... A cabinet corresponds to a 'group of routers' ... All
    the switches (routers) in a cabinet (group) are fully connected, and all the cabinets
    (groups) are also fully connected."  A cabinet has c - 1 global links; they are spread
    over its z switches at most ``h = ceil((c-1)/z)`` per switch, so the degree is exactly
    the paper's d (z - 1 local links plus at most h global ones).  This is Kim et al.'s
    Dragonfly with ``a = z``, that h, and ``g = c <= a*h + 1`` groups (Skywalk II-B: "If
    d_i = d_imax and d_o = d_smax + d_dmax, then Skywalk is identical to the
    fully-connected Dragonfly").  Total cable on Skywalk's floor
    does not depend on the arrangement: Dragonfly(8, 256, 39) has 614,912 m (615 km,
    Sec. III-B).  Diameter 3 (1 if z = 1; smaller for tiny instances).

    References
    ----------
    .. [1] Fujiwara et al., "Skywalk: a Topology for HPC Networks with Low-delay Switches",
       IPDPS 2014, Sec. III-A, III-B.
    .. [2] J. Kim et al., "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008.
    """
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    c = check_int("cabinets", cabinets, 1)
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    _check_choice("arrangement", arrangement, ARRANGEMENTS)
    _check_choice("global_port_order", global_port_order, GLOBAL_PORT_ORDERS)
    n = z * c
    if n > _MAX_SWITCHES:
        raise ParameterError(
            f"switches_per_cabinet * cabinets = {n} switches; at most {_MAX_SWITCHES} are supported"
        )
    h = max(1, -(-(c - 1) // z))
    edges, kinds = _dragonfly_edges(z, h, c, arrangement, global_port_order)
    return Topology(
        n, edges, hosts, name="cabinet-dragonfly",
        params={
            "switches_per_cabinet": z, "cabinets": c, "arrangement": arrangement,
            "global_port_order": global_port_order, "hosts_per_switch": hosts,
        },
        cabinet=np.arange(n, dtype=np.int64) // z,
        link_kind=kinds, kind_names=("intra", "global"),
    )


def cabinet_dragonfly_degree(switches_per_cabinet: int, cabinets: int) -> int:
    """Skywalk's degree formula ``d = z - 1 + ceil((c - 1) / z)`` (Sec. III-A)."""
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    c = check_int("cabinets", cabinets, 1)
    return z - 1 + math.ceil((c - 1) / z)
