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
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from ..errors import ParameterError
from ..registry import register_experiment
from ._base import ExperimentResult

__all__ = ["MATRIX", "QUICK_MATRIX", "CAUSES", "NOT_COMPARED", "reproduce_native", "matrix_rows",
           "markdown_table"]

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
    ("torus", "dim_order_bal", {"k": 3, "n": 2}),
    ("torus", "min_adapt", {"k": 3, "n": 2}),
)
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
NOT_COMPARED.update({
    ("flatfly", "adaptive_xyyx"): "BookSim's adaptive_xyyx_flatfly picks X first or Y first at the source router from "
                                  "the used credits of the two first-hop ports; the reference simulator's engine "
                                  "makes credit-based choices for its own UGAL and ANCA rules only",
    ("flatfly", "ugal"): "BookSim's ugal_flatfly_onchip picks minimal or a random intermediate at the source router "
                         "by hops x used credits with a threshold of 2 (VC halves by phase); the engine's UGAL rules "
                         "are Slim Fly's and dragonflynew's, not this one",
    ("torus", "min_adapt"): "BookSim's min_adapt_torus is minimal adaptive on VC 3 only with a dimension-order "
                            "dateline escape on VCs 0 and 1 (VC 2 unused); topogen's escape routing has an "
                            "up*/down* escape and the engine no dateline escape",
})
#: BookSim routing function names of the rows not compared (for the one native try)
_NATIVE_TRY = {("torus", "valiant"): "valiant", ("flatfly", "adaptive_xyyx"): "adaptive_xyyx",
               ("flatfly", "ugal"): "ugal", ("torus", "min_adapt"): "min_adapt"}

#: the cause of a column's known difference from native, per (family, routing, column)
CAUSES: dict = {}
#: what anynet's min is beside a routing where the family's text does not say it
_EXPORT_WHAT = {
    ("mesh", "romm"): "one fixed shortest path per pair, not ROMM's random intermediate in the minimal quadrant",
    ("mesh", "valiant"): "one fixed shortest path per pair, where Valiant goes through a random router (twice "
                         "the hops)",
    ("dragonfly", "ugal"): "one fixed shortest path per pair on every VC, not ugal's choice between the minimal "
                           "path and one through a random intermediate",
    ("flatfly", "valiant"): "one fixed shortest path per pair, where Valiant goes through a random router",
    ("flatfly", "xyyx"): "one fixed shortest path per pair on every VC, not X first or Y first drawn per packet "
                         "with a VC half each",
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
        return [], {"family": family, "routing": routing, "size": size, "topogen_routing": "-",
                    "isomorphic": "-", "native_status": status, "reference": "not compared",
                    "export": "not compared", "verdict": "not compared", "cause": NOT_COMPARED[key],
                    "cpu_s": 0.0}
    fam = native_family(family, routing=routing, **sizes)
    t0 = time.process_time()
    res = crossval_native(family, out_dir / f"{family}-{routing}", routing=routing, repeats=repeats, seed=seed,
                          loads=QUICK_LOADS if quick else None, saturation=not quick, binary=binary,
                          timeout=timeout, **sizes)
    cpu = time.process_time() - t0  # this process only: BookSim's own CPU time is not counted
    points = []
    by = {}
    for x in res.lines:
        by.setdefault(x["load"], {})[x["column"]] = x
    low = min(by)
    for load in sorted(by):
        cols = by[load]
        p = {"family": family, "routing": routing, "size": size,
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
        p = {"family": family, "routing": routing, "size": size, "point": "saturation", "load": math.nan}
        for c in ("native", "reference", "export"):
            e = res.saturation.get(c, {})
            p[c] = e.get("saturation", math.nan)
            p[f"{c}_sem"] = (e.get("high", math.nan) - e.get("low", math.nan)) / 2 if e else math.nan
            if c != "native":
                p[f"{c}_ratio"] = e.get("ratio", math.nan)
                p[f"{c}_verdict"] = e.get("verdict", "-")
        points.append(p)
    summary = {"family": family, "routing": routing, "size": size, "topogen_routing": fam.routing,
               "isomorphic": bool(res.structure["isomorphic"]), "native_status": "completed"}
    causes = []
    for c in ("reference", "export"):
        v = _row_verdict([p[f"{c}_verdict"] for p in points])
        summary[c] = v
        if v != "pass":
            if c == "export":
                what = _EXPORT_WHAT.get((family, routing), _EXPORT_ROUTING[family])
                causes.append("export: " + _EXPORT_CAUSE.format(what=what))
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
    lines = ["| family | routing | size | topogen routing | isomorphic | reference | export | verdict | cause |",
             "|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(f"| {s['family']} | {s['routing']} | {s['size']} | {s['topogen_routing']} | "
                     f"{_fmt(s['isomorphic'])} | {s['reference']} | {s['export']} | {s['verdict']} | "
                     f"{s['cause']} |")
    lines += ["", "| family | routing | point | load | native | reference | export |", "|---|---|---|---|---|---|---|"]

    def cell(p, c):
        v = p[c]
        if c == "native":
            return _fmt(v)
        return f"{_fmt(v)} ({_fmt(p[f'{c}_ratio'])}, {p[f'{c}_verdict']})"

    for p in points:
        lines.append(f"| {p['family']} | {p['routing']} | {p['point']} | {_fmt(p['load'])} | {cell(p, 'native')} | "
                     f"{cell(p, 'reference')} | {cell(p, 'export')} |")
    return "\n".join(lines) + "\n"


@register_experiment("native", paper="BookSim2 (its own topologies and routings)")
def reproduce_native(*, quick: bool = False, rows: str = "all", repeats: int = 3, seed: int = 1,
                     out: str = "native-matrix", booksim: str = "", timeout: float = 3600.0) -> ExperimentResult:
    """BookSim2's own networks (mesh, torus, dragonflynew, fattree, flatfly) with each of
    their routings topogen has, against topogen's generator on the reference simulator and
    its anynet export: one row per network and routing, with verdicts and causes.

    Parameters
    ----------
    quick : bool
        The smallest sizes at loads 0.01 and 0.2 without the saturation search (about a
        minute of CPU); default the full sizes with saturation bisected and latencies at
        the zero-load point and 50 % and 80 % of the native saturation.
    rows : str
        ``all`` or ``family:routing`` items, e.g. ``mesh:romm,torus:dim_order``.
    repeats : int
        Runs per load and column (seeds ``seed, seed + 1, ...``).
    seed : int
    out : str
        Folder of the runs and of ``native.csv`` and ``native.md`` (a fresh ``out.1``... when
        taken).
    booksim : str
        The BookSim2 binary (default: $TOPOGEN_BOOKSIM or PATH).
    timeout : float
        Seconds per BookSim run.
    """
    from .._validate import check_int
    from ..experiments.simulators import fresh_dir
    from ..output import atomic_write_text

    import pandas as pd

    repeats = check_int("repeats", repeats, 1)
    selected = matrix_rows(rows, quick)
    folder = fresh_dir(Path(out))
    points, summary = [], []
    for family, routing, sizes in selected:
        p, s = _run_row(family, routing, sizes, folder, quick=quick, repeats=repeats, seed=seed,
                        binary=booksim or None, timeout=timeout)
        points += p
        summary.append(s)
    table = pd.DataFrame(points, columns=["family", "routing", "size", "point", "load", "native", "native_sem",
                                          "reference", "reference_sem", "reference_ratio", "reference_verdict",
                                          "export", "export_sem", "export_ratio", "export_verdict"])
    summ = pd.DataFrame(summary)
    atomic_write_text(folder / "native.csv", table.to_csv(index=False))
    atomic_write_text(folder / "native_summary.csv", summ.to_csv(index=False))
    atomic_write_text(folder / "native.md", markdown_table(points, summary))
    notes = [f"{'quick: smallest sizes, loads ' + ', '.join(map(str, QUICK_LOADS)) + ', no saturation search' if quick else 'full sizes, saturation bisected to 2 %, latencies at 0.01 and 50 % / 80 % of the native saturation'}; "
             f"{repeats} run(s) per load and column, seeds {seed}..{seed + repeats - 1}",
             "tolerances: zero load 2 %, other loads 5 % or 2 standard errors, saturation 5 % (the saturation "
             "rows' _sem is half the bisection bracket)",
             f"wrote {folder / 'native.csv'}, {folder / 'native_summary.csv'} and {folder / 'native.md'}",
             "docs/crossval.md gives each family's reading of BookSim's sources and the measurements"]
    return ExperimentResult(title="BookSim2's own networks: native vs topogen reference vs topogen export",
                            table=table, notes=notes, extra_tables={"summary": summ})


def _announce(**kwargs) -> str:
    rows = matrix_rows(kwargs.get("rows", "all"), bool(kwargs.get("quick")))
    mode = "quick (no saturation search)" if kwargs.get("quick") else "full (saturation bisected per column)"
    return (f"plan: {len(rows)} native BookSim rows, {mode}, {kwargs.get('repeats', 3)} run(s) per load and column; "
            "the full matrix takes hours of CPU (the dragonfly rows on the flit-level router most)")


reproduce_native.announce = _announce
