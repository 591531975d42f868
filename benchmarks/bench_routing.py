"""Routing speed and memory at scale (prints its figures; not a test).

    python benchmarks/bench_routing.py            # 16,384-switch tables, 4,096-switch CDG
    python benchmarks/bench_routing.py --quick    # 2,048 / 1,024 switches

Targets: FR tables with one next hop per pair for 16,384 switches in
<= 60 s and <= 4 GB; up*/down* tables for 16,384 switches in <= 30 s;
FR and NR tables at 16,384 switches in <= 0.6 GB peak, streamed per block of source rows
into their ``ranks.npy`` (``ranks_file``, as ``topogen route`` does), and up*/down* tables
and the CDG check at 4,096 switches in <= 10 s.  Topologies: Random(N, 12) of Skywalk
III-A (the project's ``random`` generator), laid out on the default Skywalk-style floor
(8 switches per cabinet).

Every measurement runs in a fresh process, so its peak memory is its own: ``peak RSS``
is that process's maximum resident set; for FR with worker processes the peak memory is
the sampled peak of the summed proportional set size (PSS, /proc) of the main process and
its workers, which counts the shared table and distance cache once.  Topology and layout
construction are not timed.  Wall time and CPU time (user + system, all processes) are
both printed: on a shared, overloaded machine the wall time grows with the load while the
CPU time stays close to the unloaded figure; the target verdicts use the wall time.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Clock as _TotalClock, machine_line, total  # noqa: E402

DEGREE = 12


def _topology(n: int, seed: int):
    from topogen.generators.random import random_topology

    return random_topology(n, DEGREE, seed=seed)


def _gb(kb: int) -> float:
    return kb / 1024 ** 2


def _cpu() -> float:
    """CPU seconds (user + system) of this process and its finished children."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


class _Clock:
    """Wall and CPU time of a ``with`` block."""

    def __enter__(self):
        self.w0, self.c0 = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w0
        self.cpu = _cpu() - self.c0


def _pss_gb(pid: int) -> float:
    """Proportional set size of one process (GB; shared pages split among sharers)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024 ** 2
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


class _PssSampler(threading.Thread):
    """Peak of the summed PSS of this process and its children (Linux /proc), sampled."""

    def __init__(self, every: float = 0.25):
        super().__init__(daemon=True)
        self.every, self.peak, self._stop_flag = every, 0.0, threading.Event()

    def run(self):
        me = os.getpid()
        while not self._stop_flag.is_set():
            total = _pss_gb(me) + sum(_pss_gb(c) for c in _children(me))
            self.peak = max(self.peak, total)
            self._stop_flag.wait(self.every)

    def stop(self) -> float:
        self._stop_flag.set()
        self.join()
        return self.peak


def _job(kind: str, n: int, workers: int, conn) -> None:
    """Run one measurement in this (fresh) process and send back its figures."""
    import numpy as np

    from topogen.layout import default_layout
    from topogen.routing import check, fastest, nearest, updown

    topo = _topology(n, 1 if kind in ("nr", "updown", "fr", "fr-stream", "nr-stream") else 2)
    out = {"n": n, "links": topo.num_links}
    if kind in ("fr-stream", "nr-stream"):
        import tempfile

        layout = default_layout(topo)
        sampler = _PssSampler()
        sampler.start()
        with tempfile.TemporaryDirectory() as tmp, _Clock() as c:
            f = Path(tmp) / "ranks.npy"
            if kind == "fr-stream":
                r = fastest(layout, 60.0, workers=workers, ranks_file=f)
            else:
                r = nearest(topo, workers=workers, ranks_file=f)
            out["file_mb"] = f.stat().st_size / 1e6
            del r
        out["pss_gb"] = sampler.stop()
    elif kind == "fr":
        layout = default_layout(topo)
        sampler = _PssSampler()
        sampler.start()
        with _Clock() as c:
            r = fastest(layout, 60.0, workers=workers)
        out["pss_gb"] = sampler.stop()
        out["table_mb"] = r.ranks.nbytes / 1e6
        out["seconds"], out["cpu"] = c.wall, c.cpu
        rng = np.random.default_rng(0)
        t0 = time.perf_counter()
        r.paths_for(rng.integers(0, n, size=(10000, 2)))
        out["paths_for_10k"] = time.perf_counter() - t0
    elif kind == "nr":
        with _Clock() as c:
            r = nearest(topo)
        out["table_mb"] = r.ranks.nbytes / 1e6
    elif kind == "updown":
        with _Clock() as c:
            r = updown(topo)
        out["table_mb"] = r.ranks.nbytes / 1e6
        out["root"] = r.params["root"]
    elif kind in ("cdg-nr", "cdg-updown"):
        r = nearest(topo) if kind == "cdg-nr" else updown(topo)
        with _Clock() as c:
            rep = check(r)
        out.update(channels=rep.num_channels, dependencies=rep.num_dependencies,
                   acyclic=rep.acyclic)
    else:
        raise ValueError(kind)
    out["seconds"], out["cpu"] = c.wall, c.cpu
    out["rss_gb"] = _gb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    out["worker_rss_gb"] = _gb(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    conn.send(out)
    conn.close()


def _run(kind: str, n: int, workers: int = 1) -> dict:
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_job, args=(kind, n, workers, child))
    p.start()
    child.close()
    out = parent.recv()
    p.join()
    return out


def _verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    ap.add_argument("--workers", type=int, default=2, help="threads for NR/FR (default 2)")
    ap.add_argument("--only", choices=("nr", "updown", "fr", "stream", "cdg"),
                    help="one measurement")
    args = ap.parse_args()
    big = 2048 if args.quick else 16384
    small = 1024 if args.quick else 4096
    full = not args.quick
    print(machine_line(), flush=True)
    with _TotalClock() as everything:
        _measure(args, big, small, full)
    total(everything)


def _measure(args, big, small, full) -> None:
    if args.only in (None, "stream"):
        for kind, name in (("fr-stream", "FR"), ("nr-stream", "NR")):
            r = _run(kind, big, args.workers)
            tgt = (f"  [target 0.6 GB: {_verdict(max(r['pss_gb'], r['rss_gb']) <= 0.6)}]"
                   if full else "")
            print(f"{name} tables streamed to ranks.npy {big:6d} switches: {r['seconds']:6.1f} s "
                  f"(CPU {r['cpu']:.1f} s, {args.workers} threads)  file {r['file_mb']:.0f} MB  "
                  f"peak RSS {r['rss_gb']:.2f} GB, peak PSS {r['pss_gb']:.2f} GB{tgt}", flush=True)
        r = _run("updown", small)
        tgt = f"  [target 10 s: {_verdict(r['seconds'] <= 10)}]" if full else ""
        print(f"up*/down*      {small:6d} switches: {r['seconds']:6.1f} s (CPU {r['cpu']:.1f} s)  "
              f"peak RSS {r['rss_gb']:.2f} GB{tgt}", flush=True)

    if args.only in (None, "nr"):
        r = _run("nr", big)
        print(f"NR tables      {big:6d} switches: {r['seconds']:6.1f} s (CPU {r['cpu']:.1f} s)  table {r['table_mb']:.0f} MB"
              f"  peak RSS {r['rss_gb']:.2f} GB", flush=True)
    if args.only in (None, "updown"):
        r = _run("updown", big)
        tgt = f"  [target 30 s: {_verdict(r['seconds'] <= 30)}]" if full else ""
        print(f"up*/down*      {big:6d} switches: {r['seconds']:6.1f} s (CPU {r['cpu']:.1f} s)  (root {r['root']}, 2 phases)"
              f"  table {r['table_mb']:.0f} MB  peak RSS {r['rss_gb']:.2f} GB{tgt}", flush=True)
    if args.only in (None, "fr"):
        r = _run("fr", big, args.workers)
        total = r["pss_gb"] or (r["rss_gb"] + args.workers * r["worker_rss_gb"])
        tgt = (f"  [targets 60 s / 4 GB: {_verdict(r['seconds'] <= 60 and total <= 4)}]"
               if full else "")
        print(f"FR tables      {big:6d} switches: {r['seconds']:6.1f} s (CPU {r['cpu']:.1f} s in all "
              f"processes)  ({args.workers} threads)  table {r['table_mb']:.0f} MB  peak memory "
              f"{total:.2f} GB (all processes, PSS; peak RSS main {r['rss_gb']:.2f} GB, largest "
              f"worker {r['worker_rss_gb']:.2f} GB, shared pages in both){tgt}", flush=True)
        print(f"FR paths_for   10,000 pairs: {r['paths_for_10k']:6.2f} s", flush=True)
    if args.only in (None, "cdg"):
        for kind, name in (("cdg-nr", "NR"), ("cdg-updown", "up*/down*")):
            r = _run(kind, small)
            tgt = f"  [target 10 s: {_verdict(r['seconds'] <= 10)}]" if full else ""
            print(f"CDG check      {small:6d} switches ({name}, all {small * (small - 1)} routes): "
                  f"{r['seconds']:6.1f} s (CPU {r['cpu']:.1f} s)  channels {r['channels']} dependencies "
                  f"{r['dependencies']} acyclic={r['acyclic']}  peak RSS {r['rss_gb']:.2f} GB{tgt}",
                  flush=True)


if __name__ == "__main__":
    main()
