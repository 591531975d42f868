"""crossval's reference-sst runs the output-buffered router with SST's buffer sizes."""

import json

from topogen.experiments.simulators import (CrossvalSpec, build_adapters, build_network, build_routing,
                                               output_buf_flits, sst_parameters)


def test_reference_sst_uses_the_output_buffered_router_with_sst_buffers(tmp_path):
    spec = CrossvalSpec("torus", {"dims": [4, 4]}, packet_size=4, vc_buf_size=12, loads=(0.1,),
                        sample_period=200, simulators=("reference", "reference-sst"))
    topo, layout = build_network(spec, 1)
    routing, _ = build_routing(spec, topo, layout, 1)
    adapters, skipped = build_adapters(spec, 1, topo, layout, routing, tmp_path)
    by = {a.simulator: a for a in adapters}
    assert by["reference-sst"].router == "output-buffered" and by["reference"].router == "input-queued"
    row = by["reference-sst"].run(0.1, 1)
    cfg = json.loads(row["params"])["config"] if isinstance(row["params"], str) else row["params"]["config"]
    assert cfg["router"] == "output-buffered"
    assert cfg["output_buf_size"] == output_buf_flits(spec) == 12
    # SST's hr_router gets the same output buffer (bytes of the spec's flits)
    assert sst_parameters(spec)["router_params"]["output_buf_size"] == f"{12 * spec.flit_bits // 8}B"
    plain = by["reference"].run(0.1, 1)
    pcfg = json.loads(plain["params"])["config"] if isinstance(plain["params"], str) else plain["params"]["config"]
    assert "router" not in pcfg
