"""The CSR view of a topology that the routing algorithms share: padded neighbour lists,
local port ranks and the directed-link (CSR entry) index of a switch pair."""

from __future__ import annotations

import weakref

import numpy as np

from ..topology import Topology

__all__ = ["csr_view"]

class _CSRView:
    """Arrays derived from a topology's CSR that the routing algorithms share."""

    def __init__(self, topology: Topology):
        m = topology.csr()
        n = topology.num_switches
        self.n = n
        self.indptr = np.asarray(m.indptr, dtype=np.int64)
        self.indices = np.asarray(m.indices, dtype=np.int64)
        deg = np.diff(self.indptr)
        self.degrees = deg
        self.max_degree = int(deg.max()) if n else 0
        self.row = np.repeat(np.arange(n, dtype=np.int64), deg)
        self.local_rank = np.arange(len(self.indices), dtype=np.int64) - self.indptr[self.row]
        r = max(self.max_degree, 1)
        pad = np.full((n, r), n, dtype=np.int64)  # index n = padding
        pad[self.row, self.local_rank] = self.indices
        self.nbr_pad = pad
        self.valid_pad = pad < n
        self.keys = self.row * n + self.indices  # sorted (CSR rows, sorted columns)
        self.rank_dtype = np.uint8 if self.max_degree < 255 else np.uint16
        self.sentinel = int(np.iinfo(self.rank_dtype).max)

    def entry(self, u, v) -> np.ndarray:
        """CSR entry index of directed link u->v (-1 where there is no link)."""
        u = np.asarray(u, dtype=np.int64)
        v = np.asarray(v, dtype=np.int64)
        k = u * self.n + v
        pos = np.searchsorted(self.keys, k)
        pos_c = np.minimum(pos, len(self.keys) - 1)
        ok = (len(self.keys) > 0) & (self.keys[pos_c] == k)
        return np.where(ok, pos_c, -1)


_VIEWS: "weakref.WeakKeyDictionary[Topology, _CSRView]" = weakref.WeakKeyDictionary()


def csr_view(topology: Topology) -> _CSRView:
    """The (cached) :class:`_CSRView` of ``topology``."""
    view = _VIEWS.get(topology)
    if view is None:
        view = _CSRView(topology)
        _VIEWS[topology] = view
    return view
