"""The output policy (topogen.output) as every command applies it: nothing the user did
not name is deleted or replaced, outputs that are inputs are refused, locations are
checked before the work, writes are atomic and modes follow the umask."""

from __future__ import annotations

import json
import os

import pytest

import topogen.cli as cli
from topogen.errors import OutputError
from topogen import formats
from topogen.generators.classic import torus
from topogen.output import atomic_write, check_dir_output, check_file_output, output_dir
from topogen.results import make_row, read_results, write_results

FAST = ["--packet-size", "2", "--buffer", "4", "--sample-period", "200", "--link-latency", "1",
        "--warmup-periods", "1", "--max-samples", "3"]


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, match):
    assert code == 74, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topogen: error: "), err
    assert "Traceback" not in err
    assert match in lines[0], lines[0]


def tree(root):
    """Every path under ``root`` (relative, hidden ones included) with its bytes."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


@pytest.fixture
def topo(tmp_path):
    path = tmp_path / "t.json"
    formats.save(path, torus((3, 3), hosts_per_switch=1))
    return path


def rows(n=2):
    return [make_row(simulator="reference", topology="t", status="completed", offered_load=0.1 * (i + 1),
                     latency_avg=10.0 + i) for i in range(n)]


@pytest.fixture
def umask027():
    old = os.umask(0o027)
    yield
    os.umask(old)


# ---------------------------------------------------------------------------- route -o DIR
def test_route_refuses_a_non_empty_folder_and_keeps_it(tmp_path, topo, capsys):
    d = tmp_path / "d"
    d.mkdir()
    (d / "keep.txt").write_text("x")
    before = tree(tmp_path)
    code, _, err = run(capsys, "route", topo, "-o", d)
    one_line_error(code, err, "not empty")
    assert "--force" in err
    assert tree(tmp_path) == before


def test_route_force_replaces_the_folder(tmp_path, topo, capsys):
    d = tmp_path / "d"
    d.mkdir()
    (d / "keep.txt").write_text("x")
    code, _, err = run(capsys, "route", topo, "-o", d, "--force")
    assert code == 0, err
    assert (d / "routing.json").is_file() and not (d / "keep.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "t.json"]  # no temporary or old folder


def test_route_refuses_its_input_as_output(tmp_path, topo, capsys):
    before = tree(tmp_path)
    code, _, err = run(capsys, "route", topo, "-o", topo)
    one_line_error(code, err, "not a folder")
    assert tree(tmp_path) == before
    code, _, err = run(capsys, "route", topo, "-o", topo, "--force")
    one_line_error(code, err, "not a folder")
    assert tree(tmp_path) == before


def test_route_force_never_deletes_an_input_inside_the_folder(tmp_path, topo, capsys):
    d = tmp_path / "d"
    d.mkdir()
    src = d / "t.json"
    src.write_bytes(topo.read_bytes())
    before = tree(tmp_path)
    code, _, err = run(capsys, "route", src, "-o", d, "--force")
    one_line_error(code, err, "would delete the input")
    assert tree(tmp_path) == before


def test_route_dot_in_a_non_empty_folder_is_refused_without_stray_folders(tmp_path, topo, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = tree(tmp_path)
    for extra in ([], ["--force"]):
        code, _, err = run(capsys, "route", "t.json", "-o", ".", *extra)
        one_line_error(code, err, "not empty" if not extra else "current folder")
        assert tree(tmp_path) == before
    assert not [p for p in tmp_path.parent.iterdir() if p.name.startswith("..") or p.name.endswith(".old")]


def test_route_dot_in_an_empty_folder_writes_there(tmp_path, topo, capsys, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, _, err = run(capsys, "route", topo, "-o", ".")
    assert code == 0, err
    assert (work / "routing.json").is_file()
    assert not [p.name for p in work.iterdir() if p.name.startswith(".")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json", "work"]


def test_route_into_an_empty_folder(tmp_path, topo, capsys):
    d = tmp_path / "empty"
    d.mkdir()
    code, _, err = run(capsys, "route", topo, "-o", d)
    assert code == 0, err
    assert (d / "routing.json").is_file()


def test_route_modes_follow_the_umask(tmp_path, topo, capsys, umask027):
    d = tmp_path / "r"
    code, _, err = run(capsys, "route", topo, "-o", d)
    assert code == 0, err
    assert d.stat().st_mode & 0o777 == 0o750
    for f in d.iterdir():
        assert f.stat().st_mode & 0o777 == (0o750 if f.is_dir() else 0o640), f


def test_route_failure_leaves_nothing(tmp_path, topo, capsys):
    code, _, err = run(capsys, "route", topo, "-a", "hop", "--vcs", "1", "-o", tmp_path / "o")
    assert code != 0 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_output_dir_exception_leaves_the_old_folder(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "old.txt").write_text("old")
    before = tree(tmp_path)
    with pytest.raises(RuntimeError):
        with output_dir(d, force=True) as tmp:
            (tmp / "new.txt").write_text("new")
            raise RuntimeError("boom")
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------- results -o FILE
def test_results_refuses_its_input_as_output(tmp_path, capsys):
    r = tmp_path / "R.csv"
    write_results(r, rows())
    before = r.read_bytes()
    for extra in ([], ["--format", "csv"], ["--format", "table"]):
        code, _, err = run(capsys, "results", r, "-o", r, *extra)
        assert code != 0 and "Traceback" not in err
        assert r.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["R.csv"]


def test_results_refuses_the_same_file_by_another_name(tmp_path, capsys):
    r = tmp_path / "R.csv"
    write_results(r, rows())
    (tmp_path / "link.csv").symlink_to(r)
    before = r.read_bytes()
    code, _, err = run(capsys, "results", r, "-o", tmp_path / "link.csv")
    one_line_error(code, err, "also an input")
    assert r.read_bytes() == before


@pytest.mark.parametrize("ext", ["json", "csv"])
def test_results_output_format_follows_the_extension(tmp_path, capsys, ext):
    r = tmp_path / "R.csv"
    write_results(r, rows(3))
    out = tmp_path / f"out.{ext}"
    code, _, err = run(capsys, "results", r, "-o", out)
    assert code == 0, err
    if ext == "json":
        assert json.loads(out.read_text())["rows"]
    back = read_results(out)
    assert list(back["offered_load"]) == list(read_results(r)["offered_load"])


def test_results_text_table_and_contradicting_format(tmp_path, capsys):
    r = tmp_path / "R.csv"
    write_results(r, rows())
    code, _, err = run(capsys, "results", r, "-o", tmp_path / "out.txt")
    assert code == 0, err
    assert "offered_load" in (tmp_path / "out.txt").read_text()
    code, _, err = run(capsys, "results", r, "--format", "csv", "-o", tmp_path / "x.json")
    assert code == 2 and "does not match" in err
    assert not (tmp_path / "x.json").exists()


def test_results_table_output_is_atomic(tmp_path, capsys, monkeypatch):
    r = tmp_path / "R.csv"
    write_results(r, rows())
    out = tmp_path / "out.txt"
    out.write_text("previous\n")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    code, _, err = run(capsys, "results", r, "-o", out)
    monkeypatch.undo()
    assert code != 0 and "No space left" in err and "Traceback" not in err
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["R.csv", "out.txt"]


def test_results_files_follow_the_umask(tmp_path, umask027):
    path = write_results(tmp_path / "r.csv", rows())
    assert path.stat().st_mode & 0o777 == 0o640
    path = write_results(tmp_path / "r.csv", rows())  # replaced: still the umask's mode
    assert path.stat().st_mode & 0o777 == 0o640
    assert (atomic_write(tmp_path / "x.txt", "x")).stat().st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------------- simulate / run
def test_simulate_checks_its_output_before_simulating(tmp_path, topo, capsys, monkeypatch):
    import topogen.sim.measure as measure
    import topogen.sim.sweep as sweep_module  # bound now, so its own import is the real one

    calls = []
    fake = lambda *a, **k: calls.append(1)  # noqa: E731
    monkeypatch.setattr(measure, "simulate", fake)
    monkeypatch.setattr(sweep_module, "simulate", fake)
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n")
    (tmp_path / "adir.csv").mkdir()
    before = tree(tmp_path)
    for target in (foreign, tmp_path / "adir.csv", topo):
        code, out, err = run(capsys, "simulate", topo, "--load", "0.1", "-o", target)
        assert code != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert out == ""
    for target in (foreign, topo):
        code, out, err = run(capsys, "simulate", topo, "--sweep", "-o", target)
        assert code != 0 and out == ""
    assert calls == []
    assert tree(tmp_path) == before


def test_run_booksim_checks_its_output_before_the_work(tmp_path, topo, capsys):
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n")
    before = tree(tmp_path)
    for target in (foreign, topo):
        code, out, err = run(capsys, "run", "booksim", topo, "--rate", "0.1", "--binary", "/bin/false",
                             "-o", target)
        assert code not in (0, 70) and out == "" and "Traceback" not in err, err
    assert tree(tmp_path) == before  # no export, no log, no results


def test_convert_refuses_its_input_as_output(tmp_path, topo, capsys):
    before = tree(tmp_path)
    code, _, err = run(capsys, "convert", topo, topo)
    one_line_error(code, err, "also an input")
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------- checks
def test_check_file_output(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        check_file_output(tmp_path / "d")
    with pytest.raises(OutputError, match="does not exist"):
        check_file_output(tmp_path / "no" / "x.csv")
    assert check_file_output(tmp_path / "no" / "x.csv", make_parents=True) == tmp_path / "no" / "x.csv"
    assert not (tmp_path / "no").exists()
    ro = tmp_path / "ro.csv"
    ro.write_text("x")
    ro.chmod(0o444)
    if not os.access(ro, os.W_OK):  # root may write anything
        with pytest.raises(OutputError, match="read-only"):
            check_file_output(ro)


def test_check_dir_output(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="not a folder"):
        check_dir_output(tmp_path / "f")
    (tmp_path / "d").mkdir()
    assert check_dir_output(tmp_path / "d") == tmp_path / "d"
    (tmp_path / "d" / "x").write_text("x")
    with pytest.raises(OutputError, match="not empty"):
        check_dir_output(tmp_path / "d")
    assert check_dir_output(tmp_path / "d", force=True) == tmp_path / "d"
    assert check_dir_output(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
