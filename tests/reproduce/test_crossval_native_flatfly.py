"""crossval --native flatfly: BookSim's on-chip flattened butterfly (flatfly_onchip.cpp,
ran_min) against topogen's flattened-butterfly with dor: wiring, per-link latencies,
routes, and (-m booksim) the runs side by side."""

import shutil

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.reproduce.crossval_native import (crossval_native, flatfly_channels, isomorphic, link_cycles,
                                               native_family, native_graph, native_routing, topogen_network)

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")


@pytest.mark.parametrize("k,c", [(2, 1), (3, 1), (4, 1), (4, 4), (3, 9), (5, 4)])
def test_flatfly_wiring_is_topogens(k, c):
    fam = native_family("flatfly", k, 2, c=c)
    g = native_graph(fam)
    # every router has k - 1 neighbours in its row and k - 1 in its column
    assert g.number_of_nodes() == k * k and all(d == 2 * (k - 1) for _, d in g.degree())
    chans = flatfly_channels(k)
    assert sorted(chans) == list(range(k * k * 2 * (k - 1)))  # _channels, each used once
    assert isomorphic(fam, topogen_network(fam)) == (True, True)
    assert fam.hosts == c * k * k


def _flatfly_outport(dest_router, rid, k):
    """flatfly_outport (flatfly_onchip.cpp) for n = 2 without the node ports: the
    network output index of router rid toward router dest_router."""
    for d in range(2):
        did, sid = dest_router % k, rid % k
        if did != sid:
            return (k - 1) * d - 1 + (did if did > sid else did + 1)
        dest_router //= k
        rid //= k
    raise AssertionError("same router")


@pytest.mark.parametrize("k", [3, 4, 5])
def test_routes_are_min_flatflys(k):
    """Every hop of topogen's dor is the hop BookSim's min_flatfly takes: the output
    index flatfly_outport gives, read through the channel table."""
    fam = native_family("flatfly", k, 2)
    r = native_routing(fam, topogen_network(fam))
    to = {(u, j): w for u, j, w in flatfly_channels(k).values()}
    for s in range(k * k):
        for d in range(k * k):
            if s == d:
                continue
            sw, _ = r.path(s, d)
            v, hops = s, [s]
            while v != d:
                v = to[v, _flatfly_outport(d, v, k)]
                hops.append(v)
            assert list(sw) == hops


def test_flatfly_link_latencies_and_errors():
    fam = native_family("flatfly", 4, 2, c=4)
    t = topogen_network(fam)
    lat = link_cycles(fam, t)
    u, w = t.edges[:, 0], t.edges[:, 1]
    # use_noc_latency: xr (= 2) cycles per router spanned along the row or column
    span = np.abs(u % 4 - w % 4) + np.abs(u // 4 - w // 4)
    assert (lat == 2 * span).all() and set(lat.tolist()) == {2, 4, 6}
    assert fam.booksim["routing_function"] == "ran_min"  # BookSim appends _flatfly
    with pytest.raises(ParameterError, match="n must be 2"):
        native_family("flatfly", 4, 3)
    with pytest.raises(ParameterError, match="xr \\* xr"):
        native_family("flatfly", 4, 2, c=2)
    with pytest.raises(ParameterError, match="flatfly parameter"):
        native_family("torus", 4, 2, c=4)


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_flatfly_agrees(tmp_path):
    """4 x 4 routers, 4 nodes each (xr = yr = 2, channels of 2 to 6 cycles): the
    reference simulator's dor against BookSim's native ran_min at zero load and at 0.3,
    2 seeds."""
    res = crossval_native("flatfly", tmp_path / "out", k=4, n=2, c=4, loads=(0.01, 0.3), repeats=2,
                          binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.structure == {"isomorphic": True, "identity": True}
    by = {(x["load"], x["column"]): x for x in res.lines}
    for load in (0.01, 0.3):
        assert by[(load, "native")]["status"] == "completed"
        assert by[(load, "reference")]["verdict"].startswith("pass"), by[(load, "reference")]
