"""``reproduce memsys-sim`` (MEMSYS '16 3.3, Fig. 15)."""

import shutil

import pandas as pd
import pytest

from topogen.errors import ParameterError, SimulatorNotFound
from topogen.reproduce import memsys_sim as ms
from topogen.results import read_results

TINY = dict(families="torus2d,fb3d,torus3d,mms2", max_nodes=64, max_samples=4, workers=1)


@pytest.mark.parametrize("key", list(ms.FAMILIES))
def test_node_counts_are_those_of_the_built_networks(key):
    value = ms.FAMILIES[key][3][0]
    topo = ms.build(key, value)
    assert topo.num_switches == ms.nodes_of(key, value)
    assert int(topo.num_hosts) == topo.num_switches  # one node per router (c = 1)


def test_points_stop_at_max_nodes():
    pts = ms.points(["torus2d", "mms2"], 100)
    assert [(k, v) for k, v, _ in pts] == [("torus2d", 4), ("torus2d", 6), ("torus2d", 8),
                                           ("mms2", 3), ("mms2", 5), ("mms2", 7)]
    assert all(n <= 100 for *_, n in pts)


def _table(lat):
    rows = []
    for (key, value), latency in lat.items():
        rows.append({"key": key, "family": ms.FAMILIES[key][0], "parameter": str(value),
                     "nodes": ms.nodes_of(key, value), "links": 2 * ms.nodes_of(key, value) * (
                         1 if key.startswith("torus") else 3),
                     "latency_cycles": latency})
    return pd.DataFrame(rows)


def test_claims_can_agree_and_differ():
    lat = {("torus2d", 4): 17, ("torus2d", 8): 27, ("torus2d", 16): 47,
           ("torus3d", 4): 22, ("torus3d", 6): 26, ("torus3d", 10): 37,
           ("torus6d", 3): 27, ("mms2", 19): 17, ("mms2", 23): 17,
           ("fb3d", 4): 20, ("fb3d", 6): 22, ("fb3d", 10): 18.5}
    c = ms._claims(_table(lat), scale=2.0, half_tolerance=0.1, max_nodes=1100).set_index("claim")
    verdicts = c["verdict"].tolist()
    assert verdicts[:3] == ["agrees", "agrees", "agrees"]
    assert "side 10: 0.50 (0.5 +- 0.1 at 1,000 nodes)" in c.iloc[2]["ours"]
    assert c.iloc[3]["verdict"].startswith("needs --max_nodes")
    # a flattened butterfly as slow as the torus, a 6-D torus far above the others, and a
    # 3-D torus rising faster than the 2-D one: every claim differs
    lat.update({("fb3d", 4): 21, ("fb3d", 6): 25, ("fb3d", 10): 80, ("torus6d", 3): 60,
                ("torus3d", 10): 90})
    c = ms._claims(_table(lat), scale=2.0, half_tolerance=0.1, max_nodes=1100)
    assert c["verdict"].tolist()[:3] == ["differs", "differs", "differs"]


def test_tiny_run_on_the_reference_simulator(tmp_path):
    res = ms.reproduce_memsys_sim(**TINY, results=str(tmp_path / "r.csv"), plot=str(tmp_path / "f.png"))
    t = res.table
    assert set(t.family) == {"2-D torus", "3-D torus", "3-D flattened butterfly", "MMS2"}
    assert (t.status == "completed").all() and (t.simulator == "reference").all()
    torus = t[t.family == "2-D torus"].sort_values("nodes")
    assert torus.latency_cycles.is_monotonic_increasing  # more hops, more latency
    assert torus.hops_avg.tolist() == pytest.approx([3.0, 4.0, 5.0], abs=0.1)  # k/2 + 1 routers
    fb = t[(t.family == "3-D flattened butterfly") & (t.parameter == "4")].latency_cycles.item()
    t3 = t[(t.family == "3-D torus") & (t.parameter == "4")].latency_cycles.item()
    assert fb < t3
    assert (t.accepted - 0.1).abs().max() < 0.01  # the constant load is carried
    rows = read_results(tmp_path / "r.csv")
    assert len(rows) == len(t) and set(rows.simulator) == {"reference"}
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert res.extra_tables["claims"].verdict.iloc[0] in ("agrees", "differs")
    # run again into the same results file: every point read back, nothing added
    again = ms.reproduce_memsys_sim(**TINY, results=str(tmp_path / "r.csv"))
    assert again.table.latency_cycles.tolist() == pytest.approx(t.latency_cycles.tolist())
    assert len(read_results(tmp_path / "r.csv")) == len(t)
    assert any(f"{len(t)} point(s) read back" in n for n in again.notes)


def test_bad_arguments_are_one_line_errors(tmp_path, monkeypatch):
    with pytest.raises(ParameterError, match="families must be all or a comma-separated list"):
        ms.reproduce_memsys_sim(families="ring")
    with pytest.raises(ParameterError, match="no network of mms2 has at most 10 nodes"):
        ms.reproduce_memsys_sim(families="mms2", max_nodes=10)
    with pytest.raises(ParameterError, match="simulator must be one of reference, booksim, sst"):
        ms.reproduce_memsys_sim(simulator="gem5")
    with pytest.raises(ParameterError, match="--plot must name"):
        ms.reproduce_memsys_sim(plot=str(tmp_path / "f.txt"))
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(tmp_path / "no-booksim"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SimulatorNotFound):
        ms.reproduce_memsys_sim(**TINY, simulator="booksim")


def _booksim():
    import os

    return os.environ.get("TOPOGEN_BOOKSIM") or shutil.which("booksim")


@pytest.mark.booksim
@pytest.mark.skipif(not _booksim(), reason="BookSim not found (TOPOGEN_BOOKSIM or booksim on PATH)")
def test_tiny_run_on_real_booksim(tmp_path):
    kw = dict(families="torus2d,mms2", max_nodes=18, max_samples=4, workers=1)
    ref = ms.reproduce_memsys_sim(**kw).table.set_index("family")
    res = ms.reproduce_memsys_sim(**kw, simulator="booksim", results=str(tmp_path / "r.csv"))
    t = res.table.set_index("family")
    assert (t.simulator == "booksim").all() and (t.routing == "min_anynet").all()
    assert (t.status == "completed").all()
    for fam in ("2-D torus", "MMS2"):  # the same model: latencies within 10 %
        assert t.loc[fam, "latency_cycles"] == pytest.approx(ref.loc[fam, "latency_cycles"], rel=0.1)
    rows = read_results(tmp_path / "r.csv")
    assert set(rows.simulator) == {"booksim"}
    assert list((tmp_path / "r.csv.raw").glob("booksim-*/load0.1.log"))  # raw output kept


@pytest.mark.sst
@pytest.mark.skipif(not (shutil.which("sst") or __import__("os").environ.get("TOPOGEN_SST")),
                    reason="SST not found (TOPOGEN_SST or sst on PATH)")
def test_tiny_run_on_real_sst(tmp_path):
    res = ms.reproduce_memsys_sim(families="mms2", max_nodes=18, max_samples=4, workers=1, simulator="sst",
                                  results=str(tmp_path / "r.csv"))
    t = res.table
    assert (t.simulator == "sst").all() and (t.status == "completed").all()
    assert 5 < t.latency_cycles.item() < 100  # cycles of the shared clock, not ns
    assert set(read_results(tmp_path / "r.csv").simulator) == {"sst"}
