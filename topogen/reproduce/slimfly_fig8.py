"""``topogen reproduce slimfly-fig8``: Slim Fly (Besta, Hoefler) Sections V-D and V-E,
Fig. 8, on topogen's reference simulator: the influence of the router buffer size under
worst-case traffic (8a) and oversubscribed Slim Flies, more endpoints per router than the
balanced ``p`` (8b-8e), with the paper's statements checked (``claims`` table: paper
value, ours, verdict).

What the paper says and what we run
-----------------------------------
* **V-D / Fig. 8a**: "Smaller sizes result in lower latency (due to stiffer backpressure
  propagation), while bigger buffers enable higher bandwidth", worst-case traffic, total
  buffering per port 8, 16, 32, 64, 128, 256 flits.  The paper does not say which routing
  Fig. 8a shows.  Our choice: **VAL** (``--buffer_routing``), the oblivious routing that
  spreads the worst case (MIN is pinned at 1/(p+1) whatever the buffers); UGAL-L is
  available and runs on the slower Python engine.
* **V-E / Figs. 8b-8e**: SF with network radix k' = 29 (q = 19): p = 15 (full global
  bandwidth) accepts up to 87.5 % of uniform traffic, p = 16 up to 80 % and p = 18 up to
  75 %; "the bandwidth for the worst-case traffic behaves similarly".  Those ratios,
  80/87.5 = 0.914 and 75/87.5 = 0.857, are close to p_full/p = 0.9375 and 0.833: the
  global links carry a fixed load, shared by more endpoints.  At our size (default q = 3,
  p = 3) one more endpoint per router is already +33 %, so the paper's percentages cannot
  carry over; what is checked is the law behind them: **accepted(p) / accepted(p_full)
  against p_full / p** within one load step, for the paper's +1 and +3 endpoints
  (``--extra 1,3``) and for the paper's own sizes (the printed ratios against 15/16 and
  15/18, a check of the paper's numbers by the same law).
* Model: as ``slimfly-sim`` (:data:`topogen.reproduce.slimfly_sim.SIM_CONFIG`: 4 VCs,
  credit delay 2, internal speedup 2, 1-cycle links and stages) but with the paper's
  **1-flit packets**, so that every buffer size of Fig. 8a is a whole number of packets
  (``buffer / 4`` flits per VC; 8 flits per port = 2 per VC).  MIN is ``hop`` (NR table,
  hop-indexed VCs), VAL ``valiant``.  Loads are flits per host per cycle; a curve stops at
  the first load that does not complete, and its *saturation* is the highest that did.

Fig. 8 as experiments (``--quick``, ``--full``)
-----------------------------------------------
:func:`studies_of` writes Fig. 8 as experiment specs (:mod:`topogen.reproduce.study`), one
per buffer size since a spec's ``[reference] port_buffer`` holds for all its points (and
one per knee resolution, a spec's ``[sweep]`` holding for all its points too): each curve a
content-keyed sweep point with its knee bisected to 0.02 and 8 loads below saturation, the
curves of a capacity-law claim finer where the paper puts their knee near zero load (MIN
under the worst case at q = 19: 0.001, :func:`law_sweep_tolerance`), run on the local pool
or as SLURM arrays (``--submit``, then ``--collect``), and the claims of V-D and V-E
judged by :func:`study_claims` over the curves of all the specs. ``--full`` is the paper's
SF q = 19 with slimfly-sim ``--full``'s setup: by default 8b and 8d (MIN, uniform, p = 15,
16, 18), ``--panels all`` adds 8a, the worst-case panels and p = 21; ``--quick`` the same
at q = 3 (8a-8e by default).
"""

from __future__ import annotations

import math
import tempfile
import time

import pandas as pd

from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult, map_tasks
from .slimfly_sim import CPU_SECONDS_PER_PACKET_HOP, ROUTINGS, SIM_CONFIG, _names, _parse_loads

__all__ = ["reproduce_slimfly_fig8", "PAPER_ACCEPTED", "BUFFERS", "studies_of", "study_claims"]

#: Fig. 8a's total buffering per port (flits)
BUFFERS = (8, 16, 32, 64, 128, 256)
#: V-E: share of uniform traffic accepted at k' = 29 by p (p = 15 is full bandwidth)
PAPER_ACCEPTED = {15: 0.875, 16: 0.80, 18: 0.75}
#: Fig. 8's model: slimfly-sim's, with the paper's single-flit packets
FIG8_CONFIG = dict(SIM_CONFIG, packet_size=1)


def _config(buffer: int) -> dict:
    """The simulator settings for ``buffer`` flits per port over the 4 VCs."""
    vcs = int(FIG8_CONFIG["num_vcs"])
    if buffer % vcs or buffer < vcs:
        raise ParameterError(f"buffers must be multiples of {vcs} flits per port (one flit per VC at "
                             f"least), got {buffer}")
    return dict(FIG8_CONFIG, vc_buf_size=buffer // vcs)


def _curve(task) -> list[dict]:
    """One panel curve: loads from low to high until the first that does not complete."""
    panel, q, p, buffer, label, traffic, loads, seed, sim_seed, max_samples, simulator, raw_dir = task
    from ..generators.slimfly import slimfly
    from ..routing import route
    from ._backend import PointRunner, load_curve

    topo = slimfly(q, hosts_per_switch=p)
    rt = route(topo, None, ROUTINGS[label], seed=seed, base="nr")
    run = PointRunner(simulator, rt, traffic=traffic, seed=sim_seed, raw_dir=raw_dir,
                      max_samples=max_samples, **_config(buffer))
    return load_curve(run, loads, {"panel": panel, "p": p, "buffer": buffer, "routing": label,
                                   "traffic": traffic})


def _saturation(table: pd.DataFrame) -> pd.DataFrame:
    """Per curve: the highest completed load (0 when none) and the latency at the lowest."""
    out = []
    keys = ["panel", "p", "buffer", "routing", "traffic"]
    for key, g in table.groupby(keys, sort=False):
        done = g[g.status == "completed"]
        low = g.sort_values("offered").iloc[0]
        out.append(dict(zip(keys, key), saturation=float(done.offered.max()) if len(done) else 0.0,
                        latency_low_load=float(low.latency_cycles) if low.status == "completed" else math.nan))
    return pd.DataFrame(out)


def claims(table: pd.DataFrame, sat: pd.DataFrame, p_full: int, step: float) -> pd.DataFrame:
    """The statements of V-D and V-E checked on the runs (``table``) and the saturation table
    (:func:`_saturation`).  Fig. 8a's latency statement is read where backpressure acts: at
    the highest load every buffer size completed (at low load all buffers give the same
    latency, nothing queues)."""
    rows = []

    def add(claim, paper, ours, ok):
        rows.append({"claim": claim, "paper": paper, "ours": ours,
                     "verdict": "-" if ok is None else ("holds" if ok else "differs")})

    a = sat[sat.panel == "8a"].sort_values("buffer")
    if len(a) > 1:
        lat, thr = a.latency_low_load.tolist(), a.saturation.tolist()
        text = ", ".join(f"{b}: {s:g} / {lt:.1f}" for b, s, lt in zip(a.buffer, thr, lat))
        add("V-D: bigger buffers enable higher bandwidth (worst case)", "saturation rises with the buffer",
            f"buffer: saturation / latency at the lowest load -- {text}",
            all(y >= x - 1e-9 for x, y in zip(thr, thr[1:])) and thr[-1] > thr[0] + 1e-9)
        runs = table[(table.panel == "8a") & (table.status == "completed")]
        common = runs.groupby("offered").buffer.nunique()
        common = common[common == len(a)]
        if len(common):
            at = float(common.index.max())
            lat = [float(runs[(runs.offered == at) & (runs.buffer == b)].latency_cycles.iloc[0]) for b in a.buffer]
            add("V-D: smaller buffers give lower latency (stiffer backpressure)", "latency rises with the buffer",
                f"latency at {at:g} (the highest load all completed): "
                f"{', '.join(f'{b}: {x:.1f}' for b, x in zip(a.buffer, lat))} cycles",
                all(y >= x - 1e-9 for x, y in zip(lat, lat[1:])) and lat[-1] > lat[0])
    for p in (16, 18):
        ratio = PAPER_ACCEPTED[p] / PAPER_ACCEPTED[15]
        add(f"V-E (paper's own numbers): p={p} accepts {PAPER_ACCEPTED[p]:.1%} vs 87.5 % at p=15",
            f"{ratio:.3f} of full", f"capacity law 15/{p} = {15 / p:.3f}",
            abs(ratio - 15 / p) <= 0.03)
    for tr, g in sat[sat.panel == "8b-e"].groupby("traffic", sort=False):
        for rt, h in g.groupby("routing", sort=False):
            full = h[h.p == p_full]
            if not len(full):
                continue
            base = float(full.saturation.iloc[0])
            for _, r in h[h.p != p_full].sort_values("p").iterrows():
                law = p_full / int(r.p)
                ours = r.saturation / base if base > 0 else math.nan
                add(f"V-E: p={int(r.p)} (p_full={p_full}) accepts about p_full/p of the full "
                    f"bandwidth ({tr}, {rt})", f"{law:.3f} of full (the law behind 80 % / 75 %)",
                    f"{r.saturation:g} / {base:g} = {ours:.3f}",
                    bool(math.isfinite(ours) and abs(r.saturation - law * base) <= step + 1e-9))
    return pd.DataFrame(rows, columns=["claim", "paper", "ours", "verdict"])


@register_experiment("slimfly-fig8", paper="Slim Fly (Besta, Hoefler) V-D, V-E, Fig. 8")
def reproduce_slimfly_fig8(*, q: int = 3, buffers: str = "8,16,32,64,128,256", buffer_routing: str = "VAL",
                           extra: str = "1,3", routings: str = "MIN",
                           traffic: str = "uniform,worstcase",
                           loads: str = "0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,"
                                        "0.7,0.75,0.8,0.85,0.9,0.95,1.0",
                           seed: int = 1, sim_seed: int = 1, max_samples: int = 6,
                           workers: int = 2, simulator: str = "reference", raw_dir: str = "",
                           quick: bool = False, full: bool = False, submit: bool = False, collect: bool = False,
                           plan: bool = False, out: str = "", panels: str = "", plot: str = "") -> ExperimentResult:
    """Slim Fly Fig. 8: buffer sizes under worst-case traffic (8a) and oversubscribed SF (8b-8e).

    Parameters
    ----------
    q : int
        Slim Fly field order (default 3: 18 routers, p = 3).
    buffers : str
        Fig. 8a's flits of buffer per port (multiples of 4, the VCs), comma-separated; ``none``
        skips Fig. 8a.
    buffer_routing : str
        Routing of Fig. 8a (the paper does not name it): MIN, VAL, UGAL-L or UGAL-G.
    extra : str
        Figs. 8b-8e: endpoints per router added to the balanced p (the paper: 1 and 3, p = 16
        and 18 on p = 15), comma-separated; ``none`` skips them.
    routings : str
        Routings of Figs. 8b-8e (``all`` or a list of MIN, VAL, UGAL-L, UGAL-G).
    traffic : str
        Traffic of Figs. 8b-8e: ``uniform``, ``worstcase`` or both.
    loads : str
        Offered loads (flits per host per cycle), comma-separated.
    seed, sim_seed : int
        Routing seed (VAL/UGAL intermediate choices) and simulation seed.
    max_samples : int
        Sample periods per point at most.
    workers : int
        Processes running curves in parallel.
    simulator : str
        ``reference`` (default), ``booksim`` or ``sst``: BookSim and SST run only MIN under
        uniform traffic (``--buffers none --traffic uniform``); see
        :mod:`topogen.reproduce._backend`.
    raw_dir : str
        Folder kept for the BookSim/SST raw output (default: a temporary one, discarded).
    quick : bool
        Run Fig. 8 as experiments (:func:`studies_of`) at q = 3, every panel of the paper
        (8a-8e), each curve a sweep with its knee bisected to 0.02: what the tests run,
        about a minute.  ``q``, ``extra``, ``traffic``, ``loads`` and ``max_samples``
        belong to the run without --quick/--full; ``buffers``, ``buffer_routing``,
        ``routings``, ``sim_seed`` and ``workers`` hold for both.
    full : bool
        Run Fig. 8 as experiments at the paper's size: SF q = 19, p = 15 (10,830
        endpoints), 16 (11,552) and 18 (12,996) under uniform traffic (8b, 8d) by default;
        ``--panels all`` adds Fig. 8a, the worst-case panels 8c and 8e and p = 21 (15,162
        endpoints; 8f, 8g).
    submit : bool
        With --quick or --full: send the points the stores lack to SLURM (one job array
        per spec: buffer size and knee resolution) instead of running them here; then run
        again with --collect.
    collect : bool
        With --quick or --full: run nothing, judge and draw what the stores hold.
    plan : bool
        With --quick or --full: print what the run would do (curves, simulations, CPU
        minutes) and stop.
    out : str
        With --quick or --full: the run's folder (specs, stores, figure, claims; default
        ``slimfly-fig8-quick`` / ``slimfly-fig8-full``); a rerun resumes.
    panels : str
        With --quick or --full: ``8a`` .. ``8g`` comma-separated or ``all``; default 8b,8d
        with --full, 8a-8e with --quick.  8b/8c are p_full + 1 (uniform / worst case),
        8d/8e p_full + 3, 8f/8g p_full + 6 (not drawn in the paper); the balanced SF is
        drawn in each.
    plot : str
        With --quick or --full: the figure's file (.png/.svg/.pdf; default ``fig8.png``
        in the run's folder).
    """
    if quick or full or submit or collect or plan or out or panels or plot:
        return _study_run(quick=quick, full=full, submit=submit, collect=collect, plan=plan, out=out,
                          panels=panels, routings=routings, buffers=buffers, buffer_routing=buffer_routing,
                          sim_seed=sim_seed, workers=workers, plot=plot, simulator=simulator)
    from ..generators.slimfly import check_slimfly_q, slimfly_parameters

    check_slimfly_q(q)
    load_list = _parse_loads(loads)
    step = min((b - a for a, b in zip(load_list, load_list[1:])), default=0.1)
    bufs = [] if str(buffers).strip() == "none" else _ints(buffers, "buffers")
    for b in bufs:
        _config(b)
    extras = [] if str(extra).strip() == "none" else _ints(extra, "extra")
    if buffer_routing not in ROUTINGS:
        raise ParameterError(f"buffer_routing must be one of {', '.join(ROUTINGS)}, got {buffer_routing!r}")
    rts = _names(routings, ROUTINGS, "routings")
    trs = _names(traffic, ("uniform", "worstcase"), "traffic")
    if not bufs and not extras:
        raise ParameterError("nothing to simulate: give buffers or extra")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers must be an integer >= 1, got {workers!r}")
    from ..sim import SimConfig

    SimConfig(max_samples=max_samples, **FIG8_CONFIG)  # bad parameters: before the work
    from ._backend import check
    from ._backend import notes as backend_notes

    check(simulator, "slimfly-fig8",
          routings=[ROUTINGS[r] for r in (rts if extras else [])] + ([ROUTINGS[buffer_routing]] if bufs else []),
          traffics=(trs if extras else []) + (["worstcase"] if bufs else []),
          alternative="--buffers none --routings MIN --traffic uniform, or --simulator reference")
    p_full = slimfly_parameters(q).balanced_hosts_per_switch
    tmp = tempfile.TemporaryDirectory()
    raw = raw_dir or tmp.name
    tasks = [("8a", q, p_full, b, buffer_routing, "worstcase", load_list, seed, sim_seed, max_samples,
              simulator, raw) for b in bufs]
    if extras:
        tasks += [("8b-e", q, p, 64, r, t, load_list, seed, sim_seed, max_samples, simulator, raw)
                  for t in trs for r in rts for p in [p_full] + [p_full + e for e in extras]]
    wall0 = time.perf_counter()
    rows: list[dict] = []
    with tmp:
        for res in map_tasks(_curve, tasks, workers=workers, desc="slimfly-fig8",
                             label=lambda task: f"{task[0]} p={task[2]} buffer {task[3]} {task[4]} {task[5]}"):
            rows += res
    wall = time.perf_counter() - wall0
    table = pd.DataFrame(rows)
    sat = _saturation(table)
    cl = claims(table, sat, p_full, step)
    held = int((cl.verdict == "holds").sum())
    judged = int(cl.verdict.isin(["holds", "differs"]).sum())
    notes = [
        f"Slim Fly q={q}: {slimfly_parameters(q).routers} routers, balanced p = {p_full}; "
        f"{len(table)} simulations in {wall:.0f} s with {workers} worker(s); loads step {step:g}; "
        f"topology seed {seed}, simulation seed {sim_seed}.",
        "Model: slimfly-sim's (4 VCs, credit delay 2, internal speedup 2, 1-cycle links and "
        "stages) with the paper's 1-flit packets; Fig. 8a buffers shared over the 4 VCs, Figs. "
        "8b-8e 64 flits per port; saturation = the highest load that completed.",
        f"Fig. 8a routing: {buffer_routing} (the paper does not name it; module notes).",
        f"Claims: {held} of {judged} hold.",
    ] + backend_notes(simulator)
    return ExperimentResult(
        title=f"Slim Fly V-D, V-E (Fig. 8): buffer sizes and oversubscription on SF q={q}, {simulator} simulator",
        table=table, notes=notes, extra_tables={"saturation": sat, "claims": cl})


def _ints(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or any(v < 1 for v in values):
        raise ParameterError(f"{what} must be comma-separated positive integers (or none), got {text!r}")
    return sorted(set(values))


# =============================================================================== Fig. 8 as a study
#: the oversubscribed panels: endpoints added to the balanced p -> (uniform panel, worst-case
#: panel); +1 and +3 are the paper's 8b-8e (p = 16 and 18 at q = 19), +6 (p = 21, the
#: largest the paper simulates, 15,162 endpoints) is drawn in 8f and 8g, panels the paper
#: leaves out ("other cases follow similar performance patterns")
EXTRA_PANELS = {1: ("8b", "8c"), 3: ("8d", "8e"), 6: ("8f", "8g")}
#: every panel a study run draws, in the paper's order
STUDY_PANELS = ("8a",) + tuple(p for pair in EXTRA_PANELS.values() for p in pair)
#: the traffic of each oversubscribed panel
PANEL_TRAFFIC = {p: t for pair in EXTRA_PANELS.values() for p, t in zip(pair, ("uniform", "worstcase"))}
#: panels of a study run without ``--panels``: --full the paper's uniform panels (p = 15, 16,
#: 18 under MIN), --quick every panel of the paper at q = 3 (today's reproduction)
DEFAULT_PANELS = {"full": ("8b", "8d"), "quick": ("8a", "8b", "8c", "8d", "8e")}
#: the printed fractions of V-E checked at q = 19, with their tolerance
PRINTED_TOLERANCE = 0.05
#: tolerance of the capacity law on the ratio accepted(p) / accepted(p_full); never finer
#: than the knees' resolution allows (:func:`law_tolerance`)
LAW_TOLERANCE = 0.05
#: the law is judged where the knees' resolution allows a tolerance at most this many
#: times :data:`LAW_TOLERANCE` (:func:`law_tolerance`); below (knees near zero load, e.g.
#: MIN under the worst case at q = 19, 0.025 - 0.041) the claim is ``unresolved``
RESOLVABLE = 2.0
#: the knee resolutions (offered load) a curve of the capacity law may be bisected to,
#: coarsest first (:func:`law_sweep_tolerance`)
KNEE_STEPS = (0.02, 0.01, 0.005, 0.002, 0.001)


def law_sweep_tolerance(knee: float) -> float:
    """The ``[sweep] tolerance`` of the curves of one capacity-law claim, whose full-bandwidth
    SF the paper (:func:`paper_knee`) expects to saturate at ``knee``: the coarsest of
    :data:`KNEE_STEPS` at most half the claim's tolerance at that knee, so that a knee up to
    half as high as expected still fixes the ratio to :data:`LAW_TOLERANCE` (MIN under the
    worst case at q = 19: 1/16 expected, 0.025-0.041 measured, 0.001; every uniform curve
    keeps 0.02)."""
    target = LAW_TOLERANCE * knee / 2
    return next((s for s in KNEE_STEPS if s <= target + 1e-12), KNEE_STEPS[-1])


#: the paper's knees (V-A, V-C, V-E), for the plan's estimate only: uniform MIN 87.5 / 80 /
#: 75 % at p = 15 / 16 / 18 and the law p_full/p beyond; UGAL-G as MIN, UGAL-L 80 % and VAL
#: 45 % of full bandwidth scaled by the law; worst case MIN 1/(p+1), VAL 40 %, UGAL-L 45 %
#: (Fig. 8a's VAL at every buffer size), UGAL-G as UGAL-L
_FULL_UNIFORM = {"hop": 0.875, "ugal-g": 0.875, "ugal-l": 0.8, "valiant": 0.45}
_FULL_WORST = {"valiant": 0.4, "ugal-l": 0.45, "ugal-g": 0.45}


def paper_knee(routing: str, traffic: str, p: int, p_full: int) -> float:
    """Where the plan assumes a curve of Fig. 8 saturates (see the notes above)."""
    if traffic == "uniform":
        if routing == "hop" and p_full == 15 and p in PAPER_ACCEPTED:
            return PAPER_ACCEPTED[p]
        return _FULL_UNIFORM.get(routing, 0.5) * p_full / p
    if routing == "hop":
        return 1.0 / (p + 1)
    return _FULL_WORST.get(routing, 0.4) * p_full / p


def _panel_list(text: str, mode: str) -> list[str]:
    if not str(text or "").strip():
        return list(DEFAULT_PANELS[mode])
    names = _names(text, STUDY_PANELS, "panels")
    return [p for p in STUDY_PANELS if p in names]


def studies_of(mode: str, panels=None, routings=("MIN",), buffer_routing: str = "VAL",
               buffers=BUFFERS, seed: int = 1) -> list:
    """Fig. 8 as :class:`~topogen.reproduce.study.Study` objects, one per buffer size (a
    spec's ``[reference] port_buffer`` holds for all its points): the 64-flit one has the
    oversubscribed panels (8b-8g: SF at the balanced p and p + 1, + 3, + 6 under
    ``routings``, the balanced curve drawn in every panel of its traffic) and Fig. 8a's
    64-flit curve, the others one curve of 8a each (``buffer_routing`` under worst-case
    traffic at the balanced p).  ``mode`` ``"full"``: q = 19 (p = 15, 16, 18, 21), the
    setup of slimfly-sim --full; ``"quick"``: q = 3 (p = 3, 4, 6, 9) with its short
    measurement."""
    from ..generators.slimfly import slimfly_parameters
    from .slimfly_sim import FULL_MEASURE, QUICK_MEASURE, STUDY_REFERENCE, SWEEP_POINTS
    from .study import KNEE_RESOLUTION, Curve, Network, Study, knee_sweep

    if mode not in ("full", "quick"):
        raise ParameterError(f"mode must be full or quick, got {mode!r}")
    panels = list(panels or DEFAULT_PANELS[mode])
    q = 19 if mode == "full" else 3
    p_full = slimfly_parameters(q).balanced_hosts_per_switch
    for b in buffers:
        _config(b)
    if buffer_routing not in ROUTINGS:
        raise ParameterError(f"buffer_routing must be one of {', '.join(ROUTINGS)}, got {buffer_routing!r}")

    def net(p):
        return Network(f"SF-p{p}", "slimfly", {"q": q, "hosts_per_switch": p},
                       f"Slim Fly MMS q={q}, p={p} endpoints per router")

    by_buffer: dict = {}

    def add(buffer, network, label, routing, traffic, panel, tolerance=KNEE_RESOLUTION):
        """A curve into the study of ``buffer``, its knee bisected to ``tolerance``; the
        same simulation already there takes the panel as one more it is drawn in (and the
        finer of the two tolerances)."""
        nets, curves, knees, tols = by_buffer.setdefault(buffer, ({}, [], {}, {}))
        nets[network.key] = network
        key = (network.key, routing, traffic)
        tols[key] = min(tols.get(key, tolerance), tolerance)
        for i, c in enumerate(curves):
            if (c.network, c.routing, c.traffic) == key:
                if panel != c.panel and panel not in c.also:
                    curves[i] = Curve(c.label, c.network, c.routing, c.traffic, c.panel, c.also + (panel,))
                return
        curves.append(Curve(label, network.key, routing, traffic, panel))
        knees[label, panel] = paper_knee(routing, traffic, network.params["hosts_per_switch"], p_full)

    for extra, pair in EXTRA_PANELS.items():
        for panel, traffic in zip(pair, ("uniform", "worstcase")):
            if panel not in panels:
                continue
            for r in routings:
                # both curves of a law's ratio to the same resolution, set by the full SF's knee
                tol = law_sweep_tolerance(paper_knee(ROUTINGS[r], traffic, p_full, p_full))
                add(PORT_BUFFER_FIG8B, net(p_full), f"SF-{r} p={p_full}", ROUTINGS[r], traffic, panel, tol)
                add(PORT_BUFFER_FIG8B, net(p_full + extra), f"SF-{r} p={p_full + extra}", ROUTINGS[r], traffic,
                    panel, tol)
    if "8a" in panels:
        for b in buffers:
            add(b, net(p_full), f"SF-{buffer_routing} {b} flits/port", ROUTINGS[buffer_routing], "worstcase", "8a")
    out = []
    for b in sorted(by_buffer, key=lambda b: (b != PORT_BUFFER_FIG8B, b)):
        nets, curves, knees, tols = by_buffer[b]
        # the also-panels of a merged curve share its knee
        knees.update({(c.label, p): knees[c.label, c.panel] for c in curves for p in c.also})
        # a spec has one [sweep]: one study per knee tolerance (the coarsest keeps the plain name)
        for tol in sorted({tols[c.network, c.routing, c.traffic] for c in curves}, reverse=True):
            mine = [c for c in curves if tols[c.network, c.routing, c.traffic] == tol]
            used = {c.network for c in mine}
            suffix = "" if tol == KNEE_RESOLUTION else f"-knee{tol:g}"
            labels = {c.label for c in mine}
            out.append(Study(name=f"slimfly-fig8-{mode}-b{b}{suffix}",
                             networks={k: v for k, v in nets.items() if k in used}, curves=mine,
                             knees={k: v for k, v in knees.items() if k[0] in labels},
                             measure=dict(FULL_MEASURE if mode == "full" else QUICK_MEASURE),
                             reference=dict(STUDY_REFERENCE, port_buffer=b),
                             sweep=knee_sweep(SWEEP_POINTS[mode], tol), seed=seed,
                             description=f"Slim Fly (Besta, Hoefler) Fig. 8, {mode}, {b} flits per port"
                                         + (f", knees to {tol:g} of load" if suffix else "")))
    return out


#: total buffering per port of Figs. 8b-8g (V: 64 flit entries)
PORT_BUFFER_FIG8B = 64
#: ``--full`` run for real (2026-11-29, ``nice topogen reproduce slimfly-fig8 --full --workers 1``
#: beside other jobs, /usr/bin/time, the reference router before allocation rounds per
#: cycle): 8b and 8d, SF q=19 MIN under uniform traffic at p = 15, 16, 18; the knees found
#: (brackets 0.629-0.644, 0.598-0.613, 0.536-0.551), 41 simulations, 914.9 s of CPU (880.4
#: user + 34.5 system, start-up and numba compilation included), 31 min of wall, 5.1 GB
MEASURED_FULL = {"knees": {"SF-MIN p=15": 0.629, "SF-MIN p=16": 0.598, "SF-MIN p=18": 0.536},
                 "simulations": 41, "cpu_s": 914.9}


def study_claims(studies, q: int, buffer_routing: str = "VAL"):
    """The statements of V-D and V-E as :class:`~topogen.reproduce.study.Claim` objects
    over the curves of ``studies`` (Fig. 8 at field order ``q``)."""
    from ..generators.slimfly import slimfly_parameters
    from .study import KNEE_RESOLUTION as EPS
    from .study import Claim

    p_full = slimfly_parameters(q).balanced_hosts_per_switch
    have = {(c.label, p) for s in studies for c in s.curves for p in (c.panel, *c.also)}
    out = []

    def sat(res, key):
        return res[key].sustained

    # V-E: the printed accepted shares, at the paper's own network (q = 19, p_full = 15)
    if p_full == 15:
        for p, share in PAPER_ACCEPTED.items():
            panel = "8b" if p in (15, 16) else "8d"
            key = (f"SF-MIN p={p}", panel)
            if key not in have:
                other = [k for k in have if k[0] == f"SF-MIN p={p}" and PANEL_TRAFFIC.get(k[1]) == "uniform"]
                if not other:
                    continue
                key = other[0]

            def check(res, key=key, share=share):
                v = sat(res, key)
                ok = abs(v - share) <= PRINTED_TOLERANCE + 1e-9
                return f"{v:.3g}", ok, "" if ok else f"{v:.3g} is {v - share:+.3g} from {share:g}"
            what = "the full-bandwidth SF" if p == 15 else f"SF with p={p}"
            out.append(Claim(f"V-E: {what} accepts up to {share:.1%} of uniform traffic (MIN)", key[1],
                             f"{share:g}", f"+-{PRINTED_TOLERANCE:g}", (key,), check))
        for p in (16, 18):  # the paper's own numbers against the law (no simulation)
            ratio = PAPER_ACCEPTED[p] / PAPER_ACCEPTED[15]

            def own(res, ratio=ratio, p=p):
                ok = abs(ratio - 15 / p) <= LAW_TOLERANCE
                return f"{ratio:.3f} (law 15/{p} = {15 / p:.3f})", ok, "" if ok else "the paper's ratio is off the law"
            out.append(Claim(f"V-E (the paper's own numbers): {PAPER_ACCEPTED[p]:.1%} at p={p} over 87.5 % at p=15 "
                             "is the capacity law", "8b" if p == 16 else "8d", f"15/{p} = {15 / p:.3f}",
                             f"+-{LAW_TOLERANCE:g}", (), own, saturation=False))
    # V-E: the capacity law, per traffic and routing of the oversubscribed panels
    for extra, pair in EXTRA_PANELS.items():
        p = p_full + extra
        for panel in pair:
            for label, pnl in sorted(have):
                if pnl != panel or not label.endswith(f" p={p}"):
                    continue
                base = (label[: -len(f" p={p}")] + f" p={p_full}", panel)
                if base not in have:
                    continue
                law = p_full / p
                traffic = PANEL_TRAFFIC[panel]

                def check(res, key=(label, panel), base=base, law=law):
                    s, f = sat(res, key), sat(res, base)
                    width = max(res[key].knee_width, res[base].knee_width)
                    tol = law_tolerance(f, width)
                    ratio = s / f if f > 0 else math.nan
                    text = f"{s:.3g} / {f:.3g} = {ratio:.3f}"
                    if tol > RESOLVABLE * LAW_TOLERANCE:
                        return (text, None, f"knees resolved to {width:.3g} of load at {f:.3g} fix the ratio only to "
                                            f"+-{tol:.2f}, more than {RESOLVABLE:g} x the claim's {LAW_TOLERANCE:g}: "
                                            "a finer knee ([sweep] tolerance) would decide it")
                    ok = f > 0 and abs(s - law * f) <= tol * f + 1e-9
                    return (text, ok, "" if ok else f"ratio {ratio:.3f} is {ratio - law:+.3f} from the law {law:.3f} "
                                                    f"(tolerance {tol:.3f})")
                what = ("accepts p_full/p of the full-bandwidth SF's uniform load" if traffic == "uniform" else
                        "the worst-case bandwidth behaves similarly: p_full/p of the full SF's")
                out.append(Claim(f"V-E: p={p} {what} ({label.split(' ')[0]})", panel,
                                 f"{p_full}/{p} = {law:.3f} of p={p_full}'s",
                                 f"+-{LAW_TOLERANCE:g} (at least the knees' bracket over the full SF's knee)",
                                 ((label, panel), base), check))
    # V-D: buffer sizes (8a)
    keys = sorted(((int(label.split(" ")[1]), (label, "8a")) for label, pnl in have
                   if pnl == "8a" and label.startswith(f"SF-{buffer_routing} ") and label.endswith(" flits/port")))
    if len(keys) > 1:
        bufs, ks = [b for b, _ in keys], tuple(k for _, k in keys)

        def bigger(res):
            s = [sat(res, k) for k in ks]
            ok = all(y >= x - EPS for x, y in zip(s, s[1:])) and s[-1] > s[0] + EPS
            text = ", ".join(f"{b}: {v:.3g}" for b, v in zip(bufs, s))
            return text, ok, "" if ok else "the saturation load does not rise with the buffer"
        out.append(Claim("V-D: bigger buffers enable higher bandwidth (worst case)", "8a",
                         "saturation rises with the buffer", f"each within {EPS:g}, largest above smallest",
                         ks, bigger))

        def lower(res):
            at = min(sat(res, k) for k in ks)
            lat = [res[k].latency_at(at) for k in ks]
            ok = all(y >= 0.98 * x for x, y in zip(lat, lat[1:])) and lat[-1] > lat[0]
            text = f"at {at:.3g}: " + ", ".join(f"{b}: {x:.1f}" for b, x in zip(bufs, lat)) + " cycles"
            return text, ok, "" if ok else "latency does not rise with the buffer at the highest load all sustain"
        out.append(Claim("V-D: smaller buffers give lower latency (stiffer backpressure)", "8a",
                         "latency rises with the buffer", "2 % between neighbours", ks, lower, saturation=False))
    return out


def law_tolerance(full: float, width: float) -> float:
    """Tolerance of the capacity law on the ratio to the full-bandwidth SF's knee
    ``full``: :data:`LAW_TOLERANCE`, widened so that it is never finer than the knees'
    resolution (two knees whose brackets are at most ``width`` of load wide cannot fix a
    ratio to better than ``width`` / ``full``)."""
    return max(LAW_TOLERANCE, width / full) if full > 0 else LAW_TOLERANCE


def _curve_order(label: str, panel: str) -> tuple:
    """Curves by panel, then by buffer size (8a) or endpoints per router."""
    number = label.rsplit("=", 1)[-1] if "=" in label else label.split(" ")[1] if " " in label else "0"
    try:
        n = int(number)
    except ValueError:
        n = 0
    return (STUDY_PANELS.index(panel) if panel in STUDY_PANELS else len(STUDY_PANELS), label.split(" ")[0], n)


#: a panel whose curves all accept less than this share of the injection bandwidth is drawn
#: on a traffic axis of its own (:func:`_zoomed_axes`)
ZOOM_BELOW = 0.2


def _zoomed_axes(results: dict, panels) -> dict:
    """The end of the traffic axis of each panel whose curves all accept under
    :data:`ZOOM_BELOW` (MIN under the worst case at q = 19 saturates near 0.03): the
    highest throughput plus a quarter, rounded up to 0.01, so the knees are not drawn on
    the axis' first pixels; other panels keep the injection bandwidth."""
    out = {}
    for panel in panels:
        top = [r.throughput for (_, p), r in results.items() if p == panel and r.ran and math.isfinite(r.throughput)]
        if top and max(top) < ZOOM_BELOW:
            out[panel] = math.ceil(max(top) * 1.25 * 100) / 100
    return out


def panel_titles(q: int) -> dict:
    """Each panel's title: its traffic and endpoints per router at field order ``q``."""
    from ..generators.slimfly import slimfly_parameters

    p_full = slimfly_parameters(q).balanced_hosts_per_switch
    titles = {"8a": f"8a: buffer sizes, worst case, p = {p_full}"}
    for extra, (u, w) in EXTRA_PANELS.items():
        beyond = "" if extra in (1, 3) else " (not drawn in the paper)"
        titles[u] = f"{u}: random uniform, p = {p_full + extra}{beyond}"
        titles[w] = f"{w}: worst case, p = {p_full + extra}{beyond}"
    return titles


def _mode(kwargs) -> str:
    quick, full = kwargs.get("quick", False), kwargs.get("full", False)
    if quick == full:
        raise ParameterError("give exactly one of --quick (SF q=3, about a minute) and --full (the paper's SF q=19, "
                             "p = 15, 16, 18; hours of CPU with --panels all)")
    return "full" if full else "quick"


def _expanded(kwargs) -> list:
    """``[(study, experiment), ...]`` of a --quick/--full run, the specs written into the
    run's folder (``out``; default ``slimfly-fig8-quick`` / ``slimfly-fig8-full``)."""
    from .study import expand

    mode = _mode(kwargs)
    panels = _panel_list(kwargs.get("panels") or "", mode)
    routings = _names(kwargs.get("routings") or "MIN", ROUTINGS, "routings")
    buffers = kwargs.get("buffers") or ",".join(map(str, BUFFERS))
    bufs = list(BUFFERS) if buffers == "none" and "8a" not in panels else _ints(buffers, "buffers")
    studies = studies_of(mode, panels, routings, kwargs.get("buffer_routing") or "VAL", bufs,
                         seed=int(kwargs.get("sim_seed", 1)))
    folder = kwargs.get("out") or f"slimfly-fig8-{mode}"
    return [(s, expand(s, folder)) for s in studies]


def _plan_text(pairs) -> tuple[str, list]:
    """The plan of all studies of a run: one line with the totals, then each study's."""
    from .study import plan

    plans = [plan(s, e, seconds_per_hop=CPU_SECONDS_PER_PACKET_HOP) for s, e in pairs]
    total = (f"slimfly-fig8: {sum(p['points'] for p in plans)} curves in {len(pairs)} spec(s) (one per buffer "
             f"size and knee resolution), {sum(p['pending'] for p in plans)} to run, about "
             f"{sum(p['simulations'] for p in plans)} simulations, estimate "
             f"{sum(p['cpu_minutes'] for p in plans):,.0f} CPU minutes")
    return total, plans


def _announce(**kwargs) -> str | None:
    """The plan of a --quick/--full run, printed by ``topogen reproduce`` before it starts."""
    if not (kwargs.get("quick") or kwargs.get("full")):
        return None
    if kwargs.get("plan") or kwargs.get("collect"):
        return ""
    total, plans = _plan_text(_expanded(kwargs))
    return total + (f"; {plans[0]['text']}" if plans else "")


_REFUSAL = ("--quick/--full run on the reference simulator; the BookSim/SST subset of Fig. 8 runs without them "
            "(--simulator booksim --buffers none --routings MIN --traffic uniform)")


def _study_run(**kwargs) -> ExperimentResult:
    """Fig. 8 as experiments (``--quick``/``--full``; :func:`studies_of`): plan, run on the
    local pool, submit to SLURM or collect every study of the run, then judge the claims
    of V-D and V-E over all their curves, draw the figure and write ``claims.csv`` and
    ``curves.csv`` into the run's folder."""
    from pathlib import Path

    from ..output import atomic_write
    from . import study as st

    workers, plot = st.check_run_options(kwargs, _REFUSAL)
    if kwargs.get("plan") and (kwargs.get("submit") or kwargs.get("collect")):
        raise ParameterError("--plan prints what a run would do; give it without --submit or --collect")
    from ..generators.slimfly import slimfly_parameters

    mode = _mode(kwargs)
    pairs = _expanded(kwargs)
    q = 19 if mode == "full" else 3
    p_full = slimfly_parameters(q).balanced_hosts_per_switch
    folder = Path(pairs[0][1].path).parent
    figure = Path(plot) if plot else folder / "fig8.png"
    title = f"Slim Fly V-D, V-E (Fig. 8) as experiments slimfly-fig8-{mode}-b*"
    total, plans = _plan_text(pairs)
    notes = [total, plans[0]["text"]]
    if len(plans) > 1:
        notes.append("the other specs (the same measurement): " + "; ".join(
            f"{s.name}: {p['pending']} of {p['points']} curve(s) to run, about {p['simulations']} simulations, "
            f"{p['cpu_minutes']:,.1f} CPU minutes" for (s, _), p in zip(pairs[1:], plans[1:])))
    notes.append("specs: " + ", ".join(str(e.path) for _, e in pairs))
    points = pd.concat([st.points_table(s, e) for s, e in pairs], ignore_index=True)
    if kwargs.get("plan"):
        return ExperimentResult(title=title + ": plan", table=points, notes=notes)
    if kwargs.get("submit"):
        for s, e in pairs:
            info = st.submit(e)
            notes.append(f"{s.name}: submitted {info['points']} point(s) as SLURM job {info['job']} "
                         f"({info['tasks']} array task(s)); collect job {info['collect_job']}" if info["points"] else
                         f"{s.name}: nothing to submit, every point is in the store")
        notes.append("when the arrays have ended run the same command with --collect instead of --submit")
        return ExperimentResult(title=title + ": submitted", table=points, notes=notes)
    if not kwargs.get("collect"):
        for s, e in pairs:  # a spec of one curve runs in one process whatever --workers says
            summary = st.run_local(e, jobs=workers)
            notes.append(f"{s.name}: " + summary.table().replace("\n", "; "))
    results: dict = {}
    for s, e in pairs:
        results.update(st.gather(s, e))
    results = dict(sorted(results.items(), key=lambda kv: _curve_order(*kv[0])))
    claims_table = st.judge(study_claims([s for s, _ in pairs], q, kwargs.get("buffer_routing") or "VAL"), results)
    atomic_write(folder / "claims.csv", claims_table.to_csv(index=False))
    atomic_write(folder / "curves.csv", st.curve_rows(results).to_csv(index=False))
    panels = [p for p in STUDY_PANELS if any(k[1] == p for k in results)]
    if any(r.ran for r in results.values()):
        st.draw_curves(results, figure, panels=panels, titles=panel_titles(q),
                       dashed=lambda label: label.endswith(f" p={p_full}"), x_max=_zoomed_axes(results, panels),
                       suptitle=f"Slim Fly Fig. 8 ({'paper size: SF q=19' if q == 19 else 'quick: SF q=3'}): "
                                "latency vs accepted traffic")
        notes.append(f"figure: {figure}")
    notes.append(f"claims: {folder / 'claims.csv'}; every load of every curve: {folder / 'curves.csv'}")
    counts = claims_table.verdict.value_counts()
    notes.append("claims: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in st.VERDICTS))
    m, r = pairs[0][0].measure, pairs[0][0].reference
    bufs = sorted(int(k[0].split(" ")[1]) for k in results if k[1] == "8a" and k[0].endswith(" flits/port"))
    notes.append(f"Setup (V): SF q={q} (balanced p = {p_full}), {m['packet_size']}-flit packets, Bernoulli "
                 f"injection, input-queued routers, {PORT_BUFFER_FIG8B} flits per port in 8b-8g"
                 + (f", Fig. 8a's {', '.join(map(str, bufs))} flits per port" if bufs else "") + ", shared by the "
                 f"hop-indexed VCs (4 VCs: 64 flits are 4 x 16, 8 flits 4 x 2), credit delay "
                 f"{m['credit_delay']}, internal speedup {r['internal_speedup']:g}, {m['link_latency']}-cycle channels "
                 f"and stages; warm-up {m['warmup_periods']} x {m['sample_period']} cycles, at most {m['max_samples']} "
                 "periods; Fig. 8a's routing "
                 f"{kwargs.get('buffer_routing') or 'VAL'} (the paper does not name it).")
    return ExperimentResult(title=title, table=st.curves_table(results), notes=notes,
                            extra_tables={"claims": claims_table})


reproduce_slimfly_fig8.announce = _announce
