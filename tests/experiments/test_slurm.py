"""A real SLURM job array (``-m slurm``): submit a small experiment to the cluster that
``scripts/local-slurm start`` runs on this machine (or any SLURM reachable from here),
cancel one array task while it runs, resubmit the missing points with ``submit`` and check
that the collected table is complete, without duplicates, with the numbers of a local run.

Skips, saying why, when ``sbatch`` is not found or the controller does not answer."""

import json
import shutil
import subprocess
import time

import pandas as pd
import pytest

from topogen.results import read_results
from topogen.experiments.store import Store, experiment_point_of

from .conftest import SMALL, cli, cli_env, write_spec

pytestmark = pytest.mark.slurm

NUMBERS = ["latency_avg", "accepted_flit_rate", "hops_avg", "packets", "sim_cycles", "sim_seed", "status"]
# Long enough per point that a task of 8 points is still running when it is cancelled:
# with a warm numba cache a 3x3-torus point takes ~20 ms, so task 1 (torus points) could
# finish its other 7 points in the time scancel takes to reach it under load (seen in CI).
# On a 32x32 torus with 1,000-cycle samples its points take 0.3-1 s (3-5 s for 7 points).
SPEC = SMALL.replace("sample_period = 100", "sample_period = 1000").replace(
    "dims = [3, 3]", "dims = [32, 32]").replace(
    "load = [0.05, 0.3]", "load = [0.05, 0.1, 0.2, 0.3]") + \
    '\n[slurm]\nchunk = 8\ntime = "00:20:00"\nmem = "500M"\n'
DEADLINE = 900  # seconds: a safeguard against a cluster that never runs the jobs, not a speed test


def _cluster_up() -> str | None:
    if shutil.which("sbatch") is None:
        return "sbatch not found on PATH (start a local cluster with scripts/local-slurm start)"
    try:
        r = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sinfo failed: {exc}"
    if r.returncode != 0:
        return f"SLURM controller not reachable: {r.stderr.strip()[:200]}"
    if not any(s.strip().rstrip("*") in ("idle", "mix", "alloc", "comp") for s in r.stdout.split()):
        return f"no SLURM node is up (sinfo: {r.stdout.strip()[:100]})"
    return None


@pytest.fixture(scope="module", autouse=True)
def cluster():
    why = _cluster_up()
    if why:
        pytest.skip(why)


def _sh(*args, **kw):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=cli_env(), timeout=300, **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def _queued(job: str) -> dict:
    out = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i %T"], capture_output=True, text=True).stdout
    return dict(line.split() for line in out.splitlines() if line.strip())


def _wait_gone(jobs, start):
    while any(_queued(j) for j in jobs):
        if time.monotonic() - start > DEADLINE:
            for j in jobs:
                subprocess.run(["scancel", j])
            pytest.fail(f"SLURM jobs {jobs} still queued after {DEADLINE} s; cancelled")
        time.sleep(0.5)


def test_array_cancel_one_task_resubmit_collect(tmp_path):
    start = time.monotonic()
    spec = write_spec(tmp_path, SPEC)
    st = tmp_path / "st"
    out = _sh(*cli("submit", spec, "--store", st))
    sub = json.loads((st / "slurm" / "submit-001" / "submission.json").read_text())
    job, collect_job = sub["job"], sub["collect_job"]
    assert sub["points"] == 32 and sub["tasks"] == 4 and f"submitted job {job}" in out
    doc = json.loads((st / "slurm" / "submit-001" / "points.json").read_text())
    points = [p["id"] for p in doc["points"]]
    # cancel task 1 as soon as it has finished its first point
    chunk1 = {points[i] for i in doc["chunks"][1]}
    while not (chunk1 & Store(st).done_ids()):
        if time.monotonic() - start > DEADLINE:
            subprocess.run(["scancel", job, collect_job])
            pytest.fail("array task 1 finished no point")
        time.sleep(0.05)
    subprocess.run(["scancel", f"{job}_1"], check=True)
    _wait_gone([job, collect_job], start)
    done = Store(st).done_ids()
    lost = chunk1 - done
    assert lost, "task 1 finished before it was cancelled: nothing was killed mid-run"
    assert set(points) - done == lost  # the other tasks finished their chunks
    # the collect job of the first submission ran after the array (afterany) on what was there
    first = read_results(st / "results.csv")
    assert len(first) == 32 - len(lost)
    status = _sh(*cli("status", spec, "--store", st))
    assert f"{32 - len(lost)} of 32 points done" in status

    out = _sh(*cli("submit", spec, "--store", st))
    sub2 = json.loads((st / "slurm" / "submit-002" / "submission.json").read_text())
    assert sub2["points"] == len(lost)
    _wait_gone([sub2["job"], sub2["collect_job"]], start)
    df = read_results(st / "results.csv")
    ids = [experiment_point_of(r) for r in df.to_dict("records")]
    assert len(df) == 32 and len(set(ids)) == 32 and set(ids) == set(points)
    assert "nothing to submit" in _sh(*cli("submit", spec, "--store", st))

    # identical numbers to the same spec run locally
    _sh(*cli("run", spec, "--store", tmp_path / "local", "-j", "2"))
    _sh(*cli("collect", spec, "--store", tmp_path / "local", "-o", tmp_path / "local.csv"))
    local = read_results(tmp_path / "local.csv")

    def key(d):
        d = d.copy()
        d["point"] = [experiment_point_of(r) for r in d.to_dict("records")]
        return d.sort_values("point").reset_index(drop=True)[NUMBERS]

    pd.testing.assert_frame_equal(key(df), key(local))


LAYOUT_SWEEP = """
[experiment]
name = "slurm-floors"

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] } }]
layout = [{}, { switches_per_cabinet = 3, placement = "random" }]
routing = ["booksim-min"]
load = [0.05, "sweep"]
seed = [1]

[sweep]
low = 0.05
tolerance = 0.1
points = 2

[measure]
packet_size = 2
link_latency = "layout"
warmup_periods = 1
sample_period = 100
max_samples = 3

[slurm]
chunk = 1
time = "00:20:00"
mem = "500M"
"""


def test_layouts_and_sweeps_on_slurm_match_a_local_run(tmp_path):
    start = time.monotonic()
    spec = write_spec(tmp_path, LAYOUT_SWEEP)
    st = tmp_path / "st"
    _sh(*cli("submit", spec, "--store", st))
    sub = json.loads((st / "slurm" / "submit-001" / "submission.json").read_text())
    assert sub["points"] == 4 and sub["tasks"] == 4
    _wait_gone([sub["job"], sub["collect_job"]], start)
    df = read_results(st / "results.csv")
    _sh(*cli("run", spec, "--store", tmp_path / "local", "-j", "2"))
    _sh(*cli("collect", spec, "--store", tmp_path / "local", "-o", tmp_path / "local.csv"))
    local = read_results(tmp_path / "local.csv")
    assert len(df) == len(local) > 4  # the two sweeps gave a row per load

    def key(d):
        d = d.copy()
        d["point"] = [experiment_point_of(r) for r in d.to_dict("records")]
        return d.sort_values(["point", "offered_load"]).reset_index(drop=True)[["point", "offered_load"] + NUMBERS]

    pd.testing.assert_frame_equal(key(df), key(local))
    assert len(set(key(df)["point"])) == 4
