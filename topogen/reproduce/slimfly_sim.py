"""``topogen reproduce slimfly-sim``: Slim Fly (Besta, Hoefler) Section V, Fig. 6, on
topogen's reference simulator: latency against offered load for MIN, VAL, UGAL-L and
UGAL-G on a Slim Fly under uniform random (6a), bit-reversal (6b), shift (6c) and
worst-case (6d) traffic, with the figure's Dragonfly (DF-UGAL-L) and fat-tree (FT-ANCA)
curves on networks of about the same host count (``compare``), and the paper's
statements of V-A, V-B and V-C checked (``claims`` table: paper value, ours, verdict).

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
  same pattern for all four routings; hosts of unpaired routers stay idle).  Bit reversal
  and shift on a host count that is not a power of two: only the first 2^b hosts take
  part, as V-B does.
* Comparison curves (:func:`comparison_network`): DF is a balanced Dragonfly cut to about
  SF's host count with UGAL-L (the paper's DF-UGAL-L; hop-indexed VCs, 2 x diameter = 6);
  FT the paper's FT-3, a k-ary 3-tree (``kary-ntree``), with its routing ANCA (``anca``:
  adaptive up to a nearest common ancestor, then the one way down; 1 VC).  Each network's VCs share the paper's 64
  flits per port.  Worst case: DF's group shift (Kim et al. 4.2), FT's ``shift:N/2``
  (every packet crosses the core).  The paper sizes all three at ~10K endpoints.

Fig. 6 as an experiment (``--quick``, ``--full``)
-------------------------------------------------
:func:`study_of` writes the figure as an experiment spec (:mod:`topogen.reproduce.study`):
one content-keyed sweep point per curve, run on the local pool or as a SLURM job array
(``--submit``, then ``--collect``) into one store, each curve resolved to 0.02 load near
its knee, drawn against accepted traffic, and the claims of V-A..V-C judged by
:func:`study_claims`.  ``--full`` is the paper's networks and setup (SF q = 19, the
balanced Dragonfly k = 27, p = 7, the fat tree of :func:`comparison_network` at q = 19,
single-flit packets, 64 flits per port, credit delay 2, speedup 2); ``--quick`` the same
at q = 3.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import pandas as pd

from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult, map_tasks

#: routing label -> topogen algorithm
ROUTINGS = {"MIN": "hop", "VAL": "valiant", "UGAL-L": "ugal-l", "UGAL-G": "ugal-g"}
#: Fig. 6's panels: a (uniform), b (bit reversal), c (shift), d (worst case)
TRAFFICS = ("uniform", "bitrev", "shift", "worstcase")
#: the comparison curves of Fig. 6: label -> (network, topogen algorithm)
COMPARISONS = {"DF-UGAL-L": ("DF", "ugal-l"), "FT-ANCA": ("FT", "anca")}
#: flits of buffer per port (the paper's 64), shared out over the VCs of each network
PORT_BUFFER = 64
SIM_CONFIG = dict(num_vcs=4, vc_buf_size=16, packet_size=4, link_latency=1, credit_delay=2,
                  internal_speedup=2.0, routing_delay=1, vc_alloc_delay=1, sw_alloc_delay=1,
                  st_delay=1)


def comparison_network(name: str, q: int):
    """The Dragonfly (``"DF"``) or three-level fat tree (``"FT"``) compared with SF(q), of
    about the same number of hosts (the paper: within 10 %).

    DF: Kim et al.'s balanced Dragonfly (a = 2p = 2h) with the smallest p whose full size
    (a*h + 1 groups) reaches SF's host count, cut to the number of groups nearest to it
    (q = 3: a=4, p=2, h=2, 7 groups, 56 hosts; q = 5: a=6, p=3, h=3, 11 groups, 198 hosts;
    q = 7: a=8, p=4, h=4, 18 groups, 576 hosts).  FT: the k-ary 3-tree (FT-3, ``kary-ntree``)
    whose ``k**3`` hosts are nearest SF's host count (ties to the smaller): q = 19 gives the
    paper's k = 22 (10,648 hosts for SF's 10,830, 1,452 switches of 44 ports); q = 3:
    k = 4, 64 hosts for 54 (no 3-tree is within 10 %: k = 3 has 27); q = 5: k = 6, 216
    hosts for 200; q = 7: k = 8, 512 hosts for 588.
    """
    from ..generators.dragonfly import dragonfly
    from ..generators.fattree import kary_ntree
    from ..generators.slimfly import slimfly

    hosts = slimfly(q).num_hosts
    if name == "DF":
        p = 1
        while 2 * p * (2 * p * p + 1) * p < hosts:  # a*p*(a*h+1), a = 2p, h = p
            p += 1
        a = 2 * p
        groups = max(2, min(a * p + 1, round(hosts / (a * p))))
        return dragonfly(a, p, p, groups=groups)
    if name == "FT":
        k = max(2, round(hosts ** (1 / 3)))
        k = min((c for c in (k - 1, k, k + 1) if c >= 2), key=lambda c: (abs(c ** 3 - hosts), c))
        return kary_ntree(k, 3)
    raise ParameterError(f"comparison network must be DF or FT, got {name!r}")


def _traffic_for(network: str, traffic: str, topo) -> str:
    """The simulator's pattern for a panel of Fig. 6 on one network: the worst case is
    SF's V-C pattern, Dragonfly's group shift (Kim et al. 4.2) and, on the fat tree, every
    host sending to the host N/2 further (pods are numbered in order, so every packet
    crosses the core switches, V-C's FT-3 pattern)."""
    if traffic != "worstcase" or network == "SF":
        return traffic
    if network == "DF":
        return "groupshift"
    return f"shift:{topo.num_hosts // 2}"


def _names(text: str, allowed, what: str) -> list[str]:
    """``all`` or a comma-separated list of names from ``allowed``."""
    if str(text).strip() == "all":
        return list(allowed)
    names = [x.strip() for x in str(text).split(",") if x.strip()]
    if not names or any(x not in allowed for x in names):
        raise ParameterError(f"{what} must be all or a comma-separated list of "
                             f"{', '.join(allowed)}, got {text!r}")
    return list(dict.fromkeys(names))


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
    from ._backend import PointRunner, load_curve

    if label in COMPARISONS:
        network, algorithm = COMPARISONS[label]
        topo = comparison_network(network, q)
    else:
        network, algorithm = "SF", ROUTINGS[label]
        topo = slimfly(q)
    rt = route(topo, None, algorithm, seed=seed, base="nr")
    config = dict(SIM_CONFIG)
    if network != "SF":  # the paper's 3 VCs at least, a multiple of the routing's count
        vcs = int(rt.num_vcs) * -(-3 // int(rt.num_vcs))  # (DF UGAL-L 6, FT ANCA 3)
        config.update(num_vcs=vcs, vc_buf_size=max(PORT_BUFFER // vcs, config["packet_size"]))
    pattern = _traffic_for(network, traffic, topo)
    run = PointRunner(simulator, rt, traffic=pattern, seed=sim_seed, raw_dir=raw_dir,
                      max_samples=max_samples, **config)
    return load_curve(run, loads, {"traffic": traffic, "routing": label, "network": network}, hops=True)


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
    _comparison_claims(table, sat, step, add)
    return pd.DataFrame(rows, columns=["claim", "traffic", "paper", "ours", "verdict"])


def _comparison_claims(table, sat, step, add) -> None:
    """The statements of V-A, V-B and V-C on SF against DF-UGAL-L and FT-ANCA."""
    eps = 1e-9
    for tr in dict.fromkeys(table.traffic):
        sf = {r: sat[tr, r] for r in ROUTINGS if (tr, r) in sat}
        df, ft = sat.get((tr, "DF-UGAL-L")), sat.get((tr, "FT-ANCA"))
        if not sf:
            continue
        best = max(sf, key=sf.get)
        sf_text = ", ".join(f"SF-{r} {v:g}" for r, v in sf.items())
        if tr == "uniform":
            if df is not None:
                add("DF offers lower bandwidth than SF", tr, "DF < SF",
                    f"DF-UGAL-L {df:g}; {sf_text}", df < sf[best] - eps)
            if ft is not None:
                add("FT-3's bandwidth is slightly higher than SF's", tr, "FT >= SF (slightly)",
                    f"FT-ANCA {ft:g}; {sf_text}", sf[best] - step - eps <= ft <= sf[best] + 2 * step + eps)
            low = min(table.offered)
            lat = {r: _latency_at(table, tr, r, low) for r in ("MIN", "DF-UGAL-L", "FT-ANCA")
                   if (tr, r) in sat}
            if "MIN" in lat and len(lat) > 1:
                add("SF has the lowest latency (lower diameter than DF and FT-3)", tr, "SF lowest",
                    ", ".join(f"{r} {v:.1f}" for r, v in lat.items()) + f" cycles at {low:g}",
                    all(lat["MIN"] < v for r, v in lat.items() if r != "MIN"))
        elif tr in ("bitrev", "shift"):
            if ft is not None and "UGAL-L" in sf and "UGAL-G" in sf:
                add("FT-3's bandwidth is higher than UGAL-L's and only slightly better than "
                    "UGAL-G's", tr, "UGAL-L < FT, FT >= UGAL-G (slightly)",
                    f"FT-ANCA {ft:g}, SF-UGAL-L {sf['UGAL-L']:g}, SF-UGAL-G {sf['UGAL-G']:g}",
                    ft > sf["UGAL-L"] + eps and sf["UGAL-G"] - eps <= ft <= sf["UGAL-G"] + 2 * step + eps)
            if df is not None and "UGAL-L" in sf:
                low = min(table.offered)
                ls, ld = _latency_at(table, tr, "UGAL-L", low), _latency_at(table, tr, "DF-UGAL-L", low)
                add("SF offers slightly higher bandwidth and lower latency than DF", tr,
                    "SF-UGAL-L >= DF-UGAL-L, lower latency",
                    f"saturation SF-UGAL-L {sf['UGAL-L']:g}, DF-UGAL-L {df:g}; latency at {low:g}: "
                    f"{ls:.1f} vs {ld:.1f} cycles", sf["UGAL-L"] >= df - eps and ls < ld)
        elif tr == "worstcase":
            if df is not None and ("VAL" in sf or "UGAL-L" in sf):
                v = max(sf.get("VAL", 0.0), sf.get("UGAL-L", 0.0))
                add("VAL and UGAL-L provide slightly higher bandwidth than DF", tr,
                    "SF VAL/UGAL-L > DF", f"DF-UGAL-L {df:g}; {sf_text}", v > df + eps)
            if ft is not None:
                others = [sf[best]] + ([df] if df is not None else [])
                add("FT-3 (full bandwidth) achieves higher bandwidth than both DF and SF", tr,
                    "FT > DF, SF", f"FT-ANCA {ft:g}; {sf_text}"
                    + (f", DF-UGAL-L {df:g}" if df is not None else ""), ft > max(others) + eps)


@register_experiment("slimfly-sim", paper="Slim Fly (Besta, Hoefler) V, Fig. 6")
def reproduce_slimfly_sim(*, q: int = 3, loads: str = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9",
                          traffic: str = "", routings: str = "all",
                          compare: str = "", seed: int = 1,
                          sim_seed: int = 1, max_samples: int = 6,
                          workers: int = 2, plot: str = "", simulator: str = "reference",
                          raw_dir: str = "", quick: bool = False, full: bool = False,
                          submit: bool = False, collect: bool = False, plan: bool = False,
                          out: str = "", panels: str = "", ugal_threshold: int = 0,
                          ugal_count_packet: bool = False, vc_ranges: bool = False) -> ExperimentResult:
    """Slim Fly V (Fig. 6): MIN, VAL, UGAL-L, UGAL-G latency vs offered load, and the
    Dragonfly and fat-tree curves of the same figure.

    Parameters
    ----------
    q : int
        Slim Fly prime power (3: 18 routers, 54 hosts, a few minutes on 2 cores; 5: 50
        routers, 200 hosts, several times longer).
    loads : str
        Offered loads (flits/host/cycle, fractions of the injection bandwidth),
        comma-separated; each curve stops at its first load that does not complete.
    traffic : str
        Comma-separated panels of Fig. 6: ``uniform`` (6a), ``bitrev`` (6b), ``shift``
        (6c), ``worstcase`` (6d), or ``all``; default ``uniform,worstcase`` (``all`` with
        --quick/--full).
    routings : str
        ``all`` or a comma-separated list of MIN, VAL, UGAL-L, UGAL-G (``none``: no SF
        curve).
    compare : str
        ``none`` (default; ``all`` with --quick/--full), ``all`` or a comma-separated list of the comparison curves of
        Fig. 6: ``DF-UGAL-L`` (a balanced Dragonfly of about SF's host count, UGAL-L with
        hop-indexed VCs) and ``FT-ANCA`` (a three-level fat tree; ANCA is stood in for by
        adaptive minimal routing with an up*/down* escape VC); see
        :func:`comparison_network`.
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
        only); see :mod:`topogen.reproduce._backend`.  With --quick or --full,
        ``booksim`` runs Fig. 6a's BookSim subset instead of the study
        (:func:`crosscheck_specs`: SF MIN at three loads, BookSim's own dragonflynew with
        ugal and fattree with anca at two, each on BookSim and the reference simulator
        with BookSim's routing, the figure's own curve beside them; a table with the
        crossval verdicts, ``crosscheck.csv`` in the folder).
    raw_dir : str
        Folder kept for the BookSim/SST raw output (default: a temporary one, discarded).
    quick : bool
        Run Fig. 6 as an experiment (:func:`study_of`) at today's small size, SF q=3
        against the 54-56-host DF and FT, single-flit packets, short measurement; what
        the tests run.
    full : bool
        Run Fig. 6 as an experiment at the paper's sizes: SF q=19 (722 routers, 10,830
        endpoints), the balanced Dragonfly k=27, p=7 (1,386 routers, 9,702 endpoints)
        and the fat tree of :func:`comparison_network` at q=19.
    submit : bool
        With --quick or --full: send the points the store lacks to SLURM as a job array
        (and a collect job) instead of running them here; run again with --collect when
        the array has ended.
    collect : bool
        With --quick or --full: run nothing, judge and draw what the store holds.
    plan : bool
        With --quick or --full: print what the run would do (points, simulations, CPU
        minutes) and stop.
    out : str
        With --quick or --full: the study's folder (spec, store, figure, claims; default
        ``slimfly-sim-quick`` or ``slimfly-sim-full`` in the working folder).  A rerun
        with the same folder resumes.
    panels : str
        With --quick or --full: the panels of Fig. 6 to run, ``6a``, ``6b``, ``6c``,
        ``6d`` comma-separated or ``all``; default ``6a`` with --full (the six curves of
        uniform traffic, within an hour of CPU), ``all`` with --quick.  ``--traffic``
        names the same panels by their traffic (give one of the two).
    ugal_threshold : int
        With --quick or --full: flits added to the cost of every Valiant candidate of
        UGAL-L/UGAL-G (SF's and DF's), default 0 (the rule as the paper prints it); see
        docs/sim.md, "UGAL".  A reading of the rule is a different experiment: give it
        its own --out.
    ugal_count_packet : bool
        With --quick or --full: count the packet's own flits in every queue UGAL
        compares (default false, the printed rule).
    vc_ranges : bool
        With --quick or --full: VAL's and UGAL's hop ``h`` of an ``n``-hop path on a block
        of the VC classes (``floor(h C/n) .. floor((h+1) C/n) - 1``) instead of VC ``h``
        alone (default false; docs/sim.md, "UGAL").  Give it its own --out.
    """
    from ..generators.slimfly import check_slimfly_q, slimfly

    if (quick or full) and simulator != "reference":
        return _crosscheck_run(quick=quick, full=full, simulator=simulator, submit=submit, collect=collect,
                               plan=plan, out=out, workers=workers)
    if quick or full or submit or collect or plan or out or panels:
        return _study_run(quick=quick, full=full, submit=submit, collect=collect, plan=plan, out=out,
                          traffic=traffic, panels=panels, routings=routings, compare=compare or "all",
                          sim_seed=sim_seed, workers=workers, plot=plot, simulator=simulator,
                          ugal_threshold=ugal_threshold, ugal_count_packet=ugal_count_packet,
                          vc_ranges=vc_ranges)
    if ugal_threshold or ugal_count_packet or vc_ranges:
        raise ParameterError("--ugal-threshold, --ugal-count-packet and --vc-ranges apply to the study runs: "
                             "add --quick or --full")
    traffic = traffic or "uniform,worstcase"
    compare = compare or "none"
    check_slimfly_q(q)
    load_list = _parse_loads(loads)
    trs = _names(traffic, TRAFFICS, "traffic")
    rts = [] if routings == "none" else _names(routings, ROUTINGS, "routings")
    cmp_ = [] if compare == "none" else _names(compare, COMPARISONS, "compare")
    if not rts and not cmp_:
        raise ParameterError("nothing to simulate: give routings or compare")
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
    others = {name: comparison_network(COMPARISONS[name][0], q) for name in cmp_}
    from ._backend import check
    from ._backend import notes as backend_notes

    check(simulator, "slimfly-sim", routings=[ROUTINGS[r] for r in rts] + [COMPARISONS[c][1] for c in cmp_],
          traffics=trs, hosts=int(topo.num_hosts),
          alternative="--routings MIN --traffic uniform --compare none or --simulator reference")
    tmp = tempfile.TemporaryDirectory()
    raw = raw_dir or tmp.name
    tasks = [(q, r, t, load_list, seed, sim_seed, max_samples, simulator, raw)
             for t in trs for r in rts + cmp_]
    wall0 = time.perf_counter()
    rows: list[dict] = []
    with tmp:
        for res in map_tasks(_curve, tasks, workers=workers, desc="slimfly-sim",
                             label=lambda task: f"{task[1]} {task[2]}"):
            rows.extend(res)
    wall = time.perf_counter() - wall0
    table = pd.DataFrame(rows)
    step = min((b - a for a, b in zip(load_list, load_list[1:])), default=0.1)
    flows = worst_case_link_flows(q, sim_seed) if "worstcase" in trs and "MIN" in rts else None
    cl = claims(table, p, step, flows)
    sat = saturation(table)
    summary = pd.DataFrame([{"traffic": t, "routing": r, "saturation": v,
                             "wall_s": float(table[(table.traffic == t) & (table.routing == r)]
                                             .seconds.sum()),
                             "latency_low_load": _latency_at(table, t, r, load_list[0]),
                             "hops_low_load": float(table[(table.traffic == t) & (table.routing == r)]
                                                    .hops_avg.iloc[0])}
                            for (t, r), v in sat.items()])
    held = int((cl.verdict == "holds").sum())
    notes = [
        f"Slim Fly q={q}: {topo.num_switches} routers, network radix {topo.degree}, p={p} hosts "
        f"each, {topo.num_hosts} hosts (the paper: q=19, 722 routers, 10,830 endpoints).  "
        f"{len(table)} simulations in {wall:.0f} s with {workers} worker(s).",
        *[f"{name}: {t.num_switches} routers ({dict(t.params)}), {t.num_hosts} hosts, "
          f"network radix {t.degree}; VC buffers share {PORT_BUFFER} flits per port; worst "
          f"case: {_traffic_for(COMPARISONS[name][0], 'worstcase', t)}."
          for name, t in others.items()],
        "Model: 4 VCs x 16 flits (64 flits/port, as the paper), 4-flit packets (the paper: 1 flit), "
        "1-cycle links and router stages, credit delay 2, internal speedup 2; MIN = NR table with "
        "hop-indexed VCs, VAL/UGAL on the same NR routes with VC = hop index; UGAL: 4 random VAL "
        "candidates per packet, chosen at the source switch (docs/sim.md).",
        "saturation: highest offered load (flits/host/cycle) whose run completed; latency in "
        "cycles from creation to delivery.  Worst case: the V-C pattern on the MIN routes "
        "(hosts of unpaired routers idle; loads per active host).",
        f"Claims of V-A / V-B / V-C: {held} of {len(cl)} hold (values within one load step, "
        f"{step:g}, count as equal).",
    ]
    notes += backend_notes(simulator)
    if plot:
        draw(table, plot, q)
        notes.append(f"Figure: {plot}")
    return ExperimentResult(
        title=f"Slim Fly V (Fig. 6): MIN, VAL, UGAL-L, UGAL-G on SF q={q}"
              + (f" vs {', '.join(cmp_)}" if cmp_ else "") + f", {simulator} simulator",
        table=table, notes=notes, extra_tables={"saturation": summary, "claims": cl})


def draw(table: pd.DataFrame, path, q: int):
    """Latency vs offered load, one panel per traffic (the shape of Figs. 6a, 6d)."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    trs = list(dict.fromkeys(table.traffic))
    fig, axes = plt.subplots(1, len(trs), figsize=(5.5 * len(trs), 4), squeeze=False)
    for ax, tr in zip(axes[0], trs):
        for rt in (*ROUTINGS, *COMPARISONS):
            g = table[(table.traffic == tr) & (table.routing == rt) & (table.status == "completed")]
            if len(g):
                ax.plot(g.offered, g.latency_cycles, marker="o",
                        label=rt if rt in COMPARISONS else f"SF-{rt}",
                        linestyle="--" if rt in COMPARISONS else "-")
        ax.set_title(f"{tr} traffic, Slim Fly q={q}")
        ax.set_xlabel("offered load (flits/host/cycle)")
        ax.set_ylabel("latency (cycles)")
        ax.set_xlim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    from ._figs_common import save_figure

    return save_figure(fig, path)


# =============================================================================== Fig. 6 as a study
#: Fig. 6's panels by traffic
PANELS = {"uniform": "6a", "bitrev": "6b", "shift": "6c", "worstcase": "6d"}
PANEL_TITLES = {"6a": "6a: random uniform", "6b": "6b: bit reversal (8,192 active endpoints)",
                "6c": "6c: shift (8,192 active endpoints)", "6d": "6d: worst case"}
#: the paper's balanced Dragonfly of Fig. 6 (V): k = 27, p = 7, a = 2p = 14, h = p = 7,
#: a*h + 1 = 99 groups, 1,386 routers, 9,702 endpoints
PAPER_DRAGONFLY = {"a": 14, "p": 7, "h": 7}
#: the simulator setup of Fig. 6 (V): single-flit packets, 64 flits per port shared by the
#: VCs (at least the paper's 3: the smallest multiple of the routing's hop-indexed VC count,
#: so MIN, VAL and UGAL run 4 x 16 flits, the Dragonfly's UGAL-L 6 x 10), credit delay 2,
#: 1-cycle channels and stages, internal speedup 2, BookSim's measurement (``sim_type =
#: latency``: warm-up periods, then sample periods until the means move by under 5 % for
#: three periods in a row, at most ``max_samples``, then a drain) with sample periods of
#: :data:`FULL_SAMPLE_PERIOD` cycles
FULL_SAMPLE_PERIOD = 100
#: BookSim's 1,000-cycle period is sized for its usual 64-node networks (64 packets a cycle
#: at load 1).  At ~10K endpoints a cycle carries ~10,000 x load packets: the lowest load
#: of a sweep, 0.01, delivers 108 packets a cycle on SF q=19, so each 100-cycle period holds
#: about 10,800 packets and the four sample periods 43,000 (standard error of the mean
#: latency about 0.01 cycles at a spread of 2-3 cycles; hundreds of thousands of packets
#: and less above it).  Warm-up: 3 periods, 300 cycles, over 20 times the zero-load
#: latency (~11 cycles).
FULL_MEASURE = {"packet_size": 1, "num_vcs": 3, "vc_buf_size": 16, "link_latency": 1, "credit_delay": 2,
                "warmup_periods": 3, "sample_period": FULL_SAMPLE_PERIOD, "max_samples": 10,
                "latency_thres": 500.0}
QUICK_MEASURE = dict(FULL_MEASURE, warmup_periods=1, sample_period=500, max_samples=4)
STUDY_REFERENCE = {"internal_speedup": 2.0, "routing_base": "nr", "port_buffer": PORT_BUFFER, "candidates": 4}
#: loads below saturation per curve (:func:`~topogen.reproduce.study.knee_sweep`): full, quick
SWEEP_POINTS = {"full": 8, "quick": 8}
#: CPU seconds per packet-hop of the reference simulator on Fig. 6's setup, by routing
#: and network (``"generator:routing"``, then ``"routing"``, ``"*"`` the rest), for the
#: estimate printed before a run (packet-hops: cycles x endpoints x injected rate x the
#: row's ``hops_avg``).  Measured 2026-11-29 on this 2-core machine beside other jobs, CPU
#: time (``time.process_time``) of one short run per curve of 6a at the paper's sizes with
#: V's setup (1 warm-up and at most 3 sample periods of 200 cycles, about 660 cycles; numba
#: compilation and the network's set-up not counted), all on the compiled engine: SF q=19
#: MIN at 0.5 (11.7 million packet-hops in 19.0 s), UGAL-L at 0.4 (10.0 M in 18.2 s),
#: UGAL-G at 0.4 (9.1 M in 19.1 s), VAL at 0.2 (7.1 M in 45.4 s; at 0.1 3.5 M in 26.6 s: about
#: 8 s a simulation plus 5.3 us a packet-hop); the balanced Dragonfly k=27,
#: p=7 with UGAL-L at 0.2 (6.5 M in 12.3 s); FT-3 k=22 with ANCA at 0.4 (13.9 M in 27.2 s).
#: docs/reproductions.md has the table.
CPU_SECONDS_PER_PACKET_HOP = {"*": 2.1e-6, "hop": 1.63e-6, "valiant": 6.4e-6, "ugal-l": 1.82e-6,
                              "dragonfly:ugal-l": 1.88e-6, "ugal-g": 2.10e-6, "anca": 1.96e-6}


#: one curve of the full Fig. 6a run for real (2026-11-29, ``--full --routings MIN --compare
#: none --workers 1`` under ``nice`` beside other jobs, /usr/bin/time): SF q=19 MIN, knee
#: bracket 0.629-0.644 (throughput 0.58), 14 simulations, 424.7 s of CPU (409.5 user +
#: 15.2 system, start-up and numba compilation included), 2.2 GB
MEASURED_CURVE = {"label": "SF-MIN", "panel": "6a", "knee": 0.629, "simulations": 14, "cpu_s": 424.7}
#: where the paper's curves saturate (V-A, V-C, V-E), for the plan's estimate only (the
#: claims check them): 6a MIN and UGAL-G 87.5 % ("the full-bandwidth SF can accept up to
#: 87.5 %", the best of the four), UGAL-L 80 %, VAL under 50 % (0.45 assumed), FT-3
#: slightly above SF (0.9); 6d MIN 1/(p+1), VAL 40 %, UGAL-L 45 %.  The rest (DF, which
#: the paper gives no number for, and 6b, 6c) at the plan's default.
PAPER_KNEES = {("SF-MIN", "6a"): 0.875, ("SF-UGAL-G", "6a"): 0.875, ("SF-UGAL-L", "6a"): 0.8,
               ("SF-VAL", "6a"): 0.45, ("FT-ANCA", "6a"): 0.9, ("SF-MIN", "6d"): 1 / 16, ("SF-VAL", "6d"): 0.4,
               ("SF-UGAL-L", "6d"): 0.45}


def study_of(mode: str, traffics=tuple(TRAFFICS), routings=tuple(ROUTINGS), compare=tuple(COMPARISONS),
             seed: int = 1, ugal_threshold: int = 0, ugal_count_packet: bool = False,
             vc_ranges: bool = False):
    """Fig. 6 as a :class:`~topogen.reproduce.study.Study`: ``mode`` ``"full"`` (the
    paper's networks) or ``"quick"`` (SF q=3 and the DF and FT of
    :func:`comparison_network` at q=3), the panels of ``traffics``, the SF curves of
    ``routings`` and the comparison curves of ``compare``; ``ugal_threshold`` /
    ``ugal_count_packet`` set UGAL's optional readings (in the spec's ``[reference]``
    only when they change the printed rule), ``vc_ranges`` VAL's and UGAL's VC blocks
    (likewise only when set)."""
    from .study import Curve, Network, Study, knee_sweep

    if mode not in ("full", "quick"):
        raise ParameterError(f"mode must be full or quick, got {mode!r}")
    q = 19 if mode == "full" else 3
    nets = {"SF": Network("SF", "slimfly", {"q": q}, f"Slim Fly MMS q={q}")}
    for name in compare:
        key, _ = COMPARISONS[name]
        if key == "DF" and mode == "full":
            nets["DF"] = Network("DF", "dragonfly", dict(PAPER_DRAGONFLY), "balanced Dragonfly k=27, p=7")
        else:
            t = comparison_network(key, q)
            nets[key] = Network(key, t.name, _spec_params(t), f"{t.name} of about SF q={q}'s host count")
    curves = []
    for tr in traffics:
        for r in routings:
            curves.append(Curve(f"SF-{r}", "SF", ROUTINGS[r], tr, PANELS[tr]))
        for name in compare:
            key, algorithm = COMPARISONS[name]
            n = nets[key]
            hosts = _hosts(n)
            pattern = tr if tr != "worstcase" else ("groupshift" if key == "DF" else f"shift:{hosts // 2}")
            curves.append(Curve(name, key, algorithm, pattern, PANELS[tr]))
    knees = {(c.label, c.panel): PAPER_KNEES[c.label, c.panel] for c in curves if (c.label, c.panel) in PAPER_KNEES}
    reference = dict(STUDY_REFERENCE)
    if ugal_threshold:
        reference["ugal_threshold"] = int(ugal_threshold)
    if ugal_count_packet:
        reference["ugal_count_packet"] = True
    if vc_ranges:
        reference["vc_ranges"] = True
    return Study(name=f"slimfly-fig6-{mode}", networks=nets, curves=curves, knees=knees,
                 measure=dict(FULL_MEASURE if mode == "full" else QUICK_MEASURE),
                 reference=reference, sweep=knee_sweep(SWEEP_POINTS["full" if mode == "full" else "quick"]),
                 seed=seed, description=f"Slim Fly (Besta, Hoefler) Fig. 6, {mode}")


def _spec_params(topology) -> dict:
    """A generated topology's parameters as a spec takes them (those of its generator)."""
    from ..registry import get

    known = {p.name for p in get(topology.name).params}
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dict(topology.params).items() if k in known}


def _hosts(network) -> int:
    from ..registry import generate

    return int(generate(network.generator, **network.params).num_hosts)


def study_claims(study, p: int):
    """The statements of V-A, V-B and V-C (Fig. 6) as :class:`~topogen.reproduce.study.Claim`
    objects over the curves ``study`` has; ``p`` is SF's endpoints per router."""
    from .study import KNEE_RESOLUTION as EPS
    from .study import Claim

    have = {(c.label, c.panel) for c in study.curves}
    claims = []

    def sat(res, label, panel):
        return res[label, panel].sustained

    def add(text, panel, paper, tolerance, labels, check, saturation=True):
        keys = tuple((lab, panel) for lab in labels)
        if all(k in have for k in keys):
            # the figure's axis ends at the injection rate: a curve that sustains all of it
            # counts there (resolved at 1), as in the other studies
            claims.append(Claim(text, panel, paper, tolerance, keys, check, saturation, capped=True))

    sf = [f"SF-{r}" for r in ROUTINGS]
    a = "6a"

    def best_min_ugalg(res):
        s = {lab: sat(res, lab, a) for lab in sf}
        best = max(s.values())
        ok = min(s["SF-MIN"], s["SF-UGAL-G"]) >= best - EPS
        return (", ".join(f"{k[3:]} {v:.3g}" for k, v in s.items()), ok,
                "" if ok else f"the best SF routing saturates at {best:.3g}")
    add("UGAL-G and MIN achieve the best performance", a, "highest saturation of the SF routings",
        f"within {EPS:g}", sf, best_min_ugalg)

    def around(label, panel, target, tol):
        def check(res):
            v = sat(res, label, panel)
            ok = abs(v - target) <= tol + 1e-9
            return f"{v:.3g}", ok, "" if ok else f"{v:.3g} is {v - target:+.3g} from {target:g}"
        return check

    def below(label, panel, bound):
        def check(res):
            v = sat(res, label, panel)
            return f"{v:.3g}", v < bound, "" if v < bound else f"{v:.3g} is not below {bound:g}"
        return check

    add("VAL saturates at less than 50% of the injection rate", a, "< 0.5", "none (bound)", ["SF-VAL"],
        below("SF-VAL", a, 0.5))
    add("UGAL-L saturates at 80% of the injection rate", a, "0.8", "+-0.05", ["SF-UGAL-L"],
        around("SF-UGAL-L", a, 0.8, 0.05))
    add("The full-bandwidth SF accepts up to 87.5% of the traffic (V-E)", a, "0.875", "+-0.05", ["SF-MIN"],
        around("SF-MIN", a, 0.875, 0.05))

    def val_latency(res):
        lat = {lab: res[lab, a].latency_at_lowest() for lab in sf}
        ok = all(lat["SF-VAL"] > v for k, v in lat.items() if k != "SF-VAL")
        return ", ".join(f"{k[3:]} {v:.1f}" for k, v in lat.items()) + " cycles", ok, \
            "" if ok else "VAL is not the slowest at the lowest load"
    add("VAL takes longer paths: the highest latency at low load", a, "VAL highest", "none", sf, val_latency,
        saturation=False)
    if "DF-UGAL-L" in COMPARISONS:
        def df_lower(res):
            best = max(sat(res, lab, a) for lab in sf)
            d = sat(res, "DF-UGAL-L", a)
            return f"DF {d:.3g}, best SF {best:.3g}", d < best - EPS, "" if d < best - EPS else \
                f"DF's {d:.3g} is not below SF's {best:.3g} by more than {EPS:g}"
        add("DF offers lower bandwidth than SF", a, "DF < SF", f"more than {EPS:g}", sf + ["DF-UGAL-L"], df_lower)
    if "FT-ANCA" in COMPARISONS:
        def ft_slightly(res):
            best = max(sat(res, lab, a) for lab in sf)
            f = sat(res, "FT-ANCA", a)
            ok = best - EPS <= f <= best + 0.1
            return f"FT {f:.3g}, best SF {best:.3g}", ok, "" if ok else \
                f"FT's {f:.3g} is not within [{best - EPS:.3g}, {best + 0.1:.3g}]"
        add("FT-3's bandwidth is slightly higher than SF's", a, "SF <= FT <= SF + 0.1", f"{EPS:g} below",
            sf + ["FT-ANCA"], ft_slightly)

        def sf_lowest(res):
            lat = {lab: res[lab, a].latency_at_lowest() for lab in ("SF-MIN", "DF-UGAL-L", "FT-ANCA")}
            ok = all(lat["SF-MIN"] < v for k, v in lat.items() if k != "SF-MIN")
            return ", ".join(f"{k} {v:.1f}" for k, v in lat.items()) + " cycles", ok, \
                "" if ok else "SF-MIN is not the lowest at the lowest load"
        add("SF has the lowest latency (lower diameter than DF and FT-3)", a, "SF lowest", "none",
            ["SF-MIN", "DF-UGAL-L", "FT-ANCA"], sf_lowest, saturation=False)
    for panel in ("6b", "6c"):
        def ft_vs_ugal(res, panel=panel):
            f, ul, ug = (sat(res, lab, panel) for lab in ("FT-ANCA", "SF-UGAL-L", "SF-UGAL-G"))
            ok = f > ul + EPS and ug - EPS <= f <= ug + 0.1
            return f"FT {f:.3g}, UGAL-L {ul:.3g}, UGAL-G {ug:.3g}", ok, "" if ok else \
                "FT is not above UGAL-L and at most slightly above UGAL-G"
        add("FT-3's bandwidth is higher than UGAL-L's and only slightly better than UGAL-G's", panel,
            "UGAL-L < FT, UGAL-G <= FT <= UGAL-G + 0.1", f"{EPS:g}", ["FT-ANCA", "SF-UGAL-L", "SF-UGAL-G"], ft_vs_ugal)

        def sf_vs_df(res, panel=panel):
            best = max(sat(res, lab, panel) for lab in sf)
            d = sat(res, "DF-UGAL-L", panel)
            ls = min(res[lab, panel].latency_at_lowest() for lab in sf)
            ld = res["DF-UGAL-L", panel].latency_at_lowest()
            ok = best >= d - EPS and ls < ld
            return f"saturation SF {best:.3g}, DF {d:.3g}; latency SF {ls:.1f}, DF {ld:.1f}", ok, \
                "" if ok else "SF's bandwidth or latency is not the better"
        add("SF offers slightly higher bandwidth and lower latency than DF", panel, "SF >= DF, SF latency lower",
            f"{EPS:g}", sf + ["DF-UGAL-L"], sf_vs_df)
    d = "6d"
    bound = 1.0 / (p + 1)

    def min_bound(res):
        v = sat(res, "SF-MIN", d)
        ok = v <= bound + EPS
        return f"{v:.3g}", ok, "" if ok else f"{v:.3g} is above 1/(p+1) = {bound:.3g}"
    add("MIN routing is limited to 1/(p+1) throughput", d, f"1/(p+1) = {bound:.3g} (p = {p})", f"+{EPS:g}",
        ["SF-MIN"], min_bound)
    add("VAL supports up to 40% offered load", d, "0.4", "+-0.05", ["SF-VAL"], around("SF-VAL", d, 0.4, 0.05))
    add("UGAL-L supports up to 45% offered load", d, "0.45", "+-0.05", ["SF-UGAL-L"],
        around("SF-UGAL-L", d, 0.45, 0.05))

    def df_below(res):
        v = max(sat(res, "SF-VAL", d), sat(res, "SF-UGAL-L", d))
        df = sat(res, "DF-UGAL-L", d)
        return f"SF VAL/UGAL-L {v:.3g}, DF {df:.3g}", v > df, "" if v > df else "DF sustains as much"
    add("VAL and UGAL-L provide slightly higher bandwidth than DF", d, "SF > DF", "none",
        ["SF-VAL", "SF-UGAL-L", "DF-UGAL-L"], df_below)

    def ft_top(res):
        f = sat(res, "FT-ANCA", d)
        others = {lab: sat(res, lab, d) for lab in sf + ["DF-UGAL-L"]}
        ok = f > max(others.values()) + EPS
        return f"FT {f:.3g}, best other {max(others.values()):.3g}", ok, "" if ok else "FT is not the highest"
    add("FT-3 (full bandwidth) achieves higher bandwidth than both DF and SF", d, "FT > DF, SF",
        f"more than {EPS:g}", ["FT-ANCA", "DF-UGAL-L"] + sf, ft_top)
    return claims


def _study_announce(**kwargs) -> str | None:
    """The plan of a --quick/--full run, printed by ``topogen reproduce`` before it starts
    (:func:`topogen.reproduce.study.announce`)."""
    from .study import announce

    if kwargs.get("simulator", "reference") != "reference" and (kwargs.get("quick") or kwargs.get("full")):
        if kwargs.get("plan") or kwargs.get("collect") or kwargs.get("submit"):
            return ""
        loads = sum(len(v) for v in CROSSCHECK_LOADS.values())
        return (f"Fig. 6a's subset on BookSim2: {loads} loads of SF MIN, DF UGAL and FT-3 ANCA, each on BookSim and "
                "the reference simulator, and the figure's own curves at the same loads"
                + ("; at the paper's sizes a BookSim run takes minutes to tens of minutes of CPU (about 18 us a "
                   "packet-hop)" if kwargs.get("full") else ""))
    text = announce(kwargs, _expanded, CPU_SECONDS_PER_PACKET_HOP)
    note = _panels_note(kwargs) if text else ""
    return f"{text}; {note}" if note else text


def _study_traffics(kwargs, mode: str) -> list[str]:
    """The traffics (panels) of a --quick/--full run: ``panels`` (6a..6d or all) or
    ``traffic`` (their traffic names), by default 6a with --full and all with --quick."""
    traffic, panels = kwargs.get("traffic") or "", kwargs.get("panels") or ""
    if traffic and panels:
        raise ParameterError("--panels and --traffic both choose the panels of Fig. 6 (6a uniform, 6b bitrev, 6c "
                             "shift, 6d worstcase): give one")
    if panels:
        names = _names(panels, tuple(PANELS[t] for t in TRAFFICS), "panels")
        return [t for t in TRAFFICS if PANELS[t] in names]
    if traffic:
        return _names(traffic, TRAFFICS, "traffic")
    return ["uniform"] if mode == "full" else list(TRAFFICS)


def _panels_note(kwargs) -> str:
    """What a --full run leaves out: the panels of Fig. 6 one flag away."""
    if not kwargs.get("full"):
        return ""
    trs = _study_traffics(kwargs, "full")
    left = [PANELS[t] for t in TRAFFICS if t not in trs]
    if not left:
        return ""
    return (f"panels {', '.join(PANELS[t] for t in trs)} of Fig. 6; {', '.join(left)} run with --panels all (or "
            f"--panels {','.join(PANELS[t] for t in TRAFFICS)}; {len(left)} more panel(s) of six curves "
            "each)")


def _expanded(kwargs):
    from .study import expand

    quick, full = kwargs.get("quick", False), kwargs.get("full", False)
    if quick == full:
        raise ParameterError("give exactly one of --quick (SF q=3, minutes) and --full (the paper's sizes: "
                             "SF q=19, DF k=27 p=7, FT-3; hours)")
    mode = "full" if full else "quick"
    trs = _study_traffics(kwargs, mode)
    routings = kwargs.get("routings", "all")
    rts = [] if routings == "none" else _names(routings, ROUTINGS, "routings")
    compare = kwargs.get("compare") or "all"
    cmp_ = [] if compare == "none" else _names(compare, COMPARISONS, "compare")
    if not rts and not cmp_:
        raise ParameterError("nothing to simulate: give routings or compare")
    study = study_of(mode, trs, rts, cmp_, seed=int(kwargs.get("sim_seed", kwargs.get("seed", 1))),
                     ugal_threshold=int(kwargs.get("ugal_threshold") or 0),
                     ugal_count_packet=bool(kwargs.get("ugal_count_packet")),
                     vc_ranges=bool(kwargs.get("vc_ranges")))
    folder = kwargs.get("out") or f"slimfly-sim-{mode}"
    return study, expand(study, folder)


def _study_run(**kwargs) -> ExperimentResult:
    """Fig. 6 as an experiment (``--quick``/``--full``; see :func:`study_of`)."""
    from .study import reference_study_run

    full = bool(kwargs.get("full"))

    def claims(study):
        p = int(_hosts(study.networks["SF"]) // study.networks["SF"].params["q"] ** 2 // 2)
        return study_claims(study, p)

    def draw(study):
        return dict(panels=[PANELS[t] for t in TRAFFICS if any(c.panel == PANELS[t] for c in study.curves)],
                    titles=PANEL_TITLES, dashed=lambda lab: lab in COMPARISONS,
                    suptitle=f"Slim Fly Fig. 6 ({'paper sizes' if full else 'quick: SF q=3'}): latency vs "
                             "accepted traffic")

    return reference_study_run(
        kwargs, _expanded, claims, title="Slim Fly V (Fig. 6) as experiment {name}", figure="fig6.png",
        refusal="the study runs on the reference simulator; Fig. 6a's BookSim subset runs with --quick or --full and "
                "--simulator booksim, the small BookSim/SST curves without them (--simulator booksim --routings MIN "
                "--traffic uniform --compare none)",
        seconds_per_hop=CPU_SECONDS_PER_PACKET_HOP, draw=draw,
        notes=lambda study: [n for n in (_panels_note(kwargs), _setup_note(study)) if n])


def _ugal_reading(reference: dict) -> str:
    """UGAL's optional readings of a study's ``[reference]`` (empty for the printed rule)."""
    parts = []
    if reference.get("ugal_count_packet"):
        parts.append("the packet's own flits counted in each queue")
    if reference.get("ugal_threshold"):
        parts.append(f"a Valiant path only when its cost + {reference['ugal_threshold']} flits is lower")
    if reference.get("vc_ranges"):
        parts.append("hop h of an n-hop path on VC classes floor(h C/n) .. floor((h+1) C/n) - 1")
    return f" ({'; '.join(parts)}; not the rule as printed)" if parts else ""


def _setup_note(study) -> str:
    m, r = study.measure, study.reference
    nets = "; ".join(f"{k}: {n.description} ({n.generator} {n.params})" for k, n in study.networks.items())
    return (f"networks: {nets}. Setup (V): {m['packet_size']}-flit packets, Bernoulli injection, input-queued "
            f"routers, {r['port_buffer']} flits per port shared by at least {m['num_vcs']} VCs (the smallest "
            "multiple of the routing's hop-indexed VC count: MIN/VAL/UGAL 4 x 16, DF UGAL-L 6 x 10), credit "
            f"delay {m['credit_delay']}, internal speedup {r['internal_speedup']:g}, {m['link_latency']}-cycle "
            f"channels and stages, UGAL with {r['candidates']} Valiant candidates{_ugal_reading(r)}; warm-up {m['warmup_periods']} "
            f"x {m['sample_period']} cycles, at most {m['max_samples']} periods. Bit reversal and shift: the "
            "first 8,192 endpoints (the largest power of two) send and receive on all three full-size networks.")


reproduce_slimfly_sim.announce = _study_announce


# ------------------------------------------------------------------------------- on BookSim2
#: loads of the cross-check on BookSim2 (below each curve's knee): SF MIN at three, the
#: Dragonfly at two low ones (BookSim's dragonflynew has 10-cycle local and 100-cycle global
#: channels, so 21-flit VCs pass about 0.1 flits a cycle per global channel), FT-3 at two
CROSSCHECK_LOADS = {"SF": (0.2, 0.5, 0.8), "DF": (0.02, 0.05), "FT": (0.2, 0.5)}
#: the figure's curve each cross-check network stands beside
CROSSCHECK_FIGURE = {"SF": ("SF-MIN", "hop"), "DF": ("DF-UGAL-L", "ugal-l"), "FT": ("FT-ANCA", "anca")}
#: Fig. 6's Slim Fly routings BookSim cannot run, and why
CROSSCHECK_NOT_RUN = {
    name: "BookSim's anynet (the only BookSim topology that takes topogen's Slim Fly) routes with its own minimal "
          "tables only (routing_function = min)" for name in ("SF-VAL", "SF-UGAL-L", "SF-UGAL-G")}
#: a BookSim run at the paper's size is minutes to an hour (about 18 us of CPU per packet-hop)
CROSSCHECK_TIMEOUT = 6 * 3600.0


def crosscheck_networks(mode: str) -> list:
    """The cross-check's networks (:class:`~topogen.reproduce.study.CrossNetwork`):
    ``full`` SF MMS q=19 on anynet with ``min``, BookSim's own ``dragonflynew`` k=7
    (1,386 routers, 9,702 nodes) with ``ugal`` and ``fattree`` k=22, n=3 (1,452 routers,
    10,648 nodes) with ``anca``; ``quick`` SF q=5, dragonflynew k=2, fattree k=4, n=3."""
    from .crossval_native import native_family
    from .study import CrossNetwork

    if mode not in ("full", "quick"):
        raise ParameterError(f"mode must be full or quick, got {mode!r}")
    q, dk, (fk, fn) = (19, 7, (22, 3)) if mode == "full" else (5, 2, (4, 3))
    df = native_family("dragonfly", k=dk, n=1, routing="ugal")
    ft = native_family("fattree", k=fk, n=fn, routing="anca")
    return [CrossNetwork("SF", "slimfly", {"q": q}, "booksim-min", f"Slim Fly MMS q={q} (anynet, min)"),
            CrossNetwork("DF", df.generator, dict(df.params), df.routing,
                         f"BookSim's {df.label} with ugal ({df.hosts} nodes)", dict(df.booksim),
                         dict(df.kind_latency)),
            CrossNetwork("FT", ft.generator, dict(ft.params), ft.routing,
                         f"BookSim's {ft.label} with anca ({ft.hosts} nodes)", dict(ft.booksim))]


def crosscheck_measure(mode: str) -> dict:
    """The cross-check's ``[measure]``: Fig. 6's setup (V) on both simulators -- 1-flit
    packets, 3 VCs of 21 flits (63 of the paper's 64 flits per port: BookSim's buffers are
    per VC), credit delay 2, internal speedup 2, 1-cycle channels and stages."""
    base = FULL_MEASURE if mode == "full" else QUICK_MEASURE
    m = dict(base, vc_buf_size=PORT_BUFFER // base["num_vcs"], internal_speedup=2.0)
    if mode == "full":
        m["timeout"] = CROSSCHECK_TIMEOUT
    return m


def check_structure(networks) -> list:
    """Each network with BookSim options is BookSim's own network, router for router (the
    identity is a graph isomorphism with the host counts); one line per network."""
    from .crossval_native import _topogen_graph, native_family, native_graph

    lines = []
    for n in networks:
        if not n.booksim:
            continue
        o = n.booksim
        fam = native_family("dragonfly" if o["topology"] == "dragonflynew" else o["topology"], k=o["k"], n=o["n"],
                            routing=o["routing_function"])
        from ..registry import generate

        a, b = native_graph(fam), _topogen_graph(generate(n.generator, **n.params))
        same = (set(a.nodes) == set(b.nodes) and {frozenset(e) for e in a.edges} == {frozenset(e) for e in b.edges}
                and all(a.nodes[i]["hosts"] == b.nodes[i]["hosts"] for i in a.nodes))
        if not same:
            raise ParameterError(f"{n.key}: topogen's {n.generator} {n.params} is not BookSim's {fam.label} router "
                                 "for router; the cross-check needs the same network on both simulators")
        lines.append(f"{n.key}: topogen's {n.generator} {n.params} is BookSim's {fam.label} router for router "
                     f"({a.number_of_nodes()} routers, {a.number_of_edges()} channels, "
                     f"{sum(h for _, h in a.nodes(data='hosts'))} nodes)")
    return lines


def crosscheck_specs(mode: str, folder, *, repeats: int = 1, loads: dict | None = None):
    """(cross-check experiment, figure-points experiment, networks, structure lines) of the
    BookSim subset of Fig. 6a in ``folder``: the cross-check runs each network on the
    reference simulator and on BookSim with BookSim's routing, the figure points run the
    figure's own routing and setup (V) on the same networks at the same loads."""
    from .study import Curve, Network, Study, crosscheck_document, fixed_load_document, knee_sweep, write_spec

    nets = crosscheck_networks(mode)
    structure = check_structure(nets)
    loads = dict(CROSSCHECK_LOADS if loads is None else loads)
    name = f"slimfly-fig6-{mode}-booksim"
    doc = crosscheck_document(name, nets, loads, crosscheck_measure(mode), repeats=repeats,
                              description=f"Slim Fly (Besta, Hoefler) Fig. 6a, {mode}: a subset on the reference "
                                          "simulator and BookSim2 with BookSim's routings")
    exp = write_spec(doc, folder, f"topogen study {name}: Fig. 6a's networks on the reference simulator and "
                                  "BookSim2\nwritten by topogen reproduce slimfly-sim --simulator booksim")
    fig_nets = {n.key: Network(n.key, n.generator, dict(n.params), n.description) for n in nets if loads.get(n.key)}
    curves = [Curve(CROSSCHECK_FIGURE[k][0], k, CROSSCHECK_FIGURE[k][1], "uniform", "6a") for k in fig_nets]
    fig_study = Study(name=f"slimfly-fig6-{mode}-figure-points", networks=fig_nets, curves=curves,
                      measure=dict(FULL_MEASURE if mode == "full" else QUICK_MEASURE),
                      reference=dict(STUDY_REFERENCE), sweep=knee_sweep(SWEEP_POINTS[mode]),
                      description=f"Slim Fly Fig. 6a, {mode}: the figure's routings at the cross-check's loads")
    fig_doc = fixed_load_document(fig_study, {(CROSSCHECK_FIGURE[k][0], "6a"): loads[k] for k in fig_nets})
    fig_exp = write_spec(fig_doc, folder, f"topogen study {fig_study.name}: {fig_study.description}")
    figure_of = {k: (fig_study.label_of(k), CROSSCHECK_FIGURE[k][1]) for k in fig_nets}
    return exp, fig_exp, nets, structure, figure_of


def _crosscheck_run(*, quick: bool, full: bool, simulator: str, submit: bool, collect: bool, plan: bool,
                    out: str, workers: int, repeats: int = 1) -> ExperimentResult:
    """Fig. 6a's BookSim subset (``--quick``/``--full`` with ``--simulator booksim``)."""
    from ..output import atomic_write
    from . import study as st
    from ._backend import check_simulator

    if quick == full:
        raise ParameterError("give exactly one of --quick (SF q=5, dragonflynew k=2, fattree k=4 n=3) and --full "
                             "(the paper's sizes) with --simulator booksim")
    if simulator == "sst":
        raise ParameterError("SST merlin has no Slim Fly topology (merlin.dragonfly and merlin.fattree have their own "
                             "routings, not anynet's min or BookSim's ugal/anca); the Fig. 6 subset runs on "
                             "--simulator booksim")
    if simulator != "booksim":
        raise ParameterError(f"simulator must be reference, booksim or sst, got {simulator!r}")
    if submit and collect:
        raise ParameterError("--submit sends the points to SLURM, --collect gathers them when the array has "
                             "ended: give one")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers must be an integer >= 1, got {workers!r}")
    mode = "full" if full else "quick"
    if not (plan or collect or submit):
        check_simulator("booksim")
    folder = Path(out or f"slimfly-sim-{mode}-booksim")
    exp, fig_exp, nets, structure, figure_of = crosscheck_specs(mode, folder, repeats=repeats)
    title = f"Slim Fly V (Fig. 6a) on BookSim2 and the reference simulator ({mode})"
    notes = list(structure) + [f"specs: {exp.path} (store {exp.store}); {fig_exp.path} (store {fig_exp.store})"]
    if plan:
        rows = [{"spec": e.name, "point": p.id, "network": p.content["topology"]["label"],
                 "routing": p.content["routing"], "load": p.content["load"], "simulator": p.content["simulator"]}
                for e in (exp, fig_exp) for p in e.points]
        return ExperimentResult(title=title + ": plan", table=pd.DataFrame(rows), notes=notes)
    if submit:
        for e in (exp, fig_exp):
            info = st.submit(e)
            notes.append(f"{e.name}: submitted {info['points']} point(s) as SLURM job {info['job']} "
                         f"({info['tasks']} array task(s)); collect job {info['collect_job']}" if info["points"]
                         else f"{e.name}: nothing to submit, every point is in the store")
        notes.append("when the arrays have ended run the same command with --collect instead of --submit")
        return ExperimentResult(title=title + ": submitted", table=pd.DataFrame(), notes=notes)
    if not collect:
        for e in (exp, fig_exp):
            summary = st.run_local(e, jobs=workers)
            notes.append(f"{e.name}: " + summary.table().replace("\n", "; "))
    table = st.crosscheck_table(exp, nets, figure=fig_exp, figure_of=figure_of)
    atomic_write(folder / "crosscheck.csv", table.to_csv(index=False))
    not_run = pd.DataFrame([{"curve": k, "reason": v} for k, v in CROSSCHECK_NOT_RUN.items()])
    from .crossval_native import LATENCY_TOLERANCE, ZERO_LOAD, ZERO_TOLERANCE
    from .crossval_verdicts import NOISE_Z

    notes += [f"table: {folder / 'crosscheck.csv'}",
              f"verdicts: the reference latency against BookSim's within {ZERO_TOLERANCE:.0%} at a load up to "
              f"{ZERO_LOAD:g}, else {LATENCY_TOLERANCE:.0%}, or within {NOISE_Z:g} standard errors with repeats; a "
              "load one simulator completes and the other does not is FAIL",
              "the routing both run is BookSim's: anynet's min on SF (every VC), dragonflynew's ugal (3 VCs, its 10- "
              "and 100-cycle channels), fattree's anca; figure_latency is the figure's own curve at that load "
              "(SF MIN hop-indexed, DF UGAL-L with 6 VCs x 10 flits and 1-cycle channels, FT ANCA with the "
              "shortest-queue rule; 64 flits per port) on the same network",
              "not run on BookSim: " + "; ".join(f"{k}: {v}" for k, v in CROSSCHECK_NOT_RUN.items())]
    return ExperimentResult(title=title, table=table, notes=notes, extra_tables={"not run": not_run})
