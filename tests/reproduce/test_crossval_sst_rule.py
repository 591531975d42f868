"""reference-sst is measured and judged saturated by the SST driver's rule
(``topogen.experiments.reference_sst``)."""

import math

import pytest

from topogen.drivers.sst import saturation_reasons
from topogen.experiments.simulators import CrossvalSpec, build_adapters, build_network, build_routing
from topogen.experiments.reference_sst import nic_packets


def test_saturation_reasons_by_hand():
    flat = [(10.0, 5)] * 6
    assert saturation_reasons(0.5, 0.49, flat) == []  # 0.49 >= 0.95 * 0.5
    assert saturation_reasons(0.5, 0.47, flat, slack=0.01) == []  # 0.47 >= 0.475 - 0.01
    r = saturation_reasons(0.5, 0.47, flat)  # 0.47 < 0.475
    assert len(r) == 1 and r[0].startswith("accepted 0.47 of 0.5")
    grow = [(10.0, 50)] * 2 + [(11.0, 50)] * 2 + [(13.0, 40), (12.0, 40)]
    assert saturation_reasons(0.5, 0.5, grow) == []  # last third 12.5 <= 1.25 * 10
    grow[-1] = (14.0, 40)
    r = saturation_reasons(0.5, 0.5, grow, unit="cycles")  # 13.5 > 12.5
    assert r == ["network latency grew from 10 to 14 cycles between sample windows"]
    assert saturation_reasons(0.5, 0.5, [(10.0, 50)] * 4 + [(math.nan, 0)] * 2) == [
        "no packet delivered in the last sample windows"]


def test_latency_growth_needs_enough_packets_to_tell_from_path_lengths():
    """A 4-host fat tree at 1 % load: about one packet a window, whose network latency is
    its path's (6 cycles for 2 hops, 19 for 4).  Thirds of a few packets differ by the mix
    of short and long paths: not growth, and a last third without a packet is chance."""
    from topogen.drivers.sst_rule import GROWTH_PACKETS

    few = [(6.0, 1), (19.0, 1), (6.0, 1), (6.0, 1), (19.0, 1), (19.0, 1)]
    assert saturation_reasons(0.01, 0.01, few, unit="cycles") == []
    assert saturation_reasons(0.01, 0.01, [(6.0, 1), (19.0, 1)] * 2 + [(math.nan, 0)] * 2) == []
    # the same means over enough packets are growth
    n = GROWTH_PACKETS // 2
    many = [(m, n) for m, _ in few]
    assert saturation_reasons(0.01, 0.01, many, unit="cycles") == [
        "network latency grew from 12 to 19 cycles between sample windows"]
    # one packet short of the count in a third: not judged
    short = [(6.0, n), (19.0, n - 1)] + many[2:]
    assert saturation_reasons(0.01, 0.01, short, unit="cycles") == []


def test_behind_at_half_the_window_ends_or_more():
    flat = [(10.0, 5)] * 6
    kw = dict(nic_packets=2)
    assert saturation_reasons(0.5, 0.5, flat, backlog=[0, 3, 0, 9, 0, 0], **kw) == []  # 2 of 6
    assert saturation_reasons(0.5, 0.5, flat, backlog=[2] * 6, **kw) == []  # a full NIC is not behind
    r = saturation_reasons(0.5, 0.5, flat, backlog=[0, 3, 0, 5, 3, 0], **kw)  # 3 of 6
    assert r == ["generators behind their injection schedule at 3 of 6 sample window ends "
                 "(an endpoint with more than 2 packets due and not sent)"]
    assert saturation_reasons(0.5, 0.5, flat, backlog=[1, 1, 1], nic_packets=0)[0].startswith(
        "generators behind their injection schedule at 3 of 3")


def test_endpoint_backlog_from_each_nics_send_count():
    from topogen.drivers.sst import endpoint_backlog
    from topogen.drivers.sst_output import StatWindows

    w = StatWindows(times_ps=[1000, 2000, 3000, 4000],
                    sent_bits_by_nic={"ol_0": [100, 200, 300, 300], "ol_1": [100, 200, 400, 500]})
    # a packet (100 bits) due every 250 ps from 0: 4, 8, 12, 16 due before each time
    assert endpoint_backlog(w, [0, 1, 2, 3], start_ps=0, interval_ps=250, packet_bits=100) == [3, 6, 9, 13]
    # a second load from 2,000 ps: its sends are counted from there
    assert endpoint_backlog(w, [2, 3], start_ps=2000, interval_ps=250, packet_bits=100) == [3, 7]
    assert endpoint_backlog(w, [2, 3], start_ps=6000, interval_ps=250, packet_bits=100) == []  # no output there
    assert endpoint_backlog(StatWindows(times_ps=[1000]), [0], start_ps=0, interval_ps=250, packet_bits=100) == []


def test_nic_packets():
    assert nic_packets(66, 33) == 2 and nic_packets(8, 1) == 8 and nic_packets(12, 33) == 1


def _line2(load):
    """Two switches, 4 hosts each, one link: uniform traffic without self packets sends
    4/7 of each host's load across the link, which carries one flit per cycle each way, so
    the network saturates at 4 x load x 4/7 = 1, load 7/16 = 0.4375."""
    spec = CrossvalSpec("torus", {"dims": [2], "hosts_per_switch": 4}, packet_size=4, vc_buf_size=8,
                        loads=(load,), sample_period=1000, warmup_periods=1, max_samples=5,
                        simulators=("reference-sst",), link_latency=1)
    topo, layout = build_network(spec, 1)
    assert topo.num_switches == 2 and topo.num_links == 1
    routing, _ = build_routing(spec, topo, layout, 1)
    adapters, _ = build_adapters(spec, 1, topo, layout, routing, "unused")
    return adapters[0]


def test_sst_like_run_completes_below_and_saturates_above_the_link_capacity():
    ad = _line2(0.2)
    low = ad.run(0.3, 1)  # 69 % of 7/16
    assert low["status"] == "completed", low["message"]
    assert low["accepted_flit_rate"] == pytest.approx(0.3, rel=0.03)
    assert low["latency_unit"] == "cycles" and low["latency_avg"] > 0
    high = ad.run(0.6, 1)
    assert high["status"] == "saturated" and math.isnan(high["latency_avg"])
    assert "behind their injection schedule at" in high["message"]  # the window-ends rule
    # local traffic (3/7 of the load) plus at most 1/4 flit per host per cycle across the link
    assert high["accepted_flit_rate"] <= 0.6 * 3 / 7 + 0.25 + 0.01


def test_sst_runs_a_whole_even_picosecond_cycle():
    from topogen.drivers.sst_output import bits
    from topogen.experiments.simulators import sst_clock_ns, sst_parameters

    assert sst_clock_ns(8 / 3) == 2.666 and sst_clock_ns(2.5) == 2.5 and sst_clock_ns(1.0) == 1.0
    spec = CrossvalSpec("torus", {"dims": [4, 4]}, clock_ns=8 / 3, packet_size=1)
    p = sst_parameters(spec)
    assert p["clock_ns"] == 2.666
    r = p["router_params"]
    # one flit in 2,666 ps, half a cycle in, two cycles out, all on one picosecond grid
    flit_ps = bits(r["flit_size"]) / bits(r["link_bw"], rate=True) * 1e12
    assert flit_ps == pytest.approx(2666, abs=1e-6)
    assert (r["input_latency"], r["output_latency"]) == ("1333ps", "5332ps")
    assert p["link_latency_ns"] == 2.666 and p["warmup"] == f"{3 * 1000 * 2666}ps"
