"""Seed handling: every random choice in topogen flows from one integer seed."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ParameterError

SEED_MAX = 2**63 - 1


def resolve_seed(seed) -> int:
    """Return an integer seed; draw (and so make recordable) one from OS entropy if None.

    Raises
    ------
    ParameterError
        If ``seed`` is not an integer in [0, 2**63 - 1].
    """
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] & SEED_MAX)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        if isinstance(seed, str) and seed.strip().lstrip("-").isdigit():
            seed = int(seed)
        else:
            raise ParameterError(
                f"seed must be an integer in [0, 2**63-1], got {seed!r}; pass e.g. --seed 1"
            )
    seed = int(seed)
    if not 0 <= seed <= SEED_MAX:
        raise ParameterError(f"seed must be an integer in [0, 2**63-1], got {seed}")
    return seed


def make_rng(seed) -> np.random.Generator:
    """A :class:`numpy.random.Generator` for ``seed`` (an int, or a Generator passed through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(resolve_seed(seed))


def child_seeds(seed: int, count: int) -> list[int]:
    """``count`` independent integer seeds derived deterministically from ``seed``."""
    ss = np.random.SeedSequence(resolve_seed(seed))
    return [int(s.generate_state(1, dtype=np.uint64)[0] & SEED_MAX) for s in ss.spawn(count)]


def iter_child_seeds(seed: int, count: int):
    """The seeds of :func:`child_seeds` one at a time (for loops that usually stop early:
    ``count`` may be huge without costing memory or time up front)."""
    ss = np.random.SeedSequence(resolve_seed(seed))
    for _ in range(count):
        yield int(ss.spawn(1)[0].generate_state(1, dtype=np.uint64)[0] & SEED_MAX)
