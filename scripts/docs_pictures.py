"""Make the pictures of the docs by running the docs' own examples in ``docs/img/``.

Every ```python block of a page that shows a picture (``![...](img/NAME)``) is run in a
fresh interpreter with ``docs/img`` as its working folder, so the pictures are exactly
what the examples draw; files the examples write that no page shows are removed.  The
tests (``tests/plots/test_docs_pictures.py``) run the same blocks in a scratch folder and
check that they write every picture the page shows, as a valid image.  The PNGs are then
reduced to a 128-colour palette (Pillow, which matplotlib needs anyway) to keep the
repository small; ``--shrink`` does only that, e.g. to the README's figures made by the
commands it shows.

    python3 scripts/docs_pictures.py            # all pages with pictures
    python3 scripts/docs_pictures.py docs/draw.md
    python3 scripts/docs_pictures.py --shrink docs/img/crossval-skywalk.png
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"


def pictures(page: Path) -> list[str]:
    """Names of the docs/img pictures ``page`` shows."""
    return re.findall(r"!\[[^\]]*\]\((?:docs/)?img/([^)\s]+)\)", page.read_text())


def examples(page: Path) -> list[str]:
    """The page's ```python blocks."""
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


def run_examples(page: Path, cwd: Path) -> None:
    """Run ``page``'s python blocks in ``cwd`` (raises CalledProcessError on failure)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               TOPOGEN_QUIET="1", MPLBACKEND="Agg")
    for code in examples(page):
        subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, check=True)


def shrink(path: Path) -> None:
    """Rewrite the PNG ``path`` with a 128-colour palette (about a quarter of the bytes)."""
    from PIL import Image

    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    tmp = path.with_name(path.name + ".tmp")
    small.save(tmp, format="PNG", optimize=True)
    os.replace(tmp, path)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--shrink"]:
        for name in argv[1:]:
            shrink(Path(name))
        return 0
    pages = [Path(p).resolve() for p in argv] or sorted(p for p in (ROOT / "docs").rglob("*.md") if pictures(p))
    IMG.mkdir(exist_ok=True)
    shown = {name for p in (ROOT / "docs").rglob("*.md") for name in pictures(p)}
    for page in pages:
        before = set(os.listdir(IMG))
        run_examples(page, IMG)
        for name in set(os.listdir(IMG)) - before - shown:  # by-products of the examples
            (IMG / name).unlink()
        for name in pictures(page):
            if name.endswith(".png"):
                shrink(IMG / name)
        print(f"{page.relative_to(ROOT)}: {', '.join(pictures(page))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
