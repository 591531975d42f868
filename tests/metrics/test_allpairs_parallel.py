"""The all-pairs latency engines: ``auto`` picks SciPy below COMPILED_MIN_WORK and the
compiled kernels (threads over blocks of sources) above it, with identical figures."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import Floor, Topology, place
from topogen.metrics import latency as lat
from topogen.metrics import latency_stats


def _layout(n=300, degree=6, seed=4):
    rng = np.random.default_rng(seed)
    edges = {(i, (i + 1) % n) if i < (i + 1) % n else ((i + 1) % n, i) for i in range(n)}  # a ring: connected
    while len(edges) < n * degree // 2:
        u, v = sorted(int(x) for x in rng.integers(0, n, 2))
        if u != v:
            edges.add((u, v))
    t = Topology(n, np.array(sorted(edges), dtype=np.int32))
    return place(t, Floor.for_switches(n, 10), "random", seed=seed)


def _engine_used(monkeypatch):
    """Record which block function latency_stats runs: compiled or SciPy."""
    used = []
    compiled, scipy_block = lat._Job.compiled_block, lat._Job.block

    def c(self, sources):
        used.append("compiled")
        return compiled(self, sources)

    def s(self, sources):
        used.append("scipy")
        return scipy_block(self, sources)

    monkeypatch.setattr(lat._Job, "compiled_block", c)
    monkeypatch.setattr(lat._Job, "block", s)
    return used


@pytest.mark.parametrize("routing,tie", [("fr", "best"), ("nr", "best"), ("nr", "worst")])
def test_auto_switches_engine_at_the_threshold_with_the_same_figures(routing, tie, monkeypatch):
    lay = _layout()
    ref = latency_stats(lay, routing=routing, nr_tie=tie, engine="scipy")
    used = _engine_used(monkeypatch)
    small = latency_stats(lay, routing=routing, nr_tie=tie)  # 300 x (300 + 1800) < 10**7: SciPy
    assert set(used) == {"scipy"} and small == ref
    used.clear()
    monkeypatch.setattr(lat, "COMPILED_MIN_WORK", 1)
    for workers, block in ((1, None), (2, 37), (2, 1)):
        big = latency_stats(lay, routing=routing, nr_tie=tie, workers=workers, block=block)
        assert set(used) == {"compiled"}
        used.clear()
        assert big == ref, (workers, block)


def test_sampled_sources_agree_across_engines(monkeypatch):
    lay = _layout(seed=9)
    ref = latency_stats(lay, sample=40, seed=2, engine="scipy")
    monkeypatch.setattr(lat, "COMPILED_MIN_WORK", 1)
    assert latency_stats(lay, sample=40, seed=2, workers=2, block=7) == ref


def test_benchmark_loads_the_compiled_kernels_before_timing(monkeypatch, capsys):
    """benchmarks/bench_allpairs.py warms up on two sources, which alone stay below
    COMPILED_MIN_WORK: the warm-up must ask for the compiled engine, or the timed run
    pays loading numba and the kernels."""
    import sys
    from pathlib import Path

    bench_dir = Path(__file__).resolve().parents[2] / "benchmarks"
    monkeypatch.syspath_prepend(str(bench_dir))
    sys.modules.pop("bench_allpairs", None)
    import bench_allpairs

    calls = []
    real = bench_allpairs.latency_stats
    used = _engine_used(monkeypatch)

    def spy(*a, **k):
        before = len(used)
        out = real(*a, **k)
        calls.append(set(used[before:]))
        return out

    monkeypatch.setattr(bench_allpairs, "latency_stats", spy)
    monkeypatch.setattr(bench_allpairs, "Z", 4)  # a 64-switch Skywalk: milliseconds
    monkeypatch.setattr(bench_allpairs, "INTRA", 3)
    monkeypatch.setattr(bench_allpairs, "INTER", 3)
    bench_allpairs.measure(64, False, 1.0, False, [])
    assert calls[0] == {"compiled"}  # the warm-up
    assert "topogen" in capsys.readouterr().out
