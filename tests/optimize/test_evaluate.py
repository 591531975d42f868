"""The incremental evaluation equals a full recomputation; swaps keep every degree."""

import numpy as np
import pytest

from topogen import Topology
from topogen._rng import make_rng
from topogen.layout import Floor, Layout
from topogen.metrics import distance_stats, latency_stats
from topogen.optimize.evaluate import (LATENCY_QUANTUM_NS, HopEvaluator, LatencyEvaluator, SwapGraph,
                                       _DB_TABLE, _bit_bfs)
from topogen.optimize.search import random_regular_edges


def _random_moves(graph, ev, rng, count, accept_all=True):
    """Apply ``count`` random valid moves (keeping connectivity), checking each."""
    m = len(graph.edges)
    done = 0
    while done < count:
        i, j = (int(x) for x in rng.integers(m, size=2))
        mv = graph.swap_links(i, j, int(rng.integers(2))) if i != j else None
        if mv is None:
            continue
        rem, add = mv
        graph.apply(i, j, rem, add)
        cand = ev.evaluate(rem, add)
        if cand.connected and (accept_all or rng.random() < 0.5):
            ev.commit(cand)
            done += 1
        else:
            graph.undo(i, j, rem, add)
            if cand.connected:
                done += 1
    return done


def test_de_bruijn_table_is_a_permutation():
    assert sorted(_DB_TABLE.tolist()) == list(range(64))


@pytest.mark.parametrize("n,d,seed", [(40, 3, 1), (64, 4, 2), (130, 5, 3)])
def test_hop_evaluator_matches_full_recomputation(n, d, seed):
    rng = make_rng(seed)
    g = SwapGraph(n, random_regular_edges(n, d, rng))
    ev = HopEvaluator(g)
    for _ in range(6):
        _random_moves(g, ev, rng, 15, accept_all=False)
        topo = Topology(n, g.sorted_edges())
        full = distance_stats(topo)
        assert ev.peak == full.diameter
        assert ev.total == round(full.aspl * n * (n - 1))
        # the whole matrix, not only the totals
        ref = HopEvaluator(SwapGraph(n, g.sorted_edges()))
        np.testing.assert_array_equal(ev.dist, ref.dist)
        np.testing.assert_array_equal(ev.rowsum, ref.rowsum)


def test_candidate_equals_recomputation_before_commit():
    n, d = 96, 4
    rng = make_rng(7)
    g = SwapGraph(n, random_regular_edges(n, d, rng))
    ev = HopEvaluator(g)
    checked = 0
    m = len(g.edges)
    while checked < 40:
        i, j = (int(x) for x in rng.integers(m, size=2))
        mv = g.swap_links(i, j, int(rng.integers(2))) if i != j else None
        if mv is None:
            continue
        g.apply(i, j, *mv)
        cand = ev.evaluate(*mv)
        topo = Topology(n, g.sorted_edges())
        if topo.is_connected():
            full = distance_stats(topo)
            assert cand.connected and cand.peak == full.diameter
            assert cand.total == round(full.aspl * n * (n - 1))
        else:
            assert not cand.connected
        g.undo(i, j, *mv)
        checked += 1


def test_swaps_keep_degrees_and_simplicity():
    n, d = 50, 5
    rng = make_rng(3)
    edges = random_regular_edges(n, d, rng)
    g = SwapGraph(n, edges)
    ev = HopEvaluator(g)
    _random_moves(g, ev, rng, 60)
    e = g.sorted_edges()
    assert np.all(np.bincount(e.ravel(), minlength=n) == d)
    Topology(n, e)  # raises on loops / parallel links
    for v in range(n):
        assert sorted(g.adj[v, : g.deg[v]].tolist()) == sorted(
            np.concatenate([e[e[:, 0] == v, 1], e[e[:, 1] == v, 0]]).tolist())


def test_latency_evaluator_matches_latency_stats():
    n, z = 48, 4
    floor = Floor.for_switches(n, z)
    cab = np.arange(n) // z
    rng = make_rng(11)
    g = SwapGraph(n, random_regular_edges(n, 4, rng))
    cable_ns = floor.distance_matrix() * floor.ns_per_meter
    ev = LatencyEvaluator(g, cab, cable_ns, 60.0)
    for _ in range(3):
        _random_moves(g, ev, rng, 10, accept_all=False)
        topo = Topology(n, g.sorted_edges())
        fr = latency_stats(Layout(topo, floor, cab), switch_delay=60.0, injection_delay=0.0, routing="fr")
        # latency_stats counts the source switch's delay once more per pair
        assert ev.peak * LATENCY_QUANTUM_NS + 60.0 == pytest.approx(fr.max, abs=1e-6)
        assert ev.total * LATENCY_QUANTUM_NS / (n * (n - 1)) + 60.0 == pytest.approx(fr.avg, abs=1e-6)
        ref = LatencyEvaluator(SwapGraph(n, g.sorted_edges()), cab, cable_ns, 60.0)
        np.testing.assert_array_equal(ev.dist, ref.dist)
        assert ev.count == ref.count == int((ref.dist == ref.peak).sum())


def test_disconnecting_move_is_detected():
    # two 4-cycles joined by (0, 4) and (2, 6): swapping those to (0, 2), (4, 6) disconnects
    edges = np.array([[0, 1], [1, 2], [2, 3], [0, 3], [4, 5], [5, 6], [6, 7], [4, 7], [0, 4], [2, 6]],
                     dtype=np.int32)
    g = SwapGraph(8, edges)
    ev = HopEvaluator(g)
    seen_disconnected = False
    for i in range(len(edges)):
        for j in range(len(edges)):
            for variant in (0, 1):
                mv = g.swap_links(i, j, variant) if i != j else None
                if mv is None:
                    continue
                g.apply(i, j, *mv)
                cand = ev.evaluate(*mv)
                connected = Topology(8, g.sorted_edges()).is_connected()
                assert cand.connected == connected
                seen_disconnected |= not connected
                g.undo(i, j, *mv)
    assert seen_disconnected


def test_bit_bfs_totals_equal_hops_module():
    n = 200
    g = SwapGraph(n, random_regular_edges(n, 3, make_rng(5)))
    total, levels, complete = _bit_bfs(g.adj, g.deg, np.arange(n, dtype=np.int32), False,
                                       np.zeros((1, 1), np.uint8))
    full = distance_stats(Topology(n, g.sorted_edges()))
    assert complete and levels == full.diameter and total == round(full.aspl * n * (n - 1))


def test_dynamic_latency_rows_equal_dijkstra():
    from topogen.optimize.evaluate import _dijkstra_rows

    n, z = 60, 4
    floor = Floor.for_switches(n, z)
    cab = np.arange(n) // z
    rng = make_rng(21)
    g = SwapGraph(n, random_regular_edges(n, 3, rng))
    ev = LatencyEvaluator(g, cab, floor.distance_matrix() * floor.ns_per_meter, 60.0)
    m = len(g.edges)
    seen = {True: 0, False: 0}
    while seen[True] < 150:
        i, j = (int(x) for x in rng.integers(m, size=2))
        mv = g.swap_links(i, j, int(rng.integers(2))) if i != j else None
        if mv is None:
            continue
        g.apply(i, j, *mv)
        cand = ev.evaluate(*mv)
        full = np.zeros((n, n), dtype=np.int64)
        connected = _dijkstra_rows(g.adj, g.deg, ev._cab, ev._cabw, np.int64(ev._sw),
                                   np.arange(n, dtype=np.int32), full)
        assert cand.connected == connected
        seen[connected] += 1
        if connected:
            expect = full.copy()
            expect[cand.sources] = cand.rows
            np.testing.assert_array_equal(expect, full)  # the affected rows are right...
            unaffected = np.setdiff1d(np.arange(n), cand.sources)
            np.testing.assert_array_equal(ev.dist[unaffected], full[unaffected])  # ...the rest unchanged
            assert cand.total == full.sum() and cand.peak == full.max()
            if cand.peak == ev.peak:
                assert cand.count == int((full == full.max()).sum())
        if connected and rng.random() < 0.5:
            ev.commit(cand)
        else:
            g.undo(i, j, *mv)
