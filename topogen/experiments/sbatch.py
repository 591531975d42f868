"""What can be written into an ``sbatch`` script: quoting for its ``#SBATCH`` lines, the
arguments sbatch reads back from one, and the check of the ``[slurm] extra`` options (used
when a spec is read, :mod:`topogen.experiments.spec`, and when the scripts are written,
:mod:`topogen.experiments.slurm`).
"""

from __future__ import annotations

import re

from .._safe_text import first_unsafe
from ..errors import ParameterError

__all__ = ["sbatch_quote", "sbatch_split", "check_extra", "HETJOB"]

# Everything written into job.sh / collect.sh is either from a safe alphabet, or quoted for
# the syntax that reads it: sbatch reads the "#SBATCH" lines (its own word splitting: blanks
# separate, '...' and "..." group, a backslash escapes the next character, an unquoted '#'
# ends the line), bash reads the rest (shlex.quote).  No value may hold a control or
# line-break character: those are refused, never written.

_SBATCH_PLAIN = re.compile(r"[A-Za-z0-9_.,:/=+%@-]+\Z")
#: sbatch splits a script into heterogeneous job components at any line containing these
HETJOB = re.compile(r"hetjob|packjob", re.IGNORECASE)


def sbatch_quote(text: str) -> str:
    """``text`` as one argument of an ``#SBATCH`` line (as written when it is plain)."""
    if _SBATCH_PLAIN.match(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def sbatch_split(text: str) -> tuple[list[str], bool]:
    """The arguments sbatch reads from ``text`` (the rest of an ``#SBATCH`` line), and
    whether an unquoted ``#`` cut the line short.  Raises ValueError on an unmatched quote."""
    args: list[str] = []
    cur: list[str] = []
    have = escape = False
    quote = None
    for ch in text:
        if escape:
            cur.append(ch)
            escape, have = False, True
        elif ch == "\\":
            escape = True
        elif quote:
            if ch == quote:
                quote = None
            else:
                cur.append(ch)
        elif ch in "\"'":
            quote, have = ch, True
        elif ch == "#":
            if have:
                args.append("".join(cur))
            return args, True
        elif ch.isspace():
            if have:
                args.append("".join(cur))
            cur, have = [], False
        else:
            cur.append(ch)
            have = True
    if quote:
        raise ValueError(f"unmatched {quote}")
    if have:
        args.append("".join(cur))
    return args, False


def check_extra(extra, what: str = "slurm extra") -> list[str]:
    """The ``[slurm] extra`` sbatch options, each checked to be one ``--option[=value]``
    argument (``"--gres=gpu:1"``) that sbatch reads back as written; ParameterError otherwise."""
    if not isinstance(extra, (list, tuple)):
        raise ParameterError(f"{what} must be a list of sbatch options such as [\"--gres=gpu:1\"], got {extra!r}")
    for x in extra:
        if not isinstance(x, str) or not x.startswith("--"):
            raise ParameterError(f"{what} takes sbatch options written as strings starting with '--' "
                                 f"(e.g. \"--gres=gpu:1\"), got {x!r} ({type(x).__name__})")
        if first_unsafe(x) is not None:
            raise ParameterError(f"{what} entry {x!r} holds a control or line-break character; each entry "
                                 "is one sbatch option on its own #SBATCH line")
        try:
            args, cut = sbatch_split(x)
        except ValueError as exc:
            raise ParameterError(f"{what} entry {x!r} has an {exc} quote; sbatch would refuse the script") from None
        if cut or len(args) != 1 or not args[0].startswith("--") or HETJOB.search(x):
            raise ParameterError(f"{what} entry {x!r} must be exactly one sbatch option: write the value "
                                 "after '=' (\"--gres=gpu:1\"), quote blanks (\"--comment='two words'\"), "
                                 "no unquoted '#' (it starts a comment), not hetjob")
    return list(extra)
