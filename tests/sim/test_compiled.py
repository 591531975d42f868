"""The compiled engine (topogen.sim._core) against the pure-Python reference engine: the
same rows for the same seed, event for event."""

import numpy as np
import pytest

import topogen
from topogen.errors import ParameterError
from topogen.generators.classic import hypercube, torus
from topogen.routing import dor, escape, nearest, valiant
from topogen.sim import SimConfig, run_trace, simulate
from topogen._sssp import AVAILABLE
from topogen.sim._compiled import CompiledEngine

from ._rows import same_fixed_run_on_both_engines, same_on_both_engines, same_rows as _same

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

# short measurements: a few periods of a few hundred cycles
FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)


def _nets():
    dfly = topogen.generate("dragonfly", a=4, p=2, h=2)
    rnd = topogen.generate("random", num_switches=16, degree=4, hosts_per_switch=2, seed=3)
    return {
        "torus4x4": dor(torus((4, 4), hosts_per_switch=2)),
        "6-cube": nearest(hypercube(6, hosts_per_switch=1)),
        "random16": nearest(rnd),
        "dragonfly": nearest(dfly),
        "dragonfly-valiant": valiant(nearest(dfly), seed=5),
    }


NETS = _nets()



@pytest.mark.parametrize("net", sorted(NETS))
@pytest.mark.parametrize("size,loads", [(1, (0.15, 0.9)), (33, (0.2, 0.95))])
def test_rows_equal_python_engine(net, size, loads):
    if net == "dragonfly-valiant" and size == 1:
        loads = (0.1,)  # routed packet by packet in Python: slow with many small packets
    r = NETS[net]
    for load in loads:
        for allocator, stop_rule, vc_alloc in (("separable", "booksim", "booksim"),
                                               ("separable", "booksim", "credits"),
                                               ("fifo", "strict", "credits")):
            kw = dict(traffic="uniform", load=load, seed=11, packet_size=size,
                      vc_buf_size=2 * size, num_vcs=max(4, r.num_vcs), allocator=allocator,
                      stop_rule=stop_rule, vc_alloc=vc_alloc, **FAST)
            same_on_both_engines(r, **kw)


def test_saturated_and_completed_both_covered():
    """The comparisons above include saturated and completed rows (else they test less
    than they claim)."""
    r = NETS["torus4x4"]
    kw = dict(traffic="uniform", seed=11, packet_size=1, vc_buf_size=2, num_vcs=4, **FAST)
    assert simulate(r, load=0.15, engine="compiled", **kw)["status"] == "completed"
    assert simulate(r, load=0.9, engine="compiled", **kw)["status"] == "saturated"


@pytest.mark.parametrize("features", [
    dict(credit_delay=3), dict(internal_speedup=2.0, speedup_model="pipeline"), dict(link_latency=4),
    dict(routing_delay=2, vc_alloc_delay=0, injection_overhead=0),
])
def test_router_features_equal(features):
    r = NETS["random16"]
    kw = dict(traffic="uniform", load=0.3, seed=2, packet_size=4, vc_buf_size=8, **FAST, **features)
    _same(simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw))


def test_traffic_patterns_and_channel_flits_equal():
    r = NETS["6-cube"]
    for traffic in ("bitrev", "tornado", "randperm"):
        kw = dict(traffic=traffic, load=0.4, seed=4, packet_size=2, vc_buf_size=4,
                  return_channel_flits=True, **FAST)
        (a, fa), (b, fb) = simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw)
        _same(a, b)
        np.testing.assert_array_equal(fa, fb)


def test_trace_equal_and_state_restored():
    r = NETS["dragonfly"]
    rng = np.random.default_rng(0)
    n = r.topology.num_hosts
    k = 3000
    pk = np.c_[np.sort(rng.integers(0, 400, k)), rng.integers(0, n, k), rng.integers(0, n, k)]
    for vc_alloc in ("booksim", "credits"):
        a = run_trace(r, pk, packet_size=3, vc_buf_size=6, engine="python", vc_alloc=vc_alloc)
        b = run_trace(r, pk, packet_size=3, vc_buf_size=6, engine="compiled", vc_alloc=vc_alloc)
        assert isinstance(b.engine, CompiledEngine)
        for f in ("pid", "src", "dst", "created", "injected", "delivered", "links"):
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
        assert len(b.pid) == k and b.cycles == a.cycles
        assert b.engine.credits_restored() and b.engine.idle()


@pytest.mark.parametrize("vc_alloc", ["booksim", "credits"])
def test_deadlock_found_alike(vc_alloc):
    """A routing that is not deadlock-free deadlocks at the same cycle on both engines."""
    r = nearest(torus((8,), hosts_per_switch=1), ties="lowest")  # minimal ring routes, 1 VC
    kw = dict(load=0.3, seed=3, packet_size=8, vc_buf_size=8, num_vcs=1, deadlock_cycles=500,
              self_packets=False, vc_alloc=vc_alloc)
    a, b = simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw)
    assert a["status"] == "deadlock"
    _same(a, b)


def test_run_fixed_equal():
    r = NETS["random16"]
    kw = dict(traffic="uniform", load=0.5, seed=9, packet_size=1, vc_buf_size=4)
    same_fixed_run_on_both_engines(r, 800, **kw)


def test_escape_routing_runs_compiled():
    r = escape(topogen.generate("random", num_switches=12, degree=4, hosts_per_switch=1, seed=2),
               num_vcs=2)
    row = simulate(r, load=0.1, seed=1, packet_size=2, vc_buf_size=4, num_vcs=2, engine="compiled", **FAST)
    assert '"engine":"compiled"' in row["params"]


def test_engine_not_in_results_key():
    from topogen.sim.sweep import derive_seed, point_key, with_digest
    from topogen.sim import describe

    r = NETS["torus4x4"]
    rows = [with_digest(describe(r, load=0.2, seed=1, engine=e), r) for e in ("python", "compiled")]
    assert rows[0]["params"] != rows[1]["params"]
    assert point_key(rows[0]) == point_key(rows[1])
    assert derive_seed(r, load=0.2, engine="python") == derive_seed(r, load=0.2, engine="compiled")
    assert "engine" not in SimConfig().to_dict()


def test_bad_engine_name():
    with pytest.raises(ParameterError, match="engine must be one of"):
        SimConfig(engine="fortran")
