"""The machine-room floor (Skywalk III-A) and placement of switches into cabinets."""

import math

import numpy as np
import pytest

from topogen import Topology
from topogen.errors import ParameterError
from topogen.generators.classic import cabinet_hyperx, cabinet_torus, hypercube, torus
from topogen.layout import Floor, Layout, default_floor, default_layout, place


# ----------------------------------------------------------------------------- grid
@pytest.mark.parametrize("c", [1, 2, 3, 4, 5, 7, 10, 17, 64, 100, 128, 250, 256, 1000, 1024, 4097])
def test_grid_shape_follows_skywalk(c):
    f = Floor.skywalk(c, 8)
    x = math.ceil(math.sqrt(c))  # rows
    y = math.ceil(c / x)  # columns
    assert (f.rows, f.columns) == (x, y)
    assert f.rows * f.columns >= c
    assert f.capacity == 8 * c


def test_cabinet_positions_are_row_major():
    f = Floor.skywalk(10, 4)  # 4 rows x 3 columns
    assert (f.rows, f.columns) == (4, 3)
    rows, cols = f.position(np.arange(10))
    assert rows.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    assert cols.tolist() == [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]


def test_explicit_grid_and_too_small_grid():
    f = Floor(12, 4, rows=2, columns=6)
    assert (f.rows, f.columns) == (2, 6)
    with pytest.raises(ParameterError, match="holds 10 cabinets, fewer than cabinets=12"):
        Floor(12, 4, rows=2, columns=5)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"cabinets": 0, "switches_per_cabinet": 8}, "cabinets must be an integer >= 1"),
        ({"cabinets": 4, "switches_per_cabinet": 0}, "switches_per_cabinet must be an integer >= 1"),
        ({"cabinets": 4, "switches_per_cabinet": 8, "cabinet_width": -1}, "cabinet_width must be a non-negative"),
        ({"cabinets": 4, "switches_per_cabinet": 8, "ns_per_meter": float("nan")}, "ns_per_meter"),
    ],
)
def test_floor_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        Floor(**kwargs)


# ----------------------------------------------------------------------------- cables
def test_cable_lengths_skywalk_model():
    f = Floor.skywalk(256, 8)  # 16 x 16
    # intra-cabinet cables are 2 m
    assert f.cable_length(5, 5) == pytest.approx(2.0)
    # Manhattan distance + 4 m overhead: 0.6 m between neighbours in a row ...
    assert f.cable_length(0, 1) == pytest.approx(0.6 + 4)
    # ... 2.1 m between neighbouring rows, and the two add up
    assert f.cable_length(0, 16) == pytest.approx(2.1 + 4)
    assert f.cable_length(0, 17) == pytest.approx(2.7 + 4)
    assert f.cable_length(0, 255) == pytest.approx(15 * 2.1 + 15 * 0.6 + 4)
    assert f.distance(3, 3) == 0
    # symmetric matrix with intra cable on the diagonal
    m = f.distance_matrix()
    assert m.shape == (256, 256)
    assert np.allclose(m, m.T)
    assert np.allclose(np.diag(m), 2.0)
    k = np.arange(256)
    manual = np.abs(k[:, None] // 16 - k[None, :] // 16) * 2.1 + np.abs(k[:, None] % 16 - k[None, :] % 16) * 0.6 + 4
    np.fill_diagonal(manual, 2.0)
    assert np.allclose(m, manual)


@pytest.mark.parametrize("c,expected", [(256, 15 * 2.1 + 15 * 0.6), (10, 3 * 2.1 + 2 * 0.6), (1, 0.0), (2, 2.1)])
def test_max_distance_is_floor_diagonal(c, expected):
    # l_max of Skywalk III-G: corner-to-corner Manhattan distance, overhead excluded
    f = Floor.skywalk(c, 8)
    assert f.max_distance == pytest.approx(expected)


def test_custom_cable_model_and_round_trip():
    f = Floor(4, 2, cabinet_width=1.0, cabinet_depth=3.0, intra_cable=1.5, inter_overhead=0.0, ns_per_meter=4.0)
    assert f.cable_length(0, 3) == pytest.approx(4.0)  # 2 x 2 grid: one row and one column away
    assert f.cable_length(1, 1) == pytest.approx(1.5)
    assert Floor.from_dict(f.to_dict()) == f


def test_for_switches_and_dsn():
    f = Floor.for_switches(2050, 8)
    assert f.cabinets == 257 and f.capacity >= 2050
    d = Floor.dsn(1024)
    assert d.switches_per_cabinet == 16 and d.cabinets == 64


# ----------------------------------------------------------------------------- placement
def test_sequential_placement_and_link_delay():
    t = torus((8, 4, 4))
    f = Floor.skywalk(16, 8)
    layout = place(t, f, "sequential")
    assert layout.placement == "sequential"
    assert np.array_equal(layout.cabinet, np.arange(128) // 8)
    # dimension-0 rings stay inside a cabinet
    assert np.array_equal(layout.is_intra, t.kind_of_links() == "dim0")
    assert np.allclose(layout.cable_length[layout.is_intra], 2.0)
    assert np.allclose(layout.link_delay, 5.0 * layout.cable_length)
    # explicit sum over links, computed from positions
    e = t.edges
    ca, cb = e[:, 0] // 8, e[:, 1] // 8
    rows, cols = f.position(np.arange(16))
    manual = np.where(ca == cb, 2.0, np.abs(rows[ca] - rows[cb]) * 2.1 + np.abs(cols[ca] - cols[cb]) * 0.6 + 4)
    assert layout.total_cable_length == pytest.approx(manual.sum())
    r, c = layout.cabinet_position()
    assert np.array_equal(r, rows[np.arange(128) // 8])


def test_auto_uses_native_when_present():
    t = cabinet_hyperx(4, 12)
    f = Floor.skywalk(12, 4)
    assert place(t, f).placement == "native"
    assert np.array_equal(place(t, f).cabinet, t.cabinet)
    assert place(hypercube(4), Floor.skywalk(4, 4)).placement == "sequential"


def test_native_without_cabinets_is_an_error():
    with pytest.raises(ParameterError, match="has no native placement; use placement 'sequential' or 'random'"):
        place(hypercube(3), Floor.skywalk(2, 4), "native")


def test_floor_too_small_is_an_error():
    with pytest.raises(ParameterError, match=r"2048 switches do not fit.*use at least 256 cabinets"):
        place(hypercube(11), Floor.skywalk(255, 8))


def test_bad_method_is_an_error():
    with pytest.raises(ParameterError, match="placement must be one of auto, sequential, native, random"):
        place(hypercube(3), Floor.skywalk(2, 4), "serpentine")


def test_random_placement_is_seeded_and_respects_capacity():
    t = hypercube(6)
    f = Floor.skywalk(10, 8)  # 80 slots for 64 switches
    a = place(t, f, "random", seed=7)
    b = place(t, f, "random", seed=7)
    c = place(t, f, "random", seed=8)
    assert a.seed == 7 and a.placement == "random"
    assert np.array_equal(a.cabinet, b.cabinet)
    assert not np.array_equal(a.cabinet, c.cabinet)
    assert np.bincount(a.cabinet, minlength=10).max() <= 8
    assert place(t, f, "random").seed is not None  # a drawn seed is recorded


def test_layout_rejects_overfull_and_out_of_range_cabinets():
    t = Topology(4, [(0, 1), (1, 2), (2, 3)])
    f = Floor.skywalk(2, 2)
    with pytest.raises(ParameterError, match="cabinet 0 holds 3 switches but the floor allows switches_per_cabinet=2"):
        Layout(t, f, [0, 0, 0, 1])
    with pytest.raises(ParameterError, match=r"cabinet indices must lie in \[0, 1\]"):
        Layout(t, f, [0, 0, 1, 2])
    with pytest.raises(ParameterError, match="one cabinet per switch"):
        Layout(t, f, [0, 1])
    ok = Layout(t, f, [0, 1, 0, 1])
    # two cabinets form x = ceil(sqrt(2)) = 2 rows of y = 1: one row apart, 2.1 m + 4 m
    assert ok.cable_length.tolist() == pytest.approx([6.1, 6.1, 6.1])


def test_default_floor_uses_generator_parameters():
    t = cabinet_torus(8, 256, 6)
    f = default_floor(t)
    assert (f.cabinets, f.switches_per_cabinet, f.rows, f.columns) == (256, 8, 16, 16)
    assert default_layout(t).total_cable_length == pytest.approx(30848)
    # without cabinet parameters: 8 switches per cabinet, as many cabinets as needed
    g = default_floor(hypercube(5))
    assert (g.cabinets, g.switches_per_cabinet) == (4, 8)
