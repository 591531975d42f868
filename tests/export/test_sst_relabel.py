"""SST streams by endpoint relabelling (:mod:`topogen.export.sst_relabel`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from topogen.errors import ParameterError
from topogen.export import sst as sx
from topogen.export.sst_relabel import endpoint_permutation, relabel_endpoints, write_relabelled_bundle
from topogen.generators.classic import torus
from topogen.routing import nearest


def _bundle(hosts=2):
    t = torus((3, 3), hosts_per_switch=hosts)
    return sx.bundle_dict(t, None, nearest(t))


def _owner(doc):
    """endpoint id -> (router, port), read from the routers' maps."""
    out = {}
    for r in doc["routers"]:
        for item in r["endpoint_to_port_map"].strip("{}").split(","):
            e, p = (int(x) for x in item.split(":"))
            out[e] = (r["id"], p)
    return out


@pytest.mark.parametrize("hosts", [1, 2])
def test_relabelled_bundle_is_the_same_network_with_other_endpoint_ids(hosts):
    doc = _bundle(hosts)
    perm = endpoint_permutation(doc["num_endpoints"], 7)
    assert sorted(perm.tolist()) == list(range(doc["num_endpoints"]))
    assert not np.array_equal(perm, np.arange(doc["num_endpoints"]))
    new = relabel_endpoints(doc, perm)
    sx.validate_bundle(new)  # ports, maps, endpoints[], endpoint_router_mapping, routes
    # every endpoint keeps its router and port under its new id
    before, after = _owner(doc), _owner(new)
    assert after == {int(perm[e]): rp for e, rp in before.items()}
    assert [ep["id"] for ep in new["endpoints"]] == list(range(doc["num_endpoints"]))
    # routes, links and parameters unchanged (router tables name routers)
    for key in ("links", "router_params", "nic_params", "vcs_per_vn", "num_endpoints"):
        assert new[key] == doc[key]
    for a, b in zip(doc["routers"], new["routers"]):
        assert a["routing_entry_string"] == b["routing_entry_string"]
        assert a["connectivity"] == b["connectivity"]
    assert doc["endpoints"][0]["id"] == 0  # the input is not changed


def test_permutation_follows_the_seed_and_identity_keeps_the_bundle():
    n = 18
    assert np.array_equal(endpoint_permutation(n, 3), endpoint_permutation(n, 3))
    assert not np.array_equal(endpoint_permutation(n, 3), endpoint_permutation(n, 4))
    doc = _bundle()
    assert relabel_endpoints(doc, np.arange(n)) == doc


@pytest.mark.parametrize("perm", [[0] * 18, list(range(17)), [x + 1 for x in range(18)]])
def test_a_relabelling_that_is_no_permutation_is_refused(perm):
    with pytest.raises(ParameterError, match="permutation"):
        relabel_endpoints(_bundle(), perm)


def test_written_bundle_records_its_seed_and_reads_back(tmp_path):
    t = torus((3, 3))
    src = sx.write_bundle(tmp_path / "net.json", t, None, nearest(t))
    out = write_relabelled_bundle(src, tmp_path / "net.relabel5.json", 5)
    doc = sx.read_bundle(out)
    assert doc["metadata"]["endpoint_relabel_seed"] == 5
    assert _owner(doc) == {int(p): rp for p, rp in zip(endpoint_permutation(9, 5), _owner(json.loads(src.read_text())).values())}
