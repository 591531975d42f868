"""Benchmark: ``topogen optimize`` against the Graph Golf records.

Prints, for each case, the evaluated moves per minute, the diameter and ASPL reached in the
time budget, the gap to the 2016 Graph Golf record and to the Moore / Cerf bound, and the
verdict of the acceptance:

* N=256, d=8: diameter 4 and ASPL <= 2.75 within 10 minutes (record 2.736);
* N=1024, d=8: diameter 5 and ASPL within 1 % of 3.505 within 10 minutes;
* (``--skywalk``) at Skywalk's floor (2,048 switches, 256 cabinets, degree 11), a topology
  with Skywalk(8,256,7,4)'s total cable or less and lower FR maximum and average latency.

Run:  python benchmarks/bench_optimize.py [--seconds 570] [--seed 1] [--cases 256:8,1024:8]
      [--skywalk] [--speed-only]

``--speed-only`` measures only the evaluation rate at N=1024, d=8 (30 s each for the
incremental and the symmetric search).  The machine
is shared: run the full benchmark once (about 10 minutes per case).

``--whole T`` checks that ``topogen optimize --num-switches 256 --degree 8 --time-limit T``
keeps to T as a whole command: once with an empty numba cache (cold: the compilation
counts) and once warm, each in a fresh process; printed: the elapsed time the command
reports (process start to summary), the wall and CPU time measured outside it, and their
ratios to the limit T (the peer figure).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from topogen.reproduce.graph_golf import golf_row, skywalk_rows

TARGETS = {(256, 8): (4, 2.75), (1024, 8): (5, 3.505 * 1.01)}


def whole_command(limit: float) -> None:
    """``optimize --time-limit`` cold and warm, against the limit."""
    root = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=root, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        env.pop("TOPOGEN_NUMBA_CACHE", None)
        argv = [sys.executable, "-m", "topogen", "-q", "optimize", "--num-switches", "256", "--degree", "8",
                "--seed", "1", "--time-limit", f"{limit:g}", "-o", os.path.join(tmp, "o.json"), "--format", "json"]
        for label in ("cold (empty numba cache)", "warm"):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            w0 = time.perf_counter()
            proc = subprocess.run(argv, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - w0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
            if proc.returncode:
                print(f"{label}: refused in {wall:.1f} s wall, {cpu:.1f} s CPU: {proc.stderr.strip()}", flush=True)
                continue
            s = json.loads(proc.stdout)
            print(f"{label}: limit {limit:g} s; reported elapsed {s['elapsed_seconds']:.2f} s "
                  f"({s['elapsed_seconds'] / limit:.2f}x the limit), search {s['seconds']} s, compile "
                  f"{s['compile_seconds']} s; process wall {wall:.2f} s ({wall / limit:.2f}x), CPU {cpu:.2f} s; "
                  f"{s['moves']:,} moves, ASPL {s['aspl']:.4f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=570.0,
                    help="search time per case (default 570: with setup and the exact final check "
                         "each case stays within 10 minutes of wall time)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", default="256:8,1024:8")
    ap.add_argument("--skywalk", action="store_true")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--whole", type=float, default=None, metavar="T",
                    help="only check that optimize --time-limit T keeps to T, cold and warm")
    args = ap.parse_args()
    if args.whole is not None:
        whole_command(args.whole)
        return

    if args.speed_only:
        from topogen.optimize import optimize

        optimize(num_switches=64, degree=4, seed=1, moves=10, symmetry=1)  # compile outside the clock
        optimize(num_switches=64, degree=4, seed=1, moves=10)
        for symmetry, what in ((1, "incremental (no symmetry)"), (None, "symmetric")):
            t = time.perf_counter()
            res = optimize(num_switches=1024, degree=8, seed=args.seed, time_limit=30.0, symmetry=symmetry)
            s = res.summary
            print(f"N=1024 d=8, {what}, symmetry {s['symmetry']}: {s['moves']:,} moves in {s['seconds']} s "
                  f"= {s['moves_per_minute']:,} evaluated moves/minute, ASPL {s['aspl']:.4f} "
                  f"(wall {time.perf_counter() - t:.1f} s with setup and final check)", flush=True)
        return
    for item in args.cases.split(","):
        n, d = (int(x) for x in item.split(":"))
        row = golf_row(n, d, seconds=args.seconds, seed=args.seed)
        rate = 60.0 * row["moves"] / row["seconds"]
        line = (f"N={n} d={d}: symmetry {row['symmetry']}, search {row['seconds']:.0f} s (wall "
                f"{row['wall_seconds']:.0f} s), {row['moves']:,} moves ({rate:,.0f}/min), "
                f"diameter {row['diameter']} (record {row['record_diameter']}, bound {row['diameter_bound']}), "
                f"ASPL {row['aspl']:.4f} (record {row['record_aspl']}, gap {row['gap_to_record_pct']:+.2f} %; "
                f"bound {row['aspl_bound']:.4f}, gap {row['gap_to_bound_pct']:+.2f} %)")
        target = TARGETS.get((n, d))
        if target is not None:
            ok = row["diameter"] <= target[0] and row["aspl"] <= target[1]
            line += f"  target diameter {target[0]}, ASPL <= {target[1]:.4f}: {'PASS' if ok else 'FAIL'}"
        print(line, flush=True)
    if args.skywalk:
        table = skywalk_rows(seconds=args.seconds, seed=args.seed)
        print(table.to_string(index=False))
        sky, opt = table.iloc[0], table.iloc[1]
        ok = (opt.cable_km <= sky.cable_km + 1e-9 and opt.fr_max_ns < sky.fr_max_ns
              and opt.fr_avg_ns < sky.fr_avg_ns)
        print(f"Skywalk floor: cable {opt.cable_km:.3f} km <= {sky.cable_km:.3f} km, FR max "
              f"{opt.fr_max_ns:.1f} vs {sky.fr_max_ns:.1f} ns, FR avg {opt.fr_avg_ns:.1f} vs "
              f"{sky.fr_avg_ns:.1f} ns: {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
