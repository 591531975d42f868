"""Fishnet: Angelfish, Angelfish Lite, Flying Fish and Flying Fish Lite (MEMSYS '16).

Fishnet (Li et al., MEMSYS '16, Section 1.1 "Fishnet: Angelfish and Flying Fish") joins
copies of a diameter-2 *subnet*.  With a subnet of n routers, n + 1 copies are made;
the routers of copy j carry the labels ``0..n`` without ``j`` ("the nodes of subnet 0 are
labeled 1..n; the nodes of subnet 1 are labeled 0, 2..n; ..."), so label i names the
router of copy j that leads to copy i:

* **Lite** (Figure 7 top, Figure 8): "node i in subnet j connects directly to node j in
  subnet i" -- one link between every two subnets, ``p + 1`` ports, diameter <= 5.
* **Full** (Figure 7 bottom): "the immediate neighbors of node i in subnet j connect to
  the immediate neighbors of node j in subnet i" -- p links between every two subnets,
  ``2p`` ports, diameter <= 4.

On Moore / MMS subnets this gives Angelfish and Angelfish Lite; on the n x n flattened
butterfly, Flying Fish Lite (the Lite rule) and Flying Fish (Figure 9: 2 n^2 subnets
``1H..n^2 H, 1V..n^2 V`` joined through rows and columns).

Numbering: router ``k * n_sub + v`` is router v of subnet k (``n_sub`` routers per
subnet), so the subnets are consecutive blocks of switch ids.  Link kinds: ``"intra"``
(links of a subnet) and ``"inter"`` (Fishnet links between subnets).  One node per
router (the paper's concentration c = 1) unless ``hosts_per_switch`` says otherwise.

Construction is vectorised NumPy over all subnet pairs at once.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp

from .._validate import check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology
from .memsys import Formulas

__all__ = [
    "fishnet",
    "angelfish",
    "angelfish_lite",
    "flying_fish",
    "flying_fish_lite",
    "angelfish_formulas",
    "angelfish_lite_formulas",
    "flying_fish_formulas",
    "flying_fish_lite_formulas",
    "subnet_diameter",
    "subnet_topology",
]

_MAX_SWITCHES = 2**31 - 1
_KINDS = ("intra", "inter")


# ----------------------------------------------------------------------------- subnet checks
def subnet_diameter(subnet: Topology) -> int | None:
    """Diameter of a subnet if it is at most 2, else None (also None if disconnected).

    Parameters
    ----------
    subnet : Topology
        A candidate Fishnet subnet.

    Returns
    -------
    int or None
        0 (one router), 1 (complete graph), 2, or None for "more than 2 or disconnected".

    Notes
    -----
    Uses ``I + A + A^2 > 0`` everywhere (a sparse product, ``O(n d^2)`` work), so it is
    cheap even for the 5618-router MMS graph of q = 53.
    """
    n = subnet.num_switches
    a = subnet.csr().astype(np.int32)
    if a.nnz == n * (n - 1):
        return 0 if n == 1 else 1
    reach = (a @ a + a + sp.identity(n, dtype=np.int32, format="csr")).tocsr()
    reach.eliminate_zeros()
    return 2 if reach.nnz == n * n else None


def _exact_diameter(subnet: Topology) -> str:
    """A human-readable diameter for an error message."""
    from scipy.sparse.csgraph import shortest_path

    if subnet.num_switches > 2000:
        return "more than 2"
    dist = shortest_path(subnet.csr(), unweighted=True, directed=False)
    if np.isinf(dist).any():
        return "infinite (it is disconnected)"
    return str(int(dist.max()))


def _require_diameter_two(subnet) -> Topology:
    if not isinstance(subnet, Topology):
        raise ParameterError(
            f"subnet must be a topogen.Topology of diameter 2 (or one of 'petersen', "
            f"'hoffman-singleton', 'mms'), got {type(subnet).__name__}"
        )
    d = subnet_diameter(subnet)
    if d == 2:
        return subnet
    if d in (0, 1):
        msg = (
            f"subnet {subnet.describe()} is complete (diameter {d}); Fishnet needs a "
            "diameter-2 subnet (MEMSYS '16 Sec. 1.1).  A complete graph of complete "
            "subnets is the MEMSYS Dragonfly: use memsys_dragonfly / memsys-dragonfly"
        )
    else:
        msg = (
            f"subnet {subnet.describe()} has diameter {_exact_diameter(subnet)}; Fishnet "
            "needs a diameter-2 subnet (MEMSYS '16 Sec. 1.1), e.g. the Petersen or "
            "Hoffman-Singleton graph, an MMS graph (slimfly(q)) or an n x n flattened "
            "butterfly (hyperx((n, n)))"
        )
    raise ParameterError(msg)


def _neighbour_table(subnet: Topology) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours of each subnet router, padded to the maximum degree, and the degrees."""
    m = subnet.csr()
    deg = np.diff(m.indptr).astype(np.int64)
    width = int(deg.max())
    table = np.zeros((subnet.num_switches, width), dtype=np.int64)
    rows = np.repeat(np.arange(subnet.num_switches), deg)
    cols = np.arange(len(m.indices)) - np.repeat(m.indptr[:-1], deg)
    table[rows, cols] = m.indices
    return table, deg


def _replicate_subnet(subnet: Topology, copies: int) -> np.ndarray:
    base = subnet.edges.astype(np.int64)
    offs = (np.arange(copies, dtype=np.int64) * subnet.num_switches)[:, None, None]
    return (base[None, :, :] + offs).reshape(-1, 2)


def _check_size(count: int, what: str) -> None:
    if count > _MAX_SWITCHES:
        raise ParameterError(
            f"{what} would have {count} routers; at most {_MAX_SWITCHES} are supported "
            "(int32 switch ids): use a smaller subnet"
        )


def _assemble(num, intra, inter, hosts, name, params) -> Topology:
    kinds = np.concatenate([np.zeros(len(intra), np.int8), np.ones(len(inter), np.int8)])
    return Topology(
        num, np.concatenate([intra, inter]), hosts, name=name, params=params,
        link_kind=kinds, kind_names=_KINDS,
    )


# ----------------------------------------------------------------------------- Fishnet (any subnet)
def fishnet(
    subnet: Topology,
    *,
    lite: bool = False,
    hosts_per_switch: int = 1,
    name: str | None = None,
    params: dict | None = None,
) -> Topology:
    """Fishnet of ``n + 1`` copies of a diameter-2 subnet of n routers (MEMSYS '16 Fig. 7).

    Parameters
    ----------
    subnet : Topology
        Any topology of diameter exactly 2 (Petersen, Hoffman–Singleton, an MMS graph,
        an n x n flattened butterfly...).  Its hosts are ignored.
    lite : bool
        False (default): the full Fishnet through nearest-neighbour sets (Angelfish when
        the subnet is a Moore/MMS graph), diameter <= 4.  True: the Lite variant, one link
        between every two subnets, diameter <= 5.
    hosts_per_switch : int
        Nodes per router, >= 0 (default 1, the paper's concentration c = 1).
    name : str, optional
        Name recorded in the topology (default ``"fishnet"`` / ``"fishnet-lite"``).
    params : dict, optional
        Parameters recorded in the topology (default: a description of the subnet).

    Returns
    -------
    Topology
        ``n (n + 1)`` routers; router ``k n + v`` is router v of subnet k (k = 0..n).
        Lite: ``p + 1`` ports for a p-regular subnet, ``n (n + 1) / 2`` inter links.
        Full: ``2p`` ports for a p-regular subnet, ``p n (n + 1) / 2`` inter links.
        Link kinds ``"intra"`` and ``"inter"``.

    Raises
    ------
    ParameterError
        If ``subnet`` is not a Topology of diameter 2 (the message gives its diameter) or
        the result would exceed 2**31 - 1 routers.

    Notes
    -----
    MEMSYS '16, Section 1.1, "Fishnet: Angelfish and Flying Fish", Figure 7.  Subnet j
    carries the labels ``{0..n} \\ {j}`` in increasing order, so label i is subnet router
    i for i < j and router i - 1 for i > j.

    *Lite* ("node i in subnet j connects directly to node j in subnet i"): for i < j,
    router ``j - 1`` of subnet i is linked to router i of subnet j.  Every router gets
    exactly one inter link.  Diameter <= 5: at most 2 hops to the router labelled with
    the target subnet, 1 inter hop, at most 2 hops inside the target.

    *Full* ("the immediate neighbors of node i in subnet j connect to the immediate
    neighbors of node j in subnet i"): the neighbour set N(i) in subnet j and N(j) in
    subnet i are joined by a matching.  The paper leaves the matching open; we pair them
    in increasing router order (the t-th neighbour with the t-th).  A router x of subnet
    j lies in N(label) for each of its neighbours' labels, so it gets one inter link per
    subnet neighbour: ``2p`` ports for a p-regular subnet.  Diameter <= 4: in a
    diameter-2 graph every router is within 1 hop of any neighbour set N(v) (it is v, in
    N(v), or at distance 2 from v), then 1 inter hop and at most 2 hops.

    Irregular subnets (an extension; all subnets of the paper are regular): when the
    two neighbour sets differ in size, the t-th router of the larger is paired with the
    ``(t mod size)``-th of the smaller, so every router of both sets keeps a link and the
    diameter bound 4 still holds; a router of a smaller set may then take several links
    towards one subnet, so the ports vary by router (``Topology.degree`` is the maximum).

    References
    ----------
    .. [1] S. Li et al., "Low Latency, High Bisection-Bandwidth Networks for Exascale
       Memory Systems", MEMSYS '16, Section 1.1, Figures 6 and 7.
    .. [2] B. Jacob, "The 2 petaflop, 3 petabyte, 9 TB/s, 90 kW cabinet: a system
       architecture for exascale and big data" (Fishnet, ref. [8] of [1]).
    """
    subnet = _require_diameter_two(subnet)
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    n = subnet.num_switches
    total = n * (n + 1)
    _check_size(total, "this Fishnet")
    intra = _replicate_subnet(subnet, n + 1)
    i, j = np.triu_indices(n + 1, 1)  # subnet pairs i < j
    i = i.astype(np.int64)
    j = j.astype(np.int64)
    if lite:
        inter = np.stack([i * n + (j - 1), j * n + i], axis=1)
    else:
        table, deg = _neighbour_table(subnet)
        # N(label i) in subnet j is the neighbourhood of router i (i < j);
        # N(label j) in subnet i is the neighbourhood of router j - 1 (j > i).
        da, db = deg[i], deg[j - 1]
        width = int(np.maximum(da, db).max())
        t = np.arange(width, dtype=np.int64)
        keep = t[None, :] < np.maximum(da, db)[:, None]
        ta = t[None, :] % da[:, None]
        tb = t[None, :] % db[:, None]
        u = j[:, None] * n + table[i[:, None], ta]
        w = i[:, None] * n + table[(j - 1)[:, None], tb]
        inter = np.stack([u[keep], w[keep]], axis=1)
    if params is None:
        params = {"subnet": subnet.describe(), "subnet_switches": n, "hosts_per_switch": hosts}
    return _assemble(
        total, intra, inter, hosts, name or ("fishnet-lite" if lite else "fishnet"), params
    )


# ----------------------------------------------------------------------------- Angelfish
SubnetName = Literal["petersen", "hoffman-singleton", "mms"]


def subnet_topology(subnet: str, q: int | None = None) -> Topology:
    """The named diameter-2 subnet of an Angelfish: Petersen, Hoffman–Singleton or MMS(q).

    Parameters
    ----------
    subnet : {"petersen", "hoffman-singleton", "mms"}
        Which Moore / MMS graph.
    q : int, optional
        Prime power ``q = 4w + delta`` (delta in {-1, 0, 1}) of the MMS graph; required
        for ``"mms"`` only (q = 5 is the Hoffman–Singleton graph).

    Returns
    -------
    Topology
        The subnet (10, 50 or ``2 q**2`` routers).

    Raises
    ------
    ParameterError
        For an unknown name, a missing / superfluous q, or a q the MMS construction
        rejects.
    """
    if subnet == "petersen" or subnet == "hoffman-singleton":
        if q is not None:
            raise ParameterError(f"q applies to subnet='mms' only; leave it unset for {subnet!r}")
        from .moore import hoffman_singleton, petersen

        return petersen() if subnet == "petersen" else hoffman_singleton()
    if subnet == "mms":
        if q is None:
            raise ParameterError(
                "subnet='mms' needs q, a prime power 4w + delta (delta in -1, 0, 1) >= 3, "
                "e.g. q=5 (50 routers), 7, 13 (338 routers)"
            )
        from .slimfly import slimfly

        return slimfly(q)
    raise ParameterError(
        f"subnet must be one of 'petersen', 'hoffman-singleton', 'mms' or a Topology, got {subnet!r}"
    )


def _angelfish(subnet, q, hosts_per_switch, lite) -> Topology:
    name = "angelfish-lite" if lite else "angelfish"
    if isinstance(subnet, Topology):
        if q is not None:
            raise ParameterError("q applies to subnet='mms' only; do not pass it with a Topology")
        params = {"subnet": subnet.describe(), "q": None}
        sub = subnet
    else:
        sub = subnet_topology(subnet, q)
        params = {"subnet": subnet, "q": q}
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    params["hosts_per_switch"] = hosts
    return fishnet(sub, lite=lite, hosts_per_switch=hosts, name=name, params=params)


@register("angelfish", family="fishnet")
def angelfish(
    subnet: SubnetName = "petersen", q: int | None = None, *, hosts_per_switch: int = 1
) -> Topology:
    """Angelfish: the full Fishnet of a diameter-2 Moore or MMS graph (diameter 4).

    Parameters
    ----------
    subnet : {"petersen", "hoffman-singleton", "mms"} or Topology
        The diameter-2 subnet: the Petersen graph (Figure 7), the Hoffman–Singleton
        graph, or the MMS graph of ``q`` (the paper's Section 3 Angelfish networks).  A
        :class:`~topogen.topology.Topology` of diameter 2 is accepted too.
    q : int, optional
        Prime power of the MMS graph (``subnet="mms"`` only).
    hosts_per_switch : int
        Nodes per router, >= 0 (default 1).

    Returns
    -------
    Topology
        ``n (n + 1)`` routers for a subnet of n routers and degree p, ``2p`` ports,
        diameter 4; Petersen: 110 routers, 6 ports.  Link kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        For an unknown subnet, a bad q, or a Topology subnet whose diameter is not 2.

    Notes
    -----
    MEMSYS '16, Section 1.1 ("Angelfish": "Nodes: (p^2+1)(p^2+2), Ports: 2p, Bisection
    Links: ~p((p^2+1)^2/4), Maximum Latency: 4"; the node count is the Moore bound and is
    reached by Petersen, p = 3, and Hoffman–Singleton, p = 7).  For MMS subnets
    (``n = 2 q^2``, ``p = (3q - delta)/2``) the count is ``n (n + 1)``; the paper's
    Section 3.2 sizes follow: q = 13 gives 114,582 routers with 38 ports ("100,000 nodes
    at 38 ports"), q = 19 gives 522,006 with 58, q = 23 gives 1,120,422 with 70.
    Construction and numbering: :func:`fishnet`.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1 (Figures 6, 7), Section 3.2.
    .. [2] M. Besta, T. Hoefler, "Slim Fly", SC 2014, Section II-B (MMS graphs).
    """
    return _angelfish(subnet, q, hosts_per_switch, lite=False)


@register("angelfish-lite", family="fishnet")
def angelfish_lite(
    subnet: SubnetName = "petersen", q: int | None = None, *, hosts_per_switch: int = 1
) -> Topology:
    """Angelfish Lite: one link between every two copies of a Moore / MMS graph (diameter 5).

    Parameters
    ----------
    subnet : {"petersen", "hoffman-singleton", "mms"} or Topology
        The diameter-2 subnet, as for :func:`angelfish`.
    q : int, optional
        Prime power of the MMS graph (``subnet="mms"`` only).
    hosts_per_switch : int
        Nodes per router, >= 0 (default 1).

    Returns
    -------
    Topology
        ``n (n + 1)`` routers, ``p + 1`` ports, diameter 5; Petersen: 110 routers, 4
        ports.  Link kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        For an unknown subnet, a bad q, or a Topology subnet whose diameter is not 2.

    Notes
    -----
    MEMSYS '16, Section 1.1 ("Angelfish Lite": "Nodes: (p^2+1)(p^2+2), Ports: p+1,
    Bisection Links: ~(p^2+1)^2/4, Maximum Latency: 5"), Figure 7 (top): "node i in
    subnet j connects directly to node j in subnet i".  Construction: :func:`fishnet`
    with ``lite=True``.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 7.
    """
    return _angelfish(subnet, q, hosts_per_switch, lite=True)


# ----------------------------------------------------------------------------- Flying Fish
def _check_side(n) -> int:
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n < 2:
        raise ParameterError(
            f"n (side of the n x n flattened-butterfly subnet) must be an integer >= 2, "
            f"got {n}; nearest valid value: 2 (a 1 x 1 subnet has no diameter-2 structure)"
        )
    return check_int("n", n, 2)


@register("flying-fish-lite", family="fishnet")
def flying_fish_lite(n: int, *, hosts_per_switch: int = 1) -> Topology:
    """Flying Fish Lite: ``n**2 + 1`` n x n flattened butterflies, one link between any two.

    Parameters
    ----------
    n : int
        Side of the n x n flattened-butterfly subnet, >= 2 (Figure 8 uses 7).
    hosts_per_switch : int
        Nodes per router, >= 0 (default 1).

    Returns
    -------
    Topology
        ``n**2 (n**2 + 1)`` routers, ``2n - 1`` ports each, diameter 5; 7 x 7: 2450
        routers, 13 ports.  Subnet k is ``hyperx((n, n))`` on ids
        ``k n^2 .. (k+1) n^2 - 1``.  Link kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        If n < 2 (nearest valid value 2).

    Notes
    -----
    MEMSYS '16, Section 1.1 and Figure 8: "for all subnets X from 0 to 49 there is a
    connection between subnet X, node Y and subnet Y, node X.  The result is a
    2450-node network with a maximum 5-hop latency and 13 ports per node" -- the Lite
    rule of :func:`fishnet` on ``hyperx((n, n))``.

    The paper's bullets print "Ports: 2n1", a text-extraction loss of the minus sign:
    the subnet gives each router ``2(n - 1)`` ports and the Lite rule one more, so the
    ports are ``2n - 1`` (13 for n = 7, as Figure 8 says).  Nodes ``n^2 (n^2 + 1)`` and
    bisection ``~(n^2 + 1)^2 / 4`` are as printed.  The maximum latency 5 is the bound of
    :func:`fishnet`; it is attained (measured for n = 2..7).

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 8.
    """
    n = _check_side(n)
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    _check_size(n**2 * (n**2 + 1), f"flying-fish-lite n={n}")
    from .classic import hyperx

    return fishnet(
        hyperx((n, n)), lite=True, hosts_per_switch=hosts, name="flying-fish-lite",
        params={"n": n, "hosts_per_switch": hosts},
    )


@register("flying-fish", family="fishnet")
def flying_fish(n: int, *, hosts_per_switch: int = 1) -> Topology:
    """Flying Fish: ``2 n**2`` n x n flattened butterflies joined through rows and columns.

    Parameters
    ----------
    n : int
        Side of the n x n flattened-butterfly subnet, >= 2 (Figure 9 uses 7).
    hosts_per_switch : int
        Nodes per router, >= 0 (default 1).

    Returns
    -------
    Topology
        ``2 n**4`` routers, ``4n - 2`` ports (maximum; see Notes), diameter 4; 7 x 7: 4802
        routers, 26 ports.  Subnet ``h n^2 + m`` (h = 0 for
        "H", 1 for "V") is subnet "m H" / "m V" of the paper on ids ``k n^2 ..``.  Link
        kinds ``"intra"``, ``"inter"``.

    Raises
    ------
    ParameterError
        If n < 2 (nearest valid value 2).

    Notes
    -----
    MEMSYS '16, Section 1.1 and Figure 9: "98 subnets, numbered 1H..49H and 1V..49V.
    When contacting an 'H' subnet, one uses any node in the horizontal row containing
    that numbered node ... to communicate from subnet 1H to subnet 42V, one connects to
    any node in the vertical column containing node 42."  A subnet router m has
    coordinates ``(x, y) = (m mod n, m div n)`` (the numbering of
    :func:`topogen.generators.classic.hyperx`); its row is ``{(x', y)}``, its column
    ``{(x, y')}``.  For subnets A = (h_A, m_A) and B = (h_B, m_B) the group of A facing
    B is the row of m_B if B is an H subnet, else the column of m_B, and symmetrically.
    The two groups (n routers each) are joined by a matching in position order (the
    t-th router of the row, counted along x, or of the column, counted along y, with the
    t-th of the other group), so every two subnets share n links -- "a system of
    2 x N^4 nodes with 4 x N - 2 ports per node and a maximum latency of 4 hops".

    Ports, derived: a router (x, y) has ``2(n - 1)`` subnet ports, one link for each of
    the n H subnets named in its row and each of the n V subnets named in its column:
    ``4n - 2`` (26 for n = 7, as Figure 9 says; the bullet "Ports: 4n2" lost its minus
    sign).  A subnet does not link to itself, so the n routers of subnet "m H" in the
    row of m (of "m V": in the column of m) have ``4n - 3`` ports; the paper's "26 ports
    each" is the router radix.  Inter links: ``n * C(2 n^2, 2)``; bisection ``~n^5`` as
    printed (n links for each of the ``n^4`` subnet pairs across a balanced split).

    Diameter: every router is 1 hop from any row and any column of its flattened
    butterfly, then 1 inter hop, then at most 2 hops: <= 4, attained (measured for
    n = 2..7).  The paper's remark that diagonal groups extend
    the construction further is not implemented.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 9.
    """
    n = _check_side(n)
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    size = n * n
    subnets = 2 * size
    total = subnets * size
    _check_size(total, f"flying-fish n={n}")
    from .classic import hyperx

    sub = hyperx((n, n))
    intra = _replicate_subnet(sub, subnets)
    a, b = np.triu_indices(subnets, 1)
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    t = np.arange(n, dtype=np.int64)[None, :]

    def group(target):  # routers (position t) of the row/column facing subnet ``target``
        h, m = target // size, target % size
        row = (m // n)[:, None] * n + t  # row of m: (t, y_m)
        col = (m % n)[:, None] + n * t  # column of m: (x_m, t)
        return np.where((h == 0)[:, None], row, col)

    u = a[:, None] * size + group(b)
    w = b[:, None] * size + group(a)
    inter = np.stack([u.ravel(), w.ravel()], axis=1)
    return _assemble(
        total, intra, inter, hosts, "flying-fish", {"n": n, "hosts_per_switch": hosts}
    )


# ----------------------------------------------------------------------------- formulas
def angelfish_formulas(subnet_switches: int, subnet_degree: int) -> Formulas:
    """Angelfish on a p-regular diameter-2 subnet of n routers: the paper's numbers.

    Parameters
    ----------
    subnet_switches : int
        Routers n of the subnet, >= 3.
    subnet_degree : int
        Ports p of the (regular) subnet, >= 2.

    Returns
    -------
    Formulas
        ``nodes = n (n + 1)``, ``ports = 2p``, ``diameter = 4``,
        ``bisection_links = p (n + 1)**2 / 4``.

    Raises
    ------
    ParameterError
        If n < 3 or p < 2.

    Notes
    -----
    MEMSYS '16 Section 1.1 prints the Moore-bound case ``n = p^2 + 1``: nodes
    ``(p^2+1)(p^2+2)``, ports 2p, bisection ``~p((p^2+1)^2/4)``, latency 4.  The general
    form follows from the construction (n + 1 subnets of n routers, p links between two
    subnets).  The paper's bisection uses ``(p^2+1)^2 = n^2``; counting subnet pairs
    across a balanced split gives ``(n+1)^2/4`` pairs of p links.  We return the
    pair count ``p (n+1)^2 / 4``, which differs from the printed form by O(1/n).

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1.
    """
    n = check_int("subnet_switches", subnet_switches, 3)
    p = check_int("subnet_degree", subnet_degree, 2)
    return Formulas(n * (n + 1), 2 * p, 4, p * (n + 1) ** 2 / 4)


def angelfish_lite_formulas(subnet_switches: int, subnet_degree: int) -> Formulas:
    """Angelfish Lite on a p-regular diameter-2 subnet of n routers: the paper's numbers.

    Parameters
    ----------
    subnet_switches : int
        Routers n of the subnet, >= 3.
    subnet_degree : int
        Ports p of the (regular) subnet, >= 2.

    Returns
    -------
    Formulas
        ``nodes = n (n + 1)``, ``ports = p + 1``, ``diameter = 5``,
        ``bisection_links = (n + 1)**2 / 4``.

    Raises
    ------
    ParameterError
        If n < 3 or p < 2.

    Notes
    -----
    MEMSYS '16 Section 1.1 ("Angelfish Lite"), printed for ``n = p^2 + 1``; bisection as
    in :func:`angelfish_formulas` with one link per subnet pair.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1.
    """
    n = check_int("subnet_switches", subnet_switches, 3)
    p = check_int("subnet_degree", subnet_degree, 2)
    return Formulas(n * (n + 1), p + 1, 5, (n + 1) ** 2 / 4)


def flying_fish_formulas(n: int) -> Formulas:
    """Flying Fish on n x n flattened butterflies: nodes ``2n^4``, ports ``4n - 2``.

    Parameters
    ----------
    n : int
        Side of the subnet, >= 2.

    Returns
    -------
    Formulas
        ``nodes = 2 n**4``, ``ports = 4n - 2`` (the garbled "4n2" of the bullet, derived
        in :func:`flying_fish`), ``diameter = 4``, ``bisection_links = n**5``.

    Raises
    ------
    ParameterError
        If n < 2.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 9.
    """
    n = _check_side(n)
    return Formulas(2 * n**4, 4 * n - 2, 4, float(n**5))


def flying_fish_lite_formulas(n: int) -> Formulas:
    """Flying Fish Lite on n x n flattened butterflies: nodes ``n^2 (n^2+1)``, ports ``2n - 1``.

    Parameters
    ----------
    n : int
        Side of the subnet, >= 2.

    Returns
    -------
    Formulas
        ``nodes = n**2 (n**2 + 1)``, ``ports = 2n - 1`` (the garbled "2n1", derived in
        :func:`flying_fish_lite`), ``diameter = 5``, ``bisection_links =
        (n**2 + 1)**2 / 4``.

    Raises
    ------
    ParameterError
        If n < 2.

    References
    ----------
    .. [1] S. Li et al., MEMSYS '16, Section 1.1, Figure 8.
    """
    n = _check_side(n)
    return Formulas(n**2 * (n**2 + 1), 2 * n - 1, 5, (n**2 + 1) ** 2 / 4)
