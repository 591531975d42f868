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
from topogen.drivers.base import ProcessResult
from topogen.errors import FormatError, SimulatorFailed, SimulatorNotFound

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
    res = bd.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.02, timeout=20)
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
    res2 = bd.sweep_booksim(config, out, low=0.01, high=1.0, tolerance=0.02, timeout=20)
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


# ---------------------------------------------------------------- audit additions (issue 6)
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
if {crash_above} is not None and rate > {crash_above}:
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

    def install(crash_above):
        exe = fake(tmp_path, CRASHING_FAKE.format(python=sys.executable, counter=str(counter), knee=0.37,
                                                  crash_above=crash_above, low=low, high=high))
        monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))

    out = tmp_path / "sweep"
    install(crash_above=0.5)  # 0.01 completes, then the process dies on the high point 1.0
    with pytest.raises(SimulatorFailed, match="crash.*SIGKILL"):
        bd.sweep_booksim(config, out / "b", low=0.01, high=1.0, tolerance=0.02, timeout=20)
    done = counter.read_text().split()
    assert done == ["0.01", "1.0"]
    points = out / "b" / "points"
    # the finished point is stored with its raw log; the crashed one kept its log only
    assert (points / "rate_0.01.json").is_file() and (points / "rate_0.01.log").is_file()
    assert not (points / "rate_1.json").exists() and (points / "rate_1.log").is_file()
    assert not [p for p in (out / "b").rglob("*.tmp")]
    from topogen.results import read_results

    assert read_results(out / "b" / "sweep.csv")["offered_load"].tolist() == [0.01]
    # the re-run (the machine is fine again) redoes only the unfinished point
    install(crash_above=None)
    counter.write_text("")
    res = bd.sweep_booksim(config, out / "b", low=0.01, high=1.0, tolerance=0.02, timeout=20)
    redone = counter.read_text().split()
    assert "0.01" not in redone and redone[0] == "1.0"
    assert res.saturation_load <= 0.37 < res.saturation_upper
    assert len(read_results(res.results_path)) == len(redone) + 1
