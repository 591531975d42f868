"""SST/merlin output parsers and driver (with a fake ``sst`` executable)."""

from __future__ import annotations

import math
import stat
import sys
from pathlib import Path

import pytest

import topogen
from topogen.drivers import sst as sd
from topogen.errors import FormatError, SimulatorFailed, SimulatorNotFound
from topogen.export import sst as sx

from .routing_stub import BFSRouting

from shared_paths import FIXTURES as _SHARED  # noqa: E402

FIXTURES = _SHARED / "sst"
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"fixtures not found at {FIXTURES}")


@needs_fixtures
@pytest.mark.parametrize("name", ["raw_anytopo_graph", "desttag"])
def test_parse_stdout_fixtures(name):
    out = sd.parse_stdout(FIXTURES / name / "out.txt")
    assert out.loads == [(0.3, 172.602, False)]
    assert out.complete and out.sim_time_ns == 12000.0
    assert sd.classify(out) == ("completed", None)


def test_parse_stdout_units_saturation_and_errors():
    text = ("  Offered   Average\n    Load    Latency\n     0.50      17.2513 us*\n"
            "     0.90      1.5 ms*\n\nSimulation is complete, simulated time: 400 us\n")
    out = sd.parse_stdout(text)
    assert out.loads == [(0.5, 17251.3, True), (0.9, 1.5e6, True)]
    assert out.sim_time_ns == 400000.0
    assert sd.classify(out)[0] == "saturated"
    with pytest.raises(FormatError, match="line 3"):
        sd.parse_stdout("  Offered   Average\n    Load    Latency\n     0.50  lots\n")
    fatal = sd.parse_stdout("FATAL: [0:0] merlin.anytopo: ERROR: Endpoint 6 not found\n")
    assert sd.classify(fatal)[0] == "crash"
    rej = sd.parse_stdout("Traceback (most recent call last):\n  File x\nNameError: y\n")
    assert sd.classify(rej)[0] == "rejected"


SUMS = [38088, 37416, 30763, 32958, 41462, 45059, 43019, 39085, 33693, 37626, 35085, 40618]


@needs_fixtures
def test_parse_accumulator_statistics():
    lat = sd.parse_statistics(FIXTURES / "raw_anytopo_graph" / "anytopo_stats.csv")
    assert lat.components == 12 and lat.count == 2670
    assert lat.avg == pytest.approx(sum(SUMS) / 2670)
    assert (lat.min, lat.max) == (61, 323)
    assert lat.send_bits == 12 * 115200 and lat.sim_time_ps == 12000000
    assert math.isnan(lat.p50)
    empty = sd.parse_statistics(FIXTURES / "desttag" / "anytopo_desttag_stats.csv")
    assert empty.count == 0 and math.isnan(empty.avg)


@needs_fixtures
def test_parse_histogram_statistics():
    lat = sd.parse_statistics(FIXTURES / "histo" / "histo.csv")
    assert lat.components == 16 and lat.count == 3509
    rows = [ln.split(",") for ln in (FIXTURES / "histo" / "histo.csv").read_text().splitlines()[1:]]
    assert lat.avg == pytest.approx(sum(int(r[10]) for r in rows) / 3509)
    # bins are 100 ns wide from 0; median must lie in the bin holding the 50% point
    counts = [0] * 10
    for line in (FIXTURES / "histo" / "histo.csv").read_text().splitlines()[1:]:
        for i, v in enumerate(line.split(",")[17:27]):
            counts[i] += int(v)
    cum, k = 0, 0
    while cum + counts[k] < 0.5 * sum(counts):
        cum += counts[k]
        k += 1
    assert 100 * k <= lat.p50 <= 100 * (k + 1)
    assert lat.p50 <= lat.p90 <= lat.p99 <= 1000
    assert math.isnan(lat.min)


def test_statistics_format_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("ComponentName,StatisticName,StatisticSubId,StatisticType,SimTime,Rank,Sum.u64,SumSQ.u64,"
                   "Count.u64,Min.u64,Max.u64\nol_0,packet_latency,,Accumulator,1,0,1e,4,1,1,1\n")
    lat = None
    with pytest.raises(FormatError, match="line 2"):
        lat = sd.parse_statistics(bad)
    assert lat is None
    bad.write_text("Foo,Bar\n1,2\n")
    with pytest.raises(FormatError, match="line 1"):
        sd.parse_statistics(bad)


# ---------------------------------------------------------------- driver with a fake sst
FAKE_SST = """#!{python}
import sys, shutil
args = sys.argv[sys.argv.index("--") + 1:]
opts = dict(zip(args[::2], args[1::2]))
with open({argfile!r}, "w") as fh:
    fh.write(" ".join(sys.argv[1:]))
mode = {mode!r}
if mode == "fatal":
    print("FATAL: [0:0] rtr_0:topology: ERROR: Number of ports mismatch")
    sys.exit(1)
if mode == "hang":
    import time; time.sleep(30)
shutil.copy({stats!r}, opts["--stats"])
sys.stdout.write(open({out!r}).read().replace("172.602 ns", "172.602 ns" + ("*" if mode == "saturated" else "")))
"""


def bundle(tmp_path):
    from topogen.generators.classic import torus
    t = torus((3, 4), hosts_per_switch=1)
    layout = topogen.place(t, topogen.Floor.skywalk(4, 3))
    # the 4 GB/s endpoint links of the fixture's run (the accepted-load estimate uses them)
    return sx.write_bundle(tmp_path / "net.json", t, layout, BFSRouting(t), nic_params={"link_bw": "4GB/s"})


def fake_sst(tmp_path, mode):
    exe = tmp_path / "bin" / "sst"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(FAKE_SST.format(python=sys.executable, argfile=str(tmp_path / "args.txt"), mode=mode,
                                   stats=str(FIXTURES / "raw_anytopo_graph" / "anytopo_stats.csv"),
                                   out=str(FIXTURES / "raw_anytopo_graph" / "out.txt")))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


@needs_fixtures
def test_run_sst_completed(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, "ok")))
    rows = sd.run_sst(b, load=0.3, traffic="uniform", timeout=20)
    assert len(rows) == 1
    row = rows[0]
    assert row["status"] == "completed" and row["simulator"] == "sst"
    assert row["latency_avg"] == pytest.approx(sum(SUMS) / 2670) and row["latency_min"] == 61
    assert row["packets"] == 2670 and row["latency_unit"] == "ns"
    assert row["offered_load"] == 0.3 and row["topology"] == "torus" and row["num_hosts"] == 12
    assert row["sim_time_ns"] == 12000.0 and row["routing"].startswith("source:")
    log = Path(row["raw_output"])
    assert log.is_file() and "Simulation is complete" in log.read_text()
    args = (tmp_path / "args.txt").read_text()
    assert str(sx.model_path()) in args and f"--bundle {b}" in args and "--load 0.3" in args


@needs_fixtures
def test_run_sst_saturated_crash_hang(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, "saturated")))
    assert sd.run_sst(b, load=0.3, timeout=20)[0]["status"] == "saturated"
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, "fatal")))
    with pytest.raises(SimulatorFailed, match="sst crash: FATAL.*ports mismatch.*raw output"):
        sd.run_sst(b, load=0.3, timeout=20)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, "hang")))
    with pytest.raises(SimulatorFailed, match="sst hang"):
        sd.run_sst(b, load=0.3, timeout=0.5)


def test_sst_command_and_not_found(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_SST", raising=False)
    monkeypatch.delenv("TOPOGEN_MPIRUN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SimulatorNotFound) as info:
        sd.find_sst()
    msg = str(info.value)
    assert "\n" not in msg and "TOPOGEN_SST" in msg and "PATH" in msg
    exe = tmp_path / "sst"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    mpi = tmp_path / "mpirun"
    mpi.write_text("#!/bin/sh\n")
    mpi.chmod(0o755)
    argv = sd.sst_command(tmp_path / "b.json", load=[0.1, 0.5], ranks=4, threads=2, binary=exe, mpirun=mpi,
                          histogram=(50, 40))
    assert argv[:3] == [str(mpi), "-np", "4"] and argv[3] == str(exe) and argv[4:6] == ["-n", "2"]
    assert "--" in argv and argv[argv.index("--load") + 1] == "0.1,0.5"
    assert argv[argv.index("--histogram") + 1] == "50,40"
    with pytest.raises(SimulatorNotFound, match="TOPOGEN_MPIRUN"):
        sd.sst_command(tmp_path / "b.json", ranks=2, binary=exe)


@pytest.mark.sst
def test_real_sst_on_small_torus(tmp_path):
    try:
        sd.find_sst()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    b = bundle(tmp_path)
    rows = sd.run_sst(b, load=0.3, timeout=600)
    assert rows[0]["status"] in ("completed", "saturated") and rows[0]["latency_avg"] > 0


# ---------------------------------------------------------------- audit additions (issue 6)
def test_bits_parses_sst_sizes_and_bandwidths():
    assert sd.bits("64B") == 512 and sd.bits("512b") == 512 and sd.bits("1KiB") == 8192
    assert sd.bits("4GB/s", rate=True) == 32e9 and sd.bits("25Gb/s", rate=True) == 25e9
    for bad, rate in (("64", False), ("4GB/s", False), ("64B", True), ("fast", True)):
        with pytest.raises(Exception, match="expected an SST"):
            sd.bits(bad, rate=rate)


@needs_fixtures
def test_run_sst_estimates_accepted_load_and_keeps_every_log(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, "ok")))
    first = sd.run_sst(b, load=0.3, timeout=20)[0]
    # 2670 packets of 64 B delivered by 12 endpoints with 4 GB/s links in 12 us
    assert first["accepted_load"] == pytest.approx(2670 * 512 / (12 * 32e9 * 12e-6))
    assert first["injected_load"] == pytest.approx(12 * 115200 / (12 * 32e9 * 12e-6))
    assert first["load_unit"] == "fraction of link bandwidth"
    second = sd.run_sst(b, load=0.3, timeout=20)[0]
    assert first["raw_output"] != second["raw_output"]
    for row in (first, second):
        log = Path(row["raw_output"])
        assert log.is_file() and log.with_suffix(".stats.csv").is_file()
    # several loads in one run: the CSV mixes them, so only the stdout averages are used
    out = sd.parse_stdout("  Offered   Average\n    Load    Latency\n     0.10      100 ns\n"
                          "     0.50      2 us*\n\nSimulation is complete, simulated time: 90 us\n")
    rows = sd.rows_from_output(sx.read_bundle(b), out, sd.parse_statistics(
        FIXTURES / "raw_anytopo_graph" / "anytopo_stats.csv"), status="saturated", message="fell behind",
        message_size="64B")
    assert [r["status"] for r in rows] == ["completed", "saturated"]
    assert rows[0]["message"] is None and rows[1]["message"] == "fell behind"
    assert [r["latency_avg"] for r in rows] == [100.0, 2000.0]
    assert all(math.isnan(r["accepted_load"]) for r in rows)
