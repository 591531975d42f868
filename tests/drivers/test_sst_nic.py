"""topogen.bernoulli_nic without SST: model wiring, element build and cache keying, parsing
of a recorded real run, the saturation rule and the CLI options."""

from __future__ import annotations

import math
import runpy
import sys
from pathlib import Path

import pytest

import topogen
from topogen import sim_defaults
from topogen.drivers import sst as sd
from topogen.drivers import sst_nic as nic
from topogen.errors import ParameterError, SimulatorFailed, SimulatorNotFound
from topogen.export import sst as sx

from . import fakes
from .routing_stub import BFSRouting

#: topogen run sst net.json --seed 1 --load 0.1 on the 4x4 torus (defaults), SST-Core master
RECORDED = Path(__file__).parent / "data" / "bernoulli_torus4x4_load0.1_seed1.log"


def bundle(tmp_path, dims=(2, 4), hosts=1):
    from topogen.generators.classic import torus

    t = torus(dims, hosts_per_switch=hosts)
    return sx.write_bundle(tmp_path / "net.sst.json", t, topogen.place(t, topogen.Floor.skywalk(2, 4)),
                           BFSRouting(t))


def run_model(monkeypatch, *args):
    model = sx.model_path()
    monkeypatch.setattr(sys, "argv", [str(model), *args])
    runpy.run_path(str(model), run_name="__main__")


def nics(rec):
    return {n: c for n, c in rec["components"].items() if c.type == "topogen.bernoulli_nic"}


# ---------------------------------------------------------------- model wiring
def test_model_builds_bernoulli_endpoints_on_the_same_plumbing(tmp_path, monkeypatch, fake_sst_module):
    path = bundle(tmp_path)
    doc = sx.read_bundle(path)
    run_model(monkeypatch, "--bundle", str(path), "--generator", "bernoulli", "--load", "0.2", "--seed", "7",
              "--message-size", "1056B", "--warmup", f"{10 * doc['cycle_ps']}ps",
              "--collect", f"{100 * doc['cycle_ps']}ps", "--drain", f"{30 * doc['cycle_ps']}ps")
    rec = fake_sst_module.RECORD
    ends = nics(rec)
    assert len(ends) == doc["num_endpoints"] == 8
    assert not [c for c in rec["components"].values() if c.type == "merlin.offered_load"]
    p = next(iter(ends.values())).params
    assert p["load"] == 0.2 and p["seed"] == 7 and p["packet_flits"] == 33 and p["flit_bits"] == 256
    assert p["cycle"] == f"{doc['cycle_ps']}ps" and p["pattern"] == "uniform" and p["self_packets"] is True
    assert (p["warmup_cycles"], p["collect_cycles"], p["drain_cycles"]) == (10, 100, 30)
    for c in ends.values():  # the networkIF / endpointNIC / source routing stays merlin's
        assert c.subcomponents[("networkIF", 0)].type == "merlin.endpointNIC"
        assert not c.subcomponents[("networkIF", 0)].subcomponents[("networkIF", 0)].statistics
    assert rec["stat_output"] is None  # results are printed by the endpoints, no statistics file


@pytest.mark.parametrize("traffic, table", [
    ("bit_complement", [7, 6, 5, 4, 3, 2, 1, 0]),
    ("shift:3", [3, 4, 5, 6, 7, 0, 1, 2]),
    ("tornado", [3, 4, 5, 6, 7, 0, 1, 2]),
    ("neighbor", [1, 2, 3, 4, 5, 6, 7, 0]),
    ("table:1,0,-1,-1,5,4,7,6", [1, 0, -1, -1, 5, 4, 7, 6]),
])
def test_model_fixed_patterns_become_destination_tables(tmp_path, monkeypatch, fake_sst_module, traffic, table):
    path = bundle(tmp_path)
    run_model(monkeypatch, "--bundle", str(path), "--generator", "bernoulli", "--traffic", traffic,
              "--message-size", "1056B", "--no-self-packets")
    p = next(iter(nics(fake_sst_module.RECORD).values())).params
    assert p["pattern"] == "table" and p["dest_table"] == table and p["self_packets"] is False


@pytest.mark.parametrize("args, match", [
    (["--load", "0.1,0.2"], "one load per run"),
    (["--traffic", "bitrev"], "unknown traffic"),
    (["--traffic", "table:1,2"], "needs 8 destinations"),
])
def test_model_refuses_what_the_element_cannot_run(tmp_path, monkeypatch, fake_sst_module, args, match):
    path = bundle(tmp_path)
    with pytest.raises(SystemExit, match=match):
        run_model(monkeypatch, "--bundle", str(path), "--generator", "bernoulli", *args)


# ---------------------------------------------------------------- build and cache
def test_element_key_follows_sources_version_and_compiler(tmp_path):
    src = tmp_path / "a.cc"
    src.write_text("int x;\n")
    k = nic.element_key("SST-Core Version (15.1.0)", {"CXX": "g++"}, sources=[src])
    assert k.startswith("15.1.0-")
    assert nic.element_key("SST-Core Version (15.1.0)", {"CXX": "g++"}, sources=[src]) == k
    assert nic.element_key("SST-Core Version (15.0.0)", {"CXX": "g++"}, sources=[src]) != k
    assert nic.element_key("SST-Core Version (15.1.0)", {"CXX": "clang++"}, sources=[src]) != k
    src.write_text("int y;\n")
    assert nic.element_key("SST-Core Version (15.1.0)", {"CXX": "g++"}, sources=[src]) != k
    # the shipped sources are the element's, and they are package data
    assert {p.name for p in nic._sources()} == {"bernoulli_nic.cc", "bernoulli_nic.h", "table_topo.cc", "table_topo.h"}


def test_element_is_built_once_per_key_then_found(tmp_path, monkeypatch):
    monkeypatch.delenv(nic.ELEMENTS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    exe = fakes.sst(tmp_path / "bin")
    lib = nic.find_element(str(exe))
    assert (lib / nic.LIBRARY).is_file() and lib.parent == nic.cache_root()
    assert lib.name.startswith("fake-") and (lib / "build.log").is_file()
    mtime = (lib / nic.LIBRARY).stat().st_mtime_ns
    assert nic.find_element(str(exe)) == lib and (lib / nic.LIBRARY).stat().st_mtime_ns == mtime
    assert [p.name for p in nic.cache_root().iterdir() if not p.name.endswith(".lock")] == [lib.name]


def test_failed_build_names_its_log_and_leaves_no_library(tmp_path, monkeypatch):
    monkeypatch.delenv(nic.ELEMENTS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    exe = fakes.sst(tmp_path / "bin")
    fakes.sst_config(tmp_path / "bin", fail=True)
    with pytest.raises(SimulatorFailed, match="build log: .*build-failed.log") as info:
        nic.find_element(str(exe))
    assert "\n" not in str(info.value) and nic.ELEMENTS_ENV in str(info.value)
    log = Path(str(info.value).split("build log: ")[1].split(")")[0])
    assert "fake compiler failure" in log.read_text()
    assert not list(nic.cache_root().glob(f"*/{nic.LIBRARY}"))


def test_missing_compiler_and_missing_sst_config_are_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv(nic.ELEMENTS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    exe = fakes.sst(tmp_path / "bin")
    (tmp_path / "bin" / "fake-cxx").unlink()
    with pytest.raises(SimulatorNotFound, match="no C\\+\\+ compiler"):
        nic.find_element(str(exe))
    (tmp_path / "bin" / "sst-config").unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(SimulatorNotFound, match="no sst-config"):
        nic.find_element(str(exe))


def _cache(tmp_path, monkeypatch):
    monkeypatch.delenv(nic.ELEMENTS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(nic, "_PROBES", {})
    return fakes.sst(tmp_path / "bin")


@pytest.mark.parametrize("damage", ["library deleted", "copy cut short", "a file"])
def test_cache_entry_without_library_is_moved_aside_and_rebuilt(tmp_path, monkeypatch, damage):
    exe = _cache(tmp_path, monkeypatch)
    lib = nic.find_element(str(exe))
    (lib / nic.LIBRARY).unlink()
    if damage == "copy cut short":
        (lib / "build.log").unlink()  # an empty folder: a rename onto it would hide it
    elif damage == "a file":
        (lib / "build.log").unlink()
        lib.rmdir()
        lib.write_text("not a folder\n")
    assert nic.find_element(str(exe)) == lib and (lib / nic.LIBRARY).is_file()
    aside = [p for p in nic.cache_root().iterdir() if p.name.startswith(f"{lib.name}.broken-")]
    assert len(aside) == 1 and not (aside[0] / nic.LIBRARY).exists()
    if damage == "library deleted":
        assert (aside[0] / "build.log").is_file()  # what was there is kept
    if damage == "a file":
        assert aside[0].read_text() == "not a folder\n"
    # again: a second broken entry gets a name of its own, the first stays
    (lib / nic.LIBRARY).unlink()
    assert nic.find_element(str(exe)) == lib
    again = sorted(p for p in nic.cache_root().iterdir() if p.name.startswith(f"{lib.name}.broken-"))
    assert len(again) == 2 and aside[0] in again


def test_broken_entry_that_cannot_be_moved_is_one_line(tmp_path, monkeypatch, capsys):
    import os

    from topogen import cli
    from topogen.errors import OutputError

    exe = _cache(tmp_path, monkeypatch)
    lib = nic.find_element(str(exe))
    (lib / nic.LIBRARY).unlink()
    rename = os.rename

    def refuse(src, dst, *a, **k):
        if Path(src) == lib:
            raise PermissionError(13, "Permission denied")
        return rename(src, dst, *a, **k)

    monkeypatch.setattr(nic.os, "rename", refuse)
    with pytest.raises(OutputError) as info:
        nic.find_element(str(exe))
    msg = str(info.value)
    assert "\n" not in msg and str(lib) in msg and "Permission denied" in msg
    assert "remove or rename it" in msg and nic.ELEMENTS_ENV in msg
    assert (lib / "build.log").is_file() and not (lib / nic.LIBRARY).exists()  # left as it was
    # the command line: one line, the output error's status, no traceback
    monkeypatch.setenv("TOPOGEN_SST", str(exe))
    assert cli.main(["run", "sst", str(bundle(tmp_path)), "--seed", "1"]) == OutputError.exit_code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and str(lib) in err


def test_sst_config_and_version_run_once_per_process(tmp_path, monkeypatch):
    import os

    exe = _cache(tmp_path, monkeypatch)
    calls = tmp_path / "calls"
    for name in ("sst", "sst-config"):  # log every start of the stand-ins, then run them
        prog = tmp_path / "bin" / name
        prog.rename(prog.with_name(name + ".real"))
        prog.write_text(f'#!/bin/sh\necho "{name} $1" >> {calls}\nexec "$0.real" "$@"\n')
        prog.chmod(0o755)

    def started():
        lines = calls.read_text().splitlines() if calls.exists() else []
        return (sum(x.startswith("sst-config ") for x in lines), lines.count("sst --version"))

    lib = nic.find_element(str(exe))
    assert started() == (3, 1)
    assert nic.find_element(str(exe)) == lib and nic.find_element(str(exe)) == lib
    assert started() == (3, 1)
    config = tmp_path / "bin" / "sst-config"
    st = config.stat()
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # sst-config changed: asked again
    assert nic.find_element(str(exe)) == lib and started() == (6, 1)
    st = exe.stat()
    os.utime(exe, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a rebuilt sst: its own version and build
    assert nic.find_element(str(exe)) != lib and started() == (6, 2)


def test_elements_folder_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(nic.ELEMENTS_ENV, str(tmp_path))
    with pytest.raises(SimulatorNotFound, match=f"holds no {nic.LIBRARY}"):
        nic.find_element("sst")
    (tmp_path / nic.LIBRARY).write_text("")
    assert nic.find_element("sst") == tmp_path.resolve()


# ---------------------------------------------------------------- parsing and judging
def test_recorded_real_run_is_read_and_measured():
    tot = nic.nic_measurements(RECORDED)
    assert tot["endpoints"] == 16 and tot["active"] == 16
    assert tot["created_window"] == tot["delivered_window"] > 600
    doc = {"num_endpoints": 16, "num_routers": 16, "metadata": {"generator": "torus", "routing": "booksim-min"}}
    row = nic.bernoulli_row(doc, tot, load=0.1, traffic="uniform", seed=1, status="completed", message=None,
                             cycles=(3751, 15004, 7502), packet_flits=33, params={})
    assert row["status"] == "completed" and row["latency_unit"] == "cycles" and row["sim_seed"] == 1
    assert row["latency_avg"] == pytest.approx(tot["latency_sum"] / tot["delivered_window"])
    assert 55 < row["latency_avg"] < 75  # the 4x4 torus at 0.1: BookSim 64.3, simulate 63.3 (3 seeds)
    assert row["latency_min"] <= row["latency_avg"] <= row["latency_max"]
    assert row["flit_latency_avg"] == pytest.approx(row["latency_avg"] - 16)
    assert row["accepted_flit_rate"] == pytest.approx(0.1, rel=0.05)
    assert row["injected_flit_rate"] == pytest.approx(0.1, rel=0.05)
    assert row["accepted_load"] == pytest.approx(row["accepted_flit_rate"] / 33)  # packets, as run booksim
    assert row["injected_load"] == pytest.approx(row["injected_flit_rate"] / 33)
    assert row["packets"] == tot["delivered_window"]


def _line(ep, created, delivered, lat=60.0):
    return (f"topogen.bernoulli_nic ep={ep} active=1 created={2 * created} created_window={created} "
            f"delivered_window={delivered} latency_sum={delivered * lat} latency_sumsq={delivered * lat * lat} "
            f"latency_min={lat} latency_max={lat} network_latency_sum={delivered * lat} injected_flits_window=330 "
            f"accepted_flits_window=330 max_queue=3 queue_at_window_end=1 queue_end=0\n")


def test_undelivered_window_packets_or_long_latency_saturate(tmp_path):
    doc = {"num_endpoints": 2}
    log = tmp_path / "a.log"
    log.write_text(_line(0, 10, 10) + _line(1, 10, 9) + "topogen.bernoulli_nic ep=1 cut")
    tot = nic.nic_measurements(log)
    assert tot["endpoints"] == 2 and tot["max_queue"] == 3
    row = nic.bernoulli_row(doc, tot, load=0.1, traffic="uniform", seed=1, status="completed", message=None,
                             cycles=(10, 100, 10), packet_flits=33, params={})
    assert row["status"] == "saturated" and "1 of 20 packets created" in row["message"]
    assert math.isnan(row["latency_avg"]) and row["accepted_flit_rate"] == pytest.approx(330 * 2 / 200)
    log.write_text(_line(0, 10, 10, lat=600.0) + _line(1, 10, 10, lat=600.0))
    row = nic.bernoulli_row(doc, nic.nic_measurements(log), load=0.1, traffic="uniform", seed=1,
                             status="completed", message=None, cycles=(10, 100, 10), packet_flits=33, params={})
    assert row["status"] == "saturated" and f"above {sim_defaults.LATENCY_THRES:g}" in row["message"]
    log.write_text(_line(0, 10, 10))
    row = nic.bernoulli_row(doc, nic.nic_measurements(log), load=0.1, traffic="uniform", seed=1,
                             status="completed", message=None, cycles=(10, 100, 10), packet_flits=33, params={})
    assert row["status"] == "incomplete" and "1 of 2 endpoints" in row["message"]


# ---------------------------------------------------------------- driver and CLI with a stand-in SST
def test_run_sst_bernoulli_with_a_stand_in(tmp_path, monkeypatch):
    path = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin")))
    rows = sd.run_sst(path, load=[0.1, 0.3], generator="bernoulli", seed=5, warmup="1us", collect="4us",
                      drain="1us", timeout=60)
    assert [r["status"] for r in rows] == ["completed", "completed"]
    assert all(r["sim_seed"] == 5 and r["latency_unit"] == "cycles" for r in rows)
    import json

    params = json.loads(rows[0]["params"])
    assert params["generator"] == "bernoulli" and params["self_packets"] is True and params["seed_source"] == "given"
    assert params["collect_cycles"] == round(4e6 / params["cycle_ps"])
    assert "--add-lib-path=" in params["command"] and "--seed 5" in params["command"]
    # the hr_router and linkcontrol settings that change the numbers, as the bundle gives them
    doc = json.loads(path.read_text())
    assert params["router_params"] == doc["router_params"] and params["router_params"]["xbar_arb"]
    assert params["nic_params"] == doc["nic_params"] and params["nic_params"]["link_bw"]
    ol = json.loads(sd.run_sst(path, load=0.1, generator="offered_load", warmup="1us", collect="4us",
                               drain="1us")[0]["params"])
    assert ol["router_params"] == doc["router_params"] and ol["nic_params"] == doc["nic_params"]
    # no seed: derived from the run's content, so the same call gives the same seed;
    # bernoulli is the library's default as the CLI's
    a = sd.run_sst(path, load=0.1, warmup="1us", collect="4us", drain="1us")[0]
    b = sd.run_sst(path, load=0.1, generator="bernoulli", warmup="1us", collect="4us", drain="1us")[0]
    c = sd.run_sst(path, load=0.2, warmup="1us", collect="4us", drain="1us")[0]
    assert a["sim_seed"] == b["sim_seed"] != c["sim_seed"] and a["raw_output"] != b["raw_output"]
    assert json.loads(a["params"])["generator"] == "bernoulli" and a["latency_unit"] == "cycles"
    with pytest.raises(ParameterError, match="bernoulli or offered_load"):
        sd.run_sst(path, generator="periodic")
    with pytest.raises(ParameterError, match="offered_load takes no seed"):
        sd.run_sst(path, generator="offered_load", seed=5)


def test_library_and_cli_default_to_the_same_generator():
    import inspect

    from topogen import cli

    default = inspect.signature(sd.run_sst).parameters["generator"].default
    args = cli.build_parser().parse_args(["run", "sst", "net.json"])
    assert default == args.generator == "bernoulli"


def test_cli_default_generator_and_seed_options(tmp_path, monkeypatch, capsys):
    from topogen import cli
    from topogen.results import read_results

    path = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin")))
    assert cli.main(["run", "sst", str(path), "--seed", "3", "--collect", "4us", "--warmup", "1us"]) == 0
    assert "cycles" in capsys.readouterr().out
    table = read_results(tmp_path / "results.csv")
    assert table["sim_seed"].tolist() == [3] and '"generator":"bernoulli"' in table["params"][0]
    assert cli.main(["run", "sst", str(path), "--generator", "offered_load", "--seed", "3"]) != 0
    assert "--seed applies to --generator bernoulli" in capsys.readouterr().err
    assert cli.main(["run", "sst", str(path), "--seed", "x"]) != 0
    assert "seed must be an integer in [0, 2**63-1], got 'x'" in capsys.readouterr().err
