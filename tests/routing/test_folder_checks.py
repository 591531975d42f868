"""A saved routing folder is checked as it is loaded: every corruption is a FormatError
naming the file and the problem (never an internal error), and a topology or layout
other than the one the routing was computed for is detected through recorded digests."""

from __future__ import annotations

import json
import shutil

import networkx as nx
import numpy as np
import pytest

import topogen.cli as cli
from topogen import Floor, Topology, place
from topogen.errors import FormatError, ParameterError
from topogen.formats import write_bundle
from topogen.routing import escape, load_routing, nearest, valiant
from topogen.routing._folder import layout_digest, topology_digest


def _grid(rows: int, cols: int) -> Topology:
    return Topology.from_networkx(nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols)),
                                  name="grid")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """An NR routing of a 4x4 grid with its layout, saved once; tests copy it."""
    topo = _grid(4, 4)
    layout = place(topo, Floor(4, 4), "sequential")
    folder = tmp_path_factory.mktemp("routing") / "r"
    nearest(topo, layout).save(folder)
    return folder, topo, layout


@pytest.fixture
def copy(saved, tmp_path):
    folder = tmp_path / "r"
    shutil.copytree(saved[0], folder)
    return folder


def _edit_json(folder, **changes):
    md = json.loads((folder / "routing.json").read_text())
    for key, value in changes.items():
        if value is _DROP:
            md.pop(key)
        else:
            md[key] = value
    (folder / "routing.json").write_text(json.dumps(md))


_DROP = object()


def _load_fails(folder, file_name: str, *words: str) -> str:
    with pytest.raises(FormatError) as info:
        load_routing(folder)
    msg = str(info.value)
    assert file_name in msg
    for w in words:
        assert w in msg, msg
    return msg


def test_digests_are_recorded_and_match(saved):
    folder, topo, layout = saved
    md = json.loads((folder / "routing.json").read_text())
    assert md["topology_digest"] == topology_digest(topo)
    assert md["layout_digest"] == layout_digest(layout)
    r = load_routing(folder)
    assert np.array_equal(r.ranks, nearest(topo, layout).ranks)


def test_digest_depends_on_links_and_hosts():
    a = _grid(4, 4)
    assert topology_digest(a) == topology_digest(_grid(4, 4))
    assert topology_digest(a) != topology_digest(a.replace(hosts_per_switch=2))
    b = a.replace(edges=np.vstack([a.edges, [[0, 15]]]))
    assert topology_digest(a) != topology_digest(b)


def test_routing_json_not_an_object(copy):
    (copy / "routing.json").write_text("[]\n")
    _load_fails(copy, "routing.json", "JSON object")


def test_routing_json_binary(copy):
    (copy / "routing.json").write_bytes(b"\xff\xfe\x00\x01binary")
    _load_fails(copy, "routing.json", "not a text file")


@pytest.mark.parametrize("key", ["algorithm", "kind", "num_vcs"])
def test_routing_json_missing_key(copy, key):
    _edit_json(copy, **{key: _DROP})
    _load_fails(copy, "routing.json", key if key != "kind" else "kind")


@pytest.mark.parametrize("num_vcs", [0, -1, 1.5, "2", True])
def test_routing_json_bad_num_vcs(copy, num_vcs):
    _edit_json(copy, num_vcs=num_vcs)
    _load_fails(copy, "routing.json", "num_vcs")


def test_vc_const_beyond_num_vcs(copy):
    _edit_json(copy, vc_const=3)
    _load_fails(copy, "routing.json", "vc_const")


def test_unknown_vc_rule(copy):
    _edit_json(copy, vc_rule="zigzag")
    _load_fails(copy, "routing.json", "vc_rule")


def test_array_name_outside_the_folder(copy):
    _edit_json(copy, arrays=["ranks", "../../etc/passwd"])
    _load_fails(copy, "routing.json", "arrays")


def test_pickled_ranks(copy):
    np.save(copy / "ranks.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    _load_fails(copy, "ranks.npy", "pickle")


def test_ranks_not_npy(copy):
    (copy / "ranks.npy").write_bytes(b"garbage")
    _load_fails(copy, "ranks.npy", "not a NumPy")


def test_truncated_ranks(copy):
    data = (copy / "ranks.npy").read_bytes()
    (copy / "ranks.npy").write_bytes(data[: len(data) // 2])
    _load_fails(copy, "ranks.npy")


def test_ranks_out_of_range(copy):
    ranks = np.load(copy / "ranks.npy")
    ranks[0, 0, 5] = 9  # switch 0 of a grid has 2 links
    np.save(copy / "ranks.npy", ranks)
    _load_fails(copy, "ranks.npy", "switch 0", "rank 9")


def test_ranks_wrong_shape(copy):
    np.save(copy / "ranks.npy", np.zeros((1, 3, 3), dtype=np.uint8))
    _load_fails(copy, "ranks.npy", "shape")


def test_ranks_float(copy):
    np.save(copy / "ranks.npy", np.load(copy / "ranks.npy").astype(np.float64))
    _load_fails(copy, "ranks.npy", "uint8")


def test_entry_phase_out_of_range(copy):
    ph = np.load(copy / "entry_phase.npy")
    ph[0] = 3
    np.save(copy / "entry_phase.npy", ph)
    _load_fails(copy, "entry_phase.npy", "entry_phase")


def test_missing_array_file(copy):
    (copy / "ranks.npy").unlink()
    _load_fails(copy, "ranks.npy", "missing")


def test_missing_topology(copy):
    (copy / "topology.json").unlink()
    _load_fails(copy, "topology.json", "missing")


def test_swapped_topology_same_size_is_detected(copy):
    """A 16-switch ring has the switch count and degrees of... nothing we routed: the
    ranks would fit (degree 2 everywhere is within the grid's 2..4), so only the digest
    can tell."""
    other = Topology.from_networkx(nx.cycle_graph(16), name="ring")
    write_bundle(copy / "topology.json", other, place(other, Floor(4, 4), "sequential"))
    _load_fails(copy, "routing.json", "another topology")


def test_swapped_layout_is_detected(saved, copy):
    _, topo, _ = saved
    write_bundle(copy / "topology.json", topo, place(topo, Floor(2, 8), "sequential"))
    _load_fails(copy, "routing.json", "another layout")


def test_other_topology_given_by_the_caller(copy):
    with pytest.raises(FormatError, match="another topology"):
        load_routing(copy, topology=Topology.from_networkx(nx.cycle_graph(16)))


def test_folder_without_digests_still_loads(saved, copy):
    """Folders written before the digests were recorded stay readable."""
    _edit_json(copy, topology_digest=_DROP, layout_digest=_DROP)
    assert np.array_equal(load_routing(copy).ranks, load_routing(saved[0]).ranks)


@pytest.mark.parametrize("kind", ["escape", "valiant"])
def test_composite_routings_round_trip_and_check_their_parts(saved, tmp_path, kind):
    _, topo, layout = saved
    r = escape(topo, layout, 3, base="nr") if kind == "escape" else valiant(nearest(topo), seed=3)
    r.save(tmp_path / kind)
    back = load_routing(tmp_path / kind)
    assert type(back) is type(r) and back.num_vcs == r.num_vcs
    part = "minimal" if kind == "escape" else "base"
    ranks = np.load(tmp_path / kind / part / "ranks.npy")
    ranks[0, 0, 1] = 200
    np.save(tmp_path / kind / part / "ranks.npy", ranks)
    with pytest.raises(FormatError, match="rank 200"):
        load_routing(tmp_path / kind)


def test_routing_refuses_zero_vcs(saved):
    _, topo, layout = saved
    with pytest.raises(ParameterError, match="num_vcs"):
        nearest(topo, layout).with_vcs(algorithm="nr", vc_rule="const", num_vcs=0)


def test_cli_reports_one_line_and_format_exit_code(copy, capsys):
    _edit_json(copy, num_vcs=0)
    for argv in (["check-deadlock", str(copy)],
                 ["simulate", str(copy), "--max-samples", "4", "--warmup-periods", "1"]):
        assert cli.main(argv) == FormatError.exit_code
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "routing.json" in err[0] and "num_vcs" in err[0], err
