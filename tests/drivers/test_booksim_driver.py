"""BookSim2 output parser, classification, driver and load sweep.

The parser is tested on the real BookSim outputs in the shared fixtures; the driver on
small fake executables that print those outputs and exit the way BookSim does.
"""

from __future__ import annotations

import math
import stat
import sys
from pathlib import Path

import pytest

from topogen.drivers import booksim as bd
from topogen.drivers import booksim_sweep as bsw
from topogen.drivers.base import ProcessResult
from topogen.errors import FormatError, ParameterError, SimulatorFailed, SimulatorNotFound

from shared_paths import FIXTURES as _SHARED  # noqa: E402

FIXTURES = _SHARED / "booksim"
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"fixtures not found at {FIXTURES}")

EXPECTED = {
    "torus4x4_c2_low.out": "completed",
    "torus4x4_c2_high.out": "saturated",
    "ring8_deadlock.out": "deadlock",
    "ring8_1vc_r0.02.out": "deadlock",
    "ring8_1vc_r0.03.out": "deadlock",
    "ring8_1vc_r0.05.out": "deadlock",
}


@needs_fixtures
def test_every_fixture_is_covered():
    assert {p.name for p in FIXTURES.glob("*.out")} == set(EXPECTED)


@needs_fixtures
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_parse_and_classify_fixtures(name):
    parsed = bd.parse_output(FIXTURES / name)
    status, message = bd.classify(parsed)
    assert status == EXPECTED[name]
    row = bd.output_to_row(parsed, status=status, message=message, raw_output=FIXTURES / name)
    assert row["simulator"] == "booksim" and row["raw_output"] == str(FIXTURES / name)
    assert row["latency_unit"] == "cycles" and row["traffic"] == "uniform"
    if status == "completed":
        assert math.isfinite(row["latency_avg"])
    else:
        assert math.isnan(row["latency_avg"])
        assert "unstable" in message.lower() or "exceeded" in message


@needs_fixtures
def test_completed_fixture_values():
    p = bd.parse_output(FIXTURES / "torus4x4_c2_low.out")
    o = p.overall[0]
    assert o["packet_latency_average"] == 17.1847
    assert o["packet_latency_minimum"] == 7 and o["packet_latency_maximum"] == 30
    assert o["flit_latency_average"] == 17.1791
    assert o["accepted_packet_rate_average"] == 0.0488906
    assert o["injected_packet_rate_average"] == 0.0489453
    assert o["accepted_flit_rate_maximum"] == 0.05525
    assert o["hops_average"] == 3.00591 and o["samples"] == 1
    assert p.cycles == 7054 and p.run_time_s == 0.158065
    assert p.sample_blocks == 7 and p.deadlock_warnings == 0
    assert p.config["injection_rate"] == "0.05" and p.config["num_vcs"] == "4"
    row = bd.output_to_row(p, status="completed")
    assert row["offered_load"] == 0.05 and row["load_unit"] == "packets/node/cycle"
    assert row["hops_avg"] == 3.00591 and row["sim_cycles"] == 7054 and row["samples"] == 1
    assert row["sim_seed"] == 42


@needs_fixtures
def test_unstable_fixtures_keep_last_sample_rates():
    high = bd.parse_output(FIXTURES / "torus4x4_c2_high.out")
    row = bd.output_to_row(high, status="saturated")
    assert row["accepted_load"] == 0.216859 and row["offered_load"] == 0.9
    dead = bd.parse_output(FIXTURES / "ring8_1vc_r0.02.out")
    assert dead.config["injection_rate"] == "0.02"  # the OVERRIDE line wins over the echo
    assert dead.deadlock_warnings == 5
    assert math.isnan(dead.last_sample[0]["packet_latency_average"])  # "-nan"
    assert math.isinf(dead.last_sample[0]["throughput_change"])
    assert bd.output_to_row(dead, status="deadlock")["accepted_load"] == 0.0


def test_nan_inf_exponent_and_malformed_values():
    text = ("====== Overall Traffic Statistics ======\n"
            "====== Traffic class 0 ======\n"
            "Packet latency average = -nan (2 samples)\n"
            "\tminimum = inf (2 samples)\n"
            "\tmaximum = 4.19922e-05 (2 samples)\n"
            "Hops average = 1E+1 (2 samples)\n")
    o = bd.parse_output(text).overall[0]
    assert math.isnan(o["packet_latency_average"]) and o["packet_latency_minimum"] == math.inf
    assert o["packet_latency_maximum"] == 4.19922e-05 and o["hops_average"] == 10.0
    assert o["samples"] == 2
    bad = text.replace("1E+1", "1,0x")
    with pytest.raises(FormatError, match="line 6"):
        bd.parse_output(bad)


def test_classify_rejections_and_crashes(tmp_path):
    rej = bd.parse_output("BEGIN Configuration File: x\nEND Configuration File: x\n"
                          "Parse error : Unknown double field: latency_thresh\n")
    assert bd.classify(rej) == ("rejected", "Parse error : Unknown double field: latency_thresh")
    proc = ProcessResult(("booksim",), None, True, 5.0, tmp_path / "x.log")
    hang = bd.parse_output("========================== Routing table  =====================\n")
    status, msg = bd.classify(hang, proc)
    assert status == "hang" and "disconnected" in msg
    crash = ProcessResult(("booksim",), -11, False, 0.1, tmp_path / "x.log")
    assert bd.classify(bd.parse_output("Class 0:\n"), crash)[0] == "crash"
    assert "SIGSEGV" in bd.classify(bd.parse_output("Class 0:\n"), crash)[1]
    assert bd.classify(bd.parse_output("nothing\n"))[0] == "incomplete"


# ---------------------------------------------------------------- fake executables
def fake(tmp_path, body: str, name="booksim") -> Path:
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def sh_printing(tmp_path, fixture: str, tail: str) -> Path:
    return fake(tmp_path, f"#!/bin/sh\ncat '{FIXTURES / fixture}'\n{tail}\n")


@pytest.fixture
def config(tmp_path):
    cfg = tmp_path / "run" / "net.cfg"
    cfg.parent.mkdir()
    cfg.write_text("topology = anynet;\n")
    return cfg


@needs_fixtures
@pytest.mark.parametrize("fixture,tail,status", [
    ("torus4x4_c2_low.out", "exit 255", "completed"),   # BookSim's success exit status
    ("torus4x4_c2_low.out", "exit 0", "completed"),
    ("torus4x4_c2_high.out", "exit 0", "saturated"),    # "Simulation unstable" exits 0
    ("ring8_deadlock.out", "exit 0", "deadlock"),
])
def test_driver_results(tmp_path, config, monkeypatch, fixture, tail, status):
    exe = sh_printing(tmp_path, fixture, tail)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    row = bd.run_booksim(config, timeout=20)
    assert row["status"] == status
    log = Path(row["raw_output"])
    assert log == config.with_suffix(".log") and log.read_text() == (FIXTURES / fixture).read_text()


@needs_fixtures
@pytest.mark.parametrize("tail,status,needle", [
    ("echo \"booksim: networks/anynet.cpp:262: Assertion 'false' failed.\" >&2; kill -ABRT $$", "crash", "SIGABRT"),
    ("kill -SEGV $$", "crash", "SIGSEGV"),
    ("exit 134", "crash", "SIGABRT"),
])
def test_driver_crashes(tmp_path, config, monkeypatch, tail, status, needle):
    # a truncated output (header only) followed by a crash
    exe = fake(tmp_path, f"#!/bin/sh\nhead -n 40 '{FIXTURES / 'ring8_deadlock.out'}'\n{tail}\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    with pytest.raises(SimulatorFailed) as info:
        bd.run_booksim(config, timeout=20)
    err = info.value
    assert err.status == status and needle in str(err)
    assert str(err.log_path) in str(err) and err.log_path.is_file()
    row = bd.run_booksim(config, timeout=20, raise_on_failure=False)
    assert row["status"] == status


def test_driver_hang_and_rejection(tmp_path, config, monkeypatch):
    exe = fake(tmp_path, "#!/bin/sh\necho '========================== Routing table  ====================='\nexec sleep 30\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    with pytest.raises(SimulatorFailed, match="hang.*disconnected"):
        bd.run_booksim(config, timeout=0.5)
    exe = fake(tmp_path, "#!/bin/sh\necho 'Parse error on line 3 : syntax error'\nexit 255\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    with pytest.raises(SimulatorFailed, match="rejected: Parse error on line 3 : syntax error"):
        bd.run_booksim(config, timeout=10)


def test_overrides_are_typed_on_the_command_line(tmp_path, config, monkeypatch):
    exe = fake(tmp_path, "#!/bin/sh\nfor a in \"$@\"; do echo \"ARG $a\"; done\nexit 255\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    row = bd.run_booksim(config, overrides={"injection_rate": 1, "num_vcs": 8}, raise_on_failure=False)
    text = Path(row["raw_output"]).read_text()
    assert f"ARG {config}" in text and "ARG injection_rate=1.0" in text and "ARG num_vcs=8" in text


def test_not_found_message(tmp_path, monkeypatch, config):
    monkeypatch.delenv("TOPOGEN_BOOKSIM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SimulatorNotFound) as info:
        bd.run_booksim(config)
    msg = str(info.value)
    assert "\n" not in msg and "TOPOGEN_BOOKSIM" in msg and "PATH" in msg and "booksim" in msg
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "nope"))
    with pytest.raises(SimulatorNotFound, match="TOPOGEN_BOOKSIM="):
        bd.find_booksim()


SWEEP_FAKE = """#!{python}
import sys
rate = float([a for a in sys.argv if a.startswith("injection_rate=")][0].split("=")[1])
with open({counter!r}, "a") as fh:
    fh.write(f"{{rate}}\\n")
src = {low!r} if rate <= {knee} else {high!r}
for line in open(src):
    sys.stdout.write(line)
    if line.startswith("END Configuration File"):
        sys.stdout.write(f"OVERRIDE Parameter: injection_rate={{rate}}\\n")
sys.exit(255 if rate <= {knee} else 0)
"""


@needs_fixtures
def test_sweep_bisects_and_resumes(tmp_path, config, monkeypatch):
    counter = tmp_path / "calls.txt"
    exe = fake(tmp_path, SWEEP_FAKE.format(python=sys.executable, counter=str(counter), knee=0.37,
                                           low=str(FIXTURES / "torus4x4_c2_low.out"),
                                           high=str(FIXTURES / "torus4x4_c2_high.out")))
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    out = tmp_path / "sweep"
    res = bsw.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.02, timeout=20)
    assert res.zero_load_latency == 17.1847
    assert res.saturation_load <= 0.37 < res.saturation_upper
    assert res.saturation_upper - res.saturation_load <= 0.02
    calls = counter.read_text().split()
    assert len(calls) == len(res.rows) == len(set(calls))
    from topogen.results import read_results

    table = read_results(res.results_path)
    assert list(table["offered_load"]) == sorted(float(c) for c in calls)
    assert set(table["status"]) == {"completed", "saturated"}
    for row in res.rows:  # raw output kept beside each result
        assert Path(row["raw_output"]).is_file()
    # resumable: a second run simulates nothing new
    res2 = bsw.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.02, timeout=20)
    assert counter.read_text().split() == calls
    assert (res2.saturation_load, res2.saturation_upper) == (res.saturation_load, res.saturation_upper)
    assert res.summary_path.is_file()


@pytest.mark.booksim
def test_real_booksim_on_exported_torus(tmp_path):
    try:
        bd.find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    import topogen
    from topogen.export.booksim import export_booksim
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    exp = export_booksim(tmp_path, t, topogen.place(t, topogen.Floor.skywalk(4, 4)), setup="default",
                         options={"injection_rate": 0.05})
    row = bd.run_booksim(exp.config_file, timeout=300)
    assert row["status"] == "completed" and row["topology"] == "torus"
    assert 1.0 < row["hops_avg"] < 5.0


# ---------------------------------------------------------------- audit additions
@needs_fixtures
@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("exit_code", [255, 0])
def test_driver_classifies_every_fixture_whatever_the_exit_status(tmp_path, config, monkeypatch, name, exit_code):
    """The outcome comes from the text alone: BookSim's exit status (255 on success, 0 after
    "Simulation unstable") must not change it."""
    exe = sh_printing(tmp_path, name, f"exit {exit_code}")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    row = bd.run_booksim(config, timeout=20)
    assert row["status"] == EXPECTED[name]
    assert Path(row["raw_output"]).is_absolute()
    assert Path(row["raw_output"]).read_bytes() == (FIXTURES / name).read_bytes()


@needs_fixtures
def test_driver_keeps_every_raw_log(tmp_path, config, monkeypatch):
    exe = sh_printing(tmp_path, "torus4x4_c2_low.out", "exit 255")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    first = bd.run_booksim(config, timeout=20)["raw_output"]
    second = bd.run_booksim(config, timeout=20)["raw_output"]
    assert first != second and Path(first).is_file() and Path(second).is_file()
    assert Path(second).name == "net.1.log"


@needs_fixtures
def test_row_metadata_falls_back_to_the_config_file(tmp_path, monkeypatch):
    """A log without topogen's metadata echo (here: a fake that prints a fixture) still
    gives rows naming the exported topology, from the config file itself."""
    import topogen
    from topogen.export.booksim import export_booksim
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    exp = export_booksim(tmp_path / "exp", t, topogen.place(t, topogen.Floor.skywalk(4, 4)), setup="vct33")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(sh_printing(tmp_path, "torus4x4_c2_low.out", "exit 255")))
    row = bd.run_booksim(exp.config_file, timeout=20)
    assert row["topology"] == "torus" and row["num_switches"] == 16 and row["num_hosts"] == 32
    assert row["topology_params"] == '{"dims":[4,4],"hosts_per_switch":2}'
    # what the log echoed wins over the file (the fixture ran 0.05 packets/node/cycle)
    assert row["offered_load"] == 0.05


def test_rates_keep_the_schema_units_whatever_the_load_unit():
    """accepted/injected_load are packets/node/cycle (as for every simulator), the flit
    rates flits/node/cycle, even when the offered load is in flits (vct33)."""
    text = ("BEGIN Configuration File: x.cfg\n"
            "injection_rate_uses_flits = 1;\npacket_size = 33;\ninjection_rate = 0.3;\n"
            "END Configuration File: x.cfg\n"
            "====== Overall Traffic Statistics ======\n"
            "====== Traffic class 0 ======\n"
            "Packet latency average = 100.5 (1 samples)\n"
            "Injected packet rate average = 0.00909 (1 samples)\n"
            "Accepted packet rate average = 0.00900 (1 samples)\n"
            "Injected flit rate average = 0.3 (1 samples)\n"
            "Accepted flit rate average = 0.297 (1 samples)\n"
            "Hops average = 3.5 (1 samples)\n")
    row = bd.output_to_row(bd.parse_output(text), status="completed")
    assert row["load_unit"] == "flits/node/cycle" and row["offered_load"] == 0.3
    assert row["accepted_load"] == 0.009 and row["injected_load"] == 0.00909
    assert row["accepted_flit_rate"] == 0.297 and row["injected_flit_rate"] == 0.3
    packets = bd.output_to_row(bd.parse_output(text.replace("uses_flits = 1", "uses_flits = 0")),
                               status="completed")
    assert packets["load_unit"] == "packets/node/cycle" and packets["accepted_load"] == 0.009


def test_incomplete_parse_line_is_a_warning_not_a_rejection(tmp_path):
    text = ("Anynet:Incomplete parse of the line: \n"
            "========================== Routing table  =====================\n")
    parsed = bd.parse_output(text)
    assert parsed.errors == [] and parsed.warnings
    proc = ProcessResult(("booksim",), None, True, 5.0, tmp_path / "x.log")
    assert bd.classify(parsed, proc)[0] == "hang"


CRASHING_FAKE = """#!{python}
import os, signal, sys
rate = float([a for a in sys.argv if a.startswith("injection_rate=")][0].split("=")[1])
with open({counter!r}, "a") as fh:
    fh.write(f"{{rate}}\\n")
crash_above = open({control!r}).read().strip()   # the test changes it between runs
if crash_above and rate > float(crash_above):
    sys.stdout.write("Class 0:\\n")
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)   # the machine went away mid-point
src = {low!r} if rate <= {knee} else {high!r}
sys.stdout.write(open(src).read())
sys.exit(255 if rate <= {knee} else 0)
"""


@needs_fixtures
def test_sweep_resumes_after_a_crash_without_redoing_finished_points(tmp_path, config, monkeypatch):
    counter = tmp_path / "calls.txt"
    low, high = str(FIXTURES / "torus4x4_c2_low.out"), str(FIXTURES / "torus4x4_c2_high.out")

    control = tmp_path / "crash_above.txt"
    exe = fake(tmp_path, CRASHING_FAKE.format(python=sys.executable, counter=str(counter), knee=0.37,
                                              control=str(control), low=low, high=high))
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))

    def install(crash_above):  # same executable (it is part of the resume key), new behaviour
        control.write_text("" if crash_above is None else str(crash_above))

    out = tmp_path / "sweep"
    install(crash_above=0.5)  # 0.01 completes, then the process dies on the high point 1.0
    with pytest.raises(SimulatorFailed, match="crash.*SIGKILL"):
        bsw.sweep_booksim(config, out / "b", low=0.01, high=1.0, tolerance=0.02, timeout=20)
    done = counter.read_text().split()
    assert done == ["0.01", "1.0"]
    points = out / "b" / "points"
    # the finished point is stored with its raw log; the crashed one kept its log only
    assert len(list(points.glob("rate_0.01-*.json"))) == 1 and len(list(points.glob("rate_0.01-*.log"))) == 1
    assert not list(points.glob("rate_1-*.json")) and len(list(points.glob("rate_1-*.log"))) == 1
    assert not [p for p in (out / "b").rglob("*.tmp")]
    from topogen.results import read_results

    assert read_results(out / "b" / "sweep.csv")["offered_load"].tolist() == [0.01]
    # the re-run (the machine is fine again) redoes only the unfinished point
    install(crash_above=None)
    counter.write_text("")
    res = bsw.sweep_booksim(config, out / "b", low=0.01, high=1.0, tolerance=0.02, timeout=20)
    redone = counter.read_text().split()
    assert "0.01" not in redone and redone[0] == "1.0"
    assert res.saturation_load <= 0.37 < res.saturation_upper
    assert len(read_results(res.results_path)) == len(redone) + 1


# ---------------------------------------------------------------- keys, kills, fidelity
from . import fakes  # noqa: E402


def _controlled(tmp_path, **control):
    """The fakes.booksim stand-in driven by a JSON control file (same executable throughout)."""
    import json

    ctl = tmp_path / "control.json"
    ctl.write_text(json.dumps(control))
    exe = fakes.booksim(tmp_path / "bin", _SHARED, knee=0.37, control=ctl)
    return exe, ctl


def _set_control(ctl, **control):
    import json

    ctl.write_text(json.dumps(control))


def _calls(path):
    return path.read_text().splitlines() if path.exists() else []


@needs_fixtures
def test_sweep_key_covers_config_netlist_overrides_and_binary(tmp_path, config, monkeypatch):
    """A re-run with another traffic (in the file or as an override), another netlist or
    another BookSim build simulates again and returns its own rows, never the old ones."""
    calls = tmp_path / "calls.txt"
    exe, _ = _controlled(tmp_path, calls=str(calls))
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    net = config.parent / "net.anynet"
    net.write_text("router 0 node 0 router 1 1\nrouter 1 node 1 router 0 1\n")
    config.write_text(f"topology = anynet;\nnetwork_file = {net};\ntraffic = uniform;\n")
    out = tmp_path / "sweep"
    kw = dict(low=0.01, high=1.0, tolerance=0.1, timeout=30)
    first = bsw.sweep_booksim(config, out, **kw)
    n = len(_calls(calls))
    assert n == len(first.rows) and {r["traffic"] for r in first.rows} == {"uniform"}
    again = bsw.sweep_booksim(config, out, **kw)  # the same sweep: every point re-used
    assert len(_calls(calls)) == n and again.rows == first.rows
    # another traffic in the configuration file
    config.write_text(f"topology = anynet;\nnetwork_file = {net};\ntraffic = bitrev;\n")
    second = bsw.sweep_booksim(config, out, **kw)
    assert len(_calls(calls)) == 2 * n and {r["traffic"] for r in second.rows} == {"bitrev"}
    # another traffic as an override
    third = bsw.sweep_booksim(config, out, overrides={"traffic": "transpose"}, **kw)
    assert len(_calls(calls)) == 3 * n and {r["traffic"] for r in third.rows} == {"transpose"}
    assert all("traffic=transpose" in c for c in _calls(calls)[2 * n:])
    # another netlist behind the same configuration
    net.write_text("router 0 node 0 router 1 2\nrouter 1 node 1 router 0 2\n")
    bsw.sweep_booksim(config, out, **kw)
    assert len(_calls(calls)) == 4 * n
    # another BookSim build (same behaviour, other bytes)
    exe.write_text(exe.read_text() + "# rebuilt\n")
    bsw.sweep_booksim(config, out, **kw)
    assert len(_calls(calls)) == 5 * n
    with pytest.raises(ParameterError, match="injection_rate"):
        bsw.sweep_booksim(config, out, overrides={"injection_rate": 0.1}, **kw)


@needs_fixtures
def test_sweep_retries_a_hang_only_with_a_longer_timeout(tmp_path, config, monkeypatch):
    calls = tmp_path / "calls.txt"
    exe, ctl = _controlled(tmp_path, calls=str(calls), hang_above=0.0)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    out = tmp_path / "sweep"
    res = bsw.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.1, timeout=0.5)
    assert [r["status"] for r in res.rows] == ["hang"] and len(_calls(calls)) == 1
    # the same or a shorter timeout would hang again: the stored hang stands
    res = bsw.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.1, timeout=0.5)
    res = bsw.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.1, timeout=0.3)
    assert [r["status"] for r in res.rows] == ["hang"] and len(_calls(calls)) == 1
    # a longer timeout retries it (and this time BookSim gets through)
    _set_control(ctl, calls=str(calls))
    res = bsw.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.1, timeout=60)
    assert res.rows[0]["status"] == "completed" and _calls(calls)[1] == "injection_rate=0.01"
    logs = sorted(p.name for p in (out / "points").glob("rate_0.01-*.log"))
    assert len(logs) == 2  # the hung run's log is kept, not overwritten


def _cli(argv, exe, capsys):
    """``topogen ARGV`` in this process, with ``exe`` as BookSim: (exit code, stderr)."""
    import os

    from topogen.cli import main

    old = os.environ.get("TOPOGEN_BOOKSIM")
    os.environ["TOPOGEN_BOOKSIM"] = str(exe)
    try:
        capsys.readouterr()
        code = main(argv)
    finally:
        if old is None:
            del os.environ["TOPOGEN_BOOKSIM"]
        else:
            os.environ["TOPOGEN_BOOKSIM"] = old
    return code, capsys.readouterr().err


def _env(exe):
    import os

    env = dict(os.environ)
    env["TOPOGEN_BOOKSIM"] = str(exe)
    env["PYTHONPATH"] = str(Path(bd.__file__).resolve().parents[2])
    return env


@needs_fixtures
def test_cli_config_sweep_passes_traffic_and_set(tmp_path, config, capsys):
    calls = tmp_path / "calls.txt"
    exe, _ = _controlled(tmp_path, calls=str(calls))
    code, err = _cli(["run", "booksim", str(config), "--sweep", "--traffic", "bitrev", "--set", "num_vcs=8",
                      "--low", "0.01", "--tolerance", "0.1"], exe, capsys)
    assert code == 0, err
    made = _calls(calls)
    assert made and all("traffic=bitrev" in c and "num_vcs=8" in c for c in made)
    from topogen.results import read_results

    table = read_results(config.parent / "results.csv")
    assert set(table["traffic"]) == {"bitrev"} and len(table) == len(made)


@needs_fixtures
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_kill_9_of_topogen_kills_booksim(tmp_path, config):
    import os
    import signal
    import subprocess
    import time

    pidfile = tmp_path / "booksim.pid"
    exe, _ = _controlled(tmp_path, pidfile=str(pidfile), hang_above=0.0)
    proc = subprocess.Popen([sys.executable, "-m", "topogen", "run", "booksim", str(config), "--sweep",
                             "--low", "0.01"], env=_env(exe), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    child = None
    try:
        deadline = time.monotonic() + 120
        while not pidfile.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pidfile.exists(), "the stand-in BookSim never started"
        child = int(pidfile.read_text())
        assert fakes.alive(child)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while fakes.alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not fakes.alive(child), "BookSim outlived a kill -9 of topogen"
    finally:
        if proc.poll() is None:
            proc.kill()
        if child is not None and fakes.alive(child):
            os.kill(child, signal.SIGKILL)


@needs_fixtures
def test_concurrent_runs_into_one_out_dir_keep_their_own_config(tmp_path):
    """Two `run booksim` of one topology at different rates into one --out-dir: each row
    comes from the run's own configuration (before, the second export replaced the first's
    torus.cfg and the first run's row said the second run's offered_load)."""
    import subprocess
    import time

    import topogen
    from topogen import formats
    from topogen.generators.classic import torus
    from topogen.results import read_results

    t = torus((4, 4), hosts_per_switch=2)
    src = tmp_path / "net.json"
    formats.save(src, t, topogen.place(t, topogen.Floor.skywalk(4, 4)))
    gate = tmp_path / "gate"
    pids = tmp_path / "pid"
    exe, _ = _controlled(tmp_path, gate=str(gate), pidfile=str(pids))
    out = tmp_path / "out"
    procs = []
    for rate in ("0.05", "0.1"):
        pids.unlink(missing_ok=True)
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "topogen", "run", "booksim", str(src), "--out-dir", str(out),
             "--setup", "default", "--rate", rate, "-o", str(tmp_path / f"r{rate}.csv")],
            env=_env(exe), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        deadline = time.monotonic() + 120  # this run's BookSim has started (its export is done)
        while not pids.exists() and procs[-1].poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids.exists(), procs[-1].communicate()
    gate.write_text("open")  # both exports are on disk; now both BookSims read their configs
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    for rate in ("0.05", "0.1"):
        (row,) = read_results(tmp_path / f"r{rate}.csv").to_dict("records")
        assert row["offered_load"] == float(rate)
        assert f"injection_rate = {rate};" in Path(row["raw_output"]).read_text()
    assert len(list(out.glob("torus-*.cfg"))) == 2


@needs_fixtures
def test_failed_run_leaves_nothing_behind(tmp_path, capsys):
    import topogen
    from topogen import formats
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    src = tmp_path / "net.json"
    formats.save(src, t, topogen.place(t, topogen.Floor.skywalk(4, 4)))
    exe = fakes.booksim(tmp_path / "bin", _SHARED)
    # a new out-dir is not left behind (also not its new parents)
    code, err = _cli(["run", "booksim", str(src), "--out-dir", str(tmp_path / "new" / "out"),
                      "--traffic", "bogus"], exe, capsys)
    assert code == 2 and "traffic" in err and "Traceback" not in err
    assert not (tmp_path / "new").exists()
    code, err = _cli(["run", "booksim", str(src), "--out-dir", str(tmp_path / "new"),
                      "--binary", str(tmp_path / "nope")], exe, capsys)
    assert code == 6 and not (tmp_path / "new").exists()
    # an existing out-dir gets no half export (before: the netlist was written, then the
    # configuration refused)
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "mine.txt").write_text("x")
    for bad in (["--traffic", "transpose"], ["--set", "num_vcs=x"], ["--set", "latency_thresh=1.0"],
                ["--sweep", "--low", "0.5", "--high", "0.1"], ["--timeout", "0"]):
        code, err = _cli(["run", "booksim", str(src), "--out-dir", str(keep), *bad], exe, capsys)
        assert code == 2 and "Traceback" not in err and err.count("\n") == 1, (bad, err)
        assert sorted(p.name for p in keep.iterdir()) == ["mine.txt"], bad


@needs_fixtures
def test_message_before_a_crash_reaches_the_error(tmp_path, config, monkeypatch):
    # what BookSim prints for `router = foo` (stderr, unbuffered) before it segfaults
    exe = fake(tmp_path, f"#!/bin/sh\nhead -n 40 '{FIXTURES / 'torus4x4_c2_low.out'}'\n"
                         "echo 'Unknown router type: foo' >&2\nkill -SEGV $$\n")
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    with pytest.raises(SimulatorFailed) as info:
        bd.run_booksim(config, timeout=20)
    assert info.value.status == "rejected"
    assert "Unknown router type: foo" in str(info.value) and "SIGSEGV" in str(info.value)
    # an unrecognised death still quotes BookSim's last line
    exe = fake(tmp_path, "#!/bin/sh\necho 'building the routing tables'\nkill -SEGV $$\n")
    with pytest.raises(SimulatorFailed, match="crash: killed by SIGSEGV; last output: 'building the routing"):
        bd.run_booksim(config, timeout=20)


@needs_fixtures
@pytest.mark.parametrize("tail", ["kill -KILL $$", "kill -SEGV $$", "exit 139"])
def test_signal_after_complete_statistics_is_not_completed(tmp_path, config, monkeypatch, tail):
    exe = sh_printing(tmp_path, "torus4x4_c2_low.out", tail)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    row = bd.run_booksim(config, timeout=20, raise_on_failure=False)
    assert row["status"] == "crash" and "after printing its statistics" in row["message"]
    assert math.isnan(row["latency_avg"])


def test_timeout_after_complete_statistics_is_a_hang(tmp_path):
    parsed = bd.parse_output((FIXTURES / "torus4x4_c2_low.out").read_text()) if FIXTURES.is_dir() else \
        bd.parse_output("====== Overall Traffic Statistics ======\n====== Traffic class 0 ======\n"
                        "Packet latency average = 5 (1 samples)\n")
    proc = ProcessResult(("booksim",), None, True, 5.0, tmp_path / "x.log")
    status, message = bd.classify(parsed, proc)
    assert status == "hang" and "statistics were printed" in message


def _real_booksim():
    try:
        return bd.find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))


def _real_export(tmp_path, **options):
    import topogen
    from topogen.export.booksim import export_booksim
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    return export_booksim(tmp_path, t, topogen.place(t, topogen.Floor.skywalk(4, 4)), setup="default",
                          options={"injection_rate": 0.05, **options})


@pytest.mark.booksim
def test_real_booksim_unknown_router_message(tmp_path):
    _real_booksim()
    exp = _real_export(tmp_path)
    with pytest.raises(SimulatorFailed) as info:
        bd.run_booksim(exp.config_file, overrides={"router": "foo"}, timeout=300)
    err = info.value
    assert err.status == "rejected" and "Unknown router type: foo" in str(err)
    assert "SIGSEGV" in str(err) and err.log_path.is_file()


@pytest.mark.booksim
def test_real_booksim_killed_after_statistics_is_a_crash(tmp_path):
    real = _real_booksim()
    exp = _real_export(tmp_path)
    wrapper = fake(tmp_path, f"#!/bin/sh\n'{real}' \"$@\"\nkill -ABRT $$\n")  # real output, then a signal
    row = bd.run_booksim(exp.config_file, binary=wrapper, timeout=300, raise_on_failure=False)
    assert "Overall Traffic Statistics" in Path(row["raw_output"]).read_text()
    assert row["status"] == "crash" and "SIGABRT after printing its statistics" in row["message"]
    assert bd.run_booksim(exp.config_file, timeout=300)["status"] == "completed"


@pytest.mark.booksim
def test_real_booksim_config_sweep_with_traffic_override(tmp_path):
    real = _real_booksim()
    exp = _real_export(tmp_path)
    kw = dict(low=0.02, high=0.06, tolerance=0.05, timeout=300)
    uni = bsw.sweep_booksim(exp.config_file, tmp_path / "s", **kw)
    bit = bsw.sweep_booksim(exp.config_file, tmp_path / "s", overrides={"traffic": "bitrev"}, **kw)
    assert {r["traffic"] for r in uni.rows} == {"uniform"} and {r["traffic"] for r in bit.rows} == {"bitrev"}
    assert uni.rows[0]["latency_avg"] != bit.rows[0]["latency_avg"]
    assert all("traffic=bitrev" in Path(r["raw_output"]).read_text() for r in bit.rows)
    assert real


def test_content_named_export_is_checked_before_writing_and_never_replaced(tmp_path):
    import os

    import topogen
    from topogen.export.booksim import export_booksim
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    layout = topogen.place(t, topogen.Floor.skywalk(4, 4))
    a = export_booksim(tmp_path, t, layout, options={"traffic": "uniform"}, content_stem=True)
    b = export_booksim(tmp_path, t, layout, options={"traffic": "bitrev"}, content_stem=True)
    assert a.config_file != b.config_file and a.network_file != b.network_file
    assert "traffic = uniform;" in a.config_file.read_text() and f"network_file = {a.network_file.name};" in a.config_file.read_text()
    stamp = {p: os.stat(p).st_mtime_ns for p in tmp_path.iterdir()}
    again = export_booksim(tmp_path, t, layout, options={"traffic": "uniform"}, content_stem=True)
    assert again == a and {p: os.stat(p).st_mtime_ns for p in tmp_path.iterdir()} == stamp
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ParameterError):  # transpose needs an even power of two hosts (32 is not)
        export_booksim(tmp_path / "new", t, layout, options={"traffic": "transpose"}, content_stem=True)
    with pytest.raises(ParameterError):
        export_booksim(tmp_path, t, layout, stem="other", options={"num_vcs": "x"})
    assert sorted(tmp_path.iterdir()) == before  # not even the netlist of the refused export


@needs_fixtures
def test_kill_9_during_booksim_sweep_then_resume(tmp_path, config):
    """kill -9 of ``run booksim --sweep`` at seeded random moments (stand-in BookSim): the
    results file stays a valid table, and the rerun finishes the sweep with every rate once,
    re-running at most the one point each kill interrupted."""
    import signal
    import subprocess
    import time

    import numpy as np

    from topogen.results import read_results

    calls = tmp_path / "calls.txt"
    exe, _ = _controlled(tmp_path, calls=str(calls))
    out = tmp_path / "r.csv"
    cmd = [sys.executable, "-m", "topogen", "run", "booksim", str(config), "--sweep", "--low", "0.01",
           "--tolerance", "0.02", "-o", str(out)]
    clean_calls = tmp_path / "clean_calls.txt"
    clean_dir = tmp_path / "clean"
    clean_dir.mkdir()
    clean_cfg = clean_dir / "net.cfg"
    clean_cfg.write_text(config.read_text())
    exe_clean, _ = _controlled(clean_dir, calls=str(clean_calls))
    subprocess.run([*cmd[:5], str(clean_cfg), *cmd[6:-1], str(clean_dir / "r.csv")], env=_env(exe_clean),
                   check=True, capture_output=True, timeout=300)
    clean = read_results(clean_dir / "r.csv")
    rng = np.random.default_rng(5)
    kills = 0
    for delay in rng.uniform(0.3, 2.5, size=2):
        proc = subprocess.Popen(cmd, env=_env(exe), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        if out.exists():
            assert read_results(out)["offered_load"].is_unique
    done = subprocess.run(cmd, env=_env(exe), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    final = read_results(out)
    assert final["offered_load"].is_unique
    assert sorted(final["offered_load"]) == sorted(clean["offered_load"])
    n_clean = len(clean_calls.read_text().splitlines())
    n_all = len(calls.read_text().splitlines())
    assert n_clean <= n_all <= n_clean + kills  # finished points were never simulated again


@needs_fixtures
def test_sweep_fills_the_curve_below_saturation(tmp_path, config, monkeypatch):
    """points=N: evenly spaced rates up to 95 % of saturation after the bisection, reusing
    bisection points near them; resumed without simulating anything again."""
    from topogen.load_points import fill_loads

    counter = tmp_path / "calls.txt"
    exe = fake(tmp_path, SWEEP_FAKE.format(python=sys.executable, counter=str(counter), knee=0.37,
                                           low=str(FIXTURES / "torus4x4_c2_low.out"),
                                           high=str(FIXTURES / "torus4x4_c2_high.out")))
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    kw = dict(low=0.01, high=1.0, tolerance=0.05, timeout=20)
    bare = bsw.sweep_booksim(config, tmp_path / "bare", **kw)
    n_bare = len(counter.read_text().split())
    res = bsw.sweep_booksim(config, tmp_path / "full", points=6, **kw)
    assert res.saturation_load == bare.saturation_load
    loads = sorted(r["offered_load"] for r in res.rows)
    grid = fill_loads(0.01, res.saturation_load, points=6)
    step = grid[1] - grid[0]
    assert all(min(abs(x - g) for x in loads) <= step / 3 + 1e-9 for g in grid)
    simulated = len(counter.read_text().split()) - n_bare
    assert simulated == len(res.rows) < len(bare.rows) + 6
    bsw.sweep_booksim(config, tmp_path / "full", points=6, **kw)
    assert len(counter.read_text().split()) - n_bare == simulated  # resumed: nothing new
    with pytest.raises(ParameterError, match="--points"):
        bsw.sweep_booksim(config, tmp_path / "x", points=1, **kw)
