"""Slim Fly Fig. 6a on BookSim2 (``topogen reproduce slimfly-sim --quick/--full --simulator
booksim``): the spec (its networks, the paper's router setup on both simulators, BookSim's
own dragonflynew and fattree, content keys), the refusals, the table and its verdicts (the
crossval tolerances), a run on the stand-in BookSim and, with ``-m booksim``, on the real
binary."""

from __future__ import annotations

import math

import pytest

from topogen._input import parse_toml
from topogen.cli import main
from topogen.errors import ParameterError
from topogen.experiments.spec import check_experiment, parse_experiment
from topogen.reproduce import crossval_native as cn
from topogen.reproduce import slimfly_sim as sfs
from topogen.reproduce import study as st

from shared_paths import FIXTURES, needs_fixtures
from tests.drivers import fakes


def _by(exp, key):
    return {p.content["topology"]["label"]: p.content[key] for p in exp.points}


def test_the_full_spec_is_the_papers_networks_and_router_on_both_simulators(tmp_path):
    exp, fig, nets, structure, figure_of = sfs.crosscheck_specs("full", tmp_path)
    by_key = {n.key: n for n in nets}
    # SF MMS q=19 on anynet (min), BookSim's own dragonflynew k=7 (ugal) and fattree k=22 n=3 (anca)
    assert by_key["SF"].params == {"q": 19} and by_key["SF"].booksim is None
    assert by_key["DF"].booksim == {"topology": "dragonflynew", "k": 7, "n": 1, "routing_function": "ugal"}
    assert by_key["DF"].link_cycles == {"local": 10, "global": 100}
    assert by_key["FT"].booksim == {"topology": "fattree", "k": 22, "n": 3, "routing_function": "anca"}
    # the structure check counted BookSim's own networks: 1,386 routers / 9,702 nodes, 1,452 / 10,648
    assert any("1386 routers" in s and "9702 nodes" in s for s in structure)
    assert any("1452 routers" in s and "10648 nodes" in s for s in structure)
    # every load on both simulators, one routing per network, nothing else
    want = {(n.label, n.routing, float(x), sim) for n in nets for x in sfs.CROSSCHECK_LOADS[n.key]
            for sim in ("reference", "booksim")}
    got = {(p.content["topology"]["label"], p.content["routing"], p.content["load"], p.content["simulator"])
           for p in exp.points}
    assert got == want and len(exp.points) == len(want)
    assert {p.content["routing"] for p in exp.points} == {"booksim-min", "ugal-booksim", "anca"}
    # Section V's router on both: 1-flit packets, 3 x 21 flits, credit delay 2, speedup 2, 1-cycle links
    for p in exp.points:
        m = p.content["measure"]
        assert (m["packet_size"], m["num_vcs"], m["vc_buf_size"], m["credit_delay"], m["internal_speedup"],
                m["link_latency"]) == (1, 3, 21, 2, 2.0, 1)
        assert "reference" not in p.content
    # the figure's own curves: its routings and 64 flits per port shared by the VCs, same loads
    assert {(p.content["topology"]["label"], p.content["routing"], p.content["load"]) for p in fig.points} == {
        (n.label, sfs.CROSSCHECK_FIGURE[n.key][1], float(x)) for n in nets for x in sfs.CROSSCHECK_LOADS[n.key]}
    assert all(p.content["reference"]["port_buffer"] == 64 and p.content["reference"]["internal_speedup"] == 2.0
               for p in fig.points)
    assert figure_of == {k: (by_key[k].label, sfs.CROSSCHECK_FIGURE[k][1]) for k in by_key}


def test_points_are_content_keyed_so_a_rerun_resumes(tmp_path):
    exp, fig, *_ = sfs.crosscheck_specs("quick", tmp_path)
    text = exp.path.read_text()
    again, fig2, *_ = sfs.crosscheck_specs("quick", tmp_path)
    assert [p.id for p in again.points] == [p.id for p in exp.points] and exp.path.read_text() == text
    assert [p.id for p in fig2.points] == [p.id for p in fig.points]
    assert len({p.id for p in exp.points} | {p.id for p in fig.points}) == len(exp.points) + len(fig.points)
    # another load is another point; the others keep their ids
    other, *_ = sfs.crosscheck_specs("quick", tmp_path / "b", loads={"SF": (0.2, 0.3), "DF": (0.02, 0.05),
                                                                      "FT": (0.2, 0.5)})
    assert {p.id for p in exp.points} - {p.id for p in other.points} == {
        p.id for p in exp.points if p.content["topology"]["generator"] == "slimfly" and p.content["load"] != 0.2}


def _spec(tmp_path, topology, routing="booksim-min", simulators=("reference", "booksim"), measure=None):
    doc = {"experiment": {"name": "x"}, "axes": {"topology": [topology], "routing": [routing],
                                                  "load": [0.1], "simulator": list(simulators)},
           "measure": measure or {"packet_size": 1, "link_latency": 1, "num_vcs": 3}}
    text = st.toml_text(doc)
    return parse_experiment(parse_toml(text, path=tmp_path / "x.toml", what="spec"), path=tmp_path / "x.toml")


DF2 = {"generator": "dragonfly", "params": {"a": 4, "p": 2, "h": 2, "arrangement": "absolute",
                                            "global_port_order": "router"}}


@pytest.mark.parametrize("entry, match", [
    (dict(DF2, booksim={"topology": "dragonflynew", "k": 2, "n": 1, "routing_function": "min"}),
     "names BookSim topology 'dragonflynew' with routing_function 'min'; topogen has a copy of"),
    (dict(DF2, link_cycles={"local": 10}), "link_cycles .* goes with booksim"),
    (dict(DF2, booksim={"topology": "dragonflynew", "k": 2, "n": 1, "routing_function": "ugal"},
          link_cycles={"local": 0}), "maps link kinds to whole cycles >= 1"),
    (dict(DF2, booksim={"topology": "dragonflynew", "k": 2.5, "routing_function": "ugal"}),
     "a table of BookSim options"),
])
def test_a_spec_refuses_a_booksim_network_it_could_not_run(tmp_path, entry, match):
    with pytest.raises(ParameterError, match=match):
        _spec(tmp_path, entry)


def test_the_plan_refuses_a_routing_that_is_not_the_booksim_networks_and_speedup_on_sst(tmp_path):
    native = dict(DF2, booksim={"topology": "dragonflynew", "k": 2, "n": 1, "routing_function": "ugal"})
    with pytest.raises(ParameterError, match="set routing = 'ugal-booksim'"):
        check_experiment(_spec(tmp_path, native, routing="ugal-l"))
    check_experiment(_spec(tmp_path, native, routing="ugal-booksim"))
    sf = {"generator": "slimfly", "params": {"q": 3}}
    with pytest.raises(ParameterError, match="hr_router has no internal speedup"):
        check_experiment(_spec(tmp_path, sf, simulators=("sst",),
                               measure={"packet_size": 1, "link_latency": 1, "internal_speedup": 2.0}))
    doc = {"experiment": {"name": "x"}, "axes": {"topology": [native], "routing": ["ugal-booksim"], "load": [0.1]},
           "reference": {"internal_speedup": 2.0}}
    with pytest.raises(ParameterError, match="booksim options is BookSim's own network"):
        parse_experiment(parse_toml(st.toml_text(doc), path=tmp_path / "r.toml", what="spec"))
    # a spec without internal_speedup keeps it out of its points' content (and ids)
    assert "internal_speedup" not in _spec(tmp_path, sf).points[0].content["measure"]


def test_the_crosscheck_refuses_what_booksim_cannot_run(tmp_path):
    nets = sfs.crosscheck_networks("quick")
    m = sfs.crosscheck_measure("quick")
    sf = st.CrossNetwork("SF", "slimfly", {"q": 5}, "hop")
    with pytest.raises(ParameterError, match="anynet's min .* only, not hop"):
        st.crosscheck_document("x", [sf], {"SF": [0.2]}, m)
    with pytest.raises(ParameterError, match="loads name network"):
        st.crosscheck_document("x", nets, {"XX": [0.2]}, m)
    with pytest.raises(ParameterError, match=r"offered loads in \(0, 1\]"):
        st.crosscheck_document("x", nets, {"SF": [1.5]}, m)
    with pytest.raises(ParameterError, match="no loads"):
        st.crosscheck_document("x", nets, {}, m)
    with pytest.raises(ParameterError, match="SST merlin has no Slim Fly"):
        sfs.reproduce_slimfly_sim(quick=True, simulator="sst", out=str(tmp_path / "o"))
    with pytest.raises(ParameterError, match="exactly one of --quick"):
        sfs._crosscheck_run(quick=True, full=True, simulator="booksim", submit=False, collect=False, plan=False,
                            out=str(tmp_path / "o"), workers=1)
    assert not (tmp_path / "o").exists()  # refused before anything was written


def _rows(status, *lats):
    return [{"status": status, "latency_avg": x, "accepted_flit_rate": 0.1, "cpu_seconds": 1.0} for x in lats]


def test_the_verdicts_are_the_crossval_tolerances(tmp_path, monkeypatch):
    exp, fig, nets, _, figure_of = sfs.crosscheck_specs("quick", tmp_path, loads={"SF": (0.01, 0.2, 0.5, 0.8),
                                                                                  "DF": (0.02, 0.05), "FT": (0.2,)})
    sf, df, ft = (n for n in nets)
    zero = 1 + cn.ZERO_TOLERANCE * 1.5  # beyond the zero-load tolerance, within the other
    data = {
        (sf.label, sf.routing, 0.01, "reference"): _rows("completed", 10.0 * zero),
        (sf.label, sf.routing, 0.01, "booksim"): _rows("completed", 10.0),
        (sf.label, sf.routing, 0.2, "reference"): _rows("completed", 10.0 * zero),
        (sf.label, sf.routing, 0.2, "booksim"): _rows("completed", 10.0),
        (sf.label, sf.routing, 0.5, "reference"): _rows("completed", 12.0),
        (sf.label, sf.routing, 0.5, "booksim"): _rows("saturated", 600.0),
        (sf.label, sf.routing, 0.8, "reference"): _rows("saturated", 700.0),
        (sf.label, sf.routing, 0.8, "booksim"): _rows("deadlock", math.nan),
        # three seeds each: a 6 % miss within two standard errors of the ratio
        (df.label, df.routing, 0.05, "reference"): _rows("completed", 100.0, 120.0, 110.0),
        (df.label, df.routing, 0.05, "booksim"): _rows("completed", 95.0, 110.0, 106.0),
        (df.label, df.routing, 0.02, "reference"): _rows("completed", 100.0 * (1 + 2 * cn.LATENCY_TOLERANCE)),
        (df.label, df.routing, 0.02, "booksim"): _rows("completed", 100.0),
        (ft.label, ft.routing, 0.2, "reference"): _rows("completed", 16.0),
    }
    fig_data = {(figure_of["SF"][0], "hop", 0.2, "reference"): _rows("completed", 9.5)}
    monkeypatch.setattr(st, "_store_points", lambda e: fig_data if e is fig else data)
    t = st.crosscheck_table(exp, nets, figure=fig, figure_of=figure_of).set_index(["network", "load"])
    assert t.loc[("SF", 0.01), "verdict"] == "FAIL" and t.loc[("SF", 0.01), "tolerance"] == cn.ZERO_TOLERANCE
    assert t.loc[("SF", 0.2), "verdict"] == "pass" and t.loc[("SF", 0.2), "tolerance"] == cn.LATENCY_TOLERANCE
    assert t.loc[("SF", 0.2), "ratio"] == pytest.approx(zero)
    assert t.loc[("SF", 0.5), "verdict"] == "FAIL"  # completed on one, saturated on the other
    assert t.loc[("SF", 0.8), "verdict"] == "pass (neither completed)"
    assert t.loc[("DF", 0.05), "verdict"] == "pass (noise)"
    assert t.loc[("DF", 0.02), "verdict"] == "FAIL"
    assert t.loc[("FT", 0.2), "verdict"] == "not run" and t.loc[("FT", 0.2), "status_booksim"] == "not run"
    assert t.loc[("SF", 0.2), "figure_latency"] == 9.5 and t.loc[("SF", 0.5), "figure_status"] == "not run"
    assert t.loc[("DF", 0.05), "latency_reference"] == pytest.approx(110.0)
    assert t.loc[("DF", 0.05), "cpu_s_booksim"] == 3.0
    assert math.isnan(t.loc[("DF", 0.05), "us_per_hop_booksim"])  # rows without cycles and hops


@needs_fixtures("booksim")
def test_a_run_on_the_stand_in_booksim_fills_one_store_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOGEN_BOOKSIM", str(fakes.booksim(tmp_path / "bin", FIXTURES, knee=0.3)))
    loads = {"SF": (0.2, 0.5), "DF": (0.05,), "FT": (0.2,)}
    exp, fig, nets, _, figure_of = sfs.crosscheck_specs("quick", tmp_path / "cc", loads=loads)
    for e in (exp, fig):
        summary = st.run_local(e, progress=False)
        assert summary.failed == [] and summary.ran == len(e.points), summary.table()
    t = st.crosscheck_table(exp, nets, figure=fig, figure_of=figure_of).set_index(["network", "load"])
    assert len(t) == 4 and (t.status_reference == "completed").all()
    # the stand-in completes up to its knee (0.3) and saturates above: 0.5 does not match
    assert t.loc[("SF", 0.2), "status_booksim"] == "completed"
    assert t.loc[("SF", 0.5), "status_booksim"] != "completed" and t.loc[("SF", 0.5), "verdict"] == "FAIL"
    assert t.figure_status.eq("completed").all() and t.figure_latency.gt(0).all()
    assert t.cpu_s_reference.gt(0).all() and t.cpu_s_booksim.notna().all()
    # CPU per packet-hop: the point's CPU over cycles x hosts x accepted rate x hops
    ref = _store_rows(exp, nets[0], 0.2, "reference")
    want = ref["cpu_seconds"] / (ref["sim_cycles"] * ref["num_hosts"] * ref["accepted_flit_rate"]
                                 * ref["hops_avg"]) * 1e6
    assert t.loc[("SF", 0.2), "us_per_hop_reference"] == pytest.approx(want)
    # BookSim ran its own dragonflynew / fattree with the paper's router, SF on an anynet export
    cfgs = {p.parent.parent.name: p.read_text() for p in exp.store.rglob("native.cfg")}
    by_id = {p.id: p.content["topology"]["generator"] for p in exp.points}
    texts = {by_id[k]: v for k, v in cfgs.items()}
    assert set(texts) == {"dragonfly", "kary-ntree"}
    assert "topology = dragonflynew;" in texts["dragonfly"] and "routing_function = ugal;" in texts["dragonfly"]
    assert "topology = fattree;" in texts["kary-ntree"] and "routing_function = anca;" in texts["kary-ntree"]
    for text in texts.values():
        for line in ("internal_speedup = 2.0;", "num_vcs = 3;", "vc_buf_size = 21;", "credit_delay = 2;",
                     "packet_size = 1;"):
            assert line in text
    sf_cfg = [p.read_text() for p in exp.store.rglob("net.cfg")]
    assert sf_cfg and all("internal_speedup = 2.0;" in c and "topology = anynet;" in c for c in sf_cfg)
    again = st.run_local(exp, progress=False)  # every point is in the store
    assert again.ran == 0 and again.already_done == len(exp.points)
    # the same pending points go to SLURM as one array (a dry run writes the submission)
    info = st.submit(sfs.crosscheck_specs("quick", tmp_path / "sub", loads=loads)[0], dry_run=True)
    assert info["points"] == 8


def _store_rows(exp, net, load, simulator):
    from topogen.experiments.store import Store

    store = Store.open(exp.store, exp.name)
    (p,) = [p for p in exp.points if p.content["topology"]["label"] == net.label and p.content["load"] == load
            and p.content["simulator"] == simulator]
    rec = store.record(p.id)
    return dict(rec["row"], cpu_seconds=rec["cpu_seconds"])


def test_the_command_plans_the_subset(tmp_path, capsys):
    assert main(["reproduce", "slimfly-sim", "--quick", "--simulator", "booksim", "--plan",
                 "--out", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert "dragonflynew k=2 router for router" in out and "fattree k=4 n=3 router for router" in out
    assert out.count("booksim-min") == 6 and out.count("ugal-booksim") == 4
    assert "slimfly-fig6-quick-figure-points" in out


@pytest.mark.booksim
def test_the_tiny_subset_agrees_on_the_real_booksim(tmp_path):
    from topogen.drivers.booksim import find_booksim
    from topogen.errors import SimulatorNotFound

    try:
        find_booksim()
    except SimulatorNotFound as exc:
        pytest.skip(str(exc))
    exp, fig, nets, _, figure_of = sfs.crosscheck_specs("quick", tmp_path, loads={"SF": (0.5,), "DF": (0.05,),
                                                                                  "FT": (0.5,)})
    st.run_local(exp, progress=False)
    t = st.crosscheck_table(exp, nets)
    assert len(t) == 3 and (t.status_booksim == "completed").all(), t.to_string()
    assert (t.verdict == "pass").all(), t.to_string()


def test_cpu_per_packet_hop_takes_the_reference_path_length_where_booksim_reports_none():
    cycles, hosts, rate, hops, cpu = 600, 72, 0.05, 3.5, 2.0
    row = {"sim_cycles": cycles, "accepted_flit_rate": rate, "cpu_seconds": cpu, "num_hosts": None}
    want = cpu / (cycles * hosts * rate * hops) * 1e6
    assert st._hop_cost([row], {"hops_avg": hops, "num_hosts": hosts}) == pytest.approx(want)
    assert st._hop_cost([dict(row, hops_avg=2 * hops, num_hosts=hosts)], {"hops_avg": hops}) == pytest.approx(want / 2)
    assert math.isnan(st._hop_cost([row]))
