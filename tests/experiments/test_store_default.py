"""A spec's default store is ./NAME.store in the working folder, never beside the spec (a
spec in a source tree must leave the tree clean); `[experiment] store` and `--store`
override it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from topogen.experiments.spec import load_experiment

from .conftest import ROOT, SMALL, cli_env, write_spec


def test_default_store_is_in_the_working_folder(tmp_path, monkeypatch):
    src = tmp_path / "src" / "examples"
    src.mkdir(parents=True)
    spec = write_spec(src)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert load_experiment(spec).store == work.resolve() / "small.store"
    assert load_experiment(spec, store=tmp_path / "o.store").store == tmp_path / "o.store"
    named = write_spec(src, SMALL.replace('name = "small"', 'name = "small"\nstore = "here.store"'), "n.toml")
    assert load_experiment(named).store == src.resolve() / "here.store"


def test_the_example_spec_writes_nothing_into_the_source_tree(tmp_path):
    example = ROOT / "scripts" / "examples" / "crossval-small.toml"
    exp = load_experiment(example)  # run from tmp_path (the autouse fixture)
    assert exp.store == Path.cwd() / "crossval-small.store"
    assert ROOT not in exp.store.parents
    r = subprocess.run([sys.executable, "-m", "topogen", "experiment", "submit", str(example), "--dry-run"],
                       cwd=tmp_path, env=cli_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "crossval-small.store" / "slurm" / "submit-001" / "job.sh").is_file()
    assert not (example.parent / "crossval-small.store").exists()


def test_store_folders_are_ignored_by_git():
    assert "*.store/" in (ROOT / ".gitignore").read_text().splitlines()
