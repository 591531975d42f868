"""Resilience with a sample of sources: its accuracy where exact is feasible, its cost at scale.

Two parts (both by default; ``--part accuracy`` or ``--part scale`` for one):

* **accuracy** (Slim Fly q = 5..13, random 1,024-4,096 of degree 16, Skywalk of 1,024
  switches, 8 per cabinet, degree 16): for several seeds, ``resilience(t, trials=T,
  seed=s)`` exact and with ``sample=K``; prints how often the sampled diameter of a
  failure state (K sources plus the double sweep) equals the exact one (and by how many
  hops it falls short at most), whether the intact diameter was found, how far the
  sampled resilience fractions (diameter, aspl) are from the exact ones, the largest
  aspl standard error and the largest |sampled - exact| aspl of a state in standard
  errors;
* **scale**: ``topogen analyze NET --resilience T --sample K`` as the library runs it
  (``analyze(topology, hops=False, routings=(), resilience_trials=T, sample=K)``) at
  10^4 and 10^5 switches (random degree 16 and Skywalk), printing wall / CPU time and
  peak RSS (each size in its own process, so the peak is its own).

    python benchmarks/bench_resilience.py --part accuracy          # ~5 min on 2 cores
    python benchmarks/bench_resilience.py --part scale             # ~10 min (10^4 and 10^5)
    python benchmarks/bench_resilience.py --part scale --sizes 10000 --families random
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys

import numpy as np
from _common import Clock, peak_rss_mb, timed_main

from topogen import registry
from topogen._rng import child_seeds, make_rng
from topogen.metrics.hops import distance_stats, sample_sources
from topogen.metrics.resilience import _swept_diameter, resilience
from topogen.topology import Topology

ACCURACY = [
    ("slimfly", dict(q=5)), ("slimfly", dict(q=7)), ("slimfly", dict(q=11)), ("slimfly", dict(q=13)),
    ("random", dict(num_switches=1024, degree=16, instances=1)),
    ("random", dict(num_switches=2048, degree=16, instances=1)),
    ("random", dict(num_switches=4096, degree=16, instances=1)),
    ("skywalk", dict(switches_per_cabinet=8, cabinets=128, intra_degree=6, inter_degree=10, instances=1)),
]


def states_agree(topology: Topology, trials: int, seed: int, sample: int) -> tuple[int, int, float, int]:
    """Over the connected failure states of the grid of ``trials`` trials: states whose
    sampled diameter (as resilience estimates it) equals the exact one, states compared,
    the largest |sampled aspl - exact aspl| in standard errors and the largest shortfall
    of the sampled diameter in hops."""
    n, m = topology.num_switches, topology.num_links
    grid = np.round(np.arange(21) * 0.05, 12)
    equal = total = 0
    worst = 0.0
    short = 0
    for s in child_seeds(seed, trials):
        order = make_rng(s).permutation(m)
        src_seed = child_seeds(s, 1)[0]
        src = sample_sources(n, sample, src_seed)
        for f in grid:
            sub = Topology(n, topology.edges[np.sort(order[int(math.floor(f * m + 1e-9)):])])
            if not sub.is_connected():
                break
            exact = distance_stats(sub)
            est = distance_stats(sub, sample=sample, seed=src_seed)
            diameter = max(est.diameter, _swept_diameter(sub, src))
            assert diameter <= exact.diameter
            equal += diameter == exact.diameter
            short = max(short, exact.diameter - diameter)
            total += 1
            if est.stderr > 0:
                worst = max(worst, abs(est.aspl - exact.aspl) / est.stderr)
    return equal, total, worst, short


def accuracy(args) -> None:
    print(f"accuracy: {args.trials} trials per seed, seeds 0..{args.seeds - 1}, sample K = {args.sample}")
    for family, p in ACCURACY:
        if args.networks and family not in args.networks:
            continue
        t = registry.generate(family, **p, seed=1) if family != "slimfly" else registry.generate(family, **p)
        k = min(args.sample, max(2, t.num_switches // 4))
        eq = tot = 0
        worst_z = 0.0
        diffs = {"diameter": [], "aspl": []}
        stderr = 0.0
        short = 0
        base_found = 0
        with Clock() as c:
            for seed in range(args.seeds):
                ex = resilience(t, trials=args.trials, seed=seed)
                sa = resilience(t, trials=args.trials, seed=seed, sample=k)
                assert ex.disconnection == sa.disconnection
                for prop in diffs:
                    diffs[prop].append(float(getattr(sa, prop)) - float(getattr(ex, prop)))
                stderr = max(stderr, sa.aspl_stderr)
                base_found += sa.base_diameter == ex.base_diameter
                e, n_, z, sh = states_agree(t, args.trials, seed, k)
                eq, tot, worst_z, short = eq + e, tot + n_, max(worst_z, z), max(short, sh)
        d, a = np.array(diffs["diameter"]), np.array(diffs["aspl"])
        print(f"{t.name}: N={t.num_switches} K={k}: sampled diameter = exact in {eq}/{tot} states "
              f"({100 * eq / max(tot, 1):.1f} %, at most {short} hop(s) short; intact diameter found "
              f"in {base_found}/{args.seeds} runs); resilience sampled - exact over {args.seeds} seeds: "
              f"diameter {_spread(d)}, aspl {_spread(a)}; aspl stderr <= {stderr:.4f}, "
              f"largest |aspl error| {worst_z:.2f} stderr  [{c.line()}]", flush=True)


def _spread(x: np.ndarray) -> str:
    return (f"equal in {int((x == 0).sum())}/{len(x)}, min {100 * x.min():+.0f} %, "
            f"max {100 * x.max():+.0f} %")


def scale_one(family: str, n: int, trials: int, sample: int, seed: int) -> None:
    from topogen.metrics import analyze

    p = {"random": dict(num_switches=n, degree=16, instances=1, seed=seed),
         "skywalk": dict(switches_per_cabinet=16, cabinets=n // 16, intra_degree=8, inter_degree=8,
                         instances=1, seed=seed)}[family]
    with Clock() as c:
        t = registry.generate(family, **p)
    print(f"{family}: {t.num_switches} switches, {t.num_links} links; generate {c.line()}", flush=True)
    with Clock() as c:
        row = analyze(t, hops=False, routings=(), resilience_trials=trials, sample=sample, seed=seed)
    keys = [k for k in row if k.startswith("resilience_")]
    print(f"  --resilience {trials} --sample {sample}: {c.line()}, peak RSS {peak_rss_mb():.0f} MB", flush=True)
    print("  " + ", ".join(f"{k}={row[k]:.4g}" if isinstance(row[k], float) else f"{k}={row[k]}"
                           for k in keys), flush=True)


def scale(args) -> None:
    for n in args.sizes:
        for family in args.families:
            # each in its own process: the peak RSS is that of the one network
            subprocess.run([sys.executable, __file__, "--one", family, str(n), "--trials", str(args.trials),
                            "--sample", str(args.sample), "--seed", str(args.seed)], check=True)


@timed_main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("accuracy", "scale", "both"), default="both")
    ap.add_argument("--trials", type=int, default=None, help="trials (accuracy: 10; scale: 10)")
    ap.add_argument("--seeds", type=int, default=4, help="accuracy: seeds per network (default 4)")
    ap.add_argument("--sample", type=int, default=None, help="sources (accuracy: 64; scale: 1000)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--families", nargs="+", default=["random", "skywalk"])
    ap.add_argument("--networks", nargs="+", help="accuracy: only these families (slimfly, random, skywalk)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--one", nargs=2, metavar=("FAMILY", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    trials = args.trials or 10
    if args.one:
        scale_one(args.one[0], int(args.one[1]), trials, args.sample or 1000, args.seed)
        return
    if args.part in ("accuracy", "both"):
        args.trials, args.sample = trials, args.sample or 64
        accuracy(args)
        args.sample = None
    if args.part in ("scale", "both"):
        args.trials, args.sample = trials, args.sample or 1000
        scale(args)


if __name__ == "__main__":
    main()
