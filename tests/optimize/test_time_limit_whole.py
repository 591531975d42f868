"""``--time-limit`` bounds the whole optimize command: start-up, compiling the search
kernels and the final check are measured before the search and taken from its time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from topogen import ParameterError
from topogen.optimize import optimize

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path, *args) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "topogen", "-q", "optimize", "--num-switches", "32", "--degree",
                           "4", "--seed", "3", "-o", str(tmp_path / "o.json"), "--format", "json", *args],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_whole_command_keeps_to_the_time_limit(tmp_path):
    # a short run first: it compiles (or loads) the kernels and shows how long start-up takes
    # on this machine now, so that the limit below leaves the search some time
    warm = _run(tmp_path, "--moves", "50")
    limit = max(3.0, 2.0 * warm["elapsed_seconds"] + 1.0)
    out = _run(tmp_path, "--time-limit", f"{limit:.2f}")
    assert out["moves"] > 0
    assert 0 < out["seconds"] < limit
    assert out["elapsed_seconds"] <= limit * 1.2 + 0.3


def test_time_spent_before_the_search_is_taken_from_it():
    t0 = time.monotonic()
    optimize(num_switches=16, degree=4, seed=1, moves=1)  # compiles; how long a call takes here now
    setup = time.monotonic() - t0
    limit, head = 4.0 * setup + 2.0, 2.0 * setup + 1.0
    t0 = time.monotonic()
    res = optimize(num_switches=16, degree=4, seed=1, time_limit=limit, started=t0 - head)
    # the search had at most what was left of the limit begun `head` seconds before the call
    assert 0 < res.summary["seconds"] <= limit - head + 0.25
    assert time.monotonic() - t0 <= (limit - head) * 1.2 + 0.3


def test_a_limit_used_up_before_the_search_is_reported():
    with pytest.raises(ParameterError, match=r"time limit \(5 s\) was used up before the search"):
        optimize(num_switches=16, degree=4, seed=1, time_limit=5.0, started=time.monotonic() - 10.0)
    # the same in the symmetric search and the latency objective
    with pytest.raises(ParameterError, match="used up before the search"):
        optimize(num_switches=32, degree=4, seed=1, time_limit=5.0, symmetry=2, started=time.monotonic() - 10.0)
    with pytest.raises(ParameterError, match="used up before the search"):
        optimize(num_switches=16, degree=3, seed=1, time_limit=5.0, objective="latency",
                 started=time.monotonic() - 10.0)


def test_without_started_the_limit_is_the_search_alone():
    res = optimize(num_switches=16, degree=4, seed=1, time_limit=0.3)
    assert res.summary["seconds"] >= 0.3
    assert "compile_seconds" in res.summary


def test_called_in_process_the_limit_counts_from_the_call(tmp_path, capsys, monkeypatch):
    # a program (here pytest, running for a while) calling the command line's main: its
    # own start-up is not the command's
    from topogen import cli

    monkeypatch.chdir(tmp_path)
    optimize(num_switches=16, degree=4, seed=2, moves=20)  # compiled before the clock
    code = cli.main(["-q", "optimize", "--num-switches", "16", "--degree", "4", "--seed", "2", "--time-limit", "2",
                     "-o", "o.json", "--format", "json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["moves"] > 0 and out["elapsed_seconds"] <= 2 * 1.2 + 0.3
