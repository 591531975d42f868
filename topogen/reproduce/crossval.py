"""Cross-validation of the simulators: one experiment spec run on every simulator found.

:func:`crossval` takes one :class:`CrossvalSpec` (a topology -- generator name and
parameters, or a topology file --, a routing, a traffic pattern, a packet size and a list
of offered loads) and runs it on

* topogen's reference simulator (:func:`topogen.sim.simulate`), always;
* BookSim2 (anynet export + :func:`topogen.drivers.booksim.run_booksim`) when its binary
  is found (``$TOPOGEN_BOOKSIM`` or ``booksim`` on PATH);
* SST/merlin (bundle + :func:`topogen.drivers.sst.run_sst`) when ``sst`` is found
  (``$TOPOGEN_SST`` or PATH).

Each simulator has a thin *adapter* (``_reference_adapter``, ``_booksim_adapter``,
``_sst_adapter``): one function that maps the spec onto that simulator's call and
returns a results row of the shared schema (:mod:`topogen.results`); :func:`common_units`
reads any row back into common units: latency in cycles of the shared clock
(``spec.clock_ns``) and in ns, offered and accepted load in flits/node/cycle (one flit
per cycle on a link is the unit of all three).

The outcome is one tidy table (one line per load and simulator, with the ratio of each
latency to BookSim's and to SST's at that load), a saturation table (the bracket of
each simulator's saturation load, bisected when ``spec.saturation`` is set) and a
verdict per point against stated tolerances: latency within ``latency_tolerance``
(default 3 %) at every load up to ``up_to`` (80 %) of the other simulator's saturation,
saturation within ``saturation_tolerance`` (5 %).

How the settings are matched (as ``tests/sim/test_booksim_agreement.py`` does):

* BookSim's anynet routing is always its own ``min``; the reference simulator and SST use
  topogen's routing named by ``spec.routing`` (``booksim-min``, BookSim's exact route
  choice, once topogen has it; until then ``nr`` with a note in the results);
* uniform traffic includes the source itself on BookSim and the reference simulator
  (BookSim's definition: ``self_packets=True``); SST's offered_load never sends to the
  source, and SST is compared with ``reference-sst``, the reference simulator with SST's
  traffic process (periodic injection in step, no self packets, latency to the head)
  and SST's router (``router="output-buffered"``: merlin hr_router's output buffers of
  the same ``output_buf_size``, hop ``h`` on VC ``h``; see ``docs/sst.md``); verdicts
  are given only for these like-for-like pairs;
  ``tornado`` is BookSim's
  ``tornado({N,1,1})``, the reference simulator's ``tornado`` and SST's ``shift:ceil(N/2)-1``;
* loads in flits/node/cycle (BookSim ``injection_rate_uses_flits = 1``; SST: fraction of
  the endpoint link bandwidth, which carries one flit per cycle);
* one-cycle pipeline stages (routing, VC allocation, switch allocation, switch
  traversal), one-cycle host channels, links of ``link_latency`` cycles (or the layout's
  cable delays over ``clock_ns``), ``num_vcs`` VCs of ``vc_buf_size`` flits, virtual
  cut-through for multi-flit packets (``hold_switch_for_packet = 1``);
* SST: ``link_bw`` = one flit (``flit_bits``) per cycle, the cycle being ``clock_ns``
  rounded to a whole even number of ps (:func:`~topogen.experiments.simulators.sst_clock_ns`:
  SST keeps time in ps), the four pipeline cycles
  as ``input_latency`` = half a cycle and ``output_latency`` = 2 cycles (merlin adds a
  crossbar clock edge and an output cycle: :func:`topogen.sim_defaults.sst_router_latencies`), input and output
  buffers of ``vc_buf_size`` flits (:func:`~topogen.experiments.simulators.output_buf_flits`, also
  reference-sst's); merlin's anytopo uses one VC per hop, so SST's VC count follows the longest
  route, not ``num_vcs``;
* saturation: BookSim and ``reference`` by BookSim's rule (``latency_thres`` ...);
  SST and ``reference-sst`` by the SST driver's rule, ``reference-sst`` running one fixed
  run on SST's timeline (:mod:`topogen.experiments.reference_sst`), so that each pair is
  judged by one rule;
* fields a spec leaves unset take the shared simulator defaults
  (:func:`topogen.experiments.simulators.shared_defaults`).

The command line (``topogen crossval``, :func:`topogen.reproduce.cli.add_parsers`) and the agreement matrix
(``topogen reproduce crossval``, :mod:`topogen.reproduce.crossval_matrix`) are built on
:func:`crossval`; ``docs/reproductions.md`` has measured numbers.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .._rng import resolve_seed
from ..errors import ParameterError
from .crossval_saturation import (SATURATION_RULES, _bisect, _saturation_value, onset_spread, point_status,
                                   saturation_bracket)
from ..experiments.simulators import DEFAULT_MAX_REPEATS, DEFAULT_REPEATS  # noqa: F401 (public)
from ..experiments.simulators import (SIMULATOR_ORDER, TRAFFICS, Adapter, CrossvalSpec, build_adapters,
                            build_network, build_routing, common_units, load_spec)
from .crossval_verdicts import NOISE_Z, noise_note, ratio_sem, verdicts  # noqa: F401 (public)

__all__ = ["CrossvalSpec", "CrossvalResult", "Adapter", "crossval", "load_spec", "build_adapters",
           "common_units", "verdicts", "saturation_bracket", "point_status", "onset_spread",
           "SATURATION_RULES", "NOISE_Z", "ratio_sem", "plot_crossval", "SIMULATOR_ORDER", "TRAFFICS"]


# --------------------------------------------------------------------------- run
@dataclass
class CrossvalResult:
    """What :func:`crossval` returns.

    ``table``: one line per (load, simulator) in common units with ratios and verdicts;
    ``saturation``: one line per simulator; ``rows``: the results rows of the shared
    schema; ``skipped``: simulators not run and why; ``notes``: how settings were matched.
    """

    spec: CrossvalSpec
    seed: int
    table: Any
    saturation: Any
    rows: list
    skipped: dict
    notes: list
    files: dict

    def summary(self) -> list[str]:
        """One line per compared pair: points passed, saturation verdict."""
        lines = []
        for base in ("booksim", "sst"):
            col = f"verdict_{base}"
            for sim in SIMULATOR_ORDER:
                if sim == base:
                    continue
                t = self.table[(self.table["simulator"] == sim) & (self.table[col] != "-")]
                if not len(t):
                    continue
                judged = t[t[col].astype(str).str.startswith(("pass", "FAIL", "inconclusive"))]
                unsure = int((judged[col] == "inconclusive").sum())
                s = self.saturation[self.saturation["simulator"] == sim][col]
                cap = self.saturation[self.saturation["simulator"] == sim].get(f"capacity_{col}")
                cap_text = (f"; capacity {cap.iloc[0]}" if cap is not None and len(cap) and cap.iloc[0] != "-"
                            else "")
                lines.append(f"{sim} vs {base}: latency {int((judged[col] == 'pass').sum())}/{len(judged)} "
                             f"points within {self.spec.latency_tolerance:.0%} (up to "
                             f"{self.spec.up_to:.0%} of {base}'s saturation"
                             + (f"; {unsure} inconclusive: the miss is within "
                                f"{NOISE_Z:g} standard errors, run more --repeats" if unsure else "")
                             + "); saturation "
                             f"{s.iloc[0] if len(s) else '-'}{cap_text}")
        return lines

    @property
    def passed(self) -> bool:
        """No ``FAIL`` in any verdict column (``inconclusive`` is not a failure)."""
        cols = [c for c in self.table.columns if c.startswith("verdict_")]
        scols = [c for c in self.saturation.columns if "verdict_" in c]
        def failed(col):
            return col.astype(str).str.startswith("FAIL").any()

        return not any(failed(self.table[c]) for c in cols) and \
            not any(failed(self.saturation[c]) for c in scols)


def check_out_dir(out_dir, force: bool, *, inputs=(), create: bool = True) -> Path:
    """The output folder, checked before any work by the output policy
    (:func:`topogen.output.check_dir_output`): new or empty, or with ``force`` an existing
    folder that this run *adds to* -- crossval never deletes or replaces a file there
    (raw logs and tables get fresh names, rows are appended to ``results.csv`` under its
    lock).  Created when ``create``."""
    from ..errors import OutputError
    from ..output import check_dir_output

    out = Path(os.path.abspath(out_dir))
    if force and out.is_dir():
        if not os.access(out, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write {out_dir}: the folder is not writable")
    else:
        out = check_dir_output(out_dir, inputs=inputs)
    if create:
        out.mkdir(parents=True, exist_ok=True)
    return out


def crossval(spec, out_dir, *, force: bool = False, plot=None, binaries=None,
             progress: Callable[[str, float, dict], None] | None = None,
             saturation_rule: str = "majority",
             announce: Callable[[tuple[int, int, str]], None] | None = None) -> CrossvalResult:
    """Run one experiment spec on every simulator found and compare them.

    Parameters
    ----------
    spec : CrossvalSpec, mapping or path
        The experiment (a mapping of :class:`CrossvalSpec` fields, or a TOML file).
    out_dir : path-like
        Raw outputs (BookSim exports and logs under ``booksim/``, SST bundle and logs under
        ``sst/``), ``results.csv`` (rows of the shared schema, added after every point),
        ``crossval.csv`` (the tidy table) and ``saturation.csv``.  Refused if not empty
        unless ``force``.
    force : bool
        Add to a non-empty ``out_dir``: nothing in it is replaced (new files get fresh
        names; rows are appended to its ``results.csv``).
    plot : path-like, optional
        Latency-vs-load chart (.png/.svg/.pdf), one curve per simulator; replaced if it
        exists, like every named output file.
    binaries : mapping, optional
        ``{"booksim": path, "sst": path}`` overriding ``$TOPOGEN_BOOKSIM``/``$TOPOGEN_SST``/PATH.
    progress : callable(simulator, load, row), optional
        Called after every point.
    announce : callable((fewest, most, text)), optional
        Called once, before the first simulation, with what will run
        (:func:`plan_runs`).
    saturation_rule : {"majority", "any"}
        With ``spec.repeats`` > 1, when a load counts as not sustained
        (:func:`point_status`): ``majority`` (default) when at least half of its runs
        failed, ``any`` when one did.  The bracket is bisected on that status; the
        saturation table also gives ``first_fail``/``last_pass``, the spread of the
        runs' own onsets (:func:`onset_spread`).

    Returns
    -------
    CrossvalResult

    Raises
    ------
    ParameterError
        Invalid spec or output location.
    SimulatorNotFound
        A simulator named in ``spec.simulators`` is not installed.
    """
    from ..results import append_rows, atomic_write_text

    if saturation_rule not in SATURATION_RULES:
        raise ParameterError(f"saturation_rule must be one of {', '.join(SATURATION_RULES)}, "
                             f"got {saturation_rule!r}")

    if isinstance(spec, (str, os.PathLike)):
        spec = load_spec(spec)
    elif isinstance(spec, Mapping):
        spec = CrossvalSpec(**spec)
    if not isinstance(spec, CrossvalSpec):
        raise ParameterError("spec must be a CrossvalSpec, a mapping of its fields or a TOML file")
    from ..output import check_file_output

    inputs = [spec.topology] if os.path.isfile(spec.topology) else []
    if plot is not None:
        plot = Path(plot)
        if plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise ParameterError(f"plot output must end in .png, .svg or .pdf, got {plot}")
        inside = Path(os.path.abspath(plot)).parent == Path(os.path.abspath(out_dir))
        check_file_output(plot, inputs=inputs, make_parents=inside)
    seed = resolve_seed(spec.seed)
    spec = replace(spec, seed=seed)
    check_out_dir(out_dir, force, inputs=inputs, create=False)
    topology, layout = build_network(spec, seed)
    routing, routing_note = build_routing(spec, topology, layout, seed)
    deadlock_free, deadlock_note = _deadlock_check(spec, routing)
    out = check_out_dir(out_dir, force, inputs=inputs)
    results_path = out / "results.csv"
    adapters, skipped = build_adapters(spec, seed, topology, layout, routing, out, binaries=binaries)
    if announce is not None:
        announce(plan_runs(spec, adapters))

    rows: list[dict] = []
    extra = {"crossval_routing": spec.routing, "crossval_traffic": spec.traffic}
    #: (simulator, load) -> [kind, runs]: every run of every point, in run order
    runs_at: dict[tuple[str, float], list] = {}
    skipped_at: dict[tuple[str, float], float] = {}
    capacity: dict[str, float] = {}

    def keep(ad, row, load):
        """Record one run's row: in memory, in results.csv at once (an interruption keeps
        it), and to the progress callback."""
        rows.append(row)
        append_rows(results_path, [row])
        if progress is not None:
            progress(ad.simulator, load, row)
        return row

    def add_runs(ad, load, count, kind):
        entry = runs_at.setdefault((ad.simulator, load), [kind, []])
        done = len(entry[1])
        entry[1].extend(keep(ad, _tagged(ad.run(load, seed + done + i), extra), load) for i in range(count))
        return point_status([r["status"] for r in entry[1]], saturation_rule)

    for ad in adapters:
        points: dict[float, str] = {}

        def run_point(load, ad=ad, points=points, kind="bisection"):
            points[load] = add_runs(ad, load, spec.repeats if ad.seeded else 1, kind)

        for load in spec.loads:
            lo, hi = saturation_bracket(points)
            if load > hi:  # above this simulator's saturation: not run
                skipped_at[(ad.simulator, load)] = hi
                continue
            run_point(load, kind="spec")
        if spec.saturation:
            _bisect(run_point, points, spec.saturation_tolerance / 2)
        if spec.capacity_load is not None:
            row = keep(ad, _tagged(ad.run(spec.capacity_load, seed, capacity=True),
                                   dict(extra, crossval_capacity=True)), spec.capacity_load)
            capacity[ad.simulator] = common_units(row, ad.clock_ns or spec.clock_ns)["accepted_flits"]

    def tables():
        return _tables(adapters, runs_at, skipped_at, capacity, spec, saturation_rule, deadlock_free)

    table, saturation = tables()
    # a compared point whose miss lies within the noise gets more runs on both simulators
    by_name = {a.simulator: a for a in adapters}
    while True:
        more = _unresolved(table, by_name, runs_at, spec.max_repeats)
        if not more:
            break
        for sim, load in more:
            ad = by_name[sim]
            have = len(runs_at[(sim, load)][1])
            add_runs(ad, load, min(max(2, spec.repeats // 2), spec.max_repeats - have), "added")
        table, saturation = tables()

    notes = [f"seed {seed}; loads in flits/node/cycle; latency in cycles of the shared "
             f"{spec.clock_ns:g} ns clock and in ns; tolerances: latency {spec.latency_tolerance:.0%} "
             f"up to {spec.up_to:.0%} of the other simulator's saturation, saturation "
             f"{spec.saturation_tolerance:.0%}"]
    if routing_note:
        notes.append(routing_note)
    if deadlock_note:
        notes.append(deadlock_note)
    if any(a.simulator == "booksim" for a in adapters):
        notes.append("BookSim routes with anynet's min (its own tables); the reference simulator"
                     + (" and SST use" if any(a.simulator == "sst" for a in adapters) else " uses")
                     + f" topogen's {routing.algorithm} tables")
    notes.extend(a.note for a in adapters if a.note)
    notes.extend(n for n in [noise_note(spec, table)] if n)
    for r in saturation.to_dict("records"):
        if r.get("onsets") == "non-monotone":
            notes.append(f"{r['simulator']}: non-monotone onsets: a run failed at {r['first_fail']:g}, "
                         f"below {r['last_pass']:g} where a run completed (seeds saturate at different "
                         f"loads); its saturation {r['saturation']:.3g} is the highest load the "
                         f"{saturation_rule} of its runs sustained")
    notes.extend(f"{sim} skipped: {why}" for sim, why in skipped.items())

    # outputs: results rows (written after every point), tidy tables, plot
    files = {"results": results_path}
    for name, frame in (("crossval", table), ("saturation", saturation)):
        from ..drivers.base import fresh_path

        path = fresh_path(out / f"{name}.csv", claim=True)
        from .._safe_text import one_line

        header = f"# topogen crossval: {one_line(spec.topology)} {one_line(spec.routing)} " \
                 f"{one_line(spec.traffic)} packet_size={spec.packet_size} seed={seed}\n"
        atomic_write_text(path, header + frame.to_csv(index=False, lineterminator="\n"))
        files[name] = path
    if plot is not None:
        files["plot"] = plot_crossval(table, spec, plot)
    return CrossvalResult(spec, seed, table, saturation, rows, skipped, notes, files)


def _line(ad, load, kind, runs, spec, rule) -> dict:
    """One table line: the mean of a point's runs in common units (the completed runs when
    the point is sustained), the standard error of its latency, the run counts."""
    import numpy as np

    status = point_status([r["status"] for r in runs], rule)
    kept = [r for r in runs if r["status"] == "completed"] if status == "completed" else runs
    conv = [common_units(r, ad.clock_ns or spec.clock_ns) for r in kept]
    merged = {k: float(np.nanmean([c[k] for c in conv])) if any(c[k] == c[k] for c in conv)
              else math.nan for k in conv[0]}
    lat = [c["latency_cycles"] for c in conv if c["latency_cycles"] == c["latency_cycles"]]
    sem = float(np.std(lat, ddof=1) / math.sqrt(len(lat))) if len(lat) > 1 else math.nan
    if status != "completed":
        merged["latency_cycles"] = merged["latency_ns"] = math.nan
    msg = next((r.get("message") for r in runs if r["status"] == status and r.get("message")), None)
    return {"load": load, "simulator": ad.simulator, "point": kind, "status": status,
            **merged, "latency_sem": sem, "runs": len(runs),
            "failed_runs": sum(r["status"] != "completed" for r in runs),
            "routing": runs[0].get("routing"), "router": ad.router, "message": msg,
            "raw_output": runs[0].get("raw_output")}


def _tables(adapters, runs_at, skipped_at, capacity, spec, rule, deadlock_free):
    """(table, saturation) with verdicts from every run so far."""
    import pandas as pd

    lines, sat_lines = [], []
    for ad in adapters:
        sim = ad.simulator
        mine = [ln for (s, load), (kind, runs) in runs_at.items() if s == sim
                for ln in [_line(ad, load, kind, runs, spec, rule)]]
        lo, hi = saturation_bracket({ln["load"]: ln["status"] for ln in mine})
        for (s, load), above in skipped_at.items():
            if s == sim:
                lines.append({"load": load, "simulator": sim, "point": "spec", "status": "skipped",
                              "latency_cycles": math.nan, "latency_ns": math.nan,
                              "accepted_flits": math.nan, "latency_sem": math.nan, "runs": 0,
                              "failed_runs": 0, "routing": ad.routing, "router": ad.router,
                              "message": f"above the saturated load {above:g}", "raw_output": None})
        lines.extend(mine)
        first_fail, last_pass = onset_spread(mine)
        sat_lines.append({"simulator": sim, "sat_low": lo, "sat_high": hi,
                          "saturation": _saturation_value(lo, hi), "first_fail": first_fail,
                          "last_pass": last_pass,
                          "onsets": "non-monotone" if first_fail < last_pass else "monotone",
                          "capacity": capacity.get(sim, math.nan), "routing": ad.routing,
                          "points": len(mine)})
    table = pd.DataFrame(lines)
    order = {s: i for i, s in enumerate(SIMULATOR_ORDER)}
    table = table.sort_values(["load", "simulator"], key=lambda c: c.map(order) if c.name == "simulator" else c,
                              kind="stable").reset_index(drop=True)
    return verdicts(table, pd.DataFrame(sat_lines), spec, deadlock_free=deadlock_free)


def _unresolved(table, adapters, runs_at, max_repeats) -> list[tuple[str, float]]:
    """The (simulator, load) points that more runs may resolve: both sides of a compared
    point that is ``inconclusive``, or a latency ``FAIL`` where a side ran once (no standard
    error yet), for each seeded simulator with fewer than ``max_repeats`` runs there."""
    out = []
    for col in [c for c in table.columns if c.startswith("verdict_")]:
        base = col[len("verdict_"):]
        for r in table.to_dict("records"):
            v = r[col]
            if v not in ("inconclusive", "FAIL") or r["ratio_" + base] != r["ratio_" + base]:
                continue
            sides = [(sim, r["load"]) for sim in (r["simulator"], base)
                     if sim in adapters and adapters[sim].seeded and (sim, r["load"]) in runs_at]
            counts = [len(runs_at[p][1]) for p in sides]
            if v == "FAIL" and not any(c < 2 for c in counts):
                continue
            out.extend(p for p, c in zip(sides, counts) if c < max_repeats and p not in out)
    return out


#: largest network whose routing crossval checks for deadlock freedom (every pair's route)
DEADLOCK_CHECK_SWITCHES = 2048


def _deadlock_check(spec: CrossvalSpec, routing) -> tuple[bool | None, str | None]:
    """(deadlock_free, note): whether the routing's channel dependency graph is acyclic
    (:func:`topogen.routing.deadlock.check`; ``None`` when not checked: a network over
    :data:`DEADLOCK_CHECK_SWITCHES` switches or a routing the check does not cover)."""
    from ..errors import TopogenError
    from ..routing.deadlock import check

    if routing.topology.num_switches > DEADLOCK_CHECK_SWITCHES:
        return None, None
    try:
        rep = check(routing)
    except (TopogenError, NotImplementedError, AttributeError, TypeError):
        return None, None
    if rep.acyclic:
        return True, None
    u, v, _ = rep.cycle[0] if rep.cycle else (-1, -1, 0)
    bs = (" BookSim's min_anynet takes any VC on any hop, so its own runs can deadlock there too "
          "(measured on the 8x8 torus, 33-flit uniform: accepted rate collapsing with 'Possible "
          "network deadlock' at 0.26 and 0.30 flits/node/cycle), hidden behind its latency_thres "
          "abort ('saturated')." if spec.routing == "booksim-min" else "")
    return False, (f"routing {spec.routing} is not deadlock-free here: its channel dependency graph is "
                   f"cyclic ({len(rep.cycle or ())} channels, e.g. through {u}->{v}), so every "
                   f"simulator may deadlock near saturation and the saturation found is partly when "
                   f"a deadlock first struck;{bs} Failures involving a deadlock read "
                   f"'FAIL (cyclic routing: deadlock)'.")


def _tagged(row: dict, extra: Mapping) -> dict:
    """``row`` with the crossval spec's routing and traffic added to its ``params`` JSON."""
    import json

    params = row.get("params")
    try:
        p = json.loads(params) if isinstance(params, str) else {}
    except json.JSONDecodeError:
        p = {"text": params}
    if isinstance(p, dict):
        p.update(extra)
        row = dict(row, params=p)
    return row


def plot_crossval(table, spec: CrossvalSpec, output) -> Path:
    """Latency (cycles) against offered load (flits/node/cycle), one curve per simulator,
    through :func:`topogen.sim.plot.plot_latency`."""
    import pandas as pd

    from ..results import make_row, to_frame
    from ..sim.plot import plot_latency

    recs = []
    for r in table.to_dict("records"):
        if r["status"] == "skipped":
            continue
        recs.append(make_row(simulator=r["simulator"], topology=spec.topology, routing=r["routing"],
                             traffic=spec.traffic, offered_load=r["load"], load_unit="flits/node/cycle",
                             status=r["status"], latency_avg=r["latency_cycles"], latency_unit="cycles"))
    frame = to_frame(recs) if recs else pd.DataFrame()
    title = (f"crossval: {spec.topology} {_short_params(spec.params)} {spec.traffic}, "
             f"{spec.packet_size}-flit packets")
    return plot_latency([frame], output, title=title)


def _short_params(params: Mapping) -> str:
    text = ",".join(f"{k}={'x'.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
                    for k, v in sorted(params.items()))
    return f"({text})" if text else ""




def _spec_from_args(args) -> CrossvalSpec:
    over: dict[str, Any] = {}
    if args.topology:
        over["topology"] = args.topology
    if args.param:
        params = {}
        for item in args.param:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ParameterError(f"--param needs KEY=VALUE, got {item!r}")
            params[key.strip().replace("-", "_")] = value.strip()
        over["params"] = params
    if args.loads is not None:
        try:
            over["loads"] = tuple(float(x) for x in args.loads.split(",") if x.strip())
        except ValueError:
            raise ParameterError(f"--loads needs comma-separated numbers, got {args.loads!r}") from None
    if args.simulators is not None:
        over["simulators"] = tuple(s.strip() for s in args.simulators.split(",") if s.strip())
    if args.link_latency is not None:
        if args.link_latency == "layout":
            over["link_latency"] = None
        else:
            try:
                over["link_latency"] = int(args.link_latency)
            except ValueError:
                raise ParameterError(f"--link-latency needs a number of cycles or 'layout', "
                                     f"got {args.link_latency!r}") from None
    for opt, name in (("seed", "seed"), ("routing", "routing"), ("traffic", "traffic"),
                      ("packet_size", "packet_size"), ("num_vcs", "num_vcs"), ("buffer", "vc_buf_size"),
                      ("clock_ns", "clock_ns"), ("saturation", "saturation"),
                      ("latency_thres", "latency_thres"), ("credit_delay", "credit_delay"),
                      ("warmup_periods", "warmup_periods"), ("sample_period", "sample_period"),
                      ("max_samples", "max_samples"),
                      ("latency_tolerance", "latency_tolerance"),
                      ("saturation_tolerance", "saturation_tolerance"), ("up_to", "up_to"),
                      ("timeout", "timeout"), ("repeats", "repeats"), ("capacity_load", "capacity_load"),
                      ("max_repeats", "max_repeats")):
        if getattr(args, opt) is not None:
            over[name] = getattr(args, opt)
    if args.spec:
        return load_spec(args.spec, **over)
    if "topology" not in over:
        raise ParameterError("crossval needs a TOPOLOGY (generator name or file) or --spec FILE")
    return CrossvalSpec(**over)


def format_table(table) -> str:
    """The tidy table as aligned text (latencies to 0.01 cycle, ratios to 0.001)."""
    show = table.drop(columns=[c for c in ("message", "raw_output") if c in table.columns])
    fmt = {"load": "{:g}", "latency_cycles": "{:.2f}", "latency_ns": "{:.2f}", "accepted_flits": "{:.4f}",
           "ratio_booksim": "{:.3f}", "ratio_sst": "{:.3f}", "latency_sem": "{:.2f}", "sat_low": "{:g}", "sat_high": "{:g}",
           "first_fail": "{:g}", "last_pass": "{:g}",
           "saturation": "{:.4g}", "capacity": "{:.4f}", "capacity_ratio_booksim": "{:.3f}",
           "capacity_ratio_sst": "{:.3f}"}
    show = show.copy()
    for col, f in fmt.items():
        if col in show.columns:
            show[col] = [("-" if v != v else f.format(v)) for v in show[col]]
    return show.to_string(index=False)


#: widest line of the terminal tables (:func:`compact_tables`)
COMPACT_WIDTH = 100


def _judged(r, bases) -> str:
    """``vs BASE RATIO VERDICT`` of a line judged against one of ``bases`` ('' if none)."""
    for base in bases:
        v = r.get(f"verdict_{base}", "-")
        if isinstance(v, str) and v not in ("-", ""):
            ratio = r.get(f"ratio_{base}", math.nan)
            return f"vs {base} " + ("" if ratio != ratio else f"{ratio:.3f} ") + v
    return ""


def _aligned(header: list[str], rows: list[list[str]], right=()) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    def fmt(cells):
        return "  ".join((str(c).rjust(w) if i in right else str(c).ljust(w))
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join(fmt(r) for r in [header, *rows])


def plan_runs(spec, adapters) -> tuple[int, int, str]:
    """(fewest, most, text) of the simulator runs of one crossval, counted from the spec
    alone: every load on every simulator (``repeats`` runs where it takes seeds; loads above
    a simulator's saturation are skipped, so fewer may run), then at most the saturation
    search's probes (:func:`~topogen.reproduce.crossval_saturation._bisect`: doubling up
    to load 1, then 12 steps), the capacity run and the runs added, up to ``max_repeats``
    per compared point, where a miss lies within the noise."""
    import math

    least = most = 0
    parts = []
    for ad in adapters:
        runs = spec.repeats if ad.seeded else 1
        base = len(spec.loads) * runs
        probes = 0
        if spec.saturation:
            probes = max(0, math.ceil(math.log2(1.0 / min(spec.loads)))) + 12 if spec.loads else 0
        extra = probes * runs + (1 if spec.capacity_load is not None else 0)
        if ad.seeded and spec.max_repeats > runs:  # any compared point, a probed load too
            extra += (len(spec.loads) + probes) * (spec.max_repeats - runs)
        least += min(base, runs) + (1 if spec.capacity_load is not None else 0)
        most += base + extra
        parts.append(f"{ad.simulator} {len(spec.loads)} loads x {runs} run{'s' if runs > 1 else ''}")
    text = (f"{len(spec.loads)} loads on {len(adapters)} simulator{'s' if len(adapters) != 1 else ''} "
            f"({'; '.join(parts)}): {least} to {most} simulations"
            + (" (the saturation search and added repeats decide how many)" if most > least else ""))
    return least, most, text


def compact_tables(table, saturation) -> tuple[str, str]:
    """(points, saturation): the terminal tables of ``topogen crossval``, at most
    :data:`COMPACT_WIDTH` characters wide, with only the simulators that ran and the
    columns a reader compares (every column stays in ``crossval.csv`` and
    ``saturation.csv``).

    Points: load, simulator, status, completed/total runs, mean latency (cycles) ± its
    standard error, accepted load (flits/node/cycle) and the verdict against the simulator
    it is judged with (``vs booksim 0.988 pass``).  Saturation: the saturation load (the
    highest sustained load, the number the plot's legend gives as ``sat.``, to 3
    significant digits like it), the bracket, the onsets (``non-monotone`` when a run
    failed at a load below one where a run completed), the capacity when measured and the
    verdict.
    """
    bases = [b for b in ("booksim", "sst") if b in set(saturation["simulator"])]
    rows = []
    for r in table.to_dict("records"):
        lat = "-" if r["latency_cycles"] != r["latency_cycles"] else f"{r['latency_cycles']:.2f}"
        sem = r.get("latency_sem", math.nan)
        if lat != "-" and sem == sem:
            lat += f" ±{sem:.2f}"
        runs = int(r.get("runs", 0) or 0)
        failed = r.get("failed_runs", 0)
        failed = 0 if failed != failed or failed is None else int(failed)
        acc = r.get("accepted_flits", math.nan)
        rows.append([f"{r['load']:g}", r["simulator"], r["status"],
                     f"{runs - failed}/{runs}" if runs else "-", lat,
                     "-" if acc != acc else f"{acc:.4f}", _judged(r, bases) or "-"])
    points = _aligned(["load", "simulator", "status", "runs ok", "latency ±sem", "accepted", "verdict"],
                      rows, right=(0, 3, 4, 5))
    has_cap = "capacity" in saturation.columns and saturation["capacity"].notna().any()
    srows = []
    for r in saturation.to_dict("records"):
        sat = r["saturation"]
        lo, hi = r["sat_low"], r["sat_high"]
        onsets = r.get("onsets", "monotone")
        if onsets == "non-monotone":
            onsets = f"non-monotone: fail {r['first_fail']:g} < pass {r['last_pass']:g}"
        row = [r["simulator"], "-" if sat != sat else f"{sat:.3g}",
               f"{'-' if lo != lo else f'{lo:g}'}..{'-' if math.isinf(hi) else f'{hi:g}'}", onsets]
        if has_cap:
            cap = r.get("capacity", math.nan)
            row.append("-" if cap != cap else f"{cap:.4f}")
        verdict = _judged(r, bases)
        cv_ = next((r.get(f"capacity_verdict_{b}") for b in bases
                    if r.get(f"capacity_verdict_{b}") not in (None, "-")), None)
        row.append((verdict or "-") + (f"; capacity {cv_}" if cv_ else ""))
        srows.append(row)
    head = ["simulator", "saturation*", "bracket", "onsets"] + (["capacity"] if has_cap else []) + ["verdict"]
    sat_text = _aligned(head, srows, right=(1,)) + (
        "\n* saturation: the highest sustained load (the lower end of the bracket), the plot "
        "legend's 'sat.'")
    return points, sat_text


def crossval_command(args) -> int:
    """Handler of ``topogen crossval``; returns the exit code."""
    from .._estimate import FirstPoint
    from .._progress import Progress

    spec = _spec_from_args(args)
    binaries = {"booksim": args.booksim, "sst": args.sst}
    first = []  # the estimate at the rate of the runs, once two have run

    def announce(plan):  # before the first run: what will run
        _, most, text = plan
        print(f"plan: {text}; the time is estimated once two have run", flush=True)
        first.append(FirstPoint(most))

    with Progress(desc="crossval", log_steps=True) as bar:
        def progress(sim, load, row):
            bar.update(status=f"{sim} load {load:g}: {row['status']}")
            if first:
                line = first[0].after()
                first[0].began()
                if line:
                    bar.log(line)

        res = crossval(spec, args.out_dir, force=args.force, plot=args.plot, binaries=binaries,
                       progress=progress, saturation_rule=args.saturation_rule, announce=announce)
    s = res.spec
    print(f"crossval: {s.topology} {_short_params(s.params)} routing {s.routing}, traffic {s.traffic}, "
          f"{s.packet_size}-flit packets, seed {res.seed}")
    points, sat_text = compact_tables(res.table, res.saturation)
    print(points)
    print()
    print(sat_text)
    odd = res.table[~res.table["status"].isin(("completed", "skipped"))]
    for r in odd.to_dict("records"):
        print(f"{r['simulator']} at load {r['load']:g}: {r['status']}"
              + (f" ({r['message']})" if r.get("message") else "")
              + (f"; raw output {r['raw_output']}" if isinstance(r.get("raw_output"), str) else ""))
    print("\nnotes:")
    for note in res.notes:
        print(f"  - {note}")
    for line in res.summary():
        print(line)
    for name, path in res.files.items():
        print(f"{name}: {path}")
    return 1 if args.strict and not res.passed else 0
