"""Moore graphs: the Petersen and Hoffman–Singleton graphs.

A *Moore graph* of degree ``d`` and diameter ``D`` has exactly as many vertices as the
Moore bound allows, ``1 + d * sum_{i<D} (d-1)^i`` (:func:`topogen.metrics.bounds.moore_bound`).
For diameter 2 the Hoffman–Singleton theorem leaves degrees 2, 3, 7 and (perhaps) 57; the
pentagon (d = 2), the Petersen graph (d = 3, 10 vertices) and the Hoffman–Singleton graph
(d = 7, 50 vertices) are the known ones (MEMSYS '16, Section 1.1 "Moore Graphs", Fig. 4).

Both graphs are built from their classical constructions, not from a table:

* Petersen = Kneser graph K(5, 2);
* Hoffman–Singleton = Robertson's five pentagons and five pentagrams.

The diameter-3 graphs of Slim Fly Section II-C (Bermond–Delorme–Farhi, Delorme) are not
provided; ``docs/topologies/moore.md`` explains why.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..registry import register
from ..topology import Topology

__all__ = ["petersen", "hoffman_singleton"]


@register("petersen", family="moore")
def petersen(*, hosts_per_switch: int = 1) -> Topology:
    """The Petersen graph: the Moore graph of degree 3 and diameter 2 (10 switches).

    Parameters
    ----------
    hosts_per_switch : int
        Hosts (compute or memory nodes) attached to each switch, >= 0 (default 1: in
        MEMSYS '16 every graph vertex is a node).

    Returns
    -------
    Topology
        10 switches, 15 links, every switch of degree 3, diameter 2, girth 5.
        ``params`` records ``hosts_per_switch``.

    Raises
    ------
    ParameterError
        If ``hosts_per_switch`` is not a non-negative integer.

    Notes
    -----
    Built as the Kneser graph K(5, 2): the switches are the 2-element subsets of
    {0, ..., 4} in lexicographic order ({0,1} -> 0, {0,2} -> 1, ..., {3,4} -> 9), and
    two switches are linked iff their subsets are disjoint.  It attains the Moore bound
    1 + 3 + 3*2 = 10 (MEMSYS '16, Section 1.1, Fig. 4 left and Table 1, ports 3,
    diameter 2).

    References
    ----------
    .. [1] S. Li et al., "Low Latency, High Bisection-Bandwidth Networks for Exascale
       Memory Systems", MEMSYS '16, Section 1.1 (Moore Graphs), Table 1.
    .. [2] A. J. Hoffman, R. R. Singleton, "On Moore graphs with diameters 2 and 3",
       IBM J. Res. Dev. 4(5), 1960.
    """
    hosts_per_switch = check_int("hosts_per_switch", hosts_per_switch, 0)
    a, b = np.triu_indices(5, k=1)  # lexicographic 2-subsets
    masks = (1 << a) | (1 << b)
    u, v = np.nonzero(np.triu((masks[:, None] & masks[None, :]) == 0, k=1))
    return Topology(
        10,
        np.stack([u, v], axis=1),
        hosts_per_switch=hosts_per_switch,
        name="petersen",
        params={"hosts_per_switch": hosts_per_switch},
    )


@register("hoffman-singleton", family="moore")
def hoffman_singleton(*, hosts_per_switch: int = 1) -> Topology:
    """The Hoffman–Singleton graph: the Moore graph of degree 7 and diameter 2 (50 switches).

    Parameters
    ----------
    hosts_per_switch : int
        Hosts attached to each switch, >= 0 (default 1).

    Returns
    -------
    Topology
        50 switches, 175 links, 7-regular, diameter 2, girth 5.  Links carry the kinds
        ``"pentagon"``, ``"pentagram"`` and ``"join"`` (see Notes).

    Raises
    ------
    ParameterError
        If ``hosts_per_switch`` is not a non-negative integer.

    Notes
    -----
    Robertson's construction: five pentagons P_0..P_4 and five pentagrams Q_0..Q_4 on
    vertices j in Z_5.  In P_h, j ~ j+1; in Q_i, j ~ j+2; and P_h[j] ~ Q_i[h*i + j]
    (mod 5) for all h, i, j.

    Numbering: P_h[j] -> 10*h + j and Q_h[j] -> 10*h + 5 + j.  With this numbering the
    block of switches ``10*h .. 10*h + 9`` (P_h with Q_h) induces a Petersen graph, so
    the five blocks are the five disjoint Petersen copies that MEMSYS '16 (Section 1.1,
    Fig. 4 middle) points out: "only one circuit board design would be needed for the
    subnetworks".  Each switch has 2 pentagon or pentagram links and 5 join links, one
    to each pentagram (or pentagon).

    The graph attains the Moore bound 1 + 7 + 7*6 = 50 (MEMSYS '16 Table 1) and is the
    Slim Fly / MMS graph for q = 5 (Besta & Hoefler, Section II-B).

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1 (Moore Graphs), Fig. 4, Table 1.
    .. [2] A. J. Hoffman, R. R. Singleton, IBM J. Res. Dev. 4(5), 1960.
    .. [3] K. D. Robertson, "Graphs minimal under girth, valency and connectivity
       constraints", PhD thesis, University of Waterloo, 1969.
    """
    hosts_per_switch = check_int("hosts_per_switch", hosts_per_switch, 0)
    h, j = np.meshgrid(np.arange(5), np.arange(5), indexing="ij")
    h, j = h.ravel(), j.ravel()
    pent = np.stack([10 * h + j, 10 * h + (j + 1) % 5], axis=1)
    star = np.stack([10 * h + 5 + j, 10 * h + 5 + (j + 2) % 5], axis=1)
    hh, ii, jj = (x.ravel() for x in np.meshgrid(np.arange(5), np.arange(5), np.arange(5), indexing="ij"))
    join = np.stack([10 * hh + jj, 10 * ii + 5 + (hh * ii + jj) % 5], axis=1)
    edges = np.concatenate([pent, star, join])
    kinds = np.repeat(np.arange(3, dtype=np.int8), [len(pent), len(star), len(join)])
    return Topology(
        50,
        edges,
        hosts_per_switch=hosts_per_switch,
        name="hoffman-singleton",
        params={"hosts_per_switch": hosts_per_switch},
        link_kind=kinds,
        kind_names=("pentagon", "pentagram", "join"),
    )
