"""merlin.dragonfly's ``adaptive-local`` and ``min-a``, merlin.hyperx's ``MIN-A``
(topogen/routing/merlin_adaptive.py): each rule against merlin's walk over merlin's own
cabling, the choices against the weights read from dragonfly.cc / hyperx.cc, the deadlock
check, and the VC a packet leaves the dragonfly from."""

import itertools

import pytest

import topogen
from topogen.errors import ParameterError
from topogen.routing import check, route
from topogen.routing.merlin_adaptive import ADAPTIVE_LOCAL_THRESHOLD, MERLIN_ROUTINGS, merlin_dragonfly, merlin_hyperx
from topogen.reproduce.crossval_native_sst import merlin_network, merlin_route


def _dragonfly(k):
    return topogen.generate("dragonfly", a=2 * k, p=k, h=k, arrangement="absolute", global_port_order="router")


def _space(table, default=66):
    return lambda ent, vc: table.get(ent, default)


def _no_queue(ent, vc):
    raise AssertionError("adaptive-local reads the free space (output_credits), not the queue")


@pytest.mark.parametrize("k", [1, 2])
def test_min_a_is_merlins_minimal_walk(k):
    """route_mina with one global link per pair of groups: merlin's minimal walk over
    merlin's cabling (crossval_native_sst.merlin_route), routers and VCs."""
    r = merlin_dragonfly(_dragonfly(k), "min-a")
    net = merlin_network("dragonfly", k, 1, "minimal")
    assert r.num_vcs == 2 and not r.run_time_choices
    p = k
    for s, d in itertools.permutations(range(len(net.num_ports)), 2):
        hops = merlin_route(net, s * p, d * p)
        sw = [h[0] for h in hops]
        vcs = [h[2] for h in hops[:-1]]
        ((path, pvcs),) = r.path_set(s, d)
        assert path == sw and pvcs == vcs
        # the ejection VC: merlin's last hop (to the host port) carries it
        assert r.eject_vc(path, pvcs) == hops[-1][2]


@pytest.mark.parametrize("rule", ["valiant", "ugal", "adaptive-local"])
def test_dragonfly_ejection_vc_is_merlins(rule):
    """A packet that came in over a global port gets VC + 1 at its destination router
    too: merlin's walk (merlin_route, minimal) ends on that VC; valiant routes end on 2."""
    r = merlin_dragonfly(_dragonfly(2), rule)
    g = r.group_of
    for s, d in [(0, 20), (0, 3), (5, 30)]:
        for sw, vcs in r.path_set(s, d):
            ej = r.eject_vc(sw, vcs)
            if g[sw[-2]] != g[sw[-1]]:
                assert ej == vcs[-1] + 1
            else:
                assert ej == vcs[-1]
            if sum(g[u] != g[w] for u, w in zip(sw, sw[1:])) == 2:  # through an intermediate group
                assert ej == 2


def test_adaptive_local_choice_by_free_space():
    """route_adaptive_local: valiant when its first output buffer has more than twice the
    free space of the minimal one's (66-flit buffers of 33-flit packets: only when the
    minimal one is full and the valiant one is not)."""
    r = merlin_dragonfly(_dragonfly(2), "adaptive-local")
    e = r.entry_of
    assert r.run_time_choices and r.num_vcs == 3 and ADAPTIVE_LOCAL_THRESHOLD == 2.0
    one = lambda: 0  # noqa: E731
    # inside a group: 4 -> 6 via 5
    st = [6, 5, 0]
    assert r.choose(list(st), 4, 0, _no_queue, one, _space({e[4, 6]: 33})) == ([6], [0], True)
    assert r.choose(list(st), 4, 0, _no_queue, one, _space({e[4, 6]: 0, e[4, 5]: 0})) == ([6], [0], True)
    assert r.choose(list(st), 4, 0, _no_queue, one, _space({e[4, 6]: 0, e[4, 5]: 1})) == ([5, 6], [0, 1], True)
    assert r.choose(list(st), 4, 0, _no_queue, one, _space({e[4, 6]: 20, e[4, 5]: 41})) == ([5, 6], [0, 1], True)
    assert r.choose(list(st), 4, 0, _no_queue, one, _space({e[4, 6]: 20, e[4, 5]: 40})) == ([6], [0], True)
    # between groups: router 0 to router 33 (group 8) through group 2
    d, mid = 33, 2
    n_min, n_val = r.min_path(0, d)[1], r.via(0, mid, d)[1]
    assert n_min != n_val
    hops, vcs, done = r.choose([d, mid, 0], 0, 0, _no_queue, one, _space({e[0, n_min]: 0}))
    assert done and hops == r.via(0, mid, d)[1:] and vcs == r.vcs_of(r.via(0, mid, d))
    hops, vcs, done = r.choose([d, mid, 0], 0, 0, _no_queue, one, _space({e[0, n_min]: 33}))
    assert done and hops == r.min_path(0, d)[1:] and vcs == [0, 0, 1][:len(hops)]


def test_adaptive_local_path_set_and_deadlock_check():
    r = merlin_dragonfly(_dragonfly(2), "adaptive-local")
    v = merlin_dragonfly(_dragonfly(2), "valiant")
    for s, d in [(0, 3), (0, 33), (9, 30)]:
        ps = r.path_set(s, d)
        assert ps[0] == (r.min_path(s, d), r.vcs_of(r.min_path(s, d)))
        # every valiant path, with valiant's VCs (VC 1 on an intermediate's second hop)
        assert {tuple(map(tuple, x)) for x in v.path_set(s, d)} <= {tuple(map(tuple, x)) for x in ps}
    assert check(r).acyclic
    with pytest.raises(ParameterError, match="queues at run time"):
        r.all_paths(0)  # chosen at run time: no fixed distribution to export
    assert check(merlin_dragonfly(_dragonfly(2), "min-a")).acyclic


def test_ugal_draws_for_every_packet_leaving_its_group():
    """route_ugal picks among the lowest weights with rng() % size even when one port has
    the lowest weight, so the source router's generator advances for every packet that
    leaves its group (not only on ties)."""
    r = merlin_dragonfly(_dragonfly(2), "ugal")
    calls = []

    def u32():
        calls.append(1)
        return 0

    r.choose([33, 2, 0], 0, 0, lambda ent, vc: 0, u32)  # 0 < 50: minimal, no tie
    assert len(calls) == 1
    r.choose([6, 5, 0], 4, 0, lambda ent, vc: 0, u32)  # inside the group: no draw
    assert len(calls) == 1


# ---------------------------------------------------------------- HyperX MIN-A
def test_mina_path_set_is_every_dimension_order():
    t = topogen.generate("hyperx", dims=(3, 3, 3))
    r = merlin_hyperx(t, "MIN-A")
    assert r.num_vcs == 3 and r.run_time_choices
    s, d = 0, 26  # (0,0,0) -> (2,2,2)
    ps = r.path_set(s, d)
    assert len(ps) == 6 and all(v == [0, 1, 2] for _, v in ps)
    # each path is minimal (every hop aligns one coordinate): 3 links, distinct
    assert len({tuple(p) for p, _ in ps}) == 6 and all(len(p) == 4 and p[-1] == d for p, _ in ps)
    assert len(r.path_set(0, 2)) == 1  # one unaligned dimension
    assert check(r).acyclic


def test_mina_choice_by_next_vc_queue():
    """routeMINA: weigh each unaligned dimension's minimal port by q(port, VC in + 1),
    VC 0 from the source; lowest dimension on a tie; the hop runs on that VC."""
    t = topogen.generate("hyperx", dims=(4, 4))
    r = merlin_hyperx(t, "MIN-A")
    e = r.entry_of
    st = r.start(0, 15, lambda: 0)
    seen = []

    def q(table):
        def f(ent, vc):
            seen.append(vc)
            return table.get((ent, vc), 0)
        return f

    hops, vcs, done = r.choose(st, 0, 0, q({}), None)
    assert hops == [3] and vcs == [0] and not done and set(seen) == {0}  # tie: dimension 0
    st = r.start(0, 15, lambda: 0)
    hops, vcs, done = r.choose(st, 0, 0, q({(e[0, 3], 0): 33}), None)
    assert hops == [12] and vcs == [0]  # dimension 0 busier: dimension 1
    seen.clear()
    hops, vcs, done = r.choose(st, 12, 0, q({(e[12, 15], 0): 66}), None)  # reads VC 1, not 0
    assert hops == [15] and vcs == [1] and done and set(seen) == {1}


def test_dor_nd_and_names():
    assert MERLIN_ROUTINGS["merlin-hyperx-min-a"] == ("hyperx", "MIN-A")
    assert MERLIN_ROUTINGS["merlin-dragonfly-adaptive-local"] == ("dragonfly", "adaptive-local")
    t = topogen.generate("hyperx", dims=(4, 4))
    assert route(t, None, "merlin-hyperx-min-a").num_vcs == 2
    # DOR-ND on width 1 is DOR: the native comparison runs topogen's dor beside it
    net = merlin_network("hyperx", 4, 2, "DOR-ND")
    assert net.routing == "dor" and net.params["algorithm"] == "DOR-ND"
    with pytest.raises(ParameterError, match="DOR-ND"):
        merlin_hyperx(t, "DOR-ND")  # DOR on width 1: topogen's dor, not a merlin routing object


# ---------------------------------------------------------------- fat tree adaptive
@pytest.mark.parametrize("k,n", [(2, 3), (4, 2), (3, 3)])
def test_fattree_is_merlins_tree_and_route(k, n):
    """merlin router (level L from the leaves, level id x) is topogen's switch
    (n - 1 - L) k^(n-1) + x: every up port lands where merlin's cabling
    (pymerlin-topo-fattree.py) lands, and route_deterministic walked over merlin's cabling
    (merlin_route) visits the same switches host pair by host pair."""
    from topogen.routing.merlin_adaptive import MerlinFattreeRouting

    t = topogen.generate("kary-ntree", k=k, n=n)
    r = route(t, None, "merlin-fattree-adaptive")
    assert isinstance(r, MerlinFattreeRouting) and r.num_vcs == 1 and r.run_time_choices and r.host_routes
    net = merlin_network("fattree", k, n, "adaptive")
    assert net.routing == "merlin-fattree-adaptive" and net.params["routing_alg"] == "adaptive"
    per = k ** (n - 1)

    def phi(m):
        return (n - 1 - m // per) * per + m % per

    for (m, port), (m2, _) in net.wiring.items():
        if port >= k:  # up ports follow the k down ports
            assert r.up(phi(m), port - k) == phi(m2)
    for s, d in itertools.permutations(range(k ** n), 2):
        if s // k != d // k:
            assert r.draw_path(s, d, None)[0] == [phi(h[0]) for h in merlin_route(net, s, d)]
    assert check(r).acyclic


def test_fattree_adaptive_choice():
    """fattree.cc: keep the natural up port unless its output buffer has less than half
    its size free; then the up port with the most free space, the natural one on a tie,
    else the first in port order.  Down routes are deterministic."""
    t = topogen.generate("kary-ntree", k=4, n=2)
    r = route(t, None, "merlin-fattree-adaptive")
    e = r.entry_of
    leaf = 4  # topogen's first leaf (roots are 0..3): hosts 0..3
    d = 9  # host 9: leaf 6, natural up port 9 % 4 = 1
    ups = [r.up(leaf, j) for j in range(4)]
    assert sorted(ups) == [0, 1, 2, 3] and r.natural(leaf, d) == 1

    def space(table):
        def f(ent, vc):
            assert vc == 0
            return table.get(ent, 66)
        f.size = 66
        return f

    def hop(table):
        return r.choose([d], leaf, 0, None, None, space(table))

    assert hop({}) == ([ups[1]], [0], False)
    assert hop({e[leaf, ups[1]]: 33}) == ([ups[1]], [0], False)  # 33 >= int(66 * 0.5): natural
    assert hop({e[leaf, ups[1]]: 32, e[leaf, ups[0]]: 0, e[leaf, ups[3]]: 40, e[leaf, ups[2]]: 40}) == (
        [ups[2]], [0], False)  # the most free space, the first in port order on a tie
    assert hop({e[leaf, ups[1]]: 0, e[leaf, ups[0]]: 0, e[leaf, ups[2]]: 0, e[leaf, ups[3]]: 0}) == (
        [ups[1]], [0], False)  # nothing better: natural
    # at a root the route goes down to the destination's leaf, whatever the queues
    assert r.choose([d], ups[3], 0, None, None, space({})) == ([6], [0], True)
    # every up port may be taken: four paths between two leaves
    assert sorted(p[1] for p, _ in r.path_set(4, 6)) == [0, 1, 2, 3]


# ---------------------------------------------------------------- HyperX VDAL
def test_vdal_paths_follow_the_rule():
    """routeVDAL on 2n VCs: hop h on VC h; any link of an unaligned dimension, but not a
    second non-minimal hop in the dimension just routed, and only minimal links once the
    VCs left equal the unaligned dimensions."""
    t = topogen.generate("hyperx", dims=(4, 4))
    r = merlin_hyperx(t, "VDAL")
    assert r.num_vcs == 4 and r.run_time_choices
    # one unaligned dimension: direct, or through either other router of that row
    assert sorted(p for p, _ in r.path_set(0, 1)) == [[0, 1], [0, 2, 1], [0, 3, 1]]
    for s, d in [(0, 15), (5, 6), (3, 12)]:
        ps = r.path_set(s, d)
        assert len({tuple(p) for p, _ in ps}) == len(ps)
        for sw, vcs in ps:
            assert sw[0] == s and sw[-1] == d and vcs == list(range(len(sw) - 1)) and len(sw) - 1 <= 4
            locs = [r.loc(v) for v in sw]
            last = None
            for x, y in zip(locs, locs[1:]):
                dims = [i for i in range(2) if x[i] != y[i]]
                assert len(dims) == 1  # one dimension per hop
                i = dims[0]
                assert x[i] != r.loc(d)[i]  # never in an aligned dimension
                if y[i] != r.loc(d)[i]:  # non-minimal: not twice in a row in one dimension
                    assert i != last
                last = i
    assert check(r).acyclic


def test_vdal_choice_draws_among_ties():
    t = topogen.generate("hyperx", dims=(4, 4))
    r = merlin_hyperx(t, "VDAL")
    e = r.entry_of
    draws = []

    def u32(value):
        def f():
            draws.append(value)
            return value
        return f

    # empty queues at router 0 toward 15: the two minimal links tie (weight 0), the
    # non-minimal ones weigh 1; the draw picks among the two minimal ones in port order
    st = r.start(0, 15, None)
    assert r.choose(st, 0, 0, lambda ent, vc: 0, u32(1)) == ([12], [0], False) and st == [15, 1, 1]
    st = r.start(0, 15, None)
    assert r.choose(st, 0, 0, lambda ent, vc: 0, u32(2)) == ([3], [0], False) and st == [15, 0, 1]
    # both minimal links busy (33 flits on VC 0): a non-minimal link (1) wins; 4 of them tie
    st = r.start(0, 15, None)
    busy = {e[0, 3]: 33, e[0, 12]: 33}
    hops, vcs, done = r.choose(st, 0, 0, lambda ent, vc: busy.get(ent, 0), u32(3))
    assert hops == [8] and vcs == [0] and st == [15, 1, 1]  # candidates 1, 2 (dim 0), 4, 8 (dim 1)
    # two VCs left and two unaligned dimensions: minimal only, no draw, lowest dimension on a tie
    n = len(draws)
    st = [15, 1, 2]
    assert r.choose(st, 0, 2, lambda ent, vc: 0, u32(1)) == ([3], [2], False) and len(draws) == n


def test_ugal_draws_again_entering_the_intermediate_group():
    """route_ugal at the router a valiant packet enters the intermediate group at (a
    global port, not the destination group) picks among the routes to the destination
    group with that router's generator: the route stops there, and the rest is given
    with one draw, on the VC raised by the global link."""
    r = merlin_dragonfly(_dragonfly(2), "ugal")
    e = r.entry_of
    d, mid = 33, 2
    st = [d, mid, 0]
    hops, vcs, done = r.choose(st, 0, 0, lambda ent, vc: 100 if ent == e[0, 3] else 0, lambda: 0)
    assert not done and st[2] == 2 and r.group_of[hops[-1]] == mid and vcs == [0] * len(hops)
    x = hops[-1]
    calls = []
    rest, rvcs, done = r.choose(st, x, 0, None, lambda: calls.append(1) or 7)
    full = r.via(0, mid, d)
    assert done and calls == [1] and [0] + hops + rest == full and vcs + rvcs == r.vcs_of(full)
    assert check(r).acyclic
