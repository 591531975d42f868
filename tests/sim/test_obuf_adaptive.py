"""SST merlin's randomised and adaptive routings on the output-buffered router
(topogen/sim/_obuf_adaptive.py): the engine it takes, the draws, the crossbar's hook that
lets the routing choose from the output queues, and whole runs."""

import numpy as np
import pytest

import topogen
from topogen.errors import ParameterError
from topogen.routing import route
from topogen.routing.merlin_adaptive import XorShift
from topogen.sim import SimConfig, run_trace
from topogen.sim._obuf import OutputBufferedEngine
from topogen.sim._obuf_adaptive import MerlinChoiceEngine


def _cfg(**kw):
    base = dict(router="output-buffered", obuf_vcs="routing", packet_size=8, vc_buf_size=16, link_latency=1)
    base.update(kw)
    return SimConfig(**base)


def _dragonfly(k=1):
    return topogen.generate("dragonfly", a=2 * k, p=k, h=k, arrangement="absolute", global_port_order="router")


def _uniform(n, count, span, seed=3):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, count)
    dst = (src + rng.integers(1, n, count)) % n
    return np.c_[np.sort(rng.integers(0, span, count)), src, dst]


@pytest.fixture
def record_paths(monkeypatch):
    """Keep (ports, vcs) of every delivered packet on the engine (``engine.paths``)."""
    orig = MerlinChoiceEngine._deliver

    def deliver(self, pkt, tail):
        self.__dict__.setdefault("paths", []).append(tuple(pkt.ports))
        self.__dict__.setdefault("vcs", []).append(tuple(v // self.kcls for v in pkt.vlo[1:pkt.links + 1]))
        orig(self, pkt, tail)

    monkeypatch.setattr(MerlinChoiceEngine, "_deliver", deliver)


@pytest.mark.parametrize("name,topo", [("merlin-dragonfly-valiant", _dragonfly(2)),
                                       ("merlin-dragonfly-ugal", _dragonfly(2)),
                                       ("merlin-hyperx-valiant", topogen.generate("hyperx", dims=(4, 4))),
                                       ("merlin-hyperx-doal", topogen.generate("hyperx", dims=(4, 4)))])
def test_loaded_runs_deliver_on_routing_paths(name, topo, record_paths):
    r = route(topo, None, name, seed=2)
    pk = _uniform(topo.num_hosts, 1500, 2500)
    tr = run_trace(r, pk, config=_cfg(num_vcs=r.num_vcs), seed=5)
    eng = tr.engine
    assert isinstance(eng, MerlinChoiceEngine) and len(tr.pid) == len(pk) and not tr.deadlocked
    assert eng.credits_restored() and eng.idle()
    hs = tr.network.host_switch
    view = r.view
    for ports, vcs in zip(eng.paths, eng.vcs):
        s = int(hs[ports[0] - tr.network.inj_base])
        d = int(hs[ports[-1] - tr.network.ej_base])
        sw = [s] + [int(view.indices[e]) for e in ports[1:-1]]
        assert sw[-1] == d
        if s != d or r.routes_self:
            # (one switch sequence may come with two VC sequences: a hyperx intermediate on the DOR path)
            assert (tuple(sw), vcs) in {(tuple(p), tuple(v)) for p, v in r.path_set(s, d)}


def test_table_routings_keep_the_plain_engine():
    t = topogen.generate("hyperx", dims=(3, 3))
    tr = run_trace(route(t, None, "dor"), [(0, 0, 5)], config=_cfg())
    assert type(tr.engine) is OutputBufferedEngine


def test_choices_read_the_output_queues(monkeypatch, record_paths):
    """DOAL takes the direct link on empty queues and a detour on VC 1 when the direct
    link's queue reads full: the engine asks the routing at every router."""
    t = topogen.generate("hyperx", dims=(4, 4))
    r = route(t, None, "merlin-hyperx-doal")
    pk = [(0, 0, 15), (400, 5, 10)]
    tr = run_trace(r, pk, config=_cfg(num_vcs=2))
    assert tr.engine.vcs == [(0, 0), (0, 0)] and list(tr.links) == [2, 2]
    asked = []

    def full(self, e, vc):
        asked.append((e, vc))
        return self.oflits  # every output buffer reads full: 2 q + 1 > q, detours lose ...
    monkeypatch.setattr(MerlinChoiceEngine, "_queue", full)
    tr = run_trace(r, pk, config=_cfg(num_vcs=2))
    assert tr.engine.vcs == [(0, 0), (0, 0)]  # ... so the direct links win
    assert asked and {vc for _, vc in asked} == {0, 1}

    def direct_full(self, e, vc):
        return self.oflits if vc == 0 else 0  # VC 0 full, VC 1 empty: 1 < q(direct)
    monkeypatch.setattr(MerlinChoiceEngine, "_queue", direct_full)
    tr = run_trace(r, pk, config=_cfg(num_vcs=2))
    assert tr.engine.vcs == [(1, 0, 1, 0), (1, 0, 1, 0)] and list(tr.links) == [4, 4]


def test_merlin_draws_are_per_router_xorshift(monkeypatch):
    t = topogen.generate("hyperx", dims=(4, 4))
    r = route(t, None, "merlin-hyperx-valiant")
    r.draws = "merlin"
    seen = []
    orig = type(r).draw_path

    def spy(self, s, d, u32):
        out = orig(self, s, d, u32)
        seen.append((s, out[0]))
        return out
    monkeypatch.setattr(type(r), "draw_path", spy)
    pk = [(0, 3, 9), (100, 3, 12), (200, 7, 1)]
    run_trace(r, pk, config=_cfg(num_vcs=2), seed=1)
    first = list(seen)
    seen.clear()
    run_trace(r, pk, config=_cfg(num_vcs=2), seed=99)  # a fresh engine restarts the streams; no seed in them
    assert seen == first
    g3, g7 = XorShift(4), XorShift(8)

    def mid(g, s):
        while True:
            m = g() % 16
            if m != s:
                return m
    m1, m2, m3 = mid(g3, 3), mid(g3, 3), mid(g7, 7)
    assert [r.via(3, m1, 9)[0], r.via(3, m2, 12)[0], r.via(7, m3, 1)[0]] == [p for _, p in first]


def test_seed_draws_follow_the_seed():
    t = _dragonfly(2)
    r = route(t, None, "merlin-dragonfly-valiant")
    pk = _uniform(t.num_hosts, 300, 3000)
    a = run_trace(r, pk, config=_cfg(num_vcs=3), seed=1)
    b = run_trace(r, pk, config=_cfg(num_vcs=3), seed=1)
    c = run_trace(r, pk, config=_cfg(num_vcs=3), seed=2)
    assert np.array_equal(a.delivered, b.delivered) and np.array_equal(a.links, b.links)
    assert not np.array_equal(a.links, c.links)


def test_run_time_choices_need_merlins_vcs():
    t = _dragonfly(1)
    with pytest.raises(ParameterError, match="obuf_vcs='routing'"):
        run_trace(route(t, None, "merlin-dragonfly-ugal"), [(0, 0, 3)], config=_cfg(obuf_vcs="hop", num_vcs=3))
    # a valiant routing runs with anytopo's hop VCs too
    tr = run_trace(route(t, None, "merlin-dragonfly-valiant"), [(0, 0, 3)], config=_cfg(obuf_vcs="hop", num_vcs=3))
    assert len(tr.pid) == 1


def test_input_queued_router_refuses_run_time_choices():
    t = _dragonfly(1)
    with pytest.raises(ParameterError, match="output-buffered router"):
        run_trace(route(t, None, "merlin-dragonfly-ugal"), [(0, 0, 3)], config=SimConfig(num_vcs=3))
    # a valiant routing is a randomised routing the input-queued router runs as drawn
    tr = run_trace(route(t, None, "merlin-dragonfly-valiant"), [(0, 0, 3), (5, 1, 4)], config=SimConfig(num_vcs=3))
    assert len(tr.pid) == 2 and not tr.deadlocked
