"""Measured channel loads of the reference simulator against the loads the routes imply."""

import numpy as np

from topogen.generators.classic import hypercube
from topogen.routing import route
from topogen.routing.load import uniform_channel_load
from topogen.sim import simulate


def test_measured_channel_loads_follow_the_routes():
    t = hypercube(4)
    r = route(t, None, "nr", ties="lowest")  # uneven loads: low dimensions carry more
    row, flits = simulate(r, load=0.2, seed=1, packet_size=1, vc_buf_size=8, link_latency=1,
                          min_period_packets=4000, return_channel_flits=True)
    assert row["status"] == "completed"
    want = uniform_channel_load(r) * row["accepted_flit_rate"]
    assert flits.shape == want.shape == (len(t.csr().indices),)
    # every flit-hop is counted once: the totals agree, and link by link within noise
    assert abs(flits.sum() / want.sum() - 1) < 0.03
    assert np.corrcoef(flits, want)[0, 1] > 0.98
    assert np.argmax(flits) in np.flatnonzero(want >= 0.9 * want.max())
    # without the flag: just the row
    assert isinstance(simulate(r, load=0.05, seed=1, packet_size=1, vc_buf_size=8, link_latency=1), dict)
