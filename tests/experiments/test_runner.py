"""The local runner: pool and in-process runs agree, failures are recorded and retried,
kill -9 of a running `topogen experiment run -j 2` loses nothing finished and duplicates
nothing."""

import hashlib
import os
import signal
import subprocess
import time

import numpy as np
import pandas as pd
import pytest

from topogen.results import read_results
from topogen.experiments.runner import run_points
from topogen.experiments.spec import load_experiment
from topogen.experiments.store import Store, collect, experiment_point_of

from .conftest import SMALL, cli, cli_env, write_spec

NUMBERS = ["latency_avg", "accepted_flit_rate", "hops_avg", "packets", "sim_cycles", "sim_seed"]


def _table(path):
    df = read_results(path)
    df["point"] = [experiment_point_of(r) for r in df.to_dict("records")]
    return df.sort_values("point").reset_index(drop=True)


def test_pool_and_in_process_give_the_same_rows(small_spec, tmp_path):
    tables = []
    for jobs in (1, 2):
        exp = load_experiment(small_spec, store=tmp_path / f"j{jobs}")
        store = Store.open(exp.store, exp.name, create=True)
        summary = run_points(exp.points, store, jobs=jobs, progress=False)
        assert summary.ran == len(exp.points) and not summary.failed
        out, n, missing, failed = collect(exp, store, tmp_path / f"j{jobs}.csv")
        assert n == 16 and not missing and not failed
        tables.append(_table(out))
    a, b = tables
    assert a["point"].is_unique and list(a["point"]) == list(b["point"])
    pd.testing.assert_frame_equal(a[NUMBERS], b[NUMBERS])
    assert (a["status"] == "completed").any()


def test_failed_points_are_recorded_and_retried(tmp_path):
    text = SMALL.replace('routing = ["booksim-min"]', 'routing = ["booksim-min", "dor"]').replace(
        '{ generator = "hypercube", params = { dimension = 3 } }', '{ generator = "petersen" }')
    exp = load_experiment(write_spec(tmp_path, text), store=tmp_path / "st")
    store = Store.open(exp.store, exp.name, create=True)
    summary = run_points(exp.points, store, progress=False)
    bad = [p for p in exp.points if p.content["routing"] == "dor" and p.content["topology"]["generator"] == "petersen"]
    assert len(summary.failed) == len(bad) == 8
    assert store.failed_ids() == {p.id for p in bad}
    assert "RoutingError" in store.record(bad[0].id, "failed")["error"]
    assert [p.id for p in store.pending(exp.points)] == [p.id for p in bad]
    again = run_points(store.pending(exp.points), store, progress=False)
    assert again.ran == 8 and len(again.failed) == 8  # retried (and failing again)


def _digests(folder):
    return {n: hashlib.sha256((folder / n).read_bytes()).hexdigest()
            for n in os.listdir(folder) if n.endswith(".json") and not n.startswith(".")}


def test_kill_9_of_a_local_run_then_resume(tmp_path):
    text = SMALL.replace("load = [0.05, 0.3]", "load = [0.05, 0.1, 0.2, 0.3]").replace(
        "seed = [1, 2]", "seed = [1, 2, 3]")
    spec = write_spec(tmp_path, text)
    exp = load_experiment(spec, store=tmp_path / "st")
    points = tmp_path / "st" / "points"
    kept: dict = {}
    for kill in (3, 20):  # kill -9 the run (parent and workers) after that many points
        proc = subprocess.Popen(cli("run", spec, "--store", tmp_path / "st", "-j", "2"), env=cli_env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        while proc.poll() is None and (not points.is_dir() or len(_digests(points)) < len(kept) + kill):
            time.sleep(0.02)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # it had finished: the count check below says so
            pass
        proc.wait(timeout=60)
        now = _digests(points)
        assert {n: now[n] for n in kept} == kept  # nothing finished was lost or rewritten
        kept = now
    assert 0 < len(kept) < len(exp.points)
    r = subprocess.run(cli("run", spec, "--store", tmp_path / "st", "-j", "2"), env=cli_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"{len(kept)} done before" in r.stdout
    final = _digests(points)
    assert {n: final[n] for n in kept} == kept
    assert len(final) == len(exp.points) == 48
    r = subprocess.run(cli("collect", spec, "--store", tmp_path / "st", "-o", tmp_path / "all.csv"),
                       env=cli_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    df = _table(tmp_path / "all.csv")
    assert len(df) == 48 and df["point"].is_unique
    assert set(df["point"]) == {p.id for p in exp.points}
    # the same numbers as an uninterrupted run of a few of the points
    clean = Store.open(tmp_path / "clean", exp.name, create=True)
    sample = exp.points[::12]
    run_points(sample, clean, progress=False)
    for p in sample:
        a, b = clean.record(p.id)["row"], Store(tmp_path / "st").record(p.id)["row"]
        np.testing.assert_equal([a[k] for k in NUMBERS], [b[k] for k in NUMBERS])


@pytest.mark.booksim
def test_booksim_points_keep_their_raw_output(tmp_path):
    from topogen.drivers.booksim import find_booksim
    from topogen.errors import SimulatorNotFound

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    text = SMALL.replace('simulator = ["reference"]', 'simulator = ["reference", "booksim"]').replace(
        'traffic = ["uniform", "tornado"]', 'traffic = ["uniform"]').replace("seed = [1, 2]", "seed = [1]")
    exp = load_experiment(write_spec(tmp_path, text), store=tmp_path / "st")
    store = Store.open(exp.store, exp.name, create=True)
    summary = run_points(exp.points, store, jobs=2, progress=False)
    assert summary.ran == 8 and not summary.failed
    for p in exp.points:
        row = store.record(p.id)["row"]
        assert row["simulator"] == p.content["simulator"]
        if row["simulator"] == "booksim":
            raw = row["raw_output"]
            assert raw.startswith(str(store.root / "raw" / p.id)) and os.path.getsize(raw) > 0
