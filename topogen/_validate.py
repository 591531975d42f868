"""Parameter checks shared by generators: each raises ParameterError naming the
parameter and its valid range; :func:`check_memory` refuses sizes the machine cannot
hold, naming the memory needed and the memory available."""

from __future__ import annotations

import math
import numbers
import os

from .errors import ParameterError


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None, hint: str = "") -> int:
    """``value`` as an int in [minimum, maximum]; ParameterError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ParameterError(f"{name} must be an integer{_range(minimum, maximum)}, got {value!r}{hint}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ParameterError(f"{name} must be an integer{_range(minimum, maximum)}, got {value}{hint}")
    return value


def check_float(name: str, value, minimum=None, maximum=None, *, min_open=False, max_open=False, hint: str = "") -> float:
    """``value`` as a finite float in the given (open or closed) interval."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        f = math.nan
    if isinstance(value, bool):
        f = math.nan
    lo_bad = minimum is not None and (f <= minimum if min_open else f < minimum)
    hi_bad = maximum is not None and (f >= maximum if max_open else f > maximum)
    if not math.isfinite(f) or lo_bad or hi_bad:
        lo = "" if minimum is None else ("(" if min_open else "[") + f"{minimum}"
        hi = "" if maximum is None else f"{maximum}" + (")" if max_open else "]")
        rng = f" in {lo or '(-inf'}, {hi or 'inf)'}"
        raise ParameterError(f"{name} must be a number{rng}, got {value!r}{hint}")
    return f


def check_shape(name: str, shape, minimum_side: int = 1, min_dims: int = 1) -> tuple[int, ...]:
    """A tuple of ints >= minimum_side with at least ``min_dims`` entries."""
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError:
        raise ParameterError(f"{name} must be a list of side lengths such as 8,16,16, got {shape!r}") from None
    if len(dims) < min_dims:
        raise ParameterError(f"{name} needs at least {min_dims} dimension(s), got {len(dims)}")
    return tuple(check_int(f"{name}[{i}]", d, minimum_side) for i, d in enumerate(dims))


def _range(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f" in [{minimum}, {maximum}]"
    if minimum is not None:
        return f" >= {minimum}"
    if maximum is not None:
        return f" <= {maximum}"
    return ""


# ---------------------------------------------------------------------------- memory

#: Bytes per link and per switch a topology costs while it is generated, checked and turned
#: into its CSR adjacency (measured with tracemalloc on tori, hypercubes and random graphs:
#: 100-145 B/link for generation, ~45 B/link for the CSR).
TOPOLOGY_BYTES_PER_LINK = 200
TOPOLOGY_BYTES_PER_SWITCH = 64


def format_bytes(nbytes: float) -> str:
    """``nbytes`` in binary units, e.g. ``"8.0 GiB"``."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} PiB"  # pragma: no cover - loop always returns


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:  # other Unixes: free physical pages (an underestimate: caches are not counted)
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _address_space_left() -> int | None:
    """What ``ulimit -v`` (RLIMIT_AS) still allows this process to map, or None."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    mapped = 0
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    mapped = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return max(limit - mapped, 0)


def available_memory() -> int | None:
    """Bytes this process can still allocate: ``MemAvailable`` of ``/proc/meminfo``
    (elsewhere the free physical pages), capped by ``ulimit -v``; None when unknown."""
    found = [x for x in (_meminfo_available(), _address_space_left()) if x is not None]
    return min(found) if found else None


def check_memory(what: str, nbytes: float, hint: str = "") -> None:
    """Raise ParameterError if ``what`` needs more than :func:`available_memory`.

    Called before large allocations so that a size the machine cannot hold is refused
    with the size needed and the size available, instead of a MemoryError (or the
    kernel's OOM killer) part-way through the work.  Does nothing when the available
    memory is unknown.
    """
    available = available_memory()
    if available is not None and nbytes > available:
        raise ParameterError(f"{what} needs about {format_bytes(nbytes)} of memory, but "
                             f"{format_bytes(available)} are available{hint or '; choose a smaller size'}")


def check_topology_memory(num_switches: int, num_links: int, what: str | None = None) -> None:
    """:func:`check_memory` for building a topology of this size (see
    :data:`TOPOLOGY_BYTES_PER_LINK`)."""
    nbytes = (TOPOLOGY_BYTES_PER_LINK * float(num_links)
              + TOPOLOGY_BYTES_PER_SWITCH * float(num_switches))
    if nbytes < 1 << 26:  # 64 MiB: not worth reading /proc
        return
    what = what or f"a topology of {int(num_switches):,} switches and {int(num_links):,} links"
    check_memory(what, nbytes, "; use a smaller topology")


def int_option(minimum: int, maximum: int | None = None, why: str = ""):
    """An argparse ``type=`` that reads an integer >= ``minimum`` (a usage error otherwise,
    so that e.g. ``--cabinets 0`` is refused instead of read as "not given") and, if given,
    <= ``maximum`` (``why`` says what the limit guards, e.g. "each is a simulation")."""

    def parse(text: str) -> int:
        import argparse

        rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum:,}]"
        try:
            value = int(text)
        except ValueError:
            try:
                f = float(text)  # 1e9 is an integer too
            except ValueError:
                f = math.nan
            if not (math.isfinite(f) and f.is_integer()):
                raise argparse.ArgumentTypeError(f"must be an integer {rng}, got {text!r}") from None
            value = int(f)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            tail = f"; {why}" if why else ""
            raise argparse.ArgumentTypeError(f"{value:,} is more than the limit of {maximum:,}{tail}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse
