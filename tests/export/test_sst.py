"""SST/merlin bundle export."""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import topogen
from topogen.errors import ParameterError, RoutingError, TopologyError
from topogen import sim_defaults
from topogen.export import sst as sx


class BFSRouting:
    """A stand-in routing: shortest-hop paths, ties to the lowest id (src..dst inclusive)."""

    algorithm = "bfs-test"

    def __init__(self, topology):
        self.topology = topology

    def path(self, src, dst):
        prev = {src: None}
        frontier = [src]
        while dst not in prev:
            nxt = []
            for v in frontier:
                for w in self.topology.neighbors(v).tolist():
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
            frontier = nxt
        p = [dst]
        while p[-1] != src:
            p.append(prev[p[-1]])
        p.reverse()
        return np.asarray(p), np.arange(len(p) - 1)


def routing_for(t, layout):
    try:
        from topogen.routing.paths import nearest

        return nearest(t, layout)
    except ImportError:
        return BFSRouting(t)


def small():
    from topogen.generators.classic import torus

    t = torus((3, 4), hosts_per_switch=2)
    return t, topogen.place(t, topogen.Floor.skywalk(3, 4))


def parse_map(text):
    assert text.startswith("{") and text.endswith("}")
    body = text[1:-1].strip()
    if not body:
        return {}
    return {int(a): int(b) for a, b in (kv.split(":") for kv in body.split(", "))}


def parse_entries(text):
    out = {}
    for part in text.split("|"):
        dst, rest = part.split(":", 1)
        weight, *hops = rest.split(",")
        assert re.fullmatch(r"\d\.\d{5}", weight)
        out[int(dst)] = [int(h) for h in hops]
    return out


def test_bundle_consistent_with_topology(tmp_path):
    t, layout = small()
    routing = routing_for(t, layout)
    path = sx.write_bundle(tmp_path / "b.json", t, layout, routing)
    b = sx.read_bundle(path)
    assert b["num_routers"] == t.num_switches and b["num_endpoints"] == t.num_hosts
    assert len(b["links"]) == t.num_links
    max_deg = t.degree
    for r in b["routers"]:
        v = r["id"]
        conn = dict(tuple(map(int, e.split(","))) for e in r["connectivity"].split(";"))
        assert sorted(conn) == t.neighbors(v).tolist()
        assert sorted(conn.values()) == list(range(len(conn)))  # ports = link rank
        assert r["num_R2R_ports"] == max_deg and r["num_ports"] == max_deg + t.hosts[v]
        e2p = parse_map(r["endpoint_to_port_map"])
        assert parse_map(r["port_to_endpoint_map"]) == {p: e for e, p in e2p.items()}
        assert all(p >= max_deg for p in e2p.values())
        routes = parse_entries(r["routing_entry_string"])
        assert sorted(routes) == [d for d in range(t.num_switches) if d != v]
        for d, hops in routes.items():
            assert hops[-1] == d
            seq = [v, *hops]
            assert all(t.has_link(a, c) for a, c in zip(seq, seq[1:]))
    # every cable once, its ports match both routers' connectivity, its own latency in whole
    # SST cycles (2,666 ps), ceil(delay / cycle) as BookSim's and the reference simulator's
    for link, (u, v), delay in zip(b["links"], t.edges.tolist(), layout.link_delay):
        assert (link["u"], link["v"]) == (u, v)
        assert link["latency"] == f"{math.ceil(delay / sim_defaults.CYCLE_NS - 1e-9) * 2666}ps"
        assert link["cable_delay_ns"] == delay
        cu = b["routers"][u]["connectivity"]
        assert f"{v},{link['port_u']}" in cu.split(";")
    hops = max(len(h) for r in b["routers"] for h in parse_entries(r["routing_entry_string"]).values())
    assert b["max_hops"] == hops and b["vcs_per_vn"] >= hops + 1
    eps = parse_map(b["endpoint_router_mapping"])
    assert eps == {e["id"]: e["router"] for e in b["endpoints"]}
    assert b["metadata"]["topogen_version"] == topogen.__version__


def test_bundle_is_byte_identical(tmp_path):
    t, layout = small()
    r = routing_for(t, layout)
    a = sx.write_bundle(tmp_path / "a.json", t, layout, r).read_bytes()
    b = sx.write_bundle(tmp_path / "b.json", t, layout, r).read_bytes()
    assert a == b
    assert [p.name for p in sorted(tmp_path.iterdir())] == ["a.json", "b.json"]


def test_entry_strings_match_routing_module():
    from topogen.routing import export
    t, layout = small()
    r = routing_for(t, layout)
    b = sx.bundle_dict(t, layout, r)
    for router in b["routers"]:
        assert router["routing_entry_string"] == export.sst_entry_string(r, router["id"])


def test_vcs_per_vn_guard_and_errors():
    t, layout = small()
    r = BFSRouting(t)
    b = sx.bundle_dict(t, layout, r)
    with pytest.raises(ParameterError, match="vcs_per_vn"):
        sx.bundle_dict(t, layout, r, vcs_per_vn=b["max_hops"])
    assert sx.bundle_dict(t, layout, r, vcs_per_vn=16)["vcs_per_vn"] == 16
    with pytest.raises(TopologyError):
        two = topogen.Topology(4, [(0, 1), (2, 3)])
        sx.bundle_dict(two, None, BFSRouting(two))

    class Broken(BFSRouting):
        def path(self, src, dst):
            return np.asarray([src, dst]), np.zeros(1)

    with pytest.raises(RoutingError):
        sx.bundle_dict(t, layout, Broken(t))


def test_uniform_latency_without_layout_and_model_path():
    t = topogen.Topology(3, [(0, 1), (1, 2)], hosts_per_switch=[1, 0, 1])
    b = sx.bundle_dict(t, None, BFSRouting(t), link_latency_ns=12.5)
    assert {lk["latency"] for lk in b["links"]} == {"12500ps"}
    assert b["routers"][1]["endpoint_to_port_map"] == "{}"
    assert sx.model_path().is_file()
    root = Path(__file__).resolve().parents[2]
    assert (root / "sst_models" / "topogen_sst.py").resolve() == sx.model_path().resolve()
    assert json.loads(json.dumps(b)) == b


def test_valiant_routing_gives_weighted_multipath_entries():
    valiant_mod = importlib.import_module("topogen.routing.valiant")  # the module, not the function
    from topogen.routing.paths import nearest

    t = topogen.Topology(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], hosts_per_switch=1)
    r = valiant_mod.valiant(nearest(t), seed=1)
    b = sx.bundle_dict(t, None, r)
    entry = b["routers"][0]["routing_entry_string"]
    to1 = entry.split("|")[0]
    alts = to1.split(":", 1)[1].split(";")
    assert len(alts) == 3  # one path per intermediate switch (not 0, not 1)
    weights = [float(a.split(",")[0]) for a in alts]
    assert sum(weights) == pytest.approx(1.0)
    longest = max(a.count(",") for rr in b["routers"] for part in rr["routing_entry_string"].split("|")
                  for a in part.split(":", 1)[1].split(";"))
    assert b["max_hops"] == longest and b["vcs_per_vn"] == longest + 1


def test_seeded_random_bundle_is_byte_identical_and_records_provenance(tmp_path):
    from topogen.generators.random import random_topology
    from topogen.layout import default_layout

    paths = []
    for k in range(2):
        t = random_topology(20, 4, hosts_per_switch=1, instances=2, seed=77)
        layout = default_layout(t, switches_per_cabinet=4)
        paths.append(sx.write_bundle(tmp_path / f"b{k}.json", t, layout, routing_for(t, layout)))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    meta = json.loads(paths[0].read_text())["metadata"]
    assert (meta["generator"], meta["seed"], meta["topogen_version"]) == ("random", 77, topogen.__version__)
    assert meta["params"]["degree"] == 4 and meta["routing"]


GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", ["torus3x3", "slimfly_q3"])
def test_golden_bundles(name, tmp_path):
    """Golden SST bundles of the same small torus and Slim Fly as the BookSim goldens.
    The stand-in BFS routing keeps them independent of the routing module's tie-breaking."""
    import os

    from .test_booksim import CASES

    t, layout = CASES[name]()
    path = sx.write_bundle(tmp_path / f"{name}.sst.json", t, layout, BFSRouting(t), host_latency_ns=10.0)
    golden = GOLDEN / f"{name}.sst.json"
    if os.environ.get("TOPOGEN_REGENERATE_GOLDEN") == "1":
        golden.write_bytes(path.read_bytes())
    assert path.read_bytes() == golden.read_bytes(), f"{golden.name} differs from the golden file"
    b = json.loads(golden.read_text())
    assert b["num_routers"] == t.num_switches and b["num_endpoints"] == t.num_hosts
    assert [[lk["u"], lk["v"]] for lk in b["links"]] == t.edges.tolist()
    cycles = [math.ceil(d / sim_defaults.CYCLE_NS - 1e-9) for d in layout.link_delay]
    assert [lk["latency"] for lk in b["links"]] == [f"{c * b['cycle_ps']}ps" for c in cycles]
    assert b["metadata"]["generator"] == t.name and b["metadata"]["seed"] == t.seed


def test_ugal_l_exports_min_tables_and_anytopo_ugal_and_ugal_g_is_refused():
    from topogen.generators.slimfly import slimfly
    from topogen.routing import nearest, ugal

    t = slimfly(3)
    base = nearest(t)
    b = sx.bundle_dict(t, None, ugal(base, "local", candidates=3))
    plain = sx.bundle_dict(t, None, base)
    assert b["source_routing_algo"] == "UGAL" and b["ugal_num_valiant"] == 3
    assert "source_routing_algo" not in plain  # other routings: unchanged bundles
    assert [r["routing_entry_string"] for r in b["routers"]] == \
        [r["routing_entry_string"] for r in plain["routers"]]  # the MIN routes
    assert b["max_hops"] == 2 and b["vcs_per_vn"] == 5  # Valiant candidates: 4 hops, VC = hop
    sx.validate_bundle(b)
    with pytest.raises(topogen.errors.FormatError, match="vcs_per_vn >= 5"):
        sx.validate_bundle({**b, "vcs_per_vn": 3})
    with pytest.raises(topogen.errors.FormatError, match="source_routing_algo"):
        sx.validate_bundle({**b, "source_routing_algo": "ugal"})
    with pytest.raises(RoutingError, match="UGAL-G cannot be exported"):
        sx.bundle_dict(t, None, ugal(base, "global"))
