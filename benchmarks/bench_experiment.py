"""Overhead per point of `topogen experiment run`: everything but the simulation itself.

Run:  python benchmarks/bench_experiment.py [--points N] [--jobs J]

Runs an experiment of N tiny reference-simulator points (small tori, short runs) into a
fresh store, in this process (-j 1) and over a pool of J workers, and prints per point the
wall time, the simulator's own time (the rows' ``wall_time_s``) and the overhead: the rest
(point set-up, network/routing cache look-up, adapter, writing the record atomically with
fsync, progress and pool bookkeeping), in core-milliseconds.  The target is <= 50 ms.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

SPEC = """
[experiment]
name = "bench"

[axes]
topology = [{{ generator = "torus", params = {{ dims = [3, 3] }} }}, {{ generator = "torus", params = {{ dims = [4, 4] }} }}]
traffic = ["uniform", "tornado"]
load = {loads}
seed = [1, 2, 3, 4, 5]

[measure]
packet_size = 2
link_latency = 1
warmup_periods = 1
sample_period = 50
max_samples = 3
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=200, help="points (multiple of 20; default 200)")
    ap.add_argument("--jobs", type=int, default=2, help="pool workers of the second run (default 2)")
    args = ap.parse_args(argv)

    from topogen.experiments.runner import run_points
    from topogen.experiments.spec import load_experiment
    from topogen.experiments.store import Store

    n_loads = max(1, args.points // 20)
    loads = [round(0.01 + 0.3 * i / n_loads, 4) for i in range(n_loads)]
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "bench.toml"
        spec.write_text(SPEC.format(loads=loads))
        t0 = time.perf_counter()
        exp = load_experiment(spec)
        t_plan = time.perf_counter() - t0
        n = len(exp.points)
        print(f"experiment: {n} points, spec parsed and expanded in {t_plan * 1000:.0f} ms "
              f"({t_plan / n * 1000:.2f} ms/point)")
        for jobs in (1, args.jobs):
            store = Store.open(Path(tmp) / f"store-j{jobs}", exp.name, create=True)
            t0 = time.perf_counter()
            summary = run_points(exp.points, store, jobs=jobs, progress=False)
            wall = time.perf_counter() - t0
            sim = sum(store.record(p.id)["row"]["wall_time_s"] for p in exp.points)
            over = (wall * jobs - sim) / n
            print(f"-j {jobs}: {wall:.2f} s wall for {summary.ran} points ({wall / n * 1000:.1f} ms/point), "
                  f"simulator {sim / n * 1000:.1f} ms/point, overhead {over * 1000:.1f} core-ms/point"
                  + ("" if over <= 0.050 else "  (ABOVE the 50 ms target)"))
            t0 = time.perf_counter()
            store.pending(exp.points)
            print(f"    resume scan of {n} points: {(time.perf_counter() - t0) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
