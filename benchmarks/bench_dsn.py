"""Speed of the DSN family: generation, expansion, transformation, DSN-F routing tables.

Run:  python benchmarks/bench_dsn.py [--repeat N] [--quick]

Prints one line per case: best wall time over N repeats and the size built.
"""

from __future__ import annotations

import argparse
import time

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _common import timed_main  # noqa: E402  (cores, load, wall and CPU time)


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


@timed_main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    args = ap.parse_args(argv)

    from topogen.generators.dsn import dsn, dsnf, dsnf_size_range, expand, transform
    from topogen.routing.dsnf import dsnf_route_lengths, dsnf_routing

    sizes = (1024, 4096) if args.quick else (1024, 4096, 65536, 1 << 20)
    print(f"{'case':<44} {'best [s]':>10}  size")
    for n in sizes:
        s, t = best_of(lambda: dsnf(n), args.repeat)
        print(f"{f'dsnf({n})':<44} {s:>10.4f}  {t.num_switches} switches, {t.num_links} links")
        s, t = best_of(lambda: dsn(n), args.repeat)
        print(f"{f'dsn({n})':<44} {s:>10.4f}  {t.num_switches} switches, {t.num_links} links")
    base = dsnf(1024, fill="balanced")
    s, ex = best_of(lambda: expand(base, 1024), args.repeat)
    print(f"{'expand(dsnf(1024), 1024)':<44} {s:>10.4f}  +{len(ex.added)} cables")
    for p in (7, 10) if not args.quick else (7,):
        full = dsnf(dsnf_size_range(p)[1], p=p, fill="balanced")
        s, ex = best_of(lambda: transform(full), args.repeat)
        print(f"{f'transform(p={p}, n={full.num_switches})':<44} {s:>10.4f}  "
              f"{ex.steps['added']} step links added")
    for n in (1024, 2048) if args.quick else (1024, 2048, 4096):
        t = dsnf(n)
        s, lengths = best_of(lambda: dsnf_route_lengths(t), args.repeat)
        print(f"{f'dsnf_route_lengths(dsnf({n}))':<44} {s:>10.4f}  max {int(lengths.max())} hops")
        s, r = best_of(lambda: dsnf_routing(t), 1)
        print(f"{f'dsnf_routing(dsnf({n})) tables':<44} {s:>10.4f}  {r.ranks.nbytes / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
