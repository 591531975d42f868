"""BookSim exports travel: the configuration names its netlist (and any output file in its
folder) relative to that folder, so a copy of the folder runs elsewhere with
``cd FOLDER && booksim NAME.cfg`` and through topogen's driver from any working directory."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import topogen
from topogen.drivers import booksim as bd
from topogen.errors import SimulatorNotFound
from topogen.export.booksim import export_booksim, render_config, write_config
from topogen.generators.classic import torus


def _export(folder: Path, **options):
    t = torus((4, 4), hosts_per_switch=1)
    layout = topogen.place(t, topogen.Floor.skywalk(4, 4))
    return export_booksim(folder, t, layout, setup="default",
                          options={"injection_rate": 0.05, "max_samples": 4, **options})


def _options(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([A-Za-z_]\w*)\s*=\s*(.*?)\s*;", line.split("//", 1)[0])
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _real_booksim() -> str:
    try:
        return bd.find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))


def test_exported_config_holds_no_absolute_path(tmp_path):
    folder = tmp_path / "deep" / "export"
    exp = _export(folder, stats_out=str(folder / "stats.m"))
    text = exp.config_file.read_text()
    options = _options(text)
    assert options["network_file"] == exp.network_file.name
    assert options["stats_out"] == "stats.m"
    assert str(tmp_path) not in text
    assert not [v for v in options.values() if v.startswith("/")]
    assert str(tmp_path) not in exp.meta_file.read_text()


def test_write_config_names_the_netlist_relative_to_its_folder(tmp_path):
    (tmp_path / "nets").mkdir()
    cfg = write_config(tmp_path / "run.cfg", tmp_path / "nets" / "a.anynet", setup="default")
    assert _options(cfg.read_text())["network_file"] == "nets/a.anynet"
    # a netlist outside the folder can only be named by its absolute path
    outside = tmp_path.parent / "elsewhere.anynet"
    cfg2 = write_config(tmp_path / "sub" / "run.cfg", outside, setup="default")
    assert _options(cfg2.read_text())["network_file"] == str(outside.resolve())
    # without a folder, render_config cannot know where the file goes: absolute
    assert _options(render_config(tmp_path / "x.anynet"))["network_file"] == str((tmp_path / "x.anynet").resolve())


def test_export_into_a_folder_with_spaces_is_runnable(tmp_path):
    # the folder's path no longer appears in the configuration, so it may hold spaces
    exp = _export(tmp_path / "my runs")
    assert _options(exp.config_file.read_text())["network_file"] == exp.network_file.name


@pytest.mark.booksim
def test_moved_export_runs_with_plain_booksim(tmp_path):
    exe = _real_booksim()
    exp = _export(tmp_path / "made")
    moved = tmp_path / "cluster" / "copy"
    moved.parent.mkdir()
    shutil.copytree(exp.config_file.parent, moved)
    shutil.rmtree(exp.config_file.parent)  # nothing left where it was exported
    cfg = moved / exp.config_file.name
    proc = subprocess.run([exe, cfg.name], cwd=moved, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert "can't open network file" not in out
    assert proc.returncode in bd.CLEAN_EXITS, out[-2000:]
    parsed = bd.parse_output(out)
    assert parsed.finished and 0 in parsed.overall


@pytest.mark.booksim
def test_moved_export_runs_through_the_driver_from_any_working_directory(tmp_path, monkeypatch):
    _real_booksim()
    exp = _export(tmp_path / "made")
    moved = tmp_path / "moved"
    shutil.move(exp.config_file.parent, moved)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    row = bd.run_booksim(os.path.relpath(moved / exp.config_file.name), timeout=300)
    assert row["status"] == "completed" and row["topology"] == "torus"
    assert Path(row["raw_output"]).parent == moved.resolve()
