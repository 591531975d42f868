"""Constrained shortcutting (Koibuchi et al., Section IV-B): Nbr(p)-n and Gau(alpha)-n.

Both start from an N-switch ring and add ``n - 2`` rounds of shortcuts with the
procedure of Section IV-B, which is the Uniform Random engine of
:mod:`topogen.generators.uniform` (Skywalk II-C) with the ring as existing links:

    "Consider V, the set of all vertices on the ring.  Given a randomly selected
    shortcut endpoint u in V, the other endpoint v is randomly selected among the
    vertices in V^p ∩ V_u, where V^p is the set of vertices that are less than N·p/2
    hops away from u along the ring, and V_u is the set of vertices that are not
    already connected with u.  If such a v is found, then connect u and v and remove
    them from V; otherwise simply remove u from V.  Repeat this process until V is
    empty.  Reset V and repeat this process n - 2 times to obtain a topology of degree
    n.  Nbr(1.0)-n corresponds to RING-n."

* **Nbr(p)-n**: ``v`` uniform among the vertices of V within the ring-hop bound.  The
  paper writes "less than N·p/2 hops" but also "Nbr(1.0)-n corresponds to RING-n"; for
  even N these disagree on the antipodal vertex (exactly N/2 hops away), which RING-n
  may pick.  By default the bound is inclusive (``hops <= N·p/2``) so that Nbr(1.0)-n
  *is* RING-n: with the same seed, :func:`nbr` with ``p = 1`` returns exactly the links
  of :func:`topogen.generators.random.ring`.  ``strict=True`` gives the literal "less
  than".
* **Gau(alpha)-n**: "v is selected among the vertices in V_u, so that the distance from
  u is picked randomly by sampling a Gaussian distribution with mean 0 and standard
  deviation N·alpha/2, truncated so that it takes values between -N/2 and +N/2.  A
  positive, resp. negative value, means that the path between u and v is going
  clockwise, resp. counter-clockwise".  The signed distance is an integer number of
  hops, so the Gaussian is discretised by rounding: the offset ``k`` has probability
  ``P(round(X) = k | -N/2 <= X <= N/2)``, ``X ~ N(0, (N alpha / 2)^2)``.  Sampling
  until the offset lands on an available vertex (in V, not yet connected to u) is the
  same as choosing among the available vertices with probability proportional to the
  mass of their offset(s) (clockwise ``k`` and counter-clockwise ``k - N``, both when
  within the truncation), which is what is done.

Both keep RING-n's ``instances`` option (the paper builds one instance: the ring makes
every instance connected).
"""

from __future__ import annotations

import numpy as np

from .._rng import make_rng, resolve_seed
from .._validate import check_float, check_int
from ..registry import register
from ..topology import Topology
from .uniform import best_of_instances, uniform_random_links

__all__ = ["nbr", "gau", "ring_hops", "gaussian_offset_weights"]


def ring_hops(num_switches: int, u, v) -> np.ndarray:
    """Hops between switches ``u`` and ``v`` along an ``num_switches``-ring."""
    d = (np.asarray(v) - np.asarray(u)) % num_switches
    return np.minimum(d, num_switches - d)


def gaussian_offset_weights(num_switches: int, alpha: float) -> np.ndarray:
    """Probability of each clockwise offset ``k = 0 .. N-1`` under Gau(alpha) (IV-B).

    ``w[k]`` is the probability that the rounded truncated Gaussian signed distance is
    ``k`` or ``k - N`` (the two ways of reaching the vertex ``k`` hops clockwise), with
    the Gaussian of mean 0 and standard deviation ``N alpha / 2`` truncated to
    ``[-N/2, N/2]``.  ``w`` sums to 1; ``w[0]`` is the mass at offset 0 (no shortcut),
    which never matters because a vertex is never its own partner.
    """
    from scipy.special import ndtr  # here, not at import: `topogen list` stays light

    n = int(num_switches)
    sigma = n * float(alpha) / 2.0
    half = n / 2.0
    k = np.arange(n, dtype=float)

    def mass(delta):
        lo = np.maximum(delta - 0.5, -half)
        hi = np.minimum(delta + 0.5, half)
        return np.where(hi > lo, ndtr(hi / sigma) - ndtr(lo / sigma), 0.0)

    w = mass(k) + np.where(k > 0, mass(k - n), 0.0)
    return w / w.sum()


def _shortcut_ring(name, n, d, instances, instance, hosts, seed, params, allowed=None, weight=None):
    v = np.arange(n, dtype=np.int64)
    ring_links = np.stack([v, (v + 1) % n], axis=1)

    def build(s: int) -> Topology:
        shortcuts = uniform_random_links(n, d - 2, rng=s, existing=ring_links,
                                         allowed=allowed, weight=weight)
        edges = np.concatenate([ring_links, shortcuts])
        kinds = np.concatenate([np.zeros(n, np.int8), np.ones(len(shortcuts), np.int8)])
        return Topology(n, edges, hosts_per_switch=hosts, name=name, params=params, seed=seed,
                        link_kind=kinds, kind_names=("ring", "shortcut"))

    topo, idx, _ = best_of_instances(build, seed, instances, instance=instance,
                                     what=f"{name} on {n} switches")
    return topo.replace(params={**params, "instance": idx})


def _common(num_switches, degree, hosts_per_switch):
    n = check_int("num_switches", num_switches, 3, hint="; a ring needs at least 3 switches")
    d = check_int(
        "degree", degree, 2, n - 1,
        hint=f" (2 ring links plus at most N - 3 = {n - 3} shortcuts); choose n in range",
    )
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    return n, d, hosts


@register("nbr", family="shortcut")
def nbr(
    num_switches: int,
    degree: int,
    p: float,
    *,
    strict: bool = False,
    instances: int = 1,
    instance: int | None = None,
    hosts_per_switch: int = 1,
    seed: int | None = None,
) -> Topology:
    """Nbr(p)-n: a ring plus n - 2 rounds of shortcuts of bounded ring length (Koibuchi et al. IV-B).

    Parameters
    ----------
    num_switches : int
        Number of switches N on the ring (>= 3).
    degree : int
        The paper's n: 2 ring links plus ``n - 2`` shortcut rounds (2 <= n <= N - 1).
    p : float
        Locality in (0, 1]: a shortcut joins switches at most ``N p / 2`` ring hops apart
        (``p = 1``: no constraint, RING-n).
    strict : bool
        Use the paper's literal "less than N·p/2 hops" instead of "at most"; then
        Nbr(1.0)-n excludes antipodal shortcuts for even N and differs from RING-n.
    instances : int
        Instances built (connected instance with the most links kept); 1 as in the paper.
    instance : int, optional
        Build only this instance index (as recorded in ``params["instance"]``).
    hosts_per_switch : int
        Compute nodes per switch.
    seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        Ring links ``(i, i + 1 mod N)`` labelled ``"ring"`` and shortcuts labelled
        ``"shortcut"``; ``params`` records every parameter, the seed and the instance.

    Raises
    ------
    ParameterError
        If ``p`` is outside (0, 1] or another parameter is out of range.

    Notes
    -----
    Section IV-B (quoted in the module docstring), run by the Uniform Random engine
    with the ring as existing links and the hop bound as constraint.  With the default
    inclusive bound, ``nbr(N, n, 1.0, seed=s)`` has exactly the links of
    ``ring(N, n, seed=s)`` (RING-n, Section III-B).  A bound below 2 hops leaves no
    possible shortcut (ring neighbours are already connected), so the result is the ring.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Section IV-B.
    """
    n, d, hosts = _common(num_switches, degree, hosts_per_switch)
    pf = check_float("p", p, 0.0, 1.0, min_open=True,
                     hint="; Nbr(p)-n needs 0 < p <= 1 (p = 1 is RING-n)")
    strict = bool(strict)
    seed = resolve_seed(seed)
    params = dict(num_switches=n, degree=d, p=pf, strict=strict, instances=instances,
                  instance=instance, hosts_per_switch=hosts, seed=seed)
    bound = n * pf / 2.0
    unconstrained = (n // 2 < bound) if strict else (n // 2 <= bound)
    if unconstrained:
        allowed = None  # every pair allowed: exactly RING-n's draw
    elif strict:
        allowed = lambda u, v: ring_hops(n, u, v) < bound  # noqa: E731
    else:
        allowed = lambda u, v: ring_hops(n, u, v) <= bound  # noqa: E731
    return _shortcut_ring("nbr", n, d, instances, instance, hosts, seed, params, allowed=allowed)


@register("gau", family="shortcut")
def gau(
    num_switches: int,
    degree: int,
    alpha: float,
    *,
    instances: int = 1,
    instance: int | None = None,
    hosts_per_switch: int = 1,
    seed: int | None = None,
) -> Topology:
    """Gau(alpha)-n: a ring plus shortcuts of truncated-Gaussian ring length (Koibuchi et al. IV-B).

    Parameters
    ----------
    num_switches : int
        Number of switches N on the ring (>= 3).
    degree : int
        The paper's n: 2 ring links plus ``n - 2`` shortcut rounds (2 <= n <= N - 1).
    alpha : float
        Spread (> 0): the signed ring distance of a shortcut follows a Gaussian of
        standard deviation ``N alpha / 2`` truncated to [-N/2, N/2].
    instances : int
        Instances built (connected instance with the most links kept); 1 as in the paper.
    instance : int, optional
        Build only this instance index (as recorded in ``params["instance"]``).
    hosts_per_switch : int
        Compute nodes per switch.
    seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        Ring links labelled ``"ring"`` and shortcuts labelled ``"shortcut"``.

    Raises
    ------
    ParameterError
        If ``alpha <= 0`` or another parameter is out of range.

    Notes
    -----
    Section IV-B.  The second endpoint is chosen among the vertices of V not yet
    connected to the first with probability proportional to
    :func:`gaussian_offset_weights` of its clockwise offset (the rounded truncated
    Gaussian; see the module docstring for why this equals re-sampling the Gaussian
    until an available vertex is hit).  Large ``alpha`` tends to RING-n.

    As printed, sigma = N alpha / 2 makes Gau(0.7) nearly RING-n (N = 256: mean shortcut
    53-56 ring hops against RING-8's 64, same diameter and average shortest path); the
    paper's results (Gau(0.7) with Nbr(0.4) in Fig. 13, Gau(1.0) like Nbr(0.5) in IV-C)
    fit a sigma about three times smaller (``alpha`` about 0.3 x the paper's here; see
    docs/reproductions.md, layout-sim Fig. 13).

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious Random
       Topologies for HPC Off-chip Interconnects", HPCA 2013, Section IV-B.
    """
    n, d, hosts = _common(num_switches, degree, hosts_per_switch)
    a = check_float("alpha", alpha, 0.0, None, min_open=True,
                    hint="; Gau(alpha)-n needs alpha > 0 (standard deviation N·alpha/2)")
    seed = resolve_seed(seed)
    params = dict(num_switches=n, degree=d, alpha=a, instances=instances, instance=instance,
                  hosts_per_switch=hosts, seed=seed)
    table = gaussian_offset_weights(n, a)
    v = np.arange(n, dtype=np.int64)
    ring_links = np.stack([v, (v + 1) % n], axis=1)

    def build(s: int) -> Topology:
        shortcuts = _gaussian_rounds(n, d - 2, table, make_rng(s))
        edges = np.concatenate([ring_links, shortcuts])
        kinds = np.concatenate([np.zeros(n, np.int8), np.ones(len(shortcuts), np.int8)])
        return Topology(n, edges, hosts_per_switch=hosts, name="gau", params=params, seed=seed,
                        link_kind=kinds, kind_names=("ring", "shortcut"))

    topo, idx, _ = best_of_instances(build, seed, instances, instance=instance,
                                     what=f"gau on {n} switches")
    return topo.replace(params={**params, "instance": idx})


def _gaussian_rounds(n: int, rounds: int, table: np.ndarray, rng: np.random.Generator,
                     max_rejections: int = 32) -> np.ndarray:
    """The IV-B procedure with Gau's choice of the second endpoint, by rejection sampling.

    Each round: ``W`` = all vertices; ``u`` uniform in ``W`` is removed; an offset ``k``
    is drawn from ``table`` (the discretised truncated Gaussian) and ``c = u + k mod N``
    is accepted if it is still in ``W`` and not yet connected to ``u`` -- the accepted
    vertex then has probability proportional to ``table`` among the valid ones, exactly
    the paper's choice.  After ``max_rejections`` failures the valid vertices of ``W``
    are listed and one is drawn with those probabilities (also exact), or none if there
    is no valid vertex.  ``u`` (and ``v``) leave ``W``.
    """
    cum = np.cumsum(table)
    total = float(cum[-1])
    adj = [set(((x - 1) % n, (x + 1) % n)) for x in range(n)]
    out_u: list[int] = []
    out_v: list[int] = []
    block = 1 << 14
    offs: list[int] = []
    unis: list[float] = []
    ko = ku = 0
    for _ in range(rounds):
        W = list(range(n))
        pos = list(range(n))
        size = n
        while size:
            if ku >= len(unis):
                unis, ku = rng.random(block).tolist(), 0
            i = int(unis[ku] * size)
            ku += 1
            u = W[i]
            size -= 1
            last = W[size]
            W[i] = last
            pos[last] = i
            pos[u] = -1
            if not size:
                break
            A = adj[u]
            v2 = -1
            for _ in range(max_rejections):
                if ko >= len(offs):
                    offs = np.searchsorted(cum, rng.random(block) * total, side="right").tolist()
                    ko = 0
                c = (u + offs[ko]) % n
                ko += 1
                if pos[c] >= 0 and c not in A:
                    v2 = c
                    break
            else:
                cand = np.asarray([c for c in W[:size] if c not in A], dtype=np.int64)
                if cand.size:
                    w = np.cumsum(table[(cand - u) % n])
                    if w[-1] > 0:
                        if ku >= len(unis):
                            unis, ku = rng.random(block).tolist(), 0
                        j = int(np.searchsorted(w, unis[ku] * w[-1], side="right"))
                        ku += 1
                        v2 = int(cand[min(j, cand.size - 1)])
            if v2 >= 0:
                j = pos[v2]
                size -= 1
                last = W[size]
                W[j] = last
                pos[last] = j
                pos[v2] = -1
                A.add(v2)
                adj[v2].add(u)
                out_u.append(u)
                out_v.append(v2)
    if not out_u:
        return np.zeros((0, 2), dtype=np.int64)
    return np.stack([np.asarray(out_u, dtype=np.int64), np.asarray(out_v, dtype=np.int64)], axis=1)
