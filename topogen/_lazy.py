"""Public names loaded on first use (PEP 562), for the packages whose ``__init__`` would
otherwise import heavy code (SciPy, numba, pandas) at ``import``: every ``topogen`` command
starts by importing some of them, and building its parser needs none of that."""

from __future__ import annotations

import importlib
import sys


def lazy_exports(package: str, exports: dict):
    """``__getattr__`` and ``__dir__`` for ``package`` (its ``__name__``).

    ``exports`` maps a public name to the submodule that defines it (``".base"``), or to
    ``(submodule, name there)`` when the names differ.  A name is imported on first use and
    then kept in the package's namespace; ``dir()`` lists the namespace and ``__all__``.
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str):
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = (target, name) if isinstance(target, str) else target
        value = getattr(importlib.import_module(module, package), attr)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
