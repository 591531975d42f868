"""``merlin-uniform`` traffic: the destinations SST's merlin.offered_load draws with
merlin.targetgen.uniform (a Mersenne Twister per endpoint, seeded with its id), so the
reference simulator's output-buffered router can run the traffic of an SST run itself."""

import numpy as np
import pytest

from topogen.drivers.sst_streams import MerlinUniformStreams, merlin_uniform_destinations, mersenne_outputs
from topogen.sim.traffic import Traffic


def test_mersenne_outputs_are_mt19937_init_genrand():
    # the MT19937 reference outputs of init_genrand(5489) (std::mt19937's default seed) ...
    assert mersenne_outputs(5489, 3).tolist() == [3499211612, 581869302, 3890346734]
    # ... and the 10000th, which the C++ standard fixes for std::mt19937
    assert int(mersenne_outputs(5489, 10000)[-1]) == 4123659995


def _sst_literal(endpoint: int, num_peers: int, count: int) -> list:
    """uniform.h's getNextDouble and offered_load's redraw of the source, step by step."""
    out = []
    raw = iter(mersenne_outputs(endpoint, 4 * count + 64).tolist())
    per_bin = 1.0 / num_peers
    while len(out) < count:
        u = next(raw) / 4294967295.0
        if u >= 1.0:
            continue
        c = 1
        while u > c * per_bin:
            c += 1
        if c - 1 != endpoint:
            out.append(c - 1)
    return out


@pytest.mark.parametrize("num_peers", [16, 7, 64])
def test_destinations_follow_sst_step_by_step(num_peers):
    for e in (0, 3, num_peers - 1):
        got = merlin_uniform_destinations(e, num_peers, 2000)
        assert got.tolist() == _sst_literal(e, num_peers, 2000)
        assert (got != e).all() and got.min() >= 0 and got.max() < num_peers


def test_draw_continues_each_endpoint_in_order():
    s = MerlinUniformStreams(16)
    first = s.draw([3, 3, 1, 3, 0])
    again = s.draw([1, 3])
    assert first[[0, 1, 3]].tolist() == merlin_uniform_destinations(3, 16, 3).tolist()
    assert [first[2], again[0]] == merlin_uniform_destinations(1, 16, 2).tolist()
    assert again[1] == merlin_uniform_destinations(3, 16, 4)[3]
    assert first[4] == merlin_uniform_destinations(0, 16, 1)[0]
    with pytest.raises(ValueError, match="endpoint 16"):
        s.take(16, 1)


def test_traffic_pattern_is_seedless():
    a = Traffic("merlin-uniform", 16, np.random.default_rng(1))
    b = Traffic("merlin-uniform", 16, np.random.default_rng(2))
    src = np.tile(np.arange(16), 50)
    da, db = a.destinations(src, np.random.default_rng(3)), b.destinations(src, np.random.default_rng(4))
    assert da.tolist() == db.tolist()
    assert da[src == 5].tolist() == merlin_uniform_destinations(5, 16, 50).tolist()
    assert a.active.tolist() == list(range(16))


def test_reference_run_does_not_depend_on_the_seed():
    """On the output-buffered router with periodic injection and a deterministic routing,
    nothing else is drawn: two seeds give the same packets."""
    from dataclasses import replace

    from topogen import registry
    from topogen.routing import route
    from topogen.sim.config import SimConfig
    from topogen.sim.measure import fixed_run

    topo = registry.generate("torus", dims=(4, 4))
    routing = route(topo, None, "dor")
    cfg = replace(SimConfig(), injection="periodic", latency_at="head", router="output-buffered",
                  packet_size=8, vc_buf_size=16, output_buf_size=16)
    logs = []
    for seed in (1, 2):
        run = fixed_run(routing, cfg, 600, traffic="merlin-uniform", rate=0.05, seed=seed, self_packets=False,
                        record=True)
        logs.append((list(run.engine.log.ctime), list(run.engine.log.delivered)))
    assert logs[0] == logs[1] and len(logs[0][0]) > 100
    run = fixed_run(routing, cfg, 600, traffic="uniform", rate=0.05, seed=2, self_packets=False, record=True)
    assert list(run.engine.log.delivered) != logs[0][1]
