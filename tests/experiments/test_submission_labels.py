"""A submission's ``points.json`` of a spec with ``label =`` entries loads back: the point ids
are checked against their content with the labels the ids were made with."""

import json

import pytest

from topogen.errors import FormatError
from topogen.experiments.slurm import SlurmOptions, load_submission, write_submission
from topogen.experiments.spec import parse_experiment


def _doc(label=None, layout_label=None):
    topo = {"generator": "torus", "params": {"dims": [3, 3]}}
    if label:
        topo["label"] = label
    layout = {"switches_per_cabinet": 4}
    if layout_label:
        layout["label"] = layout_label
    return {"experiment": {"name": "labelled"},
            "axes": {"topology": [topo], "load": [0.1, 0.2], "layout": [layout]}}


@pytest.mark.parametrize("label,layout_label", [("small torus", None), (None, "narrow"), ("t", "n"), (None, None)])
def test_labelled_points_load_back(tmp_path, label, layout_label):
    exp = parse_experiment(_doc(label, layout_label), path=tmp_path / "s.toml")
    folder = tmp_path / "sub"
    folder.mkdir()
    write_submission(folder, exp, tmp_path / "store", exp.points, SlurmOptions())
    back, chunks = load_submission(folder / "points.json")
    assert [p.id for p in back.points] == [p.id for p in exp.points]
    assert [p.content for p in back.points] == [p.content for p in exp.points]
    # the ids equal those of the unlabelled spec
    plain = parse_experiment(_doc(), path=tmp_path / "s.toml")
    assert [p.id for p in back.points] == [p.id for p in plain.points]


def test_an_edited_label_map_is_refused(tmp_path):
    exp = parse_experiment(_doc("small torus"), path=tmp_path / "s.toml")
    folder = tmp_path / "sub"
    folder.mkdir()
    write_submission(folder, exp, tmp_path / "store", exp.points, SlurmOptions())
    doc = json.loads((folder / "points.json").read_text())
    doc["points"][0]["id_labels"] = {"topology": "something else"}
    (folder / "points.json").write_text(json.dumps(doc))
    with pytest.raises(FormatError, match="does not match its content"):
        load_submission(folder / "points.json")
