"""Traffic patterns of the reference simulator, defined on host ids.

A pattern maps a source host to a destination host.  Hosts are numbered as everywhere
in topogen (the hosts of switch ``v`` are ``host_offset[v] .. host_offset[v] + hosts[v] - 1``).

Patterns
--------
``uniform``
    destination uniform over all other hosts (``self_packets=True``: over all hosts,
    the source included, as BookSim's ``uniform``).
``merlin-uniform``
    destinations drawn exactly as an SST run's ``uniform`` draws them (``merlin.offered_load``
    with ``merlin.targetgen.uniform``): host ``h``'s own sequence from a Mersenne Twister
    seeded with ``h``, never the source (:mod:`topogen.drivers.sst_streams`).  Seedless:
    every run draws the same sequences, those of the SST run.
``bitrev``, ``bitcomp``, ``shuffle``, ``transpose``
    bit permutations of a ``b``-bit address (Slim Fly V-B): bit reversal
    ``d_i = s_(b-i-1)``, bit complement ``d_i = not s_i``, shuffle
    ``d_i = s_((i-1) mod b)`` (rotate left by one), matrix transpose (swap the high and
    low halves of the address; ``b`` even).
``rotate``
    ``d = s`` rotated left by ``floor(b/2)`` bits: the DSN-F paper's (V-A) and the layout
    paper's matrix transpose, "the binary address that is shifted by n/2 bits", read as a
    cyclic shift, which is a permutation of all ``2**b`` hosts for odd ``b`` too (for even
    ``b`` it equals ``transpose``).
``shift``
    Slim Fly V-B: ``d = (s mod N/2) + N/2`` or ``d = s mod N/2``, each with probability 1/2.
``shift:K``
    ``d = (s + K) mod N`` for an integer ``K`` (SST merlin's ``shift`` target generator,
    as ``topogen run sst --traffic shift:K``; not Slim Fly's ``shift`` above).
``tornado``
    ``d = (s + ceil(N/2) - 1) mod N`` (BookSim's one-dimensional tornado).
``neighbor``
    ``d = (s + 1) mod N``.
``randperm``
    a random permutation of the hosts, drawn once from the seed.
``worstcase``
    Slim Fly V-C, the worst case of minimal deterministic routing: for a link
    ``(Rx, Ry)``, a router ``R1`` whose route to ``Rx`` goes through ``Ry`` exchanges
    traffic with ``Rx``, and a router ``R1'`` whose route to ``Ry`` goes through ``Rx``
    exchanges traffic with ``Ry``, so both flows cross the link ``Rx``-``Ry``.  Links
    are visited in a seeded random order and pairs are formed greedily from unused
    routers "until all possibilities are exhausted"; host ``k`` of one router of a pair
    sends to host ``k`` of the other.  Needs the routing; the pattern is defined by its
    *minimal* routes (the base of Valiant/UGAL, the minimal table of an escape routing), so
    MIN, VAL, UGAL-L and UGAL-G with the same base see the same pattern.
``groupshift``
    Dragonfly's worst case (Kim et al., ISCA 2008, Sec. 4.2; the Slim Fly paper's DF
    worst case, V-C): host ``k`` of group ``i`` sends to host ``k`` of group
    ``(i + 1) mod g``, so all of a group's traffic crosses the one global link to the next
    group under minimal routing.  Groups are the Dragonfly generators' groups (``dragonfly``,
    ``cabinet-dragonfly``: switch ``v`` is in group ``cabinet[v]``); other families have
    no groups and are refused.
``halo2d``, ``halo3d``, ``alltoall``, ``butterfly``, ``npb-cg``, ``npb-ep``, ``npb-ft``,
``npb-is``, ``npb-lu``, ``npb-mg``, ``himeno``
    application-like patterns (:mod:`topogen.sim.app_traffic`): the destination of each
    packet drawn per source with the weights of a nearest-neighbour grid, an all-to-all,
    recursive doubling, or the messages of one iteration of an NPB kernel or Himeno.
``adversarial``
    the worst case the papers define for the topology's family (Slim Fly Fig. 6d):
    ``worstcase`` on a Slim Fly, ``groupshift`` on a Dragonfly; refused for families
    without one.

Non-power-of-two host counts
----------------------------
The bit permutations and ``shift`` need ``N`` to be a power of two (``transpose``: an
even power of two).  As in the Slim Fly paper (V-B: "we artificially prevent some
endpoints from sending and receiving packets"), only the first ``M`` hosts take part,
``M`` the largest (even, for ``transpose``) power of two ``<= N``; hosts ``M..N-1``
neither send nor receive.  ``worstcase`` leaves the hosts of unpaired routers idle.
Rates in the results are per *active* (sending) host.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .app_traffic import APP_PATTERNS, destination_table

__all__ = ["PATTERNS", "ADVERSARIAL", "Traffic", "BernoulliArrivals", "TRAFFIC_STREAM"]

#: version of the random stream that generates packets (creation times, destinations,
#: random routes): 2 = Bernoulli creation times drawn as geometric gaps per host (cost
#: proportional to the packets made), 1 = one uniform per host and cycle.  The
#: same seed gives other packets under another stream, so every reference-simulator row
#: records it (``params.traffic_stream``) and resume keys never match rows of another one.
TRAFFIC_STREAM = 2

#: a gap this long or longer means "never" (keeps next-creation times far from overflow)
_FAR = 1 << 60

PATTERNS = ("uniform", "merlin-uniform", "bitrev", "bitcomp", "shuffle", "transpose", "rotate", "shift", "tornado",
            "neighbor", "randperm", "worstcase", "groupshift", "adversarial") + APP_PATTERNS

#: topology (generator) name -> its worst-case pattern (``adversarial``)
ADVERSARIAL = {"slimfly": "worstcase", "dragonfly": "groupshift", "cabinet-dragonfly": "groupshift"}
#: generators whose switches form Dragonfly groups (group of switch v = cabinet[v])
_GROUPED = ("dragonfly", "cabinet-dragonfly")

_ALIASES = {"bit_reverse": "bitrev", "bitreverse": "bitrev", "bit_complement": "bitcomp",
            "bitcomplement": "bitcomp", "neighbour": "neighbor", "random_permutation": "randperm",
            "worst_case": "worstcase", "worst": "worstcase", "uniform_random": "uniform",
            "group_shift": "groupshift", "group-shift": "groupshift"}


def _bit_reverse(x: np.ndarray, b: int) -> np.ndarray:
    out = np.zeros_like(x)
    for i in range(b):
        out |= ((x >> i) & 1) << (b - 1 - i)
    return out


class Traffic:
    """A traffic pattern over ``num_hosts`` hosts.

    Parameters
    ----------
    pattern : str
        One of :data:`PATTERNS`.
    num_hosts : int
    rng : numpy.random.Generator
        Draws the fixed parts of a pattern (``randperm``, ``worstcase`` link order); the
        per-packet draws (``uniform``, ``shift``) use the generator given to
        :meth:`destinations`.
    routing : Routing, optional
        Needed by ``worstcase``.
    self_packets : bool
        ``uniform`` only: allow the source as destination (BookSim's definition).

    Attributes
    ----------
    active : ndarray of int64
        Hosts that send (sorted).
    """

    def __init__(self, pattern: str, num_hosts: int, rng: np.random.Generator, *, routing=None,
                 self_packets: bool = False):
        name = _ALIASES.get(str(pattern).lower(), str(pattern).lower())
        offset = None
        if name.startswith("shift:"):
            try:
                offset = int(name[6:])
            except ValueError:
                raise ParameterError(f"traffic {pattern!r}: shift:K needs an integer K, e.g. "
                                     f"shift:1") from None
            name = "shift"
        if name not in PATTERNS:
            raise ParameterError(f"traffic must be one of {', '.join(PATTERNS)}, got {pattern!r}")
        n = int(num_hosts)
        if n < 2:
            raise ParameterError(f"traffic needs at least 2 hosts, got {n}")
        if name == "adversarial":
            name = _adversarial(routing)
        self.name = name
        self.num_hosts = n
        self.self_packets = bool(self_packets)
        self._perm: np.ndarray | None = None  # fixed destination of each host (-1 idle)
        self._table = None  # application-like patterns: weighted destinations per source
        self._streams = None  # merlin-uniform: SST's destination sequence of each host
        hosts = np.arange(n, dtype=np.int64)
        if offset is not None:
            self.name = f"shift:{offset}"
            self._perm = (hosts + offset) % n
            self.active = hosts if offset % n else hosts[:0]
            if not len(self.active):
                raise ParameterError(f"traffic shift:{offset} sends every host to itself on "
                                     f"{n} hosts; choose K not a multiple of {n}")
        elif name in ("bitrev", "bitcomp", "shuffle", "transpose", "rotate", "shift"):
            b = n.bit_length() - 1
            if name == "transpose" and b % 2:
                b -= 1
            if b < 1:
                raise ParameterError(f"{name} traffic needs at least 2 hosts (4 for transpose)")
            m = 1 << b
            self.bits = b
            self.active_count = m
            x = hosts[:m]
            if name == "bitrev":
                d = _bit_reverse(x, b)
            elif name == "bitcomp":
                d = (~x) & (m - 1)
            elif name == "shuffle":
                d = ((x << 1) | (x >> (b - 1))) & (m - 1)
            elif name == "transpose":
                h = b // 2
                d = ((x & ((1 << h) - 1)) << h) | (x >> h)
            elif name == "rotate":
                h = b // 2
                d = ((x << h) | (x >> (b - h))) & (m - 1)
            else:
                d = None
            if d is not None:
                self._perm = np.full(n, -1, dtype=np.int64)
                self._perm[:m] = d
            self.active = x
        elif name in APP_PATTERNS:
            self._table = destination_table(name, n)
            self.active = self._table.sources
        elif name == "tornado":
            self._perm = (hosts + (n + 1) // 2 - 1) % n
            self.active = hosts
        elif name == "neighbor":
            self._perm = (hosts + 1) % n
            self.active = hosts
        elif name == "randperm":
            self._perm = rng.permutation(n).astype(np.int64)
            self.active = hosts
        elif name == "groupshift":
            if routing is None:
                raise ParameterError("groupshift traffic needs the routing (its topology's groups)")
            self._perm = _group_shift(routing.topology)
            if len(self._perm) != n:
                raise ParameterError(f"groupshift: the topology has {len(self._perm)} hosts, "
                                     f"traffic was asked for {n}")
            self.active = np.flatnonzero(self._perm >= 0)
        elif name == "worstcase":
            if routing is None:
                raise ParameterError("worstcase traffic needs the routing (its minimal routes)")
            self._perm = _worst_case(_minimal(routing), rng)
            self.active = np.flatnonzero(self._perm >= 0)
            if not len(self.active):
                raise ParameterError("worstcase traffic found no router pairs on this topology "
                                     "(needs routes of two hops)")
        else:
            if name == "merlin-uniform":
                from ..drivers.sst_streams import MerlinUniformStreams

                self._streams = MerlinUniformStreams(n)
            self.active = hosts
        self.active = np.asarray(self.active, dtype=np.int64)

    def destinations(self, src: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Destination host of each source host in ``src`` (active hosts only)."""
        src = np.asarray(src, dtype=np.int64)
        if self._perm is not None:
            return self._perm[src]
        if self._table is not None:
            return self._table.draw(src, rng)
        if self._streams is not None:
            return self._streams.draw(src)
        if self.name == "uniform":
            if self.self_packets:
                return rng.integers(0, self.num_hosts, size=len(src), dtype=np.int64)
            d = rng.integers(0, self.num_hosts - 1, size=len(src), dtype=np.int64)
            return d + (d >= src)
        # shift
        half = self.active_count // 2
        up = rng.random(len(src)) < 0.5
        return (src % half) + np.where(up, half, 0)

    def describe(self) -> dict:
        out = {"pattern": self.name, "active_hosts": int(len(self.active))}
        if self.name == "uniform":
            out["self_packets"] = self.self_packets
        return out


class BernoulliArrivals:
    """Bernoulli packet creation on ``num_sources`` hosts, drawn hit by hit.

    Every cycle each source creates a packet with probability ``p``, independently: the
    gaps between a source's creations are geometric (``P(gap = k) = (1 - p)**(k - 1) p``,
    ``k >= 1``) and its first creation is at ``geometric(p) - 1``.  Drawing the gaps
    instead of one uniform per source and cycle makes the cost proportional to the
    packets created (the same process, another random stream: :data:`TRAFFIC_STREAM`).

    Parameters
    ----------
    num_sources : int
    p : float
        Creation probability per source and cycle, in (0, 1].
    rng : numpy.random.Generator
        Draws the gaps (the first ones when the first window is taken).
    """

    def __init__(self, num_sources: int, p: float, rng: np.random.Generator):
        if not 0.0 < p <= 1.0:
            raise ParameterError(f"Bernoulli injection needs a probability in (0, 1] per host "
                                 f"and cycle, got {p!r}")
        self.num_sources = int(num_sources)
        self.p = float(p)
        self.rng = rng
        self._next: np.ndarray | None = None  # next creation cycle of each source
        self._end = 0

    def take(self, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
        """The creations in cycles ``t0 .. t1 - 1`` (windows taken back to back from the
        first ``t0``): (cycles, source indices), ordered by cycle, then source."""
        n = self.num_sources
        if self._next is None:
            self._next = t0 - 1 + np.minimum(self.rng.geometric(self.p, n), _FAR)
        elif t0 != self._end:
            raise ParameterError(f"Bernoulli windows must follow each other (cycle {t0} after "
                                 f"{self._end})")
        self._end = t1
        nxt = self._next
        idx = np.flatnonzero(nxt < t1)
        w = t1 - t0
        # the keys (cycle - t0) * n + source are unique: where the window is dense (a hit
        # per 16 cells or more) they are marked in a (cycle, source) table and read back in
        # order, which costs less than sorting them
        dense = w * n <= min(16 * self.p * w * n + 4096, 1 << 26)
        hits = np.zeros(w * n if dense else 0, dtype=bool)
        keys = []
        while len(idx):
            t = nxt[idx]
            if dense:
                hits[(t - t0) * n + idx] = True
            else:
                keys.append((t - t0) * n + idx)  # unique per (cycle, source)
            t = t + np.minimum(self.rng.geometric(self.p, len(idx)), _FAR)
            nxt[idx] = t
            idx = idx[t < t1]
        if dense:
            k = np.flatnonzero(hits)
        elif keys:
            k = np.sort(np.concatenate(keys))
        else:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return k // n + t0, k % n


def _worst_case(routing, rng: np.random.Generator) -> np.ndarray:
    """Host destination array of the Slim Fly V-C worst case (-1 = idle host)."""
    topo = routing.topology
    n = topo.num_switches
    hosts = np.asarray(topo.hosts, dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(hosts)[:-1]]).astype(np.int64)
    edges = np.asarray(topo.edges, dtype=np.int64)
    order = rng.permutation(len(edges))
    used = np.zeros(n, dtype=bool)
    nbrs = [topo.neighbors(v) for v in range(n)]
    adj = [set(map(int, a)) for a in nbrs]

    def second_hop(a: int, target: int) -> int:
        sw, _ = routing.path(a, target)
        return int(sw[1]) if len(sw) == 3 else -1

    pairs = []
    for k in order:
        x, y = int(edges[k, 0]), int(edges[k, 1])
        if rng.random() < 0.5:
            x, y = y, x
        if used[x] or used[y]:
            continue
        a_found = b_found = -1
        for a in map(int, nbrs[y]):
            if a != x and not used[a] and a not in adj[x] and second_hop(a, x) == y:
                a_found = a
                break
        if a_found < 0:
            continue
        for b in map(int, nbrs[x]):
            if b != y and b != a_found and not used[b] and b not in adj[y] and second_hop(b, y) == x:
                b_found = b
                break
        if b_found < 0:
            continue
        for u in (x, y, a_found, b_found):
            used[u] = True
        pairs.append((a_found, x))
        pairs.append((b_found, y))
    perm = np.full(int(hosts.sum()), -1, dtype=np.int64)
    for u, w in pairs:
        k = int(min(hosts[u], hosts[w]))
        hu = offset[u] + np.arange(k)
        hw = offset[w] + np.arange(k)
        perm[hu] = hw
        perm[hw] = hu
    return perm


def _minimal(routing):
    """The minimal table routing behind ``routing`` (Valiant/UGAL base, escape minimal)."""
    base = getattr(routing, "base", None)
    if base is not None:
        return base
    minimal = getattr(routing, "minimal", None)
    if minimal is not None and getattr(routing, "escape_routing", None) is not None:
        return minimal
    return routing


def _adversarial(routing) -> str:
    """The pattern ``adversarial`` stands for on ``routing``'s topology."""
    if routing is None:
        raise ParameterError("adversarial traffic needs the routing (its topology's family)")
    name = routing.topology.name
    if name not in ADVERSARIAL:
        raise ParameterError(
            f"adversarial traffic is defined for {', '.join(sorted(ADVERSARIAL))} (the papers' "
            f"worst cases), not for {name!r}; use worstcase (Slim Fly V-C, any topology with "
            "2-hop minimal routes) or another pattern")
    return ADVERSARIAL[name]


def _group_shift(topo) -> np.ndarray:
    """Host destination array of Dragonfly's group shift (-1 = idle host)."""
    if topo.name not in _GROUPED or topo.cabinet is None:
        raise ParameterError(
            f"groupshift traffic needs Dragonfly groups (topologies made by "
            f"{' or '.join(_GROUPED)}); {topo.name!r} has none: use worstcase or adversarial")
    group = np.asarray(topo.cabinet, dtype=np.int64)
    hosts = np.asarray(topo.hosts, dtype=np.int64)
    g = int(group.max()) + 1
    if g < 2:
        raise ParameterError("groupshift traffic needs at least 2 Dragonfly groups, got 1")
    host_group = np.repeat(group, hosts)
    members = [np.flatnonzero(host_group == i) for i in range(g)]
    perm = np.full(int(hosts.sum()), -1, dtype=np.int64)
    for i in range(g):
        src, dst = members[i], members[(i + 1) % g]
        k = min(len(src), len(dst))
        perm[src[:k]] = dst[:k]
    return perm
