"""topogen simulate / plot."""

import math

import pytest

from topogen.cli import main
from topogen import formats
from topogen.generators.classic import torus
from topogen.results import read_results

FAST = ["--packet-size", "2", "--buffer", "4", "--sample-period", "200", "--link-latency", "1",
        "--seed", "5"]


@pytest.fixture
def topo_file(tmp_path):
    path = tmp_path / "t.json"
    formats.save(path, torus((4, 4), hosts_per_switch=1))
    return path


def test_simulate_writes_a_reference_row(topo_file, tmp_path, capsys):
    out = tmp_path / "res.csv"
    assert main(["simulate", str(topo_file), "--load", "0.1", *FAST, "-o", str(out)]) == 0
    assert main(["simulate", str(topo_file), "--load", "0.2", *FAST, "-o", str(out)]) == 0
    df = read_results(out)
    assert list(df["simulator"]) == ["reference", "reference"]
    assert list(df["status"]) == ["completed", "completed"]
    assert list(df["offered_load"]) == [0.1, 0.2]
    assert df["topology"].iloc[0] == "torus" and df["sim_seed"].iloc[0] == 5
    assert "completed" in capsys.readouterr().out


def test_sweep_bisects_and_resumes(topo_file, tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    args = ["simulate", str(topo_file), "--routing", "dor", "--sweep", "--low", "0.05",
            "--high", "1.0", "--tolerance", "0.1", *FAST, "-o", str(out)]
    assert main(args) == 0
    first = capsys.readouterr().out
    df = read_results(out)
    ok = df[df["status"] == "completed"]["offered_load"]
    bad = df[df["status"] != "completed"]["offered_load"]
    assert len(ok) and len(bad)
    assert ok.max() < bad.min() and bad.min() - ok.max() <= 0.1 + 1e-9  # bracket
    assert df["offered_load"].min() == 0.05 and math.isclose(df["offered_load"].max(), 1.0)
    assert "0 reused" in first
    before = out.read_bytes()
    assert main(args) == 0  # resume: nothing simulated again, file unchanged
    assert f"0 simulated, {len(df)} reused" in capsys.readouterr().out
    assert out.read_bytes() == before


def test_plot(tmp_path, topo_file):
    out = tmp_path / "res.csv"
    for load in ("0.05", "0.15"):
        main(["simulate", str(topo_file), "--load", load, *FAST, "-o", str(out)])
    png = tmp_path / "lat.png"
    svg = tmp_path / "lat.svg"
    assert main(["plot", str(out), "-o", str(png)]) == 0
    assert main(["plot", str(out), str(out), "-o", str(svg), "--title", "x"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:500]


def test_bad_input_is_one_line_error(topo_file, capsys):
    assert main(["simulate", str(topo_file), "--traffic", "nope"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("topogen: error:") and err.count("\n") == 1
    assert main(["simulate", str(topo_file), "--packet-size", "8", "--buffer", "4"]) != 0
    assert "vc_buf_size" in capsys.readouterr().err


def test_docs_example_runs(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "sim.md").read_text()
    code = re.findall(r"```python\n(.*?)\n```", text, re.S)[0]
    exec(compile(code, "docs/sim.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("completed")
    assert out[1] == "27 27"


def test_vc_alloc_option_is_recorded_and_changes_the_numbers(topo_file, tmp_path, capsys):
    """--vc-alloc reaches the model (the row's params) and the two VC choices differ under
    load; a value outside the list is a usage error of one line."""
    import json

    out = tmp_path / "vc.csv"
    base = ["simulate", str(topo_file), "--load", "0.4", "--packet-size", "1", "--buffer", "4",
            "--sample-period", "300", "--link-latency", "1", "--seed", "5", "-o", str(out)]
    assert main(base) == 0
    assert main(base + ["--vc-alloc", "credits"]) == 0
    df = read_results(out)
    params = [json.loads(p) for p in df["params"]]
    assert [p["config"]["vc_alloc"] for p in params] == ["booksim", "credits"]
    assert df["latency_avg"].iloc[0] != df["latency_avg"].iloc[1]
    capsys.readouterr()
    assert main(base + ["--vc-alloc", "oldest"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--vc-alloc" in err
