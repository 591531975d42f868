"""Shared machinery of the simulator drivers: find a binary, run it with a timeout while
keeping its raw output on disk, and report failures with their classification.

A driver never trusts an exit status alone (BookSim exits 255 on success); it runs the
simulator with its output going to a log file (line-buffered through ``stdbuf -oL`` when
available, so messages printed just before an abort are not lost), then judges the outcome
from that log.

The log is capped (:data:`DEFAULT_LOG_CAP`, or ``$TOPOGEN_LOG_CAP`` bytes): past the cap the
first and last halves are kept and one line in between says how many bytes were dropped
(:data:`LOG_CUT_MARK`), so a simulator that writes gigabytes can neither fill the disk nor
make parsing slow.  One that writes more than :data:`RUNAWAY_FACTOR` times the cap is
killed as a runaway.  When the simulator ends, however it ends, its whole process group is
killed, so no child it started outlives the run.

While it runs, an optional :class:`RunMonitor` reads its output line by line and shows
progress: a status line on a terminal (redrawn about once a second: elapsed time and what
the simulator's own output says), or, when stderr is not a terminal, one plain line at
most every :data:`DEFAULT_PROGRESS_INTERVAL` seconds (``$TOPOGEN_PROGRESS_INTERVAL``);
nothing with ``--quiet`` or ``TOPOGEN_QUIET``.
"""

from __future__ import annotations

import collections
import ctypes
import hashlib
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .. import _progress as _progress_module
from ..errors import ParameterError, SimulatorFailed, SimulatorNotFound

__all__ = [
    "ProcessResult",
    "find_binary",
    "run_process",
    "simulator_failed",
    "FAILURE_STATUSES",
    "signal_name",
    "fresh_path",
    "binary_digest",
    "RESULT_STATUSES",
    "DEFAULT_LOG_CAP",
    "LOG_CAP_ENV_VAR",
    "LOG_CUT_MARK",
    "RUNAWAY_FACTOR",
    "log_cap",
    "row_problem",
    "RunMonitor",
    "progress_interval",
    "DEFAULT_PROGRESS_INTERVAL",
    "PROGRESS_INTERVAL_ENV_VAR",
]

#: Statuses that mean the simulator did not produce a usable result: it refused its input
#: (``rejected``), died (``crash``), was stopped at the timeout (``hang``), stopped before
#: its statistics (``incomplete``), or left output that cannot be trusted as a result --
#: statistics cut short (``truncated``), not what the simulator prints (``garbage``: a
#: value that is not a number, or output past the size any run makes), or numbers no run
#: can have (``implausible``: NaN, infinite or negative latencies and rates).
FAILURE_STATUSES = ("rejected", "crash", "hang", "incomplete", "truncated", "garbage", "implausible")

#: Statuses of a run whose output is whole and plausible: a result, never retried.
RESULT_STATUSES = ("completed", "saturated", "deadlock")

#: Bytes of a simulator's output kept in its log by default (64 MiB: the first and last
#: halves when it writes more).
DEFAULT_LOG_CAP = 64 * 2**20
#: Environment variable that changes :data:`DEFAULT_LOG_CAP` (bytes, at least 4096).
LOG_CAP_ENV_VAR = "TOPOGEN_LOG_CAP"
#: A simulator that writes more than this many times the cap is killed as a runaway.
RUNAWAY_FACTOR = 16
#: Start of the line a capped log has where output was dropped.
LOG_CUT_MARK = "[topogen: "
#: Seconds between two plain progress lines of a run whose stderr is not a terminal.
DEFAULT_PROGRESS_INTERVAL = _progress_module.DEFAULT_LOG_INTERVAL
#: Environment variable that changes :data:`DEFAULT_PROGRESS_INTERVAL` (seconds, > 0).
PROGRESS_INTERVAL_ENV_VAR = _progress_module.LOG_INTERVAL_ENV_VAR

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
    output_bytes : int
        Bytes the process wrote (stdout and stderr), kept or not.
    dropped_bytes : int
        Bytes dropped from the middle of the log by the cap (0 when it is whole).
    runaway : bool
        True if topogen killed the process for writing more than
        :data:`RUNAWAY_FACTOR` times the log cap.
    stopped : str or None
        Why topogen stopped the process because its output showed it would never end
        (:attr:`RunMonitor.stop_reason`), else None.
    """

    argv: tuple[str, ...]
    returncode: int | None
    timed_out: bool
    wall_time_s: float
    log_path: Path
    output_bytes: int = 0
    dropped_bytes: int = 0
    runaway: bool = False
    stopped: str | None = None

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


def log_cap() -> int:
    """Bytes of a simulator's output kept in its log: ``$TOPOGEN_LOG_CAP`` or
    :data:`DEFAULT_LOG_CAP`.

    Raises
    ------
    ParameterError
        ``$TOPOGEN_LOG_CAP`` is not a whole number of bytes of at least 4096.
    """
    text = os.environ.get(LOG_CAP_ENV_VAR)
    if not text:
        return DEFAULT_LOG_CAP
    try:
        value = int(text.strip())
    except ValueError:
        value = -1
    if value < 4096:
        raise ParameterError(f"{LOG_CAP_ENV_VAR}={text!r} must be a whole number of bytes, at least 4096 "
                             f"(default {DEFAULT_LOG_CAP}); fix it or unset it")
    return value


def run_process(
    argv: Sequence[str],
    log_path: str | os.PathLike,
    *,
    timeout: float | None,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    line_buffered: bool = True,
    cap: int | None = None,
    monitor: "RunMonitor | None" = None,
) -> ProcessResult:
    """Run a simulator with its output in ``log_path`` and a wall-clock timeout.

    stdout and stderr both go to the log file (kept on disk, never deleted), through a
    pipe that topogen reads: the log keeps at most ``cap`` bytes (the first and the last
    half, with a line starting with :data:`LOG_CUT_MARK` saying how many bytes were dropped
    between them).  The process runs in its own session (its own process group); when it
    ends -- by itself, at the timeout, as a runaway (more than :data:`RUNAWAY_FACTOR`
    times ``cap`` written) or because topogen is interrupted -- the whole group is killed
    (SIGTERM, then SIGKILL after 2 s), so no child it started outlives it.  On Linux it
    also gets ``PR_SET_PDEATHSIG = SIGKILL``, so it dies with topogen even when topogen is
    killed with ``kill -9`` (which leaves no chance to clean up).

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
        Extra environment variables; a value of None removes that variable from the
        simulator's environment.
    line_buffered : bool
        Prefix ``stdbuf -oL -eL`` when ``stdbuf`` exists, so C stdio flushes every line.
    cap : int, optional
        Bytes of output kept in the log (default :func:`log_cap`).
    monitor : RunMonitor, optional
        Shown progress: gets every line of output (:meth:`RunMonitor.feed`) and a
        :meth:`RunMonitor.tick` a few times a second while the process runs; closed when
        it ends.

    Returns
    -------
    ProcessResult
    """
    cap = log_cap() if cap is None else int(cap)
    if cap < 2:
        raise ParameterError(f"the log cap must be at least 2 bytes, got {cap}")
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
        for key, value in env.items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    with open(log_path, "wb") as log:
        sink = _CappedLog(log, cap)
        read_end, write_end = os.pipe()
        proc = None
        try:
            try:
                with _interrupts_held():  # a Ctrl-C while Popen starts the child is raised once proc is known
                    proc = subprocess.Popen(
                        cmd, stdout=write_end, stderr=write_end, stdin=subprocess.DEVNULL,
                        cwd=None if cwd is None else os.fspath(cwd), env=full_env, start_new_session=True,
                        preexec_fn=_die_with_parent_hook(),
                    )
            finally:
                os.close(write_end)
            timed_out = runaway = False
            stopped = None
            timed_out, runaway = _pump(proc, read_end, sink, deadline, cap * RUNAWAY_FACTOR, monitor)
            stopped = monitor.stop_reason if monitor is not None else None
            rc = proc.returncode if not (timed_out or stopped) else None
        finally:
            if proc is None:  # it never started
                os.close(read_end)
            else:
                _kill_group(proc)  # the process and every child it left
                try:
                    _drain(read_end, sink, monitor=monitor)
                finally:
                    os.close(read_end)
                    sink.close()
                    if monitor is not None:
                        monitor.close()
    return ProcessResult(tuple(cmd), rc, timed_out, time.monotonic() - start, log_path,
                         output_bytes=sink.total, dropped_bytes=sink.dropped, runaway=runaway, stopped=stopped)


_CHUNK = 1 << 20


def _pump(proc: subprocess.Popen, fd: int, sink: "_CappedLog", deadline: float | None,
          runaway_bytes: int, monitor: "RunMonitor | None" = None) -> tuple[bool, bool]:
    """Copy the child's output into ``sink`` (and its lines to ``monitor``) until it exits
    (then its group is killed and the pipe drained by the caller).  Returns
    ``(timed_out, runaway)``; the process has ended (reaped) when it returns
    ``(False, False)``."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    eof = False
    while True:
        if monitor is not None:
            monitor.tick()
        if proc.poll() is not None:
            return False, False
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return True, False
        wait_s = 0.2 if deadline is None else max(0.0, min(0.2, deadline - now))
        if eof:  # the output is closed, the process still runs: just wait for it
            try:
                proc.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                pass
            continue
        if not poller.poll(wait_s * 1000):
            continue
        if not _take(fd, sink, monitor):
            eof = True
            continue
        if monitor is not None and monitor.stop_reason:  # its output says it will never end
            return False, False
        if sink.total > runaway_bytes:
            return False, True


def _drain(fd: int, sink: "_CappedLog", limit_s: float = 2.0, monitor: "RunMonitor | None" = None) -> None:
    """Read what is left in the pipe (the group is dead; a process that escaped the group
    and keeps the pipe open is not waited for longer than ``limit_s``)."""
    end = time.monotonic() + limit_s
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while True:
        left = end - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000) or not _take(fd, sink, monitor):
            return


def _take(fd: int, sink: "_CappedLog", monitor: "RunMonitor | None") -> bool:
    """Read what the pipe holds into ``sink`` (and its lines to ``monitor``); False at its end."""
    data = os.read(fd, _CHUNK)
    if not data:
        return False
    sink.write(data)
    if monitor is not None:
        monitor.feed_bytes(data)
    return True


def progress_interval() -> float:
    """Seconds between two plain progress lines when stderr is not a terminal:
    ``$TOPOGEN_PROGRESS_INTERVAL`` or :data:`DEFAULT_PROGRESS_INTERVAL`
    (:func:`topogen._progress.log_interval`, the one reading of it).

    Raises
    ------
    ParameterError
        ``$TOPOGEN_PROGRESS_INTERVAL`` is not a number of seconds above 0.
    """
    return _progress_module.log_interval()


class RunMonitor:
    """Progress of one simulator run, shown while it runs.

    :func:`run_process` passes it every line the simulator prints (:meth:`feed`) and calls
    :meth:`tick` a few times a second.  On a terminal (stderr a TTY) a status line is
    redrawn about once a second with :class:`topogen._progress.Progress` (elapsed time,
    then :meth:`state`); otherwise one plain line, ``"<name>: 45 s elapsed, <state>"``, is
    written at most every ``interval`` seconds, so a batch log hears from a long run
    without being flooded.  Nothing is shown when progress is quiet (``--quiet``,
    ``TOPOGEN_QUIET``) or ``quiet=True``.

    Subclasses read the simulator's own output in :meth:`feed` and describe it in
    :meth:`state` (sample period, simulated time ...).

    Parameters
    ----------
    name : str
        Label of the lines (``"booksim"``).
    point : str
        What is being run (``"load 0.05"``), shown first in the state.
    stream : file object, optional
        Where to write (default ``sys.stderr``).
    interval : float, optional
        Seconds between plain lines (default :func:`progress_interval`).
    quiet : bool, optional
        True to show nothing; None follows ``--quiet`` / ``TOPOGEN_QUIET``.
    """

    #: Seconds between redraws of the terminal line.
    redraw_s = 1.0
    #: Set by :meth:`feed` when the output shows the run will never end by itself:
    #: :func:`run_process` then stops it (:attr:`ProcessResult.stopped`).
    stop_reason: str | None = None

    def __init__(self, name: str, *, point: str = "", stream=None, interval: float | None = None,
                 quiet: bool | None = None):
        from .. import _progress

        self.name = name
        self.point = point
        self.stream = sys.stderr if stream is None else stream
        self.quiet = _progress.is_quiet() if quiet is None else bool(quiet)
        self.interval = progress_interval() if interval is None else float(interval)
        self.tty = not self.quiet and _progress.enabled(self.stream)
        self._bar = _progress.Progress(desc=name, stream=self.stream) if self.tty else None
        self.start = time.monotonic()
        self._last_line = self.start
        self._last_draw = 0.0
        self._partial = b""
        self._closed = False

    # ------------------------------------------------------------ output of the simulator
    def feed_bytes(self, data: bytes) -> None:
        """Split raw output into lines for :meth:`feed` (an unfinished line waits)."""
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()[-4096:]
        for raw in lines:
            self.feed(raw[:4096].decode("utf-8", "replace").rstrip("\r"))

    def feed(self, line: str) -> None:
        """One line of the simulator's output (subclasses read it)."""

    def state(self) -> str:
        """What the output says so far, as text after the elapsed time ("" when nothing)."""
        return ""

    # ------------------------------------------------------------ showing
    def elapsed(self) -> float:
        """Seconds since the monitor was made."""
        return time.monotonic() - self.start

    def _state_text(self) -> str:
        return ", ".join(p for p in (self.point, self.state()) if p)

    def tick(self) -> None:
        """Redraw the terminal line, or write a plain line when ``interval`` has passed."""
        if self.quiet or self._closed:
            return
        now = time.monotonic()
        if self._bar is not None:
            if now - self._last_draw >= self.redraw_s:
                self._last_draw = now
                self._bar.status(self._state_text())
            return
        if now - self._last_line >= self.interval:
            self._last_line = now
            state = self._state_text()
            self._write(f"{self.name}: {self.elapsed():.0f} s elapsed" + (f", {state}" if state else "") + "\n")

    def close(self) -> None:
        """Erase the terminal line; nothing is shown afterwards."""
        if self._bar is not None:
            self._bar.close()
        self._closed = True

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: stop showing
            self.quiet = True


class _CappedLog:
    """Writes a stream to a file, keeping the first half of ``cap`` bytes (as they come) and
    the last half (in memory until :meth:`close`); the bytes between are counted, and a
    note line takes their place.  The kept head ends and the kept tail starts at a line
    boundary when there is one, so no number is cut in two."""

    def __init__(self, fh, cap: int):
        self.fh = fh
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = 0  # bytes written to the file
        self.head_line_end = 0  # file offset after the last newline written
        self.tail: collections.deque[bytes] = collections.deque()
        self.tail_len = 0
        self.total = 0
        self.dropped = 0

    def write(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_cap - self.head
        if room > 0:
            part = data[:room]
            self.fh.write(part)
            nl = part.rfind(b"\n")
            if nl >= 0:
                self.head_line_end = self.head + nl + 1
            self.head += len(part)
            data = data[room:]
            if not data:
                return
        self.tail.append(data)
        self.tail_len += len(data)
        while self.tail and self.tail_len - len(self.tail[0]) >= self.tail_cap:
            self.tail_len -= len(self.tail.popleft())

    def close(self) -> None:
        tail = b"".join(self.tail)
        kept = tail[-self.tail_cap:] if self.tail_cap else b""
        dropped = self.total - self.head - len(kept)
        if dropped > 0:
            if self.head_line_end:  # end the head at its last whole line
                dropped += self.head - self.head_line_end
                self.fh.truncate(self.head_line_end)
                self.fh.seek(self.head_line_end)
            nl = kept.find(b"\n")
            if 0 <= nl < len(kept) - 1:  # start the tail at its first whole line
                dropped += nl + 1
                kept = kept[nl + 1:]
            self.dropped = dropped
            note = (f"\n{LOG_CUT_MARK}{dropped} bytes of output dropped here: the log keeps the first "
                    f"and the last {self.head_cap} bytes of {self.total} ({LOG_CAP_ENV_VAR} sets the cap)]\n")
            self.fh.write(note.encode("ascii"))
        self.fh.write(kept)
        self.fh.flush()


class _interrupts_held:
    """Hold SIGINT (Ctrl-C, ``_thread.interrupt_main``) for the body and raise it after: the
    child's process group is then known and killed, where a KeyboardInterrupt inside
    ``Popen`` (after the fork) would leave the simulator running.  Only the main thread
    can install handlers; elsewhere the body runs as is."""

    def __enter__(self):
        import threading

        self.held = []
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, lambda signum, frame: self.held.append(frame))
        return self

    def __exit__(self, *exc):
        if self.previous is None:
            return False
        signal.signal(signal.SIGINT, self.previous)
        if self.held:  # delivered now, as it would have been, to the handler it was meant for
            if callable(self.previous):
                self.previous(signal.SIGINT, self.held[0])
            elif self.previous == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)
        return False


def _kill_group(proc: subprocess.Popen) -> None:
    """End ``proc`` (SIGTERM, SIGKILL after 2 s) and then every process left in its group
    (SIGKILL): children a simulator started must not outlive it, however it ended."""
    if proc.poll() is None:
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            pass
    _signal_group(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass


def _signal_group(pgid: int, sig) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


#: numbers of a results row that no run can have negative or infinite
_MEASURES = ("latency_avg", "latency_min", "latency_max", "latency_p50", "latency_p90", "latency_p99",
             "network_latency_avg", "network_latency_min", "network_latency_max", "flit_latency_avg",
             "accepted_load", "injected_load", "accepted_flit_rate", "injected_flit_rate", "hops_avg")


def row_problem(row) -> tuple[str, str] | None:
    """Why a results row is not a finished result, or None when it is one.

    Returns
    -------
    (kind, message) or None
        ``kind`` is the row's status when that is not a result status
        (:data:`~topogen.drivers.base.RESULT_STATUSES`), or ``implausible`` for a result
        with a negative or infinite number, or a completed one without a finite latency.
    """
    if not isinstance(row, dict):
        return "garbage", f"not a results row: {type(row).__name__}"
    status = row.get("status")
    if status not in RESULT_STATUSES:
        return str(status), row.get("message") or f"status {status}"
    for col in _MEASURES:
        v = row.get(col)
        if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if math.isinf(v) or v < 0:
            return "implausible", f"{col} = {v:g} in a {status} row"
    if status == "completed":
        lat = row.get("latency_avg")
        if not isinstance(lat, (int, float)) or not math.isfinite(lat):
            return "implausible", f"a completed row without a finite latency_avg ({lat!r})"
    return None


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
