"""The docs' pictures: each page's own examples draw every picture it
shows, as a valid non-empty image; the committed pictures are valid small PNGs; the README's
figure commands run."""

import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from topogen.cli import main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import docs_pictures  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"
PAGES = sorted(p for p in (ROOT / "docs").rglob("*.md") if docs_pictures.pictures(p))


def valid_image(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) > 1000, f"{path} is (nearly) empty"
    if path.suffix == ".svg":
        assert ET.fromstring(data).tag.endswith("svg")
    else:
        assert data[:8] == PNG, f"{path} is not a PNG"


def test_pages_with_pictures_exist():
    assert {p.name for p in PAGES} >= {"draw.md", "sim.md"}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_examples_draw_the_pictures_the_page_shows(page, tmp_path):
    docs_pictures.run_examples(page, tmp_path)
    for name in docs_pictures.pictures(page):
        valid_image(tmp_path / name)


def test_committed_pictures_are_valid_small_images():
    shown = {name for p in [*PAGES, ROOT / "README.md"] for name in docs_pictures.pictures(p)}
    assert shown
    for name in shown:
        path = ROOT / "docs" / "img" / name
        assert path.is_file(), f"docs/img/{name} is shown but not committed"
        valid_image(path)
        assert path.stat().st_size < 400_000


def test_readme_figure_commands(tmp_path):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", text, re.S)
    block = next(b for b in blocks if "topogen draw" in b)
    commands = [shlex.split(c) for c in block.replace("\\\n", " ").splitlines()]
    for name in docs_pictures.pictures(ROOT / "README.md"):  # every figure is made by a command shown
        assert any(f"docs/img/{name}" in c for c in commands)
    for argv in commands:  # the floor plan is made here; crossval needs the simulators
        if argv[:2] in (["topogen", "generate"], ["topogen", "draw"]):
            argv = [a.replace("docs/img/", "") for a in argv[1:]]
            argv = [str(tmp_path / a) if a.endswith((".json", ".png")) else a for a in argv]
            assert main(["-q", *argv]) == 0
    floor = tmp_path / "skywalk-floor.png"
    valid_image(floor)
