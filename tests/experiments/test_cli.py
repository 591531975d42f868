"""`topogen experiment`: plan/run/collect/status through the CLI, bad input as one line
with a non-zero exit and the store untouched, SLURM job scripts (no SLURM needed)."""

import hashlib
import json
import os
import stat

import pytest

from topogen.cli import main

from .conftest import SMALL, write_spec


def _tree(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


def _run(capsys, *args):
    code = main(["experiment", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topogen: error: "), err
    return lines[0]


def test_plan_run_collect_status(capsys, tmp_path):
    spec = write_spec(tmp_path)
    st = tmp_path / "st"
    code, out, _ = _run(capsys, "plan", spec, "--store", st)
    assert code == 0 and "16 points" in out and "0 done, 0 failed, 16 to run" in out and "core-hours" in out
    assert not st.exists()  # plan writes nothing
    code, out, _ = _run(capsys, "run", spec, "--store", st, "-j", "1", "--quiet")
    assert code == 0 and "16 run, 0 done before, 0 failed" in out
    code, out, _ = _run(capsys, "plan", spec, "--store", st)
    assert "16 done, 0 failed, 0 to run" in out and "nothing left to run" in out
    for f in list((st / "points").iterdir())[:4]:
        f.unlink()
    code, out, _ = _run(capsys, "plan", spec, "--store", st, "--list")
    assert "12 done, 0 failed, 4 to run" in out and "measured" in out
    assert len([ln for ln in out.splitlines() if "load=" in ln]) == 4
    code, out, _ = _run(capsys, "run", spec, "--store", st, "-j", "2", "--quiet")
    assert code == 0 and "4 run, 12 done before" in out
    code, out, _ = _run(capsys, "run", spec, "--store", st)
    assert code == 0 and "all 16 points" in out
    code, out, _ = _run(capsys, "collect", spec, "--store", st)
    assert code == 0 and "16 of 16 rows" in out and (st / "results.csv").is_file()
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert code == 0 and "16 of 16 points done" in out


@pytest.mark.parametrize("old,new,words", [
    ("load = [", "loads = [", "did you mean 'load'"),
    ("packet_size = 2", 'packet_size = "2"', "must be an integer"),
])
def test_bad_spec_is_one_line_and_store_untouched(capsys, tmp_path, old, new, words):
    good = write_spec(tmp_path)
    st = tmp_path / "st"
    assert _run(capsys, "run", good, "--store", st, "--quiet")[0] == 0
    before = _tree(st)
    bad = write_spec(tmp_path, SMALL.replace(old, new, 1), "bad.toml")
    for action in ("plan", "run", "submit", "collect", "status"):
        code, _, err = _run(capsys, action, bad, "--store", st)
        assert code == 2
        assert words in _one_error_line(err)
    assert _tree(st) == before


def test_absent_simulator(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("TOPOGEN_BOOKSIM", raising=False)
    spec = write_spec(tmp_path, SMALL.replace('simulator = ["reference"]', 'simulator = ["reference", "booksim"]'))
    code, _, err = _run(capsys, "run", spec, "--store", tmp_path / "st")
    assert code == 6 and "booksim not found" in _one_error_line(err)
    assert not (tmp_path / "st").exists()


def test_store_of_another_version(capsys, tmp_path):
    spec = write_spec(tmp_path)
    st = tmp_path / "st"
    assert _run(capsys, "run", spec, "--store", st, "--quiet")[0] == 0
    meta = json.loads((st / "store.json").read_text())
    meta["topogen_version"] = "0.0.1"
    (st / "store.json").write_text(json.dumps(meta))
    before = _tree(st)
    for action in ("run", "collect", "status", "plan", "submit"):
        code, _, err = _run(capsys, action, spec, "--store", st)
        assert code != 0
        assert "written by topogen 0.0.1" in _one_error_line(err) or action == "submit"
    assert _tree(st) == before


def _fake_slurm(folder, sinfo_ok=True, queued=""):
    """sbatch/squeue/sinfo stand-ins: sinfo fails like a controller that does not answer;
    squeue prints ``queued``."""
    folder.mkdir(exist_ok=True)
    scripts = {
        "sinfo": "#!/bin/sh\n" + ("echo up\n" if sinfo_ok else
                                  "echo 'sinfo: error: Unable to contact slurm controller (connect failure)' >&2\nexit 1\n"),
        "sbatch": "#!/bin/sh\necho 4242\n", "squeue": f"#!/bin/sh\nprintf '{queued}'\n",
    }
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(stat.S_IRWXU)


def test_slurm_not_reachable(capsys, tmp_path, monkeypatch):
    spec = write_spec(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    code, _, err = _run(capsys, "submit", spec, "--store", tmp_path / "st")
    assert code == 69 and "sbatch not found" in _one_error_line(err)
    _fake_slurm(tmp_path / "bin", sinfo_ok=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    code, _, err = _run(capsys, "submit", spec, "--store", tmp_path / "st")
    assert code == 69 and "not reachable" in _one_error_line(err)
    assert not (tmp_path / "st").exists()


def test_submit_writes_the_array_job(capsys, tmp_path, monkeypatch):
    spec = write_spec(tmp_path, SMALL + '\n[slurm]\npartition = "short"\nchunk = 5\nmem = "2G"\n')
    st = tmp_path / "st"
    assert _run(capsys, "run", spec, "--store", st, "--quiet")[0] == 0
    for f in list((st / "points").iterdir())[:7]:  # 7 points missing: 2 tasks of 5
        f.unlink()
    code, out, _ = _run(capsys, "submit", spec, "--store", st, "--dry-run", "--max-running", "3",
                        "--account", "proj", "--time", "01:00:00")
    assert code == 0 and "7 points in 2 array tasks" in out
    job = (st / "slurm" / "submit-001" / "job.sh").read_text()
    for line in ("#SBATCH --array=0-1%3", "#SBATCH --partition=short", "#SBATCH --account=proj",
                 "#SBATCH --time=01:00:00", "#SBATCH --mem=2G", "experiment task"):
        assert line in job
    doc = json.loads((st / "slurm" / "submit-001" / "points.json").read_text())
    assert [len(c) for c in doc["chunks"]] == [5, 2] and len(doc["points"]) == 16
    collect = (st / "slurm" / "submit-001" / "collect.sh").read_text()
    assert "experiment collect" in collect
    _fake_slurm(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    code, out, _ = _run(capsys, "submit", spec, "--store", st)
    assert code == 0 and "submitted job 4242" in out
    assert json.loads((st / "slurm" / "submit-002" / "submission.json").read_text())["job"] == "4242"
    # a task runs its chunk into the store, then the store is complete after both
    _fake_slurm(tmp_path / "bin", queued="4242_1|RUNNING\\n4242_0|PENDING\\n")
    code, _, err = _run(capsys, "submit", spec, "--store", st)  # the array is still queued: refused
    assert code == 2 and "still has 2 array task(s) queued or running" in _one_error_line(err)
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert "1 pending, 1 running" in out
    _fake_slurm(tmp_path / "bin")
    pj = st / "slurm" / "submit-002" / "points.json"
    for i in (0, 1):
        assert _run(capsys, "task", pj, "--index", i)[0] == 0
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert "16 of 16 points done" in out and "SLURM job 4242" in out
    code, out, _ = _run(capsys, "submit", spec, "--store", st)
    assert "nothing to submit" in out
