"""analyze(), degree_stats() and cable_stats()."""

import networkx as nx
import numpy as np
import pytest

from topogen import Floor, Layout, ParameterError, Topology, TopologyError
from topogen.metrics import analyze, distance_stats, latency_stats
from topogen.metrics.summary import cable_stats, degree_stats

ROW = dict(cabinets=10, switches_per_cabinet=4, rows=1, columns=10, cabinet_width=3.0)


def labelled_layout():
    """The five-cycle of test_latency with link labels; edges given unsorted."""
    edges = [(3, 4), (0, 1), (1, 2), (2, 3), (0, 4)]
    kinds = [1, 0, 1, 0, 1]  # C-D and A-B inside a cabinet
    t = Topology(5, edges, hosts_per_switch=[1, 2, 3, 4, 5], name="toy",
                 link_kind=kinds, kind_names=("intra", "straight"))
    return Layout(t, Floor(**ROW), [0, 0, 1, 1, 9])


LAYOUT_KEYS = [
    "name", "switches", "hosts", "links", "degree_max", "degree_min", "degree_avg",
    "links_intra", "links_straight",
    "cable_total_m", "cable_avg_m", "cable_max_m", "intra_links", "inter_links",
    "diameter", "aspl",
    "fr_max_ns", "fr_avg_ns", "fr_max_hops", "fr_avg_hops",
    "nr_max_ns", "nr_avg_ns", "nr_max_hops", "nr_avg_hops",
    "sampled",
]


def test_analyze_layout_keys_and_values():
    lay = labelled_layout()
    r = analyze(lay)
    assert list(r) == LAYOUT_KEYS
    assert (r["name"], r["switches"], r["hosts"], r["links"]) == ("toy", 5, 15, 5)
    assert (r["degree_max"], r["degree_min"], r["degree_avg"]) == (2, 2, 2.0)
    assert (r["links_intra"], r["links_straight"]) == (2, 3)
    # cables by hand: 2 + 2 + (3+4) + (24+4) + (27+4) = 70 m
    assert r["cable_total_m"] == pytest.approx(70.0)
    assert r["cable_avg_m"] == pytest.approx(70.0 / 5)
    assert r["cable_max_m"] == pytest.approx(31.0)
    assert (r["intra_links"], r["inter_links"]) == (2, 3)
    # 5-cycle: diameter 2, aspl = (5*1 + 5*2) / 10
    assert r["diameter"] == 2 and r["aspl"] == pytest.approx(1.5)
    assert r["fr_max_ns"] == pytest.approx(645) and r["fr_avg_ns"] == pytest.approx(537)
    assert r["nr_max_ns"] == pytest.approx(775) and r["nr_avg_ns"] == pytest.approx(555)
    assert (r["fr_max_hops"], r["nr_max_hops"]) == (3, 2)
    assert r["fr_avg_hops"] == pytest.approx(1.6) and r["nr_avg_hops"] == pytest.approx(1.5)
    assert r["sampled"] is False


def test_analyze_topology_has_no_layout_fields():
    g = nx.petersen_graph()
    t = Topology.from_networkx(g)
    r = analyze(t)
    assert list(r) == ["name", "switches", "hosts", "links", "degree_max", "degree_min",
                       "degree_avg", "diameter", "aspl", "sampled"]
    assert r["diameter"] == nx.diameter(g)
    assert r["aspl"] == pytest.approx(nx.average_shortest_path_length(g))
    assert r["links"] == 15 and r["degree_avg"] == 3.0


def test_analyze_options():
    lay = labelled_layout()
    r = analyze(lay, routings=("fr",), hops=False, switch_delay=20.0)
    assert "diameter" not in r and "nr_max_ns" not in r and "fr_max_ns" in r
    assert r["fr_avg_ns"] == pytest.approx(latency_stats(lay, switch_delay=20.0).avg)
    assert "fr_max_ns" not in analyze(lay, routings=())


def test_analyze_sampled():
    rng = np.random.default_rng(0)
    g = nx.random_regular_graph(4, 60, seed=1)
    t = Topology.from_networkx(g)
    lay = Layout(t, Floor(15, 4), rng.permutation(60) // 4)
    r = analyze(lay, sample=10, seed=3)
    assert r["sampled"] is True
    assert r["aspl"] == distance_stats(t, sample=10, seed=3).aspl
    assert r["fr_avg_ns"] == latency_stats(lay, sample=10, seed=3).avg
    assert analyze(lay, sample=60, seed=3)["sampled"] is False


def test_degree_and_cable_stats():
    t = Topology(4, [(0, 1), (0, 2), (0, 3)])  # a star
    assert degree_stats(t) == {"degree_max": 3, "degree_min": 1, "degree_avg": 1.5}
    lay = Layout(t, Floor(2, 3, rows=1, columns=2), [0, 0, 0, 1])
    c = cable_stats(lay)
    assert c["intra_links"] == 2 and c["inter_links"] == 1
    assert c["cable_total_m"] == pytest.approx(2 + 2 + 0.6 + 4)
    assert c["cable_max_m"] == pytest.approx(4.6)
    empty = Layout(Topology(1, np.zeros((0, 2))), Floor(1, 1), [0])
    assert cable_stats(empty)["cable_avg_m"] == 0.0


def test_errors():
    with pytest.raises(ParameterError):
        analyze("nope")
    with pytest.raises(ParameterError, match="routings"):
        analyze(labelled_layout(), routings=("dor",))
    with pytest.raises(ParameterError):
        cable_stats(labelled_layout().topology)
    with pytest.raises(TopologyError):
        analyze(Topology(4, [(0, 1), (2, 3)]))
    # graph figures alone do not need connectivity
    r = analyze(Topology(4, [(0, 1), (2, 3)]), hops=False)
    assert r["links"] == 2


def test_sampled_analysis_states_its_error():
    """A sampled row carries the standard errors, the sample size and its seed; with
    every switch as a source the errors are 0 and the figures exact."""
    import topogen
    from topogen.layout import default_layout
    from topogen.metrics import analyze as _analyze

    lay = default_layout(topogen.generate("random", num_switches=120, degree=4, seed=3))
    row = _analyze(lay, sample=20, seed=7)
    assert row["sampled"] and row["sample_sources"] == 20 and row["sample_seed"] == 7
    assert row["aspl_stderr"] > 0 and row["fr_avg_ns_stderr"] > 0 and row["nr_avg_ns_stderr"] > 0
    full = _analyze(lay)
    assert "aspl_stderr" not in full
    # the estimate lies within 5 standard errors of the exact value
    assert abs(row["aspl"] - full["aspl"]) <= 5 * row["aspl_stderr"]
    assert abs(row["fr_avg_ns"] - full["fr_avg_ns"]) <= 5 * row["fr_avg_ns_stderr"]
    every = _analyze(lay, sample=120, seed=1)
    assert every["aspl_stderr"] == 0 and every["aspl"] == full["aspl"]
