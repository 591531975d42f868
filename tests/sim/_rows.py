"""Row comparison shared by the engine-equivalence tests: the columns a result row's
numbers live in, and equality of two rows on them (NaN equal to NaN)."""

import math

COLUMNS = ("status", "message", "latency_avg", "latency_min", "latency_max", "latency_p50",
           "latency_p99", "network_latency_avg", "hops_avg", "packets", "accepted_load",
           "accepted_flit_rate", "injected_load", "sim_cycles", "samples")


def same_rows(a: dict, b: dict, columns=COLUMNS) -> None:
    """Assert that rows ``a`` and ``b`` hold the same values in ``columns``."""
    for c in columns:
        x, y = a.get(c), b.get(c)
        if isinstance(x, float) and math.isnan(x):
            assert isinstance(y, float) and math.isnan(y), c
        else:
            assert x == y, (c, x, y)
