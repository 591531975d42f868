"""A Ctrl-C that arrives while a simulator is being started (inside ``Popen``, after the
fork) still ends the simulator and every child it started."""

import _thread
import signal
import subprocess
import time

import pytest

from topogen.drivers import base

from . import fakes


def test_an_interrupt_while_the_child_starts_kills_it(tmp_path, monkeypatch):
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "sim"
    script.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > '{pidfile}'\nexec sleep 300\n")
    script.chmod(0o755)
    started = []
    real = subprocess.Popen

    class InterruptedAtStart(real):  # the interrupt lands before Popen has returned
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self.pid)
            while not pidfile.exists() or not pidfile.read_text().strip():
                time.sleep(0.02)
            _thread.interrupt_main()
            for _ in range(100):  # the main thread takes the interrupt here
                time.sleep(0.01)

    monkeypatch.setattr(subprocess, "Popen", InterruptedAtStart)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            base.run_process([str(script)], tmp_path / "sim.log", timeout=60)
    finally:
        signal.signal(signal.SIGINT, previous)
    pids = started + [int(pidfile.read_text())]
    deadline = time.monotonic() + 5
    while any(map(fakes.alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(fakes.alive, pids)), "the simulator or its child outlived an interrupt at start"
