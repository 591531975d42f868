"""Constrained shortcutting's steps 2 and 3 on whole layouts (Koibuchi et al., IV-C/IV-D).

The functions behind ``topogen layout cluster`` and ``topogen layout anneal``:

* :func:`cluster_layout`: group the switches into cabinets (size-capped Walktrap or the
  sequential baseline, IV-C) and put the groups on the floor in the baseline serpentine
  order (IV-D): cluster ``k`` goes to the ``k``-th cabinet of the serpentine.
* :func:`anneal_layout`: keep the contents of every cabinet (the clusters) and move the
  cabinets on the floor by simulated annealing (IV-D) to shorten the cables, starting
  from the given layout, so the result is never longer than the start.
* :func:`layout_figures`: the numbers the paper plots for a layout: inter-cabinet links
  (Fig. 14), average and total cable length (Fig. 15).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._rng import resolve_seed
from ..errors import ParameterError
from .clustering import cluster_graph, inter_cabinet_links, sequential_clusters, walktrap_clusters
from .floor import Floor
from .mapping import anneal, serpentine
from .placement import Layout

__all__ = ["CLUSTERINGS", "LayoutFigures", "layout_figures", "cluster_layout", "anneal_layout"]

#: Clustering methods of :func:`cluster_layout`.
from .names import CLUSTERINGS  # noqa: E402 (the one list, light for the command line)


@dataclass(frozen=True)
class LayoutFigures:
    """What Figs. 14 and 15 plot for one layout.

    Attributes
    ----------
    inter_cabinet_links : int
        Links between switches of different cabinets.
    links : int
        All links.
    average_cable : float
        Mean cable length over all links, intra-cabinet cables (2 m) included, metres.
    total_cable : float
        Sum of the cable lengths, metres.
    """

    inter_cabinet_links: int
    links: int
    average_cable: float
    total_cable: float


def layout_figures(layout: Layout) -> LayoutFigures:
    """Inter-cabinet links and cable lengths of ``layout`` (Figs. 14 and 15)."""
    t = layout.topology
    lengths = layout.cable_length
    return LayoutFigures(
        inter_cabinet_links=inter_cabinet_links(t, layout.cabinet),
        links=t.num_links,
        average_cable=float(lengths.mean()) if lengths.size else 0.0,
        total_cable=float(lengths.sum()),
    )


def cluster_layout(topology, floor: Floor, method: str = "walktrap", *, steps: int = 4,
                   seed=None) -> Layout:
    """Cluster the switches into the floor's cabinets and place the clusters serpentine.

    Parameters
    ----------
    topology : Topology
        Every switch needs a link for ``"walktrap"``.
    floor : Floor
        Cabinets of ``floor.switches_per_cabinet`` switches; the clusters fill at most
        ``floor.cabinets`` of them.
    method : {"walktrap", "sequential"}
        Size-capped Walktrap (:func:`~topogen.layout.clustering.walktrap_clusters`) or
        the sequential baseline (IV-C).
    steps : int
        Random-walk length of Walktrap.
    seed : int, optional
        Seed of Walktrap's random projection (used above 4,096 switches); ``None``
        draws one, recorded in the layout.

    Returns
    -------
    Layout
        ``placement`` is ``"<method>+serpentine"``.

    Raises
    ------
    ParameterError
        Unknown method, a floor too small, or a switch without links (Walktrap).
    """
    if method not in CLUSTERINGS:
        raise ParameterError(f"clustering must be one of {', '.join(CLUSTERINGS)}, got {method!r}")
    n = topology.num_switches
    if n > floor.capacity:
        raise ParameterError(
            f"{n} switches do not fit on a floor of {floor.cabinets} cabinets x "
            f"{floor.switches_per_cabinet} switches; use at least "
            f"{-(-n // floor.switches_per_cabinet)} cabinets")
    seed = resolve_seed(seed)
    z = floor.switches_per_cabinet
    if method == "sequential":
        labels = sequential_clusters(n, z)
    else:
        labels = walktrap_clusters(topology, z, steps=steps, cabinets=floor.cabinets, seed=seed)
    k = int(labels.max()) + 1 if n else 0
    return Layout(topology, floor, serpentine(floor, k)[labels], f"{method}+serpentine", seed)


def anneal_layout(layout: Layout, *, iterations: int = 10**6, restarts: int = 1, seed=None,
                  progress=None, **options) -> Layout:
    """Move whole cabinets on the floor by simulated annealing (IV-D).

    The switches of each cabinet stay together (a cabinet is one of the paper's
    clusters); the cabinets' positions are annealed from their positions in
    ``layout`` to minimise the total inter-cabinet cable length.

    Parameters
    ----------
    layout : Layout
        The start (e.g. from :func:`cluster_layout`).
    iterations, restarts : int
        Moves per trial and trials (the paper: 10^8 moves, best of 5 trials).
    seed : int, optional
        Seed of the annealing; ``None`` draws one, recorded in the result.
    progress : callable, optional
        ``progress(done, total)`` moves, see :func:`~topogen.layout.mapping.anneal`.
    **options
        Other :func:`~topogen.layout.mapping.anneal` options (``t_start``, ``t_end``,
        ``batch``, ``chain``).

    Returns
    -------
    Layout
        ``placement`` is ``"anneal"``; its total cable length is never above
        ``layout``'s and every cabinet holds the same switches as a cabinet of
        ``layout``.
    """
    seed = resolve_seed(seed)
    cab = layout.cabinet
    k = int(cab.max()) + 1 if cab.size else 0
    W = cluster_graph(layout.topology, cab)
    if W.shape[0] < k:  # pragma: no cover - cluster_graph sizes by the largest label
        raise ParameterError("cabinet labels are not contiguous")
    res = anneal(W, layout.floor, initial=np.arange(k), iterations=iterations, restarts=restarts,
                 seed=seed, progress=progress, **options)
    return Layout(layout.topology, layout.floor, res.assignment[cab], "anneal", seed)
