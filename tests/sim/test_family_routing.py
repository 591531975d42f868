"""Each family's default routing: the routing its paper simulates (sim_defaults.routing_for,
read from the registry's record beside each generator), chosen by ``simulate`` and ``run
sst`` when no ``--routing`` is given; ``booksim-min`` stays where BookSim is matched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from topogen import registry
from topogen import sim_defaults as sd
from topogen.routing import ALGORITHMS, route

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOPOGEN_QUIET="1")
    return subprocess.run([sys.executable, "-m", "topogen", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_every_generator_has_a_record_whose_routing_topogen_has():
    for name, spec in registry.generators().items():
        algorithm, base, source = sd.routing_for(name, ALGORITHMS)
        assert algorithm in ALGORITHMS, name
        assert base in (None, "nr", "fr"), name
        assert source and spec.routing.algorithms[0] in (algorithm, "anca"), name


@pytest.mark.parametrize("name,want", [("slimfly", ("hop", "nr")), ("torus", ("dor", None)),
                                       ("hypercube", ("dor", None)), ("hyperx", ("dor", None)),
                                       ("mesh", ("dor", None)), ("dragonfly", ("ugal-l", "nr")),
                                       ("skywalk", ("escape", "fr")), ("random", ("escape", "fr")),
                                       ("pf-torus", ("escape", "nr")),
                                       ("a-file-of-unknown-origin", ("escape", "nr"))])
def test_the_papers_routing_per_family(name, want):
    assert sd.routing_for(name, ALGORITHMS)[:2] == want


def test_fat_trees_take_anca_once_topogen_has_it():
    assert sd.routing_for("myrinet-clos", ALGORITHMS)[0] == ("anca" if "anca" in ALGORITHMS else "updown")
    assert sd.routing_for("myrinet-clos", ("updown", "anca"))[0] == "anca"
    assert sd.routing_for("myrinet-clos", ("updown",))[0] == "updown"


def test_slimfly_default_routes_are_hop_minimal():
    # independent check: every route's hop count is the BFS distance
    topo = registry.generate("slimfly", q=5)
    algorithm, base, _ = sd.routing_for(topo.name, ALGORITHMS)
    from topogen.layout import default_layout

    rt = route(topo, default_layout(topo), algorithm, base=base)
    dist = shortest_path(topo.csr(), unweighted=True)
    for s in range(0, topo.num_switches, 7):
        for d in range(topo.num_switches):
            sw, vcs = rt.path(s, d)
            assert len(sw) - 1 == dist[s, d]
            assert list(vcs) == list(range(len(sw) - 1))  # VC k on hop k (IV-D)


def test_simulate_names_the_default_and_records_it(tmp_path):
    assert _cli("generate", "slimfly", "--q", "3", "-o", "sf.json", cwd=tmp_path).returncode == 0
    res = _cli("simulate", "sf.json", "--packet-size", "1", "--load", "0.1", "--warmup-periods", "1",
               "--sample-period", "300", "--max-samples", "3", "-o", "r.csv", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "routing hop on nr routes: the default for slimfly" in res.stdout
    from topogen.results import read_results

    row = read_results(tmp_path / "r.csv").iloc[0]
    assert row["routing"] == "hop"
    assert json.loads(row["params"])["routing_default"] == {"generator": "slimfly", "base": "nr"}
    # a named routing is taken as given, and not recorded as a default
    res = _cli("simulate", "sf.json", "--routing", "booksim-min", "--packet-size", "1", "--load", "0.1",
               "--warmup-periods", "1", "--sample-period", "300", "--max-samples", "3", "-o", "b.csv",
               cwd=tmp_path)
    assert res.returncode == 0 and "the default for" not in res.stdout
    row = read_results(tmp_path / "b.csv").iloc[0]
    assert row["routing"] == "booksim-min" and "routing_default" not in json.loads(row["params"])


def test_slimfly_default_saturates_well_above_booksim_min(tmp_path):
    """SF q=5, 1-flit packets: the paper's MIN (the new default) sustains 0.5 flits/host/cycle,
    where BookSim anynet's least-latency routes (the old default) saturate; both sustain 0.2."""
    assert _cli("generate", "slimfly", "--q", "5", "-o", "sf.json", cwd=tmp_path).returncode == 0
    short = ["--packet-size", "1", "--warmup-periods", "1", "--sample-period", "500", "--max-samples", "4"]
    status = {}
    for routing in ([], ["--routing", "booksim-min"]):
        for load in ("0.2", "0.5"):
            res = _cli("simulate", "sf.json", *routing, "--load", load, *short, cwd=tmp_path)
            assert res.returncode == 0, res.stderr
            status[bool(routing), load] = res.stdout.strip().splitlines()[-1]
    assert ": completed" in status[False, "0.2"] and ": completed" in status[True, "0.2"]
    assert ": completed" in status[False, "0.5"]
    assert ": completed" not in status[True, "0.5"]


def test_the_booksim_matching_commands_keep_booksim_min():
    from topogen.experiments.simulators import CrossvalSpec

    assert sd.ROUTING == "booksim-min"
    assert CrossvalSpec(topology="torus").routing == "booksim-min"


def test_run_sst_exports_the_family_routing(tmp_path, monkeypatch, capsys):
    """``run sst`` without --routing exports the paper's routing (hop on a Slim Fly) and
    says so; SST itself is not run (its runner is replaced by one that records the bundle)."""
    import topogen.drivers.sst as sst_driver
    from topogen.cli import main

    bundles = []

    def fake_run_sst(bundle, **kwargs):
        from topogen.errors import SimulatorFailed

        bundles.append(Path(bundle))
        raise SimulatorFailed("not run in this test")

    monkeypatch.setattr(sst_driver, "find_sst", lambda *a, **k: "/bin/true")
    monkeypatch.setattr(sst_driver, "run_sst", fake_run_sst)
    topo = tmp_path / "sf.json"
    assert main(["generate", "slimfly", "--q", "3", "-o", str(topo)]) == 0
    main(["run", "sst", str(topo), "--out-dir", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert "routing hop on nr routes: the default for slimfly" in out
    meta = json.loads(bundles[0].read_text())["metadata"]
    assert meta["routing"] == "hop"
