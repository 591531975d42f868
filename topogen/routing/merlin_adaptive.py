"""SST merlin's randomised and adaptive routings of its own dragonfly, HyperX and fat tree,
on topogen's generators of the same networks (the fat tree: :class:`MerlinFattreeRouting`).

Read from sst-elements ``src/sst/elements/merlin/topology/dragonfly.cc`` and
``hyperx.cc`` (``process_input``, ``route_packet`` and the functions it calls), for one
intragroup and one intergroup link (dragonfly) and width 1 (HyperX).  merlin numbers
routers as topogen's ``dragonfly(a=2p, p, h=p, arrangement="absolute",
global_port_order="router")`` and ``hyperx(dims)`` do, so router ``i`` here is merlin's
router ``i``.

``merlin-dragonfly-valiant`` (``algorithm = valiant``, 3 VCs)
    ``process_input`` draws, at the source router, an intermediate: within the source
    group a router other than the source (it may be the destination; uniform over the
    ``a - 1``), otherwise a group other than the source's and the destination's
    (``getValiantGroup``: uniform over the ``g - 2``).  Inside a group the packet goes
    to the intermediate router, then to the destination; between groups to the gateway
    of the intermediate group, over its global link, to the gateway of the destination
    group in that group, over its global link, then to the destination.  VCs: 0 from
    the source; +1 at every router a global link enters; inside the source group the
    hop from the intermediate router on VC 1 (``setVC(vc + 1)``).
``merlin-dragonfly-ugal`` (``algorithm = ugal``, 3 VCs; ``route_ugal``)
    the same draw; the choice is made when the packet is the head of its input buffer,
    from ``output_queue_lengths``: hr_router's flits in the output buffer of the
    (port, VC) the packet came in on.  At the source router: inside the group minimal
    when ``q(direct) <= 2 q(intermediate) + 50``, else via the intermediate router on
    VC 0 then VC 2 (``setVC(vc + 2)``); between groups the lower of ``q(port toward
    the destination group)`` and ``2 q(port toward the intermediate group) + 50``
    (a tie drawn at random).  A router of the source group reached over a local link
    that holds both global links chooses again with the same weights (minimal unless
    ``q(direct) > 2 q(valiant) + 50``).  After that the path is fixed; VC 0, +1 at
    every router a global link enters.
``merlin-hyperx-valiant`` (``algorithm = valiant``, 2 VCs; ``routeValiant``)
    an intermediate router other than the source (it may be the destination; uniform
    over the ``N - 1``), dimension order to it on VC 0, dimension order from it to the
    destination on VC 1.  A packet between two endpoints of one router goes to the
    intermediate and back (``routes_self``).
``merlin-hyperx-doal`` (``algorithm = DOAL``, 2 VCs; ``routeDOAL``)
    dimension order; in the first unaligned dimension a packet that came in on VC 0
    may take any link of that dimension: the direct one weighs ``q(port, VC 0)``, any
    other ``2 q(port, VC 1) + 1`` (it then runs on VC 1); the lowest weight wins, the
    first in port order (increasing coordinate) on a tie.  A packet that came in on
    VC 1 goes straight to the destination's coordinate on VC 0.
``merlin-dragonfly-adaptive-local`` (``algorithm = adaptive-local``, 3 VCs;
``route_nonadaptive`` then ``route_adaptive_local``)
    valiant's draw; at the source router the valiant route when the free space of
    the output buffer (``output_credits``) of its first hop is more than
    ``adaptive_threshold`` (2.0) times that of the minimal route's first hop, else the
    minimal route; from there the route and VCs are valiant's (minimal: VC 0, +1 where
    a global link enters).
``merlin-dragonfly-min-a`` (``algorithm = min-a``, 2 VCs; ``route_mina``)
    with one global link between every pair of groups there is one minimal port: the
    minimal route, VC 0, +1 where a global link enters.
``merlin-hyperx-min-a`` (``algorithm = MIN-A``, one VC per dimension; ``routeMINA``)
    at every router the minimal link of each unaligned dimension, weighed by the
    output queue of the next VC; the lowest wins, the lowest dimension on a tie; hop
    ``h`` runs on VC ``h``.

``merlin-hyperx-vdal`` (``algorithm = VDAL``, two VCs per dimension; ``routeVDAL``)
    at every router any link of an unaligned dimension, minimal ones weighed
    ``q(port, next VC)``, non-minimal ones ``2 q + 1`` and not in the dimension of the
    last hop; the lowest weights tie and one is drawn from the router's generator; only
    minimal links (``routeMINA``, no draw) once the VCs left equal the unaligned
    dimensions.  Hop ``h`` runs on VC ``h``.
``merlin-fattree-adaptive`` (``routing_alg = adaptive``, one VC): :class:`MerlinFattreeRouting`.
``merlin-fattree-deterministic`` (``routing_alg = deterministic``, one VC; ``route_deterministic``)
    up by the destination *host's* digit at each level, down to its leaf: one fixed route
    per host pair, so the hosts of one leaf reach another leaf over every up link of
    their leaf (a table per destination switch, topogen's ``nca``, takes one).

At the destination router merlin.dragonfly gives a packet that came in over a global
port the next VC before it is sent to its host (:meth:`MerlinRouting.eject_vc`): it
leaves from that VC's output buffer.

The random draws are made by :meth:`MerlinRouting.path` (the valiant routings); the
run-time choices of the adaptive ones (:attr:`MerlinRouting.run_time_choices`) by the
reference simulator's output-buffered router, :mod:`topogen.sim._obuf_adaptive`, through
:meth:`MerlinRouting.start` and :meth:`MerlinRouting.choose`.  :meth:`MerlinRouting.path_set`
lists every path any draw or choice can give, with its VCs; the deadlock check
(:func:`topogen.routing.check`) builds the channel dependency graph of all of them.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError
from .base import Routing, _check_switch

__all__ = ["XorShift", "MERLIN_DRAWS", "MerlinRouting", "MerlinDragonflyRouting", "MerlinHyperxRouting", "merlin_dragonfly", "merlin_hyperx",
           "MERLIN_ROUTINGS", "UGAL_BIAS", "merlin_routing"]

#: ``vns[vn].bias`` of ``dragonfly.cc`` (flits added to twice the non-minimal queue)
UGAL_BIAS = 50

#: where the reference simulator takes a packet's draws from: ``seed`` (the simulation's
#: generator, from its one seed) or ``merlin`` (one generator per router as merlin keeps
#: them: SST's ``XORShiftRNG`` seeded with the router id + 1, :class:`XorShift`)
MERLIN_DRAWS = ("seed", "merlin")

#: topogen's name of each merlin routing -> (merlin topology, merlin's ``algorithm``)
MERLIN_ROUTINGS = {
    "merlin-dragonfly-valiant": ("dragonfly", "valiant"),
    "merlin-dragonfly-ugal": ("dragonfly", "ugal"),
    "merlin-hyperx-valiant": ("hyperx", "valiant"),
    "merlin-hyperx-doal": ("hyperx", "DOAL"),
    "merlin-dragonfly-adaptive-local": ("dragonfly", "adaptive-local"),
    "merlin-dragonfly-min-a": ("dragonfly", "min-a"),
    "merlin-hyperx-min-a": ("hyperx", "MIN-A"),
    "merlin-hyperx-vdal": ("hyperx", "VDAL"),
    "merlin-fattree-adaptive": ("fattree", "adaptive"),
    "merlin-fattree-deterministic": ("fattree", "deterministic"),
}

#: merlin.fattree's ``routing_alg`` values written here
FATTREE_RULES = ("adaptive", "deterministic")

#: ``adaptive_threshold`` of ``fattree.cc`` (adaptive up routes: leave the natural up port
#: when its output buffer has less than this fraction of its size free)
FATTREE_THRESHOLD = 0.5

#: ``adaptive_threshold`` of ``dragonfly.cc`` (adaptive-local: valiant when its output
#: buffer has more than this many times the free space of the minimal one)
ADAPTIVE_LOCAL_THRESHOLD = 2.0


class MerlinRouting(Routing):
    """Base of merlin's randomised and adaptive routings (module docs).

    Attributes
    ----------
    run_time_choices : bool
        The route is chosen hop by hop from the output queues while the packet moves
        (:meth:`start`, :meth:`choose`); :meth:`path` then gives the empty network's
        choice.  False: :meth:`path` draws the whole route at the source.
    routes_self : bool
        A packet between two endpoints of one router enters the network.
    """

    deterministic = False
    run_time_choices = False
    routes_self = False
    #: :meth:`draw_path` and :meth:`start` take host ids (the route depends on the
    #: destination host, not only on its switch)
    host_routes = False
    #: the reference simulator's output-buffered router runs it on
    #: :class:`topogen.sim._obuf_adaptive.MerlinChoiceEngine`
    merlin_engine = True

    def __init__(self, topology, *, algorithm: str, params: dict, num_vcs: int, seed=None, draws: str = "seed"):
        if draws not in MERLIN_DRAWS:
            raise ParameterError(f"draws must be one of {', '.join(MERLIN_DRAWS)}, got {draws!r}")
        seed = resolve_seed(seed)
        super().__init__(topology, algorithm=algorithm, params=dict(params, seed=seed, draws=draws), num_vcs=num_vcs)
        self.seed = seed
        self.draws = draws
        self._rng = make_rng(seed)
        view = self.view
        src = np.repeat(np.arange(self.num_switches), np.diff(view.indptr)).tolist()
        #: (router, neighbour) -> CSR entry (the directed link)
        self.entry_of = {(u, int(w)): i for i, (u, w) in enumerate(zip(src, view.indices.tolist()))}

    # ------------------------------------------------------------ what subclasses give
    def path_set(self, src: int, dst: int) -> list:
        """Every ``(switches, vcs)`` a packet from ``src`` to ``dst`` may take."""
        raise NotImplementedError

    def draw_path(self, src: int, dst: int, u32) -> tuple:
        """``(switches, vcs)`` of one packet, its draws taken from ``u32()`` (the next
        32-bit number of the source router's generator, used as merlin uses it)."""
        raise NotImplementedError

    def start(self, src: int, dst: int, u32) -> list:
        """The per-packet state of a run-time routing (its draw at the source router,
        from ``u32``, as :meth:`draw_path`)."""
        raise NotImplementedError

    def choose(self, state: list, at: int, vc_in: int, queue, u32, space=None):
        """The hops decided at router ``at`` for a packet that came in on VC ``vc_in``:
        ``(next switches, their VCs, done)``; ``queue(entry, vc)`` is the flits in the
        output buffer of that (link, VC) at ``at`` (merlin's ``output_queue_lengths``),
        ``space(entry, vc)`` its free flits (merlin's ``output_credits``; ``space.size``
        the buffer's size), ``u32`` router
        ``at``'s generator (ties).  ``done``: the last switch given is the destination."""
        raise NotImplementedError

    def eject_vc(self, sw: list, vcs: list) -> int:
        """The VC of the output buffer a packet that took ``sw`` on ``vcs`` leaves the
        network from, at its destination router (merlin sets it when it routes the packet
        there): the VC it came in on unless the topology's rule changes it there."""
        return vcs[-1] if vcs else 0

    def path(self, src: int, dst: int, rng=None):
        """One packet's path and VCs (:meth:`draw_path` with draws from ``rng``, a
        :class:`numpy.random.Generator`, or the routing's own generator); the run-time
        routings give the empty network's choice, and only without ``rng``.

        Raises
        ------
        ParameterError
            A run-time routing asked for a packet's path (``rng`` given): its path is
            chosen from the queues as the packet goes (the input-queued router does not
            make merlin's choices)."""
        if self.run_time_choices and rng is not None:
            raise ParameterError(
                f"{self.algorithm} chooses its hops from SST's output queues as the packet goes; simulate it on the "
                "output-buffered router: SimConfig(router='output-buffered', obuf_vcs='routing')")
        src, dst = self._pair(src, dst)
        if src == dst and not self.routes_self:
            return np.asarray([src], dtype=np.int32), np.zeros(0, dtype=np.int16)
        gen = self._rng if rng is None else rng
        sw, vcs = self.draw_path(src, dst, lambda: int(gen.integers(1 << 32)))
        return np.asarray(sw, dtype=np.int32), np.asarray(vcs, dtype=np.int16)

    # ------------------------------------------------------------ shared
    def _pair(self, src, dst):
        n = self.num_switches
        return _check_switch("src", src, n), _check_switch("dst", dst, n)

    def all_paths(self, src: int) -> dict:
        """``{dst: [[hop 1, ..., dst], ...]}``, each path as likely as the others (the
        valiant routings' exact distribution; SST anytopo's weighted source routes)."""
        if self.run_time_choices:
            raise ParameterError(f"{self.algorithm} chooses its path from the queues at run time; it has no fixed "
                                 "distribution of paths to export")
        src = _check_switch("src", src, self.num_switches)
        return {d: [list(map(int, sw[1:])) for sw, _ in self.path_set(src, d)]
                for d in range(self.num_switches) if d != src}

    def dependency_chunks(self, pairs=None):
        """The dependencies of every path of :meth:`path_set` (all ordered pairs, or
        ``pairs``)."""
        n, v = self.num_switches, self.num_vcs
        if pairs is None:
            pairs = [(s, d) for s in range(n) for d in range(n) if s != d or self.routes_self]
        else:
            pairs = [(int(s), int(d)) for s, d in np.asarray(pairs).reshape(-1, 2)]
        ent = self.entry_of
        used, a_l, b_l = [], [], []
        for s, d in pairs:
            for sw, vcs in self.path_set(s, d):
                if len(sw) < 2:
                    continue
                ch = np.asarray([ent[int(x), int(y)] for x, y in zip(sw[:-1], sw[1:])], dtype=np.int64) * v
                ch = ch + np.asarray(vcs, dtype=np.int64)
                used.append(ch)
                a_l.append(ch[:-1])
                b_l.append(ch[1:])
        if not used:
            return
        yield np.unique(np.concatenate(used)), np.concatenate(a_l), np.concatenate(b_l)

    def describe_check(self) -> str:
        return f"every path {self.algorithm} may take (every intermediate and every adaptive choice), with its VCs"

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "merlin"
        return md


class XorShift:
    """SST core's ``XORShiftRNG`` (``src/sst/core/rng/xorshift.cc``): ``seed(s)`` sets
    ``x = s`` and ``y = z = w = 0``; each ``generateNextUInt32`` is Marsaglia's xorshift128
    step.  merlin's dragonfly and hyperx keep one per router, seeded with the router id
    + 1; from such small seeds the first outputs repeat (seed 1: 2057 four times)."""

    __slots__ = ("x", "y", "z", "w")

    def __init__(self, seed: int):
        if not 0 < int(seed) < 1 << 32:
            raise ParameterError(f"XORShiftRNG's seed must be in [1, 2**32), got {seed!r}")
        self.x, self.y, self.z, self.w = int(seed), 0, 0, 0

    def __call__(self) -> int:
        """The next 32-bit number (``generateNextUInt32``)."""
        t = (self.x ^ (self.x << 11)) & 0xFFFFFFFF
        self.x, self.y, self.z = self.y, self.z, self.w
        w = self.w
        self.w = w = (w ^ (w >> 19) ^ t ^ (t >> 8)) & 0xFFFFFFFF
        return w


# ---------------------------------------------------------------------------- dragonfly
#: merlin.dragonfly's ``algorithm`` values written here
DRAGONFLY_RULES = ("valiant", "ugal", "adaptive-local", "min-a")


class MerlinDragonflyRouting(MerlinRouting):
    """merlin.dragonfly's ``valiant`` or ``ugal`` (module docs) on topogen's dragonfly
    with one global link between every pair of groups."""

    def __init__(self, topology, rule: str, *, seed=None, bias: int = UGAL_BIAS, draws: str = "seed"):
        from .._validate import check_int
        from .ugal_booksim import gateways

        if rule not in DRAGONFLY_RULES:
            raise ParameterError(f"merlin.dragonfly's routing must be one of {', '.join(DRAGONFLY_RULES)} here, "
                                 f"got {rule!r}")
        group_of, gateway, a = gateways(topology)
        groups = len(gateway)
        if groups < 3 and rule != "min-a":
            raise ParameterError(f"merlin.dragonfly routes {rule} as minimal with 2 groups or fewer (dragonfly.cc); "
                                 f"this dragonfly has {groups}: use dragonfly-min")
        self.bias = check_int("bias", bias, 0, 1 << 20)
        super().__init__(topology, algorithm=f"merlin-dragonfly-{rule}",
                         params={"as": f"SST merlin.dragonfly {rule}", "bias": self.bias,
                                 "vc_rule": "VC 0, +1 where a global link enters" + (
                                     "" if rule == "min-a" else "; inside the source group the " + (
                                         "non-minimal second hop on VC 2" if rule == "ugal" else
                                         "second hop on VC 1"))},
                         num_vcs=2 if rule == "min-a" else 3, seed=seed, draws=draws)
        self.rule = rule
        self.run_time_choices = rule in ("ugal", "adaptive-local")
        self.group_of = group_of.tolist()
        self.gateway = gateway.tolist()
        self.a = int(a)
        self.groups = groups

    def _global(self, u: int, w: int) -> bool:
        return self.group_of[u] != self.group_of[w]

    def min_path(self, s: int, d: int) -> list:
        """dragonfly.cc's minimal route: local, global, local (each when needed)."""
        g, gw = self.group_of, self.gateway
        if s == d:
            return [s]
        if g[s] == g[d]:
            return [s, d]
        out = [s]
        r = gw[g[s]][g[d]]
        if r != s:
            out.append(r)
        y = gw[g[d]][g[s]]
        out.append(y)
        if y != d:
            out.append(d)
        return out

    def via(self, s: int, mid: int, d: int) -> list:
        """The valiant path: through router ``mid`` inside one group, else through group
        ``mid``."""
        g = self.group_of
        if g[s] == g[d]:
            return [s, d] if mid == d else [s, mid, d]
        first = self.min_path(s, self.gateway[mid][g[s]])  # into group mid: s .. its landing router
        x = first[-1]
        return first + self.min_path(x, d)[1:]

    def vcs_of(self, sw: list, vc0: int = 0) -> list:
        """merlin's VCs along ``sw`` (module docs)."""
        g = self.group_of
        if len(sw) == 3 and g[sw[0]] == g[sw[-1]] == g[sw[1]]:  # non-minimal inside a group
            return [vc0, vc0 + (2 if self.rule == "ugal" else 1)]
        out, vc = [], vc0
        for u, w in zip(sw[:-1], sw[1:]):
            out.append(vc)
            if g[u] != g[w]:
                vc += 1
        return out

    def eject_vc(self, sw: list, vcs: list) -> int:
        """``route_nonadaptive`` / ``route_ugal`` at the destination router: a packet that
        came in over a global port gets ``setVC(vc + 1)`` before it is sent to its host, so
        it leaves from the output buffer of the next VC; one that came in over a local
        port keeps its VC."""
        if not vcs:
            return 0
        return vcs[-1] + (1 if self._global(sw[-2], sw[-1]) else 0)

    def draw(self, s: int, d: int, u32) -> int:
        """``process_input``'s intermediate: a router of the group other than ``s``
        (``u32() % a`` until it is not ``s``), or a group other than ``s``'s and ``d``'s
        (``getValiantGroup``: ``u32() % groups`` until it is neither)."""
        g, a = self.group_of, self.a
        if g[s] == g[d]:
            base = g[s] * a
            while True:
                r = u32() % a
                if r != s - base:
                    return base + r
        while True:
            r = u32() % self.groups
            if r != g[s] and r != g[d]:
                return r

    def draw_path(self, src: int, dst: int, u32) -> tuple:
        if src == dst:
            return [src], []
        if self.rule == "min-a":  # one minimal path (one global link per pair of groups)
            sw = self.min_path(src, dst)
        elif self.run_time_choices:  # the empty network's choice: minimal
            sw = self.min_path(src, dst)
        else:
            sw = self.via(src, self.draw(src, dst, u32), dst)
        return sw, self.vcs_of(sw)

    def path_set(self, src: int, dst: int) -> list:
        src, dst = self._pair(src, dst)
        if src == dst:
            return [([src], [])]
        g = self.group_of
        if self.rule == "min-a":
            sw = self.min_path(src, dst)
            return [(sw, self.vcs_of(sw))]
        if g[src] == g[dst]:
            mids = [m for m in range(g[src] * self.a, (g[src] + 1) * self.a) if m != src]
        else:
            mids = [x for x in range(self.groups) if x not in (g[src], g[dst])]
        out = []
        if self.run_time_choices:
            sw = self.min_path(src, dst)
            out.append((sw, self.vcs_of(sw)))
        for m in mids:
            sw = self.via(src, m, dst)
            if self.run_time_choices and sw == out[0][0]:
                continue
            out.append((sw, self.vcs_of(sw)))
        return out

    # ------------------------------------------------------------ ugal's run-time choice
    def start(self, src: int, dst: int, u32) -> list:
        return [dst, self.draw(src, dst, u32), 0]

    def choose(self, state: list, at: int, vc_in: int, queue, u32, space=None):
        if self.rule == "adaptive-local":
            return self._choose_local(state, at, vc_in, space)
        d, mid, stage = state
        if stage == 2:
            return self._through(state, at, vc_in, u32)
        g, gw, ent, bias = self.group_of, self.gateway, self.entry_of, self.bias
        gs, gd = g[at], g[d]
        if gs == gd:  # at the source router, destination in its group
            if queue(ent[at, d], vc_in) <= 2 * queue(ent[at, mid], vc_in) + bias:
                return [d], [vc_in], True
            return [mid, d], [vc_in, vc_in + 2], True
        r_min, r_val = gw[gs][gd], gw[gs][mid]
        if stage == 0:  # the source router (route_ugal, host port)
            n_min = gw[gd][gs] if r_min == at else r_min
            n_val = gw[mid][gs] if r_val == at else r_val
            w_min = queue(ent[at, n_min], vc_in)
            w_val = 2 * queue(ent[at, n_val], vc_in) + bias
            pick = u32()  # route_ugal draws among the lowest weights even when one port has it
            minimal = w_min < w_val or (w_min == w_val and pick % 2 == 0)  # a tie: one of the two at random
            nxt = n_min if minimal else n_val
            if r_min == r_val != at:  # the next router holds both global links: it chooses again
                state[2] = 1
                return [nxt], [vc_in], False
        else:  # a router of the source group holding both global links (intragroup port)
            w_min = queue(ent[at, gw[gd][gs]], vc_in)
            w_val = 2 * queue(ent[at, gw[mid][gs]], vc_in) + bias
            minimal = not w_min > w_val
        if minimal:
            sw = self.min_path(at, d)
            return sw[1:], self.vcs_of(sw, vc_in), True
        # valiant: up to the router the global link enters in the intermediate group, where
        # route_ugal draws again (its pick among the routes to the destination group)
        sw = self.via(at, mid, d)
        x = next(i for i, v in enumerate(sw) if g[v] == mid)
        state[2] = 2
        return sw[1:x + 1], self.vcs_of(sw, vc_in)[:x], False

    def _through(self, state: list, at: int, vc_in: int, u32):
        """``route_ugal`` at the router a packet enters the intermediate group at, over a
        global port: one draw from the router's generator (``rng % count`` among the
        routes to the destination group: one here), then on to the destination with the
        VC raised as the global link entered."""
        u32()
        sw = self.min_path(at, state[0])
        return sw[1:], self.vcs_of(sw, vc_in + 1), True

    def _choose_local(self, state: list, at: int, vc_in: int, space):
        """``route_adaptive_local`` at the source router (the only router where it chooses
        on these networks: the other adaptive point, a global port of the intermediate
        group, has no valiant side): the valiant route when the free space of the output
        buffer (``output_credits``) of its first hop is more than ``adaptive_threshold``
        (2.0) times that of the minimal route's first hop, else minimal; from there the
        route is ``route_nonadaptive``'s with the VCs of ``valiant``."""
        d, mid, _ = state
        ent = self.entry_of
        s_min, s_val = self.min_path(at, d), self.via(at, mid, d)
        c_min = space(ent[at, s_min[1]], vc_in)
        c_val = space(ent[at, s_val[1]], vc_in)
        sw = s_val if c_val > int(c_min * ADAPTIVE_LOCAL_THRESHOLD) else s_min
        return sw[1:], self.vcs_of(sw, vc_in), True


# ---------------------------------------------------------------------------- HyperX
class MerlinHyperxRouting(MerlinRouting):
    """merlin.hyperx's ``valiant`` or ``DOAL`` (module docs) on topogen's hyperx (width 1)."""

    def __init__(self, topology, rule: str, *, seed=None, draws: str = "seed"):
        if rule not in HYPERX_RULES:
            raise ParameterError(f"merlin.hyperx's routing must be one of {', '.join(HYPERX_RULES)} here, "
                                 f"got {rule!r}")
        if topology.name != "hyperx" or "dims" not in topology.params:
            raise ParameterError(f"merlin.hyperx's routings need a hyperx topology, got {topology.name!r}; build one "
                                 "with `topogen generate hyperx`")
        dims = [int(k) for k in topology.params["dims"]]
        super().__init__(topology, algorithm=f"merlin-hyperx-{rule.lower()}",
                         params={"as": f"SST merlin.hyperx {rule}",
                                 "vc_rule": {"valiant": "VC 0 to the intermediate, VC 1 from it",
                                             "DOAL": "VC 1 on a non-minimal hop, VC 0 otherwise",
                                             "MIN-A": "hop h on VC h", "VDAL": "hop h on VC h"}[rule]},
                         num_vcs={"MIN-A": len(dims), "VDAL": 2 * len(dims)}.get(rule, 2), seed=seed, draws=draws)
        self.rule = rule
        self.run_time_choices = rule in ("DOAL", "MIN-A", "VDAL")
        self.routes_self = rule == "valiant"
        self.dims = dims
        self.strides = [int(np.prod(dims[:i])) for i in range(len(dims))]

    def loc(self, v: int) -> list:
        return [(v // s) % k for s, k in zip(self.strides, self.dims)]

    def dor(self, s: int, d: int) -> list:
        """``routeDORBase``: the lowest dimension that differs first, straight to the
        destination's coordinate."""
        out, cur = [s], s
        a, b = self.loc(s), self.loc(d)
        for i, st in enumerate(self.strides):
            if a[i] != b[i]:
                cur += (b[i] - a[i]) * st
                out.append(cur)
        return out

    def via(self, s: int, mid: int, d: int):
        first = self.dor(s, mid)
        second = self.dor(mid, d)
        return first + second[1:], [0] * (len(first) - 1) + [1] * (len(second) - 1)

    def draw_path(self, src: int, dst: int, u32) -> tuple:
        if self.run_time_choices or (src == dst and not self.routes_self):  # the empty network's choice: DOR
            sw = self.dor(src, dst)
            return sw, [0] * (len(sw) - 1)
        n = self.num_switches
        while True:  # process_input: u32() % routers until it is not the source
            mid = u32() % n
            if mid != src:
                return self.via(src, mid, dst)

    def path_set(self, src: int, dst: int) -> list:
        src, dst = self._pair(src, dst)
        if self.rule == "valiant":
            return [self.via(src, m, dst) for m in range(self.num_switches) if m != src]
        if self.rule == "VDAL":
            return self._vdal_paths(src, dst)
        if self.rule == "MIN-A":  # every order of the unaligned dimensions, hop h on VC h
            from itertools import permutations

            a, b = self.loc(src), self.loc(dst)
            out = []
            for order in permutations([i for i in range(len(a)) if a[i] != b[i]]):
                sw, cur = [src], src
                for i in order:
                    cur += (b[i] - a[i]) * self.strides[i]
                    sw.append(cur)
                out.append((sw, list(range(len(sw) - 1))))
            return out
        out = []

        def walk(at, vc_in, sw, vcs):
            if at == dst:
                out.append((sw, vcs))
                return
            for nxt, vc in self._options(at, dst, vc_in):
                walk(nxt, vc, sw + [nxt], vcs + [vc])

        walk(src, 0, [src], [])
        return out

    def _options(self, at: int, d: int, vc_in: int) -> list:
        """DOAL's candidates at ``at`` in port order: ``(next router, VC)``."""
        a, b = self.loc(at), self.loc(d)
        i = next(i for i in range(len(a)) if a[i] != b[i])
        st = self.strides[i]
        direct = at + (b[i] - a[i]) * st
        if vc_in == 1:
            return [(direct, 0)]
        return [(at + (c - a[i]) * st, 0 if c == b[i] else 1) for c in range(self.dims[i]) if c != a[i]]

    def start(self, src: int, dst: int, u32) -> list:
        return [dst, -1, 0] if self.rule == "VDAL" else [dst]

    def _vdal_options(self, at: int, d: int, hops: int, last: int) -> tuple:
        """``routeVDAL``'s candidates at ``at`` after ``hops`` links, ``last`` the dimension
        of the last hop: ``(minimal only, [(next router, dimension, minimal)])`` in port
        order.  Only minimal links once the VCs left equal the unaligned dimensions
        (``routeMINA``); else every link of an unaligned dimension, but no second
        non-minimal hop in the dimension just routed."""
        a, b = self.loc(at), self.loc(d)
        udims = [i for i in range(len(a)) if a[i] != b[i]]
        only_min = len(udims) == self.num_vcs - hops
        out = []
        for i in udims:
            st = self.strides[i]
            for c in range(self.dims[i]):
                if c == a[i] or (c != b[i] and (only_min or i == last)):
                    continue
                out.append((at + (c - a[i]) * st, i, c == b[i]))
        return only_min, out

    def _vdal_paths(self, src: int, dst: int) -> list:
        out = []

        def walk(at, hops, last, sw):
            if at == dst:
                out.append((sw, list(range(len(sw) - 1))))
                return
            only_min, opts = self._vdal_options(at, dst, hops, last)
            for nxt, dim, _ in opts:
                walk(nxt, hops + 1, last if only_min else dim, sw + [nxt])

        walk(src, 0, -1, [src])
        return out

    def _choose_vdal(self, state: list, at: int, queue, u32):
        """``routeVDAL``: weigh each candidate by ``q(port, next VC)``, ``2 q + 1`` when
        non-minimal; the lowest weights tie and one is drawn (``rng % count``, router
        ``at``'s generator); ``routeMINA`` (no draw, the lowest dimension on a tie) when
        only minimal links are left.  Hop ``h`` on VC ``h``."""
        d, last, hops = state
        ent = self.entry_of
        only_min, opts = self._vdal_options(at, d, hops, last)
        best, picks = None, []
        for nxt, dim, minimal in opts:
            q = queue(ent[at, nxt], hops)
            w = q if minimal else 2 * q + 1
            if only_min:
                if best is None or w < best:
                    best, picks = w, [(nxt, dim)]
            elif best is None or w < best:
                best, picks = w, [(nxt, dim)]
            elif w == best:
                picks.append((nxt, dim))
        nxt, dim = picks[0] if only_min else picks[u32() % len(picks)]
        if not only_min:
            state[1] = dim
        state[2] = hops + 1
        return [nxt], [hops], nxt == d

    def choose(self, state: list, at: int, vc_in: int, queue, u32, space=None):
        d = state[0]
        ent = self.entry_of
        if self.rule == "VDAL":
            return self._choose_vdal(state, at, queue, u32)
        if self.rule == "MIN-A":
            return self._choose_mina(d, at, len(state) - 1, queue, state)
        best, pick = None, None
        for nxt, vc in self._options(at, d, vc_in):
            q = queue(ent[at, nxt], vc)
            w = q if vc == vc_in or vc_in == 1 else 2 * q + 1
            if best is None or w < best:
                best, pick = w, (nxt, vc)
        return [pick[0]], [pick[1]], pick[0] == d

    def _choose_mina(self, d: int, at: int, hops: int, queue, state: list):
        """``routeMINA``: the minimal link of every unaligned dimension, weighed by
        ``q(port, VC hops)`` (``hops`` links taken so far: the VC the packet came in on
        plus one, VC 0 from the source); the lowest wins, the lowest dimension on a tie;
        the hop runs on VC ``hops``."""
        a, b = self.loc(at), self.loc(d)
        ent = self.entry_of
        best, pick = None, None
        for i in range(len(a)):
            if a[i] != b[i]:
                nxt = at + (b[i] - a[i]) * self.strides[i]
                w = queue(ent[at, nxt], hops)
                if best is None or w < best:
                    best, pick = w, nxt
        state.append(pick)
        return [pick], [hops], pick == d


# ---------------------------------------------------------------------------- fat tree
class MerlinFattreeRouting(MerlinRouting):
    """merlin.fattree's ``adaptive`` (``fattree.cc`` ``route_packet``) on topogen's
    k-ary n-tree, one VC.

    merlin numbers a k-ary n-tree's routers from the leaves (level ``L = 0``) up; its router
    of level ``L`` with level id ``x`` is topogen's switch ``(n - 1 - L) k^(n-1) + x`` (the
    same position, topogen numbering from the roots), and its hosts are topogen's.  At
    such a switch (``pos`` its position) down port ``i`` goes to the child whose position
    has digit ``i`` at place ``k^(L-1)`` (a leaf's down ports are its hosts), up port
    ``j`` to the parent whose position has digit ``j`` at place ``k^L``: so
    ``route_deterministic`` (down when the destination host is under the switch, by digit
    ``(d / k^L) mod k``, else up port ``(d / k^L) mod k``, ``d`` the destination *host*)
    reads the same on topogen's tree.  ``adaptive`` keeps that up port unless its output
    buffer has less than ``adaptive_threshold`` (0.5) of its size free
    (``output_credits < thresholds``); then it takes the up port with the most free space,
    the natural one on a tie, else the first in port order.  Down routes are
    deterministic.  ``deterministic`` (``merlin-fattree-deterministic``) is
    ``route_deterministic`` alone: one route per host pair, fixed when the packet enters
    the network (:meth:`draw_path`, no draw), and :meth:`path_set` between two switches
    lists the routes to every host of the destination leaf (the deadlock check sees them
    all).
    """

    host_routes = True

    def __init__(self, topology, rule: str = "adaptive", *, seed=None, draws: str = "seed"):
        if rule not in FATTREE_RULES:
            raise ParameterError(f"merlin.fattree's routing must be one of {', '.join(FATTREE_RULES)}, got {rule!r}")
        if topology.name != "kary-ntree" or "k" not in topology.params:
            raise ParameterError(f"merlin.fattree's {rule} routing needs a kary-ntree topology, got "
                                 f"{topology.name!r}; build one with `topogen generate kary-ntree`")
        k, n = int(topology.params["k"]), int(topology.params["n"])
        if n < 2:
            raise ParameterError(f"merlin.fattree needs at least two levels, got n={n}")
        params = {"as": f"SST merlin.fattree {rule}", "vc_rule": "one VC"}
        if rule == "adaptive":
            params["threshold"] = FATTREE_THRESHOLD
        super().__init__(topology, algorithm=f"merlin-fattree-{rule}", params=params,
                         num_vcs=1, seed=seed, draws=draws)
        self.rule = rule
        self.run_time_choices = rule == "adaptive"
        self.k, self.n = k, n
        self.per_level = k ** (n - 1)

    def _where(self, v: int) -> tuple:
        """(merlin level ``L``, position) of switch ``v``."""
        return self.n - 1 - v // self.per_level, v % self.per_level

    def covers(self, v: int, host: int) -> bool:
        """Whether ``host`` is under switch ``v`` (merlin's ``low_host .. high_host``)."""
        L, pos = self._where(v)
        return pos // self.k ** L == host // self.k ** (L + 1)

    def up(self, v: int, j: int) -> int:
        """The switch on up port ``j`` of ``v``."""
        L, pos = self._where(v)
        w = self.k ** L
        return (v // self.per_level - 1) * self.per_level + pos + (j - (pos // w) % self.k) * w

    def down(self, v: int, host: int) -> int:
        """The child of ``v`` toward ``host`` (``v`` not a leaf)."""
        L, pos = self._where(v)
        w = self.k ** (L - 1)
        i = (host // self.k ** L) % self.k
        return (v // self.per_level + 1) * self.per_level + pos + (i - (pos // w) % self.k) * w

    def natural(self, v: int, host: int) -> int:
        """``route_deterministic``'s up port at ``v`` toward ``host``."""
        return (host // self.k ** self._where(v)[0]) % self.k

    def _host(self, sw: int) -> int:
        """The first host of leaf switch ``sw`` (switch-level calls)."""
        return self._where(sw)[1] * self.k

    def _walk(self, v: int, host: int, ups) -> list:
        """The switches from ``v`` to ``host``'s leaf, taking up ports ``ups`` in turn."""
        out, it = [v], iter(ups)
        while not self.covers(out[-1], host):
            out.append(self.up(out[-1], next(it)))
        while self._where(out[-1])[0] > 0:
            out.append(self.down(out[-1], host))
        return out

    def draw_path(self, src: int, dst: int, u32) -> tuple:
        """``route_deterministic``'s route between hosts ``src`` and ``dst`` (``adaptive``:
        the empty network's); no draw."""
        return self._det(src, dst)

    def _det(self, src: int, dst: int) -> tuple:
        hs = self._host_switch()
        v = hs[src]
        sw = [v]
        while not self.covers(sw[-1], dst):
            sw.append(self.up(sw[-1], self.natural(sw[-1], dst)))
        while self._where(sw[-1])[0] > 0:
            sw.append(self.down(sw[-1], dst))
        return sw, [0] * (len(sw) - 1)

    def _host_switch(self) -> list:
        hs = getattr(self, "_hs", None)
        if hs is None:
            import numpy as _np

            hosts = _np.asarray(self.topology.hosts)
            hs = self._hs = _np.repeat(_np.arange(len(hosts)), hosts).tolist()
        return hs

    def path(self, src: int, dst: int, rng=None):
        """The empty network's route between switches ``src`` and ``dst`` (toward the
        first host of ``dst``); see :meth:`MerlinRouting.path`."""
        if rng is not None:
            return super().path(src, dst, rng)
        src, dst = self._pair(src, dst)
        if src == dst:
            return np.asarray([src], dtype=np.int32), np.zeros(0, dtype=np.int16)
        sw, vcs = self._det(self._host(src), self._host(dst))
        return np.asarray(sw, dtype=np.int32), np.asarray(vcs, dtype=np.int16)

    def path_set(self, src: int, dst: int) -> list:
        src, dst = self._pair(src, dst)
        if src == dst:
            return [([src], [])]
        if self.rule == "deterministic":  # one route per host of dst (none above the leaves)
            out = []
            if self._where(dst)[0] > 0:
                return out
            first = self._host(dst)
            for h in range(first, first + int(self.topology.hosts[dst])):
                sw = [src]
                while not self.covers(sw[-1], h):
                    sw.append(self.up(sw[-1], self.natural(sw[-1], h)))
                while self._where(sw[-1])[0] > 0:
                    sw.append(self.down(sw[-1], h))
                if all(sw != p for p, _ in out):
                    out.append((sw, [0] * (len(sw) - 1)))
            return out
        host = self._host(dst)
        hops = 0
        v = src
        while not self.covers(v, host):
            v, hops = self.up(v, 0), hops + 1
        out = []
        for ups in itertools.product(range(self.k), repeat=hops):
            sw = self._walk(src, host, ups)
            out.append((sw, [0] * (len(sw) - 1)))
        return out

    def start(self, src: int, dst: int, u32) -> list:
        return [dst]

    def choose(self, state: list, at: int, vc_in: int, queue, u32, space=None):
        """One hop at ``at`` toward host ``state[0]`` (module and class docs)."""
        d = state[0]
        if self.covers(at, d):  # down: deterministic to the leaf
            sw = [at]
            while self._where(sw[-1])[0] > 0:
                sw.append(self.down(sw[-1], d))
            return sw[1:], [0] * (len(sw) - 1), True
        ent = self.entry_of
        j0 = self.natural(at, d)
        best = space(ent[at, self.up(at, j0)], 0)
        pick = j0
        if best < int(space.size * FATTREE_THRESHOLD):  # space.size: the output buffer's flits
            for j in range(self.k):
                c = space(ent[at, self.up(at, j)], 0)
                if c > best:
                    best, pick = c, j
        return [self.up(at, pick)], [0], False


# ---------------------------------------------------------------------------- constructors
def merlin_dragonfly(topology, rule: str = "valiant", *, seed=None, bias: int = UGAL_BIAS,
                     draws: str = "seed") -> MerlinDragonflyRouting:
    """SST merlin.dragonfly's ``valiant`` or ``ugal`` on topogen's dragonfly (module docs);
    ``draws`` as :data:`MERLIN_DRAWS` describes.

    Raises
    ------
    ParameterError
        Not a dragonfly with one global link between every pair of groups and at least
        3 groups, or another rule.
    """
    return MerlinDragonflyRouting(topology, rule, seed=seed, bias=bias, draws=draws)


#: merlin.hyperx's ``algorithm`` values written here
HYPERX_RULES = ("valiant", "DOAL", "MIN-A", "VDAL")


def merlin_hyperx(topology, rule: str = "valiant", *, seed=None, draws: str = "seed") -> MerlinHyperxRouting:
    """SST merlin.hyperx's ``valiant`` or ``DOAL`` on topogen's hyperx (module docs);
    ``draws`` as :data:`MERLIN_DRAWS` describes."""
    return MerlinHyperxRouting(topology, rule, seed=seed, draws=draws)


def merlin_routing(topology, name: str, *, seed=None, num_vcs=None, draws: str = "seed",
                   bias: int | None = None) -> MerlinRouting:
    """The routing of :data:`MERLIN_ROUTINGS` called ``name`` (``bias``: the dragonfly's,
    default :data:`UGAL_BIAS`)."""
    if name not in MERLIN_ROUTINGS:
        raise ParameterError(f"merlin routing must be one of {', '.join(MERLIN_ROUTINGS)}, got {name!r}")
    family, rule = MERLIN_ROUTINGS[name]
    if family == "fattree":
        r = MerlinFattreeRouting(topology, rule, seed=seed, draws=draws)
    elif family == "dragonfly":
        r = merlin_dragonfly(topology, rule, seed=seed, draws=draws, bias=UGAL_BIAS if bias is None else bias)
    else:
        r = merlin_hyperx(topology, rule, seed=seed, draws=draws)
    if num_vcs not in (None, r.num_vcs):
        raise ParameterError(f"{name} uses exactly {r.num_vcs} VCs, as merlin declares them; got vcs={num_vcs}")
    return r
