"""Small command-line texts: every sub-command listed in docs/cli.md, help on every
``run sst`` option, the seed ``generate`` used, crossval's routing help."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import topogen.cli as cli

ROOT = Path(__file__).resolve().parents[1]


def _subcommands() -> list[str]:
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [name for name in action.choices if name != "analyse"]


def test_docs_cli_lists_every_subcommand():
    text = (ROOT / "docs" / "cli.md").read_text()
    block = text.split("```text", 1)[1].split("```", 1)[0]
    listed = {line.split()[1] for line in block.splitlines() if line.startswith("topogen ")}
    assert set(_subcommands()) <= listed, sorted(set(_subcommands()) - listed)


def _help_of(capsys, *argv) -> str:
    try:
        cli.main([*argv, "--help"])
    except SystemExit:
        pass
    return " ".join(capsys.readouterr().out.split())


def test_run_sst_options_have_help(capsys):
    text = _help_of(capsys, "run", "sst")
    assert re.search(r"--out-dir DIR where the bundle, raw logs and results go", text)
    assert re.search(r"--timeout S seconds before the SST run is stopped", text)
    assert re.search(r"-o FILE, --output FILE results file", text)


def test_crossval_routing_help_is_current(capsys):
    text = _help_of(capsys, "crossval")
    assert "until topogen has it" not in text
    assert "default booksim-min" in text


def test_generate_reports_the_placement_seed(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert cli.main(["generate", "torus", "--dims", "4,4", "--placement", "random", "--seed", "7",
                     "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "seed None" not in err
    assert "(random, seed 7)" in err and "deterministic, no seed" in err
    assert cli.main(["generate", "random", "--num_switches", "16", "--degree", "4", "--seed", "3",
                     "-o", str(tmp_path / "r.json")]) == 0
    assert "seed 3" in capsys.readouterr().err
