"""Speed of the analysis suite: bisection, resilience and cost at the Slim Fly paper's sizes.

Targets: the bisection of the 8,192-router Slim Fly (q = 64) in
<= 60 s, and the resilience of the 722-router Slim Fly (q = 19) with 100 trials per
failure fraction in <= 60 s (union-find connectivity; diameter and average path length
by bit-parallel BFS).  Prints each timing beside its target, the figures measured and
the peak memory.

    python benchmarks/bench_analysis.py            # the targets above (about a minute)
    python benchmarks/bench_analysis.py --quick    # q = 19 / q = 11, seconds
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's topogen

from topogen.generators.slimfly import slimfly  # noqa: E402
from topogen.layout.slimfly import slimfly_layout  # noqa: E402
from topogen.metrics.bisection import bisection  # noqa: E402
from topogen.metrics.cost import network_cost  # noqa: E402
from topogen.metrics.resilience import resilience  # noqa: E402


def row(what: str, value: str, note: str = "") -> None:
    print(f"  {what:<62} {value:>12}  {note}", flush=True)


def timed(func, *args, **kwargs):
    t0 = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    q_bis, q_res, trials = (19, 11, 20) if args.quick else (64, 19, 100)

    print(f"bisection: Slim Fly q={q_bis}")
    topo = slimfly(q_bis)
    for runs in (1, 4):
        r, dt = timed(bisection, topo, runs=runs, seed=args.seed)
        target = "target <= 60 s" if runs == 4 and q_bis == 64 else ""
        row(f"{topo.num_switches} routers, {topo.num_links} links, {runs} run(s) per partitioner",
            f"{dt:.2f} s", target)
        row("  cut (METIS / KaHIP) vs certified lower bound",
            f"{r.width}", f"metis {r.cuts.get('metis')}, kahip {r.cuts.get('kahip')}, "
            f"bound {r.lower_bound}, exact={r.exact}, lambda2={r.lambda2:.4f}")

    print(f"resilience: Slim Fly q={q_res}, {trials} trials per fraction, 5 % steps")
    topo = slimfly(q_res)
    r, dt = timed(resilience, topo, trials=trials, properties=("connectivity",), seed=args.seed)
    row(f"{topo.num_switches} routers, {topo.num_links} links: connectivity only", f"{dt:.2f} s",
        f"disconnection at {100 * r.disconnection:.0f} % (mean {100 * r.mean_ci()[0]:.1f} %)")
    r, dt = timed(resilience, topo, trials=trials, seed=args.seed)
    row(f"{topo.num_switches} routers: connectivity + diameter + ASPL", f"{dt:.2f} s",
        ("target <= 60 s; " if q_res == 19 else "")
        + f"disconnection {100 * r.disconnection:.0f} %, diameter+2 {100 * r.diameter:.0f} %, "
        f"ASPL+1 {100 * r.aspl:.0f} %")

    print("cost: Slim Fly q=19 on its rack floor")
    layout = slimfly_layout(slimfly(19))
    c, dt = timed(network_cost, layout)
    row("722 routers, paired racks", f"{dt * 1000:.1f} ms",
        f"${c.cost_per_endpoint:.0f} and {c.power_per_endpoint:.2f} W per endpoint")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row("peak memory (max RSS)", f"{peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
