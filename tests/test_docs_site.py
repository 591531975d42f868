"""The docs build as a site: ``mkdocs build --strict`` (mkdocs.yml at the repository root)
passes without a warning, and the site has the quick start and the API reference pages.

Strict mode turns every warning into a failure: a broken link between pages, a page
missing from the nav, an API page naming a module or member that no longer exists, or a
docstring mkdocstrings cannot parse."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API_PAGES = ("topology", "generators", "layout", "routing", "metrics", "export", "formats", "sim",
             "drivers", "experiments", "reproduce", "results", "errors")

def _missing() -> list[str]:
    """The docs tools that are not importable (mkdocs, the material theme, mkdocstrings and
    its Python handler)."""
    missing = []
    for name in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # the parent package of a dotted name is absent
            found = False
        if not found:
            missing.append(name)
    return missing


_MISSING = _missing()


@pytest.mark.skipif(bool(_MISSING), reason=f"the docs tools are not installed (no {', '.join(_MISSING)}): "
                    "python3 -m pip install '.[docs]'")
def test_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    assert (site / "index.html").is_file()
    assert (site / "quickstart" / "index.html").is_file()
    for name in API_PAGES:
        page = site / "api" / name / "index.html"
        assert page.is_file(), f"no API page {name}"
        # the ::: blocks were rendered, not left as text
        text = page.read_text(encoding="utf-8")
        assert "doc-object" in text and ":::" not in text, f"api/{name}: nothing rendered"


def test_every_page_is_in_the_nav():
    """Each docs page is reachable from the site's navigation (mkdocs only reports a page
    missing from the nav as information, which --strict does not fail on)."""
    yaml = pytest.importorskip("yaml")

    def pages(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from pages(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from pages(value)

    # mkdocs.yml may use !!python/name tags (none now): read it with a loader that ignores them
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)
    in_nav = set(pages(config["nav"]))
    on_disk = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk - in_nav == set(), "pages missing from the nav in mkdocs.yml"
    assert in_nav - on_disk == set(), "nav entries without a page"


def test_sphinx_roles_become_code_spans():
    """The docstrings' Sphinx roles render as code in the site (scripts/griffe_sphinx_roles.py)."""
    pytest.importorskip("griffe")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from griffe_sphinx_roles import plain_roles
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert plain_roles("see :func:`torus`, :class:`~topogen.layout.Floor` and :mod:`.bisection`") == \
        "see `torus`, `Floor` and `bisection`"
    assert plain_roles(":py:meth:`Topology.csr` and ``code``") == "`Topology.csr` and ``code``"
    assert plain_roles("References\n----------\n.. [1] A. Author, \"Title\",\n   IPDPS 2014.") == \
        "References\n----------\n- [1] A. Author, \"Title\",\n   IPDPS 2014."
