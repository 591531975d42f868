"""Checking an SST bundle before SST starts, and recognising bundles of any size."""

from __future__ import annotations

import copy
import json

import pytest

import topogen
from topogen.errors import FormatError
from topogen import formats
from topogen.export import sst as sx

from .test_sst import BFSRouting


@pytest.fixture(scope="module")
def good():
    from topogen.generators.classic import torus

    t = torus((3, 4), hosts_per_switch=2)
    return sx.bundle_dict(t, topogen.place(t, topogen.Floor.skywalk(3, 4)), BFSRouting(t))


def broken(good, change):
    doc = copy.deepcopy(good)
    change(doc)
    return doc


def check(doc, pattern):
    with pytest.raises(FormatError, match=pattern) as info:
        sx.validate_bundle(doc, path="net.sst.json")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("net.sst.json: ") and "re-export" in msg
    return msg


def test_a_bundle_topogen_writes_is_valid(good):
    sx.validate_bundle(good)
    # a route with several weighted paths (Valiant-like) is accepted too
    doc = copy.deepcopy(good)
    entry = doc["routers"][0]["routing_entry_string"].split("|")
    dst, rest = entry[0].split(":")
    entry[0] = f"{dst}:0.50000,{rest.split(',', 1)[1]};0.50000,{rest.split(',', 1)[1]}"
    doc["routers"][0]["routing_entry_string"] = "|".join(entry)
    sx.validate_bundle(doc)


def test_port_outside_num_r2r_ports(good):
    def change(doc):
        r = doc["routers"][5]
        first, rest = r["connectivity"].split(";", 1)
        r["connectivity"] = f"{first.split(',')[0]},{r['num_R2R_ports'] + 3};{rest}"
    check(broken(good, change),
          r"router 5 port 7: connectivity to router \d+ uses port 7, outside its router ports 0..3")


def test_connectivity_disagrees_with_links(good):
    def swap(doc):  # router 2 lists its first two neighbours on each other's ports
        r = doc["routers"][2]
        (a, pa), (b, pb), *rest = (e.split(",") for e in r["connectivity"].split(";"))
        r["connectivity"] = ";".join(",".join(e) for e in [(a, pb), (b, pa), *rest])
    check(broken(good, swap), r"router 2 port \d: link link_\d+_\d+ to router \d+ uses port \d, but router 2's "
                              r"connectivity reaches router \d+ through ports \[\d\]")

    def extra(doc):  # a connectivity entry no link ends at
        doc["links"] = [lk for lk in doc["links"] if lk["u"] != 0 or lk["v"] != 1]
    check(broken(good, extra), r"router 0 port 0: connectivity names router 1 on port 0, but no link")


def test_endpoints_mapped_once(good):
    def twice(doc):
        doc["routers"][1]["endpoint_to_port_map"] = "{0:4, 3:5}"
        doc["routers"][1]["port_to_endpoint_map"] = "{4:0, 5:3}"
    check(broken(good, twice), r"endpoint 0 is mapped twice: router 0 port 4 and router 1 port 4")

    def host_on_router_port(doc):
        doc["routers"][1]["endpoint_to_port_map"] = "{2:1, 3:5}"
        doc["routers"][1]["port_to_endpoint_map"] = "{1:2, 5:3}"
    check(broken(good, host_on_router_port), r"router 1 port 1: endpoint 2 is on port 1, outside its host ports 4..5")

    def wrong_router(doc):
        doc["endpoint_router_mapping"] = doc["endpoint_router_mapping"].replace("7:3", "7:4")
    check(broken(good, wrong_router),
          r"endpoint_router_mapping puts endpoint 7 on router 4, the routers put it on router 3")

    def ports(doc):
        doc["routers"][4]["num_ports"] += 1
    check(broken(good, ports), r"router 4: num_ports 7 != num_R2R_ports 4 \+ num_R2N_ports 2")


def test_vcs_and_routes(good):
    need = good["max_hops"] + 1
    check(broken(good, lambda d: d.__setitem__("vcs_per_vn", need - 1)),
          rf"vcs_per_vn = {need - 1} but the longest route has {need - 1} router-router hops.*>= {need}")

    def hole(doc):
        r = doc["routers"][3]
        r["routing_entry_string"] = "|".join(r["routing_entry_string"].split("|")[1:])
    check(broken(good, hole), r"router 3: routing table has no route to router 0")

    def jump(doc):  # a hop between routers that are not neighbours
        r = doc["routers"][0]
        entries = r["routing_entry_string"].split("|")
        far = next(e for e in entries if e.count(",") == 3)  # a 2-hop route "d:1.0,a,d"
        d = far.split(":")[0]
        entries[entries.index(far)] = f"{d}:1.00000,{d}"
        r["routing_entry_string"] = "|".join(entries)
    check(broken(good, jump), r"router 0: route to router \d+ goes 0 -> \d+, and router 0 has no port to router")


def test_latencies_positive(good):
    def zero(doc):
        doc["links"][3]["latency"] = "0ps"
    check(broken(good, zero), r"link link_\d+_\d+ \(router \d+ port \d - router \d+ port \d\) has latency '0ps'")
    check(broken(good, lambda d: d.__setitem__("host_link_latency", "-5ns")), r"host_link_latency '-5ns'")


def test_missing_keys_are_one_line(good):
    def drop(doc):
        del doc["links"][0]["port_v"]
    check(broken(good, drop), r"bundle entry missing or of the wrong type \(KeyError: 'port_v'\)")


def test_thousand_endpoint_bundle_is_recognised(tmp_path):
    """Bundles are recognised by parsing them: the format key may come anywhere in the file."""
    from topogen.generators.classic import torus

    t = torus((10, 10), hosts_per_switch=10)
    layout = topogen.place(t, topogen.Floor.skywalk(10, 10))
    path = sx.write_bundle(tmp_path / "big.sst.json", t, layout, BFSRouting(t))
    text = path.read_text()
    assert text.index('"format"') > 4096  # sorted keys put it after the endpoint lists
    kind, doc = sx.read_any_bundle(path)
    assert kind == "sst" and doc["num_endpoints"] == 1000
    # a topology bundle goes through the same reader
    formats.save(tmp_path / "net.json", t, layout)
    kind, (topology, lay) = sx.read_any_bundle(tmp_path / "net.json")
    assert kind == "topology" and topology.num_switches == 100 and lay is not None
    # anything else is refused in one line naming both formats
    (tmp_path / "other.json").write_text(json.dumps({"endpoints": [0] * 5000, "format": "mine"}))
    with pytest.raises(FormatError, match="format is 'mine'; expected 'topogen-sst-bundle' or 'topogen-bundle'"):
        sx.read_any_bundle(tmp_path / "other.json")
    with pytest.raises(FormatError, match="it is a topology bundle"):
        sx.read_bundle(tmp_path / "net.json")
