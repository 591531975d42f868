"""The input-queued router's VC allocation stage (``vc_alloc="booksim"``): hand-timed
cases derived from BookSim's IQ router (docs/sim.md, "VC allocation")."""

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.routing import nearest
from topogen.sim import SimConfig, run_trace, simulate


def _two_to_one(vc_alloc, size, num_vcs, engine="python"):
    # host 0 (on switch 0) and host 4 (on switch 2) send one packet each at cycle 0 to
    # host 2 (on switch 1): both leave their first switch at 1 + 1 + 4 = 6 (overhead,
    # injection channel, router), reach switch 1 at 7 on its input ports from switches 0
    # and 2 (local ports 2 and 3: hosts first, then neighbours by id) and want the same
    # ejection port
    t = torus((4, 4), hosts_per_switch=2)
    tr = run_trace(nearest(t), [(0, 0, 2), (0, 4, 2)], packet_size=size, vc_buf_size=16,
                   num_vcs=num_vcs, link_latency=1, vc_alloc=vc_alloc, engine=engine)
    assert not tr.deadlocked and len(tr.pid) == 2
    return dict(zip(tr.pid.tolist(), tr.latency.tolist()))


@pytest.mark.parametrize("size", [1, 4])
def test_second_head_waits_for_the_vc_its_rival_owns(size):
    lat = _two_to_one("booksim", size, num_vcs=1)
    # packet 0 crosses two switches alone: 5 R + 2 + S - 1 = 12 + S - 1
    assert lat[0] == 12 + size - 1
    # both heads ask for the one VC of the ejection port at 7 + 4 - 1 = 10 (the cycle
    # before switch allocation); the output VC's arbiter (pointer 0) grants local input 2
    # (from switch 0).  Packet 0 is ejected at 11; its tail crosses the switch at 11 + S - 1
    # and the VC is free for allocation from 11 + S (wait_for_tail_credit = 0: credits are
    # not waited for).  Packet 1 gets it then and is ejected one cycle later, at
    # 11 + S + 1: S + 1 cycles after packet 0.
    assert lat[1] - lat[0] == size + 1


@pytest.mark.parametrize("size", [1, 4])
def test_without_the_stage_the_second_packet_follows_at_once(size):
    # vc_alloc="credits": no VC ownership, so packet 1 is ejected as soon as the port is
    # free, S cycles after packet 0
    lat = _two_to_one("credits", size, num_vcs=1)
    assert lat[0] == 12 + size - 1 and lat[1] - lat[0] == size


def test_two_vcs_two_owners():
    # with 2 VCs both heads get one in the same VC allocation: packet 1 waits only for
    # the port (S cycles), as without the stage
    size = 4
    lat = _two_to_one("booksim", size, num_vcs=2)
    assert lat[0] == 12 + size - 1 and lat[1] - lat[0] == size


def test_zero_load_latency_unchanged():
    # a lone packet is granted its VC the cycle before switch allocation: 5 R + 2 + S - 1
    t = torus((4, 4), hosts_per_switch=2)
    pkts = [(0, 0, 1), (100, 0, 2), (200, 0, 10), (300, 0, 21)]  # 1, 2, 3, 5 routers
    for size in (1, 33):
        tr = run_trace(nearest(t), pkts, packet_size=size, vc_buf_size=max(8, 2 * size),
                       link_latency=1, vc_alloc="booksim")
        routers = tr.links + 1
        assert sorted(tr.latency.tolist()) == sorted((5 * routers + 2 + size - 1).tolist())


def test_loaded_run_keeps_every_flit_and_frees_every_vc():
    t = torus((4, 4), hosts_per_switch=1)
    r = simulate(nearest(t), traffic="uniform", load=0.3, load_unit="flits", packet_size=1,
                 vc_buf_size=8, link_latency=1, vc_alloc="booksim", seed=3, max_samples=4,
                 warmup_periods=1, sample_period=500)
    assert r["status"] == "completed"
    rng = np.random.default_rng(5)
    pk = np.c_[np.sort(rng.integers(0, 2000, 3000)), rng.integers(0, 16, 3000), rng.integers(0, 16, 3000)]
    tr = run_trace(nearest(t), pk, packet_size=2, vc_buf_size=4, link_latency=1, vc_alloc="booksim",
                   engine="python")
    eng = tr.engine
    assert len(tr.pid) == 3000 and eng.idle() and eng.credits_restored()
    assert all(w is None for w in eng.owner) and not eng.ovc


def test_vc_alloc_is_checked():
    with pytest.raises(ParameterError, match="vc_alloc must be one of"):
        SimConfig(vc_alloc="oldest")


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_knot_analysis_sees_heads_waiting_for_owned_vcs(engine):
    # minimal routes on an 8-ring with one VC deadlock; with the VC allocation stage the
    # knot includes heads that wait for a VC owned by a blocked packet
    r = nearest(torus((8,), hosts_per_switch=1), ties="lowest")
    row = simulate(r, load=0.3, seed=3, packet_size=8, vc_buf_size=8, num_vcs=1,
                   deadlock_cycles=10**9, vc_alloc="booksim", engine=engine)
    assert row["status"] == "deadlock" and "wait on each other" in row["message"]


def test_engines_agree_on_hand_cases():
    for size in (1, 4):
        assert _two_to_one("booksim", size, 1, "compiled") == _two_to_one("booksim", size, 1, "python")
