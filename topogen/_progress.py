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

Nothing is drawn when stderr is not a TTY (batch jobs, pipes, pytest capture), when
:func:`set_quiet` was called with True (the CLI's ``--quiet``), or when the environment
variable ``TOPOGEN_QUIET`` is set to a non-empty value other than ``0``.  Drawing is
throttled (at most ~10 redraws per second), so wrapping a hot loop is cheap.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Iterable, Iterator, TextIO, TypeVar

T = TypeVar("T")

_QUIET = False

__all__ = ["Progress", "progress", "set_quiet", "is_quiet", "enabled"]


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


def _fmt_time(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """A progress bar (known total) or counter/status line (unknown total) on stderr.

    Use as a context manager; the line is cleared on exit.  All methods are no-ops
    when progress is disabled (see the module docstring), so callers never need to
    check.

    Parameters
    ----------
    total : int, optional
        Number of steps; None shows a counter instead of a bar.
    desc : str
        Label at the start of the line.
    quiet : bool, optional
        Force silence (True) regardless of the global setting; None follows it.
    stream : file object, optional
        Where to draw (default ``sys.stderr``); drawn only if it is a TTY.
    min_interval : float
        Minimum seconds between redraws.
    """

    def __init__(self, total: int | None = None, desc: str = "", *, quiet: bool | None = None,
                 stream: TextIO | None = None, min_interval: float = 0.1):
        self.total = None if total is None else int(total)
        self.desc = desc
        self.count = 0
        self._stream = sys.stderr if stream is None else stream
        self._active = (not quiet) and enabled(self._stream)
        self._min_interval = float(min_interval)
        self._start = time.monotonic()
        self._last = 0.0
        self._status = ""
        self._width = 0

    # ------------------------------------------------------------------ API
    @property
    def active(self) -> bool:
        """True if this bar draws anything."""
        return self._active

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps (redrawn at most every ``min_interval`` seconds)."""
        self.count += n
        if self._active:
            now = time.monotonic()
            if now - self._last >= self._min_interval or (self.total is not None and self.count >= self.total):
                self._last = now
                self._draw()

    def status(self, text: str) -> None:
        """Show ``text`` after the bar (e.g. the current item)."""
        self._status = str(text)
        if self._active:
            self._last = time.monotonic()
            self._draw()

    def close(self) -> None:
        """Erase the line; further updates draw nothing."""
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
        if not bar.active:
            yield from iterable
            return
        for item in iterable:
            yield item
            bar.update()
