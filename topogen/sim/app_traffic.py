"""Application-like traffic: the communication of NAS Parallel Benchmarks kernels and the
Himeno benchmark as phases of messages between MPI ranks, and the steady-state patterns
derived from them.

topogen has no application traces.  This module writes down, for ``P`` MPI ranks, the
messages one iteration of each application's main loop sends (Class A of NPB 3.x, size M
of Himeno), split into *phases*: a phase is a set of messages ``(source rank, destination
rank, packets)`` that the application sends between two synchronisations.  Two uses:

* **closed loop** (:func:`workload`, :func:`topogen.sim.app_run.run_workload`): the phases run one after the
  other, each starting when the previous one has delivered its last packet (a barrier
  between phases, bulk-synchronous).  The completion time of one iteration is the
  application's communication time; ``topogen reproduce dsnf-apps`` compares it across
  networks.
* **steady state** (:func:`destination_table`): source rank ``s`` picks the destination of
  each packet with probability proportional to the packets ``s`` sends to it in one
  iteration (all phases added).  Injected by the reference simulator's Bernoulli process
  like every other pattern (``topogen simulate --traffic npb-ft``).

Conventions
-----------
* **Rank to host**: rank ``r`` runs on host ``r`` (one rank per host, in host-id order:
  consecutive ranks share a switch when switches have several hosts, MPI's default block
  mapping).
* **Packets**: a message of ``B`` bytes is ``max(1, ceil(B / PACKET_BYTES))`` packets,
  ``PACKET_BYTES = 1024`` (a 33-flit packet of 256-bit flits is one header flit and 32
  payload flits of 32 bytes).  ``scale`` multiplies every message's bytes first (the quick
  runs use small ones).
* **Process grids**: :func:`dims_create` (MPI_Dims_create: as balanced as possible,
  largest first); rank ``r`` has the row-major coordinates of ``r`` in the grid (the last
  dimension fastest, MPI_Cart_create's order).
* **Power-of-two ranks**: NPB CG, FT, IS, MG and LU (and EP's reductions here) run on
  ``2**k`` processes; on ``N`` hosts they use the first ``M`` hosts, ``M`` the largest power
  of two ``<= N`` (the others idle, as for the bit permutations).  Himeno, ``halo2d``,
  ``halo3d`` and ``alltoall`` use all hosts.
* **Collectives**: an allreduce is recursive doubling (partner ``r XOR 2**k``, one phase per
  bit; with ``P`` not a power of two the ranks ``>= M`` first send to ``r - M`` and get the
  result back at the end, MPICH's scheme); a reduce to rank 0 is a binomial tree (phase
  ``k``: rank ``r`` with lowest set bit ``k`` sends to ``r - 2**k``); an all-to-all is by
  default one phase in which source ``s`` sends to ``s+1, s+2, ... (mod P)`` in that order
  (``burst``: every send posted at once, MPICH's algorithm for medium messages of 256 bytes
  to 32 KiB), or (``alltoall="pairwise"``, MPICH's long-message algorithm) ``P - 1``
  phases, in round ``k`` rank ``s`` sending to ``(s + k) mod P``.

The applications (one iteration of the main loop)
-------------------------------------------------
``npb-ep``
    EP, Class A: no communication in the loop; the final three MPI_Allreduce (sx, sy: one
    double; q: ten doubles): three allreduces of one packet.
``npb-cg``
    CG, Class A (na = 14,000): ``nprows x npcols`` processes, ``npcols = 2**ceil(k/2)``,
    ``nprows = 2**floor(k/2)`` (NPB's grid); rank ``r`` in row ``r // npcols``, column
    ``r mod npcols``.  One inner iteration: the matrix-vector product's reduction along the
    row in ``log2 npcols`` recursive-halving steps (partner: column XOR ``2**i``, ``8 *
    (na / nprows) / 2**(i+1)`` bytes), the exchange with the transpose process (rank
    ``(row, col)`` sends ``8 * na / nprows / npcols`` bytes to the process at row
    ``col // (npcols / nprows)``, column ``row * (npcols / nprows) + col mod (npcols /
    nprows)``: a permutation; our reading of NPB's ``exch_proc``), and two dot products,
    each a row allreduce of one packet.
``npb-ft``
    FT, Class A (256 x 256 x 128 complex doubles, 16 bytes): the transpose all-to-all,
    ``16 * 256 * 256 * 128 / P**2`` bytes per pair, then the checksum's reduce of one
    complex number to rank 0.
``npb-is``
    IS, Class A (2**23 keys of 4 bytes, 1,024 buckets): the allreduce of the bucket sizes
    (4,096 bytes), the all-to-all of the send counts (one packet per pair) and the
    all-to-all of the keys, ``4 * 2**23 / P**2`` bytes per pair (keys spread evenly over
    the processes' bucket ranges).
``npb-mg``
    MG, Class A (256**3 doubles, periodic): a ``dims_create(P, 3)`` process grid; the
    V-cycle's levels while every process holds at least 2 points per axis, on each level
    four halo exchanges (``comm3``), each three phases (axis 0, 1, 2; both directions),
    a face of ``8 * (the product of the other two local extents)`` bytes; then the norm's
    two allreduces of one packet.
``npb-lu``
    LU, Class A (64**3 points of 5 doubles): a ``dims_create(P, 2)`` grid, non-periodic.
    The SSOR sweeps are wavefronts: in step ``d`` the process at ``(i, j)`` works on plane
    ``k = d - i - j`` (``0 <= k < 62``) and sends one packet (``5 * 8 * edge`` bytes) to
    ``(i+1, j)`` and ``(i, j+1)`` (lower sweep) or to ``(i-1, j)`` and ``(i, j-1)`` (upper
    sweep), ``62 + dims[0] + dims[1] - 2`` steps each; then the right-hand side's halo
    exchange, two planes deep: ``2 * 5 * 8 * (other local extent) * 64`` bytes per axis.
``himeno``
    Himeno, size M (128 x 128 x 256 interior points of 4-byte floats, fixed boundary):
    a ``dims_create(P, 3)`` grid, its largest dimension along the 256-point axis;
    the allreduce of the residual (one packet), then the halo exchange along the third,
    second and first axis (``sendp3``, ``sendp2``, ``sendp1``), non-periodic, a face of
    ``4 *`` (the product of the other two local extents) bytes.

Generic patterns (steady state only)
------------------------------------
``halo2d``, ``halo3d``
    periodic nearest neighbour on a ``dims_create(N, 2 or 3)`` grid of all hosts: the
    4 (6) neighbours with equal weight (a neighbour reached both ways counts twice, a
    dimension of size 1 is skipped).
``alltoall``
    every other host with equal weight (the steady state of an all-to-all: the same
    distribution as ``uniform`` without self packets).
``butterfly``
    the recursive-doubling partners ``s XOR 2**k`` of the first ``M`` hosts, equal weight
    (allreduce; CG's reductions).

What differs from running the applications (the DSN-F paper's Fig. 10 used SimGrid)
-----------------------------------------------------------------------------------
No computation (the relative times are of communication alone), a barrier between phases
instead of point-to-point dependencies, one iteration instead of the whole run, message
sizes from the benchmarks' data layout rather than a trace, and packets (virtual
cut-through) rather than SimGrid's flow model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

__all__ = ["PACKET_BYTES", "APPS", "GENERIC", "APP_PATTERNS", "Phase", "Workload", "dims_create", "ALLTOALLS",
           "grid_neighbours", "workload", "traffic_matrix", "DestinationTable", "destination_table"]

#: payload bytes of one packet (33 flits of 256 bits: one header flit, 32 payload flits)
PACKET_BYTES = 1024
#: the applications (closed-loop workloads and their steady states)
APPS = ("npb-cg", "npb-ep", "npb-ft", "npb-is", "npb-lu", "npb-mg", "himeno")
#: the generic application-like patterns (steady state only)
GENERIC = ("halo2d", "halo3d", "alltoall", "butterfly")
#: every traffic name this module defines
APP_PATTERNS = GENERIC + APPS

#: Class A / size M constants (module docs)
CG_NA = 14000
FT_GRID = (256, 256, 128)
IS_KEYS, IS_BUCKETS = 1 << 23, 1024
MG_GRID = 256
LU_GRID, LU_PLANES = 64, 62
HIMENO_GRID = (128, 128, 256)


@dataclass(frozen=True)
class Phase:
    """Messages sent between two synchronisations: ``msgs[i] = (src, dst, packets)``."""

    label: str
    msgs: np.ndarray

    def key(self) -> bytes:
        return self.msgs.tobytes()


@dataclass
class Workload:
    """One iteration of an application on ``ranks`` ranks: its phases in order."""

    name: str
    ranks: int
    phases: list

    @property
    def packets(self) -> int:
        return int(sum(int(p.msgs[:, 2].sum()) for p in self.phases if len(p.msgs)))

    def on_hosts(self, hosts) -> "Workload":
        """The same workload with rank ``r`` on host ``hosts[r]`` (instead of host ``r``)."""
        hosts = np.asarray(hosts, dtype=np.int64)
        if len(hosts) < self.ranks or len(np.unique(hosts[:self.ranks])) < self.ranks:
            raise ParameterError(f"{self.name}: a mapping needs {self.ranks} distinct hosts, got "
                                 f"{len(np.unique(hosts))}")
        out = []
        for p in self.phases:
            m = p.msgs.copy()
            m[:, :2] = hosts[m[:, :2]]
            out.append(Phase(p.label, m))
        return Workload(self.name, self.ranks, out)


def dims_create(n: int, d: int) -> tuple:
    """MPI_Dims_create(n, d): ``d`` factors of ``n``, largest first, as close to each other as
    possible (the smallest ``max - min``; among those the smallest largest factor)."""
    n, d = int(n), int(d)
    if n < 1 or d < 1:
        raise ParameterError(f"a process grid needs n >= 1 ranks and d >= 1 dimensions, got {n}, {d}")

    def tuples(rest: int, k: int, cap: int):
        # non-increasing k-tuples of factors <= cap whose product is rest
        if k == 1:
            if rest <= cap:
                yield (rest,)
            return
        for f in range(min(rest, cap), 0, -1):
            if rest % f == 0 and f ** k >= rest:
                for t in tuples(rest // f, k - 1, f):
                    yield (f,) + t

    return min(tuples(n, d, n), key=lambda t: (t[0] - t[-1], t[0]))


def grid_neighbours(dims, axis: int, step: int, periodic: bool) -> np.ndarray:
    """Rank of the neighbour ``step`` (+1 or -1) along ``axis`` of every rank of the
    row-major grid ``dims`` (-1 where a non-periodic grid has none)."""
    dims = tuple(int(x) for x in dims)
    ranks = np.arange(math.prod(dims), dtype=np.int64)
    coords = np.array(np.unravel_index(ranks, dims))
    c = coords[axis] + step
    if periodic:
        c %= dims[axis]
        ok = np.ones(len(ranks), dtype=bool)
    else:
        ok = (c >= 0) & (c < dims[axis])
        c = np.clip(c, 0, dims[axis] - 1)
    coords = coords.copy()
    coords[axis] = c
    out = np.ravel_multi_index(tuple(coords), dims).astype(np.int64)
    out[~ok] = -1
    return out


def _packets(nbytes: float, scale: float) -> int:
    return max(1, math.ceil(nbytes * scale / PACKET_BYTES - 1e-9))


def _msgs(src, dst, packets) -> np.ndarray:
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    pk = np.broadcast_to(np.asarray(packets, dtype=np.int64), src.shape)
    keep = (dst >= 0) & (dst != src)
    return np.stack([src[keep], dst[keep], pk[keep]], axis=1) if keep.any() else np.zeros((0, 3), np.int64)


def _pow2(n: int) -> int:
    return 1 << (int(n).bit_length() - 1)


def _allreduce(p: int, packets: int, label: str, members=None) -> list:
    """Recursive-doubling allreduce over ``members`` (default ranks 0..p-1)."""
    members = np.arange(p, dtype=np.int64) if members is None else np.asarray(members, dtype=np.int64)
    n = len(members)
    m = _pow2(n)
    phases = []
    extra = np.arange(m, n)
    if len(extra):
        phases.append(Phase(f"{label} fold", _msgs(members[extra], members[extra - m], packets)))
    idx = np.arange(m)
    for k in range(m.bit_length() - 1):
        phases.append(Phase(f"{label} step {k}", _msgs(members[idx], members[idx ^ (1 << k)], packets)))
    if len(extra):
        phases.append(Phase(f"{label} unfold", _msgs(members[extra - m], members[extra], packets)))
    return phases


def _row_allreduce(rows: int, cols: int, packets: int, label: str) -> list:
    """Allreduces within every row of a ``rows x cols`` grid at once (cols a power of two)."""
    phases = []
    r = np.arange(rows * cols, dtype=np.int64)
    for k in range(cols.bit_length() - 1):
        phases.append(Phase(f"{label} step {k}", _msgs(r, r ^ (1 << k), packets)))
    return phases


def _reduce(p: int, packets: int, label: str) -> list:
    """Binomial-tree reduce to rank 0 of ranks 0..p-1."""
    phases = []
    r = np.arange(p, dtype=np.int64)
    k = 0
    while (1 << k) < p:
        send = r[(r % (1 << (k + 1))) == (1 << k)]
        phases.append(Phase(f"{label} step {k}", _msgs(send, send - (1 << k), packets)))
        k += 1
    return phases


def _alltoall(p: int, packets: int, label: str) -> Phase:
    """Every rank to every other, source ``s`` in the order ``s+1, s+2, ...`` (mod p)."""
    s = np.tile(np.arange(p, dtype=np.int64), p - 1)
    k = np.repeat(np.arange(1, p, dtype=np.int64), p)
    return Phase(label, _msgs(s, (s + k) % p, packets))


def _alltoall_phases(p: int, packets: int, label: str, algorithm: str) -> list:
    """``burst``: one phase (:func:`_alltoall`); ``pairwise``: round ``k = 1 .. p-1`` a
    phase of its own in which rank ``s`` sends to ``(s + k) mod p``."""
    if algorithm == "burst":
        return [_alltoall(p, packets, label)]
    s = np.arange(p, dtype=np.int64)
    return [Phase(f"{label} round {k}", _msgs(s, (s + k) % p, packets)) for k in range(1, p)]


def _halo(dims, periodic: bool, face_packets, label: str, axes=None) -> list:
    """One phase per axis: every rank sends its face to both neighbours along the axis."""
    phases = []
    for a in (range(len(dims)) if axes is None else axes):
        if dims[a] < 2:
            continue
        parts = []
        for step in (1, -1):
            nb = grid_neighbours(dims, a, step, periodic)
            parts.append(_msgs(np.arange(len(nb)), nb, face_packets[a]))
        phases.append(Phase(f"{label} axis {a}", np.concatenate(parts)))
    return phases


def _wavefront(dims, planes: int, edge_packets, sign: int, label: str) -> list:
    """LU's pipelined sweep: step d, process (i, j) on plane d - i - j sends downstream."""
    dx, dy = dims
    i, j = np.unravel_index(np.arange(dx * dy), dims)
    i, j = i.astype(np.int64), j.astype(np.int64)
    pos = (i + j) if sign > 0 else ((dx - 1 - i) + (dy - 1 - j))
    down0 = grid_neighbours(dims, 0, sign, False)
    down1 = grid_neighbours(dims, 1, sign, False)
    phases = []
    for d in range(planes + dx + dy - 2):
        act = np.flatnonzero((d - pos >= 0) & (d - pos < planes))
        m = np.concatenate([_msgs(act, down0[act], edge_packets[0]), _msgs(act, down1[act], edge_packets[1])])
        phases.append(Phase(f"{label} step {d}", m))
    return phases


def _cg_grid(p: int) -> tuple:
    k = p.bit_length() - 1
    return 1 << (k // 2), 1 << ((k + 1) // 2)  # nprows, npcols


#: all-to-all algorithms of :func:`workload`
ALLTOALLS = ("burst", "pairwise")


def workload(app: str, num_hosts: int, *, scale: float = 1.0, alltoall: str = "burst") -> Workload:
    """One iteration of ``app`` (:data:`APPS`) on the first ranks of ``num_hosts`` hosts
    (module docs), message bytes multiplied by ``scale``; ``alltoall``: ``burst`` (every
    send of an all-to-all posted at once, one phase) or ``pairwise`` (``P - 1`` rounds, a
    barrier after each)."""
    n = int(num_hosts)
    if app not in APPS:
        raise ParameterError(f"application must be one of {', '.join(APPS)}, got {app!r}")
    if n < 2:
        raise ParameterError(f"{app} needs at least 2 hosts, got {n}")
    if not scale > 0:
        raise ParameterError(f"message scale must be > 0, got {scale!r}")
    if alltoall not in ALLTOALLS:
        raise ParameterError(f"alltoall must be one of {', '.join(ALLTOALLS)}, got {alltoall!r}")
    p = n if app == "himeno" else _pow2(n)
    ph: list = []
    if app == "npb-ep":
        for name in ("sx", "sy", "q"):
            ph += _allreduce(p, 1, f"allreduce {name}")
    elif app == "npb-cg":
        rows, cols = _cg_grid(p)
        r = np.arange(p, dtype=np.int64)
        row, col = r // cols, r % cols
        seg = 8.0 * CG_NA / rows
        for k in range(cols.bit_length() - 1):
            ph.append(Phase(f"matvec reduce step {k}", _msgs(r, r ^ (1 << k), _packets(seg / 2 ** (k + 1), scale))))
        q = cols // rows
        partner = (col // q) * cols + row * q + col % q
        ph.append(Phase("transpose exchange", _msgs(r, partner, _packets(seg / cols, scale))))
        ph += _row_allreduce(rows, cols, 1, "dot product 1") + _row_allreduce(rows, cols, 1, "dot product 2")
    elif app == "npb-ft":
        nx, ny, nz = FT_GRID
        ph += _alltoall_phases(p, _packets(16.0 * nx * ny * nz / p ** 2, scale), "transpose all-to-all", alltoall)
        ph += _reduce(p, 1, "checksum reduce")
    elif app == "npb-is":
        ph += _allreduce(p, _packets(4.0 * IS_BUCKETS, scale), "bucket-size allreduce")
        ph += _alltoall_phases(p, 1, "send-count all-to-all", alltoall)
        ph += _alltoall_phases(p, _packets(4.0 * IS_KEYS / p ** 2, scale), "key all-to-all", alltoall)
    elif app == "npb-mg":
        dims = dims_create(p, 3)
        local = [MG_GRID / d for d in dims]
        level = 0
        while min(local) >= 2:
            face = [_packets(8.0 * math.prod(local) / local[a], scale) for a in range(3)]
            for c in range(4):
                ph += _halo(dims, True, face, f"level {level} comm3 {c}")
            local = [x / 2 for x in local]
            level += 1
        ph += _allreduce(p, 1, "norm sum") + _allreduce(p, 1, "norm max")
    elif app == "npb-lu":
        dims = dims_create(p, 2)
        local = [LU_GRID / dims[0], LU_GRID / dims[1]]
        edge = [_packets(5 * 8.0 * local[1], scale), _packets(5 * 8.0 * local[0], scale)]
        ph += _wavefront(dims, LU_PLANES, edge, 1, "lower sweep")
        ph += _wavefront(dims, LU_PLANES, edge, -1, "upper sweep")
        ph += _halo(dims, False, [_packets(2 * 5 * 8.0 * local[1] * LU_GRID, scale),
                                  _packets(2 * 5 * 8.0 * local[0] * LU_GRID, scale)], "rhs exchange")
    else:  # himeno
        d = dims_create(p, 3)
        dims = (d[1], d[2], d[0])  # the largest along the 256-point axis
        local = [g / k for g, k in zip(HIMENO_GRID, dims)]
        ph += _allreduce(p, 1, "residual allreduce")
        face = [_packets(4.0 * math.prod(local) / local[a], scale) for a in range(3)]
        ph += _halo(dims, False, face, "sendp", axes=(2, 1, 0))
    ph = [x for x in ph if len(x.msgs)]
    return Workload(app, p, ph)


def traffic_matrix(name: str, num_hosts: int) -> np.ndarray:
    """``(src, dst, weight)`` rows of the steady state of ``name`` (:data:`APP_PATTERNS`) on
    ``num_hosts`` hosts: the packets of one iteration (applications) or the equal weights
    of the generic patterns (module docs), one row per (src, dst) pair."""
    n = int(num_hosts)
    if name not in APP_PATTERNS:
        raise ParameterError(f"application pattern must be one of {', '.join(APP_PATTERNS)}, got {name!r}")
    if n < 2:
        raise ParameterError(f"traffic {name} needs at least 2 hosts, got {n}")
    if name in APPS:
        wl = workload(name, n)
        rows = np.concatenate([p.msgs for p in wl.phases])
    elif name in ("halo2d", "halo3d"):
        dims = dims_create(n, 2 if name == "halo2d" else 3)
        rows = np.concatenate([p.msgs for p in _halo(dims, True, [1, 1, 1], name)])
    elif name == "alltoall":
        rows = _alltoall(n, 1, name).msgs
    else:  # butterfly
        m = _pow2(n)
        rows = np.concatenate([p.msgs for p in _allreduce(m, 1, name)])
    key, inv = np.unique(rows[:, 0] * n + rows[:, 1], return_inverse=True)
    w = np.bincount(inv.ravel(), weights=rows[:, 2]).astype(np.int64)
    return np.stack([key // n, key % n, w], axis=1)


class DestinationTable:
    """Per source host, destinations drawn with given weights (vectorised).

    Parameters
    ----------
    rows : ndarray, shape (k, 3)
        ``(src, dst, weight)``, weights > 0; at most one row per pair.
    """

    def __init__(self, rows: np.ndarray):
        rows = np.asarray(rows, dtype=np.int64)
        order = np.lexsort((rows[:, 1], rows[:, 0]))
        rows = rows[order]
        self.sources, start = np.unique(rows[:, 0], return_index=True)
        self.dst = rows[:, 1].copy()
        w = rows[:, 2].astype(np.float64)
        row_of = np.repeat(np.arange(len(self.sources)), np.diff(np.append(start, len(rows))))
        tot = np.bincount(row_of, weights=w)
        cum = np.cumsum(w) - np.repeat(np.cumsum(tot) - tot, np.diff(np.append(start, len(rows))))
        # entry e of source row i covers (i + cum_before, i + cum] / tot: one increasing array
        self._edges = row_of + cum / tot[row_of]
        self._edges[np.append(start[1:], len(rows)) - 1] = np.arange(1, len(self.sources) + 1)
        self._row = np.full(int(self.sources.max()) + 1 if len(self.sources) else 0, -1, dtype=np.int64)
        self._row[self.sources] = np.arange(len(self.sources))
        self.weights = w / tot[row_of]

    def draw(self, src: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One destination per entry of ``src`` (sources of the table), by weight."""
        pos = self._row[np.asarray(src, dtype=np.int64)]
        u = rng.random(len(pos))
        idx = np.searchsorted(self._edges, pos + u, side="right")
        return self.dst[np.minimum(idx, len(self.dst) - 1)]


def destination_table(name: str, num_hosts: int) -> DestinationTable:
    """The steady-state :class:`DestinationTable` of ``name`` (:func:`traffic_matrix`)."""
    return DestinationTable(traffic_matrix(name, num_hosts))
