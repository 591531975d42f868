"""UGAL-L / UGAL-G in the reference simulator, and the worst-case traffic patterns."""

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.generators.dragonfly import dragonfly
from topogen.generators.slimfly import slimfly
from topogen.routing import hop_indexed, nearest, route, ugal
from topogen.sim import SimConfig, Traffic, simulate
from topogen.sim.measure import run_fixed
from topogen.sim.model import Engine, Network

_FAST = dict(packet_size=2, vc_buf_size=8, link_latency=1, num_vcs=4)


@pytest.fixture(scope="module")
def sf3():
    return slimfly(3)


def _engine(routing, **kw):
    net = Network(routing, SimConfig(**{**_FAST, **kw}))
    return net, Engine(net, np.random.default_rng(0))


@pytest.mark.parametrize("variant", ["local", "global"])
def test_choice_follows_the_queues(sf3, variant):
    r = ugal(nearest(sf3), variant, candidates=4)
    net, eng = _engine(r)
    s, d = 0, next(d for d in range(1, 18) if len(r.base.path(0, d)[0]) == 3)
    h0, h1 = int(net.host_offset[s]), int(net.host_offset[d])

    def choose():
        eng._create_ugal(0, h0, h1)
        pkt = eng.srcq[h0].pop()
        eng.in_source -= 1
        eng._choose_ugal(pkt)
        return pkt

    pkt = choose()  # empty network: MIN, on VCs 0, 1
    mn = eng._ugal_route(s, d)
    assert pkt.ports[1:-1] == mn and pkt.links == 2 and pkt.vlo == (0, 0, 1)
    assert pkt.ports[-1] == net.ej_base + h1
    # fill the buffers behind MIN's first link: a Valiant path that avoids it wins
    V = eng.V
    first = mn[0] if variant == "local" else mn[1]
    for b in range(first * V, first * V + V):
        eng.credits[b] = 0
    for _ in range(20):
        pkt = choose()
        assert pkt.ports[1:-1] != mn and first not in pkt.ports[1:-1]
        assert pkt.vlo == tuple([0] + list(range(pkt.links)))  # VC = hop index
        assert pkt.links <= 4
    assert eng.ugal_choices[0] == 1 and sum(eng.ugal_choices) == 21


def test_low_load_routes_minimally(sf3):
    kw = dict(load=0.02, sample_period=300, seed=4, **_FAST)
    m = simulate(hop_indexed(nearest(sf3)), **kw)
    for alg in ("ugal-l", "ugal-g"):
        u = simulate(route(sf3, None, alg, seed=1), **kw)
        assert u["status"] == "completed"
        # all-VAL would add ~1.3 hops; a few packets detour around transient queues
        assert u["hops_avg"] < m["hops_avg"] + 0.3


def test_worst_case_ugal_sustains_more_than_min_and_uniform_stays_near_min(sf3):
    kw = dict(load=0.6, seed=2, **_FAST)
    out = {}
    for tr in ("worstcase", "uniform"):
        for alg in ("hop", "ugal-l", "ugal-g"):
            r = route(sf3, None, alg, seed=1, base="nr")
            res = run_fixed(r, 600, traffic=tr, **kw)
            assert not res["deadlocked"]
            out[tr, alg] = res["delivered"]
    for alg in ("ugal-l", "ugal-g"):
        assert out["worstcase", alg] > 1.5 * out["worstcase", "hop"]
        assert out["uniform", alg] > 0.8 * out["uniform", "hop"]


def test_valiant_fast_path_draws_like_the_routing(sf3):
    from topogen.routing import valiant

    v = valiant(nearest(sf3), seed=1)
    net = Network(v, SimConfig(**_FAST))
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    for s, d in [(0, 5), (3, 17), (9, 2), (4, 4)]:
        ent, vlo = net.route(s, d, a)
        sw, vcs = v.path(s, d, b)
        assert ent == tuple(int(e) for e in v.view.entry(sw[:-1], sw[1:]))
        assert vlo == tuple(int(x) for x in vcs)


def test_group_shift_on_a_dragonfly():
    t = dragonfly(4, 2, 2)  # 9 groups of 4 routers x 2 hosts
    r = route(t, None, "ugal-l")
    for name in ("groupshift", "adversarial", "group_shift"):
        tr = Traffic(name, t.num_hosts, np.random.default_rng(0), routing=r)
        assert tr.name == "groupshift" and len(tr.active) == 72
        d = tr.destinations(tr.active, np.random.default_rng(1))
        assert sorted(d.tolist()) == list(range(72))
        assert ((d // 8) == (tr.active // 8 + 1) % 9).all() and ((d % 8) == (tr.active % 8)).all()


def test_worst_case_is_the_same_for_min_val_and_ugal(sf3):
    perms = []
    for alg in ("nr", "valiant", "ugal-l", "ugal-g"):
        r = route(sf3, None, alg, seed=3)
        tr = Traffic("adversarial", sf3.num_hosts, np.random.default_rng(5), routing=r)
        assert tr.name == "worstcase"
        perms.append(tr.destinations(tr.active, np.random.default_rng(0)).tolist())
    assert all(p == perms[0] for p in perms) and len(perms[0]) > 0


def test_worst_case_errors(sf3):
    t = torus((4, 4))
    with pytest.raises(ParameterError, match="adversarial traffic is defined for .*not for 'torus'"):
        Traffic("adversarial", t.num_hosts, np.random.default_rng(0), routing=nearest(t))
    with pytest.raises(ParameterError, match="groupshift traffic needs Dragonfly groups"):
        Traffic("groupshift", sf3.num_hosts, np.random.default_rng(0), routing=nearest(sf3))
    with pytest.raises(ParameterError, match="at least 2 Dragonfly groups"):
        t1 = dragonfly(2, 1, 1, groups=1)
        Traffic("groupshift", t1.num_hosts, np.random.default_rng(0), routing=nearest(t1))
    with pytest.raises(ParameterError, match="needs 4 VCs"):
        Network(ugal(nearest(sf3)), SimConfig(num_vcs=2, packet_size=2, vc_buf_size=8))
