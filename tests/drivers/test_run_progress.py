"""A single simulator run is never silent: ``topogen run booksim|sst`` names its
configuration and raw log before the simulator starts, then shows progress read from the
simulator's own output -- a status line on a terminal, plain lines at most every
``$TOPOGEN_PROGRESS_INTERVAL`` seconds otherwise, nothing when quiet."""

from __future__ import annotations

import io
import os
import re
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import topogen
from topogen.drivers import base
from topogen.drivers.booksim import BookSimMonitor, run_booksim
from topogen.errors import ParameterError

from shared_paths import FIXTURES  # noqa: E402

from . import fakes

ROOT = Path(__file__).resolve().parents[2]
LOW = FIXTURES / "booksim" / "torus4x4_c2_low.out"
needs_fixtures = pytest.mark.skipif(not LOW.is_file(), reason=f"fixtures not found at {FIXTURES}")

# A BookSim stand-in that prints real output (the fixture after its configuration echo)
# slowly: it stops before the 4th sample period until the gate file exists.
_SLOW_BOOKSIM = r'''#!{python}
import os, sys, time
cfg = sys.argv[1]
print("BEGIN Configuration File: " + cfg)
sys.stdout.write(open(cfg).read())
print("END Configuration File: " + cfg, flush=True)
after, samples = False, 0
for line in open({fixture!r}):
    if not after:
        after = line.startswith("END Configuration File") or line.startswith("OVERRIDE Parameter")
        continue
    if line.startswith("Class 0:"):
        samples += 1
        time.sleep(0.05)
        if samples == 4:
            while not os.path.exists({gate!r}):
                time.sleep(0.02)
    sys.stdout.write(line)
    sys.stdout.flush()
sys.exit(255)
'''


def _slow_booksim(folder: Path, gate: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "booksim"
    exe.write_text(_SLOW_BOOKSIM.format(python=sys.executable, fixture=str(LOW), gate=str(gate)))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def _topology_file(tmp_path: Path) -> Path:
    from topogen import formats
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    path = tmp_path / "net.json"
    formats.save(path, t, topogen.place(t, topogen.Floor.skywalk(4, 4)))
    return path


def _env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TOPOGEN_QUIET", None)
    env.update(extra)
    return env


#: per stream (kept alive here, so its id stays its own): text read and not yet returned as a line
_PENDING: dict[int, list] = {}


def _read_until(stream, pattern: str, seen: list[str], limit_s: float = 60.0) -> str:
    """Lines of ``stream`` (a pipe of a running process; kept in ``seen``) until one
    matches ``pattern``.  Reads the file descriptor itself: a buffered ``readline`` may hold
    the next lines already, where ``select`` on the descriptor would not see them."""
    fd = stream.fileno()
    pending = _PENDING.setdefault(id(stream), ["", stream])
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if "\n" not in pending[0]:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            pending[0] += chunk.decode("utf-8", "replace")
            continue
        line, pending[0] = pending[0].split("\n", 1)
        line += "\n"
        seen.append(line)
        if re.search(pattern, line):
            return line
    raise AssertionError(f"no line matching {pattern!r}; got: {''.join(seen)}")


@needs_fixtures
def test_run_booksim_names_its_config_at_once_and_logs_progress_while_it_runs(tmp_path):
    gate = tmp_path / "gate"
    exe = _slow_booksim(tmp_path / "bin", gate)
    src = _topology_file(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "topogen", "run", "booksim", str(src), "--out-dir", str(out),
         "--rate", "0.05", "--binary", str(exe)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        env=_env(TOPOGEN_PROGRESS_INTERVAL="0.2"))
    seen: list[str] = []
    errors: list[str] = []
    try:
        # the paths on stdout before BookSim gets past its 3rd sample period
        config_line = _read_until(proc.stdout, r"^config: ", seen)
        assert proc.poll() is None, "the config path came only after BookSim ended"
        cfg = Path(config_line.split("config: ", 1)[1].strip())
        assert cfg.parent == out.resolve() and cfg.suffix == ".cfg" and cfg.is_file()
        log = Path(_read_until(proc.stdout, r"^raw output: ", seen).split(": ", 1)[1].strip())
        assert log.suffix == ".log" and log.parent == out.resolve()
        # plain lines on stderr (a pipe) from BookSim's own output, while it still runs
        progress = _read_until(proc.stderr, r"^booksim: \d+ s elapsed, load 0\.05, .*sample period [1-3] "
                                            r"\([\d,]+ cycles\), latency [\d.]+ cycles", errors)
        assert proc.poll() is None
        assert "\r" not in progress
    finally:
        gate.touch()
        stdout, rest = proc.communicate(timeout=120)
    assert proc.returncode == 0, "".join(errors) + rest
    assert "completed" in stdout and f"(raw: {log})" in stdout
    assert "".join(seen + [stdout]).count("config: ") == 1


@needs_fixtures
@pytest.mark.parametrize("how", ["env", "flag"])
def test_quiet_run_booksim_prints_no_progress(tmp_path, how):
    gate = tmp_path / "gate"
    gate.touch()
    exe = _slow_booksim(tmp_path / "bin", gate)
    src = _topology_file(tmp_path)
    argv = [sys.executable, "-m", "topogen", *(["--quiet"] if how == "flag" else []), "run", "booksim", str(src),
            "--out-dir", str(tmp_path / "out"), "--rate", "0.05", "--binary", str(exe)]
    env = _env(TOPOGEN_PROGRESS_INTERVAL="0.01", **({"TOPOGEN_QUIET": "1"} if how == "env" else {}))
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "completed" in done.stdout and done.stdout.startswith("config: ")


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_monitor_reads_booksim_sample_blocks():
    stream = io.StringIO()
    mon = BookSimMonitor(sample_period=1000, point="load 0.05", stream=stream, interval=1e-9, quiet=False)
    assert not mon.tty
    for line in ["BEGIN Configuration File: /x/net.cfg", "END Configuration File: /x/net.cfg",
                 "========================Network File Parsed=================",
                 "========================== Routing table  =====================",
                 "Class 0:", "Packet latency average = 59.2105", "\tminimum = 39",
                 "Class 0:", "Packet latency average = 57.3182",
                 "Warmed up ...Time used is 3000 cycles", "Class 0:", "Packet latency average = 61.4"]:
        mon.feed(line)
    assert mon.state() == "measuring, sample period 3 (3,000 cycles), latency 61.4 cycles"
    time.sleep(0.01)
    mon.tick()
    last = stream.getvalue().splitlines()[-1]
    assert re.fullmatch(r"booksim: \d+ s elapsed, load 0\.05, measuring, sample period 3 \(3,000 cycles\), "
                        r"latency 61\.4 cycles", last)


def test_monitor_splits_raw_output_into_lines():
    mon = BookSimMonitor(stream=io.StringIO(), quiet=True)
    mon.feed_bytes(b"Class 0:\nPacket latency av")
    assert mon.samples == 1 and mon.latency is None  # the half line waits for its end
    mon.feed_bytes(b"erage = 12.5\r\nClass 0:\n")
    assert mon.samples == 2 and mon.latency == 12.5


def test_plain_lines_come_at_most_every_interval():
    stream = io.StringIO()
    mon = BookSimMonitor(stream=stream, interval=3600, quiet=False)
    for _ in range(50):
        mon.tick()
    assert stream.getvalue() == ""


def test_terminal_gets_a_status_line_not_log_lines():
    stream = _Tty()
    mon = BookSimMonitor(sample_period=100, stream=stream, interval=1e-9, quiet=False)
    assert mon.tty
    mon.feed("========================== Routing table  =====================")
    mon.feed("Class 0:")
    mon.tick()
    text = stream.getvalue()
    assert "\r" in text and "booksim ... 00:00  warming up, sample period 1 (100 cycles)" in text
    assert "elapsed" not in text
    mon.close()
    assert stream.getvalue().endswith("\r")


def test_quiet_monitor_shows_nothing():
    stream = _Tty()
    mon = BookSimMonitor(stream=stream, interval=1e-9, quiet=True)
    mon.feed("Class 0:")
    mon.tick()
    mon.close()
    assert stream.getvalue() == ""


def test_bad_interval_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(base.PROGRESS_INTERVAL_ENV_VAR, "soon")
    with pytest.raises(ParameterError, match="TOPOGEN_PROGRESS_INTERVAL='soon' must be a number of seconds"):
        base.progress_interval()
    monkeypatch.setenv(base.PROGRESS_INTERVAL_ENV_VAR, "2.5")
    assert base.progress_interval() == 2.5
    monkeypatch.delenv(base.PROGRESS_INTERVAL_ENV_VAR)
    assert base.progress_interval() == base.DEFAULT_PROGRESS_INTERVAL == 60.0


@needs_fixtures
def test_run_booksim_progress_only_when_asked(tmp_path, monkeypatch, capsys):
    from topogen.export.booksim import export_booksim
    from topogen.generators.classic import torus

    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    monkeypatch.setenv(base.PROGRESS_INTERVAL_ENV_VAR, "0.01")
    gate = tmp_path / "gate"
    gate.touch()
    exe = _slow_booksim(tmp_path / "bin", gate)
    t = torus((4, 4), hosts_per_switch=2)
    exp = export_booksim(tmp_path / "x", t, topogen.place(t, topogen.Floor.skywalk(4, 4)))
    run_booksim(exp.config_file, binary=exe, overrides={"injection_rate": 0.05}, progress=True)
    err = capsys.readouterr()
    assert err.out == ""
    lines = err.err.splitlines()
    assert lines and all(re.match(r"booksim: \d+ s elapsed, load 0\.05, ", line) for line in lines)
    assert any("measuring, sample period" in line for line in lines)
    # without progress=True (sweeps, crossval, experiment points) the driver stays silent
    run_booksim(exp.config_file, binary=exe, overrides={"injection_rate": 0.05})
    assert capsys.readouterr().err == ""


def test_sst_monitor_reads_heartbeats_and_the_end():
    from topogen.drivers.sst_nic import SSTMonitor

    mon = SSTMonitor(planned_ns=70000.0, point="load 0.3", stream=io.StringIO(), quiet=False)
    assert mon.state() == "simulating, 70 us of simulated time planned"
    mon.feed("# Simulation Heartbeat: Simulated Time 12.5 us (Real CPU time since last period 0.50000 seconds)")
    assert mon.state() == "simulating, simulated time 12.5 us of 70 us"
    mon.feed("Simulation is complete, simulated time: 70 us")
    assert mon.state() == "complete, simulated time 70 us of 70 us"


def test_run_sst_shows_progress(tmp_path, monkeypatch, capsys):
    from topogen.drivers.sst import run_sst
    from topogen.export import sst as sx
    from topogen.generators.classic import torus
    from topogen.routing import route

    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    monkeypatch.setenv(base.PROGRESS_INTERVAL_ENV_VAR, "0.01")
    fake = fakes.sst(tmp_path / "bin")
    # the monitor looks every 0.2 s: a fake SST that waits before and after its output is
    # seen both simulating and complete, however fast the machine
    exe = tmp_path / "bin" / "sst-slow"  # beside the fake's sst-config
    exe.write_text(f'#!/bin/sh\nsleep 0.6\n"{fake}" "$@"\nrc=$?\nsleep 0.6\nexit $rc\n')
    exe.chmod(0o755)
    t = torus((2, 4), hosts_per_switch=1)
    layout = topogen.place(t, topogen.Floor.skywalk(2, 4))
    bundle = sx.write_bundle(tmp_path / "net.sst.json", t, layout, route(t, layout, "nr"))
    run_sst(bundle, load=[0.1, 0.2], binary=exe, progress=True, warmup="1us", collect="2us", drain="1us")
    err = capsys.readouterr().err.splitlines()
    for i, x in ((1, "0.1"), (2, "0.2")):
        assert any(re.match(rf"sst: \d+ s elapsed, load {re.escape(x)} \({i} of 2\), "
                            r"simulating, [\d.]+ us of simulated time planned", line) for line in err)
        assert any(re.match(rf"sst: \d+ s elapsed, load {re.escape(x)} \({i} of 2\), complete, "
                            r"simulated time [\d.]+ us of [\d.]+ us", line) for line in err)


def test_run_sst_names_its_bundle_at_once(tmp_path, monkeypatch):
    from topogen.export import sst as sx
    from topogen.generators.classic import torus
    from topogen.routing import route

    exe = fakes.sst(tmp_path / "bin")
    t = torus((2, 4), hosts_per_switch=1)
    layout = topogen.place(t, topogen.Floor.skywalk(2, 4))
    bundle = sx.write_bundle(tmp_path / "net.sst.json", t, layout, route(t, layout, "nr"))
    done = subprocess.run([sys.executable, "-m", "topogen", "run", "sst", str(bundle), "--binary", str(exe),
                           "--load", "0.1", "--warmup", "1us", "--collect", "2us", "--drain", "1us"],
                          capture_output=True, text=True, timeout=300,
                          env=_env(TOPOGEN_PROGRESS_INTERVAL="0.01"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"bundle: {bundle.resolve()}"
    assert re.search(r"^sst: \d+ s elapsed, load 0\.1, ", done.stderr, re.M)
