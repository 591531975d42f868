"""BookSim2's dim_order_bal on a torus (dor-bal): every route and VC half a packet can draw
against an independent walk of routefunc.cpp's dor_next_torus with balance = true, the
draw frequencies, and the channel dependency graph."""

import itertools

import networkx as nx
import numpy as np
import pytest

from topogen import registry
from topogen.errors import ParameterError
from topogen.routing import check, route
from topogen.routing.dor_bal import dor_bal


def _torus(*dims):
    return registry.generate("torus", dims=dims, hosts_per_switch=1)


def _bs_draws(src, dst, k, n):
    """Every (routers, VC halves) dor_next_torus(balance=true) can give, over all outcomes
    of its RandomInt(1) calls: kncube ports 2d (+, 'Right') and 2d + 1 (-), a new
    partition only when the packet turns into a new dimension."""
    out = set()

    def rec(cur_id, in_port, ph, hops, vcs):
        if cur_id == dst:
            out.add((tuple(hops), tuple(vcs)))
            return
        cur, dest = cur_id, dst
        dim = 0
        while dim < n and cur % k == dest % k:
            cur //= k
            dest //= k
            dim += 1
        if in_port // 2 != dim:  # turning into a new dimension (the injection port is 2n)
            c, t = cur % k, dest % k
            dist2 = k - 2 * ((t - c + k) % k)
            dirs = [0] if dist2 > 0 else [1] if dist2 < 0 else [0, 1]  # RandomInt(1): 1 -> Right
            for dr in dirs:
                if (dr == 0 and c > t) or (dr == 1 and c < t):
                    parts = [1]
                elif (dr == 0 and c <= (k - 1) // 2 < t) or (dr == 1 and c > (k - 1) // 2 >= t):
                    parts = [0]
                else:
                    parts = [0, 1]
                for p in parts:
                    step(cur_id, dim, 2 * dim + dr, p, hops, vcs)
        else:
            step(cur_id, dim, in_port ^ 1, ph, hops, vcs)  # same direction

    def step(cur_id, dim, out_port, ph, hops, vcs):
        c = (cur_id // k ** dim) % k
        nc = (c + (1 if out_port % 2 == 0 else -1)) % k
        nxt = cur_id + (nc - c) * k ** dim
        # the packet arrives on the input that continues the same direction: in_port ^ 1 = out_port
        rec(nxt, out_port ^ 1, ph, hops + [nxt], vcs + [ph])

    rec(src, 2 * n, None, [src], [])
    return out


@pytest.mark.parametrize("k,n", [(4, 2), (5, 2), (6, 1), (3, 3)])
def test_every_draw_is_booksims(k, n):
    r = dor_bal(_torus(*(k,) * n), seed=1)
    for s, d in itertools.product(range(k ** n), repeat=2):
        if s == d:
            continue
        mine = {tuple(tuple(x.tolist()) for x in r.walk(s, d, c)) for c in r.options(s, d)}
        assert mine == _bs_draws(s, d, k, n), (s, d)


def test_draws_split_evenly():
    """On an 8-ring: 1 -> 2 crosses neither dateline (a half drawn), 3 -> 4 the middle one
    (VC 0), 7 -> 0 the wrap (VC 1); 0 -> 4 is a tie (the direction drawn)."""
    r = route(_torus(8), None, "dor-bal", seed=2)
    rng = np.random.default_rng(4)
    half = [int(r.path(1, 2, rng)[1][0]) for _ in range(600)]
    assert 240 < sum(half) < 360
    assert {int(r.path(3, 4, rng)[1][0]) for _ in range(50)} == {0}
    assert {int(r.path(7, 0, rng)[1][0]) for _ in range(50)} == {1}
    firsts = [int(r.path(0, 4, rng)[0][1]) for _ in range(600)]
    assert 240 < firsts.count(1) < 360 and set(firsts) == {1, 7}


def test_cdg_is_every_dependency_and_acyclic():
    r = dor_bal(_torus(4, 4), seed=1)
    assert check(r).acyclic
    # with every segment on one VC (the same routes) the rings close
    one = set()
    for s, d in itertools.product(range(16), repeat=2):
        if s != d:
            for c in r.options(s, d):
                sw, _ = r.walk(s, d, c)
                ch = r.view.entry(sw[:-1], sw[1:]).tolist()
                one.update(zip(ch[:-1], ch[1:]))
    assert not nx.is_directed_acyclic_graph(nx.DiGraph(list(one)))


def test_refuses_other_networks_and_vc_counts():
    with pytest.raises(ParameterError, match="torus"):
        route(registry.generate("mesh", dims=(4, 4)), None, "dor-bal")
    with pytest.raises(ParameterError, match="2 routing VCs"):
        route(_torus(4, 4), None, "dor-bal", vcs=4)
