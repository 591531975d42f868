"""Bernoulli packet creation drawn as geometric gaps: the same process as one
draw per host and cycle, and rows of another random stream are never resumed."""

import json
import math

import numpy as np
import pytest

from topogen import Topology
from topogen.errors import ParameterError
from topogen.layout import default_layout
from topogen.results import append_rows, make_row, read_results
from topogen.routing import route
from topogen.sim import simulate
from topogen.sim.sweep import point_key, sweep, with_digest
from topogen.sim.traffic import TRAFFIC_STREAM, BernoulliArrivals


def _hits(n, p, blocks, block=256, seed=0):
    arr = BernoulliArrivals(n, p, np.random.default_rng(seed))
    hit = np.zeros((blocks * block, n), dtype=bool)
    for b in range(blocks):
        t, h = arr.take(b * block, (b + 1) * block)
        assert np.all((t >= b * block) & (t < (b + 1) * block))
        key = t * n + h
        assert np.all(np.diff(key) > 0)  # by cycle, then source; each (cycle, source) once
        hit[t, h] = True
    return hit


@pytest.mark.parametrize("p", [0.003, 0.1, 0.5])
def test_every_cycle_and_host_hits_with_probability_p(p):
    n, blocks, block = 400, 8, 256
    hit = _hits(n, p, blocks, block)
    # each cycle of the block (first and last included: no edge effect between windows)
    per_offset = hit.reshape(blocks, block, n).mean(axis=(0, 2))
    se = math.sqrt(p * (1 - p) / (blocks * n))
    assert np.all(np.abs(per_offset - p) < 5 * se)
    # whole run: mean per host p * cycles, variance of a binomial
    counts = hit.sum(axis=0)
    T = blocks * block
    assert abs(counts.mean() - p * T) < 5 * math.sqrt(p * (1 - p) * T / n)
    var = T * p * (1 - p)
    assert 0.75 * var < counts.var(ddof=1) < 1.3 * var


def test_gaps_between_a_hosts_packets_are_geometric():
    p, n = 0.2, 300
    hit = _hits(n, p, 8)
    gaps = np.concatenate([np.diff(np.flatnonzero(hit[:, h])) for h in range(n)])
    assert gaps.min() >= 1
    # chi-square against P(gap = k) = (1 - p)**(k - 1) p, k = 1 .. 15 and the tail
    k = np.arange(1, 16)
    expect = np.append(p * (1 - p) ** (k - 1), (1 - p) ** 15) * len(gaps)
    seen = np.append(np.bincount(gaps, minlength=16)[1:16], (gaps > 15).sum())
    chi2 = float(((seen - expect) ** 2 / expect).sum())
    assert chi2 < 45  # 15 degrees of freedom: P(chi2 > 45) < 1e-4
    # and consecutive cycles are independent: P(hit at t and t + 1) = p**2
    both = (hit[1:] & hit[:-1]).mean()
    assert abs(both - p * p) < 5 * math.sqrt(p * p * (1 - p * p) / hit[1:].size)


def test_windows_follow_each_other_and_p_is_checked():
    arr = BernoulliArrivals(4, 1.0, np.random.default_rng(0))
    t, h = arr.take(0, 3)  # p = 1: every host every cycle, in order
    assert t.tolist() == [0] * 4 + [1] * 4 + [2] * 4 and h.tolist() == [0, 1, 2, 3] * 3
    with pytest.raises(ParameterError, match="must follow each other"):
        arr.take(5, 8)
    with pytest.raises(ParameterError, match=r"probability in \(0, 1\]"):
        BernoulliArrivals(4, 0.0, np.random.default_rng(0))
    tiny = BernoulliArrivals(3, 1e-300, np.random.default_rng(0))
    assert len(tiny.take(0, 256)[0]) == 0 and len(tiny.take(256, 512)[0]) == 0  # no overflow


def _ring(n=6):
    t = Topology(n, [(i, (i + 1) % n) for i in range(n)], 1, name="net", params={"n": n})
    return route(t, default_layout(t), "nr", ties="lowest")


FAST = dict(packet_size=2, vc_buf_size=4, sample_period=200, link_latency=1, warmup_periods=1,
            max_samples=3)


def test_rows_record_the_stream_and_old_stream_rows_are_not_resumed(tmp_path):
    r = _ring()
    row = with_digest(simulate(r, load=0.1, seed=7, **FAST), r)
    assert json.loads(row["params"])["traffic_stream"] == TRAFFIC_STREAM
    # the same point computed under the previous stream (no traffic_stream recorded)
    params = json.loads(row["params"])
    del params["traffic_stream"]
    old = dict(row, params=make_row(params=params)["params"], latency_avg=123.0)
    assert point_key(old) != point_key(row)
    out = tmp_path / "s.csv"
    append_rows(out, [old])
    res = sweep(r, out, low=0.1, high=0.9, tolerance=0.5, seed=7, **FAST)
    assert res.reused == 0 and res.simulated == len(res.rows)
    first = [x for x in res.rows if float(x["offered_load"]) == 0.1][0]
    assert first["latency_avg"] == pytest.approx(row["latency_avg"])  # simulated, not the old row
    assert len(read_results(out)) == 1 + res.simulated  # the old row is kept, not replaced
    again = sweep(r, out, low=0.1, high=0.9, tolerance=0.5, seed=7, **FAST)
    assert again.simulated == 0 and again.reused == len(again.rows)


def _staged_run(engine, r, batches, stop):
    """Deliveries (pid, tail) of packets injected in ``batches``, the engine run to
    ``stop[i]`` before batch ``i + 1`` (packets of a batch still waiting when the next one
    comes stay in the compiled engine's staging arrays)."""
    from topogen.sim._compiled import engine_for
    from topogen.sim.model import Network, SimConfig

    net = Network(r, SimConfig(packet_size=1, vc_buf_size=2, engine=engine), None)
    eng = engine_for(net, np.random.default_rng(0))
    assert eng.engine_name == engine
    eng.record = True
    for i, (t, s, d) in enumerate(batches):
        eng.inject_many(t, s, d)
        eng.run(stop[i] if i < len(stop) else math.inf, stop_when_idle=i >= len(stop))
    assert not eng.deadlocked
    return list(zip(eng.log.pid, eng.log.delivered, eng.log.src, eng.log.dst))


def test_staged_packets_survive_compaction_of_the_staging_arrays():
    pytest.importorskip("numba")
    from topogen.generators.classic import torus
    from topogen.routing import dor

    r = dor(torus((4, 4), hosts_per_switch=2))  # deadlock-free: every packet arrives
    rng = np.random.default_rng(4)
    batches = []
    for b in range(4):  # 600 packets a batch: the 1,024-row staging compacts, then grows
        t = np.sort(rng.integers(100 * b, 100 * b + 100, 600 if b < 3 else 3000))
        s = rng.integers(0, 32, len(t))
        batches.append((t, s, (s + rng.integers(1, 32, len(t))) % 32))
    stop = [50, 150, 250]  # half of each batch still staged when the next one comes
    py = _staged_run("python", r, batches, stop)
    co = _staged_run("compiled", r, batches, stop)
    assert len(co) == sum(len(b[0]) for b in batches) and co == py
