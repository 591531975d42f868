"""The ``adaptive="updown"`` reading of the Silla-Duato escape routing: the adaptive VCs
take only next hops on a shortest up*/down*-legal route, by the packet's phase."""

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import Floor, place
from topogen.errors import ParameterError
from topogen.generators.classic import hypercube
from topogen.routing import check, escape, load_routing, updown
from topogen.routing.updown import updown_orientation

from .conftest import ring, rrg


def _hops(r, phase):
    n = r.num_switches
    return {(v, d): r.next_hops(v, d, phase).tolist()
            for v in range(n) for d in range(n) if v != d}


def test_ring4_by_hand():
    """4-ring 0-1-2-3-0, root 0: levels 0 / 1, 3 / 2.  Up links: 1->0, 3->0, 2->1, 2->3;
    down links: their reverses.  A legal route never takes an up link after a down link."""
    r = escape(ring(4), num_vcs=4, base="nr", root=0, adaptive="updown")
    ph0 = _hops(r, 0)
    assert ph0[(1, 3)] == [0]      # 1->0 (up) ->3 (down); 1->2 (down) ->3 (up) is illegal
    assert ph0[(3, 1)] == [0]
    assert ph0[(2, 0)] == [1, 3]   # both up
    assert ph0[(0, 2)] == [1, 3]   # both down
    assert ph0[(1, 2)] == [2] and ph0[(1, 0)] == [0]
    assert ph0[(2, 1)] == [1] and ph0[(2, 3)] == [3]
    ph1 = _hops(r, 1)              # after a down link: only down links
    assert ph1[(1, 2)] == [2] and ph1[(3, 2)] == [2]
    assert ph1[(1, 3)] == [] and ph1[(1, 0)] == [] and ph1[(2, 0)] == []
    assert ph1[(0, 2)] == [1, 3]   # the root only has down links
    # the minimal reading lets 1 reach 3 both ways
    assert escape(ring(4), num_vcs=4, base="nr", root=0).next_hops(1, 3).tolist() == [0, 2]


def test_cube3_by_hand():
    """3-cube, root 0: levels 0 | 1, 2, 4 | 3, 5, 6 | 7; a link goes down toward the higher
    level."""
    r = escape(hypercube(3), num_vcs=4, base="nr", root=0, adaptive="updown")
    ph0, ph1 = _hops(r, 0), _hops(r, 1)
    expect0 = {
        (1, 2): [0],        # 1->0->2; 1->3 (down) ->2 (up) illegal
        (5, 6): [4],        # 5->4 (up) ->6 (down); 5->7->6 illegal
        (3, 0): [1, 2],
        (7, 0): [3, 5, 6],
        (7, 1): [3, 5],
        (0, 7): [1, 2, 4],
        (3, 4): [1, 2],     # 3 hops either way, both start up
        (4, 3): [0],        # 4->0->1->3 or 4->0->2->3 (3 hops up-down-down); 4->5->... goes up
        (6, 5): [4],
    }
    for k, v in expect0.items():
        assert ph0[k] == v, k
    expect1 = {
        (1, 3): [3], (1, 7): [3, 5], (1, 2): [], (4, 7): [5, 6], (3, 7): [7], (3, 5): [],
        (0, 7): [1, 2, 4],
    }
    for k, v in expect1.items():
        assert ph1[k] == v, k
    # minimal reading: every Hamming-minimal next hop
    mini = escape(hypercube(3), num_vcs=4, base="nr", root=0)
    assert mini.next_hops(1, 2).tolist() == [0, 3]
    assert mini.next_hops(4, 3).tolist() == [0, 5, 6]


def _legal_state_graph(topo, root):
    """(phase, v) -> (phase', w) over legal links, built with networkx from the orientation."""
    _, is_down = updown_orientation(topo, root)
    csr = topo.csr()
    g = nx.DiGraph()
    for v in range(topo.num_switches):
        for k in range(csr.indptr[v], csr.indptr[v + 1]):
            w, down = int(csr.indices[k]), bool(is_down[k])
            g.add_edge((0, v), (1 if down else 0, w))
            if down:
                g.add_edge((1, v), (1, w))
    return g


@pytest.mark.parametrize("make,root", [(lambda: rrg(24, 4, 3), None), (lambda: rrg(20, 5, 1), 7),
                                       (lambda: hypercube(4), 5)])
def test_next_hops_are_those_of_shortest_legal_routes(make, root):
    """Brute force on the state graph: w is an adaptive choice at (phase, v) iff a shortest
    legal route from (phase, v) to dst starts with v -> w."""
    topo = make()
    r = escape(topo, num_vcs=4, base="nr", root=root, adaptive="updown")
    root = r.params["root"]
    g = _legal_state_graph(topo, root)
    n = topo.num_switches
    for d in range(n):
        dist = {}
        for s in ((0, d), (1, d)):
            if s in g:
                for k, x in nx.single_source_shortest_path_length(g.reverse(), s).items():
                    dist[k] = min(dist.get(k, 10**9), x)
        for v, ph in itertools.product(range(n), (0, 1)):
            if v == d:
                continue
            got = r.next_hops(v, d, ph).tolist()
            here = dist.get((ph, v))
            exp = sorted(w for (ph2, w) in g.successors((ph, v))
                         if here is not None and dist.get((ph2, w)) == here - 1)
            assert got == exp, (v, d, ph)


def test_fr_latency_legal_routes_and_deadlock_check():
    """base='fr': the deterministic route is the up*/down* table's (latency-shortest legal);
    the escape VC still certifies deadlock freedom; and since every adaptive route is
    up*/down*-legal, the adaptive channels' own dependency graph is acyclic as well."""
    topo = rrg(32, 4, 3)
    layout = place(topo, Floor(cabinets=8, switches_per_cabinet=4), "random", seed=2)
    r = escape(topo, layout, num_vcs=4, base="fr", adaptive="updown")
    ud = updown(topo, layout=layout, metric="latency")
    assert r.params["adaptive"] == "updown" and r.params["root"] == ud.params["root"]
    for s in range(0, 32, 3):
        for d in range(32):
            sw, vcs = r.path(s, d)
            assert np.array_equal(sw, ud.path(s, d)[0]) and np.all(vcs == 1)
    rep = check(r)
    assert rep.acyclic and "escape" in rep.checked
    # adaptive channels alone: every dependency (v->w, w->x) of two consecutive legal hops
    _, is_down = updown_orientation(topo, r.params["root"])
    csr = topo.csr()
    down = {(v, int(csr.indices[k])): bool(is_down[k])
            for v in range(32) for k in range(csr.indptr[v], csr.indptr[v + 1])}
    cdg = nx.DiGraph()
    for d in range(32):
        for v in range(32):
            for ph in (0, 1):
                for w in r.next_hops(v, d, ph).tolist():
                    ph2 = max(ph, int(down[(v, w)]))
                    if w != d:
                        for x in r.next_hops(w, d, ph2).tolist():
                            cdg.add_edge((v, w), (w, x))
    assert cdg.number_of_edges() > 0 and nx.is_directed_acyclic_graph(cdg)
    # ... which the minimal reading's adaptive channels are not (they may go up after down)
    mini = escape(topo, layout, num_vcs=4, base="fr")
    cdg_min = nx.DiGraph()
    for d in range(32):
        for v in range(32):
            for w in mini.next_hops(v, d).tolist():
                if w != d:
                    for x in mini.next_hops(w, d).tolist():
                        cdg_min.add_edge((v, w), (w, x))
    assert not nx.is_directed_acyclic_graph(cdg_min)


def test_root_is_recorded_and_cheap_to_change():
    topo = rrg(24, 4, 3)
    a = escape(topo, num_vcs=4, base="nr", adaptive="updown")
    b = escape(topo, num_vcs=4, base="nr", adaptive="updown", root=11)
    assert b.params["root"] == 11 and a.params["root"] != 11
    differ = sum(a.next_hops(v, d).tolist() != b.next_hops(v, d).tolist()
                 for v in range(24) for d in range(24) if v != d)
    assert differ > 0
    assert check(b).acyclic


def test_default_reading_unchanged():
    """The default reading records no 'adaptive' parameter (same digest and seeds as before)."""
    topo = rrg(16, 4, 1)
    r = escape(topo, num_vcs=4, base="nr")
    assert "adaptive" not in r.params and r.adaptive == "minimal"
    assert r.next_hops(0, 5, 1).tolist() == r.minimal.next_hops(0, 5).tolist()


def test_save_and_load_keep_the_reading(tmp_path):
    topo = rrg(16, 4, 1)
    r = escape(topo, num_vcs=4, base="nr", adaptive="updown")
    r.save(tmp_path / "rt")
    back = load_routing(tmp_path / "rt")
    assert back.adaptive == "updown"
    for v in range(16):
        for d in range(16):
            for ph in (0, 1):
                assert back.next_hops(v, d, ph).tolist() == r.next_hops(v, d, ph).tolist()


def test_bad_values():
    topo = rrg(16, 4, 1)
    with pytest.raises(ParameterError, match="adaptive must be 'minimal'.*got 'legal'") as e:
        escape(topo, num_vcs=4, base="nr", adaptive="legal")
    assert "\n" not in str(e.value)
    r = escape(topo, num_vcs=4, base="nr", adaptive="updown")
    with pytest.raises(ParameterError, match="phase must be 0 or 1"):
        r.next_hops(0, 3, 2)
    with pytest.raises(ParameterError, match="switch ids"):
        r.next_hops(0, 16)


def test_exports_refuse_the_phase_dependent_reading_and_keep_its_deterministic_route(tmp_path):
    """A per-switch table holds one next-hop set per (switch, destination): the updown
    reading's adaptive hops depend on the phase, so table exports refuse it (one line)
    instead of writing the minimal tables; its deterministic paths are the up*/down* ones."""
    from topogen.errors import RoutingError
    from topogen.routing.export import paths_from, table_rows, write_table

    topo = rrg(16, 4, 1)
    r = escape(topo, num_vcs=4, base="nr", adaptive="updown")
    for call in (lambda: table_rows(r), lambda: write_table(r, tmp_path / "t.csv")):
        with pytest.raises(RoutingError, match="adaptive='updown'.*phase.*adaptive='minimal'") as e:
            call()
        assert "\n" not in str(e.value)
    assert not (tmp_path / "t.csv").exists()
    paths = paths_from(r, 5)  # 7 of switch 5's up*/down* routes are not its minimal ones
    assert sum(p != r.minimal.path(5, d)[0][1:].tolist() for d, (p,) in paths.items()) == 7
    for d, (p,) in paths.items():
        assert p == r.path(5, d)[0][1:].tolist()
    m = escape(topo, num_vcs=4, base="nr")
    assert len(table_rows(m)["switch"]) > 0
