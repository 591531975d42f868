"""Bit-parallel breadth-first search: 64 target columns per machine word, all columns of a
block at once.  Gives hop distances and lowest-rank next hops (Nearest Routing's tables in
:func:`topogen.routing.paths.nearest`, up*/down*'s legal paths) and hop eccentricities.

Re-exported by :mod:`topogen.routing.paths`.
"""

from __future__ import annotations

import numpy as np

from ..topology import Topology
from .base import csr_view


def _bits_to_bytes(words: np.ndarray, width: int) -> np.ndarray:
    """(S, W) uint64 words -> (S, width) uint8 of bits (bit j of word k = column 64k+j)."""
    b = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1, bitorder="little")
    return b[:, :width]


def bitbfs(cand: np.ndarray, num_states: int, targets: np.ndarray, *, want_ranks=True,
           want_levels=False, rank_dtype=np.uint8, sentinel=255, stop_rows: int | None = None):
    """Reverse breadth-first search from many targets at once, 64 per machine word.

    State ``s`` reaches the targets through its candidate moves ``cand[s, r]`` (state
    index; ``num_states`` = no move), tried in increasing ``r``.  For each target column
    ``j`` the search assigns to every state its distance ``L`` and the **lowest** ``r``
    whose candidate is at distance ``L - 1``.

    Parameters
    ----------
    cand : ndarray (S, R) of int64
    num_states : int
        S.
    targets : ndarray (B, T) of int64
        Target states of each column (a column may have several target states).
    stop_rows : int, optional
        Stop as soon as the states ``0 .. stop_rows-1`` are all reached (the others keep
        ``sentinel`` where they are not reached by then).

    Returns
    -------
    ranks : ndarray (S, B) or None
        Lowest-rank move toward each column; ``sentinel`` at targets and unreached states.
    levels : ndarray (S, B) of int32 or None
        Distance (``-1`` unreached).
    reached : ndarray (S, B) of bool
    ecc : ndarray (B,) of int64
        Largest distance of any state for each column.
    """
    s_count, r_count = cand.shape
    b = targets.shape[0]
    w = (b + 63) // 64
    col = np.arange(b)
    bitmask = (np.uint64(1) << (col % 64).astype(np.uint64))
    word = col // 64
    f = np.zeros((s_count + 1, w), dtype=np.uint64)  # last row = padding (always 0)
    for t in range(targets.shape[1]):
        np.bitwise_or.at(f, (targets[:, t], word), bitmask)
    f[s_count] = 0
    start = f[:s_count].copy()
    notvis = ~start
    nbits = max(1, int(r_count - 1).bit_length())
    planes = [np.zeros((s_count, w), dtype=np.uint64) for _ in range(nbits)] if want_ranks else None
    levels = np.full((s_count, b), -1, dtype=np.int32) if want_levels else None
    if want_levels:
        levels[_bits_to_bytes(start, b).view(bool)] = 0
    ecc = np.zeros(b, dtype=np.int64)
    level = 0
    g = np.empty((s_count, w), dtype=np.uint64)
    while True:
        level += 1
        new = np.zeros((s_count, w), dtype=np.uint64)
        for r in range(r_count):
            np.take(f, cand[:, r], axis=0, out=g)
            np.bitwise_and(g, notvis, out=g)
            if not g.any():
                continue
            notvis ^= g
            new |= g
            if want_ranks:
                for k in range(nbits):
                    if (r >> k) & 1:
                        planes[k] |= g
        if not new.any():
            break
        anycol = np.bitwise_or.reduce(new, axis=0)
        hit = _bits_to_bytes(anycol[None, :], b)[0].view(bool)
        ecc[hit] = level
        if want_levels:
            levels[_bits_to_bytes(new, b).view(bool)] = level
        f[:s_count] = new
        if stop_rows is not None and not notvis[:stop_rows].any():
            break
    reached = ~_bits_to_bytes(notvis, b).view(bool)
    ranks = None
    if want_ranks:
        if rank_dtype == np.uint8 and sentinel == 255:
            ranks = np.zeros((s_count, b), dtype=np.uint8)
            for k in range(nbits):
                bits = _bits_to_bytes(planes[k], b)
                np.left_shift(bits, k, out=bits)
                ranks |= bits
            bad = _bits_to_bytes(notvis | start, b)
            np.multiply(bad, 255, out=bad)
            ranks |= bad
        else:
            ranks = np.zeros((s_count, b), dtype=rank_dtype)
            for k in range(nbits):
                ranks |= (_bits_to_bytes(planes[k], b).astype(rank_dtype) << rank_dtype(k))
            ranks[_bits_to_bytes(notvis | start, b).view(bool)] = sentinel
    return ranks, levels, reached, ecc


def hop_eccentricities(topology: Topology, block: int = 4096) -> np.ndarray:
    """Hop eccentricity of every switch (bit-parallel BFS, no tables kept)."""
    view = csr_view(topology)
    n = view.n
    out = np.zeros(n, dtype=np.int64)
    for d0 in range(0, n, block):
        ds = np.arange(d0, min(n, d0 + block), dtype=np.int64)
        _, _, _, ecc = bitbfs(view.nbr_pad, n, ds[:, None], want_ranks=False)
        out[ds] = ecc
    return out
