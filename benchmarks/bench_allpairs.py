"""FR (minimum-latency) all-pairs latency statistics: topogen against scipy and igraph.

    python benchmarks/bench_allpairs.py                    # 4k and 16k side by side, 32k/64k topogen
    python benchmarks/bench_allpairs.py --sample ""         # 64k exact too (~16x the 16k time)
    python benchmarks/bench_allpairs.py --sizes 4096 --alt-sizes 4096   # a minute
    python benchmarks/bench_allpairs.py --modes 4096,16384  # 1 thread / 2 threads / 2 processes

Graphs: Skywalk (``topogen.generate("skywalk")``), 16 switches per cabinet, intra degree 8,
inter degree 8, on the Skywalk floor (delays on a half-nanosecond grid), seed 1.  Every
engine computes the exact same figures -- maximum and average FR latency and the hop
count of the fewest-hop minimum-latency paths over all ordered pairs -- from the same
packed integer weights (``latency << shift | hops``, exact in float64), so the results
must agree bit for bit (checked and printed).

* topogen: :func:`topogen.metrics.latency_stats` (Dial's bucket queue on the latency
  unit, numba, threads on the cores of this process);
* scipy: :func:`scipy.sparse.csgraph.dijkstra` on blocks of sources (one core);
* igraph: ``Graph.distances(weights=..., algorithm="dijkstra")`` on blocks of sources
  (one core; the column is skipped when ``python-igraph`` is not installed -- it is not
  a topogen dependency: ``pip install python-igraph`` for this benchmark only).

An alternative that would run longer than ``--budget`` seconds is stopped and its time
extrapolated from the sources done (said so in the output); its figures are then compared
with topogen's on those sources.  Graph construction is not timed.

Targets: 16,384 switches in <= 14 s wall on 2 cores, >= 4x scipy and
igraph; 32k and 64k switches with O(N + E) work memory per thread.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from _common import Clock, cores, load, machine_line, peak_rss_mb, total  # noqa: E402

import topogen  # noqa: E402
from topogen import Floor  # noqa: E402
from topogen.metrics import latency_stats  # noqa: E402
from topogen.metrics import latency as lat  # noqa: E402

Z, INTRA, INTER, SEED = 16, 8, 8, 1


def skywalk(n: int):
    c = n // Z
    t = topogen.generate("skywalk", switches_per_cabinet=Z, cabinets=c, intra_degree=INTRA,
                         inter_degree=INTER, seed=SEED)
    return topogen.place(t, Floor.skywalk(c, Z))


def figures(results, n, q, const, k):
    """(max ns, avg ns, max hops, avg hops) from block results (max_q, sums, hmax, hsum)."""
    pairs = k * (n - 1)
    max_q = max(r[0] for r in results)
    tot = float(np.concatenate([r[1] for r in results]).sum())
    return (max_q * q + const, tot * q / pairs + const, max(r[2] for r in results),
            sum(r[3] for r in results) / pairs)


def job_of(layout):
    enc = lat._prepare(layout, 60.0, 300.0, "fr", "best")[-1]
    t = layout.topology
    m = t.csr()
    return lat._Job(t.num_switches, m.indices.astype(np.int32), m.indptr.astype(np.int32), enc,
                    "scipy"), enc


def run_blocks(fn, n, block, budget):
    """Run ``fn(sources)`` over blocks until done or past ``budget`` s.  Returns
    (results, sources done, wall, cpu)."""
    results, done = [], 0
    with Clock() as c:
        t0 = time.perf_counter()
        for s in range(0, n, block):
            src = np.arange(s, min(n, s + block), dtype=np.int32)
            results.append(fn(src))
            done += len(src)
            if time.perf_counter() - t0 > budget and done < n:
                break
    return results, done, c.wall, c.cpu


def igraph_block_fn(layout, enc):
    import igraph as ig

    t = layout.topology
    w = np.empty(t.num_links)
    w[t.directed_edge_ids] = enc.weights
    g = ig.Graph(n=t.num_switches, edges=t.edges.tolist(), directed=False)
    weights = w.tolist()

    def fn(src):
        d = np.asarray(g.distances(source=src.tolist(), weights=weights, algorithm="dijkstra"))
        lq, hops = lat._decode(d, enc)
        return int(lq.max()), lq.sum(axis=1, dtype=np.float64), int(hops.max()), int(hops.sum())

    return fn


def fmt(f):
    return f"max {f[0]:.1f} ns, avg {f[1]:.4f} ns, hops {f[2]}/{f[3]:.4f}"


def measure(n: int, alternatives: bool, budget: float, modes: bool, rows: list,
            sample: int | None = None) -> None:
    with Clock() as cg:
        layout = skywalk(n)
    t = layout.topology
    e2 = 2 * t.num_links
    print(f"\n[{n:,} switches] Skywalk {Z}/cabinet x {n // Z} cabinets, degree {t.degree}, "
          f"{t.num_links:,} links (built in {cg.wall:.0f} s, not timed); load {load()}",
          flush=True)
    # load the compiled kernels (numba's cache) outside the measurement; two sources alone
    # would stay below COMPILED_MIN_WORK and run on SciPy, leaving the load in the timing
    latency_stats(layout, sources=np.arange(2), engine="compiled")
    with Clock() as c:
        s = latency_stats(layout, routing="fr", sample=sample, seed=SEED)
    ours = (s.max, s.avg, s.max_hops, s.avg_hops)
    threads = len(cores())
    per_thread = (12 * n + 8 * (e2 + 1) + 4 * 4096) / 1e6
    sampled = sample is not None and sample < n
    if sampled:  # time per source x N; figures of the sample
        c.wall, c.cpu = c.wall * n / sample, c.cpu * n / sample
        print(f"  topogen ({threads} threads)        {c.line()} (extrapolated from {sample:,} "
              f"random sources; avg {s.avg:.2f} +- {s.stderr:.2f} ns)", flush=True)
        rows.append((n, "topogen", c.wall, c.cpu, f"extrapolated from {sample:,} sources",
                     f"{threads} threads", load()))
    else:
        print(f"  topogen ({threads} threads)        {c.line()}   {fmt(ours)}", flush=True)
        print(f"    CPU per core {c.cpu / threads:.2f} s: the wall time where the {threads} cores "
              "are free (independent blocks; the kernel's CPU is the same on 1 and 2 threads)",
              flush=True)
        rows.append((n, "topogen", c.wall, c.cpu, "", f"{threads} threads", load()))
    print(f"    work memory per thread {per_thread:.1f} MB (O(N + E)); peak RSS of the process "
          f"{peak_rss_mb():.0f} MB", flush=True)
    if modes:
        job = lat._Job(n, t.csr().indices.astype(np.int32), t.csr().indptr.astype(np.int32),
                       lat._prepare(layout, 60.0, 300.0, "fr", "best")[-1], "auto")
        blocks = [np.arange(i, min(n, i + 256), dtype=np.int32) for i in range(0, n, 256)]
        for label, make in (("1 thread", None),
                            ("2 threads", lambda: ThreadPoolExecutor(2)),
                            ("2 processes (fork)", lambda: ProcessPoolExecutor(
                                2, mp_context=lat._mp_context()))):
            with Clock() as cm:
                if make is None:
                    list(map(job.compiled_block, blocks))
                else:
                    with make() as ex:
                        list(ex.map(job.compiled_block, blocks))
            print(f"    kernel on {label:<20} {cm.line()}", flush=True)
            rows.append((n, f"topogen kernel, {label}", cm.wall, cm.cpu, "", "", load()))
    if not alternatives:
        return
    job, enc = job_of(layout)
    q, const = enc.q, 360.0
    block = max(1, (1 << 22) // n)
    alts = [("scipy dijkstra", job.block)]
    try:
        alts.append(("igraph distances", igraph_block_fn(layout, enc)))
    except ImportError:
        print("  igraph: not installed (pip install python-igraph), column skipped")
    for name, fn in alts:
        res, done, wall, cpu = run_blocks(fn, n, block, budget)
        got = figures(res, n, q, const, done)
        if done == n and not sampled:
            ref, note = ours, ""
        else:
            sub = latency_stats(layout, routing="fr", sources=np.arange(done))
            ref = (sub.max, sub.avg, sub.max_hops, sub.avg_hops)
            note = f" (extrapolated from {done:,} of {n:,} sources)"
        scale = n / done
        agree = got[0] == ref[0] and got[2] == ref[2] and got[3] == ref[3] and \
            abs(got[1] - ref[1]) <= 1e-9 * ref[1]
        print(f"  {name:<28} wall {wall * scale:.2f} s, CPU {cpu * scale:.2f} s{note}  "
              f"{'agrees' if agree else 'DISAGREES: ' + fmt(got)}; topogen is "
              f"{wall * scale / c.wall:.1f}x faster (wall), {cpu * scale / c.cpu:.1f}x (CPU)",
              flush=True)
        rows.append((n, name, wall * scale, cpu * scale, "extrapolated" if done < n else "",
                     "1 core", load()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4096,16384,32768,65536",
                    help="switch counts to run (multiples of 16)")
    ap.add_argument("--alt-sizes", default="4096,16384",
                    help="sizes at which scipy and igraph run too")
    ap.add_argument("--sample", default="65536:4096",
                    help="size:k pairs: at that size topogen runs k random sources and its "
                         "time is extrapolated (default 65536:4096; '' for none)")
    ap.add_argument("--budget", type=float, default=900.0,
                    help="seconds an alternative may run before it is extrapolated")
    ap.add_argument("--modes", default="4096",
                    help="sizes at which the kernel is also timed on 1 thread, 2 threads and "
                         "2 processes (default 4096; '' for none)")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    alt = {int(x) for x in args.alt_sizes.split(",") if x}
    modes = {int(x) for x in args.modes.split(",") if x}
    sample = dict(tuple(int(y) for y in x.split(":")) for x in args.sample.split(",") if x)
    print(machine_line(), flush=True)
    rows: list = []
    with Clock() as everything:
        for n in sizes:
            measure(n, n in alt, args.budget, n in modes, rows, sample.get(n))
    print("\n| switches | engine | wall s | CPU s | note | cores | load avg |\n|---:|---|---:|---:|---|---|---|")
    for n, name, wall, cpu, note, how, ld in rows:
        print(f"| {n:,} | {name} | {wall:.1f} | {cpu:.1f} | {note} | {how} | {ld} |")
    total(everything)
    return 0


if __name__ == "__main__":
    sys.exit(main())
