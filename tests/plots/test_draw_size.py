"""`draw --size WxH --dpi N`, and a default that grows with the network so a 256-switch
floor shows its switches."""

from __future__ import annotations

import struct

import pytest

import topogen
from topogen.cli import main
from topogen.errors import ParameterError
from topogen import formats
from topogen.plots.floor import draw_floor, parse_size


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _file(tmp_path, name, topology, **layout):
    path = tmp_path / f"{name}.json"
    formats.save(path, topology, topogen.layout.default_layout(topology, **layout))
    return path


@pytest.fixture
def nets(tmp_path):
    from topogen.generators.classic import hypercube

    small = _file(tmp_path, "small", hypercube(4))           # 16 switches
    big = _file(tmp_path, "big", hypercube(8))               # 256 switches
    return small, big


def test_default_grows_with_the_network(nets, tmp_path, capsys):
    small, big = nets
    for src in nets:
        assert main(["draw", str(src), "-o", str(tmp_path / f"{src.stem}.png")]) == 0
    ws, hs = png_size(tmp_path / "small.png")
    wb, hb = png_size(tmp_path / "big.png")
    assert wb >= 1.8 * ws and wb >= 2000  # 256 switches: about 2,700 px wide, not 890
    assert hb > hs


def test_size_and_dpi_options(nets, tmp_path, capsys):
    _, big = nets
    sizes = {}
    for name, extra in (("a", ["--size", "8x4", "--dpi", "100"]), ("b", ["--size", "16x8", "--dpi", "100"]),
                        ("c", ["--size", "16x8", "--dpi", "200"])):
        out = tmp_path / f"{name}.png"
        assert main(["draw", str(big), "-o", str(out), *extra]) == 0
        sizes[name] = png_size(out)
    assert sizes["a"][0] <= 800 + 20
    assert sizes["b"][0] > 1.7 * sizes["a"][0]
    assert sizes["c"][0] > 1.8 * sizes["b"][0]


def test_bad_size_and_dpi_are_refused_before_the_work(nets, tmp_path, capsys):
    small, _ = nets
    for extra, want in ((["--size", "10"], "--size is WIDTHxHEIGHT"), (["--size", "0x4"], "--size is WIDTHxHEIGHT"),
                        (["--size", "axb"], "--size is WIDTHxHEIGHT"), (["--dpi", "0"], "--dpi must be")):
        assert main(["draw", str(small), "-o", str(tmp_path / "x.png"), *extra]) != 0
        assert want in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
    assert parse_size("24x10") == (24.0, 10.0)
    t = formats.load(small)
    with pytest.raises(ParameterError, match="pixels"):
        draw_floor(t[1], tmp_path / "y.png", size=(200, 200), dpi=1200)
