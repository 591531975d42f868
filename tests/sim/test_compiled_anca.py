"""ANCA (adaptive nearest-common-ancestor routing of a k-ary n-tree) on the compiled engine
(topogen.sim._core) against the pure-Python reference engine: the same up ports, the same
draws, the same rows and the same deliveries for the same seed, event for event."""

import numpy as np
import pytest

from topogen._sssp import AVAILABLE
from topogen.generators.fattree import kary_ntree
from topogen.routing import anca
from topogen.sim import SimConfig, run_trace, simulate
from topogen.sim._compiled import CompiledEngine, compiled_covers, engine_for
from topogen.sim.model import Engine, Network

from ._rows import random_trace, same_fixed_run_on_both_engines, same_on_both_engines

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")

FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)
ALLOCATORS = (("separable", "booksim"), ("separable", "credits"), ("fifo", "credits"))

NETS = {
    "4ary2-queue": anca(kary_ntree(4, 2)),
    "4ary2-booksim": anca(kary_ntree(4, 2), select="booksim"),
    "3ary3-queue": anca(kary_ntree(3, 3)),
    "3ary3-booksim": anca(kary_ntree(3, 3), select="booksim"),
}



def test_compiled_engine_covers_anca():
    """The network no longer switches ANCA to the Python engine."""
    r = NETS["4ary2-queue"]
    net = Network(r, SimConfig(engine="compiled"))
    assert net.config.engine == "compiled" and compiled_covers(net) is None
    assert isinstance(engine_for(net, np.random.default_rng(0)), CompiledEngine)
    row = simulate(r, load=0.1, seed=1, packet_size=1, engine="compiled", **FAST)
    assert '"engine":"compiled"' in row["params"]


@pytest.mark.parametrize("name", ["4ary2-queue", "3ary3-queue", "3ary3-booksim"])
@pytest.mark.parametrize("size,loads", [(1, (0.2, 1.0)), (4, (0.3, 1.0))])
def test_rows_equal_python_engine(name, size, loads):
    """Low load and saturation, the separable allocator with and without the VC
    allocation stage, and the fifo allocator."""
    r = NETS[name]
    for load in loads:
        for allocator, vc_alloc in ALLOCATORS:
            kw = dict(traffic="uniform", load=load, seed=7, packet_size=size,
                      vc_buf_size=2 * size + 2, num_vcs=2, allocator=allocator,
                      vc_alloc=vc_alloc, **FAST)
            same_on_both_engines(r, **kw)


def test_saturated_and_completed_both_covered():
    """The comparisons above include saturated and completed rows."""
    r = NETS["3ary3-queue"]
    kw = dict(traffic="uniform", seed=7, packet_size=1, vc_buf_size=4, num_vcs=2, **FAST)
    assert simulate(r, load=1.0, engine="compiled", **kw)["status"] == "saturated"
    assert simulate(r, load=0.2, engine="compiled", **kw)["status"] == "completed"


@pytest.mark.parametrize("allocator,vc_alloc", ALLOCATORS)
def test_run_fixed_equal(allocator, vc_alloc):
    r = NETS["3ary3-queue"]
    kw = dict(traffic="uniform", load=0.9, seed=9, packet_size=1, vc_buf_size=4, num_vcs=1,
              allocator=allocator, vc_alloc=vc_alloc)
    same_fixed_run_on_both_engines(r, 800, **kw)


def _trace(r, engine, k=6000, horizon=500, seed=0, **kw):
    return random_trace(r, engine, k, horizon, seed, **kw)


@pytest.mark.parametrize("name", ["3ary3-queue", "3ary3-booksim"])
@pytest.mark.parametrize("allocator,vc_alloc", ALLOCATORS[::2])
def test_trace_equal_across_draw_refills(name, allocator, vc_alloc, monkeypatch):
    """Every packet's delivery and link count are equal, over more than one refill of the
    uniform draws (4,096 at a time; BookSim's rule takes two per up port, a refill can
    fall between them; the queue rule draws on ties)."""
    r = NETS[name]
    draws = [0]
    draw = Engine._draw

    def counting(self):
        draws[0] += 1
        return draw(self)

    monkeypatch.setattr(Engine, "_draw", counting)
    kw = dict(packet_size=1, vc_buf_size=4, num_vcs=2, allocator=allocator, vc_alloc=vc_alloc)
    a, b = _trace(r, "python", **kw), _trace(r, "compiled", **kw)
    assert isinstance(b.engine, CompiledEngine) and isinstance(a.engine, Engine)
    for f in ("pid", "src", "dst", "created", "injected", "delivered", "links"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert b.cycles == a.cycles and b.engine.credits_restored() and b.engine.idle()
    assert draws[0] > 4096 + 1
    assert set(b.links.tolist()) == {0, 2, 4}  # same leaf, NCA one and two levels up


def test_same_switch_packets():
    """Packets between hosts of one leaf take no link (no choice, no draw)."""
    r = NETS["4ary2-booksim"]
    pk = np.array([[0, 0, 1], [0, 4, 5], [1, 0, 8]])
    a = run_trace(r, pk, engine="python", packet_size=1)
    b = run_trace(r, pk, engine="compiled", packet_size=1)
    np.testing.assert_array_equal(a.links, b.links)
    np.testing.assert_array_equal(a.delivered, b.delivered)
    assert sorted(b.links.tolist()) == [0, 0, 2]
