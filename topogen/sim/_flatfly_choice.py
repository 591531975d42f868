"""BookSim's credit-adaptive flattened-butterfly routings (:mod:`topogen.routing.
flatfly_adaptive`: ``flatfly-adaptive-xyyx``, ``flatfly-ugal``, ``flatfly-ugal-xyyx``) in
the reference simulator's Python engines (a mixin of :class:`~topogen.sim.model.Engine`,
also taken by the flit-level :class:`~topogen.sim._wormhole.WormholeEngine`).

A packet is created with only its injection port (``links = -1``, as UGAL's); the route is
chosen when its head first asks for an output VC at the source router -- BookSim computes
the route of a head arriving on an injection input (``in_channel < gC``) and never
revisits it -- from ``GetUsedCredit`` of the candidate first-hop ports
(``IQRouter::GetUsedCredit``: ``_next_buf[port]->Occupancy()``, the flits sent on the port
over all its VCs and not yet credited back; here ``num_vcs x vc_buf_size`` minus the
port's credits, packets waiting at the router not counted).  The rules are
:func:`~topogen.routing.flatfly_adaptive.choose_order` and
:func:`~topogen.routing.flatfly_adaptive.ugal_minimal`; the random draws (the order on a
tie, the intermediate router's coordinates) come from the simulation's generator.  The
compiled engine does not make these choices: the network runs on the Python engine
(``compiled_covers`` gives the reason).
"""

from __future__ import annotations

from ..errors import ParameterError

#: uniform draws fetched from the generator at a time
_DRAWS = 4096


class FlatflyChoice:
    """The engine's per-packet choice of BookSim's adaptive flatfly routings."""

    ffly = False  # set by _setup_ffly when the network's routing is one of them

    def _setup_ffly(self, net) -> None:
        # the rules' module is imported here, by a network that routes by them: a torus's
        # run never imports it
        from ..routing import flatfly_adaptive

        r = net.routing
        c = net.config
        if c.router != "input-queued":
            raise ParameterError(f"{r.algorithm} chooses from the input-queued router's credits; got "
                                 f"router={c.router!r}: use router='input-queued'")
        self.ffly = True
        self.ugal = True  # packets are created unrouted (UgalChoice._create_ugal) and chosen once
        self.ffly_kind = r.kind
        self.ffly_r = r
        self.ffly_rules = flatfly_adaptive
        self.ffly_dims = r.dims
        self.ffly_full = self.V * c.vc_buf_size  # flits of an empty port's buffers
        self.ffly_draws: list = []
        self.ffly_routes: dict = {}
        # packets that took [X first / minimal, Y first / through an intermediate] (diagnostics)
        self.ffly_choices = [0, 0]

    def _ffly_draw(self, k: int) -> int:
        """A uniform integer ``0 .. k - 1`` from the simulation's generator."""
        d = self.ffly_draws
        if not d:
            d.extend(self.rng.random(_DRAWS).tolist())
        return int(d.pop() * k)

    def _ffly_route(self, s: int, d: int, order: str, mid) -> tuple:
        """(port entries, class per hop) of a route (cached)."""
        key = (s, d, order, mid)
        r = self.ffly_routes.get(key)
        if r is None:
            rt = self.ffly_r
            sw, cls = rt.route_of(s, d, order, mid)
            ent = rt.view.entry(sw[:-1], sw[1:])
            r = (tuple(int(e) for e in ent), tuple(int(x) for x in cls))
            self.ffly_routes[key] = r
        return r

    def _used(self, o: int) -> int:
        """BookSim's ``GetUsedCredit(o)``: flits in flight or held downstream of port ``o``."""
        V = self.V
        b = o * V
        return self.ffly_full - sum(self.credits[b:b + V])

    def _choose_ugal(self, pkt) -> None:
        if not self.ffly:
            return super()._choose_ugal(pkt)
        return self._choose_ffly(pkt)

    def _choose_ffly(self, pkt) -> None:
        """Give ``pkt`` (its head at the source router) its route (module docs)."""
        hs = self.host_switch
        s, d = hs[pkt.src], hs[pkt.dst]
        kind = self.ffly_kind
        route = self._ffly_route
        mid = None
        rules = self.ffly_rules
        if kind == "flatfly-adaptive-xyyx":
            used = self._used
            q_xy = used(route(s, d, "xy", None)[0][0])
            q_yx = used(route(s, d, "yx", None)[0][0])
            order = rules.choose_order(q_xy, q_yx, self._ffly_draw(2) if q_xy == q_yx else 0)
            self.ffly_choices[order == "yx"] += 1
        else:
            # ugal_xyyx draws the order first (RandomInt(1) > 0: X first); ugal is X first
            order = ("xy" if self._ffly_draw(2) else "yx") if kind == "flatfly-ugal-xyyx" else "xy"
            dims = self.ffly_dims
            m = rules.ugal_intermediate(dims, s, d, self._ffly_draw)
            min_hop = rules.router_distance(dims, s, d)
            q_min = self._used(route(s, d, order, None)[0][0])
            if m == s:
                q_non = None
            else:
                q_non = self._used(route(s, m, order, None)[0][0])
            nonmin_hop = rules.router_distance(dims, s, m) + rules.router_distance(dims, m, d)
            if not rules.ugal_minimal(min_hop, q_min, nonmin_hop, q_non):
                mid = m
            self.ffly_choices[mid is not None] += 1
        ent, cls = route(s, d, order, mid)
        kc = self.kcls
        pkt.ports = pkt.ports + ent + (self.ej_base + pkt.dst,)
        pkt.vlo = (0,) + tuple(c * kc for c in cls)
        pkt.links = len(ent)
