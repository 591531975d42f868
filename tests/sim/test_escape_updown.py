"""Reference simulator: the ``adaptive="updown"`` reading of the escape routing keeps each
packet's up*/down* phase on the adaptive VCs (a packet that went down never goes up)."""

import numpy as np
import pytest

import topogen
from topogen.generators.classic import hypercube
from topogen.routing import escape
from topogen.routing.updown import updown_orientation
from topogen.sim import run_trace
from topogen.sim import model as sim_model


def _record_hops(monkeypatch):
    """Every network hop as (pid, switch, next switch, VC, packet's esc state before)."""
    hops = []
    orig = sim_model.Engine._send_adaptive

    def rec(self, pkt, o, b, now):
        hops.append((pkt.pid, pkt.at, self.indices_l[o], b % self.V, pkt.esc, pkt.dsw))
        orig(self, pkt, o, b, now)

    monkeypatch.setattr(sim_model.Engine, "_send_adaptive", rec)
    return hops


def _heavy_trace(r, seed=4, k=3000, span=200):
    topo = r.topology
    rng = np.random.default_rng(seed)
    n = topo.num_hosts
    src = rng.integers(0, n, k)
    dst = (src + rng.integers(1, n, k)) % n
    tr = run_trace(r, np.c_[np.sort(rng.integers(0, span, k)), src, dst], packet_size=4,
                   vc_buf_size=8, num_vcs=4, link_latency=1, engine="python")  # (hops recorded)
    assert not tr.deadlocked and len(tr.pid) == k
    return tr


def _down_map(topo, root):
    _, is_down = updown_orientation(topo, root)
    csr = topo.csr()
    return {(v, int(csr.indices[k])): bool(is_down[k])
            for v in range(topo.num_switches) for k in range(csr.indptr[v], csr.indptr[v + 1])}


def _walk(hops, down):
    """Per packet, its adaptive hops in order: [(v, w, down?, esc state)] until it takes
    the escape VC."""
    per = {}
    escaped = set()
    for pid, v, w, vc, esc, dsw in hops:
        if vc == 0:
            escaped.add(pid)
        elif pid not in escaped:
            per.setdefault(pid, []).append((v, w, down[(v, w)], esc, dsw))
    return per


@pytest.mark.parametrize("make", [lambda: hypercube(4, hosts_per_switch=2),
                                  lambda: topogen.generate("random", num_switches=24, degree=4,
                                                           hosts_per_switch=2, seed=3)])
def test_adaptive_packets_never_go_up_after_down(monkeypatch, make):
    topo = make()
    hops = _record_hops(monkeypatch)
    r = escape(topo, num_vcs=4, base="nr", adaptive="updown")
    _heavy_trace(r)
    down = _down_map(topo, r.params["root"])
    per = _walk(hops, down)
    went_down = 0
    esc_used = sum(h[3] == 0 for h in hops)
    for pid, seq in per.items():
        phase = 0
        for v, w, is_down, esc, dsw in seq:
            assert esc == -1 - phase  # the engine's phase state is the walk's
            assert not (phase == 1 and not is_down), f"packet {pid} went up after down at {v}->{w}"
            assert w in r.next_hops(v, dsw, phase).tolist()  # a legal shortest next hop
            phase = max(phase, int(is_down))
        went_down += phase == 1
    assert went_down > 100 and esc_used > 0  # both phases and the escape VC were exercised


def test_minimal_reading_does_go_up_after_down(monkeypatch):
    """The check above can fail: with the minimal reading the same traffic has adaptive
    packets that take an up link after a down link (and no adaptive phase is kept)."""
    topo = hypercube(4, hosts_per_switch=2)
    hops = _record_hops(monkeypatch)
    r = escape(topo, num_vcs=4, base="nr")
    _heavy_trace(r)
    per = _walk(hops, _down_map(topo, r.params["root"]))
    assert all(esc == -1 for seq in per.values() for *_, esc, _ in seq)
    up_after_down = 0
    for seq in per.values():
        seen_down = False
        for _, _, is_down, _, _ in seq:
            up_after_down += seen_down and not is_down
            seen_down |= is_down
    assert up_after_down > 0


def test_lone_packets_follow_the_updown_table():
    """An empty network: every packet takes the deterministic route (lowest-id legal
    shortest next hops, i.e. the up*/down* table) and the analytic latency."""
    from topogen.sim import SimConfig

    topo = topogen.generate("random", num_switches=16, degree=4, hosts_per_switch=2, seed=1)
    r = escape(topo, num_vcs=4, base="nr", adaptive="updown")
    rng = np.random.default_rng(7)
    n = topo.num_hosts
    src, dst = rng.integers(0, n, 50), rng.integers(0, n, 50)
    tr = run_trace(r, np.c_[np.arange(50) * 2000, src, dst],
                   config=SimConfig(packet_size=8, vc_buf_size=16, num_vcs=4))
    net = tr.network
    longer = 0
    for pid, lat, links in zip(tr.pid, tr.latency, tr.links):
        s, d = int(net.host_switch[src[pid]]), int(net.host_switch[dst[pid]])
        assert lat == net.zero_load_latency(int(src[pid]), int(dst[pid]))
        assert links == len(r.escape_routing.path(s, d)[0]) - 1
        longer += links > len(r.minimal.path(s, d)[0]) - 1
    assert longer > 0  # some legal routes are longer than minimal ones
