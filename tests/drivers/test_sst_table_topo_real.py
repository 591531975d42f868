"""topogen.table_topo on a real SST (``-m sst``): built with topogen.bernoulli_nic, the
latency of anytopo for packets that meet no other, complete runs on a torus, a Slim Fly and
a Dragonfly, and the refusal of a routing it cannot follow."""

from __future__ import annotations

import json

import pytest

import topogen
from topogen.drivers import sst as sd
from topogen.errors import ParameterError
from topogen.export import sst as sx

from .fakes import real_sst_or_skip

pytestmark = pytest.mark.sst


def export(folder, name, routing="booksim-min", **params):
    from topogen import registry
    from topogen.routing import route

    t = registry.get(name).func(**params)
    layout = topogen.layout.default_layout(t)
    return sx.write_bundle(folder / f"{name}.sst.json", t, layout, route(t, layout, routing))


@pytest.fixture(scope="module")
def torus(tmp_path_factory):
    real_sst_or_skip(stand_in_ok=False)
    return export(tmp_path_factory.mktemp("table"), "torus", dims=(4, 4))


def run(bundle, out, topology, **kw):
    row = sd.run_sst(bundle, generator="bernoulli", seed=1, sst_topology=topology, out_dir=out, **kw)[0]
    assert json.loads(row["params"])["sst_topology"] == topology
    return row


@pytest.mark.parametrize("traffic", ["uniform", "shift:5"])
def test_low_load_takes_anytopos_time(torus, tmp_path, traffic):
    """At 1 % load packets (almost) never meet: the table's routes are the bundle's routes and
    an uncontended packet takes the same time whatever its VC."""
    rows = {topo: run(torus, tmp_path, topo, load=0.01, traffic=traffic, collect="100us")
            for topo in ("anytopo", "table")}
    a, t = rows["anytopo"], rows["table"]
    assert a["status"] == t["status"] == "completed"
    assert t["packets"] == a["packets"] > 50
    assert t["latency_min"] == a["latency_min"] and t["latency_max"] == a["latency_max"]
    assert t["latency_avg"] == pytest.approx(a["latency_avg"], rel=2e-3)


@pytest.mark.parametrize("name, params, load", [
    ("torus", {"dims": (4, 4)}, 0.45),
    ("slimfly", {"q": 5}, 0.3),
    ("dragonfly", {"a": 4, "p": 2, "h": 2}, 0.3),
])
def test_runs_complete(tmp_path, name, params, load):
    real_sst_or_skip(stand_in_ok=False)
    bundle = export(tmp_path, name, **params)
    row = run(bundle, tmp_path, "table", load=load)
    assert row["status"] == "completed", row["message"]
    assert row["accepted_flit_rate"] == pytest.approx(load, rel=0.05)
    assert json.loads(row["params"])["num_vcs"] == 4


def test_dor_on_a_mesh_runs(tmp_path):
    """dor's VCs are constant on a mesh (no dateline crossed): the table topology takes it and
    an uncontended packet takes anytopo's time (on a torus it is refused, below)."""
    real_sst_or_skip(stand_in_ok=False)
    mesh = export(tmp_path, "mesh", routing="dor", dims=(4, 4))
    assert sx.read_bundle(mesh)["metadata"]["vc_rule"] == "const"
    rows = {topo: run(mesh, tmp_path, topo, load=0.01, collect="100us") for topo in ("anytopo", "table")}
    a, t = rows["anytopo"], rows["table"]
    assert a["status"] == t["status"] == "completed", t["message"]
    assert t["packets"] == a["packets"] > 50
    assert t["latency_min"] == a["latency_min"] and t["latency_max"] == a["latency_max"]
    loaded = run(mesh, tmp_path, "table", load=0.3)
    assert loaded["status"] == "completed" and loaded["accepted_flit_rate"] == pytest.approx(0.3, rel=0.05)


@pytest.mark.parametrize("routing, says", [
    ("valiant", "topogen.table_topo cannot take routing valiant"),
    ("dor", "cannot take routing dor: its VCs follow a dateline"),  # on a torus
])
def test_refused_before_sst_runs(tmp_path, routing, says):
    real_sst_or_skip(stand_in_ok=False)
    bundle = export(tmp_path, "torus", routing=routing, dims=(4, 4))
    out = tmp_path / "runs"
    out.mkdir()
    with pytest.raises(ParameterError, match=says):
        run(bundle, out, "table", load=0.1)
    assert not list(out.iterdir())
