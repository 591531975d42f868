"""SST merlin's own mesh, hyperx, dragonfly and fattree (``crossval --native FAMILY
--simulators sst``): cabling, host attachment and routes as read from sst-elements'
``merlin/topology`` sources, against topogen's generators and routings."""

import itertools
import json
import math

import networkx as nx
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import NativeFamily, native_routing
from topogen.reproduce.crossval_native_sst import (merlin_fattree_wiring, merlin_global_link_map,
                                                   merlin_hyperx_wiring, merlin_network, merlin_route,
                                                   native_bundle)

SIZES = [("mesh", 4, 2), ("mesh", 3, 3), ("torus", 4, 2), ("hyperx", 4, 2), ("hyperx", 3, 3), ("hyperx", 5, 1),
         ("dragonfly", 1, 1), ("dragonfly", 2, 1), ("fattree", 2, 3), ("fattree", 4, 2), ("fattree", 3, 3)]


def _topogen(net):
    params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in net.gen_params.items()}
    return registry.generate(net.generator, **params)


def _graph(topology):
    g = nx.Graph()
    g.add_nodes_from((i, {"hosts": int(h)}) for i, h in enumerate(topology.hosts))
    g.add_edges_from(map(tuple, topology.edges.tolist()))
    return g


@pytest.mark.parametrize("family,k,n", SIZES)
def test_cabling_is_consistent_and_isomorphic(family, k, n):
    """Every cable has two ends that name each other, no port is used twice or lies outside
    the router, and merlin's router graph with its hosts is topogen's generator's."""
    net = merlin_network(family, k, n)
    w = net.wiring
    assert all(w[w[e]] == e for e in w)
    used = list(w) + list(net.endpoints)
    assert len(used) == len(set(used))
    assert all(0 <= p < net.num_ports[r] for r, p in used)
    ours = _graph(_topogen(net))
    same = nx.algorithms.isomorphism.categorical_node_match("hosts", 0)
    assert nx.is_isomorphic(net.graph(), ours, node_match=same)


def test_hyperx_ports_follow_the_routing_formula():
    """pymerlin-topo-hyperx.py cables dimension d's routers in coordinate order skipping
    its own; hyperx.cc's routeDORBase reaches coordinate c on port port_start[d] + c - (c >
    mine): the two readings agree on every port (3 x 4 x 2)."""
    dims = (3, 4, 2)
    w = merlin_hyperx_wiring(dims)
    starts = [0, 2, 5]
    for (r, port), (o, _) in w.items():
        me = [r % 3, (r // 3) % 4, r // 12]
        other = [o % 3, (o // 3) % 4, o // 12]
        d = max(i for i in range(3) if starts[i] <= port)
        c = other[d]
        assert [x for i, x in enumerate(me) if i != d] == [x for i, x in enumerate(other) if i != d]
        assert port == starts[d] + c - (c > me[d])
    assert len(w) == 24 * (2 + 3 + 1)


def test_global_link_map_reaches_every_other_group_once():
    a, h = 4, 2
    gmap = merlin_global_link_map(a, h, a * h + 1)
    assert sorted(gmap) == list(range(a * h))
    # fewer groups than global ports: the last routers' last ports stay unused (-1)
    short = merlin_global_link_map(4, 2, 7)
    assert sorted(x for x in short if x >= 0) == list(range(6)) and short.count(-1) == 2


def test_fattree_shape_levels_and_hosts():
    """merlin's k-ary n-tree (shape k,k:..:k): k^(n-1) routers per level, leaves numbered
    first with endpoints k i .. k i + k - 1 on ports 0 .. k-1 of leaf i, the roots only
    down ports."""
    wiring, endpoints, ports = merlin_fattree_wiring("3,3:3,3:3")
    assert len(ports) == 27 and ports[:18] == [6] * 18 and ports[18:] == [3] * 9
    assert endpoints == [(e // 3, e % 3) for e in range(27)]
    # a root's down ports reach level 1, a leaf's up ports level 1
    assert all(9 <= wiring[r, p][0] < 18 for r in range(18, 27) for p in range(3))
    assert all(9 <= wiring[r, p][0] < 18 for r in range(9) for p in range(3, 6))
    with pytest.raises(ParameterError, match="shape"):
        merlin_fattree_wiring("4")


@pytest.mark.parametrize("family,k,n", [("mesh", 4, 2), ("mesh", 3, 3), ("torus", 4, 2), ("hyperx", 4, 2),
                                        ("hyperx", 3, 3), ("dragonfly", 2, 1), ("dragonfly", 1, 1)])
def test_merlin_routes_are_topogens(family, k, n):
    """merlin's route_packet (followed over the cabling, which is read from the python
    builders) delivers every packet, and visits exactly the switches of topogen's routing
    (dor; dragonfly-min), pair by pair."""
    net = merlin_network(family, k, n)
    t = _topogen(net)
    fam = NativeFamily(family, k, n, {}, net.generator, net.gen_params, net.routing)
    r = native_routing(fam, t, None, 1)
    hosts = len(net.endpoints)
    for s, d in itertools.permutations(range(hosts), 2):
        hops = merlin_route(net, s, d)
        assert hops[-1][:2] == net.endpoints[d]
        rs, rd = net.endpoints[s][0], net.endpoints[d][0]
        assert [h[0] for h in hops] == (list(r.path(rs, rd)[0]) if rs != rd else [rs])


def test_merlin_vc_rules():
    """VCs as merlin's sources set them: hyperx DOR one VC; dragonfly minimal VC 0 up to
    and over the global link, VC 1 after it; mesh VC 1 after a turn at coordinate 0."""
    hx = merlin_network("hyperx", 4, 2)
    assert {h[2] for s, d in itertools.permutations(range(16), 2) for h in merlin_route(hx, s, d)} == {0}
    df = merlin_network("dragonfly", 2, 1)
    a, p = 4, 2
    for s, d in itertools.permutations(range(0, 72, 5), 2):
        hops = merlin_route(df, s, d)
        groups = [r // a for r, _, _ in hops]
        vcs = [v for _, _, v in hops]
        crossed = [g != groups[0] for g in groups]
        assert vcs == [int(c) for c in crossed]
        assert len(hops) <= 4
    mesh = merlin_network("mesh", 4, 2)
    # (1,0) -> (0,0) -> (0,1): x on VC 0, the turn into y at y = 0 on VC 1
    assert [h[2] for h in merlin_route(mesh, 1, 4)] == [0, 1, 1]
    assert mesh.router_params == {"num_vns": 2}


def test_fattree_deterministic_is_d_mod_k_on_hosts():
    """fattree.cc's route_deterministic climbs on the destination host's digits (dest /
    k^level mod k) to a nearest common ancestor and descends; topogen's nca (a table per
    destination switch) takes paths of the same length, not the same up ports (a switch
    table cannot see the host digit)."""
    net = merlin_network("fattree", 3, 3)
    t = _topogen(net)
    fam = NativeFamily("fattree", 3, 3, {}, net.generator, net.gen_params, "nca")
    r = native_routing(fam, t, None, 1)
    leaf_of_host = {}
    for v, h in enumerate(t.hosts):
        for j in range(int(h)):
            leaf_of_host[len(leaf_of_host)] = v
    lengths = {}
    for s, d in itertools.permutations(range(27), 2):
        hops = merlin_route(net, s, d)
        level = 1 if s // 3 == d // 3 else (2 if s // 9 == d // 9 else 3)
        assert len(hops) == 2 * level - 1
        if level > 1:  # the first up port is the destination's lowest digit
            assert hops[0][1] == 3 + d % 3
        lengths[s, d] = len(hops)
    # topogen's leaves hold hosts in the same blocks: same route lengths host by host
    for (s, d), m in lengths.items():
        a, b = leaf_of_host[s], leaf_of_host[d]
        assert (len(r.path(a, b)[0]) if a != b else 1) == m


def test_native_bundle_is_merlins_network(tmp_path):
    from topogen.export.sst import write_bundle
    from topogen.routing import route

    net = merlin_network("dragonfly", 2, 1)
    t = _topogen(net)
    plain = write_bundle(tmp_path / "net.json", t, routing=route(t, None, "fr"))
    doc = json.loads(native_bundle(plain, tmp_path / "native.json", net).read_text())
    assert doc["native_topology"]["name"] == "merlin.dragonfly"
    prm = doc["native_topology"]["params"]
    assert prm["num_groups"] == 9 and prm["global_link_map"] == merlin_global_link_map(4, 2, 9)
    assert all(net.wiring[x["u"], x["port_u"]] == (x["v"], x["port_v"]) for x in doc["links"])
    assert [(e["router"], e["port"]) for e in doc["endpoints"]] == [(e // 2, e % 2) for e in range(72)]
    assert all(r["num_ports"] == 2 + 3 + 2 for r in doc["routers"])
    mesh = merlin_network("mesh", 3, 2)
    tm = _topogen(mesh)
    doc = json.loads(native_bundle(write_bundle(tmp_path / "m.json", tm, routing=route(tm, None, "dor")),
                                   tmp_path / "mn.json", mesh).read_text())
    assert doc["router_params"]["num_vns"] == 2
    with pytest.raises(ParameterError, match="cables"):
        native_bundle(plain, tmp_path / "x.json", mesh)


@pytest.mark.parametrize("family,k,n,match", [("ring", 4, 2, "must be one of"), ("dragonfly", 2, 2, "n must be 1"),
                                              ("hyperx", 1, 2, "k"), ("fattree", 4, 1, "n")])
def test_bad_sizes_are_refused(family, k, n, match):
    with pytest.raises(ParameterError, match=match):
        merlin_network(family, k, n)


def test_routing_choice_is_checked():
    with pytest.raises(ParameterError, match="--routing"):
        merlin_network("dragonfly", 2, 1, routing="ugal-booksim")
    assert merlin_network("hyperx", 3, 2).params["algorithm"] == "DOR"
    assert math.prod([3, 3]) == len(merlin_network("hyperx", 3, 2).endpoints)
