"""The backlog rule of :func:`topogen.sim.measure.falls_behind`: a run whose backlog grows
over a short measurement is saturated even when its latency stays under ``latency_thres``
and converges (BookSim's test) and it delivers over 90 % of its packets; a load the network
sustains is not.  ``stop_rule="latency-only"`` keeps BookSim's verdict."""

import numpy as np
import pytest

from topogen import registry
from topogen.routing import route
from topogen.sim import SimConfig, simulate
from topogen.sim.measure import ACCEPT_FLOOR, falls_behind

#: 1-flit packets, 100-cycle sample periods: the short window of the Slim Fly Fig. 6 runs
SHORT = dict(num_vcs=4, vc_buf_size=16, packet_size=1, link_latency=1, credit_delay=2, internal_speedup=2.0,
             warmup_periods=3, sample_period=100, max_samples=10)
SEEDS = (1, 2, 3, 4)


def _counts(created, accepted, first=3):
    return ({first + i: int(c) for i, c in enumerate(created)},
            {first + i: int(a) for i, a in enumerate(accepted)})


# --------------------------------------------------------------------- the rule on counts
def test_stationary_backlog_is_not_behind():
    """Accepted packets that trail the created ones by a backlog that comes and goes."""
    rng = np.random.default_rng(7)
    backlog = 5000 + rng.integers(-300, 300, size=8)  # samples of a stationary backlog
    created = rng.integers(99_000, 101_000, size=7)
    accepted = created - np.diff(backlog)  # each period's deficit is the backlog's change
    assert falls_behind(*_counts(created, accepted), 3, 7) is None


def test_linear_backlog_growth_is_behind():
    """A load 4 % above the throughput: the backlog grows by 4 % of the offered packets a
    period, with noise; delivered stays over 90 % (the old rule alone passed it)."""
    rng = np.random.default_rng(7)
    created = rng.integers(99_000, 101_000, size=5)
    accepted = (created * 0.96 + rng.normal(0, 500, size=5)).astype(int)
    assert accepted.sum() > 0.9 * created.sum()
    why = falls_behind(*_counts(created, accepted), 3, 5)
    assert why is not None and "backlog grew" in why and "under 0.98" in why


def test_growth_under_the_floor_is_not_behind():
    """A backlog that grows by 1 % of the offered packets (a sustained load still settling
    after the warm-up) is not saturation, however small the noise."""
    created = np.full(6, 100_000)
    accepted = created - int((1 - ACCEPT_FLOOR) / 2 * 100_000)
    assert falls_behind(*_counts(created, accepted), 3, 6) is None
    # the same growth at twice the floor is
    accepted = created - int(2 * (1 - ACCEPT_FLOOR) * 100_000)
    assert falls_behind(*_counts(created, accepted), 3, 6) is not None


def test_growth_inside_the_noise_is_not_behind():
    """A 5 % deficit over periods whose deficits spread by as much as it is: not enough
    evidence (the upper confidence bound of accepted/offered is above the floor)."""
    created = np.full(4, 1000)
    accepted = np.array([1000, 850, 1060, 890])  # deficits 0, 150, -60, 110: mean 50, sd ~90
    assert 0.9 < accepted.sum() / created.sum() < ACCEPT_FLOOR
    assert falls_behind(*_counts(created, accepted), 3, 4) is None


def test_under_90_percent_is_behind_whatever_the_periods():
    created, accepted = [1000, 1000], [850, 850]
    why = falls_behind(*_counts(created, accepted), 3, 2)
    assert why is not None and "under 90 %" in why
    # two periods are too few for the spread: 5 % behind is left to the 90 % rule
    assert falls_behind(*_counts([1000, 1000], [950, 950]), 3, 2) is None


def test_nothing_created_is_not_behind():
    assert falls_behind({}, {}, 3, 4) is None


# --------------------------------------------------------------------- the rule in simulate
@pytest.fixture(scope="module")
def sf5():
    """Slim Fly q=5 (50 routers, 200 endpoints) under hop-minimal routing, and its
    throughput: the accepted rate of a long overloaded run (1,000-cycle periods)."""
    rt = route(registry.generate("slimfly", q=5), None, "hop", seed=1, base="nr")
    long = SimConfig(**dict(SHORT, sample_period=1000, max_samples=8))
    row = simulate(rt, load=0.75, config=long, seed=1, stop_rule="latency-only", latency_thres=1e12,
                   max_queue_packets=1 << 40)
    assert row["status"] == "completed", row["message"]
    return rt, float(row["accepted_load"])


@pytest.mark.parametrize("seed", SEEDS)
def test_just_past_the_knee_is_saturated(sf5, seed):
    """5 % above the throughput: BookSim's rule (latency_thres, convergence) completes the
    short run and it delivers over 90 % of its packets, yet its backlog grows."""
    rt, c = sf5
    load = round(1.05 * c, 3)
    cfg = SimConfig(**SHORT)
    row = simulate(rt, load=load, config=cfg, seed=seed)
    assert row["status"] == "saturated", row["message"]
    assert "backlog grew" in row["message"]
    assert row["accepted_load"] > 0.9 * load  # the 90 % rule alone misses it
    booksim = simulate(rt, load=load, config=cfg, seed=seed, stop_rule="latency-only")
    assert booksim["status"] == "completed"  # BookSim's verdict, still available


@pytest.mark.parametrize("seed", SEEDS)
def test_just_below_the_knee_completes(sf5, seed):
    rt, c = sf5
    row = simulate(rt, load=round(0.95 * c, 3), config=SimConfig(**SHORT), seed=seed)
    assert row["status"] == "completed", row["message"]


def test_latency_only_is_a_stop_rule():
    assert SimConfig(stop_rule="latency-only").stop_rule == "latency-only"
