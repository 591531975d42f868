"""kill -9 of ``topogen simulate --sweep`` at seeded random moments:
the results file is always a valid table (or absent), nothing finished is lost, and the
rerun ends with every point exactly once and the same numbers as an uninterrupted sweep
(the seed is derived from the point's content, so a resumed point is the same point)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from topogen import formats
from topogen.generators.classic import torus
from topogen.results import read_results

SWEEP = ["--sweep", "--low", "0.05", "--high", "0.9", "--tolerance", "0.1", "--packet-size", "2",
         "--buffer", "4", "--sample-period", "200", "--warmup-periods", "1", "--max-samples", "3",
         "--link-latency", "1", "--routing", "nr"]
ROOT = Path(__file__).resolve().parents[2]


def _cmd(topo, out):
    return [sys.executable, "-m", "topogen", "simulate", str(topo), *SWEEP, "-o", str(out)]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _table(path):
    df = read_results(path)
    return df.sort_values("offered_load")[["offered_load", "status", "latency_avg", "sim_seed"]].reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("clean")
    topo = d / "t.json"
    formats.save(topo, torus((3, 3), hosts_per_switch=1))
    subprocess.run(_cmd(topo, d / "clean.csv"), check=True, capture_output=True, env=_env(), timeout=600)
    return topo, _table(d / "clean.csv")


def _kill_and_resume(tmp_path, reference, delays):
    topo, clean = reference
    out = tmp_path / "s.csv"
    for delay in delays:
        proc = subprocess.Popen(_cmd(topo, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=_env())
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        if out.exists():  # never half-written: a readable table of finished points only
            partial = _table(out)
            assert partial["offered_load"].is_unique
            merged = partial.merge(clean, on="offered_load", suffixes=("", "_clean"))
            assert len(merged) == len(partial)  # every finished point is one the clean sweep has
            np.testing.assert_allclose(merged["latency_avg"], merged["latency_avg_clean"])
        leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        assert len(leftovers) <= 1  # at most the temp file of the write that was cut short
    done = subprocess.run(_cmd(topo, out), capture_output=True, text=True, env=_env(), timeout=600)
    assert done.returncode == 0, done.stderr
    final = _table(out)
    assert final["offered_load"].is_unique
    assert final["sim_seed"].nunique() == 1
    np.testing.assert_allclose(final["offered_load"], clean["offered_load"])
    np.testing.assert_allclose(final["latency_avg"], clean["latency_avg"])
    assert list(final["status"]) == list(clean["status"])


def test_kill_9_during_sweep_then_resume(tmp_path, reference):
    rng = np.random.default_rng(11)
    _kill_and_resume(tmp_path, reference, list(rng.uniform(0.5, 3.0, size=2)))


@pytest.mark.slow
def test_kill_9_at_many_moments(tmp_path, reference):
    rng = np.random.default_rng(12)
    _kill_and_resume(tmp_path, reference, list(rng.uniform(0.2, 4.0, size=12)))
