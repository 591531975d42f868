"""The results store of an experiment: one folder, one file per finished point.

::

    STORE/
      store.json            what the folder is: experiment name, topogen version (written first)
      points/ID.json        a finished point: its content and its results row
      failed/ID.json        the last failure of a point that has no row yet (message, row if any)
      raw/ID/...            raw simulator output of a point (BookSim logs, SST bundles)
      sweeps/ID/LOAD.json   each load a ``load = "sweep"`` point has simulated so far (a
                            rerun of the point finds them instead of simulating them again)
      slurm/                SLURM submissions (see :mod:`topogen.experiments.slurm`)
      results.csv           the table `topogen experiment collect` writes by default

Every file is written under a temporary name and renamed (:func:`topogen.output.atomic_write`),
so a reader -- ``plan``, ``status``, ``collect`` while the experiment still runs -- sees each
point complete or not at all, and a process killed at any moment leaves every finished point
intact.  A point's file is named by its id, so two processes that run the same point (a
resubmitted SLURM task beside a slow one) leave one row, never two.  Points are retried when
they have no row: missing, or failed.  A point is done only when every row it made is a
result of a whole, plausible simulator output
(:func:`topogen.drivers.base.row_problem`): status ``completed``,
``saturated`` or ``deadlock``, no negative or infinite number, and a finite latency when
completed.  Anything else -- a Python exception, or a row whose status is a failure such as
``crash``, ``hang``, ``incomplete``, ``truncated``, ``garbage``, ``implausible`` or
``rejected`` -- is stored under ``failed/`` with its kind and its row (which names the raw
log), so the next run, with a working simulator, runs the point again.

A store belongs to one experiment name and one topogen version; opening it with another is
refused before anything is written.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from .._input import load_json
from .._version import __version__
from ..errors import FormatError, OutputError, TopogenError
from ..drivers.base import row_problem
from ..output import atomic_write, check_dir_output, check_file_output, output_dir

__all__ = ["Store", "StoreVersionError", "collect", "experiment_point_of"]

STORE_FORMAT = "topogen-experiment-store"
STORE_LAYOUT = 1


class StoreVersionError(TopogenError):
    """A store written by another topogen version (or another experiment)."""

    exit_code = 3


@dataclass
class Counts:
    """How many points of a list a store has done, failed and still to run."""

    total: int
    done: int
    failed: int

    @property
    def pending(self) -> int:
        return self.total - self.done


class Store:
    """An experiment's results store at ``root`` (see the module notes).

    Use :meth:`open`; the constructor does no checks.
    """

    def __init__(self, root, meta: dict | None = None):
        self.root = Path(root)
        self.meta = meta or {}

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, root, experiment: str, *, create: bool = False) -> "Store":
        """Open the store of ``experiment`` at ``root``.

        Parameters
        ----------
        root : path-like
        experiment : str
            The experiment name the store must belong to.
        create : bool
            Create it when missing (or an empty folder); else a missing store opens empty
            and read-only (nothing done).

        Raises
        ------
        StoreVersionError
            It was written by another topogen version or belongs to another experiment.
        OutputError
            ``root`` is a non-empty folder that is not a store, or not writable.
        """
        root = Path(root)
        marker = root / "store.json"
        if marker.is_file():
            meta = cls._read_meta(marker)
            if meta.get("topogen_version") != __version__:
                raise StoreVersionError(
                    f"store {root} was written by topogen {meta.get('topogen_version')}, this is "
                    f"{__version__}; use that version, or run into a new store (--store DIR)")
            if meta.get("experiment") != experiment:
                raise StoreVersionError(
                    f"store {root} holds experiment {meta.get('experiment')!r}, not {experiment!r}; "
                    "name another store (--store DIR or [experiment] store)")
            return cls(root, meta)
        if os.path.lexists(root) and not root.is_dir():
            raise OutputError(f"store {root} exists and is not a folder; name a new folder (--store DIR)")
        if root.is_dir() and any(True for _ in os.scandir(root)):
            raise OutputError(f"{root} is not an experiment store (no store.json) and is not empty; "
                              "name a new or empty folder (--store DIR)")
        meta = {"format": STORE_FORMAT, "layout": STORE_LAYOUT, "experiment": experiment,
                "topogen_version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if not create:
            return cls(root, meta)
        check_dir_output(root)
        with output_dir(root, last=("store.json",)) as tmp:
            for sub in ("points", "failed", "raw"):
                (tmp / sub).mkdir()
            atomic_write(tmp / "store.json", json.dumps(meta, indent=1) + "\n")
        return cls(root, meta)

    @staticmethod
    def _read_meta(marker: Path) -> dict:
        try:
            meta = load_json(marker, what="store marker")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FormatError(f"not a topogen experiment store marker: {exc}", path=marker) from None
        if not isinstance(meta, dict) or meta.get("format") != STORE_FORMAT:
            raise FormatError("not a topogen experiment store marker (format)", path=marker)
        if meta.get("layout") != STORE_LAYOUT:
            raise StoreVersionError(f"store {marker.parent} has layout {meta.get('layout')}, this topogen "
                                    f"reads layout {STORE_LAYOUT}; run into a new store (--store DIR)")
        return meta

    @property
    def exists(self) -> bool:
        return (self.root / "store.json").is_file()

    # ------------------------------------------------------------------ reading
    def _ids(self, sub: str) -> set[str]:
        try:
            names = os.listdir(self.root / sub)
        except FileNotFoundError:
            return set()
        return {n[:-5] for n in names if n.endswith(".json") and not n.startswith(".")}

    def done_ids(self) -> set[str]:
        """Ids of the points that have a row."""
        return self._ids("points")

    def failed_ids(self) -> set[str]:
        """Ids of the points whose last attempt failed and that have no row."""
        return self._ids("failed") - self._ids("points")

    def counts(self, points) -> Counts:
        ids = {p.id for p in points}
        return Counts(len(ids), len(ids & self.done_ids()), len(ids & self.failed_ids()))

    def pending(self, points) -> list:
        """``points`` without a row, in order."""
        done = self.done_ids()
        return [p for p in points if p.id not in done]

    def record(self, point_id: str, sub: str = "points") -> dict:
        """The stored record of a point (``points`` or ``failed``)."""
        path = self.root / sub / f"{point_id}.json"
        try:
            return load_json(path, what="point record")
        except json.JSONDecodeError as exc:
            raise FormatError(f"not a point record: {exc.msg}", path=path, line=exc.lineno) from None

    # ------------------------------------------------------------------ writing
    def raw_dir(self, point_id: str) -> Path:
        """The folder of a point's raw output (``raw/ID``; sub-folders are claimed fresh)."""
        d = self.root / "raw" / point_id
        d.mkdir(parents=True, exist_ok=True)
        return d

    def sweep_rows(self, point_id: str) -> dict:
        """The rows a sweep point has stored so far: ``{load text: row}`` (``sweeps/ID``)."""
        folder = self.root / "sweeps" / point_id
        out = {}
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            return out
        for n in names:
            if n.endswith(".json") and not n.startswith("."):
                try:
                    row = load_json(folder / n, what="sweep row")["row"]
                except (OSError, ValueError, KeyError, TypeError):
                    continue  # unreadable: that load is simulated again and the file replaced
                if row_problem(row) is None:  # anything else is simulated again
                    out[n[:-5]] = row
        return out

    def write_sweep_row(self, point_id: str, load_text: str, row: dict) -> None:
        """Keep one simulated load of a sweep point (``sweeps/ID/LOAD.json``, atomically)."""
        folder = self.root / "sweeps" / point_id
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / f"{load_text}.json", json.dumps({"row": row}, sort_keys=True) + "\n")

    def write(self, point, row: dict | None, *, error: str | None = None, seconds: float = 0.0,
              rows: list | None = None, kind: str | None = None, cpu_seconds: float | None = None) -> str:
        """Record an attempt at ``point``: its row (``points/ID.json``) or its failure
        (``failed/ID.json``, when ``error`` is given or a row is not a finished result,
        see :func:`row_problem`).  A ``load = "sweep"`` point passes ``rows``, one per load
        (``row`` is then None).  A failure's record has its ``kind`` (``error`` for a
        Python exception unless ``kind`` names it, else the failing row's status or
        ``implausible``) and keeps the row, whose ``raw_output`` names the raw log;
        ``cpu_seconds``, when given, is recorded beside the wall ``seconds``.

        Returns
        -------
        str
            ``"done"`` or ``"failed"``.
        """
        problem = None
        if error is None:
            if rows is not None:
                problem = ("incomplete", "a sweep point without rows") if not rows else next(
                    (p for p in map(row_problem, rows) if p is not None), None)
            elif row is None:
                problem = ("incomplete", "no row")
            else:
                problem = row_problem(row)
        failed = error is not None or problem is not None
        if failed:
            kind = kind or ("error" if error is not None else problem[0])
        else:
            kind = None
        rec = {"id": point.id, "index": point.index, "content": point.content, "row": row,
               "kind": kind,
               "error": error or (f"{problem[0]}: {problem[1]}" if problem else None),
               "topogen_version": __version__, "host": socket.gethostname(), "seconds": seconds,
               "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if rows is not None:
            rec["rows"] = rows
        if cpu_seconds is not None:  # this process's and its simulators' CPU time
            rec["cpu_seconds"] = cpu_seconds
        sub = "failed" if failed else "points"
        folder = self.root / sub
        folder.mkdir(exist_ok=True)
        atomic_write(folder / f"{point.id}.json", json.dumps(rec, sort_keys=True) + "\n")
        return "failed" if failed else "done"


def experiment_point_of(row) -> str | None:
    """The experiment point id recorded in a row's ``params`` (None for other rows)."""
    text = row.get("params")
    if not isinstance(text, str) or "experiment_point" not in text:
        return None
    try:
        return json.loads(text).get("experiment_point")
    except (json.JSONDecodeError, AttributeError):
        return None


def collect(experiment, store: Store, output=None, *, counts: dict | None = None):
    """Merge the rows of ``experiment``'s points in ``store`` into one results table.

    Rows go into ``output`` (default ``STORE/results.csv``; ``.parquet`` and ``.json`` too)
    through :func:`topogen.results.append_rows`, keyed by point id: rows of the same points
    are replaced, rows of points the store holds but the spec no longer has (a spec
    changed since they ran) are removed, other rows of a shared table are kept.

    ``counts``, if given, is filled with ``left_out_points`` (points in the store that are
    not the spec's), ``left_out`` (their stored rows, not collected) and ``removed`` (rows
    of such points taken out of ``output``).

    Returns
    -------
    (pathlib.Path or None, int, list of str, list of str)
        The table written (None when no point is done), rows written (a ``load = "sweep"``
        point gives one per load), ids missing, ids failed.
    """
    from ..results import append_rows, read_results

    output = Path(output) if output is not None else store.root / "results.csv"
    check_file_output(output, make_parents=True)
    if output.exists():
        read_results(output)  # a file that is not a results table is refused before any work
    done = store.done_ids()
    failed = store.failed_ids()
    ours = {p.id for p in experiment.points}
    stale = (set(done) | set(failed)) - ours  # points of an earlier version of the spec
    removed = [0]

    def other_spec(row) -> bool:
        gone = experiment_point_of(row) in stale
        removed[0] += gone
        return gone

    rows, missing, bad = [], [], []
    for p in experiment.points:
        if p.id in done:
            rec = store.record(p.id)
            if rec.get("topogen_version") != __version__:
                raise StoreVersionError(f"point {p.id} in {store.root} was written by topogen "
                                        f"{rec.get('topogen_version')}, this is {__version__}")
            rows.extend(rec["rows"] if rec.get("rows") is not None else [rec["row"]])
        else:
            (bad if p.id in failed else missing).append(p.id)
    if counts is not None:
        left = 0
        for pid in stale & set(done):
            rec = store.record(pid)
            left += len(rec["rows"]) if rec.get("rows") is not None else 1
        counts.update(left_out_points=len(stale), left_out=left, removed=0)
    if not rows:
        return None, 0, missing, bad
    append_rows(output, rows, replace_key=experiment_point_of, drop=other_spec)
    if counts is not None:
        counts["removed"] = removed[0]
    return output, len(rows), missing, bad
