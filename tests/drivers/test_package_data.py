"""``sst_models/`` and ``booksim_configs/`` ship as package data (``topogen/templates``)."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from topogen.export.booksim import SETUPS, template_dir
from topogen.export.sst import model_path

ROOT = Path(__file__).resolve().parents[2]


def test_repository_folders_are_the_packaged_files():
    assert (ROOT / "sst_models" / "topogen_sst.py").resolve() == model_path().resolve()
    assert (ROOT / "booksim_configs" / "templates").resolve() == template_dir().resolve()
    assert model_path().is_relative_to(ROOT / "topogen")
    for fname, _ in SETUPS.values():
        assert (template_dir() / fname).is_file()


def test_package_data_globs_cover_every_template():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = conf["tool"]["setuptools"]["package-data"]["topogen"]
    pkg = ROOT / "topogen"
    files = [p.relative_to(pkg).as_posix() for p in (pkg / "templates").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    assert files
    for f in files:
        # setuptools' "**" also matches nested folders; fnmatch's "*" crosses "/" too
        assert any(fnmatch.fnmatch(f, g) for g in globs), f"{f} is not package data"


@pytest.mark.slow
def test_non_editable_install_ships_templates_and_model(tmp_path):
    """``pip install --target`` of a copy of the source: the templates and the SST model
    are installed and work from there (needs pip with access to setuptools/wheel)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "topogen", src / "topogen",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    target = tmp_path / "site"
    res = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                          str(target), str(src)], capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        pytest.skip(f"pip could not build the package here: {res.stderr.strip().splitlines()[-1:]}")
    installed = target / "topogen" / "templates"
    assert (installed / "sst" / "topogen_sst.py").is_file()
    for fname, _ in SETUPS.values():
        assert (installed / "booksim" / fname).is_file()
    script = (
        "import sys, runpy\n"
        "from topogen.export.booksim import render_config, template_dir\n"
        "from topogen.export.sst import write_bundle, model_path\n"
        "from topogen.generators.classic import torus\n"
        "from topogen.layout import default_layout\n"
        f"assert str(template_dir()).startswith({str(target)!r}), template_dir()\n"
        "t = torus((3, 3)); L = default_layout(t)\n"
        "assert 'topology = anynet;' in render_config('n.anynet')\n"
        "write_bundle('b.json', t, L)\n"
        "sys.argv = [str(model_path()), '--bundle', 'b.json']\n"
        "runpy.run_path(str(model_path()), run_name='__main__')\n"
        "import sst; assert len(sst.RECORD['components']) == 18\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(Path(__file__).parent / "fake_sst")])
    res = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
