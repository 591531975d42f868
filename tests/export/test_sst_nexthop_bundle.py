"""Next-hop SST bundles (``write_bundle(routes="next_hops")``): a matrix of output ports
beside the JSON instead of every router's source routes.  Checked against the full-route
bundle of the same routing (every route walked from the rows equals the bundle's route),
byte for byte in the layout ``topogen.table_topo`` reads (row ``v`` at ``offset + v * N *
width``), and for the faults the validator must name."""

from __future__ import annotations

import hashlib
import json
import runpy
import sys

import numpy as np
import pytest

import topogen
from topogen import registry
from topogen.drivers import sst_table as st
from topogen.errors import FormatError, ParameterError, RoutingError
from topogen.export import sst as sx
from topogen.export import sst_relabel, sst_tables
from topogen.routing import route

NETS = [
    ("torus", {"dims": (4, 4), "hosts_per_switch": 2}, "booksim-min"),
    ("torus", {"dims": (3, 5)}, "nr"),
    ("slimfly", {"q": 5}, "booksim-min"),
    ("slimfly", {"q": 5}, "updown"),  # a phased table: its rows come from the routes' first hops
    ("dragonfly", {"a": 4, "p": 2, "h": 2}, "booksim-min"),
    ("mesh", {"dims": (4, 4)}, "dor"),  # dor's VCs are constant on a mesh
]


def export(folder, name, params, routing, routes):
    t = registry.get(name).func(**params)
    layout = topogen.layout.default_layout(t)
    r = route(t, layout, routing)
    tag = f"{name}-{routing}-{'-'.join(map(str, params.values()))}".replace(" ", "").replace(",", "_")
    return t, sx.write_bundle(folder / f"{tag}.{routes}.json", t, layout, r, routes=routes)


def ports_to_routers(doc):
    """``{(router, port): neighbour}`` from the bundle's links (independent of connectivity)."""
    across = {}
    for link in doc["links"]:
        across[(link["u"], link["port_u"])] = link["v"]
        across[(link["v"], link["port_v"])] = link["u"]
    return across


def raw_row(json_path, doc, v):
    """Router ``v``'s row as ``topogen.table_topo`` reads it: plain bytes from the file."""
    nh = doc["next_hops"]
    n, width = doc["num_routers"], {"uint8": 1, "uint16": 2}[nh["dtype"]]
    with open(json_path.parent / nh["file"], "rb") as fh:
        fh.seek(nh["offset"] + v * n * width)
        data = fh.read(n * width)
    values = [int.from_bytes(data[i:i + width], "little") for i in range(0, len(data), width)]
    return [-1 if x == nh["none"] else x for x in values]


@pytest.mark.parametrize("name, params, routing", NETS)
def test_rows_walk_every_route_of_the_full_bundle(tmp_path, name, params, routing):
    t, full_path = export(tmp_path, name, params, routing, "full")
    _, nh_path = export(tmp_path, name, params, routing, "next_hops")
    full, nh = sx.read_bundle(full_path), sx.read_bundle(nh_path)
    across = ports_to_routers(nh)
    rows = [raw_row(nh_path, nh, v) for v in range(t.num_switches)]
    compared = 0
    for r in full["routers"]:
        s = r["id"]
        assert rows[s][s] == -1
        for entry in r["routing_entry_string"].split("|"):
            dst, _, body = entry.partition(":")
            hops = [int(x) for x in body.split(",")[1:]]
            at, walked = s, []
            while at != int(dst):
                at = across[(at, rows[at][int(dst)])]
                walked.append(at)
                assert len(walked) <= t.num_switches
            assert walked == hops, (s, dst)
            compared += 1
    assert compared == t.num_switches * (t.num_switches - 1)
    # everything but the routes is the full bundle's; the longest route sets the same VCs
    for key in ("max_hops", "vcs_per_vn", "links", "endpoints", "endpoint_router_mapping", "metadata",
                "router_params", "nic_params", "cycle_ps"):
        assert nh[key] == full[key], key
    assert [{k: v for k, v in r.items() if k != "routing_entry_string"} for r in full["routers"]] == nh["routers"]


@pytest.mark.parametrize("name, params, routing", NETS[:3])
def test_rows_are_the_ports_the_model_gives_from_full_routes(tmp_path, name, params, routing):
    """What topogen.table_topo reads from the file equals what the model passes it as
    ``next_port`` for the full-route bundle: the same ports, so the same simulation."""
    t, full_path = export(tmp_path, name, params, routing, "full")
    _, nh_path = export(tmp_path, name, params, routing, "next_hops")
    model = st.model_module()
    old = model.table_params(sx.read_bundle(full_path))
    nh_doc = model.load_bundle(str(nh_path))
    new = model.table_params(nh_doc)
    for v in range(t.num_switches):
        assert raw_row(nh_path, nh_doc, v) == old[v]["next_port"]
        assert "next_port" not in new[v]
        assert new[v]["next_port_file"] == str((tmp_path / nh_doc["next_hops"]["file"]).resolve())
        assert new[v]["next_port_offset"] == nh_doc["next_hops"]["offset"]
        assert new[v]["next_port_width"] == 1 and new[v]["num_routers"] == t.num_switches
        assert {k: x for k, x in new[v].items() if not k.startswith(("next_port", "num_routers"))} == \
            {k: x for k, x in old[v].items() if k != "next_port"}


def test_file_is_npy_with_checksum_and_no_routes_in_the_json(tmp_path):
    t, path = export(tmp_path, "slimfly", {"q": 5}, "booksim-min", "next_hops")
    doc = json.loads(path.read_text())
    assert "routing_entry_string" not in path.read_text()
    nh = doc["next_hops"]
    assert nh["file"] == path.name[: -len(".json")] + ".nexthop.npy"
    rows = np.load(tmp_path / nh["file"])
    assert rows.dtype == np.uint8 and rows.shape == (50, 50) and nh["shape"] == [50, 50]
    assert nh["sha256"] == hashlib.sha256(rows.tobytes()).hexdigest()
    assert (tmp_path / nh["file"]).stat().st_size == nh["offset"] + 50 * 50
    assert (np.diag(rows) == 255).all() and (rows[~np.eye(50, dtype=bool)] < t.degree).all()


def test_wide_routers_get_two_byte_rows():
    assert sst_tables.next_port_dtype(254) == np.uint8
    assert sst_tables.next_port_dtype(255) == np.uint16
    with pytest.raises(RoutingError, match="16 bits"):
        sst_tables.next_port_dtype(70000)


@pytest.mark.parametrize("routing, says", [
    ("valiant", "no next hop per"),
    ("ugal-l", "no next hop per"),
    ("dor", "VC rule dateline"),  # on a torus dor's VC changes at the dateline
])
def test_routings_without_one_next_hop_or_with_their_own_vcs_are_refused(tmp_path, routing, says):
    with pytest.raises(RoutingError, match=says):
        export(tmp_path, "torus", {"dims": (4, 4)}, routing, "next_hops")
    with pytest.raises(ParameterError, match="routes must be one of"):
        export(tmp_path, "torus", {"dims": (4, 4)}, "booksim-min", "paths")


def rewrite(path, change):
    """Change the matrix beside ``path`` (and, unless told, keep the JSON's checksum true)."""
    doc = json.loads(path.read_text())
    npy = path.parent / doc["next_hops"]["file"]
    rows = np.load(npy)
    keep_sum = change(rows)
    np.save(npy, rows)
    if keep_sum is not False:
        doc["next_hops"]["sha256"] = hashlib.sha256(rows.tobytes()).hexdigest()
        path.write_text(json.dumps(doc))


@pytest.mark.parametrize("change, says", [
    (lambda m: m.__setitem__((0, 5), 200), "router 0: next hop towards router 5: port 200 is not a router port"),
    (lambda m: m.__setitem__((3, 3), 0), "router 3: next hop towards router 3: a router's own column must be empty"),
    (lambda m: (m.__setitem__((1, 5), m[0, 5]), False)[1], "SHA-256 differs"),
])
def test_validator_names_a_broken_matrix(tmp_path, change, says):
    _, path = export(tmp_path, "slimfly", {"q": 5}, "booksim-min", "next_hops")
    rewrite(path, change)
    with pytest.raises(FormatError, match=says):
        sx.read_bundle(path)


def test_validator_finds_a_loop(tmp_path):
    t, path = export(tmp_path, "torus", {"dims": (6,)}, "booksim-min", "next_hops")
    doc = sx.read_bundle(path)
    across = ports_to_routers(doc)
    back = {(u, w): p for (u, p), w in across.items()}

    def loop(rows):  # 0 -> 1 and 1 -> 0 towards 3: the route 0 -> 3 never arrives
        rows[0, 3] = back[(0, 1)]
        rows[1, 3] = back[(1, 0)]

    rewrite(path, loop)
    with pytest.raises(FormatError, match="towards router 3: the next hops go round a loop"):
        sx.read_bundle(path)


def test_missing_or_mismatched_matrix_is_refused(tmp_path):
    _, path = export(tmp_path, "slimfly", {"q": 5}, "booksim-min", "next_hops")
    doc = json.loads(path.read_text())
    npy = path.parent / doc["next_hops"]["file"]
    np.save(npy, np.zeros((49, 50), dtype=np.uint8))
    with pytest.raises(FormatError, match=r"uint8 \(49, 50\).*the bundle says uint8 \(50, 50\)"):
        sx.read_bundle(path)
    npy.unlink()
    with pytest.raises(FormatError, match="cannot be read"):
        sx.read_bundle(path)


def test_anytopo_is_refused_for_next_hops(tmp_path, monkeypatch):
    _, path = export(tmp_path, "slimfly", {"q": 5}, "booksim-min", "next_hops")
    doc = sx.read_bundle(path)
    with pytest.raises(ParameterError, match="carries next hops"):
        st.topology_args("anytopo", None, doc, path)
    argv, params = st.topology_args("table", None, doc, path)
    assert "--tables-checked" in argv and params["sst_topology"] == "table"


def test_model_refuses_anytopo_and_wires_rows_and_shared_endpoints(tmp_path, monkeypatch):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "drivers" / "fake_sst"))
    sys.modules.pop("sst", None)
    try:
        import sst

        sst.reset()
        shared = {}
        sst.addSharedParams = lambda name, params: shared.setdefault(name, dict(params))
        sst._Element.addSharedParamSet = lambda self, name: self.params.setdefault("<shared>", name)
        t, path = export(tmp_path, "torus", {"dims": (4, 4)}, "booksim-min", "next_hops")
        model_file = sx.model_path()
        base = [str(model_file), "--bundle", str(path), "--generator", "bernoulli", "--load", "0.2"]
        monkeypatch.setattr(sys, "argv", base)
        with pytest.raises(SystemExit, match="carries next hops, not source routes"):
            runpy.run_path(str(model_file), run_name="__main__")
        sst.reset()
        monkeypatch.setattr(sys, "argv", base + ["--topology", "table"])
        runpy.run_path(str(model_file), run_name="__main__")
        topos = [c.subcomponents[("topology", 0)] for c in sst.RECORD["components"].values()
                 if c.type == "merlin.hr_router"]
        assert len(topos) == t.num_switches
        (name, params), = shared.items()
        assert params["endpoint_router"] == [ep["router"] for ep in sorted(sx.read_bundle(path)["endpoints"],
                                                                           key=lambda e: e["id"])]
        for topo in topos:  # one shared copy of the endpoints' routers, the row read from the file
            assert topo.params["<shared>"] == name and "endpoint_router" not in topo.params
            assert "next_port" not in topo.params and topo.params["next_port_file"].endswith(".nexthop.npy")
    finally:
        sys.path.pop(0)
        sys.modules.pop("sst", None)


def test_relabelled_next_hop_bundle_keeps_its_matrix(tmp_path):
    _, path = export(tmp_path, "slimfly", {"q": 5}, "booksim-min", "next_hops")
    (tmp_path / "other").mkdir()
    out = sst_relabel.write_relabelled_bundle(path, tmp_path / "other" / "r.json", seed=3)
    doc = sx.read_bundle(out)
    assert np.array_equal(sx.next_port_rows(doc, out), np.load(sx.next_hop_path(path)))
    assert doc["metadata"]["endpoint_relabel_seed"] == 3


def test_walk_returns_the_longest_route_of_a_ring():
    # ring of 7: port 0 to v+1, port 1 to v-1; clockwise next hops give 6-hop routes
    n = 7
    port_router = np.array([[(v + 1) % n, (v - 1) % n] for v in range(n)], dtype=np.int32)
    rows = np.zeros((n, n), dtype=np.uint8)
    np.fill_diagonal(rows, 255)
    assert sst_tables.next_port_walk(rows, port_router) == (6, None)
    rows[~np.eye(n, dtype=bool)] = 1
    assert sst_tables.next_port_walk(rows, port_router) == (6, None)
    # shortest way round: at most 3 hops
    for v in range(n):
        for d in range(n):
            if v != d:
                rows[v, d] = 0 if (d - v) % n <= 3 else 1
    assert sst_tables.next_port_walk(rows, port_router) == (3, None)
