"""Names a package exports without importing their modules until first use (PEP 562).

``import judgebayes`` must stay light (no JAX, no PyMC, and not even SciPy's statistics or
the frequentist subpackages, so that ``judgebayes softelo`` starts quickly) while every
exported name is one attribute away. The standard library offers only the hook (module
``__getattr__``), so the few lines that route a name to its module are here. A name is
bound in the package once resolved, so later look-ups are plain attribute reads.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any


def lazy_exports(
    package: str,
    names: Mapping[str, str],
    eager: list[str],
    submodules: Collection[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Module ``__getattr__`` and ``__dir__`` for ``package``.

    Parameters
    ----------
    package
        The importing package's ``__name__``.
    names
        ``{attribute: module}``; a module of ``""`` means the attribute *is* the
        submodule ``package.attribute``.
    eager
        The names already bound in the package (listed by ``dir()`` too).
    submodules
        Submodules that ``package.name`` imports on first use without ``dir()`` listing
        them: a package that used to import them eagerly keeps ``package.name`` working.
    """

    def __getattr__(name: str) -> Any:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = names[name]
        if module == "":
            return importlib.import_module(f"{package}.{name}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # bound: __getattr__ is not called again
        return value

    def __dir__() -> list[str]:
        return sorted({*eager, *names})

    return __getattr__, __dir__
