"""Random streams for SST: the same bundle with its endpoint ids relabelled.

SST's random traffic takes no seed: ``merlin.targetgen.uniform`` seeds each endpoint's
generator with the endpoint id (and ``merlin.offered_load`` injects periodically), so a
bundle has exactly one random stream.  Relabelling the endpoints by a permutation keeps
the network, its ports and its routes (router tables name routers, not endpoints) and
gives every NIC another id, hence another destination stream: the SST counterpart of a
simulator seed for traffic whose destinations are random.  For a deterministic pattern
(``shift``, ``bit_complement``) a relabelling changes the pattern itself, so it is not a
stream of the same experiment.

The permutation is drawn from one seed (:func:`endpoint_permutation`); the relabelled
bundle records it in ``metadata.endpoint_relabel_seed``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._rng import make_rng
from ..errors import ParameterError
from ..results import atomic_write_text

__all__ = ["RANDOM_TRAFFIC", "endpoint_permutation", "relabel_endpoints", "write_relabelled_bundle"]

#: SST traffic patterns (``topogen_sst.py`` names) whose destinations are random: a
#: relabelling of the endpoints is another stream of the same pattern
RANDOM_TRAFFIC = ("uniform",)


def endpoint_permutation(num_endpoints: int, seed: int) -> np.ndarray:
    """The permutation of ``0..num_endpoints-1`` drawn from ``seed``.

    Parameters
    ----------
    num_endpoints : int
    seed : int

    Returns
    -------
    numpy.ndarray
        ``perm[e]`` is the new id of endpoint ``e`` (int64).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ParameterError(f"the relabelling seed must be an integer, got {seed!r}")
    return make_rng(int(seed)).permutation(int(num_endpoints)).astype(np.int64)


def _parse_map(text: str) -> list[tuple[int, int]]:
    body = str(text).strip().strip("{}").strip()
    if not body:
        return []
    return [(int(a), int(b)) for a, b in (item.split(":") for item in body.split(","))]


def _map_string(pairs) -> str:
    return "{" + ", ".join(f"{a}:{b}" for a, b in pairs) + "}"


def relabel_endpoints(bundle: Mapping[str, Any], permutation) -> dict[str, Any]:
    """A copy of ``bundle`` whose endpoint ``e`` is called ``permutation[e]``.

    Routers, ports, links, routes and parameters are unchanged: every endpoint stays on
    its router and port, only its id changes (``endpoint_to_port_map``,
    ``port_to_endpoint_map``, ``endpoints[]``, listed by new id, and
    ``endpoint_router_mapping``).

    Parameters
    ----------
    bundle : mapping
        An SST bundle (:func:`topogen.export.sst.bundle_dict`).
    permutation : sequence of int
        A permutation of ``0..num_endpoints-1``.

    Returns
    -------
    dict

    Raises
    ------
    ParameterError
        ``permutation`` is not a permutation of the bundle's endpoints.
    """
    n = int(bundle["num_endpoints"])
    perm = np.asarray(permutation)
    if perm.shape != (n,) or not np.issubdtype(perm.dtype, np.integer) or \
            not np.array_equal(np.sort(perm), np.arange(n)):
        raise ParameterError(f"the relabelling must be a permutation of the bundle's {n} endpoint ids")
    new = [int(x) for x in perm]
    doc = copy.deepcopy(dict(bundle))
    for r in doc["routers"]:
        e2p = [(new[e], p) for e, p in _parse_map(r["endpoint_to_port_map"])]
        r["endpoint_to_port_map"] = _map_string(e2p)
        r["port_to_endpoint_map"] = _map_string((p, e) for e, p in e2p)
    endpoints = [dict(ep, id=new[int(ep["id"])]) for ep in doc["endpoints"]]
    endpoints.sort(key=lambda ep: ep["id"])
    doc["endpoints"] = endpoints
    doc["endpoint_router_mapping"] = _map_string((ep["id"], ep["router"]) for ep in endpoints)
    return doc


def write_relabelled_bundle(source, path, seed: int) -> Path:
    """Write the bundle at ``source`` relabelled by the permutation of ``seed`` to ``path``.

    Parameters
    ----------
    source : path-like
        A bundle file (checked as :func:`topogen.export.sst.read_bundle` checks it).
    path : path-like
        The new file; written atomically (the caller picks a free name).
    seed : int
        Seed of the permutation (:func:`endpoint_permutation`), recorded as
        ``metadata.endpoint_relabel_seed``.

    Returns
    -------
    pathlib.Path
    """
    from .sst import read_bundle, validate_bundle

    doc = read_bundle(source)
    out = relabel_endpoints(doc, endpoint_permutation(int(doc["num_endpoints"]), seed))
    out["metadata"] = dict(out.get("metadata") or {}, endpoint_relabel_seed=int(seed))
    if "next_hops" in out:  # the same matrix file, named from the new bundle's folder
        import os

        matrix = Path(source).resolve().parent / out["next_hops"]["file"]
        out["next_hops"] = dict(out["next_hops"], file=os.path.relpath(matrix, Path(path).resolve().parent))
    validate_bundle(out, path=path)
    return atomic_write_text(path, json.dumps(out, indent=1, sort_keys=True) + "\n")
