"""The compiled engine's rows and deliveries stay those it gave before its per-hop cost was
cut: for a set of small runs (Slim Fly q=5 under minimal, Valiant and UGAL-L routing, a
torus with DOR, a Dragonfly with UGAL-L; 1- and 4-flit packets; several loads; both VC
choices of the input-queued router), the result row of :func:`topogen.sim.simulate` and a
digest of every packet a fixed run delivers equal the stored ones in
``data/packet_hop_rows.json``, and the pure-Python engine gives the same rows.

The stored values are written by this file's own code, not by hand::

    PYTHONPATH=. python3 tests/sim/test_packet_hop_rows.py --write

(run on the code whose rows are to be kept; the test then holds every later change of the
engine to them).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from topogen._sssp import AVAILABLE

DATA = Path(__file__).with_name("data") / "packet_hop_rows.json"

FAST = dict(sample_period=100, warmup_periods=1, max_samples=4, min_period_packets=0)

#: name -> (network, routing, packet size, load in flits/host/cycle, extra config)
CASES = {
    "sf5-hop-1-0.3": ("sf5", "hop", 1, 0.3, {}),
    "sf5-hop-1-0.7": ("sf5", "hop", 1, 0.7, {}),
    "sf5-hop-4-0.4": ("sf5", "hop", 4, 0.4, {}),
    "sf5-hop-1-0.5-credits": ("sf5", "hop", 1, 0.5, {"vc_alloc": "credits"}),
    "sf5-valiant-1-0.3": ("sf5", "valiant", 1, 0.3, {}),
    "sf5-valiant-4-0.3": ("sf5", "valiant", 4, 0.3, {}),
    "sf5-ugal-l-1-0.4": ("sf5", "ugal-l", 1, 0.4, {}),
    "sf5-ugal-l-4-0.4": ("sf5", "ugal-l", 4, 0.4, {}),
    "torus-dor-1-0.15": ("torus", "dor", 1, 0.15, {}),
    "torus-dor-4-0.2": ("torus", "dor", 4, 0.2, {}),
    "torus-dor-1-0.5": ("torus", "dor", 1, 0.5, {}),
    "df-ugal-l-1-0.3": ("df", "ugal-l", 1, 0.3, {}),
    "df-ugal-l-4-0.6": ("df", "ugal-l", 4, 0.6, {}),
}

#: fields of a row that depend on the machine, not on the simulation
_MACHINE = ("wall_time_s", "topogen_version", "created_at", "host", "hostname")


def _routing(net: str, alg: str):
    import topogen
    from topogen.routing import route

    if net == "sf5":
        topo = topogen.generate("slimfly", q=5)
    elif net == "torus":
        topo = topogen.generate("torus", dims=(6, 6), hosts_per_switch=2)
    else:
        topo = topogen.generate("dragonfly", p=2, a=4, h=2)
    return route(topo, None, alg, seed=7)


def _config(ps: int, extra: dict, routing) -> dict:
    return dict(num_vcs=max(4, routing.num_vcs), packet_size=ps, vc_buf_size=8 if ps == 1 else 16, **extra)


def _plain(v):
    """A row value as JSON keeps it (floats exactly, NaN as a string)."""
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return repr(v) if not math.isfinite(v) else v
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def row_of(case: str, engine: str = "compiled") -> dict:
    from topogen.sim import simulate

    net, alg, ps, load, extra = CASES[case]
    r = _routing(net, alg)
    row = simulate(r, load=load, seed=11, engine=engine, **_config(ps, extra, r), **FAST)
    out = {k: _plain(v) for k, v in dict(row).items() if k not in _MACHINE}
    params = out.get("params")
    if isinstance(params, str):  # the engine that ran is not part of the simulation
        params = json.loads(params)
        params.pop("engine", None)
        params.get("config", {}).pop("engine", None)
        out["params"] = params
    return out


def deliveries_of(case: str, engine: str = "compiled", cycles: int = 600) -> dict:
    """Count and digest of the packets a fixed run delivers (creation, injection and
    tail cycles, links; as a set: the order within one cycle is not part of a row)."""
    from topogen.sim import SimConfig
    from topogen.sim.measure import fixed_run, packet_rate

    net, alg, ps, load, extra = CASES[case]
    r = _routing(net, alg)
    cfg = SimConfig(**_config(ps, extra, r), engine=engine)
    parts = []

    def batch(ctime, sent, tail, links, measured):
        parts.append(np.stack([ctime, sent, tail, links]).astype(np.int64))

    def one(pkt, tail):
        parts.append(np.asarray([[pkt.ctime], [pkt.sent], [tail], [pkt.links]], np.int64))

    run = fixed_run(r, cfg, cycles, traffic="uniform",
                    rate=packet_rate(load, "flits", cfg), seed=5, on_deliver=one,
                    on_deliver_arrays=batch)
    d = np.concatenate(parts, axis=1) if parts else np.zeros((4, 0), np.int64)
    d = d[:, np.lexsort(d[::-1])]
    return dict(delivered=int(d.shape[1]), digest=hashlib.sha256(d.tobytes()).hexdigest()[:20],
                in_network=int(run.engine.in_network), in_source=int(run.engine.in_source),
                port_flits=int(np.asarray(run.engine.port_flits).sum()))


def _stored() -> dict:
    return json.loads(DATA.read_text())


pytestmark = pytest.mark.skipif(not AVAILABLE, reason="numba not installed")


@pytest.mark.parametrize("case", list(CASES))
def test_rows_unchanged(case):
    want = _stored()[case]
    got = row_of(case)
    assert got["status"] == want["row"]["status"]
    assert got == want["row"]


@pytest.mark.parametrize("case", list(CASES))
def test_deliveries_unchanged(case):
    want = _stored()[case]
    got = deliveries_of(case)
    assert got["delivered"] > 100
    assert got == want["deliveries"]


@pytest.mark.parametrize("case", ["sf5-hop-1-0.3", "sf5-ugal-l-1-0.4", "torus-dor-4-0.2"])
def test_python_engine_gives_the_stored_rows(case):
    want = _stored()[case]
    assert row_of(case, "python") == want["row"]
    assert deliveries_of(case, "python", cycles=300) == want["deliveries_300"]


def _events_per_hop(case: str, per_packet: bool = False) -> float:
    from topogen.sim import SimConfig
    from topogen.sim import _core as C
    from topogen.sim.measure import fixed_run, packet_rate

    net, alg, ps, load, extra = CASES[case]
    r = _routing(net, alg)
    cfg = SimConfig(**_config(ps, extra, r))
    hops = [0]

    def batch(ctime, sent, tail, links, measured):
        hops[0] += len(tail) + int(links.sum())

    def one(pkt, tail):
        hops[0] += 1 + pkt.links

    attrs = dict(on_deliver=one) if per_packet else dict(on_deliver_arrays=batch)
    run = fixed_run(r, cfg, 600, traffic="uniform", rate=packet_rate(load, "flits", cfg), seed=5,
                    **attrs)
    return int(run.engine._st["sc"][C.EVENTS]) / hops[0]


def test_no_event_per_released_vc_or_granted_head():
    """With the VC allocation stage and the allocations in switch order, a hop costs no
    event for the output VC its packet releases nor for the head's readiness after its
    VC grant (one K_VFREE and one K_READY per hop otherwise, as the per-packet delivery
    path, which keeps the asked order, still runs them)."""
    fast = _events_per_hop("sf5-hop-1-0.3")
    slow = _events_per_hop("sf5-hop-1-0.3", per_packet=True)
    assert slow - fast > 1.5, (fast, slow)  # (the same events before)


def write() -> None:
    out = {}
    for case in CASES:
        out[case] = dict(row=row_of(case), deliveries=deliveries_of(case),
                         deliveries_300=deliveries_of(case, cycles=300))
        print(case, out[case]["row"]["status"], out[case]["deliveries"]["delivered"], flush=True)
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        print(__doc__)
