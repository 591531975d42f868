"""topogen reproduce graph-golf: registered, one row per case, gaps computed from the row."""

import pytest

from topogen import registry
from topogen.errors import ParameterError


def test_graph_golf_small_case():
    spec = registry.experiment("graph-golf")
    res = spec.func(seconds=0.5, cases="32:4,256:8", seed=3)
    t = res.table
    assert list(t.switches) == [32, 256] and list(t.degree) == [4, 8]
    row = t.iloc[1]
    assert row.record_aspl == 2.736 and row.record_diameter == 4
    assert row.gap_to_record_pct == pytest.approx(100 * (row.aspl / 2.736 - 1), abs=0.01)
    assert row.aspl >= row.aspl_bound and row.diameter >= row.diameter_bound
    assert t.iloc[0].record_aspl is None or t.iloc[0].record_aspl != t.iloc[0].record_aspl  # no record


def test_graph_golf_bad_cases():
    with pytest.raises(ParameterError, match="N:d"):
        registry.experiment("graph-golf").func(seconds=0.5, cases="256x8")
