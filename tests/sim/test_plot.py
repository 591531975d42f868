"""Latency-load plots: saturation, legends, simulators, panels."""

import xml.etree.ElementTree as ET

import math

import pandas as pd
import pytest

from topogen.cli import main
from topogen.errors import ParameterError
from topogen.results import make_row, write_results
from topogen.sim.plot import curves, plot_latency, short_params


def rows(sim, points, *, unit="cycles", load_unit="flits/node/cycle", routing="nr", dims=(4, 4)):
    return [make_row(simulator=sim, topology="torus", topology_params={"dims": list(dims), "hosts_per_switch": 1},
                     routing=routing, traffic="uniform", offered_load=x, load_unit=load_unit, status=s,
                     latency_avg=lat, latency_unit=unit, accepted_flit_rate=acc)
            for x, s, lat, acc in points]


REF = [(0.1, "completed", 20.0, 0.1), (0.3, "completed", 25.0, 0.3), (0.5, "completed", 60.0, 0.49),
       (0.55, "saturated", None, 0.5), (0.7, "saturated", None, 0.5)]
# SST: ns and fraction of link bandwidth; 2 ns cycles recorded nowhere -> --clock-ns
SST = [(0.1, "completed", 44.0, None), (0.3, "completed", 54.0, None), (0.4, "saturated", None, None)]


def test_short_params_join_lists_and_drop_host_counts():
    assert short_params({"dims": [8, 8], "hosts_per_switch": 2, "seed": 3}) == "dims=8x8"
    assert short_params('{"k": 4, "n": 2}') == "k=4,n=2"


def test_curves_find_saturation_and_common_units():
    frame = pd.DataFrame(rows("reference", REF) + rows("sst", SST, unit="ns", load_unit="fraction of link bandwidth"))
    cs = {c["parts"]["simulator"]: c for c in curves(frame, clock_ns=2.0)}
    assert cs["reference"]["saturation"] == 0.5
    assert cs["sst"]["saturation"] == 0.3
    assert cs["sst"]["latency"] == [22.0, 27.0]  # ns / 2 ns per cycle
    assert cs["sst"]["load_unit"] == "flits/node/cycle"
    assert cs["reference"]["accepted"][-1] == 0.5  # saturated points stay in the throughput panel
    only_ok = pd.DataFrame(rows("reference", REF[:2]))
    assert math.isnan(curves(only_ok)[0]["saturation"])  # no unstable point: no saturation claimed


def test_cross_simulator_figure_in_one_call(tmp_path):
    a = pd.DataFrame(rows("reference", REF))
    b = pd.DataFrame(rows("booksim", REF, routing="min_anynet"))
    svg = plot_latency([a, b], tmp_path / "x.svg", throughput=True)
    root = ET.parse(svg).getroot()
    text = " ".join(root.itertext())
    # shared parts in the title, what differs in the legend, saturation given
    assert "torus(dims=4x4)" in text and "uniform" in text
    assert "reference, nr" in text and "booksim, min_anynet" in text and "sat. 0.5" in text
    assert "accepted load" in text


def test_per_file_panels_and_errors(tmp_path):
    a = pd.DataFrame(rows("reference", REF))
    b = pd.DataFrame(rows("reference", REF, dims=(8, 8)))
    png = plot_latency([a, b], tmp_path / "p.png", per_file=True, names=["a.csv", "b.csv"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ParameterError, match="no completed"):
        plot_latency([pd.DataFrame(rows("reference", REF[3:]))], tmp_path / "n.png")
    with pytest.raises(ParameterError, match=".png"):
        plot_latency([a], tmp_path / "n.txt")


def test_plot_command_options(tmp_path, capsys):
    f = tmp_path / "r.csv"
    write_results(f, rows("reference", REF) + rows("sst", SST, unit="ns", load_unit="fraction of link bandwidth"))
    out = tmp_path / "r.png"
    assert main(["plot", str(f), "--throughput", "--clock-ns", "2", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["plot", str(f), "--clock-ns", "0", "-o", str(tmp_path / "z.png")]) != 0
    assert "--clock-ns" in capsys.readouterr().err
