"""The shared results schema."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import topogen
from topogen import results as R
from topogen.errors import FormatError, ParameterError


def rows():
    return [
        R.make_row(simulator="booksim", topology="torus", topology_params={"dims": (4, 4)},
                   num_switches=16, num_hosts=32, routing="min_anynet", traffic="uniform",
                   offered_load=0.05, load_unit="packets/node/cycle", status="completed",
                   latency_avg=17.1847, latency_min=7, latency_max=30, latency_unit="cycles",
                   accepted_load=0.0488906, hops_avg=3.00591, samples=1, sim_cycles=7054,
                   deadlock_warnings=0, raw_output="/runs/a.log", params={"num_vcs": 4}),
        R.make_row(simulator="sst", topology="torus", offered_load=0.3, status="saturated",
                   latency_avg=float("nan"), latency_p99=900.5, packets=2670, seed=7,
                   message="fell behind", raw_output="/runs/b.log"),
        R.make_row(simulator="reference", offered_load=0.1, status="deadlock"),
    ]


def test_make_row_fills_and_validates():
    row = rows()[0]
    assert list(row) == list(R.COLUMNS)
    assert row["topology_params"] == '{"dims":[4,4]}' and row["params"] == '{"num_vcs":4}'
    assert row["topogen_version"] == topogen.__version__
    assert math.isnan(row["latency_p50"]) and row["seed"] is None
    with pytest.raises(ParameterError, match="unknown results column"):
        R.make_row(latency=1.0)
    with pytest.raises(ParameterError, match="status"):
        R.make_row(status="fine")
    with pytest.raises(ParameterError, match="simulator"):
        R.make_row(simulator="ns3")
    with pytest.raises(ParameterError, match="integer"):
        R.make_row(samples=1.5)
    with pytest.raises(ParameterError, match="number"):
        R.make_row(latency_avg="fast")


def test_to_frame_dtypes():
    frame = R.to_frame(rows())
    assert list(frame.columns) == list(R.COLUMNS)
    for col, dtype in R.COLUMNS.items():
        assert str(frame[col].dtype) == dtype, col
    assert frame["samples"].isna().tolist() == [False, True, True]
    assert R.to_frame([]).shape == (0, len(R.COLUMNS))


@pytest.mark.parametrize("ext", ["csv", "json"])
def test_roundtrip(tmp_path, ext):
    path = R.write_results(tmp_path / f"r.{ext}", rows())
    back = R.read_results(path)
    pd.testing.assert_frame_equal(back, R.to_frame(rows()))
    # atomic: nothing but the file itself is left in the folder
    assert [p.name for p in tmp_path.iterdir()] == [f"r.{ext}"]
    # deterministic bytes
    first = path.read_bytes()
    R.write_results(path, rows())
    assert path.read_bytes() == first


def test_parquet(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(ParameterError, match="pyarrow"):
            R.write_results(tmp_path / "r.parquet", rows())
        assert not list(tmp_path.iterdir())
        return
    path = R.write_results(tmp_path / "r.parquet", rows())
    pd.testing.assert_frame_equal(R.read_results(path), R.to_frame(rows()))


def test_bad_files(tmp_path):
    with pytest.raises(ParameterError, match="csv, parquet or json"):
        R.write_results(tmp_path / "r.xlsx", rows())
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  oops\n}")
    with pytest.raises(FormatError, match="line 2"):
        R.read_results(bad)
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(FormatError, match="missing column"):
        R.read_results(other)
    doc = tmp_path / "d.json"
    doc.write_text(json.dumps({"rows": [{"simulator": "sst", "status": "completed", "offered_load": 0.5}]}))
    assert R.read_results(doc)["offered_load"].tolist() == [0.5]


def test_reading_parquet_without_pyarrow_is_a_clear_error(tmp_path):
    try:
        import pyarrow  # noqa: F401
        pytest.skip("pyarrow is installed")
    except ImportError:
        pass
    path = tmp_path / "r.parquet"
    path.write_bytes(b"PAR1")
    with pytest.raises(ParameterError, match=r"reading Parquet needs pyarrow: pip install 'topogen\[parquet\]'"):
        R.read_results(path)

