"""``topogen crossval``: the parser of :func:`topogen.reproduce.crossval.crossval`'s
command line, wired into ``topogen`` by :mod:`topogen.cli` through :func:`add_parsers`.

Building the parser imports only the light name lists (:mod:`topogen.reproduce.names`);
the comparison itself (:mod:`topogen.reproduce.crossval`, pandas) is imported when the
command runs.
"""

from __future__ import annotations

from ..experiments.names import TRAFFICS
from ..experiments.simulators import DEFAULT_MAX_REPEATS, DEFAULT_REPEATS
from .names import SATURATION_RULES

__all__ = ["add_parsers", "crossval_command"]


def add_parsers(subparsers, parents=()) -> None:
    """Add ``crossval`` to the ``topogen`` sub-commands."""
    c = subparsers.add_parser(
        "crossval", parents=list(parents),
        help="run one experiment on every simulator found and compare them",
        description="Run one experiment (topology, routing, traffic, packet size, loads) on the "
                    "reference simulator, BookSim2 ($TOPOGEN_BOOKSIM or PATH) and SST ($TOPOGEN_SST "
                    "or PATH), print latency and accepted load side by side per load in cycles of "
                    "the shared clock and ns, the ratios to BookSim and SST, and a verdict per "
                    "point against the tolerances. See docs/cli.md and docs/reproductions.md.")
    c.add_argument("topology", nargs="?", metavar="TOPOLOGY",
                   help="generator name (with --param) or topology file; or give --spec")
    c.add_argument("--spec", metavar="FILE", help="TOML experiment spec (options below override it)")
    c.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="generator parameter, e.g. --param dims=4,4 (repeatable)")
    c.add_argument("--seed", default=None, help="the one seed (topology, ties, simulators; default 1)")
    c.add_argument("--routing", default=None,
                   help="topogen routing of the reference simulator and SST (default booksim-min, "
                        "BookSim anynet's own route choice); BookSim always uses anynet min")
    c.add_argument("--traffic", default=None, choices=TRAFFICS, help="default uniform")
    c.add_argument("--packet-size", type=int, default=None, metavar="FLITS",
                   help="flits per packet (default: the shared simulator default, 33)")
    c.add_argument("--loads", default=None, metavar="L,L,...",
                   help="offered loads in flits/node/cycle (default 0.05,0.1,0.2,0.3,0.4)")
    c.add_argument("--num-vcs", type=int, default=None, help="VCs per port (default: shared, 4)")
    c.add_argument("--buffer", type=int, default=None, metavar="FLITS",
                   help="flits per VC buffer (default max(8, 2 x packet size))")
    c.add_argument("--clock-ns", type=float, default=None, metavar="NS", help="the shared clock (default: flit_bits / link rate, 2.667 ns)")
    c.add_argument("--link-latency", default=None, metavar="CYCLES",
                   help="cycles per router-router link; default 'layout': the layout's cable delays "
                        "over the clock, as run booksim and simulate; --link-latency 1 gives every "
                        "link one cycle (crossval's reading before it shared the defaults)")
    c.add_argument("--latency-thres", type=float, default=None, metavar="CYCLES",
                   help="mean latency that makes BookSim and the reference simulator call a run "
                        "saturated (default: shared, 500)")
    c.add_argument("--credit-delay", type=int, default=None, metavar="CYCLES", help="default: shared, 0")
    c.add_argument("--warmup-periods", type=int, default=None, help="default: shared, 3")
    c.add_argument("--sample-period", type=int, default=None, metavar="CYCLES", help="default: shared, 1000")
    c.add_argument("--max-samples", type=int, default=None, help="default: shared, 10")
    c.add_argument("--simulators", default=None, metavar="S,S",
                   help="run only these (reference, booksim, sst); default: all found")
    c.add_argument("--saturation", action="store_true", default=None,
                   help="bisect each simulator's saturation load to within half the tolerance")
    c.add_argument("--latency-tolerance", type=float, default=None, metavar="FRAC", help="default 0.03")
    c.add_argument("--saturation-tolerance", type=float, default=None, metavar="FRAC", help="default 0.05")
    c.add_argument("--up-to", type=float, default=None, metavar="FRAC",
                   help="compare latencies up to this fraction of the other's saturation (default 0.8)")
    c.add_argument("--timeout", type=float, default=None, metavar="S", help="per BookSim/SST run (default 3600)")
    c.add_argument("--capacity-load", type=float, default=None, metavar="LOAD",
                   help="also run each simulator once at this offered load with latency_thres out of "
                        "the way and compare the accepted rates (saturation throughput); a routing "
                        "that is not deadlock-free may deadlock there (BookSim then runs until --timeout)")
    c.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="runs per load and simulator with seeds SEED, SEED+1, ... (mean and standard "
                        f"error in the table; default {DEFAULT_REPEATS}; 1: single runs, whose latency "
                        "misses cannot be told from noise)")
    c.add_argument("--max-repeats", type=int, default=None, metavar="N",
                   help="a compared point whose miss is within the noise gets more runs on both "
                        f"simulators, up to N per load (default {DEFAULT_MAX_REPEATS}); still "
                        "unresolved, it reads 'inconclusive'")
    c.add_argument("--saturation-rule", default="majority", choices=SATURATION_RULES,
                   help="with --repeats: a load is not sustained when at least half its runs failed "
                        "(majority, default) or when one did (any)")
    c.add_argument("--booksim", default=None, metavar="PATH", help="BookSim executable")
    c.add_argument("--sst", default=None, metavar="PATH", help="sst executable")
    c.add_argument("--out-dir", required=True, metavar="DIR",
                   help="raw outputs, results.csv (shared schema), crossval.csv, saturation.csv")
    c.add_argument("--force", action="store_true", help="use a non-empty --out-dir (nothing is replaced)")
    c.add_argument("--plot", default=None, metavar="FILE", help="latency-vs-load chart (.png/.svg/.pdf)")
    c.add_argument("--strict", action="store_true", help="exit 1 when any verdict is FAIL")
    c.add_argument("--native", default=None, choices=("mesh", "torus", "dragonfly", "fattree", "flatfly", "hyperx"),
                   metavar="FAMILY",
                   help="compare BookSim's own FAMILY (mesh with --routing dim_order, romm or valiant, torus "
                        "with dim_order or dim_order_bal, --param k=K --param n=N, default 4 and 2; dragonfly: dragonflynew with --routing min or ugal, "
                        "--param k=P --param n=1; fattree: --routing nca or anca, --param k=K --param n=N; flatfly: "
                        "ran_min, valiant or xyyx, --param k=K --param c=C) "
                        "against topogen's generator and routing on the "
                        "reference simulator and topogen's export of it on BookSim; with --simulators sst: "
                        "SST merlin's own torus, mesh, hyperx (--routing DOR, valiant, DOAL, MIN-A, VDAL or DOR-ND), "
                        "dragonfly (--routing minimal, valiant, ugal, adaptive-local or min-a; --param k=P: P hosts "
                        "per router, 2P routers per group) or fattree (deterministic or adaptive; k-ary n-tree) against "
                        "topogen's on the reference simulator as SST runs and topogen's SST export "
                        "(docs/crossval.md, 'Native topologies')")
    c.add_argument("--no-saturation", action="store_true",
                   help="with --native: do not bisect the saturation loads (default loads 0.01,0.2,0.3 "
                        "instead of 0.01 and 50 %% and 80 %% of the native saturation)")
    c.set_defaults(handler=crossval_command)


def crossval_command(args) -> int:
    """Handler of ``topogen crossval``: :func:`topogen.reproduce.crossval.crossval_command`."""
    if getattr(args, "native", None):
        sims = [x.strip() for x in (args.simulators or "").split(",") if x.strip()]
        if "sst" in sims:  # SST merlin's own topologies
            from .crossval_native_sst import native_command
        elif args.native == "hyperx":
            from ..errors import ParameterError

            raise ParameterError("--native hyperx is SST merlin's merlin.hyperx (BookSim has no HyperX of its "
                                 "own): add --simulators sst")
        else:
            from .crossval_native import native_command

        return native_command(args)
    from .crossval import crossval_command as run

    return run(args)
