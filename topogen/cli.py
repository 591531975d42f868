"""The ``topogen`` command line.

::

    topogen list [NAME]
    topogen generate NAME [--<param> VALUE ...] [--seed S] -o FILE
    topogen analyze FILE|NAME ... [--<param> VALUE ...] [--format table|csv|json]
    topogen reproduce [NAME [--<param> VALUE ...] [--csv FILE]]
    topogen convert IN OUT

Generator (and reproduction) parameters are given as ``--<name> VALUE`` (``--intra_degree``
and ``--intra-degree`` are the same); they are checked against the registry, which also
parses them to their types.  Every error topogen raises is printed as one line
``topogen: error: <message>`` on stderr and the process exits with the error's
``exit_code``; ``--debug`` adds the traceback.  See ``docs/cli.md``.

The commands themselves are in :mod:`topogen._cli_commands`; the sub-commands of the
packages (``route``, ``simulate``, ``run`` ...) in their ``cli`` modules.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
import traceback

from . import _progress
from ._version import __version__
from ._cli_commands import (EXIT_IO, FileAccessError, _cmd_analyze, _cmd_convert, _cmd_generate,  # noqa: F401
                            _cmd_list, _cmd_reproduce, _split_params)
from .errors import TopogenError

#: exit codes that are not a TopogenError's
EXIT_USAGE = 2
EXIT_INTERNAL = 70  # sysexits EX_SOFTWARE
EXIT_OUT_OF_MEMORY = 71  # sysexits EX_OSERR: a size the machine cannot hold
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class _UsageError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""

    def __init__(self, message: str, prog: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # noqa: D401 - argparse hook
        raise _UsageError(message, self.prog)


# ============================================================================ output helpers
def _err(message: str) -> None:
    """Print one ``topogen: error: ...`` line on stderr."""
    text = " ".join(str(message).split())
    print(f"topogen: error: {text}", file=sys.stderr)


# ============================================================================ parser
def _common() -> argparse.ArgumentParser:
    common = _Parser(add_help=False, allow_abbrev=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress or summary lines on stderr")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show a traceback on errors")
    return common


def _layout_options(p: argparse.ArgumentParser) -> None:
    from ._validate import int_option
    from .layout.names import MAX_CABINETS, PLACEMENTS

    g = p.add_argument_group("layout (machine-room floor)")
    g.add_argument("--switches-per-cabinet", "--switches_per_cabinet", dest="switches_per_cabinet",
                   type=int_option(1), metavar="Z",
                   help="switches per cabinet (default: generator's, else 8)")
    g.add_argument("--cabinets", type=int_option(1, MAX_CABINETS, "cabinets of one floor"), metavar="C",
                   help="number of cabinets (default: as needed)")
    g.add_argument("--placement", choices=PLACEMENTS, help="how switches go into cabinets (default: auto)")


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``topogen`` (generator parameters are handled separately)."""
    from ._validate import int_option

    common = _common()
    parser = _Parser(
        prog="topogen", parents=[common], allow_abbrev=False,
        description="Interconnect topologies from the research literature: generate, lay out "
                    "on a machine-room floor, analyse, reproduce papers.",
        epilog="Generator parameters are given as --<name> VALUE; `topogen list NAME` shows them.",
    )
    parser.add_argument("--version", action="version", version=f"topogen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("list", parents=[common], allow_abbrev=False,
                       help="list generators, or one generator's parameters",
                       description="List the registered generators, or the typed parameters of one.")
    p.add_argument("name", nargs="?", metavar="NAME", help="a generator (or reproduction) name")

    p = sub.add_parser("generate", parents=[common], allow_abbrev=False,
                       help="generate a topology and write it to a file",
                       usage="topogen generate NAME [--<param> VALUE ...] [--seed S] -o FILE",
                       description="Generate topology NAME with --<param> VALUE parameters and write "
                                   "it (with its default layout) to FILE: .json bundle, .edges/.txt "
                                   "edge list or .graphml; '-o -' writes an edge list to stdout.")
    p.add_argument("name", metavar="NAME", help="generator name (`topogen list`)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="output file ('-' = stdout)")
    p.add_argument("--seed", metavar="S", help="integer seed of random generators and placements")
    _layout_options(p)

    p = sub.add_parser("analyze", aliases=["analyse"], parents=[common], allow_abbrev=False,
                       help="print the metrics of files or generated topologies",
                       usage="topogen analyze FILE|NAME ... [--<param> VALUE ...] [options]",
                       description="Print the metrics table (topogen.metrics.analyze) of each FILE, "
                                   "or of generator NAME built with --<param> VALUE parameters.")
    p.add_argument("sources", nargs="+", metavar="FILE|NAME")
    p.add_argument("--switch-delay", "--switch_delay", dest="switch_delay", type=float, default=60.0,
                   metavar="NS", help="delay of a switch in ns (default: 60)")
    p.add_argument("--routing", default="fr,nr", metavar="R,R",
                   help="routings to evaluate, comma-separated (default: fr,nr)")
    p.add_argument("--sample", type=int, metavar="K", help="estimate from K source switches")
    p.add_argument("--seed", metavar="S", help="seed of generation, sampling and random placement")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--csv", metavar="FILE", help="also write the rows as CSV to FILE")
    g = p.add_argument_group("analysis (topogen.metrics.bisection, resilience, cost)")
    g.add_argument("--bisection", action="store_true",
                   help="measure the bisection width (METIS/KaHIP, certified lower bound)")
    g.add_argument("--bisection-runs", "--bisection_runs", dest="bisection_runs", type=int_option(1),
                   default=4, metavar="K", help="seeded partitioner runs (default: 4)")
    g.add_argument("--bisection-method", "--bisection_method", dest="bisection_method",
                   choices=("auto", "metis", "kahip"), default=None,
                   help="partitioners: auto (the best of METIS and KaHIP), metis (seconds at 10^5 "
                        "switches) or kahip (default: auto)")
    g.add_argument("--kahip-mode", "--kahip_mode", dest="kahip_mode", choices=("fast", "eco", "strong"),
                   default=None, help="KaHIP preset (default: eco)")
    g.add_argument("--resilience", type=int_option(1), metavar="TRIALS",
                   help="random link failure resilience (Slim Fly III-D) over TRIALS seeded trials")
    g.add_argument("--cost", action="store_true",
                   help="cost and power on the layout (Slim Fly VI-B/VI-C model, paper constants)")
    _layout_options(p)

    p = sub.add_parser("reproduce", parents=[common], allow_abbrev=False,
                       help="reproduce a paper's table or figure (no NAME: list them)",
                       usage="topogen reproduce [NAME [--<param> VALUE ...] [--csv FILE]]",
                       description="Run a registered reproduction and print its title, table and notes.")
    p.add_argument("name", nargs="?", metavar="NAME")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--csv", metavar="FILE", help="write the table as CSV to FILE")

    p = sub.add_parser("convert", parents=[common], allow_abbrev=False,
                       help="convert between topology file formats",
                       description="Read IN and write OUT; the formats follow the extensions.")
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")

    # Sub-commands that live beside the code they drive: each module offers
    # add_parsers(subparsers, parents) and sets a handler(args) -> int default.
    for module in _PLUGINS:
        importlib.import_module(module, __package__).add_parsers(sub, [common])
    return parser


#: Modules that add sub-commands (``route``, ``check-deadlock``, ``run``, ``results``,
#: ``simulate``, ``plot``, ``crossval`` ...) through their ``add_parsers(subparsers, parents)``.
_PLUGINS = (".routing.cli", ".drivers.cli", ".sim.cli", ".reproduce.cli", ".experiments.cli",
            ".plots.cli", ".optimize.cli", ".layout.cli")


_WITH_PARAMS = {"generate", "analyze", "analyse", "reproduce"}


def _parse(argv: list[str]):
    parser = build_parser()
    # the sub-command is the first token that is not a global option
    idx = next((i for i, t in enumerate(argv) if not t.startswith("-")), None)
    pairs: list = []
    if idx is not None and argv[idx] in _WITH_PARAMS:
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub = subparsers.choices[argv[idx]]
        rest, pairs = _split_params(argv[idx + 1:], sub)
        argv = argv[: idx + 1] + rest
    args = parser.parse_args(argv)
    if args.command is None:
        raise _UsageError("choose a command (`topogen --help` lists them)", "topogen")
    return args, pairs


def main(argv: list[str] | None = None) -> int:
    """Run ``topogen`` with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments without the program name.

    Returns
    -------
    int
        0 on success, the error's ``exit_code`` for a :class:`TopogenError`, 2 for usage
        errors, 74 for unreadable/unwritable files, 130 on Ctrl-C, 70 for internal errors.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    was_quiet = _progress._QUIET
    try:
        try:
            args, pairs = _parse(argv)
        except SystemExit as exc:  # --help, --version
            return exc.code if isinstance(exc.code, int) else 0
        if isinstance(getattr(args, "seed", None), str):
            # one parser and one message for every command's --seed, before any file is read
            from ._rng import resolve_seed

            args.seed = resolve_seed(args.seed)
        args.quiet = getattr(args, "quiet", False)
        args.debug = debug = getattr(args, "debug", False) or debug
        if args.quiet:
            _progress.set_quiet(True)
        cmd = args.command
        if cmd == "list":
            return _cmd_list(args)
        if cmd == "generate":
            return _cmd_generate(args, pairs)
        if cmd in ("analyze", "analyse"):
            return _cmd_analyze(args, pairs)
        if cmd == "reproduce":
            return _cmd_reproduce(args, pairs)
        if cmd == "convert":
            return _cmd_convert(args)
        return int(args.handler(args) or 0)
    except _UsageError as exc:
        _err(f"{exc} (see `{exc.prog} --help`)")
        return EXIT_USAGE
    except TopogenError as exc:
        if debug:
            traceback.print_exc()
        _err(str(exc))
        return int(getattr(exc, "exit_code", 1)) or 1
    except KeyboardInterrupt:
        print("\ntopogen: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader of our stdout went away (e.g. `| head`): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        return EXIT_BROKEN_PIPE
    except MemoryError as exc:  # sizes are estimated up front; this is the backstop
        if debug:
            traceback.print_exc()
        from ._validate import available_memory, format_bytes

        avail = available_memory()
        have = f"; {format_bytes(avail)} are available" if avail is not None else ""
        _err(f"out of memory ({str(exc) or 'an allocation failed'}){have}; use a smaller size")
        return EXIT_OUT_OF_MEMORY
    except OSError as exc:
        if debug:
            traceback.print_exc()
        where = f" {exc.filename}" if exc.filename else ""
        _err(f"cannot access{where}: {exc.strerror or exc}")
        return EXIT_IO
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if debug:
            traceback.print_exc()
        _err(f"internal error: {type(exc).__name__}: {exc} (re-run with --debug for a traceback)")
        return EXIT_INTERNAL
    finally:
        _progress.set_quiet(was_quiet)
