"""Finite fields GF(q), q = p^m, with vectorised NumPy arithmetic.

Elements are the integers ``0 .. q-1`` in the polynomial basis: the integer
``a = sum_i a_i p^i`` (digits ``0 <= a_i < p``) stands for the polynomial
``a_0 + a_1 x + ... + a_{m-1} x^{m-1}`` reduced modulo the field's modulus, a monic
irreducible polynomial of degree ``m`` over GF(p).  So for prime q the elements are the
residues mod q with their usual arithmetic, and in GF(2^m) addition is XOR.

The modulus is deterministic: :func:`irreducible_polynomial` returns the *smallest*
monic irreducible polynomial of degree m, ordering monic polynomials
``x^m + c_{m-1} x^{m-1} + ... + c_0`` by the integer ``sum_i c_i p^i`` (that is,
lexicographically by ``(c_{m-1}, ..., c_0)``).  E.g. GF(4): x^2 + x + 1; GF(8):
x^3 + x + 1; GF(9): x^2 + 1; GF(16): x^4 + x + 1.  The primitive element
(:attr:`GF.primitive`) is the smallest integer that generates the multiplicative group.

Multiplication uses logarithm/antilogarithm tables (built once, O(q)); addition uses a
precomputed table for q <= 1024, XOR in characteristic 2, and digit-wise arithmetic
otherwise.  Every operation accepts scalars or integer arrays (broadcasting like NumPy).
Fields are cached: ``GF(q)`` returns the same object for the same q.

Used by the MMS / Slim Fly (Besta & Hoefler, Section II-B1) and PolarFly constructions.
Note that Slim Fly II-B1 Step 1 speaks of the ring Z_q "with modulo addition and
multiplication": that ring is a field only for prime q; for q = 4, 8, 9, 16, 25, 27, ...
the MMS construction [Hafner 2004] needs GF(q), which this module provides.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .errors import ParameterError

__all__ = [
    "GF",
    "is_prime",
    "is_prime_power",
    "nearest_prime_powers",
    "check_prime_power",
    "irreducible_polynomial",
]

_ADD_TABLE_MAX = 1024
_MAX_ORDER = 1 << 24


# ---------------------------------------------------------------- integers


def is_prime(n: int) -> bool:
    """True iff the integer ``n`` is prime (deterministic trial division, n < 2^48 fast)."""
    n = int(n)
    if n < 2:
        return False
    if n < 4:
        return True
    if n % 2 == 0 or n % 3 == 0:
        return False
    i = 5
    while i * i <= n:
        if n % i == 0 or n % (i + 2) == 0:
            return False
        i += 6
    return True


def is_prime_power(q: int) -> tuple[int, int] | None:
    """``(p, m)`` with ``q = p**m``, p prime, m >= 1; None if q is not a prime power.

    Parameters
    ----------
    q : int
        Candidate field order.

    Returns
    -------
    tuple of (int, int) or None
    """
    try:
        q = int(q)
    except (TypeError, ValueError):
        return None
    if q < 2:
        return None
    p = next((d for d in range(2, math.isqrt(q) + 1) if q % d == 0), q)
    m = 0
    while q % p == 0:
        q //= p
        m += 1
    return (p, m) if q == 1 else None


def nearest_prime_powers(q: int, *, predicate=None, minimum: int = 2) -> list[int]:
    """The nearest prime powers below and above ``q`` (q itself excluded).

    Parameters
    ----------
    q : int
        Any integer.
    predicate : callable, optional
        Extra condition a prime power must satisfy (e.g. ``q % 4 != 2``).
    minimum : int
        Smallest value considered.

    Returns
    -------
    list of int
        ``[below, above]``, or ``[above]`` when there is no valid value below q.
    """
    q = int(q)
    ok = lambda n: is_prime_power(n) is not None and (predicate is None or predicate(n))  # noqa: E731
    below = next((n for n in range(q - 1, minimum - 1, -1) if ok(n)), None)
    above = next(n for n in range(max(q + 1, minimum), 4 * max(q, minimum) + 8) if ok(n))
    return [n for n in (below, above) if n is not None]


def check_prime_power(name: str, q, *, predicate=None, minimum: int = 2, what: str = "a prime power") -> tuple[int, int]:
    """Validate a field order.

    Parameters
    ----------
    name : str
        Parameter name used in the message (``"q"``).
    q : int
        The value to check.
    predicate : callable, optional
        Extra condition on valid values (e.g. Slim Fly's ``q % 4 != 2``).
    minimum : int
        Smallest valid value.
    what : str
        Description of the valid values for the message.

    Returns
    -------
    tuple of (int, int)
        ``(p, m)`` with ``q = p**m``.

    Raises
    ------
    ParameterError
        If q is invalid; the message names the valid range and the nearest valid values
        below and above q (e.g. ``q=6 is not a prime power; ...; nearest valid: 5, 7``).
    """
    from ._validate import check_int

    q = check_int(name, q, None, None)
    pm = is_prime_power(q)
    if pm is None or q < minimum or (predicate is not None and not predicate(q)):
        near = ", ".join(map(str, nearest_prime_powers(q, predicate=predicate, minimum=minimum)))
        why = f"{name}={q} is not a prime power; " if pm is None else f"{name}={q} is a prime power, but "
        raise ParameterError(f"{why}{name} must be {what} (>= {minimum}); nearest valid: {near}")
    if q > _MAX_ORDER:
        raise ParameterError(f"{name}={q} is too large: fields up to order {_MAX_ORDER} are supported")
    return pm


# ---------------------------------------------------------------- polynomials over GF(p)
# Polynomials are lists of ints mod p, lowest degree first, without trailing zeros.


def _trim(a):
    while a and a[-1] == 0:
        a.pop()
    return a


def _polymod(a, f, p):
    a = list(a)
    inv_lead = pow(f[-1], p - 2, p)
    df = len(f) - 1
    while len(_trim(a)) - 1 >= df:
        c = a[-1] * inv_lead % p
        shift = len(a) - 1 - df
        for i, fi in enumerate(f):
            a[shift + i] = (a[shift + i] - c * fi) % p
    return a


def _polymulmod(a, b, f, p):
    if not a or not b:
        return []
    out = [0] * (len(a) + len(b) - 1)
    for i, ai in enumerate(a):
        if ai:
            for j, bj in enumerate(b):
                out[i + j] = (out[i + j] + ai * bj) % p
    return _polymod(out, f, p)


def _polypowmod(a, e, f, p):
    result = [1]
    base = _polymod(a, f, p)
    while e:
        if e & 1:
            result = _polymulmod(result, base, f, p)
        base = _polymulmod(base, base, f, p)
        e >>= 1
    return result


def _polygcd(a, b, p):
    a, b = _trim(list(a)), _trim(list(b))
    while b:
        a, b = b, _polymod(a, b, p)
    return a


def _is_irreducible(f, p) -> bool:
    """Ben-Or's test: f (monic, degree m) is irreducible iff gcd(f, x^(p^i) - x) = 1
    for i = 1 .. m // 2."""
    m = len(f) - 1
    if m == 1:
        return True
    if f[0] == 0:
        return False
    xpow = [0, 1]
    for _ in range(m // 2):
        xpow = _polypowmod(xpow, p, f, p)
        g = list(xpow) + [0] * max(0, 2 - len(xpow))
        g[1] = (g[1] - 1) % p
        if len(_polygcd(f, _trim(g), p)) > 1:
            return False
    return True


def irreducible_polynomial(p: int, m: int) -> tuple[int, ...]:
    """The smallest monic irreducible polynomial of degree ``m`` over GF(p).

    Parameters
    ----------
    p : int
        A prime.
    m : int
        Degree, >= 1.

    Returns
    -------
    tuple of int
        Coefficients ``(c_0, c_1, ..., c_{m-1}, 1)``, lowest degree first.

    Raises
    ------
    ParameterError
        If p is not prime or m < 1.

    Notes
    -----
    Monic polynomials ``x^m + c_{m-1} x^{m-1} + ... + c_0`` are ordered by the integer
    ``sum_i c_i p^i``; the first irreducible one (Ben-Or's test) is returned.  For m = 1
    this is ``x`` (so GF(p) is the integers mod p).
    """
    if not is_prime(p):
        raise ParameterError(f"p={p} is not prime")
    if int(m) < 1:
        raise ParameterError(f"m must be an integer >= 1, got {m}")
    if m == 1:
        return (0, 1)
    for code in range(p**m):
        coeffs = [(code // p**i) % p for i in range(m)] + [1]
        if _is_irreducible(coeffs, p):
            return tuple(coeffs)
    raise AssertionError("unreachable: irreducible polynomials of every degree exist")


# ---------------------------------------------------------------- the field


class GF:
    """The finite field of order ``q = p^m``.

    Parameters
    ----------
    q : int
        A prime power, ``2 <= q <= 2^24``.

    Raises
    ------
    ParameterError
        If q is not a prime power (the message names the nearest prime powers).

    Attributes
    ----------
    order, characteristic, degree : int
        q, p and m.
    modulus : tuple of int
        The reducing polynomial, lowest degree first (see :func:`irreducible_polynomial`).
    primitive : int
        The smallest generator of the multiplicative group.
    exp : ndarray, shape (2(q-1),)
        ``exp[i] = primitive**i`` (doubled so that ``exp[log a + log b]`` needs no modulo).
    log : ndarray, shape (q,)
        Discrete logarithm base ``primitive``; ``log[0] = -1`` (undefined).

    Notes
    -----
    Construction cost is O(m^2 q) vectorised plus one O(q) table walk per candidate
    primitive element.  Instances are cached per q.
    """

    def __new__(cls, q: int):
        return _field(int(q) if isinstance(q, (int, np.integer)) and not isinstance(q, bool) else q)

    @classmethod
    def _build(cls, q) -> "GF":
        p, m = check_prime_power("q", q)
        self = object.__new__(cls)
        self.order, self.characteristic, self.degree = q, p, m
        self.modulus = irreducible_polynomial(p, m)
        self._powers = p ** np.arange(m, dtype=np.int64)
        dtype = np.int32 if q > 32767 else np.int16
        self.dtype = dtype
        self.elements = np.arange(q, dtype=np.int64)
        # digits of every element, shape (q, m)
        digits = (self.elements[:, None] // self._powers[None, :]) % p
        # A[i] = digits of a * x^i for every a (i = 0..m-1)
        mod_low = np.asarray(self.modulus[:m], dtype=np.int64)
        shifted = [digits]
        for _ in range(1, m):
            d = shifted[-1]
            top = d[:, -1:]
            nxt = np.concatenate([np.zeros((q, 1), np.int64), d[:, :-1]], axis=1)
            shifted.append((nxt - top * mod_low[None, :]) % p)
        self._shifted = shifted
        neg_digits = (-digits) % p
        self.neg_table = (neg_digits @ self._powers).astype(dtype)
        # primitive element: smallest g whose powers walk through all q-1 units
        for g in range(1, q):
            perm = self._times_const_digits(g)
            walk = _orbit_of_one(perm, q)
            if walk is not None:
                break
        self.primitive = g
        exp = np.asarray(walk, dtype=np.int64)
        self.exp = np.concatenate([exp, exp]).astype(dtype)
        log = np.full(q, -1, dtype=np.int64)
        log[exp] = np.arange(q - 1)
        self.log = log.astype(np.int32)
        inv = np.zeros(q, dtype=np.int64)
        inv[1:] = exp[(-log[1:]) % (q - 1)]
        self.inv_table = inv.astype(dtype)
        self._add_table = None
        if p != 2 and m > 1 and q <= _ADD_TABLE_MAX:
            a = digits[:, None, :] + digits[None, :, :]
            self._add_table = ((a % p) @ self._powers).astype(dtype)
        del self._shifted
        return self

    def _times_const_digits(self, g: int) -> np.ndarray:
        """``a * g`` for every element a, as an int64 array of length q."""
        p = self.characteristic
        acc = np.zeros_like(self._shifted[0])
        for i in range(self.degree):
            gi = (g // p**i) % p
            if gi:
                acc = acc + gi * self._shifted[i]
        return (acc % p) @ self._powers

    # ------------------------------------------------------------ arithmetic
    def __repr__(self) -> str:
        return f"GF({self.order})"

    def __len__(self) -> int:
        return self.order

    def __reduce__(self):
        return (GF, (self.order,))

    def _arr(self, a):
        arr = np.asarray(a)
        if arr.dtype.kind not in "iu":
            raise ParameterError(f"GF({self.order}) elements must be integers, got dtype {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() >= self.order):
            raise ParameterError(f"GF({self.order}) elements must lie in [0, {self.order - 1}]")
        return arr.astype(np.int64, copy=False)

    @staticmethod
    def _out(x):
        return int(x) if np.ndim(x) == 0 else x

    def add(self, a, b):
        """a + b."""
        a, b = self._arr(a), self._arr(b)
        p, m = self.characteristic, self.degree
        if p == 2:
            r = a ^ b
        elif m == 1:
            r = (a + b) % p
        elif self._add_table is not None:
            r = self._add_table[a, b].astype(np.int64)
        else:
            r = np.zeros(np.broadcast(a, b).shape, dtype=np.int64)
            for pw in self._powers:
                r = r + ((a // pw + b // pw) % p) * pw
        return self._out(r)

    def neg(self, a):
        """-a."""
        return self._out(self.neg_table[self._arr(a)].astype(np.int64))

    def sub(self, a, b):
        """a - b."""
        return self.add(a, self.neg(b))

    def mul(self, a, b):
        """a * b."""
        a, b = self._arr(a), self._arr(b)
        la, lb = self.log[a].astype(np.int64), self.log[b].astype(np.int64)
        r = self.exp[np.maximum(la + lb, 0)].astype(np.int64)
        r = np.where((a == 0) | (b == 0), 0, r)
        return self._out(r)

    def inv(self, a):
        """The multiplicative inverse of a; ZeroDivisionError for 0."""
        a = self._arr(a)
        if np.any(a == 0):
            raise ZeroDivisionError(f"0 has no inverse in GF({self.order})")
        return self._out(self.inv_table[a].astype(np.int64))

    def div(self, a, b):
        """a / b; ZeroDivisionError if b is 0."""
        return self.mul(a, self.inv(b))

    def pow(self, a, e):
        """a ** e for integer e (negative e needs a != 0; 0 ** 0 = 1)."""
        a = self._arr(a)
        e = np.asarray(e, dtype=np.int64)
        if np.any((e < 0) & (a == 0)):
            raise ZeroDivisionError(f"0 has no inverse in GF({self.order})")
        la = self.log[a].astype(np.int64)
        r = self.exp[(la * e) % (self.order - 1)].astype(np.int64)
        r = np.where(a == 0, np.where(e == 0, 1, 0), r)
        return self._out(r)

    def power_of_primitive(self, i):
        """``primitive ** i`` for integer i (any sign)."""
        return self._out(self.exp[np.asarray(i, dtype=np.int64) % (self.order - 1)].astype(np.int64))

    def dot(self, u, v, axis: int = -1):
        """Sum over ``axis`` of u * v (vectors of field elements)."""
        prod = np.asarray(self.mul(u, v))
        prod = np.moveaxis(prod, axis, -1)
        acc = prod[..., 0]
        for i in range(1, prod.shape[-1]):
            acc = self.add(acc, prod[..., i])
        return self._out(np.asarray(acc))

    def multiplicative_order(self, a: int) -> int:
        """Order of the unit ``a`` in the multiplicative group."""
        a = int(a)
        if a == 0:
            raise ZeroDivisionError("0 is not a unit")
        return (self.order - 1) // math.gcd(int(self.log[a]), self.order - 1)

    def is_primitive(self, a: int) -> bool:
        """True iff ``a`` generates the multiplicative group."""
        return a != 0 and self.multiplicative_order(a) == self.order - 1

    @functools.cached_property
    def squares(self) -> np.ndarray:
        """Sorted array of the non-zero squares."""
        return np.sort(self.exp[: self.order - 1 : 2].astype(np.int64)) if self.characteristic != 2 else self.elements[1:]

    def addition_table(self) -> np.ndarray:
        """The full q x q addition table (for tests and small fields)."""
        e = self.elements
        return np.asarray(self.add(e[:, None], e[None, :]))

    def multiplication_table(self) -> np.ndarray:
        """The full q x q multiplication table (for tests and small fields)."""
        e = self.elements
        return np.asarray(self.mul(e[:, None], e[None, :]))


def _orbit_of_one(perm: np.ndarray, q: int):
    """The powers 1, g, g^2, ... if they cover all q-1 units (g primitive), else None."""
    nxt = perm.tolist()
    walk = [1]
    x = nxt[1]
    while x != 1:
        if x == 0:
            return None
        walk.append(x)
        x = nxt[x]
    return walk if len(walk) == q - 1 else None


@functools.lru_cache(maxsize=64)
def _field(q) -> GF:
    return GF._build(q)


def check_slimfly_q(q) -> int:
    """Validate a Slim Fly field order: a prime power ``q = 4w + δ``, δ in {-1, 0, 1}, w >= 1.

    Returns q as an int; raises ParameterError naming the nearest valid q otherwise.
    The only prime power excluded by the form is q = 2 (q = 4w + 2).
    """
    check_prime_power(
        "q", q, predicate=lambda n: n % 4 != 2, minimum=3,
        what="a prime power of the form 4w+δ with δ in {-1, 0, 1} and w >= 1",
    )
    return int(q)
