"""Nearest-common-ancestor routing on a k-ary n-tree: ANCA (adaptive) and NCA (a table).

The Slim Fly paper (Section V) routes its fat tree FT-3 with "the Adaptive Nearest Common
Ancestor protocol (ANCA) [33]" (Gomez et al., IPDPS 2007).  On a k-ary n-tree
(:func:`topogen.generators.fattree.kary_ntree`) a packet between two leaves climbs to a
*nearest common ancestor* (NCA) of the two and descends from there:

* **up phase**: from a switch that is not an ancestor of the destination leaf, every one
  of its ``k`` up links leads to some NCA (a k-ary n-tree has ``k**(n-1-l)`` NCAs at the
  NCA level ``l``), so all ``k`` are minimal choices;
* **down phase**: from an ancestor there is exactly one minimal path down to the leaf
  (each down hop fixes one digit of the destination's word).

Routes are minimal (``2 (n - 1 - l)`` hops) and up*/down* with respect to the tree levels,
so the channel dependency graph of *all* of them together is acyclic with one VC: every
dependency goes up -> up (toward the roots), up -> down, or down -> down (toward the leaves).
:func:`topogen.routing.check` verifies it on the routing at hand.

Two routings:

:func:`anca`
    the up port is chosen at run time by the reference simulator
    (:mod:`topogen.sim._anca`), per hop, from the state of the up ports; the down path is
    the deterministic one.  ``select="queue"`` (default): the up port with the shortest
    output queue (the credits in use on it plus the packets at the switch already routed
    to it), ties drawn uniformly from the simulation's generator.  ``select="booksim"``: BookSim2's ``anca_fattree``: two up
    ports drawn uniformly (with replacement), the one with fewer used credits, ties to the
    first draw.  :meth:`AncaRouting.path` gives the route of :func:`nca` (a representative
    minimal route; the empty network's choice is random).
:func:`nca`
    a deterministic table routing (one next hop per switch and destination), so the
    compiled engine, the exports and the table tools take it as any table routing.  The
    up port at a switch ``v`` of level ``j + 1`` toward leaf ``d`` sets digit ``j`` to
    ``(v_j + d_j) mod k``: a Latin square in (source digit, destination digit), so a leaf
    spreads its destinations over its ``k`` up links and a leaf receives from its ``k``
    parents evenly.  A purely destination-based choice (digit ``j`` := ``d_j``, D-mod-k on
    switch ids) would send all traffic toward a leaf through one parent, a ``k``-fold
    bottleneck, because topogen's tables are per destination *switch* (D-mod-k proper uses
    the destination *host* digit at the leaf, which a switch table cannot see).  BookSim's
    ``nca_fattree`` draws the up port at random per packet instead.

Hosts are on the leaves only; the tables also route toward the other switches (by
shortest paths, never used by traffic), and the deadlock checks of both routings cover the
routes between leaves, which are all the routes packets take.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, RoutingError
from ..topology import Topology
from .base import Routing, TableRouting, _check_switch

__all__ = ["AncaRouting", "NcaRouting", "anca", "nca", "tree_shape", "ANCA_SELECT"]

#: how ANCA picks the up port (module docs)
ANCA_SELECT = ("queue", "booksim")


def tree_shape(topology: Topology) -> tuple[int, int]:
    """``(k, n)`` of a topology that is the k-ary n-tree of
    :func:`~topogen.generators.fattree.kary_ntree` (same switch numbering and hosts).

    Raises
    ------
    ParameterError
        If it is not one (names what differs and how to make one).
    """
    from ..generators.fattree import kary_ntree

    hint = ("; NCA/ANCA route k-ary n-trees numbered as `topogen generate kary-ntree --k K --n N` "
            "(or `fat-tree --radix R --levels N`) builds them")
    hosts = np.asarray(topology.hosts, dtype=np.int64)
    k = int(hosts[-1])
    N = topology.num_switches
    n = 1
    while k >= 2 and n * k ** (n - 1) < N:
        n += 1
    if k < 2 or n * k ** (n - 1) != N:
        raise ParameterError(f"{topology.describe()} is not a k-ary n-tree ({N} switches, "
                           f"{k} hosts on the last switch){hint}")
    ref = kary_ntree(k, n)
    if not (np.array_equal(ref.edges, topology.edges) and np.array_equal(ref.hosts, hosts)):
        raise ParameterError(f"{topology.describe()} has the size of the {k}-ary {n}-tree but not "
                           f"its links or hosts{hint}")
    return k, n


class _Shape:
    """Levels, positions and digits of a k-ary n-tree's switches."""

    def __init__(self, topology: Topology):
        k, n = tree_shape(topology)
        self.k, self.n = k, n
        self.per_level = k ** (n - 1)
        ids = np.arange(topology.num_switches, dtype=np.int64)
        self.level = ids // self.per_level
        self.pos = ids % self.per_level
        self.leaf0 = (n - 1) * self.per_level
        #: place value of digit j: k ** (n - 2 - j) (index n - 1 -> 1/k, unused)
        self.weight = np.array([k ** (n - 2 - j) if j <= n - 2 else 0 for j in range(n)],
                               dtype=np.int64)
        #: k ** (n - 1 - l): leaves under a switch of level l share pos // this
        self.span = np.array([k ** (n - 1 - lv) for lv in range(n)], dtype=np.int64)

    def ancestor(self, v: np.ndarray, dpos: np.ndarray) -> np.ndarray:
        """True where switch ``v`` is an ancestor of (or is) the leaf at position ``dpos``."""
        sp = self.span[self.level[v]]
        return self.pos[v] // sp == dpos // sp

    def down_rank(self, v: np.ndarray, dpos: np.ndarray) -> np.ndarray:
        """Link rank at ``v`` (not a leaf) of its child toward leaf position ``dpos``."""
        lv = self.level[v]
        digit = (dpos // self.weight[lv]) % self.k
        return np.where(lv > 0, self.k, 0) + digit

    def nca_up_rank(self, v: np.ndarray, dpos: np.ndarray) -> np.ndarray:
        """NCA's up link rank at ``v`` (level >= 1): digit ``j = level - 1`` becomes
        ``(v_j + d_j) mod k`` (parents are the first ``k`` ranks, by that digit)."""
        w = self.weight[self.level[v] - 1]
        return ((self.pos[v] // w) % self.k + (dpos // w) % self.k) % self.k

    def leaf_pairs(self) -> np.ndarray:
        """All ordered pairs of distinct leaves, shape (M, 2)."""
        leaves = np.arange(self.leaf0, self.leaf0 + self.per_level, dtype=np.int64)
        s = np.repeat(leaves, len(leaves))
        d = np.tile(leaves, len(leaves))
        keep = s != d
        return np.stack([s[keep], d[keep]], axis=1)


class NcaRouting(TableRouting):
    """The NCA table routing (:func:`nca`): a :class:`TableRouting` whose default deadlock
    check covers the routes between leaves (where the hosts are)."""

    def dependency_chunks(self, pairs=None, block: int = 256):
        if pairs is None:
            pairs = _Shape(self.topology).leaf_pairs()
        yield from super().dependency_chunks(pairs, block)

    def describe_check(self) -> str:
        return "all routes of the nca routing between leaf switches (every ordered pair; hosts are on leaves only)"


def nca(topology: Topology, layout=None) -> NcaRouting:
    """Deterministic nearest-common-ancestor routing of a k-ary n-tree (module docs).

    Parameters
    ----------
    topology : Topology
        A :func:`~topogen.generators.fattree.kary_ntree` (or ``fat-tree``) topology.
    layout : Layout, optional
        Recorded on the routing (for latency metrics and exports).

    Returns
    -------
    NcaRouting
        One phase, VC 0 on every hop (``vc_rule="const"``, 1 VC).

    Raises
    ------
    ParameterError
        If the topology is not a k-ary n-tree.

    References
    ----------
    .. [1] F. Petrini, M. Vanneschi, "k-ary n-trees", IPPS 1997.
    .. [2] C. Gomez et al., "Deterministic versus Adaptive Routing in Fat-Trees",
       IPDPS 2007.
    """
    shape = _Shape(topology)
    from .paths import nearest

    n_sw = topology.num_switches
    if topology.num_links:
        ranks = np.array(nearest(topology, ties="lowest").ranks, copy=True)
    else:  # one switch: no routes
        ranks = np.zeros((1, n_sw, n_sw), dtype=np.uint8)
    sentinel = int(np.iinfo(ranks.dtype).max)
    v = np.arange(n_sw, dtype=np.int64)
    for d in range(shape.leaf0, n_sw):
        dpos = np.full(n_sw, d - shape.leaf0, dtype=np.int64)
        anc = shape.ancestor(v, dpos)
        up = np.zeros(n_sw, dtype=np.int64)
        up[~anc] = shape.nca_up_rank(v[~anc], dpos[~anc])
        down = np.zeros(n_sw, dtype=np.int64)
        inner = anc & (shape.level < shape.n - 1)
        down[inner] = shape.down_rank(v[inner], dpos[inner])
        col = np.where(anc, down, up)
        col[d] = sentinel
        ranks[0, :, d] = col.astype(ranks.dtype)
    return NcaRouting(topology, ranks, layout=layout, algorithm="nca",
                      params={"k": shape.k, "n": shape.n,
                              "up_port": "digit j := (v_j + d_j) mod k (leaf destinations); "
                                         "shortest paths toward other switches"},
                      num_vcs=1, vc_rule="const")


class AncaRouting(Routing):
    """Adaptive nearest-common-ancestor routing of a k-ary n-tree (module docs).

    Attributes
    ----------
    base : NcaRouting
        The deterministic routes :meth:`path` gives (and the tables the exports write).
    select : str
        ``"queue"`` or ``"booksim"``: how the up port is chosen at run time.
    k, n : int
        The tree's arity and levels.
    """

    deterministic = False

    def __init__(self, base: NcaRouting, *, select: str = "queue", params=None):
        if select not in ANCA_SELECT:
            raise ParameterError(f"select must be 'queue' (shortest output queue, random ties) or "
                                 f"'booksim' (BookSim's anca_fattree: two random up ports, fewer "
                                 f"used credits), got {select!r}")
        p = dict(params or {})
        shape = _Shape(base.topology)
        p.update({"k": shape.k, "n": shape.n, "select": select,
                  "up": ("shortest output queue (credits in use + packets routed to it), ties uniform"
                         if select == "queue" else
                         "two uniform up ports, fewer used credits, ties to the first"),
                  "vc_rule": "const"})
        super().__init__(base.topology, layout=base.layout, algorithm="anca", params=p, num_vcs=1)
        self.base = base
        self.select = select
        self.k, self.n = shape.k, shape.n
        self.shape = shape

    def path(self, src: int, dst: int, rng=None):
        """The NCA table's route (a minimal up*/down* route) on VC 0."""
        return self.base.path(src, dst)

    def options(self, v: int, dst: int) -> tuple[bool, np.ndarray]:
        """``(up, entries)``: at switch ``v`` toward leaf ``dst``, the CSR entries of the up
        links (``up`` True, any of them may be taken) or of the one down link."""
        n_sw = self.num_switches
        v = _check_switch("v", v, n_sw)
        dst = _check_switch("dst", dst, n_sw)
        sh = self.shape
        if dst < sh.leaf0:
            raise RoutingError(f"switch {dst} is not a leaf: ANCA routes toward leaves (hosts)")
        if v == dst:
            return False, np.zeros(0, dtype=np.int64)
        lo = int(self.view.indptr[v])
        vv = np.array([v])
        dp = np.array([dst - sh.leaf0])
        if bool(sh.ancestor(vv, dp)[0]):
            return False, np.array([lo + int(sh.down_rank(vv, dp)[0])], dtype=np.int64)
        return True, lo + np.arange(sh.k, dtype=np.int64)

    def dependency_chunks(self, pairs=None):
        """Channel dependencies of every route ANCA may take (every up choice) between
        leaves (or from the sources to the destinations of ``pairs``): the closure, per
        destination, of the channels reachable from the sources' up links."""
        sh = self.shape
        indptr, indices = self.view.indptr, self.view.indices
        k = sh.k
        m = len(indices)
        if pairs is None:
            pairs = sh.leaf_pairs()
        arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        arr = arr[arr[:, 0] != arr[:, 1]]
        if len(arr) and (arr[:, 1].min() < sh.leaf0):
            raise RoutingError("ANCA routes toward leaves (hosts) only; a pair's destination is "
                               "not a leaf")
        for d in np.unique(arr[:, 1]).tolist():
            srcs = np.unique(arr[arr[:, 1] == d, 0])
            dpos = d - sh.leaf0
            visited = np.zeros(m, dtype=bool)
            cur = self._first(srcs, d)
            cur = np.unique(cur)
            visited[cur] = True
            used, dep_a, dep_b = [cur], [], []
            while len(cur):
                head = indices[cur]
                go = head != d
                cur, head = cur[go], head[go]
                if not len(cur):
                    break
                anc = sh.ancestor(head, np.full(len(head), dpos))
                # ancestors: their one down link; others: all k up links
                a_e = cur[anc]
                a_next = indptr[head[anc]] + sh.down_rank(head[anc], np.full(int(anc.sum()), dpos))
                u_e = np.repeat(cur[~anc], k)
                u_next = (indptr[head[~anc]][:, None] + np.arange(k)[None, :]).ravel()
                a = np.concatenate([a_e, u_e])
                b = np.concatenate([a_next, u_next])
                dep_a.append(a)
                dep_b.append(b)
                nxt = np.unique(b)
                nxt = nxt[~visited[nxt]]
                visited[nxt] = True
                used.append(nxt)
                cur = nxt
            a = np.concatenate(dep_a) if dep_a else np.zeros(0, dtype=np.int64)
            b = np.concatenate(dep_b) if dep_b else np.zeros(0, dtype=np.int64)
            yield np.unique(np.concatenate(used)), a, b

    def _first(self, srcs: np.ndarray, d: int) -> np.ndarray:
        """First links of routes from switches ``srcs`` toward leaf ``d``: every up link of
        a non-ancestor, the down link of an ancestor."""
        sh = self.shape
        indptr = self.view.indptr
        dpos = np.full(len(srcs), d - sh.leaf0)
        anc = sh.ancestor(srcs, dpos)
        down = indptr[srcs[anc]] + sh.down_rank(srcs[anc], dpos[anc])
        up = (indptr[srcs[~anc]][:, None] + np.arange(sh.k)[None, :]).ravel()
        return np.concatenate([down, up]).astype(np.int64)

    def table_rows(self) -> dict:
        """Per-switch table rows (:func:`topogen.routing.export.table_rows`): the NCA
        table's next hop (``alt`` 0) and, toward leaves the switch is not an ancestor of,
        its other up links (``alt`` 1 .. ``k - 1``); all on VC 0, chosen at run time."""
        from .export import _COLUMNS, _rows_of

        base = _rows_of(self.base, "adaptive:0-0")
        sh = self.shape
        v, d = base["switch"], base["destination"]
        up = (d >= sh.leaf0) & ~sh.ancestor(v, np.maximum(d - sh.leaf0, 0))
        vu, du, own = v[up], d[up], base["rank"][up]
        k = sh.k
        others = (own[:, None] + np.arange(1, k)[None, :]) % k  # the other up ranks
        alt = np.broadcast_to(np.arange(1, k), others.shape)
        vv = np.repeat(vu, k - 1)
        rk = others.ravel()
        hosts = self.topology.hosts.astype(np.int64)
        extra = {"switch": vv, "destination": np.repeat(du, k - 1),
                 "phase": np.zeros(len(vv), np.int64), "alt": alt.ravel().astype(np.int64),
                 "next_hop": self.view.indices[self.view.indptr[vv] + rk], "rank": rk,
                 "booksim_port": hosts[vv] + rk, "sst_port": rk,
                 "vc_rule": np.full(len(vv), "adaptive:0-0", dtype=object)}
        cols = {c: np.concatenate([base[c], extra[c]]) for c in _COLUMNS}
        order = np.lexsort((cols["alt"], cols["phase"], cols["destination"], cols["switch"]))
        return {c: cols[c][order] for c in _COLUMNS}

    def describe_check(self) -> str:
        return ("every route ANCA may take between leaf switches (all up-port choices up to a "
                "nearest common ancestor, then the one path down), VC 0")

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "anca"
        return md

    def _subroutings(self):
        return {"base": self.base}


def anca(topology: Topology, layout=None, *, select: str = "queue") -> AncaRouting:
    """Adaptive nearest-common-ancestor routing of a k-ary n-tree (Slim Fly Sec. V's
    FT-ANCA; module docs).

    Parameters
    ----------
    topology : Topology
        A :func:`~topogen.generators.fattree.kary_ntree` (or ``fat-tree``) topology.
    layout : Layout, optional
    select : {"queue", "booksim"}
        The up-port rule of the simulator: the shortest output queue (ties uniform), or
        BookSim2's ``anca_fattree`` (two random up ports, fewer used credits).

    Returns
    -------
    AncaRouting
        One VC; the reference simulator chooses the up ports.

    Raises
    ------
    ParameterError
        If the topology is not a k-ary n-tree, or for an unknown ``select``.

    References
    ----------
    .. [1] C. Gomez, F. Gilabert, M. E. Gomez, P. Lopez, J. Duato, "Deterministic versus
       Adaptive Routing in Fat-Trees", IPDPS 2007.
    .. [2] M. Besta, T. Hoefler, "Slim Fly", SC 2014, Section V.
    """
    if select not in ANCA_SELECT:
        raise ParameterError(f"select must be one of {', '.join(ANCA_SELECT)}, got {select!r}")
    return AncaRouting(nca(topology, layout), select=select)
