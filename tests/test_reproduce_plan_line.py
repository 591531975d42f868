"""``topogen reproduce NAME`` prints its plan (sweeps, simulations, CPU estimate) on stderr
before it starts: the reproduction's own ``announce``, else the recorded plan of
:mod:`topogen.reproduce.plans`."""

import dataclasses
import functools

import pandas as pd

from topogen import registry
from topogen.cli import main
from topogen.reproduce._base import ExperimentResult


def _stub(monkeypatch, name, seen):
    real = registry.experiment(name)

    @functools.wraps(real.func)  # the same signature: the plan reads its defaults
    def func(**kwargs):
        seen.append(kwargs)
        return ExperimentResult(title="stub", table=pd.DataFrame({"a": [1]}), notes=[])

    stub = dataclasses.replace(real, func=func)
    monkeypatch.setattr(registry, "experiment", lambda n: stub if n == name else real)


def test_skywalk_sim_prints_its_plan_before_running(monkeypatch, capsys):
    seen = []
    _stub(monkeypatch, "skywalk-sim", seen)
    assert main(["reproduce", "skywalk-sim"]) == 0
    err = capsys.readouterr().err
    assert "plan: 10 sweeps" in err and "simulations" in err
    assert seen == [{}]


def test_quiet_prints_no_plan(monkeypatch, capsys):
    _stub(monkeypatch, "skywalk-sim", [])
    assert main(["--quiet", "reproduce", "skywalk-sim"]) == 0
    assert "plan:" not in capsys.readouterr().err
