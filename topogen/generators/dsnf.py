"""DSN-F: the distributed shortcut network with flexible expansion (Truong et al., DSN-F
paper, Section III-B): the node labels {l, k, s} (:func:`dsnf_labels`, :func:`labels_of`),
the sizes a given p allows (:func:`dsnf_p`, :func:`dsnf_size_range`) and the generator
:func:`dsnf`.

Its expansion and the p -> p+1 transformation are in :mod:`topogen.generators.dsnf_expansion`;
:mod:`topogen.generators.dsn`, the family's module, re-exports both.  See
``docs/topologies/dsn.md``.
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

#: Link kinds of a DSN-F topology (``Topology.kind_names``).
DSNF_KINDS = ("local", "layer", "succ", "shortcut")
_LOCAL, _LAYER, _SUCC, _SHORTCUT = range(4)

FILLS = ("sequential", "balanced")
PARTIAL = ("path", "ring")


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
