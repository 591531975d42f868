"""topogen draw: floor plans and channel-load maps."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from topogen import Floor, place
from topogen.cli import main
from topogen import formats
from topogen.generators.classic import hypercube, torus
from topogen.layout import default_layout
from topogen.plots import cable_classes, channel_loads, draw_floor
from topogen.plots.floor import _tray_segments
from topogen.routing import route
from topogen.routing.load import load_ceiling

PNG = b"\x89PNG\r\n\x1a\n"


def svg_text(path):
    root = ET.parse(path).getroot()  # a valid SVG document
    assert root.tag.endswith("svg")
    return " ".join(t for t in root.itertext())


def test_cable_classes_follow_the_floor_grid():
    t = torus((4, 4))
    layout = place(t, Floor(4, 4, rows=2, columns=2), "sequential")
    classes = cable_classes(layout)
    ca, cb = layout.cabinet[t.edges[:, 0]], layout.cabinet[t.edges[:, 1]]
    ra, xa = divmod(ca, 2)
    rb, xb = divmod(cb, 2)
    expect = np.where(ca == cb, "intra", np.where((ra == rb) | (xa == xb), "straight", "diagonal"))
    assert list(classes) == list(expect)
    assert {"intra", "straight"} <= set(classes)


def test_tray_segments_carry_every_route_once():
    rng = np.random.default_rng(3)
    rows, cols, k = 5, 7, 200
    ra, rb = rng.integers(0, rows, k), rng.integers(0, rows, k)
    ca, cb = rng.integers(0, cols, k), rng.integers(0, cols, k)
    segs, amount = _tray_segments(ra, ca, rb, cb, rows, cols)
    along = segs[:, 0] == segs[:, 2]  # along an aisle (constant row position)
    # each segment is one column (along an aisle) or half a row (across the rows) long
    assert np.allclose(np.abs(segs[along, 3] - segs[along, 1]), 1)
    assert np.allclose(np.abs(segs[~along, 2] - segs[~along, 0]), 0.5)
    assert amount[along].sum() == np.abs(ca - cb).sum()
    # to the aisle and across: 2|dr| half rows, or out to the aisle and back in one row
    assert amount[~along].sum() == np.where(ra == rb, 2, 2 * np.abs(ra - rb)).sum()
    # the aisles used lie between rows (or outside the outer ones)
    assert set(np.unique(segs[along, 0])) <= {r + 0.5 for r in range(-1, rows)}


def test_small_floor_plan_png_and_svg(tmp_path):
    t = torus((4, 4), hosts_per_switch=1)
    layout = default_layout(t)
    png = draw_floor(layout, tmp_path / "f.png")
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5000
    svg = draw_floor(layout, tmp_path / "f.svg", color_by="length")
    text = svg_text(svg)
    assert f"total: {t.num_links} cables" in text
    assert "cable length (m)" in text


def test_large_network_is_aggregated_into_trays(tmp_path):
    t = hypercube(11)  # 2,048 switches: trays instead of one line per cable
    svg = draw_floor(default_layout(t), tmp_path / "big.svg")
    text = svg_text(svg)
    assert "merged into aisle trays" in text and "cables per tray segment" in text
    assert "2,048 switches" in text


def test_lowest_id_ties_load_a_hypercube_unevenly():
    t = hypercube(5)
    lowest = channel_loads(route(t, None, "nr", ties="lowest"))
    spread = channel_loads(route(t, None, "nr"))
    # both carry the same total flit-hops (minimal routes), lowest-id ties pile them up
    assert np.isclose(lowest.load.sum(), spread.load.sum())
    assert lowest.max_load > 2 * spread.max_load
    assert lowest.ceiling == pytest.approx(load_ceiling(route(t, None, "nr", ties="lowest")))
    s, d = lowest.src[lowest.busiest], lowest.dst[lowest.busiest]
    assert d in t.neighbors(s)
    assert f"switch {s} -> {d}" in lowest.describe_busiest()


@pytest.mark.parametrize("traffic", ["bitrev", "tornado", "shift", "randperm"])
def test_pattern_loads_add_up_to_the_route_lengths(traffic):
    t = hypercube(4)
    r = route(t, None, "nr")
    loads = channel_loads(r, traffic, seed=1)
    from topogen.sim.traffic import Traffic
    from topogen._rng import make_rng

    pattern = Traffic(traffic, t.num_hosts, make_rng(1), routing=r)
    src = pattern.active
    hops = lambda a, b: len(r.path(int(a), int(b))[0]) - 1  # noqa: E731 - one host per switch
    if traffic == "shift":
        half = pattern.active_count // 2
        expect = sum(0.5 * (hops(s, s % half) + hops(s, s % half + half)) for s in src)
    else:
        dst = pattern.destinations(src, make_rng(0))
        expect = sum(hops(s, d) for s, d in zip(src, dst))
    assert loads.load.sum() == pytest.approx(expect)


def test_cli_draw_with_loads(tmp_path, capsys):
    topo = tmp_path / "cube.json"
    formats.save(topo, hypercube(4))
    out = tmp_path / "load.png"
    assert main(["draw", str(topo), "--load", "--routing", "nr", "--ties", "lowest", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "busiest channel: switch 0 -> 1" in printed and "saturates at" in printed
    assert out.read_bytes()[:8] == PNG


def test_measured_loads_agree_with_the_routes(tmp_path, capsys):
    """The reference simulator's per-link counts, normalised by its accepted rate, give the
    map the routes imply (below saturation, within sampling noise)."""
    from topogen.plots.channel_load import measured_channel_loads

    r = route(hypercube(4), None, "nr", ties="lowest")
    expected = channel_loads(r)
    measured, row = measured_channel_loads(r, 0.2, seed=1, packet_size=1, vc_buf_size=8, link_latency=1)
    assert row["status"] == "completed"
    assert np.corrcoef(measured.load, expected.load)[0, 1] > 0.97
    # the busiest measured link is one of the links the routes load most (several tie)
    assert expected.load[measured.busiest] == expected.max_load
    assert abs(measured.max_load / expected.max_load - 1) < 0.1
    topo = tmp_path / "cube.json"
    formats.save(topo, hypercube(4))
    out = tmp_path / "measured.png"
    assert main(["draw", str(topo), "--load", "--ties", "lowest", "--measured", "0.2", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "measured at 0.2" in printed and "busiest channel: switch " in printed
    assert out.read_bytes()[:8] == PNG
    assert main(["draw", str(topo), "--measured", "0.2", "-o", str(tmp_path / "y.png")]) != 0
    assert "--measured needs --load" in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--color", "load"], "--load"),
    (["--load", "--traffic", "nope"], "--traffic"),
    (["-o_bad"], "must end in"),
])
def test_cli_draw_refuses_bad_input_in_one_line(tmp_path, capsys, argv, words):
    topo = tmp_path / "t.json"
    formats.save(topo, torus((3, 3)))
    out = ["-o", str(tmp_path / "x.txt")] if argv == ["-o_bad"] else ["-o", str(tmp_path / "x.png")]
    argv = [] if argv == ["-o_bad"] else argv
    assert main(["draw", str(topo), *argv, *out]) != 0
    err = capsys.readouterr().err
    assert err.startswith("topogen: error:") and err.count("\n") == 1 and words in err
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "x.txt").exists()


def test_cli_draw_missing_file(tmp_path, capsys):
    assert main(["draw", str(tmp_path / "none.json"), "-o", str(tmp_path / "x.png")]) != 0
    assert "does not exist" in capsys.readouterr().err


def test_cli_draw_a_routing_folder(tmp_path, capsys):
    topo = tmp_path / "cube.json"
    formats.save(topo, hypercube(4))
    assert main(["-q", "route", str(topo), "-a", "nr", "--ties", "lowest", "-o", str(tmp_path / "r")]) == 0
    capsys.readouterr()
    assert main(["draw", str(tmp_path / "r"), "--load", "-o", str(tmp_path / "r.svg")]) == 0
    assert "busiest channel: switch 0 -> 1" in capsys.readouterr().out  # the folder's lowest-id ties
    assert "busiest channel 0->1" in svg_text(tmp_path / "r.svg")
    # the folder's routing is drawn: routing options are refused, not ignored
    assert main(["draw", str(tmp_path / "r"), "--load", "--ties", "spread", "-o", str(tmp_path / "s.png")]) != 0
    assert "drop --ties" in capsys.readouterr().err and not (tmp_path / "s.png").exists()
    # a non-table routing has no channel loads: one line, no picture
    assert main(["-q", "route", str(topo), "-a", "valiant", "-o", str(tmp_path / "v")]) == 0
    capsys.readouterr()
    assert main(["draw", str(tmp_path / "v"), "--load", "-o", str(tmp_path / "v2.png")]) != 0
    err = capsys.readouterr().err
    assert err.startswith("topogen: error:") and "table routing" in err and err.count("\n") == 1
    assert not (tmp_path / "v2.png").exists()
