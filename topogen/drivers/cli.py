"""Command-line pieces for the simulator drivers, wired into ``topogen`` by ``topogen.cli``.

``add_run_parser(subparsers)`` adds ``topogen run booksim|sst ...`` and
``add_results_parser(subparsers)`` adds ``topogen results FILE --format table|csv|parquet``.
Both set ``handler`` on the parsed namespace: ``topogen.cli`` calls ``args.handler(args)``,
which returns the exit code and raises :class:`~topogen.errors.TopogenError` on failure
(the main CLI turns it into a one-line message).

Examples::

    topogen run booksim net.json --out-dir runs/net --traffic uniform --rate 0.05
    topogen run booksim runs/net/torus.cfg --sweep --high 1.0 --tolerance 0.01
    topogen run sst net.json --out-dir runs/sst --load 0.3 --routing fr
    topogen results runs/net/results.csv --format table
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import sim_defaults
from ..errors import ParameterError
from ..routing.names import ALGORITHMS

__all__ = ["add_parsers", "add_run_parser", "add_results_parser", "run_command", "results_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``run`` and ``results`` to the ``topogen`` sub-commands."""
    add_run_parser(subparsers, parents)
    add_results_parser(subparsers, parents)


def add_run_parser(subparsers, parents=()) -> argparse.ArgumentParser:
    """Add ``run`` (with sub-commands ``booksim`` and ``sst``) to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers()``.
    parents : sequence of argparse.ArgumentParser
        Parent parsers with shared options (``--quiet``, ``--debug``), given to every
        new parser.

    Returns
    -------
    argparse.ArgumentParser
        The ``run`` parser.
    """
    parents = list(parents)
    from ..load_points import DEFAULT_LOW, DEFAULT_POINTS
    run = subparsers.add_parser(
        "run", parents=parents, help="run BookSim2 or SST/merlin on a topology and collect results",
        description="Export a topology (or take an exported config/bundle), run the simulator "
                    "with a timeout, keep its raw output and write the parsed results table.")
    sims = run.add_subparsers(dest="simulator", metavar="SIMULATOR")
    sims.required = True

    b = sims.add_parser(
        "booksim", parents=parents, help="run BookSim2 (anynet)",
        description="INPUT is a topology file (.json/.edges/.graphml, exported first) or a BookSim "
                    ".cfg. The binary is --binary, else $TOPOGEN_BOOKSIM, else booksim on PATH.")
    b.add_argument("input", metavar="INPUT", help="topology file or BookSim .cfg")
    b.add_argument("--out-dir", default=None, metavar="DIR",
                   help="where exports, raw logs and results go (default: beside INPUT)")
    b.add_argument("--setup", default="vct33", help="base config template: vct33, slimfly1 or default (default: vct33)")
    b.add_argument("--clock-period", type=float, default=sim_defaults.CYCLE_NS, metavar="NS",
                   help="router clock period in ns for link latencies (default: the shared cycle, "
                        f"{sim_defaults.CYCLE_NS:.4g} = 256 bit / 96 Gbit/s, as topogen simulate)")
    b.add_argument("--traffic", default=None,
                   help="traffic pattern (uniform, bitrev, transpose ...); with a .cfg INPUT passed "
                        "on BookSim's command line, also to every sweep point")
    b.add_argument("--rate", "--load", dest="rate", type=float, default=None, metavar="R",
                   help="injection rate (unit follows the setup: flits/node/cycle for vct33, "
                        "packets/node/cycle for slimfly1 and default); --load is the same option, "
                        "named as in simulate and run sst; not used by --sweep")
    b.add_argument("--seed", default=None, metavar="S",
                   help="BookSim's random seed, 0 to 2**31-1 (the same as --set seed=S; named and parsed "
                        "as in simulate and run sst)")
    b.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra BookSim option, typed as BookSim demands (repeatable; with a .cfg "
                        "INPUT passed on BookSim's command line, also to every sweep point)")
    b.add_argument("--sweep", action="store_true",
                   help="bisect the injection rate: zero-load latency and saturation load")
    b.add_argument("--low", type=float, default=DEFAULT_LOW, help=f"sweep: lowest rate (default {DEFAULT_LOW:g})")
    b.add_argument("--high", type=float, default=1.0, help="sweep: highest rate (default 1.0)")
    b.add_argument("--tolerance", type=float, default=0.01, help="sweep: bracket width (default 0.01)")
    b.add_argument("--points", type=int, default=DEFAULT_POINTS, metavar="N",
                   help="sweep: evenly spaced rates from --low to 95%% of saturation after the bisection, "
                        "reusing bisection points near them (default 8; 0 = bisection only)")
    b.add_argument("--no-resume", action="store_true", help="sweep: re-run points that have results")
    b.add_argument("--timeout", type=float, default=3600.0, metavar="S", help="per-run timeout (default 3600)")
    b.add_argument("--binary", default=None, metavar="PATH", help="BookSim executable")
    b.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="results file (.csv/.json/.parquet; default OUT_DIR/results.csv)")
    b.set_defaults(handler=run_command)

    s = sims.add_parser(
        "sst", parents=parents, help="run SST/merlin (anytopo, source routing)",
        description="INPUT is a topology file (a bundle is exported first) or a topogen SST bundle. "
                    "The binary is --binary, else $TOPOGEN_SST, else sst on PATH.")
    s.add_argument("input", metavar="INPUT", help="topology file or topogen SST bundle (.json)")
    s.add_argument("--out-dir", default=None, metavar="DIR",
                   help="where the bundle, raw logs and results go (default: beside INPUT)")
    s.add_argument("--routing", choices=ALGORITHMS, default=None,
                   help="source routes from topogen's routing (default: the routing the topology family's "
                        "paper simulates, as simulate: hop on a Slim Fly, dor on a torus ...; with "
                        f"--sst-topology table, {sim_defaults.ROUTING}): booksim-min (BookSim anynet's min), nr (nearest), fr (fastest, latency-aware), updown, dor, valiant "
                        "(weighted paths via every intermediate), escape (its minimal routes), hop, "
                        "layered, dsnf, ugal-l (MIN routes + anytopo's UGAL with 4 Valiant candidates; "
                        "ugal-g is not exportable)")
    s.add_argument("--switch-delay", type=float, default=60.0, metavar="NS", help="fr: switch delay (default 60)")
    s.add_argument("--load", default=f"{sim_defaults.LOAD:g}",
                   help="offered load(s), fractions of link bandwidth (= flits/host/cycle), comma-separated "
                        f"(default {sim_defaults.LOAD:g}, as simulate and run booksim)")
    s.add_argument("--traffic", default="uniform",
                   help="uniform, bit_complement or shift:K (bernoulli also tornado, neighbor, table:D0,D1,...)")
    s.add_argument("--generator", choices=("bernoulli", "offered_load"), default="bernoulli",
                   help="endpoints: bernoulli (topogen's topogen.bernoulli_nic, built on first use: Bernoulli "
                        "arrivals, seeded, latency to the tail in cycles, as run booksim and simulate) or "
                        "offered_load (merlin's periodic generator, latency to the head in ns) (default bernoulli)")
    s.add_argument("--seed", default=None, metavar="S",
                   help="bernoulli: run seed (default: derived from the bundle, traffic and load; recorded "
                        "as sim_seed)")
    s.add_argument("--self-packets", action=argparse.BooleanOptionalAction, default=sim_defaults.SELF_PACKETS,
                   help="bernoulli, uniform: the source is a destination too, as run booksim and simulate "
                        "(default %(default)s)")
    s.add_argument("--sst-topology", choices=("anytopo", "table"), default="anytopo",
                   help="the routers' merlin topology: anytopo (merlin.anytopo, source routes, VC = hop "
                        "number) or table (topogen.table_topo: next-hop tables, any of --num-vcs VCs per hop, "
                        "the one with most credits; booksim-min, nr, fr, updown, dor on a mesh; docs/sst.md) (default anytopo)")
    s.add_argument("--num-vcs", type=int, default=None, metavar="N",
                   help=f"--sst-topology table: VCs per hop (default {sim_defaults.NUM_VCS})")
    s.add_argument("--message-size", default=sim_defaults.sst_message_size(),
                   help="bytes per packet (default: the shared packet of "
                        f"{sim_defaults.PACKET_SIZE} flits, {sim_defaults.sst_message_size()})")
    s.add_argument("--warmup", default="10us", help="warm-up per load, not measured (default 10us)")
    s.add_argument("--collect", default="40us", help="measurement time per load (default 40us)")
    s.add_argument("--drain", default="20us", help="pause between loads (default 20us)")
    s.add_argument("--windows", type=int, default=10,
                   help="offered_load: sample windows per collect time, compared to detect saturation (default 10)")
    s.add_argument("--histogram", default=None, metavar="WIDTH_NS,BINS",
                   help="offered_load: also record network-latency histograms in the statistics CSV")
    s.add_argument("--ranks", type=int, default=None,
                   help="MPI ranks of the one SST run (mpirun -np K, or srun with --launcher srun) "
                        "(default $TOPOGEN_SST_RANKS, else 1)")
    s.add_argument("--partitioner", choices=("topogen", "linear", "roundrobin", "simple"), default=None,
                   help="with --ranks K > 1: topogen (METIS: each router with its hosts, few links cut; the "
                        "default) or SST's linear, roundrobin or simple")
    s.add_argument("--launcher", choices=("mpirun", "srun"), default=None,
                   help="how the ranks start: mpirun -np K, or srun --ntasks K inside a SLURM job "
                        "(default $TOPOGEN_SST_LAUNCHER, else mpirun)")
    s.add_argument("--threads", type=int, default=1, help="SST threads per rank")
    s.add_argument("--timeout", type=float, default=3600.0, metavar="S", help="seconds before the SST run is stopped (default 3600)")
    s.add_argument("--binary", default=None, metavar="PATH", help="sst executable")
    s.add_argument("--mpirun", default=None, metavar="PATH", help="mpirun executable")
    s.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="results file (.csv/.json/.parquet; default OUT_DIR/results.csv)")
    s.set_defaults(handler=run_command)
    return run


def add_results_parser(subparsers, parents=()) -> argparse.ArgumentParser:
    """Add ``results FILE --format table|csv|parquet`` to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
    parents : sequence of argparse.ArgumentParser
        Parent parsers with shared options.

    Returns
    -------
    argparse.ArgumentParser
    """
    r = subparsers.add_parser(
        "results", parents=list(parents), help="show or convert a results table",
        description="Read a results file (.csv/.json/.parquet) and print it as a table or CSV, "
                    "or convert it (-o FILE; parquet needs -o).")
    r.add_argument("file", metavar="FILE")
    r.add_argument("--format", choices=("table", "csv", "parquet", "json"), default=None,
                   help="default: table on stdout; with -o, from FILE's extension")
    r.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write here (atomically) instead of stdout; never the input FILE")
    r.add_argument("--all-columns", action="store_true",
                   help="table: show every column as stored (default: the compared columns, "
                        "offered and accepted load in one unit, rows sorted)")
    r.set_defaults(handler=results_command)
    return r


def _parse_set(pairs) -> dict:
    out = {}
    for item in pairs:
        if "=" not in item:
            raise ParameterError(f"--set needs KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        k, v = k.strip(), v.strip()
        from ..export.booksim import BOOKSIM_FIELDS

        kind = BOOKSIM_FIELDS.get(k)
        if kind is int:
            try:
                out[k] = int(v)
            except ValueError:
                raise ParameterError(f"--set {k}: BookSim wants an integer, got {v!r}") from None
            if k == "seed" and not 0 <= out[k] <= BOOKSIM_SEED_MAX:
                raise ParameterError(f"--set seed: BookSim's seed is a C int, 0 to {BOOKSIM_SEED_MAX}; got {v}")
        elif kind is float:
            try:
                out[k] = float(v)
            except ValueError:
                raise ParameterError(f"--set {k}: BookSim wants a number, got {v!r}") from None
        else:
            out[k] = v
    return out


def _load_topology(path):
    from .. import formats
    from ..layout import default_layout

    topology, layout = formats.load(path)
    if layout is None:
        layout = default_layout(topology)
    return topology, layout


def _routing(kind, topology, layout, switch_delay):
    try:
        from .. import routing as r

        nearest, fastest = r.nearest, r.fastest
    except (ImportError, AttributeError):
        from ..routing.paths import fastest, nearest
    if kind == "fr":
        return fastest(layout, switch_delay)
    return nearest(topology, layout)


def _is_sst_bundle(path: Path):
    """Parse a ``.json`` input once, whatever its size, and say which bundle it is.

    Returns ``("sst", bundle dict)``, ``("topology", (topology, layout))`` or None for a
    file that is not JSON by name (edge lists, GraphML); raises FormatError for JSON that is
    neither kind, or an SST bundle that fails validation.
    """
    if path.suffix.lower() != ".json":
        return None
    from ..export.sst import read_any_bundle

    return read_any_bundle(path)


def run_command(args) -> int:
    """Handler of ``topogen run booksim|sst``; returns the exit code.

    Writes the results table to ``--output`` (default ``OUT_DIR/results.csv``, appending
    to an existing one) and prints a one-line summary per row on stdout.  A run that
    crashed, hung, was rejected or ended early still gets its row (status and raw-output
    path) in the table; then :class:`~topogen.errors.SimulatorFailed` is raised, which the
    main CLI prints as one line and turns into a non-zero exit status.
    """
    from ..output import check_file_output
    from ..results import append_rows, read_results
    from .base import FAILURE_STATUSES, simulator_failed

    args.seed = _seed(args.seed)  # the arguments first, before any file or folder is touched
    if args.simulator == "booksim" and args.seed is not None and args.seed > BOOKSIM_SEED_MAX:
        raise ParameterError(f"BookSim's seed is a C int: --seed must be at most {BOOKSIM_SEED_MAX}, "
                             f"got {args.seed}")
    src = Path(args.input)
    if not src.exists():
        raise ParameterError(f"{src} does not exist")
    out_dir = Path(args.out_dir).resolve() if args.out_dir else src.resolve().parent
    output = Path(args.output).resolve() if args.output else out_dir / "results.csv"
    check_file_output(output, inputs=[src], make_parents=True)  # before the work
    if output.exists():
        read_results(output)  # a file that is not a results table is refused now, not after the run
    if args.simulator == "sst":  # what topogen.table_topo refuses by name, before any folder or export
        from .sst_table import check_routing_name

        check_routing_name(args.sst_topology, args.routing, args.num_vcs)
    if args.simulator == "booksim":  # each creates out_dir itself, after its own early refusals
        rows, summary = _run_booksim(args, src, out_dir)
    else:
        rows, summary = _run_sst(args, src, out_dir)
    # rows of points simulated again (a resumed sweep returns all its points, recognised by
    # their raw-output path) replace the earlier ones; the merge is locked (concurrent runs)
    append_rows(output, rows, replace_key=("raw_output",))
    failed = [r for r in rows if r["status"] in FAILURE_STATUSES]
    for row in rows:
        if row["status"] in FAILURE_STATUSES:
            continue
        lat = row["latency_avg"]
        print(f"{row['simulator']} {row['traffic']} load={row['offered_load']:g}: {row['status']}"
              + ("" if lat != lat else f", latency {lat:.4g} {row['latency_unit']}")
              + f"  (raw: {row['raw_output']})")
    if failed:
        r = failed[0]
        raise simulator_failed(r["simulator"], r["status"], r["message"], r["raw_output"], r)
    if summary:
        print(summary)
    print(f"results: {output}")
    return 0


def _run_booksim(args, src: Path, out_dir: Path):
    """Export (if INPUT is a topology) and run one point or a sweep; returns (rows, summary).

    Everything that can be refused is checked before anything is written.  Exports get
    content-named files (``torus-<digest>.cfg``), so concurrent runs into one folder never
    share a configuration, and logs are claimed exclusively.  If the run fails before the
    simulator starts, the folders and export files this run created are removed again.
    """
    import os

    from ..export.booksim import export_booksim
    from .base import fresh_path
    from .booksim import _override_args, check_options, find_booksim, run_booksim
    from .booksim_sweep import check_sweep, sweep_booksim, sweep_folder_name

    seed = args.seed  # parsed and range-checked by run_command
    if not args.sweep and args.rate is not None:
        _check_rate(args.rate)
    find_booksim(args.binary)  # fail in one line before any export work
    if args.timeout is not None and not args.timeout > 0:
        raise ParameterError(f"--timeout must be > 0 seconds, got {args.timeout:g}")
    options = _parse_set(args.set)
    check_options(options, "--set")
    if seed is not None:
        if "seed" in options and options["seed"] != seed:
            raise ParameterError(f"--seed {seed} and --set seed={options['seed']} disagree: give one of them")
        options["seed"] = seed
    if args.traffic:
        options["traffic"] = args.traffic
    rate = None if args.sweep else args.rate  # a sweep sets the rate of every point itself
    is_config = src.suffix.lower() == ".cfg"
    overrides = dict(options) if is_config else {}
    if is_config and rate is not None:
        overrides["injection_rate"] = rate
    if args.sweep:
        check_sweep(args.low, args.high, args.tolerance, overrides=overrides, points=args.points)
    else:
        _override_args(overrides)
    created_dirs = [p for p in (out_dir, *out_dir.parents) if not p.exists()]
    before = set(os.listdir(out_dir)) if out_dir.is_dir() else set()
    new_files: list[Path] = []
    try:
        if is_config:
            config = src.resolve()
        else:
            topology, layout = _load_topology(src)
            if rate is not None:
                options["injection_rate"] = rate
            exp = export_booksim(out_dir, topology, layout, setup=args.setup,
                                 clock_period_ns=args.clock_period, options=options, content_stem=True)
            config = exp.config_file
            new_files = [p for p in (exp.network_file, exp.meta_file, exp.config_file) if p.name not in before]
        if not args.sweep:
            tag = "" if rate is None else f".rate_{rate:g}"
            log = fresh_path(out_dir / f"{config.stem}{tag}.log", claim=True)
    except BaseException:
        for path in new_files:
            path.unlink(missing_ok=True)
        for folder in created_dirs:  # deepest first; only if still empty
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    if args.sweep:
        from .._estimate import SweepReport

        # what runs, at once: the config, the plan, then a line per point (a bar on a terminal)
        report = SweepReport("booksim sweep", args.low, args.high, args.tolerance, args.points)
        print(f"config: {config}\nplan: {report.plan}", flush=True)
        with report:
            res = sweep_booksim(config, out_dir / sweep_folder_name(config, overrides), low=args.low,
                                high=args.high, tolerance=args.tolerance, timeout=args.timeout,
                                binary=args.binary, resume=not args.no_resume, progress=report.progress,
                                starting=report.starting, overrides=overrides, points=args.points)
        summary = (f"zero-load latency {res.zero_load_latency:.4g} cycles; saturation between "
                   f"{res.saturation_load:g} and {res.saturation_upper:g} ({res.rows[0]['load_unit']})"
                   f"; config: {config}")
        return res.rows, summary
    # what runs, at once (the run may take minutes), then progress from BookSim's output
    # on stderr (a status line on a terminal, a plain line a minute otherwise)
    print(f"config: {config}\nraw output: {log}", flush=True)
    row = run_booksim(config, overrides=overrides, timeout=args.timeout, binary=args.binary,
                      log_path=log, raise_on_failure=False, progress=True)
    return [row], None


def _check_rate(rate: float) -> None:
    """``run booksim --rate``: an injection rate per node and cycle, 0 < R <= 1.

    Raises
    ------
    ParameterError
    """
    import math

    if not (math.isfinite(rate) and 0 < rate <= 1):
        raise ParameterError(f"--rate {rate:g} is out of range: the injection rate is per node and cycle "
                             "(flits for the vct33 setup, packets for slimfly1 and default), 0 < R <= 1; "
                             "BookSim refuses a larger one")


def _run_sst(args, src: Path, out_dir: Path):
    from .sst import find_mpirun, find_sst, run_sst

    seed = args.seed  # parsed by run_command
    find_sst(args.binary)  # fail in one line before any export work
    from .sst_process import default_ranks

    ranks, launcher = default_ranks(args.ranks, args.launcher)
    if ranks > 1 and launcher == "mpirun":
        find_mpirun(args.mpirun)
    try:
        loads = [float(x) for x in str(args.load).split(",") if x.strip()]
    except ValueError:
        raise ParameterError(f"--load needs numbers such as 0.3 or 0.1,0.5; got {args.load!r}") from None
    histogram = None
    if args.histogram:
        try:
            w, n = args.histogram.split(",")
            histogram = (float(w), int(n))
        except ValueError:
            raise ParameterError(f"--histogram needs WIDTH_NS,BINS such as 50,40; got {args.histogram!r}") from None
    if args.generator == "offered_load" and seed is not None:
        raise ParameterError("--seed applies to --generator bernoulli: merlin.offered_load takes no seed")
    if args.generator == "bernoulli" and histogram is not None:
        raise ParameterError("--histogram records merlin's network-latency statistics: add --generator offered_load")
    parsed = _is_sst_bundle(src)
    routing = None
    if parsed is None or parsed[0] != "sst":
        if parsed is None:
            topology, layout = _load_topology(src)
        else:
            from ..layout import default_layout

            topology, layout = parsed[1]
            layout = layout if layout is not None else default_layout(topology)
        base = None
        if args.routing is None:  # the family's own routing; the table topology takes BookSim's
            args.routing, base, source = (sim_defaults.routing_for(topology.name, ALGORITHMS)
                                          if args.sst_topology == "anytopo" else (sim_defaults.ROUTING, None, ""))
            if source:
                print(f"routing {args.routing}{f' on {base} routes' if base else ''}: the default for "
                      f"{topology.name} ({source}); --routing names another", flush=True)
        if args.routing in ("nr", "fr"):
            routing = _routing(args.routing, topology, layout, args.switch_delay)
        else:
            from ..routing import route

            routing = route(topology, layout, args.routing, switch_delay=args.switch_delay,
                            **({"base": base} if base else {}))
        if args.sst_topology == "table":  # a routing refused for its VC rule, before the export
            from ..export.sst import effective_vc_rule
            from .sst_table import check_routing_name

            check_routing_name("table", args.routing, None, effective_vc_rule(routing) or "none")
    out_dir.mkdir(parents=True, exist_ok=True)
    if routing is None:
        bundle = src.resolve()
    else:
        bundle = _fresh_bundle(out_dir / f"{src.stem}.sst.json", topology, layout, routing,
                               routes=_route_form(args.sst_topology, routing))
    print(f"bundle: {bundle}", flush=True)  # at once; each load's raw log is on its results line
    rows = run_sst(bundle, load=loads, traffic=args.traffic, message_size=args.message_size,
                   warmup=args.warmup, collect=args.collect, drain=args.drain, windows=args.windows,
                   out_dir=out_dir, histogram=histogram, ranks=args.ranks, threads=args.threads,
                   timeout=args.timeout, binary=args.binary, mpirun=args.mpirun, raise_on_failure=False,
                   generator=args.generator, seed=seed, self_packets=args.self_packets,
                   sst_topology=args.sst_topology, num_vcs=args.num_vcs, progress=True,
                   partitioner=args.partitioner, launcher=args.launcher)
    return rows, None


def _route_form(sst_topology: str, routing) -> str:
    """``next_hops`` (a matrix of ports beside the JSON, ``docs/sst.md``) for the table
    topology when the routing has one next hop per destination and constant VCs, else
    ``full`` (source routes; the table topology then checks and names what it refuses)."""
    if sst_topology != "table":
        return "full"
    from ..errors import RoutingError
    from ..export.sst import effective_vc_rule
    from ..export.sst_tables import next_hop_table

    try:
        next_hop_table(routing)
    except RoutingError:
        return "full"
    return "next_hops" if effective_vc_rule(routing) == "const" else "full"


def _fresh_bundle(target: Path, topology, layout, routing, routes: str = "full") -> Path:
    """Export the SST bundle to ``target`` without replacing any bundle there: a bundle of
    the same bytes (``target`` or one of its ``<stem>.1.json`` ... siblings) is used as it
    is; other bytes (another routing, topology or version) get the next free name, since
    earlier rows name the bundles they ran.  The name is claimed exclusively, so
    concurrent runs never write over each other."""
    import filecmp

    from ..export.sst import write_bundle
    from .base import fresh_path, numbered

    from ..export.sst import next_hop_path

    new = write_bundle(fresh_path(target, claim=True), topology, layout, routing, routes=routes)
    for old in numbered(target.resolve()):
        if old == new:
            continue
        if not old.exists():
            return new
        if filecmp.cmp(new, old, shallow=False):  # a next-hop bundle's JSON holds its matrix's SHA-256
            new.unlink()  # the file this call just made: the same bundle is there
            next_hop_path(new).unlink(missing_ok=True)
            return old


#: BookSim reads its ``seed`` into a C ``int`` (``atoi``): a larger one would be cut silently.
BOOKSIM_SEED_MAX = 2**31 - 1


def _seed(text):
    """``--seed`` of ``run booksim`` and ``run sst``: parsed as ``simulate`` and ``generate``
    parse theirs (:func:`topogen._rng.resolve_seed`, one message for a bad one); None stays
    None (each simulator then derives or defaults its seed).

    Raises
    ------
    ParameterError
        Not an integer in [0, 2**63-1].
    """
    from .._rng import resolve_seed

    return None if text is None else resolve_seed(text)


_EXT_FORMATS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


def results_command(args) -> int:
    """Handler of ``topogen results``; returns the exit code.

    With ``-o FILE`` the format follows FILE's extension (``.csv``, ``.json``,
    ``.parquet``; any other extension gets the text table) unless ``--format`` names one;
    a ``--format`` that contradicts a data extension is refused.  FILE is written
    atomically and may not be the input.
    """
    from ..output import atomic_write_text, check_file_output
    from ..results import read_results, write_results

    fmt = args.format
    if args.output:
        check_file_output(args.output, inputs=[args.file], make_parents=True)
        ext_fmt = _EXT_FORMATS.get(Path(args.output).suffix.lower())
        if fmt is None:
            fmt = ext_fmt or "table"
        elif ext_fmt is not None and fmt != ext_fmt:
            raise ParameterError(f"--format {fmt} does not match {args.output} ({ext_fmt}); "
                                 f"drop --format or name the file .{'txt' if fmt == 'table' else fmt}")
    elif fmt == "parquet":
        raise ParameterError("--format parquet needs -o FILE.parquet (binary output)")
    fmt = fmt or "table"
    frame = read_results(args.file)
    if args.output:
        if fmt == "table":
            atomic_write_text(args.output, _table(frame, args.all_columns))
        else:
            write_results(args.output, frame, format=fmt)
        return 0
    if fmt == "csv":
        sys.stdout.write(frame.to_csv(index=False, lineterminator="\n"))
    elif fmt == "json":
        sys.stdout.write(json.dumps(json.loads(frame.to_json(orient="records")), indent=1) + "\n")
    else:
        sys.stdout.write(_table(frame, args.all_columns))
    return 0


def _table(frame, all_columns: bool) -> str:
    """The text table: every column as stored with ``--all-columns``, else
    :func:`topogen.results.display_frame` (offered and accepted in one unit, sorted)."""
    from ..results import display_frame

    shown = frame if all_columns else display_frame(frame)
    return shown.to_string(index=False, na_rep="-") + "\n"
