"""Shared results files under concurrency: N processes adding rows to one file end with
every row exactly once (topogen.results.append_rows and the commands that use it)."""

from __future__ import annotations

import multiprocessing as mp
import os

import pytest

from shared_paths import FIXTURES, needs_fixtures
from topogen import formats
from topogen.generators.classic import torus
from topogen.results import append_rows, make_row, read_results

ROWS_PER_WRITER = 4


def _ctx():
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def _row(writer: int, i: int, load: float | None = None) -> dict:
    return make_row(simulator="reference", topology="t", status="completed",
                    offered_load=load if load is not None else 0.01 * (i + 1),
                    message=f"w{writer}-{i}", latency_avg=float(i))


def _writer(path: str, writer: int, barrier) -> None:
    barrier.wait()
    for i in range(ROWS_PER_WRITER):
        append_rows(path, [_row(writer, i)])


def _run_all(target, args_of, n):
    ctx = _ctx()
    barrier = ctx.Barrier(n)
    procs = [ctx.Process(target=target, args=(*args_of(w), barrier)) for w in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0] * n


@pytest.mark.parametrize("writers,ext", [(2, "csv"), (4, "csv"), (8, "csv"), (2, "json")])
def test_concurrent_appends_keep_every_row_once(tmp_path, writers, ext):
    path = tmp_path / f"shared.{ext}"
    _run_all(_writer, lambda w: (str(path), w), writers)
    got = sorted(read_results(path)["message"])
    want = sorted(f"w{w}-{i}" for w in range(writers) for i in range(ROWS_PER_WRITER))
    assert got == want
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, f".{path.name}.lock"])


def _replacer(path: str, writer: int, barrier) -> None:
    barrier.wait()
    for i in range(ROWS_PER_WRITER):
        # every writer writes the same points: one row per load must remain
        append_rows(path, [_row(writer, i, load=0.1 * (i + 1))], replace_key=("offered_load",))


@pytest.mark.parametrize("writers", [2, 4])
def test_concurrent_replacements_leave_one_row_per_key(tmp_path, writers):
    path = tmp_path / "shared.csv"
    append_rows(path, [make_row(simulator="booksim", status="completed", offered_load=0.55, message="other")],
                replace_key=("raw_output",))
    _run_all(_replacer, lambda w: (str(path), w), writers)
    df = read_results(path)
    assert sorted(df["offered_load"]) == sorted([0.55] + [0.1 * (i + 1) for i in range(ROWS_PER_WRITER)])
    assert "other" in set(df["message"])


def test_append_rows_replace_key_semantics(tmp_path):
    path = tmp_path / "r.csv"
    append_rows(path, [_row(0, 0), _row(0, 1)])
    append_rows(path, [_row(1, 0)], replace_key=("offered_load",))  # replaces w0-0
    append_rows(path, [_row(2, 5)], replace_key=lambda r: None)  # None never matches: added
    assert sorted(read_results(path)["message"]) == ["w0-1", "w1-0", "w2-5"]


def test_append_rows_refuses_a_foreign_file_untouched(tmp_path):
    from topogen.errors import FormatError

    path = tmp_path / "foreign.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(FormatError):
        append_rows(path, [_row(0, 0)])
    assert path.read_text() == "a,b\n1,2\n"


# ---------------------------------------------------------------------------- commands
FAST = ["--packet-size", "2", "--buffer", "4", "--sample-period", "200", "--warmup-periods", "1",
        "--max-samples", "3", "--link-latency", "1"]
SWEEP = ["--sweep", "--low", "0.05", "--high", "0.9", "--tolerance", "0.4", *FAST]


def _sweep(topo: str, traffic: str, output: str, log: str, barrier) -> None:
    import contextlib

    import topogen.cli as cli

    barrier.wait()
    with open(log, "w") as fh, contextlib.redirect_stdout(fh):
        code = cli.main(["simulate", topo, "--traffic", traffic, *SWEEP, "-o", output])
    os._exit(code)


def test_two_concurrent_sweeps_into_one_file_keep_both(tmp_path):
    topo = tmp_path / "t.json"
    formats.save(topo, torus((3, 3), hosts_per_switch=1))
    out = tmp_path / "B.csv"
    traffics = ("uniform", "bitrev")
    _run_all(_sweep, lambda k: (str(topo), traffics[k], str(out), str(tmp_path / f"{k}.log")), 2)
    df = read_results(out)
    for k, traffic in enumerate(traffics):
        printed = [line for line in (tmp_path / f"{k}.log").read_text().splitlines()
                   if line.startswith("reference ")]
        assert (df["traffic"] == traffic).sum() == len(printed) > 0
    assert not df.duplicated(["traffic", "offered_load"]).any()  # every point once


def _simulate_loop(topo: str, output: str, loads: list, barrier) -> None:
    import contextlib
    import io

    import topogen.cli as cli

    barrier.wait()
    code = 0
    with contextlib.redirect_stdout(io.StringIO()):
        for load in loads:
            code = code or cli.main(["simulate", topo, "--load", str(load), *FAST, "-o", output])
    os._exit(code)


def test_concurrent_simulate_loops_keep_every_row(tmp_path):
    topo = tmp_path / "t.json"
    formats.save(topo, torus((3, 3), hosts_per_switch=1))
    out = tmp_path / "A.csv"
    loads = [[0.05, 0.1, 0.15], [0.07, 0.12, 0.17]]
    _run_all(_simulate_loop, lambda k: (str(topo), str(out), loads[k]), 2)
    assert sorted(read_results(out)["offered_load"]) == sorted(loads[0] + loads[1])


def _run_booksim(out_dir: str, output: str, rate: float, binary: str, topo: str, barrier) -> None:
    import topogen.cli as cli

    barrier.wait()
    code = cli.main(["run", "booksim", topo, "--out-dir", out_dir, "--rate", str(rate),
                     "--binary", binary, "-o", output, "--quiet"])
    os._exit(code)


@needs_fixtures("booksim")
@pytest.mark.parametrize("runs", [2, 4])
def test_concurrent_booksim_runs_keep_every_row(tmp_path, runs):
    from drivers.fakes import booksim

    (tmp_path / "bin").mkdir()
    binary = booksim(tmp_path / "bin", FIXTURES)
    topo = tmp_path / "t.json"
    formats.save(topo, torus((4, 4), hosts_per_switch=2))
    output = tmp_path / "shared.csv"
    rates = [0.01 * (k + 1) for k in range(runs)]
    _run_all(_run_booksim, lambda k: (str(tmp_path / f"run{k}"), str(output), rates[k], str(binary), str(topo)),
             runs)
    df = read_results(output)
    assert sorted(df["offered_load"]) == rates
    assert df["raw_output"].is_unique
