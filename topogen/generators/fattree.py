"""Fat trees: the Myrinet-Clos network of the layout-conscious random topologies paper.

Koibuchi et al. (Section III-C2, Fig. 8) simulate "the indirect Myrinet-Clos topology"
with "80- and 160-switch topologies with 256- and 512-hosts", and place it so that "leaf
switches are stored in cabinets that store their local compute nodes (up to 128), while
the other switches are stored in switch-only cabinets"; they then permute it with the
fully random method (Section III-A, see :mod:`topogen.generators.permute`).

The paper gives no wiring, only the switch and host counts.  Myrinet builds its Clos
networks from 16-port crossbars whose leaves take 8 hosts and 8 up-links; the folded Clos
below is the standard construction from such crossbars, and it gives exactly the paper's
counts (80 switches for 256 hosts, 160 for 512):

* **two levels** (up to ``radix`` leaves): ``L`` leaves, each with ``radix / 2`` hosts,
  linked to every one of ``radix / 2`` spines (a complete bipartite graph);
* **three levels** (more than ``radix`` leaves): *pods* of ``radix / 2`` leaves and
  ``radix / 2`` middle switches (complete bipartite inside a pod); every middle switch has
  ``radix / 2`` up-links to top switches, and the ``P * radix / 4`` top switches use all
  ``radix`` ports downwards.  Middle position ``m`` of every pod links to the ``radix / 2``
  top switches of block ``m // (radix / P)``, so a top switch links to exactly one middle
  switch of each of ``radix / P`` positions in each of the ``P`` pods (a simple graph;
  needs ``P`` to divide ``radix``).  With ``P = radix`` this is the full 3-level fat tree
  of ``radix``-port switches.

The k-ary n-tree of Petrini and Vanneschi (:func:`kary_ntree`) is the fat tree the Slim Fly
paper compares against (its FT-3, Section V): ``n`` levels of ``k**(n-1)`` switches with
``2k`` ports, ``k**n`` hosts on the leaves.  :func:`fat_tree` builds it from the routers'
port count (``radix``-port routers make a ``radix/2``-ary tree).
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = ["myrinet_clos", "clos_levels", "kary_ntree", "fat_tree", "ntree_levels"]


def clos_levels(hosts: int, radix: int = 16) -> tuple[int, int, int]:
    """Switches per level ``(leaves, middles, tops)`` of :func:`myrinet_clos`.

    A two-level network has ``tops == 0`` (its spines are counted as middles).

    Raises
    ------
    ParameterError
        If ``radix`` is not an even number >= 4, or ``hosts`` gives no valid Clos (the
        message lists the valid host counts).
    """
    r = check_int("radix", radix, 4, hint=" (ports of a crossbar switch)")
    if r % 2:
        raise ParameterError(f"radix must be an even integer >= 4 (half the ports face down), got {r}")
    h = r // 2
    valid2 = [h * leaves for leaves in range(2, r + 1)]
    valid3 = [h * h * p for p in range(3, r + 1) if r % p == 0 and p % 2 == 0]
    hint = (f"; with radix={r}: two levels for hosts in {valid2[0]}..{valid2[-1]} (multiples of {h}), "
            f"three levels for hosts in {valid3}")
    H = check_int("hosts", hosts, 2 * h, hint=hint)
    if H % h:
        raise ParameterError(f"hosts must be a multiple of radix/2 = {h} (hosts per leaf), got {H}{hint}")
    leaves = H // h
    if leaves <= r:
        return leaves, h, 0
    if H not in valid3:
        raise ParameterError(f"hosts={H} gives no simple three-level Clos{hint}")
    pods = leaves // h
    return leaves, pods * h, pods * h // 2


@register("myrinet-clos", family="fattree")
def myrinet_clos(
    hosts: int,
    *,
    radix: int = 16,
    switches_per_cabinet: int = 16,
    hosts_per_cabinet: int = 128,
) -> Topology:
    """Myrinet-Clos: a folded Clos of ``radix``-port crossbars (Koibuchi et al. III-C2).

    Parameters
    ----------
    hosts : int
        Number of compute nodes; 256 and 512 give the paper's 80- and 160-switch networks.
    radix : int
        Ports per switch (16 for Myrinet crossbars); leaves take ``radix / 2`` hosts.
    switches_per_cabinet : int
        Capacity of the switch-only cabinets holding the middle and top switches.
    hosts_per_cabinet : int
        Compute nodes per leaf cabinet (128 in the paper): each leaf cabinet holds
        ``hosts_per_cabinet // (radix / 2)`` leaves with their hosts.

    Returns
    -------
    Topology
        Switches numbered leaves first (pod by pod), then middle (or spine) switches,
        then top switches; ``hosts_per_switch`` is ``radix / 2`` on leaves and 0
        elsewhere; link kinds ``"leaf-middle"`` and ``"middle-top"``; native placement:
        leaves in leaf cabinets, then the other switches sequentially in switch-only
        cabinets.  ``params`` records ``switches_per_cabinet`` so
        :func:`topogen.layout.default_floor` builds a floor of that capacity.

    Raises
    ------
    ParameterError
        For a host count that gives no simple Clos (the message lists valid counts), an
        odd radix, or cabinets too small for one leaf.

    Notes
    -----
    Section III-C2 of the paper names the network and its sizes only; the wiring
    (module docstring) is the folded Clos of 16-port Myrinet crossbars, which has the
    paper's switch counts: 32 + 32 + 16 = 80 switches for 256 hosts and
    64 + 64 + 32 = 160 for 512.  Placement follows the paper's sentence on leaf and
    switch-only cabinets.  How many switches a switch-only cabinet holds is not stated;
    16, the paper's cabinet size, is the default.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Sections III-A, III-C2.
    .. [2] N. J. Boden et al., "Myrinet: a gigabit-per-second local area network",
       IEEE Micro 15(1), 1995.
    """
    leaves, middles, tops = clos_levels(hosts, radix)
    r = int(radix)
    h = r // 2
    z = check_int("switches_per_cabinet", switches_per_cabinet, 1)
    hpc = check_int("hosts_per_cabinet", hosts_per_cabinet, h,
                    hint=f" (a leaf cabinet must hold at least one leaf with its {h} hosts)")
    leaves_per_cab = hpc // h
    if leaves_per_cab > z:
        raise ParameterError(
            f"hosts_per_cabinet={hpc} puts {leaves_per_cab} leaves in a cabinet but a cabinet holds "
            f"switches_per_cabinet={z} switches; use hosts_per_cabinet <= {z * h}"
        )
    n = leaves + middles + tops
    leaf = np.arange(leaves, dtype=np.int64)
    if tops == 0:  # two levels: every leaf to every spine
        mid = leaves + np.arange(middles, dtype=np.int64)
        lm = np.stack([np.repeat(leaf, middles), np.tile(mid, leaves)], axis=1)
        mt = np.zeros((0, 2), dtype=np.int64)
    else:
        pods = leaves // h
        # leaf (pod p, position i) -- middle (pod p, position m) for all i, m
        p, i, m = np.meshgrid(np.arange(pods), np.arange(h), np.arange(h), indexing="ij")
        lm = np.stack([(p * h + i).ravel(), (leaves + p * h + m).ravel()], axis=1)
        g = r // pods  # middle positions per block of top switches
        # middle (pod p, position m) -- top (block m // g, index k) for k < h
        p, m, k = np.meshgrid(np.arange(pods), np.arange(h), np.arange(h), indexing="ij")
        mt = np.stack([(leaves + p * h + m).ravel(),
                       (leaves + middles + (m // g) * h + k).ravel()], axis=1)
    edges = np.concatenate([lm, mt])
    kinds = np.concatenate([np.zeros(len(lm), np.int8), np.ones(len(mt), np.int8)])
    hosts_arr = np.zeros(n, dtype=np.int64)
    hosts_arr[:leaves] = h
    leaf_cabs = -(-leaves // leaves_per_cab)
    cabinet = np.concatenate([
        leaf // leaves_per_cab,
        leaf_cabs + np.arange(middles + tops, dtype=np.int64) // z,
    ])
    return Topology(
        n, edges, hosts_arr, name="myrinet-clos",
        params=dict(hosts=int(hosts), radix=r, switches_per_cabinet=z, hosts_per_cabinet=hpc),
        cabinet=cabinet, link_kind=kinds, kind_names=("leaf-middle", "middle-top"),
    )


# ----------------------------------------------------------------------------- k-ary n-tree
def _ntree_sizes(k: int, n: int) -> tuple[int, int, int]:
    """(switches per level, switches, hosts) of a k-ary n-tree, refusing sizes beyond
    topogen's 32-bit ids before anything is allocated."""
    from ..topology import MAX_IDS

    if (n - 1) * math.log2(k) > 31 or n * k ** (n - 1) > MAX_IDS or k ** n > MAX_IDS:
        raise ParameterError(
            f"k={k}, n={n} gives {n} x {k}**{n - 1} switches and {k}**{n} hosts, more than "
            f"topogen's 32-bit ids hold ({MAX_IDS:,}); use a smaller k or n")
    per_level = k ** (n - 1)
    return per_level, n * per_level, k ** n


def ntree_levels(k: int, n: int) -> np.ndarray:
    """Level of every switch of :func:`kary_ntree` ``(k, n)``: 0 at the top (roots),
    ``n - 1`` for the leaves, which hold the hosts."""
    per_level, total, _ = _ntree_sizes(int(k), int(n))
    return np.arange(total, dtype=np.int64) // per_level


@register("kary-ntree", family="fattree")
def kary_ntree(k: int, n: int) -> Topology:
    """k-ary n-tree fat tree (Petrini and Vanneschi); ``kary_ntree(22, 3)`` is the Slim Fly
    paper's FT-3.

    Parameters
    ----------
    k : int
        Arity (>= 2): every switch has ``k`` links down and ``k`` up (the roots use only
        their ``k`` down ports), every leaf ``k`` hosts; switches have ``2k`` ports.
    n : int
        Levels (>= 1); ``n = 1`` is a single switch with ``k`` hosts.

    Returns
    -------
    Topology
        ``n * k**(n-1)`` switches, ``k**n`` hosts.  Switch ``<w, l>`` (level ``l``, word
        ``w = (w_0 .. w_{n-2})`` in ``{0..k-1}**(n-1)``) has id ``l * k**(n-1) + pos(w)``,
        ``pos(w) = sum(w_i * k**(n-2-i))``: level by level from the top (level 0, the roots)
        to the leaves (level ``n - 1``), as BookSim2's ``fattree`` numbers its routers
        (``level * k**(n-1) + pos``).  ``<w, l>`` and ``<w', l+1>`` are linked when ``w``
        and ``w'`` differ at most in digit ``l``.  Hosts sit on the leaves only, ``k`` each,
        in switch order, so host ``pos * k + i`` is the ``i``-th host of leaf ``pos`` (BookSim's
        node ``pos * k + i`` of leaf router ``pos``).  Link kind ``"level{l}-{l+1}"``
        labels the links between levels ``l`` and ``l + 1``.

    Raises
    ------
    ParameterError
        If ``k < 2`` or ``n < 1``, or the tree has more switches or hosts than topogen's
        32-bit ids allow.

    Notes
    -----
    Section V of the Slim Fly paper simulates "FT-3 [with] k=44, p=22, N_r=1,452,
    N=10,648": a three-level fat tree of 44-port routers with 22 endpoints per leaf, i.e.
    the 22-ary 3-tree (``3 * 22**2 = 1,452`` routers, ``22**3 = 10,648`` hosts); its routing
    is ANCA (:mod:`topogen.routing.anca`).  Section III-C gives its bisection as ``N / 2``
    links (full bisection bandwidth) and Table II its diameter 4 (router-to-router hops
    between leaves, ``2n - 2``).  Section VI-B's cost model describes another three-level
    tree (``5p**2`` routers, ``2p**3`` endpoints, the top level using all ports); that one is
    not this construction.

    Port order: topogen numbers a switch's links by neighbour id, so the ``k`` up links
    (to the lower-numbered level) come first, ordered by the parent's digit, then the
    ``k`` down links by the child's digit.  BookSim's ``fattree`` puts the down ports
    (``0 .. k-1``, by the child's digit) before the up ports (``k .. 2k-1``, by the
    parent's digit); within each direction the order is the same.

    References
    ----------
    .. [1] F. Petrini, M. Vanneschi, "k-ary n-trees: High Performance Networks for Massively
       Parallel Architectures", IPPS 1997.
    .. [2] M. Besta, T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network Topology",
       SC 2014, Sections III-A, III-C, V.
    """
    k = check_int("k", k, 2, hint=" (arity: links down and up per switch, hosts per leaf)")
    n = check_int("n", n, 1, hint=" (levels of switches)")
    per_level, total, hosts = _ntree_sizes(k, n)
    from .._validate import check_topology_memory

    check_topology_memory(total, (n - 1) * k ** n)
    pos = np.arange(per_level, dtype=np.int64)
    parts, kinds = [], []
    for level in range(n - 1):
        weight = k ** (n - 2 - level)  # place value of digit ``level``
        base = pos - ((pos // weight) % k) * weight  # digit ``level`` cleared
        child = (base[:, None] + np.arange(k, dtype=np.int64)[None, :] * weight).ravel()
        parent = np.repeat(pos, k)
        parts.append(np.stack([level * per_level + parent, (level + 1) * per_level + child], axis=1))
        kinds.append(np.full(len(child), level, dtype=np.int8))
    hosts_arr = np.zeros(total, dtype=np.int64)
    hosts_arr[(n - 1) * per_level:] = k
    if n > 1:
        edges = np.concatenate(parts)
        link_kind = np.concatenate(kinds)
        names = tuple(f"level{level}-{level + 1}" for level in range(n - 1))
    else:
        edges, link_kind, names = np.zeros((0, 2), dtype=np.int64), None, ()
    return Topology(total, edges, hosts_arr, name="kary-ntree", params=dict(k=k, n=n),
                    link_kind=link_kind, kind_names=names)


@register("fat-tree", family="fattree")
def fat_tree(radix: int = 44, levels: int = 3) -> Topology:
    """The fat tree of ``radix``-port routers: the ``radix/2``-ary ``levels``-tree; the
    defaults give the Slim Fly paper's FT-3.

    Parameters
    ----------
    radix : int
        Ports per router, even, >= 4 (44 in the paper): ``radix / 2`` down and
        ``radix / 2`` up, leaves with ``radix / 2`` hosts.
    levels : int
        Levels of routers (>= 1; 3 for FT-3).

    Returns
    -------
    Topology
        :func:`kary_ntree` ``(radix // 2, levels)``, recorded as ``fat-tree`` with these
        parameters: 1,452 routers and 10,648 hosts for the defaults.

    Raises
    ------
    ParameterError
        For an odd radix or one below 4, ``levels < 1``, or a tree beyond 32-bit ids.

    Notes
    -----
    Slim Fly paper, Section V: "FT-3 has k=44, p=22, N_r=1,452, N=10,648"; Section II-B's
    choice of concentration for FT-3 is ``p = floor(k/2)``.

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly", SC 2014, Sections II-B and V.
    """
    r = check_int("radix", radix, 4, hint=" (ports per router: half down, half up)")
    if r % 2:
        raise ParameterError(f"radix must be even (radix/2 ports down and radix/2 up), got {r}; "
                             f"use {r - 1} or {r + 1}")
    lv = check_int("levels", levels, 1, hint=" (levels of routers; 3 for FT-3)")
    t = kary_ntree(r // 2, lv)
    return t.replace(name="fat-tree", params={"radix": r, "levels": lv})
