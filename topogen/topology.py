"""The :class:`Topology`: an immutable switch graph with its provenance.

A topology is a simple undirected graph on switches ``0 .. N-1`` (no self-loops,
no parallel links), the number of hosts (compute nodes) attached to each switch,
and everything needed to reproduce it: generator name, parameters, seed and the
topogen version.  Algorithms use the cached SciPy CSR adjacency (:meth:`Topology.csr`);
:meth:`Topology.to_networkx` is offered for interoperability.

Optional fields:

``cabinet``
    Native placement: the cabinet of each switch, for topologies the paper defines
    on cabinets (Skywalk, Dragonfly, HyperX).  :func:`topogen.layout.place` uses it.
``link_kind`` / ``kind_names``
    A small integer label per link (``link_kind[e]`` indexes ``kind_names``), e.g.
    ``("intra", "straight", "diagonal")`` for Skywalk.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import scipy.sparse as sp

from ._version import __version__
from ._validate import check_topology_memory
from .errors import ParameterError, TopologyError

#: Largest number of switches (and of hosts) a topology may have: ids are stored as int32.
MAX_IDS = 2**31 - 1


def _canonical_edges(num_switches: int, edges) -> np.ndarray:
    arr = np.asarray(edges, dtype=np.int64)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int32)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ParameterError(f"edges must have shape (E, 2), got {arr.shape}")
    if arr.min() < 0 or arr.max() >= num_switches:
        raise ParameterError(
            f"edge endpoints must lie in [0, {num_switches - 1}], "
            f"found {int(arr.min())}..{int(arr.max())}"
        )
    lo = np.minimum(arr[:, 0], arr[:, 1])
    hi = np.maximum(arr[:, 0], arr[:, 1])
    if np.any(lo == hi):
        bad = int(lo[np.argmax(lo == hi)])
        raise ParameterError(f"self-loop at switch {bad}: a link must join two distinct switches")
    return np.stack([lo, hi], axis=1).astype(np.int32)


#: Up to this many switches :meth:`Topology.is_connected` searches with NumPy (a level per
#: array step) instead of importing SciPy's graph routines, whose import costs more than
#: the search on a small network.
SMALL_CONNECTED = 4096


def _reached_from_0(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Switches reached from switch 0 over the CSR links, by breadth-first levels."""
    seen = np.zeros(len(indptr) - 1, dtype=bool)
    seen[0] = True
    frontier = np.array([0], dtype=np.int64)
    while len(frontier):
        starts, ends = indptr[frontier], indptr[frontier + 1]
        counts = ends - starts
        offs = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        nxt = np.unique(indices[offs])
        frontier = nxt[~seen[nxt]]
        seen[frontier] = True
    return seen


@dataclass(frozen=True, eq=False)
class Topology:
    """An undirected switch graph with hosts and provenance.

    Parameters
    ----------
    num_switches : int
        Number of switches N; switches are numbered ``0 .. N-1``.
    edges : array_like of shape (E, 2)
        Links.  Stored as ``int32`` with ``u < v``, sorted lexicographically.
        Self-loops and parallel links raise :class:`~topogen.errors.ParameterError`.
    hosts_per_switch : int or array_like of int
        Compute nodes attached to each switch (one int for all, or one per switch).
    name, params, seed, version
        Provenance: generator name, its parameters, the integer seed it used
        (None for deterministic generators) and the topogen version.
    cabinet : array_like of int, optional
        Native placement (cabinet of each switch).
    link_kind : array_like of int, optional
        Label code of each link, in the order of the *input* edges; indexes ``kind_names``.
    kind_names : tuple of str
        Names of the label codes.
    """

    num_switches: int
    edges: np.ndarray
    hosts_per_switch: Any = 1
    name: str = "custom"
    params: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    version: str = __version__
    cabinet: np.ndarray | None = None
    link_kind: np.ndarray | None = None
    kind_names: tuple[str, ...] = ()

    def __post_init__(self):
        n = self.num_switches
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"num_switches must be a positive integer, got {n!r}")
        if n > MAX_IDS:
            raise ParameterError(f"{n:,} switches exceed topogen's 32-bit switch ids (at most "
                                 f"{MAX_IDS:,}); switch ids must be 0..N-1 with N <= {MAX_IDS:,}")
        object.__setattr__(self, "num_switches", int(n))
        check_topology_memory(n, np.shape(self.edges)[0] if np.ndim(self.edges) else 0)
        edges = _canonical_edges(n, self.edges)
        kinds = None
        if self.link_kind is not None:
            kinds = np.asarray(self.link_kind, dtype=np.int8)
            if kinds.shape != (len(edges),):
                raise ParameterError(
                    f"link_kind must have one entry per link ({len(edges)}), got {kinds.shape}"
                )
            if len(kinds) and (kinds.min() < 0 or kinds.max() >= len(self.kind_names)):
                raise ParameterError("link_kind codes must index kind_names")
        order = np.lexsort((edges[:, 1], edges[:, 0]))
        edges = edges[order]
        if kinds is not None:
            kinds = kinds[order]
        if len(edges) > 1:
            dup = np.all(edges[1:] == edges[:-1], axis=1)
            if dup.any():
                u, v = edges[1:][np.argmax(dup)]
                raise ParameterError(
                    f"parallel link between switches {u} and {v}: topologies are simple graphs"
                )
        edges.setflags(write=False)
        object.__setattr__(self, "edges", edges)
        if kinds is not None:
            kinds.setflags(write=False)
        object.__setattr__(self, "link_kind", kinds)
        object.__setattr__(self, "kind_names", tuple(self.kind_names))
        hps = self.hosts_per_switch
        if np.ndim(hps) == 0:
            if isinstance(hps, bool) or int(hps) != hps or int(hps) < 0:
                raise ParameterError(f"hosts_per_switch must be a non-negative integer, got {hps!r}")
            if int(hps) * n > MAX_IDS:
                raise ParameterError(
                    f"{n:,} switches x {int(hps):,} hosts_per_switch = {int(hps) * n:,} hosts exceed "
                    f"topogen's 32-bit host ids (at most {MAX_IDS:,} in total); use fewer hosts per switch")
            object.__setattr__(self, "hosts_per_switch", int(hps))
        else:
            arr = np.asarray(hps, dtype=np.int64)
            if arr.shape != (n,) or (arr < 0).any():
                raise ParameterError(
                    f"hosts_per_switch must be one non-negative int or one per switch ({n})"
                )
            if arr.sum(dtype=np.float64) > MAX_IDS:
                raise ParameterError(f"{arr.sum(dtype=np.float64):,.0f} hosts exceed topogen's "
                                     f"32-bit host ids (at most {MAX_IDS:,} in total)")
            if np.all(arr == arr[0]):
                object.__setattr__(self, "hosts_per_switch", int(arr[0]))
            else:
                arr.setflags(write=False)
                object.__setattr__(self, "hosts_per_switch", arr)
        if self.cabinet is not None:
            cab = np.asarray(self.cabinet, dtype=np.int64)
            if cab.shape != (n,) or (cab < 0).any():
                raise ParameterError(f"cabinet must give one non-negative cabinet per switch ({n})")
            cab.setflags(write=False)
            object.__setattr__(self, "cabinet", cab)
        object.__setattr__(self, "params", dict(self.params))

    # ------------------------------------------------------------------ basic facts
    @property
    def num_links(self) -> int:
        """Number of (undirected) links E."""
        return int(len(self.edges))

    @property
    def hosts(self) -> np.ndarray:
        """Hosts of each switch as an array of length N."""
        if np.ndim(self.hosts_per_switch) == 0:
            return np.full(self.num_switches, self.hosts_per_switch, dtype=np.int64)
        return np.asarray(self.hosts_per_switch)

    @property
    def num_hosts(self) -> int:
        return int(self.hosts.sum())

    @functools.cached_property
    def degrees(self) -> np.ndarray:
        """Number of links at each switch (hosts excluded), ``int64`` of length N."""
        return np.bincount(self.edges.ravel(), minlength=self.num_switches).astype(np.int64)

    @property
    def degree(self) -> int:
        """The degree of the topology: the maximum number of links at a switch (papers' d)."""
        return int(self.degrees.max()) if self.num_switches else 0

    def csr(self) -> sp.csr_matrix:
        """Symmetric CSR adjacency (data = 1), cached; column indices sorted per row."""
        return self._csr

    @functools.cached_property
    def _csr(self) -> sp.csr_matrix:
        n = self.num_switches
        u, v = self.edges[:, 0], self.edges[:, 1]
        rows = np.concatenate([u, v])
        cols = np.concatenate([v, u])
        m = sp.csr_matrix(
            (np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n), dtype=np.int8
        )
        m.sort_indices()
        m.indices = m.indices.astype(np.int32)
        m.indptr = m.indptr.astype(np.int64)
        return m

    @functools.cached_property
    def directed_edge_ids(self) -> np.ndarray:
        """For each CSR entry (u -> v), the id of the undirected link in :attr:`edges`."""
        m = self.csr()
        n = self.num_switches
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(m.indptr))
        cols = m.indices.astype(np.int64)
        lo = np.minimum(rows, cols)
        hi = np.maximum(rows, cols)
        keys = self.edges[:, 0].astype(np.int64) * n + self.edges[:, 1]
        return np.searchsorted(keys, lo * n + hi).astype(np.int64)

    def neighbors(self, v: int) -> np.ndarray:
        m = self.csr()
        return m.indices[m.indptr[v] : m.indptr[v + 1]]

    def has_link(self, u: int, v: int) -> bool:
        return bool(v in self.neighbors(u))

    def is_connected(self) -> bool:
        if self.num_switches == 1:
            return True
        m = self.csr()
        if self.num_switches <= SMALL_CONNECTED:
            return bool(_reached_from_0(m.indptr, m.indices).all())
        from scipy.sparse.csgraph import connected_components  # loads scipy.linalg: ~0.1 s

        ncomp, _ = connected_components(m, directed=False)
        return ncomp == 1

    def require_connected(self, what: str = "this operation") -> None:
        """Raise :class:`TopologyError` if the topology is disconnected."""
        if not self.is_connected():
            from scipy.sparse.csgraph import connected_components

            ncomp, _ = connected_components(self.csr(), directed=False)
            raise TopologyError(
                f"{what} needs a connected topology, but {self.name} has {ncomp} components; "
                "raise the degree or use another seed"
            )

    def kind_of_links(self) -> np.ndarray:
        """Name of each link's kind (``"link"`` for all when the topology has no labels)."""
        if self.link_kind is None:
            return np.full(self.num_links, "link", dtype=object)
        return np.asarray(self.kind_names, dtype=object)[self.link_kind]

    def link_counts(self) -> dict[str, int]:
        """Number of links of each kind, in ``kind_names`` order."""
        if self.link_kind is None:
            return {"link": self.num_links}
        counts = np.bincount(self.link_kind, minlength=len(self.kind_names))
        return {name: int(c) for name, c in zip(self.kind_names, counts)}

    # ------------------------------------------------------------------ provenance
    def metadata(self) -> dict[str, Any]:
        """Generator, parameters, seed and version, as written into every file header."""
        return {
            "generator": self.name,
            "params": _jsonable(self.params),
            "seed": self.seed,
            "topogen_version": self.version,
            "num_switches": self.num_switches,
            "num_links": self.num_links,
        }

    def describe(self) -> str:
        """``name(param=value, ...)`` on one line: control and line-break characters of a
        name or value read from a file are shown escaped, never sent to the terminal."""
        from ._safe_text import one_line

        p = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return one_line(f"{self.name}({p})")

    def replace(self, **changes) -> "Topology":
        """A copy with some fields changed (link labels are dropped if edges change)."""
        fields = dict(
            num_switches=self.num_switches,
            edges=self.edges,
            hosts_per_switch=self.hosts_per_switch,
            name=self.name,
            params=self.params,
            seed=self.seed,
            version=self.version,
            cabinet=self.cabinet,
            link_kind=self.link_kind,
            kind_names=self.kind_names,
        )
        if "edges" in changes and "link_kind" not in changes:
            fields["link_kind"] = None
            fields["kind_names"] = ()
        fields.update(changes)
        return Topology(**fields)

    # ------------------------------------------------------------------ interop
    def to_networkx(self):
        """A :class:`networkx.Graph` with ``hosts`` (and ``cabinet``) node attributes,
        ``kind`` edge attributes and the metadata in ``G.graph``."""
        import networkx as nx

        g = nx.Graph()
        hosts = self.hosts
        for v in range(self.num_switches):
            attrs = {"hosts": int(hosts[v])}
            if self.cabinet is not None:
                attrs["cabinet"] = int(self.cabinet[v])
            g.add_node(v, **attrs)
        kinds = self.kind_of_links()
        g.add_edges_from(
            (int(u), int(v), {"kind": str(k)}) for (u, v), k in zip(self.edges, kinds)
        )
        g.graph.update(self.metadata())
        return g

    @classmethod
    def from_networkx(cls, g, **kwargs) -> "Topology":
        """Build a topology from a networkx graph; nodes are relabelled 0..N-1 in sorted order."""
        nodes = sorted(g.nodes())
        index = {v: i for i, v in enumerate(nodes)}
        edges = np.array([(index[u], index[v]) for u, v in g.edges()], dtype=np.int64).reshape(-1, 2)
        if "hosts_per_switch" not in kwargs:
            kwargs["hosts_per_switch"] = [int(g.nodes[v].get("hosts", 1)) for v in nodes] if nodes else 1
        return cls(num_switches=len(nodes), edges=edges, **kwargs)

    def __repr__(self) -> str:
        return (
            f"Topology({self.describe()}, switches={self.num_switches}, links={self.num_links}, "
            f"degree={self.degree if self.num_links else 0}, seed={self.seed})"
        )


def as_topology(obj) -> Topology:
    """``obj`` if it is a :class:`Topology`, else its ``topology`` attribute (a Layout or
    a routing); anything else is a :class:`~topogen.errors.ParameterError`."""
    if isinstance(obj, Topology):
        return obj
    topo = getattr(obj, "topology", None)
    if isinstance(topo, Topology):
        return topo
    raise ParameterError(f"expected a Topology or a Layout, got {type(obj).__name__}")


def _jsonable(obj):
    """Parameters as JSON-friendly values (tuples -> lists, numpy scalars -> Python)."""
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj
