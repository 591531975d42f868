"""SST on MPI ranks against network size, beside the reference simulator.

For each Slim Fly of field order q (2q^2 routers, ``--hosts`` per router) it exports the
SST bundle once and runs one short load (``topogen.bernoulli_nic``, seed 1) on SST with
each rank count and merlin topology asked for, then the reference simulator (``topogen
simulate``) on the same network and load.  Printed per run: the routers, endpoints, the
bundle's size, SST's wall time, CPU time (the SST processes and their children, from
``/usr/bin/time``), the peak resident memory of the largest rank and of all ranks
(SST's ``--timing-info``), the cut links and the mean latency (cycles: the same on every
rank count).

    python benchmarks/bench_sst_scale.py                        # q = 5, 11, 17; 1 and 2 ranks
    python benchmarks/bench_sst_scale.py --q 5 11 --ranks 1 2 4 --topology anytopo table
    python benchmarks/bench_sst_scale.py --plot scale.png       # also a figure (matplotlib)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine_line

import topogen
from topogen import registry, routing as rt
from topogen.drivers import sst as sd
from topogen.export import sst as sx

TIMES = {"warmup": "200ns", "collect": "1us", "drain": "500ns"}


def bundle_for(q: int, hosts: int, folder: Path) -> tuple[Path, float]:
    t0 = time.process_time()
    topo = registry.get("slimfly").func(q=q, hosts_per_switch=hosts)
    layout = topogen.layout.default_layout(topo)
    path = sx.write_bundle(folder / f"sf{q}.json", topo, layout, rt.route(topo, layout, "booksim-min"))
    return path, time.process_time() - t0


def reference(q: int, hosts: int, load: float, folder: Path) -> dict:
    """The reference simulator as a process of its own (``topogen simulate``), its peak
    memory and CPU time from ``/usr/bin/time``."""
    net = folder / f"sf{q}.topo.json"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]), TOPOGEN_QUIET="1")
    subprocess.run([sys.executable, "-m", "topogen", "generate", "slimfly", "--q", str(q), "--hosts-per-switch",
                    str(hosts), "-o", str(net)], check=True, capture_output=True, env=env)
    timer = shutil.which("time") or "/usr/bin/time"
    out = folder / f"sf{q}.ref.csv"
    t0 = time.monotonic()
    r = subprocess.run([timer, "-f", "TIMEV %M %U %S", sys.executable, "-m", "topogen", "simulate", str(net),
                        "--load", str(load), "-o", str(out)], capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    line = [x for x in r.stderr.splitlines() if x.startswith("TIMEV ")]
    rss, cpu = (float("nan"),) * 2
    if line:
        kb, u, s = line[-1].split()[1:]
        rss, cpu = int(kb) / 1024.0, float(u) + float(s)
    return {"wall": wall, "cpu": cpu, "rss": rss, "ok": r.returncode == 0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--q", type=int, nargs="+", default=[5, 11, 17], help="Slim Fly field orders")
    ap.add_argument("--hosts", type=int, default=1, help="hosts per router (default 1)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--topology", nargs="+", default=["anytopo"], choices=("anytopo", "table"))
    ap.add_argument("--load", type=float, default=0.1)
    ap.add_argument("--no-reference", action="store_true", help="skip the reference simulator")
    ap.add_argument("--plot", default=None, metavar="FILE", help="also draw wall time and memory to FILE")
    ap.add_argument("--keep", default=None, metavar="DIR", help="keep bundles and logs in DIR")
    args = ap.parse_args(argv)
    print(machine_line())
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_sst_scale."))
    folder.mkdir(parents=True, exist_ok=True)
    head = (f"{'simulator':<18}{'routers':>8}{'hosts':>8}{'ranks':>6}{'bundle MB':>10}{'wall s':>9}{'cpu s':>8}"
            f"{'rank MB':>9}{'total MB':>10}{'cut':>6}{'latency':>10}")
    print(head)
    results = []
    for q in args.q:
        bundle, export_cpu = bundle_for(q, args.hosts, folder)
        n, e = 2 * q * q, 2 * q * q * args.hosts
        mb = bundle.stat().st_size / 1e6
        for topo in args.topology:
            for k in args.ranks:
                c0 = os.times()
                row = sd.run_sst(bundle, load=args.load, seed=1, ranks=k, sst_topology=topo, timeout=3600,
                                 raise_on_failure=False, out_dir=folder, **TIMES)[0]
                c1 = os.times()
                cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
                res = {"sim": f"sst {topo}", "n": n, "e": e, "ranks": k, "mb": mb, "wall": row["wall_time_s"],
                       "cpu": cpu, "rss": row["peak_rss_mb"], "total": row["total_rss_mb"],
                       "cut": row["cut_links"], "lat": row["latency_avg"], "status": row["status"]}
                results.append(res)
                print(f"{res['sim']:<18}{n:>8}{e:>8}{k:>6}{mb:>10.1f}{res['wall']:>9.1f}{cpu:>8.1f}"
                      f"{res['rss']:>9.0f}{res['total']:>10.0f}{res['cut'] if res['cut'] is not None else '-':>6}"
                      f"{res['lat']:>10.3f}" + ("" if row["status"] == "completed" else f"  {row['status']}"),
                      flush=True)
        if not args.no_reference:
            ref = reference(q, args.hosts, args.load, folder)
            results.append({"sim": "reference", "n": n, "e": e, "ranks": 1, "mb": float("nan"), "wall": ref["wall"],
                            "cpu": ref["cpu"], "rss": ref["rss"], "total": ref["rss"], "cut": 0,
                            "lat": float("nan"), "status": "completed" if ref["ok"] else "failed"})
            print(f"{'reference':<18}{n:>8}{e:>8}{1:>6}{'':>10}{ref['wall']:>9.1f}{ref['cpu']:>8.1f}"
                  f"{ref['rss']:>9.0f}{ref['rss']:>10.0f}{0:>6}{'':>10}", flush=True)
        print(f"  (export of the SST bundle: {export_cpu:.1f} s CPU)", flush=True)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        for key in sorted({(r["sim"], r["ranks"]) for r in results}):
            pts = [r for r in results if (r["sim"], r["ranks"]) == key]
            label = f"{key[0]}, {key[1]} rank{'s' if key[1] > 1 else ''}"
            a.plot([r["n"] for r in pts], [r["wall"] for r in pts], "o-", label=label)
            b.plot([r["n"] for r in pts], [r["rss"] for r in pts], "o-", label=label)
        for ax, what in ((a, "wall time (s)"), (b, "peak memory of the largest rank (MB)")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("routers (Slim Fly)")
            ax.set_ylabel(what)
            ax.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
