"""A study's networks on real BookSim (:func:`topogen.reproduce.study.crosscheck`): the
Slim Fly Fig. 6 study at its quick size, SF at three loads and the DF and FT at two, on
both simulators with BookSim's own minimal routes (the only routing BookSim's anynet
has), compared within the crossval latency tolerance."""

from __future__ import annotations

import pytest

from topogen.reproduce import slimfly_sim as sfs
from topogen.reproduce import study as st

LOADS = {("SF-MIN", "6a"): [0.1, 0.3, 0.5], ("DF-UGAL-L", "6a"): [0.1, 0.3], ("FT-ANCA", "6a"): [0.1, 0.3]}


def test_the_spec_runs_the_study_networks_at_their_loads():
    study = sfs.study_of("quick")
    doc = st.crosscheck_document(study, LOADS)
    assert doc["axes"]["routing"] == ["booksim-min"] and doc["axes"]["simulator"] == ["reference", "booksim"]
    assert doc["axes"]["load"] == [0.1, 0.3, 0.5] and doc["measure"] == study.measure
    labels = {st.topology_label(t["generator"], t["params"]) for t in doc["axes"]["topology"]}
    assert labels == {study.label_of(k) for k in ("SF", "DF", "FT")}
    # DF and FT run two loads: 0.5 dropped for them
    assert sorted(e["topology"] for e in doc["exclude"]) == sorted([study.label_of("DF"), study.label_of("FT")])
    with pytest.raises(Exception, match="no curve"):
        st.crosscheck_document(study, {("SF-XYZ", "6a"): [0.1]})


@pytest.mark.booksim
def test_slim_fly_min_agrees_on_booksim(tmp_path):
    study = sfs.study_of("quick")
    table = st.crosscheck(study, {("SF-MIN", "6a"): [0.1, 0.3, 0.5], ("DF-UGAL-L", "6a"): [0.1, 0.3]}, tmp_path)
    assert len(table) == 5 and (table.status_reference == "completed").all()
    assert table.agree.all(), table.to_string()
    assert (table.latency_diff <= 0.03).all()
