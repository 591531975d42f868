"""The compiled engine's events by kind (``State.sc[EVK0 + kind]``) against the packets'
hops, with and without the cycle lists (a network buffer's credit, a head's VC request and
a released-VC check run together at the start of their cycle where granted heads fold).

Every packet leaves its injection buffer and one buffer per link (one credit each) and asks
for an output VC at every switch it crosses: over a run that delivers every packet, the
credits and the VC requests both number the packets' hops (links + 1), whichever list
carried them, and the deliveries are the same either way.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from topogen.sim import _core as C  # noqa: E402

#: the kinds run from the cycle lists
CYCLE_KINDS = (C.K_CCREDIT, C.K_CVREQ, C.K_CVCHK)


def _run(record: bool, packet_size: int):
    """Uniform random packets on a Slim Fly q=5 (minimal routing, the VC allocation stage),
    run until all are delivered; the engine and the deliveries (creation, injection,
    delivery cycles and links of each, in a canonical order)."""
    import topogen
    from topogen._rng import make_rng
    from topogen.routing import route
    from topogen.sim import SimConfig
    from topogen.sim._compiled import CompiledEngine, engine_for
    from topogen.sim.network import Network

    topo = topogen.generate("slimfly", q=5)
    cfg = SimConfig(num_vcs=4, packet_size=packet_size, vc_buf_size=16, link_latency=1,
                    engine="compiled")
    net = Network(route(topo, None, "hop"), cfg)
    rng = np.random.default_rng(7)
    n = 3000
    pk = np.column_stack([np.sort(rng.integers(0, 300, n)), rng.integers(0, net.num_hosts, n),
                          rng.integers(0, net.num_hosts, n)])
    eng = engine_for(net, make_rng(11))
    assert isinstance(eng, CompiledEngine)
    got = []
    if record:
        eng.record = True
    else:
        eng.on_deliver_arrays = lambda ctime, sent, tail, links, measured: got.append(
            np.column_stack([ctime, sent, tail, links]))
    eng.inject_many(pk[:, 0], pk[:, 1], pk[:, 2])
    eng.run(1 << 40, stop_when_idle=True)
    assert not eng.deadlocked and eng.idle()
    if record:
        lg = eng.log
        rows = np.column_stack([lg.ctime, lg.injected, lg.delivered, lg.hops])
    else:
        rows = np.concatenate(got)
    assert len(rows) == n
    rows = rows[np.lexsort(rows.T[::-1])]
    return eng, rows


def _kinds(eng):
    sc = eng._st["sc"]
    return {k: int(sc[C.EVK0 + k]) for k in range(C.NUM_KINDS)}


@pytest.mark.parametrize("packet_size", [1, 4])
def test_credits_and_vc_requests_number_the_hops(packet_size):
    fast, rows = _run(False, packet_size)
    slow, rows_slow = _run(True, packet_size)
    assert np.array_equal(rows, rows_slow)  # the same deliveries with and without the lists
    hops = int(rows[:, 3].sum()) + len(rows)  # routers traversed (links + 1)
    kf, ks = _kinds(fast), _kinds(slow)
    # with the cycle lists (no recording): network credits and VC requests there, an
    # injection buffer's credit an ordinary event (one per packet)
    assert fast._st["cf"][C.C_SORT] == 1
    assert kf[C.K_CCREDIT] == int(rows[:, 3].sum())
    assert kf[C.K_CREDIT] == len(rows)
    assert kf[C.K_CVREQ] == hops and kf[C.K_VREQ] == 0
    assert kf[C.K_CVCHK] > 0 and kf[C.K_VCHK] == 0
    # recording keeps the order of a cycle's events: no cycle lists, no folding
    assert slow._st["cf"][C.C_SORT] == 0
    assert ks[C.K_CREDIT] == hops and ks[C.K_VREQ] == hops
    assert all(ks[k] == 0 for k in CYCLE_KINDS)
    # the dispatched events are the ordinary and late ones
    for eng, k in ((fast, kf), (slow, ks)):
        assert int(eng._st["sc"][C.EVENTS]) == sum(v for j, v in k.items() if j not in CYCLE_KINDS)
    # the same allocations either way; recording also keeps an event per granted head (at
    # each switch) and per released output VC (one per switch left)
    assert kf[C.K_ALLOC] == ks[C.K_ALLOC]
    assert kf[C.K_READY] == len(rows) and ks[C.K_READY] == len(rows) + hops
    assert ks[C.K_VFREE] == hops and kf[C.K_VFREE] == 0
