"""reproduce slimfly-fig8: Slim Fly Fig. 8 (buffer sizes, oversubscription) on a tiny run."""

from __future__ import annotations

import math
import os
import shutil

import pandas as pd
import pytest

from topogen.errors import ParameterError
from topogen.reproduce import slimfly_fig8 as f8

TINY = dict(q=3, buffers="8,64", extra="3", traffic="uniform", loads="0.1,0.3,0.5,0.7", workers=1,
            max_samples=4)


def test_tiny_run_builds_the_oversubscribed_networks_and_checks_the_law():
    res = f8.reproduce_slimfly_fig8(**TINY)
    t, sat, cl = res.table, res.extra_tables["saturation"], res.extra_tables["claims"]
    assert set(t.panel) == {"8a", "8b-e"}
    assert set(t[t.panel == "8b-e"].p) == {3, 6}  # balanced p = ceil(5/2) = 3, plus 3
    assert set(t[t.panel == "8a"].buffer) == {8, 64}
    # more endpoints per router on the same 18 routers: the per-host saturation load falls
    s = sat[sat.panel == "8b-e"].set_index("p").saturation
    assert s[6] < s[3]
    row = cl[cl.claim.str.startswith("V-E: p=6")].iloc[0]
    ok = abs(s[6] - 0.5 * s[3]) <= 0.2 + 1e-9  # the law p_full/p within one load step
    assert row.verdict == ("holds" if ok else "differs")
    assert row.ours.startswith(f"{s[6]:g} / {s[3]:g}")
    # each curve stops at its first load that does not complete
    for _, g in t.groupby(["panel", "p", "buffer", "traffic"]):
        assert (g.status.iloc[:-1] == "completed").all()


def test_claims_on_a_made_up_table():
    sat = pd.DataFrame([
        dict(panel="8a", p=3, buffer=8, routing="VAL", traffic="worstcase", saturation=0.2, latency_low_load=10.0),
        dict(panel="8a", p=3, buffer=64, routing="VAL", traffic="worstcase", saturation=0.3, latency_low_load=10.0),
        dict(panel="8b-e", p=3, buffer=64, routing="MIN", traffic="uniform", saturation=0.6, latency_low_load=9.0),
        dict(panel="8b-e", p=4, buffer=64, routing="MIN", traffic="uniform", saturation=0.3, latency_low_load=9.0),
    ])
    table = pd.DataFrame([
        dict(panel="8a", buffer=8, offered=0.2, status="completed", latency_cycles=12.0),
        dict(panel="8a", buffer=64, offered=0.2, status="completed", latency_cycles=20.0),
    ])
    cl = f8.claims(table, sat, 3, 0.05).set_index("claim")
    assert cl.loc["V-D: bigger buffers enable higher bandwidth (worst case)", "verdict"] == "holds"
    assert cl.loc["V-D: smaller buffers give lower latency (stiffer backpressure)", "verdict"] == "holds"
    law = cl.loc["V-E: p=4 (p_full=3) accepts about p_full/p of the full bandwidth (uniform, MIN)"]
    assert law.verdict == "differs"  # 0.3 / 0.6 = 0.5, the law says 0.75
    # the paper's printed accepted shares against the same law
    assert cl.loc["V-E (paper's own numbers): p=16 accepts 80.0% vs 87.5 % at p=15", "verdict"] == "holds"
    assert math.isclose(f8.PAPER_ACCEPTED[18] / f8.PAPER_ACCEPTED[15], 0.857, abs_tol=1e-3)


@pytest.mark.parametrize("kw, match", [
    (dict(buffers="6"), "multiples of 4"),
    (dict(buffer_routing="ANCA"), "buffer_routing must be one of"),
    (dict(buffers="none", extra="none"), "nothing to simulate"),
    (dict(extra="0"), "positive integers"),
    (dict(q=6), "prime power"),
    (dict(loads="2"), "loads must be"),
])
def test_bad_arguments(kw, match):
    with pytest.raises(ParameterError, match=match):
        f8.reproduce_slimfly_fig8(**kw)


def test_what_booksim_cannot_run_is_refused_before_any_work(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ParameterError, match="slimfly-fig8: .*'valiant'.*--buffers none"):
        f8.reproduce_slimfly_fig8(simulator="booksim")
    with pytest.raises(ParameterError, match="slimfly-fig8: BookSim has no 'worstcase'"):
        f8.reproduce_slimfly_fig8(simulator="booksim", buffers="none")


@pytest.mark.booksim
@pytest.mark.skipif(not (os.environ.get("TOPOGEN_BOOKSIM") or shutil.which("booksim")),
                    reason="BookSim not found (TOPOGEN_BOOKSIM or booksim on PATH)")
def test_oversubscription_on_real_booksim(tmp_path):
    kw = dict(q=3, buffers="none", extra="3", traffic="uniform", loads="0.1,0.2", workers=1, max_samples=4)
    ref = f8.reproduce_slimfly_fig8(**kw).table
    res = f8.reproduce_slimfly_fig8(**kw, simulator="booksim", raw_dir=str(tmp_path / "raw"))
    t = res.table
    assert (t.status == "completed").all() and set(t.p) == {3, 6}
    # the same network and model at low load: latencies within 10 % (MIN's VCs differ)
    for p in (3, 6):
        a = t[(t.p == p) & (t.offered == 0.1)].latency_cycles.item()
        b = ref[(ref.p == p) & (ref.offered == 0.1)].latency_cycles.item()
        assert a == pytest.approx(b, rel=0.1)
    assert list((tmp_path / "raw").glob("booksim-*"))  # raw output kept
