"""The commands of ``topogen`` that live in the package's top level: ``list``,
``generate``, ``analyze``, ``reproduce`` and ``convert``, with the output and parameter
helpers they share (the parser and the error handling are in :mod:`topogen.cli`; the other
sub-commands beside the code they drive, e.g. :mod:`topogen.sim.cli`)."""

from __future__ import annotations

import argparse
import difflib
import io
import json
import math
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

from . import _progress
from ._version import __version__
from .errors import ParameterError, TopogenError

#: exit code of a file that cannot be read or written (sysexits EX_IOERR)
EXIT_IO = 74



class FileAccessError(TopogenError):
    """A file could not be read or written (missing, permissions, not a folder...)."""

    exit_code = EXIT_IO


# ============================================================================ output helpers
def _info(args, message: str) -> None:
    """A one-line note on stderr unless --quiet."""
    if not getattr(args, "quiet", False):
        print(f"topogen: {message}", file=sys.stderr)


def _fmt_value(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) >= 1e-3 else f"{v:.3g}"
    return str(v)


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def _write_output(path: str, text: str) -> None:
    from .formats import atomic_write

    _check_writable(path)
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise FileAccessError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_writable(path: str, inputs=()) -> None:
    """Fail before long work if ``path`` may not be written (see :mod:`topogen.output`):
    its folder is missing or read-only, it is a folder, or it is one of ``inputs``."""
    from .output import check_file_output

    check_file_output(path, inputs=inputs)


# ============================================================================ parameters
def _split_params(tokens: list[str], parser: argparse.ArgumentParser) -> tuple[list[str], list[tuple[str, str | None, str]]]:
    """Separate ``parser``'s own options and positionals from ``--key value`` parameters.

    Returns the tokens for argparse and a list of (key, value or None, spelling, owner):
    dashes in keys turned into underscores, ``owner`` the number of positional arguments
    seen before the parameter (so ``analyze torus --dims 4,4 hypercube --dimension 4``
    gives each NAME its own parameters; owner 0 means "before any NAME").
    """
    known = parser._option_string_actions  # stable argparse internals
    keep: list[str] = []
    pairs: list[tuple[str, str | None, str, int]] = []
    positionals = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--":
            keep.extend(tokens[i:])
            break
        opt = tok.split("=", 1)[0]
        if opt in known:
            keep.append(tok)
            takes_value = known[opt].nargs != 0
            if takes_value and "=" not in tok and i + 1 < len(tokens):
                keep.append(tokens[i + 1])
                i += 1
        elif tok.startswith("--") and len(tok) > 2:
            key, eq, value = tok[2:].partition("=")
            if not eq:
                nxt = tokens[i + 1] if i + 1 < len(tokens) else None
                if nxt is not None and not nxt.startswith("--") and nxt.split("=", 1)[0] not in known:
                    value = nxt
                    i += 1
                else:
                    value = None
            pairs.append((key.replace("-", "_"), value, "--" + key, positionals))
        else:
            keep.append(tok)
            positionals += not tok.startswith("-")
        i += 1
    return keep, pairs


def _match_params(what: str, params, pairs, *, parse: bool) -> dict[str, Any]:
    """Check ``pairs`` against a generator's or reproduction's typed parameters.

    Returns strings (``parse=False``, the registry parses them) or parsed values.
    """
    by_name = {p.name: p for p in params}
    out: dict[str, Any] = {}
    for key, value, spelling, *_ in pairs:
        p = by_name.get(key)
        if p is None:
            near = difflib.get_close_matches(key, list(by_name), n=2)
            hint = f" (did you mean {', '.join('--' + n for n in near)}?)" if near else ""
            valid = ", ".join("--" + n for n in by_name) or "none"
            raise ParameterError(f"{what} has no parameter {spelling}{hint}; its parameters are: {valid}")
        if key in out:
            raise ParameterError(f"{spelling} is given twice")
        if value is None:
            if p.type is bool or p.type_name == "bool":
                value = "true"
            else:
                raise ParameterError(f"{spelling} needs a value ({p.type_name})")
        out[key] = p.parse(value) if parse else value
    return out


# ============================================================================ list
def _cmd_list(args) -> int:
    from . import registry

    if args.name:
        gens = registry.generators()
        if args.name not in gens and args.name in registry.experiments():
            spec = registry.experiment(args.name)
            print(f"{spec.name} (reproduction of {spec.paper or 'a paper'}): {spec.summary}")
            _print_params(spec.params, random=False)
            return 0
        spec = registry.get(args.name)
        print(f"{spec.name} ({spec.family}): {spec.summary}")
        _print_params(spec.params, random=spec.random)
        print(f"\nexample: topogen generate {spec.name} "
              + " ".join(f"--{p.name} ..." for p in spec.params if p.required)
              + f" -o {spec.name}.json")
        return 0
    gens = registry.generators()
    if not gens:
        print("no generators are registered")
        return 0
    width_name = max(len(n) for n in gens)
    width_fam = max(len(s.family) for s in gens.values())
    for name, spec in gens.items():
        summary = registry.first_sentence(spec.summary)
        print(f"{name:<{width_name}}  {spec.family:<{width_fam}}  {summary}")
    return 0


def _print_params(params, *, random: bool) -> None:
    if not params:
        print("\nno parameters")
        return
    print("\nparameters:")
    import inspect

    rows = []
    for p in params:
        if p.required:
            default = "required"
        elif p.default is None:
            default = "default: none"
        elif p.default is inspect.Parameter.empty:
            default = "required"
        else:
            d = p.default
            default = "default: " + (",".join(map(str, d)) if isinstance(d, tuple) else str(d))
        rows.append((f"--{p.name} {p.type_name}", default, p.help))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for head, default, help_ in rows:
        line = f"  {head:<{w0}}  {default:<{w1}}"
        if help_:
            wrapped = textwrap.wrap(help_, width=max(100 - len(line) - 2, 30))
            line += "  " + wrapped[0]
            for more in wrapped[1:]:
                line += "\n" + " " * (w0 + w1 + 6) + more
        print(line.rstrip())
    if random:
        print("\n--seed is recorded in the output; the same seed gives the same topology")


# ============================================================================ generate
def _layout_kwargs(args) -> dict:
    return dict(switches_per_cabinet=args.switches_per_cabinet, cabinets=args.cabinets,
                placement=args.placement or "auto")


def _generate(name: str, pairs, args):
    """Generate ``name`` with CLI parameters; returns the topology."""
    from . import registry
    from ._rng import resolve_seed

    spec = registry.get(name)
    kwargs = _match_params(name, spec.params, pairs, parse=False)
    names = {p.name for p in spec.params}
    # CLI layout options that are also generator parameters (Skywalk's cabinets...) feed both
    for opt in ("switches_per_cabinet", "cabinets"):
        value = getattr(args, opt, None)
        if value is not None and opt in names and opt not in kwargs:
            kwargs[opt] = str(value)
    if getattr(args, "seed", None) is not None and "seed" in names:
        kwargs["seed"] = resolve_seed(args.seed)
    with _progress.Progress(desc=f"generating {name}"):
        return registry.generate(name, **kwargs)


def _seed_arg(args):
    from ._rng import resolve_seed

    return None if args.seed is None else resolve_seed(args.seed)


def _cmd_generate(args, pairs) -> int:
    from . import formats
    from .layout import default_layout

    seed = _seed_arg(args)  # validate early: a bad seed is a one-line error
    to_stdout = args.output == "-"
    fmt = "edgelist" if to_stdout else formats.format_of(args.output)
    if not to_stdout:
        _check_writable(args.output)
    topology = _generate(args.name, pairs, args)
    layout = default_layout(topology, **_layout_kwargs(args), seed=seed)
    if to_stdout:
        sys.stdout.writelines(formats.edgelist_text(topology, layout))
        sys.stdout.flush()
    else:
        try:
            formats.save(args.output, topology, layout, format=fmt)
        except OSError as exc:
            raise FileAccessError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    where = "stdout" if to_stdout else args.output
    _info(args, f"wrote {where}: {_summary(topology, layout)}")
    return 0


def _summary(topology, layout=None) -> str:
    """One line: the network, its seed (or that it has none: a deterministic generator) and
    its layout, with the placement's own seed when the placement used one."""
    seed = "deterministic, no seed" if topology.seed is None else f"seed {topology.seed}"
    text = (f"{topology.describe()}: {topology.num_switches} switches, {topology.num_links} links, "
            f"{topology.num_hosts} hosts, degree {topology.degree}, {seed}")
    if layout is not None:
        how = layout.placement if layout.seed is None else f"{layout.placement}, seed {layout.seed}"
        text += (f"; {layout.floor.cabinets} cabinets x {layout.floor.switches_per_cabinet} "
                 f"({how}), cable {_fmt_value(layout.total_cable_length)} m")
    return text


# ============================================================================ analyze
def _load(path: str):
    from . import formats

    try:
        return formats.load(path)
    except OSError as exc:
        raise FileAccessError(f"cannot read {path}: {exc.strerror or exc}") from None


def _looks_like_file(src: str) -> bool:
    from .formats import EXTENSIONS

    return Path(src).suffix.lower() in EXTENSIONS or os.sep in src or "/" in src


def _source(src: str, pairs, args):
    """(label, topology, layout or None) of a FILE or generator NAME."""
    from . import registry

    if os.path.exists(src) or _looks_like_file(src):
        if not os.path.exists(src):
            raise FileAccessError(f"cannot read {src}: no such file")
        topology, layout = _load(src)
        return src, topology, layout
    try:
        registry.get(src)
    except ParameterError as exc:
        raise ParameterError(f"no file named {src!r}, and {exc}") from None
    topology = _generate(src, pairs, args)
    return topology.describe(), topology, None


def _cmd_analyze(args, pairs) -> int:
    from . import metrics
    from .layout import default_layout

    seed = _seed_arg(args)
    routings = tuple(r.strip() for r in args.routing.split(",") if r.strip())
    if not routings:
        raise ParameterError("--routing needs at least one routing, e.g. --routing fr,nr")
    if args.sample is not None and args.sample < 1:
        raise ParameterError(f"--sample must be a positive number of source switches, got {args.sample}")
    if args.switch_delay < 0:
        raise ParameterError(f"--switch-delay must be >= 0 ns, got {args.switch_delay}")
    is_file = [os.path.exists(s) or _looks_like_file(s) for s in args.sources]
    for key, value, spelling, owner in pairs:
        if (owner == 0 and all(is_file)) or (owner > 0 and is_file[owner - 1]):
            raise ParameterError(f"{spelling}: generator parameters need a generator NAME; "
                                 "files carry their own parameters")
    if args.csv:
        _check_writable(args.csv, inputs=[s for s in args.sources if os.path.exists(s)])
    analyze = getattr(metrics, "analyze", None)
    if analyze is None:
        raise TopogenError("topogen.metrics.analyze is not available in this installation")
    relayout = any(v is not None for v in (args.switches_per_cabinet, args.cabinets, args.placement))
    extra: dict[str, Any] = {}  # analysis options, passed only when asked for
    for option, value in (("--bisection-method", args.bisection_method), ("--kahip-mode", args.kahip_mode)):
        if value is not None and not args.bisection:
            raise ParameterError(f"{option} applies to --bisection: add --bisection, or leave {option} out")
    if args.kahip_mode is not None and args.bisection_method == "metis":
        raise ParameterError("--kahip-mode applies to KaHIP, and --bisection-method metis runs METIS alone: "
                             "leave one of them out")
    if args.bisection:
        extra.update(bisection=True, bisection_runs=args.bisection_runs,
                     bisection_method=args.bisection_method or "auto", kahip_mode=args.kahip_mode or "eco")
    if args.resilience:
        extra["resilience_trials"] = args.resilience
    if args.cost:
        extra["cost"] = True
    rows, labels, provenance = [], [], []
    for k, src in enumerate(args.sources, 1):
        own = [p for p in pairs if p[3] in (0, k)]
        label, topology, layout = _source(src, own, args)
        if relayout or layout is None:
            layout = default_layout(topology, **_layout_kwargs(args), seed=seed)

        if not args.quiet:
            _announce_long(args, label, layout, routings)
        where = f"analyzing {k}/{len(args.sources)}" if len(args.sources) > 1 else "analyzing"
        with _progress.Progress(desc=where) as bar:
            def report(stage, done, total, bar=bar, where=where):
                bar.desc, bar.total, bar.count = f"{where} {stage}", total or None, done
                bar.update(0)

            row = analyze(layout, switch_delay=args.switch_delay, routings=routings, sample=args.sample,
                          seed=seed, progress=report, **extra)
        rows.append(dict(row))
        labels.append(label)
        provenance.append(_provenance(topology))
    if args.csv:
        _write_output(args.csv, _rows_csv(rows, labels, provenance))
        _info(args, f"wrote {args.csv}")
    if args.format == "table":
        print(_rows_table(rows, labels))
    elif args.format == "csv":
        sys.stdout.write(_rows_csv(rows, labels, provenance))
    else:
        out = [{"source": lab, **_jsonable(r), **prov} for lab, r, prov in zip(labels, rows, provenance)]
        print(json.dumps(out, indent=1))
    return 0


#: the sample the exact-analysis notice suggests
_SUGGESTED_SAMPLE = 1000


def _announce_long(args, label: str, layout, routings) -> None:
    """Info lines before long work: an exact all-pairs analysis of more than
    :data:`topogen.metrics.effort.EXACT_NOTICE_SWITCHES` switches (its source searches,
    their time estimated on a few timed sources, and what ``--sample`` would cost
    instead), ``--bisection`` above ``BISECTION_NOTICE_SWITCHES`` and ``--resilience``
    above ``EXACT_NOTICE_SWITCHES``.  Progress is drawn only on a terminal, so a batch
    job would otherwise print nothing for an hour."""
    from .metrics import effort

    n = layout.topology.num_switches
    est = None
    if args.sample is None and n > effort.EXACT_NOTICE_SWITCHES:
        est = effort.estimate_effort(layout, routings=routings, switch_delay=args.switch_delay)
        cores = f"{est.workers} core{'s' if est.workers != 1 else ''}"
        k = min(_SUGGESTED_SAMPLE, n - 1)
        sampled = est.scaled(k)
        _info(args, f"{label}: the exact all-pairs analysis of {n} switches runs {est.searches} source "
                    f"searches ({n} for each of {', '.join(est.stages)}), about "
                    f"{effort.format_duration(est.seconds)} on {cores} (longer if they are shared); "
                    f"--sample {k} estimates the same figures in about "
                    f"{effort.format_duration(sampled.seconds)}, with their standard errors "
                    f"(aspl_stderr, <routing>_avg_ns_stderr)")
    if args.bisection and n > effort.BISECTION_NOTICE_SWITCHES and args.bisection_method != "metis":
        mode = args.kahip_mode or "eco"
        secs = effort.bisection_seconds(layout.topology, args.bisection_runs, mode)
        who = "KaHIP" if args.bisection_method == "kahip" else "METIS and KaHIP"
        _info(args, f"{label}: --bisection runs {who} ({mode}) {args.bisection_runs} times each on "
                    f"{layout.topology.num_links} links; KaHIP grows about quadratically: roughly "
                    f"{effort.format_duration(secs)} here (--bisection-runs 1 takes "
                    f"1/{args.bisection_runs} of that; --bisection-method metis runs METIS alone, in "
                    f"seconds to minutes)")
    if args.resilience and n > effort.EXACT_NOTICE_SWITCHES:
        states = effort.resilience_states(args.resilience, sample=args.sample)
        if est is None:
            est = effort.estimate_effort(layout.topology, routings=())
        per_state = effort.resilience_state_sources(n, args.sample)
        one = est.scaled(per_state).stage_seconds["hops"]  # the hop figures of one network
        if args.sample is None:
            k = min(_SUGGESTED_SAMPLE, n - 1)
            quick = est.scaled(effort.resilience_state_sources(n, k)).stage_seconds["hops"]
            quick *= effort.resilience_states(args.resilience, sample=k)
            _info(args, f"{label}: --resilience {args.resilience} measures the exact diameter and aspl "
                        f"(a BFS from each of the {n} switches) of up to {states} failure states, about "
                        f"{effort.format_duration(one)} each (less as links fail): up to "
                        f"{effort.format_duration(one * states)}; --sample {k} estimates them in up to "
                        f"{effort.format_duration(quick)} (aspl with its standard error, the diameter a "
                        f"lower bound)")
        else:
            _info(args, f"{label}: --resilience {args.resilience} --sample {args.sample} estimates the "
                        f"diameter and aspl from {per_state} BFS sources (a sample and a double sweep) "
                        f"of up to {states} failure states, about {effort.format_duration(one)} each: "
                        f"up to {effort.format_duration(one * states)}")


def _rows_table(rows, labels) -> str:
    import pandas as pd

    keys: list[str] = []
    for r in rows:
        keys.extend(k for k in r if k not in keys)
    columns = _unique_labels(labels)
    data = {col: [_fmt_value(r.get(k)) for k in keys] for col, r in zip(columns, rows)}
    df = pd.DataFrame(data, index=keys)
    df.index.name = "metric"
    return df.to_string()


def _unique_labels(labels):
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if seen[lab] == 1 else f"{lab} ({seen[lab]})")
    return out


def _provenance(topology) -> dict:
    """Generator, parameters (JSON), seed and version: the metadata columns of a row."""
    from .formats import encode_params

    return {"generator": topology.name, "params": json.dumps(encode_params(topology.params)[0]),
            "seed": topology.seed, "topogen_version": topology.version}


def _rows_csv(rows, labels, provenance) -> str:
    import pandas as pd

    df = pd.DataFrame([{"source": lab, **_jsonable(r), **prov}
                       for lab, r, prov in zip(labels, rows, provenance)])
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue()


# ============================================================================ reproduce
def _cmd_reproduce(args, pairs) -> int:
    from . import registry

    if not args.name:
        if pairs:
            raise ParameterError(f"{pairs[0][2]}: parameters need a reproduction NAME")
        exps = registry.experiments()
        if not exps:
            print("no reproductions are registered yet")
            return 0
        width = max(len(n) for n in exps)
        for name, spec in exps.items():
            paper = f"[{spec.paper}] " if spec.paper else ""
            print(f"{name:<{width}}  {paper}{registry.first_sentence(spec.summary)}")
        return 0
    spec = registry.experiment(args.name)
    kwargs = _match_params(args.name, spec.params, pairs, parse=True)
    missing = [p.name for p in spec.params if p.required and p.name not in kwargs]
    if missing:
        raise ParameterError(f"{args.name} needs parameter(s) {', '.join('--' + m for m in missing)}; "
                             f"`topogen list {args.name}` shows them")
    if args.csv:
        _check_writable(args.csv)
    # what a long run will do, before it starts: the reproduction's own plan, else the
    # count of its sweeps and simulations with a recorded rate (reproduce/plans.py)
    # (an ``announce`` that returns None leaves it to the recorded estimate; "" prints nothing)
    announce = getattr(spec.func, "announce", None)
    text = announce(**kwargs) if announce is not None else None
    if text is None:
        from .reproduce.plans import estimate_text

        text = estimate_text(args.name, kwargs)
        text = f"plan: {text}" if text else None
    if text and not getattr(args, "quiet", False):
        print(textwrap.fill(text, width=100), file=sys.stderr, flush=True)
    with _progress.Progress(desc=f"reproducing {args.name}"):
        result = spec.func(**kwargs)
    table = result.table
    if args.csv:
        _write_output(args.csv, _csv_header(args.name, result.title, kwargs, spec) + table.to_csv(index=False))
        _info(args, f"wrote {args.csv}")
    if args.format == "csv":
        sys.stdout.write(table.to_csv(index=False))
    elif args.format == "json":
        doc = {
            "title": result.title,
            "table": _jsonable(table.to_dict(orient="records")),
            "notes": list(result.notes),
            "extra_tables": {k: _jsonable(v.to_dict(orient="records"))
                             for k, v in getattr(result, "extra_tables", {}).items()},
        }
        print(json.dumps(doc, indent=1))
    else:
        print(result.title)
        print("=" * min(len(result.title), 100))
        print(table.to_string(index=False))
        for name, extra in getattr(result, "extra_tables", {}).items():
            print(f"\n{name}")
            print(extra.to_string(index=False))
        if result.notes:
            print("\nnotes:")
            for note in result.notes:
                print(textwrap.fill(str(note), width=100, initial_indent="  - ", subsequent_indent="    "))
    return 0


def _csv_header(name: str, title: str, kwargs: dict, spec) -> str:
    """``# key: value`` lines carrying a reproduction's provenance (read with comment="#")."""
    import inspect

    from .formats import encode_params

    params = {p.name: p.default for p in spec.params if p.default is not inspect.Parameter.empty}
    params.update(kwargs)
    lines = [f"# topogen reproduce {name}", f"# title: {' '.join(title.split())}",
             f"# params: {json.dumps(encode_params(params)[0])}",
             f"# seed: {json.dumps(params.get('seed'))}", f"# topogen_version: {__version__}"]
    return "\n".join(lines) + "\n"


# ============================================================================ convert
def _cmd_convert(args) -> int:
    from . import formats

    formats.format_of(args.output)
    _check_writable(args.output, inputs=[args.input])
    topology, layout = _load(args.input)
    try:
        formats.save(args.output, topology, layout)
    except OSError as exc:
        raise FileAccessError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    _info(args, f"wrote {args.output}: {_summary(topology, layout)}")
    return 0
