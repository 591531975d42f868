"""Low offered loads: too few packets per 1000-cycle period used to stop the latency
from converging, and the run was then called saturated at 1 % load."""

from topogen.generators.classic import torus
from topogen.routing import dor
from topogen.sim import simulate


def test_low_load_completes_with_stretched_sample_periods():
    r = dor(torus((4, 4)))
    row = simulate(r, traffic="transpose", load=0.01, seed=3)
    assert row["status"] == "completed", row["message"]
    # 16 hosts at 0.01/33 packets per cycle: ~100 packets need ~20,000-cycle periods
    assert row["sim_cycles"] > 3 * 20_000
    # the accepted rate is the offered one (no backlog), within sampling noise
    # (~400 packets measured: a few percent)
    assert abs(row["accepted_flit_rate"] - 0.01) < 0.1 * 0.01
    assert row["message"] is None


def test_without_stretching_a_noisy_run_that_keeps_up_is_not_saturated():
    """BookSim's fixed 1000-cycle periods: the latency may not converge within
    max_samples, but every offered packet is accepted, so the run completes and says so."""
    r = dor(torus((4, 4)))
    row = simulate(r, traffic="transpose", load=0.01, seed=3, min_period_packets=0)
    assert row["status"] == "completed"
    assert "had not converged" in row["message"] and "not saturated" in row["message"]


def test_overload_is_still_saturated():
    r = dor(torus((4, 4)))
    assert simulate(r, traffic="transpose", load=0.9, seed=3)["status"] == "saturated"
