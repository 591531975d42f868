"""The topogen command line, run in-process through ``topogen.cli.main``."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import topogen.cli as cli
import topogen.metrics
from topogen import Topology, registry
from topogen._rng import make_rng
from topogen.errors import FormatError
from topogen.reproduce._base import ExperimentResult
from topogen import formats
from topogen.formats import bundle, load


# ---------------------------------------------------------------------------- fixtures
def _test_ring(num_switches: int, *, hosts_per_switch: int = 1, chords: int = 0,
               shape: tuple[int, ...] = (1, 2), wide: bool = False, seed: int | None = None) -> Topology:
    """A ring with random chords, for CLI tests.

    Parameters
    ----------
    num_switches : int
        Number of switches (>= 3).
    hosts_per_switch : int
        Hosts at each switch.
    chords : int
        Number of random chords added to the ring.
    shape : tuple of int
        Recorded only (tests tuple parameters).
    wide : bool
        Recorded only (tests flags).
    seed : int, optional
        Seed of the chords.
    """
    from topogen._rng import resolve_seed
    from topogen.errors import ParameterError

    if num_switches < 3:
        raise ParameterError(f"num_switches must be >= 3, got {num_switches}")
    seed = resolve_seed(seed)
    rng = make_rng(seed)
    edges = {(v, (v + 1) % num_switches) for v in range(num_switches)}
    edges = {(min(e), max(e)) for e in edges}
    while len(edges) < num_switches + chords:
        u, v = sorted(rng.choice(num_switches, 2, replace=False).tolist())
        edges.add((u, v))
    edges = sorted(edges)
    kinds = [0 if (v - u) in (1, num_switches - 1) else 1 for u, v in edges]
    return Topology(num_switches, edges, hosts_per_switch, name="testring",
                    params=dict(num_switches=num_switches, hosts_per_switch=hosts_per_switch,
                                chords=chords, shape=shape, wide=wide),
                    seed=seed, link_kind=kinds, kind_names=("ring", "chord"))


def _test_experiment(size: int = 3, *, label: str = "x") -> ExperimentResult:
    """A fake reproduction for CLI tests.

    Parameters
    ----------
    size : int
        Rows of the table.
    label : str
        Text in the notes.
    """
    table = pd.DataFrame({"n": list(range(size)), "ours": [0.5 * i for i in range(size)]})
    return ExperimentResult(f"Test table of {size} rows", table, notes=[f"note about {label}"],
                            extra_tables={"side": pd.DataFrame({"a": [1]})})


@pytest.fixture(autouse=True)
def test_registry():
    registry.load_all()
    registry.register("testring", family="test")(_test_ring)
    registry.register_experiment("testexp", paper="Nobody 2024")(_test_experiment)
    yield
    registry._GENERATORS.pop("testring", None)
    registry._EXPERIMENTS.pop("testexp", None)


@pytest.fixture
def fake_analyze(monkeypatch):
    calls = []

    def analyze(obj, *, switch_delay=60.0, routings=("fr", "nr"), sample=None, seed=None, progress=None):
        calls.append(dict(obj=obj, switch_delay=switch_delay, routings=routings, sample=sample, seed=seed))
        t = obj.topology
        return {"name": t.name, "switches": t.num_switches, "links": t.num_links,
                "cable_total_m": float(obj.total_cable_length), "aspl": float("nan"), "sampled": False}

    monkeypatch.setattr(topogen.metrics, "analyze", analyze, raising=False)
    return calls


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *, exit_code=None, match=None):
    assert code != 0
    if exit_code is not None:
        assert code == exit_code
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("topogen: error: ")
    assert "Traceback" not in err
    if match is not None:
        assert match in lines[0], lines[0]


# ---------------------------------------------------------------------------- list
def test_version(capsys):
    from topogen._version import __version__

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"topogen {__version__}"


def test_list_all(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    line = next(l for l in out.splitlines() if l.startswith("testring"))
    assert "test" in line and "A ring with random chords" in line


def test_list_one_generator(capsys):
    code, out, _ = run(capsys, "list", "testring")
    assert code == 0
    assert "--num_switches int" in out and "required" in out
    assert "--chords int" in out and "default: 0" in out and "Number of random chords" in out
    assert "--shape int,int,..." in out and "default: 1,2" in out
    assert "--seed" in out


def test_list_unknown_suggests(capsys):
    code, _, err = run(capsys, "list", "testrin")
    assert_one_line_error(code, err, exit_code=2, match="did you mean testring")


# ---------------------------------------------------------------------------- generate
@pytest.mark.parametrize("ext", ["json", "edges", "graphml"])
def test_generate_each_format(capsys, tmp_path, ext):
    out_path = tmp_path / f"r.{ext}"
    code, out, err = run(capsys, "generate", "testring", "--num-switches", 12, "--chords=3",
                         "--hosts_per_switch", 2, "--seed", 5, "-o", out_path)
    assert code == 0, err
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and f"wrote {out_path}" in err and "seed 5" in err
    t, layout = load(out_path)
    assert t.name == "testring" and t.num_switches == 12 and t.num_links == 15
    assert t.params == dict(num_switches=12, hosts_per_switch=2, chords=3, shape=(1, 2), wide=False)
    assert t.seed == 5 and list(t.hosts) == [2] * 12
    assert layout is not None and layout.floor.switches_per_cabinet == 8


def test_generate_same_seed_same_bytes(capsys, tmp_path):
    for name in ("a", "b"):
        code, _, _ = run(capsys, "generate", "testring", "--num_switches", 20, "--chords", 6,
                         "--seed", 11, "-o", tmp_path / f"{name}.json")
        assert code == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_generate_layout_options_and_typed_params(capsys, tmp_path):
    out_path = tmp_path / "r.json"
    code, _, err = run(capsys, "-q", "generate", "testring", "--num_switches", 10, "--shape", "2x3",
                       "--wide", "--switches-per-cabinet", 4, "--cabinets", 5, "--placement", "random",
                       "--seed", 3, "-o", out_path)
    assert code == 0 and err == ""
    t, layout = load(out_path)
    assert t.params["shape"] == (2, 3) and t.params["wide"] is True
    assert layout.floor.cabinets == 5 and layout.floor.switches_per_cabinet == 4
    assert layout.placement == "random" and layout.seed == 3


def test_generate_quiet_after_subcommand(capsys, tmp_path):
    code, out, err = run(capsys, "generate", "testring", "--num_switches", 5, "-o", tmp_path / "r.edges", "-q")
    assert code == 0 and out == "" and err == ""


def test_generate_to_stdout(capsys):
    code, out, _ = run(capsys, "-q", "generate", "testring", "--num_switches", 4, "--seed", 1, "-o", "-")
    assert code == 0
    assert out.startswith("# topogen edge list\n") and "\n0 1 ring\n" in out


def test_generate_real_generator(capsys, tmp_path):
    name, args = "torus", ["--dims", "4,4"]
    out_path = tmp_path / f"{name}.json"
    code, _, err = run(capsys, "generate", name, *args, "-o", out_path)
    assert code == 0, err
    t, layout = load(out_path)
    assert t.name == name and layout is not None
    expected = registry.generate(name, **{a[2:]: v for a, v in zip(args[::2], args[1::2])})
    np.testing.assert_array_equal(t.edges, expected.edges)


# ---------------------------------------------------------------------------- generate errors
@pytest.mark.parametrize(
    "argv, exit_code, match",
    [
        (["generate", "testrnig", "--num_switches", "5"], 2, "did you mean testring"),
        (["generate", "testring"], 2, "needs parameter(s) num_switches"),
        (["generate", "testring", "--num_switches", "five"], 2, "num_switches must be an integer, got 'five'"),
        (["generate", "testring", "--num_switches", "5", "--seed", "abc"], 2, "seed must be an integer"),
        (["generate", "testring", "--num_switches", "5", "--cords", "2"], 2,
         "has no parameter --cords (did you mean --chords?); its parameters are: --num_switches"),
        (["generate", "testring", "--num_switches", "5", "--num-switches", "6"], 2, "given twice"),
        (["generate", "testring", "--num_switches"], 2, "--num_switches needs a value"),
        (["generate", "testring", "--num_switches", "2"], 2, "num_switches must be >= 3"),
        (["generate", "testring", "--num_switches", "5", "--wide", "maybe"], 2, "wide must be true or false"),
        (["generate", "testring", "--num_switches", "5", "--placement", "diagonal"], 2, "invalid choice"),
        (["generate", "testring", "--num_switches", "20", "--cabinets", "1"], 2, "do not fit"),
        (["frobnicate"], 2, "invalid choice"),
        ([], 2, "choose a command"),
    ],
)
def test_generate_errors_one_line_no_file(capsys, tmp_path, argv, exit_code, match):
    out_path = tmp_path / "out.json"
    code, _, err = run(capsys, *argv, *(["-o", out_path] if argv and argv[0] == "generate" else []))
    assert_one_line_error(code, err, exit_code=exit_code, match=match)
    assert list(tmp_path.iterdir()) == []


def test_generate_missing_output_option(capsys):
    code, _, err = run(capsys, "generate", "testring", "--num_switches", "5")
    assert_one_line_error(code, err, exit_code=2, match="-o/--output")


def test_generate_unknown_extension(capsys, tmp_path):
    code, _, err = run(capsys, "generate", "testring", "--num_switches", 5, "-o", tmp_path / "r.yaml")
    assert_one_line_error(code, err, exit_code=2, match="supported extensions: .json")


def test_generate_unwritable_outputs(capsys, tmp_path):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir.json").mkdir()
    for target in (tmp_path / "afile" / "r.json", tmp_path / "nodir" / "r.json", tmp_path / "adir.json"):
        code, _, err = run(capsys, "generate", "testring", "--num_switches", 5, "-o", target)
        assert_one_line_error(code, err, exit_code=cli.EXIT_IO, match=f"cannot write {target}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.json", "afile"]


def test_write_failure_leaves_no_partial_file(capsys, tmp_path, monkeypatch):
    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bundle, "_pretty", lambda *a, **k: "{" + "x" * 10_000)
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", boom)
    code, _, err = run(capsys, "generate", "testring", "--num_switches", 5, "-o", tmp_path / "r.json")
    monkeypatch.setattr(os, "replace", real_replace)
    assert_one_line_error(code, err, exit_code=cli.EXIT_IO, match="No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_internal_error_and_debug(capsys, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(formats, "write_bundle", broken)
    argv = ["generate", "testring", "--num_switches", 5, "-o", tmp_path / "r.json"]
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, exit_code=70, match="internal error: ZeroDivisionError: oops")
    assert "re-run with --debug" in err
    code, _, err = run(capsys, "--debug", *argv)
    assert code == 70 and "Traceback" in err and err.strip().splitlines()[-1].startswith("topogen: error:")
    assert list(tmp_path.iterdir()) == []


def test_keyboard_interrupt_exit_130(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(registry, "generate", interrupted)
    code, _, err = run(capsys, "generate", "testring", "--num_switches", 5, "-o", "-")
    assert code == 130 and "interrupted" in err and "Traceback" not in err


# ---------------------------------------------------------------------------- analyze
def test_analyze_files_table_csv_json(capsys, tmp_path, fake_analyze):
    for i, n in enumerate((6, 9)):
        assert run(capsys, "-q", "generate", "testring", "--num_switches", n, "--seed", i,
                   "-o", tmp_path / f"r{i}.json")[0] == 0
    a, b = tmp_path / "r0.json", tmp_path / "r1.json"
    code, out, err = run(capsys, "analyze", a, b, "--switch-delay", 100, "--routing", "fr", "--sample", 4,
                         "--seed", 9)
    assert code == 0, err
    lines = out.splitlines()
    assert str(a) in lines[0] and str(b) in lines[0]
    assert any(l.split()[:3] == ["switches", "6", "9"] for l in lines)
    assert any(l.split()[:2] == ["aspl", "nan"] for l in lines)
    assert fake_analyze[0]["switch_delay"] == 100.0 and fake_analyze[0]["routings"] == ("fr",)
    assert fake_analyze[0]["sample"] == 4 and fake_analyze[0]["seed"] == 9
    # the file's own layout is analysed
    assert fake_analyze[0]["obj"].floor == load(a)[1].floor

    code, out, _ = run(capsys, "analyze", a, b, "--format", "csv")
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert list(df["source"]) == [str(a), str(b)] and list(df["switches"]) == [6, 9]
    assert list(df["seed"]) == [0, 1] and list(df["generator"]) == ["testring"] * 2
    assert json.loads(df["params"][0])["num_switches"] == 6 and "topogen_version" in df

    code, out, _ = run(capsys, "analyze", a, "--format", "json", "--csv", tmp_path / "rows.csv")
    rows = json.loads(out)
    assert rows[0]["switches"] == 6 and rows[0]["aspl"] is None and rows[0]["source"] == str(a)
    assert pd.read_csv(tmp_path / "rows.csv")["links"].tolist() == [6]


def test_analyze_generator_name_with_params_and_relayout(capsys, fake_analyze):
    code, out, err = run(capsys, "analyze", "testring", "--num_switches", 16, "--chords", 2, "--seed", 4,
                         "--switches-per-cabinet", 4, "--placement", "sequential")
    assert code == 0, err
    layout = fake_analyze[0]["obj"]
    assert layout.topology.num_switches == 16 and layout.topology.seed == 4
    assert layout.floor.switches_per_cabinet == 4 and layout.placement == "sequential"
    assert "testring(" in out.splitlines()[0]


def test_analyze_parameters_belong_to_the_name_before_them(capsys, fake_analyze):
    code, out, err = run(capsys, "analyze", "--hosts_per_switch", 2, "testring", "--num_switches", 6,
                         "testring", "--num_switches", 9, "--chords", 1, "--format", "json")
    assert code == 0, err
    sizes = [(c["obj"].topology.num_switches, c["obj"].topology.num_links, c["obj"].topology.num_hosts)
             for c in fake_analyze]
    assert sizes == [(6, 6, 12), (9, 10, 18)]
    assert len(json.loads(out)) == 2


def test_analyze_malformed_file_reports_line(capsys, tmp_path, fake_analyze):
    bad = tmp_path / "bad.edges"
    bad.write_text("0 1\n1 2\n2 x\n")
    code, _, err = run(capsys, "analyze", bad)
    assert_one_line_error(code, err, exit_code=FormatError.exit_code, match=f"{bad}, line 3: switch id 'x'")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "topogen-bundle",\n\n "x": ]}')
    code, _, err = run(capsys, "analyze", bad)
    assert_one_line_error(code, err, exit_code=3, match="line 3")
    assert fake_analyze == []


def test_analyze_errors(capsys, tmp_path, fake_analyze):
    code, _, err = run(capsys, "analyze", tmp_path / "missing.json")
    assert_one_line_error(code, err, exit_code=cli.EXIT_IO, match="no such file")
    code, _, err = run(capsys, "analyze", "testrign")
    assert_one_line_error(code, err, exit_code=2, match="did you mean testring")
    run(capsys, "-q", "generate", "testring", "--num_switches", 5, "-o", tmp_path / "r.json")
    code, _, err = run(capsys, "analyze", tmp_path / "r.json", "--chords", 3)
    assert_one_line_error(code, err, exit_code=2, match="need a generator NAME")
    code, _, err = run(capsys, "analyze", tmp_path / "r.json", "--routing", ",")
    assert_one_line_error(code, err, exit_code=2, match="--routing")
    code, _, err = run(capsys, "analyze", tmp_path / "r.json", "--sample", 0)
    assert_one_line_error(code, err, exit_code=2, match="--sample")
    code, _, err = run(capsys, "analyze", tmp_path / "r.json", "--format", "xml")
    assert_one_line_error(code, err, exit_code=2, match="invalid choice")


def test_analyze_with_real_metrics(capsys, tmp_path):
    run(capsys, "-q", "generate", "testring", "--num_switches", 8, "--seed", 1, "-o", tmp_path / "r.json")
    code, out, err = run(capsys, "analyze", tmp_path / "r.json", "--format", "json")
    assert code == 0, err
    row = json.loads(out)[0]
    assert row["switches"] == 8 and row["links"] == 8


# ---------------------------------------------------------------------------- reproduce / convert
def test_reproduce_list_and_run(capsys, tmp_path):
    code, out, _ = run(capsys, "reproduce")
    assert code == 0 and any(l.startswith("testexp") and "Nobody 2024" in l for l in out.splitlines())
    csv_path = tmp_path / "t.csv"
    code, out, err = run(capsys, "reproduce", "testexp", "--size", 4, "--label", "cables", "--csv", csv_path)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Test table of 4 rows"
    assert any(l.split() == ["3", "1.5"] for l in lines)
    assert "side" in lines and "note about cables" in out
    assert out.index("Test table") < out.index("note about cables")
    assert pd.read_csv(csv_path, comment="#")["ours"].tolist() == [0.0, 0.5, 1.0, 1.5]
    header = [l for l in csv_path.read_text().splitlines() if l.startswith("#")]
    assert header[0] == "# topogen reproduce testexp"
    assert '# params: {"size": 4, "label": "cables"}' in header and any("topogen_version" in l for l in header)
    code, out, _ = run(capsys, "reproduce", "testexp", "--format", "json")
    doc = json.loads(out)
    assert doc["title"] == "Test table of 3 rows" and len(doc["table"]) == 3 and doc["notes"]


def test_reproduce_errors(capsys):
    code, _, err = run(capsys, "reproduce", "testexpp")
    assert_one_line_error(code, err, exit_code=2, match="did you mean testexp")
    code, _, err = run(capsys, "reproduce", "testexp", "--sise", 3)
    assert_one_line_error(code, err, exit_code=2, match="did you mean --size")
    code, _, err = run(capsys, "reproduce", "testexp", "--size", "big")
    assert_one_line_error(code, err, exit_code=2, match="size must be an integer")


def test_convert(capsys, tmp_path):
    run(capsys, "-q", "generate", "testring", "--num_switches", 7, "--seed", 2, "-o", tmp_path / "r.json")
    code, _, err = run(capsys, "convert", tmp_path / "r.json", tmp_path / "r.graphml")
    assert code == 0, err
    t1, l1 = load(tmp_path / "r.json")
    t2, l2 = load(tmp_path / "r.graphml")
    np.testing.assert_array_equal(t1.edges, t2.edges)
    assert t1.params == t2.params and t1.seed == t2.seed and l1.floor == l2.floor


# ---------------------------------------------------------------------------- progress helper
def test_progress_draws_only_on_tty(monkeypatch):
    import io

    from topogen import _progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    assert list(_progress.progress(range(5), "x", stream=pipe)) == list(range(5))
    assert pipe.getvalue() == ""
    with _progress.Progress(3, "work", stream=tty, min_interval=0) as bar:
        bar.update()
        bar.status("item 1")
    assert "work: [" in tty.getvalue() and "1/3" in tty.getvalue() and "item 1" in tty.getvalue()
    quiet = Tty()
    _progress.set_quiet(True)
    try:
        list(_progress.progress(range(3), "x", stream=quiet))
    finally:
        _progress.set_quiet(False)
    assert quiet.getvalue() == ""
    monkeypatch.setenv("TOPOGEN_QUIET", "1")
    assert not _progress.enabled(Tty())


# ---------------------------------------------------------------------------- installed entry point
def test_installed_entry_point(tmp_path):
    exe = shutil.which("topogen")
    if exe is None:
        pytest.skip("topogen entry point not on PATH")
    env = dict(os.environ, TOPOGEN_QUIET="1")
    root = Path(cli.__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    bad = subprocess.run([exe, "generate", "no-such-topology", "-o", str(tmp_path / "x.json")],
                         capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("topogen: error: unknown topology")
    assert list(tmp_path.iterdir()) == []
    mod = subprocess.run([sys.executable, "-m", "topogen", "--version"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert mod.returncode == 0 and mod.stdout.startswith("topogen ")


# ---------------------------------------------------------------------------- --seed everywhere
def _seed_commands():
    """Every sub-command (and sub-sub-command) that has a --seed option, as argv prefixes
    with their required arguments (files that need not exist: the seed is read first)."""
    out, seen = [], set()
    parser = cli.build_parser()

    def walk(p, prefix):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if subs:
            for name, sp in subs[0].choices.items():
                if id(sp) not in seen:  # aliases (analyse) share their parser
                    seen.add(id(sp))
                    walk(sp, prefix + [name])
            return
        if "--seed" not in p._option_string_actions:
            return
        argv = list(prefix)
        for a in p._actions:
            if a.option_strings and a.required:
                argv += [a.option_strings[0], "out.x"]
            elif not a.option_strings and a.nargs not in ("?", "*", argparse.SUPPRESS) and a.dest != "help":
                argv += ["in.json"] * (1 if a.nargs in (None, "+") else int(a.nargs))
        out.append(argv)

    walk(parser, [])
    return out


SEED_COMMANDS = _seed_commands()


def test_seed_commands_found():
    found = {tuple(a[:2]) if a[0] in ("run", "layout") else a[0] for a in SEED_COMMANDS}
    assert found >= {"generate", "analyze", "route", "simulate", "crossval", "draw", "optimize",
                     ("run", "booksim"), ("run", "sst"), ("layout", "cluster"), ("layout", "anneal")}


@pytest.mark.parametrize("bad, shown", [("abc", "got 'abc'; pass e.g. --seed 1"), ("-4", "got -4"),
                                        ("1" * 20, "got " + "1" * 20)])
@pytest.mark.parametrize("argv", SEED_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_seed_option_one_parser(capsys, tmp_path, monkeypatch, argv, bad, shown):
    """`--seed` means the same on every command: an integer in [0, 2**63-1], refused with one
    message (a usage error) before any file is read or written."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv, "--seed", bad)
    assert_one_line_error(code, err, exit_code=2, match="seed must be an integer in [0, 2**63-1], " + shown)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- analyze --bisection
def test_analyze_bisection_method_and_kahip_mode(capsys):
    import json

    code, out, _ = run(capsys, "analyze", "torus", "--dims", "6,6", "--bisection", "--bisection-method", "metis",
                       "--bisection-runs", 2, "--seed", 3, "--format", "json", "-q")
    assert code == 0
    row = json.loads(out)[0] if out.lstrip().startswith("[") else json.loads(out)
    assert row["bisection_method"] == "metis" and row["bisection_search"] == "metis x2"
    assert row["bisection_links"] == 12  # 6x6 torus: 2 x 6 links cross a halving cut
    code, out, _ = run(capsys, "analyze", "torus", "--dims", "6,6", "--bisection", "--seed", 3,
                       "--format", "json", "-q")
    row = json.loads(out)[0] if out.lstrip().startswith("[") else json.loads(out)
    assert code == 0 and row["bisection_search"] == "auto x4 (kahip eco)"


@pytest.mark.parametrize("argv, says", [
    (["--bisection-method", "metis"], "--bisection-method applies to --bisection"),
    (["--kahip-mode", "fast"], "--kahip-mode applies to --bisection"),
    (["--bisection", "--bisection-method", "metis", "--kahip-mode", "fast"], "--bisection-method metis runs METIS alone"),
    (["--bisection", "--bisection-method", "scotch"], "invalid choice: 'scotch'"),
])
def test_analyze_bisection_options_refused(capsys, argv, says):
    code, _, err = run(capsys, "analyze", "torus", "--dims", "4,4", *argv)
    assert_one_line_error(code, err, match=says)
