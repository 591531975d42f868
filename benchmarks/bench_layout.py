"""Benchmark: constrained shortcutting at scale (Koibuchi et al., Sections IV-C, IV-D).

Builds Nbr(0.5)-13 on 8,192 switches (degree log2 N, as in Fig. 14/15), clusters it
into cabinets of 16 with the size-capped Walktrap (and the sequential baseline), maps
the 512 clusters onto the paper's floor (III-D) by simulated annealing (and the
serpentine baseline), and prints wall times, inter-cabinet link counts, average cable
lengths and the annealer's moves per second.  The paper's figures (Fig. 15: at 8,192
switches with SA, Nbr(0.5)-n ~11 m, HYPERCUBE ~7 m, RING-n > 14 m; SA ~10% better than
the baseline for Nbr(0.5)-n and RING-n) are printed beside.

Run:  python benchmarks/bench_layout.py [--switches 8192] [--iterations 10000000]
      [--restarts 1] [--seed 1] [--others]

``--others`` also lays out RING-13 and HYPERCUBE (sequential clusters) for comparison.
The clustering + annealed mapping of Nbr(0.5) must take at most 60 s.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from topogen.generators.classic import hypercube
from topogen.generators.random import ring
from topogen.generators.shortcut import nbr
from topogen.layout import Floor
from topogen.layout.clustering import (
    cluster_graph,
    inter_cabinet_links,
    sequential_clusters,
    walktrap_clusters,
)
from topogen.layout.mapping import anneal, map_clusters, serpentine

Z = 16

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _common import timed_main  # noqa: E402  (cores, load, wall and CPU time)


def cable_figures(layout):
    c = layout.cable_length
    inter = c[~layout.is_intra]
    return float(c.mean()), float(inter.mean()) if inter.size else 0.0


def lay_out(name, topo, floor, args, *, cluster=True):
    print(f"\n== {name}: {topo.num_switches} switches, {topo.num_links} links, degree {topo.degree}")
    t0 = time.perf_counter()
    seq = sequential_clusters(topo.num_switches, Z)
    base = map_clusters(topo, seq, floor, "serpentine")
    t_base = time.perf_counter() - t0
    print(f"  sequential clusters: inter-cabinet links {inter_cabinet_links(topo, seq)}")
    if cluster:
        t0 = time.perf_counter()
        walk = walktrap_clusters(topo, Z, seed=args.seed)
        t_walk = time.perf_counter() - t0
        print(f"  walktrap clusters:   inter-cabinet links {inter_cabinet_links(topo, walk)} "
              f"({walk.max() + 1} clusters, largest {np.bincount(walk).max()}), {t_walk:.2f} s")
    else:
        walk, t_walk = seq, 0.0
    W = cluster_graph(topo, walk)
    start = serpentine(floor, int(walk.max()) + 1)
    t0 = time.perf_counter()
    res = anneal(W, floor, initial=start, iterations=args.iterations, restarts=args.restarts,
                 seed=args.seed)
    t_sa = time.perf_counter() - t0
    from topogen.layout import Layout

    serp = map_clusters(topo, walk, floor, "serpentine")
    sa = Layout(topo, floor, res.assignment[walk], "anneal", args.seed)
    avg_b, inter_b = cable_figures(base)
    avg_s, inter_s = cable_figures(serp)
    avg_a, inter_a = cable_figures(sa)
    print("  average cable (all links / inter-cabinet links):")
    print(f"    sequential + serpentine (baseline): {avg_b:6.2f} m / {inter_b:6.2f} m")
    if cluster:
        seq_sa = map_clusters(topo, seq, floor, "anneal", iterations=args.iterations,
                              restarts=args.restarts, seed=args.seed)
        avg_q, inter_q = cable_figures(seq_sa)
        print(f"    sequential + annealing:             {avg_q:6.2f} m / {inter_q:6.2f} m")
    kind = "walktrap  " if cluster else "sequential"
    print(f"    {kind} + serpentine:            {avg_s:6.2f} m / {inter_s:6.2f} m")
    print(f"    {kind} + annealing:             {avg_a:6.2f} m / {inter_a:6.2f} m "
          f"({100 * (avg_a / avg_s - 1):+.1f}% vs serpentine, {100 * (avg_a / avg_b - 1):+.1f}% vs baseline)")
    print(f"  annealing: {res.moves:,} moves in {t_sa:.2f} s = {res.moves_per_second:,.0f} moves/s, "
          f"{res.accepted:,} accepted; cost {res.initial_cost:,.1f} -> {res.cost:,.1f} m")
    print(f"  wall time: clustering {t_walk:.2f} s + annealed mapping {t_sa:.2f} s = "
          f"{t_walk + t_sa:.2f} s (baseline {t_base:.2f} s)")
    return t_walk + t_sa, avg_a


@timed_main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--switches", type=int, default=8192)
    ap.add_argument("--iterations", type=int, default=10**7)
    ap.add_argument("--restarts", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--others", action="store_true", help="also RING-n and HYPERCUBE")
    args = ap.parse_args(argv)
    n = args.switches
    d = int(round(math.log2(n)))
    floor = Floor.for_switches(n, Z)
    print(f"floor: {floor.cabinets} cabinets of {Z} switches, {floor.rows} x {floor.columns} grid "
          f"(0.6 m x 2.1 m, 2 m intra, Manhattan + 4 m inter)")
    t0 = time.perf_counter()
    topo = nbr(n, d, 0.5, seed=args.seed)
    print(f"generated Nbr(0.5)-{d} in {time.perf_counter() - t0:.2f} s")
    total, avg = lay_out(f"Nbr(0.5)-{d}", topo, floor, args)
    print(f"\nNbr(0.5)-{d}: clustering + annealed mapping {total:.2f} s "
          f"({'within' if total <= 60 else 'OVER'} the 60 s budget); average cable {avg:.2f} m "
          "(paper, Fig. 15 at 8,192 switches: ~11 m)")
    # annealer throughput of both chains on this instance (10^6 moves each)
    walk = walktrap_clusters(topo, Z, seed=args.seed)
    W = cluster_graph(topo, walk)
    start = serpentine(floor, int(walk.max()) + 1)
    for chain in ("sequential", "batched"):
        r = anneal(W, floor, initial=start, iterations=10**6, seed=args.seed, chain=chain)
        print(f"annealer ({chain} chain): {r.moves_per_second:,.0f} moves/s over 10^6 moves")
    r = anneal(W, floor.distance_matrix(), initial=start, iterations=10**5, seed=args.seed)
    print(f"annealer (general distance matrix): {r.moves_per_second:,.0f} moves/s over 10^5 moves")
    if args.others:
        lay_out(f"RING-{d}", ring(n, d, seed=args.seed), floor, args)
        lay_out("HYPERCUBE", hypercube(d), floor, args, cluster=False)
        print("\npaper (Fig. 15, 8,192 switches, SA): RING-n > 14 m, Nbr(0.5)-n ~11 m, HYPERCUBE ~7 m")


if __name__ == "__main__":
    main()
