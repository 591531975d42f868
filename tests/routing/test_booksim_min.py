"""booksim-min: BookSim2 anynet's ``min`` routes, checked route for route.

* against routes read back from real BookSim runs (fixtures in ``data/``, made by
  ``booksim_trace.py``; with ``-m booksim`` also against a fresh run of the binary);
* against a plain re-statement of BookSim's search (one Dijkstra per source scanning the
  unsettled routers in increasing id, strict ``<`` everywhere) on random graphs with
  random, also asymmetric, latencies.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

import topogen
from topogen.errors import FormatError, ParameterError, TopologyError
from topogen.layout import default_layout
from topogen.routing import booksim_min, nearest, route
from topogen.routing.booksim_min import (anynet_entry_latency, observed_next_hops,
                                         parse_watch_trace)

from .booksim_trace import DATA, TOPOLOGIES, read_anynet, read_fixture, trace_routes
from .conftest import rrg


def _table(routing) -> np.ndarray:
    """next[v, d]: next-hop switch of v toward d (-1 on the diagonal)."""
    n = routing.num_switches
    return np.stack([routing.next_hop(d) for d in range(n)], axis=1)


def _reference_first_hops(n, out_lat):
    """BookSim's search as its comments and loops describe it, one source at a time:
    settle the unsettled router of least distance (lowest id on equal distance), relax its
    links in increasing neighbour id with a strict '<', then walk each router's
    predecessors back to the source."""
    table = np.full((n, n), -1, dtype=np.int64)
    for s in range(n):
        dist = [None] * n
        prev = [-1] * n
        dist[s] = 0
        todo = set(range(n))
        while todo:
            u = min((v for v in todo if dist[v] is not None), key=lambda v: (dist[v], v))
            todo.remove(u)
            for w in sorted(out_lat[u]):
                nd = dist[u] + out_lat[u][w]
                if dist[w] is None or nd < dist[w]:
                    dist[w], prev[w] = nd, u
        for d in range(n):
            if d == s:
                continue
            v = d
            while prev[v] != s:
                v = prev[v]
            table[s, d] = v
    return table


def _out_lat(topo, lat):
    out = {v: {} for v in range(topo.num_switches)}
    for (u, v), (a, b) in zip(topo.edges.tolist(), np.asarray(lat).tolist()):
        out[u][v] = a
        out[v][u] = b
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_a_plain_restatement_of_booksims_search(seed):
    rng = np.random.default_rng(seed)
    topo = rrg(40, 4, seed)
    sym = rng.integers(1, 4, topo.num_links)  # few values: many ties
    asym = rng.integers(1, 6, (topo.num_links, 2))
    for lat in (sym, asym, None):
        full = np.stack([sym, sym], 1) if lat is sym else (np.ones((topo.num_links, 2), int)
                                                            if lat is None else lat)
        want = _reference_first_hops(topo.num_switches, _out_lat(topo, full))
        for kw in ({}, {"method": "dijkstra", "block": 7}, {"method": "bellman-ford", "block": 16}):
            r = booksim_min(topo, latency=lat, **kw)
            np.testing.assert_array_equal(_table(r), want)
            assert r.params["latency_source"] == ("unit" if lat is None else "explicit")


def test_routes_are_least_latency_and_loop_free():
    topo = topogen.generate("random", num_switches=60, degree=5, seed=4)
    lay = default_layout(topo)
    r = booksim_min(topo, lay)
    lat = anynet_entry_latency(topo, lay)
    s = np.repeat(np.arange(60), 60)
    d = np.tile(np.arange(60), 60)
    ent, _ = r.route_matrix(s, d)  # raises on a loop
    total = np.where(ent >= 0, lat[np.maximum(ent, 0)], 0).sum(axis=0)
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    m = topo.csr()
    best = dijkstra(sp.csr_matrix((lat.astype(float), m.indices, m.indptr), shape=(60, 60)))
    np.testing.assert_array_equal(total, best[s, d].astype(np.int64))
    # the shared clock of simulate / run booksim / the BookSim export
    from topogen import sim_defaults

    assert r.algorithm == "booksim-min" and r.params["clock_period_ns"] == sim_defaults.CYCLE_NS


@pytest.mark.parametrize("name", sorted(TOPOLOGIES))
def test_agrees_with_routes_read_back_from_booksim(name):
    """Every (router, destination router) entry BookSim used in the recorded runs."""
    topo, lat, _ = read_anynet(DATA / f"{name}.anynet")
    seen = read_fixture(DATA / f"{name}.routes")
    n = topo.num_switches
    assert seen.shape == (n, n)
    off = ~np.eye(n, dtype=bool)
    assert (seen[off] >= 0).all(), "the fixture covers every entry"
    ours = _table(booksim_min(topo, latency=lat))
    assert (ours[off] == seen[off]).all(), f"{(ours[off] != seen[off]).sum()} entries differ"


@pytest.mark.parametrize("name", [k for k, v in sorted(TOPOLOGIES.items()) if v[2]])
def test_fixtures_tell_routings_apart(name):
    """The recorded routes are not those of any least-cost routing: with the layout's
    latencies, hop-count routing (either tie rule) and booksim-min on unit latencies
    disagree with BookSim on many entries."""
    topo, lat, _ = read_anynet(DATA / f"{name}.anynet")
    seen = read_fixture(DATA / f"{name}.routes")
    off = ~np.eye(topo.num_switches, dtype=bool)
    for other in (nearest(topo, ties="lowest"), nearest(topo), booksim_min(topo)):
        assert (_table(other)[off] != seen[off]).mean() > 0.15


@pytest.mark.parametrize("name", ["torus4x4_unit", "hypercube6_unit"])
def test_unit_latency_tori_and_cubes_route_like_lowest_id_nr(name):
    """A fact the fixtures show: with 1-cycle links, BookSim's choice on tori and
    hypercubes is topogen's old lowest-id NR rule (so its 6-cube is as unbalanced)."""
    topo, _, _ = read_anynet(DATA / f"{name}.anynet")
    seen = read_fixture(DATA / f"{name}.routes")
    off = ~np.eye(topo.num_switches, dtype=bool)
    assert (_table(nearest(topo, ties="lowest"))[off] == seen[off]).all()


def test_netlist_latencies_are_the_exporters():
    """The fixture netlists are what topogen's export writes today (same latencies)."""
    topo = topogen.generate("random", num_switches=64, degree=4, seed=7)
    lay = default_layout(topo)
    t2, lat, nodes = read_anynet(DATA / "random64d4.anynet")
    np.testing.assert_array_equal(t2.edges, topo.edges)
    # the fixture netlists were exported with a 1 ns clock
    np.testing.assert_array_equal(anynet_entry_latency(t2, latency=lat),
                                  anynet_entry_latency(topo, lay, clock_period_ns=1.0))
    assert len(np.unique(lat)) > 3 and nodes.tolist() == list(range(64))


def test_route_and_cli_names(tmp_path):
    topo = topogen.generate("torus", dims=(4, 4))
    lay = default_layout(topo)
    a = route(topo, lay, "booksim-min")
    b = route(topo, None, "booksim-min")  # default layout, as `topogen run booksim`
    assert np.array_equal(a.ranks, booksim_min(topo, lay).ranks)
    assert np.array_equal(a.ranks, b.ranks)
    c = route(topo, lay, "booksim-min", clock_period_ns=20.0)
    assert np.array_equal(c.entry_weight, np.ceil(np.asarray(lay.link_delay)[
        topo.directed_edge_ids] / 20.0 - 1e-9).clip(1))
    hop = route(topo, lay, "hop", base="booksim-min")
    assert hop.params["base_algorithm"] == "booksim-min"

    from topogen.cli import main
    from topogen import formats
    from topogen.routing import load_routing

    src = tmp_path / "t.json"
    formats.save(src, topo, lay)
    assert main(["-q", "route", str(src), "-a", "booksim-min", "-o", str(tmp_path / "r")]) == 0
    assert np.array_equal(load_routing(tmp_path / "r").ranks, a.ranks)
    assert main(["-q", "route", str(src), "-a", "booksim-min", "--clock-period", "0",
                 "-o", str(tmp_path / "bad")]) != 0
    assert not (tmp_path / "bad").exists()


def test_bad_input():
    topo = rrg(10, 3, 1)
    with pytest.raises(ParameterError, match="whole numbers"):
        booksim_min(topo, latency=np.zeros(topo.num_links))
    with pytest.raises(ParameterError, match="one value per link"):
        booksim_min(topo, latency=[1, 2])
    with pytest.raises(ParameterError, match="method"):
        booksim_min(topo, method="magic")
    with pytest.raises(ParameterError, match="Topology"):
        booksim_min("torus")
    with pytest.raises(TopologyError):
        booksim_min(topogen.Topology(4, [(0, 1), (2, 3)]))


def test_parse_watch_trace():
    lines = [
        "3 | node5 | Enqueuing packet 0 at time 3.",
        "5 | network_0/router_5 | Received flit 0 from channel at input 0.",
        "5 | network_0/router_5 | Adding flit 0 to VC 0 at input 0 (state: idle, empty).",
        "9 | network_0/router_1 | Received flit 0 from channel at input 2.",
        "12 | network_0/router_0 | Received flit 0 from channel at input 3.",
        "14 | node0 | Retiring flit 0 (packet 0, src = 5, dest = 0, hops = 3, flat = 10).",
        "15 | network_0/router_2 | Received flit 7 from channel at input 0.",
        "16 | node2 | Retiring flit 7 (packet 7, src = 2, dest = 2, hops = 1, flat = 1).",
    ]
    routes = parse_watch_trace(lines)
    assert routes == [(5, 0, [5, 1, 0]), (2, 2, [2])]
    t = observed_next_hops(routes, 6, np.arange(6))
    assert t[5, 0] == 1 and t[1, 0] == 0 and (t >= 0).sum() == 2
    with pytest.raises(FormatError, match="both"):
        observed_next_hops(routes + [(5, 0, [5, 4, 0])], 6, np.arange(6))
    with pytest.raises(FormatError, match="does not join"):
        observed_next_hops([(3, 0, [5, 0])], 6, np.arange(6))
    with pytest.raises(FormatError, match="not its destination"):
        parse_watch_trace(["1 | node3 | Retiring flit 0 (packet 0, src = 5, dest = 0, hops = 1,"])


@pytest.mark.booksim
@pytest.mark.parametrize("name", ["torus4x4", "hypercube6", "random64d4", "slimfly5",
                                  "dragonfly4_2_2"])
def test_route_for_route_against_a_real_booksim(name, tmp_path):
    """Where BookSim is installed: export the topology, run BookSim with every packet
    watched, and compare the path of each packet with booksim-min's route."""
    from topogen.drivers.booksim import find_booksim
    from topogen.errors import SimulatorNotFound
    from topogen.export.booksim import write_anynet

    try:
        binary = find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    gen, params, with_layout = TOPOLOGIES[name]
    topo = topogen.generate(gen, **params)
    lay = default_layout(topo)
    netlist = write_anynet(tmp_path / f"{name}.anynet", topo, lay, clock_period_ns=1.0)
    routes = trace_routes(binary, netlist, tmp_path, packets=3000, seed=11)
    assert len(routes) > 2500
    r = route(topo, lay, "booksim-min", clock_period_ns=1.0)  # as the netlist
    node_router = np.repeat(np.arange(topo.num_switches), topo.hosts)
    src = node_router[[s for s, _, _ in routes]]
    dst = node_router[[d for _, d, _ in routes]]
    ent, _ = r.route_matrix(src, dst)
    indices = r.view.indices
    for k, (_, _, path) in enumerate(routes):
        hops = ent[:, k][ent[:, k] >= 0]
        assert [int(src[k])] + indices[hops].tolist() == path
