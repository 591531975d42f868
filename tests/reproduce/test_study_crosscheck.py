"""The cross-check specs of :mod:`topogen.reproduce.study`: a study's networks on the
reference simulator and BookSim with one routing and one ``[measure]``
(:func:`~topogen.reproduce.study.crosscheck_document`), and a study's curves at fixed
loads (:func:`~topogen.reproduce.study.fixed_load_document`); Fig. 6a's run of them is in
``test_slimfly_crosscheck.py``."""

from __future__ import annotations

import pytest

from topogen.errors import ParameterError
from topogen.reproduce import slimfly_sim as sfs
from topogen.reproduce import study as st

MEASURE = {"packet_size": 1, "num_vcs": 3, "vc_buf_size": 21, "link_latency": 1, "internal_speedup": 2.0}


def test_each_network_runs_its_own_loads_and_routing_on_both_simulators(tmp_path):
    nets = [st.CrossNetwork("A", "slimfly", {"q": 3}, "booksim-min"),
            st.CrossNetwork("B", "kary-ntree", {"k": 2, "n": 3}, "anca",
                            booksim={"topology": "fattree", "k": 2, "n": 3, "routing_function": "anca"})]
    doc = st.crosscheck_document("cc", nets, {"A": [0.1, 0.3], "B": [0.2]}, MEASURE, repeats=2)
    assert doc["axes"]["simulator"] == ["reference", "booksim"] and doc["axes"]["repeats"] == 2
    assert doc["axes"]["load"] == [0.1, 0.2, 0.3] and doc["measure"] == MEASURE
    assert doc["axes"]["topology"][1]["booksim"]["topology"] == "fattree"
    exp = st.write_spec(doc, tmp_path, "a test")
    got = sorted((p.content["topology"]["generator"], p.content["routing"], p.content["load"], p.content["simulator"],
                  p.content["repeat"]) for p in exp.points)
    assert got == sorted((g, r, x, s, k) for g, r, xs in (("slimfly", "booksim-min", (0.1, 0.3)),
                                                          ("kary-ntree", "anca", (0.2,)))
                         for x in xs for s in ("reference", "booksim") for k in range(2))
    with pytest.raises(ParameterError, match="runs on booksim"):
        st.crosscheck_document("cc", nets, {"A": [0.1]}, MEASURE, simulator="sst")
    with pytest.raises(ParameterError, match="repeats must be"):
        st.crosscheck_document("cc", nets, {"A": [0.1]}, MEASURE, repeats=0)


def test_a_studys_curves_at_fixed_loads(tmp_path):
    study = sfs.study_of("quick", ["uniform"], ["MIN", "VAL"], ["DF-UGAL-L"])
    doc = st.fixed_load_document(study, {("SF-MIN", "6a"): [0.1, 0.3], ("DF-UGAL-L", "6a"): [0.1]})
    assert "sweep" not in doc and doc["axes"]["load"] == [0.1, 0.3] and doc["reference"] == study.reference
    exp = st.write_spec(doc, tmp_path, "a test")
    got = sorted((p.content["topology"]["generator"], p.content["routing"], p.content["load"]) for p in exp.points)
    assert got == [("dragonfly", "ugal-l", 0.1), ("slimfly", "hop", 0.1), ("slimfly", "hop", 0.3)]
    with pytest.raises(ParameterError, match="no curve SF-XYZ"):
        st.fixed_load_document(study, {("SF-XYZ", "6a"): [0.1]})
