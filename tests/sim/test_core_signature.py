"""One compiled event core for every routing it runs.

numba compiles the event loop (``topogen.sim._core.run``, about 20 s of CPU on an empty
cache) once per combination of the types of the arrays it takes, so a table whose type
depends on the routing would make a second run with another routing compile the whole
core again.  The escape routing's minimal distances are hop counts (uint16) on NR tables
and picoseconds (int64) on FR tables: the engine hands both to the core as one type."""

import numpy as np
import pytest

import topogen
from topogen import Floor, place
from topogen._sssp import AVAILABLE
from topogen.routing import route
from topogen.sim import SimConfig
from topogen.sim._compiled import MDIST_COPY_BYTES, MDIST_DTYPE, CompiledEngine, _core_distances
from topogen.sim.model import Network

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")


def _core_type(routing, num_vcs=6, **kw):
    import numba

    cfg = SimConfig(num_vcs=num_vcs, packet_size=1, vc_buf_size=4, **kw)
    eng = CompiledEngine(Network(routing, cfg), np.random.default_rng(0))
    return numba.typeof(eng._tuple())


def _routings():
    torus = topogen.generate("torus", dims=(4, 4), hosts_per_switch=1)
    rnd = topogen.generate("random", num_switches=16, degree=4, seed=1)
    lay = place(rnd, Floor.for_switches(16, 4), "sequential")
    return {
        "dor": route(torus, None, "dor"),
        "escape on NR": route(torus, None, "escape", base="nr"),
        "escape on FR": route(rnd, lay, "escape", base="fr"),
        "escape-dor": route(torus, None, "escape-dor"),
        "hop": route(rnd, None, "hop"),
        "ugal-l": route(rnd, None, "ugal-l"),
        "valiant": route(rnd, None, "valiant"),
    }


def test_every_routing_hands_the_core_the_same_types():
    rs = _routings()
    assert rs["escape on NR"].minimal.distances.dtype != rs["escape on FR"].minimal.distances.dtype
    types = {name: _core_type(r) for name, r in rs.items()}
    first = types["dor"]
    assert {name for name, t in types.items() if t != first} == set()


def test_the_distances_keep_their_values():
    hops = np.array([[0, 1, 2], [1, 0, 65535]], np.uint16)
    ps = np.array([[0, 120_000], [4_294_967_295, 7]], np.int64)
    for d in (hops, ps):
        out = _core_distances(d)
        assert out.dtype == MDIST_DTYPE and np.array_equal(out.astype(np.int64), d.astype(np.int64))
    # what does not fit keeps its own type (and gets a core of its own) rather than wrap
    big = np.array([[0, 2**32]], np.int64)
    assert _core_distances(big).dtype == np.int64
    huge = np.zeros(MDIST_COPY_BYTES // 2 + 1, np.uint16).reshape(1, -1)
    assert _core_distances(huge) is huge
