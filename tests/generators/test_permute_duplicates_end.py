"""The ``duplicates="end"`` reading of the permutation's duplicate-link rule (Koibuchi et
al. III-A): swaps run on a multigraph, doubled links are removed once all swaps are done."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.generators.permute import permute, permute_edges, pf_torus, p_torus
from topogen.layout import Floor, place


def _base():
    t = torus((16, 16))
    return place(t, Floor.for_switches(256, 16), "sequential")


@pytest.mark.parametrize("method", ["partial", "full"])
def test_end_keeps_exactly_the_first_copy_of_each_link(method):
    lay = _base()
    edges, kept = permute_edges(lay.topology.edges, lay.cabinet, method, rng=7, duplicates="end")
    key = [tuple(sorted(e)) for e in edges.tolist()]
    first = {}
    for i, k in enumerate(key):
        first.setdefault(k, i)
    expect = np.zeros(len(key), bool)
    expect[list(first.values())] = True
    assert np.array_equal(kept, expect)
    # the multigraph before removal keeps every link's cabinet pair (cable conserved there)
    cab = lay.cabinet
    base = lay.topology.edges
    assert np.array_equal(np.sort(cab[edges], axis=1), np.sort(cab[base], axis=1))
    assert all(u != v for u, v in key)


def test_end_makes_swaps_that_skip_refuses():
    lay = _base()
    doubled = []
    for s in range(5):
        edges, kept = permute_edges(lay.topology.edges, lay.cabinet, "full", rng=s, duplicates="end")
        counts = Counter(tuple(sorted(e)) for e in edges.tolist())
        doubled.append(sum(c - 1 for c in counts.values()))
        assert (~kept).sum() == doubled[-1]
        _, kept_skip = permute_edges(lay.topology.edges, lay.cabinet, "full", rng=s, duplicates="skip")
        assert kept_skip.all()
    assert min(doubled) > 0  # the full method on a 256-switch torus always doubles some links


def test_generators_take_the_reading_and_record_it_only_when_not_default():
    t = pf_torus(4, duplicates="end", seed=3)
    assert t.params["duplicates"] == "end" and t.num_links < 512
    assert len({tuple(e) for e in t.edges.tolist()}) == t.num_links
    d = pf_torus(4, seed=3)
    assert "duplicates" not in d.params and d.num_links == 512
    p = p_torus(4, duplicates="end", seed=3)
    assert p.params["duplicates"] == "end"
    assert permute(_base(), "full", seed=3, duplicates="end").topology.params["duplicates"] == "end"


def test_unknown_reading_is_refused():
    with pytest.raises(ParameterError, match="duplicates must be one of skip, drop, end"):
        pf_torus(4, duplicates="late", seed=1)


@pytest.mark.slow
def test_pf_torus_6_end_reading_reaches_the_papers_spread():
    from topogen.metrics import distance_stats

    end = [distance_stats(pf_torus(6, duplicates="end", seed=s)).aspl_n2 for s in range(3)]
    skip = [distance_stats(pf_torus(6, seed=s)).aspl_n2 for s in range(3)]
    assert np.mean(skip) < 8.65 < 8.66 < np.mean(end) < 8.70
