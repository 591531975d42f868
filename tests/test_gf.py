"""Finite fields: axioms checked exhaustively, known facts, errors."""

import itertools

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.gf import (
    GF,
    _is_irreducible,
    irreducible_polynomial,
    is_prime,
    is_prime_power,
    nearest_prime_powers,
)

SMALL = [2, 3, 4, 5, 7, 8, 9, 16, 25, 27]


def _sieve(n):
    flags = np.ones(n + 1, bool)
    flags[:2] = False
    for i in range(2, int(n**0.5) + 1):
        if flags[i]:
            flags[i * i :: i] = False
    return np.nonzero(flags)[0]


def test_is_prime_power_matches_sieve():
    limit = 2000
    expected = {}
    for p in _sieve(limit):
        pw, m = int(p), 1
        while pw <= limit:
            expected[pw] = (int(p), m)
            pw *= int(p)
            m += 1
    for n in range(-3, limit + 1):
        assert is_prime_power(n) == expected.get(n), n
    assert [n for n in range(50) if is_prime(n)] == list(_sieve(49))


def test_nearest_prime_powers():
    assert nearest_prime_powers(6) == [5, 7]
    assert nearest_prime_powers(24) == [23, 25]
    assert nearest_prime_powers(1) == [2]
    assert nearest_prime_powers(5) == [4, 7]
    assert nearest_prime_powers(2, predicate=lambda n: n % 4 != 2, minimum=3) == [3]


@pytest.mark.parametrize("q", SMALL)
def test_field_axioms_exhaustive(q):
    F = GF(q)
    e = np.arange(q)
    add = F.addition_table()
    mul = F.multiplication_table()
    # abelian groups: closure, commutativity, identities, Latin squares (inverses exist)
    assert (add == add.T).all() and (mul == mul.T).all()
    assert (add[0] == e).all() and (mul[1] == e).all() and (mul[0] == 0).all()
    for row in add:
        assert sorted(row) == list(e)
    for row in mul[1:, 1:]:
        assert sorted(row) == list(e[1:])
    # associativity and distributivity over all triples
    a, b, c = np.meshgrid(e, e, e, indexing="ij")
    assert (add[add[a, b], c] == add[a, add[b, c]]).all()
    assert (mul[mul[a, b], c] == mul[a, mul[b, c]]).all()
    assert (mul[a, add[b, c]] == add[mul[a, b], mul[a, c]]).all()
    # negation, subtraction, inverse, division
    assert (add[e, F.neg(e)] == 0).all()
    assert (F.add(F.sub(a, b), b) == a).all()
    assert (mul[e[1:], F.inv(e[1:])] == 1).all()
    assert (F.mul(F.div(a[:, 1:], b[:, 1:]), b[:, 1:]) == a[:, 1:]).all()
    # characteristic p: adding 1 to itself p times gives 0, fewer times does not
    p, m = is_prime_power(q)
    assert F.characteristic == p and F.degree == m
    acc = 0
    for i in range(1, p + 1):
        acc = F.add(acc, 1)
        assert (acc == 0) == (i == p)
    # Frobenius is additive: (a + b)^p = a^p + b^p
    assert (F.pow(add, p) == F.add(F.pow(e[:, None], p), F.pow(e[None, :], p))).all()
    # the primitive element generates all units
    g = F.primitive
    assert sorted(F.pow(g, np.arange(q - 1))) == list(e[1:])
    assert F.is_primitive(g) and F.multiplicative_order(1) == 1
    assert all(not F.is_primitive(h) for h in range(1, g))


@pytest.mark.parametrize("q", [2, 3, 5, 7, 11, 13, 17, 19, 23])
def test_prime_fields_are_integers_mod_q(q):
    F = GF(q)
    e = np.arange(q)
    assert (F.multiplication_table() == np.outer(e, e) % q).all()
    assert (F.addition_table() == (e[:, None] + e[None, :]) % q).all()
    assert [F.inv(a) for a in range(1, q)] == [pow(a, -1, q) for a in range(1, q)]


def test_known_primitive_elements():
    # smallest primitive roots mod p
    assert {p: GF(p).primitive for p in (3, 5, 7, 11, 13, 17, 19, 23)} == {
        3: 2, 5: 2, 7: 3, 11: 2, 13: 2, 17: 3, 19: 2, 23: 5}


def test_known_moduli_and_aes_field():
    assert irreducible_polynomial(2, 2) == (1, 1, 1)  # x^2 + x + 1
    assert irreducible_polynomial(2, 3) == (1, 1, 0, 1)  # x^3 + x + 1
    assert irreducible_polynomial(2, 4) == (1, 1, 0, 0, 1)  # x^4 + x + 1
    assert irreducible_polynomial(3, 2) == (1, 0, 1)  # x^2 + 1
    # GF(2^8) with x^8 + x^4 + x^3 + x + 1 is the AES field (FIPS-197)
    F = GF(256)
    assert F.modulus == (1, 1, 0, 1, 1, 0, 0, 0, 1)
    assert F.mul(0x57, 0x83) == 0xC1  # FIPS-197 Section 4.2 example
    assert F.mul(0x57, 0x13) == 0xFE
    assert F.inv(0x53) == 0xCA
    assert F.primitive == 3  # 0x02 is not a generator of the AES field, 0x03 is
    assert F.add(0x57, 0x83) == 0x57 ^ 0x83


def _mobius(n):
    res, k = 1, 2
    while k * k <= n:
        if n % k == 0:
            n //= k
            if n % k == 0:
                return 0
            res = -res
        k += 1
    return -res if n > 1 else res


@pytest.mark.parametrize("p,m", [(2, 1), (2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 8), (3, 2), (3, 3), (3, 4), (5, 2), (5, 3), (7, 2)])
def test_irreducibility_test_counts_match_gauss(p, m):
    count = sum(
        _is_irreducible([(code // p**i) % p for i in range(m)] + [1], p) for code in range(p**m)
    )
    gauss = sum(_mobius(d) * p ** (m // d) for d in range(1, m + 1) if m % d == 0) // m
    assert count == gauss


def _polymul(a, b, p):
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] = (out[i + j] + x * y) % p
    return tuple(out)


@pytest.mark.parametrize("p,m", [(2, 4), (3, 3), (5, 2), (2, 6)])
def test_modulus_is_smallest_irreducible(p, m):
    # brute force: all products of two monic polynomials of degrees d and m - d
    def monic(d):
        return [tuple(c) + (1,) for c in itertools.product(range(p), repeat=d)]

    reducible = {_polymul(a, b, p) for d in range(1, m // 2 + 1) for a in monic(d) for b in monic(m - d)}
    f = irreducible_polynomial(p, m)
    assert f not in reducible and len(f) == m + 1 and f[-1] == 1
    code = sum(c * p**i for i, c in enumerate(f[:-1]))
    for smaller in range(code):
        g = tuple((smaller // p**i) % p for i in range(m)) + (1,)
        assert g in reducible


@pytest.mark.parametrize("q", [2187, 4096])
def test_large_fields_on_random_samples(q):
    F = GF(q)
    rng = np.random.default_rng(1)
    a, b, c = rng.integers(0, q, size=(3, 4000))
    assert (F.mul(a, F.add(b, c)) == F.add(F.mul(a, b), F.mul(a, c))).all()
    assert (F.add(F.add(a, b), c) == F.add(a, F.add(b, c))).all()
    nz = a[a != 0]
    assert (F.mul(nz, F.inv(nz)) == 1).all()
    p, m = F.characteristic, F.degree
    digits = lambda x: (x[:, None] // p ** np.arange(m)) % p  # noqa: E731
    assert (digits(np.asarray(F.add(a, b))) == (digits(a) + digits(b)) % p).all()


def test_pow_and_errors():
    F = GF(9)
    assert F.pow(0, 0) == 1 and F.pow(0, 3) == 0
    assert F.pow(5, -1) == F.inv(5)
    assert F.pow(F.primitive, 8) == 1
    with pytest.raises(ZeroDivisionError):
        F.inv(0)
    with pytest.raises(ZeroDivisionError):
        F.div(3, 0)
    with pytest.raises(ParameterError, match=r"\[0, 8\]"):
        F.add(9, 1)
    assert GF(9) is GF(9)


@pytest.mark.parametrize("bad,near", [(6, "5, 7"), (12, "11, 13"), (1, "2"), (0, "2"), (100, "97, 101")])
def test_not_a_prime_power(bad, near):
    with pytest.raises(ParameterError, match=rf"q={bad} is not a prime power.*nearest valid: {near}$"):
        GF(bad)


def test_pickle_returns_cached_field():
    import pickle

    F = GF(27)
    assert pickle.loads(pickle.dumps(F)) is F
    assert repr(F) == "GF(27)" and len(F) == 27


@pytest.mark.parametrize("q", [3, 5, 9, 25, 27, 8])
def test_squares(q):
    F = GF(q)
    e = np.arange(1, q)
    assert set(F.squares) == set(F.mul(e, e))
    assert len(F.squares) == ((q - 1) // 2 if q % 2 else q - 1)
