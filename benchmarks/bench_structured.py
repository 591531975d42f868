"""Generation speed of the structured families (Slim Fly, PolarFly, GF, 10^5-switch tori,
hypercubes and HyperX).

Run:  python benchmarks/bench_structured.py [--repeat N]

Prints one line per case: best wall time over N repeats, and the size built.
Targets: Slim Fly q = 64 (8,192 routers, 393,216 links) <= 2 s.
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
    args = ap.parse_args(argv)

    from topogen.gf import GF, _field
    from topogen.generators.moore import hoffman_singleton, petersen
    from topogen.generators.polarfly import polarfly
    from topogen.generators.slimfly import slimfly
    from topogen.layout.slimfly import slimfly_layout

    def fresh_field(q):
        _field.cache_clear()
        return GF(q)

    print(f"{'case':<38} {'best [s]':>10}  size")
    for q in (64, 256, 4096, 3**7, 2**16):
        t, F = best_of(lambda: fresh_field(q), args.repeat)
        print(f"{f'GF({q}) tables':<38} {t:>10.4f}  modulus {F.modulus}, primitive {F.primitive}")
    for q in (19, 64, 128):
        t, topo = best_of(lambda: slimfly(q), args.repeat)
        flag = "  (target <= 2 s)" if q == 64 else ""
        print(f"{f'slimfly(q={q})':<38} {t:>10.4f}  {topo.num_switches} routers, {topo.num_links} links{flag}")
    topo = slimfly(64)
    t, lay = best_of(lambda: slimfly_layout(topo).total_cable_length, args.repeat)
    print(f"{'slimfly_layout(q=64) + cable lengths':<38} {t:>10.4f}  {lay:.0f} m of cable")
    for q in (64, 127, 256):
        t, topo = best_of(lambda: polarfly(q), args.repeat)
        print(f"{f'polarfly(q={q})':<38} {t:>10.4f}  {topo.num_switches} routers, {topo.num_links} links")
    t, _ = best_of(lambda: (petersen(), hoffman_singleton()), args.repeat)
    print(f"{'petersen + hoffman_singleton':<38} {t:>10.4f}  10 + 50 switches")
    from topogen.generators.classic import hypercube, hyperx, torus

    for label, fn in (("torus(10, 100, 100)", lambda: torus((10, 100, 100))),
                      ("hypercube(17)", lambda: hypercube(17)),
                      ("hyperx(32, 32, 32)", lambda: hyperx((32, 32, 32)))):
        t, topo = best_of(fn, args.repeat)
        print(f"{label:<38} {t:>10.4f}  {topo.num_switches} switches, {topo.num_links} links")


if __name__ == "__main__":
    main()
