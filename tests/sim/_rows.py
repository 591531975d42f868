"""Row comparison shared by the engine-equivalence tests: the columns a result row's
numbers live in, equality of two rows on them (NaN equal to NaN), and a run that keeps the
engine which produced its row."""

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


def same_on_both_engines(routing, **kw) -> None:
    """``simulate`` with ``kw`` gives the same row on the Python and compiled engines, and
    each row records the engine that ran it."""
    from topogen.sim import simulate

    py = simulate(routing, engine="python", **kw)
    co = simulate(routing, engine="compiled", **kw)
    same_rows(py, co)
    assert '"engine":"compiled"' in co["params"] and '"engine":"python"' in py["params"]


def same_fixed_run_on_both_engines(routing, cycles: int, **kw) -> None:
    """``run_fixed`` for ``cycles`` gives the same counts and latency on both engines."""
    from topogen.sim import run_fixed

    a = run_fixed(routing, cycles, engine="python", **kw)
    b = run_fixed(routing, cycles, engine="compiled", **kw)
    for key in ("created", "delivered", "in_flight", "latency_avg", "deadlocked"):
        assert a[key] == b[key]
    assert b["engine"] == "compiled" and a["engine"] == "python"


def random_trace(routing, engine, k, horizon, seed=0, **kw):
    """``run_trace`` of ``k`` packets between random hosts, created at random cycles
    below ``horizon`` (the draws from ``seed``)."""
    import numpy as np

    from topogen.sim import run_trace

    rng = np.random.default_rng(seed)
    n = routing.topology.num_hosts
    pk = np.c_[np.sort(rng.integers(0, horizon, k)), rng.integers(0, n, k), rng.integers(0, n, k)]
    return run_trace(routing, pk, engine=engine, **kw)


def simulate_with_engine(routing, *, wrap=None, **kw):
    """``simulate(routing, **kw)`` and the engine that ran it; ``wrap(engine)``, when given,
    is called on the engine before the run (to spy on its methods)."""
    from topogen.sim import measure, simulate

    got = {}
    orig = measure._engine

    def capture(net, rng):
        got["eng"] = orig(net, rng)
        if wrap is not None:
            wrap(got["eng"])
        return got["eng"]

    measure._engine = capture
    try:
        row = simulate(routing, **kw)
    finally:
        measure._engine = orig
    return row, got["eng"]
