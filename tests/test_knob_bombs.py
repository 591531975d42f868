"""Size and time bombs: every numeric knob at an absurd value is refused up front.

Each case runs ``python -m topogen ...`` as a user would and must end within seconds
(imports included) with a non-zero exit that is not the internal-error code 70 and one
``topogen: error:`` line naming the number or the valid range: no allocation, no hang, no
point stored as an internal error.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TOPO = "[axes]\ntopology = [{generator = \"torus\", params = {dims = [4, 4]}}]\n"


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TOPOGEN_DEBUG", None)
    return env


def _refused(cwd: Path, *argv, wants=()) -> str:
    # a refused knob fails before any work: a run that starts the work ends in the timeout
    r = subprocess.run([sys.executable, "-m", "topogen", *map(str, argv)], cwd=cwd, env=_env(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode not in (0, 70), (argv, r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("topogen: error:"), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    for w in wants:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("bombs")
    r = subprocess.run([sys.executable, "-m", "topogen", "-q", "generate", "torus", "--dims", "4,4", "-o",
                        "t.json"], cwd=d, env=_env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return d


def _spec(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------- experiment plan
@pytest.mark.parametrize("repeats", ["1000000000", "10000000"])
def test_plan_refuses_huge_repeats(folder, repeats):
    spec = _spec(folder, "rep.toml", TOPO + f"load = [0.1]\nrepeats = {repeats}\n")
    line = _refused(folder, "experiment", "plan", spec, wants=("1,000,000 points",))
    assert f"{int(repeats):,}" in line


def test_plan_refuses_a_huge_axis_product(folder):
    loads = ", ".join(f"{(i + 1) / 2001:.6f}" for i in range(2000))
    seeds = ", ".join(str(i) for i in range(2000))
    spec = _spec(folder, "prod.toml", TOPO + f"load = [{loads}]\nseed = [{seeds}]\n")
    _refused(folder, "experiment", "plan", spec, wants=("4,000,000 points", "2,000 load x 2,000 seed"))


@pytest.mark.parametrize("setting, wants", [
    ("[measure]\nlink_latency = 1000000000", ("link_latency", "1048576")),
    ("[measure]\npacket_size = 1000000000", ("packet_size", "1048576")),
    ("[measure]\nsample_period = 1000000000000", ("sample_period",)),
    ("[measure]\nsample_period = 100000000\nmax_samples = 1000", ("sample_period x max_samples",)),
    ("[measure]\ntimeout = inf", ("timeout",)),
])
def test_plan_checks_measure_settings_like_the_simulator(folder, setting, wants):
    spec = _spec(folder, "measure.toml", TOPO + "load = [0.1]\n" + setting + "\n")
    _refused(folder, "experiment", "plan", spec, wants=("[measure]",) + wants)


def test_plan_refuses_huge_sweep_points(folder):
    spec = _spec(folder, "sweep.toml", TOPO + "load = [\"sweep\"]\n[sweep]\npoints = 1000000000\n")
    _refused(folder, "experiment", "plan", spec, wants=("1,000,000,000", "1,000"))


@pytest.mark.parametrize("value", ["nan", "-5.0", "inf", "0"])
def test_plan_refuses_bad_seconds_per_point(folder, value):
    spec = _spec(folder, "spp.toml", f"[experiment]\nseconds_per_point = {value}\n" + TOPO + "load = [0.1]\n")
    _refused(folder, "experiment", "plan", spec, wants=("seconds_per_point", "finite positive"))


# ---------------------------------------------------------------------------- sweeps
def test_simulate_sweep_points(folder):
    _refused(folder, "simulate", "t.json", "--sweep", "--points", "1000000000", "-o", "s.csv",
             wants=("1,000,000,000", "1,000"))
    assert not (folder / "s.csv").exists()


def test_run_booksim_sweep_points(folder):
    _refused(folder, "run", "booksim", "t.json", "--sweep", "--points", "1000000000", "-o", "b.csv",
             wants=("1,000,000,000", "1,000"))
    assert not (folder / "b.csv").exists()


# ---------------------------------------------------------------------------- simulate knobs
@pytest.mark.parametrize("argv, wants", [
    (["--sample-period", "1000000000000"], ("sample_period", "1000000000")),
    (["--link-latency", "1000000000"], ("link_latency",)),
    (["--link-gbps", "0"], ("link_gbps", "positive")),
    (["--link-gbps", "nan"], ("link_gbps",)),
    (["--clock-ns", "inf"], ("clock_ns",)),
])
def test_simulate_knobs(folder, argv, wants):
    _refused(folder, "simulate", "t.json", *argv, wants=wants)


# ---------------------------------------------------------------------------- layout, optimize, generate
def test_generate_cabinets(folder):
    _refused(folder, "generate", "torus", "--dims", "4,4", "--cabinets", "1000000000", "-o", "c.json",
             wants=("1,000,000,000", "1,000,000"))
    assert not (folder / "c.json").exists()


def test_layout_anneal_iterations(folder):
    _refused(folder, "layout", "anneal", "t.json", "--iterations", "1e15", "-o", "a.json",
             wants=("1,000,000,000,000,000", "10,000,000,000"))


def test_layout_cluster_steps(folder):
    _refused(folder, "layout", "cluster", "t.json", "--steps", "1000000000", "-o", "c.json",
             wants=("1,000,000,000", "1,000"))


def test_layout_cabinets(folder):
    _refused(folder, "layout", "cluster", "t.json", "--cabinets", "1000000000", "-o", "c.json",
             wants=("1,000,000,000",))


def test_optimize_num_switches(folder):
    _refused(folder, "optimize", "--num-switches", "1000000000", "--degree", "4", "--moves", "10",
             "-o", "o.json", wants=("1,000,000,000", "memory"))


@pytest.mark.parametrize("dims", ["4,4,", ",4,4", "4,,4"])
def test_dims_with_an_empty_entry(folder, dims):
    _refused(folder, "generate", "torus", "--dims", dims, "-o", "d.json", wants=("empty entry",))
    assert not (folder / "d.json").exists()
