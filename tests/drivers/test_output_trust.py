"""A simulator's output becomes a result only when it is whole and plausible.

Small fake simulators print a real BookSim output cut short, with ``nan`` or a negative
latency, with a value that is not a number, exit 1 after whole statistics, die of SIGSEGV or
write hundreds of megabytes.  Through the driver, ``topogen run booksim`` and an experiment
store, none of them may give a ``completed`` row or a finished point: the row names the
failure kind and keeps the raw log, and a rerun with a good simulator redoes the point.
"""

from __future__ import annotations

import math
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from topogen.drivers import base
from topogen.drivers import booksim as bd
from topogen.drivers import sst as sd
from topogen.drivers.base import ProcessResult, row_problem
from topogen.errors import ParameterError, SimulatorFailed
from . import fakes

from shared_paths import FIXTURES as _SHARED  # noqa: E402

FIXTURES = _SHARED / "booksim"
LOW = FIXTURES / "torus4x4_c2_low.out"
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"fixtures not found at {FIXTURES}")
ROOT = Path(__file__).resolve().parents[2]


def _exe(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _upto(pattern: str, extra: int = 0) -> str:
    """sh lines printing the completed fixture up to the first line starting with
    ``pattern`` and ``extra`` lines after it."""
    lines = LOW.read_text().splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(pattern))
    return "".join(f"{ln}\n" for ln in lines[: i + 1 + extra])


def _printing(text_file: Path, tail: str) -> str:
    return f"#!/bin/sh\ncat '{text_file}'\n{tail}\n"


# name -> (how the fake is written, expected status)
def _bad_outputs(tmp: Path) -> dict[str, tuple[str, str]]:
    full = LOW.read_text()
    texts = {
        "cut_after_overall_header": _upto("====== Overall Traffic Statistics"),
        "cut_after_first_overall_line": _upto("====== Traffic class 0", 1),
        "cut_before_total_run_time": full[: full.index("Total run time")],
        "nan_latency": full.replace("Packet latency average = 17.1847 (1 samples)",
                                    "Packet latency average = nan (1 samples)"),
        "negative_latency": full.replace("Packet latency average = 17.1847 (1 samples)",
                                         "Packet latency average = -17.1847 (1 samples)"),
        "garbage_value": full.replace("Hops average = 3.00591 (1 samples)", "Hops average = lots (1 samples)"),
    }
    out = {}
    for name, text in texts.items():
        assert text != full, name
        f = tmp / f"{name}.txt"
        f.write_text(text)
        out[name] = _printing(f, "exit 255")
    out["exit_1_after_whole_statistics"] = _printing(LOW, "exit 1")
    out["sigsegv_after_whole_statistics"] = _printing(LOW, "kill -SEGV $$")
    out["sigsegv_before_statistics"] = f"#!/bin/sh\nhead -n 40 '{LOW}'\nkill -SEGV $$\n"
    out["exit_1_no_output"] = "#!/bin/sh\nexit 1\n"
    return out


EXPECTED = {
    "cut_after_overall_header": "truncated",
    "cut_after_first_overall_line": "truncated",
    "cut_before_total_run_time": "truncated",
    "nan_latency": "implausible",
    "negative_latency": "implausible",
    "garbage_value": "garbage",
    "exit_1_after_whole_statistics": "crash",
    "sigsegv_after_whole_statistics": "crash",
    "sigsegv_before_statistics": "crash",
    "exit_1_no_output": "incomplete",
}


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "run" / "net.cfg"
    cfg.parent.mkdir()
    cfg.write_text("topology = anynet;\nnum_vcs = 4;\n")
    return cfg


# ------------------------------------------------------------------ the driver
@needs_fixtures
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_driver_never_completes_a_broken_output(tmp_path, config, monkeypatch, name):
    exe = _exe(tmp_path / "bin" / "booksim", _bad_outputs(tmp_path)[name])
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    row = bd.run_booksim(config, timeout=30, raise_on_failure=False)
    assert row["status"] == EXPECTED[name], row["message"]
    assert row["status"] in base.FAILURE_STATUSES
    assert math.isnan(row["latency_avg"])
    assert Path(row["raw_output"]).is_file()  # the raw log is kept beside
    assert row_problem(row)[0] == EXPECTED[name]
    with pytest.raises(SimulatorFailed) as info:
        bd.run_booksim(config, timeout=30)
    assert info.value.status == EXPECTED[name]
    assert f"booksim {EXPECTED[name]}" in str(info.value) and "raw output:" in str(info.value)


@needs_fixtures
def test_messages_name_what_is_wrong(tmp_path, config, monkeypatch):
    fakes = _bad_outputs(tmp_path)
    expect = {
        "cut_after_first_overall_line": "Overall Traffic Statistics block is cut short",
        "cut_before_total_run_time": "without BookSim's closing 'Total run time' line",
        "nan_latency": "packet_latency_average = nan",
        "negative_latency": "packet_latency_average = -17.1847",
        "garbage_value": "malformed number 'lots'",
        "exit_1_after_whole_statistics": "exit status 1 after printing its statistics",
    }
    for name, needle in expect.items():
        monkeypatch.setenv("TOPOGEN_BOOKSIM", str(_exe(tmp_path / "bin" / name, fakes[name])))
        row = bd.run_booksim(config, timeout=30, raise_on_failure=False)
        assert needle in row["message"], (name, row["message"])


@needs_fixtures
@pytest.mark.parametrize("tail", ["exit 255", "exit 0"])
def test_whole_output_with_booksims_own_exit_status_still_completes(tmp_path, config, monkeypatch, tail):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(_exe(tmp_path / "bin" / "booksim", _printing(LOW, tail))))
    row = bd.run_booksim(config, timeout=30)
    assert row["status"] == "completed" and row["latency_avg"] == pytest.approx(17.1847)


def test_parser_streams_and_classifies_without_a_process():
    text = _upto("====== Traffic class 0", 1)
    assert bd.classify(bd.parse_output(text)) [0] == "truncated"
    whole = LOW.read_text()
    assert bd.classify(bd.parse_output(whole))[0] == "completed"
    assert bd.classify(bd.parse_output(whole.replace("= 17.1847 (1", "= -nan (1")))[0] == "implausible"


# ------------------------------------------------------------------ children and logs
@needs_fixtures
def test_children_of_the_simulator_do_not_outlive_a_normal_exit(tmp_path, config, monkeypatch):
    pidfile = tmp_path / "child.pid"
    exe = _exe(tmp_path / "bin" / "booksim",
               f"#!/bin/sh\nsleep 300 >/dev/null 2>&1 &\necho $! > '{pidfile}'\ncat '{LOW}'\nexit 255\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    row = bd.run_booksim(config, timeout=30)
    assert row["status"] == "completed"
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while fakes.alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not fakes.alive(pid), "a child of the simulator is still running after topogen returned"


def test_children_are_killed_when_topogen_is_interrupted(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = _exe(tmp_path / "sim", f"#!/bin/sh\nsleep 300 &\necho $! > '{pidfile}'\nexec sleep 300\n")
    import threading

    def interrupt():
        while not pidfile.exists() or not pidfile.read_text().strip():
            time.sleep(0.02)
        import _thread

        _thread.interrupt_main()

    # Ctrl-C as a user's shell delivers it: Python's own handler, whatever an earlier test or
    # library in this process left installed
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            base.run_process([str(script)], tmp_path / "sim.log", timeout=60)
    finally:
        signal.signal(signal.SIGINT, previous)
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while fakes.alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not fakes.alive(pid)


@needs_fixtures
def test_a_large_output_is_capped_and_parsed(tmp_path, config, monkeypatch):
    """Ten times the log cap of output (then a whole run) keeps a log of the cap, with a note
    of what was dropped, and still gives the run's statistics (a parse of the whole output
    would not finish before the timeout, which reads as status ``timeout``)."""
    cap = 4 * 2**20
    exe = _exe(tmp_path / "bin" / "booksim",
               f"#!/bin/sh\nyes 'Slowest packet = 5783' | head -c {10 * cap}\n"
               f"cat '{LOW}'\nexit 255\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    monkeypatch.setenv(base.LOG_CAP_ENV_VAR, str(cap))
    row = bd.run_booksim(config, timeout=300)
    log = Path(row["raw_output"])
    assert log.stat().st_size <= cap + 1024
    assert base.LOG_CUT_MARK.encode() in log.read_bytes()[cap // 2 - 100:][:2048]
    # the whole statistics are in the kept tail: a result, with a note that the log was capped
    assert row["status"] == "completed" and "raw log is capped" in row["message"]


@needs_fixtures
def test_a_large_output_of_garbage_is_not_completed(tmp_path, config, monkeypatch):
    exe = _exe(tmp_path / "bin" / "booksim", "#!/bin/sh\nyes 'x' | head -c 5000000\nexit 255\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    monkeypatch.setenv(base.LOG_CAP_ENV_VAR, str(1 << 20))
    row = bd.run_booksim(config, timeout=60, raise_on_failure=False)
    assert row["status"] == "incomplete"
    assert Path(row["raw_output"]).stat().st_size <= (1 << 20) + 1024


def test_a_runaway_writer_is_killed_and_classified(tmp_path, config, monkeypatch):
    exe = _exe(tmp_path / "bin" / "booksim", "#!/bin/sh\nexec yes 'Packet latency average = 1'\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    monkeypatch.setenv(base.LOG_CAP_ENV_VAR, str(1 << 20))
    row = bd.run_booksim(config, timeout=300, raise_on_failure=False)
    # killed for its output, not stopped by the timeout (that would read "timeout")
    assert row["status"] == "garbage" and "killed it" in row["message"]
    assert Path(row["raw_output"]).stat().st_size <= (1 << 20) + 1024


def test_log_cap_setting_is_checked(monkeypatch):
    monkeypatch.setenv(base.LOG_CAP_ENV_VAR, "ten")
    with pytest.raises(ParameterError, match="TOPOGEN_LOG_CAP='ten' must be a whole number of bytes"):
        base.log_cap()


def test_capped_log_keeps_head_and_tail_on_line_boundaries(tmp_path):
    script = _exe(tmp_path / "sim", "#!/bin/sh\nseq 1 200000\n")
    res = base.run_process([str(script)], tmp_path / "sim.log", timeout=60, cap=256 * 1024)
    assert not res.runaway and res.returncode == 0
    lines = res.log_path.read_text().splitlines()
    assert lines[0] == "1" and lines[-1] == "200000"
    cut = [ln for ln in lines if ln.startswith(base.LOG_CUT_MARK)]
    assert len(cut) == 1 and f"{res.dropped_bytes} bytes of output dropped" in cut[0]
    at = lines.index(cut[0])
    head = [int(ln) for ln in lines[:at] if ln]  # whole lines only: consecutive numbers on both sides
    tail = [int(ln) for ln in lines[at + 1:]]
    assert head == list(range(1, len(head) + 1)) and tail == list(range(tail[0], 200001))
    assert head[-1] + 1 < tail[0]
    assert res.output_bytes == sum(len(str(k)) + 1 for k in range(1, 200001))


# ------------------------------------------------------------------ refused up front
@pytest.mark.parametrize("option,value,needle", [
    ("num_vcs", 0, "num_vcs = 0 is out of range: BookSim needs num_vcs >= 1"),
    ("sample_period", 0, "sample_period = 0 is out of range: BookSim needs sample_period >= 1"),
    ("vc_buf_size", 0, "vc_buf_size >= 1"),
    ("injection_rate", 2.0, "injection_rate > 0 and <= 1"),
])
def test_out_of_range_options_are_refused_before_booksim_runs(tmp_path, config, monkeypatch, option, value,
                                                             needle):
    called = tmp_path / "called"
    exe = _exe(tmp_path / "bin" / "booksim", f"#!/bin/sh\ntouch '{called}'\nexit 255\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    with pytest.raises(ParameterError, match=needle):
        bd.run_booksim(config, overrides={option: value}, timeout=10)
    bad_cfg = config.with_name("bad.cfg")
    bad_cfg.write_text(f"topology = anynet;\n{option} = {value};\n")
    with pytest.raises(ParameterError) as info:
        bd.run_booksim(bad_cfg, timeout=10)
    assert str(info.value).startswith(f"bad.cfg: {option} = ") and needle.split(" = ")[-1] in str(info.value)
    assert not called.exists()


def _cli(*args, exe, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["TOPOGEN_QUIET"] = "1"
    env["TOPOGEN_BOOKSIM"] = str(exe)
    return subprocess.run([sys.executable, "-m", "topogen", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


@pytest.mark.parametrize("args,needle", [
    (["--rate", "2"], "--rate 2 is out of range: the injection rate is per node and cycle"),
    (["--rate", "0"], "--rate 0 is out of range"),
    (["--rate", "-0.1"], "--rate -0.1 is out of range"),
    (["--sweep", "--high", "2"], "need 0 < low < high <= 1 for a load sweep"),
    (["--set", "num_vcs=0"], "--set num_vcs = 0 is out of range"),
    (["--set", "sample_period=0"], "--set sample_period = 0 is out of range"),
])
def test_cli_refuses_bad_rates_and_settings_in_one_line(tmp_path, config, args, needle):
    called = tmp_path / "called"
    exe = _exe(tmp_path / "bin" / "booksim", f"#!/bin/sh\ntouch '{called}'\nexit 255\n")
    res = _cli("run", "booksim", config, "--out-dir", tmp_path / "out", *args, exe=exe)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in res.stderr
    assert not called.exists() and not (tmp_path / "out" / "results.csv").exists()


@needs_fixtures
@pytest.mark.parametrize("name", ["cut_after_first_overall_line", "nan_latency", "negative_latency",
                                  "garbage_value", "exit_1_after_whole_statistics", "sigsegv_before_statistics"])
def test_cli_records_the_failure_kind_and_exits_non_zero(tmp_path, config, name):
    from topogen.results import read_results

    exe = _exe(tmp_path / "bin" / "booksim", _bad_outputs(tmp_path)[name])
    res = _cli("run", "booksim", config, "--out-dir", tmp_path / "out", "--rate", "0.05", exe=exe)
    assert res.returncode == 7, res.stderr
    line = res.stderr.strip().splitlines()
    assert len(line) == 1 and f"booksim {EXPECTED[name]}" in line[0] and "raw output:" in line[0]
    table = read_results(tmp_path / "out" / "results.csv")
    assert list(table["status"]) == [EXPECTED[name]]
    assert Path(table["raw_output"][0]).is_file()


# ------------------------------------------------------------------ the experiment store
BOOKSIM_SPEC = """
[experiment]
name = "trust"

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] } }]
routing = ["booksim-min"]
traffic = ["uniform"]
load = [0.05]
simulator = ["booksim"]
seed = [1]

[measure]
packet_size = 2
link_latency = 1
warmup_periods = 1
sample_period = 100
max_samples = 3
"""


def _good_booksim(folder: Path) -> Path:
    """A stand-in that echoes the configuration and prints the completed fixture."""
    from . import fakes

    return fakes.booksim(folder, _SHARED, knee=1.0)


def _bad_booksim(folder: Path, name: str, tmp: Path) -> Path:
    """A stand-in that echoes the configuration as BookSim does, then a broken output."""
    body = _bad_outputs(tmp)[name]
    echo = ('#!/bin/sh\necho "BEGIN Configuration File: $1"\ncat "$1"\necho "END Configuration File: $1"\n'
            'shift\nfor a in "$@"; do echo "OVERRIDE Parameter: $a"; done\n')
    return _exe(folder / "booksim", echo + body.split("\n", 1)[1])


@needs_fixtures
@pytest.mark.parametrize("name", ["cut_after_first_overall_line", "nan_latency", "negative_latency",
                                  "garbage_value", "exit_1_after_whole_statistics", "sigsegv_after_whole_statistics"])
def test_store_never_counts_a_broken_output_done_and_a_rerun_redoes_it(tmp_path, monkeypatch, name):
    from topogen.experiments.runner import run_points
    from topogen.experiments.spec import load_experiment
    from topogen.experiments.store import Store

    spec = tmp_path / "spec.toml"
    spec.write_text(BOOKSIM_SPEC)
    exp = load_experiment(spec, store=tmp_path / "st")
    store = Store.open(exp.store, exp.name, create=True)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(_bad_booksim(tmp_path / "bad", name, tmp_path)))
    summary = run_points(exp.points, store, progress=False)
    assert summary.failed and not store.done_ids()
    (pid,) = [p.id for p in exp.points]
    assert store.failed_ids() == {pid} and store.pending(exp.points) == list(exp.points)
    rec = store.record(pid, "failed")
    assert rec["kind"] == EXPECTED[name], rec
    assert EXPECTED[name] in rec["error"]
    # a rerun with a good simulator runs the point again and stores its result
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(_good_booksim(tmp_path / "good")))
    summary = run_points(store.pending(exp.points), store, progress=False)
    assert not summary.failed and store.done_ids() == {pid}
    assert store.record(pid)["row"]["status"] == "completed"


def test_store_write_checks_every_row(tmp_path):
    from types import SimpleNamespace

    from topogen.experiments.store import Store
    from topogen.results import make_row

    point = SimpleNamespace(id="p1", index=0, content={})
    good = make_row(simulator="booksim", topology="x", status="completed", offered_load=0.1, latency_avg=20.0)
    saturated = make_row(simulator="booksim", topology="x", status="saturated", offered_load=0.9)
    nan = make_row(simulator="booksim", topology="x", status="completed", offered_load=0.1, latency_avg=math.nan)
    negative = make_row(simulator="booksim", topology="x", status="completed", offered_load=0.1,
                        latency_avg=20.0, accepted_load=-0.1)
    rejected = make_row(simulator="booksim", topology="x", status="rejected", offered_load=0.1, message="Error: x")
    truncated = make_row(simulator="booksim", topology="x", status="truncated", offered_load=0.1, message="cut")
    assert row_problem(good) is None and row_problem(saturated) is None
    assert row_problem(nan)[0] == "implausible" and row_problem(negative)[0] == "implausible"
    assert row_problem(rejected)[0] == "rejected" and row_problem(truncated) == ("truncated", "cut")

    def store(name):
        (tmp_path / name).mkdir()
        return Store(tmp_path / name)

    assert store("good").write(point, good) == "done"
    for k, (bad, kind) in enumerate(((nan, "implausible"), (negative, "implausible"), (truncated, "truncated"),
                                     (rejected, "rejected"))):
        s = store(f"bad{k}")
        assert s.write(point, bad) == "failed"
        assert s.record("p1", "failed")["kind"] == kind and not s.done_ids()
    assert store("sweep").write(point, None, rows=[good, saturated]) == "done"
    s = store("sweep-bad")
    assert s.write(point, None, rows=[good, nan]) == "failed"
    assert s.record("p1", "failed")["kind"] == "implausible"
    # a stored sweep load that is not a result is simulated again
    s.write_sweep_row("p1", "0.1", nan)
    s.write_sweep_row("p1", "0.2", good)
    assert set(s.sweep_rows("p1")) == {"0.2"}


# ------------------------------------------------------------------ SST
def _sst_log(tmp_path, text: str) -> Path:
    log = tmp_path / "sst.log"
    log.write_text(text)
    return log


SST_TABLE = ("Offered Load    Average Latency\n"
             "Load     Latency\n"
             "0.10      172.602 ns\n"
             "0.30      {lat} ns\n"
             "\n"
             "Simulation is complete, simulated time: 210 us\n")


@pytest.mark.parametrize("lat,rc,status", [
    ("180.5", 0, "completed"),
    ("180.5", 1, "crash"),
    ("nan", 0, "implausible"),
    ("-180.5", 0, "implausible"),
    ("lots", 0, "garbage"),
])
def test_sst_offered_load_output_is_judged_the_same_way(tmp_path, lat, rc, status):
    log = _sst_log(tmp_path, SST_TABLE.format(lat=lat))
    proc = ProcessResult(("sst",), rc, False, 1.0, log)
    out, run_status, message = sd.judge_process(proc)
    if status in ("crash", "garbage"):
        assert run_status == status, message
        return
    assert run_status == "completed"
    rows = sd.trust_rows(sd.rows_from_output({}, out, None, status=run_status, message=message,
                                             loads=[0.1, 0.3]))
    assert rows[0]["status"] == "completed"
    assert rows[1]["status"] == status, rows[1]["message"]
    if status != "completed":
        assert row_problem(rows[1])[0] == status and math.isnan(rows[1]["latency_avg"])


def test_sst_short_table_is_truncated_and_runaway_is_garbage(tmp_path):
    text = SST_TABLE.format(lat="180.5").replace("0.30      180.5 ns\n", "")
    out, status, _ = sd.judge_process(ProcessResult(("sst",), 0, False, 1.0, _sst_log(tmp_path, text)))
    rows = sd.rows_from_output({}, out, None, status=status, message=None, loads=[0.1, 0.3])
    assert [r["status"] for r in rows] == ["completed", "truncated"]
    runaway = ProcessResult(("sst",), -9, False, 1.0, _sst_log(tmp_path, "x\n"), output_bytes=10**9,
                            runaway=True)
    assert sd.judge_process(runaway)[1] == "garbage"


def test_sst_bernoulli_rows_are_checked_too():
    from topogen.results import make_row

    rows = [make_row(simulator="sst", topology="x", status="completed", offered_load=0.1, latency_avg=-3.0),
            make_row(simulator="sst", topology="x", status="completed", offered_load=0.2, latency_avg=30.0)]
    sd.trust_rows(rows)
    assert [r["status"] for r in rows] == ["implausible", "completed"]


# ------------------------------------------------------------------ real BookSim
def _real_booksim():
    try:
        return bd.find_booksim()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(str(exc))


@pytest.mark.booksim
@needs_fixtures
def test_real_booksim_sample_period_0_output_is_implausible(tmp_path):
    """What BookSim really prints for sample_period=0 (whole statistics of -nan, exit 255)
    is classified implausible, were it to reach the parser."""
    exe = _real_booksim()
    for f in ("torus4x4_c2_low.cfg", "torus4x4_c2.anynet"):
        (tmp_path / f).write_bytes((FIXTURES / f).read_bytes())
    log = tmp_path / "sp0.log"
    proc = base.run_process([exe, "torus4x4_c2_low.cfg", "sample_period=0"], log, timeout=60, cwd=tmp_path)
    assert proc.returncode == 255
    status, message = bd.classify(bd.parse_output(log), proc)
    assert status == "implausible" and "nan" in message


@pytest.mark.booksim
@needs_fixtures
def test_real_booksim_outcomes_keep_their_status(tmp_path):
    exe = _real_booksim()
    for f in ("torus4x4_c2_low.cfg", "torus4x4_c2_high.cfg", "torus4x4_c2.anynet", "ring8_deadlock.cfg",
              "ring8.anynet"):
        (tmp_path / f).write_bytes((FIXTURES / f).read_bytes())
    got = {c: bd.run_booksim(tmp_path / c, timeout=120, binary=exe)["status"]
           for c in ("torus4x4_c2_low.cfg", "torus4x4_c2_high.cfg", "ring8_deadlock.cfg")}
    assert got == {"torus4x4_c2_low.cfg": "completed", "torus4x4_c2_high.cfg": "saturated",
                   "ring8_deadlock.cfg": "deadlock"}
