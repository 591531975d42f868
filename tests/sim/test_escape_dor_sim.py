"""Duato's protocol with dimension-order escape paths in the reference simulator: the
Python engine takes each escape hop on the VC the dateline rule gives, a packet on the
escape VCs never goes back to the adaptive ones, the compiled engine gives the same rows
and deliveries, and the layout study routes HYPERCUBE and TORUS-4 with it."""

import numpy as np
import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.routing import escape
from topogen.sim import SimConfig, run_fixed
from topogen.sim._compiled import CompiledEngine, compiled_covers
from topogen.sim.model import Engine, Network

from ._rows import random_trace, same_on_both_engines

FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)
needs_numba = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")


def _nets():
    torus = topogen.generate("torus", dims=(5, 4), hosts_per_switch=2)
    cube = topogen.generate("hypercube", dimension=4, hosts_per_switch=2)
    return {
        "torus5x4": escape(torus, num_vcs=4, base="nr", escape_paths="dor"),
        "torus5x4-3vc": escape(torus, num_vcs=3, base="nr", escape_paths="dor"),
        "hypercube4": escape(cube, num_vcs=4, base="nr", escape_paths="dor"),
    }


NETS = _nets()


def _spy(monkeypatch):
    """Record every hop of the escape routing's engine: (pid, switch, dst switch, escape
    state before, buffer class)."""
    hops = []
    send = Engine._send_adaptive

    def spy(self, pkt, o, b, now):
        hops.append((pkt.pid, pkt.at, pkt.dsw, pkt.esc, o, (b % self.V) // self.kcls))
        return send(self, pkt, o, b, now)

    monkeypatch.setattr(Engine, "_send_adaptive", spy)
    return hops


@pytest.mark.parametrize("name", ["torus5x4", "hypercube4"])
def test_escape_hops_on_dateline_vcs_and_never_back(name, monkeypatch):
    r = NETS[name]
    hops = _spy(monkeypatch)
    kw = dict(packet_size=2, vc_buf_size=4, num_vcs=4)
    random_trace(r, "python", 3000, 300, 0, **kw)
    ranks, vc, state = r.escape_table()
    ne = r.escape_classes
    by_pkt = {}
    for pid, v, d, esc, o, cls in hops:
        by_pkt.setdefault(pid, []).append((v, d, esc, o, cls))
    escaped = 0
    for pid, seq in by_pkt.items():
        on_escape = False
        for v, d, esc, o, cls in seq:
            if cls < ne:  # an escape hop: the table's link and VC in the packet's state
                st = esc if esc >= 0 else 0
                assert o == int(r.view.indptr[v]) + int(ranks[st, v, d])
                assert cls == int(vc[st, v, d])
                on_escape = True
            else:
                assert not on_escape, f"packet {pid} went back to an adaptive VC"
        escaped += on_escape
    assert escaped > 20
    if ne == 2:
        assert any(cls == 1 for seq in by_pkt.values() for *_, cls in seq)


def test_high_load_does_not_deadlock():
    """Saturated (the VCs fill and packets take the escape), yet no deadlock."""
    r = NETS["torus5x4-3vc"]
    a = run_fixed(r, 4000, engine="python", traffic="uniform", load=1.0, seed=3, packet_size=4,
                  vc_buf_size=4, num_vcs=3)
    assert not a["deadlocked"] and a["delivered"] > 1000


@needs_numba
@pytest.mark.parametrize("name", sorted(NETS))
def test_rows_equal_python_engine(name):
    r = NETS[name]
    net = Network(r, SimConfig(num_vcs=r.num_vcs))
    assert compiled_covers(net) is None
    for load in (0.2, 0.9):
        same_on_both_engines(r, traffic="uniform", load=load, seed=7, packet_size=4, vc_buf_size=10,
                             num_vcs=r.num_vcs, **FAST)


@needs_numba
@pytest.mark.parametrize("name", ["torus5x4", "hypercube4"])
def test_trace_equal(name):
    """Every packet's delivery and link count equal, in a burst that drives packets onto
    the escape VCs (both dateline VCs on the torus)."""
    r = NETS[name]
    kw = dict(packet_size=2, vc_buf_size=4, num_vcs=4)
    a = random_trace(r, "python", 3000, 300, 0, **kw)
    b = random_trace(r, "compiled", 3000, 300, 0, **kw)
    assert isinstance(b.engine, CompiledEngine) and isinstance(a.engine, Engine)
    for f in ("pid", "src", "dst", "created", "injected", "delivered", "links"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert b.cycles == a.cycles and b.engine.credits_restored() and b.engine.idle()


@needs_numba
def test_compiled_escape_state_in_the_packet_row():
    from topogen.sim import _core as C

    eng = CompiledEngine(Network(NETS["torus5x4"], SimConfig(num_vcs=4)), np.random.default_rng(0))
    assert eng._st["cf"][C.C_ESC] == 3 and tuple(eng._st["cf"][[C.C_EA0, C.C_EA1]]) == (2, 4)


def test_layout_study_routes_regular_networks_with_dor_escape():
    from topogen.experiments.spec import parse_experiment
    from topogen.reproduce.layout_sim import build, study_of
    from topogen._input import parse_toml
    from topogen.reproduce.study import Curve, Study, toml_text

    st = study_of("quick", traffics=("uniform",))
    by = {c.network: c.routing for c in st.curves}
    assert by["torus4-256"] == "escape-dor" and by["hypercube-256"] == "escape-dor"
    assert {k for k, r in by.items() if r == "escape-dor"} == {"torus4-256", "hypercube-256"}
    full = study_of("full", traffics=("uniform",))
    assert {c.network for c in full.curves if c.routing == "escape-dor"} == {
        "torus4-256", "hypercube-256", "hypercube-64", "hypercube-512"}
    # the networks whose routing is the up*/down* escape keep their points (content ids)
    old = Study(name=st.name, networks=st.networks, seed=st.seed, measure=st.measure, reference=st.reference,
                sweep=st.sweep, knees=st.knees, description=st.description,
                curves=[Curve(c.label, c.network, "escape", c.traffic, c.panel, c.also) for c in st.curves])
    def ids(s):
        doc = parse_toml(toml_text(s.document()), what="experiment spec")
        return {p.id: p.content["topology"]["label"] for p in parse_experiment(doc).points}

    new_ids, old_ids = ids(st), ids(old)
    dor_labels = {st.label_of("torus4-256"), st.label_of("hypercube-256")}
    kept = {i for i, lab in old_ids.items() if lab not in dor_labels}
    assert kept and kept <= set(new_ids)
    assert not ({i for i, lab in new_ids.items() if lab in dor_labels} & set(old_ids))
    _, rt = build("torus4", 1)
    assert rt.escape_paths == "dor" and rt.escape_classes == 2
    _, rt = build("p-torus4", 1)
    assert rt.escape_paths == "updown"
