"""Next-hop bundles on a real SST (``-m sst``): ``topogen.table_topo`` reading its rows from
the matrix file gives exactly the results of the full-route bundle, on 1 and 2 ranks, and
``topogen run sst --sst-topology table`` exports a next-hop bundle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import topogen
from topogen import registry
from topogen.drivers import sst as sd
from topogen.export import sst as sx
from topogen.routing import route

from .test_sst_ranks import MEASURED, mpi_sst_or_skip

pytestmark = pytest.mark.sst

RUN = dict(generator="bernoulli", seed=7, load=0.3, warmup="1us", collect="3us", drain="2us", timeout=600,
           sst_topology="table")


def both(folder, name, routing="booksim-min", **params):
    t = registry.get(name).func(**params)
    layout = topogen.layout.default_layout(t)
    r = route(t, layout, routing)
    return (sx.write_bundle(folder / f"{name}.full.json", t, layout, r),
            sx.write_bundle(folder / f"{name}.nh.json", t, layout, r, routes="next_hops"))


@pytest.mark.parametrize("name, params, routing", [
    ("slimfly", {"q": 5}, "booksim-min"),
    ("torus", {"dims": (4, 4), "hosts_per_switch": 2}, "updown"),
])
def test_next_hop_rows_give_the_full_bundles_results_on_1_and_2_ranks(tmp_path, name, params, routing):
    mpi_sst_or_skip()
    full, nh = both(tmp_path, name, routing, **params)
    one = sd.run_sst(full, ranks=1, out_dir=tmp_path, **RUN)[0]
    assert one["status"] == "completed" and one["packets"] > 100, one["message"]
    for ranks in (1, 2):
        row = sd.run_sst(nh, ranks=ranks, out_dir=tmp_path, **RUN)[0]
        assert {c: row[c] for c in MEASURED} == {c: one[c] for c in MEASURED}, ranks
        assert row["ranks"] == ranks and json.loads(row["params"])["sst_topology"] == "table"
    two = sd.run_sst(full, ranks=2, out_dir=tmp_path, **RUN)[0]
    assert {c: two[c] for c in MEASURED} == {c: one[c] for c in MEASURED}


def test_a_broken_row_stops_sst_in_one_line(tmp_path):
    """The C++ side checks its row too (a bundle run without topogen's validation)."""
    mpi_sst_or_skip()
    _, nh = both(tmp_path, "slimfly", q=5)
    doc = json.loads(nh.read_text())
    npy = tmp_path / doc["next_hops"]["file"]
    data = bytearray(npy.read_bytes())
    data[doc["next_hops"]["offset"] + 3 * 50 + 7] = 250  # router 3 towards router 7: no such port
    npy.write_bytes(bytes(data))
    row = sd.run_sst(nh, ranks=1, out_dir=tmp_path, validate=False, raise_on_failure=False, **RUN)[0]
    assert row["status"] != "completed"
    text = str(row["message"]) + Path(row["raw_output"]).read_text()
    assert "router 3: next_port[7] = 250 is not a router port" in text


def test_run_sst_table_exports_next_hops(tmp_path):
    mpi_sst_or_skip()
    net = tmp_path / "sf.json"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), TOPOGEN_QUIET="1")
    subprocess.run([sys.executable, "-m", "topogen", "generate", "slimfly", "--q", "5", "-o", str(net)],
                   check=True, capture_output=True, env=env)
    out = subprocess.run([sys.executable, "-m", "topogen", "run", "sst", str(net), "--sst-topology", "table",
                          "--generator", "bernoulli", "--seed", "3", "--load", "0.2", "--warmup", "1us",
                          "--collect", "2us", "--drain", "2us", "--out-dir", str(tmp_path / "run")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    bundle = next((tmp_path / "run").glob("sf.sst*.json"))
    doc = sx.read_bundle(bundle)
    assert "next_hops" in doc and sx.next_hop_path(bundle).exists()
    assert "routing_entry_string" not in bundle.read_text()
