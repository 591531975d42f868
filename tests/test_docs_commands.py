"""Every ``topogen ...`` command in a shell block of README.md and docs/ parses.

The python blocks run (tests/test_docs_examples.py), but most commands in the shell blocks
take minutes or need a simulator; a renamed option or generator parameter would leave them
stale without any test noticing.  Each command is parsed by the real command line (the
sub-command's options, and for ``generate`` / ``analyze`` / ``reproduce`` the typed
parameters of the generator or reproduction it names, converted as the CLI converts them),
without running it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import topogen.cli as cli
from topogen import _cli_commands, registry

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"```(?:sh|bash|shell|console)\n(.*?)```", re.S)


def _commands(text: str):
    """The ``topogen`` command lines of the shell blocks in ``text``: continuation lines
    joined, prompts, comments and redirections dropped, split at ``&&``, ``||``, ``;``
    and ``|``."""
    for block in FENCE.findall(text):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            for part in re.split(r"&&|\|\||;|\|", line):
                part = part.strip()
                if part.startswith("topogen "):
                    yield part


def _cases():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        rel = page.relative_to(ROOT).as_posix()
        for i, command in enumerate(_commands(page.read_text())):
            yield pytest.param(command, id=f"{rel}#{i}")


CASES = list(_cases())


def _errors() -> dict[str, str]:
    """Documented failures: ``$ topogen ...`` followed by the ``topogen: error:`` line."""
    out = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in FENCE.findall(page.read_text()):
            lines = block.splitlines()
            for cmd, nxt in zip(lines, lines[1:]):
                if cmd.startswith("$ topogen ") and nxt.startswith("topogen: error: "):
                    out[cmd[2:].strip()] = nxt.strip()
    return out


ERRORS = _errors()


def _tokens(command: str) -> list[str]:
    tokens = shlex.split(command, comments=True)[1:]
    # drop redirections (`> out.csv`, `2> log`) and what they name
    out, skip = [], False
    for t in tokens:
        if skip:
            skip = False
        elif re.fullmatch(r"\d?>>?", t):
            skip = True
        elif not re.match(r"\d?>", t):
            out.append(t)
    return out


def test_the_docs_have_commands():
    # the extraction itself can fail (a fence renamed, a regex broken): then nothing is checked
    assert len(CASES) > 100
    assert any("topogen generate" in c.values[0] for c in CASES)
    assert len(ERRORS) >= 5
    block = "```sh\ntopogen list \\\n   torus  # comment\n$ topogen list && ls\n```"
    assert list(_commands(block)) == ["topogen list  torus  # comment", "topogen list"]


def _check_params(command: str, args, pairs) -> None:
    """The generator / reproduction parameters of a parsed command exist, parse and are
    complete (analyze gives each NAME the parameters after it and those before any)."""
    if args.command == "generate":
        named = [(args.name, pairs)]
    elif args.command in ("analyze", "analyse"):
        named = [(src, [p for p in pairs if p[3] in (0, k)])
                 for k, src in enumerate(args.sources, 1) if not _cli_commands._looks_like_file(src)]
    elif args.command == "reproduce" and args.name:
        spec = registry.experiment(args.name)
        _cli_commands._match_params(args.name, spec.params, pairs, parse=True)
        return
    else:
        assert not pairs, command
        return
    for name, own in named:
        spec = registry.get(name)
        kwargs = _cli_commands._match_params(name, spec.params, own, parse=True)
        missing = [p.name for p in spec.params if p.required and p.name not in kwargs
                   and getattr(args, p.name, None) is None]
        assert not missing, f"{command!r}: {name} lacks {missing}"


@pytest.mark.parametrize("command", [c for c in CASES if c.values[0] not in ERRORS])
def test_documented_command_parses(command):
    try:
        args, pairs = cli._parse(_tokens(command))
    except SystemExit as exc:  # --help / --version
        assert exc.code in (0, None), command
        return
    except cli._UsageError as exc:
        pytest.fail(f"{command!r}: {exc}")
    _check_params(command, args, pairs)


#: files the documented error examples read (made in the scratch folder first)
SETUP = {
    "t.json": "topogen generate torus --dims 4,4 -o t.json",
    "sf.json": "topogen generate slimfly --q 5 -o sf.json",
}


@pytest.mark.parametrize("command", sorted(ERRORS))
def test_documented_error_is_what_the_command_prints(command, tmp_path, monkeypatch, capsys):
    """A ``$ topogen ...`` line followed by ``topogen: error: ...`` in a console block: the
    command fails with exactly that line (the docs show the message a user will see)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOPOGEN_BOOKSIM", raising=False)
    monkeypatch.delenv("TOPOGEN_SST", raising=False)
    argv = _tokens(command)
    for name, make in SETUP.items():
        if name in argv:
            assert cli.main(_tokens(make) + ["-q"]) == 0
    if "broken.edges" in argv:
        (tmp_path / "broken.edges").write_text("0 1\n1 2\nx 3\n")
    capsys.readouterr()
    code = cli.main(argv)
    err = capsys.readouterr().err.strip()
    assert code not in (0, 70), (command, err)
    assert err == ERRORS[command], command


def test_a_stale_command_fails():
    """The check can fail: a renamed option and an unknown generator parameter."""
    with pytest.raises(cli._UsageError):
        cli._parse(_tokens("topogen simulate t.json --no-such-option 1"))
    args, pairs = cli._parse(_tokens("topogen generate torus --dimz 4,4 -o t.json"))
    with pytest.raises(Exception, match="no parameter --dimz"):
        _cli_commands._match_params("torus", registry.get("torus").params, pairs, parse=True)
