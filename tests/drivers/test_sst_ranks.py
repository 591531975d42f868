"""One SST simulation on several MPI ranks: the partition, the command, the rows, and
(``-m sst``, on a real MPI-enabled SST) results that do not depend on the split."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import topogen
from topogen.drivers import sst as sd
from topogen.drivers import sst_process as sp
from topogen.errors import ParameterError
from topogen.export import sst as sx
from topogen.metrics.partition import cut_links, part_weights, partition_routers

from .fakes import real_sst_or_skip


def make(tmp_path, name, routing="booksim-min", **params):
    from topogen import registry, routing as rt

    topology = registry.get(name).func(**params)
    layout = topogen.layout.default_layout(topology)
    return sx.write_bundle(tmp_path / f"{name}.{routing}.sst.json", topology, layout,
                           rt.route(topology, layout, routing))


def torus_edges(a, b):
    idx = lambda x, y: (y % b) * a + (x % a)  # noqa: E731
    return [(idx(x, y), idx(x + 1, y)) for x in range(a) for y in range(b)] + \
           [(idx(x, y), idx(x, y + 1)) for x in range(a) for y in range(b)]


# ----------------------------------------------------------------------------- partition
def test_two_parts_of_small_graphs_reach_the_exact_minimum_cut():
    # the smallest balanced cut by trying every half (an independent computation)
    for n, edges in ((8, [(i, (i + 1) % 8) for i in range(8)]), (16, torus_edges(4, 4)),
                     (12, torus_edges(4, 3))):
        best = min(cut_links(edges, [1 if i in half else 0 for i in range(n)])
                   for half in itertools.combinations(range(n), n // 2))
        parts = partition_routers(n, edges, 2, seed=3)
        assert part_weights(parts, 2) == [n // 2, n // 2]
        assert cut_links(edges, parts) == best


def test_parts_are_balanced_by_weight_and_seeded():
    edges = torus_edges(8, 8)
    weights = [1 + (i % 3) for i in range(64)]
    for k in (2, 3, 4, 7):
        parts = partition_routers(64, edges, k, weights=weights, seed=5)
        assert set(parts) == set(range(k))
        load = part_weights(parts, k, weights)
        assert max(load) <= -(-sum(weights) // k) + max(weights)
        assert parts == partition_routers(64, edges, k, weights=weights, seed=5)
    # an 8x8 torus: 4 quadrants cut 32 links (each quadrant boundary is 4 + 4 links, twice)
    assert cut_links(edges, partition_routers(64, edges, 4, seed=1)) <= 32


def test_more_parts_than_routers_and_one_part():
    assert partition_routers(3, [(0, 1), (1, 2)], 5) == [0, 1, 2]
    assert partition_routers(3, [(0, 1), (1, 2)], 1) == [0, 0, 0]


@pytest.mark.parametrize("args, what", [((4, [(0, 1)], 0), "parts"), ((4, [(0, 9)], 2), "outside"),
                                        ((2, [(0, 1)], True), "parts")])
def test_partition_refuses_bad_input(args, what):
    with pytest.raises(ParameterError, match=what):
        partition_routers(*args)


def test_weights_must_be_positive():
    with pytest.raises(ParameterError, match="weights"):
        partition_routers(2, [(0, 1)], 2, weights=[1, 0])


# ----------------------------------------------------------------------------- command
def test_check_ranks():
    assert sp.check_ranks(1, None) == (1, "single")
    assert sp.check_ranks(1, "linear") == (1, "single")
    assert sp.check_ranks(3, None) == (3, "topogen")
    assert sp.check_ranks(2, "roundrobin") == (2, "roundrobin")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ParameterError, match="ranks"):
            sp.check_ranks(bad, None)
    with pytest.raises(ParameterError, match="partitioner must be one of"):
        sp.check_ranks(2, "metis")
    with pytest.raises(ParameterError, match="launcher"):
        sp.check_ranks(2, None, "ssh")


def test_parallel_command(tmp_path, monkeypatch):
    mpirun = tmp_path / "mpirun"
    mpirun.write_text("#!/bin/sh\n")
    mpirun.chmod(0o755)
    serial = ["/x/sst", "--timing-info=1", "model.py", "--", "--bundle", "b.json"]
    assert sp.parallel_run(serial, ranks=1, partitioner="single") == (serial, None)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    argv, env = sp.parallel_run(serial, ranks=2, partitioner="topogen", mpirun=mpirun, partition_file="p.json")
    assert argv == [str(mpirun), "-np", "2", "/x/sst", "--partitioner=sst.self", "--parallel-load=SINGLE",
                    "--timing-info=1", "model.py",
                    "--", "--bundle", "b.json", "--partition", "p.json"]
    assert env is None
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    argv, env = sp.parallel_run(serial, ranks=4, partitioner="linear", mpirun=mpirun, sst_partition_file="s.txt")
    assert argv[:4] == [str(mpirun), "-np", "4", "--oversubscribe"]
    assert argv[4:7] == ["/x/sst", "--partitioner=sst.linear", "--output-partition=s.txt"]
    assert "--partition" not in argv
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/srun" if name == "srun" else None)
    monkeypatch.delenv("SLURM_MPI_TYPE", raising=False)
    argv, env = sp.parallel_run(serial, ranks=2, partitioner="simple", launcher="srun")
    assert argv[:4] == ["/usr/bin/srun", "--mpi=pmix", "--ntasks", "2"] and env is None
    monkeypatch.setenv("SLURM_MPI_TYPE", "pmi2")
    argv, _ = sp.parallel_run(serial, ranks=2, partitioner="simple", launcher="srun")
    assert argv[:3] == ["/usr/bin/srun", "--ntasks", "2"]


def test_ranks_and_launcher_from_the_environment(monkeypatch):
    monkeypatch.delenv(sp.RANKS_ENV_VAR, raising=False)
    monkeypatch.delenv(sp.LAUNCHER_ENV_VAR, raising=False)
    assert sp.default_ranks() == (1, "mpirun")
    monkeypatch.setenv(sp.RANKS_ENV_VAR, "4")
    monkeypatch.setenv(sp.LAUNCHER_ENV_VAR, "srun")
    assert sp.default_ranks() == (4, "srun")
    assert sp.default_ranks(2, "mpirun") == (2, "mpirun")  # said beats the environment
    monkeypatch.setenv(sp.RANKS_ENV_VAR, "two")
    with pytest.raises(ParameterError, match="TOPOGEN_SST_RANKS"):
        sp.default_ranks()


def test_endpoint_lines_of_every_rank_file_are_added_once(tmp_path):
    from topogen.drivers.sst_nic import nic_measurements

    def line(ep, d):
        return (f"topogen.bernoulli_nic ep={ep} active=1 created=5 created_window=4 delivered_window={d} "
                f"latency_sum={10 * d} latency_sumsq={100 * d} latency_min=10 latency_max=10 "
                f"network_latency_sum={9 * d} injected_flits_window=8 accepted_flits_window=8 max_queue=1 "
                "queue_at_window_end=0 queue_end=0\n")

    log = tmp_path / "run.log"
    # ranks sharing stdout: a line cut by another rank's output is not read
    log.write_text("topogen.bernoulli_nic ep=1" + line(2, 3) + "Simulation is complete, simulated time: 1 us\n")
    (tmp_path / "run.nic.0").write_text(line(0, 4) + line(1, 2))
    (tmp_path / "run.nic.1").write_text(line(2, 3))
    tot = nic_measurements([log, tmp_path / "run.nic.0", tmp_path / "run.nic.1", tmp_path / "run.nic.2"])
    assert tot["endpoints"] == 3 and tot["delivered_window"] == 9 and tot["latency_sum"] == 90
    assert nic_measurements(log)["endpoints"] == 0
    # a key twice (the rest of a cut line glued to a whole one) is not read either
    log.write_text(line(0, 4).rstrip("\n") + " delivered_window=7\n")
    assert nic_measurements(log)["endpoints"] == 0
    log.write_text(line(0, 4))
    assert nic_measurements(log)["endpoints"] == 1


SST_PARTITION = """Rank: 0.0 Component List:
   rtr_0 (ID=0)
      -> type      merlin.hr_router
      -> rank      0
   nic_0 (ID=2)
      -> rank      0
Rank: 1.0 Component List:
   rtr_1 (ID=1)
      -> rank      1
   nic_1 (ID=3)
      -> rank      1
   nic_2 (ID=4)
      -> rank      1
"""

TIMING = """Simulation Resource Information:
  Approx. Global Max RSS Size:     100.61 MB
  Max Resident Set Size:           1.5 GB
"""


def test_read_sst_partition_and_count_cut_links(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(SST_PARTITION)
    assert sp.read_sst_partition(f) == {"rtr_0": 0, "nic_0": 0, "rtr_1": 1, "nic_1": 1, "nic_2": 1}
    doc = {"num_routers": 2, "links": [{"u": 0, "v": 1}, {"u": 0, "v": 1}],
           "endpoints": [{"id": 0, "router": 0}, {"id": 1, "router": 1}, {"id": 2, "router": 0}]}
    routers, eps = sp.partition_of(doc, f)
    assert routers == [0, 1] and eps == {0: 0, 1: 1, 2: 1}
    assert sp.cut_counts(doc, routers, eps) == 3  # two router links and nic_2's host link
    assert sp.partition_of(doc, tmp_path / "missing.txt") is None


def test_read_resources(tmp_path):
    f = tmp_path / "log"
    f.write_text("Simulation is complete, simulated time: 1 us\n" + TIMING)
    assert sp.read_resources(f) == {"peak_rss_mb": 1500.0, "total_rss_mb": 100.61}
    f.write_text("nothing\n")
    assert sp.read_resources(f) == {}


def test_rank_statistics_are_joined(tmp_path):
    stats = tmp_path / "run.stats.csv"
    head = "ComponentName,StatisticName,SimTime\n"
    (tmp_path / "run.stats_0.csv").write_text(head + "ol_0,packet_latency,1\n")
    (tmp_path / "run.stats_1.csv").write_text(head + "ol_1,packet_latency,1\nol_2,packet_latency,1\n")
    assert sd.merge_rank_statistics(stats, 2) == stats
    assert stats.read_text() == head + "ol_0,packet_latency,1\nol_1,packet_latency,1\nol_2,packet_latency,1\n"
    assert sd.merge_rank_statistics(tmp_path / "other.stats.csv", 2) is None


def test_model_puts_every_router_and_its_endpoints_on_the_partition_rank(tmp_path, fake_sst_module):
    from topogen.export.sst import model_path

    bundle = make(tmp_path, "torus", dims=(4, 4), hosts_per_switch=2)
    doc = json.loads(bundle.read_text())
    part_file, parts = sp.write_partition(doc, 2, tmp_path / "p.json")
    assert json.loads(part_file.read_text()) == {"ranks": 2, "routers": parts}
    import importlib.util

    spec = importlib.util.spec_from_file_location("ranks_topogen_sst", model_path())
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # a name ending in topogen_sst: main() does not run on import
    args = mod.parse_args(["--bundle", str(bundle), "--partition", str(part_file)])
    fake_sst_module.reset()
    mod.build(fake_sst_module, doc, args)
    comps = fake_sst_module.RECORD["components"]
    for r in range(16):
        assert comps[f"rtr_{r}"].rank == (parts[r], 0)
    for ep in doc["endpoints"]:
        assert comps[f"ol_{ep['id']}"].rank == (parts[ep["router"]], 0)
    (tmp_path / "bad.json").write_text(json.dumps({"ranks": 2, "routers": [0, 2] + [0] * 14}))
    with pytest.raises(SystemExit, match="not a partition"):
        mod.build(fake_sst_module, doc, mod.parse_args(["--bundle", str(bundle), "--partition",
                                                         str(tmp_path / "bad.json")]))


# ----------------------------------------------------------------------------- real SST
MEASURED = ("status", "latency_avg", "latency_min", "latency_max", "network_latency_avg", "flit_latency_avg",
            "accepted_load", "injected_load", "accepted_flit_rate", "packets", "sim_time_ns")


def mpi_sst_or_skip():
    exe = real_sst_or_skip()
    cfg = Path(exe).resolve().parent / "sst-config"
    try:
        out = subprocess.run([str(cfg), "--MPICC"], capture_output=True, text=True, timeout=60).stdout.strip()
    except OSError:
        out = ""
    if not out or shutil.which("mpirun") is None:
        pytest.skip("SST without MPI (sst-config --MPICC is empty) or no mpirun on PATH")
    return exe


# Two ranks on the torus by default (the Slim Fly cases in the slow run, to keep the
# default run short); four ranks oversubscribe a 2-CPU machine, where
# MPI's busy waiting makes a run of seconds take minutes (measured: 150 s for the torus case).
@pytest.mark.sst
@pytest.mark.parametrize("name, params, splits", [
    ("torus", {"dims": (4, 4)}, ((2, "topogen"), (2, "linear"))),
    pytest.param("slimfly", {"q": 5}, ((2, "topogen"),), marks=pytest.mark.slow),
    pytest.param("torus", {"dims": (4, 4)}, ((4, "topogen"), (4, "roundrobin")), marks=pytest.mark.slow),
    pytest.param("slimfly", {"q": 5}, ((4, "topogen"), (2, "simple")), marks=pytest.mark.slow),
])
def test_same_seed_same_statistics_on_any_number_of_ranks(tmp_path, name, params, splits):
    mpi_sst_or_skip()
    bundle = make(tmp_path, name, **params)
    run = dict(load=0.3, seed=11, warmup="1us", collect="4us", drain="2us", timeout=900, out_dir=tmp_path)
    one = sd.run_sst(bundle, ranks=1, **run)[0]
    assert one["status"] == "completed" and one["packets"] > 100
    assert (one["ranks"], one["partitioner"], one["cut_links"]) == (1, "single", 0)
    assert one["peak_rss_mb"] > 0
    for k, part in splits:
        row = sd.run_sst(bundle, ranks=k, partitioner=part, **run)[0]
        assert {c: row[c] for c in MEASURED} == {c: one[c] for c in MEASURED}, (k, part)
        assert (row["ranks"], row["partitioner"]) == (k, part)
        assert row["cut_links"] > 0 and row["peak_rss_mb"] > 0 and row["total_rss_mb"] >= row["peak_rss_mb"]
        assert f"-np {k} " in json.loads(row["params"])["command"]


@pytest.mark.sst
def test_topogen_partition_cuts_fewer_links_than_sst_linear(tmp_path):
    mpi_sst_or_skip()
    bundle = make(tmp_path, "torus", dims=(4, 4), hosts_per_switch=2)
    run = dict(load=0.1, seed=2, warmup="1us", collect="2us", drain="1us", timeout=600, out_dir=tmp_path, ranks=2)
    ours = sd.run_sst(bundle, **run)[0]
    theirs = sd.run_sst(bundle, partitioner="linear", **run)[0]
    assert ours["partitioner"] == "topogen" and ours["cut_links"] == 8  # the 4x4 torus's bisection
    # sst.linear splits by component id: 16 routers, then 32 NICs, 16 of them away from their router
    assert theirs["cut_links"] > ours["cut_links"]
    assert ours["latency_avg"] == theirs["latency_avg"]


# Without the tail load after the last one, the Slim Fly's run on topogen's 2 ranks read
# latency 46.2514 ns, injected load 0.1033 and 6,027 packets against 46.219, 0.1, 6,007 on
# one rank: events at the final instant counted on one split and not on the other.
@pytest.mark.sst
@pytest.mark.parametrize("name, params", [("torus", {"dims": (4, 4)}),
                                          pytest.param("slimfly", {"q": 5}, marks=pytest.mark.slow)])
def test_offered_load_statistics_of_every_rank_are_measured(tmp_path, name, params):
    from topogen import registry, routing as rt
    from topogen.experiments.simulators import sst_parameters
    from topogen.experiments.simulators import CrossvalSpec

    mpi_sst_or_skip()
    # the bundle and times of an experiment's SST point (packet_size 2, link_latency 1 ...)
    spec = CrossvalSpec(topology=name, params=params, packet_size=2, link_latency=1, warmup_periods=1,
                        sample_period=200, max_samples=4)
    p = sst_parameters(spec)
    topology = registry.get(name).func(**params)
    bundle = sx.write_bundle(tmp_path / "net.json", topology, None, rt.route(topology, None, "booksim-min"),
                             clock_ns=spec.clock_ns, link_latency_ns=p["link_latency_ns"],
                             host_latency_ns=p["host_latency_ns"], router_params=p["router_params"],
                             nic_params=p["nic_params"])
    run = dict(load=0.1, generator="offered_load", message_size=p["message_size"], warmup=p["warmup"],
               collect=p["collect"], drain=p["drain"], timeout=600, out_dir=tmp_path)
    one = sd.run_sst(bundle, ranks=1, **run)[0]
    two = sd.run_sst(bundle, ranks=2, **run)[0]
    assert one["status"] == two["status"] == "completed"
    assert two["message"] is None and two["packets"] == one["packets"] > 0
    for c in ("latency_avg", "network_latency_avg", "accepted_load", "injected_load"):
        assert two[c] == one[c], c
    assert json.loads(two["params"])["tail_load"] == sd.TAIL_LOAD
