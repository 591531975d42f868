"""Content digests and seeds derived from content.

A digest names what a topology, layout or routing *is* (its numbers), not how it was
made: two routings with equal tables on equal networks have equal digests, whatever
their file names.  Resumable runs key their points by these digests, and a run without
an explicit seed derives its seed from its key (:func:`seed_from`), so a rerun finds the
points it already has.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from ._rng import SEED_MAX

__all__ = ["topology_digest", "layout_digest", "routing_digest", "seed_from"]

_ATTR = "_topogen_content_digest"


def _array(h, name: str, arr) -> None:
    a = np.ascontiguousarray(np.asarray(arr))
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
    h.update(a.tobytes())


def _cached(obj, compute) -> str:
    got = getattr(obj, _ATTR, None)
    if got is None:
        got = compute()
        try:
            object.__setattr__(obj, _ATTR, got)
        except (AttributeError, TypeError):  # slots or frozen without a dict: no cache
            pass
    return got


def topology_digest(topology) -> str:
    """SHA-256 (hex) of a topology's structure: switches, edges and hosts per switch.

    Parameters
    ----------
    topology : Topology

    Returns
    -------
    str
    """
    def compute():
        h = hashlib.sha256(b"topogen-topology-1;")
        h.update(f"{int(topology.num_switches)};".encode())
        _array(h, "edges", np.asarray(topology.edges, dtype=np.int64))
        _array(h, "hosts", np.asarray(topology.hosts, dtype=np.int64))
        return h.hexdigest()

    return _cached(topology, compute)


def layout_digest(layout) -> str:
    """SHA-256 (hex) of a layout: its topology, the cabinet of each switch and the length
    and delay of each link (``"none"`` for no layout)."""
    if layout is None:
        return "none"

    def compute():
        h = hashlib.sha256(b"topogen-layout-1;")
        h.update(topology_digest(layout.topology).encode())
        _array(h, "cabinet", np.asarray(layout.cabinet, dtype=np.int64))
        _array(h, "length", np.asarray(layout.cable_length, dtype=np.float64))
        _array(h, "delay", np.asarray(layout.link_delay, dtype=np.float64))
        return h.hexdigest()

    return _cached(layout, compute)


def routing_digest(routing) -> str:
    """SHA-256 (hex) of a routing: topology, layout, metadata (algorithm, parameters,
    VCs ...), its arrays and those of its sub-routings (what :func:`save_routing` writes).

    Parameters
    ----------
    routing : Routing

    Returns
    -------
    str
    """
    def compute():
        h = hashlib.sha256(b"topogen-routing-1;")
        h.update(topology_digest(routing.topology).encode())
        h.update(layout_digest(getattr(routing, "layout", None)).encode())
        md = routing.metadata()
        md.pop("topogen_version", None)
        if isinstance(md.get("topology"), dict):  # covered by the topology digest
            md["topology"] = {k: v for k, v in md["topology"].items() if k != "topogen_version"}
        h.update(json.dumps(md, sort_keys=True, default=str).encode())
        arrays = routing._arrays() if hasattr(routing, "_arrays") else {}
        for name in sorted(arrays):
            _array(h, name, arrays[name])
        subs = getattr(routing, "_subroutings", lambda: {})()
        for name in sorted(subs):
            h.update(f"sub:{name}:{routing_digest(subs[name])};".encode())
        return h.hexdigest()

    return _cached(routing, compute)


def seed_from(*parts) -> int:
    """A seed in ``[0, 2**63 - 1]`` derived deterministically from ``parts`` (any JSON-able
    values): the same parts give the same seed in every process and on every machine."""
    text = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") & SEED_MAX
