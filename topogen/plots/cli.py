"""``topogen draw``: the floor plan of a topology file, optionally with channel loads.

Examples::

    topogen draw skywalk.json -o floor.png
    topogen draw skywalk.json -o floor.svg --color length
    topogen draw cube.json --load --routing nr --ties lowest -o load.png
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ParameterError

__all__ = ["add_parsers", "draw_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``draw`` to the ``topogen`` sub-commands."""
    from ..sim.traffic import PATTERNS
    from .floor import COLOR_BY

    d = subparsers.add_parser(
        "draw", parents=list(parents), help="draw the floor plan: cabinets, switches, cables, channel loads",
        description="Draw FILE's layout (a topology file, laid out on its default floor if it has "
                    "no layout, or a routing folder written by `topogen route`): cabinets on their "
                    "grid with their switches and every cable as a Manhattan route, coloured by kind "
                    "or length, with the cable totals. --load draws the expected load of every channel "
                    "under a routing and traffic pattern instead, names the busiest channel and adds a "
                    "histogram. See docs/draw.md.")
    d.add_argument("input", metavar="FILE", help="topology file (.json/.edges/.graphml) or routing folder")
    d.add_argument("-o", "--output", required=True, metavar="FILE", help="picture .png, .svg or .pdf")
    d.add_argument("--color", choices=COLOR_BY, default="kind",
                   help="cable colour: the topology's link kinds (default), floor classes "
                        "(intra/straight/diagonal), length, or load")
    d.add_argument("--bundle", choices=("auto", "yes", "no"), default="auto",
                   help="one bundle per cabinet pair instead of one line per cable (auto: large networks)")
    d.add_argument("--title", default=None)
    d.add_argument("--size", default=None, metavar="WxH",
                   help="figure size in inches, e.g. 24x10 (default: grows with the network, "
                        "9 inches wide up to 64 switches, 18 at 256)")
    d.add_argument("--dpi", type=float, default=None, metavar="N",
                   help="pixels per inch of a PNG (default 150)")
    d.add_argument("--load", action="store_true",
                   help="expected channel loads of --routing under --traffic, on the floor and as a histogram")
    d.add_argument("--routing", default=None, help="routing when FILE is a topology (default nr)")
    d.add_argument("--ties", choices=("spread", "lowest", "random"), default=None,
                   help="tie rule of nr/fr tables (default spread)")
    d.add_argument("--vcs", type=int, default=None, metavar="K", help="VCs given to the routing")
    d.add_argument("--traffic", default="uniform", help=f"pattern for --load: {', '.join(PATTERNS)} (default uniform)")
    d.add_argument("--measured", type=float, default=None, metavar="LOAD",
                   help="with --load: the loads the reference simulator measures at this offered load "
                        "(flits/node/cycle, shared simulator defaults) instead of the expected ones")
    d.add_argument("--seed", default=None,
                   help="seed of random routings, random ties and randperm/worstcase traffic (default 0)")
    d.set_defaults(handler=draw_command)


def draw_command(args) -> int:
    """Handler of ``topogen draw``; returns the exit code."""
    from .. import _progress
    from .. import formats
    from ..layout import default_layout
    from ..output import check_file_output
    from ..sim.traffic import PATTERNS

    path = Path(args.input)
    if not path.exists():
        raise ParameterError(f"{path} does not exist")
    check_file_output(args.output, inputs=[args.input], make_parents=True)
    if Path(args.output).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"drawing output must end in .png, .svg or .pdf, got {args.output}")
    if args.traffic not in PATTERNS and args.load:
        raise ParameterError(f"--traffic must be one of {', '.join(PATTERNS)}, got {args.traffic!r}")
    if args.measured is not None and not args.load:
        raise ParameterError("--measured needs --load")
    if args.measured is not None and not 0 < args.measured <= 1:
        raise ParameterError(f"--measured is an offered load in (0, 1] flits/node/cycle, got {args.measured:g}")
    from .floor import parse_size

    size = None if args.size is None else parse_size(args.size)  # a bad size stops before the work
    if args.dpi is not None and not 10 <= args.dpi <= 1200:
        raise ParameterError(f"--dpi must be a number in [10, 1200], got {args.dpi:g}")
    if args.color == "load" and not args.load:
        raise ParameterError("--color load needs --load (and a routing)")
    seed = 0 if args.seed is None else args.seed
    routing = None
    if path.is_dir():
        from ..routing import load_routing

        given = [o for o, v in (("--routing", args.routing), ("--ties", args.ties), ("--vcs", args.vcs))
                 if v is not None]
        if given:
            raise ParameterError(f"{path} is a routing folder, whose routing is drawn; drop {', '.join(given)} "
                                 "(or give the topology file)")
        routing = load_routing(path)
        layout = routing.layout if getattr(routing, "layout", None) is not None else default_layout(routing.topology)
    else:
        topology, layout = formats.load(path)
        if layout is None:
            layout = default_layout(topology)
    loads = None
    if args.load:
        from .channel_load import channel_loads

        if routing is None:
            from ..routing import route

            algorithm = args.routing or "nr"
            with _progress.Progress(desc=f"{algorithm} routing"):
                routing = route(layout.topology, layout, algorithm, vcs=args.vcs, seed=seed,
                                ties=args.ties or "spread")
        if args.measured is not None:
            from .channel_load import measured_channel_loads

            with _progress.Progress(desc=f"simulating at {args.measured:g}"):
                loads, row = measured_channel_loads(routing, args.measured, args.traffic, seed=seed)
            print(f"reference simulator at {args.measured:g} flits/node/cycle: {row['status']}, "
                  f"accepted {row['accepted_flit_rate']:.4g}")
        else:
            with _progress.Progress(desc="channel loads") as bar:
                def report(done, total):
                    bar.total, bar.count = total, done
                    bar.update(0)

                loads = channel_loads(routing, args.traffic, seed=seed, progress=report)
    from .floor import draw_floor

    with _progress.Progress(desc="drawing"):
        out = draw_floor(layout, args.output, color_by=args.color, bundle=args.bundle, loads=loads,
                         title=args.title, size=size, dpi=args.dpi)
    if loads is not None:
        print(loads.describe_busiest(layout))
    total = float(layout.total_cable_length)
    print(f"{layout.topology.num_switches} switches, {layout.floor.cabinets} cabinets, "
          f"{layout.topology.num_links} cables, {total:.6g} m of cable")
    print(f"drawing: {out}")
    return 0
