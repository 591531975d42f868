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


def test_core_index_files_follow_numba_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("TOPOGEN_NUMBA_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nc"))
    import tempfile

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    in_tree = os.path.join(os.path.dirname(os.path.abspath(sweep_module.__file__)), "__pycache__")
    if any(name.startswith("_core.") and name.endswith(".nbi")
           for name in (os.listdir(in_tree) if os.path.isdir(in_tree) else [])):
        pytest.skip("this checkout's __pycache__ holds the compiled core")
    assert not sweep_module._core_index_files()
    assert not sweep_module._core_cached()
    for root in (tmp_path / "nc", tmp_path / "xdg" / "numba"):
        folder = _core_folder(str(root))
        os.makedirs(folder)
        other = os.path.join(folder, "_allocator.f-1.py311.nbi")  # another module's index
        open(other, "w").close()
        assert not sweep_module._core_index_files()
        open(os.path.join(folder, f"_core.run-10.py{sys.version_info[0]}{sys.version_info[1]}.nbi"),
             "w").close()
        assert sweep_module._core_index_files()
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
