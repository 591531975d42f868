"""The house rules a reader relies on: product files speak of the product (no internal
work-item numbers)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK_ITEM = re.compile(r"\b(?:issue|ticket)s?\s*#?\s*\d+\b|\bissue-\d+\b", re.IGNORECASE)
PRODUCT_SUFFIXES = {".py", ".md", ".toml", ".cfg", ".txt", ".sh", ".j2", ".yml", ".yaml"}


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        names = out.split()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    return [ROOT / n for n in names if Path(n).suffix in PRODUCT_SUFFIXES or Path(n).parent.name == ".ci"]


def test_no_work_item_numbers_in_product_files():
    hits = []
    for path in _tracked_files():
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for no, line in enumerate(text.splitlines(), 1):
            if WORK_ITEM.search(line) and path.name != "test_house.py":
                hits.append(f"{path.relative_to(ROOT)}:{no}: {line.strip()[:100]}")
    assert not hits, "work-item numbers in product files:\n" + "\n".join(hits)


def test_the_pattern_finds_what_it_should():
    assert WORK_ITEM.search("the acceptance criteria of issue 12")
    assert WORK_ITEM.search("(Issue 17, goal 2)")
    assert WORK_ITEM.search("at the issue-13 sizes")
    assert not WORK_ITEM.search("issues a warning for 12 switches")
