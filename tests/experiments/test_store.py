"""The results store: atomic per-point records, refusal of foreign stores, collect."""

import hashlib
import json
import os

import pandas as pd
import pytest

from topogen._version import __version__
from topogen.errors import FormatError, OutputError
from topogen.results import make_row, read_results, write_results
from topogen.experiments.runner import run_points
from topogen.experiments.spec import load_experiment
from topogen.experiments.store import Store, StoreVersionError, collect, experiment_point_of


def _tree(root):
    """Every file under root with a digest of its bytes (to prove nothing changed)."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


@pytest.fixture
def done_store(small_spec, tmp_path):
    exp = load_experiment(small_spec, store=tmp_path / "st")
    store = Store.open(exp.store, exp.name, create=True)
    run_points(exp.points[:5], store, progress=False)
    return exp, store


def test_create_layout_and_counts(done_store):
    exp, store = done_store
    assert json.loads((store.root / "store.json").read_text())["topogen_version"] == __version__
    c = store.counts(exp.points)
    assert (c.total, c.done, c.failed, c.pending) == (16, 5, 0, 11)
    rec = store.record(exp.points[0].id)
    assert rec["content"] == exp.points[0].content
    assert experiment_point_of(rec["row"]) == exp.points[0].id
    assert [p.id for p in store.pending(exp.points)] == [p.id for p in exp.points[5:]]


def test_temporary_files_of_a_cut_write_are_not_points(done_store):
    exp, store = done_store
    pid = exp.points[7].id
    (store.root / "points" / f".{pid}.json.abc123.tmp").write_text('{"half')
    assert pid not in store.done_ids()
    assert store.counts(exp.points).done == 5


def test_a_failed_write_leaves_no_record(done_store, monkeypatch):
    exp, store = done_store
    def boom(*a, **k):  # the rename that publishes the record fails (disk full, kill ...)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        store.write(exp.points[9], make_row(simulator="reference", status="completed", offered_load=0.1))
    monkeypatch.undo()
    assert exp.points[9].id not in store.done_ids()
    assert not [n for n in os.listdir(store.root / "points") if n.endswith(".tmp")]


def test_other_version_or_experiment_is_refused_untouched(done_store):
    exp, store = done_store
    meta = json.loads((store.root / "store.json").read_text())
    meta["topogen_version"] = "0.0.1"
    (store.root / "store.json").write_text(json.dumps(meta))
    before = _tree(store.root)
    with pytest.raises(StoreVersionError, match=r"topogen 0\.0\.1.*new store"):
        Store.open(store.root, exp.name, create=True)
    meta["topogen_version"] = __version__
    (store.root / "store.json").write_text(json.dumps(meta))
    with pytest.raises(StoreVersionError, match="holds experiment 'small'"):
        Store.open(store.root, "other", create=True)
    meta["topogen_version"] = "0.0.1"
    (store.root / "store.json").write_text(json.dumps(meta))
    assert _tree(store.root) == before


def test_non_store_folder_is_refused(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "mine.txt").write_text("keep")
    with pytest.raises(OutputError, match="not an experiment store"):
        Store.open(tmp_path / "x", "e", create=True)
    assert os.listdir(tmp_path / "x") == ["mine.txt"]
    (tmp_path / "y").mkdir()
    Store.open(tmp_path / "y", "e", create=True)  # an empty folder becomes a store
    assert (tmp_path / "y" / "store.json").is_file()
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "store.json").write_text("{not json")
    with pytest.raises(FormatError):
        Store.open(tmp_path / "z", "e")


def test_collect_keeps_other_rows_and_never_duplicates(done_store, tmp_path):
    exp, store = done_store
    shared = tmp_path / "shared.csv"
    other = make_row(simulator="booksim", topology="x", status="completed", offered_load=0.5)
    write_results(shared, [other])
    out, n, missing, failed = collect(exp, store, shared)
    assert (n, len(missing), failed) == (5, 11, [])
    run_points(store.pending(exp.points)[:3], store, progress=False)
    collect(exp, store, shared)
    df = read_results(shared)
    ids = [experiment_point_of(r) for r in df.to_dict("records")]
    assert len(df) == 1 + 8
    assert ids.count(None) == 1 and len({i for i in ids if i}) == 8


def test_collect_refuses_a_file_that_is_not_a_table(done_store, tmp_path):
    exp, store = done_store
    bad = tmp_path / "notes.csv"
    bad.write_text("hello,world\n1,2\n")
    with pytest.raises(FormatError):
        collect(exp, store, bad)
    assert bad.read_text() == "hello,world\n1,2\n"


def test_collect_parquet(done_store, tmp_path):
    pytest.importorskip("pyarrow")
    exp, store = done_store
    out, n, _, _ = collect(exp, store, tmp_path / "r.parquet")
    assert len(pd.read_parquet(out)) == n == 5
