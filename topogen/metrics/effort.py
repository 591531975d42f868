"""How long an all-pairs analysis will take, measured before it starts.

An exact analysis runs one search per source switch and per figure: a bit-parallel BFS
for the hop figures (64 sources per search word, :mod:`topogen.metrics.hops`) and one
Dijkstra per source and routing for the latencies (:mod:`topogen.metrics.latency`).
Each search costs ``O(N + E)``, so the exact figures cost ``O(N (N + E))``: about a
minute at 16,384 switches of degree 16 on 2 cores, and one to two hours at 100,000
(``benchmarks/bench_scale.py``).  :func:`estimate_effort` times a handful of sources
of each kind on the network itself (a fraction of a second) and scales them to the
whole run, so the CLI can say what it is about to do before it does it, and what
``--sample K`` would cost instead.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import ParameterError
from ..topology import Topology, as_topology

__all__ = ["AnalysisEffort", "estimate_effort", "EXACT_NOTICE_SWITCHES", "BISECTION_NOTICE_SWITCHES",
           "format_duration", "bisection_seconds", "resilience_states", "resilience_state_sources"]

#: Switches above which ``topogen analyze`` without ``--sample`` announces the exact
#: all-pairs work before starting it.  At 16,384 switches of degree 16 the exact hops,
#: FR and NR figures take about 80 s on 2 shared cores (``benchmarks/bench_scale.py``),
#: growing as ``N (N + E)``; 15,000 is where they pass a minute.
EXACT_NOTICE_SWITCHES = 15_000

#: Switches above which ``topogen analyze --bisection`` announces its partitioner runs.
#: KaHIP's ``eco`` preset grows about quadratically with the size of the network: one run
#: takes 2 s at 4,096 switches of degree 16 and 30 s at 16,384 (METIS: 0.1 s at both;
#: about 1 s per run at 100,000), so 4 runs pass a minute near 12,000 switches.
BISECTION_NOTICE_SWITCHES = 12_000

#: One KaHIP ``eco`` run on :data:`_KAHIP_LINKS` links (a random graph of 16,384
#: switches of degree 16, measured on 2 shared cores), the scale of
#: :func:`bisection_seconds`.
_KAHIP_SECONDS = 30.0
_KAHIP_LINKS = 131_072

#: KaHIP's presets against ``eco``, CPU of one run on random degree-16 graphs (26 Nov
#: 2026): ``fast`` 3.2x at 4,096 switches, 4.1x at 8,192 and 7.0x at 16,384 (143.8 s
#: against 20.6 s; KaHIP's fast preset is the slowest of the three on these graphs), and
#: ``strong`` 3.3x at 4,096.
KAHIP_MODE_FACTOR = {"eco": 1.0, "fast": 5.0, "strong": 3.3}

#: Sources timed per kind of search by :func:`estimate_effort` (after one warm-up source).
CALIBRATION_SOURCES = 8


@dataclass(frozen=True)
class AnalysisEffort:
    """The work of an analysis and its estimated duration (see :func:`estimate_effort`).

    Attributes
    ----------
    switches : int
        Switches ``N`` of the network.
    sources : int
        Source switches of each kind of search (``N`` when exact, ``K`` when sampled).
    stages : tuple of str
        The kinds of search: ``"hops"`` and the routings (``"fr"``, ``"nr"``).
    searches : int
        Source searches in all, ``sources * len(stages)``.
    seconds : float
        Estimated wall time of the searches in seconds on ``workers`` threads.
    stage_seconds : dict
        The estimate of each stage.
    per_source_seconds : dict
        Measured CPU seconds per source of each stage (hops: per 64-source word / 64).
    workers : int
        Threads assumed (the CPUs available to the process).
    """

    switches: int
    sources: int
    stages: tuple
    searches: int
    seconds: float
    stage_seconds: dict
    per_source_seconds: dict
    workers: int

    def scaled(self, sources: int) -> "AnalysisEffort":
        """The same analysis from ``sources`` sources (a sample) instead."""
        k = int(min(max(sources, 1), self.switches))
        secs = {s: _stage_seconds(s, self.per_source_seconds[s], k, self.workers) for s in self.stages}
        return AnalysisEffort(self.switches, k, self.stages, k * len(self.stages), float(sum(secs.values())),
                              secs, dict(self.per_source_seconds), self.workers)


def format_duration(seconds: float) -> str:
    """A rough human duration: ``"40 s"``, ``"12 min"``, ``"1.6 h"``, ``"3.2 days"``."""
    if not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _stage_seconds(stage: str, per_source: float, sources: int, workers: int) -> float:
    if stage == "hops":  # one search carries 64 sources; blocks of 64 run on the threads
        blocks = -(-sources // 64)
        return per_source * 64 * math.ceil(blocks / workers)
    jobs = min(sources, workers)
    return per_source * sources / max(jobs, 1)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def _spread(n: int, k: int) -> np.ndarray:
    """``k`` distinct switches spread evenly over ``0..n-1`` (deterministic: no seed)."""
    return np.unique(np.linspace(0, n - 1, num=min(k, n)).astype(np.intp))


def _time_hops(topology: Topology) -> float:
    from .hops import _bfs_block, _CSRPlan

    plan = _CSRPlan(topology)
    src = _spread(topology.num_switches, 64)
    start = time.perf_counter()
    _bfs_block(plan, src)
    return (time.perf_counter() - start) / 64


def _time_latency(layout, routing: str, switch_delay: float, calibration: int) -> float:
    from .latency import _timed_sources

    src = _spread(layout.topology.num_switches, calibration + 1)
    return _timed_sources(layout, routing, switch_delay, src[:1], src[1:])


def estimate_effort(obj, *, routings: Sequence[str] = ("fr", "nr"), hops: bool = True,
                    sample: int | None = None, switch_delay: float = 60.0,
                    workers: int | None = None,
                    calibration: int = CALIBRATION_SOURCES) -> AnalysisEffort:
    """Count the source searches of :func:`topogen.metrics.analyze` and time a few.

    Parameters
    ----------
    obj : Topology or Layout
        The network to be analysed; routings are only timed for a Layout (as
        :func:`~topogen.metrics.analyze` only measures latency on one).
    routings : sequence of {"fr", "nr"}
        Routings whose latency will be measured.
    hops : bool
        Whether the hop figures (diameter, aspl) will be measured.
    sample : int, optional
        Sources of a sampled analysis (default: every switch, the exact analysis).
    switch_delay : float
        Switch delay in ns (it changes FR's paths, hence its cost a little).
    workers : int, optional
        Threads to assume (default: the CPUs available to the process).
    calibration : int
        Sources timed per routing (after one warm-up source that absorbs compilation).

    Returns
    -------
    AnalysisEffort
        ``seconds`` is an estimate from a few timed sources on this machine now: other
        work on the same cores makes the real run slower.

    Raises
    ------
    ParameterError
        For an unknown routing or a non-positive ``sample``/``calibration``.
    TopologyError
        If the topology is disconnected (as the analysis would).
    """
    from .latency import ROUTINGS

    topology = as_topology(obj)
    layout = None if isinstance(obj, Topology) else obj
    n = topology.num_switches
    if isinstance(calibration, bool) or not isinstance(calibration, (int, np.integer)) or calibration < 1:
        raise ParameterError(f"calibration must be a positive number of sources, got {calibration!r}")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, (int, np.integer))
                               or sample < 1):
        raise ParameterError(f"sample must be a positive number of sources, got {sample!r}")
    stages: list[str] = ["hops"] if hops else []
    for r in dict.fromkeys(str(r).lower() for r in (routings or ())):
        if r not in ROUTINGS:
            raise ParameterError(f"routings must be drawn from {', '.join(ROUTINGS)}, got {r!r}")
        if layout is not None:
            stages.append(r)
    workers = _cpus() if workers is None else int(workers)
    if workers < 1:
        raise ParameterError(f"workers must be a positive integer or None, got {workers!r}")
    per: dict[str, float] = {}
    if n > 1:
        topology.require_connected("the analysis")
        for stage in stages:
            per[stage] = (_time_hops(topology) if stage == "hops"
                          else _time_latency(layout, stage, switch_delay, int(calibration)))
    else:
        per = {s: 0.0 for s in stages}
    exact = AnalysisEffort(n, n, tuple(stages), n * len(stages), 0.0, {}, per, workers).scaled(n)
    return exact if sample is None else exact.scaled(int(sample))


def bisection_seconds(topology, runs: int, mode: str = "eco") -> float:
    """Rough seconds of ``runs`` KaHIP runs of preset ``mode`` on ``topology``: the
    measured 30 s of ``eco`` at 131,072 links scaled by the square of the number of links
    and by :data:`KAHIP_MODE_FACTOR` (METIS and the spectral bound are a small part above
    10,000 switches)."""
    if mode not in KAHIP_MODE_FACTOR:
        raise ParameterError(f"mode must be one of {', '.join(KAHIP_MODE_FACTOR)}, got {mode!r}")
    links = as_topology(topology).num_links
    return float(runs) * _KAHIP_SECONDS * KAHIP_MODE_FACTOR[mode] * (links / _KAHIP_LINKS) ** 2


def resilience_states(trials: int, step: float = 0.05, sample: int | None = None) -> int:
    """Networks whose diameter and aspl :func:`topogen.metrics.resilience.resilience`
    may measure: the intact one (once when exact, once per trial from the trial's
    sources with ``sample``), and per trial one binary search over the failure grid for
    each of the two properties."""
    points = int(math.floor(1.0 / step + 1e-9)) + 1
    intact = 1 if sample is None else int(trials)
    return intact + 2 * int(trials) * max(1, math.ceil(math.log2(points + 1)))


def resilience_state_sources(switches: int, sample: int | None = None) -> int:
    """BFS sources per failure state of :func:`~topogen.metrics.resilience.resilience`:
    every switch when exact, ``K`` plus the double sweep's
    (:data:`topogen.metrics.resilience.SWEEP_SOURCES`) with ``sample=K < N``."""
    if sample is None or sample >= switches:
        return int(switches)
    from .resilience import SWEEP_SOURCES

    return int(sample) + SWEEP_SOURCES
