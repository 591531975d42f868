"""min-adapt: BookSim's min_adapt_torus (routefunc.cpp) on topogen's torus.  The offers at
hand-chosen routers are read off BookSim's code; the escape's CDG is acyclic (and cyclic
without the dateline); the flit-level engine requests VC 3 first, the escape only when
every productive VC 3 is held."""

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.routing import check, route
from topogen.routing.torus_min_adapt import TorusMinAdapt
from topogen.sim import SimConfig, simulate
from topogen.sim._compiled import engine_for
from topogen.sim.network import Network


def _torus(k, n=2):
    return registry.generate("torus", dims=(k,) * n, hosts_per_switch=1)


def _cfg(**kw):
    base = dict(num_vcs=4, vc_buf_size=66, packet_size=33, flow_control="wormhole", engine="python",
                port_order="booksim-native", routing_delay=1, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1,
                link_latency=2, injection_latency=1, ejection_latency=1, injection_overhead=1)
    base.update(kw)
    return SimConfig(**base)


class _NoDateline(TorusMinAdapt):
    """The escape without its dateline: every ring segment on VC 0."""

    def partition(self, plus, cur, dest):
        return 0


# ------------------------------------------------------------ offers, read off routefunc.cpp
def test_offers_at_hand_chosen_routers():
    r = route(_torus(4), algorithm="min-adapt", seed=1)
    one, zero = (lambda: 1), (lambda: 0)
    # router 3 = (3, 0) toward 5 = (1, 1), just injected (input port 2n = 4): dimension 0
    # is a tie (distance 2 = k/2): the adaptive hop goes - (port 1, dist2 > 0 fails),
    # dimension 1 goes + (port 2), both on VC 3 with priority 1; the escape turns into
    # dimension 0 as if injected: the drawn direction (1: + = port 0, 0: - = port 1) and
    # partition 1 (cur 3 > dest 1) -> VC 1, priority 0
    assert r.offers(3, 5, 4, 0, 0, one) == ([(1, 3, 1), (2, 3, 1), (0, 1, 0)], 1)
    assert r.offers(3, 5, 4, 0, 0, zero) == ([(1, 3, 1), (2, 3, 1), (1, 1, 0)], 1)
    # the same head arriving on VC 3 (input port 3 = from the + neighbour in dimension 1)
    assert r.offers(3, 5, 3, 3, 0, one)[0] == [(1, 3, 1), (2, 3, 1), (0, 1, 0)]
    # on the escape (VC 0) at router 1 = (1, 0), arrived moving + in dimension 0 (input
    # port 1, from the - neighbour) toward 3 = (3, 0): continues straight (port 1 ^ 1 = 0)
    # with the partition it had (ph kept), no adaptive offer
    assert r.offers(1, 3, 1, 0, 0, one) == ([(0, 0, 0)], 0)
    assert r.offers(1, 3, 1, 1, 1, one) == ([(0, 1, 0)], 1)
    # on the escape at router 2 = (2, 0), arrived in dimension 0, toward 6 = (2, 1):
    # turns into dimension 1 (+, port 2), new partition 0 (cur 0 < dest 1)
    assert r.offers(2, 6, 1, 1, 1, one) == ([(2, 0, 0)], 0)
    # escape toward a lower coordinate going -: partition 1 (dir 1 and dest < cur)
    assert r.offers(2, 1, 4, 0, 0, one) == ([(1, 3, 1), (1, 1, 0)], 1)
    # at the destination: the ejection port 2n on every VC
    assert r.offers(7, 7, 2, 3, 0, one) == ([(4, x, 0) for x in range(4)], 0)


def test_ports_are_kncube_numbers():
    t = _torus(4)
    r = route(t, algorithm="min-adapt", seed=1)
    ind = r.view.indices
    for v in range(16):
        x, y = v % 4, v // 4
        want = [(x + 1) % 4 + 4 * y, (x - 1) % 4 + 4 * y, x + 4 * ((y + 1) % 4), x + 4 * ((y - 1) % 4)]
        assert [int(ind[e]) for e in r.out_entry[v]] == want
        # the head of output 2d arrives on input 2d + 1 of the neighbour and vice versa
        assert [int(r.in_port[e]) for e in r.out_entry[v]] == [1, 0, 3, 2]


def test_refusals():
    with pytest.raises(ParameterError, match="torus"):
        route(registry.generate("mesh", dims=(4, 4), hosts_per_switch=1), algorithm="min-adapt")
    with pytest.raises(ParameterError, match="4 routing VCs"):
        route(_torus(4), algorithm="min-adapt", vcs=2)
    with pytest.raises(ParameterError, match="wormhole"):
        Network(route(_torus(4), algorithm="min-adapt"), _cfg(flow_control="vct"))


# ------------------------------------------------------------ the escape's CDG
def _cycle(routing):
    g = nx.DiGraph()
    for _, a, b in routing.dependency_chunks():
        g.add_edges_from(zip(a.tolist(), b.tolist()))
    try:
        return nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return None


@pytest.mark.parametrize("k,n", [(3, 2), (4, 2), (5, 2), (4, 3)])
def test_escape_cdg_is_acyclic(k, n):
    r = route(_torus(k, n), algorithm="min-adapt", seed=1)
    rep = check(r)
    assert rep.acyclic
    assert _cycle(r) is None
    # the escape uses both dateline VCs and nothing else
    used = np.concatenate([c for c, _, _ in r.dependency_chunks()])
    assert set((used % 4).tolist()) == {0, 1}


@pytest.mark.parametrize("k", [4, 5])
def test_escape_without_dateline_is_cyclic(k):
    broken = _NoDateline(_torus(k))
    assert not check(broken).acyclic
    cyc = _cycle(broken)
    assert cyc is not None
    # the cycle runs around one ring: its channels all lie in one dimension
    heads = {int(broken.view.indices[a // 4]) for a, _ in cyc}
    assert len(heads) >= k


def test_escape_routes_are_dimension_order_with_the_fixed_dateline():
    """Independent walk: from every switch to every destination the escape corrects the
    dimensions in increasing order the short way round, a segment on VC 1 exactly when
    its start coordinate exceeds its end coordinate."""
    k = 5
    r = route(_torus(k), algorithm="min-adapt", seed=1)
    for s in range(k * k):
        for d in range(k * k):
            if s == d:
                continue
            sw, vcs = r.escape_walk(s, d, ())
            want_sw, want_vc = [s], []
            cur = [s % k, s // k]
            for dim in (0, 1):
                c, t = cur[dim], (d % k, d // k)[dim]
                if c == t:
                    continue
                step = 1 if (t - c) % k <= k // 2 else -1
                while cur[dim] != t:
                    cur[dim] = (cur[dim] + step) % k
                    want_sw.append(cur[0] + k * cur[1])
                    want_vc.append(1 if c > t else 0)
            assert (sw, vcs) == (want_sw, want_vc), (s, d)


# ------------------------------------------------------------ the engine's choice
def _engine(k=4):
    r = route(_torus(k), algorithm="min-adapt", seed=1)
    net = Network(r, _cfg(engine="compiled"))
    return r, engine_for(net, np.random.default_rng(5))


class _Head:
    def __init__(self, dst):
        self.dst = dst
        self.ports = (0,)
        self.vlo = (0,)


def test_engine_requests_vc3_first_and_the_escape_only_when_every_vc3_is_held():
    r, eng = _engine()
    assert eng.engine_name == "python" and eng.min_adapt
    assert "wormhole" in eng.fallback  # the compiled engine does not run it: recorded
    V = eng.V
    b = (eng.inj_base + 3) * V + 2  # host 3's injection buffer, VC 2
    nv = eng.sw_ports[3] * V
    vc3 = [int(r.out_entry[3, p]) * V + 3 for p in (1, 2)]  # ports 1 (-, dim 0) and 2 (+, dim 1)
    pkt = _Head(5)
    got = eng._min_adapt_pick(b, pkt, 1, 0, nv)
    assert got in vc3
    # the round-robin pointer decides between the two VC 3s: just past the first, the second
    p0 = (eng.out_local[vc3[0] // V] * V + 3 + 1) % nv
    assert eng._min_adapt_pick(b, pkt, 1, p0, nv) == vc3[1]
    eng.owner[vc3[0]] = 999
    assert eng._min_adapt_pick(b, pkt, 1, 0, nv) == vc3[1]
    eng.owner[vc3[1]] = 999
    esc = eng._min_adapt_pick(b, pkt, 1, 0, nv)
    # the escape: dimension 0 (a tie: port 0 or 1 as drawn once at this router), VC 1
    assert esc % V == 1 and esc // V in (int(r.out_entry[3, 0]), int(r.out_entry[3, 1]))
    assert eng._min_adapt_pick(b, pkt, 1, 17, nv) == esc  # the offers are not drawn again
    eng.owner[esc] = 999
    assert eng._min_adapt_pick(b, pkt, 1, 0, nv) == -1


def test_routes_are_minimal_and_the_escape_is_used_under_load():
    """A burst of 600 packets on the 4x4 torus: every one delivered, each on a contiguous
    minimal route; VC 3 and the escape VCs both carry hops, and a packet that took the
    escape never returns to VC 3."""
    r, eng = _engine()
    rng = np.random.default_rng(11)
    src = rng.integers(0, 16, 600)
    dst = rng.integers(0, 16, 600)
    got = []
    eng.on_deliver = lambda pkt, tail: got.append(pkt)
    for i in range(600):
        eng.inject(i // 8, int(src[i]), int(dst[i]))
    eng.run(float("inf"), stop_when_idle=True)
    assert not eng.deadlocked and len(got) == 600
    ring = [min(a, 4 - a) for a in range(4)]
    ind = r.view.indices
    vcs_used = set()
    for pkt in got:
        s, d = pkt.src, pkt.dst  # one host per switch: host i on switch i
        net_hops = [i for i in range(1, len(pkt.ports)) if pkt.ports[i] < eng.ej_base]
        hops = [int(pkt.ports[i]) for i in net_hops]
        vcs = [int(pkt.vlo[i]) for i in net_hops]
        assert len(hops) == ring[(d % 4 - s % 4) % 4] + ring[(d // 4 - s // 4) % 4]
        at = s
        for e in hops:
            assert r.view.indptr[at] <= e < r.view.indptr[at + 1]
            at = int(ind[e])
        assert at == d
        assert all(v in (0, 1, 3) for v in vcs)
        if any(v < 2 for v in vcs):
            first = next(i for i, v in enumerate(vcs) if v < 2)
            assert all(v < 2 for v in vcs[first:])
        vcs_used.update(vcs)
    assert vcs_used == {0, 1, 3}
