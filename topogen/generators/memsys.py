"""The high-radix families of Li et al., MEMSYS '16, Section 1.1, with the paper's formulas.

MEMSYS '16 characterises every family by four numbers: nodes, ports per router,
bisection links and maximum latency (the diameter), and compares them with one
efficiency metric (Section 3.2).  This module gives

* :func:`memsys_dragonfly` -- the paper's Dragonfly "fully connected graph of fully
  connected graphs" with ``p`` intra-subnet and ``s`` inter-subnet ports per router
  (registered as ``memsys-dragonfly``);
* the paper's formulas for n-D tori / hypercubes (:func:`torus_formulas`), n-D flattened
  butterflies (:func:`flattened_butterfly_formulas`), diameter-2 Moore graphs
  (:func:`moore2_formulas`) and the Dragonfly (:func:`dragonfly_formulas`), each returned
  as a :class:`Formulas` record, plus exact average-hop counts derived from the
  constructions where a closed form exists;
* the Section 3.2 metric, :func:`efficiency`, and the Section 2 cost of routing around a
  failed router, :func:`reroute_around`.

The torus and flattened-butterfly *graphs* themselves come from
:func:`topogen.generators.classic.torus` and :func:`topogen.generators.classic.hyperx`;
the Fishnet families (Angelfish, Flying Fish) are in :mod:`topogen.generators.fishnet`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .._validate import check_float, check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = [
    "Formulas",
    "memsys_dragonfly",
    "dragonfly_formulas",
    "torus_formulas",
    "flattened_butterfly_formulas",
    "moore2_formulas",
    "efficiency",
    "Reroute",
    "reroute_around",
    "MAX_TORUS_DIMENSION",
]

#: The paper scales tori "from 2D to 10D" (Section 1.1, Fig. 2, Fig. 12).
MAX_TORUS_DIMENSION = 10


@dataclass(frozen=True)
class Formulas:
    """The MEMSYS '16 characteristics of one network, as the paper's formulas give them.

    Attributes
    ----------
    nodes : int
        Number of routers (one node per router, concentration c = 1, Section 1).
    ports : int
        Router-to-router ports per router (the maximum over routers).
    diameter : int
        Maximum latency in hops (the graph diameter).
    bisection_links : float
        The paper's bisection estimate in links (printed with "~" in the paper).
    avg_hops : float or None
        Exact mean distance over ordered pairs of distinct routers, where a closed form
        follows from the construction (None otherwise).
    """

    nodes: int
    ports: int
    diameter: int
    bisection_links: float
    avg_hops: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------- Section 3.2
def efficiency(bisection_links: float, ports: float, avg_hops: float, nodes: float) -> float:
    """MEMSYS '16 Section 3.2 metric: bisection per ports-latency product, scaled by size.

    Parameters
    ----------
    bisection_links : float
        Bisection bandwidth in links (> 0).
    ports : float
        Ports per router (> 0).
    avg_hops : float
        Average latency in hops (> 0).
    nodes : float
        System size (> 0).

    Returns
    -------
    float
        ``bisection_links / (ports * avg_hops) / nodes``; higher is better.

    Raises
    ------
    ParameterError
        If an argument is not a positive finite number.

    Notes
    -----
    Section 3.2: "The metric is bisection bandwidth divided by ports and latency; because
    bisection bandwidth grows much, much faster than the number of ports or the average
    latency through the network, we scale the metric by the system size" (Figure 14,
    "Bisection per Ports-Latency Product, scaled by System Size").  Scaling by the size
    means dividing by it: doubling ports or latency halves the metric, exactly as the
    paper's worked comparisons state.

    References
    ----------
    .. [1] S. Li et al., "Low Latency, High Bisection-Bandwidth Networks for Exascale
       Memory Systems", MEMSYS '16, Section 3.2, Figure 14.
    """
    b = check_float("bisection_links", bisection_links, 0, min_open=True)
    p = check_float("ports", ports, 0, min_open=True)
    h = check_float("avg_hops", avg_hops, 0, min_open=True)
    n = check_float("nodes", nodes, 0, min_open=True)
    return b / (p * h) / n


# ----------------------------------------------------------------------------- tori
def torus_formulas(n: int, dimension: int) -> Formulas:
    """Nodes, ports, bisection and latency of the D-dimensional torus of side n (Sec. 1.1).

    Parameters
    ----------
    n : int
        Length of a side, >= 2 (n = 2 is the hypercube).
    dimension : int
        Dimension D in [1, 10] (the paper scales tori from 2D to 10D).

    Returns
    -------
    Formulas
        ``nodes = n**D``; ``ports = 2D`` (``D`` for n = 2); ``bisection_links =
        2 n**(D-1)`` (``n**(D-1)`` for n = 2); ``diameter = D * floor(n/2)``;
        ``avg_hops = D n**(D-1) floor(n**2/4) / (n**D - 1)``.

    Raises
    ------
    ParameterError
        If n < 2 or D is outside [1, 10].

    Notes
    -----
    Nodes, ports and bisection are the paper's bullets (Section 1.1, "Hypercube, Torus,
    and Higher-Dimensional Extensions"); they match :func:`topogen.generators.classic.torus`
    for n >= 3 and n = 2 (whose wraparound coincides with the mesh link).  n = 3 is
    worth a remark: the ring of 3 has 3 links, and a bisection of it cuts 2, so the
    paper's ``2 n**(D-1)`` still holds as a balanced cut of one dimension.

    The paper prints the maximum latency as "~Dn" and notes it "depends on actual
    configuration, such as whether the length of a side n is an even number or odd".
    The exact diameter of the torus is ``D * floor(n / 2)`` (a ring of n has diameter
    floor(n/2), and distances add over dimensions), so "~Dn" is an order of magnitude
    (twice the truth for even n).  We return the exact value; the reproduction shows
    the paper's ``D n`` beside it.

    The average is derived, not printed: the distances from one ring node sum to
    ``floor(n**2/4)``; over D dimensions and all ``n**D - 1`` other nodes this gives the
    mean above.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1 and Figure 2; Figure 12 (average
       latencies of tori).
    """
    n = check_int("n", n, 2, hint=" (n = 2 is the hypercube; a side of 1 is no network)")
    d = check_int("dimension", dimension, 1, MAX_TORUS_DIMENSION)
    nodes = n**d
    ports = d if n == 2 else 2 * d
    bisection = n ** (d - 1) if n == 2 else 2 * n ** (d - 1)
    ring_sum = n * n // 4
    avg = d * n ** (d - 1) * ring_sum / (nodes - 1)
    return Formulas(nodes, ports, d * (n // 2), float(bisection), avg)


# ----------------------------------------------------------------------------- flattened butterfly
def flattened_butterfly_formulas(n: int, dimension: int) -> Formulas:
    """Nodes, ports, bisection and latency of the D-dimensional flattened butterfly (Sec. 1.1).

    Parameters
    ----------
    n : int
        Length of a side, >= 2.
    dimension : int
        Dimension D >= 1.

    Returns
    -------
    Formulas
        ``nodes = n**D``, ``ports = D (n - 1)``, ``bisection_links = n**(D-1) (n/2)**2``,
        ``diameter = D``, ``avg_hops = D (n - 1) n**(D-1) / (n**D - 1)``.

    Raises
    ------
    ParameterError
        If n < 2 or D < 1.

    Notes
    -----
    The paper's bullets (Section 1.1, "Flattened Butterfly and Higher-Dimensional
    Extensions", Figure 3).  The bisection is exact for even n (cutting one dimension in
    half cuts ``(n/2)**2`` links of each of its ``n**(D-1)`` cliques K_n); for odd n the
    best one-dimension cut is ``floor(n/2) ceil(n/2)`` per clique, which the paper's "~"
    covers.  The average is derived: a random other node differs from the source in each
    coordinate with probability ``(n-1)/n`` and the distance is the number of differing
    coordinates.  The graph is :func:`topogen.generators.classic.hyperx` ``((n,) * D)``.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 3.
    """
    n = check_int("n", n, 2)
    d = check_int("dimension", dimension, 1)
    nodes = n**d
    return Formulas(
        nodes,
        d * (n - 1),
        d,
        float(n ** (d - 1) * (n / 2) ** 2),
        d * (n - 1) * n ** (d - 1) / (nodes - 1),
    )


# ----------------------------------------------------------------------------- Moore
def moore2_formulas(p: int) -> Formulas:
    """The paper's characteristics of a diameter-2 Moore graph with p ports (Sec. 1.1).

    Parameters
    ----------
    p : int
        Ports per node, >= 2.

    Returns
    -------
    Formulas
        ``nodes = p**2 + 1`` (the Moore bound), ``ports = p``, ``diameter = 2``,
        ``bisection_links = (p - 2) nodes / 4`` as printed, ``avg_hops = (2p - 1)/p``.

    Raises
    ------
    ParameterError
        If p < 2.

    Notes
    -----
    The node count is an upper bound reached only for p = 2, 3, 7 (and perhaps 57); the
    paper says so (Section 1.1, "Moore Graphs", Table 1).  The average follows from the
    bound: p neighbours at 1 hop and the other ``p**2 - p`` nodes at 2 hops.  The
    bisection bullet "~(p-2)(Nodes/4)" is reproduced as printed; it is not derived in the
    paper (for the Petersen graph it gives 2.5 links while the true bisection width is 5,
    so treat it as a rough trend only).

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 4, Table 1.
    """
    p = check_int("p", p, 2)
    nodes = p * p + 1
    return Formulas(nodes, p, 2, (p - 2) * nodes / 4, (2 * p - 1) / p)


# ----------------------------------------------------------------------------- Dragonfly
def _check_dragonfly(p, s) -> tuple[int, int]:
    p = check_int("p", p, 1, hint=" (p intra-subnet ports: subnets are complete graphs K_{p+1})")
    m = p + 1
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 1 <= int(s) <= m * m:
        near = ""
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            near = f"; nearest valid: {min(max(int(s), 1), m * m)}"
        raise ParameterError(
            f"s (inter-subnet ports) must be an integer in [1, {m * m}] for p={p} "
            f"(s = p + 1 = {m} is the Dragonfly limit, diameter 2; s > {m * m} would need "
            f"parallel links between two subnets of {m} routers), got {s!r}{near}"
        )
    return p, int(s)


def dragonfly_formulas(p: int, s: int = 1) -> Formulas:
    """MEMSYS '16 Dragonfly with p intra-subnet and s inter-subnet ports: formulas.

    Parameters
    ----------
    p : int
        Intra-subnet ports per router, >= 1.
    s : int
        Inter-subnet ports per router, in ``[1, (p + 1)**2]``.

    Returns
    -------
    Formulas
        ``nodes = (p + 1)(p + 2)``, ``ports = p + s``, ``bisection_links =
        s (p + 2)**2 / 4``, ``diameter = 3`` for ``s <= p``, ``2`` for ``s >= p + 1`` (the
        "Dragonfly Limit") -- and 1 at ``s = (p + 1)**2``, where the network is the
        complete graph -- and for ``s = 1`` and ``s = p + 1`` the exact average (Notes).

    Raises
    ------
    ParameterError
        If p < 1 or s is outside ``[1, (p + 1)**2]`` (the message gives the nearest
        valid value).

    Notes
    -----
    The bullets of Section 1.1 ("Dragonfly and High-Bisection Extensions"): "Nodes:
    (p+1)(p+2); Ports: p+s; Bisection Links: ~s((p+2)^2/4); Maximum Latency: 3", and
    "when the number of inter-subnet links is equal to one more than the intra-subnet
    links, the entire network has a diameter of 2".  The maximum latency 3 therefore
    holds for ``s <= p`` and is 2 from ``s = p + 1`` on (proved in
    :func:`memsys_dragonfly`).

    Average hops (derived for ``s = 1`` and ``s = p + 1`` only): from a router, its p
    subnet mates are at 1 hop.  With ``s = 1`` it has one link, into one subnet, where 1
    router is at 1 hop and p at 2; in each of the other p subnets the single router
    linked to its own subnet is at 2 hops and the other p at 3 (the neighbour in the
    linked subnet has no further inter link, so no other 2-hop path exists).  With
    ``s = p + 1`` every subnet holds 1 router at 1 hop and p at 2.  Dividing by
    ``(p+1)(p+2) - 1`` gives the mean.  For ``1 < s < p + 1`` routers in a third subnet
    open extra 2-hop paths whose number depends on which routers carry the links (the
    paper does not fix it), so no formula is given (``avg_hops`` is None; measure the
    built graph).

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 5; Figure 14 (Dragonfly Limit).
    """
    p, s = _check_dragonfly(p, s)
    m = p + 1
    nodes = m * (p + 2)
    avg = None
    if s == 1:
        avg = (p + (1 + 2 * p) + p * (2 + 3 * p)) / (nodes - 1)
    elif s == m:
        avg = (p + m * (1 + 2 * p)) / (nodes - 1)
    diameter = 3 if s <= p else (1 if s == m * m else 2)
    return Formulas(nodes, p + s, diameter, s * (p + 2) ** 2 / 4, avg)


@register("memsys-dragonfly", family="memsys")
def memsys_dragonfly(p: int, s: int = 1, *, hosts_per_switch: int = 1) -> Topology:
    """Dragonfly of MEMSYS '16: p + 2 complete subnets K_{p+1}, s links between every two.

    Parameters
    ----------
    p : int
        Intra-subnet ports per router, >= 1: each subnet is the complete graph on
        ``p + 1`` routers.
    s : int
        Inter-subnet ports per router, in ``[1, (p + 1)**2]``; equivalently the number of
        links joining every pair of subnets.  ``s = p + 1`` is the "Dragonfly Limit"
        (diameter 2).
    hosts_per_switch : int
        Nodes attached to each router, >= 0 (default 1: the paper integrates the router
        with the CPU, concentration c = 1).

    Returns
    -------
    Topology
        ``(p + 1)(p + 2)`` routers, every one with ``p + s`` ports; router ``g (p+1) + x``
        is router x of subnet g.  Link kinds ``"intra"`` and ``"inter"``.  Diameter 3
        for ``s <= p``, 2 for ``p + 1 <= s < (p + 1)**2``; ``s = (p + 1)**2`` links
        every pair of routers (the complete graph, diameter 1).

    Raises
    ------
    ParameterError
        If p < 1 or s is outside ``[1, (p + 1)**2]``.

    Notes
    -----
    Section 1.1: "a fully connected graph of fully connected graphs, which gives it a
    diameter 3 across the whole network" (Figure 5), with "Nodes: (p+1)(p+2), Ports:
    p+s".  With ``p + 1`` routers per subnet and ``p + 2`` subnets, a subnet's
    ``(p + 1) s`` inter-subnet ports are spread over its ``p + 1`` peers, so s inter
    ports per router is the same as s links between every two subnets ("characterizing
    1, 2, 4, etc. links connecting each subnet").

    The paper does not say which routers carry the links; we use a circulant
    arrangement that keeps every router at exactly s inter ports.  Let ``m = p + 1``,
    ``r_a(b)`` the index of subnet b among the subnets other than a (``b - 1`` if
    ``b > a``, else b), ``K = s // m``.  For subnets a < b the links are, for
    ``t = 0 .. s-1``::

        router (r_a(b) + t) mod m of a  --  router (r_b(a) + t + K - t // m) mod m of b

    Each block of m consecutive t is a perfect matching between the two subnets with its
    own shift (so no two links of a pair coincide while ``s <= m**2``), and a router of
    subnet g is hit once per block and remote subnet, plus, in the last partial block
    (shift 0), once per t.  Hence every router has exactly s inter links.

    Diameter: for ``s <= p`` some router x of a has no link to b and some router y of b
    none to a, and no 2-hop path joins them, so the diameter is 3 (x reaches a router
    of a linked to b in 1 hop, b in 2, any router of b in 3).  For ``s >= p + 1`` every
    router has a link into every other subnet ("if every node has a connection to each
    of its local nodes as well as a connection to each one of the remote subnets, then
    it is by definition a two-hop network"), so the diameter is 2 -- unless
    ``s = (p + 1)**2``, where ``p + s = (p+1)(p+2) - 1`` and the network is complete.

    This is the family the paper analyses, not the Dragonfly of Kim et al. (a routers
    and h global ports per group, ``a h + 1`` groups; see
    :func:`topogen.generators.dragonfly.dragonfly`).

    References
    ----------
    .. [1] S. Li et al., "Low Latency, High Bisection-Bandwidth Networks for Exascale
       Memory Systems", MEMSYS '16, Section 1.1, Figure 5.
    .. [2] J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-driven, highly-scalable
       dragonfly topology", ISCA 2008.
    """
    p, s = _check_dragonfly(p, s)
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    m = p + 1
    groups = p + 2
    # intra: K_m in every subnet
    xa, xb = np.triu_indices(m, 1)
    base = (np.arange(groups, dtype=np.int64) * m)[:, None]
    intra = np.stack([(base + xa).ravel(), (base + xb).ravel()], axis=1)
    # inter: s links per subnet pair
    ga, gb = np.triu_indices(groups, 1)  # a < b
    t = np.arange(s, dtype=np.int64)
    shift = s // m - t // m
    ra = (gb - 1)[:, None]  # index of b among a's peers (b > a)
    rb = ga[:, None]  # index of a among b's peers (a < b)
    u = ga[:, None] * m + (ra + t) % m
    w = gb[:, None] * m + (rb + t + shift) % m
    inter = np.stack([u.ravel(), w.ravel()], axis=1)
    kinds = np.concatenate([np.zeros(len(intra), np.int8), np.ones(len(inter), np.int8)])
    return Topology(
        m * groups,
        np.concatenate([intra, inter]),
        hosts,
        name="memsys-dragonfly",
        params={"p": p, "s": s, "hosts_per_switch": hosts},
        link_kind=kinds,
        kind_names=("intra", "inter"),
    )



# ----------------------------------------------------------------------------- Section 2
@dataclass(frozen=True)
class Reroute:
    """Cost of routing around one failed router (see :func:`reroute_around`).

    Attributes
    ----------
    hops_before : int
        Shortest distance from source to target with every router working.
    hops_after : int
        Shortest distance once the failed router is removed.
    extra_hops : int
        ``hops_after - hops_before`` (the paper's "Additional Cost in Hops").
    alternative_routes : int
        Number of distinct shortest routes avoiding the failed router (the paper's
        "Alternative Routes").
    """

    hops_before: int
    hops_after: int
    extra_hops: int
    alternative_routes: int


def _bfs_counts(csr, source: int, removed: int | None):
    """Hop distance and number of shortest paths from ``source`` (``removed`` deleted)."""
    n = csr.shape[0]
    dist = np.full(n, -1, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    dist[source] = 0
    count[source] = 1
    blocked = np.zeros(n, dtype=bool)
    if removed is not None:
        blocked[removed] = True
    frontier = np.array([source])
    level = 0
    adj_t = csr.T.tocsr().astype(np.int64)
    while len(frontier):
        vec = np.zeros(n, dtype=np.int64)
        vec[frontier] = count[frontier]
        reach = adj_t @ vec
        new = (reach > 0) & (dist < 0) & ~blocked
        level += 1
        dist[new] = level
        count[new] = reach[new]
        frontier = np.flatnonzero(new)
    return dist, count


def reroute_around(topology: Topology, source: int, failed: int, target: int) -> Reroute:
    """Extra hops and alternative shortest routes when a router on the way fails (Sec. 2).

    Parameters
    ----------
    topology : Topology
        A connected network.
    source, failed, target : int
        Three distinct routers; ``failed`` must lie on a shortest source-target route
        (the paper's "node 0 is trying to access node 2 through node 1, which is
        unavailable").

    Returns
    -------
    Reroute
        Distances before and after removing ``failed``, their difference and the number
        of shortest routes that avoid ``failed``.

    Raises
    ------
    ParameterError
        If a router id is out of range, two of them coincide, or ``failed`` is not on a
        shortest source-target route.
    TopologyError
        If removing ``failed`` disconnects source from target.

    Notes
    -----
    MEMSYS '16 Section 2, Figure 10 and its table ("Topologies for Subnets / Additional
    Cost in Hops / Alternative Routes"): n-D torus 2 and ``2(n - 1)`` (n the
    dimension, sides long enough that the wraparound way is not shorter), flattened
    butterfly 0, 5-node Moore graph (the pentagon) 1 and 1, Petersen 1 and 2.  Computed
    by breadth-first search counting shortest paths, once with and once without the
    failed router.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 2, Figure 10.
    """
    from ..errors import TopologyError

    n = topology.num_switches
    ids = {}
    for name, v in (("source", source), ("failed", failed), ("target", target)):
        ids[name] = check_int(name, v, 0, n - 1)
    if len(set(ids.values())) < 3:
        raise ParameterError(f"source, failed and target must be three distinct routers, got {ids}")
    csr = topology.csr()
    d_src, c_src = _bfs_counts(csr, ids["source"], None)
    d_tgt, _ = _bfs_counts(csr, ids["target"], None)
    before = int(d_src[ids["target"]])
    f = ids["failed"]
    if before < 0 or d_src[f] < 0 or d_src[f] + d_tgt[f] != before:
        raise ParameterError(
            f"failed router {f} is not on a shortest route from {ids['source']} to "
            f"{ids['target']} (distance {before}); pick a router at distance "
            f"{max(before - 1, 1)} from the target along such a route"
        )
    dist, count = _bfs_counts(csr, ids["source"], f)
    after = int(dist[ids["target"]])
    if after < 0:
        raise TopologyError(
            f"removing router {f} disconnects {ids['source']} from {ids['target']}"
        )
    return Reroute(before, after, after - before, int(count[ids["target"]]))
