"""crossval on the shared defaults and its verdicts: the same BookSim run as ``run
booksim``, one ``--low`` default, ``inconclusive`` where the runs' spread covers the
tolerance, non-monotone onsets named, one saturation number in table and plot, and a
compact terminal table."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from topogen.cli import build_parser, main
from topogen.experiments.simulators import Adapter, CrossvalSpec, shared_defaults
from topogen.load_points import DEFAULT_LOW, SWEEP_DEFAULTS
from topogen.reproduce import crossval as cv
from topogen.results import make_row, read_results

from shared_paths import FIXTURES, needs_fixtures
from tests.drivers import fakes

WORKTREE = Path(__file__).resolve().parents[2]


def _env():
    import os

    return dict(os.environ, PYTHONPATH=str(WORKTREE))


def _torus_file(tmp_path) -> Path:
    path = tmp_path / "t.json"
    assert main(["generate", "torus", "--dims", "4,4", "-o", str(path), "-q"]) == 0
    return path


# ---------------------------------------------------------------- shared defaults
def test_spec_takes_link_latency_from_the_shared_defaults():
    assert shared_defaults()["link_latency"] is None  # the layout's cable delays
    assert CrossvalSpec("torus").link_latency is None
    assert CrossvalSpec("torus", link_latency=1).link_latency == 1  # the old reading, on request


def _cfg_lines(path: Path) -> list[str]:
    return sorted(ln for ln in path.read_text().splitlines()
                  if ln.strip() and not ln.startswith("//") and not ln.startswith("network_file"))


@needs_fixtures("booksim")
def test_run_booksim_and_crossval_export_the_same_booksim_run(tmp_path, monkeypatch):
    exe = fakes.booksim(tmp_path / "bin", FIXTURES, knee=0.3)
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(exe))
    net = _torus_file(tmp_path)
    assert main(["run", "booksim", str(net), "--rate", "0.1", "--seed", "1", "--out-dir",
                 str(tmp_path / "rb"), "-q"]) == 0
    cv.crossval(dict(topology=str(net), loads=(0.1,), simulators=("booksim",), repeats=1, seed=1),
                tmp_path / "cv")
    rb_cfg = next((tmp_path / "rb").glob("*.cfg"))
    cv_cfg = tmp_path / "cv" / "booksim" / "net.cfg"
    assert _cfg_lines(rb_cfg) == _cfg_lines(cv_cfg)
    assert rb_cfg.with_suffix(".anynet").read_text() == cv_cfg.with_suffix(".anynet").read_text()
    # --link-latency 1 keeps the one-cycle reading: every link 1 cycle in the netlist
    assert main(["crossval", str(net), "--loads", "0.1", "--simulators", "booksim", "--repeats", "1",
                 "--link-latency", "1", "--out-dir", str(tmp_path / "one"), "-q"]) == 0
    links = re.findall(r"router \d+ (\d+)", (tmp_path / "one" / "booksim" / "net.anynet").read_text())
    assert links and set(links) == {"1"}


@pytest.mark.booksim
def test_real_booksim_same_latency_in_run_booksim_and_crossval(tmp_path):
    from topogen.drivers.booksim import find_booksim
    from topogen.errors import SimulatorNotFound

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    net = _torus_file(tmp_path)
    subprocess.run([sys.executable, "-m", "topogen", "run", "booksim", str(net), "--rate", "0.1", "--seed",
                    "1", "--out-dir", str(tmp_path / "rb"), "-q"], env=_env(), check=True,
                   stdout=subprocess.DEVNULL)
    rb = read_results(tmp_path / "rb" / "results.csv").iloc[0]
    res = cv.crossval(dict(topology=str(net), loads=(0.1,), simulators=("booksim",), repeats=1, seed=1),
                      tmp_path / "cv")
    inside = [r for r in res.rows if r["simulator"] == "booksim"][0]
    assert float(inside["latency_avg"]) == pytest.approx(float(rb["latency_avg"]), abs=1e-9)


def test_one_low_default_for_every_sweep():
    parser = build_parser()
    sim = parser.parse_args(["simulate", "x.json", "--sweep"])
    bs = parser.parse_args(["run", "booksim", "x.json", "--sweep"])
    assert sim.low == bs.low == DEFAULT_LOW == SWEEP_DEFAULTS["low"]


# ---------------------------------------------------------------- verdicts
def _pair_tables(ref_lat, bs_lat, sem, sat=((0.39, 0.40), (0.39, 0.40)), onsets=None):
    lines = []
    for sim, lat in (("reference", ref_lat), ("booksim", bs_lat)):
        for load, v in lat.items():
            lines.append({"load": load, "simulator": sim, "status": "completed", "latency_cycles": v,
                          "latency_ns": v, "accepted_flits": load, "latency_sem": sem, "runs": 3,
                          "failed_runs": 0})
    srows = []
    for sim, (lo, hi) in zip(("reference", "booksim"), sat):
        ff, lp = (onsets or {}).get(sim, (hi, lo))
        srows.append({"simulator": sim, "sat_low": lo, "sat_high": hi, "saturation": lo,
                      "first_fail": ff, "last_pass": lp,
                      "onsets": "non-monotone" if ff < lp else "monotone"})
    return pd.DataFrame(lines), pd.DataFrame(srows)


def test_inconclusive_when_the_spread_covers_the_tolerance():
    spec = CrossvalSpec("torus", simulators=("reference", "booksim"))
    table, sat = _pair_tables({0.1: 104.0}, {0.1: 100.0}, 2.0)  # 4 % miss, ratio error ~2.9 %
    t, _ = cv.verdicts(table, sat, spec)
    assert t[t.simulator == "reference"]["verdict_booksim"].item() == "inconclusive"
    table, sat = _pair_tables({0.1: 104.0}, {0.1: 100.0}, 0.1)  # the same miss, tight runs
    t, _ = cv.verdicts(table, sat, spec)
    assert t[t.simulator == "reference"]["verdict_booksim"].item() == "FAIL"
    # saturation 10 % apart, but the seeds' onsets overlap: inconclusive, not FAIL
    table, sat = _pair_tables({0.1: 100.0}, {0.1: 100.0}, 0.1, sat=((0.36, 0.37), (0.40, 0.41)),
                              onsets={"booksim": (0.36, 0.41)})
    _, s = cv.verdicts(table, sat, spec)
    assert s.set_index("simulator").loc["reference", "verdict_booksim"] == "inconclusive"
    table, sat = _pair_tables({0.1: 100.0}, {0.1: 100.0}, 0.1, sat=((0.36, 0.37), (0.40, 0.41)))
    _, s = cv.verdicts(table, sat, spec)
    assert s.set_index("simulator").loc["reference", "verdict_booksim"] == "FAIL"


def _noisy_adapters(offset: dict, calls: list, onset=0.5):
    """build_adapters stand-in: latency 100 * (1 + offset[sim]) with +-5 % noise by seed
    parity; runs fail at or above ``onset``."""
    def build(spec, seed, topology, layout, routing, out_dir, *, binaries=None):
        ads = []
        for sim, off in offset.items():
            def run(load, run_seed=seed, capacity=False, sim=sim, off=off):
                calls.append((sim, load, run_seed))
                bad = load >= onset
                lat = 100 * (1 + off) * (1.05 if run_seed % 2 else 0.95)
                return make_row(simulator=sim, topology="torus", routing="booksim-min", traffic="uniform",
                                offered_load=load, load_unit="flits/node/cycle",
                                status="saturated" if bad else "completed",
                                latency_avg=math.nan if bad else lat, latency_unit="cycles",
                                accepted_flit_rate=load, sim_seed=run_seed)
            ads.append(Adapter(sim, run, routing="booksim-min"))
        return ads, {}
    return build


def test_unresolved_points_get_more_runs_then_read_inconclusive(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(cv, "build_adapters", _noisy_adapters({"reference": 0.04, "booksim": 0.0}, calls))
    res = cv.crossval(dict(topology="torus", params={"dims": (3, 3)}, loads=(0.1,),
                           simulators=("reference", "booksim"), max_repeats=5), tmp_path / "o")
    t = res.table.set_index(["load", "simulator"])
    assert t.loc[(0.1, "reference"), "runs"] == 5 and t.loc[(0.1, "booksim"), "runs"] == 5
    assert t.loc[(0.1, "reference"), "verdict_booksim"] == "inconclusive"
    assert res.passed and "FAIL" not in " ".join(res.summary())
    # an agreeing pair stops at the default repeats
    calls.clear()
    monkeypatch.setattr(cv, "build_adapters", _noisy_adapters({"reference": 0.0, "booksim": 0.0}, calls))
    res = cv.crossval(dict(topology="torus", params={"dims": (3, 3)}, loads=(0.1,),
                           simulators=("reference", "booksim")), tmp_path / "p")
    assert len(calls) == 2 * cv.DEFAULT_REPEATS


def test_non_monotone_onsets_are_named():
    spec = CrossvalSpec("torus", simulators=("reference", "booksim"))
    table, sat = _pair_tables({0.1: 100.0}, {0.1: 100.0}, 0.5, sat=((0.55, 0.5625), (0.55, 0.5625)),
                              onsets={"booksim": (0.55, 0.6)})
    t, s = cv.verdicts(table, sat, spec)
    _, text = cv.compact_tables(t, s)
    line = next(ln for ln in text.splitlines() if ln.startswith("booksim"))
    assert "non-monotone: fail 0.55 < pass 0.6" in line
    ref = next(ln for ln in text.splitlines() if ln.startswith("reference"))
    assert "monotone" in ref and "non-monotone" not in ref and "<" not in ref


def test_legend_and_table_give_the_same_saturation(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(cv, "build_adapters", _noisy_adapters({"reference": 0.0, "booksim": 0.0}, calls,
                                                              onset=0.5625))
    res = cv.crossval(dict(topology="torus", params={"dims": (3, 3)}, loads=(0.1, 0.3, 0.6),
                           simulators=("reference", "booksim"), saturation=True), tmp_path / "o",
                      plot=tmp_path / "p.svg")
    legend = set(re.findall(r"sat\. ([0-9.]+)", (tmp_path / "p.svg").read_text()))
    _, text = cv.compact_tables(res.table, res.saturation)
    shown = {ln.split()[1] for ln in text.splitlines()[1:] if ln.startswith(("reference", "booksim"))}
    assert legend and legend == shown
    lo = res.saturation.set_index("simulator").loc["booksim", "sat_low"]
    assert f"{lo:.3g}" in shown  # the highest sustained load


def test_compact_table_fits_and_shows_only_the_simulators_that_ran(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(cv, "build_adapters", _noisy_adapters({"reference": 0.01, "booksim": 0.0}, calls))
    out = tmp_path / "o"
    rc = main(["crossval", "torus", "--param", "dims=3,3", "--loads", "0.05,0.1,0.2,0.3,0.4",
               "--saturation", "--simulators", "reference,booksim", "--out-dir", str(out), "-q"])
    assert rc == 0
    wide = read_results(out / "results.csv")
    assert len(wide)
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        main(["crossval", "torus", "--param", "dims=3,3", "--loads", "0.05,0.1,0.2,0.3,0.4",
              "--saturation", "--simulators", "reference,booksim", "--out-dir", str(tmp_path / "o2"), "-q"])
    text = buf.getvalue()
    tables = text.split("\nnotes:")[0].splitlines()[1:]
    assert all(len(ln) <= cv.COMPACT_WIDTH for ln in tables), max(tables, key=len)
    assert "sst" not in "\n".join(tables)
    assert "vs booksim" in text
    # the wide table stays in the CSV
    csv = pd.read_csv(next(Path(tmp_path / "o2").glob("crossval*.csv")), comment="#")
    assert {"verdict_sst", "ratio_sst", "latency_ns", "router"} <= set(csv.columns)
