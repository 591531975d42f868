"""Cross-validation against SST merlin's own topologies (``topogen crossval --native FAMILY
--simulators sst``): for each family merlin builds itself, three runs side by side,

(a) ``native``: merlin's own topology subcomponent and its routing (``merlin.torus``, ...),
    cabled as its pymerlin builder cables it, with topogen's NICs and router parameters;
(b) ``reference``: topogen's generator of the same size and host attachment with topogen's
    equivalent routing on the reference simulator run as SST runs (``reference-sst``: the
    output-buffered router, periodic injection, latency to the head);
(c) ``export``: that topology exported by topogen to SST (``merlin.anytopo`` with the
    routing's source routes, VC = hop index).

Port numbering, host attachment and routing rules are read from sst-elements'
``src/sst/elements/merlin/topology`` (``*.cc`` and ``pymerlin-topo-*.py``); docs/crossval.md
gives the reading and the measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from .crossval_native import (SATURATION_BRACKET, SATURATION_TOLERANCE, UP_TO, NativeFamily, NativeResult, _Column,
                              _point, _topogen_graph, default_loads, saturation_entries, verdict_lines)

__all__ = ["merlin_torus_wiring", "merlin_torus_route", "merlin_dragonfly_wiring", "merlin_native_bundle",
           "crossval_native_sst", "nx_graph_of_wiring", "native_command",
           "merlin_network", "MerlinNetwork", "merlin_route", "merlin_hyperx_wiring", "merlin_fattree_wiring",
           "merlin_global_link_map", "native_bundle", "SST_FAMILIES", "SST_ROUTINGS"]


def _merlin_loc(rid: int, dims) -> list:
    """``idToLocation`` of merlin's torus (dimension 0 fastest)."""
    loc = []
    for k in dims:
        loc.append(rid % k)
        rid //= k
    return loc


def merlin_torus_wiring(dims, local_ports: int = 1, mesh: bool = False) -> dict:
    """SST merlin's ``merlin.torus`` / ``merlin.mesh`` cabling rebuilt from
    ``pymerlin-topo-mesh.py`` (``_build_impl``, width 1): ``{(router, port): (router,
    port)}`` for every router-router port.  Router ``i`` at ``idToLocation(i)``; port
    ``2d`` goes to the + neighbour of dimension ``d`` over link ``link_<me>_<+nbr>``,
    port ``2d + 1`` to the - neighbour over ``link_<-nbr>_<me>`` (the same link as that
    neighbour's port ``2d``); ports ``2n ..`` are the ``local_ports`` endpoints
    ``local_ports * i + j`` (``torus.cc``'s ``get_dest_router = dest / local_ports``)."""
    n_routers = int(np.prod(dims))
    ends: dict = {}
    for i in range(n_routers):
        me = _merlin_loc(i, dims)
        port = 0
        for d, k in enumerate(dims):
            for sign in (1, -1):
                if mesh and not 0 <= me[d] + sign < k:
                    port += 1
                    continue
                other = list(me)
                other[d] = (me[d] + sign) % k
                key = (tuple(me), tuple(other)) if sign == 1 else (tuple(other), tuple(me))
                ends.setdefault(key, []).append((i, port))
                port += 1
    out = {}
    for key, pair in ends.items():
        if len(pair) != 2:
            raise ValueError(f"merlin link {key} has {len(pair)} ends")
        (a, pa), (b, pb) = pair
        out[a, pa], out[b, pb] = (b, pb), (a, pa)
    return out


def merlin_torus_route(dims, src: int, dst: int) -> list:
    """The hops ``(router, output port, VC)`` of a packet from router ``src`` to router
    ``dst`` in ``merlin.torus`` (``torus.cc``'s ``route_packet``, width 1, VN 0): the
    first dimension that differs, the + direction when ``dist_pos <= dist_neg``; VC 0 from
    ``process_input``, reset to the even VC when a dimension is done; at a router whose
    coordinate in the routing dimension is 0, when the packet came in on a network port,
    the VC it came in on toggled (``vc ^ 1`` of the argument: a packet that came in on VC 1
    and turns there leaves on VC 0)."""
    wiring = merlin_torus_wiring(dims)
    hops, rid, in_net, vc, rdim = [], src, False, 0, 0
    while rid != dst:
        me, dest = _merlin_loc(rid, dims), _merlin_loc(dst, dims)
        vc_in = vc  # route_packet's vc argument: the VC the packet came in on
        for d in range(rdim, len(dims)):
            if dest[d] != me[d]:
                k = dims[d]
                pos, neg = (dest[d] - me[d]) % k, (me[d] - dest[d]) % k
                port = 2 * d + (0 if pos <= neg else 1)
                if me[d] == 0 and in_net:
                    vc = vc_in ^ 1  # toggles the incoming VC, not the reset one
                break
            rdim += 1
            vc = vc_in & ~1
        hops.append((rid, port, vc))
        rid = wiring[rid, port][0]
        in_net = True
    return hops


def merlin_dragonfly_wiring(p: int, a: int, h: int, groups: int | None = None) -> dict:
    """SST merlin's ``merlin.dragonfly`` cabling rebuilt from
    ``pymerlin-topo-dragonfly.py`` (``_build_impl`` with the default ``global_link_map``,
    ``global_routes = "absolute"``, one intragroup link, ``intergroup_links = 1``):
    ``{(router, port): (router, port)}``.  Router ``g a + r``; ports ``0 .. p-1`` its
    hosts, then one port to each other router of the group in increasing ``r``, then ``h``
    global ports: port ``j`` carries the link numbered ``r h + j`` among the other groups
    (``dest_grp``, plus one from the router's own group on).  Raises if a link does not
    have two ends."""
    groups = a * h + 1 if groups is None else int(groups)
    ng = groups - 1
    gmap = merlin_global_link_map(a, h, groups)
    igpr = len(gmap) // a
    ends: dict = {}
    for g in range(groups):
        for r in range(a):
            rid, port = g * a + r, p
            for q in range(a):
                if q != r:
                    ends.setdefault(("l", g, min(q, r), max(q, r)), []).append((rid, port))
                    port += 1
            for j in range(igpr):
                raw = gmap[r * igpr + j]
                if raw != -1:
                    num, dest = divmod(raw, ng)
                    dest += dest >= g
                    ends.setdefault(("g", min(dest, g), max(dest, g), num), []).append((rid, port))
                port += 1
    out = {}
    for key, pair in ends.items():
        if len(pair) != 2:
            raise ValueError(f"merlin dragonfly link {key} has {len(pair)} ends")
        (x, px), (y, py) = pair
        out[x, px], out[y, py] = (y, py), (x, px)
    return out




def merlin_native_bundle(bundle_path, out_path, dims, local_ports: int = 1):
    """topogen's SST bundle of ``torus(dims)`` rewritten as SST merlin's own
    ``merlin.torus``: every cable on the ports :func:`merlin_torus_wiring` gives it,
    endpoint ``e`` on port ``2n + e % local_ports`` of router ``e // local_ports``, and
    ``native_topology`` naming the subcomponent and its parameters (the model,
    ``sst_models/topogen_sst.py``, then builds ``merlin.torus`` routers and NICs without
    source routes).  Every other field (latencies, router and NIC parameters) is the
    export's."""
    import json

    from ..results import atomic_write_text

    doc = json.loads(Path(bundle_path).read_text())
    dims = tuple(int(k) for k in dims)
    if min(dims) < 3:
        raise ParameterError(f"merlin.torus with a side of 2 has two cables between a pair of routers; "
                             f"compare sides of 3 or more, got {dims}")
    wiring = merlin_torus_wiring(dims, local_ports)
    port_to = {(u, w): p for (u, p), (w, _) in wiring.items()}
    for link in doc["links"]:
        u, v = int(link["u"]), int(link["v"])
        link["port_u"], link["port_v"] = port_to[u, v], port_to[v, u]
    net = 2 * len(dims)
    for ep in doc["endpoints"]:
        e = int(ep["id"])
        if int(ep["router"]) != e // local_ports:
            raise ParameterError(f"endpoint {e} is on router {ep['router']}, merlin.torus puts it on "
                                 f"{e // local_ports}")
        ep["port"] = net + e % local_ports
    for r in doc["routers"]:
        r["num_ports"] = net + local_ports
    doc["native_topology"] = {"name": "merlin.torus",
                              "params": {"shape": "x".join(map(str, dims)), "width": "x".join("1" * len(dims)),
                                         "local_ports": int(local_ports)}}
    atomic_write_text(Path(out_path), json.dumps(doc, indent=1, sort_keys=True))
    return Path(out_path)


#: SST merlin's own topologies compared (``--native FAMILY --simulators sst``)
SST_FAMILIES = ("torus", "mesh", "hyperx", "dragonfly", "fattree")
#: merlin's routing of each family compared here (the first is the default)
SST_ROUTINGS = {"torus": ("dor",), "mesh": ("dor",), "hyperx": ("DOR", "valiant", "DOAL", "MIN-A", "DOR-ND", "VDAL"),
                "dragonfly": ("minimal", "valiant", "ugal", "adaptive-local", "min-a"), "fattree": ("deterministic", "adaptive")}
#: topogen's routing of merlin's randomised and adaptive ones (topogen.routing.merlin_adaptive)
#: and how merlin's rule reads
MERLIN_ADAPTIVE = {
    ("hyperx", "valiant"): ("merlin-hyperx-valiant", "an intermediate router other than the source, DOR to it on "
                            "VC 0, DOR to the destination on VC 1 (hyperx.cc routeValiant)"),
    ("hyperx", "DOAL"): ("merlin-hyperx-doal", "dimension order, one adaptive hop per dimension from the output "
                         "queues: direct q(VC 0) against 2 q(VC 1) + 1 of every other link (hyperx.cc routeDOAL)"),
    ("dragonfly", "valiant"): ("merlin-dragonfly-valiant", "an intermediate group (a router inside the source "
                               "group); VC +1 where a global link enters (dragonfly.cc process_input, "
                               "route_nonadaptive)"),
    ("dragonfly", "ugal"): ("merlin-dragonfly-ugal", "minimal unless q(minimal) > 2 q(valiant) + 50 flits at the "
                            "source router (dragonfly.cc route_ugal)"),
    ("dragonfly", "adaptive-local"): ("merlin-dragonfly-adaptive-local", "valiant's draw; at the source router the "
                                      "valiant route when its first output buffer has more than twice the free "
                                      "space of the minimal one (dragonfly.cc route_adaptive_local)"),
    ("dragonfly", "min-a"): ("merlin-dragonfly-min-a", "minimal (one global link per pair of groups: one minimal "
                             "port); VC 0, VC 1 from the router a global link enters (dragonfly.cc route_mina)"),
    ("hyperx", "MIN-A"): ("merlin-hyperx-min-a", "minimal, any unaligned dimension: the lowest q(port, next VC), "
                          "the lowest dimension on a tie; hop h on VC h (hyperx.cc routeMINA)"),
    ("fattree", "deterministic"): ("merlin-fattree-deterministic", "up port (dest / k^level) mod k, the "
                                    "destination host's digit, to the nearest common ancestor, then down; one "
                                    "route per host pair; one VC (fattree.cc route_deterministic)"),
    ("fattree", "adaptive"): ("merlin-fattree-adaptive", "route_deterministic's up port (the destination host's "
                               "digit) unless its output buffer is less than half free, then the up port with the "
                               "most free space; down deterministic; one VC (fattree.cc route_packet)"),
    ("hyperx", "VDAL"): ("merlin-hyperx-vdal", "any link of an unaligned dimension, non-minimal weighed 2 q + 1, "
                         "not twice in the dimension just routed, ties drawn; minimal (MIN-A) once the VCs left equal "
                         "the unaligned dimensions; hop h on VC h of 2n (hyperx.cc routeVDAL)"),
    ("hyperx", "DOR-ND"): ("dor", "DOR; the least loaded of a dimension's parallel links, which width 1 does not "
                           "have: DOR's route (hyperx.cc routeDORND)"),
}


@dataclass(frozen=True)
class MerlinNetwork:
    """One merlin-native network: its cabling, host attachment and subcomponent, and
    topogen's generator and routing of the same network."""

    family: str
    k: int
    n: int
    name: str  # merlin's subcomponent, e.g. "merlin.hyperx"
    params: dict  # the subcomponent's parameters (as pymerlin gives them)
    wiring: dict  # {(router, port): (router, port)} of every router-router port
    endpoints: tuple  # endpoint e -> (router, port)
    num_ports: tuple  # ports of each router (hr_router num_ports)
    generator: str
    gen_params: dict
    routing: str  # topogen's routing name
    native_routing: str  # merlin's
    note: str = ""  # how merlin's routing and VCs read
    router_params: dict = field(default_factory=dict)  # hr_router parameters the native run needs
    vc_rule: str | None = None  # merlin's VC rule on topogen's routing (topogen.routing.merlin_vcs)

    @property
    def hosts_per_router(self) -> list:
        c = [0] * len(self.num_ports)
        for r, _ in self.endpoints:
            c[r] += 1
        return c

    def graph(self):
        """merlin's router graph (node attribute ``hosts``)."""
        import networkx as nx

        g = nx.Graph()
        for r, h in enumerate(self.hosts_per_router):
            g.add_node(r, hosts=h)
        g.add_edges_from((a, b) for (a, _), (b, _) in self.wiring.items())
        return g


#: (k, n) of each family when not given: 16 routers, the 72-host dragonfly, the 16-host fat tree
SST_DEFAULT_SIZES = {"torus": (4, 2), "mesh": (4, 2), "hyperx": (4, 2), "dragonfly": (2, 1), "fattree": (4, 2)}


def merlin_network(family: str, k: int | None = None, n: int | None = None,
                   routing: str | None = None) -> MerlinNetwork:
    """merlin's own ``family`` and topogen's equivalent: ``torus``/``mesh``/``hyperx`` of
    side ``k`` in ``n`` dimensions (one endpoint per router), ``dragonfly`` with ``k``
    hosts per router, ``2k`` routers per group, ``k`` global links per router and ``2k^2 +
    1`` groups (``n`` must be 1), ``fattree``: the ``k``-ary ``n``-tree (merlin shape
    ``k,k:...:k,k:k``); sizes default to :data:`SST_DEFAULT_SIZES`."""
    from .._validate import check_int

    if family not in SST_FAMILIES:
        raise ParameterError(f"SST merlin's native family must be one of {', '.join(SST_FAMILIES)}, got {family!r}")
    k = SST_DEFAULT_SIZES[family][0] if k is None else k
    n = SST_DEFAULT_SIZES[family][1] if n is None else n
    choices = SST_ROUTINGS[family]
    routing = choices[0] if routing is None else routing
    if routing not in choices:
        raise ParameterError(f"SST merlin's {family} is compared with its routing {' or '.join(choices)}, got "
                             f"{routing!r} (--routing)")
    if family in ("torus", "mesh", "hyperx"):
        k = check_int("k", k, 3 if family == "torus" else 2,
                      hint=" (merlin.torus side; 2 would double the cables)" if family == "torus" else "")
        n = check_int("n", n, 1)
        dims = (k,) * n
        shape = {"shape": "x".join(map(str, dims)), "width": "x".join("1" * n), "local_ports": 1}
        if family == "hyperx":
            wiring = merlin_hyperx_wiring(dims)
            net = n * (k - 1)
            topo_routing, note = MERLIN_ADAPTIVE.get(("hyperx", routing), (
                "dor", "DOR: the lowest dimension that differs first, straight to the destination's coordinate; one "
                "VC (hyperx.cc routeDOR)"))
            return MerlinNetwork("hyperx", k, n, "merlin.hyperx", dict(shape, algorithm=routing), wiring,
                                 tuple((r, net) for r in range(k ** n)), (net + 1,) * k ** n, "hyperx",
                                 {"dims": list(dims)}, topo_routing, routing, note)
        wiring = merlin_torus_wiring(dims, mesh=family == "mesh")
        name = "merlin.torus" if family == "torus" else "merlin.mesh"
        if family == "torus":
            note, extra = "dimension order, ties to +, VC toggled at coordinate 0 (torus.cc)", {}
        else:
            # mesh.cc declares one VC per VN (getVCsPerVN) but route_packet still toggles
            # the VC (vc ^ 1) when a packet turns into a dimension at coordinate 0: with
            # hr_router's num_vns = 1 that VC does not exist (packets are lost); with
            # hr_router's own default num_vns = 2 it is VN 1's VC, which VN 0 then borrows
            note = ("dimension order; VC toggled when a packet turns into a dimension at coordinate 0 "
                    "(mesh.cc route_packet), which needs hr_router's default num_vns = 2 (mesh.cc declares "
                    "1 VC per VN)")
            extra = {"num_vns": 2}
        return MerlinNetwork(family, k, n, name, shape, wiring, tuple((r, 2 * n) for r in range(k ** n)),
                             (2 * n + 1,) * k ** n, family, {"dims": list(dims)}, "dor", "dor", note, extra,
                             "toggle")
    if family == "dragonfly":
        p = check_int("k", k, 1, hint=" (merlin dragonfly's hosts per router)")
        if n != 1:
            raise ParameterError(f"the dragonfly compared is sized by k alone (hosts per router): n must be 1, "
                                 f"got n={n}")
        a, h = 2 * p, p
        groups = a * h + 1
        wiring = merlin_dragonfly_wiring(p, a, h)
        params = {"hosts_per_router": p, "routers_per_group": a, "intergroup_per_router": h,
                  "num_groups": groups, "intergroup_links": 1, "intragroup_links": 1,
                  "algorithm": routing, "global_route_mode": "absolute",
                  "global_link_map": merlin_global_link_map(a, h, groups)}
        routers = a * groups
        topo_routing, note = MERLIN_ADAPTIVE.get(("dragonfly", routing), ("dragonfly-min", None))
        return MerlinNetwork("dragonfly", p, 1, "merlin.dragonfly", params, wiring,
                             tuple((e // p, e % p) for e in range(routers * p)), (p + a - 1 + h,) * routers,
                             "dragonfly", {"a": a, "p": p, "h": h, "arrangement": "absolute",
                                           "global_port_order": "router"}, topo_routing, routing,
                             note or "minimal: local, global, local; VC 0, VC 1 from the router a global link "
                             "enters (dragonfly.cc route_nonadaptive)",
                             vc_rule=None if note else "after-global")
    k = check_int("k", k, 2, hint=" (the fat tree's arity)")
    n = check_int("n", n, 2, hint=" (the fat tree's levels)")
    shape = ":".join([f"{k},{k}"] * (n - 1) + [str(k)])
    wiring, endpoints, num_ports = merlin_fattree_wiring(shape)
    topo_routing, note = MERLIN_ADAPTIVE[("fattree", routing)]
    return MerlinNetwork("fattree", k, n, "merlin.fattree", {"shape": shape, "routing_alg": routing}, wiring,
                         tuple(endpoints), tuple(num_ports), "kary-ntree", {"k": k, "n": n}, topo_routing, routing,
                         note)


def merlin_hyperx_wiring(dims) -> dict:
    """SST merlin's ``merlin.hyperx`` cabling rebuilt from ``pymerlin-topo-hyperx.py``
    (``_build_impl``, width 1): router ``i`` at ``idToLocation(i)`` (dimension 0 fastest);
    in dimension ``d`` its ports ``port_start[d] ..`` go to the routers that differ only in
    coordinate ``d``, in increasing coordinate, skipping its own (``hyperx.cc``'s
    ``routeDORBase``: offset ``c - (c > mine)``); the endpoint ports come last."""
    dims = tuple(int(k) for k in dims)
    strides = [int(np.prod(dims[:d])) for d in range(len(dims))]
    starts = [sum(k - 1 for k in dims[:d]) for d in range(len(dims))]
    out = {}
    for i in range(int(np.prod(dims))):
        me = _merlin_loc(i, dims)
        for d, k in enumerate(dims):
            for c in range(k):
                if c == me[d]:
                    continue
                other = i + (c - me[d]) * strides[d]
                mine_at_other = me[d] - (me[d] > c)
                out[i, starts[d] + c - (c > me[d])] = (other, starts[d] + mine_at_other)
    return out


def merlin_global_link_map(a: int, h: int, groups: int) -> list:
    """pymerlin-topo-dragonfly.py's default ``global_link_map`` (``intergroup_links = 1``):
    entry ``r h + j`` is the raw link number on router ``r``'s global port ``j`` (``-1``
    when unused); raw ``x`` reaches the ``x mod (groups - 1)``-th other group."""
    total = groups - 1
    igpr = (total + a - 1) // a
    empty = igpr * a - total
    gmap, count = [-1] * (igpr * a), 0
    for i in range(a):
        for j in range(igpr - (1 if i >= a - empty else 0)):
            gmap[i * igpr + j] = count
            count += 1
    return gmap


def merlin_fattree_wiring(shape: str):
    """SST merlin's ``merlin.fattree`` rebuilt from ``pymerlin-topo-fattree.py``
    (``_shape_callback``, ``_build_impl``'s recursive ``fattree_rb``): ``(wiring,
    endpoints, num_ports)`` with ``wiring`` ``{(router, port): (router, port)}``,
    ``endpoints[e] = (leaf router, port)`` and each router's port count.  Level 0 (the
    leaves) is numbered first; a leaf's ports ``0 .. downs-1`` are its hosts, the next its
    up links; every other router's ports are its down links then its up links, in the
    order ``fattree_rb`` adds them."""
    downs, ups = [], []
    for level in shape.split(":"):
        parts = [int(x) for x in level.split(",")]
        downs.append(parts[0])
        if len(parts) > 1:
            ups.append(parts[1])
    if len(downs) < 2 or len(ups) != len(downs) - 1:
        raise ParameterError(f"a fat-tree shape is 'down,up:...:down' with at least two levels, got {shape!r}")
    total = int(np.prod(downs))
    rpl = [total // downs[0]]
    for i in range(1, len(downs)):
        rpl.append(rpl[i - 1] * ups[i - 1] // downs[i])
    start = [0]
    for i in range(1, len(downs)):
        start.append(start[-1] + rpl[i - 1])
    gpl = [1] * len(downs)
    gpl[0] = total // downs[0]
    for i in range(1, len(downs) - 1):
        gpl[i] = gpl[i - 1] // downs[i]
    ends: dict = {}  # link -> [(router, port)]
    endpoints: dict = {}
    num_ports = [0] * sum(rpl)

    def attach(router, links):
        for port, link in enumerate(links):
            if isinstance(link, tuple) and link[0] == "host":
                endpoints[link[1]] = (router, port)
            else:
                ends.setdefault(link, []).append((router, port))
        num_ports[router] = downs[level_of(router)] + (ups[level_of(router)] if level_of(router) < len(ups) else 0)

    def level_of(router):
        return max(i for i in range(len(start)) if start[i] <= router)

    def build(level, group, links):
        rid = start[level] + group * (rpl[level] // gpl[level])
        if level == 0:
            attach(rid, [("host", rid * downs[0] + i) for i in range(downs[0])] + list(links))
            return
        in_group = rpl[level] // gpl[level]
        rtr_links = [[("l", level, group, i, j) for j in range(downs[level])] for i in range(in_group)]
        for i in range(downs[level]):
            build(level - 1, group * downs[level] + i, [rtr_links[j][i] for j in range(in_group)])
        for i, link in enumerate(links):
            rtr_links[i % in_group].append(link)
        for i in range(in_group):
            attach(rid + i, rtr_links[i])

    top = len(ups)
    in_group = rpl[top] // gpl[top]
    rtr_links = [[("l", top, 0, i, j) for j in range(downs[top])] for i in range(in_group)]
    for i in range(downs[top]):
        build(top - 1, i, [rtr_links[j][i] for j in range(in_group)])
    for i in range(rpl[top]):
        attach(start[top] + i, rtr_links[i])
    wiring = {}
    for link, pair in ends.items():
        if len(pair) != 2:
            raise ValueError(f"merlin fattree link {link} has {len(pair)} ends")
        (x, px), (y, py) = pair
        wiring[x, px], wiring[y, py] = (y, py), (x, px)
    return wiring, [endpoints[e] for e in range(total)], num_ports


def merlin_route(net: MerlinNetwork, src: int, dst: int) -> list:
    """The hops ``(router, output port, VC)`` of a packet from endpoint ``src`` to endpoint
    ``dst`` in merlin's ``net`` as its ``route_packet`` computes them (VN 0, width 1, one
    intragroup and intergroup link), followed over :attr:`MerlinNetwork.wiring`; the last
    hop's port is ``dst``'s endpoint port.  Read from ``mesh.cc``/``torus.cc``
    (``merlin_torus_route``), ``hyperx.cc`` (``routeDOR``), ``dragonfly.cc``
    (``process_input``, ``route_nonadaptive``, ``port_for_group``, ``port_for_router``,
    ``RouteToGroup``) and ``fattree.cc`` (``route_deterministic``)."""
    rid, vc, port_in = net.endpoints[src][0], 0, None
    dst_router, dst_port = net.endpoints[dst]
    hops = []
    if net.family in ("torus", "mesh", "hyperx"):
        dims = (net.k,) * net.n
        dest = _merlin_loc(dst_router, dims)
        rdim = 0
    for _ in range(4 * len(net.num_ports) + 4):
        if net.family in ("torus", "mesh"):
            if rid == dst_router:
                port = dst_port
            else:
                me = _merlin_loc(rid, dims)
                vc_in = vc
                while dest[rdim] == me[rdim]:
                    rdim += 1
                    vc = vc_in & ~1
                k = dims[rdim]
                if net.family == "mesh":
                    plus = me[rdim] < dest[rdim]
                else:
                    plus = (dest[rdim] - me[rdim]) % k <= (me[rdim] - dest[rdim]) % k
                port = 2 * rdim + (0 if plus else 1)
                if me[rdim] == 0 and port_in is not None:
                    vc = vc_in ^ 1
        elif net.family == "hyperx":
            me = _merlin_loc(rid, dims)
            diff = [d for d in range(net.n) if dest[d] != me[d]]
            if not diff:
                port = dst_port
            else:
                d = diff[0]
                port = d * (net.k - 1) + dest[d] - (dest[d] > me[d])
        elif net.family == "dragonfly":
            prm = net.params
            p, a, h = prm["hosts_per_router"], prm["routers_per_group"], prm["intergroup_per_router"]
            grp, r = divmod(rid, a)
            dgrp, drtr = divmod(dst // p, a)
            gstart = p + a - 1

            def to_router(x):
                return p + x - (x > r)

            def to_group(g):
                idx = g - (g > grp)  # absolute mode: the index among the other groups
                slot = prm["global_link_map"].index(idx)
                owner, j = divmod(slot, h)
                return gstart + j if owner == r else to_router(owner)

            if port_in is not None and port_in >= gstart:
                vc += 1  # came in from another group
            elif port_in is not None and dgrp == grp and drtr != r:
                vc += 1  # a local hop in the destination group after a local hop
            if dgrp == grp:
                port = dst % p if drtr == r else to_router(drtr)
            else:
                port = to_group(dgrp)
        else:  # fattree
            downs = [int(x.split(",")[0]) for x in net.params["shape"].split(":")]
            ups = [int(x.split(",")[1]) for x in net.params["shape"].split(":")[:-1]]
            level, lid, per, count = 0, rid, 1, 0
            rpl = [len(net.endpoints) // downs[0]]
            for i in range(1, len(downs)):
                rpl.append(rpl[-1] * ups[i - 1] // downs[i])
            for level in range(len(downs)):
                if rid < count + rpl[level]:
                    lid = rid - count
                    break
                count += rpl[level]
                per *= ups[level]
            group = lid // per
            span = int(np.prod(downs[:level + 1]))
            factor = span // downs[level]
            low = group * span
            if low <= dst < low + span:
                port = (dst - low) // factor
            else:
                port = downs[level] + (dst // factor) % ups[level]
        hops.append((rid, port, vc))
        if rid == dst_router and port == dst_port:
            return hops
        port_in = None
        rid, port_in = net.wiring[rid, port]
    raise ValueError(f"merlin {net.family} route {src} -> {dst} does not arrive")


def native_bundle(bundle_path, out_path, net: MerlinNetwork):
    """topogen's SST bundle of ``net``'s generator rewritten as merlin's own network:
    routers numbered and cabled as merlin numbers and cables them (:attr:`MerlinNetwork.wiring`),
    endpoint ``e`` on merlin's router and port, ``native_topology`` naming the subcomponent
    and its parameters (the model, ``sst_models/topogen_sst.py``, then builds merlin's
    routers and NICs without source routes).  Latencies, router and NIC parameters are the
    export's (one latency for every cable: the export's must be uniform)."""
    import json

    from ..results import atomic_write_text

    doc = json.loads(Path(bundle_path).read_text())
    lats = {str(x["latency"]) for x in doc["links"]}
    if len(lats) != 1:
        raise ParameterError(f"a merlin-native bundle gives every cable one latency, the export has {sorted(lats)}")
    lat = lats.pop()
    links = []
    for (u, pu), (v, pv) in sorted(net.wiring.items()):
        if (u, pu) < (v, pv):
            links.append({"name": f"link_{u}_{pu}_{v}_{pv}", "u": u, "v": v, "port_u": pu, "port_v": pv,
                          "latency": lat})
    if len(links) != len(doc["links"]) or len(net.endpoints) != len(doc["endpoints"]):
        raise ParameterError(f"merlin's {net.name} has {len(links)} cables and {len(net.endpoints)} endpoints, "
                             f"the export {len(doc['links'])} and {len(doc['endpoints'])}")
    doc["links"] = links
    doc["endpoints"] = [{"id": e, "router": r, "port": q} for e, (r, q) in enumerate(net.endpoints)]
    doc["routers"] = [{"id": r, "num_ports": int(m)} for r, m in enumerate(net.num_ports)]
    doc["num_routers"] = len(net.num_ports)
    doc["endpoint_router_mapping"] = "{" + ", ".join(f"{e}:{r}" for e, (r, _) in enumerate(net.endpoints)) + "}"
    doc["native_topology"] = {"name": net.name, "params": dict(net.params)}
    doc["router_params"] = dict(doc["router_params"], **net.router_params)
    atomic_write_text(Path(out_path), json.dumps(doc, indent=1, sort_keys=True))
    return Path(out_path)


def crossval_native_sst(out_dir, *, family: str = "torus", k: int | None = None, n: int | None = None, routing: str | None = None,
                        loads=None, repeats: int = 1, seed: int = 1, binary=None,
                        timeout: float = 3600.0, progress=None, saturation: bool = False,
                        up_to: float = UP_TO, obuf_vcs: str = "routing",
                        reference_traffic: str = "merlin", draws: str | None = None,
                        topogen_routing: str | None = None) -> NativeResult:
    """SST merlin's own ``family`` (:func:`merlin_network`: ``merlin.torus``, ``merlin.mesh``,
    ``merlin.hyperx``, ``merlin.dragonfly``, ``merlin.fattree`` with its routing) beside
    topogen's generator and routing of the same network exported to SST
    (``merlin.anytopo`` with the routing's source routes, VC = hop) and on the reference
    simulator run as SST runs (``reference-sst``: the output-buffered router, periodic
    injection, latency to the head), all with the shared settings of
    :func:`topogen.experiments.simulators.sst_parameters` (1-cycle cables).  merlin's
    uniform traffic takes no seed: with the native run's destinations
    (``reference_traffic="merlin"``) every column runs once per load; with ``"seeded"``
    every column takes ``repeats`` samples of a load: the reference from seeds ``seed,
    seed + 1 ...``, the native column as one ``merlin.offered_load`` run with the load
    repeated ``repeats`` times (its targets' and routers' generators go on from one repeat
    to the next: each is a later stretch of the same traffic), the export with its
    endpoints relabelled by the seed (:func:`topogen.experiments.simulators._sst_adapter`).
    The reference column's output-buffered router gives a hop the VC of its class
    in topogen's routing (``obuf_vcs="routing"``: ``merlin.hyperx``'s DOR runs on one VC,
    and topogen's ``dor`` declares one; on the torus, mesh and dragonfly the routing
    carries merlin's own VC rule, :mod:`topogen.routing.merlin_vcs`) or, with
    ``obuf_vcs="hop"``, hop ``h`` VC ``h`` as topogen's export on ``merlin.anytopo`` runs.
    merlin's randomised and adaptive routings (``--routing valiant``, ``ugal``, ``DOAL``) run
    as :mod:`topogen.routing.merlin_adaptive` reads them, their draws from one SST
    ``XORShiftRNG`` per router seeded as merlin seeds it (``draws="merlin"``, the default
    with ``reference_traffic="merlin"``: the native run's own draws) or from the seed
    (``draws="seed"``, the default with ``"seeded"``); a routing chosen from the queues at
    run time has no ``export`` column (anytopo's source routes are fixed at the source).

    ``reference_traffic="merlin"`` (the default) gives the reference the destinations of
    the native run itself (traffic ``merlin-uniform``: each endpoint's sequence from
    ``merlin.targetgen.uniform``'s Mersenne Twister seeded with its id,
    :mod:`topogen.drivers.sst_streams`), so the reference runs once per load;
    ``"seeded"`` draws them from ``seed, seed + 1 ...`` (``repeats`` runs): other samples
    of the same uniform traffic, whose saturation loads spread (docs/crossval.md).

    A network with switches that hold no endpoint (the fat tree's upper levels) has no
    ``export`` column: ``merlin.anytopo`` refuses a router without an endpoint ("No
    endpoint-to-port mapping provided").  With ``saturation`` each column's
    saturation load is bisected as :func:`topogen.reproduce.crossval_native.crossval_native`
    does (a load is sustained when SST's offered_load, or the reference run as SST, reports
    it completed) and compared within 5 %; latencies are compared up to ``up_to`` of the
    native saturation, and ``loads`` defaults to the zero-load point, half and ``up_to`` of
    it (without ``saturation``: 0.01, 0.2, 0.3).

    ``topogen_routing`` puts another of topogen's routings (a name
    :func:`topogen.routing.route` knows, with one VC class) in the reference and export
    columns instead of the equivalent of merlin's, e.g. ``"nca"`` (a table per destination
    switch) against ``merlin.fattree``'s ``deterministic`` (one route per destination host):
    docs/crossval.md measures that difference."""
    import math

    import networkx as nx

    from .._validate import check_int

    from ..drivers.sst import find_sst, run_sst
    from ..experiments.simulators import (Adapter, CrossvalSpec, _sst_adapter, fresh_dir,
                                          sst_parameters)
    from ..export.sst import write_bundle
    from .. import registry
    from .crossval_native import native_routing

    net = merlin_network(family, k, n, routing)
    if topogen_routing is not None:
        from ..routing.names import ALGORITHMS

        if topogen_routing not in ALGORITHMS:
            raise ParameterError(f"topogen_routing must be one of topogen's routings ({', '.join(ALGORITHMS)}), "
                                 f"got {topogen_routing!r}")
        net = replace(net, routing=topogen_routing, vc_rule=None,
                      note=f"{net.note}; compared with topogen's {topogen_routing}")
    repeats = check_int("repeats", repeats, 1)
    if obuf_vcs not in ("routing", "hop"):
        raise ParameterError(f"obuf_vcs must be routing or hop, got {obuf_vcs!r}")
    if reference_traffic not in ("merlin", "seeded"):
        raise ParameterError(f"reference_traffic must be merlin (the native run's destinations) or seeded, "
                             f"got {reference_traffic!r}")
    merlin_streams = reference_traffic == "merlin"
    if draws is None:
        draws = "merlin" if merlin_streams else "seed"
    gen_params = {key: (tuple(v) if isinstance(v, list) else v) for key, v in net.gen_params.items()}
    topology = registry.generate(net.generator, **gen_params)
    if loads is not None:
        loads = tuple(float(x) for x in loads)
        if not loads or any(not 0 < x <= 1 for x in loads):
            raise ParameterError(f"loads must be offered loads in (0, 1] flits/node/cycle, got {loads}")
    spec = CrossvalSpec(net.generator, params=net.gen_params, seed=seed, routing=net.routing,
                        loads=loads or (0.01, 0.2, 0.3),
                        link_latency=1, repeats=repeats, timeout=timeout, simulators=("sst",))
    fam = NativeFamily(family, net.k, net.n, {"topology": net.name, "routing_function": net.native_routing},
                       net.generator, net.gen_params, net.routing, 1, hosts=len(net.endpoints))
    routing = native_routing(fam, topology, None, seed)
    if getattr(routing, "merlin_engine", False):  # merlin's randomised / adaptive rules
        from ..routing.merlin_adaptive import merlin_routing

        routing = merlin_routing(topology, net.routing, seed=seed, draws=draws)
    if net.vc_rule:  # merlin's VCs on topogen's routes (the reference's VC classes; anytopo ignores them)
        from ..routing.merlin_vcs import merlin_vcs

        routing = merlin_vcs(routing, net.vc_rule)
    out = fresh_dir(out_dir)
    exe = find_sst(binary)
    p = sst_parameters(spec)
    folder = fresh_dir(out / "native")
    run_time = getattr(routing, "run_time_choices", False)
    # the native bundle takes the export's cabling and parameters; its source routes are not
    # used (a routing chosen at run time has none, nor one routed by destination host: a table
    # of the empty network's switch-to-switch paths stands in)
    host_routes = getattr(routing, "host_routes", False)
    plain = write_bundle(folder / "export.json", topology, None, _empty_network_table(routing, net)
                         if run_time or host_routes else routing, clock_ns=spec.clock_ns,
                         link_latency_ns=p["link_latency_ns"], host_latency_ns=p["host_latency_ns"],
                         router_params=p["router_params"], nic_params=p["nic_params"])
    nb = native_bundle(plain, folder / "native.json", net)
    traffic = "uniform"

    samples = 1 if merlin_streams else repeats
    native_rows: dict = {}

    def run_native(load, run_seed=seed, capacity=False):
        # merlin's uniform traffic and routers take no seed: the samples of a load are one
        # offered_load run with the load repeated, each a later stretch of the same streams
        if load not in native_rows:
            native_rows[load] = run_sst(nb, load=[float(load)] * samples, traffic=traffic,
                                        message_size=p["message_size"], warmup=p["warmup"], collect=p["collect"],
                                        drain=p["drain"], out_dir=folder, timeout=spec.timeout, binary=exe,
                                        raise_on_failure=False, generator="offered_load", validate=False)
        rows = native_rows[load]
        return rows[min(max(int(run_seed) - seed, 0), len(rows) - 1)]

    cols = [_Column(Adapter("native", run_native, f"{net.name} {net.native_routing}", seeded=samples > 1,
                            router="output-buffered (merlin hr_router)", clock_ns=p["clock_ns"]), seed, samples,
                    progress),
            _Column(_reference_sst_adapter(spec, seed, topology, routing, out, obuf_vcs, merlin_streams,
                                           "booksim-native" if family in ("torus", "mesh") else None), seed,
                    samples, progress)]
    cols[1].ad = replace(cols[1].ad, simulator="reference")
    if _anytopo(topology) and not run_time:
        cols.append(_Column(_sst_adapter(spec, seed, topology, None, routing, out, exe), seed, samples, progress))
        cols[2].ad = replace(cols[2].ad, simulator="export")
    brackets = {}
    if saturation:
        brackets["native"] = cols[0].saturation()
        for c in cols[1:]:
            brackets[c.name] = c.saturation(probes=[v for v in brackets["native"] if 0 < v <= 1])
    nat = brackets.get("native", (math.nan, math.inf))
    nat_sat = (nat[0] + nat[1]) / 2 if not math.isinf(nat[1]) else math.nan
    if loads is None:
        loads = default_loads(nat_sat, up_to) if saturation else spec.loads
    for c in cols:
        for load in loads:
            c.run(load)
    lines = verdict_lines(
        cols, loads, nat_sat, up_to,
        lambda c, x: _sst_point(c.run(x), getattr(c.ad, "clock_ns", None) or spec.clock_ns),
        lambda x: _sst_point(cols[0].run(x), p["clock_ns"]))
    sat = saturation_entries(brackets)
    g_native, g_topo = net.graph(), _topogen_graph(topology)
    iso = nx.is_isomorphic(g_native, g_topo, node_match=nx.algorithms.isomorphism.categorical_node_match("hosts", 0))
    ident = ({frozenset(e) for e in g_native.edges} == {frozenset(e) for e in g_topo.edges}
             and all(g_native.nodes[i]["hosts"] == g_topo.nodes[i]["hosts"] for i in g_native.nodes))
    notes = [f"native: SST {net.name} {net.params.get('shape', '')} with {net.native_routing} ({net.note}), "
             "cables of 1 cycle, topogen's NICs and router parameters",
             f"reference: topogen {net.generator} {net.gen_params} with {net.routing} on the reference "
             "simulator's output-buffered router as SST runs (reference-sst), "
             + ("one VC per VC class of the routing, as merlin's own topologies declare theirs (obuf_vcs=routing)"
                if obuf_vcs == "routing" else "hop h on VC h as merlin.anytopo (obuf_vcs=hop)")
             + ("; the native run's own destinations (merlin-uniform: merlin.targetgen.uniform's streams), one run "
                "per load" if merlin_streams else f"; destinations from seeds {seed}..{seed + repeats - 1}"),
             (f"export: not run: {net.routing} chooses its path from the output queues as the packet goes; "
              "merlin.anytopo's source routes are fixed at the source and its UGAL is not merlin's rule"
              if run_time else
              f"export: topogen's SST export (merlin.anytopo, {net.routing}'s source routes, VC = hop index"
              + (", every path equally weighted)" if not getattr(routing, "deterministic", True) else ")")
              if _anytopo(topology) else "export: not run: merlin.anytopo refuses a router without endpoints "
              "('No endpoint-to-port mapping provided'), and topogen.table_topo runs with topogen's Bernoulli "
              "NIC only"
              + ("; nor could anytopo's source routes carry this routing: they are keyed by the destination "
                 "router, and it routes by the destination host (a weighted table over a leaf's up ports gives "
                 "the same spread drawn at random, not merlin's fixed route per host)" if host_routes else "")),
             "latencies in cycles of the shared clock; merlin's uniform traffic takes no seed: " + (
                 "SST columns run once per load" if samples == 1 else
                 f"the native column's {samples} samples of a load are one offered_load run with the load "
                 f"repeated {samples} times (each a later stretch of the same destination and routing streams), "
                 "the export's run its bundle with the endpoints relabelled by the seed")]
    if saturation:
        notes.append(f"saturation: the load at which a column's runs stop completing (SST offered_load's "
                     f"sustained test; the reference as SST runs), bisected to {SATURATION_BRACKET:.0%}, the "
                     f"middle of the bracket compared within {SATURATION_TOLERANCE:.0%}; latencies compared up to "
                     f"{up_to:.0%} of the native saturation")
    return NativeResult(fam, seed, lines, {"isomorphic": iso, "identity": ident}, notes, sat)


def _reference_sst_adapter(spec, seed, topology, routing, out, obuf_vcs: str, merlin_streams: bool = False,
                           port_order: str | None = None):
    """The reference simulator as SST runs (:func:`topogen.experiments.simulators._reference_adapter`
    with ``like="sst"``), its output-buffered router's VCs by ``obuf_vcs``: ``hop``
    (anytopo's hop-number VCs, what topogen's SST export runs) or ``routing`` (one VC per
    VC class of the routing, as merlin's own topologies declare theirs); with
    ``merlin_streams`` uniform traffic takes SST's own destinations (``merlin-uniform``);
    ``port_order="booksim-native"`` starts the crossbar's least-recently-granted order from
    merlin.torus's and merlin.mesh's port numbers instead of anytopo's."""
    from ..experiments.reference_sst import run_like_sst
    from ..experiments.simulators import (_reference_adapter, _reference_config, _traffic_for, output_buf_flits,
                                          sst_parameters)

    ad = _reference_adapter(spec, seed, topology, None, routing, out, like="sst")
    if obuf_vcs == "hop" and not merlin_streams and port_order is None:
        return ad
    cfg = replace(_reference_config(spec), injection="periodic", latency_at="head", router="output-buffered",
                  output_buf_size=output_buf_flits(spec), obuf_vcs=obuf_vcs)
    if port_order is not None:
        cfg = replace(cfg, port_order=port_order)
    traffic = _traffic_for("reference", spec.traffic, int(topology.num_hosts))
    if merlin_streams and traffic == "uniform":
        traffic = "merlin-uniform"
    times = sst_parameters(spec)

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        return run_like_sst(routing, cfg, traffic=traffic, load=load, seed=run_seed, sst_times=times,
                            clock_ns=times["clock_ns"])

    note = ad.note if obuf_vcs == "hop" else ad.note.replace("hop h on VC h", "one VC per VC class of the routing")
    return replace(ad, run=run, note=note, seeded=not (merlin_streams and traffic == "merlin-uniform"))


def _empty_network_table(routing, net: MerlinNetwork):
    """The table routing of ``routing``'s empty-network paths (DOR, minimal)."""
    if net.family in ("hyperx", "fattree"):
        from ..routing import route

        return route(routing.topology, None, "dor" if net.family == "hyperx" else "nca")
    from ..routing.ugal_booksim import dragonfly_min

    return dragonfly_min(routing.topology)


def _anytopo(topology) -> bool:
    """Whether ``merlin.anytopo`` can run ``topology`` (every switch holds an endpoint)."""
    return bool(np.all(np.asarray(topology.hosts) > 0))


def nx_graph_of_wiring(wiring: dict, hosts: int, routers: int):
    """An undirected networkx graph of a ``{(router, port): (router, port)}`` cabling."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(routers), hosts=hosts)
    g.add_edges_from((a, b) for (a, _), (b, _) in wiring.items())
    return g


def _sst_point(rows, clock_ns) -> dict:
    """:func:`_point` of rows whose latency is in the rows' own unit (SST: ns) or cycles."""
    conv = []
    for r in rows:
        r = dict(r)
        if r.get("latency_unit") == "ns" and clock_ns:
            r["latency_avg"] = float(r["latency_avg"]) / clock_ns
        conv.append(r)
    return _point(conv)


def _parse(args):
    """(params, loads, seed) of the command line's ``--param``, ``--loads``, ``--seed``."""
    params = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        try:
            params[key.strip()] = int(value) if sep else None
        except ValueError:
            raise ParameterError(f"--param {key.strip()} needs an integer, got {value!r}") from None
        if not sep:
            raise ParameterError(f"--param takes KEY=VALUE, got {item!r}")
    loads = None
    if args.loads is not None:
        try:
            loads = tuple(float(x) for x in args.loads.split(",") if x.strip())
        except ValueError:
            raise ParameterError(f"--loads needs comma-separated numbers, got {args.loads!r}") from None
        if not loads or any(not 0 < x <= 1 for x in loads):
            raise ParameterError(f"--loads must be offered loads in (0, 1] flits/node/cycle, got {args.loads!r}")
    return params, loads, 1 if args.seed is None else int(args.seed)


def native_command(args) -> int:
    """``topogen crossval --native FAMILY --simulators sst``: run :func:`crossval_native_sst`
    and print it as :func:`topogen.reproduce.crossval_native.native_command` prints BookSim's."""
    from .crossval_native import print_result

    sims = [x.strip() for x in (getattr(args, "simulators", None) or "").split(",") if x.strip()]
    params, loads, seed = _parse(args)
    if sims != ["sst"] or args.native not in SST_FAMILIES:
        raise ParameterError(f"--native compares BookSim's own networks (--simulators booksim, the default) or "
                             f"SST merlin's {', '.join(SST_FAMILIES)} (--simulators sst alone), got --native "
                             f"{args.native} --simulators {','.join(sims)}")
    extra = set(params) - {"k", "n"}
    if extra:
        raise ParameterError(f"--native {args.native} --simulators sst takes --param k=K and n=N, got "
                             f"{', '.join(sorted(extra))}")
    # --repeats N (N > 1): N samples per load in every column, the reference's destinations from
    # the seeds; without it one run per column, the reference with the native run's destinations
    repeats = 1 if args.repeats is None else args.repeats
    res = crossval_native_sst(args.out_dir, family=args.native, routing=args.routing, loads=loads, seed=seed,
                              repeats=repeats, reference_traffic="seeded" if repeats != 1 else "merlin",
                              binary=args.sst,
                              timeout=3600.0 if args.timeout is None else args.timeout,
                              saturation=not getattr(args, "no_saturation", False),
                              up_to=UP_TO if getattr(args, "up_to", None) is None else args.up_to, **params)
    return print_result(res, " --simulators sst", args.strict)
