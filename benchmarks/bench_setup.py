#!/usr/bin/env python3
"""What ``topogen simulate NET`` spends before its first simulated cycle, per phase (prints
its figures; not a test).

    python benchmarks/bench_setup.py                 # tori of 1,024 / 4,096 / 16,384 switches
                                                     # and the paper networks
    python benchmarks/bench_setup.py --quick         # 1,024 / 4,096 and the paper networks
    python benchmarks/bench_setup.py --sizes 4096 --routings booksim-min,hop

Phases, in CPU seconds (user + system of all threads), as ``topogen simulate`` runs them:

* ``load``: read the topology file and its layout (the bundle the benchmark writes first);
* ``tables``: the next-hop table (``booksim-min``, ``nr``, ``dor``, or the ``fr`` table that
  ``hop``, ``valiant`` and ``ugal-l`` are built on when the network has a layout, as every
  bundle here has);
* ``vcs``: the VC assignment on top of it (``hop``: the longest route; ``valiant`` and
  ``ugal-l``: the longest base route, which sets their VC count; an FR table built in
  memory brings its longest route along, so this is then only the wrapping);
* ``network``: the simulator's :class:`topogen.sim.network.Network` and traffic;
* ``engine``: the compiled engine's arrays (:func:`topogen.sim._compiled.engine_for`).

``nr-rows`` (not in the default list) is ``nr`` built the previous way, one breadth-first
search per source switch (:mod:`topogen.routing._rows`) instead of the bit-parallel
propagation of :mod:`topogen.routing._bitrows`: the same table, to compare their CPU
(``--routings nr,nr-rows``).

``goal`` is the setup target (tables + VCs + network: <= 1 s of CPU at 4,096 switches,
<= 5 s at 16,384).  The peer is SciPy's all-pairs shortest paths
(``scipy.sparse.csgraph.shortest_path``, breadth-first, unweighted) on the same network, the
least any all-pairs table costs with a library: ``ratio`` = peer CPU / our tables + VCs
(> 1: we are faster).  Above ``--peer-sources`` sources the peer runs on that many and is
scaled to all ``N`` (it is linear in the sources; printed as "extrapolated").

Each network runs in a fresh process; the compiled kernels are loaded (from numba's
cache) on a 64-switch torus first (their work thresholds lowered for it) and that load is
printed on its own (``kernels``): a fresh ``topogen simulate`` pays it once.

``--floor`` adds the least a table built by one search per source can cost on this
machine: a plain compiled breadth-first search (NR) and a plain Dial search on the FR
weights (FR, booksim-min) from every source -- the ``N x links`` visits and nothing else --
plus writing the ``N x N`` table once, and each routing's tables as a multiple of it.  Networks: tori ``16x8x8``, ``16x16x16``,
``32x32x16``; Slim Fly q = 19 (722 routers); Dragonfly a = 14, p = 7, h = 7 (1,386
routers); Skywalk 8 switches per cabinet, 256 cabinets, intra 7, inter 4, seed 1 (2,048
switches).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's topogen
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import timed_main  # noqa: E402

ROUTINGS = ("booksim-min", "nr", "hop", "dor", "valiant", "ugal-l")
TORI = {1024: "16,8,8", 4096: "16,16,16", 16384: "32,32,16"}
#: ``topogen generate`` arguments of the paper networks
PAPER = {
    "slimfly-q19": ["slimfly", "--q", "19"],
    "dragonfly-1386": ["dragonfly", "--a", "14", "--p", "7", "--h", "7"],
    "skywalk-2048": ["skywalk", "--switches_per_cabinet", "8", "--cabinets", "256",
                     "--intra_degree", "7", "--inter_degree", "4", "--seed", "1"],
}
GOAL = {4096: 1.0, 16384: 5.0}
SEED = 1


def cpu() -> float:
    return time.process_time()


def _generate(name: str, path: Path) -> None:
    """``topogen generate`` the network (with its default layout) into ``path``."""
    gen = (["torus", "--dims", TORI[int(name.split("-")[1])]] if name.startswith("torus-")
           else PAPER[name])
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    subprocess.run([sys.executable, "-m", "topogen", "generate", *gen, "-q", "-o", str(path)],
                   check=True, env=env)


def _measure(path: str, routings: list[str]) -> dict:
    """Phases of each routing on the bundle at ``path`` (run in a fresh process)."""
    import numpy as np

    import topogen
    from topogen import formats, sim_defaults
    from topogen.routing import booksim_min, dor, fastest, hop_indexed, nearest, valiant
    from topogen.routing.ugal import ugal
    from topogen.sim._compiled import engine_for
    from topogen.sim.config import SimConfig
    from topogen.sim.network import Network
    from topogen.sim.traffic import Traffic

    import importlib

    out = {}
    c0 = cpu()
    # the compiled kernels run from a work threshold on: lower the thresholds to load them
    # on a small torus, outside the measurement
    mods = {m: importlib.import_module(f"topogen.routing.{m}") for m in ("paths", "booksim_min", "base")}
    limits = {("paths", "PER_SOURCE_MIN_WORK"), ("booksim_min", "COMPILED_MIN_WORK"),
              ("base", "LONGEST_COMPILED_MIN_PAIRS")}
    saved = {(m, a): getattr(mods[m], a) for m, a in limits}
    for m, a in limits:
        setattr(mods[m], a, 0)
    small = topogen.generate("torus", dims=[4, 4, 4])
    small_fr = fastest(topogen.layout.default_layout(small))
    hop_indexed(small_fr)
    nearest(small)
    booksim_min(small)
    if "nr-rows" in routings:
        from topogen.routing import _rows
        from topogen.routing.base import csr_view

        v = csr_view(small)
        _rows.compute(_rows.plan(small, v, np.ones(len(v.indices), dtype=np.int64)), v.n, 0)
    for (m, a), v in saved.items():
        setattr(mods[m], a, v)
    out["kernels"] = cpu() - c0
    c0 = cpu()
    topo, layout = formats.load(path)
    out["load"] = cpu() - c0
    out["switches"] = topo.num_switches
    clock = sim_defaults.CYCLE_NS
    for alg in routings:
        if alg == "dor" and topo.name != "torus":
            continue
        ph = {}
        c0 = cpu()
        if alg == "booksim-min":
            r = booksim_min(topo, layout, clock_period_ns=clock)
        elif alg == "nr":
            r = nearest(topo, layout, seed=SEED)
        elif alg == "nr-rows":  # the same table, one search per source
            from topogen.routing import _bitrows, _rows

            saved_table = _bitrows.from_plan
            _bitrows.from_plan = _rows.compute
            try:
                r = nearest(topo, layout, seed=SEED)
            finally:
                _bitrows.from_plan = saved_table
        elif alg == "dor":
            r = dor(topo, layout=layout)
        else:
            r = fastest(layout, 60.0, seed=SEED)
        ph["tables"] = cpu() - c0
        c0 = cpu()
        if alg == "hop":
            r = hop_indexed(r)
        elif alg == "valiant":
            r = valiant(r, seed=SEED)
        elif alg == "ugal-l":
            r = ugal(r, "local", seed=SEED)
        ph["vcs"] = cpu() - c0 if alg in ("hop", "valiant", "ugal-l") else None
        c0 = cpu()
        k = r.num_vcs
        cfg = SimConfig(num_vcs=k * max(1, -(-SimConfig().num_vcs // k)))
        net = Network(r, cfg, layout)
        rng = np.random.default_rng(SEED)
        Traffic("uniform", net.num_hosts, rng, routing=r, self_packets=True)
        ph["network"] = cpu() - c0
        c0 = cpu()
        engine_for(net, rng)
        ph["engine"] = cpu() - c0
        ph["table_mb"] = np.asarray(getattr(r, "ranks", getattr(getattr(r, "base", None), "ranks", 0))).nbytes / 1e6
        out[alg] = ph
        del r, net
    return out


def _floor(path: str, sources: int) -> dict:
    """The least a table built one search per source costs: a plain compiled breadth-first
    search (NR's work: every directed link visited once per source) and a plain Dial search
    on the FR weights (FR's, booksim-min's work), nothing else -- no tie masks, no
    predecessors, no table -- from ``sources`` sources scaled to all ``N``, plus writing
    the ``N x N`` uint8 table once (page faults included)."""
    import numpy as np
    from numba import njit

    from topogen import formats
    from topogen.layout import default_layout
    from topogen.routing.base import csr_view
    from topogen.routing.paths import fr_weights

    @njit(nogil=True)
    def bfs(indptr, indices, s0, s1, dist, queue):
        acc = 0
        for s in range(s0, s1):
            dist[:] = -1
            dist[s] = 0
            queue[0] = s
            h, t = 0, 1
            while h < t:
                u = queue[h]
                h += 1
                du = dist[u] + 1
                for j in range(indptr[u], indptr[u + 1]):
                    y = indices[j]
                    if dist[y] < 0:
                        dist[y] = du
                        queue[t] = y
                        t += 1
            acc += t
        return acc

    @njit(nogil=True)
    def dial(indptr, indices, inc, buckets, s0, s1, dist, done, head, pool_node, pool_next):
        n = indptr.shape[0] - 1
        cmask = buckets - 1
        acc = 0
        for s in range(s0, s1):
            dist[:] = np.iinfo(dist.dtype).max
            done[:] = False
            head[:] = -1
            dist[s] = 0
            pool_node[0] = s
            pool_next[0] = -1
            head[0] = 0
            top, pending, settled, b = 1, 1, 0, 0
            while settled < n and pending > 0:
                e = head[b & cmask]
                if e < 0:
                    b += 1
                    continue
                head[b & cmask] = pool_next[e]
                pending -= 1
                u = pool_node[e]
                if done[u]:
                    continue
                done[u] = True
                settled += 1
                du = dist[u]
                for j in range(indptr[u], indptr[u + 1]):
                    y = indices[j]
                    nd = du + inc[j]
                    if nd < dist[y]:
                        dist[y] = nd
                        sl = nd & cmask
                        pool_node[top] = y
                        pool_next[top] = head[sl]
                        head[sl] = top
                        top += 1
                        pending += 1
            acc += settled
        return acc

    topo, layout = formats.load(path)
    if layout is None:
        layout = default_layout(topo)
    view = csr_view(topo)
    n = view.n
    # compact types, as the product kernels use: 32-bit links, distances and queues
    indptr = view.indptr.astype(np.int32)
    indices = view.indices.astype(np.int32)
    w = fr_weights(layout)
    inc = (w // int(np.gcd.reduce(w))).astype(np.int32)
    buckets = 1 << int(inc.max()).bit_length()
    k = min(n, sources)
    dist = np.empty(n, np.int32)
    queue = np.empty(n + 1, np.int32)
    work = (np.empty(n, np.int32), np.empty(n, np.bool_), np.empty(buckets, np.int32),
            np.empty(len(indices) + 1, np.int32), np.empty(len(indices) + 1, np.int32))
    bfs(indptr, indices, 0, 1, dist, queue)  # compile outside the timing
    dial(indptr, indices, inc, buckets, 0, 1, *work)
    c0 = cpu()
    bfs(indptr, indices, 0, k, dist, queue)
    t_bfs = (cpu() - c0) * n / k
    c0 = cpu()
    dial(indptr, indices, inc, buckets, 0, k, *work)
    t_dial = (cpu() - c0) * n / k
    c0 = cpu()
    table = np.empty((n, n), dtype=np.uint8)
    table[:] = 1
    t_table = cpu() - c0
    return {"bfs": t_bfs, "dial": t_dial, "table": t_table, "links": len(indices),
            "sources": k}


def _peer(path: str, sources: int) -> dict:
    """SciPy's breadth-first all-pairs shortest paths (``sources`` of them, scaled)."""
    import numpy as np
    from scipy.sparse.csgraph import shortest_path

    from topogen import formats

    topo, _ = formats.load(path)
    n = topo.num_switches
    a = topo.csr()
    k = min(n, sources)
    idx = np.linspace(0, n - 1, k).astype(np.int64)
    c0 = cpu()
    shortest_path(a, method="D", unweighted=True, directed=False, indices=idx)
    t = cpu() - c0
    return {"cpu": t * n / k, "extrapolated": k < n, "sources": k}


def _child(kind: str, path: str, arg: str) -> dict:
    cmd = [sys.executable, __file__, "--child", kind, path, arg]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"{kind} on {path} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


@timed_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tori of 1,024 and 4,096 switches only")
    ap.add_argument("--sizes", default=None, help="torus sizes (comma-separated: 1024,4096,16384)")
    ap.add_argument("--routings", default=",".join(ROUTINGS))
    ap.add_argument("--no-paper", action="store_true", help="skip Slim Fly, Dragonfly and Skywalk")
    ap.add_argument("--peer-sources", type=int, default=2048,
                    help="sources of the SciPy peer run (scaled to all switches above it)")
    ap.add_argument("--floor", action="store_true",
                    help="also time the floor of a table built by one search per source: a "
                         "plain compiled BFS / Dial search from every source and the N x N "
                         "table's writes (sources as --peer-sources, scaled)")
    args = ap.parse_args(argv)
    sizes = ([int(x) for x in args.sizes.split(",")] if args.sizes
             else [1024, 4096] if args.quick else [1024, 4096, 16384])
    routings = [x for x in args.routings.split(",") if x]
    nets = [f"torus-{n}" for n in sizes] + ([] if args.no_paper else list(PAPER))
    print(f"setup before the first simulated cycle (CPU s); routings {', '.join(routings)}; "
          "goal: tables + VCs + network <= 1 s at 4,096 switches, <= 5 s at 16,384; peer: "
          "scipy.sparse.csgraph.shortest_path (BFS, all pairs)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in nets:
            path = os.path.join(tmp, f"{name}.json")
            _generate(name, Path(path))
            got = _child("measure", path, ",".join(routings))
            peer = _child("peer", path, str(args.peer_sources))
            floor = _child("floor", path, str(args.peer_sources)) if args.floor else None
            n = got["switches"]
            goal = GOAL.get(n)
            how = (f"extrapolated from {peer['sources']} sources" if peer["extrapolated"]
                   else "all sources")
            print(f"\n{name}: {n:,} switches; load {got['load']:.2f} s, kernels {got['kernels']:.2f} s; "
                  f"peer {peer['cpu']:.2f} s ({how}); goal "
                  f"{'<= %g s' % goal if goal else 'none at this size'}", flush=True)
            print(f"  {'routing':12} {'tables':>7} {'vcs':>6} {'network':>8} {'setup':>7} "
                  f"{'engine':>7} {'table MB':>9} {'peer ratio':>10}  goal")
            for alg in routings:
                ph = got.get(alg)
                if ph is None:
                    continue
                setup = ph["tables"] + (ph["vcs"] or 0.0) + ph["network"]
                ratio = peer["cpu"] / max(ph["tables"] + (ph["vcs"] or 0.0), 1e-9)
                verdict = "-" if goal is None else ("met" if setup <= goal else "MISSED")
                print(f"  {alg:12} {ph['tables']:7.2f} {_fmt(ph['vcs']):>6} {ph['network']:8.2f} "
                      f"{setup:7.2f} {ph['engine']:7.2f} {ph['table_mb']:9.1f} {ratio:9.1f}x  {verdict}",
                      flush=True)
            if floor is not None:
                visits = n * floor["links"]
                print(f"  floor ({n:,} sources x {floor['links']:,} directed links = {visits:.3g} "
                      f"link visits; searches timed on {floor['sources']:,} sources, scaled): "
                      f"plain BFS {floor['bfs']:.2f} s ({floor['bfs'] / visits * 1e9:.2f} ns a "
                      f"visit), plain Dial {floor['dial']:.2f} s ({floor['dial'] / visits * 1e9:.2f} "
                      f"ns), N x N table writes {floor['table']:.2f} s; per routing, tables / "
                      f"(search + table): " + ", ".join(
                          f"{alg} {got[alg]['tables'] / (floor['bfs' if alg.startswith('nr') else 'dial'] + floor['table']):.1f}x"
                          for alg in routings if alg in got and alg != "dor"), flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, path, arg = sys.argv[2:5]
        if kind == "measure":
            res = _measure(path, arg.split(","))
        elif kind == "floor":
            res = _floor(path, int(arg))
        else:
            res = _peer(path, int(arg))
        print(json.dumps(res))
        sys.exit(0)
    sys.exit(main())
