"""Shared machinery of the simulator drivers: find a binary, run it with a timeout while
keeping its raw output on disk, and report failures with their classification.

A driver never trusts an exit status alone (BookSim exits 255 on success); it runs the
simulator with its output going straight to a log file (line-buffered through
``stdbuf -oL`` when available, so messages printed just before an abort are not lost),
then judges the outcome from that log.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import SimulatorFailed, SimulatorNotFound

__all__ = [
    "ProcessResult",
    "find_binary",
    "run_process",
    "simulator_failed",
    "FAILURE_STATUSES",
    "signal_name",
    "fresh_path",
    "binary_digest",
]

#: Statuses that mean the simulator did not produce a usable result.
FAILURE_STATUSES = ("rejected", "crash", "hang", "incomplete")

# exit codes a shell reports for a child killed by a signal (128 + n)
_CRASH_SIGNALS = {signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL,
                  signal.SIGKILL, signal.SIGTERM}


@dataclass(frozen=True)
class ProcessResult:
    """How a simulator process ended.

    Attributes
    ----------
    argv : tuple of str
        The command that ran (after any ``stdbuf`` prefix).
    returncode : int or None
        Exit status; negative for a signal (Python convention); None after a timeout.
    timed_out : bool
        True if topogen killed the process at its timeout.
    wall_time_s : float
        Wall-clock seconds.
    log_path : pathlib.Path
        File holding the raw stdout and stderr.
    """

    argv: tuple[str, ...]
    returncode: int | None
    timed_out: bool
    wall_time_s: float
    log_path: Path

    @property
    def signal(self) -> int | None:
        """Signal number that killed the process (also for a shell's ``128 + n``), else None."""
        rc = self.returncode
        if rc is None:
            return None
        if rc < 0:
            return -rc
        if rc > 128 and (rc - 128) in {int(s) for s in _CRASH_SIGNALS}:
            return rc - 128
        return None


def signal_name(number: int | None) -> str:
    """``"SIGSEGV"`` for 11, ``"signal 99"`` for unknown numbers, ``""`` for None."""
    if number is None:
        return ""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def find_binary(name: str, env_var: str, explicit: str | os.PathLike | None = None) -> str:
    """Locate a simulator executable.

    Parameters
    ----------
    name : str
        Executable name looked up on ``PATH`` (``booksim``, ``sst``, ``mpirun``).
    env_var : str
        Environment variable that may hold its path (``TOPOGEN_BOOKSIM``, ``TOPOGEN_SST``).
    explicit : path-like, optional
        A path given by the caller; takes precedence over both.

    Returns
    -------
    str
        Absolute path of the executable.

    Raises
    ------
    SimulatorNotFound
        With a one-line message naming what was looked for and how to point topogen at it.
    """
    if explicit is not None:
        found = _executable(explicit)
        if found is None:
            raise SimulatorNotFound(
                f"{name} binary {os.fspath(explicit)!r} does not exist or is not executable; "
                f"pass the path of a working {name}, set {env_var}, or put {name} on PATH"
            )
        return found
    value = os.environ.get(env_var)
    if value:
        found = _executable(value)
        if found is None:
            raise SimulatorNotFound(
                f"{env_var}={value!r} does not name an executable {name}; "
                f"fix {env_var} or unset it to use {name} from PATH"
            )
        return found
    found = shutil.which(name)
    if found is None:
        raise SimulatorNotFound(
            f"{name} not found: {env_var} is not set and there is no '{name}' on PATH; "
            f"install it and set {env_var}=/path/to/{name} or add its folder to PATH"
        )
    return os.path.abspath(found)


def _executable(path) -> str | None:
    p = os.fspath(path)
    if os.sep not in p and not os.path.exists(p):
        found = shutil.which(p)
        return os.path.abspath(found) if found else None
    p = os.path.abspath(os.path.expanduser(p))
    if os.path.isfile(p) and os.access(p, os.X_OK):
        return p
    return None


def numbered(path: Path):
    """``path``, then ``<stem>.1<suffix>``, ``<stem>.2<suffix>`` ...: the names
    :func:`fresh_path` chooses from, in its order (an endless iterator)."""
    yield path
    k = 1
    while True:
        yield path.with_name(f"{path.stem}.{k}{path.suffix}")
        k += 1


def fresh_path(path: str | os.PathLike, *, claim: bool = False) -> Path:
    """``path`` made absolute, or ``<stem>.1<suffix>``, ``<stem>.2<suffix>`` ... if it exists.

    Raw simulator output is never overwritten: a results row written earlier may name it.

    Parameters
    ----------
    path : path-like
    claim : bool
        Create the chosen file (empty, exclusively), so that two processes choosing a name
        at the same moment never get the same one.  Parent folders are created.

    Returns
    -------
    pathlib.Path
        An absolute path that did not exist before the call (created if ``claim``).
    """
    path = Path(path).resolve()
    if claim:
        path.parent.mkdir(parents=True, exist_ok=True)
    for candidate in numbered(path):
        if not claim:
            if not candidate.exists():
                return candidate
            continue
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return candidate


_BINARY_DIGESTS: dict[tuple, str] = {}


def binary_digest(path: str | os.PathLike) -> str:
    """SHA-256 of an executable's bytes (cached per path, size and modification time).

    Used in resume keys, so that results of one simulator build are not reused for another.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    str
        Hex digest, or ``"unreadable:<path>"`` if the file cannot be read.
    """
    p = os.path.realpath(os.fspath(path))
    try:
        st = os.stat(p)
    except OSError:
        return f"unreadable:{p}"
    ident = (p, st.st_size, st.st_mtime_ns, st.st_ino)
    if ident not in _BINARY_DIGESTS:
        h = hashlib.sha256()
        try:
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            return f"unreadable:{p}"
        _BINARY_DIGESTS[ident] = h.hexdigest()
    return _BINARY_DIGESTS[ident]


_PR_SET_PDEATHSIG = 1


def _die_with_parent_hook():
    """A ``preexec_fn`` that makes the child receive SIGKILL when topogen dies (Linux
    ``prctl(PR_SET_PDEATHSIG)``), or None where that is not available.

    The parent's pid is checked after the call: if topogen died between ``fork`` and
    ``prctl``, the child kills itself.  Note that Linux sends the signal when the *thread*
    that started the child ends, so simulators must be started from a thread that lives
    as long as the run (run_process waits for the child in that same thread).
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent = os.getpid()
    kill_sig = int(signal.SIGKILL)

    def hook():  # runs in the child between fork and exec
        prctl(_PR_SET_PDEATHSIG, kill_sig, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), kill_sig)

    return hook


def run_process(
    argv: Sequence[str],
    log_path: str | os.PathLike,
    *,
    timeout: float | None,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    line_buffered: bool = True,
) -> ProcessResult:
    """Run a simulator with its output in ``log_path`` and a wall-clock timeout.

    stdout and stderr both go to the log file (kept on disk, never deleted).  The process
    runs in its own session (its own process group) so that a timeout kills it and all its
    children (SIGTERM, then SIGKILL after 2 s); on Linux it also gets
    ``PR_SET_PDEATHSIG = SIGKILL``, so it dies with topogen even when topogen is killed
    with ``kill -9`` (which leaves no chance to clean up).

    Parameters
    ----------
    argv : sequence of str
        Command and arguments.
    log_path : path-like
        Raw output file (created or truncated; parent folders are created).
    timeout : float or None
        Seconds before the run is declared hung and killed.
    cwd : path-like, optional
        Working directory.
    env : dict, optional
        Extra environment variables.
    line_buffered : bool
        Prefix ``stdbuf -oL -eL`` when ``stdbuf`` exists, so C stdio flushes every line.

    Returns
    -------
    ProcessResult
    """
    log_path = Path(log_path).resolve()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [os.fspath(a) for a in argv]
    if line_buffered:
        stdbuf = shutil.which("stdbuf")
        if stdbuf:
            cmd = [stdbuf, "-oL", "-eL", *cmd]
    full_env = None
    if env:
        full_env = dict(os.environ)
        full_env.update(env)
    start = time.monotonic()
    timed_out = False
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=None if cwd is None else os.fspath(cwd), env=full_env, start_new_session=True,
            preexec_fn=_die_with_parent_hook(),
        )
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            rc = None
        except BaseException:
            _kill_group(proc)
            raise
    return ProcessResult(tuple(cmd), rc, timed_out, time.monotonic() - start, log_path)


def _kill_group(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def simulator_failed(simulator: str, status: str, message: str | None, log_path, row=None) -> SimulatorFailed:
    """A :class:`~topogen.errors.SimulatorFailed` carrying the classification.

    The message is one line: ``"<simulator> <status>: <message> (raw output: <log>)"``.
    The exception has attributes ``simulator``, ``status``, ``detail``, ``log_path`` and
    ``row`` (the results row, if one was made).
    """
    detail = (message or "").strip()
    text = f"{simulator} {status}"
    if detail:
        text += f": {detail}"
    text += f" (raw output: {log_path})"
    err = SimulatorFailed(text)
    err.simulator = simulator
    err.status = status
    err.detail = detail
    err.log_path = Path(log_path) if log_path is not None else None
    err.row = row
    return err
