"""topogen's SST model: build a merlin network from a topogen SST bundle.

Run by SST, never imported by topogen itself::

    sst topogen_sst.py -- --bundle net.json --load 0.5 --traffic uniform \\
        --message-size 64B --warmup 10us --collect 40us --drain 20us --window 4us \\
        --stats stats.csv

It needs only the Python standard library and the ``sst`` module (SST-Core with a
merlin that has ``merlin.anytopo``, i.e. sst-elements newer than v16.0.0).  What it builds:

* one ``merlin.hr_router`` per router, with a ``merlin.anytopo`` topology subcomponent in
  ``source_routing`` mode (``connectivity``, endpoint/port maps, ``vcs_per_vn`` and the
  router's own source-routing table for untimed traffic, all copied from the bundle);
* one ``sst.Link`` per cable, with that cable's latency at both ends;
* one ``merlin.offered_load`` per endpoint, with a ``merlin.endpointNIC`` (plugin
  ``sourceRoutingPlugin`` = ``merlin.sourceRoutingPlugin`` holding the source router's
  table) wrapping a ``merlin.linkcontrol``, linked to its router port with the host
  latency;
* NIC statistics (``packet_latency``, ``send_bit_count``) written to a CSV file by
  ``sst.statOutputCSV`` every ``--window`` (cumulative: never reset), so that the driver can
  measure each load after its warm-up and compare sample windows.

With ``--generator bernoulli`` each endpoint is topogen's own ``topogen.bernoulli_nic``
(``sst_models/topogen_nic``, loaded with ``sst --add-lib-path=DIR``) instead of
``merlin.offered_load``: Bernoulli arrivals from a per-endpoint stream of ``--seed``, an
unbounded source queue, latency from creation to the tail's arrival over the packets
created in the collect window (``docs/sst.md``).  It runs one load; its results are lines
``topogen.bernoulli_nic ep=...`` printed at the end, and no statistics file is written.
Its patterns: ``uniform`` (the source included unless ``--no-self-packets``) and the fixed
permutations ``bit_complement``, ``shift:K``, ``tornado``, ``neighbor`` or
``table:D0,D1,...`` (the destination of every endpoint, -1 for none).

With ``--topology table`` every router runs topogen's merlin topology
``topogen.table_topo`` (same library) instead of ``merlin.anytopo``: it routes by
destination with a next-hop table per router (the first hop of the bundle's route from the
router to each destination router; :func:`table_params`, which refuses routings whose next
hop depends on the source or whose VCs follow a rule of their own) and lets a packet take
any of ``--num-vcs`` VCs on every router-router hop, the one with the most credits (ties to
the lowest), as BookSim's routers; anytopo fixes the VC to the hop number.

Traffic patterns of ``offered_load``: ``uniform`` (``merlin.targetgen.uniform``), ``bit_complement``
(``merlin.targetgen.bit_complement``), ``shift:K`` (``merlin.targetgen.shift`` with
``shift = K``).  Loads are fractions of the endpoint link bandwidth; several loads
(``--load 0.1,0.5``) run one after another, as ``merlin.offered_load`` supports.
"""

import argparse
import json
import os
import sys

TRAFFIC = {
    "uniform": "merlin.targetgen.uniform",
    "bit_complement": "merlin.targetgen.bit_complement",
    "bitcomp": "merlin.targetgen.bit_complement",
    "shift": "merlin.targetgen.shift",
}


def parse_args(argv):
    """Command-line options of the model (after SST's ``--``)."""
    p = argparse.ArgumentParser(prog="topogen_sst.py", description=__doc__.splitlines()[0])
    p.add_argument("--bundle", required=True, help="topogen SST bundle (JSON)")
    p.add_argument("--load", default="0.5",
                   help="offered load(s), fraction of link bandwidth; comma-separated for several")
    p.add_argument("--traffic", default="uniform", help="uniform, bit_complement or shift:K")
    p.add_argument("--message-size", default="64B", help="packet size (SST units, e.g. 64B)")
    p.add_argument("--warmup", default="10us", help="warm-up time per load")
    p.add_argument("--collect", default="40us", help="measurement time per load")
    p.add_argument("--drain", default="20us", help="drain time between loads")
    p.add_argument("--window", default="0ns",
                   help="output the NIC statistics every WINDOW (e.g. 4us); 0ns = at the end only")
    p.add_argument("--stats", default="topogen_sst_stats.csv", help="statistics CSV file")
    p.add_argument("--histogram", default=None,
                   help="record packet_latency as a histogram: BINWIDTH_NS,NUMBINS (else an accumulator)")
    p.add_argument("--link-bw", default=None, help="override the endpoint link bandwidth")
    p.add_argument("--generator", choices=("offered_load", "bernoulli"), default="offered_load",
                   help="merlin.offered_load (periodic) or topogen.bernoulli_nic (Bernoulli, seeded)")
    p.add_argument("--seed", type=int, default=1, help="bernoulli: run seed")
    p.add_argument("--self-packets", action=argparse.BooleanOptionalAction, default=True,
                   help="bernoulli, uniform: the source is a possible destination (default yes)")
    p.add_argument("--topology", choices=("anytopo", "table"), default="anytopo",
                   help="routers' topology: merlin.anytopo (source routes, VC = hop number) or "
                        "topogen.table_topo (next-hop tables, any of --num-vcs VCs per hop)")
    p.add_argument("--num-vcs", type=int, default=TABLE_NUM_VCS,
                   help="table: VCs per virtual network (default %d)" % TABLE_NUM_VCS)
    p.add_argument("--vc-credits", choices=TABLE_VC_CREDITS, default=TABLE_VC_CREDITS[0],
                   help="table: the VC with the most credits of hr_router's output buffer (output) or the most "
                        "free flits in the output buffer and the next router's input buffer (downstream) "
                        "(default output)")
    p.add_argument("--tables-checked", action="store_true",
                   help="table: the routes are known to follow one next-hop table (topogen run sst checked them): "
                        "read only each route's first hop")
    p.add_argument("--nic-results", default=None,
                   help="bernoulli: every endpoint appends its result line to NIC_RESULTS.<rank> instead of "
                        "printing it (runs on several ranks)")
    p.add_argument("--partition", default=None,
                   help="JSON file {\"ranks\": K, \"routers\": [rank of each router]}: every router and its "
                        "endpoints go on that MPI rank (run sst with --partitioner=sst.self)")
    return p.parse_args(argv)


def load_partition(path, num_routers):
    """The rank of every router from a ``--partition`` file (checked: one rank per router,
    each in 0..ranks-1)."""
    with open(path) as fh:
        doc = json.load(fh)
    ranks, parts = doc.get("ranks"), doc.get("routers")
    if not isinstance(ranks, int) or ranks < 1 or not isinstance(parts, list) or len(parts) != num_routers \
            or any(not isinstance(x, int) or not 0 <= x < ranks for x in parts):
        raise SystemExit("topogen_sst.py: %s is not a partition of %d routers (ranks 0..K-1)" % (path, num_routers))
    return parts


def my_rank(sst):
    """This process's rank when every rank runs the model (``sst --parallel-load=SINGLE``
    on several ranks), else None.  Then each rank keeps only its own components (SST drops
    the others' after the model ran): the others' are made bare (no parameters, no
    subcomponents, no routing tables), so no rank holds the whole network's tables."""
    try:
        if sst.getMPIRankCount() <= 1 or sst.getProgramOptions().get("parallel-load") != "SINGLE":
            return None
        return sst.getMyMPIRank()
    except AttributeError:  # an SST without these calls loads serially
        return None


def load_bundle(path):
    """The bundle as a dict (checked for the topogen format marker).  A next-hop bundle's
    matrix file (``next_hops.file``, beside the JSON) gets its absolute path in
    ``next_hops.path``: the routers read their rows from it."""
    with open(path) as fh:
        bundle = json.load(fh)
    if bundle.get("format") != "topogen-sst-bundle":
        raise SystemExit("topogen_sst.py: %s is not a topogen SST bundle" % path)
    nh = bundle.get("next_hops")
    if nh is not None:
        nh["path"] = os.path.join(os.path.dirname(os.path.abspath(path)), nh["file"])
        if not os.path.isfile(nh["path"]):
            raise SystemExit("topogen_sst.py: %s: its next-hop matrix %s is missing" % (path, nh["path"]))
    return bundle


def next_hop_row_params(bundle):
    """``topogen.table_topo``'s parameters that point every router at its row of a next-hop
    bundle's matrix (row ``router id``, ``num_routers`` entries of ``next_port_width``
    bytes from ``next_port_offset``): the router reads its row itself, so no rank holds
    another rank's rows and no table passes through Python or SST's parameters."""
    nh = bundle["next_hops"]
    widths = {"uint8": 1, "uint16": 2}
    if nh.get("dtype") not in widths or nh.get("shape") != [bundle["num_routers"]] * 2:
        raise SystemExit("topogen_sst.py: next_hops must be a uint8 or uint16 matrix of %d x %d routers, got %s %s"
                         % (bundle["num_routers"], bundle["num_routers"], nh.get("dtype"), nh.get("shape")))
    return {"next_port_file": nh["path"], "next_port_offset": int(nh["offset"]),
            "next_port_width": widths[nh["dtype"]], "num_routers": bundle["num_routers"]}


def _traffic(spec):
    name, _, arg = spec.partition(":")
    if name not in TRAFFIC:
        raise SystemExit("topogen_sst.py: unknown traffic %r (use uniform, bit_complement or shift:K)" % spec)
    params = {}
    if TRAFFIC[name] == "merlin.targetgen.shift":
        if not arg:
            raise SystemExit("topogen_sst.py: traffic shift needs a distance, e.g. shift:1")
        params["pattern.shift"] = int(arg)
    return TRAFFIC[name], params


_UNITS_PS = {"ps": 1, "ns": 1000, "us": 10**6, "ms": 10**9, "s": 10**12}


def time_ps(text):
    """An SST time (``10us``, ``2666ps``) in ps."""
    t = str(text).strip()
    for unit in sorted(_UNITS_PS, key=len, reverse=True):
        if t.endswith(unit):
            try:
                return float(t[:-len(unit)]) * _UNITS_PS[unit]
            except ValueError:
                break
    raise SystemExit("topogen_sst.py: %r is not a time such as 10us or 2666ps" % text)


def destination_table(spec, n):
    """Destination of every endpoint for a fixed pattern, or None for ``uniform``."""
    name, _, arg = spec.partition(":")
    if name == "uniform":
        return None
    if name in ("bit_complement", "bitcomp"):
        if n & (n - 1):
            raise SystemExit("topogen_sst.py: bit_complement needs a power-of-two endpoint count, got %d" % n)
        return [(n - 1) ^ s for s in range(n)]
    if name == "shift":
        if not arg:
            raise SystemExit("topogen_sst.py: traffic shift needs a distance, e.g. shift:1")
        return [(s + int(arg)) % n for s in range(n)]
    if name == "tornado":
        return [(s + (n + 1) // 2 - 1) % n for s in range(n)]
    if name == "neighbor":
        return [(s + 1) % n for s in range(n)]
    if name == "table":
        table = [int(x) for x in arg.split(",") if x.strip()]
        if len(table) != n or any(d < -1 or d >= n for d in table):
            raise SystemExit("topogen_sst.py: table traffic needs %d destinations in -1..%d" % (n, n - 1))
        return table
    raise SystemExit("topogen_sst.py: unknown traffic %r for the bernoulli generator (use uniform, "
                     "bit_complement, shift:K, tornado, neighbor or table:D0,D1,...)" % spec)


def bernoulli_params(bundle, args):
    """``topogen.bernoulli_nic`` parameters shared by every endpoint."""
    loads = [float(x) for x in str(args.load).split(",") if x.strip()]
    if len(loads) != 1:
        raise SystemExit("topogen_sst.py: the bernoulli generator runs one load per run, got %r" % args.load)
    cycle_ps = bundle.get("cycle_ps")
    if not cycle_ps:
        raise SystemExit("topogen_sst.py: the bernoulli generator needs a bundle that records cycle_ps")
    flit_bits = int(round(time_free_bits(bundle["router_params"]["flit_size"])))
    packet_bits = time_free_bits(args.message_size)
    flits = int(-(-packet_bits // flit_bits))
    n = bundle["num_endpoints"]
    params = {
        "num_peers": n, "cycle": "%dps" % cycle_ps, "load": loads[0], "packet_flits": flits,
        "flit_bits": flit_bits, "seed": args.seed, "self_packets": bool(args.self_packets),
        "warmup_cycles": int(round(time_ps(args.warmup) / cycle_ps)),
        "collect_cycles": int(round(time_ps(args.collect) / cycle_ps)),
        "drain_cycles": int(round(time_ps(args.drain) / cycle_ps)),
    }
    if getattr(args, "nic_results", None):
        params["results_path"] = args.nic_results
    table = destination_table(args.traffic, n)
    if table is None:
        params["pattern"] = "uniform"
    else:
        params.update({"pattern": "table", "dest_table": table})
    return params


def time_free_bits(text):
    """A size (``1056B``, ``256b``) in bits."""
    t = str(text).strip()
    try:
        if t.endswith("B"):
            return float(t[:-1]) * 8
        if t.endswith("b"):
            return float(t[:-1])
    except ValueError:
        pass
    raise SystemExit("topogen_sst.py: %r is not a size such as 1056B" % text)


def simple_tables(bundle):
    """anytopo's tables for untimed packets (``simple_routing_entry_string``), per router.

    anytopo routes an untimed packet hop by hop with the *first* path of each router's own
    table.  With several weighted paths (Valiant) chaining first paths can wander past the
    VC count ("Number of hops exceeded the total number of VCs", seen on a real build), so
    such a bundle gets shortest paths along one breadth-first tree per destination, whose
    chains end within the diameter.  So does a bundle of a routing without a table (no
    ``metadata.vc_rule``: one drawn path per destination, as merlin's dragonfly valiant with
    3 groups, whose first hops need not chain either).  Table routings' single-path tables
    are used as they are.
    """
    tables = [r["routing_entry_string"] for r in bundle["routers"]]
    if ";" not in "".join(tables) and "vc_rule" in bundle.get("metadata", {}):
        return tables
    n = bundle["num_routers"]
    adj = [[] for _ in range(n)]
    for link in bundle["links"]:
        adj[link["u"]].append(link["v"])
        adj[link["v"]].append(link["u"])
    nxt = []  # nxt[d][r]: r's next router towards d
    for d in range(n):
        hop, todo = {d: d}, [d]
        for u in todo:
            for v in sorted(adj[u]):
                if v not in hop:
                    hop[v] = u
                    todo.append(v)
        nxt.append(hop)
    out = []
    for r in range(n):
        parts = []
        for d in range(n):
            if d == r or r not in nxt[d]:
                continue
            path, u = [], r
            while u != d:
                u = nxt[d][u]
                path.append(str(u))
            parts.append("%d:1.00000,%s" % (d, ",".join(path)))
        out.append("|".join(parts))
    return out


def untimed_tables(bundle, simple):
    """anytopo's ``simple_routing_entry_string`` of every router: its route to the router of
    endpoint 0 alone.

    anytopo parses every router's simple table into one ``std::deque`` per route (~0.6 kB
    each on libstdc++), as the ``sourceRoutingPlugin`` parses the NIC's table: the two full
    tables made SST's set-up 1.8 GB at 1,024 routers.  The simple table only routes untimed
    packets, hop by hop with each router's own first path, and the only untimed packets of
    topogen's endpoints are ``merlin.offered_load``'s complete-phase statistics, which every
    endpoint sends to endpoint 0 (``topogen.bernoulli_nic`` sends none); so every router
    keeps its route to endpoint 0's router (that router its first route: anytopo warns
    about an empty table).  A router without that route keeps its whole table.
    """
    target = None
    for ep in bundle["endpoints"]:
        if ep["id"] == 0:
            target = ep["router"]
    if target is None:
        return simple
    head = "%d:" % target
    out = []
    for r, entry in zip(bundle["routers"], simple):
        if r["id"] == target:
            start = 0
        elif entry.startswith(head):
            start = 0
        else:
            start = entry.find("|" + head) + 1
            if start == 0:
                out.append(entry)
                continue
        end = entry.find("|", start)
        out.append(entry[start:] if end < 0 else entry[start:end])
    return out


#: VCs per virtual network of ``topogen.table_topo`` unless ``--num-vcs`` says otherwise
#: (``topogen.sim_defaults.NUM_VCS``; this file imports nothing from topogen).
TABLE_NUM_VCS = 4

#: Routings ``topogen.table_topo`` cannot take, by the bundle's ``metadata.routing``: their
#: VCs follow a rule of their own (which the table topology would replace by its any-VC
#: choice) or their path is chosen at the source.  dor (:data:`TABLE_VC_REFUSED`) is taken
#: when the bundle's ``metadata.vc_rule`` is ``const``: every hop of every route on one VC,
#: as its dateline rule gives on a mesh or a hypercube, whose routes cross no wrap-around
#: link.
TABLE_REFUSED = {
    "dor": "its VCs follow a dateline on tori",
    "hop": "its VC is the hop number",
    "layered": "its VC is the layer of the route",
    "escape": "it keeps an escape VC",
    "dsnf": "its VC is the hop number (or its phase)",
    "valiant": "its path is chosen at the source, via a random intermediate",
    "ugal-l": "its path is chosen at the source, adaptively",
    "ugal-g": "its path is chosen at the source, adaptively",
}

#: The routings of :data:`TABLE_REFUSED` refused for a VC rule that is constant on some
#: networks (the bundle's ``metadata.vc_rule`` says when).
TABLE_VC_REFUSED = ("dor",)


#: ``topogen.table_topo``'s VC rules (``vc_credits``): the VC with the most credits in the
#: output buffer (hr_router's credit array; the default), or with the most free flits in the
#: output buffer and the next router's input buffer (hr_router's output queue lengths with
#: ``oql_track_remote``).
TABLE_VC_CREDITS = ("output", "downstream")


#: SST's shared parameter set holding ``endpoint_router`` (the router of every endpoint),
#: which every ``topogen.table_topo`` takes: one copy in SST's configuration, one parsed
#: array per process (the C++ keeps it by content), instead of one per router.
SHARED_ENDPOINT_ROUTER = "topogen_table_topo_endpoints"


class TableRoutingError(ValueError):
    """A bundle whose routes ``topogen.table_topo`` cannot follow (one-line message)."""


def _entries(entry, own):
    """``(destination router, route text)`` of one router's ``routing_entry_string``,
    its route to itself (``own``) left out."""
    for item in entry.split("|"):
        dst, _, body = item.partition(":")
        if dst.strip() and int(dst) != own:
            yield int(dst), body


def table_next_hops(bundle, check=True):
    """The next router towards every destination router, from the bundle's routes.

    ``next_hops[r][d]`` is the first hop of the bundle's route from router ``r`` to router
    ``d`` (-1 for ``d == r``).  Routers route by destination alone in
    ``topogen.table_topo``, so the route of every source must follow these tables: at each
    router ``r`` on its route to ``d`` the next router is ``next_hops[r][d]``; ``check=False``
    skips that walk (a minute at 4,096 routers) for routes checked already
    (``topogen.drivers.sst_table.next_hops_hold``).

    Raises
    ------
    TableRoutingError
        A routing whose VC rule or path choice the table topology cannot follow
        (:data:`TABLE_REFUSED`, UGAL, several paths per destination), a missing route, or a
        next hop that depends on the source (the message names the first such route).
    """
    meta = bundle.get("metadata") or {}
    name = str(meta.get("routing", "unknown"))
    fix = ("use --sst-topology anytopo, or a routing whose next hop depends only on the destination and whose "
           "VC rule is const (booksim-min, nr, fr, updown; dor on a mesh or a hypercube)")
    if name in TABLE_REFUSED and not (name in TABLE_VC_REFUSED and meta.get("vc_rule") == "const"):
        raise TableRoutingError("topogen.table_topo cannot take routing %s: %s; %s" % (name, TABLE_REFUSED[name], fix))
    if bundle.get("source_routing_algo", "weighted") != "weighted":
        raise TableRoutingError("topogen.table_topo cannot take routing %s: source_routing_algo %s chooses the path "
                                "at the source; %s" % (name, bundle["source_routing_algo"], fix))
    n = bundle["num_routers"]
    if "next_hops" in bundle:  # the routers read their rows from the matrix (next_hop_row_params)
        return None
    # Two passes over each router's string, one router at a time (16.8 M routes at 4,096
    # routers: parsed all at once they took gigabytes): first hops, then every route's
    # later hops against the next hops of the routers it passes.
    nxt = []
    for r, router in enumerate(bundle["routers"]):
        row = [-1] * n
        weighted = {}
        for d, body in _entries(router["routing_entry_string"], r):
            if ";" in body:
                weighted[d] = body.count(";") + 1
                body = body[:body.index(";")]
            first = body.partition(",")[2].partition(",")[0]
            row[d] = int(first) if first else -1
        for d in range(n):
            if d != r and row[d] < 0:
                raise TableRoutingError("routing %s has no route from router %d to router %d; re-export the bundle"
                                        % (name, r, d))
            if d in weighted:
                raise TableRoutingError("topogen.table_topo cannot take routing %s: router %d has %d weighted paths "
                                        "to router %d; %s" % (name, r, weighted[d], d, fix))
        nxt.append(row)
    if not check:
        return nxt
    for s, router in enumerate(bundle["routers"]):
        for d, body in _entries(router["routing_entry_string"], s):
            hops = body.split(",")
            at = int(hops[1])
            for text in hops[2:]:
                h = int(text)
                if nxt[at][d] != h:
                    raise TableRoutingError(
                        "topogen.table_topo cannot take routing %s: its next hop depends on the source (the route "
                        "%d -> %d goes from router %d to %d, the route %d -> %d to %d); %s"
                        % (name, s, d, at, h, at, d, nxt[at][d], fix))
                at = h
    return nxt


def table_params(bundle, num_vcs=TABLE_NUM_VCS, vc_credits=TABLE_VC_CREDITS[0], check=True):
    """``topogen.table_topo`` parameters of every router (a list in router order).

    Each router gets ``next_port`` (the port of its next hop towards every destination
    router, -1 for itself; ports from ``connectivity``), ``endpoint_router`` (the router of
    every endpoint), its own ``endpoint_to_port_map``, ``tree_ports`` (its ports on a
    breadth-first spanning tree from router 0, for untimed broadcasts), the port counts,
    ``num_vcs`` and ``vc_credits`` (:data:`TABLE_VC_CREDITS`; ``downstream`` needs the
    router parameter ``oql_track_remote``, which :func:`build` sets).

    Raises
    ------
    TableRoutingError
        See :func:`table_next_hops` (``check`` is passed on); also ``num_vcs < 1``.
    """
    if isinstance(num_vcs, bool) or not isinstance(num_vcs, int) or num_vcs < 1:
        raise TableRoutingError("topogen.table_topo needs num_vcs >= 1, got %r" % (num_vcs,))
    if vc_credits not in TABLE_VC_CREDITS:
        raise TableRoutingError("topogen.table_topo's vc_credits must be %s, got %r"
                                % (" or ".join(TABLE_VC_CREDITS), vc_credits))
    nxt = table_next_hops(bundle, check)
    rows = next_hop_row_params(bundle) if "next_hops" in bundle else None
    n = bundle["num_routers"]
    port_to = []
    for r in bundle["routers"]:
        conn = {}
        for item in r["connectivity"].split(";"):
            if item.strip():
                fields = [int(x) for x in item.split(",")]
                conn[fields[0]] = fields[1]
        port_to.append(conn)
    owner = [0] * bundle["num_endpoints"]
    for ep in bundle["endpoints"]:
        owner[ep["id"]] = ep["router"]
    adj = [[] for _ in range(n)]
    for link in bundle["links"]:
        adj[link["u"]].append((link["v"], link["port_u"], link["port_v"]))
        adj[link["v"]].append((link["u"], link["port_v"], link["port_u"]))
    tree = [[] for _ in range(n)]
    seen, todo = {0}, [0]
    for u in todo:
        for v, pu, pv in sorted(adj[u]):
            if v not in seen:
                seen.add(v)
                todo.append(v)
                tree[u].append(pu)
                tree[v].append(pv)
    out = []
    for r in bundle["routers"]:
        v = r["id"]
        entry = {
            "num_R2R_ports": r["num_R2R_ports"],
            "num_R2N_ports": r["num_R2N_ports"],
            "num_vcs": num_vcs,
            "vc_credits": vc_credits,
            "endpoint_router": owner,
            "endpoint_to_port_map": r["endpoint_to_port_map"],
            "tree_ports": sorted(tree[v]),
        }
        if rows is not None:
            entry.update(rows)
        else:
            try:
                entry["next_port"] = [-1 if d == v else port_to[v][nxt[v][d]] for d in range(n)]
            except KeyError:
                bad = next(d for d in range(n) if d != v and nxt[v][d] not in port_to[v])
                raise TableRoutingError("router %d's route to router %d starts with router %d, which is not its "
                                        "neighbour; re-export the bundle" % (v, bad, nxt[v][bad])) from None
        out.append(entry)
    return out


def build(sst, bundle, args):
    """Create every component and link.  Returns the routers and endpoints it made."""
    loads = [float(x) for x in str(args.load).split(",") if x.strip()]
    if not loads:
        raise SystemExit("topogen_sst.py: --load needs at least one value")
    num_routers = bundle["num_routers"]
    num_endpoints = bundle["num_endpoints"]
    vcs = bundle["vcs_per_vn"]
    router_params = dict(bundle["router_params"])
    nic_params = dict(bundle["nic_params"])
    if args.link_bw:
        nic_params["link_bw"] = args.link_bw
    ep_map = bundle["endpoint_router_mapping"]
    table = getattr(args, "topology", "anytopo") == "table"
    native = bundle.get("native_topology")  # {"name": "merlin.torus", "params": {...}}
    if "next_hops" in bundle and not table and not native:
        raise SystemExit("topogen_sst.py: %s carries next hops, not source routes: run it with --topology table, "
                         "or export full routes for merlin.anytopo" % args.bundle)
    tables = None if (table or native) else [r["routing_entry_string"] for r in bundle["routers"]]
    if native:
        table = True  # no source routes: the NICs carry no routing plugin
        table_topo = None
    elif table:
        try:
            table_topo = table_params(bundle, getattr(args, "num_vcs", TABLE_NUM_VCS),
                                      getattr(args, "vc_credits", TABLE_VC_CREDITS[0]),
                                      check=not getattr(args, "tables_checked", False))
        except TableRoutingError as exc:
            raise SystemExit("topogen_sst.py: %s" % exc) from None
    else:
        simple = simple_tables(bundle)
    algo = bundle.get("source_routing_algo", "weighted")
    if algo == "UGAL" and not table:  # anytopo's UGAL takes MIN and both Valiant segments from these tables
        simple = tables
    elif not table:
        simple = untimed_tables(bundle, simple)
    part = load_partition(args.partition, num_routers) if getattr(args, "partition", None) else None
    mine = my_rank(sst) if part is not None else None
    shared_owner = table and table_topo is not None and hasattr(sst, "addSharedParams")
    if shared_owner:
        sst.addSharedParams(SHARED_ENDPOINT_ROUTER, {"endpoint_router": table_topo[0]["endpoint_router"]})
    routers = []
    for r in bundle["routers"]:
        rtr = sst.Component("rtr_%d" % r["id"], "merlin.hr_router")
        if part is not None:
            rtr.setRank(part[r["id"]], 0)
        params = dict(router_params)
        params.update({"id": r["id"], "num_ports": r["num_ports"]})
        rtr.addParams(params)
        if mine is not None and part[r["id"]] != mine:
            routers.append(rtr)  # another rank's router: that rank builds it, here it only ends links
            continue
        if native:  # merlin's own topology (topogen crossval --native): ports as it numbers them
            rtr.setSubComponent("topology", native["name"]).addParams(native["params"])
            routers.append(rtr)
            continue
        if table:
            if table_topo[r["id"]]["vc_credits"] == "downstream":  # queue lengths count the next input buffer
                rtr.addParams({"oql_track_remote": True})
            topo = rtr.setSubComponent("topology", "topogen.table_topo")
            params = table_topo[r["id"]]
            if shared_owner:  # one copy of the endpoints' routers in SST's configuration
                params = dict(params)
                del params["endpoint_router"]
                topo.addSharedParamSet(SHARED_ENDPOINT_ROUTER)
            topo.addParams(params)
            routers.append(rtr)
            continue
        topo = rtr.setSubComponent("topology", "merlin.anytopo")
        topo.addParams({
            "num_routers": num_routers,
            "num_R2R_ports": r["num_R2R_ports"],
            "num_R2N_ports": r["num_R2N_ports"],
            "connectivity": r["connectivity"],
            "endpoint_to_port_map": r["endpoint_to_port_map"],
            "port_to_endpoint_map": r["port_to_endpoint_map"],
            "routing_mode": "source_routing",
            "source_routing_algo": algo,
            "vcs_per_vn": vcs,
            "simple_routing_entry_string": simple[r["id"]],
        })
        if algo == "UGAL":
            topo.addParams({"vn_ugal_num_valiant": bundle["ugal_num_valiant"]})
        routers.append(rtr)

    for link in bundle["links"]:
        lk = sst.Link(link["name"])
        lk.connect((routers[link["u"]], "port%d" % link["port_u"], link["latency"]),
                   (routers[link["v"]], "port%d" % link["port_v"], link["latency"]))

    bernoulli = getattr(args, "generator", "offered_load") == "bernoulli"
    if bernoulli:
        nic_common = bernoulli_params(bundle, args)
    else:
        pattern, pattern_params = _traffic(args.traffic)
    if args.histogram:
        width, bins = (x.strip() for x in args.histogram.split(","))
        stat = {"type": "sst.HistogramStatistic", "minvalue": "0", "binwidth": width,
                "numbins": bins, "rate": args.window}
    else:
        stat = {"type": "sst.AccumulatorStatistic", "rate": args.window}

    endpoints = []
    host_lat = bundle["host_link_latency"]
    for ep in bundle["endpoints"]:
        e, r, port = ep["id"], ep["router"], ep["port"]
        if bernoulli:
            ol = sst.Component("nic_%d" % e, "topogen.bernoulli_nic")
            ol.addParams(nic_common)
        else:
            ol = sst.Component("ol_%d" % e, "merlin.offered_load")
            ol.addParams(_offered_load_params(args, loads, nic_params, num_endpoints, pattern, pattern_params))
        if part is not None:  # beside its router: the host link is never cut
            ol.setRank(part[r], 0)
        if mine is not None and part[r] != mine:
            lk = sst.Link("host_%d" % e)  # another rank's endpoint: only its link (to another rank's router)
            lk.connect((ol, "rtr_port", host_lat), (routers[r], "port%d" % port, host_lat))
            endpoints.append(ol)
            continue
        nic = ol.setSubComponent("networkIF", "merlin.endpointNIC")
        if table:  # table_topo routes by destination: no source route, no NIC table (N routes each)
            nic.addParams({"EP_id": e, "networkIF": "merlin.linkcontrol", "plugin_names": []})
        else:
            nic.addParams({"EP_id": e, "networkIF": "merlin.linkcontrol",
                           "plugin_names": ["sourceRoutingPlugin"]})
            plugin = nic.setSubComponent("sourceRoutingPlugin", "merlin.sourceRoutingPlugin", 0)
            plugin.addParams({"EP_id": e, "num_routers": num_routers,
                              "endpoint_router_mapping": ep_map,
                              "routing_entry_string": tables[r]})
        lc = nic.setSubComponent("networkIF", "merlin.linkcontrol", 0)
        lc_params = dict(nic_params)
        lc_params.update({"job_id": 0, "job_size": num_endpoints, "logical_nid": e,
                          "use_nid_remap": False})
        lc.addParams(lc_params)
        if not bernoulli:
            lc.enableStatistics(["packet_latency"], dict(stat))
            lc.enableStatistics(["send_bit_count"], {"type": "sst.AccumulatorStatistic", "rate": args.window})
        hl = sst.Link("host_%d" % e)
        hl.connect((lc, "rtr_port", host_lat), (routers[r], "port%d" % port, host_lat))
        endpoints.append(ol)

    if bernoulli:
        return routers, endpoints
    sst.setStatisticLoadLevel(9)
    sst.setStatisticOutput("sst.statOutputCSV", {"filepath": args.stats, "separator": ","})
    return routers, endpoints


def _offered_load_params(args, loads, nic_params, num_endpoints, pattern, pattern_params):
    params = {
        "num_peers": num_endpoints,
        "offered_load": loads if len(loads) > 1 else loads[0],
        "link_bw": nic_params["link_bw"],
        "message_size": args.message_size,
        "warmup_time": args.warmup,
        "collect_time": args.collect,
        "drain_time": args.drain,
        "pattern": pattern,
    }
    params.update(pattern_params)
    return params


def main(argv=None):
    """Entry point: parse the model options and build the network."""
    import sst  # provided by SST when it runs this file

    args = parse_args(sys.argv[1:] if argv is None else argv)
    bundle = load_bundle(args.bundle)
    return build(sst, bundle, args)


if __name__ == "__main__" or not __name__.endswith("topogen_sst"):
    main()
