"""The source-routing tables of an SST bundle: merlin's ``routing_entry_string`` per router.

A table lists one route per destination router, ``"dst:1.00000,hop1,...,dst|..."``
(destinations in increasing order), so a bundle holds ``N * (N - 1)`` routes: 1 M at 1,024
switches, 16.8 M at 4,096.  For a :class:`topogen.routing.base.TableRouting` (every
deterministic routing, escape routings' minimal table, UGAL's MIN routes) the routes are
walked many sources at a time with :meth:`~topogen.routing.base.TableRouting.route_matrix`
and written by one ``str.join`` per router over pre-formatted tokens, which gives the same
bytes as formatting each route (``routing_entry_string``) about ten times faster.  Valiant
(several weighted paths per destination) goes through ``topogen.routing.export``; any other
object with ``path(src, dst)`` is walked route by route and checked against the links.
"""

from __future__ import annotations

from collections.abc import Mapping

import warnings

import numpy as np

from .. import _progress
from ..errors import RoutingError

__all__ = ["routing_entry_string", "router_tables", "single_path_table_check", "parse_single_path",
           "next_port_matrix", "port_routers", "next_port_walk"]

#: Routes walked at once by the vectorised path (bounds the (hops, routes) work arrays:
#: about 8 bytes x longest route x this many).
CHUNK_ROUTES = 1 << 18


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


def _single_path_table(routing):
    """The :class:`~topogen.routing.base.TableRouting` whose routes ``paths_from`` lists
    for ``routing`` (one path per destination), or None (Valiant, or not a table)."""
    try:
        from ..routing.base import TableRouting
        from ..routing.export import _deterministic
        from ..routing.ugal import UgalRouting
        from ..routing.valiant import ValiantRouting
    except ImportError:  # pragma: no cover - routing package always ships with topogen
        return None
    if isinstance(routing, UgalRouting):
        routing = routing.base
    if isinstance(routing, ValiantRouting):
        return None
    table = _deterministic(routing)
    return table if isinstance(table, TableRouting) else None


def _fast_tables(table, n: int, bar) -> tuple[list[str], int]:
    """Every router's table from ``table.route_matrix``, many sources per walk.

    Tokens: ``|d:1.00000`` opens the route to ``d``, ``,h`` is a hop, ``""`` pads the
    shorter routes; a router's table is the join of its routes' tokens without the first
    ``|``.  Destinations run in increasing order, as ``routing_entry_string`` sorts them.
    """
    names = [str(i) for i in range(n)]
    tokens = np.array([f"|{x}:1.00000" for x in names] + [f",{x}" for x in names] + [""], dtype=object)
    pad = 2 * n
    # token of the hop along CSR entry e; entry -1 (past a route's end) takes the last: pad
    hop_token = np.append(n + np.asarray(table.view.indices, dtype=np.int64), pad)
    per_chunk = max(1, CHUNK_ROUTES // max(n - 1, 1))
    all_dst = np.arange(n, dtype=np.int64)
    tables: list[str] = []
    max_hops = 0
    for first in range(0, n, per_chunk):
        sources = np.arange(first, min(n, first + per_chunk), dtype=np.int64)
        k = len(sources)
        # destinations of each source: every router but itself, in increasing order
        dst = np.broadcast_to(all_dst, (k, n))[all_dst[None, :] != sources[:, None]].reshape(k, n - 1)
        src = np.repeat(sources, n - 1)
        ent, _ = table.route_matrix(src, dst.ravel(), with_vcs=False)
        if ent.shape[0]:
            max_hops = max(max_hops, int((ent >= 0).sum(axis=0).max()))
        tok = np.empty((ent.shape[0] + 1, ent.shape[1]), dtype=np.int64)
        tok[0] = dst.ravel()
        tok[1:] = hop_token[ent]
        flat = tok.T.ravel()  # per source its routes' tokens, route after route
        keep = flat != pad
        ends = np.cumsum(keep.reshape(k, -1).sum(axis=1)).tolist()
        text = tokens[flat[keep]].tolist()
        start = 0
        for end in ends:
            tables.append("".join(text[start:end])[1:])
            start = end
        bar.update(k)
    return tables, max_hops


def router_tables(routing, topology) -> tuple[list[str], int]:
    """Source-routing table string of every router, and the longest route (router hops).

    Parameters
    ----------
    routing : Routing or object with ``path(src, dst)``
        A :class:`topogen.routing.base.Routing` goes through its table (one path per
        destination) or ``topogen.routing.export.sst_entry_string`` (Valiant: several
        weighted paths); any other object only needs ``path(src, dst)``, and its routes are
        checked hop by hop against the topology's links.
    topology : Topology

    Returns
    -------
    tables : list of str
        ``routing_entry_string`` of routers ``0 .. N-1``.
    max_hops : int
    """
    n = topology.num_switches
    with _progress.Progress(total=n, desc="SST route tables") as bar:
        table = _single_path_table(routing)
        if table is not None:
            return _fast_tables(table, n, bar)
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
                    tables.append(routing_entry_string({d: plist[0] for d, plist in paths.items()}))
                else:  # several weighted paths (Valiant): the routing module's weights
                    tables.append(sst_entry_string(routing, s))
                for plist in paths.values():
                    for p in plist:
                        max_hops = max(max_hops, len(p))
                bar.update()
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
            bar.update()
        return tables, max_hops


#: Up to this many router pairs (n * n) the links are a dense lookup table (64 MB of bool).
DENSE_PAIRS = 1 << 26


def link_codes(conn, n: int) -> np.ndarray:
    """The router pairs joined by a port (``conn[u]`` maps ``w``): a bool table indexed by
    ``u * n + w`` (up to :data:`DENSE_PAIRS` pairs), else the sorted codes ``u * n + w``."""
    codes = np.asarray([u * n + w for u, table in enumerate(conn) for w in table], dtype=np.int64)
    if n * n <= DENSE_PAIRS:
        dense = np.zeros(n * n, dtype=bool)
        dense[codes] = True
        return dense
    return np.unique(codes)


def parse_single_path(entry: str):
    """One router's table of topogen's form (one route of weight ``1.00000`` per
    destination) as NumPy arrays, or None for any other form.

    Returns
    -------
    (tokens, starts, ends) or None
        ``tokens`` holds each route's destination then its hops, routes separated by -1;
        route ``i`` is ``tokens[starts[i]:ends[i]]`` (destination first).
    """
    if not entry or ";" in entry:
        return None
    body = entry.replace(":1.00000,", ",")
    if ":" in body:
        return None
    body = body.replace("|", ",-1,")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            a = np.fromstring(body, dtype=np.int64, sep=",")
        except (ValueError, DeprecationWarning):
            return None
    if len(a) != body.count(",") + 1:
        return None
    marks = np.flatnonzero(a < 0)
    if (a[marks] != -1).any():
        return None
    starts = np.concatenate(([0], marks + 1))
    ends = np.concatenate((marks, [len(a)]))
    return a, starts, ends


def single_path_table_check(v: int, entry: str, n: int, links: np.ndarray) -> int | None:
    """The longest route of router ``v``'s table if it passes every check, else None.

    The bundle validator's fast path for the tables topogen writes (one route of weight
    ``1.00000`` per destination, :func:`parse_single_path`): the whole string is read by
    NumPy and checked at once (every other router once, in range, not ``v``; each route
    ends at its destination; each hop follows a link of ``links``, see
    :func:`link_codes`).  None means "not this simple form, or wrong": the caller's
    route-by-route check then names the fault.
    """
    parsed = parse_single_path(entry)
    if parsed is None:
        return None
    a, starts, ends = parsed
    marks = ends[:-1]
    hops = ends - starts - 1
    if len(starts) != n - 1 or (hops < 1).any():
        return None
    dst = a[starts]
    if (dst >= n).any():
        return None
    seen = np.bincount(dst, minlength=n)
    if seen[v] != 0 or (seen > 1).any():  # n - 1 destinations, none twice, not v: all others
        return None
    if (a[ends - 1] != dst).any():
        return None
    is_hop = np.ones(len(a), dtype=bool)
    is_hop[marks] = False
    is_hop[starts] = False
    at = np.flatnonzero(is_hop)
    prev = np.where(is_hop[at - 1], a[at - 1], v)  # a route's first hop leaves v
    code = prev * n + a[at]
    if links.dtype == bool:
        if not links[code].all():
            return None
    else:
        pos = np.minimum(np.searchsorted(links, code), len(links) - 1)
        if len(links) == 0 or (links[pos] != code).any():
            return None
    return int(hops.max())


_router_tables = router_tables  # the name export.sst used before the split


# ---------------------------------------------------------------- next-hop rows
#: Destinations walked at once by :func:`next_port_walk` (bounds its (N, block) arrays).
WALK_BLOCK_PAIRS = 1 << 23


def next_port_dtype(max_degree: int) -> np.dtype:
    """The unsigned type of a next-hop row: one byte up to 254 ports, else two (the type's
    largest value marks a router's own column)."""
    if max_degree < 255:
        return np.dtype(np.uint8)
    if max_degree < 65535:
        return np.dtype(np.uint16)
    raise RoutingError(f"a router with {max_degree} ports does not fit a next-hop row of 16 bits")


def next_hop_table(routing):
    """The table whose next hops ``routing``'s routes follow (see :func:`next_port_matrix`).

    Raises
    ------
    RoutingError
        Valiant, UGAL or a routing that is not a table.
    """
    from ..routing.ugal import UgalRouting

    table = None if isinstance(routing, UgalRouting) else _single_path_table(routing)
    if table is None:
        name = getattr(routing, "algorithm", type(routing).__name__)
        raise RoutingError(f"routing {name} has no next hop per (router, destination) (several paths, or chosen "
                           "at the source); export full routes instead (write_bundle(..., routes='full')), which "
                           "merlin.anytopo runs")
    return table


def next_port_matrix(routing, topology) -> np.ndarray:
    """The output port of every router towards every destination router: ``(N, N)``.

    Row ``v``, column ``d`` is the port (the rank of the next router in
    ``topology.neighbors(v)``, the bundle's port convention) of the first hop of the
    routing's route from ``v`` to ``d``; the diagonal holds the type's largest value.
    For a one-phase :class:`~topogen.routing.base.TableRouting` this is its table as it
    is (every route walks it); for a phased table (up*/down*) it is built from the routes'
    first hops, and every route is checked to follow it.

    Raises
    ------
    RoutingError
        A routing that does not give one next hop per (router, destination): Valiant, UGAL,
        a routing that is not a table, or routes whose next hop depends on the source
        (the message names the first such route).
    """
    name = getattr(routing, "algorithm", type(routing).__name__)
    table = next_hop_table(routing)
    fix = "export full routes instead (write_bundle(..., routes='full')), which merlin.anytopo runs"
    n = topology.num_switches
    dtype = next_port_dtype(int(topology.degree) if topology.num_links else 0)
    none = np.iinfo(dtype).max
    if table.num_phases == 1:
        ranks = table.ranks[0]
        out = np.empty((n, n), dtype=dtype)
        step = max(1, WALK_BLOCK_PAIRS // max(n, 1))
        sentinel = table.sentinel
        for lo in range(0, n, step):  # row blocks: a memory-mapped table is read once
            block = np.asarray(ranks[lo:lo + step])
            missing = block == sentinel
            missing[np.arange(len(block)), np.arange(lo, lo + len(block))] = False
            if missing.any():
                v, d = (int(x) for x in np.argwhere(missing)[0])
                raise RoutingError(f"routing {name} has no route from router {lo + v} to router {d}")
            out[lo:lo + step] = block
        np.fill_diagonal(out, none)
        return out
    return _next_ports_from_routes(table, n, dtype, name, fix)


def _next_ports_from_routes(table, n, dtype, name, fix) -> np.ndarray:
    """First hops of the routes as ports, every later hop checked against them."""
    indptr, indices = table.view.indptr, table.view.indices
    out = np.full((n, n), np.iinfo(dtype).max, dtype=dtype)
    per_chunk = max(1, CHUNK_ROUTES // max(n - 1, 1))
    all_dst = np.arange(n, dtype=np.int64)

    def chunks():
        for first in range(0, n, per_chunk):
            sources = np.arange(first, min(n, first + per_chunk), dtype=np.int64)
            k = len(sources)
            dst = np.broadcast_to(all_dst, (k, n))[all_dst[None, :] != sources[:, None]].ravel()
            src = np.repeat(sources, n - 1)
            ent, _ = table.route_matrix(src, dst, with_vcs=False)
            yield src, dst, ent

    for src, dst, ent in chunks():
        out[src, dst] = ent[0] - indptr[src]
    for src, dst, ent in chunks():
        at = src.copy()
        for h in range(ent.shape[0]):
            live = ent[h] >= 0
            want = indptr[at[live]] + out[at[live], dst[live]]
            if (ent[h][live] != want).any():
                k = np.flatnonzero(live)[int(np.argmax(ent[h][live] != want))]
                raise RoutingError(
                    f"routing {name}: the next hop depends on the source (the route {src[k]} -> {dst[k]} leaves "
                    f"router {at[k]} for router {indices[ent[h][k]]}, the route {at[k]} -> {dst[k]} for router "
                    f"{indices[indptr[at[k]] + out[at[k], dst[k]]]}); {fix}")
            at[live] = indices[ent[h][live]]
    return out


def port_routers(conn, n: int, ports: int) -> np.ndarray:
    """``(N, ports)`` int32: the router at the other end of every router port (-1: none),
    from each router's ``connectivity`` (``conn[v]`` maps a router to its ports)."""
    out = np.full((n, max(ports, 1)), -1, dtype=np.int32)
    for v, table in enumerate(conn):
        for w, plist in table.items():
            out[v, plist] = w
    return out


def next_port_walk(next_port, port_router) -> tuple[int, tuple[int, int, str] | None]:
    """Walk every route of a next-hop matrix: ``(longest route in hops, fault)``.

    ``fault`` is None when, from every router, following ``next_port[v, d]`` reaches every
    destination ``d`` through ports that have a router at their other end; else
    ``(router, destination, why)`` of the first fault found.  Routes are resolved
    destination block by destination block (``hops[v, d] = 1 + hops[next, d]``), one pass
    per hop of the longest route.
    """
    n = next_port.shape[0]
    none = np.iinfo(next_port.dtype).max
    ports = port_router.shape[1]
    block = max(1, WALK_BLOCK_PAIRS // max(n, 1))
    rows = np.arange(n, dtype=np.int64)
    longest = 0
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        cols = np.arange(lo, hi, dtype=np.int64)
        p = np.asarray(next_port[:, lo:hi]).astype(np.int64)
        own = rows[:, None] == cols[None, :]
        bad = ~own & ((p >= ports) | (p == none))
        if bad.any():
            v, j = (int(x) for x in np.argwhere(bad)[0])
            return longest, (v, lo + j, f"port {int(p[v, j])} is not a router port (0..{ports - 1})")
        if (p[own] != none).any():
            v = int(np.flatnonzero(p[own] != none)[0]) + lo
            return longest, (v, v, "a router's own column must be empty")
        p[own] = 0
        nxt = port_router[rows[:, None], p]
        nxt[own] = -1
        if (nxt[~own] < 0).any():
            v, j = (int(x) for x in np.argwhere(~own & (nxt < 0))[0])
            return longest, (v, lo + j, f"port {int(p[v, j])} has no router at its other end")
        hops = np.where(own, 0, -1).astype(np.int32)
        col = np.broadcast_to(np.arange(hi - lo), (n, hi - lo))
        todo = ~own
        while todo.any():
            cand = hops[nxt[todo], col[todo]]
            got = cand >= 0
            if not got.any():
                v, j = (int(x) for x in np.argwhere(todo)[0])
                return longest, (v, lo + j, "the next hops go round a loop and never reach the destination")
            idx = np.flatnonzero(todo.ravel())[got]
            hops.ravel()[idx] = cand[got] + 1
            todo.ravel()[idx] = False
        longest = max(longest, int(hops.max()))
    return longest, None
