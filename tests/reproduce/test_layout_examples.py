"""``topogen reproduce layout-examples``: Fig. 2 (the 18-switch, 3-cabinet permutation
example) and Fig. 11 (constrained shortcutting on 64 switches) of the layout-conscious
paper, their structural facts checked against counts made here."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import cli
from topogen.errors import ParameterError
from topogen.reproduce import layout_examples as le


@pytest.fixture(scope="module")
def result():
    return le.reproduce_layout_examples(seeds=4, anneal_iterations=2000)


def test_fig2_baseline_is_18_switches_on_3_cabinets_of_6():
    lays = le.fig2_layouts(7)
    base = lays["baseline"]
    assert base.topology.num_switches == 18
    assert np.bincount(base.cabinet).tolist() == [6, 6, 6]
    # a 6 x 3 torus: a ring of 6 inside each cabinet, 6 links between every two cabinets
    counts = {}
    for u, v in base.topology.edges.tolist():
        a, b = sorted((u // 6, v // 6))
        counts[a, b] = counts.get((a, b), 0) + 1
    assert counts == {(0, 0): 6, (1, 1): 6, (2, 2): 6, (0, 1): 6, (0, 2): 6, (1, 2): 6}
    assert le.link_counts(base.topology.edges, base.cabinet) == counts


def test_fig2_permutations_keep_the_cabinet_pairs_and_degrees():
    for seed in (1, 2, 3):
        lays = le.fig2_layouts(seed)
        base = lays["baseline"]
        b_deg = np.bincount(base.topology.edges.ravel(), minlength=18)
        for kind in ("P", "PF"):
            lay = lays[kind]
            e = lay.topology.edges
            assert le.link_counts(e, lay.cabinet) == le.link_counts(base.topology.edges, base.cabinet)
            assert np.array_equal(np.bincount(e.ravel(), minlength=18), b_deg)
            assert lay.total_cable_length == pytest.approx(base.total_cable_length)
            assert {tuple(sorted(x)) for x in e.tolist()} != {tuple(sorted(x)) for x in base.topology.edges.tolist()}


def test_fig2_rows_detect_a_broken_permutation(monkeypatch):
    """The per-seed checks fail when a permutation moves a link to another cabinet pair."""
    real = le.fig2_layouts

    def broken(seed):
        lays = real(seed)
        from topogen.layout import Layout
        from topogen.topology import Topology

        t = lays["P"].topology
        e = t.edges.copy()
        i = int(np.flatnonzero((e[:, 0] // 6) == (e[:, 1] // 6))[0])  # an intra-cabinet link
        u = int(e[i, 0])
        others = [w for w in range(18) if w // 6 != u // 6 and not ((e == [u, w]).all(1).any()
                                                                     or (e == [w, u]).all(1).any())]
        e[i] = [u, others[0]]
        lays["P"] = Layout(Topology(18, e, 1, name="broken"), lays["P"].floor, lays["P"].cabinet)
        return lays

    monkeypatch.setattr(le, "fig2_layouts", broken)
    rows = {r["topology"]: r for r in le.fig2_row(5)}
    assert not rows["P"]["pair_counts_kept"] and not rows["P"]["degrees_kept"]
    assert rows["PF"]["pair_counts_kept"]


def test_ring_distance_is_the_shorter_way_round():
    assert le.ring_distance(64, [0, 0, 5, 63], [1, 63, 37, 31]).tolist() == [1, 1, 32, 32]


def test_fig11_shortcuts_respect_the_bound_counted_here():
    for seed in (1, 2, 3, 4):
        t, lab = le.fig11_instance(seed, 4)
        assert t.num_switches == 64
        longest = 0
        for u, v in t.edges.tolist():
            d = abs(u - v)
            longest = max(longest, min(d, 64 - d))
        assert longest - 1 <= 0.35 * 64 and longest < 32
        assert np.bincount(lab).max() <= 16


def test_claims_hold_and_are_judged_on_every_seed(result):
    claims = result.table
    assert set(claims.figure) == {"Fig. 2", "Fig. 11"}
    six_row = claims.claim.str.contains("six clusters")
    others = claims[~six_row]
    assert (others.verdict == "holds").all(), others[others.verdict != "holds"].to_string()
    f11 = result.extra_tables["fig11"]
    assert len(f11) == 4 and (f11.max_bypassed <= 22).all()
    six = claims[six_row].iloc[0]
    assert f"{f11.clusters.min()}-{f11.clusters.max()}" in six.topogen
    assert six.verdict == ("holds" if f11.clusters.min() <= 6 <= f11.clusters.max() else "differs")


def test_six_cluster_verdict_follows_the_seeds():
    import pandas as pd

    rows = pd.DataFrame([dict(seed=s, max_hops=22, max_bypassed=21, mean_hops=12.0, cross_cutting=0, clusters=c,
                              largest_cluster=16, weights_ok=True, cable_anneal_m=1.0, cable_serpentine_m=1.0)
                         for s, c in enumerate((4, 5, 5))])
    got = {r["claim"]: r["verdict"] for r in le.fig11_claims(rows, 4)}
    assert got["step 2: the clustering forms six clusters"] == "differs"
    rows.loc[0, "max_bypassed"] = 23
    got = {r["claim"]: r["verdict"] for r in le.fig11_claims(rows, 4)}
    assert got["shortcuts bypass at most 0.35 N switches (N = 64, Nbr(0.7)-4)"] == "differs"


def test_drawings_are_written(tmp_path):
    out = tmp_path / "ex"
    le.reproduce_layout_examples(seeds=2, anneal_iterations=500, out=str(out))
    for name in ("fig2.png", "fig2-floor-baseline.png", "fig2-floor-P.png", "fig2-floor-PF.png", "fig11.png",
                 "fig11-floor.png"):
        assert (out / name).stat().st_size > 1000, name


@pytest.mark.parametrize("kw, match", [(dict(seeds=0), "seeds"), (dict(degree=2), "degree"),
                                       (dict(anneal_iterations=-1), "anneal_iterations")])
def test_bad_parameters(kw, match):
    with pytest.raises(ParameterError, match=match):
        le.reproduce_layout_examples(**kw)


def test_cli_runs_it(tmp_path, capsys):
    code = cli.main(["reproduce", "layout-examples", "--seeds", "2", "--anneal_iterations", "200"])
    assert code == 0
    assert "Fig. 11" in capsys.readouterr().out
