"""UGAL-L / UGAL-G routing objects: candidates, VCs, deadlock check, folders, CLI."""

import json

import networkx as nx
import numpy as np
import pytest

from topogen.errors import FormatError, ParameterError, RoutingError
from topogen.formats import save
from topogen.generators.slimfly import slimfly
from topogen.routing import check, nearest, route, ugal, ugal_candidates
from topogen.routing.saved import load_routing
from topogen.routing.ugal import UgalRouting

from .conftest import python_cdg


@pytest.fixture(scope="module")
def sf3():
    return slimfly(3)


def test_candidates_min_first_and_hop_indexed_vcs(sf3):
    r = ugal(nearest(sf3), "local", candidates=4, seed=3)
    assert r.algorithm == "ugal-l" and r.num_vcs == 4 and r.k == 4  # 2 x diameter 2
    rng = np.random.default_rng(0)
    for s in range(sf3.num_switches):
        for d in range(sf3.num_switches):
            c = r.candidates(s, d, rng)
            sw0, _ = r.base.path(s, d)
            assert c.paths[0][0].tolist() == sw0.tolist() and c.intermediates[0] == -1
            if s == d:
                assert len(c.paths) == 1
                continue
            assert len(c.paths) == 5
            for (sw, vcs), m in zip(c.paths[1:], c.intermediates[1:]):
                assert m not in (s, d) and int(m) in sw.tolist()
                assert sw[0] == s and sw[-1] == d and len(sw) - 1 <= 4
                assert vcs.tolist() == list(range(len(sw) - 1))  # VC = hop index < 4
    # the empty network's choice is MIN
    sw, vcs = r.path(0, 17)
    assert sw.tolist() == r.base.path(0, 17)[0].tolist() and vcs.tolist() == list(range(len(sw) - 1))


def test_cdg_of_every_candidate_is_acyclic(sf3):
    r = ugal(nearest(sf3), "global")
    rep = check(r)
    assert rep.acyclic and rep.vcs_used == 4 and "UGAL candidate" in rep.checked
    # independently: MIN and the Valiant path through every intermediate, as networkx sees them
    n = sf3.num_switches
    paths = []
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            sw, _ = r.base.path(s, d)
            paths.append((sw, np.arange(len(sw) - 1)))
            paths.extend(r.path_via(s, m, d) for m in range(n) if m not in (s, d))
    assert nx.is_directed_acyclic_graph(python_cdg(paths, 4))
    # the same paths on one VC deadlock: the check can fail
    assert not nx.is_directed_acyclic_graph(python_cdg([(p, np.zeros(len(p) - 1)) for p, _ in paths], 1))


def test_vc_and_parameter_errors(sf3):
    with pytest.raises(RoutingError, match="UGAL-L needs at least 4 VCs"):
        route(sf3, None, "ugal-l", vcs=3)
    with pytest.raises(ParameterError, match="variant"):
        UgalRouting(nearest(sf3), variant="nearest")
    with pytest.raises(ParameterError, match="candidates"):
        ugal(nearest(sf3), candidates=0)
    r = route(sf3, None, "ugal-g", vcs=6, candidates=2, seed=5)
    assert r.num_vcs == 6 and r.k == 2 and r.variant == "global"


def test_save_load_roundtrip_and_bad_folder(tmp_path, sf3):
    r = route(sf3, None, "ugal-g", candidates=3, seed=11)
    r.save(tmp_path / "u")
    back = load_routing(tmp_path / "u")
    assert isinstance(back, UgalRouting)
    assert (back.algorithm, back.variant, back.k, back.seed, back.num_vcs) == ("ugal-g", "global", 3, 11, 4)
    md = json.loads((tmp_path / "u" / "routing.json").read_text())
    assert md["kind"] == "ugal"
    md["params"]["variant"] = "sideways"
    (tmp_path / "u" / "routing.json").write_text(json.dumps(md))
    with pytest.raises(FormatError, match="params.variant"):
        load_routing(tmp_path / "u")


def test_route_cli_writes_min_table_and_checks(tmp_path, capsys, monkeypatch):
    from topogen.cli import main

    save(tmp_path / "sf.json", slimfly(3))
    monkeypatch.chdir(tmp_path)
    assert main(["-q", "route", "sf.json", "-a", "ugal-l", "--candidates", "2", "-o", "u"]) == 0
    assert (tmp_path / "u" / "table.csv").is_file() and (tmp_path / "u" / "base" / "routing.json").is_file()
    r = load_routing(tmp_path / "u")
    assert r.algorithm == "ugal-l" and r.k == 2
    capsys.readouterr()
    assert main(["check-deadlock", "u"]) == 0
    assert "deadlock-free" in capsys.readouterr().out
    for argv, words in [
        (("route", "sf.json", "-a", "ugal-g", "--vcs", "3", "-o", "x"), "UGAL-G needs at least 4 VCs"),
        (("route", "sf.json", "-a", "ugal-l", "--booksim-table", "-o", "x"), "BookSim routing table"),
        (("simulate", "u", "--num-vcs", "2", "--load", "0.1", "-o", "x.csv"), "raise num_vcs to at least 4"),
        (("simulate", "sf.json", "--routing", "ugal-l", "--traffic", "groupshift", "-o", "x.csv"),
         "groupshift traffic needs Dragonfly groups"),
    ]:
        assert main(list(argv)) not in (0, 70)
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], lines
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.csv").exists()


def test_ugal_candidates_function_agrees(sf3):
    r = ugal(nearest(sf3), candidates=4)
    a = r.candidates(2, 9, np.random.default_rng(4))
    b = ugal_candidates(r.base, 2, 9, k=4, rng=np.random.default_rng(4))
    assert a.as_dict() == b.as_dict()
