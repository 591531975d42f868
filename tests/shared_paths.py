"""Where the project's shared material (``shared/fixtures``: real BookSim and SST output)
is: ``$TOPOGEN_FIXTURES``, else ``shared/fixtures`` beside the checkout (CI's layout: a
fresh clone with ``shared/`` next to it), else ``/work/shared/fixtures``.

Tests that need the fixtures are skipped when they are absent -- except under CI
(``CI`` set), where a missing folder is an error: a parser test that silently skips is
a test that cannot fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_CANDIDATES = [
    Path(__file__).resolve().parents[2] / "shared" / "fixtures",
    Path("/work/shared/fixtures"),
]


def _find() -> Path:
    env = os.environ.get("TOPOGEN_FIXTURES")
    if env:
        return Path(env)
    for path in _CANDIDATES:
        if path.is_dir():
            return path
    return _CANDIDATES[0]


FIXTURES = _find()

if os.environ.get("CI") and not FIXTURES.is_dir():
    raise pytest.UsageError(
        f"shared fixtures not found at {FIXTURES}: CI needs shared/ beside the checkout "
        "(or TOPOGEN_FIXTURES)")


def needs_fixtures(sub: str = ""):
    """``skipif`` marker for tests that read ``FIXTURES / sub``."""
    path = FIXTURES / sub
    return pytest.mark.skipif(not path.exists(), reason=f"shared fixtures not found at {path}")
