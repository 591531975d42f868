"""Ctrl-C on a run with worker processes stops the running points at once: the command
exits with the interrupt's code and one line, no process is left, no point is recorded,
and the next run runs them."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from shared_paths import FIXTURES, needs_fixtures
from tests.drivers import fakes

from .conftest import SMALL, cli, cli_env, write_spec

#: two BookSim points: the small spec on one torus, one traffic, one seed
SPEC = (SMALL.replace('name = "small"', 'name = "stop"')
        .replace(', { generator = "hypercube", params = { dimension = 3 } }', "")
        .replace('traffic = ["uniform", "tornado"]', 'traffic = ["uniform"]')
        .replace('simulator = ["reference"]', 'simulator = ["booksim"]').replace("seed = [1, 2]", "seed = [1]"))


def _signal_masks(pid: int) -> dict:
    """The signal masks of process ``pid`` (/proc/PID/status), for a failure's message."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {k: v.strip() for k, v in (line.split(":", 1) for line in lines) if k in ("SigBlk", "SigIgn", "SigCgt")}


@needs_fixtures("booksim")
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_ctrl_c_stops_the_pool_workers_and_their_simulators(tmp_path):
    control = tmp_path / "control.json"
    pids = tmp_path / "pids"
    pids.mkdir()
    control.write_text(json.dumps({"hang_above": 0.0}))  # every run hangs for an hour
    exe = fakes.booksim(tmp_path, FIXTURES, control=control)
    spec = write_spec(tmp_path, SPEC)
    env = dict(cli_env(), TOPOGEN_BOOKSIM=str(exe))
    # a foreground command's Ctrl-C: SIGINT at its default whatever this process inherited
    # (a test run started in the background of a non-interactive shell ignores SIGINT, and so
    # would the command, as Unix passes an ignored signal on)
    proc = subprocess.Popen(cli("run", spec, "--jobs", "2"), cwd=tmp_path, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end:  # both points' simulators are running
            below = fakes.descendants(proc.pid)
            hanging = [p for p in below if "booksim" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")
                       ] if below else []
            if len(hanging) >= 2:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the fake simulators did not start")
        time.sleep(0.5)
        below = fakes.descendants(proc.pid)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            masks = {p: _signal_masks(p) for p in [proc.pid, *below]}
            pytest.fail(f"the run did not stop within 60 s of SIGINT; signal masks (hex, SIGINT = bit 1 of "
                        f"SigIgn/SigBlk/SigCgt) of the command and its processes: {masks}")
        stopped_in = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err, err
    assert stopped_in < 30  # not the hour the simulators would run
    end = time.monotonic() + 10
    while any(fakes.alive(p) for p in below) and time.monotonic() < end:
        time.sleep(0.1)
    assert not [p for p in below if fakes.alive(p)]  # workers and simulators gone
    # nothing recorded: the next run runs both points (now allowed to finish)
    control.write_text(json.dumps({}))
    again = subprocess.run(cli("run", spec, "--jobs", "2"), cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    store = tmp_path / "stop.store" / "points"
    assert len(list(store.glob("*.json"))) == 2
