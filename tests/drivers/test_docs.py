"""The examples of docs/booksim.md, docs/sst.md and docs/results.md really run.

Every ```python block of a page runs (in order, sharing one namespace) and every line of its
```sh blocks runs through ``topogen.cli.main``, in a scratch folder.  Unless a real simulator
is configured, BookSim, SST and mpirun are the stand-ins of :mod:`tests.drivers.fakes`
(real process behaviour, real fixture output).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from topogen.cli import main

from . import fakes

ROOT = Path(__file__).resolve().parents[2]
from shared_paths import FIXTURES  # noqa: E402
PAGES = ["booksim.md", "sst.md", "results.md"]


def blocks(page: str):
    text = (ROOT / "docs" / page).read_text()
    return re.findall(r"```(python|sh)\n(.*?)```", text, re.S)


@pytest.mark.parametrize("page", PAGES)
def test_page_has_runnable_examples(page):
    kinds = {k for k, _ in blocks(page)}
    assert kinds == {"python", "sh"}, f"{page} needs a ```python and a ```sh example"


@pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"fixtures not found at {FIXTURES}")
@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(bin_dir, FIXTURES)))
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(bin_dir, FIXTURES)))
    monkeypatch.setenv("TOPOGEN_MPIRUN", str(fakes.mpirun(bin_dir)))
    namespace: dict = {"__name__": f"docs_{page}"}
    for kind, code in blocks(page):
        if kind == "python":
            exec(compile(code, f"docs/{page}", "exec"), namespace)
            continue
        for line in code.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            argv = shlex.split(line)
            assert argv[0] == "topogen", f"docs/{page}: shell examples are topogen commands: {line}"
            code_ = main(argv[1:])
            assert code_ == 0, f"docs/{page}: `{line}` exited {code_}: {capsys.readouterr().err}"
