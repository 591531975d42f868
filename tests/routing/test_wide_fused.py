"""The wide-bucket table kernels in their fused forms give the same bytes: the FR column
search comparing distances in 64 bits with a running link bit, the table written by
8 x 8 byte transposes in words, and BookSim ``min`` rows picking the predecessor by one
maximum of a (link latency, reversed rank) key; against Dial's searches (``search="dial"``)
and tables computed by definition from SciPy's distances."""

import numpy as np
import pytest

import topogen
from topogen import _sssp
from topogen.errors import ParameterError
from topogen.layout import default_layout
from topogen.routing import _rows
from topogen.routing.base import csr_view

from .test_table_search import _random_graph, _reference, _walked_longest
from .test_wide_buckets import _all_searches, _booksim_tables, _laid_out, _weights_with

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")


@pytest.mark.parametrize("b, n, d0, width", [
    (64, 64, 0, 64), (64, 200, 64, 128), (8, 16, 8, 16), (16, 24, 0, 24), (40, 96, 56, 96),
    # not multiples of 8: the byte-wise tiles
    (7, 13, 3, 13), (64, 70, 0, 70), (8, 16, 5, 16), (9, 24, 8, 24), (8, 16, 0, 20),
])
def test_written_columns_are_the_transposed_buffer(b, n, d0, width):
    """``_write_tiles`` puts row ``i`` of the buffer into column ``d0 + i`` of the table
    and touches nothing else, by words where the shapes allow and byte-wise otherwise."""
    rng = np.random.default_rng(b * 1000 + n + d0)
    buf = rng.integers(0, 256, (b, n)).astype(np.uint8)
    table = np.full((n, width), 77, dtype=np.uint8)
    _rows._write_tiles(buf, table, np.int64(d0))
    want = np.full((n, width), 77, dtype=np.uint8)
    want[:, d0:d0 + b] = buf.T
    assert np.array_equal(table, want)


def test_transpose8_is_a_transpose():
    rng = np.random.default_rng(5)
    m = rng.integers(0, 256, (8, 8)).astype(np.uint8)
    words = m.view(np.uint64).ravel()
    got = np.array(_rows._transpose8(*[np.uint64(w) for w in words]), dtype=np.uint64)
    assert np.array_equal(got.view(np.uint8).reshape(8, 8), m.T)


@pytest.mark.parametrize("name", ["torus-6x6x4", "skywalk-64"])
@pytest.mark.parametrize("block", [8, 64])
@pytest.mark.parametrize("tseed", [None, 11])
def test_fr_columns_by_word_blocks(name, block, tseed):
    """Blocks of a multiple of 8 destinations on networks of a multiple of 8 switches
    (the word-wise writes) give the reference table, the Dial columns and the longest
    route."""
    t, w = _laid_out(name)
    assert t.num_switches % 8 == 0
    plan = _rows.plan(t, csr_view(t), w)
    ref = _reference(t, w, tseed)
    longest = _walked_longest(t, ref)
    for search in ("wide", "dial"):
        ranks, lg = _rows.compute_columns(plan, t.num_switches, tseed, workers=2, block=block,
                                          search=search)
        assert np.array_equal(ranks[0], ref), search
        assert lg == longest, search


@pytest.mark.parametrize("tseed", [None, 4])
def test_fr_columns_with_heavy_weights(tseed):
    """Heavy weights of no common divisor (distances near a million, buckets 2**15 units
    wide) and many ties: the 64-bit tie test and the pushes stay exact."""
    t = _random_graph(72, 170, 8)
    w = _weights_with(t, [50_000, 50_001, 70_001, 99_999, 100_002], 9)
    got = _all_searches(t, w, tseed, searches=("dial", "wide"), block=8)
    assert _rows.wide_buckets(_rows.plan(t, csr_view(t), w), 72)[0] == 15
    ref = _reference(t, w, tseed)
    longest = _walked_longest(t, ref)
    for search, (ranks, lg) in got.items():
        assert np.array_equal(ranks[0], ref), search
        assert lg == longest, search


def test_fastest_at_a_multiple_of_64_switches(monkeypatch):
    """The wired path on a torus of 256 switches (whole blocks of 64 destinations)
    against the block algorithm."""
    from topogen.routing import fastest, paths

    t = topogen.generate("torus", dims=[8, 8, 4])
    layout = default_layout(t)
    monkeypatch.setattr(paths, "PER_SOURCE_MIN_WORK", 0)
    a = fastest(layout, seed=3)
    b = fastest(layout, seed=3, method="dijkstra")
    assert np.array_equal(np.asarray(a.ranks), np.asarray(b.ranks))
    assert a._longest_route == _walked_longest(t, np.asarray(b.ranks)[0])


# ------------------------------------------------------------------ BookSim min rows

@pytest.mark.parametrize("hub", [5, 40, 140])
@pytest.mark.parametrize("per_direction", [False, True])
def test_booksim_keys_at_high_degree(hub, per_direction):
    """A hub of ``hub`` links (link ranks of 3, 6 and 8 bits in the predecessor keys) on
    a ring with chords, latencies of few values (many tight in-links of equal latency,
    where the least router id must win): the wide rows equal Dial's rows and the block
    searches."""
    from topogen import Topology

    n = 150
    edges = {(i, i + 1) for i in range(n - 1)} | {(0, n - 1)}
    edges |= {(0, 2 + k) for k in range(hub - 2)}
    edges |= {(i, i + 7) for i in range(10, n - 7, 5)}
    t = Topology(n, sorted(edges))
    rng = np.random.default_rng(hub)
    lat = rng.choice([2, 3, 5], (t.num_links, 2) if per_direction else t.num_links)
    got, ref, _ = _booksim_tables(t, latency=lat)
    for search, ranks in got.items():
        assert np.array_equal(ranks, ref), search


@pytest.mark.parametrize("name", ["torus-6x6x4", "dragonfly-4-2-2"])
def test_booksim_rows_from_the_wired_path(name, monkeypatch):
    """``booksim_min`` with the compiled searches (the wide rows) against the block
    searches on laid-out networks."""
    import importlib

    from .test_wide_buckets import NETWORKS

    bm = importlib.import_module("topogen.routing.booksim_min")
    gen, kw = NETWORKS[name]
    t = topogen.generate(gen, **kw)
    layout = default_layout(t)
    monkeypatch.setattr(bm, "COMPILED_MIN_WORK", 0)
    a = bm.booksim_min(t, layout)
    b = bm.booksim_min(t, layout, method="dijkstra")
    assert np.array_equal(np.asarray(a.ranks), np.asarray(b.ranks))


def test_booksim_long_latencies_leave_the_wide_rows():
    """Keys of ``latency << rank bits`` that would pass 62 bits make the wide search step
    aside: ``search="wide"`` is refused (``"auto"`` takes Dial's rows)."""
    import importlib

    bm = importlib.import_module("topogen.routing.booksim_min")
    t = _random_graph(40, 90, 3)
    w = bm.anynet_entry_latency(t, None, latency=np.random.default_rng(3).choice([2, 3],
                                                                                t.num_links))
    links = bm._Links(t, w, cache=False)
    assert bm._compiled_table(links, 40, search="wide").shape == (1, 40, 40)
    links.w = w << np.int64(60)  # latencies of 62 bits
    with pytest.raises(ParameterError, match="wide"):
        bm._compiled_table(links, 40, search="wide")


def _ecc_bound(t, w):
    """Twice the weighted eccentricity of switch 0 plus the heaviest weight (in plan units)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    v = csr_view(t)
    plan = _rows.plan(t, v, w)
    inc = np.asarray(w) // plan.scale
    g = csr_matrix((inc.astype(float), v.indices, v.indptr), shape=(v.n, v.n))
    return 2 * int(dijkstra(g, indices=0).max()) + int(inc.max()), plan


@pytest.mark.parametrize("tseed", [None, 2])
def test_fr_columns_with_distances_at_the_edge_of_16_bits(tseed):
    """Weights scaled so that the distance bound lies just below and just above 2**16 - 1:
    the wide search then runs on 16-bit and on 32-bit distances, both exact."""
    t = _random_graph(60, 120, 12)
    base = _weights_with(t, [7, 8, 15, 23], 12)
    bound, _ = _ecc_bound(t, base)
    k = ((1 << 16) - 2) // bound + 1
    while _ecc_bound(t, base * k + 1)[0] >= (1 << 16) - 1:
        k -= 1  # the largest scale whose bound stays below 2**16 - 1
    seen = set()
    for scale in (k, k + 1):
        w = base * scale + 1  # no common divisor: the plan keeps the scale
        bound, plan = _ecc_bound(t, w)
        dtype = _rows.wide_dist_dtype(plan, 60)
        assert (dtype == np.uint16) == (bound < (1 << 16) - 1)
        seen.add(np.dtype(dtype).itemsize)
        ref = _reference(t, w, tseed)
        longest = _walked_longest(t, ref)
        ranks, lg = _rows.compute_columns(plan, 60, tseed, workers=1, block=8, search="wide")
        assert np.array_equal(ranks[0], ref)
        assert lg == longest
    assert seen == {2, 4}


def test_wide_dist_dtype_of_laid_out_networks():
    """A laid-out torus's FR distances fit 16 bits; heavy weights keep the plan's type."""
    t, w = _laid_out("torus-6x6x4")
    assert _rows.wide_dist_dtype(_rows.plan(t, csr_view(t), w), t.num_switches) == np.uint16
    t = _random_graph(72, 170, 8)
    w = _weights_with(t, [50_000, 50_001, 70_001, 99_999, 100_002], 9)
    plan = _rows.plan(t, csr_view(t), w)
    assert _rows.wide_dist_dtype(plan, 72) == plan.dtype


@pytest.mark.parametrize("dist_t", [np.uint16, np.uint32])
@pytest.mark.parametrize("depth_t", [np.uint16, np.int32])
def test_wide_block_kernel_with_each_array_type(dist_t, depth_t):
    """The block kernel with each distance and depth type it is given (16 bits where
    the bounds allow, else 32) writes the same columns and longest route."""
    from topogen.routing.ties import _splitmix

    t, w = _laid_out("slimfly-q5")
    n = t.num_switches
    plan = _rows.plan(t, csr_view(t), w)
    wsh, nb = _rows.wide_buckets(plan, n)
    sd = _splitmix(np.asarray(6, dtype=np.uint64))
    ids = np.arange(n, dtype=np.uint64)
    hd = (_splitmix(ids + (sd << np.uint64(1))) & np.uint64(0xFFFFFFFF)).astype(np.uint64)
    hv = _splitmix(ids ^ sd) & np.uint64(0xFFFFFFFF)
    info = plan.indptr.astype(np.uint64) | (np.append(hv, np.uint64(0)) << np.uint64(32))
    ty = plan.dtype.type
    table = np.zeros((n, n), np.uint8)
    bad, lg = _rows._wide_cols_block(info, plan.adj, ty(plan.vbits), ty(1), np.uint64(wsh),
                                     np.int64(nb), np.int64(0), np.int64(n), True, hd,
                                     table, np.uint8(255), _rows.SELECT8, True,
                                     np.empty(n, dist_t), np.empty(n, depth_t))
    ref = _reference(t, w, 6)
    assert bad == -1
    assert np.array_equal(table, ref)
    assert lg == _walked_longest(t, ref)
