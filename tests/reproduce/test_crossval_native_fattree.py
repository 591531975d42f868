"""crossval --native fattree: BookSim's own k-ary n-tree (fattree.cpp, nca_fattree /
anca_fattree) against topogen's kary-ntree with nca / anca, and (-m booksim) the runs side
by side."""

import shutil

import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.experiments.simulators import CrossvalSpec
from topogen.reproduce.crossval_native import (crossval_native, fattree_channels, isomorphic, native_config,
                                               native_family, native_graph, native_routing, topogen_network)

BOOKSIM = shutil.which("booksim") or shutil.which("/usr/local/bin/booksim")


@pytest.mark.parametrize("k,n", [(2, 2), (2, 3), (3, 3), (4, 2), (4, 3), (2, 4)])
def test_fattree_wiring_is_topogens(k, n):
    fam = native_family("fattree", k, n)
    g = native_graph(fam)
    npos = k ** (n - 1)
    assert g.number_of_nodes() == n * npos and fam.hosts == k ** n
    assert g.number_of_edges() == (n - 1) * k ** n
    assert isomorphic(fam, topogen_network(fam)) == (True, True)
    # another tree of the same router count is not it
    if n >= 3:
        assert isomorphic(fam, registry.generate("kary-ntree", k=k, n=n - 1))[0] is False


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 3)])
def test_fattree_ports_are_what_booksims_routing_assumes(k, n):
    """Down output port j of a router reaches exactly the nodes nca_fattree sends through
    it ((dest - neighbourhood * coverage) / branch coverage == j); up ports are k .. 2k-1
    and inputs from below are 0 .. k-1 (the routing's ``in_channel < gK`` going up)."""
    chans = fattree_channels(k, n)
    npos = k ** (n - 1)
    down = {}
    for (u, out_port), (w, in_port) in chans.values():
        lu, lw = u // npos, w // npos
        assert abs(lu - lw) == 1
        if lw == lu + 1:  # down: ports below k at the source, at or above k at the target
            assert out_port < k <= in_port
            down[u, out_port] = w
        else:
            assert in_port < k <= out_port

    def nodes_below(r):
        level, pos = divmod(r, npos)
        if level == n - 1:
            return set(range(pos * k, pos * k + k))
        return set().union(*(nodes_below(down[r, j]) for j in range(k)))

    for (r, j), child in down.items():
        level, pos = divmod(r, npos)
        hood = pos // k ** (n - level - 1)
        cover, branch = k ** (n - level), k ** (n - level - 1)
        lo = hood * cover + j * branch
        assert nodes_below(child) == set(range(lo, lo + branch))


def test_fattree_native_family_and_config():
    fam = native_family("fattree", 4, 3, routing="anca")
    assert (fam.generator, fam.params, fam.routing, fam.link_latency) == ("kary-ntree", {"k": 4, "n": 3}, "anca", 1)
    assert native_family("fattree", 4, 3).routing == "nca-random"  # fattree_nca's random up port
    spec = CrossvalSpec("kary-ntree", params=fam.params, link_latency=1, loads=(0.2,))
    opts = dict(line.rstrip(";").split(" = ", 1) for line in native_config(fam, spec, 3).splitlines()
                if " = " in line)
    assert (opts["topology"], opts["k"], opts["n"], opts["routing_function"]) == ("fattree", "4", "3", "anca")
    with pytest.raises(ParameterError, match="fattree is compared with routing nca or anca"):
        native_family("fattree", 4, 3, routing="min")
    with pytest.raises(ParameterError, match="levels"):
        native_family("fattree", 4, 1)
    topo = topogen_network(fam)
    assert native_routing(fam, topo).select == "booksim"  # anca_fattree's two-draw rule
    assert native_routing(native_family("fattree", 4, 3), topo).algorithm == "nca-random"


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
def test_fattree_anca_and_nca_agree(tmp_path):
    """4-ary 2-tree (8 routers, 16 nodes), 33-flit packets: with anca the reference
    simulator agrees with BookSim's native fattree at zero load and at 0.3, 2 seeds; with
    nca (a random up port per hop: topogen's nca-random) at zero load."""
    res = crossval_native("fattree", tmp_path / "anca", k=4, n=2, routing="anca", loads=(0.01, 0.3), repeats=2,
                          binary=BOOKSIM, saturation=False, columns=("native", "reference"))
    assert res.structure == {"isomorphic": True, "identity": True}
    by = {(x["load"], x["column"]): x for x in res.lines}
    for load in (0.01, 0.3):
        assert by[(load, "native")]["status"] == "completed"
        assert by[(load, "reference")]["verdict"].startswith("pass"), by[(load, "reference")]
    res = crossval_native("fattree", tmp_path / "nca", k=4, n=2, routing="nca", loads=(0.01,), repeats=2,
                          binary=BOOKSIM, saturation=False)
    by = {x["column"]: x for x in res.lines}
    assert by["reference"]["verdict"] == "pass" and by["export"]["verdict"] == "pass", res.lines
    assert "not nca's random" in " ".join(res.notes)


def test_backends_take_nca_tables_where_they_are_nca():
    """SST runs topogen's nca table as source routes; BookSim's anynet would run its own
    min in its place (a tenth of the fat tree's saturation load), so it is refused, and
    the adaptive anca is refused by both."""
    from topogen.reproduce._backend import check_routing

    check_routing("sst", "nca", "study")
    check_routing("reference", "anca", "study")
    for sim, routing in (("booksim", "nca"), ("booksim", "anca"), ("sst", "anca")):
        with pytest.raises(ParameterError, match=f"not '{routing}' routing; use --simulator reference"):
            check_routing(sim, routing, "study")
