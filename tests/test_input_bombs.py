"""Size, memory and time bombs in input files: every file topogen reads is refused up
front with a topogen error, without allocating what it claims, without blocking, and
through the CLI with a one-line message and a non-zero exit status other than 70
(internal error) or 71 (out of memory)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

import pytest
from numpy.lib import format as npf

from topogen._input import MAX_DEPTH, check_depth, parse_json, read_text_file
from topogen.errors import FormatError, ParameterError, TopogenError

ROOT = Path(__file__).resolve().parents[1]
DEEP = 100_000

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")


# ============================================================================ helpers
@contextmanager
def deadline(seconds: int = 10):
    """Fail (instead of hanging the suite) if the block blocks for ``seconds``."""

    def expired(signum, frame):
        raise TimeoutError(f"the reader blocked for {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@contextmanager
def address_space_cap(extra: int = 2 << 30):
    """Cap this process's address space at its current size plus ``extra`` for the block,
    so that a reader that does allocate what a file claims fails with MemoryError instead
    of exhausting the machine."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status", encoding="ascii") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    cap = size + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def refused_in_library(call, match: str | None = None, *, peak_mb: float = 200):
    """``call()`` raises a TopogenError (matching ``match``), within 10 s and without
    more than ``peak_mb`` MB of traced allocations."""
    tracemalloc.start()
    try:
        with deadline(10), address_space_cap():
            with pytest.raises(TopogenError, match=match) as info:
                call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < peak_mb * 1e6, f"{peak / 1e6:.0f} MB allocated before refusing"
    return info.value


#: Runs the CLI as its child under a 4 GiB address-space limit (so a regression fails
#: with MemoryError instead of swapping the machine) and reports its exit status, wall
#: time and peak memory (ru_maxrss of the children, KiB on Linux).
_RUNNER = r"""
import json, resource, subprocess, sys, time
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
start = time.monotonic()
try:
    proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=30, preexec_fn=limit)
    rc, err = proc.returncode, proc.stderr
except subprocess.TimeoutExpired:
    rc, err = None, "timed out after 30 s"
wall = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": rc, "stderr": err, "wall": wall, "maxrss_kb": rss}))
"""


def refused_by_cli(*args, cwd, match: str | None = None, env=None):
    """``topogen ARGS`` exits non-zero (not 70/71) with one ``topogen: error:`` line,
    in under 10 s and under 1 GB of memory."""
    run_env = dict(os.environ)
    run_env["PYTHONPATH"] = str(ROOT) + os.pathsep + run_env.get("PYTHONPATH", "")
    run_env["TOPOGEN_QUIET"] = "1"
    run_env.update(env or {})
    out = subprocess.run([sys.executable, "-c", _RUNNER, sys.executable, "-m", "topogen", *map(str, args)],
                         capture_output=True, text=True, timeout=60, cwd=cwd, env=run_env)
    report = json.loads(out.stdout)
    err = report["stderr"]
    assert report["rc"] not in (None, 0, 70, 71), report
    assert "Traceback" not in err and err.startswith("topogen: error:"), err
    assert len(err.strip().splitlines()) == 1, err
    if match is not None:
        import re

        assert re.search(match, err), err
    assert report["wall"] < 10, report
    assert report["maxrss_kb"] * 1024 < 1e9, report
    return err


# ============================================================================ files
def _torus_bundle(tmp_path, name="t.json", layout=False) -> dict:
    from topogen import formats
    from topogen.generators.classic import torus
    from topogen.layout import Floor, place

    topology = torus((4, 4))
    path = tmp_path / name
    formats.save(path, topology, place(topology, Floor(4, 4), "sequential") if layout else None)
    return json.loads(path.read_text())


def _write_json(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def graphml_big_id(tmp_path) -> Path:
    path = tmp_path / "big.graphml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">\n'
        '<node id="0"/><node id="1"/><node id="1500000000"/>\n'
        '<edge source="0" target="1"/><edge source="1" target="1500000000"/>\n'
        "</graph></graphml>\n")
    return path


@pytest.fixture
def routing_folder(tmp_path) -> Path:
    from topogen.generators.classic import torus
    from topogen.routing import route

    folder = tmp_path / "rt"
    route(torus((4, 4)), algorithm="nr").save(folder)
    return folder


def _fifo(tmp_path, name="fifo.json") -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


# ============================================================================ GraphML ids
def test_graphml_node_id_1_5e9_is_refused_before_allocating(graphml_big_id, tmp_path):
    from topogen import formats

    err = refused_in_library(lambda: formats.load(graphml_big_id), "node id 1,500,000,000")
    assert isinstance(err, FormatError) and "number the switches 0..N-1" in str(err)
    refused_by_cli("analyze", graphml_big_id, cwd=tmp_path, match="1,500,000,001 switches")
    refused_by_cli("convert", graphml_big_id, tmp_path / "o.edges", cwd=tmp_path)


def test_graphml_with_a_few_gaps_in_its_ids_still_reads(tmp_path):
    from topogen import formats

    path = tmp_path / "gaps.graphml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">\n'
        '<node id="0"/><node id="1"/><node id="9"/>'
        '<edge source="0" target="1"/><edge source="1" target="9"/></graph></graphml>\n')
    topology, _ = formats.load(path)
    assert topology.num_switches == 10


def test_graphml_num_switches_attribute_must_match_its_nodes(tmp_path):
    from topogen import formats
    from topogen.generators.classic import torus

    path = tmp_path / "t.graphml"
    formats.save(path, torus((4, 4)))
    text = path.read_text()
    key = next(line for line in text.splitlines() if 'attr.name="num_switches"' in line)
    key_id = key.split('id="')[1].split('"')[0]
    path.write_text(text.replace(f'<data key="{key_id}">16</data>', f'<data key="{key_id}">1000000000</data>'))
    refused_in_library(lambda: formats.load(path), "num_switches is 1,000,000,000")


# ============================================================================ bundles
def test_bundle_claiming_a_million_switches_with_32_links(tmp_path):
    from topogen import formats

    doc = _torus_bundle(tmp_path)
    doc["topology"]["num_switches"] = 10**6  # 10**6 switches, one host each
    path = _write_json(tmp_path / "million.json", doc)
    refused_in_library(lambda: formats.load(path), "1,000,000 switches although the file names only 64")
    refused_by_cli("analyze", path, cwd=tmp_path, match="num_switches = 1,000,000")
    refused_by_cli("convert", path, tmp_path / "o.edges", cwd=tmp_path)
    refused_by_cli("route", path, "-o", tmp_path / "r", cwd=tmp_path)


def test_bundle_hosts_list_of_a_million_for_16_switches(tmp_path):
    from topogen import formats

    doc = _torus_bundle(tmp_path)
    doc["topology"]["hosts_per_switch"] = [1] * 10**6
    path = _write_json(tmp_path / "hosts.json", doc)
    refused_in_library(lambda: formats.load(path), "lists 1,000,000 switches, but num_switches is 16")
    refused_by_cli("analyze", path, cwd=tmp_path)


def test_bundle_hosts_beyond_host_ids(tmp_path):
    from topogen import formats

    doc = _torus_bundle(tmp_path)
    doc["topology"]["hosts_per_switch"] = 10**40
    path = _write_json(tmp_path / "hosts.json", doc)
    refused_in_library(lambda: formats.load(path), r"hosts_per_switch must be an integer in \[0, ")
    refused_by_cli("convert", path, tmp_path / "o.graphml", cwd=tmp_path)


@pytest.mark.parametrize("seed", [-1, 10**40, 2**63, 1.5, "7"])
def test_bundle_seed_outside_0_to_2_63_is_refused(tmp_path, seed):
    from topogen import formats

    doc = _torus_bundle(tmp_path)
    doc["topology"]["seed"] = seed
    path = _write_json(tmp_path / "seed.json", doc)
    refused_in_library(lambda: formats.load(path), r"topology.seed must be an integer in \[0, 2\*\*63-1\]")
    if seed in (-1, 10**40):
        out = tmp_path / "o.edges"
        refused_by_cli("convert", path, out, cwd=tmp_path, match="topology.seed")
        assert not out.exists()


def test_seed_2_63_minus_1_is_still_read(tmp_path):
    from topogen import formats

    doc = _torus_bundle(tmp_path)
    doc["topology"]["seed"] = 2**63 - 1
    path = _write_json(tmp_path / "seed.json", doc)
    assert formats.load(path)[0].seed == 2**63 - 1


@pytest.mark.parametrize("fmt", ["edges", "graphml"])
def test_seed_range_in_edge_lists_and_graphml(tmp_path, fmt):
    from topogen import formats
    from topogen.generators.classic import torus

    path = tmp_path / f"t.{fmt}"
    formats.save(path, torus((4, 4)))
    text = path.read_text()
    if fmt == "edges":
        text = text.replace("# seed: null", "# seed: -1")
    else:
        key = next(line for line in text.splitlines() if 'attr.name="seed"' in line)
        key_id = key.split('id="')[1].split('"')[0]
        text = text.replace(f'<data key="{key_id}">null</data>', f'<data key="{key_id}">-1</data>')
    path.write_text(text)
    refused_in_library(lambda: formats.load(path), r"seed must be an integer in \[0, 2\*\*63-1\]")


def test_layout_seed_out_of_range(tmp_path):
    from topogen import formats

    doc = _torus_bundle(tmp_path, layout=True)
    doc["layout"]["seed"] = -5
    path = _write_json(tmp_path / "lay.json", doc)
    refused_in_library(lambda: formats.load(path), "layout.seed must be an integer")


# ============================================================================ floors
def test_floor_with_1e12_cabinets_in_a_file(tmp_path):
    from topogen import formats

    doc = _torus_bundle(tmp_path, layout=True)
    floor = doc["layout"]["floor"]
    floor["cabinets"] = 10**12
    floor.pop("rows")
    floor.pop("columns")
    path = _write_json(tmp_path / "floor.json", doc)
    refused_in_library(lambda: formats.load(path), r"cabinets must be an integer in \[1, 10,000,000\]")
    refused_by_cli("analyze", path, cwd=tmp_path, match="cabinets must be an integer")
    refused_by_cli("layout", "cluster", path, "-o", tmp_path / "o.json", cwd=tmp_path)


def test_floor_rows_and_columns_are_bounded_too():
    from topogen.layout import Floor

    with pytest.raises(ParameterError, match="rows must be an integer in"):
        Floor.from_dict({"cabinets": 4, "switches_per_cabinet": 4, "rows": 10**12, "columns": 1})
    with pytest.raises(ParameterError, match="a floor is an object"):
        Floor.from_dict([1, 2])


# ============================================================================ routing folders
def test_npy_header_claiming_a_huge_shape(routing_folder, tmp_path):
    from topogen.routing import load_routing

    with open(routing_folder / "ranks.npy", "wb") as f:
        npf.write_array_header_1_0(f, {"descr": "|u1", "fortran_order": False, "shape": (10**6, 10**6)})
        f.write(b"\0" * 100)
    err = refused_in_library(lambda: load_routing(routing_folder), r"shape \(1000000, 1000000\)")
    assert "100 B of data" in str(err)
    refused_by_cli("check-deadlock", routing_folder, cwd=tmp_path, match="931.3 GiB")


def test_npy_shape_other_than_the_metadata_says(routing_folder):
    import numpy as np

    from topogen.routing import load_routing

    np.save(routing_folder / "ranks.npy", np.zeros((1, 40, 40), dtype=np.uint8))
    refused_in_library(lambda: load_routing(routing_folder), r"expected \(1, 16, 16\)")


def test_npy_holding_objects_is_refused_from_its_header(routing_folder):
    with open(routing_folder / "ranks.npy", "wb") as f:
        npf.write_array_header_1_0(f, {"descr": "|O", "fortran_order": False, "shape": (1,)})
        f.write(b"\x80\x04N.")
    from topogen.routing import load_routing

    refused_in_library(lambda: load_routing(routing_folder), "not numbers")


@pytest.mark.parametrize("num_vcs", [10**9, 1e9, 256, 0])
def test_routing_folder_num_vcs_bounded(routing_folder, tmp_path, num_vcs):
    from topogen.routing import load_routing

    md = json.loads((routing_folder / "routing.json").read_text())
    md["num_vcs"] = num_vcs
    _write_json(routing_folder / "routing.json", md)
    refused_in_library(lambda: load_routing(routing_folder), r"num_vcs must be an integer in \[1, 255\]")
    if num_vcs == 10**9:
        refused_by_cli("check-deadlock", routing_folder, cwd=tmp_path, match="num_vcs")


def test_routing_json_nested_deep(routing_folder, tmp_path):
    from topogen.routing import load_routing

    (routing_folder / "routing.json").write_text("[" * DEEP + "]" * DEEP)
    refused_in_library(lambda: load_routing(routing_folder), "nested too deeply")
    refused_by_cli("check-deadlock", routing_folder, cwd=tmp_path, match="nested")


def test_ranks_npy_as_a_fifo(routing_folder, tmp_path):
    from topogen.routing import load_routing

    (routing_folder / "ranks.npy").unlink()
    os.mkfifo(routing_folder / "ranks.npy")
    refused_in_library(lambda: load_routing(routing_folder), "FIFO")
    refused_by_cli("check-deadlock", routing_folder, cwd=tmp_path, match="FIFO")


# ============================================================================ special files
@pytest.mark.parametrize("ext", ["json", "edges", "graphml"])
def test_dev_zero_as_a_topology_file(tmp_path, ext):
    from topogen import formats

    link = tmp_path / f"zero.{ext}"
    link.symlink_to("/dev/zero")
    refused_in_library(lambda: formats.load(link), "character device, not a regular file")
    refused_in_library(lambda: formats.load("/dev/zero", format={"edges": "edgelist"}.get(ext, ext)),
                       "character device")
    refused_by_cli("analyze", link, cwd=tmp_path, match="not a regular file")


@pytest.mark.parametrize("ext", ["json", "edges", "graphml"])
def test_fifo_without_writer_as_a_topology_file(tmp_path, ext):
    from topogen import formats

    fifo = _fifo(tmp_path, f"fifo.{ext}")
    refused_in_library(lambda: formats.load(fifo), "FIFO")
    refused_by_cli("analyze", fifo, cwd=tmp_path, match="FIFO")
    refused_by_cli("convert", fifo, tmp_path / "o.json", cwd=tmp_path, match="FIFO")


def test_fifo_and_dev_zero_as_specs_and_results(tmp_path):
    from topogen.experiments.spec import load_experiment
    from topogen.reproduce.crossval import load_spec
    from topogen.results import read_results

    fifo = _fifo(tmp_path, "spec.toml")
    refused_in_library(lambda: load_spec(fifo), "FIFO")
    refused_in_library(lambda: load_experiment(fifo), "FIFO")
    refused_by_cli("crossval", "--spec", fifo, "--out-dir", tmp_path / "cv", cwd=tmp_path, match="FIFO")
    refused_by_cli("experiment", "plan", fifo, cwd=tmp_path, match="FIFO")
    refused_by_cli("crossval", "--spec", "/dev/zero", "--out-dir", tmp_path / "cv", cwd=tmp_path,
                   match="character device")
    results = _fifo(tmp_path, "r.csv")
    refused_in_library(lambda: read_results(results), "FIFO")
    refused_by_cli("results", results, cwd=tmp_path, match="FIFO")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    refused_in_library(lambda: read_results(zero), "character device")


def test_size_limit_names_the_size_and_the_override(tmp_path):
    from topogen import formats

    _torus_bundle(tmp_path)
    path = tmp_path / "t.json"
    os.environ["TOPOGEN_MAX_INPUT_BYTES"] = "100"
    try:
        err = refused_in_library(lambda: formats.load(path), "more than the 100 B")
    finally:
        del os.environ["TOPOGEN_MAX_INPUT_BYTES"]
    assert "TOPOGEN_MAX_INPUT_BYTES" in str(err)
    refused_by_cli("analyze", path, cwd=tmp_path, env={"TOPOGEN_MAX_INPUT_BYTES": "100"},
                   match="raise the limit with TOPOGEN_MAX_INPUT_BYTES")
    assert formats.load(path)[0].num_switches == 16


def test_spec_size_limit_has_no_override(tmp_path):
    from topogen.reproduce.crossval import load_spec

    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * (17 << 20) + "\n")
    err = refused_in_library(lambda: load_spec(path), "16.0 MiB", peak_mb=300)
    assert "TOPOGEN_MAX_INPUT_BYTES" not in str(err)


# ============================================================================ nesting
def _deep_bundle_text() -> str:
    return '{"format": "topogen-bundle", "x": ' + "[" * DEEP + "]" * DEEP + "}"


def test_json_nested_100000_deep_in_every_json_reader(tmp_path):
    from topogen import formats
    from topogen.results import read_results

    path = tmp_path / "deep.json"
    path.write_text(_deep_bundle_text())
    refused_in_library(lambda: formats.load(path), "nested too deeply")
    refused_by_cli("analyze", path, cwd=tmp_path, match="nested too deeply")
    refused_by_cli("convert", path, tmp_path / "o.edges", cwd=tmp_path, match="nested")
    refused_in_library(lambda: read_results(path), "nested too deeply")
    refused_by_cli("results", path, cwd=tmp_path, match="nested")


def test_json_nested_past_the_limit_but_parseable(tmp_path):
    """200 levels parse in Python, but are refused: code that walks a parsed document recurses."""
    from topogen import formats

    doc = _torus_bundle(tmp_path)
    nested: list = []
    for _ in range(200):
        nested = [nested]
    doc["topology"]["params"] = {"x": nested}
    path = _write_json(tmp_path / "deep.json", doc)
    refused_in_library(lambda: formats.load(path), f"more than {MAX_DEPTH} levels")


def test_edge_list_header_nested_deep(tmp_path):
    from topogen import formats
    from topogen.generators.classic import torus

    path = tmp_path / "t.edges"
    formats.save(path, torus((4, 4)))
    lines = path.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("# params:"))
    lines[i] = "# params: " + "[" * DEEP + "]" * DEEP
    path.write_text("\n".join(lines) + "\n")
    err = refused_in_library(lambda: formats.load(path), "nested too deeply")
    assert f"line {i + 1}" in str(err)
    refused_by_cli("analyze", path, cwd=tmp_path, match="nested")


def test_graphml_attribute_nested_deep(tmp_path):
    from topogen import formats
    from topogen.generators.classic import torus

    path = tmp_path / "t.graphml"
    formats.save(path, torus((4, 4)))
    text = path.read_text()
    key = next(line for line in text.splitlines() if 'attr.name="params"' in line)
    key_id = key.split('id="')[1].split('"')[0]
    start = text.index(f'<data key="{key_id}">')
    end = text.index("</data>", start)
    path.write_text(text[:start] + f'<data key="{key_id}">' + "[" * DEEP + "]" * DEEP + text[end:])
    refused_in_library(lambda: formats.load(path), "nested too deeply")
    refused_by_cli("analyze", path, cwd=tmp_path, match="nested")


def test_toml_nested_deep_in_both_spec_readers(tmp_path):
    from topogen.experiments.spec import load_experiment
    from topogen.reproduce.crossval import load_spec

    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * DEEP + "]" * DEEP + "\n")
    refused_in_library(lambda: load_spec(path), "nested too deeply")
    refused_in_library(lambda: load_experiment(path), "nested too deeply")
    refused_by_cli("crossval", "--spec", path, "--out-dir", tmp_path / "cv", cwd=tmp_path, match="nested")
    refused_by_cli("experiment", "plan", path, cwd=tmp_path, match="nested")
    tables = tmp_path / "tables.toml"
    tables.write_text("x = " + "{a = " * 300 + "1" + "}" * 300 + "\n")
    refused_in_library(lambda: load_spec(tables), "nested")


# ============================================================================ binary input
def test_binary_file_as_crossval_spec(tmp_path):
    from topogen.reproduce.crossval import load_spec

    path = tmp_path / "spec.toml"
    path.write_bytes(bytes(range(256)) * 8)
    err = refused_in_library(lambda: load_spec(path), "not a text file")
    assert isinstance(err, FormatError)
    refused_by_cli("crossval", "--spec", path, "--out-dir", tmp_path / "cv", cwd=tmp_path,
                   match="crossval spec is not a text file")
    refused_by_cli("experiment", "plan", path, cwd=tmp_path, match="not a text file")


# ============================================================================ the helpers
def test_read_text_file_refuses_folders_as_oserror(tmp_path):
    with pytest.raises(IsADirectoryError):
        read_text_file(tmp_path, limit_bytes=100)


def test_parse_json_keeps_the_given_line():
    with pytest.raises(FormatError, match="line 7"):
        parse_json("[1, ", what="header", line=7)


def test_check_depth_accepts_wide_documents():
    doc = {"edges": [[i, i + 1] for i in range(200_000)]}
    check_depth(doc)  # wide but shallow: no error, no recursion limit


# ============================================================================ other JSON readers
def test_deep_json_in_sst_bundles_routing_tables_and_submissions(tmp_path):
    from topogen.export.sst import read_bundle as read_sst_bundle
    from topogen.experiments.slurm import load_submission
    from topogen.routing.export import read_sst_routes

    deep = tmp_path / "deep.json"
    deep.write_text("[" * DEEP + "]" * DEEP)
    refused_in_library(lambda: read_sst_bundle(deep), "nested too deeply")
    refused_in_library(lambda: load_submission(deep), "nested too deeply")
    refused_by_cli("experiment", "plan", deep, cwd=tmp_path, match="nested too deeply")
    routes = tmp_path / "routes.txt"
    routes.write_text("# " + "[" * DEEP + "]" * DEEP + "\n")
    refused_in_library(lambda: read_sst_routes(routes), "nested too deeply")
    refused_in_library(lambda: read_sst_bundle(_fifo(tmp_path, "b.json")), "FIFO")


def test_deep_json_in_a_store_record(tmp_path):
    from topogen.experiments.store import Store

    store = Store.open(tmp_path / "store", "x", create=True)
    (store.root / "points" / "abc.json").write_text("[" * DEEP + "]" * DEEP)
    refused_in_library(lambda: store.record("abc"), "nested too deeply")


# ============================================================================ .npz checkpoints
def _npz_with_fake_member(path: Path) -> Path:
    import io
    import zipfile

    buf = io.BytesIO()
    npf.write_array_header_1_0(buf, {"descr": "<i4", "fortran_order": False, "shape": (10**6, 10**6)})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("edges.npy", buf.getvalue() + b"\0" * 100)
    return path


def test_optimize_checkpoint_with_a_faked_array_header(tmp_path):
    from topogen.optimize.run import _load_checkpoint

    path = _npz_with_fake_member(tmp_path / "c.npz")
    refused_in_library(lambda: _load_checkpoint(path), r"shape \(1000000, 1000000\)")
    refused_by_cli("optimize", "--resume", path, "-o", tmp_path / "o.json", cwd=tmp_path,
                   match="the header announces")
    refused_in_library(lambda: _load_checkpoint(_fifo(tmp_path, "c2.npz")), "FIFO")


# ============================================================================ more shapes of the same bombs
def test_plain_edge_list_with_a_huge_id(tmp_path):
    from topogen import formats

    path = tmp_path / "big.edges"
    path.write_text("0 1\n1 1500000000\n")
    refused_in_library(lambda: formats.load(path), "switch id 1,500,000,000 would make")
    refused_by_cli("analyze", path, cwd=tmp_path, match="number the switches 0..N-1")


def test_graphml_entity_expansion_is_refused(tmp_path):
    from topogen import formats

    entities = ['<!ENTITY e0 "' + "x" * 64 + '">']
    entities += [f'<!ENTITY e{i} "' + f"&e{i - 1};" * 10 + '">' for i in range(1, 10)]
    path = tmp_path / "laughs.graphml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE g [' + "\n".join(entities) + "]>\n"
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="d0" for="graph" attr.name="generator" attr.type="string"/>'
        '<graph edgedefault="undirected"><data key="d0">&e9;</data>'
        '<node id="0"/><node id="1"/><edge source="0" target="1"/></graph></graphml>\n')
    refused_in_library(lambda: formats.load(path), "invalid XML")
    refused_by_cli("analyze", path, cwd=tmp_path, match="invalid XML")
