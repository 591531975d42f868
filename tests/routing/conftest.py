"""Shared small topologies for the routing tests (built independently of the routing code)."""

import networkx as nx
import pytest

from topogen import Topology


def ring(n: int) -> Topology:
    return Topology.from_networkx(nx.cycle_graph(n), name="ring")


def rrg(n: int, d: int, seed: int) -> Topology:
    return Topology.from_networkx(nx.random_regular_graph(d, n, seed=seed), name="random")


def petersen() -> Topology:
    return Topology.from_networkx(nx.petersen_graph(), name="petersen")


def all_paths(routing):
    """Every route (src != dst) as (switches, vcs) via the per-pair API."""
    n = routing.num_switches
    return {(s, d): routing.path(s, d) for s in range(n) for d in range(n) if s != d}


def python_cdg(routes, num_vcs):
    """Independent CDG: nodes (u, v, vc), edges between consecutive channels."""
    g = nx.DiGraph()
    for sw, vcs in routes:
        chans = [(int(sw[i]), int(sw[i + 1]), int(vcs[i])) for i in range(len(vcs))]
        g.add_nodes_from(chans)
        g.add_edges_from(zip(chans[:-1], chans[1:]))
    return g


@pytest.fixture
def rrg40():
    return rrg(40, 4, 2)
