"""What the topology file formats share: the format version, the reader wrapper, the
parameter encoding and the (de)serialisation of a layout and of integer arrays.

:mod:`topogen.formats.edgelist`, :mod:`topogen.formats.bundle` and
:mod:`topogen.formats.graphml` build on these; :mod:`topogen.formats` re-exports
:func:`encode_params` and :func:`decode_params`.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Mapping

import numpy as np

from .._input import check_seed
from .._version import __version__
from ..errors import FormatError, ParameterError, TopogenError
from ..layout import Floor, Layout
from ..topology import Topology

FORMAT_VERSION = 1


def _reader(func):
    """Turn decoding failures of a reader into FormatError naming the file."""

    @functools.wraps(func)
    def wrapper(path, *args, **kwargs):
        try:
            return func(path, *args, **kwargs)
        except UnicodeDecodeError as exc:
            raise FormatError(f"not a text file ({exc.reason} at byte {exc.start})", path=path) from None
        except TopogenError:
            raise
        except (ValueError, TypeError, OverflowError) as exc:  # e.g. ints beyond int64
            raise FormatError(f"cannot read: {exc}", path=path) from None

    return wrapper


# ============================================================================ parameters
def _encode(obj, path: list, tuples: list) -> Any:
    """JSON-friendly copy of ``obj``; the key path of every tuple is appended to ``tuples``."""
    if isinstance(obj, Mapping):
        return {str(k): _encode(v, path + [str(k)], tuples) for k, v in obj.items()}
    if isinstance(obj, tuple):
        tuples.append(list(path))
    if isinstance(obj, (list, tuple)):
        return [_encode(v, path + [i], tuples) for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return _encode(obj.tolist(), path, tuples)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


def encode_params(params: Mapping[str, Any]) -> tuple[dict, list]:
    """Parameters as JSON plus the key paths of the values that were tuples.

    Parameters
    ----------
    params : mapping
        A topology's parameters.

    Returns
    -------
    (dict, list of list)
        JSON-friendly parameters (tuples and arrays become lists, numpy scalars Python
        numbers, other objects their ``str``) and the paths (lists of keys and indices)
        of the tuples, so :func:`decode_params` can restore them.
    """
    tuples: list = []
    return _encode(dict(params), [], tuples), tuples


def decode_params(params, tuple_paths, *, path=None, line=None) -> dict:
    """Inverse of :func:`encode_params`: turn the lists at ``tuple_paths`` back into tuples."""
    if not isinstance(params, dict):
        raise FormatError(f"params must be a JSON object, got {type(params).__name__}", path=path, line=line)
    if tuple_paths is None:
        return params
    if not isinstance(tuple_paths, list):
        raise FormatError("tuple_params must be a list of key paths", path=path, line=line)

    def convert(node, keys):
        if not keys:
            if not isinstance(node, (list, tuple)):
                raise KeyError
            return tuple(node)
        key, rest = keys[0], keys[1:]
        if isinstance(node, dict) and isinstance(key, str) and key in node:
            node[key] = convert(node[key], rest)
            return node
        if isinstance(node, (list, tuple)) and isinstance(key, int) and 0 <= key < len(node):
            node = list(node) if isinstance(node, tuple) else node
            node[key] = convert(node[key], rest)
            return node
        raise KeyError

    # deepest paths first, so an inner tuple is converted before its parent is
    for keys in sorted(tuple_paths, key=lambda k: -len(k) if isinstance(k, list) else 0):
        if not isinstance(keys, list) or not keys:
            raise FormatError(f"bad tuple_params entry {keys!r}: expected a non-empty key path",
                              path=path, line=line)
        try:
            convert(params, keys)
        except KeyError:
            raise FormatError(f"tuple_params entry {keys!r} names no list in params",
                              path=path, line=line) from None
    return params


def _metadata(topology: Topology, layout: Layout | None) -> dict:
    meta = topology.metadata()
    meta["params"] = encode_params(topology.params)[0]
    meta["num_hosts"] = topology.num_hosts
    meta["written_by"] = f"topogen {__version__}"
    if layout is not None:
        meta["floor"] = layout.floor.name
        meta["cabinets"] = layout.floor.cabinets
        meta["placement"] = layout.placement
    return meta


def _check_layout(topology: Topology, layout: Layout | None) -> None:
    if layout is not None and layout.topology is not topology:
        t = layout.topology
        same = (t.num_switches == topology.num_switches and t.num_links == topology.num_links
                and np.array_equal(t.edges, topology.edges))
        if not same:
            raise ParameterError("the layout places a different topology than the one being saved")


def _layout_dict(layout: Layout) -> dict:
    return {
        "floor": layout.floor.to_dict(),
        "cabinet": layout.cabinet,
        "placement": layout.placement,
        "seed": layout.seed,
    }


def _int_array(value, what: str, *, path, line=None, ndim: int = 1) -> np.ndarray:
    """A JSON list as an int64 array, FormatError if it is not a list of integers."""
    if not isinstance(value, list):
        raise FormatError(f"{what} must be a list, got {type(value).__name__}", path=path, line=line)
    if not value:
        return np.zeros((0,) * ndim if ndim == 1 else (0, 2), dtype=np.int64)
    shape = "a list of [u, v] pairs" if ndim == 2 else "a flat list of integers"
    try:
        arr = np.array(value)
    except (ValueError, OverflowError):
        arr = None
    if arr is not None and (arr.ndim != ndim or (ndim == 2 and arr.shape[1] != 2)):
        raise FormatError(f"{what} must be {shape}", path=path, line=line)
    if arr is not None and arr.dtype.kind == "i":
        # fast path; numpy also turns true/false among ints into 1/0, so check the types
        flat = itertools.chain.from_iterable(value) if ndim == 2 else value
        if set(map(type, flat)) <= {int}:
            return arr.astype(np.int64, copy=False)
    # slow path: find the offending entry
    rows = value if ndim == 2 else [[x] for x in value]
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != (2 if ndim == 2 else 1):
            raise FormatError(f"{what} must be {shape}", path=path, line=line)
        for x in row:
            if isinstance(x, bool) or not isinstance(x, int):
                raise FormatError(f"{what}[{i}] must be an integer, got {x!r}", path=path, line=line)
            if not -(2**63) <= x < 2**63:
                raise FormatError(f"{what}[{i}] = {x} is out of range", path=path, line=line)
    raise FormatError(f"{what} must be {shape}", path=path, line=line)  # pragma: no cover


def _layout_from(d, topology: Topology, *, path, line=None, cabinet=None) -> Layout:
    if not isinstance(d, dict):
        raise FormatError(f"layout must be an object or null, got {type(d).__name__}", path=path, line=line)
    for key in ("floor", "placement") + (("cabinet",) if cabinet is None else ()):
        if key not in d:
            raise FormatError(f"layout is missing key {key!r}", path=path, line=line)
    if not isinstance(d["floor"], dict):
        raise FormatError("layout.floor must be an object", path=path, line=line)
    if not isinstance(d["placement"], str):
        raise FormatError("layout.placement must be a string", path=path, line=line)
    seed = check_seed(d.get("seed"), what="layout.seed", path=path, line=line)
    cab = cabinet if cabinet is not None else _int_array(d["cabinet"], "layout.cabinet", path=path, line=line)
    try:
        floor = Floor.from_dict(d["floor"])
        return Layout(topology, floor, cab, d["placement"], seed)
    except (ParameterError, TypeError) as exc:
        raise FormatError(f"invalid layout: {exc}", path=path, line=line) from None
