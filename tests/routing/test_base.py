import numpy as np
import pytest

from topogen.errors import FormatError, ParameterError
from topogen.generators.classic import torus
from topogen.routing import (check, dor, escape, hop_indexed, layered, load_routing, nearest,
                             route, updown, valiant)

from .conftest import all_paths, petersen, ring, rrg


@pytest.mark.parametrize("make", [
    lambda: nearest(rrg(20, 3, 1), all_next_hops=True),
    lambda: updown(petersen()),
    lambda: dor(torus((4, 3))),
    lambda: hop_indexed(nearest(petersen())),
    lambda: layered(nearest(ring(6))),
    lambda: escape(petersen(), num_vcs=3, base="nr"),
])
def test_save_load_roundtrip(tmp_path, make):
    r = make()
    r.save(tmp_path / "r")
    back = load_routing(tmp_path / "r")
    assert type(back) is type(r)
    assert back.algorithm == r.algorithm and back.num_vcs == r.num_vcs
    assert back.topology.num_switches == r.topology.num_switches
    assert np.array_equal(back.topology.edges, r.topology.edges)
    for key, (sw, vcs) in all_paths(r).items():
        sw2, vcs2 = back.path(*key)
        assert np.array_equal(sw, sw2) and np.array_equal(vcs, vcs2)
    assert check(back).acyclic == check(r).acyclic


def test_save_load_valiant(tmp_path):
    v = valiant(nearest(petersen()), seed=11)
    v.save(tmp_path / "v")
    back = load_routing(tmp_path / "v")
    assert back.seed == 11 and back.num_vcs == v.num_vcs
    assert [back.path(0, 3)[0].tolist() for _ in range(5)] == [v.path(0, 3)[0].tolist() for _ in range(5)]


def test_load_errors(tmp_path):
    with pytest.raises(FormatError):
        load_routing(tmp_path)
    (tmp_path / "routing.json").write_text("{nope")
    with pytest.raises(FormatError):
        load_routing(tmp_path)


def test_table_layout_and_accessors():
    r = nearest(rrg(20, 3, 1))
    assert r.ranks.shape == (1, 20, 20) and r.ranks.dtype == np.uint8
    assert r.ranks[0, 5, 5] == 255
    col = r.next_rank(7)
    nh = r.next_hop(7)
    for v in range(20):
        if v != 7:
            assert r.topology.neighbors(v)[col[v]] == nh[v]
    ent, vcs = r.route_matrix([0, 1, 2], [5, 1, 9])
    assert ent.shape[1] == 3 and np.all(ent[:, 1] == -1)
    assert r.route_lengths([0, 1, 2], [5, 1, 9]).tolist() == [len(r.path(s, d)[1]) for s, d in [(0, 5), (1, 1), (2, 9)]]


@pytest.mark.parametrize("make", [
    lambda: nearest(rrg(20, 3, 1)),  # const VC
    lambda: dor(torus((4, 3))),  # dateline VCs
    lambda: hop_indexed(nearest(petersen())),
    lambda: layered(nearest(ring(6))),
])
def test_route_matrix_without_vcs(make):
    """with_vcs=False walks the same links and skips the VCs; with them, each column is path()."""
    r = make()
    n = r.topology.num_switches
    src, dst = np.divmod(np.arange(n * n), n)
    ent, vcs = r.route_matrix(src, dst)
    ent2, none = r.route_matrix(src, dst, with_vcs=False)
    assert none is None and np.array_equal(ent, ent2)
    indices = r.view.indices
    for m in range(0, n * n, 7):
        sw, hop_vcs = r.path(int(src[m]), int(dst[m]))
        hops = ent[:, m][ent[:, m] >= 0]
        assert indices[hops].tolist() == sw[1:].tolist()
        assert vcs[:, m][vcs[:, m] >= 0].tolist() == hop_vcs.tolist()


def test_route_dispatch():
    t = torus((4, 4))
    assert route(t, algorithm="dor").algorithm == "dor"
    assert route(t, algorithm="hop").num_vcs == 4
    assert route(t, algorithm="valiant", seed=2).num_vcs == 8
    with pytest.raises(ParameterError):
        route(t, algorithm="magic")


def test_docs_example_runs(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "routing.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, re.S)
    assert code
    for block in code:
        exec(compile(block, "docs/routing.md", "exec"), {})
    assert "deadlock-free" in capsys.readouterr().out


def test_route_valiant_vcs_error():
    from topogen.errors import RoutingError

    with pytest.raises(RoutingError, match="at least 4 VCs"):
        route(petersen(), algorithm="valiant", vcs=3, seed=1)
