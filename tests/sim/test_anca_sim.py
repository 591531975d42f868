"""ANCA and NCA on the reference simulator: minimal routes, the adaptive up ports
spreading load (saturation at least NCA's, far above it on a leaf-to-leaf permutation),
no deadlock past saturation with one VC, and (``-m booksim``) zero-load latency against
BookSim2's own ``fattree`` topology with its ``nca`` routing."""

from __future__ import annotations

import json
import re

import pytest

from topogen.errors import ParameterError, SimulatorNotFound
from topogen.generators.fattree import kary_ntree
from topogen.routing import anca, nca
from topogen.sim import run_fixed, simulate

FAST = dict(packet_size=1, link_latency=1, sample_period=300, max_samples=4, warmup_periods=2)


def _accepted(routing, traffic, cycles=2000, seed=1, **kw):
    """Delivered flits per host per cycle over a fixed run at offered load 1.0."""
    row = run_fixed(routing, cycles, traffic=traffic, load=1.0, seed=seed, packet_size=1,
                    link_latency=1, **kw)
    assert not row["deadlocked"]
    return row["delivered"] / cycles / routing.topology.num_hosts, row


def test_low_load_latency_and_minimal_hops():
    t = kary_ntree(4, 2)
    rows = {a: simulate(r, traffic="shift:4", load=0.05, seed=3, **FAST)
            for a, r in (("nca", nca(t)), ("anca", anca(t)))}
    for row in rows.values():
        assert row["status"] == "completed"
        # every host sends to a host of the next leaf: 2 router-to-router links (+1, the
        # BookSim count the rows use), i.e. every packet took a minimal route
        assert row["hops_avg"] == pytest.approx(3.0)
    assert rows["anca"]["latency_avg"] == pytest.approx(rows["nca"]["latency_avg"], rel=0.03)


def test_anca_and_nca_run_on_the_compiled_engine():
    t = kary_ntree(3, 2)
    a = simulate(anca(t), traffic="uniform", load=0.1, seed=2, engine="compiled", **FAST)
    params = json.loads(a["params"]) if isinstance(a["params"], str) else a["params"]
    assert a["status"] == "completed" and params["engine"] == "compiled"
    rows = [simulate(nca(t), traffic="uniform", load=0.1, seed=2, engine=e, **FAST)
            for e in ("compiled", "python")]
    assert rows[0]["latency_avg"] == rows[1]["latency_avg"]  # a plain table routing


def test_anca_spreads_a_leaf_permutation():
    """Hosts of leaf i send to leaf i+1: NCA's one table route per leaf pair carries the
    k hosts' traffic on one up link (1/k = 0.25), ANCA spreads it over all k."""
    t = kary_ntree(4, 2)
    n_acc, _ = _accepted(nca(t), "shift:4")
    a_acc, _ = _accepted(anca(t), "shift:4")
    assert n_acc == pytest.approx(0.25, abs=0.01)
    assert a_acc >= 1.8 * n_acc


def test_anca_saturation_not_below_nca_under_uniform():
    """4-ary 2-tree, uniform, 1-flit packets, offered 1.0 (past saturation): accepted
    traffic of ANCA (shortest queue) at least NCA's (measured 0.73 and 0.69)."""
    t = kary_ntree(4, 2)
    n_acc, _ = _accepted(nca(t), "uniform", engine="python")
    a_acc, _ = _accepted(anca(t), "uniform")
    assert a_acc >= n_acc


def test_booksim_rule_runs_and_differs():
    t = kary_ntree(4, 2)
    q, _ = _accepted(anca(t), "uniform", cycles=600)
    b, _ = _accepted(anca(t, select="booksim"), "uniform", cycles=600)
    assert q != b and b > 0.5


def test_no_deadlock_past_saturation_with_one_vc():
    t = kary_ntree(2, 3)
    for r in (anca(t), nca(t)):
        acc, row = _accepted(r, "uniform", cycles=3000, num_vcs=1, vc_buf_size=2)
        assert acc > 0.2 and not row["deadlocked"]


@pytest.mark.parametrize("kw,match", [(dict(router="output-buffered"), "input-queued"),
                                      (dict(flow_control="wormhole"), "input-queued")])
def test_refusals(kw, match):
    with pytest.raises(ParameterError, match=match):
        simulate(anca(kary_ntree(2, 2)), load=0.1, seed=1, **FAST, **kw)


def _native_config(exported: str) -> str:
    """The exported anynet configuration turned into BookSim's own fattree with nca."""
    text = re.sub(r"(?m)^network_file = .*;\n", "", exported)
    text = re.sub(r"(?m)^topology = anynet;", "topology = fattree;\nk = 4;\nn = 2;", text)
    return re.sub(r"(?m)^routing_function = min;", "routing_function = nca;", text)


@pytest.mark.booksim
def test_native_booksim_fattree_nca_agrees_at_low_load(tmp_path):
    """BookSim's ``topology = fattree`` (k=4, n=2) with ``routing_function = nca`` (random up
    port), the same tree exported as anynet (BookSim's ``min``), and the reference
    simulator with ``nca``: mean latency at 0.05 flits/node/cycle within 5 %."""
    from topogen.drivers.booksim import run_booksim
    from topogen.export.booksim import export_booksim

    t = kary_ntree(4, 2)
    opts = {"packet_size": 1, "injection_rate": 0.05, "traffic": "uniform"}
    exp = export_booksim(tmp_path, t, options=opts)
    native = tmp_path / "native.cfg"
    native.write_text(_native_config(exp.config_file.read_text()))
    try:
        rows = {name: run_booksim(cfg, timeout=300) for name, cfg in
                (("native", native), ("anynet", exp.config_file))}
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    ref = simulate(nca(t), traffic="uniform", load=0.05, seed=1, packet_size=1, link_latency=1)
    lat = {k: r["latency_avg"] for k, r in rows.items()}
    lat["reference"] = ref["latency_avg"]
    assert all(r["status"] == "completed" for r in rows.values()) and ref["status"] == "completed"
    for name in ("anynet", "reference"):
        assert lat[name] == pytest.approx(lat["native"], rel=0.05), lat
    assert rows["anynet"]["hops_avg"] == pytest.approx(rows["native"]["hops_avg"], rel=0.03)


@pytest.mark.booksim
def test_native_booksim_fattree_anca_agrees_under_load(tmp_path):
    """4-ary 3-tree at 0.3 flits/node/cycle (uniform, 1-flit packets): BookSim's native
    ``fattree`` with ``anca`` against the reference simulator's ANCA with BookSim's rule and
    with the shortest-queue rule: mean latency within 5 %."""
    from topogen.drivers.booksim import run_booksim
    from topogen.export.booksim import export_booksim

    t = kary_ntree(4, 3)
    exp = export_booksim(tmp_path, t, options={"packet_size": 1, "injection_rate": 0.3,
                                               "traffic": "uniform"})
    native = tmp_path / "native.cfg"
    text = _native_config(exp.config_file.read_text()).replace("n = 2;", "n = 3;")
    native.write_text(text.replace("routing_function = nca;", "routing_function = anca;"))
    try:
        bs = run_booksim(native, timeout=600)
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    assert bs["status"] == "completed"
    for select in ("booksim", "queue"):
        ref = simulate(anca(t, select=select), traffic="uniform", load=0.3, seed=1, packet_size=1,
                       link_latency=1)
        assert ref["status"] == "completed"
        assert ref["latency_avg"] == pytest.approx(bs["latency_avg"], rel=0.05), select
