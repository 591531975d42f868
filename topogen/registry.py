"""The registry: CLI names of generators and paper reproductions.

Generators register themselves with :func:`register`::

    @register("torus", family="classic")
    def torus(dims: tuple[int, ...], *, hosts_per_switch: int = 1) -> Topology:
        ...

The typed parameters are read from the function's signature (annotations and
defaults) and their help text from the numpydoc ``Parameters`` section, so the CLI
(``topogen generate torus --dims 8,16,16``), sweeps and experiments all go through
:func:`generate` and need no string dispatch of their own.

Reproductions register with :func:`register_experiment`; ``topogen reproduce NAME``
runs them.

Modules under :mod:`topogen.generators` and :mod:`topogen.reproduce` are imported
on first use (:func:`load_all`), so adding a module is all it takes to add a name.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

from .errors import ParameterError

_GENERATORS: dict[str, "GeneratorSpec"] = {}
_EXPERIMENTS: dict[str, "ExperimentSpec"] = {}
_LOADED: set[str] = set()  # packages whose modules are imported (:func:`_load`)


@dataclass(frozen=True)
class Param:
    """One typed parameter of a generator or experiment."""

    name: str
    type: Any
    default: Any = inspect.Parameter.empty
    help: str = ""
    keyword_only: bool = False

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    @property
    def type_name(self) -> str:
        return _type_name(self.type)

    def parse(self, text: str):
        """Convert a command-line string to this parameter's type."""
        return parse_value(text, self.type, self.name)


@dataclass(frozen=True)
class RoutingRecord:
    """The routing a family's paper simulates on it: the default of ``topogen simulate``,
    ``topogen run sst`` and the reproductions when no routing is named.

    ``algorithms`` are :func:`topogen.routing.route` names in order of preference (the
    first that topogen has is used: ``("anca", "updown")`` takes ANCA where it exists),
    ``base`` the route tables they are built on (``"nr"``: fewest hops, ``"fr"``: least
    latency; None: the algorithm's own), ``source`` where the paper says so.
    """

    algorithms: tuple[str, ...]
    base: str | None
    source: str

    def choose(self, available) -> str:
        """The first of :attr:`algorithms` that is in ``available``."""
        for name in self.algorithms:
            if name in available:
                return name
        raise ParameterError(f"none of the routings {', '.join(self.algorithms)} is available "
                             f"(have {', '.join(available)})")


_HOP = RoutingRecord(("hop",), "nr", "hop-minimal routes with VC k on hop k (Slim Fly IV-D; the MEMSYS "
                                     "paper's minimum-path tables)")
_DOR = RoutingRecord(("dor",), None, "dimension-order routing (dateline VCs on tori)")
_ESCAPE_FR = RoutingRecord(("escape",), "fr", "Silla-Duato adaptive routing on fastest routes with an "
                                              "up*/down* escape VC, 4 VCs (Skywalk IV-A)")
_ESCAPE_NR = RoutingRecord(("escape",), "nr", "adaptive minimal routing with an up*/down* escape VC, "
                                              "4 VCs (layout-conscious random topologies IV-C)")

#: the routing each generator's paper simulates, by generator name (:class:`RoutingRecord`)
ROUTING_RECORDS: dict[str, RoutingRecord] = {
    "slimfly": RoutingRecord(("hop",), "nr", "Slim Fly IV-D: MIN, hop-minimal routes with VC0/VC1 "
                                             "by hop index"),
    "dragonfly": RoutingRecord(("ugal-l",), "nr", "UGAL-L with 4 Valiant candidates and hop-indexed "
                                                  "VCs: Kim et al. (ISCA 2008) 4.1 and the Slim Fly "
                                                  "paper's DF-UGAL-L (V)"),
    "cabinet-dragonfly": RoutingRecord(("escape",), "fr", _ESCAPE_FR.source),
    "memsys-dragonfly": _HOP, "angelfish": _HOP, "angelfish-lite": _HOP,
    "flying-fish": _HOP, "flying-fish-lite": _HOP, "petersen": _HOP, "hoffman-singleton": _HOP,
    "polarfly": _HOP,
    **{name: _DOR for name in ("torus", "mesh", "hypercube", "hyperx", "flattened-butterfly")},
    **{name: RoutingRecord(("dor",), None, _DOR.source + " (Skywalk III-A baselines)")
       for name in ("cabinet-torus", "cabinet-hypercube", "cabinet-hyperx")},
    "folded-hypercube": _ESCAPE_NR,
    "skywalk": _ESCAPE_FR, "random": _ESCAPE_FR,
    "dsn": _ESCAPE_FR, "dln": _ESCAPE_FR, "dsnf": _ESCAPE_FR,
    "ring": _ESCAPE_NR, "nbr": _ESCAPE_NR, "gau": _ESCAPE_NR,
    **{f"{k}-{t}": _ESCAPE_NR for k in ("p", "pf") for t in ("torus", "hypercube", "fhypercube", "myrinet-clos")},
}
#: the record of a generator without its own, by family
FAMILY_ROUTING_RECORDS: dict[str, RoutingRecord] = {
    "fattree": RoutingRecord(("anca", "updown"), None, "fat trees: ANCA (adaptive up to a nearest common "
                                                      "ancestor, then down; the Slim Fly paper's FT-3), "
                                                      "else up*/down*"),
    "classic": _DOR, "slimfly": ROUTING_RECORDS["slimfly"], "dragonfly": ROUTING_RECORDS["dragonfly"],
    "fishnet": _HOP, "moore": _HOP, "memsys": _HOP, "polarfly": _HOP,
    "skywalk": _ESCAPE_FR, "random": _ESCAPE_FR, "dsn": _ESCAPE_FR,
    "permute": _ESCAPE_NR, "shortcut": _ESCAPE_NR,
}
#: the record of a topology no generator made (a file of another origin)
OTHER_ROUTING = RoutingRecord(("escape",), "nr", "any topology: adaptive minimal routing with an "
                                                 "up*/down* escape VC (topology-agnostic, deadlock-free)")


@dataclass(frozen=True)
class GeneratorSpec:
    name: str
    func: Callable
    params: tuple[Param, ...]
    summary: str
    family: str = ""
    random: bool = False
    routing: RoutingRecord = OTHER_ROUTING

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise ParameterError(
            f"{self.name} has no parameter {name!r}; its parameters are "
            + ", ".join(p.name for p in self.params)
        )

    def __call__(self, **kwargs):
        return self.func(**kwargs)


@dataclass(frozen=True)
class ExperimentSpec:
    name: str
    func: Callable
    params: tuple[Param, ...]
    summary: str
    paper: str = ""


def _type_name(t) -> str:
    if t is inspect.Parameter.empty or t is Any:
        return "value"
    origin = typing.get_origin(t)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(t) if a is not type(None)]
        return "|".join(_type_name(a) for a in args)
    if origin is tuple:
        args = typing.get_args(t)
        inner = _type_name(args[0]) if args else "value"
        return f"{inner},{inner},..."
    if origin is typing.Literal:
        return "{" + ",".join(str(a) for a in typing.get_args(t)) + "}"
    return getattr(t, "__name__", str(t))


def parse_value(text, t, name="value"):
    """Parse ``text`` (a CLI string) as type ``t``; ParameterError on failure."""
    if not isinstance(text, str):
        return text
    if t is inspect.Parameter.empty or t is Any:
        for conv in (int, float):
            try:
                return conv(text)
            except ValueError:
                pass
        return text
    origin = typing.get_origin(t)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(t) if a is not type(None)]
        if text.lower() in ("none", "") and type(None) in typing.get_args(t):
            return None
        errors = []
        for a in args:
            try:
                return parse_value(text, a, name)
            except ParameterError as exc:
                errors.append(str(exc))
        raise ParameterError(f"{name}: cannot read {text!r} as {_type_name(t)}")
    if origin is tuple:
        args = typing.get_args(t)
        inner = args[0] if args else int
        parts = re.split(r"\s*[,x×]\s*|\s+", text.strip())
        if not text.strip() or any(p == "" for p in parts):  # "4,4,", ",4", "4,,4": a value is missing
            raise ParameterError(f"{name}: {text!r} has an empty entry; give the values separated by "
                                 "commas, e.g. 4,4")
        return tuple(parse_value(p, inner, name) for p in parts)
    if origin is typing.Literal:
        choices = typing.get_args(t)
        for c in choices:
            if str(c) == text:
                return c
        raise ParameterError(f"{name} must be one of {', '.join(map(str, choices))}, got {text!r}")
    if t is bool:
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ParameterError(f"{name} must be true or false, got {text!r}")
    if t is int:
        try:
            return int(text)
        except ValueError:
            raise ParameterError(f"{name} must be an integer, got {text!r}") from None
    if t is float:
        try:
            return float(text)
        except ValueError:
            raise ParameterError(f"{name} must be a number, got {text!r}") from None
    if t is str:
        return text
    return text


def _numpydoc_params(doc: str | None) -> dict[str, str]:
    """Map parameter name -> first sentence of its numpydoc description."""
    if not doc:
        return {}
    doc = inspect.cleandoc(doc)
    m = re.search(r"^Parameters\n-+\n(.*?)(?:^\w[\w ]*\n-+\n|\Z)", doc, re.S | re.M)
    if not m:
        return {}
    out: dict[str, str] = {}
    current = None
    for line in m.group(1).splitlines():
        if line and not line[0].isspace():
            names = line.split(":")[0]
            current = [n.strip() for n in names.split(",")]
            for n in current:
                out[n] = ""
        elif current and line.strip():
            for n in current:
                if out[n]:
                    if not out[n].endswith("."):
                        out[n] += " " + line.strip()
                else:
                    out[n] = line.strip()
    return out


def _params_of(func) -> tuple[Param, ...]:
    sig = inspect.signature(func)
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # pragma: no cover - forward refs we cannot resolve
        hints = {}
    helps = _numpydoc_params(func.__doc__)
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        params.append(
            Param(
                name=p.name,
                type=hints.get(p.name, p.annotation),
                default=p.default,
                help=helps.get(p.name, ""),
                keyword_only=p.kind == p.KEYWORD_ONLY,
            )
        )
    return tuple(params)


def _summary(func) -> str:
    doc = inspect.getdoc(func) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


#: a full stop that ends a sentence: followed by white space or the end, and not the
#: dot of an abbreviation the papers' citations use ("Fig. 12", "Sec. IV", "et al. 2013")
_SENTENCE_END = re.compile(r"(?<!\bFig)(?<!\bFigs)(?<!\bSec)(?<!\bal)(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)"
                           r"(?<!\bEq)(?<!\bNo)(?<!\bcf)\.(?:\s|$)")


def first_sentence(text: str) -> str:
    """The first sentence of ``text``, without its full stop, for one-line listings
    (``topogen list``, ``topogen reproduce``): ``"Fig. 12 of the paper. More."`` gives
    ``"Fig. 12 of the paper"``."""
    text = " ".join(text.split())
    m = _SENTENCE_END.search(text)
    return text[:m.start()] if m else text.rstrip(".")


def routing_record(name: str, family: str = "") -> RoutingRecord:
    """The :class:`RoutingRecord` of generator ``name`` (or of its ``family``), else
    :data:`OTHER_ROUTING`."""
    if name not in _GENERATORS and not family:
        _load("topogen.generators")  # the generator's own record (and family)
    spec = _GENERATORS.get(name)
    if spec is not None:
        return spec.routing
    return ROUTING_RECORDS.get(name) or FAMILY_ROUTING_RECORDS.get(family) or OTHER_ROUTING


def register(name: str, *, family: str = "", summary: str | None = None,
             routing: RoutingRecord | None = None):
    """Decorator: register a generator under the CLI name ``name``; ``routing`` is the
    routing its paper simulates (default: :data:`ROUTING_RECORDS`, else its family's)."""

    def deco(func):
        if name in _GENERATORS and _GENERATORS[name].func is not func:
            raise RuntimeError(f"generator name {name!r} registered twice")
        params = _params_of(func)
        _GENERATORS[name] = GeneratorSpec(
            name=name,
            func=func,
            params=params,
            summary=summary or _summary(func),
            family=family or func.__module__.rsplit(".", 1)[-1],
            random=any(p.name == "seed" for p in params),
            routing=routing or routing_record(name, family or func.__module__.rsplit(".", 1)[-1]),
        )
        return func

    return deco


def register_experiment(name: str, *, paper: str = "", summary: str | None = None):
    """Decorator: register a paper reproduction run by ``topogen reproduce NAME``.

    The function takes keyword parameters (typed like a generator's) and returns an
    :class:`topogen.reproduce.base.ExperimentResult`.
    """

    def deco(func):
        _EXPERIMENTS[name] = ExperimentSpec(
            name=name, func=func, params=_params_of(func), summary=summary or _summary(func), paper=paper
        )
        return func

    return deco


def load_all() -> None:
    """Import every generator and experiment module (idempotent)."""
    _load("topogen.generators")
    _load("topogen.reproduce")


def _load(pkg_name: str) -> None:
    """Import every public module of ``pkg_name`` once: the generators register themselves
    in ``topogen.generators``, the reproductions in ``topogen.reproduce`` (so listing or
    building a generator does not import the reproductions and pandas)."""
    if pkg_name in _LOADED:
        return
    _LOADED.add(pkg_name)
    pkg = importlib.import_module(pkg_name)
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{pkg_name}.{info.name}")


def _close(name: str, names) -> str:
    import difflib

    near = difflib.get_close_matches(name, list(names), n=3)
    return f" (did you mean {', '.join(near)}?)" if near else ""


def get(name: str) -> GeneratorSpec:
    """The generator registered as ``name``."""
    _load("topogen.generators")
    try:
        return _GENERATORS[name]
    except KeyError:
        raise ParameterError(
            f"unknown topology {name!r}{_close(name, _GENERATORS)}; `topogen list` shows all"
        ) from None


def names() -> list[str]:
    _load("topogen.generators")
    return sorted(_GENERATORS)


def generators() -> dict[str, GeneratorSpec]:
    _load("topogen.generators")
    return dict(sorted(_GENERATORS.items()))


def generate(name: str, **kwargs):
    """Build topology ``name`` with keyword parameters (strings are parsed to their types)."""
    spec = get(name)
    known = {p.name: p for p in spec.params}
    parsed = {}
    for key, value in kwargs.items():
        if key not in known:
            raise ParameterError(
                f"{name} has no parameter {key!r}; its parameters are {', '.join(known)}"
            )
        parsed[key] = known[key].parse(value) if isinstance(value, str) else value
    missing = [p.name for p in spec.params if p.required and p.name not in parsed]
    if missing:
        raise ParameterError(
            f"{name} needs parameter(s) {', '.join(missing)}; `topogen list {name}` shows them"
        )
    _check_size(name, parsed)
    try:
        return spec.func(**parsed)
    except MemoryError as exc:
        from ._validate import available_memory, format_bytes

        avail = available_memory()
        have = f"; {format_bytes(avail)} are available" if avail is not None else ""
        raise ParameterError(f"{name} ran out of memory ({str(exc) or 'an allocation failed'}){have}; "
                             "choose smaller size parameters") from None


def _size_param(parsed: dict, key: str) -> int | None:
    v = parsed.get(key)
    return int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def _check_size(name: str, parsed: dict) -> None:
    """Refuse sizes the machine cannot hold before the generator allocates anything.

    Generators with a ``num_switches`` parameter (or ``switches_per_cabinet`` and
    ``cabinets``) get an estimate from it and their ``degree`` (default 4); the
    structured ones (tori, hypercubes, HyperX) check their exact size themselves.
    """
    from ._validate import check_topology_memory

    n = _size_param(parsed, "num_switches")
    z, c = _size_param(parsed, "switches_per_cabinet"), _size_param(parsed, "cabinets")
    if n is None and z is not None and c is not None:
        n = z * c
    if n is not None:
        degree = _size_param(parsed, "degree") or 4
        # random families build every instance and keep them to pick the best one
        copies = 1 if parsed.get("instance") is not None else _size_param(parsed, "instances") or 1
        each = f" per instance, {copies:,} instances" if copies > 1 else ""
        check_topology_memory(copies * n, copies * n * degree // 2,
                              f"{name} with {n:,} switches of degree {degree} (about "
                              f"{n * degree // 2:,} links{each})")


def experiment(name: str) -> ExperimentSpec:
    load_all()
    try:
        return _EXPERIMENTS[name]
    except KeyError:
        raise ParameterError(
            f"unknown reproduction {name!r}{_close(name, _EXPERIMENTS)}; "
            f"available: {', '.join(sorted(_EXPERIMENTS)) or 'none'}"
        ) from None


def experiments() -> dict[str, ExperimentSpec]:
    load_all()
    return dict(sorted(_EXPERIMENTS.items()))
