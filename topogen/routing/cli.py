"""The ``route`` and ``check-deadlock`` sub-commands (wired into ``topogen`` by
:mod:`topogen.cli`).

``topogen route FILE --algorithm nr|fr|booksim-min|updown|dor|valiant|escape|hop|layered|dsnf|ugal-l|ugal-g --vcs K -o DIR``
    Reads FILE (:func:`topogen.formats.load`), computes the routing and writes
    ``DIR``: the saved routing (``routing.json`` + ``.npy`` arrays + ``topology.json``,
    loadable with :func:`topogen.routing.load_routing`) and the per-switch table
    ``table.csv`` (or ``table.json``; ``--table auto``, the default, writes it only up to
    ``AUTO_TABLE_MAX_SWITCHES`` switches since it has N^2 rows); with ``--booksim-table`` also
    ``booksim_table.txt`` (+ ``.json`` provenance), with ``--sst-routes`` also
    ``sst_routes.txt`` (see :mod:`topogen.routing.export`).  The folder is first written
    under a temporary name next to DIR and renamed when complete; an existing non-empty DIR
    is refused unless ``--force`` (which replaces it), see :mod:`topogen.output`.

``topogen check-deadlock DIR``
    Loads the routing, builds its channel dependency graph and prints the verdict, the
    VCs used and a cycle if there is one; exit status 0 when acyclic, 1 when cyclic.

The handlers return exit codes and raise :class:`topogen.errors.TopogenError` on bad
input; the main CLI turns those into messages.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .names import ALGORITHMS as _ALGS

__all__ = ["add_parsers", "add_route_parser", "add_check_parser", "run_route", "run_check"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``route`` and ``check-deadlock`` to the ``topogen`` sub-commands."""
    add_route_parser(subparsers, parents)
    add_check_parser(subparsers, parents)


def add_route_parser(subparsers, parents=()) -> argparse.ArgumentParser:
    """Add ``route`` to an argparse sub-parsers object; handler in ``func``."""
    from .._validate import int_option

    p = subparsers.add_parser(
        "route", parents=list(parents), help="compute a routing and write its tables",
        description="Compute a routing of the topology in FILE and write it to DIR "
                    "(routing.json + arrays + table).")
    p.add_argument("file", metavar="FILE", help="topology file (.json bundle, edge list, .graphml)")
    p.add_argument("--algorithm", "-a", choices=_ALGS, default="nr")
    p.add_argument("--vcs", type=int_option(1), metavar="K",
                   help="VCs (escape: total, default 4; dor/hop/valiant/ugal-*: at least the minimum; "
                        "layered: maximum layers; dsnf: hop-indexed, default the longest route, "
                        "1 = the single-VC routing of the paper)")
    p.add_argument("--base", choices=("nr", "fr", "booksim-min", "updown"),
                   help="base routing of hop/layered/valiant/ugal-*/escape (default fr with a layout, "
                        "else nr)")
    p.add_argument("--candidates", type=int_option(1), default=4, metavar="K",
                   help="ugal-l/ugal-g: random Valiant paths compared with MIN per packet "
                        "(default 4, as the Slim Fly paper)")
    p.add_argument("--ugal-threshold", dest="ugal_threshold", type=int_option(0), default=0, metavar="FLITS",
                   help="ugal-l/ugal-g: flits added to the cost of every Valiant candidate (default 0, the "
                        "rule as the Slim Fly paper prints it; docs/sim.md)")
    p.add_argument("--ugal-count-packet", dest="ugal_count_packet", action="store_true",
                   help="ugal-l/ugal-g: count the packet's own flits in every queue compared (default: not, "
                        "the printed rule)")
    p.add_argument("--vc-ranges", dest="vc_ranges", action="store_true",
                   help="valiant/ugal-l/ugal-g: hop h of an n-hop path may use a block of the VC classes "
                        "(floor(h C/n) .. floor((h+1) C/n) - 1), not VC h alone (default: VC h; docs/sim.md)")
    p.add_argument("--switch-delay", dest="switch_delay", type=float, default=60.0, metavar="NS")
    p.add_argument("--clock-period", dest="clock_period", type=float, default=None, metavar="NS",
                   help="booksim-min: router clock period giving link latencies in cycles, as "
                        "`topogen run booksim --clock-period` (default: the shared 2.667 ns)")
    p.add_argument("--root", type=int, help="up*/down* root switch (default: minimum eccentricity)")
    p.add_argument("--seed", help="seed of valiant/ugal routing and of --ties random")
    p.add_argument("--ties", choices=("spread", "lowest", "random"), default="spread",
                   help="nr/fr tie rule among equal-cost next hops: spread (default: a uniform "
                        "choice per switch and destination from a hash of --ties-seed, the same "
                        "on every run), lowest neighbour id (piles uniform traffic onto few "
                        "links), or random (drawn from --seed)")
    p.add_argument("--ties-seed", dest="ties_seed", type=int, default=None, metavar="S",
                   help="seed of --ties spread (default 0)")
    p.add_argument("--table", choices=("auto", "csv", "json", "none"), default="auto",
                   help="per-switch table written into DIR: N^2 rows, so 'auto' (default) "
                        f"writes csv up to {AUTO_TABLE_MAX_SWITCHES} switches and none above")
    p.add_argument("--booksim-table", dest="booksim_table", action="store_true",
                   help="also write booksim_table.txt (routing_table_file of BookSim forks "
                        "that load tables) and its booksim_table.txt.json provenance")
    p.add_argument("--sst-routes", dest="sst_routes", action="store_true",
                   help="also write sst_routes.txt: the SST anytopo routing_entry_string of "
                        "every router")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="output folder: new or empty (see --force)")
    p.add_argument("--force", action="store_true",
                   help="replace DIR even if it is not empty (everything in it is deleted)")
    p.set_defaults(func=run_route, handler=run_route)
    return p


def add_check_parser(subparsers, parents=()) -> argparse.ArgumentParser:
    """Add ``check-deadlock`` to an argparse sub-parsers object; handler in ``func``."""
    p = subparsers.add_parser(
        "check-deadlock", parents=list(parents),
        help="check a saved routing for channel-dependency cycles",
        description="Build the channel dependency graph of the routing in DIR; exit 1 if cyclic.")
    p.add_argument("directory", metavar="DIR")
    p.set_defaults(func=run_check, handler=run_check)
    return p


#: ``--table auto`` writes the per-switch table (N^2 rows) up to this many switches.
AUTO_TABLE_MAX_SWITCHES = 1024


def run_route(args) -> int:
    from ..formats import load
    from ..output import check_dir_output, clean_stale_temps, output_dir
    from . import route
    from .export import write_booksim_table, write_sst_routes, write_table

    force = getattr(args, "force", False)
    check_dir_output(args.output, inputs=[args.file], force=force)  # before the work
    for left in clean_stale_temps(args.output):  # the half-written folder of a killed run
        if not getattr(args, "quiet", False):
            print(f"topogen: removed {left}, left by an earlier run of {args.output} that did not finish",
                  file=sys.stderr)
    from .. import _progress

    topology, layout = load(args.file)
    kw = dict(vcs=args.vcs, seed=args.seed, switch_delay=args.switch_delay, base=args.base,
              root=args.root, ties=getattr(args, "ties", "spread"),
              ties_seed=getattr(args, "ties_seed", None),
              clock_period_ns=getattr(args, "clock_period", None))
    if args.algorithm in ("ugal-l", "ugal-g"):
        kw["candidates"] = getattr(args, "candidates", 4)
        kw["ugal_threshold"] = getattr(args, "ugal_threshold", 0)
        kw["ugal_count_packet"] = getattr(args, "ugal_count_packet", False)
    if args.algorithm in ("ugal-l", "ugal-g", "valiant") and getattr(args, "vc_ranges", False):
        kw["vc_ranges"] = True
    # nr/fr tables are streamed into the new folder as they are computed (bounded memory)
    stream = args.algorithm in ("nr", "fr")
    desc = f"{args.algorithm} routing of {topology.num_switches:,} switches"
    if not stream:
        with _progress.Progress(desc=desc):
            routing = route(topology, layout, args.algorithm, **kw)
    out = Path(args.output)
    with output_dir(out, inputs=[args.file], force=force, last=("routing.json",)) as tmp:
        if stream:
            with _progress.Progress(desc=desc):
                routing = route(topology, layout, args.algorithm, ranks_file=tmp / "ranks.npy", **kw)
        with _progress.Progress(desc=f"writing {out}"):
            table = args.table
            if table == "auto":
                table = "csv" if topology.num_switches <= AUTO_TABLE_MAX_SWITCHES else "none"
                if table == "none" and not getattr(args, "quiet", False):
                    print(f"topogen: no per-switch table for {topology.num_switches} switches "
                          f"({topology.num_switches ** 2:,} rows); --table csv|json writes one",
                          file=sys.stderr)
            if table != "none" and args.algorithm != "valiant" and not args.algorithm.startswith("merlin-"):
                # UGAL: the MIN table each source switch consults (VAL segments use it too)
                write_table(getattr(routing, "base", routing) if args.algorithm.startswith("ugal")
                            else routing, tmp / f"table.{table}")
            if getattr(args, "booksim_table", False):
                write_booksim_table(routing, tmp / "booksim_table.txt")
            if getattr(args, "sst_routes", False):
                write_sst_routes(routing, tmp / "sst_routes.txt")
            routing.save(tmp)
    if not getattr(args, "quiet", False):
        print(f"{routing.algorithm} routing of {topology.num_switches} switches, "
              f"{routing.num_vcs} VC(s) -> {out}", file=sys.stdout)
    return 0


def run_check(args) -> int:
    from .saved import load_routing
    from .deadlock import check

    from .. import _progress

    routing = load_routing(args.directory)
    with _progress.Progress(desc="checking the channel dependency graph"):
        report = check(routing)
    print(report.summary())
    return 0 if report.acyclic else 1
