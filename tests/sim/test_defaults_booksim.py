"""The shared defaults on the real BookSim2 (``-m booksim``; skipped without the binary).

``topogen simulate`` and ``topogen run booksim`` with nothing but their defaults, on the
same topology file, must record the same shared settings (named one by one) and give the
same mean packet latency and accepted rate; and the reference
simulator with the ``slimfly1`` setup's router (credit delay 2, internal speedup 2) must
match BookSim running that setup.  BookSim and the reference simulator both report
cycles; the defaults give both the same cycle (``sim_defaults.CYCLE_NS`` = 2.667 ns), and
the rows say so (``clock_period_ns`` / ``cycle_ns`` in ``params``), so the cycles compare
directly (ns = cycles x 2.667).
"""

import json
import statistics

import pytest

from topogen import sim_defaults as sd
from topogen.cli import main
from topogen import formats
from topogen.results import read_results

pytestmark = pytest.mark.booksim

SEEDS = (1, 2, 3, 4)  # BookSim's 16-host runs vary by about 4 % from seed to seed


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


#: reference SimConfig field -> BookSim option, for the settings both rows record
SAME = {"num_vcs": "num_vcs", "vc_buf_size": "vc_buf_size", "packet_size": "packet_size",
        "routing_delay": "routing_delay", "vc_alloc_delay": "vc_alloc_delay",
        "sw_alloc_delay": "sw_alloc_delay", "st_delay": "st_final_delay",
        "credit_delay": "credit_delay", "internal_speedup": "internal_speedup",
        "warmup_periods": "warmup_periods", "sample_period": "sample_period",
        "max_samples": "max_samples", "latency_thres": "latency_thres",
        "stopping_thres": "stopping_thres", "acc_stopping_thres": "acc_stopping_thres",
        "injection": "injection_process"}



def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


@pytest.mark.parametrize("name,params", [("torus", ["--dims", "4,4"]),
                                         ("hypercube", ["--dimension", "6"])])
def test_simulate_and_run_booksim_defaults_agree(booksim, tmp_path, capsys, name, params):
    topo = tmp_path / f"{name}.json"
    assert main(["generate", name, *params, "-o", str(topo)]) == 0
    bs_csv, ref_csv = tmp_path / "booksim.csv", tmp_path / "reference.csv"
    for seed in SEEDS:
        assert main(["run", "booksim", str(topo), "--out-dir", str(tmp_path / "bs"),
                     "--set", f"seed={seed}", "-o", str(bs_csv)]) == 0
        assert main(["simulate", str(topo), "--routing", sd.ROUTING, "--seed", str(seed), "-o", str(ref_csv)]) == 0
    capsys.readouterr()
    bs, ref = read_results(bs_csv), read_results(ref_csv)
    assert list(bs["status"]) == ["completed"] * len(SEEDS) == list(ref["status"])
    assert set(bs["traffic"]) == set(ref["traffic"]) == {sd.TRAFFIC}
    assert set(bs["routing"]) == {"min_anynet"} and set(ref["routing"]) == {sd.ROUTING}
    # every setting that changes the numbers is the same shared default in both rows,
    # named one by one, so that a default that drifts on one side is named
    b0, r0 = _params(bs.iloc[0]), _params(ref.iloc[0])
    cfg = r0["config"]
    differ = {k: (cfg[k], b0[o]) for k, o in SAME.items() if _num(cfg[k]) != _num(b0[o])}
    assert not differ, f"defaults differ (reference, booksim): {differ}"
    assert cfg["packet_size"] == sd.PACKET_SIZE and cfg["num_vcs"] == sd.NUM_VCS
    assert r0["cycle_ns"] == pytest.approx(b0["clock_period_ns"]) == pytest.approx(sd.CYCLE_NS)
    assert r0["traffic"]["self_packets"] is sd.SELF_PACKETS
    assert b0["injection_rate_uses_flits"] == "1" and r0["load_unit"] == "flits"
    # same load, same unit, same cycle on both sides
    assert set(bs["offered_load"]) == set(ref["offered_load"]) == {sd.LOAD}
    assert set(bs["load_unit"]) == set(ref["load_unit"]) == {"flits/node/cycle"}
    assert set(bs["latency_unit"]) == set(ref["latency_unit"]) == {"cycles"}
    for _, row in bs.iterrows():
        p = _params(row)
        assert p["clock_period_ns"] == pytest.approx(sd.CYCLE_NS)
        assert int(p["packet_size"]) == sd.PACKET_SIZE and int(p["num_vcs"]) == sd.NUM_VCS
        assert int(p["vc_buf_size"]) == sd.VC_BUF_SIZE
    for _, row in ref.iterrows():
        p = _params(row)
        assert p["cycle_ns"] == pytest.approx(sd.CYCLE_NS)
        assert p["config"]["vc_buf_size"] == sd.VC_BUF_SIZE
        assert p["traffic"]["self_packets"] is True  # BookSim's uniform includes the source
    b = statistics.mean(bs["latency_avg"])
    r = statistics.mean(ref["latency_avg"])
    assert abs(r - b) <= 0.03 * b, f"{name}: booksim {b:.2f}, reference {r:.2f} cycles"
    ab, ar = statistics.mean(bs["accepted_flit_rate"]), statistics.mean(ref["accepted_flit_rate"])
    assert abs(ar / ab - 1) <= 0.05, f"{name} accepted: booksim {ab:.4f}, reference {ar:.4f}"


def test_slimfly1_setup_router_features_agree(booksim, tmp_path):
    """Slim Fly q=5 with BookSim's ``slimfly1`` setup (1-flit packets, 3 VCs x 21 flits,
    credit delay 2, internal speedup 2) at 0.1 packets/host/cycle: the reference
    simulator with the same router within 5 % (33 % apart without the speedup)."""
    from topogen.drivers.booksim import read_config_file, run_booksim
    from topogen.export.booksim import export_booksim
    from topogen.layout import default_layout
    from topogen.routing import route
    from topogen.sim import simulate

    path = tmp_path / "sf.json"
    assert main(["generate", "slimfly", "--q", "5", "-o", str(path)]) == 0
    topo, layout = formats.load(path)
    layout = layout or default_layout(topo)
    exp = export_booksim(tmp_path / "bs", topo, layout, setup="slimfly1",
                         options={"injection_rate": 0.1, "seed": 1})
    cfg, _ = read_config_file(exp.config_file)
    assert cfg["credit_delay"] == "2" and cfg["internal_speedup"] == "2.0"
    row_bs = run_booksim(exp.config_file, timeout=1200)
    assert row_bs["status"] == "completed"
    i = lambda k: int(cfg[k])  # noqa: E731
    setup = dict(num_vcs=i("num_vcs"), vc_buf_size=i("vc_buf_size"), packet_size=i("packet_size"),
                 routing_delay=i("routing_delay"), vc_alloc_delay=i("vc_alloc_delay"),
                 sw_alloc_delay=i("sw_alloc_delay"), st_delay=i("st_final_delay"),
                 credit_delay=i("credit_delay"), internal_speedup=float(cfg["internal_speedup"]))
    rt = route(topo, layout, sd.ROUTING, seed=1)
    row = simulate(rt, load=float(cfg["injection_rate"]), load_unit="packets", seed=1, **setup)
    assert row["status"] == "completed"
    b, r = row_bs["latency_avg"], row["latency_avg"]
    assert abs(r - b) <= 0.05 * b, f"booksim {b:.2f}, reference {r:.2f} cycles"

