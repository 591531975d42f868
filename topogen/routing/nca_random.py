"""BookSim2's ``nca`` on its fat tree (``fattree_nca`` in ``src/routefunc.cpp``):
:func:`nca_random`, on topogen's ``kary-ntree`` (the same network and numbering).

A packet climbs until it reaches an ancestor of its destination leaf and then takes the
one path down (:mod:`topogen.routing.anca`).  At every up hop ``fattree_nca`` draws the up
port uniformly (``gK + RandomInt(gK - 1)``: each of the ``k`` up ports), per packet and
per hop; every VC of the port.  topogen's :func:`~topogen.routing.anca.nca` is a table
that fixes the up port per (switch, destination) instead, and its
:func:`~topogen.routing.anca.anca` chooses from the credits; this routing draws as
BookSim does, in :meth:`RandomNca.path` (the simulator passes its own generator).

One VC: the routes are up*/down* with respect to the tree levels, so the channel
dependency graph of all of them together is acyclic (:meth:`RandomNca.dependency_chunks`
gives every route any draw can take between leaves, as ANCA's check does).
"""

from __future__ import annotations

import numpy as np

from .._rng import make_rng, resolve_seed
from ..errors import ParameterError
from .base import Routing, _check_switch

__all__ = ["RandomNca", "nca_random"]


class RandomNca(Routing):
    """``nca-random`` (module docs).  ``path(src, dst, rng)`` draws the up ports with
    ``rng`` (a :class:`numpy.random.Generator`), or with the routing's own generator
    (seeded from ``seed``) when ``rng`` is None."""

    deterministic = False

    def __init__(self, topology, seed=None):
        from .anca import AncaRouting, nca

        # the up / down choices and the dependency closure are ANCA's (every up choice)
        self._choices = AncaRouting(nca(topology))
        seed = resolve_seed(seed)
        sh = self._choices.shape
        super().__init__(topology, algorithm="nca-random",
                         params={"seed": seed, "k": sh.k, "n": sh.n, "as": "BookSim fattree_nca",
                                 "up": "uniform up port per packet and hop", "vc_rule": "const"},
                         num_vcs=1)
        self.k, self.n = sh.k, sh.n
        self.seed = seed
        self._rng = make_rng(seed)
        self._indices = self.view.indices

    def path(self, src: int, dst: int, rng=None):
        n = self.num_switches
        src = _check_switch("src", src, n)
        dst = _check_switch("dst", dst, n)
        rng = self._rng if rng is None else rng
        sw, v = [src], src
        while v != dst:
            up, ents = self._choices.options(v, dst)
            e = int(ents[int(rng.integers(len(ents)))]) if up else int(ents[0])
            v = int(self._indices[e])
            sw.append(v)
        return np.asarray(sw, dtype=np.int32), np.zeros(len(sw) - 1, dtype=np.int16)

    def dependency_chunks(self, pairs=None):
        """Every route any draw can take between leaves (ANCA's closure)."""
        return self._choices.dependency_chunks(pairs)

    def describe_check(self) -> str:
        return "every route between leaves with every up choice (the routes any draw can take)"

    def metadata(self) -> dict:
        md = super().metadata()
        md["kind"] = "nca-random"
        return md


def nca_random(topology, *, seed=None, num_vcs: int | None = None) -> RandomNca:
    """BookSim2's ``fattree_nca`` on topogen's ``kary-ntree``: a uniform up port per packet
    and hop, the one path down, 1 VC (module docs).

    Raises
    ------
    ParameterError
        Not a k-ary n-tree as ``kary-ntree`` numbers it, or ``num_vcs`` other than 1.
    """
    if num_vcs not in (None, 1):
        raise ParameterError(f"nca-random routes a fat tree's up*/down* paths on 1 VC (deadlock-free without "
                             f"more), got vcs={num_vcs}")
    return RandomNca(topology, seed=seed)
