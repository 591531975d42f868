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


def _conn(doc):
    return [{int(e.split(",")[0]): [int(p) for p in e.split(",")[1:]] for e in r["connectivity"].split(";")}
            for r in doc["routers"]]


def test_fast_table_check_accepts_topogen_tables_and_returns_the_longest_route():
    from topogen.routing import route

    t, layout = random_net()
    doc = sx.bundle_dict(t, layout, route(t, layout, "nr"))
    n = t.num_switches
    links = sst_tables.link_codes(_conn(doc), n)
    longest = [sst_tables.single_path_table_check(r["id"], r["routing_entry_string"], n, links)
               for r in doc["routers"]]
    assert None not in longest
    assert max(longest) + 1 == doc["vcs_per_vn"]
    sx.validate_bundle(doc)


@pytest.mark.parametrize("change", [
    lambda e: e.replace("|", "||", 1),                       # an empty entry
    lambda e: "|".join(e.split("|")[1:]),                   # a destination missing
    lambda e: e + "|" + e.split("|")[0],                    # a destination twice
    lambda e: e.replace(":1.00000,", ":0.50000,", 1),       # another weight
    lambda e: e.replace(",", ",x", 1),                      # not a number
    lambda e: e.replace(",", ",-3,", 1),                    # a negative hop
    lambda e: e.split("|")[0] + ",0|" + "|".join(e.split("|")[1:]),  # a route past its destination
    lambda e: "0:1.00000,0|" + e,                           # a route to itself
    lambda e: "99999:1.00000,99999|" + "|".join(e.split("|")[1:]),   # out of range
])
def test_fast_table_check_leaves_anything_else_to_the_named_check(change):
    from topogen.routing import route

    t, layout = random_net()
    doc = sx.bundle_dict(t, layout, route(t, layout, "nr"))
    n = t.num_switches
    links = sst_tables.link_codes(_conn(doc), n)
    entry = doc["routers"][0]["routing_entry_string"]
    assert sst_tables.single_path_table_check(0, change(entry), n, links) is None


def test_fast_table_check_refuses_a_hop_that_is_not_a_link():
    from topogen.routing import route

    t, layout = random_net()
    doc = sx.bundle_dict(t, layout, route(t, layout, "nr"))
    n = t.num_switches
    conn = _conn(doc)
    links = sst_tables.link_codes(conn, n)
    far = next(d for d in range(1, n) if d not in conn[0])
    parts = doc["routers"][0]["routing_entry_string"].split("|")
    parts = [f"{far}:1.00000,{far}" if p.startswith(f"{far}:") else p for p in parts]
    assert sst_tables.single_path_table_check(0, "|".join(parts), n, links) is None
    doc["routers"][0]["routing_entry_string"] = "|".join(parts)
    with pytest.raises(Exception, match=f"goes 0 -> {far}, and router 0 has no port to router {far}"):
        sx.validate_bundle(doc)


def test_fast_table_check_with_sorted_link_codes(monkeypatch):
    """Beyond DENSE_PAIRS router pairs the links are sorted codes: same answers."""
    monkeypatch.setattr(sst_tables, "DENSE_PAIRS", 0)
    test_fast_table_check_accepts_topogen_tables_and_returns_the_longest_route()
    assert sst_tables.link_codes(_conn(sx.bundle_dict(*random_net())), 40).dtype == "int64"
    test_fast_table_check_refuses_a_hop_that_is_not_a_link()
