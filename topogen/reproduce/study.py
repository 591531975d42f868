"""Reproductions as experiments: a paper's simulation figure as a TOML experiment spec.

A :class:`Study` names the networks of a figure (a generator and its parameters each) and
its curves (network, routing, traffic), the simulator settings (``[measure]`` and
``[reference]`` of :mod:`topogen.experiments.spec`) and the load sweep of every curve.
:meth:`Study.document` writes it as a spec: one ``load = "sweep"`` point per curve, the
axes crossed and every combination that is no curve of the figure dropped by
``[[exclude]]``, so the experiment layer gives each curve a content-keyed, resumable
point and runs it on the local pool (:func:`run_local`) or as a SLURM job array
(:func:`submit`), the same points into the same store.  :func:`gather` reads the
curves back from the store whichever ran them.

Each curve is a sweep to saturation (:func:`topogen.load_points.knee_sweep`): the lowest
and highest load, a bisection on sustained or not until the bracket around the knee is
at most ``tolerance`` wide (the refinement near the knee), then evenly spaced loads below
saturation (the coarse pass over the curve), so a curve has ``points`` loads below
saturation and its bisection loads crowd the knee.  Figures draw latency against
*accepted* traffic.

Verdicts (:func:`judge`) cannot pass by accident:

* a claim about N curves (networks, routings) holds only if all N ran: a curve that is
  missing, failed or has no sustained load makes the claim ``not run``;
* a claim about saturation is judged only on curves whose knee is resolved to within
  :data:`KNEE_RESOLUTION` (the bracket between the highest sustained and the lowest
  saturated load); otherwise it is ``unresolved``;
* a claim whose check finds the resolved knees still too coarse for its tolerance (a
  ratio of two knees near zero load) is ``unresolved`` too, with the reason.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import ParameterError

__all__ = ["Network", "Curve", "Study", "CurveResult", "Claim", "KNEE_RESOLUTION", "knee_sweep", "toml_text",
           "topology_label", "expand", "plan", "run_local", "submit", "gather", "judge",
           "draw_curves", "VERDICTS", "run_study", "reference_study_run", "check_run_options", "points_table",
           "CrossNetwork", "crosscheck_document", "crosscheck_table", "fixed_load_document", "write_spec"]

#: widest bracket around a curve's knee on which a saturation claim is judged (offered load)
KNEE_RESOLUTION = 0.02
#: the verdicts of a claims table
VERDICTS = ("holds", "differs", "unresolved", "not run")


def knee_sweep(points: int, tolerance: float = KNEE_RESOLUTION) -> dict:
    """A study curve's ``[sweep]``: offered loads up to 1.0, the knee bisected to
    ``tolerance`` (:data:`KNEE_RESOLUTION` unless a claim needs a finer knee), ``points``
    loads below saturation; the lowest load is 0.01, or ``tolerance`` where that is finer
    (a knee near zero load still has loads below it)."""
    if not 0 < tolerance <= KNEE_RESOLUTION:
        raise ParameterError(f"a study's knee tolerance must be in (0, {KNEE_RESOLUTION:g}], got {tolerance!r}")
    return {"low": min(0.01, float(tolerance)), "high": 1.0, "tolerance": float(tolerance), "points": points}


@dataclass(frozen=True)
class Network:
    """One network of a study: a registered generator and its parameters, and the
    ``layout`` it is simulated on (a ``layout`` axis value of
    :mod:`topogen.experiments.layouts`; None or ``{}``: the topology's default layout)."""

    key: str
    generator: str
    params: dict
    description: str = ""
    layout: dict | None = None

    def layout_label(self) -> str:
        """The label the experiment layer gives this network's layout (``default``)."""
        from ..experiments.layouts import parse_layout

        return parse_layout(dict(self.layout or {}), "a study").get("label", "default")


@dataclass(frozen=True)
class Curve:
    """One curve of a figure: ``network`` (a :class:`Network` key) under ``routing`` and
    ``traffic`` (a :mod:`topogen.sim.traffic` pattern), drawn in ``panel`` and in the
    panels ``also`` (the same simulation in another panel of the paper: one point)."""

    label: str
    network: str
    routing: str
    traffic: str
    panel: str
    also: tuple = ()


@dataclass
class Study:
    """A simulation figure as an experiment (see the module notes).

    ``measure``, ``reference`` and ``sweep`` are the spec's ``[measure]``,
    ``[reference]`` and ``[sweep]`` tables; ``slurm`` its ``[slurm]`` defaults; ``knees``
    the load each curve (by ``(label, panel)``) is expected to saturate at, for the plan's estimate
    only (:func:`plan`)."""

    name: str
    networks: dict
    curves: list
    measure: dict
    reference: dict
    sweep: dict
    seed: int = 1
    description: str = ""
    slurm: dict = field(default_factory=dict)
    knees: dict = field(default_factory=dict)

    def __post_init__(self):
        labels = [c.label + "|" + p for c in self.curves for p in (c.panel, *c.also)]
        if len(set(labels)) != len(labels):
            raise ParameterError(f"study {self.name}: a curve is listed twice in one panel")
        keys = {(c.network, c.routing, c.traffic) for c in self.curves}
        if len(keys) != len(self.curves):
            raise ParameterError(f"study {self.name}: two curves simulate the same network, routing and traffic")
        for c in self.curves:
            if c.network not in self.networks:
                raise ParameterError(f"curve {c.label} names network {c.network!r}, which the study lacks")

    def label_of(self, key: str) -> str:
        n = self.networks[key]
        return topology_label(n.generator, n.params)

    def _layouts(self, used) -> list:
        """The distinct layouts of the networks ``used`` (``{}`` the default), in order."""
        out = []
        for k in used:
            lay = dict(self.networks[k].layout or {})
            if lay not in out:
                out.append(lay)
        return out

    def document(self) -> dict:
        """The TOML experiment spec (as a dict) whose points are the curves."""
        used = [k for k in self.networks if any(c.network == k for c in self.curves)]
        routings = list(dict.fromkeys(c.routing for c in self.curves))
        traffics = list(dict.fromkeys(c.traffic for c in self.curves))
        wanted = {(c.network, c.routing, c.traffic) for c in self.curves}
        exclude = []
        for k in used:
            label = self.label_of(k)
            mine_r = [r for r in routings if any(c.network == k and c.routing == r for c in self.curves)]
            mine_t = [t for t in traffics if any(c.network == k and c.traffic == t for c in self.curves)]
            if len(mine_r) < len(routings):
                exclude.append({"topology": label, "routing": [r for r in routings if r not in mine_r]})
            if len(mine_t) < len(traffics):
                exclude.append({"topology": label, "traffic": [t for t in traffics if t not in mine_t]})
            for r in mine_r:
                for t in mine_t:
                    if (k, r, t) not in wanted:
                        exclude.append({"topology": label, "routing": r, "traffic": t})
        layouts = self._layouts(used)
        if len(layouts) > 1:  # each network on its own layout: the other layouts dropped
            from ..experiments.layouts import parse_layout

            labels = [parse_layout(dict(lay), "a study").get("label", "default") for lay in layouts]
            for k in used:
                mine = self.networks[k].layout_label()
                others = [lab for lab in labels if lab != mine]
                exclude.append({"topology": self.label_of(k), "layout": others})
        doc = {
            "experiment": {"name": self.name, "store": f"{self.name}.store",
                           "description": self.description or f"study {self.name}"},
            "axes": {"topology": [{"generator": self.networks[k].generator, "params": self.networks[k].params}
                                  for k in used],
                     **({"layout": layouts} if layouts != [{}] else {}),
                     "routing": routings, "traffic": traffics, "load": ["sweep"],
                     "simulator": ["reference"], "seed": [int(self.seed)]},
            "measure": dict(self.measure),
            "reference": dict(self.reference),
            "sweep": dict(self.sweep),
        }
        if exclude:
            doc["exclude"] = exclude
        if self.slurm:
            doc["slurm"] = dict(self.slurm)
        return doc

    def curve_of(self, content: dict) -> Curve | None:
        """The curve a point's content simulates (None: not one of the study's)."""
        label = content["topology"]["label"]
        layout = (content.get("layout") or {}).get("label", "default")
        for c in self.curves:
            if (self.label_of(c.network) == label and c.routing == content["routing"]
                    and c.traffic == content["traffic"]
                    and self.networks[c.network].layout_label() == layout):
                return c
        return None


# ------------------------------------------------------------------------------- TOML
_BARE = re.compile(r"[A-Za-z0-9_-]+\Z")


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ParameterError(f"TOML has no {v!r}")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise ParameterError(f"cannot write {type(v).__name__} {v!r} as TOML")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k)


def toml_text(doc: dict, header: str = "") -> str:
    """``doc`` (tables of scalars, lists and inline tables; lists of tables as ``[[...]]``)
    as TOML text, ``header`` lines first as comments."""
    lines = [f"# {line}" for line in header.splitlines()]
    for name, table in doc.items():
        if isinstance(table, list):
            for item in table:
                lines += ["", f"[[{_key(name)}]]"] + [f"{_key(k)} = {_value(v)}" for k, v in item.items()]
        else:
            lines += ["", f"[{_key(name)}]"] + [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def topology_label(generator: str, params: dict) -> str:
    """The label an experiment spec gives a generated topology without ``label =``:
    ``slimfly(q=19)``."""
    from ..results import canonical_json

    text = ",".join(f"{k}={canonical_json(v)}" for k, v in sorted(params.items()))
    return f"{generator}({text})" if text else generator


# ------------------------------------------------------------------------------- running
def expand(study: Study, folder) -> "object":
    """Write ``study``'s spec into ``folder/<name>.toml`` (the folder is made; a spec of
    another study there is refused, the same one is kept, so a rerun resumes) and return
    the parsed :class:`~topogen.experiments.spec.Experiment`, its store in the folder."""
    from ..experiments.spec import parse_experiment
    from ..output import atomic_write

    folder = Path(folder)
    path = folder / f"{study.name}.toml"
    text = toml_text(study.document(), header=f"topogen study {study.name}: {study.description}\n"
                                              "written by topogen reproduce; run or submit it with "
                                              "topogen experiment run/submit")
    if folder.exists() and not folder.is_dir():
        raise ParameterError(f"{folder} exists and is not a folder; name a folder for the study's spec, store "
                             "and figure")
    folder.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write(path, text)
    from .._input import parse_toml

    return parse_experiment(parse_toml(text, path=path, what="experiment spec"), path=path)


def _open_store(exp, create: bool):
    from ..experiments.store import Store

    return Store.open(exp.store, exp.name, create=create)


def run_local(exp, *, jobs: int = 1, progress: bool = True):
    """Run the points ``exp``'s store lacks on the local pool (``jobs`` processes);
    returns the :class:`~topogen.experiments.runner.RunSummary`."""
    from ..experiments.runner import run_points
    from ..experiments.spec import check_experiment

    store = _open_store(exp, create=True)
    pending = store.pending(exp.points)
    if pending:
        check_experiment(exp)
    return run_points(pending, store, jobs=jobs, total=len(exp.points),
                      already_done=len(exp.points) - len(pending), progress=progress)


def submit(exp, *, dry_run: bool = False, **options) -> dict:
    """Submit the points ``exp``'s store lacks as a SLURM job array (and a collect job
    after it): :func:`topogen.experiments.slurm.submit` with ``[slurm]`` of the spec and
    ``options`` (:class:`~topogen.experiments.slurm.SlurmOptions` fields) on top."""
    from ..experiments.slurm import SlurmOptions
    from ..experiments.slurm import submit as slurm_submit
    from ..experiments.spec import check_experiment

    store = _open_store(exp, create=True)
    if store.pending(exp.points):
        check_experiment(exp)
    opts = SlurmOptions(**{**exp.slurm, **options})
    return slurm_submit(exp, store, opts, dry_run=dry_run)


_submit_points = submit  # run_study's ``submit`` flag hides the function


@dataclass
class CurveResult:
    """One curve as the store holds it: its rows (one per load, in load order) and its
    knee: ``sustained`` the highest offered load that completed, ``saturated`` the lowest
    above it that did not (inf: none did), ``status`` of the point (``done``,
    ``failed``, ``missing``)."""

    curve: Curve
    rows: list
    status: str
    error: str = ""

    @property
    def completed(self) -> list:
        return [r for r in self.rows if r.get("status") == "completed"]

    @property
    def ran(self) -> bool:
        return self.status == "done" and bool(self.completed)

    @property
    def sustained(self) -> float:
        ok = [float(r["offered_load"]) for r in self.completed]
        return max(ok) if ok else math.nan

    @property
    def saturated(self) -> float:
        s = self.sustained
        above = [float(r["offered_load"]) for r in self.rows
                 if r.get("status") != "completed" and float(r["offered_load"]) > s]
        return min(above) if above else math.inf

    @property
    def accepted_at_knee(self) -> float:
        """Accepted over offered traffic at the highest sustained load (nan: none): under 1
        by more than the measurement's noise, the load is past the network's throughput
        though the run completed (a short measurement's latency did not reach
        ``latency_thres``), so the knee lies lower than :attr:`sustained`."""
        ok = [r for r in self.completed if float(r["offered_load"]) == self.sustained]
        if not ok or _nan(ok[0].get("accepted_flit_rate")):
            return math.nan
        return float(ok[0]["accepted_flit_rate"]) / float(ok[0]["offered_load"])

    @property
    def knee_width(self) -> float:
        return self.saturated - self.sustained

    @property
    def resolved(self) -> bool:
        return self.ran and self.knee_width <= KNEE_RESOLUTION + 1e-9

    @property
    def below_saturation(self) -> int:
        return len(self.completed)

    @property
    def throughput(self) -> float:
        """Highest accepted load of any of its runs (flits/host/cycle)."""
        acc = [float(r["accepted_flit_rate"]) for r in self.rows
               if r.get("accepted_flit_rate") is not None and not _nan(r.get("accepted_flit_rate"))]
        return max(acc) if acc else math.nan

    def latency_at_lowest(self) -> float:
        ok = sorted(self.completed, key=lambda r: float(r["offered_load"]))
        return float(ok[0]["latency_avg"]) if ok else math.nan

    def latency_at(self, load: float) -> float:
        """Mean latency (cycles) at ``load`` offered, interpolated between the completed
        loads around it (nan beyond them)."""
        ok = sorted(self.completed, key=lambda r: float(r["offered_load"]))
        xs = [float(r["offered_load"]) for r in ok]
        ys = [float(r["latency_avg"]) for r in ok]
        if not xs or load < xs[0] - 1e-12 or load > xs[-1] + 1e-12:
            return math.nan
        import numpy as np

        return float(np.interp(load, xs, ys))


def _nan(v) -> bool:
    try:
        return math.isnan(float(v))
    except (TypeError, ValueError):
        return True


def gather(study: Study, exp) -> dict:
    """``{(label, panel): CurveResult}`` of every curve of ``study`` from ``exp``'s store
    (whoever ran its points: the local pool or a SLURM array)."""
    store = _open_store(exp, create=False)
    done, failed = store.done_ids(), store.failed_ids()
    out = {}
    for p in exp.points:
        curve = study.curve_of(p.content)
        if curve is None:
            continue
        if p.id in done:
            rec = store.record(p.id)
            rows = rec.get("rows") if rec.get("rows") is not None else [rec.get("row")]
            res = CurveResult(curve, sorted((r for r in rows if r), key=lambda r: float(r["offered_load"])), "done")
        elif p.id in failed:
            rec = store.record(p.id, "failed")
            res = CurveResult(curve, list(rec.get("rows") or []), "failed", str(rec.get("error") or ""))
        else:
            res = CurveResult(curve, [], "missing")
        for c in study.curves:
            if (c.network, c.routing, c.traffic) == (curve.network, curve.routing, curve.traffic):
                out[c.label, c.panel] = CurveResult(c, res.rows, res.status, res.error)
    for c in study.curves:
        out.setdefault((c.label, c.panel), CurveResult(c, [], "missing"))
        for p in c.also:  # the same simulation drawn in another panel
            r = out[c.label, c.panel]
            out[c.label, p] = CurveResult(Curve(c.label, c.network, c.routing, c.traffic, p), r.rows, r.status, r.error)
    return out


def curves_table(results: dict) -> pd.DataFrame:
    """One row per curve: its status, knee bracket, resolution, loads below saturation,
    throughput and lowest-load latency."""
    rows = []
    for (label, panel), r in results.items():
        rows.append({"panel": panel, "curve": label, "network": r.curve.network, "routing": r.curve.routing,
                     "traffic": r.curve.traffic, "status": r.status if r.status != "done" or r.ran else "no load sustained",
                     "sustained": r.sustained, "saturated": r.saturated,
                     "knee_resolved": r.resolved, "loads_below_saturation": r.below_saturation,
                     "accepted_at_knee": r.accepted_at_knee,
                     "throughput": r.throughput, "latency_low_load": r.latency_at_lowest(),
                     "loads": len(r.rows)})
    return pd.DataFrame(rows)


def curve_rows(results: dict) -> pd.DataFrame:
    """Every simulated load of every curve (panel, curve, offered, accepted, latency, status)."""
    rows = []
    for (label, panel), r in results.items():
        for row in r.rows:
            rows.append({"panel": panel, "curve": label, "offered": float(row["offered_load"]),
                         "accepted": float(row["accepted_flit_rate"]) if not _nan(row.get("accepted_flit_rate")) else math.nan,
                         "latency_cycles": float(row["latency_avg"]) if not _nan(row.get("latency_avg")) else math.nan,
                         "hops_avg": float(row["hops_avg"]) if not _nan(row.get("hops_avg")) else math.nan,
                         "status": row.get("status")})
    return pd.DataFrame(rows, columns=["panel", "curve", "offered", "accepted", "latency_cycles", "hops_avg",
                                       "status"])


# ------------------------------------------------------------------------------- claims
@dataclass(frozen=True)
class Claim:
    """A statement of the paper, checked on curves.

    ``curves`` are the ``(label, panel)`` keys it is about (all must have run);
    ``saturation`` says it is judged on the curves' knees (then all must be resolved);
    ``capped``: a curve that sustained the whole injection bandwidth (load 1, no load
    saturated) counts as resolved, its throughput being that bandwidth (a paper whose
    axis ends at the injection bandwidth, such as Skywalk's 12 Gbit/s per host, plots
    such a curve as one that never shoots up);
    ``check(results) -> (topogen value text, holds, reason)`` judges it (``holds`` None:
    the curves cannot decide it, ``unresolved``)."""

    text: str
    panel: str
    paper: str
    tolerance: str
    curves: tuple
    check: Callable
    saturation: bool = True
    capped: bool = False


def judge(claims: Sequence[Claim], results: dict) -> pd.DataFrame:
    """The claims table: claim, panel, paper value, topogen value, tolerance, verdict,
    reason (see the module notes for the rules)."""
    rows = []
    for cl in claims:
        rs = [results.get(k) for k in cl.curves]
        missing = [f"{k[0]} ({k[1]})" for k, r in zip(cl.curves, rs) if r is None or not r.ran]
        if missing:
            verdict, value = "not run", ""
            reason = (f"{len(missing)} of the {len(cl.curves)} curve(s) it is about did not run: "
                      + ", ".join(missing))
        elif cl.saturation and not all(r.resolved or (cl.capped and _at_capacity(r)) for r in rs):
            bad = [f"{r.curve.label} ({r.curve.panel}): knee between {r.sustained:g} and {r.saturated:g}"
                   for r in rs if not (r.resolved or (cl.capped and _at_capacity(r)))]
            verdict, value = "unresolved", ""
            reason = f"knee not resolved to {KNEE_RESOLUTION:g}: " + "; ".join(bad)
        else:
            value, ok, reason = cl.check(results)
            verdict = "unresolved" if ok is None else "holds" if ok else "differs"
        rows.append({"claim": cl.text, "panel": cl.panel, "paper": cl.paper, "topogen": value,
                     "tolerance": cl.tolerance, "verdict": verdict, "reason": reason})
    return pd.DataFrame(rows, columns=["claim", "panel", "paper", "topogen", "tolerance", "verdict", "reason"])


def _at_capacity(r: CurveResult) -> bool:
    """Whether a curve sustained the whole injection bandwidth (load 1) with no load saturated."""
    return r.ran and math.isinf(r.saturated) and r.sustained >= 1.0 - 1e-9


# ------------------------------------------------------------------------------- plan
def announce(kwargs: dict, expanded: Callable, seconds_per_hop: dict | None) -> str | None:
    """The ``announce`` of a reproduction with study modes: for ``--quick``/``--full`` the
    plan of the spec ``expanded(kwargs)`` returns (``(study, experiment)``), ``""`` when
    nothing runs (``--plan``, ``--collect``), None for the reproduction's other mode (its
    recorded estimate is then printed by the command line)."""
    if not (kwargs.get("quick") or kwargs.get("full")):
        return None
    if kwargs.get("plan") or kwargs.get("collect"):
        return ""
    study, exp = expanded(kwargs)
    return plan(study, exp, seconds_per_hop=seconds_per_hop)["text"]


#: a plan's mean path length of a routing over the network's minimal one: Valiant's two
#: minimal legs; UGAL's mix of minimal and Valiant paths (SF q=19 at 0.4 under uniform
#: traffic: UGAL-L 1.26, UGAL-G 1.11 times MIN's hops; more Valiant paths near saturation)
PATH_STRETCH = {"valiant": 2.0, "ugal-l": 1.5, "ugal-g": 1.5}
#: a sustained load at least this fraction of its curve's knee counts as near it (SF q=19
#: MIN, knee 0.63: 0.60 and 0.63 ran 1,376 and 1,704 cycles of a 1,000-cycle schedule)
NEAR_KNEE = 0.9
#: where a plan assumes a curve saturates (fraction of the injection bandwidth) when its
#: study names no expected knee for it
DEFAULT_KNEE = 0.5


def rate_for(rates: dict, generator: str, routing: str) -> float:
    """CPU seconds per packet-hop of ``routing`` on a ``generator`` network from ``rates``:
    the entry ``"generator:routing"``, else ``"routing"``, else ``"*"`` (else 1 us)."""
    for key in (f"{generator}:{routing}", routing, "*"):
        if key in rates:
            return float(rates[key])
    return 1e-6


def plan(study: Study, exp, *, seconds_per_hop: dict | None = None) -> dict:
    """What a run will do: points (curves) to run, simulations (loads of a sweep, about),
    and an estimate of CPU minutes.

    The estimate counts every load a curve's sweep asks for when the curve saturates at
    its expected knee (``study.knees`` by ``(label, panel)``; :data:`DEFAULT_KNEE` otherwise):
    :func:`topogen._estimate.sweep_loads`.  A sustained load runs the cycles BookSim's
    measurement takes when its convergence test stops it at the first chance (warm-up,
    four sample periods, a drain of about one more) at the offered load, near the knee
    (:data:`NEAR_KNEE`) twice ``max_samples`` periods; a saturated one all ``max_samples``
    periods at the knee's rate (:func:`topogen._estimate.measured_cycles`).
    Packet-hops: packets times the network's mean hops (stretched by :data:`PATH_STRETCH`,
    plus the ejection hop), priced by ``seconds_per_hop`` (:func:`rate_for`; the rates
    measured on this store's finished curves replace them by routing).

    Returns
    -------
    dict
        ``points``, ``pending``, ``simulations``, ``cpu_minutes`` and ``text``.
    """
    from .._estimate import measured_cycles, sweep_loads
    from ..registry import generate

    store = _open_store(exp, create=False)
    pending = store.pending(exp.points) if store.exists else list(exp.points)
    rate = dict(seconds_per_hop or {})
    measured = _measured_rates(exp, store) if store.exists else {}
    m, sw = exp.measure, study.sweep
    cycles_ok = measured_cycles(m["warmup_periods"], m["sample_period"], m["max_samples"])
    cycles_sat = measured_cycles(m["warmup_periods"], m["sample_period"], m["max_samples"], sustained=False)
    cycles_knee = measured_cycles(m["warmup_periods"], m["sample_period"], m["max_samples"], near_knee=True)
    sizes = {}
    cpu = 0.0
    sims = 0
    knees_used = set()
    for p in pending:
        curve = study.curve_of(p.content)
        if curve is None:
            continue
        net = study.networks[curve.network]
        if curve.network not in sizes:
            t = generate(net.generator, **net.params)
            from ..metrics.hops import distance_stats

            sizes[curve.network] = (int(t.num_hosts), float(distance_stats(t, sample=64, seed=1).aspl))
        hosts, hops = sizes[curve.network]
        hops = hops * PATH_STRETCH.get(curve.routing, 1.0) + 1.0
        knee = float(study.knees.get((curve.label, curve.panel), DEFAULT_KNEE))
        knees_used.add((curve.label, curve.panel) in study.knees)
        loads = sweep_loads(sw["low"], sw["high"], sw["tolerance"], sw["points"], knee)
        sims += len(loads)
        packets = sum(hosts * (x if ok else knee) * (cycles_sat if not ok else cycles_knee if x >= NEAR_KNEE * knee
                                                      else cycles_ok) for x, ok in loads)
        packets /= m["packet_size"]
        cpu += packets * hops * measured.get(curve.routing, rate_for(rate, net.generator, curve.routing))
    per_curve = round(sims / len(pending)) if pending else 0
    assumed = ("the paper's knees" if knees_used == {True} else
               f"knees at {DEFAULT_KNEE:g} of the injection bandwidth" if knees_used == {False} else
               f"the paper's knees where it gives one, {DEFAULT_KNEE:g} elsewhere")
    text = (f"study {study.name}: {len(exp.points)} curves as experiment points, {len(pending)} to run "
            f"({len(exp.points) - len(pending)} done), about {sims} simulations (about {per_curve} loads per "
            f"curve: both ends, a bisection to {sw['tolerance']:g}, {sw['points']} loads below saturation); "
            f"estimate {cpu / 60:,.0f} CPU minutes (assuming {assumed}; a sustained load runs {cycles_ok:,} "
            f"cycles: {m['warmup_periods']} warm-up and 4 sample periods of {m['sample_period']:,} until the "
            f"convergence test stops it, and a drain; within {1 - NEAR_KNEE:.0%} of the knee {cycles_knee:,}; a "
            f"saturated one at most {cycles_sat:,}; seconds per "
            "packet-hop " + (f"from this store's finished curves for {', '.join(sorted(measured))} (their CPU time; "
                             "the wall time of records that have none), recorded for the rest" if measured
                             else "as recorded") + ")")
    return {"points": len(exp.points), "pending": len(pending), "simulations": sims, "cpu_minutes": cpu / 60,
            "text": text}


def _measured_rates(exp, store) -> dict:
    """Seconds per packet-hop by routing, from the finished points of ``store``: each
    point's CPU time (its wall time where the record has none: more on a busy machine)
    over the packet-hops of its rows, cycles x hosts x injected rate x mean hops / packet
    size; a saturated row, which records no mean hops, counts at the mean hops of its
    curve's sustained rows.  A routing's CPU-timed records, where it has any, are used
    alone."""
    seconds: dict = {}
    hops: dict = {}
    done = store.done_ids()
    for p in exp.points:
        if p.id not in done:
            continue
        rec = store.record(p.id)
        rows = [r for r in (rec.get("rows") or [rec.get("row")]) if r]
        size = float(p.content["measure"]["packet_size"])
        means = [float(r.get("hops_avg", math.nan)) for r in rows]
        means = [h for h in means if math.isfinite(h)]
        fill = sum(means) / len(means) if means else math.nan
        total = 0.0
        for r in rows:
            try:
                h = float(r.get("hops_avg", math.nan))
                x = (float(r["sim_cycles"]) * float(r["num_hosts"]) * float(r["injected_flit_rate"])
                     * (h if math.isfinite(h) else fill) / size)
            except (KeyError, TypeError, ValueError):
                continue
            if math.isfinite(x):
                total += x
        cpu = rec.get("cpu_seconds")
        spent = float(cpu if cpu is not None else rec.get("seconds") or 0)
        if total > 0 and math.isfinite(total) and spent > 0:
            key = (p.content["routing"], cpu is not None)
            seconds[key] = seconds.get(key, 0.0) + spent
            hops[key] = hops.get(key, 0.0) + total
    rates = {k: seconds[k] / hops[k] for k in seconds}
    # a routing's CPU-timed records, where it has any, replace its wall-timed ones
    return {routing: rates.get((routing, True), rate) for (routing, timed), rate in rates.items()}


# ------------------------------------------------------------------------------- figure
def draw_curves(results: dict, path, *, panels: Sequence[str], titles: dict | None = None,
                dashed: Callable = lambda label: False, suptitle: str = "", x_scale: float | dict = 1.0,
                x_label: str = "accepted traffic (flits/endpoint/cycle)", y_scale: float = 1.0,
                y_label: str = "latency (cycles)", y_max: float | None = None, x_max: dict | None = None):
    """Latency against accepted traffic, one panel per entry of ``panels``, one line per
    curve (completed loads; the knee bracket in the legend), written to ``path``
    (.png/.svg/.pdf, atomically).  ``x_scale`` and ``y_scale`` convert the rows' flits per
    endpoint and cycle and cycles into the paper's units (``x_label``, ``y_label``; e.g.
    Gbit/s per host and ns; ``x_scale`` may map panels to their own factor, when the
    endpoints of the panels differ); ``y_max`` cuts the latency axis (None: all of it);
    ``x_max`` maps panels to the end of their traffic axis (default: the injection bandwidth)."""

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        xs = float(x_scale.get(panel, 1.0)) if isinstance(x_scale, dict) else float(x_scale)
        for (label, pnl), r in results.items():
            if pnl != panel or not r.ran:
                continue
            ok = sorted(r.completed, key=lambda x: float(x["offered_load"]))
            knee = (f"{r.sustained * xs:.3g}-{r.saturated * xs:.3g}" if math.isfinite(r.saturated)
                    else f">= {r.sustained * xs:.3g}")
            ax.plot([float(x["accepted_flit_rate"]) * xs for x in ok],
                    [float(x["latency_avg"]) * y_scale for x in ok],
                    marker="o", markersize=3, linestyle="--" if dashed(label) else "-",
                    label=f"{label} (knee {knee})")
        ax.set_title((titles or {}).get(panel, panel))
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_xlim(0, float((x_max or {}).get(panel, xs)))
        if y_max is not None:
            ax.set_ylim(0, y_max)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    from ._figs_common import save_figure

    return save_figure(fig, path)


# ------------------------------------------------------------------------------- a study's run
def points_table(study: Study, exp) -> pd.DataFrame:
    """One row per point of ``exp`` that is a curve of ``study``: id, panel, curve, network,
    layout, routing, traffic."""
    rows = []
    for pt in exp.points:
        c = study.curve_of(pt.content)
        if c is not None:
            rows.append({"point": pt.id, "panel": c.panel, "curve": c.label, "network": study.label_of(c.network),
                         "layout": study.networks[c.network].layout_label(), "routing": c.routing,
                         "traffic": c.traffic})
    return pd.DataFrame(rows)


def run_study(study: Study, exp, claims: Sequence[Claim], *, title: str, submit: bool = False,
              collect: bool = False, plan_only: bool = False, workers: int = 1, figure=None,
              seconds_per_hop: dict | None = None, draw: dict | None = None, notes: Sequence[str] = ()):
    """Plan, run (local pool), submit (SLURM array) or collect ``study``'s points, then
    judge ``claims``, write ``claims.csv``, ``curves.csv`` and the figure (``figure``,
    default ``fig.png`` beside the spec; ``draw``: :func:`draw_curves` keywords besides
    the results and path) and return the
    :class:`~topogen.reproduce._base.ExperimentResult` (the curves table, the claims as
    an extra table).  ``notes`` are appended to the result's notes."""
    from ..output import atomic_write
    from ._base import ExperimentResult

    if submit and collect:
        raise ParameterError("--submit sends the points to SLURM, --collect gathers them when the array has "
                             "ended: give one")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers must be an integer >= 1, got {workers!r}")
    folder = Path(exp.path).parent
    figure = Path(figure) if figure else folder / "fig.png"
    if not str(figure).lower().endswith((".png", ".svg", ".pdf")):
        raise ParameterError(f"plot must end in .png, .svg or .pdf, got {str(figure)!r}")
    pl = plan(study, exp, seconds_per_hop=seconds_per_hop)
    out_notes = [pl["text"], f"spec: {exp.path}; store: {exp.store}"]
    if plan_only:
        return ExperimentResult(title=title + ": plan", table=points_table(study, exp),
                                notes=out_notes + list(notes))
    if submit:
        info = _submit_points(exp)
        out_notes.append(f"submitted {info['points']} point(s) as SLURM job {info['job']} ({info['tasks']} array "
                         f"task(s)); collect job {info['collect_job']}. When it has ended run the same command "
                         "with --collect instead of --submit." if info["points"] else
                         "nothing to submit: every point is in the store; run with --collect")
        return ExperimentResult(title=title + ": submitted", table=points_table(study, exp), notes=out_notes)
    if not collect:
        summary = run_local(exp, jobs=workers)
        out_notes.append(summary.table().replace("\n", "; "))
    results = gather(study, exp)
    claims_table = judge(claims, results)
    atomic_write(folder / "claims.csv", claims_table.to_csv(index=False))
    atomic_write(folder / "curves.csv", curve_rows(results).to_csv(index=False))
    if any(r.ran for r in results.values()):
        options = dict(draw or {})
        options.setdefault("panels", list(dict.fromkeys(p for c in study.curves for p in (c.panel, *c.also))))
        draw_curves(results, figure, **options)
        out_notes.append(f"figure: {figure}")
    out_notes.append(f"claims: {folder / 'claims.csv'}; every load of every curve: {folder / 'curves.csv'}")
    counts = claims_table.verdict.value_counts()
    out_notes.append("claims: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS))
    out_notes += list(notes)
    return ExperimentResult(title=title, table=curves_table(results), notes=out_notes,
                            extra_tables={"claims": claims_table})


def reference_study_run(kwargs: dict, expanded: Callable, claims: Callable, *, title: str, figure: str,
                        refusal: str, seconds_per_hop: dict | None, draw: Callable | dict | None = None,
                        notes: Callable | Sequence[str] = ()):
    """The ``--quick``/``--full`` run of a reproduction whose study runs on the reference
    simulator: ``kwargs`` are the reproduction's (``simulator``, ``submit``, ``collect``,
    ``plan``, ``workers``, ``plot`` and what ``expanded`` reads), ``expanded(kwargs)``
    returns ``(study, experiment)``, ``claims(study)`` the claims judged on it.  ``title``
    may name the experiment as ``{name}``; ``figure`` is the figure's file name beside
    the spec unless ``plot`` names one; ``refusal`` is the message for another simulator
    (it should say where that simulator's comparison runs).  ``draw`` and ``notes`` are
    :func:`run_study`'s, or functions of the study that return them.  The settings are
    checked before the study's folder is written."""
    workers, plot = check_run_options(kwargs, refusal)
    study, exp = expanded(kwargs)
    return run_study(study, exp, claims(study), title=title.format(name=exp.name),
                     submit=bool(kwargs.get("submit")), collect=bool(kwargs.get("collect")),
                     plan_only=bool(kwargs.get("plan")), workers=workers,
                     figure=plot or Path(exp.path).parent / figure, seconds_per_hop=seconds_per_hop,
                     draw=draw(study) if callable(draw) else draw,
                     notes=notes(study) if callable(notes) else notes)


def check_run_options(kwargs: dict, refusal: str) -> tuple[int, str]:
    """The settings of a reference study run checked before anything is written: the
    simulator (``refusal`` for another one), one of ``submit`` and ``collect``, ``workers``
    and ``plot``; returns ``(workers, plot)``."""
    if kwargs.get("simulator", "reference") != "reference":
        raise ParameterError(refusal)
    if kwargs.get("submit") and kwargs.get("collect"):
        raise ParameterError("--submit sends the points to SLURM, --collect gathers them when the array has "
                             "ended: give one")
    workers = kwargs.get("workers", 1)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers must be an integer >= 1, got {workers!r}")
    plot = kwargs.get("plot") or ""
    if plot and not str(plot).lower().endswith((".png", ".svg", ".pdf")):
        raise ParameterError(f"plot must end in .png, .svg or .pdf, got {str(plot)!r}")
    return workers, plot


# ------------------------------------------------------------------------------- on another simulator
@dataclass(frozen=True)
class CrossNetwork:
    """One network of a cross-check: topogen's generator and parameters, the routing both
    simulators run (``routing``: topogen's name of it), and ``booksim`` -- the options of
    BookSim's own topology that is the same network (None: topogen's anynet export, routed
    by anynet's ``min``, topogen's ``booksim-min``) -- with ``link_cycles``, the channel
    latencies per link kind that BookSim's network has built in (None: the spec's
    ``link_latency``).  ``figure`` is the curve of the figure whose routing this network
    stands for (label, routing, description)."""

    key: str
    generator: str
    params: dict
    routing: str
    description: str = ""
    booksim: dict | None = None
    link_cycles: dict | None = None

    @property
    def label(self) -> str:
        return topology_label(self.generator, self.params)

    def entry(self) -> dict:
        e = {"generator": self.generator, "params": dict(self.params)}
        if self.booksim:
            e["booksim"] = dict(self.booksim)
        if self.link_cycles:
            e["link_cycles"] = dict(self.link_cycles)
        return e


def crosscheck_document(name: str, networks: Sequence[CrossNetwork], loads: dict, measure: dict, *,
                        simulator: str = "booksim", repeats: int = 1, description: str = "",
                        slurm: dict | None = None) -> dict:
    """A spec that runs each of ``networks`` (:class:`CrossNetwork`) at its ``loads``
    (``{key: [load, ...]}``) under uniform traffic on the reference simulator and on
    ``simulator``, with the same routing on both (BookSim's own routing function on its
    own topology, or anynet's ``min`` on topogen's export) and one ``[measure]`` for both
    (``internal_speedup`` included: BookSim's router steps, the reference simulator's
    allocation rounds).  ``repeats`` > 1 runs each load with that many seeds, so the
    verdicts can weigh a miss against its standard error."""
    if simulator != "booksim":
        raise ParameterError(f"the cross-check runs on booksim (BookSim2's own topologies and anynet), got "
                             f"{simulator!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ParameterError(f"repeats must be an integer >= 1, got {repeats!r}")
    nets = {n.key: n for n in networks}
    unknown = [k for k in loads if k not in nets]
    if unknown:
        raise ParameterError(f"loads name network(s) {', '.join(map(str, unknown))}; the cross-check has "
                             f"{', '.join(nets)}")
    used = [nets[k] for k in nets if loads.get(k)]
    if not used:
        raise ParameterError("the cross-check has no loads to run: give at least one network a load")
    for n in used:
        bad = [x for x in loads[n.key] if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x <= 1]
        if bad:
            raise ParameterError(f"loads of {n.key} must be offered loads in (0, 1] flits/node/cycle, got {bad}")
        if n.booksim is None and n.routing != "booksim-min":
            raise ParameterError(f"{n.key} runs on BookSim's anynet export, which routes with anynet's min "
                                 f"(topogen's booksim-min) only, not {n.routing}")
    routings = list(dict.fromkeys(n.routing for n in used))
    all_loads = sorted({float(x) for n in used for x in loads[n.key]})
    exclude = []
    for n in used:
        other_r = [r for r in routings if r != n.routing]
        if other_r:
            exclude.append({"topology": n.label, "routing": other_r})
        other_l = [x for x in all_loads if x not in {float(v) for v in loads[n.key]}]
        if other_l:
            exclude.append({"topology": n.label, "load": other_l})
    axes = {"topology": [n.entry() for n in used], "routing": routings, "traffic": ["uniform"],
            "load": all_loads, "simulator": ["reference", simulator], "seed": [1]}
    if repeats > 1:
        axes["repeats"] = repeats
    doc = {"experiment": {"name": name, "store": f"{name}.store",
                          "description": description or f"{name}: the same networks on reference and {simulator}"},
           "axes": axes, "measure": dict(measure)}
    if exclude:
        doc["exclude"] = exclude
    if slurm:
        doc["slurm"] = dict(slurm)
    return doc


def fixed_load_document(study: Study, loads: dict) -> dict:
    """``study``'s spec with fixed loads in place of the sweeps: ``loads`` maps a curve
    ``(label, panel)`` to its loads; the study's other curves are dropped."""
    keys = {tuple(k) for k in loads}
    missing = [k for k in keys if not any((c.label, c.panel) == k for c in study.curves)]
    if missing:
        raise ParameterError(f"study {study.name} has no curve {missing[0][0]} in panel {missing[0][1]}")
    curves = [c for c in study.curves if (c.label, c.panel) in keys]
    sub = Study(name=study.name, networks=study.networks, curves=curves, measure=study.measure,
                reference=study.reference, sweep=study.sweep, seed=study.seed, description=study.description,
                slurm=study.slurm)
    doc = sub.document()
    del doc["sweep"]
    all_loads = sorted({float(x) for v in loads.values() for x in v})
    doc["axes"]["load"] = all_loads
    for c in curves:
        mine = {float(x) for x in loads[c.label, c.panel]}
        other = [x for x in all_loads if x not in mine]
        if other:
            doc.setdefault("exclude", []).append({"topology": study.label_of(c.network), "routing": c.routing,
                                                  "load": other})
    return doc


def write_spec(doc: dict, folder, header: str):
    """Write ``doc`` as ``folder/<name>.toml`` (kept when unchanged, so a rerun resumes) and
    return the parsed :class:`~topogen.experiments.spec.Experiment`."""
    from .._input import parse_toml
    from ..experiments.spec import parse_experiment
    from ..output import atomic_write

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ParameterError(f"{folder} exists and is not a folder; name a folder for the cross-check's specs and "
                             "stores")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{doc['experiment']['name']}.toml"
    text = toml_text(doc, header=header)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write(path, text)
    return parse_experiment(parse_toml(text, path=path, what="experiment spec"), path=path)


def _store_points(exp) -> dict:
    """``{(topology label, routing, load, simulator): [row, ...]}`` of ``exp``'s points in
    its store (a point whose run failed as a row with its status; not yet run: absent)."""
    from ..experiments.store import Store

    if not Path(exp.store).exists():
        return {}
    store = Store.open(exp.store, exp.name, create=False)
    done, failed = store.done_ids(), store.failed_ids()
    out: dict = {}
    for p in exp.points:
        c = p.content
        key = (c["topology"]["label"], c["routing"], float(c["load"]), c["simulator"])
        if p.id in done:
            rec = store.record(p.id)
            row = dict(rec.get("row") or {})
        elif p.id in failed:
            rec = store.record(p.id, "failed")
            row = dict(rec.get("row") or {})
            row["status"] = row.get("status") or rec.get("kind") or "failed"
            row["error"] = rec.get("error") or ""
        else:
            continue
        row["cpu_seconds"] = rec.get("cpu_seconds", math.nan)
        out.setdefault(key, []).append(row)
    return out


def _cpu_seconds(row: dict) -> float:
    try:
        return float(row.get("cpu_seconds"))
    except (TypeError, ValueError):
        return math.nan


def crosscheck_table(exp, networks: Sequence[CrossNetwork], *, figure=None, figure_of: dict | None = None,
                     simulator: str = "booksim") -> pd.DataFrame:
    """The cross-check's table from ``exp``'s store: per network and load, the reference
    simulator's and ``simulator``'s status, mean latency (cycles; the mean of the repeats)
    and accepted rate, their ratio and the verdict of
    :func:`topogen.reproduce.crossval_native.verdict` (within
    :data:`~topogen.reproduce.crossval_native.ZERO_TOLERANCE` at a load up to
    :data:`~topogen.reproduce.crossval_native.ZERO_LOAD`, else
    :data:`~topogen.reproduce.crossval_native.LATENCY_TOLERANCE`, or within two standard
    errors with repeats); a load at which one simulator completed and the other did not is
    ``FAIL``, one at which neither completed ``pass (neither completed)``.  With ``figure``
    (the fixed-load spec of the figure's own curves) and ``figure_of`` (network key ->
    topology label and routing of that curve) the figure's curve at the same load
    stands beside them."""
    from .crossval_native import LATENCY_TOLERANCE, ZERO_LOAD, ZERO_TOLERANCE, _point, verdict

    got = _store_points(exp)
    fig = _store_points(figure) if figure is not None else {}
    out = []
    for n in networks:
        loads = sorted({k[2] for k in got if k[0] == n.label and k[1] == n.routing}
                       | {float(p.content["load"]) for p in exp.points
                          if p.content["topology"]["label"] == n.label})
        for load in loads:
            ref_rows = got.get((n.label, n.routing, load, "reference"), [])
            oth_rows = got.get((n.label, n.routing, load, simulator), [])
            if not ref_rows and not oth_rows:
                continue
            ref, oth = _point(ref_rows), _point(oth_rows)
            tol = ZERO_TOLERANCE if load <= ZERO_LOAD else LATENCY_TOLERANCE
            if not ref_rows or not oth_rows:
                ratio, verd = math.nan, "not run"
            elif oth["status"] != "completed":
                ratio, verd = math.nan, ("pass (neither completed)" if ref["status"] != "completed" else "FAIL")
            else:
                ratio, verd = verdict(ref, oth, tol)
            row = {"network": n.key, "routing": n.routing, "load": load,
                   "status_reference": ref["status"] if ref_rows else "not run",
                   f"status_{simulator}": oth["status"] if oth_rows else "not run",
                   "latency_reference": ref["latency_cycles"], f"latency_{simulator}": oth["latency_cycles"],
                   "ratio": ratio, "tolerance": tol, "verdict": verd,
                   "accepted_reference": _mean(ref_rows, "accepted_flit_rate"),
                   f"accepted_{simulator}": _mean(oth_rows, "accepted_flit_rate"),
                   "cpu_s_reference": sum(_cpu_seconds(r) for r in ref_rows) if ref_rows else math.nan,
                   f"cpu_s_{simulator}": sum(_cpu_seconds(r) for r in oth_rows) if oth_rows else math.nan,
                   "us_per_hop_reference": _hop_cost(ref_rows),
                   f"us_per_hop_{simulator}": _hop_cost(oth_rows, {k: _mean(ref_rows, k)
                                                                    for k in ("hops_avg", "num_hosts")})}
            if figure_of and n.key in figure_of:
                flabel, frouting = figure_of[n.key][:2]
                frows = fig.get((flabel, frouting, load, "reference"), [])
                fp = _point(frows)
                row["figure_routing"] = frouting
                row["figure_status"] = fp["status"] if frows else "not run"
                row["figure_latency"] = fp["latency_cycles"]
            out.append(row)
    return pd.DataFrame(out)


def _hop_cost(rows, fallback: dict | None = None) -> float:
    """CPU microseconds per packet-hop of ``rows`` (the point's CPU over its simulated
    cycles x hosts x accepted rate x mean hops; 1-flit packets; start-up included);
    ``fallback`` gives ``hops_avg`` and ``num_hosts`` for a row without them (BookSim's own
    topologies report no host count: the reference simulator's on the same network and
    routing)."""
    hops = cpu = 0.0

    def num(r, key):
        v = r.get(key)
        v = math.nan if v is None else float(v)
        return v if v == v else float((fallback or {}).get(key, math.nan))

    for r in rows:
        try:
            hops += float(r["sim_cycles"]) * num(r, "num_hosts") * float(r["accepted_flit_rate"]) \
                / float(r.get("packet_size") or 1) * num(r, "hops_avg")
            cpu += float(r["cpu_seconds"])
        except (KeyError, TypeError, ValueError):
            return math.nan
    return cpu / hops * 1e6 if hops > 0 and cpu == cpu else math.nan


def _mean(rows, key) -> float:
    vals = []
    for r in rows:
        try:
            v = float(r.get(key))
        except (TypeError, ValueError):
            continue
        if v == v:
            vals.append(v)
    return sum(vals) / len(vals) if vals else math.nan
