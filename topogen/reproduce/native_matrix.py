"""``topogen reproduce native``: every network BookSim2 builds itself that topogen has, with
every BookSim routing topogen has an equivalent of, run natively beside topogen's generator
on the reference simulator and topogen's anynet export (:func:`topogen.reproduce.
crossval_native.crossval_native` per row), written as a CSV and a markdown table.

Per row: the structure check (isomorphic router graph and host attachment), the zero-load
latency, the latencies at 50 % and 80 % of the native saturation load, the saturation
loads (bisected to 2 %), each column's ratio to native and verdict (zero load within 2 %,
other loads within 5 % or 2 standard errors of the repeats, saturation within 5 %), the
row's verdict and the cause of any difference (:data:`CAUSES`, read from the sources and
measured: docs/crossval.md).  ``--quick`` runs the smallest sizes at two fixed loads
without the saturation search (a test's size).

BookSim routings without a topogen equivalent run are listed as rows that were not
compared, with the reason (:data:`NOT_COMPARED`); for those BookSim has, the native run is
tried once and its status recorded.

With ``simulators`` including ``sst`` the matrix also holds SST merlin's own networks
(``merlin.torus``, ``merlin.mesh``, ``merlin.hyperx``, ``merlin.dragonfly``,
``merlin.fattree``) with each of their routings topogen compares
(:func:`topogen.reproduce.crossval_native_sst.crossval_native_sst` per row: native,
reference as SST runs, export on ``merlin.anytopo``), judged by the same verdict rule; the
``simulator`` column says whose network a row is.  A simulator whose binary is missing is
listed as not run, with the reason.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult

__all__ = ["MATRIX", "QUICK_MATRIX", "SST_MATRIX", "SST_QUICK_MATRIX", "SIMULATORS", "CAUSES", "NOT_COMPARED",
           "reproduce_native", "matrix_rows", "selected_rows", "markdown_table"]

#: (family, BookSim routing, sizes) of the full matrix
MATRIX = (
    ("mesh", "dim_order", {"k": 4, "n": 2}),
    ("mesh", "romm", {"k": 4, "n": 2}),
    ("mesh", "valiant", {"k": 4, "n": 2}),
    ("torus", "dim_order", {"k": 4, "n": 2}),
    ("torus", "romm", {"k": 4, "n": 2}),
    ("torus", "valiant", {"k": 4, "n": 2}),
    ("dragonfly", "min", {"k": 2, "n": 1}),
    ("dragonfly", "ugal", {"k": 2, "n": 1}),
    ("fattree", "nca", {"k": 4, "n": 3}),
    ("fattree", "anca", {"k": 4, "n": 3}),
    ("flatfly", "ran_min", {"k": 4, "n": 2, "c": 4}),
    ("flatfly", "valiant", {"k": 4, "n": 2, "c": 4}),
    ("flatfly", "xyyx", {"k": 4, "n": 2, "c": 4}),
    ("flatfly", "adaptive_xyyx", {"k": 4, "n": 2, "c": 4}),
    ("flatfly", "ugal", {"k": 4, "n": 2, "c": 4}),
    ("flatfly", "ugal_xyyx", {"k": 4, "n": 2, "c": 4}),
    ("torus", "dim_order_bal", {"k": 4, "n": 2}),
    ("torus", "min_adapt", {"k": 4, "n": 2}),
)
#: the same rows at the smallest sizes (``--quick``)
QUICK_MATRIX = (
    ("mesh", "dim_order", {"k": 3, "n": 2}),
    ("mesh", "romm", {"k": 3, "n": 2}),
    ("mesh", "valiant", {"k": 3, "n": 2}),
    ("torus", "dim_order", {"k": 3, "n": 2}),
    ("torus", "romm", {"k": 3, "n": 2}),
    ("torus", "valiant", {"k": 3, "n": 2}),
    ("dragonfly", "min", {"k": 1, "n": 1}),
    ("dragonfly", "ugal", {"k": 1, "n": 1}),
    ("fattree", "nca", {"k": 2, "n": 2}),
    ("fattree", "anca", {"k": 2, "n": 2}),
    ("flatfly", "ran_min", {"k": 3, "n": 2, "c": 1}),
    ("flatfly", "valiant", {"k": 3, "n": 2, "c": 1}),
    ("flatfly", "xyyx", {"k": 3, "n": 2, "c": 1}),
    ("flatfly", "adaptive_xyyx", {"k": 3, "n": 2, "c": 1}),
    ("flatfly", "ugal", {"k": 3, "n": 2, "c": 1}),
    ("flatfly", "ugal_xyyx", {"k": 3, "n": 2, "c": 1}),
    ("torus", "dim_order_bal", {"k": 3, "n": 2}),
    ("torus", "min_adapt", {"k": 3, "n": 2}),
)

def _sst_matrix(quick: bool) -> tuple:
    from .crossval_native_sst import SST_DEFAULT_SIZES, SST_ROUTINGS

    sizes = _SST_QUICK_SIZES if quick else SST_DEFAULT_SIZES
    return tuple((family, routing, {"k": sizes[family][0], "n": sizes[family][1]})
                 for family, routings in SST_ROUTINGS.items() for routing in routings)


#: (k, n) of SST merlin's networks with ``--quick``: the smallest on which every routing of the
#: family runs (merlin.torus needs sides of 3; on the 2x2 hyperx merlin's valiant saturates
#: at 0.01; the dragonfly with one host per router has 3 groups of 2)
_SST_QUICK_SIZES = {"torus": (3, 2), "mesh": (2, 2), "hyperx": (3, 2), "dragonfly": (1, 1), "fattree": (2, 2)}
#: (family, merlin routing, sizes) of SST merlin's own networks, full sizes
#: (crossval_native_sst's SST_DEFAULT_SIZES) and ``--quick``
SST_MATRIX = _sst_matrix(False)
SST_QUICK_MATRIX = _sst_matrix(True)
#: the simulators whose own networks the matrix holds
SIMULATORS = ("booksim", "sst")

#: loads of ``--quick`` (no saturation search)
QUICK_LOADS = (0.01, 0.2)

#: rows BookSim names but topogen cannot compare, and why (the native run, when BookSim has
#: the function, is still tried once: ``native_status`` in the table)
NOT_COMPARED = {
    ("torus", "romm"): "BookSim's routefunc.cpp has romm for the mesh only (romm_mesh): no native run",
    ("torus", "valiant"): "BookSim's valiant_torus leaves the ring partition unset on a hop that continues "
                          "in the same dimension (a local variable read before it is written) and stops on "
                          "its own assertion ring_part == 1 at the first such hop, on every torus with k >= 4 "
                          "(a 3-ring has no such hop); topogen has no torus version of its VC rule",
}
#: BookSim routing function names of the rows not compared (for the one native try)
_NATIVE_TRY = {("torus", "valiant"): "valiant"}

#: the cause of a column's known difference from native, per (family, routing, column)
CAUSES: dict = {}
#: what anynet's min is beside a routing where the family's text does not say it
_EXPORT_WHAT = {
    ("torus", "min_adapt"): "one fixed shortest path per pair on every VC, not min_adapt_torus's choice among the "
                            "productive ports on VC 3 with a dimension-order dateline escape on VCs 0 and 1",
    ("mesh", "romm"): "one fixed shortest path per pair, not ROMM's random intermediate in the minimal quadrant",
    ("mesh", "valiant"): "one fixed shortest path per pair, where Valiant goes through a random router (twice "
                         "the hops)",
    ("dragonfly", "ugal"): "one fixed shortest path per pair on every VC, not ugal's choice between the minimal "
                           "path and one through a random intermediate",
    ("flatfly", "valiant"): "one fixed shortest path per pair, where Valiant goes through a random router",
    ("flatfly", "xyyx"): "one fixed shortest path per pair on every VC, not X first or Y first drawn per packet "
                         "with a VC half each",
    ("flatfly", "adaptive_xyyx"): "one fixed shortest path per pair on every VC, not X first or Y first chosen "
                                  "from the used credits of the two first-hop ports, with a VC half each",
    ("flatfly", "ugal"): "one fixed shortest path per pair on every VC, not ugal's choice between the minimal "
                         "path and one through a random intermediate router (VC halves by phase)",
    ("flatfly", "ugal_xyyx"): "one fixed shortest path per pair on every VC, not ugal_xyyx's choice between the "
                              "minimal path and one through a random intermediate router, X or Y first drawn",
}
_EXPORT_CAUSE = ("anynet's min, the only routing of an anynet export, is not the native routing ({what}): a "
                 "routing difference, not a router one")


def matrix_rows(rows: str = "all", quick: bool = False) -> list[tuple[str, str, dict]]:
    """The matrix rows selected by ``rows`` (``all`` or ``family:routing,...``)."""
    table = QUICK_MATRIX if quick else MATRIX
    if rows.strip() in ("", "all"):
        return list(table)
    known = {f"{f}:{r}": (f, r, s) for f, r, s in table}
    out = []
    for item in rows.split(","):
        item = item.strip()
        if item not in known:
            raise ParameterError(f"rows must be 'all' or family:routing items among {', '.join(known)}, got "
                                 f"{item!r}")
        out.append(known[item])
    return out


def selected_rows(rows: str = "all", quick: bool = False,
                  simulators=SIMULATORS) -> list[tuple[str, str, str, dict]]:
    """``(simulator, family, routing, sizes)`` of the rows selected by ``rows`` among the
    ``simulators``' tables: ``all`` or ``[simulator:]family:routing,...`` (an item without a
    simulator is taken from every selected simulator that has it)."""
    tables = {"booksim": QUICK_MATRIX if quick else MATRIX, "sst": SST_QUICK_MATRIX if quick else SST_MATRIX}
    for sim in simulators:
        if sim not in tables:
            raise ParameterError(f"simulators must be among {', '.join(SIMULATORS)}, got {sim!r}")
    if rows.strip() in ("", "all"):
        return [(sim, f, r, s) for sim in simulators for f, r, s in tables[sim]]
    out = []
    for item in rows.split(","):
        item = item.strip()
        parts = item.split(":")
        sims = [parts[0]] if len(parts) == 3 and parts[0] in simulators else list(simulators)
        want = ":".join(parts[-2:])
        found = [(sim, f, r, s) for sim in sims for f, r, s in tables[sim] if f"{f}:{r}" == want]
        if len(parts) not in (2, 3) or not found:
            known = ", ".join(f"{sim}:{f}:{r}" for sim in simulators for f, r, _ in tables[sim])
            raise ParameterError(f"rows must be 'all' or [simulator:]family:routing items among {known}, got "
                                 f"{item!r}")
        out += [x for x in found if x not in out]
    return out


def _fmt(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else (f"{x:.4g}" if isinstance(x, float)
                                                                              else str(x))


def _row_verdict(verdicts: list[str]) -> str:
    if not verdicts:
        return "-"
    if any(v.startswith("FAIL") for v in verdicts):
        return "FAIL"
    if all(v.startswith("pass") or v.startswith("n/a (above") for v in verdicts):
        return "pass"
    return "undetermined"


def _try_native(family: str, routing: str, sizes: dict, out_dir: Path, binary, timeout: float) -> str:
    """Status of one native BookSim run of a routing topogen does not compare."""
    from dataclasses import replace

    from ..experiments.simulators import CrossvalSpec
    from .crossval_native import _native_adapter, native_family

    fam = native_family(family, sizes["k"], sizes["n"], c=sizes.get("c", 1))
    fam = replace(fam, booksim={**fam.booksim, "routing_function": routing})
    spec = CrossvalSpec(fam.generator, params=fam.params, seed=1, routing=fam.routing, loads=(0.01,),
                        link_latency=fam.link_latency, repeats=1, timeout=timeout)
    row = _native_adapter(fam, spec, 1, out_dir, binary).run(0.01)
    status = str(row.get("status", "missing"))
    return status if status == "completed" else f"{status} ({str(row.get('message', '')).strip()[:200]})"


def _run_row(family, routing, sizes, out_dir, *, quick, repeats, seed, binary, timeout):
    """(point rows, summary row) of one matrix row."""
    from .crossval_native import _EXPORT_ROUTING, crossval_native, native_family

    size = " ".join(f"{k}={v}" for k, v in sizes.items())
    key = (family, routing)
    if key in NOT_COMPARED:
        status = "not run"
        if key in _NATIVE_TRY:
            status = _try_native(family, _NATIVE_TRY[key], sizes, out_dir / f"{family}-{routing}", binary, timeout)
        return [], {"simulator": "booksim", "family": family, "routing": routing, "size": size,
                    "topogen_routing": "-",
                    "isomorphic": "-", "native_status": status, "reference": "not compared",
                    "export": "not compared", "verdict": "not compared", "cause": NOT_COMPARED[key],
                    "cpu_s": 0.0}
    fam = native_family(family, routing=routing, **sizes)
    t0 = time.process_time()
    res = crossval_native(family, out_dir / f"{family}-{routing}", routing=routing, repeats=repeats, seed=seed,
                          loads=QUICK_LOADS if quick else None, saturation=not quick, binary=binary,
                          timeout=timeout, **sizes)
    cpu = time.process_time() - t0  # this process only: BookSim's own CPU time is not counted
    what = _EXPORT_WHAT.get((family, routing), _EXPORT_ROUTING[family])
    return _summarise("booksim", family, routing, size, fam.routing, res, cpu,
                      "export: " + _EXPORT_CAUSE.format(what=what))


def _run_sst_row(family, routing, sizes, out_dir, *, quick, repeats, seed, binary, timeout,
                 sst_traffic="merlin"):
    """(point rows, summary row) of one SST merlin row (crossval_native_sst's result): with
    ``sst_traffic="merlin"`` one run per load and column, the reference on the native run's
    own destinations; with ``"seeded"`` ``repeats`` seeded samples, as ``topogen crossval
    --native FAMILY --simulators sst --repeats N`` runs."""
    if sst_traffic == "merlin":
        repeats = 1
    from .crossval_native_sst import crossval_native_sst, merlin_network

    size = " ".join(f"{k}={v}" for k, v in sizes.items())
    net = merlin_network(family, routing=routing, **sizes)
    t0 = time.process_time()
    res = crossval_native_sst(out_dir / f"sst-{family}-{routing}", family=family, routing=routing,
                              loads=QUICK_LOADS if quick else None, saturation=not quick, repeats=repeats,
                              reference_traffic="merlin" if repeats == 1 else "seeded", seed=seed, binary=binary,
                              timeout=timeout, **sizes)
    cpu = time.process_time() - t0  # this process only: SST's own CPU time is not counted
    why = next((n[len("export: not run: "):] for n in res.notes if n.startswith("export: not run: ")), "")
    return _summarise("sst", family, routing, size, net.routing, res, cpu,
                      "export: topogen's merlin.anytopo export with " + net.routing + "'s source routes "
                      "(VC = hop index) is not merlin's own router and routing (see docs/crossval.md)",
                      export_not_run=why)


def _summarise(simulator, family, routing, size, topogen_routing, res, cpu, export_cause, export_not_run=""):
    """(point rows, summary row) of one native comparison's result: one verdict rule for
    every simulator."""
    points = []
    by = {}
    for x in res.lines:
        by.setdefault(x["load"], {})[x["column"]] = x
    low = min(by)
    for load in sorted(by):
        cols = by[load]
        p = {"simulator": simulator, "family": family, "routing": routing, "size": size,
             "point": "zero load" if load == low and load <= 0.02 else "load", "load": load}
        for c in ("native", "reference", "export"):
            x = cols.get(c, {})
            p[c] = x.get("latency_cycles", math.nan) if x.get("status") == "completed" else math.nan
            p[f"{c}_sem"] = x.get("latency_sem", math.nan)
            if c != "native":
                p[f"{c}_ratio"] = x.get("ratio", math.nan)
                p[f"{c}_verdict"] = x.get("verdict", "-")
        points.append(p)
    if res.saturation:
        p = {"simulator": simulator, "family": family, "routing": routing, "size": size, "point": "saturation",
             "load": math.nan}
        for c in ("native", "reference", "export"):
            e = res.saturation.get(c, {})
            p[c] = e.get("saturation", math.nan)
            p[f"{c}_sem"] = (e.get("high", math.nan) - e.get("low", math.nan)) / 2 if e else math.nan
            if c != "native":
                p[f"{c}_ratio"] = e.get("ratio", math.nan)
                p[f"{c}_verdict"] = e.get("verdict", "-")
        points.append(p)
    summary = {"simulator": simulator, "family": family, "routing": routing, "size": size,
               "topogen_routing": topogen_routing, "isomorphic": bool(res.structure["isomorphic"]),
               "native_status": "completed"}
    causes = []
    for c in ("reference", "export"):
        if c == "export" and export_not_run:
            summary[c] = "not run"
            causes.append("export not run: " + export_not_run)
            continue
        v = _row_verdict([p[f"{c}_verdict"] for p in points])
        summary[c] = v
        if v != "pass":
            if c == "export":
                causes.append(export_cause)
            else:
                causes.append("reference: " + CAUSES.get((family, routing, c),
                                                         "not explained (see docs/crossval.md; with few "
                                                         "repeats on a small network, rerun with more)"))
    if not summary["isomorphic"]:
        causes.insert(0, "structure: the native network and topogen's generator are not isomorphic")
    summary["verdict"] = ("agrees" if summary["isomorphic"] and summary["reference"] == "pass"
                          and summary["export"] == "pass" else
                          "reference agrees" if summary["isomorphic"] and summary["reference"] == "pass" else
                          "differs" if "FAIL" in (summary["reference"], summary["export"]) or not summary["isomorphic"]
                          else "undetermined")
    summary["cause"] = "; ".join(causes) or "-"
    summary["cpu_s"] = round(cpu, 1)
    return points, summary


def markdown_table(points, summary) -> str:
    """The matrix as markdown: one line per row and its verdicts, then every point."""
    lines = ["| simulator | family | routing | size | topogen routing | isomorphic | reference | export | verdict | "
             "cause |", "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(f"| {s.get('simulator', 'booksim')} | {s['family']} | {s['routing']} | {s['size']} | "
                     f"{s['topogen_routing']} | "
                     f"{_fmt(s['isomorphic'])} | {s['reference']} | {s['export']} | {s['verdict']} | "
                     f"{s['cause']} |")
    lines += ["", "| simulator | family | routing | point | load | native | reference | export |",
              "|---|---|---|---|---|---|---|---|"]

    def cell(p, c):
        v = p[c]
        if c == "native":
            return _fmt(v)
        return f"{_fmt(v)} ({_fmt(p[f'{c}_ratio'])}, {p[f'{c}_verdict']})"

    for p in points:
        lines.append(f"| {p.get('simulator', 'booksim')} | {p['family']} | {p['routing']} | {p['point']} | "
                     f"{_fmt(p['load'])} | {cell(p, 'native')} | "
                     f"{cell(p, 'reference')} | {cell(p, 'export')} |")
    return "\n".join(lines) + "\n"


def _simulators(simulators: str, booksim: str = "", sst: str = "") -> tuple[list, dict]:
    """(simulators to run, {missing simulator: SimulatorNotFound message}) of ``simulators``
    (``booksim,sst``; empty: both, each where its binary is installed).  Raises
    SimulatorNotFound when none of them can run."""
    from ..drivers.booksim import find_booksim
    from ..drivers.sst_process import find_sst
    from ..errors import SimulatorNotFound

    names = [x.strip() for x in simulators.split(",") if x.strip()] or list(SIMULATORS)
    for name in names:
        if name not in SIMULATORS:
            raise ParameterError(f"simulators must be a comma-separated list among {', '.join(SIMULATORS)}, got "
                                 f"{simulators!r}")
    names = list(dict.fromkeys(names))
    finders = {"booksim": lambda: find_booksim(booksim or None), "sst": lambda: find_sst(sst or None)}
    missing = {}
    for name in names:
        try:
            finders[name]()
        except SimulatorNotFound as exc:
            missing[name] = str(exc)
    if len(missing) == len(names):
        raise SimulatorNotFound("the native matrix has no simulator to run: "
                                + "; ".join(f"{n}: {m}" for n, m in missing.items()))
    return names, missing


@register_experiment("native", paper="BookSim2 and SST merlin (their own topologies and routings)")
def reproduce_native(*, quick: bool = False, rows: str = "all", repeats: int = 3, seed: int = 1,
                     out: str = "native-matrix", booksim: str = "", timeout: float = 3600.0,
                     simulators: str = "", sst: str = "", sst_traffic: str = "merlin") -> ExperimentResult:
    """BookSim2's own networks (mesh, torus, dragonflynew, fattree, flatfly) and SST merlin's
    (torus, mesh, hyperx, dragonfly, fattree) with each of their routings topogen has,
    against topogen's generator on the reference simulator and its export: one row per
    simulator, network and routing, with verdicts and causes.

    Parameters
    ----------
    quick : bool
        The smallest sizes at loads 0.01 and 0.2 without the saturation search (about a
        minute of CPU); default the full sizes with saturation bisected and latencies at
        the zero-load point and 50 % and 80 % of the native saturation.
    rows : str
        ``all`` or ``[simulator:]family:routing`` items, e.g. ``mesh:romm,sst:hyperx:DOAL``.
    repeats : int
        Runs per load and column of the BookSim rows (seeds ``seed, seed + 1, ...``), and of
        the SST rows with ``sst_traffic="seeded"``.
    seed : int
    out : str
        Folder of the runs and of ``native.csv`` and ``native.md`` (a fresh ``out.1``... when
        taken).
    booksim : str
        The BookSim2 binary (default: $TOPOGEN_BOOKSIM or PATH).
    timeout : float
        Seconds per simulator run.
    simulators : str
        ``booksim``, ``sst`` or ``booksim,sst``; default both, each where its binary is
        found (a missing one is listed as not run, with the reason).
    sst : str
        The SST binary (default: $TOPOGEN_SST or PATH).
    sst_traffic : str
        Traffic of the SST rows' reference column: ``merlin`` (default), merlin's own
        uniform destinations of the native run, replayed, one run per load (a paired
        comparison); ``seeded``: ``repeats`` runs on topogen's seeded uniform traffic, the
        native column ``repeats`` later stretches of its one run.  On merlin's 4x4 torus
        the traffic sample alone moves the saturation by 11 %: ``merlin`` 0.684 on both,
        ``seeded`` 0.608 (seeds 1-3) against the native 0.684 (docs/crossval.md).
    """
    from .._validate import check_int
    from ..experiments.simulators import fresh_dir
    from ..output import atomic_write_text

    import pandas as pd

    repeats = check_int("repeats", repeats, 1)
    if sst_traffic not in ("merlin", "seeded"):
        raise ParameterError(f"sst_traffic must be merlin (the native run's own destinations) or seeded, "
                             f"got {sst_traffic!r}")
    names, missing = _simulators(simulators, booksim, sst)
    selected = selected_rows(rows, quick, names)
    folder = fresh_dir(Path(out))
    points, summary = [], []
    for sim, family, routing, sizes in selected:
        if sim in missing:
            summary.append({"simulator": sim, "family": family, "routing": routing,
                            "size": " ".join(f"{k}={v}" for k, v in sizes.items()), "topogen_routing": "-",
                            "isomorphic": "-", "native_status": "not run", "reference": "not run",
                            "export": "not run", "verdict": "not run", "cause": missing[sim], "cpu_s": 0.0})
            continue
        extra = {} if sim == "booksim" else {"sst_traffic": sst_traffic}
        run = _run_row if sim == "booksim" else _run_sst_row
        p, s = run(family, routing, sizes, folder, quick=quick, repeats=repeats, seed=seed,
                   binary=(booksim if sim == "booksim" else sst) or None, timeout=timeout, **extra)
        points += p
        summary.append(s)
    table = pd.DataFrame(points, columns=["simulator", "family", "routing", "size", "point", "load", "native",
                                          "native_sem", "reference", "reference_sem", "reference_ratio",
                                          "reference_verdict", "export", "export_sem", "export_ratio",
                                          "export_verdict"])
    summ = pd.DataFrame(summary)
    atomic_write_text(folder / "native.csv", table.to_csv(index=False))
    atomic_write_text(folder / "native_summary.csv", summ.to_csv(index=False))
    atomic_write_text(folder / "native.md", markdown_table(points, summary))
    notes = [f"{'quick: smallest sizes, loads ' + ', '.join(map(str, QUICK_LOADS)) + ', no saturation search' if quick else 'full sizes, saturation bisected to 2 %, latencies at 0.01 and 50 % / 80 % of the native saturation'}; "
             f"{repeats} run(s) per load and column, seeds {seed}..{seed + repeats - 1}"
             + ("" if "sst" not in names else "; SST rows: one run per load, the reference on the native run's own "
                "destinations" if sst_traffic == "merlin" else f"; SST rows: {repeats} seeded runs per load"),
             "tolerances: zero load 2 %, other loads 5 % or 2 standard errors, saturation 5 % (the saturation "
             "rows' _sem is half the bisection bracket)"]
    notes += [f"{sim}: not run: {msg}" for sim, msg in missing.items()]
    notes += [f"wrote {folder / 'native.csv'}, {folder / 'native_summary.csv'} and {folder / 'native.md'}",
              "docs/crossval.md gives each family's reading of BookSim's and merlin's sources and the measurements"]
    return ExperimentResult(title="BookSim2's and SST merlin's own networks: native vs topogen reference vs "
                                  "topogen export",
                            table=table, notes=notes, extra_tables={"summary": summ})


def _announce(**kwargs) -> str:
    names = [x.strip() for x in str(kwargs.get("simulators") or "").split(",") if x.strip()] or list(SIMULATORS)
    rows = selected_rows(kwargs.get("rows", "all"), bool(kwargs.get("quick")), names)
    counts = ", ".join(f"{sum(r[0] == n for r in rows)} {n}" for n in names)
    mode = "quick (no saturation search)" if kwargs.get("quick") else "full (saturation bisected per column)"
    return (f"plan: {len(rows)} native rows ({counts}), {mode}, {kwargs.get('repeats', 3)} run(s) per load and column; "
            "the full matrix takes hours of CPU (the dragonfly rows on the flit-level router most)")


reproduce_native.announce = _announce
