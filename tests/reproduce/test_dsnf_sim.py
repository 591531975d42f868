"""``reproduce dsnf-sim`` (DSN-F V, Figs. 8-9)."""

import pandas as pd
import pytest

from topogen.errors import ParameterError
from topogen.reproduce import dsnf_sim as ds


def _table(lat, sat, aspl):
    return pd.DataFrame([{"key": k, "topology": ds.NETWORKS[k], "traffic": "uniform", "aspl": aspl[k],
                          "zero_load_ns": lat[k], "sat_load": sat[k]} for k in lat])


def test_claims_follow_the_aspl_order_and_the_similarity_bound():
    aspl = {"dsnf": 4.25, "dsn": 4.3, "torus": 6.05, "dln": 3.9}
    ok = ds._claims(_table({"dsnf": 690, "dsn": 700, "torus": 900, "dln": 650},
                           {"dsnf": 0.40, "dsn": 0.41, "torus": 0.44, "dln": 0.42}, aspl), 0.25)
    assert ok["ours"].tolist() == [True, True, True]
    # DSN-F slower than DSN although its ASPL is lower: the order claim fails
    bad = ds._claims(_table({"dsnf": 710, "dsn": 700, "torus": 900, "dln": 650},
                            {"dsnf": 0.30, "dsn": 0.41, "torus": 0.44, "dln": 0.42}, aspl), 0.25)
    assert bad["ours"].tolist() == [False, True, False]  # 0.30 < 0.75 x 0.44


def test_bad_arguments_are_one_line_errors():
    with pytest.raises(ParameterError, match="topologies must be 'all' or a comma-separated list"):
        ds.reproduce_dsnf_sim(topologies="fattree")
    with pytest.raises(ParameterError, match="need 0 < low < high <= 1"):
        ds.reproduce_dsnf_sim(low=0.5, high=0.2)


@pytest.mark.slow
def test_two_networks_uniform(tmp_path):
    res = ds.reproduce_dsnf_sim(traffic="uniform", topologies="dsnf,torus", tolerance=0.05,
                                results=str(tmp_path / "r.csv"))
    t = res.table.set_index("topology")
    assert t.loc["DSN-F", "aspl"] < t.loc["2-D torus", "aspl"]
    assert t.loc["DSN-F", "zero_load_ns"] < t.loc["2-D torus", "zero_load_ns"]
    assert (t["sat_load"] > 0.2).all() and (t["limit"] != "deadlock").all()
    again = ds.reproduce_dsnf_sim(traffic="uniform", topologies="dsnf,torus", tolerance=0.05,
                                  results=str(tmp_path / "r.csv"))
    assert "0 simulations" in again.notes[0]  # every point reused from the results file
