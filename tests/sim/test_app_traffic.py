"""Application-like traffic (topogen.sim.app_traffic): every pattern's destinations against
an independent computation on a small case, the workloads' message sizes against the
benchmarks' arithmetic, the steady-state draws, and the refusal by BookSim's exporter."""

import itertools
import math

import numpy as np
import pytest

from topogen._rng import make_rng
from topogen.errors import ParameterError
from topogen.sim.app_run import run_workload
from topogen.sim.app_traffic import (APP_PATTERNS, APPS, DestinationTable, dims_create,
                                     traffic_matrix, workload)
from topogen.sim.traffic import PATTERNS, Traffic


def _pairs(rows) -> dict:
    return {(int(s), int(d)): int(w) for s, d, w in rows}


def _coords(r, dims):
    out = []
    for size in reversed(dims):
        out.append(r % size)
        r //= size
    return tuple(reversed(out))


def _rank(c, dims):
    r = 0
    for x, size in zip(c, dims):
        r = r * size + x
    return r


def _brute_dims(n, d):
    """All ordered d-tuples with product n, the most balanced (then the smallest largest)."""
    divs = [f for f in range(1, n + 1) if n % f == 0]
    cands = [tuple(sorted(t, reverse=True)) for t in itertools.product(divs, repeat=d) if math.prod(t) == n]
    return min(cands, key=lambda t: (t[0] - t[-1], t[0]))


# ---------------------------------------------------------------------------------- grids
def test_dims_create_matches_the_mpi_standard_examples():
    # MPI_Dims_create's examples in the MPI standard
    assert dims_create(6, 2) == (3, 2)
    assert dims_create(7, 2) == (7, 1)
    assert dims_create(6, 3) == (3, 2, 1)
    assert dims_create(128, 3) == (8, 4, 4)


@pytest.mark.parametrize("d", [2, 3])
def test_dims_create_is_the_most_balanced_factorisation(d):
    for n in range(1, 130):
        assert dims_create(n, d) == _brute_dims(n, d), n


def test_halo3d_neighbours_on_a_4x4x4_grid():
    rows = _pairs(traffic_matrix("halo3d", 64))
    expect = {}
    for r in range(64):
        x, y, z = _coords(r, (4, 4, 4))
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            expect[(r, _rank(((x + dx) % 4, (y + dy) % 4, (z + dz) % 4), (4, 4, 4)))] = 1
    assert rows == expect


def test_halo2d_counts_a_neighbour_reached_both_ways_twice():
    # 8 hosts: a 4 x 2 grid; along the size-2 axis +1 and -1 are the same neighbour
    rows = _pairs(traffic_matrix("halo2d", 8))
    expect = {}
    for r in range(8):
        x, y = _coords(r, (4, 2))
        for c in (((x + 1) % 4, y), ((x - 1) % 4, y), (x, (y + 1) % 2), (x, (y - 1) % 2)):
            key = (r, _rank(c, (4, 2)))
            expect[key] = expect.get(key, 0) + 1
    assert rows == expect
    assert set(expect.values()) == {1, 2}


def test_alltoall_and_butterfly():
    assert _pairs(traffic_matrix("alltoall", 6)) == {(s, d): 1 for s in range(6) for d in range(6) if s != d}
    # 12 hosts: recursive doubling on the first 8
    assert _pairs(traffic_matrix("butterfly", 12)) == {(s, s ^ b): 1 for s in range(8) for b in (1, 2, 4)}


# ------------------------------------------------------------------------------ workloads
def test_himeno_halo_on_a_4x4x4_process_grid():
    wl = workload("himeno", 64)
    assert wl.ranks == 64
    labels = [p.label for p in wl.phases]
    assert labels[:6] == [f"residual allreduce step {k}" for k in range(6)]
    assert labels[6:] == ["sendp axis 2", "sendp axis 1", "sendp axis 0"]
    # local block 128/4 x 128/4 x 256/4 = 32 x 32 x 64 floats: faces of 32*64*4 = 8 KiB along
    # axes 0 and 1 (8 packets), 32*32*4 = 4 KiB along axis 2 (4 packets); no wrap-around
    size = {0: 8, 1: 8, 2: 4}
    for axis, phase in zip((2, 1, 0), wl.phases[6:]):
        expect = set()
        for r in range(64):
            c = list(_coords(r, (4, 4, 4)))
            for step in (1, -1):
                n = list(c)
                n[axis] += step
                if 0 <= n[axis] < 4:
                    expect.add((r, _rank(n, (4, 4, 4)), size[axis]))
        got = {tuple(map(int, m)) for m in phase.msgs}
        assert got == expect and len(phase.msgs) == len(expect)
    corner = wl.phases[6].msgs
    assert (corner[:, 0] == 0).sum() == 1  # rank 0 has one neighbour per axis


def test_ft_is_an_all_to_all_of_8_packets_per_pair_on_128_ranks():
    wl = workload("npb-ft", 128)
    a2a = wl.phases[0].msgs
    # 256*256*128 complex numbers of 16 bytes over 128**2 pairs = 8,192 bytes
    assert set(a2a[:, 2].tolist()) == {8}
    assert sorted(map(tuple, a2a[:, :2].tolist())) == [(s, d) for s in range(128) for d in range(128) if s != d]
    # a source's queue starts with s+1, s+2, ...
    first = a2a[a2a[:, 0] == 5][:3, 1].tolist()
    assert first == [6, 7, 8]
    # the checksum's binomial reduce ends at rank 0 and every other rank sends once
    red = np.concatenate([p.msgs for p in wl.phases[1:]])
    assert sorted(red[:, 0].tolist()) == list(range(1, 128)) and len(wl.phases) == 1 + 7


def test_is_sizes():
    wl = workload("npb-is", 128)
    assert [p.label.split(" step")[0] for p in wl.phases] == ["bucket-size allreduce"] * 7 + [
        "send-count all-to-all", "key all-to-all"]
    assert set(wl.phases[0].msgs[:, 2].tolist()) == {4}   # 1,024 ints
    assert set(wl.phases[-1].msgs[:, 2].tolist()) == {2}  # 4 * 2**23 / 128**2 = 2,048 bytes


def test_cg_row_reduction_and_transpose_on_128_ranks():
    wl = workload("npb-cg", 128)  # 8 rows x 16 columns
    reduce = wl.phases[:4]
    # na/nprows = 1,750 doubles, halved each step: 7,000 / 3,500 / 1,750 / 875 bytes
    assert [int(p.msgs[0, 2]) for p in reduce] == [7, 4, 2, 1]
    for k, p in enumerate(reduce):
        s, d = p.msgs[:, 0], p.msgs[:, 1]
        assert (s // 16 == d // 16).all() and (s % 16 == (d % 16) ^ (1 << k)).all()
    tr = wl.phases[4]
    assert tr.label == "transpose exchange"
    # rank (row, col) -> (col // 2, 2 row + col % 2); a permutation (fixed points send nothing)
    expect = {(r, (r % 16 // 2) * 16 + 2 * (r // 16) + r % 2) for r in range(128)}
    assert {(int(s), int(d)) for s, d, _ in tr.msgs} == {p for p in expect if p[0] != p[1]}
    assert len(wl.phases) == 4 + 1 + 8


def test_mg_levels_and_faces_on_128_ranks():
    wl = workload("npb-mg", 128)  # 8 x 4 x 4 processes, local 32 x 64 x 64
    level0 = [p for p in wl.phases if p.label.startswith("level 0 comm3 0")]
    assert [int(p.msgs[0, 2]) for p in level0] == [32, 16, 16]  # 64*64*8, 32*64*8, 32*64*8 bytes
    levels = {p.label.split()[1] for p in wl.phases if p.label.startswith("level")}
    assert levels == {"0", "1", "2", "3", "4"}  # local extent 32 -> 2
    # periodic: every rank sends 2 messages per axis
    assert all(len(p.msgs) == 256 for p in level0)


def test_lu_wavefront_counts_on_128_ranks():
    wl = workload("npb-lu", 128)  # 16 x 8 processes
    lower = [p for p in wl.phases if p.label.startswith("lower sweep")]
    upper = [p for p in wl.phases if p.label.startswith("upper sweep")]
    # 62 + 16 + 8 - 2 steps; in the last one only the far corner works and sends nothing
    assert len(lower) == len(upper) == 62 + 16 + 8 - 3
    # each process sends one packet downstream per plane to each neighbour it has
    assert sum(len(p.msgs) for p in lower) == 62 * (15 * 8 + 16 * 7)
    assert lower[0].msgs.tolist() == [[0, 8, 1], [0, 1, 1]]
    assert upper[0].msgs[:, 0].tolist() == [127, 127]


def test_ep_is_three_allreduces_and_power_of_two_ranks():
    wl = workload("npb-ep", 100)  # EP's reductions on the first 64 hosts
    assert wl.ranks == 64 and len(wl.phases) == 18
    assert wl.phases[0].msgs.tolist() == [[r, r ^ 1, 1] for r in range(64)]


def test_workload_refusals():
    with pytest.raises(ParameterError, match="application must be one of"):
        workload("npb-bt", 64)
    with pytest.raises(ParameterError, match="scale"):
        workload("npb-ft", 64, scale=0)


def test_on_hosts_moves_ranks():
    wl = workload("npb-ep", 4)
    moved = wl.on_hosts([3, 2, 1, 0])
    assert moved.phases[0].msgs.tolist() == [[3, 2, 1], [2, 3, 1], [1, 0, 1], [0, 1, 1]]
    with pytest.raises(ParameterError, match="distinct hosts"):
        wl.on_hosts([0, 0, 1, 2])


# ---------------------------------------------------------------------------- steady state
def test_steady_state_weights_are_the_iteration_packets():
    rows = _pairs(traffic_matrix("npb-cg", 128))
    # rank 0 sends 7+1+1, 4+1+1, 2+1+1, 1+1+1 packets to 1, 2, 4, 8 (reduce + two dot
    # products); its transpose partner is itself
    assert {d: w for (s, d), w in rows.items() if s == 0} == {1: 9, 2: 6, 4: 4, 8: 3}


def test_destination_table_draws_by_weight():
    table = DestinationTable(np.array([[0, 1, 1], [0, 2, 3], [5, 4, 2], [5, 0, 2]]))
    src = np.repeat([0, 5], 20000)
    d = table.draw(src, make_rng(1))
    a, b = d[:20000], d[20000:]
    assert set(a.tolist()) == {1, 2} and set(b.tolist()) == {0, 4}
    assert abs((a == 2).mean() - 0.75) < 0.015 and abs((b == 4).mean() - 0.5) < 0.015


@pytest.mark.parametrize("name", APP_PATTERNS)
def test_every_pattern_runs_in_the_traffic_class(name):
    assert name in PATTERNS
    tr = Traffic(name, 24, make_rng(1))
    src = np.repeat(tr.active, 50)
    d = tr.destinations(src, make_rng(2))
    allowed = _pairs(traffic_matrix(name, 24))
    assert all((int(s), int(x)) in allowed for s, x in zip(src, d))
    assert (d != src).all()


def test_simulate_runs_an_application_pattern():
    from topogen.generators.classic import torus
    from topogen.routing import dor
    from topogen.sim import simulate

    row = simulate(dor(torus((4, 4))), traffic="halo2d", load=0.05, seed=1, packet_size=1, vc_buf_size=8,
                   sample_period=200, max_samples=3, warmup_periods=1)
    assert row["status"] == "completed" and row["traffic"] == "halo2d"


def test_closed_loop_run_sums_phases_and_reuses_identical_ones():
    from topogen.generators.classic import torus
    from topogen.routing import dor
    from topogen.sim import SimConfig

    rt = dor(torus((4, 4)))
    cfg = SimConfig(packet_size=1, vc_buf_size=8)
    wl = workload("npb-ep", 16)  # three identical allreduces of 4 phases
    res = run_workload(rt, wl, config=cfg, seed=1)
    assert not res.deadlocked and len(res.phases) == 12
    per = [c for _, c in res.phases]
    assert per[:4] == per[4:8] == per[8:] and res.cycles == sum(per)
    assert all(c > 0 for c in per)


def test_booksim_export_refuses_application_patterns_by_name():
    from topogen.export.booksim import REFERENCE_ONLY_TRAFFIC, check_traffic

    assert set(REFERENCE_ONLY_TRAFFIC) == set(APP_PATTERNS)
    for name in ("npb-ft", "halo3d"):
        with pytest.raises(ParameterError, match="reference simulator; BookSim has no equivalent"):
            check_traffic(name, 64)
    assert set(APPS) <= set(APP_PATTERNS)


def test_pairwise_alltoall_is_one_shift_permutation_per_round():
    burst = workload("npb-is", 16)
    wl = workload("npb-is", 16, alltoall="pairwise")
    keys = [p for p in wl.phases if p.label.startswith("key all-to-all")]
    assert len(keys) == 15
    for k, p in enumerate(keys, start=1):
        assert p.msgs[:, :2].tolist() == [[s, (s + k) % 16] for s in range(16)]
    # the same messages as the burst, only split into rounds
    assert wl.packets == burst.packets
    with pytest.raises(ParameterError, match="alltoall must be one of"):
        workload("npb-ft", 16, alltoall="bruck")
