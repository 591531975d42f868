"""crossval's SST repeats: random traffic runs relabelled bundles, one per seed; the
first run is the bundle as exported; deterministic traffic runs once (stand-in SST of
:mod:`tests.drivers.fakes`; the real one in ``tests/drivers/test_sst_real.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from topogen.reproduce import crossval as cv
from topogen.export import sst as sx
from topogen.results import read_results

from tests.drivers import fakes

SPEC = dict(topology="torus", params={"dims": (3, 3)}, loads=(0.05,), simulators=("reference-sst", "sst"),
            warmup_periods=1, max_samples=4, sample_period=300, repeats=3, seed=1)


@pytest.fixture
def fake_sst(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin", knee=0.6)))


def _sst_rows(res):
    rows = read_results(res.files["results"])
    return rows[rows["simulator"] == "sst"].reset_index(drop=True)


def test_uniform_repeats_run_one_relabelled_bundle_per_seed(tmp_path, fake_sst):
    res = cv.crossval(SPEC, tmp_path / "out")
    rows = _sst_rows(res)
    assert len(rows) == 3 and res.table.set_index("simulator").loc["sst", "runs"] == 3
    seeds = [json.loads(p).get("endpoint_relabel_seed") for p in rows["params"]]
    assert seeds == [None, 2, 3]  # seed 1 (the spec's) is the bundle as exported
    folder = tmp_path / "out" / "sst"
    logs = [Path(p).name for p in rows["raw_output"]]
    assert logs[0].startswith("net.uniform.") and logs[1].startswith("net.relabel2.uniform.")
    base = sx.read_bundle(folder / "net.json")
    for s in (2, 3):
        doc = sx.read_bundle(folder / f"net.relabel{s}.json")  # valid, same network
        assert doc["metadata"]["endpoint_relabel_seed"] == s
        assert doc["links"] == base["links"]
        assert [r["routing_entry_string"] for r in doc["routers"]] == \
               [r["routing_entry_string"] for r in base["routers"]]
        assert doc["endpoint_router_mapping"] != base["endpoint_router_mapping"]
    assert "relabelled" in " ".join(res.notes)


def test_a_bundle_per_seed_is_written_once_and_never_over_an_existing_file(tmp_path, fake_sst):
    from topogen.experiments.simulators import _sst_adapter, build_network, build_routing
    from topogen.experiments.simulators import CrossvalSpec

    spec = CrossvalSpec(**SPEC)
    topo, layout = build_network(spec, 1)
    routing, _ = build_routing(spec, topo, layout, 1)
    out = tmp_path / "raw"
    (out / "sst").mkdir(parents=True)
    (out / "sst" / "keep.txt").write_text("mine")
    ad = _sst_adapter(spec, 1, topo, layout, routing, out)
    assert ad.seeded
    for _ in range(2):
        ad.run(0.05, 2)
    folder = out / "sst.1"  # the taken folder is left alone
    assert (out / "sst" / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in folder.glob("*.json")) == ["net.json", "net.relabel2.json"]


def test_deterministic_traffic_is_not_repeated(tmp_path, fake_sst):
    res = cv.crossval(dict(SPEC, traffic="tornado"), tmp_path / "out")
    rows = _sst_rows(res)
    assert len(rows) == 1 and "endpoint_relabel_seed" not in json.loads(rows["params"][0])
    t = res.table.set_index("simulator")
    assert t.loc["sst", "runs"] == 1 and t.loc["reference-sst", "runs"] == 3
    assert "repeats of it are identical" in " ".join(res.notes)
    assert not list((tmp_path / "out" / "sst").glob("net.relabel*"))


@pytest.mark.sst
def test_real_sst_relabellings_are_other_uniform_streams(tmp_path):
    """On the real SST two relabellings of the 4x4 torus (33-flit uniform at 0.2) both
    complete with other latencies than the bundle as exported: other streams."""
    from topogen.drivers.sst import find_sst
    from topogen.errors import SimulatorNotFound
    from topogen.experiments.simulators import CrossvalSpec, _sst_adapter, build_network, build_routing

    try:
        find_sst()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    spec = CrossvalSpec(topology="torus", params={"dims": (4, 4)}, packet_size=33, loads=(0.2,),
                        simulators=("sst",), seed=1, timeout=300.0)
    topo, layout = build_network(spec, 1)
    routing, _ = build_routing(spec, topo, layout, 1)
    ad = _sst_adapter(spec, 1, topo, layout, routing, tmp_path)
    rows = [ad.run(0.2, s) for s in (1, 2, 3)]
    assert [r["status"] for r in rows] == ["completed"] * 3, [r["message"] for r in rows]
    lat = [r["latency_avg"] for r in rows]
    assert len(set(lat)) == 3, lat
    assert ad.run(0.2, 2)["latency_avg"] == lat[1]  # one seed, one stream
