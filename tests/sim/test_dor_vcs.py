"""Dimension-order routing as BookSim's dim_order runs it: on a torus ring of even side
the direction at distance k/2 is drawn per packet (dor tie='random', 'dor-random'), VCs
follow the dateline rule in both directions, and both simulator engines give the same
rows."""

import math

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import mesh, torus
from topogen.routing import dor, load_routing, route
from topogen.routing.base import TableRouting
from topogen.routing.deadlock import check
from topogen.routing.dor import RandomTieDor
from topogen.sim import simulate
from topogen._sssp import AVAILABLE


def _ring_load(r, k, rng, draws=1):
    """Hops on + and - links of dimension 0 of uniform traffic over all switch pairs."""
    plus = minus = 0
    n = k * k
    for s in range(n):
        for d in range(n):
            for _ in range(draws):
                sw, _ = r.path(s, d, rng)
                for a, b in zip(sw[:-1].tolist(), sw[1:].tolist()):
                    if a // k != b // k:
                        continue  # dimension 1
                    if (b % k - a % k) % k == 1:
                        plus += 1
                    else:
                        minus += 1
    return plus, minus


def test_random_tie_balances_the_ring_directions():
    """The '+' rule puts the k/2 ties on the + links (10 : 6 hops on an 8-ring); BookSim's
    random direction halves them (8 : 8 in expectation)."""
    k = 8
    t = torus((k, k))
    rng = np.random.default_rng(1)
    p, m = _ring_load(dor(t), k, rng)
    # independent count: every (s, d) row pair, + for ring distances 1 .. k/2, - for the rest
    plus = sum(f for f in range(k) if 0 < 2 * f <= k)
    minus = sum(k - f for f in range(k) if 2 * f > k)
    assert (p, m) == (k * k * k * plus, k * k * k * minus) == (5120, 3072)
    r = dor(t, tie="random", seed=2)
    assert isinstance(r, RandomTieDor) and r.algorithm == "dor-random" and not r.deterministic
    p, m = _ring_load(r, k, rng, draws=4)
    # ties are 1/8 of the pairs (8 per row): each direction gets half of their 4 hops
    assert abs(p / (p + m) - 0.5) < 0.02


def test_ties_draw_each_direction_and_keep_dateline_vcs():
    t = torus((4, 4))
    r = dor(t, tie="random", seed=1)
    rng = np.random.default_rng(0)
    seen = {}
    for _ in range(400):
        sw, vcs = r.path(0, 10, rng)  # (0,0) -> (2,2): a tie in both dimensions
        seen[tuple(sw.tolist())] = tuple(vcs.tolist())
    assert len(seen) == 4
    # (0,0) -> (3,0) crosses the wrap link of dimension 0 first: VC 1 from there on
    assert seen[(0, 3, 2, 14, 10)] == (1, 1, 1, 1)
    assert seen[(0, 1, 2, 6, 10)] == (0, 0, 0, 0)
    # without a tie the routes are the '+' table's
    table = dor(t)
    for s, d in ((0, 5), (3, 12), (7, 4)):
        a, b = r.path(s, d, rng), table.path(s, d)
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


def test_random_tie_deadlock_free_over_all_choices():
    r = dor(torus((4, 6)), tie="random", seed=1)
    rep = check(r)
    assert rep.acyclic and "all 4 tie-direction choices" in rep.summary()


def test_tie_rule_only_where_a_ring_has_ties():
    assert isinstance(dor(mesh((4, 4)), tie="random"), TableRouting)
    assert isinstance(dor(torus((5, 3)), tie="random"), TableRouting)
    assert isinstance(route(torus((4, 4)), algorithm="dor-random", seed=1), RandomTieDor)
    with pytest.raises(ParameterError, match="tie must be one of"):
        dor(torus((4, 4)), tie="minus")


def test_saved_and_loaded(tmp_path):
    r = dor(torus((4, 4)), tie="random", seed=3)
    r.save(tmp_path / "r")
    back = load_routing(tmp_path / "r")
    assert isinstance(back, RandomTieDor) and back.seed == 3
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    for s, d in ((0, 10), (1, 11), (4, 6)):
        assert r.path(s, d, rng1)[0].tolist() == back.path(s, d, rng2)[0].tolist()


FAST = dict(sample_period=100, warmup_periods=1, max_samples=5, min_period_packets=0)


@pytest.mark.skipif(not AVAILABLE, reason="numba not installed")
@pytest.mark.parametrize("size,load", [(1, 0.3), (33, 0.3)])
def test_engines_give_the_same_rows(size, load):
    r = dor(torus((4, 4), hosts_per_switch=2), tie="random", seed=4)
    kw = dict(traffic="uniform", load=load, seed=11, packet_size=size, vc_buf_size=2 * size, num_vcs=4, **FAST)
    a, b = simulate(r, engine="python", **kw), simulate(r, engine="compiled", **kw)
    for c in ("status", "latency_avg", "latency_max", "hops_avg", "packets", "accepted_flit_rate", "sim_cycles"):
        x, y = a[c], b[c]
        assert (isinstance(x, float) and math.isnan(x) and math.isnan(y)) or x == y, c
    assert '"engine":"compiled"' in b["params"]


def test_random_tie_lowers_latency_near_saturation():
    """The model behaviour the tie rule changes: on an 8x8 torus at 0.4 flits/node/cycle
    (33-flit VCT, 4 VCs) the '+' rule's busier + links cost about 8 %."""
    from topogen.experiments.simulators import CrossvalSpec, _reference_config

    cfg = _reference_config(CrossvalSpec("torus", link_latency=2))
    t = torus((8, 8))
    lat = {}
    for name, r in (("plus", dor(t)), ("random", dor(t, tie="random", seed=1))):
        lat[name] = np.mean([simulate(r, traffic="uniform", load=0.4, config=cfg, seed=s)["latency_avg"]
                             for s in (1, 2)])
    assert lat["plus"] > 1.04 * lat["random"]
