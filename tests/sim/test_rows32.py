"""The compiled engine's int32 rows: what does not fit 32 bits leaves the engine whole.

Packet ids grow without bound over a run (one per packet created); the packet rows keep
them in int32, so the engine gives them back from the id modulo 2**32.  Cycles are
refused beyond the engine's last cycle instead."""

import numpy as np
import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.errors import ParameterError
from topogen.routing import route
from topogen.sim import SimConfig
from topogen.sim import _core as C
from topogen.sim._compiled import CompiledEngine
from topogen.sim.model import Engine, Network

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")


def _net():
    torus = topogen.generate("torus", dims=(4, 4), hosts_per_switch=2)
    return route(torus, None, "dor"), SimConfig(num_vcs=4, packet_size=1, vc_buf_size=4,
                                                 link_latency=1)


def _traffic(n, k=400, seed=3):
    rng = np.random.default_rng(seed)
    return np.sort(rng.integers(0, 60, k)), rng.integers(0, n, k), rng.integers(0, n, k)


@pytest.mark.parametrize("start", [2**31 - 150, 2**32 - 150, 5 * 2**32 + 7])
def test_packet_ids_past_int32(start):
    """Packets numbered across 2**31 (and 2**32) come out with their ids, as the Python
    engine numbers them from the same first id, packet by packet."""
    routing, cfg = _net()
    t, s, d = _traffic(2 * 16)
    out = {}
    for cls in (Engine, CompiledEngine):
        eng = cls(Network(routing, cfg), np.random.default_rng(0))
        if cls is CompiledEngine:
            eng._st["sc"][C.NEXT_PID] = start
            eng.record = True
        got = []
        eng.on_deliver = lambda pkt, tail, got=got: got.append(
            (pkt.pid, pkt.src, pkt.dst, pkt.ctime, tail))
        eng.inject_many(t, s, d)
        eng.run(10 ** 4)
        out[cls] = got
    py, co = out[Engine], out[CompiledEngine]
    assert len(co) == len(t) and len(py) == len(t)
    assert sorted(p for p, *_ in co) == list(range(start, start + len(t)))
    # the Python engine numbers from 0: the same packets, ids shifted by ``start``
    assert sorted((p + start, *rest) for p, *rest in py) == sorted(co)
    eng_log = eng.log.pid
    assert sorted(eng_log) == list(range(start, start + len(t)))


def test_cycles_near_the_last_cycle():
    """Packets created a few hundred cycles before the engine's last cycle (above 2**30)
    are staged, sent and delivered at the cycles the Python engine gives them."""
    routing, cfg = _net()
    t, s, d = _traffic(2 * 16)
    out = {}
    for cls in (Engine, CompiledEngine):
        eng = cls(Network(routing, cfg), np.random.default_rng(0))
        t0 = CompiledEngine(Network(routing, cfg), np.random.default_rng(0))._max_cycle - 400
        got = []
        eng.on_deliver = lambda pkt, tail, got=got: got.append(
            (pkt.src, pkt.dst, pkt.ctime, tail))
        eng.inject_many(t + t0, s, d)
        eng.run(t0 + 399)
        out[cls] = sorted(got)
    assert t0 > 2**30 and len(out[Engine]) == len(t)
    assert out[CompiledEngine] == out[Engine]
    assert min(c for _, _, c, _ in out[Engine]) >= t0


def test_cycles_past_int32_refused():
    """A packet beyond the last cycle the int32 rows hold is refused with the fix."""
    routing, cfg = _net()
    eng = CompiledEngine(Network(routing, cfg), np.random.default_rng(0))
    with pytest.raises(ParameterError, match="engine='python'"):
        eng.inject_many(np.array([2**31 - 1]), np.array([0]), np.array([1]))


def test_switch_and_host_rows_int32():
    """Switch and host rows and the staged packets are int32 like the port, buffer and
    packet rows (half the bytes per row)."""
    routing, cfg = _net()
    st = CompiledEngine(Network(routing, cfg), np.random.default_rng(0))._st
    for name in ("pt", "bf", "ob", "hs", "sw", "pk", "pc", "vq", "nd", "gi", "g_route"):
        assert st[name].dtype == np.int32, name
    assert st["sw"].shape[1] * 4 == 32 and st["hs"].shape[1] * 4 == 16
