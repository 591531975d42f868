"""Benchmark: start-up time of the ``topogen`` command line.

Each command runs ``--repeat`` times (default 5) in a fresh Python process
(``python -m topogen ...``); printed per command: the median wall and CPU seconds (user +
system of the child) and the fastest wall.  Commands: ``topogen --help``, ``topogen
list``, ``topogen generate torus --dims 4,4 -o t.json``, ``topogen analyze torus --dims
4,4`` and ``topogen <cmd> --help`` for every sub-command (``run booksim``, ``experiment
plan`` ... included).

Run:  python benchmarks/bench_cli.py [--repeat 5] [--root DIR] [--only help,list,...]
      python benchmarks/bench_cli.py --cold [--peer DIR]

``--root DIR`` times the topogen of another checkout (e.g. ``--root ../main`` for the
"before" figures); by default this checkout's.

``--cold``: the cold start, as on a new machine, a fresh CI runner or a cluster node:
each command on a small network (4x4 torus; optimize on 32 switches of degree 4) runs
once with an empty numba cache (a fresh ``NUMBA_CACHE_DIR``), then ``--repeat`` times
with the cache it filled (warm).  Commands: generate, analyze, route, simulate, simulate
--sweep, optimize (a move budget and ``--time-limit 3``).  Printed per command: cold and
warm CPU seconds (user + system of the child), the cold CPU as a ratio to the goal (2 s),
to the peer run ``python -c pass`` (the interpreter's own start, timed the same way) and to
the command's warm run, each ratio with its peer named; with ``--peer DIR``, e.g.
``--peer ../main``, also to the same command of that checkout.  ``optimize --time-limit 3``
also prints the elapsed time the command reports (its whole run, start-up and
compilation included); the simulate rows print which engine ran.
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


def run_once(argv: list[str], env: dict, cwd: str, keep: bool = False):
    """Wall and CPU seconds of one fresh ``python -m topogen ARGV`` (must exit 0, or 1 for
    ``check-deadlock``: its verdict "cycles found"); with ``keep``, its standard output too."""
    c0, w0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "topogen", *argv], env=env, cwd=cwd,
                          stdout=subprocess.PIPE if keep else subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, cpu = time.perf_counter() - w0, _children_cpu() - c0
    refused = proc.returncode == 2 and "--time-limit" in argv  # the limit used up before the search
    if proc.returncode and not (proc.returncode == 1 and argv[0] == "check-deadlock") and not refused:
        raise SystemExit(f"topogen {' '.join(argv)} failed ({proc.returncode}): "
                         f"{proc.stderr.decode(errors='replace').strip()}")
    if keep:
        return wall, cpu, proc.stdout.decode() if not refused else proc.stderr.decode()
    return wall, cpu


#: the cold-start goal: CPU seconds of any command on a small network, empty cache
COLD_GOAL = 2.0

#: commands of the cold-start table (small networks); run in a work folder holding t.json
#: (a 4x4 torus) and routes/ (its routing)
COLD_COMMANDS = (
    ("list",),
    ("generate", "torus", "--dims", "4,4", "-o", "g.json"),
    ("analyze", "torus", "--dims", "4,4"),
    ("analyze", "t.json", "--resilience", "10"),
    ("route", "t.json", "-o", "routes", "--force"),
    ("check-deadlock", "routes"),
    ("simulate", "t.json", "--load", "0.1", "-o", "s.csv"),
    ("simulate", "t.json", "--sweep", "--no-resume", "-o", "sw.csv"),
    ("optimize", "--num-switches", "32", "--degree", "4", "--moves", "200", "--seed", "1", "-o", "o.json"),
    ("optimize", "--num-switches", "32", "--degree", "4", "--time-limit", "3", "--seed", "1", "-o", "o.json",
     "--format", "json"),
)


def _engines(path: str) -> str:
    """The engines recorded in a results file's rows (``params["engine"]``)."""
    import csv
    import json

    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    names = sorted({json.loads(r["params"]).get("engine", "?") for r in rows})
    return f"  engine {', '.join(names)} ({len(rows)} rows)"


def _cold_table(root: str, repeat: int, label: str) -> dict:
    """{command: (cold CPU, median warm CPU, elapsed reported or None)} for one checkout."""
    import json

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=root, COLUMNS="100", NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        env.pop("TOPOGEN_NUMBA_CACHE", None)
        run_once(["generate", "torus", "--dims", "4,4", "-o", "t.json"], env, tmp)  # the input file
        run_once(["route", "t.json", "-o", "routes"], env, tmp)  # (this fills part of the cache:
        import shutil                                              #  emptied again below)

        shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
        c0 = _children_cpu()
        for _ in range(repeat):
            subprocess.run([sys.executable, "-c", "pass"], env=env, cwd=tmp, check=True)
        bare = (_children_cpu() - c0) / repeat
        print(f"{label}: {root}; peer `python -c pass`: {bare:.2f} s CPU", flush=True)
        for argv in COLD_COMMANDS:
            if argv[0] == "simulate" and not _accepts(argv, env, tmp):
                print(f"  topogen {' '.join(argv):<70} (not in this checkout)", flush=True)
                continue
            cache = os.path.join(tmp, "numba-" + str(len(out)))
            e = dict(env, NUMBA_CACHE_DIR=cache)
            _, cold, text = run_once(list(argv), e, tmp, keep=True)
            warm = statistics.median(run_once(list(argv), e, tmp)[1] for _ in range(repeat))
            elapsed, extra = None, ""
            if "--time-limit" in argv:
                try:
                    elapsed = json.loads(text).get("elapsed_seconds")
                except ValueError:
                    extra = "  cold run refused: " + text.strip().splitlines()[-1][:160]
                else:
                    extra = f"  reported elapsed {elapsed:.2f} s (limit 3 s)" if elapsed is not None else ""
            if argv[0] == "simulate":
                try:
                    extra += _engines(os.path.join(tmp, argv[-1]))
                except Exception as exc:  # noqa: BLE001 - a peer checkout's older rows
                    extra += f"  (engine not read: {type(exc).__name__})"
            out[argv] = (cold, warm, elapsed)
            print(f"  topogen {' '.join(argv):<70} cold CPU {cold:5.2f}  warm CPU {warm:5.2f}  "
                  f"cold/goal {cold / COLD_GOAL:4.2f}  cold/`python -c pass` {cold / bare:5.1f}x  "
                  f"cold/warm {cold / warm:4.2f}x{extra}", flush=True)
    return out


def _accepts(argv, env, cwd) -> bool:
    """Whether this checkout's ``simulate`` knows every option of ``argv`` (a peer may be older)."""
    proc = subprocess.run([sys.executable, "-m", "topogen", "simulate", "--help"], env=env, cwd=cwd,
                          capture_output=True, text=True)
    return all(a in proc.stdout for a in argv if a.startswith("--"))


def cold_main(opts) -> None:
    mine = _cold_table(str(Path(opts.root).resolve()), opts.repeat, "this checkout")
    if not opts.peer:
        return
    peer = _cold_table(str(Path(opts.peer).resolve()), opts.repeat, f"peer (--peer {opts.peer})")
    print(f"cold CPU as a ratio to the peer {opts.peer} (< 1: faster)")
    for argv, (cold, warm, _) in mine.items():
        p = peer.get(argv)
        if p:
            print(f"  topogen {' '.join(argv):<70} cold {cold / p[0]:4.2f}x  warm {warm / p[1]:4.2f}x of the peer's")


@timed_main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="fresh processes per command (default 5)")
    ap.add_argument("--root", default=str(ROOT), help="checkout whose topogen is timed (default: this one)")
    ap.add_argument("--only", help="comma-separated subset: help,list,generate,analyze,subhelp")
    ap.add_argument("--cold", action="store_true", help="cold and warm start of small commands (empty numba cache)")
    ap.add_argument("--peer", help="with --cold: another checkout timed the same way, the peer of the ratios")
    opts = ap.parse_args()
    if opts.cold:
        cold_main(opts)
        return
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
