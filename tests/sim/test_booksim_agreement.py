"""Agreement with BookSim2 on the 4x4 torus fixture (anynet, min routing, uniform)."""

from pathlib import Path

import numpy as np
import pytest

from topogen import Topology
from topogen.drivers.booksim import parse_output
from topogen.routing import booksim_min
from topogen.sim import SimConfig, simulate

from shared_paths import FIXTURES

FIX = FIXTURES / "booksim"
pytestmark = pytest.mark.skipif(not (FIX / "torus4x4_c2_low.out").is_file(),
                                reason="BookSim fixtures not available")


def _anynet(path: Path) -> Topology:
    """Topology of a BookSim anynet file (router lines with node and router tokens)."""
    edges, nodes = set(), {}
    for line in path.read_text().splitlines():
        tok = line.split()
        if not tok:
            continue
        assert tok[0] == "router"
        r = int(tok[1])
        i = 2
        while i < len(tok):
            kind, ident = tok[i], int(tok[i + 1])
            i += 2
            if i < len(tok) and tok[i].isdigit():
                assert int(tok[i]) == 1  # latency-1 links only in these fixtures
                i += 1
            if kind == "node":
                nodes.setdefault(r, []).append(ident)
            else:
                edges.add((min(r, ident), max(r, ident)))
    n = max(max(e) for e in edges) + 1
    hosts = [len(nodes.get(r, [])) for r in range(n)]
    # topogen numbers the hosts of switch r after those of switches < r: check BookSim agrees
    flat = [h for r in range(n) for h in sorted(nodes.get(r, []))]
    assert flat == list(range(sum(hosts)))
    return Topology(n, np.array(sorted(edges)), hosts_per_switch=np.array(hosts), name="anynet")


def _config(cfg: dict) -> SimConfig:
    i = lambda k: int(cfg[k])  # noqa: E731
    return SimConfig(num_vcs=i("num_vcs"), vc_buf_size=i("vc_buf_size"), packet_size=i("packet_size"),
                     routing_delay=i("routing_delay"), vc_alloc_delay=i("vc_alloc_delay"),
                     sw_alloc_delay=i("sw_alloc_delay"), st_delay=i("st_final_delay"),
                     link_latency=1, injection_latency=1, ejection_latency=1,
                     injection_overhead=1, warmup_periods=i("warmup_periods"),
                     sample_period=i("sample_period"), max_samples=i("max_samples"),
                     latency_thres=float(cfg["latency_thres"]))


def _run(name, seed):
    out = parse_output(FIX / f"{name}.out")
    cfg = out.config
    assert cfg["topology"] == "anynet" and cfg["routing_function"] == "min"
    assert cfg["traffic"] == "uniform" and cfg.get("injection_rate_uses_flits", "0") == "0"
    topo = _anynet(FIX / cfg["network_file"])
    row = simulate(booksim_min(topo), traffic="uniform", self_packets=True,
                   load=float(cfg["injection_rate"]), load_unit="packets",
                   config=_config(cfg), seed=seed)
    return out, row


def test_low_load_latency_within_5_percent_of_booksim():
    out, row = _run("torus4x4_c2_low", seed=1)
    bs = out.overall[0]
    assert row["status"] == "completed"
    assert abs(row["latency_avg"] - bs["packet_latency_average"]) <= 0.05 * bs["packet_latency_average"]
    assert abs(row["hops_avg"] - bs["hops_average"]) <= 0.02 * bs["hops_average"]
    assert row["latency_min"] == bs["packet_latency_minimum"]  # 7 = 5 * 1 router + 2
    assert row["accepted_load"] == pytest.approx(bs["accepted_packet_rate_average"], rel=0.05)


def test_high_load_saturates_like_booksim():
    out, row = _run("torus4x4_c2_high", seed=1)
    assert out.unstable
    assert row["status"] == "saturated"


@pytest.mark.booksim
def test_cross_check_against_a_real_booksim(tmp_path):
    """Where BookSim is installed: run it on the fixture's 4x4 torus configuration and
    the reference simulator on the same setup (read back from BookSim's own config echo);
    average packet latency within 5 %."""
    import shutil

    from topogen.drivers import booksim as bd
    from topogen.errors import SimulatorNotFound

    try:
        bd.find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    shutil.copy(FIX / "torus4x4_c2.anynet", tmp_path / "torus4x4_c2.anynet")
    cfg = (FIX / "torus4x4_c2_low.cfg").read_text().replace(
        "network_file = torus4x4_c2.anynet;", f"network_file = {tmp_path / 'torus4x4_c2.anynet'};")
    (tmp_path / "low.cfg").write_text(cfg)
    row_bs = bd.run_booksim(tmp_path / "low.cfg", timeout=600)
    assert row_bs["status"] == "completed"
    out = parse_output(row_bs["raw_output"])
    topo = _anynet(tmp_path / "torus4x4_c2.anynet")
    row = simulate(booksim_min(topo), traffic="uniform", self_packets=True,
                   load=float(out.config["injection_rate"]), load_unit="packets",
                   config=_config(out.config), seed=1)
    assert row["status"] == "completed"
    assert abs(row["latency_avg"] - row_bs["latency_avg"]) <= 0.05 * row_bs["latency_avg"]
