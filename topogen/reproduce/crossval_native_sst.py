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

from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from .crossval_native import (LATENCY_TOLERANCE, ZERO_LOAD, ZERO_TOLERANCE, NativeFamily, NativeResult, _Column,
                              _point, _topogen_graph, verdict)

__all__ = ["merlin_torus_wiring", "merlin_torus_route", "merlin_dragonfly_wiring", "merlin_native_bundle",
           "crossval_native_sst", "nx_graph_of_wiring", "native_command"]


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
    ``process_input``, reset to the even VC when a dimension is done, toggled (``vc ^ 1``)
    at a router whose coordinate in the routing dimension is 0 when the packet came in on
    a network port."""
    wiring = merlin_torus_wiring(dims)
    hops, rid, in_net, vc, rdim = [], src, False, 0, 0
    while rid != dst:
        me, dest = _merlin_loc(rid, dims), _merlin_loc(dst, dims)
        for d in range(rdim, len(dims)):
            if dest[d] != me[d]:
                k = dims[d]
                pos, neg = (dest[d] - me[d]) % k, (me[d] - dest[d]) % k
                port = 2 * d + (0 if pos <= neg else 1)
                if me[d] == 0 and in_net:
                    vc ^= 1
                break
            rdim += 1
            vc &= ~1
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
    total = ng  # intergroup_links = 1
    igpr = (total + a - 1) // a
    empty = igpr * a - total
    gmap, count = [-1] * (igpr * a), 0
    for i in range(a):
        for j in range(igpr - (1 if i >= a - empty else 0)):
            gmap[i * igpr + j] = count
            count += 1
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


def crossval_native_sst(out_dir, *, k: int = 4, n: int = 2, loads=(0.01, 0.2, 0.4), repeats: int = 1,
                        seed: int = 1, binary=None, timeout: float = 3600.0, progress=None) -> NativeResult:
    """SST merlin's own ``merlin.torus`` (``k``-ary ``n``-cube, one endpoint per router,
    its dimension-order routing with 2 VCs) beside topogen's ``torus`` exported to SST
    (``merlin.anytopo`` with ``dor``'s source routes, VC = hop) and the reference
    simulator run as SST runs (``reference-sst``: the output-buffered router, periodic
    injection, latency to the head), all with the shared settings of
    :func:`topogen.experiments.simulators.sst_parameters` (1-cycle cables).  merlin's
    uniform traffic takes no seed, so SST columns run once per load; ``repeats`` applies
    to the reference column."""
    from .._validate import check_int
    from ..drivers.sst import find_sst, run_sst
    from ..experiments.simulators import (Adapter, CrossvalSpec, _reference_adapter, _sst_adapter, fresh_dir,
                                          sst_parameters)
    from ..export.sst import write_bundle
    from .. import registry
    from ..routing import route

    k = check_int("k", k, 3, hint=" (merlin.torus side; 2 would double the cables)")
    n = check_int("n", n, 1)
    dims = (k,) * n
    topology = registry.generate("torus", dims=dims)
    spec = CrossvalSpec("torus", params={"dims": list(dims)}, seed=seed, routing="dor", loads=tuple(loads),
                        link_latency=1, repeats=repeats, timeout=timeout, simulators=("sst",))
    routing = route(topology, None, "dor", seed=seed)
    out = fresh_dir(out_dir)
    exe = find_sst(binary)
    p = sst_parameters(spec)
    folder = fresh_dir(out / "native")
    plain = write_bundle(folder / "export.json", topology, None, routing, clock_ns=spec.clock_ns,
                         link_latency_ns=p["link_latency_ns"], host_latency_ns=p["host_latency_ns"],
                         router_params=p["router_params"], nic_params=p["nic_params"])
    native_bundle = merlin_native_bundle(plain, folder / "native.json", dims)
    traffic = "uniform"

    def run_native(load, run_seed=seed, capacity=False):
        return run_sst(native_bundle, load=float(load), traffic=traffic, message_size=p["message_size"],
                       warmup=p["warmup"], collect=p["collect"], drain=p["drain"], out_dir=folder,
                       timeout=spec.timeout, binary=exe, raise_on_failure=False, generator="offered_load",
                       validate=False)[0]

    cols = [_Column(Adapter("native", run_native, "merlin.torus dor", seeded=False,
                            router="output-buffered (merlin hr_router)", clock_ns=p["clock_ns"]), seed, 1, progress),
            _Column(_reference_adapter(spec, seed, topology, None, routing, out, like="sst"), seed, repeats, progress),
            _Column(_sst_adapter(spec, seed, topology, None, routing, out, exe), seed, 1, progress)]
    cols[1].ad = replace(cols[1].ad, simulator="reference")
    cols[2].ad = replace(cols[2].ad, simulator="export")
    for c in cols:
        for load in loads:
            c.run(load)
    lines = []
    low = min(loads)
    for load in loads:
        load = float(f"{load:.6g}")
        tol = ZERO_TOLERANCE if load == low and load <= ZERO_LOAD else LATENCY_TOLERANCE
        base = _sst_point(cols[0].run(load), p["clock_ns"])
        for c in cols:
            pt = dict(_sst_point(c.run(load), getattr(c.ad, "clock_ns", None) or spec.clock_ns),
                      column=c.name, load=load, routing=c.ad.routing)
            if c.name != "native":
                pt["ratio"], pt["verdict"] = verdict(pt, base, tol)
                pt["tolerance"] = tol
            lines.append(pt)
    g_native = nx_graph_of_wiring(merlin_torus_wiring(dims), 1, k ** n)
    iso_topo = _topogen_graph(topology)
    import networkx as nx

    iso = nx.is_isomorphic(g_native, iso_topo, node_match=nx.algorithms.isomorphism.categorical_node_match("hosts", 0))
    ident = {frozenset(e) for e in g_native.edges} == {frozenset(e) for e in iso_topo.edges}
    fam = NativeFamily("torus", k, n, {"topology": "merlin.torus"}, "torus", {"dims": list(dims)}, "dor", 1,
                       hosts=k ** n)
    notes = [f"native: SST merlin.torus shape {'x'.join(map(str, dims))}, its dimension-order routing (ties to +, "
             "VC toggled at coordinate 0), cables of 1 cycle, topogen's NICs and router parameters",
             "reference: topogen torus with dor on the reference simulator's output-buffered router as SST runs "
             "(reference-sst)",
             "export: topogen's SST export (merlin.anytopo, dor's source routes, VC = hop index)",
             "latencies in cycles of the shared clock; merlin's uniform traffic takes no seed: SST columns run "
             "once per load"]
    return NativeResult(fam, seed, lines, {"isomorphic": iso, "identity": ident}, notes, {})


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
    from .crossval_native import format_lines, format_saturation

    sims = [x.strip() for x in (getattr(args, "simulators", None) or "").split(",") if x.strip()]
    params, loads, seed = _parse(args)
    if sims != ["sst"] or args.native != "torus":
        raise ParameterError(f"--native compares BookSim's own networks (--simulators booksim, the default) "
                             f"or SST merlin's torus (--native torus --simulators sst), got --native "
                             f"{args.native} --simulators {','.join(sims)}")
    extra = set(params) - {"k", "n"}
    if extra:
        raise ParameterError(f"--native torus --simulators sst takes --param k=K and n=N, got "
                             f"{', '.join(sorted(extra))}")
    res = crossval_native_sst(args.out_dir, loads=loads or (0.05, 0.2, 0.3), seed=seed,
                              repeats=3 if args.repeats is None else args.repeats, binary=args.sst,
                              timeout=3600.0 if args.timeout is None else args.timeout, **params)
    f = res.family
    print(f"crossval --native {f.family} --simulators sst: k={f.k} n={f.n}; topogen {f.generator} with {f.routing}")
    print(f"structure: {'isomorphic' if res.structure['isomorphic'] else 'NOT isomorphic'}"
          + (" (identity numbering)" if res.structure["identity"] else ""))
    print(format_lines(res))
    if res.saturation:
        print("saturation (flits/node/cycle):")
        print(format_saturation(res))
    print("notes:")
    for note in res.notes:
        print(f"  - {note}")
    return 1 if args.strict and not res.passed else 0
