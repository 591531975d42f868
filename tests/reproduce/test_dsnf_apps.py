"""`topogen reproduce dsnf-apps` (DSN-F Fig. 10 with application-like workloads): the quick
run end to end, Fig. 10's numbers recomputed from the measured times, and verdicts that
are "not measured" unless every network ran."""

import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from topogen.errors import ParameterError
from topogen.reproduce.dsnf_apps import APPS, NETWORKS, claims, relative, reproduce_dsnf_apps

ROOT = Path(__file__).resolve().parents[2]


def test_registered():
    from topogen import registry

    assert registry.experiments()["dsnf-apps"].paper.startswith("DSN-F")


def _table(cycles: dict) -> pd.DataFrame:
    """A results table from {(app label, network label): cycles}."""
    return pd.DataFrame([{"app": a, "network": n, "cycles": c} for (a, n), c in cycles.items()])


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("dsnf-apps")
    return out, reproduce_dsnf_apps(quick=True, out=str(out))


def test_quick_run_measures_every_network_and_application(quick):
    out, res = quick
    t = res.table
    assert len(t) == len(NETWORKS) * len(APPS)
    assert (t["status"] == "completed").all() and (t["cycles"] > 0).all()
    assert set(t["ranks"]) == {32}
    # Fig. 10's numbers: the torus's time over the network's, recomputed from the table
    fig = res.extra_tables["fig10 (relative to 2-D torus)"].set_index("app")
    cyc = t.set_index(["app", "network"])["cycles"]
    for app in APPS.values():
        for net in NETWORKS.values():
            assert fig.loc[app, net] == pytest.approx(cyc[app, "2-D torus"] / cyc[app, net])
    assert (fig["2-D torus"] == 1.0).all()
    for net in NETWORKS.values():
        assert fig.loc["Ave", net] == pytest.approx(sum(fig.loc[a, net] for a in APPS.values()) / len(APPS))
    verdicts = res.extra_tables["claims"]["verdict"]
    assert len(verdicts) == 3 and set(verdicts) <= {"holds", "differs"}
    png = out / "fig10.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "claims.csv").exists() and (out / "apps.csv").exists()


def test_a_missing_network_makes_every_claim_not_measured():
    nets = [n for n in NETWORKS.values() if n != "DLN-4"]
    rel = relative(_table({(a, n): 100 for a in APPS.values() for n in nets}))
    c = claims(rel)
    assert list(c["verdict"]) == ["not measured"] * 3
    assert all("DLN-4" in text for text in c["ours"])


def test_claims_judge_almighty_average_and_ep():
    base = {(a, n): 100.0 for a in APPS.values() for n in NETWORKS.values()}
    # DSN-F fastest on every application: an almighty topology, averages not similar
    fast = {**base, **{(a, "DSN-F"): 50.0 for a in APPS.values()}}
    c = claims(relative(_table(fast))).set_index("claim")["verdict"].tolist()
    assert c == ["differs", "differs", "holds"]
    # all equal within the 1 % tie: everyone is "best everywhere"; EP does not differ
    c = claims(relative(_table(base))).set_index("claim")["verdict"].tolist()
    assert c == ["differs", "holds", "differs"]
    # DSN-F best on EP, the torus best elsewhere, each by 5 %: no almighty topology
    mixed = {**base, ("EP", "DSN-F"): 95.0, **{(a, "2-D torus"): 95.0 for a in APPS.values() if a != "EP"}}
    c = claims(relative(_table(mixed))).set_index("claim")["verdict"].tolist()
    assert c == ["holds", "holds", "holds"]


def test_a_deadlocked_run_is_not_measured():
    cyc = {(a, n): 100.0 for a in APPS.values() for n in NETWORKS.values()}
    cyc["FT", "DSN"] = math.nan
    c = claims(relative(_table(cyc)))
    # EP ran everywhere (all equal: no spread), FT on DSN did not
    assert c["verdict"].tolist() == ["not measured", "not measured", "differs"]
    assert "FT/DSN" in c["ours"].iloc[0]


def test_bad_parameters_are_one_line_errors(tmp_path):
    with pytest.raises(ParameterError, match="mapping must be"):
        reproduce_dsnf_apps(quick=True, mapping="block", out=str(tmp_path))
    with pytest.raises(ParameterError, match="apps must be"):
        reproduce_dsnf_apps(quick=True, apps="npb-bt", out=str(tmp_path))


def test_cli_quick_subset_prints_not_measured(tmp_path):
    env = dict(os.environ, TOPOGEN_QUIET="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "topogen", "reproduce", "dsnf-apps", "--quick", "--apps", "npb-ep",
                        "--topologies", "torus,dln", "--mapping", "random", "--out", str(tmp_path / "q")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "not measured: missing" in p.stdout and "random rank mapping" in p.stdout
    assert (tmp_path / "q" / "fig10.png").exists()


def test_pairwise_alltoall_splits_ft_into_rounds(tmp_path):
    res = reproduce_dsnf_apps(quick=True, apps="npb-ft", topologies="torus", alltoall="pairwise", out=str(tmp_path))
    row = res.table.iloc[0]
    # 31 rounds of the all-to-all and the 5 steps of the checksum reduce on 32 ranks
    assert row["phases"] == 31 + 5 and row["status"] == "completed"
    with pytest.raises(ParameterError, match="alltoall must be"):
        reproduce_dsnf_apps(quick=True, alltoall="ring", out=str(tmp_path))
