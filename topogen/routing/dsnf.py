"""The DSN-F routing algorithm of Truong et al. (Section III-B, Figure 2).

Three phases route from node ``i = {l_i, k_i, s_i}`` to ``j = {l_j, k_j, s_j}``:

1. **PRE-WORK**: up the Layer_Links to layer 0 (``{l_i, 0, s_i}``), then along the
   layer-0 ring (the shorter way) to the level ``l`` whose shortcut suits the distance
   ``Delta = (s_j - s_i) mod 2**p`` between the super-nodes;
2. **MAIN-PROCESS**: repeatedly take the shortcut when the current level is the wanted
   one (the Succ link at level p, which acts as the level-p "shortcut" of length 1),
   else Local_Succ; the wanted level is recomputed after every hop;
3. **FINISH**: in super-node ``s_j``, along the layer-0 ring (the shorter way) to level
   ``l_j``, then down the Layer_Links to ``j``.

Corrections to the pseudo-code of Fig. 2 (the text and the worked example decide):

* the wanted level is ``l = p - floor(log2 Delta)``, the level whose shortcut length
  ``2**(p - l)`` is the largest power of two not exceeding Delta.  Fig. 2 writes
  ``floor(log(2**p / Delta)) + 1``, which agrees except when Delta is a power of two,
  where it gives the next level (a shortcut of half the needed length) and, for
  Delta = 1, the non-existent level p + 1.  The worked example needs our formula: from
  node 24 to node 7 (n = 32, p = 3, Delta = 2) the route is 24, 0, 1, 8, 7, i.e. the
  level-2 shortcut of length 2 (Fig. 2 would ask for level 3);
* line 14 tests ``l_u = p - 1`` for the Succ link: the Succ link belongs to the level-p
  node (III-B-3), so the test is ``l_u = p`` (a 0-based level slipped in);
* the ``repeat ... until`` loops of FINISH run zero times when the condition already
  holds (the example's route has no Layer_Link hop after 7);
* a packet is delivered as soon as it reaches ``j``: when ``j`` lies above ``i`` in the
  same column (same super-node and level) the climb of PRE-WORK ends there.  When ``j``
  lies *below* ``i`` in its column the route climbs to layer 0 and comes back down
  (step 1 of the text is unconditional), a walk that passes ``i`` twice;
* when ``s_i = s_j`` PRE-WORK needs no shortcut level and MAIN-PROCESS is skipped: up to
  layer 0, along the ring to ``l_j``, down to ``j`` (the three steps of the text);
* ring moves take the shorter way round ("Local_Succ or Local_Pred", at most p/2 hops in
  the proof of Theorem 1b); on a tie (p even, opposite levels) Local_Succ.

As a table routing
------------------
The next hop is not a function of (switch, destination) alone: a PRE-WORK ring move
may go Local_Pred where a MAIN-PROCESS move at the same switch toward the same
destination goes Local_Succ.  It is a function of the input link, which the table's
phases express: phase 0 = at the source or after an up Layer_Link, 1 = after a
Local_Pred move, 2 = after a Local_Succ move, 3 = after a shortcut/Succ, 4 = after a
down Layer_Link.  :mod:`.deadlock` takes the phase after a hop to be
``entry_phase[link]`` (the input port), :meth:`TableRouting.path` the running maximum
of those values; the two differ only after a MAIN-PROCESS Local_Succ move (2 vs 3) or
a FINISH ring move (1/2 vs 3), and there the rows of the phases involved prescribe the
same next hop (Local_Succ toward the wanted level outside ``s_j``, the shorter way
inside it), so both readings, and a reloaded routing, give the same routes (tested).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..errors import ParameterError
from ..generators.dsn import DSNFLabels, labels_of
from ..topology import Topology
from .base import TableRouting, _check_switch, csr_view

__all__ = ["dsnf_routing", "dsnf_path", "dsnf_route_lengths", "wanted_level",
           "routing_diameter_bound", "NUM_PHASES"]

NUM_PHASES = 5
_P_START, _P_PRED, _P_SUCC, _P_SHORT, _P_DOWN = range(5)


def wanted_level(p: int, delta):
    """Level whose shortcut (length ``2**(p - l)``) to take for super-node distance Delta.

    ``p - floor(log2 Delta)`` for ``1 <= Delta < 2**p`` (level p = the Succ link); 0 for
    Delta = 0.  See the module docs for the correction of Fig. 2's formula.
    """
    d = np.asarray(delta, dtype=np.int64)
    pos = d > 0
    lg = np.frexp(np.where(pos, d, 1).astype(np.float64))[1].astype(np.int64) - 1  # exact
    return np.where(pos, p - lg, 0)


def routing_diameter_bound(topology: Topology) -> int:
    """Theorem 1b: ``2 (p + K - 1)`` with ``K = ceil(n / (p 2**p))`` layers (III-C)."""
    lab = labels_of(topology)
    return 2 * (lab.p + lab.num_layers - 1)


def _ring_step(lab: DSNFLabels, u: int, target_level: int) -> int:
    p = lab.p
    lu = int(lab.level[u])
    d_succ = (target_level - lu) % p
    d_pred = (lu - target_level) % p
    return int(lab.local_succ[u] if d_succ <= d_pred else lab.local_pred[u])


def dsnf_path(topology: Topology, src: int, dst: int) -> np.ndarray:
    """The route of Fig. 2 from ``src`` to ``dst`` (switch ids, both ends included).

    A direct transcription of the three phases (with the corrections of the module
    docs); :func:`dsnf_routing` builds the same routes as tables.
    """
    lab = labels_of(topology)
    n, p, m = lab.n, lab.p, lab.num_supernodes
    src = _check_switch("src", src, n)
    dst = _check_switch("dst", dst, n)
    up, down = lab.up, lab.down
    lsucc, sc = lab.local_succ, lab.shortcut
    out = [src]
    u = src
    if src == dst:
        return np.asarray(out, dtype=np.int32)
    sj, lj = int(lab.supernode[dst]), int(lab.level[dst])
    # PRE-WORK: up to layer 0 (delivered on the way when j is above i in its column)
    while lab.layer[u] > 0:
        u = int(up[u])
        out.append(u)
        if u == dst:
            return np.asarray(out, dtype=np.int32)
    if lab.supernode[u] != sj:
        level = int(wanted_level(p, (sj - int(lab.supernode[u])) % m))
        while lab.level[u] != level:  # shorter way round the layer-0 ring
            u = _ring_step(lab, u, level)
            out.append(u)
        # MAIN-PROCESS
        while lab.supernode[u] != sj:
            if lab.level[u] == level:
                u = int(sc[u])  # shortcut (level < p) or Succ (level p)
            else:
                u = int(lsucc[u])
            out.append(u)
            level = int(wanted_level(p, (sj - int(lab.supernode[u])) % m))
            if len(out) > 4 * n:  # pragma: no cover - safety net
                raise RuntimeError("DSN-F routing does not terminate")
    # FINISH: ring to l_j, then down the Layer_Links
    while lab.level[u] != lj:
        u = _ring_step(lab, u, lj)
        out.append(u)
    while u != dst:
        u = int(down[u])
        if u < 0:  # pragma: no cover - labels guarantee the column reaches dst
            raise RuntimeError("DSN-F routing fell off a column")
        out.append(u)
    return np.asarray(out, dtype=np.int32)


def _main_table(p: int) -> tuple[np.ndarray, np.ndarray]:
    """MAIN-PROCESS hops and landing level for every super-node distance Delta.

    PRE-WORK leaves the packet at the wanted level of Delta, so MAIN-PROCESS depends on
    Delta only.
    """
    m = 2 ** p
    hops = np.zeros(m, dtype=np.int64)
    land = np.zeros(m, dtype=np.int64)
    for delta in range(1, m):
        rem, level, h = delta, int(wanted_level(p, delta)), 0
        while rem:
            want = int(wanted_level(p, rem))
            if level == want:
                if level == p:
                    rem, level = rem - 1, 1
                else:
                    rem, level = rem - 2 ** (p - level), level + 1
            else:
                level += 1
            h += 1
        hops[delta], land[delta] = h, level
    return hops, land


def dsnf_route_lengths(topology: Topology, sources=None) -> np.ndarray:
    """Hop count of the Fig. 2 route for every (source, destination), in closed form.

    ``k_i + ring(l_i, l) + main(Delta) + ring(land(Delta), l_j) + k_j`` (different
    super-nodes) or ``k_i + ring(l_i, l_j) + k_j`` (same super-node), where ring is the
    shorter distance on the layer-0 ring.  Returns an ``(len(sources), n)`` int16 array
    (all sources by default).
    """
    lab = labels_of(topology)
    p, m = lab.p, lab.num_supernodes
    src = np.arange(lab.n) if sources is None else np.asarray(sources, dtype=np.int64)
    hops, land = _main_table(p)
    want = wanted_level(p, np.arange(m))
    lv = np.arange(1, p + 1)

    def ring(a, b):
        d = (b - a) % p
        return np.minimum(d, p - d)

    # table[l_i - 1, Delta, l_j - 1]: the hops that do not depend on the layers
    table = (ring(lv[:, None], want[None, :])[:, :, None] + hops[None, :, None]
             + ring(land[None, :, None], lv[None, None, :]))
    table[:, 0, :] = ring(lv[:, None], lv[None, :])
    flat = table.astype(np.int16).ravel()
    s_j = lab.supernode.astype(np.int32)
    l_j = (lab.level - 1).astype(np.int32)
    k_j = lab.layer.astype(np.int16)
    out = np.empty((len(src), lab.n), dtype=np.int16)
    for a in range(0, len(src), 256):
        b = src[a:a + 256]
        delta = (s_j[None, :] - lab.supernode[b][:, None].astype(np.int32)) % m
        idx = ((lab.level[b][:, None].astype(np.int32) - 1) * m + delta) * p + l_j[None, :]
        blk = flat[idx] + k_j[None, :] + lab.layer[b][:, None].astype(np.int16)
        # delivered while climbing: j above i in the same column
        above = (delta == 0) & (l_j[None, :] == l_j[b][:, None]) & (k_j[None, :] < k_j[b][:, None])
        blk[above] = (k_j[b][:, None] - k_j[None, :])[above]
        blk[np.arange(len(b)), b] = 0
        out[a:a + len(b)] = blk
    return out


def _next_hops(lab: DSNFLabels, dsts: np.ndarray) -> np.ndarray:
    """Next-hop switch ``(phase, u, j)`` for a block of destinations (-1 = no entry)."""
    p, m = lab.p, lab.num_supernodes
    n = lab.n
    U = np.arange(n)[:, None]
    J = dsts[None, :]
    su, lu, ku = lab.supernode[U], lab.level[U], lab.layer[U]
    sj, lj = lab.supernode[J], lab.level[J]
    same = su == sj
    delta = (sj - su) % m
    want = np.where(same, lj, wanted_level(p, delta))
    d_succ = (want - lu) % p
    d_pred = (lu - want) % p
    ls, lp = lab.local_succ[U], lab.local_pred[U]
    up, down, sc = lab.up[U], lab.down[U], lab.shortcut[U]
    at = lu == want
    shorter = np.where(d_succ <= d_pred, ls, lp)
    layer0 = ku == 0
    arrive = np.where(same, down, sc)  # at the wanted level: down (FINISH) or shortcut/Succ
    out = np.full((NUM_PHASES, n, len(dsts)), -1, dtype=np.int64)
    base_ring = {_P_START: shorter, _P_PRED: lp, _P_SUCC: ls, _P_SHORT: ls}
    for ph, ring_move in base_ring.items():
        move = np.where(same, shorter, ring_move)  # FINISH: always the shorter way
        out[ph] = np.where(layer0, np.where(at, arrive, move), -1)
    out[_P_START] = np.where(layer0, out[_P_START], up)
    out[_P_DOWN] = np.where(layer0, -1, down)
    out[:, dsts, np.arange(len(dsts))] = -1
    return out


def _entry_phases(lab: DSNFLabels, view) -> np.ndarray:
    u, v = view.row, view.indices
    ph = np.zeros(len(u), dtype=np.int8)
    ku, kv = lab.layer[u], lab.layer[v]
    column = (lab.supernode[u] == lab.supernode[v]) & (lab.level[u] == lab.level[v])
    ph[column & (kv == ku + 1)] = _P_DOWN
    ring0 = (ku == 0) & (kv == 0) & (lab.supernode[u] == lab.supernode[v])
    is_succ = lab.level[v] == lab.level[u] % lab.p + 1
    ph[ring0 & is_succ] = _P_SUCC
    ph[ring0 & ~is_succ] = _P_PRED
    ph[v == lab.shortcut[u]] = _P_SHORT
    return ph


def dsnf_routing(topology: Topology, layout=None, *, vcs: Literal["const", "hop"] = "const",
                 num_vcs: int | None = None, block: int = 256) -> TableRouting:
    """The DSN-F routing of Fig. 2 as a :class:`~topogen.routing.TableRouting`.

    Parameters
    ----------
    topology : Topology
        A DSN-F made by :func:`topogen.generators.dsn.dsnf` (or expanded/transformed).
    layout : Layout, optional
        Recorded with the routing (the routes do not depend on it).
    vcs : {"const", "hop"}
        ``"const"``: every hop on VC 0 (the routing as the paper states it);
        ``"hop"``: VC k on hop k, deadlock-free with as many VCs as the longest route
        (at most ``2 (p + K - 1)``).
    num_vcs : int, optional
        Declared VC count for ``"hop"`` (default: the longest route).
    block : int
        Destinations per block while building the tables.

    Returns
    -------
    TableRouting
        ``algorithm="dsnf"``, 5 phases (module docs), ``params`` with ``p``,
        ``layers`` (K), ``diameter_bound`` = 2 (p + K - 1) and ``longest_route``.

    Raises
    ------
    ParameterError
        If the topology is not a DSN-F, or ``num_vcs`` is below the longest route.

    Notes
    -----
    Section III-B (the routing algorithm, Fig. 2) and Theorem 1b of III-C; the
    corrections of the pseudo-code are listed in the module docs.  Tables are built
    from the node labels with array operations, one block of destinations at a time.
    """
    if vcs not in ("const", "hop"):
        raise ParameterError(f"vcs must be 'const' or 'hop', got {vcs!r}")
    lab = labels_of(topology)
    if layout is not None and layout.topology.num_switches != topology.num_switches:
        raise ParameterError("layout must be a placement of the routed topology")
    view = csr_view(topology)
    n = lab.n
    ranks = np.empty((NUM_PHASES, n, n), dtype=view.rank_dtype)
    sentinel = int(np.iinfo(view.rank_dtype).max)
    for d0 in range(0, n, block):
        dsts = np.arange(d0, min(n, d0 + block))
        nh = _next_hops(lab, dsts)
        u = np.broadcast_to(np.arange(n)[None, :, None], nh.shape)
        e = view.entry(u.ravel(), nh.ravel()).reshape(nh.shape)
        bad = (nh >= 0) & (e < 0)
        if bad.any():  # pragma: no cover - labels and links are built together
            raise ParameterError("DSN-F routing needs a link the topology lacks")
        r = np.where(nh >= 0, e - view.indptr[u], sentinel)
        ranks[:, :, d0:d0 + len(dsts)] = r.astype(view.rank_dtype)
    longest = int(dsnf_route_lengths(topology).max()) if n > 1 else 0
    bound = 2 * (lab.p + lab.num_layers - 1)
    params = {"p": lab.p, "layers": lab.num_layers, "fill": lab.fill,
              "diameter_bound": bound, "longest_route": longest,
              "phases": "0 start/up, 1 after Local_Pred, 2 after Local_Succ, "
                        "3 after shortcut/Succ, 4 after down Layer_Link"}
    if vcs == "const":
        return TableRouting(topology, ranks, layout=layout, algorithm="dsnf", params=params,
                            num_vcs=1, vc_rule="const", entry_phase=_entry_phases(lab, view))
    need = max(longest, 1)
    if num_vcs is None:
        num_vcs = need
    if num_vcs < need:
        from ..errors import RoutingError

        raise RoutingError(f"hop-indexed VCs need at least {need} VCs (the longest DSN-F "
                           f"route has {need} hops), got {num_vcs}")
    return TableRouting(topology, ranks, layout=layout, algorithm="dsnf", params=params,
                        num_vcs=num_vcs, vc_rule="hop", entry_phase=_entry_phases(lab, view))
