"""``topogen reproduce dsnf-apps``: DSN-F (Truong et al.) Section VI, Fig. 10, with
application-like traffic on topogen's reference simulator.

The paper runs NAS Parallel Benchmarks (Class A, MPI) and the Himeno benchmark in SimGrid
on the 128-switch DSN-F, DSN, 2-D torus and DLN (40 Gbit/s links, 200 ns switches,
1 GFLOPS processors, minimal routing) and plots Mop/s relative to the 2-D torus, with
"Ave" the average over the benchmarks.  topogen has no traces: each application is the
closed-loop workload of :mod:`topogen.sim.app_traffic` (the messages of one iteration of
its main loop, in phases with a barrier between them), run on the same networks, layout
and routing as ``dsnf-sim``.  The metric is the iteration's **communication time**; the
relative performance of a network is ``time(2-D torus) / time(network)`` (Mop/s are
inversely proportional to the run time of a fixed amount of work).

The statements of VI-B, checked with the tolerances beside them (a statement about the
four networks is "not measured" unless every network ran every application it needs):

* "there is no almighty topology for a variety of bandwidth-sensitive parallel
  applications": no network is best, or within ``tie`` (1 %) of the best, on every
  application;
* "All the evaluated topologies have the similar average performance over the
  benchmarks": every network's "Ave" within ``similar`` (10 %) of the highest;
* "Multiple topologies thus have different Mop/s for EP application": EP's relative
  performances spread by more than ``tie``.

Setup (VI-A and our choices)
----------------------------
* 128 switches, one host (one MPI rank) each, rank ``r`` on host ``r``; 16 switches per
  cabinet (DSN-F native, the others sequential), cables 5 ns/m, as ``dsnf-sim``.
* 40 Gbit/s links: with 256-bit flits one cycle is 6.4 ns; the 200 ns switch delay is
  31.25 cycles, rounded up to **32** (``routing_delay = 29`` plus three one-cycle stages).
* Routing: "We take a minimal routing": the escape routing of ``dsnf-sim`` (minimal
  adaptive next hops on fastest routes with the 200 ns switch delay, an up*/down*
  escape VC).  The deterministic minimal tables alone (``fr``, ``nr``) deadlock on all
  four networks under FT and MG; SimGrid's flow model cannot deadlock.
* Rank mapping (``mapping``): ``linear``, rank ``r`` on host ``r`` (the paper does not
  say; it lines the torus's row-major numbering up with the process grids), or
  ``random``, one seeded permutation of the hosts for every network.
* All-to-all (``alltoall``): ``burst``, every send posted at once (MPICH's algorithm for
  the medium messages of FT and IS), or ``pairwise``, ``P - 1`` rounds with a barrier.
* 33-flit packets of 1,024 payload bytes, 4 VCs of 66 flits, virtual cut-through.

What differs from the paper's runs
----------------------------------
* Communication only: no computation at 1 GFLOPS, so the differences between networks
  are those of the communication time, not diluted by compute time (the paper's Mop/s
  include it).
* One iteration of each main loop, messages sized from the benchmarks' data layout
  (:mod:`topogen.sim.app_traffic`), not traces; a barrier between phases instead of
  MPI's point-to-point dependencies.
* Which applications Fig. 10 shows is not in the text (it names only EP); BT and SP need
  a square number of processes, so with 128 ranks they are left out here; CG, EP, FT,
  IS, LU, MG and Himeno are run.
* Packet-level virtual cut-through instead of SimGrid's flow-level network model.
* ``--quick``: 32 switches (2 cabinets), messages scaled by 1/64: for tests, not the
  paper's size.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult
from .skywalk_sim import _choose

#: key -> label of :func:`topogen.reproduce.dsn.build` (dsnf-sim's networks)
NETWORKS = {"dsnf": "DSN-F", "dsn": "DSN", "torus": "2-D torus", "dln": "DLN-4"}
#: application key -> label in the figure
APPS = {"npb-cg": "CG", "npb-ep": "EP", "npb-ft": "FT", "npb-is": "IS", "npb-lu": "LU", "npb-mg": "MG",
        "himeno": "Himeno"}
SWITCH_NS = 200.0
LINK_GBPS = 40.0
#: VI-A plus our choices (module docs): 6.4 ns cycles, 32-cycle switches
SIM_CONFIG = dict(num_vcs=4, vc_buf_size=66, packet_size=33, flit_bits=256, link_gbps=LINK_GBPS,
                  routing_delay=29, vc_alloc_delay=1, sw_alloc_delay=1, st_delay=1)
CLOCK_NS = 256 / LINK_GBPS
#: network size and message scale of each mode
MODES = {"full": (128, 1.0), "quick": (32, 1.0 / 64)}


def _run_network(key: str, n: int, apps, scale: float, seed: int, sim_seed: int, mapping: str,
                 alltoall: str) -> list:
    from .._rng import make_rng
    from ..routing import escape
    from ..sim import SimConfig
    from ..sim.app_run import run_workload
    from ..sim.app_traffic import workload
    from .dsn import build

    from ..metrics.hops import hop_matrix

    topology, layout = build(NETWORKS[key], n, seed=seed)
    hops = hop_matrix(topology, np.arange(topology.num_switches))
    switch_of = np.repeat(np.arange(topology.num_switches), np.asarray(topology.hosts, dtype=np.int64))
    rt = escape(topology, layout, num_vcs=4, base="fr", switch_delay=SWITCH_NS)
    cfg = SimConfig(**SIM_CONFIG)
    rows = []
    for app in apps:
        wl = workload(app, topology.num_hosts, scale=scale, alltoall=alltoall)
        if mapping == "random":
            wl = wl.on_hosts(make_rng(sim_seed).permutation(topology.num_hosts))
        msgs = np.concatenate([p.msgs for p in wl.phases])
        mean_hops = float(np.average(hops[switch_of[msgs[:, 0]], switch_of[msgs[:, 1]]], weights=msgs[:, 2]))
        t0 = time.process_time()
        res = run_workload(rt, wl, config=cfg, layout=layout, seed=sim_seed)
        rows.append({"app": APPS[app], "network": NETWORKS[key], "key": key, "ranks": wl.ranks,
                     "phases": len(wl.phases), "packets": wl.packets, "mean_hops": round(mean_hops, 3),
                     "cycles": math.nan if res.deadlocked else res.cycles,
                     "time_us": math.nan if res.deadlocked else res.cycles * CLOCK_NS / 1000,
                     "status": "deadlocked" if res.deadlocked else "completed",
                     "cpu_s": round(time.process_time() - t0, 2)})
    return rows


def relative(table: pd.DataFrame) -> pd.DataFrame:
    """Fig. 10's numbers: per application (rows) and network (columns) the 2-D torus's
    communication time over the network's (NaN where either is missing), and "Ave", the
    mean over the applications (NaN unless every application ran on that network)."""
    t = table.pivot(index="app", columns="network", values="cycles")
    t = t.reindex(index=[a for a in APPS.values() if a in t.index],
                  columns=[v for v in NETWORKS.values() if v in t.columns])
    if "2-D torus" not in t.columns:
        rel = t * math.nan
    else:
        rel = t.rdiv(t["2-D torus"], axis=0)
    ave = rel.mean(axis=0, skipna=False)
    rel.loc["Ave"] = ave
    return rel


def claims(rel: pd.DataFrame, *, tie: float = 0.01, similar: float = 0.10) -> pd.DataFrame:
    """The statements of VI-B judged on ``rel`` (:func:`relative`); ``verdict`` is "not
    measured" unless every network has a finite value for everything the statement uses."""
    nets = list(NETWORKS.values())
    apps = [a for a in rel.index if a != "Ave"]
    rows = []

    def missing(cells) -> str:
        gone = sorted({f"{a}/{n}" for a, n in cells if a not in rel.index or n not in rel.columns
                       or not math.isfinite(float(rel.loc[a, n]))})
        return ("not measured: missing " + ", ".join(gone)) if gone else ""

    def add(claim, paper, tol, ok, numbers, miss):
        rows.append({"claim": claim, "paper": paper, "tolerance": tol,
                     "ours": numbers if not miss else miss,
                     "verdict": "not measured" if miss else ("holds" if ok else "differs")})

    all_apps = list(APPS.values())
    cells = [(a, n) for a in all_apps for n in nets]
    miss = missing(cells)
    ok = numbers = None
    if not miss:
        almighty = [n for n in nets if all(rel.loc[a, n] >= (1 - tie) * rel.loc[a, nets].max() for a in apps)]
        best = {a: rel.loc[a, nets].astype(float).idxmax() for a in apps}
        ok = not almighty
        numbers = "best: " + ", ".join(f"{a} {best[a]}" for a in apps) + (
            f"; best or within {tie:.0%} everywhere: {', '.join(almighty)}" if almighty else "")
    add("no almighty topology (no network best on every application)", "no network best everywhere",
        f"a tie is within {tie:.0%} of the best", ok, numbers, miss)

    if not miss:
        ave = rel.loc["Ave", nets].astype(float)
        lo, hi = float(ave.min()), float(ave.max())
        ok = lo >= (1 - similar) * hi
        numbers = ", ".join(f"{n} {ave[n]:.3f}" for n in nets) + f" (lowest/highest {lo / hi:.3f})"
    add("similar average performance (Ave) of all topologies", "similar",
        f"all within {similar:.0%} of the highest", ok, numbers, miss)

    miss_ep = missing([("EP", n) for n in nets])
    if not miss_ep:
        ep = rel.loc["EP", nets].astype(float)
        ok = float(ep.max()) > (1 + tie) * float(ep.min())
        numbers = ", ".join(f"{n} {ep[n]:.3f}" for n in nets)
    add("different Mop/s for EP across topologies", "different", f"spread above {tie:.0%}", ok,
        numbers if not miss_ep else None, miss_ep)
    return pd.DataFrame(rows, columns=["claim", "paper", "tolerance", "ours", "verdict"])


def draw(rel: pd.DataFrame, output: Path, title: str) -> Path:
    """Fig. 10 as grouped bars: relative performance per application and "Ave"."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._figs_common import save_figure

    fig, ax = plt.subplots(figsize=(8, 3.6))
    nets = list(rel.columns)
    x = np.arange(len(rel.index))
    w = 0.8 / max(1, len(nets))
    for i, n in enumerate(nets):
        ax.bar(x + (i - (len(nets) - 1) / 2) * w, rel[n].astype(float).fillna(0).to_numpy(), w, label=n)
    ax.axhline(1.0, color="0.3", lw=0.8)
    ax.set_xticks(x, list(rel.index))
    ax.set_ylabel("performance relative to 2-D torus\n(torus time / network time)")
    ax.set_title(title, fontsize=9)
    top = float(np.nanmax(rel.to_numpy(dtype=float))) if rel.notna().any().any() else 1.0
    ax.set_ylim(0, 1.18 * max(top, 1.0))
    ax.legend(fontsize=8, ncol=len(nets), loc="upper center", frameon=False)
    fig.tight_layout()
    return save_figure(fig, output)


@register_experiment("dsnf-apps", paper="DSN-F (Truong et al.) VI, Fig. 10")
def reproduce_dsnf_apps(*, apps: str = "all", topologies: str = "all", seed: int = 1, sim_seed: int = 1,
                        quick: bool = False, scale: float = 0.0, mapping: str = "linear", alltoall: str = "burst",
                        tie: float = 0.01, similar: float = 0.10, out: str = "", plot: str = "") -> ExperimentResult:
    """DSN-F VI (Fig. 10) with NPB- and Himeno-like workloads: relative communication time.

    Parameters
    ----------
    apps : str
        ``all`` or a comma-separated list of npb-cg, npb-ep, npb-ft, npb-is, npb-lu,
        npb-mg, himeno.
    topologies : str
        ``all`` or a comma-separated list of dsnf, dsn, torus, dln.
    seed : int
        Seed of DLN-4's random shortcuts.
    sim_seed : int
        Seed of the simulations.
    quick : bool
        32 switches and messages scaled by 1/64 (seconds; for tests), not the paper's size.
    scale : float
        Multiply every message's bytes by this (default: 1, or 1/64 with --quick).
    mapping : str
        ``linear`` (default): rank ``r`` on host ``r``; ``random``: ranks on a random
        permutation of the hosts drawn from ``sim_seed`` (the same on every network).
    alltoall : str
        FT's and IS's all-to-alls: ``burst`` (default: every send posted at once, one phase)
        or ``pairwise`` (``P - 1`` rounds of one partner each, a barrier after each round).
    tie : float
        Relative performances within this fraction count as equal (default 1 %).
    similar : float
        "Similar average performance": every Ave within this fraction of the highest.
    out : str
        Folder of the results (``apps.csv``, ``claims.csv``, the figure); default
        ``dsnf-apps-full`` or ``dsnf-apps-quick``.
    plot : str
        The figure's file (default ``fig10.png`` in ``out``).
    """
    from ..output import atomic_write_text
    from ._figs_common import check_plot

    mode = "quick" if quick else "full"
    n, default_scale = MODES[mode]
    scale = float(scale) if scale else default_scale
    if not scale > 0 or not 0 < tie < 1 or not 0 < similar < 1:
        raise ParameterError(f"need scale > 0, 0 < tie < 1 and 0 < similar < 1; got scale={scale}, tie={tie}, "
                             f"similar={similar}")
    if mapping not in ("linear", "random"):
        raise ParameterError(f"mapping must be 'linear' or 'random', got {mapping!r}")
    if alltoall not in ("burst", "pairwise"):
        raise ParameterError(f"alltoall must be 'burst' or 'pairwise', got {alltoall!r}")
    keys = _choose(topologies, NETWORKS, "topologies")
    app_keys = _choose(apps, APPS, "apps")
    folder = Path(out or f"dsnf-apps-{mode}")
    if plot:
        check_plot(plot)
    folder.mkdir(parents=True, exist_ok=True)
    figure = check_plot(plot or folder / "fig10.png")
    wall0, cpu0 = time.perf_counter(), time.process_time()
    rows = []
    for key in keys:
        rows += _run_network(key, n, app_keys, scale, seed, sim_seed, mapping, alltoall)
    table = pd.DataFrame(rows)
    rel = relative(table)
    judged = claims(rel, tie=tie, similar=similar)
    atomic_write_text(folder / "apps.csv", table.drop(columns=["key"]).to_csv(index=False))
    atomic_write_text(folder / "claims.csv", judged.to_csv(index=False))
    size = f"{n} switches" + (f", messages x {scale:g}" if scale != 1 else "") + (
        ", random rank mapping" if mapping == "random" else "") + (
        ", pairwise all-to-all" if alltoall == "pairwise" else "")
    draw(rel, figure, f"DSN-F Fig. 10 with application-like traffic ({size}): communication time of one "
                      "iteration, torus = 1")
    fig10 = rel.reset_index().rename(columns={"index": "app"})
    notes = [
        f"Ran {len(keys)} network(s) x {len(app_keys)} application(s) on {size} in "
        f"{time.perf_counter() - wall0:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU; DLN seed {seed}, "
        f"simulation seed {sim_seed}. Results, claims and figure in {folder} (figure {figure}).",
        "mean_hops: switch-to-switch hops of a shortest path, averaged over the iteration's packets (how far "
        "the rank mapping puts communicating ranks apart on each network).",
        "Fig. 10's y axis is Mop/s relative to the 2-D torus; ours is time(2-D torus) / time(network) of one "
        "iteration's communication (higher is better), Ave the mean over the applications.",
        "Setup (VI-A + our choices): one rank per switch, " + (
            "rank r on host r" if mapping == "linear"
            else f"ranks on a random permutation of the hosts (seed {sim_seed})")
        + ", 40 Gbit/s links (6.4 ns cycles), "
        "200 ns switches (32 cycles), dsnf-sim's escape routing on fastest minimal routes, 33-flit packets of "
        "1,024 payload bytes, 4 VCs x 66 flits, cables of the 16-switch-cabinet floor at 5 ns/m.",
        f"All-to-alls of FT and IS: {alltoall} ("
        + ("every send posted at once, one phase" if alltoall == "burst" else "P - 1 rounds, a barrier after each")
        + "); routing deadlock-free by its escape VC (the minimal tables alone deadlock under FT and MG).",
        "Differs from the paper's runs: communication only (no 1 GFLOPS compute), one iteration of each main "
        "loop with messages from the benchmarks' Class A (Himeno M) data layout instead of traces, a barrier "
        "between phases, packet-level VCT instead of SimGrid's flow model; BT and SP (square process counts) "
        "not run; the figure's application list is not in the paper's text.",
    ]
    if mode == "quick":
        notes.append("--quick: 32 switches and messages x 1/64, not the paper's 128 switches.")
    return ExperimentResult(
        title=f"DSN-F VI (Fig. 10): application-like workloads on {size}, reference simulator",
        table=table.drop(columns=["key"]),
        notes=notes,
        extra_tables={"fig10 (relative to 2-D torus)": fig10, "claims": judged},
    )
