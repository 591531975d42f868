"""The SST driver and model on a real SST (``-m sst``; skipped where ``sst`` is not found).

Each case has a stand-in twin in ``test_sst_driver.py`` / ``tests/export/test_sst_validate.py``
for machines without SST.  Runs are kept short where the case allows it.  These are
merlin's ``offered_load`` (``generator="offered_load"``: sample windows, network latency,
loads as fractions of link bandwidth); ``topogen.bernoulli_nic``, run_sst's default, is
tested on SST in ``test_sst_nic_real.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import topogen
from topogen.drivers import sst as sd
from topogen.errors import FormatError, SimulatorFailed
from topogen.export import sst as sx

from .fakes import real_sst_or_skip

pytestmark = pytest.mark.sst

SHORT = {"warmup": "2us", "collect": "8us", "drain": "4us"}


@pytest.fixture(scope="module", autouse=True)
def real_sst():
    return real_sst_or_skip()


def make(tmp_path, name, routing="nr", **params):
    from topogen import registry, routing as rt

    spec = registry.get(name)
    topology = spec.func(**params)
    layout = topogen.layout.default_layout(topology)
    r = rt.route(topology, layout, routing)
    return sx.write_bundle(tmp_path / f"{name}.{routing}.sst.json", topology, layout, r)


def torus4(tmp_path):
    return make(tmp_path, "torus", dims=(4, 4))


def test_low_load_completes_with_one_latency_definition(tmp_path):
    b = torus4(tmp_path)
    row = sd.run_sst(b, load=0.1, timeout=600, generator="offered_load")[0]
    assert row["status"] == "completed" and row["message"] is None
    # generation-to-delivery includes the network part and the serialisation at the source
    assert 0 < row["network_latency_avg"] < row["latency_avg"] < 2 * row["network_latency_avg"]
    assert row["accepted_load"] == pytest.approx(0.1, rel=0.05)
    assert row["injected_load"] == pytest.approx(0.1, rel=0.05)
    # a run of several loads measures its first load exactly as a run of that load alone
    first, second = sd.run_sst(b, load=[0.1, 0.2], timeout=600, generator="offered_load")
    for col in ("latency_avg", "network_latency_avg", "accepted_load"):
        assert first[col] == pytest.approx(row[col], rel=1e-3), col
    assert second["status"] == "completed" and second["accepted_load"] == pytest.approx(0.2, rel=0.05)


# With one host per switch these networks carry 0.4 easily (measured on SST: accepted 0.400,
# flat latency); with 4 (2 on the 8x8 torus) hosts per switch 0.4 is above saturation.
@pytest.mark.parametrize("name, params", [
    ("torus", {"dims": (4, 4), "hosts_per_switch": 4}),
    ("torus", {"dims": (8, 8), "hosts_per_switch": 2}),
    ("hypercube", {"dimension": 6, "hosts_per_switch": 4}),
])
def test_load_above_saturation_is_saturated_with_the_reason(tmp_path, name, params):
    b = make(tmp_path, name, **params)
    row = sd.run_sst(b, load=0.4, timeout=1200, generator="offered_load")[0]
    assert row["status"] == "saturated", row["message"]
    assert "accepted" in row["message"] or "grew" in row["message"] or "'*'" in row["message"]
    assert row["accepted_load"] < 0.4


@pytest.mark.parametrize("name, params", [
    ("torus", {"dims": (4, 4)}),
    ("slimfly", {"q": 5}),
    ("dragonfly", {"a": 4, "p": 2, "h": 2}),
    ("skywalk", {"switches_per_cabinet": 4, "cabinets": 16, "intra_degree": 3, "inter_degree": 3, "seed": 1}),
])
@pytest.mark.parametrize("routing", ["nr", "fr"])
def test_routings_run_on_every_family(tmp_path, name, params, routing):
    b = make(tmp_path, name, routing, **params)
    row = sd.run_sst(b, load=0.1, timeout=600, generator="offered_load", **SHORT)[0]
    assert row["status"] == "completed", row["message"]
    assert row["accepted_load"] == pytest.approx(0.1, rel=0.05)
    assert row["routing"] == f"source:{json.loads(b.read_text())['metadata']['routing']}"


@pytest.mark.parametrize("routing", ["updown", "dor", "valiant", "escape", "hop", "layered"])
def test_every_other_routing_runs(tmp_path, routing):
    b = make(tmp_path, "torus", routing, dims=(4, 4))
    row = sd.run_sst(b, load=0.1, timeout=600, generator="offered_load", **SHORT)[0]
    assert row["status"] == "completed", row["message"]
    assert row["accepted_load"] == pytest.approx(0.1, rel=0.05)


def edit(bundle, change):
    doc = json.loads(bundle.read_text())
    change(doc)
    bundle.write_text(json.dumps(doc))
    return bundle


def test_crash_carries_merlins_explanation_and_no_latency(tmp_path):
    b = edit(torus4(tmp_path), lambda d: d["routers"][0].__setitem__("num_R2N_ports", 2))
    with pytest.raises(FormatError, match="router 0: num_ports 5 != num_R2R_ports 4 \\+ num_R2N_ports 2"):
        sd.run_sst(b, load=0.1, timeout=600, generator="offered_load")
    with pytest.raises(SimulatorFailed, match="sst crash: FATAL.*Number of ports mismatch") as info:
        sd.run_sst(b, load=0.1, timeout=600, validate=False, generator="offered_load", **SHORT)
    assert "\n" not in str(info.value)
    assert math.isnan(info.value.row["latency_avg"]) and math.isnan(info.value.row["network_latency_avg"])


def test_too_few_vcs_refused_before_sst_crashes(tmp_path):
    b = edit(torus4(tmp_path), lambda d: d.__setitem__("vcs_per_vn", d["max_hops"]))
    with pytest.raises(FormatError, match="vcs_per_vn = 4 but the longest route has 4 router-router hops"):
        sd.run_sst(b, load=0.1, timeout=600, generator="offered_load")
    assert not list(tmp_path.glob("*.log"))
    rows = sd.run_sst(b, load=0.1, timeout=600, validate=False, raise_on_failure=False, generator="offered_load",
                      **SHORT)
    assert rows[0]["status"] == "crash" and math.isnan(rows[0]["latency_avg"])


def test_connectivity_to_a_missing_port_is_refused_or_an_error(tmp_path):
    def wrong_port(doc):  # router 0 claims its link to its first neighbour is on a port it lacks
        r = doc["routers"][0]
        first, rest = r["connectivity"].split(";", 1)
        r["connectivity"] = f"{first.split(',')[0]},{r['num_ports'] + 2};{rest}"
    b = edit(make(tmp_path, "slimfly", q=5), wrong_port)
    with pytest.raises(FormatError, match="router 0 port 13: connectivity to router \\d+ uses port 13, outside"):
        sd.run_sst(b, load=0.1, timeout=600, generator="offered_load")
    # Unchecked, the bundle sends merlin into undefined behaviour: hr_router's arbiter reads
    # a port that does not exist (a segmentation fault in xbar_arb_lru::arbitrate on most
    # runs; on some, SST runs on and its figures are meaningless).  The driver still returns
    # one row with the raw log, never a completed measurement with a latency.
    rows = sd.run_sst(b, load=0.1, timeout=600, validate=False, raise_on_failure=False, generator="offered_load",
                      **SHORT)
    assert rows[0]["status"] in ("incomplete", "crash", "saturated"), rows[0]["message"]
    assert Path(rows[0]["raw_output"]).is_file()
    if rows[0]["status"] != "saturated":
        assert math.isnan(rows[0]["latency_avg"])


def test_thousand_endpoints(tmp_path):
    b = make(tmp_path, "torus", dims=(10, 10), hosts_per_switch=10)
    # 64 B messages: enough packets per endpoint in a 4 us collect to measure the load
    row = sd.run_sst(b, load=0.05, timeout=1200, warmup="1us", collect="4us", drain="1us",
                     message_size="64B", generator="offered_load")[0]
    assert row["num_hosts"] == 1000 and row["status"] == "completed", row["message"]


@pytest.mark.parametrize("packet, shift", [(1, 3), (33, 1), (33, 2)])
def test_reference_simulator_with_ssts_traffic_matches_sst(tmp_path, packet, shift):
    """At low load SST and the reference simulator with SST's traffic process
    (periodic injection in step, latency to the head, no self packets) agree to the
    cycle: the router split of ``sst_router_latencies`` and the in-step collisions of
    ``shift:2`` (``docs/sst.md``)."""
    from topogen import sim_defaults as d
    from topogen.generators.classic import torus
    from topogen.routing import nearest
    from topogen.sim import simulate

    t = torus((8,), hosts_per_switch=1)
    r = nearest(t)
    b = sx.write_bundle(tmp_path / "ring.sst.json", t, None, r)  # 1-cycle links and host links
    size = f"{packet * d.FLIT_BITS // 8}B"
    row = sd.run_sst(b, load=0.02, traffic=f"shift:{shift}", message_size=size, warmup="10us",
                     collect="40us", drain="10us", timeout=600, generator="offered_load")[0]
    assert row["status"] == "completed", row["message"]
    ref = simulate(r, traffic=f"shift:{shift}", load=0.02, packet_size=packet, injection="periodic",
                   latency_at="head", self_packets=False, link_latency=1, clock_ns=d.CYCLE_NS, seed=1)
    assert ref["latency_avg"] == pytest.approx(row["latency_avg"] / d.SST_CYCLE_NS, rel=0.01)


def _crossval_torus4(tmp_path, loads, saturation=False):
    """4x4 torus with 4 hosts per switch (33-flit packets, booksim-min tables), SST against
    reference-sst (the output-buffered router), long windows and 3 seeds so that the 3 %
    tolerance is not sampling noise (``docs/sst.md``, "Under load")."""
    from topogen.reproduce import crossval as cv

    return cv.crossval(dict(topology="torus", params={"dims": (4, 4), "hosts_per_switch": 4},
                            loads=loads, simulators=("reference-sst", "sst"), sample_period=5000,
                            repeats=3, saturation=saturation, timeout=900.0), tmp_path / "out")


def test_output_buffered_reference_matches_sst_under_load(tmp_path):
    # 0.06 and 0.09 are 46 % and 68 % of SST's saturation (0.13); the input-queued
    # router was 5-7 % below SST here (docs/sst.md), the output-buffered one is within
    # 2.1 % measured on SST's timeline.  Not 0.03: its 93 us collect time holds only 32
    # in-step waves of packets, and one SST run against 3 seeds differed by sampling alone
    # by about the tolerance (measured 1.030, the seeds' standard error 2.1 %); SST now runs
    # 3 streams too (relabelled endpoints, docs/sst.md "Several SST streams").
    res = _crossval_torus4(tmp_path, (0.06, 0.09))
    t = res.table.set_index(["load", "simulator"])
    for load in (0.06, 0.09):
        sst, ref = t.loc[(load, "sst")], t.loc[(load, "reference-sst")]
        assert sst["status"] == "completed" and ref["status"] == "completed", (sst["message"], ref["message"])
        assert ref["router"] == "output-buffered"
        assert ref["latency_cycles"] / sst["latency_cycles"] == pytest.approx(1.0, abs=0.03)


@pytest.mark.slow
def test_output_buffered_reference_saturates_with_sst(tmp_path):
    res = _crossval_torus4(tmp_path, (0.05,), saturation=True)
    s = res.saturation.set_index("simulator")
    assert s.loc["reference-sst", "saturation"] / s.loc["sst", "saturation"] == pytest.approx(1.0, abs=0.05)
    assert s.loc["reference-sst", "verdict_sst"] == "pass"


def test_reference_sst_saturates_where_sst_does_by_one_rule(tmp_path):
    """reference-sst runs on SST's timeline and is judged by the SST driver's rule
    (generators behind at half the window ends, accepted < 95 %, latency growth): the bisected saturation
    loads agree within 5 % (4x4 torus, 33-flit uniform, 1,000-cycle periods: both in
    0.475-0.481 when measured; by the two simulators' own rules saturation loads were 4-17 %
    apart, ``docs/sst.md``)."""
    from topogen.reproduce import crossval as cv

    res = cv.crossval(dict(topology="torus", params={"dims": (4, 4)}, loads=(0.2, 0.4), packet_size=33,
                           link_latency=1, repeats=1, max_repeats=1,  # the setup measured above
                           simulators=("reference-sst", "sst"), saturation=True, timeout=600.0),
                      tmp_path / "out")
    s = res.saturation.set_index("simulator")
    assert s.loc["sst", "saturation"] == s.loc["sst", "saturation"]  # bracketed
    assert s.loc["reference-sst", "saturation"] / s.loc["sst", "saturation"] == pytest.approx(1.0, abs=0.05)
    assert s.loc["reference-sst", "verdict_sst"] == "pass"
    msgs = res.table[res.table["status"] == "saturated"]["message"].tolist()
    assert msgs and all(m for m in msgs)


def test_window_backlog_is_offered_loads_own_at_the_end(tmp_path):
    """The endpoint backlog the driver reads from each NIC's ``send_bit_count`` (packets
    due less packets on the wire) is the one ``offered_load`` judges for its ``*``: at the
    end of the collect time it exceeds the NIC's packets exactly when SST prints ``*``.  The
    rule then asks for it at half the window ends or more (docs/sst.md)."""
    b = make(tmp_path, "torus", dims=(4, 4), hosts_per_switch=4)
    bundle = json.loads(Path(b).read_text())
    packet_bits = sd.bits(sd.DEFAULTS["message_size"])
    link_bw = sd.bits(bundle["nic_params"]["link_bw"], rate=True)
    nic = max(1, int(sd.bits(bundle["nic_params"]["output_buf_size"]) // packet_bits))
    # the driver puts the run's times on the bundle's cycle grid (drivers.sst.grid_times)
    w_ps, c_ps, _, _ = sd.grid_times(*(round(sd.time_to_ns(SHORT[k]) * 1000) for k in ("warmup", "collect", "drain")),
                                     sd.DEFAULTS["windows"], bundle.get("cycle_ps"))
    end_ps = w_ps + c_ps
    for load, status in ((0.05, "completed"), (0.4, "saturated")):
        out = tmp_path / f"run{load}"
        row = sd.run_sst(b, load=load, timeout=600, out_dir=out, generator="offered_load", **SHORT)[0]
        assert row["status"] == status, row["message"]
        star = sd.parse_stdout(Path(row["raw_output"])).loads[0][2]
        win = sd.parse_windows(next(out.glob("*.csv")))
        i_end = win.at(end_ps)
        backlog = sd.endpoint_backlog(win, [i_end], start_ps=0, packet_bits=packet_bits,
                                      interval_ps=round(packet_bits / link_bw * 1e12 / load))
        assert (backlog[0] > nic) == star == (status == "saturated"), (backlog, nic, star)
        if status == "saturated":
            assert "generators behind their injection schedule at" in row["message"]
