"""MEMSYS '16 Fig. 11's "under 30 ports" readings, Fig. 14's largest sizes, and DSN-F's
IV-B ASPL-gap readings: each number against an independent computation."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from topogen.reproduce import dsn as rd
from topogen.reproduce import memsys_figs as mf


def _prime_power(q):
    return any(q == b**k for b in range(2, q + 1) for k in range(1, 20) if b**k <= q
               and all(b % d for d in range(2, b)))


# --------------------------------------------------------------------------- Fig. 11
def test_fig11_butterfly_reading_matches_brute_force():
    table = mf.fig11_readings().set_index(["reading", "question"])
    # fewest ports D (n - 1) with n^D >= 10^6, enumerated independently
    best = min((d * (n - 1), n**d, d, n) for d in range(2, 11) for n in range(2, 1001) if n**d >= 10**6)
    row = table.loc[("flattened-butterfly 2-D..10-D", "fewest ports at >= 1,000,000 nodes")]
    assert (row.ports, row.nodes) == best[:2] == (30, 4**10)
    assert row.at_most_30 and not row.under_30 and row.ports_with_endpoint == 31
    high = min((d * (n - 1), n**d) for d in range(11, 21) for n in range(2, 1001) if n**d >= 10**6)
    assert table.loc[("flattened-butterfly 11-D..20-D", "fewest ports at >= 1,000,000 nodes")].ports == high[0]


def test_fig11_fishnet_best_defined_is_er_lite_34():
    table = mf.fig11_readings()
    first = table[table.question.str.startswith("fewest") & table.defined]
    fish = first[first.family.isin(["angelfish", "angelfish-lite", "flying-fish", "flying-fish-lite"])]
    # independent: ER_q has q^2 + q + 1 routers, max degree q + 1; Lite: n (n + 1) nodes, max degree + 1 ports
    er = min(q + 2 for q in range(2, 80) if _prime_power(q) and (q * q + q + 1) * (q * q + q + 2) >= 10**6)
    mms = min((3 * q - {1: 1, 3: -1, 0: 0}[q % 4]) // 2 + 1 for q in range(3, 80)
              if q % 4 != 2 and _prime_power(q) and 2 * q * q * (2 * q * q + 1) >= 10**6)
    assert (er, mms) == (34, 36)
    assert fish.ports.min() == er and not fish.under_30.any()
    lite3 = table[(table.family == "fishnet-lite-fb3d") & table.question.str.startswith("fewest")].iloc[0]
    assert (lite3.ports, lite3.nodes) == (28, 1_001_000) and not lite3.defined


@pytest.mark.parametrize("q", [2, 3, 4])
def test_er_subnet_angelfish_lite_matches_the_readings_formula(q):
    from topogen.generators.fishnet import angelfish_lite
    from topogen.generators.polarfly import polarfly

    sub = polarfly(q)
    g = sub.to_networkx()
    assert nx.diameter(g) == 2 and max(d for _, d in g.degree()) == q + 1
    af = angelfish_lite(sub)
    n = q * q + q + 1
    assert af.num_switches == n * (n + 1) and af.degree == q + 2
    rows = pd.DataFrame(mf._fishnet_candidates())
    r = rows[(rows.family == "angelfish-lite") & rows.subnet.str.startswith(f"ER/PolarFly q={q} ")].iloc[0]
    assert (r.nodes, r.ports) == (af.num_switches, af.degree)


def test_fig11_claims_name_the_readings():
    table, _ = mf.build_rows(30, 1_200_000, 1, 0)
    claims = pd.DataFrame(mf._claims11(table))
    fb = claims[claims.claim.str.startswith("high-diameter flattened")].iloc[0]
    assert fb.verdict == "agrees" and "'at most 30'" in fb.ours and "31 with the endpoint" in fb.ours
    fish = claims[claims.claim.str.startswith("Fishnet designs")].iloc[0]
    assert fish.verdict == "differs" and "34 ports" in fish.ours and "28 at 1,001,000" in fish.ours


# --------------------------------------------------------------------------- Fig. 14
def _formula_table(lo=999_999, hi=1_200_000):
    t = pd.DataFrame(mf._formula_rows(lo, hi) + mf._moore_rows(hi))
    t = t[(t.ports <= mf.MAX_PORTS) & ~(t.avg_hops > mf.MAX_HOPS) & (t.nodes > lo)]
    t["group"] = t.family.map(mf._group)
    return t.reset_index(drop=True)


def test_largest_sizes_efficiencies_independent():
    big = mf.largest_sizes(_formula_table()).set_index("family")
    # 3-D flattened butterfly n = 100: bisection n^2 (n/2)^2, ports 3 (n - 1), avg 3 (n - 1) n^2 / (n^3 - 1)
    n = 100
    eff = (n**2 * (n / 2) ** 2) / (3 * (n - 1) * (3 * (n - 1) * n**2 / (n**3 - 1))) / n**3
    assert big.loc["flattened-butterfly-3d"].efficiency == pytest.approx(eff, rel=1e-12)
    # the unbuilt Fishnets use the maximum latency 4 and say so
    ff = big.loc["flying-fish"]
    assert ff.latency == 4 and "too large to build" in ff.latency_source
    assert ff.efficiency == pytest.approx(27**5 / (106 * 4) / (2 * 27**4))
    af = big.loc["angelfish"]
    assert af.efficiency == pytest.approx(35 * 1059**2 / 4 / (70 * 4) / (1058 * 1059))
    assert not big.loc["moore-3"].network and big.loc["flying-fish"].network


def test_claims14_largest_break_even_and_sampled_hops():
    t = _formula_table()
    claims = pd.DataFrame(mf._claims14_largest(t, {}))
    spec = claims[claims.claim.str.contains("specifically")].iloc[0]
    even = (27 / (2 * 106)) / (1059 / (8 * 1058)) - 1
    assert f"{100 * even:.2f} %" in spec.ours and spec.verdict == "differs"
    assert claims.iloc[0].verdict == "agrees"  # a Fishnet leads even at its maximum latency
    # measured hops: Angelfish 3.80 vs Flying Fish 3.90 (> the break-even) puts Angelfish first
    hops = {("angelfish", "mms q=23"): (3.80, 0.0), ("flying-fish", "n=27"): (3.80 * (1 + even) + 0.01, 0.0)}
    big = mf.largest_sizes(t, hops)
    big = big[big.network]
    assert big.iloc[0].family == "angelfish" and "sampled" in big.iloc[0].latency_source
    assert pd.DataFrame(mf._claims14_largest(t, hops)).iloc[1].verdict == "agrees"


# --------------------------------------------------------------------------- DSN-F IV-B
def _dsn_x(rows):
    return pd.DataFrame([dict(switches=n, p=p, x=p - 1, aspl=a, dsnf_aspl_lower_pct_seq=g,
                              dsnf_aspl_lower_pct_bal=gb, dsnf_diameter_lower_pct_seq=d,
                              dsnf_diameter_lower_pct_bal=d) for n, p, a, g, gb, d in rows])


def test_aspl_gap_readings_arithmetic():
    dsn_x = _dsn_x([(128, 7, 4.0, 0.0, 0.0, 0.0), (256, 8, 5.0, 10.0, 8.0, 12.5), (512, 9, 6.0, 4.6, 3.0, 0.0)])
    table = pd.DataFrame({"switches": [512], "topology": ["DSN-F"], "aspl": [6.0 * 0.954]})
    r = rd.aspl_gap_readings(dsn_x, table).set_index("reading")
    assert r.loc["max over sizes of 100 (1 - DSN-F / DSN), x = p - 1, seq fill"].value_pct == 10.0
    assert r.loc["mean over sizes, seq fill"].value_pct == pytest.approx((0 + 10 + 4.6) / 3, abs=0.005)
    assert r.loc["smallest positive gap over sizes, seq fill"].reaches_4_6
    assert r.loc["max of 100 (DSN / DSN-F - 1) (against DSN-F), seq fill"].value_pct == pytest.approx(100 / 9, abs=0.005)
    last = r.iloc[-1]
    assert last.name.startswith("largest size only (512") and "<= 6.0031" in last.how  # 5.724 / 0.9535


def test_aspl_gap_readings_on_built_networks():
    res = rd.reproduce_dsnf(min_exponent=7, max_exponent=9, base=64, step=64)
    r = res.extra_tables["aspl_gap_readings"]
    main = res.table.set_index(["switches", "topology"])
    gaps = [100 * (1 - main.loc[(n, "DSN-F"), "aspl"] / main.loc[(n, "DSN"), "aspl"]) for n in (128, 256, 512)]
    assert r.iloc[0].value_pct == pytest.approx(max(gaps), abs=0.01)
    assert not r.reaches_4_6.any()


def test_largest_hops_samples_the_built_fishnets():
    from topogen.generators.fishnet import angelfish, flying_fish, subnet_topology

    hops = mf._largest_hops(True, sample=10_000, sizes=(5, 3))  # sample >= N: exact
    assert set(hops) == {("angelfish", "mms q=5"), ("flying-fish", "n=3")}
    for (fam, _), make in ((("angelfish", 0), lambda: angelfish(subnet_topology("mms", 5))),
                           (("flying-fish", 0), lambda: flying_fish(3))):
        key = next(k for k in hops if k[0] == fam)
        assert hops[key][0] == pytest.approx(nx.average_shortest_path_length(make().to_networkx()))
    assert mf._largest_hops(False) == {}
