"""Strings from users and files, made safe for the files topogen generates.

A value a user controls (a topology name from a colleague's file, an experiment name, a
path) can reach a line-oriented file: a ``//`` comment of a BookSim configuration, a ``#``
comment of a job script, a header line.  A line break inside it would end the comment and
start a line the reader executes or obeys (``stats_out = /any/file;`` in BookSim, a shell
command in ``job.sh``).  Every such value goes through this module:

* :func:`one_line` renders it on one line, escaping every control, format and line or
  paragraph separator character the way Python's ``repr`` does (``\\n``, ``\\x1b``,
  ``\\u2028``): nothing can start a new line in any reader (bash, flex, Python's
  ``str.splitlines``, editors) and no terminal escape sequence survives;
* :func:`check_name` restricts a name that becomes a file name, a SLURM job name or a
  default folder to a safe alphabet;
* :func:`first_unsafe` finds what to refuse where escaping is not an option (a path
  written into a script must stay the same path).
"""

from __future__ import annotations

import re
import unicodedata

from .errors import ParameterError

__all__ = ["NAME_RULE", "check_name", "first_unsafe", "is_unsafe", "one_line"]

#: Unicode categories that never appear raw in a generated file: controls (Cc, which holds
#: \n \r \v \f \x1c-\x1f \x85 ...), format characters (Cf: bidi overrides, zero-width),
#: line and paragraph separators (Zl U+2028, Zp U+2029) and lone surrogates (Cs).
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*\Z")
_NAME_MAX = 100
#: The rule of :func:`check_name`, for messages and docs.
NAME_RULE = (f"1 to {_NAME_MAX} characters from A-Z a-z 0-9 . _ -, not starting with '.' or '-'")


def is_unsafe(ch: str) -> bool:
    """Whether the character ``ch`` may not appear raw in a generated file."""
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def first_unsafe(text: str) -> str | None:
    """The first character of ``text`` that :func:`is_unsafe`, or None."""
    for ch in text:
        if is_unsafe(ch):
            return ch
    return None


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def one_line(value) -> str:
    """``str(value)`` with every unsafe character escaped (``\\n``, ``\\x00``, ``\\u2028``).

    Printable text, spaces and non-ASCII letters are kept as they are; the result never
    contains a character that any reader takes as a line break.
    """
    text = str(value)
    if first_unsafe(text) is None:
        return text
    return "".join(_escape(ch) if is_unsafe(ch) else ch for ch in text)


def check_name(value, what: str, fix: str = "") -> str:
    """``value`` when it is a safe name (:data:`NAME_RULE`), else ParameterError.

    Parameters
    ----------
    value : object
        The name to check.
    what : str
        What the name is, for the message (``"experiment name in [experiment] of s.toml"``).
    fix : str
        How to fix it, appended to the message.
    """
    if not isinstance(value, str) or not _NAME.match(value) or len(value) > _NAME_MAX:
        shown = repr(value[:60]) + ("..." if len(value) > 60 else "") if isinstance(value, str) else repr(value)
        raise ParameterError(f"{what} must be {NAME_RULE} (it names files and SLURM jobs), got "
                             f"{shown}" + (f"; {fix}" if fix else ""))
    return value


def safe_stem(text: str, limit: int, default: str) -> str:
    """``text`` made a file-name stem of the name alphabet: every other character becomes
    ``_``, leading ``.``/``-`` are dropped, at most ``limit`` characters; ``default`` when
    nothing is left."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", str(text)).lstrip(".-")[:limit] or default
