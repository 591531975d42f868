"""Scale: generate, analyze with a sample, and lay out networks of 10^4 and 10^5 switches.

For each family and size it prints the wall and CPU time and the peak memory so far of

* generating the topology (the registry, as ``topogen generate``) and its default layout;
* ``analyze(layout, sample=K)``: hops, FR and NR latency from K seeded sources, with the
  standard errors of the estimates, beside what the exact all-pairs analysis would take
  (:func:`topogen.metrics.estimate_effort`, a few sources timed and scaled);
* ``cluster_layout`` (size-capped Walktrap into cabinets of 16, placed serpentine) and
  ``anneal_layout`` (10^5 moves of whole cabinets).

    python benchmarks/bench_scale.py                 # 10^4 and 10^5 switches (~10 min, 2 cores)
    python benchmarks/bench_scale.py --quick         # 10^4 only
    python benchmarks/bench_scale.py --sizes 100000 --families random --sample 1000
"""

from __future__ import annotations

import argparse
import gc

from _common import Clock, peak_rss_mb, timed_main

from topogen import registry
from topogen.layout import Floor, default_layout
from topogen.layout.pipeline import anneal_layout, cluster_layout
from topogen.metrics import analyze, estimate_effort
from topogen.metrics.effort import format_duration

FAMILIES = ("random", "skywalk", "torus")


def params(family: str, n: int, seed: int) -> dict:
    """Generator parameters of ``family`` near ``n`` switches (degree 16 where it is free)."""
    if family == "random":
        return dict(num_switches=n, degree=16, instances=1, seed=seed)
    if family == "skywalk":
        return dict(switches_per_cabinet=16, cabinets=n // 16, intra_degree=8, inter_degree=8,
                    instances=1, seed=seed)
    if family == "torus":  # 3-D, sides as equal as the size allows
        side = round(n ** (1 / 3))
        return dict(dims=(side, side, n // (side * side)))
    raise SystemExit(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")


def row(what: str, clock: Clock, note: str = "") -> None:
    print(f"  {what:<30} {clock.line():<28} peak RSS {peak_rss_mb():7.0f} MB  {note}", flush=True)


def one(family: str, n: int, args) -> None:
    p = params(family, n, args.seed)
    with Clock() as c:
        topology = registry.generate(family, **p)
    print(f"{family}: {topology.num_switches} switches, {topology.num_links} links, "
          f"degree {topology.degree}", flush=True)
    row("generate", c)
    with Clock() as c:
        layout = default_layout(topology, seed=args.seed)
    row("default layout", c, f"{layout.floor.cabinets} cabinets x {layout.floor.switches_per_cabinet}")
    with Clock() as c:
        exact = estimate_effort(layout)
    row("estimate the exact analysis", c,
        f"exact: {exact.searches} source searches, about {format_duration(exact.seconds)} "
        f"on {exact.workers} cores")
    with Clock() as c:
        r = analyze(layout, sample=args.sample, seed=args.seed)
    row(f"analyze --sample {args.sample}", c,
        f"diameter >= {r['diameter']}, aspl {r['aspl']:.4f} +- {r['aspl_stderr']:.4f}, "
        f"FR avg {r['fr_avg_ns']:.1f} +- {r['fr_avg_ns_stderr']:.1f} ns, "
        f"NR avg {r['nr_avg_ns']:.1f} +- {r['nr_avg_ns_stderr']:.1f} ns")
    if not args.no_layout:
        floor = Floor.for_switches(topology.num_switches, 16)
        with Clock() as c:
            clustered = cluster_layout(topology, floor, seed=args.seed)
        row("layout cluster (walktrap)", c, f"cable {clustered.total_cable_length / 1e3:.0f} km "
            f"(default layout {layout.total_cable_length / 1e3:.0f} km)")
        with Clock() as c:
            annealed = anneal_layout(clustered, iterations=args.iterations, seed=args.seed)
        row(f"layout anneal ({args.iterations:.0e} moves)", c,
            f"cable {annealed.total_cable_length / 1e3:.0f} km")
    del topology, layout
    gc.collect()


@timed_main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10^4 switches only")
    ap.add_argument("--sizes", default=None, help="comma-separated switch counts (default 10000,100000)")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--sample", type=int, default=1000, help="sampled sources of analyze")
    ap.add_argument("--iterations", type=int, default=10**5, help="annealing moves")
    ap.add_argument("--no-layout", action="store_true", help="skip cluster and anneal")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sizes = [int(s) for s in (args.sizes or ("10000" if args.quick else "10000,100000")).split(",")]
    for n in sizes:
        for family in args.families.split(","):
            one(family.strip(), n, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
