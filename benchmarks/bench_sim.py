#!/usr/bin/env python3
"""Speed and memory of topogen's reference simulator (prints its figures).

The BookSim2 comparison point (docs/sim.md, /work/shared/reference/booksim-anynet.md §7):
a 256-router random 8-regular graph with 8 nodes per router, 4 VCs, uniform traffic,
33-flit packets at 0.1 flits/node/cycle took BookSim 33-39 s for 6,587 cycles on a 2-core
machine, i.e. 43k-51k router-cycles/s.  Here: the same network and traffic for 10,000
cycles (VC buffers of 66 flits: virtual cut-through needs whole packets), wall time and
router-cycles per second; the same run with the Silla-Duato escape routing
(``topogen.routing.escape``, NR base: minimal adaptive on VCs 1-3, up*/down* escape on VC 0,
routed hop by hop at run time); then peak RSS of a 4,096-switch run in a child process.

    python benchmarks/bench_sim.py            # 256 and 4,096 switches
    python benchmarks/bench_sim.py --quick    # 1,000 cycles, 1,024 switches for memory
    python benchmarks/bench_sim.py --no-escape   # skip the escape-routing run
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

BOOKSIM_ROUTER_CYCLES_PER_S = (43_100, 50_700)


def one(switches: int, cycles: int, seed: int, routing_name: str = "nr") -> dict:
    import topogen
    from topogen.routing import escape, nearest
    from topogen.sim import run_fixed

    t0 = time.perf_counter()
    topo = topogen.generate("random", num_switches=switches, degree=8, hosts_per_switch=8,
                            seed=seed, instances=1)
    routing = escape(topo, num_vcs=4, base="nr") if routing_name == "escape" else nearest(topo)
    setup = time.perf_counter() - t0
    res = run_fixed(routing, cycles, traffic="uniform", load=0.1, load_unit="flits", seed=seed,
                    num_vcs=4, packet_size=33, vc_buf_size=66, link_latency=1)
    res["setup_s"] = setup
    res["switches"] = switches
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cycles", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-escape", action="store_true", help="skip the escape-routing run")
    a = ap.parse_args()
    if a.child is not None:
        print(json.dumps(one(a.child, a.cycles, a.seed)))
        return 0
    cycles = a.cycles or (1_000 if a.quick else 10_000)
    r = one(256, cycles, a.seed)
    rate = r["router_cycles_per_s"]
    print(f"256 switches x 8 hosts, degree 8, 4 VCs, uniform, 33-flit packets, 0.1 flits/host/cycle, "
          f"{cycles} cycles")
    print(f"  setup (generate + route): {r['setup_s']:.2f} s")
    print(f"  simulation wall time:     {r['wall_time_s']:.2f} s")
    print(f"  router-cycles per second: {rate:,.0f}")
    print(f"  packets created {r['created']}, delivered {r['delivered']}, mean latency "
          f"{r['latency_avg']:.1f} cycles, deadlocked {r['deadlocked']}")
    lo, hi = BOOKSIM_ROUTER_CYCLES_PER_S
    print(f"  speed-up over BookSim2 (43k-51k router-cycles/s): {rate / hi:.1f}x - {rate / lo:.1f}x")
    if not a.no_escape:
        e = one(256, cycles, a.seed, "escape")
        erate = e["router_cycles_per_s"]
        print(f"  escape routing (adaptive, up*/down* escape VC): simulation {e['wall_time_s']:.2f} s, "
              f"{erate:,.0f} router-cycles/s ({erate / rate:.2f}x the NR tables); packets "
              f"delivered {e['delivered']}, mean latency {e['latency_avg']:.1f} cycles, "
              f"deadlocked {e['deadlocked']}")
    big = 1024 if a.quick else 4096
    big_cycles = 1_000 if a.quick else 2_000
    out = subprocess.run([sys.executable, __file__, "--child", str(big), "--cycles", str(big_cycles),
                          "--seed", str(a.seed)], capture_output=True, text=True, check=True)
    b = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{big} switches x 8 hosts, {big_cycles} cycles: setup {b['setup_s']:.1f} s, simulation "
          f"{b['wall_time_s']:.1f} s ({b['router_cycles_per_s']:,.0f} router-cycles/s), "
          f"peak RSS {b['peak_rss_mb']:.0f} MB (limit 1024 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
