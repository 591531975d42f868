"""SST merlin's own torus and mesh (``merlin.torus`` / ``merlin.mesh``: cabling from
pymerlin-topo-mesh.py, the torus routing from torus.cc) against topogen's generators and
``dor``: structure, routes and the VC rule, as read from the sources."""

import itertools
import os
import shutil

import networkx as nx
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native_sst import merlin_torus_route, merlin_torus_wiring
from topogen.routing import route

SST = shutil.which("sst") or (shutil.which("/opt/sst/bin/sst") if os.path.exists("/opt/sst/bin/sst") else None)


def _graph(wiring, hosts, n):
    g = nx.Graph()
    g.add_nodes_from(range(n), hosts=hosts)
    g.add_edges_from((a, b) for (a, _), (b, _) in wiring.items())
    return g


def _topogen(topology):
    g = nx.Graph()
    g.add_nodes_from((i, {"hosts": int(h)}) for i, h in enumerate(topology.hosts))
    g.add_edges_from(map(tuple, topology.edges.tolist()))
    return g


@pytest.mark.parametrize("dims,local", [((4, 4), 1), ((5, 3), 2), ((4, 3, 2), 1), ((3, 3, 3), 4)])
@pytest.mark.parametrize("mesh", [False, True])
def test_merlin_wiring_is_topogens(dims, local, mesh):
    w = merlin_torus_wiring(dims, local, mesh=mesh)
    n = 1
    for k in dims:
        n *= k
    # every port used once, the link's other end names it back
    assert all(w[w[e]] == e for e in w)
    assert all(p < 2 * len(dims) for _, p in w)
    ours = registry.generate("mesh" if mesh else "torus", dims=dims, hosts_per_switch=local)
    a, b = _graph(w, local, n), _topogen(ours)
    # identical, numbering included (router i = switch i, endpoints local * i + j on it)
    assert set(map(frozenset, a.edges)) == set(map(frozenset, b.edges))
    assert all(b.nodes[i]["hosts"] == local for i in b.nodes)


@pytest.mark.parametrize("dims", [(4, 4), (5, 3), (4, 3, 2), (6,)])
def test_merlin_routes_are_dor(dims):
    """torus.cc's route_packet visits the routers of topogen's dor (ties at k/2 to the +
    direction: ``dist_pos <= dist_neg``), pair by pair."""
    t = registry.generate("torus", dims=dims)
    r = route(t, None, "dor")
    n = t.num_switches
    for s, d in itertools.permutations(range(n), 2):
        hops = merlin_torus_route(dims, s, d)
        sw, _ = r.path(s, d)
        w = merlin_torus_wiring(dims)
        assert [h[0] for h in hops] + [d] == list(sw)
        assert all(w[h[0], h[1]][0] == nxt for h, nxt in zip(hops, list(sw)[1:]))


def test_merlin_vc_rule_and_its_difference():
    """merlin toggles the VC at a router whose coordinate in the routing dimension is 0
    when the packet came from a network port; topogen's dateline moves to the upper VC on
    the wrap hop.  Both are acyclic; they differ on the + wrap hop (merlin: still VC 0,
    the toggle comes at coordinate 0 after it) and on a turn into a dimension at
    coordinate 0 (merlin: VC 1 without a wrap)."""
    dims = (4, 4)
    t = registry.generate("torus", dims=dims)
    r = route(t, None, "dor", vcs=2)
    # + wrap in x from (3,0) to (1,0): 3 -> 0 on VC 0, then 0 -> 1 on VC 1
    assert [h[2] for h in merlin_torus_route(dims, 3, 1)] == [0, 1]
    assert list(r.path(3, 1)[1]) == [1, 1]
    # - wrap in y after x: (3,0) -> (0,0) -> (0,3): the turn at y = 0 toggles first
    assert merlin_torus_route(dims, 3, 12) == [(3, 0, 0), (0, 3, 1)]
    # a turn into y at y = 0 without a wrap: (1,0) -> (0,0) -> (0,1) runs y on VC 1
    assert [h[2] for h in merlin_torus_route(dims, 1, 4)] == [0, 1]
    assert list(r.path(1, 4)[1]) == [0, 0]
    # merlin's channel dependency graph over all pairs is acyclic
    w = merlin_torus_wiring(dims)
    g = nx.DiGraph()
    for s, d in itertools.permutations(range(16), 2):
        ch = [(h[0], h[1], h[2]) for h in merlin_torus_route(dims, s, d)]
        g.add_edges_from(zip(ch, ch[1:]))
    assert nx.is_directed_acyclic_graph(g)


def test_native_bundle_puts_cables_on_merlins_ports(tmp_path):
    import json

    from topogen.export.sst import write_bundle
    from topogen.reproduce.crossval_native_sst import merlin_native_bundle

    t = registry.generate("torus", dims=(4, 3))
    plain = write_bundle(tmp_path / "net.json", t, routing=route(t, None, "dor"))
    doc = json.loads(merlin_native_bundle(plain, tmp_path / "native.json", (4, 3)).read_text())
    w = merlin_torus_wiring((4, 3))
    assert doc["native_topology"] == {"name": "merlin.torus",
                                      "params": {"shape": "4x3", "width": "1x1", "local_ports": 1}}
    assert all(w[x["u"], x["port_u"]] == (x["v"], x["port_v"]) for x in doc["links"])
    assert len(doc["links"]) == len(w) // 2
    assert all(e["port"] == 4 and e["router"] == e["id"] for e in doc["endpoints"])
    assert all(r["num_ports"] == 5 for r in doc["routers"])
    with pytest.raises(ParameterError, match="side of 2"):
        merlin_native_bundle(plain, tmp_path / "x.json", (2, 3))


def test_cli_refuses_what_it_does_not_compare(tmp_path):
    import argparse

    from topogen.reproduce.crossval_native_sst import native_command

    args = argparse.Namespace(param=[], loads=None, seed=None, simulators="sst", native="flatfly",
                              out_dir=str(tmp_path / "o"), repeats=None, sst=None, timeout=None, routing=None, strict=False)
    with pytest.raises(ParameterError, match="SST merlin's torus, mesh"):
        native_command(args)


@pytest.mark.sst
@pytest.mark.skipif(SST is None, reason="SST not installed")
def test_merlin_torus_agrees(tmp_path):
    """SST's own merlin.torus (4x4) against topogen's torus on the reference simulator's
    output-buffered router (3 seeds) and topogen's SST export, at 0.2 and 0.3 (about 40 and
    60 % of the torus's saturation)."""
    from topogen.reproduce.crossval_native_sst import crossval_native_sst

    res = crossval_native_sst(tmp_path / "out", k=4, n=2, loads=(0.2, 0.3), repeats=3, binary=SST)
    assert res.structure == {"isomorphic": True, "identity": True}
    by = {(x["load"], x["column"]): x for x in res.lines}
    for load in (0.2, 0.3):
        assert by[(load, "native")]["status"] == "completed"
        for col in ("reference", "export"):
            assert by[(load, col)]["verdict"].startswith("pass"), by[(load, col)]


@pytest.mark.parametrize("p,a,h", [(1, 2, 1), (2, 4, 2), (3, 6, 3), (2, 3, 2)])
def test_merlin_dragonfly_wiring_is_topogens(p, a, h):
    """pymerlin-topo-dragonfly.py's cabling (default global_link_map, absolute routes) is
    topogen's dragonfly(a, p, h, arrangement="absolute", global_port_order="router"),
    numbering included: router r of group g is switch g a + r, its hosts first, then its
    group's other routers, then global port j to the (r h + j)-th other group."""
    from topogen.reproduce.crossval_native_sst import merlin_dragonfly_wiring

    w = merlin_dragonfly_wiring(p, a, h)
    n = a * (a * h + 1)
    assert all(w[w[e]] == e for e in w)
    t = registry.generate("dragonfly", a=a, p=p, h=h, arrangement="absolute", global_port_order="router")
    assert {frozenset((x, y)) for (x, _), (y, _) in w.items()} == set(map(frozenset, t.edges.tolist()))
    assert t.num_switches == n and all(int(x) == p for x in t.hosts)
    # ports: p hosts, a - 1 local, h global, every router
    for rid in range(n):
        ports = sorted(q for (x, q) in w if x == rid)
        assert ports == list(range(p, p + a - 1 + h))
        glob = [w[rid, q][0] // a for q in range(p + a - 1, p + a - 1 + h)]
        assert all(gg != rid // a for gg in glob)
