"""SST merlin's own VC rules on topogen's table routings.

merlin's built-in topologies (sst-elements ``src/sst/elements/merlin/topology``) route
on coordinates and set a packet's VC as they go; two of their rules cannot be written
as topogen's per-link ``dateline`` rule, because the VC of a hop depends on where the
packet has been:

``"toggle"`` (``torus.cc`` / ``mesh.cc`` ``route_packet``)
    a packet starts on VC 0; when a dimension is done the VC is reset to the even VC;
    at a router whose coordinate in the dimension being routed is 0 the VC the packet
    came in on is toggled (``vc ^ 1`` of ``route_packet``'s ``vc`` argument, not of the
    reset VC) if it came in on a network port (not at its source).  So a + wrap hop
    (from ``k - 1`` to 0) still runs on VC 0 and the rest of that segment on VC 1; a
    packet that turns into a dimension at coordinate 0 runs it on VC 1 if it came in on
    VC 0, and on VC 0 if it came in on VC 1.

``"after-global"`` (``dragonfly.cc`` ``route_nonadaptive``, ``minimal``)
    VC 0 up to and over the global link; VC 1 from the router the global link enters
    (``setVC(vc + 1)`` on arrival over a global port).

:func:`merlin_vcs` returns the base table routing with its routes unchanged and these
VCs; :func:`topogen.routing.check` builds its channel dependency graph from the same
rule (:meth:`MerlinVcRouting._first_vc` / :meth:`MerlinVcRouting._next_vc`), so a
network on which the rule is not deadlock-free is found before it is simulated.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .base import TableRouting

__all__ = ["MerlinVcRouting", "merlin_vcs", "MERLIN_VC_RULES"]

#: the rules (module docs)
MERLIN_VC_RULES = ("toggle", "after-global")


class MerlinVcRouting(TableRouting):
    """``base``'s routes with one of merlin's VC rules (:data:`MERLIN_VC_RULES`, module
    docs); two VCs.  ``zero_at[v, d]``: whether switch ``v``'s coordinate in dimension
    ``d`` is 0 (``toggle``); ``is_global[e]``: whether CSR entry ``e`` is a global link
    (``after-global``)."""

    def __init__(self, base: TableRouting, rule: str, *, zero_at=None, is_global=None):
        if rule not in MERLIN_VC_RULES:
            raise ParameterError(f"merlin VC rule must be one of {', '.join(MERLIN_VC_RULES)}, got {rule!r}")
        entry_dim = base.entry_dim if base.entry_dim is not None else np.zeros(len(base.view.indices), np.int8)
        super().__init__(base.topology, base.ranks, layout=base.layout, algorithm=f"{base.algorithm}-merlin-vcs",
                         params=dict(base.params, vc_rule=f"merlin {rule}", base=base.algorithm), num_vcs=2,
                         vc_rule="dateline", entry_phase=base.entry_phase, entry_dim=entry_dim,
                         entry_wrap=np.zeros(len(base.view.indices), bool), distances=base.distances,
                         entry_weight=base.entry_weight)
        self.rule = rule
        # not one of TableRouting's rules: path, route_matrix and the CDG check's
        # _first_vc / _next_vc below give the VCs (the compiled CDG closure knows only those)
        self.vc_rule = f"merlin-{rule}"
        self.src_of = np.repeat(np.arange(self.num_switches, dtype=np.int64), np.diff(self.view.indptr))
        if rule == "toggle":
            if zero_at is None or base.entry_dim is None:
                raise ParameterError("the toggle rule needs zero_at and the base routing's entry_dim")
            self.zero_at = np.asarray(zero_at, dtype=bool)
        else:
            if is_global is None:
                raise ParameterError("the after-global rule needs is_global (one flag per CSR entry)")
            self.is_global = np.asarray(is_global, dtype=bool)

    # the VC of the first hop and of a hop after another (also the CDG check's)
    def _first_vc(self, src, dst, e) -> np.ndarray:
        return np.zeros(len(np.atleast_1d(e)), dtype=np.int64)

    def _next_vc(self, e, vc, e2) -> np.ndarray:
        e, e2, vc = np.asarray(e), np.asarray(e2), np.asarray(vc)
        if self.rule == "after-global":
            return np.where(self.is_global[e], 1, vc).astype(np.int64)
        d2 = self.entry_dim[e2].astype(np.int64)
        same = d2 == self.entry_dim[e].astype(np.int64)
        at = self.view.indices[e]  # the router between the two hops (never the source)
        toggle = self.zero_at[at, d2]
        # torus.cc toggles the VC the packet came in on (vc ^ 1), not the reset one
        return np.where(toggle, vc ^ 1, np.where(same, vc, 0)).astype(np.int64)

    def path(self, src: int, dst: int, rng=None):
        sw, _ = super().path(src, dst, rng)
        sw = np.asarray(sw)
        if len(sw) < 2:
            return sw, np.zeros(0, dtype=np.int16)
        ent = np.asarray(self.view.entry(sw[:-1], sw[1:]), dtype=np.int64)
        vcs = [0]
        for a, b in zip(ent[:-1], ent[1:]):
            vcs.append(int(self._next_vc(np.array([a]), np.array([vcs[-1]]), np.array([b]))[0]))
        return sw, np.asarray(vcs, dtype=np.int16)

    def route_matrix(self, src, dst, *, with_vcs: bool = True):
        ent, _ = super().route_matrix(src, dst, with_vcs=False)
        if not with_vcs:
            return ent, None
        vcs = np.full(ent.shape, -1, dtype=np.int16)
        if not len(ent):
            return ent, vcs
        cur = np.zeros(ent.shape[1], dtype=np.int64)
        live = ent[0] >= 0
        vcs[0, live] = 0
        for h in range(1, len(ent)):
            live = ent[h] >= 0
            if not live.any():
                break
            cur[live] = self._next_vc(ent[h - 1, live], cur[live], ent[h, live])
            vcs[h, live] = cur[live]
        return ent, vcs


def merlin_vcs(base: TableRouting, rule: str) -> MerlinVcRouting:
    """``base`` (topogen's ``dor`` on a torus or mesh, or ``dragonfly-min``) with merlin's
    VC rule ``rule`` (module docs): ``toggle`` needs a ``torus``/``mesh`` (its ``dims``
    parameter), ``after-global`` a ``dragonfly`` (its ``global`` link kind)."""
    t = base.topology
    if rule == "toggle":
        dims = t.params.get("dims") if hasattr(t, "params") else None
        if dims is None:
            raise ParameterError("merlin's toggle VC rule runs on a torus or mesh (a topology with dims)")
        dims = [int(x) for x in dims]
        n = t.num_switches
        v = np.arange(n, dtype=np.int64)
        zero_at = np.zeros((n, len(dims)), dtype=bool)
        stride = 1
        for d, k in enumerate(dims):
            zero_at[:, d] = (v // stride) % k == 0
            stride *= k
        return MerlinVcRouting(base, rule, zero_at=zero_at)
    if rule == "after-global":
        names = list(t.kind_names)
        if "global" not in names:
            raise ParameterError("merlin's after-global VC rule runs on a dragonfly (links of kind 'global')")
        g = names.index("global")
        kind = np.asarray(t.link_kind)
        view = base.view
        # the kind of each CSR entry: the link between its two switches
        link_of = {}
        for i, (a, b) in enumerate(np.asarray(t.edges).tolist()):
            link_of[a, b] = link_of[b, a] = i
        src = np.repeat(np.arange(t.num_switches), np.diff(view.indptr))
        is_global = np.array([kind[link_of[a, b]] == g for a, b in zip(src.tolist(), view.indices.tolist())],
                             dtype=bool)
        return MerlinVcRouting(base, rule, is_global=is_global)
    raise ParameterError(f"merlin VC rule must be one of {', '.join(MERLIN_VC_RULES)}, got {rule!r}")
