"""Tests of Skywalk(z, c, d_i, d_o) (Fujiwara et al., IPDPS 2014, II-B..II-D, III-G)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topogen import registry
from topogen.errors import ParameterError, TopologyError
from topogen.generators.skywalk import skywalk, skywalk_bounds, straight_first
from topogen.layout import Floor, place


def grid_of(c):
    """Independent grid: x = ceil(sqrt c) rows, y = ceil(c / x) columns (III-A)."""
    x = math.ceil(math.sqrt(c))
    y = math.ceil(c / x)
    k = np.arange(c)
    return x, y, k // y, k % y


def check_invariants(t, z, c, d_i, d_s, d_d):
    """Structural facts of II-B/II-C every Skywalk instance satisfies."""
    n = z * c
    assert t.num_switches == n
    assert np.array_equal(t.cabinet, np.arange(n) // z)
    x, y, row, col = grid_of(c)
    cab = t.edges // z
    kinds = t.kind_of_links()
    a, b = cab[:, 0], cab[:, 1]
    intra = kinds == "intra"
    straight = kinds == "straight"
    diagonal = kinds == "diagonal"
    # kinds respect their constraints
    assert np.all(a[intra] == b[intra])
    assert np.all(a[~intra] != b[~intra])
    assert np.all((row[a[straight]] == row[b[straight]]) | (col[a[straight]] == col[b[straight]]))
    assert np.all((row[a[diagonal]] != row[b[diagonal]]) & (col[a[diagonal]] != col[b[diagonal]]))
    # at most one cable between two cabinets
    inter = np.sort(cab[~intra], axis=1)
    assert len(np.unique(inter, axis=0)) == len(inter)
    # degrees: intra <= d_i, inter <= d_o = d_s + d_d, total <= d_i + d_o
    deg_intra = np.bincount(t.edges[intra].ravel(), minlength=n)
    deg_inter = np.bincount(t.edges[~intra].ravel(), minlength=n)
    assert deg_intra.max(initial=0) <= d_i
    assert deg_inter.max(initial=0) <= d_s + d_d
    assert t.degrees.max(initial=0) <= d_i + d_s + d_d
    # cabinet level: at most z * d_k links of kind k per cabinet
    for mask, d_k in ((straight, d_s), (diagonal, d_d)):
        per_cab = np.bincount(cab[mask].ravel(), minlength=c)
        assert per_cab.max(initial=0) <= z * d_k
    # cyclic endpoints: the T inter links of a cabinet take switches 0, 1, ..., z-1,
    # 0, 1, ... so switch j has T // z + (j < T % z) of them
    per_cab = np.bincount(cab[~intra].ravel(), minlength=c)
    j = np.arange(n) % z
    T = per_cab[np.arange(n) // z]
    assert np.array_equal(deg_inter, T // z + (j < T % z))


# --------------------------------------------------------------------------- bounds
def test_bounds_follow_section_2b():
    b = skywalk_bounds(8, 256)
    assert (b["rows"], b["columns"]) == (16, 16)
    assert b["intra_max"] == 7
    assert b["straight_max"] == math.ceil(30 / 8) == 4
    assert b["diagonal_max"] == math.ceil(15 * 15 / 8) == 29
    b = skywalk_bounds(4, 64)  # Fig. 2
    assert (b["rows"], b["columns"], b["straight_max"]) == (8, 8, 4)
    b = skywalk_bounds(8, 1000)
    assert (b["rows"], b["columns"]) == (32, 32)
    b = skywalk_bounds(8, 70)
    assert (b["rows"], b["columns"]) == (9, 8)


def test_straight_first_split_matches_section_3a():
    # III-A: d_s = d_o if d_o <= d_smax else d_smax, d_d = d_o - d_smax
    for d_o in range(0, 34):
        d_s, d_d = straight_first(d_o, 4, 29)
        assert (d_s, d_d) == ((d_o, 0) if d_o <= 4 else (4, d_o - 4))
    with pytest.raises(ParameterError, match=r"inter_degree must be an integer in \[0, 33\]"):
        straight_first(34, 4, 29)


# --------------------------------------------------------------------------- paper facts
def test_skywalk_8_256_7_4_degree_and_cable_length():
    """Skywalk III-B, Fig. 5: Skywalk(8, 256, 7, 4) has degree 11 and 59 km of cable.

    The paper's algorithm read literally (construction="rounds"), measured over 20
    seeds (best of 10 each): 10,428 links (sd 9.8; intra 6,615 of 7,168, straight
    3,812 of 3,840), 57.63 km (sd 0.064, range 57.50-57.73).  The check is our
    mean +- 0.35 km (5.5 sd).  The 1.4 km gap to the printed 59 km is systematic: a
    round leaves some switches of a cabinet unpaired, so 8 % of the intra links
    (and 0.7 % of the straight pairs) are never made; with every port filled
    (construction="saturate", the default, tested below) the total is exactly 59,072 m.
    """
    t = skywalk(8, 256, 7, 4, seed=3, construction="rounds")
    assert t.degree == 11
    assert t.is_connected()
    check_invariants(t, 8, 256, 7, 4, 0)
    lay = place(t, Floor.skywalk(256, 8))
    km = lay.total_cable_length / 1000
    assert abs(km - 57.63) < 0.35
    assert abs(km - 59) < 0.03 * 59  # within 3 % of the paper, gap explained above
    # independent cable total: 2 m per intra link, Manhattan + 4 m per straight link
    x, y, row, col = grid_of(256)
    cab = t.edges // 8
    kinds = t.kind_of_links()
    inter = cab[kinds != "intra"]
    manual = 2.0 * (kinds == "intra").sum() + (
        2.1 * np.abs(row[inter[:, 0]] - row[inter[:, 1]])
        + 0.6 * np.abs(col[inter[:, 0]] - col[inter[:, 1]]) + 4.0
    ).sum()
    assert lay.total_cable_length == pytest.approx(manual)


def test_saturating_construction_reproduces_59_km():
    """With every port filled the sub-topologies are complete: 7,168 intra links
    (2 m) and 3,840 straight cabinet pairs (44,736 m), 59,072 m = the paper's 59 km
    (same over 5 seeds: the saturated graph is the complete one)."""
    for s in range(2):
        t = skywalk(8, 256, 7, 4, seed=s, instances=1)  # the default construction
        assert t.link_counts() == {"intra": 7168, "straight": 3840, "diagonal": 0}
        lay = place(t, Floor.skywalk(256, 8))
        assert lay.total_cable_length == pytest.approx(59072.0)
        assert round(lay.total_cable_length / 1000) == 59
        # 30 straight partners per cabinet on 8 switches: cyclically 4,4,4,4,4,4,3,3
        assert t.degree == 11
        assert np.array_equal(np.bincount(t.degrees), [0] * 10 + [512, 1536])


def test_literal_cabinet_rounds_cannot_reach_degree_11():
    t = skywalk(8, 256, 7, 4, seed=1, cabinet_rounds="literal")
    check_invariants(t, 8, 256, 7, 4, 0)
    kinds = t.kind_of_links()
    # 4 rounds on cabinets: at most 4 straight links per cabinet, <= 1 per switch
    assert np.bincount((t.edges[kinds == "straight"] // 8).ravel(), minlength=256).max() <= 4
    assert t.degree <= 8
    assert t.params["cabinet_rounds"] == "literal"


def test_diagonal_links_with_straight_first():
    t = skywalk(4, 36, 3, 6, seed=2)  # 6 x 6 grid: d_smax = ceil(10/4) = 3
    assert (t.params["straight_degree"], t.params["diagonal_degree"]) == (3, 3)
    check_invariants(t, 4, 36, 3, 3, 3)
    assert t.link_counts()["diagonal"] > 0
    assert t.degree <= 9


def test_explicit_straight_and_diagonal_degrees():
    t = skywalk(4, 36, 2, straight_degree=0, diagonal_degree=2, seed=4)
    assert t.link_counts()["straight"] == 0
    assert t.params["inter_degree"] == 2
    check_invariants(t, 4, 36, 2, 0, 2)
    u = skywalk(4, 36, 2, 3, diagonal_degree=2, seed=4)
    assert (u.params["straight_degree"], u.params["diagonal_degree"]) == (1, 2)


# --------------------------------------------------------------------------- cable bound
def test_cable_bound_is_respected_and_shortens_cables():
    floor = Floor.skywalk(64, 4)
    l_max = floor.max_distance
    assert l_max == pytest.approx(7 * 2.1 + 7 * 0.6)  # 8 x 8 grid
    full = skywalk(4, 64, 3, 6, seed=5)
    bounded = skywalk(4, 64, 3, 6, cable_bound=0.5, seed=5)
    # 8 x 8 grid: d_smax = ceil(14 / 4) = 4, so d_o = 6 splits into 4 + 2
    assert (bounded.params["straight_degree"], bounded.params["diagonal_degree"]) == (4, 2)
    check_invariants(bounded, 4, 64, 3, 4, 2)
    lf = place(full, floor)
    lb = place(bounded, floor)
    inter_b = lb.cable_length[~lb.is_intra]
    assert inter_b.max() <= 0.5 * l_max + floor.inter_overhead + 1e-9
    assert lf.cable_length[~lf.is_intra].max() > 0.5 * l_max + floor.inter_overhead
    assert lb.total_cable_length < lf.total_cable_length


def test_cable_bound_r_1_is_the_original():
    a = skywalk(4, 64, 3, 6, seed=6)
    b = skywalk(4, 64, 3, 6, cable_bound=1.0, seed=6)
    assert np.array_equal(a.edges, b.edges)


# --------------------------------------------------------------------------- seeds
def test_determinism_and_seed_dependence():
    a = skywalk(4, 64, 3, 3, seed=11)
    b = skywalk(4, 64, 3, 3, seed=11)
    c = skywalk(4, 64, 3, 3, seed=12)
    assert np.array_equal(a.edges, b.edges)
    assert np.array_equal(a.link_kind, b.link_kind)
    assert not np.array_equal(a.edges, c.edges)
    assert a.seed == 11 and a.params["seed"] == 11
    # the recorded instance rebuilds the same topology, also through the registry
    again = registry.generate("skywalk", **a.params)
    assert np.array_equal(again.edges, a.edges)


def test_registry_parses_cli_strings():
    t = registry.generate(
        "skywalk", switches_per_cabinet="4", cabinets="16", intra_degree="3",
        inter_degree="2", seed="1",
    )
    assert t.name == "skywalk" and t.params["inter_degree"] == 2
    spec = registry.get("skywalk")
    assert {"switches_per_cabinet", "cabinets", "intra_degree", "inter_degree",
            "cable_bound", "instances", "hosts_per_switch", "seed"} <= {p.name for p in spec.params}


def test_native_placement_and_hosts():
    t = skywalk(4, 16, 3, 2, hosts_per_switch=3, seed=1)
    lay = place(t, Floor.skywalk(16, 4))
    assert lay.placement == "native"
    assert t.num_hosts == 3 * 64
    assert np.array_equal(lay.is_intra, t.kind_of_links() == "intra")


def test_disconnected_raises_topology_error():
    with pytest.raises(TopologyError, match="raise the degree"):
        skywalk(4, 16, 1, 0, seed=1)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(intra_degree=8, inter_degree=1), r"intra_degree must be an integer in \[0, 7\].*d_imax"),
        (dict(intra_degree=7, inter_degree=34), r"inter_degree must be an integer in \[0, 33\]"),
        (dict(intra_degree=7, straight_degree=5), r"straight_degree must be an integer in \[0, 4\].*d_smax"),
        (dict(intra_degree=7, straight_degree=1, diagonal_degree=30), r"diagonal_degree .*\[0, 29\]"),
        (dict(intra_degree=7, inter_degree=5, straight_degree=1, diagonal_degree=1), "inter_degree must equal"),
        (dict(intra_degree=7), "needs inter_degree"),
        (dict(intra_degree=7, inter_degree=4, cable_bound=0.0), r"cable_bound must be a number in \(0"),
        (dict(intra_degree=7, inter_degree=4, cable_bound=1.5), "cable_bound"),
        (dict(intra_degree=7, inter_degree=4, cabinet_rounds="twice"), "cabinet_rounds must be one of"),
        (dict(intra_degree=7, inter_degree=4, construction="x"), "construction must be one of"),
        (dict(intra_degree=7, inter_degree=4, instances=0), "instances"),
        (dict(intra_degree=-1, inter_degree=4), "intra_degree"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        skywalk(8, 256, seed=1, **kwargs)


def test_bad_sizes():
    with pytest.raises(ParameterError, match="switches_per_cabinet"):
        skywalk(0, 4, 0, 1, seed=1)
    with pytest.raises(ParameterError, match="cabinets"):
        skywalk(4, 0, 0, 1, seed=1)
    with pytest.raises(ParameterError, match="at least 2"):
        skywalk(1, 1, 0, 0, seed=1)


# --------------------------------------------------------------------------- property
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    z=st.integers(1, 5),
    c=st.integers(1, 14),
    data=st.data(),
)
def test_property_small_skywalks(z, c, data):
    if z * c < 2:
        return
    b = skywalk_bounds(z, c)
    d_i = data.draw(st.integers(0, b["intra_max"]))
    d_o = data.draw(st.integers(0, b["straight_max"] + b["diagonal_max"]))
    r = data.draw(st.sampled_from([1.0, 0.6]))
    construction = data.draw(st.sampled_from(["rounds", "saturate"]))
    seed = data.draw(st.integers(0, 2**32))
    d_s, d_d = straight_first(d_o, b["straight_max"], b["diagonal_max"])
    try:
        t = skywalk(z, c, d_i, d_o, cable_bound=r, construction=construction, instances=2, seed=seed)
    except TopologyError:
        return  # low degrees may leave every instance disconnected; that is reported
    assert t.is_connected()
    check_invariants(t, z, c, d_i, d_s, d_d)
    floor = Floor.skywalk(c, z)
    lay = place(t, floor)
    inter = lay.cable_length[~lay.is_intra]
    assert inter.max(initial=0) <= r * floor.max_distance + floor.inter_overhead + 1e-9
