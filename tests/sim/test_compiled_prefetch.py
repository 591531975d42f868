"""The compiled engine's large-network paths on small networks: prefetching (on from a
table size small networks never reach) and routes computed in chunks give the rows of
the pure-Python engine."""

import pytest

import topogen
from topogen._sssp import AVAILABLE
from topogen.generators.classic import torus
from topogen.routing import dor, nearest, valiant
from topogen.sim import SimConfig, run_fixed, simulate
from topogen.sim import _compiled
from topogen.sim import _core as C
from topogen.sim.network import Network

from .test_compiled import FAST, _same

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")


def _nets():
    rnd = topogen.generate("random", num_switches=16, degree=4, hosts_per_switch=2, seed=3)
    dfly = topogen.generate("dragonfly", a=4, p=2, h=2)
    return {"torus4x4": dor(torus((4, 4), hosts_per_switch=2)), "random16": nearest(rnd),
            "dragonfly-valiant": valiant(nearest(dfly), seed=5)}


NETS = _nets()


def _engine(routing, **kw):
    import numpy as np

    return _compiled.CompiledEngine(Network(routing, SimConfig(**kw)), np.random.default_rng(1))


def test_prefetch_only_for_large_tables(monkeypatch):
    r = NETS["random16"]
    assert _engine(r)._st["cf"][C.C_PF] == 0
    monkeypatch.setattr(_compiled, "_PF_BYTES", 0)
    assert _engine(r)._st["cf"][C.C_PF] == _compiled._PF_DIST > 0


@pytest.mark.parametrize("net", sorted(NETS))
@pytest.mark.parametrize("size,load", [(1, 0.3), (1, 0.9), (33, 0.5)])
def test_prefetch_and_chunks_equal_python_engine(monkeypatch, net, size, load):
    monkeypatch.setattr(_compiled, "_PF_BYTES", 0)
    monkeypatch.setattr(_compiled, "_CHUNK", 7)  # traffic blocks routed in many chunks
    r = NETS[net]
    for allocator in ("separable", "fifo"):
        kw = dict(traffic="uniform", load=load, seed=11, packet_size=size, vc_buf_size=2 * size,
                  num_vcs=max(4, r.num_vcs), allocator=allocator, **FAST)
        _same(simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw))


def test_run_fixed_equal_with_prefetch(monkeypatch):
    monkeypatch.setattr(_compiled, "_PF_BYTES", 0)
    r = NETS["random16"]
    kw = dict(traffic="uniform", load=0.4, seed=4, packet_size=1, vc_buf_size=4, num_vcs=4)
    py = run_fixed(r, 600, engine="python", **kw)
    co = run_fixed(r, 600, engine="compiled", **kw)
    assert co["engine"] == "compiled" and py["engine"] == "python"
    for k in ("created", "delivered", "in_flight", "latency_avg", "deadlocked"):
        assert py[k] == co[k], k
