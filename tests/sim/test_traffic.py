"""Traffic patterns on host ids."""

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.generators.classic import torus
from topogen.generators.slimfly import slimfly
from topogen.routing import nearest
from topogen.sim import SimConfig, Traffic, packet_rate, simulate


def _dest(name, n, **kw):
    tr = Traffic(name, n, np.random.default_rng(0), **kw)
    return tr, tr.destinations(tr.active, np.random.default_rng(1))


def _bits(x, b):
    return [(x >> i) & 1 for i in range(b)]


def test_bit_permutations_on_16_hosts():
    b = 4
    for name in ("bitrev", "bitcomp", "shuffle"):
        tr, d = _dest(name, 16)
        assert tr.active.tolist() == list(range(16))
        for s, dd in zip(tr.active.tolist(), d.tolist()):
            sb, db = _bits(s, b), _bits(dd, b)
            for i in range(b):  # Slim Fly V-B definitions, bit i = 2**i
                if name == "bitrev":
                    assert db[i] == sb[b - i - 1]
                elif name == "bitcomp":
                    assert db[i] == 1 - sb[i]
                else:
                    assert db[i] == sb[(i - 1) % b]
        assert sorted(d.tolist()) == list(range(16))  # permutations


def test_transpose_and_non_power_of_two():
    tr, d = _dest("transpose", 16)
    # 4x4 matrix (row = high 2 bits, column = low 2 bits): (r, c) -> (c, r)
    for s, dd in zip(tr.active.tolist(), d.tolist()):
        assert dd == (s % 4) * 4 + s // 4
    tr, d = _dest("bitrev", 12)  # only the largest power of two <= 12 takes part
    assert tr.active.tolist() == list(range(8)) and d.max() < 8
    tr, d = _dest("transpose", 40)  # largest even power of two <= 40
    assert len(tr.active) == 16 and d.max() < 16


def test_shift_tornado_neighbor_uniform_randperm():
    tr, d = _dest("shift", 16)
    half = 8
    assert np.all((d == tr.active % half) | (d == tr.active % half + half))
    assert len(set((d >= half).tolist())) == 2
    _, d = _dest("tornado", 8)
    assert d.tolist() == [(s + 3) % 8 for s in range(8)]
    _, d = _dest("neighbor", 5)
    assert d.tolist() == [1, 2, 3, 4, 0]
    tr = Traffic("uniform", 10, np.random.default_rng(0))
    src = np.repeat(np.arange(10), 500)
    d = tr.destinations(src, np.random.default_rng(2))
    assert not np.any(d == src) and d.min() == 0 and d.max() == 9
    tr = Traffic("uniform", 10, np.random.default_rng(0), self_packets=True)
    assert np.any(tr.destinations(src, np.random.default_rng(2)) == src)
    _, d = _dest("randperm", 20)
    assert sorted(d.tolist()) == list(range(20))
    with pytest.raises(ParameterError):
        Traffic("bogus", 8, np.random.default_rng(0))


def test_slimfly_worst_case_loads_one_link_per_pair():
    sf = slimfly(5)
    r = nearest(sf)
    tr = Traffic("worstcase", sf.num_hosts, np.random.default_rng(3), routing=r)
    perm = tr.destinations(tr.active, None)
    assert len(tr.active) > 0
    hosts = np.asarray(sf.hosts)
    sw = np.repeat(np.arange(sf.num_switches), hosts)
    assert np.array_equal(np.sort(perm), np.sort(tr.active))  # a permutation of the active hosts
    for s, d in zip(tr.active.tolist(), perm.tolist()):
        assert perm[np.searchsorted(tr.active, d)] == s  # pairs exchange traffic
    # router pairs: 2-hop routes; the pairs come in twos sharing the middle link
    pairs = {(int(sw[s]), int(sw[d])) for s, d in zip(tr.active, perm)}
    for a, x in pairs:
        path, _ = r.path(a, x)
        assert len(path) == 3
    assert len(pairs) % 4 == 0  # (a, x), (x, a), (b, y), (y, b) per link


def test_load_units_agree():
    cfg = SimConfig(packet_size=33, link_gbps=96.0)
    assert packet_rate(0.1, "flits", cfg) == pytest.approx(0.1 / 33)
    assert packet_rate(9.6, "gbps", cfg) == pytest.approx(0.1 / 33)
    assert packet_rate(0.01, "packets", cfg) == 0.01
    with pytest.raises(ParameterError):
        packet_rate(-1, "flits", cfg)


def test_patterns_run_end_to_end():
    t = torus((4, 4), hosts_per_switch=2)
    r = nearest(t)
    for name in ("bitrev", "transpose", "tornado", "randperm"):
        row = simulate(r, traffic=name, load=0.1, seed=1, packet_size=1, vc_buf_size=4,
                       sample_period=300)
        assert row["status"] == "completed" and row["traffic"] == name


def test_rotate_is_a_permutation_of_all_hosts_and_the_transpose_for_even_bits():
    for n in (16, 64):
        _, rot = _dest("rotate", n)
        _, tra = _dest("transpose", n)
        assert rot.tolist() == tra.tolist()
    tr, d = _dest("rotate", 128)
    assert len(tr.active) == 128 and sorted(d.tolist()) == list(range(128))
    assert d[1] == 8 and d[64] == 4  # 0000001 -> 0001000, 1000000 -> 0000100 (by 3 of 7 bits)
