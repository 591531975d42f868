"""A griffe extension for the docs site (mkdocs.yml): the Sphinx cross-reference roles of
the docstrings (``:func:`name```, ``:class:`~topogen.layout.Floor```, ``:mod:`.bisection``` ...)
become Markdown code spans, since mkdocstrings renders docstrings as Markdown.

``~`` keeps the last dotted component, as Sphinx shows it; a leading ``.`` (relative to
the module) is dropped.  The numpydoc citations of a References section (``.. [1] ...``)
become list items.
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`(~?)([^`]+)`")
CITATION = re.compile(r"^([ \t]*)\.\. \[(\w+)\]", re.M)


def plain_roles(text: str) -> str:
    """``text`` with every cross-reference role turned into a code span."""

    def span(m: re.Match) -> str:
        target = m.group(2).strip()
        if m.group(1):
            target = target.rsplit(".", 1)[-1]
        return f"`{target.lstrip('.')}`"

    return CITATION.sub(r"\1- [\2]", ROLE.sub(span, text))


class SphinxRoles(griffe.Extension):
    """Rewrites the docstring of each object griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
