"""SST on MPI ranks against network size, beside the reference simulator.

For each network (a Slim Fly of field order q, 2q^2 routers, or a Skywalk of N switches,
Skywalk(8, N/8, 7, 4); ``--hosts`` per router) it exports the SST bundle once per route
form (``full``: every router's source routes in the JSON; ``next_hops``: a matrix of ports
beside it, which only ``--topology table`` runs) and runs one short load
(``topogen.bernoulli_nic``, seed 1) on SST with each rank count and merlin topology asked
for, then the reference simulator (``topogen simulate``) on the same network and load.
Printed per run: the routers, endpoints, the bundle's size on disk (JSON plus matrix), SST's
wall time, CPU time (the SST processes and their children), the peak resident memory of the
largest rank and of all ranks (SST's ``--timing-info``), the cut links and the mean latency
(cycles: the same on every rank count and route form).

    python benchmarks/bench_sst_scale.py                        # q = 5, 11, 17; 1 and 2 ranks
    python benchmarks/bench_sst_scale.py --q 5 11 --ranks 1 2 4 --topology anytopo table
    python benchmarks/bench_sst_scale.py --q --skywalk 1024 4096 16384 --topology table --routes next_hops
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


def network(kind: str, size: int, hosts: int):
    """``(name, topology)``: a Slim Fly of field order ``size`` or a Skywalk of ``size`` switches."""
    if kind == "slimfly":
        return f"sf{size}", registry.get("slimfly").func(q=size, hosts_per_switch=hosts)
    return f"sky{size}", registry.get("skywalk").func(8, size // 8, 7, 4, hosts_per_switch=hosts, seed=1)


def bundle_for(kind: str, size: int, hosts: int, folder: Path, forms) -> tuple[dict, dict, float]:
    """The bundles of every route form (a form the routing cannot take is left out), their
    sizes on disk (MB) and the CPU time of generating, routing and writing them."""
    t0 = time.process_time()
    name, topo = network(kind, size, hosts)
    layout = topogen.layout.default_layout(topo)
    routing = rt.route(topo, layout, "booksim-min")
    paths, mb = {}, {}
    for form in forms:
        path = sx.write_bundle(folder / f"{name}.{form}.json", topo, layout, routing, routes=form)
        side = sx.next_hop_path(path)
        paths[form] = path
        mb[form] = (path.stat().st_size + (side.stat().st_size if side.exists() else 0)) / 1e6
    return paths, mb, time.process_time() - t0


def reference(kind: str, size: int, hosts: int, load: float, folder: Path) -> dict:
    """The reference simulator as a process of its own (``topogen simulate``), its peak
    memory and CPU time from ``/usr/bin/time``."""
    name, topo = network(kind, size, hosts)
    net = folder / f"{name}.topo.json"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]), TOPOGEN_QUIET="1")
    from topogen import formats

    formats.write_bundle(net, topo)
    timer = shutil.which("time") or "/usr/bin/time"
    out = folder / f"{name}.ref.csv"
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
    ap.add_argument("--q", type=int, nargs="*", default=[5, 11, 17], help="Slim Fly field orders")
    ap.add_argument("--skywalk", type=int, nargs="*", default=[], metavar="N",
                    help="Skywalk(8, N/8, 7, 4) networks of N switches")
    ap.add_argument("--routes", nargs="+", default=["full"], choices=sx.ROUTE_FORMS,
                    help="bundle route forms (next_hops runs only on --topology table)")
    ap.add_argument("--reference-max", type=int, default=None, metavar="N",
                    help="run the reference simulator only up to N routers")
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
    head = (f"{'simulator':<24}{'routers':>8}{'hosts':>8}{'ranks':>6}{'bundle MB':>10}{'wall s':>9}{'cpu s':>8}"
            f"{'rank MB':>9}{'total MB':>10}{'cut':>6}{'latency':>10}")
    print(head)
    results = []
    nets = [("slimfly", q) for q in args.q] + [("skywalk", n) for n in args.skywalk]
    for kind, size in nets:
        bundles, sizes, export_cpu = bundle_for(kind, size, args.hosts, folder, args.routes)
        doc = sx.read_bundle(next(iter(bundles.values())), validate=False)
        n, e = doc["num_routers"], doc["num_endpoints"]
        for form, bundle in bundles.items():
            mb = sizes[form]
            for topo in args.topology:
                if form == "next_hops" and topo != "table":
                    continue  # anytopo runs source routes only
                for k in args.ranks:
                    c0 = os.times()
                    row = sd.run_sst(bundle, load=args.load, seed=1, ranks=k, sst_topology=topo, timeout=3600,
                                     raise_on_failure=False, out_dir=folder, **TIMES)[0]
                    c1 = os.times()
                    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
                    sim = f"sst {topo}" + (" nexthop" if form == "next_hops" else "")
                    res = {"sim": sim, "n": n, "e": e, "ranks": k, "mb": mb, "wall": row["wall_time_s"],
                           "cpu": cpu, "rss": row["peak_rss_mb"], "total": row["total_rss_mb"],
                           "cut": row["cut_links"], "lat": row["latency_avg"], "status": row["status"]}
                    results.append(res)
                    print(f"{res['sim']:<24}{n:>8}{e:>8}{k:>6}{mb:>10.1f}{res['wall']:>9.1f}{cpu:>8.1f}"
                          f"{res['rss']:>9.0f}{res['total']:>10.0f}"
                          f"{res['cut'] if res['cut'] is not None else '-':>6}{res['lat']:>10.3f}"
                          + ("" if row["status"] == "completed" else f"  {row['status']}"), flush=True)
        if not args.no_reference and (args.reference_max is None or n <= args.reference_max):
            ref = reference(kind, size, args.hosts, args.load, folder)
            results.append({"sim": "reference", "n": n, "e": e, "ranks": 1, "mb": float("nan"), "wall": ref["wall"],
                            "cpu": ref["cpu"], "rss": ref["rss"], "total": ref["rss"], "cut": 0,
                            "lat": float("nan"), "status": "completed" if ref["ok"] else "failed"})
            print(f"{'reference':<24}{n:>8}{e:>8}{1:>6}{'':>10}{ref['wall']:>9.1f}{ref['cpu']:>8.1f}"
                  f"{ref['rss']:>9.0f}{ref['rss']:>10.0f}{0:>6}{'':>10}", flush=True)
        print(f"  (generating, routing and exporting the SST bundles: {export_cpu:.1f} s CPU)", flush=True)
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
            ax.set_xlabel("routers")
            ax.set_ylabel(what)
            ax.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
