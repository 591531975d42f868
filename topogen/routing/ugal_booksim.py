"""BookSim2 ``dragonflynew``'s routings on topogen's dragonfly: ``min``
(:func:`dragonfly_min`) and ``ugal`` (:func:`ugal_booksim`, ``ugal_dragonflynew``).

Both are read from ``src/networks/dragonfly.cpp`` (``dragonfly_port``,
``min_dragonflynew``, ``ugal_dragonflynew``) and need a dragonfly whose groups are
joined by exactly one global link per pair of groups (``a h = g - 1``, as BookSim's
``dragonflynew`` is built: topogen's ``dragonfly(a=2p, p=p, h=p)``).

The minimal path from router ``s`` to router ``d`` (``dragonfly_port``): the direct
local link inside a group; otherwise a local hop to the router of ``s``'s group that
holds the global link to ``d``'s group (none when ``s`` holds it), the global link, then
a local hop to ``d`` (none when the global link lands on it).  A global-local-global path
of the same length is never taken.

``min``: VC 0 until the global hop, VC 1 on it and after it (the dateline rule with the
global links as the dateline; 2 VCs).

``ugal`` (3 VCs, BookSim asserts exactly 3): the choice is made once, at the source
router, when the packet comes from a terminal port:

* destination in the source group: minimal, phase 2 (VC 2 on every hop);
* otherwise a random intermediate *terminal* (uniform over all ``N`` terminals,
  ``RandomInt(N - 1)``); when it is in the source group, minimal (phase 1); else minimal
  when ``q_min <= 2 q_nonmin + 30``, where ``q`` is ``GetUsedCredit`` of the source
  router's output port toward the destination (``q_min``) and toward the intermediate
  (``q_nonmin``): the credits in use over all VCs of the port, in flits (flits sent and
  not yet credited back; packets waiting at the router are not counted).  Else
  non-minimal (phase 0);
* phase 0 follows the minimal path to the intermediate terminal's router on VC 0 and
  turns to phase 1 there; phase 1 follows the minimal path to the destination on VC 1
  and turns to phase 2 on its global hop (the "optical dateline"); phase 2 uses VC 2.

The reference simulator makes the choice at run time (:mod:`topogen.sim._ugal`, Python
engine); :meth:`UgalBooksimRouting.path` gives the empty network's choice (minimal).
The channel dependency graph (:func:`topogen.routing.check`) holds every dependency any
choice creates: phase-0 paths between routers of different groups on VC 0, phase-1 paths
from every router, the phase-2 paths inside a group, and every junction at an
intermediate router.  Phase 0 has local hops on VC 0 both before a global hop (in the
source group) and after one (in the intermediate's group), so on a dragonfly with more
than one router per group the VC-0 dependencies close cycles: BookSim's three VCs do not
make the routing deadlock-free by the channel-dependency criterion (:func:`check` reports
the cycle).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .base import Routing, TableRouting, _check_switch
from .ugal import UgalRouting

__all__ = ["dragonfly_min", "ugal_booksim", "UgalBooksimRouting", "gateways", "THRESHOLD"]

#: ``adaptive_threshold`` of ``ugal_dragonflynew``: the bias toward the minimal path (flits)
THRESHOLD = 30
#: the weight of the non-minimal queue (BookSim: "could use hopcnt instead of 1 and 2")
NONMIN_FACTOR = 2


def gateways(topology) -> tuple[np.ndarray, np.ndarray, int]:
    """``(group_of, gateway, a)``: each router's group and ``gateway[i, t]``, the router of
    group ``i`` that holds the global link to group ``t`` (``-1`` on the diagonal).

    Raises
    ------
    ParameterError
        Not a dragonfly, or not one global link between every pair of groups.
    """
    from ._csr import csr_view

    if topology.name != "dragonfly" or "a" not in topology.params:
        raise ParameterError(f"BookSim's dragonflynew routings need a dragonfly topology, got "
                             f"{topology.name!r}; build one with `topogen generate dragonfly`")
    a = int(topology.params["a"])
    n = topology.num_switches
    view = csr_view(topology)
    src = np.repeat(np.arange(n), np.diff(view.indptr))
    nbr = view.indices.astype(np.int64)
    group_of = np.arange(n) // a
    groups = n // a
    glob = group_of[src] != group_of[nbr]
    pairs = group_of[src[glob]] * groups + group_of[nbr[glob]]
    if len(np.unique(pairs)) != groups * (groups - 1) or len(pairs) != groups * (groups - 1):
        raise ParameterError(f"BookSim's dragonflynew routings need exactly one global link between every "
                             f"pair of groups (a h = g - 1); this dragonfly has {len(pairs) // 2} global "
                             f"links for {groups} groups: use a = 2p, h = p")
    gateway = np.full((groups, groups), -1, dtype=np.int64)
    gateway[group_of[src[glob]], group_of[nbr[glob]]] = src[glob]
    return group_of, gateway, a


def _min_ranks(topology):
    """Next-hop ranks of the minimal paths (module docs) and the global-link mask."""
    from ._csr import csr_view

    group_of, gateway, a = gateways(topology)
    n = topology.num_switches
    view = csr_view(topology)
    src = np.repeat(np.arange(n), np.diff(view.indptr))
    nbr = view.indices.astype(np.int64)
    rank_of = {(int(u), int(w)): i - int(view.indptr[u]) for i, (u, w) in enumerate(zip(src, nbr))}
    ranks = np.full((1, n, n), np.iinfo(view.rank_dtype).max, dtype=view.rank_dtype)
    for v in range(n):
        gv = int(group_of[v])
        for d in range(n):
            if v == d:
                continue
            gd = int(group_of[d])
            if gv == gd:
                nxt = d
            else:
                gw = int(gateway[gv, gd])
                nxt = gw if gw != v else int(gateway[gd, gv])
            ranks[0, v, d] = rank_of[(v, nxt)]
    return ranks, group_of[src] != group_of[nbr]


def dragonfly_min(topology, num_vcs: int = 2) -> TableRouting:
    """BookSim ``dragonflynew``'s ``min`` on topogen's dragonfly (module docs): minimal
    paths, VC 0 until the global hop and VC 1 on it and after it (``min_dragonflynew``'s
    ``ph``), the table routing's dateline rule with the global links as the dateline."""
    ranks, wrap = _min_ranks(topology)
    return TableRouting(topology, ranks, algorithm="dragonfly-min",
                        params={"vc_rule": "dateline", "dateline": "global links",
                                "as": "BookSim dragonflynew min"},
                        num_vcs=num_vcs, vc_rule="dateline", entry_dim=np.zeros(len(wrap), np.int8),
                        entry_wrap=wrap)


class UgalBooksimRouting(UgalRouting):
    """BookSim ``dragonflynew``'s ``ugal`` (module docs) over :func:`dragonfly_min`'s
    paths.  ``base`` is the minimal table routing; ``is_global[e]`` whether CSR entry
    ``e`` is a global link."""

    def __init__(self, base: TableRouting, seed=None, threshold: int = THRESHOLD):
        from .._validate import check_int
        from .._rng import make_rng, resolve_seed

        group_of, _, a = gateways(base.topology)
        seed = resolve_seed(seed)
        self.base = base
        self.longest = max(1, base.max_route_length())
        self.threshold = check_int("threshold", threshold, -(1 << 20), 1 << 20)
        # Routing.__init__ (UgalRouting's and ValiantRouting's VC counts are not BookSim's)
        Routing.__init__(
            self, base.topology, layout=base.layout, algorithm="ugal-booksim",
            params={"seed": seed, "variant": "booksim", "candidates": 1, "threshold": self.threshold,
                    "choice": "per packet at the source router: one random intermediate terminal; minimal "
                              "when it is in the source group or q_min <= 2 q_nonmin + threshold "
                              "(used credits of the two first-hop ports)",
                    "vc_rule": "phase: 0 to the intermediate, 1 minimal, 2 from the minimal global hop on",
                    "as": "BookSim dragonflynew ugal"},
            num_vcs=3)
        self.seed = seed
        self._rng = make_rng(seed)
        self.variant = "booksim"
        self.k = 1
        self.group_of = group_of
        self.routers_per_group = a
        view = base.view
        src = np.repeat(np.arange(self.num_switches), np.diff(view.indptr))
        self.is_global = group_of[src] != group_of[np.asarray(view.indices, dtype=np.int64)]

    def phase_vcs(self, sw, start_phase: int) -> np.ndarray:
        """The VC of each hop of a path ``sw`` followed from phase ``start_phase`` (1 or
        2): phase 1 turns to 2 on the global hop."""
        ph = start_phase
        out = np.empty(len(sw) - 1, dtype=np.int16)
        for i in range(len(sw) - 1):
            e = int(self.view.entry(np.array([sw[i]]), np.array([sw[i + 1]]))[0])
            if ph == 1 and self.is_global[e]:
                ph = 2
            out[i] = ph
        return out

    def path(self, src: int, dst: int, rng=None):
        """The empty network's choice: minimal (phase 1, or 2 inside a group)."""
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        sw, _ = self.base.path(src, dst)
        same = self.group_of[src] == self.group_of[dst]
        return np.asarray(sw, dtype=np.int32), self.phase_vcs(sw, 2 if same else 1)

    def path_via(self, src: int, mid: int, dst: int):
        """The non-minimal path through router ``mid`` (of another group than ``src``):
        VC 0 to ``mid``, then phase 1."""
        s1, _ = self.base.path(src, mid)
        s2, _ = self.base.path(mid, dst)
        vcs = np.concatenate([np.zeros(len(s1) - 1, np.int16), self.phase_vcs(s2, 1)])
        return np.concatenate([s1, s2[1:]]).astype(np.int32), vcs

    def choose(self, src: int, dst: int, mid: int, q_min: int, q_nonmin: int) -> bool:
        """Whether the packet from router ``src`` to router ``dst`` with intermediate
        terminal on router ``mid`` goes minimally, given the used credits of the two
        first-hop ports (module docs)."""
        g = self.group_of
        if g[src] == g[dst] or g[src] == g[mid]:
            return True
        return q_min <= NONMIN_FACTOR * q_nonmin + self.threshold

    def candidates(self, src: int, dst: int, rng=None):
        raise ParameterError("ugal-booksim draws one intermediate terminal per packet in the simulator; "
                             "use path_via(src, mid, dst) for its non-minimal path")

    def describe_check(self) -> str:
        return ("every ugal-booksim path: phase-0 paths between groups on VC 0, phase-1 paths (VC 1, VC 2 "
                "from the global hop), phase-2 paths inside a group, and every junction at an intermediate")

    def dependency_chunks(self, pairs=None):
        """Every dependency any choice creates (module docs); ``pairs`` is ignored."""
        v = self.num_vcs
        n = self.num_switches
        g = self.group_of
        view = self.view
        ents, firsts, lasts = {}, {}, {}
        for s in range(n):
            for d in range(n):
                if s == d:
                    continue
                sw, _ = self.base.path(s, d)
                e = np.asarray(view.entry(np.asarray(sw[:-1]), np.asarray(sw[1:])), dtype=np.int64)
                ents[s, d] = e
        a_list, b_list = [], []

        def chain(e, vcs):
            ch = e * v + vcs
            a_list.append(ch[:-1])
            b_list.append(ch[1:])
            return ch

        for (s, d), e in ents.items():
            vc1 = self.phase_vcs(np.r_[s, view.indices[e]], 1).astype(np.int64)
            ch1 = chain(e, vc1)  # phase 1 from s (a source's minimal path or after an intermediate)
            firsts[s, d] = ch1[0]
            if g[s] == g[d]:
                chain(e, np.full(len(e), 2, np.int64))  # phase 2 from the source, inside a group
            else:
                ch0 = chain(e, np.zeros(len(e), np.int64))  # phase 0 toward an intermediate router d
                lasts[s, d] = ch0[-1]
        for (s, m), last in lasts.items():
            for d in range(n):
                if d != m:
                    a_list.append(np.array([last]))
                    b_list.append(np.array([firsts[m, d]]))
        a = np.concatenate(a_list)
        b = np.concatenate(b_list)
        yield np.unique(np.concatenate([a, b])), a, b

    def metadata(self) -> dict:
        md = super().metadata()  # kind "ugal" with params variant "booksim"
        return md


def ugal_booksim(topology, *, seed=None, num_vcs: int | None = None,
                 threshold: int = THRESHOLD) -> UgalBooksimRouting:
    """BookSim ``dragonflynew``'s ``ugal`` on topogen's dragonfly (module docs).

    Parameters
    ----------
    topology : Topology
        A dragonfly with one global link between every pair of groups.
    seed : int, optional
    num_vcs : int, optional
        Must be 3 when given (BookSim asserts it).
    threshold : int
        The bias toward the minimal path (BookSim: 30).

    Raises
    ------
    ParameterError
        Not such a dragonfly, or ``num_vcs`` other than 3.
    """
    if num_vcs not in (None, 3):
        raise ParameterError(f"ugal-booksim uses exactly 3 VCs (BookSim's ugal_dragonflynew asserts "
                             f"num_vcs == 3), got {num_vcs}")
    ranks, _ = _min_ranks(topology)
    base = TableRouting(topology, ranks, algorithm="dragonfly-min-paths", params={"as": "dragonfly_port"})
    return UgalBooksimRouting(base, seed=seed, threshold=threshold)
