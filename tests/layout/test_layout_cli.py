"""``topogen layout cluster|anneal`` and the layout pipeline behind them (Koibuchi IV-C/IV-D)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from topogen.cli import main
from topogen import formats
from topogen.generators.shortcut import nbr
from topogen.layout import Floor, place
from topogen.layout.clustering import inter_cabinet_links
from topogen.layout.pipeline import anneal_layout, cluster_layout, layout_figures


@pytest.fixture
def topo_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["-q", "generate", "nbr", "--num_switches", "128", "--degree", "6", "--p", "0.5",
                 "--seed", "3", "-o", "nbr.json"]) == 0
    return tmp_path / "nbr.json"


def test_cluster_writes_layout_and_prints_figures(topo_file, capsys):
    assert main(["layout", "cluster", str(topo_file), "--switches-per-cabinet", "16", "--seed", "5",
                 "-o", "walk.json"]) == 0
    out = capsys.readouterr().out
    topology, layout = formats.load("walk.json")
    assert layout.floor.switches_per_cabinet == 16 and layout.floor.cabinets == 8
    assert layout.placement == "walktrap+serpentine" and layout.seed == 5
    assert np.bincount(layout.cabinet).max() <= 16
    # the printed figures are those of the written layout and of the sequential baseline
    f = layout_figures(layout)
    base = layout_figures(place(topology, layout.floor, "sequential"))
    assert f"{f.inter_cabinet_links:,}" in out and f"{base.inter_cabinet_links:,}" in out
    assert f"{f.average_cable:.3f}" in out and "seed 5" in out


def test_anneal_keeps_cabinets_and_never_lengthens(topo_file, capsys):
    assert main(["-q", "layout", "cluster", str(topo_file), "--switches-per-cabinet", "16",
                 "--method", "sequential", "--seed", "1", "-o", "seq.json"]) == 0
    assert main(["layout", "anneal", "seq.json", "--iterations", "20000", "--seed", "2",
                 "-o", "sa.edges"]) == 0
    out = capsys.readouterr().out
    _, before = formats.load("seq.json")
    _, after = formats.load("sa.edges")
    assert after.placement == "anneal" and after.seed == 2
    assert after.total_cable_length <= before.total_cable_length + 1e-9
    # same groups of switches, only moved: every old cabinet maps to exactly one new one
    pairs = set(zip(before.cabinet.tolist(), after.cabinet.tolist()))
    assert len(pairs) == len(set(before.cabinet.tolist())) == len(set(after.cabinet.tolist()))
    assert "annealed (20,000 x 1)" in out


def test_same_seed_same_layout(topo_file):
    for name in ("a.json", "b.json"):
        assert main(["-q", "layout", "anneal", str(topo_file), "--switches-per-cabinet", "16",
                     "--iterations", "5000", "--seed", "9", "-o", name]) == 0
    assert np.array_equal(formats.load("a.json")[1].cabinet, formats.load("b.json")[1].cabinet)


def test_refuses_to_overwrite_without_force(topo_file, capsys):
    (topo_file.parent / "out.json").write_text("precious")
    code = main(["layout", "cluster", str(topo_file), "-o", "out.json"])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and "--force" in err
    assert (topo_file.parent / "out.json").read_text() == "precious"
    assert main(["-q", "layout", "cluster", str(topo_file), "-o", "out.json", "--force"]) == 0
    assert formats.load("out.json")[1].placement == "walktrap+serpentine"


@pytest.mark.parametrize("argv", [
    ["layout", "cluster", "missing.json", "-o", "x.json"],
    ["layout", "cluster", "nbr.json", "-o", "x.unknown"],
    ["layout", "cluster", "nbr.json", "-o", "nbr.json", "--force"],
    ["layout", "anneal", "nbr.json", "-o", "x.json", "--iterations", "-1"],
    ["layout", "anneal", "nbr.json", "-o", "x.json", "--cabinets", "2", "--switches-per-cabinet", "16"],
    ["layout", "anneal", "nbr.json", "-o", "x.json", "--clusters", "keep", "--switches-per-cabinet", "16"],
    ["layout", "cluster", "bad.edges", "-o", "x.json"],
    ["layout", "cluster", "garbage.json", "-o", "x.json"],
    ["layout"],
])
def test_bad_input_one_line_nonzero(topo_file, capsys, argv):
    (topo_file.parent / "bad.edges").write_text("0 1\n2 3\n4\n")
    (topo_file.parent / "garbage.json").write_text("{not json")
    code = main(argv)
    err = capsys.readouterr().err
    assert code not in (0, 70)
    assert err.count("\n") == 1 and err.startswith("topogen: error:")
    assert not (topo_file.parent / "x.json").exists()


def test_isolated_switch_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "iso.edges").write_text("0 1\n1 2\n2 0\n4 5\n")  # switch 3 has no link
    code = main(["layout", "cluster", "iso.edges", "-o", "x.json"])
    assert code not in (0, 70) and "isolated switch" in capsys.readouterr().err


def test_cli_entry_point_exit_code(topo_file):
    r = subprocess.run([sys.executable, "-m", "topogen", "layout", "anneal", "nothere.json", "-o", "o.json"],
                       capture_output=True, text=True, cwd=topo_file.parent)
    assert r.returncode not in (0, 70) and r.stderr.count("\n") == 1


def test_cluster_layout_sequential_is_serpentine_of_groups():
    t = nbr(64, 4, 0.5, seed=1)
    floor = Floor(8, 8)  # 3 x 3 grid, 8 cabinets
    lay = cluster_layout(t, floor, "sequential", seed=0)
    order = [0, 1, 2, 5, 4, 3, 6, 7]
    assert lay.cabinet.tolist() == [order[v // 8] for v in range(64)]


def test_walktrap_layout_fits_and_counts_links():
    t = nbr(96, 5, 0.5, seed=2)
    floor = Floor.for_switches(96, 16)
    lay = cluster_layout(t, floor, "walktrap", seed=1)
    assert np.bincount(lay.cabinet, minlength=floor.cabinets).max() <= 16
    f = layout_figures(lay)
    assert f.inter_cabinet_links == inter_cabinet_links(t, lay.cabinet)
    e = t.edges
    expect = np.where(lay.cabinet[e[:, 0]] == lay.cabinet[e[:, 1]], 2.0,
                      floor.distance(lay.cabinet[e[:, 0]], lay.cabinet[e[:, 1]]) + 4.0)
    assert f.total_cable == pytest.approx(expect.sum()) and f.average_cable == pytest.approx(expect.mean())


def test_anneal_layout_improves_a_scrambled_layout():
    t = nbr(128, 6, 0.3, seed=4)
    floor = Floor.for_switches(128, 16)
    seq = cluster_layout(t, floor, "sequential", seed=0)
    scrambled = place(t, floor, "sequential")
    perm = np.random.default_rng(0).permutation(floor.cabinets)
    from topogen.layout import Layout

    scrambled = Layout(t, floor, perm[scrambled.cabinet])
    calls = []
    out = anneal_layout(scrambled, iterations=3000, seed=1, progress=lambda d, n: calls.append((d, n)))
    assert out.total_cable_length < scrambled.total_cable_length
    assert inter_cabinet_links(t, out.cabinet) == inter_cabinet_links(t, seq.cabinet)
    assert calls and calls[-1] == (3000, 3000)
