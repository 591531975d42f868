"""SST/merlin output parsers and driver (with a fake ``sst`` executable)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import topogen
from topogen.drivers import sst as sd
from topogen.errors import FormatError, SimulatorFailed, SimulatorNotFound
from topogen.export import sst as sx

from . import fakes
from .routing_stub import BFSRouting

from shared_paths import FIXTURES as _SHARED  # noqa: E402

FIXTURES = _SHARED / "sst"
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"fixtures not found at {FIXTURES}")


@needs_fixtures
@pytest.mark.parametrize("name", ["raw_anytopo_graph", "desttag"])
def test_parse_stdout_fixtures(name):
    out = sd.parse_stdout(FIXTURES / name / "out.txt")
    assert out.loads == [(0.3, 172.602, False)]
    assert out.complete and out.sim_time_ns == 12000.0
    assert sd.classify(out) == ("completed", None)


def test_parse_stdout_units_saturation_and_errors():
    text = ("  Offered   Average\n    Load    Latency\n     0.50      17.2513 us*\n"
            "     0.90      1.5 ms*\n\nSimulation is complete, simulated time: 400 us\n")
    out = sd.parse_stdout(text)
    assert out.loads == [(0.5, 17251.3, True), (0.9, 1.5e6, True)]
    assert out.sim_time_ns == 400000.0
    assert sd.classify(out) == ("completed", None)  # the process finished; loads are judged next
    rows = sd.rows_from_output(None, out, None, status="completed", message=None, loads=[0.5, 0.9])
    assert [r["status"] for r in rows] == ["saturated", "saturated"]
    assert "'*'" in rows[0]["message"] and "not measured" in rows[0]["message"]
    assert all(math.isnan(r["latency_avg"]) for r in rows)  # saturated: no latency
    with pytest.raises(FormatError, match="line 3"):
        sd.parse_stdout("  Offered   Average\n    Load    Latency\n     0.50  lots\n")
    fatal = sd.parse_stdout("FATAL: [0:0] merlin.anytopo: ERROR: Endpoint 6 not found\n")
    assert sd.classify(fatal)[0] == "crash"
    rej = sd.parse_stdout("Traceback (most recent call last):\n  File x\nNameError: y\n")
    assert sd.classify(rej)[0] == "rejected"


SUMS = [38088, 37416, 30763, 32958, 41462, 45059, 43019, 39085, 33693, 37626, 35085, 40618]


@needs_fixtures
def test_parse_accumulator_statistics():
    lat = sd.parse_statistics(FIXTURES / "raw_anytopo_graph" / "anytopo_stats.csv")
    assert lat.components == 12 and lat.count == 2670
    assert lat.avg == pytest.approx(sum(SUMS) / 2670)
    assert (lat.min, lat.max) == (61, 323)
    assert lat.send_bits == 12 * 115200 and lat.sim_time_ps == 12000000
    assert math.isnan(lat.p50)
    empty = sd.parse_statistics(FIXTURES / "desttag" / "anytopo_desttag_stats.csv")
    assert empty.count == 0 and math.isnan(empty.avg)


@needs_fixtures
def test_parse_histogram_statistics():
    lat = sd.parse_statistics(FIXTURES / "histo" / "histo.csv")
    assert lat.components == 16 and lat.count == 3509
    rows = [ln.split(",") for ln in (FIXTURES / "histo" / "histo.csv").read_text().splitlines()[1:]]
    assert lat.avg == pytest.approx(sum(int(r[10]) for r in rows) / 3509)
    # bins are 100 ns wide from 0; median must lie in the bin holding the 50% point
    counts = [0] * 10
    for line in (FIXTURES / "histo" / "histo.csv").read_text().splitlines()[1:]:
        for i, v in enumerate(line.split(",")[17:27]):
            counts[i] += int(v)
    cum, k = 0, 0
    while cum + counts[k] < 0.5 * sum(counts):
        cum += counts[k]
        k += 1
    assert 100 * k <= lat.p50 <= 100 * (k + 1)
    assert lat.p50 <= lat.p90 <= lat.p99 <= 1000
    assert math.isnan(lat.min)


def test_statistics_format_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("ComponentName,StatisticName,StatisticSubId,StatisticType,SimTime,Rank,Sum.u64,SumSQ.u64,"
                   "Count.u64,Min.u64,Max.u64\nol_0,packet_latency,,Accumulator,1,0,1e,4,1,1,1\n")
    lat = None
    with pytest.raises(FormatError, match="line 2"):
        lat = sd.parse_statistics(bad)
    assert lat is None
    bad.write_text("Foo,Bar\n1,2\n")
    with pytest.raises(FormatError, match="line 1"):
        sd.parse_statistics(bad)


# ---------------------------------------------------------------- driver with the stand-in sst
def bundle(tmp_path, name="net.json"):
    from topogen.generators.classic import torus
    t = torus((3, 4), hosts_per_switch=1)
    layout = topogen.place(t, topogen.Floor.skywalk(4, 3))
    # the 4 GB/s endpoint links of the fixture's run (the accepted-load estimate uses them)
    return sx.write_bundle(tmp_path / name, t, layout, BFSRouting(t), nic_params={"link_bw": "4GB/s"})


def fake_sst(tmp_path, mode="auto", knee=0.6):
    return fakes.sst(tmp_path / "bin", mode=mode, knee=knee)


def test_run_sst_completed(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    rows = sd.run_sst(b, load=0.3, traffic="uniform", timeout=60, generator="offered_load")
    assert len(rows) == 1
    row = rows[0]
    assert row["status"] == "completed" and row["simulator"] == "sst" and row["message"] is None
    # latency is offered_load's (generation to delivery); network latency its own column
    assert row["latency_avg"] == pytest.approx(172.602 * 1.04)
    assert row["network_latency_avg"] == pytest.approx(172.602, rel=1e-3)
    assert row["accepted_load"] == pytest.approx(0.3, rel=0.01) and row["latency_unit"] == "ns"
    assert row["offered_load"] == 0.3 and row["topology"] == "torus" and row["num_hosts"] == 12
    # 10 us + 40 us on the bundle's 2,666 ps cycle grid: 4 + 16 windows of 938 cycles
    assert row["sim_time_ns"] == pytest.approx(20 * 938 * 2.666) and row["routing"].startswith("source:")
    log = Path(row["raw_output"])
    assert log.is_file() and "Simulation is complete" in log.read_text()
    argv = row["params"]
    assert str(sx.model_path()) in argv and f"--bundle {b}" in argv and "--load 0.3" in argv
    assert "--warmup 10002832ps --collect 40011328ps --drain 20005664ps" in argv
    assert "--window 2500708ps" in argv


def test_one_latency_definition_for_one_and_several_loads(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    one = sd.run_sst(b, load=0.3, timeout=60, generator="offered_load")[0]
    two = sd.run_sst(b, load=[0.3, 0.5], timeout=60, generator="offered_load")
    assert [r["offered_load"] for r in two] == [0.3, 0.5]
    for col in ("latency_avg", "network_latency_avg", "accepted_load", "injected_load"):
        assert two[0][col] == pytest.approx(one[col], rel=1e-3), col
    assert two[1]["accepted_load"] == pytest.approx(0.5, rel=0.01)
    assert all(math.isnan(r["latency_p99"]) and math.isnan(r["latency_max"]) for r in two + [one])


def test_saturation_from_accepted_load_and_latency_growth(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, knee=0.35)))
    low, high = sd.run_sst(b, load=[0.3, 0.4], timeout=60, generator="offered_load")
    assert low["status"] == "completed"
    # no '*' from merlin at 0.4 (below 1.5 x knee): the windows alone show saturation
    assert high["status"] == "saturated"
    assert "accepted 0.35 of 0.4 offered" in high["message"]
    assert "network latency grew from" in high["message"]
    assert "'*'" not in high["message"]
    # as BookSim and the reference simulator: rates, but no latency, for an unstable load
    assert high["accepted_load"] == pytest.approx(0.35, rel=0.01)
    assert math.isnan(high["latency_avg"]) and math.isnan(high["network_latency_avg"])
    assert low["latency_avg"] > 0 and low["network_latency_avg"] > 0
    # the generators fall behind (sending at the knee): seen at the window ends
    assert "generators behind their injection schedule at 16 of 16 sample window ends" in high["message"]
    # offered_load's '*' is the backlog at one instant: with per-NIC statistics (sends on
    # schedule here) the window ends decide; without them '*' does (test_parse_stdout_...)
    star = sd.run_sst(b, load=0.1, timeout=60, binary=fake_sst(tmp_path, mode="star"),
                      generator="offered_load")[0]
    assert star["status"] == "completed" and star["message"] is None


def test_lost_packets_are_an_error_not_a_result(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, mode="lossy")))
    with pytest.raises(SimulatorFailed, match=r"sst incomplete: \d+ of \d+ packets sent were not delivered") as info:
        sd.run_sst(b, load=0.3, timeout=60, generator="offered_load")
    row = info.value.row
    assert row["status"] == "incomplete" and math.isnan(row["latency_avg"]) and math.isnan(row["accepted_load"])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("mode, pattern", [
    ("fatal", r"sst crash: FATAL in rtr_3:topology \(merlin.hr_router.merlin.anytopo\): ERROR: Number of hops "
              r"exceeded the total number of VCs 3 \[anytopo.cc:374"),
    ("segv", r"sst crash: killed by SIGSEGV"),
    ("crash_after", r"sst crash: killed by SIGSEGV after 'Simulation is complete'"),
])
def test_crash_rows_carry_merlins_reason_and_no_latency(tmp_path, monkeypatch, mode, pattern):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, mode=mode)))
    with pytest.raises(SimulatorFailed, match=pattern) as info:
        sd.run_sst(b, load=0.3, timeout=60, generator="offered_load")
    assert "\n" not in str(info.value) and "Backtrace" not in str(info.value)
    rows = sd.run_sst(b, load=[0.1, 0.3], timeout=60, raise_on_failure=False,
                      generator="offered_load")
    for row in rows:
        assert row["status"] == "crash"
        for col in ("latency_avg", "network_latency_avg", "accepted_load", "latency_max"):
            assert math.isnan(row[col]), col


def test_hang_row_carries_no_latency(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path, mode="hang")))
    with pytest.raises(SimulatorFailed, match="sst hang") as info:
        sd.run_sst(b, load=0.3, timeout=3, generator="offered_load")
    assert math.isnan(info.value.row["latency_avg"]) and math.isnan(info.value.row["network_latency_avg"])


def test_fatal_message_layouts():
    text = ("some output\n"
            "FATAL: Rank: 0,0, time: 0 - called in file: anytopo.cc, line: 27, function: topo_any\n"
            "Element name: rtr_0:topology,  type: anytopo (full type tree: merlin.hr_router.merlin.anytopo)\n"
            "Number of ports mismatch\n"
            "SST Fatal Backtrace Information:\n"
            "    0 : /opt/sst/lib/libfoo.so(+0x1)\n")
    out = sd.parse_stdout(text)
    assert out.fatal == ["FATAL in rtr_0:topology (merlin.hr_router.merlin.anytopo): Number of ports mismatch "
                         "[anytopo.cc:27, sim time 0]"]
    core = sd.parse_stdout("FATAL: ERROR:  Attempting to connect to unknown port: port9, \n"
                           "in component rtr_1 of type merlin.hr_router.\n\n")
    assert core.fatal == ["FATAL: ERROR:  Attempting to connect to unknown port: port9, in component rtr_1 of "
                          "type merlin.hr_router."]
    assert sd.classify(core)[0] == "crash"
    # verbatim from SST-Core master without merlin installed: the cause comes first
    missing = sd.parse_stdout('Error: unable to find "merlin" element library\n'
                              "Valid SubComponents: Valid Components: \n"
                              "FATAL: # SST Core: can't find requested component or subcomponent 'merlin.hr_router'\n"
                              " SST Fatal Backtrace Information:\n"
                              "    0 : /opt/sst/bin/sst(_ZNK3SST6Output5fatalEjPKcS2_iS2_z+0x238) [0x55d2ab526558]\n")
    assert missing.fatal == ['Error: unable to find "merlin" element library FATAL: # SST Core: can\'t find '
                             "requested component or subcomponent 'merlin.hr_router'"]


def test_validation_runs_before_sst(tmp_path, monkeypatch):
    import json

    b = bundle(tmp_path)
    doc = json.loads(b.read_text())
    doc["vcs_per_vn"] = 1
    b.write_text(json.dumps(doc))
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    for generator in ("bernoulli", "offered_load"):
        with pytest.raises(FormatError, match="vcs_per_vn = 1 but the longest route has"):
            sd.run_sst(b, load=0.3, timeout=60, generator=generator)
    assert not list(tmp_path.glob("*.log"))


def test_sst_command_and_not_found(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_SST", raising=False)
    monkeypatch.delenv("TOPOGEN_MPIRUN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SimulatorNotFound) as info:
        sd.find_sst()
    msg = str(info.value)
    assert "\n" not in msg and "TOPOGEN_SST" in msg and "PATH" in msg
    exe = tmp_path / "sst"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    mpi = tmp_path / "mpirun"
    mpi.write_text("#!/bin/sh\n")
    mpi.chmod(0o755)
    argv = sd.sst_command(tmp_path / "b.json", load=[0.1, 0.5], ranks=4, threads=2, binary=exe, mpirun=mpi,
                          histogram=(50, 40))
    assert argv[:3] == [str(mpi), "-np", "4"] and argv[3] == str(exe) and argv[4:6] == ["-n", "2"]
    assert "--" in argv and argv[argv.index("--load") + 1] == "0.1,0.5"
    assert argv[argv.index("--histogram") + 1] == "50,40"
    with pytest.raises(SimulatorNotFound, match="TOPOGEN_MPIRUN"):
        sd.sst_command(tmp_path / "b.json", ranks=2, binary=exe)


# ---------------------------------------------------------------- audit additions
def test_bits_parses_sst_sizes_and_bandwidths():
    assert sd.bits("64B") == 512 and sd.bits("512b") == 512 and sd.bits("1KiB") == 8192
    assert sd.bits("4GB/s", rate=True) == 32e9 and sd.bits("25Gb/s", rate=True) == 25e9
    for bad, rate in (("64", False), ("4GB/s", False), ("64B", True), ("fast", True)):
        with pytest.raises(Exception, match="expected an SST"):
            sd.bits(bad, rate=rate)


def test_run_sst_keeps_every_log(tmp_path, monkeypatch):
    b = bundle(tmp_path)
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    first = sd.run_sst(b, load=0.3, timeout=60, generator="offered_load")[0]
    second = sd.run_sst(b, load=0.3, timeout=60, generator="offered_load")[0]
    assert first["raw_output"] != second["raw_output"]
    for row in (first, second):
        log = Path(row["raw_output"])
        assert log.is_file() and log.with_suffix(".stats.csv").is_file()


def test_sample_window_divides_the_phases():
    us = 10**6
    assert sd.sample_window_ps(10 * us, 40 * us, 20 * us) == 2500000
    assert sd.sample_window_ps(2 * us, 10 * us, 20 * us) == 1 * us
    w = sd.sample_window_ps(3 * us, 10 * us, 7 * us)
    assert (3 * us) % w == 0 and (10 * us) % w == 0 and 10 * us / w <= 20
    with pytest.raises(Exception, match="windows must be >= 2"):
        sd.sample_window_ps(us, us, us, windows=1)


def test_cli_runs_its_own_thousand_endpoint_bundle(tmp_path, monkeypatch, capsys):
    """`topogen run sst` recognises a bundle by parsing it, whatever its size."""
    import argparse

    from topogen.drivers.cli import add_run_parser
    from topogen.generators.classic import torus
    from topogen.results import read_results

    t = torus((10, 10), hosts_per_switch=10)
    big = sx.write_bundle(tmp_path / "big.sst.json", t, topogen.place(t, topogen.Floor.skywalk(10, 10)),
                          BFSRouting(t))
    assert big.read_text().index('"format"') > 4096
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    p = argparse.ArgumentParser()
    add_run_parser(p.add_subparsers(dest="command"))
    args = p.parse_args(["run", "sst", str(big), "--load", "0.2", "--collect", "10us", "--warmup", "2us"])
    assert args.handler(args) == 0
    table = read_results(tmp_path / "results.csv")
    assert table["num_hosts"].tolist() == [1000] and table["status"].tolist() == ["completed"]
    assert table["accepted_flit_rate"][0] == pytest.approx(0.2, rel=0.01)  # bernoulli: flits; accepted_load is packets
    assert not (tmp_path / "big.sst.sst.json").exists()  # used as given, not re-exported


def test_valiant_untimed_table_chains_end_within_the_diameter(tmp_path):
    """anytopo routes untimed packets with each router's first path; chained Valiant first
    paths exceeded the VCs on a real SST, so the model gives such bundles shortest paths."""
    import importlib.util
    import json

    import networkx as nx

    from topogen import registry, routing as rt

    t = registry.get("torus").func(dims=(4, 4))
    layout = topogen.layout.default_layout(t)
    b = sx.write_bundle(tmp_path / "v.sst.json", t, layout, rt.route(t, layout, "valiant"))
    doc = json.loads(b.read_text())
    assert any(";" in r["routing_entry_string"] for r in doc["routers"])  # several paths
    spec = importlib.util.spec_from_file_location("model_topogen_sst", sx.model_path())
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    tables = model.simple_tables(doc)
    first = [{int(e.split(":")[0]): [int(h) for h in e.split(";")[0].split(",")[1:]]
              for e in s.split("|")} for s in tables]
    g = nx.Graph((lk["u"], lk["v"]) for lk in doc["links"])
    for s in range(doc["num_routers"]):
        for d in range(doc["num_routers"]):
            if s == d:
                continue
            u, hops = s, 0
            while u != d:  # what anytopo's route_simple does, one router at a time
                nxt = first[u][d][0]
                assert g.has_edge(u, nxt)
                u, hops = nxt, hops + 1
                assert hops < doc["vcs_per_vn"]
            assert hops == nx.shortest_path_length(g, s, d)
    single = sx.write_bundle(tmp_path / "n.sst.json", t, layout, rt.route(t, layout, "nr"))
    doc1 = json.loads(single.read_text())
    assert model.simple_tables(doc1) == [r["routing_entry_string"] for r in doc1["routers"]]


def test_lost_packet_bound_uses_the_largest_latency_up_to_that_load():
    """A later saturated load's huge latencies must not hide packets lost by an earlier load."""
    from topogen.drivers.sst_output import StatWindows

    n = 25  # outputs every 1 us; load 0 is measured from 1 to 11 us
    sent = [2 * i for i in range(n)]  # packets of 100 bits sent by 2 endpoints (0.1 of 1 Gb/s)
    got = [min(2 * i, 12) for i in range(n)]  # delivery stops at 6 us: 10 in flight at 11 us
    win = StatWindows(times_ps=[i * 10**6 for i in range(n)], delivered=got,
                      latency_sum=[100.0 * g for g in got], sent_bits=[100 * s for s in sent],
                      latency_max=1e5, latency_max_upto=[150.0] * 12 + [1e5] * 13, components=2)
    kw = dict(load=0.1, endpoints=2, link_bw_bits=1e9, packet_bits=100, warmup_ps=10**6,
              collect_ps=10**7, drain_ps=10**6)
    m = sd.measure_load(win, 0, **kw)
    assert m["in_flight"] == 10 and m["in_flight_bound"] == 4 and "10 of 22 packets" in m["lost"]
    win.latency_max_upto = []  # only the run's maximum: the bound is too loose to see the loss
    m = sd.measure_load(win, 0, **kw)
    assert m["lost"] is None and m["in_flight_bound"] > 100


def test_parse_windows_keeps_the_largest_latency_up_to_each_output(tmp_path):
    head = "ComponentName,StatisticName,StatisticSubId,StatisticType,SimTime,Rank,Sum.u64,SumSQ.u64,Count.u64,Min.u64,Max.u64\n"
    rows = ["ol_0,packet_latency,,Accumulator,1000,0,100,0,1,100,100",
            "ol_1,packet_latency,,Accumulator,1000,0,0,0,0,0,0",
            "ol_0,packet_latency,,Accumulator,2000,0,200,0,2,100,100",
            "ol_1,packet_latency,,Accumulator,2000,0,900,0,1,900,900"]
    p = tmp_path / "s.csv"
    p.write_text(head + "\n".join(rows) + "\n")
    win = sd.parse_windows(p)
    assert win.delivered == [1, 3] and win.latency_max_upto == [100.0, 900.0] and win.latency_max == 900.0


def test_run_sst_never_replaces_an_exported_bundle(tmp_path, monkeypatch):
    """`run sst TOPOLOGY` exports `<stem>.sst.json` into the output folder; run again with
    another routing, it keeps the first bundle (earlier rows name it) and writes the new
    one beside it; with the same routing it uses the bundle that is there."""
    import topogen.cli as cli
    from topogen.formats import save
    from topogen.generators.classic import torus

    save(tmp_path / "t.json", torus((4, 4)))
    monkeypatch.setenv("TOPOGEN_SST", str(fake_sst(tmp_path)))
    out = tmp_path / "out"

    def run(routing):
        argv = ["-q", "run", "sst", str(tmp_path / "t.json"), "--routing", routing, "--load", "0.2",
                "--collect", "10us", "--warmup", "2us", "--out-dir", str(out)]
        assert cli.main(argv) == 0

    run("nr")
    first = out / "t.sst.json"
    nr_bytes = first.read_bytes()
    run("dor")
    assert first.read_bytes() == nr_bytes  # not replaced
    bundles = sorted(p.name for p in out.glob("t.sst*.json"))
    assert bundles == ["t.sst.1.json", "t.sst.json"]
    assert (out / "t.sst.1.json").read_bytes() != nr_bytes
    run("nr")  # the same bundle again: used as it is, no third copy
    run("dor")
    assert sorted(p.name for p in out.glob("t.sst*.json")) == bundles
