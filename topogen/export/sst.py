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
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import sim_defaults
from .._version import __version__
from ..errors import ParameterError, RoutingError, TopologyError
from ..results import atomic_write_text, canonical_json

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "DEFAULT_ROUTER_PARAMS",
    "DEFAULT_NIC_PARAMS",
    "model_path",
    "routing_entry_string",
    "bundle_dict",
    "write_bundle",
    "read_bundle",
    "latency_string",
]

BUNDLE_FORMAT = "topogen-sst-bundle"
BUNDLE_VERSION = 1

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


def _hops(routing, src: int, dst: int, topology) -> list[int]:
    """Router hops after ``src`` up to and including ``dst``, checked against the links."""
    result = routing.path(src, dst)
    switches = result[0] if isinstance(result, tuple) else result
    hops = [int(x) for x in switches]
    if hops and hops[0] == src:
        hops = hops[1:]
    if not hops or hops[-1] != dst:
        raise RoutingError(f"route {src} -> {dst} does not end at {dst}: {switches}")
    prev = src
    for h in hops:
        if not topology.has_link(prev, h):
            raise RoutingError(f"route {src} -> {dst} uses {prev} -> {h}, which is not a link")
        prev = h
    return hops


def routing_entry_string(routes: Mapping[int, list[int]]) -> str:
    """merlin's source-routing table of one router: ``"dst:1.00000,hop1,...,dst|..."``.

    Parameters
    ----------
    routes : mapping
        Destination router -> hops after the source (ending at the destination); one path
        per destination, weight 1.

    Returns
    -------
    str
    """
    return "|".join(
        f"{dst}:1.00000," + ",".join(str(h) for h in routes[dst]) for dst in sorted(routes)
    )


def _router_tables(routing, topology) -> tuple[list[str], int]:
    """Source-routing table string of every router, and the longest route (hops).

    A :class:`topogen.routing.base.Routing` goes through ``topogen.routing.export``
    (``paths_from`` / ``sst_entry_string``: one path per destination, or several weighted
    paths for Valiant); any other object only needs ``path(src, dst)``, and its routes are
    checked hop by hop against the topology's links.
    """
    n = topology.num_switches
    try:
        from ..routing.base import Routing
        from ..routing.export import paths_from, sst_entry_string
    except ImportError:  # pragma: no cover - routing package always ships with topogen
        Routing = None
    tables: list[str] = []
    max_hops = 0
    if Routing is not None and isinstance(routing, Routing):
        for s in range(n):
            paths = paths_from(routing, s)
            if all(len(plist) == 1 for plist in paths.values()):
                # one path per destination (weight 1): format directly, it is much faster
                routes = {d: plist[0] for d, plist in paths.items()}
                tables.append(routing_entry_string(routes))
            else:  # several weighted paths (Valiant): the routing module's weights
                tables.append(sst_entry_string(routing, s))
            for plist in paths.values():
                for p in plist:
                    max_hops = max(max_hops, len(p))
        return tables, max_hops
    for s in range(n):
        routes = {}
        for d in range(n):
            if d == s:
                continue
            hops = _hops(routing, s, d, topology)
            routes[d] = hops
            max_hops = max(max_hops, len(hops))
        tables.append(routing_entry_string(routes))
    return tables, max_hops


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
    link_latency_ns: float = sim_defaults.CYCLE_NS,
    host_latency_ns: float = sim_defaults.CYCLE_NS,
    vcs_per_vn: int | None = None,
    router_params: Mapping[str, Any] | None = None,
    nic_params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The SST bundle of a routed, laid-out topology as a plain dict.

    Parameters
    ----------
    topology : Topology
        Must be connected and have at least one host.
    layout : Layout, optional
        Gives each cable's latency (``layout.link_delay``, ns).  Without it every
        router-router link gets ``link_latency_ns``.
    routing : Routing, optional
        A :class:`topogen.routing.base.Routing` (its paths come from
        ``topogen.routing.export``; Valiant gives several weighted paths per destination),
        or any object with ``path(src, dst) -> (switches, vcs)`` (switches may or may not
        start with ``src``; hops are checked against the links).  Default:
        ``topogen.routing.nearest(topology, layout)``.
    link_latency_ns : float
        Latency of every cable when no layout is given (default one shared cycle).
    host_latency_ns : float
        Latency of the endpoint-router links (default one shared cycle).
    vcs_per_vn : int, optional
        VCs per virtual network; default longest route (router-router hops) + 1.
    router_params, nic_params : mapping, optional
        Overrides of :data:`DEFAULT_ROUTER_PARAMS` / :data:`DEFAULT_NIC_PARAMS`.

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
    if layout is not None:
        delays = np.asarray(layout.link_delay, dtype=float)
        if delays.shape != (len(edges),):
            raise ParameterError("layout does not match the topology (one delay per link expected)")
    else:
        delays = np.full(len(edges), float(link_latency_ns))
    lengths = np.asarray(layout.cable_length, dtype=float) if layout is not None else None
    rank = [dict() for _ in range(n)]
    for v in range(n):
        for k, w in enumerate(topology.neighbors(v).tolist()):
            rank[v][int(w)] = k
    offsets = np.concatenate([[0], np.cumsum(hosts)[:-1]]).astype(np.int64)

    tables, max_hops = _router_tables(routing, topology)
    need = max_hops + 1
    if vcs_per_vn is None:
        vcs_per_vn = need
    elif int(vcs_per_vn) < need:
        raise ParameterError(
            f"vcs_per_vn must be >= {need} (longest route has {max_hops} router-router hops and "
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
            "routing_entry_string": tables[v],
        })
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
        links.append(link)
    rp = dict(DEFAULT_ROUTER_PARAMS)
    rp.update(router_params or {})
    np_ = dict(DEFAULT_NIC_PARAMS)
    np_.update(nic_params or {})
    meta = {
        "generator": topology.name,
        "params": json.loads(canonical_json(topology.params)),
        "seed": topology.seed,
        "topogen_version": __version__,
        "routing": _routing_name(routing),
        "latency_source": "layout" if layout is not None else "uniform",
    }
    if layout is not None:
        meta["floor"] = layout.floor.to_dict()
        meta["placement"] = layout.placement
        meta["placement_seed"] = layout.seed
    return {
        "format": BUNDLE_FORMAT,
        "format_version": BUNDLE_VERSION,
        "metadata": meta,
        "num_routers": n,
        "num_endpoints": int(hosts.sum()),
        "max_degree": max_degree,
        "max_hops": max_hops,
        "vcs_per_vn": int(vcs_per_vn),
        "router_params": json.loads(canonical_json(rp)),
        "nic_params": json.loads(canonical_json(np_)),
        "host_link_latency": latency_string(host_latency_ns),
        "endpoint_router_mapping": _map_string((ep["id"], ep["router"]) for ep in endpoints),
        "routers": routers,
        "links": links,
        "endpoints": endpoints,
    }


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
        Output ``.json`` file.
    topology, layout, routing, **kwargs
        See :func:`bundle_dict`.

    Returns
    -------
    pathlib.Path
    """
    bundle = bundle_dict(topology, layout, routing, **kwargs)
    return atomic_write_text(path, json.dumps(bundle, indent=1, sort_keys=True) + "\n")


def read_bundle(path) -> dict[str, Any]:
    """Load and sanity-check a bundle written by :func:`write_bundle`.

    Raises
    ------
    FormatError
        Not a topogen SST bundle, or an unsupported version.
    """
    from ..errors import FormatError

    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FormatError(f"not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    if not isinstance(doc, dict) or doc.get("format") != BUNDLE_FORMAT:
        raise FormatError(f"not a {BUNDLE_FORMAT} file", path=path)
    if doc.get("format_version") != BUNDLE_VERSION:
        raise FormatError(f"bundle format_version {doc.get('format_version')} is not {BUNDLE_VERSION}", path=path)
    return doc
