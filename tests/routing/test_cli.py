import argparse
import json

import pytest

from topogen.errors import OutputError
from topogen.formats import save
from topogen.routing.saved import load_routing
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
    # rewriting the same folder is refused; with --force it replaces it
    args = p.parse_args(["route", str(tmp_path / "ring.json"), "--algorithm", "updown", "-o", str(out)])
    with pytest.raises(OutputError, match="not empty.*--force"):
        args.func(args)
    assert load_routing(out).algorithm == alg
    args = p.parse_args(["route", str(tmp_path / "ring.json"), "--algorithm", "updown", "-o", str(out),
                         "--force"])
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


def test_route_exports(tmp_path):

    from topogen.routing import nearest
    from topogen.routing.export import read_booksim_table, read_sst_routes

    topo = petersen()
    save(tmp_path / "p.json", topo)
    p = _parser()
    out = tmp_path / "o"
    args = p.parse_args(["route", str(tmp_path / "p.json"), "-a", "nr", "--booksim-table",
                         "--sst-routes", "-o", str(out)])
    assert args.func(args) == 0
    r = nearest(topo)
    rows = read_booksim_table(out / "booksim_table.txt")
    assert len(rows) == 10 * 10
    assert json.loads((out / "booksim_table.txt.json").read_text())["algorithm"] == "nr"
    md, tables = read_sst_routes(out / "sst_routes.txt")
    assert md["algorithm"] == "nr" and md["topology"]["num_switches"] == 10
    assert len(tables) == 10
    for s, tab in enumerate(tables):
        for d, alts in tab.items():
            assert [s] + alts[0][1] == r.path(s, d)[0].tolist()
    # up*/down* is not destination-based: no BookSim table, nothing written
    args = p.parse_args(["route", str(tmp_path / "p.json"), "-a", "updown", "--booksim-table",
                         "-o", str(tmp_path / "u")])
    from topogen.errors import RoutingError

    with pytest.raises(RoutingError, match="destination-based"):
        args.func(args)
    assert not (tmp_path / "u").exists()


def _topogen(*argv, cwd):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "topogen", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_main_cli_end_to_end(tmp_path, capsys, monkeypatch):
    """`topogen route` / `topogen check-deadlock` through the real entry point."""
    from topogen.cli import main

    save(tmp_path / "ring.json", ring(6))
    # the installed command, from a shell-like subprocess
    res = _topogen("route", "ring.json", "--algorithm", "nr", "-o", "nr", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    res = _topogen("check-deadlock", "nr", cwd=tmp_path)
    assert res.returncode == 1 and "CYCLIC" in res.stdout and "cycle:" in res.stdout
    # the same main() in-process (faster) for the other cases
    monkeypatch.chdir(tmp_path)
    assert main(["route", "ring.json", "--algorithm", "updown", "-o", "ud"]) == 0
    capsys.readouterr()
    assert main(["check-deadlock", "ud"]) == 0
    out = capsys.readouterr().out
    assert "deadlock-free" in out and "VCs used: 1" in out
    # bad input: one line on stderr naming the problem, non-zero exit, nothing written
    (tmp_path / "disc.edges").write_text("0 1\n2 3\n")
    for argv, words in [
        (("route", "ring.json", "-a", "dor", "-o", "x"), "no dimensions"),
        (("route", "ring.json", "-a", "hop", "--base", "nr", "--vcs", "2", "-o", "x"),
         "at least 3 VCs"),
        (("route", "ring.json", "-a", "escape", "--vcs", "1", "-o", "x"), "at least 2 VCs"),
        (("route", "ring.json", "-a", "valiant", "--vcs", "5", "-o", "x"), "at least 6 VCs"),
        (("route", "disc.edges", "-a", "updown", "-o", "x"), "connected"),
        (("check-deadlock", "missing"), "not a routing folder"),
    ]:
        assert main(list(argv)) != 0
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], lines
    assert not (tmp_path / "x").exists()


def test_table_auto_skips_the_n_squared_table_of_large_networks(tmp_path, monkeypatch, capsys):
    """--table auto (default) writes table.csv for small networks only; csv forces it."""
    from topogen.cli import main
    from topogen.routing import cli as rcli

    src = tmp_path / "t.json"
    assert main(["-q", "generate", "torus", "--dims", "4,4", "-o", str(src)]) == 0
    assert main(["route", str(src), "-o", str(tmp_path / "small")]) == 0
    assert (tmp_path / "small" / "table.csv").exists()
    monkeypatch.setattr(rcli, "AUTO_TABLE_MAX_SWITCHES", 8)
    capsys.readouterr()
    assert main(["route", str(src), "-o", str(tmp_path / "big")]) == 0
    assert not (tmp_path / "big" / "table.csv").exists()
    assert "--table csv" in capsys.readouterr().err
    assert main(["-q", "route", str(src), "--table", "csv", "-o", str(tmp_path / "forced")]) == 0
    assert (tmp_path / "forced" / "table.csv").exists()
