"""Incremental expansion of a DSN-F (Truong et al., DSN-F paper, Section III-D, Fig. 3):
:func:`expand` adds nodes without changing p, :func:`transform` turns a full DSN-F with
parameter p into one with p + 1; both return an :class:`Expansion` with the cables added,
removed and kept (:func:`cable_diff`).

Re-exported by :mod:`topogen.generators.dsn`.  See ``docs/topologies/dsn.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import check_int
from ..errors import ParameterError
from ..topology import Topology
from .dsnf import _LAYER, _LOCAL, DSNF_KINDS, dsnf, dsnf_size_range, labels_of


@dataclass(frozen=True)
class Expansion:
    """The outcome of an expansion step (III-D).

    Attributes
    ----------
    before, topology : Topology
        The network before and after.
    old_to_new : ndarray of int64
        New id of each switch of ``before`` (identity for node additions).
    added, removed, kept : ndarray (E, 2) of int64
        Cables in the numbering of ``topology`` (``u < v``, sorted): new cables, cables
        taken out, cables left in place (a cable joining the same two switches before and
        after counts as kept, even if its role changes).
    relabelled : ndarray (E, 2) of int64
        Kept cables whose link kind changes (the transformation turns one Layer_Link per
        super-node into a Succ link).
    steps : dict or None
        For :func:`transform`: links added and removed by the paper's step list.
    """

    before: Topology
    topology: Topology
    old_to_new: np.ndarray
    added: np.ndarray
    removed: np.ndarray
    kept: np.ndarray
    relabelled: np.ndarray = None
    steps: dict | None = None

    def __post_init__(self):
        if self.relabelled is None:
            object.__setattr__(self, "relabelled", _relabelled(self))

    @property
    def rewired(self) -> int:
        """Cables to install (the paper's count of rewired cables, III-E)."""
        return int(len(self.added))

    def summary(self) -> dict:
        return {"switches_before": self.before.num_switches,
                "switches_after": self.topology.num_switches,
                "added": int(len(self.added)), "removed": int(len(self.removed)),
                "kept": int(len(self.kept)), "relabelled": int(len(self.relabelled))}


def _kind_lookup(t: Topology, edges: np.ndarray, numbering=None) -> np.ndarray:
    """Kind names of ``edges`` in topology ``t`` (``numbering`` maps t's ids first)."""
    te = t.edges.astype(np.int64)
    if numbering is not None:
        te = np.sort(np.asarray(numbering)[te], axis=1)
    big = int(max(te.max(initial=0), np.max(edges, initial=0))) + 1
    kt = te[:, 0] * big + te[:, 1]
    order = np.argsort(kt)
    ke = edges[:, 0] * big + edges[:, 1]
    pos = order[np.searchsorted(kt[order], ke)]
    return np.asarray(t.kind_of_links(), dtype=object)[pos]


def _relabelled(ex: "Expansion") -> np.ndarray:
    if len(ex.kept) == 0 or ex.before.link_kind is None or ex.topology.link_kind is None:
        return np.zeros((0, 2), dtype=np.int64)
    before = _kind_lookup(ex.before, ex.kept, ex.old_to_new)
    after = _kind_lookup(ex.topology, ex.kept)
    return ex.kept[before != after]


def _sorted_edges(e) -> np.ndarray:
    e = np.sort(np.asarray(e, dtype=np.int64).reshape(-1, 2), axis=1)
    if len(e) == 0:
        return e
    return np.unique(e, axis=0)


def cable_diff(old_edges, new_edges, old_to_new=None):
    """(added, removed, kept) between two edge lists; old ids mapped by ``old_to_new``."""
    old = np.asarray(old_edges, dtype=np.int64).reshape(-1, 2)
    if old_to_new is not None:
        old = np.asarray(old_to_new, dtype=np.int64)[old]
    old, new = _sorted_edges(old), _sorted_edges(new_edges)
    big = int(max(old.max(initial=0), new.max(initial=0))) + 1
    ko, kn = old[:, 0] * big + old[:, 1], new[:, 0] * big + new[:, 1]
    kept = np.isin(kn, ko)
    return new[~kept], old[~np.isin(ko, kn)], new[kept]


def _dsnf_params(topology: Topology) -> dict:
    labels_of(topology)  # validates the name
    pr = dict(topology.params)
    return {k: pr[k] for k in ("p", "fill", "partial_layers", "switches_per_cabinet",
                               "hosts_per_switch") if k in pr}


def expand(topology: Topology, count: int = 1) -> Expansion:
    """Add ``count`` nodes to a DSN-F without changing p (III-D, first method).

    Parameters
    ----------
    topology : Topology
        A DSN-F made by :func:`dsnf` (or by an earlier :func:`expand`/:func:`transform`).
    count : int
        Nodes to add (>= 1); the result may hold at most ``(p + 1) 2**(p + 1)`` nodes.

    Returns
    -------
    Expansion
        ``topology`` equals ``dsnf(n + count, p=p, ...)`` with the same options; the
        old switches keep their ids.

    Raises
    ------
    ParameterError
        If the result would exceed ``(p + 1) 2**(p + 1)`` nodes (transform first).

    Notes
    -----
    Section III-D: the new node goes into the last layer (a new layer when it is full)
    of a super-node, "based on the labeling scheme of construction method", so nodes are
    added in id order of the labeling (``fill`` decides which super-node).  Each new
    node brings its Layer_Link and its local link(s); with ``partial_layers="path"`` no
    existing cable is moved (the paper: "it only add new cables for the new node"); the
    ring reading moves the closing local link of the partial layer.
    """
    pr = _dsnf_params(topology)
    n = topology.num_switches
    p = int(pr["p"])
    hi = dsnf_size_range(p)[1]
    count = check_int("count", count, 1, max(hi - n, 1),
                      hint=f" (a DSN-F with p={p} holds at most {hi} nodes; "
                           "apply transform() at that size)")
    if n + count > hi:
        raise ParameterError(f"a DSN-F with p={p} holds at most {hi} nodes (it has {n}); "
                             "apply transform() first")
    new = dsnf(n + count, **pr)
    added, removed, kept = cable_diff(topology.edges, new.edges)
    return Expansion(topology, new, np.arange(n, dtype=np.int64), added, removed, kept)


def transform(topology: Topology) -> Expansion:
    """The p -> p+1 transformation of a full DSN-F (III-D, Fig. 3).

    Parameters
    ----------
    topology : Topology
        A DSN-F with parameter p in which every super-node holds ``2p + 2`` nodes:
        ``dsnf((p + 1) * 2**(p + 1), p=p, fill="balanced")``.

    Returns
    -------
    Expansion
        ``topology`` is the DSN-F with parameter p + 1 on the same nodes (a single
        layer of ``2**(p + 1)`` super-nodes); ``old_to_new`` renumbers the switches.
        As cables: ``added`` ``(p + 6) 2**p``, ``removed`` ``(p + 5) 2**p``, ``kept``
        ``(3p - 2) 2**p`` of which ``2**p`` are ``relabelled`` (Layer_Link -> Succ).
        ``steps`` counts the links the paper's step list adds and removes:
        ``(p + 7) 2**p`` and ``(p + 6) 2**p``.

    Raises
    ------
    ParameterError
        If the topology is not in that state.

    Notes
    -----
    Built by the steps of III-D, not by regenerating: super-node S (nodes 0..2p+1 of
    Fig. 3a: layer 0 = levels 1..p, layer 1 = levels 1..p, layer 2 = levels 1, 2) splits
    into S_A = layer 0 + node 2p (level 1 of layer 2, new level p+1) and S_B = layer 1 +
    node 2p+1 (new level p+1); S_A and S_B become super-nodes 2S and 2S+1 (the binary
    naming of III-E: S -> S0, S1).  Then

    * every Layer_Link is removed (p + 2 per super-node), with the local link of layer 2;
    * in S_A and in S_B the level-(p+1) node enters the ring between levels p and 1
      (one local link removed, two added, in each);
    * S_A keeps its shortcuts of levels 1..p-1; the Succ link of its level-p node is
      replaced by a shortcut to level p+1 of (S+1)_A; a new Succ joins its level p+1
      to level 1 of S_B;
    * S_B gets p shortcuts, level l -> level l+1 of the super-node at distance
      2**(p+1-l) in the new numbering, and a Succ from its level p+1 to level 1 of
      (S+1)_A.

    The paper writes the S_B shortcut target as ``(S + 2**(p+1-l))_B``; read with S in
    the old numbering the shortcut would be twice too long and the result not a DSN-F
    (against the paper's own conclusion), so S is the new super-node index here.
    Counting: the steps add 4 local + (p + 1) shortcuts + 2 Succ = p + 7 links per
    original super-node, the paper's "p + 7 cables rewired at each super-node" (III-E),
    and remove p + 6.  One of the added links, the Succ from S_A's level p+1 (old node
    2p) to S_B's level 1 (old node p), joins the same two switches as the removed
    Layer_Link between them: the cable can stay, so physically p + 6 cables are new and
    p + 5 taken out (``added``/``removed``), the paper's p + 7 being the step count
    (``steps``).  The paper counts 4p + 4 links per super-node (2p + 2 local, i.e. layer
    2's two-node ring as two cables); as a simple graph it has 4p + 3.
    """
    pr = _dsnf_params(topology)
    p = int(pr["p"])
    n = topology.num_switches
    full = dsnf_size_range(p)[1]
    if n != full or pr.get("fill") != "balanced":
        raise ParameterError(
            f"the p -> p+1 transformation (III-D) splits super-nodes of exactly 2p + 2 nodes: "
            f"it needs dsnf({full}, p={p}, fill='balanced'), got n={n}, fill={pr.get('fill')!r}")
    lab = labels_of(topology)
    m, q = 2 ** p, p + 1
    na = lab.node_at  # (m, 3, p)
    # new ids: super-node 2S (A) and 2S+1 (B), level l -> id s' q + l - 1
    old_to_new = np.empty(n, dtype=np.int64)
    S = np.arange(m)
    for lv in range(1, p + 1):
        old_to_new[na[S, 0, lv - 1]] = (2 * S) * q + lv - 1
        old_to_new[na[S, 1, lv - 1]] = (2 * S + 1) * q + lv - 1
    old_to_new[na[S, 2, 0]] = (2 * S) * q + p
    old_to_new[na[S, 2, 1]] = (2 * S + 1) * q + p
    old = old_to_new[topology.edges.astype(np.int64)]
    kinds = topology.link_kind
    m2 = 2 * m

    def nid(s, lv):
        return (np.asarray(s) % m2) * q + lv - 1

    A, B = 2 * S, 2 * S + 1
    remove = [old[kinds == _LAYER],                                   # all Layer_Links
              np.stack([nid(A, p), nid(A, 1)], 1),                   # layer-0 ring closure
              np.stack([nid(B, p), nid(B, 1)], 1),                   # layer-1 ring closure
              np.stack([nid(A, p + 1), nid(B, p + 1)], 1),           # layer-2 local link
              np.stack([nid(A, p), nid(A + 2, 1)], 1)]               # Succ of S (level p)
    add = [np.stack([nid(A, p), nid(A, p + 1)], 1), np.stack([nid(A, p + 1), nid(A, 1)], 1),
           np.stack([nid(B, p), nid(B, p + 1)], 1), np.stack([nid(B, p + 1), nid(B, 1)], 1),
           np.stack([nid(A, p), nid(A + 2, p + 1)], 1),              # S_A level-p shortcut
           np.stack([nid(A, p + 1), nid(B, 1)], 1),                  # Succ S_A -> S_B
           np.stack([nid(B, p + 1), nid(A + 2, 1)], 1)]              # Succ S_B -> (S+1)_A
    for lv in range(1, p + 1):                                       # S_B shortcuts
        add.append(np.stack([nid(B, lv), nid(B + 2 ** (q - lv), lv + 1)], 1))
    step_removed = _sorted_edges(np.concatenate(remove))
    step_added = _sorted_edges(np.concatenate(add))
    old_s = _sorted_edges(old)
    big = n + 1
    k_old = old_s[:, 0] * big + old_s[:, 1]
    k_rem = step_removed[:, 0] * big + step_removed[:, 1]
    if not np.isin(k_rem, k_old).all():  # pragma: no cover - internal consistency
        raise ParameterError("transformation removes a cable that does not exist")
    new_edges = np.concatenate([old_s[~np.isin(k_old, k_rem)], step_added])
    # label the new links by kind from the new labels
    new_pr = dict(pr, p=q)
    ref = dsnf(n, **new_pr)
    new = Topology(n, new_edges, hosts_per_switch=topology.hosts_per_switch, name="dsnf",
                   params=ref.params, cabinet=ref.cabinet)
    kind_map = _kinds_like(ref, new.edges)
    new = new.replace(link_kind=kind_map, kind_names=DSNF_KINDS)
    added, removed, kept = cable_diff(old, new.edges)
    return Expansion(topology, new, old_to_new, added, removed, kept,
                     steps={"added": int(len(step_added)), "removed": int(len(step_removed))})


def _kinds_like(ref: Topology, edges: np.ndarray) -> np.ndarray:
    """Kind code of each of ``edges`` as labelled in ``ref`` (DSN_F links of that size).

    Links that ``ref`` does not have get the code of the link kind they would need
    (never happens for a correct transformation; they are labelled "local").
    """
    big = ref.num_switches + 1
    kr = ref.edges[:, 0].astype(np.int64) * big + ref.edges[:, 1]
    ke = edges[:, 0].astype(np.int64) * big + edges[:, 1]
    pos = np.clip(np.searchsorted(kr, ke), 0, len(kr) - 1)
    found = kr[pos] == ke
    return np.where(found, ref.link_kind[pos], _LOCAL).astype(np.int8)
