"""No string a user controls changes the meaning of a file topogen generates.

Every generated file (BookSim configuration and netlist, edge list, GraphML, JSON bundle,
SST bundle, SLURM job.sh / collect.sh) is written once for a benign name and once for each
nasty string; the nasty version must have the same lines and options, read back the same
way (BookSim's and sbatch's grammars are re-implemented here, independently of topogen's
code), or be refused with a one-line ParameterError before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import topogen
from topogen.errors import ParameterError
from topogen.formats import load, save

NASTY = ["x\ntouch PWNED\n#", "a\rb", "a\u2028stats_out = /tmp/x;", "a;b", "$(id)", "`id`", "a b", "'", '"',
         "\x00", "\x1b[31m", "L" * 10000,
         # the other line breaks of str.splitlines, and a bidi override
         "a\x0bb", "a\x0cb", "a\x1cb", "a\x1db", "a\x1eb", "a\x85b", "a\u2029b", "a\u202eb"]
IDS = [repr(s)[:24] for s in NASTY]
BENIGN = "benign"

#: characters no generated text may hold raw (besides the "\n" ending each line)
_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def raw_unsafe(text: str) -> list[str]:
    """Control, format and separator characters of ``text`` other than its line ends."""
    return sorted({c for c in text.replace("\n", "") if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")})


def has_control(text: str) -> bool:
    return bool(raw_unsafe(text.replace("\n", "\r")))


# ------------------------------------------------------------------ independent mini-parsers
def booksim_options(cfg: str) -> dict:
    """The options BookSim's parser (src/config.l, config.y) reads from ``cfg``: ``//`` starts a
    comment up to the next "\\n" (the only line break of its lexer), blanks are spaces, tabs
    and "\\r", and every statement is ``name = value ;``."""
    body = re.sub(r"//[^\n]*", "", cfg)
    out = {}
    for stmt in body.split(";"):
        toks = stmt.split()
        if not toks:
            continue
        text = " ".join(toks)
        m = re.fullmatch(r"([A-Za-z_\-][A-Za-z0-9_\-.]*) = (\S+)", text)
        assert m, f"BookSim would not parse {text[:80]!r}"
        assert m.group(1) not in out, f"option {m.group(1)} set twice"
        out[m.group(1)] = m.group(2)
    return out


def sbatch_options(script: str) -> list[str]:
    """The arguments sbatch reads from the ``#SBATCH`` lines of ``script`` (src/sbatch/opt.c:
    lines end at "\\n", parsing stops at the first command line, blanks split, '...' and "..."
    group, a backslash escapes the next character, an unquoted '#' ends the line)."""
    args = []
    for line in script.split("\n")[1:]:
        if not line.startswith("#SBATCH"):
            if line.strip() and not line.lstrip().startswith("#"):
                break
            continue
        cur, have, quote, esc = "", False, None, False
        for ch in line[len("#SBATCH"):]:
            if esc:
                cur, have, esc = cur + ch, True, False
            elif ch == "\\":
                esc = True
            elif quote:
                if ch == quote:
                    quote = None
                else:
                    cur += ch
            elif ch in "'\"":
                quote, have = ch, True
            elif ch == "#":
                break
            elif ch.isspace():
                if have:
                    args.append(cur)
                cur, have = "", False
            else:
                cur, have = cur + ch, True
        assert quote is None, f"sbatch: unmatched quote in {line!r}"
        if have:
            args.append(cur)
    return args


# ------------------------------------------------------------------ topologies
def _topology(name: str = BENIGN, version: str | None = None):
    from topogen.generators.classic import torus

    t = torus((3, 4), hosts_per_switch=1)
    t = dataclasses.replace(t, name=name, params={**t.params, "label": name},
                            version=version if version is not None else t.version)
    return t, topogen.place(t, topogen.Floor.skywalk(3, 4))


def _booksim_cfg(tmp_path, name):
    from topogen.export.booksim import export_booksim

    t, lay = _topology(name, version=name)
    exp = export_booksim(tmp_path / "bs", t, lay, stem="net", options={"injection_rate": 0.01})
    return exp.config_file.read_text(encoding="utf-8"), exp


@pytest.fixture(scope="module")
def benign_cfg(tmp_path_factory):
    return _booksim_cfg(tmp_path_factory.mktemp("benign"), BENIGN)[0]


# ------------------------------------------------------------------ BookSim
@pytest.mark.parametrize("nasty", NASTY, ids=IDS)
def test_booksim_config_keeps_its_options(nasty, tmp_path, benign_cfg):
    cfg, exp = _booksim_cfg(tmp_path, nasty)
    assert cfg.count("\n") == benign_cfg.count("\n")
    assert raw_unsafe(cfg) == []
    opts, good = booksim_options(cfg), booksim_options(benign_cfg)
    assert Path(opts.pop("network_file")).name == Path(good.pop("network_file")).name
    assert opts == good and "stats_out" not in opts
    # the exact name survives in the JSON metadata line and the sidecar
    from topogen.drivers.booksim import read_config_file

    assert read_config_file(exp.config_file)[1]["generator"] == nasty
    meta = exp.meta_file.read_text(encoding="utf-8")
    assert raw_unsafe(meta) == [] and json.loads(meta)["generator"] == nasty
    assert exp.network_file.read_text() == _booksim_cfg(tmp_path / "b", BENIGN)[1].network_file.read_text()


@pytest.mark.parametrize("nasty", NASTY, ids=IDS)
def test_booksim_render_escapes_every_metadata_value(nasty, benign_cfg):
    from topogen.export.booksim import render_config

    meta = {"generator": nasty, "topogen_version": nasty, "params": {nasty: nasty}, "seed": nasty}
    good = render_config("/n.anynet", metadata={"generator": "g", "topogen_version": "v", "params": {}, "seed": 1})
    bad = render_config("/n.anynet", metadata=meta)
    assert bad.count("\n") == good.count("\n") and raw_unsafe(bad) == []
    assert booksim_options(bad) == booksim_options(good)


@pytest.mark.parametrize("nasty", NASTY, ids=IDS)
def test_booksim_set_options_cannot_add_an_option(nasty):
    from topogen.drivers.cli import _parse_set
    from topogen.export.booksim import render_config

    for pair in (f"traffic={nasty}", f"{nasty}=1", f"traffic=uniform{nasty}", f"injection_rate=0.1{nasty}"):
        try:
            options = _parse_set([pair])
            text = render_config("/n.anynet", options=options)
        except ParameterError as exc:
            assert "\n" not in str(exc) and raw_unsafe(str(exc)) == []
            continue
        opts = booksim_options(text)
        base = set(booksim_options(render_config("/n.anynet")))
        assert base <= set(opts) <= base | {"traffic", "injection_rate"}


def test_booksim_set_refuses_option_separators():
    from topogen.export.booksim import format_option

    for value in ("uniform;stats_out=/tmp/x", "uniform\nstats_out", "a//b", "uniform stats", "a\u2028b",
                  "uniform\n", "uniform\r"):
        with pytest.raises(ParameterError, match="not a valid BookSim string token"):
            format_option("traffic", value)
    for name in ("stats_out\n", "a b", "traffic;x", "x=y"):
        with pytest.raises(ParameterError, match="unknown BookSim option"):
            format_option(name, 1)


def test_booksim_setup_is_a_plain_template_name():
    from topogen.export.booksim import render_config

    for setup in ("../booksim/vct33.cfg.j2", "/etc/passwd", "vct33\n", ".hidden.j2"):
        with pytest.raises(ParameterError, match="unknown BookSim setup"):
            render_config("/n.anynet", setup=setup)


def _booksim_binary():
    return os.environ.get("TOPOGEN_BOOKSIM") or shutil.which("booksim") or (
        "/usr/local/bin/booksim" if os.access("/usr/local/bin/booksim", os.X_OK) else None)


@pytest.mark.skipif(_booksim_binary() is None, reason="BookSim2 not installed")
def test_real_booksim_ignores_options_in_a_topology_name(tmp_path):
    """The crafted bundle goes through `python -m topogen run booksim`; every way of
    starting a line carries a stats_out payload, and BookSim must write none of them."""
    t, lay = _topology()
    seps = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"]
    name = "x" + "".join(f"{s}stats_out = {tmp_path}/PWNED{i};{s}//" for i, s in enumerate(seps))
    save(tmp_path / "t.json", t, lay)
    doc = json.loads((tmp_path / "t.json").read_text())
    doc["topology"]["name"] = doc["metadata"]["generator"] = name
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]), TOPOGEN_BOOKSIM=_booksim_binary())
    r = subprocess.run([sys.executable, "-m", "topogen", "-q", "run", "booksim", str(tmp_path / "evil.json"),
                        "--out-dir", str(tmp_path / "out"), "--rate", "0.01", "--set", "sample_period=100",
                        "--set", "max_samples=2"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not list(tmp_path.glob("PWNED*"))
    cfg = next((tmp_path / "out").glob("*.cfg")).read_text(encoding="utf-8")
    assert "stats_out" not in booksim_options(cfg) and raw_unsafe(cfg) == []


# ------------------------------------------------------------------ topology files
@pytest.mark.parametrize("nasty", NASTY, ids=IDS)
@pytest.mark.parametrize("ext", [".edges", ".json", ".graphml"])
def test_topology_files_keep_their_lines(nasty, ext, tmp_path):
    t, lay = _topology(nasty, version=nasty)
    good, _ = _topology()
    save(tmp_path / f"good{ext}", dataclasses.replace(good, version=BENIGN), lay)
    try:
        save(tmp_path / f"bad{ext}", t, lay)
    except ParameterError as exc:
        assert ext == ".graphml" and has_control(nasty), "only GraphML may refuse, and only control characters"
        assert "\n" not in str(exc) and raw_unsafe(str(exc)) == [] and "save as .json" in str(exc)
        assert not (tmp_path / f"bad{ext}").exists()
        return
    text = (tmp_path / f"bad{ext}").read_text(encoding="utf-8")
    assert raw_unsafe(text) == []
    if ext != ".graphml":  # XML text may hold a line break; its meaning is the same
        assert text.count("\n") == (tmp_path / f"good{ext}").read_text().count("\n")
    back, _ = load(tmp_path / f"bad{ext}")
    assert back.name == nasty and back.version == nasty


@pytest.mark.parametrize("nasty", [s for s in NASTY if has_control(s)],
                         ids=[repr(s)[:24] for s in NASTY if has_control(s)])
def test_edge_list_refuses_control_characters_in_link_kinds(nasty, tmp_path):
    t, lay = _topology()
    t = dataclasses.replace(t, kind_names=(f"k{nasty}", "dim1"))
    with pytest.raises(ParameterError, match="save as .json"):
        save(tmp_path / "t.edges", t, lay)
    assert not (tmp_path / "t.edges").exists()


@pytest.mark.parametrize("nasty", NASTY, ids=IDS)
def test_sst_bundle_keeps_its_lines(nasty, tmp_path):
    from topogen.export import sst as sx
    from topogen.routing.paths import nearest

    good, lay = _topology()
    bad = dataclasses.replace(good, name=nasty)
    a = sx.write_bundle(tmp_path / "a.json", good, lay, nearest(good, lay)).read_text(encoding="utf-8")
    b = sx.write_bundle(tmp_path / "b.json", bad, lay, nearest(bad, lay)).read_text(encoding="utf-8")
    assert a.count("\n") == b.count("\n") and raw_unsafe(b) == []
    assert json.loads(b)["metadata"]["generator"] == nasty


def test_sst_model_script_renders_no_user_string():
    """topogen_sst.py is a fixed program: the bundle (JSON) is its only input."""
    root = Path(topogen.__file__).resolve().parent / "templates" / "sst"
    assert sorted(p.name for p in root.iterdir() if p.is_file()) == ["topogen_sst.py"]
    text = (root / "topogen_sst.py").read_text(encoding="utf-8")
    assert "{{" not in text and "{%" not in text and "exec(" not in text and "eval(" not in text


# ------------------------------------------------------------------ SLURM scripts
SPEC = """
[experiment]
name = {name}

[axes]
topology = [{{ generator = "torus", params = {{ dims = [3, 3] }} }}]
load = [0.05]
"""


@pytest.mark.parametrize("nasty", NASTY + ["../../escaped", "/abs/name", "..", ".hidden", "-rf"],
                         ids=IDS + ["dotdot-path", "absolute", "dotdot", "hidden", "dash"])
def test_experiment_name_is_refused_at_load(nasty, tmp_path):
    from topogen.experiments.spec import load_experiment

    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.format(name=json.dumps(nasty)), encoding="utf-8")
    with pytest.raises(ParameterError) as exc:
        load_experiment(spec)
    msg = str(exc.value)
    assert "name in [experiment]" in msg and "A-Z a-z 0-9 . _ -" in msg
    assert "\n" not in msg and raw_unsafe(msg) == [] and len(msg) < 400
    assert list(tmp_path.iterdir()) == [spec]


def test_experiment_name_refused_even_without_the_spec_check(tmp_path):
    """write_submission checks the name itself (an Experiment built in Python)."""
    from topogen.experiments.slurm import SlurmOptions, write_submission
    from topogen.experiments.spec import parse_experiment

    exp = parse_experiment({"axes": {"topology": [{"generator": "torus", "params": {"dims": [3, 3]}}],
                                     "load": [0.05]}}, path=tmp_path / "s.toml")
    exp.name = "x\ntouch PWNED\n#"
    (tmp_path / "sub").mkdir()
    with pytest.raises(ParameterError, match="experiment name"):
        write_submission(tmp_path / "sub", exp, tmp_path / "st", exp.points, SlurmOptions())
    assert list((tmp_path / "sub").iterdir()) == []


def _fake_python(folder: Path) -> Path:
    fake = folder / "fake python3"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done > "$ARGV_OUT"\n')
    fake.chmod(0o755)
    return fake


def _submit_dry(tmp_path, store: Path, monkeypatch, **opts):
    from topogen.experiments.slurm import SlurmOptions, submit
    from topogen.experiments.spec import load_experiment
    from topogen.experiments.store import Store

    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.format(name='"inj"'), encoding="utf-8")
    exp = load_experiment(spec, store=store)
    options = SlurmOptions(**opts)  # refuses bad options before the store exists
    st = Store.open(exp.store, exp.name, create=True)
    return submit(exp, st, options, dry_run=True)


PATH_NASTY = ["a b", "a;b", "$(id)", "`id`", "'", '"', "a\\b", "#x", "100%x", "x\ntouch PWNED\n#", "a\rb",
              "a\u2028b", "\x1b[31m", "a\x85b", "a\x0bb"]


@pytest.mark.parametrize("nasty", PATH_NASTY, ids=[repr(s)[:24] for s in PATH_NASTY])
def test_job_scripts_quote_the_store_path(nasty, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    store = tmp_path / f"st{nasty}ore"
    fake = _fake_python(tmp_path)
    try:
        info = _submit_dry(tmp_path, store, monkeypatch, python=str(fake))
    except ParameterError as exc:
        assert has_control(nasty) or "\\" in nasty, f"{nasty!r} is writable and must be quoted, not refused"
        assert "\n" not in str(exc) and raw_unsafe(str(exc)) == []
        assert not (store / "slurm").exists()
        return
    assert not has_control(nasty) and "\\" not in nasty, f"{nasty!r} must be refused"
    folder = Path(info["folder"])
    for script, pattern in (("job.sh", "%A_%a.out"), ("collect.sh", "collect_%j.out")):
        text = (folder / script).read_text()
        assert raw_unsafe(text) == []
        assert subprocess.run(["bash", "-n", str(folder / script)]).returncode == 0
        args = sbatch_options(text)
        out = [a[len("--output="):] for a in args if a.startswith("--output=")]
        assert out == [str(folder / "logs").replace("%", "%%") + "/" + pattern]
        assert f"--chdir={work}" in args and all(a.startswith("--") for a in args)
        # bash runs it: the fake python gets exactly the paths, nothing else runs
        argv_out = tmp_path / f"argv-{script}"
        env = dict(os.environ, ARGV_OUT=str(argv_out), SLURM_ARRAY_TASK_ID="0")
        r = subprocess.run(["bash", str(folder / script)], cwd=work, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        argv = argv_out.read_bytes().decode().split("\0")[:-1]
        assert argv[:4] == ["-m", "topogen", "experiment", "task" if script == "job.sh" else "collect"]
        assert argv[4] == str(folder / "points.json")
        if script == "collect.sh":
            assert argv[5:] == ["-o", str(store.resolve() / "results.csv")]
        assert not list(work.iterdir()) and not list(tmp_path.glob("PWNED"))


@pytest.mark.parametrize("nasty", NASTY, ids=IDS)
def test_sbatch_option_values_are_quoted_or_refused(nasty, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in ("partition", "account", "time", "mem"):
        try:
            info = _submit_dry(tmp_path, tmp_path / f"st-{key}", monkeypatch, **{key: nasty})
        except ParameterError as exc:
            assert "\n" not in str(exc)
            assert not (tmp_path / f"st-{key}").exists()
            continue
        text = (Path(info["folder"]) / "job.sh").read_text()
        assert raw_unsafe(text) == []
        assert f"--{key}={nasty}" in sbatch_options(text)


@pytest.mark.parametrize("extra", [[1, 2], ["--comment=x\ntouch PWNED"], ["--gres gpu:1"], ["-p debug"],
                                   ["gres=gpu:1"], ["--x # y"], ['--comment="open'], ["--a\u2028b"],
                                   "--gres=gpu:1", [None], ["--hetjob"]])
def test_slurm_extra_is_checked_at_spec_load(extra, tmp_path):
    from topogen.experiments.slurm import SlurmOptions
    from topogen.experiments.spec import parse_experiment

    doc = {"axes": {"topology": [{"generator": "torus", "params": {"dims": [3, 3]}}], "load": [0.05]},
           "slurm": {"extra": extra}}
    with pytest.raises(ParameterError) as exc:
        parse_experiment(doc, path=tmp_path / "s.toml")
    assert "\n" not in str(exc.value) and "extra" in str(exc.value)
    with pytest.raises(ParameterError):
        SlurmOptions(extra=extra)


def test_slurm_extra_keeps_quoted_options(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    extra = ["--gres=gpu:1", "--comment='two words'", '--constraint="a|b"', "--mail-type=END,FAIL"]
    info = _submit_dry(tmp_path, tmp_path / "st", monkeypatch, extra=extra)
    args = sbatch_options((Path(info["folder"]) / "job.sh").read_text())
    for want in ("--gres=gpu:1", "--comment=two words", "--constraint=a|b", "--mail-type=END,FAIL"):
        assert want in args


def test_cli_submit_refuses_an_injected_name(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.format(name=json.dumps("x\ntouch PWNED\n#")), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    r = subprocess.run([sys.executable, "-m", "topogen", "experiment", "submit", str(spec), "--dry-run"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "name in [experiment]" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_crossval_table_header_stays_one_comment_line(tmp_path):
    from topogen.generators.classic import torus
    from topogen.reproduce import crossval as cv

    t = torus((3, 3))
    src = tmp_path / "t\nu,v,w\r1,2,3\u2028.json"  # a file name that would add table rows
    save(src, t, topogen.place(t, topogen.Floor.skywalk(3, 3)))
    res = cv.crossval(dict(topology=str(src), loads=(0.05,), simulators=("reference",), warmup_periods=1,
                           max_samples=4, sample_period=300), tmp_path / "out")
    for name in ("crossval", "saturation"):
        text = Path(res.files[name]).read_text(encoding="utf-8")
        first, rest = text.split("\n", 1)
        assert first.startswith("# topogen crossval: ") and raw_unsafe(text) == []
        assert not any(line.startswith("1,2,3") for line in text.split("\n"))
