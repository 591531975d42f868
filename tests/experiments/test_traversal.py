"""No name read from a spec, a points.json or a topology file makes topogen write outside
the folder it belongs in."""

import hashlib
import json
import os

import pytest

from topogen.cli import main
from topogen.errors import ParameterError
from topogen.experiments.spec import Point, load_experiment, point_id

from .conftest import SMALL, write_spec


def _run(capsys, *args):
    code = main(["experiment", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topogen: error: "), err
    return lines[0]


def _tree(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


@pytest.fixture
def submission(capsys, tmp_path, monkeypatch):
    """A dry-run submission of the small spec: (points.json path, store, its document)."""
    monkeypatch.chdir(tmp_path)
    spec = write_spec(tmp_path)
    st = tmp_path / "deep" / "er" / "st"
    code, out, err = _run(capsys, "submit", spec, "--store", st, "--dry-run", "--chunk", "4")
    assert code == 0, err
    pj = st / "slurm" / "submit-001" / "points.json"
    return pj, st, json.loads(pj.read_text())


@pytest.mark.parametrize("bad_id", ["../../../X", "/tmp/X", "..", "0123456789ABCDEF", "0123456789abcde",
                                    "0123456789abcdef0", "0123456789abcde/", "0123456789abcde\n", 12345])
def test_task_refuses_a_point_id_that_is_not_a_store_id(bad_id, submission, capsys, tmp_path):
    pj, st, doc = submission
    doc["points"][0]["id"] = bad_id
    pj.write_text(json.dumps(doc))
    before = _tree(tmp_path)
    code, _, err = _run(capsys, "task", pj, "--index", 0)
    assert code == 3
    assert "16 lowercase hex digits" in _one_error_line(err)
    assert _tree(tmp_path) == before


def test_task_refuses_a_point_whose_id_is_not_its_content(submission, capsys, tmp_path):
    pj, st, doc = submission
    other = doc["points"][1]["id"]
    doc["points"][0]["id"] = other  # a valid id, of another point: its row would be stored as this one
    pj.write_text(json.dumps(doc))
    before = _tree(tmp_path)
    code, _, err = _run(capsys, "task", pj, "--index", 0)
    assert code == 3 and f"point {other} does not match its content" in _one_error_line(err)
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("chunks", [[[0, 1], [999]], [[-1]], [["../x"]], "0-3", [[True]]])
def test_task_refuses_chunks_that_are_not_point_indices(chunks, submission, capsys, tmp_path):
    pj, st, doc = submission
    doc["chunks"] = chunks
    pj.write_text(json.dumps(doc))
    before = _tree(tmp_path)
    code, _, err = _run(capsys, "task", pj, "--index", 0)
    assert code == 3 and "chunks must be lists of point indices" in _one_error_line(err)
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("name", ["../../escaped", "/abs", "a/b", "..", ""])
def test_task_refuses_an_experiment_name_that_is_a_path(name, submission, capsys, tmp_path):
    pj, st, doc = submission
    doc["experiment"] = name
    pj.write_text(json.dumps(doc))
    before = _tree(tmp_path)
    code, _, err = _run(capsys, "task", pj, "--index", 0)
    assert code == 3 and "experiment name must be" in _one_error_line(err)
    assert _tree(tmp_path) == before


def test_point_from_dict_checks_the_id():
    p = {"id": "0123456789abcdef", "index": 0, "content": {}}
    assert Point.from_dict(p).id == "0123456789abcdef"
    for bad in ("../x", "0123456789abcdeF", None):
        with pytest.raises(ValueError, match="hex digits"):
            Point.from_dict({**p, "id": bad})
    with pytest.raises(ValueError, match="index"):
        Point.from_dict({**p, "index": -1})


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/escaped", "..", "a/../../b", ".", "~root"])
def test_spec_name_cannot_put_the_default_store_outside_the_spec_folder(name, tmp_path):
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    spec = write_spec(folder, SMALL.replace('name = "small"', f"name = {json.dumps(name)}"))
    with pytest.raises(ParameterError, match=r"name in \[experiment\] of .* must be 1 to 100 characters"):
        load_experiment(spec)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "spec.toml"]


@pytest.mark.parametrize("stem, name", [("my spec", "my_spec"), ("..x", "x"), ("a$(id)", "a__id_"),
                                        ("-rf", "rf"), ("é", "_")])
def test_default_name_from_the_spec_file_is_made_safe(stem, name, tmp_path):
    spec = write_spec(tmp_path, SMALL.replace('name = "small"\n', ""), name=f"{stem}.toml")
    exp = load_experiment(spec)
    assert exp.name == name
    assert exp.store == tmp_path.resolve() / f"{name}.store"


def test_spec_store_with_a_line_break_is_refused(tmp_path):
    spec = write_spec(tmp_path, SMALL.replace('name = "small"', 'name = "small"\nstore = "x\\ny.store"'))
    with pytest.raises(ParameterError, match="control or line-break"):
        load_experiment(spec)
    with pytest.raises(ParameterError, match="control or line-break"):
        load_experiment(write_spec(tmp_path, name="t.toml"), store=tmp_path / "a\rb")


def test_submit_refuses_a_backslash_in_the_log_folder(capsys, tmp_path, monkeypatch):
    """SLURM turns off its %A/%a file-name patterns when the path holds a backslash."""
    monkeypatch.chdir(tmp_path)
    spec = write_spec(tmp_path)
    code, _, err = _run(capsys, "submit", spec, "--store", tmp_path / "a\\b", "--dry-run")
    assert code == 2 and "backslash" in _one_error_line(err)
    assert not (tmp_path / "a\\b" / "slurm").exists()


def test_point_ids_match_the_store_format(tmp_path):
    exp = load_experiment(write_spec(tmp_path))
    for p in exp.points:
        assert p.id == point_id(p.content)
        assert Point.from_dict(p.to_dict()) == p


@pytest.mark.parametrize("name", ["../../../escaped", "/etc/x", "..", "x" * 10000, "a/b\\c", "-x", ".hidden"])
def test_booksim_export_files_stay_in_their_folder(name, tmp_path):
    import dataclasses

    from topogen.export.booksim import export_booksim
    from topogen.generators.classic import torus

    t = dataclasses.replace(torus((3, 3)), name=name)
    out = tmp_path / "out"
    exp = export_booksim(out, t, content_stem=True)
    for f in (exp.network_file, exp.meta_file, exp.config_file):
        assert f.parent == out.resolve() and len(f.name) < 160 and not f.name.startswith((".", "-"))
    assert sorted(p.parent for p in tmp_path.rglob("*") if p.is_file()) == [out.resolve()] * 3


def test_sst_traffic_text_cannot_name_a_file_outside_the_output_folder(tmp_path, monkeypatch):
    import topogen
    from topogen.drivers import sst as sd
    from topogen.errors import TopogenError
    from topogen.export import sst as sx
    from topogen.generators.classic import torus
    from topogen.routing.paths import nearest

    t = torus((3, 3))
    lay = topogen.place(t, topogen.Floor.skywalk(3, 3))
    b = sx.write_bundle(tmp_path / "net.json", t, lay, nearest(t, lay))
    fake = tmp_path / "bin" / "sst"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'FATAL: no such traffic'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TOPOGEN_SST", str(fake))
    out = tmp_path / "runs" / "out"
    (out / "..x").mkdir(parents=True)  # a folder a "../" in the name could climb through
    before = {p for p in tmp_path.rglob("*")}
    with pytest.raises(TopogenError) as exc:
        sd.run_sst(b, load=0.3, traffic="../../../escaped/x", timeout=30, generator="offered_load", out_dir=out)
    assert "sst crash" in str(exc.value), exc.value
    new = {p for p in tmp_path.rglob("*")} - before
    assert new and all(p.resolve().parent == out.resolve() for p in new), new
