"""The compiled engine's per-switch request rows and its one separable allocation.

The heads waiting for an output VC at switch ``s`` live in rows ``s * K * V + i`` of
``State.vq`` (``i`` below the switch's count): every such head is found there and only
there, checked against where each packet actually is (the switch its buffer's port enters).
The per-cycle and the per-round allocation share one implementation: both give the Python
engine's rows where VC allocation is contended (1-flit packets at high load)."""

import pytest

from topogen._sssp import AVAILABLE
from topogen.generators.slimfly import slimfly
from topogen.routing import route
from topogen.sim import SimConfig
from topogen.sim import _core as C
from topogen.sim.measure import fixed_run, packet_rate

from ._rows import same_on_both_engines

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

FAST = dict(sample_period=100, warmup_periods=1, max_samples=3, min_period_packets=0)
SF = slimfly(5)
MIN = route(SF, None, "hop", seed=1)


def _check_requests(eng, seen):
    st = eng._st
    V = eng.V
    sw, vq, pk, dsw = st["sw"], st["vq"], st["pk"], st["dsw"]
    n = sw.shape[0]
    kv = vq.shape[0] // n
    free = set(st["free_slots"][:int(st["sc"][C.NFREE_SLOTS])].tolist())
    live = [p for p in range(pk.shape[0]) if p not in free]
    waiting = {p for p in live if pk[p, C.P_VAQ]}
    found = {}
    for s in range(n):
        cnt = int(sw[s, C.VA_N])
        seen.append(cnt)
        for i in range(cnt):
            row = vq[s * kv + i]
            p = int(row[C.VQ_PKT])
            assert p not in found, "a head in two request rows"
            found[p] = s
            b = int(row[C.VQ_B])
            assert b == pk[p, C.P_BUF]
            assert dsw[b // V] == s  # the head is at this switch
            lo, hi = int(row[C.VQ_LO]), int(row[C.VQ_HI])
            assert lo == st["p_route"][p, pk[p, C.P_HOP]] and hi > lo
            assert st["pt"][lo // V, C.OUT_SWITCH] == s  # its next output leaves this switch
    assert set(found) == waiting


@pytest.mark.parametrize("speedup", [1.0, 2.0])
def test_waiting_heads_are_in_their_switch_rows(speedup):
    cfg = SimConfig(num_vcs=4, packet_size=1, vc_buf_size=4, link_latency=1,
                    internal_speedup=speedup, engine="compiled")
    seen = []
    run = fixed_run(MIN, cfg, 80, traffic="uniform", rate=packet_rate(0.9, "flits", cfg), seed=3,
                    stops=tuple(range(10, 80, 7)),
                    on_stop=lambda t, eng: _check_requests(eng, seen))
    assert run.engine.engine_name == "compiled"
    # the rows were exercised: switches with several requests at once (more than one line)
    assert max(seen) >= 3 and sum(seen) > 0


@pytest.mark.parametrize("speedup", [1.0, 2.0])
def test_contended_vc_allocation_rows_equal_python_engine(speedup):
    same_on_both_engines(MIN, traffic="uniform", load=0.8, seed=7, packet_size=1, vc_buf_size=4,
                         num_vcs=4, internal_speedup=speedup, **FAST)
