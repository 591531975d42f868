"""Constrained shortcutting (Koibuchi et al. IV-B): Nbr(p)-n and Gau(alpha)-n."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import truncnorm

from topogen import registry
from topogen.errors import ParameterError
from topogen.generators.random import ring
from topogen.generators.shortcut import gau, gaussian_offset_weights, nbr, ring_hops
from topogen.generators.uniform import uniform_random_links


def _shortcut_hops(t):
    e = t.edges[t.link_kind == 1]
    return ring_hops(t.num_switches, e[:, 0], e[:, 1])


def test_nbr_one_is_ring():
    # "Nbr(1.0)-n corresponds to RING-n": same seed, same links
    for n, d, s in [(256, 6, 3), (101, 5, 7)]:
        assert np.array_equal(nbr(n, d, 1.0, seed=s).edges, ring(n, d, seed=s).edges)


@pytest.mark.parametrize("p", [0.1, 0.25, 0.5])
def test_nbr_bound_and_structure(p):
    n, d = 512, 8
    t = nbr(n, d, p, seed=1)
    hops = _shortcut_hops(t)
    assert hops.max() <= n * p / 2 and hops.min() >= 2
    assert t.degree <= d and t.is_connected()
    ring_links = {(i, (i + 1) % n) if i < (i + 1) % n else ((i + 1) % n, i) for i in range(n)}
    assert ring_links <= {tuple(e) for e in t.edges.tolist()}
    # almost every switch gets its n - 2 shortcuts
    assert t.num_links > 0.97 * n * d / 2
    strict = nbr(n, d, p, strict=True, seed=1)
    assert _shortcut_hops(strict).max() < n * p / 2


def test_nbr_strict_one_excludes_antipodes():
    t = nbr(64, 10, 1.0, strict=True, seed=2)
    assert _shortcut_hops(t).max() < 32
    assert _shortcut_hops(nbr(64, 10, 1.0, seed=2)).max() == 32


def test_nbr_tiny_bound_is_the_ring():
    t = nbr(100, 6, 0.02, seed=1)  # N p / 2 = 1 hop: only ring neighbours
    assert t.num_links == 100


def test_reproducible_and_recorded():
    a, b = nbr(300, 6, 0.4, seed=5), nbr(300, 6, 0.4, seed=5)
    assert np.array_equal(a.edges, b.edges)
    assert not np.array_equal(a.edges, nbr(300, 6, 0.4, seed=6).edges)
    again = registry.generate("nbr", **a.params)
    assert np.array_equal(a.edges, again.edges)
    g = gau(300, 6, 0.4, seed=5)
    assert np.array_equal(g.edges, registry.generate("gau", **g.params).edges)


def test_bad_parameters():
    for p in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ParameterError, match=r"0 < p <= 1"):
            nbr(64, 6, p)
    for a in (0.0, -1.0):
        with pytest.raises(ParameterError, match="alpha > 0"):
            gau(64, 6, a)
    with pytest.raises(ParameterError, match="degree"):
        nbr(64, 64, 0.5)


def test_gaussian_weights_match_sampling_the_truncated_gaussian():
    # independent: sample X ~ N(0, (N alpha / 2)^2) truncated to [-N/2, N/2] with scipy,
    # round, reduce mod N; compare frequencies with the weights
    n, alpha = 40, 0.3
    sigma, half = n * alpha / 2, n / 2
    x = truncnorm.rvs(-half / sigma, half / sigma, scale=sigma, size=400_000,
                      random_state=np.random.default_rng(0))
    freq = np.bincount(np.rint(x).astype(int) % n, minlength=n) / x.size
    w = gaussian_offset_weights(n, alpha)
    assert w.sum() == pytest.approx(1.0)
    assert np.allclose(w[1:], w[1:][::-1])  # clockwise and counter-clockwise alike
    assert np.abs(freq - w).max() < 3e-3


def test_gau_sampler_agrees_with_the_exact_engine():
    # Gau's rejection sampler against the Uniform Random engine's exact weighted scan
    n, d, alpha = 128, 6, 0.2
    table = gaussian_offset_weights(n, alpha)
    v = np.arange(n)
    ring_links = np.stack([v, (v + 1) % n], axis=1)
    ours, exact = [], []
    for s in range(12):
        ours.append(_shortcut_hops(gau(n, d, alpha, seed=s)).mean())
        e = uniform_random_links(n, d - 2, rng=1000 + s, existing=ring_links,
                                 weight=lambda u, w: table[(np.asarray(w) - u) % n])
        exact.append(ring_hops(n, e[:, 0], e[:, 1]).mean())
    assert abs(np.mean(ours) - np.mean(exact)) < 4 * np.std(exact) / np.sqrt(12) + 0.3


def test_gau_locality_grows_with_alpha():
    means = [_shortcut_hops(gau(1024, 6, a, seed=1)).mean() for a in (0.05, 0.2, 5.0)]
    assert means[0] < means[1] < means[2]
    # very large alpha: shortcut lengths close to uniform on 2..N/2 (RING-n), mean ~N/4
    assert means[2] == pytest.approx(1024 / 4, rel=0.08)
