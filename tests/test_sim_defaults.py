"""One set of simulator defaults (topogen.sim_defaults) reaches every simulator."""

import argparse
import json
import math
from dataclasses import fields

import numpy as np

import topogen
from topogen import sim_defaults as sd
from topogen.drivers.booksim import read_config_file
from topogen.drivers.sst import bits
from topogen.export import booksim as bx
from topogen.export import sst as sx
from topogen.generators.classic import torus
from topogen.layout import default_layout
from topogen.routing import nearest
from topogen.sim import Network, SimConfig, simulate


def _parser():
    from topogen.drivers.cli import add_parsers as run_parsers
    from topogen.sim.cli import add_parsers as sim_parsers

    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    sim_parsers(sub)
    run_parsers(sub)
    return p


def test_the_cycle_is_one_flit_time():
    assert sd.CYCLE_NS == sd.FLIT_BITS / sd.LINK_GBPS
    assert sd.cycle_ns() == sd.CYCLE_NS and sd.cycle_ns(clock_ns=1.5) == 1.5
    assert sd.VC_BUF_SIZE >= sd.PACKET_SIZE  # virtual cut-through holds whole packets


def test_reference_simulator_config_defaults_are_the_shared_ones():
    cfg = SimConfig()
    shared = sd.as_dict()
    checked = 0
    for f in fields(SimConfig):
        if f.name in shared:
            assert getattr(cfg, f.name) == shared[f.name], f.name
            checked += 1
    assert checked >= 17
    assert cfg.cycle_ns == sd.CYCLE_NS
    assert cfg.router_delay == sd.ROUTING_DELAY + sd.VC_ALLOC_DELAY + sd.SW_ALLOC_DELAY + sd.ST_DELAY


def test_vct33_booksim_config_is_the_shared_defaults(tmp_path):
    t = torus((3, 3), hosts_per_switch=1)
    exp = bx.export_booksim(tmp_path, t, topogen.place(t, topogen.Floor.skywalk(3, 3)))
    options, meta = read_config_file(exp.config_file)
    want = sd.booksim_options()
    for name, value in want.items():
        assert options[name] == bx.format_option(name, value), name
    assert meta["clock_period_ns"] == sd.CYCLE_NS


def test_booksim_netlist_and_reference_simulator_use_the_same_link_cycles(tmp_path):
    t = torus((4, 4), hosts_per_switch=1)
    layout = topogen.place(t, topogen.Floor.skywalk(4, 4))
    exp = bx.export_booksim(tmp_path, t, layout)
    lat = {}
    for line in exp.network_file.read_text().splitlines():
        tok = line.split()
        r = int(tok[1])
        i = 2
        while i < len(tok):
            if tok[i] == "router":
                lat[(r, int(tok[i + 1]))] = int(tok[i + 2])
                i += 3
            else:
                i += 2
    net = Network(nearest(t, layout), SimConfig())
    ours = {}
    for v in range(t.num_switches):
        for e in range(net.indptr[v], net.indptr[v + 1]):
            ours[(v, int(net.indices[e]))] = int(net.link_cycles[e])
    assert ours == lat
    assert len(set(lat.values())) > 1  # a real mix of cable lengths


def test_sst_bundle_defaults_are_the_shared_ones():
    t = torus((3, 3), hosts_per_switch=1)
    doc = sx.bundle_dict(t, None, nearest(t))
    rp, nic = doc["router_params"], doc["nic_params"]
    # SST runs the shared cycle on its even-picosecond grid, and the bundle says which
    cyc = doc["cycle_ps"]
    assert cyc == sd.sst_cycle_ps() == round(sd.SST_CYCLE_NS * 1000) and cyc % 2 == 0
    assert abs(cyc - sd.CYCLE_NS * 1000) <= 1
    for bw in (rp["link_bw"], nic["link_bw"], rp["xbar_bw"]):  # one flit per SST cycle
        assert math.isclose(bits(rp["flit_size"]) / bits(bw, rate=True) * 1e12,
                            cyc / (sd.INTERNAL_SPEEDUP if bw is rp["xbar_bw"] else 1), rel_tol=1e-12)
    assert math.isclose(bits(rp["link_bw"], rate=True), sd.LINK_GBPS * 1e9, rel_tol=1e-3)
    assert bits(rp["flit_size"]) == sd.FLIT_BITS
    assert bits(rp["input_buf_size"]) == sd.VC_BUF_SIZE * sd.FLIT_BITS
    assert bits(nic["output_buf_size"]) >= sd.PACKET_SIZE * sd.FLIT_BITS  # a packet fits
    lat_in, lat_out = (int(rp[k][:-2]) for k in ("input_latency", "output_latency"))
    # hr_router adds half a cycle to the crossbar clock edge and one output-timing cycle
    assert 2 * lat_in == cyc and lat_out % cyc == 0
    assert lat_in + lat_out + 1.5 * cyc == SimConfig().router_delay * cyc
    assert doc["host_link_latency"] == f"{cyc}ps"
    assert {link["latency"] for link in doc["links"]} == {f"{cyc}ps"}  # no layout: 1 cycle


def test_sst_cycle_is_the_nearest_even_picosecond():
    for clock, ps in ((sd.CYCLE_NS, 2666), (2.5, 2500), (1.0, 1000), (2.6671, 2668), (0.0001, 2),
                      (3.0005, 3000), (3.0011, 3002)):
        assert sd.sst_cycle_ps(clock) == ps and sd.sst_clock_ns(clock) == ps / 1000
    # a layout's cables become whole SST cycles, as many as BookSim's ceil(delay / cycle)
    t = torus((4, 4), hosts_per_switch=1)
    layout = default_layout(t)
    doc = sx.bundle_dict(t, layout, nearest(t, layout))
    want = bx.link_latency_cycles(layout, sd.CYCLE_NS)
    assert [link["latency"] for link in doc["links"]] == [f"{c * 2666}ps" for c in want]
    assert [link["cable_delay_ns"] for link in doc["links"]] == list(layout.link_delay)
    doc = sx.bundle_dict(t, layout, nearest(t, layout), clock_ns=2.5)
    assert doc["cycle_ps"] == 2500 and doc["router_params"]["input_latency"] == "1250ps"
    assert [link["latency"] for link in doc["links"]] == [
        f"{c * 2500}ps" for c in bx.link_latency_cycles(layout, 2.5)]


def test_command_line_defaults_come_from_the_shared_module():
    p = _parser()
    s = p.parse_args(["simulate", "x.json"])
    assert s.traffic == sd.TRAFFIC and s.load == sd.LOAD and s.load_unit == sd.LOAD_UNIT
    assert s.self_packets is sd.SELF_PACKETS
    assert s.packet_size == sd.PACKET_SIZE and s.flit_bits == sd.FLIT_BITS
    assert s.link_gbps == sd.LINK_GBPS and s.clock_ns is None  # None: one flit time
    assert s.credit_delay == sd.CREDIT_DELAY and s.internal_speedup == sd.INTERNAL_SPEEDUP
    assert p.parse_args(["simulate", "x", "--no-self-packets"]).self_packets is False
    b = p.parse_args(["run", "booksim", "x.json"])
    assert b.clock_period == sd.CYCLE_NS and b.setup == "vct33"


def test_default_routing_is_a_topogen_routing():
    from topogen.routing import ALGORITHMS

    assert sd.ROUTING in ALGORITHMS


def test_reference_rows_record_every_setting_that_changes_their_numbers():
    t = torus((4, 4), hosts_per_switch=1)
    row = simulate(nearest(t), load=0.05, seed=2, packet_size=2, vc_buf_size=4,
                   credit_delay=3, internal_speedup=1.5, sample_period=200)
    params = row["params"]
    if isinstance(params, str):
        params = json.loads(params)
    cfg = params["config"]
    assert cfg["credit_delay"] == 3 and cfg["internal_speedup"] == 1.5
    assert cfg["packet_size"] == 2 and cfg["num_vcs"] == sd.NUM_VCS
    assert params["cycle_ns"] == sd.CYCLE_NS
    assert params["traffic"]["self_packets"] is sd.SELF_PACKETS
    assert np.isfinite(row["latency_avg"])
