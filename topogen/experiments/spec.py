"""Experiment specs: a TOML file whose Cartesian product is a list of simulation points.

A spec has four parts (``docs/experiments.md`` has a complete example)::

    [experiment]
    name = "crossval-small"          # names the store and the SLURM jobs
    store = "crossval-small.store"   # results store (relative to the spec; default ./<name>.store)
    seconds_per_point = 0.5          # guess for `plan` until the store has measured points
    zip = [["load", "seed"]]         # axes that advance together instead of crossing

    [axes]                           # every value of every axis, crossed
    topology = [{generator = "torus", params = {dims = [4, 4]}}, {file = "net.json"}]
    layout = [{}, {switches_per_cabinet = 4, placement = "random"}]   # topogen.experiments.layouts
    routing = ["booksim-min"]
    traffic = ["uniform", "tornado"]
    load = [0.05, 0.1, "sweep"]      # "sweep": a load sweep to saturation, a row per load
    simulator = ["reference"]
    seed = [1]
    repeats = 1                      # each point again under derived seeds

    [measure]                        # settings of every point (shared simulator defaults)
    packet_size = 4

    [sweep]                          # settings of the "sweep" points (topogen.load_points)
    tolerance = 0.02

    [[exclude]]                      # points matching every key here are dropped
    traffic = "tornado"
    load = [0.1]

    [slurm]                          # defaults of `topogen experiment submit`
    partition = "debug"

A point is plain data (:class:`Point`); its id is a digest of its canonical content
(topology, layout unless the default, routing, traffic, load with the ``[sweep]`` settings
of a sweep, simulator, seed, repeat and the resolved measurement settings), so adding a value to an axis adds points and never renames old ones, and
reordering axes or values changes nothing.  Topology files enter the id by their content
digest, not their path.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .._digest import seed_from
from ..errors import ParameterError
from ..results import canonical_json
from .layouts import check_keys, parse_layout

__all__ = ["Experiment", "Point", "load_experiment", "parse_experiment", "point_id", "check_experiment",
           "AXES", "MEASURE_KEYS", "SLURM_KEYS", "SIMULATOR_ROUTINGS", "REFERENCE_KEYS"]

#: the axes a spec crosses, in point order
AXES = ("topology", "layout", "routing", "traffic", "load", "simulator", "seed")

_EXPERIMENT_KEYS = {"name": str, "store": str, "seconds_per_point": (int, float), "zip": list,
                    "description": str}
#: measurement settings (fields of :class:`topogen.reproduce.crossval.CrossvalSpec`)
MEASURE_KEYS = {"packet_size": int, "num_vcs": int, "vc_buf_size": int, "clock_ns": (int, float),
                "flit_bits": int, "link_latency": (int, str), "warmup_periods": int,
                "sample_period": int, "max_samples": int, "latency_thres": (int, float),
                "credit_delay": int, "timeout": (int, float), "internal_speedup": (int, float)}
#: defaults of ``topogen experiment submit``
SLURM_KEYS = {"partition": str, "account": str, "time": str, "mem": str, "chunk": int,
              "max_running": int, "cpus_per_task": int, "tasks_per_point": int, "extra": list}
_SECTIONS = ("experiment", "axes", "measure", "exclude", "slurm", "sweep", "reference")
#: settings of the reference simulator beyond ``[measure]`` (``[reference]``; reference-only
#: specs): router ``internal_speedup``, the routing's ``routing_base`` (``nr``, ``fr``,
#: ``updown``) and UGAL ``candidates``, and ``port_buffer``: flits per port shared by the
#: VCs, which are then the smallest multiple of the routing's VC count that is at least
#: ``[measure] num_vcs`` (``vc_buf_size = port_buffer // num_vcs``); ``router_delay``: cycles
#: a header spends in each switch (default 4: routing, VC and switch allocation, crossbar
#: one cycle each), ``switch_delay_ns``: the switch delay the ``fr`` base routes weigh
#: against the cables (default 60), ``self_packets``: whether uniform traffic may pick the
#: source itself (default true); ``ugal_threshold`` (flits added to a Valiant candidate's
#: cost, default 0) and ``ugal_count_packet`` (the packet's own flits counted in each queue,
#: default false): UGAL's optional readings (:class:`topogen.routing.ugal.UgalRouting`);
#: ``vc_ranges`` (default false): Valiant and UGAL hops on blocks of the VC classes
#: (:func:`topogen.routing.valiant.vc_ranges`)
REFERENCE_KEYS = {"internal_speedup": (int, float), "routing_base": str, "candidates": int, "port_buffer": int,
                  "router_delay": int, "switch_delay_ns": (int, float), "self_packets": bool,
                  "ugal_threshold": int, "ugal_count_packet": bool, "vc_ranges": bool}
#: settings of ``load = "sweep"`` points (:func:`topogen.load_points.knee_sweep`)
SWEEP_KEYS = {"low": (int, float), "high": (int, float), "tolerance": (int, float), "points": int}
_TOPOLOGY_KEYS = ("generator", "params", "file", "label", "booksim", "link_cycles")
_SIMULATORS = ("reference", "booksim", "sst")
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", bool: "true/false",
               dict: "a table"}


_ID_LEN = 16
_ID = re.compile(r"[0-9a-f]{16}\Z")


@dataclass(frozen=True)
class Point:
    """One simulation point of an experiment.

    ``content`` is the canonical data its id is made from; ``topology_file`` is the
    resolved path of a topology file (not part of the id: its content digest is);
    ``id_labels`` the labels the id is made with in place of the spec's ``label =``
    (:func:`point_id`'s ``labels``), kept so that a submission's ids can be checked.
    """

    id: str
    index: int
    content: dict
    topology_file: str | None = None
    id_labels: dict | None = None

    @property
    def label(self) -> str:
        c = self.content
        lay = f" layout={c['layout']['label']}" if c.get("layout") else ""
        load = "sweep" if c["load"] == "sweep" else f"{c['load']:g}"
        return (f"{c['topology']['label']}{lay} {c['routing']} {c['traffic']} load={load} "
                f"{c['simulator']} seed={c['seed']}" + (f" repeat={c['repeat']}" if c["repeat"] else ""))

    def to_dict(self) -> dict:
        d = {"id": self.id, "index": self.index, "content": self.content,
             "topology_file": self.topology_file}
        if self.id_labels:
            d["id_labels"] = self.id_labels
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Point":
        """A point from :meth:`to_dict`'s form (a submission's ``points.json``).

        Raises
        ------
        ValueError
            The id is not the 16 lowercase hex digits :func:`point_id` writes (it names
            files in the store), or the index is not an integer.
        """
        pid = d["id"]
        if not isinstance(pid, str) or not _ID.match(pid):
            raise ValueError(f"point id {str(pid)[:40]!r} is not {_ID_LEN} lowercase hex digits")
        index = d["index"]
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError(f"point index {index!r} of point {pid} is not an integer >= 0")
        if not isinstance(d["content"], dict):
            raise ValueError(f"content of point {pid} is not an object")
        labels = d.get("id_labels")
        if labels is not None and not (isinstance(labels, dict) and set(labels) <= {"topology", "layout"}
                                       and all(v is None or isinstance(v, str) for v in labels.values())):
            raise ValueError(f"id_labels of point {pid} must map topology/layout to a label")
        return cls(pid, index, d["content"], d.get("topology_file"), labels or None)


@dataclass
class Experiment:
    """A parsed spec: its points and settings."""

    name: str
    path: Path | None
    store: Path
    points: list[Point]
    measure: dict
    slurm: dict = field(default_factory=dict)
    seconds_per_point: float = 1.0
    simulators: tuple[str, ...] = ()


def point_id(content: dict, *, labels: dict | None = None) -> str:
    """The stable id of a point: 16 hex digits of the SHA-256 of its canonical content and
    of :data:`topogen.sim_defaults.RESULTS_REVISION` (a change of the simulators' numbers
    gives new ids, so a store never counts a row of the old numbers as done).

    A ``label`` is cosmetic (a name in tables) and changes no number: ``labels`` maps
    ``"topology"`` and ``"layout"`` to the label each would have without the spec's
    ``label =``, and the id is made with those in place of the given ones, so naming a
    topology or a layout reruns nothing (ids of specs without labels are unchanged)."""
    from ..sim_defaults import RESULTS_REVISION

    if labels:
        content = dict(content)
        for key, default in labels.items():
            if content.get(key) and default is not None:
                content[key] = {**content[key], "label": default}
    salt = b"topogen-experiment-point-1;" + (f"r{RESULTS_REVISION};".encode() if RESULTS_REVISION > 1 else b"")
    return hashlib.sha256(salt + canonical_json(content).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------- checking
def _where(path, section: str | None) -> str:
    at = f"[{section}] of " if section else ""
    return f"{at}{path}" if path else (f"[{section}]" if section else "the spec")


def _check_keys(doc: dict, known, path, section: str | None) -> None:
    check_keys(doc, known, _where(path, section))


def _type_ok(value, types) -> bool:
    types = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _want(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    if set(types) == {int, float}:
        return "a number"
    return " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)


def _check_type(key: str, value, types, path, section) -> None:
    if not _type_ok(value, types):
        raise ParameterError(f"{key} in {_where(path, section)} must be {_want(types)}, "
                             f"got {value!r} ({type(value).__name__})")


def _axis_list(axes: dict, name: str, types, path, default=None) -> list:
    if name not in axes:
        if default is None:
            raise ParameterError(f"{_where(path, 'axes')} needs {name} = [...] (a list of values)")
        return list(default)
    values = axes[name]
    if not isinstance(values, list):
        values = [values]
    if not values:
        raise ParameterError(f"axis {name} in {_where(path, 'axes')} is empty; give at least one value")
    for v in values:
        if not _type_ok(v, types):
            raise ParameterError(f"axis {name} in {_where(path, 'axes')} takes values that are each {_want(types)}, "
                                 f"got {v!r} ({type(v).__name__})")
    if len({canonical_json(v) for v in values}) != len(values):
        raise ParameterError(f"axis {name} in {_where(path, 'axes')} lists a value twice")
    return values


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _topology(entry, path, base: Path) -> tuple[dict, str | None, str]:
    """(canonical content, resolved file, label without ``label =``) of one ``topology``
    axis value."""
    from .. import registry

    if not isinstance(entry, dict):
        raise ParameterError(f"axis topology in {_where(path, 'axes')} takes tables such as "
                             f'{{generator = "torus", params = {{dims = [4, 4]}}}} or {{file = "net.json"}}, '
                             f"got {entry!r}")
    _check_keys(entry, _TOPOLOGY_KEYS, path, "axes.topology")
    if ("generator" in entry) == ("file" in entry):
        raise ParameterError(f"a topology in {_where(path, 'axes')} needs exactly one of generator or file, "
                             f"got {entry!r}")
    label = entry.get("label")
    if label is not None:
        _check_type("label", label, str, path, "axes.topology")
    if "file" in entry:
        _check_type("file", entry["file"], str, path, "axes.topology")
        if "params" in entry:
            raise ParameterError(f"topology file {entry['file']} carries its own parameters; drop params "
                                 f"in {_where(path, 'axes')}")
        f = Path(entry["file"])
        f = f if f.is_absolute() else base / f
        if not f.is_file():
            raise ParameterError(f"topology file {f} named in {_where(path, 'axes')} does not exist")
        return {"file_digest": _file_digest(f), "label": label or f.stem}, str(f.resolve()), f.stem
    _check_type("generator", entry["generator"], str, path, "axes.topology")
    gen = registry.get(entry["generator"])
    params = entry.get("params", {})
    _check_type("params", params, dict, path, "axes.topology")
    known = [p.name for p in gen.params if p.name != "seed"]
    _check_keys(params, known, path, f"axes.topology params of {gen.name}")
    missing = [p.name for p in gen.params if p.required and p.name not in params]
    if missing:
        raise ParameterError(f"{gen.name} in {_where(path, 'axes')} needs parameter(s) {', '.join(missing)}; "
                             f"`topogen list {gen.name}` shows them")
    for p in gen.params:
        if p.name in params and not _param_ok(params[p.name], p.type):
            raise ParameterError(f"{gen.name} parameter {p.name} in {_where(path, 'axes')} must be "
                                 f"{p.type_name}, got {params[p.name]!r} ({type(params[p.name]).__name__})")
    text = ",".join(f"{k}={canonical_json(v)}" for k, v in sorted(params.items()))
    default = f"{gen.name}({text})" if text else gen.name
    content = {"generator": gen.name, "params": json.loads(canonical_json(params)), "label": label or default}
    if "booksim" in entry or "link_cycles" in entry:  # BookSim's own network (topogen.experiments.native)
        from .native import check_native

        if "booksim" not in entry:
            raise ParameterError(f"link_cycles in {_where(path, 'axes')} goes with booksim (BookSim's own network "
                                 f"whose channels have those latencies); {default} has no booksim table")
        check_native(entry["booksim"], entry.get("link_cycles"), f"{_where(path, 'axes')} ({default})")
        content["booksim"] = json.loads(canonical_json(entry["booksim"]))
        if "link_cycles" in entry:
            content["link_cycles"] = json.loads(canonical_json(entry["link_cycles"]))
    return content, None, default


def _param_ok(value, t) -> bool:
    """Whether a TOML value fits a generator parameter's annotation (int, float, bool, str,
    tuple[...], Literal[...], X | None); unknown annotations accept anything."""
    import inspect
    import types
    import typing

    if t is inspect.Parameter.empty or t is typing.Any:
        return True
    origin = typing.get_origin(t)
    if origin in (typing.Union, types.UnionType):
        return any(value is None if a is type(None) else _param_ok(value, a) for a in typing.get_args(t))
    if origin is tuple:
        args = [a for a in typing.get_args(t) if a is not Ellipsis] or [typing.Any]
        return isinstance(value, list) and all(_param_ok(v, args[0]) for v in value)
    if origin is typing.Literal:
        return value in typing.get_args(t)
    if t is bool:
        return isinstance(value, bool)
    if t is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if t is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t is str:
        return isinstance(value, str)
    return True


def _measure(doc: dict, path) -> dict:
    """The resolved measurement settings (every field of CrossvalSpec the spec controls)."""
    from .simulators import CrossvalSpec

    _check_keys(doc, MEASURE_KEYS, path, "measure")
    for k, v in doc.items():
        _check_type(k, v, MEASURE_KEYS[k], path, "measure")
    args = dict(doc)
    if args.get("link_latency") == "layout":
        args["link_latency"] = None
    elif isinstance(args.get("link_latency"), str):
        raise ParameterError(f"link_latency in {_where(path, 'measure')} is a number of cycles or \"layout\", "
                             f"got {args['link_latency']!r}")
    try:
        spec = CrossvalSpec(topology="spec-check", **args)  # validates and applies the shared defaults
        resolved = {k: getattr(spec, k) for k in MEASURE_KEYS}
        if resolved["internal_speedup"] is None:  # given only: specs without it keep their ids
            del resolved["internal_speedup"]
        _check_simulated(resolved)
    except ParameterError as exc:
        raise ParameterError(f"{_where(path, 'measure')}: {exc}") from None
    return resolved


def _check_simulated(measure: dict) -> None:
    """The checks the simulators apply to a point's settings (ranges, sizes, the length of a
    run), here at plan time, so a bad setting stops the plan instead of being stored as a
    failed point."""
    from ..sim.config import SimConfig

    fields = set(SimConfig.__dataclass_fields__)
    SimConfig(**{k: v for k, v in measure.items() if k in fields and v is not None})
    t = measure.get("timeout")
    if t is not None and not (isinstance(t, (int, float)) and math.isfinite(t) and 0 < t <= MAX_TIMEOUT):
        raise ParameterError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT}], got {t!r}")


#: longest run of one BookSim/SST simulation a spec may allow (seconds: 30 days)
MAX_TIMEOUT = 30 * 24 * 3600


def _sweep(doc: dict, path) -> dict:
    """The resolved settings of the ``load = "sweep"`` points (``[sweep]``)."""
    from ..load_points import SWEEP_DEFAULTS, check_points

    if not isinstance(doc, dict):
        raise ParameterError(f"sweep in {path or 'the spec'} must be a table [sweep], got {doc!r}")
    _check_keys(doc, SWEEP_KEYS, path, "sweep")
    for k, v in doc.items():
        _check_type(k, v, SWEEP_KEYS[k], path, "sweep")
    out = {**SWEEP_DEFAULTS, **doc}
    low, high, tol = (float(out[k]) for k in ("low", "high", "tolerance"))
    if not (0 < low < high <= 1) or not tol > 0:
        raise ParameterError(f"[sweep] in {path or 'the spec'} needs 0 < low < high <= 1 and tolerance > 0, "
                             f"got low={low:g}, high={high:g}, tolerance={tol:g}")
    try:
        check_points(out["points"])
    except ParameterError as exc:
        raise ParameterError(f"points in [sweep] of {path or 'the spec'}: {str(exc).replace('--points ', '')}") \
            from None
    return {"low": low, "high": high, "tolerance": tol, "points": int(out["points"])}


def _reference_of(reference: dict, routing: str) -> dict:
    """``reference`` as a point of ``routing`` records it: without the [reference] keys
    that only some routings take (:data:`topogen.routing.names.ROUTING_OPTIONS`) and this
    one does not, so its content (and id) is the same with or without them."""
    from ..routing.names import ROUTING_OPTIONS as only

    if not any(k in reference and routing not in rs for k, rs in only.items()):
        return reference
    return {k: v for k, v in reference.items() if k not in only or routing in only[k]}


def _reference(doc, path, simulators, traffics) -> dict | None:
    """The resolved ``[reference]`` settings (None without the section); its points run
    only on the reference simulator, which takes every pattern of
    :mod:`topogen.sim.traffic` on the ``traffic`` axis."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise ParameterError(f"reference in {path or 'the spec'} must be a table [reference], got {doc!r}")
    _check_keys(doc, REFERENCE_KEYS, path, "reference")
    for k, v in doc.items():
        _check_type(k, v, REFERENCE_KEYS[k], path, "reference")
    if set(simulators) != {"reference"}:
        raise ParameterError(f"[reference] in {path or 'the spec'} sets the reference simulator alone: "
                             f"its simulator axis must be [\"reference\"], got {simulators!r}")
    out = {"internal_speedup": float(doc.get("internal_speedup", 1.0)), "candidates": int(doc.get("candidates", 4))}
    if "routing_base" in doc:
        if doc["routing_base"] not in ("nr", "fr", "updown"):
            raise ParameterError(f"routing_base in {_where(path, 'reference')} must be nr, fr or updown, "
                                 f"got {doc['routing_base']!r}")
        out["routing_base"] = doc["routing_base"]
    if "port_buffer" in doc:
        if doc["port_buffer"] < 1:
            raise ParameterError(f"port_buffer in {_where(path, 'reference')} must be a positive number of "
                                 f"flits, got {doc['port_buffer']!r}")
        out["port_buffer"] = int(doc["port_buffer"])
    # the keys below enter a point's content (and id) only when given: older specs keep their ids
    if "router_delay" in doc:
        if doc["router_delay"] < 4:
            raise ParameterError(f"router_delay in {_where(path, 'reference')} is the cycles a header spends in a "
                                 f"switch, at least 4 (routing, VC and switch allocation, crossbar), "
                                 f"got {doc['router_delay']!r}")
        out["router_delay"] = int(doc["router_delay"])
    if "switch_delay_ns" in doc:
        if not (math.isfinite(doc["switch_delay_ns"]) and doc["switch_delay_ns"] >= 0):
            raise ParameterError(f"switch_delay_ns in {_where(path, 'reference')} must be a delay >= 0 ns, "
                                 f"got {doc['switch_delay_ns']!r}")
        out["switch_delay_ns"] = float(doc["switch_delay_ns"])
    if "self_packets" in doc:
        out["self_packets"] = bool(doc["self_packets"])
    # UGAL's optional readings enter only when they change the rule (the printed rule's ids stay)
    if doc.get("ugal_threshold", 0):
        if doc["ugal_threshold"] < 0:
            raise ParameterError(f"ugal_threshold in {_where(path, 'reference')} is flits added to the cost of a "
                                 f"Valiant candidate, >= 0 (0: the rule as printed), got {doc['ugal_threshold']!r}")
        out["ugal_threshold"] = int(doc["ugal_threshold"])
    if doc.get("ugal_count_packet", False):
        out["ugal_count_packet"] = True
    if doc.get("vc_ranges", False):  # (likewise only when set)
        out["vc_ranges"] = True
    if not (math.isfinite(out["internal_speedup"]) and out["internal_speedup"] >= 1):
        raise ParameterError(f"internal_speedup in {_where(path, 'reference')} must be >= 1, "
                             f"got {out['internal_speedup']!r}")
    if out["candidates"] < 1:
        raise ParameterError(f"candidates in {_where(path, 'reference')} must be >= 1, got {out['candidates']}")
    from ..sim.traffic import PATTERNS

    for t in traffics:
        name = t.split(":", 1)[0]
        if name not in PATTERNS or (":" in t and (name != "shift" or not t[6:].lstrip("-").isdigit())):
            raise ParameterError(f"traffic {t!r} in {_where(path, 'axes')} is not a reference-simulator pattern "
                                 f"({', '.join(PATTERNS)}, shift:K)")
    return out


def _matches(content: dict, rule: dict) -> bool:
    for axis, want in rule.items():
        wants = want if isinstance(want, list) else [want]
        have = content[axis] if axis != "repeat" else content["repeat"]
        if axis == "topology":
            t = content["topology"]
            if not any(w in (t["label"], t.get("generator")) for w in wants):
                return False
        elif axis == "layout":
            lay = content.get("layout") or {}
            if not any(w == lay.get("label", "default") or w == lay.get("placement") for w in wants):
                return False
        elif axis == "load":
            if not any(w == have if isinstance(w, str) or isinstance(have, str) else
                       not isinstance(w, bool) and isinstance(w, (int, float)) and math.isclose(w, have)
                       for w in wants):
                return False
        elif have not in wants:
            return False
    return True


# ---------------------------------------------------------------------------- parsing
def parse_experiment(doc: dict, *, path=None, store=None) -> Experiment:
    """An :class:`Experiment` from a parsed TOML document.

    Parameters
    ----------
    doc : dict
        The TOML document.
    path : path-like, optional
        The spec file (messages name it; relative paths are resolved beside it).
    store : path-like, optional
        Results store folder (default: ``[experiment] store``, else ``<name>.store`` in the
        working folder).

    Raises
    ------
    ParameterError
        An unknown key (the nearest valid key is named), a value of the wrong type or
        range, an empty product.
    """
    base = Path(path).resolve().parent if path else Path.cwd()
    _check_keys(doc, _SECTIONS, path, None)
    for sec in ("experiment", "axes", "measure", "slurm"):
        if sec in doc and not isinstance(doc[sec], dict):
            raise ParameterError(f"{sec} in {path or 'the spec'} must be a table [{sec}], got {doc[sec]!r}")
    head = doc.get("experiment", {})
    _check_keys(head, _EXPERIMENT_KEYS, path, "experiment")
    for k, v in head.items():
        _check_type(k, v, _EXPERIMENT_KEYS[k], path, "experiment")
    name = _experiment_name(head, path)
    axes = doc.get("axes")
    if not axes:
        raise ParameterError(f"{path or 'the spec'} needs an [axes] table (topology, load ...)")
    _check_keys(axes, AXES + ("repeats",), path, "axes")
    topo = [_topology(t, path, base) for t in _axis_list(axes, "topology", dict, path)]
    # labels are cosmetic: two entries that differ only by label are the same topology
    if len({canonical_json({**t[0], "label": t[2]}) for t in topo}) != len(topo):
        raise ParameterError(f"axis topology in {_where(path, 'axes')} lists a topology twice "
                             "(entries that differ only by label are the same topology)")
    layout_entries = _axis_list(axes, "layout", dict, path, default=[{}])
    layouts = [parse_layout(v, _where(path, "axes")) for v in layout_entries]
    layout_labels = [parse_layout({k: x for k, x in v.items() if k != "label"}, _where(path, "axes")).get("label")
                     for v in layout_entries]
    if len({canonical_json({**v, "label": d} if v else v) for v, d in zip(layouts, layout_labels)}) != len(layouts):
        raise ParameterError(f"axis layout in {_where(path, 'axes')} lists a layout twice "
                             "(entries that differ only by label are the same layout)")
    values = {
        "topology": list(range(len(topo))),
        "layout": list(range(len(layouts))),
        "routing": _axis_list(axes, "routing", str, path, default=["booksim-min"]),
        "traffic": _axis_list(axes, "traffic", str, path, default=["uniform"]),
        "load": _axis_list(axes, "load", (int, float, str), path),
        "simulator": _axis_list(axes, "simulator", str, path, default=["reference"]),
        "seed": _axis_list(axes, "seed", int, path, default=[1]),
    }
    from ..routing import ALGORITHMS

    reference = _reference(doc.get("reference"), path, values["simulator"], values["traffic"])
    if reference is not None and any("booksim" in t[0] for t in topo):
        raise ParameterError(f"[reference] in {path or 'the spec'} sets the reference simulator alone; a topology "
                             "with booksim options is BookSim's own network, run beside BookSim: drop one of them")
    checked = (("routing", ALGORITHMS), ("simulator", _SIMULATORS)) + (
        () if reference is not None else (("traffic", ("uniform", "tornado")),))
    for axis, valid in checked:
        for v in values[axis]:
            if v not in valid:
                near = difflib.get_close_matches(v, list(valid), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise ParameterError(f"{axis} {v!r} in {_where(path, 'axes')} is not one of "
                                     f"{', '.join(valid)}{hint}")
    for v in values["load"]:
        if isinstance(v, str):
            if v != "sweep":
                raise ParameterError(f"load {v!r} in {_where(path, 'axes')} is not a number; the one word "
                                     "it takes is \"sweep\" (a load sweep to saturation)")
            continue
        if not (0 < v <= 1) or not math.isfinite(v):
            raise ParameterError(f"load {v!r} in {_where(path, 'axes')} must be in (0, 1] flits/node/cycle")
    for v in values["seed"]:
        if not 0 <= v < 2 ** 63:
            raise ParameterError(f"seed {v} in {_where(path, 'axes')} must be in [0, 2**63)")
    repeats = axes.get("repeats", 1)
    _check_type("repeats", repeats, int, path, "axes")
    if repeats < 1:
        raise ParameterError(f"repeats in {_where(path, 'axes')} must be >= 1, got {repeats}")
    spp = head.get("seconds_per_point", 1.0)
    if not (math.isfinite(spp) and spp > 0):
        raise ParameterError(f"seconds_per_point in {_where(path, 'experiment')} must be a finite positive "
                             f"number of seconds, got {spp!r}")
    measure = _measure(doc.get("measure", {}), path)
    sweep = _sweep(doc.get("sweep", {}), path)
    if "sweep" in doc and "sweep" not in values["load"]:
        raise ParameterError(f"[sweep] in {path or 'the spec'} applies to load = \"sweep\", which no point has")
    slurm = doc.get("slurm", {})
    _check_keys(slurm, SLURM_KEYS, path, "slurm")
    for k, v in slurm.items():
        _check_type(k, v, SLURM_KEYS[k], path, "slurm")
    if "extra" in slurm:
        from .sbatch import check_extra

        check_extra(slurm["extra"], f"extra in {_where(path, 'slurm')}")
    groups = _groups(head.get("zip", []), values, path)
    _check_size(groups, values, repeats, path, float(spp))
    rules = doc.get("exclude", [])
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise ParameterError(f"exclude in {path or 'the spec'} is a list of tables [[exclude]]")
    for r in rules:
        _check_keys(r, AXES + ("repeat",), path, "exclude")
    points: list[Point] = []
    seen = set()
    for combo in itertools.product(*[list(zip(*[values[a] for a in g])) for g in groups]):
        chosen = {a: v for g, vs in zip(groups, combo) for a, v in zip(g, vs)}
        t_content, t_file, t_default = topo[chosen["topology"]]
        for r in range(repeats):
            seed = chosen["seed"] if r == 0 else seed_from("topogen-experiment-repeat", chosen["seed"], r)
            load = chosen["load"]
            content = {"topology": t_content, "routing": chosen["routing"], "traffic": chosen["traffic"],
                       "load": load if load == "sweep" else float(load), "simulator": chosen["simulator"],
                       "seed": int(chosen["seed"]), "repeat": r, "sim_seed": int(seed),
                       "measure": measure}
            if reference is not None:  # specs without [reference] keep their ids
                content["reference"] = _reference_of(reference, chosen["routing"])
            if layouts[chosen["layout"]]:  # the default layout enters no id (old ids stay)
                content["layout"] = layouts[chosen["layout"]]
            if load == "sweep":
                content["sweep"] = sweep
            if any(_matches(content, rule) for rule in rules):
                continue
            id_labels = {"topology": t_default, "layout": layout_labels[chosen["layout"]]}
            pid = point_id(content, labels=id_labels)
            if pid in seen:
                continue
            seen.add(pid)
            changed = {k: v for k, v in id_labels.items() if v is not None and content.get(k)
                       and content[k].get("label") != v}
            points.append(Point(pid, len(points), content, t_file, changed or None))
    if not points:
        raise ParameterError(f"{path or 'the spec'} has no points: [[exclude]] removed every combination")
    store_dir = _store_dir(head, name, path, base, store)
    sims = tuple(s for s in _SIMULATORS if any(p.content["simulator"] == s for p in points))
    return Experiment(name=name, path=Path(path) if path else None, store=store_dir, points=points,
                      measure=measure, slurm=dict(slurm),
                      seconds_per_point=float(head.get("seconds_per_point", 1.0)), simulators=sims)


def _experiment_name(head: dict, path) -> str:
    """``[experiment] name`` (checked: it names the store, files and SLURM jobs), else the
    spec file's stem with every character outside the name alphabet replaced by ``_``."""
    from .._safe_text import check_name, safe_stem

    if "name" in head:
        return check_name(head["name"], f"name in {_where(path, 'experiment')}",
                          'e.g. name = "crossval-small"')
    return safe_stem(Path(path).stem, 100, "experiment") if path else "experiment"


def _store_dir(head: dict, name: str, path, base: Path, store) -> Path:
    """The store folder: ``store`` (the --store option), else ``[experiment] store``
    (relative to the spec), else ``<name>.store`` in the working folder (never beside the
    spec, which may sit in a source tree), which must stay inside it."""
    from .._safe_text import first_unsafe

    if store is not None:
        if first_unsafe(str(store)) is not None:
            raise ParameterError(f"store folder {str(store)!r} holds a control or line-break character; "
                                 "name a folder without one")
        return Path(store)
    given = head.get("store")
    if given is not None:
        bad = first_unsafe(given)
        if bad is not None or not given:
            raise ParameterError(f"store in {_where(path, 'experiment')} must be a folder name without "
                                 f"control or line-break characters, got {given!r}")
        d = Path(given)
        return d if d.is_absolute() else base / d
    cwd = Path.cwd()
    d = cwd / f"{name}.store"
    if os.path.dirname(os.path.normpath(d)) != os.path.normpath(cwd):  # name is checked: belt and braces
        raise ParameterError(f"the default store of experiment {name!r} would lie outside the working "
                             f"folder {cwd}; set [experiment] store or pass --store DIR")
    return d


#: most points a spec may expand to (each is a record, an id and a row of the store)
MAX_POINTS = 10 ** 6


def _check_size(groups, values: dict, repeats: int, path, seconds_per_point: float = 1.0) -> None:
    """Refuse, before expanding anything, a spec whose product of axes exceeds
    :data:`MAX_POINTS` (the count is a product of the axis lengths, not an expansion)."""
    sizes = [(" & ".join(g), len(values[g[0]])) for g in groups] + [("repeats", repeats)]
    count = math.prod(n for _, n in sizes)
    if count > MAX_POINTS:
        factors = " x ".join(f"{n:,} {name}" for name, n in sizes if n != 1) or "1"
        hours = count * seconds_per_point / 3600
        raise ParameterError(f"{path or 'the spec'} asks for {count:,} points ({factors}; about {hours:,.0f} "
                             f"core-hours at {seconds_per_point:g} s/point), more than the limit of {MAX_POINTS:,} "
                             "points per spec; use fewer axis values or repeats, or split it into several specs")


def _groups(zips, values: dict, path) -> list[tuple[str, ...]]:
    """Axis groups of the product: each ``zip`` group advances together, other axes alone."""
    if not all(isinstance(z, list) and len(z) >= 2 and all(isinstance(a, str) for a in z) for z in zips):
        raise ParameterError(f"zip in {_where(path, 'experiment')} is a list of axis-name lists, "
                             f'e.g. zip = [["load", "seed"]], got {zips!r}')
    used: list[str] = []
    groups = []
    for z in zips:
        for a in z:
            if a not in AXES:
                near = difflib.get_close_matches(a, list(AXES), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise ParameterError(f"zip names unknown axis {a!r} in {_where(path, 'experiment')}{hint}")
            if a in used:
                raise ParameterError(f"axis {a} is in two zip groups in {_where(path, 'experiment')}")
            used.append(a)
        sizes = {a: len(values[a]) for a in z}
        if len(set(sizes.values())) != 1:
            raise ParameterError(f"zipped axes need equal lengths in {_where(path, 'experiment')}, got "
                                 + ", ".join(f"{a}: {n}" for a, n in sizes.items()))
        groups.append(tuple(z))
    return [g for g in groups] + [(a,) for a in AXES if a not in used]


# ---------------------------------------------------------------------------- point checks
#: routings each simulator can take, when it cannot take every one: BookSim's anynet routes
#: only with its own minimal tables (``min_anynet``, topogen's ``booksim-min``: another routing
#: would run as that one under another name); SST anytopo's UGAL sees only the source router's
#: queues, so UGAL-G cannot be exported.  The reference simulator takes every routing.
SIMULATOR_ROUTINGS = {
    "booksim": ("booksim-min",),
    "sst": ("nr", "fr", "booksim-min", "updown", "dor", "valiant", "escape", "hop", "layered", "dsnf", "ugal-l"),
}
_SIMULATOR_WHY = {
    "booksim": "BookSim's anynet routes only with its own minimal tables (min_anynet, topogen's booksim-min)",
    "sst": "SST anytopo's UGAL sees only the source router's queues, so ugal-g cannot be exported",
}

#: networks of at most this many switches (estimated from ``num_switches`` or
#: ``switches_per_cabinet`` x ``cabinets`` before building) are built at plan time, and their
#: routings of at most :data:`CHECK_ROUTING_SWITCHES`; bigger ones get the light checks only
#: (parameter types, the memory estimate, dimension-order routing's shape)
CHECK_BUILD_SWITCHES = 4096
CHECK_ROUTING_SWITCHES = 1024


def _estimated_switches(params: dict) -> int | None:
    def num(key):
        v = params.get(key)
        return int(v) if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None

    n = num("num_switches")
    if n is None and num("switches_per_cabinet") and num("cabinets"):
        n = num("switches_per_cabinet") * num("cabinets")
    return n


def check_experiment(exp: Experiment) -> None:
    """Refuse, before anything runs or is queued, points that could only fail.

    Each distinct topology is checked once (the generator's own parameter checks, its size
    against the machine's memory; networks up to :data:`CHECK_BUILD_SWITCHES` switches are
    built), each distinct topology x routing once (the routing is built for networks up to
    :data:`CHECK_ROUTING_SWITCHES` switches; dimension-order routing's shape is checked at
    any size), each layout on its topology (placements other than ``clustered``), and each
    simulator x routing against :data:`SIMULATOR_ROUTINGS`.

    Raises
    ------
    ParameterError
        Naming the first point that fails (its id and label), how many points share the
        problem, and the problem as the generator, routing or simulator states it.
    """
    from ..errors import TopogenError

    groups: dict = {}
    for p in exp.points:
        c = p.content
        if c["topology"].get("booksim"):  # BookSim's own network: its routing function, checked when built
            continue
        groups.setdefault(("sim", c["simulator"], c["routing"]), []).append(p)
    for (_, sim, routing), pts in groups.items():
        allowed = SIMULATOR_ROUTINGS.get(sim)
        if sim == "sst" and pts[0].content["measure"].get("internal_speedup", 1) != 1:
            raise ParameterError(f"{_first(pts)}: SST merlin's hr_router has no internal speedup; drop "
                                 f"internal_speedup from [measure] or sst from the simulator axis in "
                                 f"{exp.path or 'the spec'}")
        if allowed is not None and routing not in allowed:
            raise ParameterError(
                f"{_first(pts)}: simulator {sim} cannot take routing {routing}: {_SIMULATOR_WHY[sim]}; "
                f"{sim} takes {', '.join(allowed)}. Drop {routing} for {sim} with [[exclude]] "
                f'simulator = "{sim}", routing = "{routing}" in {exp.path or "the spec"}')
    networks: dict = {}
    for p in exp.points:
        networks.setdefault(canonical_json([p.content["topology"], p.topology_file]), []).append(p)
    for pts in networks.values():
        try:
            topology, layout = _check_network(pts[0])
        except TopogenError as exc:
            raise ParameterError(f"{_first(pts)}: {exc}") from None
        by_routing: dict = {}
        by_layout: dict = {}
        for p in pts:
            by_routing.setdefault((p.content["routing"], p.content["measure"].get("link_latency")), []).append(p)
            if p.content.get("layout"):
                by_layout.setdefault(canonical_json(p.content["layout"]), []).append(p)
        for rpts in by_routing.values():
            try:
                _check_routing(rpts[0], topology, layout)
            except TopogenError as exc:
                raise ParameterError(f"{_first(rpts)}: routing {rpts[0].content['routing']}: {exc}") from None
        for lpts in by_layout.values():
            try:
                _check_layout(lpts[0], topology)
            except TopogenError as exc:
                raise ParameterError(f"{_first(lpts)}: layout {lpts[0].content['layout'].get('label')}: {exc}") \
                    from None


def _first(points) -> str:
    more = f" and {len(points) - 1} more point(s) like it" if len(points) > 1 else ""
    return f"point {points[0].id} ({points[0].label}){more}"


def _check_network(point):
    """(topology, default layout) of a point's network, or (None, None) when it is too big
    to build at plan time (then only its memory estimate is checked)."""
    from .. import registry
    from .runner import crossval_spec
    from .simulators import build_network

    t = point.content["topology"]
    if point.topology_file is None:
        n = _estimated_switches(t.get("params", {}))
        if n is not None and n > CHECK_BUILD_SWITCHES:
            registry._check_size(t["generator"], dict(t.get("params", {})))
            return None, None
    spec = crossval_spec(point)
    return build_network(spec, spec.seed)


def _check_routing(point, topology, layout) -> None:
    routing = point.content["routing"]
    if topology is None:
        return
    if routing == "dor":
        from ..routing.dor import _shape

        _shape(topology, None, None)
    if topology.num_switches > CHECK_ROUTING_SWITCHES:
        return
    from .runner import crossval_spec, point_routing

    spec = crossval_spec(point)
    point_routing(point, spec, topology, layout)


def _check_layout(point, topology) -> None:
    content = point.content["layout"]
    if topology is None or content.get("placement") == "clustered":
        return
    from .layouts import build_layout

    build_layout(topology, content, point.content["sim_seed"])


def load_experiment(path, *, store=None) -> Experiment:
    """Read and expand the TOML spec at ``path`` (see :func:`parse_experiment`).

    Raises
    ------
    FormatError
        Not TOML (the message names the line).
    ParameterError
        The file is missing or the spec is invalid.
    """
    from .._input import SMALL_FILE_BYTES, parse_toml, read_text_file

    path = Path(path)
    try:
        text = read_text_file(path, limit_bytes=SMALL_FILE_BYTES, what="experiment spec")
    except FileNotFoundError:
        raise ParameterError(f"experiment spec {path} does not exist") from None
    except OSError as exc:
        raise ParameterError(f"cannot read experiment spec {path}: {getattr(exc, 'strerror', None) or exc}") from None
    doc = parse_toml(text, path=path, what="experiment spec")
    return parse_experiment(doc, path=path, store=store)

