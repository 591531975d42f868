"""``topogen reproduce slimfly-sim``: Slim Fly (Besta, Hoefler) Section V, Figs. 6a and 6d,
on topogen's reference simulator: latency against offered load for MIN, VAL, UGAL-L and
UGAL-G on a Slim Fly under uniform random and worst-case traffic, with the paper's
statements of V-A and V-C checked (``claims`` table: paper value, ours, verdict).

What the paper simulates (V) and what we run
--------------------------------------------
* The paper: SF with q = 19 (722 routers, p = 15, 10,830 endpoints), single-flit packets,
  Bernoulli injection, input-queued routers, 64 flits of buffer per port, 2-cycle credit
  delay, 1-cycle channels and pipeline stages, internal speedup 2; UGAL with 4 random VAL
  candidates (IV-C); VCs by hop index (IV-D).  It says networks of 1K-5K endpoints give
  latencies within 10 % of the 10K one.
* Ours (default): **q = 3** (18 routers of network radix 5, p = 3 hosts each, 54 hosts)
  so that the 8 curves run in a few minutes on 2 cores; ``q=5`` (50 routers, 200 hosts)
  takes several times longer.  4 VCs (VAL and UGAL need 2 x diameter = 4) of 16 flits
  (64 flits per port, as the paper), **4-flit packets** (the paper's 1-flit packets would
  quadruple the number of simulated packets), 1-cycle links and router stages,
  ``credit_delay = 2``, ``internal_speedup = 2``.  MIN is ``hop`` (the NR table with
  hop-indexed VCs, IV-D: "VC0 and VC1 for minimal routing"), VAL ``valiant``, UGAL-L/-G
  ``ugal-l``/``ugal-g`` with 4 candidates; all on the same NR base routes.
* Loads are flits per host per cycle (fraction of the injection bandwidth, the paper's
  "offered load"); each curve runs its loads from low to high and stops at the first
  load that does not complete (saturated or deadlocked).  *Saturation* below is the
  highest load that completed.
* Worst case (V-C): :mod:`topogen.sim.traffic` ``worstcase`` built on the MIN routes (the
  same pattern for all four routings; hosts of unpaired routers stay idle).
"""

from __future__ import annotations

import math
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import pandas as pd

from .._progress import Progress
from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult

#: routing label -> topogen algorithm
ROUTINGS = {"MIN": "hop", "VAL": "valiant", "UGAL-L": "ugal-l", "UGAL-G": "ugal-g"}
TRAFFICS = ("uniform", "worstcase")
SIM_CONFIG = dict(num_vcs=4, vc_buf_size=16, packet_size=4, link_latency=1, credit_delay=2,
                  internal_speedup=2.0, routing_delay=1, vc_alloc_delay=1, sw_alloc_delay=1,
                  st_delay=1)


def _parse_loads(text: str) -> list[float]:
    try:
        loads = sorted({float(x) for x in str(text).split(",") if x.strip()})
    except ValueError:
        loads = []
    if not loads or not all(0 < x <= 1 for x in loads):
        raise ParameterError(f"loads must be comma-separated fractions in (0, 1] of the injection "
                             f"bandwidth, e.g. 0.1,0.2,0.5; got {text!r}")
    return loads


def _curve(task) -> list[dict]:
    """One routing and traffic: loads from low to high until the first that fails."""
    q, label, traffic, loads, seed, sim_seed, max_samples, simulator, raw_dir = task
    from ..generators.slimfly import slimfly
    from ..routing import route
    from ._backend import PointRunner

    topo = slimfly(q)
    rt = route(topo, None, ROUTINGS[label], seed=seed, base="nr")
    run = PointRunner(simulator, rt, traffic=traffic, seed=sim_seed, raw_dir=raw_dir,
                      max_samples=max_samples, **SIM_CONFIG)
    rows = []
    for load in loads:
        t0 = time.perf_counter()
        r = run(load)
        rows.append({"traffic": traffic, "routing": label, "offered": load,
                     "status": r["status"], "accepted": r.get("accepted_flit_rate", math.nan),
                     "latency_cycles": r.get("latency_avg", math.nan),
                     "hops_avg": r.get("hops_avg", math.nan),
                     "seconds": round(time.perf_counter() - t0, 1)})
        if r["status"] != "completed":
            break
    return rows


def saturation(table: pd.DataFrame) -> dict:
    """(traffic, routing) -> highest offered load that completed (0 if none did)."""
    out = {}
    for (tr, rt), g in table.groupby(["traffic", "routing"], sort=False):
        ok = g[g.status == "completed"]
        out[tr, rt] = float(ok.offered.max()) if len(ok) else 0.0
    return out


def _latency_at(table, traffic, routing, load) -> float:
    g = table[(table.traffic == traffic) & (table.routing == routing) & (table.offered == load)
              & (table.status == "completed")]
    return float(g.latency_cycles.iloc[0]) if len(g) else math.nan


def worst_case_link_flows(q: int, sim_seed: int) -> int:
    """Flows of the worst-case pattern (as ``simulate(seed=sim_seed)`` draws it) on the
    busiest link of the MIN routes: MIN cannot sustain more than 1/this per host."""
    import numpy as np

    from .._rng import make_rng
    from ..generators.slimfly import slimfly
    from ..routing import route
    from ..sim import Traffic

    topo = slimfly(q)
    rt = route(topo, None, ROUTINGS["MIN"], base="nr")
    tr = Traffic("worstcase", topo.num_hosts, make_rng(sim_seed), routing=rt)
    host_switch = np.repeat(np.arange(topo.num_switches), topo.hosts)
    flows = np.zeros(len(rt.view.indices), dtype=np.int64)
    for s, d in zip(tr.active.tolist(), tr.destinations(tr.active, None).tolist()):
        sw, _ = rt.path(int(host_switch[s]), int(host_switch[d]))
        if len(sw) > 1:
            np.add.at(flows, rt.view.entry(sw[:-1], sw[1:]), 1)
    return int(flows.max())


def claims(table: pd.DataFrame, hosts_per_router: int, step: float,
           min_link_flows: int | None = None) -> pd.DataFrame:
    """The statements of Slim Fly V-A (uniform, Fig. 6a) and V-C (worst case, Fig. 6d)
    checked on ``table`` (rows of :func:`_curve`); ``step`` is the load resolution (values
    within one step count as equal)."""
    sat = saturation(table)
    rows = []

    def add(claim, traffic, paper, ours, ok):
        rows.append({"claim": claim, "traffic": traffic, "paper": paper, "ours": ours,
                     "verdict": "n/a" if ok is None else ("holds" if ok else "differs")})

    def s(tr, rt):
        return sat.get((tr, rt))

    def have(tr, *rts):
        return all((tr, r) in sat for r in rts)

    u = "uniform"
    if have(u, "MIN", "UGAL-G", "VAL", "UGAL-L"):
        best = max(sat[u, r] for r in ROUTINGS)
        add("UGAL-G and MIN achieve the best performance", u, "best saturation",
            f"MIN {s(u, 'MIN'):g}, UGAL-G {s(u, 'UGAL-G'):g}, UGAL-L {s(u, 'UGAL-L'):g}, "
            f"VAL {s(u, 'VAL'):g}",
            min(s(u, "MIN"), s(u, "UGAL-G")) >= best - step)
    if have(u, "VAL"):
        add("VAL saturates at less than 50% of the injection rate", u, "< 0.5",
            f"{s(u, 'VAL'):g}", s(u, "VAL") < 0.5)
    if have(u, "UGAL-L"):
        add("UGAL-L saturates at about 80% of the injection rate", u, "0.8",
            f"{s(u, 'UGAL-L'):g}", abs(s(u, "UGAL-L") - 0.8) <= step + 1e-9)
    if have(u, "MIN", "UGAL-L", "UGAL-G"):
        add("UGAL-L and UGAL-G stay close to MIN (within one load step)", u,
            "close to MIN", f"MIN {s(u, 'MIN'):g}, UGAL-L {s(u, 'UGAL-L'):g}, UGAL-G {s(u, 'UGAL-G'):g}",
            min(s(u, "UGAL-L"), s(u, "UGAL-G")) >= s(u, "MIN") - step - 1e-9)
        mid = [x for x in sorted(set(table.offered)) if x <= min(s(u, "MIN"), s(u, "UGAL-L"))]
        if mid:
            m = mid[len(mid) // 2] if len(mid) > 1 else mid[0]
            lm, ll = _latency_at(table, u, "MIN", m), _latency_at(table, u, "UGAL-L", m)
            add("UGAL-L takes detours at medium load: latency above MIN's", u, "UGAL-L > MIN",
                f"at {m:g}: UGAL-L {ll:.1f}, MIN {lm:.1f} cycles", ll > lm)
    if have(u, *ROUTINGS):
        low = min(table.offered)
        lat = {r: _latency_at(table, u, r, low) for r in ROUTINGS}
        add("VAL has the highest latency at low load (longer paths)", u, "VAL highest",
            ", ".join(f"{r} {v:.1f}" for r, v in lat.items()) + f" cycles at {low:g}",
            all(lat["VAL"] > lat[r] for r in ROUTINGS if r != "VAL"))
    w = "worstcase"
    bound = 1.0 / (hosts_per_router + 1)
    if have(w, "MIN"):
        why = "" if not min_link_flows else (
            f" (busiest MIN link carries {min_link_flows} flows: at most "
            f"1/{min_link_flows} = {1 / min_link_flows:.3g})")
        add("MIN is limited to 1/(p+1) throughput", w, f"1/(p+1) = {bound:.3g} (p = {hosts_per_router})",
            f"{s(w, 'MIN'):g}{why}", s(w, "MIN") <= bound + 1e-9)
    if have(w, "VAL"):
        add("VAL supports up to 40% offered load", w, "0.4", f"{s(w, 'VAL'):g}",
            abs(s(w, "VAL") - 0.4) <= step + 1e-9)
    if have(w, "UGAL-L"):
        add("UGAL-L supports up to 45% offered load", w, "0.45", f"{s(w, 'UGAL-L'):g}",
            abs(s(w, "UGAL-L") - 0.45) <= step + 1e-9)
    if have(w, "MIN", "VAL", "UGAL-L"):
        add("VAL and UGAL-L disperse the traffic: several times MIN's load", w,
            "VAL, UGAL-L >> MIN", f"MIN {s(w, 'MIN'):g}, VAL {s(w, 'VAL'):g}, UGAL-L {s(w, 'UGAL-L'):g}",
            min(s(w, "VAL"), s(w, "UGAL-L")) >= 2 * max(s(w, "MIN"), step))
    if have(w, "VAL", "UGAL-L"):
        add("UGAL-L sustains at least VAL's load (45% vs 40%)", w, "UGAL-L >= VAL",
            f"UGAL-L {s(w, 'UGAL-L'):g}, VAL {s(w, 'VAL'):g}", s(w, "UGAL-L") >= s(w, "VAL") - 1e-9)
    return pd.DataFrame(rows, columns=["claim", "traffic", "paper", "ours", "verdict"])


@register_experiment("slimfly-sim", paper="Slim Fly (Besta, Hoefler) V, Figs. 6a and 6d")
def reproduce_slimfly_sim(*, q: int = 3, loads: str = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9",
                          traffic: str = "all", routings: str = "all", seed: int = 1,
                          sim_seed: int = 1, max_samples: int = 6,
                          workers: int = 2, plot: str = "", simulator: str = "reference",
                          raw_dir: str = "") -> ExperimentResult:
    """Slim Fly V (Figs. 6a, 6d): MIN, VAL, UGAL-L, UGAL-G latency vs offered load.

    Parameters
    ----------
    q : int
        Slim Fly prime power (3: 18 routers, 54 hosts, a few minutes on 2 cores; 5: 50
        routers, 200 hosts, several times longer).
    loads : str
        Offered loads (flits/host/cycle, fractions of the injection bandwidth),
        comma-separated; each curve stops at its first load that does not complete.
    traffic : str
        ``all``, ``uniform`` or ``worstcase``.
    routings : str
        ``all`` or a comma-separated list of MIN, VAL, UGAL-L, UGAL-G.
    seed : int
        Seed of the routings' own draws (not used by the simulations).
    sim_seed : int
        Seed of every simulation (traffic, Valiant and UGAL draws, worst-case pairs).
    max_samples : int
        Sample periods of 1,000 cycles per point at most (warm-up included).
    workers : int
        Curves simulated in parallel (processes).
    plot : str
        Also draw the figure (latency vs offered load, one panel per traffic) into this
        ``.png``/``.svg``/``.pdf`` file (checked before the simulations).
    simulator : str
        ``reference`` (default), ``booksim`` or ``sst`` (MIN routing and uniform traffic
        only); see :mod:`topogen.experiments._backend`.
    raw_dir : str
        Folder kept for the BookSim/SST raw output (default: a temporary one, discarded).
    """
    from ..generators.slimfly import check_slimfly_q, slimfly

    check_slimfly_q(q)
    load_list = _parse_loads(loads)
    trs = list(TRAFFICS) if traffic == "all" else [traffic]
    if any(t not in TRAFFICS for t in trs):
        raise ParameterError(f"traffic must be all, uniform or worstcase, got {traffic!r}")
    rts = list(ROUTINGS) if routings == "all" else [r.strip() for r in routings.split(",") if r.strip()]
    if not rts or any(r not in ROUTINGS for r in rts):
        raise ParameterError(f"routings must be all or a comma-separated list of "
                             f"{', '.join(ROUTINGS)}, got {routings!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers must be an integer >= 1, got {workers!r}")
    from ..sim import SimConfig

    SimConfig(max_samples=max_samples, **SIM_CONFIG)  # bad parameters: before the work
    if plot:
        from ..output import check_file_output

        if not str(plot).lower().endswith((".png", ".svg", ".pdf")):
            raise ParameterError(f"plot must end in .png, .svg or .pdf, got {plot!r}")
        check_file_output(plot)
    topo = slimfly(q)
    p = int(topo.hosts[0])
    from ._backend import check
    from ._backend import notes as backend_notes

    check(simulator, "slimfly-sim", routings=[ROUTINGS[r] for r in rts], traffics=trs,
          hosts=int(topo.num_hosts), alternative="--routings MIN --traffic uniform or --simulator reference")
    tmp = tempfile.TemporaryDirectory()
    raw = raw_dir or tmp.name
    tasks = [(q, r, t, load_list, seed, sim_seed, max_samples, simulator, raw) for t in trs for r in rts]
    wall0 = time.perf_counter()
    rows: list[dict] = []
    with tmp, Progress(total=len(tasks), desc="slimfly-sim") as bar:
        if workers == 1:
            for task in tasks:
                bar.status(f"{task[1]} {task[2]}")
                rows.extend(_curve(task))
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
                for res in pool.map(_curve, tasks):
                    rows.extend(res)
                    bar.update()
    wall = time.perf_counter() - wall0
    table = pd.DataFrame(rows)
    step = min((b - a for a, b in zip(load_list, load_list[1:])), default=0.1)
    flows = worst_case_link_flows(q, sim_seed) if "worstcase" in trs else None
    cl = claims(table, p, step, flows)
    sat = saturation(table)
    summary = pd.DataFrame([{"traffic": t, "routing": r, "saturation": v,
                             "latency_low_load": _latency_at(table, t, r, load_list[0]),
                             "hops_low_load": float(table[(table.traffic == t) & (table.routing == r)]
                                                    .hops_avg.iloc[0])}
                            for (t, r), v in sat.items()])
    held = int((cl.verdict == "holds").sum())
    notes = [
        f"Slim Fly q={q}: {topo.num_switches} routers, network radix {topo.degree}, p={p} hosts "
        f"each, {topo.num_hosts} hosts (the paper: q=19, 722 routers, 10,830 endpoints).  "
        f"{len(table)} simulations in {wall:.0f} s with {workers} worker(s).",
        "Model: 4 VCs x 16 flits (64 flits/port, as the paper), 4-flit packets (the paper: 1 flit), "
        "1-cycle links and router stages, credit delay 2, internal speedup 2; MIN = NR table with "
        "hop-indexed VCs, VAL/UGAL on the same NR routes with VC = hop index; UGAL: 4 random VAL "
        "candidates per packet, chosen at the source switch (docs/sim.md).",
        "saturation: highest offered load (flits/host/cycle) whose run completed; latency in "
        "cycles from creation to delivery.  Worst case: the V-C pattern on the MIN routes "
        "(hosts of unpaired routers idle; loads per active host).",
        f"Claims of V-A / V-C: {held} of {len(cl)} hold (values within one load step, "
        f"{step:g}, count as equal).",
    ]
    notes += backend_notes(simulator)
    if plot:
        draw(table, plot, q)
        notes.append(f"Figure: {plot}")
    return ExperimentResult(
        title=f"Slim Fly V (Figs. 6a, 6d): MIN, VAL, UGAL-L, UGAL-G on SF q={q}, {simulator} simulator",
        table=table, notes=notes, extra_tables={"saturation": summary, "claims": cl})


def draw(table: pd.DataFrame, path, q: int):
    """Latency vs offered load, one panel per traffic (the shape of Figs. 6a, 6d)."""
    import io
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..results import atomic_write_bytes

    path = Path(path)
    trs = list(dict.fromkeys(table.traffic))
    fig, axes = plt.subplots(1, len(trs), figsize=(5.5 * len(trs), 4), squeeze=False)
    for ax, tr in zip(axes[0], trs):
        for rt in ROUTINGS:
            g = table[(table.traffic == tr) & (table.routing == rt) & (table.status == "completed")]
            if len(g):
                ax.plot(g.offered, g.latency_cycles, marker="o", label=f"SF-{rt}")
        ax.set_title(f"{tr} traffic, Slim Fly q={q}")
        ax.set_xlabel("offered load (flits/host/cycle)")
        ax.set_ylabel("latency (cycles)")
        ax.set_xlim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fmt = path.suffix.lower().lstrip(".")
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, metadata={"Creator": "topogen", "Date": None} if fmt == "svg"
                else {"Creator": "topogen"})
    plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())
