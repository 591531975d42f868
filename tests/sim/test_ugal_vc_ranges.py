"""VC ranges for Valiant and UGAL (``vc_ranges``): hop ``h`` of an ``n``-hop path on the
block ``floor(h C / n) .. floor((h + 1) C / n) - 1`` of the ``C`` VC classes.  The blocks
rise strictly (the channel dependency graph stays acyclic), a minimal packet gets as many
VCs per hop as ``hop`` routing gives it, both engines give the same rows, and the option
is off by default everywhere (routing parameters, saved folders, experiment point ids)."""

import importlib
import itertools

import numpy as np
import pytest

from topogen._sssp import AVAILABLE
from topogen.errors import ParameterError, RoutingError
from topogen.generators.slimfly import slimfly
from topogen.routing import check, load_routing, nearest, route, save_routing, ugal, valiant
from topogen.routing.valiant import vc_ranges
from topogen.sim import SimConfig, simulate
from topogen.sim.model import Network

from ._rows import same_rows, simulate_with_engine

FAST = dict(sample_period=100, warmup_periods=1, max_samples=4, min_period_packets=0)
SF = slimfly(3)
BASE = nearest(SF)


# ---------------------------------------------------------------- the blocks
@pytest.mark.parametrize("classes", [1, 2, 3, 4, 5, 6, 8])
def test_blocks_cut_the_classes_in_order(classes):
    """For every path length up to ``C``: the blocks are consecutive, non-empty, cover
    every class once and differ in size by at most one (checked on the sets of classes,
    not on the formula)."""
    for n in range(1, classes + 1):
        first, count = vc_ranges(n, classes)
        blocks = [set(range(f, f + c)) for f, c in zip(first, count)]
        assert all(blocks)
        assert sorted(itertools.chain.from_iterable(blocks)) == list(range(classes))
        for a, b in zip(blocks, blocks[1:]):
            assert max(a) < min(b)  # strictly rising along the path
        sizes = [len(b) for b in blocks]
        assert max(sizes) - min(sizes) <= 1


def test_minimal_slimfly_path_gets_two_classes_per_hop():
    """On 4 classes (UGAL on a Slim Fly) a 2-hop path takes classes {0, 1} then {2, 3}:
    two per hop, as ``hop`` routing's 2 classes on 4 VCs give; a 4-hop Valiant path one."""
    assert vc_ranges(2, 4) == ((0, 2), (2, 2))
    assert vc_ranges(4, 4) == ((0, 1, 2, 3), (1, 1, 1, 1))
    assert vc_ranges(1, 4) == ((0,), (4,))
    with pytest.raises(RoutingError, match="raise num_vcs"):
        vc_ranges(5, 4)


# ---------------------------------------------------------------- deadlock freedom
@pytest.mark.parametrize("alg", ["valiant", "ugal-l", "ugal-g"])
def test_cdg_with_ranges_is_acyclic(alg):
    r = route(SF, None, alg, seed=1, vc_ranges=True)
    rep = check(r)
    assert rep.acyclic, rep


def _union(routing):
    deps = set()
    for _, a, b in routing.dependency_chunks():
        deps.update(zip(a.tolist(), b.tolist()))
    return deps


def test_cdg_superset_holds_every_candidate_dependency():
    """Every dependency a MIN or Valiant candidate can create (each hop on every VC of
    its block, walked here from the paths) is in the set the check examines."""
    r = ugal(BASE, "global", seed=2, vc_ranges=True)
    deps = _union(r)
    v = r.num_vcs
    rng = np.random.default_rng(0)
    n = SF.num_switches
    for _ in range(60):
        s, d = (int(x) for x in rng.choice(n, 2, replace=False))
        cands = r.candidates(s, d, rng=rng)
        for sw, _ in cands.paths:
            ent = r.view.entry(sw[:-1], sw[1:]).tolist()
            first, count = vc_ranges(len(ent), v)
            for h in range(len(ent) - 1):
                for x in range(first[h], first[h] + count[h]):
                    for y in range(first[h + 1], first[h + 1] + count[h + 1]):
                        assert (ent[h] * v + x, ent[h + 1] * v + y) in deps


def test_check_finds_the_cycle_of_overlapping_ranges(monkeypatch):
    """The check is not vacuous: with overlapping ranges (hop ``k`` of ``n`` on any class
    of ``k .. k + C - n``, where a VC may fall along a path) it finds a cycle."""
    def overlapping(n, classes):
        if n < 1 or n > classes:
            raise RoutingError("too long")
        return tuple(range(n)), (classes - n + 1,) * n

    monkeypatch.setattr(importlib.import_module("topogen.routing.valiant"), "vc_ranges", overlapping)
    rep = check(ugal(BASE, "local", seed=1, vc_ranges=True))
    assert not rep.acyclic


# ---------------------------------------------------------------- engines
def _run(routing, engine, load, **kw):
    row, eng = simulate_with_engine(routing, traffic="uniform", load=load, seed=5,
                                    packet_size=kw.pop("packet_size", 1), vc_buf_size=kw.pop("vc_buf_size", 4),
                                    num_vcs=kw.pop("num_vcs", 4), engine=engine, link_latency=1, **FAST, **kw)
    return row, list(getattr(eng, "ugal_choices", [])), eng


def test_packets_take_the_vcs_of_their_block():
    """Python engine, UGAL-G that never detours (every packet on its MIN path): with
    ranges the second hop of 2-hop paths lands in VCs 2 and 3, which the hop-indexed rule
    never uses; without, only VCs 0 and 1 of network ports ever hold a flit."""
    used = {}
    for vr in (False, True):
        r = ugal(BASE, "global", seed=3, threshold=1 << 20, vc_ranges=vr)
        seen = set()

        def spy_on(eng, seen=seen):
            send = eng._send

            def spy(pkt, o, b, now):
                if o < eng.ej_base:
                    seen.add((b % eng.V, pkt.links, pkt.hop))
                return send(pkt, o, b, now)

            eng._send = spy

        simulate_with_engine(r, wrap=spy_on, traffic="uniform", load=0.7, seed=5, packet_size=1, vc_buf_size=2,
                             num_vcs=4, engine="python", link_latency=1, **FAST)
        used[vr] = seen
    assert {vc for vc, _, _ in used[False]} == {0, 1}
    assert {vc for vc, n, h in used[True] if n == 2 and h == 1} == {0, 1}
    assert {vc for vc, n, h in used[True] if n == 2 and h == 2} == {2, 3}
    assert {vc for vc, n, h in used[True] if n == 1} == {0, 1, 2, 3}


def test_ranges_carry_more_than_hop_indexed_vcs():
    """At a load the hop-indexed VCs cannot carry on Slim Fly q=3 (1-VC-per-hop MIN paths),
    the ranges deliver more (the option acts on the run, not only on the tables)."""
    a, _, _ = _run(ugal(BASE, "global", seed=3), "python", load=0.6, vc_buf_size=2)
    b, _, _ = _run(ugal(BASE, "global", seed=3, vc_ranges=True), "python", load=0.6, vc_buf_size=2)
    assert b["accepted_load"] > a["accepted_load"] + 0.02


@pytest.mark.skipif(not AVAILABLE, reason="numba not installed")
@pytest.mark.parametrize("alg", ["ugal-l", "ugal-g", "valiant"])
def test_both_engines_give_the_same_rows(alg):
    """With 4 and 8 VCs (1 and 2 VCs per class), 1- and 2-flit packets."""
    r = route(SF, None, alg, seed=4, vc_ranges=True)
    for vcs, size, load in ((4, 1, 0.7), (8, 2, 0.45)):
        kw = dict(packet_size=size, vc_buf_size=2 * size + 1, num_vcs=vcs)
        py = _run(r, "python", load, **dict(kw))
        co = _run(r, "compiled", load, **dict(kw))
        same_rows(py[0], co[0])
        assert '"engine":"compiled"' in co[0]["params"]
        if alg != "valiant":
            assert py[1] == co[1] and sum(py[1][1:]) > 0


@pytest.mark.parametrize("kw,text", [(dict(flow_control="wormhole"), "vc_ranges"),
                                     (dict(router="output-buffered"), "vc_ranges")])
def test_routers_without_blocks_refuse(kw, text):
    r = valiant(BASE, seed=1, vc_ranges=True)
    with pytest.raises(ParameterError, match=text):
        simulate(r, traffic="uniform", load=0.1, seed=1, packet_size=1, num_vcs=4, engine="python",
                 link_latency=1, **FAST, **kw)


# ---------------------------------------------------------------- defaults and plumbing
def test_default_is_off_and_parameters_unchanged():
    for make in (lambda **k: ugal(BASE, "local", seed=3, **k), lambda **k: valiant(BASE, seed=3, **k)):
        a, b = make(), make(vc_ranges=False)
        assert a.params == b.params and "vc_ranges" not in a.params and a.vc_ranges is False
        on = make(vc_ranges=True)
        assert on.params["vc_ranges"] is True and on.vc_ranges
    with pytest.raises(ParameterError, match="vc_ranges"):
        valiant(BASE, vc_ranges="yes")


def test_paths_give_the_first_class_of_each_block():
    r = ugal(BASE, "local", seed=1, vc_ranges=True)
    sw, vcs = r.path(0, 5)
    assert vcs.tolist() == list(vc_ranges(len(sw) - 1, 4)[0])
    v = valiant(BASE, seed=1, vc_ranges=True)
    for mid in range(1, 8):
        sw, vcs = v.path_via(0, mid, 12)
        assert vcs.tolist() == list(vc_ranges(len(sw) - 1, 4)[0])
    net = Network(v, SimConfig(num_vcs=8))
    ent, vlo = net.route(0, 12, np.random.default_rng(1))
    assert list(vlo) == [2 * x for x in vc_ranges(len(ent), 4)[0]]


def test_saved_folder_keeps_the_option(tmp_path):
    for alg in ("ugal-g", "valiant"):
        r = route(SF, None, alg, seed=2, vc_ranges=True)
        save_routing(r, tmp_path / alg)
        assert load_routing(tmp_path / alg).vc_ranges is True
        plain = route(SF, None, alg, seed=2)
        save_routing(plain, tmp_path / (alg + "-p"))
        assert load_routing(tmp_path / (alg + "-p")).vc_ranges is False


def _points(tmp_path, **ref):
    from topogen.experiments.spec import parse_experiment

    doc = {"experiment": {"name": "vc-ranges"},
           "axes": {"topology": [{"generator": "slimfly", "params": {"q": 3}}],
                    "routing": ["ugal-l", "valiant", "hop"], "traffic": ["uniform"], "load": [0.3],
                    "simulator": ["reference"], "seed": [1]},
           "measure": {"packet_size": 1, "num_vcs": 3, "vc_buf_size": 16, "link_latency": 1,
                       "warmup_periods": 1, "sample_period": 100, "max_samples": 3},
           "reference": {"internal_speedup": 2.0, "routing_base": "nr", "port_buffer": 64,
                         "candidates": 4, **ref}}
    return parse_experiment(doc, path=tmp_path / "s.toml", store=tmp_path / "store").points


def test_spec_ids_unchanged_unless_set_and_option_reaches_the_routing(tmp_path):
    from topogen.experiments import runner

    plain = _points(tmp_path)
    stated = _points(tmp_path, vc_ranges=False)
    assert [p.id for p in plain] == [p.id for p in stated]
    assert all("vc_ranges" not in p.content["reference"] for p in plain)
    on = _points(tmp_path, vc_ranges=True)
    # the option changes the points of the routings it applies to; the others keep their ids
    same = {p.id for p in on} & {p.id for p in plain}
    assert same == {p.id for p in plain if p.content["routing"] == "hop"} and same
    assert all("vc_ranges" not in p.content["reference"] for p in on if p.content["routing"] == "hop")
    for p in on:
        _, _, r = runner._network(p, runner.crossval_spec(p))
        assert getattr(r, "vc_ranges", False) is (p.content["routing"] != "hop")


def test_slimfly_study_and_route_cli_carry_the_option(tmp_path):
    from topogen import formats
    from topogen.cli import main
    from topogen.reproduce.slimfly_sim import STUDY_REFERENCE, reproduce_slimfly_sim, study_of

    assert study_of("quick", vc_ranges=False).reference == STUDY_REFERENCE
    assert study_of("quick", vc_ranges=True).reference == {**STUDY_REFERENCE, "vc_ranges": True}
    with pytest.raises(ParameterError, match="--quick or --full"):
        reproduce_slimfly_sim(vc_ranges=True)
    src = tmp_path / "sf.json"
    formats.save(src, SF)
    assert main(["-q", "route", str(src), "-a", "ugal-l", "--base", "nr", "--vc-ranges",
                 "-o", str(tmp_path / "r")]) == 0
    assert load_routing(tmp_path / "r").vc_ranges is True
