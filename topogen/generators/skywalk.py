"""Skywalk(z, c, d_i, d_o) of Fujiwara, Koibuchi, Matsutani and Casanova (IPDPS 2014).

``c`` cabinets of ``z`` switches stand on an ``x x y`` grid (``x = ceil(sqrt c)`` rows,
``y = ceil(c / x)`` columns, cabinet ``k`` at row ``k // y``, column ``k % y``; the
floor of :meth:`topogen.layout.Floor.skywalk`).  Switch ``k * z + j`` is switch ``j`` of
cabinet ``k``.  Three Uniform Random sub-topologies (Section II-C, engine in
:mod:`topogen.generators.uniform`) make the links:

``intra``
    per cabinet, on its ``z`` switches, ``d_i`` rounds;
``straight``
    on the cabinets, between cabinets in the same grid row or column;
``diagonal``
    on the cabinets, between cabinets in different rows and different columns.

An inter-cabinet link between two cabinets gets its endpoint switches cyclically:
each cabinet keeps one counter, shared by its straight and diagonal links (straight
built first), naming the switch that takes its next inter-cabinet link.

Reading of "repeat d_k times" at cabinet level
----------------------------------------------
With cabinets as vertices a round adds at most one link at each cabinet, but a
cabinet has ``z * d_k`` ports for sub-topology ``k`` (``d_k`` at each of its ``z``
switches).  Only ``z * d_k`` rounds give the switches the degree the paper reports
(Skywalk(8, 256, 7, 4) has degree 11, Section III-B; its 59 km of cable, Fig. 5,
needs about 3,840 straight cabinet pairs, which ``d_s = 4`` rounds cannot reach).
The default ``cabinet_rounds="ports"`` runs ``z * d_k`` rounds; ``"literal"`` runs
``d_k`` rounds as printed (then every switch gets at most ``ceil(d_k / z)`` links of
that kind).

Which construction: "saturate" (default) or "rounds"
---------------------------------------------------
Read literally, II-C pairs the vertices of a fresh copy ``W`` in a fixed number of
rounds; a round leaves some vertices unpaired, so about 8 % of the intra-cabinet links
are never made (Skywalk(8, 256, 7, 4): 6,615 of 7,168 intra links, 57.65 km of cable,
sd 0.05 km over 10 seeds).  Every number the paper prints for its instances says the
sub-topologies are complete, or saturated:

=====================================================  ======  ========  =========
claim (section)                                        paper   rounds    saturate
=====================================================  ======  ========  =========
Skywalk(8,256,7,4) total cable (III-B, Fig. 5)         59 km   57.65 km  59.07 km
(7,4) FR max latency vs Dragonfly (III-B, III-E)       +19 %   +26.6 %   +19.2 %
(7,4) FR max latency vs HyperX (III-E)                 +17.7 % +25.0 %   +17.7 %
(7,4) FR max latency vs Hypercube (III-C)              -34 %   -29.9 %   -34.0 %
(7,4) FR avg latency vs Dragonfly (III-B)              +17 %   +17.8 %   +16.9 %
(7,12) FR avg latency vs Dragonfly / HyperX (III-C)    +5.98 / +6.41 /   +5.80 /
                                                       +4.27 % +4.79 %   +4.20 %
=====================================================  ======  ========  =========

(the rounds spread over 10 seeds is 4 ns on the (7,4) FR max latency, far below the
60 ns gap).  II-B also says that with d_i = d_imax and d_o = d_smax + d_dmax Skywalk
*is* the fully-connected Dragonfly, which only the saturating reading makes true.  So
the default ``construction="saturate"`` repeats the rounds among the vertices that
still have free ports (d_i per switch, z * d_k per cabinet) until a round adds no
link; ``construction="rounds"`` keeps the fixed rounds as printed.
See ``docs/topologies/skywalk.md``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .._rng import child_seeds, resolve_seed
from .._validate import check_float, check_int
from ..errors import ParameterError
from ..layout.floor import Floor
from ..registry import register
from ..topology import Topology
from .uniform import (
    DEFAULT_INSTANCES,
    best_of_instances,
    grouped_uniform_random_links,
    uniform_random_links,
)

__all__ = ["skywalk", "skywalk_bounds", "straight_first", "KIND_NAMES", "CABINET_ROUNDS", "CONSTRUCTIONS"]

#: Link labels of a Skywalk topology (codes 0, 1, 2).
KIND_NAMES = ("intra", "straight", "diagonal")
#: Readings of "repeat d_k times" for the inter-cabinet sub-topologies.
CABINET_ROUNDS = ("ports", "literal")
#: "saturate" (default): rounds until no link fits; "rounds": the fixed rounds as printed.
CONSTRUCTIONS = ("rounds", "saturate")

# Distances are sums of multiples of 0.6 m and 2.1 m; compare with this slack (metres)
# so that a cable exactly at r * l_max is allowed despite floating-point rounding.
_DIST_EPS = 1e-9


def skywalk_bounds(switches_per_cabinet: int, cabinets: int) -> dict[str, int]:
    """Grid shape and degree bounds of Skywalk (Section II-B).

    Parameters
    ----------
    switches_per_cabinet : int
        z.
    cabinets : int
        c.

    Returns
    -------
    dict
        ``rows`` (x = ceil(sqrt c)), ``columns`` (y = ceil(c / x)), ``intra_max``
        (d_imax = z - 1), ``straight_max`` (d_smax = ceil((x + y - 2) / z)) and
        ``diagonal_max`` (d_dmax = ceil((x - 1)(y - 1) / z)).

    Raises
    ------
    ParameterError
        If z or c is not a positive integer.
    """
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    c = check_int("cabinets", cabinets, 1)
    floor = Floor.skywalk(c, z)
    x, y = floor.rows, floor.columns
    return {
        "rows": x,
        "columns": y,
        "intra_max": z - 1,
        "straight_max": -(-(x + y - 2) // z),
        "diagonal_max": -(-((x - 1) * (y - 1)) // z),
    }


def straight_first(inter_degree: int, straight_max: int, diagonal_max: int) -> tuple[int, int]:
    """The straight-first split of d_o (Skywalk II-D).

    Parameters
    ----------
    inter_degree : int
        d_o, inter-cabinet links per switch.
    straight_max, diagonal_max : int
        d_smax and d_dmax.

    Returns
    -------
    (int, int)
        ``d_s = min(d_o, d_smax)`` and ``d_d = min(d_o - d_s, d_dmax)``.

    Raises
    ------
    ParameterError
        If ``d_o > d_smax + d_dmax`` (the ports could not all be used).
    """
    d_o = check_int("inter_degree", inter_degree, 0)
    if d_o > straight_max + diagonal_max:
        raise ParameterError(
            f"inter_degree must be an integer in [0, {straight_max + diagonal_max}] "
            f"(d_smax + d_dmax = {straight_max} + {diagonal_max} for this grid), got {d_o}; "
            "lower inter_degree, or use more cabinets or fewer switches per cabinet"
        )
    d_s = min(d_o, straight_max)
    return d_s, min(d_o - d_s, diagonal_max)


@register("skywalk", family="skywalk")
def skywalk(
    switches_per_cabinet: int,
    cabinets: int,
    intra_degree: int,
    inter_degree: int | None = None,
    *,
    straight_degree: int | None = None,
    diagonal_degree: int | None = None,
    cable_bound: float = 1.0,
    cabinet_rounds: Literal["ports", "literal"] = "ports",
    construction: Literal["rounds", "saturate"] = "saturate",
    instances: int = DEFAULT_INSTANCES,
    instance: int | None = None,
    hosts_per_switch: int = 1,
    seed: int | None = None,
) -> Topology:
    """Skywalk(z, c, d_i, d_o): cabinet-conscious random topology (Fujiwara et al. 2014).

    Parameters
    ----------
    switches_per_cabinet : int
        z, switches in each cabinet (>= 1).
    cabinets : int
        c, number of cabinets (>= 1; N = z * c >= 2 switches).
    intra_degree : int
        d_i, intra-cabinet links per switch, in [0, z - 1].
    inter_degree : int, optional
        d_o = d_s + d_d, inter-cabinet links per switch, split straight-first (II-D):
        d_s = min(d_o, d_smax), d_d = min(d_o - d_s, d_dmax).  Required unless
        straight_degree or diagonal_degree is given.
    straight_degree : int, optional
        d_s, straight links per switch, in [0, d_smax]; overrides the straight-first
        split (with only one of straight_degree/diagonal_degree given, the other is
        inter_degree minus it, or 0 without inter_degree).
    diagonal_degree : int, optional
        d_d, diagonal links per switch, in [0, d_dmax]; see straight_degree.
    cable_bound : float
        r in (0, 1] (Section III-G): only cabinets at Manhattan distance at most
        r * l_max may be linked, l_max being the floor's corner-to-corner Manhattan
        distance.  1 is the original Skywalk.
    cabinet_rounds : {"ports", "literal"}
        Rounds of the inter-cabinet sub-topologies: z * d_k ("ports", default, gives
        every switch d_k links) or d_k as printed ("literal").
    construction : {"saturate", "rounds"}
        "saturate" (default) repeats the rounds of II-C among the vertices with free
        ports (d_i per switch, z * d_k per cabinet) until a round adds no link: the
        reading that reproduces the paper's 59 km and its latency ratios for
        Skywalk(8, 256, 7, 4) (module docstring).  "rounds" runs the fixed number of
        rounds as printed, in which some vertices stay unpaired.
    instances : int
        Instances built from ``child_seeds(seed, instances)``; the connected one with
        the most links is kept (10 in the paper, II-C).
    instance : int, optional
        Build only this instance index (as recorded in ``params["instance"]``).
    hosts_per_switch : int
        Compute nodes per switch (the paper's m).
    seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        ``z * c`` switches with native placement ``cabinet[k * z + j] = k`` and link
        kinds ``("intra", "straight", "diagonal")``; ``params`` records all parameters
        with the resolved ``straight_degree``, ``diagonal_degree``, ``inter_degree``,
        ``seed`` and the chosen ``instance``.

    Raises
    ------
    ParameterError
        A degree above its bound (d_imax = z - 1, d_smax = ceil((x + y - 2) / z),
        d_dmax = ceil((x - 1)(y - 1) / z), d_o > d_smax + d_dmax), inconsistent
        degrees, r outside (0, 1], or other out-of-range parameters.
    TopologyError
        If none of the instances is connected (raise the degrees or r).

    Notes
    -----
    Section II-B (parameters and bounds), II-C (Uniform Random sub-topologies, cyclic
    endpoints, best of 10), II-D (straight-first), III-A (floor: x = ceil(sqrt c) rows
    of y = ceil(c / x) cabinets, 0.6 m wide, 2.1 m deep), III-G (cable bound).

    Choices where the paper is silent or ambiguous:

    * *Rounds at cabinet level*: "repeat d_k times" applied to cabinets would give a
      switch at most ceil(d_k / z) links of kind k; the paper's degrees (11 for
      Skywalk(8, 256, 7, 4)) and cable lengths (59 km) need ``z * d_k`` rounds, one per
      cabinet port.  ``cabinet_rounds="literal"`` gives the printed reading.
    * *Not already connected* at cabinet level means the two cabinets have no link of
      any kind yet (straight and diagonal pairs are disjoint, so each pair of cabinets
      has at most one cable).
    * *Endpoints*: one cyclic counter per cabinet over all its inter-cabinet links in
      the order they are created, straight sub-topology first.
    * *Cable bound*: the distance is the Manhattan distance between the cabinets
      (0.6 m per column, 2.1 m per row) without the 4 m of end overhead, and l_max
      (:attr:`Floor.max_distance`) is measured the same way between the corner
      cabinets of the x by y grid (also when the last row is not full).
    * *Seeds*: each instance derives three child seeds, one per sub-topology, so for
      one seed the straight links do not change when only d_d changes.

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology
       for HPC Networks with Low-delay Switches", IPDPS 2014.
    """
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    c = check_int("cabinets", cabinets, 1)
    if z * c < 2:
        raise ParameterError(
            "switches_per_cabinet * cabinets must be at least 2 switches, got 1; "
            "use more cabinets or more switches per cabinet"
        )
    b = skywalk_bounds(z, c)
    x, y = b["rows"], b["columns"]
    grid = f"a {x} x {y} grid of {c} cabinets with switches_per_cabinet={z}"
    d_i = check_int(
        "intra_degree", intra_degree, 0, b["intra_max"],
        hint=f" (d_imax = z - 1 = {b['intra_max']}); lower intra_degree or raise switches_per_cabinet",
    )
    d_s, d_d = _resolve_inter(inter_degree, straight_degree, diagonal_degree, b, grid)
    r = check_float(
        "cable_bound", cable_bound, 0.0, 1.0, min_open=True,
        hint="; r = 1 is the original Skywalk, smaller values shorten cables (Section III-G)",
    )
    if construction not in CONSTRUCTIONS:
        raise ParameterError(
            f"construction must be one of {', '.join(CONSTRUCTIONS)}, got {construction!r}"
        )
    if cabinet_rounds not in CABINET_ROUNDS:
        raise ParameterError(
            f"cabinet_rounds must be one of {', '.join(CABINET_ROUNDS)}, got {cabinet_rounds!r}"
        )
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    seed = resolve_seed(seed)
    params = dict(
        switches_per_cabinet=z, cabinets=c, intra_degree=d_i, inter_degree=d_s + d_d,
        straight_degree=d_s, diagonal_degree=d_d, cable_bound=r, cabinet_rounds=cabinet_rounds,
        construction=construction, instances=instances, instance=instance, hosts_per_switch=hosts, seed=seed,
    )
    mult = z if cabinet_rounds == "ports" else 1
    sat = construction == "saturate"
    floor = Floor.skywalk(c, z)
    n = z * c
    # sub-topology constraints
    row, col = floor.position(np.arange(c))
    limit = r * floor.max_distance + _DIST_EPS
    straight_partners = _straight_partners(floor, limit)
    rowf = row.astype(np.int64)
    colf = col.astype(np.int64)
    depth, width = floor.cabinet_depth, floor.cabinet_width

    def diagonal_allowed(u, v):
        dr = rowf[u] - rowf[v]
        dc = colf[u] - colf[v]
        ok = (dr != 0) & (dc != 0)
        if r < 1.0:
            ok = ok & (np.abs(dr) * depth + np.abs(dc) * width <= limit)
        return ok

    cabinet_members = np.arange(n, dtype=np.int64).reshape(c, z)
    cabinet_of = np.repeat(np.arange(c, dtype=np.int64), z)

    def build(s: int) -> Topology:
        s_intra, s_straight, s_diag = child_seeds(s, 3)
        intra = np.zeros((0, 2), np.int64)
        straight = np.zeros((0, 2), np.int64)
        diagonal = np.zeros((0, 2), np.int64)
        if d_i:
            intra = grouped_uniform_random_links(
                cabinet_members, None if sat else d_i, rng=s_intra, capacity=d_i if sat else None
            )
        if d_s:
            straight = uniform_random_links(
                c, None if sat else mult * d_s, rng=s_straight, partners=straight_partners,
                capacity=mult * d_s if sat else None,
            )
        if d_d:
            diagonal = uniform_random_links(
                c, None if sat else mult * d_d, rng=s_diag, allowed=diagonal_allowed,
                capacity=mult * d_d if sat else None,
            )
        inter = _cyclic_endpoints(np.concatenate([straight, diagonal]), z)
        edges = np.concatenate([intra, inter])
        kinds = np.concatenate([
            np.zeros(len(intra), np.int8),
            np.ones(len(straight), np.int8),
            np.full(len(diagonal), 2, np.int8),
        ])
        return Topology(n, edges, hosts_per_switch=hosts, name="skywalk", params=params,
                        seed=seed, cabinet=cabinet_of, link_kind=kinds, kind_names=KIND_NAMES)

    topo, idx, _ = best_of_instances(
        build, seed, instances, instance=instance,
        what=f"Skywalk({z}, {c}, {d_i}, {d_s + d_d})",
    )
    return topo.replace(params={**params, "instance": idx})


def _resolve_inter(inter_degree, straight_degree, diagonal_degree, b, grid) -> tuple[int, int]:
    s_max, d_max = b["straight_max"], b["diagonal_max"]
    if straight_degree is None and diagonal_degree is None:
        if inter_degree is None:
            raise ParameterError(
                "skywalk needs inter_degree (d_o), or straight_degree/diagonal_degree (d_s, d_d)"
            )
        return straight_first(inter_degree, s_max, d_max)
    d_o = None if inter_degree is None else check_int("inter_degree", inter_degree, 0)
    hint_s = f" (d_smax = ceil((x + y - 2) / z) = {s_max} for {grid})"
    hint_d = f" (d_dmax = ceil((x - 1)(y - 1) / z) = {d_max} for {grid})"
    if straight_degree is not None:
        d_s = check_int("straight_degree", straight_degree, 0, s_max, hint=hint_s)
    if diagonal_degree is not None:
        d_d = check_int("diagonal_degree", diagonal_degree, 0, d_max, hint=hint_d)
    if straight_degree is None:
        d_s = 0 if d_o is None else check_int(
            "straight_degree", d_o - d_d, 0, s_max,
            hint=f" (= inter_degree - diagonal_degree){hint_s}; adjust inter_degree or diagonal_degree",
        )
    if diagonal_degree is None:
        d_d = 0 if d_o is None else check_int(
            "diagonal_degree", d_o - d_s, 0, d_max,
            hint=f" (= inter_degree - straight_degree){hint_d}; adjust inter_degree or straight_degree",
        )
    if d_o is not None and d_o != d_s + d_d:
        raise ParameterError(
            f"inter_degree must equal straight_degree + diagonal_degree = {d_s + d_d}, got {d_o}; "
            "give inter_degree alone for the straight-first split, or leave it unset"
        )
    return d_s, d_d


def _straight_partners(floor: Floor, limit: float) -> list[list[int]]:
    """For each cabinet, the cabinets in its row or column within ``limit`` metres."""
    c, y = floor.cabinets, floor.columns
    out = []
    for a in range(c):
        r, q = divmod(a, y)
        same_row = np.arange(r * y, min(c, r * y + y))
        same_col = np.arange(q, c, y)
        row_d = np.abs(same_row - a) * floor.cabinet_width
        col_d = np.abs(same_col // y - r) * floor.cabinet_depth
        cand = np.concatenate([same_row[(same_row != a) & (row_d <= limit)],
                               same_col[(same_col != a) & (col_d <= limit)]])
        out.append(np.sort(cand).tolist())
    return out


def _cyclic_endpoints(cab_links: np.ndarray, z: int) -> np.ndarray:
    """Switch endpoints of cabinet links: the j-th link (in order) at cabinet k uses
    switch ``k * z + j mod z`` (Skywalk II-C)."""
    if len(cab_links) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    seq = cab_links.reshape(-1)  # a0, b0, a1, b1, ... in creation order
    order = np.argsort(seq, kind="stable")
    sorted_cab = seq[order]
    first = np.searchsorted(sorted_cab, sorted_cab, side="left")
    rank = np.empty_like(seq)
    rank[order] = np.arange(len(seq)) - first
    return (seq * z + rank % z).reshape(-1, 2)
