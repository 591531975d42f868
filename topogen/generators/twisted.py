"""Twisted hypercubes: the hypercube variants of Fig. 1(a) of the layout-conscious paper.

Koibuchi et al. (HPCA 2013, Section I and II) plot the "twisted hypercube [9]" beside the
hypercube and the folded hypercube, without defining it.  Two constructions carry the
name; both are built here (``variant``):

* ``"twisted-cube"`` -- the twisted cube TQ_n of Hilbers, Koopman and van de Snepscheut
  (1987): degree n, diameter (n + 1) / 2 for odd n.  TQ_1 = K_2; for odd n >= 3, four
  copies of TQ_{n-2} (top bits u_{n-1} u_{n-2} = 00, 01, 10, 11) where a switch whose
  low part u' = u_{n-3} .. u_0 has even parity links to the flips of u_{n-2} and of
  u_{n-1} (a hypercube 4-cycle), and one with odd parity to the flips of u_{n-2} and of
  both top bits (the twisted 4-cycle).  The definition needs odd n; for even n the top
  bit is one more plain hypercube dimension (TQ_{n-1} x K_2, diameter n / 2 + 1).
* ``"twisted-n-cube"`` -- the twisted N-cube of Esfahanian, Ni and Sagan (1991): the
  n-cube with the two opposite edges (0, 1) and (2, 3) of the 4-cycle 0-1-3-2 replaced
  by its diagonals (0, 3) and (1, 2); degree n, diameter n - 1 for n >= 3.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..registry import register
from ..topology import Topology

VARIANTS = ("twisted-cube", "twisted-n-cube")


def _twisted_cube_edges(n: int) -> np.ndarray:
    """Edges (u < v) of TQ_n (odd n) or TQ_{n-1} x K_2 (even n) on 2**n switches."""
    u = np.arange(1 << n, dtype=np.int64)
    odd = n if n % 2 else n - 1
    targets = [u ^ 1]
    for k in range(1, (odd - 1) // 2 + 1):
        lo, hi = 2 * k - 1, 2 * k
        low_bits = u & ((1 << lo) - 1)  # u_{2k-2} .. u_0
        parity = np.zeros_like(u)
        for b in range(lo):
            parity ^= (low_bits >> b) & 1
        targets.append(u ^ (1 << lo))
        targets.append(np.where(parity == 0, u ^ (1 << hi), u ^ (1 << hi) ^ (1 << lo)))
    if odd != n:
        targets.append(u ^ (1 << (n - 1)))
    v = np.concatenate(targets)
    uu = np.tile(u, len(targets))
    keep = uu < v
    return np.stack([uu[keep], v[keep]], axis=1)


def _twisted_n_cube_edges(n: int) -> np.ndarray:
    u = np.arange(1 << n, dtype=np.int64)
    bit = (1 << np.arange(n, dtype=np.int64))[:, None]
    v = (u[None, :] ^ bit).ravel()
    uu = np.tile(u, n)
    keep = uu < v
    edges = np.stack([uu[keep], v[keep]], axis=1)
    drop = ((edges[:, 0] == 0) & (edges[:, 1] == 1)) | ((edges[:, 0] == 2) & (edges[:, 1] == 3))
    return np.concatenate([edges[~drop], np.array([[0, 3], [1, 2]], dtype=np.int64)])


@register("twisted-hypercube", family="classic")
def twisted_hypercube(dimension: int, *, variant: Literal["twisted-cube", "twisted-n-cube"] = "twisted-cube",
                      hosts_per_switch: int = 1) -> Topology:
    """Twisted hypercube of 2**dimension switches and degree ``dimension``.

    Parameters
    ----------
    dimension : int
        n, in [2, 24] (``"twisted-n-cube"`` needs n >= 3: the 2-cube has no 4-cycle to
        twist without a duplicate link).
    variant : {"twisted-cube", "twisted-n-cube"}
        Hilbers et al.'s twisted cube TQ_n (default; TQ_{n-1} x K_2 for even n) or
        Esfahanian et al.'s twisted N-cube (module docstring).
    hosts_per_switch : int
        Compute nodes per switch (>= 0).

    Returns
    -------
    Topology
        2**n switches numbered by their bit strings u_{n-1} .. u_0, every switch of degree
        n, ``n 2**(n-1)`` links.

    Raises
    ------
    ParameterError
        For a dimension outside its range or an unknown variant.

    Notes
    -----
    Layout-conscious random topologies (Koibuchi et al.), Section I, Fig. 1(a): the
    "twisted hypercube [9]" is named, not defined; both published constructions are
    offered.  Diameter: (n + 1) / 2 (odd n) and n / 2 + 1 (even n) for the twisted cube,
    n - 1 for the twisted N-cube.

    References
    ----------
    .. [1] P. A. J. Hilbers, M. R. J. Koopman, J. L. A. van de Snepscheut, "The twisted
       cube", PARLE 1987.
    .. [2] A.-H. Esfahanian, L. M. Ni, B. E. Sagan, "The twisted N-cube with application
       to multiprocessing", IEEE Trans. Computers 40(1), 1991.
    """
    if variant not in VARIANTS:
        raise ParameterError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    low = 3 if variant == "twisted-n-cube" else 2
    n = check_int("dimension", dimension, low, 24,
                  hint=f"; the {variant} has 2**dimension switches (dimension >= {low})")
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    edges = _twisted_cube_edges(n) if variant == "twisted-cube" else _twisted_n_cube_edges(n)
    return Topology(1 << n, edges, hosts, name="twisted-hypercube",
                    params={"dimension": n, "variant": variant, "hosts_per_switch": hosts})
