"""BookSim2 export: ``anynet`` netlists and typed configuration files.

The netlist follows the "safe exporter subset" of BookSim's anynet parser (see
``docs/booksim.md``): one ``router r`` line per router, its ``node n`` tokens without
latency, then every outgoing neighbour as ``router s L`` with an explicit latency
``L >= 1`` cycles.  Each directed link is written exactly once, on its source's line, so
both directions carry their latency.  Tokens are separated by single spaces, lines end
with ``\\n``, routers are ``0..R-1`` and nodes ``0..N-1`` (hosts of switch ``v`` are
numbered contiguously, in switch order).  anynet has no comment syntax, so the metadata
(generator, parameters, seed, topogen version, clock period) goes into a sidecar
``<netlist>.meta.json`` and into the ``//`` comment header of the configuration file.

Configurations are rendered from the Jinja2 templates in
``topogen/templates/booksim/`` (mirrored at the repository root as ``booksim_configs/``).
Every option is typed the way BookSim's parser demands (floats always with a decimal
point, integers without, bare string tokens), unknown option names are refused.

Exports travel: ``network_file`` (and a ``stats_out``/``watch_out`` file inside the
configuration's folder) is written relative to the configuration's folder -- the bare
netlist name for :func:`export_booksim` -- and BookSim, which opens it relative to its
working directory, is run from that folder (:func:`topogen.drivers.booksim.run_booksim`
does so; by hand: ``cd FOLDER && booksim NAME.cfg``).  A copy of the folder runs anywhere.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import sim_defaults
from .._safe_text import safe_stem
from ..sim_defaults import link_latency_cycles
from .._version import __version__
from ..errors import ParameterError, TopologyError
from ..results import atomic_write_text, canonical_json

__all__ = [
    "BOOKSIM_FIELDS",
    "SETUPS",
    "PAPER_TRAFFIC",
    "TRAFFIC_PATTERNS",
    "BookSimExport",
    "link_latency_cycles",
    "anynet_text",
    "write_anynet",
    "format_option",
    "render_config",
    "write_config",
    "export_booksim",
    "check_traffic",
    "template_dir",
]

#: Type of every BookSim option topogen may write: ``int``, ``float`` or ``str``.
#: BookSim types values by their lexical form and rejects a value whose form does not
#: match the field (``injection_rate = 1;`` is "Unknown integer field").
BOOKSIM_FIELDS: dict[str, type] = {
    # network
    "topology": str, "network_file": str, "routing_function": str, "subnets": int,
    # router microarchitecture
    "router": str, "num_vcs": int, "vc_buf_size": int, "buf_size": int, "buffer_policy": str,
    "vc_allocator": str, "sw_allocator": str, "alloc_iters": int, "arb_type": str,
    "vc_alloc_arb_type": str, "sw_alloc_arb_type": str, "vc_alloc_iters": int, "sw_alloc_iters": int,
    "vc_busy_when_full": int, "vct": int,
    "routing_delay": int, "vc_alloc_delay": int, "sw_alloc_delay": int,
    "st_prepare_delay": int, "st_final_delay": int, "credit_delay": int, "output_delay": int,
    "input_speedup": int, "output_speedup": int, "internal_speedup": float,
    "output_buffer_size": int, "speculative": int, "wait_for_tail_credit": int,
    "hold_switch_for_packet": int,
    # VC ranges for request/reply traffic
    "read_request_begin_vc": int, "read_request_end_vc": int,
    "write_request_begin_vc": int, "write_request_end_vc": int,
    "read_reply_begin_vc": int, "read_reply_end_vc": int,
    "write_reply_begin_vc": int, "write_reply_end_vc": int,
    # traffic
    "traffic": str, "injection_process": str, "injection_rate": float,
    "injection_rate_uses_flits": int, "packet_size": int, "use_read_write": int,
    "write_fraction": float, "burst_alpha": float, "burst_beta": float, "burst_r1": float,
    "perm_seed": int, "classes": int, "priority": str, "batch_size": int, "batch_count": int,
    "max_outstanding_requests": int,
    "read_request_size": int, "write_request_size": int, "read_reply_size": int,
    "write_reply_size": int,
    # simulation control
    "sim_type": str, "warmup_periods": int, "sample_period": int, "max_samples": int,
    "sim_count": int, "latency_thres": float, "warmup_thres": float, "stopping_thres": float,
    "acc_warmup_thres": float, "acc_stopping_thres": float, "include_queuing": int,
    "seed": int, "deadlock_warn_timeout": int, "print_activity": int,
    "print_csv_results": int, "print_vc_stats": int, "measure_stats": int, "pair_stats": int,
    "drain_measured_only": int, "stats_out": str,
    "watch_out": str, "sim_power": int,
}

#: Traffic patterns topogen knows how to check against the host count.
TRAFFIC_PATTERNS = (
    "uniform", "bitcomp", "bitrev", "shuffle", "transpose", "randperm", "tornado",
    "neighbor", "diagonal", "asymmetric", "taper64", "bad_dragon", "badperm_yarc",
    "hotspot", "background",
)

#: topogen's application-like traffic (``topogen.sim.app_traffic.APP_PATTERNS``): reference
#: simulator only, refused by name with that reason
REFERENCE_ONLY_TRAFFIC = ("halo2d", "halo3d", "alltoall", "butterfly", "npb-cg", "npb-ep", "npb-ft",
                          "npb-is", "npb-lu", "npb-mg", "himeno")

#: Named base configurations (template file, one-line description).
SETUPS: dict[str, tuple[str, str]] = {
    "vct33": (
        "vct33.cfg.j2",
        "topogen's shared simulator defaults (the papers' setup): virtual cut-through, 33-flit "
        "packets, 4 VCs, load in flits/node/cycle",
    ),
    "slimfly1": (
        "slimfly1.cfg.j2",
        "Slim Fly paper's setup: 1-flit packets, 3 VCs x 21 flits, credit delay 2, internal speedup 2",
    ),
    "default": (
        "default.cfg.j2",
        "BookSim-like defaults: 1-flit packets, 4 VCs x 8 flits, iq router, load in packets/node/cycle",
    ),
}

#: Traffic patterns each setup's paper names (BookSim spelling), to be run one by one.
#: Slim Fly's shift and worst-case patterns have no BookSim built-in.
PAPER_TRAFFIC: dict[str, tuple[str, ...]] = {
    "vct33": ("uniform", "bitrev", "transpose"),
    "slimfly1": ("uniform", "bitcomp", "bitrev", "shuffle"),
    "default": ("uniform",),
}

_TOKEN = re.compile(r"[A-Za-z_\-/.][A-Za-z0-9_\-/.+(){},]*\Z")


def template_dir() -> Path:
    """Folder of the packaged BookSim templates (``topogen/templates/booksim``)."""
    return Path(__file__).resolve().parent.parent / "templates" / "booksim"


@dataclass(frozen=True)
class BookSimExport:
    """Paths written by :func:`export_booksim`.

    Attributes
    ----------
    network_file : pathlib.Path
        The anynet netlist.
    meta_file : pathlib.Path
        Its sidecar metadata (``<netlist>.meta.json``).
    config_file : pathlib.Path
        The BookSim configuration.
    """

    network_file: Path
    meta_file: Path
    config_file: Path


# --------------------------------------------------------------------------- netlist
def _directed_latency(topology, latency) -> np.ndarray:
    e = topology.num_links
    if latency is None:
        return np.ones((e, 2), dtype=np.int64)
    lat = np.asarray(latency)
    if lat.ndim == 1:
        lat = np.stack([lat, lat], axis=1)
    if lat.shape != (e, 2):
        raise ParameterError(
            f"latency must give one value per link ({e}) or per direction ({e}, 2), got shape {lat.shape}"
        )
    if not np.all(np.isfinite(lat.astype(float))) or np.any(lat.astype(float) != np.round(lat.astype(float))):
        raise ParameterError("BookSim link latencies must be whole numbers of cycles")
    lat = lat.astype(np.int64)
    if lat.size and lat.min() < 1:
        raise ParameterError(
            f"BookSim link latencies must be >= 1 cycle (a 0 gives 'Channel must have positive delay'), "
            f"got {int(lat.min())}"
        )
    return lat


def anynet_text(topology, latency=None) -> str:
    """The anynet netlist of ``topology`` as text (safe exporter subset).

    Parameters
    ----------
    topology : Topology
        Must be connected, with at least two switches and one host.
    latency : array_like of int, optional
        Link latency in cycles, one per link in ``topology.edges`` order (both directions)
        or shape (E, 2) for (u->v, v->u).  Default: 1 cycle everywhere.

    Returns
    -------
    str

    Raises
    ------
    TopologyError
        A disconnected graph (BookSim would hang forever in its routing-table build), a
        single switch, or no hosts at all.
    """
    n = topology.num_switches
    if n < 2:
        raise TopologyError(
            "BookSim anynet needs at least two connected routers (a lone router makes it hang)"
        )
    if not topology.is_connected():
        raise TopologyError(
            f"{topology.describe()} is disconnected: BookSim's anynet routing never terminates on a "
            "disconnected graph; export a connected topology"
        )
    hosts = np.asarray(topology.hosts, dtype=np.int64)
    if hosts.sum() < 1:
        raise TopologyError("BookSim needs at least one host (node); this topology has none")
    lat = _directed_latency(topology, latency)
    edges = np.asarray(topology.edges, dtype=np.int64)
    # latency of the directed link (a -> b)
    out: list[dict[int, int]] = [dict() for _ in range(n)]
    for (u, v), (luv, lvu) in zip(edges.tolist(), lat.tolist()):
        if u == v:  # Topology forbids it; never write a self-loop
            raise TopologyError(f"self-loop at switch {u}")
        out[u][v] = luv
        out[v][u] = lvu
    offsets = np.concatenate([[0], np.cumsum(hosts)[:-1]])
    lines = []
    for r in range(n):
        parts = [f"router {r}"]
        parts.extend(f"node {h}" for h in range(int(offsets[r]), int(offsets[r] + hosts[r])))
        parts.extend(f"router {s} {out[r][s]}" for s in sorted(out[r]))
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def _netlist_metadata(topology, layout, clock_period_ns, latency_source) -> dict[str, Any]:
    meta = {
        "format": "booksim-anynet",
        "generator": topology.name,
        "params": json.loads(canonical_json(topology.params)),
        "seed": topology.seed,
        "topogen_version": __version__,
        "topology_version": topology.version,
        "num_routers": topology.num_switches,
        "num_nodes": int(topology.num_hosts),
        "num_links": topology.num_links,
        "latency_unit": "cycles",
        "latency_source": latency_source,
        "clock_period_ns": clock_period_ns,
        "node_numbering": "hosts of router v are host_offset[v] .. host_offset[v]+hosts[v]-1",
        "port_numbering": "router r: its nodes first (increasing id), then neighbours (increasing id)",
    }
    if layout is not None:
        meta["floor"] = layout.floor.to_dict()
        meta["placement"] = layout.placement
        meta["placement_seed"] = layout.seed
    return meta


def write_anynet(path, topology, layout=None, *, clock_period_ns: float = sim_defaults.CYCLE_NS,
                 latency=None) -> Path:
    """Write the anynet netlist and its ``.meta.json`` sidecar atomically.

    Parameters
    ----------
    path : path-like
        Netlist file.  Its path relative to the configuration's folder (its name, when
        both are in one folder) must be a valid BookSim string token (no spaces; see
        :func:`format_option`) so a configuration can name it.
    topology : Topology
    layout : Layout, optional
        When given, link latencies are ``ceil(cable delay / clock_period_ns)`` cycles.
    clock_period_ns : float
        Router clock period (ns) used to convert delays to cycles (default
        :data:`topogen.sim_defaults.CYCLE_NS`).
    latency : array_like, optional
        Explicit latencies in cycles (overrides ``layout``).

    Returns
    -------
    pathlib.Path
        The netlist path; the sidecar is ``path + ".meta.json"``.
    """
    path = Path(path)
    text, meta_text = _anynet_texts(topology, layout, clock_period_ns, latency)
    atomic_write_text(path, text)
    atomic_write_text(meta_path(path), meta_text)
    return path


def _anynet_texts(topology, layout, clock_period_ns, latency) -> tuple[str, str]:
    """(netlist text, sidecar JSON text), checked and rendered, nothing written."""
    if latency is None and layout is not None:
        if layout.topology is not topology and layout.topology.num_links != topology.num_links:
            raise ParameterError("layout belongs to a different topology")
        latency = link_latency_cycles(layout, clock_period_ns)
        source = "layout"
    elif latency is not None:
        source = "explicit"
    else:
        source = "unit"
    text = anynet_text(topology, latency)
    meta = _netlist_metadata(topology, layout, float(clock_period_ns), source)
    return text, json.dumps(meta, indent=1, sort_keys=True) + "\n"


def meta_path(path) -> Path:
    """Sidecar metadata path of a netlist: ``<path>.meta.json``."""
    path = Path(path)
    return path.with_name(path.name + ".meta.json")


# --------------------------------------------------------------------------- options
def format_option(name: str, value: Any) -> str:
    """Format one option value with the lexical form BookSim's parser demands.

    Parameters
    ----------
    name : str
        Option name (must be in :data:`BOOKSIM_FIELDS`).
    value : int, float or str

    Returns
    -------
    str
        ``"4"``, ``"0.05"``, ``"1.0"``, ``"1.0e-05"``, ``"uniform"`` ...

    Raises
    ------
    ParameterError
        Unknown option, or a value that cannot take the field's form.
    """
    kind = BOOKSIM_FIELDS.get(name)
    if kind is None:
        raise ParameterError(
            f"unknown BookSim option {name!r} (BookSim rejects unknown names); known: "
            + ", ".join(sorted(BOOKSIM_FIELDS))
        )
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            if isinstance(value, (float, np.floating)) and float(value).is_integer():
                value = int(value)
            elif isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
                value = int(value)
            else:
                raise ParameterError(f"BookSim option {name} is an integer field, got {value!r}")
        return str(int(value))
    if kind is float:
        if isinstance(value, bool):
            raise ParameterError(f"BookSim option {name} is a float field, got {value!r}")
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise ParameterError(f"BookSim option {name} is a float field, got {value!r}") from None
        if not math.isfinite(f):
            raise ParameterError(f"BookSim option {name} must be finite, got {value!r}")
        text = repr(f)
        if "e" in text and "." not in text:
            text = text.replace("e", ".0e")
        return text
    text = str(value)
    if not _TOKEN.match(text) or "//" in text:
        raise ParameterError(
            f"BookSim option {name} = {text!r} is not a valid BookSim string token: it must start "
            "with a letter, '_', '-', '/' or '.', and contain only letters, digits and _-/.+(){}, "
            "(no spaces, no quotes, no '//', which starts a comment)"
        )
    return text


def check_traffic(traffic: str, num_hosts: int) -> str:
    """Check that a BookSim traffic pattern suits ``num_hosts`` nodes.

    Parameters
    ----------
    traffic : str
        ``uniform``, ``bitrev``, ``transpose``, ``tornado({N,1,1})`` ...
    num_hosts : int

    Returns
    -------
    str
        The pattern, unchanged.

    Raises
    ------
    ParameterError
        Unknown pattern name, or a node count the pattern cannot handle (for example
        ``bitrev`` needs a power of two, ``transpose`` an even power of two).
    """
    base = traffic.split("(", 1)[0]
    if base in REFERENCE_ONLY_TRAFFIC:
        raise ParameterError(
            f"traffic {base!r} is an application-like pattern of topogen's reference simulator; "
            "BookSim has no equivalent: run it with `topogen simulate --traffic "
            f"{base}` (reference simulator) or choose one of {', '.join(TRAFFIC_PATTERNS)}"
        )
    if base not in TRAFFIC_PATTERNS:
        raise ParameterError(
            f"unknown BookSim traffic pattern {traffic!r}; known: {', '.join(TRAFFIC_PATTERNS)}"
        )
    n = int(num_hosts)
    pow2 = n > 0 and (n & (n - 1)) == 0
    if base in ("bitcomp", "bitrev", "shuffle") and not pow2:
        raise ParameterError(f"traffic {base} needs a power-of-two number of nodes, got {n}")
    if base == "transpose" and not (pow2 and (n.bit_length() - 1) % 2 == 0):
        raise ParameterError(f"traffic transpose needs an even power of two nodes (4, 16, 64...), got {n}")
    if base == "taper64" and n != 64:
        raise ParameterError(f"traffic taper64 needs exactly 64 nodes, got {n}")
    if base in ("tornado", "neighbor", "badperm_yarc"):
        m = re.fullmatch(r"\w+\(\{(\d+),(\d+),(\d+)\}\)", traffic)
        if not m:
            raise ParameterError(
                f"traffic {base} needs its parameters in BookSim's vector form, "
                f"e.g. {base}({{{n},1,1}}) for anynet"
            )
        k, dims, xr = (int(x) for x in m.groups())
        if (xr * k) ** dims != n:
            raise ParameterError(f"traffic {traffic}: (xr*k)^n must equal the node count {n}")
    return traffic


def _vc_ranges(num_vcs: int) -> dict[str, int]:
    """Disjoint request/reply VC ranges for ``num_vcs`` < 16 (BookSim's defaults assume 16)."""
    if num_vcs >= 2:
        half = num_vcs // 2
        req, rep = (0, half - 1), (half, num_vcs - 1)
    else:
        req = rep = (0, 0)
    return {
        "read_request_begin_vc": req[0], "read_request_end_vc": req[1],
        "write_request_begin_vc": req[0], "write_request_end_vc": req[1],
        "read_reply_begin_vc": rep[0], "read_reply_end_vc": rep[1],
        "write_reply_begin_vc": rep[0], "write_reply_end_vc": rep[1],
    }


class _OptionTracker:
    """Renders ``name = value;`` lines and remembers which options were written."""

    def __init__(self, overrides: Mapping[str, Any]):
        self.overrides = dict(overrides)
        self.written: dict[str, str] = {}

    def opt(self, name: str, default: Any) -> str:
        value = self.overrides.get(name, default)
        text = format_option(name, value)
        if name in self.written:
            raise ParameterError(f"template writes option {name} twice")
        self.written[name] = text
        return f"{name} = {text};"

    def remaining(self) -> str:
        lines = []
        for name in sorted(self.overrides):
            if name not in self.written:
                lines.append(self.opt(name, self.overrides[name]))
        return _option_block(lines)

    def vc_ranges(self) -> str:
        num_vcs = int(self.written.get("num_vcs", 16))
        if num_vcs >= 16:
            return ""
        lines = []
        for name, value in _vc_ranges(num_vcs).items():
            if name not in self.written:
                lines.append(self.opt(name, value))
        return _option_block(lines)


def _option_block(lines: list[str]) -> str:
    """Option lines (each checked by :func:`format_option`) as one block the templates may
    print on several lines; every other value a template prints is kept on one line."""
    from markupsafe import Markup

    return Markup("\n".join(lines))


def _one_line_output(value):
    """The ``finalize`` of the BookSim templates: every printed value is rendered on one line
    (:func:`topogen._safe_text.one_line`), so no string from a topology file, a name or a
    setting can end a ``//`` comment and start an option line; only the checked option
    blocks (:func:`_option_block`) keep their line breaks."""
    from markupsafe import Markup

    from .._safe_text import one_line

    if isinstance(value, Markup):
        return value
    return one_line(value)


_FIXED = {"topology": "anynet", "routing_function": "min"}

#: Options that name files, which BookSim opens relative to its working directory.
_PATH_OPTIONS = ("stats_out", "watch_out")


def _relative_path(path, config_dir) -> str:
    """``path`` relative to ``config_dir`` (``/``-separated) when it lies inside that
    folder, else absolute; absolute when ``config_dir`` is None."""
    full = Path(os.path.abspath(os.fspath(path)))
    if config_dir is not None:
        try:
            return full.relative_to(os.path.abspath(os.fspath(config_dir))).as_posix()
        except ValueError:
            pass
    return str(full)


def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=_one_line_output,
    )


def render_config(
    network_file,
    *,
    setup: str = "vct33",
    options: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    num_hosts: int | None = None,
    config_dir=None,
) -> str:
    """Render a BookSim configuration from a named base template.

    Parameters
    ----------
    network_file : path-like
        The anynet netlist.  Written relative to ``config_dir`` when it lies in that folder
        (or below it), else as an absolute path.  BookSim opens it relative to its working
        directory: run BookSim from ``config_dir``.
    setup : str
        A key of :data:`SETUPS` (``"vct33"``, ``"default"``) or the file name of a template
        in :func:`template_dir`.
    options : mapping, optional
        Option overrides and additions (typed by :data:`BOOKSIM_FIELDS`).  ``topology``,
        ``routing_function`` and ``network_file`` are fixed and cannot be overridden.
    metadata : mapping, optional
        Provenance written into the ``//`` header (generator, params, seed ...).
    num_hosts : int, optional
        When given, the traffic pattern is checked against it (:func:`check_traffic`).
    config_dir : path-like, optional
        The folder the configuration is written to (where BookSim is to run).  Paths in it
        (the netlist, an absolute ``stats_out`` or ``watch_out`` inside it) are written
        relative to it, so that the folder can be moved or copied elsewhere and still run.
        Without it the netlist's path is written absolute.

    Returns
    -------
    str
    """
    options = dict(options or {})
    if config_dir is not None:
        for key in _PATH_OPTIONS:
            if key in options and isinstance(options[key], (str, os.PathLike)) \
                    and os.path.isabs(os.fspath(options[key])):
                options[key] = _relative_path(options[key], config_dir)
    for fixed in ("topology", "routing_function", "network_file"):
        if fixed in options:
            raise ParameterError(
                f"option {fixed} is fixed by the anynet export and cannot be overridden"
            )
    template_name = SETUPS[setup][0] if setup in SETUPS else setup
    if not isinstance(template_name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", template_name) \
            or not (template_dir() / template_name).is_file():
        raise ParameterError(
            f"unknown BookSim setup {setup!r}; known setups: {', '.join(SETUPS)} "
            f"(or a template file in {template_dir()})"
        )
    net = _relative_path(network_file, config_dir)
    net_text = format_option("network_file", net)
    tracker = _OptionTracker(options)
    tracker.written.update({k: v for k, v in _FIXED.items()})
    tracker.written["network_file"] = net_text
    meta = dict(metadata or {})
    meta.setdefault("topogen_version", __version__)
    meta["setup"] = setup
    env = _environment()
    template = env.get_template(template_name)
    text = template.render(
        opt=tracker.opt,
        d=sim_defaults.booksim_options(),
        remaining=tracker.remaining,
        vc_ranges=tracker.vc_ranges,
        network_file=net_text,
        meta=meta,
        meta_json=canonical_json(meta),
        setup=setup,
        setup_description=SETUPS.get(setup, (template_name, "custom template"))[1],
        version=__version__,
    )
    # tidy: no trailing spaces, single blank lines, one final newline
    lines = [ln.rstrip() for ln in text.split("\n")]  # "\n" only: the line break of BookSim's lexer
    tidy: list[str] = []
    for ln in lines:
        if ln == "" and (not tidy or tidy[-1] == ""):
            continue
        tidy.append(ln)
    while tidy and tidy[-1] == "":
        tidy.pop()
    if num_hosts is not None and "traffic" in tracker.written:
        check_traffic(tracker.written["traffic"], num_hosts)
    return "\n".join(tidy) + "\n"


def write_config(path, network_file, **kwargs) -> Path:
    """:func:`render_config` written atomically to ``path`` (paths in it relative to its
    folder, see ``config_dir``); returns the path."""
    kwargs.setdefault("config_dir", Path(path).parent)
    return atomic_write_text(path, render_config(network_file, **kwargs))


def export_booksim(
    directory,
    topology,
    layout=None,
    *,
    stem: str | None = None,
    setup: str = "vct33",
    clock_period_ns: float = sim_defaults.CYCLE_NS,
    options: Mapping[str, Any] | None = None,
    latency=None,
    content_stem: bool = False,
) -> BookSimExport:
    """Export a netlist, its metadata sidecar and a configuration into ``directory``.

    Parameters
    ----------
    directory : path-like
        Created if needed.  Its path may hold any character: the configuration names the
        netlist by its file name only.
    topology : Topology
    layout : Layout, optional
        Gives per-link latencies (``ceil(delay / clock_period_ns)`` cycles); without it
        every link has latency 1.
    stem : str, optional
        Base file name (default: ``"<generator>"``); files are ``<stem>.anynet``,
        ``<stem>.anynet.meta.json`` and ``<stem>.cfg``.  A stem starting with a digit is
        prefixed with ``t`` (BookSim tokens cannot start with a digit).
    setup : str
        Base configuration, see :data:`SETUPS`; ``vct33`` is topogen's shared simulator
        defaults (:mod:`topogen.sim_defaults`).
    clock_period_ns : float
        Router clock period in ns (default :data:`topogen.sim_defaults.CYCLE_NS`, the
        reference simulator's cycle).
    options : mapping, optional
        Configuration overrides (``traffic``, ``injection_rate``, ``num_vcs`` ...).
    latency : array_like, optional
        Explicit link latencies in cycles (overrides ``layout``).
    content_stem : bool
        Append a short digest of the exported content (netlist, sidecar, configuration)
        to the stem (``torus-3f2a9c01d4.cfg``), so that exports of different settings
        into one folder never replace each other; an identical export finds its files
        already there and leaves them untouched.

    Returns
    -------
    BookSimExport

    Notes
    -----
    The configuration names the netlist by its bare file name (``network_file =
    torus.anynet;``): the folder is relocatable, and BookSim runs it from inside it
    (``cd DIRECTORY && booksim torus.cfg``, as :func:`topogen.drivers.booksim.run_booksim`
    does).  Everything is rendered and checked before the first file is written (a bad option
    or traffic leaves nothing behind); each file is written to a temporary name and
    renamed, the configuration last, so a configuration on disk always has its netlist.
    """
    directory = Path(directory).resolve()
    stem = stem or safe_stem(topology.name, 80, "topology")
    if stem[0].isdigit():
        stem = "t" + stem
    net_text, net_meta = _anynet_texts(topology, layout, clock_period_ns, latency)
    meta = {
        "generator": topology.name,
        "params": json.loads(canonical_json(topology.params)),
        "seed": topology.seed,
        "topogen_version": __version__,
        "clock_period_ns": float(clock_period_ns),
        "latency_source": "explicit" if latency is not None else ("layout" if layout is not None else "unit"),
        "num_routers": topology.num_switches,
        "num_nodes": int(topology.num_hosts),
    }
    if layout is not None:
        meta["placement"] = layout.placement
        meta["placement_seed"] = layout.seed
    config_args = dict(setup=setup, options=options, metadata=meta, num_hosts=int(topology.num_hosts))
    if content_stem:
        # the digest covers everything but the netlist's own (digest-named) path
        probe = render_config("/topogen-netlist.anynet", **config_args)
        digest = hashlib.sha256("\0".join((net_text, net_meta, probe)).encode("utf-8")).hexdigest()
        stem = f"{stem}-{digest[:10]}"
    net = directory / f"{stem}.anynet"
    cfg_text = render_config(net, config_dir=directory, **config_args)
    cfg = directory / f"{stem}.cfg"
    for path, text in ((net, net_text), (meta_path(net), net_meta), (cfg, cfg_text)):
        if not (content_stem and _same_text(path, text)):
            atomic_write_text(path, text)
    return BookSimExport(network_file=net, meta_file=meta_path(net), config_file=cfg)


def _same_text(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False
