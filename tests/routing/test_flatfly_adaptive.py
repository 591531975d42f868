"""BookSim2's credit-adaptive flatfly routings (flatfly-adaptive-xyyx, flatfly-ugal,
flatfly-ugal-xyyx): the choice rules on hand-set credit states in the engine, routes and
VC ranges against an independent hop-by-hop replay of flatfly_onchip.cpp's routing
functions through BookSim's channel table, and the channel dependency graph against
every route any choice can take."""

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import flatfly_channels
from topogen.routing import check, route
from topogen.routing.flatfly_adaptive import choose_order, ugal_intermediate, ugal_minimal
from topogen.sim import SimConfig
from topogen.sim._events import _Packet
from topogen.sim.model import Engine
from topogen.sim.network import Network

KINDS = ("flatfly-adaptive-xyyx", "flatfly-ugal", "flatfly-ugal-xyyx")


def _ff(k, n=2, c=1):
    return registry.generate("flattened-butterfly", k=k, n=n, convention="n-dim", hosts_per_switch=c)


def _outport(dest_r, rid, k, yx=False):
    """flatfly_outport / flatfly_outport_yx (2-D) without the node ports."""
    for d in ((1, 0) if yx else (0, 1)):
        did, sid = (dest_r // k ** d) % k, (rid // k ** d) % k
        if did != sid:
            return (k - 1) * d - 1 + (did if did > sid else did + 1)
    raise AssertionError("same router")


def _bs_walk(kind, s, d, mid, yx, V, k):
    """Replay BookSim's routing function router by router: ``[(next router, vcBegin,
    vcEnd)]`` per network hop, for the source's decision ``mid`` (None: minimal; else the
    intermediate router) and order ``yx`` (adaptive: the credit comparison's result;
    ugal_xyyx: the draw).  The flit's state (ph, intm, vc) carries from hop to hop."""
    to = {(u, j): w for u, j, w in flatfly_channels(k).values()}
    cur, first, ph, intm, vc, hops = s, True, None, None, None, []
    while True:
        vb, ve = 0, V - 1
        if kind == "flatfly-adaptive-xyyx":
            if cur == d:
                return hops
            avail = (ve - vb + 1) // 2
            xy = (not yx) if first else vc < vb + avail
            port = _outport(d, cur, k, yx=not xy)
            if xy:
                ve -= avail
            else:
                vb += avail
        else:
            if first:
                ph = 0
            dest = intm if ph == 1 else d
            if dest == cur:
                if ph == 1:
                    ph, dest = 2, d
                else:
                    return hops
            xa = (ve - vb + 1) // 2
            xy = True
            if kind == "flatfly-ugal-xyyx":
                xy = (not yx) if first else vc < vb + xa
            if ph == 0:
                if mid is None:
                    ph = 2
                else:
                    ph, intm, dest = 1, mid, mid
                    if dest == cur:
                        ph, dest = 2, d
            if dest == cur:  # ejection (out_port < gC): every VC
                return hops
            port = _outport(dest, cur, k, yx=not xy)
            if kind == "flatfly-ugal-xyyx":
                if xy:
                    ve -= xa
                else:
                    vb += xa
                pa = xa // 2
            else:
                pa = xa
            if ph == 1:
                ve -= pa
            else:
                vb += pa
        cur = to[cur, port]
        hops.append((cur, vb, ve))
        vc, first = ve, False  # any VC of the range reads the same order back


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("V", [4, 8])
def test_routes_and_vc_ranges_are_booksims(kind, V):
    k = 3 if V == 8 else 4
    r = route(_ff(k), None, kind, seed=1)
    kc = V // r.num_vcs
    mids = [None] if kind == "flatfly-adaptive-xyyx" else [None] + list(range(k * k))
    checked = 0
    for s, d in itertools.product(range(k * k), repeat=2):
        if s == d:
            continue
        for yx, mid in itertools.product((False, True), mids):
            if kind == "flatfly-ugal" and yx:
                continue
            sw, cls = r.route_of(s, d, "yx" if yx else "xy", mid)
            got = [(int(w), int(c) * kc, int(c) * kc + kc - 1) for w, c in zip(sw[1:], cls)]
            assert got == _bs_walk(kind, s, d, mid, yx, V, k), (kind, s, d, mid, yx)
            checked += 1
    assert checked > 100


def test_choose_order_prefers_fewer_used_credits():
    assert choose_order(3, 2, 1) == "yx" and choose_order(3, 2, 0) == "yx"
    assert choose_order(2, 3, 0) == "xy" and choose_order(2, 3, 1) == "xy"
    assert choose_order(5, 5, 1) == "xy" and choose_order(5, 5, 0) == "yx"


def test_ugal_threshold_is_two_and_inclusive():
    # 1 hop minimal, 2 through the intermediate, 1 flit used toward it: minimal up to 4
    assert ugal_minimal(1, 4, 2, 1)  # 4 <= 2 + 2
    assert not ugal_minimal(1, 5, 2, 1)  # 5 > 4
    assert ugal_minimal(2, 3, 4, 1) and not ugal_minimal(2, 4, 4, 1)
    assert ugal_minimal(2, 10 ** 6, 2, None)  # intermediate on the source router


def test_intermediate_keeps_the_shared_coordinates():
    seq = iter([3, 1])
    assert ugal_intermediate((4, 4), 0, 5, lambda k: next(seq)) == 3 + 4 * 1  # both differ
    seq = iter([2])
    assert ugal_intermediate((4, 4), 4, 5, lambda k: next(seq)) == 2 + 4 * 1  # same row: y kept
    seq = iter([3])
    assert ugal_intermediate((4, 4), 1, 13, lambda k: next(seq)) == 1 + 4 * 3  # same column: x kept


# ------------------------------------------------------------ the engine on hand-set credits
def _engine(kind, k=4, V=4):
    r = route(_ff(k), None, kind, seed=1)
    net = Network(r, SimConfig(num_vcs=V))
    eng = Engine(net, np.random.default_rng(1))
    return r, net, eng


def _set_used(eng, net, u, w, used):
    """Port u -> w of the engine holds ``used`` flits (credits out) over its VCs."""
    o = int(net.routing.view.entry(np.array([u]), np.array([w]))[0])
    V = eng.V
    eng.credits[o * V] -= used
    return o


def _choose(eng, src, dst):
    p = _Packet(0, src, dst, 0, (eng.inj_base + src,), (0,), -1, False)
    p.hop = 1
    eng._choose_ugal(p)
    sw = [src] + [int(net_w) for net_w in _switches(eng, p.ports[1:-1])]
    assert p.ports[-1] == eng.ej_base + dst and p.links == len(p.ports) - 2
    return sw, list(p.vlo[1:])


def _switches(eng, ports):
    ind = eng.net.indices
    return [int(ind[o]) for o in ports]


def test_engine_adaptive_xyyx_takes_the_port_with_fewer_used_credits():
    r, net, eng = _engine("flatfly-adaptive-xyyx")
    assert eng.ffly and eng.fallback is None
    _set_used(eng, net, 0, 1, 3)  # X-first port of 0 -> 5
    _set_used(eng, net, 0, 4, 2)  # Y-first port
    assert _choose(eng, 0, 5) == ([0, 4, 5], [2, 2])  # Y first on the upper half
    _set_used(eng, net, 0, 4, 2)  # now 4 on the Y-first port
    assert _choose(eng, 0, 5) == ([0, 1, 5], [0, 0])
    _set_used(eng, net, 0, 1, 1)  # a tie (4, 4): drawn
    seen = {tuple(_choose(eng, 0, 5)[0]) for _ in range(40)}
    assert seen == {(0, 1, 5), (0, 4, 5)}


def test_engine_ugal_compares_hops_times_used_credits_with_threshold_two():
    r, net, eng = _engine("flatfly-ugal")
    # 0 -> 1 (same row): intermediate x = 3 (draw 0.8 of 4), 1 + 1 hops through it
    _set_used(eng, net, 0, 3, 1)
    _set_used(eng, net, 0, 1, 4)  # 1 x 4 <= 2 x 1 + 2: minimal, phase 2 on the upper half
    eng.ffly_draws[:] = [0.8]
    assert _choose(eng, 0, 1) == ([0, 1], [2])
    _set_used(eng, net, 0, 1, 1)  # 5 > 4: through router 3, lower half then upper half
    eng.ffly_draws[:] = [0.8]
    assert _choose(eng, 0, 1) == ([0, 3, 1], [0, 2])
    # 0 -> 5: intermediate (2, 3) = router 14 (draws popped x first), 2 + 2 hops
    eng.ffly_draws[:] = [0.9, 0.6]
    _set_used(eng, net, 0, 2, 1)  # toward 14, X first
    assert _choose(eng, 0, 5) == ([0, 2, 14, 13, 5], [0, 0, 2, 2])  # 2 x 5 > 4 x 1 + 2
    eng.ffly_draws[:] = [0.9, 0.6]
    _set_used(eng, net, 0, 2, 1)  # 2 x 5 <= 4 x 2 + 2
    assert _choose(eng, 0, 5) == ([0, 1, 5], [2, 2])
    # intermediate on the source router: minimal whatever the credits
    eng.ffly_draws[:] = [0.1, 0.1]
    _set_used(eng, net, 0, 1, 50)
    assert _choose(eng, 0, 5) == ([0, 1, 5], [2, 2])


def test_engine_ugal_xyyx_compares_the_drawn_orders_ports():
    r, net, eng = _engine("flatfly-ugal-xyyx")
    # order drawn first (0.2 -> 0: Y first), then the intermediate (2, 3) = 14
    eng.ffly_draws[:] = [0.9, 0.6, 0.2]
    _set_used(eng, net, 0, 4, 9)  # Y-first port toward 5
    _set_used(eng, net, 0, 12, 1)  # Y-first port toward 14
    assert _choose(eng, 0, 5) == ([0, 12, 14, 6, 5], [2, 2, 3, 3])  # Y first both segments
    eng.ffly_draws[:] = [0.9, 0.6, 0.7]  # X first: its ports are idle -> minimal
    assert _choose(eng, 0, 5) == ([0, 1, 5], [1, 1])


def test_compiled_engine_falls_back_with_the_reason():
    from topogen.sim._compiled import engine_for

    r = route(_ff(3), None, "flatfly-ugal", seed=1)
    eng = engine_for(Network(r, SimConfig(num_vcs=4, engine="compiled")), np.random.default_rng(1))
    assert eng.engine_name == "python" and "flatfly-ugal" in eng.fallback


# ------------------------------------------------------------ deadlock
def _all_routes(r):
    n = r.num_switches
    for s, d in itertools.product(range(n), repeat=2):
        if s == d:
            continue
        for order in ("xy", "yx"):
            if r.kind == "flatfly-ugal" and order == "yx":
                continue
            mids = [None] if r.kind == "flatfly-adaptive-xyyx" else [None] + list(range(n))
            for m in mids:
                yield r.route_of(s, d, order, m)


def _brute_deps(r, one_vc=False):
    v = r.num_vcs
    deps = set()
    for sw, vcs in _all_routes(r):
        e = r.view.entry(sw[:-1], sw[1:]).astype(np.int64)
        ch = e * v + (0 if one_vc else vcs.astype(np.int64))
        deps.update(zip(ch[:-1].tolist(), ch[1:].tolist()))
    return deps


@pytest.mark.parametrize("kind", KINDS)
def test_cdg_covers_every_route_and_is_acyclic(kind):
    r = route(_ff(3), None, kind, seed=1)
    (_, a, b), = list(r.dependency_chunks())
    superset = set(zip(a.tolist(), b.tolist()))
    assert _brute_deps(r) <= superset
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == r.num_vcs
    assert nx.is_directed_acyclic_graph(nx.DiGraph(list(superset)))
    # the VC classes make it deadlock-free: the same routes on one VC close a cycle
    assert not nx.is_directed_acyclic_graph(nx.DiGraph(list(_brute_deps(r, one_vc=True))))


def test_refuses_other_networks_vc_counts_and_routers():
    with pytest.raises(ParameterError, match="flattened butterfly"):
        route(registry.generate("torus", dims=(4, 4)), None, "flatfly-ugal")
    with pytest.raises(ParameterError, match="2 routing VCs"):
        route(_ff(3), None, "flatfly-ugal", vcs=4)
    with pytest.raises(ParameterError, match="4 routing VCs"):
        route(_ff(3), None, "flatfly-ugal-xyyx", vcs=2)
    r = route(_ff(3), None, "flatfly-adaptive-xyyx")
    with pytest.raises(ParameterError, match="input-queued"):
        Engine(Network(r, SimConfig(router="output-buffered")), np.random.default_rng(1))


@pytest.mark.parametrize("fc", ["vct", "wormhole"])
def test_the_reference_simulator_runs_all_three(fc):
    from topogen.sim import simulate

    t = _ff(3, c=2)
    for kind in KINDS:
        r = route(t, None, kind, seed=1)
        res = simulate(r, load=0.3, load_unit="flits", seed=1,
                       config=SimConfig(num_vcs=4, packet_size=4, flow_control=fc, engine="auto"))
        assert res["status"] == "completed", res
