"""Tori, meshes, hypercubes, HyperX / flattened butterflies and Skywalk's cabinet versions.

Facts come from the papers (Skywalk III-A/B, layout-conscious III-A, Kim et al.'s k-ary
n-flat) and are cross-checked by independent constructions (networkx generators, brute
force over coordinates) on small instances.
"""

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.generators.classic import (
    cabinet_grid,
    cabinet_hypercube,
    cabinet_hyperx,
    cabinet_torus,
    flattened_butterfly,
    folded_hypercube,
    hypercube,
    hyperx,
    mesh,
    torus,
)
from topogen.layout import Floor, place


# ----------------------------------------------------------------------------- helpers
def edge_set(topo):
    return {tuple(map(int, e)) for e in topo.edges}


def canonical_id(coords, dims):
    """Dimension 0 fastest: v = i0 + d0*(i1 + d1*(i2 + ...)), written as a Horner loop."""
    v = 0
    for i, d in zip(reversed(coords), reversed(dims)):
        v = v * d + i
    return v


def nx_edges_by_coords(g, dims, reverse):
    """Edge set of a networkx graph whose nodes are coordinate tuples, mapped to our ids."""
    out = set()
    for a, b in g.edges():
        a, b = (a,) if np.ndim(a) == 0 else a, (b,) if np.ndim(b) == 0 else b
        ca = tuple(reversed(a)) if reverse else tuple(a)
        cb = tuple(reversed(b)) if reverse else tuple(b)
        u, v = canonical_id(ca, dims), canonical_id(cb, dims)
        out.add((min(u, v), max(u, v)))
    return out


def nx_diameter(topo):
    return nx.diameter(topo.to_networkx())


# ----------------------------------------------------------------------------- torus / mesh
TORUS_DIMS = [(5,), (3, 4), (2, 3, 4), (4, 4, 4), (2, 2), (8,), (3, 3, 3, 3), (6, 5)]


@pytest.mark.parametrize("dims", TORUS_DIMS)
def test_torus_matches_networkx_periodic_grid(dims):
    t = torus(dims)
    g = nx.grid_graph(dim=list(dims), periodic=True)  # node tuples list dimension 0 last
    assert t.num_switches == math.prod(dims) == g.number_of_nodes()
    assert edge_set(t) == nx_edges_by_coords(g, dims, reverse=True)


@pytest.mark.parametrize("dims", TORUS_DIMS + [(1, 5), (4, 1, 3)])
def test_torus_closed_forms(dims):
    t = torus(dims)
    n = math.prod(dims)
    per_dim_links = [n if s > 2 else (n // 2 if s == 2 else 0) for s in dims]
    assert t.num_links == sum(per_dim_links)
    assert t.degree == sum(2 if s > 2 else s - 1 for s in dims)
    assert np.all(t.degrees == t.degree)  # vertex-transitive
    assert nx_diameter(t) == sum(s // 2 for s in dims)
    assert t.link_counts() == {f"dim{k}": c for k, c in enumerate(per_dim_links)}


def test_torus_dimension_zero_fastest():
    t = torus((3, 4, 5))
    # switch (i0, i1, i2) = (1, 2, 3) is 1 + 3*(2 + 4*3) = 43
    v = 1 + 3 * (2 + 4 * 3)
    expected = {
        canonical_id(((1 + s) % 3, 2, 3), (3, 4, 5)) for s in (1, -1)
    } | {canonical_id((1, (2 + s) % 4, 3), (3, 4, 5)) for s in (1, -1)} | {
        canonical_id((1, 2, (3 + s) % 5), (3, 4, 5)) for s in (1, -1)
    }
    assert set(map(int, t.neighbors(v))) == expected
    kinds = dict(zip(map(tuple, t.edges.tolist()), t.kind_of_links()))
    assert kinds[(v - 1, v)] == "dim0"
    assert kinds[(v, v + 3)] == "dim1"
    assert kinds[(v, v + 12)] == "dim2"


@pytest.mark.parametrize("dims", [(5,), (3, 4), (2, 3, 4), (1, 4), (2, 2, 2)])
def test_mesh_matches_networkx_grid(dims):
    t = mesh(dims)
    g = nx.grid_graph(dim=list(dims))
    assert edge_set(t) == nx_edges_by_coords(g, dims, reverse=True)
    n = math.prod(dims)
    assert t.num_links == sum(n // s * (s - 1) for s in dims)
    assert nx_diameter(t) == sum(s - 1 for s in dims)


def test_side_two_torus_equals_mesh():
    # the wrap link of a side-2 ring coincides with the mesh link: one link, simple graph
    assert edge_set(torus((2, 3))) != edge_set(mesh((2, 3)))
    assert edge_set(torus((2, 2, 2))) == edge_set(mesh((2, 2, 2))) == edge_set(hypercube(3))


# ----------------------------------------------------------------------------- hypercubes
@pytest.mark.parametrize("d", [2, 3, 5, 8])
def test_hypercube_matches_networkx(d):
    t = hypercube(d)
    g = nx.hypercube_graph(d)  # node = tuple of d bits
    mapped = {
        tuple(sorted((sum(b << k for k, b in enumerate(a)), sum(b << k for k, b in enumerate(c)))))
        for a, c in g.edges()
    }
    assert edge_set(t) == mapped
    assert t.num_switches == 2**d
    assert t.num_links == d * 2 ** (d - 1)
    assert t.degree == d
    assert nx_diameter(t) == d


def test_hypercube_smallest():
    t = hypercube(0)
    assert t.num_switches == 1 and t.num_links == 0
    t = hypercube(1)
    assert t.num_switches == 2 and edge_set(t) == {(0, 1)}


@pytest.mark.parametrize("d", [2, 3, 4, 5, 6, 7])
def test_folded_hypercube_facts(d):
    t = folded_hypercube(d)
    n = 2**d
    assert t.num_switches == n
    assert np.all(t.degrees == d + 1)  # layout-conscious III-A: degree n + 1
    assert t.num_links == (d + 1) * 2 ** (d - 1)
    assert nx_diameter(t) == math.ceil(d / 2)
    # each switch is adjacent to its complement, its farthest vertex in the plain cube
    for v in range(n):
        assert t.has_link(v, v ^ (n - 1))
    cube = edge_set(hypercube(d))
    extra = edge_set(t) - cube
    assert len(extra) == n // 2 and all(u ^ v == n - 1 for u, v in extra)
    assert t.link_counts()["complement"] == n // 2


def test_folded_hypercube_two_is_k4():
    assert nx.is_isomorphic(folded_hypercube(2).to_networkx(), nx.complete_graph(4))


# ----------------------------------------------------------------------------- HyperX
HYPERX_DIMS = [(4,), (3, 4), (2, 3, 4), (4, 4), (5, 1, 3), (2, 2, 2, 2)]


@pytest.mark.parametrize("dims", HYPERX_DIMS)
def test_hyperx_is_hamming_graph(dims):
    t = hyperx(dims)
    coords = list(itertools.product(*(range(s) for s in dims)))
    expected = set()
    for a, b in itertools.combinations(coords, 2):
        if sum(x != y for x, y in zip(a, b)) == 1:
            u, v = canonical_id(a, dims), canonical_id(b, dims)
            expected.add((min(u, v), max(u, v)))
    assert edge_set(t) == expected
    # also: the cartesian product of complete graphs (networkx)
    g = nx.complete_graph(dims[0])
    for s in dims[1:]:
        g = nx.cartesian_product(g, nx.complete_graph(s))
    assert t.num_links == g.number_of_edges()
    assert t.degree == sum(s - 1 for s in dims)
    assert nx_diameter(t) == sum(s > 1 for s in dims)


def test_flattened_butterfly_kim_n_flat():
    # Kim et al.: a k-ary n-flat has k**(n-1) routers of radix n(k-1)+1 with k terminals
    for k, n in [(4, 2), (4, 3), (3, 4), (8, 2)]:
        t = flattened_butterfly(k, n)
        assert t.num_switches == k ** (n - 1)
        assert np.all(t.hosts == k)
        assert t.degree + k == n * (k - 1) + 1
        assert edge_set(t) == edge_set(hyperx((k,) * (n - 1)))
        assert t.name == "flattened-butterfly"


def test_flattened_butterfly_n_dim_li():
    # Li et al. Fig. 3: a 2-D flattened butterfly of 7x7 switches, diameter 2, 12 ports
    t = flattened_butterfly(7, 2, convention="n-dim")
    assert t.num_switches == 49 and t.degree == 12 and nx_diameter(t) == 2
    assert np.all(t.hosts == 1)
    assert edge_set(flattened_butterfly(3, 3, convention="n-dim")) == edge_set(hyperx((3, 3, 3)))


# ----------------------------------------------------------------------------- Skywalk III-A
def test_cabinet_torus_is_8x16x16():
    t = cabinet_torus(8, 256, 6)
    assert t.num_switches == 2048
    assert edge_set(t) == edge_set(torus((8, 16, 16)))
    assert np.all(t.degrees == 6)
    assert np.array_equal(t.cabinet, np.arange(2048) // 8)
    # the first dimension is the one inside a cabinet
    kinds = t.kind_of_links()
    intra = t.cabinet[t.edges[:, 0]] == t.cabinet[t.edges[:, 1]]
    assert np.array_equal(intra, kinds == "dim0")


@pytest.mark.parametrize("z,c,d,shape", [(4, 9, 4, (4, 9)), (3, 27, 8, (3, 3, 3, 3)), (5, 16, 6, (5, 4, 4)),
                                         (8, 256, 10, (8, 4, 4, 4, 4))])
def test_cabinet_torus_shapes(z, c, d, shape):
    t = cabinet_torus(z, c, d)
    assert edge_set(t) == edge_set(torus(shape))
    assert t.degree == d


def test_cabinet_torus_errors_name_valid_degrees():
    with pytest.raises(ParameterError, match=r"degree.*valid degrees for cabinets=256: 4, 6, 10"):
        cabinet_torus(8, 256, 8)  # 256**(1/3) is not an integer
    with pytest.raises(ParameterError, match="even"):
        cabinet_torus(8, 256, 7)
    with pytest.raises(ParameterError, match=r"degree must be an integer >= 4"):
        cabinet_torus(8, 256, 2)
    with pytest.raises(ParameterError, match="switches_per_cabinet must be an integer >= 3"):
        cabinet_torus(2, 256, 6)
    with pytest.raises(ParameterError, match="cabinets must be an integer >= 1"):
        cabinet_torus(8, 0, 6)


def test_cabinet_hypercube():
    t = cabinet_hypercube(8, 256)
    assert edge_set(t) == edge_set(hypercube(11))
    assert t.degree == 11 == math.ceil(math.log2(2048))
    assert np.array_equal(t.cabinet, np.arange(2048) // 8)
    with pytest.raises(ParameterError, match=r"power of two.*nearest valid cabinets: 128 or 256"):
        cabinet_hypercube(8, 250)
    with pytest.raises(ParameterError, match="switches_per_cabinet=6 is not a power of two"):
        cabinet_hypercube(6, 64)


@pytest.mark.parametrize("z,c", [(8, 256), (4, 12), (3, 6), (2, 20), (5, 1), (1, 9), (3, 2)])
def test_cabinet_hyperx_structure(z, c):
    t = cabinet_hyperx(z, c)
    x, y = cabinet_grid(c)
    assert x == math.ceil(math.sqrt(c)) and y == math.ceil(c / x) and x * y == c
    assert t.num_switches == z * c
    assert t.degree == x + y + z - 3  # Skywalk III-A
    assert np.all(t.degrees == x + y + z - 3)
    if z * c <= 100:
        # brute force from the description: same cabinet, or same position and same row/column
        floor = Floor.skywalk(c, z)
        cab = np.arange(z * c) // z
        pos = np.arange(z * c) % z
        row, col = floor.position(cab)
        expected = set()
        for u, v in itertools.combinations(range(z * c), 2):
            if cab[u] == cab[v] or (pos[u] == pos[v] and (row[u] == row[v] or col[u] == col[v])):
                expected.add((u, v))
        assert edge_set(t) == expected
        assert nx_diameter(t) == (z > 1) + (x > 1) + (y > 1)


def test_cabinet_hyperx_link_kinds_follow_the_floor():
    t = cabinet_hyperx(4, 12)
    floor = Floor.skywalk(12, 4)
    ra, ca = floor.position(t.cabinet[t.edges[:, 0]])
    rb, cb = floor.position(t.cabinet[t.edges[:, 1]])
    kinds = t.kind_of_links()
    assert np.array_equal(kinds == "intra", (ra == rb) & (ca == cb))
    assert np.array_equal(kinds == "row", (ra == rb) & (ca != cb))
    assert np.array_equal(kinds == "column", (ra != rb) & (ca == cb))


def test_cabinet_hyperx_rejects_partial_grid():
    with pytest.raises(ParameterError, match=r"cabinets=250.*Nearest valid cabinets: 240 or 256"):
        cabinet_hyperx(8, 250)
    with pytest.raises(ParameterError, match=r"Nearest valid cabinets: 2 or 4"):
        cabinet_hyperx(8, 3)


# ----------------------------------------------------------------------------- Skywalk III-B
def test_skywalk_total_cable_torus_hypercube_hyperx():
    """Skywalk III-B / Fig. 5: Torus 31 km, Hypercube 80 km, HyperX 372 km on 256 cabinets."""
    floor = Floor.skywalk(256, 8)
    assert (floor.rows, floor.columns) == (16, 16)
    w, dep, o, intra = 0.6, 2.1, 4.0, 2.0
    # hand derivations (16 x 16 grid, 8 switches per cabinet)
    torus_m = 2048 * intra + 128 * (15 * (w + o) + (15 * w + o)) + 128 * (15 * (dep + o) + (15 * dep + o))
    cube_m = 3 * 1024 * intra + 1024 * sum(w * 2**j + o for j in range(4)) + 1024 * sum(
        dep * 2**j + o for j in range(4)
    )
    # K16 along a row/column: sum over pairs of |i-j| = 680, 120 pairs
    pair_dist = sum(abs(i - j) for i, j in itertools.combinations(range(16), 2))
    assert pair_dist == 680
    hyperx_m = 256 * 28 * intra + 16 * 8 * (680 * w + 120 * o) + 16 * 8 * (680 * dep + 120 * o)
    cases = [
        (cabinet_torus(8, 256, 6), torus_m, 30848, 31),
        (cabinet_hypercube(8, 256), cube_m, 80384, 80),
        (cabinet_hyperx(8, 256), hyperx_m, 372224, 372),
    ]
    for topo, hand, exact, km in cases:
        total = place(topo, floor).total_cable_length
        assert hand == pytest.approx(exact, abs=1e-6)
        assert total == pytest.approx(exact, abs=1e-6)
        assert round(total / 1000) == km
    # sequential placement of the plain tori/hypercubes is the same layout
    assert place(torus((8, 16, 16)), floor, "sequential").total_cable_length == pytest.approx(30848)
    assert place(hypercube(11), floor, "sequential").total_cable_length == pytest.approx(80384)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: torus((4, 0)), r"dims\[1\] must be an integer >= 1"),
        (lambda: torus((4, -3)), r"dims\[1\] must be an integer >= 1"),
        (lambda: torus(()), "at least 1 dimension"),
        (lambda: mesh((2.5, 3)), r"dims\[0\] must be an integer"),
        (lambda: hyperx((0,)), r"dims\[0\] must be an integer >= 1"),
        (lambda: hyperx((70000, 70000)), "at most 2147483647"),
        (lambda: hypercube(-1), r"dimension must be an integer in \[0, 30\]"),
        (lambda: hypercube(31), r"dimension must be an integer in \[0, 30\]"),
        (lambda: folded_hypercube(1), r"dimension must be an integer in \[2, 30\]"),
        (lambda: torus((4, 4), hosts_per_switch=-1), "hosts_per_switch must be an integer >= 0"),
        (lambda: flattened_butterfly(1, 3), "k must be an integer >= 2"),
        (lambda: flattened_butterfly(4, 1), "n must be an integer >= 2"),
        (lambda: flattened_butterfly(4, 2, convention="bogus"), "convention must be"),
        (lambda: cabinet_hyperx(0, 4), "switches_per_cabinet must be an integer >= 1"),
    ],
)
def test_bad_input_raises_parameter_error(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


# ----------------------------------------------------------------------------- registry
@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("torus", {"dims": (3, 4)}),
        ("mesh", {"dims": (3, 4)}),
        ("hypercube", {"dimension": 4}),
        ("folded-hypercube", {"dimension": 4}),
        ("hyperx", {"dims": (3, 4)}),
        ("flattened-butterfly", {"k": 3, "n": 3}),
        ("cabinet-torus", {"switches_per_cabinet": 4, "cabinets": 9, "degree": 4}),
        ("cabinet-hypercube", {"switches_per_cabinet": 4, "cabinets": 8}),
        ("cabinet-hyperx", {"switches_per_cabinet": 4, "cabinets": 12}),
    ],
)
def test_registry_round_trip(name, kwargs):
    t = registry.generate(name, **kwargs)
    assert t.name == name and t.seed is None
    again = registry.generate(name, **t.params)
    assert edge_set(again) == edge_set(t)
    assert not registry.get(name).random


def test_registry_parses_cli_strings():
    t = registry.generate("cabinet-torus", switches_per_cabinet="8", cabinets="256", degree="6")
    assert t.params == {"switches_per_cabinet": 8, "cabinets": 256, "degree": 6, "hosts_per_switch": 1}
    assert registry.generate("torus", dims="8,16,16").num_switches == 2048
    assert registry.generate("hyperx", dims="7x7").degree == 12


def test_hosts_per_switch_recorded():
    t = hyperx((3, 3), hosts_per_switch=4)
    assert t.num_hosts == 36 and t.params["hosts_per_switch"] == 4


# ----------------------------------------------------------------------------- scale
def test_large_instances_build():
    """10^5-switch instances (their build time is in benchmarks/bench_structured.py)."""
    t1 = torus((10, 100, 100))
    t2 = hypercube(17)
    t3 = hyperx((32, 32, 32))
    assert t1.num_links == 3 * 100_000
    assert t2.num_links == 17 * 2**16
    assert t3.degree == 3 * 31
