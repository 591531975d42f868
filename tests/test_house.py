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


# ------------------------------------------------------------------------ floors and imports
# The pipeline, bottom to top.  A module may import from its own floor's package and from the
# floors below, never from above; no two modules may import each other, directly or around a
# circle.  Function-level (lazy) imports count: they run too.
FLOORS = [
    # core objects and shared plain helpers
    ("errors", "_version", "_validate", "_rng", "_digest", "_lazy", "_progress", "_estimate", "_sssp", "_safe_text",
     "_input", "output", "gf", "topology", "registry", "sim_defaults", "results", "load_points",
     "layout.floor", "layout.placement", "layout.names"),
    ("generators",),
    ("layout",),
    ("formats",),
    ("routing", "metrics"),
    ("export",),
    ("sim", "drivers"),
    ("plots", "optimize"),
    ("experiments",),
    ("reproduce",),
    ("cli", "_cli_commands", "__main__"),
]
TOP = len(FLOORS) - 1


def _modules() -> dict[str, Path]:
    pkg = ROOT / "topogen"
    out = {}
    for p in pkg.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _imports(mods: dict[str, Path]) -> dict[str, set[tuple[str, int]]]:
    import ast

    edges: dict[str, set[tuple[str, int]]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    name = ".".join(base + ([node.module] if node.module else []))
                else:
                    name = node.module or ""
                names = [f"{name}.{a.name}" if f"{name}.{a.name}" in mods else name for a in node.names]
            for target in names:
                while target not in mods and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in mods and target != mod and target.startswith("topogen"):
                    edges[mod].add((target, node.lineno))
    return edges


def _floor(mod: str) -> int:
    rel = mod.split(".")[1:]
    if not rel:
        return 0  # the package itself loads its names lazily
    if rel[-1] == "cli" or rel[-1].endswith("_cli"):
        return TOP  # a room's command-line module sits with the command line
    for depth in (2, 1):
        key = ".".join(rel[:depth])
        for level, rooms in enumerate(FLOORS):
            if key in rooms:
                return level
    raise AssertionError(f"{mod} stands on no floor: add its room to FLOORS in tests/test_house.py")


def test_no_import_circles():
    mods = _modules()
    graph = {m: {t for t, _ in e} for m, e in _imports(mods).items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles = []

    def visit(v):  # Tarjan's strongly connected components, iteratively deep enough here
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_no_import_runs_up_the_floors():
    mods = _modules()
    up = [f"{m}:{line} imports {t}" for m, edges in _imports(mods).items() for t, line in sorted(edges)
          if _floor(t) > _floor(m)]
    assert not up, "imports that run up the floors:\n" + "\n".join(sorted(up))


def test_the_floor_check_sees_an_upward_import():
    assert _floor("topogen.routing.base") < _floor("topogen.export.booksim")
    assert _floor("topogen.routing.cli") == TOP and _floor("topogen.layout.floor") == 0
