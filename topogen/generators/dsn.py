"""Distributed shortcut networks: DSN-x, DSN-F and the DLN-x baseline (Truong et al.).

Truong, Nguyen, Le, Fujiwara, Chaix, Koibuchi, *Layout-aware Expandable Low-degree
Topology* (the "DSN-F paper") defines:

* **DSN-x** (Section II-A, after Nguyen et al., ICPP 2013): ``n`` nodes on a ring, node
  ``i`` of level ``i mod p + 1`` with ``p = ceil(log2 n)``; every node of level
  ``l <= x`` has one shortcut to the nearest level-``(l+1)`` node at clockwise distance
  at least ``floor(n / 2**l)`` (:func:`dsn`);
* **DSN-F** (Section III-B): ``2**p`` super-nodes on a ring, each made of layers of at
  most ``p`` nodes; layer-0 nodes carry the shortcuts and the Succ/Pred links, lower
  layers hang below them by Layer_Links (:func:`dsnf`);
* its **incremental expansion** by one or many nodes and the **p -> p+1
  transformation** (Section III-D, Fig. 3): :func:`expand`, :func:`transform`, each
  returning an :class:`Expansion` with the cables added, removed and kept;
* **DLN-x** (footnote 1, after Koibuchi et al., ISCA 2012): a ring plus ``x - 2`` random
  shortcuts per node (:func:`dln`).

See ``docs/topologies/dsn.md`` for the readings chosen where the paper is ambiguous.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = [
    "dsn", "dsnf", "dln", "dsnf_p", "dsnf_size_range", "DSNFLabels", "dsnf_labels",
    "labels_of", "Expansion", "expand", "transform", "cable_diff", "DSNF_KINDS",
]

#: Link kinds of a DSN-F topology (``Topology.kind_names``).
DSNF_KINDS = ("local", "layer", "succ", "shortcut")
_LOCAL, _LAYER, _SUCC, _SHORTCUT = range(4)

FILLS = ("sequential", "balanced")
PARTIAL = ("path", "ring")


# =============================================================================== DSN-x


def _ceil_log2(n: int) -> int:
    return int(n - 1).bit_length()


@register("dsn", family="dsn")
def dsn(num_switches: int, x: int | None = None, *, hosts_per_switch: int = 1) -> Topology:
    """DSN-x: the distributed shortcut network of the DSN-F paper, Section II-A (ICPP 2013 DSN).

    Parameters
    ----------
    num_switches : int
        Number of nodes n on the ring (at least 3, so that ``p = ceil(log2 n) >= 2``).
    x : int, optional
        Number of shortcut levels: nodes of level ``l <= x`` get a shortcut,
        ``1 <= x <= p - 1``.  Default ``p - 1`` (every level that has a higher level
        to point to), the DSN of the paper's comparisons.
    hosts_per_switch : int
        Compute nodes per switch.

    Returns
    -------
    Topology
        ``n`` switches; link kinds ``"ring"`` (pred/succ) and ``"shortcut"``; ``params``
        records ``num_switches``, ``x``, ``p`` and ``hosts_per_switch``.

    Raises
    ------
    ParameterError
        If ``n < 3`` or ``x`` lies outside ``[1, p - 1]``.

    Notes
    -----
    Section II-A, verbatim rules:

    * *Ring formation*: node ``i`` links to ``(i - 1) mod n`` (pred) and ``(i + 1) mod n``
      (succ).
    * *Labeling*: level ``l = 1..p`` is assigned to nodes ``k p + l - 1``, i.e. node ``i``
      has level ``i mod p + 1`` with ``p = ceil(log2 n)`` (base-2 logarithm: the shortcut
      lengths ``n / 2**l`` halve from level to level).  When ``p`` does not divide ``n``
      the last super-node is incomplete (the paper's ``r = n mod p``).
    * *Shortcut addition*: a node ``i`` of level ``l <= x`` links to the node ``j`` of
      level ``l + 1`` that has the minimum clockwise distance ``(j - i) mod n`` among those
      at clockwise distance at least ``floor(n / 2**l)``.

    A shortcut that coincides with a ring link (possible only when ``floor(n / 2**l)`` is
    1, i.e. for tiny ``n``) is kept once: topologies are simple graphs.

    The average degree is about ``2 + 2x/p`` (3.72-3.83 for ``x = p - 1`` and
    ``n = 2**7 .. 2**12``): no x gives 4, and the DSN-F paper says DSN-F's average degree
    is "a bit higher" than DSN's (III-C).  ``x = p - 1`` has the lowest ASPL of all x
    (ASPL falls monotonically with x) and reproduces IV-B's 16.7 % diameter gap to DSN-F;
    IV-B's 4.6 % ASPL gap is reached by no x (docs/topologies/dsn.md has the measurements).  A level-(l+1)
    node can receive two shortcuts next to the incomplete super-node, so the maximum
    degree is 4 or, rarely, 5.

    References
    ----------
    .. [1] N. T. Truong, V. K. Nguyen, N. T. X. Le, I. Fujiwara, F. Chaix, M. Koibuchi,
       "Layout-aware Expandable Low-degree Topology", Section II-A.
    .. [2] V. K. Nguyen, N. T. X. Le, I. Fujiwara, M. Koibuchi, "Distributed shortcut
       networks: Layout-aware low-degree topologies exploiting small-world effect",
       ICPP 2013.
    """
    n = check_int("num_switches", num_switches, 3, hint="; DSN needs p = ceil(log2 n) >= 2")
    p = _ceil_log2(n)
    x = p - 1 if x is None else check_int(
        "x", x, 1, p - 1, hint=f" (p = ceil(log2 {n}) = {p}; x counts the shortcut levels)")
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    i = np.arange(n, dtype=np.int64)
    level = i % p + 1
    ring = np.stack([i, (i + 1) % n], axis=1)
    src, dst = [], []
    for lv in range(1, x + 1):
        s = i[level == lv]
        targets = i[level == lv + 1]  # sorted positions of level l+1
        start = s + n // 2 ** lv
        # first level-(l+1) node at or after `start` on the ring (cyclically)
        pos = np.searchsorted(targets, start % n)
        j = targets[pos % len(targets)]
        src.append(s)
        dst.append(j)
    sc = np.stack([np.concatenate(src), np.concatenate(dst)], axis=1)
    edges = np.concatenate([ring, sc])
    kinds = np.concatenate([np.zeros(len(ring), np.int8), np.ones(len(sc), np.int8)])
    edges, kinds = _dedupe(edges, kinds)
    return Topology(n, edges, hosts_per_switch=hosts, name="dsn",
                    params=dict(num_switches=n, x=x, p=p, hosts_per_switch=hosts),
                    link_kind=kinds, kind_names=("ring", "shortcut"))


def _dedupe(edges: np.ndarray, kinds: np.ndarray):
    """Drop self-loops and repeated links (first occurrence, i.e. lowest kind, kept)."""
    e = np.sort(np.asarray(edges, dtype=np.int64), axis=1)
    ok = e[:, 0] != e[:, 1]
    e, kinds = e[ok], kinds[ok]
    _, first = np.unique(e, axis=0, return_index=True)
    first = np.sort(first)
    return e[first], kinds[first]


# =============================================================================== DSN-F labels


def dsnf_p(num_switches: int) -> int:
    """The paper's p of an n-node DSN-F: ``p 2**p <= n < (p + 1) 2**(p + 1)`` (III-B-1)."""
    n = int(num_switches)
    p = 1
    while (p + 1) * 2 ** (p + 1) <= n:
        p += 1
    return p


def dsnf_size_range(p: int) -> tuple[int, int]:
    """Sizes a DSN-F with parameter p can have: ``[p 2**p, (p + 1) 2**(p + 1)]``.

    The lower end is one full layer; the upper end is the state in which every super-node
    holds ``2p + 2`` nodes and the p -> p+1 transformation of III-D applies.
    """
    return p * 2 ** p, (p + 1) * 2 ** (p + 1)


@dataclass(frozen=True)
class DSNFLabels:
    """Labels {l, k, s} of the nodes of a DSN-F (Section III-B-1) and its link maps.

    Attributes
    ----------
    n, p : int
    fill : str
        ``"sequential"`` or ``"balanced"`` (see :func:`dsnf`).
    level, layer, supernode : ndarray of int64, shape (n,)
        ``l`` in 1..p, ``k`` in 0..K-1, ``s`` in 0..2**p - 1.
    node_at : ndarray of int64, shape (2**p, K, p)
        ``node_at[s, k, l - 1]`` = id of node {l, k, s}, -1 if absent.
    """

    n: int
    p: int
    fill: str
    level: np.ndarray
    layer: np.ndarray
    supernode: np.ndarray
    node_at: np.ndarray

    @property
    def num_supernodes(self) -> int:
        return 2 ** self.p

    @property
    def num_layers(self) -> int:
        """The paper's ``K = ceil(n / N)``, ``N = p 2**p`` (III-C)."""
        return self.node_at.shape[1]

    @functools.cached_property
    def up(self) -> np.ndarray:
        """Layer_Link of each node: node {l, k-1, s} (-1 in layer 0)."""
        return self._rel(0, -1)

    @functools.cached_property
    def down(self) -> np.ndarray:
        """The node whose Layer_Link ends here: {l, k+1, s} (-1 if absent)."""
        return self._rel(0, +1)

    def _rel(self, dl: int, dk: int) -> np.ndarray:
        k = self.layer + dk
        ok = (k >= 0) & (k < self.num_layers)
        out = np.full(self.n, -1, dtype=np.int64)
        l0 = (self.level - 1 + dl) % self.p
        out[ok] = self.node_at[self.supernode[ok], k[ok], l0[ok]]
        return out

    @functools.cached_property
    def local_succ(self) -> np.ndarray:
        """Local_Succ in the layer-0 ring: {l mod p + 1, 0, s} (layer-0 nodes only, else -1)."""
        out = np.full(self.n, -1, dtype=np.int64)
        z = self.layer == 0
        out[z] = self.node_at[self.supernode[z], 0, self.level[z] % self.p]
        return out

    @functools.cached_property
    def local_pred(self) -> np.ndarray:
        """Local_Pred in the layer-0 ring: {(l - 2) mod p + 1, 0, s} (layer 0 only)."""
        out = np.full(self.n, -1, dtype=np.int64)
        z = self.layer == 0
        out[z] = self.node_at[self.supernode[z], 0, (self.level[z] - 2) % self.p]
        return out

    @functools.cached_property
    def shortcut(self) -> np.ndarray:
        """Shortcut of layer-0 level-l nodes (l < p): {l+1, 0, s + 2**(p-l)}; Succ for level p."""
        out = np.full(self.n, -1, dtype=np.int64)
        z = self.layer == 0
        lv, s = self.level[z], self.supernode[z]
        m = self.num_supernodes
        is_top = lv == self.p
        # level l < p: shortcut; level p: the Succ link {1, 0, s + 1}
        ts = np.where(is_top, (s + 1) % m, (s + 2 ** np.maximum(self.p - lv, 0)) % m)
        tl = np.where(is_top, 1, lv + 1)
        out[z] = self.node_at[ts, 0, tl - 1]
        return out


def dsnf_labels(num_switches: int, p: int, fill: str = "sequential") -> DSNFLabels:
    """Labels {l, k, s} of every node of an n-node DSN-F with parameter p (III-B-1).

    ``fill="sequential"`` is the paper's labeling verbatim: ``l = i mod p + 1``,
    ``k = floor(i / N)``, ``s = floor(i / p) mod 2**p`` with ``N = p 2**p``.
    ``fill="balanced"`` keeps layer 0 (ids ``0..N-1``) and deals the further nodes to the
    super-nodes in turn: node ``N + m`` joins super-node ``m mod 2**p`` at position
    ``q = floor(m / 2**p)`` beyond its layer 0, i.e. layer ``1 + floor(q / p)``, level
    ``q mod p + 1`` (the state Fig. 3 and Fig. 4 of III-D / IV-A describe).
    """
    n, big = int(num_switches), p * 2 ** p
    i = np.arange(n, dtype=np.int64)
    if fill == "sequential":
        level = i % p + 1
        layer = i // big
        supernode = (i // p) % 2 ** p
    elif fill == "balanced":
        m = np.maximum(i - big, 0)
        q = m // 2 ** p
        first = i < big
        level = np.where(first, i % p + 1, q % p + 1)
        layer = np.where(first, 0, 1 + q // p)
        supernode = np.where(first, i // p, m % 2 ** p)
    else:
        raise ParameterError(f"fill must be one of {', '.join(FILLS)}, got {fill!r}")
    k_layers = -(-n // big)
    node_at = np.full((2 ** p, k_layers, p), -1, dtype=np.int64)
    node_at[supernode, layer, level - 1] = i
    return DSNFLabels(n, p, fill, level, layer, supernode, node_at)


_LABELS: "weakref.WeakKeyDictionary[Topology, DSNFLabels]" = weakref.WeakKeyDictionary()


def labels_of(topology: Topology) -> DSNFLabels:
    """The :class:`DSNFLabels` of a topology made by :func:`dsnf` (or :func:`expand`,
    :func:`transform`); cached per topology."""
    if topology.name != "dsnf":
        raise ParameterError(f"expected a DSN-F topology (generator 'dsnf'), got {topology.name!r}")
    lab = _LABELS.get(topology)
    if lab is None:
        pr = topology.params
        lab = dsnf_labels(topology.num_switches, int(pr["p"]), pr.get("fill", "sequential"))
        _LABELS[topology] = lab
    return lab


def _check_dsnf(n, p, fill, partial_layers):
    n = check_int("num_switches", n, 24, hint="; DSN-F needs p >= 3 (p 2**p <= n), i.e. n >= 24")
    if p is None:
        p = dsnf_p(n)
    else:
        p = check_int("p", p, 3, hint="; DSN-F needs p >= 3 (local rings of at least 3 nodes)")
        if p > 26:  # before p 2**p is computed: 27 * 2**27 switches exceed int32 ids
            raise ParameterError(f"p must be at most 26 (p 2**p <= num_switches < 2**31), got {p}")
        lo, hi = dsnf_size_range(p)
        if not lo <= n <= hi:
            valid = [q for q in range(3, p + 2) if dsnf_size_range(q)[0] <= n <= dsnf_size_range(q)[1]]
            raise ParameterError(
                f"p={p} needs p*2**p <= n <= (p+1)*2**(p+1), i.e. {lo} <= num_switches <= {hi}; "
                f"got num_switches={n} (valid p for n={n}: {', '.join(map(str, valid)) or 'none'})")
    if fill not in FILLS:
        raise ParameterError(f"fill must be one of {', '.join(FILLS)}, got {fill!r}")
    if partial_layers not in PARTIAL:
        raise ParameterError(f"partial_layers must be one of {', '.join(PARTIAL)}, got {partial_layers!r}")
    return n, p


def _dsnf_links(lab: DSNFLabels, partial_layers: str):
    """Links of a DSN-F from its labels: (edges (E,2), kinds (E,)) (III-B-2..4)."""
    p, m = lab.p, lab.num_supernodes
    na = lab.node_at
    parts, kinds = [], []
    # Local_Pred / Local_Succ: ring of every (super-node, layer); levels present form a
    # prefix 1..c.  A complete layer (c = p) is a ring; a partial one a path, or a ring
    # when c >= 3 under partial_layers="ring".
    cnt = (na >= 0).sum(axis=2)  # (m, K)
    a, b = na[:, :, :-1], na[:, :, 1:]
    ok = (a >= 0) & (b >= 0)
    parts.append(np.stack([a[ok], b[ok]], axis=1))
    close_min = p if partial_layers == "path" else 3
    s_idx, k_idx = np.nonzero(cnt >= close_min)
    c = cnt[s_idx, k_idx]
    parts.append(np.stack([na[s_idx, k_idx, c - 1], na[s_idx, k_idx, 0]], axis=1))
    kinds += [_LOCAL] * 2
    # Layer_Link: {l, k, s} -- {l, k-1, s}
    a, b = na[:, 1:, :], na[:, :-1, :]
    ok = a >= 0
    parts.append(np.stack([a[ok], b[ok]], axis=1))
    kinds.append(_LAYER)
    # Succ: {p, 0, s} -- {1, 0, s+1}
    s = np.arange(m)
    parts.append(np.stack([na[s, 0, p - 1], na[(s + 1) % m, 0, 0]], axis=1))
    kinds.append(_SUCC)
    # Shortcut: {l, 0, s} -> {l+1, 0, s + 2**(p-l)}, l < p
    sc = []
    for lv in range(1, p):
        sc.append(np.stack([na[s, 0, lv - 1], na[(s + 2 ** (p - lv)) % m, 0, lv]], axis=1))
    parts.append(np.concatenate(sc))
    kinds.append(_SHORTCUT)
    kind_arr = np.concatenate([np.full(len(x), k, np.int8) for x, k in zip(parts, kinds)])
    return np.concatenate(parts), kind_arr


def _native_cabinets(lab: DSNFLabels, z: int) -> np.ndarray:
    """Cabinet of each switch: switches sorted by (super-node, layer, level), z per cabinet."""
    order = np.lexsort((lab.level, lab.layer, lab.supernode))
    rank = np.empty(lab.n, dtype=np.int64)
    rank[order] = np.arange(lab.n)
    return rank // z


@register("dsnf", family="dsn")
def dsnf(
    num_switches: int,
    p: int | None = None,
    *,
    fill: Literal["sequential", "balanced"] = "sequential",
    partial_layers: Literal["path", "ring"] = "path",
    switches_per_cabinet: int = 16,
    hosts_per_switch: int = 1,
) -> Topology:
    """DSN-F: distributed shortcut network with flexible expansion (DSN-F paper, III-B).

    Parameters
    ----------
    num_switches : int
        Number of nodes n (at least 24, i.e. p >= 3).
    p : int, optional
        Maximum level / number of shortcuts per super-node.  Default: the paper's p,
        the integer with ``p 2**p <= n < (p + 1) 2**(p + 1)``.  Given explicitly it must
        satisfy ``p 2**p <= n <= (p + 1) 2**(p + 1)`` (the sizes the expansion method of
        III-D reaches before the p -> p+1 transformation).
    fill : {"sequential", "balanced"}
        Order in which nodes beyond layer 0 are labelled: ``"sequential"`` is the
        labeling of III-B-1 verbatim (layer ``floor(i / N)``, super-node
        ``floor(i / p) mod 2**p``: layer 1 fills super-node 0 first); ``"balanced"``
        deals them to the super-nodes in turn (the state of Fig. 3 and Fig. 4).
    partial_layers : {"path", "ring"}
        Links of a layer that holds fewer than p nodes: a path through levels 1..c
        (default: adding a node then only adds cables, III-D) or a ring closed when
        ``c >= 3``.
    switches_per_cabinet : int
        Native placement: switches sorted by (super-node, layer, level) fill cabinets of
        this size (16 in IV-C; one super-node per cabinet when it holds 16 nodes).
    hosts_per_switch : int
        Compute nodes per switch.

    Returns
    -------
    Topology
        Link kinds ``"local"`` (Local_Pred/Local_Succ), ``"layer"`` (Layer_Link),
        ``"succ"`` (Succ/Pred between super-nodes) and ``"shortcut"``; native
        ``cabinet``; ``params`` records every parameter with the resolved ``p``.

    Raises
    ------
    ParameterError
        If ``n < 24``, ``p`` is outside the valid range for ``n``, or an option is unknown.

    Notes
    -----
    Section III-B.  Node ``i`` has level ``l``, layer ``k`` and super-node ``s``
    (III-B-1, see :func:`dsnf_labels`).  Links:

    * *Local_Pred / Local_Succ* (III-B-2): nodes of one layer of one super-node form a
      ring ``{l, k, s} -- {l mod p + 1, k, s}``;
    * *Layer_Link* (III-B-2): ``{l, k, s} -- {l, k - 1, s}`` for ``k >= 1``;
    * *Succ / Pred* (III-B-3): ``{p, 0, s} -- {1, 0, s + 1 mod 2**p}``;
    * *Shortcut* (III-B-4): ``{l, 0, s} -- {l + 1, 0, s + 2**(p - l) mod 2**p}`` for
      ``l < p`` ("the super-node with the minimum clockwise distance of 2**p / 2**l").
      For n = 32, p = 3 node 0 links to node 13 (Fig. 1).

    With all layers complete every node has degree 3, 4 or 5 and the average is exactly
    4 (Theorem 1a); a partial last layer lowers the average (its nodes have one or two
    local links).  The paper writes the level of the ring neighbours as
    ``l +/- 1 mod p``, which with levels 1..p means ``(l mod p) + 1`` and
    ``((l - 2) mod p) + 1``.  ``p >= 3`` is required: with ``p <= 2`` the local rings
    (and for ``p = 1`` the super-node ring) degenerate into parallel links.

    References
    ----------
    .. [1] N. T. Truong, V. K. Nguyen, N. T. X. Le, I. Fujiwara, F. Chaix, M. Koibuchi,
       "Layout-aware Expandable Low-degree Topology", Sections III-B, III-C, III-D.
    """
    n, p = _check_dsnf(num_switches, p, fill, partial_layers)
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    lab = dsnf_labels(n, p, fill)
    edges, kinds = _dsnf_links(lab, partial_layers)
    params = dict(num_switches=n, p=p, fill=fill, partial_layers=partial_layers,
                  switches_per_cabinet=z, hosts_per_switch=hosts)
    return Topology(n, edges, hosts_per_switch=hosts, name="dsnf", params=params,
                    cabinet=_native_cabinets(lab, z), link_kind=kinds, kind_names=DSNF_KINDS)


# =============================================================================== expansion


@dataclass(frozen=True)
class Expansion:
    """The outcome of an expansion step (III-D).

    Attributes
    ----------
    before, topology : Topology
        The network before and after.
    old_to_new : ndarray of int64
        New id of each switch of ``before`` (identity for node additions).
    added, removed, kept : ndarray (E, 2) of int64
        Cables in the numbering of ``topology`` (``u < v``, sorted): new cables, cables
        taken out, cables left in place (a cable joining the same two switches before and
        after counts as kept, even if its role changes).
    relabelled : ndarray (E, 2) of int64
        Kept cables whose link kind changes (the transformation turns one Layer_Link per
        super-node into a Succ link).
    steps : dict or None
        For :func:`transform`: links added and removed by the paper's step list.
    """

    before: Topology
    topology: Topology
    old_to_new: np.ndarray
    added: np.ndarray
    removed: np.ndarray
    kept: np.ndarray
    relabelled: np.ndarray = None
    steps: dict | None = None

    def __post_init__(self):
        if self.relabelled is None:
            object.__setattr__(self, "relabelled", _relabelled(self))

    @property
    def rewired(self) -> int:
        """Cables to install (the paper's count of rewired cables, III-E)."""
        return int(len(self.added))

    def summary(self) -> dict:
        return {"switches_before": self.before.num_switches,
                "switches_after": self.topology.num_switches,
                "added": int(len(self.added)), "removed": int(len(self.removed)),
                "kept": int(len(self.kept)), "relabelled": int(len(self.relabelled))}


def _kind_lookup(t: Topology, edges: np.ndarray, numbering=None) -> np.ndarray:
    """Kind names of ``edges`` in topology ``t`` (``numbering`` maps t's ids first)."""
    te = t.edges.astype(np.int64)
    if numbering is not None:
        te = np.sort(np.asarray(numbering)[te], axis=1)
    big = int(max(te.max(initial=0), np.max(edges, initial=0))) + 1
    kt = te[:, 0] * big + te[:, 1]
    order = np.argsort(kt)
    ke = edges[:, 0] * big + edges[:, 1]
    pos = order[np.searchsorted(kt[order], ke)]
    return np.asarray(t.kind_of_links(), dtype=object)[pos]


def _relabelled(ex: "Expansion") -> np.ndarray:
    if len(ex.kept) == 0 or ex.before.link_kind is None or ex.topology.link_kind is None:
        return np.zeros((0, 2), dtype=np.int64)
    before = _kind_lookup(ex.before, ex.kept, ex.old_to_new)
    after = _kind_lookup(ex.topology, ex.kept)
    return ex.kept[before != after]


def _sorted_edges(e) -> np.ndarray:
    e = np.sort(np.asarray(e, dtype=np.int64).reshape(-1, 2), axis=1)
    if len(e) == 0:
        return e
    return np.unique(e, axis=0)


def cable_diff(old_edges, new_edges, old_to_new=None):
    """(added, removed, kept) between two edge lists; old ids mapped by ``old_to_new``."""
    old = np.asarray(old_edges, dtype=np.int64).reshape(-1, 2)
    if old_to_new is not None:
        old = np.asarray(old_to_new, dtype=np.int64)[old]
    old, new = _sorted_edges(old), _sorted_edges(new_edges)
    big = int(max(old.max(initial=0), new.max(initial=0))) + 1
    ko, kn = old[:, 0] * big + old[:, 1], new[:, 0] * big + new[:, 1]
    kept = np.isin(kn, ko)
    return new[~kept], old[~np.isin(ko, kn)], new[kept]


def _dsnf_params(topology: Topology) -> dict:
    labels_of(topology)  # validates the name
    pr = dict(topology.params)
    return {k: pr[k] for k in ("p", "fill", "partial_layers", "switches_per_cabinet",
                               "hosts_per_switch") if k in pr}


def expand(topology: Topology, count: int = 1) -> Expansion:
    """Add ``count`` nodes to a DSN-F without changing p (III-D, first method).

    Parameters
    ----------
    topology : Topology
        A DSN-F made by :func:`dsnf` (or by an earlier :func:`expand`/:func:`transform`).
    count : int
        Nodes to add (>= 1); the result may hold at most ``(p + 1) 2**(p + 1)`` nodes.

    Returns
    -------
    Expansion
        ``topology`` equals ``dsnf(n + count, p=p, ...)`` with the same options; the
        old switches keep their ids.

    Raises
    ------
    ParameterError
        If the result would exceed ``(p + 1) 2**(p + 1)`` nodes (transform first).

    Notes
    -----
    Section III-D: the new node goes into the last layer (a new layer when it is full)
    of a super-node, "based on the labeling scheme of construction method", so nodes are
    added in id order of the labeling (``fill`` decides which super-node).  Each new
    node brings its Layer_Link and its local link(s); with ``partial_layers="path"`` no
    existing cable is moved (the paper: "it only add new cables for the new node"); the
    ring reading moves the closing local link of the partial layer.
    """
    pr = _dsnf_params(topology)
    n = topology.num_switches
    p = int(pr["p"])
    hi = dsnf_size_range(p)[1]
    count = check_int("count", count, 1, max(hi - n, 1),
                      hint=f" (a DSN-F with p={p} holds at most {hi} nodes; "
                           "apply transform() at that size)")
    if n + count > hi:
        raise ParameterError(f"a DSN-F with p={p} holds at most {hi} nodes (it has {n}); "
                             "apply transform() first")
    new = dsnf(n + count, **pr)
    added, removed, kept = cable_diff(topology.edges, new.edges)
    return Expansion(topology, new, np.arange(n, dtype=np.int64), added, removed, kept)


def transform(topology: Topology) -> Expansion:
    """The p -> p+1 transformation of a full DSN-F (III-D, Fig. 3).

    Parameters
    ----------
    topology : Topology
        A DSN-F with parameter p in which every super-node holds ``2p + 2`` nodes:
        ``dsnf((p + 1) * 2**(p + 1), p=p, fill="balanced")``.

    Returns
    -------
    Expansion
        ``topology`` is the DSN-F with parameter p + 1 on the same nodes (a single
        layer of ``2**(p + 1)`` super-nodes); ``old_to_new`` renumbers the switches.
        As cables: ``added`` ``(p + 6) 2**p``, ``removed`` ``(p + 5) 2**p``, ``kept``
        ``(3p - 2) 2**p`` of which ``2**p`` are ``relabelled`` (Layer_Link -> Succ).
        ``steps`` counts the links the paper's step list adds and removes:
        ``(p + 7) 2**p`` and ``(p + 6) 2**p``.

    Raises
    ------
    ParameterError
        If the topology is not in that state.

    Notes
    -----
    Built by the steps of III-D, not by regenerating: super-node S (nodes 0..2p+1 of
    Fig. 3a: layer 0 = levels 1..p, layer 1 = levels 1..p, layer 2 = levels 1, 2) splits
    into S_A = layer 0 + node 2p (level 1 of layer 2, new level p+1) and S_B = layer 1 +
    node 2p+1 (new level p+1); S_A and S_B become super-nodes 2S and 2S+1 (the binary
    naming of III-E: S -> S0, S1).  Then

    * every Layer_Link is removed (p + 2 per super-node), with the local link of layer 2;
    * in S_A and in S_B the level-(p+1) node enters the ring between levels p and 1
      (one local link removed, two added, in each);
    * S_A keeps its shortcuts of levels 1..p-1; the Succ link of its level-p node is
      replaced by a shortcut to level p+1 of (S+1)_A; a new Succ joins its level p+1
      to level 1 of S_B;
    * S_B gets p shortcuts, level l -> level l+1 of the super-node at distance
      2**(p+1-l) in the new numbering, and a Succ from its level p+1 to level 1 of
      (S+1)_A.

    The paper writes the S_B shortcut target as ``(S + 2**(p+1-l))_B``; read with S in
    the old numbering the shortcut would be twice too long and the result not a DSN-F
    (against the paper's own conclusion), so S is the new super-node index here.
    Counting: the steps add 4 local + (p + 1) shortcuts + 2 Succ = p + 7 links per
    original super-node, the paper's "p + 7 cables rewired at each super-node" (III-E),
    and remove p + 6.  One of the added links, the Succ from S_A's level p+1 (old node
    2p) to S_B's level 1 (old node p), joins the same two switches as the removed
    Layer_Link between them: the cable can stay, so physically p + 6 cables are new and
    p + 5 taken out (``added``/``removed``), the paper's p + 7 being the step count
    (``steps``).  The paper counts 4p + 4 links per super-node (2p + 2 local, i.e. layer
    2's two-node ring as two cables); as a simple graph it has 4p + 3.
    """
    pr = _dsnf_params(topology)
    p = int(pr["p"])
    n = topology.num_switches
    full = dsnf_size_range(p)[1]
    if n != full or pr.get("fill") != "balanced":
        raise ParameterError(
            f"the p -> p+1 transformation (III-D) splits super-nodes of exactly 2p + 2 nodes: "
            f"it needs dsnf({full}, p={p}, fill='balanced'), got n={n}, fill={pr.get('fill')!r}")
    lab = labels_of(topology)
    m, q = 2 ** p, p + 1
    na = lab.node_at  # (m, 3, p)
    # new ids: super-node 2S (A) and 2S+1 (B), level l -> id s' q + l - 1
    old_to_new = np.empty(n, dtype=np.int64)
    S = np.arange(m)
    for lv in range(1, p + 1):
        old_to_new[na[S, 0, lv - 1]] = (2 * S) * q + lv - 1
        old_to_new[na[S, 1, lv - 1]] = (2 * S + 1) * q + lv - 1
    old_to_new[na[S, 2, 0]] = (2 * S) * q + p
    old_to_new[na[S, 2, 1]] = (2 * S + 1) * q + p
    old = old_to_new[topology.edges.astype(np.int64)]
    kinds = topology.link_kind
    m2 = 2 * m

    def nid(s, lv):
        return (np.asarray(s) % m2) * q + lv - 1

    A, B = 2 * S, 2 * S + 1
    remove = [old[kinds == _LAYER],                                   # all Layer_Links
              np.stack([nid(A, p), nid(A, 1)], 1),                   # layer-0 ring closure
              np.stack([nid(B, p), nid(B, 1)], 1),                   # layer-1 ring closure
              np.stack([nid(A, p + 1), nid(B, p + 1)], 1),           # layer-2 local link
              np.stack([nid(A, p), nid(A + 2, 1)], 1)]               # Succ of S (level p)
    add = [np.stack([nid(A, p), nid(A, p + 1)], 1), np.stack([nid(A, p + 1), nid(A, 1)], 1),
           np.stack([nid(B, p), nid(B, p + 1)], 1), np.stack([nid(B, p + 1), nid(B, 1)], 1),
           np.stack([nid(A, p), nid(A + 2, p + 1)], 1),              # S_A level-p shortcut
           np.stack([nid(A, p + 1), nid(B, 1)], 1),                  # Succ S_A -> S_B
           np.stack([nid(B, p + 1), nid(A + 2, 1)], 1)]              # Succ S_B -> (S+1)_A
    for lv in range(1, p + 1):                                       # S_B shortcuts
        add.append(np.stack([nid(B, lv), nid(B + 2 ** (q - lv), lv + 1)], 1))
    step_removed = _sorted_edges(np.concatenate(remove))
    step_added = _sorted_edges(np.concatenate(add))
    old_s = _sorted_edges(old)
    big = n + 1
    k_old = old_s[:, 0] * big + old_s[:, 1]
    k_rem = step_removed[:, 0] * big + step_removed[:, 1]
    if not np.isin(k_rem, k_old).all():  # pragma: no cover - internal consistency
        raise ParameterError("transformation removes a cable that does not exist")
    new_edges = np.concatenate([old_s[~np.isin(k_old, k_rem)], step_added])
    # label the new links by kind from the new labels
    new_pr = dict(pr, p=q)
    ref = dsnf(n, **new_pr)
    new = Topology(n, new_edges, hosts_per_switch=topology.hosts_per_switch, name="dsnf",
                   params=ref.params, cabinet=ref.cabinet)
    kind_map = _kinds_like(ref, new.edges)
    new = new.replace(link_kind=kind_map, kind_names=DSNF_KINDS)
    added, removed, kept = cable_diff(old, new.edges)
    return Expansion(topology, new, old_to_new, added, removed, kept,
                     steps={"added": int(len(step_added)), "removed": int(len(step_removed))})


def _kinds_like(ref: Topology, edges: np.ndarray) -> np.ndarray:
    """Kind code of each of ``edges`` as labelled in ``ref`` (DSN_F links of that size).

    Links that ``ref`` does not have get the code of the link kind they would need
    (never happens for a correct transformation; they are labelled "local").
    """
    big = ref.num_switches + 1
    kr = ref.edges[:, 0].astype(np.int64) * big + ref.edges[:, 1]
    ke = edges[:, 0].astype(np.int64) * big + edges[:, 1]
    pos = np.clip(np.searchsorted(kr, ke), 0, len(kr) - 1)
    found = kr[pos] == ke
    return np.where(found, ref.link_kind[pos], _LOCAL).astype(np.int8)


# =============================================================================== DLN-x


@register("dln", family="dsn")
def dln(
    num_switches: int,
    x: int = 4,
    *,
    instances: int = 1,
    instance: int | None = None,
    hosts_per_switch: int = 1,
    seed: int | None = None,
) -> Topology:
    """DLN-x: a ring with x - 2 random shortcuts per node (DSN-F paper, footnote 1).

    Parameters
    ----------
    num_switches : int
        Number of nodes on the ring (at least 3).
    x : int
        Degree: 2 ring links plus at most ``x - 2`` random shortcuts per node
        (``2 <= x <= n - 1``); the DSN-F paper compares with DLN-4.
    instances : int
        Instances built from ``child_seeds(seed, instances)``; the one with the most links
        is kept (the paper builds one).
    instance : int, optional
        Build only this instance index.
    hosts_per_switch : int
        Compute nodes per switch.
    seed : int, optional
        Seed of the shortcuts; ``None`` draws one and records it.

    Returns
    -------
    Topology
        Link kinds ``"ring"`` and ``"shortcut"``; ``params`` records every parameter, the
        seed and the instance.

    Raises
    ------
    ParameterError
        For parameters out of range.

    Notes
    -----
    Footnote 1 of the DSN-F paper: "A DLN-x topology [7] is constructed of a ring and
    x - 2 additional random shortcuts at each node" ([7] = Koibuchi et al., ISCA 2012).
    This is the RING-n of the layout-conscious random topologies paper (Section III-B,
    same authors, citing [7]), and the shortcuts follow its procedure: ``x - 2`` rounds
    of random matching among the nodes not already connected (ring links included), so
    a node may end a round without a shortcut and the degree is at most ``x``.  This is
    the random baseline of Figures 5-7, not the "DLN-p of super-nodes" by which III-A
    describes DSN, which is DSN-F's own deterministic shortcut pattern.

    References
    ----------
    .. [1] Truong et al., "Layout-aware Expandable Low-degree Topology", footnote 1, IV.
    .. [2] M. Koibuchi, H. Matsutani, H. Amano, D. F. Hsu, H. Casanova, "A Case for
       Random Shortcut Topologies for HPC Interconnects", ISCA 2012.
    """
    from .random import ring

    n = check_int("num_switches", num_switches, 3, hint="; DLN needs a ring of at least 3 nodes")
    x = check_int("x", x, 2, n - 1, hint=f" (2 ring links plus at most n - 3 = {n - 3} shortcuts)")
    t = ring(num_switches, x, instances=instances, instance=instance,
             hosts_per_switch=hosts_per_switch, seed=seed)
    pr = dict(t.params)
    pr["x"] = pr.pop("degree")
    return t.replace(name="dln", params=pr)
