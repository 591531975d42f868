"""Speed of topogen.metrics: exact hops and Skywalk latency at 16,384 switches.

Prints, for a 16,384-switch degree-16 random graph, the wall time of the exact diameter
and ASPL (bit-parallel BFS) against scipy.sparse.csgraph's unweighted shortest_path and
networkx (at a size networkx finishes), then the FR max/avg latency of a 16,384-switch
Skywalk with 16 switches per cabinet against a plain scipy Dijkstra, and the peak memory.

    python benchmarks/bench_metrics.py            # full run (a few minutes on 2 cores)
    python benchmarks/bench_metrics.py --quick    # 2,048 switches, seconds

Generators: ``topogen.generate("random", ...)`` and ``topogen.generate("skywalk", ...)``
when registered, otherwise numpy stand-ins with the same size and degree (say so).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's topogen
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import timed_main  # noqa: E402  (cores, load, wall and CPU time)

import numpy as np  # noqa: E402
from scipy.sparse import csr_matrix  # noqa: E402
from scipy.sparse.csgraph import dijkstra, shortest_path  # noqa: E402

import topogen  # noqa: E402
from topogen import Floor, Layout, Topology  # noqa: E402
from topogen.metrics import distance_stats, latency_stats  # noqa: E402

ROWS: list[tuple[str, str, str]] = []


def row(what: str, value: str, note: str = "") -> None:
    ROWS.append((what, value, note))
    print(f"  {what:<58} {value:>12}  {note}", flush=True)


def generator(name: str):
    try:
        return topogen.get_generator(name)
    except Exception:
        return None


# ----------------------------------------------------------------------------- inputs
def random_graph(n: int, degree: int, seed: int) -> tuple[Topology, str]:
    if generator("random") is not None:
        try:
            t = topogen.generate("random", num_switches=n, degree=degree, seed=seed)
            return t, "topogen.generate('random')"
        except topogen.TopogenError as exc:
            print(f"  (random generator refused: {exc}; using the stand-in)")
    # stand-in: configuration model, self-loops and parallel links dropped
    rng = np.random.default_rng(seed)
    stubs = rng.permutation(np.repeat(np.arange(n), degree))
    e = np.sort(stubs.reshape(-1, 2), axis=1)
    e = np.unique(e[e[:, 0] != e[:, 1]], axis=0)
    return Topology(n, e, name="random-standin"), "numpy configuration-model stand-in"


def skywalk_layout(z: int, c: int, intra: int, inter: int, seed: int) -> tuple[Layout, str]:
    if generator("skywalk") is not None:
        try:
            t = topogen.generate("skywalk", switches_per_cabinet=z, cabinets=c,
                                 intra_degree=intra, inter_degree=inter, seed=seed)
            return topogen.place(t, Floor.skywalk(c, z)), "topogen.generate('skywalk')"
        except topogen.TopogenError as exc:
            print(f"  (skywalk generator refused: {exc}; using the stand-in)")
    # stand-in: circulant intra-cabinet graph of degree `intra`, and inter//2 links per
    # switch to random switches of random cabinets in its row or column (straight links)
    rng = np.random.default_rng(seed)
    floor = Floor.skywalk(c, z)
    n = z * c
    v = np.arange(n)
    cab, loc = v // z, v % z
    edges = [np.stack([v, cab * z + (loc + off) % z], 1) for off in range(1, intra // 2 + 1)]
    r, col = cab // floor.columns, cab % floor.columns
    for _ in range(inter // 2):
        same_row = rng.random(n) < 0.5
        tr = np.where(same_row, r, rng.integers(0, floor.rows, n))
        tc = np.where(same_row, rng.integers(0, floor.columns, n), col)
        tcab = np.minimum(tr * floor.columns + tc, c - 1)
        edges.append(np.stack([v, tcab * z + rng.integers(0, z, n)], 1))
    e = np.sort(np.concatenate(edges), axis=1)
    e = np.unique(e[e[:, 0] != e[:, 1]], axis=0)
    t = Topology(n, e, name="skywalk-standin")
    return Layout(t, floor, cab, "native"), "numpy stand-in (circulant intra + straight inter)"


# ----------------------------------------------------------------------------- references
def scipy_hops(t: Topology, budget: float) -> tuple[float, bool, int, float]:
    """Diameter and ASPL by scipy's unweighted shortest_path in blocks of sources.
    Returns (seconds, extrapolated?, diameter, aspl) -- diameter/aspl of what was run."""
    g = t.csr().astype(np.float64)
    n = t.num_switches
    block = max(1, min(n, (1 << 23) // n))
    t0 = time.perf_counter()
    dmax, total, done = 0, 0.0, 0
    for s in range(0, n, block):
        d = shortest_path(g, method="D", unweighted=True, directed=True,
                          indices=np.arange(s, min(n, s + block)))
        dmax = max(dmax, int(d.max()))
        total += float(d.sum())
        done += d.shape[0]
        elapsed = time.perf_counter() - t0
        if done < n and elapsed / done * n > budget:
            return elapsed / done * n, True, dmax, total / (done * (n - 1))
    return time.perf_counter() - t0, False, dmax, total / (n * (n - 1))


def scipy_fr(layout: Layout, switch_delay: float, block_sources: int) -> tuple[float, float]:
    """Seconds per source of a plain float Dijkstra on latency weights, and its max."""
    t = layout.topology
    w = switch_delay + layout.link_delay
    e = t.edges
    n = t.num_switches
    g = csr_matrix((np.r_[w, w], (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(n, n))
    t0 = time.perf_counter()
    d = dijkstra(g, directed=True, indices=np.arange(block_sources))
    return (time.perf_counter() - t0) / block_sources, float(d.max()) + switch_delay + 300.0


def timed(fn, *a, **kw):
    t0 = time.perf_counter()
    out = fn(*a, **kw)
    return time.perf_counter() - t0, out


def maxrss_mb(who) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # kB on Linux


# ----------------------------------------------------------------------------- main
@timed_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2,048 switches instead of 16,384")
    ap.add_argument("--nr", action="store_true", help="also time Nearest Routing")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds a reference may run before it is extrapolated (60)")
    args = ap.parse_args(argv)

    n = 2048 if args.quick else 16384
    z, c = (8, 256) if args.quick else (16, 1024)
    intra, inter = (7, 4) if args.quick else (8, 8)
    nx_n = 512 if args.quick else 2048
    cpus = len(os.sched_getaffinity(0))
    print(f"topogen.metrics benchmark: numpy {np.__version__}, {cpus} CPU(s) available")

    # -- hops --------------------------------------------------------------------------
    t, how = random_graph(n, 16, args.seed)
    print(f"\n[hops] {n:,}-switch degree-16 random graph ({how}), {t.num_links:,} links")
    sec, hs = timed(distance_stats, t)
    row("ours: exact diameter + ASPL, bit-parallel BFS", f"{sec:.2f} s",
        f"diameter {hs.diameter}, aspl {hs.aspl:.6f}")
    sec1, _ = timed(distance_stats, t, workers=1)
    row("ours: same, one thread", f"{sec1:.2f} s")
    sec, extrap, dmax, aspl = scipy_hops(t, args.budget)
    note = "extrapolated from a block of sources" if extrap else f"diameter {dmax}, aspl {aspl:.6f}"
    if not extrap:
        note += ", agrees" if (dmax == hs.diameter and abs(aspl - hs.aspl) < 1e-9) else ", DISAGREES"
    row("scipy shortest_path(unweighted=True), all sources", f"{sec:.2f} s", note)

    try:
        import networkx as nx

        small, _ = random_graph(nx_n, 16, args.seed)
        g = small.to_networkx()
        t0 = time.perf_counter()
        lengths = dict(nx.all_pairs_shortest_path_length(g))
        nx_diam = max(max(d.values()) for d in lengths.values())
        nx_aspl = sum(sum(d.values()) for d in lengths.values()) / (nx_n * (nx_n - 1))
        nx_sec = time.perf_counter() - t0
        sec, ours = timed(distance_stats, small)
        agree = nx_diam == ours.diameter and abs(nx_aspl - ours.aspl) < 1e-9
        row(f"networkx all_pairs_shortest_path_length, {nx_n:,} switches", f"{nx_sec:.2f} s",
            "agrees" if agree else "DISAGREES")
        row(f"ours, {nx_n:,} switches", f"{sec:.3f} s", f"{nx_sec / sec:.0f}x faster")
    except ImportError:  # pragma: no cover
        row("networkx", "n/a", "not installed")

    # -- latency -----------------------------------------------------------------------
    layout, how = skywalk_layout(z, c, intra, inter, args.seed)
    lt = layout.topology
    print(f"\n[latency] Skywalk {z} switches/cabinet x {c} cabinets = {lt.num_switches:,} switches "
          f"({how}), degree {lt.degree}, {lt.num_links:,} links, "
          f"{layout.total_cable_length / 1000:.0f} km of cable")
    from topogen import _sssp

    engine = "compiled Dijkstra, threads" if _sssp.AVAILABLE else "scipy, processes"
    sec, fr = timed(latency_stats, layout, routing="fr")
    row(f"ours: FR max/avg latency, all pairs ({engine})", f"{sec:.1f} s",
        f"max {fr.max:.1f} ns, avg {fr.avg:.2f} ns, hops {fr.max_hops}/{fr.avg_hops:.3f}")
    if args.nr:
        sec, nr = timed(latency_stats, layout, routing="nr")
        row("ours: NR max/avg latency, all pairs", f"{sec:.1f} s",
            f"max {nr.max:.1f} ns, avg {nr.avg:.2f} ns, hops {nr.max_hops}/{nr.avg_hops:.3f}")
    per_source, ref_max = scipy_fr(layout, 60.0, min(256, lt.num_switches))
    row("scipy dijkstra (float latency, one process), all sources", f"{per_source * lt.num_switches:.1f} s",
        "extrapolated from 256 sources; no hop counts")
    sec, smp = timed(latency_stats, layout, routing="fr", sample=256, seed=args.seed)
    row("ours: FR sampled, 256 sources", f"{sec:.1f} s",
        f"avg {smp.avg:.2f} +- {smp.stderr:.2f} ns (exact {fr.avg:.2f})")

    # -- memory ------------------------------------------------------------------------
    print()
    row("peak memory, this process (ru_maxrss)", f"{maxrss_mb(resource.RUSAGE_SELF):.0f} MB")
    children = maxrss_mb(resource.RUSAGE_CHILDREN)
    if children > 0:  # the scipy engine's worker processes (the compiled one uses threads)
        row("peak memory, largest worker process", f"{children:.0f} MB")

    print("\n| measurement | value | note |\n|---|---:|---|")
    for what, value, note in ROWS:
        print(f"| {what} | {value} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
