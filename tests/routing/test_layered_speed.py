"""The compiled, incremental ``layered`` cycle breaking: the same layers and rounds as the
reference loop, and an acyclic result checked without topogen's CDG code."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from topogen.generators.classic import torus
from topogen.generators.slimfly import slimfly
from topogen.routing import layered, nearest, route
from topogen.routing import _layered
from topogen.routing import vc as vc_module

from .conftest import rrg

pytestmark = pytest.mark.skipif(not _layered.AVAILABLE, reason="needs numba")


def _both(make_base):
    base = make_base()
    vc_module._force_reference = True
    try:
        ref = layered(base)
    finally:
        vc_module._force_reference = False
    fast = layered(base)
    return ref, fast


@pytest.mark.parametrize("make_base", [
    lambda: route(slimfly(3), algorithm="nr"),
    lambda: route(slimfly(4), algorithm="nr"),
    lambda: route(slimfly(5), algorithm="nr"),
    lambda: nearest(rrg(40, 4, 2)),   # routes of up to 4+ hops: moves drop other deps
    lambda: nearest(torus((5, 5))),           # several cyclic SCCs per round
    lambda: nearest(torus((3, 4, 3))),
], ids=["sf3", "sf4", "sf5", "rrg40", "torus5x5", "torus3x4x3"])
def test_compiled_layers_equal_the_reference(make_base):
    ref, fast = _both(make_base)
    assert fast.num_vcs == ref.num_vcs
    assert fast.params["cycle_breaking_rounds"] == ref.params["cycle_breaking_rounds"]
    assert fast.params["cycle_breaking_rounds"] > 0
    assert np.array_equal(fast.layer, ref.layer)


def _acyclic_by_kahn(routing) -> bool:
    """Every route's consecutive (link, layer) channels as a graph, topologically sorted
    with Kahn's algorithm (plain Python, no topogen CDG code)."""
    n = routing.num_switches
    succ: dict[tuple, set] = {}
    indeg: dict[tuple, int] = {}
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            sw, vcs = routing.path(s, d)
            chans = [(int(sw[i]), int(sw[i + 1]), int(vcs[i])) for i in range(len(sw) - 1)]
            for a, b in zip(chans, chans[1:]):
                if b not in succ.setdefault(a, set()):
                    succ[a].add(b)
                    indeg[b] = indeg.get(b, 0) + 1
                indeg.setdefault(a, 0)
    queue = deque(c for c, k in indeg.items() if k == 0)
    seen = 0
    while queue:
        c = queue.popleft()
        seen += 1
        for b in succ.get(c, ()):
            indeg[b] -= 1
            if indeg[b] == 0:
                queue.append(b)
    return seen == len(indeg)


@pytest.mark.parametrize("q", [3, 5])
def test_result_is_acyclic_and_needs_the_layers_it_uses(q):
    r = route(slimfly(q), algorithm="layered", base="nr")
    assert r.num_vcs == 2
    assert _acyclic_by_kahn(r)
    # one layer is not enough: all routes in layer 0 form a cyclic CDG
    flat = r.with_vcs(algorithm="layered", vc_rule="layer", num_vcs=1,
                      layer=np.zeros_like(r.layer))
    assert not _acyclic_by_kahn(flat)


def test_route_path_matches_route_matrix():
    # the test's own walk (routing.path) sees the routes the CDG is built from
    r = route(slimfly(3), algorithm="nr")
    ent, _ = r.route_matrix(np.array([0, 1]), np.array([5, 17]), with_vcs=False)
    view = r.view
    for m, (s, d) in enumerate([(0, 5), (1, 17)]):
        hops = [int(e) for e in ent[:, m] if e >= 0]
        walk = [s] + [int(view.indices[e]) for e in hops]
        assert walk == [int(x) for x in r.path(s, d)[0]]
