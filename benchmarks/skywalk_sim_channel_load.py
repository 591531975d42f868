"""Channel loads of skywalk-sim's permutations under the two readings of the escape
routing's adaptive VCs: ``minimal`` (any minimal FR next hop) and ``updown``
(next hops on shortest up*/down*-legal FR routes, by the packet's phase).

Each switch sends one unit of flow to its destination of the switch-id permutation
(``bitrev``, ``transpose`` = rotate by 4 of 8 bits; switches that map to themselves send
nothing into the network); at every switch the flow splits equally over the adaptive
next hops (an idealisation of the simulator's run-time choice; the escape VC carries
nothing).  It prints, per network, the busiest directed link's load ``L`` (units of one
switch's traffic), the load ``12 / L`` Gbit/s/host at which that link would be full under
the equal split (a switch's 8 hosts inject ``8 x`` Gbit/s; a 96 Gbit/s link is full at
``L * 8x = 96``; the simulator's adaptive choice by free credits balances better, so it is
an indication, not a bound), the number of links at that load, the busiest link at the
up*/down* root and the mean link load (longer routes = more flow in total).

Run: ``PYTHONPATH=. python3 benchmarks/skywalk_sim_channel_load.py [keys]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from topogen.reproduce.skywalk_sim import NETWORKS, build, make_routing
from topogen.sim.traffic import Traffic


def permutation(name: str, n: int = 256) -> np.ndarray:
    t = Traffic({"transpose": "rotate"}.get(name, name), n, np.random.default_rng(0))
    return t._perm[:n]


def link_loads(rt, perm: np.ndarray) -> np.ndarray:
    """Flow on every CSR entry (directed link), equal split over the adaptive choices."""
    n = rt.num_switches
    view = rt.view
    load = np.zeros(len(view.indices))
    updown = rt.adaptive == "updown"
    if updown:
        dist_all = rt.legal_distances()
        is_down = rt.escape_routing.entry_phase
    for s in range(n):
        d = int(perm[s])
        if d == s or d < 0:
            continue
        flow = {(0, s): 1.0}
        while flow:
            # expand the state farthest from d first (flows only move to nearer states)
            if updown:
                key = max(flow, key=lambda st: dist_all[d][st[0] * n + st[1]])
            else:
                key = max(flow, key=lambda st: rt.minimal.distances[d][st[1]])
            f = flow.pop(key)
            ph, v = key
            if v == d:
                continue
            ents = rt.adaptive_entries(v, d, ph)
            share = f / len(ents)
            for e in ents.tolist():
                load[e] += share
                w = int(view.indices[e])
                ph2 = max(ph, int(is_down[e])) if updown else 0
                flow[(ph2, w)] = flow.get((ph2, w), 0.0) + share
    return load


def main(keys):
    print(f"{'network':20s} {'reading':8s} {'traffic':9s} {'max link load':>13s} "
          f"{'12/L Gbit/s':>11s} {'links at max':>12s} {'max at root':>15s} {'mean load':>9s}")
    for key in keys:
        label = NETWORKS[key][0]
        _, layout = build(key, 1)
        for reading in ("minimal", "updown"):
            rt = make_routing(layout, "escape", adaptive=reading)
            root = rt.params["root"]
            for traffic in ("bitrev", "transpose"):
                t0 = time.perf_counter()
                load = link_loads(rt, permutation(traffic))
                top = load.max()
                at = np.flatnonzero(np.isclose(load, top))
                at_root = (rt.view.row == root) | (rt.view.indices == root)
                print(f"{label:20s} {reading:8s} {traffic:9s} {top:13.2f} {12 / top:11.2f} "
                      f"{len(at):12d} {load[at_root].max():15.2f} {load.mean():9.2f}"
                      f"  [{time.perf_counter() - t0:.1f} s]", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(",") if len(sys.argv) > 1 else list(NETWORKS))
