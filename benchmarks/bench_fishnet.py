"""Construction speed of the Fishnet families (MEMSYS '16) and the MEMSYS Dragonfly.

Targets: Angelfish on Hoffman-Singleton <= 2 s; the largest Flying Fish up to 10^5
routers (n = 14: 76,832 routers) <= 10 s.  Prints one line per case: routers, links,
ports and the best wall time of ``--repeat`` builds.

    python benchmarks/bench_fishnet.py [--repeat 3] [--large]

``--large`` adds the Angelfish of the MMS graph of q = 13 (114,582 routers, the paper's
"100,000 nodes at 38 ports") and the Dragonfly Limit at p = 127.
"""

from __future__ import annotations

import argparse
import time

from topogen.generators.fishnet import angelfish, angelfish_lite, flying_fish, flying_fish_lite
from topogen.generators.memsys import memsys_dragonfly

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _common import timed_main  # noqa: E402  (cores, load, wall and CPU time)


def best_time(build, repeat: int):
    best = float("inf")
    topo = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        topo = build()
        best = min(best, time.perf_counter() - t0)
    return topo, best


@timed_main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--large", action="store_true")
    args = ap.parse_args()

    cases = [
        ("angelfish hoffman-singleton", lambda: angelfish("hoffman-singleton"), 2.0),
        ("angelfish-lite hoffman-singleton", lambda: angelfish_lite("hoffman-singleton"), 2.0),
        ("flying-fish n=7 (Fig. 9)", lambda: flying_fish(7), None),
        ("flying-fish-lite n=7 (Fig. 8)", lambda: flying_fish_lite(7), None),
        ("flying-fish n=14 (largest <= 1e5)", lambda: flying_fish(14), 10.0),
        ("flying-fish-lite n=17 (largest <= 1e5)", lambda: flying_fish_lite(17), 10.0),
    ]
    if args.large:
        cases += [
            ("angelfish mms q=13", lambda: angelfish("mms", q=13), None),
            ("memsys-dragonfly p=127 s=128", lambda: memsys_dragonfly(127, 128), None),
        ]
    print(f"{'case':<42} {'routers':>9} {'links':>10} {'ports':>5} {'seconds':>8}  target")
    for label, build, target in cases:
        topo, sec = best_time(build, args.repeat)
        verdict = "" if target is None else (f"<= {target:g} s " + ("ok" if sec <= target else "MISSED"))
        print(f"{label:<42} {topo.num_switches:>9} {topo.num_links:>10} {topo.degree:>5} {sec:>8.3f}  {verdict}")


if __name__ == "__main__":
    main()
