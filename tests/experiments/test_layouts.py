"""The ``layout`` axis: floors and placements enter the point ids without renaming old
points, each layout is built as asked, and bad layouts are one clear error."""

import json

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.layout import default_layout
from topogen.experiments.layouts import build_layout, parse_layout
from topogen.experiments.runner import run_points
from topogen.experiments.spec import load_experiment
from topogen.experiments.store import Store, collect

from .conftest import SMALL, write_spec

LAYOUTS = ('layout = [{}, { switches_per_cabinet = 4, placement = "random" }, '
           '{ switches_per_cabinet = 2, placement = "clustered", iterations = 500 }, '
           '{ cabinet_depth = 4.2, label = "deep" }]\n')


def _with_layouts(text=SMALL, layouts=LAYOUTS):
    return text.replace('routing = ["booksim-min"]', layouts + 'routing = ["booksim-min"]')


def test_adding_layouts_adds_points_and_keeps_old_ids(tmp_path):
    old = load_experiment(write_spec(tmp_path, SMALL, "a.toml"))
    new = load_experiment(write_spec(tmp_path, _with_layouts(), "b.toml"))
    assert len(new.points) == 4 * len(old.points)
    old_ids = {p.id for p in old.points}
    default = {p.id for p in new.points if "layout" not in p.content}
    assert default == old_ids
    assert len({p.id for p in new.points}) == len(new.points)
    labels = {p.content["layout"]["label"] for p in new.points if "layout" in p.content}
    assert labels == {"z=4,random", "z=2,clustered,anneal,iterations=500", "deep"}
    # order of the values and of keys inside a layout changes no id
    swapped = _with_layouts(layouts='layout = [{ label = "deep", cabinet_depth = 4.2 }, '
                                    '{ placement = "random", switches_per_cabinet = 4 }, {}, '
                                    '{ iterations = 500, placement = "clustered", switches_per_cabinet = 2 }]\n')
    again = load_experiment(write_spec(tmp_path, swapped, "c.toml"))
    assert {p.id for p in again.points} == {p.id for p in new.points}


def test_layouts_are_built_as_asked():
    topo = registry.generate("torus", dims=[4, 4])
    lay = build_layout(topo, parse_layout({"switches_per_cabinet": 4, "placement": "random"}, "t"), 3)
    assert lay.floor.switches_per_cabinet == 4 and lay.floor.cabinets == 4 and lay.placement == "random"
    assert np.bincount(lay.cabinet).max() <= 4
    same = build_layout(topo, parse_layout({"switches_per_cabinet": 4, "placement": "random"}, "t"), 3)
    assert np.array_equal(same.cabinet, lay.cabinet)  # the point's seed decides
    clustered = build_layout(topo, parse_layout({"switches_per_cabinet": 4, "placement": "clustered",
                                                 "iterations": 2000}, "t"), 3)
    assert clustered.placement == "anneal" and np.bincount(clustered.cabinet).max() <= 4
    # clustering keeps more links inside cabinets than a random placement
    assert clustered.is_intra.sum() >= lay.is_intra.sum()
    deep = build_layout(topo, parse_layout({"cabinet_depth": 4.2, "rows": 1, "columns": 2}, "t"), 3)
    base = default_layout(topo)
    assert deep.floor.cabinet_depth == 4.2 and deep.floor.rows == 1 and deep.floor.columns == 2
    assert deep.floor.switches_per_cabinet == base.floor.switches_per_cabinet


def test_layout_changes_the_simulated_network(tmp_path):
    text = _with_layouts(layouts='layout = [{}, { switches_per_cabinet = 2, placement = "random" }]\n')
    text = text.replace("link_latency = 1", 'link_latency = "layout"').replace(
        "load = [0.05, 0.3]", "load = [0.05]").replace("seed = [1, 2]", "seed = [1]").replace(
        'traffic = ["uniform", "tornado"]', 'traffic = ["uniform"]')
    text = text.replace('{ generator = "hypercube", params = { dimension = 3 } }', "").replace(", ]", "]")
    exp = load_experiment(write_spec(tmp_path, text), store=tmp_path / "st")
    assert len(exp.points) == 2
    store = Store.open(exp.store, exp.name, create=True)
    summary = run_points(exp.points, store, progress=False)
    assert not summary.failed
    out, n, _, _ = collect(exp, store)
    rows = [store.record(p.id)["row"] for p in exp.points]
    digests = {json.loads(r["params"])["network_digest"] for r in rows}
    assert len(digests) == 2  # the cable delays of the two floors differ


@pytest.mark.parametrize("layouts, needle", [
    ('layout = [{ switches_per_cabnet = 4 }]', "did you mean 'switches_per_cabinet'"),
    ('layout = [{ placement = "clusterd" }]', "did you mean 'clustered'"),
    ('layout = [{ mapping = "anneal" }]', 'need placement = "clustered"'),
    ('layout = [{ switches_per_cabinet = 0 }]', "positive integer"),
    ('layout = [{ cabinet_depth = "far" }]', "length or delay"),
    ('layout = ["sequential"]', "each a table"),
    ('layout = [{}, {}]', "lists a value twice"),
    ('layout = [{}, { placement = "auto" }]', "lists a layout twice"),
    ('layouts = [{}]', "did you mean 'layout'"),
])
def test_bad_layouts_are_one_clear_error(tmp_path, layouts, needle):
    with pytest.raises(ParameterError, match=needle.replace("(", r"\(")):
        load_experiment(write_spec(tmp_path, _with_layouts(layouts=layouts + "\n")))


def test_a_floor_too_small_fails_the_point_not_the_run(tmp_path):
    text = _with_layouts(layouts='layout = [{ cabinets = 1, switches_per_cabinet = 2 }]\n')
    exp = load_experiment(write_spec(tmp_path, text), store=tmp_path / "st")
    store = Store.open(exp.store, exp.name, create=True)
    summary = run_points(exp.points[:1], store, progress=False)
    assert len(summary.failed) == 1 and "ParameterError" in summary.failed[0][1]
    assert "do not fit" in summary.failed[0][1]


def test_example_specs_parse():
    from .conftest import ROOT

    for path in sorted((ROOT / "scripts" / "examples").glob("*.toml")):
        exp = load_experiment(path, store=path.parent / "never-created.store")
        assert exp.points, path
    floors = load_experiment(ROOT / "scripts/examples/floors-sweep.toml", store="unused")
    assert len(floors.points) == 6 and all(p.content["load"] == "sweep" for p in floors.points)
    assert len({(p.content.get("layout") or {}).get("label") for p in floors.points}) == 3
