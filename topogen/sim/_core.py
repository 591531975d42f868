"""The compiled event core of the reference simulator (numba).

The same model, event for event, as the pure-Python :class:`~topogen.sim.model.Engine`
(and its :class:`~topogen.sim._allocator.SeparableAllocator`), on flat arrays:

* events live in a *time wheel* of ``W`` buckets (a power of two above the longest delay
  an event can be scheduled ahead); each bucket keeps two FIFO lists of event nodes, the
  ordinary events of its cycle and the switch allocations that run after them (the
  Python engine's ``_LATE`` sequence numbers).  Events of one cycle therefore run in the
  order they were scheduled, exactly as the Python engine's ``(cycle, sequence)`` heap
  runs them; a third list holds the events that commute with the others of their cycle,
  run together at its start (see "Cycle lists").  A list is a chain of blocks of :data:`EVB` events (one cache line each:
  a large network's events are read one line per 7 events, not one line each);
* packets live in slots (recycled on delivery) with their route (ports and first VC of
  each hop); input-buffer FIFOs, source queues and the waiting lists of output ports are
  linked lists through the slots;
* packet creations come from a staging queue filled by :class:`~topogen.sim._compiled.
  CompiledEngine` (routes computed in Python, so random routings draw from the same
  generator in the same order as the Python engine) and run before the wheel's events of
  their cycle.

:func:`run` returns to Python when it reaches ``until``, when a traffic block (a Python
callback) is due, or when it needs more room (slots, event nodes, delivery log); the
caller grows the arrays and calls it again: the loop resumes where it stopped.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._sssp import AVAILABLE

if AVAILABLE:
    from numba import njit, types

    from .._sssp import _jit, prefetch, prefetch_row

    def _inline(func):
        """Small helpers of one :func:`_unit`, inlined into it by numba (each call site
        a copy: kept for helpers called from one unit only)."""
        return njit(inline="always", cache=True, nogil=True)(func)

    def _jit_borrowed(func):
        """:func:`_jit` without reference counting (numba's ``_nrt=False``), for the event
        loop and the allocation rounds.  numba counts references to every array an inlined
        helper takes, at each call (an atomic increment and a call to release it), where it
        cannot prove them redundant: measured on a 16x16 torus with 1-flit packets, ~40 %
        of the event core's CPU went to those counts.  These functions allocate nothing;
        every array they touch is a row of the state, which the engine holds from Python
        for the whole call."""
        disp = _jit(func)
        disp.targetoptions["_nrt"] = False  # read when a signature is compiled
        return disp

    def _plain(ty):
        """A call's argument type without numba's constant value (``Literal``), signed
        integers widened to int64: one compiled body per helper, whatever its callers
        pass (constants, int32 table entries)."""
        ty = types.unliteral(ty)
        return types.int64 if isinstance(ty, types.Integer) and ty.signed else ty

    def _unit(func, inline=True):
        """A helper compiled once, as a function of its own, and called by the event loop
        and the allocation rounds (its callers).

        numba's own inlining (``inline="always"``) copies a helper's IR into every call
        site and types, rewrites and lowers each copy again: the event loop's ~50 copies
        were most of its cold compile time.  Here numba compiles the helper once per
        argument types, which are made plain (:func:`_plain`), so constants at the call
        sites add no specializations; with ``inline`` (the hot helpers) LLVM inlines the
        compiled body into each caller (``forceinline``: the callers' machine code is as
        before, constants folded there), without it the callers call it (helpers of
        routings that take much work per call: a call passes every field of every array
        argument).  No reference counts (:func:`_jit_borrowed`), no Python or C entry
        point: only compiled code calls them."""
        disp = _jit_borrowed(func)
        disp.targetoptions["forceinline"] = inline
        disp.targetoptions["no_cpython_wrapper"] = True
        disp.targetoptions["no_cfunc_wrapper"] = True
        resolve = disp.get_call_template

        def get_call_template(args, kws):
            return resolve(tuple(_plain(a) for a in args), {k: _plain(v) for k, v in kws.items()})

        disp.get_call_template = get_call_template
        return disp

    def _unit_called(func):
        """:func:`_unit` that its callers call (not inlined by LLVM)."""
        return _unit(func, inline=False)
else:  # pragma: no cover - without numba the Python engine runs (see _compiled.engine_for)
    def _jit(func):
        return func

    _inline = _jit_borrowed = _unit = _unit_called = _jit

    def prefetch_row(arr, idx):
        pass

    prefetch = prefetch_row

# scalar state (State.sc)
NOW, IN_NET, IN_SRC, LAST_MOVE, NEXT_PID, DELIVERED, MEAS_CREATED, CTIME_SUM, SRCQ_CTIME, \
    DEADLOCKED, EV_COUNT, NFREE_NODES, NFREE_SLOTS, GEN_HEAD, GEN_N, LOG_N, MEAS_FROM, MEAS_TO, \
    BLOCK_ARG, EVENTS, LATE_SORTED = range(21)
UD_N = 21  # UGAL: uniform draws left in State.ud (taken from the end)
#: events run of each kind k (sc[EVK0 + k], k < NUM_KINDS), those of the cycle lists
#: included (the events per packet-hop by kind; EVENTS counts the dispatched ones only)
EVK0 = 22
NUM_KINDS = 13
NUM_SC = EVK0 + NUM_KINDS
# configuration (State.cf)
C_V, C_S, C_D, C_G, C_OVH, C_CD, C_SX, C_SPEEDUP, C_KCLS, C_INJBUF0, C_EJ, C_INJ, C_DL, \
    C_SEP, C_MASK, C_W, C_MARGIN, C_K = range(18)
C_PF = 18  # prefetch the rows of the next block's events (0: no)
C_VCA = 19  # BookSim's VC allocation stage (vc_alloc="booksim")
C_SORT = 20  # run each cycle's switch allocations in switch order (0: no; see memory order below)
C_UGAL, C_UK, C_UFULL = 21, 22, 23  # UGAL: 0 off, 1 UGAL-L, 2 UGAL-G; candidates k; V x buffer
# escape routing (topogen.sim._adaptive): 0 off, 1 the minimal reading, 2 the updown reading,
# 3 the minimal reading with escape VCs by table (DOR escape paths: see _esc_options);
# escape_return; the adaptive VCs a0 .. a1 - 1 of a port; wait nodes per packet; the
# escape table's "no entry" rank
C_ESC, C_ERET, C_EA0, C_EA1, C_WMAX, C_ESENT = 24, 25, 26, 27, 28, 29
# ANCA (topogen.sim._anca): 0 off, 1 select="queue", 2 select="booksim"; k, switches per
# level, first leaf, levels - 1
C_ANCA, C_AK, C_APL, C_ALEAF0, C_AN1 = 30, 31, 32, 33, 34
# internal_speedup allocation rounds (speedup_model="rounds"): 0 off, else the most rounds a
# cycle runs; internal_speedup = C_RNUM / C_RDEN; routing_delay; a host's flits ahead of
# its ejection channel (num_vcs x vc_buf_size)
C_ROUNDS, C_RNUM, C_RDEN, C_RDELAY, C_EJROOM = 35, 36, 37, 38, 39
# UGAL's optional readings: flits added to every queue read (the packet's own, or 0); the
# threshold in flits added to a Valiant candidate's cost (0: the rule as printed)
C_UOWN, C_UTHR = 40, 41
# Valiant / UGAL with vc_ranges (topogen.routing.valiant.vc_ranges): the routing's VC
# classes C (hop h of an n-hop path on classes floor(h C / n) .. floor((h + 1) C / n) - 1;
# 0: off, every hop on the VCs of one class)
C_VRC = 42
NUM_CF = 43
# rows of the grouped state arrays
BUSY, PORT_FLITS, IN_BUSY, IWAKE, IN_PTR, OUT_PTR, VC_PTR, W_HEAD, W_TAIL, IN_SLOT, OUT_SLOT, WAKE, LAT, OUT_LOCAL, IN_LOCAL, OUT_SWITCH = range(16)  # State.pt
BUF_HEAD, BUF_TAIL, FRONT_FREE, VA_IPTR = range(4)  # State.bf (input buffers)
#: State.ob (the same buffers as output VCs); FREE_AT: the cycle from which an owned VC is
#: free again (its owner's tail crossed the switch; :data:`FREE_NEVER` while it is held)
CREDITS, OWNER, VA_OPTR, FREE_AT = range(4)
FREE_NEVER = (1 << 31) - 1
VK_CAND, VK_KEY = range(2)  # State.vk (VC allocation: candidate of each output VC of a switch)
Q_HEAD, Q_TAIL, SRC_FREE, INJ_LAST = range(4)  # State.hs
#: State.sw; CHK_AT: the last cycle a K_VCHK of the switch was scheduled for
SW_L0, SW_L1, SW_H0, SW_H1, ALLOC_AT, VA_N, CHK_AT = range(7)
#: State.vq: the heads waiting for an output VC at a switch, request i of switch s in row
#: s * K * V + i (a switch's requests together, two to a cache line; packet, its output VCs lo .. hi - 1, buffer, the buffer's VA pointer, the
#: output port's and the buffer's places in the switch; all fixed while it waits)
VQ_PKT, VQ_LO, VQ_HI, VQ_B, VQ_P0, VQ_OL, VQ_IK = range(7)
P_HOP, P_BUF, P_ARR, P_BNEXT, P_QNEXT, P_WPREV, P_WNEXT, P_WAIT, P_OVC, P_VAQ = range(10)  # State.pk (every hop)
#: escape routing (State.pk): up*/down* state (as the Python engine's ``esc``), adaptive
#: options at the current switch (ports in State.ao), wait nodes (State.wn), escape option
#: (4 * port + escape VC + 2 * escape state after the hop; _esc_options)
P_ESC, P_NA, P_NW, P_EO = range(10, 14)
#: State.pk: the cycle from which a head granted an output VC waits for its output (where
#: the grant puts it on the output's waiting list at once; see "Granted heads" below)
P_RDY = 14
#: State.pk: allocation rounds only, the round from which a head waiting for an output VC
#: bids (the Python engine's ``vr``; -1: not set)
P_VR = 15
#: State.rp (allocation rounds, one row per port): the round of the BUSY / IN_BUSY cycle
#: from which the port is free, the cycle from which the output channel is free (its
#: queue drained), the cycle from which the input's credit channel is
RP_BJ, RP_IJ, RP_CHAN, RP_CRED = range(4)
PC_PID, PC_SRC, PC_DST, PC_CTIME, PC_SENT, PC_MEASURED, PC_LINKS = range(7)  # State.pc (creation, injection, delivery)
EV_HEAD, EV_TAIL, EV_HPOS, EV_TPOS = range(4)  # State.ev (first and last block, next read and write)
NODE_NEXT = 0  # State.nd: a block of EVB events; event j is (kind, arg) in columns EV0 + 2 j, + 1
EVB, EV0 = 7, 2
G_TIME, G_SRC, G_DST, G_LINKS = range(4)  # State.gi
L_PID, L_SRC, L_DST, L_CTIME, L_SENT, L_TAIL, L_LINKS, L_MEASURED = range(8)  # State.lg
SL_O, SL_P, SL_B = range(3)  # State.sl
CH_IP, CH_P, CH_B = range(3)  # State.ch
SL_IP, SL_N, CH_O, CH_N = range(4)  # State.sv
# event kinds (as topogen.sim._events)
K_BLOCK, K_READY, K_CREDIT, K_FREE, K_IWAKE, K_ALLOC, K_VREQ, K_VFREE = 0, 2, 3, 4, 5, 6, 7, 8
#: the output VCs a switch released this cycle are free (one event per switch and cycle in
#: place of a K_VFREE per VC; see "Released output VCs" below)
K_VCHK = 9
#: K_CREDIT (of a network buffer), K_VREQ and K_VCHK in a bucket's third list, the cycle
#: list, run together at the start of their cycle (see "Cycle lists" below)
K_CCREDIT, K_CVREQ, K_CVCHK = 10, 11, 12
# return codes of run()
R_DONE, R_BLOCK, R_SLOTS, R_NODES, R_LOG, R_DEADLOCK, R_DRAWS, R_ROUTE = range(8)
#: the updown reading's "unreachable" legal distance (topogen.routing.updown.UNREACHABLE)
UD_UNREACHABLE = (1 << 61) - 1
#: "no entry" in the UGAL base table (State.ur)
UR_NONE = 65535

State = namedtuple("State", [
    "sc", "cf", "pt", "bf", "ob", "vk", "vq", "hs", "sw", "pk", "ev", "nd", "gi", "lg", "sl", "ch", "sv",
    "pc", "p_route", "free_slots", "free_nodes", "g_route", "held", "sq", "pend", "srt",
    # the heads granted an output VC by the switch allocation being run
    "gq",
    # UGAL (topogen.sim._ugal): the base routing's rank table ranks[phase, v, dst] (uint16,
    # UR_NONE: no entry), CSR indptr, indices and entry phases, the uniform draws, two
    # route buffers and the count of each choice (MIN, VAL 1 .. k)
    "ur", "ui", "uj", "uph", "ud", "ub", "uc",
    # the switch downstream of each port (-1: ejection); the CSR indptr and indices of the
    # links (escape routing and ANCA)
    "dsw", "eptr", "eind",
    # escape routing (topogen.sim._adaptive): minimal distances mdist[dst, v] and link
    # weights; the updown reading's legal distances ldist[dst, phase * n + v] and weights;
    # the up*/down* phase of each link (1: down); the escape ranks erank[phase, v, dst];
    # each packet's option / wait ports (a row per packet slot) and wait nodes (prev, next;
    # node j of packet p is p * C_WMAX + j)
    "mdist", "mw", "ldist", "lw", "eph", "erank", "ao", "wn",
    # ANCA (topogen.sim._anca): the span and digit weight of each level
    "aspan", "aweight",
    # allocation rounds: the cycles after its allocation cycle a packet granted in round j
    # may start on an idle channel (topogen.sim._allocator.round_offsets), the port rows
    "roff", "rp"])
#: (one row per port / buffer / ... and one column per field: the fields of one packet
#: or port share a cache line)
#: the per-port (pt), per-buffer (bf), per-host (hs), per-switch (sw), per-packet-slot (pk),
#: event-bucket (ev), event-node (nd), staging (gi) and delivery-log (lg) fields are rows
#: of one int64 array each (few arguments per call: numba passes every array of the tuple)
GROUPS = {'pt': ['busy', 'port_flits', 'in_busy', 'iwake', 'in_ptr', 'out_ptr', 'vc_ptr', 'w_head', 'w_tail', 'in_slot', 'out_slot', 'wake', 'lat', 'out_local', 'in_local', 'out_switch'], 'bf': ['buf_head', 'buf_tail', 'front_free', 'va_iptr'], 'ob': ['credits', 'owner', 'va_optr', 'free_at'], 'hs': ['q_head', 'q_tail', 'src_free', 'inj_last'], 'sw': ['sw_l0', 'sw_l1', 'sw_h0', 'sw_h1', 'alloc_at', 'va_n', 'chk_at'], 'pk': ['p_hop', 'p_buf', 'p_arr', 'p_bnext', 'p_qnext', 'p_wprev', 'p_wnext', 'p_wait', 'p_ovc', 'p_vaq', 'p_esc', 'p_na', 'p_nw', 'p_eo', 'p_rdy', 'p_vr'], 'pc': ['p_pid', 'p_src', 'p_dst', 'p_ctime', 'p_sent', 'p_measured', 'p_links'], 'ev': ['ev_head', 'ev_tail', 'ev_hpos', 'ev_tpos'], 'gi': ['g_time', 'g_src', 'g_dst', 'g_links'], 'lg': ['l_pid', 'l_src', 'l_dst', 'l_ctime', 'l_sent', 'l_tail', 'l_links', 'l_measured'], 'sl': ['sl_o', 'sl_p', 'sl_b'], 'ch': ['ch_ip', 'ch_p', 'ch_b'], 'sv': ['sl_ip', 'sl_n', 'ch_o', 'ch_n']}


@_unit
def _push(sc, ev, nd, free_nodes, mask, W, t, kind, arg, late):
    """Schedule an event at cycle ``t`` (``late``: after the ordinary events of ``t``; the
    kinds of the cycle list in its list)."""
    idx = (t & mask) + (2 * W if kind >= K_CCREDIT else (W if late else 0))
    tail = ev[idx, EV_TAIL]
    pos = ev[idx, EV_TPOS]
    if tail < 0 or pos == EVB:  # a new block
        nf = sc[NFREE_NODES] - 1
        blk = free_nodes[nf]
        sc[NFREE_NODES] = nf
        nd[blk, NODE_NEXT] = -1
        if tail < 0:
            ev[idx, EV_HEAD] = blk
            ev[idx, EV_HPOS] = 0
        else:
            nd[tail, NODE_NEXT] = blk
        ev[idx, EV_TAIL] = blk
        tail = blk
        pos = 0
    nd[tail, EV0 + 2 * pos] = kind
    nd[tail, EV0 + 2 * pos + 1] = arg
    ev[idx, EV_TPOS] = pos + 1
    sc[EV_COUNT] += 1


@_jit
def push(st, t, kind, arg, late):
    """:func:`_push` on a :class:`State` (for callbacks scheduled from Python)."""
    _push(st.sc, st.ev, st.nd, st.free_nodes, st.cf[C_MASK], st.cf[C_W], t, kind, arg, late)


@_unit
def _best_vc(credits, S, lo, k):
    """The buffer in ``lo .. lo+k-1`` with the most credits, at least ``S`` (lowest id on
    ties); -1 when none has credits for the whole packet."""
    if k == 1:
        return lo if credits[lo] >= S else -1
    best, bc = -1, S - 1
    for x in range(lo, lo + k):
        cx = credits[x]
        if cx > bc:
            best, bc = x, cx
    return best


@_unit
def _vr_k(pc, pkt, i, kcls, vrc):
    """The VCs packet ``pkt`` may take at its network port ``i`` (``1 ..`` its links):
    ``kcls``, or with VC ranges (``vrc`` classes) its hop's block
    (:func:`topogen.routing.valiant.vc_ranges`)."""
    if vrc == 0:
        return kcls
    n = np.int64(pc[pkt, PC_LINKS])
    return (i * vrc // n - (i - 1) * vrc // n) * kcls


# ---------------------------------------------------------------------------- memory order
# Memory-order helpers of the compiled simulator's event loop (:func:`topogen.sim._core.run`):
# the rows an event reads first, and those they lead to, asked for a block of events ahead;
# each cycle's switch allocations put in switch order.
#
# Switch order
# ------------
# The switch allocations of a cycle (the late list: one event per switch that has requests,
# run after every other event of the cycle) are run in switch order rather than in the order
# the switches asked, so that they read the switches' port, output-VC, request and pending
# rows in memory order (:func:`_sort_late`; ~11% less CPU at 4,096 switches with 1-flit
# packets).  The results are the same (:class:`~topogen.sim._compiled.CompiledEngine` turns
# it on only where they are: ``_sort_ok``):
#
# * an allocation decides by round-robin pointers and VC ids, never by the order in which the
#   events of its cycle made the requests;
# * two allocations of one cycle touch disjoint state (their own switch's ports, input and
#   output VCs, requests; shared counters are sums): a packet sent into a buffer whose front
#   leaves it in the same cycle leaves the buffer in the same state and schedules the same
#   event, in either order;
# * no allocation schedules an event at another switch in its own cycle: with the separable
#   allocator every link latency plus the router delay exceeds the VC allocation lead;
#   events that follow the new order (one allocation's sends before another's) keep it only
#   among events of different switches, whose order does not matter in turn.
#
# What changes is the order of one cycle's deliveries: the engine keeps the asked order when
# it records them (``record``, :func:`~topogen.sim.run_trace`) or gives them one by one.
#
# Released output VCs
# -------------------
# With the VC allocation stage an output VC is free again ``crossbar_cycles`` after its
# owner's tail left (the Python engine's ``_vc_free`` event, K_VFREE: one per packet-hop).
# Where switch order is on the engine instead writes that cycle in the VC's row (FREE_AT,
# read by the VC allocation, which runs after every ordinary event of its cycle) and
# schedules one K_VCHK per switch and cycle, which asks for the switch's allocation when
# heads wait for a VC, as each K_VFREE of that switch and cycle would.  The allocations
# asked for are the same; only their order within the cycle may differ, which does not
# change the results in switch order (above).
#
# Granted heads
# -------------
# A head granted an output VC in cycle t is ready at t + 1 (K_READY: it joins its output's
# waiting list and the output is served).  Where switch order is on and no head can ask
# for the switch in the cycle its predecessor left (``rearm_cycles >= 1``) the allocation
# that grants it does both at its end instead, for cycle t + 1: nothing else of cycle t
# looks at that output (only the switch's own allocation sends on it, and it has run),
# and in cycle t + 1 the ordinary events that serve the output do what the head's K_READY
# would (serving is idempotent: the output's allocation is asked for once, or its wake-up
# scheduled once), while the order of a waiting list does not change the separable
# allocation.  P_RDY keeps t + 1 for the knot analysis (such a head is not waiting yet
# before t + 1).
#
# Cycle lists
# -----------
# Where granted heads fold (above) three kinds of event commute with every other ordinary
# event of their cycle: a network buffer's credit (it adds to the buffer's credits, which
# only the switch allocations read, and serves its upstream output, which only the
# allocations send on: the output's waiting list and busy time are those of the cycle's
# start, and serving is idempotent), a head's VC request (it joins its switch's requests,
# whose order the VC allocation does not depend on: an output VC goes to the lowest key,
# keys unique per input VC) and a released-VC check.  They go to a third list of their
# bucket (K_CCREDIT, K_CVREQ, K_CVCHK), run in one loop when their cycle starts, before
# its ordinary events, without the dispatch, the bucket scan and the checks of an event
# each.  Nothing schedules them for the cycle being run (a credit comes back at least a
# cycle after the tail left, a head asks at least a cycle after it arrived or its
# predecessor left), so a cycle's list is complete when it runs.  The results are the
# same: the allocations asked for are the same, in another order of the late list, which
# switch order makes irrelevant.  A credit of an injection buffer stays an ordinary event
# (a host's ready head reads those credits in the cycle's order).
@_inline
def _prefetch_event(kind, a, pk, p_route, pt, ob, sw, V):
    """Ask for the rows an event of ``kind`` on ``a`` reads first."""
    if kind == K_READY or kind == K_VREQ or kind == K_CVREQ:
        prefetch_row(pk, a)
        prefetch_row(p_route, a)
    elif kind == K_CREDIT or kind == K_VFREE or kind == K_CCREDIT:
        prefetch_row(ob, a)
        prefetch_row(pt, a // V)
    elif kind == K_ALLOC or kind == K_VCHK or kind == K_CVCHK:
        prefetch_row(sw, a)
    elif kind != K_BLOCK:
        prefetch_row(pt, a)


@_inline
def _prefetch_next(kind, a, pk, p_route, pt, sw, pend, bf, vq, V):
    """Ask for the rows an event of ``kind`` on ``a`` reads next (reading the rows
    :func:`_prefetch_event` asked for)."""
    if kind == K_READY or kind == K_VREQ or kind == K_CVREQ:
        h = pk[a, P_HOP]
        # (an escape packet's route is not in p_route: its hops may outnumber the columns)
        r = p_route[a, h] if h < p_route.shape[1] else -1
        if r >= 0:
            prefetch_row(pt, r // V)
            prefetch(pend, r // V)
        if kind != K_READY:
            b = pk[a, P_BUF]
            prefetch_row(bf, b)
            prefetch_row(pt, b // V)
    elif kind == K_ALLOC:
        kv = vq.shape[0] // sw.shape[0]
        for i in range(0, min(sw[a, VA_N], 8), 2):  # (two requests a line)
            prefetch_row(vq, a * kv + i)
        prefetch(pend, sw[a, SW_L0])
        prefetch(pend, sw[a, SW_H0])
    elif kind != K_BLOCK and kind != K_VCHK and kind != K_CVCHK:
        s_ = pt[a // V if kind == K_CREDIT or kind == K_VFREE or kind == K_CCREDIT else a,
                OUT_SWITCH]
        if s_ >= 0:
            prefetch_row(sw, s_)


@_unit
def _prefetch_block(nd, blk, j0, lim, stage, pk, p_route, pt, ob, sw, pend, bf, vq, V):
    """Ask for the rows of the events ``j0 .. lim - 1`` of block ``blk``: those they read
    first (``stage`` 0, :func:`_prefetch_event`), next (1, :func:`_prefetch_next`) or, for a
    cycle list's VC request, the switch row after those (2)."""
    for j in range(j0, lim):
        kind, a = nd[blk, EV0 + 2 * j], nd[blk, EV0 + 2 * j + 1]
        if stage == 1:
            _prefetch_next(kind, a, pk, p_route, pt, sw, pend, bf, vq, V)
        elif stage == 0:
            _prefetch_event(kind, a, pk, p_route, pt, ob, sw, V)
        elif kind == K_CVREQ:
            prefetch_row(sw, pt[p_route[a, pk[a, P_HOP]] // V, OUT_SWITCH])


@_unit_called
def _sort_late(sc, t, ev, nd, idx, cnt, nsw):
    """Put the switch allocations of cycle ``t`` (late list ``idx``; a switch may have more
    than one when a head that reached the front of its buffer asks again) in switch order,
    in place (``cnt``: zeros, one per switch), when they are at least one switch in 8 (the
    33-flit runs at 16,384 switches, with fewer, were 3-12% slower in switch order)."""
    sc[LATE_SORTED] = t
    b = ev[idx, EV_HEAD]
    p = ev[idx, EV_HPOS]
    tl = ev[idx, EV_TAIL]
    tp = ev[idx, EV_TPOS]
    m = tp - p  # the allocations of the cycle
    while b != tl:
        m += EVB
        b = nd[b, NODE_NEXT]
    if m * 8 < nsw:  # a few switches: their rows are far apart in any order
        return
    b = ev[idx, EV_HEAD]
    while not (b == tl and p == tp):
        if p == EVB:
            b = nd[b, NODE_NEXT]
            p = 0
            continue
        cnt[nd[b, EV0 + 2 * p + 1]] += 1
        p += 1
    b = ev[idx, EV_HEAD]
    p = ev[idx, EV_HPOS]
    for s_ in range(nsw):  # the switches in order, each as often as it was asked for
        while cnt[s_]:
            if p == EVB:
                b = nd[b, NODE_NEXT]
                p = 0
            nd[b, EV0 + 2 * p + 1] = s_
            p += 1
            cnt[s_] -= 1


#: numba keys the cache of :func:`run` by this file alone, but it inlines helpers from
#: ``topogen/_sssp.py``: its SHA-256 (first 16 hex digits).  A test fails until it is
#: updated after editing it, and the update changes this file, so no cached ``run``
#: outlives its helpers (``tests/sim/test_compiled_sort.py``).
INLINED_HELPERS_SHA256 = "5662f8d6a9441441"



# ---------------------------------------------------------------------------- UGAL
# UGAL-L / UGAL-G (topogen.sim._ugal.UgalChoice, the Python engine's rule): the choice is
# made when a packet's head is ready at its source switch, from the same uniform draws
# (State.ud, filled by the Python side from the simulation's generator exactly when the
# Python engine draws: R_DRAWS) and the same queues.
@_inline
def _ugal_walk(ur, ui, uj, uph, s, d, out, k, lim):
    """Write the CSR entries of the base route ``s -> d`` into ``out[k:]`` (the first
    entry of each switch pair, as ``view.entry`` gives it); returns the new end, or -1
    when the table has no entry or the route is longer than ``lim``."""
    v = s
    phase = 0
    while v != d:
        r = ur[phase, v, d]
        if r == UR_NONE or k >= lim:
            return -1
        e = ui[v] + r
        ph = uph[e]
        if ph > phase:
            phase = ph
        w = uj[e]
        f = e
        while f > ui[v] and uj[f - 1] == w:
            f -= 1
        out[k] = f
        k += 1
        v = w
    return k


@_inline
def _ugal_queue(o, credits, pt, pk, V, S, full):
    """Output queue of network port ``o`` in flits (held or reserved flits of its
    downstream buffers plus ``S`` per packet waiting for it)."""
    q = full
    for x in range(o * V, o * V + V):
        q -= credits[x]
    p = pt[o, W_HEAD]
    while p >= 0:
        q += S
        p = pk[p, P_WNEXT]
    return q


@_inline
def _ugal_cost(glob, path, n, credits, pt, pk, V, S, full, own):
    """UGAL-G: the sum of the queues along ``path[:n]``; UGAL-L: ``n`` x the first one;
    each queue plus ``own`` flits (the packet's own with ``count_packet``, else 0)."""
    if glob:
        c = 0
        for i in range(n):
            c += _ugal_queue(path[i], credits, pt, pk, V, S, full) + own
        return c
    return n * (_ugal_queue(path[0], credits, pt, pk, V, S, full) + own)


@_unit_called
def _ugal_choose(a, sc, cf, pt, pk, pc, p_route, credits, ur, ui, uj, uph, ud, ub, uc):
    """Give packet ``a`` (ready at its source switch, ``sc[UD_N] >= k``) its UGAL path in
    ``p_route`` and its link count; False when the base table has no route."""
    V, S, EJ, kcls = cf[C_V], cf[C_S], cf[C_EJ], cf[C_KCLS]
    glob = cf[C_UGAL] == 2
    full = cf[C_UFULL]
    own, thr = cf[C_UOWN], cf[C_UTHR]
    nsw = ur.shape[1]
    lim = ub.shape[1]
    s = np.int64(pt[EJ + pc[a, PC_SRC], OUT_SWITCH])
    d = np.int64(pt[EJ + pc[a, PC_DST], OUT_SWITCH])
    bi = 0  # the row of ub holding the best path
    bn = _ugal_walk(ur, ui, uj, uph, s, d, ub[0], 0, lim)
    if bn < 0:
        return False
    bc = _ugal_cost(glob, ub[0], bn, credits, pt, pk, V, S, full, own)
    lo, hi = (s, d) if s < d else (d, s)
    choice = 0
    for i in range(1, cf[C_UK] + 1):
        nd_ = sc[UD_N] - 1
        sc[UD_N] = nd_
        m = np.int64(ud[nd_] * (nsw - 2))
        if m >= lo:
            m += 1
        if m >= hi:
            m += 1
        c = 1 - bi
        cn = _ugal_walk(ur, ui, uj, uph, s, m, ub[c], 0, lim)
        if cn >= 0:
            cn = _ugal_walk(ur, ui, uj, uph, m, d, ub[c], cn, lim)
        if cn < 0:
            return False
        cc = _ugal_cost(glob, ub[c], cn, credits, pt, pk, V, S, full, own) + thr
        if cc < bc:
            bi, bn, bc, choice = c, cn, cc, i
    uc[choice] += 1
    path = ub[bi]
    vrc = cf[C_VRC]  # VC ranges: hop h on the first class of its block
    for h in range(bn):
        p_route[a, 1 + h] = path[h] * V + (h * kcls if vrc == 0 else h * vrc // bn * kcls)
    p_route[a, 1 + bn] = (EJ + pc[a, PC_DST]) * V
    pc[a, PC_LINKS] = bn
    return True


# ---------------------------------------------------------------------------- escape
# Escape routing (topogen.sim._adaptive.EscapeRouting, the Python engine's rule): a packet's
# head is routed hop by hop where it is ready at a switch, from the same credits, port
# states and up*/down* phase; a packet that cannot go waits on every port of its options
# at once (a wait node per port: State.wn), in the Python engine's list order.
@_unit_called
def _esc_options(a, v, d, cf, pk, ao, eptr, eind, mdist, mw, ldist, lw, eph, erank):
    """Packet ``a``'s options at switch ``v`` toward ``d``: its adaptive ports in
    ``ao[a, :P_NA]`` (increasing link id) and its escape port ``P_EO``; False when a table
    has no entry (the Python engine's RoutingError)."""
    esc = pk[a, P_ESC]
    if esc < 0:
        phase = -1 - esc
        want = True
        ephase = 0
    else:
        phase = esc
        want = cf[C_ERET] != 0
        ephase = esc
    lo = eptr[v]
    hi = eptr[v + 1]
    na = 0
    if want:
        if cf[C_ESC] != 2:  # any minimal next hop
            here = np.int64(mdist[d, v])
            for e in range(lo, hi):
                if np.int64(mdist[d, eind[e]]) + np.int64(mw[e]) == here:
                    ao[a, na] = e
                    na += 1
            if na == 0:
                return False
        else:  # next hops on a shortest up*/down*-legal route in the packet's phase
            n = ldist.shape[1] // 2
            here = np.int64(ldist[d, phase * n + v])
            if here < UD_UNREACHABLE:
                for e in range(lo, hi):
                    down = eph[e] != 0
                    if down or phase == 0:
                        nx = np.int64(eind[e]) + (n if (down or phase == 1) else 0)
                        if np.int64(ldist[d, nx]) + np.int64(lw[e]) == here:
                            ao[a, na] = e
                            na += 1
    r = np.int64(erank[ephase, v, d])
    if r == cf[C_ESENT]:
        return False
    pk[a, P_NA] = na
    # P_EO = 4 * port + escape VC + 2 * next state (mode 3: erank = rank + rb * (VC + 2 * state))
    if cf[C_ESC] == 3:
        rb = (cf[C_ESENT] + 1) // 4
        pk[a, P_EO] = (lo + r % rb) * 4 + r // rb
    else:
        pk[a, P_EO] = (lo + r) * 4
    return True


@_unit_called
def _esc_choose(a, t, pk, ao, pt, credits, S, V, a0, a1, e1):
    """``(port, buffer)`` packet ``a`` takes now, or ``(-1, -1)`` (Duato's selection:
    :meth:`topogen.sim._adaptive.EscapeRouting._choose`)."""
    best, bc, bport = -1, S - 1, -1
    later = False
    for j in range(pk[a, P_NA]):
        o = np.int64(ao[a, j])
        free = pt[o, BUSY] <= t
        for b in range(o * V + a0, o * V + a1):
            cb = credits[b]
            if cb > bc:
                if free:
                    best, bc, bport = b, cb, o
                else:
                    later = True
            elif cb >= S and not free:
                later = True
    if best >= 0:
        return bport, best
    if later:
        return -1, -1
    eo = np.int64(pk[a, P_EO])  # 4 * port + escape VC + 2 * next state
    o = eo >> 2
    if pt[o, BUSY] > t:
        return -1, -1
    best = _best_vc(credits, S, o * V + (eo & 1) * e1, e1)
    if best < 0:
        return -1, -1
    return o, best


@_unit_called
def _esc_unwait(a, pk, ao, wn, pt, wmax):
    """Take packet ``a`` off the waiting lists of all its wait ports."""
    for j in range(pk[a, P_NW]):
        o = ao[a, j]
        node = a * wmax + j
        wp, wx = wn[node, 0], wn[node, 1]
        if wp < 0:
            pt[o, W_HEAD] = wx
        else:
            wn[wp, 1] = wx
        if wx < 0:
            pt[o, W_TAIL] = wp
        else:
            wn[wx, 0] = wp
    pk[a, P_NW] = 0
    pk[a, P_WAIT] = -1


@_unit_called
def _esc_next_state(esc, b, o, V, ea0, mode, eph, eo):
    """The packet's escape state after it takes buffer ``b`` of port ``o``, ``eo`` its
    escape option (:meth:`topogen.sim._adaptive.EscapeRouting._send_adaptive`)."""
    if b % V < ea0:  # an escape VC: its phase (entered in phase 0)
        if mode == 3:
            return (eo >> 1) & 1
        ph = np.int64(eph[o])
        return ph if ph > esc else (esc if esc > 0 else 0)
    if mode != 2:
        return -1
    ph = -1 - esc if esc < 0 else esc
    if eph[o] > ph:
        ph = 1
    return -1 - ph


# ---------------------------------------------------------------------------- ANCA
# ANCA (topogen.sim._anca.AncaChoice, the Python engine's rule): where a packet's head is
# routed at a switch (ready, or asking for an output VC with the VC allocation stage) its
# route grows by one up port, or by the path down and the ejection port at an ancestor of
# its destination; draws as the UGAL choice's (State.ud, R_DRAWS).
@_inline
def _anca_free(e, credits, pt, pk, sw, vq, v, V, kc, S, vca):
    """Free credits of up port ``e`` of switch ``v`` minus ``S`` per packet routed to it
    and not sent (waiting for it, or for one of its output VCs)."""
    f = np.int64(0)
    for x in range(e * V, e * V + kc):
        f += credits[x]
    p = pt[e, W_HEAD]
    while p >= 0:
        f -= S
        p = pk[p, P_WNEXT]
    if vca:
        kv = vq.shape[0] // sw.shape[0]
        for q in range(sw[v, VA_N]):
            if np.int64(vq[v * kv + q, VQ_LO]) // V == e:
                f -= S
    return f


@_unit_called
def _anca_draws(a, cf, pk, pc, pt, credits, sw, vq, dsw, eptr, aspan, V, kc, S, vca, EJ):
    """The uniform draws packet ``a``'s ANCA choice takes now (0, 1 or 2)."""
    v = np.int64(dsw[pk[a, P_BUF] // V])
    d = np.int64(pt[EJ + pc[a, PC_DST], OUT_SWITCH])
    P = cf[C_APL]
    sp = aspan[v // P]
    if (v % P) // sp == (d - cf[C_ALEAF0]) // sp:
        return 0
    if cf[C_ANCA] == 2:
        return 2
    lo = eptr[v]
    best = np.int64(0)
    nt = 0
    for e in range(lo, lo + cf[C_AK]):
        f = _anca_free(e, credits, pt, pk, sw, vq, v, V, kc, S, vca)
        if nt == 0 or f > best:
            best, nt = f, 1
        elif f == best:
            nt += 1
    return 1 if nt > 1 else 0


@_unit_called
def _anca_choose(a, cf, sc, pk, pc, pt, p_route, credits, sw, vq, dsw, eptr, eind, aspan,
                 aweight, ud, V, kc, S, vca, EJ, fr):
    """Extend packet ``a``'s route at its switch (the draws it takes are in ``ud``;
    ``fr``: room for ``k`` values)."""
    v = np.int64(dsw[pk[a, P_BUF] // V])
    d = np.int64(pt[EJ + pc[a, PC_DST], OUT_SWITCH])
    P = cf[C_APL]
    k = cf[C_AK]
    level = v // P
    sp = aspan[level]
    dpos = d - cf[C_ALEAF0]
    lo = eptr[v]
    h = np.int64(pk[a, P_HOP])
    if (v % P) // sp == dpos // sp:  # an ancestor: the path down, then eject
        n1 = cf[C_AN1]
        while level < n1:
            e = lo + (k if level else 0) + (dpos // aweight[level]) % k
            p_route[a, h] = e * V
            h += 1
            v = np.int64(eind[e])
            level += 1
            lo = eptr[v]
        p_route[a, h] = (EJ + pc[a, PC_DST]) * V
        pc[a, PC_LINKS] = h - 1
        return
    if cf[C_ANCA] == 2:  # BookSim's: two draws, the one with more free credits
        n_ = sc[UD_N]
        r1 = lo + np.int64(ud[n_ - 1] * k)
        r2 = lo + np.int64(ud[n_ - 2] * k)
        sc[UD_N] = n_ - 2
        f1 = np.int64(0)
        f2 = np.int64(0)
        for x in range(kc):
            f1 += credits[r1 * V + x]
            f2 += credits[r2 * V + x]
        o = r2 if f1 < f2 else r1
    else:  # the shortest queue, ties drawn (the free credits of up port lo + i in fr[i]:
        # _anca_free's, the switch's VC requests counted in one pass)
        for i in range(k):
            e = lo + i
            f = np.int64(0)
            for x in range(e * V, e * V + kc):
                f += credits[x]
            p = pt[e, W_HEAD]
            while p >= 0:
                f -= S
                p = pk[p, P_WNEXT]
            fr[i] = f
        if vca:
            kv = vq.shape[0] // sw.shape[0]
            for q in range(sw[v, VA_N]):
                i = np.int64(vq[v * kv + q, VQ_LO]) // V - lo
                if 0 <= i < k:
                    fr[i] -= S
        best = fr[0]
        nt = 1
        o = lo
        for i in range(1, k):
            f = fr[i]
            if f > best:
                best, nt, o = f, 1, lo + i
            elif f == best:
                nt += 1
        if nt > 1:
            n_ = sc[UD_N] - 1
            sc[UD_N] = n_
            j = np.int64(ud[n_] * nt)
            for i in range(k):
                if fr[i] == best:
                    if j == 0:
                        o = lo + i
                        break
                    j -= 1
    p_route[a, h] = o * V


# ---------------------------------------------------------------------------- allocation
# The separable allocation of one switch, shared by the per-cycle allocation of :func:`run`
# and the allocation rounds of :func:`_alloc_rounds`: round ``j`` of ``rounds`` (0: one
# allocation per cycle, ports and inputs free from cycle ``t + 1`` on) decides with the
# state of round ``g`` (the cycle itself without rounds).
@_unit
def _vc_request(a, lo, t, V, EJ, kv, kcls, pt, pk, pc, sw, vq, bf, cf, sc, ev, nd, free_nodes, mask, W):
    """Packet ``a``'s head asks for a VC of the output of buffer ``lo`` (the first of the VCs
    its hop may take): a row of the switch's VC requests (``State.vq``) and the switch's
    allocation this cycle, once."""
    o = lo // V
    s_ = pt[o, OUT_SWITCH]
    q = sw[s_, VA_N]
    sw[s_, VA_N] = q + 1
    row = s_ * kv + q
    b = np.int64(pk[a, P_BUF])
    vq[row, VQ_PKT] = a
    vq[row, VQ_LO] = lo
    vq[row, VQ_HI] = lo + (V if o >= EJ else _vr_k(pc, a, pk[a, P_HOP], kcls, cf[C_VRC]))
    vq[row, VQ_B] = b
    vq[row, VQ_P0] = bf[b, VA_IPTR]
    vq[row, VQ_OL] = pt[o, OUT_LOCAL] * V - o * V
    vq[row, VQ_IK] = pt[b // V, IN_LOCAL] * V + b % V
    pk[a, P_VAQ] = 1
    if sw[s_, ALLOC_AT] != t:
        sw[s_, ALLOC_AT] = t
        _push(sc, ev, nd, free_nodes, mask, W, t, K_ALLOC, s_, True)


@_unit
def _vc_alloc(a, t, g, h0, rounds, sc, ev, nd, free_nodes, mask, W, sw, pt, pk, bf, ob, vk, vq,
              held, gq, n, V):
    """The separable VC allocation of switch ``a`` (the Python engine's ``_vc_allocate``, or
    with ``rounds`` ``_vc_allocate_round`` for round ``g``): grants the heads waiting for an
    output VC (in ``gq``, in VC order; returns how many), keeps the others in their order
    and asks for the next cycle's allocation when a request lost.  ``held[h0:]``: scratch."""
    r0 = a * (vq.shape[0] // sw.shape[0])  # the switch's first request row
    nq = sw[a, VA_N]
    nv = n * V
    nx_ = 0
    lost_va = False
    for q in range(nq):  # the requests in their order
        row = r0 + q
        if rounds and pk[vq[row, VQ_PKT], P_VR] > g:  # its pipeline has not reached VC allocation
            continue
        lo = np.int64(vq[row, VQ_LO])
        hi = np.int64(vq[row, VQ_HI])
        ol = np.int64(vq[row, VQ_OL])
        p0 = vq[row, VQ_P0]
        best = -1
        bd = nv
        for x in range(lo, hi):
            if ob[x, OWNER] < 0 or ob[x, FREE_AT] <= g:
                d = (ol + x - p0) % nv
                if d < bd:
                    best = x
                    bd = d
        if best >= 0:
            if nq == 1:  # a request alone wins its VC: no candidate table
                held[h0] = best
                nx_ = 1
                continue
            key = (vq[row, VQ_IK] - ob[best, VA_OPTR]) % nv
            li = ol + best  # the output VC's place in the switch
            if vk[li, VK_CAND] < 0:
                vk[li, VK_CAND] = q
                vk[li, VK_KEY] = key
                held[h0 + nx_] = best
                nx_ += 1
            else:
                lost_va = True
                if key < vk[li, VK_KEY]:
                    vk[li, VK_CAND] = q
                    vk[li, VK_KEY] = key
    for i in range(h0 + 1, h0 + nx_):  # grants in VC order (the Python engine's)
        x = held[i]
        k = i - 1
        while k >= h0 and held[k] > x:
            held[k + 1] = held[k]
            k -= 1
        held[k + 1] = x
    for i in range(h0, h0 + nx_):
        x = held[i]
        li = pt[x // V, OUT_LOCAL] * V + x % V
        row = r0
        if nq > 1:
            row += vk[li, VK_CAND]
            vk[li, VK_CAND] = -1
        pkt = vq[row, VQ_PKT]
        vq[row, VQ_PKT] = -1  # granted: leaves the requests (below)
        b = np.int64(vq[row, VQ_B])
        ob[x, OWNER] = b
        ob[x, FREE_AT] = FREE_NEVER
        pk[pkt, P_OVC] = x
        bf[b, VA_IPTR] = (li + 1) % nv
        ob[x, VA_OPTR] = (vq[row, VQ_IK] + 1) % nv
        pk[pkt, P_VAQ] = 0
        if rounds:
            pk[pkt, P_VR] = -1
        gq[i - h0] = pkt
    if nx_ == nq:  # every request granted
        sw[a, VA_N] = 0
    elif nx_:  # the requests not granted keep their order
        m = 0
        for q in range(nq):
            row = r0 + q
            if vq[row, VQ_PKT] >= 0:
                if m != q:
                    r2 = r0 + m
                    for f in range(VQ_IK + 1):
                        vq[r2, f] = vq[row, f]
                m += 1
        sw[a, VA_N] = m
    if lost_va and sw[a, ALLOC_AT] != t + 1:
        sw[a, ALLOC_AT] = t + 1
        _push(sc, ev, nd, free_nodes, mask, W, t + 1, K_ALLOC, a, True)
    return nx_


@_unit
def _sw_alloc(a, t, j, rounds, sw, pt, pk, p_route, credits, pend, rp, sl, ch, sv, held, nh,
              sq, nsend, n, V, S, EJ, kcls, vca, pc, vrc):
    """The separable input-first switch allocation of switch ``a`` (round ``j`` with
    ``rounds``): among the outputs asked for (``pend``, marked 2: this allocation's) that
    are free, each input picks one request (round robin from its pointer), each output
    grants one input and the pointers move.  The winners go to ``sq`` from column
    ``nsend`` (packet, output, buffer; in output order), the outputs whose packets' inputs
    are busy to ``held`` from ``nh``; returns the new ``nsend``, ``nh`` and whether a
    request lost.

    The first request is kept aside (``f_o``) until a second one comes: a request alone
    (most allocations of a torus under DOR) wins both stages, so it is granted at once
    with the same pointer moves, without the input and output slots."""
    lost = False
    nsl = 0
    f_o = -1  # the first request while it is the only one: output, packet, VC, input
    f_p = f_b = f_ip = np.int64(0)
    for part in range(2):
        lo = sw[a, SW_L0] if part == 0 else sw[a, SW_H0]
        hi = sw[a, SW_L1] if part == 0 else sw[a, SW_H1]
        for o in range(lo, hi):
            if pend[o] == 0:
                continue
            pend[o] = 2  # in this allocation's outputs
            if pt[o, W_HEAD] < 0:
                continue
            x = pt[o, BUSY]
            if x > t or (rounds and x == t and rp[o, RP_BJ] > j):
                continue
            pkt = pt[o, W_HEAD]
            while pkt >= 0:
                b = pk[pkt, P_BUF]
                ip = b // V
                y = pt[ip, IN_BUSY]
                if y > t or (rounds and y == t and rp[ip, RP_IJ] > j):
                    held[nh] = o
                    nh += 1
                    pkt = pk[pkt, P_WNEXT]
                    continue
                best = -1
                if o < EJ:
                    if vca:  # the VC it was granted, with room for the whole packet
                        best = pk[pkt, P_OVC]
                        if credits[best] < S:
                            best = -1
                    else:
                        best = _best_vc(credits, S, np.int64(p_route[pkt, pk[pkt, P_HOP]]),
                                        _vr_k(pc, pkt, pk[pkt, P_HOP], kcls, vrc))
                    if best < 0:
                        pkt = pk[pkt, P_WNEXT]
                        continue
                if nsl == 0:
                    if f_o < 0:  # the first request: aside
                        f_o, f_p, f_b, f_ip = o, pkt, best, ip
                        pkt = pk[pkt, P_WNEXT]
                        continue
                    # a second one: the first takes the first input slot
                    nsl = 1
                    pt[f_ip, IN_SLOT] = 0
                    sv[SL_IP, 0] = f_ip
                    sv[SL_N, 0] = 1
                    sl[SL_O, 0, 0] = f_o
                    sl[SL_P, 0, 0] = f_p
                    sl[SL_B, 0, 0] = f_b
                    f_o = -1
                s_ = pt[ip, IN_SLOT]
                if s_ < 0:
                    s_ = nsl
                    nsl += 1
                    pt[ip, IN_SLOT] = s_
                    sv[SL_IP, s_] = ip
                    sv[SL_N, s_] = 0
                m = sv[SL_N, s_]
                k = 0
                while k < m and sl[SL_O, s_, k] != o:
                    k += 1
                if k == m:
                    sl[SL_O, s_, k] = o
                    sl[SL_P, s_, k] = pkt
                    sl[SL_B, s_, k] = best
                    sv[SL_N, s_] = m + 1
                else:
                    vp = pt[ip, VC_PTR]
                    if (b - vp) % V < (pk[sl[SL_P, s_, k], P_BUF] - vp) % V:
                        sl[SL_P, s_, k] = pkt
                        sl[SL_B, s_, k] = best
                pkt = pk[pkt, P_WNEXT]
    if f_o >= 0:  # one request: its input and its output choose it
        pt[f_o, OUT_PTR] = (pt[f_ip, IN_LOCAL] + 1) % n
        pt[f_ip, IN_PTR] = (pt[f_o, OUT_LOCAL] + 1) % n
        pt[f_ip, VC_PTR] = (pk[f_p, P_BUF] % V + 1) % V
        sq[0, nsend], sq[1, nsend], sq[2, nsend] = f_p, f_o, f_b
        return nsend + 1, nh, lost
    nch = 0
    for s_ in range(nsl):  # each input picks one of its requests
        ip = sv[SL_IP, s_]
        pt[ip, IN_SLOT] = -1
        m = sv[SL_N, s_]
        k = 0
        if m > 1:
            lost = True
            p0 = pt[ip, IN_PTR]
            bk = n + 1
            for x in range(m):
                key = (pt[sl[SL_O, s_, x], OUT_LOCAL] - p0) % n
                if key < bk:
                    bk = key
                    k = x
        o = sl[SL_O, s_, k]
        c = pt[o, OUT_SLOT]
        if c < 0:
            c = nch
            nch += 1
            pt[o, OUT_SLOT] = c
            sv[CH_O, c] = o
            sv[CH_N, c] = 0
        q = sv[CH_N, c]
        ch[CH_IP, c, q] = ip
        ch[CH_P, c, q] = sl[SL_P, s_, k]
        ch[CH_B, c, q] = sl[SL_B, s_, k]
        sv[CH_N, c] = q + 1
    for c in range(nch):  # each output grants one input
        o = sv[CH_O, c]
        pt[o, OUT_SLOT] = -1
        m = sv[CH_N, c]
        k = 0
        if m > 1:
            lost = True
            p0 = pt[o, OUT_PTR]
            bk = n + 1
            for x in range(m):
                key = (pt[ch[CH_IP, c, x], IN_LOCAL] - p0) % n
                if key < bk:
                    bk = key
                    k = x
        ip = ch[CH_IP, c, k]
        pkt = ch[CH_P, c, k]
        pt[o, OUT_PTR] = (pt[ip, IN_LOCAL] + 1) % n
        pt[ip, IN_PTR] = (pt[o, OUT_LOCAL] + 1) % n
        pt[ip, VC_PTR] = (pk[pkt, P_BUF] % V + 1) % V
        sq[0, nsend], sq[1, nsend], sq[2, nsend] = pkt, o, ch[CH_B, c, k]
        nsend += 1
    return nsend, nh, lost


@_unit
def _alloc_end(a, t, lost, nh, sc, ev, nd, free_nodes, mask, W, sw, pt, pk, pend, held, V):
    """After a switch's allocation: the outputs whose requests lost ask again next cycle,
    the outputs held by busy inputs wake when the first of those inputs frees."""
    for part in range(2):
        lo = sw[a, SW_L0] if part == 0 else sw[a, SW_H0]
        hi = sw[a, SW_L1] if part == 0 else sw[a, SW_H1]
        for o in range(lo, hi):
            if pend[o] == 2:
                pend[o] = 1 if (lost and pt[o, W_HEAD] >= 0 and pt[o, BUSY] <= t) else 0
    if lost and sw[a, ALLOC_AT] != t + 1:
        sw[a, ALLOC_AT] = t + 1
        _push(sc, ev, nd, free_nodes, mask, W, t + 1, K_ALLOC, a, True)
    for i in range(nh):
        o = held[i]
        if pt[o, W_HEAD] >= 0 and pt[o, BUSY] <= t:
            x = 0  # the first time an input holding a packet of o frees
            pkt = pt[o, W_HEAD]
            while pkt >= 0:
                y = pt[pk[pkt, P_BUF] // V, IN_BUSY]
                if y > t and (x == 0 or y < x):
                    x = y
                pkt = pk[pkt, P_WNEXT]
            if x and (pt[o, IWAKE] < 0 or pt[o, IWAKE] > x):
                pt[o, IWAKE] = x
                _push(sc, ev, nd, free_nodes, mask, W, x, K_IWAKE, o, False)


@_unit
def _wake_next(sc, ev, nd, free_nodes, mask, W, pt, o, t):
    """``_wake_when_free`` with allocation rounds: serve ``o`` again when it frees, not
    before the next cycle (a port may free in a later round of this cycle, which this
    cycle's allocation has seen)."""
    if pt[o, W_HEAD] >= 0 and pt[o, WAKE] == 0:
        pt[o, WAKE] = 1
        x = pt[o, BUSY]
        _push(sc, ev, nd, free_nodes, mask, W, x if x > t else t + 1, K_FREE, o, False)


@_jit_borrowed
def _alloc_rounds(st, a, t):
    """The separable allocation of switch ``a`` at the end of cycle ``t`` with
    ``internal_speedup`` allocation rounds: the Python engine's ``_allocate_rounds`` (with
    ``_vc_allocate_round`` and ``_send_rounds``), event for event.  Each round runs the VC
    allocation of the heads whose pipeline has reached it, then the separable input-first
    switch allocation among the inputs and outputs free in that round; its winners cross
    at once, heads granted an output VC bid from the next round on (or are ready the next
    cycle after the last round)."""
    sc, cf, pt, bf, sw, pk, ob, vk, vq = st.sc, st.cf, st.pt, st.bf, st.sw, st.pk, st.ob, st.vk, st.vq
    ev, nd, free_nodes, sl, ch, sv = st.ev, st.nd, st.free_nodes, st.sl, st.ch, st.sv
    held, pend, gq, p_route, pc, lg, free_slots = (st.held, st.pend, st.gq, st.p_route, st.pc,
                                                   st.lg, st.free_slots)
    roff, rp, sq = st.roff, st.rp, st.sq
    credits = ob[:, CREDITS]
    mask, W, V, S, D, G = cf[C_MASK], cf[C_W], cf[C_V], cf[C_S], cf[C_D], cf[C_G]
    cdelay, kcls, injbuf0, EJ = cf[C_CD], cf[C_KCLS], cf[C_INJBUF0], cf[C_EJ]
    vca = cf[C_VCA]
    num, den, rdelay, ejroom = cf[C_RNUM], cf[C_RDEN], cf[C_RDELAY], cf[C_EJROOM]
    rkind = K_VREQ if vca else K_READY
    rlead = 1 if vca else 0
    n = (sw[a, SW_L1] - sw[a, SW_L0]) + (sw[a, SW_H1] - sw[a, SW_H0])
    g0 = t * num // den
    nr = (t + 1) * num // den - g0
    for part in range(2):  # this allocation's outputs (the Python engine's outs)
        lo = sw[a, SW_L0] if part == 0 else sw[a, SW_H0]
        hi = sw[a, SW_L1] if part == 0 else sw[a, SW_H1]
        for o in range(lo, hi):
            if pend[o] != 0:
                pend[o] = 2
    lost = False
    nh = 0
    for j in range(nr):
        g = g0 + j
        ng = 0
        if vca and sw[a, VA_N] > 0:
            ng = _vc_alloc(a, t, g, nh, True, sc, ev, nd, free_nodes, mask, W, sw, pt, pk, bf,
                           ob, vk, vq, held, gq, n, V)
        # -------------------------------------------------- switch allocation, round j
        nsend, nh, lj = _sw_alloc(a, t, j, True, sw, pt, pk, p_route, credits, pend, rp, sl,
                                  ch, sv, held, nh, sq, 0, n, V, S, EJ, kcls, vca, pc,
                                  cf[C_VRC])
        lost = lost or lj
        for i in range(nsend):  # the winners cross now
            pkt, o, b = sq[0, i], sq[1, i], sq[2, i]
            ip = np.int64(pk[pkt, P_BUF]) // V
            # ---------------------------------------------- _send_rounds
            wp, wx = pk[pkt, P_WPREV], pk[pkt, P_WNEXT]  # leave the waiting list of o
            if wp < 0:
                pt[o, W_HEAD] = wx
            else:
                pk[wp, P_WNEXT] = wx
            if wx < 0:
                pt[o, W_TAIL] = wp
            else:
                pk[wx, P_WPREV] = wp
            pk[pkt, P_WAIT] = -1
            start = t + roff[j]
            x = rp[o, RP_CHAN]
            if x > start:
                start = x
            rp[o, RP_CHAN] = start + S
            ge = g + S  # the crossbar's output is free from round ge
            c1 = ((ge + 1) * den + num - 1) // num - 1
            cj = ge - c1 * num // den
            if b < 0:  # a host: no more than ejroom flits queued for its channel
                x = start + S + S - ejroom
                if x > c1:
                    c1, cj = x, 0
            pt[o, BUSY] = c1
            rp[o, RP_BJ] = cj
            pt[o, PORT_FLITS] += S
            old = np.int64(pk[pkt, P_BUF])
            oarr = np.int64(pk[pkt, P_ARR])
            onext = pk[pkt, P_BNEXT]
            arr = start + pt[o, LAT]
            if b >= 0:
                credits[b] -= S
                pk[pkt, P_BUF] = b
                pk[pkt, P_ARR] = arr
                pk[pkt, P_BNEXT] = -1
                if bf[b, BUF_HEAD] < 0:
                    bf[b, BUF_HEAD] = pkt
                    bf[b, BUF_TAIL] = pkt
                    r = bf[b, FRONT_FREE] + G
                    x = arr + D
                    _push(sc, ev, nd, free_nodes, mask, W, (x if x > r else r) - rlead, rkind, pkt, False)
                else:
                    pk[bf[b, BUF_TAIL], P_BNEXT] = pkt
                    bf[b, BUF_TAIL] = pkt
            pk[pkt, P_HOP] += 1
            sc[LAST_MOVE] = t
            tr = g + S - 1  # the tail's round: not before the cycle it arrives in
            x = (oarr + S - 1) * num // den
            if x > tr:
                tr = x
            ct = ((tr + 1) * den + num - 1) // num - 1
            iend = ct + 1
            tr += 1
            c1 = ((tr + 1) * den + num - 1) // num - 1
            pt[ip, IN_BUSY] = c1
            rp[ip, RP_IJ] = tr - c1 * num // den
            if vca:  # the output VC is free for VC allocation from round tr
                x = pk[pkt, P_OVC]
                ob[x, FREE_AT] = tr
                if c1 > t:  # (a later round of this cycle: this allocation sees it)
                    _push(sc, ev, nd, free_nodes, mask, W, c1, K_VFREE, x, False)
                pk[pkt, P_OVC] = -1
            nxt = onext  # pkt was the front of buffer old
            bf[old, BUF_HEAD] = nxt
            if nxt < 0:
                bf[old, BUF_TAIL] = -1
            bf[old, FRONT_FREE] = iend
            cs = t + S - 1  # the last credit's cycle on the input's credit channel
            x = rp[ip, RP_CRED] + S - 1
            if x > cs:
                cs = x
            if ct > cs:
                cs = ct
            rp[ip, RP_CRED] = cs + 1
            cd = cdelay
            if cd and old >= injbuf0:
                cd = 0
            _push(sc, ev, nd, free_nodes, mask, W, cs + pt[ip, LAT] + cd, K_CREDIT, old, False)
            if nxt >= 0:
                if vca:  # its VC allocation round: rdelay rounds after it became the front
                    fv = tr + rdelay
                    x = (np.int64(pk[nxt, P_ARR]) + D) * num // den - 1
                    if x > fv:
                        fv = x
                    pk[nxt, P_VR] = fv
                    _push(sc, ev, nd, free_nodes, mask, W, ((fv + 1) * den + num - 1) // num - 1,
                          K_VREQ, nxt, False)
                else:
                    r = iend + G
                    x = pk[nxt, P_ARR] + D
                    _push(sc, ev, nd, free_nodes, mask, W, x if x > r else r, K_READY, nxt, False)
            if b < 0:  # ejected
                sc[IN_NET] -= 1
                sc[DELIVERED] += 1
                sc[CTIME_SUM] -= pc[pkt, PC_CTIME]
                ln = sc[LOG_N]
                lg[L_PID, ln] = pc[pkt, PC_PID]
                lg[L_SRC, ln] = pc[pkt, PC_SRC]
                lg[L_DST, ln] = pc[pkt, PC_DST]
                lg[L_CTIME, ln] = pc[pkt, PC_CTIME]
                lg[L_SENT, ln] = pc[pkt, PC_SENT]
                lg[L_TAIL, ln] = arr + S - 1
                lg[L_LINKS, ln] = pc[pkt, PC_LINKS]
                lg[L_MEASURED, ln] = pc[pkt, PC_MEASURED]
                sc[LOG_N] = ln + 1
                free_slots[sc[NFREE_SLOTS]] = pkt
                sc[NFREE_SLOTS] += 1
            _wake_next(sc, ev, nd, free_nodes, mask, W, pt, o, t)
        # ---------------------------------------------- heads granted an output VC
        for i in range(ng):
            pkt = gq[i]
            o = np.int64(p_route[pkt, pk[pkt, P_HOP]]) // V
            if j + 1 < nr:  # they bid from the next round on
                tl = pt[o, W_TAIL]
                pk[pkt, P_WPREV] = tl
                pk[pkt, P_WNEXT] = -1
                if tl < 0:
                    pt[o, W_HEAD] = pkt
                else:
                    pk[tl, P_WNEXT] = pkt
                pt[o, W_TAIL] = pkt
                pk[pkt, P_WAIT] = o
                pend[o] = 2
                if pt[o, BUSY] > t and pt[o, WAKE] == 0:
                    pt[o, WAKE] = 1
                    _push(sc, ev, nd, free_nodes, mask, W, pt[o, BUSY], K_FREE, o, False)
            else:
                _push(sc, ev, nd, free_nodes, mask, W, t + 1, K_READY, pkt, False)
    # -------------------------------------------------- losers retry; held inputs wake
    _alloc_end(a, t, lost, nh, sc, ev, nd, free_nodes, mask, W, sw, pt, pk, pend, held, V)



if AVAILABLE:  # called by run only: no Python or C entry point
    _alloc_rounds.targetoptions["no_cpython_wrapper"] = True
    _alloc_rounds.targetoptions["no_cfunc_wrapper"] = True


@_jit_borrowed
def run(st, until):
    """Process events with cycle < ``until`` (see the module docs for the return codes).

    One function with the state in local arrays (numba counts references on every call
    and tuple access: helpers cost more than the work of an event).  The parts follow
    the Python engine's methods: creation (``_create``), the event dispatch (``run``),
    ``_serve`` / ``_serve_switch``, ``_allocate`` (separable input-first) and ``_send``;
    the packets an event sends go through one send block, each followed by the wake-up
    of its output when packets still wait there, in the Python engine's order.
    """
    sc, cf, pt, bf, hs, sw, pk = st.sc, st.cf, st.pt, st.bf, st.hs, st.sw, st.pk
    ob, vk, vq = st.ob, st.vk, st.vq
    nsw = sw.shape[0]
    kv = vq.shape[0] // nsw  # the request rows of a switch
    ev, nd, gi, lg, sl, ch, sv = st.ev, st.nd, st.gi, st.lg, st.sl, st.ch, st.sv
    pc, p_route, free_slots, free_nodes = st.pc, st.p_route, st.free_slots, st.free_nodes
    g_route, held, sq, pend = st.g_route, st.held, st.sq, st.pend
    rp = st.rp  # (allocation rounds only)
    credits = ob[:, CREDITS]
    mask, W, V, S, D, G = cf[C_MASK], cf[C_W], cf[C_V], cf[C_S], cf[C_D], cf[C_G]
    ovh, cdelay, Sx, speedup, kcls = cf[C_OVH], cf[C_CD], cf[C_SX], cf[C_SPEEDUP], cf[C_KCLS]
    injbuf0, EJ, INJ, dl, sep = cf[C_INJBUF0], cf[C_EJ], cf[C_INJ], cf[C_DL], cf[C_SEP]
    margin, K = cf[C_MARGIN], cf[C_K]
    vca = cf[C_VCA]
    ugal, uk = cf[C_UGAL], cf[C_UK]
    ur, ui, uj, uph, ud, ub, uc = st.ur, st.ui, st.uj, st.uph, st.ud, st.ub, st.uc
    dsw, eptr, eind = st.dsw, st.eptr, st.eind
    esc, wmax, ea0, ea1 = cf[C_ESC], cf[C_WMAX], cf[C_EA0], cf[C_EA1]
    mdist, mw, ldist, lw, eph, erank, ao, wn = (st.mdist, st.mw, st.ldist, st.lw, st.eph,
                                                st.erank, st.ao, st.wn)
    anca = cf[C_ANCA]
    aspan, aweight = st.aspan, st.aweight
    # a head at a switch first asks for an output VC (one cycle before the switch) with VCA
    rkind = K_VREQ if vca else K_READY
    # released output VCs without an event each (in switch order only: see below)
    lazy = cf[C_SORT] != 0
    # granted heads join their outputs' waiting lists at the end of the allocation
    fold = lazy and vca and G >= 1
    # where they fold, a network buffer's credit, a VC request and a released-VC check go to
    # their cycle's list (see "Cycle lists")
    ccredit = K_CCREDIT if fold else K_CREDIT
    vkind = K_CVREQ if fold else rkind
    ckind = K_CVCHK if fold else K_VCHK
    W2 = 2 * W
    gq = st.gq
    rlead = 1 if vca else 0
    logcap = lg.shape[1]
    width = g_route.shape[1]
    big = np.int64(1) << 62
    pfd = cf[C_PF]
    pfb = -1  # the block whose events' rows were asked for last
    rounds = cf[C_ROUNDS]
    rnum, rden = cf[C_RNUM], cf[C_RDEN]
    # deliveries one event may log: one per output (and allocation round)
    logroom = K * (rounds if rounds else 1) + 1
    while True:
        if sc[NFREE_NODES] < margin:
            return R_NODES
        if sc[LOG_N] + logroom > logcap:
            return R_LOG
        now = sc[NOW]
        if sc[EV_COUNT] > 0:
            ht = now
            while (ev[ht & mask, EV_HEAD] < 0 and ev[(ht & mask) + W, EV_HEAD] < 0
                   and ev[(ht & mask) + W2, EV_HEAD] < 0):
                ht += 1
        else:
            ht = big
        gh = sc[GEN_HEAD]
        if gh < sc[GEN_N] and gi[G_TIME, gh] <= ht:
            # ---------------------------------------------------------- creations
            t = gi[G_TIME, gh]
            if t >= until:
                return R_DONE
            sc[NOW] = t
            while gh < sc[GEN_N] and gi[G_TIME, gh] == t:
                if sc[NFREE_SLOTS] == 0 or sc[NFREE_NODES] < margin:
                    sc[GEN_HEAD] = gh
                    return R_SLOTS if sc[NFREE_SLOTS] == 0 else R_NODES
                sc[NFREE_SLOTS] -= 1
                pkt = free_slots[sc[NFREE_SLOTS]]
                measured = 1 if sc[MEAS_FROM] <= t < sc[MEAS_TO] else 0
                sc[MEAS_CREATED] += measured
                sc[CTIME_SUM] += t
                src = gi[G_SRC, gh]
                pc[pkt, PC_PID] = sc[NEXT_PID]
                sc[NEXT_PID] += 1
                pc[pkt, PC_SRC] = src
                pc[pkt, PC_DST] = gi[G_DST, gh]
                pc[pkt, PC_CTIME] = t
                pc[pkt, PC_LINKS] = gi[G_LINKS, gh]
                pc[pkt, PC_SENT] = -1
                pc[pkt, PC_MEASURED] = measured
                pk[pkt, P_HOP] = 0
                pk[pkt, P_BUF] = -1
                pk[pkt, P_ARR] = t
                pk[pkt, P_WAIT] = -1
                pk[pkt, P_QNEXT] = -1
                pk[pkt, P_OVC] = -1
                pk[pkt, P_VAQ] = 0
                pk[pkt, P_ESC] = -1
                pk[pkt, P_NW] = 0
                pk[pkt, P_RDY] = 0
                pk[pkt, P_VR] = -1
                for h in range(width):
                    p_route[pkt, h] = g_route[gh, h]
                if hs[src, Q_HEAD] < 0:
                    hs[src, Q_HEAD] = pkt
                    hs[src, Q_TAIL] = pkt
                    r = t + ovh
                    ff = hs[src, SRC_FREE]
                    _push(sc, ev, nd, free_nodes, mask, W, r if r > ff else ff, K_READY, pkt, False)
                else:
                    pk[hs[src, Q_TAIL], P_QNEXT] = pkt
                    hs[src, Q_TAIL] = pkt
                sc[IN_SRC] += 1
                sc[SRCQ_CTIME] += t
                gh += 1
            sc[GEN_HEAD] = gh
            continue
        if ht >= until:
            return R_DONE
        t = ht
        idx = t & mask
        cl = idx + W2
        if ev[cl, EV_HEAD] >= 0:
            # ------------------------------------------------ the cycle list of t
            sc[NOW] = t
            blk = ev[cl, EV_HEAD]
            pos = ev[cl, EV_HPOS]
            tl = ev[cl, EV_TAIL]
            tp = ev[cl, EV_TPOS]
            first = True
            while True:
                if pfd and pos == 0:
                    # a pipeline over the list (its entries do little work each: the rows
                    # they read first asked for three blocks ahead, those these lead to two
                    # blocks ahead, a VC request's switch row one block ahead)
                    nb = nd[blk, NODE_NEXT]
                    if first:  # (the first blocks: asked for now)
                        first = False
                        b2 = blk
                        for _ in range(3):
                            if b2 < 0:
                                break
                            _prefetch_block(nd, b2, 0, tp if b2 == tl else EVB, 0, pk,
                                            p_route, pt, ob, sw, pend, bf, vq, V)
                            b2 = nd[b2, NODE_NEXT]
                    if nb >= 0:
                        _prefetch_block(nd, nb, 0, tp if nb == tl else EVB, 2, pk, p_route,
                                        pt, ob, sw, pend, bf, vq, V)
                        n2 = nd[nb, NODE_NEXT]
                        if n2 >= 0:
                            _prefetch_block(nd, n2, 0, tp if n2 == tl else EVB, 1, pk,
                                            p_route, pt, ob, sw, pend, bf, vq, V)
                        n3 = nd[n2, NODE_NEXT] if n2 >= 0 else -1
                        if n3 >= 0:
                            _prefetch_block(nd, n3, 0, tp if n3 == tl else EVB, 0, pk,
                                            p_route, pt, ob, sw, pend, bf, vq, V)
                            n4 = nd[n3, NODE_NEXT]
                            if n4 >= 0:
                                prefetch_row(nd, n4)
                kind = nd[blk, EV0 + 2 * pos]
                a = np.int64(nd[blk, EV0 + 2 * pos + 1])
                sc[EVK0 + kind] += 1
                if kind == K_CCREDIT:  # a network buffer's credit: serve the upstream output
                    credits[a] += S
                    o = a // V
                    if pt[o, W_HEAD] >= 0:
                        if pt[o, BUSY] > t:
                            if pt[o, WAKE] == 0:
                                pt[o, WAKE] = 1
                                _push(sc, ev, nd, free_nodes, mask, W, pt[o, BUSY], K_FREE, o, False)
                        else:
                            s_ = pt[o, OUT_SWITCH]
                            pend[o] = 1
                            if sw[s_, ALLOC_AT] != t:
                                sw[s_, ALLOC_AT] = t
                                _push(sc, ev, nd, free_nodes, mask, W, t, K_ALLOC, s_, True)
                elif kind == K_CVREQ:  # a head asks for an output VC
                    lo = np.int64(p_route[a, pk[a, P_HOP]])
                    _vc_request(a, lo, t, V, EJ, kv, kcls, pt, pk, pc, sw, vq, bf, cf, sc, ev, nd,
                                free_nodes, mask, W)
                elif sw[a, VA_N] > 0 and sw[a, ALLOC_AT] != t:  # K_CVCHK
                    sw[a, ALLOC_AT] = t
                    _push(sc, ev, nd, free_nodes, mask, W, t, K_ALLOC, a, True)
                sc[EV_COUNT] -= 1
                pos += 1
                if blk == tl and pos == tp:  # the list is empty
                    ev[cl, EV_HEAD] = -1
                    ev[cl, EV_TAIL] = -1
                    free_nodes[sc[NFREE_NODES]] = blk
                    sc[NFREE_NODES] += 1
                    break
                if pos == EVB:  # the next block
                    ev[cl, EV_HEAD] = nd[blk, NODE_NEXT]
                    ev[cl, EV_HPOS] = 0
                    free_nodes[sc[NFREE_NODES]] = blk
                    sc[NFREE_NODES] += 1
                    blk = nd[blk, NODE_NEXT]
                    pos = 0
                else:
                    ev[cl, EV_HPOS] = pos
                if sc[NFREE_NODES] < margin:  # (each entry may take a block)
                    break
            if sc[IN_NET] and t - sc[LAST_MOVE] > dl:
                sc[DEADLOCKED] = 1
                return R_DEADLOCK
            continue
        # -------------------------------------------------------------- next event
        blk = ev[idx, EV_HEAD]
        if blk < 0:
            idx += W
            if cf[C_SORT] and sc[LATE_SORTED] != t:  # the allocations in switch order
                _sort_late(sc, t, ev, nd, idx, st.srt, nsw)
            blk = ev[idx, EV_HEAD]
        pos = ev[idx, EV_HPOS]
        kind = nd[blk, EV0 + 2 * pos]
        a = nd[blk, EV0 + 2 * pos + 1]
        if (ugal and kind == K_READY and pc[a, PC_LINKS] < 0 and pk[a, P_HOP] > 0
                and sc[UD_N] < uk):
            return R_DRAWS  # the Python side draws (as the Python engine: now) and resumes
        if (anca and sc[UD_N] < 2 and (kind == K_READY or kind == K_VREQ)
                and p_route[a, pk[a, P_HOP]] < 0
                and _anca_draws(a, cf, pk, pc, pt, credits, sw, vq, dsw, eptr, aspan, V, kcls,
                                S, vca, EJ) > sc[UD_N]):
            return R_DRAWS  # (a choice that draws: the Python engine draws now)
        if pfd and pos == 0:
            # entering a block: a two-stage pipeline over the blocks ahead (the order of
            # the events is unchanged; the tables of a large network outgrow the caches):
            # the rows the events of the block after next read first, those the next
            # block's events read next (from the rows asked for one block ago), and the
            # block after those
            tl = ev[idx, EV_TAIL]
            tp = ev[idx, EV_TPOS]
            nb = nd[blk, NODE_NEXT]
            if pfb != blk:  # a new chain: nothing asked for yet
                _prefetch_block(nd, blk, 1, tp if blk == tl else EVB, 0, pk, p_route, pt,
                                ob, sw, pend, bf, vq, V)
                if nb >= 0:
                    _prefetch_block(nd, nb, 0, tp if nb == tl else EVB, 0, pk, p_route, pt,
                                    ob, sw, pend, bf, vq, V)
            if nb >= 0:
                _prefetch_block(nd, nb, 0, tp if nb == tl else EVB, 1, pk, p_route, pt, ob,
                                sw, pend, bf, vq, V)
                n2 = nd[nb, NODE_NEXT]
                if n2 >= 0:
                    _prefetch_block(nd, n2, 0, tp if n2 == tl else EVB, 0, pk, p_route, pt,
                                    ob, sw, pend, bf, vq, V)
                    n3 = nd[n2, NODE_NEXT]
                    if n3 >= 0:
                        prefetch_row(nd, n3)
            pfb = nb
        pos += 1
        if blk == ev[idx, EV_TAIL] and pos == ev[idx, EV_TPOS]:  # the list is empty
            ev[idx, EV_HEAD] = -1
            ev[idx, EV_TAIL] = -1
            free_nodes[sc[NFREE_NODES]] = blk
            sc[NFREE_NODES] += 1
        elif pos == EVB:  # the next block
            ev[idx, EV_HEAD] = nd[blk, NODE_NEXT]
            ev[idx, EV_HPOS] = 0
            free_nodes[sc[NFREE_NODES]] = blk
            sc[NFREE_NODES] += 1
        else:
            ev[idx, EV_HPOS] = pos
        sc[EV_COUNT] -= 1
        sc[EVENTS] += 1
        sc[EVK0 + kind] += 1
        sc[NOW] = t
        serve = -1
        alloc = -1
        nsend = 0
        again = -1  # escape: the network port served (more packets may leave from it)
        if kind == K_READY and esc and pk[a, P_HOP] > 0:
            # ------------------------------------------------ _ready_adaptive
            v = np.int64(dsw[pk[a, P_BUF] // V])
            dst = pc[a, PC_DST]
            d = np.int64(pt[EJ + dst, OUT_SWITCH])
            if v == d:  # eject
                o = EJ + dst
                tl = pt[o, W_TAIL]
                pk[a, P_WPREV] = tl
                pk[a, P_WNEXT] = -1
                if tl < 0:
                    pt[o, W_HEAD] = a
                else:
                    pk[tl, P_WNEXT] = a
                pt[o, W_TAIL] = a
                pk[a, P_WAIT] = o
                serve = o
            else:
                if not _esc_options(a, v, d, cf, pk, ao, eptr, eind, mdist, mw, ldist, lw, eph,
                                    erank):
                    sc[BLOCK_ARG] = a
                    return R_ROUTE
                co, cb = _esc_choose(a, t, pk, ao, pt, credits, S, V, ea0, ea1, kcls)
                if co >= 0:
                    sq[0, 0], sq[1, 0], sq[2, 0] = a, co, cb
                    nsend = 1
                else:  # wait on every port of its options (adaptive, then the escape's)
                    na = pk[a, P_NA]
                    nw = na
                    eo = pk[a, P_EO] >> 2
                    j = 0
                    while j < na and ao[a, j] != eo:
                        j += 1
                    if j == na:
                        ao[a, na] = eo
                        nw += 1
                    for j in range(nw):
                        o = np.int64(ao[a, j])
                        node = a * wmax + j
                        tl = pt[o, W_TAIL]
                        wn[node, 0] = tl
                        wn[node, 1] = -1
                        if tl < 0:
                            pt[o, W_HEAD] = node
                        else:
                            wn[tl, 1] = node
                        pt[o, W_TAIL] = node
                        if pt[o, BUSY] > t and pt[o, WAKE] == 0:
                            pt[o, WAKE] = 1
                            _push(sc, ev, nd, free_nodes, mask, W, pt[o, BUSY], K_FREE, o, False)
                    pk[a, P_NW] = nw
                    pk[a, P_WAIT] = eo
        elif kind == K_READY:
            if ugal and pc[a, PC_LINKS] < 0 and pk[a, P_HOP] > 0:  # UGAL: choose the path
                if not _ugal_choose(a, sc, cf, pt, pk, pc, p_route, credits, ur, ui, uj, uph,
                                    ud, ub, uc):
                    sc[BLOCK_ARG] = a
                    return R_ROUTE
            if anca and p_route[a, pk[a, P_HOP]] < 0:  # ANCA: route the head here (held:
                # its scratch, used by allocations only)
                _anca_choose(a, cf, sc, pk, pc, pt, p_route, credits, sw, vq, dsw, eptr, eind,
                             aspan, aweight, ud, V, kcls, S, vca, EJ, held)
            o = np.int64(p_route[a, pk[a, P_HOP]]) // V
            tl = pt[o, W_TAIL]  # append to the waiting list of o
            pk[a, P_WPREV] = tl
            pk[a, P_WNEXT] = -1
            if tl < 0:
                pt[o, W_HEAD] = a
            else:
                pk[tl, P_WNEXT] = a
            pt[o, W_TAIL] = a
            pk[a, P_WAIT] = o
            serve = o
        elif kind == K_CREDIT:
            credits[a] += S
            o = a // V
            if pt[o, W_HEAD] >= 0:
                serve = o
        elif kind == K_FREE:
            pt[a, WAKE] = 0
            if pt[a, W_HEAD] >= 0:
                serve = a
        elif kind == K_ALLOC:
            alloc = a
        elif kind == K_VREQ:  # _vc_request: join the switch's heads waiting for a VC
            if anca and p_route[a, pk[a, P_HOP]] < 0:  # ANCA: route the head here (held:
                # its scratch, used by allocations only)
                _anca_choose(a, cf, sc, pk, pc, pt, p_route, credits, sw, vq, dsw, eptr, eind,
                             aspan, aweight, ud, V, kcls, S, vca, EJ, held)
            lo = np.int64(p_route[a, pk[a, P_HOP]])
            if rounds and pk[a, P_VR] < 0:  # (else set when it became the front) the
                pk[a, P_VR] = (t + 1) * rnum // rden - 1  # cycle's last round
            _vc_request(a, lo, t, V, EJ, kv, kcls, pt, pk, pc, sw, vq, bf, cf, sc, ev, nd, free_nodes, mask,
                        W)
        elif kind == K_VFREE:  # _vc_free
            if not rounds:  # (with rounds FREE_AT holds the round it is free from)
                ob[a, OWNER] = -1
            s_ = pt[a // V, OUT_SWITCH]
            if sw[s_, VA_N] > 0 and sw[s_, ALLOC_AT] != t:
                sw[s_, ALLOC_AT] = t
                _push(sc, ev, nd, free_nodes, mask, W, t, K_ALLOC, s_, True)
        elif kind == K_VCHK:  # _vc_free's allocation request, once for the switch's VCs
            if sw[a, VA_N] > 0 and sw[a, ALLOC_AT] != t:
                sw[a, ALLOC_AT] = t
                _push(sc, ev, nd, free_nodes, mask, W, t, K_ALLOC, a, True)
        elif kind == K_IWAKE:
            if pt[a, IWAKE] == t:
                pt[a, IWAKE] = -1
            if pt[a, W_HEAD] >= 0:
                serve = a
        else:  # K_BLOCK: a Python callback
            sc[BLOCK_ARG] = a
            return R_BLOCK
        if serve >= 0:
            # ---------------------------------------------- _serve / _serve_switch
            o = serve
            if pt[o, BUSY] > t:
                if pt[o, WAKE] == 0:
                    pt[o, WAKE] = 1
                    _push(sc, ev, nd, free_nodes, mask, W, pt[o, BUSY], K_FREE, o, False)
            elif esc and o < EJ:  # _serve_adaptive: the first waiting packet that can go
                node = pt[o, W_HEAD]
                while node >= 0:
                    p_ = node // wmax
                    co, cb = _esc_choose(p_, t, pk, ao, pt, credits, S, V, ea0, ea1, kcls)
                    if co >= 0:
                        sq[0, 0], sq[1, 0], sq[2, 0] = p_, co, cb
                        nsend = 1
                        again = o
                        break
                    node = wn[node, 1]
            elif sep and o < INJ:
                s_ = pt[o, OUT_SWITCH]
                pend[o] = 1
                if sw[s_, ALLOC_AT] != t:
                    sw[s_, ALLOC_AT] = t
                    _push(sc, ev, nd, free_nodes, mask, W, t, K_ALLOC, s_, True)
            elif EJ <= o < INJ:
                sq[0, 0], sq[1, 0], sq[2, 0] = pt[o, W_HEAD], o, -1
                nsend = 1
            elif vca and o >= INJ:  # hosts: round robin from the last VC
                h = o - INJ
                last = hs[h, INJ_LAST]
                for i in range(1, V + 1):
                    x = o * V + (0 if last < 0 else (last + i) % V)
                    if credits[x] >= S:
                        hs[h, INJ_LAST] = x - o * V
                        sq[0, 0], sq[1, 0], sq[2, 0] = pt[o, W_HEAD], o, x
                        nsend = 1
                        break
            else:
                k = V if o >= INJ else kcls
                pkt = pt[o, W_HEAD]
                while pkt >= 0:
                    if o < INJ:
                        k = _vr_k(pc, pkt, pk[pkt, P_HOP], kcls, cf[C_VRC])
                    best = _best_vc(credits, S, np.int64(p_route[pkt, pk[pkt, P_HOP]]), k)
                    if best >= 0:
                        sq[0, 0], sq[1, 0], sq[2, 0] = pkt, o, best
                        nsend = 1
                        break
                    pkt = pk[pkt, P_WNEXT]
        lost = False
        nh = 0
        ng = 0
        if alloc >= 0 and rounds:
            _alloc_rounds(st, alloc, t)
            alloc = -1
        if alloc >= 0:
            # ---------------------------------------------- separable allocation
            n = (sw[alloc, SW_L1] - sw[alloc, SW_L0]) + (sw[alloc, SW_H1] - sw[alloc, SW_H0])
            if vca and sw[alloc, VA_N] > 0:
                ng = _vc_alloc(alloc, t, t, 0, False, sc, ev, nd, free_nodes, mask, W, sw, pt, pk,
                               bf, ob, vk, vq, held, gq, n, V)
                if not fold:  # each granted head ready at t + 1 by an event of its own
                    for i in range(ng):
                        _push(sc, ev, nd, free_nodes, mask, W, t + 1, K_READY, gq[i], False)
                    ng = 0
            nsend, nh, lost = _sw_alloc(alloc, t, 0, False, sw, pt, pk, p_route, credits, pend,
                                        rp, sl, ch, sv, held, 0, sq, nsend, n, V, S, EJ, kcls,
                                        vca, pc, cf[C_VRC])
        while nsend:
            for i in range(nsend):
                # -------------------------------------------------------------- _send
                pkt, o, b = sq[0, i], sq[1, i], sq[2, i]
                if esc and o < EJ:  # _send_adaptive: leave every waiting list; next state
                    _esc_unwait(pkt, pk, ao, wn, pt, wmax)
                    pk[pkt, P_ESC] = _esc_next_state(pk[pkt, P_ESC], b, o, V, ea0, esc, eph,
                                                     pk[pkt, P_EO])
                    pc[pkt, PC_LINKS] += 1
                else:  # leave the waiting list of o
                    wp, wx = pk[pkt, P_WPREV], pk[pkt, P_WNEXT]
                    if wp < 0:
                        pt[o, W_HEAD] = wx
                    else:
                        pk[wp, P_WNEXT] = wx
                    if wx < 0:
                        pt[o, W_TAIL] = wp
                    else:
                        pk[wx, P_WPREV] = wp
                    pk[pkt, P_WAIT] = -1
                end = t + S
                pt[o, BUSY] = end
                pt[o, PORT_FLITS] += S
                old = pk[pkt, P_BUF]
                oarr = pk[pkt, P_ARR]
                onext = pk[pkt, P_BNEXT]
                arr = t + pt[o, LAT]
                if b >= 0:
                    credits[b] -= S
                    pk[pkt, P_BUF] = b
                    pk[pkt, P_ARR] = arr
                    pk[pkt, P_BNEXT] = -1
                    if bf[b, BUF_HEAD] < 0:
                        bf[b, BUF_HEAD] = pkt
                        bf[b, BUF_TAIL] = pkt
                        r = bf[b, FRONT_FREE] + G
                        x = arr + D
                        _push(sc, ev, nd, free_nodes, mask, W, (x if x > r else r) - rlead, vkind, pkt, False)
                    else:
                        pk[bf[b, BUF_TAIL], P_BNEXT] = pkt
                        bf[b, BUF_TAIL] = pkt
                pk[pkt, P_HOP] += 1
                if old < 0:  # left the source queue (injection)
                    src = pc[pkt, PC_SRC]
                    nxt = pk[pkt, P_QNEXT]
                    hs[src, Q_HEAD] = nxt
                    sc[IN_SRC] -= 1
                    sc[SRCQ_CTIME] -= pc[pkt, PC_CTIME]
                    if sc[IN_NET] == 0:
                        sc[LAST_MOVE] = t
                    sc[IN_NET] += 1
                    pc[pkt, PC_SENT] = t
                    hs[src, SRC_FREE] = end
                    if nxt >= 0:
                        r = pc[nxt, PC_CTIME] + ovh
                        _push(sc, ev, nd, free_nodes, mask, W, r if r > end else end, K_READY, nxt, False)
                    else:
                        hs[src, Q_TAIL] = -1
                else:
                    sc[LAST_MOVE] = t
                    if vca:  # the output VC is free for VC allocation once the tail has crossed
                        x = pk[pkt, P_OVC]
                        if lazy:  # its cycle in the row, one check per switch and cycle
                            ob[x, FREE_AT] = t + Sx
                            s_ = pt[o, OUT_SWITCH]
                            if sw[s_, CHK_AT] != t + Sx:
                                sw[s_, CHK_AT] = t + Sx
                                _push(sc, ev, nd, free_nodes, mask, W, t + Sx, ckind, s_, False)
                        else:
                            _push(sc, ev, nd, free_nodes, mask, W, t + Sx, K_VFREE, x, False)
                        pk[pkt, P_OVC] = -1
                    nxt = onext  # pkt was the front of buffer old
                    bf[old, BUF_HEAD] = nxt
                    if nxt < 0:
                        bf[old, BUF_TAIL] = -1
                    iend = end
                    if speedup:  # the tail leaves the input buffer early, but not before it arrived
                        iend = t + Sx
                        if oarr + S > iend:
                            iend = oarr + S
                    bf[old, FRONT_FREE] = iend
                    pt[old // V, IN_BUSY] = iend
                    cd = cdelay
                    if cd and old >= injbuf0:
                        cd = 0
                    _push(sc, ev, nd, free_nodes, mask, W, iend - 1 + pt[old // V, LAT] + cd,
                          K_CREDIT if old >= injbuf0 else ccredit, old, False)
                    if nxt >= 0:
                        r = iend + G
                        x = pk[nxt, P_ARR] + D
                        _push(sc, ev, nd, free_nodes, mask, W, (x if x > r else r) - rlead, vkind, nxt, False)
                if b < 0:  # ejected
                    sc[IN_NET] -= 1
                    sc[DELIVERED] += 1
                    sc[CTIME_SUM] -= pc[pkt, PC_CTIME]
                    ln = sc[LOG_N]
                    lg[L_PID, ln] = pc[pkt, PC_PID]
                    lg[L_SRC, ln] = pc[pkt, PC_SRC]
                    lg[L_DST, ln] = pc[pkt, PC_DST]
                    lg[L_CTIME, ln] = pc[pkt, PC_CTIME]
                    lg[L_SENT, ln] = pc[pkt, PC_SENT]
                    lg[L_TAIL, ln] = arr + S - 1
                    lg[L_LINKS, ln] = pc[pkt, PC_LINKS]
                    lg[L_MEASURED, ln] = pc[pkt, PC_MEASURED]
                    sc[LOG_N] = ln + 1
                    free_slots[sc[NFREE_SLOTS]] = pkt
                    sc[NFREE_SLOTS] += 1
                if pt[o, W_HEAD] >= 0 and pt[o, WAKE] == 0:  # serve o again when it frees
                    pt[o, WAKE] = 1
                    _push(sc, ev, nd, free_nodes, mask, W, pt[o, BUSY], K_FREE, o, False)
            nsend = 0
            if again >= 0 and sq[1, 0] != again and pt[again, W_HEAD] >= 0:
                # _serve_adaptive goes on: the packet left on another port
                node = pt[again, W_HEAD]
                while node >= 0:
                    p_ = node // wmax
                    co, cb = _esc_choose(p_, t, pk, ao, pt, credits, S, V, ea0, ea1, kcls)
                    if co >= 0:
                        sq[0, 0], sq[1, 0], sq[2, 0] = p_, co, cb
                        nsend = 1
                        break
                    node = wn[node, 1]
        if alloc >= 0:
            # ---------------------------------------- losers retry; held inputs wake
            _alloc_end(alloc, t, lost, nh, sc, ev, nd, free_nodes, mask, W, sw, pt, pk, pend,
                       held, V)
            # ------------------------------------ the granted heads, ready at t + 1
            t1 = t + 1
            for i in range(ng):
                pkt = gq[i]
                o = np.int64(p_route[pkt, pk[pkt, P_HOP]]) // V
                tl = pt[o, W_TAIL]
                pk[pkt, P_WPREV] = tl
                pk[pkt, P_WNEXT] = -1
                if tl < 0:
                    pt[o, W_HEAD] = pkt
                else:
                    pk[tl, P_WNEXT] = pkt
                pt[o, W_TAIL] = pkt
                pk[pkt, P_WAIT] = o
                pk[pkt, P_RDY] = t1
                if pt[o, BUSY] > t1:
                    if pt[o, WAKE] == 0:
                        pt[o, WAKE] = 1
                        _push(sc, ev, nd, free_nodes, mask, W, pt[o, BUSY], K_FREE, o, False)
                else:  # (an output of this switch: the separable allocation serves it)
                    pend[o] = 1
                    if sw[alloc, ALLOC_AT] != t1:
                        sw[alloc, ALLOC_AT] = t1
                        _push(sc, ev, nd, free_nodes, mask, W, t1, K_ALLOC, alloc, True)
        if sc[IN_NET] and t - sc[LAST_MOVE] > dl:
            sc[DEADLOCKED] = 1
            return R_DEADLOCK

