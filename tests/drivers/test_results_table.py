"""The default ``topogen results`` table shows what people compare: offered and accepted
load in one unit, both seeds and the topology's parameters, sorted rows, and one routing
name across simulators."""

from __future__ import annotations

import math

import pytest

import topogen.cli as cli
from topogen.results import accepted_in_offered_unit, display_frame, make_row, read_results, write_results


def _booksim(load, seed, accepted_packets, accepted_flits=None, params=None, topology_params=None):
    return make_row(simulator="booksim", topology="slimfly", topology_params=topology_params or {"q": 5},
                    sim_seed=seed, routing="min_anynet", traffic="uniform", offered_load=load,
                    load_unit="flits/node/cycle", params=params or {"packet_size": "33"}, status="completed",
                    latency_avg=40.0 + load, latency_unit="cycles", accepted_load=accepted_packets,
                    accepted_flit_rate=accepted_flits)


def _table(tmp_path, capsys, rows):
    path = write_results(tmp_path / "r.csv", rows)
    assert cli.main(["results", str(path)]) == 0
    return capsys.readouterr().out


def test_accepted_in_the_unit_of_offered(tmp_path, capsys):
    # 0.3 flits/node/cycle offered, 0.3/33 packets accepted: not 97 % loss
    rows = [_booksim(0.3, 1, 0.3 / 33)]
    out = _table(tmp_path, capsys, rows)
    header = out.splitlines()[0]
    assert "offered_load [flits/node/cycle]" in header and "accepted [flits/node/cycle]" in header
    frame = display_frame(read_results(tmp_path / "r.csv"))
    assert frame["accepted [flits/node/cycle]"].tolist() == pytest.approx([0.3])
    # the measured flit rate is preferred when the row has it
    assert accepted_in_offered_unit(_booksim(0.3, 1, 0.3 / 33, accepted_flits=0.29)) == pytest.approx(0.29)
    # the reference simulator records packet_size inside its config
    ref = make_row(simulator="reference", offered_load=0.2, load_unit="flits/node/cycle",
                   params={"config": {"packet_size": 4}}, accepted_load=0.05, status="completed")
    assert accepted_in_offered_unit(ref) == pytest.approx(0.2)
    # no packet size recorded: no number rather than a wrong one
    bare = make_row(simulator="booksim", offered_load=0.2, load_unit="flits/node/cycle", params={},
                    accepted_load=0.05, status="completed")
    assert math.isnan(accepted_in_offered_unit(bare))
    # packets offered, packets accepted
    pk = make_row(simulator="booksim", offered_load=0.01, load_unit="packets/node/cycle",
                  accepted_load=0.0098, accepted_flit_rate=0.3, status="completed")
    assert accepted_in_offered_unit(pk) == pytest.approx(0.0098)


def test_mixed_units_keep_a_unit_column(tmp_path, capsys):
    sst = make_row(simulator="sst", topology="slimfly", routing="source:booksim-min", traffic="uniform",
                   offered_load=0.3, load_unit="fraction of link bandwidth", accepted_load=0.29,
                   status="completed", latency_avg=300.0, latency_unit="ns")
    out = _table(tmp_path, capsys, [_booksim(0.3, 1, 0.3 / 33), sst])
    header = out.splitlines()[0].split()
    assert "load_unit" in header and "offered_load" in header and "accepted" in header
    assert "latency_unit" in header


def test_seeds_params_and_sorted_rows(tmp_path, capsys):
    rows = [_booksim(0.3, 2, 0.3 / 33), _booksim(0.1, 2, 0.1 / 33), _booksim(0.3, 1, 0.3 / 33),
            _booksim(0.1, 1, 0.1 / 33), _booksim(0.1, 1, 0.1 / 33, topology_params={"q": 7})]
    out = _table(tmp_path, capsys, rows)
    lines = out.splitlines()
    assert "sim_seed" in lines[0] and "topology_params" in lines[0]
    frame = display_frame(read_results(tmp_path / "r.csv"))
    got = list(zip(frame["topology_params"], frame["offered_load [flits/node/cycle]"], frame["sim_seed"]))
    assert got == [('{"q":5}', 0.1, 1), ('{"q":5}', 0.1, 2), ('{"q":5}', 0.3, 1), ('{"q":5}', 0.3, 2),
                   ('{"q":7}', 0.1, 1)]
    assert len(set(lines[1:])) == len(lines) - 1  # no two rows read alike


def test_one_routing_name_across_simulators(tmp_path, capsys):
    ref = make_row(simulator="reference", topology="slimfly", topology_params={"q": 5}, routing="booksim-min",
                   traffic="uniform", offered_load=0.1, load_unit="flits/node/cycle", status="completed",
                   params={"config": {"packet_size": 33}}, accepted_flit_rate=0.1)
    out = _table(tmp_path, capsys, [_booksim(0.1, 1, 0.1 / 33), ref])
    header = out.splitlines()[0].split()
    assert "routing" in header and "simulator_routing" in header
    frame = display_frame(read_results(tmp_path / "r.csv"))
    assert frame["routing"].tolist() == ["booksim-min", "booksim-min"]
    assert frame["simulator_routing"].tolist() == ["min_anynet", "booksim-min"]
    # rows of one simulator with topogen's names need no second column
    only_ref = display_frame(read_results(write_results(tmp_path / "ref.csv", [ref])))
    assert "simulator_routing" not in only_ref.columns


def test_all_columns_is_the_stored_table(tmp_path, capsys):
    path = write_results(tmp_path / "r.csv", [_booksim(0.1, 1, 0.1 / 33)])
    assert cli.main(["results", str(path), "--all-columns"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert "accepted_load" in header and "offered_load" in header and "routing" in header
