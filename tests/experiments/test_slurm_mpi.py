"""SST points on several MPI ranks per SLURM array task (``-m "sst and slurm"``):
``experiment submit --tasks 2`` writes ``#SBATCH --ntasks=2`` and runs every SST point of
the task on 2 ranks; its rows equal those of a local one-rank run.

Skips, saying why, when SLURM does not answer or SST is not built with MPI."""

import json
import shutil
import subprocess
import time

import pandas as pd
import pytest

from topogen.experiments.store import experiment_point_of
from topogen.results import read_results

from .conftest import cli, cli_env, write_spec
from .test_slurm import _cluster_up, _wait_gone

# a minute of SLURM and MPI start-up: in the slow run (and with -m slurm / -m sst)
pytestmark = [pytest.mark.slurm, pytest.mark.sst, pytest.mark.slow]

SPEC = """
[experiment]
name = "slurm-mpi"

[axes]
topology = [{ generator = "torus", params = { dims = [4, 4] } }, { generator = "slimfly", params = { q = 5 } }]
routing = ["booksim-min"]
traffic = ["uniform"]
load = [0.1]
simulator = ["sst"]
seed = [1]

[measure]
packet_size = 2
link_latency = 1
warmup_periods = 1
sample_period = 200
max_samples = 4

[slurm]
chunk = 1
time = "00:20:00"
mem = "2G"
"""

# sim_time_ns is not compared: on several ranks offered_load runs a tail load after the last
# (docs/sst.md, "One simulation on several ranks"), which lengthens the simulated time only
NUMBERS = ["status", "latency_avg", "network_latency_avg", "accepted_load", "injected_load", "packets"]
DEADLINE = 900  # a safeguard against a cluster that never runs the jobs, not a speed test


@pytest.fixture(scope="module", autouse=True)
def mpi_cluster():
    why = _cluster_up()
    if why:
        pytest.skip(why)
    sst = shutil.which("sst")
    if sst is None or shutil.which("mpirun") is None:
        pytest.skip("sst or mpirun not found on PATH")
    cfg = shutil.which("sst-config")
    mpicc = subprocess.run([cfg, "--MPICC"], capture_output=True, text=True).stdout.strip() if cfg else ""
    if not mpicc:
        pytest.skip("SST is not built with MPI (sst-config --MPICC is empty)")


def _sh(*args):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=cli_env(), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_two_tasks_per_point_give_the_rows_of_a_local_run(tmp_path):
    start = time.monotonic()
    spec = write_spec(tmp_path, SPEC)
    st = tmp_path / "st"
    _sh(*cli("submit", spec, "--store", st, "--tasks", "2"))
    folder = st / "slurm" / "submit-001"
    job = (folder / "job.sh").read_text()
    assert "#SBATCH --ntasks=2\n" in job and "export TOPOGEN_SST_RANKS=2\n" in job
    assert "#SBATCH --ntasks=1\n" in (folder / "collect.sh").read_text()
    sub = json.loads((folder / "submission.json").read_text())
    assert sub["points"] == 2 and sub["tasks"] == 2
    _wait_gone([sub["job"], sub["collect_job"]], start)
    df = read_results(st / "results.csv")
    assert len(df) == 2 and set(df["ranks"]) == {2} and set(df["partitioner"]) == {"topogen"}
    assert (df["cut_links"] > 0).all() and (df["peak_rss_mb"] > 0).all()

    _sh(*cli("run", spec, "--store", tmp_path / "local"))
    _sh(*cli("collect", spec, "--store", tmp_path / "local", "-o", tmp_path / "local.csv"))
    local = read_results(tmp_path / "local.csv")
    assert set(local["ranks"]) == {1}

    def key(d):
        d = d.copy()
        d["point"] = [experiment_point_of(r) for r in d.to_dict("records")]
        return d.sort_values("point").reset_index(drop=True)[["point"] + NUMBERS]

    assert (key(df)["status"] == "completed").all()
    pd.testing.assert_frame_equal(key(df), key(local))
