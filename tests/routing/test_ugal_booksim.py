"""ugal-booksim: BookSim2 dragonflynew's ugal (dragonfly.cpp's ugal_dragonflynew) on
topogen's dragonfly: paths and VC phases, the choice rule, the channel dependency graph
against a brute-force enumeration, saving, and the reference simulator's choice."""

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.routing import check, load_routing, route
from topogen.routing.deadlock import cdg
from topogen.routing.ugal_booksim import THRESHOLD, dragonfly_min, ugal_booksim
from topogen.sim import SimConfig, simulate


def _dragonfly(p):
    return registry.generate("dragonfly", a=2 * p, p=p, h=p, arrangement="absolute", global_port_order="router")


def _groups(sw, a):
    return [int(x) // a for x in sw]


def test_paths_and_phases():
    t = _dragonfly(2)
    r = route(t, None, "ugal-booksim", seed=1)
    assert r.num_vcs == 3 and r.algorithm == "ugal-booksim"
    a = 4
    dmin = dragonfly_min(t)
    for s in range(t.num_switches):
        for d in range(t.num_switches):
            if s == d:
                continue
            sw, vcs = r.path(s, d)
            g = _groups(sw, a)
            if g[0] == g[-1]:  # same group: the direct link, phase 2
                assert len(sw) == 2 and list(vcs) == [2]
                continue
            # minimal: local, global, local at most; VC 1 before the global hop, 2 from it on
            hop = [i for i in range(len(g) - 1) if g[i] != g[i + 1]]
            assert len(hop) == 1 and len(sw) <= 4
            assert list(vcs) == [1] * hop[0] + [2] * (len(vcs) - hop[0])
            # the same switches as BookSim's min (dragonfly_min)
            assert list(dmin.path(s, d)[0]) == list(sw)
    sw, vcs = r.path_via(0, 13, 30)
    assert sw[0] == 0 and 13 in sw and sw[-1] == 30
    cut = list(sw).index(13)
    assert set(vcs[:cut]) == {0} and list(vcs[cut:]) == list(r.phase_vcs(sw[cut:], 1))


def test_choice_rule():
    r = ugal_booksim(_dragonfly(2))
    # 0 and 3 share group 0; 30 is in group 7, 13 in group 3
    assert r.choose(0, 3, 13, 10 ** 6, 0)  # destination in the source group: minimal
    assert r.choose(0, 30, 2, 10 ** 6, 0)  # intermediate in the source group: minimal
    assert r.choose(0, 30, 13, 2 * 5 + THRESHOLD, 5)  # q_min <= 2 q_nonmin + 30
    assert not r.choose(0, 30, 13, 2 * 5 + THRESHOLD + 1, 5)


def test_errors():
    with pytest.raises(ParameterError, match="exactly 3 VCs"):
        route(_dragonfly(2), None, "ugal-booksim", vcs=6)
    with pytest.raises(ParameterError, match="dragonfly topology"):
        ugal_booksim(registry.generate("torus", dims=(4, 4)))
    # fewer groups than a h + 1: some global ports unused, still one link per pair of groups
    assert ugal_booksim(registry.generate("dragonfly", a=4, p=2, h=2, groups=5)).num_vcs == 3



def _brute_dependencies(r):
    """Every (channel, next channel) of every path a packet can take, from path() and
    path_via() (not from dependency_chunks)."""
    v, view = r.num_vcs, r.view
    n = r.num_switches
    g = r.group_of
    deps = set()

    def add(sw, vcs):
        e = view.entry(np.asarray(sw[:-1]), np.asarray(sw[1:]))
        ch = [int(x) * v + int(c) for x, c in zip(e, vcs)]
        deps.update(zip(ch, ch[1:]))

    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            add(*r.path(s, d))  # minimal from the source
            for m in range(n):
                if g[m] != g[s] and m != d:
                    add(*r.path_via(s, m, d))
            # minimal after an intermediate inside the destination's group: phase 1
            sw, _ = r.base.path(s, d)
            add(sw, r.phase_vcs(sw, 1))
    return deps


@pytest.mark.parametrize("p", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_dependency_graph_is_every_path(p):
    r = ugal_booksim(_dragonfly(p))
    used, keys, c = cdg(r)
    mine = {(int(k) // c, int(k) % c) for k in keys}
    assert mine == _brute_dependencies(r)


def test_cdg_cycle_on_vc0():
    """Phase 0 runs local hops on VC 0 before a global hop (source group) and after one
    (intermediate group): the VC-0 dependencies close a cycle; min's dateline does not."""
    t = _dragonfly(2)
    rep = check(ugal_booksim(t))
    assert not rep.acyclic and rep.vcs_used == 3
    assert {vc for _, _, vc in rep.cycle} == {0}
    a = 4
    assert sum(u // a != w // a for u, w, _ in rep.cycle) >= 2  # it crosses groups and comes back
    assert check(dragonfly_min(t)).acyclic


def test_saved_and_loaded(tmp_path):
    r = ugal_booksim(_dragonfly(2), seed=5, threshold=12)
    r.save(tmp_path / "r")
    back = load_routing(tmp_path / "r")
    assert type(back).__name__ == "UgalBooksimRouting"
    assert (back.threshold, back.seed, back.num_vcs) == (12, 5, 3)
    assert [list(x) for x in back.path(0, 30)] == [list(x) for x in r.path(0, 30)]


def test_simulator_choice():
    """Low uniform load: minimal paths only (hops as the minimal table's); group-adversarial
    traffic at high load: non-minimal paths are taken (more hops) and the compiled engine
    hands the routing to the Python engine."""
    from topogen.sim._compiled import compiled_covers
    from topogen.sim.network import Network

    t = _dragonfly(2)
    r = ugal_booksim(t, seed=1)
    cfg = SimConfig(num_vcs=3, link_latency=1, packet_size=1, max_samples=4, warmup_periods=2)
    assert "Python engine" in compiled_covers(Network(r, cfg))
    low = simulate(r, traffic="uniform", load=0.02, load_unit="flits", seed=1, config=cfg)
    ref = simulate(dragonfly_min(t, 3), traffic="uniform", load=0.02, load_unit="flits", seed=1, config=cfg)
    assert low["hops_avg"] == pytest.approx(ref["hops_avg"], rel=0.03)
    # every host of group i sends to the same position in group i + 1 (8 hosts a group);
    # buffers of 32 flits, so that a port's used credits (up to 96) can pass the bias of 30
    cfg = SimConfig(num_vcs=3, vc_buf_size=32, link_latency=1, packet_size=4, max_samples=4, warmup_periods=2)
    adv = simulate(r, traffic="shift:8", load=0.1, load_unit="flits", seed=1, config=cfg)
    mn = simulate(dragonfly_min(t, 3), traffic="shift:8", load=0.1, load_unit="flits", seed=1, config=cfg)
    assert adv["status"] == "completed" and mn["status"] != "completed"
    assert adv["hops_avg"] > 3.5  # minimal paths between groups have at most 3 hops
