"""SST merlin's dragonfly valiant / ugal and hyperx valiant / DOAL as topogen routings
(topogen/routing/merlin_adaptive.py): paths against an independent walk of merlin's
port rules over merlin's own cabling, the draws, the adaptive rules, the deadlock check
and the export of the valiant routings' weighted paths."""

import itertools

import numpy as np
import pytest

import topogen
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native_sst import merlin_network
from topogen.routing import check, route
from topogen.routing.export import paths_from, sst_entry_string
from topogen.routing.merlin_adaptive import (MERLIN_ROUTINGS, MerlinDragonflyRouting, XorShift, merlin_dragonfly,
                                             merlin_hyperx)


def _dragonfly(k):
    return topogen.generate("dragonfly", a=2 * k, p=k, h=k, arrangement="absolute", global_port_order="router")


# ---------------------------------------------------------------- SST's XORShiftRNG
def test_xorshift_is_sst_core_generator():
    # seed 1: x = 1, y = z = w = 0; t = 1 ^ (1 << 11) = 2049; w = 2049 ^ (2049 >> 8) = 2057,
    # and the next three steps see t = 0 and w < 2**19: 2057 again
    g = XorShift(1)
    assert [g() for _ in range(4)] == [2057] * 4
    # against the recurrence in NumPy's uint32 arithmetic (wrapping shifts)
    for seed in (1, 7, 36, 123456789):
        x, y, z, w = np.uint32(seed), np.uint32(0), np.uint32(0), np.uint32(0)
        g = XorShift(seed)
        for _ in range(300):
            t = x ^ np.uint32((int(x) << 11) & 0xFFFFFFFF)
            x, y, z = y, z, w
            w = w ^ (w >> np.uint32(19)) ^ t ^ (t >> np.uint32(8))
            assert g() == int(w)
    with pytest.raises(ParameterError, match="seed"):
        XorShift(0)


# ---------------------------------------------------------------- dragonfly
def _merlin_dragonfly_walk(net, s, d, mid, rule):
    """route_nonadaptive (valiant) / route_ugal's fixed paths over merlin's cabling, by
    port: host ports 0..p-1, then one port per other router, then the global ports."""
    prm = net.params
    p, a, h = prm["hosts_per_router"], prm["routers_per_group"], prm["intergroup_per_router"]
    gstart = p + a - 1
    gmap = prm["global_link_map"]
    src_grp = s // a

    def port_for_router(r, x):
        return p + x - (x > r)

    def port_for_group(rid, g):
        grp, r = divmod(rid, a)
        slot = gmap.index(g - (g > grp))
        owner, j = divmod(slot, h)
        return gstart + j if owner == r else port_for_router(r, owner)

    rid, port_in, vc = s, None, 0
    dgrp, drtr = divmod(d, a)
    sw, vcs = [s], []
    while True:
        grp, r = divmod(rid, a)
        if port_in is None:
            if dgrp == src_grp:
                port = port_for_router(r, mid - grp * a)
            else:
                port = port_for_group(rid, mid)
        elif port_in < gstart:
            if dgrp == grp:
                vc += 1 if rule == "valiant" else 2
                port = port_for_router(r, drtr)
            else:
                port = port_for_group(rid, mid if mid != grp else dgrp)
        else:
            vc += 1
            port = port_for_router(r, drtr) if dgrp == grp else port_for_group(rid, dgrp)
        vcs.append(vc)
        rid, port_in = net.wiring[rid, port]
        sw.append(rid)
        if rid == d:
            return sw, vcs


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("rule", ["valiant", "ugal"])
def test_dragonfly_paths_are_merlins_walk(k, rule):
    net = merlin_network("dragonfly", k, 1, rule)
    t = _dragonfly(k)
    r = merlin_dragonfly(t, rule)
    a = 2 * k
    sources = range(len(net.num_ports)) if k == 1 else (0, 5, 13, 30)
    for s in sources:
        for d in range(len(net.num_ports)):
            if s == d:
                continue
            same = s // a == d // a
            mids = [m for m in range(s // a * a, s // a * a + a) if m != s] if same else \
                [g for g in range(2 * k * k + 1) if g not in (s // a, d // a)]
            got = {tuple(sw): tuple(v) for sw, v in r.path_set(s, d)}
            for m in mids:
                if same and m == d:
                    continue  # the direct hop (merlin goes straight to the destination router)
                sw, vcs = _merlin_dragonfly_walk(net, s, d, m, rule)
                assert got[tuple(sw)] == tuple(vcs), (s, d, m)
            if rule == "ugal":  # and the minimal path, VC 0 then 1 after the global hop
                sw = r.min_path(s, d)
                assert got[tuple(sw)] == tuple(r.vcs_of(sw))
            assert len(got) == len(mids) + (1 if rule == "ugal" and not same else 0)


def test_dragonfly_draws_as_process_input():
    r = merlin_dragonfly(_dragonfly(2), "valiant")
    seq = iter(range(10**6))
    u32 = seq.__next__  # 0, 1, 2, ...: u32() % n walks through every residue
    seen = {r.draw(0, 30, u32) for _ in range(200)}
    assert seen == set(range(9)) - {0, 7}  # every group but the source's (0) and the destination's (30 // 4)
    seen = {r.draw(5, 6, u32) for _ in range(50)}
    assert seen == {4, 6, 7}  # a router of group 1 other than the source (may be the destination)
    paths = r.all_paths(5)
    assert len(paths[6]) == 3 and len(paths[30]) == 7 and paths[6].count([6]) == 1
    # the draw is uniform: one path per intermediate, each as likely
    gen = np.random.default_rng(3)
    counts = {}
    for _ in range(3000):
        sw, _ = r.path(5, 6, gen)
        counts[tuple(sw)] = counts.get(tuple(sw), 0) + 1
    assert len(counts) == 3 and min(counts.values()) > 850


def test_ugal_choice_by_merlins_weights():
    t = _dragonfly(2)
    r = merlin_dragonfly(t, "ugal")
    e = r.entry_of

    def queues(table):
        return lambda ent, vc: table.get(ent, 0)

    one = lambda: 0  # noqa: E731
    # inside a group: minimal unless q(direct) > 2 q(intermediate) + 50
    st = [6, 5, 0]  # 4 -> 6 via 5
    assert r.choose(list(st), 4, 0, queues({e[4, 6]: 50}), one) == ([6], [0], True)
    assert r.choose(list(st), 4, 0, queues({e[4, 6]: 51}), one) == ([5, 6], [0, 2], True)
    assert r.choose(list(st), 4, 0, queues({e[4, 6]: 66, e[4, 5]: 33}), one) == ([6], [0], True)
    # between groups: router 0's group-0 gateways: to group 8 router 3, to group 2 router 0 itself
    gw = r.gateway
    assert gw[0][8] == 3 and gw[0][2] == 0
    d, mid = 33, 2
    x = gw[2][0]
    n_val = x  # router 0 holds the link to group 2
    w = r.choose([d, mid, 0], 0, 0, queues({e[0, 3]: 100, e[0, n_val]: 24}), one)
    v = r.via(0, mid, d)
    x = next(i for i, u in enumerate(v) if r.group_of[u] == mid)  # where the intermediate group is entered
    assert w[0] == v[1:x + 1] and not w[2]  # 100 > 2 * 24 + 50: valiant, to the intermediate group
    assert w[1] == r.vcs_of(v)[:x]
    w = r.choose([d, mid, 0], 0, 0, queues({e[0, 3]: 98, e[0, n_val]: 24}), one)
    assert w[0] == r.min_path(0, d)[1:]  # 98 = 98: a tie, drawn (u32 = 0: minimal)
    w = r.choose([d, mid, 0], 0, 0, queues({e[0, 3]: 98, e[0, n_val]: 24}), lambda: 1)
    assert w[0] == v[1:x + 1]
    # a router holding both global links chooses again when the packet arrives over a local link
    r2 = next((a2, g1, g2) for a2 in range(1, 4) for g1, g2 in itertools.combinations(range(1, 9), 2)
              if gw[0][g1] == gw[0][g2] == a2)
    rr, g1, g2 = r2
    st = [g1 * 4 + 1, g2, 0]
    hops, vcs, done = r.choose(st, 0, 0, queues({}), one)
    assert hops == [rr] and vcs == [0] and not done and st[2] == 1
    q_min, q_val = e[rr, gw[g1][0]], e[rr, gw[g2][0]]
    hops, _, done = r.choose(st, rr, 0, queues({q_min: 51}), one)
    v2 = r.via(rr, g2, g1 * 4 + 1)
    assert not done and hops == v2[1:2] and r.group_of[hops[-1]] == g2
    hops, _, done = r.choose(st, rr, 0, queues({q_min: 50, q_val: 0}), one)
    assert done and hops == r.min_path(rr, g1 * 4 + 1)[1:]


# ---------------------------------------------------------------- HyperX
def _merlin_hyperx_dor(dims, s, d):
    """routeDORBase over merlin.hyperx's cabling (ports in increasing coordinate)."""
    net = merlin_network("hyperx", dims[0], len(dims), "DOR")
    k = dims[0]
    sw = [s]
    while sw[-1] != d:
        me = [(sw[-1] // k ** i) % k for i in range(len(dims))]
        dest = [(d // k ** i) % k for i in range(len(dims))]
        dim = next(i for i in range(len(dims)) if me[i] != dest[i])
        port = dim * (k - 1) + dest[dim] - (dest[dim] > me[dim])
        sw.append(net.wiring[sw[-1], port][0])
    return sw


def test_hyperx_valiant_paths():
    t = topogen.generate("hyperx", dims=(3, 3, 3))
    r = merlin_hyperx(t, "valiant")
    for s, d in [(0, 26), (4, 4), (13, 2), (25, 0)]:
        got = r.path_set(s, d)
        assert len(got) == 26
        for m, (sw, vcs) in zip([m for m in range(27) if m != s], got):
            a, b = _merlin_hyperx_dor((3, 3, 3), s, m), _merlin_hyperx_dor((3, 3, 3), m, d)
            assert sw == a + b[1:] and vcs == [0] * (len(a) - 1) + [1] * (len(b) - 1)
    seq = iter(range(10**6))
    assert {r.draw_path(5, 9, seq.__next__)[0][1] for _ in range(80)} >= set(range(27)) - {5, 9} - {
        v for v in range(27) if v != 5 and _merlin_hyperx_dor((3, 3, 3), 5, v)[1] != v}


def test_doal_choice_and_path_set():
    t = topogen.generate("hyperx", dims=(4, 4))
    r = merlin_hyperx(t, "DOAL")
    e = r.entry_of
    zero = lambda ent, vc: 0  # noqa: E731
    # empty queues: the direct link (weight 0 against 2 * 0 + 1)
    assert r.choose([15], 0, 0, zero, None) == ([3], [0], False)
    # a busy direct link: the first other link of the dimension in port order, on VC 1
    busy = lambda ent, vc: 66 if ent == e[0, 3] else 0  # noqa: E731
    assert r.choose([15], 0, 0, busy, None) == ([1], [1], False)
    # 2 q + 1 < q_direct decides; equal weights keep the earlier port (the direct one if first)
    q = {(e[0, 1], 1): 10, (e[0, 2], 1): 10, (e[0, 3], 0): 21}
    assert r.choose([15], 0, 0, lambda ent, vc: q.get((ent, vc), 0), None) == ([1], [1], False)
    q[e[0, 3], 0] = 20
    assert r.choose([15], 0, 0, lambda ent, vc: q.get((ent, vc), 0), None) == ([3], [0], False)
    # after a non-minimal hop (came in on VC 1): straight to the coordinate on VC 0
    assert r.choose([15], 1, 1, busy, None) == ([3], [0], False)
    assert r.choose([15], 3, 0, zero, None) == ([15], [0], True)
    # every path random queues produce is in path_set
    gen = np.random.default_rng(2)
    paths = {tuple(sw): tuple(v) for sw, v in r.path_set(0, 15)}
    assert len(paths) == 9
    for _ in range(200):
        at, vc, sw, vcs = 0, 0, [0], []
        qs = {(x, c): int(gen.integers(0, 3)) * 33 for x in range(len(r.view.indices)) for c in (0, 1)}
        while at != 15:
            hops, v, _ = r.choose([15], at, vc, lambda ent, c: qs[ent, c], None)
            sw += hops
            vcs += v
            at, vc = hops[-1], v[-1]
        assert paths[tuple(sw)] == tuple(vcs)


# ---------------------------------------------------------------- deadlock check, names, export
@pytest.mark.parametrize("name", sorted(MERLIN_ROUTINGS))
def test_deadlock_free_on_merlins_vcs(name):
    t = (_dragonfly(1) if "dragonfly" in name else topogen.generate("kary-ntree", k=2, n=3) if "fattree" in name
         else topogen.generate("hyperx", dims=(3, 3)))
    r = route(t, None, name, seed=4)
    rep = check(r)
    assert rep.acyclic and rep.vcs_declared == r.num_vcs and rep.vcs_used == r.num_vcs


def test_check_finds_the_cycle_without_merlins_vcs():
    class OneVc(MerlinDragonflyRouting):
        def vcs_of(self, sw, vc0=0):
            return [0] * (len(sw) - 1)

    rep = check(OneVc(_dragonfly(1), "valiant"))
    assert not rep.acyclic and rep.cycle


def test_names_and_refusals():
    t = _dragonfly(1)
    assert route(t, None, "merlin-dragonfly-ugal").run_time_choices
    assert not route(t, None, "merlin-dragonfly-valiant").run_time_choices
    with pytest.raises(ParameterError, match="exactly 3 VCs"):
        route(t, None, "merlin-dragonfly-valiant", vcs=4)
    with pytest.raises(ParameterError, match="hyperx topology"):
        route(t, None, "merlin-hyperx-doal")
    with pytest.raises(ParameterError, match="draws must be"):
        merlin_dragonfly(t, "valiant", draws="other")
    small = topogen.generate("dragonfly", a=2, p=1, h=1, groups=2)
    with pytest.raises(ParameterError, match="dragonfly-min"):
        merlin_dragonfly(small, "valiant")


def test_valiant_exports_every_path_equally_weighted():
    t = _dragonfly(1)
    r = merlin_dragonfly(t, "valiant")
    got = paths_from(r, 0)
    assert got == r.all_paths(0)
    assert got[1] == [[1]]  # router 1 is group 0's only other router: the intermediate is the destination
    entry = sst_entry_string(r, 0)
    assert entry.split("|")[0] == "1:1.00000,1"
    assert entry.split("|")[2] == "3:1.00000," + ",".join(map(str, got[3][0]))  # one intermediate group
    with pytest.raises(ParameterError, match="at run time"):
        merlin_dragonfly(t, "ugal").all_paths(0)


def test_export_untimed_tables_chain_to_the_destination(tmp_path):
    """With 3 groups merlin's dragonfly valiant has one path per destination, whose first
    hops do not chain: anytopo routes untimed packets hop by hop with each router's first
    path, which wandered past the VCs on real SST ("Number of hops exceeded the total
    number of VCs"); the SST model gives such a bundle shortest paths."""
    import importlib.util
    import json

    import networkx as nx

    from topogen.export import sst as sx

    t = _dragonfly(1)
    doc = json.loads(sx.write_bundle(tmp_path / "v.json", t, None, merlin_dragonfly(t, "valiant")).read_text())
    assert not any(";" in r["routing_entry_string"] for r in doc["routers"])  # one path per destination
    spec = importlib.util.spec_from_file_location("model_topogen_sst", sx.model_path())
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    first = [{int(e.split(":")[0]): [int(h) for h in e.split(";")[0].split(",")[1:]] for e in s.split("|")}
             for s in model.simple_tables(doc)]
    g = nx.Graph((lk["u"], lk["v"]) for lk in doc["links"])
    for s, d in itertools.permutations(range(doc["num_routers"]), 2):
        u, hops = s, 0
        while u != d:  # anytopo's route_simple
            u, hops = first[u][d][0], hops + 1
            assert hops < doc["vcs_per_vn"]
        assert hops == nx.shortest_path_length(g, s, d)


def test_route_command_saves_and_loads(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from topogen.routing import load_routing

    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}
    topo = tmp_path / "df.json"
    subprocess.run([sys.executable, "-m", "topogen", "generate", "dragonfly", "--a", "2", "--p", "1", "--h", "1",
                    "--arrangement", "absolute", "--global-port-order", "router", "-o", str(topo)], check=True,
                   env=env, capture_output=True)
    out = subprocess.run([sys.executable, "-m", "topogen", "route", str(topo), "--algorithm", "merlin-dragonfly-ugal",
                          "--seed", "3", "-o", str(tmp_path / "r")], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    r = load_routing(tmp_path / "r")
    assert isinstance(r, MerlinDragonflyRouting) and r.rule == "ugal" and r.seed == 3 and r.bias == 50
    assert check(r).acyclic
