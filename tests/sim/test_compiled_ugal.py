"""UGAL-L and UGAL-G on the compiled engine (topogen.sim._core) against the pure-Python
reference engine: the same choices, the same rows and the same deliveries for the same
seed, event for event."""

import numpy as np
import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.generators.slimfly import slimfly
from topogen.routing import route, ugal, nearest
from topogen.sim import SimConfig, run_trace, simulate
from topogen.sim._compiled import CompiledEngine, compiled_covers, engine_for
from topogen.sim.model import Engine, Network

from ._rows import random_trace, same_fixed_run_on_both_engines, same_on_both_engines

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)


def _nets():
    sf = slimfly(3)
    df = topogen.generate("dragonfly", a=4, p=2, h=2)
    return {
        "sf3-ugal-l": route(sf, None, "ugal-l", seed=1),
        "sf3-ugal-g": route(sf, None, "ugal-g", seed=1),
        "df-ugal-l": route(df, None, "ugal-l", seed=2),
        "df-ugal-g3": ugal(nearest(df), "global", candidates=3),
    }


NETS = _nets()



def test_compiled_engine_covers_ugal():
    r = NETS["sf3-ugal-l"]
    net = Network(r, SimConfig(num_vcs=4))
    assert compiled_covers(net) is None
    assert isinstance(engine_for(net, np.random.default_rng(0)), CompiledEngine)
    row = simulate(r, load=0.05, seed=1, packet_size=1, vc_buf_size=4, num_vcs=4, engine="compiled", **FAST)
    assert '"engine":"compiled"' in row["params"]


@pytest.mark.parametrize("name", sorted(NETS))
@pytest.mark.parametrize("size,loads", [(1, (0.2, 0.8)), (4, (0.3,))])
def test_rows_equal_python_engine(name, size, loads):
    r = NETS[name]
    for load in loads:
        for allocator, vc_alloc in (("separable", "booksim"), ("fifo", "credits")):
            kw = dict(traffic="uniform", load=load, seed=7, packet_size=size,
                      vc_buf_size=2 * size + 2, num_vcs=max(4, r.num_vcs), allocator=allocator,
                      vc_alloc=vc_alloc, **FAST)
            same_on_both_engines(r, **kw)


def test_saturated_and_completed_both_covered():
    """The comparisons above include saturated and completed rows (else they test less
    than they claim)."""
    r = NETS["sf3-ugal-l"]
    kw = dict(traffic="uniform", seed=7, packet_size=1, vc_buf_size=4, num_vcs=4, **FAST)
    assert simulate(r, load=0.8, engine="compiled", **kw)["status"] == "saturated"
    assert simulate(r, load=0.2, engine="compiled", **kw)["status"] == "completed"


def test_run_fixed_equal():
    r = NETS["df-ugal-l"]
    kw = dict(traffic="uniform", load=0.5, seed=9, packet_size=1, vc_buf_size=4, num_vcs=6)
    same_fixed_run_on_both_engines(r, 800, **kw)


def _trace(r, engine, k=6000, horizon=600, seed=0, **kw):
    return random_trace(r, engine, k, horizon, seed, **kw)


@pytest.mark.parametrize("name", ["sf3-ugal-g", "df-ugal-g3"])
def test_trace_equal_across_draw_refills(name):
    """Every packet's delivery and link count are equal; the run spans several refills of
    the uniform draws (4,096 at a time), with 3 candidates a refill falls inside a choice."""
    r = NETS[name]
    kw = dict(packet_size=2, vc_buf_size=6, num_vcs=max(4, r.num_vcs))
    a, b = _trace(r, "python", **kw), _trace(r, "compiled", **kw)
    assert isinstance(b.engine, CompiledEngine) and isinstance(a.engine, Engine)
    for f in ("pid", "src", "dst", "created", "injected", "delivered", "links"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert a.engine.ugal_choices == b.engine.ugal_choices
    choices = b.engine.ugal_choices
    assert choices[0] > 0 and sum(choices[1:]) > 0  # MIN and Valiant both taken
    k = len(choices) - 1
    assert sum(choices) * k > 2 * 4096  # more than two refills of the draws
    assert b.cycles == a.cycles and b.engine.credits_restored() and b.engine.idle()


def test_same_switch_packets_and_links():
    """Packets between hosts of one switch take no link (no choice, no draw)."""
    r = NETS["sf3-ugal-l"]
    hosts = r.topology.num_hosts
    per = hosts // r.topology.num_switches
    pk = np.array([[0, 0, 1], [0, per, per + 1], [1, 0, 2 * per]])
    a = run_trace(r, pk, engine="python", packet_size=1, vc_buf_size=4, num_vcs=4)
    b = run_trace(r, pk, engine="compiled", packet_size=1, vc_buf_size=4, num_vcs=4)
    np.testing.assert_array_equal(a.links, b.links)
    np.testing.assert_array_equal(a.delivered, b.delivered)
    assert sorted(b.links.tolist())[:2] == [0, 0] and b.engine.ugal_choices == [1, 0, 0, 0, 0]


def test_ugal_runs_without_the_vc_allocation_stage():
    """As on the Python engine (Engine.vca is off for UGAL)."""
    from topogen.sim import _core as C

    net = Network(NETS["sf3-ugal-l"], SimConfig(num_vcs=4, vc_alloc="booksim"))
    assert not Engine(net, np.random.default_rng(0)).vca
    eng = CompiledEngine(net, np.random.default_rng(0))
    assert eng._st["cf"][C.C_VCA] == 0 and eng._st["cf"][C.C_UGAL] == 1
