"""Myrinet-Clos (Koibuchi et al. III-C2): the paper's switch counts, Clos structure,
leaf and switch-only cabinets."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.fattree import clos_levels, myrinet_clos
from topogen.layout import default_floor, place


@pytest.mark.parametrize("hosts,switches", [(256, 80), (512, 160)])
def test_paper_switch_counts(hosts, switches):
    t = myrinet_clos(hosts)
    assert t.num_switches == switches  # "80- and 160-switch topologies with 256- and 512-hosts"
    assert t.num_hosts == hosts
    # every switch uses all 16 ports (hosts count on leaves)
    assert np.array_equal(t.degrees + t.hosts, np.full(switches, 16))


def test_three_level_structure():
    t = myrinet_clos(256)
    leaves, middles, tops = clos_levels(256)
    assert (leaves, middles, tops) == (32, 32, 16)
    g = t.to_networkx()
    level = np.repeat([0, 1, 2], [leaves, middles, tops])
    # links only between consecutive levels
    assert all(abs(level[u] - level[v]) == 1 for u, v in g.edges())
    # leaf-to-leaf distance: 2 inside a pod (8 leaves), 4 across pods
    d = dict(nx.all_pairs_shortest_path_length(g))
    assert d[0][7] == 2 and d[0][8] == 4
    assert max(d[u][v] for u in range(leaves) for v in range(leaves)) == 4
    # every top switch reaches every pod exactly radix / pods = 4 times
    pod_of_mid = (np.arange(middles) // 8)
    for top in range(leaves + middles, leaves + middles + tops):
        pods = [pod_of_mid[m - leaves] for m in g.neighbors(top)]
        assert sorted(np.bincount(pods).tolist()) == [4, 4, 4, 4]
    # two leaves of different pods are joined by 8 link-disjoint paths (all up-links)
    assert len(nx.minimum_edge_cut(g, 0, 31)) == 8


def test_two_levels_and_valid_sizes():
    t = myrinet_clos(128)
    assert t.num_switches == 24  # 16 leaves, 8 spines, complete bipartite
    assert t.num_links == 16 * 8
    with pytest.raises(ParameterError, match="three levels for hosts in"):
        myrinet_clos(384)
    with pytest.raises(ParameterError, match="multiple of"):
        myrinet_clos(100)
    with pytest.raises(ParameterError, match="even"):
        myrinet_clos(64, radix=15)


def test_cabinets_follow_the_paper():
    t = myrinet_clos(512)
    leaves, middles, tops = clos_levels(512)
    cab = t.cabinet
    # leaf cabinets hold their compute nodes: 128 hosts = 16 leaves each
    leaf_cabs = np.bincount(cab[:leaves])
    assert leaf_cabs.tolist() == [16] * 4
    assert np.bincount(cab, weights=t.hosts)[:4].tolist() == [128.0] * 4
    # other switches in switch-only cabinets of 16
    others = cab[leaves:]
    assert others.min() == 4 and np.bincount(others)[4:].tolist() == [16] * 6
    assert (np.bincount(cab, weights=t.hosts, minlength=10)[4:] == 0).all()
    lay = place(t, default_floor(t))
    assert lay.floor.cabinets == 10 and lay.placement == "native"
    with pytest.raises(ParameterError, match="hosts_per_cabinet"):
        myrinet_clos(256, hosts_per_cabinet=256)
