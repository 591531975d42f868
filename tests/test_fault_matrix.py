"""The fault matrix: bad parameters for every registered generator and
malformed files of every input format, run through the command line.

Every case asserts what a user may rely on: a non-zero exit status that is not 70
(internal error), exactly one line on stderr (``topogen: error: ...``), no traceback, and
the working folder unchanged (nothing created, deleted or modified).  The bulk runs
in-process through :func:`topogen.cli.main` (process start-up would dominate); a few cases
run as real subprocesses (``python3 -m topogen``) to check the same from outside.  The
``slow`` variant runs every case as a subprocess.

The bad values are derived from each generator's typed parameters in the registry
(0, negative, non-integer, non-numeric, huge, unknown choices), applied one at a time to a
small valid baseline.  A handful of such values are valid for a particular parameter
(``hosts_per_switch 0``, ``instance 0``...): :data:`VALID` lists them with the
reason, and the matrix checks they succeed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

import topogen
import topogen.cli as cli
from topogen import registry

_ROOT = Path(topogen.__file__).resolve().parents[1]

#: A small valid parameter set of every generator (each is checked to succeed).
BASELINES = {
    "angelfish": "", "angelfish-lite": "",
    "cabinet-dragonfly": "--switches_per_cabinet 4 --cabinets 9",
    "cabinet-hypercube": "--switches_per_cabinet 4 --cabinets 4",
    "cabinet-hyperx": "--switches_per_cabinet 4 --cabinets 4",
    "cabinet-torus": "--switches_per_cabinet 4 --cabinets 4 --degree 4",
    "dln": "--num_switches 32 --x 2 --seed 1", "dragonfly": "--a 4 --p 2 --h 2",
    "dsn": "--num_switches 32", "dsnf": "--num_switches 32",
    "fat-tree": "--radix 6 --levels 2", "kary-ntree": "--k 3 --n 2",
    "flattened-butterfly": "--k 3 --n 2", "flying-fish": "--n 3", "flying-fish-lite": "--n 3",
    "folded-hypercube": "--dimension 4",
    "gau": "--num_switches 32 --degree 4 --alpha 1.0 --seed 1",
    "hoffman-singleton": "", "hypercube": "--dimension 4", "hyperx": "--dims 3,3",
    "long-hop": "--dimension 4",
    "memsys-dragonfly": "--p 3", "mesh": "--dims 3,3", "myrinet-clos": "--hosts 32",
    "nbr": "--num_switches 32 --degree 4 --p 0.5 --seed 1",
    "p-fhypercube": "--dimension 5 --switches_per_cabinet 8 --seed 1",
    "p-hypercube": "--dimension 5 --switches_per_cabinet 8 --seed 1",
    "p-myrinet-clos": "--hosts 32 --seed 1",
    "p-torus": "--degree 4 --switches_per_cabinet 4 --seed 1",
    "petersen": "", "twisted-hypercube": "--dimension 4",
    "pf-fhypercube": "--dimension 5 --switches_per_cabinet 8 --seed 1",
    "pf-hypercube": "--dimension 5 --switches_per_cabinet 8 --seed 1",
    "pf-myrinet-clos": "--hosts 32 --seed 1",
    "pf-torus": "--degree 4 --switches_per_cabinet 4 --seed 1",
    "polarfly": "--q 3", "random": "--num_switches 32 --degree 4 --seed 1 --instances 1",
    "ring": "--num_switches 32 --degree 4 --seed 1",
    "skywalk": "--switches_per_cabinet 4 --cabinets 9 --intra_degree 2 --inter_degree 2 "
               "--seed 1 --instances 1",
    "slimfly": "--q 5", "torus": "--dims 3,3",
}

HUGE = "99999999999999"
#: Bad values by parameter type (the default run uses the first ones, ``slow`` all).
BAD_VALUES = {
    "int": ["0", "-1", "abc", "1.5", HUGE, ""],
    "float": ["nan", "-1", "abc", "inf", "1e400"],
    "tuple": ["0,3", "-1,3", "a,b", "3000000,3000000,3000", ""],
    "choice": ["bogus", ""],
    "bool": ["maybe"],
    "seed": ["-1", "abc", "1.5"],
}
FAST = {"int": 4, "float": 3, "tuple": 4, "choice": 1, "bool": 1, "seed": 2}

#: (generator, parameter, value) that are valid after all, and why.
VALID = {
    **{(g, "hosts_per_switch", "0"): "a switch may have no hosts" for g in BASELINES},
    ("dln", "instance", "0"): "the first instance",
    ("gau", "instance", "0"): "the first instance",
    ("nbr", "instance", "0"): "the first instance",
    ("random", "instance", "0"): "the first instance",
    ("ring", "instance", "0"): "the first instance",
    ("skywalk", "instance", "0"): "the first instance",
    ("dragonfly", "p", "0"): "routers without terminals",
    ("dsnf", "switches_per_cabinet", HUGE): "one cabinet holds every switch",
    ("hypercube", "dimension", "0"): "the 0-cube: one switch",
    **{(g, "max_attempts", HUGE): "attempts stop at the first connected permutation"
       for g in BASELINES if g.startswith(("p-", "pf-"))},
    **{(g, "switches_per_cabinet", HUGE): "one cabinet holds every switch"
       for g in BASELINES if g.startswith(("p-", "pf-", "myrinet")) and not g.endswith("torus")},
}


def _kind(p) -> str | None:
    if p.name == "seed":
        return "seed"
    t = p.type_name
    if t in ("int", "int|None"):
        return "int"
    if t in ("float", "float|None"):
        return "float"
    if "," in t:
        return "tuple"
    if t.startswith("{"):
        return "choice"
    if t == "bool":
        return "bool"
    return None


def parameter_cases(full: bool):
    """(generator, parameter, value) of the matrix, derived from the registry."""
    out = []
    for name, spec in registry.generators().items():
        for p in spec.params:
            kind = _kind(p)
            if kind is None:
                continue
            values = BAD_VALUES[kind] if full else BAD_VALUES[kind][:FAST[kind]]
            if type(None) in typing.get_args(p.type):  # "" (like "none") unsets an optional one
                values = [v for v in values if v]
            out.extend((name, p.name, v) for v in values)
    return out


def _argv(name: str, param: str, value: str, out: str) -> list[str]:
    base = BASELINES[name].split()
    if "--" + param in base:
        i = base.index("--" + param)
        del base[i:i + 2]
    return ["generate", name, *base, f"--{param}={value}", "-o", out, "-q"]


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with a digest of its content."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        out[rel] = "dir" if p.is_dir() else hashlib.sha1(p.read_bytes()).hexdigest()
    return out


def check_refusal(code: int, err: str, before: dict, after: dict, what) -> None:
    assert code not in (0, cli.EXIT_INTERNAL), (what, code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topogen: error: "), (what, err)
    assert "Traceback" not in err and "internal error" not in err, (what, err)
    assert after == before, (what, set(after) ^ set(before))


def run_inprocess(argv, capsys):
    capsys.readouterr()
    code = cli.main(argv)
    return code, capsys.readouterr().err


def run_subprocess(argv, cwd: Path):
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    proc = subprocess.run([sys.executable, "-m", "topogen", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stderr


# ============================================================================ generators
def test_baselines_cover_every_generator_and_succeed(tmp_path, capsys, monkeypatch):
    assert set(BASELINES) == set(registry.names())
    monkeypatch.chdir(tmp_path)
    for name, base in BASELINES.items():
        code, err = run_inprocess(["generate", name, *base.split(), "-o", f"{name}.json", "-q"],
                                  capsys)
        assert code == 0 and (tmp_path / f"{name}.json").is_file(), (name, err)


def _generator_cases(name: str, full: bool):
    return [c for c in parameter_cases(full) if c[0] == name]


def _run_generator_cases(name, full, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    for gen, param, value in _generator_cases(name, full):
        code, err = run_inprocess(_argv(gen, param, value, "out.json"), capsys)
        if (gen, param, value) in VALID:
            assert code == 0, (gen, param, value, err)
            (tmp_path / "out.json").unlink()
            continue
        check_refusal(code, err, before, snapshot(tmp_path), (gen, param, value))


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_bad_generator_parameters(name, tmp_path, capsys, monkeypatch):
    _run_generator_cases(name, False, tmp_path, capsys, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BASELINES))
def test_bad_generator_parameters_all_values(name, tmp_path, capsys, monkeypatch):
    _run_generator_cases(name, True, tmp_path, capsys, monkeypatch)


@pytest.mark.parametrize("case", [("torus", "dims", "0,3"), ("hypercube", "dimension", HUGE),
                                  ("random", "degree", "abc")], ids=str)
def test_bad_generator_parameters_as_subprocesses(case, tmp_path):
    before = snapshot(tmp_path)
    code, err = run_subprocess(_argv(*case, "out.json"), tmp_path)
    check_refusal(code, err, before, snapshot(tmp_path), case)


@pytest.mark.slow
def test_every_bad_generator_parameter_as_a_subprocess(tmp_path):
    before = snapshot(tmp_path)
    for case in parameter_cases(True):
        if case in VALID:
            continue
        code, err = run_subprocess(_argv(*case, "out.json"), tmp_path)
        check_refusal(code, err, before, snapshot(tmp_path), case)


# ============================================================================ input files
def _valid_inputs(folder: Path) -> dict[str, bytes]:
    """Valid files of every format, to be corrupted."""
    from topogen import formats
    from topogen.export.sst import write_bundle as write_sst_bundle
    from topogen.layout import default_layout
    from topogen.results import make_row, write_results
    from topogen.routing import nearest

    topo = registry.generate("torus", dims=(3, 3))
    layout = default_layout(topo)
    for ext in ("json", "edges", "graphml"):
        formats.save(folder / f"t.{ext}", topo, layout)
    nearest(topo, layout).save(folder / "r")
    write_sst_bundle(folder / "b.sst.json", topo, layout, nearest(topo, layout))
    row = make_row(simulator="reference", status="completed", offered_load=0.1)
    write_results(folder / "R.csv", [row])
    write_results(folder / "R.json", [row])
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


_BINARY = bytes(range(256)) * 8

#: Corruptions of a file's bytes, by name.
MUTATIONS = {
    "empty": lambda b: b"",
    "binary": lambda b: _BINARY,
    "truncated": _truncate,
    "utf16": lambda b: b.decode("utf-8").encode("utf-16"),
    "json-list": lambda b: b"[]\n",
    "json-null": lambda b: b"null\n",
}

#: Edits of the text of a valid file that keep it well-formed but wrong.
EDITS = {
    "t.edges": {
        "negative-id": lambda s: s.replace("\n0 1", "\n-4 1", 1),
        "id-beyond-int32": lambda s: s.replace("\n0 1", "\n0 4294967296", 1),
        "self-loop": lambda s: s.replace("\n0 1", "\n1 1", 1),
        "words": lambda s: s.replace("\n0 1", "\nzero one", 1),
        "count-mismatch": lambda s: s.replace("# num_links: 18", "# num_links: 19"),
    },
    "t.json": {
        "negative-id": lambda s: s.replace("[0, 1]", "[-3, 1]", 1),
        "num-switches-0": lambda s: s.replace('"num_switches": 9', '"num_switches": 0'),
        "num-switches-huge": lambda s: s.replace('"num_switches": 9', '"num_switches": 99999999999'),
        "wrong-format": lambda s: s.replace('"topogen-bundle"', '"something-else"'),
        "hosts-negative": lambda s: s.replace('"hosts_per_switch": 1,', '"hosts_per_switch": -1,', 1),
    },
    "t.graphml": {
        "not-xml": lambda s: "this is not XML\n",
        "no-graph": lambda s: '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"></graphml>',
    },
    "R.csv": {
        "missing-columns": lambda s: "a,b\n1,2\n",
        "bad-load": lambda s: s.replace(",0.1,", ",abc,", 1),
    },
    "R.json": {
        "rows-not-objects": lambda s: '{"rows": [1, 2]}',
    },
    "b.sst.json": {
        "wrong-version": lambda s: s.replace('"format_version": 1', '"format_version": 99', 1),
    },
}

#: The command that reads each input, and the mutations that apply to it.
READERS = {
    "t.json": (["analyze", "{f}", "--format", "json"], ["empty", "binary", "truncated", "utf16",
                                                         "json-list", "json-null"]),
    "t.edges": (["convert", "{f}", "out.json"], ["empty", "binary", "truncated", "utf16"]),
    "t.graphml": (["convert", "{f}", "out.json"], ["empty", "binary", "truncated", "utf16"]),
    "R.csv": (["results", "{f}"], ["empty", "binary", "truncated", "utf16"]),
    "R.json": (["results", "{f}"], ["empty", "binary", "truncated", "json-list", "json-null"]),
    "b.sst.json": (["run", "sst", "{f}", "--binary", "{sst}"],
                   ["empty", "binary", "truncated", "json-list"]),
}


def file_cases():
    out = []
    for name, (_, mutations) in READERS.items():
        out.extend((name, m) for m in mutations)
        out.extend((name, e) for e in EDITS.get(name, {}))
    return out


def _fake_sst(folder: Path) -> Path:
    """The stand-in ``sst`` of the driver tests (runs topogen's SST model on the bundle)."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from drivers import fakes
        from shared_paths import FIXTURES
    finally:
        sys.path.pop(0)
    if not (FIXTURES / "sst").is_dir():
        pytest.skip(f"no SST fixtures in {FIXTURES}")
    return fakes.sst(folder, FIXTURES)


@pytest.fixture(scope="module")
def valid_inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("valid")
    return folder, _valid_inputs(folder)


def _corrupt(valid: dict[str, bytes], name: str, how: str) -> bytes:
    data = valid[name]
    if how in MUTATIONS:
        return MUTATIONS[how](data)
    edited = EDITS[name][how](data.decode("utf-8")).encode("utf-8")
    assert edited != data, f"edit {how} of {name} changed nothing"
    return edited


@pytest.mark.parametrize("name", sorted(READERS))
def test_malformed_input_files(name, valid_inputs, tmp_path, capsys, monkeypatch):
    """Every mutation of every input format, read by the command that takes it."""
    _, valid = valid_inputs
    monkeypatch.chdir(tmp_path)
    fake_sst = _fake_sst(tmp_path.parent / f"{tmp_path.name}-bin") if name == "b.sst.json" else ""
    argv_t, _ = READERS[name]
    failures = []
    for fname, how in [c for c in file_cases() if c[0] == name]:
        (tmp_path / fname).write_bytes(_corrupt(valid, fname, how))
        before = snapshot(tmp_path)
        argv = [a.format(f=fname, sst=fake_sst) for a in argv_t]
        code, err = run_inprocess(argv, capsys)
        try:
            check_refusal(code, err, before, snapshot(tmp_path), (fname, how))
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
        (tmp_path / fname).unlink()
    assert not failures, "\n".join(failures)


#: Corruptions of a routing folder: (file, new content or callable on the valid bytes).
ROUTING_CASES = {
    "routing-json-list": ("routing.json", lambda b: b"[]\n"),
    "routing-json-binary": ("routing.json", lambda b: _BINARY),
    "routing-json-truncated": ("routing.json", _truncate),
    "no-algorithm": ("routing.json", lambda b: _json_edit(b, algorithm=None)),
    "num-vcs-0": ("routing.json", lambda b: _json_edit(b, num_vcs=0)),
    "unknown-kind": ("routing.json", lambda b: _json_edit(b, kind="magic")),
    "ranks-pickled": ("ranks.npy", lambda b: _npy(np.array([{"x": 1}], dtype=object))),
    "ranks-garbage": ("ranks.npy", lambda b: b"garbage"),
    "ranks-truncated": ("ranks.npy", _truncate),
    "ranks-out-of-range": ("ranks.npy", lambda b: _npy(np.full((1, 9, 9), 7, dtype=np.uint8))),
    "topology-swapped": ("topology.json", lambda b: _other_topology()),
    "topology-binary": ("topology.json", lambda b: _BINARY),
    "topology-missing": ("topology.json", None),
}


def _json_edit(data: bytes, **changes) -> bytes:
    md = json.loads(data)
    for k, v in changes.items():
        if v is None:
            md.pop(k)
        else:
            md[k] = v
    return json.dumps(md).encode()


def _npy(arr) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=True)
    return buf.getvalue()


def _other_topology() -> bytes:
    import tempfile

    from topogen import formats

    with tempfile.TemporaryDirectory() as d:
        # 9 switches of degree 2..4 like the 3x3 torus's 4: the ranks still fit
        formats.save(Path(d) / "o.json", registry.generate("mesh", dims=(3, 3)))
        return (Path(d) / "o.json").read_bytes()


@pytest.mark.parametrize("reader", [["check-deadlock", "{d}"],
                                    ["simulate", "{d}", "--max-samples", "4",
                                     "--warmup-periods", "1", "--seed", "1"]],
                         ids=["check-deadlock", "simulate"])
def test_malformed_routing_folders(reader, valid_inputs, tmp_path, capsys, monkeypatch):
    src, _ = valid_inputs
    monkeypatch.chdir(tmp_path)
    for case, (fname, change) in ROUTING_CASES.items():
        d = tmp_path / case
        shutil.copytree(src / "r", d)
        if change is None:
            (d / fname).unlink()
        else:
            (d / fname).write_bytes(change((d / fname).read_bytes()))
        before = snapshot(tmp_path)
        code, err = run_inprocess([a.format(d=d.name) for a in reader], capsys)
        check_refusal(code, err, before, snapshot(tmp_path), case)
        assert code == 3, (case, err)  # FormatError
        shutil.rmtree(d)


def test_malformed_inputs_as_subprocesses(valid_inputs, tmp_path):
    _, valid = valid_inputs
    for fname, how, argv in [("t.edges", "id-beyond-int32", ["convert", "t.edges", "o.json"]),
                             ("R.csv", "empty", ["results", "R.csv"]),
                             ("t.json", "binary", ["analyze", "t.json"])]:
        (tmp_path / fname).write_bytes(_corrupt(valid, fname, how))
        before = snapshot(tmp_path)
        code, err = run_subprocess(argv, tmp_path)
        check_refusal(code, err, before, snapshot(tmp_path), (fname, how))


@pytest.mark.booksim
@pytest.mark.parametrize("content", [b"", _BINARY, b"topology = anynet\nnetwork_file = = ;;\n",
                                     b"topology = anynet;\nnetwork_file = nothere.anynet;\n"],
                         ids=["empty", "binary", "syntax", "missing-network"])
def test_malformed_booksim_configs(content, tmp_path, capsys, monkeypatch):
    """A bad .cfg reaches BookSim, which rejects it: one line, exit 'simulator failed',
    and only the run's own outputs (raw log, results row) in its --out-dir."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.cfg").write_bytes(content)
    before = snapshot(tmp_path)
    code, err = run_inprocess(["run", "booksim", "x.cfg", "--out-dir", "od", "--timeout", "60"],
                              capsys)
    after = {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("od")}
    check_refusal(code, err, before, after, content[:20])
