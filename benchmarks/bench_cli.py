"""Benchmark: start-up time of the ``topogen`` command line.

Each command runs ``--repeat`` times (default 5) in a fresh Python process
(``python -m topogen ...``); printed per command: the median wall and CPU seconds (user +
system of the child) and the fastest wall.  Commands: ``topogen --help``, ``topogen
list``, ``topogen generate torus --dims 4,4 -o t.json``, ``topogen analyze torus --dims
4,4`` and ``topogen <cmd> --help`` for every sub-command (``run booksim``, ``experiment
plan`` ... included).

Run:  python benchmarks/bench_cli.py [--repeat 5] [--root DIR] [--only help,list,...]

``--root DIR`` times the topogen of another checkout (e.g. ``--root ../main`` for the
"before" figures); by default this checkout's.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
import time

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import timed_main  # noqa: E402  (cores, load, wall and CPU time)

ROOT = Path(__file__).resolve().parents[1]

#: sub-commands whose ``--help`` is timed (the ones with sub-sub-commands as "cmd sub")
HELP_COMMANDS = ("list", "generate", "analyze", "reproduce", "convert", "route", "check-deadlock",
                 "run", "run booksim", "run sst", "results", "simulate", "plot", "crossval",
                 "experiment", "experiment plan", "experiment run", "experiment submit",
                 "experiment status", "experiment collect", "experiment task", "draw", "optimize",
                 "layout", "layout cluster", "layout anneal")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(argv: list[str], env: dict, cwd: str) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh ``python -m topogen ARGV`` (must exit 0)."""
    c0, w0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "topogen", *argv], env=env, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, cpu = time.perf_counter() - w0, _children_cpu() - c0
    if proc.returncode:
        raise SystemExit(f"topogen {' '.join(argv)} failed ({proc.returncode}): "
                         f"{proc.stderr.decode(errors='replace').strip()}")
    return wall, cpu


@timed_main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="fresh processes per command (default 5)")
    ap.add_argument("--root", default=str(ROOT), help="checkout whose topogen is timed (default: this one)")
    ap.add_argument("--only", help="comma-separated subset: help,list,generate,analyze,subhelp")
    opts = ap.parse_args()
    root = str(Path(opts.root).resolve())
    env = dict(os.environ, PYTHONPATH=root, COLUMNS="100")
    only = set(opts.only.split(",")) if opts.only else {"help", "list", "generate", "analyze", "subhelp"}
    with tempfile.TemporaryDirectory() as tmp:
        commands: list[list[str]] = []
        if "help" in only:
            commands.append(["--help"])
        if "list" in only:
            commands.append(["list"])
        if "generate" in only:
            commands.append(["generate", "torus", "--dims", "4,4", "-o", "t.json"])
        if "analyze" in only:
            commands.append(["analyze", "torus", "--dims", "4,4"])
        if "subhelp" in only:
            commands += [c.split() + ["--help"] for c in HELP_COMMANDS]
        print(f"topogen of {root}; {opts.repeat} fresh processes per command "
              f"(median wall / median CPU / fastest wall, seconds)", flush=True)
        run_once(["--version"], env, tmp)  # warm the file cache and the bytecode
        walls_all = []
        for argv in commands:
            runs = [run_once(argv, env, tmp) for _ in range(opts.repeat)]
            walls = [w for w, _ in runs]
            cpus = [c for _, c in runs]
            walls_all.append(statistics.median(walls))
            print(f"  topogen {' '.join(argv):<48} wall {statistics.median(walls):5.2f}  "
                  f"CPU {statistics.median(cpus):5.2f}  fastest {min(walls):5.2f}", flush=True)
        if walls_all:
            print(f"median of the commands' median walls: {statistics.median(walls_all):.2f} s", flush=True)


if __name__ == "__main__":
    main()
