"""A change of the simulators' numbers (``sim_defaults.RESULTS_REVISION``) gives new
experiment point ids and new ``--simulator`` point keys: a store or results file written
before the change is never read back as finished points of the new numbers."""

from topogen import registry, sim_defaults
from topogen.reproduce import _backend as be
from topogen.routing import route
from topogen.experiments.spec import load_experiment, point_id

from .conftest import SMALL, write_spec


def test_point_ids_follow_the_results_revision(tmp_path, monkeypatch):
    spec = write_spec(tmp_path, SMALL)
    now = [p.id for p in load_experiment(spec).points]
    content = load_experiment(spec).points[0].content
    assert point_id(content) == now[0]
    monkeypatch.setattr(sim_defaults, "RESULTS_REVISION", sim_defaults.RESULTS_REVISION + 1)
    later = [p.id for p in load_experiment(spec).points]
    assert len(later) == len(now) and not set(later) & set(now)
    assert len(set(later)) == len(later)


def test_backend_point_keys_follow_the_results_revision(tmp_path, monkeypatch):
    rt = route(registry.generate("torus", dims=(4, 4)), None, "nr")
    run = be.PointRunner("booksim", rt, traffic="uniform", raw_dir=tmp_path)
    key = run.point_key(0.1)
    assert run.point_key(0.1) == key and run.point_key(0.2) != key
    monkeypatch.setattr(sim_defaults, "RESULTS_REVISION", sim_defaults.RESULTS_REVISION + 1)
    assert run.point_key(0.1) != key
