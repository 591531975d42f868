"""The one fixed-run set-up (``topogen.sim.measure.fixed_run``) behind ``run_fixed`` and
``reference-sst``'s run on SST's timeline."""

import numpy as np
import pytest

from topogen.generators.classic import torus
from topogen.routing import nearest
from topogen.sim import SimConfig, run_fixed
from topogen.sim.measure import fixed_run, packet_rate


def _log(run):
    lg = run.engine.log
    return [np.asarray(x) for x in (lg.src, lg.ctime, lg.injected, lg.delivered)]


@pytest.mark.parametrize("router", ["input-queued", "output-buffered"])
def test_pausing_at_stops_does_not_change_the_run(router):
    r = nearest(torus((4, 4)))
    cfg = SimConfig(packet_size=4, vc_buf_size=8, injection="periodic", latency_at="head", router=router)
    kw = dict(traffic="uniform", rate=packet_rate(0.4, "flits", cfg), seed=7, self_packets=False, record=True)
    whole = fixed_run(r, cfg, 3000, **kw)
    seen = []

    def on_stop(t, eng):
        seen.append((t, len(eng.log.delivered), eng.in_source))

    paused = fixed_run(r, cfg, 3000, stops=[500, 1250, 2999, 3000, 4000], on_stop=on_stop, **kw)
    assert [t for t, _, _ in seen] == [500, 1250, 2999]  # stops at or past the end are not paused at
    assert 0 < seen[0][1] < seen[1][1] < seen[2][1] <= len(whole.engine.log.delivered)
    assert len(whole.engine.log.delivered) > 1000
    for a, b in zip(_log(whole), _log(paused)):
        assert np.array_equal(a, b)
    assert whole.created == paused.created and whole.created[0] > 0


def test_run_fixed_is_the_fixed_run():
    r = nearest(torus((4, 4), hosts_per_switch=2))
    cfg = SimConfig(packet_size=2, injection="periodic", engine="python")  # per-packet on_deliver
    out = run_fixed(r, 2000, traffic="uniform", load=0.3, config=cfg, seed=11)
    delivered = []
    run = fixed_run(r, cfg, 2000, traffic="uniform", rate=packet_rate(0.3, "flits", cfg), seed=11,
                    self_packets=True,
                    on_deliver=lambda pkt, tail: delivered.append(tail - pkt.ctime) if tail < 2000 else None)
    assert out["created"] == run.created[0] and out["delivered"] == len(delivered) > 0
    assert out["latency_avg"] == pytest.approx(np.mean(delivered) - cfg.stamp_offset)
