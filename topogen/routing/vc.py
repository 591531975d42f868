"""Virtual-channel assignments that make a table routing deadlock-free.

``hop_indexed``
    VC ``k`` on hop ``k`` (Gopal's scheme as used by Slim Fly, Sec. IV-D: "for an
    n-hop path ... we use a VC k (0 <= k < n) on a hop k").  Every dependency goes from VC
    ``k`` to VC ``k+1``, so the CDG is acyclic; it needs as many VCs as the longest route
    has hops (2 for MIN on a Slim Fly, whose diameter is 2).
``layered``
    DFSSSP-style layers (Domke, Hoefler, Nagel 2011; Slim Fly Sec. IV-D mentions OFED's
    DFSSSP needing three VCs): all routes start in layer 0; while the CDG of a layer has a
    cycle, the dependency of that cycle induced by the fewest routes (ties: the lowest
    channel pair) is broken by moving every route of the layer that induces it to the next
    layer.  One cycle per non-trivial strongly connected component is broken per round:
    the breadth-first cycle through the component's smallest channel.
    A route keeps one VC (its layer) on all hops.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_int
from ..errors import ParameterError, RoutingError
from .base import TableRouting
from .deadlock import find_cycle

__all__ = ["hop_indexed", "layered"]


def _table_base(base, what: str) -> TableRouting:
    if not isinstance(base, TableRouting):
        raise ParameterError(f"{what} needs a deterministic table routing (nr, fr, updown, dor), "
                             f"got {type(base).__name__}")
    return base


def hop_indexed(base_routing: TableRouting, num_vcs: int | None = None) -> TableRouting:
    """The routes of ``base_routing`` with VC ``k`` on hop ``k``.

    Parameters
    ----------
    base_routing : TableRouting
    num_vcs : int, optional
        VCs to declare; default the minimum, the longest route's hop count.

    Returns
    -------
    TableRouting
        ``algorithm="hop"``, VC rule ``"hop"``; ``params["longest_route"]``.

    Raises
    ------
    RoutingError
        If ``num_vcs`` is below the longest route's hop count ("hop-indexed VCs need at
        least 3 VCs (the longest route has 3 hops), got 2").

    References
    ----------
    .. [1] M. Besta, T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network
       Topology", SC14, Sec. IV-D.
    .. [2] I. S. Gopal, "Prevention of Store-and-Forward Deadlock in Computer Networks",
       IEEE Trans. Communications 33(12), 1985.
    """
    base = _table_base(base_routing, "hop_indexed")
    need = max(1, base.max_route_length())
    if num_vcs is None:
        num_vcs = need
    num_vcs = check_int("num_vcs", num_vcs, 1)
    if num_vcs < need:
        raise RoutingError(f"hop-indexed VCs need at least {need} VCs (the longest route has "
                           f"{need} hops), got {num_vcs}")
    return base.with_vcs(algorithm="hop", vc_rule="hop", num_vcs=num_vcs,
                         params={"longest_route": need})


def layered(base_routing: TableRouting, max_vcs: int | None = None) -> TableRouting:
    """DFSSSP-style layered VC assignment of ``base_routing``'s routes.

    Parameters
    ----------
    base_routing : TableRouting
        Its own VCs are ignored; the routes are taken as they are.
    max_vcs : int, optional
        Upper bound on the layers (VCs); default 255.

    Returns
    -------
    TableRouting
        ``algorithm="layered"``, VC rule ``"layer"`` (``layer[src, dst]``), ``num_vcs`` =
        layers needed (also ``params["layers_needed"]``).

    Raises
    ------
    RoutingError
        If more than ``max_vcs`` layers are needed; the message names the number needed
        ("layered routing needs at least 2 VCs (layers) for these routes, got
        max_vcs=1").

    Notes
    -----
    Memory grows with the number of routes times their length (all routes are walked
    once).  With numba the rounds of a layer run compiled and incremental
    (:mod:`._layered`: the layer's CDG is built once, a round only removes the broken
    dependencies and re-splits the strongly connected components that lost one): Slim
    Fly q = 11 (242 switches, 16,509 rounds) in ~1 s of CPU, q = 19 (722 switches,
    154,043 rounds) in ~40 s; without numba every round rebuilds the layer's CDG (the
    reference, identical layers; q = 7 already takes ~4 s).  Deterministic: routes are
    ordered by (destination, source) and ties are broken by channel ids.

    References
    ----------
    .. [1] J. Domke, T. Hoefler, W. E. Nagel, "Deadlock-Free Oblivious Routing for
       Arbitrary Topologies", IPDPS 2011.
    .. [2] Slim Fly, Sec. IV-D.
    """
    base = _table_base(base_routing, "layered")
    max_vcs = 255 if max_vcs is None else check_int("max_vcs", max_vcs, 1, 255)
    n = base.num_switches
    c_total = len(base.view.indices)
    pair_ids, dep_keys = [], []
    for s, d in base._pair_blocks():
        ent, _ = base.route_matrix(s, d, with_vcs=False)
        if ent.shape[0] < 2:
            continue
        a, b = ent[:-1], ent[1:]
        ok = (a >= 0) & (b >= 0)
        pid = np.broadcast_to((s * n + d)[None, :], a.shape)
        pair_ids.append(pid[ok])
        dep_keys.append(a[ok] * c_total + b[ok])
    pair_ids = np.concatenate(pair_ids) if pair_ids else np.zeros(0, dtype=np.int64)
    dep_keys = np.concatenate(dep_keys) if dep_keys else np.zeros(0, dtype=np.int64)
    layer = np.zeros(n * n, dtype=np.int64)
    from . import _layered

    # a route using one channel twice in a row (impossible for table routes) stays with
    # the reference, whose cycle search handles self-loops
    loops = bool(len(dep_keys)) and bool(np.any(dep_keys // c_total == dep_keys % c_total))
    if _layered.AVAILABLE and not _force_reference and not loops:
        rounds = _layers_compiled(layer, pair_ids, dep_keys, c_total)
    else:
        rounds = _layers_reference(layer, pair_ids, dep_keys, c_total)
    layers_needed = int(layer.max()) + 1 if len(layer) else 1
    if layers_needed > max_vcs:
        raise RoutingError(f"layered routing needs at least {layers_needed} VCs (layers) for "
                           f"these routes, got max_vcs={max_vcs}")
    lay = layer.reshape(n, n).astype(np.uint8)
    return base.with_vcs(algorithm="layered", vc_rule="layer", num_vcs=layers_needed,
                         layer=lay, params={"layers_needed": layers_needed,
                                            "cycle_breaking_rounds": rounds})


#: Tests set this to run the reference loop even where numba is installed.
_force_reference = False


def _layers_compiled(layer, pair_ids, dep_keys, c_total) -> int:
    """The layers of :func:`_layers_reference`, one compiled incremental pass per layer
    (:mod:`._layered`)."""
    from ._layered import break_layer

    cur = 0
    rounds = 0
    while True:
        sel = layer[pair_ids] == cur
        if not sel.any():
            return rounds
        pairs, local = np.unique(pair_ids[sel], return_inverse=True)
        moved, r = break_layer(local.astype(np.int64).ravel(), dep_keys[sel], len(pairs), c_total)
        if r:
            if cur + 1 >= 255:
                raise RoutingError("layered routing needs more than 255 layers (VCs); use "
                                   "hop_indexed or updown")
            rounds += r
            layer[pairs[moved]] = cur + 1
        cur += 1


def _layers_reference(layer, pair_ids, dep_keys, c_total) -> int:
    """Fill ``layer`` (per pair ``s * n + d``): per round, rebuild the current layer's CDG,
    break one cycle per cyclic SCC (:func:`_break_cycles`), move the routes of the broken
    dependencies up a layer.  Returns the rounds."""
    cur = 0
    rounds = 0
    while True:
        sel = layer[pair_ids] == cur
        if not sel.any():
            return rounds
        keys_l = dep_keys[sel]
        uk, counts = np.unique(keys_l, return_counts=True)
        broke = _break_cycles(uk, counts, c_total)
        if broke is None:
            cur += 1
            continue
        rounds += 1
        move = np.isin(keys_l, broke)
        moved_pairs = np.unique(pair_ids[sel][move])
        if cur + 1 >= 255:
            raise RoutingError("layered routing needs more than 255 layers (VCs); use "
                               "hop_indexed or updown")
        layer[moved_pairs] = cur + 1


def _break_cycles(keys: np.ndarray, counts: np.ndarray, c_total: int):
    """Dependencies to remove: one per cyclic SCC (the least-used edge of one cycle)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    src, dst = keys // c_total, keys % c_total
    g = csr_matrix((np.ones(len(keys), dtype=np.int8), (src, dst)), shape=(c_total, c_total))
    ncomp, label = connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(label, minlength=ncomp)
    big = np.flatnonzero(sizes > 1)
    if len(big) == 0:
        return None
    out = []
    for comp in big:
        keep = (label[src] == comp) & (label[dst] == comp)
        cyc = find_cycle(c_total, src[keep], dst[keep])
        ring = np.asarray(cyc + cyc[:1], dtype=np.int64)
        ck = ring[:-1] * c_total + ring[1:]
        pos = np.searchsorted(keys, ck)
        cnt = counts[pos]
        best = np.lexsort((ck, cnt))[0]
        out.append(int(ck[best]))
    return np.asarray(out, dtype=np.int64)
