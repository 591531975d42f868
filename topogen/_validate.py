"""Parameter checks shared by generators: each raises ParameterError naming the
parameter and its valid range."""

from __future__ import annotations

import math
import numbers

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
