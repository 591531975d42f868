"""The compiled engine runs ``internal_speedup`` allocation rounds (``speedup_model=
"rounds"``) with table routings (MIN, Valiant), UGAL-L / UGAL-G and ANCA: the same rows and
the same packets, event for event, as the Python engine, whose ``_allocate_rounds`` is the
model's definition."""

import numpy as np
import pytest

from topogen._sssp import AVAILABLE
from topogen.generators.fattree import kary_ntree
from topogen.generators.slimfly import slimfly
from topogen.routing import anca, route
from topogen.sim import SimConfig
from topogen.sim._compiled import CompiledEngine, compiled_covers, engine_for
from topogen.sim.model import Network

from ._rows import random_trace, same_on_both_engines

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

FAST = dict(sample_period=100, warmup_periods=1, max_samples=4, min_period_packets=0)
SF = slimfly(3)
NETS = {"min": route(SF, None, "hop", seed=1), "val": route(SF, None, "valiant", seed=1)}
#: routings that choose in the run (UGAL at the source, ANCA hop by hop)
CHOOSING = {"ugal-l": route(SF, None, "ugal-l", seed=1), "ugal-g": route(SF, None, "ugal-g", seed=1),
            "anca-queue": anca(kary_ntree(3, 3)), "anca-booksim": anca(kary_ntree(4, 2), select="booksim")}


def test_rounds_run_compiled_for_table_ugal_and_anca():
    for r in (*NETS.values(), *CHOOSING.values()):
        net = Network(r, SimConfig(num_vcs=4, internal_speedup=2.0))
        assert net.config.speedup_rounds and compiled_covers(net) is None
        assert isinstance(engine_for(net, np.random.default_rng(0)), CompiledEngine)


def test_rounds_fall_back_where_not_covered():
    r = NETS["min"]
    net = Network(r, SimConfig(num_vcs=4, internal_speedup=2.0, allocator="fifo", vc_alloc="credits"))
    why = compiled_covers(net)
    assert why and "fifo" in why and "rounds" in why
    eng = engine_for(net, np.random.default_rng(0))
    assert not isinstance(eng, CompiledEngine) and eng.fallback == why


@pytest.mark.parametrize("name", sorted(NETS))
@pytest.mark.parametrize("s", [2.0, 1.5])
@pytest.mark.parametrize("size,loads", [(1, (0.3, 0.95)), (4, (0.5,))])
def test_rows_equal_python_engine(name, s, size, loads):
    r = NETS[name]
    for load in loads:
        for vc_alloc in ("booksim", "credits"):
            same_on_both_engines(r, traffic="uniform", load=load, seed=5, packet_size=size,
                                 vc_buf_size=4 * size, num_vcs=4, internal_speedup=s,
                                 vc_alloc=vc_alloc, credit_delay=2, **FAST)


@pytest.mark.parametrize("name", sorted(CHOOSING))
@pytest.mark.parametrize("s,size,load", [(2.0, 1, 0.4), (2.0, 1, 0.95), (1.5, 4, 0.5)])
def test_choosing_rows_equal_python_engine(name, s, size, load):
    r = CHOOSING[name]
    for vc_alloc in ("booksim", "credits"):
        same_on_both_engines(r, traffic="uniform", load=load, seed=5, packet_size=size,
                             vc_buf_size=4 * size, num_vcs=max(4, r.num_vcs), internal_speedup=s,
                             vc_alloc=vc_alloc, **FAST)


@pytest.mark.parametrize("s,size", [(2.0, 1), (1.5, 4), (3.0, 2)])
def test_packets_equal_python_engine(s, size):
    # every packet's injection and delivery cycle, with contention past saturation
    r = NETS["min"]
    kw = dict(packet_size=size, vc_buf_size=3 * size, num_vcs=4, internal_speedup=s, link_latency=2)
    a = random_trace(r, "python", 5000, 400, seed=2, **kw)
    b = random_trace(r, "compiled", 5000, 400, seed=2, **kw)
    assert len(a.pid) == 5000 and not a.deadlocked
    assert isinstance(b.engine, CompiledEngine) and not isinstance(a.engine, CompiledEngine)
    for f in ("pid", "src", "dst", "injected", "delivered"):
        x, y = np.asarray(getattr(a, f)), np.asarray(getattr(b, f))
        o, p = np.argsort(a.pid, kind="stable"), np.argsort(b.pid, kind="stable")
        assert np.array_equal(x[o], y[p]), f
