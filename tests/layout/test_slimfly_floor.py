"""The Slim Fly rack floor and layout (Besta & Hoefler VI-A, VI-B)."""

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.polarfly import polarfly
from topogen.generators.slimfly import mms_generator_sets, router_coordinates, slimfly
from topogen.layout import place
from topogen.layout.slimfly import rack_grid, slimfly_floor, slimfly_layout


def test_floor_geometry_q19():
    f = slimfly_floor(19)
    assert (f.cabinets, f.switches_per_cabinet) == (19, 38)
    assert (f.rows, f.columns) == (5, 4)  # 4 x 4 racks + 3 on one side
    assert (f.cabinet_width, f.cabinet_depth, f.intra_cable, f.inter_overhead) == (1.0, 1.0, 1.0, 2.0)
    # Manhattan distance + 2 m per global link; 1 m inside a rack
    assert f.cable_length(0, 0) == 1.0
    assert f.cable_length(0, 1) == 1.0 + 2.0
    assert f.cable_length(0, 18) == (4 * 1.0 + 2 * 1.0) + 2.0  # rack 18: row 4, column 2


@pytest.mark.parametrize("n", range(1, 300))
def test_rack_grid(n):
    x, y, z = rack_grid(n)
    assert x * y + z == n and 0 <= z < x <= y
    assert x == int(np.floor(np.sqrt(n)))


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9, 19])
def test_paired_layout(q):
    t = slimfly(q)
    lay = slimfly_layout(t)
    s, x, _ = router_coordinates(np.arange(t.num_switches), q)
    assert np.array_equal(lay.cabinet, x)
    assert (np.bincount(lay.cabinet) == 2 * q).all()
    # each rack: both subgroups' Eq. (1)/(2) links plus q Eq. (3) links between them
    X, _ = mms_generator_sets(q)
    assert lay.is_intra.sum() == q * (q * len(X) + q)
    # every pair of racks is joined by 2q global cables (VI-A)
    e = t.edges[~lay.is_intra]
    pair = np.zeros((q, q), int)
    np.add.at(pair, (lay.cabinet[e[:, 0]], lay.cabinet[e[:, 1]]), 1)
    pair = pair + pair.T
    assert (pair[~np.eye(q, dtype=bool)] == 2 * q).all()
    # cable lengths recomputed from rack positions
    f = lay.floor
    ra, ca = divmod(lay.cabinet[t.edges[:, 0]], f.columns)
    rb, cb = divmod(lay.cabinet[t.edges[:, 1]], f.columns)
    manhattan = np.abs(ra - rb) + np.abs(ca - cb)
    assert np.allclose(lay.cable_length, np.where(lay.is_intra, 1.0, manhattan + 2.0))
    # native placement through the generic placer gives the same racks
    assert np.array_equal(place(t, slimfly_floor(q)).cabinet, lay.cabinet)


def test_subgroup_layout_q19():
    t = slimfly(19)
    lay = slimfly_layout(t, racks="subgroup")
    assert lay.floor.cabinets == 38 and (np.bincount(lay.cabinet) == 19).all()
    s, x, _ = router_coordinates(np.arange(t.num_switches), 19)
    assert np.array_equal(lay.cabinet, 2 * x + s)
    assert lay.is_intra.sum() == 2 * 19 * 19 * 10 // 2  # only Eq. (1)/(2) links stay inside
    assert (~lay.is_intra).sum() == 19**3


def test_errors():
    with pytest.raises(ParameterError, match="slimfly"):
        slimfly_layout(polarfly(5))
    with pytest.raises(ParameterError, match="racks"):
        slimfly_floor(5, racks="pods")
    with pytest.raises(ParameterError, match="nearest valid: 5, 7"):
        slimfly_floor(6)
    with pytest.raises(ParameterError, match="cabinets"):
        slimfly_layout(slimfly(7), slimfly_floor(5))
    with pytest.raises(ParameterError):
        rack_grid(0)


def test_floor_classmethod_and_roundtrip():
    from topogen.layout import Floor

    f = Floor.slimfly(7)
    assert f == slimfly_floor(7) and Floor.from_dict(f.to_dict()) == f
    assert (f.rows, f.columns) == (3, 3)  # 2 x 3 racks + 1 on one side
    assert slimfly_floor(7, rows=1, columns=7).max_distance == 6.0


def test_default_layout_of_a_slimfly_is_its_rack_floor():
    """`topogen generate slimfly` and `analyze` lay a Slim Fly out on the VI-A racks
    (same cabinets and cable total as slimfly_layout), unless cabinet sizes are given."""
    from topogen.layout import default_layout
    from topogen.layout.slimfly import slimfly_layout

    t = slimfly(7)
    ours, paper = default_layout(t), slimfly_layout(t)
    assert ours.floor == paper.floor
    assert np.array_equal(ours.cabinet, paper.cabinet)
    assert ours.total_cable_length == paper.total_cable_length
    generic = default_layout(t, switches_per_cabinet=14)
    assert generic.floor.name != paper.floor.name
