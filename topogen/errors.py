"""The topogen exception hierarchy.

Every error topogen raises on purpose is a :class:`TopogenError`.  The CLI prints
its message on one line (no traceback) and exits with :attr:`TopogenError.exit_code`.
Messages say what was wrong *and* how to fix it.
"""

from __future__ import annotations


class TopogenError(Exception):
    """Base class of all topogen errors."""

    exit_code = 1


class ParameterError(TopogenError, ValueError):
    """An invalid parameter: the message names it and its valid range."""

    exit_code = 2


class FormatError(TopogenError, ValueError):
    """A malformed input file; the message names the file and the line."""

    exit_code = 3

    def __init__(self, message: str, *, path=None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class OutputError(ParameterError):
    """An output location topogen refuses to write: it would replace an input, a
    non-empty folder (without ``--force``) or something that is not a file of its kind.
    Exit status 74, like the CLI's other file errors."""

    exit_code = 74


class TopologyError(TopogenError):
    """A topology that cannot be used for the requested operation (e.g. disconnected)."""

    exit_code = 4


class RoutingError(TopogenError):
    """A routing that cannot be computed or is not deadlock-free as required."""

    exit_code = 5


class SimulatorNotFound(TopogenError):
    """An external simulator binary could not be found."""

    exit_code = 6


class SimulatorFailed(TopogenError):
    """An external simulator crashed, hung, or rejected its input."""

    exit_code = 7


class DeadlockError(TopogenError):
    """A simulation made no progress: the network deadlocked."""

    exit_code = 8
