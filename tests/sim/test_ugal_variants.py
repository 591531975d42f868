"""UGAL's optional readings (``threshold``: flits added to a Valiant candidate's cost;
``count_packet``: the packet's own flits counted in each queue) on both engines, their
defaults equal to the rule as printed, and their plumbing through routing folders and
experiment specs."""

import numpy as np
import pytest

from topogen._sssp import AVAILABLE
from topogen.errors import ParameterError
from topogen.generators.slimfly import slimfly
from topogen.routing import load_routing, nearest, route, save_routing, ugal
from topogen.sim import SimConfig
from topogen.sim.model import Engine, Network

from ._rows import same_rows, simulate_with_engine

FAST = dict(sample_period=100, warmup_periods=1, max_samples=4, min_period_packets=0)
SF = slimfly(3)
BASE = nearest(SF)


def _run(routing, engine, load=0.6, **kw):
    """``simulate`` on ``engine`` and the engine's UGAL choice counts (MIN, VAL 1 ...)."""
    row, eng = simulate_with_engine(routing, traffic="uniform", load=load, seed=5,
                                    packet_size=kw.pop("packet_size", 1), vc_buf_size=kw.pop("vc_buf_size", 4),
                                    num_vcs=4, engine=engine, **FAST, **kw)
    return row, list(eng.ugal_choices)


def _share(choices) -> float:
    return 1.0 - choices[0] / sum(choices)


# ---------------------------------------------------------------- the rule, by hand
class _Stub(Engine):
    """An engine holding only what :meth:`_choose_ugal` reads, with queues set by hand."""

    def __init__(self, routing, queues: dict, draws: list, S: int = 2):
        net = Network(routing, SimConfig(num_vcs=4, vc_buf_size=4, packet_size=S))
        self.V, self.S, self.kcls = 4, S, 1
        self.host_switch = net.host_switch.tolist()
        self.ej_base = 10 ** 6
        self.rng = np.random.default_rng(0)
        self._setup_ugal(net)
        self.ugal_draws = list(draws)
        self._q = queues

    def _queue(self, o):
        return self._q.get(o, 0)


def _hosts_on(routing, s, d):
    hs = Network(routing, SimConfig(num_vcs=4)).host_switch
    return list(hs).index(s), list(hs).index(d)


@pytest.mark.parametrize("variant", ["local", "global"])
def test_threshold_and_own_flits_follow_the_formula(variant):
    """One Valiant candidate against MIN with given queues: the choice is the one the
    written formula gives for every (threshold, count_packet), computed here from the
    two paths independently of the engine."""
    from topogen.sim._events import _Packet

    s, d = 0, 1  # adjacent switches: MIN is one hop
    n = SF.num_switches
    probe = _Stub(ugal(BASE, "local", candidates=1, seed=0), {}, [])
    mn = probe._ugal_route(s, d)
    assert len(mn) == 1
    for j in range(n - 2):  # the first draw whose Valiant path leaves s on another link
        m_draw = (j + 0.5) / (n - 2)
        m = int(m_draw * (n - 2))  # the intermediate the draw names: switches other than s, d
        if m >= min(s, d):
            m += 1
        if m >= max(s, d):
            m += 1
        val = probe._ugal_route(s, m) + probe._ugal_route(m, d)
        if val[0] != mn[0] and len(set(val)) == len(val):
            break
    val_hops = len(val)
    assert val_hops >= 2
    S = 2
    for q_min, q_val in ((3, 0), (5, 1), (8, 1), (9, 0), (20, 2)):
        for thr in (0, 3, 7):
            for own in (False, True):
                r = ugal(BASE, variant, candidates=1, seed=0, threshold=thr, count_packet=own)
                eng = _Stub(r, {}, [m_draw], S=S)
                eng._q = {mn[0]: q_min, val[0]: q_val}
                for e in val[1:]:
                    eng._q.setdefault(e, 1)
                a = S if own else 0
                if variant == "local":
                    c_min, c_val = 1 * (q_min + a), val_hops * (q_val + a)
                else:
                    c_min = q_min + a
                    c_val = sum(eng._q.get(e, 0) + a for e in val)
                src, dst = _hosts_on(r, s, d)
                p = _Packet(0, src, dst, 0, (0,), (0,), -1, False)
                eng._choose_ugal(p)
                took_val = eng.ugal_choices[1] == 1
                assert took_val == (c_val + thr < c_min), (q_min, q_val, thr, own)


def test_defaults_are_the_printed_rule():
    """No option given: the same rows and choices as explicit zeros, and the routing's
    parameters (what a saved folder and a row's digest carry) as before the options."""
    a = ugal(BASE, "local", seed=3)
    b = ugal(BASE, "local", seed=3, threshold=0, count_packet=False)
    assert a.params == b.params
    assert "threshold" not in a.params and "count_packet" not in a.params
    assert a.threshold == 0 and a.count_packet is False
    ra, ca = _run(a, "python", load=0.5)
    rb, cb = _run(b, "python", load=0.5)
    same_rows(ra, rb)
    assert ca == cb


def test_options_change_the_choices_and_fewer_packets_detour():
    """At a load where the printed rule sends packets on Valiant paths, each reading
    sends fewer (a test that the options act, not only that they parse)."""
    printed = _share(_run(ugal(BASE, "local", seed=3), "python", load=0.6)[1])
    own = _share(_run(ugal(BASE, "local", seed=3, count_packet=True), "python", load=0.6)[1])
    thr = _share(_run(ugal(BASE, "local", seed=3, threshold=8), "python", load=0.6)[1])
    assert printed > 0.02
    assert own < printed and thr < printed


@pytest.mark.skipif(not AVAILABLE, reason="numba not installed")
@pytest.mark.parametrize("variant", ["local", "global"])
@pytest.mark.parametrize("opts", [dict(threshold=5), dict(count_packet=True),
                                  dict(threshold=2, count_packet=True)])
def test_both_engines_choose_alike(variant, opts):
    """The compiled engine makes the Python engine's choices: equal rows and equal
    counts of packets per candidate, with 1- and 2-flit packets."""
    r = ugal(BASE, variant, seed=4, **opts)
    for size, load in ((1, 0.7), (2, 0.5)):
        kw = dict(packet_size=size, vc_buf_size=2 * size + 2)
        py, cp = _run(r, "python", load=load, **kw), _run(r, "compiled", load=load, **kw)
        same_rows(py[0], cp[0])
        assert py[1] == cp[1] and sum(py[1][1:]) > 0
        assert '"engine":"compiled"' in cp[0]["params"]


def test_saved_folder_keeps_the_options(tmp_path):
    r = route(SF, None, "ugal-g", seed=2, ugal_threshold=6, ugal_count_packet=True)
    assert (r.threshold, r.count_packet) == (6, True)
    save_routing(r, tmp_path / "r")
    back = load_routing(tmp_path / "r")
    assert (back.threshold, back.count_packet, back.variant) == (6, True, "global")
    plain = route(SF, None, "ugal-g", seed=2)
    save_routing(plain, tmp_path / "p")
    assert (load_routing(tmp_path / "p").threshold, load_routing(tmp_path / "p").count_packet) == (0, False)


@pytest.mark.parametrize("bad,text", [(dict(threshold=-1), "threshold"), (dict(count_packet="yes"), "count_packet")])
def test_bad_options_say_what_to_give(bad, text):
    with pytest.raises(ParameterError, match=text):
        ugal(BASE, "local", **bad)


# ---------------------------------------------------------------- experiment specs
def _spec(**ref):
    return {"experiment": {"name": "ugal-variants"},
            "axes": {"topology": [{"generator": "slimfly", "params": {"q": 3}}],
                     "routing": ["ugal-l", "hop"], "traffic": ["uniform"], "load": [0.3],
                     "simulator": ["reference"], "seed": [1]},
            "measure": {"packet_size": 1, "num_vcs": 3, "vc_buf_size": 16, "link_latency": 1,
                        "warmup_periods": 1, "sample_period": 100, "max_samples": 3},
            "reference": {"internal_speedup": 2.0, "routing_base": "nr", "port_buffer": 64,
                          "candidates": 4, **ref}}


def _points(tmp_path, **ref):
    from topogen.experiments.spec import parse_experiment

    return parse_experiment(_spec(**ref), path=tmp_path / "s.toml", store=tmp_path / "store").points


def test_spec_default_keeps_point_ids(tmp_path):
    """A spec that states the printed rule (or says nothing) has the ids and contents it
    had before the options existed; a reading changes the UGAL points' ids, and only
    theirs."""
    plain = _points(tmp_path)
    stated = _points(tmp_path, ugal_threshold=0, ugal_count_packet=False)
    assert [p.id for p in plain] == [p.id for p in stated]
    assert all(set(p.content["reference"]) == {"internal_speedup", "candidates", "routing_base", "port_buffer"}
               for p in plain)
    varied = _points(tmp_path, ugal_threshold=5, ugal_count_packet=True)
    ugal = {p.id for p in plain if p.content["routing"] in ("ugal-l", "ugal-g")}
    assert ugal and not {p.id for p in varied} & ugal  # UGAL's points change, the others keep theirs
    assert {p.id for p in varied} - {p.id for p in plain} and \
        {p.id for p in varied} & {p.id for p in plain} == {p.id for p in plain} - ugal


def test_spec_options_reach_the_routing(tmp_path):
    from topogen.experiments import runner

    for p in _points(tmp_path, ugal_threshold=5, ugal_count_packet=True):
        if p.content["routing"] != "ugal-l":
            continue
        spec = runner.crossval_spec(p)
        _, _, r = runner._network(p, spec)
        assert (r.threshold, r.count_packet) == (5, True)
    for p in _points(tmp_path):
        if p.content["routing"] == "ugal-l":
            _, _, r = runner._network(p, runner.crossval_spec(p))
            assert (r.threshold, r.count_packet) == (0, False)


def test_spec_rejects_a_negative_threshold(tmp_path):
    with pytest.raises(ParameterError, match="ugal_threshold"):
        _points(tmp_path, ugal_threshold=-3)


def test_slimfly_study_spec_carries_the_reading_only_when_set():
    from topogen.reproduce.slimfly_sim import STUDY_REFERENCE, study_of

    assert study_of("quick").reference == STUDY_REFERENCE
    assert study_of("quick", ugal_threshold=0, ugal_count_packet=False).reference == STUDY_REFERENCE
    got = study_of("quick", ugal_threshold=12, ugal_count_packet=True).reference
    assert got == {**STUDY_REFERENCE, "ugal_threshold": 12, "ugal_count_packet": True}


def test_slimfly_study_refuses_a_reading_outside_the_study():
    from topogen.reproduce.slimfly_sim import reproduce_slimfly_sim

    with pytest.raises(ParameterError, match="--quick or --full"):
        reproduce_slimfly_sim(ugal_threshold=4)


def test_route_cli_writes_the_reading(tmp_path):
    from topogen import formats
    from topogen.cli import main

    src = tmp_path / "sf.json"
    formats.save(src, SF)
    assert main(["-q", "route", str(src), "-a", "ugal-l", "--base", "nr", "--ugal-threshold", "7",
                 "--ugal-count-packet", "-o", str(tmp_path / "r")]) == 0
    r = load_routing(tmp_path / "r")
    assert (r.variant, r.threshold, r.count_packet) == ("local", 7, True)
    assert main(["-q", "route", str(src), "-a", "ugal-l", "--base", "nr", "-o", str(tmp_path / "p")]) == 0
    p = load_routing(tmp_path / "p")
    assert (p.threshold, p.count_packet) == (0, False) and "threshold" not in p.params
