"""The torus ring distance and its tie at exactly k/2, as each torus routing reads it,
against a walk around the ring (hops going + and going -, counted one by one): min-adapt's
adaptive hop (- on a tie), its dimension-order escape (BookSim's dor_next_torus: the tie
drawn, 1 = +), dor-bal's allowed directions (both on a tie), dor's table (+ on a tie) and
dor-random (the tie drawn), on k x k tori, k = 2..7 (the BookSim routings need k >= 3)."""

import itertools

import numpy as np
import pytest

from topogen import registry
from topogen.routing import route
from topogen.routing.dor import dor


def _torus(k):
    return registry.generate("torus", dims=(k, k), hosts_per_switch=1)


def _hops(k, c, t):
    """(hops going +, hops going -) from coordinate ``c`` to ``t`` on a ring of ``k``."""
    out = []
    for step in (1, -1):
        x, n = c, 0
        while x != t:
            x, n = (x + step) % k, n + 1
        out.append(n)
    return tuple(out)


def _coords(k, v):
    return v % k, v // k


def _expected(k, src, dst, tie_dir):
    """Switches and per-hop segment partition (1 when the segment starts above its end) of
    the dimension-order route: each ring the shorter way, ``tie_dir(i)`` (+1 / -1) when both
    are equally long in dimension ``i``."""
    sw, part, v = [src], [], src
    for i in range(2):
        st = k ** i
        c, t = (src // st) % k, (dst // st) % k
        if c == t:
            continue
        p, m = _hops(k, c, t)
        step = 1 if p < m else -1 if m < p else tie_dir(i)
        for _ in range(min(p, m)):
            nc = (c + step) % k
            v += (nc - c) * st
            c = nc
            sw.append(v)
            part.append(1 if (src // st) % k > t else 0)
    return sw, part


def _tied(k, src, dst):
    """Dimensions in which ``src`` and ``dst`` differ by exactly half the ring."""
    return [i for i in range(2) if (src // k ** i) % k != (dst // k ** i) % k
            and len(set(_hops(k, (src // k ** i) % k, (dst // k ** i) % k))) == 1]


def _pairs(n):
    return [(s, d) for s in range(n) for d in range(n) if s != d]


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_min_adapt_adaptive_hop_goes_minus_on_a_tie(k):
    r = route(_torus(k), algorithm="min-adapt", seed=1)
    for s, d in _pairs(k * k):
        offers = r.offers(s, d, 4, 0, 0, lambda: 1)[0][:-1]  # the last offer is the escape
        want = []
        for i in range(2):
            c, t = (s // k ** i) % k, (d // k ** i) % k
            if c != t:
                p, m = _hops(k, c, t)
                want.append((2 * i if p < m else 2 * i + 1, 3, 1))
        assert offers == want, (k, s, d)
        sw, vcs = r.path(s, d)
        assert sw.tolist() == _expected(k, s, d, lambda i: -1)[0], (k, s, d)


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_min_adapt_escape_draws_the_tie_plus_on_one(k):
    r = route(_torus(k), algorithm="min-adapt", seed=1)
    for s, d in _pairs(k * k):
        tied = _tied(k, s, d)
        assert r._ties(s, d) == len(tied)
        for draws in itertools.product((1, 0), repeat=len(tied)):
            sign = {i: (1 if x else -1) for i, x in zip(tied, draws)}
            sw, vcs = r.escape_walk(s, d, draws)  # raises StopIteration on a draw too many
            want_sw, want_part = _expected(k, s, d, sign.__getitem__)
            assert (sw, vcs) == (want_sw, want_part), (k, s, d, draws)
        # the escape's first hop as offered at injection: the tie drawn once, only on a tie
        calls = []
        low = 0 if s % k != d % k else 1
        for x in (1, 0):
            port = r.offers(s, d, 4, 0, 0, lambda: calls.append(x) or x)[0][-1][0]
            p, m = _hops(k, (s // k ** low) % k, (d // k ** low) % k)
            plus = p < m or (p == m and x == 1)
            assert port == (2 * low if plus else 2 * low + 1), (k, s, d, x)
        assert calls == ([1, 0] if low in tied else []), (k, s, d)


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_dor_bal_allows_both_directions_on_a_tie_only(k):
    r = route(_torus(k), algorithm="dor-bal", seed=1)
    for s, d in _pairs(k * k):
        want = []
        for i in range(2):
            c, t = (s // k ** i) % k, (d // k ** i) % k
            if c != t:
                p, m = _hops(k, c, t)
                want.append((i, c, t, (p <= m, m <= p)))
        assert r.segments(s, d) == want, (k, s, d)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 7])
def test_dor_table_goes_plus_on_a_tie(k):
    r = dor(_torus(k))
    for s, d in _pairs(k * k):
        assert r.path(s, d)[0].tolist() == _expected(k, s, d, lambda i: 1)[0], (k, s, d)


@pytest.mark.parametrize("k", [4, 6])
def test_dor_random_draws_the_tie(k):
    r = dor(_torus(k), tie="random", seed=1)
    for s, d in _pairs(k * k):
        tied = _tied(k, s, d)
        assert list(r.ties(s, d)) == tied, (k, s, d)
        for minus in itertools.chain.from_iterable(itertools.combinations(tied, j) for j in range(3)):
            sw, _ = r._walk(s, d, set(minus))
            assert sw.tolist() == _expected(k, s, d, lambda i: -1 if i in minus else 1)[0], (k, s, d, minus)
    # every tie direction is drawn: a pair tied in both dimensions takes all four routes
    s, d = 0, (k // 2) * (k + 1)
    seen = {tuple(r.path(s, d, np.random.default_rng(x))[0].tolist()) for x in range(64)}
    assert len(seen) == 4
