"""Reference-simulator resume keyed by content: a point is found again by everything that
changes its numbers, and without a seed the seed is derived from that key."""

import pytest

from topogen import Topology
from topogen.cli import main
from topogen import formats
from topogen.layout import default_layout
from topogen.results import read_results
from topogen.routing import route
from topogen.sim.sweep import derive_seed, point_key, sweep

FAST = dict(packet_size=2, vc_buf_size=4, sample_period=200, link_latency=1, warmup_periods=1,
            max_samples=3)
FAST_ARGS = ["--packet-size", "2", "--buffer", "4", "--sample-period", "200", "--link-latency", "1",
             "--warmup-periods", "1", "--max-samples", "3"]


def ring(n=6, chord=None):
    edges = [(i, (i + 1) % n) for i in range(n)]
    if chord:
        edges.append(chord)
    # same name and parameters: only the content differs
    return Topology(n, edges, 1, name="net", params={"n": n})


def routing_of(topology):
    # lowest-id ties: these short FAST runs need a sweep of several points, and on the ring
    # the spread default's first point (about 200 packets) can read as "falling behind"
    return route(topology, default_layout(topology), "nr", ties="lowest")


class Interrupt(Exception):
    pass


def test_interrupted_sweep_without_seed_resumes(tmp_path):
    out = tmp_path / "s.csv"
    r = routing_of(ring())
    seen = []

    def stop_after_two(load, row):
        seen.append(load)
        if len(seen) == 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        sweep(r, out, low=0.05, high=0.9, tolerance=0.2, progress=stop_after_two, **FAST)
    assert len(read_results(out)) == 2
    res = sweep(r, out, low=0.05, high=0.9, tolerance=0.2, **FAST)
    assert res.reused == 2 and res.simulated == len(res.rows) - 2
    df = read_results(out)
    assert df["offered_load"].is_unique  # no load twice under two seeds
    assert df["sim_seed"].nunique() == 1
    again = sweep(r, out, low=0.05, high=0.9, tolerance=0.2, **FAST)
    assert again.simulated == 0 and read_results(out).equals(df)


def test_resume_does_not_reuse_another_topology_with_the_same_name(tmp_path):
    out = tmp_path / "s.csv"
    a, b = routing_of(ring()), routing_of(ring(chord=(0, 3)))
    first = sweep(a, out, low=0.05, high=0.9, tolerance=0.4, seed=1, **FAST)
    second = sweep(b, out, low=0.05, high=0.9, tolerance=0.4, seed=1, **FAST)
    assert second.reused == 0 and second.simulated > 0
    df = read_results(out)
    assert len(df) == first.simulated + second.simulated
    assert df["params"].str.contains("network_digest").all()


def test_no_resume_replaces_rows_instead_of_duplicating(tmp_path):
    out = tmp_path / "s.csv"
    r = routing_of(ring())
    sweep(r, out, low=0.05, high=0.9, tolerance=0.4, seed=3, **FAST)
    n = len(read_results(out))
    res = sweep(r, out, low=0.05, high=0.9, tolerance=0.4, seed=3, resume=False, **FAST)
    assert res.reused == 0 and len(read_results(out)) == n


def test_derived_seed_follows_the_content():
    r = routing_of(ring())
    s = derive_seed(r, load=0.1, traffic="uniform", **FAST)
    assert s == derive_seed(r, load=0.1, traffic="uniform", **FAST)
    assert s == derive_seed(r, load=0.7, traffic="uniform", **FAST)  # one seed per sweep
    assert s != derive_seed(r, load=0.1, traffic="bitrev", **FAST)
    assert s != derive_seed(r, load=0.1, traffic="uniform", **dict(FAST, packet_size=3, vc_buf_size=6))
    assert s != derive_seed(routing_of(ring(chord=(0, 3))), load=0.1, traffic="uniform", **FAST)


def test_point_key_ignores_other_simulators():
    assert point_key({"simulator": "booksim", "offered_load": 0.1}) is None


def test_cli_without_seed_finds_its_rows(tmp_path, capsys):
    topo = tmp_path / "t.json"
    formats.save(topo, ring())
    out = tmp_path / "s.csv"
    sweep_args = ["simulate", str(topo), "--sweep", "--low", "0.05", "--high", "0.9", "--tolerance", "0.4",
                  *FAST_ARGS, "-o", str(out)]
    assert main(sweep_args) == 0
    n = len(read_results(out))
    assert main(sweep_args) == 0
    assert f"0 simulated, {n} reused" in capsys.readouterr().out
    # a single point at a load of the sweep is the sweep's point: replaced, not added
    assert main(["simulate", str(topo), "--load", "0.05", *FAST_ARGS, "-o", str(out)]) == 0
    df = read_results(out)
    assert len(df) == n and df["sim_seed"].nunique() == 1
