"""The `run` and `results` CLI pieces (wired into topogen.cli by the CLI owner)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import pytest

import topogen
from topogen.drivers.cli import add_results_parser, add_run_parser
from topogen.errors import ParameterError, SimulatorNotFound
from topogen.results import read_results, write_results, make_row

FIXTURES = Path(os.environ.get("TOPOGEN_FIXTURES", "/work/shared/fixtures"))
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason="shared fixtures not found")


def parser():
    p = argparse.ArgumentParser(prog="topogen")
    sub = p.add_subparsers(dest="command")
    add_run_parser(sub)
    add_results_parser(sub)
    return p


def call(argv):
    args = parser().parse_args(argv)
    return args.handler(args)


def topology_file(tmp_path):
    from topogen.export import formats
    from topogen.generators.classic import torus

    t = torus((4, 4), hosts_per_switch=2)
    path = tmp_path / "net.json"
    formats.save(path, t, topogen.place(t, topogen.Floor.skywalk(4, 4)))
    return path


def fake_booksim(tmp_path):
    exe = tmp_path / "bin" / "booksim"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(f"#!/bin/sh\ncat '{FIXTURES / 'booksim' / 'torus4x4_c2_low.out'}'\nexit 255\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


@needs_fixtures
def test_run_booksim_from_topology_file(tmp_path, capsys):
    src = topology_file(tmp_path)
    out = tmp_path / "out"
    code = call(["run", "booksim", str(src), "--out-dir", str(out), "--setup", "default",
                 "--traffic", "bitrev", "--rate", "0.05", "--set", "num_vcs=8",
                 "--binary", str(fake_booksim(tmp_path))])
    assert code == 0
    cfg = (out / "torus.cfg").read_text()
    assert "traffic = bitrev;" in cfg and "injection_rate = 0.05;" in cfg and "num_vcs = 8;" in cfg
    assert (out / "torus.anynet").is_file() and (out / "torus.anynet.meta.json").is_file()
    table = read_results(out / "results.csv")
    assert table["status"].tolist() == ["completed"] and table["latency_avg"].tolist() == [17.1847]
    assert Path(table["raw_output"][0]).is_file()
    printed = capsys.readouterr().out
    assert "completed" in printed and "results:" in printed
    # a second run appends to the results table
    call(["run", "booksim", str(out / "torus.cfg"), "--rate", "0.06", "--binary", str(fake_booksim(tmp_path))])
    assert len(read_results(out / "results.csv")) == 2


def test_run_without_simulator_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_BOOKSIM", raising=False)
    monkeypatch.delenv("TOPOGEN_SST", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    src = topology_file(tmp_path)
    with pytest.raises(SimulatorNotFound) as info:
        call(["run", "booksim", str(src), "--out-dir", str(tmp_path / "o")])
    assert "\n" not in str(info.value) and "TOPOGEN_BOOKSIM" in str(info.value)
    with pytest.raises(SimulatorNotFound) as info:
        call(["run", "sst", str(src), "--out-dir", str(tmp_path / "s")])
    assert "\n" not in str(info.value) and "TOPOGEN_SST" in str(info.value)
    # the bundle was exported before looking for sst
    assert (tmp_path / "s" / "net.sst.json").is_file()


def test_results_command(tmp_path, capsys):
    path = write_results(tmp_path / "r.csv", [
        make_row(simulator="booksim", topology="torus", traffic="uniform", offered_load=0.05,
                 status="completed", latency_avg=17.2, latency_unit="cycles"),
    ])
    assert call(["results", str(path)]) == 0
    out = capsys.readouterr().out
    assert "torus" in out and "17.2" in out and "completed" in out
    assert call(["results", str(path), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("simulator,topology,")
    assert call(["results", str(path), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    assert read_results(tmp_path / "r.json")["latency_avg"].tolist() == [17.2]
    with pytest.raises(ParameterError, match="parquet needs -o"):
        call(["results", str(path), "--format", "parquet"])


@needs_fixtures
def test_run_booksim_sweep(tmp_path, capsys):
    import sys

    from .test_booksim_driver import SWEEP_FAKE, fake

    exe = fake(tmp_path, SWEEP_FAKE.format(python=sys.executable, counter=str(tmp_path / "calls"), knee=0.5,
                                           low=str(FIXTURES / "booksim" / "torus4x4_c2_low.out"),
                                           high=str(FIXTURES / "booksim" / "torus4x4_c2_high.out")))
    cfg = tmp_path / "net.cfg"
    cfg.write_text("topology = anynet;\n")
    assert call(["run", "booksim", str(cfg), "--sweep", "--low", "0.01", "--tolerance", "0.05",
                 "--binary", str(exe)]) == 0
    out = capsys.readouterr().out
    assert "zero-load latency 17.18 cycles" in out and "saturation between" in out
    table = read_results(tmp_path / "results.csv")
    assert (table["status"] == "completed").sum() >= 2 and (table["status"] == "saturated").sum() >= 1
