"""Shared lines of the benchmarks: the cores used, the load, wall and CPU time.

Every benchmark prints :func:`machine_line` first and :meth:`Clock.line` figures, so a
loaded machine shows in the numbers: on a shared machine the wall time grows with the load
while the CPU time (user + system of this process's threads and its finished children)
stays near the quiet figure.
"""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's topogen


def cores() -> list[int]:
    """The CPUs this process may run on (``os.sched_getaffinity``)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return list(range(os.cpu_count() or 1))


def load() -> str:
    try:
        a, b, c = os.getloadavg()
        return f"{a:.2f} {b:.2f} {c:.2f}"
    except OSError:  # pragma: no cover
        return "n/a"


def machine_line() -> str:
    c = cores()
    return (f"cores used: {len(c)} (CPUs {','.join(map(str, c))} of {os.cpu_count()}), "
            f"load average {load()} (1/5/15 min), Python {platform.python_version()}, "
            f"{platform.machine()}")


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all threads) and its finished children."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def peak_rss_mb() -> float:
    """Peak resident set of this process (MB; ``ru_maxrss``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


class Clock:
    """Wall and CPU time of a ``with`` block (``wall``, ``cpu`` in seconds)."""

    def __enter__(self):
        self.w0, self.c0 = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w0
        self.cpu = cpu_seconds() - self.c0

    def line(self) -> str:
        return f"wall {self.wall:.2f} s, CPU {self.cpu:.2f} s"


def total(clock: Clock) -> None:
    """Print the benchmark's total wall and CPU time and the load at its end."""
    print(f"total: {clock.line()}; load average now {load()}", flush=True)


def timed_main(main):
    """Decorator for a benchmark's ``main``: print :func:`machine_line` first and the total
    wall and CPU time last."""
    import functools

    @functools.wraps(main)
    def wrapper(*args, **kwargs):
        print(machine_line(), flush=True)
        with Clock() as c:
            out = main(*args, **kwargs)
        total(c)
        return out

    return wrapper
