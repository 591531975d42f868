"""Inputs validated at the boundary: results files, sizes that exceed
the machine's memory, switch ids beyond int32, layout and VC options that are zero, host
counts beyond 32-bit ids, and numba's cache where no default cache folder is writable.
Each case was an internal error (exit 70) or silently accepted before."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import topogen
import topogen.cli as cli
from topogen import Topology, _validate, registry
from topogen.errors import FormatError, ParameterError
from topogen import formats
from topogen.results import read_results

_ROOT = Path(topogen.__file__).resolve().parents[1]


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0] and "internal error" not in err[0], err
    return err[0]


# ---------------------------------------------------------------------------- results files
@pytest.mark.parametrize("content, words", [
    (b"", "empty file"),
    (b"\n\n", "empty file"),
    (bytes(range(256)) * 4, "not a text file"),
    (b"simulator,status,offered_load\nreference,completed,abc\n", "offered_load"),
    (b"simulator,status,offered_load\nreference,completed,0.1\n1,2,3,4,5\n", "malformed CSV"),
], ids=["empty", "blank", "binary", "bad-value", "ragged"])
def test_bad_results_csv_is_a_format_error(tmp_path, capsys, content, words):
    path = tmp_path / "R.csv"
    path.write_bytes(content)
    with pytest.raises(FormatError, match=words) as info:
        read_results(path)
    assert str(path) in str(info.value)
    assert cli.main(["results", str(path)]) == FormatError.exit_code
    assert words in _one_error_line(capsys)
    assert path.read_bytes() == content


@pytest.mark.parametrize("content", [b'{"rows": [1, 2]}', b"\x80\x81binary", b'{"rows": [["a"]]}'],
                         ids=["ints", "binary", "lists"])
def test_bad_results_json_is_a_format_error(tmp_path, content):
    path = tmp_path / "R.json"
    path.write_bytes(content)
    with pytest.raises(FormatError):
        read_results(path)


def test_simulate_refuses_a_corrupt_results_file_it_would_append_to(tmp_path, capsys):
    topo = tmp_path / "t.json"
    assert cli.main(["generate", "torus", "--dims", "3,3", "-o", str(topo), "-q"]) == 0
    out = tmp_path / "R.csv"
    out.write_bytes(b"")
    code = cli.main(["simulate", str(topo), "--max-samples", "4", "--warmup-periods", "1",
                     "--seed", "1", "-o", str(out)])
    assert code == FormatError.exit_code
    capsys.readouterr()
    assert out.read_bytes() == b""


# ---------------------------------------------------------------------------- memory
def test_check_memory_names_needed_and_available(monkeypatch):
    monkeypatch.setattr(_validate, "available_memory", lambda: 2 * 2**30)
    _validate.check_memory("a thing", 2**30)
    with pytest.raises(ParameterError, match=r"a thing needs about 8\.0 GiB .* 2\.0 GiB are available"):
        _validate.check_memory("a thing", 8 * 2**30)
    monkeypatch.setattr(_validate, "available_memory", lambda: None)
    _validate.check_memory("a thing", 2**60)  # unknown: no refusal


def test_available_memory_reads_proc_or_falls_back(monkeypatch):
    avail = _validate.available_memory()
    assert avail is None or avail > 0
    monkeypatch.setattr(_validate, "_meminfo_available", lambda: None)
    monkeypatch.setattr(_validate, "_address_space_left", lambda: 12345)
    assert _validate.available_memory() == 12345


@pytest.mark.parametrize("name, params", [
    ("hypercube", {"dimension": 30}),          # documented range [0, 30]; ~3 TiB
    ("torus", {"dims": (3000, 3000)}),
    ("hyperx", {"dims": (3000, 3000)}),
    ("random", {"num_switches": 10**8, "degree": 8, "seed": 1}),
    ("dsn", {"num_switches": 10**8, "x": 4}),
])
def test_generators_refuse_sizes_beyond_memory(monkeypatch, name, params):
    monkeypatch.setattr(_validate, "available_memory", lambda: 256 * 2**20)
    with pytest.raises(ParameterError, match=r"needs about .* of memory, but 256\.0 MiB are available"):
        registry.generate(name, **params)


def test_generator_memory_error_is_a_clear_refusal(monkeypatch):
    spec = registry.get("petersen")

    def boom(**kw):
        raise MemoryError("Unable to allocate 8.00 GiB for an array")

    monkeypatch.setattr(registry, "_GENERATORS", {**registry._GENERATORS,
                                                  "petersen": type(spec)(**{**spec.__dict__, "func": boom})})
    with pytest.raises(ParameterError, match="petersen ran out of memory .*8.00 GiB"):
        registry.generate("petersen")


def test_cli_turns_any_memory_error_into_one_line(monkeypatch, capsys):
    def boom(args):
        raise MemoryError()

    monkeypatch.setattr(cli, "_cmd_list", boom)
    code = cli.main(["list"])
    assert code not in (0, cli.EXIT_INTERNAL)
    assert "out of memory" in _one_error_line(capsys)


def test_writers_and_routing_refuse_sizes_beyond_memory(monkeypatch, tmp_path):
    from topogen.routing import route

    topo = registry.generate("torus", dims=(20, 20))
    monkeypatch.setattr(_validate, "available_memory", lambda: 100_000)
    with pytest.raises(ParameterError, match="graphml"):
        formats.save(tmp_path / "t.graphml", topo)
    with pytest.raises(ParameterError, match="square of the switch count"):
        route(topo, None, "nr")
    assert not list(tmp_path.iterdir())


def _limited(limit_bytes: int):
    def set_limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return set_limit


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics")
@pytest.mark.parametrize("argv", [["hypercube", "--dimension", "30"],
                                  ["torus", "--dims", "3000,3000"]])
def test_cli_refuses_sizes_beyond_the_address_space_limit(tmp_path, argv):
    """Under ``ulimit -v`` (1.6 GB, enough for topogen itself) the large sizes are
    refused up front with the size needed and available, not a MemoryError (exit 70)."""
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    out = tmp_path / "t.json"
    proc = subprocess.run([sys.executable, "-m", "topogen", "generate", *argv, "-o", str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
                          preexec_fn=_limited(1_600_000 * 1024))
    assert proc.returncode == ParameterError.exit_code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs about" in lines[0] and "available" in lines[0], lines
    assert not out.exists()


# ---------------------------------------------------------------------------- ids and hosts
@pytest.mark.parametrize("text, line", [("0 1\n1 3000000000\n", 2), ("0 1\n2147483647 1\n", 2)])
def test_edge_list_ids_beyond_int32(tmp_path, capsys, text, line):
    path = tmp_path / "big.edges"
    path.write_text(text)
    with pytest.raises(FormatError, match=f"line {line}: switch id .* 32-bit"):
        formats.load(path)
    assert cli.main(["convert", str(path), str(tmp_path / "big.json")]) == FormatError.exit_code
    assert "32-bit" in _one_error_line(capsys)
    assert not (tmp_path / "big.json").exists()


def test_bundle_with_too_many_switches(tmp_path):
    path = tmp_path / "t.json"
    formats.save(path, registry.generate("torus", dims=(3, 3)))
    path.write_text(path.read_text().replace('"num_switches": 9', '"num_switches": 3000000000'))
    with pytest.raises(FormatError, match="32-bit"):
        formats.load(path)


def test_topology_ids_and_host_count_limits():
    with pytest.raises(ParameterError, match="32-bit switch ids"):
        Topology(2**31, np.zeros((0, 2)))
    with pytest.raises(ParameterError, match="64,000,000,000 hosts"):
        Topology(16, [[0, 1]], hosts_per_switch=4_000_000_000)
    with pytest.raises(ParameterError, match="hosts exceed"):
        Topology(2, [[0, 1]], hosts_per_switch=[2**31 - 1, 1])
    assert Topology(2, [[0, 1]], hosts_per_switch=[2**31 - 2, 1]).num_hosts == 2**31 - 1


def test_cli_refuses_64e9_hosts(tmp_path, capsys):
    out = tmp_path / "h.json"
    code = cli.main(["generate", "torus", "--dims", "4,4", "--hosts_per_switch", "4000000000",
                     "-o", str(out)])
    assert code == ParameterError.exit_code
    assert "hosts" in _one_error_line(capsys)
    assert not out.exists()


# ---------------------------------------------------------------------------- zero options
@pytest.mark.parametrize("argv", [
    ["generate", "torus", "--dims", "4,4", "--cabinets", "0", "-o", "{out}"],
    ["generate", "torus", "--dims", "4,4", "--switches-per-cabinet", "0", "-o", "{out}"],
    ["generate", "torus", "--dims", "4,4", "--cabinets", "-2", "-o", "{out}"],
    ["analyze", "torus", "--dims", "4,4", "--switches-per-cabinet", "0"],
    ["route", "{topo}", "--vcs", "0", "-o", "{out}"],
    ["simulate", "{topo}", "--routing-vcs", "0"],
])
def test_zero_options_are_refused_not_ignored(tmp_path, capsys, argv):
    topo = tmp_path / "t.json"
    assert cli.main(["generate", "torus", "--dims", "3,3", "-o", str(topo), "-q"]) == 0
    capsys.readouterr()
    out = tmp_path / "out.json"
    argv = [a.format(out=out, topo=topo) for a in argv]
    code = cli.main(argv)
    assert code not in (0, cli.EXIT_INTERNAL)
    assert ">= 1" in _one_error_line(capsys)
    assert not out.exists()


def test_default_floor_refuses_zero_instead_of_ignoring_it():
    from topogen.layout import default_floor

    topo = registry.generate("torus", dims=(4, 4))
    for kw in ({"cabinets": 0}, {"switches_per_cabinet": 0}):
        with pytest.raises(ParameterError, match=">= 1"):
            default_floor(topo, **kw)
    assert default_floor(topo, cabinets=3).cabinets == 3


def test_route_refuses_zero_vcs():
    from topogen.routing import route

    topo = registry.generate("torus", dims=(4, 4))
    for alg in ("nr", "dor", "escape", "hop"):
        with pytest.raises(ParameterError, match="vcs"):
            route(topo, None, alg, vcs=0)


# ---------------------------------------------------------------------------- numba cache
def test_numba_cache_falls_back_to_a_temporary_folder(tmp_path):
    """Neither the package folder nor HOME writable (even for root: both are files where
    numba needs folders): the compiled kernels still load, caching under TMPDIR."""
    pytest.importorskip("numba")
    pkg = tmp_path / "site"
    shutil.copytree(_ROOT / "topogen", pkg / "topogen",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "topogen" / "__pycache__").write_text("not a folder")
    home = tmp_path / "home"
    home.write_text("not a folder")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(pkg), HOME=str(home), TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    # large enough for the compiled kernels (a 4x4 torus is analysed with SciPy, compiling nothing)
    proc = subprocess.run([sys.executable, "-m", "topogen", "analyze", "torus", "--dims", "64,64",
                           "--format", "json"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    cache = [p for p in tmp.iterdir() if p.name.startswith("topogen-numba-cache")]
    assert cache and any(f.suffix == ".nbi" for f in cache[0].rglob("*")), list(tmp.rglob("*"))


# ---------------------------------------------------------------------------- huge counts
@pytest.mark.parametrize("name, params", [
    ("dln", {"num_switches": 32, "x": 2, "seed": 1, "instances": 99999999999999}),
    ("gau", {"num_switches": 32, "degree": 4, "alpha": 1.0, "seed": 1, "instances": 10**14}),
    ("random", {"num_switches": 32, "degree": 4, "seed": 1, "instances": 10**14, "instance": 3}),
    ("dsnf", {"num_switches": 32, "p": 10**14}),
])
def test_huge_counts_are_refused_not_hung(name, params):
    """Instance counts and DSN-F's p used to be enumerated (or 2**p computed) up front."""
    with pytest.raises(ParameterError, match="instances|p must be"):
        registry.generate(name, **params)


def test_huge_max_attempts_costs_nothing_up_front():
    from topogen._rng import child_seeds, iter_child_seeds

    assert list(iter_child_seeds(7, 25)) == child_seeds(7, 25)
    topo = registry.generate("p-hypercube", dimension=5, switches_per_cabinet=8, seed=1,
                             max_attempts=10**14)
    assert registry.generate("p-hypercube", dimension=5, switches_per_cabinet=8, seed=1,
                             max_attempts=100).edges.tolist() == topo.edges.tolist()
