"""Round trips and malformed input of topogen.formats."""

from __future__ import annotations

import json
import os
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topogen import Floor, Topology, place
from topogen.errors import FormatError, ParameterError
from topogen import formats
from topogen._safe_text import first_unsafe
from topogen.formats import edgelist
from topogen.formats import (
    load,
    read_bundle,
    read_edgelist,
    read_edgelist_with_layout,
    read_graphml,
    save,
    write_bundle,
    write_edgelist,
    write_graphml,
)

EXTS = ["json", "edges", "graphml"]


# ---------------------------------------------------------------------------- helpers
def assert_same_topology(a: Topology, b: Topology) -> None:
    assert b.num_switches == a.num_switches
    np.testing.assert_array_equal(b.edges, a.edges)
    assert b.edges.dtype == np.int32
    if np.ndim(a.hosts_per_switch) == 0:
        assert np.ndim(b.hosts_per_switch) == 0 and b.hosts_per_switch == a.hosts_per_switch
    else:
        np.testing.assert_array_equal(b.hosts_per_switch, a.hosts_per_switch)
    assert b.name == a.name
    assert b.params == a.params
    assert [type(v) for v in b.params.values()] == [type(v) for v in a.params.values()]
    assert b.seed == a.seed
    assert b.version == a.version
    assert b.kind_names == a.kind_names
    if a.link_kind is None:
        assert b.link_kind is None
    else:
        np.testing.assert_array_equal(b.link_kind, a.link_kind)
    if a.cabinet is None:
        assert b.cabinet is None
    else:
        np.testing.assert_array_equal(b.cabinet, a.cabinet)


def assert_same_layout(a, b) -> None:
    if a is None:
        assert b is None
        return
    assert b is not None
    assert b.floor == a.floor
    np.testing.assert_array_equal(b.cabinet, a.cabinet)
    assert b.placement == a.placement
    assert b.seed == a.seed
    np.testing.assert_allclose(b.cable_length, a.cable_length)


def rich_topology() -> Topology:
    return Topology(
        6,
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 3)],
        hosts_per_switch=[1, 2, 1, 0, 1, 3],
        name="ring",
        params={"dims": (2, 3), "nested": [1, (2, (3, 4))], "ratio": 0.1, "flag": True, "none": None,
                "label": "a b", "table": {"x": (1, 2)}},
        seed=2**63 - 1,
        cabinet=[0, 0, 0, 1, 1, 1],
        link_kind=[0, 0, 0, 0, 0, 0, 1],
        kind_names=("ring", "chord"),
        version="0.0.9",
    )


# ---------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("ext", EXTS)
def test_round_trip_rich_with_layout(tmp_path, ext):
    t = rich_topology()
    layout = place(t, Floor.skywalk(4, 3), "random", seed=7)
    path = tmp_path / f"t.{ext}"
    save(path, t, layout)
    t2, layout2 = load(path)
    assert_same_topology(t, t2)
    assert_same_layout(layout, layout2)
    assert layout2.topology is t2


@pytest.mark.parametrize("ext", EXTS)
def test_round_trip_without_layout(tmp_path, ext):
    t = Topology(4, [(0, 1), (2, 3)], hosts_per_switch=2, name="pairs", params={})
    path = tmp_path / f"t.{ext}"
    save(path, t)
    t2, layout = load(path)
    assert_same_topology(t, t2)
    assert layout is None


@pytest.mark.parametrize("ext", EXTS)
@pytest.mark.parametrize(
    "topology",
    [
        Topology(1, np.zeros((0, 2)), name="single"),
        Topology(3, np.zeros((0, 2)), link_kind=[], kind_names=(), name="labelled-empty"),
        Topology(3, [(0, 1)], kind_names=("unused",), name="names-only"),
        Topology(3, [(0, 2)], link_kind=[1], kind_names=("a", "b"), name="unused-kind"),
    ],
    ids=["single", "labelled-empty", "names-only", "unused-kind"],
)
def test_round_trip_edge_cases(tmp_path, ext, topology):
    path = tmp_path / f"t.{ext}"
    save(path, topology)
    assert_same_topology(topology, load(path)[0])


def test_metadata_in_every_format(tmp_path):
    t = rich_topology()
    for ext in EXTS:
        save(tmp_path / f"t.{ext}", t)
    edges_text = (tmp_path / "t.edges").read_text()
    assert edges_text.startswith("# topogen edge list\n")
    for key in ("generator: ring", "params: {", "seed: 9223372036854775807", "topogen_version: 0.0.9",
                "num_switches: 6", "hosts_per_switch: [1, 2, 1, 0, 1, 3]", 'kind_names: ["ring", "chord"]',
                "cabinet: [0, 0, 0, 1, 1, 1]"):
        assert f"# {key}" in edges_text
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["format"] == "topogen-bundle" and doc["format_version"] == 1
    meta = doc["metadata"]
    assert meta["generator"] == "ring" and meta["seed"] == 2**63 - 1
    assert meta["topogen_version"] == "0.0.9" and meta["params"]["dims"] == [2, 3]
    g = nx.read_graphml(tmp_path / "t.graphml")
    assert g.graph["generator"] == "ring"
    assert json.loads(g.graph["params"])["ratio"] == 0.1
    assert g.graph["topogen_version"] == "0.0.9"


def test_string_values_needing_quotes_round_trip(tmp_path):
    t = Topology(2, [(0, 1)], name=' "odd"\nname ', params={}, version="1.0 beta")
    for ext in ("edges", "json"):
        save(tmp_path / f"t.{ext}", t)
        assert_same_topology(t, load(tmp_path / f"t.{ext}")[0])


def test_kind_with_space_refused_by_edge_list_only(tmp_path):
    t = Topology(2, [(0, 1)], link_kind=[0], kind_names=("two words",))
    with pytest.raises(ParameterError, match="json"):
        write_edgelist(t, tmp_path / "t.edges")
    assert not (tmp_path / "t.edges").exists()
    write_bundle(tmp_path / "t.json", t)
    assert_same_topology(t, read_bundle(tmp_path / "t.json")[0])


def test_direct_reader_writer_functions(tmp_path):
    t = rich_topology()
    write_edgelist(t, tmp_path / "a.txt")
    assert_same_topology(t, read_edgelist(tmp_path / "a.txt"))
    assert read_edgelist_with_layout(tmp_path / "a.txt")[1] is None
    write_graphml(tmp_path / "a.graphml", t)
    assert_same_topology(t, read_graphml(tmp_path / "a.graphml")[0])


def test_layout_of_other_topology_refused(tmp_path):
    t = rich_topology()
    other = Topology(6, [(0, 1)])
    layout = place(other, Floor.skywalk(2, 3))
    with pytest.raises(ParameterError, match="different topology"):
        save(tmp_path / "t.json", t, layout)


# ---------------------------------------------------------------------------- hypothesis
_word = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                    st.floats(allow_nan=False), _text)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(_text, inner, max_size=2)),
    max_leaves=6,
)


@st.composite
def topologies(draw):
    n = draw(st.integers(1, 10))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=15)) if pairs else []
    rng_order = draw(st.permutations(range(len(edges))))
    edges = [edges[i] if i % 2 else edges[i][::-1] for i in rng_order]
    hosts = draw(st.one_of(st.integers(0, 4), st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    kw = {}
    if draw(st.booleans()):
        names = draw(st.lists(_word, min_size=1, max_size=3, unique=True))
        kw["kind_names"] = tuple(names)
        kw["link_kind"] = [draw(st.integers(0, len(names) - 1)) for _ in edges]
    if draw(st.booleans()):
        kw["cabinet"] = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    t = Topology(
        n,
        np.array(edges, dtype=np.int64).reshape(-1, 2),
        hosts_per_switch=hosts,
        name=draw(_text.filter(bool)),
        params=draw(st.dictionaries(_text, _value, max_size=4)),
        seed=draw(st.one_of(st.none(), st.integers(0, 2**63 - 1))),
        **kw,
    )
    layout = None
    if draw(st.booleans()):
        z = draw(st.integers(1, 4))
        floor = Floor.for_switches(n, z, cabinet_width=draw(st.floats(0, 3)))
        method = draw(st.sampled_from(["sequential", "random"]))
        layout = place(t, floor, method, seed=draw(st.integers(0, 2**32)))
    return t, layout


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=topologies(), ext=st.sampled_from(EXTS))
def test_hypothesis_round_trip(tmp_path, data, ext):
    t, layout = data
    path = tmp_path / f"h.{ext}"
    if ext == "graphml" and first_unsafe(t.name) is not None:
        # a format character (Cf: a soft hyphen, a bidi mark) in the name: GraphML cannot
        # carry it unchanged, so the writer refuses it and writes nothing
        with pytest.raises(ParameterError, match="control character"):
            save(path, t, layout)
        assert not path.exists()
        return
    save(path, t, layout)
    t2, layout2 = load(path)
    assert_same_topology(t, t2)
    assert_same_layout(layout, layout2)
    # writing the loaded copy gives the same bytes: nothing drifts on a second trip
    path2 = tmp_path / f"h2.{ext}"
    save(path2, t2, layout2)
    assert path2.read_bytes() == path.read_bytes()


# ---------------------------------------------------------------------------- plain / foreign input
def test_plain_networkx_edge_list(tmp_path):
    g = nx.cycle_graph(7)
    g.add_edge(0, 9)  # switch 8 has no link: N = max id + 1 = 10
    path = tmp_path / "g.txt"
    nx.write_edgelist(g, path, data=False)
    t = read_edgelist(path)
    assert t.name == "edgelist" and t.num_switches == 10 and t.num_links == 8
    assert t.params == {} and t.seed is None and t.link_kind is None
    assert t.has_link(0, 9) and t.degrees[8] == 0


def test_plain_edge_list_with_comments_and_kinds(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text("# hand written\n\n0 1 short\n1 2 long   \n  # between\n2 0 short\n")
    t = load(path)[0]
    assert t.kind_names == ("short", "long")
    assert t.link_counts() == {"short": 2, "long": 1}


def test_foreign_graphml_with_string_ids(tmp_path):
    g = nx.Graph()
    g.add_edge("a", "b", kind="x")
    g.add_edge("b", "c", kind="y")
    g.nodes["b"]["hosts"] = 4
    path = tmp_path / "g.graphml"
    nx.write_graphml(g, path)
    t, layout = load(path)
    assert t.num_switches == 3 and t.num_links == 2 and layout is None
    assert list(t.hosts) == [1, 4, 1]
    assert t.kind_names == ("x", "y")


# ---------------------------------------------------------------------------- malformed edge lists
def _edges(tmp_path, text: str) -> Path:
    path = tmp_path / "bad.edges"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, line, match",
    [
        ("0 1\n1 x\n", 2, "'x' is not an integer"),
        ("0 1\n1 2.5\n", 2, "not an integer"),
        ("0 1\n1 2 3 4\n", 2, "columns"),
        ("0 1 a\n1 2\n", 2, "expected 3 columns like line 1"),
        ("# c\n0\n", 2, "found 1 columns"),
        ("0 1\n2 2\n", 2, "self-loop at switch 2"),
        ("0 1\n1 2\n\n2 1\n", 4, r"duplicate link 1-2 \(already on line 2\)"),
        ("0 1\n-1 2\n", 2, "out of range"),
        ("0 1\n1 99999999999999999999999\n", 2, "out of range"),
        ("# topogen edge list\n# num_switches: 3\n0 1\n1 3\n", 4, "switch id 3 is out of range 0..2"),
        ("# topogen edge list\n# params: {bad\n0 1\n", 2, "invalid JSON"),
        ("# topogen edge list\n# num_links: 3\n0 1\n", 2, "announces 3 links but the file has 1"),
        ("# topogen edge list\n# kind_names: [\"a\"]\n0 1 a\n1 2 b\n", 4, "'b' is not one of"),
        ("# topogen edge list\n# labelled_links: true\n# kind_names: [\"a\"]\n0 1\n", 4, "no kind column"),
        ("# topogen edge list\n# num_switches: zero\n0 1\n", 2, "invalid JSON"),
        ("# topogen edge list\n# num_switches: 0\n", 2, "positive integer"),
        ("# topogen edge list\n# seed: \"abc\"\n0 1\n", 2, "seed must be an integer"),
        ("# topogen edge list\n# hosts_per_switch: [1, 2]\n0 1\n1 2\n", None, "hosts_per_switch"),
        ("# topogen edge list\n# format_version: 2\n0 1\n", 2, "format_version 2"),
        ("# topogen edge list\n# params: {}\n# tuple_params: [[\"dims\"]]\n0 1\n", 2, "names no list"),
        ("# topogen edge list\n# layout: {\"placement\": \"x\"}\n0 1\n", 2, "layout_cabinet"),
    ],
)
def test_malformed_edge_list(tmp_path, text, line, match):
    path = _edges(tmp_path, text)
    with pytest.raises(FormatError, match=match) as info:
        load(path)
    assert info.value.line == line
    assert info.value.path == path
    assert str(path) in str(info.value)
    if line is not None:
        assert f"line {line}:" in str(info.value)


def test_empty_edge_list(tmp_path):
    with pytest.raises(FormatError, match="nothing to read"):
        load(_edges(tmp_path, "# nothing\n\n"))


def test_binary_file_is_format_error(tmp_path):
    path = tmp_path / "bin.edges"
    path.write_bytes(b"\xff\xfe\x00\x81garbage")
    with pytest.raises(FormatError, match="not a text file"):
        load(path)


def test_truncated_edge_list_detected(tmp_path):
    t = Topology(5, [(0, 1), (1, 2), (2, 3), (3, 4)], name="path")
    path = tmp_path / "t.edges"
    save(path, t)
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-2]))
    with pytest.raises(FormatError, match="truncated"):
        load(path)


# ---------------------------------------------------------------------------- malformed JSON
def _bundle(tmp_path, doc) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def _good_doc(tmp_path) -> dict:
    write_bundle(tmp_path / "good.json", rich_topology())
    return json.loads((tmp_path / "good.json").read_text())


def test_invalid_json_has_decoder_line(tmp_path):
    path = _bundle(tmp_path, '{\n "format": "topogen-bundle",\n "topology": {,\n}\n')
    with pytest.raises(FormatError, match="invalid JSON") as info:
        load(path)
    assert info.value.line == 3
    assert "line 3:" in str(info.value)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda d: d.pop("topology"), "missing key 'topology'"),
        (lambda d: d["topology"].pop("edges"), "missing key 'edges'"),
        (lambda d: d["topology"].pop("num_switches"), "missing key 'num_switches'"),
        (lambda d: d.update(format="something-else"), "not a topogen bundle"),
        (lambda d: d.update(format_version=99), "format_version 99"),
        (lambda d: d["topology"].update(edges="0 1"), "edges must be list"),
        (lambda d: d["topology"].update(edges=[[0, 1], [1]]), r"list of \[u, v\] pairs"),
        (lambda d: d["topology"].update(edges=[[0, 1], [1, "2"]]), r"edges\[1\] must be an integer"),
        (lambda d: d["topology"].update(edges=[[0, 1], [1, 2.0]]), "must be an integer"),
        (lambda d: d["topology"].update(edges=[[0, 1], [1, 0]], link_kind=None), "parallel link"),
        (lambda d: d["topology"].update(edges=[[0, 99]], link_kind=None), "invalid topology"),
        (lambda d: d["topology"].update(num_switches="6"), "num_switches must be int"),
        (lambda d: d["topology"].update(num_switches=True), "num_switches must be int"),
        (lambda d: d["topology"].update(seed="1"), "seed must be an integer"),
        (lambda d: d["topology"].update(hosts_per_switch=True), "hosts_per_switch"),
        (lambda d: d["topology"].update(params=[1]), "params must be a JSON object"),
        (lambda d: d["topology"].update(kind_names=[1]), "kind_names"),
        (lambda d: d["topology"].update(link_kind=[5] * 7), "invalid topology"),
        (lambda d: d["topology"].update(edges=[[0, 2**64]], link_kind=None), "out of range"),
        (lambda d: d["topology"].update(edges=[[0, 1], [1, True]], link_kind=None), r"edges\[1\] must be an integer"),
        (lambda d: d["topology"].update(cabinet=[0, 1, 2, 0, 1, False]), r"cabinet\[5\] must be an integer"),
        (lambda d: d.update(layout={"floor": {}, "cabinet": [], "placement": "x"}), "invalid layout"),
        (lambda d: d.update(layout={"cabinet": []}), "missing key 'floor'"),
        (lambda d: d.update(layout=[]), "layout must be an object"),
    ],
)
def test_malformed_bundle(tmp_path, mutate, match):
    doc = _good_doc(tmp_path)
    mutate(doc)
    with pytest.raises(FormatError, match=match) as info:
        load(_bundle(tmp_path, doc))
    assert "bad.json" in str(info.value)


def test_bundle_not_an_object(tmp_path):
    with pytest.raises(FormatError, match="JSON object"):
        load(_bundle(tmp_path, "[1, 2]"))


def test_malformed_graphml_line(tmp_path):
    path = tmp_path / "bad.graphml"
    path.write_text('<?xml version="1.0"?>\n<graphml>\n<graph>\n<node id="0">\n</graphml>\n')
    with pytest.raises(FormatError, match="invalid XML") as info:
        load(path)
    assert info.value.line == 5


# ---------------------------------------------------------------------------- dispatch and atomicity
def test_unknown_extension_lists_supported(tmp_path):
    t = Topology(2, [(0, 1)])
    with pytest.raises(ParameterError, match=r"\.json, \.edges, \.edgelist, \.txt, \.graphml"):
        save(tmp_path / "t.csv", t)
    with pytest.raises(ParameterError, match="supported"):
        load(tmp_path / "t")
    assert list(tmp_path.iterdir()) == []


def test_explicit_format_overrides_extension(tmp_path):
    t = Topology(3, [(0, 1), (1, 2)], name="p")
    save(tmp_path / "t.dat", t, format="json")
    assert_same_topology(t, load(tmp_path / "t.dat", format="json")[0])
    with pytest.raises(ParameterError, match="unknown format"):
        save(tmp_path / "t.dat", t, format="yaml")


def test_failed_write_leaves_nothing_and_keeps_old_file(tmp_path, monkeypatch):
    t = Topology(3, [(0, 1), (1, 2)], name="p")
    path = tmp_path / "t.edges"
    save(path, t)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        yield "# topogen edge list\n"
        yield "# half a header\n"
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(edgelist, "edgelist_text", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        save(path, t)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.edges"]


def test_unwritable_destination_raises_oserror_and_cleans_up(tmp_path):
    t = Topology(2, [(0, 1)])
    (tmp_path / "out.json").mkdir()
    with pytest.raises(OSError):
        save(tmp_path / "out.json", t)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    with pytest.raises(OSError):
        save(tmp_path / "missing" / "t.json", t)


def test_written_file_mode_follows_umask(tmp_path):
    path = tmp_path / "t.json"
    save(path, Topology(2, [(0, 1)]))
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
