"""Every ```python block of README.md and docs/ runs (each in a fresh interpreter, in a
scratch folder).  The BookSim and SST pages need a simulator binary and are run against
stand-in executables by tests/drivers/test_docs.py instead."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SIMULATOR_PAGES = {"docs/booksim.md", "docs/sst.md"}


def _blocks():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        rel = page.relative_to(ROOT).as_posix()
        if rel in SIMULATOR_PAGES:
            continue
        for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S)):
            yield pytest.param(code, id=f"{rel}#{i}")


@pytest.mark.parametrize("code", list(_blocks()))
def test_python_example_runs(code, tmp_path):
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
