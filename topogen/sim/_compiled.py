"""The compiled engine of the reference simulator: :class:`CompiledEngine`, the Python side
of :mod:`topogen.sim._core` (arrays, growth, routes, traffic callbacks, delivery records).

It runs the same model as the pure-Python :class:`~topogen.sim.model.Engine`, event for
event, and gives the same results for the same seed (tests compare them row for row).  It
covers deterministic and random table routings with both allocators, UGAL-L / UGAL-G, the
escape routing (adaptive minimal with an up*/down* escape VC, routed hop by hop in the
event core; its engine has no separable allocator) and ANCA on a k-ary n-tree (both
allocators), and ``internal_speedup`` allocation rounds (``speedup_model="rounds"``) with
the separable allocator for all but the escape routing; other routers and wormhole flow
control run on the Python engine (:func:`engine_for` chooses).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .._validate import check_memory
from ..errors import ParameterError
from . import _core as C
from . import _anca as _anca_mod
from . import _ugal as _ugal_mod
from ._allocator import round_offsets
from ._core_knots import deadlocked_buffers as _deadlocked_buffers

__all__ = ["CompiledEngine", "engine_for", "compiled_covers"]

#: a delivered packet as given to a per-packet ``on_deliver(pkt, tail)`` callback
Delivered = namedtuple("Delivered", "pid src dst ctime sent links measured")


def _packed_escape(network):
    """The DOR escape table for the compiled engine: ``rank + rb * (VC + 2 * next state)``
    in the ranks' own type, ``rb`` a quarter of its range (the sentinel stays the type's
    maximum); None when a rank does not fit (:func:`compiled_covers` says so)."""
    ranks = np.asarray(network._esc_ranks)
    sent = int(network._esc_sentinel)
    rb = (sent + 1) // 4
    here = ranks == sent
    if int(np.where(here, 0, ranks).max()) > rb - 2:
        return None
    packed = ranks.astype(np.int64) + rb * (network._esc_vc.astype(np.int64) + 2 * network._esc_next)
    return np.where(here, sent, packed).astype(ranks.dtype)


#: the type of the escape routing's minimal distances in the event core (``State.mdist``):
#: one type for hop counts (NR tables keep them as uint16) and picoseconds (FR, int64), so
#: the core compiled for one serves the other (numba compiles the whole event loop, ~20 s
#: of CPU, once per type of every array it takes)
MDIST_DTYPE = np.uint32
#: distance tables up to this many bytes as :data:`MDIST_DTYPE` are copied into it; a larger
#: one (over 8,192 switches) keeps its own type and compiles a core of its own rather than
#: double the memory it takes
MDIST_COPY_BYTES = 1 << 28


def _core_distances(dist) -> np.ndarray:
    """``dist`` (``[dst, v]``, hops or integer picoseconds) as the event core takes it:
    :data:`MDIST_DTYPE` where every value fits and the copy is small
    (:data:`MDIST_COPY_BYTES`), else unchanged (the values are the same either way)."""
    dist = np.asarray(dist)
    if dist.dtype == MDIST_DTYPE:
        return dist
    target = np.dtype(MDIST_DTYPE)
    if dist.size * target.itemsize > MDIST_COPY_BYTES or dist.size == 0:
        return dist
    if int(dist.min()) < 0 or int(dist.max()) > np.iinfo(target).max:
        return dist
    return dist.astype(target)


def compiled_covers(network) -> str | None:
    """``None`` when the compiled engine covers ``network``, else why it does not."""
    if not C.AVAILABLE:
        return "numba is not available"
    if network.adaptive and (getattr(network.routing, "adaptive", "minimal") == "minimal"
                             and (network._min_dist is None or network._min_weight is None)):
        return ("the escape routing's minimal tables carry no distances (one next hop per "
                "pair): its options are taken by the Python engine")
    if network.adaptive and network.num_ports * 4 >= 1 << 31:
        return "the escape routing's options hold 4 x the port id in int32: 2**29 ports or more"
    if network.adaptive and getattr(network.routing, "escape_paths", "updown") == "dor" and \
            _packed_escape(network) is None:
        return "a switch with more links than the compiled engine's packed DOR escape table holds"
    if getattr(network, "ffly", False):
        return f"{network.routing.algorithm} (BookSim's choice from used credits) runs on the Python engine"
    if network.ugal and network.routing.variant not in ("local", "global"):
        return f"UGAL variant {network.routing.variant!r} (its own choice rule) runs on the Python engine"
    if network.config.router != "input-queued":
        return f"the {network.config.router} router runs on the Python engine"
    if network.config.flow_control == "wormhole":
        return "wormhole flow control (flit level) runs on the Python engine"
    if network.config.speedup_rounds:
        why = _rounds_uncovered(network)
        if why:
            return why
    if network.num_ports * network.config.num_vcs >= 1 << 31:
        return "the network has 2**31 buffers or more (the compiled engine numbers them in int32)"
    return None


def _rounds_uncovered(network) -> str | None:
    """Why the compiled engine does not run ``network``'s allocation rounds
    (``internal_speedup > 1``, ``speedup_model="rounds"``), ``None`` when it does: table
    routings (deterministic or drawn per packet), UGAL-L / UGAL-G and ANCA with the separable
    allocator."""
    c = network.config
    what = None
    if c.allocator != "separable":
        what = f"the {c.allocator} allocator"
    elif network.adaptive:
        what = "the escape routing"
    if what is None:
        return None
    return (f"internal_speedup > 1 with speedup_model='rounds' (allocation rounds) and {what} "
            "runs on the Python engine; speedup_model='pipeline' runs compiled")


def engine_for(network, rng):
    """The engine ``network.config.engine`` asks for: ``compiled`` when it covers the
    routing (else the Python engine, with the reason in ``engine.fallback``)."""
    from .model import Engine

    why = None
    if network.config.engine in ("compiled", "auto"):  # auto outside simulate(): compiled
        why = compiled_covers(network)
        if why is None:
            return CompiledEngine(network, rng)
    if network.config.router == "output-buffered":
        from ._obuf import OutputBufferedEngine as Engine

        if getattr(network.routing, "merlin_engine", False):  # SST merlin's draws and run-time choices
            from ._obuf_adaptive import MerlinChoiceEngine as Engine
    elif network.config.flow_control == "wormhole":
        from ._wormhole import WormholeEngine as Engine
    eng = Engine(network, rng)
    eng.fallback = why
    return eng


#: last cycle the compiled engine simulates (port and buffer times are int32)
_MAX_CYCLE = (1 << 31) - (1 << 26)


#: prefetching on (the rows of the next block of events), and the size of the port and
#: buffer tables (bytes) from which the engine prefetches
_PF_DIST, _PF_BYTES = C.EVB, 2 << 20
#: each cycle's switch allocations in switch order where that gives the same results
#: (:meth:`CompiledEngine._sort_ok`)
_SORT_LATE = True
#: packets routed at a time by :meth:`CompiledEngine.inject_many`
_CHUNK = 16384
_UGAL_DRAWS = _ugal_mod._DRAWS
_ANCA_DRAWS = _anca_mod._DRAWS


def _aligned(shape, dtype, fill=0) -> np.ndarray:
    """A C-contiguous array filled with ``fill`` that starts on a 64-byte cache line (a
    row of 64 bytes is then one line, not two); zeros are the system's (pages never
    written stay unallocated)."""
    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dt.itemsize
    raw = (np.zeros if fill == 0 else np.empty)(nbytes + 64, np.uint8)
    off = -raw.ctypes.data % 64
    out = raw[off:off + nbytes].view(dt).reshape(shape)
    if fill != 0:
        out.fill(fill)
    return out


def _pad(k: int, itemsize: int) -> int:
    """Columns for rows of ``k`` items: a power of two of bytes up to 64, whole cache
    lines beyond."""
    b = k * itemsize
    b = _pow2(b) if b <= 64 else -(-b // 64) * 64
    return b // itemsize


def _rows(a: np.ndarray) -> np.ndarray:
    """``a`` (one row per port, buffer ...) on cache-line aligned rows of a power of two
    of bytes (padding columns at the end)."""
    out = _aligned((a.shape[0], _pad(a.shape[1], a.itemsize)), a.dtype)
    out[:, :a.shape[1]] = a
    return out


def _pow2(x: int) -> int:
    return 1 << max(int(x) - 1, 1).bit_length()


class CompiledEngine:
    """The event loop of :mod:`topogen.sim._core` with the interface of
    :class:`~topogen.sim.model.Engine` that :mod:`topogen.sim.measure` uses.

    Parameters
    ----------
    network : Network
    rng : numpy.random.Generator
        For random routings (drawn when packets are injected, in injection order: the
        order in which the Python engine draws them when it creates the packets).
    """

    engine_name = "compiled"
    fallback = None

    def __init__(self, network, rng):
        self.net = network
        self.rng = rng
        c = network.config
        V, S = c.num_vcs, c.packet_size
        self.V, self.S = V, S
        P = network.num_ports
        n = network.num_switches
        H = network.num_hosts
        M = network.num_links
        lat = np.asarray(network.latency, dtype=np.int64)
        slack = S + c.router_delay + int(lat.max()) + c.credit_delay
        self.deadlock_cycles = max(int(c.deadlock_cycles), 4 * slack)
        indptr = np.asarray(network.indptr, dtype=np.int64)
        hosts = np.diff(np.append(network.host_offset, H)).astype(np.int64)
        K = int((hosts + np.diff(indptr)).max())  # ports of the largest switch
        # the per-switch allocation tables grow with the square of the largest switch's ports:
        # refuse what the machine cannot hold before allocating (a switch with 62,500 hosts
        # would ask for ~90 GiB)
        check_memory(f"the simulator's allocation tables for a switch of {K:,} ports",
                     6 * 8 * float(K) * K + 16 * float(K) * V * n,
                     "; attach fewer hosts per switch (hosts_per_switch) or simulate a smaller network")
        longest = (S + c.crossbar_cycles + int(lat.max()) + c.router_delay + c.rearm_cycles
                   + c.credit_delay + c.injection_overhead + 2)
        rounds = bool(c.speedup_rounds)
        rnum, rden = c.speedup_fraction if rounds else (1, 1)
        nrmax = -(-rnum // rden) if rounds else 1
        if rounds:  # a packet may wait in its output's queue (at most a port's buffers or a
            # host's ej_room ahead of it), a credit on its input's credit channel
            longest += 2 * V * c.vc_buf_size + 2 * S
        # (rounds are numbered in int32 rows: the last cycle is smaller by the speedup)
        self._max_cycle = _MAX_CYCLE * rden // rnum if rounds else _MAX_CYCLE
        W = _pow2(longest + 2 * 256 + 2)
        self._W = W
        cf = np.zeros(C.NUM_CF, dtype=np.int64)
        cf[[C.C_V, C.C_S, C.C_D, C.C_G, C.C_OVH, C.C_CD, C.C_SX]] = [
            V, S, c.router_delay, c.rearm_cycles, c.injection_overhead, c.credit_delay,
            c.crossbar_cycles]
        cf[C.C_SPEEDUP] = int(c.crossbar_cycles != S and not rounds)
        if rounds:
            cf[[C.C_ROUNDS, C.C_RNUM, C.C_RDEN, C.C_RDELAY, C.C_EJROOM]] = [
                nrmax, rnum, rden, c.routing_delay, V * c.vc_buf_size]
        cf[C.C_KCLS] = network.vcs_per_class
        # Valiant / UGAL with vc_ranges: the routing's classes (each hop on a block of them)
        cf[C.C_VRC] = network.routing.num_vcs if getattr(network.routing, "vc_ranges", False) else 0
        cf[C.C_INJBUF0] = network.inj_base * V
        cf[C.C_EJ], cf[C.C_INJ] = network.ej_base, network.inj_base
        cf[C.C_DL] = self.deadlock_cycles
        # (the escape routing runs without the separable allocator, UGAL without the VC
        # allocation stage, as on the Python engine)
        cf[C.C_SEP] = int(c.allocator == "separable" and not network.adaptive)
        cf[C.C_VCA] = int(c.allocator == "separable" and c.vc_alloc == "booksim"
                          and not network.ugal and not network.adaptive)
        cf[C.C_MASK], cf[C.C_W] = W - 1, W
        # (event blocks one event may take; an allocation with rounds sends up to a round's worth per round)
        cf[C.C_MARGIN] = 8 * (K + 2) * nrmax + 8
        cf[C.C_K] = K
        # prefetch when the port and buffer tables outgrow a core's caches (at 256
        # switches they fit and the look-ahead costs a few percent)
        cf[C.C_PF] = _PF_DIST if 16 * 4 * P * (1 + V / 4) > _PF_BYTES else 0
        # (not with UGAL: a choice reads the queues of other switches, so the order of the
        # events that change them within a cycle matters)
        # (nor with ANCA, whose choices draw from one sequence in event order)
        # (nor with allocation rounds: the Python engine's order, released VCs one event each)
        self._sort = (self._sort_ok(c, int(lat.min()), bool(cf[C.C_VCA])) and not network.ugal
                      and not network.anca and not network.adaptive and not rounds)
        sc = np.zeros(C.NUM_SC, dtype=np.int64)
        sc[C.MEAS_TO] = 1 << 62
        # port numbering of every switch (config.port_order; BookSim anynet's by default)
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        out_local, in_local = network.local_ports()
        i64 = lambda k, v=0: np.full(k, v, dtype=np.int64)  # noqa: E731
        nb = P * V
        # one row per port (buffer, host, switch), one column per field
        # (int32 for ports, buffers, hosts and switches: half the cache lines; cycles stay
        # below 2**31 (_MAX_CYCLE), packet ids are kept modulo 2**32 (_pids))
        rows = lambda g, dt=np.int64, **kw: _rows(  # noqa: E731
            np.stack([kw[n] for n in C.GROUPS[g]], axis=1).astype(dt))
        st = dict(
            sc=sc, cf=cf,
            pt=rows("pt", np.int32, busy=i64(P), port_flits=i64(P), in_busy=i64(P), iwake=i64(P, -1),
                    in_ptr=i64(P), out_ptr=i64(P), vc_ptr=i64(P), w_head=i64(P, -1),
                    w_tail=i64(P, -1), in_slot=i64(P, -1), out_slot=i64(P, -1), wake=i64(P),
                    lat=lat,
                    out_local=out_local, in_local=in_local,
                    out_switch=np.concatenate([src, network.host_switch, i64(H, -1)])),
            # a buffer as an input buffer (bf) and as an output VC (ob): 16 bytes each, and
            # the V output VCs of a port (scanned together) in one cache line when V <= 4
            bf=rows("bf", np.int32, buf_head=i64(nb, -1), buf_tail=i64(nb, -1), front_free=i64(nb),
                    va_iptr=i64(nb)),
            ob=rows("ob", np.int32, credits=i64(nb, c.vc_buf_size), owner=i64(nb, -1),
                    va_optr=i64(nb), free_at=i64(nb, C.FREE_NEVER)),
            vk=np.stack([i64(K * V, -1), i64(K * V)], axis=1),
            # requests of every switch (at most one per input buffer: K * V), 32 bytes each,
            # a switch's together (its allocation reads them in order, two to a line)
            vq=_aligned((K * V * n, _pad(C.VQ_IK + 1, 4)), np.int32),
            hs=rows("hs", np.int32, q_head=i64(H, -1), q_tail=i64(H, -1), src_free=i64(H),
                    inj_last=i64(H, -1)),
            sw=rows("sw", np.int32, sw_l0=indptr[:-1], sw_l1=indptr[1:],
                    sw_h0=M + np.asarray(network.host_offset, dtype=np.int64),
                    sw_h1=M + np.asarray(network.host_offset, dtype=np.int64) + hosts,
                    alloc_at=i64(n, -1), va_n=i64(n), chk_at=i64(n, -1)),
            ev=np.full((3 * W, 4), -1, np.int64),  # ordinary, late and cycle lists
            sl=np.zeros((3, K, K), np.int64), ch=np.zeros((3, K, K), np.int64),
            sv=np.zeros((4, K), np.int64), held=i64(nrmax * (K * V + 1)), sq=np.zeros((3, K + 1), np.int64),
            pend=np.zeros(P, np.int8),
            srt=np.zeros(n, np.int32),  # switch order of the allocations: a count per switch
            gq=i64(K * V + 1),  # heads granted an output VC by one allocation
            # allocation rounds: round_offsets, and the port rows (C.RP_BJ ...)
            roff=np.asarray(round_offsets(c) if rounds else [0], np.int64),
            rp=np.zeros((P if rounds else 1, 4), np.int64),
        )
        st.update(self._ugal_state(network, cf, sc))
        st["dsw"] = np.concatenate([np.asarray(network.indices, np.int32), i64(H, -1).astype(np.int32),
                                    np.asarray(network.host_switch, np.int32)])
        st["eptr"] = indptr
        st["eind"] = np.asarray(network.indices, np.int32)
        st.update(self._escape_state(network, cf))
        st.update(self._anca_state(network, cf, sc))
        self._draws = _ANCA_DRAWS if network.anca else _UGAL_DRAWS
        self._st = st
        self._width = (2 * (network.routing.longest + 1) if network.ugal else
                       2 * network.routing.shape.n + 2 if network.anca else 2)
        self._grow_slots(1024)
        self._grow_nodes(4 * int(cf[C.C_MARGIN]) + P // 2)
        self._grow_log(max(4096, 4 * (K + 1)))
        self._grow_gen(1024, self._width)
        self._state = None
        self._callbacks: dict[int, object] = {}
        self._next_cb = 0
        self.record = False
        from .model import Delivery

        self.log = Delivery()
        self.on_deliver = None  # callable(pkt, tail), pkt a Delivered record
        self.on_deliver_arrays = None  # callable(ctime, sent, tail, links, measured)
        self._last_gen_time = 0

    # ------------------------------------------------------------ UGAL
    @staticmethod
    def _ugal_state(network, cf, sc) -> dict:
        """The arrays of the UGAL choice (:mod:`topogen.sim._core`, ``State.ur ...``);
        empty ones for other routings."""
        if not network.ugal:
            return dict(ur=np.zeros((1, 1, 1), np.uint16), ui=np.zeros(1, np.int64),
                        uj=np.zeros(1, np.int32), uph=np.zeros(1, np.int8),
                        ud=np.zeros(1), ub=np.zeros((2, 1), np.int64), uc=np.zeros(1, np.int64))
        r = network.routing
        base = r.base
        ranks = np.asarray(base.ranks)
        if ranks.dtype != np.uint16:
            check_memory("the UGAL base table as 16-bit ranks", 2.0 * ranks.size,
                         "; simulate UGAL on a smaller network")
            if int(ranks[ranks != base.sentinel].max(initial=0)) >= C.UR_NONE:
                raise ParameterError("the UGAL base routing has switches of 65,535 links or more; "
                                     "the compiled engine cannot run it, use engine='python'")
            r16 = ranks.astype(np.uint16)
            r16[ranks == base.sentinel] = C.UR_NONE
            ranks = r16
        cf[C.C_UGAL] = 2 if r.variant == "global" else 1
        cf[C.C_UK] = r.k
        cf[C.C_UFULL] = network.config.num_vcs * network.config.vc_buf_size
        cf[C.C_UOWN] = network.config.packet_size if r.count_packet else 0
        cf[C.C_UTHR] = r.threshold
        sc[C.UD_N] = 0
        view = base.view
        return dict(ur=ranks, ui=np.asarray(view.indptr, np.int64),
                    uj=np.asarray(view.indices, np.int32),
                    uph=np.asarray(base.entry_phase, np.int8),
                    ud=np.zeros(_UGAL_DRAWS + r.k),
                    ub=np.zeros((2, 2 * r.longest), np.int64),
                    uc=np.zeros(r.k + 1, np.int64))

    def _ugal_draw(self) -> None:
        """Fetch the next uniform draws of the UGAL (or ANCA) choice from the generator,
        at the moment the Python engine fetches them (the draws left are used first)."""
        st = self._st
        ud, sc = st["ud"], st["sc"]
        n = self._draws
        r = int(sc[C.UD_N])
        ud[n:n + r] = ud[:r].copy()
        ud[:n] = self.rng.random(n)
        sc[C.UD_N] = n + r

    # ------------------------------------------------------------ escape routing, ANCA
    @staticmethod
    def _escape_state(network, cf) -> dict:
        """The arrays of the escape routing's hop-by-hop choice (:mod:`topogen.sim._core`,
        ``State.mdist ...``); empty ones for other routings."""
        one = lambda dt: np.zeros(1, dt)  # noqa: E731
        out = dict(mdist=np.zeros((1, 1), MDIST_DTYPE), mw=one(np.int64), ldist=np.zeros((1, 2), np.int64),
                   lw=one(np.int64), eph=one(np.int8), erank=np.zeros((1, 1, 1), np.uint8))
        cf[C.C_WMAX] = 1
        if not network.adaptive:
            return out
        r = network.routing
        updown = getattr(r, "adaptive", "minimal") == "updown"
        dor = getattr(r, "escape_paths", "updown") == "dor"
        cf[C.C_ESC] = 2 if updown else (3 if dor else 1)
        cf[C.C_ERET] = int(network.escape_return)
        cf[C.C_EA0], cf[C.C_EA1] = network.adaptive_vcs
        cf[C.C_ESENT] = int(network._esc_sentinel)
        # wait ports of a packet: its options' (at most the switch's links) and the escape's
        cf[C.C_WMAX] = int(np.diff(np.asarray(network.indptr)).max()) + 1
        esc = r.escape_routing
        out.update(eph=np.asarray(esc.entry_phase, np.int8), erank=np.asarray(network._esc_ranks))
        if dor:  # escape VC and next state by table, packed above the rank (_core._esc_options)
            out["erank"] = _packed_escape(network)
        if updown:
            out.update(ldist=np.asarray(r.legal_distances()), lw=np.asarray(r._legal_weights(), np.int64))
        else:
            out.update(mdist=_core_distances(network._min_dist), mw=np.asarray(network._min_weight, np.int64))
        return out

    @staticmethod
    def _anca_state(network, cf, sc) -> dict:
        """The arrays of the ANCA choice (``State.aspan``, ``aweight``; draws in ``ud``)."""
        if not network.anca:
            return dict(aspan=np.ones(1, np.int64), aweight=np.ones(1, np.int64))
        r = network.routing
        sh = r.shape
        cf[C.C_ANCA] = 2 if r.select == "booksim" else 1
        cf[C.C_AK], cf[C.C_APL], cf[C.C_ALEAF0] = sh.k, sh.per_level, sh.leaf0
        cf[C.C_AN1] = len(sh.span) - 1
        sc[C.UD_N] = 0
        return dict(aspan=np.asarray(sh.span, np.int64), aweight=np.asarray(sh.weight, np.int64),
                    ud=np.zeros(_ANCA_DRAWS + 2))

    @property
    def ugal_choices(self) -> list:
        """Packets that took MIN, VAL 1, ... (as the Python engine's ``ugal_choices``)."""
        return self._st["uc"].tolist()

    # ------------------------------------------------------------ arrays
    def _tuple(self):
        if self._state is None:
            self._state = C.State(**self._st)
        return self._state

    def _grow_slots(self, cap: int) -> None:
        st = self._st
        old = st["pk"].shape[0] if "pk" in st else 0
        w = self._width
        # a packet's fields of every hop in one cache line, its route (the first buffer of
        # each hop, port * V + first VC) in whole or half lines, the rest apart
        pk = _aligned((cap, _pad(len(C.GROUPS["pk"]), 4)), np.int32)
        pc = _aligned((cap, _pad(len(C.GROUPS["pc"]), 4)), np.int32)
        r = _aligned((cap, _pad(w, 4)), np.int32, -1)
        # escape routing: each packet's option / wait ports and wait nodes (prev, next)
        wm = int(st["cf"][C.C_WMAX]) if self.net.adaptive else 0
        ao = np.zeros((cap if wm else 1, max(wm, 1)), np.int32)
        wn = np.zeros((cap * wm if wm else 1, 2), np.int32)
        nfree = int(st["sc"][C.NFREE_SLOTS])
        fs = np.zeros(cap, np.int64)
        if old:
            pk[:old] = st["pk"]
            pc[:old] = st["pc"]
            r[:old, :st["p_route"].shape[1]] = st["p_route"]
            fs[:nfree] = st["free_slots"][:nfree]
            if wm:
                ao[:old] = st["ao"]
                wn[:old * wm] = st["wn"]
        new = np.arange(cap - 1, old - 1, -1, dtype=np.int64)
        fs[nfree:nfree + len(new)] = new
        st.update(pk=pk, pc=pc, p_route=r, free_slots=fs, ao=ao, wn=wn)
        st["sc"][C.NFREE_SLOTS] = nfree + len(new)
        self._state = None

    def _grow_nodes(self, cap: int) -> None:
        st = self._st
        old = st["nd"].shape[0] if "nd" in st else 0
        nd = _aligned((cap, C.EV0 + 2 * C.EVB), np.int32)  # a block of events: one cache line
        nfree = int(st["sc"][C.NFREE_NODES])
        fn = np.zeros(cap, np.int64)
        if old:
            nd[:old] = st["nd"]
            fn[:nfree] = st["free_nodes"][:nfree]
        new = np.arange(cap - 1, old - 1, -1, dtype=np.int64)
        fn[nfree:nfree + len(new)] = new
        st.update(nd=nd, free_nodes=fn)
        st["sc"][C.NFREE_NODES] = nfree + len(new)
        self._state = None

    def _grow_log(self, cap: int) -> None:
        self._st["lg"] = np.zeros((len(C.GROUPS["lg"]), cap), np.int64)
        self._state = None

    def _grow_gen(self, cap: int, width: int) -> None:
        """Staging arrays of room ``cap`` and route width ``width``, keeping the packets
        not created yet (moved to the front)."""
        st = self._st
        sc = st["sc"]
        h, n = (int(sc[C.GEN_HEAD]), int(sc[C.GEN_N])) if "gi" in st else (0, 0)
        k = n - h
        # (int32 as the packet rows they fill: cycles below _MAX_CYCLE, hosts, links; a
        # traffic block of a large network stages ~10**6 packets, streamed through the
        # caches the event core's rows share)
        gi = np.zeros((4, cap), np.int32)
        gr = np.full((cap, width), -1, np.int32)
        if k:
            gi[:, :k] = st["gi"][:, h:n]
            w0 = st["g_route"].shape[1]
            gr[:k, :w0] = st["g_route"][h:n]
        st.update(gi=gi, g_route=gr)
        sc[C.GEN_HEAD], sc[C.GEN_N] = 0, k
        if width > self._width:
            self._width = width
            self._grow_slots(st["pk"].shape[0])  # widens the route arrays
        self._state = None

    @staticmethod
    def _sort_ok(c, min_lat: int, vca: bool) -> bool:
        """Whether running each cycle's switch allocations in switch order gives the same
        results: they touch disjoint state unless a packet sent by one reaches another
        switch's pipeline in the same cycle (``latency + router_delay`` cycles after it
        left, one cycle earlier with the VC allocation stage)."""
        return c.allocator == "separable" and min_lat + c.router_delay - int(vca) >= 1

    # ------------------------------------------------------------ packets
    def inject(self, t: int, src: int, dst: int) -> None:
        """Schedule the creation of one packet at cycle ``t`` (in time order)."""
        self.inject_many(np.asarray([t]), np.asarray([src]), np.asarray([dst]))

    def inject_many(self, times, src, dst) -> None:
        """Schedule the creation of packets ``(times[i], src[i], dst[i])`` (times
        non-decreasing, at or after ``now`` and the last injected packet); their routes
        are chosen now, in this order."""
        times = np.asarray(times, dtype=np.int64)
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        m = len(times)
        if not m:
            return
        first = max(self._last_gen_time, self.now)
        if times[-1] > self._max_cycle:
            raise ParameterError(f"the compiled engine simulates up to cycle {self._max_cycle}, got a "
                                 f"packet at {int(times[-1])}; use engine='python'")
        if times[0] < first or np.any(np.diff(times) < 0):
            raise ParameterError(f"packets must be injected in time order (cycle {int(times.min())} "
                                 f"after {first})")
        net = self.net
        hs = net.host_switch
        st = self._st
        sc = st["sc"]
        self._gen_room(m)
        # in chunks: the temporaries of a chunk stay in the caches (a traffic block of a
        # large network creates ~10**6 packets)
        for i in range(0, m, _CHUNK):
            j = min(i + _CHUNK, m)
            links, first = self._routes(hs[src[i:j]], hs[dst[i:j]])
            k = j - i
            w = first.shape[1] + 2  # the host ports at both ends
            if w > st["g_route"].shape[1]:
                self._grow_gen(st["gi"].shape[1], w)
            n = int(sc[C.GEN_N])
            gi = st["gi"]
            gi[C.G_TIME, n:n + k] = times[i:j]
            gi[C.G_SRC, n:n + k] = src[i:j]
            gi[C.G_DST, n:n + k] = dst[i:j]
            gi[C.G_LINKS, n:n + k] = links
            # straight into the staging rows (no per-chunk route temporaries)
            gr = st["g_route"][n:n + k]
            gr[:, 0] = (net.inj_base + src[i:j]) * self.V
            gr[:, 1:w - 1] = first
            gr[:, w - 1:] = -1
            on = links >= 0  # (UGAL: the route is written when it is chosen)
            gr[np.flatnonzero(on), links[on] + 1] = (net.ej_base + dst[i:j][on]) * self.V
            sc[C.GEN_N] = n + k
        self._last_gen_time = int(times[-1])

    def _gen_room(self, m: int) -> None:
        """Room for ``m`` more packets in the staging arrays: the packets not created yet
        move to the front of the same arrays (new ones only when they do not fit: a fresh
        allocation of ~10**6 rows for every traffic block costs its page faults)."""
        st = self._st
        sc = st["sc"]
        h, n = int(sc[C.GEN_HEAD]), int(sc[C.GEN_N])
        k, cap = n - h, st["gi"].shape[1]
        if k + m > cap:
            self._grow_gen(max(2 * (k + m), 1024), self._width)
        elif n + m > cap:
            for name in ("gi", "g_route"):
                a = st[name]
                if name == "gi":
                    a[:, :k] = a[:, h:n].copy()
                else:
                    a[:k] = a[h:n].copy()
            sc[C.GEN_HEAD], sc[C.GEN_N] = 0, k

    def _routes(self, s, d):
        """Links and first buffer of each hop (``port * V + first VC``, one column per
        hop, ``-1`` past the end) of the routes from switches ``s`` to ``d``."""
        net = self.net
        m = len(s)
        V = self.V
        if net.ugal or net.anca:  # chosen in the run: -1 links until then
            return np.where(s == d, 0, -1), np.zeros((m, 0), np.int64)
        if net.adaptive:  # routed hop by hop in the run, links counted there
            return np.zeros(m, np.int64), np.zeros((m, 0), np.int64)
        if net._table:
            ent, vcs = net.routing.route_matrix(s, d)
            if not ent.shape[0]:
                return np.zeros(m, np.int64), np.zeros((m, 0), np.int32)
            ent, vcs = ent.T, vcs.T
            on = ent >= 0
            first = np.where(on, ent * V + vcs * net.vcs_per_class, -1)
            return on.sum(axis=1), first
        rts = [net.route(a, b, self.rng) for a, b in zip(s.tolist(), d.tolist())]
        links = np.fromiter((len(r[0]) for r in rts), dtype=np.int64, count=m)
        hops = int(links.max())
        first = np.full((m, hops), -1, np.int64)
        for i, (e, v) in enumerate(rts):
            if e:
                first[i, :len(e)] = np.asarray(e, np.int64) * V + np.asarray(v, np.int64)
        return links, first

    def schedule(self, t: int, callback) -> None:
        """Call ``callback(t)`` at cycle ``t`` (traffic generation blocks)."""
        if not 0 <= t - self.now < self._W - 1:
            raise ParameterError(f"the compiled engine schedules callbacks at most {self._W - 2} "
                                 f"cycles ahead (cycle {t} at {self.now})")
        self._need_nodes()
        key = self._next_cb
        self._next_cb += 1
        self._callbacks[key] = callback
        C.push(self._tuple(), int(t), C.K_BLOCK, key, False)

    def _need_nodes(self) -> None:
        st = self._st
        if st["sc"][C.NFREE_NODES] < st["cf"][C.C_MARGIN]:
            self._grow_nodes(2 * st["nd"].shape[0])

    # ------------------------------------------------------------ the loop
    def run(self, until, stop_when_idle: bool = False) -> None:
        """Process events with time < ``until``; stops early on a deadlock (as
        :meth:`topogen.sim.model.Engine.run`)."""
        st = self._st
        sc = st["sc"]
        lim = (1 << 62) if until == math.inf else int(until)
        # switch order may change the order of one cycle's deliveries: not when they are
        # recorded or given one by one
        st["cf"][C.C_SORT] = int(_SORT_LATE and self._sort and not self.record
                                 and (self.on_deliver is None or self.on_deliver_arrays is not None))
        while True:
            code = C.run(self._tuple(), lim)
            self._drain_log()
            if sc[C.NOW] > self._max_cycle:
                raise ParameterError(f"the compiled engine simulates up to cycle {self._max_cycle}; "
                                     f"use engine='python' for longer runs")
            if code == C.R_DONE:
                break
            if code == C.R_BLOCK:
                t = int(sc[C.NOW])
                cb = self._callbacks.pop(int(sc[C.BLOCK_ARG]))
                cb(t)
                if sc[C.IN_NET] and t - sc[C.LAST_MOVE] > self.deadlock_cycles:
                    sc[C.DEADLOCKED] = 1
                    return
            elif code == C.R_SLOTS:
                self._grow_slots(2 * st["pk"].shape[0])
            elif code == C.R_NODES:
                self._grow_nodes(2 * st["nd"].shape[0])
            elif code == C.R_LOG:
                pass  # drained above
            elif code == C.R_DRAWS:
                self._ugal_draw()
            elif code == C.R_ROUTE:
                from ..errors import RoutingError

                pid = int(self._pids(st['pc'][int(sc[C.BLOCK_ARG]), C.PC_PID])[()])
                if self.net.adaptive:
                    raise RoutingError(f"the escape routing has no next hop for packet {pid} "
                                       f"(no minimal next hop, or no up*/down* escape entry); "
                                       f"its tables do not route every pair of this network")
                raise RoutingError(f"the UGAL base routing has no route for packet {pid} (or one "
                                   f"longer than its longest route)")
            else:  # R_DEADLOCK
                return
        if not sc[C.EV_COUNT] and sc[C.GEN_HEAD] == sc[C.GEN_N] and sc[C.IN_NET]:
            sc[C.DEADLOCKED] = 1
            return
        if not stop_when_idle and until != math.inf:
            sc[C.NOW] = max(int(sc[C.NOW]), lim - 1)

    def _pids(self, stored) -> np.ndarray:
        """Packet ids from their int32 rows (``PC_PID``, ``L_PID``: the id modulo 2**32,
        sign-extended): every such packet was created less than 2**32 packets before the
        next id, so the id is the next id less the distance modulo 2**32."""
        nxt = np.int64(self._st["sc"][C.NEXT_PID])
        return nxt - ((nxt - np.asarray(stored, np.int64)) & np.int64(0xFFFFFFFF))

    def _drain_log(self) -> None:
        st = self._st
        sc = st["sc"]
        n = int(sc[C.LOG_N])
        if not n:
            return
        sc[C.LOG_N] = 0
        lg = st["lg"][:, :n].copy()
        ctime, sent, tail = lg[C.L_CTIME], lg[C.L_SENT], lg[C.L_TAIL]
        links, measured = lg[C.L_LINKS], lg[C.L_MEASURED].astype(bool)
        if self.record:
            lg = self.log
            st = self._st
            lg.pid.extend(self._pids(st["lg"][C.L_PID, :n]).tolist())
            lg.src.extend(st["lg"][C.L_SRC, :n].tolist())
            lg.dst.extend(st["lg"][C.L_DST, :n].tolist())
            lg.ctime.extend(ctime.tolist())
            lg.injected.extend(sent.tolist())
            lg.delivered.extend(tail.tolist())
            lg.hops.extend(links.tolist())
        if self.on_deliver_arrays is not None:
            self.on_deliver_arrays(ctime, sent, tail, links, measured)
        elif self.on_deliver is not None:
            pid = self._pids(st["lg"][C.L_PID, :n]).tolist()
            src, dst = st["lg"][C.L_SRC, :n].tolist(), st["lg"][C.L_DST, :n].tolist()
            for i, (c, s_, t, k, ms) in enumerate(zip(ctime.tolist(), sent.tolist(), tail.tolist(),
                                                      links.tolist(), measured.tolist())):
                self.on_deliver(Delivered(pid[i], src[i], dst[i], c, s_, k, ms), t)

    # ------------------------------------------------------------ state
    def _sc(self, k):
        return int(self._st["sc"][k])

    now = property(lambda self: self._sc(C.NOW))
    in_network = property(lambda self: self._sc(C.IN_NET))
    in_source = property(lambda self: self._sc(C.IN_SRC))
    ctime_sum = property(lambda self: self._sc(C.CTIME_SUM))
    srcq_ctime = property(lambda self: self._sc(C.SRCQ_CTIME))
    deadlocked = property(lambda self: bool(self._sc(C.DEADLOCKED)))
    delivered_count = property(lambda self: self._sc(C.DELIVERED))
    measured_created = property(lambda self: self._sc(C.MEAS_CREATED))

    @property
    def measure_from(self):
        return self._sc(C.MEAS_FROM)

    @measure_from.setter
    def measure_from(self, t):
        self._st["sc"][C.MEAS_FROM] = int(t)

    @property
    def measure_to(self):
        v = self._sc(C.MEAS_TO)
        return math.inf if v >= 1 << 62 else v

    @measure_to.setter
    def measure_to(self, t):
        self._st["sc"][C.MEAS_TO] = (1 << 62) if t == math.inf else int(t)

    @property
    def port_flits(self) -> np.ndarray:
        """Flits sent on each port so far (a copy)."""
        return self._st["pt"][:, C.PORT_FLITS].copy()

    @property
    def credits(self) -> np.ndarray:
        return self._st["ob"][:, C.CREDITS].copy()

    def source_heads(self) -> tuple[int, int]:
        """(number of non-empty source queues, sum of the creation times of their heads)."""
        st = self._st
        q = st["hs"][:, C.Q_HEAD]
        heads = q[q >= 0]
        return len(heads), int(st["pc"][heads, C.PC_CTIME].sum())

    def deadlocked_buffers(self) -> list[int]:
        """As :meth:`topogen.sim.model.Engine.deadlocked_buffers`."""
        nb = self._st["bf"].shape[0]
        pending = np.zeros(nb, np.int64)
        dead = np.zeros(nb, np.int8)
        if not _deadlocked_buffers(self._tuple(), pending, dead):
            return []
        return np.flatnonzero(dead).tolist()

    def idle(self) -> bool:
        """True when no packet is anywhere in the network or a source queue."""
        return not self.in_network and not self.in_source

    def credits_restored(self) -> bool:
        """True when every buffer has all its credits back (no flit held anywhere)."""
        st = self._st
        return bool(np.all(st["ob"][:, C.CREDITS] == self.net.config.vc_buf_size)
                    and np.all(st["bf"][:, C.BUF_HEAD] < 0))
