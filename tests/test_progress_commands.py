"""Long commands show progress on a terminal and stay quiet with -q or without one
"""

import io
import sys

import pytest

from topogen.cli import main
from topogen import formats
from topogen.generators.classic import hypercube

FAST = ["--packet-size", "2", "--buffer", "4", "--sample-period", "200", "--link-latency", "1",
        "--warmup-periods", "1", "--max-samples", "3", "--seed", "1"]


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def topo(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_QUIET", raising=False)
    path = tmp_path / "cube.json"
    formats.save(path, hypercube(4))
    return path


def run(monkeypatch, argv, stream):
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    code = main([str(a) for a in argv])
    monkeypatch.undo()
    return code


@pytest.mark.parametrize("command, shown", [
    (["analyze", "{topo}"], "fr latency: ["),
    (["route", "{topo}", "-o", "{tmp}/routes"], "nr routing of 16 switches"),
    (["draw", "{topo}", "--load", "-o", "{tmp}/d.png"], "channel loads"),
    (["simulate", "{topo}", "--routing", "nr", "--sweep", "--high", "0.9", "--tolerance", "0.3",
      "--points", "3", *FAST, "-o", "{tmp}/s.csv"], "sweep: "),
])
def test_progress_on_a_terminal_only(tmp_path, topo, monkeypatch, command, shown):
    def argv(tag):
        return [a.replace("{topo}", str(topo)).replace("{tmp}", str(tmp_path / tag)) for a in command]

    (tmp_path / "tty").mkdir()
    (tmp_path / "quiet").mkdir()
    (tmp_path / "pipe").mkdir()
    tty = Tty()
    assert run(monkeypatch, argv("tty"), tty) == 0
    assert shown in tty.getvalue() and "\r" in tty.getvalue()
    quiet = Tty()
    assert run(monkeypatch, ["-q", *argv("quiet")], quiet) == 0
    assert "\r" not in quiet.getvalue() and shown not in quiet.getvalue()
    pipe = io.StringIO()
    assert run(monkeypatch, argv("pipe"), pipe) == 0
    assert "\r" not in pipe.getvalue()
