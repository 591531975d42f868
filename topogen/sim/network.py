"""The static part of a reference simulation: ports, link latencies and routes
(:class:`Network`)."""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, RoutingError
from .config import SimConfig

__all__ = ["Network"]


class Network:
    """The static part of a simulation: ports, latencies and routes.

    Parameters
    ----------
    routing : topogen.routing.Routing
        Routes and the VC of each hop.  The simulator's ``num_vcs`` VCs are split into
        ``routing.num_vcs`` classes of ``k = num_vcs // routing.num_vcs`` VCs; a hop on
        routing VC ``c`` may use any VC of class ``c`` (``c*k .. c*k+k-1``).  Replicating
        every channel of an acyclic channel dependency graph keeps it acyclic, so a
        deadlock-free routing stays deadlock-free.  An escape routing (one with
        ``minimal`` and ``escape_routing`` tables) is routed adaptively by the
        :class:`Engine`: class 0 is its escape channel, classes 1.. its adaptive VCs
        (:meth:`adaptive_options`, :meth:`escape_hop`); :meth:`route` then gives its
        deterministic minimal path (the empty network's choice).
    config : SimConfig
    layout : Layout, optional
        Link delays (ns) converted to cycles with ``config.cycle_ns`` (rounded up, at
        least 1) when ``config.link_latency`` is None; default ``routing.layout``.
        Without either, links take 1 cycle.
    """

    def __init__(self, routing, config: SimConfig, layout=None):
        topo = routing.topology
        self.routing = routing
        self.topology = topo
        self.config = config
        n = topo.num_switches
        view = routing.view
        self.indptr = view.indptr
        self.indices = view.indices
        m = len(self.indices)
        hosts = np.asarray(topo.hosts, dtype=np.int64)
        num_hosts = int(hosts.sum())
        if num_hosts < 1:
            raise ParameterError("the topology has no hosts to simulate (hosts_per_switch = 0)")
        if routing.num_vcs > config.num_vcs:
            raise ParameterError(
                f"the {routing.algorithm} routing needs {routing.num_vcs} VCs, the simulator has "
                f"num_vcs={config.num_vcs}; raise num_vcs to at least {routing.num_vcs}")
        self.num_switches = n
        self.num_hosts = num_hosts
        self.num_links = m
        self.host_offset = np.concatenate([[0], np.cumsum(hosts)[:-1]]).astype(np.int64)
        self.host_switch = np.repeat(np.arange(n, dtype=np.int64), hosts)
        self.vcs_per_class = config.num_vcs // routing.num_vcs
        layout = layout if layout is not None else routing.layout
        if config.link_latency is not None:
            lat_links = np.full(m, int(config.link_latency), dtype=np.int64)
            self.latency_source = f"link_latency={config.link_latency} cycles"
        elif layout is not None:
            delay = np.asarray(layout.link_delay, dtype=float)[np.asarray(topo.directed_edge_ids)]
            lat_links = np.maximum(1, np.ceil(delay / config.cycle_ns - 1e-9)).astype(np.int64)
            self.latency_source = f"layout link delays / {config.cycle_ns:g} ns per cycle"
        else:
            lat_links = np.ones(m, dtype=np.int64)
            self.latency_source = "1 cycle per link (no layout)"
        self.link_cycles = lat_links
        self.latency = np.concatenate([
            lat_links, np.full(num_hosts, config.ejection_latency, dtype=np.int64),
            np.full(num_hosts, config.injection_latency, dtype=np.int64)])
        self.ej_base = m
        self.inj_base = m + num_hosts
        self.num_ports = m + 2 * num_hosts
        self._table = hasattr(routing, "route_matrix") and routing.deterministic
        self._cache: dict[int, tuple[tuple, tuple]] = {}
        # Adaptive routing with an escape channel (topogen.routing.escape): routed hop by
        # hop at run time (Engine), not from route().
        self.adaptive = (getattr(routing, "escape_routing", None) is not None
                         and getattr(routing, "minimal", None) is not None)
        if self.adaptive:
            self._setup_adaptive(routing)
        # BookSim's min_adapt_torus: offers evaluated per hop by the flit-level engine
        # (topogen.sim._adaptive.MinAdaptChoice); route() gives the empty network's route
        self.min_adapt = getattr(routing, "run_time_choice", None) == "min-adapt-torus"
        if self.min_adapt and config.flow_control != "wormhole":
            raise ParameterError(f"the {routing.algorithm} routing chooses among BookSim's offered VCs in the "
                                 f"flit-level router: use flow_control='wormhole' (--flow-control wormhole; got "
                                 f"{config.flow_control!r})")
        # UGAL-L / UGAL-G: MIN or a Valiant path chosen per packet at the source switch
        # from the queues (Engine, topogen.sim._ugal); route() gives the MIN path
        from ..routing.ugal import UgalRouting

        self.ugal = isinstance(routing, UgalRouting)
        # BookSim's adaptive flatfly routings: chosen by the engine at the source router
        # (topogen.sim._flatfly_choice); route() gives the empty network's choice
        self.ffly = getattr(routing, "engine_choice", None) == "flatfly"
        # Valiant: the same draw as ValiantRouting.path, the segments from a cache
        from ..routing.valiant import ValiantRouting

        self._valiant = isinstance(routing, ValiantRouting) and not self.ugal
        self._segments: dict[int, tuple] = {}
        # ANCA: the up ports chosen hop by hop from the credits (Engine, topogen.sim._anca;
        # the compiled engine's event core likewise); route() gives the NCA table's route
        from ..routing.anca import AncaRouting

        self.anca = isinstance(routing, AncaRouting)
        if self.anca:
            if config.router != "input-queued" or config.flow_control == "wormhole":
                raise ParameterError(
                    f"ANCA chooses its up ports in the input-queued virtual cut-through router; "
                    f"got router={config.router!r}, flow_control={config.flow_control!r}: use "
                    f"router='input-queued' with virtual cut-through, or routing nca")

    def local_ports(self):
        """(out_local, in_local): each port's index among its switch's outputs and inputs,
        the order of the separable allocator's round-robin arbiters
        (``config.port_order``, :mod:`topogen.sim._ports`)."""
        if getattr(self, "_local_ports", None) is None:
            from ._ports import local_ports

            self._local_ports = local_ports(self, self.config.port_order)
        return self._local_ports

    # ------------------------------------------------------------ adaptive (escape) routing
    def _setup_adaptive(self, routing) -> None:
        """Tables of the escape routing's run-time choices (see :meth:`adaptive_options`)."""
        k = self.vcs_per_class
        v = self.config.num_vcs
        esc = routing.escape_routing
        ne = int(getattr(routing, "escape_classes", 1))
        self.escape_vcs = (0, ne * k)  # simulator VCs of the escape VCs 0 .. ne-1
        self.adaptive_vcs = (ne * k, routing.num_vcs * k)  # routing VCs ne .. num_vcs-1
        self.escape_return = bool(routing.params.get("escape_return", False))
        # per (escape state, switch, destination): the escape hop's rank, VC, next state
        # (up*/down*: VC 0, the state from the link's phase, without the N x N tables)
        if getattr(routing, "escape_paths", "updown") == "updown":
            self._esc_ranks, self._esc_vc, self._esc_next = esc.ranks, None, None
        else:
            self._esc_ranks, self._esc_vc, self._esc_next = routing.escape_table()
        self._esc_sentinel = esc.sentinel
        self._esc_phase = esc.entry_phase.astype(np.int64).tolist()
        self._indices_l = self.indices.tolist()
        mn = routing.minimal
        self._min_dist = mn.distances
        self._min_weight = mn.entry_weight
        self._aopt: dict[int, tuple] = {}
        self._eopt: dict[int, tuple] = {}
        self._vstride = v

    def adaptive_options(self, s: int, d: int) -> tuple:
        """The adaptive choices at switch ``s`` toward switch ``d``: one
        ``(port, first buffer, end buffer)`` per minimal next hop (increasing neighbour
        id), the buffers being the adaptive VCs of that port."""
        n = self.num_switches
        key = s * n + d
        r = self._aopt.get(key)
        if r is not None:
            return r
        lo, hi = int(self.indptr[s]), int(self.indptr[s + 1])
        if self._min_dist is not None and self._min_weight is not None:
            dist = self._min_dist[d]
            ok = (dist[self.indices[lo:hi]].astype(np.int64) + self._min_weight[lo:hi]
                  == int(dist[s]))
            ents = (np.flatnonzero(ok) + lo).tolist()
        else:  # tables with one next hop per pair: the deterministic minimal next hop
            w = int(self.routing.minimal.next_hop(d)[s])
            ents = [int(self.routing.view.entry(s, w))]
        if not ents:
            raise RoutingError(f"{self.routing.algorithm} routing has no minimal next hop at "
                               f"switch {s} toward {d}")
        V = self._vstride
        a0, a1 = self.adaptive_vcs
        r = tuple((e, e * V + a0, e * V + a1) for e in ents)
        self._aopt[key] = r
        return r

    def escape_hop(self, phase: int, s: int, d: int) -> tuple:
        """The escape choice ``(port, first buffer, end buffer, next state)`` at switch
        ``s`` toward ``d`` in escape state ``phase`` (up*/down*: 0 no down link taken yet on
        the escape channel; DOR: the dateline class; ``routing.escape_table()``): the
        buffers of the hop's escape VC, the packet's escape state after the hop."""
        n = self.num_switches
        key = (phase * n + s) * n + d
        r = self._eopt.get(key)
        if r is not None:
            return r
        rank = int(self._esc_ranks[phase, s, d])
        if rank == self._esc_sentinel:
            raise RoutingError(f"{self.routing.escape_paths} escape table has no entry at switch {s} "
                               f"toward {d} (phase {phase})")
        e = int(self.indptr[s]) + rank
        V = self._vstride
        k = self.vcs_per_class
        if self._esc_vc is None:  # up*/down*: VC 0, phase max(phase, the link's)
            r = (e, e * V, e * V + k, max(phase, self._esc_phase[e]))
        else:
            b0 = e * V + int(self._esc_vc[phase, s, d]) * k
            r = (e, b0, b0 + k, int(self._esc_next[phase, s, d]))
        self._eopt[key] = r
        return r

    # ------------------------------------------------------------ routes
    def prefetch(self, src_sw: np.ndarray, dst_sw: np.ndarray) -> None:
        """Compute (vectorised) and cache the routes of these switch pairs."""
        if not self._table or not len(src_sw):
            return
        n = self.num_switches
        keys = np.unique(np.asarray(src_sw, dtype=np.int64) * n + np.asarray(dst_sw, dtype=np.int64))
        cache = self._cache
        new = np.fromiter((k for k in keys.tolist() if k not in cache), dtype=np.int64)
        if not len(new):
            return
        s, d = new // n, new % n
        ent, vcs = self.routing.route_matrix(s, d)
        k = self.vcs_per_class
        ent_l = ent.T.tolist()
        vc_l = (vcs.T.astype(np.int64) * k).tolist()
        for j, key in enumerate(new.tolist()):
            row = ent_l[j]
            h = row.index(-1) if -1 in row else len(row)
            cache[key] = (tuple(row[:h]), tuple(vc_l[j][:h]))

    def route(self, s: int, d: int, rng) -> tuple[tuple, tuple]:
        """(CSR entries, first VC of the class of each hop) from switch ``s`` to ``d``."""
        key = s * self.num_switches + d
        r = self._cache.get(key)
        if r is not None:
            return r
        if s == d and not getattr(self.routing, "routes_self", False):
            r = ((), ())
        elif self._valiant and rng is not None:
            from ..routing.valiant import _draw_mid

            m = _draw_mid(self.num_switches, s, d, rng)
            ent = self._segment(s, m) + self._segment(m, d)
            k = self.vcs_per_class
            if self.routing.vc_ranges:  # the first VC of each hop's block
                return ent, tuple(int(v) * k for v in self.routing._range_vcs(range(len(ent))))
            return ent, tuple(h * k for h in range(len(ent)))
        else:
            sw, vcs = self.routing.path(s, d, rng)
            ent = self.routing.view.entry(sw[:-1], sw[1:])
            if np.any(ent < 0):
                raise RoutingError(f"{self.routing.algorithm} route {s}->{d} uses a missing link")
            r = (tuple(int(e) for e in ent), tuple(int(v) * self.vcs_per_class for v in vcs))
        if self.routing.deterministic:
            self._cache[key] = r
        return r

    def _segment(self, s: int, d: int) -> tuple:
        """CSR entries of the Valiant base route from ``s`` to ``d`` (cached)."""
        key = s * self.num_switches + d
        r = self._segments.get(key)
        if r is None:
            base = self.routing.base
            sw, _ = base.path(s, d)
            r = tuple(int(e) for e in base.view.entry(sw[:-1], sw[1:]))
            self._segments[key] = r
        return r

    def zero_load_latency(self, src_host: int, dst_host: int) -> int:
        """Analytic latency of a packet alone in the network (see the module docs)."""
        c = self.config
        s, d = int(self.host_switch[src_host]), int(self.host_switch[dst_host])
        ent, _ = self.route(s, d, None)
        return (c.injection_overhead + c.injection_latency + (len(ent) + 1) * c.router_delay
                + int(sum(int(self.link_cycles[e]) for e in ent)) + c.ejection_latency
                + c.packet_size - 1)
