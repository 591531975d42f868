"""Long Hop on a hypercube (LH-HC) against the Slim Fly paper's structural facts
(Table II diameter 4-6 for 2^8..2^13, III-C bisection 3N/2, Table IV radix 19 at N = 8,192)
and independent computations (scipy BFS, brute-force cuts, coding bounds)."""

from math import comb

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from topogen import ParameterError, registry
from topogen.generators.longhop import long_hop, long_hop_generators, min_long_hops


def _ecc0(t) -> int:
    """Eccentricity of switch 0 by scipy's BFS (a Cayley graph is vertex-transitive)."""
    d = shortest_path(t.csr(), unweighted=True, indices=[0])[0]
    assert np.isfinite(d).all()
    return int(d.max())


def test_registered_and_sizes():
    t = registry.generate("long-hop", dimension="6")
    assert t.num_switches == 64 and t.num_hosts == 64
    assert t.params["long_hops"] == min_long_hops(6) == 4
    assert (t.degrees == 10).all() and t.num_links == 10 * 32


def test_table_iv_radix_at_8192():
    # Table IV: LH-HC, N = N_r = 8,192, radix 19 (HC: 14 = 13 + 1 endpoint port).
    t = long_hop(13, 5)
    assert t.num_switches == 8192 == t.num_hosts
    assert int(t.degrees.max()) + t.hosts_per_switch == 19
    assert int(t.degrees.min()) == 18
    # a simple graph: no link repeated
    e = np.sort(t.edges, axis=1)
    assert len(np.unique(e, axis=0)) == len(e) == 18 * 4096


@pytest.mark.parametrize("d,L", [(6, 4), (8, 5), (10, 4), (9, 6)])
def test_every_linear_cut_is_crossed_by_3N_over_2(d, L):
    # III-C: "LH-HC has the bandwidth of 3N/2".  Brute force over every cut u.x (u != 0):
    # count the links whose ends differ in parity, directly from the edge list.
    t = long_hop(d, L)
    e = t.edges
    u = np.arange(1, 1 << d, dtype=np.int64)[:, None]
    x = (e[:, 0] ^ e[:, 1])[None, :]
    parity = np.zeros(np.broadcast_shapes(u.shape, x.shape), dtype=np.int64)
    v = u & x
    while v.any():
        parity ^= v & 1
        v >>= 1
    crossing = parity.sum(axis=1)
    assert crossing.min() == 3 * t.num_switches // 2
    # the hypercube alone: N/2
    cube = long_hop_generators(d, L)[:d]
    assert min(sum(bin(int(w) & g).count("1") % 2 for g in cube) for w in u[:, 0]) == 1


@pytest.mark.parametrize("d", [8, 9, 10, 11, 12, 13])
def test_table_ii_diameter_4_to_6_with_5_long_hops(d):
    # Table II: LH-HC diameter 4-6 for 2^8 .. 2^13 endpoints (p = 1), D growing with N.
    D = _ecc0(long_hop(d, 5))
    assert 4 <= D <= 6
    # sphere-covering lower bound: 2^d <= sum_{i <= D} C(d + L, i)
    assert sum(comb(d + 5, i) for i in range(D + 1)) >= 1 << d
    if d > 8:
        assert D >= _ecc0(long_hop(d - 1, 5))


def test_smallest_code_at_2_11_leaves_table_ii():
    # With the fewest long hops (4) every weight >= 2 row of Z_2^4 is used: ker H is the
    # [15, 4] simplex code, whose covering radius is 2^3 - 1 = 7 (> Table II's 6).
    t = long_hop(11)
    assert t.params["long_hops"] == 4
    assert _ecc0(t) == 2 ** 3 - 1


def test_all_pairs_on_a_small_one_agree_with_vertex_transitivity():
    t = long_hop(7, 4)
    d = shortest_path(t.csr(), unweighted=True)
    assert np.isfinite(d).all() and d.max() == d[0].max()


def test_errors_say_the_valid_range():
    with pytest.raises(ParameterError, match="dimension"):
        long_hop(2)
    with pytest.raises(ParameterError, match=r"long_hops in 4\.\.6"):
        long_hop(6, 9)
    with pytest.raises(ParameterError, match="long_hops"):
        long_hop(6, 0)
    with pytest.raises(ParameterError, match="long_hops"):
        long_hop(6, 3)  # 2^3 - 3 - 1 = 4 < 6: no distance-3 code
