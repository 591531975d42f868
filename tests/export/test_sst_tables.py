"""The vectorised SST route tables give the bytes of route-by-route formatting."""

from __future__ import annotations

import pytest

from topogen.layout import default_layout
from topogen.export import sst as sx
from topogen.export import sst_tables


class PathOnly:
    """Hides a routing behind ``path(src, dst)``: router_tables walks it route by route."""

    def __init__(self, routing):
        self._routing = routing

    def path(self, src, dst):
        return self._routing.path(src, dst)


def random_net(n=40, degree=4, seed=3):
    from topogen.generators.random import random_topology

    t = random_topology(n, degree, seed=seed)
    return t, default_layout(t)


@pytest.fixture(params=[1, 7, 1 << 18], ids=["chunk1", "chunk7", "default"])
def chunk(request, monkeypatch):
    monkeypatch.setattr(sst_tables, "CHUNK_ROUTES", request.param)
    return request.param


@pytest.mark.parametrize("algorithm", ["booksim-min", "nr", "fr", "updown", "hop", "escape"])
def test_vectorised_tables_equal_route_by_route(algorithm, chunk):
    from topogen.routing import route

    t, layout = random_net()
    r = route(t, layout, algorithm)
    fast, fast_hops = sst_tables.router_tables(r, t)
    slow, slow_hops = sst_tables.router_tables(PathOnly(r), t)
    assert fast == slow
    assert fast_hops == slow_hops
    n = t.num_switches
    assert len(fast) == n
    # every router lists every other router once, in increasing order
    for s, table in enumerate(fast):
        dsts = [int(part.split(":", 1)[0]) for part in table.split("|")]
        assert dsts == [d for d in range(n) if d != s]


def test_ugal_tables_are_its_min_routes(chunk):
    from topogen.routing import route

    t, layout = random_net(24, 3, seed=5)
    ugal = route(t, layout, "ugal-l")
    fast, _ = sst_tables.router_tables(ugal, t)
    assert fast == sst_tables.router_tables(PathOnly(ugal.base), t)[0]


def test_longest_route_sets_vcs_per_vn():
    from topogen.generators.classic import torus
    from topogen.routing import route

    t = torus((9,))
    layout = default_layout(t)
    tables, hops = sst_tables.router_tables(route(t, layout, "nr"), t)
    assert hops == 4  # a 9-ring's diameter
    assert sx.bundle_dict(t, layout, route(t, layout, "nr"))["vcs_per_vn"] == 5
    assert tables[0].startswith("1:1.00000,1|2:1.00000,1,2|")
