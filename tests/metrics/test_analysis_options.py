"""analyze(..., bisection=, resilience_trials=, cost=) and the matching CLI options."""

from __future__ import annotations

import pytest

from topogen.errors import ParameterError
from topogen.generators.moore import petersen
from topogen.generators.slimfly import slimfly
from topogen.layout.slimfly import slimfly_layout
from topogen.metrics import analyze
from topogen.metrics.bisection import bisection
from topogen.metrics.cost import CostModel, network_cost
from topogen.metrics.resilience import resilience


def test_analyze_adds_the_same_numbers_as_the_modules():
    layout = slimfly_layout(slimfly(5))
    row = analyze(layout, routings=(), bisection=True, bisection_runs=2, resilience_trials=5,
                  cost=True, seed=4)
    b = bisection(layout.topology, runs=2, seed=4)
    r = resilience(layout.topology, trials=5, seed=4)
    c = network_cost(layout)
    assert row["bisection_links"] == b.width and row["bisection_lower_bound"] == b.lower_bound
    assert row["resilience_disconnection"] == r.disconnection and row["resilience_aspl"] == r.aspl
    assert row["total_cost"] == pytest.approx(c.total_cost)
    assert row["power_per_endpoint"] == pytest.approx(c.power_per_endpoint)
    assert row["analysis_seed"] == 4
    cheap = analyze(layout, routings=(), hops=False, cost=CostModel(link_gbps=10))
    assert cheap["cable_cost"] < row["cable_cost"]


def test_analyze_defaults_unchanged_and_cost_needs_layout():
    row = analyze(petersen(), routings=())
    assert "bisection_links" not in row and "analysis_seed" not in row and "total_cost" not in row
    with pytest.raises(ParameterError, match="Layout"):
        analyze(petersen(), cost=True)


def test_cli_options(capsys):
    from topogen.cli import main

    code = main(["analyze", "petersen", "--bisection", "--resilience", "4", "--cost", "--seed", "1",
                 "--routing", "fr", "--format", "json"])
    assert code == 0
    import json

    row = json.loads(capsys.readouterr().out)[0]
    assert row["bisection_links"] == 5 and row["bisection_exact"] is True
    assert 0 <= row["resilience_disconnection"] <= 1 and row["resilience_trials"] == 4
    assert row["cost_per_endpoint"] > 0


def test_cli_bad_input_one_line(tmp_path, capsys):
    from topogen.cli import main

    f = tmp_path / "two.edges"
    f.write_text("0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n")
    code = main(["analyze", str(f), "--bisection", "--routing", "fr"])
    err = capsys.readouterr().err
    assert code != 0 and code != 70 and err.count("\n") == 1
    assert main(["analyze", "petersen", "--resilience", "0"]) == 2
    assert main(["analyze", "petersen", "--bisection-runs", "-1", "--bisection"]) == 2
