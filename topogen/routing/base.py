"""The :class:`Routing` object, the destination-table routing :class:`TableRouting`,
and saving/loading routings.

Representation
--------------
A deterministic routing is stored as a **next-hop rank table** ``ranks`` of shape
``(P, N, N)`` (``P`` phases, ``N`` switches), indexed ``ranks[phase, v, dst]``: the
*link rank* (position in ``topology.neighbors(v)``, the project's numbering convention)
of the output link that switch ``v`` takes toward destination ``dst``.  Row
``ranks[phase, v]`` is switch ``v``'s own forwarding table; column ``ranks[phase, :, dst]``
is the next-hop array of destination ``dst`` (:meth:`TableRouting.next_rank`), and a
block of destinations ``ranks[phase, :, d0:d1]`` is what the algorithms compute at a
time; :meth:`TableRouting.next_hop` turns a column into switch ids.  The dtype is
``uint8`` when the degree is below 255 (``uint16`` otherwise) and the largest value of
the dtype marks "no entry" (``v == dst``, or a phase that cannot reach ``dst``).  A
16,384-switch table with one phase takes 268 MB.

``P = 1`` for NR, FR, DOR, hop-indexed and layered routings.  Up*/down* uses ``P = 2``:
phase 0 before the packet has taken a *down* link, phase 1 after; a packet's phase after
a hop is ``max(phase, entry_phase[e])`` where ``e`` is the CSR entry (directed link) it
took.  A switch knows the phase from the input port (was it reached through a down
link?), so this is still a per-switch table.

Virtual channels follow a **VC rule** (attribute ``vc_rule``):

``"const"``
    every hop on VC ``vc_const`` (NR, FR, up*/down*, DOR on meshes/hypercubes/HyperX).
``"hop"``
    VC ``k`` on hop ``k`` (Gopal; Slim Fly Sec. IV-D).
``"dateline"``
    dimension-order torus rule: VC 0 in a ring until the packet crosses the ring's wrap
    link (the *dateline*), VC 1 on that hop and after it until the packet leaves the
    dimension (Dally and Seitz).
``"layer"``
    VC ``layer[src, dst]`` on every hop of the route (DFSSSP-style layers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import numpy as np

from .._version import __version__
from ..errors import ParameterError, RoutingError
from ..topology import Topology, _jsonable
from ._csr import csr_view  # noqa: F401 (re-exported: the algorithms import it from here)
from ._folder import layout_digest, topology_digest
from .names import VC_RULES

__all__ = ["Routing", "TableRouting", "save_routing", "VC_RULES"]

def _check_switch(name: str, v, n: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= int(v) < n:
        raise ParameterError(f"{name} must be a switch id in [0, {n - 1}], got {v!r}")
    return int(v)


def channel_ids(entries: np.ndarray, vcs: np.ndarray, num_vcs: int) -> np.ndarray:
    """Channel id ``entry * num_vcs + vc`` of (directed link, VC) pairs."""
    return entries.astype(np.int64) * num_vcs + vcs.astype(np.int64)


# ---------------------------------------------------------------------------- base class


class Routing:
    """Base class of all routings (see :class:`TableRouting` and the module docs).

    Attributes
    ----------
    topology : Topology
    layout : Layout or None
    algorithm : str
        ``"nr"``, ``"fr"``, ``"dor"``, ``"updown"``, ``"escape"``, ``"hop"``,
        ``"layered"``, ``"valiant"``.
    params : dict
        How it was made (parameters, seed, VC rule, figures such as ``layers_needed``).
    num_vcs : int
        Virtual channels the routing needs per physical link (VCs are ``0..num_vcs-1``).
    deterministic : bool
        False for randomised routings (Valiant): :meth:`path` then draws.
    """

    deterministic = True

    def __init__(self, topology: Topology, *, layout=None, algorithm: str, params=None,
                 num_vcs: int = 1):
        self.topology = topology
        self.layout = layout
        self.algorithm = algorithm
        self.params = dict(params or {})
        if isinstance(num_vcs, bool) or not isinstance(num_vcs, (int, np.integer)) or num_vcs < 1:
            raise ParameterError(f"num_vcs must be an integer >= 1, got {num_vcs!r}")
        self.num_vcs = int(num_vcs)
        self.view = csr_view(topology)

    @property
    def num_switches(self) -> int:
        return self.topology.num_switches

    def path(self, src: int, dst: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """Switches ``src .. dst`` (inclusive, ``int32``) and the VC of each hop (``int16``)."""
        raise NotImplementedError

    def paths_for(self, pairs, rng=None) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`path` of each ``(src, dst)`` in ``pairs`` (O(path length) per pair)."""
        return [self.path(int(s), int(d), rng) for s, d in np.asarray(pairs).reshape(-1, 2)]

    def metadata(self) -> dict:
        return {
            "algorithm": self.algorithm,
            "params": _jsonable(self.params),
            "num_vcs": self.num_vcs,
            "topology": self.topology.metadata(),
            "topogen_version": __version__,
        }

    def save(self, directory) -> None:
        """Write the routing to ``directory`` (see :func:`save_routing`)."""
        save_routing(self, directory)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.algorithm}, switches={self.num_switches}, "
                f"vcs={self.num_vcs})")


# ---------------------------------------------------------------------------- table routing


#: :meth:`TableRouting.max_route_length` reads the longest route off the table with the
#: compiled kernel from this many switch pairs on, and walks the routes below it.
LONGEST_COMPILED_MIN_PAIRS = 1 << 18


class TableRouting(Routing):
    """A deterministic routing given by next-hop rank tables (see the module docs).

    Parameters
    ----------
    topology : Topology
    ranks : ndarray, shape (P, N, N)
        ``ranks[phase, v, dst]``: link rank at ``v`` toward ``dst``; dtype max = no entry.
    layout : Layout, optional
    algorithm : str
    params : dict, optional
    num_vcs : int
    vc_rule : {"const", "hop", "dateline", "layer"}
    vc_const : int
        VC of the ``"const"`` rule.
    entry_phase : ndarray of int8, optional
        Phase reached after taking each CSR entry (``P > 1`` only).
    entry_dim, entry_wrap : ndarray, optional
        Dimension of each CSR entry and whether it is a ring's wrap link (``"dateline"``).
    layer : ndarray (N, N) of uint8, optional
        ``layer[src, dst]`` (``"layer"`` rule).
    distances : ndarray (N, N), optional
        ``distances[dst, v]`` (hops or integer ps), enables :meth:`next_hops`.
    entry_weight : ndarray of int64, optional
        Weight of each CSR entry in the unit of ``distances``.
    longest_route : int, optional
        The longest route of a one-phase table in hops, when the table's builder knows it
        (:func:`topogen.routing.fastest` finds it while building); trusted by
        :meth:`max_route_length`, so the tables must not be changed afterwards.
    """

    def __init__(self, topology, ranks, *, layout=None, algorithm, params=None, num_vcs=1,
                 vc_rule="const", vc_const=0, entry_phase=None, entry_dim=None,
                 entry_wrap=None, layer=None, distances=None, entry_weight=None,
                 longest_route=None):
        super().__init__(topology, layout=layout, algorithm=algorithm, params=params,
                         num_vcs=num_vcs)
        #: the longest route (hops) of a one-phase table when its builder found it along
        #: the way (:meth:`max_route_length` then needs no pass over the table)
        self._longest_route = None if longest_route is None else int(longest_route)
        n = topology.num_switches
        ranks = np.asanyarray(ranks)  # keeps a memory-mapped table (np.memmap) mapped
        if ranks.ndim != 3 or ranks.shape[1:] != (n, n):
            raise ParameterError(f"ranks must have shape (P, {n}, {n}), got {ranks.shape}")
        if vc_rule not in VC_RULES:
            raise ParameterError(f"vc_rule must be one of {', '.join(VC_RULES)}, got {vc_rule!r}")
        self.ranks = ranks
        self.num_phases = ranks.shape[0]
        self.sentinel = int(np.iinfo(ranks.dtype).max)
        self.vc_rule = vc_rule
        self.vc_const = int(vc_const)
        m = len(self.view.indices)
        self.entry_phase = (np.zeros(m, dtype=np.int8) if entry_phase is None
                            else np.asarray(entry_phase, dtype=np.int8))
        self.entry_dim = None if entry_dim is None else np.asarray(entry_dim, dtype=np.int8)
        self.entry_wrap = None if entry_wrap is None else np.asarray(entry_wrap, dtype=bool)
        self.layer = None if layer is None else np.asarray(layer, dtype=np.uint8)
        self.distances = distances
        self.entry_weight = None if entry_weight is None else np.asarray(entry_weight, dtype=np.int64)
        if vc_rule == "dateline" and (self.entry_dim is None or self.entry_wrap is None):
            raise ParameterError("the dateline VC rule needs entry_dim and entry_wrap")
        if vc_rule == "layer" and (self.layer is None or self.layer.shape != (n, n)):
            raise ParameterError(f"the layer VC rule needs a ({n}, {n}) layer array")
        self.params.setdefault("vc_rule", vc_rule)

    # ------------------------------------------------------------ lookups
    def next_hop(self, dst: int, phase: int = 0) -> np.ndarray:
        """Next-hop switch of every switch toward ``dst`` (``int32``, ``-1`` = none).

        ``-1`` at ``dst`` itself and, for phased routings (up*/down*), where the phase
        cannot reach ``dst``.
        """
        dst = _check_switch("dst", dst, self.num_switches)
        row = self.ranks[phase, :, dst].astype(np.int64)
        ok = row != self.sentinel
        v = np.arange(self.num_switches)
        e = self.view.indptr[v] + np.where(ok, row, 0)
        e = np.minimum(e, max(len(self.view.indices) - 1, 0))
        out = np.where(ok, self.view.indices[e] if len(self.view.indices) else -1, -1)
        return out.astype(np.int32)

    def next_rank(self, dst: int, phase: int = 0) -> np.ndarray:
        """Column ``ranks[phase, :, dst]``: link rank at every switch toward ``dst``."""
        return self.ranks[phase, :, _check_switch("dst", dst, self.num_switches)]

    def next_hops(self, v: int, dst: int) -> np.ndarray:
        """All equal-cost next hops of ``v`` toward ``dst`` (sorted switch ids).

        Needs a routing made with ``all_next_hops=True`` (distances stored).
        """
        if self.distances is None or self.entry_weight is None:
            raise RoutingError(
                f"{self.algorithm} routing was computed with one next hop per pair; "
                "recompute it with all_next_hops=True to list all equal-cost next hops")
        n = self.num_switches
        v = _check_switch("v", v, n)
        dst = _check_switch("dst", dst, n)
        if v == dst:
            return np.zeros(0, dtype=np.int32)
        lo, hi = self.view.indptr[v], self.view.indptr[v + 1]
        nbrs = self.view.indices[lo:hi]
        d = self.distances[dst]
        ok = d[nbrs].astype(np.int64) + self.entry_weight[lo:hi] == int(d[v])
        return nbrs[ok].astype(np.int32)

    # ------------------------------------------------------------ single path
    def path(self, src: int, dst: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        indptr, indices = self.view.indptr, self.view.indices
        sw = [src]
        vcs: list[int] = []
        v, phase, dim, vc = src, 0, -1, 0
        while v != dst:
            r = int(self.ranks[phase, v, dst])
            if r == self.sentinel:
                raise RoutingError(f"{self.algorithm} table has no entry at switch {v} toward {dst}")
            e = int(indptr[v]) + r
            hop = len(vcs)
            if self.vc_rule == "const":
                vc = self.vc_const
            elif self.vc_rule == "hop":
                vc = hop
            elif self.vc_rule == "layer":
                vc = int(self.layer[src, dst])
            else:  # dateline
                d_e = int(self.entry_dim[e])
                vc = 1 if self.entry_wrap[e] else (vc if d_e == dim else 0)
                dim = d_e
            phase = max(phase, int(self.entry_phase[e]))
            v = int(indices[e])
            sw.append(v)
            vcs.append(vc)
            if len(vcs) > n * max(self.num_phases, 1):
                raise RoutingError(f"{self.algorithm} table loops between {src} and {dst}")
        return np.asarray(sw, dtype=np.int32), np.asarray(vcs, dtype=np.int16)

    # ------------------------------------------------------------ vectorised walk
    def route_matrix(self, src, dst, *, with_vcs: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Walk many routes at once.

        Parameters
        ----------
        src, dst : array_like of int, same length M
        with_vcs : bool
            False skips the VC of each hop (callers that only need the links: route
            lengths, channel loads, the SST tables) and returns ``None`` for it.

        Returns
        -------
        entries : ndarray (H, M) of int64
            CSR entry (directed link) of hop ``h`` of route ``m``; ``-1`` past the end.
        vcs : ndarray (H, M) of int16, or None
            VC of each hop; ``-1`` past the end.  ``None`` when ``with_vcs`` is False.
        """
        src = np.asarray(src, dtype=np.int64).ravel()
        dst = np.asarray(dst, dtype=np.int64).ravel()
        m = len(src)
        indptr, indices = self.view.indptr, self.view.indices
        cur = src.copy()
        phase = np.zeros(m, dtype=np.int64)
        dim = np.full(m, -1, dtype=np.int64)
        vc = np.zeros(m, dtype=np.int64)
        idx = np.flatnonzero(cur != dst)
        ent_rows, vc_rows = [], []
        hop = 0
        limit = self.num_switches * max(self.num_phases, 1)
        while len(idx):
            c, d, p = cur[idx], dst[idx], phase[idx]
            r = self.ranks[p, c, d].astype(np.int64)
            if np.any(r == self.sentinel):
                k = int(np.argmax(r == self.sentinel))
                raise RoutingError(f"{self.algorithm} table has no entry at switch {int(c[k])} "
                                   f"toward {int(d[k])}")
            e = indptr[c] + r
            if with_vcs:
                if self.vc_rule == "const":
                    v_now = np.full(len(idx), self.vc_const, dtype=np.int64)
                elif self.vc_rule == "hop":
                    v_now = np.full(len(idx), hop, dtype=np.int64)
                elif self.vc_rule == "layer":
                    v_now = self.layer[src[idx], d].astype(np.int64)
                else:
                    de = self.entry_dim[e].astype(np.int64)
                    v_now = np.where(self.entry_wrap[e], 1, np.where(de == dim[idx], vc[idx], 0))
                    dim[idx] = de
                    vc[idx] = v_now
            row_e = np.full(m, -1, dtype=np.int64)
            row_e[idx] = e
            ent_rows.append(row_e)
            if with_vcs:
                row_v = np.full(m, -1, dtype=np.int16)
                row_v[idx] = v_now
                vc_rows.append(row_v)
            phase[idx] = np.maximum(p, self.entry_phase[e])
            cur[idx] = indices[e]
            idx = idx[cur[idx] != dst[idx]]
            hop += 1
            if hop > limit:
                raise RoutingError(f"{self.algorithm} table has a routing loop")
        if not ent_rows:
            return np.zeros((0, m), dtype=np.int64), (np.zeros((0, m), dtype=np.int16) if with_vcs else None)
        return np.stack(ent_rows), (np.stack(vc_rows) if with_vcs else None)

    def route_lengths(self, src, dst) -> np.ndarray:
        """Hop count of each route (vectorised)."""
        ent, _ = self.route_matrix(src, dst, with_vcs=False)
        return (ent >= 0).sum(axis=0).astype(np.int64)

    def _pair_blocks(self, pairs=None, block_pairs: int = 1 << 20) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(src, dst) arrays of all ordered pairs src != dst (or of ``pairs``) in blocks."""
        n = self.num_switches
        if pairs is not None:
            arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
            arr = arr[arr[:, 0] != arr[:, 1]]
            for i in range(0, len(arr), block_pairs):
                yield arr[i:i + block_pairs, 0], arr[i:i + block_pairs, 1]
            return
        per = max(1, block_pairs // max(n, 1))
        s_all = np.arange(n, dtype=np.int64)
        for d0 in range(0, n, per):
            ds = np.arange(d0, min(n, d0 + per), dtype=np.int64)
            s = np.tile(s_all, len(ds))
            d = np.repeat(ds, n)
            keep = s != d
            yield s[keep], d[keep]

    def max_route_length(self, pairs=None) -> int:
        """Longest route (hops) over all pairs (or over ``pairs``).

        Over all pairs of a one-phase table the depth of each destination's in-tree is
        read off the table (:func:`._longest.longest_route`, ``O(N^2)``, compiled) from
        :data:`LONGEST_COMPILED_MIN_PAIRS` pairs on; otherwise (where walking costs less
        than loading numba and the kernel on a fresh machine), and to name the pair of a
        missing entry or a loop, every route is walked."""
        if pairs is None and self.num_phases == 1 and self._longest_route is not None:
            return self._longest_route
        if pairs is None and self.num_phases == 1 and \
                self.num_switches ** 2 >= LONGEST_COMPILED_MIN_PAIRS:
            from ._longest import longest_route

            got = longest_route(self)
            if got is not None:
                return got
        best = 0
        for s, d in self._pair_blocks(pairs):
            ent, _ = self.route_matrix(s, d, with_vcs=False)
            best = max(best, int(ent.shape[0]))
        return best

    def dependency_chunks(self, pairs=None, block: int = 256):
        """Channel dependencies of all routes, in chunks (for :mod:`.deadlock`).

        Yields ``(channels_used, dep_from, dep_to)`` int64 arrays of channel ids
        (``entry * num_vcs + vc``).

        With ``pairs`` the given routes are walked.  Without, the dependencies of all
        routes toward each destination ``d`` are found as a closure: the channel a packet
        takes next only depends on its current channel and ``d`` (for up*/down* the phase
        after a link is ``entry_phase[link]``; the dateline, hop and layer VC rules follow
        from the current VC), so starting from the first channel of every source and
        following each channel once gives exactly the channels and dependencies of all
        routes, with far less work than walking every route.
        """
        v = self.num_vcs
        if pairs is not None:
            for s, d in self._pair_blocks(pairs):
                ent, vcs = self.route_matrix(s, d)
                if ent.size == 0:
                    continue
                ch = np.where(ent >= 0, ent * v + vcs, -1)
                a, b = ch[:-1], ch[1:]
                ok = (a >= 0) & (b >= 0)
                yield np.unique(ch[ch >= 0]), a[ok], b[ok]
            return
        n = self.num_switches
        indptr, indices = self.view.indptr, self.view.indices
        c_total = len(indices) * v
        for d0 in range(0, n, block):
            ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
            b = len(ds)
            src = np.tile(np.arange(n, dtype=np.int64), b)
            dl = np.repeat(np.arange(b, dtype=np.int64), n)
            keep = src != ds[dl]
            src, dl = src[keep], dl[keep]
            d = ds[dl]
            e = indptr[src] + self.ranks[0, src, d].astype(np.int64)
            vc = self._first_vc(src, d, e)
            visited = np.zeros(b * c_total, dtype=bool)
            owner = np.empty(b * c_total, dtype=np.int64)

            def fresh(key):
                """Indices of the first walker on each channel not seen before."""
                idx = np.flatnonzero(~visited[key])
                k = key[idx]
                owner[k] = idx
                win = idx[owner[k] == idx]
                visited[key[win]] = True
                return win

            keep = fresh(dl * c_total + e * v + vc)
            dl, e, vc = dl[keep], e[keep], vc[keep]
            used = [e * v + vc]
            dep_a, dep_b = [], []
            while len(e):
                head = indices[e]
                d = ds[dl]
                go = head != d
                dl, e, vc, head, d = dl[go], e[go], vc[go], head[go], d[go]
                if not len(e):
                    break
                ph = self.entry_phase[e].astype(np.int64)
                r = self.ranks[ph, head, d].astype(np.int64)
                if np.any(r == self.sentinel):
                    k = int(np.argmax(r == self.sentinel))
                    raise RoutingError(f"{self.algorithm} table has no entry at switch "
                                       f"{int(head[k])} toward {int(d[k])}")
                e2 = indptr[head] + r
                vc2 = self._next_vc(e, vc, e2)
                dep_a.append(e * v + vc)
                dep_b.append(e2 * v + vc2)
                keep = fresh(dl * c_total + e2 * v + vc2)
                dl, e, vc = dl[keep], e2[keep], vc2[keep]
                used.append(e * v + vc)
            a = np.concatenate(dep_a) if dep_a else np.zeros(0, dtype=np.int64)
            bb = np.concatenate(dep_b) if dep_b else np.zeros(0, dtype=np.int64)
            yield np.unique(np.concatenate(used)), a, bb

    def _first_vc(self, src, dst, e) -> np.ndarray:
        if self.vc_rule == "const":
            return np.full(len(e), self.vc_const, dtype=np.int64)
        if self.vc_rule == "hop":
            return np.zeros(len(e), dtype=np.int64)
        if self.vc_rule == "layer":
            return self.layer[src, dst].astype(np.int64)
        return self.entry_wrap[e].astype(np.int64)

    def _next_vc(self, e, vc, e2) -> np.ndarray:
        if self.vc_rule == "const":
            return np.full(len(e2), self.vc_const, dtype=np.int64)
        if self.vc_rule == "hop":
            return vc + 1
        if self.vc_rule == "layer":
            return vc
        same = self.entry_dim[e2] == self.entry_dim[e]
        return np.where(self.entry_wrap[e2], 1, np.where(same, vc, 0)).astype(np.int64)

    def describe_check(self) -> str:
        return f"all routes of the {self.algorithm} routing (every ordered pair of switches)"

    # ------------------------------------------------------------ derived copies
    def with_vcs(self, *, algorithm, vc_rule, num_vcs, params=None, vc_const=0, layer=None,
                 entry_dim=None, entry_wrap=None) -> "TableRouting":
        """A copy of this routing's tables with another VC rule."""
        p = dict(self.params)
        p.update(params or {})
        p["vc_rule"] = vc_rule
        p["base_algorithm"] = self.params.get("base_algorithm", self.algorithm)
        return TableRouting(
            self.topology, self.ranks, layout=self.layout, algorithm=algorithm, params=p,
            num_vcs=num_vcs, vc_rule=vc_rule, vc_const=vc_const, entry_phase=self.entry_phase,
            entry_dim=entry_dim if entry_dim is not None else self.entry_dim,
            entry_wrap=entry_wrap if entry_wrap is not None else self.entry_wrap,
            layer=layer, distances=self.distances, entry_weight=self.entry_weight,
            longest_route=self._longest_route)

    def _arrays(self) -> dict[str, np.ndarray]:
        out = {"ranks": self.ranks, "entry_phase": self.entry_phase}
        for name in ("entry_dim", "entry_wrap", "layer", "distances", "entry_weight"):
            val = getattr(self, name)
            if val is not None:
                out[name] = np.asarray(val)
        return out

    def metadata(self) -> dict:
        md = super().metadata()
        md.update({"kind": "table", "vc_rule": self.vc_rule, "vc_const": self.vc_const,
                   "num_phases": self.num_phases})
        return md


# ---------------------------------------------------------------------------- save / load

_ROUTING_JSON = "routing.json"


def _atomic_save_npy(path: Path, arr: np.ndarray) -> None:
    from ..output import atomic_open

    with atomic_open(path, "wb", encoding=None) as f:
        np.save(f, np.ascontiguousarray(arr), allow_pickle=False)


def _atomic_text(path: Path, text: str) -> None:
    from ..output import atomic_write

    atomic_write(path, text)


def _is_file_of(arr, path: Path) -> bool:
    """True when ``arr`` is a memory map of the whole ``.npy`` file ``path``."""
    name = getattr(arr, "filename", None)
    if not isinstance(arr, np.memmap) or name is None or not path.is_file():
        return False
    try:
        return Path(name).resolve() == path.resolve() and arr.base is not None and \
            arr.size == np.load(path, mmap_mode="r").size
    except (OSError, ValueError):
        return False


def save_routing(routing: Routing, directory, *, _with_topology: bool = True) -> None:
    """Save ``routing`` to ``directory``: ``routing.json`` (metadata), one ``.npy`` per
    array and ``topology.json`` (the topology and layout bundle of
    :mod:`topogen.formats`).

    Every file is written atomically; ``routing.json`` is written last, so a folder
    with a ``routing.json`` is complete.
    """
    from ..formats import write_bundle

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    if _with_topology:
        write_bundle(d / "topology.json", routing.topology, routing.layout)
    md = routing.metadata()
    md["topology_digest"] = topology_digest(routing.topology)  # checked by load_routing
    md["layout_digest"] = layout_digest(routing.layout)
    arrays = routing._arrays() if hasattr(routing, "_arrays") else {}
    md["arrays"] = sorted(arrays)
    for name, arr in arrays.items():
        if _is_file_of(arr, d / f"{name}.npy"):
            continue  # already streamed there (``ranks_file`` of nearest/fastest)
        _atomic_save_npy(d / f"{name}.npy", arr)
    for sub_name, sub in getattr(routing, "_subroutings", lambda: {})().items():
        save_routing(sub, d / sub_name, _with_topology=False)
    _atomic_text(d / _ROUTING_JSON, json.dumps(md, indent=1, sort_keys=True) + "\n")
