"""``topogen simulate`` and ``topogen run booksim`` at their defaults on the real BookSim2
(``-m booksim``; skipped without the binary): every setting that changes the numbers is the
same shared default (:mod:`topogen.sim_defaults`) in both results rows, and the mean packet
latency agrees within issue 12's 3 %.

(``tests/sim/test_defaults_booksim.py`` compares the latencies on two topologies; this
test compares the recorded settings one by one, so that a default that drifts on one
side is named.)
"""

import json
import statistics

import pytest

from topogen import sim_defaults as sd
from topogen.cli import main
from topogen.results import read_results

pytestmark = pytest.mark.booksim

SEEDS = (1, 2, 3)

#: reference SimConfig field -> BookSim option, for the settings both rows record
SAME = {"num_vcs": "num_vcs", "vc_buf_size": "vc_buf_size", "packet_size": "packet_size",
        "routing_delay": "routing_delay", "vc_alloc_delay": "vc_alloc_delay",
        "sw_alloc_delay": "sw_alloc_delay", "st_delay": "st_final_delay",
        "credit_delay": "credit_delay", "internal_speedup": "internal_speedup",
        "warmup_periods": "warmup_periods", "sample_period": "sample_period",
        "max_samples": "max_samples", "latency_thres": "latency_thres",
        "stopping_thres": "stopping_thres", "acc_stopping_thres": "acc_stopping_thres",
        "injection": "injection_process"}


@pytest.fixture(scope="module")
def booksim():
    from topogen.drivers.booksim import find_booksim
    from topogen.errors import SimulatorNotFound

    try:
        return find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))


def _params(row) -> dict:
    p = row["params"]
    return json.loads(p) if isinstance(p, str) else p


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def test_defaults_of_simulate_and_run_booksim_are_one_set(booksim, tmp_path, capsys):
    topo = tmp_path / "t4.json"
    assert main(["generate", "torus", "--dims", "4,4", "-o", str(topo)]) == 0
    bs_csv, ref_csv = tmp_path / "booksim.csv", tmp_path / "reference.csv"
    for seed in SEEDS:  # nothing but the seed is given
        assert main(["run", "booksim", str(topo), "--out-dir", str(tmp_path / "bs"),
                     "--set", f"seed={seed}", "-o", str(bs_csv)]) == 0
        assert main(["simulate", str(topo), "--seed", str(seed), "-o", str(ref_csv)]) == 0
    capsys.readouterr()
    bs, ref = read_results(bs_csv), read_results(ref_csv)
    assert list(bs["status"]) == ["completed"] * len(SEEDS) == list(ref["status"])
    assert set(bs["traffic"]) == set(ref["traffic"]) == {sd.TRAFFIC}
    assert set(bs["offered_load"]) == set(ref["offered_load"]) == {sd.LOAD}
    assert set(bs["routing"]) == {"min_anynet"} and set(ref["routing"]) == {sd.ROUTING}
    b, r = _params(bs.iloc[0]), _params(ref.iloc[0])
    cfg = r["config"]
    differ = {k: (cfg[k], b[o]) for k, o in SAME.items() if _num(cfg[k]) != _num(b[o])}
    assert not differ, f"defaults differ (reference, booksim): {differ}"
    assert cfg["packet_size"] == sd.PACKET_SIZE and cfg["num_vcs"] == sd.NUM_VCS
    assert r["cycle_ns"] == pytest.approx(b["clock_period_ns"]) == pytest.approx(sd.CYCLE_NS)
    assert r["traffic"]["self_packets"] is sd.SELF_PACKETS  # BookSim's uniform includes the source
    assert b["injection_rate_uses_flits"] == "1" and r["load_unit"] == "flits"
    lb, lr = statistics.mean(bs["latency_avg"]), statistics.mean(ref["latency_avg"])
    assert abs(lr / lb - 1) <= 0.03, f"booksim {lb:.2f}, reference {lr:.2f} cycles"
    ab, ar = statistics.mean(bs["accepted_flit_rate"]), statistics.mean(ref["accepted_flit_rate"])
    assert abs(ar / ab - 1) <= 0.05, f"accepted: booksim {ab:.4f}, reference {ar:.4f}"
