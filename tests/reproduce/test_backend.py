"""``--simulator reference|booksim|sst`` of the simulation reproductions
(:mod:`topogen.reproduce._backend`): refusals before any run, and a sweep on the stand-in
BookSim of :mod:`tests.drivers.fakes` (real fixture output); the real binaries run in
``test_memsys_sim.py`` (``-m booksim`` / ``-m sst``)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from topogen import registry
from topogen.errors import ParameterError, SimulatorNotFound
from topogen.reproduce import _backend as be
from topogen.results import read_results
from topogen.routing import route
from topogen.sim import SimConfig

from shared_paths import FIXTURES, needs_fixtures
from tests.drivers import fakes


@pytest.fixture
def no_simulators(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("TOPOGEN_SST", str(tmp_path / "no-sst"))
    monkeypatch.setenv("PATH", str(tmp_path))


@pytest.mark.parametrize("sim, kw, match", [
    ("booksim", dict(routings=["escape"]), r"BookSim's anynet has only its own minimal table routing "
                                           r"\(min_anynet\), not 'escape' routing; use --simulator reference"),
    ("booksim", dict(routings=["ugal-l"]), "not 'ugal-l' routing"),
    ("sst", dict(routings=["valiant"]), r"SST runs topogen's deterministic tables as source routes \(nr, fr, booksim-min, dor, hop, nca\), not 'valiant'"),
    ("booksim", dict(traffics=["rotate"], hosts=2048), "BookSim's transpose traffic needs an even power of two hosts"),
    ("sst", dict(traffics=["rotate"]), "SST merlin has no 'rotate' traffic pattern"),
    ("booksim", dict(traffics=["groupshift"]), "BookSim has no 'groupshift' traffic pattern"),
    ("sst", dict(traffics=["bitrev"]), "SST merlin has no 'bitrev' traffic pattern"),
    ("booksim", dict(traffics=["transpose"], hosts=128), "needs an even power of two hosts"),
    ("booksim", dict(traffics=["bitrev"], hosts=48), "needs a power of two hosts"),
    ("gem5", {}, "simulator must be one of reference, booksim, sst"),
])
def test_what_a_simulator_lacks_is_one_line_before_the_binary_is_looked_for(sim, kw, match, no_simulators):
    with pytest.raises(ParameterError, match=match) as err:
        be.check(sim, "study", **kw)
    assert "\n" not in str(err.value)


def test_what_the_simulators_share_passes_and_a_missing_binary_is_the_drivers_error(no_simulators):
    be.check("reference", "study", routings=["escape", "ugal-g"], traffics=["worstcase"])
    with pytest.raises(SimulatorNotFound, match="TOPOGEN_BOOKSIM"):
        be.check("booksim", "study", routings=["fr", "dor", "hop"], traffics=["uniform", "tornado", "bitrev"],
                 hosts=256)
    with pytest.raises(SimulatorNotFound):
        be.check("sst", "study", routings=["nr"], traffics=["uniform"])


def test_every_simulation_reproduction_refuses_before_any_work(no_simulators):
    from topogen.reproduce import dsnf_sim, layout_sim, memsys_sim, skywalk_sim, slimfly_sim

    with pytest.raises(ParameterError, match="skywalk-sim: .*'escape'.*use --routing fr"):
        skywalk_sim.reproduce_skywalk_sim(simulator="booksim")
    with pytest.raises(ParameterError, match="skywalk-sim: BookSim's transpose traffic needs an even power of two hosts \\(2048"):
        skywalk_sim.reproduce_skywalk_sim(simulator="booksim", routing="fr", traffic="transpose",
                                          host_port="separate")
    with pytest.raises(ParameterError, match="slimfly-sim: .*'valiant'.*--routings MIN --traffic uniform"):
        slimfly_sim.reproduce_slimfly_sim(simulator="booksim")
    with pytest.raises(ParameterError, match="slimfly-sim: BookSim has no 'worstcase'"):
        slimfly_sim.reproduce_slimfly_sim(simulator="booksim", routings="MIN")
    with pytest.raises(ParameterError, match="dsnf-sim: SST .*'escape'.*--routing min"):
        dsnf_sim.reproduce_dsnf_sim(simulator="sst")
    with pytest.raises(ParameterError, match="dsnf-sim: BookSim's transpose traffic needs an even power of two hosts \\(128"):
        dsnf_sim.reproduce_dsnf_sim(simulator="booksim", routing="min")
    with pytest.raises(ParameterError, match="layout-sim: .*'escape'"):
        layout_sim.reproduce_layout_sim(simulator="booksim")
    with pytest.raises(ParameterError, match="routing must be 'escape' or 'min'"):
        layout_sim.reproduce_layout_sim(routing="dor")
    # what the simulator can run gets as far as looking for the binary
    for call in (lambda: skywalk_sim.reproduce_skywalk_sim(simulator="booksim", routing="fr"),
                 lambda: slimfly_sim.reproduce_slimfly_sim(simulator="sst", routings="MIN", traffic="uniform"),
                 lambda: dsnf_sim.reproduce_dsnf_sim(simulator="booksim", routing="min", traffic="uniform"),
                 lambda: layout_sim.reproduce_layout_sim(simulator="sst", routing="min"),
                 lambda: memsys_sim.reproduce_memsys_sim(simulator="sst")):
        with pytest.raises(SimulatorNotFound):
            call()


def test_the_cli_prints_one_line_and_no_traceback(no_simulators):
    import os

    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-m", "topogen", "reproduce", "dsnf-sim", "--simulator", "booksim"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode not in (0, 70)
    assert "Traceback" not in p.stderr
    assert "dsnf-sim: BookSim's anynet" in p.stderr and "--routing min" in p.stderr


def test_load_units_become_flits_per_cycle():
    cfg = SimConfig(packet_size=4, link_gbps=96.0)
    assert be._to_flits(0.2, "flits", cfg) == 0.2
    assert be._to_flits(0.05, "packets", cfg) == pytest.approx(0.2)
    assert be._to_flits(48.0, "gbps", cfg) == pytest.approx(0.5)
    with pytest.raises(ParameterError, match="load_unit"):
        be._to_flits(1.0, "bytes", cfg)


def test_raw_output_goes_beside_a_named_results_file(tmp_path):
    assert be.raw_dir_for(str(tmp_path / "r.csv"), "/tmp/x") == tmp_path / "r.csv.raw"
    assert be.raw_dir_for("", str(tmp_path)) == tmp_path / "raw"


@needs_fixtures("booksim")
def test_a_sweep_on_the_stand_in_booksim(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES, knee=0.3)))
    topo = registry.generate("torus", dims=(4, 4), hosts_per_switch=2)
    rt = route(topo, None, "nr")
    out = tmp_path / "r.csv"
    res = be.sweep("booksim", rt, out, low=0.05, high=0.6, tolerance=0.04, seed=3, traffic="uniform",
                   raw_dir=tmp_path / "raw", routing_delay=3, max_samples=4, warmup_periods=1,
                   min_accepted=0.0)  # the stand-in accepts 0.049 at every load: BookSim's rule only
    # the stand-in completes up to 0.3 and is unstable above: the bisection brackets the knee
    assert 0.25 <= res.saturation_load <= 0.3 < res.saturation_upper <= 0.34
    assert math.isfinite(res.zero_load_latency) and res.zero_load_latency > 1
    assert res.simulated == len(res.rows) and res.reused == 0
    rows = read_results(out)
    assert len(rows) == len(res.rows) and set(rows.simulator) == {"booksim"}
    assert [r["offered_load"] for r in res.rows] == sorted(r["offered_load"] for r in res.rows)
    folder = next((tmp_path / "raw").glob("booksim-*"))
    config = (folder / "net.cfg").read_text() if (folder / "net.cfg").exists() else \
        next(folder.glob("*.cfg")).read_text()
    assert "routing_delay = 3;" in config  # the study's router pipeline, not crossval's
    assert "traffic = uniform;" in config
    assert len(list(folder.glob("load*.log"))) == len(res.rows)  # every run's raw output kept


def test_layout_sim_routing_min_is_the_minimal_table_alone():
    from topogen.reproduce import layout_sim

    topo, esc = layout_sim.build("hypercube", 1)
    same, table = layout_sim.build("hypercube", 1, routing="min")
    assert esc.algorithm == "escape" and table.algorithm == "nr"
    assert same.num_links == topo.num_links
    be.check_routing("booksim", table.algorithm, "layout-sim")  # runnable there
    with pytest.raises(ParameterError):
        be.check_routing("booksim", esc.algorithm, "layout-sim")


@needs_fixtures("booksim")
def test_a_booksim_run_accepting_too_little_is_saturated(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES, knee=0.3)))
    rt = route(registry.generate("torus", dims=(4, 4), hosts_per_switch=2), None, "nr")
    run = be.PointRunner("booksim", rt, traffic="uniform", raw_dir=tmp_path / "raw", max_samples=4,
                         warmup_periods=1)
    assert run(0.05)["status"] == "completed"  # the stand-in accepts 0.049 of 0.05
    row = run(0.2)  # "completed" by BookSim's latency rule, but 0.049 of 0.2 accepted
    assert row["status"] == "saturated" and "accepted 0.04889 of 0.2 offered" in row["message"]
    res = be.sweep("booksim", rt, tmp_path / "r.csv", low=0.05, high=0.6, tolerance=0.02, seed=1,
                   traffic="uniform", raw_dir=tmp_path / "raw", max_samples=4, warmup_periods=1)
    assert 0.05 <= res.saturation_load < 0.05 / 0.95 < res.saturation_upper < 0.08


def test_a_low_load_with_few_packets_is_not_called_short(tmp_path):
    # DSN-F on BookSim at 0.01 flits of 33-flit packets, 128 hosts: 0.0088 accepted over
    # 4,641 measured cycles is ~180 packets, within the noise; 0.918 of 1.0 over 16,637
    # cycles at 256 hosts is not (the skywalk-sim hypercube on BookSim)
    small = route(registry.generate("torus", dims=(8, 16)), None, "nr")
    run = be.PointRunner("booksim", small, traffic="uniform", raw_dir=tmp_path, packet_size=33,
                         vc_buf_size=66)
    assert not run._short({"accepted_flit_rate": 0.00882, "sim_cycles": 7641}, 0.01)
    assert run._short({"accepted_flit_rate": 0.005, "sim_cycles": 7641}, 0.01)
    big = route(registry.generate("hypercube", dimension=8), None, "nr")
    run = be.PointRunner("booksim", big, traffic="uniform", raw_dir=tmp_path, packet_size=33, vc_buf_size=66)
    assert run._short({"accepted_flit_rate": 0.918, "sim_cycles": 19637}, 1.0)
    assert not run._short({"accepted_flit_rate": 0.96, "sim_cycles": 19637}, 1.0)
    assert not run._short({"accepted_flit_rate": None, "sim_cycles": 19637}, 1.0)


def test_a_booksim_sweep_run_again_reads_its_points_back(tmp_path, monkeypatch):
    """A killed or repeated sweep does not run a finished BookSim point again (keyed by
    everything that changes its numbers), and a changed seed is a new point."""
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES, knee=0.3)))
    topo = registry.generate("torus", dims=(4, 4), hosts_per_switch=2)
    rt = route(topo, None, "nr")
    out = tmp_path / "r.csv"
    kw = dict(low=0.05, high=0.6, tolerance=0.04, traffic="uniform", raw_dir=tmp_path / "raw",
              routing_delay=3, max_samples=4, warmup_periods=1, min_accepted=0.0)
    first = be.sweep("booksim", rt, out, seed=3, **kw)
    n = len(read_results(out))
    # the binary is gone: any point run again would fail with SimulatorNotFound
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "gone"))
    again = be.sweep("booksim", rt, out, seed=3, **kw)
    assert again.simulated == 0 and again.reused == len(first.rows)
    assert (again.saturation_load, again.saturation_upper) == (first.saturation_load, first.saturation_upper)
    assert [r["latency_avg"] for r in again.rows] == pytest.approx([r["latency_avg"] for r in first.rows], nan_ok=True)
    assert len(read_results(out)) == n  # nothing written twice
    with pytest.raises(SimulatorNotFound):
        be.sweep("booksim", rt, out, seed=4, **kw)  # another seed: new points, run for real
