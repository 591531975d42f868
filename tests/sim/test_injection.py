"""SST's traffic process in the reference simulator: periodic injection in step, latency
to the head, and SST's ``shift:K`` pattern (``docs/sst.md``)."""

import math

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.routing import nearest
from topogen.sim import SimConfig, Traffic, run_fixed, simulate
from topogen.sim_defaults import sst_router_latencies


def test_the_options_are_checked():
    with pytest.raises(ParameterError, match="injection must be one of bernoulli, periodic"):
        SimConfig(injection="poisson")
    with pytest.raises(ParameterError, match="latency_at must be one of tail, head"):
        SimConfig(latency_at="middle")


@pytest.mark.parametrize("load", [0.02, 0.3, 1.0 / 3])
def test_periodic_hosts_send_every_one_over_p_cycles_in_step(load):
    r = nearest(torus((4,), hosts_per_switch=2))
    cycles = 1000
    out = run_fixed(r, cycles, traffic="neighbor", load=load, packet_size=1, injection="periodic", seed=3)
    # host h creates its k-th packet at floor(k / p): every k with k / p < cycles
    per_host = sum(1 for k in range(10 * cycles) if math.floor(k / load + 1e-9) < cycles)
    assert out["created"] == 8 * per_host
    bern = run_fixed(r, cycles, traffic="neighbor", load=load, packet_size=1, seed=3)
    assert bern["created"] != out["created"] or load == 1.0  # Bernoulli draws vary


def test_head_latency_is_the_tail_latency_less_the_serialisation():
    r = nearest(torus((4, 4), hosts_per_switch=2))
    kw = dict(traffic="uniform", load=0.05, packet_size=9, injection="periodic", seed=5,
              self_packets=False, sample_period=500, max_samples=6)
    tail = simulate(r, **kw)
    head = simulate(r, latency_at="head", **kw)
    assert tail["status"] == head["status"] == "completed"
    # the same packets (periodic times, the same destination draws): only the stamp moves
    assert head["latency_avg"] == pytest.approx(tail["latency_avg"] - 8)
    assert head["latency_min"] == tail["latency_min"] - 8
    assert head["accepted_load"] == tail["accepted_load"]


def test_lockstep_packets_collide_where_bernoulli_ones_rarely_do():
    # ring of 8, shift:2: host i's packet meets host i+1's on link (i+1, i+2) every time
    r = nearest(torus((8,), hosts_per_switch=1))
    kw = dict(load=0.01, packet_size=33, injection="periodic", latency_at="head", seed=1,
              link_latency=1)
    one = simulate(r, traffic="shift:1", **kw)["latency_avg"]
    two = simulate(r, traffic="shift:2", **kw)["latency_avg"]
    zero_load_hop = SimConfig().router_delay + 1
    # the second packet waits for the first one's 33 flits on the shared link
    assert two - one > zero_load_hop + 20


def test_shift_k_pattern():
    tr = Traffic("shift:3", 8, np.random.default_rng(0))
    assert tr.destinations(tr.active, np.random.default_rng(1)).tolist() == [3, 4, 5, 6, 7, 0, 1, 2]
    with pytest.raises(ParameterError, match="shift:K needs an integer K"):
        Traffic("shift:x", 8, np.random.default_rng(0))
    with pytest.raises(ParameterError, match="sends every host to itself"):
        Traffic("shift:8", 8, np.random.default_rng(0))


def test_sst_router_latencies_add_up_to_the_router_delay():
    c = 8 / 3
    assert sst_router_latencies(4, c) == ("1333ps", "5333ps")
    assert sst_router_latencies(2, c) == ("1333ps", "0ps")
    for d in (2, 3, 4, 7):
        lat_in, lat_out = (int(x[:-2]) for x in sst_router_latencies(d, c))
        # + half a cycle to the crossbar clock edge + one output-timing cycle = d cycles
        assert (lat_in + lat_out) / 1000 + 1.5 * c == pytest.approx(d * c, abs=1e-3)
