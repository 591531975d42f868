"""BookSim2 load sweep: zero-load latency and saturation by bisection, resumable.

Each simulated point is stored under a *content key*: the SHA-256 of everything that
changes its numbers — the configuration file's bytes, the bytes of the netlist it names,
every command-line override (traffic, ``--set`` options, the injection rate) and the
BookSim executable's bytes.  A re-run finds a point only when all of these are the same,
so changing the traffic, an option, the netlist or the simulator build re-simulates; the
timeout is not part of the key, but a ``hang`` is reused only by a run whose timeout is
not longer than the one that hung.  Failures (``rejected``, ``crash``, ``incomplete``,
``truncated``, ``garbage``, ``implausible``) are never stored, so the next run retries them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._input import load_json
from ..errors import ParameterError
from ..results import atomic_write_text, canonical_json, make_row, write_results
from ..load_points import DEFAULT_LOW, check_points, fill_loads
from .base import FAILURE_STATUSES, binary_digest, fresh_path, simulator_failed
from .booksim import _override_args, find_booksim, read_config_file, run_booksim

__all__ = ["SweepResult", "sweep_booksim", "point_key", "check_sweep", "sweep_folder_name"]

_POINT_FORMAT = "topogen-booksim-point"
_KEY_VERSION = 1


@dataclass
class SweepResult:
    """Outcome of :func:`sweep_booksim`.

    Attributes
    ----------
    rows : list of dict
        One results row per simulated load, sorted by load.
    zero_load_latency : float
        Packet latency (cycles) at the lowest load.
    saturation_load : float
        Highest load that completed (the bisection's lower bound); ``nan`` if even the
        lowest load was unstable.
    saturation_upper : float
        Lowest load found unstable (``nan`` if none was: saturation is above ``high``).
    results_path : pathlib.Path
        The CSV of all rows (rewritten atomically after every point).
    summary_path : pathlib.Path
        JSON summary.
    """

    rows: list[dict]
    zero_load_latency: float
    saturation_load: float
    saturation_upper: float
    results_path: Path
    summary_path: Path


def _sha256_file(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return f"missing:{path}"


def point_key(config, overrides: Mapping[str, Any] | None = None, binary=None) -> tuple[str, dict]:
    """Content key of one BookSim run.

    Parameters
    ----------
    config : path-like
        Configuration file.
    overrides : mapping, optional
        Command-line options (including ``injection_rate``).
    binary : path-like, optional
        BookSim executable (default: found as :func:`~topogen.drivers.booksim.find_booksim`
        does); ``False`` leaves it out of the key.

    Returns
    -------
    (key, fields)
        ``key`` is a hex SHA-256 of the canonical JSON of ``fields``: the digests of the
        configuration and of the netlist it names (resolved from the configuration's
        folder, where BookSim runs), the override arguments exactly as passed, and the
        executable's digest.
    """
    config = Path(config).resolve()
    options, _ = read_config_file(config)
    fields: dict[str, Any] = {
        "key_version": _KEY_VERSION,
        "config_sha256": _sha256_file(config),
        "overrides": _override_args(overrides),
    }
    net = options.get("network_file")
    if net:
        fields["network_file_sha256"] = _sha256_file(config.parent / net)
    if binary is not False:
        fields["binary_sha256"] = binary_digest(find_booksim(binary))
    key = hashlib.sha256(canonical_json(fields).encode("utf-8")).hexdigest()
    return key, fields


def sweep_folder_name(config, overrides: Mapping[str, Any] | None = None) -> str:
    """``<config stem>_sweep``, plus ``-<digest>`` of the overrides when there are any, so
    sweeps of one configuration with different traffic or options keep separate tables."""
    name = f"{Path(config).stem}_sweep"
    args = _override_args(overrides)
    if args:
        name += "-" + hashlib.sha256("\0".join(args).encode("utf-8")).hexdigest()[:10]
    return name


def check_sweep(low: float, high: float, tolerance: float, max_points: int = 30,
                overrides: Mapping[str, Any] | None = None, points: int = 0) -> None:
    """Refuse impossible sweep settings (before anything is written).

    Raises
    ------
    ParameterError
    """
    if not (0 < low < high <= 1):
        raise ParameterError(f"need 0 < low < high <= 1 for a load sweep (injection rates per node and "
                             f"cycle), got low={low:g}, high={high:g}")
    if not tolerance > 0:
        raise ParameterError(f"tolerance must be > 0, got {tolerance}")
    if max_points < 2:
        raise ParameterError(f"max_points must be at least 2, got {max_points}")
    check_points(points)
    if overrides and "injection_rate" in overrides:
        raise ParameterError("a load sweep sets injection_rate itself; drop it from the overrides")
    _override_args(overrides)  # fixed options refused here


def _rate_key(rate: float) -> str:
    return f"{rate:.6g}"


def _reusable(record: Mapping[str, Any], key: str, timeout: float | None) -> bool:
    """A stored point may stand for this run: same key, and a hang only if this run would
    not wait longer than the run that hung."""
    if record.get("format") != _POINT_FORMAT or record.get("key") != key:
        return False
    row = record.get("row") or {}
    if row.get("status") == "hang":
        hung_after = record.get("timeout_s")
        return hung_after is not None and timeout is not None and timeout <= hung_after
    return row.get("status") in ("completed", "saturated", "deadlock")


def sweep_booksim(
    config,
    out_dir,
    *,
    low: float = DEFAULT_LOW,
    high: float = 1.0,
    tolerance: float = 0.01,
    max_points: int = 30,
    timeout: float | None = 3600.0,
    binary=None,
    resume: bool = True,
    progress=None,
    starting=None,
    overrides: Mapping[str, Any] | None = None,
    points: int = 0,
    **fields,
) -> SweepResult:
    """Find zero-load latency and the saturation load of a configuration by bisection,
    then fill the curve below saturation with evenly spaced loads.

    Runs ``low`` (zero-load latency), then ``high``; if ``high`` is unstable it bisects
    between the highest stable and lowest unstable load until they are within
    ``tolerance``.  Then it simulates the loads of :func:`topogen.load_points.fill_loads`:
    ``points`` evenly spaced loads from ``low`` to 95 % of the highest stable load, but
    for those a point already simulated stands close to.  A load is *stable* if the run
    completed; ``saturated``, ``deadlock`` and ``hang`` count as unstable;
    every other failure (``rejected``, ``crash``, ``incomplete``, ``truncated``,
    ``garbage``, ``implausible``) stops the sweep with
    :class:`~topogen.errors.SimulatorFailed`.

    Every point is stored as ``out_dir/points/rate_<load>-<key>.json`` (atomically; the
    key is :func:`point_key`) with its raw log ``rate_<load>-<key>.log`` beside it (an
    earlier log is never overwritten: ``...<key>.1.log``).  With ``resume=True`` a point
    already stored under the same key is not simulated again, so an interrupted batch job
    can simply be re-run, while a run with other traffic, options, netlist or BookSim
    build simulates afresh.  A stored ``hang`` is reused only when ``timeout`` is not
    longer than the timeout it hung with.

    Parameters
    ----------
    config : path-like
        Base configuration; the load is passed as the ``injection_rate`` override (its unit
        follows the config's ``injection_rate_uses_flits``).
    out_dir : path-like
    low, high : float
        Lowest and highest load (0 < low < high).
    tolerance : float
        Stop when the stable/unstable bracket is narrower than this.
    max_points : int
        Upper bound on simulations (including resumed ones).
    timeout : float or None
        Per-run timeout in seconds.
    binary : path-like, optional
    resume : bool
    progress : callable, optional
        Called as ``progress(load, row)`` after each point.
    starting : callable, optional
        Called as ``starting(load)`` just before a load is simulated (not for a point
        found stored), so progress can name what runs and time the first simulation.
    overrides : mapping, optional
        Further command-line options for every point (``traffic``, ``num_vcs`` ...);
        not ``injection_rate``.
    points : int
        Evenly spaced loads below saturation (0, the default here: bisection only;
        ``topogen run booksim --sweep`` asks for 8).
    **fields
        Extra results columns for every row.

    Returns
    -------
    SweepResult

    Raises
    ------
    ParameterError, SimulatorNotFound, SimulatorFailed
    """
    check_sweep(low, high, tolerance, max_points, overrides, points)
    exe = find_booksim(binary)
    config = Path(config).resolve()
    if not config.is_file():
        raise ParameterError(f"BookSim configuration {config} does not exist")
    base = dict(overrides or {})
    out_dir = Path(out_dir).resolve()
    points_dir = out_dir / "points"
    rows: dict[str, dict] = {}
    results_path = out_dir / "sweep.csv"
    summary_path = out_dir / "sweep.json"
    count = 0

    def point(rate: float) -> dict:
        nonlocal count
        rate_text = _rate_key(rate)
        point_overrides = {**base, "injection_rate": float(rate_text)}
        key, key_fields = point_key(config, point_overrides, exe)
        name = f"rate_{rate_text}-{key[:12]}"
        jpath = points_dir / f"{name}.json"
        record = None
        if resume and jpath.is_file():
            try:
                record = load_json(jpath, what="sweep point record")
            except (OSError, ValueError):  # FormatError (bad, deep or huge JSON) is a ValueError
                record = None  # unreadable: simulate again (the new result replaces it)
        if record is not None and _reusable(record, key, timeout):
            row = make_row(**record["row"])
        else:
            if count >= max_points:
                raise ParameterError(f"load sweep needs more than max_points={max_points} simulations")
            count += 1
            if starting is not None:
                starting(float(rate_text))
            log = fresh_path(points_dir / f"{name}.log", claim=True)
            row = run_booksim(config, overrides=point_overrides, log_path=log, timeout=timeout,
                              binary=exe, raise_on_failure=False, **fields)
            if row["status"] in FAILURE_STATUSES and row["status"] != "hang":
                raise simulator_failed("booksim", row["status"], row["message"], row["raw_output"], row)
            record = {"format": _POINT_FORMAT, "key": key, "key_fields": key_fields,
                      "timeout_s": timeout, "row": _jsonable_row(row)}
            atomic_write_text(jpath, json.dumps(record, sort_keys=True, indent=1) + "\n")
        rows[rate_text] = row
        write_results(results_path, sorted(rows.values(), key=lambda r: r["offered_load"]))
        if progress is not None:
            progress(float(rate_text), row)
        return row

    def stable(row) -> bool:
        return row["status"] == "completed"

    first = point(low)
    zero = first["latency_avg"] if stable(first) else math.nan
    lo, hi = (low, math.nan) if stable(first) else (math.nan, low)
    if stable(first):
        top = point(high)
        if stable(top):
            lo = high
        else:
            hi = high
            while hi - lo > tolerance:
                mid = float(_rate_key((lo + hi) / 2))
                if mid <= lo or mid >= hi:
                    break
                if stable(point(mid)):
                    lo = mid
                else:
                    hi = mid
        for rate in fill_loads(low, lo, points=points, done=[float(k) for k in rows]):
            point(rate)
    result = SweepResult(
        rows=sorted(rows.values(), key=lambda r: r["offered_load"]),
        zero_load_latency=zero,
        saturation_load=lo,
        saturation_upper=hi,
        results_path=results_path,
        summary_path=summary_path,
    )
    summary = {
        "config": os.fspath(config),
        "overrides": _override_args(base),
        "low": low, "high": high, "tolerance": tolerance,
        "zero_load_latency": _json_float(zero),
        "saturation_load": _json_float(lo),
        "saturation_upper": _json_float(hi),
        "load_unit": first["load_unit"],
        "latency_unit": "cycles",
        "points": [r["offered_load"] for r in result.rows],
        "topology": first["topology"],
        "topology_params": json.loads(first["topology_params"]) if first["topology_params"] else None,
        "seed": first["seed"],
        "topogen_version": first["topogen_version"],
    }
    atomic_write_text(summary_path, json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return result


def _json_float(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _jsonable_row(row: Mapping[str, Any]) -> dict:
    return {k: _json_float(v) for k, v in row.items()}
