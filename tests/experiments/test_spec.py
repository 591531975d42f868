"""Experiment specs: parsing, the product with zip/exclude, stable point ids, bad input."""

import pytest

from topogen.errors import FormatError, ParameterError
from topogen.experiments.spec import load_experiment, point_id

from .conftest import SMALL, write_spec


def _ids(exp):
    return {p.id: p for p in exp.points}


def test_product_counts_and_content(small_spec):
    exp = load_experiment(small_spec)
    assert exp.name == "small"
    assert len(exp.points) == 2 * 2 * 2 * 2
    assert exp.store == small_spec.parent / "small.store"
    labels = {p.content["topology"]["label"] for p in exp.points}
    assert labels == {"torus(dims=[3,3])", "hypercube(dimension=3)"}
    p = exp.points[0]
    assert p.content["measure"]["packet_size"] == 2
    assert p.content["measure"]["num_vcs"] == 4  # shared default filled in
    assert p.id == point_id(p.content)
    assert len(_ids(exp)) == len(exp.points)


def test_ids_stable_when_an_axis_grows_or_is_reordered(tmp_path):
    old = load_experiment(write_spec(tmp_path, SMALL, "a.toml"))
    grown = SMALL.replace("load = [0.05, 0.3]", "load = [0.3, 0.05, 0.2]").replace(
        'traffic = ["uniform", "tornado"]', 'traffic = ["tornado", "uniform"]')
    new = load_experiment(write_spec(tmp_path, grown, "b.toml"))
    assert len(new.points) == 24
    assert set(_ids(old)) <= set(_ids(new))
    added = [p for p in new.points if p.id not in _ids(old)]
    assert {p.content["load"] for p in added} == {0.2}


def test_measure_change_changes_every_id(tmp_path):
    old = load_experiment(write_spec(tmp_path, SMALL, "a.toml"))
    new = load_experiment(write_spec(tmp_path, SMALL.replace("max_samples = 3", "max_samples = 4"), "b.toml"))
    assert not set(_ids(old)) & set(_ids(new))


def test_zip_and_exclude(tmp_path):
    text = SMALL.replace('name = "small"', 'name = "z"\nzip = [["load", "seed"]]') + """
[[exclude]]
traffic = "tornado"
topology = "hypercube"
"""
    exp = load_experiment(write_spec(tmp_path, text))
    pairs = {(p.content["load"], p.content["seed"]) for p in exp.points}
    assert pairs == {(0.05, 1), (0.3, 2)}
    assert not any(p.content["traffic"] == "tornado" and p.content["topology"]["generator"] == "hypercube"
                   for p in exp.points)
    assert len(exp.points) == 2 * 2 * 2 - 2


def test_repeats_derive_new_seeds(tmp_path):
    exp = load_experiment(write_spec(tmp_path, SMALL.replace("seed = [1, 2]", "seed = [1]\nrepeats = 3")))
    seeds = {p.content["sim_seed"] for p in exp.points}
    assert len(seeds) == 3 and 1 in seeds


def test_topology_file_enters_by_content(tmp_path):
    from topogen import formats
    from topogen.generators.classic import torus

    formats.save(tmp_path / "a.json", torus((3, 3)))
    text = SMALL.replace('{ generator = "hypercube", params = { dimension = 3 } }', '{ file = "a.json" }')
    first = load_experiment(write_spec(tmp_path, text))
    (tmp_path / "b.json").write_bytes((tmp_path / "a.json").read_bytes())
    moved = load_experiment(write_spec(tmp_path, text.replace("a.json", "b.json"), "m.toml"))
    files = [p for p in first.points if p.topology_file]
    assert files and files[0].topology_file == str((tmp_path / "a.json").resolve())
    assert set(_ids(first)) - set(_ids(moved)) == {p.id for p in files}  # label a -> b
    formats.save(tmp_path / "a.json", torus((3, 4)))
    changed = load_experiment(write_spec(tmp_path, text))
    assert {p.id for p in changed.points if p.topology_file}.isdisjoint({p.id for p in files})


@pytest.mark.parametrize("old,new,words", [
    ("load = [", "laod = [", ["'laod'", "did you mean 'load'"]),
    ("[measure]\n", "[measure]\npacket_szie = 2\n", ["'packet_szie'", "did you mean 'packet_size'"]),
    ('name = "small"', 'nmae = "small"', ["'nmae'", "did you mean 'name'"]),
    ("[axes]", "[axis]", ["'axis'", "did you mean 'axes'"]),
    ('params = { dims = [3, 3] }', 'params = { dimz = [3, 3] }', ["'dimz'", "did you mean 'dims'"]),
    ('routing = ["booksim-min"]', 'routing = ["booksim-mn"]', ["booksim-mn", "did you mean 'booksim-min'"]),
    ('simulator = ["reference"]', 'simulator = ["refrence"]', ["refrence", "did you mean 'reference'"]),
])
def test_unknown_keys_name_the_nearest(tmp_path, old, new, words):
    with pytest.raises(ParameterError) as exc:
        load_experiment(write_spec(tmp_path, SMALL.replace(old, new, 1)))
    msg = str(exc.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg


@pytest.mark.parametrize("old,new,words", [
    ("packet_size = 2", 'packet_size = "two"', ["packet_size", "an integer", "'two'"]),
    ("load = [0.05, 0.3]", 'load = [0.05, "high"]', ["load", "a number", "'high'"]),
    ("seed = [1, 2]", "seed = [1.5]", ["seed", "an integer"]),
    ("load = [0.05, 0.3]", "load = [0.05, 1.5]", ["load", "(0, 1]"]),
    ("load = [0.05, 0.3]", "load = [0.05, 0.05]", ["twice"]),
    ("max_samples = 3", "max_samples = 1", ["max_samples"]),
    ("dims = [3, 3]", 'dims = "3x3"', ["dims", "int,int,...", "'3x3'"]),
    ("dimension = 3", "dimension = 3.5", ["dimension", "int", "3.5"]),
    ('name = "small"', "name = 3", ["name", "a string"]),
    ('name = "small"', 'name = "s"\nzip = [["load", "routing"]]', ["equal lengths"]),
])
def test_wrong_types_and_values(tmp_path, old, new, words):
    with pytest.raises(ParameterError) as exc:
        load_experiment(write_spec(tmp_path, SMALL.replace(old, new, 1)))
    for w in words:
        assert w in str(exc.value)


def test_not_toml_and_missing(tmp_path):
    with pytest.raises(FormatError, match="line"):
        load_experiment(write_spec(tmp_path, "[axes\nload = 1"))
    with pytest.raises(ParameterError, match="does not exist"):
        load_experiment(tmp_path / "nope.toml")


def test_everything_excluded(tmp_path):
    with pytest.raises(ParameterError, match="no points"):
        load_experiment(write_spec(tmp_path, SMALL + '\n[[exclude]]\nsimulator = "reference"\n'))
