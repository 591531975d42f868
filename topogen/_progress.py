"""Progress display for long work: a bar or status line on stderr, only on a terminal.

Library code reports progress through this module and never prints otherwise::

    from topogen._progress import progress, Progress

    for source in progress(range(n), desc="all-pairs BFS"):
        ...

    with Progress(total=len(runs), desc="simulating") as bar:
        for run in runs:
            ...
            bar.update()
            bar.status(f"load {run.load:.2f}")   # text after the bar

On a terminal the line is redrawn in place, at most ~10 times a second, so wrapping a
hot loop is cheap.  When stderr is not a terminal (a batch job's log, a pipe, a file) the
work is reported as plain log lines instead: one whenever :func:`log_interval` seconds
(``$TOPOGEN_PROGRESS_INTERVAL``, default 60) pass without one, so a long step is never
silent for longer, and with ``log_steps=True`` also one per step (a simulated point, an
experiment point)::

    sweep: 3/9 (33%), 01:12 elapsed, eta 02:24; load 0.3: completed

Nothing at all is written when :func:`set_quiet` was called with True (the CLI's
``--quiet``), or when the environment variable ``TOPOGEN_QUIET`` is set to a non-empty
value other than ``0``.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import weakref
from typing import Iterable, Iterator, TextIO, TypeVar

T = TypeVar("T")

_QUIET = False

#: Held while a log line is written; a fork waits for it, so no child starts with a write of
#: the heartbeat thread half done (and the stream's own lock held forever).
_WRITE_LOCK = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_WRITE_LOCK.acquire, after_in_parent=_WRITE_LOCK.release,
                        after_in_child=_WRITE_LOCK.release)

__all__ = ["Progress", "progress", "set_quiet", "is_quiet", "enabled", "log_interval",
           "DEFAULT_LOG_INTERVAL", "LOG_INTERVAL_ENV_VAR"]

#: Seconds between two plain progress lines when stderr is not a terminal.
DEFAULT_LOG_INTERVAL = 60.0
#: Environment variable that changes :data:`DEFAULT_LOG_INTERVAL` (seconds, > 0).
LOG_INTERVAL_ENV_VAR = "TOPOGEN_PROGRESS_INTERVAL"


def set_quiet(quiet: bool = True) -> None:
    """Silence (or re-enable) all progress output of this process.

    Parameters
    ----------
    quiet : bool
        True to draw nothing, False to draw on a terminal again.
    """
    global _QUIET
    _QUIET = bool(quiet)


def is_quiet() -> bool:
    """True if progress was silenced by :func:`set_quiet` or ``TOPOGEN_QUIET``."""
    env = os.environ.get("TOPOGEN_QUIET", "")
    return _QUIET or (env not in ("", "0"))


def enabled(stream: TextIO | None = None) -> bool:
    """True if progress would be drawn on ``stream`` (default: ``sys.stderr``).

    Parameters
    ----------
    stream : file object, optional
        The stream to test; it must be a TTY.
    """
    if is_quiet():
        return False
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def log_interval() -> float:
    """Seconds between two plain progress lines when stderr is not a terminal:
    ``$TOPOGEN_PROGRESS_INTERVAL`` or :data:`DEFAULT_LOG_INTERVAL`.

    Raises
    ------
    ParameterError
        ``$TOPOGEN_PROGRESS_INTERVAL`` is not a number of seconds above 0.
    """
    text = os.environ.get(LOG_INTERVAL_ENV_VAR)
    if not text:
        return DEFAULT_LOG_INTERVAL
    try:
        value = float(text.strip())
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        from .errors import ParameterError

        raise ParameterError(f"{LOG_INTERVAL_ENV_VAR}={text!r} must be a number of seconds above 0 "
                             f"(default {DEFAULT_LOG_INTERVAL:g}); fix it or unset it")
    return value


def _fmt_time(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """A progress bar (known total) or counter/status line (unknown total) on stderr.

    Use as a context manager; the line is cleared on exit.  On a terminal the line is
    redrawn in place; otherwise plain log lines are written (see the module docstring):
    one when :func:`log_interval` seconds pass without a line (from a background thread,
    so a step that runs for minutes still reports), and one per :meth:`update` with
    ``log_steps=True``.  All methods are no-ops when progress is quiet, so callers never
    need to check.

    Parameters
    ----------
    total : int, optional
        Number of steps; None shows a counter instead of a bar.
    desc : str
        Label at the start of the line.
    quiet : bool, optional
        Force silence (True) regardless of the global setting; None follows it.
    stream : file object, optional
        Where to draw (default ``sys.stderr``); a bar is drawn only if it is a TTY, log
        lines otherwise.
    min_interval : float
        Minimum seconds between redraws.
    log_steps : bool
        Not on a terminal: also write a line at every :meth:`update` (each step is a
        point of a sweep or an experiment, worth a line in a batch log).
    interval : float, optional
        Not on a terminal: seconds without a line before one is written (default
        :func:`log_interval`).
    """

    def __init__(self, total: int | None = None, desc: str = "", *, quiet: bool | None = None,
                 stream: TextIO | None = None, min_interval: float = 0.1, log_steps: bool = False,
                 interval: float | None = None):
        self.total = None if total is None else int(total)
        self.desc = desc
        self.count = 0
        self._stream = sys.stderr if stream is None else stream
        silent = bool(quiet) or is_quiet()
        self._active = not silent and enabled(self._stream)
        self._logging = not silent and not self._active
        self._log_steps = bool(log_steps)
        self._min_interval = float(min_interval)
        self._start = time.monotonic()
        self._last = 0.0
        self._status = ""
        self._width = 0
        self._stop = threading.Event()
        self._state = threading.Lock()  # count and status change together (the heartbeat reads them)
        self._last_log = self._start
        if self._logging:
            self._interval = log_interval() if interval is None else float(interval)
            _Heartbeat(self).start()

    # ------------------------------------------------------------------ API
    @property
    def active(self) -> bool:
        """True if this bar draws on a terminal."""
        return self._active

    @property
    def logging(self) -> bool:
        """True if this bar writes plain log lines (stderr is not a terminal, not quiet)."""
        return self._logging

    def update(self, n: int = 1, status: str | None = None) -> None:
        """Advance by ``n`` steps (redrawn at most every ``min_interval`` seconds; a log
        line per call with ``log_steps``); ``status`` replaces the status text at the same
        moment, so no line shows the new text with the old count."""
        with self._state:
            self.count += n
            if status is not None:
                self._status = str(status)
        if self._active:
            now = time.monotonic()
            if now - self._last >= self._min_interval or (self.total is not None and self.count >= self.total):
                self._last = now
                self._draw()
        elif self._logging and self._log_steps and n:
            self._log()

    def status(self, text: str) -> None:
        """Show ``text`` after the bar (e.g. the current item); in log lines, the next
        line carries it."""
        self._status = str(text)
        if self._active:
            self._last = time.monotonic()
            self._draw()

    def log(self, text: str) -> None:
        """Write ``text`` as a line of its own now (on a terminal above the bar, which is
        redrawn; in a log as a plain line); nothing when quiet."""
        if self._active:
            self._write("\r" + " " * self._width + "\r" + text + "\n")
            self._width = 0
            self._draw()
        elif self._logging:
            self._emit(text)

    def close(self) -> None:
        """Erase the line; further updates draw nothing."""
        self._stop.set()
        self._logging = False
        if self._active:
            self._write("\r" + " " * self._width + "\r")
            self._active = False

    def __enter__(self) -> "Progress":
        if self._active:
            self._draw()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ drawing
    def line(self) -> str:
        """The text of the progress line as it would be drawn now."""
        elapsed = time.monotonic() - self._start
        head = f"{self.desc}: " if self.desc else ""
        if self.total:
            frac = min(self.count / self.total, 1.0)
            width = 24
            filled = int(frac * width)
            bar = "#" * filled + "-" * (width - filled)
            eta = ""
            if 0 < self.count < self.total:
                eta = f" eta {_fmt_time(elapsed * (self.total - self.count) / self.count)}"
            text = f"{head}[{bar}] {self.count}/{self.total} {frac:4.0%} {_fmt_time(elapsed)}{eta}"
        elif self.count:
            text = f"{head}{self.count} {_fmt_time(elapsed)}"
        else:  # a plain status line: "generating torus ... 00:03"
            text = f"{self.desc} ... {_fmt_time(elapsed)}" if self.desc else _fmt_time(elapsed)
        if self._status:
            text += f"  {self._status}"
        return text

    def log_line(self) -> str:
        """The text of a plain log line as it would be written now (no bar, no redraw):
        ``desc: 3/9 (33%), 01:12 elapsed, eta 02:24; status``."""
        elapsed = time.monotonic() - self._start
        parts = []
        if self.total:
            parts.append(f"{self.count}/{self.total} ({min(self.count / self.total, 1.0):.0%})")
        elif self.count:
            parts.append(f"{self.count} done")
        parts.append(f"{_fmt_time(elapsed)} elapsed")
        if self.total and 0 < self.count < self.total:
            parts.append(f"eta {_fmt_time(elapsed * (self.total - self.count) / self.count)}")
        text = (f"{self.desc}: " if self.desc else "") + ", ".join(parts)
        if self._status:
            text += f"; {self._status}"
        return text

    def _log(self) -> None:
        with self._state:
            text = self.log_line()
        self._emit(text)

    def _emit(self, text: str) -> None:
        with _WRITE_LOCK:
            if not self._logging:
                return
            self._last_log = time.monotonic()
            try:
                self._stream.write(text + "\n")
                self._stream.flush()
            except (OSError, ValueError):  # closed or broken stream: stop writing
                self._logging = False

    def _beat(self) -> bool:
        """Write a line when ``interval`` passed without one; False once closed."""
        if not self._logging:
            return False
        if time.monotonic() - self._last_log >= self._interval:
            self._log()
        return self._logging

    def _draw(self) -> None:
        text = self.line()
        try:
            cols = os.get_terminal_size(self._stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            cols = 0
        if cols <= 0:  # unknown width (e.g. a pseudo-terminal without size)
            cols = 80
        text = text[: max(cols - 1, 10)]
        pad = max(self._width - len(text), 0)
        self._width = len(text)
        self._write("\r" + text + " " * pad)

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # closed or broken stream: stop drawing
            self._active = False


class _Heartbeat(threading.Thread):
    """The background thread of a logging :class:`Progress`: wakes a few times per
    interval and lets the bar write a line when none was written for ``interval``
    seconds.  It holds the bar only weakly and ends when the bar is closed or dropped,
    so a bar that is never closed cannot keep writing."""

    def __init__(self, bar: Progress):
        super().__init__(name=f"progress-log {bar.desc}", daemon=True)
        self._bar = weakref.ref(bar)
        self._stop_event = bar._stop
        self._tick = max(0.01, min(1.0, bar._interval / 4))

    def run(self) -> None:
        while not self._stop_event.wait(self._tick):
            bar = self._bar()
            if bar is None or not bar._beat():
                return
            del bar


def progress(iterable: Iterable[T], desc: str = "", *, total: int | None = None,
             quiet: bool | None = None, stream: TextIO | None = None) -> Iterator[T]:
    """Iterate over ``iterable`` while showing a progress bar on a terminal.

    Parameters
    ----------
    iterable : iterable
        The items to yield.
    desc : str
        Label of the bar.
    total : int, optional
        Number of items; taken from ``len(iterable)`` when it has one.
    quiet : bool, optional
        Force silence (True); None follows :func:`set_quiet` / ``TOPOGEN_QUIET``.
    stream : file object, optional
        Where to draw (default ``sys.stderr``).

    Yields
    ------
    object
        The items of ``iterable``, unchanged.
    """
    if total is None:
        try:
            total = len(iterable)  # type: ignore[arg-type]
        except TypeError:
            total = None
    with Progress(total, desc, quiet=quiet, stream=stream) as bar:
        if not (bar.active or bar.logging):
            yield from iterable
            return
        for item in iterable:
            yield item
            bar.update()
