"""BookSim2's two-phase mesh routings, romm (romm_mesh) and valiant-booksim (valiant_mesh):
paths, intermediates and VC phases against an independent reading of routefunc.cpp, and
the channel dependency graph against a brute-force enumeration of every path."""

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.routing import check, route
from topogen.routing.romm import dor_mesh_path, romm, valiant_booksim


def _mesh(*dims):
    return registry.generate("mesh", dims=dims, hosts_per_switch=1)


def _coords(i, dims):
    out = []
    for k in dims:
        out.append(i % k)
        i //= k
    return out


def _bs_next(cur, dest, k, n):
    """routefunc.cpp's dor_next_mesh (ascending), port 2d to +k^d, 2d+1 to -k^d."""
    if cur == dest:
        return None
    c, d = cur, dest
    dim = 0
    while dim < n - 1:
        if c % k != d % k:
            break
        c //= k
        d //= k
        dim += 1
    port = 2 * dim if c % k < d % k else 2 * dim + 1
    step = k ** dim
    return cur + step if port % 2 == 0 else cur - step


@pytest.mark.parametrize("k,n", [(4, 2), (3, 3)])
def test_segments_follow_booksims_dor_next_mesh(k, n):
    for s, d in itertools.product(range(k ** n), repeat=2):
        path = [s]
        while path[-1] != d:
            path.append(_bs_next(path[-1], d, k, n))
        assert dor_mesh_path((k,) * n, s, d) == path


def test_romm_intermediates_fill_the_minimal_quadrant_and_paths_are_minimal():
    t = _mesh(5, 4)
    r = romm(t, seed=3)
    rng = np.random.default_rng(7)
    src, dst = 1 + 5 * 3, 4 + 5 * 0  # (1, 3) -> (4, 0)
    seen = {}
    for _ in range(3000):
        m = r.draw_intermediate(src, dst, rng)
        seen[m] = seen.get(m, 0) + 1
    quadrant = {x + 5 * y for x in range(1, 5) for y in range(0, 4)}
    assert set(seen) == quadrant  # the closed ranges: RandomInt(dist) is inclusive
    assert min(seen.values()) > 3000 / len(quadrant) * 0.6
    for s, d in itertools.product(range(20), repeat=2):
        sw, vcs = r.path(s, d, rng)
        a, b = _coords(s, (5, 4)), _coords(d, (5, 4))
        assert len(sw) - 1 == sum(abs(x - y) for x, y in zip(a, b))


def test_valiant_booksim_draws_any_router_source_and_destination_included():
    t = _mesh(3, 3)
    r = valiant_booksim(t, seed=1)
    rng = np.random.default_rng(2)
    seen = {r.draw_intermediate(0, 8, rng) for _ in range(2000)}
    assert seen == set(range(9))


def test_phase_vcs():
    t = _mesh(4, 4)
    r = valiant_booksim(t, seed=1)
    sw, vcs = r.path_via(0, 10, 3)  # 0 -> (2,2) -> (3,0)
    assert sw.tolist() == [0, 1, 2, 6, 10, 11, 7, 3]
    assert vcs.tolist() == [0, 0, 0, 0, 1, 1, 1]
    sw, vcs = r.path_via(5, 5, 7)  # the intermediate is the source: phase 1 throughout
    assert vcs.tolist() == [1, 1]
    sw, vcs = r.path_via(5, 7, 7)  # ... the destination: phase 0 throughout
    assert vcs.tolist() == [0, 0]


def _brute_deps(r, vc_of=lambda vc: vc):
    v = r.num_vcs
    n = r.num_switches
    deps = set()
    for s, m, d in itertools.product(range(n), repeat=3):
        if s == d:
            continue
        if r.kind == "romm":  # only intermediates in the quadrant
            a, b, c = _coords(s, r.dims), _coords(m, r.dims), _coords(d, r.dims)
            if any(not min(x, z) <= y <= max(x, z) for x, y, z in zip(a, b, c)):
                continue
        sw, vcs = r.path_via(s, m, d)
        e = r.view.entry(sw[:-1], sw[1:]).astype(np.int64)
        ch = e * v + np.array([vc_of(int(x)) for x in vcs], dtype=np.int64)
        deps.update(zip(ch[:-1].tolist(), ch[1:].tolist()))
    return deps


@pytest.mark.parametrize("algorithm", ["romm", "valiant-booksim"])
def test_cdg_covers_every_path_and_is_acyclic(algorithm):
    r = route(_mesh(3, 3), None, algorithm, seed=1)
    assert r.num_vcs == 2
    (_, a, b), = list(r.dependency_chunks())
    superset = set(zip(a.tolist(), b.tolist()))
    brute = _brute_deps(r)
    assert brute <= superset
    rep = check(r)
    assert rep.acyclic
    assert nx.is_directed_acyclic_graph(nx.DiGraph(list(brute)))


def test_one_vc_for_both_phases_would_deadlock():
    """The phase split is what makes it deadlock-free: the same paths on one VC close a
    cycle (valiant's Y-then-X segment followed by an X segment)."""
    r = valiant_booksim(_mesh(3, 3), seed=1)
    one = _brute_deps(r, vc_of=lambda vc: 0)
    assert not nx.is_directed_acyclic_graph(nx.DiGraph(list(one)))


def test_refuses_other_networks_and_vc_counts():
    with pytest.raises(ParameterError, match="mesh"):
        route(registry.generate("torus", dims=(4, 4)), None, "romm")
    with pytest.raises(ParameterError, match="2 routing VCs"):
        route(_mesh(4, 4), None, "romm", vcs=4)


def test_a_packet_to_its_own_router_goes_through_the_intermediate():
    """BookSim's uniform traffic sends a node packets to itself and valiant_mesh routes
    them out to the intermediate and back; the simulator asks the routing for them."""
    from topogen.sim import SimConfig
    from topogen.sim.network import Network

    t = _mesh(4, 4)
    rng = np.random.default_rng(5)
    v = valiant_booksim(t, seed=1)
    loops = [v.path(6, 6, rng) for _ in range(200)]
    assert any(len(sw) > 1 for sw, _ in loops)
    for sw, vcs in loops:
        assert sw[0] == sw[-1] == 6
        mid = int(np.flatnonzero(vcs == 1)[0]) if (vcs == 1).any() else len(vcs)
        assert vcs.tolist() == [0] * mid + [1] * (len(vcs) - mid)
    assert all(len(romm(t, seed=1).path(6, 6, rng)[0]) == 1 for _ in range(20))
    net = Network(v, SimConfig(num_vcs=4))
    assert any(len(net.route(6, 6, rng)[0]) > 0 for _ in range(50))
