"""Run sst_models/topogen_sst.py under a fake ``sst`` module and check what it builds."""

from __future__ import annotations

import importlib.util
import runpy
import sys

import numpy as np
import pytest

import topogen
from topogen import sim_defaults
from topogen.export import sst as sx

from .routing_stub import BFSRouting


@pytest.fixture
def fake_sst(fake_sst_module):
    return fake_sst_module


def run_model(monkeypatch, *args):
    model = sx.model_path()
    monkeypatch.setattr(sys, "argv", [str(model), *args])
    runpy.run_path(str(model), run_name="__main__")


def make_bundle(tmp_path, hosts=2):
    from topogen.generators.classic import torus
    t = torus((3, 4), hosts_per_switch=hosts)
    layout = topogen.place(t, topogen.Floor.skywalk(4, 3))
    path = sx.write_bundle(tmp_path / "net.json", t, layout, BFSRouting(t))
    return t, layout, sx.read_bundle(path), path


def parse_map(text):
    body = text.strip()[1:-1].strip()
    return {} if not body else {int(a): int(b) for a, b in (kv.split(":") for kv in body.split(", "))}


def test_model_builds_what_the_bundle_says(tmp_path, monkeypatch, fake_sst):
    t, layout, bundle, path = make_bundle(tmp_path)
    stats = tmp_path / "stats.csv"
    run_model(monkeypatch, "--bundle", str(path), "--load", "0.3", "--traffic", "shift:1",
              "--message-size", "128B", "--warmup", "1us", "--collect", "5us", "--drain", "7us",
              "--stats", str(stats))
    rec = fake_sst.RECORD
    comps = rec["components"]
    routers = {c.params["id"]: c for c in comps.values() if c.type == "merlin.hr_router"}
    nics = {n: c for n, c in comps.items() if c.type == "merlin.offered_load"}
    assert sorted(routers) == list(range(t.num_switches))
    assert len(nics) == t.num_hosts

    # routers: anytopo in source-routing mode with the bundle's strings; ports add up
    hops = []
    for v, rtr in routers.items():
        topo = rtr.subcomponents[("topology", 0)]
        assert topo.type == "merlin.anytopo"
        p = topo.params
        assert p["routing_mode"] == "source_routing"
        assert rtr.params["num_ports"] == p["num_R2R_ports"] + p["num_R2N_ports"]
        conn = dict(tuple(map(int, e.split(","))) for e in p["connectivity"].split(";"))
        assert sorted(conn) == t.neighbors(v).tolist()
        for entry in bundle["routers"][v]["routing_entry_string"].split("|"):
            hops.append(len(entry.split(":", 1)[1].split(",")) - 1)
        # untimed packets (offered_load's complete phase) only go to endpoint 0's router:
        # anytopo's simple table is that one route (router 0: its first route)
        full = bundle["routers"][v]["routing_entry_string"].split("|")
        want = full[0] if v == 0 else next(x for x in full if x.startswith("0:"))
        assert p["simple_routing_entry_string"] == want
        rtr._conn = conn
        rtr._e2p = parse_map(p["endpoint_to_port_map"])
    # VC = hop number in anytopo: need more VCs than the longest route's hops
    for rtr in routers.values():
        assert rtr.subcomponents[("topology", 0)].params["vcs_per_vn"] >= max(hops) + 1

    # every cable is exactly one link, with its own latency at both ends, on the right ports
    router_links = [lk for lk in rec["links"] if all(e[0].type == "merlin.hr_router" for e in lk.ends)]
    assert len(router_links) == t.num_links
    seen = set()
    # whole cycles of SST's clock (2,666 ps), ceil(cable delay / cycle) of the shared one
    cycles = np.ceil(np.asarray(layout.link_delay) / sim_defaults.CYCLE_NS - 1e-9).astype(int)
    delay = {tuple(e): c * bundle["cycle_ps"] / 1000 for e, c in zip(t.edges.tolist(), cycles)}
    for lk in router_links:
        (ca, pa, la), (cb, pb, lb) = lk.ends
        a, b = ca.params["id"], cb.params["id"]
        key = (min(a, b), max(a, b))
        assert key not in seen
        seen.add(key)
        assert la == lb == f"{round(delay[key] * 1000)}ps"
        assert pa == f"port{ca._conn[b]}" and pb == f"port{cb._conn[a]}"
    assert seen == set(map(tuple, t.edges.tolist()))

    # endpoints: offered_load -> endpointNIC (+ source routing plugin) -> linkcontrol -> router port
    host_links = [lk for lk in rec["links"] if lk not in router_links]
    assert len(host_links) == t.num_hosts
    ep_router = {}
    for lk in host_links:
        (lc, plc, l1), (rtr, prt, l2) = lk.ends
        assert lc.type == "merlin.linkcontrol" and plc == "rtr_port" and l1 == l2
        nic = lc.parent
        ol = nic.parent
        e = nic.params["EP_id"]
        assert ol.name == f"ol_{e}" and ol.type == "merlin.offered_load"
        assert nic.type == "merlin.endpointNIC" and nic.params["plugin_names"] == ["sourceRoutingPlugin"]
        plugin = nic.subcomponents[("sourceRoutingPlugin", 0)]
        assert plugin.type == "merlin.sourceRoutingPlugin"
        r = rtr.params["id"]
        assert prt == f"port{rtr._e2p[e]}"
        assert plugin.params["routing_entry_string"] == bundle["routers"][r]["routing_entry_string"]
        assert parse_map(plugin.params["endpoint_router_mapping"])[e] == r
        assert lc.params["logical_nid"] == e and lc.params["job_size"] == t.num_hosts
        assert any("packet_latency" in names for names, _ in lc.statistics)
        assert ol.params["offered_load"] == 0.3 and ol.params["num_peers"] == t.num_hosts
        assert ol.params["pattern"] == "merlin.targetgen.shift" and ol.params["pattern.shift"] == 1
        assert (ol.params["message_size"], ol.params["warmup_time"], ol.params["collect_time"],
                ol.params["drain_time"]) == ("128B", "1us", "5us", "7us")
        ep_router[e] = r
    offsets = np.concatenate([[0], np.cumsum(t.hosts)[:-1]])
    assert ep_router == {int(offsets[v] + i): v for v in range(t.num_switches) for i in range(t.hosts[v])}
    assert rec["stat_output"] == ("sst.statOutputCSV", {"filepath": str(stats), "separator": ","})


def test_model_histogram_and_multiple_loads(tmp_path, monkeypatch, fake_sst):
    _, _, _, path = make_bundle(tmp_path, hosts=1)
    run_model(monkeypatch, "--bundle", str(path), "--load", "0.1,0.5", "--histogram", "50,40")
    ol = fake_sst.RECORD["components"]["ol_0"]
    assert ol.params["offered_load"] == [0.1, 0.5]
    assert ol.params["pattern"] == "merlin.targetgen.uniform"
    lc = ol.subcomponents[("networkIF", 0)].subcomponents[("networkIF", 0)]
    kinds = {names: params for names, params in lc.statistics}
    assert kinds[("packet_latency",)]["type"] == "sst.HistogramStatistic"
    assert kinds[("packet_latency",)]["binwidth"] == "50"
    assert kinds[("packet_latency",)]["rate"] == "0ns"  # no --window: output at the end only


def test_model_outputs_nic_statistics_every_window(tmp_path, monkeypatch, fake_sst):
    _, _, _, path = make_bundle(tmp_path, hosts=1)
    run_model(monkeypatch, "--bundle", str(path), "--load", "0.2", "--window", "2500ns")
    lc = fake_sst.RECORD["components"]["ol_3"].subcomponents[("networkIF", 0)].subcomponents[("networkIF", 0)]
    kinds = {names: params for names, params in lc.statistics}
    for name in ("packet_latency", "send_bit_count"):
        assert kinds[(name,)] == {"type": "sst.AccumulatorStatistic", "rate": "2500ns"}


def test_model_rejects_bad_input(tmp_path, monkeypatch, fake_sst):
    _, _, _, path = make_bundle(tmp_path, hosts=1)
    with pytest.raises(SystemExit, match="unknown traffic"):
        run_model(monkeypatch, "--bundle", str(path), "--traffic", "tornado")
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else"}')
    with pytest.raises(SystemExit, match="not a topogen SST bundle"):
        run_model(monkeypatch, "--bundle", str(other))


def test_untimed_tables_keep_the_route_to_endpoint_0s_router():
    spec = importlib.util.spec_from_file_location("model_untimed_topogen_sst", sx.model_path())
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    bundle = {"routers": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}],
              "endpoints": [{"id": 1, "router": 0}, {"id": 0, "router": 2}]}
    simple = ["1:1.00000,1|2:1.00000,1,2|3:1.00000,3",
              "0:1.00000,0|2:1.00000,2|3:0.50000,0,3;0.50000,2,3",
              "0:1.00000,1,0|1:1.00000,1|3:1.00000,3",
              "0:1.00000,0|1:1.00000,0,1"]  # router 3 has no route to router 2: kept whole
    assert model.untimed_tables(bundle, simple) == [
        "2:1.00000,1,2", "2:1.00000,2", "0:1.00000,1,0", simple[3]]
    # a router id that is a prefix of another ("2:" inside "12:") is not taken for it
    many = {"routers": [{"id": 0}, {"id": 1}], "endpoints": [{"id": 0, "router": 1}]}
    assert model.untimed_tables(many, ["12:1.00000,5,12|1:1.00000,1", "0:1.00000,0"]) == [
        "1:1.00000,1", "0:1.00000,0"]
