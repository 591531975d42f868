"""Finding SST (and ``mpirun``), checking what a run is asked for, and judging how an SST
process ended: shared by the ``offered_load`` runs of :mod:`topogen.drivers.sst` and the
``topogen.bernoulli_nic`` runs of :mod:`topogen.drivers.sst_nic`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from .base import RUNAWAY_FACTOR, ProcessResult, find_binary, signal_name
from .sst_output import SSTOutput, parse_stdout

__all__ = ["ENV_VAR", "MPIRUN_ENV_VAR", "find_sst", "find_mpirun", "classify", "judge_process",
           "offered_loads", "bundle_settings"]

ENV_VAR = "TOPOGEN_SST"
MPIRUN_ENV_VAR = "TOPOGEN_MPIRUN"


def find_sst(binary=None) -> str:
    """Path of ``sst``: ``binary``, else ``$TOPOGEN_SST``, else ``sst`` on PATH.

    Raises
    ------
    SimulatorNotFound
    """
    return find_binary("sst", ENV_VAR, binary)


def find_mpirun(binary=None) -> str:
    """Path of ``mpirun``: ``binary``, else ``$TOPOGEN_MPIRUN``, else ``mpirun`` on PATH."""
    return find_binary("mpirun", MPIRUN_ENV_VAR, binary)


def classify(out: SSTOutput, process: ProcessResult | None = None) -> tuple[str, str | None]:
    """Judge how an SST process ended, from its output (and exit).

    Returns
    -------
    (status, message)
        ``completed`` means only that SST finished its simulation; each load is judged
        afterwards (:func:`measure_load`).
    """
    if process is not None and process.runaway:
        return "garbage", (f"SST wrote {process.output_bytes} bytes, more than {RUNAWAY_FACTOR} times the log "
                           "cap: topogen killed it (the log keeps its first and last part)")
    if process is not None and process.timed_out:
        return "hang", f"killed after the {process.wall_time_s:.0f} s timeout"
    if out.errors and not out.complete:
        return "rejected", "; ".join(out.errors[:3])
    if out.fatal:
        return "crash", "; ".join(out.fatal[:2])
    sig = process.signal if process is not None else None
    if sig is not None:
        after = " after 'Simulation is complete'" if out.complete else ""
        return "crash", f"killed by {signal_name(sig)}{after} with no FATAL message from SST"
    rc = process.returncode if process is not None else None
    if out.complete:
        if process is not None and rc != 0:
            return "crash", (f"exit status {rc} after 'Simulation is complete' (SST exits 0 after a run); "
                             "the run is not trusted")
        return "completed", None
    return "incomplete", f"output ended before 'Simulation is complete' (exit status {rc})"


def judge_process(proc: ProcessResult) -> tuple[SSTOutput, str, str | None]:
    """Parse a finished SST process's log and classify the run: ``(output, status, message)``.

    A log that does not parse (a malformed offered-load line) is ``garbage`` with the
    parser's message, unless the process was killed (then :func:`classify` says why).
    """
    from ..errors import FormatError

    try:
        out = parse_stdout(proc.log_path)
    except FormatError as exc:
        out = SSTOutput()
        if not (proc.runaway or proc.timed_out or proc.signal is not None):
            return out, "garbage", str(exc)
    status, message = classify(out, proc)
    return out, status, message


def offered_loads(load, unit: str) -> list:
    """``load`` (one number or several) as a non-empty list of loads in (0, 1]; ``unit``
    follows the range in the error.

    Raises
    ------
    ParameterError
    """
    loads = [load] if isinstance(load, (int, float)) else list(load)
    if not loads:
        raise ParameterError("SST needs at least one offered load")
    for x in loads:
        if isinstance(x, bool) or not (isinstance(x, (int, float)) and 0 < float(x) <= 1.0):
            raise ParameterError(f"SST offered load must be in (0, 1] {unit}, got {x!r}")
    return loads


def bundle_settings(bundle: Mapping[str, Any] | None) -> dict:
    """The settings of an SST bundle that change a run's numbers beside the topology, the
    routes and the cycle: the routers' ``hr_router`` parameters (buffers, latencies,
    crossbar rate and arbiter) and the endpoints' ``linkcontrol`` parameters, as the rows'
    ``params`` record them (``router_params``, ``nic_params``; empty when the bundle has
    none).
    """
    bundle = bundle or {}
    return {"router_params": dict(bundle.get("router_params") or {}),
            "nic_params": dict(bundle.get("nic_params") or {})}
