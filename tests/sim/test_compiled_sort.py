"""The compiled engine runs each cycle's switch allocations in switch order
(topogen.sim._core._sort_late): the rows stay the pure-Python engine's, the order of
a cycle's deliveries is not the Python engine's (so it is off when they are recorded)."""

import numpy as np
import pytest

from topogen._sssp import AVAILABLE
from topogen.generators.classic import torus
from topogen.routing import nearest
from topogen.sim import SimConfig, run_trace, simulate
from topogen.sim import _compiled
from topogen.sim import _core as C
from topogen.sim.measure import fixed_run
from topogen.sim.network import Network

from .test_compiled import FAST, _same
from .test_compiled_prefetch import NETS  # torus 4x4 (DOR), random 16, Dragonfly (Valiant)

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")


ZERO = dict(routing_delay=0, vc_alloc_delay=0, sw_alloc_delay=0, st_delay=0)


def _engine(routing, **kw):
    return _compiled.CompiledEngine(Network(routing, SimConfig(**kw)), np.random.default_rng(1))


def _deliveries(routing, cycles=400, **kw):
    """(engine, the deliveries of a fixed run in their order: creation, injection, tail,
    links)."""
    got = []
    run = fixed_run(routing, SimConfig(**kw), cycles, traffic="uniform", rate=0.5, seed=3,
                    on_deliver_arrays=lambda c, s, t, k, m: got.append(np.c_[c, s, t, k]))
    return run.engine, np.concatenate(got)


def test_on_only_where_exact():
    r = NETS["random16"]
    assert _engine(r)._sort
    assert not _engine(r, allocator="fifo")._sort  # no allocations to order
    # a head entering the next switch's VC allocation in the cycle it left (latency 1, no
    # pipeline delay, the VC allocation stage one cycle ahead): order decides
    assert not _engine(r, **ZERO)._sort
    assert _engine(r, vc_alloc="credits", **ZERO)._sort
    assert not _engine(r, link_latency=2, **ZERO)._sort  # host channels: latency 1


def test_switch_order_changes_the_order_not_the_deliveries(monkeypatch):
    """The reorder happens (a cycle's deliveries come in another order) and gives the same
    deliveries as the allocations in the order they were asked for."""
    r = NETS["random16"]
    a, da = _deliveries(r, packet_size=1, vc_buf_size=4)
    assert a._st["cf"][C.C_SORT] == 1 and a._st["sc"][C.LATE_SORTED] > 0
    monkeypatch.setattr(_compiled, "_SORT_LATE", False)
    b, db = _deliveries(r, packet_size=1, vc_buf_size=4)
    assert b._st["cf"][C.C_SORT] == 0 and b._st["sc"][C.LATE_SORTED] == 0
    # (in switch order the released output VCs need no event each: fewer events)
    assert int(a._st["sc"][C.EVENTS]) < int(b._st["sc"][C.EVENTS])
    assert len(da) == len(db) > 1000
    assert not np.array_equal(da, db)
    key = lambda d: d[np.lexsort(d.T[::-1])]  # noqa: E731
    np.testing.assert_array_equal(key(da), key(db))


@pytest.mark.parametrize("net", sorted(NETS))
@pytest.mark.parametrize("size,load", [(1, 0.3), (1, 0.9), (4, 0.6), (33, 0.5)])
@pytest.mark.parametrize("vc_alloc", ["booksim", "credits"])
def test_rows_equal_python_engine(net, size, load, vc_alloc):
    if net == "dragonfly-valiant" and size == 1 and load > 0.5:
        load = 0.3  # routed packet by packet in Python: slow with many small packets
    r = NETS[net]
    kw = dict(traffic="uniform", load=load, seed=11, packet_size=size, vc_buf_size=2 * size,
              num_vcs=max(4, r.num_vcs), vc_alloc=vc_alloc, **FAST)
    _same(simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw))


@pytest.mark.parametrize("features", [
    dict(credit_delay=3), dict(internal_speedup=2.0, speedup_model="pipeline"), dict(link_latency=4),
    # a head that follows a 1-flit packet out of its buffer asks for a VC in the same cycle
    dict(routing_delay=0, vc_alloc_delay=0, sw_alloc_delay=1, st_delay=0, injection_overhead=0,
         packet_size=1, load=0.8),
    dict(ZERO, vc_alloc="credits"),
    dict(injection="periodic", latency_at="head"),
])
def test_router_features_equal(features):
    r = NETS["random16"]
    kw = {**dict(traffic="uniform", load=0.4, seed=2, packet_size=2, vc_buf_size=4, **FAST), **features}
    assert _engine(r, **{k: v for k, v in kw.items() if k in SimConfig.__dataclass_fields__})._sort
    _same(simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw))


def test_deadlock_found_alike():
    r = nearest(torus((8,), hosts_per_switch=1), ties="lowest")  # minimal ring routes, 1 VC
    kw = dict(load=0.3, seed=3, packet_size=8, vc_buf_size=8, num_vcs=1, deadlock_cycles=500,
              self_packets=False)
    a, b = simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw)
    assert a["status"] == "deadlock"
    _same(a, b)


def test_recorded_deliveries_keep_the_python_order():
    r = NETS["torus4x4"]
    rng = np.random.default_rng(0)
    n = r.topology.num_hosts
    pk = np.c_[np.sort(rng.integers(0, 300, 2000)), rng.integers(0, n, 2000), rng.integers(0, n, 2000)]
    a = run_trace(r, pk, packet_size=2, vc_buf_size=4, engine="python")
    b = run_trace(r, pk, packet_size=2, vc_buf_size=4, engine="compiled")
    assert b.engine._sort and b.engine._st["cf"][C.C_SORT] == 0
    for f in ("pid", "delivered", "injected"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))


def test_the_cache_key_of_run_follows_its_inlined_helpers():
    """numba's cache of ``_core.run`` (and of the table kernels in ``routing._rows`` and
    ``routing._booksim_rows``) is keyed by its own file only: editing an inlined helper
    must come with a new digest in each (or stale compiled code runs)."""
    import hashlib
    from pathlib import Path

    import topogen

    root = Path(topogen.__file__).parent
    h = hashlib.sha256()
    for f in (root / "_sssp.py",):
        h.update(f.read_bytes())
    from topogen.routing import _booksim_rows, _rows

    for mod in (C, _rows, _booksim_rows):
        assert mod.INLINED_HELPERS_SHA256 == h.hexdigest()[:16], (
            f"set INLINED_HELPERS_SHA256 = {h.hexdigest()[:16]!r} in {mod.__file__}")


def test_the_cache_key_of_the_knot_search_follows_the_core_constants():
    """``_core_knots``'s cached functions freeze ``_core``'s constants (numba keys their
    cache by ``_core_knots.py`` only)."""
    import hashlib

    from topogen.sim import _core_knots

    items = sorted((k, v) for k, v in vars(C).items() if k.isupper() and isinstance(v, int)
                   and not isinstance(v, bool))
    digest = hashlib.sha256(repr(items).encode()).hexdigest()[:16]
    assert _core_knots.CORE_CONSTANTS_SHA256 == digest, (
        f"set CORE_CONSTANTS_SHA256 = {digest!r} in topogen/sim/_core_knots.py")
