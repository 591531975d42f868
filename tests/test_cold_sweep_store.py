"""The results store's CSV without pandas: rows are appended to a CSV in topogen's own form
without reading the table into pandas, the bytes are the ones pandas' rewrite of the whole
table gives, a file in any other form still goes through pandas, and a small sweep (and
its resume) in a fresh process never imports pandas."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import pandas as pd
import pytest

import topogen
from topogen import formats, results
from topogen.errors import FormatError
from topogen.results import COLUMNS, append_rows, make_row, read_results, read_rows, to_frame


def _pandas_csv(rows) -> bytes:
    """The table as pandas writes it (the store's rewrite of the whole file)."""
    return to_frame(rows).to_csv(index=False, lineterminator="\n").encode("utf-8")


def _random_float(rng: random.Random) -> float:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e16, 1e-5, 1e-4, 5e-324,
                           1.7976931348623157e308, 9999999999999998.0, 0.1, 63.61])
    if kind == 1:
        return float(rng.randrange(-10 ** 6, 10 ** 6))
    if kind == 2:  # any bit pattern that is a finite double
        import struct

        v = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        return v if math.isfinite(v) else 1.5
    return rng.random() * 10.0 ** rng.randrange(-30, 30) * rng.choice([1, -1])


def _random_text(rng: random.Random):
    return rng.choice([None, "plain", "a,b", 'say "hi"', "two\nlines", "tab\there", "ümlaut ✓",
                       " lead space", "trail space ", json.dumps({"k": [1, 2], "s": "x,y"}),
                       "x" * rng.randrange(1, 300)])


def _random_row(rng: random.Random, i: int, int_max: int = 2 ** 63) -> dict:
    values = {}
    for col, dtype in COLUMNS.items():
        if rng.random() < 0.3:
            continue  # missing
        if dtype == "float64":
            values[col] = _random_float(rng)
        elif dtype == "Int64":
            values[col] = rng.choice([0, 1, -7, 2 ** 31, min(2 ** 53, int_max) - 1, rng.randrange(int_max)])
        else:
            values[col] = _random_text(rng)
    values["simulator"] = rng.choice(["reference", "booksim", "sst"])
    values["status"] = rng.choice(["completed", "saturated", "crash"])
    values["offered_load"] = round(0.05 * (i + 1), 6)
    return make_row(**values)


def test_rows_are_written_as_pandas_writes_them():
    rng = random.Random(7)
    rows = [_random_row(rng, i) for i in range(300)]
    assert (results._CSV_HEADER + results._csv_lines(rows)).encode() == _pandas_csv(rows)
    assert results._CSV_HEADER.encode() == _pandas_csv([])


def test_the_missing_cells_are_pandas_own():
    from pandas._libs.parsers import STR_NA_VALUES

    assert results._PANDAS_NA_TEXT == frozenset(STR_NA_VALUES) | {""}


@pytest.mark.parametrize("remember", [True, False])
def test_appends_give_the_bytes_of_a_pandas_rewrite(tmp_path, monkeypatch, remember):
    """Appends, replacements (a key) and removals (drop) on a CSV in topogen's form: after
    each step the file is what pandas writes for the rows the store's rules leave, and
    pandas never read the file (read_results is not called); with the table remembered
    between calls or parsed every time (a table too large to keep)."""
    f = tmp_path / "r.csv"
    if not remember:
        monkeypatch.setattr(results, "_REMEMBER_MAX_BYTES", 0)
    rng = random.Random(11)
    expected: list[dict] = []

    def no_pandas_read(*a, **k):
        raise AssertionError("the CSV went through pandas")

    monkeypatch.setattr(results, "read_results", no_pandas_read)
    key = ("offered_load",)
    for step in range(12):
        # integers within 2**53: pandas reads an integer column with a missing cell as
        # floats (see test_a_63_bit_seed_beside_a_missing_one_is_kept), and the last check
        # reads the table back with pandas
        new = [_random_row(rng, rng.randrange(6), 2 ** 53) for _ in range(rng.randrange(0, 4))]
        gone = rng.choice([None, "crash"])
        if step % 3 == 0:  # forget what this process wrote: the file is parsed again
            results._last_csv = None
        append_rows(f, new, replace_key=key, drop=(lambda r, g=gone: r["status"] == g) if gone else None)
        assert (results._last_csv is not None) == remember
        fresh = {repr(r["offered_load"]) for r in new}
        expected = [r for r in expected if repr(r["offered_load"]) not in fresh and r["status"] != gone] + new
        assert f.read_bytes() == _pandas_csv(expected), step
    monkeypatch.undo()
    results._last_csv = None
    assert f.read_bytes() == _pandas_csv(read_results(f))  # pandas reads it back alike
    mine = read_rows(f)
    theirs = results._clean_rows(read_results(f))
    assert json.dumps(mine) == json.dumps(theirs)


@pytest.mark.parametrize("twist", ["NA message", "crlf", "user column", "1.0 integer", "no final newline"])
def test_a_file_in_another_form_goes_through_pandas(tmp_path, twist):
    """A CSV topogen did not write in its own form is read by pandas, as before: the result
    is pandas' rewrite of what pandas read."""
    f = tmp_path / "r.csv"
    rows = [make_row(simulator="reference", status="completed", offered_load=0.1, sim_seed=3,
                     message="kept")]
    text = _pandas_csv(rows).decode()
    if twist == "NA message":
        text = text.replace("kept", "NA")
    elif twist == "crlf":
        text = text.replace("\n", "\r\n")
    elif twist == "user column":
        text = text.replace("topogen_version\n", "topogen_version,note\n").rstrip("\n") + ",mine\n"
    elif twist == "1.0 integer":
        text = text.replace(",3,", ",3.0,")
    else:
        text = text.rstrip("\n")
    f.write_text(text, newline="")
    assert results._parse_csv(f.read_bytes()) is None
    before = read_results(f)
    new = [make_row(simulator="reference", status="completed", offered_load=0.2)]
    append_rows(f, new)
    after = read_results(f)
    assert len(after) == 2
    pd.testing.assert_frame_equal(after.iloc[:1], before)
    if twist == "user column":
        assert f.read_text().splitlines()[1].endswith(",mine")
    else:
        assert f.read_bytes() == _pandas_csv(results._clean_rows(before) + new)
    assert read_rows(f) == results._clean_rows(after)


def test_a_torn_last_line_is_refused_and_left_untouched(tmp_path):
    f = tmp_path / "r.csv"
    append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.1)])
    torn = f.read_bytes() + b"reference,torus,"
    f.write_bytes(torn)
    with pytest.raises(FormatError, match="truncated"):
        append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.2)])
    with pytest.raises(FormatError, match="truncated"):
        read_rows(f)
    assert f.read_bytes() == torn


def test_a_bad_row_is_refused_and_left_untouched(tmp_path):
    f = tmp_path / "r.csv"
    append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.1)])
    bad = f.read_bytes().replace(b",completed,", b",finished,")
    f.write_bytes(bad)
    results._last_csv = None
    with pytest.raises(FormatError, match="status"):
        append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.2)])
    assert f.read_bytes() == bad


def test_a_63_bit_seed_beside_a_missing_one_is_kept(tmp_path):
    """pandas reads an integer column with an empty cell as floats: a rewrite through it
    turned 2**62 + 1 into 2**62."""
    f = tmp_path / "r.csv"
    seed = 2 ** 62 + 1
    append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.1, sim_seed=seed),
                    make_row(simulator="booksim", status="completed", offered_load=0.2)])
    results._last_csv = None
    append_rows(f, [make_row(simulator="reference", status="completed", offered_load=0.3, sim_seed=5)])
    results._last_csv = None
    assert [r["sim_seed"] for r in read_rows(f)] == [seed, None, 5]
    assert f.read_text().splitlines()[1].split(",")[6] == str(seed)


_PROBE = r"""
import json, sys
from topogen.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "pandas": "pandas" in sys.modules}))
"""


def test_a_small_csv_sweep_and_its_resume_do_not_import_pandas(tmp_path):
    from conftest import cold_env

    formats.save(tmp_path / "t.json", topogen.generate("torus", dims=[4, 4]))

    def run(*argv) -> dict:
        proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], env=cold_env(tmp_path / "nc"),
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.strip().splitlines()
        return dict(json.loads(lines[-1]), out="\n".join(lines[:-1]))

    argv = ("simulate", "t.json", "--sweep", "--tolerance", "0.2", "--points", "2", "-o", "sw.csv")
    first = run(*argv)
    assert first["code"] == 0 and not first["pandas"], first
    table = (tmp_path / "sw.csv").read_bytes()
    rows = read_results(tmp_path / "sw.csv")
    assert len(rows) >= 3
    assert table == _pandas_csv(rows)  # what the pandas path writes for the same rows
    again = run(*argv)
    assert again["code"] == 0 and not again["pandas"], again
    assert f"0 simulated, {len(rows)} reused" in again["out"]
    assert (tmp_path / "sw.csv").read_bytes() == table
    one = run("simulate", "t.json", "--load", "0.33", "-o", "sw.csv")
    assert one["code"] == 0 and not one["pandas"], one
    assert (tmp_path / "sw.csv").read_bytes() == _pandas_csv(read_results(tmp_path / "sw.csv"))
    assert len(read_results(tmp_path / "sw.csv")) == len(rows) + 1
