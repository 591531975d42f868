"""`experiment plan`, `run` and `submit` check every point before anything runs or is
queued; `submit` refuses the option that did nothing; `status` tells finished arrays from
the store when SLURM keeps no accounting."""

from __future__ import annotations

import json
import os
import stat

import pytest

from topogen.cli import main
from topogen.experiments import spec as spec_module

from .conftest import SMALL, write_spec

BAD_Q = """
[experiment]
name = "badq"

[axes]
topology = [{ generator = "torus", params = { dims = [3, 3] } }, { generator = "slimfly", params = { q = 6 } }]
load = [0.1, 0.2]
simulator = ["reference"]
"""


def _run(capsys, *args):
    code = main(["experiment", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topogen: error: "), err
    return lines[0]


def _axes(body: str) -> str:
    return '[experiment]\nname = "x"\n\n[axes]\n' + body


@pytest.mark.parametrize("action", ["plan", "submit --dry-run", "run"])
def test_generator_parameters_fail_before_anything(capsys, tmp_path, action):
    spec = write_spec(tmp_path, BAD_Q)
    st = tmp_path / "st"
    code, _, err = _run(capsys, *action.split(), spec, "--store", st)
    line = _error(err)
    assert code == 2
    # the point, the parameter and the valid values
    assert "slimfly(q=6)" in line and "q=6 is not a prime power" in line and "nearest valid: 5, 7" in line
    assert "point " in line and "and 1 more point(s) like it" in line
    assert not st.exists()  # nothing written, nothing queued


def test_routing_that_the_topology_cannot_take(capsys, tmp_path):
    spec = write_spec(tmp_path, _axes(
        'topology = [{ generator = "torus", params = { dims = [3, 3] } }, '
        '{ generator = "slimfly", params = { q = 5 } }]\nrouting = ["dor"]\nload = [0.1]\n'))
    code, _, err = _run(capsys, "plan", spec, "--store", tmp_path / "st")
    line = _error(err)
    assert code == 2 and "slimfly(q=5) dor" in line and "routing dor" in line
    assert "needs a torus, mesh, hypercube or hyperx" in line


def test_routing_that_the_simulator_cannot_take(capsys, tmp_path):
    spec = write_spec(tmp_path, _axes(
        'topology = [{ generator = "torus", params = { dims = [3, 3] } }]\n'
        'routing = ["booksim-min", "nr"]\nsimulator = ["reference", "booksim"]\nload = [0.1]\n'))
    code, _, err = _run(capsys, "plan", spec, "--store", tmp_path / "st")
    line = _error(err)
    assert code == 2 and "simulator booksim cannot take routing nr" in line and "[[exclude]]" in line
    # excluding the combination makes the spec valid
    spec.write_text(spec.read_text() + '\n[[exclude]]\nsimulator = "booksim"\nrouting = "nr"\n')
    code, out, err = _run(capsys, "plan", spec, "--store", tmp_path / "st")
    assert code == 0, err and "3 points" in out
    ugal = write_spec(tmp_path, _axes('topology = [{ generator = "torus", params = { dims = [3, 3] } }]\n'
                                      'routing = ["ugal-g"]\nsimulator = ["sst"]\nload = [0.1]\n'), "u.toml")
    code, _, err = _run(capsys, "plan", ugal, "--store", tmp_path / "st")
    assert code == 2 and "simulator sst cannot take routing ugal-g" in _error(err)


def test_sizes_are_checked_without_building_big_networks(capsys, tmp_path, monkeypatch):
    built = []
    from topogen.experiments import simulators

    real = simulators.build_network
    monkeypatch.setattr(simulators, "build_network", lambda spec, seed: built.append(spec.topology) or real(spec, seed))
    spec = write_spec(tmp_path, _axes(
        'topology = [{ generator = "random", params = { num_switches = 2000000000, degree = 8 } }]\nload = [0.1]\n'))
    code, _, err = _run(capsys, "plan", spec, "--store", tmp_path / "st")
    assert code == 2 and "random" in _error(err) and "memory" in _error(err).lower()
    assert built == []  # refused from its estimate: nothing allocated


def test_each_network_and_routing_is_checked_once(capsys, tmp_path, monkeypatch):
    from topogen.experiments import simulators

    calls = {"network": 0, "routing": 0}
    real_net, real_rt = simulators.build_network, simulators.build_routing

    def net(*a, **k):
        calls["network"] += 1
        return real_net(*a, **k)

    def rt(*a, **k):
        calls["routing"] += 1
        return real_rt(*a, **k)

    monkeypatch.setattr(simulators, "build_network", net)
    monkeypatch.setattr(simulators, "build_routing", rt)
    spec = write_spec(tmp_path)  # 2 topologies x 1 routing x 2 traffics x 2 loads x 2 seeds
    code, out, err = _run(capsys, "plan", spec, "--store", tmp_path / "st")
    assert code == 0, err
    assert calls == {"network": 2, "routing": 2}


def test_submit_refuses_the_slurm_option(capsys, tmp_path):
    spec = write_spec(tmp_path)
    code, _, err = _run(capsys, "submit", spec, "--store", tmp_path / "st", "--slurm", "--dry-run")
    line = _error(err)
    assert code == 2 and "takes no --slurm" in line and "always submits a SLURM job array" in line
    assert not (tmp_path / "st").exists()


def _fake_slurm(folder, queued=""):
    """squeue lists ``queued``; sacct answers as SLURM does with accounting off."""
    folder.mkdir(exist_ok=True)
    scripts = {"sinfo": "#!/bin/sh\necho up\n", "sbatch": "#!/bin/sh\necho 4242\n",
               "squeue": f"#!/bin/sh\nprintf '{queued}'\n",
               "sacct": "#!/bin/sh\necho 'sacct: error: Slurm accounting storage is disabled' >&2\nexit 1\n"}
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(stat.S_IRWXU)


def test_status_knows_finished_arrays_without_accounting(capsys, tmp_path, monkeypatch):
    spec = write_spec(tmp_path, SMALL + '\n[slurm]\nchunk = 10\n')
    st = tmp_path / "st"
    _fake_slurm(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    code, out, err = _run(capsys, "submit", spec, "--store", st)
    assert code == 0 and "submitted job 4242" in out, err
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert "SLURM job 4242" in out and "ended, not finished: 16 of its 16 points have no result" in out
    assert "not queued, no log" in out
    pj = st / "slurm" / "submit-001" / "points.json"
    assert _run(capsys, "task", pj, "--index", 0)[0] == 0
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert "ended, not finished: 6 of its 16 points have no result" in out
    _fake_slurm(tmp_path / "bin", queued="4242_1|PENDING\\n")
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert "1 pending" in out
    _fake_slurm(tmp_path / "bin")
    assert _run(capsys, "task", pj, "--index", 1)[0] == 0
    (st / "slurm" / "submit-001" / "logs" / "collect_4243.out").parent.mkdir(exist_ok=True)
    sub = json.loads((st / "slurm" / "submit-001" / "submission.json").read_text())
    (st / "slurm" / "submit-001" / "logs" / f"collect_{sub['collect_job']}.out").write_text(
        "16 of 16 rows collected into results.csv\n")
    code, out, _ = _run(capsys, "status", spec, "--store", st)
    assert "finished: 16 of its 16 points done (from the store)" in out
    assert "not queued" not in out and "(16 of 16 rows collected into results.csv)" in out
