"""SST/merlin export: a JSON *bundle* that the SST-side model ``topogen_sst.py`` turns
into ``merlin.hr_router`` components with the ``merlin.anytopo`` topology (source
routing), one ``sst.Link`` per cable with that cable's latency, and ``merlin.offered_load``
endpoints behind ``merlin.endpointNIC`` + ``merlin.sourceRoutingPlugin`` +
``merlin.linkcontrol``.

Port convention (``docs/developing.md``): at router ``v`` the link to its neighbour of
rank ``k`` (position in ``topology.neighbors(v)``) uses port ``k``; every router declares
``num_R2R_ports = max_degree`` (unused router ports stay unconnected, which merlin
allows) and its hosts use ports ``max_degree + i``.  Endpoint ``e`` is host ``e`` in
topogen's contiguous host numbering.

The bundle holds, per router, exactly the strings merlin parses (``connectivity``
``"dst,port;..."``, ``endpoint_to_port_map`` ``"{e:p, ...}"``, the source-routing table
``"dst:1.00000,hop1,...,dst|..."``), so the SST side only copies them into parameters.
``vcs_per_vn`` is at least the longest route's router-router hop count + 1: anytopo uses
VC = hop number, and a path longer than the VC count crashes SST.

Time: SST runs the shared cycle on its whole even-picosecond grid
(:func:`topogen.sim_defaults.sst_clock_ns`, 2,666 ps for the 2.667 ns default): link
bandwidth, router, cable and host latencies are whole numbers of that cycle (the router's
input latency half of one), cables ``ceil(delay / cycle)`` cycles as on BookSim and the
reference simulator, and the bundle records the cycle (``cycle_ps``) so that SST's ns read
back as cycles.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import _progress, sim_defaults
from .._version import __version__
from ..errors import FormatError, ParameterError, RoutingError, TopologyError
from ..output import atomic_open
from ..results import canonical_json
from ..sim_defaults import link_latency_cycles
from . import sst_tables
from .sst_tables import _router_tables, routing_entry_string

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "ROUTE_FORMS",
    "next_hop_path",
    "next_port_rows",
    "DEFAULT_ROUTER_PARAMS",
    "DEFAULT_NIC_PARAMS",
    "model_path",
    "routing_entry_string",
    "bundle_dict",
    "write_bundle",
    "read_bundle",
    "read_any_bundle",
    "validate_bundle",
    "latency_string",
    "effective_vc_rule",
]

BUNDLE_FORMAT = "topogen-sst-bundle"
BUNDLE_VERSION = 1

#: ``write_bundle(routes=...)``: every router's source routes in the JSON, or a binary
#: matrix of next-hop ports beside it (``<stem>.nexthop.npy``).
ROUTE_FORMS = ("full", "next_hops")

#: Suffix of a next-hop bundle's matrix, beside its JSON.
NEXT_HOP_SUFFIX = ".nexthop.npy"

#: ``merlin.hr_router`` parameters used unless overridden: topogen's shared simulator
#: defaults (:func:`topogen.sim_defaults.sst_router_params`).
DEFAULT_ROUTER_PARAMS: dict[str, Any] = sim_defaults.sst_router_params()

#: ``merlin.linkcontrol`` parameters of every endpoint (:func:`topogen.sim_defaults.sst_nic_params`).
DEFAULT_NIC_PARAMS: dict[str, Any] = sim_defaults.sst_nic_params()


def model_path() -> Path:
    """Path of the SST-side model ``topogen_sst.py`` shipped with topogen.

    Run it as ``sst $(python -c 'import topogen.export.sst as s; print(s.model_path())')
    -- --bundle net.json --load 0.5`` or through :func:`topogen.drivers.sst.run_sst`.
    The repository's ``sst_models/topogen_sst.py`` is a symlink to the same file.
    """
    return Path(__file__).resolve().parent.parent / "templates" / "sst" / "topogen_sst.py"


def latency_string(ns: float) -> str:
    """An SST time string in whole picoseconds (at least 1 ps): ``12.5`` -> ``"12500ps"``."""
    f = float(ns)
    if not math.isfinite(f) or f < 0:
        raise ParameterError(f"link latency must be a finite number of ns >= 0, got {ns!r}")
    return f"{max(1, int(round(f * 1000)))}ps"


def _map_string(pairs) -> str:
    return "{" + ", ".join(f"{a}:{b}" for a, b in pairs) + "}"


def _default_routing(topology, layout):
    try:
        from .. import routing as routing_module

        nearest = routing_module.nearest
    except (ImportError, AttributeError):
        try:
            from ..routing.paths import nearest
        except ImportError:
            raise ParameterError(
                "no routing given and topogen.routing.nearest is not available; pass routing=..."
            ) from None
    return nearest(topology, layout)


def bundle_dict(
    topology,
    layout=None,
    routing=None,
    *,
    clock_ns: float = sim_defaults.CYCLE_NS,
    link_latency_ns: float | None = None,
    host_latency_ns: float | None = None,
    vcs_per_vn: int | None = None,
    router_params: Mapping[str, Any] | None = None,
    nic_params: Mapping[str, Any] | None = None,
    routes: str = "full",
) -> dict[str, Any]:
    """The SST bundle of a routed, laid-out topology as a plain dict.

    Parameters
    ----------
    topology : Topology
        Must be connected and have at least one host.
    layout : Layout, optional
        Gives each cable's latency: ``ceil(layout.link_delay / clock_ns)`` cycles (at least
        1; :func:`topogen.sim_defaults.link_latency_cycles`, the BookSim export's count) of
        SST's cycle.  Without it every router-router link gets ``link_latency_ns``.
    routing : Routing, optional
        A :class:`topogen.routing.base.Routing` (its paths come from
        ``topogen.routing.export``; Valiant gives several weighted paths per destination),
        or any object with ``path(src, dst) -> (switches, vcs)`` (switches may or may not
        start with ``src``; hops are checked against the links).  Default:
        ``topogen.routing.nearest(topology, layout)``.
    clock_ns : float
        The cycle of the other simulators (default the shared
        :data:`topogen.sim_defaults.CYCLE_NS`).  SST runs it as
        :func:`topogen.sim_defaults.sst_clock_ns` (the nearest even number of ps), recorded
        as ``cycle_ps``; the default router and NIC parameters are on that cycle.
    link_latency_ns : float, optional
        Latency of every cable when no layout is given (default one SST cycle).
    host_latency_ns : float, optional
        Latency of the endpoint-router links (default one SST cycle).
    vcs_per_vn : int, optional
        VCs per virtual network; default longest route (router-router hops) + 1.
    router_params, nic_params : mapping, optional
        Overrides of the defaults (:func:`topogen.sim_defaults.sst_router_params` /
        :func:`~topogen.sim_defaults.sst_nic_params` of ``clock_ns``; for the default clock
        :data:`DEFAULT_ROUTER_PARAMS` / :data:`DEFAULT_NIC_PARAMS`).
    routes : {"full", "next_hops"}
        ``full`` (default): every router's source-routing table (``routing_entry_string``,
        N - 1 routes), which ``merlin.anytopo`` and ``topogen.table_topo`` both run.
        ``next_hops``: no routes in the JSON; ``doc["next_hops"]["rows"]`` is the
        ``(N, N)`` matrix of output ports (:func:`topogen.export.sst_tables.next_port_matrix`),
        which :func:`write_bundle` writes beside the JSON as ``<stem>.nexthop.npy`` and
        ``topogen.table_topo`` reads row by row (``docs/sst.md``, "Next-hop bundles").
        Only for routings with one next hop per (router, destination) and VCs that
        ``topogen.table_topo`` may choose (VC rule ``const``).

    Returns
    -------
    dict

    Raises
    ------
    TopologyError
        A disconnected topology or one without hosts.
    RoutingError
        A route that does not follow links or does not reach its destination.
    ParameterError
        ``vcs_per_vn`` smaller than the longest route + 1.
    """
    if not topology.is_connected():
        raise TopologyError(f"{topology.describe()} is disconnected; SST source routing needs a path between every pair")
    hosts = np.asarray(topology.hosts, dtype=np.int64)
    if hosts.sum() < 1:
        raise TopologyError("SST needs at least one endpoint; this topology has no hosts")
    if routing is None:
        routing = _default_routing(topology, layout)
    n = topology.num_switches
    edges = np.asarray(topology.edges, dtype=np.int64)
    max_degree = int(topology.degree) if topology.num_links else 0
    if isinstance(clock_ns, bool) or not isinstance(clock_ns, (int, float)) or not (
            math.isfinite(clock_ns) and clock_ns > 0):
        raise ParameterError(f"clock_ns must be a positive number of ns per cycle, got {clock_ns!r}")
    cycle_ps = sim_defaults.sst_cycle_ps(clock_ns)
    cable_ns = None
    if layout is not None:
        cable_ns = np.asarray(layout.link_delay, dtype=float)
        if cable_ns.shape != (len(edges),):
            raise ParameterError("layout does not match the topology (one delay per link expected)")
        delays = link_latency_cycles(layout, clock_ns) * cycle_ps / 1000.0
    else:
        delays = np.full(len(edges), cycle_ps / 1000.0 if link_latency_ns is None else float(link_latency_ns))
    if host_latency_ns is None:
        host_latency_ns = cycle_ps / 1000.0
    lengths = np.asarray(layout.cable_length, dtype=float) if layout is not None else None
    rank = [dict() for _ in range(n)]
    for v in range(n):
        for k, w in enumerate(topology.neighbors(v).tolist()):
            rank[v][int(w)] = k
    offsets = np.concatenate([[0], np.cumsum(hosts)[:-1]]).astype(np.int64)

    if routes not in ROUTE_FORMS:
        raise ParameterError(f"routes must be one of {', '.join(ROUTE_FORMS)}, got {routes!r}")
    next_ports = None
    if routes == "next_hops":
        sst_tables.next_hop_table(routing)  # one next hop per destination, before the VC rule
        rule = effective_vc_rule(routing)
        if rule != "const":
            raise RoutingError(
                f"routing {_routing_name(routing)} has VC rule {rule or 'of its own'}: a next-hop bundle is run by "
                "topogen.table_topo, which chooses every hop's VC itself; export full routes (routes='full') "
                "for merlin.anytopo")
        next_ports = sst_tables.next_port_matrix(routing, topology)
        port_router = sst_tables.port_routers(
            [{w: [k] for w, k in rank[v].items()} for v in range(n)], n, max_degree)
        max_hops, fault = sst_tables.next_port_walk(next_ports, port_router)
        if fault is not None:
            raise RoutingError(f"routing {_routing_name(routing)}: router {fault[0]} towards router {fault[1]}: "
                               f"{fault[2]}")
        ugal_k, tables = 0, None
    else:
        ugal_k = _ugal_export(routing)
        tables, max_hops = _router_tables(routing, topology)
    need = max_hops + 1
    if ugal_k:  # Valiant candidates: two MIN segments, VC = hop number
        need = 2 * max_hops + 1
    if vcs_per_vn is None:
        vcs_per_vn = need
    elif int(vcs_per_vn) < need:
        raise ParameterError(
            f"vcs_per_vn must be >= {need} (longest route has {need - 1} router-router hops and "
            f"anytopo uses VC = hop number; fewer VCs crash SST), got {vcs_per_vn}"
        )
    routers = []
    endpoints = []
    for v in range(n):
        eps = list(range(int(offsets[v]), int(offsets[v] + hosts[v])))
        e2p = [(e, max_degree + i) for i, e in enumerate(eps)]
        conn = ";".join(f"{w},{k}" for w, k in sorted(rank[v].items()))
        routers.append({
            "id": v,
            "num_ports": max_degree + len(eps),
            "num_R2R_ports": max_degree,
            "num_R2N_ports": len(eps),
            "degree": len(rank[v]),
            "connectivity": conn,
            "endpoint_to_port_map": _map_string(e2p),
            "port_to_endpoint_map": _map_string((p, e) for e, p in e2p),
        })
        if tables is not None:
            routers[-1]["routing_entry_string"] = tables[v]
        endpoints.extend({"id": e, "router": v, "port": p} for e, p in e2p)
    links = []
    for i, (u, v) in enumerate(edges.tolist()):
        link = {
            "name": f"link_{u}_{v}",
            "u": u,
            "port_u": rank[u][v],
            "v": v,
            "port_v": rank[v][u],
            "latency_ns": float(delays[i]),
            "latency": latency_string(delays[i]),
        }
        if lengths is not None:
            link["length_m"] = float(lengths[i])
            link["cable_delay_ns"] = float(cable_ns[i])
        links.append(link)
    rp = sim_defaults.sst_router_params(clock_ns)
    rp.update(router_params or {})
    np_ = sim_defaults.sst_nic_params(clock_ns)
    np_.update(nic_params or {})
    meta = {
        "generator": topology.name,
        "params": json.loads(canonical_json(topology.params)),
        "seed": topology.seed,
        "topogen_version": __version__,
        "routing": _routing_name(routing),
        "latency_source": "layout" if layout is not None else "uniform",
    }
    vc_rule = effective_vc_rule(routing)
    if vc_rule is not None:
        meta["vc_rule"] = vc_rule
    if layout is not None:
        meta["floor"] = layout.floor.to_dict()
        meta["placement"] = layout.placement
        meta["placement_seed"] = layout.seed
    doc = {
        "format": BUNDLE_FORMAT,
        "format_version": BUNDLE_VERSION,
        "metadata": meta,
        "num_routers": n,
        "num_endpoints": int(hosts.sum()),
        "max_degree": max_degree,
        "max_hops": max_hops,
        "vcs_per_vn": int(vcs_per_vn),
        "cycle_ps": cycle_ps,
        "router_params": json.loads(canonical_json(rp)),
        "nic_params": json.loads(canonical_json(np_)),
        "host_link_latency": latency_string(host_latency_ns),
        "endpoint_router_mapping": _map_string((ep["id"], ep["router"]) for ep in endpoints),
        "routers": routers,
        "links": links,
        "endpoints": endpoints,
    }
    if ugal_k:
        doc["source_routing_algo"] = "UGAL"
        doc["ugal_num_valiant"] = ugal_k
    if next_ports is not None:
        doc["next_hops"] = {"dtype": next_ports.dtype.name, "shape": [n, n],
                            "none": int(np.iinfo(next_ports.dtype).max), "rows": next_ports}
    return doc


def _ugal_export(routing) -> int:
    """``k`` of a UGAL-L routing exported as SST anytopo's ``source_routing_algo = UGAL``
    (0 for other routings); UGAL-G is refused."""
    from ..routing.ugal import UgalRouting

    if not isinstance(routing, UgalRouting):
        return 0
    if routing.variant != "local":
        raise RoutingError(
            "SST anytopo's UGAL sees only the source router's output queues (UGAL-L); UGAL-G "
            "cannot be exported: run it on the reference simulator (topogen simulate --routing ugal-g)")
    return routing.k


def effective_vc_rule(routing) -> str | None:
    """The VC rule a table routing's routes follow, as the bundle records it
    (``metadata.vc_rule``): ``"const"`` when every hop of every route is on one VC -- the
    ``const`` rule, or dor's ``dateline`` rule on a network whose routes cross no
    wrap-around link (a mesh, a hypercube, tori of sides 1-2) -- otherwise the routing's
    own rule (``dateline``, ``hop``, ``layer``); None for a routing without a table
    (Valiant, UGAL, escape ...).  ``topogen.table_topo`` takes a routing refused for its
    VC rule when this is ``const``."""
    rule = getattr(routing, "vc_rule", None)
    if not isinstance(rule, str):
        return None
    wrap = getattr(routing, "entry_wrap", None)
    if rule == "dateline" and wrap is not None and not np.any(wrap):
        return "const"
    return rule


def _routing_name(routing) -> str:
    for attr in ("algorithm", "name", "method", "kind"):
        v = getattr(routing, attr, None)
        if isinstance(v, str) and v:
            return v
    return type(routing).__name__


def write_bundle(path, topology, layout=None, routing=None, **kwargs) -> Path:
    """Write the bundle of :func:`bundle_dict` as JSON, atomically and byte-reproducibly.

    Parameters
    ----------
    path : path-like
        Output ``.json`` file.  With ``routes="next_hops"`` the next-hop matrix goes to
        :func:`next_hop_path` (``<stem>.nexthop.npy``, a NumPy ``.npy`` file) first, and the
        JSON records its name, type, data offset and SHA-256.
    topology, layout, routing, **kwargs
        See :func:`bundle_dict`.

    Returns
    -------
    pathlib.Path
    """
    bundle = bundle_dict(topology, layout, routing, **kwargs)
    # streamed: at 4,096 switches the tables alone are ~600 MB, which json.dumps and
    # str.encode would each copy again
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if "next_hops" in bundle:
        bundle["next_hops"] = _write_next_hops(path, bundle["next_hops"])
    with atomic_open(path, "w") as fh:
        fh.writelines(json.JSONEncoder(indent=1, sort_keys=True).iterencode(bundle))
        fh.write("\n")
    return path


def next_hop_path(path) -> Path:
    """Where the next-hop matrix of the bundle ``path`` goes: ``net.json`` ->
    ``net.nexthop.npy``."""
    path = Path(path)
    return path.with_name(path.name[: -len(path.suffix)] + NEXT_HOP_SUFFIX if path.suffix else
                          path.name + NEXT_HOP_SUFFIX)


def _write_next_hops(path: Path, entry: Mapping[str, Any]) -> dict[str, Any]:
    import hashlib

    rows = np.ascontiguousarray(entry["rows"])
    target = next_hop_path(path)
    with atomic_open(target, "wb", encoding=None) as fh:
        np.lib.format.write_array(fh, rows, allow_pickle=False)
        size = fh.tell()
    out = {k: v for k, v in entry.items() if k != "rows"}
    out.update({"file": target.name, "offset": size - rows.nbytes,
                "sha256": hashlib.sha256(memoryview(rows).cast("B")).hexdigest()})
    return out


def next_port_rows(doc: Mapping[str, Any], path) -> np.ndarray:
    """The ``(N, N)`` next-hop ports of a next-hop bundle, memory-mapped read-only.

    Parameters
    ----------
    doc : mapping
        The bundle; ``doc["next_hops"]["rows"]`` (an unwritten bundle) is returned as it is.
    path : path-like
        The bundle's JSON; the matrix is ``doc["next_hops"]["file"]`` beside it.

    Raises
    ------
    FormatError
        No matrix, or one whose file, type, shape or data offset differ from the JSON's.
    """
    entry = doc.get("next_hops")
    if not isinstance(entry, Mapping):
        raise FormatError(f"the bundle has no next_hops entry; {_FIX}", path=path)
    if "rows" in entry:
        return entry["rows"]
    n = int(doc["num_routers"])
    file = Path(path).parent / str(entry.get("file", ""))
    try:
        rows = np.load(file, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise FormatError(f"next-hop matrix {file} cannot be read ({exc}); it must sit beside the JSON it "
                          f"belongs to; {_FIX}", path=path) from None
    if rows.shape != (n, n) or rows.dtype.name != entry.get("dtype") or not rows.flags.c_contiguous \
            or rows.offset != entry.get("offset"):
        raise FormatError(f"next-hop matrix {file} is {rows.dtype.name} {rows.shape} at byte {rows.offset}, the "
                          f"bundle says {entry.get('dtype')} ({n}, {n}) at byte {entry.get('offset')}; {_FIX}",
                          path=path)
    return rows


def read_bundle(path, *, validate: bool = True) -> dict[str, Any]:
    """Load a bundle written by :func:`write_bundle` and check it (see :func:`validate_bundle`).

    Parameters
    ----------
    path : path-like
    validate : bool
        Check ports, endpoints, routes, VCs and latencies (default); ``False`` only checks
        the format marker and version.

    Returns
    -------
    dict

    Raises
    ------
    FormatError
        Not JSON, not a topogen SST bundle, an unsupported version, or an inconsistent
        bundle (the message names the router and port).
    """
    kind, doc = read_any_bundle(path, validate=validate)
    if kind != "sst":
        raise FormatError(f"not a {BUNDLE_FORMAT} file (it is a topology bundle, format "
                          f"{_TOPOLOGY_FORMAT!r}); run `topogen run sst` on it to export one", path=path)
    return doc


_TOPOLOGY_FORMAT = "topogen-bundle"


def read_any_bundle(path, *, validate: bool = True) -> tuple[str, Any]:
    """Parse a topogen JSON file once and say which bundle it is, whatever its size.

    Parameters
    ----------
    path : path-like
    validate : bool
        Check an SST bundle with :func:`validate_bundle`.

    Returns
    -------
    ("sst", dict) or ("topology", (Topology, Layout or None))
        An SST bundle (format ``topogen-sst-bundle``) as a dict, or a topology bundle
        (format ``topogen-bundle``, :func:`topogen.formats.write_bundle`) read
        into its topology and layout.

    Raises
    ------
    FormatError
        Not JSON, another format, an unsupported version or an inconsistent bundle.
    """
    from .._input import input_limit, parse_json, read_text_file

    path = Path(path)
    text = read_text_file(path, limit_bytes=input_limit(), what="SST bundle", override=True,
                          memory_factor=16)
    doc = parse_json(text, path=path, what="SST bundle")
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt == _TOPOLOGY_FORMAT:
        from ..formats import from_bundle_dict

        return "topology", from_bundle_dict(doc, path=path)
    if fmt != BUNDLE_FORMAT:
        raise FormatError(f"not a topogen bundle (format is {fmt!r}; expected {BUNDLE_FORMAT!r} "
                          f"or {_TOPOLOGY_FORMAT!r})", path=path)
    if doc.get("format_version") != BUNDLE_VERSION:
        raise FormatError(f"bundle format_version {doc.get('format_version')} is not {BUNDLE_VERSION}; "
                          "re-export it with this topogen", path=path)
    if validate:
        validate_bundle(doc, path=path)
    return "sst", doc


_FIX = "re-export the bundle with topogen (export.sst.write_bundle or `topogen run sst TOPOLOGY`)"


def _int_map(text, what, path) -> dict[int, int]:
    """``"{6:3, 7:4}"`` -> ``{6: 3, 7: 4}`` (merlin's map syntax)."""
    body = str(text).strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise FormatError(f"{what} {text!r} is not a map like '{{6:3, 7:4}}'; {_FIX}", path=path)
    out: dict[int, int] = {}
    for item in body[1:-1].split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition(":")
        try:
            k, v = int(key), int(value)
        except ValueError:
            raise FormatError(f"{what}: entry {item.strip()!r} is not 'int:int'; {_FIX}", path=path) from None
        if not sep or k in out:
            raise FormatError(f"{what}: entry {item.strip()!r} is malformed or repeated; {_FIX}", path=path)
        out[k] = v
    return out


def _latency_ps(text) -> float:
    """An SST time string in ps (``"10000ps"``, ``"20ns"``); NaN if unreadable."""
    units = {"fs": 1e-3, "ps": 1.0, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12}
    t = str(text).strip()
    for u in sorted(units, key=len, reverse=True):
        if t.endswith(u):
            try:
                return float(t[: -len(u)]) * units[u]
            except ValueError:
                return math.nan
    return math.nan


def validate_bundle(doc: Mapping[str, Any], *, path=None) -> None:
    """Check that SST will build the network a bundle describes, before SST starts.

    Checked: every router's ``num_ports = num_R2R_ports + num_R2N_ports``; each
    ``connectivity`` entry names another router through ports within ``num_R2R_ports``,
    no port twice, and agrees with ``links[]`` (each link's ``port_u``/``port_v`` is listed
    at both ends, and nothing else is); every endpoint ``0..num_endpoints-1`` is mapped
    exactly once, on a host port (``num_R2R_ports`` and above), consistently in
    ``endpoint_to_port_map``, ``port_to_endpoint_map``, ``endpoints[]`` and
    ``endpoint_router_mapping``; every router's source-routing table reaches every other
    router along links, with weights summing to 1; ``vcs_per_vn`` is at least the longest
    route + 1 (anytopo uses VC = hop number; fewer VCs crash SST with a segmentation fault);
    every link and host latency is positive; ``cycle_ps``, when present, is a positive
    whole number of ps.

    Parameters
    ----------
    doc : mapping
        A bundle (as :func:`bundle_dict` makes it).
    path : path-like, optional
        Named in the error.

    Raises
    ------
    FormatError
        The first inconsistency, in one line naming the router (and port or endpoint).
    """
    def fail(msg):
        raise FormatError(f"{msg}; {_FIX}", path=path)

    try:
        _validate(doc, fail, path)
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FormatError(f"bundle entry missing or of the wrong type ({type(exc).__name__}: {exc}); "
                          f"{_FIX}", path=path) from None


def _validate(doc, fail, path) -> None:
    try:
        n = int(doc["num_routers"])
        n_ep = int(doc["num_endpoints"])
        routers = list(doc["routers"])
        links = list(doc["links"])
        endpoints = list(doc["endpoints"])
        vcs = int(doc["vcs_per_vn"])
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"bundle lacks a valid {exc} entry; {_FIX}", path=path) from None
    if len(routers) != n or [r.get("id") for r in routers] != list(range(n)):
        fail(f"routers[] must list routers 0..{n - 1} in order (num_routers = {n})")
    conn: list[dict[int, list[int]]] = []
    owner: dict[int, tuple[int, int]] = {}  # endpoint -> (router, port)
    for r in routers:
        v = r["id"]
        r2r, r2n, ports = int(r["num_R2R_ports"]), int(r["num_R2N_ports"]), int(r["num_ports"])
        if ports != r2r + r2n:
            fail(f"router {v}: num_ports {ports} != num_R2R_ports {r2r} + num_R2N_ports {r2n} "
                 "(merlin.anytopo stops with 'Number of ports mismatch')")
        table: dict[int, list[int]] = {}
        used: set[int] = set()
        for entry in filter(None, (e.strip() for e in str(r["connectivity"]).split(";"))):
            try:
                dst, *plist = (int(x) for x in entry.split(","))
            except ValueError:
                fail(f"router {v}: connectivity entry {entry!r} is not 'router,port[,port...]'")
            if not (0 <= dst < n) or dst == v or not plist or dst in table:
                fail(f"router {v}: connectivity entry {entry!r} names router {dst}, which is not "
                     f"another router 0..{n - 1} listed once")
            for port in plist:
                if not 0 <= port < r2r:
                    fail(f"router {v} port {port}: connectivity to router {dst} uses port {port}, "
                         f"outside its router ports 0..{r2r - 1} (num_R2R_ports = {r2r})")
                if port in used:
                    fail(f"router {v} port {port}: used twice in connectivity")
                used.add(port)
            table[dst] = plist
        conn.append(table)
        e2p = _int_map(r["endpoint_to_port_map"], f"router {v} endpoint_to_port_map", path)
        p2e = _int_map(r["port_to_endpoint_map"], f"router {v} port_to_endpoint_map", path)
        if len(e2p) != r2n or {p: e for e, p in e2p.items()} != p2e:
            fail(f"router {v}: endpoint_to_port_map {r['endpoint_to_port_map']} and port_to_endpoint_map "
                 f"{r['port_to_endpoint_map']} must be inverse maps of its {r2n} host ports")
        for e, port in e2p.items():
            if not r2r <= port < ports:
                fail(f"router {v} port {port}: endpoint {e} is on port {port}, outside its host ports "
                     f"{r2r}..{ports - 1}")
            if not 0 <= e < n_ep:
                fail(f"router {v} port {port}: endpoint {e} is not in 0..{n_ep - 1}")
            if e in owner:
                fail(f"endpoint {e} is mapped twice: router {owner[e][0]} port {owner[e][1]} and "
                     f"router {v} port {port}")
            owner[e] = (v, port)
    if len(owner) != n_ep:
        missing = min(set(range(n_ep)) - set(owner))
        fail(f"endpoint {missing} is on no router ({len(owner)} of {n_ep} endpoints mapped)")
    listed = {}
    for ep in endpoints:
        e = ep.get("id")
        if e in listed or owner.get(e) != (ep.get("router"), ep.get("port")):
            fail(f"endpoints[] entry {ep} disagrees with the routers' endpoint_to_port_map "
                 f"(endpoint {e} is on router {owner.get(e, ('?',))[0]} port {owner.get(e, (None, '?'))[1]})")
        listed[e] = True
    if len(listed) != n_ep:
        fail(f"endpoints[] lists {len(listed)} endpoints, num_endpoints is {n_ep}")
    mapping = _int_map(doc.get("endpoint_router_mapping", "{}"), "endpoint_router_mapping", path)
    if mapping != {e: rp[0] for e, rp in owner.items()}:
        bad = min(e for e in range(n_ep) if mapping.get(e) != owner[e][0])
        fail(f"endpoint_router_mapping puts endpoint {bad} on router {mapping.get(bad)}, "
             f"the routers put it on router {owner[bad][0]}")
    seen: dict[tuple[int, int], int] = {}  # (router, port) -> link index
    for i, link in enumerate(links):
        for a, pa, b in (("u", "port_u", "v"), ("v", "port_v", "u")):
            x, px, y = int(link[a]), int(link[pa]), int(link[b])
            if not (0 <= x < n and 0 <= y < n):
                fail(f"link {link.get('name', i)} joins routers {x} and {y}, not in 0..{n - 1}")
            if px not in conn[x].get(y, ()):
                fail(f"router {x} port {px}: link {link.get('name', i)} to router {y} uses port {px}, "
                     f"but router {x}'s connectivity reaches router {y} through ports "
                     f"{conn[x].get(y, [])}")
            if (x, px) in seen:
                fail(f"router {x} port {px}: used by two links")
            seen[(x, px)] = i
        lat_ps = _latency_ps(link.get("latency"))
        if not lat_ps > 0:
            fail(f"link {link.get('name', i)} (router {link['u']} port {link['port_u']} - router "
                 f"{link['v']} port {link['port_v']}) has latency {link.get('latency')!r}; it must be "
                 "a positive time such as '10000ps'")
    for v, table in enumerate(conn):
        for w, plist in table.items():
            for port in plist:
                if (v, port) not in seen:
                    fail(f"router {v} port {port}: connectivity names router {w} on port {port}, "
                         "but no link in links[] ends there (SST would route into an unconnected port)")
    if not _latency_ps(doc.get("host_link_latency")) > 0:
        fail(f"host_link_latency {doc.get('host_link_latency')!r} must be a positive time such as '10000ps'")
    cyc = doc.get("cycle_ps")
    if cyc is not None and (isinstance(cyc, bool) or not isinstance(cyc, int) or cyc < 1):
        fail(f"cycle_ps {cyc!r} must be a whole positive number of ps (the cycle SST runs)")
    if "next_hops" in doc:
        longest = _check_next_hops(doc, conn, n, routers, fail, path)
    else:
        longest = _check_routes(routers, conn, n, fail)
    algo = doc.get("source_routing_algo", "weighted")
    if algo not in ("weighted", "UGAL"):
        fail(f"source_routing_algo must be 'weighted' or 'UGAL', got {algo!r}")
    if algo == "UGAL":
        k = doc.get("ugal_num_valiant")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            fail(f"ugal_num_valiant must be an integer >= 1 with source_routing_algo UGAL, got {k!r}")
        longest *= 2  # a Valiant candidate is two routes
    if vcs < longest + 1:
        fail(f"vcs_per_vn = {vcs} but the longest route has {longest} router-router hops; anytopo "
             f"uses VC = hop number and needs vcs_per_vn >= {longest + 1} (fewer crash SST)")


def _check_next_hops(doc, conn, n, routers, fail, path) -> int:
    """Check a next-hop bundle's matrix (file, checksum, every route); the longest route."""
    import hashlib

    if doc.get("source_routing_algo", "weighted") != "weighted":
        fail("a next-hop bundle routes by destination: it cannot have source_routing_algo "
             f"{doc['source_routing_algo']!r}")
    if any("routing_entry_string" in r for r in routers):
        fail("a next-hop bundle carries no routing_entry_string (its routes are the next_hops matrix)")
    rows = next_port_rows(doc, path)
    want = doc["next_hops"].get("sha256")
    if want is not None and "rows" not in doc["next_hops"]:
        h = hashlib.sha256()
        step = max(1, (64 << 20) // max(rows.strides[0], 1))
        for lo in range(0, n, step):
            h.update(np.ascontiguousarray(rows[lo:lo + step]).data)
        if h.hexdigest() != want:
            fail(f"next-hop matrix {doc['next_hops'].get('file')} is not the one this bundle was written with "
                 "(SHA-256 differs)")
    ports = max((int(r["num_R2R_ports"]) for r in routers), default=0)
    longest, fault = sst_tables.next_port_walk(rows, sst_tables.port_routers(conn, n, ports))
    if fault is not None:
        fail(f"router {fault[0]}: next hop towards router {fault[1]}: {fault[2]}")
    return longest


def _check_routes(routers, conn, n, fail) -> int:
    """Check every router's source-routing table; return the longest route (hops)."""
    longest = 0
    links = sst_tables.link_codes(conn, n)
    for r in _progress.progress(routers, desc="checking SST routes", total=len(routers)):
        v = r["id"]
        fast = sst_tables.single_path_table_check(v, str(r["routing_entry_string"]), n, links)
        if fast is not None:  # topogen's own form, checked by NumPy at once
            longest = max(longest, fast)
            continue
        dests: set[int] = set()
        for entry in filter(None, str(r["routing_entry_string"]).split("|")):
            head, _, rest = entry.partition(":")
            try:
                dst = int(head)
                paths = [[float(x) if i == 0 else int(x) for i, x in enumerate(p.split(","))]
                         for p in rest.split(";")]
            except ValueError:
                fail(f"router {v}: routing entry {entry[:60]!r} is not 'dst:weight,hop,...'")
            if dst in dests or not (0 <= dst < n) or dst == v:
                fail(f"router {v}: routing table names destination {dst} twice or out of range")
            dests.add(dst)
            total = 0.0
            for p in paths:
                total += p[0]
                hops = p[1:]
                if not hops or hops[-1] != dst:
                    fail(f"router {v}: route to router {dst} {hops} does not end at {dst}")
                prev = v
                for h in hops:
                    if h not in conn[prev]:
                        fail(f"router {v}: route to router {dst} goes {prev} -> {h}, and router {prev} "
                             f"has no port to router {h}")
                    prev = h
                longest = max(longest, len(hops))
            if abs(total - 1.0) > 1e-3 * len(paths):
                fail(f"router {v}: route weights to router {dst} sum to {total:g}, not 1")
        if len(dests) != n - 1:
            missing = min(set(range(n)) - dests - {v})
            fail(f"router {v}: routing table has no route to router {missing}")
    return longest
