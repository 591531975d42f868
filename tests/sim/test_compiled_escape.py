"""The escape routing (adaptive minimal with an up*/down* escape VC) on the compiled engine
(topogen.sim._core) against the pure-Python reference engine: the same hop-by-hop choices,
the same rows and the same deliveries for the same seed, event for event."""

import numpy as np
import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.routing import escape
from topogen.routing.escape import EscapeRouting
from topogen.sim import SimConfig, run_fixed, run_trace, simulate
from topogen.sim._compiled import CompiledEngine, compiled_covers, engine_for
from topogen.sim.model import Engine, Network

from ._rows import random_trace, same_fixed_run_on_both_engines, same_on_both_engines

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)


def _returning(r):
    """The same routing with ``escape_return`` on (a packet on the escape VC may go back
    to the adaptive VCs)."""
    return EscapeRouting(r.minimal, r.escape_routing, num_vcs=r.num_vcs,
                         params=dict(r.params, escape_return=True))


def _nets():
    rnd = topogen.generate("random", num_switches=12, degree=4, hosts_per_switch=2, seed=2)
    torus = topogen.generate("torus", dims=(4, 4))
    sky = topogen.generate("skywalk", switches_per_cabinet=4, cabinets=4, intra_degree=3,
                           inter_degree=2, seed=1)
    return {
        "random12-nr": escape(rnd, num_vcs=2, base="nr"),
        "torus-nr-3vc": escape(torus, num_vcs=3, base="nr"),
        "skywalk-fr": escape(sky, num_vcs=4),  # latency metric, the layout's cable delays
        "skywalk-updown": escape(sky, num_vcs=4, adaptive="updown"),
        "torus-updown-return": _returning(escape(torus, num_vcs=4, base="nr", adaptive="updown")),
        "random12-return": _returning(escape(rnd, num_vcs=3, base="nr")),
    }


NETS = _nets()



def test_compiled_engine_covers_escape():
    r = NETS["random12-nr"]
    net = Network(r, SimConfig(num_vcs=2))
    assert compiled_covers(net) is None
    assert isinstance(engine_for(net, np.random.default_rng(0)), CompiledEngine)
    row = simulate(r, load=0.1, seed=1, packet_size=2, vc_buf_size=4, num_vcs=2, engine="compiled", **FAST)
    assert '"engine":"compiled"' in row["params"]


@pytest.mark.parametrize("name", sorted(NETS))
@pytest.mark.parametrize("size,loads", [(1, (0.2, 0.9)), (4, (0.3, 0.9))])
def test_rows_equal_python_engine(name, size, loads):
    """Low load and saturation, both allocator settings (the escape routing's engine has
    no separable allocator: the settings give the same rows on both engines)."""
    r = NETS[name]
    for load in loads:
        settings = (("separable", "booksim"), ("fifo", "credits")) if size == 1 else \
            (("separable", "booksim"),)
        for allocator, vc_alloc in settings:
            kw = dict(traffic="uniform", load=load, seed=7, packet_size=size,
                      vc_buf_size=2 * size + 2, num_vcs=r.num_vcs, allocator=allocator,
                      vc_alloc=vc_alloc, **FAST)
            same_on_both_engines(r, **kw)


def test_saturated_and_completed_both_covered():
    """The comparisons above include saturated and completed rows (else they test less
    than they claim)."""
    r = NETS["random12-nr"]
    kw = dict(traffic="uniform", seed=7, packet_size=1, vc_buf_size=4, num_vcs=2, **FAST)
    assert simulate(r, load=0.9, engine="compiled", **kw)["status"] == "saturated"
    assert simulate(r, load=0.2, engine="compiled", **kw)["status"] == "completed"


def test_run_fixed_equal():
    r = NETS["skywalk-fr"]
    kw = dict(traffic="uniform", load=0.6, seed=9, packet_size=3, vc_buf_size=8, num_vcs=4)
    same_fixed_run_on_both_engines(r, 800, **kw)


def _trace(r, engine, k=3000, horizon=300, seed=0, **kw):
    return random_trace(r, engine, k, horizon, seed, **kw)


@pytest.mark.parametrize("name", ["skywalk-fr", "skywalk-updown", "torus-updown-return"])
def test_trace_equal_and_escape_taken(name, monkeypatch):
    """Every packet's delivery and link count are equal, in a burst that drives packets
    onto the escape VC and makes them wait on several ports at once."""
    r = NETS[name]
    seen = {"escape": 0, "adaptive": 0, "multi_wait": 0, "return": 0}
    send, ready = Engine._send_adaptive, Engine._ready_adaptive

    def counting_send(self, pkt, o, b, now):
        esc = pkt.esc
        on_escape = b % self.V < self.kcls
        seen["escape" if on_escape else "adaptive"] += 1
        if esc >= 0 and not on_escape:
            seen["return"] += 1
        return send(self, pkt, o, b, now)

    def counting_ready(self, pkt, now):
        ready(self, pkt, now)
        if len(pkt.wports) > 1:
            seen["multi_wait"] += 1

    monkeypatch.setattr(Engine, "_send_adaptive", counting_send)
    monkeypatch.setattr(Engine, "_ready_adaptive", counting_ready)
    kw = dict(packet_size=2, vc_buf_size=4, num_vcs=r.num_vcs)
    a, b = _trace(r, "python", **kw), _trace(r, "compiled", **kw)
    assert isinstance(b.engine, CompiledEngine) and isinstance(a.engine, Engine)
    for f in ("pid", "src", "dst", "created", "injected", "delivered", "links"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert b.cycles == a.cycles and b.engine.credits_restored() and b.engine.idle()
    assert seen["escape"] > 100 and seen["adaptive"] > 100
    if r.adaptive == "minimal":  # (the updown reading's options are mostly one port)
        assert seen["multi_wait"] > 100
    if r.params.get("escape_return"):
        assert seen["return"] > 0


def test_same_switch_packets():
    """Packets between hosts of one switch take no link."""
    r = NETS["random12-nr"]
    pk = np.array([[0, 0, 1], [0, 2, 3], [1, 0, 4]])
    a = run_trace(r, pk, engine="python", packet_size=1, vc_buf_size=4, num_vcs=2)
    b = run_trace(r, pk, engine="compiled", packet_size=1, vc_buf_size=4, num_vcs=2)
    np.testing.assert_array_equal(a.links, b.links)
    np.testing.assert_array_equal(a.delivered, b.delivered)
    assert sorted(b.links.tolist())[:2] == [0, 0] and b.links.max() > 0


def test_no_separable_allocator_as_on_the_python_engine():
    from topogen.sim import _core as C

    net = Network(NETS["skywalk-fr"], SimConfig(num_vcs=4, allocator="separable",
                                                vc_alloc="booksim"))
    py = Engine(net, np.random.default_rng(0))
    assert not py.separable and not py.vca
    eng = CompiledEngine(net, np.random.default_rng(0))
    assert eng._st["cf"][C.C_SEP] == 0 and eng._st["cf"][C.C_VCA] == 0
    assert eng._st["cf"][C.C_ESC] == 1


def test_knot_analysis_matches_python():
    """The compiled engine's knot analysis reads the options of a waiting packet (every
    adaptive and escape VC it may take): on a ring whose "escape" channel takes the cyclic
    minimal routes (not up*/down*: it can deadlock), both engines find the same knot of
    buffers at every step, growing as the network locks up, and stop at the same point."""
    from topogen.routing import nearest

    ring = topogen.generate("torus", dims=(6,), hosts_per_switch=2)
    e = escape(ring, num_vcs=2, base="nr")
    r = EscapeRouting(e.minimal, nearest(ring), num_vcs=2, params=dict(e.params))
    cfg = SimConfig(num_vcs=2, packet_size=2, vc_buf_size=2)
    rng = np.random.default_rng(3)
    n, k = ring.num_hosts, 3000
    t = np.sort(rng.integers(0, 300, k))
    s, d = rng.integers(0, n, k), rng.integers(0, n, k)
    py = Engine(Network(r, cfg), np.random.default_rng(0))
    co = CompiledEngine(Network(r, cfg), np.random.default_rng(0))
    sizes = []
    for eng in (py, co):
        eng.inject_many(t, s, d)
    for until in range(50, 400, 50):
        py.run(until)
        co.run(until)
        assert py.in_network == co.in_network and py.delivered_count == co.delivered_count
        dead = py.deadlocked_buffers()
        assert co.deadlocked_buffers() == dead
        sizes.append(len(dead))
    assert sizes[0] < sizes[-1] and sizes[-1] > 10
    kw = dict(traffic="uniform", load=1.0, seed=1, packet_size=2, vc_buf_size=2, num_vcs=2)
    a, b = (run_fixed(r, 3000, engine=x, **kw) for x in ("python", "compiled"))
    assert a["deadlocked"] and b["deadlocked"] and a["delivered"] == b["delivered"]


def test_prefetching_engine_equal(monkeypatch):
    """With the look-ahead prefetch on (as on large networks), where an escape packet's
    hops outnumber its route columns: the same trace."""
    from topogen.sim import _compiled
    from topogen.sim import _core as C

    monkeypatch.setattr(_compiled, "_PF_BYTES", 0)
    r = NETS["torus-updown-return"]
    kw = dict(packet_size=2, vc_buf_size=4, num_vcs=r.num_vcs)
    a, b = _trace(r, "python", **kw), _trace(r, "compiled", **kw)
    assert b.engine._st["cf"][C.C_PF] > 0 and b.links.max() > b.engine._st["p_route"].shape[1]
    for f in ("pid", "delivered", "links"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
