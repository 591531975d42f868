"""The output-buffered router's crossbar (merlin.xbar_arb_lru) starts its
least-recently-granted order from the router's port numbers: merlin.anytopo's (neighbours
by id, then the hosts) by default, merlin.torus's and merlin.mesh's with
``port_order="booksim-native"``.  Pairs never granted keep that order, so it decides
which of two heads that arrive together goes first (measured: the 8x8 torus at zero load
read 0.997 of merlin.torus's latency with anytopo's order, 1.000 with merlin's)."""

from dataclasses import replace

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native_sst import merlin_torus_wiring
from topogen.routing import route
from topogen.sim._obuf import _VCS, OutputBufferedEngine
from topogen.sim.config import SimConfig
from topogen.sim.network import Network


def _initial_order(dims, mesh=False, **cfg):
    """{switch: [upstream of each input port, in the crossbar's initial order]} (hosts as 'h')."""
    topo = registry.generate("mesh" if mesh else "torus", dims=dims)
    config = replace(SimConfig(), router="output-buffered", packet_size=4, vc_buf_size=8, **cfg)
    net = Network(route(topo, None, "dor"), config)
    eng = OutputBufferedEngine(net, np.random.default_rng(1))
    indptr = np.asarray(net.indptr)
    src = np.repeat(np.arange(net.num_switches), np.diff(indptr)).tolist()
    m = len(src)
    order = {}
    for o, w in enumerate(eng.in_switch):
        if w < 0:
            continue
        order.setdefault(w, []).append((eng.rank[o * _VCS], src[o] if o < m else "h"))
    return {w: [u for _, u in sorted(x)] for w, x in order.items()}


@pytest.mark.parametrize("dims,mesh", [((4, 4), False), ((3, 5), False), ((4, 3), True)])
def test_merlin_numbering_with_booksim_native(dims, mesh):
    wiring = merlin_torus_wiring(dims, mesh=mesh)  # rebuilt from pymerlin-topo-mesh.py
    got = _initial_order(dims, mesh, port_order="booksim-native")
    for w, ups in got.items():
        ports = sorted((p, u) for (r, p), (u, _) in wiring.items() if r == w)
        assert ups == [u for _, u in ports] + ["h"], w


def test_anytopo_numbering_by_default():
    got = _initial_order((4, 4))
    for w, ups in got.items():
        assert ups[:-1] == sorted(ups[:-1]) and ups[-1] == "h"
    # router 1 of the 4x4 torus: merlin.torus puts +x (router 2) before -x (router 0)
    assert got[1][:2] == [0, 2]
    assert _initial_order((4, 4), port_order="booksim-native")[1][:2] == [2, 0]


def test_native_order_needs_a_kncube():
    topo = registry.generate("hyperx", dims=(3, 3))
    config = replace(SimConfig(), router="output-buffered", packet_size=4, vc_buf_size=8,
                     port_order="booksim-native")
    with pytest.raises(ParameterError, match="booksim-native"):
        OutputBufferedEngine(Network(route(topo, None, "dor"), config), np.random.default_rng(1))
