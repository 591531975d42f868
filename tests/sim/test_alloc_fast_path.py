"""The compiled engine's separable allocation where it grants without its scratch tables: a
VC request alone at its switch takes its VC at once, a switch request alone wins its input
and its output at once (same pointer moves).  Pinned against the Python engine, packet for
packet and row for row: allocations with one request (one packet in the network at a time),
several requests to one output (a burst to one host, from many sources and from one source
over several VCs), with and without allocation rounds, with and without the VC allocation
stage."""

import numpy as np
import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.routing import route
from topogen.sim._compiled import CompiledEngine

from ._rows import random_trace, same_fixed_run_on_both_engines, same_on_both_engines

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

TORUS = route(topogen.generate("torus", dims=(4, 4), hosts_per_switch=1), None, "dor")
N = TORUS.topology.num_hosts
#: the router settings of each case: rounds off / on, VC allocation stage on / off
MODES = {
    "plain": dict(num_vcs=4),
    "rounds": dict(num_vcs=4, internal_speedup=2.0),
    "rounds-1.5": dict(num_vcs=4, internal_speedup=1.5),
    "credits": dict(num_vcs=4, vc_alloc="credits"),
}


def _trace(packets, engine, **kw):
    from topogen.sim import run_trace

    return run_trace(TORUS, packets, engine=engine, **kw)


def _same_packets(packets, **kw):
    a = _trace(packets, "python", **kw)
    b = _trace(packets, "compiled", **kw)
    assert isinstance(b.engine, CompiledEngine) and not isinstance(a.engine, CompiledEngine)
    assert len(a.pid) == len(packets) and not a.deadlocked and not b.deadlocked
    o, p = np.argsort(a.pid, kind="stable"), np.argsort(b.pid, kind="stable")
    for f in ("pid", "src", "dst", "injected", "delivered", "links"):
        assert np.array_equal(np.asarray(getattr(a, f))[o], np.asarray(getattr(b, f))[p]), f
    return a


def _spaced(k, gap, seed):
    """``k`` packets between random distinct hosts, one every ``gap`` cycles."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, N, k)
    dst = (src + rng.integers(1, N, k)) % N
    return np.c_[np.arange(k) * gap, src, dst]


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("size", [1, 3])
def test_one_request_per_allocation(mode, size):
    kw = dict(MODES[mode], packet_size=size, vc_buf_size=4 * size)
    pk = _spaced(40, 40, seed=3)
    a = _same_packets(pk, **kw)
    # one packet in the network at a time: every allocation sees one request
    o = np.argsort(a.pid, kind="stable")
    assert np.all(np.asarray(a.delivered)[o][:-1] < pk[1:, 0])


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("size", [1, 2])
def test_several_requests_to_one_output(mode, size):
    kw = dict(MODES[mode], packet_size=size, vc_buf_size=2 * size)
    # every other host sends to host 0 in the same cycles (requests for the same ejection
    # and last links), and host 5 sends a run of packets to host 0 (its router's input
    # holds heads on several VCs asking for one output)
    burst = [(t, s, 0) for t in (0, 1, 2) for s in range(1, N)]
    run = [(t, 5, 0) for t in range(10)]
    pk = np.array(burst + run, dtype=np.int64)
    a = _same_packets(pk, **kw)
    alone = _same_packets(np.array([(0, 5, 0)], dtype=np.int64), **kw)
    lat = np.asarray(a.delivered) - np.asarray(a.created)
    assert lat.max() > 3 * (alone.delivered[0] - alone.created[0])  # they waited for each other


@pytest.mark.parametrize("mode", sorted(MODES))
def test_mixed_load_packets(mode):
    # alone and contended allocations mixed, past saturation
    kw = dict(MODES[mode], packet_size=2, vc_buf_size=4, link_latency=2)
    a = random_trace(TORUS, "python", 1500, 300, seed=4, **kw)
    b = random_trace(TORUS, "compiled", 1500, 300, seed=4, **kw)
    assert isinstance(b.engine, CompiledEngine) and len(a.pid) == 1500
    o, p = np.argsort(a.pid, kind="stable"), np.argsort(b.pid, kind="stable")
    for f in ("pid", "injected", "delivered"):
        assert np.array_equal(np.asarray(getattr(a, f))[o], np.asarray(getattr(b, f))[p]), f


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("load", [0.05, 0.6])
def test_rows_equal_python_engine(mode, load):
    # the measured run (switch allocations in switch order, granted heads joining their
    # output at the end of the allocation): low load, where nearly every allocation has
    # one request, and a contended one
    kw = dict(MODES[mode], packet_size=1, vc_buf_size=8)
    same_on_both_engines(TORUS, traffic="uniform", load=load, seed=7, sample_period=100,
                         warmup_periods=1, max_samples=3, min_period_packets=0, **kw)
    same_fixed_run_on_both_engines(TORUS, 300, traffic="uniform", load=load, seed=7, **kw)


def test_event_loop_compiled_without_reference_counts():
    # the event loop and the allocation rounds borrow the state's arrays: numba's
    # reference counts on each inlined helper's arrays cost the event core about a third
    # of its CPU where allocations serve one request each
    from topogen.sim import _core as C

    for f in (C.run, C._alloc_rounds):
        assert f.targetoptions.get("_nrt") is False, f.__name__
