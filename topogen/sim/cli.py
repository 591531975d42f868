"""The reference simulator's sub-commands (``simulate``, ``plot``), wired into
``topogen`` by :mod:`topogen.cli` through :func:`add_parsers`."""

from __future__ import annotations


def add_parsers(subparsers, parents=()) -> None:
    """Add the simulator's sub-commands to the ``topogen`` sub-commands (none yet)."""
