"""BookSim2's ``dim_order_bal`` on a torus (``dim_order_bal_torus``, ``dor_next_torus``
with ``balance = true`` in ``src/routefunc.cpp``): :func:`dor_bal`.

The route is BookSim's ``dim_order``: the dimensions in increasing order, each ring the
shorter way, the direction drawn per packet and dimension when both ways are equally long
(``RandomInt(1)``).  What differs is the VC half of a ring segment (chosen when the packet
turns into the dimension, kept to the end of the segment; Cray's "partition"
allocation), with two datelines, one between coordinates ``k - 1`` and ``0`` and one
between ``(k - 1) / 2`` and ``(k - 1) / 2 + 1`` (integer division):

* a segment that crosses the wrap link takes the upper half (VC 1 here);
* one that crosses the middle dateline takes the lower half (VC 0);
* any other segment takes a half drawn per packet and dimension (``RandomInt(1)``).

Every VC at the destination router (the ejection).  topogen's routing has 2 VCs, one per
half; the simulator shares a port's VCs out over them, which is BookSim's split.  No
segment on VC 1 crosses the middle dateline and none on VC 0 crosses the wrap link, so
each class is a broken ring and the channel dependency graph is acyclic:
:meth:`BalancedDor.dependency_chunks` gives every dependency any draw can create (per
pair, every tie direction and every allowed half of every segment).  topogen's
``dor-random`` is the same route with ``dim_order``'s one-dateline classes (VC 1 for a
segment that crosses the wrap link, else VC 0).
"""

from __future__ import annotations

import itertools

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError, RoutingError
from .base import Routing, _check_switch
from .dor import ring_step, torus_rings

__all__ = ["BalancedDor", "dor_bal", "segment_halves"]


def segment_halves(k: int, cur: int, dest: int, plus: bool) -> tuple[int, ...]:
    """The VC halves BookSim's balanced partition allows a ring segment from coordinate
    ``cur`` to ``dest`` on a ring of ``k`` in the + direction (``plus``) or the -: ``(1,)``
    across the wrap link, ``(0,)`` across the middle dateline, else ``(0, 1)`` (drawn)."""
    mid = (k - 1) // 2
    if (plus and cur > dest) or (not plus and cur < dest):
        return (1,)
    if (plus and cur <= mid < dest) or (not plus and dest <= mid < cur):
        return (0,)
    return (0, 1)


class BalancedDor(Routing):
    """``dor-bal`` (module docs).  ``path(src, dst, rng)`` draws the tie directions and the
    free halves with ``rng`` (a :class:`numpy.random.Generator`), or with the routing's own
    generator (seeded from ``seed``) when ``rng`` is None."""

    deterministic = False

    def __init__(self, topology, seed=None):
        dims = torus_rings(topology, "dor-bal is BookSim's dim_order_bal", "dor")
        seed = resolve_seed(seed)
        super().__init__(topology, algorithm="dor-bal",
                         params={"seed": seed, "as": "BookSim dim_order_bal_torus", "dims": list(dims),
                                 "vc_rule": "balanced partition: VC 1 across the wrap link, VC 0 across the "
                                            "middle dateline, else drawn per segment"},
                         num_vcs=2)
        self.dims = tuple(int(x) for x in dims)
        self.seed = seed
        self._rng = make_rng(seed)
        strides = [1]
        for x in self.dims[:-1]:
            strides.append(strides[-1] * x)
        self._strides = strides

    def segments(self, src: int, dst: int):
        """Per dimension the packet crosses: ``(dimension, cur, dest, (+ allowed, - allowed))``
        with the directions BookSim may take (both on a tie)."""
        out = []
        for i, k in enumerate(self.dims):
            st = self._strides[i]
            c, t = (src // st) % k, (dst // st) % k
            if c == t:
                continue
            way = ring_step(k, t - c, 0)  # 0: a tie, both ways
            out.append((i, c, t, (way >= 0, way <= 0)))
        return out

    def walk(self, src: int, dst: int, choices) -> tuple[np.ndarray, np.ndarray]:
        """The path for one ``(plus, half)`` choice per crossed dimension."""
        sw, vcs = [int(src)], []
        v = int(src)
        for (i, c, t, _), (plus, half) in zip(self.segments(src, dst), choices):
            k, st = self.dims[i], self._strides[i]
            step = 1 if plus else -1
            while c != t:
                nc = (c + step) % k
                v += (nc - c) * st
                c = nc
                sw.append(v)
                vcs.append(half)
        sw_a = np.asarray(sw, dtype=np.int32)
        if len(sw_a) > 1 and np.any(self.view.entry(sw_a[:-1], sw_a[1:]) < 0):
            raise RoutingError(f"dor-bal: the torus has no link on the route {src}->{dst}")
        return sw_a, np.asarray(vcs, dtype=np.int16)

    def options(self, src: int, dst: int):
        """Every ``(plus, half)`` choice list a packet from ``src`` to ``dst`` can draw."""
        per_dim = []
        for i, c, t, (can_plus, can_minus) in self.segments(src, dst):
            k = self.dims[i]
            opts = []
            for plus in (True, False):
                if (can_plus if plus else can_minus):
                    opts += [(plus, h) for h in segment_halves(k, c, t, plus)]
            per_dim.append(opts)
        return itertools.product(*per_dim)

    def path(self, src: int, dst: int, rng=None):
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        rng = self._rng if rng is None else rng
        choices = []
        for i, c, t, (can_plus, can_minus) in self.segments(src, dst):
            plus = can_plus if not (can_plus and can_minus) else bool(rng.integers(2))
            halves = segment_halves(self.dims[i], c, t, plus)
            choices.append((plus, halves[0] if len(halves) == 1 else int(rng.integers(2))))
        return self.walk(src, dst, choices)

    # ------------------------------------------------------------ deadlock check
    def describe_check(self) -> str:
        return "every route of every draw: each tie direction and each allowed VC half of each segment"

    def dependency_chunks(self, pairs=None):
        """Every dependency of every draw (module docs); ``pairs`` is ignored."""
        n, v = self.num_switches, self.num_vcs
        a_list, b_list = [], []
        for s in range(n):
            for d in range(n):
                if s == d:
                    continue
                for choice in self.options(s, d):
                    sw, vcs = self.walk(s, d, choice)
                    ch = self.view.entry(sw[:-1], sw[1:]).astype(np.int64) * v + vcs
                    a_list.append(ch[:-1])
                    b_list.append(ch[1:])
        a = np.concatenate(a_list) if a_list else np.zeros(0, np.int64)
        b = np.concatenate(b_list) if b_list else np.zeros(0, np.int64)
        yield np.unique(np.concatenate([a, b])), a, b

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "dor-bal"
        return md


def dor_bal(topology, *, seed=None, num_vcs: int | None = None) -> BalancedDor:
    """BookSim2's ``dim_order_bal`` on topogen's ``torus``: dimension order with random
    ties and the balanced two-dateline VC halves (module docs).

    Raises
    ------
    ParameterError
        Not a torus, a ring shorter than 3, or ``num_vcs`` other than 2.
    """
    if num_vcs not in (None, 2):
        raise ParameterError(f"dor-bal has two VC halves: 2 routing VCs (the simulator shares a port's VCs out "
                             f"over them, as BookSim halves them), got vcs={num_vcs}")
    return BalancedDor(topology, seed=seed)
