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

This module holds DSN-x and DLN-x; DSN-F is in :mod:`topogen.generators.dsnf` and its
expansion in :mod:`topogen.generators.dsnf_expansion`, both re-exported here.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..registry import register
from ..topology import Topology
from .dsnf import DSNF_KINDS, FILLS, PARTIAL, DSNFLabels, dsnf, dsnf_labels, dsnf_p, dsnf_size_range, labels_of
from .dsnf_expansion import Expansion, cable_diff, expand, transform

__all__ = [
    "dsn", "dsnf", "dln", "dsnf_p", "dsnf_size_range", "DSNFLabels", "dsnf_labels",
    "labels_of", "Expansion", "expand", "transform", "cable_diff", "DSNF_KINDS",
    "FILLS", "PARTIAL",
]


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
