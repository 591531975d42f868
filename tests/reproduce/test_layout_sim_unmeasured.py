"""A claim of ``reproduce layout-sim`` about several networks is judged only when every
one of them ran: otherwise it reads ``not measured`` and names what is missing."""

import math

import pandas as pd

from topogen.reproduce import layout_sim as ls

ORDER = "saturation reached first by TORUS-4, then PF-TORUS-4, P-TORUS-4, RING-4"


def _table(traffic, lat, sat):
    return pd.DataFrame([{"key": k, "topology": ls.NETWORKS[k][0], "traffic": traffic,
                          "zero_load_ns": lat[k], "sat_gbps": sat[k]} for k in lat])


def test_an_order_of_four_networks_is_not_judged_on_two():
    lat = {"torus4": 1500.0, "ring4": 790.0}
    sat = {"torus4": 3.0, "ring4": 6.0}
    c = ls._claims(_table("uniform", lat, sat), points=5.0, similar=0.25).set_index("claim")
    assert c.loc[ORDER, "verdict"] == "not measured"
    assert c.loc[ORDER, "ours"] == "missing PF-TORUS-4, P-TORUS-4"
    key = "TORUS-4 widely outperformed by same-degree random topologies (latency)"
    assert c.loc[key, "verdict"] == "not measured"


def test_a_network_without_a_saturation_leaves_the_order_unjudged():
    lat = {"torus4": 1500.0, "pf-torus4": 1000.0, "p-torus4": 950.0, "ring4": 790.0}
    sat = {"torus4": 3.0, "pf-torus4": 4.0, "p-torus4": math.nan, "ring4": 6.0}
    c = ls._claims(_table("uniform", lat, sat), points=5.0, similar=0.25).set_index("claim")
    assert c.loc[ORDER, "verdict"] == "not measured" and "P-TORUS-4" in c.loc[ORDER, "ours"]
    # the latency claim needs only latencies, all of which ran
    key = "TORUS-4 widely outperformed by same-degree random topologies (latency)"
    assert c.loc[key, "verdict"] == "holds"


def test_fig13_needs_all_five_networks():
    lat = {"ring8": 560.0, "nbr04": 600.0, "nbr05": 580.0}
    sat = {"ring8": 12.0, "nbr04": 6.0, "nbr05": 11.0}
    c = ls._claims(_table("transpose", lat, sat), points=5.0, similar=0.25).set_index("claim")
    key = "Fig. 13, transpose: throughput decreases significantly for Nbr(0.4)-8 and Gau(0.7)-8"
    assert c.loc[key, "verdict"] == "not measured"
    assert "Gau(0.7)-8" in c.loc[key, "ours"] and "Gau(1.0)-8" in c.loc[key, "ours"]


def test_dsnf_claims_about_four_networks_are_not_judged_on_two():
    from topogen.reproduce import dsnf_sim as ds

    t = pd.DataFrame([{"key": k, "topology": ds.NETWORKS[k], "traffic": "uniform", "aspl": a,
                       "zero_load_ns": z, "sat_load": s}
                      for k, a, z, s in (("dsnf", 4.2, 690, 0.4), ("torus", 6.0, 900, 0.44))])
    c = ds._claims(t, 0.25)
    assert c["ours"].isna().all() and len(c) == 3
    assert (c["numbers"] == "not measured: missing DSN, DLN-4").all()
