"""benchmarks/bench_sim.py's BookSim2 built-in torus peer of the packet-hop table: the
configuration it writes, which rows it can serve, the routers per packet it divides by."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import topogen

OPTIONS = {"num_vcs": 4, "vc_buf_size": 16, "packet_size": 1, "traffic": "uniform",
           "injection_rate_uses_flits": 1, "injection_rate": 0.1, "seed": 3,
           "warmup_periods": 1, "sample_period": 120, "max_samples": 1}


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    sys.modules.pop("bench_sim", None)
    import bench_sim

    yield bench_sim
    sys.modules.pop("bench_sim", None)


def _options(text: str) -> dict:
    """``key = value;`` lines of a BookSim configuration (comments left out)."""
    out = {}
    for line in text.splitlines():
        line = line.split("//")[0].strip()
        if line:
            key, _, value = line.rstrip(";").partition("=")
            out[key.strip()] = value.strip()
    return out


def test_builtin_torus_config_is_the_anynet_run_on_booksims_own_torus(bench):
    from topogen.export.booksim import render_config

    native = _options(bench.native_torus_config(16, 3, OPTIONS))
    assert native["topology"] == "torus"
    assert (native["k"], native["n"]) == ("16", "3")
    assert native["routing_function"] == "dim_order"
    assert native["use_noc_latency"] == "0"  # 1 would make every torus channel 2 cycles
    assert "network_file" not in native
    assert (native["num_vcs"], native["vc_buf_size"], native["packet_size"]) == ("4", "16", "1")
    anynet = _options(render_config("x.anynet", setup="vct33", options=OPTIONS))
    assert anynet["topology"] == "anynet"
    # every other line is the anynet run's, the abort threshold aside
    differ = {k for k in set(native) | set(anynet) if native.get(k) != anynet.get(k)}
    assert differ == {"topology", "network_file", "routing_function", "k", "n",
                      "use_noc_latency", "latency_thres"}
    assert float(native["latency_thres"]) > float(anynet["latency_thres"])


def test_builtin_torus_serves_the_tori_of_one_ring_side(bench):
    assert bench.torus_kn("torus256") == (16, 2)
    assert bench.torus_kn("torus4096") == (16, 3)
    assert bench.torus_kn("torus128x128") == (128, 2)
    assert bench.torus_kn("torus16384") is None  # 32x32x16: BookSim's KNCube has one k
    assert bench.torus_kn("sf19") is None
    for name, (gen, params, _, _) in bench.PH_NETS.items():
        kn = bench.torus_kn(name)
        if kn is not None:
            assert kn[0] ** kn[1] == bench.PH_HOSTS[name]  # one host per switch
    with pytest.raises(ValueError, match="k-ary n-cube"):
        bench.ph_booksim("torus16384", 1, (100, 300), 1, builtin=True)


@pytest.mark.parametrize("dims", [(4, 6), (5, 5), (3, 4, 2), (7,)])
def test_ring_mean_hops_is_the_mean_route_of_the_torus(bench, dims):
    """Against breadth-first distances on topogen's torus (minimal = DOR's length), the
    source included as uniform traffic draws it, plus the router a packet starts at."""
    topo = topogen.generate("torus", dims=dims, hosts_per_switch=1)
    n = topo.num_switches
    adj = [[] for _ in range(n)]
    for u, v in np.asarray(topo.edges).tolist():
        adj[u].append(v)
        adj[v].append(u)
    total = 0
    for s in range(n):
        dist = {s: 0}
        frontier = [s]
        while frontier:
            nxt = []
            for u in frontier:
                for v in adj[u]:
                    if v not in dist:
                        dist[v] = dist[u] + 1
                        nxt.append(v)
            frontier = nxt
        total += sum(dist.values())
    assert bench.ring_mean_hops(dims) == pytest.approx(1 + total / n ** 2, rel=1e-12)


def test_booksim_periods_fill_the_network_and_reach_the_target(bench):
    for name in ("torus256", "torus4096", "torus128x128"):
        hops = bench.ring_mean_hops(bench.PH_NETS[name][1]["dims"])
        for ps, target in ((1, 1e6), (33, 3e5)):
            p, q = bench.booksim_periods(name, ps, hops, target)
            assert q == 3 * p and p >= 6 * hops + ps
            load = bench.PH_NETS[name][3]
            assert (q - p) * load / ps * bench.PH_HOSTS[name] * hops >= target


@pytest.mark.booksim
def test_builtin_torus_run_counts_the_routers_of_dimension_order(bench, monkeypatch):
    """A short built-in torus run on BookSim2: both runs complete, and its own hop count
    agrees with the mean the figure divides by."""
    from topogen.drivers.booksim import find_booksim
    from topogen.errors import SimulatorNotFound

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    monkeypatch.setitem(bench.PH_NETS, "torus6x6", ("torus", dict(dims=(6, 6)), "dor", 0.2))
    monkeypatch.setitem(bench.PH_HOSTS, "torus6x6", 36)
    out = bench.ph_booksim("torus6x6", 1, (400, 1200), 5, builtin=True)
    assert [r["status"] for r in out["runs"]] == ["completed", "completed"]
    assert out["marginal"] and out["us_per_hop"] > 0
    assert out["hops_per_packet"] == pytest.approx(1 + 2 * 1.5)  # 6-ring: mean distance 1.5
    assert out["booksim_hops"] == pytest.approx(out["hops_per_packet"], rel=0.05)
    text = Path(out["config"]).read_text()
    assert "topology = torus;" in text and "k = 6;" in text and "n = 2;" in text
