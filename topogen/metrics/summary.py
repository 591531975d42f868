"""One flat dictionary of a topology's (or layout's) figures, for tables and the CLI."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ParameterError
from ..topology import Topology, as_topology
from .hops import distance_stats
from .latency import ROUTINGS, latency_stats

__all__ = ["analyze", "degree_stats", "cable_stats"]


def degree_stats(topology) -> dict[str, Any]:
    """Switch degrees (links per switch, hosts excluded).

    Returns
    -------
    dict
        ``degree_max``, ``degree_min`` (int) and ``degree_avg`` (float, ``2E / N``).
    """
    topology = as_topology(topology)
    deg = topology.degrees
    return {
        "degree_max": int(deg.max()),
        "degree_min": int(deg.min()),
        "degree_avg": float(2 * topology.num_links / topology.num_switches),
    }


def cable_stats(layout) -> dict[str, Any]:
    """Cable lengths of a layout (Skywalk III-A cable model of its floor).

    Returns
    -------
    dict
        ``cable_total_m``, ``cable_avg_m``, ``cable_max_m`` (metres; 0 without links),
        ``intra_links`` and ``inter_links`` (links inside one cabinet / between cabinets).
    """
    if isinstance(layout, Topology) or not hasattr(layout, "cable_length"):
        raise ParameterError("cable_stats needs a Layout; place the topology on a floor first")
    length = np.asarray(layout.cable_length, dtype=np.float64)
    intra = np.asarray(layout.is_intra, dtype=bool)
    return {
        "cable_total_m": float(length.sum()),
        "cable_avg_m": float(length.mean()) if len(length) else 0.0,
        "cable_max_m": float(length.max()) if len(length) else 0.0,
        "intra_links": int(intra.sum()),
        "inter_links": int(len(intra) - intra.sum()),
    }


def analyze(obj, *, switch_delay: float = 60.0, routings: Sequence[str] = ("fr", "nr"),
            sample: int | None = None, seed=None, hops: bool = True, bisection: bool = False,
            bisection_runs: int = 4, bisection_method: str = "auto", kahip_mode: str = "eco",
            resilience_trials: int = 0, cost=False, progress=None) -> dict[str, Any]:
    """Everything about a topology or layout in one flat dictionary.

    Parameters
    ----------
    obj : Topology or Layout
        With a Topology only graph figures are given; a Layout adds cables and latency.
    switch_delay : float
        Switch delay in ns for the latency figures (Skywalk: 60).
    routings : sequence of {"fr", "nr"}
        Routings whose latency to report (Layout only); empty for none.
    sample : int, optional
        Measure hops and latency from this many random sources (seeded) instead of all;
        ``sampled`` is then True and maxima are lower bounds.
    seed : int, optional
        Seed of the sample; the same sources are used for hops and every routing.
    hops : bool
        Compute ``diameter`` and ``aspl``.
    bisection : bool
        Add the measured bisection (:func:`topogen.metrics.bisection.bisection`:
        ``bisection_links``, ``bisection_lower_bound``, ``bisection_exact``,
        ``bisection_method``), best of ``bisection_runs`` seeded runs per partitioner.
    bisection_runs : int
        Seeded METIS/KaHIP runs for ``bisection``.
    bisection_method, kahip_mode : str
        ``method`` and ``kahip_mode`` of :func:`topogen.metrics.bisection.bisection`
        (``"auto"``: the best of METIS and KaHIP; ``"metis"`` alone takes seconds where
        KaHIP ``eco`` takes an hour, at 10^5 switches).
    resilience_trials : int
        If > 0, add Slim Fly III-D resilience with this many seeded failure orders
        (:func:`topogen.metrics.resilience.resilience`: ``resilience_disconnection``,
        ``resilience_diameter``, ``resilience_aspl`` as failure fractions,
        ``resilience_trials``).  With ``sample`` the failure states' diameter and aspl
        are estimated from ``sample`` sources per trial (``resilience(..., sample=)``),
        adding ``resilience_sample``, ``resilience_aspl_stderr`` and
        ``resilience_diameter_upper_bound``.
    cost : bool or CostModel
        Add cost and power (Layout only; :func:`topogen.metrics.cost.network_cost`
        with the given model, or the Slim Fly paper's when True): ``electric_cables``,
        ``optical_cables``, ``router_cost``, ``cable_cost``, ``total_cost``,
        ``cost_per_endpoint`` ($), ``power_w``, ``power_per_endpoint`` (W).
    progress : callable, optional
        Called as ``progress(stage, done, total)`` while measuring (``stage`` is
        ``"hops"`` or ``"<routing> latency"``; ``done`` and ``total`` count sources).

    Returns
    -------
    dict
        Keys, in this order, when applicable: ``name``, ``switches``, ``hosts``,
        ``links``, ``degree_max``, ``degree_min``, ``degree_avg``, ``links_<kind>`` for
        each link kind (labelled topologies only), ``cable_total_m``, ``cable_avg_m``,
        ``cable_max_m``, ``intra_links``, ``inter_links`` (Layout), ``diameter``,
        ``aspl`` (``hops``), ``fr_max_ns``, ``fr_avg_ns``, ``fr_max_hops``,
        ``fr_avg_hops``, ``nr_max_ns``, ``nr_avg_ns``, ``nr_max_hops``, ``nr_avg_hops``
        (Layout, per routing), the bisection, resilience and cost keys when asked,
        ``sampled``.  With ``sample``, also ``aspl_stderr``
        and ``<routing>_avg_ns_stderr`` (standard errors of the estimates, 0 when every
        switch was a source) after their figures, and ``sample_sources``,
        ``sample_seed`` at the end; with bisection or resilience, ``analysis_seed`` (the
        seed of their runs) last.

    Raises
    ------
    ParameterError
        For an object that is neither, or an unknown routing.
    TopologyError
        If hops or latency are asked of a disconnected topology.

    Notes
    -----
    Without ``sample`` hops and each routing run one search per switch, ``O(N (N + E))``
    in all: about a minute at 16,384 switches of degree 16, hours at 100,000 (on 2
    cores); :func:`topogen.metrics.effort.estimate_effort` measures the cost on the
    network first, and ``sample=1000`` gives the figures with standard errors in
    seconds to a minute.
    ``aspl`` is over ordered pairs of distinct switches (denominator ``N(N-1)``);
    latencies follow Skywalk (Fujiwara et al.) II-E and III-A, NR ties broken towards
    the lowest latency (see :mod:`topogen.metrics.latency`).
    """
    topology = as_topology(obj)
    layout = None if isinstance(obj, Topology) else obj
    routings = [str(r).lower() for r in (routings or ())]
    for r in routings:
        if r not in ROUTINGS:
            raise ParameterError(f"routings must be drawn from {', '.join(ROUTINGS)}, got {r!r}")
    randomized = sample is not None or bisection or resilience_trials
    if randomized:
        from .._rng import resolve_seed

        seed = resolve_seed(seed)
    if cost is not False and cost is not None and layout is None:
        raise ParameterError("cost needs a Layout (cable lengths come from the floor); place the topology first")
    out: dict[str, Any] = {
        "name": topology.name,
        "switches": topology.num_switches,
        "hosts": topology.num_hosts,
        "links": topology.num_links,
    }
    out.update(degree_stats(topology))
    if topology.link_kind is not None:
        for kind, count in topology.link_counts().items():
            out[f"links_{kind}"] = int(count)
    if layout is not None:
        out.update(cable_stats(layout))
    sampled = False
    if hops:
        if progress is not None:
            progress("hops", 0, 0)
        h = distance_stats(topology, sample=sample, seed=seed)
        out["diameter"] = h.diameter
        out["aspl"] = h.aspl
        if sample is not None:
            out["aspl_stderr"] = h.stderr
        sampled = sampled or not h.exact
    if layout is not None:
        for r in dict.fromkeys(routings):
            report = None if progress is None else (lambda done, total, r=r: progress(f"{r} latency", done, total))
            s = latency_stats(layout, switch_delay=switch_delay, routing=r, sample=sample, seed=seed,
                              progress=report)
            out[f"{r}_max_ns"] = s.max
            out[f"{r}_avg_ns"] = s.avg
            if sample is not None:
                out[f"{r}_avg_ns_stderr"] = s.stderr
            out[f"{r}_max_hops"] = s.max_hops
            out[f"{r}_avg_hops"] = s.avg_hops
            sampled = sampled or not s.exact
    if bisection:
        from .bisection import bisection as measure_bisection

        out.update(measure_bisection(topology, runs=bisection_runs, seed=seed, method=bisection_method,
                                     kahip_mode=kahip_mode).as_row())
        # what was searched, so that a row says how hard its cut was looked for
        kahip = "" if bisection_method in ("metis", "exact") else f" (kahip {kahip_mode})"
        out["bisection_search"] = f"{bisection_method} x{bisection_runs}{kahip}"
    if resilience_trials:
        from .resilience import resilience

        res = resilience(topology, trials=resilience_trials, sample=sample, seed=seed)
        out.update(res.as_row())
        sampled = sampled or res.sampled
    if cost is not False and cost is not None:
        from .cost import CostModel, network_cost

        c = network_cost(layout, cost if isinstance(cost, CostModel) else None).as_row()
        out.update({k: c[k] for k in ("electric_cables", "optical_cables", "router_cost", "cable_cost",
                                       "total_cost", "cost_per_endpoint", "power_w", "power_per_endpoint")})
    out["sampled"] = bool(sampled)
    if sample is not None:
        out["sample_sources"] = int(min(sample, topology.num_switches))
        out["sample_seed"] = seed
    if bisection or resilience_trials:
        out["analysis_seed"] = seed
    return out
