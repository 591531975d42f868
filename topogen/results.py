"""The shared results schema: one tidy table for every simulator.

Every runner (BookSim2, SST/merlin, the reference simulator) returns rows of this schema,
so tables and plots never care which simulator produced them.  One row describes one
simulation point: a (topology, parameters, seed, routing, traffic, offered load,
simulator) combination, its outcome (``status``) and where its raw output lives.

Columns
-------
The column list, in order, with its pandas dtype, is :data:`COLUMNS`.  Strings use the
``object`` dtype (``None`` when missing), integers the nullable ``Int64`` dtype (``<NA>``
when missing) and measurements ``float64`` (``NaN`` when missing or not measured).

============================  ========  ===============================================
column                        dtype     meaning
============================  ========  ===============================================
simulator                     object    ``booksim``, ``sst`` or ``reference``
topology                      object    generator name (``Topology.name``)
topology_params               object    generator parameters, canonical JSON (sorted keys)
num_switches                  Int64     routers in the simulated network
num_hosts                     Int64     endpoints in the simulated network
seed                          Int64     topology seed (``Topology.seed``), if any
sim_seed                      Int64     simulator RNG seed, if known
routing                       object    routing name (``min_anynet``, ``source:nearest`` ...)
traffic                       object    traffic pattern (``uniform``, ``bitrev`` ...)
offered_load                  float64   offered load, in ``load_unit``
load_unit                     object    ``flits/node/cycle``, ``packets/node/cycle`` or
                                        ``fraction of link bandwidth``
params                        object    other simulator parameters, canonical JSON
status                        object    one of :data:`STATUSES`
message                       object    detail of the status (error text, warning ...)
latency_avg                   float64   mean packet latency: creation (generation, so source
                                        queueing counts) to delivery, of packets measured after
                                        warm-up, on every simulator (SST: ``offered_load``'s own)
latency_min                   float64   minimum packet latency
latency_max                   float64   maximum packet latency
latency_p50                   float64   median packet latency (histograms only)
latency_p90                   float64   90th percentile (histograms only)
latency_p99                   float64   99th percentile (histograms only)
network_latency_avg           float64   mean network latency (injection to ejection; SST:
                                        linkcontrol ``packet_latency`` after warm-up)
network_latency_min           float64
network_latency_max           float64
flit_latency_avg              float64   mean flit latency
latency_unit                  object    ``cycles`` (BookSim) or ``ns`` (SST)
accepted_load                 float64   accepted (delivered) packet rate per node per cycle,
                                        or fraction of link bandwidth for SST
accepted_flit_rate            float64   accepted flits per node per cycle
injected_load                 float64   injected packet rate per node per cycle (SST: fraction
                                        of link bandwidth)
injected_flit_rate            float64   injected flits per node per cycle
hops_avg                      float64   mean routers traversed (BookSim: hops + 1)
packets                       Int64     latency samples (packets measured), if known
samples                       Int64     simulator sample count (BookSim ``(N samples)``)
sim_cycles                    Int64     simulated cycles (BookSim ``Time taken``)
sim_time_ns                   float64   simulated time (SST)
wall_time_s                   float64   wall-clock seconds of the simulator process
deadlock_warnings             Int64     BookSim ``Possible network deadlock`` warnings
ranks                         Int64     processes (MPI ranks) of the simulation (SST)
partitioner                   object    how the network was split over the ranks (SST:
                                        ``topogen``, ``linear``, ``roundrobin``, ``simple``;
                                        ``single`` for one rank)
cut_links                     Int64     links whose two ends sit on different ranks
peak_rss_mb                   float64   peak resident memory of the largest rank, MB (SST's
                                        ``Max Resident Set Size``)
total_rss_mb                  float64   peak resident memory summed over the ranks, MB
raw_output                    object    path of the raw simulator output kept on disk
topogen_version               object    version of topogen that made the row
============================  ========  ===============================================
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._version import __version__
from .errors import FormatError, ParameterError
from .output import atomic_write_bytes, atomic_write_text, locked

if TYPE_CHECKING:  # pandas is imported where a function needs it: a small CSV never does
    import pandas as pd

__all__ = [
    "COLUMNS",
    "STATUSES",
    "SIMULATORS",
    "make_row",
    "to_frame",
    "write_results",
    "append_rows",
    "read_results",
    "read_rows",
    "canonical_json",
    "atomic_write_text",
    "atomic_write_bytes",
    "display_frame",
    "accepted_in_offered_unit",
    "topogen_routing",
]

#: Column name -> pandas dtype, in table order.
COLUMNS: dict[str, str] = {
    "simulator": "object",
    "topology": "object",
    "topology_params": "object",
    "num_switches": "Int64",
    "num_hosts": "Int64",
    "seed": "Int64",
    "sim_seed": "Int64",
    "routing": "object",
    "traffic": "object",
    "offered_load": "float64",
    "load_unit": "object",
    "params": "object",
    "status": "object",
    "message": "object",
    "latency_avg": "float64",
    "latency_min": "float64",
    "latency_max": "float64",
    "latency_p50": "float64",
    "latency_p90": "float64",
    "latency_p99": "float64",
    "network_latency_avg": "float64",
    "network_latency_min": "float64",
    "network_latency_max": "float64",
    "flit_latency_avg": "float64",
    "latency_unit": "object",
    "accepted_load": "float64",
    "accepted_flit_rate": "float64",
    "injected_load": "float64",
    "injected_flit_rate": "float64",
    "hops_avg": "float64",
    "packets": "Int64",
    "samples": "Int64",
    "sim_cycles": "Int64",
    "sim_time_ns": "float64",
    "wall_time_s": "float64",
    "deadlock_warnings": "Int64",
    "ranks": "Int64",
    "partitioner": "object",
    "cut_links": "Int64",
    "peak_rss_mb": "float64",
    "total_rss_mb": "float64",
    "raw_output": "object",
    "topogen_version": "object",
}

#: Outcomes a row can have.
#:
#: ``completed``  the simulator finished and reported statistics;
#: ``saturated``  the network could not sustain the load (BookSim "Simulation unstable",
#: SST: accepted below offered, latency growing between sample windows, or the ``*`` marker);
#: ``deadlock``   the run stalled with deadlock warnings;
#: ``rejected``   the simulator refused its input (parse/config error);
#: ``crash``      the simulator died (signal, assertion, fatal error);
#: ``hang``       the run hit topogen's timeout;
#: ``incomplete`` the output ended without any of the above;
#: ``truncated``  the statistics began but the output stops before their end;
#: ``garbage``    output that is not the simulator's (a value that is not a number, or
#: more than any run writes);
#: ``implausible`` whole statistics with NaN, infinite or negative numbers.
STATUSES = ("completed", "saturated", "deadlock", "rejected", "crash", "hang", "incomplete",
            "truncated", "garbage", "implausible")

SIMULATORS = ("booksim", "sst", "reference")

_STR_COLUMNS = [c for c, t in COLUMNS.items() if t == "object"]
_INT_COLUMNS = [c for c, t in COLUMNS.items() if t == "Int64"]
_FLOAT_COLUMNS = [c for c, t in COLUMNS.items() if t == "float64"]


def canonical_json(value: Any) -> str:
    """JSON text with sorted keys and no spaces, used for parameter columns.

    Parameters
    ----------
    value : object
        A JSON-compatible value (tuples and numpy scalars are converted).

    Returns
    -------
    str
    """
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"))


def _plain(obj):
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_plain(v) for v in obj.tolist()]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, Path):
        return str(obj)
    return obj


def make_row(**values: Any) -> dict[str, Any]:
    """One results row with every column present.

    Parameters
    ----------
    **values
        Column values; see :data:`COLUMNS`.  Missing columns become ``None``/``NaN``.
        ``topology_params`` and ``params`` may be given as mappings (stored as canonical
        JSON).  ``topogen_version`` defaults to the running version.

    Returns
    -------
    dict
        Column name -> value, in :data:`COLUMNS` order.

    Raises
    ------
    ParameterError
        An unknown column, an unknown ``status`` or ``simulator``, or a value of the wrong
        type.
    """
    unknown = sorted(set(values) - set(COLUMNS))
    if unknown:
        raise ParameterError(
            f"unknown results column(s) {', '.join(unknown)}; valid columns: {', '.join(COLUMNS)}"
        )
    row: dict[str, Any] = {}
    for col, dtype in COLUMNS.items():
        v = values.get(col)
        if col in ("topology_params", "params") and v is not None and not isinstance(v, str):
            v = canonical_json(v)
        if dtype == "object":
            row[col] = None if v is None else str(v)
        elif dtype == "Int64":
            row[col] = _to_int(col, v)
        else:
            row[col] = _to_float(col, v)
    if row["topogen_version"] is None:
        row["topogen_version"] = __version__
    if row["status"] is not None and row["status"] not in STATUSES:
        raise ParameterError(f"status must be one of {', '.join(STATUSES)}, got {row['status']!r}")
    if row["simulator"] is not None and row["simulator"] not in SIMULATORS:
        raise ParameterError(
            f"simulator must be one of {', '.join(SIMULATORS)}, got {row['simulator']!r}"
        )
    return row


def _is_pd_na(v) -> bool:
    """Whether ``v`` is pandas' missing value (pandas is not imported to ask)."""
    pd = sys.modules.get("pandas")
    return pd is not None and v is pd.NA


def _to_int(col, v):
    if v is None or _is_pd_na(v):
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) and not (
        isinstance(v, (float, np.floating)) and float(v).is_integer()
    ):
        raise ParameterError(f"results column {col} needs an integer, got {v!r}")
    return int(v)


def _to_float(col, v):
    if v is None or _is_pd_na(v):
        return math.nan
    if isinstance(v, bool):
        raise ParameterError(f"results column {col} needs a number, got {v!r}")
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ParameterError(f"results column {col} needs a number, got {v!r}") from None


def to_frame(rows: Iterable[Mapping[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    """A DataFrame with exactly the schema's columns, order and dtypes.

    Parameters
    ----------
    rows : iterable of mapping, or DataFrame
        Rows from :func:`make_row` (or any mapping with schema columns).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    clean = _clean_rows(rows)
    data = {}
    for col, dtype in COLUMNS.items():
        values = [r[col] for r in clean]
        if dtype == "object":
            data[col] = pd.Series(values, dtype="object")
        elif dtype == "Int64":
            data[col] = pd.Series(values, dtype="Int64")
        else:
            data[col] = pd.Series(values, dtype="float64")
    return pd.DataFrame(data, columns=list(COLUMNS))


def _clean_rows(rows) -> list[dict[str, Any]]:
    """``rows`` (mappings, or a DataFrame) as :func:`make_row` rows, in order."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(rows, pd.DataFrame):
        records = rows.to_dict("records")
    else:
        records = list(rows)
    return [make_row(**{k: _none_if_na(v) for k, v in r.items()}) for r in records]


def _none_if_na(v):
    if v is None or _is_pd_na(v):
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        fmt = fmt.lower()
    else:
        fmt = path.suffix.lower().lstrip(".")
        if fmt == "pq":
            fmt = "parquet"
    if fmt not in ("csv", "parquet", "json"):
        raise ParameterError(
            f"results format must be csv, parquet or json (from the file extension), got {fmt!r} for {path}"
        )
    return fmt


def write_results(path: str | os.PathLike, rows, *, format: str | None = None) -> Path:
    """Write results atomically as CSV, Parquet or JSON.

    Parameters
    ----------
    path : path-like
        Output file; the format comes from its extension (``.csv``, ``.parquet``/``.pq``,
        ``.json``) unless ``format`` is given.
    rows : iterable of mapping, or DataFrame
        Rows of the schema.
    format : {"csv", "parquet", "json"}, optional

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        Unknown format, or Parquet without ``pyarrow`` installed.
    """
    path = Path(path)
    return _write_frame(path, to_frame(rows), _format_of(path, format))


def _write_frame(path: Path, frame: pd.DataFrame, fmt: str) -> Path:
    """Write a frame already in the schema (see :func:`write_results`)."""
    if fmt == "csv":
        data = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    elif fmt == "json":
        records = [{k: _none_if_na(v) for k, v in r.items()} for r in frame.to_dict("records")]
        records = [{k: (int(v) if isinstance(v, np.integer) else v) for k, v in r.items()} for r in records]
        data = (json.dumps({"schema": COLUMNS, "rows": records}, indent=1, allow_nan=True) + "\n").encode()
    else:
        _require_pyarrow("writing")
        import io

        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        data = buf.getvalue()
    return atomic_write_bytes(path, data)


# -- CSV without pandas ---------------------------------------------------------------------
#
# A results CSV as topogen writes it (the header of COLUMNS, every line ended by "\n", each
# cell as pandas' ``to_csv`` writes it) is read and extended here without pandas: a small
# sweep then never imports it, and adding a row does not parse and rewrite the table.  A
# file in any other form (a user's extra columns, "NA" cells, carriage returns, no final
# newline ...) goes through pandas exactly as before.

#: Cells pandas' ``read_csv`` reads as missing by default (``keep_default_na=True``); a
#: text cell holding one of them is read as ``None``, so it is not in topogen's form.
_PANDAS_NA_TEXT = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})

_INT_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_CSV_HEADER = ",".join(COLUMNS) + "\n"
_DTYPES = tuple(COLUMNS.values())

#: The bytes of the last results CSV this process read or wrote and its rows: appending to
#: the file this process just wrote (a sweep's next point) skips reading its rows again.
_last_csv: tuple[bytes, tuple[dict[str, Any], ...]] | None = None
#: Larger tables are not kept in memory between calls (they are parsed again).
_REMEMBER_MAX_BYTES = 64 << 20


def _csv_cell(dtype: str, v) -> str:
    """A cell as pandas' ``to_csv`` writes it: missing values empty, a float as its
    shortest ``repr`` (NumPy's ``astype(str)``, the same digits), an integer in decimal."""
    if v is None:
        return ""
    if dtype == "float64":
        return "" if math.isnan(v) else repr(float(v))
    if dtype == "Int64":
        return str(int(v))
    return v


def _csv_lines(rows: Iterable[Mapping[str, Any]]) -> str:
    """The CSV lines of :func:`make_row` rows (no header), as ``to_csv(index=False,
    lineterminator="\\n")`` writes them: the csv module's minimal quoting."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerows([_csv_cell(t, r[c]) for c, t in COLUMNS.items()] for r in rows)
    return buf.getvalue()


def _csv_value(dtype: str, text: str):
    """The value of one cell, or raise ValueError when pandas might read it otherwise or
    would write it back otherwise."""
    if dtype == "object":
        if text in _PANDAS_NA_TEXT:
            if text:
                raise ValueError(text)
            return None
        return text
    if not text:
        return None if dtype == "Int64" else math.nan
    if dtype == "Int64":
        if not _INT_TEXT.fullmatch(text):
            raise ValueError(text)
        v = int(text)
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise ValueError(text)
        return v
    v = float(text)
    if math.isnan(v) or repr(v) != text:
        raise ValueError(text)
    return v


def _parse_csv(data: bytes) -> tuple[dict[str, Any], ...] | None:
    """The rows of a results CSV in topogen's own form (see above), or None when ``data``
    is in any other form (then pandas reads it, as :func:`read_results` does)."""
    if not data.endswith(b"\n") or b"\r" in data or b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.startswith(_CSV_HEADER):
        return None
    body = text[len(_CSV_HEADER):]
    rows = []
    try:
        for cells in csv.reader(io.StringIO(body, newline="")):
            if len(cells) != len(_DTYPES):
                return None
            rows.append(make_row(**{c: _csv_value(t, x) for (c, t), x in zip(COLUMNS.items(), cells)}))
    except (ValueError, ParameterError, csv.Error):
        return None
    if _csv_lines(rows) != body:  # quoting or a cell in another form than topogen writes
        return None
    return tuple(rows)


def _csv_rows_of(data: bytes) -> tuple[dict[str, Any], ...] | None:
    """:func:`_parse_csv` of ``data``, remembered for the next call with the same bytes."""
    global _last_csv
    if _last_csv is not None and _last_csv[0] == data:
        return _last_csv[1]
    rows = _parse_csv(data)
    if rows is not None and len(data) <= _REMEMBER_MAX_BYTES:
        _last_csv = (data, rows)
    return rows


def _read_csv_bytes(path: Path) -> bytes:
    """The bytes of the results CSV ``path``, after the checks :func:`read_results` makes
    first (a regular file within the input size limit)."""
    from ._input import check_input_file, input_limit

    check_input_file(path, limit_bytes=input_limit(), what="results table", override=True)
    with open(path, "rb") as fh:
        return fh.read()


def read_rows(path: str | os.PathLike, *, format: str | None = None) -> list[dict[str, Any]]:
    """The rows of a results file, as :func:`make_row` makes them (``None`` for a missing
    text or integer, NaN for a missing number), in file order.

    The same rows as :func:`read_results` (unknown extra columns are dropped), and the same
    errors; a CSV in the form topogen writes is read without pandas.

    Parameters
    ----------
    path : path-like
    format : {"csv", "parquet", "json"}, optional
        Default: from the extension.

    Returns
    -------
    list of dict
    """
    path = Path(path)
    fmt = _format_of(path, format)
    if fmt == "csv":
        rows = _csv_rows_of(_read_csv_bytes(path))
        if rows is not None:
            return [dict(r) for r in rows]
    return _clean_rows(read_results(path, format=fmt))


def _kept(old, new, key, drop) -> list[bool]:
    """Which rows of ``old`` :func:`append_rows` keeps beside ``new``: those whose key
    (``key``, None: no key) no row of ``new`` has (a None key matches nothing) and that
    ``drop`` (None: none) does not drop."""
    fresh = set() if key is None else {k for k in map(key, new) if k is not None}
    keep = [k is None or k not in fresh for k in map(key, old)] if fresh else [True] * len(old)
    if drop is not None:
        keep = [k and not drop(r) for k, r in zip(keep, old)]
    return keep


def _append_csv(path: Path, new: list[dict[str, Any]], key, drop) -> Path | None:
    """:func:`append_rows` of a CSV in topogen's form, under the caller's lock: the file's
    bytes with the new lines after them (or, when rows are replaced or dropped, the kept
    rows and the new ones), written to a temporary name and renamed.  None when the file is
    in another form (the caller then goes through pandas)."""
    global _last_csv
    if path.exists():
        data = _read_csv_bytes(path)
        old = _csv_rows_of(data)
        if old is None:
            return None
    else:
        data, old = _CSV_HEADER.encode(), ()
    keep = _kept(old, new, key, drop)
    if all(keep):
        out = data + _csv_lines(new).encode("utf-8")
        rows = old + tuple(new)
    else:
        rows = tuple(r for r, k in zip(old, keep) if k) + tuple(new)
        out = (_CSV_HEADER + _csv_lines(rows)).encode("utf-8")
    written = atomic_write_bytes(path, out)
    _last_csv = (out, rows) if len(out) <= _REMEMBER_MAX_BYTES else None
    return written


def append_rows(path: str | os.PathLike, rows, *, replace_key=None, format: str | None = None,
                drop=None) -> Path:
    """Add ``rows`` to the shared results file ``path``, safely under concurrency.

    The file is read, merged and rewritten atomically while holding an exclusive
    advisory lock (:func:`topogen.output.locked`, a ``.NAME.lock`` file beside it), so
    any number of processes adding rows to one file end with every row exactly once.

    Parameters
    ----------
    path : path-like
        Results file (``.csv``/``.json``/``.parquet``); created if missing.
    rows : iterable of mapping, or DataFrame
        New rows of the schema.
    replace_key : callable(row) -> hashable, or sequence of str, optional
        Key of a row (a callable, or the column names whose values make it).  An earlier
        row whose key equals a new row's key is replaced by it; a key of ``None`` never
        matches.  Default: rows are only added.
    format : {"csv", "parquet", "json"}, optional
        Default: from the extension.
    drop : callable(row) -> bool, optional
        Earlier rows for which it is true are removed (e.g. rows of points an experiment
        no longer has).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FormatError
        ``path`` exists and is not a results table (it is left untouched).

    Notes
    -----
    Columns of the existing file that are not in the schema (a user's notes, say) are
    kept, after the schema's, with their text as it was; new rows leave them empty.  A
    CSV in the form topogen writes is extended without reading it into pandas (the same
    bytes as a rewrite of the whole table).
    """
    path = Path(path)
    fmt = _format_of(path, format)
    clean = _clean_rows(rows)
    key = _key_function(replace_key)
    with locked(path):
        if fmt == "csv":
            done = _append_csv(path, clean, key, drop)
            if done is not None:
                return done
        import pandas as pd

        new = to_frame(clean)
        if path.exists():
            old = read_results(path, format=fmt)
            extra = _extra_columns(path, fmt, len(old))
            keep = _kept(old.to_dict("records"), new.to_dict("records"), key, drop)
            old = old[keep].reset_index(drop=True)
            if extra is not None:
                extra = extra[keep].reset_index(drop=True)
                old = pd.concat([old, extra], axis=1)
                new = new.assign(**{c: None for c in extra.columns})
            if len(old):
                new = pd.concat([old, new], ignore_index=True) if len(new) else old
        return _write_frame(path, new, fmt)


def _extra_columns(path: Path, fmt: str, rows: int) -> pd.DataFrame | None:
    """The columns of the results file ``path`` that are not in the schema, as text (None
    when there are none)."""
    import pandas as pd

    if fmt == "csv":
        header = pd.read_csv(path, nrows=0).columns
        extra = [c for c in header if c not in COLUMNS]
        if not extra:
            return None
        raw = pd.read_csv(path, usecols=extra, dtype=str, keep_default_na=False)
    elif fmt == "json":
        doc = json.loads(path.read_text(encoding="utf-8"))
        extra = list(dict.fromkeys(k for r in doc["rows"] for k in r if k not in COLUMNS))
        if not extra:
            return None
        raw = pd.DataFrame([{k: r.get(k) for k in extra} for r in doc["rows"]], columns=extra, dtype=object)
    else:
        raw = pd.read_parquet(path)
        extra = [c for c in raw.columns if c not in COLUMNS]
        if not extra:
            return None
        raw = raw[extra]
    if len(raw) != rows:  # not the rows read_results saw: keep nothing rather than misalign
        raise FormatError(f"cannot keep the extra column(s) {', '.join(map(str, extra))}: the file's rows "
                          "could not be read twice alike", path=path)
    return raw[extra].reset_index(drop=True)


def _key_function(replace_key):
    if replace_key is None or callable(replace_key):
        return replace_key
    columns = tuple(replace_key)

    def key(row):
        values = tuple(_none_if_na(row.get(c)) for c in columns)
        return None if all(v is None for v in values) else tuple(str(v) for v in values)

    return key


def _require_pyarrow(what: str) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ParameterError(
            f"{what} Parquet needs pyarrow: pip install 'topogen[parquet]' (or use .csv/.json)"
        ) from None


def _check_not_truncated(path: Path) -> None:
    """FormatError if a CSV's last line has no newline and fewer fields than its header
    (topogen ends every line; a cut file would otherwise read as a row of blanks)."""
    import csv

    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 65536))
        tail = fh.read()
        fh.seek(0)
        header = fh.readline().decode("utf-8", "replace")
    if not tail or tail.endswith(b"\n"):
        return
    if b"\n" not in tail and size <= len(tail):
        raise FormatError("the header line has no newline: the file looks truncated", path=path)
    last = tail.rsplit(b"\n", 1)[1].decode("utf-8", "replace")
    have = len(next(csv.reader([last]), []))
    want = len(next(csv.reader([header]), []))
    if have < want:
        raise FormatError(f"the last line has {have} of the header's {want} fields and no newline: "
                          "the file looks truncated", path=path)


def read_results(path: str | os.PathLike, *, format: str | None = None) -> pd.DataFrame:
    """Read a results file written by :func:`write_results` back into the schema.

    Parameters
    ----------
    path : path-like
    format : {"csv", "parquet", "json"}, optional
        Default: from the extension.

    Returns
    -------
    pandas.DataFrame
        With the schema's columns and dtypes (unknown extra columns are dropped).

    Raises
    ------
    FormatError
        The file is not a results table (missing columns, bad JSON).
    ParameterError
        Parquet without ``pyarrow`` installed.
    """
    import pandas as pd

    from ._input import check_input_file, input_limit, parse_json, read_text_file

    path = Path(path)
    fmt = _format_of(path, format)
    # a FIFO or /dev/zero would block or never end; a huge file is refused before reading
    check_input_file(path, limit_bytes=input_limit(), what="results table", override=True)
    if fmt in ("csv", "json"):
        with open(path, "rb") as fh:
            head = fh.read(8192)
        if b"\0" in head:
            at = head.index(b"\0")
            raise FormatError(f"not a text file (binary data at byte {at}); a results "
                              "table is a CSV or JSON file written by topogen", path=path)
        if fmt == "csv":
            _check_not_truncated(path)
    try:
        if fmt == "csv":
            frame = pd.read_csv(path, dtype={c: "object" for c in _STR_COLUMNS}, keep_default_na=True)
        elif fmt == "json":
            doc = parse_json(read_text_file(path, limit_bytes=input_limit(), what="results table",
                                            override=True, memory_factor=16),
                             path=path, what="results table")
            if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
                raise FormatError('a results JSON file is an object with a "rows" list', path=path)
            if not all(isinstance(r, dict) for r in doc["rows"]):
                raise FormatError('every entry of "rows" must be an object (column: value)', path=path)
            frame = pd.DataFrame(doc["rows"], columns=list(COLUMNS))
        else:
            _require_pyarrow("reading")
            frame = pd.read_parquet(path)
    except (FormatError, ParameterError):
        raise
    except UnicodeDecodeError as exc:
        raise FormatError(f"not a text file (binary data at byte {exc.start}); a results table is "
                          "a CSV or JSON file written by topogen", path=path) from None
    except pd.errors.EmptyDataError:
        raise FormatError("empty file: a results table starts with a header line naming its "
                          "columns (simulator,status,offered_load,...)", path=path) from None
    except pd.errors.ParserError as exc:
        raise FormatError(f"malformed CSV: {' '.join(str(exc).split())}", path=path) from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        raise FormatError(f"cannot read the table: {exc}", path=path) from None  # e.g. bad Parquet
    missing = [c for c in ("simulator", "status", "offered_load") if c not in frame.columns]
    if missing:
        raise FormatError(f"not a topogen results table: missing column(s) {', '.join(missing)}", path=path)
    for c in COLUMNS:
        if c not in frame.columns:
            frame[c] = None
    frame = frame[list(COLUMNS)]
    try:
        return to_frame(frame)
    except ParameterError as exc:
        raise FormatError(f"not a valid results table: {exc}", path=path) from None


# -- display ------------------------------------------------------------------------------

#: A simulator's own name of a routing -> topogen's name of the same routing.  BookSim's
#: ``min_anynet`` routes exactly as topogen's ``booksim-min`` (:mod:`topogen.routing.booksim_min`);
#: SST rows name the topogen routing their tables came from as ``source:NAME``.
_ROUTING_NAMES = {"min_anynet": "booksim-min"}

#: Columns of the default ``topogen results`` table, in order (see :func:`display_frame`).
DISPLAY_COLUMNS = ("topology", "topology_params", "seed", "routing", "traffic", "simulator",
                   "simulator_routing", "sim_seed", "offered_load", "accepted", "load_unit", "status",
                   "latency_avg", "latency_p99", "latency_unit", "hops_avg")

#: Sort order of the displayed rows.
DISPLAY_SORT = ("topology", "topology_params", "seed", "routing", "traffic", "simulator", "offered_load",
                "sim_seed")


def topogen_routing(simulator_routing: str | None) -> str | None:
    """topogen's name of a routing as a simulator's row names it.

    ``min_anynet`` (BookSim) -> ``booksim-min``; ``source:NAME`` (SST tables built from a
    topogen routing) -> ``NAME``; any other name is topogen's already.
    """
    if simulator_routing is None:
        return None
    name = str(simulator_routing)
    if name in _ROUTING_NAMES:
        return _ROUTING_NAMES[name]
    if name.startswith("source:"):
        return _ROUTING_NAMES.get(name[len("source:"):], name[len("source:"):])
    return name


def packet_size_of(params: str | Mapping | None) -> float:
    """Flits per packet recorded in a row's ``params`` (top level, or its ``config``), or NaN."""
    if params is None or (isinstance(params, float) and math.isnan(params)):
        return math.nan
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except ValueError:
            return math.nan
    if not isinstance(params, Mapping):
        return math.nan
    for where in (params, params.get("config")):
        if isinstance(where, Mapping) and where.get("packet_size") is not None:
            try:
                size = float(where["packet_size"])
            except (TypeError, ValueError):
                return math.nan
            return size if size > 0 else math.nan
    return math.nan


def _link_gbps_of(params) -> float:
    """Link rate (Gbit/s) recorded in a row's ``params`` (top level or its ``config``),
    else the shared default: the rate that turns one flit per cycle into Gbit/s."""
    from .sim_defaults import LINK_GBPS

    if isinstance(params, str):
        try:
            params = json.loads(params)
        except ValueError:
            params = None
    if isinstance(params, Mapping):
        for where in (params, params.get("config")):
            if isinstance(where, Mapping):
                try:
                    v = float(where.get("link_gbps"))
                except (TypeError, ValueError):
                    continue
                if math.isfinite(v) and v > 0:
                    return v
    return float(LINK_GBPS)


def accepted_in_offered_unit(row: Mapping[str, Any]) -> float:
    """A row's accepted load in the unit of its ``offered_load`` (``load_unit``).

    ``accepted_load`` is packets/node/cycle (fraction of link bandwidth for SST's
    ``anytopo`` rows), ``accepted_flit_rate`` flits/node/cycle.  For a flits/node/cycle
    offered load the flit rate is used, or ``accepted_load`` times the ``packet_size``
    recorded in ``params``; for Gbit/s/node the flit rate times the link rate (one flit
    per cycle is one link's rate, ``link_gbps`` of ``params`` or the shared 96 Gbit/s);
    NaN when the row does not allow the conversion.
    """
    def num(key):
        v = row.get(key)
        if v is None or _is_pd_na(v):
            return math.nan
        try:
            return float(v)
        except (TypeError, ValueError):
            return math.nan

    unit = row.get("load_unit")
    if unit == "flits/node/cycle":
        flits = num("accepted_flit_rate")
        if not math.isnan(flits):
            return flits
        return num("accepted_load") * packet_size_of(row.get("params"))
    if unit == "packets/node/cycle":
        packets = num("accepted_load")
        if not math.isnan(packets):
            return packets
        return num("accepted_flit_rate") / packet_size_of(row.get("params"))
    if unit == "Gbit/s/node":
        flits = num("accepted_flit_rate")
        if math.isnan(flits):
            flits = num("accepted_load") * packet_size_of(row.get("params"))
        return flits * _link_gbps_of(row.get("params"))
    return num("accepted_load")


def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table people compare: a results frame as ``topogen results`` shows it.

    Offered and accepted load side by side in one unit (``offered_load``, ``accepted``: the
    row's ``load_unit``, named in both headers when every row shares it), topology
    parameters and both seeds, one routing name across simulators (``routing``: topogen's
    name, ``simulator_routing``: the simulator's own), sorted by topology, routing,
    traffic, simulator, load and seed.  Columns with no value in any row are left out.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows of the schema (:func:`read_results`).

    Returns
    -------
    pandas.DataFrame
    """
    import pandas as pd

    records = frame.to_dict("records")
    out = pd.DataFrame({
        "topology": frame["topology"],
        "topology_params": frame["topology_params"],
        "seed": frame["seed"],
        "routing": [topogen_routing(_none_if_na(r.get("routing"))) for r in records],
        "traffic": frame["traffic"],
        "simulator": frame["simulator"],
        "simulator_routing": frame["routing"],
        "sim_seed": frame["sim_seed"],
        "offered_load": frame["offered_load"].astype("float64"),
        "accepted": pd.Series([accepted_in_offered_unit(r) for r in records], index=frame.index,
                              dtype="float64"),
        "load_unit": frame["load_unit"],
        "status": frame["status"],
        "latency_avg": frame["latency_avg"],
        "latency_p99": frame["latency_p99"],
        "latency_unit": frame["latency_unit"],
        "hops_avg": frame["hops_avg"],
    }, columns=list(DISPLAY_COLUMNS))
    if len(out):
        out = out.sort_values(list(DISPLAY_SORT), kind="stable", na_position="last").reset_index(drop=True)
    if (out["simulator_routing"].fillna("") == out["routing"].fillna("")).all():
        out = out.drop(columns=["simulator_routing"])  # no simulator names a routing its own way
    out = out.dropna(axis=1, how="all")
    units = out["load_unit"].dropna().unique() if "load_unit" in out else []
    if len(units) == 1 and out["load_unit"].notna().all():
        out = out.drop(columns=["load_unit"]).rename(
            columns={"offered_load": f"offered_load [{units[0]}]", "accepted": f"accepted [{units[0]}]"})
    lat = out["latency_unit"].dropna().unique() if "latency_unit" in out else []
    if len(lat) == 1 and out["latency_unit"].notna().all():
        out = out.drop(columns=["latency_unit"]).rename(
            columns={c: f"{c} [{lat[0]}]" for c in ("latency_avg", "latency_p99") if c in out})
    return out
