"""Progress when stderr is not a terminal: plain log lines, one per point of a sweep or an
experiment and one at least every ``$TOPOGEN_PROGRESS_INTERVAL`` seconds while work runs,
so a batch or SLURM log is never silent for long; nothing when quiet."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from topogen import _progress
from topogen.errors import ParameterError

from shared_paths import FIXTURES, needs_fixtures
from tests.drivers import fakes

ROOT = Path(__file__).resolve().parents[1]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TOPOGEN_QUIET"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _heartbeats() -> int:
    return sum(t.name.startswith("progress-log") for t in threading.enumerate())


# ------------------------------------------------------------------ the Progress helper
def test_a_line_per_step_and_a_heartbeat_while_a_step_runs(monkeypatch):
    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    out = io.StringIO()  # not a terminal
    with _progress.Progress(total=3, desc="sweep", stream=out, log_steps=True, interval=0.05) as bar:
        assert bar.logging and not bar.active
        bar.status("load 0.1")
        bar.update()
        time.sleep(0.4)  # a long step: heartbeat lines while it runs
        bar.status("load 0.2")
        bar.update()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("sweep: 1/3 (33%), ") and lines[0].endswith("; load 0.1")
    assert lines[-1].startswith("sweep: 2/3 (67%), ") and lines[-1].endswith("; load 0.2")
    beats = lines[1:-1]
    assert len(beats) >= 3 and all(b.startswith("sweep: 1/3 (33%), ") for b in beats)
    n = len(out.getvalue())
    time.sleep(0.2)
    assert len(out.getvalue()) == n  # closed: nothing more


def test_without_steps_only_the_heartbeat_writes(monkeypatch):
    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    out = io.StringIO()
    with _progress.Progress(total=1000, desc="BFS", stream=out, interval=30) as bar:
        for _ in range(1000):
            bar.update()  # a hot loop: no line per step
    assert out.getvalue() == ""


@pytest.mark.parametrize("how", ["argument", "env"])
def test_quiet_writes_nothing_and_starts_no_thread(monkeypatch, how):
    if how == "env":
        monkeypatch.setenv("TOPOGEN_QUIET", "1")
    out = io.StringIO()
    before = _heartbeats()
    with _progress.Progress(total=2, desc="x", stream=out, log_steps=True, interval=0.01,
                            quiet=True if how == "argument" else None) as bar:
        assert _heartbeats() == before
        time.sleep(0.05)
        bar.update()
    assert out.getvalue() == ""


def test_a_dropped_bar_stops_its_heartbeat(monkeypatch):
    import gc

    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    out = io.StringIO()
    before = _heartbeats()
    bar = _progress.Progress(desc="left open", stream=out, interval=0.02)
    assert _heartbeats() == before + 1
    del bar
    gc.collect()
    deadline = time.monotonic() + 2
    while _heartbeats() > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _heartbeats() == before


def test_the_interval_is_read_in_one_place(monkeypatch):
    from topogen.drivers import base

    monkeypatch.setenv("TOPOGEN_PROGRESS_INTERVAL", "2.5")
    assert _progress.log_interval() == base.progress_interval() == 2.5
    monkeypatch.setenv("TOPOGEN_PROGRESS_INTERVAL", "-1")
    with pytest.raises(ParameterError, match="must be a number of seconds above 0"):
        _progress.log_interval()
    monkeypatch.delenv("TOPOGEN_PROGRESS_INTERVAL")
    assert _progress.log_interval() == _progress.DEFAULT_LOG_INTERVAL == 60.0


# ------------------------------------------------------------------ commands, stderr to a file
def _torus(tmp_path) -> Path:
    from topogen.cli import main

    path = tmp_path / "t.json"
    assert main(["generate", "torus", "--dims", "3,3", "-o", str(path), "-q"]) == 0
    return path


def _steps(desc: str, log: str) -> dict[int, float]:
    """{point number: load} of the log's point lines (``desc: N done, ...; load L: status``);
    the heartbeat lines written while a point runs repeat the last one or name the running
    load, and are counted once."""
    steps: dict[int, float] = {}
    for ln in log.splitlines():
        m = re.match(rf"^{desc}: (\d+) done, [^;]*; load (\S+): (\w+)$", ln)
        if m:
            n, load = int(m.group(1)), float(m.group(2))
            assert steps.setdefault(n, load) == load
    return steps


def _points(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if re.match(r"^\w+ \S+ load=", ln)]


def test_simulate_sweep_logs_a_line_per_point_to_a_file(tmp_path):
    net = _torus(tmp_path)
    err = tmp_path / "err.log"
    with open(err, "w") as fh:
        proc = subprocess.run(
            [sys.executable, "-m", "topogen", "simulate", str(net), "--sweep", "-o", str(tmp_path / "s.csv"),
             "--low", "0.05", "--high", "0.4", "--tolerance", "0.2", "--points", "0", "--packet-size", "2",
             "--sample-period", "200", "--max-samples", "3", "--warmup-periods", "1"],
            stdout=subprocess.PIPE, stderr=fh, text=True, env=_env(TOPOGEN_PROGRESS_INTERVAL="0.5"),
            cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, err.read_text()
    lines = proc.stdout.splitlines()
    # the plan comes before the first point (after the note naming the family's routing):
    # low, high and one bisection step ((0.4 - 0.05) / 0.2 < 2)
    first = next(ln for ln in lines if not ln.startswith("routing "))
    assert first.startswith("plan: 1 sweep, 1 to 3 simulations")
    points = _points(proc.stdout)
    steps = _steps("sweep", err.read_text())
    assert len(points) >= 2 and sorted(steps) == list(range(1, len(points) + 1))
    assert sorted(steps.values()) == sorted(float(re.search(r"load=(\S+) ", ln).group(1)) for ln in points)


@needs_fixtures("booksim")
def test_run_booksim_sweep_logs_a_line_per_point_to_a_file(tmp_path):
    exe = fakes.booksim(tmp_path / "bin", FIXTURES, knee=0.3)
    net = _torus(tmp_path)
    err = tmp_path / "err.log"
    with open(err, "w") as fh:
        proc = subprocess.run(
            [sys.executable, "-m", "topogen", "run", "booksim", str(net), "--sweep", "--binary", str(exe),
             "--out-dir", str(tmp_path / "out"), "--tolerance", "0.1", "--points", "3"],
            stdout=subprocess.PIPE, stderr=fh, text=True, env=_env(TOPOGEN_PROGRESS_INTERVAL="0.5"),
            timeout=300)
    assert proc.returncode == 0, err.read_text()
    lines = proc.stdout.splitlines()
    # low, high, 4 bisection steps (0.99 halved 4 times is below 0.1) and 2 filled loads
    assert lines[0].startswith("config: ") and lines[1].startswith("plan: 1 sweep, 1 to 8 simulations")
    points = _points(proc.stdout)
    assert 4 <= len(points) <= 8
    steps = _steps("booksim sweep", err.read_text())
    assert sorted(steps) == list(range(1, len(points) + 1))
    assert sorted(steps.values()) == sorted(float(re.search(r"load=(\S+):", ln).group(1)) for ln in points)
    assert any(ln.startswith("estimate: the last simulation took ") and "at that pace" in ln for ln in err.read_text().splitlines())


def test_experiment_run_and_task_log_a_line_per_point(tmp_path):
    from tests.experiments.conftest import write_spec

    spec = write_spec(tmp_path, """
[experiment]
name = "tiny"

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] } }]
routing = ["booksim-min"]
traffic = ["uniform"]
load = [0.05, 0.1, 0.2]
simulator = ["reference"]
seed = [1]

[measure]
packet_size = 2
link_latency = 1
warmup_periods = 1
sample_period = 100
max_samples = 3
""")
    err = tmp_path / "run.log"
    with open(err, "w") as fh:
        proc = subprocess.run([sys.executable, "-m", "topogen", "experiment", "run", str(spec)],
                              stdout=subprocess.PIPE, stderr=fh, text=True, cwd=tmp_path,
                              env=_env(TOPOGEN_PROGRESS_INTERVAL="0.5"), timeout=300)
    assert proc.returncode == 0, err.read_text()
    assert proc.stdout.startswith("estimate: 3 points to run, 3 simulations, ")
    logged = [ln for ln in err.read_text().splitlines() if ln.startswith("experiment: ")]
    steps = {ln.split()[1] for ln in logged if re.match(r"^experiment: \d/3 \(", ln) and " completed in " in ln}
    assert sorted(steps) == ["1/3", "2/3", "3/3"]
    # an array task's log (SLURM writes stderr to a file): a line per point of its chunk
    sub = subprocess.run([sys.executable, "-m", "topogen", "experiment", "submit", str(spec), "--dry-run",
                          "--store", str(tmp_path / "task.store"), "--chunk", "2"],
                         capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=300)
    assert sub.returncode == 0, sub.stderr
    points_json = next((tmp_path / "task.store").rglob("points.json"))
    log = tmp_path / "task.log"
    with open(log, "w") as fh:
        task = subprocess.run([sys.executable, "-m", "topogen", "experiment", "task", str(points_json),
                               "--index", "0"], stdout=fh, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                              env=_env(), timeout=300)
    text = log.read_text()
    assert task.returncode == 0, text
    assert sorted({ln.split()[1] for ln in text.splitlines() if re.match(r"^experiment: \d/2 \(", ln)}) == \
        ["1/2", "2/2"]


def _child_writes(path):
    with open(path, "a") as fh:
        print("child", file=fh, flush=True)
    sys.stderr.write("child on stderr\n")
    sys.stderr.flush()


def test_forking_while_the_heartbeat_writes_never_hangs_a_child(tmp_path, monkeypatch, capfd):
    import multiprocessing

    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    ctx = multiprocessing.get_context("fork")
    out = tmp_path / "children"
    with _progress.Progress(desc="busy", stream=sys.stderr, interval=0.001):
        for _ in range(30):  # forks while the heartbeat writes every millisecond
            child = ctx.Process(target=_child_writes, args=(out,))
            child.start()
            child.join(20)
            assert child.exitcode == 0, "a forked child hung or failed"
    assert out.read_text().count("child") == 30
