"""BookSim2's randomised flatfly routings, flatfly-xyyx (xyyx_flatfly) and flatfly-valiant
(valiant_flatfly): routes, draws and VC classes against an independent walk of
flatfly_onchip.cpp's rules through BookSim's channel table, and the channel dependency
graph against every path the routings can take."""

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import flatfly_channels
from topogen.routing import check, route
from topogen.routing.flatfly_booksim import flatfly_path, flatfly_valiant, flatfly_xyyx


def _ff(k, n=2, c=1):
    return registry.generate("flattened-butterfly", k=k, n=n, convention="n-dim", hosts_per_switch=c)


def _outport(dest_r, rid, k, n, yx=False):
    """flatfly_outport / flatfly_outport_yx without the node ports (gC = 0): the network
    output index of router rid toward router dest_r."""
    dims = range(n - 1, -1, -1) if yx else range(n)
    for d in dims:
        did, sid = (dest_r // k ** d) % k, (rid // k ** d) % k
        if did != sid:
            return (k - 1) * d - 1 + (did if did > sid else did + 1)
    raise AssertionError("same router")


def _bs_walk(s, d, k, yx=False):
    """Routers BookSim visits from s to d, one flatfly_outport per hop, read through the
    channel table of FlatFlyOnChip::_BuildNet (2-D)."""
    to = {(u, j): w for u, j, w in flatfly_channels(k).values()}
    hops = [s]
    while hops[-1] != d:
        hops.append(to[hops[-1], _outport(d, hops[-1], k, 2, yx)])
    return hops


def _bs_valiant(s, m, d, k):
    """(routers, VC half of each hop) of valiant_flatfly for intermediate router m: the
    phase turns to 1 at the intermediate's or the destination's router; phase 0 routes to
    m, phase 1 to d, the lower half in phase 0 and the upper half in phase 1."""
    to = {(u, j): w for u, j, w in flatfly_channels(k).values()}
    cur, ph, hops, vcs = s, 0, [s], []
    while True:
        if cur == m or cur == d:
            ph = 1
        if cur == d:
            return hops, vcs
        cur = to[cur, _outport(m if ph == 0 else d, cur, k, 2)]
        hops.append(cur)
        vcs.append(ph)


@pytest.mark.parametrize("k", [3, 4])
def test_both_orders_follow_booksims_outports(k):
    for s, d in itertools.product(range(k * k), repeat=2):
        assert flatfly_path((k, k), s, d, "xy") == _bs_walk(s, d, k)
        assert flatfly_path((k, k), s, d, "yx") == _bs_walk(s, d, k, yx=True)


def test_yx_is_descending_dimensions_in_three_dimensions():
    # (0, 0, 0) -> (1, 2, 2) on a 3x3x3: X first (1, 0, 0), (1, 2, 0); Y first (0, 0, 2), (0, 2, 2)
    dst = 1 + 3 * 2 + 9 * 2
    assert flatfly_path((3, 3, 3), 0, dst, "xy") == [0, 1, 7, dst]
    assert flatfly_path((3, 3, 3), 0, dst, "yx") == [0, 18, 24, dst]
    r = route(_ff(3, n=3), None, "flatfly-xyyx", seed=1)
    assert {tuple(r.path(0, dst)[0].tolist()) for _ in range(40)} == {(0, 1, 7, dst), (0, 18, 24, dst)}


def test_xyyx_draws_the_order_per_packet_and_its_vc_half():
    r = flatfly_xyyx(_ff(4), seed=2)
    rng = np.random.default_rng(3)
    for s, d in [(0, 15), (1, 2), (4, 12)]:  # two dimensions, the same row, the same column
        draws = [r.path(s, d, rng) for _ in range(400)]
        for vc in (0, 1):
            mine = [sw for sw, vcs in draws if (vcs == vc).all()]
            assert 150 < len(mine) < 250  # RandomInt(1) > 0: one half each
            assert all(sw.tolist() == _bs_walk(s, d, 4, yx=vc == 1) for sw in mine)
    assert r.num_vcs == 2 and r.deterministic is False


def test_valiant_intermediates_are_any_router():
    r = flatfly_valiant(_ff(3), seed=1)
    rng = np.random.default_rng(2)
    seen = {}
    for _ in range(4500):
        m = r.draw(0, 8, rng)
        seen[m] = seen.get(m, 0) + 1
    assert set(seen) == set(range(9))  # the source's and the destination's routers included
    assert min(seen.values()) > 4500 / 9 * 0.8


@pytest.mark.parametrize("k", [3, 4])
def test_valiant_paths_and_phases_are_booksims(k):
    """Every (source, intermediate, destination): the routers and VC halves of a walk of
    valiant_flatfly, including the phase-0 path that stops at the destination router."""
    r = flatfly_valiant(_ff(k), seed=1)
    stopped = 0
    for s, m, d in itertools.product(range(k * k), repeat=3):
        if s == d:
            continue
        hops, vcs = _bs_valiant(s, m, d, k)
        sw, got = r.path_via(s, m, d)
        assert sw.tolist() == hops and got.tolist() == vcs, (s, m, d)
        stopped += m != d and d in flatfly_path((k, k), s, m)[1:-1]
    assert stopped > 0  # the early stop was exercised


def test_valiant_leaves_a_packet_to_its_own_router_unrouted():
    """valiant_flatfly finds the destination on the source router and ejects at once."""
    from topogen.sim import SimConfig
    from topogen.sim.network import Network

    r = flatfly_valiant(_ff(3, c=4), seed=1)
    rng = np.random.default_rng(1)
    assert all(r.path(4, 4, rng)[0].tolist() == [4] for _ in range(30))
    net = Network(r, SimConfig(num_vcs=4))
    assert all(net.route(4, 4, rng) == ((), ()) for _ in range(10))


def _brute_deps(r, one_vc=False):
    """Dependencies of every path the routing can take."""
    n, v = r.num_switches, r.num_vcs
    deps = set()
    paths = []
    for s, d in itertools.product(range(n), repeat=2):
        if s == d:
            continue
        if r.kind == "flatfly-xyyx":
            paths += [r.path_order(s, d, "xy"), r.path_order(s, d, "yx")]
        else:
            paths += [r.path_via(s, m, d) for m in range(n)]
    for sw, vcs in paths:
        e = r.view.entry(sw[:-1], sw[1:]).astype(np.int64)
        ch = e * v + (0 if one_vc else vcs.astype(np.int64))
        deps.update(zip(ch[:-1].tolist(), ch[1:].tolist()))
    return deps


@pytest.mark.parametrize("algorithm", ["flatfly-xyyx", "flatfly-valiant"])
def test_cdg_covers_every_path_and_is_acyclic(algorithm):
    r = route(_ff(3), None, algorithm, seed=1)
    (_, a, b), = list(r.dependency_chunks())
    superset = set(zip(a.tolist(), b.tolist()))
    brute = _brute_deps(r)
    assert brute <= superset
    assert check(r).acyclic
    assert nx.is_directed_acyclic_graph(nx.DiGraph(list(superset)))
    # the VC classes are what makes it deadlock-free: the same paths on one VC close a cycle
    assert not nx.is_directed_acyclic_graph(nx.DiGraph(list(_brute_deps(r, one_vc=True))))


def test_refuses_other_networks_and_vc_counts():
    with pytest.raises(ParameterError, match="flattened butterfly"):
        route(registry.generate("torus", dims=(4, 4)), None, "flatfly-valiant")
    with pytest.raises(ParameterError, match="2 routing VCs"):
        route(_ff(4), None, "flatfly-xyyx", vcs=4)
    assert route(registry.generate("hyperx", dims=(3, 4)), None, "flatfly-valiant").dims == (3, 4)


def test_the_reference_simulator_runs_both():
    from topogen.sim import SimConfig, simulate

    t = _ff(3, c=2)
    for algorithm in ("flatfly-xyyx", "flatfly-valiant"):
        r = route(t, None, algorithm, seed=1)
        res = simulate(r, load=0.05, load_unit="flits", seed=1,
                       config=SimConfig(num_vcs=4, packet_size=4))
        assert res["status"] == "completed", res
