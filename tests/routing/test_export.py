import json

import numpy as np
import pytest

from topogen.errors import FormatError, ParameterError, RoutingError
from topogen.generators.classic import torus
from topogen.routing import dor, escape, nearest, updown, valiant
from topogen.routing.export import (parse_sst_entry_string, read_booksim_table,
                                    read_table, sst_entry_string, write_booksim_table,
                                    write_table)

from .conftest import petersen, rrg


def _table_matches(routing, tab, vc_label):
    n = routing.num_switches
    sel = (tab["vc_rule"] == vc_label) & (tab["alt"] == 0)
    sw, dst, ph, nh, rk = (tab[c][sel] for c in ("switch", "destination", "phase", "next_hop", "rank"))
    for p in range(routing.num_phases):
        for d in range(n):
            row = routing.next_hop(d, phase=p)
            m = (dst == d) & (ph == p)
            got = np.full(n, -1)
            got[sw[m]] = nh[m]
            assert np.array_equal(got, row), (p, d)
    # rank is the position of next_hop in neighbors(switch); ports of both netlists
    hosts = routing.topology.hosts
    bp, sp = tab["booksim_port"][sel], tab["sst_port"][sel]
    for s, h, r, b, q in zip(sw[:200], nh[:200], rk[:200], bp[:200], sp[:200]):
        assert routing.topology.neighbors(int(s))[int(r)] == h
        assert b == hosts[int(s)] + r and q == r


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize("make", [lambda: nearest(rrg(20, 3, 1)), lambda: updown(petersen()),
                                  lambda: dor(torus((3, 4)))])
def test_table_roundtrip(tmp_path, fmt, make):
    r = make()
    path = tmp_path / f"t.{fmt}"
    write_table(r, path)
    tab = read_table(path)
    label = str(r.vc_const) if r.vc_rule == "const" else r.vc_rule
    _table_matches(r, tab, label)
    assert tab["metadata"]["algorithm"] == r.algorithm
    assert tab["metadata"]["topology"]["num_switches"] == r.num_switches


def test_escape_table_has_both_subnetworks(tmp_path):
    topo = rrg(24, 4, 5).replace(hosts_per_switch=2)
    r = escape(topo, num_vcs=4, base="nr")
    write_table(r, tmp_path / "e.csv")
    tab = read_table(tmp_path / "e.csv")
    _table_matches(r.minimal, tab, "adaptive:1-3")
    _table_matches(r.escape_routing, tab, "0")
    # every adaptive choice (all minimal next hops) is listed, alt 0 first
    sel = tab["vc_rule"] == "adaptive:1-3"
    got = {}
    for s, d, a, h in zip(tab["switch"][sel], tab["destination"][sel], tab["alt"][sel],
                          tab["next_hop"][sel]):
        got.setdefault((int(s), int(d)), []).append((int(a), int(h)))
    multi = 0
    for s in range(24):
        for d in range(24):
            if s == d:
                continue
            alts = sorted(got[s, d])
            assert [a for a, _ in alts] == list(range(len(alts)))
            assert sorted(h for _, h in alts) == r.next_hops(s, d).tolist()
            multi += len(alts) > 1
    assert multi > 0
    # JSON form, and NR with all_next_hops on request
    nr = nearest(topo, all_next_hops=True)
    write_table(nr, tmp_path / "n.json", all_next_hops=True)
    tab = read_table(tmp_path / "n.json")
    for s, d in [(0, 5), (3, 17), (20, 1)]:
        m = (tab["switch"] == s) & (tab["destination"] == d)
        assert sorted(tab["next_hop"][m].tolist()) == nr.next_hops(s, d).tolist()
    write_table(nr, tmp_path / "n1.csv")
    assert (read_table(tmp_path / "n1.csv")["alt"] == 0).all()


def test_table_errors(tmp_path):
    with pytest.raises(RoutingError):
        write_table(valiant(nearest(petersen()), seed=1), tmp_path / "v.csv")
    with pytest.raises(ParameterError):
        write_table(nearest(petersen()), tmp_path / "v.txt")
    bad = tmp_path / "bad.csv"
    bad.write_text("switch,destination,phase,alt,next_hop,rank,booksim_port,sst_port,vc_rule\n"
                   "1,2,x,0,3,0,1,0,0\n")
    with pytest.raises(FormatError, match="line 2"):
        read_table(bad)


def test_booksim_table(tmp_path):
    hosts = [2, 1, 0, 3, 1, 1, 2, 1, 1, 1]
    topo = petersen().replace(hosts_per_switch=hosts)
    r = nearest(topo)
    write_booksim_table(r, tmp_path / "rt.txt")
    rows = read_booksim_table(tmp_path / "rt.txt")
    num_hosts = sum(hosts)
    assert len(rows) == topo.num_switches * num_hosts
    offset = np.concatenate([[0], np.cumsum(hosts)[:-1]])
    node_router = np.repeat(np.arange(10), hosts)
    for router, node, port in rows:
        dst = node_router[node]
        if dst == router:
            assert port == node - offset[router]  # local node port, nodes first
        else:
            nb = topo.neighbors(int(router))
            assert port >= hosts[router]
            assert nb[port - hosts[router]] == r.path(int(router), int(dst))[0][1]
    with pytest.raises(RoutingError, match="destination-based"):
        write_booksim_table(updown(topo), tmp_path / "ud.txt")


@pytest.mark.parametrize("make", [lambda: nearest(rrg(20, 3, 1)), lambda: updown(petersen()),
                                  lambda: dor(torus((4, 4)))])
def test_sst_entry_roundtrip(make):
    r = make()
    n = r.num_switches
    for src in range(n):
        s = sst_entry_string(r, src)
        parsed = parse_sst_entry_string(s)
        assert sorted(parsed) == [d for d in range(n) if d != src]
        for d, alts in parsed.items():
            assert len(alts) == 1
            w, hops = alts[0]
            assert w == 1.0
            assert [src] + hops == r.path(src, d)[0].tolist()
    # format details: "dst:1.00000,hop,...|..."
    s = sst_entry_string(r, 0)
    first = s.split("|")[0]
    assert first.split(":")[1].startswith("1.00000,")


def test_sst_valiant_all_intermediates_and_weights():
    v = valiant(nearest(petersen()), seed=1)
    s = sst_entry_string(v, 0)
    parsed = parse_sst_entry_string(s)
    for d, alts in parsed.items():
        assert len(alts) == 8  # every intermediate but src and dst
        total = sum(int(round(w * 100000)) for w, _ in alts)
        assert total == 100000  # printed weights sum to exactly 1.00000
        for (w, hops), m in zip(alts, [m for m in range(10) if m not in (0, d)]):
            assert [0] + hops == v.path_via(0, m, d)[0].tolist()
    # explicit weights, normalised
    r = nearest(petersen())
    s = sst_entry_string(r, 3, weights=lambda d, paths: [2.0])
    assert all(alts[0][0] == 1.0 for alts in parse_sst_entry_string(s).values())
    with pytest.raises(ParameterError):
        sst_entry_string(r, 3, weights=lambda d, paths: [1.0, 1.0])


def test_parse_errors():
    with pytest.raises(FormatError):
        parse_sst_entry_string("3:1.0,2,4")  # path to 3 ends at 4
    with pytest.raises(FormatError):
        parse_sst_entry_string("x:1.0,2")
    assert parse_sst_entry_string("") == {}
    assert parse_sst_entry_string("2:0.50000,1,2;0.50000,3,2") == {2: [(0.5, [1, 2]), (0.5, [3, 2])]}


def test_booksim_table_file_format_and_routes(tmp_path):
    """Strict line format of the fork's loader, side metadata, and the same routes back."""
    hosts = [1, 2, 0, 1, 3, 1, 1, 2, 1, 1, 1, 1]
    from topogen.generators.classic import torus as _torus

    topo = _torus((4, 3)).replace(hosts_per_switch=hosts)
    r = dor(topo)
    path = tmp_path / "rt.txt"
    write_booksim_table(r, path)
    text = path.read_text()
    assert text.endswith("\n") and "#" not in text
    for line in text.splitlines():
        parts = line.split(" ")
        assert len(parts) == 3 and all(p.isdigit() for p in parts), line
    md = json.loads((tmp_path / "rt.txt.json").read_text())
    assert md["algorithm"] == "dor" and md["topology"]["generator"] == "torus"
    assert md["topology"]["params"]["dims"] == [4, 3] and "topogen_version" in md
    table = {(int(a), int(b)): int(c) for a, b, c in read_booksim_table(path)}
    node_router = np.repeat(np.arange(12), hosts)
    for src in range(12):
        for node, dst in enumerate(node_router):
            cur, walk = src, [src]
            while True:
                port = table[cur, node]
                if port < hosts[cur]:
                    break
                cur = int(topo.neighbors(cur)[port - hosts[cur]])
                walk.append(cur)
                assert len(walk) <= 12
            assert cur == dst
            assert walk == r.path(src, int(dst))[0].tolist()
    write_booksim_table(r, tmp_path / "plain.txt", metadata=False)
    assert not (tmp_path / "plain.txt.json").exists()
