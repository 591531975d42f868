"""The routing set-up's compiled and table-wide passes (booksim-min rows, the longest route,
DOR rows): equal to independent per-pair computations, same errors, bounded memory."""

from __future__ import annotations

import importlib
import itertools
import tracemalloc

import numpy as np
import pytest

import topogen
from topogen import Topology
from topogen.errors import RoutingError
from topogen.layout import default_layout
from topogen.routing import booksim_min, dor, fastest, hop_indexed, nearest, valiant
from topogen.routing.base import TableRouting

from .conftest import rrg


def _torus(dims):
    return topogen.generate("torus", dims=list(dims))


# ---------------------------------------------------------------------------- booksim-min


@pytest.mark.parametrize("make", [
    lambda: (_torus((8, 8, 4)), True),
    lambda: (rrg(300, 5, 7), False),
])
def test_booksim_rows_equal_block_search(make):
    """The per-source compiled rows equal the vectorised block search (SciPy's Dijkstra
    and the in-link pass) on layout latencies and on random asymmetric latencies."""
    topo, with_layout = make()
    if with_layout:
        lay = default_layout(topo)
        kw = dict(layout=lay, clock_period_ns=1.0)
    else:
        rng = np.random.default_rng(3)
        kw = dict(latency=rng.integers(1, 6, size=(topo.num_links, 2)))
    fast = booksim_min(topo, **kw)
    ref = booksim_min(topo, method="dijkstra", **kw)
    assert fast.ranks.dtype == ref.ranks.dtype
    assert np.array_equal(fast.ranks, ref.ranks)
    if with_layout:  # the latencies differ between links, so ties are not everything
        assert len(np.unique(fast.entry_weight)) > 1


def test_booksim_rows_memory_is_the_table(monkeypatch):
    """No N x N distance matrix beside the table: the peak is the uint8 table plus
    O(N + E) work arrays per thread (the block search kept an int32 N x N cache)."""
    bm = importlib.import_module("topogen.routing.booksim_min")

    topo = _torus((16, 8, 8))
    n = topo.num_switches
    assert bm._compiled_pays(topo)
    with monkeypatch.context() as m:  # compile or load the kernel outside the measurement
        m.setattr(bm, "COMPILED_MIN_WORK", 0)
        booksim_min(_torus((3, 3)))
    tracemalloc.start()
    r = booksim_min(topo)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert r.ranks.nbytes == n * n
    assert peak < n * n + (4 << 20)


# ---------------------------------------------------------------------------- longest route


def _walked_longest(routing) -> int:
    n = routing.num_switches
    return max(len(routing.path(s, d)[1]) for s in range(n) for d in range(n) if s != d)


@pytest.mark.parametrize("make", [
    lambda: fastest(default_layout(_torus((6, 6, 4)))),
    lambda: nearest(rrg(120, 4, 1)),
    lambda: dor(_torus((5, 7))),
])
def test_longest_route_equals_walks(make):
    r = make()
    want = _walked_longest(r)
    assert r.max_route_length() == want
    assert hop_indexed(r).num_vcs == want
    assert valiant(r, seed=1).longest == want


def test_longest_route_memory_bounded():
    """One pass per block of 64 destinations: no per-pair route arrays."""
    r = fastest(default_layout(_torus((16, 8, 8))))
    n = r.num_switches
    fastest(default_layout(_torus((3, 3)))).max_route_length()
    tracemalloc.start()
    got = r.max_route_length()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert got >= 16  # at least the hop diameter 8 + 4 + 4
    assert peak < 64 * n * 4 + (1 << 20)


def _ring_table(n, bad):
    """Next hop = +1 around a ring, with ``bad(ranks)`` applied."""
    topo = Topology(n, [(i, (i + 1) % n) for i in range(n)])
    from topogen.routing.base import csr_view

    view = csr_view(topo)
    ranks = np.full((1, n, n), view.sentinel, dtype=np.uint8)
    for v, d in itertools.product(range(n), range(n)):
        if v != d:
            ranks[0, v, d] = int(view.entry(v, (v + 1) % n)) - int(view.indptr[v])
    bad(ranks)
    return TableRouting(topo, ranks, algorithm="nr")


def test_longest_route_errors_name_the_pair():
    assert _ring_table(6, lambda r: None).max_route_length() == 5

    def missing(r):
        r[0, 3, 1] = 255

    with pytest.raises(RoutingError, match="no entry at switch 3 toward 1"):
        _ring_table(6, missing).max_route_length()

    def loop(r):  # 2 -> 1 toward 4: 1 -> 2 -> 1 -> ...
        r[0, 2, 4] = 1 - r[0, 2, 4]

    with pytest.raises(RoutingError, match="loop"):
        _ring_table(6, loop).max_route_length()


# ---------------------------------------------------------------------------- DOR rows


def _dor_next(kind, dims, v, d):
    """The DOR rule pair by pair: the lowest differing dimension, one step."""
    cv = [(v // int(np.prod(dims[:k]))) % dims[k] for k in range(len(dims))]
    cd = [(d // int(np.prod(dims[:k]))) % dims[k] for k in range(len(dims))]
    k = next(i for i in range(len(dims)) if cv[i] != cd[i])
    side = dims[k]
    c = cv[k]
    if kind == "torus":
        step = 1 if ((cd[k] - c) % side) * 2 <= side else -1
        new = (c + step) % side
    elif kind == "hyperx":
        new = cd[k]
    else:
        new = c + (1 if cd[k] > c else -1)
    return v + (new - c) * int(np.prod(dims[:k]))


@pytest.mark.parametrize("kind,dims", [("torus", (4, 5, 3)), ("torus", (2, 6)), ("torus", (8,)),
                                       ("mesh", (3, 4, 2)), ("hypercube", (2, 2, 2, 2)),
                                       ("hyperx", (3, 4))])
def test_dor_rows_equal_rule(kind, dims):
    params = dict(dimension=len(dims)) if kind == "hypercube" else dict(dims=list(dims))
    topo = topogen.generate(kind, **params)
    r = dor(topo)
    n = topo.num_switches
    for d in range(n):
        nh = r.next_hop(d)
        want = [-1 if v == d else _dor_next(kind, dims, v, d) for v in range(n)]
        assert nh.tolist() == want
