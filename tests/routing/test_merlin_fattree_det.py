"""merlin.fattree's ``deterministic`` (fattree.cc ``route_deterministic``) on topogen's
k-ary n-tree: one route per host pair, the one merlin's own cabling gives; the crossval
native row of the fat tree compares merlin's deterministic routing with it."""

import itertools

import pytest

import topogen
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native_sst import crossval_native_sst, merlin_network, merlin_route
from topogen.routing import check, load_routing, route, save_routing
from topogen.routing.merlin_adaptive import MerlinFattreeRouting, merlin_routing
from topogen.routing.names import ALGORITHMS


def _phi(k, n):
    per = k ** (n - 1)
    return lambda m: (n - 1 - m // per) * per + m % per  # merlin router (from the leaves) -> topogen switch


@pytest.mark.parametrize("k,n", [(2, 3), (4, 2), (3, 3)])
def test_route_is_merlins_per_host_pair(k, n):
    """Every host pair's route is route_deterministic followed over merlin's cabling
    (merlin_route on pymerlin-topo-fattree.py's wiring), switch for switch; the deadlock
    check sees every route and finds none on the one VC."""
    t = topogen.generate("kary-ntree", k=k, n=n)
    r = route(t, None, "merlin-fattree-deterministic")
    assert isinstance(r, MerlinFattreeRouting) and r.num_vcs == 1 and r.host_routes
    assert not r.run_time_choices and r.algorithm == "merlin-fattree-deterministic"
    net = merlin_network("fattree", k, n, "deterministic")
    phi = _phi(k, n)
    for s, d in itertools.permutations(range(k ** n), 2):
        sw, vcs = r.draw_path(s, d, None)
        assert sw == [phi(h[0]) for h in merlin_route(net, s, d)]
        assert vcs == [0] * (len(sw) - 1)
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == 1


@pytest.mark.parametrize("k,n", [(4, 2), (3, 3)])
def test_path_set_is_the_routes_of_the_destination_hosts(k, n):
    """Between two leaves the routes are those to each host of the destination leaf (one
    per up port of the source leaf: the hosts' lowest digits differ), the set merlin's
    routes give from any host of the source leaf; topogen's nca, a table per destination
    switch, takes one route of that length."""
    t = topogen.generate("kary-ntree", k=k, n=n)
    r = route(t, None, "merlin-fattree-deterministic")
    nca = route(t, None, "nca")
    net = merlin_network("fattree", k, n, "deterministic")
    phi = _phi(k, n)
    per = k ** (n - 1)
    leaves = range((n - 1) * per, n * per)
    for a, b in itertools.permutations(leaves, 2):
        got = sorted(tuple(sw) for sw, _ in r.path_set(a, b))
        first_a, first_b = (a % per) * k, (b % per) * k
        want = sorted({tuple(phi(h[0]) for h in merlin_route(net, s, d))
                       for s in range(first_a, first_a + k) for d in range(first_b, first_b + k)})
        assert got == want and len(got) == k
        assert len(nca.path(a, b)[0]) == len(got[0])
    assert r.path_set(leaves[0], 0) == []  # a root holds no host: no packet goes there


def test_name_folder_and_errors(tmp_path):
    assert "merlin-fattree-deterministic" in ALGORITHMS
    t = topogen.generate("kary-ntree", k=2, n=2)
    r = merlin_routing(t, "merlin-fattree-deterministic")
    assert r.rule == "deterministic"
    save_routing(r, tmp_path / "r")
    back = load_routing(tmp_path / "r")
    assert back.algorithm == "merlin-fattree-deterministic" and not back.run_time_choices
    assert back.draw_path(0, 3, None) == r.draw_path(0, 3, None)
    with pytest.raises(ParameterError, match="adaptive, deterministic"):
        MerlinFattreeRouting(t, "nca")
    with pytest.raises(ParameterError, match="deterministic routing needs a kary-ntree"):
        route(topogen.generate("hyperx", dims=(3, 3)), None, "merlin-fattree-deterministic")
    with pytest.raises(ParameterError, match="exactly 1 VCs"):
        merlin_routing(t, "merlin-fattree-deterministic", num_vcs=2)


def test_native_row_compares_merlins_deterministic(tmp_path):
    """crossval --native fattree: merlin's deterministic against topogen's
    merlin-fattree-deterministic (no longer nca); nca stays reachable as topogen_routing,
    and a name topogen does not know is refused before anything runs."""
    net = merlin_network("fattree", 4, 2)
    assert net.native_routing == "deterministic" and net.routing == "merlin-fattree-deterministic"
    assert "route_deterministic" in net.note
    with pytest.raises(ParameterError, match="topogen_routing must be one of"):
        crossval_native_sst(tmp_path / "o", family="fattree", topogen_routing="ncaa", binary="/nonexistent")
