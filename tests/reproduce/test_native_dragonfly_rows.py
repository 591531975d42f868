"""The dragonfly rows of the native comparison (docs/crossval.md).

SST merlin.dragonfly ``valiant`` (``-m sst``): merlin's uniform traffic and routers take
no seed, so the native column's repeats of a load are one ``merlin.offered_load`` run with
the load repeated, each a later stretch of the same streams; with them the point at 80 %
of the native saturation, whose single runs disagree by 6 %, agrees within its noise.

BookSim ``dragonflynew``: a run whose network deadlocks while BookSim empties it after the
measurement is stopped as ``deadlock`` instead of running to the timeout.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SST = shutil.which("sst") or ("/opt/sst/bin/sst" if os.path.exists("/opt/sst/bin/sst") else None)

#: 80 % of merlin.dragonfly valiant's saturation at k = 2 (0.357, docs/crossval.md)
VALIANT_80 = 0.285


def _by(res):
    return {(x["load"], x["column"]): x for x in res.lines}


@pytest.mark.sst
@pytest.mark.slow
@pytest.mark.skipif(SST is None, reason="SST not installed")
def test_valiant_repeats_sample_every_column(tmp_path):
    """k = 2 at 0.285: 25 SST and reference runs (about 10 s of CPU)."""
    from topogen.reproduce.crossval_native_sst import crossval_native_sst

    single = crossval_native_sst(tmp_path / "one", family="dragonfly", k=2, routing="valiant", loads=(VALIANT_80,),
                                 binary=SST)
    samples = []
    res = crossval_native_sst(tmp_path / "rep", family="dragonfly", k=2, routing="valiant", loads=(VALIANT_80,),
                              repeats=6, reference_traffic="seeded", binary=SST,
                              progress=lambda col, load, row: samples.append(row) if col == "native" else None)
    by = _by(res)
    nat = by[(VALIANT_80, "native")]
    assert nat["runs"] == nat["completed"] == 6
    lat = [r["latency_avg"] for r in samples]
    assert len(set(lat)) == 6  # six stretches of the streams, not one run six times
    # the first is the single run's (the same start of merlin's streams)
    assert lat[0] / 2.666 == pytest.approx(_by(single)[(VALIANT_80, "native")]["latency_cycles"], rel=1e-3)
    ref = by[(VALIANT_80, "reference")]
    assert ref["runs"] == 6 and ref["verdict"].startswith("pass"), ref
    assert by[(VALIANT_80, "export")]["runs"] == 6


@pytest.mark.sst
@pytest.mark.skipif(SST is None, reason="SST not installed")
def test_cli_repeats_reach_the_native_column(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env["PATH"] = str(Path(SST).parent) + os.pathsep + env.get("PATH", "")
    out = subprocess.run([sys.executable, "-m", "topogen", "crossval", "--native", "dragonfly", "--routing", "valiant",
                          "--simulators", "sst", "--param", "k=1", "--no-saturation", "--loads", "0.2",
                          "--repeats", "3", "--out-dir", str(tmp_path / "cv")],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.strip().startswith("0.2 "))
    assert line.count("+-") == 3, out.stdout  # native, reference and export each with a standard error
    assert "repeated 3 times" in out.stdout


# ---------------------------------------------------------------- BookSim that never ends
# After a converged measurement BookSim empties the network of every packet left and waits
# for them without limit; on a deadlocked network (the dragonfly export at 0.61, seed 3)
# it printed "Remaining flits ... (11715 flits)" and deadlock warnings until the timeout.
FAKE_BOOKSIM = r'''#!/usr/bin/env python3
import sys, time
print("BEGIN Configuration File: " + sys.argv[1])
print("========================== Routing table")
print("Class 0:")
print("Packet latency average = 100.0")
print("Warmed up ...Time used is 3000 cycles")
print("Draining all recorded packets ...")
print("Draining remaining packets ...", flush=True)
n = int(sys.argv[2].split("=")[1]) if len(sys.argv) > 2 else 0
left = 11715
while True:
    for _ in range(3):
        print("WARNING: Possible network deadlock.")
    print("Remaining flits: 1 2 3 [...] (%d flits)" % left)
    print("Measured flits: (0 flits)", flush=True)
    left = max(left - n, 0)
    time.sleep(0.01)
'''


def _fake_booksim(tmp_path):
    exe = tmp_path / "booksim"
    exe.write_text(FAKE_BOOKSIM)
    exe.chmod(0o755)
    cfg = tmp_path / "net.cfg"
    cfg.write_text("injection_rate = 0.1;\n")
    return exe, cfg


def test_booksim_deadlocked_while_emptying_is_stopped_as_deadlock(tmp_path):
    import time

    from topogen.drivers.booksim import run_booksim

    exe, cfg = _fake_booksim(tmp_path)
    t = time.monotonic()
    row = run_booksim(cfg, binary=str(exe), timeout=30, raise_on_failure=False)
    assert time.monotonic() - t < 20
    assert row["status"] == "deadlock"
    assert "11715 flits did not move" in row["message"]


def test_booksim_monitor_keeps_a_network_that_empties():
    from topogen.drivers.booksim import STUCK_REPORTS, BookSimMonitor

    mon = BookSimMonitor(quiet=True)
    mon.feed("Draining remaining packets ...")
    for left in range(5000, 5000 - 3 * STUCK_REPORTS, -1):  # one flit a report: slow, not stuck
        mon.feed("WARNING: Possible network deadlock.")
        mon.feed(f"Remaining flits: 1 [...] ({left} flits)")
    assert mon.stop_reason is None
    for _ in range(STUCK_REPORTS + 1):
        mon.feed(f"Remaining flits: 1 [...] ({left} flits)")
    assert mon.stop_reason is not None
    stuck = BookSimMonitor(quiet=True)  # no deadlock warning from BookSim: not stopped
    stuck.feed("Draining remaining packets ...")
    for _ in range(3 * STUCK_REPORTS):
        stuck.feed("Remaining flits: 1 [...] (7 flits)")
    assert stuck.stop_reason is None
