"""docs/scorecard.md, the per-paper scorecard, is complete and well-formed.

* every command it names parses on the real command line (a registered reproduction with
  its parameters, or a ``topogen`` sub-command with its options), without running it;
* every verdict is one of the four, and a row without a command is not a measured one;
* every ``differs`` row gives its cause;
* every table and figure number in each paper's text (``Table N``, ``Fig. N``,
  ``Figures N and M`` ...) has a row in that paper's section;
* the summary's counts are the rows' counts.

The papers are read from ``$TOPOGEN_PAPERS``, else ``shared/papers`` beside the checkout,
else ``/work/shared/papers`` (skipped when absent, an error under CI).
"""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from pathlib import Path

import pytest

import topogen.cli as cli
from topogen import _cli_commands, registry

ROOT = Path(__file__).resolve().parents[1]
SCORECARD = ROOT / "docs" / "scorecard.md"
VERDICTS = ("holds", "differs", "not measured", "not reproducible")
COLUMNS = ["item", "command", "paper", "topogen", "verdict", "tolerance", "cause / note", "source"]
PAPER_FILES = ("000_01d58fa18228e066.txt", "001_a3950a2f7890dd22.txt", "002_952b2d9894b75fdb.txt",
               "003_fc653702f64be87c.txt", "004_22068c48eadada00.txt")


def _papers_dir() -> Path:
    env = os.environ.get("TOPOGEN_PAPERS")
    if env:
        return Path(env)
    for path in (ROOT.parent / "shared" / "papers", Path("/work/shared/papers")):
        if path.is_dir():
            return path
    return ROOT.parent / "shared" / "papers"


PAPERS = _papers_dir()
if os.environ.get("CI") and not PAPERS.is_dir():
    raise pytest.UsageError(f"the papers are not at {PAPERS}: CI needs shared/ beside the checkout "
                            "(or TOPOGEN_PAPERS)")
needs_papers = pytest.mark.skipif(not PAPERS.is_dir(), reason=f"papers not found at {PAPERS}")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(text: str) -> dict[str, list[dict]]:
    """Rows of the scorecard per paper file: each ``## ... — `FILE``` section's table."""
    sections: dict[str, list[dict]] = {}
    current = None
    header = None
    for line in text.splitlines():
        m = re.match(r"^## .*`(\d{3}_[0-9a-f]+\.txt)`\s*$", line)
        if m:
            current, header = m.group(1), None
            sections.setdefault(current, [])
            continue
        if line.startswith("## "):
            current, header = None, None
            continue
        if current is None or not line.startswith("|"):
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            assert header == COLUMNS, f"{current}: columns {header}"
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        assert len(cells) == len(header), f"{current}: {len(cells)} cells in {line[:80]!r}"
        sections[current].append(dict(zip(header, cells)))
    return sections


SECTIONS = parse(SCORECARD.read_text(encoding="utf-8"))
ROWS = [(paper, row) for paper, rows in SECTIONS.items() for row in rows]


def _ids():
    return [f"{p[:3]}:{r['item']}" for p, r in ROWS]


def test_the_scorecard_has_the_five_papers():
    assert sorted(SECTIONS) == sorted(PAPER_FILES)
    assert all(len(rows) >= 10 for rows in SECTIONS.values())


def test_parse_rejects_a_malformed_table():
    bad = "## X — `000_01d58fa18228e066.txt`\n\n| item | command |\n|---|---|\n| a | b |\n"
    with pytest.raises(AssertionError, match="columns"):
        parse(bad)


def _commands(cell: str) -> list[str]:
    """The ``topogen ...`` commands quoted in a cell."""
    return [c for c in re.findall(r"`([^`]+)`", cell) if c.startswith("topogen ")]


@pytest.mark.parametrize("paper,row", ROWS, ids=_ids())
def test_verdict_and_cause(paper, row):
    assert row["verdict"] in VERDICTS, row["item"]
    if row["verdict"] == "differs":
        assert len(row["cause / note"]) >= 20, f"{row['item']}: a 'differs' row names its cause"
    if row["verdict"] in ("holds", "differs"):
        assert _commands(row["command"]), f"{row['item']}: a measured row names its command"
        assert row["tolerance"], f"{row['item']}: a measured row states its tolerance"
    else:
        assert row["cause / note"], f"{row['item']}: say why it is {row['verdict']}"
    assert row["source"] in ("run", "docs"), row["item"]
    assert "FILL" not in " ".join(row.values()), row["item"]


def _check_command(command: str) -> None:
    tokens = shlex.split(command)[1:]
    args, pairs = cli._parse(tokens)
    if args.command == "reproduce":
        assert args.name, command
        spec = registry.experiment(args.name)
        kwargs = _cli_commands._match_params(args.name, spec.params, pairs, parse=True)
        missing = [p.name for p in spec.params if p.required and p.name not in kwargs]
        assert not missing, f"{command!r} lacks {missing}"
    elif args.command in ("generate", "analyze", "analyse"):
        names = [args.name] if args.command == "generate" else list(args.sources)
        for name in names:
            spec = registry.get(name)
            kwargs = _cli_commands._match_params(name, spec.params, pairs, parse=True)
            missing = [p.name for p in spec.params if p.required and p.name not in kwargs
                       and getattr(args, p.name, None) is None]  # analyze's layout options
            assert not missing, f"{command!r} lacks {missing}"
    else:
        assert not pairs, command


COMMANDS = sorted({c for _, row in ROWS for c in _commands(row["command"])})


def test_there_are_commands():
    assert len(COMMANDS) >= 30
    assert any(c.startswith("topogen reproduce ") for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_real(command):
    _check_command(command)


def test_a_wrong_command_is_caught():
    with pytest.raises(Exception, match="unknown reproduction"):
        _check_command("topogen reproduce no-such-reproduction")
    with pytest.raises(Exception, match="no parameter --figur"):
        _check_command("topogen reproduce skywalk-sweeps --figur 3")
    with pytest.raises((cli._UsageError, SystemExit)):
        _check_command("topogen no-such-command")


def test_the_summary_counts_the_rows():
    text = SCORECARD.read_text(encoding="utf-8")
    block = text.split("Summary (rows per verdict):", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in block.splitlines() if ln.startswith("|")][2:]
    assert len(lines) == len(PAPER_FILES)
    for line, paper in zip(lines, PAPER_FILES):
        counts = Counter(r["verdict"] for r in SECTIONS[paper])
        assert [int(x) for x in _cells(line)[1:]] == [counts[v] for v in VERDICTS], line


# --------------------------------------------------------------------------- coverage
_NUM = r"(?:\d+|[IVX]+)\b"
_REF = re.compile(r"\b(Figs?\.|Figures?|FIGURES?|Tables?|TABLES?)\s*(" + _NUM + r"[a-z]?(?:\s*(?:,|and|to|-|–|,\s*and)\s*"
                  + _NUM + r")*)")


def references(text: str) -> set[tuple[str, str]]:
    """(kind, number) of every table and figure the text names: ``("Fig.", "5")``,
    ``("Table", "III")``; "Figures 5, 6, and 7" gives three."""
    out = set()
    for kind, nums in _REF.findall(text):
        kind = "Table" if kind.lower().startswith("table") else "Fig."
        for n in re.findall(_NUM, nums):
            out.add((kind, n))
    return out


def test_references_reads_lists_and_kinds():
    got = references("Figures 5, 6, and 7 show; Fig.1(a) and TABLE III; Table 1. ; Figures 9 and 10")
    assert got == {("Fig.", "5"), ("Fig.", "6"), ("Fig.", "7"), ("Fig.", "1"), ("Table", "III"),
                   ("Table", "1"), ("Fig.", "9"), ("Fig.", "10")}


def _covered(rows) -> set[tuple[str, str]]:
    out = set()
    for row in rows:
        for kind, n in re.findall(r"\b(Fig\.|Table) (\d+|[IVX]+)[a-z]?\b", row["item"]):
            out.add((kind, n))
        for lo, hi in re.findall(r"\bFig\. (\d+)[a-z]?[–-](\d+)[a-z]?\b", row["item"]):
            out |= {("Fig.", str(k)) for k in range(int(lo), int(hi) + 1)}
    return out


@needs_papers
@pytest.mark.parametrize("paper", PAPER_FILES)
def test_every_table_and_figure_has_a_row(paper):
    named = references((PAPERS / paper).read_text(encoding="utf-8"))
    assert len(named) >= 10, f"{paper}: the parser found only {sorted(named)}"
    missing = named - _covered(SECTIONS[paper])
    assert not missing, f"{paper}: no scorecard row for {sorted(missing)}"


def test_reproductions_and_the_nav_link_the_scorecard():
    assert "(scorecard.md)" in (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert nav.index("scorecard.md") < nav.index("reproductions.md")


def test_coverage_notices_a_missing_figure():
    rows = [{"item": "Fig. 1"}, {"item": "Fig. 3a"}, {"item": "Table II (SF)"}, {"item": "Fig. 8b–8e"}]
    assert _covered(rows) == {("Fig.", "1"), ("Fig.", "3"), ("Table", "II"), ("Fig.", "8")}
    assert references("Figure 2 and Table II") - _covered(rows) == {("Fig.", "2")}
