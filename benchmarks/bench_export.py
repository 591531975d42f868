"""Benchmark: the BookSim2 and SST exports at 256 to 16,384 switches.

For a random graph (``topogen generate random --num_switches N --degree 8 --seed 1``) and
a Skywalk of the same size (Skywalk(8, N/8, 7, 4), the paper's switches per cabinet and
degrees), each step runs in a fresh Python process so that its peak resident set is its
own: generating (with the default layout), the BookSim ``anynet`` export
(:func:`topogen.export.booksim.export_booksim`), and the SST bundle: routing
(``booksim-min``, the shared default of ``topogen run sst``) and
:func:`topogen.export.sst.write_bundle`.  Printed: wall and CPU seconds, peak RSS and the
bytes written.  The SST bundle holds one source route per pair of routers (N * (N - 1)),
so its size and time grow with N squared; ``--sst-max`` bounds the sizes that write one
(default 4,096: at 16,384 it would hold 268 M routes, ~11 GB).

Run:  python benchmarks/bench_export.py [--sizes 256,1024,4096,16384] [--families random,skywalk]
      [--sst-max 4096] [--seed 1] [--out DIR]

The files go to a temporary folder that is removed at the end, unless ``--out DIR`` names
a folder (new or empty) to keep them in.  The simulators are not run: see
``benchmarks/README.md`` ("Exports and drivers at scale") for the ``topogen run sst`` /
``topogen run booksim`` figures measured beside these.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import timed_main  # noqa: E402  (cores, load, wall and CPU time)

ROOT = Path(__file__).resolve().parents[1]
SWITCHES_PER_CABINET = 8


def generator_args(family: str, n: int, seed: int) -> tuple[str, dict]:
    """Registry name and parameters of the benchmark's topology of ``n`` switches."""
    if family == "random":
        return "random", {"num_switches": n, "degree": 8, "seed": seed}
    if family == "skywalk":
        if n % SWITCHES_PER_CABINET:
            raise SystemExit(f"skywalk needs a multiple of {SWITCHES_PER_CABINET} switches, got {n}")
        return "skywalk", {"switches_per_cabinet": SWITCHES_PER_CABINET, "cabinets": n // SWITCHES_PER_CABINET,
                           "intra_degree": 7, "inter_degree": 4, "seed": seed}
    raise SystemExit(f"unknown family {family!r}: random or skywalk")


# ------------------------------------------------------------------ worker (child process)
def _worker(step: str, spec: dict) -> dict:
    """One step in this (fresh) process; returns its own timings (wall seconds)."""
    out = Path(spec["out"])
    res: dict = {}
    if step == "generate":
        from topogen import registry
        from topogen import formats
        from topogen.layout import default_layout

        t0 = time.perf_counter()
        topology = registry.generate(spec["name"], **spec["params"])
        layout = default_layout(topology)
        res["generate_s"] = time.perf_counter() - t0
        formats.save(spec["topology"], topology, layout)
        res["switches"], res["links"] = topology.num_switches, topology.num_links
        return res
    from topogen import formats

    t0 = time.perf_counter()
    topology, layout = formats.load(spec["topology"])
    if layout is None:
        from topogen.layout import default_layout

        layout = default_layout(topology)
    res["load_s"] = time.perf_counter() - t0
    if step == "booksim":
        from topogen.export.booksim import export_booksim

        t0 = time.perf_counter()
        exp = export_booksim(out, topology, layout, setup="vct33", options={}, content_stem=True)
        res["export_s"] = time.perf_counter() - t0
        res["files"] = [str(p) for p in (exp.network_file, exp.config_file, exp.meta_file)]
    elif step == "sst":
        from topogen.export.sst import write_bundle
        from topogen.routing import route

        t0 = time.perf_counter()
        routing = route(topology, layout, "booksim-min")
        res["route_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        path = write_bundle(out / "bundle.sst.json", topology, layout, routing)
        res["export_s"] = time.perf_counter() - t0
        res["files"] = [str(path)]
    else:
        raise SystemExit(f"unknown step {step!r}")
    return res


def run_step(step: str, spec: dict) -> dict:
    """Run one step in a child process; add its wall, CPU and peak RSS (``os.wait4``)."""
    cmd = [sys.executable, __file__, "--worker", step, json.dumps(spec)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOPOGEN_QUIET="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{step} of {spec['label']} failed (exit {proc.returncode})")
    res = json.loads(stdout.strip().splitlines()[-1])
    res.update(wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime, peak_mb=usage.ru_maxrss / 1024.0)
    res["bytes"] = sum(Path(f).stat().st_size for f in res.get("files", []))
    return res


def _size(b: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if b < 1000 or unit == "GB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000.0
    return ""  # pragma: no cover


def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SystemExit(f"--out {out}: not an empty folder; name a new or empty one (nothing is replaced)")


@timed_main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="256,1024,4096,16384", help="switch counts (default 256,1024,4096,16384)")
    ap.add_argument("--families", default="random,skywalk", help="random, skywalk or both (default both)")
    ap.add_argument("--sst-max", type=int, default=4096, help="largest N that writes an SST bundle (default 4096)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="keep the files in this new or empty folder")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    for f in families:
        for n in sizes:
            generator_args(f, n, args.seed)  # refuse a bad size or family before any work
    if args.out is not None:
        _check_out(args.out)
    with tempfile.TemporaryDirectory(prefix="bench_export.") as tmp:
        base = args.out if args.out is not None else Path(tmp)
        print(f"{'network':<16} {'step':<8} {'wall s':>8} {'CPU s':>7} {'peak MB':>8} {'written':>9}  detail")
        for family in families:
            for n in sizes:
                name, params = generator_args(family, n, args.seed)
                label = f"{family}-{n}"
                folder = base / label
                folder.mkdir(parents=True)
                spec = {"name": name, "params": params, "label": label, "out": str(folder),
                        "topology": str(folder / f"{label}.json")}
                steps = ["generate", "booksim"] + (["sst"] if n <= args.sst_max else [])
                for step in steps:
                    r = run_step(step, spec)
                    if step == "generate":
                        detail = f"{r['switches']} switches, {r['links']} links; generate+layout {r['generate_s']:.2f} s"
                        r["bytes"] = Path(spec["topology"]).stat().st_size
                    elif step == "booksim":
                        detail = f"load {r['load_s']:.2f} s, export_booksim {r['export_s']:.2f} s"
                    else:
                        detail = (f"load {r['load_s']:.2f} s, route booksim-min {r['route_s']:.2f} s, "
                                  f"write_bundle {r['export_s']:.2f} s ({n * (n - 1):,} routes)")
                    print(f"{label:<16} {step:<8} {r['wall_s']:>8.2f} {r['cpu_s']:>7.2f} {r['peak_mb']:>8.0f} "
                          f"{_size(r['bytes']):>9}  {detail}", flush=True)
                    for f in r.get("files", []):  # keep the disk use of a long run small
                        if args.out is None:
                            Path(f).unlink()
                if n > args.sst_max:
                    print(f"{label:<16} {'sst':<8} {'skipped':>8}  (N > --sst-max {args.sst_max}: "
                          f"{n * (n - 1):,} source routes)", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        sys.path.insert(0, str(ROOT))
        print(json.dumps(_worker(sys.argv[2], json.loads(sys.argv[3]))))
    else:
        main()
