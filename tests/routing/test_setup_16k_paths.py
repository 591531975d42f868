"""Which engine builds a routing's tables: small networks take the NumPy/SciPy block
algorithms (no numba, no compiled kernels, no pandas: a fresh ``topogen route`` starts in
about a second), large ones the compiled per-source searches; the tables, longest routes
and CSV files are the same either way."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import topogen
from topogen.layout import default_layout
from topogen.routing import booksim_min, escape, fastest, hop_indexed, nearest
from topogen.routing import base as routing_base
from topogen.routing import paths as routing_paths
from topogen.routing.export import read_table, table_rows, write_table

from .conftest import rrg
from .test_booksim_min import _out_lat, _reference_first_hops, _table

ROOT = Path(__file__).resolve().parents[2]
bm = importlib.import_module("topogen.routing.booksim_min")
export = importlib.import_module("topogen.routing.export")


def _torus(dims):
    return topogen.generate("torus", dims=list(dims))


def _work(topo) -> int:
    n = topo.num_switches
    return n * (n + 2 * topo.num_links)


@pytest.mark.parametrize("seed", [1, 2])
def test_compiled_booksim_min_matches_the_restatement_and_the_block_search(seed, monkeypatch):
    """The compiled search (forced on a small graph) against a plain re-statement of
    BookSim's search, with symmetric, asymmetric and unit latencies."""
    rng = np.random.default_rng(seed)
    topo = rrg(40, 4, seed)
    sym = rng.integers(1, 4, topo.num_links)
    asym = rng.integers(1, 6, (topo.num_links, 2))
    assert _work(topo) < bm.COMPILED_MIN_WORK
    for lat in (sym, asym, None):
        full = np.stack([sym, sym], 1) if lat is sym else (np.ones((topo.num_links, 2), int)
                                                            if lat is None else lat)
        want = _reference_first_hops(topo.num_switches, _out_lat(topo, full))
        monkeypatch.setattr(bm, "COMPILED_MIN_WORK", 10**15)
        small = booksim_min(topo, latency=lat)
        monkeypatch.setattr(bm, "COMPILED_MIN_WORK", 0)
        big = booksim_min(topo, latency=lat)
        np.testing.assert_array_equal(_table(small), want)
        np.testing.assert_array_equal(big.ranks, small.ranks)


def test_booksim_min_auto_takes_the_block_search_below_the_threshold(monkeypatch):
    topo = _torus((6, 6))
    assert _work(topo) < bm.COMPILED_MIN_WORK
    used = []
    real = bm._compiled_table
    monkeypatch.setattr(bm, "_compiled_table", lambda *a, **k: used.append(1) or real(*a, **k))
    a = booksim_min(topo, default_layout(topo))
    assert used == []
    monkeypatch.setattr(bm, "COMPILED_MIN_WORK", _work(topo))  # exactly at it: compiled
    b = booksim_min(topo, default_layout(topo))
    assert used == [1]
    np.testing.assert_array_equal(a.ranks, b.ranks)


@pytest.mark.parametrize("ties", ["spread", "lowest"])
def test_nr_and_fr_tables_are_the_same_on_both_sides_of_the_threshold(ties, monkeypatch):
    topo = rrg(60, 5, 3)
    lay = default_layout(topo)
    assert _work(topo) < routing_paths.PER_SOURCE_MIN_WORK
    rows = importlib.import_module("topogen.routing._rows")
    used = []
    real = rows.per_source
    monkeypatch.setattr(rows, "per_source", lambda *a, **k: used.append(1) or real(*a, **k))
    nr_small = nearest(topo, ties=ties, ties_seed=5)
    fr_small = fastest(lay, ties=ties, ties_seed=5)
    assert used == []
    monkeypatch.setattr(routing_paths, "PER_SOURCE_MIN_WORK", 0)
    nr_big = nearest(topo, ties=ties, ties_seed=5)
    fr_big = fastest(lay, ties=ties, ties_seed=5)
    assert len(used) == 2
    np.testing.assert_array_equal(nr_small.ranks, nr_big.ranks)
    np.testing.assert_array_equal(fr_small.ranks, fr_big.ranks)
    # and an independent check of the FR table: each next hop lies on a minimum-latency path
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    view = fr_small.view
    w = routing_paths.fr_weights(lay)
    dist = dijkstra(csr_matrix((w.astype(float), view.indices, view.indptr)), directed=True)
    n = topo.num_switches
    for d in range(0, n, 7):
        for v in range(n):
            if v != d:
                r = int(fr_small.ranks[0, v, d])
                j = view.indptr[v] + r
                assert w[j] + dist[view.indices[j], d] == dist[v, d]


def test_longest_route_kernel_and_walk_agree(monkeypatch):
    routings = [fastest(default_layout(_torus((6, 4)))), nearest(rrg(50, 3, 4))]
    for r in routings:
        walked = max(len(r.path(s, d)[1]) for s in range(r.num_switches)
                     for d in range(r.num_switches) if s != d)
        monkeypatch.setattr(routing_base, "LONGEST_COMPILED_MIN_PAIRS", 10**12)
        assert r.max_route_length() == walked
        monkeypatch.setattr(routing_base, "LONGEST_COMPILED_MIN_PAIRS", 0)
        assert r.max_route_length() == walked
        assert hop_indexed(r).num_vcs == walked


@pytest.mark.parametrize("make", [
    lambda: nearest(rrg(30, 4, 1)),
    lambda: hop_indexed(fastest(default_layout(_torus((4, 3))))),
    lambda: escape(_torus((3, 4)), default_layout(_torus((3, 4))), num_vcs=3, base="nr"),
])
def test_csv_table_is_the_same_from_both_writers(make, tmp_path, monkeypatch):
    r = make()
    write_table(r, tmp_path / "plain.csv")
    monkeypatch.setattr(export, "PLAIN_CSV_ROWS", -1)
    write_table(r, tmp_path / "pandas.csv")
    a = (tmp_path / "plain.csv").read_bytes()
    assert a == (tmp_path / "pandas.csv").read_bytes()
    got, want = read_table(tmp_path / "plain.csv"), table_rows(r)
    for c in want:
        np.testing.assert_array_equal(got[c], np.asarray(want[c], dtype=got[c].dtype), err_msg=c)


#: modules that mean numba, a compiled kernel or pandas was loaded
_HEAVY = ("numba", "pandas", "topogen._sssp", "topogen.routing._rows",
          "topogen.routing._booksim_rows", "topogen.routing._cdg")

_PROBE = """
import json, sys
from topogen.cli import main
code = main(sys.argv[1:])
heavy = {heavy!r}
print(json.dumps({{"code": code, "loaded": [m for m in heavy if m in sys.modules]}}))
"""


@pytest.mark.parametrize("algorithm", ["nr", "fr", "booksim-min", "hop", "dor", "updown",
                                       "valiant", "ugal-l", "escape"])
def test_small_route_loads_no_compiled_kernel(algorithm, tmp_path):
    """``topogen route`` on a 16-switch network: neither numba nor any compiled kernel
    (nor pandas) is imported, so a fresh machine compiles nothing."""
    net = tmp_path / "t.json"
    env = {"PYTHONPATH": str(ROOT), "TOPOGEN_QUIET": "1", "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "topogen", "generate", "torus", "--dims", "4,4",
                    "-q", "-o", str(net)], check=True, env=env)
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=_HEAVY), "route", str(net), "-a", algorithm,
         "-o", str(tmp_path / "r"), "-q"],
        capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"code": 0, "loaded": []}
    assert (tmp_path / "r" / "routing.json").exists()
