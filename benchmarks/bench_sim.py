#!/usr/bin/env python3
"""Speed and scaling of topogen's reference simulator against BookSim2 (prints its figures).

The network of the comparison (docs/sim.md, /work/shared/reference/booksim-anynet.md §7):
a 256-router random 8-regular graph with 8 hosts per router, 4 VCs, minimal routing,
uniform traffic at 0.1 flits/host/cycle, with 33-flit packets (VC buffers of 66 flits) and
with 1-flit packets (buffers of 8 flits).  Each simulator runs its full BookSim-style
measurement (warm-up, sample periods until convergence, drain): the reference simulator's
compiled and pure-Python engines (``SimConfig.engine``; the same results, printed side by
side) and the real BookSim2 (``$TOPOGEN_BOOKSIM`` or ``booksim`` on PATH) on the exported
anynet netlist.  Speed = router-cycles per second of **CPU time** (the machine is shared:
wall time is printed too, with the load average).

Scaling: the compiled engine for a fixed number of cycles (``run_fixed``; 8x as many at 256
switches, whose run is otherwise too short to time) at 256 and 4,096 switches (same
per-host load), each in a fresh process with the numba core loaded before the timing: the
CPU time per simulated cycle and its ratio, the CPU time of the traffic blocks (packet
creation, destinations, routes: the Python side), the events per cycle and the CPU per
event of the rest (the event core); 16,384 switches with its peak RSS.

    python benchmarks/bench_sim.py                # everything (BookSim takes minutes)
    python benchmarks/bench_sim.py --quick        # no BookSim, no Python engine, 1,024 / 4,096
    python benchmarks/bench_sim.py --no-booksim --no-python
    python benchmarks/bench_sim.py --booksim-scaling  # BookSim2's own 256 -> 4,096 scaling

Cost per packet-hop (``--packet-hop``): CPU seconds of the run divided by the hops of the
packets it delivered (packets x mean hops, hops counted as BookSim and ``hops_avg`` count
them: routers traversed, links + 1), for the Slim Fly paper's networks (SF MMS
q=19: 722 routers, 10,830 hosts; the balanced Dragonfly p=7, a=14, h=7: 1,386 routers) and
tori of 256 to 16,384 switches, with 1- and 33-flit packets, beside the real BookSim2 (the
peer).  The reference simulator's figure leaves out its set-up (network build, routing
tables: ``benchmarks/bench_setup.py``) and a warm-up that fills the network (~6 cycles per
router of a route): its CPU from then on over the hops of the packets delivered from then
on (least of ``--repeat`` runs).  BookSim2's is its marginal CPU per cycle (two runs that
differ only in the injection period, so its set-up, fill and drain cancel) divided by the
packets per cycle it reports (``Injected packet rate average`` x nodes: below saturation
what it delivers) and the routers per packet (on a torus the exact mean of its minimal
routes, :func:`ring_mean_hops`; elsewhere BookSim's ``Hops average``).  The peer network:

* a torus whose rings have one side k (16x16, 16x16x16, 128x128): BookSim2's **built-in
  torus** (``topology = torus``, ``k``, ``n``, ``routing_function = dim_order``,
  ``use_noc_latency = 0``; :func:`native_torus_config`), the same model as the reference's
  row: dimension-order routes, 4 VCs as two dateline classes of two, the same buffers,
  router and links; set up in seconds.  Tori up to 1,024 switches also on the anynet
  export (BookSim's ``min_anynet``: minimal routes, every VC, no deadlock avoidance);
* the 32x32x16 torus (rings of two sides: BookSim's torus has one k; anynet's set-up takes
  minutes at 4,096 switches): no BookSim2 figure, the 128x128 row is its size's peer;
* the Slim Fly and the Dragonfly: the anynet export (``min_anynet``, minimal routes).

The adaptive routings that anynet cannot run (``skywalk2048``: the Skywalk paper's 2,048-switch
Skywalk with its escape routing, 33-flit packets; ``ft3``: the Slim Fly paper's FT-3 with
ANCA, 1-flit) are compared with topogen's own Python engine (same results) instead.

    python benchmarks/bench_sim.py --packet-hop --sizes sf19,torus256 --packet-sizes 1
    python benchmarks/bench_sim.py --packet-hop --quick   # shorter runs
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

LOAD = 0.1


def _network(switches: int, seed: int):
    import topogen
    from topogen.routing import nearest

    topo = topogen.generate("random", num_switches=switches, degree=8, hosts_per_switch=8,
                            seed=seed, instances=1)
    return topo, nearest(topo)


def _sim_args(ps: int) -> dict:
    return dict(num_vcs=4, packet_size=ps, vc_buf_size=66 if ps > 1 else 8, link_latency=1)


def reference(routing, ps: int, engine: str, seed: int) -> dict:
    from topogen.sim import simulate

    c0, w0 = time.process_time(), time.perf_counter()
    row = simulate(routing, traffic="uniform", load=LOAD, load_unit="flits", seed=seed,
                   engine=engine, **_sim_args(ps))
    return dict(cpu=time.process_time() - c0, wall=time.perf_counter() - w0,
                cycles=int(row["sim_cycles"]), latency=row["latency_avg"],
                accepted=row["accepted_flit_rate"], status=row["status"])


def booksim(topo, ps: int, seed: int, extra: dict | None = None) -> dict | None:
    import numpy as np

    from topogen.drivers.booksim import find_booksim, run_booksim
    from topogen.errors import SimulatorNotFound
    from topogen.export.booksim import export_booksim

    try:
        exe = find_booksim(None)
    except SimulatorNotFound:
        return None
    a = _sim_args(ps)
    folder = tempfile.mkdtemp(prefix="bench-sim-booksim-")
    exp = export_booksim(folder, topo, None, stem="net", setup="vct33",
                         latency=np.ones(topo.num_links, dtype=np.int64),
                         options={"num_vcs": a["num_vcs"], "vc_buf_size": a["vc_buf_size"],
                                  "packet_size": ps, "traffic": "uniform",
                                  "injection_rate_uses_flits": 1, "injection_rate": LOAD,
                                  "seed": seed, **(extra or {})})
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    row = run_booksim(exp.config_file, binary=exe, timeout=3600, raise_on_failure=False)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dict(cpu=(r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
                wall=time.perf_counter() - w0, cycles=int(row.get("sim_cycles") or 0),
                latency=row.get("latency_avg"), accepted=row.get("accepted_flit_rate"),
                status=row.get("status"))


def _time_traffic_blocks() -> list:
    """Count the CPU time of the engine's scheduled callbacks (the traffic blocks: packet
    creation times, destinations, routes, staging) in the returned one-element list."""
    from topogen.sim._compiled import CompiledEngine

    spent = [0.0]
    schedule = CompiledEngine.schedule

    def timed(self, t, callback):
        def run(now):
            c0 = time.process_time()
            callback(now)
            spent[0] += time.process_time() - c0
        schedule(self, t, run)

    CompiledEngine.schedule = timed
    return spent


def _count_events() -> list:
    """Collect the compiled engines that run (their event counters are read after the
    run: events per cycle and CPU per event)."""
    from topogen.sim._compiled import CompiledEngine

    seen = []
    run = CompiledEngine.run

    def counted(self, *args, **kw):
        if not any(e is self for e in seen):
            seen.append(self)
        return run(self, *args, **kw)

    CompiledEngine.run = counted
    return seen


def _load_core(ps: int, seed: int) -> None:
    """Load the numba core (its cache) outside the timings: a fresh process pays it once
    (about a second)."""
    from topogen.sim import run_fixed

    run_fixed(_network(16, seed)[1], 10, traffic="uniform", load=LOAD, load_unit="flits",
              seed=seed, **_sim_args(ps))


def _load_core_for(alg: str, ps: int, seed: int, engine: str) -> None:
    """:func:`_load_core` for the routings whose state arrays give the core another
    signature (escape routing, ANCA), on a small network of the same kind."""
    import topogen
    from topogen.sim import run_fixed

    if engine != "compiled" or alg not in PH_PYTHON_PEER:
        return
    if alg == "escape":
        from topogen.layout import Floor, place
        from topogen.routing import escape

        t = topogen.generate("skywalk", switches_per_cabinet=4, cabinets=4, intra_degree=3,
                             inter_degree=2, seed=seed)
        r = escape(t, place(t, Floor.skywalk(4, 4)), num_vcs=4, base="fr", switch_delay=60.0)
    else:
        from topogen.routing import anca

        r = anca(topogen.generate("kary-ntree", k=4, n=2))
    run_fixed(r, 10, traffic="uniform", load=LOAD, load_unit="flits", seed=seed,
              **_ph_args(ps, r.num_vcs))


def booksim_marginal(switches: int, ps: int, seed: int, periods: tuple[int, int]) -> dict | None:
    """BookSim2's CPU per simulated cycle on the ``switches`` network, without its set-up
    (reading the netlist and building anynet's routing tables take minutes at 4,096
    switches): two runs of one warm-up and one sample period, of ``periods`` cycles each;
    (CPU of the long run - CPU of the short) / (their cycles' difference)."""
    topo, _ = _network(switches, seed)
    runs = []
    for period in periods:
        r = booksim(topo, ps, seed, {"warmup_periods": 1, "sample_period": period, "max_samples": 1})
        if r is None:
            return None
        runs.append(r)
    short, long_ = runs
    if any(r["status"] != "completed" or not r["cycles"] for r in runs):
        # measured: the 900-cycle 1-flit run at 4,096 switches ends in BookSim's deadlock
        # (minimal routes on a random graph, any VC): no cycles to divide by
        return dict(switches=switches, ps=ps, runs=runs, ms_per_cycle=float("nan"),
                    setup_cpu=float("nan"), load_avg=os.getloadavg()[0])
    dc = long_["cycles"] - short["cycles"]
    per = (long_["cpu"] - short["cpu"]) / dc if dc > 0 else float("nan")
    return dict(switches=switches, ps=ps, runs=runs, ms_per_cycle=per * 1e3,
                setup_cpu=short["cpu"] - per * short["cycles"], load_avg=os.getloadavg()[0])


def fixed(switches: int, cycles: int, ps: int, seed: int) -> dict:
    """``run_fixed`` with the compiled engine: CPU seconds per simulated cycle (and of
    them, the traffic blocks' Python side)."""
    from topogen.sim import run_fixed

    _load_core(ps, seed)
    t0 = time.process_time()
    topo, routing = _network(switches, seed)
    setup = time.process_time() - t0
    from topogen.sim import _core

    traffic = _time_traffic_blocks()
    engines = _count_events()
    c0, w0 = time.process_time(), time.perf_counter()
    res = run_fixed(routing, cycles, traffic="uniform", load=LOAD, load_unit="flits", seed=seed,
                    **_sim_args(ps))
    cpu = time.process_time() - c0
    events = sum(int(e._st["sc"][_core.EVENTS]) for e in engines)
    return dict(switches=switches, cycles=cycles, ps=ps, setup_cpu=setup, cpu=cpu,
                traffic_cpu=traffic[0], load_avg=os.getloadavg()[0],
                wall=time.perf_counter() - w0, created=res["created"],
                delivered=res["delivered"], latency=res["latency_avg"], engine=res["engine"],
                events=events,
                rcps=switches * cycles / cpu,
                peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _child(switches: int, cycles: int, ps: int, seed: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", f"{switches},{cycles},{ps}",
                          "--seed", str(seed)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fmt(name: str, r: dict, n: int) -> str:
    rate = n * r["cycles"] / r["cpu"] if r["cpu"] else float("nan")
    lat = f"{r['latency']:.2f}" if isinstance(r["latency"], float) else str(r["latency"])
    return (f"  {name:<22} {r['cycles']:>7} cycles  CPU {r['cpu']:7.2f} s  wall {r['wall']:7.2f} s  "
            f"{rate:>12,.0f} router-cycles/s  latency {lat}  accepted {r['accepted']}  {r['status']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-booksim", action="store_true")
    ap.add_argument("--no-python", action="store_true", help="skip the pure-Python engine")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cycles", type=int, default=None, help="cycles of the scaling runs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--booksim-scaling", action="store_true",
                    help="only BookSim2's own scaling, 256 against 4,096 switches: CPU per simulated "
                         "cycle without its set-up (about an hour of CPU)")
    ap.add_argument("--packet-hop", action="store_true",
                    help="the cost per packet-hop table (reference simulator and BookSim2)")
    ap.add_argument("--sizes", default=PH_DEFAULT,
                    help=f"networks of --packet-hop (default {PH_DEFAULT})")
    ap.add_argument("--packet-sizes", default="1,33", help="packet sizes of --packet-hop")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of the reference simulator per --packet-hop row (the least CPU "
                         "per hop is printed)")
    ap.add_argument("--ph-child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.ph_child is not None:
        name, ps, cycles, engine, *warm = a.ph_child.split(",")
        print(json.dumps(ph_reference(name, int(ps), int(cycles), a.seed, engine,
                                      int(warm[0]) if warm else 0)))
        return 0
    if a.packet_hop:
        return packet_hop(a)
    if a.child is not None:
        s, c, p = map(int, a.child.split(","))
        print(json.dumps(fixed(s, c, p, a.seed)))
        return 0
    print(f"cores {sorted(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
    if a.booksim_scaling:
        return booksim_scaling(a.seed)
    topo, routing = _network(256, a.seed)
    _child(16, 10, 1, a.seed)  # compile (or load) the numba core outside the timings
    _load_core(1, a.seed)  # and load it in this process (the full measurements below)
    for ps in (33, 1):
        print(f"256 switches x 8 hosts, degree 8, 4 VCs, uniform {LOAD} flits/host/cycle, "
              f"{ps}-flit packets (full measurement):")
        ref = reference(routing, ps, "compiled", a.seed)
        print(_fmt("reference (compiled)", ref, 256))
        if not (a.no_python or a.quick):
            print(_fmt("reference (python)", reference(routing, ps, "python", a.seed), 256))
        bs = None if (a.no_booksim or a.quick) else booksim(topo, ps, a.seed)
        if bs is not None:
            print(_fmt("BookSim2", bs, 256))
            if bs["cpu"] and bs["cycles"]:
                speed = (ref["cycles"] / ref["cpu"]) / (bs["cycles"] / bs["cpu"])
                print(f"  compiled engine / BookSim2 (router-cycles per CPU second): {speed:.1f}x")
        print(f"  load average {os.getloadavg()[0]:.1f}")
    cycles = a.cycles or (500 if a.quick else 2_000)
    sizes = (256, 1024) if a.quick else (256, 4096)
    print(f"scaling (compiled engine, run_fixed {cycles} cycles, each in a fresh process):")
    # the small network runs 8x the cycles: its run is otherwise too short to time (tens
    # of ms) on a shared machine
    runs = ((sizes[0], 8 * cycles), (sizes[1], cycles))
    for ps in (33, 1):
        rs = [_child(n, c, ps, a.seed) for n, c in runs]
        for r in rs:
            print(f"  {r['switches']:>6} switches, {ps:>2}-flit, {r['cycles']} cycles: CPU "
                  f"{r['cpu']:7.2f} s (wall {r['wall']:.2f} s), "
                  f"{r['cpu'] / r['cycles'] * 1e3:8.3f} ms/cycle, "
                  f"{r['rcps']:>12,.0f} router-cycles/s, {r['created']} packets, "
                  f"traffic blocks {r['traffic_cpu']:.2f} s CPU, {r['events'] / r['cycles']:,.0f} "
                  f"events/cycle, {(r['cpu'] - r['traffic_cpu']) / max(r['events'], 1) * 1e9:.0f} ns "
                  f"CPU/event (without the traffic blocks), "
                  f"peak RSS {r['peak_rss_mb']:.0f} MB, load {r['load_avg']:.1f}")
        ratio = (rs[1]["cpu"] / rs[1]["cycles"]) / (rs[0]["cpu"] / rs[0]["cycles"])
        print(f"  {sizes[1]} / {sizes[0]} switches CPU per cycle: {ratio:.1f}x "
              f"({sizes[1] // sizes[0]}x the switches; target <= {20 if sizes[1] == 4096 else 5}x)")
    if not a.quick:
        big = _child(16384, max(200, cycles // 4), 33, a.seed)
        print(f"  16384 switches, 33-flit, {big['cycles']} cycles: CPU {big['cpu']:.1f} s, "
              f"{big['rcps']:,.0f} router-cycles/s, {big['created']} packets, traffic blocks "
              f"{big['traffic_cpu']:.2f} s CPU, setup CPU {big['setup_cpu']:.1f} s, "
              f"peak RSS {big['peak_rss_mb']:.0f} MB, load {big['load_avg']:.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


# ---------------------------------------------------------------------------- packet-hop
#: networks of the packet-hop comparison: name -> (generator, its parameters, routing,
#: load in flits/host/cycle below saturation); tori carry one host per switch and a load of
#: 0.2 x their uniform capacity (8 / longest ring): BookSim's anynet routes them minimally on
#: any VC, which deadlocks at higher loads
PH_NETS = {
    "sf19": ("slimfly", dict(q=19), "hop", 0.2),
    "df1386": ("dragonfly", dict(p=7, a=14, h=7), "hop", 0.2),
    "torus256": ("torus", dict(dims=(16, 16)), "dor", 0.1),
    "torus1024": ("torus", dict(dims=(32, 32)), "dor", 0.05),
    "torus4096": ("torus", dict(dims=(16, 16, 16)), "dor", 0.1),
    "torus16384": ("torus", dict(dims=(32, 32, 16)), "dor", 0.05),
    # 16,384 switches as a k-ary n-cube, the shape BookSim's built-in torus builds
    # (k = 128, n = 2): the BookSim-side peer at that size
    "torus128x128": ("torus", dict(dims=(128, 128)), "dor", 0.0125),
    # adaptive routings chosen hop by hop in the run: the Skywalk paper's 2,048-switch
    # Skywalk with its escape routing (adaptive FR-minimal VCs 1-3, up*/down* escape VC 0,
    # FR routes over the cabinet floor, links simulated at 1 cycle as in every row here),
    # the Slim Fly paper's FT-3 (44-port 3-level fat tree, 10,648 hosts) with ANCA
    "skywalk2048": ("skywalk", dict(switches_per_cabinet=8, cabinets=256, intra_degree=7,
                                    inter_degree=4, seed=1), "escape", 0.2),
    "ft3": ("fat-tree", dict(), "anca", 0.3),
}
#: hosts of each network (to size the runs before building it)
PH_HOSTS = {"sf19": 10830, "df1386": 9702, "torus256": 256, "torus1024": 1024,
            "torus4096": 4096, "torus16384": 16384, "torus128x128": 16384, "skywalk2048": 2048,
            "ft3": 10648}
PH_DEFAULT = ("sf19,df1386,torus256,torus1024,torus4096,torus16384,torus128x128,skywalk2048,"
              "ft3")
#: the largest network BookSim2 is also run on through the anynet export when it has a
#: built-in peer (anynet's set-up, an O(R^3) routing table, takes minutes beyond)
PH_ANYNET_MAX = 1024
#: routings BookSim2's anynet export cannot run: their peer is topogen's own Python engine
#: (the same results, the engine the compiled one replaces for them)
PH_PYTHON_PEER = ("escape", "anca")


def _ph_network(name: str):
    import topogen
    from topogen.routing import route

    gen, params, alg, load = PH_NETS[name]
    if gen == "torus":
        params = dict(params, hosts_per_switch=1)
    topo = topogen.generate(gen, **params)
    if alg == "escape":  # as `topogen reproduce skywalk-sim`: FR over the cabinet floor
        from topogen.layout import Floor, place
        from topogen.routing import escape

        layout = place(topo, Floor.skywalk(params["cabinets"], params["switches_per_cabinet"]))
        return topo, escape(topo, layout, num_vcs=4, base="fr", switch_delay=60.0), load
    return topo, route(topo, None, alg), load


def _ph_args(ps: int, num_vcs: int) -> dict:
    # 64 flits per port with 1-flit packets (the Slim Fly paper's buffers), room for two
    # packets per VC with 33
    return dict(num_vcs=max(4, num_vcs), packet_size=ps, vc_buf_size=16 if ps == 1 else 66,
                link_latency=1)


def torus_kn(name: str) -> tuple[int, int] | None:
    """(k, n) of BookSim2's built-in torus that is the network ``name`` (a torus whose
    rings are all of one side k, dimension 0 varying fastest in both numberings), or None
    (not a torus, or rings of different sides: BookSim's ``KNCube`` has one k)."""
    gen, params, _, _ = PH_NETS[name]
    dims = tuple(params.get("dims", ())) if gen == "torus" else ()
    if not dims or len(set(dims)) != 1:
        return None
    return int(dims[0]), len(dims)


def ring_mean_hops(dims) -> float:
    """Mean routers traversed (links + 1) by a minimal route between two switches of the
    torus ``dims`` drawn uniformly, the source included (uniform traffic, BookSim's and the
    reference simulator's): 1 + the sum over the rings of the mean ring distance."""
    return 1.0 + sum(sum(min(x, k - x) for x in range(k)) / k for k in dims)


#: the built-in torus run: BookSim2's dimension-order routing with its dateline VC classes,
#: every link 1 cycle (``use_noc_latency = 0``: with 1 a torus channel takes 2)
NATIVE_TORUS_OPTIONS = {"routing_function": "dim_order", "use_noc_latency": 0}
#: BookSim2's latency-mode abort (mean latency of the packets in flight): raised for the
#: tori, whose zero-load latency at k = 128 (~65 routers x 5 cycles) nears the default 500;
#: it only stops a run, the model is the same
NATIVE_LATENCY_THRES = 100_000.0


def native_torus_config(k: int, n: int, options: dict) -> str:
    """The configuration text of BookSim2's built-in k-ary n-cube (``topology = torus``)
    with :data:`NATIVE_TORUS_OPTIONS`: every other line (router, flow control, traffic,
    simulation control, ``options``) is the one the anynet export writes (the ``vct33``
    setup), so the two BookSim2 runs of a torus differ only in the network and its
    routing."""
    import re

    from topogen.export.booksim import render_config

    text = render_config("unused.anynet", setup="vct33",
                         options=dict(options, latency_thres=NATIVE_LATENCY_THRES))
    # the anynet block: its three fixed lines and the comment above them on min_anynet
    head, sep, body = text.partition("topology = anynet;\n")
    body = re.sub(r"^(network_file = .*;|routing_function = min;)\n", "", body, flags=re.M)
    kept = [ln for ln in head.splitlines(keepends=True)
            if not ln.startswith("// ") or "BookSim2 configuration" in ln or "setup:" in ln]
    native = [f"// BookSim2's built-in torus: {k}-ary {n}-cube, dimension-order routing "
              "(dim_order_torus: the lower half of the VCs, or the upper half on a ring "
              "segment that crosses its dateline)\n",
              "topology = torus;\n", f"k = {k};\n", f"n = {n};\n"]
    native += [f"{key} = {value};\n" for key, value in NATIVE_TORUS_OPTIONS.items()]
    if not sep:
        raise RuntimeError("the vct33 template no longer writes 'topology = anynet;'")
    return "".join(kept + native) + body


def ph_reference(name: str, ps: int, cycles: int, seed: int, engine: str = "compiled",
                 warm: int = 0) -> dict:
    """The reference simulator's CPU per packet-hop on ``name`` (its run only): the CPU of
    cycles ``warm`` .. ``cycles`` over the hops of the packets delivered in them (a warm-up
    fills the network first where a packet takes long to cross it)."""
    from topogen.sim import SimConfig
    from topogen.sim import _core
    from topogen.sim.measure import fixed_run, packet_rate

    _load_core(ps, seed)
    _load_core_for(PH_NETS[name][2], ps, seed, engine)
    c0 = time.process_time()
    topo, routing, load = _ph_network(name)
    setup = time.process_time() - c0
    cfg = SimConfig(**_ph_args(ps, routing.num_vcs), engine=engine)
    acc = [0, 0, 0]  # delivered, their links, packets given to a per-packet callback
    start = [0.0]
    traffic = _time_traffic_blocks() if engine == "compiled" else [0.0]
    ev0 = [0, 0.0]  # events and traffic-block CPU before the timed run

    def batch(ctime, sent, tail, links, measured):
        acc[0] += len(tail)
        acc[1] += int(links.sum())

    def one(pkt, tail):
        acc[0] += 1
        acc[1] += pkt.links
        acc[2] += 1

    def started(t, eng):
        acc[:] = [0, 0, 0]
        start[0] = time.process_time()
        ev0[0] = int(eng._st["sc"][_core.EVENTS]) if hasattr(eng, "_st") else 0
        ev0[1] = traffic[0]

    c0 = time.process_time()
    run = fixed_run(routing, cfg, cycles, traffic="uniform", rate=packet_rate(load, "flits", cfg),
                    seed=seed, stops=(warm,), on_stop=started, on_deliver=one,
                    on_deliver_arrays=batch)
    cpu = time.process_time() - start[0]
    eng = run.engine
    events = int(eng._st["sc"][_core.EVENTS]) - ev0[0] if hasattr(eng, "_st") else 0
    return dict(net=name, ps=ps, switches=topo.num_switches, hosts=topo.num_hosts, load=load,
                traffic_cpu=traffic[0] - ev0[1],
                cycles=cycles, warm=warm, cpu=cpu, setup_cpu=setup + (start[0] - c0),
                delivered=acc[0],
                link_hops=acc[1], per_packet_callbacks=acc[2], engine=eng.engine_name,
                events=events, us_per_hop=cpu / max(acc[0] + acc[1], 1) * 1e6,
                peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                load_avg=os.getloadavg()[0])


def ph_booksim(name: str, ps: int, periods: tuple[int, int], seed: int,
               timeout: float = 1800, builtin: bool = False) -> dict | None:
    """BookSim2's CPU per packet-hop on ``name``: two runs of one warm-up period of
    ``periods`` cycles each (``max_samples = 1``: the injection period, then the drain);
    (CPU difference / cycle difference, or / injection-cycle difference where that is
    less: the drains can differ) / (packets per cycle x routers traversed per packet) of
    the longer run.  ``builtin``: BookSim2's own
    torus (:func:`native_torus_config`) instead of the anynet export.  On a torus the
    routers per packet are the exact mean of its minimal routes (:func:`ring_mean_hops`;
    BookSim's ``Hops average`` of a short sample leans to the packets that finish in it,
    the short ones); elsewhere BookSim's ``Hops average``."""
    import numpy as np

    from topogen.drivers.booksim import find_booksim, run_booksim
    from topogen.errors import SimulatorNotFound
    from topogen.export.booksim import export_booksim
    from topogen.output import atomic_write_text

    try:
        exe = find_booksim(None)
    except SimulatorNotFound:
        return None
    kn = torus_kn(name)
    if builtin and kn is None:
        raise ValueError(f"{name} is not a k-ary n-cube: BookSim2's built-in torus cannot build it")
    gen, params, alg, load = PH_NETS[name]
    if builtin:  # the network's size and hosts without building it
        hosts = PH_HOSTS[name]
        num_vcs = 2  # dateline DOR: two VC classes
    else:
        topo, routing, load = _ph_network(name)
        hosts, num_vcs = topo.num_hosts, routing.num_vcs
    a = _ph_args(ps, num_vcs)
    runs = []
    for period in periods:
        folder = tempfile.mkdtemp(prefix="bench-sim-ph-")
        options = {"num_vcs": a["num_vcs"], "vc_buf_size": a["vc_buf_size"],
                   "packet_size": ps, "traffic": "uniform",
                   "injection_rate_uses_flits": 1, "injection_rate": load,
                   "seed": seed, "warmup_periods": 1, "sample_period": period,
                   "max_samples": 1}
        if builtin:
            cfg = os.path.join(folder, "torus.cfg")
            atomic_write_text(cfg, native_torus_config(kn[0], kn[1], options))
        else:
            cfg = export_booksim(folder, topo, None, stem="net", setup="vct33",
                                 latency=np.ones(topo.num_links, dtype=np.int64),
                                 options=options).config_file
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        row = run_booksim(cfg, binary=exe, timeout=timeout, raise_on_failure=False)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append(dict(cpu=(r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
                         cycles=int(row.get("sim_cycles") or 0), status=row.get("status"),
                         hops=row.get("hops_avg"), injected=row.get("injected_load")))
    short, long_ = runs
    out = dict(net=name, ps=ps, runs=runs, us_per_hop=float("nan"), marginal=True,
               builtin=builtin, config=cfg)
    ok = [r["status"] == "completed" and r["cycles"] and r["hops"] and r["injected"] for r in runs]
    if ok[0] and not ok[1]:
        # the longer run failed (anynet's minimal routes on any VC deadlock a torus): the
        # shorter one alone, its set-up included (an upper bound)
        per_cycle = short["cpu"] / short["cycles"]
        long_ = short
        out["marginal"] = False
    elif not all(ok) or long_["cycles"] <= short["cycles"]:
        return out
    else:
        # the runs' drains (after the injection period, until the last packet is out) need
        # not be of one length: the cycles the longer run adds are its 2 x (P_long -
        # P_short) more injection cycles minus (or plus) the drain difference, whose
        # cycles cost less.  The steady cycle's CPU lies between the CPU difference over
        # the cycle difference and over the injection difference: the lower bound is the
        # figure (the one that favours BookSim2), the other is printed beside it
        dcpu = long_["cpu"] - short["cpu"]
        bounds = sorted((dcpu / (long_["cycles"] - short["cycles"]),
                         dcpu / (periods[1] - periods[0])))
        per_cycle = bounds[0]
        out["upper"] = bounds[1]
    hops = (ring_mean_hops(params["dims"]) if gen == "torus" else float(long_["hops"]))
    # below saturation the cycles the long run adds deliver what is injected:
    # injected_load is BookSim's "Injected packet rate average" (packets/node/cycle)
    hops_per_cycle = float(long_["injected"]) * hosts * hops
    marginal_cycles = (long_["cycles"] - short["cycles"]) if out["marginal"] else long_["cycles"]
    out["drain_difference"] = ((long_["cycles"] - periods[1]) - (short["cycles"] - periods[0])
                               if out["marginal"] else 0)
    if "upper" in out:
        out["us_per_hop_upper"] = out.pop("upper") / hops_per_cycle * 1e6
    out.update(us_per_hop=per_cycle / hops_per_cycle * 1e6, hops_per_packet=hops,
               booksim_hops=float(long_["hops"]), packet_hops=hops_per_cycle * marginal_cycles,
               cpu=sum(r["cpu"] for r in runs))
    return out


def booksim_periods(name: str, ps: int, hops: float, target: float) -> tuple[int, int]:
    """Sample periods (P, 3P) of :func:`ph_booksim` (``max_samples = 1``: a run is its one
    warm-up period of injection and the drain after it): the 2P cycles the longer run adds
    deliver about ``target`` packet-hops, and P (the shorter run's warm-up) is at least the
    time a packet takes to cross the network (~6 cycles per router, its flits, a margin),
    so both runs time a filled network."""
    gen, params, alg, load = PH_NETS[name]
    per_cycle = load / ps * PH_HOSTS[name] * hops
    fill = math.ceil(6 * hops + ps + 40)
    period = max(100, fill, math.ceil(target / per_cycle / 2))
    return period, 3 * period


def _ph_child(name: str, ps: int, cycles: int, seed: int, engine: str = "compiled",
              warm: int = 0) -> dict:
    out = subprocess.run([sys.executable, __file__, "--ph-child",
                          f"{name},{ps},{cycles},{engine},{warm}", "--seed", str(seed)],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _ph_hops_estimate(name: str) -> float:
    """Routers a packet traverses on ``name`` before any run: exact on a torus, a low
    guess elsewhere (so runs sized from it are long enough)."""
    gen, params, _, _ = PH_NETS[name]
    return ring_mean_hops(params["dims"]) if gen == "torus" else 2.5


def _bs_line(label: str, ref: dict, bs: dict | None, why: str = "") -> str:
    if not bs:
        return f"{'':<11} {'':>8} {'':>6} {'':>5} {'':>5} {'':>12} {'-':>11} {'-':>12}  {label}: {why}"
    b_us = bs["us_per_hop"]
    ratio = b_us / ref["us_per_hop"]
    note = f"{label}: {bs.get('hops_per_packet', float('nan')):.2f} routers/packet"
    upper = bs.get("us_per_hop_upper", b_us)
    if upper > 1.02 * b_us:
        note += (f", up to {upper:.3f} us ({upper / ref['us_per_hop']:.1f}x: the runs' drains "
                 f"differ by {abs(bs['drain_difference'])} cycles)")
    if bs.get("booksim_hops") is not None and abs(bs["booksim_hops"] - bs["hops_per_packet"]) > 1e-9:
        note += f" (BookSim's Hops average {bs['booksim_hops']:.2f})"
    note += (f"{'' if bs['marginal'] else ' (shorter run alone, set-up included)'}, "
             f"{bs.get('packet_hops', 0) / 1e6:.2f} M packet-hops in the marginal cycles, runs "
             + ", ".join(f"{r['cycles']} cycles {r['cpu']:.1f} s {r['status']}" for r in bs["runs"]))
    return (f"{'':<11} {'':>8} {'':>6} {'':>5} {'':>5} {'':>12} {b_us:>11.3f} {ratio:>11.1f}x  "
            f"{note}")


def packet_hop(a) -> int:
    """Print the packet-hop table (reference simulator beside BookSim2)."""
    names = [x.strip() for x in a.sizes.split(",") if x.strip()]
    bad = [x for x in names if x not in PH_NETS]
    if bad:
        print(f"unknown network {', '.join(bad)}; choose from {', '.join(PH_NETS)}", file=sys.stderr)
        return 2
    sizes = [int(x) for x in a.packet_sizes.split(",")]
    print("cost per packet-hop: CPU us per hop (router traversed) of a delivered packet "
          "(uniform traffic, below saturation); peer: BookSim2 (its marginal CPU per cycle) on "
          "its built-in torus where the network is a k-ary n-cube and on topogen's anynet export "
          "of the same network (tori up to "
          f"{PH_ANYNET_MAX} switches and the other networks), or for the routings anynet has "
          "not (escape, ANCA) topogen's Python engine (same results)")
    print("built-in torus = the reference's torus row: DOR, dimension 0 first, minimal ring "
          "direction; 4 VCs as two dateline classes of 2 (the reference: routing VC c -> "
          "simulator VCs 2c, 2c+1; BookSim dim_order_torus: VCs 0-1 or 2-3); same buffers, "
          "router delays, allocators and 1-cycle links (use_noc_latency = 0) as the anynet "
          "run. Differences kept: a tie (distance k/2) goes + in the reference, either way at "
          "random in BookSim (same routers per packet); the reference's class 1 starts at the "
          "wrap link, BookSim's covers the whole ring segment that crosses it (+) or does not "
          "(-): both acyclic, same VC count")
    print(f"{'network':<11} {'switches':>8} {'hosts':>6} {'flits':>5} {'load':>5} "
          f"{'reference us':>12} {'peer us':>11} {'peer/ref':>12}  notes")
    for name in names:
        hops_est = _ph_hops_estimate(name)
        for ps in sizes:
            # runs long enough to time: >= ref_hops packet-hops delivered by the reference
            # simulator after its warm-up, and >= bs_hops in the cycles BookSim2's longer
            # run adds
            per_cycle = PH_NETS[name][3] / ps * PH_HOSTS[name]
            if a.quick:
                ref_hops, bs_hops = 150_000, 30_000 if ps == 1 else 10_000
            else:
                ref_hops, bs_hops = 1_500_000, 1_000_000 if ps == 1 else 300_000
            warm = math.ceil(6 * hops_est + ps + 40)
            cycles = warm + max(500, math.ceil(ref_hops / (per_cycle * hops_est)))
            # the least CPU per hop of --repeat runs (the machine is shared)
            ref = min((_ph_child(name, ps, cycles, a.seed, warm=warm) for _ in range(a.repeat)),
                      key=lambda r: r["us_per_hop"])
            if PH_NETS[name][2] in PH_PYTHON_PEER:
                # the Python engine, 30-60x slower per hop: a shorter run (its first cycles
                # fill the network, as the compiled run's do)
                py = _ph_child(name, ps, max(100 if a.quick else 200, cycles // 20), a.seed,
                               "python")
                ratio = py["us_per_hop"] / ref["us_per_hop"]
                print(f"{name:<11} {ref['switches']:>8} {ref['hosts']:>6} {ps:>5} {ref['load']:>5} "
                      f"{ref['us_per_hop']:>12.3f} {py['us_per_hop']:>11.3f} {ratio:>11.1f}x  "
                      f"peer: Python engine ({PH_NETS[name][2]}, {py['cycles']} cycles, "
                      f"{py['delivered']:,} packets, {py['cpu']:.1f} s CPU); ref {ref['cycles']} "
                      f"cycles, {ref['delivered']:,} packets, "
                      f"{1 + ref['link_hops'] / max(ref['delivered'], 1):.2f} hops/packet, "
                      f"{ref['cpu']:.1f} s CPU, set-up {ref['setup_cpu']:.1f} s, "
                      f"RSS {ref['peak_rss_mb']:.0f} MB, {ref['engine']}", flush=True)
                continue
            hops = max(ref['delivered'] + ref['link_hops'], 1)
            print(f"{name:<11} {ref['switches']:>8} {ref['hosts']:>6} {ps:>5} {ref['load']:>5} "
                  f"{ref['us_per_hop']:>12.3f} {'':>11} {'':>12}  "
                  f"reference: cycles {ref['warm']}..{ref['cycles']} timed, "
                  f"{ref['delivered']:,} packets, {hops / 1e6:.2f} M packet-hops, "
                  f"{1 + ref['link_hops'] / max(ref['delivered'], 1):.2f} routers/packet, "
                  f"{ref['cpu']:.2f} s CPU (traffic blocks {ref['traffic_cpu']:.2f} s), "
                  f"{ref['events'] / hops:.2f} events/hop, set-up {ref['setup_cpu']:.1f} s, "
                  f"RSS {ref['peak_rss_mb']:.0f} MB, {ref['engine']}, load "
                  f"{ref['load_avg']:.1f}", flush=True)
            if a.no_booksim:
                continue
            kn = torus_kn(name)
            # routers per packet: the reference's count (the same minimal routes)
            periods = booksim_periods(name, ps, 1 + ref["link_hops"] / max(ref["delivered"], 1),
                                      bs_hops)
            peers = []
            if kn is not None:
                peers.append((f"BookSim2 built-in torus k={kn[0]} n={kn[1]} dim_order", True))
            if PH_NETS[name][0] != "torus" or ref["switches"] <= PH_ANYNET_MAX:
                peers.append(("BookSim2 anynet (min)", False))
            if not peers:
                print(_bs_line("BookSim2", ref, None,
                               "rings of different sides (BookSim2's torus is k^n) and anynet's "
                               f"set-up takes minutes beyond {PH_ANYNET_MAX} switches"))
            for label, builtin in peers:
                bs = ph_booksim(name, ps, periods, a.seed, builtin=builtin)
                print(_bs_line(label, ref, bs, "not found" if bs is None else ""), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


def booksim_scaling(seed: int) -> int:
    """Print BookSim2's CPU per cycle at 256 and 4,096 switches (the alternative's scaling,
    beside the compiled engine's in the main run)."""
    for ps in (33, 1):
        rs = []
        for n, periods in ((256, (2000, 6000)), (4096, (300, 900))):
            r = booksim_marginal(n, ps, seed, periods)
            if r is None:
                print("BookSim2 not found ($TOPOGEN_BOOKSIM or booksim on PATH)")
                return 1
            rs.append(r)
            print(f"  BookSim2 {n:>5} switches, {ps:>2}-flit: runs of "
                  + " and ".join(f"{x['cycles']} cycles ({x['cpu']:.1f} s CPU, wall {x['wall']:.1f} s, "
                                 f"{x['status']})"
                                 for x in r["runs"])
                  + f": {r['ms_per_cycle']:.3f} ms CPU per cycle, set-up {r['setup_cpu']:.1f} s CPU, "
                  f"load {r['load_avg']:.1f}")
        print(f"  BookSim2 4096 / 256 switches CPU per cycle, {ps}-flit: "
              f"{rs[1]['ms_per_cycle'] / rs[0]['ms_per_cycle']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
