import numpy as np
import networkx as nx
import pytest

from topogen import Topology, ParameterError, TopologyError
from topogen._rng import resolve_seed, make_rng, child_seeds


def test_edges_canonical_sorted_and_readonly():
    t = Topology(4, [(3, 2), (1, 0), (2, 1)], name="path")
    assert t.edges.dtype == np.int32
    assert t.edges.tolist() == [[0, 1], [1, 2], [2, 3]]
    assert not t.edges.flags.writeable
    assert t.num_links == 3
    assert t.degrees.tolist() == [1, 2, 2, 1]
    assert t.degree == 2


def test_link_kinds_follow_the_sort():
    t = Topology(3, [(1, 2), (0, 1)], link_kind=[1, 0], kind_names=("a", "b"))
    assert t.edges.tolist() == [[0, 1], [1, 2]]
    assert list(t.kind_of_links()) == ["a", "b"]
    assert t.link_counts() == {"a": 1, "b": 1}


@pytest.mark.parametrize(
    "edges, msg",
    [([(0, 0)], "self-loop"), ([(0, 1), (1, 0)], "parallel"), ([(0, 5)], r"\[0, 3\]")],
)
def test_bad_edges(edges, msg):
    with pytest.raises(ParameterError, match=msg):
        Topology(4, edges)


def test_bad_sizes_and_hosts():
    with pytest.raises(ParameterError, match="num_switches"):
        Topology(0, [])
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        Topology(2, [(0, 1)], hosts_per_switch=-1)
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        Topology(2, [(0, 1)], hosts_per_switch=[1, 2, 3])


def test_hosts_array_and_collapse():
    t = Topology(3, [(0, 1), (1, 2)], hosts_per_switch=[2, 2, 2])
    assert t.hosts_per_switch == 2
    t2 = Topology(3, [(0, 1), (1, 2)], hosts_per_switch=[1, 0, 3])
    assert t2.hosts.tolist() == [1, 0, 3] and t2.num_hosts == 4


def test_csr_matches_networkx():
    g = nx.gnm_random_graph(40, 120, seed=3)
    t = Topology.from_networkx(g)
    ref = nx.to_scipy_sparse_array(g, nodelist=range(40), dtype=np.int8)
    assert (t.csr() != ref).nnz == 0
    m = t.csr()
    # directed edge ids point at the right undirected link
    rows = np.repeat(np.arange(40), np.diff(m.indptr))
    e = t.edges[t.directed_edge_ids]
    assert np.all(np.sort(np.stack([rows, m.indices], 1), axis=1) == e)
    back = t.to_networkx()
    assert nx.utils.graphs_equal(nx.Graph(back.edges()), nx.Graph(g.edges())) or set(
        map(frozenset, back.edges())
    ) == set(map(frozenset, g.edges()))


def test_connectivity():
    t = Topology(4, [(0, 1), (2, 3)], name="two")
    assert not t.is_connected()
    with pytest.raises(TopologyError, match="2 components"):
        t.require_connected("routing")
    assert Topology(1, []).is_connected()


def test_metadata_and_replace():
    t = Topology(3, [(0, 1)], name="x", params={"dims": (3,)}, seed=5)
    md = t.metadata()
    assert md["generator"] == "x" and md["params"] == {"dims": [3]} and md["seed"] == 5
    assert "topogen_version" in md
    t2 = t.replace(edges=[(0, 1), (1, 2)])
    assert t2.num_links == 2 and t2.name == "x"


def test_seeds():
    assert resolve_seed(7) == 7
    assert resolve_seed("7") == 7
    s = resolve_seed(None)
    assert isinstance(s, int) and s >= 0
    for bad in ("abc", 1.5, True, -1):
        with pytest.raises(ParameterError, match="seed"):
            resolve_seed(bad)
    assert make_rng(3).integers(1 << 30) == make_rng(3).integers(1 << 30)
    assert child_seeds(1, 3) == child_seeds(1, 3)
    assert len(set(child_seeds(1, 10))) == 10


def test_describe_never_sends_control_characters_to_the_terminal():
    t = Topology(2, np.array([[0, 1]], dtype=np.int32), name="a\x1b[31mred\nx\u2028y")
    text = t.describe()
    assert "\x1b" not in text and "\n" not in text and "\u2028" not in text
    assert text == "a\\x1b[31mred\\nx\\u2028y()"
