"""Cost and power model (Slim Fly VI-B, VI-C) against hand computations."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import Floor, place
from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.generators.moore import petersen
from topogen.generators.slimfly import slimfly
from topogen.layout.slimfly import slimfly_layout
from topogen.metrics.cost import CostModel, network_cost


def _racks(topo, per_rack, cabinets):
    floor = Floor(cabinets, per_rack, rows=1, columns=cabinets, cabinet_width=1.0, cabinet_depth=1.0,
                  intra_cable=1.0, inter_overhead=2.0)
    return place(topo, floor, "sequential")


def test_hand_computed_petersen():
    layout = _racks(petersen(), 5, 2)
    c = network_cost(layout)
    e = petersen().edges
    same = (e[:, 0] // 5) == (e[:, 1] // 5)
    n_el, n_op = int(same.sum()), int((~same).sum())
    # racks side by side: 1 m apart + 2 m overhead = 3 m per inter-rack cable
    want_cables = n_el * (0.4079 * 1 + 0.5771) * 40 + n_op * (0.0919 * 3 + 2.7452) * 40
    want_routers = 10 * (350.4 * 4 - 892.3)  # 3 links + 1 host per router
    assert (c.electric_cables, c.optical_cables) == (n_el, n_op)
    assert c.cable_cost == pytest.approx(want_cables)
    assert c.router_cost == pytest.approx(want_routers)
    assert c.total_cost == pytest.approx(want_cables + want_routers)
    assert c.power_w == pytest.approx(10 * 4 * 4 * 0.7)
    assert c.cost_per_endpoint == pytest.approx((want_cables + want_routers) / 10)


def test_slimfly_q19_paired_racks_and_power():
    q, delta = 19, -1
    layout = slimfly_layout(slimfly(q), racks="paired")
    c = network_cost(layout)
    # per rack: two subgroups of q routers with (q - delta)/2 intra-subgroup links each,
    # plus q links between them (Slim Fly VI-A)
    per_rack = 2 * q * (q - delta) // 4 + q
    assert c.electric_cables == q * per_rack == 3971
    assert c.electric_cables + c.optical_cables == 722 * 29 // 2
    assert c.radix == 44 and c.power_per_endpoint == pytest.approx(722 * 44 * 2.8 / 10830)
    # the paper's Table IV: 8.02 W per node with k = 43
    at43 = network_cost(layout, radix=43)
    assert at43.power_per_endpoint == pytest.approx(8.02, abs=0.01)
    assert at43.cost_per_endpoint == pytest.approx(1033, rel=0.01)


def test_cable_rules_and_endpoint_cables():
    layout = _racks(torus((4, 4)), 4, 4)
    folded = network_cost(layout, CostModel(cables="folded"))
    assert folded.optical_cables == 0 and folded.electric_m == pytest.approx(32.0)
    by_len = network_cost(layout, CostModel(cables="length", electric_max_m=4.0))
    lengths = np.asarray(layout.cable_length)
    assert by_len.optical_cables == int((lengths > 4.0).sum()) > 0
    with_hosts = network_cost(layout, CostModel(endpoint_cables=True))
    plain = network_cost(layout)
    assert with_hosts.electric_cables == plain.electric_cables + 16
    assert with_hosts.cable_cost == pytest.approx(plain.cable_cost + 16 * (0.4079 + 0.5771) * 40)
    # a Topology is placed on its default floor
    assert network_cost(slimfly(5)).routers == 50


def test_constants_are_parameters():
    layout = _racks(petersen(), 5, 2)
    cheap = network_cost(layout, CostModel(link_gbps=10.0))
    dear = network_cost(layout)
    assert dear.cable_cost == pytest.approx(4 * cheap.cable_cost)
    p = network_cost(layout, CostModel(lanes_per_port=1, watts_per_lane=1.0))
    assert p.power_w == pytest.approx(40.0)


@pytest.mark.parametrize("field", ["router_dollars_per_port", "router_dollars_offset", "electric_dollars_per_m",
                                   "optical_dollars_base", "watts_per_lane", "lanes_per_port", "electric_max_m"])
def test_negative_constants_refused(field):
    with pytest.raises(ParameterError, match=f"{field}.*negative"):
        CostModel(**{field: -1.0})


def test_bad_input():
    with pytest.raises(ParameterError, match="link_gbps"):
        CostModel(link_gbps=0)
    with pytest.raises(ParameterError, match="cables"):
        CostModel(cables="fibre")
    with pytest.raises(ParameterError, match="negative for radix"):
        network_cost(_racks(torus((4, 4)), 4, 4), radix=2)
    with pytest.raises(ParameterError, match="radix"):
        network_cost(slimfly(5), radix=0)
    with pytest.raises(ParameterError, match="Layout or Topology"):
        network_cost("slimfly")
