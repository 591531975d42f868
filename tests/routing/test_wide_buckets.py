"""The weighted table searches other than Dial's buckets give the same bytes: FR columns
by wide buckets (``_rows._wide_column``, the default where they fit), and BookSim ``min``
rows by wide buckets
(``_booksim_rows._wide_rows``), against the bucket searches, the per-source rows and a
table computed by definition from SciPy's distances."""

import numpy as np
import pytest

import topogen
from topogen import Topology, _sssp
from topogen.errors import ParameterError
from topogen.layout import default_layout
from topogen.routing import _rows
from topogen.routing.base import csr_view
from topogen.routing.paths import fr_weights

from .test_table_search import _random_graph, _reference, _walked_longest

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")

NETWORKS = {
    "torus-6x6x4": ("torus", dict(dims=[6, 6, 4])),
    "slimfly-q5": ("slimfly", dict(q=5)),
    "dragonfly-4-2-2": ("dragonfly", dict(a=4, p=2, h=2)),
    "skywalk-64": ("skywalk", dict(switches_per_cabinet=4, cabinets=16, intra_degree=3,
                                   inter_degree=2, seed=1)),
}


def _laid_out(name):
    gen, kw = NETWORKS[name]
    t = topogen.generate(gen, **kw)
    return t, fr_weights(default_layout(t))


def _weights_with(topology, values, seed):
    """Symmetric weights per CSR entry drawn from ``values`` (each used at least once)."""
    rng = np.random.default_rng(seed)
    values = np.asarray(values, dtype=np.int64)
    per_link = rng.choice(values, topology.num_links)
    per_link[:len(values)] = values  # every value present
    rng.shuffle(per_link)
    return per_link[np.asarray(topology.directed_edge_ids)]


def _all_searches(t, w, tseed, searches=("dial", "wide"), block=7):
    plan = _rows.plan(t, csr_view(t), w)
    assert plan is not None
    return {s: _rows.compute_columns(plan, t.num_switches, tseed, workers=2, block=block,
                                     search=s) for s in searches}


@pytest.mark.parametrize("name", sorted(NETWORKS))
@pytest.mark.parametrize("tseed", [None, 7])
def test_fr_columns_on_laid_out_networks(name, tseed):
    t, w = _laid_out(name)
    got = _all_searches(t, w, tseed)
    ref = _reference(t, w, tseed)
    longest = _walked_longest(t, ref)
    for search, (ranks, lg) in got.items():
        assert np.array_equal(ranks[0], ref), search
        assert lg == longest, search


@pytest.mark.parametrize("k", [2, 5, 16])
@pytest.mark.parametrize("tseed", [None, 3])
def test_fr_columns_with_k_distinct_weights(k, tseed):
    """Random graphs with weights of ``k`` values, several of equal sums (many ties), the
    lightest far from 1 (buckets many units wide) or 1 itself (one unit wide)."""
    rng = np.random.default_rng(k)
    for i, (n, m) in enumerate([(40, 90), (75, 160)]):
        t = _random_graph(n, m, 10 * k + i)
        lightest = 1 if i else 6
        values = np.sort(rng.choice(np.arange(lightest + 1, lightest + 4 * k), k - 1,
                                    replace=False))
        w = _weights_with(t, np.concatenate([[lightest], values]) * 500, k + i)
        plan = _rows.plan(t, csr_view(t), w)
        assert len(np.unique(w)) == k
        got = _all_searches(t, w, tseed)
        ref = _reference(t, w, tseed)
        longest = _walked_longest(t, ref)
        rows = _rows.compute(plan, n, tseed, workers=1)
        for search, (ranks, lg) in got.items():
            assert np.array_equal(ranks[0], ref), search
            assert np.array_equal(ranks, rows), search
            assert lg == longest, search


def test_fr_columns_with_one_weight_take_the_breadth_first_search():
    """One distinct weight is a hop count: the unit search runs for ``"auto"`` and
    ``"dial"``; the wide-bucket search refuses."""
    t = _random_graph(50, 110, 4)
    w = np.full(2 * t.num_links, 70000, dtype=np.int64)
    got = _all_searches(t, w, 5, searches=("auto", "dial"))
    ref = _reference(t, w, 5)
    for search, (ranks, lg) in got.items():
        assert np.array_equal(ranks[0], ref), search
    plan = _rows.plan(t, csr_view(t), w)
    with pytest.raises(ParameterError, match="wide"):
        _rows.compute_columns(plan, 50, 5, search="wide")
    with pytest.raises(ParameterError, match="search must be"):
        _rows.compute_columns(plan, 50, 5, search="fifo")


def test_many_distinct_weights_fall_back():
    """Many distinct weights keep the wide buckets; a window of wide buckets above its
    budget: Dial's buckets."""
    t = _random_graph(60, 140, 8)
    rng = np.random.default_rng(8)
    w = _weights_with(t, rng.choice(np.arange(3, 400), 21, replace=False), 1)
    plan = _rows.plan(t, csr_view(t), w)
    ref = _reference(t, w, 1)
    got = _all_searches(t, w, 1, searches=("auto", "dial", "wide"))
    for search, (ranks, lg) in got.items():
        assert np.array_equal(ranks[0], ref), search
    assert _rows.wide_buckets(plan, 60) is not None


def test_wide_window_above_budget_takes_dial(monkeypatch):
    t = _random_graph(45, 100, 9)
    w = _weights_with(t, [1, 2, 300], 2)  # lightest 1: 1-unit buckets, window of 512
    plan = _rows.plan(t, csr_view(t), w)
    wsh, buckets = _rows.wide_buckets(plan, 45)
    assert wsh == 0 and buckets == 512
    monkeypatch.setattr(_rows, "WIDE_MAX_ENTRIES", buckets * 45 - 1)
    assert _rows.wide_buckets(plan, 45) is None
    with pytest.raises(ParameterError, match="wide"):
        _rows.compute_columns(plan, 45, None, search="wide")
    ranks, lg = _rows.compute_columns(plan, 45, None)
    assert np.array_equal(ranks[0], _reference(t, w, None))


@pytest.mark.parametrize("values", [[1, 2], [3, 4, 5], [16, 17, 31, 32, 33]])
def test_wide_buckets_at_powers_of_two(values):
    """Bucket widths at and just below the lightest link, a relaxation landing exactly on
    the window's end: the buckets' edges, where an off-by-one would show."""
    t = _random_graph(64, 150, len(values))
    w = _weights_with(t, values, 3)
    plan = _rows.plan(t, csr_view(t), w)
    g = int(np.gcd.reduce(np.asarray(values)))
    wsh, buckets = _rows.wide_buckets(plan, 64)
    assert 1 << wsh <= min(values) // g < 2 << wsh
    got = _all_searches(t, w, 2)
    ref = _reference(t, w, 2)
    for search, (ranks, lg) in got.items():
        assert np.array_equal(ranks[0], ref), search


def test_unknown_search_is_refused():
    t = _random_graph(10, 14, 0)
    plan = _rows.plan(t, csr_view(t), _weights_with(t, [2, 3], 0))
    with pytest.raises(ParameterError, match="search must be one of"):
        _rows.compute_columns(plan, 10, None, search="heap")


def test_fastest_default_table_equals_block_algorithm(monkeypatch):
    """The wired path (``fastest``, method auto, compiled columns) against SciPy's block
    algorithm on a laid-out torus."""
    from topogen.routing import fastest, paths

    t = topogen.generate("torus", dims=[8, 6, 4])
    layout = default_layout(t)
    monkeypatch.setattr(paths, "PER_SOURCE_MIN_WORK", 0)
    a = fastest(layout, seed=None)
    b = fastest(layout, method="dijkstra")
    assert np.array_equal(np.asarray(a.ranks), np.asarray(b.ranks))
    assert a._longest_route == _walked_longest(t, np.asarray(b.ranks)[0])


# ------------------------------------------------------------------ BookSim min rows

def _booksim_tables(topology, layout=None, latency=None, searches=("dial", "wide")):
    """The table by each compiled search and by the block searches (``dijkstra``)."""
    import importlib

    bm = importlib.import_module("topogen.routing.booksim_min")
    w = bm.anynet_entry_latency(topology, layout, latency=latency)
    links = bm._Links(topology, w, cache=False)
    n = topology.num_switches
    got = {s: bm._compiled_table(links, n, workers=2, block=9, search=s) for s in searches}
    ref = bm.booksim_min(topology, layout, latency=latency, method="dijkstra").ranks
    return got, np.asarray(ref), w


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_booksim_rows_on_laid_out_networks(name):
    gen, kw = NETWORKS[name]
    t = topogen.generate(gen, **kw)
    got, ref, _ = _booksim_tables(t, default_layout(t))
    for search, ranks in got.items():
        assert np.array_equal(ranks, ref), search


@pytest.mark.parametrize("values", [[1], [3, 4], [4, 5, 9, 12, 30], list(range(8, 40, 2))])
def test_booksim_rows_with_k_latencies(values):
    """Latencies of 1, 2, 5 and 16 values, shortest 1 (buckets of one cycle), 3 or 4 (two
    cycles wide), 8 (eight), per link and, in a second draw, per direction (then the tight
    test reads the reverse latency)."""
    rng = np.random.default_rng(len(values))
    t = _random_graph(70, 160, len(values))
    per_link = rng.choice(np.asarray(values), t.num_links)
    per_link[:len(values)] = values
    got, ref, _ = _booksim_tables(t, latency=per_link)
    for search, ranks in got.items():
        assert np.array_equal(ranks, ref), search
    per_dir = rng.choice(np.asarray(values), (t.num_links, 2))
    got, ref, w = _booksim_tables(t, latency=per_dir)
    assert len(values) == 1 or not np.array_equal(w, w[csr_view(t).entry(csr_view(t).indices,
                                                                         csr_view(t).row)])
    for search, ranks in got.items():
        assert np.array_equal(ranks, ref), search


def test_booksim_wide_window_above_budget_takes_dial(monkeypatch):
    import importlib

    bm = importlib.import_module("topogen.routing.booksim_min")
    t = _random_graph(40, 90, 6)
    per_link = np.random.default_rng(6).choice([1, 2, 200], t.num_links)
    w = bm.anynet_entry_latency(t, None, latency=per_link)
    wsh, buckets = _rows.wide_window(int(w.min()), int(w.max()), 40)
    assert wsh == 0 and buckets == 256
    monkeypatch.setattr(_rows, "WIDE_MAX_ENTRIES", buckets * 40 - 1)
    assert _rows.wide_window(int(w.min()), int(w.max()), 40) is None
    links = bm._Links(t, w, cache=False)
    with pytest.raises(ParameterError, match="wide"):
        bm._compiled_table(links, 40, search="wide")
    with pytest.raises(ParameterError, match="search must be"):
        bm._compiled_table(links, 40, search="fifo")
    ref = bm.booksim_min(t, latency=per_link, method="dijkstra").ranks
    assert np.array_equal(bm._compiled_table(links, 40), np.asarray(ref))
