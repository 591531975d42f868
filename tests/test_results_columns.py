"""Appending to a results table keeps the columns a user added to it."""

import json

import pandas as pd

from topogen import cli
from topogen.results import append_rows, make_row, read_results


def _row(load):
    return make_row(simulator="reference", status="completed", offered_load=load)


def test_csv_append_keeps_a_user_column(tmp_path):
    f = tmp_path / "r.csv"
    append_rows(f, [_row(0.1), _row(0.2)])
    frame = pd.read_csv(f)
    frame["note"] = ["first run", "0042"]
    frame.to_csv(f, index=False)
    append_rows(f, [_row(0.3)])
    after = pd.read_csv(f, dtype={"note": str}, keep_default_na=False)
    assert list(after["note"]) == ["first run", "0042", ""]  # text kept as written
    assert list(after.columns)[-1] == "note"
    assert list(read_results(f)["offered_load"]) == [0.1, 0.2, 0.3]


def test_replaced_rows_take_their_user_cells_with_them(tmp_path):
    f = tmp_path / "r.csv"
    append_rows(f, [_row(0.1), _row(0.2)])
    frame = pd.read_csv(f)
    frame["note"] = ["a", "b"]
    frame.to_csv(f, index=False)
    append_rows(f, [_row(0.1)], replace_key=["offered_load"])
    after = pd.read_csv(f, keep_default_na=False)
    assert list(zip(after["offered_load"], after["note"])) == [(0.2, "b"), (0.1, "")]


def test_json_append_keeps_a_user_field(tmp_path):
    f = tmp_path / "r.json"
    append_rows(f, [_row(0.1)])
    doc = json.loads(f.read_text())
    doc["rows"][0]["note"] = "mine"
    f.write_text(json.dumps(doc))
    append_rows(f, [_row(0.2)])
    rows = json.loads(f.read_text())["rows"]
    assert [r.get("note") for r in rows] == ["mine", None]


def test_simulate_o_keeps_a_user_column(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["-q", "generate", "torus", "--dims", "3,3", "-o", "t.json"]) == 0
    small = ["--packet-size", "2", "--sample-period", "100", "--max-samples", "3", "--warmup-periods", "1",
             "--engine", "python"]
    assert cli.main(["-q", "simulate", "t.json", "--load", "0.05", "-o", "r.csv", *small]) == 0
    frame = pd.read_csv("r.csv")
    frame["owner"] = "me"
    frame.to_csv("r.csv", index=False)
    assert cli.main(["-q", "simulate", "t.json", "--load", "0.1", "-o", "r.csv", *small]) == 0
    after = pd.read_csv("r.csv", keep_default_na=False)
    assert list(after["owner"]) == ["me", ""]
