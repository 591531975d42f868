"""NR tables by level-synchronous bit-parallel propagation (topogen.routing._bitrows):
byte-identical to one breadth-first search per source (topogen.routing._rows) for both
tie rules, on the kernel for degrees up to 8 and the general one, in memory and streamed."""

import hashlib
from pathlib import Path

import numpy as np
import pytest

import topogen
from topogen import RoutingError, Topology, _sssp
from topogen.routing import nearest
from topogen.routing.base import csr_view

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")

if _sssp.AVAILABLE:
    from topogen.routing import _bitrows, _rows


def _plan(t):
    view = csr_view(t)
    return view, _rows.plan(t, view, np.ones(len(view.indices), dtype=np.int64))


def _make(kind, kw):
    return _two_components(kw["n0"], 0) if kind is None else topogen.generate(kind, **kw)


def _rows_and_bits(t, tseed, workers=2, path=None):
    view, plan = _plan(t)
    ref = _rows.compute(plan, view.n, tseed, workers=workers)
    got = _bitrows.from_plan(plan, view.n, tseed, workers=workers, path=path)
    return ref, got


NETWORKS = {
    "torus 6x5x4": ("torus", dict(dims=(6, 5, 4))),        # degree 6, many ties
    "torus 9x9x9": ("torus", dict(dims=(9, 9, 9))),        # 729 switches: 2 blocks, one partial
    "ring 7": (None, dict(n0=7)),                           # odd, degree 2
    "slimfly q=5": ("slimfly", dict(q=5)),                  # degree 7
    "slimfly q=7": ("slimfly", dict(q=7)),                  # degree 11: the general kernel
    "dragonfly a=4 p=2 h=2": ("dragonfly", dict(a=4, p=2, h=2)),
    "random 90/5": ("random", dict(num_switches=90, degree=5, seed=3)),
    "random 601/12": ("random", dict(num_switches=601, degree=12, seed=4)),  # general, 2 blocks
}


@pytest.mark.parametrize("name", list(NETWORKS))
@pytest.mark.parametrize("tseed", [None, 0, 11, 2**40 + 7])
def test_same_table_as_one_search_per_source(name, tseed):
    t = _make(*NETWORKS[name])
    ref, got = _rows_and_bits(t, tseed)
    assert got.dtype == np.uint8 and got.shape == (1, t.num_switches, t.num_switches)
    assert np.array_equal(ref, got)


def test_kernels_cover_both_paths_and_partial_blocks():
    """The cases above reach both kernels, more than one block and a partial last word."""
    nets = [_make(k, kw) for k, kw in NETWORKS.values()]
    width = 64 * _bitrows.WORDS
    for small in (True, False):
        assert any((csr_view(t).max_degree <= 8) == small and t.num_switches > width
                   and t.num_switches % 64 for t in nets)


@pytest.mark.parametrize("ties,ties_seed", [("lowest", None), ("spread", None), ("spread", 5)])
def test_nearest_uses_it_and_equals_the_block_algorithm(ties, ties_seed, monkeypatch):
    """Through the public entry point: the table comes from this kernel and equals the
    NumPy bit-parallel search per destination block (an independent computation)."""
    calls = []
    real = _bitrows.compute
    monkeypatch.setattr(_bitrows, "compute", lambda *a, **k: calls.append(1) or real(*a, **k))
    t = topogen.generate("torus", dims=(7, 6, 3))
    a = nearest(t, ties=ties, ties_seed=ties_seed, method="bit-parallel")
    assert not calls
    b = nearest(t, ties=ties, ties_seed=ties_seed, method="per-source", workers=2)
    assert calls and np.array_equal(a.ranks, b.ranks)


def test_weighted_plans_go_to_one_search_per_source():
    from topogen.layout import default_layout
    from topogen.routing.paths import fr_weights

    lay = default_layout(topogen.generate("torus", dims=(5, 4)))
    view = csr_view(lay.topology)
    plan = _rows.plan(lay.topology, view, fr_weights(lay))
    assert np.array_equal(_bitrows.from_plan(plan, view.n, 2), _rows.compute(plan, view.n, 2))


def test_every_entry_is_a_shortest_first_hop():
    """Each entry names a link toward a neighbour one hop nearer the destination (from
    SciPy's distances), the diagonal is 255, and the spread rule uses the ties."""
    from scipy.sparse.csgraph import shortest_path

    t = topogen.generate("slimfly", q=7)
    view, plan = _plan(t)
    n = view.n
    hops = shortest_path(t.csr(), unweighted=True).astype(np.int64)
    spread = _bitrows.compute(view.indptr, view.indices, n, 3)[0]
    lowest = _bitrows.compute(view.indptr, view.indices, n, None)[0]
    for table in (spread, lowest):
        assert np.all(np.diag(table) == 255)
        off = ~np.eye(n, dtype=bool)
        s, d = np.nonzero(off)
        nxt = view.indices[view.indptr[s] + table[s, d]]
        assert np.all(hops[nxt, d] == hops[s, d] - 1)
        if table is lowest:  # no lower link is on a shortest path
            for r in range(int(table[off].max())):
                low = table[s, d] > r
                alt = view.indices[view.indptr[s[low]] + r]
                assert np.all(hops[alt, d[low]] >= hops[s[low], d[low]])
    assert (spread != lowest).mean() > 0.05


@pytest.mark.parametrize("kind,kw", [("torus", dict(dims=(9, 8, 8))),
                                     ("random", dict(num_switches=700, degree=10, seed=1))])
def test_streamed_file_equals_the_table_in_memory(kind, kw, tmp_path):
    t = topogen.generate(kind, **kw)
    view, plan = _plan(t)
    mem = _bitrows.from_plan(plan, view.n, 9, workers=2)
    seen = []
    f = _bitrows.from_plan(plan, view.n, 9, workers=2, path=tmp_path / "r.npy",
                           progress=lambda done, n: seen.append((done, n)))
    assert isinstance(f, np.memmap) and np.array_equal(np.asarray(f), mem)
    assert seen[-1] == (view.n, view.n) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert [p.name for p in tmp_path.iterdir()] == ["r.npy"]
    one = _bitrows.from_plan(plan, view.n, 9, workers=1)
    assert np.array_equal(one, mem) and np.array_equal(_rows.compute(plan, view.n, 9), mem)


def _two_components(n0, n1):
    def ring(a, n):
        return [(a + i, a + (i + 1) % n) for i in range(n)] if n else []

    return Topology(n0 + n1, ring(0, n0) + ring(n0, n1))


@pytest.mark.parametrize("n0,n1", [(5, 4), (600, 100)])
def test_a_disconnected_graph_fails_as_with_one_search_per_source(n0, n1):
    """The same RoutingError, naming the same switch (the lowest one that does not reach
    every other), also when the first block of destinations lies in switch 0's part."""
    t = _two_components(n0, n1)
    view, plan = _plan(t)
    with pytest.raises(RoutingError) as ref:
        _rows.compute(plan, view.n, 1)
    with pytest.raises(RoutingError) as got:
        _bitrows.from_plan(plan, view.n, 1)
    assert str(got.value) == str(ref.value) and str(got.value).startswith("switch 0:")


def test_the_cache_key_follows_the_inlined_tie_helpers():
    """numba keys the cache of :mod:`._bitrows`' kernels by their own file only; they
    inline the tie-rule helpers of ``_rows.py``: its digest must be updated with it."""
    src = Path(_rows.__file__).read_bytes()
    digest = hashlib.sha256(src).hexdigest()[:16]
    assert _bitrows.INLINED_ROWS_SHA256 == digest, (
        f"set INLINED_ROWS_SHA256 = {digest!r} in {_bitrows.__file__}")
