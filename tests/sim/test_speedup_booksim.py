"""The allocation rounds of ``internal_speedup = 2`` (``speedup_model="rounds"``) against
BookSim2 on the same network: Slim Fly q=5 exported by topogen, BookSim's anynet ``min``
routing and topogen's ``booksim-min`` (the same routes), uniform traffic with self
packets, the Slim Fly paper's router (the ``slimfly1`` setup: iq router, separable
input-first allocators, 1-cycle stages and channels, credit delay 2, internal speedup 2).

Measured (BookSim seed 0, reference seed 11; latency in cycles at packets/node/cycle):

* 1-flit packets, 3 VCs x 21 flits: 0.05 -> 10.59 / 10.60, 0.5 -> 12.52 / 12.51,
  0.8 -> 19.72 / 19.68, 0.9 -> 37.10 / 36.83 (the older pipeline reading saturated
  below 0.7: one packet per input and output per cycle);
* 4-flit packets, 4 VCs x 16 flits: 0.02 -> 14.12 / 14.07, 0.08 -> 17.12 / 16.64,
  0.15 -> 25.11 / 24.17, 0.18 -> 33.50 / 32.39.

Saturation throughput (accepted packets/node/cycle when offered more): 1-flit at 1.0
offered, BookSim 0.920, rounds 0.908 (pipeline reading: 0.606); 4-flit at 0.3 offered,
BookSim 0.2002, rounds 0.1996.
"""

import pytest

pytestmark = [pytest.mark.booksim, pytest.mark.slow]


def _booksim(tmp_path, options, loads):
    from topogen import generate
    from topogen.drivers.booksim import find_booksim, run_booksim
    from topogen.errors import SimulatorNotFound
    from topogen.export.booksim import export_booksim

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    ex = export_booksim(tmp_path, generate("slimfly", q=5), setup="slimfly1", options=options, stem="sf5")
    out = {}
    for load in loads:
        row = run_booksim(ex.config_file, overrides={"injection_rate": load, "seed": 0},
                          raise_on_failure=False)
        assert row["status"] == "completed", (load, row["status"])
        out[load] = row["latency_avg"]
    return out


def _reference(cfg, loads):
    from topogen import generate
    from topogen.routing import booksim_min
    from topogen.sim import simulate

    r = booksim_min(generate("slimfly", q=5))
    out = {}
    for load in loads:
        row = simulate(r, load=load, seed=11, traffic="uniform", self_packets=True, load_unit="packets",
                       sample_period=1000, warmup_periods=3, max_samples=10, link_latency=1,
                       credit_delay=2, internal_speedup=2.0, routing_delay=1, vc_alloc_delay=1,
                       sw_alloc_delay=1, st_delay=1, injection_latency=1, ejection_latency=1, **cfg)
        assert row["status"] == "completed", (load, row["message"])
        out[load] = row["latency_avg"]
    return out


@pytest.mark.parametrize("flits,cfg,loads", [
    (1, dict(num_vcs=3, vc_buf_size=21, packet_size=1), (0.05, 0.5, 0.8)),
    (4, dict(num_vcs=4, vc_buf_size=16, packet_size=4), (0.02, 0.08, 0.15)),
])
def test_rounds_agree_with_booksim(tmp_path, flits, cfg, loads):
    bs = _booksim(tmp_path, {} if flits == 1 else cfg, loads)
    ref = _reference(cfg, loads)
    zero = loads[0]
    assert ref[zero] == pytest.approx(bs[zero], rel=0.02)  # zero load within 2 %
    for load in loads[1:]:
        assert ref[load] == pytest.approx(bs[load], rel=0.05), load  # below saturation: 5 %


def test_one_flit_throughput_past_the_head_of_line_limit(tmp_path):
    # BookSim completes 0.9 packets/node/cycle (its FIFO inputs alone would cap near 0.6):
    # so does the reference simulator with rounds, within 5 % of BookSim's latency
    cfg = dict(num_vcs=3, vc_buf_size=21, packet_size=1)
    bs = _booksim(tmp_path, {}, (0.9,))
    ref = _reference(cfg, (0.9,))
    assert ref[0.9] == pytest.approx(bs[0.9], rel=0.05)


def _accepted(cfg, load, seed=3):
    """The reference simulator's accepted packets/node/cycle at ``load`` over cycles
    1000 .. 3000 of a fixed run (the first 1000 fill the network)."""
    from topogen import generate
    from topogen.routing import booksim_min
    from topogen.sim import run_fixed

    r = booksim_min(generate("slimfly", q=5))
    kw = dict(load=load, load_unit="packets", seed=seed, traffic="uniform", self_packets=True,
              link_latency=1, credit_delay=2, internal_speedup=2.0, **cfg)
    a = run_fixed(r, 1000, **kw)
    b = run_fixed(r, 3000, **kw)
    return (b["delivered"] - a["delivered"]) / (r.topology.num_hosts * 2000)


@pytest.mark.parametrize("cfg,load", [
    (dict(num_vcs=3, vc_buf_size=21, packet_size=1), 1.0),
    (dict(num_vcs=4, vc_buf_size=16, packet_size=4), 0.3),
])
def test_saturation_throughput_agrees_with_booksim(tmp_path, cfg, load):
    from topogen import generate
    from topogen.drivers.booksim import find_booksim, run_booksim
    from topogen.errors import SimulatorNotFound
    from topogen.export.booksim import export_booksim

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    opts = {} if cfg["packet_size"] == 1 else cfg
    ex = export_booksim(tmp_path, generate("slimfly", q=5), setup="slimfly1", options=opts, stem="sf5")
    row = run_booksim(ex.config_file, overrides={"injection_rate": load, "seed": 0}, raise_on_failure=False)
    assert row["status"] == "saturated"
    assert _accepted(cfg, load) == pytest.approx(row["accepted_load"], rel=0.05)
