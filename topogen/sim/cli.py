"""The reference simulator's sub-commands (``simulate``, ``plot``), wired into
``topogen`` by :mod:`topogen.cli` through :func:`add_parsers`.

Examples::

    topogen simulate net.json --traffic uniform --load 0.1 -o results.csv
    topogen simulate net.json --routing dor --sweep --low 0.01 --high 1 -o sweep.csv
    topogen plot a.csv b.csv -o latency.png
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..errors import ParameterError

__all__ = ["add_parsers", "simulate_command", "plot_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``simulate`` and ``plot`` to the ``topogen`` sub-commands."""
    parents = list(parents)
    from .._validate import int_option
    from .. import sim_defaults as sd
    from ..load_points import DEFAULT_LOW, DEFAULT_POINTS
    from .config import ENGINES, FLOW_CONTROLS, INJECTIONS, LATENCY_POINTS, ROUTERS, VC_ALLOCS, SimConfig
    from .traffic import PATTERNS

    d = SimConfig()
    s = subparsers.add_parser(
        "simulate", parents=parents, help="run topogen's reference simulator on a topology",
        description="Simulate FILE (a topology file, or a routing folder written by `topogen route`) "
                    "with the packet-level reference simulator (input-buffered VC switches, credits, "
                    "virtual cut-through) and write rows of the results table. See docs/sim.md.")
    s.add_argument("input", metavar="FILE", help="topology file (.json/.edges/.graphml) or routing folder")
    s.add_argument("--routing", default=None,
                   help="routing algorithm when FILE is a topology: nr, fr, booksim-min, updown, dor, valiant, "
                        "escape, hop, layered ... (default: the routing the topology family's paper "
                        "simulates, e.g. hop on a Slim Fly, dor on a torus, escape on Skywalk; docs/sim.md; "
                        f"{sd.ROUTING} is BookSim anynet's own routes)")
    s.add_argument("--routing-vcs", type=int_option(1), default=None, metavar="K",
                   help="VCs given to the routing algorithm (its --vcs)")
    s.add_argument("--traffic", default=sd.TRAFFIC, help=f"pattern: {', '.join(PATTERNS)} (default {sd.TRAFFIC})")
    s.add_argument("--self-packets", action=argparse.BooleanOptionalAction, default=sd.SELF_PACKETS,
                   help="uniform: a host may send to itself, as in BookSim (SST's offered_load never "
                        f"does) (default: {'yes' if sd.SELF_PACKETS else 'no'})")
    s.add_argument("--injection", choices=INJECTIONS, default=d.injection,
                   help="packet generation: bernoulli (BookSim's) or periodic (SST merlin.offered_load's: "
                        f"every host every 1/p cycles, all in step) (default {d.injection})")
    s.add_argument("--latency-at", choices=LATENCY_POINTS, default=d.latency_at,
                   help="delivery stamp: tail (BookSim's) or head (SST's) (default "
                        f"{d.latency_at})")
    s.add_argument("--router", choices=ROUTERS, default=d.router,
                   help="router model: input-queued (BookSim's) or output-buffered (SST merlin's "
                        f"hr_router; Python engine) (default {d.router})")
    s.add_argument("--vc-alloc", "--vc_alloc", dest="vc_alloc", choices=VC_ALLOCS, default=d.vc_alloc,
                   help="input-queued router: how a packet gets its output VC: booksim (BookSim's "
                        "VC allocation stage, the VC held to the tail) or credits (the VC with most "
                        f"credits when the packet wins the switch; before 26 Nov 2026) (default {d.vc_alloc})")
    s.add_argument("--flow-control", "--flow_control", dest="flow_control", choices=FLOW_CONTROLS,
                   default=d.flow_control,
                   help="input-queued router: vct (packet-level virtual cut-through, whole-packet "
                        "credits) or wormhole (BookSim's flit-level router: one credit per flit, "
                        "buffers may be smaller than a packet; Python engine, slower) "
                        f"(default {d.flow_control})")
    s.add_argument("--output-buffer", type=int, default=None, metavar="FLITS",
                   help="output-buffered router: flits per output VC buffer (default: --buffer)")
    s.add_argument("--load", type=float, default=sd.LOAD, help=f"offered load per host (default {sd.LOAD})")
    s.add_argument("--load-unit", choices=("flits", "packets", "gbps"), default=sd.LOAD_UNIT,
                   help=f"flits or packets per host per cycle, or Gbit/s per host (default {sd.LOAD_UNIT})")
    s.add_argument("--num-vcs", type=int, default=None,
                   help=f"VCs per port (default: {d.num_vcs}, or a multiple of the routing's count)")
    s.add_argument("--buffer", type=int, default=None, metavar="FLITS",
                   help=f"flits per VC buffer (default {d.vc_buf_size}, at least the packet size)")
    s.add_argument("--packet-size", type=int, default=d.packet_size, help=f"flits (default {d.packet_size})")
    s.add_argument("--routing-delay", type=int, default=d.routing_delay)
    s.add_argument("--vc-alloc-delay", type=int, default=d.vc_alloc_delay)
    s.add_argument("--sw-alloc-delay", type=int, default=d.sw_alloc_delay)
    s.add_argument("--st-delay", type=int, default=d.st_delay)
    s.add_argument("--credit-delay", type=int, default=d.credit_delay, metavar="CYCLES",
                   help="cycles a switch takes to process a returned credit (BookSim credit_delay; "
                        f"default {d.credit_delay})")
    s.add_argument("--internal-speedup", type=float, default=d.internal_speedup, metavar="S",
                   help="router steps per cycle (BookSim internal_speedup): pipeline ceil(stages/S) "
                        f"cycles, S flits per cycle through the switch (default {d.internal_speedup:g})")
    s.add_argument("--link-latency", type=int, default=None, metavar="CYCLES",
                   help="latency of every link (default: the layout's link delays / clock period)")
    s.add_argument("--clock-ns", type=float, default=None,
                   help="cycle length in ns (default flit_bits / link_gbps)")
    s.add_argument("--flit-bits", type=int, default=d.flit_bits)
    s.add_argument("--link-gbps", type=float, default=d.link_gbps)
    s.add_argument("--sample-period", type=int, default=d.sample_period)
    s.add_argument("--warmup-periods", type=int, default=d.warmup_periods)
    s.add_argument("--max-samples", type=int, default=d.max_samples)
    s.add_argument("--latency-thres", type=float, default=d.latency_thres)
    s.add_argument("--deadlock-cycles", type=int, default=d.deadlock_cycles)
    s.add_argument("--engine", choices=ENGINES, default=d.engine,
                   help="event loop: compiled (numba), the pure-Python reference, or auto: the "
                        "Python engine for a point whose estimated work is small (no compilation), "
                        "else compiled; the same results, recorded in the row's params "
                        "(default %(default)s)")
    s.add_argument("--seed", default=None,
                   help="simulation seed (default: derived from the point's content; recorded)")
    s.add_argument("--sweep", action="store_true",
                   help="find the zero-load latency and the saturation load by bisection")
    s.add_argument("--low", type=float, default=DEFAULT_LOW, help=f"sweep: lowest load (default {DEFAULT_LOW:g})")
    s.add_argument("--high", type=float, default=1.0, help="sweep: highest load (default 1.0)")
    s.add_argument("--tolerance", type=float, default=0.01, help="sweep: bracket width (default 0.01)")
    s.add_argument("--points", type=int, default=DEFAULT_POINTS, metavar="N",
                   help="sweep: evenly spaced loads from --low to 95%% of saturation after the bisection, "
                        "reusing bisection points near them (default 8; 0 = bisection only)")
    s.add_argument("--no-resume", action="store_true", help="sweep: simulate points again")
    s.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="results file .csv/.json/.parquet (rows are added under a lock; a row of the "
                        "same point is replaced; default: print only)")
    s.set_defaults(handler=simulate_command)

    p = subparsers.add_parser(
        "plot", parents=parents, help="plot latency against offered load from results tables",
        description="Draw one latency/offered-load curve per topology, routing, traffic and simulator "
                    "of the given results tables (reference, BookSim, SST rows alike) on one chart, "
                    "saturation marked; --throughput adds accepted vs offered load.")
    p.add_argument("results", nargs="+", metavar="RESULTS", help="results files (.csv/.json/.parquet)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="chart file .png or .svg")
    p.add_argument("--title", default=None)
    p.add_argument("--log-y", action="store_true", help="logarithmic latency axis")
    p.add_argument("--throughput", action="store_true",
                   help="add a panel of accepted against offered load")
    p.add_argument("--per-file", action="store_true",
                   help="one panel per results file, all on the same axes")
    p.add_argument("--clock-ns", type=float, default=None, metavar="NS",
                   help="cycle length for drawing ns latencies (SST) in cycles (default: the rows' "
                        "recorded clock, else the shared default)")
    p.set_defaults(handler=plot_command)


def _load(args):
    """The routing to simulate: a saved routing folder, or FILE routed with ``--routing``.

    Without ``--seed`` a routing that draws random numbers gets a seed derived from the
    topology's and layout's content, so the same command gives the same routing."""
    from .._digest import layout_digest, seed_from, topology_digest
    from .. import formats
    from ..layout import default_layout
    from ..routing import load_routing, route

    path = Path(args.input)
    if not path.exists():
        raise ParameterError(f"{path} does not exist")
    if path.is_dir():
        return load_routing(path)
    topology, layout = formats.load(path)
    if layout is None:
        layout = default_layout(topology)
    algorithm = args.routing
    extra = {}
    if algorithm is None:  # the family's own routing (sim_defaults.routing_for)
        from ..routing import ALGORITHMS
        from ..sim_defaults import routing_for

        algorithm, base, source = routing_for(topology.name, ALGORITHMS)
        args.routing_default = (topology.name, algorithm, base, source)
        if base is not None:
            extra["base"] = base
    seed = args.seed
    if seed is None:
        seed = seed_from("topogen-simulate-routing", topology_digest(topology), layout_digest(layout),
                         algorithm, args.routing_vcs, *([extra["base"]] if "base" in extra else []))
    if algorithm == "booksim-min":  # BookSim's routes weigh links in cycles of the simulated clock
        extra["clock_period_ns"] = args.clock_ns if args.clock_ns is not None else args.flit_bits / args.link_gbps
    return route(topology, layout, algorithm, vcs=args.routing_vcs, seed=seed, **extra)


def _options(args, routing) -> dict:
    from .config import SimConfig

    d = SimConfig()
    if args.num_vcs is None and routing is None:  # checks before routing: the default count
        num_vcs = d.num_vcs
    elif args.num_vcs is None:
        k = routing.num_vcs
        num_vcs = k * max(1, math.ceil(d.num_vcs / k))
    else:
        num_vcs = args.num_vcs
    buf = args.buffer if args.buffer is not None else max(d.vc_buf_size, args.packet_size)
    return dict(traffic=args.traffic, load_unit=args.load_unit, self_packets=args.self_packets,
                num_vcs=num_vcs, vc_buf_size=buf, packet_size=args.packet_size,
                routing_delay=args.routing_delay, vc_alloc_delay=args.vc_alloc_delay,
                sw_alloc_delay=args.sw_alloc_delay, st_delay=args.st_delay,
                credit_delay=args.credit_delay, internal_speedup=args.internal_speedup,
                link_latency=args.link_latency, clock_ns=args.clock_ns, flit_bits=args.flit_bits,
                link_gbps=args.link_gbps, sample_period=args.sample_period,
                warmup_periods=args.warmup_periods, max_samples=args.max_samples,
                latency_thres=args.latency_thres, deadlock_cycles=args.deadlock_cycles,
                injection=args.injection, latency_at=args.latency_at,
                engine=args.engine, router=args.router, output_buf_size=args.output_buffer,
                vc_alloc=args.vc_alloc, flow_control=args.flow_control)


def _check_options(args) -> None:
    """Apply the simulator's parameter checks before routing or simulating anything (a bad
    ``--link-gbps``, ``--sample-period`` ... is refused with its valid range at once)."""
    from .config import SimConfig

    opts = _options(args, None)
    for key in ("traffic", "load_unit", "self_packets"):
        opts.pop(key)
    SimConfig(**opts)


def _line(row) -> str:
    lat = row["latency_avg"]
    text = f"reference {row['traffic']} load={row['offered_load']:g} {row['load_unit']}: {row['status']}"
    if lat == lat and lat is not None:
        text += f", latency {lat:.4g} cycles, accepted {row['accepted_flit_rate']:.4g} flits/host/cycle"
    elif row.get("message"):
        text += f" ({row['message']})"
    return text


def _defaulted(row: dict, args) -> dict:
    """``row`` with the family default that chose its routing recorded in ``params``
    (``routing_default``: generator and base), when ``--routing`` was not given."""
    chosen = getattr(args, "routing_default", None)
    if chosen is None:
        return row
    import json

    from ..results import make_row

    params = json.loads(row["params"]) if row.get("params") else {}
    params["routing_default"] = {"generator": chosen[0], "base": chosen[2]}
    return dict(row, params=make_row(params=params)["params"])


def _routing_note(args) -> str | None:
    chosen = getattr(args, "routing_default", None)
    if chosen is None:
        return None
    name, algorithm, base, source = chosen
    on = f" on {base} routes" if base else ""
    return (f"routing {algorithm}{on}: the default for {name} ({source}); --routing names another "
            f"(booksim-min: BookSim anynet's own routes)")


def simulate_command(args) -> int:
    """Handler of ``topogen simulate``; returns the exit code.

    Without ``--seed`` the simulation seed is derived from the point's content
    (:func:`topogen.sim.sweep.derive_seed`), so rerunning a command finds its rows.  With
    ``-o`` the file is checked before the simulation and the row is added under a lock; a
    row with the same key (same content, load and seed) is replaced.
    """
    from .. import _progress
    from .._rng import resolve_seed
    from ..output import check_file_output
    from ..results import append_rows, read_rows
    from .measure import simulate
    from .sweep import derive_seed, point_key, sweep, with_digest

    if args.seed is not None:
        args.seed = resolve_seed(args.seed)
    if args.sweep and not args.output:
        raise ParameterError("--sweep needs -o FILE (the sweep writes and resumes from it)")
    if args.sweep:
        from ..load_points import check_points

        check_points(args.points)
    _check_options(args)
    if args.output:  # before the work: a wrong output is refused now, not after simulating
        check_file_output(args.output, inputs=[args.input], make_parents=True)
        if Path(args.output).exists():
            read_rows(args.output)
    with _progress.Progress(desc="routing"):
        routing = _load(args)
    note = _routing_note(args)
    if note:
        print(note)
    opts = _options(args, routing)
    if args.sweep:
        from .._estimate import SweepReport

        report = SweepReport("sweep", args.low, args.high, args.tolerance, args.points)
        print(f"plan: {report.plan}", flush=True)  # before the first point; a line per point follows
        with report:
            res = sweep(routing, args.output, low=args.low, high=args.high, tolerance=args.tolerance,
                        resume=not args.no_resume, seed=args.seed, points=args.points,
                        progress=report.progress, starting=report.starting, **opts)
        for row in res.rows:
            print(_line(row))
        upper = "inf" if math.isinf(res.saturation_upper) else f"{res.saturation_upper:g}"
        print(f"zero-load latency {res.zero_load_latency:.4g} cycles; saturation between "
              f"{res.saturation_load:g} and {upper} ({res.rows[0]['load_unit']}); "
              f"{res.simulated} simulated, {res.reused} reused")
        print(f"results: {args.output}")
        return 0
    seed = args.seed if args.seed is not None else derive_seed(routing, load=args.load, **opts)
    with _progress.Progress(desc=f"simulating load {args.load:g}"):
        row = _defaulted(with_digest(simulate(routing, load=args.load, seed=seed, **opts), routing), args)
    print(_line(row))
    if args.output:
        append_rows(args.output, [row], replace_key=point_key)
        print(f"results: {args.output}")
    return 0


def plot_command(args) -> int:
    """Handler of ``topogen plot``; returns the exit code."""
    from ..output import check_file_output
    from ..results import read_results
    from .plot import plot_latency

    check_file_output(args.output, inputs=args.results, make_parents=True)
    frames = []
    for f in args.results:
        if not Path(f).is_file():
            raise ParameterError(f"results file {f} does not exist")
        frames.append(read_results(f))
    out = plot_latency(frames, args.output, title=args.title, log_y=args.log_y,
                       throughput=args.throughput, per_file=args.per_file, names=args.results,
                       clock_ns=args.clock_ns)
    print(f"plot: {out}")
    return 0
