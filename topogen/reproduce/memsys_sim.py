"""``topogen reproduce memsys-sim``: MEMSYS '16 (Li et al.) Section 3.3, Figure 15.

What the paper simulates (3.3)
------------------------------
"a modified version of Booksim ... It provides a set of built-in topology models and offers
the flexibility for custom topologies by accepting a netlist.  The tool uses Dijkstra's
algorithm to build the minimum-path routing tables for those configurations that are not in
its set of built-in topologies.  We simulated injection mode with a uniform traffic
pattern."  The configurations are "the topologies described earlier" (n-D tori, n-D
flattened butterflies, Dragonfly, the Fishnet networks) and "2-hop Moore graphs labeled
MMS2 ... sizes from 18 to 5618 nodes"; Figure 15 plots the **average network latency**
("including transmission time as well as time spent in queues at routers") against system
size "under constant load", the same graph twice at two y scales.  The text draws three
conclusions, checked here (``claims``):

1. the low-dimension tori show a "sharply increasing slope" (we check: the 2-D torus has the
   steepest rise of latency per doubling of the system, the 3-D torus the next);
2. "at the much higher dimensions, the high-D tori will have latencies on the same scale as
   the other topologies" (the highest-dimension tori within ``scale`` (2x) of the median of
   the non-torus networks of similar size, 0.5x..2x the nodes);
3. "the Flattened Butterfly designs have half the latency of the same-sized tori" (3-D and
   4-D, same dimension and side > 3 -- at side 3 the two are the same graph: latency ratio
   0.5 +- ``half_tolerance`` at some simulated side; the ratio falls with the side, so it
   holds over a range of sizes only, and every side's ratio is printed).

The Dragonfly "external router" statement (an order of magnitude higher latency) names no
configuration and is not simulated; "Angelfish Mesh" is never defined (see
``memsys-figs``).

Where the paper is silent (our choices)
---------------------------------------
* **Settings**: the paper gives none, so we take BookSim's own defaults (``booksim_config.cpp``):
  1-flit packets, 16 VCs of 8 flits, one cycle per router stage (routing, VC allocation,
  switch allocation, switch traversal), 1-cycle links; the "constant load" is BookSim's
  default ``injection_rate`` 0.1 flits/node/cycle (``--load``), Bernoulli injection, one
  node per router (routers integrated with the CPU, c = 1, as the paper assumes).
  Latency is BookSim's: creation to tail delivery, in cycles.
* **Routing**: BookSim's built-in tori route dimension-order with dateline VCs, so the tori,
  hypercubes and flattened butterflies use :func:`topogen.routing.dor`; the netlist networks
  (MMS2, Dragonfly, Fishnet) minimal tables (``nr``) with hop-indexed VCs (``hop``; the
  minimal routes of BookSim's Dijkstra tables, made deadlock-free).  On ``--simulator
  booksim`` every network is routed by BookSim's anynet ``min`` (the row says so).
* **Sizes**: every construction of each family up to ``max_nodes`` (default 1,100, so the
  whole figure runs in about 10 minutes on 2 shared cores); the paper goes to 100,000+ nodes
  (the Dragonfly) and 5,618 (MMS2).  ``max_nodes=5618`` (74 networks) takes about 12 CPU
  minutes and 2.1 GB with two workers (measured 2026-11-29): the simulations are the cost,
  the memory MMS2 q = 53's routing tables (1.0 GB in its worker); ``workers=1`` keeps the
  memory at one network's.  Each row has the point's ``cpu_s`` (``setup_cpu_s`` of it
  building and routing) and its worker's ``peak_rss_mb``.
* **Families**: MMS2 = the MMS graph of q (Slim Fly's router graph, 2q^2 routers), q = 3..53
  gives the paper's 18..5,618; Dragonfly = :func:`~topogen.generators.memsys.memsys_dragonfly`
  with s = 1; Angelfish / Angelfish Lite on the Petersen graph and MMS subnets; Flying Fish
  (Lite) on n x n flattened butterflies.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult, map_tasks

#: key -> (label, generator, parameter name, candidate values, routing)
FAMILIES = {
    "torus2d": ("2-D torus", "torus", "side", (4, 6, 8, 12, 16, 24, 32, 48, 64), "dor"),
    "torus3d": ("3-D torus", "torus", "side", (3, 4, 6, 8, 10, 12, 16), "dor"),
    "torus4d": ("4-D torus", "torus", "side", (3, 4, 5, 6, 8), "dor"),
    "torus6d": ("6-D torus", "torus", "side", (3, 4), "dor"),
    "hypercube": ("hypercube", "hypercube", "dimension", (4, 6, 8, 10, 12), "dor"),
    "fb3d": ("3-D flattened butterfly", "flattened-butterfly", "k", (3, 4, 6, 8, 10, 12, 16), "dor"),
    "fb4d": ("4-D flattened butterfly", "flattened-butterfly", "k", (3, 4, 5, 6, 8), "dor"),
    "mms2": ("MMS2", "mms", "q", (3, 5, 7, 9, 11, 13, 17, 19, 23, 29, 37, 53), "hop"),
    "dragonfly": ("Dragonfly", "memsys-dragonfly", "p", (1, 3, 7, 15, 31, 63), "hop"),
    "angelfish": ("Angelfish", "angelfish", "subnet", ("petersen", 3, 4, 5, 7), "hop"),
    "angelfish-lite": ("Angelfish Lite", "angelfish-lite", "subnet", ("petersen", 3, 4, 5, 7), "hop"),
    "flying-fish-lite": ("Flying Fish Lite", "flying-fish-lite", "n", (3, 4, 5, 6, 7), "hop"),
    "flying-fish": ("Flying Fish", "flying-fish", "n", (3, 4, 5), "hop"),
}
TORI = ("torus2d", "torus3d", "torus4d", "torus6d", "hypercube")
#: BookSim's defaults (booksim_config.cpp): the paper states no settings
SIM_CONFIG = dict(num_vcs=16, vc_buf_size=8, packet_size=1, routing_delay=1, vc_alloc_delay=1,
                  sw_alloc_delay=1, st_delay=1, link_latency=1, warmup_periods=3, sample_period=1000,
                  latency_thres=500.0)


def nodes_of(key: str, value) -> int:
    """Routers (= nodes, one per router) of family ``key`` at parameter ``value``."""
    if key.startswith("torus"):
        return int(value) ** int(key[5])
    if key == "hypercube":
        return 2 ** int(value)
    if key.startswith("fb"):
        return int(value) ** int(key[2])
    if key == "mms2":
        return 2 * int(value) ** 2
    if key == "dragonfly":
        return (value + 1) * (value + 2)
    if key.startswith("angelfish"):
        n = 10 if value == "petersen" else 50 if value == 5 else 2 * int(value) ** 2
        return n * (n + 1)
    if key == "flying-fish-lite":
        return value ** 2 * (value ** 2 + 1)
    if key == "flying-fish":
        return 2 * value ** 4
    raise ParameterError(f"unknown family {key!r}")


def build(key: str, value):
    """The topology of family ``key`` at parameter ``value`` (one node per router)."""
    from .. import registry
    from ..generators.slimfly import slimfly

    if key.startswith("torus"):
        return registry.generate("torus", dims=[int(value)] * int(key[5]))
    if key == "hypercube":
        return registry.generate("hypercube", dimension=int(value))
    if key.startswith("fb"):
        return registry.generate("flattened-butterfly", k=int(value), n=int(key[2]), convention="n-dim")
    if key == "mms2":
        return slimfly(int(value), hosts_per_switch=1).replace(name="mms2")
    if key == "dragonfly":
        return registry.generate("memsys-dragonfly", p=int(value), s=1)
    if key.startswith("angelfish"):
        if value == "petersen":
            return registry.generate(key, subnet="petersen")
        if value == 5:
            return registry.generate(key, subnet="hoffman-singleton")
        return registry.generate(key, subnet="mms", q=int(value))
    return registry.generate(key, n=int(value))


def points(families, max_nodes: int) -> list[tuple[str, object, int]]:
    """(family, parameter, nodes) of every construction up to ``max_nodes``."""
    out = []
    for key in families:
        for value in FAMILIES[key][3]:
            n = nodes_of(key, value)
            if n <= max_nodes:
                out.append((key, value, n))
    return out


def _run_point(task) -> dict:
    """Simulate one network at the constant load (in a worker process)."""
    key, value, simulator, load, sim_seed, config, raw_dir, results, done = task
    from ..routing import route
    from ._backend import PointRunner, run_point

    t0 = time.perf_counter()
    c0 = time.process_time()
    topo = build(key, value)
    algorithm = FAMILIES[key][4]
    rt = route(topo, None, algorithm)
    c1 = time.process_time()
    cfg = dict(config, num_vcs=max(int(config["num_vcs"]), int(getattr(rt, "num_vcs", 1) or 1)))
    runner = PointRunner(simulator, rt, traffic="uniform", load_unit="flits", seed=sim_seed,
                         raw_dir=raw_dir, self_packets=True, **cfg)
    raw, reused = run_point(runner, load, results or None, done)
    row = runner.normalise(raw, load)
    done = row.get("status") == "completed"
    return {"key": key, "family": FAMILIES[key][0], "parameter": str(value),
            "nodes": int(topo.num_switches), "ports": int(topo.degree), "links": int(topo.num_links),
            "routing": "min_anynet" if simulator == "booksim" else rt.algorithm,
            "simulator": simulator, "status": row.get("status"),
            "latency_cycles": float(row["latency_avg"]) if done else math.nan,
            "hops_avg": float(row.get("hops_avg", math.nan)) if done else math.nan,
            "accepted": float(row.get("accepted_flit_rate", math.nan)),
            "seconds": round(time.perf_counter() - t0, 1),
            "setup_cpu_s": round(c1 - c0, 1), "cpu_s": round(time.process_time() - c0, 1),
            "peak_rss_mb": _peak_rss_mb(), "reused": reused}


def _peak_rss_mb() -> float:
    """Peak resident memory of this (worker) process so far, MB (NaN where unknown)."""
    try:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(peak / (1 << 20) if sys.platform == "darwin" else peak / 1024, 0)
    except (ImportError, OSError):
        return math.nan


def _slope(g: pd.DataFrame) -> float:
    """Latency rise per doubling of the nodes (least squares on log2 nodes)."""
    g = g[np.isfinite(g.latency_cycles)]
    if len(g) < 2:
        return math.nan
    return float(np.polyfit(np.log2(g.nodes.to_numpy(float)), g.latency_cycles.to_numpy(float), 1)[0])


def _claims(table: pd.DataFrame, *, scale: float, half_tolerance: float, max_nodes: int) -> pd.DataFrame:
    rows = []

    def add(claim, paper, ours, verdict):
        rows.append({"claim": claim, "paper": paper, "ours": ours, "verdict": verdict})

    slopes = {k: _slope(g) for k, g in table.groupby("key", sort=False)}
    slopes = {k: v for k, v in slopes.items() if math.isfinite(v)}
    if "torus2d" in slopes and len(slopes) > 1:
        order = sorted(slopes, key=slopes.get, reverse=True)
        ok = order[0] == "torus2d" and ("torus3d" not in slopes or order[1] == "torus3d")
        add("low-dimension tori: sharply increasing latency with size",
            "steepest slope for the low-D tori (left graph)",
            "cycles per doubling: " + ", ".join(f"{FAMILIES[k][0]} {slopes[k]:.1f}" for k in order[:4]),
            "agrees" if ok else "differs")
    others = table[~table.key.isin(TORI) & np.isfinite(table.latency_cycles)]
    high = [k for k in ("torus6d", "hypercube") if k in set(table.key)]
    for k in high:
        g = table[(table.key == k) & np.isfinite(table.latency_cycles)]
        if g.empty or others.empty:
            continue
        r = g.loc[g.nodes.idxmax()]
        near = others[(others.nodes >= r.nodes / 2) & (others.nodes <= r.nodes * 2)]
        if near.empty:
            continue
        med = float(near.latency_cycles.median())
        ratio = float(r.latency_cycles) / med
        add(f"high-D tori: latency on the same scale as the other topologies ({FAMILIES[k][0]})",
            f"same scale (we read: within {scale:g}x)",
            f"{FAMILIES[k][0]} {int(r.nodes)} nodes: {r.latency_cycles:.1f} cycles vs median "
            f"{med:.1f} of {len(near)} non-torus networks of {int(near.nodes.min())}..{int(near.nodes.max())} "
            f"nodes (ratio {ratio:.2f})",
            "agrees" if 1 / scale <= ratio <= scale else "differs")
    for dims in (3, 4):
        fb, to = table[table.key == f"fb{dims}d"], table[table.key == f"torus{dims}d"]
        pairs = fb.merge(to, on="parameter", suffixes=("_fb", "_torus"))
        pairs = pairs[np.isfinite(pairs.latency_cycles_fb) & np.isfinite(pairs.latency_cycles_torus)
                      & (pairs.links_fb > pairs.links_torus)]  # side 3: the same graph
        if pairs.empty:
            continue
        pairs = pairs.sort_values("nodes_fb")
        ratio = (pairs.latency_cycles_fb / pairs.latency_cycles_torus).to_numpy()
        # the ratio falls with the side; "half" holds where it is within the tolerance of 0.5
        near = [int(n) for n, x in zip(pairs.nodes_fb, ratio) if abs(x - 0.5) <= half_tolerance]
        add(f"{dims}-D flattened butterfly: half the latency of the same-sized {dims}-D torus", "0.5",
            ", ".join(f"side {p}: {x:.2f}" for p, x in zip(pairs.parameter, ratio))
            + (f" (0.5 +- {half_tolerance:g} at {', '.join(f'{n:,}' for n in near)} nodes)" if near else ""),
            "agrees" if near else "differs")
    mms = table[table.key == "mms2"]
    if not mms.empty:
        lo, hi = int(mms.nodes.min()), int(mms.nodes.max())
        add("MMS2 graphs simulated from 18 to 5,618 nodes", "18..5,618", f"{lo:,}..{hi:,}",
            "agrees" if lo == 18 and hi == 5618 else f"needs --max_nodes 5618 (ran up to {max_nodes:,})")
    add("Dragonfly with an external router: an order of magnitude higher latency", "~10x",
        "not simulated (the paper names no configuration)", "not checked")
    return pd.DataFrame(rows, columns=["claim", "paper", "ours", "verdict"])


def draw(table: pd.DataFrame, output, title: str) -> Path:
    """Figure 15: latency against nodes, all networks (left) and the lowest ones (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._figs_common import save_figure

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    markers = "os^vD<>phX*P8"
    for i, (key, g) in enumerate(table.groupby("key", sort=False)):
        g = g.sort_values("nodes")
        for ax in axes:
            ax.plot(g.nodes, g.latency_cycles, marker=markers[i % len(markers)], label=FAMILIES[key][0])
    low = table[~table.key.isin(("torus2d", "torus3d"))].latency_cycles
    top = float(np.nanmax(low)) if np.isfinite(low).any() else None
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("nodes")
        ax.set_ylabel("average latency (cycles)")
        ax.grid(True, alpha=0.3)
    if top:
        axes[1].set_ylim(0, top * 1.1)
    axes[0].legend(fontsize=7)
    axes[0].set_title("all networks")
    axes[1].set_title("lowest latencies")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return save_figure(fig, Path(output))


@register_experiment("memsys-sim", paper="MEMSYS '16 (Li et al.) 3.3, Fig. 15")
def reproduce_memsys_sim(*, max_nodes: int = 1100, families: str = "all", load: float = 0.1,
                         sim_seed: int = 1, max_samples: int = 10, scale: float = 2.0,
                         half_tolerance: float = 0.1, workers: int = 2, simulator: str = "reference",
                         results: str = "", plot: str = "") -> ExperimentResult:
    """MEMSYS '16 Fig. 15: average latency under uniform traffic at a constant load vs size.

    Parameters
    ----------
    max_nodes : int
        Largest network simulated (nodes = routers); the paper goes beyond 100,000.
    families : str
        ``all`` or a comma-separated list of torus2d, torus3d, torus4d, torus6d, hypercube,
        fb3d, fb4d, mms2, dragonfly, angelfish, angelfish-lite, flying-fish-lite, flying-fish.
    load : float
        The constant offered load, flits/node/cycle (BookSim's default injection rate 0.1).
    sim_seed : int
        Seed of every simulation.
    max_samples : int
        Sample periods of 1,000 cycles per point at most (3 of them warm-up).
    scale : float
        "Same scale": the high-D tori within this factor of the other networks.
    half_tolerance : float
        "Half the latency": the flattened butterfly / torus ratio within 0.5 +- this.
    workers : int
        Networks simulated in parallel (processes).
    simulator : str
        ``reference`` (default), ``booksim`` or ``sst``: the simulator that runs every point
        (see :mod:`topogen.reproduce._backend`).
    results : str
        Also append every simulator row to this results file (.csv/.json/.parquet); the raw
        BookSim/SST output goes beside it (``<results>.raw/``).
    plot : str
        Draw the figure into this ``.png``/``.svg``/``.pdf`` file (checked before the runs).
    """
    from .._validate import check_int
    from ..sim import SimConfig
    from ._backend import check, finished_points, raw_dir_for
    from ._backend import notes as backend_notes
    from ._figs_common import check_plot

    check_int("max_nodes", max_nodes, 4)
    check_int("workers", workers, 1)
    keys = list(FAMILIES) if families.strip() == "all" else [f.strip() for f in families.split(",") if f.strip()]
    bad = [k for k in keys if k not in FAMILIES]
    if not keys or bad:
        raise ParameterError(f"families must be all or a comma-separated list of {', '.join(FAMILIES)}; "
                             f"unknown: {', '.join(bad) or '(none given)'}")
    if not 0 < load <= 1:
        raise ParameterError(f"load must be in (0, 1] flits/node/cycle, got {load}")
    if not scale > 1 or not 0 < half_tolerance < 0.5:
        raise ParameterError(f"need scale > 1 and 0 < half_tolerance < 0.5, got scale={scale}, "
                             f"half_tolerance={half_tolerance}")
    config = dict(SIM_CONFIG, max_samples=max_samples)
    SimConfig(**config)  # bad settings: before the work
    check(simulator, "memsys-sim", routings=sorted({FAMILIES[k][4] for k in keys}), traffics=["uniform"])
    out_plot = check_plot(plot)
    if results:
        from ..output import check_file_output

        check_file_output(results)
    todo = points(keys, max_nodes)
    if not todo:
        raise ParameterError(f"no network of {', '.join(keys)} has at most {max_nodes} nodes; raise max_nodes")
    wall0 = time.perf_counter()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        raw_dir = str(raw_dir_for(results, tmp))
        done = finished_points(results, simulator) if results else {}
        tasks = [(k, v, simulator, float(load), sim_seed, config, raw_dir, results, done)
                 for k, v, _ in sorted(todo, key=lambda t: -t[2])]  # the largest first
        rows = map_tasks(_run_point, tasks, workers=workers, desc="memsys-sim",
                         label=lambda task: f"{FAMILIES[task[0]][0]} {task[1]}")
        reused = sum(r.pop("reused") for r in rows)
    wall = time.perf_counter() - wall0
    order = {k: i for i, k in enumerate(FAMILIES)}
    table = pd.DataFrame(rows)
    table = table.sort_values(["key", "nodes"], key=lambda s: s.map(order) if s.name == "key" else s,
                              kind="stable").reset_index(drop=True)
    claims = _claims(table, scale=scale, half_tolerance=half_tolerance, max_nodes=max_nodes)
    n_ok = int((claims.verdict == "agrees").sum())
    n_checked = int(claims.verdict.isin(["agrees", "differs"]).sum())
    not_done = table[table.status != "completed"]
    title = (f"MEMSYS '16 Fig. 15: average latency under uniform traffic at {load:g} flits/node/cycle, "
             f"up to {max_nodes:,} nodes, {simulator} simulator")
    notes = [
        f"Ran {len(table)} networks of {len(set(table.key))} families on the {simulator} simulator in "
        f"{wall:.0f} s wall ({workers} worker(s)), {table.cpu_s.sum():.0f} s of CPU in the points "
        f"({table.setup_cpu_s.sum():.0f} s of it building and routing the networks), peak memory of one "
        f"point {table.peak_rss_mb.max():,.0f} MB; simulation seed {sim_seed}"
        + (f"; {reused} point(s) read back from {results}." if reused else "."),
        "Model (our reading; the paper states no settings): BookSim's defaults -- 1-flit packets, "
        "16 VCs x 8 flits, one cycle per router stage, 1-cycle links, Bernoulli injection, uniform "
        "traffic including the source, one node per router -- and BookSim's latency (creation to "
        "tail delivery, cycles).  Tori, hypercubes and flattened butterflies: dimension order with "
        "dateline VCs (BookSim's built-in torus); MMS2, Dragonfly (s = 1) and Fishnet: minimal "
        "tables with hop-indexed VCs" + (" -- on BookSim every network uses anynet's min routing."
                                         if simulator == "booksim" else "."),
        "latency_cycles: mean packet latency at the constant load; hops_avg: mean routers crossed "
        "(links + 1); status other than completed: the load is above that network's saturation "
        "(latency above 500 cycles) and the latency is left out, as BookSim gives none.",
        f"Claims of 3.3: {n_ok} of {n_checked} checked agree.",
    ]
    notes += backend_notes(simulator)
    if len(not_done):
        notes.append("Not completed at this load: " + ", ".join(
            f"{r.family} {r.nodes} ({r.status})" for r in not_done.itertuples()) + ".")
    if plot:
        draw(table, out_plot, title)
        notes.append(f"Figure: {plot}")
    return ExperimentResult(title=title, table=table.drop(columns=["key"]), notes=notes,
                            extra_tables={"claims": claims})
