"""``topogen crossval``: one spec on every simulator, tidy table, verdicts.

Default runs use the reference simulator on tiny networks and the stand-in BookSim and
SST executables of :mod:`tests.drivers.fakes` (real fixture output, real process
behaviour); ``-m booksim`` and ``-m sst`` run the real binaries.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

from topogen.cli import main
from topogen.errors import FormatError, OutputError, ParameterError, SimulatorNotFound
from topogen.reproduce import crossval as cv
from topogen.experiments.simulators import _traffic_for, build_network, build_routing
from topogen.results import read_results

from shared_paths import FIXTURES, needs_fixtures
from tests.drivers import fakes

TINY = dict(topology="torus", params={"dims": (3, 3)}, loads=(0.05,), simulators=("reference",), repeats=1,
            max_repeats=1,  # single runs: the verdict rules on their own
            warmup_periods=1, max_samples=4, sample_period=300)


# ---------------------------------------------------------------- spec
@pytest.mark.parametrize("bad", [
    dict(loads=()), dict(loads=(0.1, 1.5)), dict(loads=(-0.1,)), dict(traffic="bitrev"),
    dict(packet_size=4, vc_buf_size=2), dict(simulators=("gem5",)), dict(link_latency=0),
    dict(up_to=1.5), dict(latency_tolerance=0), dict(max_samples=3, warmup_periods=3),
    dict(flit_bits=12),
])
def test_bad_specs_are_refused_with_the_field_named(bad):
    with pytest.raises(ParameterError) as err:
        cv.CrossvalSpec(**dict(TINY, **bad))
    key = next(iter(bad)).split("_")[0]
    assert key in str(err.value) or "vc_buf_size" in str(err.value)


def test_spec_defaults_and_normalisation():
    s = cv.CrossvalSpec("torus", {"dims": (4, 4)}, loads=(0.3, 0.1, 0.1), packet_size=33)
    assert s.loads == (0.1, 0.3)
    assert s.vc_buf_size == 66  # two packets per VC buffer
    assert cv.CrossvalSpec("torus", loads=0.2).loads == (0.2,)
    assert s.latency_tolerance == 0.03 and s.saturation_tolerance == 0.05 and s.up_to == 0.8


def test_unset_fields_take_the_shared_simulator_defaults():
    import importlib.util

    from topogen.experiments.simulators import shared_defaults

    d = shared_defaults()
    s = cv.CrossvalSpec("torus", {"dims": (4, 4)})
    for name in ("packet_size", "num_vcs", "clock_ns", "flit_bits", "warmup_periods", "sample_period",
                 "max_samples", "latency_thres", "credit_delay"):
        assert getattr(s, name) == d[name], name
    assert s.vc_buf_size == max(8, 2 * s.packet_size)
    if importlib.util.find_spec("topogen.sim_defaults"):
        from topogen import sim_defaults

        assert (d["packet_size"], d["clock_ns"]) == (sim_defaults.PACKET_SIZE, sim_defaults.CYCLE_NS)
    assert cv.CrossvalSpec("torus", packet_size=1, latency_thres=900.0).latency_thres == 900.0


def test_toml_spec(tmp_path):
    f = tmp_path / "x.toml"
    f.write_text('topology = "torus"\nloads = [0.1, 0.2]\npacket_size = 33\nlink_latency = "layout"\n'
                 '[params]\ndims = [4, 4]\n[tolerances]\nlatency = 0.05\nup_to = 0.7\n')
    s = cv.load_spec(f, traffic="tornado", seed=None)
    assert s.params == {"dims": [4, 4]} and s.loads == (0.1, 0.2) and s.packet_size == 33
    assert s.latency_tolerance == 0.05 and s.up_to == 0.7 and s.traffic == "tornado"
    assert s.link_latency is None
    f.write_text('topology = "torus"\nlodas = [0.1]\n')
    with pytest.raises(ParameterError, match="lodas"):
        cv.load_spec(f)
    f.write_text('topology = "torus"\n[tolerances]\nlatncy = 1\n')
    with pytest.raises(ParameterError, match="latncy"):
        cv.load_spec(f)
    f.write_text('topology = \n')
    with pytest.raises(FormatError):
        cv.load_spec(f)


def test_tornado_is_the_same_permutation_on_every_simulator():
    for n in (16, 50, 72):
        shift = (n + 1) // 2 - 1
        assert _traffic_for("booksim", "tornado", n) == f"tornado({{{n},1,1}})"
        assert _traffic_for("sst", "tornado", n) == f"shift:{shift}"
        assert _traffic_for("reference", "tornado", n) == "tornado"
    from topogen.export.booksim import check_traffic

    check_traffic(_traffic_for("booksim", "tornado", 50), 50)


def test_routing_booksim_min_and_unknown_routings():
    spec = cv.CrossvalSpec(**TINY)
    topo, layout = build_network(spec, 1)
    routing, note = build_routing(spec, topo, layout, 1)
    assert note is None and routing.algorithm == "booksim-min"
    with pytest.raises(ParameterError, match="routing must be"):
        build_routing(cv.CrossvalSpec(**dict(TINY, routing="fastest-ever")), topo, layout, 1)


def test_booksim_min_gets_the_link_latencies_of_the_booksim_export(monkeypatch):
    import numpy as np

    import topogen.routing as rt

    calls = []

    def fake_booksim_min(topology, layout=None, *, clock_period_ns=None, latency=None):
        calls.append((layout, clock_period_ns, None if latency is None else np.asarray(latency)))
        return rt.nearest(topology)

    monkeypatch.setattr(rt, "booksim_min", fake_booksim_min, raising=False)
    spec = cv.CrossvalSpec(**dict(TINY, link_latency=2))
    topo, layout = build_network(spec, 1)
    _, note = build_routing(spec, topo, layout, 1)
    assert note is None and calls[-1][0] is None
    assert (calls[-1][2] == 2).all() and len(calls[-1][2]) == topo.num_links
    spec = cv.CrossvalSpec(**dict(TINY, link_latency=None, clock_ns=2.5))
    build_routing(spec, topo, layout, 1)
    assert calls[-1][0] is layout and calls[-1][1] == 2.5 and calls[-1][2] is None


def test_generator_parameters_are_checked():
    with pytest.raises(ParameterError, match="torus"):
        build_network(cv.CrossvalSpec("torus", {"dimz": "4,4"}), 1)
    with pytest.raises(ParameterError, match="host"):
        build_network(cv.CrossvalSpec("torus", {"dims": "2", "hosts_per_switch": "0"}), 1)


# ---------------------------------------------------------------- units, brackets, verdicts
def test_common_units_convert_ns_and_cycles():
    sst = {"latency_avg": 172.602, "latency_unit": "ns", "accepted_load": 0.3,
           "load_unit": "fraction of link bandwidth", "accepted_flit_rate": math.nan}
    c = cv.common_units(sst, clock_ns=2.0)
    assert c["latency_cycles"] == pytest.approx(86.301) and c["latency_ns"] == 172.602
    assert c["accepted_flits"] == 0.3
    bs = {"latency_avg": 20.0, "latency_unit": "cycles", "accepted_flit_rate": 0.25}
    c = cv.common_units(bs, clock_ns=2.0)
    assert c["latency_ns"] == 40.0 and c["accepted_flits"] == 0.25


def test_saturation_bracket():
    assert cv.saturation_bracket({0.1: "completed", 0.3: "completed", 0.5: "saturated"}) == (0.3, 0.5)
    lo, hi = cv.saturation_bracket({0.1: "completed", 0.2: "completed"})
    assert lo == 0.2 and math.isinf(hi)
    lo, hi = cv.saturation_bracket({0.1: "deadlock", 0.2: "completed"})
    assert math.isnan(lo) and hi == 0.1


def _tables(bs_lat, ref_lat, bs_sat, ref_sat, loads=(0.1, 0.2, 0.45)):
    lines = []
    for load in loads:
        for sim, lat in (("reference", ref_lat), ("booksim", bs_lat)):
            ok = load < 0.4
            lines.append({"load": load, "simulator": sim, "status": "completed" if ok else "saturated",
                          "latency_cycles": lat.get(load, math.nan) if ok else math.nan})
    sat = pd.DataFrame([{"simulator": "reference", "sat_low": ref_sat[0], "sat_high": ref_sat[1],
                         "saturation": (ref_sat[0] + ref_sat[1]) / 2},
                        {"simulator": "booksim", "sat_low": bs_sat[0], "sat_high": bs_sat[1],
                         "saturation": (bs_sat[0] + bs_sat[1]) / 2}])
    return pd.DataFrame(lines), sat


def test_verdicts_against_the_tolerances():
    spec = cv.CrossvalSpec(**TINY)
    table, sat = _tables({0.1: 20.0, 0.2: 21.0}, {0.1: 20.5, 0.2: 22.0}, (0.39, 0.40), (0.40, 0.41))
    t, s = cv.verdicts(table, sat, spec)
    ref = t[t.simulator == "reference"].set_index("load")
    assert ref.loc[0.1, "ratio_booksim"] == pytest.approx(20.5 / 20.0)
    assert ref.loc[0.1, "verdict_booksim"] == "pass"  # 2.5 %
    assert ref.loc[0.2, "verdict_booksim"] == "FAIL"  # 4.8 %
    assert ref.loc[0.45, "verdict_booksim"] == "n/a"  # above 80 % of BookSim's saturation
    assert (t[t.simulator == "booksim"]["verdict_booksim"] == "-").all()
    assert (t["verdict_sst"] == "-").all()
    assert s.set_index("simulator").loc["reference", "verdict_booksim"] == "pass"  # 0.405 vs 0.395
    # a looser tolerance passes the 4.8 % point; saturation 20 % apart fails
    spec = cv.CrossvalSpec(**dict(TINY, latency_tolerance=0.05))
    table, sat = _tables({0.1: 20.0, 0.2: 21.0}, {0.1: 20.5, 0.2: 22.0}, (0.39, 0.40), (0.48, 0.49))
    t, s = cv.verdicts(table, sat, spec)
    assert (t[t.simulator == "reference"].set_index("load").loc[[0.1, 0.2], "verdict_booksim"] == "pass").all()
    assert s.set_index("simulator").loc["reference", "verdict_booksim"] == "FAIL"
    # a bracket wider than the tolerance cannot decide
    table, sat = _tables({0.1: 20.0}, {0.1: 20.0}, (0.2, 0.4), (0.2, 0.4))
    _, s = cv.verdicts(table, sat, spec)
    assert s.set_index("simulator").loc["reference", "verdict_booksim"] == "undetermined"


def test_a_miss_within_the_noise_is_inconclusive():
    """With several runs per point (their standard errors), a miss beyond the tolerance but
    within NOISE_Z standard errors of the ratio reads inconclusive; a clear miss stays FAIL;
    a single run (no standard error) is judged on its mean alone."""
    spec = cv.CrossvalSpec(**TINY)
    table, sat = _tables({0.1: 100.0, 0.2: 100.0}, {0.1: 104.0, 0.2: 110.0}, (0.39, 0.40), (0.39, 0.40))
    t, _ = cv.verdicts(table, sat, spec)
    ref = t[t.simulator == "reference"].set_index("load")["verdict_booksim"]
    assert list(ref.loc[[0.1, 0.2]]) == ["FAIL", "FAIL"]  # no latency_sem column: one run each
    table["latency_sem"] = 1.0  # 1 % of each mean: the ratio's error is about 1.4 %
    t, s = cv.verdicts(table, sat, spec)
    ref = t[t.simulator == "reference"].set_index("load")["verdict_booksim"]
    assert ref.loc[0.1] == "inconclusive"  # 4 % = 3 % + 0.7 standard errors
    assert ref.loc[0.2] == "FAIL"  # 10 %: beyond 3 % + 2 standard errors
    se = cv.ratio_sem(1.04, {"latency_sem": 1.0, "latency_cycles": 104.0},
                      {"latency_sem": 1.0, "latency_cycles": 100.0})
    assert se == pytest.approx(1.04 * math.hypot(1 / 104, 1 / 100))
    res = cv.CrossvalResult(spec, 1, t, s, [], {}, [], {})
    assert not res.passed  # the FAIL
    line = next(ln for ln in res.summary() if ln.startswith("reference vs booksim"))
    assert "latency 0/2 points" in line and "1 inconclusive" in line
    t.loc[(t.simulator == "reference") & (t.load == 0.2), "verdict_booksim"] = "pass"
    assert cv.CrossvalResult(spec, 1, t, s, [], {}, [], {}).passed  # inconclusive is no failure
    # a NaN standard error (one of the simulators ran once) counts as exact
    table.loc[table.simulator == "booksim", "latency_sem"] = math.nan
    t, _ = cv.verdicts(table, sat, spec)
    assert t[(t.simulator == "reference") & (t.load == 0.1)]["verdict_booksim"].item() == "inconclusive"
    table["latency_sem"] = math.nan
    t, _ = cv.verdicts(table, sat, spec)
    assert t[(t.simulator == "reference") & (t.load == 0.1)]["verdict_booksim"].item() == "FAIL"
    single = cv.CrossvalSpec(**TINY)
    assert "--repeats 1" in cv.noise_note(single, t)  # single runs with a FAIL: say it may be noise
    assert cv.noise_note(cv.CrossvalSpec(**dict(TINY, repeats=3, max_repeats=8)), t) is None
    assert cv.noise_note(single, t[t.load == 0.45]) is None  # no FAIL


def test_a_point_that_fails_on_one_simulator_only_is_a_failure():
    spec = cv.CrossvalSpec(**TINY)
    table, sat = _tables({0.1: 20.0, 0.2: 21.0}, {0.1: 20.0, 0.2: 21.0}, (0.39, 0.40), (0.39, 0.40))
    table.loc[(table.simulator == "reference") & (table.load == 0.2), "status"] = "deadlock"
    t, _ = cv.verdicts(table, sat, spec)
    assert t[(t.simulator == "reference") & (t.load == 0.2)]["verdict_booksim"].item() == "FAIL"


def test_a_deadlock_on_a_cyclic_routing_is_labelled_and_still_fails():
    spec = cv.CrossvalSpec(**TINY)
    table, sat = _tables({0.1: 20.0, 0.2: 21.0}, {0.1: 20.0, 0.2: 21.0}, (0.39, 0.40), (0.30, 0.31))
    table.loc[(table.simulator == "reference") & (table.load == 0.2), "status"] = "deadlock"
    label = "FAIL (cyclic routing: deadlock)"
    for free, want in ((False, label), (True, "FAIL"), (None, "FAIL")):
        t, s = cv.verdicts(table, sat, spec, deadlock_free=free)
        assert t[(t.simulator == "reference") & (t.load == 0.2)]["verdict_booksim"].item() == want
        assert s.set_index("simulator").loc["reference", "verdict_booksim"] == want  # 23 % apart
        assert t[(t.simulator == "reference") & (t.load == 0.1)]["verdict_booksim"].item() == "pass"
    # no deadlock point: a saturation miss on a cyclic routing stays a bare FAIL
    clean = table.copy()
    clean.loc[clean.status == "deadlock", "status"] = "completed"
    _, s = cv.verdicts(clean, sat, spec, deadlock_free=False)
    assert s.set_index("simulator").loc["reference", "verdict_booksim"] == "FAIL"
    assert list(s["deadlock_free"]) == [False, False]
    # a labelled failure is still a failure of the run
    t, s = cv.verdicts(table, sat, spec, deadlock_free=False)
    res = cv.CrossvalResult(spec, 1, t, s, [], {}, [], {})
    assert not res.passed
    assert any("latency 1/2 points" in line for line in res.summary())


@pytest.mark.parametrize("dims,free", [((8, 8), False), ((4, 4), True)])
def test_deadlock_check_of_booksim_min_on_tori(dims, free):
    spec = cv.CrossvalSpec("torus", {"dims": dims}, routing="booksim-min", link_latency=1)
    topo, layout = build_network(spec, 1)
    routing, _ = build_routing(spec, topo, layout, 1)
    got, note = cv._deadlock_check(spec, routing)
    assert got is free
    if free:
        assert note is None
    else:
        assert "not deadlock-free" in note and "min_anynet" in note and "FAIL (cyclic routing" in note


def test_bisection_narrows_to_the_tolerance():
    knee = 0.537
    runs = []
    points = {0.1: "completed", 0.9: "saturated"}

    def run_point(load):
        runs.append(load)
        points[load] = "completed" if load <= knee else "saturated"

    cv._bisect(run_point, points, rel_tol=0.02)
    lo, hi = cv.saturation_bracket(points)
    assert lo <= knee < hi and hi - lo <= 0.02 * lo
    assert len(runs) == len(set(runs)) <= 12
    # unbounded: doubled from the highest sustained load, then bisected
    runs.clear()
    points = {0.05: "completed", 0.1: "completed"}
    cv._bisect(run_point, points, rel_tol=0.02)
    lo, hi = cv.saturation_bracket(points)
    assert runs[:3] == [0.2, 0.4, 0.8] and lo <= knee < hi and hi - lo <= 0.02 * lo
    # a network that sustains the ceiling stays unbounded
    points = {0.6: "completed"}
    cv._bisect(lambda load: points.__setitem__(load, "completed"), points, rel_tol=0.02)
    assert sorted(points) == [0.6, 1.0]


# ---------------------------------------------------------------- runs
def test_reference_only_run_writes_every_output(tmp_path):
    res = cv.crossval(dict(TINY, loads=(0.05, 0.1)), tmp_path / "out", plot=tmp_path / "out" / "lat.png")
    assert list(res.table["simulator"]) == ["reference", "reference"]
    assert (res.table["status"] == "completed").all()
    assert (res.table["latency_cycles"] > 0).all()
    rows = read_results(res.files["results"])
    assert list(rows["simulator"]) == ["reference", "reference"]
    assert rows["params"].str.contains('"crossval_routing"').all()
    assert res.files["plot"].stat().st_size > 1000
    assert pd.read_csv(res.files["crossval"], comment="#").shape[0] == 2
    assert res.skipped == {}


def test_repeats_average_seeded_runs_and_keep_every_row(tmp_path):
    res = cv.crossval(dict(TINY, loads=(0.1,), repeats=3), tmp_path / "out")
    line = res.table.iloc[0]
    rows = read_results(res.files["results"])
    assert len(rows) == 3 and line["runs"] == 3
    # seeds seed, seed + 1, seed + 2: three different runs, averaged in the table
    assert sorted(rows["sim_seed"].tolist()) == [1, 2, 3]
    lat = rows["latency_avg"].to_numpy(dtype=float)
    assert len(set(lat.round(9))) > 1
    assert line["latency_cycles"] == pytest.approx(lat.mean())
    assert line["latency_sem"] == pytest.approx(lat.std(ddof=1) / np.sqrt(3))
    one = cv.crossval(dict(TINY, loads=(0.1,)), tmp_path / "one")
    assert one.table.iloc[0]["runs"] == 1 and one.table.iloc[0]["latency_sem"] != one.table.iloc[0]["latency_sem"]
    with pytest.raises(ParameterError, match="repeats"):
        cv.CrossvalSpec(**dict(TINY, repeats=0))


def test_capacity_run_measures_the_saturation_throughput(tmp_path):
    res = cv.crossval(dict(TINY, loads=(0.05,), capacity_load=1.0), tmp_path / "out")
    cap = res.saturation.iloc[0]["capacity"]
    # 1-flit-per-cycle offered on a 3x3 torus is far above what it carries
    assert 0.05 < cap < 0.95
    rows = read_results(res.files["results"])
    assert len(rows) == 2 and rows["params"].str.contains('"crossval_capacity"').sum() == 1
    with pytest.raises(ParameterError, match="capacity_load"):
        cv.CrossvalSpec(**dict(TINY, capacity_load=1.5))


def test_output_folder_policy(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(ParameterError, match="not empty"):
        cv.crossval(TINY, out)
    first = cv.crossval(dict(TINY, simulators=("reference",)), tmp_path / "o2")
    again = cv.crossval(TINY, tmp_path / "o2", force=True)
    assert again.files["crossval"].name == "crossval.1.csv" and first.files["crossval"].exists()
    assert len(read_results(tmp_path / "o2" / "results.csv")) == 2  # added, not replaced
    assert (out / "mine.txt").read_text() == "keep"
    # refused before any work: a plot where a folder is, a plot in a missing folder, a bad
    # generator parameter (the output folder is not even created)
    (tmp_path / "p.png").mkdir()
    with pytest.raises(OutputError, match="folder"):
        cv.crossval(TINY, tmp_path / "o3", plot=tmp_path / "p.png")
    with pytest.raises(OutputError, match="does not exist"):
        cv.crossval(TINY, tmp_path / "o3", plot=tmp_path / "nowhere" / "p.png")
    with pytest.raises(ParameterError):
        cv.crossval(dict(TINY, params={"dimz": "3"}), tmp_path / "o3")
    assert not (tmp_path / "o3").exists()
    # a named plot file is replaced, like every named output file
    (tmp_path / "q.png").write_text("old")
    cv.crossval(TINY, tmp_path / "o4", plot=tmp_path / "q.png")
    assert (tmp_path / "q.png").read_bytes()[:4] == b"\x89PNG"


@needs_fixtures("booksim")
def test_fake_booksim_and_sst_side_by_side(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(bin_dir, FIXTURES, knee=0.3)))
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(bin_dir, FIXTURES, knee=0.6)))
    spec = dict(TINY, params={"dims": (4, 4), "hosts_per_switch": 2}, loads=(0.05, 0.4), simulators=(),
                clock_ns=2.0)
    res = cv.crossval(spec, tmp_path / "out")
    t = res.table.set_index(["load", "simulator"])
    # SST is compared with the reference simulator run with SST's traffic process
    assert set(res.table["simulator"]) == {"reference", "reference-sst", "booksim", "sst"}
    # the fake BookSim prints the completed 4x4-torus fixture at 0.05 and the unstable one above 0.3
    assert t.loc[(0.05, "booksim"), "status"] == "completed"
    assert t.loc[(0.4, "booksim"), "status"] == "saturated"
    bs = t.loc[(0.05, "booksim"), "latency_cycles"]
    assert t.loc[(0.05, "booksim"), "latency_ns"] == pytest.approx(2.0 * bs)
    # SST reports ns (here the fixture's statistics): cycles of the 2 ns clock are half of it
    rows = read_results(res.files["results"])
    sst_ns = rows[(rows.simulator == "sst") & (rows.offered_load == 0.05)]["latency_avg"].item()
    assert rows[rows.simulator == "sst"]["latency_unit"].eq("ns").all()
    assert t.loc[(0.05, "sst"), "latency_ns"] == pytest.approx(sst_ns)
    assert t.loc[(0.05, "sst"), "latency_cycles"] == pytest.approx(sst_ns / 2.0)
    assert t.loc[(0.4, "sst"), "status"] == "completed"  # the fake SST saturates above 0.6
    ref = t.loc[(0.05, "reference")]
    assert ref["ratio_booksim"] == pytest.approx(ref["latency_cycles"] / bs)
    assert ref["ratio_sst"] == pytest.approx(ref["latency_cycles"] / t.loc[(0.05, "sst"), "latency_cycles"])
    expected = "pass" if abs(ref["ratio_booksim"] - 1) <= 0.03 else "FAIL"
    assert ref["verdict_booksim"] == expected
    assert t.loc[(0.4, "reference"), "verdict_booksim"] == "n/a"  # BookSim saturated below 0.4
    # verdicts only for like-for-like pairs: reference vs BookSim, reference-sst vs SST
    assert t.loc[(0.05, "reference"), "verdict_sst"] == "-"
    assert t.loc[(0.05, "sst"), "verdict_booksim"] == "-"
    rs = t.loc[(0.05, "reference-sst")]
    assert rs["ratio_sst"] == pytest.approx(rs["latency_cycles"] / t.loc[(0.05, "sst"), "latency_cycles"])
    assert rs["verdict_sst"] == ("pass" if abs(rs["ratio_sst"] - 1) <= 0.03 else "FAIL")
    assert rs["verdict_booksim"] == "-"
    assert set(rows["simulator"]) == {"reference", "booksim", "sst"}  # reference-sst is "reference"
    assert (rows["simulator"] == "reference").sum() == 2 * (rows["simulator"] == "booksim").sum()
    for path in rows["raw_output"].dropna():
        assert os.path.isfile(path) and str(tmp_path / "out") in path
    assert (tmp_path / "out" / "booksim" / "net.cfg").is_file()
    assert (tmp_path / "out" / "sst" / "net.json").is_file()


def test_simulators_not_found_are_skipped_or_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("TOPOGEN_SST", str(tmp_path / "no-sst"))
    res = cv.crossval(dict(TINY, simulators=()), tmp_path / "a")
    assert set(res.skipped) == {"booksim", "sst"} and "TOPOGEN_BOOKSIM" in res.skipped["booksim"]
    assert any("booksim skipped" in n for n in res.notes)
    with pytest.raises(SimulatorNotFound):
        cv.crossval(dict(TINY, simulators=("reference", "booksim")), tmp_path / "b")


def test_cli(tmp_path, capsys):
    out = tmp_path / "o"
    rc = main(["crossval", "torus", "--param", "dims=3,3", "--simulators", "reference", "--loads",
               "0.05", "--out-dir", str(out), "-q"])
    text = capsys.readouterr().out
    assert rc == 0
    assert "latency ±sem" in text and "reference" in text and "results:" in text
    assert (out / "results.csv").is_file()
    rc = main(["crossval", "torus", "--param", "dims=3,3", "--simulators", "reference", "--loads", "0.05",
               "--packet-size", "1", "--latency-thres", "300", "--max-samples", "4", "--warmup-periods", "1",
               "--sample-period", "300", "--credit-delay", "1", "--out-dir", str(tmp_path / "o1"), "-q"])
    assert rc == 0 and "1-flit packets" in capsys.readouterr().out
    row = read_results(tmp_path / "o1" / "results.csv").iloc[0]
    assert '"latency_thres":300' in row["params"] and '"credit_delay":1' in row["params"]
    spec = tmp_path / "s.toml"
    spec.write_text('topology = "torus"\nsimulators = ["reference"]\nloads = [0.05]\n[params]\ndims = [3, 3]\n')
    assert main(["crossval", "--spec", str(spec), "--out-dir", str(tmp_path / "o2"), "-q"]) == 0
    for argv in (["crossval", "--out-dir", str(tmp_path / "x")],
                 ["crossval", "torus", "--param", "dims", "--out-dir", str(tmp_path / "x")],
                 ["crossval", "torus", "--param", "dims=3,3", "--loads", "a,b", "--out-dir", str(tmp_path / "x")],
                 ["crossval", "torus", "--param", "dims=3,3", "--link-latency", "long", "--out-dir",
                  str(tmp_path / "x")],
                 ["crossval", "no-such-net", "--out-dir", str(tmp_path / "x")],
                 ["crossval", "torus", "--param", "dims=3,3", "--out-dir", str(out)]):
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc not in (0, 70) and "topogen: error:" in err and "Traceback" not in err, argv


# ---------------------------------------------------------------- real simulators
@pytest.mark.booksim
def test_real_booksim_torus4x4(tmp_path):
    from topogen.drivers.booksim import find_booksim

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    res = cv.crossval(dict(topology="torus", params={"dims": (4, 4)}, loads=(0.05, 0.2),
                           simulators=("reference", "booksim")), tmp_path / "out")
    t = res.table.set_index(["load", "simulator"])
    for load in (0.05, 0.2):
        assert t.loc[(load, "booksim"), "status"] == "completed"
        ref = t.loc[(load, "reference")]
        ratio = ref["latency_cycles"] / t.loc[(load, "booksim"), "latency_cycles"]
        assert ref["ratio_booksim"] == pytest.approx(ratio)
        assert ref["verdict_booksim"] == ("pass" if abs(ratio - 1) <= 0.03 else "FAIL")
        assert 0.5 < ratio < 2  # same network, same settings: the same order of magnitude
    assert res.files["results"].is_file()


@pytest.mark.sst
def test_real_sst_torus4x4(tmp_path):
    from topogen.drivers.sst import find_sst
    from topogen.experiments.simulators import sst_clock_ns

    try:
        find_sst()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    res = cv.crossval(dict(topology="torus", params={"dims": (4, 4)}, loads=(0.05, 0.2),
                           simulators=("reference", "sst"), timeout=900.0), tmp_path / "out")
    t = res.table.set_index(["load", "simulator"])
    for load in (0.05, 0.2):
        row = t.loc[(load, "sst")]
        assert row["status"] == "completed", row["message"]
        # SST runs the whole even-picosecond cycle (2,666 ps for 2.667 ns); its rows are in
        # cycles of that clock
        sst_clock = sst_clock_ns(res.spec.clock_ns)
        assert sst_clock == pytest.approx(2.666) and res.spec.clock_ns == pytest.approx(8 / 3)
        assert row["latency_ns"] == pytest.approx(row["latency_cycles"] * sst_clock)
        ref = t.loc[(load, "reference-sst")]  # SST's traffic process on the reference simulator
        ratio = ref["latency_cycles"] / row["latency_cycles"]
        assert ref["ratio_sst"] == pytest.approx(ratio)
        assert ref["verdict_sst"] == ("pass" if abs(ratio - 1) <= 0.03 else "FAIL")


# ---------------------------------------------------------------- reproduce crossval
def test_reproduce_crossval_subset_and_skips(tmp_path, monkeypatch):
    from topogen import registry

    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("TOPOGEN_SST", str(tmp_path / "no-sst"))
    spec = registry.experiment("crossval")
    res = spec.func(topologies="torus4", traffic="uniform,tornado", packet_sizes="1", loads="0.05",
                    quick=True, out_dir=str(tmp_path / "m"))
    t = res.table
    assert list(t["traffic"]) == ["uniform", "tornado"] and set(t["simulator"]) == {"reference"}
    assert (t["statuses"] == "completed").all() and (t["zero_load_cycles"] > 0).all()
    skipped = next(n for n in res.notes if n.startswith("Skipped:"))
    assert "booksim" in skipped and "sst" in skipped
    assert (tmp_path / "m" / "torus4_tornado_1" / "results.csv").is_file()
    for bad in (dict(topologies="torus5"), dict(packet_sizes="2"), dict(loads="x"),
                dict(out_dir=str(tmp_path / "m"))):
        with pytest.raises(ParameterError):
            spec.func(**dict(dict(topologies="torus4", quick=True), **bad))


def test_reproduce_crossval_names_the_cyclic_routings_once(tmp_path, monkeypatch):
    from topogen import registry

    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("TOPOGEN_SST", str(tmp_path / "no-sst"))
    res = registry.experiment("crossval").func(topologies="torus4,torus8", traffic="uniform,tornado",
                                               packet_sizes="1", loads="0.05", quick=True)
    cdg = dict(zip(res.table["network"], res.table["cdg"]))
    assert cdg == {"Torus 4x4": "acyclic", "Torus 8x8": "cyclic"}
    assert sum("cdg cyclic" in n for n in res.notes) == 1
    assert not any("is not deadlock-free here" in n for n in res.notes)
