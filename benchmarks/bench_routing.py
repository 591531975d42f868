"""Routing speed and memory at scale (prints its figures; not a test).

    python benchmarks/bench_routing.py            # 16,384-switch tables, 4,096-switch CDG
    python benchmarks/bench_routing.py --quick    # 2,048 / 1,024 switches

Targets (issue "Routing"): FR tables with one next hop per pair for 16,384 switches in
<= 60 s and <= 4 GB; up*/down* tables for 16,384 switches in <= 30 s; the CDG check of a
4,096-switch routing in <= 30 s.  Topologies: random regular graphs of degree 12 (the
topogen random generator when available, else networkx), laid out with the default
Skywalk-style floor (8 switches per cabinet).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout


def _rrg(n: int, degree: int, seed: int):
    try:
        from topogen.generators.random import random as rand_gen

        return rand_gen(n, degree, seed=seed)
    except Exception:  # generator not available: networkx
        import networkx as nx

        from topogen import Topology

        return Topology.from_networkx(nx.random_regular_graph(degree, n, seed=seed),
                                      name="random", params={"num_switches": n, "degree": degree})


def _rss_gb() -> float:
    """Peak resident memory of this process (GB; worker processes reported separately)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2


def _child_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 ** 2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    ap.add_argument("--workers", type=int, default=2, help="processes for FR (default 2)")
    ap.add_argument("--degree", type=int, default=12)
    args = ap.parse_args()
    from topogen.layout import default_layout
    from topogen.routing import check, fastest, nearest, updown

    big = 2048 if args.quick else 16384
    small = 1024 if args.quick else 4096
    t0 = time.perf_counter()
    topo = _rrg(big, args.degree, 1)
    layout = default_layout(topo)
    print(f"topology: {topo.num_switches} switches, degree {topo.degree}, "
          f"{topo.num_links} links (built in {time.perf_counter() - t0:.1f} s)")

    t0 = time.perf_counter()
    nr = nearest(topo)
    print(f"NR tables   {big:6d} switches: {time.perf_counter() - t0:6.1f} s  "
          f"table {nr.ranks.nbytes / 1e6:.0f} MB  peak RSS {_rss_gb():.2f} GB")
    del nr

    t0 = time.perf_counter()
    ud = updown(topo)
    print(f"up*/down*   {big:6d} switches: {time.perf_counter() - t0:6.1f} s  "
          f"(root {ud.params['root']}, 2 phases) table {ud.ranks.nbytes / 1e6:.0f} MB  "
          f"peak RSS {_rss_gb():.2f} GB")
    del ud

    t0 = time.perf_counter()
    fr = fastest(layout, 60.0, workers=args.workers)
    print(f"FR tables   {big:6d} switches: {time.perf_counter() - t0:6.1f} s  "
          f"({args.workers} workers) table {fr.ranks.nbytes / 1e6:.0f} MB  "
          f"peak RSS {_rss_gb():.2f} GB (largest worker {_child_rss_gb():.2f} GB)")
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, big, size=(10000, 2))
    fr.paths_for(pairs)
    print(f"FR paths_for 10,000 pairs: {time.perf_counter() - t0:6.2f} s")
    del fr

    topo2 = _rrg(small, args.degree, 2)
    r2 = nearest(topo2)
    t0 = time.perf_counter()
    rep = check(r2)
    print(f"CDG check   {small:6d} switches (NR, all {small * (small - 1)} routes): "
          f"{time.perf_counter() - t0:6.1f} s  channels {rep.num_channels} dependencies "
          f"{rep.num_dependencies} acyclic={rep.acyclic}  peak RSS {_rss_gb():.2f} GB")


if __name__ == "__main__":
    main()
