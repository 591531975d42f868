"""Fully random topologies: Random(N, d) of Skywalk and RING-n of the layout-conscious
random topologies paper.

Both use the Uniform Random engine of :mod:`topogen.generators.uniform`
(Skywalk II-C) with no constraint on the links.

* **Random(N, d)** (Fujiwara et al., Skywalk, Section III-A): "an unstructured Uniform
  Random topology of degree d generated using the method in Section II-C, but
  considering all N individual switches as vertices, without imposing any
  constraints on the links": ``d`` rounds on all switches, best of 10 instances.
* **RING-n** (Koibuchi et al., Section III-B): "a ring of degree two with n - 2
  additional random shortcut links at each vertex".  The shortcuts come from the
  same algorithm with ``n - 2`` rounds: Section IV-B defines Nbr(p)-n by exactly this
  procedure ("reset V and repeat this process n - 2 times to obtain a topology of
  degree n", the other endpoint chosen among the vertices "not already connected"
  with the first) and states that Nbr(1.0)-n corresponds to RING-n; ring links
  therefore count as "already connected".
"""

from __future__ import annotations

import numpy as np

from .._rng import resolve_seed
from .._validate import check_int
from ..registry import register
from ..topology import Topology
from .uniform import DEFAULT_INSTANCES, best_of_instances, uniform_random_links

__all__ = ["random_topology", "ring"]


@register("random", family="random")
def random_topology(
    num_switches: int,
    degree: int,
    *,
    instances: int = DEFAULT_INSTANCES,
    instance: int | None = None,
    hosts_per_switch: int = 1,
    seed: int | None = None,
) -> Topology:
    """Random(N, d): a Uniform Random topology of degree d on N switches (Skywalk III-A).

    Parameters
    ----------
    num_switches : int
        Number of switches N (at least 2).
    degree : int
        Degree d: the number of rounds of the Uniform Random algorithm, so every
        switch has at most d links (1 <= d <= N - 1).
    instances : int
        Number of instances built from ``child_seeds(seed, instances)``; the connected
        one with the most links is kept (10 in the paper, Section II-C).
    instance : int, optional
        Build only this instance index (as recorded in ``params["instance"]`` of an
        earlier result) instead of selecting the best.
    hosts_per_switch : int
        Compute nodes per switch (the paper's m).
    seed : int, optional
        Seed of all random choices; ``None`` draws one and records it.

    Returns
    -------
    Topology
        ``N`` switches, at most ``N * d / 2`` links; ``params`` records every parameter,
        the resolved ``seed`` and the chosen ``instance``, so that
        ``generate("random", **params)`` rebuilds it directly.

    Raises
    ------
    ParameterError
        For parameters out of range.
    TopologyError
        If none of the instances is connected (raise the degree).

    Notes
    -----
    Skywalk Section III-A ("Random(N, d)") with the construction of Section II-C: ``d``
    rounds, each pairing the switches of a fresh copy ``W`` of all switches at random
    (``v2`` uniform among the switches of ``W`` not yet linked to ``v1``).  A round can
    leave a few switches unpaired, so instances have slightly different link counts;
    the paper keeps the connected instance with the most links among 10.

    The paper assigns the switches of Random to cabinets "arbitrarily"; the default
    (sequential) placement of :func:`topogen.layout.place` is such an assignment,
    since the numbering of a uniform random graph carries no structure.

    References
    ----------
    .. [1] I. Fujiwara, M. Koibuchi, H. Matsutani, H. Casanova, "Skywalk: a Topology
       for HPC Networks with Low-delay Switches", IPDPS 2014, Sections II-C, III-A.
    """
    n = check_int("num_switches", num_switches, 2, hint="; Random needs at least 2 switches")
    d = check_int(
        "degree", degree, 1, n - 1,
        hint=f" (a switch can link to at most N - 1 = {n - 1} others); choose a degree in range",
    )
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    seed = resolve_seed(seed)
    params = dict(num_switches=n, degree=d, instances=instances, instance=instance,
                  hosts_per_switch=hosts, seed=seed)

    def build(s: int) -> Topology:
        edges = uniform_random_links(n, d, rng=s)
        return Topology(n, edges, hosts_per_switch=hosts, name="random", params=params, seed=seed)

    topo, idx, links = best_of_instances(
        build, seed, instances, instance=instance, what=f"Random({n}, {d})"
    )
    return topo.replace(params={**params, "instance": idx})


@register("ring", family="random")
def ring(
    num_switches: int,
    degree: int,
    *,
    instances: int = 1,
    instance: int | None = None,
    hosts_per_switch: int = 1,
    seed: int | None = None,
) -> Topology:
    """RING-n: a ring plus n - 2 random shortcut links per switch (Koibuchi et al. III-B).

    Parameters
    ----------
    num_switches : int
        Number of switches N on the ring (at least 3).
    degree : int
        The paper's n: the ring gives every switch 2 links and ``n - 2`` rounds of the
        Uniform Random algorithm add at most ``n - 2`` shortcuts (2 <= n <= N - 1).
    instances : int
        Number of instances to build and select from (connected instance with the
        most links, lowest index on ties).  The paper builds one (the ring makes every
        instance connected), hence the default 1; 10 gives Skywalk's selection.
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
        ``"shortcut"``; ``params`` records every parameter, the seed, the instance.

    Raises
    ------
    ParameterError
        For parameters out of range.

    Notes
    -----
    Koibuchi et al., Section III-B ("RING-n: a ring of degree two with n - 2
    additional random shortcut links at each vertex", after Koibuchi et al. ISCA
    2012).  The shortcuts follow the procedure the paper spells out in Section IV-B
    for Nbr(p)-n, of which RING-n is the case p = 1: ``n - 2`` rounds; in each, a
    random vertex ``u`` of a fresh copy ``V`` of all vertices is joined to a vertex
    chosen uniformly among the vertices of ``V`` not already connected with ``u``
    (ring links included), and both leave ``V``.  This is the Uniform Random
    algorithm of Skywalk II-C with the ring as existing links.

    References
    ----------
    .. [1] M. Koibuchi, I. Fujiwara, H. Matsutani, H. Casanova, "Layout-conscious
       Random Topologies for HPC Off-chip Interconnects", HPCA 2013, Sections III-B,
       IV-B.
    .. [2] M. Koibuchi, H. Matsutani, H. Amano, D. F. Hsu, H. Casanova, "A Case for
       Random Shortcut Topologies for HPC Interconnects", ISCA 2012.
    """
    n = check_int("num_switches", num_switches, 3, hint="; a ring needs at least 3 switches")
    d = check_int(
        "degree", degree, 2, n - 1,
        hint=f" (2 ring links plus at most N - 3 = {n - 3} shortcuts); choose n in range",
    )
    hosts = check_int("hosts_per_switch", hosts_per_switch, 0)
    seed = resolve_seed(seed)
    params = dict(num_switches=n, degree=d, instances=instances, instance=instance,
                  hosts_per_switch=hosts, seed=seed)
    v = np.arange(n, dtype=np.int64)
    ring_links = np.stack([v, (v + 1) % n], axis=1)

    def build(s: int) -> Topology:
        shortcuts = uniform_random_links(n, d - 2, rng=s, existing=ring_links)
        edges = np.concatenate([ring_links, shortcuts])
        kinds = np.concatenate([np.zeros(n, np.int8), np.ones(len(shortcuts), np.int8)])
        return Topology(n, edges, hosts_per_switch=hosts, name="ring", params=params, seed=seed,
                        link_kind=kinds, kind_names=("ring", "shortcut"))

    topo, idx, links = best_of_instances(
        build, seed, instances, instance=instance, what=f"RING-{d} on {n} switches"
    )
    return topo.replace(params={**params, "instance": idx})
