"""Where the compiled engine's tables lie, and that their ids are the engine's ids.

The event core reads its port, buffer, packet and request tables at random, so each row
sits on cache lines: a row of at most 64 bytes never straddles two, longer rows are
whole lines.  Whatever layout the rows take, what leaves the engine by buffer and port
id (credits, flits sent) must be what the Python engine reports for the same ids,
mid-run, under load."""

import numpy as np
import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.generators.slimfly import slimfly
from topogen.routing import route
from topogen.sim import SimConfig
from topogen.sim import _core as C
from topogen.sim._compiled import CompiledEngine
from topogen.sim.model import Engine, Network

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

#: the per-id tables of the event core and their row counts (ports, buffers, hosts, switches)
TABLES = ("pt", "bf", "ob", "hs", "sw", "pk", "pc", "p_route", "vq", "nd")


def _engines(routing, cfg, seed=0):
    return (Engine(Network(routing, cfg), np.random.default_rng(seed)),
            CompiledEngine(Network(routing, cfg), np.random.default_rng(seed)))


@pytest.mark.parametrize("num_vcs", [2, 3, 4, 6])
def test_rows_on_cache_lines(num_vcs):
    torus = topogen.generate("torus", dims=(4, 4), hosts_per_switch=2)
    cfg = SimConfig(num_vcs=num_vcs, packet_size=1, vc_buf_size=5)
    eng = CompiledEngine(Network(route(torus, None, "dor"), cfg), np.random.default_rng(0))
    st = eng._st
    ports = 2 * torus.num_links + 2 * torus.num_hosts
    assert st["pt"].shape[0] == ports and st["bf"].shape[0] == ports * num_vcs
    assert st["ob"].shape[0] == ports * num_vcs and st["hs"].shape[0] == torus.num_hosts
    for name in TABLES:
        a = st[name]
        row = a.shape[1] * a.itemsize
        assert a.flags.c_contiguous and a.ctypes.data % 64 == 0, name
        assert (row <= 64 and 64 % row == 0) or row % 64 == 0, (name, row)
    # every group's fields fit its row
    for name in ("pt", "bf", "ob", "hs", "sw", "pk", "pc"):
        assert st[name].shape[1] >= len(C.GROUPS[name]), name


@pytest.mark.parametrize("vc_alloc", ["booksim", "credits"])
def test_credits_and_flits_by_id_match_python_engine(vc_alloc):
    """Mid-run, under load (buffers holding flits, VCs held), the credits of every buffer
    and the flits of every port are those of the Python engine, id by id."""
    sf = slimfly(5)
    cfg = SimConfig(num_vcs=4, packet_size=1, vc_buf_size=3, link_latency=1, vc_alloc=vc_alloc)
    py, co = _engines(route(sf, None, "hop", seed=1), cfg)
    rng = np.random.default_rng(5)
    n, k = sf.num_hosts, 20000
    t = np.sort(rng.integers(0, 400, k))
    s, d = rng.integers(0, n, k), rng.integers(0, n, k)
    for eng in (py, co):
        eng.inject_many(t, s, d)
    short = 0
    for until in range(40, 440, 40):
        py.run(until)
        co.run(until)
        assert py.delivered_count == co.delivered_count and py.in_network == co.in_network
        cp = np.asarray(py.credits)
        assert np.array_equal(co.credits, cp)
        assert np.array_equal(co.port_flits, np.asarray(py.port_flits))
        short = max(short, int((cp < cfg.vc_buf_size).sum()))
    assert short > 50  # buffers were holding flits at the stops
    py.run(10 ** 6)
    co.run(10 ** 6)
    assert co.idle() and co.credits_restored()
    assert np.array_equal(co.credits, np.asarray(py.credits))
