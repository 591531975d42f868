"""``flow_control="wormhole"`` against a real BookSim2 (``-m booksim``): BookSim's own
packets (its watch output: creation cycle, source, destination, latency of every packet)
replayed through the reference simulator get BookSim's latency, packet for packet
(docs/booksim.md, "The three 33-flit misses")."""

import re
import subprocess
from dataclasses import replace

import numpy as np
import pytest

from topogen.errors import SimulatorNotFound
from topogen.experiments import simulators as X
from topogen.sim import run_trace

PACKETS = 400


def _booksim_packets(tmp_path, spec, topology, *, load, seed, options):
    """BookSim's first PACKETS packets: [(creation cycle, source, destination)], [latency]."""
    from topogen.drivers.booksim import find_booksim
    from topogen.export.booksim import export_booksim

    try:
        exe = find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    opts = X.booksim_options(spec, spec.traffic, seed)
    opts.update(options)
    exp = export_booksim(tmp_path / "bs", topology, None, stem="net", setup="vct33",
                         clock_period_ns=spec.clock_ns, options=opts,
                         latency=np.full(topology.num_links, spec.link_latency))
    watch = tmp_path / "watch.lst"
    watch.write_text("".join(f"p{i}\n" for i in range(PACKETS)))
    out = tmp_path / "watch.txt"
    r = subprocess.run([exe, str(exp.config_file), f"injection_rate={load}", f"seed={seed}",
                        f"watch_file={watch}", f"watch_out={out}"], capture_output=True, text=True,
                       timeout=600, cwd=exp.config_file.parent)  # the .cfg names its netlist beside it
    # (BookSim2 master exits with 255 after a complete run; the figures are what counts)
    assert "Packet latency average" in r.stdout and "unstable" not in r.stdout, r.stdout[-2000:]
    made, done = {}, {}
    for line in out.read_text().splitlines():
        m = re.search(r"node(\d+) \| Enqueuing packet (\d+) at time (\d+)", line)
        if m:
            made[int(m[2])] = (int(m[3]), int(m[1]))
            continue
        m = re.search(r"Retiring packet (\d+) \(plat = (\d+).*src = (\d+), dest = (\d+)\)", line)
        if m:
            done[int(m[1])] = (int(m[2]), int(m[4]))
    pids = sorted(p for p in made if p in done)
    assert len(pids) >= PACKETS - 20
    return [(made[p][0], made[p][1], done[p][1]) for p in pids], [done[p][0] for p in pids]


@pytest.mark.booksim
@pytest.mark.parametrize("buf", [66, 8])
def test_booksim_packets_replay_to_the_cycle(tmp_path, buf):
    # 4x4 torus, booksim-min routes, 33-flit packets, uniform at 0.3 flits/node/cycle
    # (0.45 of saturation with 66-flit buffers); 8-flit buffers: a true wormhole network
    spec = X.CrossvalSpec(topology="torus", params={"dims": [4, 4]}, packet_size=33, link_latency=1,
                          simulators=("booksim",), timeout=600.0)
    topology, layout = X.build_network(spec, 1)
    routing, _ = X.build_routing(spec, topology, layout, 1)
    packets, latency = _booksim_packets(tmp_path, spec, topology, load=0.3, seed=3,
                                        options={"vc_buf_size": buf})
    cfg = replace(X._reference_config(spec), vc_buf_size=buf, flow_control="wormhole", engine="python")
    tr = run_trace(routing, packets, config=cfg)
    assert not tr.deadlocked
    ref = dict(zip(tr.pid.tolist(), tr.latency.tolist()))
    same = sum(ref[i] == latency[i] for i in range(len(packets)))
    # the packets after the first PACKETS also load BookSim's network: only the late ones
    # may differ
    assert same >= 0.95 * len(packets), (same, len(packets))
    assert [ref[i] for i in range(200)] == latency[:200]
