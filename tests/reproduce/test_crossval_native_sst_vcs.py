"""merlin's own VC rules on topogen's routes (topogen.routing.merlin_vcs): the VCs of
torus.cc / mesh.cc (toggle at coordinate 0) and dragonfly.cc (after the global link),
pair by pair against the walk of route_packet, and their deadlock check."""

import itertools

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native_sst import merlin_network, merlin_route, merlin_torus_route
from topogen.routing import check, route
from topogen.routing.merlin_vcs import MerlinVcRouting, merlin_vcs
from topogen.routing.ugal_booksim import dragonfly_min


def _all_pairs(r):
    n = r.num_switches
    s, d = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    return r.route_matrix(s, d)


@pytest.mark.parametrize("family,dims", [("torus", (4, 4)), ("torus", (5, 3)), ("torus", (4, 3, 3)),
                                         ("mesh", (4, 4)), ("mesh", (3, 3, 3))])
def test_toggle_is_merlins(family, dims):
    t = registry.generate(family, dims=dims)
    r = merlin_vcs(route(t, None, "dor", vcs=2 if family == "torus" else None), "toggle")
    n = t.num_switches
    _, vcs = _all_pairs(r)
    net = merlin_network(family, dims[0], len(dims)) if len(set(dims)) == 1 else None
    for s, d in itertools.permutations(range(n), 2):
        sw, v = r.path(s, d)
        if family == "torus":
            want = [h[2] for h in merlin_torus_route(dims, s, d)]
        elif net is not None:
            want = [h[2] for h in merlin_route(net, s, d)][:-1]
        else:
            continue
        assert list(v) == want, (s, d)
        assert [x for x in vcs[:, s * n + d] if x >= 0] == want
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == 2


def test_after_global_is_merlins():
    net = merlin_network("dragonfly", 2, 1)
    t = registry.generate("dragonfly", a=4, p=2, h=2, arrangement="absolute", global_port_order="router")
    r = merlin_vcs(dragonfly_min(t, 2), "after-global")
    n = t.num_switches
    _, vcs = _all_pairs(r)
    for s, d in itertools.permutations(range(n), 2):
        want = [h[2] for h in merlin_route(net, 2 * s, 2 * d)][:-1]
        assert list(r.path(s, d)[1]) == want
        assert [x for x in vcs[:, s * n + d] if x >= 0] == want
    # the base (BookSim's min) puts the global hop itself on VC 1: they differ there
    assert list(dragonfly_min(t, 2).path(0, 5)[1]) != list(r.path(0, 5)[1])
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == 2


def test_the_check_follows_the_rule():
    """Without the toggle (no router at coordinate 0) the torus routes run on one VC and
    the check finds the ring's cycle: it reads the rule, not the base's dateline."""
    t = registry.generate("torus", dims=(4, 4))
    base = route(t, None, "dor", vcs=2)
    flat = MerlinVcRouting(base, "toggle", zero_at=np.zeros((16, 2), bool))
    rep = check(flat)
    assert not rep.acyclic and rep.vcs_used == 1


def test_rules_are_refused_where_they_do_not_apply():
    t = registry.generate("torus", dims=(4, 4))
    df = registry.generate("dragonfly", a=4, p=2, h=2, arrangement="absolute", global_port_order="router")
    with pytest.raises(ParameterError, match="must be one of toggle, after-global"):
        merlin_vcs(route(t, None, "dor", vcs=2), "dateline")
    with pytest.raises(ParameterError, match="links of kind 'global'"):
        merlin_vcs(route(t, None, "dor", vcs=2), "after-global")
    with pytest.raises(ParameterError, match="torus or mesh"):
        merlin_vcs(dragonfly_min(df, 2), "toggle")


def test_toggle_flips_the_incoming_vc():
    """torus.cc toggles route_packet's vc argument (the VC the packet came in on), after
    setting the reset one: on a 4x4 torus from (3,0) to (1,1) the packet wraps 3 -> 0 on
    VC 0, leaves x = 0 on VC 1, and turns into y at y = 0 having come in on VC 1: it
    leaves on 1 ^ 1 = VC 0 (toggling the reset VC would give VC 1)."""
    assert merlin_torus_route((4, 4), 3, 5) == [(3, 0, 0), (0, 0, 1), (1, 2, 0)]
    t = registry.generate("torus", dims=(4, 4))
    r = merlin_vcs(route(t, None, "dor", vcs=2), "toggle")
    assert list(r.path(3, 5)[1]) == [0, 1, 0]
    mesh = merlin_network("mesh", 4, 2)
    # mesh.cc has the same code: (1,0) -> (0,0) -> (0,1) turns at y = 0 having come in on VC 0
    assert [h[2] for h in merlin_route(mesh, 1, 4)] == [0, 1, 1]
