"""Moore bounds, the Cerf et al. ASPL bound, MEMSYS '16 Table 1."""

from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.slimfly import slimfly
from topogen.metrics.bounds import (
    MEMSYS16_TABLE1,
    aspl_lower_bound,
    moore_bound,
    moore_bound_table,
    moore_diameter_bound,
)


def _tree_count(d, D):
    # independent: count the vertices of a BFS tree level by level
    total, level = 1, d
    for _ in range(D):
        total += level
        level *= d - 1
    return total


@pytest.mark.parametrize("d", range(1, 20))
@pytest.mark.parametrize("D", range(0, 6))
def test_moore_bound_formula(d, D):
    assert moore_bound(d, D) == _tree_count(d, D)
    if d > 2 and D > 0:
        assert moore_bound(d, D) == (d * (d - 1) ** D - 2) // (d - 2)


def test_moore_bound_paper_facts():
    assert moore_bound(96, 2) == 9217  # Slim Fly II-B3
    assert moore_bound(7, 2) == 50 and moore_bound(3, 2) == 10
    assert moore_bound(3, 3) == 22 and moore_bound(3, 4) == 46  # MEMSYS '16 Section 1.1 text (Moore Graphs)
    assert moore_bound(2, 2) == 5  # the pentagon
    assert moore_bound(10**3, 3) == 1 + 10**3 * (1 + 999 + 999**2)  # exact, no overflow


def test_table1_reproduced():
    t = moore_bound_table()
    assert len(t) == 14 * 3
    assert list(t.ports.unique()) == list(range(3, 17))
    bad = t[~t.agrees]
    # the only disagreement: ports 15, diameter 4 printed 4432 (a dropped digit of 44,326)
    assert [(r.ports, r.diameter, r.paper_max, r.moore_bound) for r in bad.itertuples()] == [(15, 4, 4432, 44326)]
    assert bad.iloc[0].computed_diff == bad.iloc[0].paper_diff == "3.8"
    for r in t.itertuples():
        assert r.moore_bound == moore_bound(r.ports, r.diameter)
        assert r.moore_bound >= r.largest_known
        assert r.paper_max == MEMSYS16_TABLE1[r.ports][r.diameter - 2][0]


def test_aspl_bound_is_attained_by_diameter_two_regular_graphs():
    # A d-regular graph of diameter 2 has ASPL 2 - d/(N-1): exactly the bound.
    for q in (3, 4, 5):
        t = slimfly(q)
        aspl = nx.average_shortest_path_length(t.to_networkx())
        assert aspl == pytest.approx(aspl_lower_bound(t.num_switches, t.degree))
    assert aspl_lower_bound(10, 3, exact=True) == Fraction(5, 3)
    assert aspl_lower_bound(50, 7, exact=True) == Fraction(13, 7)


@pytest.mark.parametrize("n,d,seed", [(30, 3, 1), (64, 4, 2), (100, 5, 3), (40, 2, 0)])
def test_aspl_bound_holds_for_other_graphs(n, d, seed):
    g = nx.random_regular_graph(d, n, seed=seed) if d > 2 else nx.cycle_graph(n)
    if not nx.is_connected(g):
        pytest.skip("disconnected sample")
    aspl = nx.average_shortest_path_length(g)
    assert aspl >= aspl_lower_bound(n, d) - 1e-12
    if d == 2:  # a cycle attains it
        assert aspl == pytest.approx(aspl_lower_bound(n, d))
    assert nx.diameter(g) >= moore_diameter_bound(n, d)


def test_diameter_bound_and_errors():
    assert moore_diameter_bound(50, 7) == 2 and moore_diameter_bound(51, 7) == 3
    assert moore_diameter_bound(722, 29) == 2 and moore_diameter_bound(1, 1) == 0
    assert aspl_lower_bound(1, 3) == 0.0 and aspl_lower_bound(2, 1) == 1.0
    for call in (lambda: moore_bound(0, 2), lambda: aspl_lower_bound(3, 1), lambda: moore_diameter_bound(5, 1)):
        with pytest.raises(ParameterError):
            call()
    with pytest.raises(ParameterError, match="diameter"):
        moore_bound(3, -1)
    assert np.isfinite(aspl_lower_bound(10**6, 30))


def test_moore_table_reproduction():
    from topogen import registry

    res = registry.experiment("moore-table").func()
    assert len(res.table) == 42 and (~res.table.agrees).sum() == 1
    assert any("44326" in n for n in res.notes)


def test_diameter_three_constructions_of_slimfly_II_C():
    """Slim Fly II-C: BDF k' = 3(u+1)/2, N_r = 8/27 k'^3 - 4/9 k'^2 + 2/3 k'; Delorme
    k' = (v+1)^2, N_r = (v+1)^2 (v^2+1)^2; Fig. 5b text: "Delorme and BDF graphs achieve,
    respectively, 68% and 30% of the Moore Bound"."""
    from topogen.generators.polarfly import polarfly
    from topogen.metrics.bounds import bdf_size, delorme_size

    for u in (3, 5, 7, 9, 25, 27):
        k, n = bdf_size(u)
        assert k == 3 * (u + 1) // 2
        # independent: the paper's cubic in floating point
        assert n == round(8 / 27 * k**3 - 4 / 9 * k**2 + 2 / 3 * k)
        if u <= 9:  # P_u (the polarity graph) times a second factor of u + 1 vertices
            assert n == polarfly(u).num_switches * (u + 1)
        assert 0.27 < n / moore_bound(k, 3) < 8 / 27
    k, n = bdf_size(61)  # k' = 93, the BDF degree nearest the paper's k' = 96
    assert abs(n / moore_bound(k, 3) - 0.30) < 0.006  # 29.5%; the limit 8/27 = 29.6% -> "30%"
    k, n = delorme_size(9)  # k' = 100
    assert (k, n) == (100, 100 * 82**2)
    assert round(100 * n / moore_bound(k, 3)) == 68
    assert delorme_size(2) == (9, 225)
    with pytest.raises(ParameterError, match=r"u=4 .*odd prime power.*nearest valid: 3, 5"):
        bdf_size(4)
    with pytest.raises(ParameterError, match=r"u=15 is not a prime power.*nearest valid: 13, 17"):
        bdf_size(15)
    with pytest.raises(ParameterError, match=r"v=6 is not a prime power.*nearest valid: 5, 7"):
        delorme_size(6)


def test_memsys_text_quotes_consistent_with_table1():
    # MEMSYS '16 Sec. 1.1 (Moore Graphs): "16 ports per router are required for a network of
    # 198 nodes"; "the largest known diameter-3 graph has 20 nodes, ... diameter-4 ... 38"
    assert MEMSYS16_TABLE1[16][0][1] == 198
    assert MEMSYS16_TABLE1[3][1][1] == 20 and MEMSYS16_TABLE1[3][2][1] == 38
