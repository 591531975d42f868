"""topogen.table_topo without SST: the next-hop tables the model builds from a bundle, the
routings it refuses, the model's wiring and the driver's option plumbing."""

from __future__ import annotations

import json
import runpy
import sys

import pytest

from topogen import sim_defaults
from topogen.drivers import sst as sd
from topogen.drivers import sst_table as st
from topogen.errors import ParameterError
from topogen.export import sst as sx

from . import fakes
from .routing_stub import BFSRouting


def torus_bundle(tmp_path, routing="booksim-min", dims=(4, 4), hosts=2, name="net.sst.json"):
    from topogen.generators.classic import torus
    from topogen.layout import default_layout
    from topogen.routing import route

    t = torus(dims, hosts_per_switch=hosts)
    layout = default_layout(t)
    r = route(t, layout, routing)
    return t, r, sx.write_bundle(tmp_path / name, t, layout, r)


def model():
    return st.model_module()


def walk(doc, params, src, dst_router):
    """Routers a packet visits from router ``src`` to ``dst_router`` following the tables and
    the bundle's links (port -> neighbour)."""
    across = {}
    for link in doc["links"]:
        across[(link["u"], link["port_u"])] = link["v"]
        across[(link["v"], link["port_v"])] = link["u"]
    at, seen = src, [src]
    while at != dst_router:
        at = across[(at, params[at]["next_port"][dst_router])]
        seen.append(at)
        assert len(seen) <= doc["num_routers"], "the tables loop"
    return seen


# ---------------------------------------------------------------- the tables
@pytest.mark.parametrize("routing", ["booksim-min", "nr", "fr", "updown"])
def test_tables_follow_the_routes_of_every_source(tmp_path, routing):
    t, r, path = torus_bundle(tmp_path, routing)
    doc = sx.read_bundle(path)
    params = model().table_params(doc)
    assert len(params) == t.num_switches
    for s in range(t.num_switches):
        assert params[s]["next_port"][s] == -1
        for d in range(t.num_switches):
            switches = [int(x) for x in r.path(s, d)[0]]
            assert walk(doc, params, s, d) == switches, (s, d)


def test_endpoints_tree_and_vcs(tmp_path):
    t, _, path = torus_bundle(tmp_path)
    doc = sx.read_bundle(path)
    params = model().table_params(doc, 3, "downstream")
    owner = [ep["router"] for ep in sorted(doc["endpoints"], key=lambda e: e["id"])]
    for v, p in enumerate(params):
        router = doc["routers"][v]
        assert p["endpoint_router"] == owner
        assert p["endpoint_to_port_map"] == router["endpoint_to_port_map"]
        assert (p["num_R2R_ports"], p["num_R2N_ports"]) == (router["num_R2R_ports"], router["num_R2N_ports"])
        assert p["num_vcs"] == 3 and p["vc_credits"] == "downstream"
    # the broadcast tree: every tree edge at both of its ends, n - 1 edges, connected
    ends = {}
    for link in doc["links"]:
        ends[(link["u"], link["port_u"])] = (link["v"], link["port_v"])
    edges = set()
    for v, p in enumerate(params):
        for port in p["tree_ports"]:
            if (v, port) in ends:
                w, back = ends[(v, port)]
                assert back in params[w]["tree_ports"]
                edges.add((v, w))
    assert len(edges) == t.num_switches - 1
    reach, todo = {0}, [0]
    for u in todo:
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == u and y not in reach:
                    reach.add(y)
                    todo.append(y)
    assert reach == set(range(t.num_switches))


def test_default_vcs_are_the_shared_default():
    assert model().TABLE_NUM_VCS == sim_defaults.NUM_VCS


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize("routing, why", [
    ("valiant", "chosen at the source"),
    ("ugal-l", "chosen at the source"),
    ("dor", "dateline"),
    ("hop", "hop number"),
    ("layered", "layer"),
    ("escape", "escape VC"),
])
def test_routings_it_cannot_follow_are_refused(tmp_path, routing, why):
    _, _, path = torus_bundle(tmp_path, routing)
    with pytest.raises(model().TableRoutingError, match=why) as err:
        model().table_params(sx.read_bundle(path))
    assert "\n" not in str(err.value) and "--sst-topology anytopo" in str(err.value)


def test_weighted_paths_are_refused_whatever_the_routing_is_called(tmp_path):
    _, _, path = torus_bundle(tmp_path, "valiant")
    doc = sx.read_bundle(path)
    doc["metadata"]["routing"] = "my-own"
    with pytest.raises(model().TableRoutingError, match="weighted paths"):
        model().table_params(doc)
    doc["source_routing_algo"] = "UGAL"
    with pytest.raises(model().TableRoutingError, match="source_routing_algo UGAL"):
        model().table_params(doc)


def test_a_next_hop_that_depends_on_the_source_is_refused(tmp_path):
    from topogen.generators.classic import torus

    t = torus((4, 4))
    doc = sx.bundle_dict(t, routing=BFSRouting(t))
    model().table_params(doc)  # BFS with ties to the lowest id: one next hop per destination
    # router 8 to router 5 made to go 8 -> 4 -> 0 -> 1 -> 5 (links of the 4x4 torus), while
    # router 4's own route to 5 is the direct link
    tables = [sx_routes(r["routing_entry_string"]) for r in doc["routers"]]
    assert tables[4][5] == [5]
    tables[8][5] = [4, 0, 1, 5]
    doc["routers"][8]["routing_entry_string"] = sx.routing_entry_string(tables[8])
    with pytest.raises(model().TableRoutingError, match=r"depends on the source \(the route 8 -> 5 goes from "
                                                         r"router 4 to 0, the route 4 -> 5 to 5\)"):
        model().table_params(doc)


def sx_routes(entry):
    return {int(d): [int(h) for h in body.split(",")[1:]]
            for d, _, body in (item.partition(":") for item in entry.split("|"))}


def test_model_refuses_in_one_line(tmp_path, monkeypatch, fake_sst_module):
    _, _, path = torus_bundle(tmp_path, "valiant")
    model_file = sx.model_path()
    monkeypatch.setattr(sys, "argv", [str(model_file), "--bundle", str(path), "--generator", "bernoulli",
                                      "--load", "0.1", "--message-size", "1056B", "--topology", "table"])
    with pytest.raises(SystemExit, match="topogen_sst.py: topogen.table_topo cannot take routing valiant"):
        runpy.run_path(str(model_file), run_name="__main__")


# ---------------------------------------------------------------- the model's wiring
def run_model(monkeypatch, path, *extra):
    model_file = sx.model_path()
    monkeypatch.setattr(sys, "argv", [str(model_file), "--bundle", str(path), "--generator", "bernoulli",
                                      "--load", "0.2", "--message-size", "1056B", *extra])
    runpy.run_path(str(model_file), run_name="__main__")


@pytest.mark.parametrize("extra, vcs, rule", [
    ((), 4, "output"),
    (("--num-vcs", "2", "--vc-credits", "downstream"), 2, "downstream"),
])
def test_model_puts_table_topo_in_every_router(tmp_path, monkeypatch, fake_sst_module, extra, vcs, rule):
    t, _, path = torus_bundle(tmp_path)
    doc = sx.read_bundle(path)
    run_model(monkeypatch, path, "--topology", "table", *extra)
    routers = {c.params["id"]: c for c in fake_sst_module.RECORD["components"].values()
               if c.type == "merlin.hr_router"}
    expected = model().table_params(doc, vcs, rule)
    assert sorted(routers) == list(range(t.num_switches))
    for v, rtr in routers.items():
        topo = rtr.subcomponents[("topology", 0)]
        assert topo.type == "topogen.table_topo" and topo.params == expected[v]
        # the output queue lengths count the next router's input buffer only for "downstream"
        assert rtr.params.get("oql_track_remote", False) is (rule == "downstream")
    nics = [c for c in fake_sst_module.RECORD["components"].values() if c.type == "topogen.bernoulli_nic"]
    assert len(nics) == t.num_hosts  # the endpoints and their plumbing do not change
    for nic in nics:  # routed by destination: the NIC attaches no source route (no N-route table)
        eni = nic.subcomponents[("networkIF", 0)]
        assert eni.type == "merlin.endpointNIC" and eni.params["plugin_names"] == []
        assert ("sourceRoutingPlugin", 0) not in eni.subcomponents
        assert eni.subcomponents[("networkIF", 0)].type == "merlin.linkcontrol"


def test_model_default_stays_anytopo(tmp_path, monkeypatch, fake_sst_module):
    _, _, path = torus_bundle(tmp_path)
    run_model(monkeypatch, path)
    for c in fake_sst_module.RECORD["components"].values():
        if c.type == "merlin.hr_router":
            assert c.subcomponents[("topology", 0)].type == "merlin.anytopo" and "oql_track_remote" not in c.params


# ---------------------------------------------------------------- the driver's options
def test_run_sst_records_topology_and_vcs(tmp_path, monkeypatch):
    _, _, path = torus_bundle(tmp_path)
    doc = sx.read_bundle(path)
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin")))
    kw = dict(generator="bernoulli", seed=3, warmup="1us", collect="4us", drain="1us", timeout=60)
    table = sd.run_sst(path, load=0.1, sst_topology="table", **kw)[0]
    anytopo = sd.run_sst(path, load=0.1, **kw)[0]
    five = sd.run_sst(path, load=0.1, sst_topology="table", num_vcs=5, **kw)[0]
    p = {k: json.loads(r["params"]) for k, r in (("table", table), ("anytopo", anytopo), ("five", five))}
    assert (p["table"]["sst_topology"], p["table"]["num_vcs"]) == ("table", sim_defaults.NUM_VCS)
    assert (p["anytopo"]["sst_topology"], p["anytopo"]["num_vcs"]) == ("anytopo", doc["vcs_per_vn"])
    assert p["five"]["num_vcs"] == 5 and "--topology table --num-vcs 5" in p["five"]["command"]
    assert "--topology" not in p["anytopo"]["command"]
    assert table["status"] == anytopo["status"] == "completed" and table["raw_output"] != anytopo["raw_output"]
    # merlin.offered_load endpoints can run on it too
    ol = sd.run_sst(path, load=0.1, sst_topology="table", warmup="1us", collect="4us", drain="1us", timeout=60)[0]
    assert "--topology table" in json.loads(ol["params"])["command"]
    assert json.loads(ol["params"])["sst_topology"] == "table"


def test_run_sst_refuses_before_sst_starts(tmp_path, monkeypatch):
    _, _, path = torus_bundle(tmp_path, "valiant")
    monkeypatch.setenv("TOPOGEN_SST", str(fakes.sst(tmp_path / "bin")))
    out = tmp_path / "runs"
    out.mkdir()
    with pytest.raises(ParameterError, match=r"net.sst.json: topogen.table_topo cannot take routing valiant"):
        sd.run_sst(path, generator="bernoulli", sst_topology="table", out_dir=out)
    with pytest.raises(ParameterError, match="topogen.table_topo cannot take routing valiant"):
        sd.run_sst(path, sst_topology="table", out_dir=out)  # offered_load too
    assert not list(out.iterdir())  # nothing was run
    _, _, ok = torus_bundle(tmp_path, name="ok.sst.json")
    with pytest.raises(ParameterError, match="num_vcs applies to the table topology"):
        sd.run_sst(ok, generator="bernoulli", num_vcs=4, out_dir=out)
    with pytest.raises(ParameterError, match="one of anytopo, table"):
        sd.run_sst(ok, generator="bernoulli", sst_topology="torus", out_dir=out)
    for bad in (0, 65, 2.5, True):
        with pytest.raises(ParameterError, match="num_vcs must be an integer in 1..64"):
            sd.run_sst(ok, generator="bernoulli", sst_topology="table", num_vcs=bad, out_dir=out)
    assert not list(out.iterdir())


def test_routing_names_refused_before_any_export():
    for name in ("valiant", "ugal-l", "hop", "layered", "escape", "dsnf"):
        with pytest.raises(ParameterError, match=f"cannot take routing {name}"):
            st.check_routing_name("table", name)
    for name in ("booksim-min", "nr", "fr", "updown"):
        st.check_routing_name("table", name)
    # dor: by its VC rule, once the routing is built (dateline on a torus, const on a mesh)
    st.check_routing_name("table", "dor")
    with pytest.raises(ParameterError, match="cannot take routing dor: its VCs follow a dateline"):
        st.check_routing_name("table", "dor", vc_rule="dateline")
    st.check_routing_name("table", "dor", vc_rule="const")
    with pytest.raises(ParameterError, match="cannot take routing valiant"):
        st.check_routing_name("table", "valiant", vc_rule="const")  # its path, not its VCs


@pytest.mark.parametrize("gen, params, rule", [
    ("mesh", dict(dims=(4, 3)), "const"),
    ("hypercube", dict(dimension=4), "const"),
    ("torus", dict(dims=(2, 2, 2)), "const"),  # sides of 2: no wrap-around link
    ("torus", dict(dims=(4, 3)), "dateline"),
])
def test_bundle_records_the_vc_rule_and_dor_on_a_mesh_is_taken(tmp_path, gen, params, rule):
    from topogen import registry
    from topogen.layout import default_layout
    from topogen.routing import route

    t = registry.generate(gen, **params)
    layout = default_layout(t)
    r = route(t, layout, "dor")
    _, vcs = r.route_matrix(*divmod(__import__("numpy").arange(t.num_switches ** 2), t.num_switches))
    assert (rule == "const") == bool((vcs <= 0).all())  # the recorded rule is what the routes do
    doc = sx.read_bundle(sx.write_bundle(tmp_path / "net.sst.json", t, layout, r))
    assert doc["metadata"]["vc_rule"] == rule == sx.effective_vc_rule(r)
    if rule != "const":
        with pytest.raises(model().TableRoutingError, match="dateline"):
            model().table_params(doc)
        return
    params = model().table_params(doc)
    for s in range(t.num_switches):  # the tables follow dor's own routes
        for d in range(t.num_switches):
            if s != d:
                assert walk(doc, params, s, d) == r.path(s, d)[0].tolist()


def test_bundle_vc_rule_of_other_routings(tmp_path):
    for name, rule in (("nr", "const"), ("booksim-min", "const"), ("hop", "hop"), ("valiant", None)):
        _, r, path = torus_bundle(tmp_path, name, name=f"{name}.sst.json")
        assert sx.read_bundle(path)["metadata"].get("vc_rule") == rule == sx.effective_vc_rule(r)
    st.check_routing_name("anytopo", "valiant")
    with pytest.raises(ParameterError, match="one of anytopo, table"):
        st.check_routing_name("tables", "nr")


@pytest.mark.parametrize("argv, says", [
    (["--sst-topology", "table", "--routing", "valiant"], "cannot take routing valiant"),
    (["--sst-topology", "table", "--routing", "dor", "--binary", "FAKE"], "cannot take routing dor"),
    (["--num-vcs", "3"], "num_vcs applies to the table topology"),
    (["--sst-topology", "table", "--num-vcs", "0"], "num_vcs must be an integer in 1..64"),
])
def test_cli_refuses_before_any_folder_or_export(tmp_path, capsys, argv, says):
    from topogen.cli import main

    net = tmp_path / "t.json"
    assert main(["generate", "torus", "--dims", "3,3", "-o", str(net), "-q"]) == 0
    out = tmp_path / "out"
    argv = [str(fakes.sst(tmp_path / "bin")) if a == "FAKE" else a for a in argv]
    rc = main(["run", "sst", str(net), "--out-dir", str(out), "-o", str(tmp_path / "r.csv"), *argv])
    err = capsys.readouterr().err
    assert rc != 0 and says in err and "Traceback" not in err
    assert not out.exists() and not (tmp_path / "r.csv").exists()


# ---------------------------------------------------------------- the driver's NumPy check
@pytest.mark.parametrize("routing", ["booksim-min", "nr", "fr"])
def test_numpy_next_hop_check_agrees_with_the_model(tmp_path, routing):
    _, _, path = torus_bundle(tmp_path, routing, dims=(4, 4))
    doc = sx.read_bundle(path)
    assert st.next_hops_hold(doc)
    model().table_params(doc)  # the model agrees


def test_numpy_next_hop_check_finds_a_source_dependent_hop_and_the_model_names_it(tmp_path):
    from topogen.generators.classic import torus

    t = torus((4, 4))
    doc = sx.bundle_dict(t, routing=BFSRouting(t))
    assert st.next_hops_hold(doc)
    tables = [sx_routes(r["routing_entry_string"]) for r in doc["routers"]]
    tables[8][5] = [4, 0, 1, 5]  # as in the model's test: router 4's own route to 5 is direct
    doc["routers"][8]["routing_entry_string"] = sx.routing_entry_string(tables[8])
    assert not st.next_hops_hold(doc)
    with pytest.raises(ParameterError, match=r"net.sst.json: topogen.table_topo cannot take routing .*depends on "
                                             r"the source \(the route 8 -> 5 goes from router 4 to 0"):
        st.topology_args("table", None, doc, "net.sst.json")


@pytest.mark.parametrize("change", [
    lambda e: "|".join(e.split("|")[1:]),                # a destination missing
    lambda e: e.replace(":1.00000,", ":0.50000,", 1),    # not topogen's single-path form
    lambda e: e.replace(",", ",999,", 1),                # a hop out of range
])
def test_numpy_next_hop_check_leaves_other_forms_to_the_model(change):
    from topogen.generators.classic import torus

    t = torus((4, 4))
    doc = sx.bundle_dict(t, routing=BFSRouting(t))
    doc["routers"][3]["routing_entry_string"] = change(doc["routers"][3]["routing_entry_string"])
    assert not st.next_hops_hold(doc)


def test_checked_tables_skip_the_models_walk_and_give_the_same_params(tmp_path):
    _, _, path = torus_bundle(tmp_path, "booksim-min")
    doc = sx.read_bundle(path)
    assert model().table_params(doc, check=False) == model().table_params(doc)
    argv, params = st.topology_args("table", None, doc)
    assert argv == ["--topology", "table", "--num-vcs", str(sim_defaults.NUM_VCS), "--tables-checked"]
    assert model().parse_args(["--bundle", "b.json", *argv]).tables_checked
    assert not model().parse_args(["--bundle", "b.json", "--topology", "table"]).tables_checked
    # the walk is what finds a source-dependent hop: without it the model takes the first hops
    from topogen.generators.classic import torus

    t = torus((4, 4))
    bad = sx.bundle_dict(t, routing=BFSRouting(t))
    tables = [sx_routes(r["routing_entry_string"]) for r in bad["routers"]]
    tables[8][5] = [4, 0, 1, 5]
    bad["routers"][8]["routing_entry_string"] = sx.routing_entry_string(tables[8])
    model().table_next_hops(bad, check=False)
    with pytest.raises(model().TableRoutingError, match="depends on the source"):
        model().table_next_hops(bad)
