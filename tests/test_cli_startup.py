"""The ``topogen`` command line starts light: building the parser (``--help`` of every
command, usage errors) imports no numba, pandas, matplotlib, networkx or SciPy, and
``topogen list`` none of the heavy SciPy parts; the lazy ``topogen`` package still offers
every public name; the light name lists the parser reads are the ones the code uses.

Each start-up check runs in a fresh Python process (``sys.modules`` of this one already
holds everything).  No timing is asserted: ``benchmarks/bench_cli.py`` prints the times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: never imported while the parser is built
HEAVY = ("numba", "pandas", "matplotlib", "networkx", "scipy.sparse.csgraph", "scipy.sparse.linalg",
         "scipy.linalg")


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter with this checkout's topogen; it prints JSON."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


_LOADED = """
    import contextlib, io, json, sys
    from topogen.cli import main

    def run(argv):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return main(argv)

    def loaded(names):
        return sorted(m for m in sys.modules for h in names if m == h or m.startswith(h + "."))
"""


def _command_paths() -> list[list[str]]:
    """Every command and sub-command of the parser (``run booksim``, ``experiment plan`` ...)."""
    import argparse

    from topogen.cli import build_parser

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield path + [name]
                    yield from walk(sub, path + [name])

    return list(walk(build_parser(), []))


def test_the_command_paths_cover_every_command():
    paths = _command_paths()
    for cmd in ("list", "generate", "analyze", "route", "run", "simulate", "crossval", "experiment",
                "draw", "optimize", "layout"):
        assert [cmd] in paths
    assert ["run", "booksim"] in paths and ["experiment", "plan"] in paths and ["layout", "anneal"] in paths


@pytest.mark.parametrize("extra", [[], ["--help"]], ids=["parser", "help"])
def test_building_the_parser_imports_nothing_heavy(extra):
    argvs = [["--help"]] + [p + ["--help"] for p in _command_paths()] if extra else []
    out = _fresh(_LOADED + f"""
    from topogen.cli import build_parser
    build_parser()
    codes = [run(a) for a in {argvs!r}]
    print(json.dumps({{"codes": codes, "heavy": loaded({HEAVY!r}), "scipy": loaded(["scipy"])}}))
    """)
    assert out["codes"] == [0] * len(argvs)
    assert out["heavy"] == []
    assert out["scipy"] == []


def test_usage_errors_import_nothing_heavy():
    argvs = [[], ["bogus"], ["run"], ["run", "booksim"], ["generate"], ["route"], ["simulate", "--engine", "x"],
             ["layout", "cluster"], ["experiment"], ["crossval", "--traffic", "nope"]]
    out = _fresh(_LOADED + f"""
    codes = [run(a) for a in {argvs!r}]
    print(json.dumps({{"codes": codes, "heavy": loaded({HEAVY!r}), "scipy": loaded(["scipy"])}}))
    """)
    assert out["codes"] == [2] * len(argvs)
    assert out["heavy"] == [] and out["scipy"] == []


def test_list_and_generate_import_no_heavy_parts(tmp_path):
    out = _fresh(_LOADED + f"""
    codes = [run(["list"]), run(["list", "torus"]), run(["list", "skywalk"]),
             run(["generate", "torus", "--dims", "4,4", "-o", {str(tmp_path / "t.json")!r}])]
    print(json.dumps({{"codes": codes, "heavy": loaded({HEAVY!r} + ("topogen.reproduce.crossval",))}}))
    """)
    assert out["codes"] == [0, 0, 0, 0]
    assert out["heavy"] == []
    assert (tmp_path / "t.json").stat().st_size > 0


def test_import_topogen_is_light_and_every_public_name_resolves():
    out = _fresh("""
    import json, sys
    import topogen
    light = sorted(m for m in sys.modules if m.split(".")[0] in ("scipy", "numba", "pandas"))
    missing = [n for n in topogen.__all__ if n not in dir(topogen)]
    values = {n: type(getattr(topogen, n)).__name__ for n in topogen.__all__}
    ns = {}
    exec("from topogen import " + ", ".join(topogen.__all__), ns)
    star = {}
    exec("from topogen import *", star)
    print(json.dumps({"light": light, "missing": missing, "values": values,
                      "from": sorted(n for n in topogen.__all__ if n in ns),
                      "star": sorted(n for n in topogen.__all__ if n in star)}))
    """)
    import topogen

    assert out["light"] == []
    assert out["missing"] == []
    assert sorted(out["values"]) == sorted(topogen.__all__)
    assert out["from"] == out["star"] == sorted(topogen.__all__)
    from topogen.layout import Floor, Layout, place
    from topogen.registry import generate, get, names
    from topogen.topology import Topology

    assert (topogen.Topology, topogen.Floor, topogen.Layout, topogen.place) == (Topology, Floor, Layout, place)
    assert (topogen.generate, topogen.get_generator, topogen.generator_names) == (generate, get, names)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        topogen.nope  # noqa: B018


@pytest.mark.parametrize("package", ["topogen.routing", "topogen.layout", "topogen.optimize", "topogen.plots",
                                     "topogen.sim"])
def test_lazy_packages_offer_every_public_name(package):
    import importlib

    mod = importlib.import_module(package)
    for name in mod.__all__:
        assert name in dir(mod), name
        assert getattr(mod, name) is not None, name
    with pytest.raises(AttributeError):
        getattr(mod, "not_a_name")


# ------------------------------------------------------------ one list, read light
def test_routing_names_are_what_route_computes():
    import topogen.routing as routing
    from topogen.errors import ParameterError
    from topogen.generators.classic import torus
    from topogen.routing import cli as routing_cli, names

    assert routing.ALGORITHMS is names.ALGORITHMS
    assert routing_cli._ALGS is names.ALGORITHMS
    t = torus((4, 4), hosts_per_switch=1)
    kinds = {}
    for algorithm in names.ALGORITHMS:
        try:
            kinds[algorithm] = type(routing.route(t, algorithm=algorithm, seed=1)).__name__
        except ParameterError as exc:  # e.g. dsnf on a torus: refused by the algorithm itself
            assert "algorithm must be one of" not in str(exc)
    # every name reaches its own branch (an unlisted branch would fall through to valiant)
    assert [a for a, k in kinds.items() if k == "ValiantRouting"] == ["valiant"]
    with pytest.raises(ParameterError, match="algorithm must be one of " + ", ".join(names.ALGORITHMS)):
        routing.route(t, algorithm="nope")


def test_layout_names_are_what_place_and_cluster_accept():
    from topogen.errors import ParameterError
    from topogen.generators.classic import torus
    from topogen.layout import names, pipeline, placement
    from topogen.layout.floor import Floor

    assert placement.PLACEMENTS is names.PLACEMENTS
    assert pipeline.CLUSTERINGS is names.CLUSTERINGS
    t = torus((4, 4), hosts_per_switch=1)
    floor = Floor(cabinets=4, switches_per_cabinet=4)
    for method in names.PLACEMENTS:
        try:
            assert placement.place(t, floor, method, seed=1).topology is t
        except ParameterError as exc:  # native needs a native placement
            assert "placement must be one of" not in str(exc)
    for method in names.CLUSTERINGS:
        assert pipeline.cluster_layout(t, floor, method, seed=1).topology is t
    with pytest.raises(ParameterError, match="placement must be one of " + ", ".join(names.PLACEMENTS)):
        placement.place(t, floor, "nope")
    with pytest.raises(ParameterError, match="clustering must be one of " + ", ".join(names.CLUSTERINGS)):
        pipeline.cluster_layout(t, floor, "nope")


def test_crossval_names_are_what_crossval_accepts():
    from topogen.errors import ParameterError
    from topogen.experiments import names as experiment_names
    from topogen.experiments import simulators as _crossval_sim
    from topogen.reproduce import crossval_saturation, names
    from topogen.sim.traffic import PATTERNS

    assert _crossval_sim.TRAFFICS is experiment_names.TRAFFICS
    assert crossval_saturation.SATURATION_RULES is names.SATURATION_RULES
    for traffic in experiment_names.TRAFFICS:
        assert traffic in PATTERNS
        assert _crossval_sim.CrossvalSpec(topology="torus", traffic=traffic).traffic == traffic
    with pytest.raises(ParameterError, match="traffic must be one of"):
        _crossval_sim.CrossvalSpec(topology="torus", traffic="bitrev")
    for rule in names.SATURATION_RULES:
        assert crossval_saturation.point_status(["completed", "completed"], rule) == "completed"
    assert [crossval_saturation.point_status(["completed", "saturated"], r) for r in names.SATURATION_RULES] \
        != ["completed"] * len(names.SATURATION_RULES)


def test_the_crossval_command_runs_the_crossval_handler(monkeypatch):
    import topogen.reproduce.crossval as crossval
    from topogen.cli import _parse

    seen = []
    monkeypatch.setattr(crossval, "crossval_command", lambda args: seen.append(args.topology) or 7)
    args, _ = _parse(["crossval", "torus", "--out-dir", "x"])
    assert args.handler(args) == 7 and seen == ["torus"]


def test_routing_functions_named_like_their_submodules_stay_functions():
    out = _fresh("""
    import json
    import topogen.routing.dor, topogen.routing.updown, topogen.routing.ugal  # submodules first
    import topogen.routing.valiant, topogen.routing.escape, topogen.routing.booksim_min
    import topogen.routing as routing
    from topogen.routing import booksim_min, dor, escape, ugal, updown, valiant
    names = ["booksim_min", "dor", "escape", "ugal", "updown", "valiant"]
    print(json.dumps({"attr": [callable(getattr(routing, n)) and type(getattr(routing, n)).__name__ for n in names],
                      "from": [type(f).__name__ for f in (booksim_min, dor, escape, ugal, updown, valiant)]}))
    """)
    assert out["attr"] == out["from"] == ["function"] * 6
