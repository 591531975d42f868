"""estimate_effort (the work of an analysis, timed on a few sources) and the CLI's notice
before an exact all-pairs analysis of a large network."""

from __future__ import annotations

import json

import pytest

from topogen import cli
from topogen.errors import ParameterError, TopologyError
from topogen.generators.classic import torus
from topogen.layout import default_layout
from topogen.metrics import effort
from topogen.metrics.resilience import SWEEP_SOURCES
from topogen.topology import Topology


def test_counts_searches_of_each_stage():
    layout = default_layout(torus((6, 5)))
    e = effort.estimate_effort(layout, routings=("fr", "nr", "fr"), calibration=2, workers=2)
    assert e.switches == 30 and e.sources == 30 and e.stages == ("hops", "fr", "nr")
    assert e.searches == 90 and e.workers == 2
    assert set(e.per_source_seconds) == {"hops", "fr", "nr"}
    assert e.seconds == pytest.approx(sum(e.stage_seconds.values())) and e.seconds >= 0
    s = e.scaled(7)
    assert s.sources == 7 and s.searches == 21
    assert all(s.stage_seconds[k] <= e.stage_seconds[k] for k in s.stages)
    assert effort.estimate_effort(layout, sample=7, calibration=2).sources == 7
    # a Topology has no latency: only the hop search
    topo = effort.estimate_effort(layout.topology, calibration=2)
    assert topo.stages == ("hops",) and topo.searches == 30
    assert effort.estimate_effort(layout, hops=False, routings=("nr",), calibration=1).stages == ("nr",)


def test_bad_arguments():
    layout = default_layout(torus((4, 4)))
    with pytest.raises(ParameterError, match="routings"):
        effort.estimate_effort(layout, routings=("xy",))
    with pytest.raises(ParameterError, match="sample"):
        effort.estimate_effort(layout, sample=0)
    with pytest.raises(ParameterError, match="calibration"):
        effort.estimate_effort(layout, calibration=0)
    split = Topology(4, [(0, 1), (2, 3)])
    with pytest.raises(TopologyError):
        effort.estimate_effort(split)


def test_format_duration():
    assert effort.format_duration(12.4) == "12 s"
    assert effort.format_duration(600) == "10 min"
    assert effort.format_duration(5400) == "1.5 h"
    assert effort.format_duration(3 * 86400) == "3.0 days"


def _analyze(capsys, *extra):
    code = cli.main(["analyze", "torus", "--dims", "8,8", "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)[0], err


def test_cli_notice_above_threshold_only(capsys, monkeypatch):
    monkeypatch.setattr(effort, "EXACT_NOTICE_SWITCHES", 64)  # 8 x 8 = 64: not above
    row_below, err = _analyze(capsys)
    assert "source searches" not in err
    monkeypatch.setattr(effort, "EXACT_NOTICE_SWITCHES", 63)
    row_above, err = _analyze(capsys)
    lines = [x for x in err.splitlines() if "source searches" in x]
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("topogen: ") and "64 switches" in line and "192 source searches" in line
    assert "hops, fr, nr" in line and "--sample 63" in line and "about" in line
    assert row_above == row_below  # the notice changes no number
    _, err = _analyze(capsys, "--routing", "nr")
    assert "128 source searches" in err and "hops, nr" in err


def test_cli_notice_not_with_quiet_or_sample(capsys, monkeypatch):
    monkeypatch.setattr(effort, "EXACT_NOTICE_SWITCHES", 10)
    _, err = _analyze(capsys, "--quiet")
    assert err == ""
    row, err = _analyze(capsys, "--sample", "5", "--seed", "3")
    assert "source searches" not in err and row["sampled"] is True


def test_cli_notices_of_bisection_and_resilience(capsys, monkeypatch):
    monkeypatch.setattr(effort, "BISECTION_NOTICE_SWITCHES", 63)
    monkeypatch.setattr(effort, "EXACT_NOTICE_SWITCHES", 63)
    _, err = _analyze(capsys, "--sample", "4", "--seed", "1", "--bisection", "--bisection-runs", "2",
                      "--resilience", "3")
    lines = err.splitlines()
    assert not any("source searches" in x for x in lines)  # sampled
    assert any(x.startswith("topogen: ") and "--bisection runs METIS and KaHIP (eco) 2 times" in x
               for x in lines), err
    states = effort.resilience_states(3, sample=4)
    assert states == 3 + 2 * 3 * 5 and effort.resilience_states(3) == 1 + 2 * 3 * 5
    # sampled: the notice names the sampled cost (K sources and the double sweep per state)
    assert any("--resilience 3 --sample 4 estimates" in x and f"up to {states} failure states" in x
               and f"from {4 + SWEEP_SOURCES} BFS sources" in x for x in lines), err
    # exact: the notice suggests --sample
    _, err = _analyze(capsys, "--seed", "1", "--resilience", "3", "--routing", "fr")
    line = [x for x in err.splitlines() if "--resilience 3 measures the exact" in x]
    assert len(line) == 1 and f"up to {effort.resilience_states(3)} failure states" in line[0], err
    assert "--sample 63 estimates them in" in line[0]
    monkeypatch.setattr(effort, "BISECTION_NOTICE_SWITCHES", 64)
    monkeypatch.setattr(effort, "EXACT_NOTICE_SWITCHES", 64)
    _, err = _analyze(capsys, "--sample", "4", "--seed", "1", "--bisection", "--resilience", "3")
    assert "KaHIP" not in err and "failure states" not in err


def test_bisection_seconds_grows_with_links():
    small, big = torus((8, 8)), torus((16, 16))
    assert 0 < effort.bisection_seconds(small, 1) < effort.bisection_seconds(big, 1)
    assert effort.bisection_seconds(big, 4) == pytest.approx(4 * effort.bisection_seconds(big, 1))
    assert effort.bisection_seconds(big, 1, "fast") > effort.bisection_seconds(big, 1, "eco")
    with pytest.raises(ParameterError, match="mode must be one of eco, fast, strong"):
        effort.bisection_seconds(big, 1, "quick")
