"""``topogen layout cluster|anneal``: constrained shortcutting's clustering and mapping.

Examples::

    topogen generate nbr --num_switches 1024 --degree 10 --p 0.5 --seed 1 -o nbr.json
    topogen layout cluster nbr.json --switches-per-cabinet 16 --seed 1 -o nbr-walk.json
    topogen layout anneal nbr-walk.json --iterations 1000000 --seed 1 -o nbr-sa.json

``cluster`` groups the switches into cabinets (size-capped Walktrap, or the sequential
baseline) and puts the groups on the floor in serpentine order; ``anneal`` keeps every
cabinet's switches together and moves the cabinets by simulated annealing.  Both read a
topology file (.json, .edges, .graphml), write it again with the new layout (the format
follows OUT's extension), and print the inter-cabinet links and the average and total
cable length before and after.  OUT is never replaced without ``--force``, and is
written under a temporary name then renamed.  See docs/layout.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import OutputError, ParameterError

__all__ = ["add_parsers", "cluster_command", "anneal_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``layout`` (with ``cluster`` and ``anneal``) to the ``topogen`` sub-commands."""
    from .._validate import int_option
    from .names import CLUSTERINGS, MAX_ANNEAL_ITERATIONS, MAX_CABINETS, MAX_WALK_STEPS

    top = subparsers.add_parser(
        "layout", parents=list(parents),
        help="cluster switches into cabinets (Walktrap) or anneal the cabinet mapping",
        description="Steps 2 and 3 of constrained shortcutting (Koibuchi et al. IV-C, IV-D) on "
                    "a topology file. See docs/layout.md.")
    sub = top.add_subparsers(dest="layout_command", metavar="STEP")
    top.set_defaults(handler=_no_step)

    def common(p):
        p.add_argument("input", metavar="FILE", help="topology file (.json, .edges, .graphml)")
        p.add_argument("-o", "--output", required=True, metavar="OUT",
                       help="topology file with the new layout (format from the extension)")
        p.add_argument("--force", action="store_true", help="replace OUT if it exists")
        p.add_argument("--seed", default=None, metavar="S",
                       help="seed of every random choice (default: drawn and printed)")
        g = p.add_argument_group("floor")
        g.add_argument("--switches-per-cabinet", "--switches_per_cabinet", dest="switches_per_cabinet",
                       type=int_option(1), metavar="Z",
                       help="cabinet size (default: FILE's layout, else the default floor; "
                            "the paper uses 16)")
        g.add_argument("--cabinets", type=int_option(1, MAX_CABINETS, "cabinets of one floor"), metavar="C",
                       help="number of cabinets (default: as needed)")

    c = sub.add_parser("cluster", parents=list(parents),
                       help="group switches into cabinets, groups placed serpentine",
                       description="Group the switches of FILE into cabinets with size-capped "
                                   "Walktrap (or the sequential baseline) and place the groups on "
                                   "the floor in serpentine order (IV-C, IV-D baseline).")
    common(c)
    c.add_argument("--method", choices=CLUSTERINGS, default="walktrap",
                   help="clustering (default walktrap)")
    c.add_argument("--steps", type=int_option(1, MAX_WALK_STEPS, "each step is a pass over every link"),
                   default=4, metavar="T",
                   help="random-walk length of Walktrap (default 4)")
    c.set_defaults(handler=cluster_command)

    a = sub.add_parser("anneal", parents=list(parents),
                       help="move whole cabinets by simulated annealing to shorten the cables",
                       description="Keep the switches of each cabinet together and move the "
                                   "cabinets on the floor by simulated annealing (IV-D), starting "
                                   "from FILE's layout (or from --clusters, placed serpentine).")
    common(a)
    a.add_argument("--clusters", choices=("keep",) + CLUSTERINGS, default=None,
                   help="cabinets to move: keep FILE's layout (default when FILE has one on "
                        "the chosen floor), or cluster first (default walktrap otherwise)")
    a.add_argument("--iterations", type=int_option(0, MAX_ANNEAL_ITERATIONS, "the paper runs 10^8"),
                   default=10**6, metavar="N",
                   help="moves per trial (default 10^6; the paper runs 10^8)")
    a.add_argument("--restarts", type=int_option(1, 1000, "each is a whole annealing"), default=1, metavar="R",
                   help="independent trials, best kept (default 1; the paper keeps the best of 5)")
    a.set_defaults(handler=anneal_command)


def _no_step(args) -> int:
    raise ParameterError("choose a step: `topogen layout cluster FILE -o OUT` or "
                         "`topogen layout anneal FILE -o OUT`")


def _prepare(args):
    """Check OUT before the work, read FILE; return (topology, layout or None, floor, seed)."""
    from .._rng import resolve_seed
    from .. import formats
    from ..output import check_file_output
    from .floor import Floor
    from .placement import default_floor

    src = Path(args.input)
    if not src.exists():
        raise ParameterError(f"{src} does not exist; give a topology file (topogen generate ... -o FILE)")
    formats.format_of(args.output)
    check_file_output(args.output, inputs=[args.input])
    if os.path.lexists(args.output) and not args.force:
        raise OutputError(f"{args.output} exists; name a new file or pass --force to replace it")
    topology, layout = formats.load(src)
    z, c = args.switches_per_cabinet, args.cabinets
    if z is None and c is None and layout is not None:
        floor = layout.floor
    elif z is None and layout is not None:
        floor = Floor.skywalk(c, layout.floor.switches_per_cabinet)
    else:
        floor = default_floor(topology, switches_per_cabinet=z, cabinets=c)
    if topology.num_switches > floor.capacity:
        raise ParameterError(
            f"{topology.num_switches} switches do not fit in {floor.cabinets} cabinets of "
            f"{floor.switches_per_cabinet}; use at least "
            f"{-(-topology.num_switches // floor.switches_per_cabinet)} cabinets")
    return topology, layout, floor, resolve_seed(args.seed)


def _before(topology, layout, floor):
    """The layout the figures are compared with: FILE's if it is on ``floor``, else the
    sequential placement on ``floor`` (the paper's baseline)."""
    from .placement import place

    if layout is not None and layout.floor == floor:
        return layout, f"input ({layout.placement})"
    return place(topology, floor, "sequential"), "sequential placement"


def _report(rows, seed, out) -> None:
    from .pipeline import layout_figures

    print(f"{'layout':<34} {'inter-cabinet links':>19} {'avg cable (m)':>13} {'total cable (m)':>15}")
    figs = []
    for label, lay in rows:
        f = layout_figures(lay)
        figs.append(f)
        print(f"{label:<34} {f.inter_cabinet_links:>19,} {f.average_cable:>13.3f} {f.total_cable:>15,.1f}")
    a, b = figs[0], figs[-1]
    if len(figs) > 1:
        def pct(x, y):
            return f"{100.0 * (y - x) / x:+.1f} %" if x else "n/a"

        print(f"{'change':<34} {pct(a.inter_cabinet_links, b.inter_cabinet_links):>19} "
              f"{pct(a.average_cable, b.average_cable):>13} {pct(a.total_cable, b.total_cable):>15}")
    lay = rows[-1][1]
    print(f"seed {seed}; {lay.topology.num_switches} switches, {lay.topology.num_links} links, "
          f"{lay.floor.cabinets} cabinets x {lay.floor.switches_per_cabinet}; wrote {out}")


def _save(args, topology, layout) -> None:
    from .. import formats

    formats.save(args.output, topology, layout)


def cluster_command(args) -> int:
    """Handler of ``topogen layout cluster``."""
    from .. import _progress
    from .pipeline import cluster_layout

    topology, layout, floor, seed = _prepare(args)
    before, label = _before(topology, layout, floor)
    with _progress.Progress(desc=f"{args.method} clustering of {topology.num_switches:,} switches"):
        new = cluster_layout(topology, floor, args.method, steps=args.steps, seed=seed)
    _save(args, topology, new)
    _report([(label, before), (f"{args.method} + serpentine", new)], seed, args.output)
    return 0


def anneal_command(args) -> int:
    """Handler of ``topogen layout anneal``."""
    from .. import _progress
    from .pipeline import anneal_layout, cluster_layout

    topology, layout, floor, seed = _prepare(args)
    same_floor = layout is not None and layout.floor == floor
    clusters = args.clusters or ("keep" if same_floor else "walktrap")
    rows = []
    if clusters == "keep":
        if layout is None:
            raise ParameterError(f"{args.input} has no layout to keep; use --clusters walktrap "
                                 "or --clusters sequential")
        if not same_floor:
            raise ParameterError("--clusters keep moves FILE's cabinets on FILE's floor; drop "
                                 "--switches-per-cabinet/--cabinets or choose --clusters walktrap")
        start = layout
        rows.append((f"input ({layout.placement})", start))
    else:
        before, label = _before(topology, layout, floor)
        rows.append((label, before))
        with _progress.Progress(desc=f"{clusters} clustering"):
            start = cluster_layout(topology, floor, clusters, seed=seed)
        rows.append((f"{clusters} + serpentine", start))
    total = args.iterations * args.restarts
    with _progress.Progress(total=total or None, desc="annealing") as bar:
        def report(done, _total):
            bar.count = done
            bar.update(0)

        new = anneal_layout(start, iterations=args.iterations, restarts=args.restarts, seed=seed,
                            progress=report)
    _save(args, topology, new)
    rows.append((f"annealed ({args.iterations:,} x {args.restarts})", new))
    _report(rows, seed, args.output)
    return 0

