"""Rows whose offered load is in Gbit/s/node (``--load-unit gbps``, the Skywalk and layout
studies): the accepted load is converted to the same unit for tables and the throughput
panel of ``topogen plot``."""

import pandas as pd
import pytest

from topogen.generators.classic import torus
from topogen.results import accepted_in_offered_unit
from topogen.routing import dor
from topogen.sim import simulate
from topogen.sim.plot import curves


def test_gbps_rows_accepted_in_gbps():
    row = simulate(dor(torus((4, 4))), load=9.6, load_unit="gbps", seed=3, max_samples=4)
    assert row["load_unit"] == "Gbit/s/node"
    acc = accepted_in_offered_unit(row)
    # 9.6 Gbit/s/node is 0.1 flits/node/cycle on 96 Gbit/s links; accepted ~ offered below saturation
    assert acc == pytest.approx(row["accepted_flit_rate"] * 96.0)
    assert acc == pytest.approx(9.6, rel=0.1)


def test_recorded_link_rate_is_used():
    row = {"load_unit": "Gbit/s/node", "accepted_flit_rate": 0.5,
           "params": '{"config": {"link_gbps": 40.0, "packet_size": 4}}'}
    assert accepted_in_offered_unit(row) == pytest.approx(20.0)
    row = {"load_unit": "Gbit/s/node", "accepted_load": 0.125, "params": '{"packet_size": 4}'}
    assert accepted_in_offered_unit(row) == pytest.approx(0.5 * 96.0)


def test_throughput_panel_uses_the_offered_unit():
    rows = [simulate(dor(torus((4, 4))), load=x, load_unit="gbps", seed=1, max_samples=4) for x in (4.8, 9.6)]
    (c,) = curves(pd.DataFrame(rows))
    assert c["load_unit"] == "Gbit/s/node"
    for off, acc in zip(c["offered"], c["accepted"]):
        assert acc == pytest.approx(off, rel=0.15)  # same unit: accepted ~ offered below saturation
