"""Checks of a saved routing folder (``routing.json``, ``.npy`` arrays, ``topology.json``).

:func:`topogen.routing.saved.load_routing` reads a folder through these functions, so a
folder that was edited, truncated or paired with another topology raises
:class:`~topogen.errors.FormatError` naming the file and the problem, never an internal
error or a silently wrong routing:

* ``routing.json`` must be a JSON object with a known ``kind``, an ``algorithm``, a
  ``num_vcs >= 1`` and (table routings) a known ``vc_rule`` with ``vc_const`` below
  ``num_vcs``;
* arrays are read with ``allow_pickle=False`` and must have the shapes, dtypes and value
  ranges of the topology (a next-hop rank must be below the switch's degree);
* the digests of the topology and layout recorded when the folder was written
  (:func:`topology_digest`, :func:`layout_digest`) must match the ones it is loaded with,
  so a ``topology.json`` swapped for another topology is detected.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._input import MAX_VCS, check_count, load_json, read_npy_header
from .._validate import check_memory, format_bytes
from ..errors import FormatError
from ..topology import MAX_IDS

__all__ = ["topology_digest", "layout_digest", "read_metadata", "check_digests", "load_arrays",
           "check_arrays", "KINDS", "ARRAY_NAMES"]

#: Routing kinds a folder may hold (``kind`` of ``routing.json``).
KINDS = ("table", "escape", "valiant", "ugal", "dor-random", "anca", "merlin")
#: Array files a table routing may have (``<name>.npy``).
ARRAY_NAMES = ("ranks", "entry_phase", "entry_dim", "entry_wrap", "layer", "distances",
               "entry_weight")
_RERUN = "; compute it again with `topogen route FILE -o DIR`"
#: Most routing phases a folder may announce (routings use a few; each phase is an N x N
#: table, so the ``ranks.npy`` size bounds them too).
MAX_PHASES = 1 << 16


def topology_digest(topology) -> str:
    """``"sha256:<hex>"`` of what a routing depends on: switch count, links and hosts
    (:func:`topogen._digest.topology_digest`, the one content digest of a topology)."""
    from .._digest import topology_digest as digest

    return "sha256:" + digest(topology)


def layout_digest(layout) -> str | None:
    """``"sha256:<hex>"`` of a layout (:func:`topogen._digest.layout_digest`; None: no layout)."""
    if layout is None:
        return None
    from .._digest import layout_digest as digest

    return "sha256:" + digest(layout)


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_metadata(directory: Path) -> dict:
    """``routing.json`` of ``directory``, checked (see the module docs)."""
    from .names import VC_RULES

    path = directory / "routing.json"
    try:
        md = load_json(path, what="routing.json")
    except FormatError as exc:
        raise FormatError(f"{exc}{_RERUN}") from None
    if not isinstance(md, dict):
        raise FormatError(f"routing.json must hold a JSON object, got {type(md).__name__}{_RERUN}",
                          path=path)
    kind = md.get("kind")
    if kind not in KINDS:
        raise FormatError(f"unknown routing kind {kind!r} (expected one of {', '.join(KINDS)})"
                          f"{_RERUN}", path=path)
    if not isinstance(md.get("algorithm"), str) or not md["algorithm"]:
        raise FormatError(f"missing or invalid 'algorithm' (a routing name such as \"nr\"){_RERUN}",
                          path=path)
    num_vcs = md.get("num_vcs")
    check_count("num_vcs", num_vcs, minimum=1, maximum=MAX_VCS, path=path, hint=_RERUN)
    phases = md.get("num_phases")
    if phases is not None:
        check_count("num_phases", phases, minimum=1, maximum=MAX_PHASES, path=path, hint=_RERUN)
    topo = md.get("topology")
    if isinstance(topo, dict) and topo.get("num_switches") is not None:
        check_count("topology.num_switches", topo["num_switches"], minimum=1, maximum=MAX_IDS,
                    path=path, hint=_RERUN)
    if not isinstance(md.get("params", {}), dict):
        raise FormatError(f"params must be a JSON object{_RERUN}", path=path)
    arrays = md.get("arrays", [])
    if not isinstance(arrays, list) or any(a not in ARRAY_NAMES for a in arrays):
        raise FormatError(f"arrays must list names among {', '.join(ARRAY_NAMES)}, got "
                          f"{arrays!r}{_RERUN}", path=path)
    for key in ("topology_digest", "layout_digest"):
        if md.get(key) is not None and not isinstance(md[key], str):
            raise FormatError(f"{key} must be a string, got {md[key]!r}{_RERUN}", path=path)
    if kind == "table":
        if "ranks" not in arrays:
            raise FormatError(f"a table routing needs the array 'ranks'{_RERUN}", path=path)
        if md.get("vc_rule") not in VC_RULES:
            raise FormatError(f"vc_rule must be one of {', '.join(VC_RULES)}, got "
                              f"{md.get('vc_rule')!r}{_RERUN}", path=path)
        vc_const = md.get("vc_const", 0)
        if not _int(vc_const) or not 0 <= vc_const < num_vcs:
            raise FormatError(f"vc_const must be an integer in [0, {num_vcs - 1}] (num_vcs is "
                              f"{num_vcs}), got {vc_const!r}{_RERUN}", path=path)
    if kind == "ugal":
        params = md.get("params", {})
        if params.get("variant") not in ("local", "global", "booksim"):  # booksim: ugal_booksim.py
            raise FormatError(f"params.variant must be \"local\" or \"global\", got "
                              f"{params.get('variant')!r}{_RERUN}", path=path)
        k = params.get("candidates")
        if not _int(k) or k < 1:
            raise FormatError(f"params.candidates must be an integer >= 1, got {k!r}{_RERUN}",
                              path=path)
    if kind == "anca" and md.get("params", {}).get("select", "queue") not in ("queue", "booksim"):
        raise FormatError(f"params.select must be \"queue\" or \"booksim\", got "
                          f"{md['params'].get('select')!r}{_RERUN}", path=path)
    if kind in ("valiant", "ugal"):
        seed = md.get("params", {}).get("seed")
        if seed is not None and not _int(seed):
            raise FormatError(f"params.seed must be an integer or null, got {seed!r}{_RERUN}",
                              path=path)
    return md


def check_digests(md: dict, directory: Path, topology, layout) -> None:
    """FormatError if the topology (or layout) differs from the one the folder was made for."""
    path = directory / "routing.json"
    want = md.get("topology_digest")
    if want is not None and want != topology_digest(topology):
        raise FormatError(
            f"this routing was computed for another topology ({want[:19]}..., this one is "
            f"{topology_digest(topology)[:19]}...; was topology.json replaced?){_RERUN}",
            path=path)
    want = md.get("layout_digest")
    if want is not None and layout is not None and want != layout_digest(layout):
        raise FormatError(
            f"this routing was computed for another layout ({want[:19]}..., this one is "
            f"{layout_digest(layout)[:19]}...; was topology.json replaced?){_RERUN}", path=path)


def load_arrays(md: dict, directory: Path) -> dict[str, np.ndarray]:
    """The ``.npy`` arrays listed in ``md``, read without pickles."""
    out = {}
    expected = _expected_shapes(md)
    for name in md.get("arrays", []):
        p = directory / f"{name}.npy"
        if not p.exists():
            raise FormatError(f"missing array file {p.name}{_RERUN}", path=directory)
        # the header first: shape and dtype against the file's size and the metadata,
        # before anything is allocated
        try:
            shape, dtype, _ = read_npy_header(p, what=f"{name}.npy")
        except FormatError as exc:
            raise FormatError(f"{exc}{_RERUN}") from None
        want = expected.get(name)
        if want is not None and shape != want:
            raise FormatError(f"{name} has shape {shape}, but routing.json describes a routing of "
                              f"{md['topology']['num_switches']} switches (expected {want}){_RERUN}",
                              path=p)
        size = dtype.itemsize * int(np.prod(shape, dtype=np.float64))
        if size > 1 << 26:
            check_memory(f"loading {p} ({format_bytes(size)})", size, "; use a smaller topology")
        try:
            arr = np.load(p, allow_pickle=False)
        except ValueError as exc:
            msg = ("holds Python objects (a pickle), which topogen never writes nor loads"
                   if "allow_pickle" in str(exc) else f"not a NumPy array file ({exc})")
            raise FormatError(msg + _RERUN, path=p) from None
        except (OSError, EOFError) as exc:
            raise FormatError(f"cannot read the array ({exc}){_RERUN}", path=p) from None
        if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biuf":
            raise FormatError(f"expected a numeric array, got dtype {getattr(arr, 'dtype', '?')}"
                              f"{_RERUN}", path=p)
        out[name] = arr
    return out


def _expected_shapes(md: dict) -> dict:
    """Shapes of the (N, N) and (P, N, N) arrays implied by ``routing.json``'s topology
    summary and phase count (empty when it does not say)."""
    topo = md.get("topology")
    n = topo.get("num_switches") if isinstance(topo, dict) else None
    if not _int(n):
        return {}
    out = {"layer": (n, n), "distances": (n, n)}
    if _int(md.get("num_phases")):
        out["ranks"] = (md["num_phases"], n, n)
    return out


def check_arrays(md: dict, arrays: dict, directory: Path, topology) -> None:
    """Shapes, dtypes and value ranges of a table routing's arrays against ``topology``."""
    from ._csr import csr_view

    n = topology.num_switches
    view = csr_view(topology)
    m = len(view.indices)
    ranks = arrays["ranks"]
    where = directory / "ranks.npy"
    if ranks.dtype not in (np.uint8, np.uint16):
        raise FormatError(f"ranks must be uint8 or uint16, got {ranks.dtype}{_RERUN}", path=where)
    if ranks.ndim != 3 or ranks.shape[0] < 1 or ranks.shape[1:] != (n, n):
        raise FormatError(f"ranks has shape {ranks.shape} but the topology has {n} switches "
                          f"(expected (P, {n}, {n})){_RERUN}", path=where)
    sentinel = int(np.iinfo(ranks.dtype).max)
    deg = view.degrees
    for p in range(ranks.shape[0]):
        bad = (ranks[p] != sentinel) & (ranks[p] >= deg[:, None])
        if bad.any():
            v, d = (int(x) for x in np.argwhere(bad)[0])
            raise FormatError(
                f"switch {v} has {int(deg[v])} links, but its entry toward switch {d} (phase "
                f"{p}) is link rank {int(ranks[p, v, d])}: the table does not fit this "
                f"topology{_RERUN}", path=where)
    phases = ranks.shape[0]
    num_vcs = md["num_vcs"]
    specs = {"entry_phase": ((m,), 0, phases - 1), "entry_dim": ((m,), 0, None),
             "entry_wrap": ((m,), 0, 1), "layer": ((n, n), 0, num_vcs - 1),
             "distances": ((n, n), None, None), "entry_weight": ((m,), None, None)}
    for name, (shape, lo, hi) in specs.items():
        arr = arrays.get(name)
        if arr is None:
            continue
        where = directory / f"{name}.npy"
        if arr.shape != shape:
            raise FormatError(f"{name} has shape {arr.shape}, expected {shape} for this "
                              f"topology{_RERUN}", path=where)
        if arr.size and ((lo is not None and arr.min() < lo) or (hi is not None and arr.max() > hi)):
            rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
            raise FormatError(f"{name} values must lie in {rng}, found {arr.min()}..{arr.max()}"
                              f"{_RERUN}", path=where)
