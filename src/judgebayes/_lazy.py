"""Names a package exports without importing their modules until first use (PEP 562).

``import judgebayes`` must stay light (no JAX, no PyMC) while ``jb.fit`` and the
Bayesian models are one attribute away. The standard library offers only the hook
(module ``__getattr__``), so the few lines that route a name to its module are here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, names: Mapping[str, str],
                 eager: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
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
    """

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = names[name]
        if module == "":
            return importlib.import_module(f"{package}.{name}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted({*eager, *names})

    return __getattr__, __dir__
