"""Closed-loop runs of the application-like workloads of :mod:`topogen.sim.app_traffic` on
the reference simulator: phases one after the other, a barrier between them, the
iteration's completion time in cycles."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["run_workload", "WorkloadResult"]


@dataclass
class WorkloadResult:
    """A closed-loop run: ``cycles`` of the whole iteration, per phase (label, cycles)."""

    app: str
    cycles: int
    phases: list
    packets: int
    deadlocked: bool


def run_workload(routing, wl, *, config=None, layout=None, seed=1) -> WorkloadResult:
    """Run the phases of ``wl`` (a :class:`~topogen.sim.app_traffic.Workload`) one after
    the other on the reference simulator, each phase's packets created at its start (a
    rank queues its messages in phase order, a message's packets back to back) and the
    next phase starting when the last packet is delivered; phases with identical messages
    are simulated once.  Stops at the first deadlock."""
    from .._rng import child_seeds
    from .measure import run_trace

    seeds = child_seeds(seed, max(1, len(wl.phases)))
    seen: dict = {}
    total, per, dead = 0, [], False
    for i, ph in enumerate(wl.phases):
        k = ph.key()
        if k not in seen:
            m = ph.msgs
            pk = np.repeat(m[:, :2], m[:, 2], axis=0)
            packets = np.column_stack([np.zeros(len(pk), np.int64), pk])
            res = run_trace(routing, packets, config=config, layout=layout, seed=seeds[i])
            if res.deadlocked or len(res.delivered) < len(pk):
                dead = True
                per.append((ph.label, None))
                break
            seen[k] = int(res.delivered.max())
        per.append((ph.label, seen[k]))
        total += seen[k]
    return WorkloadResult(wl.name, total, per, wl.packets, dead)
