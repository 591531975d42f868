"""One ``--quick``/``--full`` runner for the studies on the reference simulator
(:func:`topogen.reproduce.study.reference_study_run`): skywalk-sim, layout-sim, dsnf-sim and
slimfly-sim all go through it, and it refuses bad settings before it writes anything."""

from __future__ import annotations

import pytest

from topogen.errors import ParameterError
from topogen.reproduce import dsnf_sim, layout_sim, skywalk_sim, slimfly_sim
from topogen.reproduce import study as st

MODULES = {"skywalk-sim": skywalk_sim, "layout-sim": layout_sim, "dsnf-sim": dsnf_sim, "slimfly-sim": slimfly_sim}


def _kwargs(tmp_path, **over):
    base = dict(quick=True, full=False, submit=False, collect=False, plan=True, out=str(tmp_path / "s"),
                traffic="", topologies="", routings="all", compare="all", sim_seed=1, seed=1, workers=1, plot="",
                simulator="reference", points=5.0, similar=0.25, panels="")
    base.update(over)
    return base


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_study_runs_through_the_one_helper(monkeypatch, tmp_path, name):
    seen = {}

    def fake(kwargs, expanded, claims, **options):
        seen.update(options, kwargs=kwargs)
        return "ran"

    monkeypatch.setattr(st, "reference_study_run", fake)
    assert MODULES[name]._study_run(**_kwargs(tmp_path)) == "ran"
    assert seen["figure"].endswith((".png", ".svg", ".pdf")) and "{name}" in seen["title"]
    assert seen["seconds_per_hop"] is MODULES[name].CPU_SECONDS_PER_PACKET_HOP


@pytest.mark.parametrize("name", sorted(MODULES))
def test_another_simulator_is_refused_before_anything_is_written(tmp_path, name):
    with pytest.raises(ParameterError, match="reference simulator"):
        MODULES[name]._study_run(**_kwargs(tmp_path, simulator="booksim"))
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("over,message", [
    (dict(submit=True, collect=True), "give one"),
    (dict(workers=0), "workers must be an integer"),
    (dict(workers=True), "workers must be an integer"),
    (dict(plot="fig.jpg"), r"plot must end in \.png"),
])
def test_bad_settings_are_refused_before_anything_is_written(tmp_path, over, message):
    def expanded(kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("expanded before the settings were checked")

    with pytest.raises(ParameterError, match=message):
        st.reference_study_run(_kwargs(tmp_path, **over), expanded, lambda s: [], title="t {name}", figure="f.png",
                               refusal="no", seconds_per_hop=None)
    assert not (tmp_path / "s").exists()


def test_the_plan_of_a_tiny_study_through_the_helper(tmp_path):
    res = slimfly_sim._study_run(**_kwargs(tmp_path, traffic="uniform", routings="MIN", compare="none"))
    assert res.title.startswith("Slim Fly V (Fig. 6) as experiment slimfly-fig6-quick: plan")
    assert len(res.table) == 1 and "1 to run" in res.notes[0]
    assert (tmp_path / "s" / "slimfly-fig6-quick.toml").exists()
