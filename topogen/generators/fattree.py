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
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

__all__ = ["myrinet_clos", "clos_levels"]


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
