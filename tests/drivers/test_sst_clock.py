"""SST's even-picosecond cycle: one clock for ``topogen run sst``, crossval and the
``--simulator sst`` back end, recorded in bundles and rows (``docs/sst.md``, "SST's
picosecond clock").  The ``-m sst`` case runs the real SST."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from topogen import sim_defaults as d
from topogen.drivers import sst as sd
from topogen.export import sst as sx
from topogen.generators.classic import torus
from topogen.routing import nearest

from .fakes import real_sst_or_skip


def test_every_sst_user_takes_the_one_clock_function():
    from topogen.experiments import simulators as cs
    from topogen.reproduce.crossval import CrossvalSpec

    assert cs.sst_clock_ns is d.sst_clock_ns
    p = cs.sst_parameters(CrossvalSpec("torus", {"dims": [4, 4]}))  # the shared defaults
    assert p["clock_ns"] == d.SST_CYCLE_NS == 2.666
    defaults = d.sst_router_params()
    for key in ("link_bw", "xbar_bw", "flit_size", "input_latency", "output_latency"):
        assert p["router_params"][key] == defaults[key], key
    assert p["nic_params"]["link_bw"] == d.sst_nic_params()["link_bw"]
    # run times of crossval are whole cycles already: the driver's grid keeps them
    ps = [int(p[k][:-2]) for k in ("warmup", "collect", "drain")]
    assert all(t % 2666 == 0 for t in ps)
    assert sd.grid_times(*ps, 10, 2666)[:3] == tuple(ps)


def test_run_times_go_on_the_cycle_grid_and_keep_their_windows():
    w, c, dr, win = sd.grid_times(10**7, 4 * 10**7, 2 * 10**7, 10, 2666)
    assert win == 938 * 2666 and (w, c, dr) == (4 * win, 16 * win, 8 * win)
    assert sd.sample_window_ps(w, c, dr, 10) == win  # the driver's windows still divide them
    # times no window divides: each to whole cycles
    w, c, dr, win = sd.grid_times(1_000_001, 3_000_007, 0, 10, 2666)
    assert (w, c, dr) == (375 * 2666, 1125 * 2666, 0) and win % 2666 == 0
    # a bundle without a recorded cycle keeps the times
    assert sd.grid_times(10**7, 4 * 10**7, 2 * 10**7, 10, None) == (10**7, 4 * 10**7, 2 * 10**7, 2_500_000)


def test_rows_record_the_cycle_their_ns_are_read_back_with(tmp_path):
    from topogen.drivers.sst_output import SSTOutput
    from topogen.sim.plot import curves

    t = torus((3, 3), hosts_per_switch=1)
    doc = sx.bundle_dict(t, None, nearest(t))
    assert sd.bundle_cycle_ps(doc) == 2666
    old = dict(doc)  # a bundle written before the cycle was recorded: one flit time
    del old["cycle_ps"]
    old["router_params"] = dict(doc["router_params"], link_bw="12GB/s")
    assert sd.bundle_cycle_ps(old) == pytest.approx(256 / 96 * 1000)
    out = SSTOutput(loads=[(0.1, 53.32, False)], sim_time_ns=1.0, complete=True)
    row = sd.rows_from_output(doc, out, None, status="completed", message=None, loads=[0.1])[0]
    params = json.loads(row["params"]) if isinstance(row["params"], str) else row["params"]
    assert params["cycle_ps"] == 2666 and params["cycle_ns"] == 2.666
    # topogen plot reads SST's ns as cycles of that clock beside a row in cycles
    ref = dict(row, simulator="reference", latency_unit="cycles", latency_avg=19.0, params="{}")
    cs = {c["parts"]["simulator"]: c for c in curves(pd.DataFrame([row, ref]))}
    assert cs["sst"]["latency"] == [pytest.approx(20.0)]


# --------------------------------------------------------------------------- real SST
@pytest.fixture()
def real_sst():
    return real_sst_or_skip(stand_in_ok=False)


@pytest.mark.sst
def test_run_sst_at_the_defaults_agrees_with_reference_sst(tmp_path, real_sst, capsys):
    """``topogen run sst`` with the shared defaults (default layout's cables, booksim-min
    routes, 2,666 ps cycle) against the reference simulator run as SST's (periodic in-step
    injection, latency to the head, output-buffered router, SST's timeline): 1-flit tornado
    on the 4x4 torus, three loads in one SST run.  Measured 1.000, 1.000, 1.009; on the
    former 2.667 ns clock with the cables' own delays SST was 2.5-3.2 % below."""
    from topogen import cli
    from topogen.experiments.reference_sst import run_like_sst
    from topogen import formats
    from topogen.results import read_results
    from topogen.routing import route
    from topogen.sim import SimConfig

    net = tmp_path / "net.json"
    assert cli.main(["generate", "torus", "--dims", "4,4", "-o", str(net)]) == 0
    loads = (0.01, 0.1, 0.2)
    code = cli.main(["run", "sst", str(net), "--out-dir", str(tmp_path / "sst"), "--generator", "offered_load",
                     "--traffic", "shift:7", "--message-size", f"{d.FLIT_BITS // 8}B", "--load", ",".join(map(str, loads))])
    assert code == 0, capsys.readouterr()
    rows = read_results(tmp_path / "sst" / "results.csv").to_dict("records")
    topology, layout = formats.load(net)
    routing = route(topology, layout, d.ROUTING)
    cfg = SimConfig(packet_size=1, injection="periodic", latency_at="head", router="output-buffered",
                    output_buf_size=d.VC_BUF_SIZE)
    for load, row in zip(loads, rows):
        params = json.loads(row["params"])
        assert row["status"] == "completed", row["message"]
        assert params["cycle_ps"] == 2666 and int(params["warmup"][:-2]) % 2666 == 0
        ref = run_like_sst(routing, cfg, traffic="tornado", load=load, seed=1, clock_ns=params["cycle_ns"],
                           sst_times={k: params[k] for k in ("warmup", "collect", "drain")}, layout=layout)
        assert ref["status"] == "completed", ref["message"]
        sst_cycles = row["latency_avg"] / params["cycle_ns"]
        assert math.isfinite(sst_cycles)
        assert sst_cycles == pytest.approx(ref["latency_avg"], rel=0.015), load


def test_a_bundles_cycle_must_be_whole_picoseconds():
    from topogen.errors import FormatError, ParameterError

    t = torus((3, 3), hosts_per_switch=1)
    doc = sx.bundle_dict(t, None, nearest(t))
    sx.validate_bundle(doc)
    for bad in (2666.67, 0, "2666ps"):
        with pytest.raises(FormatError, match="cycle_ps .* whole positive number of ps"):
            sx.validate_bundle(dict(doc, cycle_ps=bad))
    with pytest.raises(ParameterError, match="clock_ns must be a positive number"):
        sx.bundle_dict(t, None, nearest(t), clock_ns=0)
