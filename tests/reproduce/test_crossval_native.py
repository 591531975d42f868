"""crossval --native: BookSim's own k-ary n-cubes (kncube.cpp) against topogen's
generators, the native configuration, and (-m booksim) the three runs side by side."""

import math
import shutil

import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.experiments.simulators import CrossvalSpec
from topogen.reproduce.crossval_native import (crossval_native, isomorphic, native_config, native_family,
                                               native_graph, verdict)

BOOKSIM = shutil.which("booksim") or (shutil.which("/usr/local/bin/booksim"))


def _topogen(fam):
    return registry.generate(fam.generator, dims=tuple(fam.params["dims"]), hosts_per_switch=1)


@pytest.mark.parametrize("family", ["mesh", "torus"])
@pytest.mark.parametrize("k,n", [(4, 2), (8, 2), (3, 3), (5, 1)])
def test_native_wiring_is_topogens(family, k, n):
    fam = native_family(family, k, n)
    g = native_graph(fam)
    # kncube: 2n channels per router on a torus (fewer where k <= 2 merges them)
    links = n * k ** (n - 1) * (k - 1 if family == "mesh" else k)
    assert g.number_of_edges() == links
    iso, ident = isomorphic(fam, _topogen(fam))
    assert iso and ident


def test_isomorphism_sees_hosts_and_wrap_links():
    fam = native_family("torus", 4, 2)
    iso, ident = isomorphic(fam, registry.generate("torus", dims=(4, 4), hosts_per_switch=2))
    assert not iso and not ident
    # a mesh is not a torus: BookSim's mesh routing never takes the wrap channels
    assert not isomorphic(native_family("mesh", 4, 2), registry.generate("torus", dims=(4, 4)))[0]
    # a 4x4 torus is isomorphic to the 2x2x2x2 hypercube... not to BookSim's 16-ring
    iso, ident = isomorphic(native_family("torus", 16, 1), registry.generate("torus", dims=(4, 4)))
    assert not iso and not ident


def test_native_family_settings_from_kncube():
    m, t = native_family("mesh", 8, 2), native_family("torus", 8, 2)
    assert (m.link_latency, t.link_latency) == (1, 2)  # use_noc_latency: _mesh ? 1 : 2
    assert (m.routing, t.routing) == ("dor", "dor-random")
    with pytest.raises(ParameterError, match="native family must be one of mesh, torus"):
        native_family("qtree")
    with pytest.raises(ParameterError):
        native_family("torus", 1, 2)


def test_native_config_text():
    fam = native_family("torus", 4, 2)
    spec = CrossvalSpec("torus", params=fam.params, link_latency=2, loads=(0.2,))
    text = native_config(fam, spec, seed=7)
    opts = dict(line.rstrip(";").split(" = ", 1) for line in text.splitlines() if " = " in line)
    assert opts["topology"] == "torus" and opts["k"] == "4" and opts["n"] == "2"
    assert opts["routing_function"] == "dim_order" and opts["use_noc_latency"] == "1"
    assert opts["num_vcs"] == "4" and opts["packet_size"] == "33" and opts["vc_buf_size"] == "66"
    assert opts["router"] == "iq" and opts["sw_allocator"] == "separable_input_first"
    assert opts["seed"] == "7" and "network_file" not in opts
    assert all(line.endswith(";") for line in text.splitlines() if not line.startswith("//"))


def test_verdicts():
    base = {"status": "completed", "latency_cycles": 100.0, "latency_sem": 1.0}
    ok = {"status": "completed", "latency_cycles": 104.0, "latency_sem": 1.0}
    far = {"status": "completed", "latency_cycles": 110.0, "latency_sem": 0.5}
    noisy = {"status": "completed", "latency_cycles": 108.0, "latency_sem": 2.0}
    assert verdict(ok, base, 0.05)[1] == "pass"
    assert verdict(far, base, 0.05)[1] == "FAIL"
    assert verdict(noisy, base, 0.05)[1] == "pass (noise)"
    assert verdict(ok, dict(base, status="saturated"), 0.05)[1] == "n/a"
    r, v = verdict(dict(ok, status="saturated"), base, 0.05)
    assert math.isnan(r) and v == "FAIL"


@pytest.mark.booksim
@pytest.mark.skipif(BOOKSIM is None, reason="BookSim not installed")
@pytest.mark.parametrize("family", ["mesh", "torus"])
def test_native_agrees_with_reference_and_export(family, tmp_path):
    """4x4, the zero-load point and 2 loads below saturation (the native saturation is
    about 0.84 on the mesh), 3 seeds each."""
    res = crossval_native(family, tmp_path / "out", k=4, n=2, loads=(0.01, 0.2, 0.35), repeats=3,
                          binary=BOOKSIM, saturation=False)
    assert res.structure == {"isomorphic": True, "identity": True}
    by = {(x["load"], x["column"]): x for x in res.lines}
    for load in (0.01, 0.2, 0.35):
        assert by[(load, "native")]["status"] == "completed"
        assert by[(load, "reference")]["verdict"].startswith("pass"), by[(load, "reference")]
    # anynet min routes another way, but the router is the same: at zero load it agrees
    assert by[(0.01, "export")]["verdict"].startswith("pass")


def test_saturation_bisection_and_verdict():
    from topogen.experiments.simulators import Adapter
    from topogen.reproduce.crossval_native import _Column, default_loads, saturation_verdict

    def fake(onset):
        def run(load, seed=1, capacity=False):
            # seed 2 saturates a little early: the majority of 3 runs decides
            ok = load < onset - (0.03 if seed == 2 else 0)
            return {"status": "completed" if ok else "saturated", "latency_avg": 50.0 if ok else math.nan}
        return Adapter("x", run, "r")

    col = _Column(fake(0.61), seed=1, repeats=3)
    lo, hi = col.saturation()
    assert lo < 0.61 <= hi and hi - lo <= 0.02 * lo
    assert all(len(rows) == 3 for rows in col.runs.values())
    # started from another column's bracket, a lower onset is found below it
    other = _Column(fake(0.5), seed=1, repeats=3)
    lo2, hi2 = other.saturation(probes=(lo, hi))
    assert lo2 < 0.5 <= hi2 and hi2 - lo2 <= 0.02 * lo2
    r, v = saturation_verdict((lo2, hi2), (lo, hi))
    assert abs(r - 0.5 / 0.61) < 0.02 and v == "FAIL"
    assert saturation_verdict((0.6, 0.61), (lo, hi))[1] == "pass"
    assert saturation_verdict((0.6, math.inf), (lo, hi))[1] == "undetermined"
    # latency loads: zero load, half and 80 % of the native saturation, never above it
    loads = default_loads(0.8359)
    assert loads == (0.01, 0.417, 0.668) and loads[2] <= 0.8 * 0.8359


@pytest.mark.parametrize("p", [1, 2, 3])
def test_dragonflynew_wiring_is_topogens_absolute_arrangement(p):
    from topogen.reproduce.crossval_native import dragonflynew_channels, topogen_network

    fam = native_family("dragonfly", p, 1)
    a, g = 2 * p, 2 * p * p + 1
    g_native = native_graph(fam)
    # a groups of 2p routers, all-to-all inside, one global link per pair of groups
    assert g_native.number_of_nodes() == a * g and fam.hosts == p * a * g
    assert g_native.number_of_edges() == g * a * (a - 1) // 2 + g * (g - 1) // 2
    # every channel of every router is used once: 2p - 1 local and p global inputs
    assert all(len(ins) == 3 * p - 1 for ins in dragonflynew_channels(p))
    topo = topogen_network(fam)
    assert isomorphic(fam, topo) == (True, True)
    if p >= 2:  # another arrangement is the same graph up to isomorphism, not the same numbering
        other = registry.generate("dragonfly", a=a, p=p, h=p, arrangement="consecutive")
        assert isomorphic(fam, other)[1] is False


def test_dragonfly_min_is_booksims_min():
    from topogen.reproduce.crossval_native import dragonfly_min, topogen_network
    from topogen.routing import check

    topo = topogen_network(native_family("dragonfly", 2, 1))
    r = dragonfly_min(topo)
    a = 4
    for s, d in [(0, 30), (1, 30), (1, 21), (0, 3), (8, 0)]:
        sw, vcs = r.path(s, d)
        groups = [int(x) // a for x in sw]
        # local, global, local at most: the group changes once, VC 1 from the global hop on
        assert sum(x != y for x, y in zip(groups, groups[1:])) == (s // a != d // a)
        assert list(vcs) == [int(groups[i + 1] != groups[i] or (i and vcs[i - 1] == 1)) for i in range(len(vcs))]
    assert check(r).acyclic
    # the second VC is what keeps it deadlock-free
    assert not check(dragonfly_min(topo, 1)).acyclic
