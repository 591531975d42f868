"""A spec that changes: `experiment collect` writes only the current spec's points, and a
cosmetic label reruns nothing."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from topogen.errors import ParameterError
from topogen.experiments.runner import run_points
from topogen.experiments.spec import load_experiment, parse_experiment
from topogen.experiments.store import Store, collect, experiment_point_of

from .conftest import cli_env, write_spec

SPEC = """
[experiment]
name = "changing"

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] }LABEL }]
load = LOADS
simulator = ["reference"]

[measure]
packet_size = 2
link_latency = 1
warmup_periods = 1
sample_period = 100
max_samples = 3
"""


def _spec(tmp_path, loads="[0.05, 0.1]", label=""):
    return write_spec(tmp_path, SPEC.replace("LOADS", loads).replace("LABEL", label))


def _points(table):
    return {experiment_point_of(r) for r in pd.read_csv(table).to_dict("records")}


def test_collect_leaves_out_the_rows_of_an_older_spec(tmp_path):
    st = tmp_path / "st"
    old = load_experiment(_spec(tmp_path, "[0.05, 0.1]"), store=st)
    store = Store.open(old.store, old.name, create=True)
    run_points(old.points, store, progress=False)
    out = tmp_path / "all.csv"
    collect(old, store, out)
    assert _points(out) == {p.id for p in old.points}
    # the spec changes: load 0.1 is dropped, 0.2 added
    new = load_experiment(_spec(tmp_path, "[0.05, 0.2]"), store=st)
    run_points(store.pending(new.points), store, progress=False)
    counts = {}
    path, n, missing, failed = collect(new, store, out, counts=counts)
    assert n == 2 and not missing and not failed
    assert _points(out) == {p.id for p in new.points}
    assert counts == {"left_out_points": 1, "left_out": 1, "removed": 1}


def test_collect_keeps_rows_of_other_tables_and_says_what_it_left_out(tmp_path):
    st = tmp_path / "st"
    old = load_experiment(_spec(tmp_path, "[0.05, 0.1]"), store=st)
    store = Store.open(old.store, old.name, create=True)
    run_points(old.points, store, progress=False)
    out = tmp_path / "all.csv"
    collect(old, store, out)
    # a row of another experiment shares the table
    frame = pd.read_csv(out)
    other = frame.iloc[[0]].copy()
    other["params"] = json.dumps({"experiment_point": "0123456789abcdef"})
    pd.concat([frame, other]).to_csv(out, index=False)
    spec = _spec(tmp_path, "[0.05]")
    r = subprocess.run([sys.executable, "-m", "topogen", "experiment", "collect", str(spec), "--store", str(st),
                        "-o", str(out)], env=cli_env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "left out 1 stored rows of 1 points" in r.stdout and "1 such rows removed" in r.stdout
    new = load_experiment(spec, store=st)
    assert _points(out) == {p.id for p in new.points} | {"0123456789abcdef"}


def test_a_label_changes_no_point_id(tmp_path):
    plain = load_experiment(_spec(tmp_path), store=tmp_path / "st")
    named = load_experiment(_spec(tmp_path, label=', label = "small torus"'), store=tmp_path / "st")
    assert [p.id for p in plain.points] == [p.id for p in named.points]
    assert named.points[0].content["topology"]["label"] == "small torus"
    assert "small torus" in named.points[0].label


def test_a_layout_label_changes_no_point_id(tmp_path):
    doc = {"axes": {"topology": [{"generator": "torus", "params": {"dims": [3, 3]}}], "load": [0.1],
                    "layout": [{"switches_per_cabinet": 4}]}}
    plain = parse_experiment(doc, path=tmp_path / "s.toml")
    doc["axes"]["layout"] = [{"switches_per_cabinet": 4, "label": "narrow"}]
    named = parse_experiment(doc, path=tmp_path / "s.toml")
    assert [p.id for p in plain.points] == [p.id for p in named.points]
    assert named.points[0].content["layout"]["label"] == "narrow"


def test_entries_that_differ_only_by_label_are_one_topology(tmp_path):
    doc = {"axes": {"topology": [{"generator": "torus", "params": {"dims": [3, 3]}},
                                 {"generator": "torus", "params": {"dims": [3, 3]}, "label": "again"}],
                    "load": [0.1]}}
    with pytest.raises(ParameterError, match="twice"):
        parse_experiment(doc, path=tmp_path / "s.toml")


def test_ids_of_specs_without_labels_are_unchanged(tmp_path):
    # the id of a fixed point, as every earlier release computed it
    exp = load_experiment(_spec(tmp_path, "[0.05]"), store=tmp_path / "st")
    import hashlib

    from topogen.results import canonical_json
    from topogen.sim_defaults import RESULTS_REVISION

    salt = b"topogen-experiment-point-1;" + (f"r{RESULTS_REVISION};".encode() if RESULTS_REVISION > 1 else b"")
    want = hashlib.sha256(salt + canonical_json(exp.points[0].content).encode()).hexdigest()[:16]
    assert exp.points[0].id == want
