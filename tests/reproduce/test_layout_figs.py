"""Koibuchi et al. Figs. 12-17 (``topogen reproduce layout-fig*``): the figure computations on
small cases, the claims logic, the CLI and --plot."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from topogen.cli import main
from topogen.reproduce import layout_figs as lf
from topogen.generators.classic import hypercube
from topogen.generators.shortcut import gau, nbr
from topogen.topology import Topology


def test_shortcut_hops_counts_ring_hops_of_shortcuts_only():
    n = 12
    v = np.arange(n)
    ring_links = np.stack([v, (v + 1) % n], axis=1)
    edges = np.concatenate([ring_links, [[0, 6], [2, 5], [1, 11]]])
    kinds = np.r_[np.zeros(n, np.int8), np.ones(3, np.int8)]
    t = Topology(n, edges, link_kind=kinds, kind_names=("ring", "shortcut"))
    assert lf.shortcut_hops(t) == pytest.approx((6 + 3 + 2) / 3)


def test_nbr_shortcuts_respect_the_bound_and_gau_grows_with_alpha():
    t = nbr(256, 6, 0.25, seed=1)
    assert 1 < lf.shortcut_hops(t) <= 256 * 0.25 / 2
    assert lf.shortcut_hops(gau(256, 6, 0.2, seed=1)) < lf.shortcut_hops(gau(256, 6, 1.0, seed=1))


def test_fig12_table_small():
    t = lf.fig12_table((64,), (4,), ps=(0.25, 0.75), alphas=(0.3,), seed_list=(1, 2))
    assert list(t.method) == ["Nbr", "Nbr", "Gau", "RING"]
    nb = t[t.method == "Nbr"]
    assert (nb.shortcut_hops.to_numpy() <= 64 * nb.value.to_numpy() / 2).all()
    # wider shortcuts: shorter paths
    assert nb.aspl.iloc[1] < nb.aspl.iloc[0]
    claims = lf.fig12_claims(t)
    assert set(claims.verdict) <= {"agrees", "differs"} and len(claims) >= 2


def test_layout_table_hypercube_is_exact_and_sa_never_longer():
    raw = lf.layout_table((32, 64), (1,), ("HYPERCUBE", "Nbr(0.5)"), iterations=500)
    hc = raw[(raw.topology == "HYPERCUBE") & (raw.clustering == "sequential")].set_index("N")
    # cabinets of 16 = bits 0..3: the links of the higher dimensions leave the cabinet
    assert hc.inter_cabinet_links.to_dict() == {32: 16, 64: 64}
    assert hc.links.to_dict() == {32: hypercube(5).num_links, 64: hypercube(6).num_links}
    assert (raw.cable_sa <= raw.cable_base + 1e-9).all()
    assert (raw.degree == np.log2(raw.N)).all()


def _fake(values):
    """A Fig. 14/15 summary table from {(N, topology, clustering): (links, base, sa)}."""
    rows = [{"N": n, "degree": int(np.log2(n)), "topology": t, "clustering": c,
             "inter_cabinet_links": v[0], "cable_base": v[1], "cable_sa": v[2]}
            for (n, t, c), v in values.items()]
    return pd.DataFrame(rows)


def test_fig14_claims_verdicts_follow_the_numbers():
    vals = {}
    for n, ring_links, nbr_links in ((64, 100, 76), (1024, 4000, 3950)):  # RING +59 % at 64
        vals[(n, "HYPERCUBE", "sequential")] = ((ring_links + 5) / (1.59 if n == 64 else 1.2), 0, 0)
        vals[(n, "HYPERCUBE", "walktrap")] = (ring_links, 0, 0)
        vals[(n, "RING", "sequential")] = (ring_links + 5, 0, 0)
        vals[(n, "RING", "walktrap")] = (ring_links, 0, 0)
        vals[(n, "Nbr(0.5)", "sequential")] = (nbr_links + 5, 0, 0)
        vals[(n, "Nbr(0.5)", "walktrap")] = (nbr_links, 0, 0)
    c = lf.fig14_claims(_fake(vals)).set_index("claim")
    ring_walk = "RING-n inter-cabinet links 59% larger than HYPERCUBE's (RING walktrap, HC seq)"
    assert c.loc[ring_walk, "verdict"] == "differs"  # +51 %
    assert "+59 %" in c.loc[ring_walk.replace("walktrap", "sequential"), "ours"]
    assert (c.drop(ring_walk).verdict == "agrees").all(), c
    assert "up to -24.0 % (N=64)" in c.loc["Nbr(0.5)-n reduces inter-cabinet links by up to 24% vs RING-n (walktrap)", "ours"]
    vals[(1024, "Nbr(0.5)", "walktrap")] = (4100, 0, 0)  # walk now worse than seq
    c = lf.fig14_claims(_fake(vals)).set_index("claim")
    assert c.loc["Walktrap outperforms sequential for Nbr(0.5)-n", "verdict"] == "differs"


def test_fig15_claims_verdicts_follow_the_numbers():
    vals = {}
    for n in (64, 8192):
        vals[(n, "HYPERCUBE", "sequential")] = (0, 8.0, 7.0)
        for clu in ("walktrap", "sequential"):
            vals[(n, "RING", clu)] = (0, 16.5, 15.0)
            vals[(n, "Nbr(0.5)", clu)] = (0, 12.2, 11.1)
    c = lf.fig15_claims(_fake(vals)).set_index("claim")
    assert c.loc["Nbr(0.5)-n average cable 26% below RING-n (SA, walktrap clusters)", "verdict"] == "agrees"
    assert c.loc["Nbr(0.5)-n at 8,192 switches (SA)", "verdict"] == "agrees"
    assert c.loc["HYPERCUBE at 8,192 switches (SA)", "ours"] == "7.0 m (sequential)"
    assert c.loc["HYPERCUBE leads to markedly lower average cable", "verdict"] == "agrees"
    # SA gains: RING 16.5 -> 15.0 (9.1 %) agrees; Nbr 12.2 -> 11.1 (9.0 %) agrees
    assert c.loc["SA improvement around 10% for RING-n (walktrap clusters)", "verdict"] == "agrees"
    vals[(8192, "Nbr(0.5)", "walktrap")] = (0, 15.0, 14.9)
    c = lf.fig15_claims(_fake(vals)).set_index("claim")
    assert c.loc["SA improvement around 10% for Nbr(0.5)-n (walktrap clusters)", "verdict"] == "differs"
    assert c.loc["Nbr(0.5)-n average cable 26% below RING-n (SA, walktrap clusters)", "verdict"] == "differs"


def test_path_time_counts_sources():
    sec, k = lf.path_time(hypercube(6), limit=10, chunk=4)
    assert k == 10 and sec >= 0


def test_reproduce_fig14_cli_with_plot(tmp_path, capsys):
    out = tmp_path / "f14.png"
    assert main(["reproduce", "layout-fig14", "--sizes", "32,64", "--seeds", "1", "--plot", str(out)]) == 0
    text = capsys.readouterr().out
    assert "claims" in text and "inter-cabinet" in text
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv", [
    ["reproduce", "layout-fig14", "--sizes", "48"],
    ["reproduce", "layout-fig14", "--sizes", "32", "--plot", "f.txt"],
    ["reproduce", "layout-fig15", "--sizes", "32", "--plot", "/nonexistent/dir/f.png"],
    ["reproduce", "layout-fig12", "--seeds", "x"],
])
def test_reproduce_bad_input_one_line(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert code not in (0, 70) and err.count("\n") == 1 and err.startswith("topogen: error:")


@pytest.mark.slow
def test_fig14_default_sizes_agree_where_the_paper_does():
    res = lf.reproduce_layout_fig14(sizes=(64, 1024), seeds=3)
    c = res.extra_tables["claims"].set_index("claim")
    assert c.loc["sequential better than Walktrap for HYPERCUBE", "verdict"] == "agrees"
    t = res.table.set_index(["N", "topology", "clustering"]).inter_cabinet_links
    # the reduction of Nbr(0.5) against RING shrinks with N (shortcuts up to N/4 hops long)
    red = {n: 1 - t[(n, "Nbr(0.5)", "sequential")] / t[(n, "RING", "sequential")] for n in (64, 1024)}
    assert red[64] > 0.15 and red[1024] < 0.05


@pytest.mark.slow
def test_fig15_and_fig16_small():
    res = lf.reproduce_layout_fig15(sizes=(64, 256), seeds=1, iterations=20000)
    t = res.table
    assert (t.cable_sa <= t.cable_base + 1e-9).all()
    res16 = lf.reproduce_layout_fig16(seeds=1, iterations=20000)
    assert len(res16.table) == 8 and "claims" in res16.extra_tables


def test_layout_figs_collects_every_claim(monkeypatch):
    from topogen.reproduce._base import ExperimentResult

    def stub(fig):
        def run(**kwargs):
            claims = pd.DataFrame([lf._claim(fig, f"claim of {fig}", "p", "o", fig != "15")])
            return ExperimentResult(f"Fig. {fig}", pd.DataFrame({"x": [1]}), ["a", f"note {fig}"],
                                    {"claims": claims})
        return run

    for fig in ("12", "14", "15", "16", "17"):
        monkeypatch.setattr(lf, f"reproduce_layout_fig{fig}", stub(fig))
    res = lf.reproduce_layout_figs(seeds=1)
    assert list(res.table.figure) == ["12", "14", "15", "16", "17"]
    assert list(res.table.verdict) == ["agrees", "agrees", "differs", "agrees", "agrees"]
    assert set(res.extra_tables) == {"Fig. 12", "Fig. 14", "Fig. 15", "Fig. 16", "Fig. 17"}
    assert "Fig. 15: note 15" in res.notes
