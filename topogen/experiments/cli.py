"""``topogen experiment``: plan, run, submit, status and collect a TOML experiment.

Examples::

    topogen experiment plan spec.toml              # points, done, to run, core-hours
    topogen experiment run spec.toml -j 2          # local process pool into the store
    topogen experiment submit spec.toml            # the missing points as a SLURM array
    topogen experiment status spec.toml            # store counts and SLURM job states
    topogen experiment collect spec.toml -o all.parquet

Wired into ``topogen`` by :mod:`topogen.cli` through :func:`add_parsers`; see
``docs/experiments.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ParameterError, TopogenError

__all__ = ["add_parsers", "experiment_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``experiment`` (with its actions) to the ``topogen`` sub-commands."""
    parents = list(parents)
    e = subparsers.add_parser(
        "experiment", parents=parents, help="plan, run, submit (SLURM) and collect a TOML experiment",
        description="Expand a TOML experiment spec (topologies x routings x traffics x loads x "
                    "simulators x seeds) into points with stable ids and run them into one results "
                    "store, locally or as SLURM job arrays. See docs/experiments.md.")
    sub = e.add_subparsers(dest="action", metavar="ACTION", parser_class=subparsers._parser_class)
    sub.required = True

    def common(p, spec=True):
        if spec:
            p.add_argument("spec", metavar="SPEC", help="TOML experiment spec (or a submission's points.json)")
        p.add_argument("--store", metavar="DIR", default=None,
                       help="results store folder (default: [experiment] store of the spec, else "
                            "NAME.store in the working folder)")

    p = sub.add_parser("plan", parents=parents, help="count the points, what is done and the core-hours")
    common(p)
    p.add_argument("--list", action="store_true", help="also list the points still to run")
    p.set_defaults(handler=experiment_command)

    p = sub.add_parser("run", parents=parents, help="run the missing points on this machine")
    common(p)
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.set_defaults(handler=experiment_command)

    p = sub.add_parser("submit", parents=parents, help="submit the missing points as a SLURM job array")
    common(p)
    p.add_argument("--slurm", action="store_true", help=argparse.SUPPRESS)  # refused: see _submit
    p.add_argument("--partition", default=None)
    p.add_argument("--account", default=None)
    p.add_argument("--time", default=None, metavar="T", help="time limit per array task (sbatch --time)")
    p.add_argument("--mem", default=None, metavar="M", help="memory per array task (sbatch --mem, e.g. 2G)")
    p.add_argument("--chunk", type=int, default=None, metavar="N", help="points per array task (default 10)")
    p.add_argument("--max-running", type=int, default=None, metavar="K",
                   help="array tasks running at once (--array=0-M%%K)")
    p.add_argument("--tasks", dest="tasks_per_point", type=int, default=None, metavar="K",
                   help="SLURM tasks per array task (sbatch --ntasks); each SST run uses them as K MPI ranks")
    p.add_argument("--python", default=None, metavar="EXE",
                   help=f"Python on the nodes (default: this one, {sys.executable})")
    p.add_argument("--collect-output", default=None, metavar="FILE",
                   help="table the collect job writes (default STORE/results.csv)")
    p.add_argument("--no-collect", action="store_true", help="do not submit the collect job")
    p.add_argument("--dry-run", action="store_true", help="write the job scripts, do not submit")
    p.add_argument("--resubmit-running", action="store_true",
                   help="submit even while an earlier array of this store is queued or running "
                        "(its unfinished points are submitted again)")
    p.set_defaults(handler=experiment_command)

    p = sub.add_parser("status", parents=parents, help="store counts and the SLURM jobs' states")
    common(p)
    p.set_defaults(handler=experiment_command)

    p = sub.add_parser("collect", parents=parents, help="merge the store into one CSV/Parquet/JSON table")
    common(p)
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="results table (.csv/.parquet/.json; default STORE/results.csv); rows of the "
                        "same points are replaced, other rows kept")
    p.set_defaults(handler=experiment_command)

    p = sub.add_parser("task", parents=parents, help="run one SLURM array task (used by job.sh)")
    p.add_argument("spec", metavar="POINTS_JSON", help="a submission's points.json")
    p.add_argument("--index", type=int, required=True, help="the array task index")
    p.set_defaults(handler=experiment_command)


def _load(args):
    """(experiment, store) of the command: a TOML spec or a submission's points.json."""
    from .slurm import load_submission
    from .spec import load_experiment
    from .store import Store

    path = Path(args.spec)
    chunks = None
    if path.suffix.lower() == ".json":
        exp, chunks = load_submission(path)
        if getattr(args, "store", None):
            exp.store = Path(args.store)
    else:
        exp = load_experiment(path, store=getattr(args, "store", None))
    create = args.action in ("run", "task", "submit")
    return exp, Store.open(exp.store, exp.name, create=False) if not create else None, chunks


def _open(exp, create):
    from .store import Store

    return Store.open(exp.store, exp.name, create=create)


def _kind(content) -> tuple:
    """Points whose seconds are averaged together: one simulator, single load or sweep."""
    return content["simulator"], content["load"] == "sweep"


def _estimate(exp, store, pending) -> str:
    """What the pending points will run and cost: points, simulations (a sweep point's
    range, :func:`topogen._estimate.sweep_simulations`), and core-hours from the measured
    seconds per point of the store's rows (per simulator), else the spec's
    ``seconds_per_point`` guess."""
    import os

    from .._estimate import plan_text, sweep_simulations
    from .._input import load_json
    from ..load_points import sweep_size

    per: dict = {}

    folder = store.root / "points"
    names = sorted(os.listdir(folder))[:200] if folder.is_dir() else []
    for n in names:
        if n.endswith(".json") and not n.startswith("."):
            try:
                rec = load_json(folder / n, what="point record")
            except (OSError, ValueError):
                continue
            per.setdefault(_kind(rec["content"]), []).append(float(rec.get("seconds") or 0))
    if not pending:
        return "nothing left to run"
    total = 0.0
    least = most = 0
    guessed = set()
    for p in pending:
        if "sweep" in p.content:
            lo, hi = sweep_simulations(**{k: p.content["sweep"][k] for k in ("low", "high", "tolerance", "points")})
        else:
            lo = hi = 1
        least, most = least + lo, most + hi
        s = per.get(_kind(p.content))
        if s:
            total += sum(s) / len(s)
        else:  # a sweep point: the guess times the loads it is likely to simulate
            total += exp.seconds_per_point * (sweep_size(**p.content["sweep"]) if "sweep" in p.content else 1)
            guessed.add(p.content["simulator"])
    how = (f"guess {exp.seconds_per_point:g} s/point (s/load of a sweep) for {', '.join(sorted(guessed))}" if guessed
           else "rate measured on the store's points, seconds of one worker")
    return (plan_text(len(pending), (least, most), seconds=total, rate=how, what="points to run")
            + f"; {total / 3600:.4f} core-hours ({total:.1f} core-seconds)")


def experiment_command(args) -> int:
    """Handler of ``topogen experiment ACTION``; returns the exit code."""
    action = args.action
    exp, store, chunks = _load(args)
    if action == "plan":
        return _plan(args, exp, store)
    if action == "status":
        return _status(args, exp, store)
    if action == "collect":
        return _collect(args, exp, store)
    if action == "run":
        return _run_local(args, exp)
    if action == "submit":
        return _submit(args, exp)
    return _task(args, exp, chunks)


def _axes_text(exp) -> str:
    parts = []
    for axis in ("topology", "layout", "routing", "traffic", "load", "simulator", "seed"):
        if axis == "topology":
            key = lambda c: c["topology"]["label"]  # noqa: E731
        elif axis == "layout":
            key = lambda c: (c.get("layout") or {}).get("label", "default")  # noqa: E731
        else:
            key = lambda c, a=axis: c[a]  # noqa: E731
        parts.append(f"{len({str(key(p.content)) for p in exp.points})} {axis}")
    reps = len({p.content["repeat"] for p in exp.points})
    if reps > 1:
        parts.append(f"{reps} repeats")
    return " x ".join(parts)


def _plan(args, exp, store) -> int:
    from .spec import check_experiment

    check_experiment(exp)  # every point could run: generator parameters, routings, simulators
    c = store.counts(exp.points)
    pending = store.pending(exp.points)
    print(f"experiment {exp.name}: {c.total} points ({_axes_text(exp)})")
    print(f"store {exp.store}: {c.done} done, {c.failed} failed, {c.pending} to run")
    print(f"estimate: {_estimate(exp, store, pending)}")
    if args.list:
        failed = store.failed_ids()
        for p in pending:
            print(f"{p.id}  {'failed ' if p.id in failed else ''}{p.label}")
    return 0


def _status(args, exp, store) -> int:
    from .slurm import collect_job_text, ended_job_text, job_states, submissions

    c = store.counts(exp.points)
    print(f"experiment {exp.name}: {c.done} of {c.total} points done, {c.failed} failed, {c.pending} to run "
          f"(store {exp.store})")
    subs = submissions(store.root) if store.exists else []
    if subs:
        jobs = [s["job"] for s in subs if s.get("job")] + [s["collect_job"] for s in subs if s.get("collect_job")]
        try:
            states, note = job_states(jobs)
        except TopogenError as exc:
            states, note = {}, str(exc)
        done, failed = store.done_ids(), store.failed_ids()
        for s in subs:
            st = states.get(s["job"], {})
            text = (", ".join(f"{n} {k.lower()}" for k, n in sorted(st.items()))
                    or ended_job_text(s, done, failed, listed=not (note or "").startswith("squeue")
                                      and s["job"] in states))  # gone from squeue, no accounting: ask the store
            cj = s.get("collect_job")
            ctext = ""
            if cj:
                cst = states.get(cj, {})
                ctext = f"; collect job {cj}: " + (", ".join(k.lower() for k in cst) or collect_job_text(s, cj))
            print(f"SLURM job {s['job']} ({s['points']} points, {s['tasks']} tasks, array {s['array']}): "
                  f"{text}{ctext}")
        if note:
            print(f"note: {note}")
    failed = sorted(store.failed_ids() & {p.id for p in exp.points})
    for pid in failed[:10]:
        try:
            err = store.record(pid, "failed").get("error")
        except (OSError, ValueError):
            err = "?"
        print(f"failed {pid}: {err}")
    return 0


def _collect(args, exp, store) -> int:
    from ..output import check_distinct_outputs
    from .store import collect

    check_distinct_outputs([exp.path], {"-o": args.output})  # the table must not replace the spec
    if not store.exists:
        raise ParameterError(f"{exp.store} holds no results yet; run the experiment first "
                             "(topogen experiment run SPEC, or submit)")
    counts: dict = {}
    out, n, missing, failed = collect(exp, store, args.output, counts=counts)
    total = len(exp.points)
    if counts.get("left_out_points"):
        removed = f"; {counts['removed']} such rows removed from {out}" if counts.get("removed") else ""
        print(f"left out {counts['left_out']} stored rows of {counts['left_out_points']} points that are not "
              f"in {exp.path or 'the spec'} (the spec changed since they ran){removed}")
    if out is None:
        print(f"no point of {exp.name} is done yet; nothing written", file=sys.stderr)
        return 1
    done = total - len(missing) - len(failed)
    if n == done:
        print(f"{n} of {total} rows collected into {out}")
    else:  # load = "sweep" points give a row per load
        print(f"{n} rows of {done} of {total} points collected into {out}")
    if missing or failed:
        print(f"incomplete: {len(missing)} points missing, {len(failed)} failed "
              "(run or submit again to fill them in)")
    return 0


def _run_local(args, exp) -> int:
    from .runner import check_simulators, run_points

    from .spec import check_experiment

    if isinstance(args.jobs, bool) or args.jobs < 1:
        raise ParameterError(f"-j must be a positive number of worker processes, got {args.jobs}")
    check_experiment(exp)
    check_simulators(exp.simulators)  # before the store is touched
    store = _open(exp, create=True)
    pending = store.pending(exp.points)
    done_before = len(exp.points) - len(pending)
    if not pending:
        print(f"all {len(exp.points)} points of {exp.name} are done (store {exp.store})")
        return 0
    print(f"estimate: {_estimate(exp, store, pending)}", flush=True)  # before the first point
    summary = run_points(pending, store, jobs=args.jobs, total=len(exp.points), already_done=done_before,
                         progress=not args.quiet)
    print(summary.table())
    print(f"store {exp.store}; `topogen experiment collect` merges it into one table")
    return 1 if summary.failed else 0


def _submit(args, exp) -> int:
    from .slurm import SlurmOptions, check_slurm, submit

    if args.slurm:
        raise ParameterError("experiment submit takes no --slurm: it always submits a SLURM job array (SLURM is "
                             "the only scheduler); drop --slurm, add --dry-run to write the job scripts without "
                             "submitting, or use `topogen experiment run` to run on this machine")
    conf = dict(exp.slurm)
    for key in ("partition", "account", "time", "mem", "chunk", "max_running", "tasks_per_point", "python",
                "collect_output"):
        v = getattr(args, key, None)
        if v is not None:
            conf[key] = v
    conf["collect"] = not args.no_collect
    conf["resubmit_running"] = args.resubmit_running
    opts = SlurmOptions(**conf)
    from .spec import check_experiment

    check_experiment(exp)  # before anything is written or queued, dry run included
    if not args.dry_run:
        check_slurm()  # before the store is touched
    store = _open(exp, create=True)
    info = submit(exp, store, opts, dry_run=args.dry_run)
    if not info["points"]:
        print(f"all {len(exp.points)} points of {exp.name} are done; nothing to submit")
        return 0
    print(f"{info['points']} points in {info['tasks']} array tasks (--array={info['array']}); scripts in "
          f"{info['folder']}")
    if info["job"]:
        extra = f", collect job {info['collect_job']}" if info["collect_job"] else ""
        print(f"submitted job {info['job']}{extra}; `topogen experiment status` follows it")
    return 0


def _task(args, exp, chunks) -> int:
    from .runner import check_simulators, run_points

    if chunks is None:
        raise ParameterError("experiment task runs one chunk of a submission: give its points.json")
    if not 0 <= args.index < len(chunks):
        raise ParameterError(f"--index must be in [0, {len(chunks) - 1}], got {args.index}")
    points = [exp.points[i] for i in chunks[args.index]]
    check_simulators(tuple({p.content["simulator"] for p in points}))  # before the store is touched
    store = _open(exp, create=False)
    if not store.exists:
        raise ParameterError(f"store {exp.store} is missing; the submission's store must be reachable from the node")
    pending = store.pending(points)
    # a task's log (stderr is a file) gets a line per point and one at least a minute while one runs
    summary = run_points(pending, store, jobs=1, total=len(points), already_done=len(points) - len(pending),
                         progress=not args.quiet)
    print(summary.table())
    return 1 if summary.failed else 0

