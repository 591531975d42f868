"""``topogen reproduce crossval``: the simulator-agreement matrix on whatever
simulators are installed.

Networks: 4x4 and 8x8 tori, the 6-cube, Random(64, 4), Skywalk (4 switches per cabinet x 16
cabinets, intra-cabinet degree 3, inter-cabinet degree 4), Slim Fly q = 5 and Dragonfly
(a = 4, p = 2, h = 2); uniform and tornado (adversarial) traffic; 1-flit and 33-flit
packets.  Each combination is one :func:`topogen.reproduce.crossval.crossval` run (same
settings on every simulator, see that module), whose verdicts are summarised in one line
per simulator.  Simulators that are not installed are skipped and named in the notes.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import pandas as pd

from .._progress import Progress
from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult
from .crossval_saturation import SATURATION_RULES

#: key -> (label, generator, parameters)
NETWORKS = {
    "torus4": ("Torus 4x4", "torus", {"dims": (4, 4)}),
    "torus8": ("Torus 8x8", "torus", {"dims": (8, 8)}),
    "hypercube6": ("6-cube", "hypercube", {"dimension": 6}),
    "random64": ("Random(64,4)", "random", {"num_switches": 64, "degree": 4}),
    "skywalk": ("Skywalk(4,16,3,4)", "skywalk",
                {"switches_per_cabinet": 4, "cabinets": 16, "intra_degree": 3, "inter_degree": 4}),
    "slimfly5": ("Slim Fly q=5", "slimfly", {"q": 5}),
    "dragonfly": ("Dragonfly(4,2,2)", "dragonfly", {"a": 4, "p": 2, "h": 2}),
}
TRAFFICS = ("uniform", "tornado")
PACKET_SIZES = (1, 33)
#: the --quick subset: two small networks, uniform traffic, 1-flit packets, three loads
QUICK = dict(topologies=("torus4", "hypercube6"), traffics=("uniform",), packet_sizes=(1,),
             loads=(0.05, 0.15, 0.3))
DEFAULT_LOADS = (0.05, 0.2, 0.4, 0.6, 0.8)


def _choose(text: str, allowed, name: str, cast=str) -> list:
    if text.strip() == "all":
        return list(allowed)
    try:
        picked = [cast(k.strip()) for k in text.split(",") if k.strip()]
    except ValueError:
        picked = []
    if not picked or any(k not in allowed for k in picked):
        raise ParameterError(f"{name} must be 'all' or a comma-separated list of "
                             f"{', '.join(map(str, allowed))}; got {text!r}")
    return picked


def _saturation(s, sim) -> float:
    """The saturation load of one simulator as ``topogen crossval`` states it in its table
    and plot legend (the highest sustained load, :func:`~topogen.reproduce.crossval_saturation._saturation_value`)."""
    if "saturation" in s.columns:
        return s.loc[sim, "saturation"]
    from .crossval_saturation import _saturation_value

    return _saturation_value(s.loc[sim, "sat_low"], s.loc[sim, "sat_high"])


def _onsets(s, sim) -> str:
    """``monotone``, or ``non-monotone (fail F < pass P)`` when a run failed at a load below
    one where a run completed: ``first_fail < last_pass`` is never shown without it."""
    ff = s.loc[sim, "first_fail"] if "first_fail" in s.columns else math.nan
    lp = s.loc[sim, "last_pass"] if "last_pass" in s.columns else math.nan
    if ff == ff and lp == lp and ff < lp:
        return f"non-monotone (fail {ff:g} < pass {lp:g})"
    return "monotone"


def _summary_rows(label, traffic, packet_size, res) -> list[dict]:
    t, s = res.table, res.saturation.set_index("simulator")
    out = []
    for sim, g in t.groupby("simulator", sort=False):
        ok = g[g["status"] == "completed"]
        row = {"network": label, "traffic": traffic, "packet_size": packet_size, "simulator": sim,
               "zero_load_cycles": round(float(ok["latency_cycles"].iloc[0]), 2) if len(ok) else math.nan,
               "statuses": ",".join(sorted(set(g["status"]))),
               "cdg": {True: "acyclic", False: "cyclic"}.get(
                   s.loc[sim, "deadlock_free"] if "deadlock_free" in s.columns else None, "-"),
               "saturation": _saturation(s, sim),
               "sat_low": s.loc[sim, "sat_low"], "sat_high": s.loc[sim, "sat_high"],
               "onsets": _onsets(s, sim),  # before the two numbers it explains
               "first_fail": s.loc[sim, "first_fail"] if "first_fail" in s.columns else math.nan,
               "last_pass": s.loc[sim, "last_pass"] if "last_pass" in s.columns else math.nan,
               "capacity": round(float(s.loc[sim, "capacity"]), 4) if "capacity" in s.columns else math.nan}
        for base in ("booksim", "sst"):
            col = f"verdict_{base}"
            judged = g[g[col].astype(str).str.startswith(("pass", "FAIL", "inconclusive"))]
            ratios = g[f"ratio_{base}"].dropna()
            row[f"lat_vs_{base}"] = (f"{int((judged[col] == 'pass').sum())}/{len(judged)}"
                                     if len(judged) else "-")
            row[f"max_dev_{base}"] = round(float((ratios - 1).abs().max()), 4) if len(ratios) else math.nan
            row[f"sat_vs_{base}"] = s.loc[sim, col]
            ccol = f"capacity_{col}"
            row[f"cap_vs_{base}"] = s.loc[sim, ccol] if ccol in s.columns else "-"
        out.append(row)
    return out


@register_experiment("crossval", paper="topogen: simulator agreement")
def reproduce_crossval(*, topologies: str = "all", traffic: str = "all", packet_sizes: str = "all",
                       loads: str = "", simulators: str = "", quick: bool = False,
                       saturation: bool = True, routing: str = "booksim-min", seed: int = 1,
                       out_dir: str = "", timeout: float = 3600.0, repeats: int = 1,
                       capacity_load: float = 1.0, saturation_rule: str = "majority") -> ExperimentResult:
    """The simulator-agreement matrix: every network x traffic x packet size on every simulator found.

    Parameters
    ----------
    topologies : str
        ``all`` or a comma-separated list of torus4, torus8, hypercube6, random64, skywalk,
        slimfly5, dragonfly.
    traffic : str
        ``all`` or uniform, tornado.
    packet_sizes : str
        ``all`` or a comma-separated list of 1, 33 (flits).
    loads : str
        Offered loads, flits/node/cycle, comma-separated (default 0.05,0.2,0.4,0.6,0.8).
    simulators : str
        Comma-separated subset of reference, booksim, sst (default: all installed).
    quick : bool
        The few-minute subset: 4x4 torus and 6-cube, uniform, 1-flit packets, loads
        0.05,0.15,0.3, no saturation bisection (explicit ``topologies``/``traffic``/
        ``packet_sizes``/``loads`` still override it).
    saturation : bool
        Bisect every simulator's saturation load to half the 5 % tolerance (ignored with
        ``quick``).
    routing : str
        topogen routing of the reference simulator and SST (default ``booksim-min``,
        ``nr`` until topogen has it).
    seed : int
        The one seed (random topologies, ties, simulators).
    out_dir : str
        Keep raw outputs and results here (one folder per run; must be empty or new);
        default a temporary folder, deleted afterwards.
    timeout : float
        Seconds per BookSim/SST run.
    capacity_load : float
        Offered load of each simulator's saturation-throughput run (``latency_thres`` out
        of the way; 0 skips it): the accepted rates are compared with the saturation
        tolerance.
    repeats : int
        Runs per load on the reference simulator and BookSim with seeds ``seed, seed+1, ...``
        (SST: uniform traffic on bundles with relabelled endpoint ids, one per seed);
        their mean is compared (single runs of the default length scatter by 3-8 % near
        half the saturation load).
    saturation_rule : str
        With ``repeats`` > 1, when a load is not sustained: ``majority`` (default; at least
        half its runs failed, so the bisection brackets the median onset, well defined also
        where a cyclic routing's deadlock onset is random) or ``any`` (one run failed; the
        earliest onset of the seeds).  ``first_fail``/``last_pass`` in the table: the lowest
        load at which a run failed and the highest at which one completed, the spread of
        the seeds' onsets (:func:`topogen.reproduce.crossval.onset_spread`).
    """
    from .crossval import CrossvalSpec, crossval

    def pick(text, default_all, quick_value, allowed, name, cast=str):
        if quick and text == "all":
            return list(quick_value)
        return _choose(text, allowed, name, cast) if text != "all" else list(default_all)

    keys = pick(topologies, NETWORKS, QUICK["topologies"], NETWORKS, "topologies")
    traffics = pick(traffic, TRAFFICS, QUICK["traffics"], TRAFFICS, "traffic")
    sizes = pick(packet_sizes, PACKET_SIZES, QUICK["packet_sizes"], PACKET_SIZES, "packet_sizes", int)
    if loads:
        try:
            load_list = tuple(float(x) for x in loads.split(",") if x.strip())
        except ValueError:
            raise ParameterError(f"loads must be comma-separated numbers, got {loads!r}") from None
    else:
        load_list = QUICK["loads"] if quick else DEFAULT_LOADS
    sims = tuple(s.strip() for s in simulators.split(",") if s.strip())
    if saturation_rule not in SATURATION_RULES:
        raise ParameterError(f"saturation_rule must be one of {', '.join(SATURATION_RULES)}, "
                             f"got {saturation_rule!r}")
    bisect = saturation and not quick
    if out_dir:
        from ..output import check_dir_output

        check_dir_output(out_dir)  # new or empty (the runs go into sub-folders)
    # validate every spec before running any
    specs = []
    for key in keys:
        label, gen, params = NETWORKS[key]
        for tr in traffics:
            for size in sizes:
                specs.append((key, label, tr, size, CrossvalSpec(
                    gen, params, seed=seed, routing=routing, traffic=tr, packet_size=size,
                    loads=load_list, simulators=sims, saturation=bisect, timeout=timeout,
                    repeats=repeats, capacity_load=capacity_load or None)))
    rows, skipped, notes = [], {}, []
    wall0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(out_dir) if out_dir else Path(tmp)
        with Progress(total=len(specs), desc="crossval") as bar:
            for key, label, tr, size, spec in specs:
                bar.status(f"{label} {tr} {size}-flit")
                t0 = time.perf_counter()
                res = crossval(spec, base / f"{key}_{tr}_{size}", saturation_rule=saturation_rule)
                skipped.update(res.skipped)
                for note in res.notes[1:]:
                    if " is not deadlock-free here" in note:  # per network: the cdg column
                        note = (f"cdg cyclic: routing {routing} can deadlock on that network on every "
                                f"simulator (BookSim's min_anynet takes any VC on any hop); failures "
                                f"involving a deadlock read 'FAIL (cyclic routing: deadlock)'.")
                    if note not in notes and "skipped" not in note:
                        notes.append(note)
                for r in _summary_rows(label, tr, size, res):
                    r["seconds"] = round(time.perf_counter() - t0, 1)
                    rows.append(r)
                bar.update()
    wall = time.perf_counter() - wall0
    table = pd.DataFrame(rows)
    ran = sorted(set(table["simulator"])) if len(table) else []
    head = [f"Ran {len(specs)} combination(s) ({len(keys)} network(s) x {len(traffics)} traffic(s) x "
            f"{len(sizes)} packet size(s)) on {', '.join(ran)} in {wall:.0f} s; loads "
            f"{', '.join(f'{x:g}' for x in load_list)} flits/node/cycle"
            + ("; saturation bisected to 2.5 %" if bisect else "; saturation bracketed by the loads only")
            + f"; seed {seed}"
            + (f", {repeats} runs per load (seeds {seed}..{seed + repeats - 1}; a load is not sustained "
               + ("when at least half its runs failed" if saturation_rule == "majority" else "when one run failed")
               + ")" if repeats > 1 else "") + ".",
            "Skipped: " + ("; ".join(f"{k} ({v})" for k, v in sorted(skipped.items())) if skipped else "none") + ".",
            "lat_vs_X: points whose mean latency is within 3 % of simulator X's, of the points up to 80 % "
            "of X's saturation; max_dev_X: the largest |latency ratio - 1| over all loads both "
            "completed; sat_vs_X: saturation within 5 % (undetermined: bracket wider than the "
            "tolerance or unbounded); saturation: the highest sustained load (crossval's table and plot "
            "legend give the same number); first_fail/last_pass: lowest load at which a run failed, highest "
            "at which one completed; onsets: non-monotone when first_fail < last_pass (a run failed below a "
            "load where one completed: the seeds' onsets overlap); cdg: the routing's "
            "channel dependency graph (cyclic: it can "
            "deadlock on every simulator, BookSim's min_anynet included, and a failure that involves "
            "a deadlock reads 'FAIL (cyclic routing: deadlock)')."]
    if out_dir:
        head.append(f"Raw outputs and results.csv of each run under {out_dir}/<network>_<traffic>_<size>/.")
    return ExperimentResult(
        title="Simulator agreement: reference simulator vs BookSim2 vs SST",
        table=table, notes=head + notes)
