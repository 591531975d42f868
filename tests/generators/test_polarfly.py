"""PolarFly: the Erdős-Rényi polarity graph ER_q."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from topogen import registry
from topogen.errors import ParameterError
from topogen.gf import GF
from topogen.generators.polarfly import point_index, polarfly, polarfly_points

QS = [2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 25, 27]


def _self_dot(F, pts):
    return np.asarray(F.dot(pts, pts))


@pytest.mark.parametrize("q", QS)
def test_size_degrees_diameter(q):
    t = polarfly(q)
    n = q * q + q + 1
    assert t.num_switches == n and t.num_links == q * (q + 1) ** 2 // 2
    F = GF(q)
    pts = polarfly_points(q)
    absolute = _self_dot(F, pts) == 0
    assert absolute.sum() == q + 1
    assert (t.degrees[absolute] == q).all() and (t.degrees[~absolute] == q + 1).all()
    a = t.csr().astype(np.int64)
    reach = a @ a + a + sp.identity(n, dtype=np.int64, format="csr")
    assert reach.nnz == n * n  # diameter <= 2
    assert t.hosts_per_switch == -(-(q + 1) // 2)


@pytest.mark.parametrize("q", QS)
def test_projective_plane_identity(q):
    """With the loops at absolute points restored, M is a symmetric incidence matrix of
    PG(2, q), so M @ M = J + q I (two points lie on exactly one common line)."""
    t = polarfly(q)
    pts = polarfly_points(q)
    loops = (_self_dot(GF(q), pts) == 0).astype(np.int64)
    m = t.csr().astype(np.int64).toarray() + np.diag(loops)
    n = t.num_switches
    assert np.array_equal(m @ m, np.ones((n, n), np.int64) + q * np.eye(n, dtype=np.int64))


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9])
def test_adjacency_is_orthogonality(q):
    F = GF(q)
    pts = polarfly_points(q)
    n = len(pts)
    dots = np.asarray(F.dot(pts[:, None, :], pts[None, :, :]))
    expected = (dots == 0) & ~np.eye(n, dtype=bool)
    assert np.array_equal(polarfly(q).csr().toarray() > 0, expected)


@pytest.mark.parametrize("q", [2, 3, 4])
def test_networkx_diameter(q):
    assert nx.diameter(polarfly(q).to_networkx()) == 2


def test_points_are_normalised_and_distinct():
    q = 9
    pts = polarfly_points(q)
    assert len({tuple(p) for p in pts}) == len(pts) == q * q + q + 1
    first = pts[np.arange(len(pts)), (pts != 0).argmax(axis=1)]
    assert (first == 1).all()
    assert np.array_equal(point_index(pts, q), np.arange(len(pts)))


def test_errors_and_registry():
    with pytest.raises(ParameterError, match=r"q=6 is not a prime power.*nearest valid: 5, 7"):
        polarfly(6)
    with pytest.raises(ParameterError, match=r"q=1 .*nearest valid: 2"):
        polarfly(1)
    with pytest.raises(ParameterError, match="hosts_per_switch"):
        polarfly(3, hosts_per_switch=-2)
    t = registry.generate("polarfly", q="7", hosts_per_switch="1")
    assert t.num_switches == 57 and t.num_hosts == 57 and t.params == {"q": 7, "hosts_per_switch": 1}
