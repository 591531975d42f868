"""Evenly spaced loads below saturation: the grid, its reuse of points
already simulated, and a reference-simulator sweep whose curve shows its knee."""

import numpy as np
import pytest

from topogen import Topology
from topogen.cli import main
from topogen.errors import ParameterError
from topogen import formats
from topogen.layout import default_layout
from topogen.results import read_results
from topogen.routing import route
from topogen.sim.sweep import sweep
from topogen.load_points import fill_loads

FAST = dict(packet_size=2, vc_buf_size=4, sample_period=200, link_latency=1, warmup_periods=1,
            max_samples=3)


def test_grid_is_even_from_low_to_95_percent():
    loads = fill_loads(0.02, 0.5, points=5)
    assert loads[0] == 0.02 and loads[-1] == pytest.approx(0.95 * 0.5)
    assert np.allclose(np.diff(loads), np.diff(loads)[0], rtol=1e-4)
    assert len(loads) == 5


def test_points_already_simulated_stand_in_for_their_grid_load():
    full = fill_loads(0.02, 0.5, points=5)
    step = full[1] - full[0]
    near = full[2] + step / 4  # a bisection point close to the third grid load
    far = full[3] + step / 2  # between two grid loads: neither is covered
    left = fill_loads(0.02, 0.5, points=5, done=[0.02, near, far])
    assert left == [full[1], full[3], full[4]]


@pytest.mark.parametrize("bad", [1, -1, 2.5, True])
def test_bad_point_counts_are_refused(bad):
    with pytest.raises(ParameterError, match="--points"):
        fill_loads(0.01, 0.5, points=bad)


def test_no_grid_when_saturation_is_at_the_lowest_load():
    assert fill_loads(0.1, 0.1) == [] and fill_loads(0.1, 0.5, points=0) == []


def ring(n=6):
    return Topology(n, [(i, (i + 1) % n) for i in range(n)], 1, name="ring", params={"n": n})


def test_sweep_fills_the_curve_below_saturation_and_resumes(tmp_path):
    r = route(ring(), default_layout(ring()), "nr", ties="lowest")
    out = tmp_path / "s.csv"
    bare = sweep(r, tmp_path / "bare.csv", low=0.05, high=0.9, tolerance=0.1, seed=2, points=0, **FAST)
    res = sweep(r, out, low=0.05, high=0.9, tolerance=0.1, seed=2, points=6, **FAST)
    assert res.saturation_load == bare.saturation_load  # the search is unchanged
    df = read_results(out)
    below = np.sort(df[df["offered_load"] <= res.saturation_load]["offered_load"].to_numpy())
    grid = fill_loads(0.05, res.saturation_load, points=6)  # the full grid, nothing reused
    step = grid[1] - grid[0]
    for target in grid:  # every grid load has a point within a third of a step
        assert np.min(np.abs(below - target)) <= step / 3 + 1e-9
    # the points bisection already had were not simulated twice
    assert res.simulated == len(df) < len(bare.rows) + 6
    assert df["offered_load"].is_unique
    assert list(r_["offered_load"] for r_ in res.rows) == sorted(df["offered_load"])
    again = sweep(r, out, low=0.05, high=0.9, tolerance=0.1, seed=2, points=6, **FAST)
    assert again.simulated == 0 and again.reused == len(df)


def test_cli_points_option(tmp_path, capsys):
    topo = tmp_path / "t.json"
    formats.save(topo, ring())
    assert main(["simulate", str(topo), "--sweep", "--points", "1", "-o", str(tmp_path / "s.csv")]) != 0
    err = capsys.readouterr().err
    assert "--points" in err and err.count("\n") == 1
    assert not (tmp_path / "s.csv").exists()
