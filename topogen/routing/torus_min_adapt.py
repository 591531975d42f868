"""BookSim2's ``min_adapt_torus`` (``src/routefunc.cpp``) on topogen's ``torus``:
:func:`min_adapt`, routed hop by hop at run time by the reference simulator's flit-level
engine (:class:`topogen.sim._adaptive.MinAdaptChoice`).

What BookSim's routing function offers (``routefunc.cpp``, ``min_adapt_torus``, lines
1718-1794 of the fetched source, and ``dor_next_torus``, lines 573-639), with 4 VCs
(``vcBegin = 0``; other packet types are not used by the synthetic traffic):

* at injection (``inject``): every VC of the injection channel (lines 1738-1741); the
  traffic manager takes the first one after the host's last that is free;
* at the destination router: the ejection port on every VC (lines 1742-1745);
* a packet that arrived on the injection port (``in_channel == 2n``) or on an adaptive
  VC (``in_vc > vcBegin + 1``, i.e. VC 2 or 3; lines 1747-1752 and 1759) is offered

  - for every dimension whose coordinate differs, in increasing dimension order, the
    minimal direction on **VC 3 only** with priority 1 (lines 1762-1774); the direction
    is + when ``dist2 = k - 2 ((dest - cur) mod k) > 0`` and - otherwise, so at a ring
    distance of exactly ``k/2`` the adaptive hop always goes - (the random tie of
    ``dor_next_torus`` is commented out here);
  - the dimension-order *escape* with priority 0 (lines 1776-1781): ``dor_next_torus``
    called with ``in_port = 2n`` ("as if we had injected at this node"): the lowest
    differing dimension, its minimal direction (a tie drawn, ``RandomInt(1)``), and the
    ring *partition* of that segment: 1 when it goes + from ``cur > dest`` or - from
    ``cur > dest``, else 0 (lines 619-628, the fixed-dateline branch, ``balance =
    false``); the escape VC is the partition (VC 0 or VC 1, lines 1788-1792);
* a packet on an escape VC (VC 0 or 1) is offered the escape only (lines 1782-1786):
  ``dor_next_torus`` with its real input port, which continues straight (``in_port ^ 1``,
  the partition kept from the previous router) while the packet's input dimension is
  still the lowest differing one, and turns (new direction and partition) otherwise.
  There is no way back from the escape to VC 3.  VC 2 is never offered in the network.

How the router chooses (``src/routers/iq_router.cpp`` ``_VCAllocEvaluate``, lines
553-700, requests at 631-685): the input VC requests every offered output VC that no packet holds
(``IsAvailableFor``; ``vc_busy_when_full = 0``: a full but unheld VC is requested), with
the offer's priority as input priority; BookSim's ``separable_input_first`` VC allocator
(``allocators/separable_input_first.cpp``) lets each input VC's round-robin arbiter take
the request of highest priority, ties by the arbiter's pointer (``roundrobin_arb.hpp``
``Supersedes``), then each output VC's arbiter grants one input VC.  So the escape is
taken only when VC 3 of every productive port is held by another packet.

Deadlock freedom (Duato): the escape sub-network is BookSim's ``dim_order`` with the
fixed dateline on VCs 0 and 1, entered at any router as if the packet were injected
there, and never left.  :meth:`TorusMinAdapt.dependency_chunks` gives the channel
dependencies of every escape route (every switch to every destination, both directions
on a ring tie), so :func:`topogen.routing.deadlock.check` tests the escape's CDG.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError, RoutingError
from .base import Routing, _check_switch
from .dor import ring_step, torus_rings

__all__ = ["TorusMinAdapt", "min_adapt", "ADAPTIVE_VC", "ESCAPE_VCS"]

#: the only adaptive VC (``vcBegin + 3``) and the escape VCs (``vcBegin``, ``vcBegin + 1``)
ADAPTIVE_VC = 3
ESCAPE_VCS = (0, 1)


class TorusMinAdapt(Routing):
    """BookSim's ``min_adapt_torus`` (module docs).  Ports are BookSim's ``kncube.cpp``
    numbers: output ``2d`` to the + neighbour of dimension ``d``, ``2d + 1`` to the -
    neighbour, ``2n`` the host; input ``2d + 1`` from the - neighbour (a packet moving
    +), ``2d`` from the + neighbour, ``2n`` the injection channel.

    Attributes
    ----------
    dims : tuple of int
    out_entry : numpy.ndarray
        ``out_entry[v, p]``: CSR entry of output port ``p < 2n`` of switch ``v``.
    in_port : numpy.ndarray
        BookSim's input port number of each CSR entry at its downstream switch.
    """

    deterministic = False
    #: the flit-level engine routes this routing hop by hop (topogen.sim._adaptive)
    run_time_choice = "min-adapt-torus"

    def __init__(self, topology, seed=None):
        dims = torus_rings(topology, "min-adapt is BookSim's min_adapt_torus", "escape")
        if len(set(int(x) for x in dims)) != 1:
            raise ParameterError(f"min-adapt is BookSim's k-ary n-cube: every ring of the same size k, "
                                 f"got dims={tuple(dims)}")
        seed = resolve_seed(seed)
        super().__init__(topology, algorithm="min-adapt",
                         params={"seed": seed, "as": "BookSim min_adapt_torus", "dims": list(dims),
                                 "adaptive_vc": ADAPTIVE_VC, "escape_vcs": list(ESCAPE_VCS),
                                 "escape": "dim_order with the fixed dateline (VC 0 / VC 1 per ring segment)"},
                         num_vcs=4)
        self.dims = tuple(int(x) for x in dims)
        self.k = self.dims[0]
        self.n = len(self.dims)
        self.seed = seed
        self._rng = make_rng(seed)
        nsw, k, n = self.num_switches, self.k, self.n
        v = np.arange(nsw, dtype=np.int64)
        out = np.empty((nsw, 2 * n), dtype=np.int64)
        in_port = np.full(len(self.view.indices), -1, dtype=np.int64)
        for d in range(n):
            st = k ** d
            c = (v // st) % k
            plus = v + (((c + 1) % k) - c) * st
            minus = v + (((c - 1) % k) - c) * st
            out[:, 2 * d] = self.view.entry(v, plus)
            out[:, 2 * d + 1] = self.view.entry(v, minus)
            in_port[out[:, 2 * d]] = 2 * d + 1
            in_port[out[:, 2 * d + 1]] = 2 * d
        if (out < 0).any() or (in_port < 0).any():
            raise RoutingError("min-adapt: the torus lacks a k-ary n-cube link")
        self.out_entry = out
        self.in_port = in_port

    # ------------------------------------------------------------ BookSim's functions
    def partition(self, plus: bool, cur: int, dest: int) -> int:
        """``dor_next_torus``'s fixed-dateline partition of a ring segment from coordinate
        ``cur`` to ``dest`` (lines 622-628): 1 for + from ``cur > dest`` and for - from
        ``cur > dest``, else 0."""
        return 1 if cur > dest else 0

    def dor_next(self, cur: int, dest: int, in_port: int, ph: int, tie) -> tuple[int, int]:
        """BookSim's ``dor_next_torus(cur, dest, in_port, &out_port, &ph, false)``:
        ``(out_port, partition)``; ``tie()`` gives ``RandomInt(1)`` (1: +) when the ring
        distance is exactly ``k/2``.  The partition is kept (``ph``) on a hop that continues
        in the same dimension, and at the destination (``out_port = 2n``)."""
        k, n = self.k, self.n
        for d in range(n):
            if cur % k != dest % k:
                break
            cur //= k
            dest //= k
        else:
            return 2 * n, ph
        if in_port // 2 == d:
            return in_port ^ 1, ph
        c, t = cur % k, dest % k
        plus = ring_step(k, t - c, tie) > 0
        return (2 * d if plus else 2 * d + 1), self.partition(plus, c, t)

    def offers(self, v: int, dst: int, in_port: int, in_vc: int, ph: int, tie):
        """``min_adapt_torus`` at switch ``v`` toward switch ``dst`` for a head that came
        in on BookSim input port ``in_port`` (``2n``: injection) on VC ``in_vc`` with
        partition ``ph``: ``([(output port, VC, priority), ...], new ph)`` in BookSim's
        order (adaptive outputs by dimension, then the escape); at the destination the
        ejection port ``2n`` on every VC."""
        n, k = self.n, self.k
        if v == dst:
            return [(2 * n, x, 0) for x in range(self.num_vcs)], ph
        out = []
        if in_port == 2 * n or in_vc > ESCAPE_VCS[1]:
            cur, dest = v, dst
            for d in range(n):
                c, t = cur % k, dest % k
                if c != t:
                    out.append((2 * d if ring_step(k, t - c, -1) > 0 else 2 * d + 1, ADAPTIVE_VC, 1))
                cur //= k
                dest //= k
            port, ph = self.dor_next(v, dst, 2 * n, ph, tie)
        else:
            port, ph = self.dor_next(v, dst, in_port, ph, tie)
        out.append((port, ESCAPE_VCS[ph], 0))
        return out, ph

    # ------------------------------------------------------------ routes
    def escape_walk(self, s: int, d: int, ties) -> tuple[list, list]:
        """The escape route from switch ``s`` (entered there, as if injected) to ``d``:
        (switches, VCs) with ``ties`` the + / - choice of each tied segment in turn."""
        it = iter(ties)
        sw, vcs = [s], []
        v, in_port, ph = s, 2 * self.n, 0
        while v != d:
            port, ph = self.dor_next(v, d, in_port, ph, lambda: next(it))
            e = int(self.out_entry[v, port])
            vcs.append(ESCAPE_VCS[ph])
            v = int(self.view.indices[e])
            in_port = int(self.in_port[e])
            sw.append(v)
        return sw, vcs

    def _ties(self, s: int, d: int) -> int:
        k = self.k
        return sum(1 for i in range(self.n) if ring_step(k, d // k ** i - s // k ** i, 0) == 0)

    def path(self, src: int, dst: int, rng=None):
        """The route of an empty network: every hop on VC 3 (free VC 3s win over the
        escape), the lowest differing dimension first (which productive port BookSim's
        round-robin arbiter takes depends on its pointer), ties at ``k/2`` going -."""
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        sw, v, in_port = [src], src, 2 * self.n
        while v != dst:
            opts, _ = self.offers(v, dst, in_port, ADAPTIVE_VC, 0, lambda: 0)
            e = int(self.out_entry[v, opts[0][0]])
            in_port = int(self.in_port[e])
            v = int(self.view.indices[e])
            sw.append(v)
        return np.asarray(sw, dtype=np.int32), np.full(len(sw) - 1, ADAPTIVE_VC, dtype=np.int16)

    # ------------------------------------------------------------ deadlock check
    def describe_check(self) -> str:
        return ("escape sub-network (VCs 0 and 1): dimension order with the fixed dateline from every "
                "switch to every destination, both directions of a ring tie (Duato's condition; VC 3 "
                "not included)")

    def dependency_chunks(self, pairs=None):
        """Channel dependencies (``entry * 4 + VC``) of every escape route (module docs);
        ``pairs`` (switch pairs) restricts the entry points and destinations."""
        nsw, v = self.num_switches, self.num_vcs
        if pairs is None:
            todo = ((s, d) for s in range(nsw) for d in range(nsw) if s != d)
        else:
            todo = ((int(s), int(d)) for s, d in np.asarray(pairs).reshape(-1, 2) if s != d)
        a_list, b_list, used = [], [], []
        for s, d in todo:
            for ties in itertools.product((1, 0), repeat=self._ties(s, d)):
                sw, vcs = self.escape_walk(s, d, ties)
                sw = np.asarray(sw, dtype=np.int64)
                ch = self.view.entry(sw[:-1], sw[1:]).astype(np.int64) * v + np.asarray(vcs, dtype=np.int64)
                used.append(ch)
                a_list.append(ch[:-1])
                b_list.append(ch[1:])
        a = np.concatenate(a_list) if a_list else np.zeros(0, np.int64)
        b = np.concatenate(b_list) if b_list else np.zeros(0, np.int64)
        yield np.unique(np.concatenate(used)) if used else np.zeros(0, np.int64), a, b

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "min-adapt"
        return md


def min_adapt(topology, *, seed=None, num_vcs: int | None = None) -> TorusMinAdapt:
    """BookSim2's ``min_adapt_torus`` on topogen's ``torus`` (module docs): minimal
    adaptive on VC 3, dimension order with the fixed dateline on VCs 0 and 1 as escape.

    Raises
    ------
    ParameterError
        Not a torus of equal rings of at least 3 switches, or ``num_vcs`` other than 4.
    """
    if num_vcs not in (None, 4):
        raise ParameterError(f"min-adapt uses BookSim's VCs 0 and 1 (escape), 2 (unused) and 3 (adaptive): "
                             f"4 routing VCs, got vcs={num_vcs}")
    return TorusMinAdapt(topology, seed=seed)
