"""Cold start of a small ``simulate``: a sweep on a small network with an empty compiled-code
cache runs the Python engine without importing numba or the compiled engine, and the
sweep's check for a cached event core looks for its index files before importing numba."""

from __future__ import annotations

import hashlib
import os
import sys

import pytest

import topogen
from topogen import formats
from topogen.sim import sweep as sweep_module


@pytest.fixture
def small_bundle(tmp_path):
    formats.save(tmp_path / "t.json", topogen.generate("torus", dims=[4, 4]))
    return tmp_path / "t.json"


@pytest.mark.parametrize("argv", [
    ("simulate", "t.json", "--sweep", "--no-resume", "--tolerance", "0.2", "-o", "sw.csv"),
    ("simulate", "t.json", "--load", "0.1", "-o", "s.csv"),
])
def test_small_simulate_does_not_import_numba(cold_probe, small_bundle, argv):
    out = cold_probe(*argv)
    assert out["code"] == 0
    assert out["compiled"] == []
    assert not out["numba"], "a small simulate should not import numba (0.4 s of CPU)"


def _core_folder(root) -> str:
    """numba's per-source subfolder of ``topogen/sim`` under a cache root."""
    src = os.path.dirname(os.path.abspath(sweep_module.__file__))
    return os.path.join(root, os.path.basename(src) + "_" + hashlib.sha1(src.encode()).hexdigest())


def _touch_index(folder):
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "_allocator.f-1.py311.nbi"), "w").close()  # another module's
    assert not sweep_module._core_index_files()
    # a helper of the core is cached while the event loop compiles: not the core yet
    open(os.path.join(folder, f"_core._push-216.py{sys.version_info[0]}{sys.version_info[1]}.nbi"), "w").close()
    assert not sweep_module._core_index_files()
    name = f"_core.run-10.py{sys.version_info[0]}{sys.version_info[1]}.nbi"
    open(os.path.join(folder, name), "w").close()
    assert sweep_module._core_index_files()
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))


def test_core_index_files_in_the_named_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_NUMBA_CACHE", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nc"))
    assert not sweep_module._core_index_files()
    assert not sweep_module._core_cached()
    _touch_index(_core_folder(str(tmp_path / "nc")))
    monkeypatch.setenv("TOPOGEN_NUMBA_CACHE", str(tmp_path / "shared"))
    _touch_index(_core_folder(str(tmp_path / "shared")))


def test_core_index_files_in_the_user_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_NUMBA_CACHE", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    import tempfile

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    # the package as if installed under tmp_path (this checkout's own __pycache__ may hold
    # the compiled core)
    monkeypatch.setattr(sweep_module, "__file__", str(tmp_path / "site" / "sim" / "sweep.py"))
    assert not sweep_module._core_index_files()
    _touch_index(str(tmp_path / "site" / "sim" / "__pycache__"))
    _touch_index(_core_folder(str(tmp_path / "xdg" / "numba")))
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    _touch_index(_core_folder(str(tmp_path / "tmp" / f"topogen-numba-cache-{uid}")))
