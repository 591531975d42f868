"""The switches' port numbering of the reference simulator's round-robin arbiters
(SimConfig.port_order): BookSim anynet's hosts-first and BookSim kncube.cpp's own."""

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.routing import route
from topogen.sim import SimConfig, simulate
from topogen.sim.network import Network


def _locals(topology, order):
    net = Network(route(topology, None, "dor"), SimConfig(port_order=order))
    out_l, in_l = net.local_ports()
    m = net.num_links
    src = np.repeat(np.arange(net.num_switches), np.diff(net.indptr))
    links = list(zip(src.tolist(), np.asarray(net.indices).tolist()))
    out_at = {(u, w): int(out_l[e]) for e, (u, w) in enumerate(links)}
    in_at = {(u, w): int(in_l[e]) for e, (u, w) in enumerate(links)}
    return net, out_l, in_l, out_at, in_at, m


def test_kncube_order_on_a_4x4_mesh():
    net, out_l, in_l, out_at, in_at, m = _locals(registry.generate("mesh", dims=(4, 4)), "booksim-native")
    # interior switch 5 = (1, 1): +x is 6, -x 4, +y 9, -y 1, then its host (kncube.cpp)
    assert [out_at[(5, w)] for w in (6, 4, 9, 1)] == [0, 1, 2, 3]
    # input 2d from the + neighbour, 2d + 1 from the - neighbour
    assert [in_at[(u, 5)] for u in (6, 4, 9, 1)] == [0, 1, 2, 3]
    assert out_l[m + 5] == 4 and in_l[m + net.num_hosts + 5] == 4
    # corner 15 = (3, 3): no + neighbours; -x 14, -y 11, host: the same order without gaps
    assert [out_at[(15, w)] for w in (14, 11)] == [0, 1] and out_l[m + 15] == 2
    # edge 3 = (3, 0): -x 2, +y 7, -y none
    assert [out_at[(3, w)] for w in (2, 7)] == [0, 1] and out_l[m + 3] == 2


def test_hosts_first_order_and_every_switch_a_permutation():
    t = registry.generate("torus", dims=(4, 3), hosts_per_switch=2)
    for order in ("hosts-first", "booksim-native"):
        net, out_l, in_l, out_at, in_at, m = _locals(t, order)
        H = net.num_hosts
        for s in range(net.num_switches):
            outs = [out_at[e] for e in out_at if e[0] == s] + [int(out_l[m + h]) for h in range(H)
                                                                if net.host_switch[h] == s]
            ins = [in_at[e] for e in in_at if e[1] == s] + [int(in_l[m + H + h]) for h in range(H)
                                                             if net.host_switch[h] == s]
            assert sorted(outs) == list(range(len(outs))) == sorted(ins)
    net, out_l, in_l, out_at, in_at, m = _locals(t, "hosts-first")
    # hosts first (0, 1), then neighbours by increasing id: switch 0's are 1, 3, 4, 8
    assert [out_at[(0, w)] for w in (1, 3, 4, 8)] == [2, 3, 4, 5] and list(out_l[m:m + 2]) == [0, 1]
    net, out_l, in_l, out_at, in_at, m = _locals(t, "booksim-native")
    # switch 0 of a 4x3 torus: +x 1, -x 3, +y 4, -y 8, then its two hosts
    assert [out_at[(0, w)] for w in (1, 3, 4, 8)] == [0, 1, 2, 3] and list(out_l[m:m + 2]) == [4, 5]


def test_port_order_checked():
    with pytest.raises(ParameterError, match="port_order must be one of"):
        SimConfig(port_order="by-id")
    net = Network(route(registry.generate("hypercube", dimension=3), None, "nr"),
                  SimConfig(port_order="booksim-native"))
    with pytest.raises(ParameterError, match="booksim-native.*not 'hypercube'"):
        net.local_ports()


def test_order_changes_arbitration_and_engines_agree():
    r = route(registry.generate("mesh", dims=(4, 4)), None, "dor")
    rows = {}
    for order in ("hosts-first", "booksim-native"):
        for engine in ("python", "compiled"):
            cfg = SimConfig(link_latency=1, port_order=order, engine=engine, max_samples=5, warmup_periods=2)
            rows[order, engine] = simulate(r, traffic="uniform", load=0.35, load_unit="flits", config=cfg, seed=1)
    for order in ("hosts-first", "booksim-native"):
        assert rows[order, "python"]["latency_avg"] == rows[order, "compiled"]["latency_avg"]
    assert rows["hosts-first", "python"]["latency_avg"] != rows["booksim-native", "python"]["latency_avg"]
