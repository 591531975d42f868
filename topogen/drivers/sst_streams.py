"""The destinations SST merlin's uniform traffic draws, packet by packet.

``merlin.offered_load`` with ``pattern = merlin.targetgen.uniform`` (what topogen's SST
runs use for ``uniform``) takes no seed.  Each endpoint ``e`` draws from its own
``SST::RNG::MersenneRNG(e)`` (``target_generator/uniform.h``, the constructor
``UniformDist(..., id, num_peers)``), so a run's destinations are one fixed sequence per
endpoint:

* the generator is MT19937 seeded the classic way (``init_genrand``: ``mt[0] = seed``,
  ``mt[i] = 1812433253 * (mt[i-1] ^ (mt[i-1] >> 30)) + i``; ``sst-core``
  ``rng/mersenne.cc``, ``seed``), tempered as usual (``generateNextUInt32``);
* ``nextUniform`` divides a 32-bit output by ``4294967295`` and draws again when the
  quotient is ``>= 1``;
* ``SSTUniformDistribution(num_peers)``'s ``getNextDouble`` returns ``c - 1`` for the
  smallest ``c >= 1`` with ``u <= c * (1 / num_peers)`` (``rng/uniform.h``);
* ``OfferedLoad::progress_messages`` draws again while the destination is the endpoint
  itself, one destination per packet created.

:class:`MerlinUniformStreams` reproduces these sequences, so the reference simulator can
run the very traffic of an SST run (``traffic="merlin-uniform"``,
:mod:`topogen.sim.traffic`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["mersenne_outputs", "merlin_uniform_destinations", "MerlinUniformStreams"]

_U32_MAX = 4294967295.0


def _generator(seed: int) -> np.random.MT19937:
    """numpy's MT19937 in the state ``init_genrand(seed)`` leaves (set through the public
    state of a legacy ``RandomState``, which seeds that way)."""
    key, pos = np.random.RandomState(int(seed) & 0xFFFFFFFF).get_state()[1:3]
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
    return bg


def mersenne_outputs(seed: int, count: int) -> np.ndarray:
    """The first ``count`` 32-bit outputs of ``SST::RNG::MersenneRNG(seed)``."""
    return _generator(seed).random_raw(int(count)).astype(np.uint64)


def _bins(raw: np.ndarray, num_peers: int) -> np.ndarray:
    """``getNextDouble`` of each accepted draw: ``c - 1`` for the smallest ``c >= 1`` with
    ``u <= c * (1 / num_peers)``, computed in the same doubles as SST."""
    u = raw[raw != 0xFFFFFFFF].astype(np.float64) / _U32_MAX
    per_bin = 1.0 / float(num_peers)
    c = np.maximum(np.ceil(u * num_peers), 1.0)
    while True:  # the comparison SST makes, where u * n and u / per_bin round apart
        up = u > c * per_bin
        down = (c > 1) & (u <= (c - 1) * per_bin)
        if not (up.any() or down.any()):
            break
        c = c + up - down
    return (c - 1).astype(np.int64)


def merlin_uniform_destinations(endpoint: int, num_peers: int, count: int) -> np.ndarray:
    """The first ``count`` destinations ``merlin.offered_load`` at ``endpoint`` sends to
    with merlin's uniform traffic over ``num_peers`` endpoints (never itself)."""
    return MerlinUniformStreams(num_peers).take(int(endpoint), int(count))


class MerlinUniformStreams:
    """The destination sequence of every endpoint of ``num_peers`` (see the module notes),
    drawn on demand: :meth:`draw` continues each endpoint's sequence."""

    def __init__(self, num_peers: int):
        self.num_peers = int(num_peers)
        if self.num_peers < 2:
            raise ValueError(f"merlin's uniform traffic needs 2 endpoints or more, got {num_peers}")
        self._gen: dict[int, np.random.MT19937] = {}
        self._buf: dict[int, np.ndarray] = {}
        self._pos: dict[int, int] = {}

    def take(self, endpoint: int, count: int) -> np.ndarray:
        """The next ``count`` destinations of ``endpoint``."""
        e = int(endpoint)
        if not 0 <= e < self.num_peers:
            raise ValueError(f"endpoint {e} is not one of 0..{self.num_peers - 1}")
        gen = self._gen.get(e)
        if gen is None:
            gen = self._gen[e] = _generator(e)
            self._buf[e], self._pos[e] = np.empty(0, np.int64), 0
        buf, pos = self._buf[e], self._pos[e]
        while len(buf) - pos < count:
            d = _bins(gen.random_raw(max(256, 2 * count)).astype(np.uint64), self.num_peers)
            buf = np.concatenate([buf[pos:], d[d != e]])
            pos = 0
        self._buf[e], self._pos[e] = buf, pos + count
        return buf[pos:pos + count].copy()

    def draw(self, src) -> np.ndarray:
        """The next destination of each source in ``src``, in order (a source listed twice
        takes its next two)."""
        src = np.asarray(src, dtype=np.int64)
        out = np.empty(len(src), dtype=np.int64)
        if not len(src):
            return out
        order = np.argsort(src, kind="stable")
        s_sorted = src[order]
        cuts = np.flatnonzero(np.diff(s_sorted)) + 1
        for idx in np.split(np.arange(len(src)), cuts):
            e = int(s_sorted[idx[0]])
            out[order[idx]] = self.take(e, len(idx))
        return out
