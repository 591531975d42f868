"""The output policy for every output of a command, side outputs included, and its hygiene:
outputs checked against each other and the inputs before any work, the mode of a replaced
file kept, temporary names that fit the file-name limit, leftovers of killed runs cleaned."""

import os
import socket
import subprocess
import sys
import time
import hashlib
from pathlib import Path

import pytest

from topogen import cli
from topogen.errors import OutputError
from topogen.output import (atomic_write, check_distinct_outputs, clean_stale_temps, lock_path, output_dir,
                            temp_prefix)
from topogen.results import append_rows, make_row, read_results


@pytest.fixture
def topo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["-q", "generate", "torus", "--dims", "3,3", "-o", "t.json"]) == 0
    return tmp_path / "t.json"


def _error(capsys) -> str:
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("topogen: error:"), err
    return err[0]


# ---------------------------------------------------------------------------- side outputs
def test_checkpoint_naming_the_input_is_refused(topo, capsys):
    before = topo.read_bytes()
    code = cli.main(["optimize", "t.json", "--moves", "5", "-o", "o.json", "--checkpoint", "t.json"])
    assert code not in (0, cli.EXIT_INTERNAL)
    assert "--checkpoint t.json is the input" in _error(capsys)
    assert topo.read_bytes() == before
    assert not Path("o.json").exists()


def test_plot_and_history_naming_one_file_are_refused(topo, capsys):
    code = cli.main(["optimize", "t.json", "--moves", "5", "-o", "o.json", "--plot", "o.png", "--history", "o.png"])
    assert code not in (0, cli.EXIT_INTERNAL)
    assert "--plot o.png and --history o.png name the same file" in _error(capsys)
    assert not Path("o.png").exists() and not Path("o.json").exists()


def test_checkpoint_naming_the_output_is_refused(topo, capsys):
    code = cli.main(["optimize", "t.json", "--moves", "5", "-o", "o.json", "--checkpoint", "./o.json"])
    assert code not in (0, cli.EXIT_INTERNAL)
    assert "name the same file" in _error(capsys)
    assert not Path("o.json").exists()


def test_check_distinct_outputs(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("x")
    check_distinct_outputs([a], {"-o": b, "--plot": None, "--history": tmp_path / "h.csv"})
    with pytest.raises(OutputError, match="name the same file"):
        check_distinct_outputs([], {"-o": b, "--history": tmp_path / "sub" / ".." / "b.csv"})
    with pytest.raises(OutputError, match="is the input"):
        check_distinct_outputs([a], [("--checkpoint", a)])
    link = tmp_path / "l.csv"
    link.symlink_to(a)
    with pytest.raises(OutputError, match="is the input"):
        check_distinct_outputs([a], {"-o": link})
    # a pair the command allows (a resumed run goes on writing its checkpoint)
    check_distinct_outputs({"--resume": a}, {"--checkpoint": a}, allow=[("--checkpoint", "--resume")])


# ---------------------------------------------------------------------------- modes
def test_replacing_a_file_keeps_its_mode(tmp_path):
    f = tmp_path / "private.csv"
    f.write_text("old")
    os.chmod(f, 0o600)
    atomic_write(f, "new")
    assert f.read_text() == "new"
    assert (os.stat(f).st_mode & 0o777) == 0o600


def test_appending_results_keeps_the_mode(tmp_path):
    f = tmp_path / "r.csv"
    append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.1)])
    os.chmod(f, 0o640)
    append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.2)])
    assert (os.stat(f).st_mode & 0o777) == 0o640


def test_a_new_file_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "n.txt", "x")
    finally:
        os.umask(old)
    assert (os.stat(tmp_path / "n.txt").st_mode & 0o777) == 0o640


# ---------------------------------------------------------------------------- long names
def test_a_255_byte_output_name_is_written(tmp_path):
    name = "r" * 251 + ".csv"
    assert len(name) == 255
    atomic_write(tmp_path / name, "x")
    assert (tmp_path / name).read_text() == "x"
    assert len(lock_path(tmp_path / name).name) <= 255  # the lock name of a results table fits too
    table = tmp_path / ("t" * 251 + ".csv")
    append_rows(table, [make_row(simulator="reference", status="completed", offered_load=0.1)])
    assert len(read_results(table)) == 1
    with output_dir(tmp_path / ("d" * 255)) as tmp:
        (tmp / "f").write_text("x")
    assert (tmp_path / ("d" * 255) / "f").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_temp_prefix_of_a_long_name_is_stable_and_short():
    name = "é" * 127
    p = temp_prefix(name)
    assert len(p.encode()) + 13 <= 255
    assert p == temp_prefix(name)
    assert temp_prefix("x.csv").startswith(".x.csv.")


# ---------------------------------------------------------------------------- leftovers
def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def test_clean_stale_temps_removes_only_leftovers_of_ended_runs(tmp_path):
    out = tmp_path / "out"
    dead = tmp_path / f".out.{_dead_pid()}@{_tag()}.abcd1234.tmp"
    alive = tmp_path / f".out.{os.getppid()}@{_tag()}.abcd1234.tmp"
    other_host = tmp_path / f".out.{_dead_pid()}@zzzzzz.abcd1234.tmp"
    old_legacy = tmp_path / ".out.k2j4h5g6.tmp"
    new_legacy = tmp_path / ".out.q2j4h5g6.tmp"
    unrelated = [tmp_path / ".outx.k2j4h5g6.tmp", tmp_path / "out.k2j4h5g6.tmp", tmp_path / ".other.tmp"]
    for d in (dead, alive, other_host, old_legacy, new_legacy, *unrelated):
        d.mkdir()
        (d / "ranks.npy").write_bytes(b"x")
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(old_legacy, (day_ago, day_ago))
    for d in unrelated:
        os.utime(d, (day_ago, day_ago))
    removed = clean_stale_temps(out)
    assert sorted(removed) == sorted([dead, old_legacy])
    for d in (alive, other_host, new_legacy, *unrelated):
        assert d.exists()
    assert not dead.exists() and not old_legacy.exists()


def test_route_cleans_the_folder_a_killed_run_left(topo, capsys):
    left = topo.parent / f".out.{_dead_pid()}@{_tag()}.abcd1234.tmp"
    left.mkdir()
    (left / "ranks.npy").write_bytes(b"half")
    assert cli.main(["route", "t.json", "-o", "out"]) == 0
    err = capsys.readouterr().err
    assert "removed" in err and left.name in err
    assert not left.exists()
    assert (topo.parent / "out" / "routing.json").exists()


def test_collect_into_the_spec_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "s.toml"
    text = '[axes]\ntopology = [{generator = "torus", params = {dims = [3, 3]}}]\nload = [0.1]\n'
    spec.write_text(text)
    code = cli.main(["experiment", "collect", "s.toml", "-o", "s.toml"])
    assert code not in (0, cli.EXIT_INTERNAL)
    assert "-o s.toml is the input" in _error(capsys)
    assert spec.read_text() == text
