import argparse
import json

import pytest

from topogen.export.formats import save
from topogen.routing.base import load_routing
from topogen.routing.cli import add_check_parser, add_route_parser

from .conftest import petersen, ring


def _parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    add_route_parser(sub)
    add_check_parser(sub)
    return p


@pytest.mark.parametrize("alg,acyclic", [("nr", False), ("updown", True), ("hop", True),
                                         ("layered", True), ("escape", True)])
def test_route_then_check(tmp_path, capsys, alg, acyclic):
    topo = ring(7)
    save(tmp_path / "ring.json", topo)
    p = _parser()
    out = tmp_path / "out"
    args = p.parse_args(["route", str(tmp_path / "ring.json"), "--algorithm", alg, "--base", "nr",
                         "-o", str(out)])
    assert args.func(args) == 0
    assert (out / "routing.json").is_file()
    assert (out / "table.csv").is_file()
    r = load_routing(out)
    assert r.algorithm == alg
    args = p.parse_args(["check-deadlock", str(out)])
    rc = args.func(args)
    text = capsys.readouterr().out
    assert rc == (0 if acyclic else 1)
    assert ("CYCLIC" in text) != acyclic
    if not acyclic:
        assert "cycle:" in text
    # rewriting the same folder replaces it
    args = p.parse_args(["route", str(tmp_path / "ring.json"), "--algorithm", "updown", "-o", str(out)])
    assert args.func(args) == 0
    assert load_routing(out).algorithm == "updown"
    assert not [x for x in tmp_path.iterdir() if x.name.startswith(".out.")]


def test_route_vcs_error(tmp_path):
    from topogen.errors import RoutingError

    save(tmp_path / "p.json", petersen())
    p = _parser()
    args = p.parse_args(["route", str(tmp_path / "p.json"), "-a", "hop", "--base", "nr",
                         "--vcs", "1", "-o", str(tmp_path / "o")])
    with pytest.raises(RoutingError, match="at least 2 VCs"):
        args.func(args)
    assert not (tmp_path / "o").exists()
