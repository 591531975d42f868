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

from shared_paths import FIXTURES  # noqa: E402
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
    from topogen import formats
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
    (cfg_path,) = out.glob("torus-*.cfg")  # content-named: runs of other settings never clash
    cfg = cfg_path.read_text()
    assert "traffic = bitrev;" in cfg and "injection_rate = 0.05;" in cfg and "num_vcs = 8;" in cfg
    assert cfg_path.with_suffix(".anynet").is_file() and cfg_path.with_suffix(".anynet.meta.json").is_file()
    table = read_results(out / "results.csv")
    assert table["status"].tolist() == ["completed"] and table["latency_avg"].tolist() == [17.1847]
    assert Path(table["raw_output"][0]).is_file()
    printed = capsys.readouterr().out
    assert "completed" in printed and "results:" in printed
    # a second run appends to the results table
    call(["run", "booksim", str(cfg_path), "--rate", "0.06", "--binary", str(fake_booksim(tmp_path))])
    assert len(read_results(out / "results.csv")) == 2


@needs_fixtures
def test_run_booksim_takes_load_and_seed_as_simulate_does(tmp_path):
    src = topology_file(tmp_path)
    out = tmp_path / "out"
    code = call(["run", "booksim", str(src), "--out-dir", str(out), "--load", "0.07", "--seed", "7",
                 "--binary", str(fake_booksim(tmp_path))])
    assert code == 0
    (cfg_path,) = out.glob("torus-*.cfg")
    cfg = cfg_path.read_text()
    assert "injection_rate = 0.07;" in cfg and "seed = 7;" in cfg
    with pytest.raises(ParameterError, match="disagree"):
        call(["run", "booksim", str(src), "--out-dir", str(out), "--seed", "7", "--set", "seed=8",
              "--binary", str(fake_booksim(tmp_path))])


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
    # the simulator is looked for first: no export work is wasted
    assert not (tmp_path / "s" / "net.sst.json").exists()
    assert not (tmp_path / "o" / "torus.anynet").exists()


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


# ---------------------------------------------------------------- through the main `topogen` CLI
def _topogen(argv, env=None, cwd=None):
    """Run the installed command the way a shell does (``python -m topogen``)."""
    import subprocess
    import sys

    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "topogen", *argv], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=120)


def _bare_path(tmp_path):
    """A PATH with the Python interpreter's folder and the basic tools, but no simulators."""
    import shutil
    import sys

    empty = tmp_path / "nosim"
    empty.mkdir(exist_ok=True)
    dirs = [str(empty), os.path.dirname(sys.executable)]
    for tool in ("sh", "cat", "stdbuf"):
        found = shutil.which(tool)
        if found:
            dirs.append(os.path.dirname(found))
    return os.pathsep.join(dict.fromkeys(dirs))


def test_shell_simulator_not_found_is_one_line(tmp_path):
    src = topology_file(tmp_path)
    env = {"PATH": _bare_path(tmp_path), "TOPOGEN_BOOKSIM": "", "TOPOGEN_SST": ""}
    for sim, var in (("booksim", "TOPOGEN_BOOKSIM"), ("sst", "TOPOGEN_SST")):
        res = _topogen(["run", sim, str(src), "--out-dir", str(tmp_path / sim)], env=env)
        assert res.returncode == SimulatorNotFound.exit_code, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, res.stderr
        assert f"{sim} not found" in lines[0] and var in lines[0] and "PATH" in lines[0]
    res = _topogen(["run", "booksim", str(src), "--out-dir", str(tmp_path / "b")],
                   env={"TOPOGEN_BOOKSIM": str(tmp_path / "no-such-booksim")})
    assert res.returncode == SimulatorNotFound.exit_code
    assert len(res.stderr.strip().splitlines()) == 1 and "TOPOGEN_BOOKSIM=" in res.stderr


@needs_fixtures
def test_shell_run_booksim_from_path_then_results(tmp_path):
    src = topology_file(tmp_path)
    fake_booksim(tmp_path)  # tmp_path/bin/booksim
    env = {"PATH": str(tmp_path / "bin") + os.pathsep + _bare_path(tmp_path), "TOPOGEN_BOOKSIM": ""}
    res = _topogen(["run", "booksim", str(src), "--out-dir", "out", "--rate", "0.05", "--setup", "default"],
                   env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "completed, latency 17.18 cycles" in res.stdout
    table = read_results(tmp_path / "out" / "results.csv")
    log = Path(table["raw_output"][0])
    assert log.is_absolute() and log.parent == tmp_path / "out" and log.is_file()
    assert table["topology"][0] == "torus" and table["num_hosts"][0] == 32
    res = _topogen(["results", str(tmp_path / "out" / "results.csv")])
    assert res.returncode == 0 and "min_anynet" in res.stdout and "17.18" in res.stdout
    res = _topogen(["results", str(tmp_path / "out" / "results.csv"), "--format", "csv"])
    assert res.returncode == 0 and res.stdout.startswith("simulator,topology,")


@needs_fixtures
def test_shell_failed_run_exits_non_zero_and_keeps_its_row(tmp_path):
    cfg = tmp_path / "net.cfg"
    cfg.write_text("topology = anynet;\n")
    crash = tmp_path / "bin" / "booksim"
    crash.parent.mkdir()
    crash.write_text(f"#!/bin/sh\nhead -n 40 '{FIXTURES / 'booksim' / 'ring8_deadlock.out'}'\nkill -ABRT $$\n")
    crash.chmod(0o755)
    ok = tmp_path / "bin" / "booksim-ok"
    ok.write_text(f"#!/bin/sh\ncat '{FIXTURES / 'booksim' / 'torus4x4_c2_low.out'}'\nexit 255\n")
    ok.chmod(0o755)
    assert _topogen(["run", "booksim", str(cfg)], env={"TOPOGEN_BOOKSIM": str(ok)}).returncode == 0
    res = _topogen(["run", "booksim", str(cfg)], env={"TOPOGEN_BOOKSIM": str(crash)})
    assert res.returncode == 7
    line = res.stderr.strip()
    assert "\n" not in line and "booksim crash: killed by SIGABRT" in line and "raw output:" in line
    table = read_results(tmp_path / "results.csv")
    assert table["status"].tolist() == ["completed", "crash"]
    logs = [Path(p) for p in table["raw_output"]]
    assert logs[0] != logs[1] and all(p.is_file() for p in logs)  # the first log was not overwritten


def test_shell_parquet_without_pyarrow_is_one_line(tmp_path):
    try:
        import pyarrow  # noqa: F401
        pytest.skip("pyarrow is installed; the error cannot happen")
    except ImportError:
        pass
    path = write_results(tmp_path / "r.csv", [make_row(simulator="sst", offered_load=0.1, status="completed")])
    res = _topogen(["results", str(path), "--format", "parquet", "-o", str(tmp_path / "r.parquet")])
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "pyarrow" in res.stderr and "topogen[parquet]" in res.stderr
    assert not (tmp_path / "r.parquet").exists()
    (tmp_path / "x.parquet").write_bytes(b"PAR1")
    res = _topogen(["results", str(tmp_path / "x.parquet")])
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "pyarrow" in res.stderr


@pytest.mark.parametrize("seed, shown", [("x", "'x'"), ("1.5", "'1.5'"), ("-1", "-1"), (str(2**63), str(2**63))])
def test_a_bad_seed_is_one_line_and_the_same_on_every_command(tmp_path, monkeypatch, capsys, seed, shown):
    """run booksim, run sst and simulate parse --seed with one parser (topogen._rng.resolve_seed):
    one message, a ParameterError's exit status, no traceback, and nothing written."""
    from topogen import cli

    from . import fakes

    src = topology_file(tmp_path)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES)))
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin")))
    errors = []
    for command in (["run", "booksim"], ["run", "sst"], ["simulate"]):
        out = tmp_path / command[-1]
        assert cli.main([*command, str(src), "--seed", seed, "-o", str(out / "results.csv")]) == \
            ParameterError.exit_code
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        errors.append(err)
        assert not out.exists()
    assert errors[0] == errors[1] == errors[2]
    assert errors[0] == f"topogen: error: seed must be an integer in [0, 2**63-1], got {shown}" + (
        "; pass e.g. --seed 1\n" if "'" in shown else "\n")


def test_booksim_seed_fits_its_c_int(tmp_path, monkeypatch, capsys):
    from topogen import cli

    from . import fakes

    src = topology_file(tmp_path)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES)))
    out = tmp_path / "out"
    assert cli.main(["run", "booksim", str(src), "--seed", str(2**31), "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"at most {2**31 - 1}, got {2**31}" in err and not out.exists()
    for bad in (str(2**31), "-1"):  # the same limit through --set
        assert cli.main(["run", "booksim", str(src), "--set", f"seed={bad}", "--out-dir", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"0 to {2**31 - 1}; got {bad}" in err and not out.exists()


@needs_fixtures
def test_seeds_parsed_alike_reach_the_simulators(tmp_path, monkeypatch):
    """A good seed means the same number on both commands (leading zeros, spaces)."""
    from topogen import cli

    from . import fakes

    src = topology_file(tmp_path)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES)))
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin")))
    big = str(2**31 - 1)
    assert cli.main(["run", "booksim", str(src), "--seed", " 007", "--out-dir", str(tmp_path / "b")]) == 0
    assert cli.main(["run", "booksim", str(src), "--seed", big, "--out-dir", str(tmp_path / "b2")]) == 0
    assert cli.main(["run", "sst", str(src), "--seed", " 007", "--collect", "4us", "--warmup", "1us",
                     "--drain", "1us", "--out-dir", str(tmp_path / "s")]) == 0
    assert read_results(tmp_path / "b" / "results.csv")["sim_seed"].tolist() == [7]
    assert read_results(tmp_path / "b2" / "results.csv")["sim_seed"].tolist() == [int(big)]
    assert read_results(tmp_path / "s" / "results.csv")["sim_seed"].tolist() == [7]
