"""Per-source NR/FR tables (topogen.routing._rows): byte-identical to the block
algorithms for every tie rule, streamed files equal to in-memory tables."""

import numpy as np
import pytest

import topogen
from topogen import Floor, ParameterError, Topology, place
from topogen import _sssp
from topogen.layout import default_layout
from topogen.routing import fastest, load_routing, nearest, route
from topogen.routing import _rows
from topogen.routing.paths import tie_hash

pytestmark = pytest.mark.skipif(not _sssp.AVAILABLE, reason="numba not installed")


def random_layout(n, m, seed):
    rng = np.random.default_rng(seed)
    edges = {(int(rng.integers(0, i)), i) for i in range(1, n)}
    while len(edges) < m:
        u, v = sorted(int(x) for x in rng.integers(0, n, 2))
        if u != v:
            edges.add((u, v))
    return place(Topology(n, sorted(edges)), Floor.for_switches(n, 4), "random", seed=seed)


CASES = [("random", s) for s in range(4)] + [("skywalk", 3), ("torus", 0)]


def _layout(kind, seed):
    if kind == "random":
        rng = np.random.default_rng(seed)
        n = int(rng.integers(30, 120))
        return random_layout(n, int(n * rng.uniform(1.1, 3.0)), seed)
    if kind == "skywalk":
        t = topogen.generate("skywalk", switches_per_cabinet=8, cabinets=20, intra_degree=4,
                             inter_degree=3, seed=seed)
    else:  # many equal-latency ties
        t = topogen.generate("torus", dims=(6, 5, 4))
    return default_layout(t)


@pytest.mark.parametrize("kind,seed", CASES)
@pytest.mark.parametrize("ties,ties_seed", [("lowest", None), ("spread", None), ("spread", 11)])
def test_nr_per_source_equals_bit_parallel(kind, seed, ties, ties_seed):
    t = _layout(kind, seed).topology
    a = nearest(t, ties=ties, ties_seed=ties_seed, method="bit-parallel")
    b = nearest(t, ties=ties, ties_seed=ties_seed, method="per-source", workers=2)
    assert b.ranks.dtype == a.ranks.dtype and np.array_equal(a.ranks, b.ranks)
    assert a.params == b.params


@pytest.mark.parametrize("kind,seed", CASES)
@pytest.mark.parametrize("ties,ties_seed", [("lowest", None), ("spread", None), ("spread", 5)])
def test_fr_per_source_equals_dijkstra_and_bellman_ford(kind, seed, ties, ties_seed):
    lay = _layout(kind, seed)
    kw = dict(ties=ties, ties_seed=ties_seed)
    a = fastest(lay, method="dijkstra", **kw)
    b = fastest(lay, method="bellman-ford", **kw)
    c = fastest(lay, method="per-source", workers=2, **kw)
    assert np.array_equal(a.ranks, b.ranks) and np.array_equal(a.ranks, c.ranks)
    assert a.params == c.params


def test_routes_are_shortest_and_spread_uses_the_ties():
    lay = _layout("torus", 0)
    t = lay.topology
    r = fastest(lay, method="per-source")
    lowest = fastest(lay, method="per-source", ties="lowest")
    n = t.num_switches
    pairs = np.array([(s, d) for s in range(n) for d in range(n) if s != d])
    from scipy.sparse.csgraph import shortest_path

    hops = shortest_path(t.csr(), unweighted=True)  # a torus: all links weigh the same
    assert np.array_equal(r.route_lengths(pairs[:, 0], pairs[:, 1]), hops[pairs[:, 0], pairs[:, 1]])
    assert (r.ranks != lowest.ranks).mean() > 0.2  # the tie rule matters on a torus


def test_blocks_and_threads_do_not_change_the_table():
    lay = random_layout(90, 200, 7)
    from topogen.routing.base import csr_view
    from topogen.routing.paths import fr_weights

    view = csr_view(lay.topology)
    p = _rows.plan(lay.topology, view, fr_weights(lay))
    ref = _rows.compute(p, 90, 3, workers=1)
    for workers, block in ((2, 1), (2, 7), (3, 64), (1, 1000)):
        assert np.array_equal(_rows.compute(p, 90, 3, workers=workers, block=block), ref)


@pytest.mark.parametrize("algorithm", ["nr", "fr"])
@pytest.mark.parametrize("ties", ["spread", "lowest", "random"])
def test_streamed_file_equals_in_memory_table(tmp_path, algorithm, ties):
    lay = random_layout(70, 160, 2)
    t = lay.topology
    mem = route(t, lay, algorithm, ties=ties, seed=4)
    path = tmp_path / "ranks.npy"
    streamed = route(t, lay, algorithm, ties=ties, seed=4, ranks_file=path)
    assert isinstance(streamed.ranks, np.memmap) and not streamed.ranks.flags.writeable
    assert np.array_equal(np.load(path), mem.ranks) and streamed.ranks.dtype == mem.ranks.dtype
    assert streamed.params == mem.params
    # saving into the folder keeps the streamed file; the folder loads back equal
    stat = path.stat()
    streamed.save(tmp_path)
    assert path.stat().st_ino == stat.st_ino
    back = load_routing(tmp_path)
    assert np.array_equal(back.ranks, mem.ranks)
    assert [x for x in tmp_path.iterdir() if x.name.startswith(".")] == []


def test_cli_route_streams_the_table(tmp_path):
    from topogen.cli import main
    from topogen.formats import write_bundle

    lay = random_layout(60, 140, 9)
    write_bundle(tmp_path / "t.json", lay.topology, lay)
    for alg in ("nr", "fr"):
        out = tmp_path / alg
        assert main(["route", str(tmp_path / "t.json"), "-a", alg, "-o", str(out),
                     "--ties-seed", "3"]) == 0
        ref = route(lay.topology, lay, alg, ties_seed=3)
        assert np.array_equal(np.load(out / "ranks.npy"), ref.ranks)
        assert np.array_equal(load_routing(out).ranks, ref.ranks)


def test_tie_hash_of_the_kernel_matches_numpy():
    rng = np.random.default_rng(0)
    for seed in (0, 1, 2**40 + 3, 2**63 - 1):
        v = rng.integers(0, 2**31, 50)
        d = rng.integers(0, 2**31, 50)
        sd = _rows._splitmix(np.uint64(seed))
        hd = _rows._splitmix(d.astype(np.uint64) + (sd << np.uint64(1))) & np.uint64(0xFFFFFFFF)
        got = [int(_rows._mix32(_rows._splitmix(np.uint64(a) ^ sd) & np.uint64(0xFFFFFFFF), b))
               for a, b in zip(v, hd)]
        assert got == [int(x) for x in tie_hash(seed, v, d)]


def test_fallbacks_and_errors():
    # degree above 64: the block algorithms run (auto); per-source refuses
    star = Topology(70, [(0, i) for i in range(1, 70)] + [(i, i + 1) for i in range(1, 69)])
    a = nearest(star)
    b = nearest(star, method="bit-parallel")
    assert np.array_equal(a.ranks, b.ranks)
    with pytest.raises(ParameterError, match="degree of at most 64"):
        nearest(star, method="per-source")
    lay = random_layout(30, 60, 1)
    with pytest.raises(ParameterError, match="distance table"):
        fastest(lay, method="per-source", all_next_hops=True)
    with pytest.raises(ParameterError, match="method must be"):
        nearest(lay.topology, method="bfs")
    with pytest.raises(ParameterError, match="nr and fr"):
        route(lay.topology, lay, "updown", ranks_file="x.npy")


@pytest.mark.parametrize("ties", ["spread", "lowest"])
def test_streamed_nr_columns_in_several_blocks(tmp_path, ties):
    t = random_layout(150, 330, 5).topology
    ref = nearest(t, ties=ties, method="bit-parallel")
    got = nearest(t, ties=ties, block=64, method="bit-parallel", ranks_file=tmp_path / "r.npy")
    assert isinstance(got.ranks, np.memmap) and np.array_equal(got.ranks, ref.ranks)
    assert np.array_equal(np.load(tmp_path / "r.npy"), ref.ranks)
