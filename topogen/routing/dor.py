"""Dimension-order routing (DOR) on tori, meshes, hypercubes and HyperX.

Switch ``v`` has coordinates ``i_k = (v // stride_k) % dims_k`` (dimension 0 varies
fastest, the numbering of :mod:`topogen.generators.classic`).  A packet corrects the
dimensions in increasing order (0 first):

* mesh / hypercube: one step toward the destination coordinate;
* torus: one step in the shorter direction around the ring; when both directions are
  equally long (``delta == side / 2``) it goes in the **+** direction;
* HyperX: directly to the destination coordinate (the dimension is fully connected).

VCs: on meshes, hypercubes and HyperX the routing is deadlock-free with one VC (the
channel dependencies only go from lower to higher dimensions and, within a dimension,
away from the source).  On a torus with a ring of side >= 3 DOR uses the **dateline**
rule of Dally and Seitz: VC 0 until the packet crosses the ring's wrap link (between
coordinates ``side-1`` and ``0``), VC 1 on that hop and on the rest of that dimension;
each new dimension starts on VC 0.  This needs 2 VCs.

Ties on a torus (``tie``): when both directions around a ring of even side are equally
long, ``tie="+"`` (the default) always goes in the + direction, so the routing is a
deterministic table; ``tie="random"`` draws the direction per packet and per dimension,
as BookSim's own ``dim_order`` on its ``torus`` does (``dor_next_torus`` in
``routefunc.cpp``: ``RandomInt(1)`` when the distance is exactly ``k/2``).  The "+" rule
puts 10 of every 16 ring hops of uniform traffic on the + links of an 8-ring instead of
8 (25 % more on the busiest channels): on BookSim's 8x8 torus (33-flit VCT, 4 VCs) the
"+" rule is 8 % slower than BookSim at 0.4 flits/node/cycle, the random rule within
1 % (``docs/crossval.md``, "Native topologies").  ``tie="random"`` gives a
:class:`RandomTieDor` (``algorithm="dor-random"``), routed per packet by the simulator.
BookSim's VC classes differ from the dateline rule, a difference kept here: BookSim puts a
whole ring segment on the upper VC half when its start coordinate is above its end
(``dor_next_torus``'s fixed-dateline branch): in the + direction a segment that crosses the
wrap link, in the - direction one that does not.  The dateline rule moves a packet to VC 1
only from the wrap hop on, in either direction.  Both are acyclic for minimal segments;
measured effect on the 8x8 torus below 0.3 %.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_int
from ..errors import ParameterError, RoutingError
from ..topology import Topology
from .base import Routing, TableRouting, _check_switch, csr_view
from .paths import _require

__all__ = ["dor", "DOR_KINDS", "DOR_TIES", "RandomTieDor", "ring_step"]

DOR_KINDS = ("torus", "mesh", "hypercube", "hyperx")
#: tie rules of a torus ring of even side (module docs)
DOR_TIES = ("+", "random")


def ring_step(k, delta, tie):
    """The direction of the shorter way around a ring of ``k`` switches from coordinate
    ``c`` to ``c + delta``: +1 or -1 by the sign of BookSim's ``dist2 = k - 2 ((t - c) mod
    k)`` (``dor_next_torus``, ``min_adapt_torus``).  ``dist2 == 0``, both ways ``k/2`` long,
    is a tie, where each routing has its own rule: ``tie`` is the direction there (+1, -1,
    or 0: both ways, the caller's choice), or a callable, called on a tie only, whose
    truthy result is + (BookSim's ``RandomInt(1)``).  ``delta``, ``k`` and ``tie`` may be
    numpy arrays (elementwise; no callable then).  ``delta`` a multiple of ``k`` gives +1."""
    dist2 = k - 2 * (delta % k)
    if isinstance(dist2, np.ndarray):
        return np.where(dist2 > 0, 1, np.where(dist2 < 0, -1, tie))
    if dist2 > 0:
        return 1
    if dist2 < 0:
        return -1
    if callable(tie):
        return 1 if tie() else -1
    return tie


def _derived_shape(topology: Topology):
    """(kind, dims) of the project's generators that build a torus, hypercube or HyperX
    under another name (Skywalk's cabinet baselines, the flattened butterfly), from their
    recorded parameters; None otherwise.  The links are checked against it later."""
    p = topology.params
    name = topology.name
    try:
        if name == "cabinet-torus":
            m = int(p["degree"]) // 2 - 1
            c = int(p["cabinets"])
            side = round(c ** (1.0 / m))
            side = next((x for x in (side - 1, side, side + 1) if x > 0 and x ** m == c), side)
            return "torus", (int(p["switches_per_cabinet"]),) + (side,) * m
        if name == "cabinet-hypercube":
            total = int(p["switches_per_cabinet"]) * int(p["cabinets"])
            return "hypercube", (2,) * (total.bit_length() - 1)
        if name == "cabinet-hyperx":
            from ..generators.classic import cabinet_grid

            x, y = cabinet_grid(int(p["cabinets"]))
            return "hyperx", (int(p["switches_per_cabinet"]), y, x)
        if name == "flattened-butterfly":
            ndim = int(p["n"]) - 1 if p.get("convention", "n-flat") == "n-flat" else int(p["n"])
            return "hyperx", (int(p["k"]),) * ndim
    except (KeyError, TypeError, ValueError):
        return None
    return None


def dims_if(topology: Topology, kind: str) -> tuple | None:
    """The sides of ``topology`` when its shape (as :func:`dor` reads it) is ``kind``
    (``"torus"``, ``"mesh"``, ``"hyperx"``, ...), else None."""
    try:
        found, dims = _shape(topology, None, None)
    except RoutingError:
        return None
    return tuple(int(x) for x in dims) if found == kind else None


def torus_rings(topology: Topology, routing: str, instead: str) -> tuple:
    """The ring sizes of ``topology`` for a routing of BookSim's that runs on a torus only
    (``routing``: its name in the messages), each ring of 3 switches or more; a
    :class:`ParameterError` naming ``instead`` for other networks."""
    dims = dims_if(topology, "torus")
    if dims is None:
        raise ParameterError(f"{routing} on a torus, got a {topology.name or 'topology'}; use {instead} on other "
                             f"networks")
    if any(x < 3 for x in dims):
        raise ParameterError(f"{routing.split()[0]} needs rings of at least 3 switches, got dims={dims}")
    return dims


def _shape(topology: Topology, kind, dims):
    p = topology.params
    if kind is None and dims is None:
        derived = _derived_shape(topology)
        if derived is not None:
            return _shape(topology, *derived)
    if kind is None:
        kind = topology.name if topology.name in DOR_KINDS else None
    if kind is None:
        raise RoutingError(
            f"dimension-order routing needs a torus, mesh, hypercube or hyperx, but "
            f"{topology.name!r} has no dimensions; pass kind= and dims=, or use nr/fr/updown")
    if kind not in DOR_KINDS:
        raise ParameterError(f"kind must be one of {', '.join(DOR_KINDS)}, got {kind!r}")
    if dims is None:
        if kind == "hypercube" and "dimension" in p:
            dims = (2,) * int(p["dimension"])
        else:
            dims = p.get("dims")
    if dims is None:
        raise RoutingError(f"dimension-order routing needs the dimensions of the {kind}: "
                           f"{topology.name} records no params['dims']; pass dims=")
    dims = tuple(int(x) for x in dims)
    if kind == "hypercube" and any(x != 2 for x in dims):
        raise ParameterError(f"a hypercube has sides of 2, got dims={dims}")
    if math.prod(dims) != topology.num_switches:
        raise RoutingError(f"dims {dims} give {math.prod(dims)} switches but the topology has "
                           f"{topology.num_switches}")
    return kind, dims


def dor(topology: Topology, *, kind: str | None = None, dims=None, num_vcs: int | None = None,
        layout=None, block: int = 512, tie: str = "+", seed=None):
    """Dimension-order routing tables (see the module docs for the rules).

    Parameters
    ----------
    topology : Topology
        A torus, mesh, hypercube or HyperX in the canonical numbering.
    kind : {"torus", "mesh", "hypercube", "hyperx"}, optional
        Default: ``topology.name``; Skywalk's ``cabinet-torus``, ``cabinet-hypercube``,
        ``cabinet-hyperx`` and the ``flattened-butterfly`` are recognised too (their
        dimensions follow from their parameters).
    dims : tuple of int, optional
        Default: ``topology.params["dims"]`` (``(2,) * dimension`` for a hypercube).
    num_vcs : int, optional
        VCs to declare; default: the minimum (2 for a torus with a side >= 3, else 1).
    layout : Layout, optional
        Recorded on the routing.
    block : int
        Destinations per vectorised block.
    tie : {"+", "random"}
        Direction on a torus ring of even side when both are equally long: always + (a
        table), or drawn per packet and dimension as BookSim's ``dim_order`` does.
    seed : int, optional
        ``tie="random"``: seed of :meth:`RandomTieDor.path` when it is given no generator
        (the simulator passes its own).

    Returns
    -------
    TableRouting or RandomTieDor
        ``algorithm="dor"``; VC rule ``"dateline"`` (torus) or ``"const"``.  With
        ``tie="random"`` on a torus with an even side of 4 or more, a
        :class:`RandomTieDor` over the "+" table (``algorithm="dor-random"``).

    Raises
    ------
    RoutingError
        If the topology has no dimensions, its links do not match ``dims``, or
        ``num_vcs`` is below the minimum ("dateline DOR on a torus needs at least 2 VCs,
        got 1").
    TopologyError
        If the topology is disconnected.

    References
    ----------
    .. [1] W. J. Dally, C. L. Seitz, "Deadlock-Free Message Routing in Multiprocessor
       Interconnection Networks", IEEE Trans. Computers C-36(5), 1987.
    .. [2] Skywalk Sec. III-A (Torus, Hypercube, HyperX baselines).
    """
    if tie not in DOR_TIES:
        raise ParameterError(f"tie must be one of {', '.join(DOR_TIES)} (the direction on a torus "
                             f"ring of even side when both are equally long), got {tie!r}")
    kind, dims = _shape(topology, kind, dims)
    table = _dor_table(topology, kind, dims, num_vcs, layout, block, (1,) * len(dims))
    if tie == "random" and _tie_dims(kind, dims):
        return RandomTieDor(table, seed=seed)
    return table


def _tie_dims(kind: str, dims) -> tuple[int, ...]:
    """Dimensions whose rings have two equally long directions (torus, even side >= 4)."""
    if kind != "torus":
        return ()
    return tuple(i for i, x in enumerate(dims) if x >= 4 and x % 2 == 0)


def _dor_table(topology, kind, dims, num_vcs, layout, block, tie_sign) -> TableRouting:
    """The DOR table with direction ``tie_sign[i]`` (+1/-1) on ties in dimension ``i``."""
    _require(topology, "dimension-order routing")
    check_int("block", block, 1)
    n = topology.num_switches
    view = csr_view(topology)
    dims_a = np.asarray(dims, dtype=np.int64)
    strides = np.concatenate([[1], np.cumprod(dims_a[:-1])]).astype(np.int64)
    coords = (np.arange(n)[:, None] // strides[None, :]) % dims_a[None, :]
    dateline = kind == "torus" and any(x >= 3 for x in dims)
    need = 2 if dateline else 1
    if num_vcs is None:
        num_vcs = need
    num_vcs = check_int("num_vcs", num_vcs, 1)
    if num_vcs < need:
        raise RoutingError(f"dateline DOR on a torus needs at least {need} VCs, got {num_vcs}")
    ranks = _ranks_by_dims(view, kind, dims_a, strides, coords, tie_sign)
    if ranks is None:  # a missing link: the pair walk names it
        ranks = _ranks_by_pairs(view, kind, dims, dims_a, strides, coords, block, tie_sign)
    cu, cv = coords[view.row], coords[view.indices]
    dd = cu != cv
    entry_dim = dd.argmax(axis=1).astype(np.int8)
    side_e = dims_a[entry_dim]
    gap = np.abs(cu - cv)[np.arange(len(cu)), entry_dim]
    entry_wrap = (side_e >= 3) & (gap == side_e - 1) if kind == "torus" else np.zeros(len(cu), bool)
    ties = ("+" if all(x > 0 for x in tie_sign) else
            "".join("+" if x > 0 else "-" for x in tie_sign) + " by dimension")
    params = {"kind": kind, "dims": list(dims), "tie_rule": f"{ties} direction on equal ring distance",
              "dimension_order": "0 first"}
    if dateline:
        return TableRouting(topology, ranks, layout=layout, algorithm="dor", params=params,
                            num_vcs=num_vcs, vc_rule="dateline", entry_dim=entry_dim,
                            entry_wrap=entry_wrap)
    return TableRouting(topology, ranks, layout=layout, algorithm="dor", params=params,
                        num_vcs=num_vcs, vc_rule="const", vc_const=0, entry_dim=entry_dim,
                        entry_wrap=entry_wrap)


def _ranks_by_pairs(view, kind, dims, dims_a, strides, coords, block, tie_sign):
    """The table pair by pair, in blocks of switches (``O(N^2 k)`` work); raises
    :class:`RoutingError` at the first pair whose next link is missing."""
    n = view.n
    ranks = np.empty((1, n, n), dtype=view.rank_dtype)
    for v0 in range(0, n, block):
        vs = np.arange(v0, min(n, v0 + block), dtype=np.int64)
        diff = coords[None, :, :] - coords[vs][:, None, :]  # (Bv, N dst, k): dst - cur
        nz = diff != 0
        first = np.where(nz.any(axis=2), nz.argmax(axis=2), -1)  # (Bv, N)
        k = np.maximum(first, 0)
        delta = np.take_along_axis(diff, k[:, :, None], axis=2)[:, :, 0]
        side = dims_a[k]
        stride = strides[k]
        c = coords[vs][:, None, :].repeat(n, axis=1)
        c = np.take_along_axis(c, k[:, :, None], axis=2)[:, :, 0]
        if kind == "torus":
            step = ring_step(side, delta, np.asarray(tie_sign, dtype=np.int64)[k])
            newc = np.mod(c + step, side)
        elif kind == "hyperx":
            newc = c + delta
        else:
            newc = c + np.sign(delta)
        vv = np.broadcast_to(vs[:, None], newc.shape)
        w = vv + (newc - c) * stride
        e = view.entry(vv, w)
        active = first >= 0
        if np.any(active & (e < 0)):
            i, j = np.argwhere(active & (e < 0))[0]
            raise RoutingError(
                f"the topology does not match a {kind} of dims {dims}: no link from switch "
                f"{int(vs[i])} to {int(w[i, j])}")
        r = np.where(active, e - view.indptr[vv], view.sentinel)
        ranks[0, v0:v0 + len(vs)] = r.astype(view.rank_dtype)
    return ranks


def _ranks_by_dims(view, kind, dims_a, strides, coords, tie_sign):
    """The table from each switch's next link per (dimension, target coordinate), or None
    when a link is missing.

    Toward ``dst`` switch ``v`` corrects the lowest dimension ``k`` in which they differ,
    by a step that only depends on ``v`` and ``dst``'s coordinate ``t`` in ``k``: a table
    ``step[v, k, t]`` of ``N * sum(dims)`` ranks.  Row ``v`` seen as an array of shape
    ``dims[::-1]`` (dimension 0 varies fastest) takes ``step[v, k]`` along axis ``k`` on
    the slice where the dimensions below ``k`` equal ``v``'s, for ``k = 0, 1, ...`` in
    turn (each slice holds the next); only the writes of the ``N^2`` table remain."""
    n, m = view.n, len(dims_a)
    off = np.concatenate([[0], np.cumsum(dims_a)]).astype(np.int64)
    v_all = np.arange(n, dtype=np.int64)
    step = np.empty((n, int(off[-1])), dtype=view.rank_dtype)
    for k in range(m):
        side = int(dims_a[k])
        t = np.arange(side, dtype=np.int64)[None, :]
        c = coords[:, k:k + 1]
        if kind == "torus":
            newc = np.mod(c + ring_step(side, t - c, 1 if tie_sign[k] > 0 else -1), side)
        elif kind == "hyperx":
            newc = np.broadcast_to(t, (n, side))
        else:
            newc = c + np.sign(t - c)
        vv = np.broadcast_to(v_all[:, None], (n, side))
        e = view.entry(vv, vv + (newc - c) * strides[k])
        own = t == c
        if np.any((e < 0) & ~own):
            return None
        step[:, off[k]:off[k + 1]] = np.where(own, view.sentinel, e - view.indptr[vv])
    ranks = np.empty((1, n, n), dtype=view.rank_dtype)
    shape = tuple(int(x) for x in dims_a[::-1])
    cl = coords.tolist()
    for v in range(n):
        row = ranks[0, v].reshape(shape)
        cv = cl[v]
        for k in range(m):
            row[(Ellipsis,) + tuple(cv[k - 1::-1] if k else ())] = step[v, off[k]:off[k + 1]]
        row[tuple(cv[::-1])] = view.sentinel
    return ranks


class RandomTieDor(Routing):
    """Dimension-order routing on a torus with BookSim's tie rule: at a ring distance of
    exactly half the side the direction is drawn per packet and per dimension (module
    docs).  Routes without a tie are those of ``base`` (the "+" table); VCs follow its
    dateline rule in either direction.

    ``path(src, dst, rng=None)`` draws with ``rng`` (a :class:`numpy.random.Generator`),
    or with the routing's own generator (from ``seed``) when ``rng`` is None.
    """

    deterministic = False

    def __init__(self, base: TableRouting, seed=None):
        if not isinstance(base, TableRouting) or base.algorithm != "dor" or base.params.get("kind") != "torus":
            raise ParameterError("RandomTieDor needs a DOR table of a torus (dor(topology)) as base")
        from .._rng import make_rng, resolve_seed

        seed = resolve_seed(seed)
        self.base = base
        self.dims = tuple(int(x) for x in base.params["dims"])
        self.tie_dims = _tie_dims("torus", self.dims)
        super().__init__(base.topology, layout=base.layout, algorithm="dor-random",
                         params=dict(base.params, tie_rule="random direction per packet on equal "
                                     "ring distance (BookSim dim_order)", seed=seed),
                         num_vcs=base.num_vcs)
        self.seed = seed
        self._rng = make_rng(seed)
        d = np.asarray(self.dims, dtype=np.int64)
        self._strides = np.concatenate([[1], np.cumprod(d[:-1])]).astype(np.int64).tolist()
        self._cache: dict[int, tuple] = {}

    def ties(self, src: int, dst: int) -> tuple[int, ...]:
        """The dimensions in which the route from ``src`` to ``dst`` has a tie."""
        out = []
        for i in self.tie_dims:
            side, st = self.dims[i], self._strides[i]
            if ring_step(side, dst // st - src // st, 0) == 0:
                out.append(i)
        return tuple(out)

    def path(self, src: int, dst: int, rng=None):
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        key = src * n + dst
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self.ties(src, dst)
        if not hit:
            return self.base.path(src, dst)
        rng = self._rng if rng is None else rng
        minus = {i for i in hit if int(rng.integers(0, 2))}
        return self._walk(src, dst, minus)

    def _walk(self, src: int, dst: int, minus) -> tuple[np.ndarray, np.ndarray]:
        """The DOR path with the - direction on the ties of the dimensions in ``minus``."""
        base = self.base
        view = base.view
        sw, vcs = [src], []
        v, vc = src, 0
        for i, side in enumerate(self.dims):
            st = self._strides[i]
            c, t = (v // st) % side, (dst // st) % side
            if c == t:
                continue
            step = ring_step(side, t - c, -1 if i in minus else 1)
            vc = 0
            while c != t:
                nc = (c + step) % side
                w = v + (nc - c) * st
                e = int(view.entry(np.int64(v), np.int64(w)))
                if e < 0:
                    raise RoutingError(f"dor-random: no link from switch {v} to {w}")
                if base.entry_wrap[e]:
                    vc = 1
                v, c = w, nc
                sw.append(v)
                vcs.append(vc)
        return np.asarray(sw, dtype=np.int32), np.asarray(vcs, dtype=np.int16)

    def tables(self) -> list[TableRouting]:
        """One DOR table per choice of tie direction in each tie dimension (their routes
        together are every route this routing can take)."""
        out = []
        dims = self.dims
        for mask in range(1 << len(self.tie_dims)):
            sign = [1] * len(dims)
            for j, i in enumerate(self.tie_dims):
                if mask >> j & 1:
                    sign[i] = -1
            out.append(self.base if mask == 0 else
                       _dor_table(self.topology, "torus", dims, self.num_vcs, self.layout, 512, tuple(sign)))
        return out

    def dependency_chunks(self, pairs=None):
        """The dependencies of every route it can take: those of :meth:`tables`."""
        for table in self.tables():
            yield from table.dependency_chunks(pairs)

    def describe_check(self) -> str:
        return (f"the DOR tables of all {1 << len(self.tie_dims)} tie-direction choices "
                "(every route dor-random can draw)")

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "dor-random"
        return md

    def _subroutings(self):
        return {"base": self.base}
