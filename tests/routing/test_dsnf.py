"""The DSN-F routing algorithm (Truong et al. III-B, Fig. 2) and Theorem 1b."""

from __future__ import annotations

import numpy as np
import pytest

from topogen import ParameterError
from topogen.errors import RoutingError
from topogen.generators.dsn import dsn, dsnf, dsnf_size_range, labels_of, transform
from topogen.metrics import distance_stats, hop_matrix
from topogen.routing import check, load_routing
from topogen.routing.dsnf import (
    dsnf_path, dsnf_route_lengths, dsnf_routing, routing_diameter_bound, wanted_level,
)
from topogen.routing.export import parse_sst_entry_string, sst_entry_string, write_table

CASES = [(24, "sequential"), (32, "sequential"), (32, "balanced"), (50, "sequential"),
         (50, "balanced"), (99, "balanced"),
         pytest.param(161, "sequential", marks=pytest.mark.slow)]


def test_worked_examples():
    t = dsnf(32)
    assert dsnf_path(t, 24, 7).tolist() == [24, 0, 1, 8, 7]  # III-B
    assert dsnf_path(t, 0, 13).tolist() == [0, 13]  # node 0's shortcut (Fig. 1)
    r = dsnf_routing(t)
    sw, vcs = r.path(24, 7)
    assert sw.tolist() == [24, 0, 1, 8, 7] and vcs.tolist() == [0, 0, 0, 0]
    assert dsnf_path(t, 5, 5).tolist() == [5]


def test_wanted_level_is_largest_fitting_shortcut():
    for p in range(3, 12):
        d = np.arange(1, 2 ** p)
        lv = wanted_level(p, d)
        length = 2 ** (p - lv)
        assert np.all(length <= d) and np.all(d < 2 * length)
        assert np.array_equal(lv, p - np.array([int(x).bit_length() - 1 for x in d]))


@pytest.mark.parametrize("n,fill", CASES)
def test_table_equals_reference_and_closed_form(n, fill):
    t = dsnf(n, fill=fill)
    r = dsnf_routing(t)
    lengths = dsnf_route_lengths(t)
    adj = {v: set(t.neighbors(v).tolist()) for v in range(n)}
    for s in range(n):
        for d in range(n):
            ref = dsnf_path(t, s, d)
            sw, vcs = r.path(s, d)
            assert np.array_equal(sw, ref)
            assert len(ref) - 1 == lengths[s, d] == len(vcs)
            assert ref[0] == s and ref[-1] == d
            assert all(int(b) in adj[int(a)] for a, b in zip(ref[:-1], ref[1:]))  # a walk


@pytest.mark.parametrize("n,fill", CASES[:4])
def test_input_port_semantics_agree(n, fill):
    """Walking with phase = entry_phase[last link] (the deadlock checker's view) gives
    the same routes as TableRouting.path (running maximum of the phases)."""
    t = dsnf(n, fill=fill)
    r = dsnf_routing(t)
    indptr, indices = r.view.indptr, r.view.indices
    for s in range(n):
        for d in range(n):
            v, phase, walk = s, 0, [s]
            while v != d:
                e = indptr[v] + int(r.ranks[phase, v, d])
                phase = int(r.entry_phase[e])
                v = int(indices[e])
                walk.append(v)
            assert walk == r.path(s, d)[0].tolist()


@pytest.mark.parametrize("n", [24, 64, 100, 200, 383, 640, 1000, 1500, 2048])
@pytest.mark.parametrize("fill", ["sequential", "balanced"])
def test_theorem1b_routing_diameter(n, fill):
    t = dsnf(n, fill=fill)
    lab = labels_of(t)
    bound = routing_diameter_bound(t)
    assert bound == 2 * (lab.p + -(-n // (lab.p * 2 ** lab.p)) - 1)
    lengths = dsnf_route_lengths(t)
    assert lengths.max() <= bound
    # routes are never shorter than shortest paths
    src = np.arange(0, n, max(1, n // 64))
    hops = hop_matrix(t, src)
    assert np.all(lengths[src] >= hops)
    assert distance_stats(t).diameter <= lengths.max()


def test_routing_diameter_bound_tight_for_full_single_layer():
    # one layer, p even: 2 floor(p/2) + p = 2p hops can be reached
    t = dsnf(2048)
    assert dsnf_route_lengths(t).max() == routing_diameter_bound(t) == 16


def test_route_stretch_against_shortest_paths():
    t = dsnf(320)
    lengths = dsnf_route_lengths(t).astype(float)
    hops = hop_matrix(t, np.arange(320)).astype(float)
    off = ~np.eye(320, dtype=bool)
    stretch = lengths[off].mean() / hops[off].mean()
    assert 1.0 < stretch < 1.6
    assert np.any(lengths[off] == hops[off])


def test_deadlock_and_vcs():
    t = dsnf(50)
    plain = dsnf_routing(t)
    rep = check(plain)
    assert not rep.acyclic  # one VC: the layer-0 rings close channel cycles
    assert all(t.csr()[u, v] for u, v, _ in rep.cycle)
    hop = dsnf_routing(t, vcs="hop")
    assert hop.num_vcs == dsnf_route_lengths(t).max()
    assert check(hop).acyclic
    with pytest.raises(RoutingError, match="at least"):
        dsnf_routing(t, vcs="hop", num_vcs=2)
    with pytest.raises(ParameterError, match="vcs"):
        dsnf_routing(t, vcs="dateline")


def test_save_load_and_exports(tmp_path):
    t = dsnf(40, fill="balanced")
    r = dsnf_routing(t)
    r.save(tmp_path / "r")
    back = load_routing(tmp_path / "r")
    assert back.algorithm == "dsnf" and back.num_phases == 5
    for s in range(40):
        for d in range(40):
            assert np.array_equal(back.path(s, d)[0], r.path(s, d)[0])
    write_table(r, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text().count("\n") > 40 * 39
    entries = parse_sst_entry_string(sst_entry_string(r, 24))
    assert entries[7][0][1] == dsnf_path(t, 24, 7)[1:].tolist()


def test_transformed_network_routes():
    p = 4
    ex = transform(dsnf(dsnf_size_range(p)[1], p=p, fill="balanced"))
    t = ex.topology
    assert dsnf_route_lengths(t).max() <= routing_diameter_bound(t) == 2 * (p + 1)


def test_rejects_other_topologies():
    with pytest.raises(ParameterError, match="DSN-F"):
        dsnf_routing(dsn(64))


def test_route_by_name_and_cli_offer_dsnf(tmp_path):
    """`route(..., "dsnf")` / `topogen route -a dsnf`: hop-indexed VCs by default
    (acyclic CDG), `vcs=1` the single-VC routing as Fig. 2 states it (cyclic)."""
    import topogen
    from topogen.cli import main
    from topogen.routing import check, route

    t = topogen.generate("dsnf", num_switches=64)
    hop = route(t, algorithm="dsnf")
    assert hop.algorithm == "dsnf" and check(hop).acyclic
    assert not check(route(t, algorithm="dsnf", vcs=1)).acyclic
    src = tmp_path / "d.json"
    assert main(["-q", "generate", "dsnf", "--num_switches", "64", "-o", str(src)]) == 0
    assert main(["-q", "route", str(src), "-a", "dsnf", "-o", str(tmp_path / "r")]) == 0
    assert main(["-q", "check-deadlock", str(tmp_path / "r")]) == 0
