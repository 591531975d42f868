"""What the cost per packet-hop of the compiled engine rests on, checked without timing:
deliveries reach the measurement in batches (no Python call per packet), the measured
packets are kept in arrays, the engine's tables do not grow with the length of a run, and
the events per packet-hop do not grow with the network."""

import numpy as np
import pytest

from topogen._sssp import AVAILABLE
from topogen.generators.classic import torus
from topogen.generators.slimfly import slimfly
from topogen.routing import dor, route
from topogen.sim import SimConfig, simulate
from topogen.sim import _core as C
from topogen.sim.measure import _Tally, fixed_run, packet_rate

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)


def _no_per_packet(pkt, tail):
    raise AssertionError("a per-packet delivery callback ran on the compiled engine")


def test_simulate_takes_deliveries_in_batches(monkeypatch):
    r = dor(torus((4, 4), hosts_per_switch=2))
    kw = dict(load=0.3, seed=3, packet_size=1, vc_buf_size=4, **FAST)
    py = simulate(r, engine="python", **kw)
    monkeypatch.setattr(_Tally, "on_deliver", _no_per_packet)
    co = simulate(r, engine="compiled", **kw)
    assert co["status"] == "completed" and co["packets"] > 1000
    for c in ("latency_avg", "latency_p99", "network_latency_avg", "hops_avg", "packets"):
        assert co[c] == py[c], c


def test_fixed_run_takes_deliveries_in_batches():
    r = dor(torus((4, 4)))
    cfg = SimConfig(packet_size=1, vc_buf_size=4)
    seen = [0, 0]

    def batch(ctime, sent, tail, links, measured):
        seen[0] += 1
        seen[1] += len(tail)

    run = fixed_run(r, cfg, 500, traffic="uniform", rate=packet_rate(0.2, "flits", cfg), seed=1,
                    on_deliver=_no_per_packet, on_deliver_arrays=batch)
    assert run.engine.engine_name == "compiled"
    assert seen[1] == run.engine.delivered_count > 500 and seen[0] < seen[1] / 10


def test_tally_batches_and_packets_agree():
    """The batch path keeps int32 arrays, the per-packet path Python lists; the statistics
    are the same for the same packets."""
    from topogen.sim._compiled import Delivered

    rng = np.random.default_rng(0)
    n = 5000
    ctime = np.sort(rng.integers(0, 900, n))
    sent = ctime + rng.integers(0, 5, n)
    tail = np.sort(sent + rng.integers(3, 300, n))
    links = rng.integers(1, 7, n)
    measured = rng.random(n) < 0.7
    a, b = _Tally(100, 2, 1, 1), _Tally(100, 2, 1, 1)
    for i in range(0, n, 1000):
        s = slice(i, i + 1000)
        a.on_deliver_arrays(ctime[s], sent[s], tail[s], links[s], measured[s])
    for i in range(n):
        b.on_deliver(Delivered(i, 0, 0, int(ctime[i]), int(sent[i]), int(links[i]),
                               bool(measured[i])), int(tail[i]))
    assert a.acc == b.acc and a.lat_sum == b.lat_sum
    assert a.m_n == b.m_n == int(measured.sum()) and a.m_sum == b.m_sum
    assert not a.m_lat and all(x.dtype == np.int32 for c in a.m_chunks for x in c)
    for i in range(3):
        np.testing.assert_array_equal(a.measured(i), b.measured(i))


def _tables(cycles):
    r = dor(torus((8, 8)))
    cfg = SimConfig(packet_size=1, vc_buf_size=4)
    run = fixed_run(r, cfg, cycles, traffic="uniform", rate=packet_rate(0.2, "flits", cfg), seed=2)
    st = run.engine._st
    return {k: st[k].shape for k in ("pk", "nd", "gi", "lg", "p_route")}, run.engine


def test_tables_do_not_grow_with_the_run():
    short, e1 = _tables(2000)
    long_, e2 = _tables(8000)
    assert e2.delivered_count > 3 * e1.delivered_count
    assert short == long_


def _events_per_hop(dims, load):
    r = dor(torus(dims))
    cfg = SimConfig(packet_size=1, vc_buf_size=8)
    hops = [0, 0]

    def batch(ctime, sent, tail, links, measured):
        hops[0] += len(tail)
        hops[1] += int(links.sum()) + len(tail)

    run = fixed_run(r, cfg, 1500, traffic="uniform", rate=packet_rate(load, "flits", cfg), seed=5,
                    on_deliver_arrays=batch)
    return int(run.engine._st["sc"][C.EVENTS]) / hops[1]


def test_events_per_packet_hop_do_not_grow_with_the_network():
    """The same per-hop work at 64 and 1,024 switches (same load relative to capacity):
    no event that a bigger network repeats more often per hop."""
    small = _events_per_hop((8, 8), 0.2)
    big = _events_per_hop((32, 32), 0.05)
    assert 0.8 < big / small < 1.2, (small, big)


def test_switch_order_on_for_table_routings_off_for_ugal():
    from topogen.sim._compiled import CompiledEngine
    from topogen.sim.model import Network

    sf = slimfly(3)
    cfg = SimConfig(num_vcs=4)
    rng = np.random.default_rng(0)
    assert CompiledEngine(Network(route(sf, None, "hop"), cfg), rng)._sort
    assert not CompiledEngine(Network(route(sf, None, "ugal-l", seed=1), cfg), rng)._sort
