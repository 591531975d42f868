"""BookSim2 anynet/config export: golden files, the safe exporter subset, typed configs."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import topogen
from topogen.errors import ParameterError, TopologyError
from topogen.export import booksim as bx

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("TOPOGEN_REGENERATE_GOLDEN") == "1"


# ---------------------------------------------------------------- independent mini-parsers
def parse_anynet(text: str):
    """Re-read the safe anynet subset independently of the exporter.

    Returns (num_routers, node_router, latency) where latency[(a, b)] is the latency
    of the directed link a -> b.  Asserts every rule of the subset on the way.
    """
    assert "\t" not in text, "TAB is not a separator in anynet"
    assert text.endswith("\n") and "\r" not in text
    routers_seen = []
    node_router = {}
    latency = {}
    for line in text.split("\n")[:-1]:
        assert line == line.strip() and "  " not in line, f"spacing: {line!r}"
        tok = line.split(" ")
        assert tok[0] == "router", "every line is router-headed"
        head = int(tok[1])
        routers_seen.append(head)
        i = 2
        seen_router = False
        while i < len(tok):
            kind = tok[i]
            ident = int(tok[i + 1])
            i += 2
            if kind == "node":
                assert not seen_router, "nodes come before routers on a line"
                # no latency after a node: the next token must be a type keyword
                assert i == len(tok) or tok[i] in ("node", "router"), f"latency after node in {line!r}"
                assert ident not in node_router, f"node {ident} attached twice"
                node_router[ident] = head
            elif kind == "router":
                seen_router = True
                assert i < len(tok) and tok[i].isdigit(), f"router {ident} without explicit latency"
                lat = int(tok[i])
                i += 1
                assert lat >= 1
                assert ident != head, "self-loop"
                assert (head, ident) not in latency, "directed link written twice"
                latency[(head, ident)] = lat
            else:
                raise AssertionError(f"unknown token {kind!r}")
    n = len(routers_seen)
    assert sorted(routers_seen) == list(range(n)), "routers numbered 0..R-1, one line each"
    assert sorted(node_router) == list(range(len(node_router))), "nodes numbered 0..N-1"
    for (a, b) in latency:
        assert (b, a) in latency, "both directions are written"
        assert b < n
    return n, node_router, latency


_LEX_FLOAT = re.compile(r"-?\d+\.\d*([eE][-+]?\d+)?\Z")
_LEX_INT = re.compile(r"-?\d+\Z")
_LEX_STR = re.compile(r"[A-Za-z_\-/.][A-Za-z0-9_\-/.+(){},]*\Z")


def parse_config(text: str) -> dict:
    """Re-read a BookSim config: ``name = value;`` statements, ``//`` comments only."""
    out = {}
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        assert "#" not in line
        m = re.fullmatch(r"([a-z_]+) = (\S+);", line)
        assert m, f"not a statement: {raw!r}"
        name, value = m.groups()
        assert name not in out, f"{name} set twice"
        kind = bx.BOOKSIM_FIELDS[name]
        if kind is float:
            assert _LEX_FLOAT.match(value), f"{name} = {value} lacks a decimal point"
        elif kind is int:
            assert _LEX_INT.match(value), f"{name} = {value} is not an integer"
        else:
            assert _LEX_STR.match(value), f"{name} = {value} is not a bare token"
        out[name] = value
    return out


# ---------------------------------------------------------------- fixtures
def small_torus():
    from topogen.generators.classic import torus

    t = torus((3, 3), hosts_per_switch=2)
    return t, topogen.place(t, topogen.Floor.skywalk(3, 3))


def small_slimfly():
    from topogen.generators.slimfly import slimfly

    from topogen.layout import default_layout

    t = slimfly(3)
    return t, default_layout(t)


CASES = {"torus3x3": small_torus, "slimfly_q3": small_slimfly}


def _config_for_golden(cfg: Path) -> str:
    return cfg.read_text().replace(str(cfg.parent), "/GOLDEN_DIR")


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_exports(name, tmp_path):
    t, layout = CASES[name]()
    exp = bx.export_booksim(tmp_path, t, layout, stem=name, clock_period_ns=10.0)
    net = exp.network_file.read_text()
    meta = exp.meta_file.read_text()
    cfg = _config_for_golden(exp.config_file)
    files = {f"{name}.anynet": net, f"{name}.anynet.meta.json": meta, f"{name}.cfg": cfg}
    if REGENERATE:
        for fname, text in files.items():
            (GOLDEN / fname).write_text(text)
    for fname, text in files.items():
        assert (GOLDEN / fname).read_text() == text, f"{fname} differs from the golden file"
    # the golden netlist obeys the safe subset and encodes the topology and latencies
    n, node_router, lat = parse_anynet((GOLDEN / f"{name}.anynet").read_text())
    assert n == t.num_switches
    assert len(node_router) == t.num_hosts
    offsets = np.concatenate([[0], np.cumsum(t.hosts)[:-1]])
    for v in range(t.num_switches):
        for h in range(offsets[v], offsets[v] + t.hosts[v]):
            assert node_router[h] == v
    cycles = np.maximum(np.ceil(layout.link_delay / 10.0 - 1e-9), 1).astype(int)
    assert len(lat) == 2 * t.num_links
    for (u, v), c in zip(t.edges.tolist(), cycles):
        assert lat[(u, v)] == c and lat[(v, u)] == c
    parsed = parse_config((GOLDEN / f"{name}.cfg").read_text())
    assert parsed["network_file"] == f"{name}.anynet"  # beside the .cfg: the folder travels
    assert json.loads(meta)["seed"] == t.seed


def test_exports_are_byte_identical(tmp_path):
    t, layout = small_torus()
    a = bx.export_booksim(tmp_path / "a", t, layout)
    b = bx.export_booksim(tmp_path / "a", t, layout)  # same place again
    c = bx.export_booksim(tmp_path / "c", t, layout)
    assert a.network_file.read_bytes() == b.network_file.read_bytes() == c.network_file.read_bytes()
    assert a.meta_file.read_bytes() == c.meta_file.read_bytes()
    assert _config_for_golden(a.config_file) == _config_for_golden(c.config_file)
    # atomic writes leave no temporary files behind
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["torus.anynet", "torus.anynet.meta.json", "torus.cfg"]


def test_latency_cycles_ceil_and_minimum():
    t, layout = small_torus()
    cyc = bx.link_latency_cycles(layout, 4.0)
    expect = np.maximum(np.ceil(layout.link_delay / 4.0), 1)
    assert np.array_equal(cyc, expect.astype(int))
    # exact multiples do not round up; tiny delays still get one cycle
    assert bx.link_latency_cycles(layout, 1e6).tolist() == [1] * t.num_links
    with pytest.raises(ParameterError):
        bx.link_latency_cycles(layout, 0.0)


def test_refuses_disconnected_and_degenerate():
    two_parts = topogen.Topology(4, [(0, 1), (2, 3)], hosts_per_switch=1)
    with pytest.raises(TopologyError, match="disconnected"):
        bx.anynet_text(two_parts)
    with pytest.raises(TopologyError):
        bx.anynet_text(topogen.Topology(1, np.zeros((0, 2), int), hosts_per_switch=1))
    with pytest.raises(TopologyError, match="host"):
        bx.anynet_text(topogen.Topology(2, [(0, 1)], hosts_per_switch=0))
    with pytest.raises(ParameterError, match=">= 1"):
        bx.anynet_text(topogen.Topology(2, [(0, 1)]), latency=[0])


def test_per_direction_latency_and_zero_host_router():
    t = topogen.Topology(3, [(0, 1), (1, 2)], hosts_per_switch=[1, 0, 2])
    text = bx.anynet_text(t, latency=[[3, 4], [5, 6]])
    assert text == ("router 0 node 0 router 1 3\n"
                    "router 1 router 0 4 router 2 5\n"
                    "router 2 node 1 node 2 router 1 6\n")
    parse_anynet(text)


@st.composite
def random_topologies(draw):
    n = draw(st.integers(2, 12))
    # a random spanning tree keeps it connected, plus random extra links
    edges = {(min(v, p), max(v, p)) for v in range(1, n) for p in [draw(st.integers(0, v - 1))]}
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=15))
    edges |= {(min(a, b), max(a, b)) for a, b in extra if a != b}
    hosts = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    if sum(hosts) == 0:
        hosts[0] = 1
    edges = sorted(edges)
    lat = draw(st.lists(st.tuples(st.integers(1, 50), st.integers(1, 50)), min_size=len(edges), max_size=len(edges)))
    return topogen.Topology(n, edges, hosts_per_switch=hosts), lat


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_topologies())
def test_anynet_random_topologies_reparse(case):
    t, lat = case
    text = bx.anynet_text(t, latency=lat)
    assert "\t" not in text
    assert not re.search(r"node \d+ \d", text), "a latency after a node token"
    n, node_router, parsed = parse_anynet(text)
    assert n == t.num_switches and len(node_router) == t.num_hosts
    want = {}
    for (u, v), (a, b) in zip(t.edges.tolist(), lat):
        want[(u, v)] = a
        want[(v, u)] = b
    assert parsed == want
    # node numbering is contiguous per router, in router order
    assert [node_router[h] for h in range(t.num_hosts)] == sorted(node_router.values())


# ---------------------------------------------------------------- configs
def test_config_typed_and_complete(tmp_path):
    text = bx.render_config(tmp_path / "net.anynet", setup="vct33",
                            options={"injection_rate": 1e-5, "latency_thres": 300, "traffic": "transpose"},
                            metadata={"generator": "torus", "params": {"dims": [4, 4]}, "seed": None},
                            num_hosts=16)
    cfg = parse_config(text)
    assert cfg["topology"] == "anynet" and cfg["routing_function"] == "min"
    assert cfg["network_file"] == str((tmp_path / "net.anynet").resolve())
    assert cfg["injection_rate"] == "1.0e-05" and cfg["latency_thres"] == "300.0"
    assert cfg["internal_speedup"] == "1.0"
    assert cfg["packet_size"] == "33" and cfg["num_vcs"] == "4"
    assert int(cfg["vc_buf_size"]) >= int(cfg["packet_size"])  # virtual cut-through
    # num_vcs < 16: explicit, in-range, disjoint read/write VC ranges
    for kind in ("read_request", "write_request", "read_reply", "write_reply"):
        lo, hi = int(cfg[f"{kind}_begin_vc"]), int(cfg[f"{kind}_end_vc"])
        assert 0 <= lo <= hi < 4
    assert int(cfg["read_request_end_vc"]) < int(cfg["read_reply_begin_vc"])
    header = [ln for ln in text.splitlines() if ln.startswith("//")]
    assert any("min_anynet" in ln for ln in header)
    assert any("NO deadlock avoidance" in ln for ln in header)
    assert any(ln.startswith("// generator: torus") for ln in header)
    meta_line = next(ln for ln in header if ln.startswith("// metadata: "))
    meta = json.loads(meta_line[len("// metadata: "):])
    assert meta["topogen_version"] == topogen.__version__ and meta["seed"] is None


def test_config_with_16_vcs_has_no_vc_ranges(tmp_path):
    cfg = parse_config(bx.render_config(tmp_path / "n.anynet", setup="default", options={"num_vcs": 16}))
    assert "read_request_begin_vc" not in cfg
    assert cfg["injection_rate"] == "0.05" and cfg["packet_size"] == "1"


def test_config_rejects_bad_options(tmp_path):
    net = tmp_path / "n.anynet"
    with pytest.raises(ParameterError, match="unknown BookSim option"):
        bx.render_config(net, options={"latency_thresh": 1.0})
    with pytest.raises(ParameterError, match="integer field"):
        bx.render_config(net, options={"num_vcs": 4.5})
    with pytest.raises(ParameterError, match="not a valid BookSim string token"):
        bx.render_config(net, options={"traffic": "my traffic"})
    with pytest.raises(ParameterError, match="fixed"):
        bx.render_config(net, options={"routing_function": "dim_order"})
    with pytest.raises(ParameterError, match="not a valid BookSim string token"):
        bx.render_config(tmp_path / "with space" / "n.anynet")
    with pytest.raises(ParameterError, match="unknown BookSim setup"):
        bx.render_config(net, setup="nope")
    with pytest.raises(ParameterError, match="comment"):
        bx.format_option("network_file", "//server/share/n.anynet")
    with pytest.raises(ParameterError, match="finite"):
        bx.format_option("injection_rate", math.inf)


@pytest.mark.parametrize("traffic,n,ok", [
    ("uniform", 18, True), ("bitrev", 16, True), ("bitrev", 18, False),
    ("transpose", 16, True), ("transpose", 32, False), ("tornado({18,1,1})", 18, True),
    ("tornado(18,1,1)", 18, False), ("randperm", 7, True), ("nosuch", 4, False),
])
def test_check_traffic(traffic, n, ok):
    if ok:
        assert bx.check_traffic(traffic, n) == traffic
    else:
        with pytest.raises(ParameterError):
            bx.check_traffic(traffic, n)


def test_export_checks_traffic_against_hosts(tmp_path):
    t, layout = small_slimfly()  # 54 hosts
    with pytest.raises(ParameterError, match="power-of-two"):
        bx.export_booksim(tmp_path, t, layout, options={"traffic": "bitrev"})


def test_templates_are_the_single_source():
    root = Path(__file__).resolve().parents[2]
    mirror = root / "booksim_configs" / "templates"
    assert mirror.resolve() == bx.template_dir().resolve()
    for setup, (fname, _) in bx.SETUPS.items():
        assert (bx.template_dir() / fname).is_file()


def test_seeded_random_topology_exports_are_byte_identical_and_record_provenance(tmp_path):
    """Same seed and version -> byte-identical files, each recording generator, parameters,
    seed and topogen version (two independent generations, not one object exported twice)."""
    from topogen.generators.random import random_topology
    from topogen.layout import default_layout

    outs = []
    for k in range(2):
        t = random_topology(24, 4, hosts_per_switch=2, instances=2, seed=1234)
        exp = bx.export_booksim(tmp_path / f"e{k}", t, default_layout(t, switches_per_cabinet=4),
                                stem="rand", clock_period_ns=2.5)
        outs.append(exp)
    a, b = outs
    assert a.network_file.read_bytes() == b.network_file.read_bytes()
    assert a.meta_file.read_bytes() == b.meta_file.read_bytes()
    assert _config_for_golden(a.config_file).replace("/e0", "/eX") == \
        _config_for_golden(b.config_file).replace("/e1", "/eX")
    meta = json.loads(a.meta_file.read_text())
    assert (meta["generator"], meta["seed"], meta["topogen_version"]) == ("random", 1234, topogen.__version__)
    assert meta["params"]["num_switches"] == 24 and meta["clock_period_ns"] == 2.5
    header = json.loads(next(ln for ln in a.config_file.read_text().splitlines()
                             if ln.startswith("// metadata: "))[len("// metadata: "):])
    assert (header["generator"], header["seed"], header["params"]) == ("random", 1234, meta["params"])
    assert header["topogen_version"] == topogen.__version__
    # a different seed gives a different netlist
    other = random_topology(24, 4, hosts_per_switch=2, instances=2, seed=99)
    assert bx.anynet_text(other) != bx.anynet_text(random_topology(24, 4, hosts_per_switch=2, instances=2,
                                                                   seed=1234))


@pytest.mark.parametrize("setup", sorted(bx.SETUPS))
def test_every_setup_renders_typed_with_its_papers_traffic(setup, tmp_path):
    assert set(bx.PAPER_TRAFFIC) == set(bx.SETUPS)
    for traffic in bx.PAPER_TRAFFIC[setup]:
        text = bx.render_config(tmp_path / "n.anynet", setup=setup, options={"traffic": traffic},
                                num_hosts=64)
        cfg = parse_config(text)  # every value typed as BookSim's lexer demands
        assert cfg["traffic"] == traffic and cfg["topology"] == "anynet"
        assert any("NO deadlock avoidance" in ln for ln in text.splitlines() if ln.startswith("//"))
        if int(cfg["num_vcs"]) < 16:
            assert "read_request_begin_vc" in cfg


def test_slimfly_setup_matches_the_paper():
    cfg = parse_config(bx.render_config("/tmp/n.anynet", setup="slimfly1"))
    assert (cfg["packet_size"], cfg["num_vcs"], cfg["credit_delay"]) == ("1", "3", "2")
    assert int(cfg["num_vcs"]) * int(cfg["vc_buf_size"]) <= 64
    assert cfg["internal_speedup"] == "2.0" and cfg["injection_process"] == "bernoulli"
