"""Mapping clusters to cabinet locations (Koibuchi et al., Section IV-D).

"The input to the mapping method is a floorplan that indicates the possible locations
for the cabinets.  The method is applicable to an arbitrary floorplan since it only uses
the distances between each pair of cabinet locations ... Our method then assigns each
cabinet to a location so that the inter-cabinet total cable length is minimized.  This
process can be framed as a facility location problem and formulated as a quadratic
assignment problem (QAP).  We employ Simulated Annealing (SA) ... We run SA for 100
million iterations and pick the best solution out of five trials.  We also define a
baseline method that assigns the locations from left to right in the first row, from
right to left in the second row, etc."

The QAP: clusters ``a, b`` joined by ``W[a, b]`` links, locations ``x, y`` at cable
length ``D[x, y]``; find the assignment ``pi`` (cluster -> location, injective)
minimising ``sum_{a < b} W[a, b] D[pi(a), pi(b)]``.  :func:`anneal` solves it:

* a *move* swaps the locations of two clusters (empty locations are dummy clusters
  without links, so moving to a free cabinet is a swap too);
* its cost change is ``sum_k (W[r,k] - W[s,k]) (D[pi(s),pi(k)] - D[pi(r),pi(k)])`` over
  ``k != r, s``: ``O(1)`` per move on a :class:`Floor` (Manhattan distances separate
  into per-row and per-column tables), ``O(L)`` for an arbitrary distance matrix;
* moves are drawn in *batches* of disjoint random pairs and evaluated together in NumPy;
  with ``chain="sequential"`` (default) each move is then re-decided with the pairwise
  corrections of the earlier accepted moves of its batch until the decisions are
  stable, which is exactly the one-move-at-a-time Metropolis chain; ``chain="batched"``
  decides all moves of a batch on the batch-start state (faster while many moves are
  accepted).  Either way the tracked cost is exact;
* geometric cooling from ``t_start`` to ``t_end``.  Defaults: ``t_start`` is the
  temperature at which random moves from the start, if uphill, would be accepted with
  mean probability 3% (:data:`START_ACCEPTANCE`), and ``t_end = t_start / 10^3``.
  Starting from the serpentine baseline, hotter starts only randomise a good layout
  first: on the 8,192-switch Nbr(0.5) benchmark (10^7 moves) a start accepting half
  of the uphill moves ends within 0.1% of the default's cost, after about 70 times
  more accepted (and costly) moves;
* ``restarts`` independent trials from the same start (child seeds of ``seed``); the
  best assignment seen in any trial is returned, so the result is never worse than the
  start.

The paper does not give its cooling schedule; the one above is our choice.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._rng import child_seeds, make_rng, resolve_seed
from .._validate import check_float, check_int
from ..errors import ParameterError
from .floor import Floor
from .placement import Layout

#: Correction rounds per batch before falling back to the prefix known to be exact.
_FIXPOINT_ROUNDS = 8

__all__ = ["serpentine", "mapping_cost", "anneal", "AnnealResult", "map_clusters", "MAPPINGS"]

MAPPINGS = ("anneal", "serpentine")


def serpentine(floor: Floor, num_clusters: int | None = None) -> np.ndarray:
    """The paper's baseline (IV-D): location of each cluster in serpentine order.

    Parameters
    ----------
    floor : Floor
        Cabinet ``k`` stands at row ``k // columns``, column ``k % columns``.
    num_clusters : int, optional
        Clusters to place (default: every cabinet).

    Returns
    -------
    ndarray of int64
        ``loc[i]`` = cabinet index of cluster ``i``: left to right along row 0, right to
        left along row 1, and so on (cabinet positions missing from a partial last row
        are skipped).

    Raises
    ------
    ParameterError
        If there are more clusters than cabinets.
    """
    c = floor.cabinets
    k = c if num_clusters is None else check_int("num_clusters", num_clusters, 0)
    if k > c:
        raise ParameterError(
            f"{k} clusters do not fit on a floor of {c} cabinets; use a floor with at least "
            f"{k} cabinets"
        )
    grid = np.arange(floor.rows * floor.columns, dtype=np.int64).reshape(floor.rows, floor.columns)
    grid[1::2] = grid[1::2, ::-1]
    order = grid.ravel()
    return order[order < c][:k]


def _dense_or_sparse(w) -> sp.csr_matrix:
    m = sp.csr_matrix(w, dtype=np.float64)
    if m.shape[0] != m.shape[1]:
        raise ParameterError(f"weights must be a square matrix, got shape {m.shape}")
    if (m != m.T).nnz:
        raise ParameterError("weights must be symmetric (links between clusters a and b)")
    if m.nnz and m.data.min() < 0:
        raise ParameterError("weights must be non-negative")
    return m


def mapping_cost(weights, distances, assignment) -> float:
    """``sum_{a < b} W[a, b] D[pi(a), pi(b)]`` (the inter-cluster cable length).

    ``weights`` may be dense or sparse; its diagonal is ignored.
    """
    W = sp.triu(_dense_or_sparse(weights), k=1).tocoo()
    D = np.asarray(distances, dtype=np.float64)
    pi = np.asarray(assignment, dtype=np.int64)
    return float(np.dot(W.data, D[pi[W.row], pi[W.col]]))


@dataclass
class AnnealResult:
    """Outcome of :func:`anneal`.

    Attributes
    ----------
    assignment : ndarray of int64
        Location of each cluster (the best found).
    cost, initial_cost : float
        :func:`mapping_cost` of the result and of the start.
    moves : int
        Proposed moves (all trials).
    accepted : int
        Moves carried out.
    seconds : float
        Wall time.
    trial_costs : list of float
        Best cost of each trial.
    """

    assignment: np.ndarray
    cost: float
    initial_cost: float
    moves: int
    accepted: int
    seconds: float
    trial_costs: list = field(default_factory=list)

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else float("inf")


#: Default start temperature: random uphill moves from the start are accepted with this
#: mean probability.
START_ACCEPTANCE = 0.03


def _temperature_for(uphill: np.ndarray, target: float) -> float:
    """Temperature T with mean(exp(-uphill / T)) = target (bisection on log T)."""
    lo, hi = math.log(float(uphill.min()) * 1e-3 + 1e-12), math.log(float(uphill.max()) * 1e3)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if np.mean(np.exp(-uphill / math.exp(mid))) > target:
            hi = mid
        else:
            lo = mid
    return math.exp(0.5 * (lo + hi))


class _DenseEval:
    """Cost changes for any distance matrix: ``O(L)`` per move, ``O(L)`` per accepted move.

    Keeps ``Dpi[x, k] = D[x, pi(k)]``; the change of swapping ``r`` and ``s`` is
    ``sum_k (W[r,k] - W[s,k]) (Dpi[pi(s), k] - Dpi[pi(r), k]) + 2 W[r,s] D[pi(r), pi(s)]``
    (the sum over all ``k`` counts ``k = r, s`` as ``-2 W[r,s] D[pi(r), pi(s)]``).
    """

    def __init__(self, W, D, pi):
        self.W = W
        self.D0 = D.astype(W.dtype)
        np.fill_diagonal(self.D0, 0.0)
        self.Dpi = self.D0[:, pi]
        self.L = len(pi)

    def dist(self, x, y):
        return self.D0[x, y]

    def deltas(self, pi, r, s):
        W, L = self.W, self.L
        pr, ps = pi[r], pi[s]
        d = np.einsum("ij,ij->i", W[r] - W[s], self.Dpi[ps] - self.Dpi[pr])
        return d + 2.0 * W.ravel()[r * L + s] * self.D0.ravel()[pr * L + ps]

    def wblock(self, a, b):
        """``W[a][:, b]`` (a dense block)."""
        return self.W[a][:, b]

    def update(self, pi, moved, old):
        self.Dpi[:, moved] = self.D0[:, pi[moved]]


class _GridEval:
    """Cost changes on a :class:`Floor` (Manhattan grid + overhead): ``O(1)`` per move.

    With ``D[x, y] = depth |row_x - row_y| + width |col_x - col_y| + overhead`` for
    ``x != y``, ``F[a, x] = sum_k W[a, k] D[x, pi(k)]`` separates into
    ``HR[a, row_x] + HC[a, col_x] + overhead (S_a - W[a, occupant(x)])``, where
    ``HR[a, i] = sum_k W[a, k] depth |i - row(pi(k))|`` (and ``HC`` for columns) are
    ``L x rows`` and ``L x columns`` tables updated by a small matrix product per batch
    of accepted moves.  The change of swapping ``r`` and ``s`` is
    ``F[r, pi(s)] - F[r, pi(r)] + F[s, pi(r)] - F[s, pi(s)] + 2 W[r, s] D[pi(r), pi(s)]``.

    ``W`` is kept sparse (its entries looked up by sorted ``row * L + col`` keys) and
    distances are computed from the floor when needed, so memory is ``O(L sqrt(L) +
    links)``: no ``L x L`` matrix (three of them took 4 GB at 12,500 cabinets).
    """

    def __init__(self, W, floor: Floor, pi):
        L = len(pi)
        coo = sp.coo_matrix(W, dtype=np.float64)
        off = (coo.row != coo.col) & (coo.data != 0)
        Wc = sp.csr_matrix((coo.data[off], (coo.row[off], coo.col[off])), shape=(L, L))
        Wc.sum_duplicates()
        Wc.sort_indices()
        self.W = Wc
        self.L = L
        coo = Wc.tocoo()
        self._keys = coo.row.astype(np.int64) * L + coo.col  # sorted (CSR order)
        self._vals = coo.data
        self.floor = floor
        loc = np.arange(L)
        self.R, self.C = loc // floor.columns, loc % floor.columns
        i = np.arange(floor.rows)
        j = np.arange(floor.columns)
        self.MR = np.abs(i[:, None] - i[None, :]) * floor.cabinet_depth
        self.MC = np.abs(j[:, None] - j[None, :]) * floor.cabinet_width
        self.ovh = floor.inter_overhead
        self.S = np.asarray(Wc.sum(axis=1)).ravel()
        # H = [HR | HC]: per-row and per-column tables side by side
        self.nrows = floor.rows
        # dense products on row blocks (the same BLAS sums as one dense W @ M)
        M = np.concatenate([self.MR[self.R[pi]], self.MC[self.C[pi]]], axis=1)
        self.H = np.empty((L, M.shape[1]))
        step = max(1, (1 << 22) // max(L, 1))
        for a in range(0, L, step):
            self.H[a : a + step] = Wc[a : a + step].toarray() @ M
        self.occ = np.empty(L, dtype=np.int64)
        self.occ[pi] = np.arange(L)

    def pair(self, a, b):
        """``W[a, b]`` elementwise (broadcast), from the sorted keys."""
        keys = np.asarray(a, dtype=np.int64) * self.L + np.asarray(b, dtype=np.int64)
        if not len(self._keys):
            return np.zeros(keys.shape)
        pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        return np.where(self._keys[pos] == keys, self._vals[pos], 0.0)

    def wblock(self, a, b):
        """``W[a][:, b]`` (a dense block)."""
        return self.pair(np.asarray(a)[:, None], np.asarray(b)[None, :])

    def dist(self, x, y):
        """``D0[x, y]``: the floor's cable length, 0 on the diagonal (broadcast)."""
        x, y = np.asarray(x), np.asarray(y)
        return np.where(x == y, 0.0, self.floor.cable_length(x, y))

    def _F(self, a, x):
        return (self.H[a, self.R[x]] + self.H[a, self.nrows + self.C[x]]
                + self.ovh * (self.S[a] - self.pair(a, self.occ[x])))

    def deltas(self, pi, r, s):
        pr, ps = pi[r], pi[s]
        return (self._F(r, ps) - self._F(r, pr) + self._F(s, pr) - self._F(s, ps)
                + 2.0 * self.pair(r, s) * self.dist(pr, ps))

    def update(self, pi, moved, old):
        new = pi[moved]
        X = np.concatenate([self.MR[self.R[new]] - self.MR[self.R[old]],
                            self.MC[self.C[new]] - self.MC[self.C[old]]], axis=1)
        # W[:, moved] = W[moved].T (symmetric); only the rows linked to a moved cluster
        # change, in chunks of 16 moved clusters as before
        for c in range(0, len(moved), 16):
            part = self.W[moved[c : c + 16]]
            rows = np.unique(part.indices)
            if len(rows):  # the rows of H that change, by the same dense product as before
                self.H[rows] += part[:, rows].toarray().T @ X[c : c + 16]
        self.occ[new] = moved


def _grid_cost(Ws, floor: Floor, assignment) -> float:
    """:func:`mapping_cost` on a floor's distances without its ``L x L`` matrix (the
    same gathered values, the same sum)."""
    W = sp.triu(Ws, k=1).tocoo()
    pi = np.asarray(assignment, dtype=np.int64)
    return float(np.dot(W.data, floor.cable_length(pi[W.row], pi[W.col])))


def anneal(weights, distances, *, initial=None, iterations: int = 10**6, restarts: int = 1,
           seed=None, batch: int | None = None, t_start: float | None = None,
           t_end: float | None = None, chain: str = "sequential",
           progress=None) -> AnnealResult:
    """Simulated annealing for the cluster-to-location QAP (Koibuchi et al. IV-D).

    Parameters
    ----------
    weights : array_like or sparse matrix, shape (K, K)
        Symmetric non-negative link counts between clusters (diagonal ignored).
    distances : array_like, shape (L, L), or Floor
        Symmetric distances between locations (cable lengths), ``L >= K``; the diagonal
        is ignored.  A :class:`Floor` stands for its ``distance_matrix()`` and enables
        the O(1) move evaluation of its Manhattan grid (Notes).
    initial : array_like of int, shape (K,), optional
        Start assignment (distinct locations); default ``0 .. K-1``.
    iterations : int
        Moves proposed per trial (the paper runs 10^8 and keeps the best of 5 trials).
    restarts : int
        Independent trials from ``initial``.
    seed : int, optional
        Seed of all random choices.
    batch : int, optional
        Proposals drawn together (default ``min(256, L // 2)``).
    t_start, t_end : float, optional
        Start and end temperatures of the geometric cooling (module docstring; by
        default 3% mean acceptance of random uphill moves at the start, and
        ``t_start / 1000``).
    chain : {"sequential", "batched"}
        ``"sequential"``: exactly the one-move-at-a-time Metropolis chain (Notes).
        ``"batched"``: the moves of a batch are all decided on the state at the start of
        the batch (faster when many moves are accepted; an approximation of the chain,
        the tracked cost stays exact).
    progress : callable, optional
        Called as ``progress(done, total)`` with the moves proposed so far over all
        trials and ``iterations * restarts``, every 64 batches and at the end.

    Returns
    -------
    AnnealResult
        The best assignment found; ``cost <= initial_cost`` always.

    Raises
    ------
    ParameterError
        Shapes that do not match, more clusters than locations, a start that is not an
        injective assignment, or out-of-range options.

    Notes
    -----
    Section IV-D.  The cost change of a swap is computed by an evaluator: for a
    :class:`Floor`, ``O(1)`` per move from per-row and per-column tables (its distance is
    Manhattan plus a constant overhead; see ``_GridEval``); for a general matrix,
    ``O(L)`` per move from the column-permuted distance matrix (``_DenseEval``).  A
    batch draws ``B`` disjoint pairs and their uniform numbers, evaluates all moves
    against the current state, then corrects each move's cost change for the earlier
    moves of the batch that are accepted (a pairwise term, nonzero only between linked
    clusters) and re-decides until the decisions stop changing.  The fixed point is
    exactly the sequential Metropolis chain (decision ``j`` depends only on decisions
    before ``j``); if it is not reached in a few rounds, the prefix known to be exact is
    carried out and the rest of the batch is dropped.  The tracked cost is
    re-synchronised with :func:`mapping_cost` every 512 batches.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Section IV-D.
    .. [2] S. Kirkpatrick, C. D. Gelatt, M. P. Vecchi, "Optimization by simulated
       annealing", Science 220, 1983.
    """
    t0 = time.perf_counter()
    Ws = _dense_or_sparse(weights)
    K = Ws.shape[0]
    floor = distances if isinstance(distances, Floor) else None
    if floor is not None:  # distances from the floor when needed: no L x L matrix
        D = None
        L = floor.cabinets
    else:
        D = np.asarray(distances, dtype=np.float64)
        if D.ndim != 2 or D.shape[0] != D.shape[1]:
            raise ParameterError(f"distances must be a square matrix, got shape {D.shape}")
        L = D.shape[0]

    def cost_of(assignment):
        return _grid_cost(Ws, floor, assignment) if floor is not None else mapping_cost(Ws, D, assignment)
    if K > L:
        raise ParameterError(
            f"{K} clusters do not fit in {L} locations; the floor needs at least {K} cabinets"
        )
    iterations = check_int("iterations", iterations, 0)
    restarts = check_int("restarts", restarts, 1)
    if initial is None:
        start = np.arange(K, dtype=np.int64)
    else:
        start = np.asarray(initial, dtype=np.int64)
        if start.shape != (K,) or (K and (start.min() < 0 or start.max() >= L)) \
                or np.unique(start).size != K:
            raise ParameterError(f"initial must give {K} distinct locations in [0, {L - 1}]")
    init_cost = cost_of(start)
    seed = resolve_seed(seed)
    if L < 2 or K < 2 or iterations == 0:
        return AnnealResult(start.copy(), init_cost, init_cost, 0, 0, time.perf_counter() - t0,
                            [init_cost])
    if chain not in ("sequential", "batched"):
        raise ParameterError(f"chain must be 'sequential' or 'batched', got {chain!r}")
    sequential = chain == "sequential"
    B = min(256, L // 2) if batch is None else check_int("batch", batch, 1)
    B = max(1, min(B, L // 2))
    # L "clusters": the K real ones and L - K dummies without links on the free locations
    free = np.setdiff1d(np.arange(L), start)
    pi0 = np.concatenate([start, free]).astype(np.int64)
    if floor is not None:
        W = sp.csr_matrix((Ws.data, Ws.indices, np.r_[Ws.indptr, np.full(L - K, Ws.indptr[-1])]),
                          shape=(L, L))
    else:
        W = np.zeros((L, L), dtype=np.float32)
        W[:K, :K] = Ws.toarray()
        np.fill_diagonal(W, 0.0)
    make_eval = (lambda pi: _GridEval(W, floor, pi)) if floor is not None else \
        (lambda pi: _DenseEval(W, D, pi))

    gens = [make_rng(x) for x in child_seeds(seed, restarts + 1)]
    if t_start is None:
        probe = gens[-1]
        ev = make_eval(pi0)
        samples = []
        for _ in range(max(1, 4096 // B)):
            p = probe.permutation(L)
            samples.append(ev.deltas(pi0, p[:B], p[B : 2 * B]))
        dd = np.concatenate(samples)
        up = dd[dd > 0]
        t_start = _temperature_for(up, START_ACCEPTANCE) if up.size else 1.0
    else:
        t_start = check_float("t_start", t_start, 0.0, None, min_open=True)
    t_end = t_start * 1e-3 if t_end is None else check_float("t_end", t_end, 0.0, t_start, min_open=True)
    ratio = (t_end / t_start) ** (1.0 / max(iterations - 1, 1))  # per move
    best_pi, best_cost = pi0.copy(), init_cost
    moves = accepted = 0
    trial_costs = []

    def corrections(rows, cols):
        """C[j, m]: change of move j's cost change when move m (m < j) is made first,
        ``(W[rj,rm] - W[sj,rm] - W[rj,sm] + W[sj,sm]) (D[psj,psm] - D[prj,psm] - D[psj,prm]
        + D[prj,prm])``, from two block gathers."""
        nr, nc = len(rows), len(cols)
        Wb = ev.wblock(np.concatenate([r[rows], s[rows]]), np.concatenate([r[cols], s[cols]]))
        wc = Wb[:nr, :nc] - Wb[nr:, :nc] - Wb[:nr, nc:] + Wb[nr:, nc:]
        Db = ev.dist(np.concatenate([ps[rows], pr[rows]])[:, None],
                     np.concatenate([ps[cols], pr[cols]])[None, :])
        dc = Db[:nr, :nc] - Db[nr:, :nc] - Db[:nr, nc:] + Db[nr:, nc:]
        return wc * dc * (cols[None, :] < rows[:, None])

    for gen in gens[:-1]:
        pi = pi0.copy()
        ev = make_eval(pi)
        cost = tbest = init_cost
        nbatch = 0
        bsize = B
        done = 0
        while done < iterations:
            b = min(bsize, iterations - done)
            T = t_start * ratio ** done
            p = gen.permutation(L)
            r, s = p[:b], p[b : 2 * b]
            pr, ps = pi[r], pi[s]
            d0 = ev.deltas(pi, r, s)
            logu = np.log(gen.random(b))
            acc = -d0 >= T * logu  # Metropolis: accept iff u <= exp(-delta / T)
            d1 = d0
            n_used = b
            extra = 0.0
            if sequential and np.count_nonzero(acc) > 1:
                # corrections C[j, m] for move m (accepted, before j) carried out before
                # move j; columns are computed for the moves accepted so far only
                cols = np.zeros(0, dtype=np.int64)
                C = np.zeros((b, 0))
                rows = np.arange(b)
                for _ in range(_FIXPOINT_ROUNDS):
                    need = np.setdiff1d(np.flatnonzero(acc), cols, assume_unique=True)
                    if need.size:
                        C = np.concatenate([C, corrections(rows, need)], axis=1)
                        cols = np.concatenate([cols, need])
                    d1 = d0 + np.einsum("ij,j->i", C, acc[cols].astype(C.dtype))
                    new = -d1 >= T * logu
                    diff = np.flatnonzero(new != acc)
                    acc = new
                    if not diff.size:
                        break
                else:
                    n_used = int(diff[0]) + 1
                    acc[n_used:] = False
            elif not sequential and np.count_nonzero(acc) > 1:
                # decisions from the batch-start state; the cost still changes exactly
                a_idx = np.flatnonzero(acc)
                extra = float(corrections(a_idx, a_idx).sum())
            take = np.flatnonzero(acc)
            done += n_used
            nbatch += 1
            if progress is not None and nbatch % 64 == 0:
                progress(moves + done, iterations * restarts)
            if take.size and nbatch % 512 == 0:  # float32 changes: resynchronise exactly
                cost = cost_of(pi[:K])
            if take.size:
                rt, st = r[take], s[take]
                moved = np.concatenate([rt, st])
                old = pi[moved]
                pi[rt], pi[st] = ps[take], pr[take]
                ev.update(pi, moved, old)
                cost += float(d1[take].sum(dtype=np.float64)) + extra
                accepted += take.size
                if cost < tbest:
                    tbest = cost
                if cost < best_cost:
                    best_cost, best_pi = cost, pi.copy()
        moves += done
        trial_costs.append(tbest)
        if progress is not None:
            progress(moves, iterations * restarts)
    assignment = best_pi[:K].copy()
    final = cost_of(assignment)
    if final > init_cost:  # rounding only; never return worse than the start
        assignment, final = start.copy(), init_cost
    return AnnealResult(assignment, final, init_cost, moves, accepted,
                        time.perf_counter() - t0, trial_costs)


def map_clusters(topology, clusters, floor: Floor, method: str = "anneal", *,
                 iterations: int = 10**6, restarts: int = 1, seed=None, **options) -> Layout:
    """Place clustered switches on a floor: each cluster to one cabinet (IV-D).

    Parameters
    ----------
    topology : Topology
    clusters : array_like of int, shape (N,)
        Cluster of each switch, ``0 .. K-1`` (e.g. from
        :func:`topogen.layout.clustering.walktrap_clusters`); cluster ``k`` is the
        ``k``-th cabinet of the serpentine order in the baseline.
    floor : Floor
        At least ``K`` cabinets of at least the largest cluster's size.
    method : {"anneal", "serpentine"}
        Simulated annealing started from the serpentine baseline, or the baseline.
    iterations, restarts, seed
        Passed to :func:`anneal`.
    **options
        Other :func:`anneal` options (``batch``, ``t_start``, ``t_end``).

    Returns
    -------
    Layout
        ``placement`` is ``"anneal"`` or ``"serpentine"``; with ``"anneal"`` its
        ``total_cable_length`` is never above the serpentine layout's.

    Raises
    ------
    ParameterError
        Unknown method, a cluster larger than a cabinet, or more clusters than cabinets.
    """
    t = getattr(topology, "topology", topology)
    if method not in MAPPINGS:
        raise ParameterError(f"method must be one of {', '.join(MAPPINGS)}, got {method!r}")
    lab = np.asarray(clusters, dtype=np.int64)
    if lab.shape != (t.num_switches,) or (lab.size and lab.min() < 0):
        raise ParameterError(f"clusters must give one cluster index >= 0 per switch ({t.num_switches})")
    K = int(lab.max()) + 1 if lab.size else 0
    sizes = np.bincount(lab, minlength=K)
    if sizes.max(initial=0) > floor.switches_per_cabinet:
        raise ParameterError(
            f"cluster {int(np.argmax(sizes))} has {int(sizes.max())} switches but a cabinet holds "
            f"switches_per_cabinet={floor.switches_per_cabinet}"
        )
    if K > floor.cabinets:
        raise ParameterError(
            f"{K} clusters do not fit on a floor of {floor.cabinets} cabinets; the floor must "
            f"have at least {K} cabinets (cabinets >= {K})"
        )
    base = serpentine(floor, K)
    if method == "serpentine":
        return Layout(t, floor, base[lab], "serpentine")
    from .clustering import cluster_graph

    W = cluster_graph(t, lab)
    s = resolve_seed(seed)
    res = anneal(W, floor, initial=base, iterations=iterations,
                 restarts=restarts, seed=s, **options)
    return Layout(t, floor, res.assignment[lab], "anneal", seed=s)
