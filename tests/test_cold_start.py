"""Cold start: small commands compile nothing, small analyses give the compiled engine's
figures, and the compiled-code cache goes where TOPOGEN_NUMBA_CACHE says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from topogen import Floor, place
from topogen.generators.classic import torus
from topogen.metrics import latency as latency_module
from topogen.metrics import latency_stats
from topogen.metrics.resilience import removable_links

from conftest import cold_env


def _env(tmp_path, **extra) -> dict:
    return cold_env(tmp_path / "numba-cache", **extra)


@pytest.mark.parametrize("argv", [
    ("analyze", "torus", "--dims", "4,4"),
    ("analyze", "torus", "--dims", "4,4", "--resilience", "5", "--routing", "fr,nr"),
])
def test_small_analyses_compile_nothing(cold_probe, argv):
    out = cold_probe(*argv)
    assert out["code"] == 0
    assert out["compiled"] == []
    assert not out["numba"], "a small analysis should not even import numba (0.3 s of CPU)"


def _small_layouts():
    yield place(torus(dims=(4, 4)), Floor.for_switches(16, 4), "random", seed=3)
    yield place(torus(dims=(3, 5)), Floor.for_switches(15, 2), "sequential")


@pytest.mark.parametrize("routing,tie", [("fr", "best"), ("nr", "best"), ("nr", "worst")])
def test_small_auto_analysis_equals_the_compiled_kernels(routing, tie, monkeypatch):
    for lay in _small_layouts():
        auto = latency_stats(lay, routing=routing, nr_tie=tie)
        compiled = latency_stats(lay, routing=routing, nr_tie=tie, engine="compiled")
        assert auto == compiled
        monkeypatch.setattr(latency_module, "COMPILED_MIN_WORK", 0)  # auto -> compiled
        assert latency_stats(lay, routing=routing, nr_tie=tie) == compiled
        monkeypatch.undo()


def test_small_resilience_equals_union_find():
    t = torus(dims=(4, 4))
    rng = np.random.default_rng(5)
    orders = np.array([rng.permutation(t.num_links) for _ in range(6)])
    assert np.array_equal(removable_links(t, orders), removable_links(t, orders, engine="unionfind"))


_COMPILE = r"""
import numpy as np
from topogen.metrics._unionfind import connect_point
parent = np.empty(3, np.int64)
print(connect_point(3, np.array([0, 1], np.int64), np.array([1, 2], np.int64), np.array([0, 1], np.int64), parent))
"""


def _cache_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.nbi")) if folder.exists() else []


def test_topogen_numba_cache_names_the_cache_folder(tmp_path):
    shared, other = tmp_path / "shared", tmp_path / "numba-cache"
    env = _env(tmp_path, TOPOGEN_NUMBA_CACHE=str(shared))
    proc = subprocess.run([sys.executable, "-c", _COMPILE], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"
    assert any("connect_point" in p.name for p in _cache_files(shared))
    assert _cache_files(other) == []  # NUMBA_CACHE_DIR is overridden for topogen's kernels


def test_an_unusable_cache_folder_is_skipped(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = _env(tmp_path, TOPOGEN_NUMBA_CACHE=str(blocker / "cache"))
    proc = subprocess.run([sys.executable, "-c", _COMPILE], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"
    # numba's next choice, NUMBA_CACHE_DIR, took it
    assert any("connect_point" in p.name for p in _cache_files(tmp_path / "numba-cache"))
