"""Valiant routing and UGAL candidate sets (Slim Fly Sec. IV-B, IV-C, IV-D).

Valiant (VAL, Slim Fly IV-B): "randomly selects a router R_r different from R_s and
R_d.  The packet is then routed along two minimal paths: from R_s to R_r, and from R_r
to R_d."  The minimal segments are the routes of a base table routing (NR, FR...).

VCs (Slim Fly IV-D, generalising Gopal): on an ``n``-hop path hop ``k`` uses VC ``k``.
For a Valiant path this is the first segment's hop-indexed VCs followed by the second
segment's hop-indexed VCs **offset by the first segment's length**.  Every dependency goes
from VC ``k`` to ``k+1``, so the CDG is acyclic; it needs ``2 * D`` VCs where ``D`` is the
longest base route (4 on a Slim Fly).  A Valiant path may visit a switch twice (the
segments may cross); the VCs still increase strictly.

VC ranges (option ``vc_ranges``, default off): hop ``h`` of an ``n``-hop path may use any
VC of the classes ``floor(h C / n) .. floor((h + 1) C / n) - 1`` of the ``C = num_vcs``
hop classes (:func:`vc_ranges`): the ``C`` classes are cut into ``n`` consecutive blocks,
one per hop, so every path's VCs still rise strictly (the CDG stays acyclic) while a path
shorter than ``C`` hops gets more than one class per hop (a 2-hop MIN path on 4 classes:
classes 0-1, then 2-3, as many VCs per hop as ``hop`` routing gives it).  ``path`` gives
the first class of each hop's block.

UGAL (Slim Fly IV-C) chooses per packet between the MIN path and ``k`` random VAL paths
(the paper finds ``k = 4`` best).  :func:`ugal_candidates` returns the candidates as data,
:func:`ugal_select` applies the choice rule:

* UGAL-L (local): needs only the source switch's output queue lengths: cost of a
  candidate = its hop count x the queue of its first output link;
* UGAL-G (global): needs the queues of all routers: cost = the sum of the output queues
  along the path.

The lowest cost wins; ties go to the lowest candidate index (MIN first).  MIN candidates
use hop-indexed VCs 0.. and VAL candidates the Valiant VCs, so mixing them stays within
the same acyclic VC order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._rng import make_rng, resolve_seed
from .._validate import check_int
from ..errors import ParameterError, RoutingError
from .base import Routing, TableRouting, _check_switch

__all__ = ["ValiantRouting", "valiant", "UgalCandidates", "ugal_candidates", "ugal_select", "vc_ranges"]


def vc_ranges(n: int, classes: int) -> tuple[tuple, tuple]:
    """The VC-class blocks of an ``n``-hop path over ``classes`` hop classes (module docs):
    ``(first, count)``, hop ``h`` may use the classes ``first[h] .. first[h] + count[h] - 1``."""
    n = int(n)
    if n < 1 or n > classes:
        raise RoutingError(f"VC ranges need at most one hop per VC class: a {n}-hop path over "
                           f"{classes} classes; raise num_vcs to at least {n}")
    first = tuple(h * classes // n for h in range(n))
    return first, tuple(((h + 1) * classes // n) - first[h] for h in range(n))


class ValiantRouting(Routing):
    """Valiant routing over a base table routing (see the module docs).

    ``path(src, dst, rng=None)`` draws the intermediate switch with ``rng`` (a
    :class:`numpy.random.Generator`), or with the routing's own generator (seeded from
    ``seed``) when ``rng`` is None.
    """

    deterministic = False

    #: hop ``h`` of an ``n``-hop path on a block of classes (module docs); off: VC ``h``
    vc_ranges = False

    def __init__(self, base: TableRouting, seed=None, num_vcs: int | None = None, *,
                 vc_ranges: bool = False):
        if not isinstance(vc_ranges, (bool, np.bool_)):
            raise ParameterError(f"vc_ranges must be true or false (hop h of an n-hop path on "
                                 f"a block of the VC classes), got {vc_ranges!r}")
        if not isinstance(base, TableRouting):
            raise ParameterError(f"valiant needs a deterministic table routing as base, got "
                                 f"{type(base).__name__}")
        if base.num_switches < 3:
            raise ParameterError("valiant routing needs at least 3 switches (an intermediate "
                                 f"other than source and destination), got {base.num_switches}")
        seed = resolve_seed(seed)
        self.base = base
        self.longest = max(1, base.max_route_length())
        need = 2 * self.longest
        if num_vcs is None:
            num_vcs = need
        num_vcs = check_int("num_vcs", num_vcs, 1)
        if num_vcs < need:
            raise RoutingError(f"Valiant routing with hop-indexed VCs needs at least {need} VCs "
                               f"(two segments of up to {self.longest} hops), got {num_vcs}")
        super().__init__(base.topology, layout=base.layout, algorithm="valiant",
                         params={"seed": seed, "base_algorithm": base.algorithm,
                                 "vc_rule": "hop (overall hop index)",
                                 "longest_base_route": self.longest},
                         num_vcs=num_vcs)
        self.seed = seed
        self._rng = make_rng(seed)
        # in the parameters only when set, so a default routing's metadata stays as it was
        self.vc_ranges = bool(vc_ranges)
        if self.vc_ranges:
            self.params["vc_ranges"] = True
            self.params["vc_rule"] = ("ranges (hop h of an n-hop path on classes "
                                      "floor(h C/n) .. floor((h+1) C/n) - 1 of the C = num_vcs)")

    def draw_intermediate(self, src: int, dst: int, rng=None) -> int:
        """A uniformly random switch other than ``src`` and ``dst``."""
        return _draw_mid(self.num_switches, src, dst, self._rng if rng is None else rng)

    def path_via(self, src: int, mid: int, dst: int):
        """The Valiant path through ``mid`` with its VCs."""
        sw, vcs = _path_via(self.base, src, mid, dst)
        return sw, self._range_vcs(vcs)

    def _range_vcs(self, vcs):
        """``vcs`` (hop-indexed) or, with ``vc_ranges``, the first class of each hop's block."""
        if not self.vc_ranges or len(vcs) == 0:
            return vcs
        return np.asarray(vc_ranges(len(vcs), self.num_vcs)[0], dtype=np.int16)

    def path(self, src: int, dst: int, rng=None):
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        if src == dst:
            return np.asarray([src], dtype=np.int32), np.zeros(0, dtype=np.int16)
        return self.path_via(src, self.draw_intermediate(src, dst, rng), dst)

    def dependency_chunks(self, pairs=None):
        """A superset of the dependencies (module docs of :mod:`.deadlock`)."""
        if self.vc_ranges:
            yield from self._range_chunks(pairs)
            return
        v, d_max = self.num_vcs, self.longest
        firsts, lasts = [], []
        for ent, _ in self._base_routes(pairs, firsts, lasts):
            h = np.arange(ent.shape[0])[:, None]
            for off in range(0, d_max + 1):
                ch = np.where(ent >= 0, ent * v + (h + off), -1)
                a, b = ch[:-1], ch[1:]
                ok = (a >= 0) & (b >= 0)
                yield np.unique(ch[ch >= 0]), a[ok], b[ok]
        if not lasts:
            return
        last, first, rep, fidx = _junctions(lasts, firsts)
        a = last[rep, 1] * v + (last[rep, 2] - 1)
        b = first[fidx, 1] * v + last[rep, 2]
        yield np.unique(np.concatenate([a, b])), a, b

    def _base_routes(self, pairs, firsts, lasts):
        """The base routes of ``pairs`` by block, as ``(entries, lengths)`` (a column per
        pair); after each block its first hops go to ``firsts`` (source, entry) and its
        last hops to ``lasts`` (destination, entry, length): the two ends of the junctions
        at an intermediate switch (:func:`_junctions`)."""
        base = self.base
        for s, d in base._pair_blocks(pairs):
            ent, _ = base.route_matrix(s, d, with_vcs=False)
            if ent.size == 0:
                continue
            length = (ent >= 0).sum(axis=0)
            yield ent, length
            cols = np.arange(ent.shape[1])
            lasts.append(np.stack([d, ent[length - 1, cols], length], axis=1))
            firsts.append(np.stack([s, ent[0]], axis=1))

    def _range_chunks(self, pairs):
        """The superset with ``vc_ranges``: every base route as hops ``off ..`` of every
        path length ``n`` (its own up to ``2 D``), each hop on every class of its block,
        plus every junction at an intermediate switch (first segment of ``l1`` hops, second
        of ``1 .. D``)."""
        v, d_max = self.num_vcs, self.longest
        blocks = {n: vc_ranges(n, v) for n in range(1, 2 * d_max + 1)}

        def pairs_of(n, h):  # (class at hop h, class at hop h + 1) of an n-hop path
            f, c = blocks[n]
            return [(x, y) for x in range(f[h], f[h] + c[h]) for y in range(f[h + 1], f[h + 1] + c[h + 1])]

        firsts, lasts = [], []
        for ent, length in self._base_routes(pairs, firsts, lasts):
            for L in np.unique(length):
                cols = ent[:, length == L]
                L = int(L)
                chans = [cols[:L].ravel() * v + c for c in range(v)]
                a_all, b_all = [], []
                for n in range(L, 2 * d_max + 1):
                    for off in range(0, n - L + 1):
                        for h in range(L - 1):
                            for x, y in pairs_of(n, off + h):
                                a_all.append(cols[h] * v + x)
                                b_all.append(cols[h + 1] * v + y)
                a = np.concatenate(a_all) if a_all else np.zeros(0, dtype=np.int64)
                b = np.concatenate(b_all) if b_all else np.zeros(0, dtype=np.int64)
                yield np.unique(np.concatenate(chans)), a, b
        if not lasts:
            return
        last, first, rep, fidx = _junctions(lasts, firsts)
        ein, eout, l1 = last[rep, 1], first[fidx, 1], last[rep, 2]
        a_all, b_all = [], []
        for L1 in np.unique(l1):
            sel = l1 == L1
            for l2 in range(1, d_max + 1):
                for x, y in pairs_of(int(L1) + l2, int(L1) - 1):
                    a_all.append(ein[sel] * v + x)
                    b_all.append(eout[sel] * v + y)
        if a_all:
            a, b = np.concatenate(a_all), np.concatenate(b_all)
            yield np.unique(np.concatenate([a, b])), a, b

    def describe_check(self) -> str:
        if self.vc_ranges:
            return ("superset of the Valiant dependencies with VC ranges: base routes as every "
                    "stretch of paths up to 2 D hops, each hop on every class of its block, plus "
                    "every junction at the intermediate switch")
        return ("superset of the Valiant dependencies: base routes with hop-indexed VCs at "
                "every offset 0..D, plus every junction at the intermediate switch")

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "valiant"
        return md

    def _subroutings(self):
        return {"base": self.base}


def _draw_mid(n: int, src: int, dst: int, rng) -> int:
    excl = sorted({src, dst})
    r = int(rng.integers(n - len(excl)))
    for x in excl:
        if r >= x:
            r += 1
    return r


def _path_via(base: TableRouting, src: int, mid: int, dst: int):
    s1, _ = base.path(src, mid)
    s2, _ = base.path(mid, dst)
    sw = np.concatenate([s1, s2[1:]]).astype(np.int32)
    return sw, np.arange(len(sw) - 1, dtype=np.int16)


def valiant(base_routing: TableRouting, seed=None, num_vcs: int | None = None, *,
            vc_ranges: bool = False) -> ValiantRouting:
    """Valiant routing over ``base_routing``'s minimal routes (Slim Fly IV-B).

    Parameters
    ----------
    base_routing : TableRouting
        The minimal routing of each segment (NR, FR, DOR...).  Its VCs are replaced.
    seed : int, optional
        Seed of the routing's own generator (recorded in ``params["seed"]``).
    num_vcs : int, optional
        VCs to declare; default the minimum ``2 * D`` (``D`` = longest base route).
    vc_ranges : bool
        Hop ``h`` of an ``n``-hop path on a block of the VC classes (module docs; default
        False: VC ``h``).

    Returns
    -------
    ValiantRouting

    Raises
    ------
    RoutingError
        If ``num_vcs`` is below ``2 * D`` ("Valiant routing with hop-indexed VCs needs at
        least 4 VCs (two segments of up to 2 hops), got 3").

    References
    ----------
    .. [1] L. G. Valiant, "A Scheme for Fast Parallel Communication", SIAM J. Computing
       11(2), 1982.
    .. [2] Slim Fly, Sec. IV-B and IV-D.
    """
    return ValiantRouting(base_routing, seed=seed, num_vcs=num_vcs, vc_ranges=vc_ranges)


@dataclass
class UgalCandidates:
    """MIN + ``k`` Valiant candidates for one packet (index 0 is MIN).

    Attributes
    ----------
    paths : list of (switches, vcs)
    intermediates : ndarray of int64
        ``-1`` for MIN, the intermediate switch for each VAL candidate.
    hops : ndarray of int64
    first_entries : ndarray of int64
        CSR entry (directed link) of each candidate's first hop (``-1`` if src == dst).
    """

    src: int
    dst: int
    paths: list
    intermediates: np.ndarray
    hops: np.ndarray
    first_entries: np.ndarray

    def as_dict(self) -> dict:
        """Plain lists (JSON-ready): ``src``, ``dst``, ``paths`` (switch lists), ``vcs``,
        ``intermediates``, ``hops``, ``first_entries``."""
        return {"src": self.src, "dst": self.dst,
                "paths": [p[0].tolist() for p in self.paths],
                "vcs": [p[1].tolist() for p in self.paths],
                "intermediates": self.intermediates.tolist(), "hops": self.hops.tolist(),
                "first_entries": self.first_entries.tolist()}


def ugal_candidates(base_routing: TableRouting, src: int, dst: int, k: int = 4, seed=None,
                    *, rng=None) -> UgalCandidates:
    """The MIN path and ``k`` random Valiant paths from ``src`` to ``dst`` (Slim Fly IV-C).

    Parameters
    ----------
    base_routing : TableRouting
    src, dst : int
    k : int
        Number of VAL candidates (the paper uses 4).
    seed : int, optional
        Seed of the draws (ignored when ``rng`` is given).
    rng : numpy.random.Generator, optional

    Returns
    -------
    UgalCandidates
        MIN on hop-indexed VCs 0..; VAL with the Valiant VCs (module docs).
    """
    k = check_int("k", k, 0)
    base = base_routing.base if isinstance(base_routing, ValiantRouting) else base_routing
    if not isinstance(base, TableRouting):
        raise ParameterError(f"ugal_candidates needs a table routing, got {type(base).__name__}")
    n = base.num_switches
    src = _check_switch("src", src, n)
    dst = _check_switch("dst", dst, n)
    if n < 3 and k > 0 and src != dst:
        raise ParameterError(f"Valiant candidates need at least 3 switches, got {n}")
    gen = make_rng(seed) if rng is None else rng
    sw, _ = base.path(src, dst)
    paths = [(sw, np.arange(len(sw) - 1, dtype=np.int16))]
    mids = [-1]
    for _ in range(k):
        if src == dst:
            break
        m = _draw_mid(n, src, dst, gen)
        paths.append(_path_via(base, src, m, dst))
        mids.append(m)
    hops = np.asarray([len(p[0]) - 1 for p in paths], dtype=np.int64)
    firsts = np.asarray([int(base.view.entry(p[0][0], p[0][1])) if len(p[0]) > 1 else -1
                         for p in paths], dtype=np.int64)
    return UgalCandidates(int(src), int(dst), paths, np.asarray(mids, dtype=np.int64), hops, firsts)


def ugal_select(candidates: UgalCandidates, queue_length, variant: str = "local",
                routing=None) -> int:
    """Index of the candidate UGAL picks.

    Parameters
    ----------
    candidates : UgalCandidates
    queue_length : array_like
        Output queue length of each directed link, indexed by CSR entry (the link rank
        ``r`` at switch ``v`` is entry ``topology.csr().indptr[v] + r``).
    variant : {"local", "global"}
        UGAL-L: hops x queue of the first output link; UGAL-G: sum of the queues on the
        path.
    routing : Routing, optional
        Needed for ``"global"`` (to map hops to CSR entries); any routing on the topology.

    Returns
    -------
    int
        Lowest cost; ties to the lowest index (MIN first).
    """
    q = np.asarray(queue_length, dtype=float)
    if variant == "local":
        first = candidates.first_entries
        cost = candidates.hops * np.where(first >= 0, q[np.maximum(first, 0)], 0.0)
    elif variant == "global":
        if routing is None:
            raise ParameterError("UGAL-G needs routing= to map paths to links")
        cost = np.asarray([q[routing.view.entry(p[0][:-1], p[0][1:])].sum() for p in candidates.paths])
    else:
        raise ParameterError(f"variant must be 'local' or 'global', got {variant!r}")
    return int(np.argmin(cost))


def _junctions(lasts, firsts):
    """Every junction of a first segment's last hop with a second segment's first hop at
    the same intermediate switch: ``last`` rows (mid, entry into mid, length), ``first``
    rows (mid, entry out of mid) and the index pairs ``rep`` / ``fidx`` into them."""
    last = np.unique(np.concatenate(lasts), axis=0)
    first = np.unique(np.concatenate(firsts), axis=0)
    first = first[np.argsort(first[:, 0], kind="stable")]
    starts = np.searchsorted(first[:, 0], last[:, 0], side="left")
    ends = np.searchsorted(first[:, 0], last[:, 0], side="right")
    cnt = ends - starts
    rep = np.repeat(np.arange(len(last)), cnt)
    offs = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    return last, first, rep, np.repeat(starts, cnt) + offs
