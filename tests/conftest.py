"""Test-session settings shared by every test folder."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Tests never write the user's cache: topogen's SST element builds
    (``topogen.drivers.sst_nic.cache_root``) go to a folder of this session."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


#: Run a topogen command in a fresh process, then report its exit code, whether numba was
#: imported and which of topogen's numba functions got a compiled signature (last line of
#: stdout, JSON; the command's own output comes before it).
_COLD_PROBE = r"""
import json, sys
from topogen.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
compiled = []
if "numba" in sys.modules:
    from numba.core.dispatcher import Dispatcher
    for name, module in list(sys.modules.items()):
        if name.startswith("topogen") and module is not None:
            for attr, obj in list(vars(module).items()):
                if isinstance(obj, Dispatcher) and obj.signatures:
                    compiled.append(f"{name}.{attr}")
print(json.dumps({"code": code, "numba": "numba" in sys.modules, "compiled": sorted(compiled),
                  "csgraph": "scipy.sparse.csgraph" in sys.modules}))
"""


def cold_env(cache_dir, **extra) -> dict:
    """The environment of a fresh topogen process with an empty numba cache in
    ``cache_dir`` (this checkout first on the path; ``extra`` variables added)."""
    from pathlib import Path

    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env.pop("TOPOGEN_NUMBA_CACHE", None)
    env.update(extra)
    return env


@pytest.fixture
def cold_probe(tmp_path):
    """``cold_probe(*argv)`` runs ``topogen ARGV`` in a fresh process (cwd ``tmp_path``, an
    empty numba cache) and returns ``{"code", "numba", "compiled", "out"}``: ``compiled``
    lists topogen's numba functions the command compiled, ``out`` is its own stdout."""
    import json
    import subprocess
    import sys

    def probe(*argv) -> dict:
        proc = subprocess.run([sys.executable, "-c", _COLD_PROBE, *argv],
                              env=cold_env(tmp_path / "numba-cache"), cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.strip().splitlines()
        return dict(json.loads(lines[-1]), out="\n".join(lines[:-1]))

    return probe


def pytest_collection_modifyitems(config, items):
    """With pytest-xdist's ``--dist loadgroup`` (the default, pyproject.toml), the tests of a
    module that share a module-scoped fixture run on one worker, so the fixture (often a
    whole quick study) is built once, not once per worker."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        for name in info.names_closure:
            defs = info.name2fixturedefs.get(name)
            if defs and defs[-1].scope == "module":
                item.add_marker(pytest.mark.xdist_group(item.module.__name__))
                break
