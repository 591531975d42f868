"""BookSim2's fattree nca (fattree_nca) as topogen's nca-random: the routes any draw can
take against an independent walk of routefunc.cpp's rule through BookSim's fat-tree
channels, uniform up draws, the deadlock check, and the reference simulator."""

import itertools

import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import fattree_channels
from topogen.routing import check, route


def _tree(k, n):
    return registry.generate("kary-ntree", k=k, n=n)


def _bs_paths(src_leaf, dst_leaf, k, n):
    """Every router path fattree_nca can give from leaf position src_leaf to a node of
    leaf position dst_leaf (routers numbered level * k^(n-1) + pos, level 0 the roots)."""
    rpl = k ** (n - 1)
    out_to = {a: b[0] for a, b in fattree_channels(k, n).values()}
    dest = dst_leaf * k  # a node on the destination leaf
    paths = set()

    def walk(r, hops):
        pos, depth = r % rpl, r // rpl
        hood, cover = pos // k ** (n - depth - 1), k ** (n - depth)
        if hood * cover <= dest < (hood + 1) * cover:
            if depth == n - 1:
                paths.add(tuple(hops))
                return
            port = (dest - hood * cover) // k ** (n - depth - 1)
            walk(out_to[r, port], hops + [out_to[r, port]])
        else:
            for j in range(k):  # gK + RandomInt(gK - 1): any up port
                walk(out_to[r, k + j], hops + [out_to[r, k + j]])

    start = (n - 1) * rpl + src_leaf
    walk(start, [start])
    return paths


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 2)])
def test_every_route_is_one_fattree_nca_can_take(k, n):
    r = route(_tree(k, n), None, "nca-random", seed=1)
    rng = np.random.default_rng(2)
    leaf0 = (n - 1) * k ** (n - 1)
    for s, d in itertools.product(range(k ** (n - 1)), repeat=2):
        if s == d:
            continue
        want = _bs_paths(s, d, k, n)
        got = {tuple(r.path(leaf0 + s, leaf0 + d, rng)[0].tolist()) for _ in range(40 * len(want))}
        assert got == want, (s, d)


def test_up_ports_are_drawn_uniformly():
    r = route(_tree(4, 3), None, "nca-random", seed=3)
    rng = np.random.default_rng(5)
    leaf0 = 2 * 16
    roots = [int(r.path(leaf0, leaf0 + 15, rng)[0][2]) for _ in range(3200)]
    counts = np.bincount(roots, minlength=16)[:16]
    assert (counts > 0).all() and counts.min() > 3200 / 16 * 0.7  # every root, evenly
    sw, vcs = r.path(leaf0, leaf0 + 15, rng)
    assert len(sw) == 5 and not vcs.any() and r.num_vcs == 1 and r.deterministic is False


def test_cdg_acyclic_and_refusals():
    r = route(_tree(3, 3), None, "nca-random", seed=1)
    assert check(r).acyclic
    with pytest.raises(ParameterError, match="1 VC"):
        route(_tree(3, 3), None, "nca-random", vcs=2)
    with pytest.raises(ParameterError):
        route(registry.generate("torus", dims=(4, 4)), None, "nca-random")


def test_the_reference_simulator_runs_it():
    from topogen.sim import SimConfig, simulate

    r = route(_tree(2, 3), None, "nca-random", seed=1)
    res = simulate(r, load=0.1, load_unit="flits", seed=1, config=SimConfig(num_vcs=4, packet_size=4))
    assert res["status"] == "completed", res
