"""``topogen optimize``: the command line of :func:`topogen.optimize.optimize`.

::

    topogen optimize --num-switches 256 --degree 8 --time-limit 600 -o golf256.json --plot conv.png
    topogen optimize skywalk --param switches_per_cabinet=8 --param cabinets=256 \\
        --param intra_degree=7 --param inter_degree=4 --objective latency --cable-budget 59000 \\
        --time-limit 600 -o sky.json
    topogen optimize --resume run.ckpt --time-limit 600 -o out.json
"""

from __future__ import annotations

import json
import os
import sys

from ..errors import ParameterError

__all__ = ["add_parsers", "optimize_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``optimize`` to the ``topogen`` sub-commands."""
    from .objectives import OBJECTIVES

    p = subparsers.add_parser(
        "optimize", parents=list(parents),
        help="improve a topology by degree-preserving edge swaps (Graph Golf, floor latency)",
        description="Simulated annealing over double-edge swaps that keep every degree, with an "
                    "incremental bit-parallel evaluation. Objectives: "
                    + "; ".join(f"{o.name}: {o.description}" for o in OBJECTIVES.values())
                    + ". See docs/optimize.md.")
    p.add_argument("start", nargs="?", metavar="START",
                   help="start topology: a topology file or generator name (with --param); "
                        "default a random regular graph (--num-switches, --degree)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="generator parameter of START (repeatable)")
    p.add_argument("--num-switches", type=int, default=None, metavar="N", help="random start: switches")
    p.add_argument("--degree", type=int, default=None, metavar="D", help="random start: degree")
    p.add_argument("--objective", default="golf", metavar="NAME",
                   help=f"one of {', '.join(OBJECTIVES)} (default golf)")
    p.add_argument("--seed", default=None, help="the one seed (default: drawn and recorded)")
    p.add_argument("--moves", type=int, default=None, metavar="M", help="evaluated moves to make")
    p.add_argument("--time-limit", type=float, default=None, metavar="SEC",
                   help="seconds the whole command takes at most, start-up and compiling the search "
                        "included (with --moves: whichever ends first)")
    p.add_argument("--switches-per-cabinet", type=int, default=None, metavar="Z",
                   help="default floor: switches per cabinet (8 for a random start)")
    p.add_argument("--max-cable", type=float, default=None, metavar="M", help="longest cable allowed, m")
    p.add_argument("--cable-budget", type=float, default=None, metavar="M", help="total cable allowed, m")
    p.add_argument("--switch-delay", type=float, default=60.0, metavar="NS", help="ns per switch (default 60)")
    p.add_argument("--t-start", type=float, default=0.3, help="start temperature (default 0.3)")
    p.add_argument("--t-end", type=float, default=0.003, help="end temperature (default 0.003)")
    p.add_argument("--symmetry", type=int, default=None, metavar="G",
                   help="keep the graph invariant under a rotation of order G (hop objectives, random "
                        "start, even degree; default: automatic there, else 1 = none)")
    p.add_argument("--restarts", type=int, default=None, metavar="R",
                   help="symmetric search: independent runs the budget is split into, best kept "
                        "(default one per max(20, 0.06 N) seconds of --time-limit)")
    p.add_argument("--targeted", type=float, default=None, metavar="SHARE",
                   help="objective latency: share of the swaps (first half of the run) aimed at the pairs "
                        "at the maximum latency (default 0.5; 0 = random swaps only)")
    p.add_argument("--engine", choices=("auto", "compiled", "python"), default="auto",
                   help="who runs the search: compiled (numba) or the same steps in plain Python "
                        "(same result for a seed and --moves, no compilation, slower per move); "
                        "auto: plain Python for a small search (default auto)")
    p.add_argument("--checkpoint", default=None, metavar="FILE",
                   help="checkpoint file, rewritten atomically every minute and at the end")
    p.add_argument("--resume", default=None, metavar="FILE", help="continue a checkpointed run")
    p.add_argument("--plot", default=None, metavar="FILE", help="convergence plot (.png, .svg, .pdf)")
    p.add_argument("--history", default=None, metavar="FILE", help="convergence history as CSV")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the optimized topology (.json, .edges, .graphml)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="summary on stdout")
    p.set_defaults(handler=optimize_command)


def _start(args):
    """(topology, layout) of START, or (None, None) for a random start."""
    if args.start is None:
        if args.param:
            raise ParameterError("--param needs a START generator name")
        return None, None
    from .. import registry
    from .. import formats

    looks_file = os.path.splitext(args.start)[1].lower() in formats.EXTENSIONS or os.sep in args.start
    if looks_file:
        if args.param:
            raise ParameterError("--param needs a generator name; a topology file carries its own parameters")
        if not os.path.isfile(args.start):
            raise ParameterError(f"start topology file {args.start} does not exist")
        return formats.load(args.start)
    kwargs = {}
    for item in args.param:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParameterError(f"--param {item!r}: write KEY=VALUE")
        kwargs[key.strip().replace("-", "_")] = value.strip()
    spec = registry.get(args.start)
    if spec.random and "seed" not in kwargs and args.seed is not None:
        kwargs["seed"] = str(args.seed)
    return registry.generate(args.start, **kwargs), None


def _check_random_start(num_switches: int, degree) -> None:
    """Refuse a random start the machine cannot hold, before drawing it: the search keeps
    bit-parallel all-pairs hop counts (three ``N x N`` bit matrices)."""
    import math

    from .._validate import check_memory

    if num_switches < 2:
        raise ParameterError(f"--num-switches must be an integer >= 2, got {num_switches}")
    if degree is not None and not 1 <= degree < num_switches:
        raise ParameterError(f"--degree must be in [1, {num_switches - 1}] for {num_switches} switches, "
                             f"got {degree}")
    nbytes = 3 * num_switches * math.ceil(num_switches / 64) * 8
    check_memory(f"--num-switches {num_switches:,} (all-pairs hop counts of the search)", nbytes,
                 "; use fewer switches")


def _launched_as_topogen() -> bool:
    """Whether this process is the ``topogen`` command (``topogen ...`` or ``python -m
    topogen ...``), not a program that calls :func:`topogen.cli.main` in passing."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and str(getattr(spec, "name", "")).split(".")[0] == "topogen":
        return True
    return os.path.basename(sys.argv[0] if sys.argv else "") == "topogen"


def _process_started() -> float:
    """The :func:`time.monotonic` stamp of this process's start when it is the ``topogen``
    command (Linux: from /proc, so that the interpreter's start-up and the imports count),
    else of now."""
    import time

    now = time.monotonic()
    if not _launched_as_topogen():
        return now
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        age = uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time in ticks
    except (OSError, ValueError, IndexError, AttributeError):  # pragma: no cover - not Linux
        return now
    return now - min(max(age, 0.0), 60.0)  # (a nonsense age is not trusted beyond a minute)


#: seconds kept free after the search for writing the plot (``--plot``)
PLOT_RESERVE = 0.5


def optimize_command(args) -> int:
    started = _process_started()
    from .. import _progress
    from .. import formats
    from ..output import check_distinct_outputs, check_file_output
    from .objectives import get_objective
    from .run import optimize, plot_history

    if args.resume is None:
        get_objective(args.objective)  # one line before any work
        if args.start is not None and (args.num_switches is not None or args.degree is not None):
            raise ParameterError("give a START topology or --num-switches/--degree, not both")
    formats.format_of(args.output)
    if args.num_switches is not None:
        _check_random_start(args.num_switches, args.degree)
    inputs = [x for x in (args.start, args.resume) if x and os.path.isfile(x)]
    # every output, side outputs included, is checked against the others and the inputs first
    check_distinct_outputs(
        {"START": args.start if args.start and os.path.isfile(args.start) else None, "--resume": args.resume},
        {"-o": args.output, "--plot": args.plot, "--history": args.history, "--checkpoint": args.checkpoint},
        allow=[("--checkpoint", "--resume")])  # a resumed run goes on writing its checkpoint
    check_file_output(args.output, inputs=inputs)
    for extra in (args.plot, args.history):
        if extra:
            check_file_output(extra, inputs=inputs)
    if args.checkpoint:
        check_file_output(args.checkpoint, inputs=[x for x in inputs if x != args.resume])
    topology, layout = _start(args) if args.resume is None else (None, None)
    if args.plot and args.time_limit is not None:
        import matplotlib.pyplot  # noqa: F401  (imported within the limit, before the search)
    with _progress.Progress(total=1000, desc="optimize") as bar:
        def progress(frac, text):
            bar.update(int(frac * 1000) - bar.count)
            bar.status(text)

        result = optimize(topology, num_switches=args.num_switches, degree=args.degree,
                          objective=args.objective, seed=args.seed, moves=args.moves,
                          time_limit=args.time_limit, layout=layout,
                          switches_per_cabinet=args.switches_per_cabinet, max_cable=args.max_cable,
                          cable_budget=args.cable_budget, switch_delay=args.switch_delay,
                          t_start=args.t_start, t_end=args.t_end, symmetry=args.symmetry,
                          restarts=args.restarts, targeted=args.targeted,
                          checkpoint=args.checkpoint,
                          resume=args.resume, progress=progress, started=started,
                          engine=getattr(args, "engine", "auto"),
                          reserve=PLOT_RESERVE if args.plot else 0.0)
    formats.save(args.output, result.topology, result.layout)
    if args.plot:
        plot_history(result.history, args.plot, title=f"topogen optimize: {result.summary['objective']}, "
                     f"N={result.summary['num_switches']}, d={result.summary['degree']}")
    if args.history:
        from ..output import atomic_write

        atomic_write(args.history, result.history.to_csv(index=False))
    import time

    s = dict(result.summary, elapsed_seconds=round(time.monotonic() - started, 2))  # the whole command
    if args.format == "json":
        print(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in s.items()}, indent=1))
    else:
        width = max(len(k) for k in s)
        for key, value in s.items():
            text = f"{value:.4f}" if isinstance(value, float) else str(value)
            print(f"{key:<{width}}  {text}")
    if not getattr(args, "quiet", False):
        print(f"topogen: wrote {args.output}", file=sys.stderr)
    return 0
