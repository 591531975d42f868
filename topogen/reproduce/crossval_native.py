"""Cross-validation against BookSim2's own topologies (``topogen crossval --native FAMILY``):
``mesh``/``torus`` (``kncube.cpp``; the mesh also with ``romm`` and ``valiant``, topogen's
:mod:`topogen.routing.romm`, on the flit-level router; the torus also with ``dim_order_bal`` and
``min_adapt``, topogen's :mod:`topogen.routing.torus_min_adapt`, on the flit-level router), ``dragonfly`` (``dragonflynew`` with ``min`` or
``ugal``), ``fattree`` (``nca`` as topogen's ``nca-random``, ``anca``) and ``flatfly`` (``ran_min``; ``valiant`` and ``xyyx``,
topogen's :mod:`topogen.routing.flatfly_booksim`, and ``adaptive_xyyx``, ``ugal`` and ``ugal_xyyx``,
:mod:`topogen.routing.flatfly_adaptive`, on the flit-level router), and SST merlin's
``merlin.torus`` (:func:`crossval_native_sst`, ``--simulators sst``); docs/crossval.md
gives each family's reading of the sources and the measurements.  The details below are
the k-ary n-cube's.

For a family BookSim builds itself, three runs of the same network side by side:

(a) ``native``: BookSim's built-in topology and routing (``topology = mesh`` or ``torus``,
    ``k``, ``n``, ``routing_function = dim_order``);
(b) ``reference``: topogen's generator of the same size and host attachment with topogen's
    equivalent routing on the reference simulator;
(c) ``export``: that topology exported by topogen to BookSim's ``anynet`` (routed by
    anynet's ``min``, which on a mesh or torus is not dimension order: this column
    separates the router model from the routing).

Every other setting is the shared one (:func:`topogen.experiments.simulators.booksim_options`:
virtual cut-through, 33-flit packets, 4 VCs of 66 flits, one-cycle pipeline stages and host
channels, BookSim's measurement).  What the native network is was read from BookSim's
source (``src/networks/kncube.cpp``, ``src/routefunc.cpp``):

* router ``i`` has ``2n + 1`` ports: output ``2d`` goes to the + neighbour in dimension
  ``d`` (coordinate ``(i / k^d) % k``), ``2d + 1`` to the - neighbour, port ``2n`` is node
  ``i``'s injection and ejection channel (one host per router, host ``i`` on router ``i``:
  topogen's numbering, dimension 0 fastest);
* a mesh is built with the wrap channels too, but ``dor_next_mesh`` never takes them, so
  the network packets see is the mesh;
* link latency: ``use_noc_latency = 1`` (BookSim's default) gives mesh channels 1 cycle
  and torus channels 2; injection and ejection channels 1;
* ``dim_order`` on a mesh may use every VC; on a torus the packet's ring segment uses the
  lower half of the VCs, or the upper half when it crosses the wrap link, and at a ring
  distance of exactly ``k/2`` the direction is drawn per packet (``RandomInt(1)``):
  topogen's equivalents are ``dor`` (mesh) and ``dor-random`` (torus,
  :func:`topogen.routing.dor` with ``tie="random"``).

Verdicts, per load and against the native run: ``pass`` when the mean latencies agree
within the tolerance (2 % at the lowest load when it is at most :data:`ZERO_LOAD`, the
zero-load point, else 5 %), ``pass (noise)`` when the miss is within
:data:`~topogen.reproduce.crossval_verdicts.NOISE_Z` standard errors of the ratio (repeats
give them), ``FAIL`` otherwise, ``n/a`` where the native run did not complete.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from ..routing.ugal_booksim import dragonfly_min  # noqa: F401 (BookSim dragonflynew's min, re-exported)

__all__ = ["NATIVE_FAMILIES", "NativeFamily", "native_family", "native_graph", "native_config",
           "isomorphic", "crossval_native", "native_command", "ZERO_LOAD", "saturation_verdict",
           "default_loads", "format_saturation", "NATIVE_ROUTINGS", "fattree_channels",
           "flatfly_channels"]

#: families BookSim builds itself that topogen has (``--native`` choices)
NATIVE_FAMILIES = ("mesh", "torus", "dragonfly", "fattree", "flatfly")
#: BookSim routing functions of each family (``--routing``; the first is the default)
NATIVE_ROUTINGS = {"mesh": ("dim_order", "romm", "valiant"), "torus": ("dim_order", "dim_order_bal", "min_adapt"),
                   "dragonfly": ("min", "ugal"),
                   "fattree": ("nca", "anca"),
                   "flatfly": ("ran_min", "valiant", "xyyx", "adaptive_xyyx", "ugal", "ugal_xyyx")}
#: topogen's routing of BookSim's mesh routing functions
_MESH_ROUTINGS = {"dim_order": "dor", "romm": "romm", "valiant": "valiant-booksim"}
#: topogen's routing of BookSim's flatfly routing functions (flatfly_onchip.cpp)
_FLATFLY_ROUTINGS = {"ran_min": "dor", "valiant": "flatfly-valiant", "xyyx": "flatfly-xyyx",
                     "adaptive_xyyx": "flatfly-adaptive-xyyx", "ugal": "flatfly-ugal",
                     "ugal_xyyx": "flatfly-ugal-xyyx"}
#: why BookSim's other flatfly routings are not compared
_FLATFLY_MISSING = {
    name: f"its {func} chooses at the source router from the used credits of the candidate output ports "
          f"({rule}); the reference simulator's engine makes such choices for its own UGAL rules only"
    for name, func, rule in (
        ("ugal_pni", "ugal_pni_flatfly_onchip", "UGAL with VCs ordered by a hash of the destination"),)}
#: why BookSim's torus is not compared with its other two-phase routings
_TORUS_MISSING = {
    "valiant": "its valiant_torus leaves the ring partition unset on a hop that continues in the same "
               "dimension and stops on its own assertion (ring_part == 1) at the first such hop, on every "
               "torus with k >= 4",
    "romm": "routefunc.cpp has romm for the mesh only (romm_mesh)",
}
#: a load at or below this is the zero-load point (2 % tolerance)
ZERO_LOAD = 0.02
#: tolerances: zero load, other loads
ZERO_TOLERANCE, LATENCY_TOLERANCE = 0.02, 0.05


@dataclass(frozen=True)
class NativeFamily:
    """One BookSim-native network and topogen's equivalent."""

    family: str
    k: int
    n: int
    booksim: dict = field(default_factory=dict)  # BookSim's topology options
    generator: str = ""
    params: dict = field(default_factory=dict)  # topogen generator parameters
    routing: str = ""  # topogen's routing name
    link_latency: int = 1  # cycles per router-router channel (kncube.cpp)
    num_vcs: int | None = None  # VCs per port when the native routing fixes them
    hosts: int = 0  # terminals of the network
    kind_latency: dict = field(default_factory=dict)  # cycles per link kind, when they differ
    #: the reference simulator's flow control (``vct`` packet level, ``wormhole`` BookSim's
    #: flit-level router, needed where credit loops are long: dragonfly's 100-cycle channels)
    flow_control: str = "vct"
    concentration: int = 1  # nodes per router (flatfly's c = xr * yr)

    @property
    def routing_function(self) -> str:
        return str(self.booksim.get("routing_function", ""))

    @property
    def label(self) -> str:
        """BookSim's name and size of the network."""
        if self.family == "dragonfly":
            return f"dragonflynew k={self.k}"
        if self.family == "fattree":
            return f"fattree k={self.k} n={self.n}"
        if self.family == "flatfly":
            return f"flatfly k={self.k} n=2 c={self.booksim['c']}"
        return f"{self.family} k={self.k} n={self.n}"


def native_family(family: str, k: int = 4, n: int = 2, routing: str | None = None, c: int = 1) -> NativeFamily:
    """The native network ``family`` with topogen's equivalent generator and routing:
    ``mesh`` or ``torus`` of radix ``k`` and ``n`` dimensions, ``dragonfly`` (BookSim's
    ``dragonflynew`` with ``k`` terminals per router: groups of ``a = 2k`` routers, ``h = k``
    global ports per router, ``2k^2 + 1`` groups; ``n`` must be 1), or ``fattree``
    (BookSim's k-ary n-tree, ``n`` levels), or ``flatfly`` (BookSim's ``flatfly`` on chip:
    ``k x k`` routers, ``n`` must be 2, ``c`` nodes per router, a square ``xr x xr`` block
    with ``xr`` 1, 2 or 3).  ``routing`` is BookSim's routing function
    (:data:`NATIVE_ROUTINGS`; default the family's first)."""
    from .._validate import check_int

    if family not in NATIVE_FAMILIES:
        raise ParameterError(f"native family must be one of {', '.join(NATIVE_FAMILIES)}, got {family!r}")
    choices = NATIVE_ROUTINGS[family]
    routing = choices[0] if routing is None else routing
    if routing not in choices and family == "torus" and routing in _TORUS_MISSING:
        raise ParameterError(f"BookSim's torus is compared with {', '.join(choices)} only: "
                             f"{_TORUS_MISSING[routing]}")
    if routing not in choices and family == "flatfly" and routing in _FLATFLY_MISSING:
        raise ParameterError(f"BookSim's flatfly is compared with {', '.join(choices)}: "
                             f"{_FLATFLY_MISSING[routing]}")
    if routing not in choices:
        raise ParameterError(f"BookSim's native {family} is compared with routing "
                             f"{' or '.join(choices)}, got {routing!r} (--routing)")
    if c != 1 and family != "flatfly":
        raise ParameterError(f"c (nodes per router) is a flatfly parameter; BookSim's {family} has its own "
                             "host attachment")
    if family == "flatfly":
        k = check_int("k", k, 2, hint=" (BookSim flatfly's routers per dimension)")
        if n != 2:
            raise ParameterError(f"BookSim's flatfly (flatfly_onchip.cpp) lays routers out in x and y: n must be "
                                 f"2, got n={n}")
        xr = math.isqrt(check_int("c", c, 1))
        if xr * xr != c or xr > 3:
            raise ParameterError(f"flatfly's c must be xr * xr nodes with xr 1, 2 or 3 (a square block whose "
                                 f"node channels are 1 cycle long), got c={c}")
        opts = {"topology": "flatfly", "k": k, "n": 2, "c": c, "x": k, "y": k, "xr": xr, "yr": xr,
                "routing_function": routing, "use_noc_latency": 1}
        params = {"k": k, "n": 2, "convention": "n-dim", "hosts_per_switch": c}
        # min_flatfly: the lowest dimension that differs first, every VC: topogen's dor;
        # valiant_flatfly / xyyx_flatfly: VC halves by phase or order (topogen.routing.
        # flatfly_booksim), two VCs a class: BookSim's flit-level router, as the mesh's romm;
        # adaptive_xyyx / ugal / ugal_xyyx: chosen from used credits (topogen.routing.flatfly_adaptive)
        return NativeFamily("flatfly", k, 2, opts, "flattened-butterfly", params, _FLATFLY_ROUTINGS[routing], None,
                            hosts=c * k * k, concentration=c,
                            flow_control="vct" if routing == "ran_min" else "wormhole")
    if family == "fattree":
        k = check_int("k", k, 2, hint=" (BookSim fattree's arity: k down and k up ports per router)")
        n = check_int("n", n, 2, hint=" (BookSim fattree's levels)")
        opts = {"topology": "fattree", "k": k, "n": n, "routing_function": routing}
        # nca: BookSim draws the up port per packet and hop (RandomInt): topogen's nca-random
        # (its nca is a fixed Latin-square table, the one the exports take); anca: topogen's
        # anca with BookSim's two-draw rule
        return NativeFamily("fattree", k, n, opts, "kary-ntree", {"k": k, "n": n},
                            "nca-random" if routing == "nca" else routing, 1, hosts=k ** n)
    if family == "dragonfly":
        k = check_int("k", k, 1, hint=" (BookSim dragonflynew's terminals per router)")
        if n != 1:
            raise ParameterError(f"BookSim's dragonflynew is built for n = 1 only (it exits otherwise), got n={n}")
        opts = {"topology": "dragonflynew", "k": k, "n": 1, "routing_function": routing}
        params = {"a": 2 * k, "p": k, "h": k, "arrangement": "absolute", "global_port_order": "router"}
        # dragonfly.cpp defines DRAGON_LATENCY: local channels 10 cycles, global 100;
        # min uses VCs 0 and 1, ugal asserts exactly 3
        ugal = routing == "ugal"
        return NativeFamily("dragonfly", k, 1, opts, "dragonfly", params,
                            "ugal-booksim" if ugal else "dragonfly-min", None, num_vcs=3 if ugal else 2,
                            hosts=2 * k * k * (2 * k * k + 1), kind_latency={"local": 10, "global": 100},
                            flow_control="wormhole")
    k = check_int("k", k, 2)
    n = check_int("n", n, 1)
    opts = {"topology": family, "k": k, "n": n, "routing_function": routing, "use_noc_latency": 1}
    params = {"dims": [k] * n, "hosts_per_switch": 1}
    if family == "mesh":
        # romm_mesh / valiant_mesh: topogen.routing.romm (VC halves by phase); with two VCs
        # per phase the packet-level model saturates early (it waits for a whole packet's
        # credits): the reference runs BookSim's flit-level router
        return NativeFamily("mesh", k, n, opts, "mesh", params, _MESH_ROUTINGS[routing], 1, hosts=k ** n,
                            flow_control="vct" if routing == "dim_order" else "wormhole")
    if routing == "min_adapt":
        # min_adapt_torus: VC 3 adaptive, a dimension-order dateline escape on VCs 0 and 1
        # (topogen.routing.torus_min_adapt), its offers chosen among by BookSim's VC
        # allocator: the flit-level router, 4 VCs (the routing uses VC 3)
        return NativeFamily("torus", k, n, opts, "torus", params, "min-adapt", 2, num_vcs=4, hosts=k ** n,
                            flow_control="wormhole")
    # dim_order_bal_torus: the same routes, the balanced two-dateline VC halves (dor-bal)
    return NativeFamily("torus", k, n, opts, "torus", params, "dor-bal" if routing == "dim_order_bal" else "dor-random",
                        2, hosts=k ** n)


def native_graph(fam: NativeFamily):
    """BookSim's network of ``fam`` as an undirected networkx graph, rebuilt from
    ``kncube.cpp`` (``_LeftNode``/``_RightNode``): router ``i``'s + neighbour in dimension
    ``d`` is ``i + k^d`` (``i - (k-1) k^d`` at coordinate ``k-1``); the mesh's wrap
    channels, which its routing never takes, are left out.  Node attribute ``hosts``: the
    nodes on the router (one: node ``i`` on router ``i``)."""
    import networkx as nx

    if fam.family == "dragonfly":
        return dragonflynew_graph(fam.k)
    if fam.family == "fattree":
        return fattree_graph(fam.k, fam.n)
    if fam.family == "flatfly":
        return flatfly_graph(fam.k, fam.concentration)
    k, n = fam.k, fam.n
    size = k ** n
    g = nx.Graph()
    g.add_nodes_from(range(size), hosts=1)
    for node in range(size):
        for d in range(n):
            step = k ** d
            loc = (node // step) % k
            if loc == k - 1:
                if fam.family == "mesh":
                    continue
                right = node - (k - 1) * step
            else:
                right = node + step
            if right != node:
                g.add_edge(node, right)
    return g


def dragonflynew_channels(p: int) -> list:
    """Router ``r``'s input channels in BookSim's order, as ``(source router, its output
    index)`` pairs, rebuilt from ``DragonFlyNew::_BuildNet`` (``dragonfly.cpp``): router
    ``r`` owns output channels ``(3p - 1) r + j``, ``j < 2p - 1`` local and the next ``p``
    global; its input channels are given by the file's index formulas (local inputs from
    ``_dim_ID = r mod a``, global inputs from ``grp_output = _dim_ID * p + cnt``)."""
    a, g = 2 * p, 2 * p * p + 1
    per = 3 * p - 1  # _num_ports_per_switch = _k - _p
    out = []
    for node in range(a * g):
        grp, dim_id = node // a, node % a
        chans = []
        for cnt in range(2 * p - 1):
            if cnt < dim_id:
                c = grp * per * a - (dim_id - cnt) * per + dim_id * per + (dim_id - 1)
            else:
                c = grp * per * a + dim_id * per + (cnt - dim_id + 1) * per + dim_id
            chans.append(c)
        for cnt in range(p):
            go = dim_id * p + cnt
            if grp > go:
                c = go * per * a + (per - p) * ((grp - 1) // p) + (per - p) + grp - 1
            else:
                c = (go + 1) * per * a + (per - p) * (grp // p) + (per - p) + grp
            chans.append(c)
        out.append([(c // per, c % per) for c in chans])
    return out


def dragonflynew_graph(p: int):
    """BookSim's ``dragonflynew`` with ``p`` terminals per router as an undirected networkx
    graph (node attribute ``hosts``: ``p``, terminals ``p r .. p r + p - 1`` on router
    ``r``), from :func:`dragonflynew_channels`; raises if a channel is used twice or a link
    has no reverse channel."""
    import networkx as nx

    chans = dragonflynew_channels(p)
    g = nx.Graph()
    g.add_nodes_from(range(len(chans)), hosts=p)
    seen, arcs = set(), set()
    for node, ins in enumerate(chans):
        for src, j in ins:
            if (src, j) in seen:
                raise ValueError(f"dragonflynew channel {src}:{j} feeds two routers")
            seen.add((src, j))
            arcs.add((src, node))
            g.add_edge(src, node)
    if any((w, u) not in arcs for u, w in arcs) or len(seen) != len(chans) * (3 * p - 1):
        raise ValueError("dragonflynew wiring is not symmetric or leaves channels unused")
    return g


def fattree_channels(k: int, n: int) -> dict:
    """BookSim's ``fattree`` channels rebuilt from ``FatTree::_BuildNet``
    (``src/networks/fattree.cpp``): ``{channel: ((source router, output port), (target
    router, input port))}``.  Router ``level * k^(n-1) + pos`` (level 0 the roots); output
    and input ports ``0 .. k-1`` go down (at the leaves: the ``k`` nodes), ``k .. 2k-1``
    up; raises if a channel is driven or read twice or left unconnected."""
    npos = k ** (n - 1)
    per_dir, per_level = k * npos, 2 * k * npos
    src, dst = {}, {}

    def put(table, chan, end):
        if chan in table:
            raise ValueError(f"fattree channel {chan} is connected twice")
        table[chan] = end

    for level in range(n):
        for pos in range(npos):
            rid = level * npos + pos
            for port in range(k):
                if level < n - 1:  # down outputs, ports 0 .. k-1
                    put(src, level * per_level + pos * k + port, (rid, port))
                if level > 0:  # up outputs, ports k .. 2k-1 (after the down ones or the nodes)
                    put(src, level * per_level - per_dir + pos * k + port, (rid, k + port))
    for level in range(n):
        for pos in range(npos):
            rid = level * npos + pos
            if level < n - 1:  # inputs from below, ports 0 .. k-1
                per_hood, per_branch = k ** (n - 1 - level), k ** (n - 2 - level)
                hood, hpos = divmod(pos, per_hood)
                for port in range(k):
                    chan = ((level + 1) * per_level - per_dir + hood * per_hood * k + port * per_branch * k
                            + (hpos % per_branch) * k + hpos // per_branch)
                    put(dst, chan, (rid, port))
            if level > 0:  # inputs from above, ports k .. 2k-1
                per_hood, per_branch = k ** (n - level), k ** (n - 1 - level)
                hood, hpos = divmod(pos, per_hood)
                for port in range(k):
                    chan = ((level - 1) * per_level + hood * per_hood * k + port * per_branch * k
                            + (hpos % per_branch) * k + hpos // per_branch)
                    put(dst, chan, (rid, k + port))
    if set(src) != set(dst) or len(src) != per_level * (n - 1):
        raise ValueError("fattree channels are not all driven and read once")
    return {c: (src[c], dst[c]) for c in sorted(src)}


def fattree_graph(k: int, n: int):
    """BookSim's ``fattree`` as an undirected networkx graph from :func:`fattree_channels`
    (node attribute ``hosts``: ``k`` on each leaf, level ``n - 1``; nodes ``k pos .. k pos +
    k - 1`` on leaf ``pos``); raises if a link has no reverse channel."""
    import networkx as nx

    npos = k ** (n - 1)
    g = nx.Graph()
    g.add_nodes_from(range(n * npos), hosts=0)
    for pos in range(npos):
        g.nodes[(n - 1) * npos + pos]["hosts"] = k
    arcs = {(a[0], b[0]) for a, b in fattree_channels(k, n).values()}
    if any((w, u) not in arcs for u, w in arcs):
        raise ValueError("fattree wiring is not symmetric")
    g.add_edges_from(arcs)
    return g


def flatfly_channels(k: int) -> dict:
    """BookSim's 2-D ``flatfly`` router channels rebuilt from ``FlatFlyOnChip::_BuildNet``
    (``src/networks/flatfly_onchip.cpp``, ``n = 2``): ``{channel: (source, its output
    index among its network outputs, target)}``; router ``node`` at ``(node % k, node //
    k)``, channel ``(k - 1) n node + (k - 1) dim + cnt + offset`` to the ``cnt``-th router
    of its row (``dim`` 0) or column (1), ``offset = -1`` past itself.  Raises if a channel
    is used twice."""
    n = 2
    out = {}
    for node in range(k * k):
        x, y = node % k, node // k
        for dim in range(n):
            for cnt in range(k):
                other = y * k + cnt if dim == 0 else cnt * k + x
                if other == node:
                    continue
                chan = (k - 1) * n * node + (k - 1) * dim + cnt + (-1 if node < other else 0)
                if chan in out:
                    raise ValueError(f"flatfly channel {chan} is used twice")
                out[chan] = (node, chan - (k - 1) * n * node, other)
    return out


def flatfly_graph(k: int, c: int):
    """BookSim's 2-D ``flatfly`` as an undirected networkx graph (node attribute
    ``hosts``: ``c`` per router) from :func:`flatfly_channels`."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(k * k), hosts=c)
    arcs = {(u, w) for u, _, w in flatfly_channels(k).values()}
    if any((w, u) not in arcs for u, w in arcs):
        raise ValueError("flatfly wiring is not symmetric")
    g.add_edges_from(arcs)
    return g


def _topogen_graph(topology):
    import networkx as nx

    g = nx.Graph()
    hosts = [int(h) for h in topology.hosts]
    g.add_nodes_from((i, {"hosts": h}) for i, h in enumerate(hosts))
    u, v = topology.edges[:, 0], topology.edges[:, 1]
    g.add_edges_from(zip(u.tolist(), v.tolist()))
    return g


def isomorphic(fam: NativeFamily, topology) -> tuple[bool, bool]:
    """(isomorphic, identity): whether topogen's ``topology`` and BookSim's native network
    are isomorphic as router graphs with their host counts, and whether the identity
    (router ``i`` = switch ``i``, host ``i`` on it) is an isomorphism."""
    import networkx as nx

    a, b = native_graph(fam), _topogen_graph(topology)
    same_hosts = nx.algorithms.isomorphism.categorical_node_match("hosts", 0)
    iso = nx.is_isomorphic(a, b, node_match=same_hosts)
    ident = (set(a.nodes) == set(b.nodes) and {frozenset(e) for e in a.edges} == {frozenset(e) for e in b.edges}
             and all(a.nodes[i]["hosts"] == b.nodes[i]["hosts"] for i in a.nodes))
    return iso, ident


#: what anynet's ``min`` (the only routing of an anynet export) is beside each native routing
_EXPORT_ROUTING = {
    "mesh": "one fixed shortest path per pair, not dimension order",
    "torus": "one fixed shortest path per pair, not dimension order",
    "dragonfly": "one fixed shortest path per pair on every VC, not min's VC 0 / VC 1 dateline",
    "flatfly": "one fixed shortest path per pair, not always the lower dimension first",
    "fattree": "one fixed up port per router and destination, not nca's random or anca's adaptive "
               "up port: anynet runs no table but its own",
}

#: the same beside a family's other routings, where the family's text does not say it
_EXPORT_ROUTING_OF = {
    ("torus", "min_adapt"): "one fixed shortest path per pair on every VC, not min_adapt's choice among the "
                            "productive ports on VC 3 with a dimension-order escape",
    ("flatfly", "valiant"): "one fixed shortest path per pair, where valiant goes through a random router",
    ("flatfly", "xyyx"): "one fixed shortest path per pair on every VC, not X or Y first drawn per packet",
    ("flatfly", "adaptive_xyyx"): "one fixed shortest path per pair on every VC, not X or Y first by used credits",
    ("flatfly", "ugal"): "one fixed shortest path per pair, where ugal may go through a random intermediate",
    ("flatfly", "ugal_xyyx"): "one fixed shortest path per pair, where ugal_xyyx may go through a random "
                              "intermediate",
}

def native_config(fam: NativeFamily, spec, seed: int) -> str:
    """BookSim configuration text of the native run (``key = value;`` lines): the shared
    settings of ``spec`` with BookSim's own topology and routing."""
    from ..experiments.native import native_config as config_text

    return config_text(fam.booksim, spec, seed, fam.hosts, title="topogen crossval --native")


def _native_adapter(fam, spec, seed, out_dir, binary=None):
    from ..drivers.base import fresh_path
    from ..drivers.booksim import find_booksim, run_booksim
    from ..experiments.simulators import Adapter, fresh_dir
    from ..results import atomic_write_text

    exe = find_booksim(binary)
    folder = fresh_dir(Path(out_dir) / "native")
    cfg = folder / "native.cfg"
    atomic_write_text(cfg, native_config(fam, spec, seed))

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        log = fresh_path(folder / f"load{load:g}.log", claim=True)
        return run_booksim(cfg, overrides=_overrides(spec, load, run_seed, fam.hosts),
                           log_path=log, timeout=spec.timeout, binary=exe, raise_on_failure=False,
                           topology=fam.booksim["topology"], routing=fam.routing_function)

    return Adapter("native", run, fam.routing_function, router="input-queued (BookSim iq)")


def _overrides(spec, load: float, run_seed: int, hosts: int) -> dict:
    """BookSim's command-line options of one run: the load, the seed and a sample period
    long enough for about 100 packets, as the reference simulator's ``min_period_packets``
    (at 0.01 flits/node/cycle a 1,000-cycle period of 16 hosts holds 5 packets)."""
    from ..sim import SimConfig

    per_cycle = float(load) / spec.packet_size * hosts
    period = max(spec.sample_period, math.ceil(SimConfig().min_period_packets / per_cycle))
    return {"injection_rate": float(load), "seed": run_seed % (2 ** 31), "sample_period": period}


def _native_ports(fam) -> bool:
    """Whether the reference simulator knows BookSim's port numbering of ``fam``'s network
    (:mod:`topogen.sim._ports`)."""
    return fam.family in ("mesh", "torus")


def topogen_network(fam: NativeFamily):
    """topogen's generator of ``fam`` with its parameters."""
    from .. import registry

    params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in fam.params.items()}
    return registry.generate(fam.generator, **params)


def link_cycles(fam: NativeFamily, topology):
    """Cycles of each link of ``topology`` (per kind for a network whose channels differ,
    else the family's one latency)."""
    if fam.family == "flatfly":  # use_noc_latency: xr cycles per router spanned (flatfly_onchip.cpp)
        xr = int(fam.booksim["xr"])
        u, w = topology.edges[:, 0].astype(np.int64), topology.edges[:, 1].astype(np.int64)
        k = fam.k
        return xr * (np.abs(u % k - w % k) + np.abs(u // k - w // k))
    if not fam.kind_latency:
        return np.full(topology.num_links, fam.link_latency, dtype=np.int64)
    names = list(topology.kind_names)
    return np.array([fam.kind_latency[names[k]] for k in topology.link_kind.tolist()], dtype=np.int64)


def _reference_native_adapter(fam, spec, seed, routing):
    """The reference simulator with the spec's shared settings and the switches' ports
    numbered as BookSim numbers its own network's (``port_order="booksim-native"``: the
    order of the allocator's round-robin arbiters)."""
    from ..experiments.simulators import Adapter, _reference_config, _traffic_for
    from ..sim import simulate

    cfg = _reference_config(spec)
    if _native_ports(fam):
        cfg = replace(cfg, port_order="booksim-native")
    if fam.flow_control != cfg.flow_control:
        cfg = replace(cfg, flow_control=fam.flow_control, engine="python")
    traffic = _traffic_for("reference", spec.traffic, int(routing.topology.num_hosts))

    layout = None
    if fam.kind_latency or fam.family == "flatfly":  # per-link cycles as the layout's delays (whole cycles)
        from types import SimpleNamespace

        cfg = replace(cfg, link_latency=None)
        layout = SimpleNamespace(link_delay=link_cycles(fam, routing.topology) * cfg.cycle_ns)

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        return simulate(routing, traffic=traffic, load=load, load_unit="flits", config=cfg, seed=run_seed,
                        layout=layout)

    return Adapter("reference", run, routing.algorithm, router="input-queued")


def _export_adapter(spec, seed, topology, out_dir, binary=None, latency=None):
    """topogen's anynet export of ``topology`` on BookSim (the shared crossval export, with
    :func:`_overrides` per run)."""
    import numpy as np

    from ..drivers.base import fresh_path
    from ..drivers.booksim import find_booksim, run_booksim
    from ..experiments.simulators import Adapter, _traffic_for, booksim_options, fresh_dir
    from ..export.booksim import export_booksim

    exe = find_booksim(binary)
    folder = fresh_dir(Path(out_dir) / "export")
    hosts = int(topology.num_hosts)
    opts = booksim_options(spec, _traffic_for("booksim", spec.traffic, hosts), seed)
    exp = export_booksim(folder, topology, None, stem="net", setup="vct33", clock_period_ns=spec.clock_ns,
                         latency=np.full(topology.num_links, spec.link_latency) if latency is None else latency,
                         options=opts)

    def run(load: float, run_seed: int = seed, capacity: bool = False) -> dict:
        log = fresh_path(folder / f"load{load:g}.log", claim=True)
        return run_booksim(exp.config_file, overrides=_overrides(spec, load, run_seed, hosts), log_path=log,
                           timeout=spec.timeout, binary=exe, raise_on_failure=False)

    return Adapter("export", run, "min_anynet", router="input-queued (BookSim iq)")


@dataclass
class NativeResult:
    """What :func:`crossval_native` returns: ``lines`` (one dict per load and column),
    ``structure`` (isomorphism check), ``notes``."""

    family: NativeFamily
    seed: int
    lines: list
    structure: dict
    notes: list
    saturation: dict = field(default_factory=dict)  # column -> low, high, saturation, ratio, verdict

    @property
    def passed(self) -> bool:
        return self.structure["isomorphic"] and not any(
            str(x.get("verdict", "")).startswith("FAIL")
            for x in [*self.lines, *self.saturation.values()])


def _point(rows) -> dict:
    done = [float(r["latency_avg"]) for r in rows if r.get("status") == "completed"]
    m = len(done)
    mean = sum(done) / m if m else math.nan
    sem = (math.sqrt(sum((x - mean) ** 2 for x in done) / (m - 1) / m) if m > 1 else math.nan)
    status = "completed" if m * 2 > len(rows) else (rows[0].get("status") if rows else "missing")
    return {"latency_cycles": mean, "latency_sem": sem, "runs": len(rows), "completed": m, "status": status}


def verdict(x: dict, base: dict, tolerance: float) -> tuple[float, str]:
    """(ratio, verdict) of point ``x`` against the native point ``base``."""
    from .crossval_verdicts import NOISE_Z, ratio_sem

    if base["status"] != "completed":
        return math.nan, "n/a"
    if x["status"] != "completed":
        return math.nan, "FAIL"
    r = x["latency_cycles"] / base["latency_cycles"]
    miss = abs(r - 1)
    if miss <= tolerance:
        return r, "pass"
    se = ratio_sem(r, x, base)
    return r, ("pass (noise)" if se == se and miss - NOISE_Z * se <= tolerance else "FAIL")


#: bisection stops when a bracket is this narrow (relative to its lower end)
SATURATION_BRACKET = 0.02
#: saturation verdict tolerance and the fraction of the native saturation up to which
#: latencies are compared
SATURATION_TOLERANCE, UP_TO = 0.05, 0.8
#: first probe of the native saturation search (doubled until a load fails)
FIRST_PROBE = 0.25


class _Column:
    """The runs of one column: ``runs[load]`` rows (seeds ``seed, seed + 1 ...``)."""

    def __init__(self, adapter, seed: int, repeats: int, progress=None):
        self.ad, self.seed, self.repeats, self.progress = adapter, seed, repeats, progress
        self.runs: dict[float, list] = {}

    @property
    def name(self) -> str:
        return self.ad.simulator

    def run(self, load: float) -> list:
        load = float(f"{load:.6g}")
        if load not in self.runs:
            rows = []
            for i in range(self.repeats):
                row = self.ad.run(load, self.seed + i)
                rows.append(row)
                if self.progress is not None:
                    self.progress(self.name, load, row)
            self.runs[load] = rows
        return self.runs[load]

    def statuses(self) -> dict:
        from .crossval_saturation import point_status

        return {x: point_status([r.get("status") for r in rows]) for x, rows in self.runs.items()}

    def saturation(self, probes=(), rel_tol: float = SATURATION_BRACKET) -> tuple[float, float]:
        """(highest sustained load, lowest load not sustained), a load sustained when most
        of its runs completed, after running ``probes`` (skipping loads above a failed
        one), halving until a load is sustained and bisecting the bracket to ``rel_tol``."""
        from .crossval_saturation import _bisect, saturation_bracket

        for x in sorted(probes):
            lo, hi = saturation_bracket(self.statuses())
            if x < hi:
                self.run(x)
        if not self.runs:
            self.run(FIRST_PROBE)
        while math.isnan(saturation_bracket(self.statuses())[0]):
            # below another column's bracket: step down by 10 %; from the first probe: halve
            low = min(self.runs) * (0.9 if probes else 0.5)
            if low < 0.005:
                break
            self.run(low)
        points = self.statuses()

        def run_point(load):
            self.run(load)
            points.update(self.statuses())

        _bisect(run_point, points, rel_tol)
        return saturation_bracket(self.statuses())


def saturation_verdict(x: tuple[float, float], base: tuple[float, float],
                       tolerance: float = SATURATION_TOLERANCE) -> tuple[float, str]:
    """(ratio, verdict) of saturation bracket ``x`` against the native ``base``: the ratio
    of the brackets' middles; ``pass`` within ``tolerance``, ``FAIL`` beyond it,
    ``undetermined`` when a bracket is open (no load failed, or the lowest did)."""
    if any(math.isnan(v) or math.isinf(v) for v in (*x, *base)):
        return math.nan, "undetermined"
    r = (x[0] + x[1]) / (base[0] + base[1])
    return r, ("pass" if abs(r - 1) <= tolerance else "FAIL")


def verdict_lines(cols, loads, nat_sat: float, up_to: float, point_of, base_of) -> list[dict]:
    """One line per column and load of a native comparison, each non-native column judged
    against the native point (``base_of(load)``; none: not judged) with the zero-load
    tolerance at the lowest load when it is at most :data:`ZERO_LOAD` and the latency
    tolerance above it, ``n/a`` above ``up_to`` of the native saturation ``nat_sat``.
    ``point_of(column, load)`` reads a column's point."""
    lines = []
    low = min(loads)
    for load in loads:
        load = float(f"{load:.6g}")
        tol = ZERO_TOLERANCE if load == low and load <= ZERO_LOAD else LATENCY_TOLERANCE
        base = base_of(load)
        above = nat_sat == nat_sat and load > up_to * nat_sat
        for c in cols:
            p = dict(point_of(c, load), column=c.name, load=load, routing=c.ad.routing)
            if c.name != "native" and base is not None:
                if above:
                    p["ratio"], p["verdict"] = math.nan, f"n/a (above {up_to:.0%} of saturation)"
                else:
                    p["ratio"], p["verdict"] = verdict(p, base, tol)
                p["tolerance"] = tol
            lines.append(p)
    return lines


def saturation_entries(brackets: dict) -> dict:
    """Per column: its saturation bracket, the bracket's midpoint and, beside a native
    bracket, the ratio and verdict of :func:`saturation_verdict`."""
    sat = {}
    for name, br in brackets.items():
        entry = {"low": br[0], "high": br[1],
                 "saturation": (br[0] + br[1]) / 2 if not (math.isnan(br[0]) or math.isinf(br[1])) else math.nan}
        if name != "native" and "native" in brackets:
            entry["ratio"], entry["verdict"] = saturation_verdict(br, brackets["native"])
        sat[name] = entry
    return sat


def default_loads(saturation: float, up_to: float = UP_TO) -> tuple[float, ...]:
    """The zero-load point and half and ``up_to`` of the native ``saturation`` load
    (three significant digits)."""
    if not saturation == saturation or math.isinf(saturation):
        return (0.01, 0.2, 0.3)
    def down(x):  # three significant digits, never above x
        scale = 10 ** (2 - math.floor(math.log10(x)))
        return math.floor(x * scale + 1e-9) / scale

    return (0.01, down(saturation / 2), down(saturation * up_to))


def native_routing(fam: NativeFamily, topology, num_vcs=None, seed: int = 1):
    """topogen's routing of ``fam`` on ``topology`` (its generator's network)."""
    from ..experiments.native import booksim_copy

    return booksim_copy(fam.routing, topology, seed=seed, num_vcs=num_vcs)


def crossval_native(family: str, out_dir, *, k: int = 4, n: int = 2, routing: str | None = None, c: int = 1,
                    loads=None,
                    repeats: int = 3, seed: int = 1, columns=("native", "reference", "export"),
                    saturation: bool = True, up_to: float = UP_TO,
                    binary=None, timeout: float = 3600.0, progress=None) -> NativeResult:
    """Run BookSim's native ``family`` (``mesh``/``torus``, radix ``k``, ``n`` dimensions)
    beside topogen's equivalent on the reference simulator and topogen's export on BookSim
    (module docs); ``repeats`` runs per load and column with seeds ``seed, seed + 1 ...``.

    With ``saturation`` each column's saturation load is bisected (a load is sustained when
    most of its runs complete) to :data:`SATURATION_BRACKET` and compared with the native
    one within :data:`SATURATION_TOLERANCE`; latencies are compared at loads up to
    ``up_to`` of the native saturation (a load above it reads ``n/a``), and ``loads``
    defaults to :func:`default_loads` of the native saturation.  Without it ``loads``
    defaults to ``(0.01, 0.2, 0.3)``.

    Raises
    ------
    ParameterError
        Unknown family, bad sizes or loads.
    SimulatorNotFound
        BookSim is needed (``native`` or ``export`` column) and not found.
    """
    from .._validate import check_int
    from ..experiments.simulators import CrossvalSpec, fresh_dir
    fam = native_family(family, k, n, routing, c)
    repeats = check_int("repeats", repeats, 1)
    bad = [c for c in columns if c not in ("native", "reference", "export")]
    if bad:
        raise ParameterError(f"columns must be among native, reference, export, got {', '.join(bad)}")
    if loads is not None:
        loads = tuple(float(x) for x in loads)
        if not loads or any(not 0 < x <= 1 for x in loads):
            raise ParameterError(f"loads must be offered loads in (0, 1] flits/node/cycle, got {loads}")
    if not 0 < up_to <= 1:
        raise ParameterError(f"up_to is a fraction of the native saturation load in (0, 1], got {up_to}")
    spec = CrossvalSpec(fam.generator, params=fam.params, seed=seed, routing=fam.routing,
                        loads=loads or (0.01, 0.2, 0.3), link_latency=fam.link_latency, repeats=repeats,
                        timeout=timeout, num_vcs=fam.num_vcs)
    topology = topogen_network(fam)
    iso, ident = isomorphic(fam, topology)
    out = fresh_dir(out_dir)
    routing = native_routing(fam, topology, spec.num_vcs, seed)
    cols = []
    for col in columns:
        if col == "native":
            ad = _native_adapter(fam, spec, seed, out, binary)
        elif col == "reference":
            ad = _reference_native_adapter(fam, spec, seed, routing)
        else:
            ad = _export_adapter(spec, seed, topology, out, binary, latency=link_cycles(fam, topology))
        cols.append(_Column(ad, seed, repeats, progress))
    native = next((c for c in cols if c.name == "native"), None)
    brackets = {}
    if saturation:
        if native is not None:
            brackets["native"] = native.saturation()
        nat = brackets.get("native")
        for c in cols:
            if c.name != "native":
                brackets[c.name] = c.saturation(probes=[v for v in (nat or ()) if 0 < v <= 1])
    nat = brackets.get("native", (math.nan, math.inf))
    nat_sat = (nat[0] + nat[1]) / 2 if not math.isinf(nat[1]) else math.nan
    if loads is None:
        loads = default_loads(nat_sat, up_to) if saturation else spec.loads
    for c in cols:
        for load in loads:
            c.run(load)
    points = {(c.name, float(f"{x:.6g}")): _point(c.run(x)) for c in cols for x in loads}
    lines = verdict_lines(cols, loads, nat_sat, up_to, lambda c, x: points[(c.name, x)],
                          lambda x: points.get(("native", x)))
    sat = saturation_entries(brackets)
    source = {"mesh": "kncube.cpp, use_noc_latency=1", "torus": "kncube.cpp, use_noc_latency=1",
              "dragonfly": "dragonfly.cpp", "fattree": "fattree.cpp",
              "flatfly": "flatfly_onchip.cpp, use_noc_latency=1"}[fam.family]
    notes = [f"native: BookSim {fam.label} routing_function={fam.routing_function}, "
             + (f"channels of {fam.link_latency} cycle(s)" if fam.link_latency else
                "channels of " + ", ".join(f"{v} cycles ({k})" for k, v in fam.kind_latency.items())
                if fam.kind_latency else f"channels of {fam.booksim.get('xr')} cycle(s) per router spanned")
             + f" ({source})"
             + (f", {fam.num_vcs} VCs (all the routing uses)" if fam.num_vcs else ""),
             f"reference: topogen {fam.generator} {fam.params} with {fam.routing} on the "
             "reference simulator, same links"
             + (f", {fam.flow_control} flow control (BookSim's flit-level router)" if fam.flow_control == "wormhole"
                else "")
             + (", ports numbered as BookSim's (port_order=booksim-native)" if _native_ports(fam) else ""),
             "export: topogen's anynet export of that topology on BookSim, routed by anynet's min "
             f"({_EXPORT_ROUTING_OF.get((fam.family, fam.routing_function), _EXPORT_ROUTING[fam.family])}: "
             "the router model with another routing)",
             f"seeds {seed}..{seed + repeats - 1}; tolerances: {ZERO_TOLERANCE:.0%} at the zero-load "
             f"point (load <= {ZERO_LOAD:g}), {LATENCY_TOLERANCE:.0%} elsewhere, or within 2 standard errors"]
    if saturation:
        notes.append(f"saturation: the load at which most of a column's {repeats} runs stop completing "
                     f"(latency over latency_thres), bisected to {SATURATION_BRACKET:.0%}, the middle of the "
                     f"bracket compared within {SATURATION_TOLERANCE:.0%}; latencies compared up to "
                     f"{up_to:.0%} of the native saturation")
    structure = {"isomorphic": iso, "identity": ident}
    return NativeResult(fam, seed, lines, structure, notes, sat)


def format_lines(res: NativeResult) -> str:
    """The three columns side by side, one line per load."""
    cols = []
    for x in res.lines:
        if x["column"] not in cols:
            cols.append(x["column"])
    by = {(x["load"], x["column"]): x for x in res.lines}
    loads = sorted({x["load"] for x in res.lines})
    header = ["load"] + [f"{c} (cycles)" for c in cols] + [f"{c}/native" for c in cols if c != "native"]
    rows = []
    for load in loads:
        cells = [f"{load:g}"]
        for c in cols:
            p = by[(load, c)]
            sem = p["latency_sem"]
            cells.append(f"{p['latency_cycles']:.2f}" + (f" +- {sem:.2f}" if sem == sem else "")
                         if p["status"] == "completed" else p["status"])
        for c in cols:
            if c == "native":
                continue
            p = by[(load, c)]
            r = p.get("ratio", math.nan)
            cells.append((f"{r:.3f} " if r == r else "") + p.get("verdict", "-"))
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in [header] + rows)


def format_saturation(res: NativeResult) -> str:
    """One line per column: its saturation bracket and the verdict against the native one."""
    out = []
    for name, e in res.saturation.items():
        lo, hi = e["low"], e["high"]
        text = f"  {name:>9}: sustained {lo:.4g}, not {hi:.4g}"
        if e.get("saturation") == e.get("saturation"):
            text += f" -> {e['saturation']:.4g}"
        if "verdict" in e:
            r = e["ratio"]
            text += f"  ({r:.3f} of native, {e['verdict']})" if r == r else f"  ({e['verdict']})"
        out.append(text)
    return "\n".join(out)


def native_command(args) -> int:
    """``topogen crossval --native FAMILY``: run :func:`crossval_native` and print it."""
    params = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in ("k", "n", "c"):
            raise ParameterError(f"--native takes --param k=K, --param n=N (and c=C for flatfly), got {item!r}")
        try:
            params[key.strip()] = int(value)
        except ValueError:
            raise ParameterError(f"--param {key.strip()} needs an integer, got {value!r}") from None
    loads = None
    if args.loads is not None:
        try:
            loads = tuple(float(x) for x in args.loads.split(",") if x.strip())
        except ValueError:
            raise ParameterError(f"--loads needs comma-separated numbers, got {args.loads!r}") from None
    if loads is not None and (not loads or any(not 0 < x <= 1 for x in loads)):
        raise ParameterError(f"--loads must be offered loads in (0, 1] flits/node/cycle, got {args.loads!r}")
    seed = 1 if args.seed is None else int(args.seed)
    sims = [x.strip() for x in (getattr(args, "simulators", None) or "").split(",") if x.strip()]
    if sims and sims != ["booksim"]:
        raise ParameterError(f"this runs BookSim's own networks (--simulators booksim); SST merlin's are "
                             f"compared by topogen.reproduce.crossval_native_sst.native_command, got "
                             f"--simulators {','.join(sims)}")
    res = crossval_native(args.native, args.out_dir, loads=loads, seed=seed, routing=args.routing,
                          repeats=3 if args.repeats is None else args.repeats, binary=args.booksim,
                          timeout=3600.0 if args.timeout is None else args.timeout,
                          saturation=not getattr(args, "no_saturation", False),
                          up_to=UP_TO if args.up_to is None else args.up_to, **params)
    return print_result(res, "", args.strict)


def print_result(res: NativeResult, simulators: str, strict: bool) -> int:
    """Print a native comparison as ``crossval --native`` shows it (``simulators``: the
    `` --simulators ...`` part of its heading, empty for BookSim); the exit status:
    1 when ``strict`` and a verdict failed."""
    f = res.family
    print(f"crossval --native {f.family}{simulators}: k={f.k} n={f.n}; topogen {f.generator} with {f.routing}")
    print(f"structure: {'isomorphic' if res.structure['isomorphic'] else 'NOT isomorphic'}"
          + (" (identity numbering)" if res.structure["identity"] else ""))
    print(format_lines(res))
    if res.saturation:
        print("saturation (flits/node/cycle):")
        print(format_saturation(res))
    print("notes:")
    for note in res.notes:
        print(f"  - {note}")
    return 1 if strict and not res.passed else 0


