"""``engine="auto"``: a small simulation runs on the Python engine (nothing compiled), a
large one on the compiled core; the choice changes neither the row's numbers nor its
resume key, and the row records the engine that ran."""

from __future__ import annotations

import json

import numpy as np
import pytest

from topogen.generators.classic import torus
from topogen.routing import route
from topogen.sim import SimConfig, describe, simulate
from topogen.sim.config import AUTO_PYTHON_MAX_WORK, ENGINES, estimated_work, mean_route_links
from topogen.sim.measure import packet_rate
from topogen.sim.sweep import derive_seed, point_key, with_digest

FAST = dict(sample_period=200, warmup_periods=1, max_samples=4, min_period_packets=0)


@pytest.fixture(scope="module")
def t44():
    return route(torus((4, 4)), None, "dor")


def test_auto_is_the_default():
    assert SimConfig().engine == "auto" and "auto" in ENGINES
    assert "engine" not in SimConfig().to_dict()


def test_mean_route_links_of_a_small_table_routing_is_the_mean_over_all_pairs(t44):
    # 16 switches: the sample is every pair; independently from the routing's own paths
    n = t44.topology.num_switches
    lengths = [len(t44.path(s, d)[0]) - 1 for s in range(n) for d in range(n)]
    assert mean_route_links(t44) == pytest.approx(np.mean(lengths))
    # a 4x4 torus: a ring of 4 in each dimension, mean 1 hop per ring
    assert mean_route_links(t44) == pytest.approx(2.0)


def test_mean_route_links_of_a_routing_without_tables_is_twice_the_minimal():
    # Valiant: routes chosen per packet; the estimate is twice the mean hop distance
    t = torus((4, 4))
    r = route(t, None, "valiant")
    assert not hasattr(r, "route_lengths")
    n = t.num_switches
    ring = lambda x, y: min(abs(x - y), 4 - abs(x - y))  # noqa: E731 (a ring of 4)
    hops = [ring(a % 4, b % 4) + ring(a // 4, b // 4) for a in range(n) for b in range(n)]
    assert mean_route_links(r) == pytest.approx(2 * np.mean(hops)) == pytest.approx(4.0)


def test_estimated_work_is_packets_times_routers(t44):
    cfg = SimConfig()
    p = packet_rate(0.1, "flits", cfg)
    hosts = t44.topology.num_hosts
    period = max(cfg.sample_period, int(np.ceil(cfg.min_period_packets / (p * hosts))))
    expect = hosts * p * period * cfg.max_samples * (2.0 + 1.0)
    assert estimated_work(t44, p, cfg) == pytest.approx(expect)
    assert expect < AUTO_PYTHON_MAX_WORK


def test_for_run_picks_by_estimated_work(t44):
    cfg = SimConfig()
    assert cfg.for_run(t44, packet_rate(0.1, "flits", cfg)).engine == "python"
    big = route(torus((32, 32)), None, "dor")
    assert estimated_work(big, packet_rate(0.3, "flits", cfg), cfg) >= AUTO_PYTHON_MAX_WORK
    assert cfg.for_run(big, packet_rate(0.3, "flits", cfg)).engine == "compiled"
    # an explicit engine is kept
    for engine in ("python", "compiled"):
        assert SimConfig(engine=engine).for_run(t44, 0.5).engine == engine
        assert SimConfig(engine=engine).for_run(big, 0.5).engine == engine


def test_python_only_models_keep_their_selection_and_its_reason(t44):
    worm = SimConfig(flow_control="wormhole", vc_buf_size=8)
    obuf = SimConfig(router="output-buffered")
    for cfg in (worm, obuf):
        # "compiled": the network falls back to its Python engine and the row says why
        assert cfg.for_run(t44, 0.001).engine == "compiled"
    row = simulate(t44, load=0.1, seed=2, flow_control="wormhole", vc_buf_size=8, **FAST)
    assert json.loads(row["params"])["engine"].startswith("python (compiled engine: wormhole")


def test_a_small_point_runs_on_python_with_the_python_row(t44):
    kw = dict(load=0.2, seed=5, **FAST)
    auto, py = simulate(t44, **kw), simulate(t44, engine="python", **kw)
    assert json.loads(auto["params"])["engine"] == "python"
    for c in set(auto) - {"wall_time_s", "peak_rss_mb", "total_rss_mb"}:
        a, b = auto[c], py[c]
        assert a == b or (isinstance(a, float) and np.isnan(a) and np.isnan(b)), c


def test_engine_is_not_in_the_resume_key_or_the_seed(t44):
    rows = {e: with_digest(describe(t44, load=0.2, seed=1, engine=e), t44) for e in ENGINES}
    assert len({point_key(r) for r in rows.values()}) == 1
    assert len({derive_seed(t44, load=0.2, engine=e) for e in ENGINES}) == 1


def test_a_small_simulate_compiles_nothing(tmp_path, cold_probe):
    from topogen import formats

    t = torus((4, 4))
    formats.save(tmp_path / "t.json", t, None)
    out = cold_probe("simulate", "t.json", "--load", "0.1", "-o", "r.csv")
    assert out["code"] == 0 and "completed" in out["out"]
    assert out["compiled"] == [], "a 4x4 torus at 0.1 should not compile the event core"
    from topogen.results import read_results

    row = read_results(tmp_path / "r.csv").to_dict("records")[0]
    assert json.loads(row["params"])["engine"] == "python"


@pytest.mark.parametrize("cached", [False, True])
def test_a_sweep_takes_the_compiled_core_only_when_it_is_cached(cached, t44, tmp_path, monkeypatch):
    from topogen.sim import sweep as sweep_module

    asked = []

    def recording(routing, **kw):
        asked.append(kw.get("engine"))
        return simulate(routing, **dict(kw, engine="python"))  # (no compilation in the test)

    monkeypatch.setattr(sweep_module, "_core_cached", lambda: cached)
    monkeypatch.setattr(sweep_module, "simulate", recording)
    res = sweep_module.sweep(t44, tmp_path / "s.csv", low=0.05, high=0.9, tolerance=0.3, **FAST)
    assert res.simulated == len(asked) > 1
    assert set(asked) == {"compiled" if cached else None}
    # an explicit engine is kept
    asked.clear()
    sweep_module.sweep(t44, tmp_path / "p.csv", low=0.05, high=0.9, tolerance=0.3, engine="python", **FAST)
    assert set(asked) == {"python"}
